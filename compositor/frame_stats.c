/* Per-frame and per-commit accounting.
 *
 * A frame is one output commit that carried a new image. It is recorded when
 * committed (render and commit time, the compositor thread's CPU time and
 * syncobj ioctls since the previous frame of any output) and written out when
 * its output reports it presented (present time, interval to the previous
 * presented frame, refresh).
 *
 * A commit is one wl_surface.commit that attached a buffer. It is followed
 * from the request (client_commit) through the acquire point (explicit sync
 * reports when it is signalled) and the state being applied, to the first
 * frame that shows it and that frame's presentation. A commit replaced by a
 * newer one before any frame showed it is dropped (enum sw_commit_fate).
 *
 * This file keeps the records and the totals; frame_report.c writes them
 * (the report-window lines on stderr, the JSON lines and the exit summary).
 * Field definitions: docs/compositor.md. */
#include "frame_stats.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "clock.h"
#include "frame_report.h"
#include "loop_stats.h"
#include "server.h"
#include "vblank.h"

/* Per wl_surface, as an addon. */
struct sw_surface_stats {
	struct sw_frame_stats *stats;
	struct wlr_surface *surface;
	uint32_t id;
	struct wl_list queued;           /* committed, not applied yet */
	struct sw_commit_record *applied; /* applied, no frame has shown it yet */
	struct wl_list applied_link;      /* sw_frame_stats.applied, while applied is set */
	struct sw_surface_totals *totals; /* NULL before its first commit with a buffer */
	struct wlr_addon addon;

	struct wl_listener client_commit;
	struct wl_listener commit;
};

static struct sw_fd_count count_fds(void)
{
	struct sw_fd_count count = { .total = -1 };
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return count;
	count.total = 0;
	struct dirent *entry;
	while ((entry = readdir(dir))) {
		if (entry->d_name[0] == '.' || atoi(entry->d_name) == dirfd(dir))
			continue;
		char path[300], target[256];
		snprintf(path, sizeof(path), "/proc/self/fd/%s", entry->d_name);
		ssize_t len = readlink(path, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = '\0';
		count.total++;
		if (strncmp(target, "/dmabuf:", 8) == 0 || strcmp(target, "anon_inode:dmabuf") == 0 ||
		    strncmp(target, "/memfd:", 7) == 0)
			count.buffers++;
		else if (strcmp(target, "anon_inode:[eventfd]") == 0)
			count.eventfd++;
		else if (strstr(target, "syncobj"))
			count.syncobj++;
		else if (strstr(target, "sync_file"))
			count.sync_file++;
		else if (strncmp(target, "socket:", 7) == 0)
			count.sockets++;
	}
	closedir(dir);
	return count;
}

/* --- totals per surface and per client ------------------------------------ */

/* Commit-to-present latency in 1 ms buckets up to 100 ms; the error
 * against commit-timing targets in 0.5 ms buckets from -5 ms (early, which
 * must not happen) to 35 ms (two refreshes at 60 Hz and some). */
#define LATENCY_HIST 0.0, 1.0, 100
#define TARGET_ERROR_HIST -5.0, 0.5, 80

/* Out of memory, a histogram stays without buckets and its counts go
 * unrecorded: its series still has them. */
static void totals_add(struct sw_commit_totals *t, double latency_ms, bool timed, double error_ms)
{
	t->presented++;
	stats_stream_add(&t->latency_ms, latency_ms);
	if (t->latency_hist.counts || stats_histogram_init(&t->latency_hist, LATENCY_HIST) == 0)
		stats_histogram_add(&t->latency_hist, latency_ms);
	if (!timed)
		return;
	stats_stream_add(&t->target_error_ms, error_ms);
	if (t->target_error_hist.counts ||
	    stats_histogram_init(&t->target_error_hist, TARGET_ERROR_HIST) == 0)
		stats_histogram_add(&t->target_error_hist, error_ms);
	if (error_ms < 0)
		t->early++;
}

static void histogram_merge(struct stats_histogram *dst, const struct stats_histogram *src)
{
	if (!src->counts)
		return;
	if (!dst->counts && stats_histogram_init(dst, src->from, src->width, src->n_buckets) != 0)
		return;
	stats_histogram_merge(dst, src);
}

static void totals_merge(struct sw_commit_totals *dst, const struct sw_commit_totals *src)
{
	dst->presented += src->presented;
	dst->early += src->early;
	stats_stream_merge(&dst->latency_ms, &src->latency_ms);
	stats_stream_merge(&dst->target_error_ms, &src->target_error_ms);
	histogram_merge(&dst->latency_hist, &src->latency_hist);
	histogram_merge(&dst->target_error_hist, &src->target_error_hist);
}

static void totals_free(struct sw_commit_totals *t)
{
	stats_stream_free(&t->latency_ms);
	stats_stream_free(&t->target_error_ms);
	stats_histogram_free(&t->latency_hist);
	stats_histogram_free(&t->target_error_hist);
}

static void client_totals_free(struct sw_client_totals *c)
{
	totals_free(&c->t);
	wl_list_remove(&c->link);
	free(c);
}

/* A client that is gone, and whose surfaces' totals are all folded in:
 * reported, and summed up for the exit table. */
static void client_totals_unref(struct sw_client_totals *c)
{
	if (--c->refs > 0)
		return;
	struct sw_frame_stats *stats = c->stats;
	frame_report_client(stats, c);
	if (c->t.presented) {
		struct sw_departed_client *d =
			&stats->departed_ring[stats->departed++ % SW_DEPARTED_CLIENTS];
		d->id = c->id;
		memcpy(d->app_id, c->app_id, sizeof(d->app_id));
		d->early = c->t.early;
		d->latency_ms = sample_summarize(&c->t.latency_ms);
		d->target_error_ms = sample_summarize(&c->t.target_error_ms);
	}
	client_totals_free(c);
}

static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct sw_client_totals *c = wl_container_of(listener, c, destroy);
	wl_list_remove(&c->destroy.link);
	wl_list_init(&c->destroy.link);
	client_totals_unref(c);
}

