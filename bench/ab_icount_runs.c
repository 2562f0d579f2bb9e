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

void write_per_patch(struct report *r)
{
	FILE *md = r->md;
	fprintf(md, "## Instructions per call after each patch\n\n");
	if (!nprefixes) {
		fprintf(md, "Not measured in this run (`tools/report --per-patch`, the default without "
			    "`--quick`, boots base and the kernel of every prefix of the series under the "
			    "instruction clock).\n\n");
		return;
	}
	if (strcmp(prefixes[0].label, "base"))
		die("prefix-icount-base.jsonl is missing: the per-patch table starts at base");
	fprintf(md, "One boot per kernel under the instruction clock: base, then base with the "
		    "patches up to each number applied (the kernels `tools/build-prefixes` builds, "
		    "base's configuration). Each cell is the median instructions per call of the "
		    "batches, and in parentheses its change from the cell to its left: what that "
		    "patch did to the case. `floor` (an ioctl refused with EINVAL at once), `eventfd` and "
		    "`transfer` are controls no patch touches.\n\n| ioctl | handles |");
	for (int i = 0; i < nprefixes; i++)
		fprintf(md, " %s |", prefixes[i].label);
	fprintf(md, " all patches |\n|---|--:|");
	for (int i = 0; i <= nprefixes; i++)
		fprintf(md, "--:|");
	fprintf(md, "\n");
	const struct icount_run *b = &prefixes[0];
	for (int c = 0; c < b->n; c++) {
		const char *name = b->c[c].name;
		unsigned h = b->c[c].handles;
		if (!table_row(h))
			continue;
		fprintf(md, "| %s | %u | %.0f |", name, h, b->c[c].median);
		double prev = b->c[c].median, last = prev;
		for (int i = 1; i < nprefixes; i++) {
			double v = run_value(&prefixes[i], name, h);
			if (isnan(v)) {
				fprintf(md, " – |");
				continue;
			}
			fprintf(md, " %.0f (%+.1f %%) |", v, 100.0 * (v / prev - 1.0));
			prev = last = v;
		}
		fprintf(md, " %+.1f %% |\n", 100.0 * (last / b->c[c].median - 1.0));
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
	format_fit(path, sizeof(path), "%s/hardened-vulnerabilities-%s.txt", r->raw, kernel);
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
	fprintf(md, "## On a hardened kernel\n\n");
	if (!nhardened[0] && !nhardened[1]) {
		fprintf(md, "Not measured in this run (`tools/report --hardened` builds base and patched "
			    "with Debian's mitigations and hardening, "
			    "`kernel-patches/config-hardened.fragment`, and measures them under the "
			    "instruction clock).\n\n");
		return;
	}
	for (int k = 0; k < 2; k++)
		if (!nhardened[k])
			die("no hardened-icount-%s-r*.jsonl: the hardened table needs both kernels",
			    kernels[k]);
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
