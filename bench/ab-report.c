/* sw-ab-report: turns the raw samples of tools/report (build/report/raw/) into
 * the markdown report, the data files and the gnuplot script of the plots.
 * All statistics come from common/stats.c (stats.h); the ministat-form blocks are
 * the output of syncway-ministat on the same data files.
 *
 *   usage: sw-ab-report --raw DIR --out FILE.md --plots PREFIX
 *                       [--ministat PATH] [--kmalloc-dir DIR] [--seed N]
 *
 * DIR has a directory per kernel family (DIR/6.12, DIR/7.3: named by the
 * version, compared as versions), each with the files below; the report has
 * a part per family and compares the families' base kernels. A DIR without
 * family directories (raw directories before there were families) is one
 * family, 6.12.
 *
 * Inputs (written by bench/guest-ab.sh and tools/report):
 *   DIR/meta.txt                          key=value: date, machine, command
 *   DIR/<family>/meta.txt                 key=value: the family's kernels
 *                                         (release_base, kdir_base, ...) and
 *                                         their preemption model (preempt)
 *   DIR/<family>/series.txt               the family's series: per patch its
 *                                         number, "fix" or "-", its subject
 *                                         (optional)
 *   DIR/<family>/kmalloc-<kernel>.json    syncobj-kmalloc-count --out lines
 *                                         (optional; --kmalloc-dir: from there)
 * and in DIR/<family>:
 *   DIR/micro-<mode>-<kernel>-r<N>.jsonl  syncobj-bench JSON lines
 *   DIR/frame-wall-<kernel>-r<N>.jsonl    syncway --stats output
 *   DIR/client-times-wall-<kernel>-r<N>.txt  the frame client's `times` (optional)
 *   DIR/offload-icount-<kernel>-r<N>-<sync>-client.jsonl   syncway-offload --json of the
 *                                         boot's runs, a summary line each
 *   DIR/offload-icount-<kernel>-r<N>-<sync>-syncway.jsonl  syncway --stats of those runs
 *   DIR/prefix-icount-<base|NNNN>.jsonl   syncobj-bench on base and on the kernel of
 *                                         each prefix of the series (optional)
 *   DIR/hardened-icount-<kernel>-r<N>.jsonl  syncobj-bench on the hardened flavours
 *   DIR/hardened-vulnerabilities-<kernel>.txt  their /sys/.../cpu/vulnerabilities
 *                                         (both optional)
 *   DIR/virgl-icount-<kernel>-r<N>-{window,syncway,client}.jsonl  the virgl frame
 *                                         benchmark (optional; bench/ab_virgl.c)
 * A JSON line that lacks a key the report needs is an error, not a default.
 * Outputs: FILE.md, the result first (bench/ab_result.c), then the run and
 * the parts; FILE-appendix.md beside it (FILE.md without its ".md"), the
 * per-case ministat blocks, which are most of the lines and no verdict;
 * PREFIX-data/<family>/ (one value per line, per series); PREFIX-plots.gp
 * (run by tools/report with gnuplot in the directory of FILE.md), which
 * draws PREFIX-result.png (the first screen's plot) and
 * PREFIX-<family>-offload.png, -micro.png, -fps.png and -frametime.png, each
 * when the family has the runs.
 *
 * Verdicts come from one value per boot (docs/bench.md, "Statistics"); the
 * batches and windows of one boot are correlated and only describe the
 * precision within a boot.
 *
 * This file is main() and the head of the report (meta.txt): nothing the
 * other files call. bench/ab-report.h says where the rest is.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ab-report.h"

static struct meta top;
static struct family {
	char name[16];
	char dir[4096];
	struct meta meta;
} fams[MAX_FAMILIES];
static int nfams;

/* A family directory's name: a version, digits and dots. */
static bool is_family(const char *name)
{
	if (!(name[0] >= '0' && name[0] <= '9') || strlen(name) >= sizeof(fams[0].name))
		return false;
	return name[strspn(name, "0123456789.")] == 0;
}

static int cmp_family(const void *a, const void *b)
{
	return strverscmp(((const struct family *)a)->name, ((const struct family *)b)->name);
}

