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
 * newer one before any frame showed it is "dropped".
 *
 * The same numbers feed the 5 s lines on stderr, the JSON lines and the exit
 * summary. Field definitions: docs/compositor.md. */
#include "frame_stats.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "clock.h"
#include "explicit_sync.h"
#include "json.h"
#include "server.h"
#include "stats.h"
#include "syncobj.h"

struct sw_commit_record {
	struct wl_list link;
	uint32_t surface_id;
	uint32_t seq;
	bool explicit_sync, waited;
	int64_t t_commit, t_acquired, t_applied;
};

/* Per wl_surface, as an addon. */
struct sw_surface_stats {
	struct sw_frame_stats *stats;
	struct wlr_surface *surface;
	uint32_t id;
	struct wl_list queued;           /* committed, not applied yet */
	struct sw_commit_record *applied; /* applied, no frame has shown it yet */
	struct wlr_addon addon;

	struct wl_listener client_commit;
	struct wl_listener commit;
};

struct sw_pending_frame {
	struct wl_list link; /* sw_output_stats.pending */
	uint64_t frame;
	uint32_t commit_seq;
	int64_t t_start, t_rendered, t_end;
	int64_t cpu_user_ns, cpu_sys_ns;
	long ctxsw;
	struct sw_syncobj_stats syncobj;
	struct wl_list commits; /* sw_commit_record: shown first by this frame */
};

struct sw_output_stats {
	struct wl_list link; /* sw_frame_stats.outputs */
	struct sw_frame_stats *stats;
	char name[64];
	struct wl_list pending; /* sw_pending_frame, oldest first */

	uint64_t presented, not_presented, missed;
	int64_t first_present_ns, last_present_ns;

	/* the current report window */
	uint64_t win_frames;
	int64_t win_start_ns, win_cpu_ns;
	uint64_t win_ioctls, win_ioctl_ns;

	/* Out of memory, a series (here and in sw_frame_stats) loses a sample
	 * rather than the compositor its life: stats_sample_add() failures
	 * are ignored. */
	struct stats_sample interval_ms, render_ms, commit_ms, cpu_user_us, cpu_sys_us, ioctls, ioctl_us;
	struct sw_syncobj_stats syncobj_total;
};

/* Open fds by kind: a leak check for the kinds explicit sync creates
 * (eventfds for waits, syncobj and sync_file fds). Buffer fds (dmabufs,
 * memfds of shm buffers) are counted apart because swapchains grow lazily
 * (a third buffer on a busy output). */
struct sw_fd_count {
	int total, buffers, eventfd, syncobj, sync_file;
};

struct sw_frame_stats {
	struct sw_server *server;
	FILE *json;
	struct wl_list outputs; /* sw_output_stats.link */
	struct wl_event_source *report_timer;
	uint32_t next_surface_id;
	int64_t start_ns;
	struct sw_fd_count fds_before, fds_after;
	bool have_sync_counters;
	struct sw_explicit_sync_counters sync_counters;

	struct rusage last_rusage;
	struct sw_syncobj_stats last_syncobj;

	uint64_t commits, commits_explicit, commits_waited, commits_presented, commits_dropped,
		commits_lost;
	struct stats_sample acquire_ms, apply_ms, present_ms, acquire_to_present_ms;
	uint64_t win_commits;
	double win_present_ms_sum;

	struct wl_listener new_surface;
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
	}
	closedir(dir);
	return count;
}

/* --- series and their summaries ----------------------------------------- */

struct sw_summary {
	size_t n;
	double mean, median, p99, max;
};

/* Median: the upper median sorted[n/2], as ministat prints it. p99: nearest
 * rank, sorted[ceil(0.99 n) - 1]. An empty series is all zeros. Sorts the
 * series in place. */
static struct sw_summary series_summary(struct stats_sample *s)
{
	struct sw_summary sum = { .n = s->n };
	if (s->n == 0)
		return sum;
	struct stats_summary ss;
	stats_sample_summarize(s, &ss);
	sum.mean = ss.mean;
	sum.median = ss.median;
	sum.p99 = stats_percentile(s->v, s->n, 99);
	sum.max = ss.max;
	return sum;
}

