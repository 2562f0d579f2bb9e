/* The reports of the frame accounting: the report-window lines and the exit
 * tables on stderr, and the JSON lines of --stats ("frame", "commit",
 * "output_summary", "surface_summary", "summary"). Tests, bench/ab-report.c and the documents
 * read both, so the words, keys and strings here stay as they are; field
 * definitions: docs/compositor.md. */
#include "frame_report.h"

#include <time.h>

#include "clock.h"
#include "json.h"
#include "server.h"

static const char *const commit_fate_names[] = {
	[SW_COMMIT_PRESENTED] = "presented",
	[SW_COMMIT_NOT_PRESENTED] = "not_presented",
	[SW_COMMIT_DROPPED] = "dropped",
	[SW_COMMIT_LOST] = "lost",
};

/* --- series -------------------------------------------------------------- */

struct sample_summary {
	size_t n;
	double mean, median, p99, max;
};

/* Median: the upper median sorted[n/2], as ministat prints it. p99: nearest
 * rank, sorted[ceil(0.99 n) - 1]. An empty series is all zeros. Sorts the
 * series in place. */
static struct sample_summary sample_summarize(struct stats_sample *s)
{
	struct sample_summary sum = { .n = s->n };
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

static void print_table_header(const char *prefix, const char *title)
{
	fprintf(stderr, "syncway: %s  %-26s %7s %11s %11s %11s %11s\n", prefix, title, "n", "mean",
		"median", "p99", "max");
}

/* Empty series have no row. */
static void print_table_row(const char *prefix, const char *name, struct stats_sample *s)
{
	struct sample_summary sum = sample_summarize(s);
	if (sum.n == 0)
		return;
	fprintf(stderr, "syncway: %s  %-26s %7zu %11.3f %11.3f %11.3f %11.3f\n", prefix, name, sum.n,
		sum.mean, sum.median, sum.p99, sum.max);
}

/* ,"key":{...}: a member after at least one other. */
static void write_series_json(FILE *f, const char *key, struct stats_sample *s)
{
	struct sample_summary sum = sample_summarize(s);
	fprintf(f, ",\"%s\":{\"n\":%zu,\"mean\":%.6f,\"median\":%.6f,\"p99\":%.6f,\"max\":%.6f}",
		key, sum.n, sum.mean, sum.median, sum.p99, sum.max);
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

/* (N-1)/(t_N-t_1) over the presented frames; 0 before the second. */
static double output_fps(const struct sw_output_stats *o, double *secs)
{
	*secs = o->last_present_ns > o->first_present_ns ?
		(double)(o->last_present_ns - o->first_present_ns) / 1e9 : 0;
	return *secs > 0 ? (double)(o->presented - 1) / *secs : 0.0;
}

void frame_report_output(struct sw_output_stats *o)
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
static void write_histogram_json(FILE *f, const char *key, const struct stats_sample *s, double from,
				 double width, size_t n_buckets)
{
	struct stats_histogram h;
	if (stats_histogram(s->v, s->n, from, width, n_buckets, &h) != 0)
		return;
	fprintf(f, ",\"%s\":{\"from_ms\":%g,\"width_ms\":%g,\"counts\":[", key, from, width);
	for (size_t i = 0; i < n_buckets; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)h.counts[i]);
	fprintf(f, "],\"under\":%llu,\"over\":%llu}", (unsigned long long)h.under,
		(unsigned long long)h.over);
	stats_histogram_free(&h);
}

/* Commit-to-present latency in 1 ms buckets up to 100 ms; the error
 * against commit-timing targets in 0.5 ms buckets from -5 ms (early, which
 * must not happen) to 35 ms (two refreshes at 60 Hz and some). */
#define LATENCY_HIST 0.0, 1.0, 100
#define TARGET_ERROR_HIST -5.0, 0.5, 80

void frame_report_surfaces(struct sw_frame_stats *stats)
{
	bool header = false;
	struct sw_surface_totals *t;
	wl_list_for_each(t, &stats->surfaces, link) {
		if (t->latency_ms.n == 0)
			continue;
		/* Histograms first: the summaries sort the series. */
		if (stats->json) {
			fprintf(stats->json, "{\"type\":\"surface_summary\",\"surface\":%u,\"app_id\":", t->id);
			sw_json_string(stats->json, t->app_id);
			fprintf(stats->json, ",\"presented\":%zu,\"early\":%llu", t->latency_ms.n,
				(unsigned long long)t->early);
			write_histogram_json(stats->json, "latency_hist", &t->latency_ms, LATENCY_HIST);
			if (t->target_error_ms.n)
				write_histogram_json(stats->json, "target_error_hist", &t->target_error_ms,
						     TARGET_ERROR_HIST);
			write_series_json(stats->json, "latency_ms", &t->latency_ms);
			if (t->target_error_ms.n)
				write_series_json(stats->json, "target_error_ms", &t->target_error_ms);
			fputs("}\n", stats->json);
		}
		if (!header) {
			print_table_header("surfaces", "per surface");
			header = true;
		}
		char name[48];
		snprintf(name, sizeof(name), "%u commit->presented (ms)", t->id);
		print_table_row("surfaces", name, &t->latency_ms);
		if (t->target_error_ms.n) {
			snprintf(name, sizeof(name), "%u target error (ms)", t->id);
			print_table_row("surfaces", name, &t->target_error_ms);
			if (t->early)
				fprintf(stderr, "syncway: surfaces  %u: %llu commits presented before their "
					"target time\n", t->id, (unsigned long long)t->early);
		}
	}
}

static void print_fd_check(const struct sw_fd_count *b, const struct sw_fd_count *a)
{
	bool leak = a->eventfd > b->eventfd || a->syncobj > b->syncobj || a->sync_file > b->sync_file;
	fprintf(stderr, "syncway: open fds: %d before clients, %d after they left (buffers %d -> %d, "
		"eventfd %d -> %d, syncobj %d -> %d, sync_file %d -> %d)%s\n", b->total, a->total,
		b->buffers, a->buffers, b->eventfd, a->eventfd, b->syncobj, a->syncobj, b->sync_file,
		a->sync_file, leak ? " LEAK?" : "");
}

void frame_report_summary(struct sw_frame_stats *stats)
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
	if (b->total >= 0 && a->total >= 0)
		print_fd_check(b, a);

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
	fprintf(f, ",\"fds_before\":%d,\"fds_after\":%d,\"fds_leaked_sync\":%d",
		b->total, a->total, (a->eventfd - b->eventfd) + (a->syncobj - b->syncobj) +
		(a->sync_file - b->sync_file));
	if (stats->have_sync_counters) {
		fputs(",\"explicit_sync\":", f);
		sw_explicit_sync_counters_write_json(f, &stats->sync_counters);
	}
	fputs("}\n", f);
}