static struct sw_client_totals *client_totals_get(struct sw_frame_stats *stats, struct wl_client *client)
{
	struct wl_listener *l = wl_client_get_destroy_listener(client, handle_client_destroy);
	if (l) {
		struct sw_client_totals *c = wl_container_of(l, c, destroy);
		return c;
	}
	struct sw_client_totals *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->stats = stats;
	c->id = ++stats->next_client_id;
	wl_client_get_credentials(client, &c->pid, NULL, NULL);
	c->refs = 1;
	c->destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client, &c->destroy);
	wl_list_insert(stats->clients.prev, &c->link);
	return c;
}

/* The surface is gone and no frame holds one of its commits any more:
 * its totals are reported and folded into its client's. */
static void surface_totals_unref(struct sw_frame_stats *stats, struct sw_surface_totals *st)
{
	if (--st->refs > 0)
		return;
	frame_report_surface(stats, st);
	struct sw_client_totals *c = st->client;
	if (c) {
		totals_merge(&c->t, &st->t);
		c->surfaces++;
		if (!c->app_id[0])
			memcpy(c->app_id, st->app_id, sizeof(c->app_id));
	}
	totals_free(&st->t);
	wl_list_remove(&st->link);
	free(st);
	if (c)
		client_totals_unref(c);
}

static struct sw_surface_totals *surface_totals_create(struct sw_frame_stats *stats,
						       struct wlr_surface *surface, uint32_t id)
{
	struct sw_surface_totals *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->id = id;
	st->refs = 1;
	st->client = client_totals_get(stats, wl_resource_get_client(surface->resource));
	if (st->client)
		st->client->refs++;
	wl_list_insert(stats->surfaces.prev, &st->link);
	return st;
}

/* --- commits ----------------------------------------------------------- */