static void find_families(const char *raw)
{
	DIR *d = opendir(raw);
	if (!d)
		die("%s: %s", raw, strerror(errno));
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;
		if (!is_family(e->d_name))
			continue;
		format_fit(path, sizeof(path), "%s/%s", raw, e->d_name);
		if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (nfams == MAX_FAMILIES)
			die("%s: more than %d kernel families", raw, MAX_FAMILIES);
		snprintf(fams[nfams].name, sizeof(fams[0].name), "%s", e->d_name);
		snprintf(fams[nfams].dir, sizeof(fams[0].dir), "%s", path);
		nfams++;
	}
	closedir(d);
	qsort(fams, (size_t)nfams, sizeof(fams[0]), cmp_family);
	for (int i = 0; i < nfams; i++) {
		char path[4096];
		format_fit(path, sizeof(path), "%s/meta.txt", fams[i].dir);
		read_meta(path, &fams[i].meta, false);
	}
	if (!nfams) {
		/* Written before there were families: the kernels were 6.12's,
		 * named in the top-level meta.txt. */
		snprintf(fams[0].name, sizeof(fams[0].name), "6.12");
		snprintf(fams[0].dir, sizeof(fams[0].dir), "%s", raw);
		fams[0].meta = top;
		nfams = 1;
	}
}

/* The title, and where the rest is: docs/bench.md, the appendix. */
static void write_title(const struct report *r, const char *appendix_name)
{
	FILE *md = r->md;
	fprintf(md, "# A/B benchmark: drm_syncobj series, base vs patched, on Linux");
	for (int i = 0; i < nfams; i++)
		fprintf(md, "%s %s", i == 0 ? "" : i == nfams - 1 ? " and" : ",", fams[i].name);
	fprintf(md, "\n\nGenerated by `tools/report` (`bench/ab-report.c`) on %s; how to read it: "
		    "[docs/bench.md](../bench.md). Nothing here is edited by hand. The result first, "
		    "then the run, a part per kernel family and the families side by side; the "
		    "per-case ministat blocks are in [%s](%s).\n\n",
		meta_get(&top, "date"), appendix_name, appendix_name);
}

/* The run: meta.txt's machine, kernels and command. */
static void write_run(const struct report *r)
{
	FILE *md = r->md;
	fprintf(md, "## The run\n\n| | |\n|---|---|\n");
	fprintf(md, "| date | %s |\n", meta_get(&top, "date"));
	fprintf(md, "| machine | %s CPUs, %s, host kernel %s |\n", meta_get(&top, "nproc"),
		meta_get(&top, "cpu"), meta_get(&top, "host_kernel"));
	fprintf(md, "| load average (1/5/15 min) | start %s, end %s (per boot: raw/host-loadavg.txt) |\n",
		meta_get(&top, "loadavg_start"), meta_get(&top, "loadavg_end"));
	for (int i = 0; i < nfams; i++) {
		const struct meta *m = &fams[i].meta;
		for (int k = 0; k < 2; k++) {
			char key[32];
			format_fit(key, sizeof(key), "release_%s", kernels[k]);
			const char *rel = meta_get(m, key);
			format_fit(key, sizeof(key), "kdir_%s", kernels[k]);
			fprintf(md, "| Linux %s, %s kernel | `%s` (%s) |\n", fams[i].name, kernels[k], rel,
				meta_get(m, key));
		}
		if (strcmp(meta_get(m, "preempt"), "?"))
			fprintf(md, "| Linux %s, preemption model | `CONFIG_%s` |\n", fams[i].name,
				meta_get(m, "preempt"));
	}
	fprintf(md, "| emulator | %s, TCG, 1 vCPU |\n", meta_get(&top, "qemu"));
	fprintf(md, "| command | `%s` |\n", meta_get(&top, "command"));
	fprintf(md, "| frame client | `%s` |\n", meta_get(&top, "client"));
	fprintf(md, "| tree | %s |\n", meta_get(&top, "git"));
	fprintf(md, "| elapsed | %s s |\n\n", meta_get(&top, "elapsed_s"));
	fprintf(md, "Guest commands per boot: `tools/vm-run -q -k KERNEL [--icount] -- sh bench/guest-ab.sh "
		    "MODE KERNEL ROUND /results/raw/FAMILY`, kernels alternating base, patched, base, ..., "
		    "the families in turn within each round "
		    "(icount rounds first, then the virgl rounds with `--icount --gpu virgl`, then "
		    "wall-clock rounds, then the per-patch and hardened boots).\n\n");
	fprintf(md, "The report has a part per kernel family (");
	for (int i = 0; i < nfams; i++)
		fprintf(md, "%sLinux %s", i ? ", " : "", fams[i].name);
	fprintf(md, "), each section's heading naming its family; then the families' base kernels "
		    "side by side, per ioctl.\n\n");
}