static void print_summary_row(const char *prefix, const char *name, struct stats_sample *s)
{
	struct sw_summary sum = series_summary(s);
	if (sum.n == 0)
		return;
	fprintf(stderr, "syncway: %s  %-26s %7zu %11.3f %11.3f %11.3f %11.3f\n", prefix, name, sum.n,
		sum.mean, sum.median, sum.p99, sum.max);
}

static void json_summary(FILE *f, const char *key, struct stats_sample *s, bool comma)
{
	struct sw_summary sum = series_summary(s);
	fprintf(f, "%s\"%s\":{\"n\":%zu,\"mean\":%.6f,\"median\":%.6f,\"p99\":%.6f,\"max\":%.6f}",
		comma ? "," : "", key, sum.n, sum.mean, sum.median, sum.p99, sum.max);
}

/* --- commits ----------------------------------------------------------- */

/* result: presented, not_presented (its frame was dropped), dropped
 * (replaced before any frame showed it), lost (surface destroyed first). */
static void commit_finish(struct sw_frame_stats *stats, struct sw_commit_record *rec, const char *result,
			  const struct sw_output_stats *output, uint64_t frame, int64_t t_present)
{
	bool presented = strcmp(result, "presented") == 0;
	stats->commits++;
	if (rec->explicit_sync)
		stats->commits_explicit++;
	if (rec->waited)
		stats->commits_waited++;
	if (presented) {
		stats->commits_presented++;
		double ms = (double)(t_present - rec->t_commit) / 1e6;
		stats_sample_add(&stats->present_ms, ms);
		stats->win_commits++;
		stats->win_present_ms_sum += ms;
		if (rec->explicit_sync)
			stats_sample_add(&stats->acquire_to_present_ms, (double)(t_present - rec->t_acquired) / 1e6);
	} else if (strcmp(result, "dropped") == 0) {
		stats->commits_dropped++;
	} else {
		stats->commits_lost++;
	}
	if (rec->explicit_sync && rec->t_acquired)
		stats_sample_add(&stats->acquire_ms, (double)(rec->t_acquired - rec->t_commit) / 1e6);
	if (rec->t_applied)
		stats_sample_add(&stats->apply_ms, (double)(rec->t_applied - rec->t_commit) / 1e6);

	FILE *f = stats->json;
	if (f) {
		fprintf(f, "{\"type\":\"commit\",\"t_ns\":%lld,\"surface\":%u,\"seq\":%u,\"explicit\":%s,"
			"\"waited\":%s,\"result\":\"%s\"",
			(long long)rec->t_commit, rec->surface_id, rec->seq,
			rec->explicit_sync ? "true" : "false", rec->waited ? "true" : "false", result);
		if (rec->explicit_sync && rec->t_acquired)
			fprintf(f, ",\"acquire_ns\":%lld", (long long)(rec->t_acquired - rec->t_commit));
		if (rec->t_applied)
			fprintf(f, ",\"apply_ns\":%lld", (long long)(rec->t_applied - rec->t_commit));
		if (output) {
			fputs(",\"output\":", f);
			sw_json_string(f, output->name);
			fprintf(f, ",\"frame\":%llu", (unsigned long long)frame);
		}
		if (presented) {
			fprintf(f, ",\"present_ns\":%lld", (long long)(t_present - rec->t_commit));
			if (rec->explicit_sync)
				fprintf(f, ",\"acquire_to_present_ns\":%lld",
					(long long)(t_present - rec->t_acquired));
		}
		fputs("}\n", f);
	}
	wl_list_remove(&rec->link);
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
	struct sw_commit_record *rec = calloc(1, sizeof(*rec));
	if (!rec)
		return;
	rec->surface_id = ss->id;
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
			commit_finish(ss->stats, rec, "lost", NULL, 0, 0);
			continue;
		}
		wl_list_remove(&rec->link);
		wl_list_init(&rec->link);
		rec->t_applied = sw_clock_ns(CLOCK_MONOTONIC);
		if (ss->applied)
			commit_finish(ss->stats, ss->applied, "dropped", NULL, 0, 0);
		ss->applied = rec;
		break;
	}
}