static void commit_finish(struct sw_frame_stats *stats, struct sw_commit_record *rec,
			  enum sw_commit_fate fate, const struct sw_output_stats *output, uint64_t frame,
			  int64_t t_present)
{
	stats->commits++;
	if (rec->explicit_sync)
		stats->commits_explicit++;
	if (rec->waited)
		stats->commits_waited++;
	if (fate == SW_COMMIT_PRESENTED) {
		stats->commits_presented++;
		double ms = (double)(t_present - rec->t_commit) / 1e6;
		double err = rec->t_target ? (double)(t_present - rec->t_target) / 1e6 : 0;
		stats_stream_add(&stats->present_ms, ms);
		if (rec->t_target)
			stats_stream_add(&stats->target_error_ms, err);
		totals_add(&rec->totals->t, ms, rec->t_target != 0, err);
		stats->win_commits++;
		stats->win_present_ms_sum += ms;
		if (rec->explicit_sync)
			stats_stream_add(&stats->acquire_to_present_ms,
					 (double)(t_present - rec->t_acquired) / 1e6);
	} else if (fate == SW_COMMIT_DROPPED) {
		stats->commits_dropped++;
	} else {
		stats->commits_lost++;
	}
	if (rec->explicit_sync && rec->t_acquired)
		stats_stream_add(&stats->acquire_ms, (double)(rec->t_acquired - rec->t_commit) / 1e6);
	if (rec->t_applied)
		stats_stream_add(&stats->apply_ms, (double)(rec->t_applied - rec->t_commit) / 1e6);

	frame_report_commit(stats, rec, fate, output, frame, t_present);
	wl_list_remove(&rec->link);
	surface_totals_unref(stats, rec->totals);
	free(rec);
}

static void handle_client_commit(struct wl_listener *listener, void *data)
{
	struct sw_surface_stats *ss = wl_container_of(listener, ss, client_commit);
	struct wlr_surface *surface = ss->surface;
	/* Only commits that bring a new image count; cursor images are not
	 * drawn by the scene, so no frame would ever show them. */
	if (surface->pending_rejected || !surface->pending.buffer ||
	    (surface->role && strcmp(surface->role->name, "wl_pointer-cursor") == 0))
		return;
	if (!ss->totals && !(ss->totals = surface_totals_create(ss->stats, surface, ss->id)))
		return;
	struct sw_commit_record *rec = calloc(1, sizeof(*rec));
	if (!rec)
		return;
	rec->surface_id = ss->id;
	rec->totals = ss->totals;
	ss->totals->refs++;
	/* Which client is which in the per-surface summaries: set before
	 * the first commit by most clients, but only the role knows it. */
	struct wlr_xdg_toplevel *toplevel = ss->totals->app_id[0] ? NULL :
		wlr_xdg_toplevel_try_from_wlr_surface(surface);
	if (toplevel && toplevel->app_id)
		snprintf(ss->totals->app_id, sizeof(ss->totals->app_id), "%s", toplevel->app_id);
	rec->seq = surface->pending.seq;
	rec->t_commit = sw_clock_ns(CLOCK_MONOTONIC);
	wl_list_insert(ss->queued.prev, &rec->link);
}

static void handle_commit(struct wl_listener *listener, void *data)
{
	struct sw_surface_stats *ss = wl_container_of(listener, ss, commit);
	uint32_t seq = ss->surface->current.seq;
	struct sw_commit_record *rec, *tmp;
	wl_list_for_each_safe(rec, tmp, &ss->queued, link) {
		/* Sequence numbers wrap; anything older than the applied state
		 * was refused and will never apply. */
		int32_t age = (int32_t)(rec->seq - seq);
		if (age > 0)
			break;
		if (age < 0) {
			commit_finish(ss->stats, rec, SW_COMMIT_LOST, NULL, 0, 0);
			continue;
		}
		wl_list_remove(&rec->link);
		wl_list_init(&rec->link);
		rec->t_applied = sw_clock_ns(CLOCK_MONOTONIC);
		if (ss->applied)
			commit_finish(ss->stats, ss->applied, SW_COMMIT_DROPPED, NULL, 0, 0);
		else
			wl_list_insert(ss->stats->applied.prev, &ss->applied_link);
		ss->applied = rec;
		break;
	}
}

