#include "stats.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stats_sample_init(struct stats_sample *s)
{
	memset(s, 0, sizeof(*s));
}

int stats_sample_add(struct stats_sample *s, double x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		double *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
	s->sum += x;
	s->sum_sq += x * x;
	return 0;
}

void stats_sample_free(struct stats_sample *s)
{
	free(s->v);
	stats_sample_init(s);
}

/* Only the sign matters: the C library's qsort then orders ties (and -0 against
 * 0) exactly as it does for ministat, which shows in min, max and median. */
static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts, and fills all but the variance; the mean is ministat's Σy / n. */
static void summarize_common(struct stats_sample *s, struct stats_summary *out)
{
	stats_sort(s->v, s->n);
	out->n = s->n;
	out->min = s->n ? s->v[0] : NAN;
	out->max = s->n ? s->v[s->n - 1] : NAN;
	out->median = s->n ? s->v[s->n / 2] : NAN;
	out->mean = s->sum / (double)s->n;
}

void stats_sample_summarize(struct stats_sample *s, struct stats_summary *out)
{
	double shift = 0, sq = 0;

	summarize_common(s, out);
	/* The rounded mean can miss equal values by an ulp; adding the mean of
	 * the (exact) deviations lands on them, and the variance is then 0. */
	for (size_t i = 0; i < s->n; i++)
		shift += s->v[i] - out->mean;
	out->mean += shift / (double)s->n;
	for (size_t i = 0; i < s->n; i++)
		sq += (s->v[i] - out->mean) * (s->v[i] - out->mean);
	out->var = sq / ((double)s->n - 1);
	out->stddev = sqrt(out->var);
}

void stats_sample_summarize_ministat(struct stats_sample *s, struct stats_summary *out)
{
	double n = (double)s->n;

	summarize_common(s, out);
	out->var = (s->sum_sq - s->sum * s->sum / n) / (n - 1);
	out->stddev = sqrt(out->var);
}

void stats_summary_from_moments(size_t n, double mean, double stddev,
				struct stats_summary *out)
{
	out->n = n;
	out->min = NAN;
	out->max = NAN;
	out->median = NAN;
	out->mean = mean;
	out->var = stddev * stddev;
	out->stddev = stddev;
}

void stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), compare_doubles);
}

double stats_percentile(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return NAN;
	double rank = p / 100.0 * (double)n;
	/* p/100 is rarely exact (99.9 % of 1000 comes out as 999.0000000000001):
	 * forgive that much before rounding the rank up. */
	rank = ceil(rank - rank * 1e-12);
	if (rank < 1)
		return sorted[0];
	if (rank > (double)n)
		return sorted[n - 1];
	return sorted[(size_t)rank - 1];
}

void stats_percentiles(const double *sorted, size_t n, struct stats_percentiles *out)
{
	out->p50 = stats_percentile(sorted, n, 50);
	out->p95 = stats_percentile(sorted, n, 95);
	out->p99 = stats_percentile(sorted, n, 99);
	out->p999 = stats_percentile(sorted, n, 99.9);
}

int stats_histogram_init(struct stats_histogram *h, double from, double width, size_t n_buckets)
{
	*h = (struct stats_histogram){ .from = from, .width = width, .n_buckets = n_buckets };
	h->counts = calloc(n_buckets ? n_buckets : 1, sizeof(*h->counts));
	return h->counts ? 0 : -1;
}

void stats_histogram_add(struct stats_histogram *h, double x)
{
	double b = floor((x - h->from) / h->width);
	if (b < 0)
		h->under++;
	else if (!(b < (double)h->n_buckets))
		h->over++;
	else
		h->counts[(size_t)b]++;
}

int stats_histogram_merge(struct stats_histogram *dst, const struct stats_histogram *src)
{
	if (src->from != dst->from || src->width != dst->width || src->n_buckets != dst->n_buckets)
		return -1;
	for (size_t i = 0; i < dst->n_buckets; i++)
		dst->counts[i] += src->counts[i];
	dst->under += src->under;
	dst->over += src->over;
	return 0;
}