static void surface_stats_destroy(struct sw_surface_stats *ss)
{
	struct sw_commit_record *rec, *tmp;
	wl_list_for_each_safe(rec, tmp, &ss->queued, link)
		commit_finish(ss->stats, rec, "lost", NULL, 0, 0);
	if (ss->applied)
		commit_finish(ss->stats, ss->applied, "lost", NULL, 0, 0);
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

/* --- frames ------------------------------------------------------------- */

struct collect_data {
	struct sw_frame_stats *stats;
	struct sw_pending_frame *frame;
};

static void collect_shown_commit(struct wlr_scene_buffer *buffer, int sx, int sy, void *data)
{
	struct collect_data *collect = data;
	struct wlr_scene_surface *scene_surface = wlr_scene_surface_try_from_buffer(buffer);
	if (!scene_surface)
		return;
	struct sw_surface_stats *ss = surface_stats_get(collect->stats, scene_surface->surface);
	if (ss && ss->applied) {
		wl_list_insert(collect->frame->commits.prev, &ss->applied->link);
		ss->applied = NULL;
	}
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

	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		pf->cpu_user_ns = sw_timeval_ns(ru.ru_utime) - sw_timeval_ns(stats->last_rusage.ru_utime);
		pf->cpu_sys_ns = sw_timeval_ns(ru.ru_stime) - sw_timeval_ns(stats->last_rusage.ru_stime);
		pf->ctxsw = (ru.ru_nvcsw - stats->last_rusage.ru_nvcsw) +
			    (ru.ru_nivcsw - stats->last_rusage.ru_nivcsw);
		stats->last_rusage = ru;
	}
	sw_syncobj_stats_diff(&pf->syncobj, &stats->server->syncobj_stats, &stats->last_syncobj);
	stats->last_syncobj = stats->server->syncobj_stats;

	/* Commits applied since the last frame and visible on this output
	 * are shown by this frame. */
	struct collect_data collect = { .stats = stats, .frame = pf };
	wlr_scene_output_for_each_buffer(scene_output, collect_shown_commit, &collect);
	wl_list_insert(o->pending.prev, &pf->link);
}