static void surface_stats_destroy(struct sw_surface_stats *ss)
{
	struct sw_commit_record *rec, *tmp;
	wl_list_for_each_safe(rec, tmp, &ss->queued, link)
		commit_finish(ss->stats, rec, SW_COMMIT_LOST, NULL, 0, 0);
	if (ss->applied) {
		commit_finish(ss->stats, ss->applied, SW_COMMIT_LOST, NULL, 0, 0);
		wl_list_remove(&ss->applied_link);
	}
	if (ss->totals)
		surface_totals_unref(ss->stats, ss->totals);
	wl_list_remove(&ss->client_commit.link);
	wl_list_remove(&ss->commit.link);
	wlr_addon_finish(&ss->addon);
	free(ss);
}

static void addon_handle_destroy(struct wlr_addon *addon)
{
	struct sw_surface_stats *ss = wl_container_of(addon, ss, addon);
	surface_stats_destroy(ss);
}

static const struct wlr_addon_interface addon_impl = {
	.name = "syncway_surface_stats",
	.destroy = addon_handle_destroy,
};

static struct sw_surface_stats *surface_stats_get(struct sw_frame_stats *stats, struct wlr_surface *surface)
{
	struct wlr_addon *addon = wlr_addon_find(&surface->addons, stats, &addon_impl);
	if (!addon)
		return NULL;
	struct sw_surface_stats *ss = wl_container_of(addon, ss, addon);
	return ss;
}

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct sw_frame_stats *stats = wl_container_of(listener, stats, new_surface);
	struct wlr_surface *surface = data;
	struct sw_surface_stats *ss = calloc(1, sizeof(*ss));
	if (!ss)
		return;
	ss->stats = stats;
	ss->surface = surface;
	ss->id = ++stats->next_surface_id;
	wl_list_init(&ss->queued);
	wlr_addon_init(&ss->addon, &surface->addons, stats, &addon_impl);
	/* Added when the surface is created, so before any explicit-sync
	 * listener: the record exists when the acquire point is checked. */
	ss->client_commit.notify = handle_client_commit;
	wl_signal_add(&surface->events.client_commit, &ss->client_commit);
	ss->commit.notify = handle_commit;
	wl_signal_add(&surface->events.commit, &ss->commit);
}

void sw_frame_stats_commit_acquired(struct sw_frame_stats *stats, struct wlr_surface *surface,
				    uint32_t seq, int64_t t_ns, bool waited)
{
	struct sw_surface_stats *ss = stats ? surface_stats_get(stats, surface) : NULL;
	if (!ss)
		return;
	struct sw_commit_record *rec;
	wl_list_for_each(rec, &ss->queued, link) {
		if (rec->seq == seq) {
			rec->explicit_sync = true;
			rec->waited = waited;
			rec->t_acquired = t_ns;
			return;
		}
	}
}

void sw_frame_stats_commit_target(struct sw_frame_stats *stats, struct wlr_surface *surface,
				  uint32_t seq, int64_t target_ns)
{
	struct sw_surface_stats *ss = stats ? surface_stats_get(stats, surface) : NULL;
	if (!ss)
		return;
	/* The newest record: the commit being made. */
	struct sw_commit_record *rec;
	wl_list_for_each_reverse(rec, &ss->queued, link) {
		if (rec->seq == seq) {
			rec->t_target = target_ns;
			return;
		}
	}
}

/* --- frames ------------------------------------------------------------- */

/* When a commit was ready from its client's side: made, its acquire point
 * signalled, its commit-timing target reached. A fifo barrier is not the
 * client's: it is the compositor's to clear at each refresh, so a commit
 * held by one past a refresh the compositor slept through was ready. */
static int64_t commit_ready_ns(const struct sw_commit_record *rec)
{
	int64_t t = rec->t_commit;
	if (rec->t_acquired > t)
		t = rec->t_acquired;
	if (rec->t_target > t)
		t = rec->t_target;
	return t;
}

/* Of the gap vblanks between the previous presented frame and one presented
 * at t_present, those a refresh or more after ready (the earliest a commit
 * the frame shows was ready; 0: none) were missed: the compositor had a
 * frame event for them after the commit was ready, and did not show it. A
 * commit ready later than that could not have made the vblank on any
 * backend (the frame for it was being rendered), so it is not a miss. */
