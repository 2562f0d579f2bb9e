/* Statistics for benchmark results: ministat's descriptive statistics and
 * Student's t comparison reproduced to the printed digit, the sturdier
 * companions (Welch's t, bootstrap, Mann-Whitney U, Hodges-Lehmann), and the
 * per-boot verdicts of the A/B report (permutation test, Holm, power).
 *
 * Conventions:
 * - Confidence levels are percentages (95 means 95 %), as ministat's -c.
 * - Arrays of values passed to the percentile, median, bootstrap and
 *   Mann-Whitney functions must be sorted in ascending order.
 * - Functions returning int give 0 or a negative errno value.
 * - No function keeps state between calls; randomness comes only from a
 *   caller-owned struct stats_rng.
 */
#ifndef SYNCWAY_STATS_H
#define SYNCWAY_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growing sample. The sums are accumulated in insertion order: ministat's
 * one-pass variance is order-sensitive, and ministat sums in input order. */
struct stats_sample {
	double *v;
	size_t n;
	size_t cap;
	double sum;
	double sum_sq;
};

/* ministat's definitions, so that printed digits match; mean and var depend
 * on which summarize function filled it. */
struct stats_summary {
	size_t n;
	double min;
	double max;
	double median;	/* v[n / 2] after sorting: the upper median for even n */
	double mean;	/* Σy / n (two-pass: with its rounding corrected) */
	double var;	/* Σ(y − mean)² / (n − 1), or ministat's one-pass form */
	double stddev;	/* √var */
};

/* Nearest-rank percentiles: the smallest value with at least p % of the
 * sample at or below it (so p50 is the lower median for even n). */
struct stats_percentiles {
	double p50;
	double p95;
	double p99;
	double p999;
};

void stats_sample_init(struct stats_sample *s);
int stats_sample_add(struct stats_sample *s, double x);
void stats_sample_free(struct stats_sample *s);
/* Sorts s->v in place (ascending, same order as ministat's qsort) and fills
 * out, with the variance from two passes (the mean first, corrected by the
 * mean deviation, then Σ(y − mean)²): equal values give exactly 0. */
void stats_sample_summarize(struct stats_sample *s, struct stats_summary *out);
/* The same with ministat's mean Σy / n and one-pass variance
 * (Σy² − (Σy)²/n) / (n − 1), for syncway-ministat's byte compatibility only:
 * on nearly equal values it cancels, even below 0 (three times 14315.7
 * gives a NaN stddev). */
void stats_sample_summarize_ministat(struct stats_sample *s, struct stats_summary *out);

/* For results known only as N, average and standard deviation (for example
 * from a cover letter): min, max and median are NaN. */
void stats_summary_from_moments(size_t n, double mean, double stddev,
				struct stats_summary *out);

/* Ascending, in the order stats_sample_summarize() leaves s->v. */
void stats_sort(double *v, size_t n);

double stats_percentile(const double *sorted, size_t n, double p);
void stats_percentiles(const double *sorted, size_t n, struct stats_percentiles *out);
/* Fixed-width histogram: counts[i] is the number of values in
 * [from + i * width, from + (i + 1) * width) for i < n_buckets; values below
 * from go to under, values at or past the last bucket's end (and NaNs) to
 * over. Any order of v. */
struct stats_histogram {
	double from, width;
	size_t n_buckets;
	uint64_t *counts;
	uint64_t under, over;
};
/* Fills h (counts allocated, n_buckets of them); -1 when out of memory. */
int stats_histogram(const double *v, size_t n, double from, double width, size_t n_buckets,
		    struct stats_histogram *h);
/* The same one value at a time: an empty h (-1 when out of memory), then
 * each value added; merge adds src's counts to dst's (-1 unless both have
 * the same buckets). */
