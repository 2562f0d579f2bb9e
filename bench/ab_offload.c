/* The GPU-offload frame benchmark: syncway-offload, a client that makes the
 * syncobj calls of a Vulkan application in mailbox mode, under the
 * instruction clock with and without explicit sync, and the consistency of
 * its change with the per-ioctl costs (docs/bench.md).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ab-report.h"

/* The largest share of a window the guest may idle: idle time is time the
 * instruction clock jumped over (I/O waits), not work. */
#define OFFLOAD_MAX_IDLE 0.001
/* The consistency check's tolerance between the measured and the predicted
 * difference per frame. */
#define CONSISTENCY_TOLERANCE 0.2
/* Boot values whose sd is more than this many times the sd their runs give
 * them (write_offload_spread()) get a warning. With 4 boots the ratio of the
 * two sds exceeds 1.6 by chance in 5 % of runs (χ² with 3 degrees of
 * freedom), so 2 flags what chance rarely makes. */
#define OFFLOAD_BOOT_RATIO 2.0

bool have_offload(int sync)
{
	return offload[0][sync].runs && offload[1][sync].runs;
}

/* One value per boot of a run field (by offset) for a kernel and sync mode. */
int offload_values(int k, int sync, size_t field, double *out)
{
	const struct offload_series *os = &offload[k][sync];
	for (int i = 0; i < os->runs; i++)
		out[i] = *(const double *)((const char *)&os->run[i] + field);
	return os->runs;
}

/* Mean over every run of both kernels of one sync mode of a per-kind call
 * rate (client or compositor). */
static double mean_calls(int sync, int kind, bool client)
{
	double sum = 0;
	int n = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < offload[k][sync].runs; i++, n++)
			sum += client ? offload[k][sync].run[i].client_calls[kind] :
					offload[k][sync].run[i].comp_calls[kind];
	return n ? sum / n : 0;
}

double offload_model_calls(int kind, bool client)
{
	return have_offload(SYNC_EXPLICIT) ? mean_calls(SYNC_EXPLICIT, kind, client) : NAN;
}

void write_calls(FILE *md, const double *calls, double min)
{
	int n = 0;
	for (int k = 0; k < nkinds; k++)
		if (calls[k] > min)
			fprintf(md, "%s%s %.3f", n++ ? ", " : "", kind_names[k], calls[k]);
	if (!n)
		fputs("none", md);
}

static void write_offload_runs(FILE *md)
{
	fprintf(md, "| kernel | sync | boot | runs | client frames/s | busy instr/frame | runs: min – max | idle | "
		    "output FPS | compositor commits/frame | client CPU user + sys ns/frame | client syncobj "
		    "calls/frame | compositor syncobj calls/frame |\n"
		    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
	for (int sync = 0; sync < 2; sync++)
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < offload[k][sync].runs; i++) {
				const struct offload_run *o = &offload[k][sync].run[i];
				double lo = o->run_busy[0], hi = o->run_busy[0];
				for (int j = 1; j < o->n_runs; j++) {
					lo = fmin(lo, o->run_busy[j]);
					hi = fmax(hi, o->run_busy[j]);
				}
				fprintf(md, "| %s | %s | %d | %d | %.2f | %.0f | %.0f – %.0f | %.3f %% | %.1f | %.3f | "
					    "%.0f + %.0f | ",
					kernels[k], syncs[sync], o->round, o->n_runs, o->fps, o->busy, lo, hi,
					100 * o->idle, o->output_fps, o->commits, o->cpu_user, o->cpu_sys);
				write_calls(md, o->client_calls, 0);
				fputs(" | ", md);
				write_calls(md, o->comp_calls, 0);
				fputs(" |\n", md);
			}
	fputc('\n', md);
}