/* Points r at family i: its directories, names and the kmalloc counts'. */
static void enter_family(struct report *r, int i)
{
	r->fam = fams[i].name;
	r->meta = &fams[i].meta;
	format_fit(r->famdir, sizeof(r->famdir), "%s", fams[i].dir);
	r->kdir = r->kmalloc_opt ? r->kmalloc_opt : r->famdir;
	format_fit(r->datadir, sizeof(r->datadir), "%s-data/%s", r->plots, r->fam);
	format_fit(r->datarel, sizeof(r->datarel), "%s-data/%s", r->pbase, r->fam);
	format_fit(r->pfam, sizeof(r->pfam), "%s-%s", r->pbase, r->fam);
	if (mkdir(r->datadir, 0755) < 0 && errno != EEXIST)
		die("%s: %s", r->datadir, strerror(errno));
}

int main(int argc, char **argv)
{
	const char *raw = NULL, *out = NULL;
	struct report r = { .ministat = "syncway-ministat" };
	uint64_t seed = 20250301;
	static const struct option opts[] = {
		{ "raw", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "plots", required_argument, NULL, 'p' },
		{ "ministat", required_argument, NULL, 'm' },
		{ "kmalloc-dir", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ 0 },
	};
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'r': raw = optarg; break;
		case 'o': out = optarg; break;
		case 'p': r.plots = optarg; break;
		case 'm': r.ministat = optarg; break;
		case 'k': r.kmalloc_opt = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!raw || !out || !r.plots)
		die("usage: sw-ab-report --raw DIR --out FILE.md --plots PREFIX [--ministat PATH] "
		    "[--kmalloc-dir DIR] [--seed N]");
	r.raw = raw;
	char path[4096];
	format_fit(path, sizeof(path), "%s/meta.txt", raw);
	read_meta(path, &top, true);
	find_families(raw);

	format_fit(path, sizeof(path), "%s-data", r.plots);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die("%s: %s", path, strerror(errno));
	char tmp[4096];
	format_fit(tmp, sizeof(tmp), "%s", r.plots);
	r.pbase = basename(tmp);
	/* FILE.md's appendix beside it, FILE-appendix.md: linked by name. */
	char apath[4096], aname[4096], oname[4096], name[4096];
	size_t stem = strlen(out);
	if (stem > 3 && !strcmp(out + stem - 3, ".md"))
		stem -= 3;
	format_fit(apath, sizeof(apath), "%.*s-appendix.md", (int)stem, out);
	/* basename() may change its argument: copies, not tmp, where pbase points */
	format_fit(name, sizeof(name), "%s", apath);
	format_fit(aname, sizeof(aname), "%s", basename(name));
	format_fit(name, sizeof(name), "%s", out);
	format_fit(oname, sizeof(oname), "%s", basename(name));
	FILE *main_md = fopen(out, "w");
	if (!main_md)
		die("%s: %s", out, strerror(errno));
	FILE *appendix = fopen(apath, "w");
	if (!appendix)
		die("%s: %s", apath, strerror(errno));
	write_appendix_head(appendix, meta_get(&top, "date"), oname);
	format_fit(path, sizeof(path), "%s-plots.gp", r.plots);
	r.gp = fopen(path, "w");
	if (!r.gp)
		die("%s: %s", path, strerror(errno));
	stats_rng_seed(&r.rng, seed);

	/* The parts into a buffer: the result, which comes first, is known
	 * only when every family has been written. */
	char *body = NULL;
	size_t body_len = 0;
	r.md = open_memstream(&body, &body_len);
	if (!r.md)
		die("out of memory");
	write_run(&r);
	for (int i = 0; i < nfams; i++) {
		enter_family(&r, i);
		result_enter(&r);
		reset_raw();
		read_raw(r.famdir);
		if (!ncases)
			die("no microbenchmark samples in %s", r.famdir);
		printf("Linux %s:\n", r.fam);
		write_offload(&r);
		virgl_write(&r);
		write_micro(&r);
		write_per_patch(&r);
		write_hardened(&r);
		write_frames(&r);
		write_plots(&r);
		families_keep(&r);
		FILE *md = r.md;
		r.md = appendix;
		write_appendix(&r);
		r.md = md;
	}
	reset_raw();
	families_write(&r);
	write_appendix_link(r.md, aname);
	if (fclose(r.md) != 0)
		die("out of memory");

	r.md = main_md;
	write_title(&r, aname);
	result_write(&r);
	fwrite(body, 1, body_len, r.md);
	free(body);
	if (fclose(r.gp) != 0)
		die("%s-plots.gp: %s", r.plots, strerror(errno));
	printf("wrote %s-plots.gp\n", r.plots);
	if (fclose(appendix) != 0)
		die("%s: %s", apath, strerror(errno));
	printf("wrote %s\n", apath);
	if (fclose(r.md) != 0)
		die("%s: %s", out, strerror(errno));
	printf("wrote %s\n", out);
	return 0;
}
