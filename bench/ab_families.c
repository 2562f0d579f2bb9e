/* The kernel families side by side: the unpatched kernel of the first family
 * (6.12) against that of each later one (7.3), per ioctl under the
 * instruction clock, with the rule of the icount sections (bench/ab_micro.c):
 * what the upstream changes between the two versions did to each call, and
 * beside it what the series does on each. Also the first screen's key cases,
 * from the same kept values.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab-report.h"

/* One icount case of one family: the per-boot medians of each kernel and
 * the allocations per call of each. */
struct kept_case {
	char name[32];
	unsigned handles;
	double v[2][MAX_RUNS];
	int n[2];
	double allocs[2];
};

static struct kept_family {
	char name[16];
	char preempt[64];
	struct kept_case c[MAX_CASES];
	int n;
} kept[MAX_FAMILIES];
static int nkept;

void families_keep(const struct report *r)
{
	if (nkept == MAX_FAMILIES)
		die("more than %d kernel families", MAX_FAMILIES);
	struct kept_family *f = &kept[nkept];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", r->fam);
	const char *preempt = family_meta(r, "preempt");
	/* raw directories without it: a family meta.txt from before */
	snprintf(f->preempt, sizeof(f->preempt), strcmp(preempt, "?") ? "`CONFIG_%s`" :
		 "an unrecorded preemption model", preempt);
	for (int i = 0; i < ncases; i++) {
		const struct micro_case *c = &cases[i];
		if (!has_mode(c, ICOUNT))
			continue;
		struct kept_case *kc = &f->c[f->n++];
		snprintf(kc->name, sizeof(kc->name), "%s", c->name);
		kc->handles = c->handles;
		for (int k = 0; k < 2; k++) {
			kc->n[k] = c->s[ICOUNT][k].runs;
			memcpy(kc->v[k], c->s[ICOUNT][k].run_median, sizeof(double) * (size_t)kc->n[k]);
			kc->allocs[k] = kmalloc_allocs(r->kdir, k, c->name, c->handles);
		}
	}
	nkept++;
}

static const struct kept_case *kept_case(const struct kept_family *f, const char *name,
					 unsigned handles)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->c[i].name, name) && f->c[i].handles == handles)
			return &f->c[i];
	return NULL;
}

/* The spread rule on the per-boot medians of kernel ka of case a (the
 * reference) and kernel kb of case b. */
static void compare(const struct kept_case *a, int ka, const struct kept_case *b, int kb,
		    struct stats_boot_verdict *v)
{
	int ret = stats_boot_compare(a->v[ka], (size_t)a->n[ka], b->v[kb], (size_t)b->n[kb],
				     STATS_BOOT_SPREAD, v);
	if (ret < 0)
		die("%s/%u: per-boot comparison of the families failed: %s", a->name, a->handles,
		    strerror(-ret));
}

/* What the series does to the case on one family: the icount section's
 * relative Δ, or that none is proven. */
static void series_effect(char *out, size_t len, const struct kept_case *c)
{
	struct stats_boot_verdict v;
	compare(c, 0, c, 1, &v);
	if (v.proven)
		snprintf(out, len, "%+.2f %%", 100 * v.rel);
	else
		snprintf(out, len, "none proven");
}