static void frame_finish(struct sw_output_stats *o, struct sw_pending_frame *pf,
			 const struct wlr_output_event_present *event)
{
	struct sw_frame_stats *stats = o->stats;
	bool presented = event && event->presented;
	int64_t t_present = pf->t_end;
	if (presented && event->when)
		t_present = sw_timespec_ns(*event->when);
	int64_t refresh_ns = event ? event->refresh : 0;

	uint64_t ioctls = sw_syncobj_stats_count(&pf->syncobj);
	uint64_t ioctl_ns = sw_syncobj_stats_ns(&pf->syncobj);
	int64_t interval = -1;
	long missed = 0;
	if (presented) {
		if (o->presented > 0) {
			interval = t_present - o->last_present_ns;
			stats_sample_add(&o->interval_ms, (double)interval / 1e6);
			if (refresh_ns > 0) {
				missed = lround((double)interval / (double)refresh_ns) - 1;
				if (missed < 0)
					missed = 0;
				o->missed += missed;
			}
		} else {
			o->first_present_ns = t_present;
		}
		o->presented++;
		o->last_present_ns = t_present;
		o->win_frames++;
	} else {
		o->not_presented++;
	}
	o->win_cpu_ns += pf->cpu_user_ns + pf->cpu_sys_ns;
	o->win_ioctls += ioctls;
	o->win_ioctl_ns += ioctl_ns;
	stats_sample_add(&o->render_ms, (double)(pf->t_rendered - pf->t_start) / 1e6);
	stats_sample_add(&o->commit_ms, (double)(pf->t_end - pf->t_rendered) / 1e6);
	stats_sample_add(&o->cpu_user_us, (double)pf->cpu_user_ns / 1e3);
	stats_sample_add(&o->cpu_sys_us, (double)pf->cpu_sys_ns / 1e3);
	stats_sample_add(&o->ioctls, (double)ioctls);
	stats_sample_add(&o->ioctl_us, (double)ioctl_ns / 1e3);
	sw_syncobj_stats_add(&o->syncobj_total, &pf->syncobj);

	int n_commits = wl_list_length(&pf->commits);
	FILE *f = stats->json;
	if (f) {
		fprintf(f, "{\"type\":\"frame\",\"t_ns\":%lld,\"output\":", (long long)t_present);
		sw_json_string(f, o->name);
		fprintf(f, ",\"frame\":%llu,\"commit_seq\":%u,\"presented\":%s",
			(unsigned long long)pf->frame, pf->commit_seq, presented ? "true" : "false");
		if (interval >= 0)
			fprintf(f, ",\"interval_ns\":%lld,\"missed\":%ld", (long long)interval, missed);
		if (refresh_ns > 0)
			fprintf(f, ",\"refresh_ns\":%lld", (long long)refresh_ns);
		fprintf(f, ",\"render_ns\":%lld,\"commit_ns\":%lld,\"cpu_user_ns\":%lld,"
			"\"cpu_sys_ns\":%lld,\"ctxsw\":%ld,\"syncobj_ioctls\":%llu,\"syncobj_ns\":%llu,"
			"\"syncobj\":",
			(long long)(pf->t_rendered - pf->t_start), (long long)(pf->t_end - pf->t_rendered),
			(long long)pf->cpu_user_ns, (long long)pf->cpu_sys_ns, pf->ctxsw,
			(unsigned long long)ioctls, (unsigned long long)ioctl_ns);
		sw_syncobj_stats_write_json(f, &pf->syncobj, false);
		fprintf(f, ",\"commits\":%d}\n", n_commits);
	}

	struct sw_commit_record *rec, *tmp;
	wl_list_for_each_safe(rec, tmp, &pf->commits, link)
		commit_finish(stats, rec, presented ? "presented" : "not_presented", o, pf->frame, t_present);
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

struct sw_output_stats *sw_frame_stats_add_output(struct sw_frame_stats *stats, struct wlr_output *output)
{
	struct sw_output_stats *o = calloc(1, sizeof(*o));
	if (!o) {
		wlr_log(WLR_ERROR, "out of memory");
		abort();
	}
	o->stats = stats;
	snprintf(o->name, sizeof(o->name), "%s", output->name);
	wl_list_init(&o->pending);
	o->win_start_ns = sw_clock_ns(CLOCK_MONOTONIC);
	wl_list_insert(stats->outputs.prev, &o->link);
	return o;
}

static void output_stats_print(struct sw_output_stats *o)
{
	double secs = o->last_present_ns > o->first_present_ns ?
		(double)(o->last_present_ns - o->first_present_ns) / 1e9 : 0;
	fprintf(stderr, "syncway: %s: %llu frames presented, %llu not presented, %llu missed vblanks, "
		"%.3f FPS ((N-1)/(t_N-t_1) over %.1f s)\n",
		o->name, (unsigned long long)o->presented, (unsigned long long)o->not_presented,
		(unsigned long long)o->missed,
		secs > 0 ? (double)(o->presented - 1) / secs : 0.0, secs);
	fprintf(stderr, "syncway: %s  %-26s %7s %11s %11s %11s %11s\n", o->name, "per frame", "n", "mean",
		"median", "p99", "max");
	print_summary_row(o->name, "interval (ms)", &o->interval_ms);
	print_summary_row(o->name, "render (ms)", &o->render_ms);
	print_summary_row(o->name, "output commit (ms)", &o->commit_ms);
	print_summary_row(o->name, "cpu user (us)", &o->cpu_user_us);
	print_summary_row(o->name, "cpu sys (us)", &o->cpu_sys_us);
	print_summary_row(o->name, "syncobj ioctls", &o->ioctls);
	print_summary_row(o->name, "syncobj ioctl time (us)", &o->ioctl_us);
}

static void output_stats_json(struct sw_output_stats *o, FILE *f)
{
	double secs = o->last_present_ns > o->first_present_ns ?
		(double)(o->last_present_ns - o->first_present_ns) / 1e9 : 0;
	fputs("{\"type\":\"output_summary\",\"output\":", f);
	sw_json_string(f, o->name);
	fprintf(f, ",\"presented\":%llu,\"not_presented\":%llu,\"missed\":%llu,\"fps\":%.6f",
		(unsigned long long)o->presented, (unsigned long long)o->not_presented,
		(unsigned long long)o->missed, secs > 0 ? (double)(o->presented - 1) / secs : 0.0);
	json_summary(f, "interval_ms", &o->interval_ms, true);
	json_summary(f, "render_ms", &o->render_ms, true);
	json_summary(f, "commit_ms", &o->commit_ms, true);
	json_summary(f, "cpu_user_us", &o->cpu_user_us, true);
	json_summary(f, "cpu_sys_us", &o->cpu_sys_us, true);
	json_summary(f, "syncobj_ioctls", &o->ioctls, true);
	json_summary(f, "syncobj_us", &o->ioctl_us, true);
	fputs(",\"syncobj\":", f);
	sw_syncobj_stats_write_json(f, &o->syncobj_total, false);
	fputs("}\n", f);
}

static void output_stats_free(struct sw_output_stats *o)
{
	struct sw_pending_frame *pf, *tmp;
	wl_list_for_each_safe(pf, tmp, &o->pending, link)
		frame_finish(o, pf, NULL);
	stats_sample_free(&o->interval_ms);
	stats_sample_free(&o->render_ms);
	stats_sample_free(&o->commit_ms);
	stats_sample_free(&o->cpu_user_us);
	stats_sample_free(&o->cpu_sys_us);
	stats_sample_free(&o->ioctls);
	stats_sample_free(&o->ioctl_us);
	wl_list_remove(&o->link);
	free(o);
}

void sw_frame_stats_remove_output(struct sw_output_stats *o)
{
	struct sw_frame_stats *stats = o->stats;
	output_stats_print(o);
	if (stats->json)
		output_stats_json(o, stats->json);
	output_stats_free(o);
}

static int handle_report(void *data)
{
	struct sw_frame_stats *stats = data;
	int64_t now = sw_clock_ns(CLOCK_MONOTONIC);
	struct sw_output_stats *o;
	wl_list_for_each(o, &stats->outputs, link) {
		double secs = (double)(now - o->win_start_ns) / 1e9;
		double frames = (double)o->win_frames;
		double per = frames > 0 ? frames : 1;
		fprintf(stderr, "syncway: %s: %llu frames in %.1f seconds = %.3f FPS; "
			"cpu %.0f us/frame; syncobj %.2f ioctls/frame, %.1f us/frame; "
			"%llu commits shown, commit->present %.2f ms mean\n",
			o->name, (unsigned long long)o->win_frames, secs, secs > 0 ? frames / secs : 0.0,
			(double)o->win_cpu_ns / 1e3 / per, (double)o->win_ioctls / per,
			(double)o->win_ioctl_ns / 1e3 / per, (unsigned long long)stats->win_commits,
			stats->win_commits ? stats->win_present_ms_sum / (double)stats->win_commits : 0.0);
		o->win_frames = 0;
		o->win_cpu_ns = 0;
		o->win_ioctls = 0;
		o->win_ioctl_ns = 0;
		o->win_start_ns = now;
	}
	stats->win_commits = 0;
	stats->win_present_ms_sum = 0;
	if (stats->json)
		fflush(stats->json);
	wl_event_source_timer_update(stats->report_timer, stats->server->options->report_interval_ms);
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
	const char *path = server->options->stats_path;
	if (path) {
		stats->json = fopen(path, "we");
		if (!stats->json) {
			fprintf(stderr, "syncway: cannot write stats to %s: %s\n", path, strerror(errno));
			free(stats);
			return NULL;
		}
	}
	getrusage(RUSAGE_THREAD, &stats->last_rusage);
	stats->last_syncobj = server->syncobj_stats;

	stats->new_surface.notify = handle_new_surface;
	wl_signal_add(&server->compositor->events.new_surface, &stats->new_surface);
	if (server->options->report_interval_ms > 0) {
		stats->report_timer = wl_event_loop_add_timer(server->loop, handle_report, stats);
		wl_event_source_timer_update(stats->report_timer, server->options->report_interval_ms);
	}
	return stats;
}

void sw_frame_stats_mark_fds(struct sw_frame_stats *stats, bool clients_gone)
{
	if (clients_gone)
		stats->fds_after = count_fds();
	else
		stats->fds_before = count_fds();
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
	struct sw_server *server = stats->server;
	if (stats->report_timer)
		wl_event_source_remove(stats->report_timer);
	wl_list_remove(&stats->new_surface.link);

	struct sw_output_stats *o, *otmp;
	wl_list_for_each_safe(o, otmp, &stats->outputs, link)
		sw_frame_stats_remove_output(o);

	fprintf(stderr, "syncway: commits: %llu with a buffer (%llu explicit sync, %llu waited on the "
		"acquire point), %llu presented, %llu dropped (replaced before shown), %llu lost\n",
		(unsigned long long)stats->commits, (unsigned long long)stats->commits_explicit,
		(unsigned long long)stats->commits_waited, (unsigned long long)stats->commits_presented,
		(unsigned long long)stats->commits_dropped, (unsigned long long)stats->commits_lost);
	fprintf(stderr, "syncway: commits  %-26s %7s %11s %11s %11s %11s\n", "latency", "n", "mean",
		"median", "p99", "max");
	print_summary_row("commits", "commit->acquired (ms)", &stats->acquire_ms);
	print_summary_row("commits", "commit->applied (ms)", &stats->apply_ms);
	print_summary_row("commits", "commit->presented (ms)", &stats->present_ms);
	print_summary_row("commits", "acquired->presented (ms)", &stats->acquire_to_present_ms);
	fprintf(stderr, "syncway: syncobj ioctls by the compositor (%llu calls, %llu errors):\n",
		(unsigned long long)sw_syncobj_stats_count(&server->syncobj_stats),
		(unsigned long long)sw_syncobj_stats_errors(&server->syncobj_stats));
	sw_syncobj_stats_print(stderr, "syncway:   ", &server->syncobj_stats);
	const struct sw_fd_count *b = &stats->fds_before, *a = &stats->fds_after;
	if (b->total >= 0 && a->total >= 0) {
		bool leak = a->eventfd > b->eventfd || a->syncobj > b->syncobj || a->sync_file > b->sync_file;
		fprintf(stderr, "syncway: open fds: %d before clients, %d after they left (buffers %d -> %d, "
			"eventfd %d -> %d, syncobj %d -> %d, sync_file %d -> %d)%s\n", b->total, a->total,
			b->buffers, a->buffers, b->eventfd, a->eventfd, b->syncobj, a->syncobj, b->sync_file,
			a->sync_file, leak ? " LEAK?" : "");
	}
	FILE *f = stats->json;
	if (f) {
		fprintf(f, "{\"type\":\"summary\",\"duration_ns\":%lld,\"commits\":%llu,"
			"\"commits_explicit\":%llu,\"commits_waited\":%llu,\"commits_presented\":%llu,"
			"\"commits_dropped\":%llu,\"commits_lost\":%llu",
			(long long)(sw_clock_ns(CLOCK_MONOTONIC) - stats->start_ns), (unsigned long long)stats->commits,
			(unsigned long long)stats->commits_explicit, (unsigned long long)stats->commits_waited,
			(unsigned long long)stats->commits_presented, (unsigned long long)stats->commits_dropped,
			(unsigned long long)stats->commits_lost);
		json_summary(f, "acquire_ms", &stats->acquire_ms, true);
		json_summary(f, "apply_ms", &stats->apply_ms, true);
		json_summary(f, "present_ms", &stats->present_ms, true);
		json_summary(f, "acquire_to_present_ms", &stats->acquire_to_present_ms, true);
		fputs(",\"syncobj\":", f);
		sw_syncobj_stats_write_json(f, &server->syncobj_stats, false);
		fprintf(f, ",\"fds_before\":%d,\"fds_after\":%d,\"fds_leaked_sync\":%d",
			b->total, a->total, (a->eventfd - b->eventfd) + (a->syncobj - b->syncobj) +
			(a->sync_file - b->sync_file));
		if (stats->have_sync_counters) {
			fputs(",\"explicit_sync\":", f);
			sw_explicit_sync_counters_write_json(f, &stats->sync_counters);
		}
		fputs("}\n", f);
		fclose(f);
	}
	stats_sample_free(&stats->acquire_ms);
	stats_sample_free(&stats->apply_ms);
	stats_sample_free(&stats->present_ms);
	stats_sample_free(&stats->acquire_to_present_ms);
	free(stats);
}
