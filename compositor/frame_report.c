/* The reports of the frame accounting: the report-window lines and the exit
 * tables on stderr, and the JSON lines of --stats ("frame", "commit",
 * "output_summary", "surface_summary", "client_summary", "summary"). Tests, bench/ab-report.c and the documents
 * read both, so the words, keys and strings here stay as they are; field
 * definitions: docs/compositor.md. */
#include "frame_report.h"

#include <time.h>

#include "clock.h"
#include "json.h"
#include "loop_stats.h"
#include "server.h"

static const char *const commit_fate_names[] = {
	[SW_COMMIT_PRESENTED] = "presented",
	[SW_COMMIT_NOT_PRESENTED] = "not_presented",
	[SW_COMMIT_DROPPED] = "dropped",
	[SW_COMMIT_LOST] = "lost",
};

/* --- series -------------------------------------------------------------- */

struct sample_summary sample_summarize(const struct stats_stream *s)
{
	struct sample_summary sum = { .n = s->n };
	if (s->n == 0)
		return sum;
	sum.mean = stats_stream_mean(s);
	sum.median = stats_stream_median(s);
	sum.p99 = stats_stream_percentile(s, 99);
	sum.max = s->max;
	return sum;
}

static void print_table_header(const char *prefix, const char *title)
{
	fprintf(stderr, "syncway: %s  %-26s %7s %11s %11s %11s %11s\n", prefix, title, "n", "mean",
		"median", "p99", "max");
}

/* Empty series have no row. */
static void print_summary_row(const char *prefix, const char *name, const struct sample_summary *sum)
{
	if (sum->n == 0)
		return;
	fprintf(stderr, "syncway: %s  %-26s %7llu %11.3f %11.3f %11.3f %11.3f\n", prefix, name,
		(unsigned long long)sum->n, sum->mean, sum->median, sum->p99, sum->max);
}

static void print_table_row(const char *prefix, const char *name, const struct stats_stream *s)
{
	struct sample_summary sum = sample_summarize(s);
	print_summary_row(prefix, name, &sum);
}

/* ,"key":{...}: a member after at least one other. */
static void write_series_json(FILE *f, const char *key, const struct stats_stream *s)
{
	struct sample_summary sum = sample_summarize(s);
	fprintf(f, ",\"%s\":{\"n\":%llu,\"mean\":%.6f,\"median\":%.6f,\"p99\":%.6f,\"max\":%.6f}",
		key, (unsigned long long)sum.n, sum.mean, sum.median, sum.p99, sum.max);
}

/* --- commits and frames -------------------------------------------------- */

void frame_report_commit(const struct sw_frame_stats *stats, const struct sw_commit_record *rec,
			 enum sw_commit_fate fate, const struct sw_output_stats *output,
			 uint64_t frame, int64_t t_present)
{
	FILE *f = stats->json;
	if (!f)
		return;
	fprintf(f, "{\"type\":\"commit\",\"t_ns\":%lld,\"surface\":%u,\"seq\":%u,\"explicit\":%s,"
		"\"waited\":%s,\"result\":\"%s\"",
		(long long)rec->t_commit, rec->surface_id, rec->seq,
		rec->explicit_sync ? "true" : "false", rec->waited ? "true" : "false",
		commit_fate_names[fate]);
	if (rec->explicit_sync && rec->t_acquired)
		fprintf(f, ",\"acquire_ns\":%lld", (long long)(rec->t_acquired - rec->t_commit));
	if (rec->t_applied)
		fprintf(f, ",\"apply_ns\":%lld", (long long)(rec->t_applied - rec->t_commit));
	if (output) {
		fputs(",\"output\":", f);
		sw_json_string(f, output->name);
		fprintf(f, ",\"frame\":%llu", (unsigned long long)frame);
	}
	if (fate == SW_COMMIT_PRESENTED) {
		fprintf(f, ",\"present_ns\":%lld", (long long)(t_present - rec->t_commit));
		if (rec->explicit_sync)
			fprintf(f, ",\"acquire_to_present_ns\":%lld",
				(long long)(t_present - rec->t_acquired));
	}
	fputs("}\n", f);
}