/* The microbenchmark case that stands for a frame's call of a kind. Every
 * wait of a frame takes the full wait path, which timeline_wait_pending
 * measures (up to the sleep, or to the ETIME of a poll), not the shortcut
 * that syncobj-bench's wait and timeline_wait time:
 *  - a TIMELINE_WAIT (the client's on a release point, the compositor's poll
 *    of an acquire point) waits on a chain node that has signalled since the
 *    last wait but whose signalled bit nobody has set yet. The series'
 *    answer to waits on signalled fences (patch 14 on 7.3, 13 on 6.12)
 *    trusts only that bit, so such a wait goes the full way, and sets it.
 *    syncobj-bench waits on the same point call after call: from the second
 *    call on it finds the bit set and measures the shortcut. Inside the
 *    frame the compositor's polls, which never block, saved 614 (7.3) and
 *    680 (6.12) instructions a call on 2026-12-05: timeline_wait_pending's
 *    625 and 668, not timeline_wait's 980 and 1048.
 *  - the client's WAIT on its fence comes before the worker has signalled
 *    it in most frames (79-87 % of them on 2026-12-05, counted with a probe
 *    in the client) and blocks: the full path too. syncobj-bench has no
 *    binary case of it; the timeline one differs from it by the copy of one
 *    point. The few WAITs that find the stub fence flagged take the
 *    shortcut and save some 80 instructions more than this counts.
 * The other kinds do not wait: their own case. */
static const char *frame_case(const char *kind)
{
	if (!strcmp(kind, "wait") || !strcmp(kind, "timeline_wait"))
		return "timeline_wait_pending";
	return kind;
}

/* Σ over the syncobj kinds of one frame (client and compositor, explicit
 * runs) of calls × the microbenchmark's patched − base cost per call, each
 * kind through frame_case() (or through its own case when !as_frame, the
 * model of the reports up to 2026-12-05). Writes its table when md is not
 * NULL; returns NaN when a kind with calls has no microbenchmark case. */
static double offload_prediction(FILE *md, bool as_frame)
{
	double total = 0;
	if (md)
		fprintf(md, "| who | ioctl | handles | microbenchmark case | calls/frame | base instr/call | "
			    "patched instr/call | Δ instr/frame |\n|---|---|--:|---|--:|--:|--:|--:|\n");
	for (int who = 0; who < 2; who++)
		for (int kk = 0; kk < nkinds; kk++) {
			double calls = mean_calls(SYNC_EXPLICIT, kk, who == 0);
			if (calls <= 0)
				continue;
			unsigned h = who == 0 ? offload[0][SYNC_EXPLICIT].run[0].handles[kk] : 1;
			if (!h)
				h = 1;
			const char *c = as_frame ? frame_case(kind_names[kk]) : kind_names[kk];
			double cb = icount_cost(c, h, 0), cp = icount_cost(c, h, 1);
			if (isnan(cb) || isnan(cp)) {
				if (md)
					fprintf(md, "| %s | %s | %u | %s | %.3f | – | – | not benchmarked |\n",
						who ? "compositor" : "client", kind_names[kk], h, c, calls);
				total = NAN;
				continue;
			}
			total += calls * (cp - cb);
			if (md)
				fprintf(md, "| %s | %s | %u | %s/%u | %.3f | %.0f | %.0f | %+.0f |\n",
					who ? "compositor" : "client", kind_names[kk], h, c, h, calls, cb,
					cp, calls * (cp - cb));
		}
	if (md)
		fprintf(md, "| | **total** | | | | | | **%+.0f** |\n\n", total);
	return total;
}

/* What one run's files say beyond what ab_input.c keeps: inside the
 * client's window, the compositor's context switches (its frame lines'
 * ctxsw) per client frame, and the mean guest ns (instructions) per call of
 * the calls that never block: the client's RESET and its worker's
 * TIMELINE_SIGNAL (its summary), the compositor's TIMELINE_WAIT polls (its
 * frame lines). Each includes the two clock reads of common/syncobj.c's
 * accounting, the same on both kernels. */
enum { INFRAME_RESET, INFRAME_SIGNAL, INFRAME_POLL, INFRAME_N };
struct run_extra {
	double ctxsw;
	double ns[INFRAME_N];
};