static void write_pair(struct report *r, const struct kept_family *a, const struct kept_family *b)
{
	FILE *md = r->md;
	fprintf(md, "## Linux %s vs %s: the base kernels per ioctl, icount\n\n", a->name, b->name);
	fprintf(md, "The unpatched kernels of the two families under the instruction clock, from the "
		    "per-ioctl sections of both parts: what changed upstream between Linux %s and %s "
		    "did to each call, in instructions per call (user + kernel; user space is the "
		    "same syncobj-bench binary on both). The changes include drm_syncobj's own "
		    "(docs/kernel-patches.md: handles in an XArray instead of an IDR, new allocation "
		    "helpers, sync_file import and export at a timeline point), everything on the path "
		    "of an ioctl, and the configuration: %s is built with %s, %s with "
		    "%s (the preemption model each family's kernels get; "
		    "`tools/build-kernel`). **Verdict** by the rule of the icount sections, on the "
		    "per-boot medians: Δ = median(%s) − median(%s) is a difference when |Δ| > 3 × the "
		    "larger spread (max − min of one kernel's per-boot medians); *exact* when both "
		    "spreads are 0. *Beyond the floor*: Δ minus the floor's Δ, the part of the change "
		    "that is not on the way in and out of every DRM ioctl (system call entry and "
		    "`drm_ioctl()`'s checks). Here no case is a control: the floor, eventfd and "
		    "transfer change with the kernel too. The last two columns are the series' effect "
		    "on each family (patched against base, the verdicts of each part's icount "
		    "section).\n\n",
		a->name, b->name, a->name, a->preempt, b->name, b->preempt, b->name, a->name);
	fprintf(md, "| ioctl | handles | %s base | %s base | Δ | spread %s / %s | verdict | beyond the "
		    "floor | kmallocs/call %s → %s | series on %s | series on %s |\n"
		    "|---|--:|--:|--:|--:|--:|---|--:|---|--:|--:|\n",
		a->name, b->name, a->name, b->name, a->name, b->name, a->name, b->name);
	const struct kept_case *fa = kept_case(a, "floor", 0), *fb = kept_case(b, "floor", 0);
	double floor_diff = NAN;
	if (fa && fb) {
		struct stats_boot_verdict fv;
		compare(fa, 0, fb, 0, &fv);
		floor_diff = fv.diff;
	}
	struct stats_boot_verdict v[MAX_CASES];
	const struct kept_case *cb[MAX_CASES];
	int index[MAX_CASES], nv = 0, more = 0, fewer = 0, missing = 0;
	for (int i = 0; i < a->n; i++) {
		const struct kept_case *ca = &a->c[i];
		if (!ca->n[0] || !(cb[nv] = kept_case(b, ca->name, ca->handles)) || !cb[nv]->n[0]) {
			missing++;
			continue;
		}
		compare(ca, 0, cb[nv], 0, &v[nv]);
		index[nv++] = i;
	}
	for (int i = 0; i < b->n; i++)
		missing += b->c[i].n[0] && !kept_case(a, b->c[i].name, b->c[i].handles);
	if (stats_boot_holm(v, (size_t)nv) < 0)
		die("out of memory");
	for (int j = 0; j < nv; j++) {
		const struct kept_case *ca = &a->c[index[j]], *c2 = cb[j];
		char beyond[32] = "–", km[64], sa[32], sb[32];
		if (!isnan(floor_diff) && strcmp(ca->name, "floor"))
			snprintf(beyond, sizeof(beyond), "%+.1f", v[j].diff - floor_diff);
		fmt_allocs(km, sizeof(km), ca->allocs[0], c2->allocs[0]);
		series_effect(sa, sizeof(sa), ca);
		series_effect(sb, sizeof(sb), c2);
		fprintf(md, "| %s | %u | %.1f | %.1f | %+.1f (%+.2f %%) | %.3g / %.3g | %s | %s | %s | %s | "
			    "%s |\n",
			ca->name, ca->handles, v[j].median_ref, v[j].median, v[j].diff, 100 * v[j].rel,
			v[j].spread_ref, v[j].spread, v[j].verdict, beyond, km, sa, sb);
		if (v[j].proven)
			*(v[j].diff > 0 ? &more : &fewer) += 1;
	}
	fprintf(md, "\nOf %d cases measured on both, %d cost more instructions on %s's base kernel "
		    "than on %s's, %d fewer, %d no difference proven",
		nv, more, b->name, a->name, fewer, nv - more - fewer);
	if (!isnan(floor_diff))
		fprintf(md, "; the floor moved by %+.1f instructions", floor_diff);
	fprintf(md, ".%s Which functions a case's difference is in: `tools/ioctl-profile -k KERNEL "
		    "CASE/N` on each base kernel, function by function (docs/bench.md).\n\n",
		missing ? " Cases measured on one family only are left out." : "");
	printf("Linux %s vs %s base kernels: of %d cases, %d more instructions on %s, %d fewer, %d no "
	       "difference proven\n",
	       a->name, b->name, nv, more, b->name, fewer, nv - more - fewer);
}

void families_write(struct report *r)
{
	FILE *md = r->md;
	if (nkept < 2) {
		fprintf(md, "## The kernel families' base kernels per ioctl\n\n"
			    "One kernel family in this run (Linux %s): nothing to compare it with "
			    "(`tools/report --families`, by default every family, measures both).\n\n",
			nkept ? kept[0].name : "?");
		return;
	}
	for (int i = 1; i < nkept; i++) {
		int both = 0;
		for (int j = 0; j < kept[0].n; j++)
			both += kept[0].c[j].n[0] && kept_case(&kept[i], kept[0].c[j].name, kept[0].c[j].handles);
		if (!both) {
			fprintf(md, "## Linux %s vs %s: the base kernels per ioctl, icount\n\n"
				    "No icount microbenchmark on both families' base kernels: no "
				    "comparison.\n\n", kept[0].name, kept[i].name);
			continue;
		}
		write_pair(r, &kept[0], &kept[i]);
	}
}