int stats_histogram_init(struct stats_histogram *h, double from, double width, size_t n_buckets);
void stats_histogram_add(struct stats_histogram *h, double x);
int stats_histogram_merge(struct stats_histogram *dst, const struct stats_histogram *src);
void stats_histogram_free(struct stats_histogram *h);

/* The usual median: the mean of the two middle values for even n. The
 * robust methods below use this one, not ministat's upper median. */
double stats_median(const double *sorted, size_t n);

/* Distributions. df may be INFINITY (the standard normal). */
double stats_normal_quantile(double p);
double stats_t_quantile(double p, double df);
/* P(|T| ≥ |t|), accurate far into the tail. */
double stats_t_two_sided_p(double t, double df);

/* ministat's -c levels are 80, 90, 95, 98, 99 and 99.5. */
bool stats_ministat_level_supported(double conf);
/* The critical t that ministat uses: its table holds the two-sided quantile
 * rounded to three decimals, for nu ≤ 100, and the normal one beyond. Its
 * "99.5" column actually holds two-sided 99.8 % values, six of them a little
 * off; both quirks are reproduced. NaN for other levels or nu = 0. */
double stats_ministat_t(double conf, unsigned nu);

struct stats_student {
	double conf;
	unsigned nu;		/* n_ref + n − 2 */
	double t;		/* critical value from ministat's table */
	double diff;		/* mean − mean_ref */
	double err;		/* t · s_pooled · √(1/n + 1/n_ref) */
	double pct_diff;	/* relative to mean_ref, in % */
	double pct_err;
	double pooled_sd;
	bool significant;	/* |diff| > err: ministat's "Difference at" */
};

/* ministat's comparison of d against ref, from summaries alone (so it also
 * takes stats_summary_from_moments()); -EINVAL for a level ministat lacks or
 * for no degree of freedom (n_ref + n < 3). */
int stats_student_ministat(const struct stats_summary *ref, const struct stats_summary *d,
			   double conf, struct stats_student *out);

struct stats_welch {
	double conf;
	double diff;	/* mean − mean_ref */
	double se;	/* √(var/n + var_ref/n_ref) */
	double df;	/* Welch–Satterthwaite */
	double t;	/* diff / se */
	double p;	/* two-sided */
	double lo;	/* confidence interval of diff */
	double hi;
};

/* Welch's unequal-variances t test; needs n ≥ 2 on both sides. When both
 * variances are zero the interval collapses to diff and p is 0 or 1. */
int stats_welch(const struct stats_summary *ref, const struct stats_summary *d,
		double conf, struct stats_welch *out);

struct stats_welch_log {
	struct stats_welch log;	/* on ln values: log.diff = ln(geomean d / geomean ref) */
	double rel;		/* exp(log.diff) − 1: the relative difference */
	double rel_lo;		/* exp(log.lo) − 1 */
	double rel_hi;		/* exp(log.hi) − 1 */
};

/* Welch's t on the logarithms of two raw samples (any order), for ratios and
 * rates, where a difference is relative. -EDOM for a value that is not
 * positive and finite, -EINVAL as stats_welch(). */
int stats_welch_log(const double *ref, size_t n_ref, const double *d, size_t n, double conf,
		    struct stats_welch_log *out);

/* The pooled standard deviation of the ln values of both samples (any
 * order), √(((n_ref − 1) s²_ref + (n − 1) s²) / (n_ref + n − 2)): close to
 * the relative sd (coefficient of variation) of one value while that is
 * small, and the cv that stats_boots_needed() takes. NaN with fewer than 2
 * values a side or a value that is not positive and finite. */
double stats_pooled_log_sd(const double *ref, size_t n_ref, const double *d, size_t n);

/* True only when both ends are finite and on the same side of 0, so that an
 * interval of NaNs (or one touching 0) never counts as a difference. */
bool stats_interval_excludes_zero(double lo, double hi);

/* Formats p for a report into buf and returns buf: "exact" when the test was
 * degenerate because both samples have no spread, "–" for NaN (no test),
 * "< 1e-300" when p underflowed to 0, else %.3g. */