static void read_run_extra(const struct report *r, int k, int sync, int round, struct run_extra *x)
{
	char path[4096];
	struct jreader jr;
	const struct jline *l = &jr.l;
	double frames = 0, switches = 0, poll_calls = 0, poll_ns = 0;
	double calls[INFRAME_N] = { 0 }, ns[INFRAME_N] = { 0 };
	long long t0[MAX_OFFLOAD_RUNS], t1[MAX_OFFLOAD_RUNS];
	int n = 0;
	*x = (struct run_extra){ .ns = { NAN, NAN, NAN } };
	/* the boot's runs, one summary line each (bench/ab_input.c checked them) */
	format_fit(path, sizeof(path), "%s/offload-icount-%s-r%d-%s-client.jsonl", r->famdir, kernels[k],
		   round, syncs[sync]);
	jreader_open(&jr, path, true);
	while (jreader_next(&jr) && n < MAX_OFFLOAD_RUNS) {
		frames += jnum(l, "frames");
		t0[n] = (long long)jnum(l, "window_start_ns");
		t1[n++] = (long long)jnum(l, "window_end_ns");
		if (sync == SYNC_EXPLICIT) {
			calls[INFRAME_RESET] += syncobj_number(l, "reset", 0, 0);
			ns[INFRAME_RESET] += syncobj_number(l, "reset", 1, 0);
			calls[INFRAME_SIGNAL] += syncobj_number(l, "timeline_signal", 0, 0);
			ns[INFRAME_SIGNAL] += syncobj_number(l, "timeline_signal", 1, 0);
		}
	}
	jreader_close(&jr);
	format_fit(path, sizeof(path), "%s/offload-icount-%s-r%d-%s-syncway.jsonl", r->famdir,
		   kernels[k], round, syncs[sync]);
	jreader_open(&jr, path, true);
	while (jreader_next(&jr)) {
		char type[16];
		jstr(l, "type", type, sizeof(type));
		if (strcmp(type, "frame"))
			continue;
		long long t = (long long)jnum(l, "t_ns");
		bool inside = false;
		for (int i = 0; i < n; i++)
			inside |= t >= t0[i] && t < t1[i];
		if (!inside)
			continue;
		switches += jnum(l, "ctxsw");
		poll_calls += syncobj_number(l, "timeline_wait", 0, 0);
		poll_ns += syncobj_number(l, "timeline_wait", 1, 0);
	}
	jreader_close(&jr);
	x->ctxsw = frames > 0 ? switches / frames : NAN;
	calls[INFRAME_POLL] = poll_calls;
	ns[INFRAME_POLL] = poll_ns;
	for (int j = 0; j < INFRAME_N; j++)
		if (calls[j] > 0)
			x->ns[j] = ns[j] / calls[j];
}

/* Per-boot values of one run_extra field (by offset) for a kernel and sync
 * mode; runs without it (NaN) are left out. */
static int extra_values(const struct run_extra x[2][2][MAX_RUNS], int k, int sync, size_t field,
			double *out)
{
	int n = 0;
	for (int i = 0; i < offload[k][sync].runs; i++) {
		double v = *(const double *)((const char *)&x[k][sync][i] + field);
		if (!isnan(v))
			out[n++] = v;
	}
	return n;
}

/* The calls that never block, in the frame and in the microbenchmark: does
 * a per-call saving of the microbenchmark hold inside a frame? And the
 * compositor's context switches: did the series change the frame's
 * schedule, whose cost no per-call figure contains? Returns whether it did
 * (the spread rule on the explicit runs, while the control stayed). */