void frame_report_frame(const struct sw_output_stats *output, const struct sw_pending_frame *frame,
			const struct sw_frame_outcome *outcome)
{
	FILE *f = output->stats->json;
	if (!f)
		return;
	fprintf(f, "{\"type\":\"frame\",\"t_ns\":%lld,\"output\":", (long long)outcome->t_present);
	sw_json_string(f, output->name);
	fprintf(f, ",\"frame\":%llu,\"commit_seq\":%u,\"presented\":%s",
		(unsigned long long)frame->frame, frame->commit_seq,
		outcome->presented ? "true" : "false");
	if (outcome->interval_ns >= 0)
		fprintf(f, ",\"interval_ns\":%lld,\"missed\":%ld,\"idle_vblanks\":%ld,"
			"\"missed_waiting\":%ld", (long long)outcome->interval_ns, outcome->missed,
			outcome->idle, outcome->missed_waiting);
	if (outcome->refresh_ns > 0)
		fprintf(f, ",\"refresh_ns\":%lld", (long long)outcome->refresh_ns);
	/* How long before its presentation the frame began: the render
	 * budget it had (--max-render-time), late wake-ups taken off. */
	if (outcome->presented)
		fprintf(f, ",\"lead_ns\":%lld", (long long)(outcome->t_present - frame->t_start));
	fprintf(f, ",\"render_ns\":%lld,\"commit_ns\":%lld,\"cpu_user_ns\":%lld,"
		"\"cpu_sys_ns\":%lld,\"ctxsw\":%ld,\"syncobj_ioctls\":%llu,\"syncobj_ns\":%llu,"
		"\"syncobj\":",
		(long long)(frame->t_rendered - frame->t_start),
		(long long)(frame->t_end - frame->t_rendered), (long long)frame->cpu_user_ns,
		(long long)frame->cpu_sys_ns, frame->ctxsw,
		(unsigned long long)frame->ioctls, (unsigned long long)frame->ioctl_ns);
	sw_syncobj_stats_write_json(f, &frame->syncobj, false);
	fprintf(f, ",\"commits\":%d}\n", wl_list_length(&frame->commits));
}

/* --- stderr lines and summaries -------------------------------------------- */

void frame_report_window(const struct sw_output_stats *o, int64_t now)
{
	const struct sw_frame_stats *stats = o->stats;
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
}

void frame_report_process(const struct sw_process_sample *p)
{
	fprintf(stderr, "syncway: process: rss %ld KB; %d fds (%d sockets, %d eventfds); "
		"syncobj handles %lld", p->rss_kb, p->fds.total, p->fds.sockets, p->fds.eventfd,
		(long long)p->syncobj_handles);
	if (p->longest_turn_ms >= 0)
		fprintf(stderr, "; longest dispatch %.1f ms", p->longest_turn_ms);
	fprintf(stderr, "; heap %zu B in use, %zu B free\n", p->heap_in_use, p->heap_free);
}

/* (N-1)/(t_N-t_1) over the presented frames; 0 before the second. */
static double output_fps(const struct sw_output_stats *o, double *secs)
{
	*secs = o->last_present_ns > o->first_present_ns ?
		(double)(o->last_present_ns - o->first_present_ns) / 1e9 : 0;
	return *secs > 0 ? (double)(o->presented - 1) / *secs : 0.0;
}

void frame_report_output(const struct sw_output_stats *o)
{
	double secs, fps = output_fps(o, &secs);
	fprintf(stderr, "syncway: %s: %llu frames presented, %llu not presented, %llu missed vblanks "
		"(a ready commit waited), %llu idle, %.3f FPS ((N-1)/(t_N-t_1) over %.1f s)\n",
		o->name, (unsigned long long)o->presented, (unsigned long long)o->not_presented,
		(unsigned long long)o->missed, (unsigned long long)o->idle, fps, secs);
	if (o->clock)
		fprintf(stderr, "syncway: %s: of the missed vblanks, %llu slept through while syncway "
			"waited for a CPU (not busy since its previous vblank)\n",
			o->name, (unsigned long long)o->missed_waiting);
	print_table_header(o->name, "per frame");
	print_table_row(o->name, "interval (ms)", &o->interval_ms);
	print_table_row(o->name, "render (ms)", &o->render_ms);
	print_table_row(o->name, "output commit (ms)", &o->commit_ms);
	print_table_row(o->name, "cpu user (us)", &o->cpu_user_us);
	print_table_row(o->name, "cpu sys (us)", &o->cpu_sys_us);
	print_table_row(o->name, "syncobj ioctls", &o->ioctls);
	print_table_row(o->name, "syncobj ioctl time (us)", &o->ioctl_us);

	FILE *f = o->stats->json;
	if (!f)
		return;
	fputs("{\"type\":\"output_summary\",\"output\":", f);
	sw_json_string(f, o->name);
	fprintf(f, ",\"presented\":%llu,\"not_presented\":%llu,\"missed\":%llu,\"idle_vblanks\":%llu,"
		"\"missed_waiting\":%llu,\"fps\":%.6f", (unsigned long long)o->presented,
		(unsigned long long)o->not_presented, (unsigned long long)o->missed,
		(unsigned long long)o->idle, (unsigned long long)o->missed_waiting, fps);
	write_series_json(f, "interval_ms", &o->interval_ms);
	write_series_json(f, "render_ms", &o->render_ms);
	write_series_json(f, "commit_ms", &o->commit_ms);
	write_series_json(f, "cpu_user_us", &o->cpu_user_us);
	write_series_json(f, "cpu_sys_us", &o->cpu_sys_us);
	write_series_json(f, "syncobj_ioctls", &o->ioctls);
	write_series_json(f, "syncobj_us", &o->ioctl_us);
	fputs(",\"syncobj\":", f);
	sw_syncobj_stats_write_json(f, &o->syncobj_total, false);
	fputs("}\n", f);
}

