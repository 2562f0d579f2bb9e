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
 *   DIR/offload-icount-<kernel>-r<N>-<sync>-client.jsonl   syncway-offload --json
 *   DIR/offload-icount-<kernel>-r<N>-<sync>-syncway.jsonl  syncway --stats of that run
 *   DIR/prefix-icount-<base|NNNN>.jsonl   syncobj-bench on base and on the kernel of
 *                                         each prefix of the series (optional)
 *   DIR/hardened-icount-<kernel>-r<N>.jsonl  syncobj-bench on the hardened flavours
 *   DIR/hardened-vulnerabilities-<kernel>.txt  their /sys/.../cpu/vulnerabilities
 *                                         (both optional)
 *   DIR/virgl-icount-<kernel>-r<N>-{window,syncway,client}.jsonl  the virgl frame
 *                                         benchmark (optional; bench/ab_virgl.c)
 * A JSON line that lacks a key the report needs is an error, not a default.
 * Outputs: FILE.md; PREFIX-data/<family>/ (one value per line, per series);
 * PREFIX-plots.gp (run by tools/report with gnuplot in the directory of
 * FILE.md), which draws PREFIX-<family>-offload.png, -micro.png, -fps.png and
 * -frametime.png, each when the family has the runs.
 *
 * Verdicts come from one value per boot (docs/bench.md, "Statistics"); the
 * batches and windows of one boot are correlated and only describe the
 * precision within a boot.
 *
 * This file is main(), the head of the report (meta.txt) and the helpers
 * every section uses; bench/ab-report.h says where the rest is.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ab-report.h"

_Noreturn void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sw-ab-report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* snprintf for paths and commands built from the command line and the names
 * in the raw directory: one that does not fit is an error, never a shortened
 * name that opens or runs something else. */
void format_fit(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		die("longer than %zu bytes: %.60s...", size - 1, buf);
}

void write_values(const char *path, const double *v, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.6g\n", v[i]);
	fclose(f);
}

/* Appends syncway-ministat's output for two data files to md, as a code block. */
void ministat_block(const struct report *r, const char *args, size_t fewest)
{
	char cmd[8192], buf[512];
	if (fewest < 3) {
		fprintf(r->md, "Not shown: ministat needs at least 3 values a side, this run has %zu "
			       "(more rounds give them: tools/report --help).\n", fewest);
		return;
	}
	format_fit(cmd, sizeof(cmd), "%s %s 2>&1", r->ministat, args);
	FILE *p = popen(cmd, "r");
	if (!p)
		die("could not run %s: %s", r->ministat, strerror(errno));
	fputs("```\n", r->md);
	while (fgets(buf, sizeof(buf), p))
		fputs(buf, r->md);
	fputs("```\n", r->md);
	pclose(p);
}

/* key=value lines; a value is the rest of a meta.txt line, so it always fits. */
struct meta {
	char keys[64][32], vals[64][1024];
	int n;
};

static const char *meta_get(const struct meta *m, const char *key)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	return "?";
}

/* false when path does not exist and may not (!must). */
static bool read_meta(const char *path, struct meta *m, bool must)
{
	char line[1024];
	m->n = 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		if (must || errno != ENOENT)
			die("%s: %s", path, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f) && m->n < 64) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		eq[1 + strcspn(eq + 1, "\n")] = 0;
		format_fit(m->keys[m->n], sizeof(m->keys[0]), "%s", line);
		strcpy(m->vals[m->n], eq + 1);
		m->n++;
	}
	fclose(f);
	return true;
}

static struct meta top;
static struct family {
	char name[16];
	char dir[4096];
	struct meta meta;
} fams[MAX_FAMILIES];
static int nfams;

const char *family_meta(const struct report *r, const char *key)
{
	for (int i = 0; i < nfams; i++)
		if (!strcmp(fams[i].name, r->fam))
			return meta_get(&fams[i].meta, key);
	return "?";
}

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

static void write_meta(const struct report *r)
{
	FILE *md = r->md;
	fprintf(md, "# A/B benchmark: drm_syncobj series, base vs patched, on Linux");
	for (int i = 0; i < nfams; i++)
		fprintf(md, "%s %s", i == 0 ? "" : i == nfams - 1 ? " and" : ",", fams[i].name);
	fprintf(md, "\n\nGenerated by `tools/report` (`bench/ab-report.c`); how to read it: "
		    "[docs/bench.md](../bench.md). Nothing here is edited by hand.\n\n");
	fprintf(md, "| | |\n|---|---|\n");
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
		    "side by side, per ioctl; then the appendix.\n\n");
}

/* Points r at family i: its directories, names and the kmalloc counts'. */
static void enter_family(struct report *r, int i)
{
	r->fam = fams[i].name;
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
	r.md = fopen(out, "w");
	if (!r.md)
		die("%s: %s", out, strerror(errno));
	format_fit(path, sizeof(path), "%s-plots.gp", r.plots);
	r.gp = fopen(path, "w");
	if (!r.gp)
		die("%s: %s", path, strerror(errno));
	stats_rng_seed(&r.rng, seed);

	write_meta(&r);
	/* The appendix of every family, after every part. */
	char *appendix[MAX_FAMILIES] = { 0 };
	size_t appendix_len[MAX_FAMILIES];
	for (int i = 0; i < nfams; i++) {
		enter_family(&r, i);
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
		r.md = open_memstream(&appendix[i], &appendix_len[i]);
		if (!r.md)
			die("out of memory");
		write_appendix(&r);
		if (fclose(r.md) != 0)
			die("out of memory");
		r.md = md;
	}
	reset_raw();
	families_write(&r);
	write_appendix_head(r.md);
	for (int i = 0; i < nfams; i++) {
		fwrite(appendix[i], 1, appendix_len[i], r.md);
		free(appendix[i]);
	}
	if (fclose(r.gp) != 0)
		die("%s-plots.gp: %s", r.plots, strerror(errno));
	printf("wrote %s-plots.gp\n", r.plots);
	if (fclose(r.md) != 0)
		die("%s: %s", out, strerror(errno));
	printf("wrote %s\n", out);
	return 0;
}