const char *stats_format_p(char *buf, size_t len, double p, bool exact);

/* Exact two-sided permutation test of mean(d) − mean(ref) (any order): every
 * split of the pooled values into groups of n_ref and n is enumerated, and
 * p = #(|T| ≥ |T_obs|, up to rounding) / #splits: at 3 a side p ≥ 0.1, at 4
 * p ≥ 0.029. -E2BIG beyond STATS_PERMUTATION_MAX_SPLITS splits (12 a side
 * fit). */
#define STATS_PERMUTATION_MAX_SPLITS (1u << 22)
int stats_permutation_test(const double *ref, size_t n_ref, const double *d, size_t n,
			   double *p);
/* The smallest p stats_permutation_test() can give for these sizes, with
 * all values distinct: 2 / C(n_ref + n, n) for equal sizes (the observed
 * split and its mirror image), else 1 / C(n_ref + n, n). */
double stats_permutation_min_p(size_t n_ref, size_t n);

/* Holm's step-down adjustment of m p-values: adjusted[i] is monotone in
 * p[i], capped at 1, and a hypothesis is rejected at family-wise level α
 * when adjusted[i] < α. NaN p-values (no test) stay NaN and do not count in
 * m. adjusted may be p. */
int stats_holm(const double *p, size_t m, double *adjusted);

/* xoshiro256** seeded through splitmix64: fast, and the same stream for
 * the same seed on every platform. */
struct stats_rng {
	uint64_t s[4];
};

void stats_rng_seed(struct stats_rng *rng, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *rng);
/* Uniform in [0, bound), without modulo bias; bound > 0. */
uint64_t stats_rng_below(struct stats_rng *rng, uint64_t bound);

struct stats_interval {
	double estimate;
	double lo;
	double hi;
};

/* Percentile bootstrap with b resamples; the interval ends are nearest-rank
 * percentiles of the resampled medians (stats_median). */
int stats_bootstrap_median(const double *sorted, size_t n, unsigned b, double conf,
			   struct stats_rng *rng, struct stats_interval *out);
/* Of median(d) − median(ref), resampling both independently. */
int stats_bootstrap_median_diff(const double *ref, size_t n_ref, const double *d, size_t n,
				unsigned b, double conf, struct stats_rng *rng,
				struct stats_interval *out);

struct stats_mann_whitney {
	double u;	/* pairs with d > ref, ties counting ½ */
	double z;	/* continuity-corrected */
	double p;	/* two-sided, normal approximation with tie correction */
};

int stats_mann_whitney(const double *ref, size_t n_ref, const double *d, size_t n,
		       struct stats_mann_whitney *out);

/* Hodges–Lehmann shift of d against ref: the median of all pairwise
 * differences d_j − ref_i, with the distribution-free interval from their
 * order statistics (normal approximation of the rank-sum quantile, rounded
 * outwards). -E2BIG above STATS_HL_MAX_PAIRS pairs. */
#define STATS_HL_MAX_PAIRS (1u << 24)
int stats_hodges_lehmann(const double *ref, size_t n_ref, const double *d, size_t n,
			 double conf, struct stats_interval *out);

/* The A/B verdict, with the boot as the unit: one value per boot and kernel
 * (samples within one boot are correlated, so they measure the precision
 * within a boot, not a difference between kernels). */

/* The fewest boots a side with which the permutation test can reach
 * p < 0.05 (2 / C(8, 4) = 0.029; 3 a side give at best 0.1). */
#define STATS_MIN_BOOTS 4

enum stats_boot_rule {
	/* For values that repeat between boots, as under the instruction clock:
	 * a difference when |Δ median| > 3 × the larger within-kernel spread
	 * (max − min of a kernel's per-boot values); needs 2 boots a side. */
	STATS_BOOT_SPREAD,
	/* For everything else: Welch's t on ln values, and the exact
	 * permutation test on the same ln values; a difference when Welch's
	 * 95 % interval excludes 0 and the (Holm-adjusted) permutation p is
	 * below 0.05; needs STATS_MIN_BOOTS a side. */
	STATS_BOOT_TEST,
};

