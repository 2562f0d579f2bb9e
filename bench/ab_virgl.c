/* The virgl frame benchmark's section of sw-ab-report: syncway on GLES2 with
 * syncway-gears --renderer gles2 in mailbox mode, in a guest with a 3D
 * virtio-gpu under the instruction clock (bench/guest-ab.sh virgl,
 * docs/bench.md). The unit is the boot: one value per boot and kernel, the
 * busy instructions of both processes per client frame over the window.
 * With an asynchronous device guest time is not work (the clock jumps while
 * the vCPU waits for the host's renderer), so frames per guest second are
 * never reported here.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ab-report.h"

/* The values of one boot that get a verdict, in the order of the table. */
enum { V_FRAME, V_PRESENTED, V_COMPOSITOR, V_CLIENT, NVALUES };
static const char *const value_names[NVALUES] = {
	"busy instr / client frame (both processes)",
	"busy instr / presented frame (both processes)",
	"compositor busy instr / client frame",
	"client busy instr / client frame",
};

/* Calls per frame below this are the client's start and end (its
 * timelines, the last release wait), not its frames: left out of the
 * tables. */
#define MIN_CALLS 0.0005

struct virgl_run {
	int round;
	double frames;		/* client frames: commits syncway counted in the window */
	double presented;	/* frames the output presented in the window */
	double waited;		/* commits whose acquire point was not signalled at commit */
	double idle;		/* idle share of the window */
	double value[NVALUES];
	double comp_calls[MAX_KINDS];	/* per client frame, in the window */
	double comp_pending;	/* compositor TIMELINE_WAITs per client frame that timed out */
	double client_calls[MAX_KINDS];	/* per committed frame, the client's whole run */
};

static struct {
	struct virgl_run run[MAX_RUNS];
	int runs;
} virgl[2];

/* The busy_ns of the process named comm in the window line's "procs". */
static double proc_busy(const struct jline *l, const char *comm)
{
	const char *p = jneed(l, "procs");
	char obj[512], got[64];
	while ((p = strchr(p, '{'))) {
		size_t n = strcspn(++p, "}");
		if (p[n] != '}' || n >= sizeof(obj))
			die("%s:%ld: malformed \"procs\"", l->path, l->no);
		memcpy(obj, p, n);
		obj[n] = 0;
		struct jline inner = { .path = l->path, .no = l->no, .text = obj };
		jstr(&inner, "comm", got, sizeof(got));
		if (!strcmp(got, comm))
			return jnum(&inner, "busy_ns");
		p += n;
	}
	die("%s:%ld: no process \"%s\" in \"procs\"", l->path, l->no, comm);
}

void virgl_read(const char *dir, const char *name, int kernel, int round)
{
	char path[4096], spath[4096], cpath[4096], type[32];
	size_t prefix = strlen(name) - strlen("window.jsonl");
	format_fit(path, sizeof(path), "%s/%s", dir, name);
	format_fit(spath, sizeof(spath), "%s/%.*ssyncway.jsonl", dir, (int)prefix, name);
	format_fit(cpath, sizeof(cpath), "%s/%.*sclient.jsonl", dir, (int)prefix, name);
	if (virgl[kernel].runs == MAX_RUNS)
		die("%s: more than %d virgl runs", path, MAX_RUNS);
	struct virgl_run *r = &virgl[kernel].run[virgl[kernel].runs];
	memset(r, 0, sizeof(*r));
	r->round = round;

	struct jreader jr;
	const struct jline *l = &jr.l;
	long long t0 = 0, t1 = 0;
	double busy_comp = NAN, busy_client = NAN;
	jreader_open(&jr, path, true);
	while (jreader_next(&jr)) {
		t0 = (long long)jnum(l, "window_start_ns");
		t1 = (long long)jnum(l, "window_end_ns");
		if (t1 <= t0)
			die("%s:%ld: an empty window", path, l->no);
		r->idle = jnum(l, "idle_ns") / (double)(t1 - t0);
		busy_comp = proc_busy(l, "syncway");
		busy_client = proc_busy(l, "syncway-gears");
	}
	jreader_close(&jr);
	if (isnan(busy_comp))
		die("%s: no window line", path);

	struct window_lines w;
	read_window_lines(spath, t0, t1, &w);
	r->frames = w.commits;
	r->waited = w.waited;
	r->presented = w.presented;
	if (r->frames < 1 || r->presented < 1)
		die("%s: no client frame or no presented frame in the window", spath);

	double client[MAX_KINDS] = { 0 }, committed = 0;
	jreader_open(&jr, cpath, true);
	while (jreader_next(&jr)) {
		jstr(l, "type", type, sizeof(type));
		if (strcmp(type, "summary"))
			continue;
		committed = jnum(l, "committed");
		add_kinds(l, "syncobj", client, false);
	}
	jreader_close(&jr);
	if (committed < 1)
		die("%s: no summary line with frames", cpath);

	for (int k = 0; k < MAX_KINDS; k++) {
		r->comp_calls[k] = w.calls[k] / r->frames;
		r->client_calls[k] = client[k] / committed;
	}
	r->comp_pending = w.wait_timeouts / r->frames;
	r->value[V_FRAME] = (busy_comp + busy_client) / r->frames;
	r->value[V_PRESENTED] = (busy_comp + busy_client) / r->presented;
	r->value[V_COMPOSITOR] = busy_comp / r->frames;
	r->value[V_CLIENT] = busy_client / r->frames;
	virgl[kernel].runs++;
}

