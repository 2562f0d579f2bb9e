/* The wall-clock frame benchmark: syncway headless with the frame client(s)
 * in mailbox mode, one run per boot; the verdict on the per-run output FPS.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab-report.h"

static void write_frame_runs(FILE *md)
{
	fprintf(md, "| kernel | run | output FPS (N−1)/(t_N−t_1) | client commits/s | compositor CPU "
		    "µs/frame | client CPU µs/frame | syncobj ioctls/frame | syncobj ns/frame |\n"
		    "|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < frames[k].runs; i++) {
			struct frame_run *fr = &frames[k].run[i];
			char ccpu[32] = "–";
			if (!isnan(fr->client_cpu_us))
				snprintf(ccpu, sizeof(ccpu), "%.0f", fr->client_cpu_us);
			fprintf(md, "| %s | %d | %.2f | %.1f | %.0f | %s | %.2f | %.0f |\n", kernels[k],
				i + 1, fr->fps, fr->commit_rate, fr->cpu_us, ccpu, fr->ioctls, fr->ioctl_ns);
		}
	fputc('\n', md);
}

/* The compositor's syncobj work per frame in instructions: its calls per
 * frame by kind (all frame runs of both kernels) times icount_cost() with one
 * handle, as in the offload consistency check, for each kernel. */
static void write_frame_instructions(FILE *md)
{
	double per_frame[6] = { 0 }, est[2] = { 0, 0 };
	int nr = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < frames[k].runs; i++, nr++)
			for (int kk = 0; kk < 6; kk++)
				per_frame[kk] += frames[k].run[i].kind_per_frame[kk];
	bool ok = nr > 0;
	fprintf(md, "Compositor syncobj work per frame, in instructions: calls per frame by kind "
		    "(mean over all frame runs) × the icount cost per call with 1 handle (the median "
		    "of its per-boot medians).\n\n"
		    "| ioctl | calls/frame | base instr/call | patched instr/call |\n|---|--:|--:|--:|\n");
	for (int kk = 0; ok && kk < 6; kk++) {
		per_frame[kk] /= nr;
		if (per_frame[kk] <= 0)
			continue;
		double cb = icount_cost(array_kinds[kk], 1, 0), cp = icount_cost(array_kinds[kk], 1, 1);
		if (isnan(cb) || isnan(cp)) {
			ok = false;
			break;
		}
		est[0] += per_frame[kk] * cb;
		est[1] += per_frame[kk] * cp;
		fprintf(md, "| %s | %.2f | %.0f | %.0f |\n", array_kinds[kk], per_frame[kk], cb, cp);
	}
	if (ok && est[0] > 0)
		fprintf(md, "\nEstimate: %.0f instructions per frame on base, %.0f on patched (%+.0f, "
			    "%+.1f %%). The client's own syncobj calls are not counted here.\n\n",
			est[0], est[1], est[1] - est[0], 100 * (est[1] - est[0]) / est[0]);
	else
		fprintf(md, "\n(no icount costs for the compositor's ioctls: no estimate)\n\n");
}

/* The verdict on per-run output FPS: each frame run is one wall boot. */
static void write_frame_verdict(struct report *r)
{
	FILE *md = r->md;
	double fps[2][MAX_RUNS];
	struct stats_boot_verdict v;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < frames[k].runs; i++)
			fps[k][i] = frames[k].run[i].fps;
	int ret = stats_boot_compare(fps[0], frames[0].runs, fps[1], frames[1].runs, STATS_BOOT_TEST,
				     &v);
	if (ret < 0)
		die("frame runs: per-boot comparison failed: %s", strerror(-ret));
	if (stats_boot_holm(&v, 1) < 0)
		die("out of memory");
	char rel[64], p[32], needed[64];
	fmt_rel_ci(rel, sizeof(rel), &v);
	fmt_boots_needed(needed, sizeof(needed), &v, NAN);
	fprintf(md, "**Per-boot test** on the per-run output FPS (%zu vs %zu runs, one per boot; "
		    "Welch's t on their logarithms and the exact permutation test, ≥ %d boots a "
		    "side): median %.2f on base, %.2f on patched; Δ %s, p = %s; boots for ±%.0f %%: "
		    "%s.\n\n- **verdict: %s**\n\n",
		v.n_ref, v.n, STATS_MIN_BOOTS, v.median_ref, v.median, rel,
		stats_format_p(p, sizeof(p), v.p, v.exact), 100 * DETECT_EFFECT, needed, v.verdict);
	printf("frame output FPS: base median %.2f, patched median %.2f (per run): %s\n", v.median_ref,
	       v.median, v.verdict);
}