struct stats_boot_verdict {
	enum stats_boot_rule rule;
	size_t n_ref, n;		/* boots */
	double median_ref, median;	/* stats_median of the per-boot values */
	double diff;			/* median − median_ref */
	double rel;	/* SPREAD: diff / median_ref; TEST: ratio of geometric means − 1 */
	double rel_lo, rel_hi;		/* TEST: Welch's 95 % interval of rel, else NaN */
	double spread_ref, spread;	/* max − min of each kernel's values */
	double cv;	/* stats_pooled_log_sd(): the relative sd of one boot */
	double p;	/* TEST: permutation p on ln values; NaN for SPREAD */
	double p_adj;	/* Holm-adjusted p: p until stats_boot_holm(); NaN untested */
	bool exact;	/* no spread on either kernel */
	bool tested;	/* enough boots for the rule */
	bool proven;
	char verdict[80];	/* "+1.23 %" or "No difference proven (why)" */
};

/* Compares per-boot values d against ref (any order) under rule. -EINVAL for
 * an empty side, -EDOM for STATS_BOOT_TEST values that are not positive and
 * finite, -ENOMEM. */
int stats_boot_compare(const double *ref, size_t n_ref, const double *d, size_t n,
		       enum stats_boot_rule rule, struct stats_boot_verdict *out);
/* Holm across the tested STATS_BOOT_TEST verdicts of v (one family, e.g. the
 * cases of one mode): sets p_adj, proven and verdict; leaves the others. */
int stats_boot_holm(struct stats_boot_verdict *v, size_t m);

/* Boots per kernel for a two-sided Welch test at level alpha (0.05, or
 * 0.05 / m for the first step of Holm's correction across m cases) to detect
 * a relative difference effect with power 0.8, given the per-boot relative
 * sd cv (pooled over both kernels; both as fractions, 0.01 = 1 %): the
 * smallest n with n ≥ 2 ((t_{1−α/2} + t_{0.8}) cv / effect)², t at
 * df = 2n − 2, and never fewer than the permutation test needs to reach
 * alpha at all (STATS_MIN_BOOTS for 0.05). -EDOM for effect ≤ 0, cv < 0,
 * alpha outside (0, 1) or a value not finite; -ERANGE past INT_MAX. */
int stats_boots_needed(double cv, double effect, double alpha);

/* A least-squares line y = intercept + slope · x through n points (any
 * order of x), for a resource sampled over time (tools/soak): the residuals
 * of such a series follow each other (memory grows in pages and arenas, in
 * steps), so the slope's ordinary standard error is corrected for the lag-1
 * autocorrelation r of the residuals taken in the given order: the sample
 * counts as n_eff = n (1 − r) / (1 + r) points (n when r ≤ 0) and the
 * standard error grows by √((1 + r) / (1 − r)) (Santer et al. 2000, J.
 * Geophys. Res. 105, 7337). The conf % interval is slope ± t · se with
 * n_eff − 2 degrees of freedom, infinite when n_eff ≤ 2 (the samples are
 * too few or too alike to tell a slope from steps). -EINVAL for n < 3 or
 * all x equal. */
struct stats_linear_fit {
	size_t n;
	double slope, intercept;
	double r2;	/* of the fit; 1 when y has no spread */
	double r1;	/* lag-1 autocorrelation of the residuals; 0 when they are all 0 */
	double n_eff;
	double se;	/* of the slope, corrected */
	double lo, hi;	/* the conf % interval of the slope */
};

int stats_linear_fit(const double *x, const double *y, size_t n, double conf,
		     struct stats_linear_fit *out);

#endif