int stats_histogram(const double *v, size_t n, double from, double width, size_t n_buckets,
		    struct stats_histogram *h)
{
	if (stats_histogram_init(h, from, width, n_buckets) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		stats_histogram_add(h, v[i]);
	return 0;
}

void stats_histogram_free(struct stats_histogram *h)
{
	free(h->counts);
	h->counts = NULL;
}

double stats_median(const double *sorted, size_t n)
{
	if (n == 0)
		return NAN;
	return (sorted[(n - 1) / 2] + sorted[n / 2]) / 2;
}

/* Lentz's method divides by these; keep them away from zero. */
static double lentz_guard(double v)
{
	return fabs(v) < 1e-300 ? 1e-300 : v;
}

/* Continued fraction of the regularized incomplete beta function (modified
 * Lentz); it converges quickly for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
	double c = 1, d = 1 / lentz_guard(1 - (a + b) * x / (a + 1));
	double h = d;

	for (int m = 1; m <= 100000; m++) {
		double even = m * (b - m) * x / ((a + 2.0 * m - 1) * (a + 2.0 * m));
		double odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1));

		d = 1 / lentz_guard(1 + even * d);
		c = lentz_guard(1 + even / c);
		h *= d * c;
		d = 1 / lentz_guard(1 + odd * d);
		c = lentz_guard(1 + odd / c);
		h *= d * c;
		if (fabs(d * c - 1) < 1e-15)
			break;
	}
	return h;
}

/* ln Γ(a + b) − ln Γ(a) for a ≥ b. The difference of lgamma()s loses digits
 * when a is large (Welch's df can be huge); the difference of the Stirling
 * series keeps them. */
static double log_gamma_ratio(double a, double b)
{
	if (a < 1e4)
		return lgamma(a + b) - lgamma(a);
	double c = a + b;

	return (a - 0.5) * log1p(b / a) + b * log(c) - b + (1 / c - 1 / a) / 12 -
	       (1 / (c * c * c) - 1 / (a * a * a)) / 360;
}

/* ln of x, given also x1 = 1 − x: whichever is exact near 1 is used. */
static double log_given_complement(double x, double x1)
{
	return x > 0.5 ? log1p(-x1) : log(x);
}

/* I_x(a, b); x1 = 1 − x is passed separately so that it keeps its precision
 * when x is close to 1. */
static double incomplete_beta(double a, double b, double x, double x1)
{
	if (x <= 0)
		return 0;
	if (x1 <= 0)
		return 1;
	double log_beta = lgamma(fmin(a, b)) - log_gamma_ratio(fmax(a, b), fmin(a, b));
	double front = exp(a * log_given_complement(x, x1) + b * log_given_complement(x1, x) -
			   log_beta);

	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, x1) / b;
}