bool section_on_both(const struct report *r, const char *title, const char *runs, int base,
		     int patched)
{
	FILE *md = r->md;
	fprintf(md, "## %s, Linux %s\n\n", title, r->fam);
	if (base && patched)
		return true;
	fprintf(md, "%s on one kernel only (%d base, %d patched): no comparison.\n\n", runs, base,
		patched);
	return false;
}

void write_frames(struct report *r)
{
	FILE *md = r->md;
	char path[4096], args[9000];
	if (!frames[0].runs && !frames[1].runs) {
		fprintf(md, "## Frame benchmark (wall clock), Linux %s\n\nNot measured in this run: "
			    "wall-clock rounds are opt-in (`tools/report --wall-rounds 7`; docs/bench.md "
			    "says why).\n\n", r->fam);
		return;
	}
	if (!section_on_both(r, "Frame benchmark (wall clock)", "Frame runs", frames[0].runs,
			     frames[1].runs))
		return;
	fprintf(md, "syncway headless (pixman, one output), the client(s) above in mailbox mode, all "
		    "on one vCPU; the first %lld s of each run are warm-up and dropped. **Output FPS** = "
		    "frames the output presented (per run, and per 5 s window); **client commits/s** "
		    "counts every commit of the client (mailbox: most are superseded), the rate a "
		    "client such as vkgears reports as its FPS.\n\n",
		FRAME_WARMUP_NS / 1000000000);
	write_frame_runs(md);
	write_frame_instructions(md);
	write_frame_verdict(r);
	for (int k = 0; k < 2; k++) {
		format_fit(path, sizeof(path), "%s/fps-%s.txt", r->datadir, kernels[k]);
		write_values(path, frames[k].windows.v, frames[k].windows.n);
		format_fit(path, sizeof(path), "%s/commits-%s.txt", r->datadir, kernels[k]);
		write_values(path, frames[k].commit_windows.v, frames[k].commit_windows.n);
		format_fit(path, sizeof(path), "%s/interval-%s.txt", r->datadir, kernels[k]);
		write_values(path, frames[k].intervals_ms.v, frames[k].intervals_ms.n);
	}
	fprintf(md, "### Output FPS per 5 s window, ministat form (x base, + patched)\n\n");
	format_fit(args, sizeof(args), "-w 72 %s/fps-base.txt %s/fps-patched.txt", r->datadir, r->datadir);
	ministat_block(r, args, frames[0].windows.n < frames[1].windows.n ? frames[0].windows.n :
									  frames[1].windows.n);
	if (frames[0].windows.n && frames[1].windows.n) {
		struct within_boot w;
		char boot[64], hl[64];
		within_boot(&frames[0].windows, &frames[1].windows, &r->rng, &w);
		fmt_shift(boot, sizeof(boot), &w.boot);
		fmt_shift(hl, sizeof(hl), &w.hl);
		fprintf(md, "\nWindows of one run are correlated, so the Student's t above is too "
			    "optimistic, and so are these descriptions of the precision within boots "
			    "(they decide nothing): median(patched) − median(base) of the windows %s FPS "
			    "(95 %% bootstrap); Hodges–Lehmann shift %s FPS.\n\n",
			boot, hl);
	}
	fprintf(md, "### Client commits per 5 s window, ministat form\n\n");
	format_fit(args, sizeof(args), "-w 72 %s/commits-base.txt %s/commits-patched.txt", r->datadir,
		 r->datadir);
	ministat_block(r, args, frames[0].commit_windows.n < frames[1].commit_windows.n ?
					frames[0].commit_windows.n : frames[1].commit_windows.n);
}
