/* The icount runs outside the A/B rounds: instructions per call after each
 * patch of the series (tools/report --per-patch), and on the hardened
 * flavours of base and patched (tools/report --hardened). Both tables show
 * the same rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab-report.h"

static double run_value(const struct icount_run *p, const char *name, unsigned handles)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->c[i].name, name) && p->c[i].handles == handles)
			return p->c[i].median;
	return NAN;
}

/* Rows of the per-patch and hardened tables: the floor, one handle, the
 * largest count the fast paths take, the first they do not, and the
 * largest measured. */
static bool table_row(unsigned handles)
{
	static const unsigned shown[] = { 0, 1, 4, 5, 64 };
	for (size_t j = 0; j < sizeof(shown) / sizeof(*shown); j++)
		if (shown[j] == handles)
			return true;
	return false;
}

/* The family's series.txt (tools/report): per patch its number, "fix" when
 * it has a Fixes: tag, else "-", and its subject. Whether the patch of
 * label is a fix, with its subject; false without the file or the line. */
static bool is_fix(const struct report *r, const char *label, char *subject, size_t len)
{
	char path[4096], line[1024], num[16], flag[8];
	int at = -1;
	format_fit(path, sizeof(path), "%s/series.txt", r->famdir);
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT)
			die("%s: %s", path, strerror(errno));
		return false;
	}
	bool fix = false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s %7s %n", num, flag, &at) < 2 || at < 0 || strcmp(num, label))
			continue;
		fix = !strcmp(flag, "fix");
		line[strcspn(line, "\n")] = 0;
		snprintf(subject, len, "%s", line + at);
		break;
	}
	fclose(f);
	return fix;
}

void write_per_patch(struct report *r)
{
	FILE *md = r->md;
	char subject[512];
	fprintf(md, "## Instructions per call after each patch, Linux %s\n\n", r->fam);
	if (!nprefixes) {
		fprintf(md, "Not measured in this run (`tools/report --per-patch`, the default without "
			    "`--quick`, boots base and the kernel of every prefix of the series under the "
			    "instruction clock).\n\n");
		return;
	}
	if (strcmp(prefixes[0].label, "base"))
		die("%s: prefix-icount-base.jsonl is missing: the per-patch table starts at base",
		    r->famdir);
	/* The bug fixes at the front of the series: the column after them is
	 * where the optimisations start from. */
	int fixes = 0;
	while (fixes + 1 < nprefixes && is_fix(r, prefixes[fixes + 1].label, subject, sizeof(subject)))
		fixes++;
	fprintf(md, "One boot per kernel under the instruction clock: base, then base with the "
		    "patches up to each number applied (the kernels `tools/build-prefixes %s` builds, "
		    "base's configuration). Each cell is the median instructions per call of the "
		    "batches, and in parentheses its change from the cell to its left: what that "
		    "patch did to the case. `floor` (an ioctl refused with EINVAL at once), `eventfd` and "
		    "`transfer` are controls no patch touches.", r->fam);
	bool any_fix = false;
	for (int i = 1; i < nprefixes; i++) {
		if (!is_fix(r, prefixes[i].label, subject, sizeof(subject)))
			continue;
		fprintf(md, "%s%s (*%s*)", any_fix ? ", " : " **A bug fix, not an optimisation** "
			    "(a `Fixes:` tag), is marked *(fix)*: ", prefixes[i].label, subject);
		any_fix = true;
	}
	if (any_fix)
		fprintf(md, "; its change is shown like the others'.");
	if (fixes)
		fprintf(md, " *Optimisations*: the change from the column of %s, the series' "
			    "fix%s in front, to the last.", prefixes[fixes].label, fixes > 1 ? "es" : "");
	fprintf(md, "\n\n| ioctl | handles |");
	for (int i = 0; i < nprefixes; i++)
		fprintf(md, " %s%s |", prefixes[i].label,
			i && is_fix(r, prefixes[i].label, subject, sizeof(subject)) ? " (fix)" : "");
	fprintf(md, " all patches |%s\n|---|--:|", fixes ? " optimisations |" : "");
	for (int i = 0; i <= nprefixes + (fixes > 0); i++)
		fprintf(md, "--:|");
	fprintf(md, "\n");
	const struct icount_run *b = &prefixes[0];
	for (int c = 0; c < b->n; c++) {
		const char *name = b->c[c].name;
		unsigned h = b->c[c].handles;
		if (!table_row(h))
			continue;
		fprintf(md, "| %s | %u | %.0f |", name, h, b->c[c].median);
		double prev = b->c[c].median, last = prev, after_fixes = fixes ? NAN : prev;
		for (int i = 1; i < nprefixes; i++) {
			double v = run_value(&prefixes[i], name, h);
			if (isnan(v)) {
				fprintf(md, " – |");
				continue;
			}
			fprintf(md, " %.0f (%+.1f %%) |", v, 100.0 * (v / prev - 1.0));
			prev = last = v;
			if (i == fixes)
				after_fixes = v;
		}
		fprintf(md, " %+.1f %% |", 100.0 * (last / b->c[c].median - 1.0));
		if (fixes && isnan(after_fixes))
			fprintf(md, " – |");
		else if (fixes)
			fprintf(md, " %+.1f %% |", 100.0 * (last / after_fixes - 1.0));
		fputc('\n', md);
	}
	fprintf(md, "\n");
}