void virgl_reset(void)
{
	memset(virgl, 0, sizeof(virgl));
}

static int values_of(int k, int which, double *out)
{
	for (int i = 0; i < virgl[k].runs; i++)
		out[i] = virgl[k].run[i].value[which];
	return virgl[k].runs;
}

/* Mean over the runs of both kernels of a per-frame call rate. */
static double mean_calls(int kind, bool client)
{
	double sum = 0;
	int n = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < virgl[k].runs; i++, n++)
			sum += client ? virgl[k].run[i].client_calls[kind] : virgl[k].run[i].comp_calls[kind];
	return n ? sum / n : 0;
}

static double mean_pending(void)
{
	double sum = 0;
	int n = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < virgl[k].runs; i++, n++)
			sum += virgl[k].run[i].comp_pending;
	return n ? sum / n : 0;
}

static void write_runs(FILE *md)
{
	fprintf(md, "| kernel | boot | client frames | presented | ready at commit | busy instr / client "
		    "frame | / presented frame | compositor / client frame | client / client frame | "
		    "idle | compositor syncobj calls / client frame | client syncobj calls / frame |\n"
		    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < virgl[k].runs; i++) {
			const struct virgl_run *v = &virgl[k].run[i];
			fprintf(md, "| %s | %d | %.0f | %.0f | %.1f %% | %.0f | %.0f | %.0f | %.0f | %.1f %% | ",
				kernels[k], v->round, v->frames, v->presented,
				100 * (v->frames - v->waited) / v->frames, v->value[V_FRAME],
				v->value[V_PRESENTED], v->value[V_COMPOSITOR], v->value[V_CLIENT], 100 * v->idle);
			write_calls(md, v->comp_calls, MIN_CALLS);
			fputs(" | ", md);
			write_calls(md, v->client_calls, MIN_CALLS);
			fputs(" |\n", md);
		}
	fputc('\n', md);
}

/* One row of the prediction: calls per frame × the microbenchmark's
 * patched − base cost of case/1; adds to *total, or marks *missing. */
static void predict_row(FILE *md, const char *who, const char *kind, const char *bench_case,
			double calls, double *total, int *missing)
{
	double cb = icount_cost(bench_case, 1, 0), cp = icount_cost(bench_case, 1, 1);
	if (isnan(cb) || isnan(cp)) {
		fprintf(md, "| %s | %s | %.3f | – | – | not benchmarked |\n", who, kind, calls);
		(*missing)++;
		return;
	}
	*total += calls * (cp - cb);
	fprintf(md, "| %s | %s (%s/1) | %.3f | %.0f | %.0f | %+.0f |\n", who, kind, bench_case, calls, cb,
		cp, calls * (cp - cb));
}

