/* Statistics for benchmark results: ministat's descriptive statistics and
 * Student's t comparison reproduced to the printed digit, plus the sturdier
 * companions (Welch's t, bootstrap, Mann-Whitney U, Hodges-Lehmann).
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

/* A growing sample. The sums are accumulated in insertion order: the one-pass
 * variance is order-sensitive, and ministat sums in input order. */
struct stats_sample {
	double *v;
	size_t n;
	size_t cap;
	double sum;
	double sum_sq;
};

/* ministat's definitions, so that printed digits match. */
struct stats_summary {
	size_t n;
	double min;
	double max;
	double median;	/* v[n / 2] after sorting: the upper median for even n */
	double mean;
	double var;	/* (Σy² − (Σy)²/n) / (n − 1) */
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
/* Sorts s->v in place (ascending, same order as ministat's qsort) and fills out. */
void stats_sample_summarize(struct stats_sample *s, struct stats_summary *out);

/* For results known only as N, average and standard deviation (for example
 * from a cover letter): min, max and median are NaN. */
void stats_summary_from_moments(size_t n, double mean, double stddev,
				struct stats_summary *out);

double stats_percentile(const double *sorted, size_t n, double p);
void stats_percentiles(const double *sorted, size_t n, struct stats_percentiles *out);
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

#endif