static long missed_vblanks(long gap, int64_t t_present, int64_t refresh_ns, int64_t ready)
{
	if (gap <= 0 || ready <= 0 || ready >= t_present)
		return 0;
	/* vblank j before this one (j = 1..gap) is at t_present - j * refresh:
	 * missed when ready <= t_present - (j + 1) * refresh. */
	int64_t j = (t_present - ready) / refresh_ns - 1;
	return j < 0 ? 0 : j > gap ? gap : (long)j;
}

void sw_frame_stats_frame_committed(struct sw_output_stats *o, struct wlr_scene_output *scene_output,
				    uint64_t frame, uint32_t commit_seq, int64_t start_ns,
				    int64_t rendered_ns, int64_t end_ns)
{
	struct sw_frame_stats *stats = o->stats;
	struct sw_pending_frame *pf = calloc(1, sizeof(*pf));
	if (!pf)
		return;
	pf->frame = frame;
	pf->commit_seq = commit_seq;
	pf->t_start = start_ns;
	pf->t_rendered = rendered_ns;
	pf->t_end = end_ns;
	wl_list_init(&pf->commits);

	/* On a clocked output, the sample the clock took when this frame's
	 * vblank woke syncway. */
	struct rusage ru;
	if ((o->clock && sw_vblank_clock_frame_usage(o->clock, commit_seq, &ru)) ||
	    getrusage(RUSAGE_THREAD, &ru) == 0) {
		pf->cpu_user_ns = sw_timeval_ns(ru.ru_utime) - sw_timeval_ns(stats->last_rusage.ru_utime);
		pf->cpu_sys_ns = sw_timeval_ns(ru.ru_stime) - sw_timeval_ns(stats->last_rusage.ru_stime);
		pf->ctxsw = (ru.ru_nvcsw - stats->last_rusage.ru_nvcsw) +
			    (ru.ru_nivcsw - stats->last_rusage.ru_nivcsw);
		stats->last_rusage = ru;
	}
	/* Every call counts, so an unchanged count means no call since the
	 * previous frame: the frame keeps its zeroed record, and a frame
	 * without explicit-sync clients skips the per-op arithmetic. */
	const struct sw_syncobj_stats *now = &stats->server->syncobj_stats;
	uint64_t calls = sw_syncobj_stats_count(now);
	if (calls != stats->last_syncobj_calls) {
		sw_syncobj_stats_diff(&pf->syncobj, now, &stats->last_syncobj);
		pf->ioctls = calls - stats->last_syncobj_calls;
		pf->ioctl_ns = sw_syncobj_stats_ns(&pf->syncobj);
		stats->last_syncobj = *now;
		stats->last_syncobj_calls = calls;
	}

	/* Commits applied since the last frame and visible on this output
	 * are shown by this frame: the surfaces with one are few, the
	 * scene's nodes many. */
	struct sw_surface_stats *ss, *tmp;
	wl_list_for_each_safe(ss, tmp, &stats->applied, applied_link) {
		if (!surface_on_output(ss->surface, scene_output->output))
			continue;
		wl_list_insert(pf->commits.prev, &ss->applied->link);
		ss->applied = NULL;
		wl_list_remove(&ss->applied_link);
	}
	wl_list_insert(o->pending.prev, &pf->link);
}