static bool write_offload_inside(FILE *md, const struct report *r)
{
	static const struct {
		const char *who, *kind;
	} inframe[INFRAME_N] = { { "client", "reset" }, { "client (worker)", "timeline_signal" },
				 { "compositor (poll, timeout 0)", "timeline_wait" } };
	static struct run_extra x[2][2][MAX_RUNS];
	for (int k = 0; k < 2; k++)
		for (int sync = 0; sync < 2; sync++)
			for (int i = 0; i < offload[k][sync].runs; i++)
				read_run_extra(r, k, sync, offload[k][sync].run[i].round, &x[k][sync][i]);

	fprintf(md, "Inside the frame, the calls that never block (mean guest ns per call in the "
		    "window, median over boots; the two clock reads of the accounting included, "
		    "the same on both kernels) against the microbenchmark:\n\n"
		    "| who | ioctl | handles | in the frame: base | patched | Δ | microbenchmark: "
		    "Δ of the case above | Δ of its own case |\n|---|---|--:|--:|--:|--:|--:|--:|\n");
	for (int j = 0; j < INFRAME_N; j++) {
		double b[MAX_RUNS], p[MAX_RUNS];
		size_t off = offsetof(struct run_extra, ns) + (size_t)j * sizeof(double);
		int nb = extra_values(x, 0, SYNC_EXPLICIT, off, b);
		int np = extra_values(x, 1, SYNC_EXPLICIT, off, p);
		if (!nb || !np)
			continue;
		int kk = -1;
		for (int i = 0; i < nkinds; i++)
			if (!strcmp(kind_names[i], inframe[j].kind))
				kk = i;
		unsigned h = j == INFRAME_POLL || kk < 0 ? 1 : offload[0][SYNC_EXPLICIT].run[0].handles[kk];
		if (!h)
			h = 1;
		const char *c = frame_case(inframe[j].kind);
		double mb = median_of(b, nb), mp = median_of(p, np);
		double dc = icount_cost(c, h, 1) - icount_cost(c, h, 0);
		double dk = icount_cost(inframe[j].kind, h, 1) - icount_cost(inframe[j].kind, h, 0);
		fprintf(md, "| %s | %s | %u | %.0f | %.0f | %+.0f | %+.0f (%s/%u) | %+.0f |\n", inframe[j].who,
			inframe[j].kind, h, mb, mp, mp - mb, dc, c, h, dk);
	}

	struct stats_boot_verdict v[2];
	bool have[2] = { false, false };
	double med[2][2];
	for (int sync = 0; sync < 2; sync++) {
		double b[MAX_RUNS], p[MAX_RUNS];
		if (!have_offload(sync))
			continue;
		int nb = extra_values(x, 0, sync, offsetof(struct run_extra, ctxsw), b);
		int np = extra_values(x, 1, sync, offsetof(struct run_extra, ctxsw), p);
		if (!nb || !np || stats_boot_compare(b, (size_t)nb, p, (size_t)np, STATS_BOOT_SPREAD,
						     &v[sync]) < 0)
			continue;
		have[sync] = true;
		med[sync][0] = v[sync].median_ref;
		med[sync][1] = v[sync].median;
	}
	if (!have[SYNC_EXPLICIT])
		return false;
	bool changed = v[SYNC_EXPLICIT].proven && !(have[SYNC_NONE] && v[SYNC_NONE].proven);
	fprintf(md, "\nThe compositor's context switches per client frame (median over boots): "
		    "explicit sync %.3f on base, %.3f on patched (%s)",
		med[SYNC_EXPLICIT][0], med[SYNC_EXPLICIT][1], v[SYNC_EXPLICIT].verdict);
	if (have[SYNC_NONE])
		fprintf(md, "; no sync %.3f and %.3f (%s)", med[SYNC_NONE][0], med[SYNC_NONE][1],
			v[SYNC_NONE].verdict);
	fprintf(md, ". %s\n\n", changed ?
		"**The series changed the frame's schedule**: the client's two threads and the "
		"compositor share one vCPU, and which of them runs when a wait blocks depends on "
		"what each has run so far, so calls that cost less can make the threads take "
		"turns more often. Each switch costs the scheduler's and the wake-up's "
		"instructions, which no per-call figure contains: they are in the measured "
		"difference, not in the prediction." :
		"The compositor's switches stayed (the spread rule): no sign of a change of "
		"schedule that the per-call figures would miss.");
	return changed;
}

/* x printed with fmt, or "–" when it is not a number. */
static void fmt_or_dash(char *buf, size_t len, const char *fmt, double x)
{
	if (isfinite(x))
		snprintf(buf, len, fmt, x);
	else
		snprintf(buf, len, "–");
}

/* The spread of the runs inside a boot against the spread of the boots: a
 * boot's value pools its runs, and the runs of one boot differ (each starts
 * new processes at a new address-space layout, and a window's own count
 * varies), so the verdict's interval is one on boot values only when the
 * boots differ by about what their runs make them differ by. For each kernel
 * and sync mode: the sd of one run around its boot's mean (pooled over the
 * boots), the sd a boot's value has from that alone (/ √runs), and the sd
 * of the boot values; the largest ratio of the last two is returned (NaN
 * when no kernel has two boots of two runs). */