/* ,"key":{"from_ms":..,"width_ms":..,"counts":[..],"under":..,"over":..} */
static void write_histogram_json(FILE *f, const char *key, const struct stats_histogram *h)
{
	fprintf(f, ",\"%s\":{\"from_ms\":%g,\"width_ms\":%g,\"counts\":[", key, h->from, h->width);
	for (size_t i = 0; i < h->n_buckets; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)h->counts[i]);
	fprintf(f, "],\"under\":%llu,\"over\":%llu}", (unsigned long long)h->under,
		(unsigned long long)h->over);
}

/* The members both summary lines share, after the first. */
static void write_totals_json(FILE *f, const char *app_id, const struct sw_commit_totals *t)
{
	fputs(",\"app_id\":", f);
	sw_json_string(f, app_id);
	fprintf(f, ",\"presented\":%llu,\"early\":%llu", (unsigned long long)t->presented,
		(unsigned long long)t->early);
	write_histogram_json(f, "latency_hist", &t->latency_hist);
	if (t->target_error_ms.n)
		write_histogram_json(f, "target_error_hist", &t->target_error_hist);
	write_series_json(f, "latency_ms", &t->latency_ms);
	if (t->target_error_ms.n)
		write_series_json(f, "target_error_ms", &t->target_error_ms);
}

void frame_report_surface(const struct sw_frame_stats *stats, const struct sw_surface_totals *surface)
{
	FILE *f = stats->json;
	if (!f || !surface->t.presented)
		return;
	fprintf(f, "{\"type\":\"surface_summary\",\"surface\":%u,\"client\":%u", surface->id,
		surface->client ? surface->client->id : 0);
	write_totals_json(f, surface->app_id, &surface->t);
	fputs("}\n", f);
}

void frame_report_client(const struct sw_frame_stats *stats, const struct sw_client_totals *client)
{
	FILE *f = stats->json;
	if (!f || !client->t.presented)
		return;
	fprintf(f, "{\"type\":\"client_summary\",\"client\":%u,\"pid\":%d,\"surfaces\":%llu",
		client->id, (int)client->pid, (unsigned long long)client->surfaces);
	write_totals_json(f, client->app_id, &client->t);
	fputs("}\n", f);
}

void frame_report_clients(const struct sw_frame_stats *stats)
{
	unsigned kept = stats->departed < SW_DEPARTED_CLIENTS ? stats->departed : SW_DEPARTED_CLIENTS;
	if (kept == 0)
		return;
	print_table_header("clients", "per client");
	for (unsigned i = stats->departed - kept; i != stats->departed; i++) {
		const struct sw_departed_client *c = &stats->departed_ring[i % SW_DEPARTED_CLIENTS];
		char name[64];
		snprintf(name, sizeof(name), "%u %.16s commit->presented (ms)", c->id,
			 c->app_id[0] ? c->app_id : "-");
		print_summary_row("clients", name, &c->latency_ms);
		if (c->target_error_ms.n) {
			snprintf(name, sizeof(name), "%u target error (ms)", c->id);
			print_summary_row("clients", name, &c->target_error_ms);
			if (c->early)
				fprintf(stderr, "syncway: clients  %u: %llu commits presented before their "
					"target time\n", c->id, (unsigned long long)c->early);
		}
	}
	if (stats->departed > SW_DEPARTED_CLIENTS)
		fprintf(stderr, "syncway: clients  (and %u more that left earlier: in the summary "
			"above, and in the --stats file)\n", stats->departed - SW_DEPARTED_CLIENTS);
}