static void frame_finish(struct sw_output_stats *o, struct sw_pending_frame *pf,
			 const struct wlr_output_event_present *event)
{
	struct sw_frame_outcome out = {
		.presented = event && event->presented,
		.t_present = pf->t_end,
		.interval_ns = -1,
		.refresh_ns = event ? event->refresh : 0,
	};
	if (out.presented && event->when)
		out.t_present = sw_timespec_ns(*event->when);

	uint64_t ioctls = pf->ioctls, ioctl_ns = pf->ioctl_ns;
	if (out.presented) {
		if (o->presented > 0) {
			out.interval_ns = out.t_present - o->last_present_ns;
			stats_stream_add(&o->interval_ms, (double)out.interval_ns / 1e6);
		} else {
			o->first_present_ns = out.t_present;
		}
		if (o->presented > 0 && out.refresh_ns > 0) {
			/* The vblanks in between: by sequence number where the
			 * backend counts them, else by time. */
			long gap = lround((double)out.interval_ns / (double)out.refresh_ns) - 1;
			if (event->seq && o->last_present_seq && event->seq > o->last_present_seq)
				gap = (long)(event->seq - o->last_present_seq) - 1;
			if (gap < 0)
				gap = 0;
			int64_t ready = 0;
			struct sw_commit_record *rec;
			wl_list_for_each(rec, &pf->commits, link) {
				int64_t t = commit_ready_ns(rec);
				if (!ready || t < ready)
					ready = t;
			}
			out.missed = missed_vblanks(gap, out.t_present, out.refresh_ns, ready);
			out.idle = gap - out.missed;
			/* They are the ones right before this one. */
			for (long j = 1; o->clock && event->seq && j <= out.missed; j++)
				out.missed_waiting += sw_vblank_clock_kind(o->clock, event->seq - j) ==
						      SW_VBLANK_SLEPT_WAITING;
			o->missed += out.missed;
			o->idle += out.idle;
			o->missed_waiting += out.missed_waiting;
		}
		o->presented++;
		o->last_present_ns = out.t_present;
		o->last_present_seq = event->seq;
		o->win_frames++;
	} else {
		o->not_presented++;
	}
	o->win_cpu_ns += pf->cpu_user_ns + pf->cpu_sys_ns;
	o->win_ioctls += ioctls;
	o->win_ioctl_ns += ioctl_ns;
	stats_stream_add(&o->render_ms, (double)(pf->t_rendered - pf->t_start) / 1e6);
	stats_stream_add(&o->commit_ms, (double)(pf->t_end - pf->t_rendered) / 1e6);
	stats_stream_add(&o->cpu_user_us, (double)pf->cpu_user_ns / 1e3);
	stats_stream_add(&o->cpu_sys_us, (double)pf->cpu_sys_ns / 1e3);
	stats_stream_add(&o->ioctls, (double)ioctls);
	stats_stream_add(&o->ioctl_us, (double)ioctl_ns / 1e3);
	if (ioctls)
		sw_syncobj_stats_add(&o->syncobj_total, &pf->syncobj);
	frame_report_frame(o, pf, &out);

	enum sw_commit_fate fate = out.presented ? SW_COMMIT_PRESENTED : SW_COMMIT_NOT_PRESENTED;
	struct sw_commit_record *rec, *tmp;
	wl_list_for_each_safe(rec, tmp, &pf->commits, link)
		commit_finish(o->stats, rec, fate, o, pf->frame, out.t_present);
	wl_list_remove(&pf->link);
	free(pf);
}

void sw_frame_stats_frame_presented(struct sw_output_stats *o, uint64_t frame,
				    const struct wlr_output_event_present *event)
{
	struct sw_pending_frame *pf, *tmp;
	wl_list_for_each_safe(pf, tmp, &o->pending, link) {
		if (pf->frame == frame) {
			frame_finish(o, pf, event);
			return;
		}
	}
}

/* --- outputs and reports -------------------------------------------------- */

/* The series that live as long as the compositor (an output's, the
 * commits' of all clients) have their buckets from the start, so that a
 * session's memory does not change with its uptime: 1 µs to 100 s in ms,
 * 0.1 µs to 100 s in µs, 1 to 100 000 ioctls. Out of memory they stay
 * adaptive (stats_stream_init_fixed()), which costs only that guarantee. */
static void series_init(struct stats_stream *s, double lo, double hi, bool negative)
{
	if (stats_stream_init_fixed(s, lo, hi, negative) != 0)
		wlr_log(WLR_ERROR, "out of memory for a series: its memory will follow its range");
}
#define RANGE_MS 1e-3, 1e5
#define RANGE_US 1e-1, 1e8
#define RANGE_COUNT 1, 1e5