/* The first screen's cases, few enough to read at a glance (docs/bench.md,
 * *The first screen*, says why these): the floor, the unit of the series'
 * goals (× floor); the one-handle waits, on a signalled fence or point, the
 * series' fast path, and as a frame makes them, the full path its
 * prediction prices; a SIGNAL, which allocates a fence a call; the
 * compositor's release, once a frame; and two arrays of 64 handles, past
 * the on-stack fast path, where 7.3's XArray lookup costs the most. */
static const struct {
	const char *name;
	unsigned handles;
	const char *what;
} key_cases[] = {
	{ "floor", 0, "the cheapest ioctl through `drm_ioctl()` (a control)" },
	{ "wait", 1, "WAIT on one signalled fence" },
	{ "timeline_wait", 1, "TIMELINE_WAIT on a point flagged signalled" },
	{ "timeline_wait_pending", 1, "a frame's wait: the full wait path" },
	{ "signal", 1, "SIGNAL: a new fence each call" },
	{ "timeline_signal", 1, "the compositor's release, once a frame" },
	{ "wait", 64, "an array past the on-stack fast path" },
	{ "query", 64, "an array read without a wait" },
};

/* "base → patched", × floor of each, and the series' effect of case c of
 * family f (NULL: not measured there). */
static void write_key_cells(FILE *md, const struct kept_family *f, const struct kept_case *c)
{
	const struct kept_case *fl = kept_case(f, "floor", 0);
	if (!c) {
		fputs(" – | – | – |", md);
		return;
	}
	struct stats_boot_verdict v, fv;
	char effect[32];
	compare(c, 0, c, 1, &v);
	series_effect(effect, sizeof(effect), c);
	fprintf(md, " %.0f → %.0f |", v.median_ref, v.median);
	if (fl) {
		compare(fl, 0, fl, 1, &fv);
		fprintf(md, " %.2f → %.2f |", v.median_ref / fv.median_ref, v.median / fv.median);
	} else {
		fputs(" – |", md);
	}
	fprintf(md, " %s |", effect);
}

void families_key_cases(FILE *md)
{
	if (!nkept || !kept[0].n) {
		fprintf(md, "No icount microbenchmark in this run.\n\n");
		return;
	}
	fputs("| case | what it stands for |", md);
	for (int i = 0; i < nkept; i++)
		fprintf(md, " Linux %s: base → patched | × floor | series on %s |", kept[i].name,
			kept[i].name);
	for (int i = 1; i < nkept; i++)
		fprintf(md, " %s base vs %s base |", kept[i].name, kept[0].name);
	fputs("\n|---|---|", md);
	for (int i = 0; i < nkept; i++)
		fputs("--:|--:|--:|", md);
	for (int i = 1; i < nkept; i++)
		fputs("--:|", md);
	fputc('\n', md);
	for (size_t j = 0; j < sizeof(key_cases) / sizeof(key_cases[0]); j++) {
		const struct kept_case *c[MAX_FAMILIES];
		int have = 0;
		for (int i = 0; i < nkept; i++)
			have += (c[i] = kept_case(&kept[i], key_cases[j].name, key_cases[j].handles)) != NULL;
		if (!have)
			continue;
		fprintf(md, "| %s/%u | %s |", key_cases[j].name, key_cases[j].handles, key_cases[j].what);
		for (int i = 0; i < nkept; i++)
			write_key_cells(md, &kept[i], c[i]);
		for (int i = 1; i < nkept; i++) {
			struct stats_boot_verdict v;
			if (!c[0] || !c[i]) {
				fputs(" – |", md);
				continue;
			}
			compare(c[0], 0, c[i], 0, &v);
			if (v.proven)
				fprintf(md, " %+.2f %% |", 100 * v.rel);
			else
				fputs(" none proven |", md);
		}
		fputc('\n', md);
	}
	fprintf(md, "\nInstructions per call (user + kernel), the median of the per-boot medians; "
		    "× floor: against the floor of the same kernel, the unit of the series' goals "
		    "(docs/kernel-patches.md). *Series*: patched against base, and *base vs base*: the "
		    "families' unpatched kernels, by the spread rule (a change, or none proven). Why "
		    "these cases: docs/bench.md, *The first screen*; every case is in each family's "
		    "*Per-ioctl cost, icount mode*.\n\n");
}