static void print_fd_check(const struct sw_fd_count *b, const struct sw_fd_count *a)
{
	bool leak = a->eventfd > b->eventfd || a->syncobj > b->syncobj || a->sync_file > b->sync_file ||
		    a->sockets > b->sockets;
	fprintf(stderr, "syncway: open fds: %d before clients, %d after they left (buffers %d -> %d, "
		"eventfd %d -> %d, syncobj %d -> %d, sync_file %d -> %d, sockets %d -> %d)%s\n",
		b->total, a->total, b->buffers, a->buffers, b->eventfd, a->eventfd, b->syncobj,
		a->syncobj, b->sync_file, a->sync_file, b->sockets, a->sockets, leak ? " LEAK?" : "");
}

void frame_report_summary(const struct sw_frame_stats *stats)
{
	const struct sw_syncobj_stats *syncobj = &stats->server->syncobj_stats;
	const struct sw_fd_count *b = &stats->fds_before, *a = &stats->fds_after;

	fprintf(stderr, "syncway: commits: %llu with a buffer (%llu explicit sync, %llu waited on the "
		"acquire point), %llu presented, %llu dropped (replaced before shown), %llu lost\n",
		(unsigned long long)stats->commits, (unsigned long long)stats->commits_explicit,
		(unsigned long long)stats->commits_waited, (unsigned long long)stats->commits_presented,
		(unsigned long long)stats->commits_dropped, (unsigned long long)stats->commits_lost);
	print_table_header("commits", "latency");
	print_table_row("commits", "commit->acquired (ms)", &stats->acquire_ms);
	print_table_row("commits", "commit->applied (ms)", &stats->apply_ms);
	print_table_row("commits", "commit->presented (ms)", &stats->present_ms);
	print_table_row("commits", "acquired->presented (ms)", &stats->acquire_to_present_ms);
	print_table_row("commits", "presented-target (ms)", &stats->target_error_ms);
	fprintf(stderr, "syncway: syncobj ioctls by the compositor (%llu calls, %llu errors):\n",
		(unsigned long long)sw_syncobj_stats_count(syncobj),
		(unsigned long long)sw_syncobj_stats_errors(syncobj));
	sw_syncobj_stats_print(stderr, "syncway:   ", syncobj);
	if (b->total >= 0 && a->total >= 0) {
		print_fd_check(b, a);
		fprintf(stderr, "syncway: heap: %zu B in use before clients, %zu B after they left "
			"(%+lld B, of which the accounting's series %+lld B)\n", stats->heap_before,
			stats->heap_after, (long long)stats->heap_after - (long long)stats->heap_before,
			(long long)stats->series_after - (long long)stats->series_before);
	}

	FILE *f = stats->json;
	if (!f)
		return;
	fprintf(f, "{\"type\":\"summary\",\"duration_ns\":%lld,\"commits\":%llu,"
		"\"commits_explicit\":%llu,\"commits_waited\":%llu,\"commits_presented\":%llu,"
		"\"commits_dropped\":%llu,\"commits_lost\":%llu",
		(long long)(sw_clock_ns(CLOCK_MONOTONIC) - stats->start_ns),
		(unsigned long long)stats->commits, (unsigned long long)stats->commits_explicit,
		(unsigned long long)stats->commits_waited, (unsigned long long)stats->commits_presented,
		(unsigned long long)stats->commits_dropped, (unsigned long long)stats->commits_lost);
	write_series_json(f, "acquire_ms", &stats->acquire_ms);
	write_series_json(f, "apply_ms", &stats->apply_ms);
	write_series_json(f, "present_ms", &stats->present_ms);
	write_series_json(f, "acquire_to_present_ms", &stats->acquire_to_present_ms);
	write_series_json(f, "target_error_ms", &stats->target_error_ms);
	fputs(",\"syncobj\":", f);
	sw_syncobj_stats_write_json(f, syncobj, false);
	fprintf(f, ",\"fds_before\":%d,\"fds_after\":%d,\"fds_leaked_sync\":%d,"
		"\"fds_leaked_sockets\":%d,\"heap_before\":%zu,\"heap_after\":%zu", b->total, a->total,
		(a->eventfd - b->eventfd) + (a->syncobj - b->syncobj) + (a->sync_file - b->sync_file),
		a->sockets - b->sockets, stats->heap_before, stats->heap_after);
	if (stats->server->loop_stats)
		sw_loop_stats_write_json(stats->server->loop_stats, f);
	if (stats->have_sync_counters) {
		fputs(",\"explicit_sync\":", f);
		sw_explicit_sync_counters_write_json(f, &stats->sync_counters);
	}
	fputs("}\n", f);
}