struct sw_output_stats *sw_frame_stats_add_output(struct sw_frame_stats *stats, struct wlr_output *output,
						 const struct sw_vblank_clock *clock)
{
	struct sw_output_stats *o = calloc(1, sizeof(*o));
	if (!o) {
		wlr_log(WLR_ERROR, "out of memory");
		abort();
	}
	o->stats = stats;
	o->clock = clock;
	snprintf(o->name, sizeof(o->name), "%s", output->name);
	wl_list_init(&o->pending);
	series_init(&o->interval_ms, RANGE_MS, false);
	series_init(&o->render_ms, RANGE_MS, false);
	series_init(&o->commit_ms, RANGE_MS, false);
	series_init(&o->cpu_user_us, RANGE_US, false);
	series_init(&o->cpu_sys_us, RANGE_US, false);
	series_init(&o->ioctls, RANGE_COUNT, false);
	series_init(&o->ioctl_us, RANGE_US, false);
	o->win_start_ns = sw_clock_ns(CLOCK_MONOTONIC);
	wl_list_insert(stats->outputs.prev, &o->link);
	return o;
}

static void output_stats_free(struct sw_output_stats *o)
{
	struct sw_pending_frame *pf, *tmp;
	wl_list_for_each_safe(pf, tmp, &o->pending, link)
		frame_finish(o, pf, NULL);
	stats_stream_free(&o->interval_ms);
	stats_stream_free(&o->render_ms);
	stats_stream_free(&o->commit_ms);
	stats_stream_free(&o->cpu_user_us);
	stats_stream_free(&o->cpu_sys_us);
	stats_stream_free(&o->ioctls);
	stats_stream_free(&o->ioctl_us);
	wl_list_remove(&o->link);
	free(o);
}