double stats_t_two_sided_p(double t, double df)
{
	if (isnan(t) || isnan(df))
		return NAN;
	if (isinf(df))
		return erfc(fabs(t) / sqrt(2));
	if (isinf(t))
		return 0;
	double t2 = t * t;

	return incomplete_beta(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

/* The t ≥ 0 with P(|T| ≥ t) = tail, by bisection: the tail is decreasing
 * in t, and bisection needs no derivative to be robust at any df. */
static double two_sided_critical(double tail, double df)
{
	double lo = 0, hi = 1;

	while (stats_t_two_sided_p(hi, df) > tail)
		hi *= 2;
	for (int i = 0; i < 200 && lo < hi; i++) {
		double mid = lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			break;
		if (stats_t_two_sided_p(mid, df) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return lo + (hi - lo) / 2;
}

double stats_t_quantile(double p, double df)
{
	if (isnan(p) || isnan(df) || p < 0 || p > 1 || df <= 0)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p == 0.5)
		return 0;
	double t = two_sided_critical(2 * (p < 0.5 ? p : 1 - p), df);

	return p < 0.5 ? -t : t;
}

double stats_normal_quantile(double p)
{
	return stats_t_quantile(p, INFINITY);
}

/* The levels ministat offers and the two-sided coverage its table really uses
 * for each: the last column was computed for 99.8 %, not 99.5 %. */
static int ministat_level(double conf, double *coverage)
{
	static const double levels[] = { 80, 90, 95, 98, 99, 99.5 };
	static const double coverages[] = { 80, 90, 95, 98, 99, 99.8 };

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (conf == levels[i]) {
			*coverage = coverages[i];
			return 0;
		}
	}
	return -EINVAL;
}

bool stats_ministat_level_supported(double conf)
{
	double coverage;

	return ministat_level(conf, &coverage) == 0;
}

double stats_ministat_t(double conf, unsigned nu)
{
	/* ministat's table departs from the rounded quantile in six cells, all in
	 * its last column: nu = 7..12 read 4.782 4.499 4.296 4.143 4.024 3.929
	 * where the 99.8 % quantiles round to 4.785 4.501 4.297 4.144 4.025 3.930.
	 * Found by running ministat on crafted inputs (tests/unit/ministat-compare.py
	 * checks every cell); kept so that printed intervals match. */
	static const double last_column_7_to_12[] = { 4.782, 4.499, 4.296, 4.143, 4.024, 3.929 };
	double coverage;

	if (ministat_level(conf, &coverage) < 0 || nu == 0)
		return NAN;
	if (coverage == 99.8 && nu >= 7 && nu <= 12)
		return last_column_7_to_12[nu - 7];
	double df = nu > 100 ? INFINITY : nu;

	return round(two_sided_critical(1 - coverage / 100, df) * 1000) / 1000;
}

int stats_student_ministat(const struct stats_summary *ref, const struct stats_summary *d,
			   double conf, struct stats_student *out)
{
	if (!stats_ministat_level_supported(conf) || ref->n + d->n < 3)
		return -EINVAL;
	out->conf = conf;
	out->nu = (unsigned)(ref->n + d->n - 2);
	out->t = stats_ministat_t(conf, out->nu);
	out->pooled_sd = sqrt(((d->n - 1.0) * d->var + (ref->n - 1.0) * ref->var) / out->nu);
	double s = out->pooled_sd * sqrt(1.0 / d->n + 1.0 / ref->n);

	out->diff = d->mean - ref->mean;
	out->err = out->t * s;
	out->pct_diff = out->diff * 100 / ref->mean;
	out->pct_err = out->err * 100 / ref->mean;
	out->significant = fabs(out->diff) > out->err;
	return 0;
}

int stats_welch(const struct stats_summary *ref, const struct stats_summary *d,
		double conf, struct stats_welch *out)
{
	if (ref->n < 2 || d->n < 2 || !(conf > 0 && conf < 100))
		return -EINVAL;
	double a = d->var / d->n, b = ref->var / ref->n;

	out->conf = conf;
	out->diff = d->mean - ref->mean;
	out->se = sqrt(a + b);
	if (out->se == 0) {
		out->df = (double)(ref->n + d->n - 2);
		out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
		out->p = out->diff == 0 ? 1 : 0;
		out->lo = out->hi = out->diff;
		return 0;
	}
	out->df = (a + b) * (a + b) / (a * a / (d->n - 1.0) + b * b / (ref->n - 1.0));
	out->t = out->diff / out->se;
	out->p = stats_t_two_sided_p(out->t, out->df);
	double half = two_sided_critical(1 - conf / 100, out->df) * out->se;

	out->lo = out->diff - half;
	out->hi = out->diff + half;
	return 0;
}

/* ln of each value into a fresh sample; -EDOM unless all are positive and finite. */
static int log_sample(const double *v, size_t n, struct stats_sample *out)
{
	stats_sample_init(out);
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0 && v[i] < INFINITY)) {
			stats_sample_free(out);
			return -EDOM;
		}
		if (stats_sample_add(out, log(v[i])) < 0) {
			stats_sample_free(out);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The ln values of both sides; -EDOM, -ENOMEM as log_sample(). */
static int log_samples(const double *ref, size_t n_ref, const double *d, size_t n,
		       struct stats_sample *lr, struct stats_sample *ld)
{
	int ret = log_sample(ref, n_ref, lr);

	if (ret < 0)
		return ret;
	ret = log_sample(d, n, ld);
	if (ret < 0)
		stats_sample_free(lr);
	return ret;
}

/* Two-pass summaries of the ln values of both sides; -EDOM, -ENOMEM as log_sample(). */
static int log_summaries(const double *ref, size_t n_ref, const double *d, size_t n,
			 struct stats_summary *sr, struct stats_summary *sd)
{
	struct stats_sample lr, ld;
	int ret = log_samples(ref, n_ref, d, n, &lr, &ld);

	if (ret < 0)
		return ret;
	stats_sample_summarize(&lr, sr);
	stats_sample_summarize(&ld, sd);
	stats_sample_free(&lr);
	stats_sample_free(&ld);
	return 0;
}

int stats_welch_log(const double *ref, size_t n_ref, const double *d, size_t n, double conf,
		    struct stats_welch_log *out)
{
	struct stats_summary sr, sd;
	int ret = log_summaries(ref, n_ref, d, n, &sr, &sd);

	if (ret < 0)
		return ret;
	ret = stats_welch(&sr, &sd, conf, &out->log);
	if (ret < 0)
		return ret;
	out->rel = expm1(out->log.diff);
	out->rel_lo = expm1(out->log.lo);
	out->rel_hi = expm1(out->log.hi);
	return 0;
}

double stats_pooled_log_sd(const double *ref, size_t n_ref, const double *d, size_t n)
{
	struct stats_summary sr, sd;

	if (n_ref < 2 || n < 2 || log_summaries(ref, n_ref, d, n, &sr, &sd) < 0)
		return NAN;
	return sqrt(((n_ref - 1.0) * sr.var + (n - 1.0) * sd.var) / (double)(n_ref + n - 2));
}

bool stats_interval_excludes_zero(double lo, double hi)
{
	return isfinite(lo) && isfinite(hi) && ((lo > 0 && hi > 0) || (lo < 0 && hi < 0));
}

const char *stats_format_p(char *buf, size_t len, double p, bool exact)
{
	if (exact)
		snprintf(buf, len, "exact");
	else if (isnan(p))
		snprintf(buf, len, "–");
	else if (p < 1e-300)
		snprintf(buf, len, "< 1e-300");
	else
		snprintf(buf, len, "%.3g", p);
	return buf;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

void stats_rng_seed(struct stats_rng *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t stats_rng_next(struct stats_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t stats_rng_below(struct stats_rng *rng, uint64_t bound)
{
	/* Reject the top partial block of 2^64 so that every residue is equally likely. */
	uint64_t limit = -bound % bound;
	uint64_t x;

	do
		x = stats_rng_next(rng);
	while (x < limit);
	return x % bound;
}

/* The median of one resample of sorted[], found by counting how often each
 * index is drawn: sorted[] is ordered, so the middle draws by index are the
 * middle values, and no resample needs sorting. counts has n slots. */
static double resampled_median(const double *sorted, size_t n, size_t *counts,
			       struct stats_rng *rng)
{
	memset(counts, 0, n * sizeof(*counts));
	for (size_t i = 0; i < n; i++)
		counts[stats_rng_below(rng, n)]++;

	size_t lower_rank = (n - 1) / 2, upper_rank = n / 2, seen = 0;
	double lower = NAN;
	for (size_t i = 0; i < n; i++) {
		seen += counts[i];
		if (isnan(lower) && seen > lower_rank)
			lower = sorted[i];
		if (seen > upper_rank)
			return (lower + sorted[i]) / 2;
	}
	return lower;
}

static int percentile_interval(double *draws, unsigned b, double conf, double estimate,
			       struct stats_interval *out)
{
	stats_sort(draws, b);
	out->estimate = estimate;
	out->lo = stats_percentile(draws, b, (100 - conf) / 2);
	out->hi = stats_percentile(draws, b, 100 - (100 - conf) / 2);
	return 0;
}

int stats_bootstrap_median(const double *sorted, size_t n, unsigned b, double conf,
			   struct stats_rng *rng, struct stats_interval *out)
{
	return stats_bootstrap_median_diff(NULL, 0, sorted, n, b, conf, rng, out);
}

/* A NULL ref makes this the one-sample bootstrap of median(d). */
int stats_bootstrap_median_diff(const double *ref, size_t n_ref, const double *d, size_t n,
				unsigned b, double conf, struct stats_rng *rng,
				struct stats_interval *out)
{
	if (n == 0 || (ref && n_ref == 0) || b == 0 || !(conf > 0 && conf < 100))
		return -EINVAL;
	double *draws = malloc(b * sizeof(*draws));
	size_t *counts = malloc((n > n_ref ? n : n_ref) * sizeof(*counts));
	int ret = -ENOMEM;

	if (draws && counts) {
		for (unsigned i = 0; i < b; i++) {
			draws[i] = resampled_median(d, n, counts, rng);
			if (ref)
				draws[i] -= resampled_median(ref, n_ref, counts, rng);
		}
		double estimate = stats_median(d, n) - (ref ? stats_median(ref, n_ref) : 0);

		ret = percentile_interval(draws, b, conf, estimate, out);
	}
	free(counts);
	free(draws);
	return ret;
}

int stats_mann_whitney(const double *ref, size_t n_ref, const double *d, size_t n,
		       struct stats_mann_whitney *out)
{
	if (n_ref == 0 || n == 0)
		return -EINVAL;
	/* Walk both sorted samples together, one group of equal values at a
	 * time: each gets the average of the ranks it spans. */
	double rank_sum = 0, ties = 0, next_rank = 1;
	size_t i = 0, j = 0;

	while (i < n_ref || j < n) {
		double v = j == n || (i < n_ref && ref[i] < d[j]) ? ref[i] : d[j];
		size_t in_ref = 0, in_d = 0;

		while (i < n_ref && ref[i] == v)
			i++, in_ref++;
		while (j < n && d[j] == v)
			j++, in_d++;
		double group = (double)(in_ref + in_d);

		rank_sum += in_d * (next_rank + (group - 1) / 2);
		ties += group * group * group - group;
		next_rank += group;
	}
	double nr = (double)n_ref, nd = (double)n, total = nr + nd;
	double mean = nr * nd / 2;
	double var = nr * nd / 12 * ((total + 1) - ties / (total * (total - 1)));

	out->u = rank_sum - nd * (nd + 1) / 2;
	double excess = fabs(out->u - mean) - 0.5;

	if (!(var > 0) || excess <= 0) {
		out->z = 0;
		out->p = 1;
		return 0;
	}
	out->z = copysign(excess / sqrt(var), out->u - mean);
	out->p = erfc(fabs(out->z) / sqrt(2));
	return 0;
}

int stats_hodges_lehmann(const double *ref, size_t n_ref, const double *d, size_t n,
			 double conf, struct stats_interval *out)
{
	if (n_ref == 0 || n == 0 || !(conf > 0 && conf < 100))
		return -EINVAL;
	if (n_ref > STATS_HL_MAX_PAIRS / n)
		return -E2BIG;
	size_t pairs = n_ref * n;
	double *diffs = malloc(pairs * sizeof(*diffs));

	if (!diffs)
		return -ENOMEM;
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < n_ref; i++)
			diffs[j * n_ref + i] = d[j] - ref[i];
	stats_sort(diffs, pairs);

	double z = stats_normal_quantile(1 - (1 - conf / 100) / 2);
	double c = floor((double)pairs / 2 -
			 z * sqrt((double)pairs * (double)(n_ref + n + 1) / 12));
	/* c is the 1-based rank of the lower end; at least the extremes. */
	size_t k = c < 1 ? 0 : (size_t)c - 1;

	out->estimate = stats_median(diffs, pairs);
	out->lo = diffs[k];
	out->hi = diffs[pairs - 1 - k];
	free(diffs);
	return 0;
}

/* C(total, k), or 0 once it passes limit. */
static uint64_t binomial_up_to(size_t total, size_t k, uint64_t limit)
{
	uint64_t c = 1;

	if (k > total - k)
		k = total - k;
	/* c is C(total, i) here, and C(total, i) · (total − i) is
	 * C(total, i + 1) · (i + 1): the division is exact, and c ≤ limit
	 * keeps the product far from overflowing. */
	for (size_t i = 0; i < k; i++) {
		c = c * (total - i) / (i + 1);
		if (c > limit)
			return 0;
	}
	return c;
}

struct permutation {
	const double *x;	/* pooled values */
	size_t total;
	double k, rest;		/* sizes of the enumerated group and of the others */
	double sum_all;
	double threshold;	/* |T_obs| less the rounding allowance */
	uint64_t hits;
};

/* Every way of choosing left more members of the group from x[i..]: the loop
 * picks the next member, so the recursion is only as deep as the group is
 * large. */
static void permutation_walk(struct permutation *pm, size_t i, size_t left, double sum)
{
	if (left == 0) {
		double t = sum / pm->k - (pm->sum_all - sum) / pm->rest;

		pm->hits += fabs(t) >= pm->threshold;
		return;
	}
	for (; pm->total - i >= left; i++)
		permutation_walk(pm, i + 1, left - 1, sum + pm->x[i]);
}

int stats_permutation_test(const double *ref, size_t n_ref, const double *d, size_t n,
			   double *p)
{
	if (n_ref == 0 || n == 0)
		return -EINVAL;
	if (n_ref > STATS_PERMUTATION_MAX_SPLITS || n > STATS_PERMUTATION_MAX_SPLITS)
		return -E2BIG;
	uint64_t splits = binomial_up_to(n_ref + n, n, STATS_PERMUTATION_MAX_SPLITS);

	if (!splits)
		return -E2BIG;
	double *x = malloc((n_ref + n) * sizeof(*x));

	if (!x)
		return -ENOMEM;
	/* |mean(d) − mean(ref)| is also |mean(ref) − mean(d)|: enumerate
	 * the smaller group. */
	const double *group = n <= n_ref ? d : ref;
	size_t k = n <= n_ref ? n : n_ref;
	double sum_group = 0, sum_all = 0, largest = 0;

	memcpy(x, ref, n_ref * sizeof(*x));
	memcpy(x + n_ref, d, n * sizeof(*x));
	for (size_t i = 0; i < n_ref + n; i++) {
		sum_all += x[i];
		largest = fmax(largest, fabs(x[i]));
	}
	for (size_t i = 0; i < k; i++)
		sum_group += group[i];

	struct permutation pm = {
		.x = x,
		.total = n_ref + n,
		.k = (double)k,
		.rest = (double)(n_ref + n - k),
		.sum_all = sum_all,
	};
	/* Splits whose statistic equals the observed one in exact arithmetic
	 * (the observed split's mirror image, for one) differ from it by the
	 * rounding of sums taken in another order; 1e-9 of the largest value
	 * covers that and is far below any difference worth reporting. */
	pm.threshold = fabs(sum_group / pm.k - (sum_all - sum_group) / pm.rest) - 1e-9 * largest;
	permutation_walk(&pm, 0, k, 0);
	free(x);
	*p = (double)pm.hits / (double)splits;
	return 0;
}

double stats_permutation_min_p(size_t n_ref, size_t n)
{
	double splits = 1;

	/* C(n_ref + n, n) as a product of ratios, each step exact enough. */
	for (size_t i = 1; i <= n; i++)
		splits = splits * (double)(n_ref + i) / (double)i;
	return (n_ref == n ? 2 : 1) / splits;
}

int stats_holm(const double *p, size_t m, double *adjusted)
{
	size_t *order, tested = 0;

	if (m == 0)
		return 0;
	order = malloc(m * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		if (!isnan(p[i]))
			order[tested++] = i;
	/* Insertion sort by p: m is the number of cases of one report table. */
	for (size_t i = 1; i < tested; i++)
		for (size_t j = i; j > 0 && p[order[j - 1]] > p[order[j]]; j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	double running = 0;

	for (size_t j = 0; j < tested; j++) {
		/* The j-th smallest is tested at α / (tested − j); step-down: once
		 * one is kept, all larger ones are too, hence the running max. */
		running = fmax(running, fmin(1, (double)(tested - j) * p[order[j]]));
		adjusted[order[j]] = running;
	}
	for (size_t i = 0; i < m; i++)
		if (isnan(p[i]))
			adjusted[i] = NAN;
	free(order);
	return 0;
}

/* max − min of unsorted values. */
static double spread_of(const double *v, size_t n)
{
	double lo = v[0], hi = v[0];

	for (size_t i = 1; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return hi - lo;
}

/* The median of unsorted values (stats_median on a sorted copy). */
static int median_of(const double *v, size_t n, double *out)
{
	double *sorted = malloc(n * sizeof(*sorted));

	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, v, n * sizeof(*sorted));
	stats_sort(sorted, n);
	*out = stats_median(sorted, n);
	free(sorted);
	return 0;
}

static void boots_missing(struct stats_boot_verdict *v, size_t needed)
{
	if (v->n_ref == v->n)
		snprintf(v->verdict, sizeof(v->verdict),
			 "No difference proven (%zu boot%s a side; ≥ %zu needed)", v->n,
			 v->n == 1 ? "" : "s", needed);
	else
		snprintf(v->verdict, sizeof(v->verdict),
			 "No difference proven (%zu vs %zu boots; ≥ %zu a side needed)", v->n_ref,
			 v->n, needed);
}

static void boot_spread_decide(struct stats_boot_verdict *v)
{
	double allowed = 3 * fmax(v->spread_ref, v->spread);

	v->tested = v->n_ref >= 2 && v->n >= 2;
	v->proven = v->tested && fabs(v->diff) > allowed;
	if (!v->tested)
		boots_missing(v, 2);
	else if (v->proven)
		snprintf(v->verdict, sizeof(v->verdict), "%+.2f %%%s", 100 * v->rel,
			 v->exact ? " (exact)" : "");
	else if (v->exact)
		snprintf(v->verdict, sizeof(v->verdict), "No difference proven (exact)");
	else
		snprintf(v->verdict, sizeof(v->verdict), "No difference proven (Δ within 3 × spread)");
}

static void boot_test_decide(struct stats_boot_verdict *v)
{
	v->proven = v->tested && stats_interval_excludes_zero(v->rel_lo, v->rel_hi) &&
		    v->p_adj < 0.05;
	if (!v->tested)
		boots_missing(v, STATS_MIN_BOOTS);
	else if (v->proven)
		snprintf(v->verdict, sizeof(v->verdict), "%+.2f %%", 100 * v->rel);
	else
		snprintf(v->verdict, sizeof(v->verdict), "No difference proven");
}

int stats_boot_compare(const double *ref, size_t n_ref, const double *d, size_t n,
		       enum stats_boot_rule rule, struct stats_boot_verdict *out)
{
	struct stats_sample lr, ld;
	struct stats_welch_log w = { .log.p = NAN };
	int ret;

	if (n_ref == 0 || n == 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->rule = rule;
	out->n_ref = n_ref;
	out->n = n;
	out->rel_lo = out->rel_hi = out->p = out->p_adj = NAN;
	if ((ret = median_of(ref, n_ref, &out->median_ref)) < 0 ||
	    (ret = median_of(d, n, &out->median)) < 0)
		return ret;
	out->diff = out->median - out->median_ref;
	out->spread_ref = spread_of(ref, n_ref);
	out->spread = spread_of(d, n);
	out->exact = out->spread_ref == 0 && out->spread == 0;
	out->cv = stats_pooled_log_sd(ref, n_ref, d, n);
	if (rule == STATS_BOOT_SPREAD) {
		out->rel = out->diff / out->median_ref;
		boot_spread_decide(out);
		return 0;
	}

	if ((ret = log_samples(ref, n_ref, d, n, &lr, &ld)) < 0)
		return ret;
	/* The ratio of the geometric means, as Welch's t on ln values estimates it. */
	out->rel = expm1(ld.sum / (double)n - lr.sum / (double)n_ref);
	if (stats_welch_log(ref, n_ref, d, n, 95, &w) == 0) {
		out->rel_lo = w.rel_lo;
		out->rel_hi = w.rel_hi;
	}
	ret = stats_permutation_test(lr.v, n_ref, ld.v, n, &out->p);
	/* Past the enumerable sizes (12 a side) the t distribution is a fair
	 * approximation, and Welch's p stands in. */
	if (ret == -E2BIG) {
		out->p = w.log.p;
		ret = 0;
	}
	stats_sample_free(&lr);
	stats_sample_free(&ld);
	if (ret < 0)
		return ret;
	out->tested = n_ref >= STATS_MIN_BOOTS && n >= STATS_MIN_BOOTS;
	out->p_adj = out->tested ? out->p : NAN;
	boot_test_decide(out);
	return 0;
}

int stats_boot_holm(struct stats_boot_verdict *v, size_t m)
{
	double *p;
	int ret;

	if (m == 0)
		return 0;
	p = malloc(m * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		p[i] = v[i].rule == STATS_BOOT_TEST && v[i].tested ? v[i].p : NAN;
	ret = stats_holm(p, m, p);
	for (size_t i = 0; ret == 0 && i < m; i++) {
		if (isnan(p[i]))
			continue;
		v[i].p_adj = p[i];
		boot_test_decide(&v[i]);
	}
	free(p);
	return ret;
}

/* 2 ((t_{0.975} + t_{0.8}) · cv / effect)² at df = 2n − 2: the boots that
 * n boots a side say are needed. */
static double boots_for(double ratio, double n, double alpha)
{
	double df = 2 * n - 2;
	double k = (stats_t_quantile(1 - alpha / 2, df) + stats_t_quantile(0.8, df)) * ratio;

	return 2 * k * k;
}

int stats_boots_needed(double cv, double effect, double alpha)
{
	if (!(cv >= 0 && cv < INFINITY && effect > 0 && effect < INFINITY && alpha > 0 &&
	      alpha < 1))
		return -EDOM;
	double ratio = cv / effect;
	double z = (stats_normal_quantile(1 - alpha / 2) + stats_normal_quantile(0.8)) * ratio;
	double n = ceil(2 * z * z);

	if (n > INT_MAX)
		return -ERANGE;
	/* Below this many boots the permutation test cannot reach alpha, however
	 * clear the difference. */
	double floor_n = STATS_MIN_BOOTS;
	while (stats_permutation_min_p((size_t)floor_n, (size_t)floor_n) >= alpha)
		floor_n++;
	/* The t quantiles exceed the normal ones, so the answer is at least
	 * the normal estimate; iterating n ← f(n) can cycle between two
	 * values, so walk up to the smallest n that satisfies itself. */
	if (n < floor_n)
		n = floor_n;
	while (boots_for(ratio, n, alpha) > n) {
		if (++n > INT_MAX)
			return -ERANGE;
	}
	return (int)n;
}

int stats_linear_fit(const double *x, const double *y, size_t n, double conf,
		     struct stats_linear_fit *out)
{
	if (n < 3)
		return -EINVAL;
	double mx = 0, my = 0;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	double sxx = 0, sxy = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (!(sxx > 0))
		return -EINVAL;
	*out = (struct stats_linear_fit){ .n = n, .slope = sxy / sxx };
	out->intercept = my - out->slope * mx;
	double ssr = 0, lag = 0, prev = 0;
	for (size_t i = 0; i < n; i++) {
		double e = y[i] - out->intercept - out->slope * x[i];
		ssr += e * e;
		if (i > 0)
			lag += e * prev;
		prev = e;
	}
	out->r2 = syy > 0 ? 1 - ssr / syy : 1;
	out->r1 = ssr > 0 ? lag / ssr : 0;
	double r = out->r1 > 0 ? out->r1 : 0;
	out->n_eff = r < 1 ? (double)n * (1 - r) / (1 + r) : 0;
	out->se = r < 1 ? sqrt(ssr / (double)(n - 2) / sxx * (1 + r) / (1 - r)) : INFINITY;
	if (out->n_eff > 2) {
		double t = stats_t_quantile(0.5 + conf / 200, out->n_eff - 2);
		out->lo = out->slope - t * out->se;
		out->hi = out->slope + t * out->se;
	} else {
		out->lo = -INFINITY;
		out->hi = INFINITY;
	}
	return 0;
}