/* The change per client frame the per-ioctl costs predict for these calls:
 * the compositor's TIMELINE_WAITs at commit split into those that found the
 * point signalled (timeline_wait) and those that timed out on a pending one
 * (timeline_wait_pending). Kinds the microbenchmark has no case for count 0
 * and are listed; NaN when the report has no icount microbenchmark. */
static double write_prediction(FILE *md, int *missing)
{
	double total = 0;
	*missing = 0;
	if (isnan(icount_cost("floor", 0, 0))) {
		fprintf(md, "No icount microbenchmark in this run: no prediction.\n\n");
		return NAN;
	}
	fprintf(md, "| who | ioctl (microbenchmark case) | calls / client frame | base instr/call | "
		    "patched instr/call | Δ instr / client frame |\n|---|---|--:|--:|--:|--:|\n");
	for (int who = 0; who < 2; who++)
		for (int kk = 0; kk < nkinds; kk++) {
			double calls = mean_calls(kk, who == 0);
			if (calls <= MIN_CALLS)
				continue;
			const char *w = who ? "compositor" : "client";
			if (who && !strcmp(kind_names[kk], "timeline_wait")) {
				double pending = mean_pending();
				predict_row(md, w, "timeline_wait, signalled", "timeline_wait", calls - pending,
					    &total, missing);
				predict_row(md, w, "timeline_wait, pending", "timeline_wait_pending", pending,
					    &total, missing);
				continue;
			}
			predict_row(md, w, kind_names[kk], kind_names[kk], calls, &total, missing);
		}
	fprintf(md, "| | **total** | | | | **%+.0f** |\n\n", total);
	return total;
}

/* Real fences beside the GPU-offload model: calls per client frame by kind,
 * and which the model has more or fewer of. */
static void write_model_comparison(FILE *md)
{
	if (isnan(offload_model_calls(0, true))) {
		fprintf(md, "No GPU-offload runs in this report: no comparison with the model.\n\n");
		return;
	}
	fprintf(md, "| ioctl | client, model | client, real | compositor, model | compositor, real |\n"
		    "|---|--:|--:|--:|--:|\n");
	char over[1024] = "", under[1024] = "";
	size_t no = 0, nu = 0;
	for (int kk = 0; kk < nkinds; kk++) {
		double m[2] = { offload_model_calls(kk, true), offload_model_calls(kk, false) };
		double v[2] = { mean_calls(kk, true), mean_calls(kk, false) };
		if (m[0] <= MIN_CALLS && m[1] <= MIN_CALLS && v[0] <= MIN_CALLS && v[1] <= MIN_CALLS)
			continue;
		fprintf(md, "| %s | %.3f | %.3f | %.3f | %.3f |\n", kind_names[kk], m[0], v[0], m[1], v[1]);
		for (int who = 0; who < 2; who++) {
			double d = m[who] - v[who];
			/* A twentieth of a call per frame is noise of the mix, not a kind
			 * the model lacks or adds. */
			if (fabs(d) < 0.05)
				continue;
			char *buf = d > 0 ? over : under;
			size_t *n = d > 0 ? &no : &nu;
			int w = snprintf(buf + *n, sizeof(over) - *n, "%s%s's %s (%.2f vs %.2f)", *n ? ", " : "",
					 who ? "the compositor" : "the client", kind_names[kk], m[who], v[who]);
			if (w > 0 && (size_t)w < sizeof(over) - *n)
				*n += (size_t)w;
		}
	}
	fprintf(md, "\nCalls per client frame (model: mean over the GPU-offload explicit-sync runs; real: "
		    "mean over the virgl runs, the client's over its whole run). **The model makes more** "
		    "of %s; **fewer** of %s. What that means for the model: docs/bench.md, *The virgl "
		    "frame benchmark*.\n\n",
		no ? over : "none", nu ? under : "none");
}

