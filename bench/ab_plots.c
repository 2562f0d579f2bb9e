/* What follows the sections: the plots of each family (their data files,
 * their part of the gnuplot script and the section that shows them), and
 * the appendix (every case's batches in ministat form), a file of its own.
 */
#include <errno.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ab-report.h"

void write_appendix_head(FILE *md, const char *date, const char *main_name)
{
	fprintf(md, "# A/B benchmark, appendix: ministat form per case\n\n"
		    "The per-case blocks of [%s](%s), the report of %s: every microbenchmark case's "
		    "batches in ministat form. They pool the batch samples of all boots, so they show the "
		    "precision within boots only; the verdicts, from one value per boot, are in the "
		    "report.\n\n", main_name, main_name, date);
	fprintf(md, "## Appendix: ministat form per case (x base, + patched; batch samples of all "
		    "boots, so within-boot precision only)\n\n"
		    "ministat's one-pass variance can cancel below 0 on equal values, and then "
		    "it prints `-nan` as the stddev; the report's own statistics use two "
		    "passes.\n\n");
}

void write_appendix_link(FILE *md, const char *appendix_name)
{
	fprintf(md, "## Appendix\n\nThe ministat form of every case (x base, + patched; the batch "
		    "samples of all boots, so within-boot precision only) is in [%s](%s), a block per "
		    "case, family and mode: most of the lines of the report and none of its "
		    "verdicts.\n", appendix_name, appendix_name);
}

void write_appendix(struct report *r)
{
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < ncases; i++) {
			struct micro_case *c = &cases[i];
			if (!has_mode(c, m))
				continue;
			char fb[4096], fp[4096], args[9000];
			format_fit(fb, sizeof(fb), "%s/%s-%s-%u-base.txt", r->datadir, modes[m], c->name,
				 c->handles);
			format_fit(fp, sizeof(fp), "%s/%s-%s-%u-patched.txt", r->datadir, modes[m], c->name,
				 c->handles);
			write_values(fb, c->s[m][0].pooled.v, c->s[m][0].pooled.n);
			write_values(fp, c->s[m][1].pooled.v, c->s[m][1].pooled.n);
			fprintf(r->md, "### Linux %s, %s, %s, %u handles\n\n", r->fam, modes[m], c->name,
				c->handles);
			format_fit(args, sizeof(args), "-w 72 %s %s", fb, fp);
			ministat_block(r, args, c->s[m][0].pooled.n < c->s[m][1].pooled.n ?
							c->s[m][0].pooled.n : c->s[m][1].pooled.n);
			fputc('\n', r->md);
		}
}

/* The GPU-offload runs, in % of the base median of their sync mode. */
static void plot_offload(struct report *r)
{
	char path[4096];
	format_fit(path, sizeof(path), "%s/offload.dat", r->datadir);
	FILE *od = fopen(path, "w");
	if (!od)
		die("%s: %s", path, strerror(errno));
	for (int sync = 0; sync < 2; sync++) {
		double ref[MAX_RUNS];
		int nref = offload_values(0, sync, offsetof(struct offload_run, fps), ref);
		if (!nref)
			continue;
		double base = median_of(ref, nref);
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < offload[k][sync].runs; i++)
				fprintf(od, "%d %.6f\n", 2 * sync + k,
					100 * (offload[k][sync].run[i].fps / base - 1));
	}
	fclose(od);
	fprintf(r->md, "![GPU-offload client frames per guest second, Linux %s](%s-offload.png)\n\n",
		r->fam, r->pfam);
	fprintf(r->gp,
		"set terminal pngcairo size 900,500 noenhanced\n"
		"set output '%s-offload.png'\n"
		"set title 'Linux %s, GPU-offload client under icount: client frames per guest second, one point per boot'\n"
		"set ylabel '%% against the median of base'\nset xrange [-0.5:3.5]\n"
		"set xtics ('base, explicit sync' 0, 'patched, explicit sync' 1, 'base, no sync' 2, "
		"'patched, no sync' 3)\nset grid ytics\nset key off\n"
		"plot '%s/offload.dat' using 1:2 with points pt 7 ps 1.2\n"
		"unset xrange\nset autoscale x\nset xtics autofreq\nset key default\n",
		r->pfam, r->fam, r->datarel);
}