void sw_frame_stats_remove_output(struct sw_output_stats *o)
{
	frame_report_output(o);
	output_stats_free(o);
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	long size, resident;
	int n = f ? fscanf(f, "%ld %ld", &size, &resident) : 0;
	if (f)
		fclose(f);
	return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

/* mallinfo2() walks the arenas' free lists: once a report window, not
 * per frame. */
static void heap_bytes(size_t *in_use, size_t *free_bytes)
{
	struct mallinfo2 mi = mallinfo2();
	*in_use = mi.uordblks + mi.hblkhd;
	*free_bytes = mi.fordblks;
}

/* The report windows end: their lines are printed if a frame was
 * presented or a commit shown in them (a login session's log gets nothing
 * while the screen is idle), or always when asked. */
static void report_windows(struct sw_frame_stats *stats, bool always)
{
	int64_t now = sw_clock_ns(CLOCK_MONOTONIC);
	bool printed = false;
	struct sw_output_stats *o;
	wl_list_for_each(o, &stats->outputs, link) {
		if (always || o->win_frames > 0 || stats->win_commits > 0) {
			frame_report_window(o, now);
			printed = true;
		}
		o->win_frames = 0;
		o->win_cpu_ns = 0;
		o->win_ioctls = 0;
		o->win_ioctl_ns = 0;
		o->win_start_ns = now;
	}
	if (printed || always) {
		struct sw_process_sample sample = {
			.rss_kb = rss_kb(),
			.fds = count_fds(),
			.syncobj_handles = sw_syncobj_stats_handles(&stats->server->syncobj_stats),
			.longest_turn_ms = stats->server->loop_stats ?
				sw_loop_stats_take_window_max(stats->server->loop_stats) : -1,
		};
		heap_bytes(&sample.heap_in_use, &sample.heap_free);
		frame_report_process(&sample);
	}
	stats->win_commits = 0;
	stats->win_present_ms_sum = 0;
	if (stats->json)
		fflush(stats->json);
}

static int handle_report(void *data)
{
	struct sw_frame_stats *stats = data;
	report_windows(stats, false);
	wl_event_source_timer_update(stats->report_timer, stats->server->options->report_interval_ms);
	return 0;
}

static int handle_report_signal(int signal, void *data)
{
	report_windows(data, true);
	return 0;
}

struct sw_frame_stats *sw_frame_stats_create(struct sw_server *server)
{
	struct sw_frame_stats *stats = calloc(1, sizeof(*stats));
	if (!stats)
		return NULL;
	stats->server = server;
	stats->start_ns = sw_clock_ns(CLOCK_MONOTONIC);
	stats->fds_before.total = stats->fds_after.total = -1;
	wl_list_init(&stats->outputs);
	wl_list_init(&stats->surfaces);
	wl_list_init(&stats->clients);
	wl_list_init(&stats->applied);
	const char *path = server->options->stats_path;
	if (path) {
		stats->json = fopen(path, "we");
		if (!stats->json) {
			fprintf(stderr, "syncway: cannot write stats to %s: %s\n", path, strerror(errno));
			free(stats);
			return NULL;
		}
	}
	series_init(&stats->acquire_ms, RANGE_MS, false);
	series_init(&stats->apply_ms, RANGE_MS, false);
	series_init(&stats->present_ms, RANGE_MS, false);
	series_init(&stats->acquire_to_present_ms, RANGE_MS, false);
	series_init(&stats->target_error_ms, RANGE_MS, true);
	getrusage(RUSAGE_THREAD, &stats->last_rusage);
	stats->last_syncobj = server->syncobj_stats;
	stats->last_syncobj_calls = sw_syncobj_stats_count(&server->syncobj_stats);

	stats->new_surface.notify = handle_new_surface;
	wl_signal_add(&server->compositor->events.new_surface, &stats->new_surface);
	if (server->options->report_interval_ms > 0) {
		stats->report_timer = wl_event_loop_add_timer(server->loop, handle_report, stats);
		wl_event_source_timer_update(stats->report_timer, server->options->report_interval_ms);
	}
	stats->report_signal = wl_event_loop_add_signal(server->loop, SIGUSR1, handle_report_signal, stats);
	return stats;
}

void sw_frame_stats_mark_fds(struct sw_frame_stats *stats, bool clients_gone)
{
	size_t heap_free;
	if (clients_gone) {
		stats->fds_after = count_fds();
		heap_bytes(&stats->heap_after, &heap_free);
		stats->series_after = stats_stream_bytes();
	} else {
		stats->fds_before = count_fds();
		heap_bytes(&stats->heap_before, &heap_free);
		stats->series_before = stats_stream_bytes();
	}
}

void sw_frame_stats_explicit_sync_done(struct sw_frame_stats *stats,
				       const struct sw_explicit_sync_counters *counters)
{
	stats->sync_counters = *counters;
	stats->have_sync_counters = true;
}

void sw_frame_stats_destroy(struct sw_frame_stats *stats)
{
	if (!stats)
		return;
	if (stats->report_timer)
		wl_event_source_remove(stats->report_timer);
	if (stats->report_signal)
		wl_event_source_remove(stats->report_signal);
	wl_list_remove(&stats->new_surface.link);

	struct sw_output_stats *o, *otmp;
	wl_list_for_each_safe(o, otmp, &stats->outputs, link)
		sw_frame_stats_remove_output(o);

	/* Every client and its surfaces are gone by now, and the outputs'
	 * last frames have let go of their commits; whatever is left is
	 * folded the same way. */
	struct sw_surface_totals *st, *sttmp;
	wl_list_for_each_safe(st, sttmp, &stats->surfaces, link) {
		st->refs = 1;
		surface_totals_unref(stats, st);
	}
	struct sw_client_totals *c, *ctmp;
	wl_list_for_each_safe(c, ctmp, &stats->clients, link) {
		wl_list_remove(&c->destroy.link);
		wl_list_init(&c->destroy.link);
		c->refs = 1;
		client_totals_unref(c);
	}
	frame_report_clients(stats);
	frame_report_summary(stats);
	if (stats->json)
		fclose(stats->json);
	stats_stream_free(&stats->target_error_ms);
	stats_stream_free(&stats->acquire_ms);
	stats_stream_free(&stats->apply_ms);
	stats_stream_free(&stats->present_ms);
	stats_stream_free(&stats->acquire_to_present_ms);
	free(stats);
}
