/* The report's first screen: what the series does per frame on each kernel
 * family (the GPU-offload model with its control, the real frame on virgl),
 * the key cases per ioctl and the main plot, before the run and the parts
 * that say how each number came about. A reader who opens the report for
 * its result should not have to scroll past a thousand lines for it.
 *
 * The sections compute the verdicts (bench/ab_offload.c, bench/ab_virgl.c)
 * and leave a copy here, so that the first screen repeats them rather than
 * computing them a second way; the key cases are bench/ab_families.c's,
 * which keeps every family's icount cases anyway.
 */
#include <stdio.h>
#include <string.h>

#include "ab-report.h"

struct frame_result {
	bool have;		/* verdicts on both kernels */
	bool tested;		/* with the test beside the spread rule */
	struct stats_boot_verdict spread, test;
	int decimals;
	char note[512];		/* beside the verdict; why there is none when !have */
};

static struct result_family {
	char name[16];
	char datarel[4096];	/* its data files, relative to FILE.md's directory */
	char pfam[4096];	/* its images' prefix */
	bool offload_plot, micro_plot;
	struct frame_result frame[RESULT_FRAMES];
} fams[MAX_FAMILIES];
static int nfams;

static const char *const frame_names[RESULT_FRAMES] = {
	"GPU-offload model, explicit sync: client frames per guest second",
	"GPU-offload model, no sync (the control): client frames per guest second",
	"virgl, real GPU fences: busy instructions per client frame",
};

void result_enter(const struct report *r)
{
	if (nfams == MAX_FAMILIES)
		die("more than %d kernel families", MAX_FAMILIES);
	struct result_family *f = &fams[nfams++];
	memset(f, 0, sizeof(*f));
	format_fit(f->name, sizeof(f->name), "%s", r->fam);
	format_fit(f->datarel, sizeof(f->datarel), "%s", r->datarel);
	format_fit(f->pfam, sizeof(f->pfam), "%s", r->pfam);
	/* What a section that never reports says: it had runs on one kernel
	 * only (section_on_both() says so in the part). */
	for (int j = 0; j < RESULT_FRAMES; j++)
		snprintf(f->frame[j].note, sizeof(f->frame[j].note), "runs on one kernel only");
}

static struct frame_result *current(int which)
{
	if (!nfams || which < 0 || which >= RESULT_FRAMES)
		die("result: no family entered, or no frame benchmark %d", which);
	return &fams[nfams - 1].frame[which];
}

void result_frame(int which, const struct stats_boot_verdict *spread,
		  const struct stats_boot_verdict *test, int decimals, const char *note)
{
	struct frame_result *fr = current(which);
	fr->have = true;
	fr->spread = *spread;
	fr->tested = test != NULL;
	if (test)
		fr->test = *test;
	fr->decimals = decimals;
	snprintf(fr->note, sizeof(fr->note), "%s", note);
}

void result_missing(int which, const char *why)
{
	struct frame_result *fr = current(which);
	fr->have = false;
	snprintf(fr->note, sizeof(fr->note), "%s", why);
}

void result_plots(bool offload, bool micro)
{
	if (!nfams)
		die("result: no family entered");
	fams[nfams - 1].offload_plot = offload;
	fams[nfams - 1].micro_plot = micro;
}

static void write_frame_rows(FILE *md)
{
	fprintf(md, "### Per frame\n\n"
		    "| Linux | frame benchmark, one value per boot | boots base / patched | base | "
		    "patched | Δ | verdict (spread rule) | verdict (test) | beside it |\n"
		    "|---|---|--:|--:|--:|--:|---|---|---|\n");
	for (int i = 0; i < nfams; i++)
		for (int j = 0; j < RESULT_FRAMES; j++) {
			const struct frame_result *fr = &fams[i].frame[j];
			/* no control row under a GPU-offload benchmark that did not run */
			if (j == RESULT_CONTROL && !fr->have && !fams[i].frame[RESULT_OFFLOAD].have)
				continue;
			if (!fr->have) {
				fprintf(md, "| %s | %s | | | | | %s | | |\n", fams[i].name, frame_names[j],
					fr->note);
				continue;
			}
			const struct stats_boot_verdict *v = &fr->spread;
			fprintf(md, "| %s | %s | %zu / %zu | %.*f | %.*f | %+.3f %% | **%s** | %s | %s |\n",
				fams[i].name, frame_names[j], v->n_ref, v->n, fr->decimals, v->median_ref,
				fr->decimals, v->median, 100 * v->rel, v->verdict,
				fr->tested ? fr->test.verdict : "–", fr->note);
		}
	fprintf(md, "\nΔ: the patched median against the base median. The verdicts are the sections' "
		    "below: the instruction clock's spread rule (a difference when |Δ| > 3 × the larger "
		    "spread, max − min of one kernel's values) and beside it Welch's test with a "
		    "permutation p, which needs ≥ %d boots a side. Each family's sections have the "
		    "runs, the prediction and the power.\n\n", STATS_MIN_BOOTS);
}

/* The GPU-offload runs of every family that has them, side by side, each
 * in % of the base median of its sync mode (the families' offload.dat);
 * else the first family's per-ioctl plot. */
static void write_plot(struct report *r)
{
	int n = 0;
	for (int i = 0; i < nfams; i++)
		n += fams[i].offload_plot;
	if (!n) {
		for (int i = 0; i < nfams; i++)
			if (fams[i].micro_plot) {
				fprintf(r->md, "![per-ioctl instructions, Linux %s](%s-micro.png)\n\n",
					fams[i].name, fams[i].pfam);
				return;
			}
		return;
	}
	fprintf(r->md, "![GPU-offload client frames per guest second, every boot](%s-result.png)\n\n",
		r->pbase);
	fprintf(r->gp,
		"set terminal pngcairo size 1000,520 noenhanced\n"
		"set output '%s-result.png'\n"
		"set title 'GPU-offload client under icount: client frames per guest second, one point "
		"per boot'\n"
		"set ylabel '%% against the base median of its sync mode'\nset xrange [-0.5:%d.5]\n"
		"set xtics rotate by -30 font ',9' (", r->pbase, 4 * n - 1);
	static const char *const slots[4] = { "base, explicit", "patched, explicit", "base, no sync",
					      "patched, no sync" };
	for (int i = 0, at = 0; i < nfams; i++) {
		if (!fams[i].offload_plot)
			continue;
		for (int s = 0; s < 4; s++)
			fprintf(r->gp, "%s'%s %s' %d", at + s ? ", " : "", fams[i].name, slots[s], at + s);
		at += 4;
	}
	fprintf(r->gp, ")\nset grid ytics\nset key below\nplot ");
	for (int i = 0, at = 0; i < nfams; i++) {
		if (!fams[i].offload_plot)
			continue;
		fprintf(r->gp, "%s'%s/offload.dat' using ($1+%d):2 with points pt %d ps 1.2 title 'Linux %s'",
			at ? ", " : "", fams[i].datarel, at, 7 - at / 4 * 2, fams[i].name);
		at += 4;
	}
	fprintf(r->gp, "\nunset xrange\nset autoscale x\nset xtics norotate autofreq font ''\n"
		       "set key default\n");
}

void result_write(struct report *r)
{
	fprintf(r->md, "## Result\n\n");
	write_frame_rows(r->md);
	fprintf(r->md, "### Key cases per ioctl, instructions per call under icount\n\n");
	families_key_cases(r->md);
	write_plot(r);
}