/* The icount medians per case, base and patched. */
static void plot_micro(struct report *r)
{
	char path[4096];
	format_fit(path, sizeof(path), "%s/micro-icount.dat", r->datadir);
	FILE *bars = fopen(path, "w");
	if (!bars)
		die("%s: %s", path, strerror(errno));
	for (int i = 0; i < ncases; i++) {
		const struct series *s = cases[i].s[ICOUNT];
		if (has_mode(&cases[i], ICOUNT))
			fprintf(bars, "\"%s/%u\" %.1f %.1f\n", cases[i].name, cases[i].handles,
				stats_median(s[0].pooled.v, s[0].pooled.n),
				stats_median(s[1].pooled.v, s[1].pooled.n));
	}
	fclose(bars);
	fprintf(r->md, "![per-ioctl instructions, Linux %s](%s-micro.png)\n\n", r->fam, r->pfam);
	fprintf(r->gp,
		"set terminal pngcairo size 1400,600 noenhanced\n"
		"set output '%s-micro.png'\n"
		"set title 'Linux %s, syncobj ioctls under icount: instructions per call (median)'\n"
		"set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8\n"
		"set xtics rotate by -60 font ',8'\nset logscale y\nset ylabel 'instructions per call'\n"
		"set grid ytics\n"
		"plot '%s/micro-icount.dat' using 2:xtic(1) title 'base', '' using 3 title 'patched'\n"
		"unset logscale y\nunset style\nset xtics norotate font ''\n",
		r->pfam, r->fam, r->datarel);
}

/* The wall-clock frame runs: FPS windows and the frame-interval histogram
 * (their data files are bench/ab_frames.c's). */
static void plot_frames(struct report *r)
{
	const char *dd = r->datarel;
	fprintf(r->md, "![output FPS windows, Linux %s](%s-fps.png)\n\n"
		       "![frame intervals, Linux %s](%s-frametime.png)\n\n",
		r->fam, r->pfam, r->fam, r->pfam);
	fprintf(r->gp,
		"set terminal pngcairo size 900,500 noenhanced\n"
		"set output '%s-fps.png'\n"
		"set title 'Linux %s, output FPS per 5 s window'\nset ylabel 'FPS'\nset xrange [-0.5:1.5]\n"
		"set xtics ('base' 0, 'patched' 1)\nset style fill empty\nset grid ytics\n"
		"set style data points\n"
		"plot '%s/fps-base.txt' using (0+0.15*(rand(0)-0.5)):1 with points pt 7 ps 0.8 title 'base', "
		"'%s/fps-patched.txt' using (1+0.15*(rand(0)-0.5)):1 with points pt 7 ps 0.8 title 'patched'\n"
		"unset xrange\nset autoscale x\nset xtics autofreq\n",
		r->pfam, r->fam, dd, dd);
	fprintf(r->gp,
		"set output '%s-frametime.png'\n"
		"set title 'Linux %s, frame intervals (all frames after warm-up)'\nset xlabel 'interval (ms)'\n"
		"set ylabel 'fraction of frames'\nbw=0.5\nbin(x)=bw*floor(x/bw)+bw/2\nset xrange [0:60]\n"
		"set style fill transparent solid 0.4\n"
		"plot '%s/interval-base.txt' using (bin($1)):(1.0/%zu) smooth frequency with boxes title 'base', "
		"'%s/interval-patched.txt' using (bin($1)):(1.0/%zu) smooth frequency with boxes title 'patched'\n"
		"unset xrange\nset autoscale x\nunset xlabel\nset style fill empty\n",
		r->pfam, r->fam, dd, frames[0].intervals_ms.n ? frames[0].intervals_ms.n : 1, dd,
		frames[1].intervals_ms.n ? frames[1].intervals_ms.n : 1);
}

void write_plots(struct report *r)
{
	bool micro = false;
	for (int i = 0; i < ncases; i++)
		micro |= has_mode(&cases[i], ICOUNT);
	bool fps = frames[0].runs && frames[1].runs;
	fprintf(r->md, "## Plots, Linux %s\n\n", r->fam);
	if (have_offload(SYNC_EXPLICIT))
		plot_offload(r);
	if (micro)
		plot_micro(r);
	if (fps)
		plot_frames(r);
	if (!micro && !fps && !have_offload(SYNC_EXPLICIT))
		fprintf(r->md, "None: no icount or frame runs on both kernels.\n\n");
	result_plots(have_offload(SYNC_EXPLICIT), micro);
}