static double write_offload_spread(FILE *md)
{
	double worst = NAN;
	fprintf(md, "Runs and boots (busy instructions per client frame): the sd of one run around its "
		    "boot's mean, pooled over the boots; the sd that gives a boot's value (the mean of its "
		    "runs); and the sd of the boot values. Boot values that spread much more than their "
		    "runs explain carry something of the boot (docs/bench.md, *Runs and boots*).\n\n"
		    "| kernel | sync | boots × runs | sd of a run | → sd of a boot's value | sd of the "
		    "boot values | ratio |\n|---|---|--:|--:|--:|--:|--:|\n");
	for (int sync = 0; sync < 2; sync++)
		for (int k = 0; k < 2; k++) {
			const struct offload_series *os = &offload[k][sync];
			double ss = 0, df = 0, runs = 0, boot[MAX_RUNS];
			for (int b = 0; b < os->runs; b++) {
				const struct offload_run *o = &os->run[b];
				double m = 0;
				for (int j = 0; j < o->n_runs; j++)
					m += o->run_busy[j] / o->n_runs;
				for (int j = 0; j < o->n_runs; j++)
					ss += (o->run_busy[j] - m) * (o->run_busy[j] - m);
				df += o->n_runs - 1;
				runs += o->n_runs;
				boot[b] = o->busy;
			}
			if (!os->runs)
				continue;
			double within = df > 0 ? sqrt(ss / df) : NAN;
			double per_boot = within / sqrt(runs / os->runs);
			double between = NAN;
			if (os->runs > 1) {
				double mean = 0, s2 = 0;
				for (int b = 0; b < os->runs; b++)
					mean += boot[b] / os->runs;
				for (int b = 0; b < os->runs; b++)
					s2 += (boot[b] - mean) * (boot[b] - mean);
				between = sqrt(s2 / (os->runs - 1));
			}
			double ratio = between / per_boot;
			char w[32], pb[32], bt[32], ra[32];
			fmt_or_dash(w, sizeof(w), "%.1f", within);
			fmt_or_dash(pb, sizeof(pb), "%.1f", per_boot);
			fmt_or_dash(bt, sizeof(bt), "%.1f", between);
			fmt_or_dash(ra, sizeof(ra), "%.2f", ratio);
			fprintf(md, "| %s | %s | %d × %.3g | %s | %s | %s | %s |\n", kernels[k], syncs[sync],
				os->runs, runs / os->runs, w, pb, bt, ra);
			if (!isnan(ratio) && (isnan(worst) || ratio > worst))
				worst = ratio;
		}
	fputc('\n', md);
	return worst;
}

/* The headline: client frames per guest second of the GPU-offload client,
 * base against patched, with the no-sync control, the consistency check
 * against the microbenchmark and the boots the design needs. */