void virgl_write(struct report *r)
{
	FILE *md = r->md;
	static const char title[] = "Frame benchmark: real GPU fences on virgl under the instruction clock";
	if (!virgl[0].runs && !virgl[1].runs) {
		fprintf(md, "## %s, Linux %s\n\nNot measured in this run (`tools/report --virgl-rounds 0`, "
			    "or the family not in `--virgl-families`: by default 6.12 only, docs/bench.md "
			    "says why).\n\n", title, r->fam);
		result_missing(RESULT_VIRGL, "not measured in this run (`--virgl-families`: 6.12 by default)");
		return;
	}
	if (!section_on_both(r, title, "virgl runs", virgl[0].runs, virgl[1].runs))
		return;
	fprintf(md, "syncway headless on GLES2 and `syncway-gears --renderer gles2 --buffer dmabuf --mode "
		    "mailbox`, in a guest with a 3D virtio-gpu (`tools/vm-run --gpu virgl --icount`: "
		    "virglrenderer on the host's llvmpipe, real GPU fences; the client's acquire points "
		    "are its render jobs' fences, syncway's releases follow its own), one run per boot. "
		    "The device is asynchronous: while the vCPU waits for the host's renderer, guest time "
		    "jumps, so frames per guest second measure nothing here and are not shown. The value "
		    "per boot is **busy instructions per client frame**: the CPU time of syncway and of the "
		    "client over the window (all threads, user + kernel; one ns is one instruction under "
		    "icount) divided by the client frames syncway received in it (docs/bench.md, *The virgl "
		    "frame benchmark*).\n\n");
	write_runs(md);

	/* The repeatability first: whether the instrument can resolve the
	 * effect at all with an asynchronous device. */
	struct stats_boot_verdict sv[NVALUES], tv[NVALUES];
	double maxspread[NVALUES];
	for (int j = 0; j < NVALUES; j++) {
		double b[MAX_RUNS], p[MAX_RUNS];
		int nb = values_of(0, j, b), np = values_of(1, j, p);
		int ret = stats_boot_compare(b, (size_t)nb, p, (size_t)np, STATS_BOOT_SPREAD, &sv[j]);
		if (ret < 0)
			die("virgl %s: per-boot comparison failed", value_names[j]);
		sv[j].cv = stats_pooled_log_sd(b, (size_t)nb, p, (size_t)np);
		/* Each value a family of its own, as the offload section's: the
		 * first is the metric, the others take it apart. */
		ret = stats_boot_compare(b, (size_t)nb, p, (size_t)np, STATS_BOOT_TEST, &tv[j]);
		if (ret < 0 || stats_boot_holm(&tv[j], 1) < 0)
			die("virgl %s: per-boot test failed", value_names[j]);
		maxspread[j] = fmax(sv[j].spread_ref, sv[j].spread);
	}

	char path[4096], args[9000];
	int fewest = MAX_RUNS;
	for (int k = 0; k < 2; k++) {
		double v[MAX_RUNS];
		int n = values_of(k, V_FRAME, v);
		format_fit(path, sizeof(path), "%s/virgl-busy-%s.txt", r->datadir, kernels[k]);
		write_values(path, v, (size_t)n);
		fewest = n < fewest ? n : fewest;
	}
	fprintf(md, "### Busy instructions per client frame, ministat form (x base, + patched; one value "
		    "per boot)\n\n");
	format_fit(args, sizeof(args), "-w 72 %s/virgl-busy-base.txt %s/virgl-busy-patched.txt", r->datadir,
		   r->datadir);
	ministat_block(r, args, (size_t)fewest);

	fprintf(md, "\n### Repeatability\n\n| value | base: median, spread | patched: median, spread | "
		    "per-boot cv |\n|---|--:|--:|--:|\n");
	for (int j = 0; j < NVALUES; j++)
		fprintf(md, "| %s | %.0f, %.0f (%.3f %%) | %.0f, %.0f (%.3f %%) | %.3f %% |\n", value_names[j],
			sv[j].median_ref, sv[j].spread_ref, 100 * sv[j].spread_ref / sv[j].median_ref,
			sv[j].median, sv[j].spread, 100 * sv[j].spread / sv[j].median, 100 * sv[j].cv);
	fprintf(md, "\nSpread = max − min of one kernel's per-boot values. Under the instruction clock "
		    "a CPU-only frame repeats to ~0.01 %% between boots; here the host renders "
		    "asynchronously, so how many acquire points are ready at commit (the rest are "
		    "waited on with an eventfd) and whether a release follows a render fence or is "
		    "signalled at once vary from boot to boot, and each path costs a different number "
		    "of instructions.\n\n");

	fprintf(md, "| value | boots base / patched | base median | patched median | Δ | verdict (spread "
		    "rule) | Welch on logs [95 %% CI], permutation p | verdict (test) |\n"
		    "|---|--:|--:|--:|--:|---|---|---|\n");
	for (int j = 0; j < NVALUES; j++) {
		char rel[64], p[32];
		fmt_rel_ci(rel, sizeof(rel), &tv[j]);
		fprintf(md, "| %s | %zu / %zu | %.0f | %.0f | %+.0f (%+.3f %%) | **%s** | %s, p = %s | %s |\n",
			value_names[j], sv[j].n_ref, sv[j].n, sv[j].median_ref, sv[j].median, sv[j].diff,
			100 * sv[j].rel, sv[j].verdict, rel,
			stats_format_p(p, sizeof(p), tv[j].p_adj, tv[j].exact), tv[j].verdict);
	}
	fputc('\n', md);

	fprintf(md, "### What the per-ioctl costs predict, and what this instrument resolves\n\n"
		    "The syncobj calls of one client frame (mean over the runs of both kernels) times the "
		    "microbenchmark's icount cost per call (median of the per-boot medians):\n\n");
	int missing;
	double predicted = write_prediction(md, &missing);
	double base = sv[V_FRAME].median_ref, effect = fabs(predicted) / base;
	double resolve = 3 * maxspread[V_FRAME];
	int needed = isnan(effect) || effect <= 0 || isnan(sv[V_FRAME].cv) ? -1 :
			stats_boots_needed(sv[V_FRAME].cv, effect, 0.05);
	if (missing)
		fprintf(md, "The ioctls without a microbenchmark case are not among those the series "
			    "changes and count 0.\n\n");
	char nbuf[32] = "–";
	if (needed > 0)
		snprintf(nbuf, sizeof(nbuf), "%d", needed);
	if (!isnan(predicted))
		fprintf(md, "**Resolution.** The per-ioctl costs predict %+.0f instructions per client "
			    "frame (%+.3f %% of base's %.0f). The spread rule calls a difference only "
			    "above 3 × the larger spread, here %.0f instructions (%.3f %%): %s. For a "
			    "Welch test at α = 0.05 with 80 %% power, the predicted effect at this per-boot "
			    "cv (%.3f %%) needs **%s** boots per kernel (this run: %zu and %zu).\n\n",
			predicted, 100 * predicted / base, base, resolve, 100 * resolve / base,
			resolve < fabs(predicted) ? "the predicted effect is above it" :
						    "**the predicted effect is below it: this run cannot "
						    "resolve it, whatever the verdict says**",
			100 * sv[V_FRAME].cv, nbuf, sv[V_FRAME].n_ref, sv[V_FRAME].n);
	char note[256] = "no icount microbenchmark: no prediction";
	if (!isnan(predicted) && !sv[V_FRAME].tested)
		snprintf(note, sizeof(note), "predicted %+.0f (%+.3f %%); too few boots to resolve "
			 "anything", predicted, 100 * predicted / base);
	else if (!isnan(predicted))
		snprintf(note, sizeof(note), "predicted %+.0f (%+.3f %%), %s the %.0f (%.3f %%) this run "
			 "resolves", predicted, 100 * predicted / base,
			 resolve < fabs(predicted) ? "above" : "**below**", resolve, 100 * resolve / base);
	result_frame(RESULT_VIRGL, &sv[V_FRAME], &tv[V_FRAME], 0, note);
	printf("virgl busy instr/client frame: base %.0f, patched %.0f: %s (test: %s); predicted %+.0f\n",
	       sv[V_FRAME].median_ref, sv[V_FRAME].median, sv[V_FRAME].verdict, tv[V_FRAME].verdict,
	       predicted);

	fprintf(md, "### Real fences beside the GPU-offload model\n\n");
	write_model_comparison(md);
}