/* The median over boots of a case on a hardened kernel, and its range
 * across those boots relative to that median (NaN when a boot lacks it). */
static double hardened_value(int k, const char *name, unsigned handles, double *range)
{
	double v[MAX_RUNS];
	for (int i = 0; i < nhardened[k]; i++)
		if (isnan(v[i] = run_value(&hardened[k][i], name, handles)))
			return NAN;
	double med = median_of(v, nhardened[k]);
	stats_sort(v, (size_t)nhardened[k]);
	*range = (v[nhardened[k] - 1] - v[0]) / med;
	return med;
}

static void write_vulnerabilities(const struct report *r, const char *kernel)
{
	char path[4096], line[512];
	format_fit(path, sizeof(path), "%s/hardened-vulnerabilities-%s.txt", r->famdir, kernel);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(r->md, "What the %s kernel mitigated was not recorded (%s: %s).\n\n", kernel,
			path, strerror(errno));
		return;
	}
	fprintf(r->md, "What the hardened %s kernel reported in the guest "
		    "(`/sys/devices/system/cpu/vulnerabilities`, QEMU's `-cpu max` under TCG; a real "
		    "CPU reports its own):\n\n```\n", kernel);
	static const char dir[] = "/sys/devices/system/cpu/vulnerabilities/";
	while (fgets(line, sizeof(line), f))
		fputs(line + (strncmp(line, dir, sizeof(dir) - 1) ? 0 : sizeof(dir) - 1), r->md);
	fprintf(r->md, "```\n\n");
	fclose(f);
}

void write_hardened(struct report *r)
{
	FILE *md = r->md;
	fprintf(md, "## On a hardened kernel, Linux %s\n\n", r->fam);
	if (!nhardened[0] && !nhardened[1]) {
		fprintf(md, "Not measured in this run (`tools/report --hardened` builds base and patched "
			    "with Debian's mitigations and hardening, "
			    "`kernel-patches/config-hardened.fragment`, and measures them under the "
			    "instruction clock).\n\n");
		return;
	}
	for (int k = 0; k < 2; k++)
		if (!nhardened[k])
			die("%s: no hardened-icount-%s-r*.jsonl: the hardened table needs both kernels",
			    r->famdir, kernels[k]);
	fprintf(md, "The same microbenchmark on base and patched built with "
		    "`kernel-patches/config-hardened.fragment` on top of their configuration: the "
		    "mitigations and hardening options of Debian's amd64 kernel (stack protector, "
		    "`INIT_STACK_ALL_ZERO`, `INIT_ON_ALLOC_DEFAULT_ON`, hardened usercopy, hardened and "
		    "randomised slab freelists, retpolines and return thunks, page-table isolation, "
		    "...), under the instruction clock, %d and %d boots. Each cell is the median over "
		    "boots of the per-boot median instructions per call; randomised freelists and "
		    "page shuffling make boots differ slightly, so the largest range across the boots "
		    "of a kernel is shown. The last column is the change between the unhardened "
		    "kernels of the icount section above.\n\n",
		nhardened[0], nhardened[1]);
	fprintf(md, "| ioctl | handles | hardened base | hardened patched | Δ | range across boots | "
		    "Δ unhardened |\n|---|--:|--:|--:|--:|--:|--:|\n");
	const struct icount_run *b = &hardened[0][0];
	for (int c = 0; c < b->n; c++) {
		const char *name = b->c[c].name;
		unsigned h = b->c[c].handles;
		if (!table_row(h))
			continue;
		double rb, rp;
		double vb = hardened_value(0, name, h, &rb), vp = hardened_value(1, name, h, &rp);
		double ub = icount_cost(name, h, 0), up = icount_cost(name, h, 1);
		if (isnan(vb) || isnan(vp))
			die("hardened runs: %s/%u is missing from a boot", name, h);
		fprintf(md, "| %s | %u | %.0f | %.0f | %+.1f %% | %.1f %% |", name, h, vb, vp,
			100.0 * (vp / vb - 1.0), 100.0 * fmax(rb, rp));
		if (isnan(ub) || isnan(up))
			fprintf(md, " – |\n");
		else
			fprintf(md, " %+.1f %% |\n", 100.0 * (up / ub - 1.0));
	}
	fprintf(md, "\n");
	write_vulnerabilities(r, "patched");
}