void write_offload(struct report *r)
{
	FILE *md = r->md;
	char path[4096], args[9000];
	static const char title[] = "Frame benchmark: GPU-offload client under the instruction clock";
	if (!offload[0][SYNC_EXPLICIT].runs && !offload[1][SYNC_EXPLICIT].runs) {
		fprintf(md, "## %s, Linux %s\n\nNot measured in this run (`tools/report --offload-secs 0` "
			    "or `--no-frame`, or the family not in `--offload-families`: `--quick` runs it on "
			    "6.12 only).\n\n", title, r->fam);
		result_missing(RESULT_OFFLOAD, "not measured in this run (`--offload-families`)");
		return;
	}
	if (!section_on_both(r, title, "GPU-offload runs", offload[0][SYNC_EXPLICIT].runs,
			     offload[1][SYNC_EXPLICIT].runs))
		return;
	fprintf(md, "syncway headless (pixman, one 64x64 output at 60 Hz) and `syncway-offload`, a "
		    "client that renders nothing and per frame makes the syncobj calls of a Vulkan "
		    "application and Mesa's WSI in mailbox mode (docs/bench.md, *The GPU-offload "
		    "frame benchmark*), all on the guest's one vCPU under `-icount shift=0`. Each boot "
		    "makes a few runs of each sync mode, every run with new processes, and its value pools "
		    "them (frames over window time). Guest time counts instructions, so **client frames per "
		    "guest second** "
		    "(the vkgears analogue: the client's own presents) is the inverse of the "
		    "instructions one frame costs, client, compositor and kernel together. *sync none*: "
		    "the same loop without any syncobj (`SYNCWAY_EXPLICIT_SYNC=0`, `--sync none`), the "
		    "control.\n\n");
	write_offload_runs(md);
	double spread_ratio = write_offload_spread(md);
	size_t fewest = MAX_RUNS;
	for (int k = 0; k < 2; k++)
		for (int sync = 0; sync < 2; sync++) {
			double v[MAX_RUNS];
			int n = offload_values(k, sync, offsetof(struct offload_run, fps), v);
			format_fit(path, sizeof(path), "%s/offload-fps-%s-%s.txt", r->datadir, syncs[sync],
				 kernels[k]);
			write_values(path, v, (size_t)n);
			if (sync == SYNC_EXPLICIT && (size_t)n < fewest)
				fewest = (size_t)n;
		}
	fprintf(md, "### Client frames per guest second, explicit sync, ministat form (x base, + patched; "
		    "one value per boot)\n\n");
	format_fit(args, sizeof(args), "-w 72 %s/offload-fps-explicit-base.txt %s/offload-fps-explicit-patched.txt",
		 r->datadir, r->datadir);
	ministat_block(r, args, fewest);

	/* Verdicts: the instruction clock's spread rule on the per-boot values,
	 * and beside it the test the wall-clock numbers get, which needs more
	 * boots but no assumption that the clock repeats. */
	struct stats_boot_verdict v[2], t[2];
	double busy_med[2][2];
	for (int sync = 0; sync < 2; sync++) {
		double b[MAX_RUNS], p[MAX_RUNS];
		if (!have_offload(sync))
			continue;
		int nb = offload_values(0, sync, offsetof(struct offload_run, fps), b);
		int np = offload_values(1, sync, offsetof(struct offload_run, fps), p);
		int ret = stats_boot_compare(b, (size_t)nb, p, (size_t)np, STATS_BOOT_SPREAD, &v[sync]);
		if (ret < 0)
			die("offload %s: per-boot comparison failed: %s", syncs[sync], strerror(-ret));
		v[sync].cv = stats_pooled_log_sd(b, (size_t)nb, p, (size_t)np);
		ret = stats_boot_compare(b, (size_t)nb, p, (size_t)np, STATS_BOOT_TEST, &t[sync]);
		if (ret < 0 || (ret = stats_boot_holm(&t[sync], 1)) < 0)
			die("offload %s: per-boot test failed: %s", syncs[sync], strerror(-ret));
		for (int k = 0; k < 2; k++) {
			double x[MAX_RUNS];
			int n = offload_values(k, sync, offsetof(struct offload_run, busy), x);
			busy_med[sync][k] = median_of(x, n);
		}
	}
	double measured = busy_med[SYNC_EXPLICIT][1] - busy_med[SYNC_EXPLICIT][0];
	double control = have_offload(SYNC_NONE) ? busy_med[SYNC_NONE][1] - busy_med[SYNC_NONE][0] : NAN;
	double did = measured - control;

	fprintf(md, "\n| | boots base / patched | base median | patched median | Δ | spread base / patched "
		    "| verdict (spread rule) | Welch on logs [95 %% CI], permutation p | verdict (test) |\n"
		    "|---|--:|--:|--:|--:|--:|---|---|---|\n");
	for (int sync = 0; sync < 2; sync++) {
		char rel[64], p[32];
		if (!have_offload(sync))
			continue;
		fmt_rel_ci(rel, sizeof(rel), &t[sync]);
		fprintf(md, "| client frames/s, %s | %zu / %zu | %.2f | %.2f | %+.2f (%+.3f %%) | %.3g / %.3g | "
			    "**%s** | %s, p = %s | %s |\n",
			sync == SYNC_EXPLICIT ? "explicit sync" : "no sync (control)", v[sync].n_ref,
			v[sync].n, v[sync].median_ref, v[sync].median, v[sync].diff, 100 * v[sync].rel,
			v[sync].spread_ref, v[sync].spread, v[sync].verdict, rel,
			stats_format_p(p, sizeof(p), t[sync].p, t[sync].exact), t[sync].verdict);
	}
	fprintf(md, "\nThe spread rule, as for the per-ioctl costs under icount, calls a difference when "
		    "|Δ| > 3 × the larger spread (max − min of one kernel's per-boot values). The test, "
		    "as for wall-clock numbers, needs a Welch interval that excludes 0 and a permutation "
		    "p < 0.05, with ≥ %d boots a side.\n\n", STATS_MIN_BOOTS);
	if (isnan(spread_ratio))
		fprintf(md, "Too few runs or boots to compare the boots' spread with their runs' (two "
			    "boots of two runs a kernel at least): the interval rests on the boots alone.\n\n");
	else if (spread_ratio > OFFLOAD_BOOT_RATIO)
		fprintf(md, "**The boot values spread up to %.1f× what their runs explain**: something of "
			    "the boot, not only of the run, moves the value, so with this few boots the "
			    "interval may be too narrow; more boots (`--rounds-icount`) narrow it honestly.\n\n",
			spread_ratio);
	else
		fprintf(md, "The boot values spread no more than their runs explain (largest ratio %.2f, "
			    "flagged above %.0f): the interval on the boot values covers the spread between "
			    "runs.\n\n",
			spread_ratio, OFFLOAD_BOOT_RATIO);
	fprintf(md, "Busy instructions per client frame (median over boots): explicit sync %.0f on base, "
		    "%.0f on patched (%+.0f); no sync %.0f and %.0f (%+.0f). **Difference in differences, "
		    "the syncobj share of the change: %+.0f instructions per frame** (%+.2f %% of a base "
		    "frame).\n\n",
		busy_med[SYNC_EXPLICIT][0], busy_med[SYNC_EXPLICIT][1], measured,
		have_offload(SYNC_NONE) ? busy_med[SYNC_NONE][0] : NAN,
		have_offload(SYNC_NONE) ? busy_med[SYNC_NONE][1] : NAN, control, did,
		100 * did / busy_med[SYNC_EXPLICIT][0]);

	fprintf(md, "### Consistency with the microbenchmark\n\n"
		    "The syncobj calls of one frame (mean over the explicit-sync runs of both kernels) "
		    "times the icount cost per call of the microbenchmark case that does what the "
		    "call does in the frame (median of the per-boot medians above). Every wait of "
		    "the frame takes the full wait path, which `timeline_wait_pending` measures: "
		    "the timeline points are new each frame, so the series' answer to signalled "
		    "fences, which trusts only a fence's signalled bit, never finds it set, and "
		    "the client's fence WAIT mostly blocks (docs/bench.md, *Consistency*):\n\n");
	double predicted = offload_prediction(md, true);
	double signalled = offload_prediction(NULL, false);
	bool resched = write_offload_inside(md, r);
	double ratio = did / predicted;
	if (isnan(ratio))
		fprintf(md, "No ratio: a kind is not benchmarked or the control is missing.\n\n");
	else if (fabs(ratio - 1) <= CONSISTENCY_TOLERANCE)
		fprintf(md, "Measured / predicted = %+.0f / %+.0f = **%.2f**: the frame benchmark's change "
			    "is what the per-ioctl costs add up to (within %.0f %%).",
			did, predicted, ratio, 100 * CONSISTENCY_TOLERANCE);
	else
		fprintf(md, "Measured / predicted = %+.0f / %+.0f = **%.2f: a mismatch over %.0f %%.**%s",
			did, predicted, ratio, 100 * CONSISTENCY_TOLERANCE,
			resched ? " The schedule changed (above): the difference is not the calls' alone." :
				  " The schedule stayed, so some call costs a frame what no microbenchmark "
				  "case measures (see docs/bench.md, *Consistency*).");
	if (!isnan(ratio) && !isnan(signalled))
		fprintf(md, " With the waits' own cases (fences found flagged as signalled, the model "
			    "of the reports up to 2026-12-05) the prediction would be %+.0f, a ratio of "
			    "%.2f.", signalled, did / signalled);
	fputs("\n\n", md);
	char note[256];
	if (isnan(did))
		snprintf(note, sizeof(note), "no control: no syncobj share");
	else if (isnan(ratio))
		snprintf(note, sizeof(note), "syncobj share %+.0f instr/frame; no prediction", did);
	else
		snprintf(note, sizeof(note), "syncobj share %+.0f instr/frame; measured / predicted %.2f",
			 did, ratio);
	result_frame(RESULT_OFFLOAD, &v[SYNC_EXPLICIT], &t[SYNC_EXPLICIT], 2, note);
	if (have_offload(SYNC_NONE))
		result_frame(RESULT_CONTROL, &v[SYNC_NONE], &t[SYNC_NONE], 2,
			     "no syncobj calls: must not move");
	else
		result_missing(RESULT_CONTROL, "not measured in this run");
	printf("offload frames/s: base %.2f, patched %.2f: %s; control: %s; measured/predicted %.2f\n",
	       v[SYNC_EXPLICIT].median_ref, v[SYNC_EXPLICIT].median, v[SYNC_EXPLICIT].verdict,
	       have_offload(SYNC_NONE) ? v[SYNC_NONE].verdict : "none", ratio);

	/* Power: boots needed for the predicted effect at the measured spread. */
	double effect = fabs(predicted) / busy_med[SYNC_EXPLICIT][0];
	int needed = isnan(effect) || isnan(v[SYNC_EXPLICIT].cv) ? -EDOM :
			stats_boots_needed(v[SYNC_EXPLICIT].cv, effect, 0.05);
	if (needed > 0)
		fprintf(md, "**Power.** The predicted effect is %.2f %% of a frame; the per-boot relative "
			    "sd of client frames/s is %.4f %%. Boots per kernel for a two-sided Welch test "
			    "at α = 0.05 with 80 %% power: **%d** (this run: %zu and %zu; under the spread "
			    "rule 2 a side decide when the spread stays below a third of the effect).\n\n",
			100 * effect, 100 * v[SYNC_EXPLICIT].cv, needed, v[SYNC_EXPLICIT].n_ref,
			v[SYNC_EXPLICIT].n);
	else
		fprintf(md, "**Power:** not computable (fewer than 2 boots a side, or no prediction).\n\n");

	bool idle = false;
	for (int k = 0; k < 2; k++)
		for (int sync = 0; sync < 2; sync++)
			for (int i = 0; i < offload[k][sync].runs; i++)
				idle |= offload[k][sync].run[i].idle > OFFLOAD_MAX_IDLE;
	if (idle)
		fprintf(md, "**Warning: a run idled more than %.1f %% of its window.** Under `-icount "
			    "sleep=off` idle time is guest time the clock jumped over (an I/O wait), so "
			    "frames per guest second of that run do not measure instructions.\n\n",
			100 * OFFLOAD_MAX_IDLE);

	fprintf(md, "### Beside the cover letter\n\n"
		    "| measurement | client | Δ FPS |\n|---|---|--:|\n"
		    "| this run (icount, GPU-offload model, TCG guest) | syncway-offload, mailbox | %+.2f %% (%s) |\n"
		    "| cover letter: Steam Deck | vkgears `-present-mailbox` | +1.63 %% ± 0.22 %% |\n"
		    "| cover letter: Alder Lake laptop | vkgears `-present-mailbox` | +5.11 %% ± 0.75 %% |\n"
		    "| reviewer: Raspberry Pi 5 | vkgears | +2.9 %% |\n\n",
		100 * v[SYNC_EXPLICIT].rel,
		v[SYNC_EXPLICIT].proven ? "a difference under the spread rule" : "no difference proven");
	fprintf(md, "The cover letter's vkgears samples (theirs, not measured here), recomputed from "
		    "N, average and standard deviation by `syncway-ministat --moments`. Steam Deck:\n\n");
	ministat_block(r, "--moments 135,22307.707,198.75011 --moments 118,22671.442,192.10609", 118);
	fprintf(md, "\nAlder Lake laptop:\n\n");
	ministat_block(r, "--moments 55,7754.5195,191.69526 --moments 55,8150.6303,105.84085", 55);
	fprintf(md, "\nTheir samples are 5 s windows of 5 runs per kernel on real GPUs at 7 700–22 700 "
		    "FPS; windows of one run are correlated, so their intervals are too narrow. Only "
		    "the direction and the relative size compare with this emulated guest.\n\n");
}
