/* The per-ioctl cost (syncobj-bench), one section per mode: icount, with
 * the spread rule on the instruction clock's per-boot medians and its
 * repeatability, and wall, with the per-boot test and the boots it would
 * need. Also the per-boot statistics the other sections share.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab-report.h"

/* within_boot()'s bootstrap resamples and confidence level (%). */
#define BOOTSTRAP_B 4000
#define CONF 95.0

static const struct micro_case *floor_case(void)
{
	for (int i = 0; i < ncases; i++)
		if (!strcmp(cases[i].name, "floor"))
			return &cases[i];
	return NULL;
}

double kmalloc_allocs(const char *dir, int kernel, const char *case_name, unsigned handles)
{
	char path[4096], up[32], ioctl_name[32];
	format_fit(path, sizeof(path), "%s/kmalloc-%s.json", dir, kernels[kernel]);
	struct jreader r;
	const struct jline *l = &r.l;
	if (!jreader_open(&r, path, false))
		return NAN;
	size_t i;
	for (i = 0; case_name[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)(case_name[i] >= 'a' && case_name[i] <= 'z' ? case_name[i] - 32 : case_name[i]);
	up[i] = 0;
	double v = NAN;
	while (jreader_next(&r)) {
		jstr(l, "ioctl", ioctl_name, sizeof(ioctl_name));
		if (!strcmp(ioctl_name, up) && jnum(l, "count") == handles) {
			v = jnum(l, "allocs");
			break;
		}
	}
	jreader_close(&r);
	return v;
}

void fmt_allocs(char *out, size_t len, double a, double b)
{
	char sa[16] = "–", sb[16] = "–";
	if (!isnan(a))
		snprintf(sa, sizeof(sa), "%.2g", a);
	if (!isnan(b))
		snprintf(sb, sizeof(sb), "%.2g", b);
	snprintf(out, len, isnan(a) && isnan(b) ? "–" : "%s → %s", sa, sb);
}

void within_boot(const struct stats_sample *b, const struct stats_sample *p,
		 struct stats_rng *rng, struct within_boot *w)
{
	w->med_b = stats_median(b->v, b->n);
	w->med_p = stats_median(p->v, p->n);
	w->p99_b = stats_percentile(b->v, b->n, 99);
	w->p99_p = stats_percentile(p->v, p->n, 99);
	if (stats_bootstrap_median_diff(b->v, b->n, p->v, p->n, BOOTSTRAP_B, CONF, rng, &w->boot) < 0)
		die("bootstrap failed (out of memory)");
	if (stats_hodges_lehmann(b->v, b->n, p->v, p->n, CONF, &w->hl) < 0)
		w->hl.estimate = w->hl.lo = w->hl.hi = NAN;
}

void fmt_shift(char *out, size_t len, const struct stats_interval *in)
{
	if (isnan(in->estimate))
		snprintf(out, len, "–");
	else
		snprintf(out, len, "%+.1f [%+.1f, %+.1f]", in->estimate, in->lo, in->hi);
}

void fmt_rel_ci(char *out, size_t len, const struct stats_boot_verdict *v)
{
	if (isnan(v->rel_lo))
		snprintf(out, len, "%+.2f %%", 100 * v->rel);
	else
		snprintf(out, len, "%+.2f %% [%+.2f, %+.2f]", 100 * v->rel, 100 * v->rel_lo,
			 100 * v->rel_hi);
}

/* The boots needed at the verdict's cv, and beside it the cv the values
 * would have divided by the same boot's floor (NaN: none), which shows
 * whether that division would have helped. */
void fmt_boots_needed(char *out, size_t len, const struct stats_boot_verdict *v,
		      double floor_cv)
{
	int n = isnan(v->cv) ? -EDOM : stats_boots_needed(v->cv, DETECT_EFFECT, 0.05);
	if (n < 0)
		snprintf(out, len, "–");
	else if (isnan(floor_cv))
		snprintf(out, len, "%d (cv %.1f %%)", n, 100 * v->cv);
	else
		snprintf(out, len, "%d (cv %.1f %%; /floor %.1f %%)", n, 100 * v->cv, 100 * floor_cv);
}

/* One value per boot of c in mode m on kernel k, in boot order: the median of
 * the boot's batches, divided by the floor's median of the same boot when
 * per_floor (a descriptive ratio: see micro_verdicts() for why verdicts do
 * not divide). */
static int boot_values(const struct micro_case *c, int m, int k, bool per_floor, double *out)
{
	const struct series *s = &c->s[m][k], *f = NULL;
	if (per_floor) {
		const struct micro_case *fc = floor_case();
		if (!fc)
			die("%s mode: no floor case to divide %s/%u by", modes[m], c->name, c->handles);
		f = &fc->s[m][k];
	}
	for (int i = 0; i < s->runs; i++) {
		out[i] = s->run_median[i];
		if (!f)
			continue;
		int j = 0;
		while (j < f->runs && f->run_round[j] != s->run_round[i])
			j++;
		if (j == f->runs)
			die("%s mode, %s round %d: %s/%u has no floor in the same boot", modes[m],
			    kernels[k], s->run_round[i], c->name, c->handles);
		out[i] /= f->run_median[j];
	}
	return s->runs;
}

bool has_mode(const struct micro_case *c, int m)
{
	return c->s[m][0].runs && c->s[m][1].runs;
}

static bool is_control(const struct micro_case *c)
{
	return !strcmp(c->name, "floor") || !strcmp(c->name, "eventfd") ||
	       !strcmp(c->name, "transfer");
}

/* The case's per-boot verdicts of mode m, Holm-adjusted across the cases
 * that are tested; v[i] belongs to cases[i]. The values are not divided by
 * the same boot's floor: that would cancel a slow or fast boot state, but in
 * wall mode the floor's own time differs between the two kernel builds at
 * an identical instruction count (docs/bench.md), and the division carried
 * that into every case, the controls included. */
static void micro_verdicts(int m, struct stats_boot_verdict *v)
{
	struct stats_boot_verdict family[MAX_CASES];
	int index[MAX_CASES], nf = 0;
	for (int i = 0; i < ncases; i++) {
		const struct micro_case *c = &cases[i];
		if (!has_mode(c, m))
			continue;
		double b[MAX_RUNS], p[MAX_RUNS];
		int nb = boot_values(c, m, 0, false, b), np = boot_values(c, m, 1, false, p);
		int ret = stats_boot_compare(b, nb, p, np, m == WALL ? STATS_BOOT_TEST : STATS_BOOT_SPREAD,
					     &family[nf]);
		if (ret < 0)
			die("%s mode, %s/%u: per-boot comparison failed: %s", modes[m], c->name,
			    c->handles, strerror(-ret));
		index[nf++] = i;
	}
	if (stats_boot_holm(family, nf) < 0)
		die("out of memory");
	for (int j = 0; j < nf; j++)
		v[index[j]] = family[j];
}

/* The median of n per-boot values (n ≤ MAX_RUNS), leaving them as they are. */
double median_of(const double *v, int n)
{
	double tmp[MAX_RUNS];
	memcpy(tmp, v, sizeof(double) * (size_t)n);
	stats_sort(tmp, (size_t)n);
	return stats_median(tmp, (size_t)n);
}

/* The icount cost per call of kind with handles on kernel k: the median of
 * the case's per-boot medians; NaN when the microbenchmark has no such case. */
double icount_cost(const char *kind, unsigned handles, int k)
{
	for (int i = 0; i < ncases; i++) {
		const struct micro_case *c = &cases[i];
		if (!strcmp(c->name, kind) && c->handles == handles && has_mode(c, ICOUNT))
			return median_of(c->s[ICOUNT][k].run_median, c->s[ICOUNT][k].runs);
	}
	return NAN;
}

/* The median over boots of the case's median divided by the same boot's
 * floor median; NaN without a floor. */
static double floor_ratio(const struct micro_case *c, int m, int k)
{
	double v[MAX_RUNS];
	if (!floor_case())
		return NAN;
	return median_of(v, boot_values(c, m, k, true, v));
}

/* "name/handles on kernel" of cases[i], or "–" when there is no case (i < 0). */
static void write_case_on(FILE *f, int i, int k)
{
	if (i < 0)
		fputs("–", f);
	else
		fprintf(f, "%s/%u on %s", cases[i].name, cases[i].handles, kernels[k]);
}

/* The instruction clock's repeatability, per class of case. A call that
 * allocates per handle (SIGNAL's and TIMELINE_SIGNAL's fences and chains at
 * every count, every ioctl's arrays past SMALL_HANDLES) carries the slab
 * allocator's state, which differs from boot to boot: trusted to 2 %; the
 * others to 0.5 %. */
#define SMALL_HANDLES 8
static bool allocates_per_handle(const struct micro_case *c)
{
	return c->handles > SMALL_HANDLES || !strcmp(c->name, "signal") ||
	       !strcmp(c->name, "timeline_signal");
}

static const struct {
	const char *what;
	bool per_handle;
	double trusted;	/* % */
} repeat_classes[] = {
	{ "Cases without an allocation per handle", false, 0.5 },
	{ "Cases with an allocation per handle on every call (SIGNAL and TIMELINE_SIGNAL, and "
	  "every array over 8 handles: the slab allocator's state, which differs between boots, "
	  "shows in the count)", true, 2.0 },
};

static void write_icount_repeatability(FILE *md, const struct stats_boot_verdict *v)
{
	fprintf(md, "### Repeatability under icount\n\n"
		    "Spread of the per-boot medians of each case on the same kernel, "
		    "(max − min) / median.\n\n");
	for (size_t rc = 0; rc < sizeof(repeat_classes) / sizeof(repeat_classes[0]); rc++) {
		double worst = 0, trusted = repeat_classes[rc].trusted;
		int over = 0, total = 0, worst_i = -1, worst_k = 0;
		for (int i = 0; i < ncases; i++) {
			if (!has_mode(&cases[i], ICOUNT) ||
			    allocates_per_handle(&cases[i]) != repeat_classes[rc].per_handle)
				continue;
			for (int k = 0; k < 2; k++) {
				if ((k ? v[i].n : v[i].n_ref) < 2)
					continue;
				double spread = 100 * (k ? v[i].spread / v[i].median :
							   v[i].spread_ref / v[i].median_ref);
				total++;
				over += spread > trusted;
				if (spread > worst) {
					worst = spread;
					worst_i = i;
					worst_k = k;
				}
			}
		}
		fprintf(md, "- %s, trusted to %g %%: %d case×kernel pairs with ≥ 2 boots; %d over %g %%; "
			    "largest spread %.3f %% (", repeat_classes[rc].what, trusted, total, over,
			trusted, worst);
		write_case_on(md, worst_i, worst_k);
		fputs(").\n", md);
		printf("icount repeatability (%s): %d of %d case/kernel pairs over %g %%, worst "
		       "%.3f %% (", repeat_classes[rc].per_handle ? "per-handle allocations" : "no per-handle allocation", over, total, trusted,
		       worst);
		write_case_on(stdout, worst_i, worst_k);
		puts(")");
	}
	fputc('\n', md);
}

/* The controls with a difference proven in mode m: their number, and when f
 * is not NULL, the list "name (verdict), ..." written to f. */
static int differing_controls(FILE *f, int m, const struct stats_boot_verdict *v)
{
	int n = 0;
	for (int i = 0; i < ncases; i++) {
		if (!has_mode(&cases[i], m) || !is_control(&cases[i]) ||
		    !v[i].proven)
			continue;
		if (f)
			fprintf(f, "%s%s (%s)", n ? ", " : "", cases[i].name, v[i].verdict);
		n++;
	}
	return n;
}

/* Why a case that the instruction clock shows to differ is not proven in
 * wall mode: the boots a side that the mode's per-boot spread would need to
 * prove the change icount measures, at the level of Holm's first step. */
static void write_wall_unproven(FILE *md, const struct stats_boot_verdict *wall, int tested)
{
	struct stats_boot_verdict icount[MAX_CASES];
	int listed = 0;
	micro_verdicts(ICOUNT, icount);
	for (int i = 0; i < ncases; i++) {
		const struct stats_boot_verdict *w = &wall[i];
		if (!has_mode(&cases[i], ICOUNT) || !has_mode(&cases[i], WALL) || !icount[i].proven ||
		    !w->tested || w->proven)
			continue;
		if (!listed++)
			fprintf(md, "**Not proven in this mode although the instruction clock measures a "
				    "difference**, with the boots a side this mode's per-boot spread would "
				    "need to prove the icount change at the level of Holm's first step "
				    "(0.05 / %d) with 80 %% power:\n\n", tested);
		char rel[64], needed[32] = "–";
		int n = isnan(w->cv) ? -EDOM : stats_boots_needed(w->cv, fabs(icount[i].rel), 0.05 / tested);
		if (n > 0)
			snprintf(needed, sizeof(needed), "%d", n);
		fmt_rel_ci(rel, sizeof(rel), w);
		fprintf(md, "- %s/%u: icount %+.2f %%, here %s, per-boot cv %.1f %%: %s boots\n",
			cases[i].name, cases[i].handles, 100 * icount[i].rel, rel, 100 * w->cv, needed);
	}
	if (listed)
		fputc('\n', md);
}

static void write_micro_mode(struct report *r, int m)
{
	FILE *md = r->md;
	struct stats_boot_verdict v[MAX_CASES];
	micro_verdicts(m, v);

	fprintf(md, "## Per-ioctl cost, %s mode, Linux %s\n\n", modes[m], r->fam);
	if (m == ICOUNT)
		fprintf(md, "Guest nanoseconds under `-icount shift=0`: **instructions per call** (user + "
			    "kernel). Median and p99 over all batches of all boots (each batch = the mean "
			    "of many back-to-back calls); /floor: the median over boots of the case's "
			    "median divided by the floor's in the same boot. **Verdict** from the per-boot "
			    "medians, which the instruction clock repeats: Δ = median(patched) − "
			    "median(base) is called a difference when |Δ| > 3 × the larger spread (max − min "
			    "of one kernel's per-boot medians); *exact* when both spreads are 0.\n\n");
	else
		fprintf(md, "Wall-clock nanoseconds per call in the TCG guest (emulation noise and the "
			    "load of the shared host included); columns as in icount mode. **Verdict** "
			    "from each boot's median, not divided by the floor's (the floor's own time differs "
			    "between the two kernel builds; see its row): Welch's t on their logarithms gives the relative "
			    "Δ and its 95 %% CI, the exact permutation test on the same values gives p, "
			    "Holm-adjusted across this table; a difference needs a CI that excludes 0 and "
			    "an adjusted p < 0.05, with ≥ %d boots a side. *Boots for ±%.0f %%*: boots per "
			    "kernel for 80 %% power at that difference, from the pooled per-boot cv of "
			    "the values tested (and, beside it, of the values divided by the same boot's "
			    "floor, which shows whether that division would have helped).\n\n",
			STATS_MIN_BOOTS, 100 * DETECT_EFFECT);
	fprintf(md, "The last two columns pool the batches of all boots: they show the precision "
		    "*within* boots (batches of one boot are correlated) and decide nothing.\n\n");
	if (m == ICOUNT)
		fprintf(md, "| ioctl | handles | base median | base p99 | base /floor | patched median | "
			    "patched p99 | patched /floor | per-boot Δ median | spread base / patched | "
			    "verdict | within-boot Δ median [95 %% bootstrap] | within-boot HL shift "
			    "[95 %%] | kmallocs/call base → patched |\n"
			    "|---|--:|--:|--:|--:|--:|--:|--:|---|---|---|---|---|---|\n");
	else
		fprintf(md, "| ioctl | handles | base median | base p99 | base /floor | patched median | "
			    "patched p99 | patched /floor | Δ [95 %% CI] | p (permutation) | "
			    "p (Holm) | boots for ±%.0f %% | verdict | within-boot Δ median [95 %% "
			    "bootstrap] | within-boot HL shift [95 %%] | kmallocs/call base → patched |\n"
			    "|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|---|---|---|---|\n",
			100 * DETECT_EFFECT);
	int tested = 0;
	size_t min_boots = MAX_RUNS;
	for (int i = 0; i < ncases; i++) {
		struct micro_case *c = &cases[i];
		if (!has_mode(c, m))
			continue;
		struct within_boot w;
		within_boot(&c->s[m][0].pooled, &c->s[m][1].pooled, &r->rng, &w);
		char boot[64], hl[64], km[64] = "–";
		fmt_shift(boot, sizeof(boot), &w.boot);
		fmt_shift(hl, sizeof(hl), &w.hl);
		if (r->kdir)
			fmt_allocs(km, sizeof(km), kmalloc_allocs(r->kdir, 0, c->name, c->handles),
				   kmalloc_allocs(r->kdir, 1, c->name, c->handles));
		fprintf(md, "| %s | %u | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | ", c->name, c->handles,
			w.med_b, w.p99_b, floor_ratio(c, m, 0), w.med_p, w.p99_p, floor_ratio(c, m, 1));
		const struct stats_boot_verdict *cv = &v[i];
		char p[32], p_adj[32], rel[64], needed[64];
		if (m == ICOUNT)
			fprintf(md, "%+.1f (%+.2f %%) | %.3g / %.3g | %s | ", cv->diff, 100 * cv->rel,
				cv->spread_ref, cv->spread, cv->verdict);
		else {
			double ub[MAX_RUNS], up[MAX_RUNS];
			int nb = boot_values(c, m, 0, true, ub), np = boot_values(c, m, 1, true, up);
			fmt_rel_ci(rel, sizeof(rel), cv);
			/* The floor divided by itself says nothing. */
			fmt_boots_needed(needed, sizeof(needed), cv,
					 strcmp(c->name, "floor") ? stats_pooled_log_sd(ub, nb, up, np) : NAN);
			fprintf(md, "%s | %s | %s | %s | %s | ", rel,
				stats_format_p(p, sizeof(p), cv->p, cv->exact),
				stats_format_p(p_adj, sizeof(p_adj), cv->p_adj, cv->exact), needed,
				cv->verdict);
		}
		fprintf(md, "%s | %s | %s |\n", boot, hl, km);
		if (cv->tested)
			tested++;
		min_boots = cv->n_ref < min_boots ? cv->n_ref : min_boots;
		min_boots = cv->n < min_boots ? cv->n : min_boots;
	}
	fputc('\n', md);
	if (m == WALL && tested) {
		double best = stats_permutation_min_p(min_boots, min_boots);
		fprintf(md, "With %zu boots a side the permutation p is at least %.3g; Holm across the "
			    "%d tested cases multiplies the smallest by %d: %.3g%s.\n\n",
			min_boots, best, tested, tested, fmin(1, best * tested),
			best * tested < 0.05 ? "" : ", so no case can be proven with this many boots");
		write_wall_unproven(md, v, tested);
	}
	if (differing_controls(NULL, m, v)) {
		fputs("**Warning: controls the series does not touch differ in this mode: ", md);
		differing_controls(md, m, v);
		double worst = 0;
		for (int i = 0; i < ncases; i++)
			if (has_mode(&cases[i], m) && is_control(&cases[i]) && v[i].proven)
				worst = fmax(worst, fabs(v[i].rel));
		fprintf(md, ".** That is the size of the systematic error of this mode on this run (host "
			    "load, boot order, emulation of two differently laid out kernels); a difference "
			    "of another case within ±%.1f %% cannot be told apart from it.\n\n",
			100 * worst);
		printf("%s mode: controls differ (", modes[m]);
		differing_controls(stdout, m, v);
		puts("): that mode's verdicts are suspect");
	} else {
		fprintf(md, "Controls (%s): no difference proven, as expected.\n\n",
			"floor, eventfd, transfer");
	}
	if (m == ICOUNT)
		write_icount_repeatability(md, v);
}

void write_micro(struct report *r)
{
	for (int m = 0; m < 2; m++) {
		int i = 0;
		while (i < ncases && !has_mode(&cases[i], m))
			i++;
		if (i < ncases)
			write_micro_mode(r, m);
		else
			fprintf(r->md, "## Per-ioctl cost, %s mode, Linux %s\n\nNot measured in this "
				       "run%s.\n\n", modes[m], r->fam,
				m == WALL ? ": wall-clock rounds are opt-in (`tools/report --wall-rounds 7`; "
					    "docs/bench.md says why)" : "");
	}
}
