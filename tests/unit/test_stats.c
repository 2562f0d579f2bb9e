/* Unit tests of the statistics library (common/stats.c): ministat's published vectors, the cover
 * letter's measurements, and small hand-checked cases for the rest. */
#include "harness.h"
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define assert_near(got, want, tol)                                              \
	do {                                                                     \
		double g_ = (got), w_ = (want);                                  \
		if (!(fabs(g_ - w_) <= (tol)))                                   \
			sw_fail("%s = %.17g, expected %.17g within %g", #got, g_, w_, \
				(double)(tol));                                  \
	} while (0)

/* The way ministat prints it, since "matches ministat" means equal digits. */
#define assert_printed(fmt, value, want)                                         \
	do {                                                                     \
		char got_[64];                                                   \
		snprintf(got_, sizeof(got_), fmt, value);                        \
		if (strcmp(got_, want) != 0)                                     \
			sw_fail("%s printed as %s, expected %s", #value, got_, want); \
	} while (0)

static void fill(const double *v, size_t n, struct stats_sample *s)
{
	stats_sample_init(s);
	for (size_t i = 0; i < n; i++)
		sw_assert_eq(stats_sample_add(s, v[i]), 0);
}

static void summarize(const double *v, size_t n, struct stats_sample *s,
		      struct stats_summary *out)
{
	fill(v, n, s);
	stats_sample_summarize(s, out);
}

static void summarize_ministat(const double *v, size_t n, struct stats_sample *s,
			       struct stats_summary *out)
{
	fill(v, n, s);
	stats_sample_summarize_ministat(s, out);
}

static const double iguana[] = { 50, 200, 150, 400, 750, 400, 150 };
static const double chameleon[] = { 150, 400, 720, 500, 930 };

static void check_student_lines(const struct stats_student *t, const char *diff, const char *err,
				const char *pct_diff, const char *pct_err, const char *pooled)
{
	sw_assert(t->significant);
	assert_printed("%g", t->diff, diff);
	assert_printed("%g", t->err, err);
	assert_printed("%g", t->pct_diff, pct_diff);
	assert_printed("%g", t->pct_err, pct_err);
	assert_printed("%g", t->pooled_sd, pooled);
}

static void test_ministat_vectors(void)
{
	static struct stats_sample x, p;
	static struct stats_summary sx, sp;
	struct stats_student t;

	sw_subtest("iguana-chameleon-summary") {
		summarize_ministat(iguana, 7, &x, &sx);
		summarize_ministat(chameleon, 5, &p, &sp);
		sw_assert_eq(sx.n, 7);
		sw_assert_eq(sp.n, 5);
		sw_assert(sx.median == 200 && sp.median == 500);
		sw_assert(sx.min == 50 && sx.max == 750 && sp.min == 150 && sp.max == 930);
		sw_assert(sx.mean == 300 && sp.mean == 540);
		assert_printed("%13.8g", sx.stddev, "    238.04761");
		assert_printed("%13.8g", sp.stddev, "    299.08193");
	}
	sw_subtest("iguana-chameleon-95-no-difference") {
		sw_assert_eq(stats_student_ministat(&sx, &sp, 95, &t), 0);
		sw_assert(!t.significant);
		sw_assert_eq(t.nu, 10);
		sw_assert(t.t == 2.228);
	}
	sw_subtest("iguana-chameleon-80-difference") {
		sw_assert_eq(stats_student_ministat(&sx, &sp, 80, &t), 0);
		check_student_lines(&t, "240", "212.215", "80", "70.7384", "264.159");
	}
	stats_sample_free(&x);
	stats_sample_free(&p);
}

static void test_cover_letter(void)
{
	struct stats_summary before, after;
	struct stats_student t;

	sw_subtest("steam-deck-from-moments") {
		stats_summary_from_moments(135, 22307.707, 198.75011, &before);
		stats_summary_from_moments(118, 22671.442, 192.10609, &after);
		sw_assert_eq(stats_student_ministat(&before, &after, 95, &t), 0);
		sw_assert(t.t == 1.96);
		check_student_lines(&t, "363.735", "48.3345", "1.63054", "0.216672", "195.681");
	}
	sw_subtest("alder-lake-from-moments") {
		stats_summary_from_moments(55, 7754.5195, 191.69526, &before);
		stats_summary_from_moments(55, 8150.6303, 105.84085, &after);
		sw_assert_eq(stats_student_ministat(&before, &after, 95, &t), 0);
		sw_assert(t.t == 1.96);	/* nu = 108: past the table */
		check_student_lines(&t, "396.111", "57.8717", "5.10813", "0.746296", "154.838");
	}
}

static void test_t_table(void)
{
	sw_subtest("ministat-levels") {
		static const double ok[] = { 80, 90, 95, 98, 99, 99.5 };

		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			sw_assert(stats_ministat_level_supported(ok[i]));
		sw_assert(!stats_ministat_level_supported(97));
		sw_assert(!stats_ministat_level_supported(99.8));
		sw_assert(isnan(stats_ministat_t(97, 10)));
		sw_assert(isnan(stats_ministat_t(95, 0)));
	}
	sw_subtest("ministat-table-cells") {
		sw_assert(stats_ministat_t(80, 4) == 1.533);
		sw_assert(stats_ministat_t(95, 10) == 2.228);
		sw_assert(stats_ministat_t(99, 30) == 2.75);
		sw_assert(stats_ministat_t(95, 100) == 1.984);
		sw_assert(stats_ministat_t(95, 101) == 1.96);
		sw_assert(stats_ministat_t(80, 5000) == 1.282);
		/* "99.5" holds 99.8 % values, and ministat's cells for nu 7..12 are off. */
		sw_assert(stats_ministat_t(99.5, 5) == 5.893);
		sw_assert(stats_ministat_t(99.5, 7) == 4.782);
		sw_assert(stats_ministat_t(99.5, 12) == 3.929);
		sw_assert(stats_ministat_t(99.5, 13) == 3.852);
		sw_assert(stats_ministat_t(99.5, 1000) == 3.09);
	}
	sw_subtest("t-quantiles") {
		/* Published quantiles, to 12 digits. */
		assert_near(stats_t_quantile(0.975, 1), 12.7062047361747, 1e-9);
		assert_near(stats_t_quantile(0.975, 10), 2.22813885198627, 1e-11);
		assert_near(stats_t_quantile(0.995, 30), 2.74999565356722, 1e-11);
		assert_near(stats_t_quantile(0.025, 10), -2.22813885198627, 1e-11);
		/* Cornish-Fisher expansion, exact to 1e-20 at this df. */
		assert_near(stats_t_quantile(0.975, 1e5), 1.95998770753461, 1e-11);
		assert_near(stats_normal_quantile(0.975), 1.95996398454005, 1e-11);
		assert_near(stats_normal_quantile(0.999), 3.09023230616781, 1e-11);
		sw_assert(stats_t_quantile(0.5, 3) == 0);
		sw_assert(isnan(stats_t_quantile(1.5, 3)));
	}
	sw_subtest("t-tail") {
		assert_near(stats_t_two_sided_p(2.22813885198627, 10), 0.05, 1e-12);
		assert_near(stats_t_two_sided_p(-2.22813885198627, 10), 0.05, 1e-12);
		sw_assert(stats_t_two_sided_p(0, 10) == 1);
		/* Deep in the tail the value stays relative-accurate, not 0. */
		double p = stats_t_two_sided_p(40, 30);
		sw_assert_f(p > 1e-28 && p < 1e-26, "p = %g", p);
	}
}

static void test_descriptive(void)
{
	static struct stats_sample s;
	struct stats_summary sum;
	struct stats_percentiles p;

	sw_subtest("percentiles-nearest-rank") {
		double v[1000];

		for (int i = 0; i < 1000; i++)
			v[i] = i + 1;
		stats_percentiles(v, 1000, &p);
		sw_assert(p.p50 == 500 && p.p95 == 950 && p.p99 == 990 && p.p999 == 999);
		stats_percentiles(v, 10, &p);
		sw_assert(p.p50 == 5 && p.p95 == 10 && p.p99 == 10 && p.p999 == 10);
		sw_assert(stats_percentile(v, 10, 0) == 1);
		sw_assert(stats_percentile(v, 10, 10) == 1);
		sw_assert(stats_percentile(v, 10, 10.5) == 2);
		sw_assert(stats_percentile(v, 1, 99.9) == 1);
	}
	sw_subtest("histogram-buckets-and-overflow") {
		static const double v[] = { -0.5, 0, 0.99, 1, 2.5, 3, 7, NAN };
		struct stats_histogram h;

		sw_assert(stats_histogram(v, 8, 0, 1, 3, &h) == 0);
		sw_assert(h.counts[0] == 2 && h.counts[1] == 1 && h.counts[2] == 1);
		sw_assert(h.under == 1 && h.over == 3);
		stats_histogram_free(&h);
		sw_assert(stats_histogram(v, 8, -1, 4, 2, &h) == 0);
		sw_assert(h.counts[0] == 5 && h.counts[1] == 1 && h.under == 0 && h.over == 2);
		stats_histogram_free(&h);
	}
	sw_subtest("histogram-one-value-at-a-time-and-merged") {
		static const double v[] = { -0.5, 0, 0.99, 1, 2.5, 3, 7, NAN };
		struct stats_histogram a, b, all;

		sw_assert(stats_histogram(v, 8, 0, 1, 3, &all) == 0);
		sw_assert(stats_histogram_init(&a, 0, 1, 3) == 0 && stats_histogram_init(&b, 0, 1, 3) == 0);
		for (int i = 0; i < 8; i++)
			stats_histogram_add(i < 3 ? &a : &b, v[i]);
		sw_assert(stats_histogram_merge(&a, &b) == 0);
		for (int i = 0; i < 3; i++)
			sw_assert_eq(a.counts[i], all.counts[i]);
		sw_assert(a.under == all.under && a.over == all.over);
		stats_histogram_free(&b);
		sw_assert(stats_histogram_init(&b, 0, 2, 3) == 0);
		sw_assert(stats_histogram_merge(&a, &b) == -1); /* other buckets */
		stats_histogram_free(&a);
		stats_histogram_free(&b);
		stats_histogram_free(&all);
	}
	sw_subtest("medians") {
		static const double v[] = { 4, 1, 3, 2 };

		summarize(v, 4, &s, &sum);
		sw_assert(sum.median == 3);		/* ministat's upper median */
		sw_assert(stats_median(s.v, s.n) == 2.5);
		sw_assert(stats_median(s.v, 3) == 2);
		stats_sample_free(&s);
	}
	sw_subtest("variance-both-forms") {
		static const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

		summarize(v, 8, &s, &sum);
		sw_assert(sum.mean == 5 && sum.var == 32.0 / 7);
		sw_assert(sum.min == 2 && sum.max == 9);
		stats_sample_free(&s);
		summarize_ministat(v, 8, &s, &sum);
		sw_assert(sum.mean == 5);
		assert_near(sum.var, 32.0 / 7, 1e-12);
		stats_sample_free(&s);
	}
	sw_subtest("two-pass-variance-of-equal-values") {
		/* An icount case's per-boot medians: the one-pass form cancels to
		 * a negative variance here, the two-pass form gives exactly 0. */
		static const double v[] = { 14315.7, 14315.7, 14315.7 };

		summarize(v, 3, &s, &sum);
		sw_assert(sum.var == 0 && sum.stddev == 0 && sum.mean == 14315.7);
		stats_sample_free(&s);
		summarize_ministat(v, 3, &s, &sum);
		sw_assert_f(sum.var < 0 && isnan(sum.stddev), "ministat's var %g", sum.var);
		stats_sample_free(&s);
	}
	sw_subtest("two-pass-variance-large-offset") {
		/* var of {0, 1, 2} is 1, also 1e9 away from 0. */
		static const double v[] = { 1e9, 1e9 + 1, 1e9 + 2 };

		summarize(v, 3, &s, &sum);
		sw_assert(sum.var == 1 && sum.mean == 1e9 + 1);
		stats_sample_free(&s);
	}
}

static void test_welch(void)
{
	struct stats_summary a, b;
	struct stats_welch w;

	sw_subtest("welch-hand-checked") {
		/* {1..5} against {2,4,6,8,10}: variances 2.5 and 10. */
		stats_summary_from_moments(5, 3, sqrt(2.5), &a);
		stats_summary_from_moments(5, 6, sqrt(10), &b);
		sw_assert_eq(stats_welch(&a, &b, 95, &w), 0);
		assert_near(w.diff, 3, 1e-12);
		assert_near(w.se, sqrt(2.5), 1e-12);
		assert_near(w.df, 6.25 / 1.0625, 1e-12);
		assert_near(w.t, 3 / sqrt(2.5), 1e-12);
		assert_near(w.p, 0.107531194931, 1e-9);
		assert_near(w.lo, -0.8877416438, 2e-6);
		assert_near(w.hi, 6.887741644, 2e-6);
	}
	sw_subtest("welch-equal-variances-is-student") {
		/* With equal n and variances, df = 2n − 2 and the interval is Student's. */
		stats_summary_from_moments(10, 100, 3, &a);
		stats_summary_from_moments(10, 104, 3, &b);
		sw_assert_eq(stats_welch(&a, &b, 95, &w), 0);
		assert_near(w.df, 18, 1e-9);
		assert_near(w.hi - w.diff, stats_t_quantile(0.975, 18) * 3 * sqrt(0.2), 1e-9);
	}
	sw_subtest("welch-degenerate") {
		stats_summary_from_moments(3, 5, 0, &a);
		stats_summary_from_moments(3, 5, 0, &b);
		sw_assert_eq(stats_welch(&a, &b, 95, &w), 0);
		sw_assert(w.p == 1 && w.lo == 0 && w.hi == 0);
		stats_summary_from_moments(3, 7, 0, &b);
		sw_assert_eq(stats_welch(&a, &b, 95, &w), 0);
		sw_assert(w.p == 0 && w.lo == 2 && w.hi == 2);
		stats_summary_from_moments(1, 7, 0, &b);
		sw_assert_errno(stats_welch(&a, &b, 95, &w), EINVAL);
		stats_summary_from_moments(3, 7, 1, &b);
		sw_assert_errno(stats_welch(&a, &b, 100, &w), EINVAL);
	}
}

static void test_rank_methods(void)
{
	struct stats_mann_whitney mw;
	struct stats_interval hl;

	sw_subtest("mann-whitney-separated") {
		static const double r[] = { 1, 2, 3 }, d[] = { 4, 5, 6 };

		sw_assert_eq(stats_mann_whitney(r, 3, d, 3, &mw), 0);
		sw_assert(mw.u == 9);
		/* z = (9 − 4.5 − ½) / √5.25 */
		assert_near(mw.z, 1.74574312188794, 1e-12);
		assert_near(mw.p, 0.0808555983700523, 1e-12);
		sw_assert_eq(stats_mann_whitney(d, 3, r, 3, &mw), 0);
		sw_assert(mw.u == 0);
		assert_near(mw.z, -1.74574312188794, 1e-12);
	}
	sw_subtest("mann-whitney-ties") {
		/* Ranks 1, 3, 3, 3, 6, 6, 6, 8: U = 23 − 10 = 13; ties Σ(t³ − t) = 48. */
		static const double r[] = { 1, 2, 2, 3 }, d[] = { 2, 3, 3, 4 };

		sw_assert_eq(stats_mann_whitney(r, 4, d, 4, &mw), 0);
		sw_assert(mw.u == 13);
		assert_near(mw.z, 1.36569820200049, 1e-12);
		assert_near(mw.p, 0.172033708921823, 1e-12);
	}
	sw_subtest("mann-whitney-all-tied") {
		static const double r[] = { 5, 5, 5 };

		sw_assert_eq(stats_mann_whitney(r, 3, r, 3, &mw), 0);
		sw_assert(mw.u == 4.5 && mw.p == 1);
	}
	sw_subtest("hodges-lehmann") {
		/* Differences 2 + (j − i): −2 once ... 6 once; n = m = 5 at 95 %
		 * gives C = 3, so the interval is [D(3), D(23)] = [−1, 5]. */
		static const double r[] = { 1, 2, 3, 4, 5 }, d[] = { 3, 4, 5, 6, 7 };

		sw_assert_eq(stats_hodges_lehmann(r, 5, d, 5, 95, &hl), 0);
		sw_assert(hl.estimate == 2 && hl.lo == -1 && hl.hi == 5);
		sw_assert_eq(stats_hodges_lehmann(r, 3, d + 2, 3, 95, &hl), 0);
		sw_assert(hl.estimate == 4 && hl.lo == 2 && hl.hi == 6);
	}
	sw_subtest("hodges-lehmann-too-many-pairs") {
		static double big[5000];

		sw_assert_errno(stats_hodges_lehmann(big, 5000, big, 5000, 95, &hl), E2BIG);
	}
}

static void test_bootstrap(void)
{
	static const double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 40 };
	struct stats_rng rng;
	struct stats_interval a, b;

	sw_subtest("rng-reference-stream") {
		/* splitmix64's first output for seed 0 is a published constant. */
		stats_rng_seed(&rng, 0);
		sw_assert(rng.s[0] == 0xe220a8397b1dcdafu);
		stats_rng_seed(&rng, 1);
		sw_assert(stats_rng_next(&rng) == 0xb3f2af6d0fc710c5u);
		sw_assert(stats_rng_next(&rng) == 0x853b559647364ceau);
		sw_assert(stats_rng_next(&rng) == 0x92f89756082a4514u);
		for (int i = 0; i < 1000; i++)
			sw_assert(stats_rng_below(&rng, 7) < 7);
		sw_assert(stats_rng_below(&rng, 1) == 0);
	}
	sw_subtest("bootstrap-deterministic") {
		stats_rng_seed(&rng, 42);
		sw_assert_eq(stats_bootstrap_median(v, 18, 2000, 95, &rng, &a), 0);
		stats_rng_seed(&rng, 42);
		sw_assert_eq(stats_bootstrap_median(v, 18, 2000, 95, &rng, &b), 0);
		sw_assert(memcmp(&a, &b, sizeof(a)) == 0);
		sw_assert(a.estimate == 9.5);
		sw_assert_f(a.lo <= a.estimate && a.estimate <= a.hi && a.lo >= 1 && a.hi <= 40,
			    "[%g, %g]", a.lo, a.hi);
		sw_assert_f(a.hi - a.lo < 10, "interval [%g, %g] too wide", a.lo, a.hi);
	}
	sw_subtest("bootstrap-median-difference") {
		double shifted[18];

		for (int i = 0; i < 18; i++)
			shifted[i] = v[i] + 100;
		stats_rng_seed(&rng, 7);
		sw_assert_eq(stats_bootstrap_median_diff(v, 18, shifted, 18, 2000, 95, &rng, &a), 0);
		sw_assert(a.estimate == 100);
		sw_assert_f(a.lo > 90 && a.hi < 110 && a.lo <= 100 && a.hi >= 100, "[%g, %g]", a.lo,
			    a.hi);
		stats_rng_seed(&rng, 7);
		sw_assert_eq(stats_bootstrap_median_diff(v, 18, shifted, 18, 2000, 95, &rng, &b), 0);
		sw_assert(memcmp(&a, &b, sizeof(a)) == 0);
		sw_assert_errno(stats_bootstrap_median(v, 18, 0, 95, &rng, &a), EINVAL);
	}
}

static void test_welch_log(void)
{
	struct stats_welch_log w;

	sw_subtest("welch-log-relative-difference") {
		/* ln values {0, 0.1, −0.1} + ln 100 against the same + ln 2: the
		 * ln-variances are both 0.01, so se = √(2 · 0.01 / 3), df = 4. */
		double ref[3] = { 100, 100 * exp(0.1), 100 * exp(-0.1) }, d[3];

		for (int i = 0; i < 3; i++)
			d[i] = 2 * ref[i];
		sw_assert_eq(stats_welch_log(ref, 3, d, 3, 95, &w), 0);
		double half = stats_t_quantile(0.975, 4) * sqrt(0.02 / 3);

		assert_near(w.log.diff, log(2), 1e-12);
		assert_near(w.log.df, 4, 1e-9);
		assert_near(w.rel, 1, 1e-12);
		assert_near(w.rel_lo, 2 * exp(-half) - 1, 1e-9);
		assert_near(w.rel_hi, 2 * exp(half) - 1, 1e-9);
		sw_assert(stats_interval_excludes_zero(w.rel_lo, w.rel_hi));
	}
	sw_subtest("pooled-log-sd") {
		/* ln values {0, 0.2} on both sides: variances 0.02, pooled √0.02. */
		double v[2] = { 1, exp(0.2) }, w3[3] = { 1, exp(0.1), exp(0.2) };

		assert_near(stats_pooled_log_sd(v, 2, v, 2), sqrt(0.02), 1e-12);
		/* {0, 0.1, 0.2}: variance 0.01 with 2 df, pooled (0.02 + 0.02) / 3. */
		assert_near(stats_pooled_log_sd(v, 2, w3, 3), sqrt(0.04 / 3), 1e-12);
		sw_assert(isnan(stats_pooled_log_sd(v, 1, v, 2)));
		v[0] = 0;
		sw_assert(isnan(stats_pooled_log_sd(v, 2, w3, 3)));
	}
	sw_subtest("welch-log-domain") {
		static const double ok[] = { 1, 2, 3 }, zero[] = { 1, 0, 3 }, neg[] = { 1, -2, 3 };
		double inf[] = { 1, INFINITY, 3 };

		sw_assert_errno(stats_welch_log(ok, 3, zero, 3, 95, &w), EDOM);
		sw_assert_errno(stats_welch_log(neg, 3, ok, 3, 95, &w), EDOM);
		sw_assert_errno(stats_welch_log(ok, 3, inf, 3, 95, &w), EDOM);
		sw_assert_errno(stats_welch_log(ok, 1, ok, 3, 95, &w), EINVAL);
	}
}

static void test_reporting_helpers(void)
{
	char buf[32];

	sw_subtest("interval-excludes-zero") {
		sw_assert(stats_interval_excludes_zero(1, 2));
		sw_assert(stats_interval_excludes_zero(-2, -1));
		sw_assert(!stats_interval_excludes_zero(-1, 1));
		sw_assert(!stats_interval_excludes_zero(0, 1));
		sw_assert(!stats_interval_excludes_zero(-1, 0));
		sw_assert(!stats_interval_excludes_zero(NAN, NAN));
		sw_assert(!stats_interval_excludes_zero(NAN, 1));
		sw_assert(!stats_interval_excludes_zero(1, NAN));
		sw_assert(!stats_interval_excludes_zero(1, INFINITY));
		sw_assert(!stats_interval_excludes_zero(-INFINITY, -1));
	}
	sw_subtest("format-p") {
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), 0, false), "< 1e-300"));
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), 1e-320, false), "< 1e-300"));
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), NAN, false), "–"));
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), 0, true), "exact"));
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), NAN, true), "exact"));
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), 0.0123456, false), "0.0123"));
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), 2.5e-12, false), "2.5e-12"));
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), 1, false), "1"));
	}
}

static void test_permutation(void)
{
	double p;

	sw_subtest("permutation-hand-checked") {
		/* {1,2,4} against {3,5}: the ten splits of {1..5} into 3 + 2 give
		 * T = mean(pair) − mean(rest) of −2.5, −1.67, −0.83 (twice), 0
		 * (twice), 0.83 (twice), 1.67 (observed) and 2.5, so four reach
		 * |T_obs| (−1.67 only up to rounding): p = 4/10. */
		static const double r[] = { 1, 2, 4 }, d[] = { 3, 5 };

		sw_assert_eq(stats_permutation_test(r, 3, d, 2, &p), 0);
		sw_assert_f(p == 0.4, "p = %g", p);
	}
	sw_subtest("permutation-smallest-p") {
		static const double r[] = { 1, 2, 3, 4 }, d[] = { 5, 6, 7, 8 };

		/* Only the observed split and its mirror image are as extreme. */
		sw_assert_eq(stats_permutation_test(r, 3, d, 3, &p), 0);
		sw_assert(p == 2.0 / 20);
		sw_assert_eq(stats_permutation_test(r, 4, d, 4, &p), 0);
		sw_assert(p == 2.0 / 70);
		sw_assert_eq(stats_permutation_test(d, 4, r, 4, &p), 0);
		sw_assert(p == 2.0 / 70);
		sw_assert_eq(stats_permutation_test(r, 4, r, 4, &p), 0);
		sw_assert(p == 1);
	}
	sw_subtest("permutation-min-p") {
		assert_near(stats_permutation_min_p(3, 3), 0.1, 1e-15);
		assert_near(stats_permutation_min_p(4, 4), 2.0 / 70, 1e-15);
		assert_near(stats_permutation_min_p(5, 5), 2.0 / 252, 1e-15);
		assert_near(stats_permutation_min_p(3, 4), 1.0 / 35, 1e-15);
		assert_near(stats_permutation_min_p(4, 3), 1.0 / 35, 1e-15);
	}
	sw_subtest("permutation-limits") {
		static double v[13];

		for (int i = 0; i < 13; i++)
			v[i] = i;
		/* C(24, 12) = 2704156 splits: the largest equal sizes allowed. */
		sw_assert_eq(stats_permutation_test(v, 12, v, 12, &p), 0);
		sw_assert(p == 1);
		sw_assert_errno(stats_permutation_test(v, 13, v, 13, &p), E2BIG);
		/* One against many: cheap, and no deeper recursion than the group. */
		static double many[100000];

		many[0] = 1;
		sw_assert_eq(stats_permutation_test(many, 100000, v + 1, 1, &p), 0);
		sw_assert(p == 2.0 / 100001);
		sw_assert_errno(stats_permutation_test(v, 0, v, 3, &p), EINVAL);
	}
}

static void test_holm(void)
{
	sw_subtest("holm-hand-checked") {
		/* Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06,
		 * 0.04, and the last is raised to 0.06 by the step-down. */
		static const double p[] = { 0.01, 0.04, 0.03, 0.005 };
		double adj[4];

		sw_assert_eq(stats_holm(p, 4, adj), 0);
		assert_near(adj[0], 0.03, 1e-15);
		assert_near(adj[1], 0.06, 1e-15);
		assert_near(adj[2], 0.06, 1e-15);
		assert_near(adj[3], 0.02, 1e-15);
	}
	sw_subtest("holm-cap-nan-in-place") {
		double p[] = { 0.6, NAN, 0.5 };

		sw_assert_eq(stats_holm(p, 3, p), 0);
		sw_assert(p[0] == 1 && isnan(p[1]) && p[2] == 1);
		double one[] = { 0.2 };

		sw_assert_eq(stats_holm(one, 1, one), 0);
		sw_assert(one[0] == 0.2);
		sw_assert_eq(stats_holm(NULL, 0, NULL), 0);
	}
}

static void test_boot_verdicts(void)
{
	static struct stats_boot_verdict v[3];
	char buf[32];

	sw_subtest("spread-exact") {
		static const double r[] = { 100, 100, 100 }, d[] = { 90, 90, 90 };

		sw_assert_eq(stats_boot_compare(r, 3, d, 3, STATS_BOOT_SPREAD, &v[0]), 0);
		sw_assert(v[0].exact && v[0].proven && v[0].diff == -10 && v[0].rel == -0.1);
		sw_assert(isnan(v[0].p) && isnan(v[0].rel_lo));
		sw_assert_f(!strcmp(v[0].verdict, "-10.00 % (exact)"), "%s", v[0].verdict);
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), v[0].p, v[0].exact), "exact"));
		sw_assert_eq(stats_boot_compare(r, 3, r, 3, STATS_BOOT_SPREAD, &v[0]), 0);
		sw_assert(v[0].exact && !v[0].proven);
		sw_assert_f(!strcmp(v[0].verdict, "No difference proven (exact)"), "%s", v[0].verdict);
	}
	sw_subtest("spread-three-times") {
		static const double r[] = { 100, 101 }, close[] = { 102, 103 }, far[] = { 105, 106 };

		sw_assert_eq(stats_boot_compare(r, 2, close, 2, STATS_BOOT_SPREAD, &v[0]), 0);
		sw_assert(!v[0].exact && !v[0].proven && v[0].diff == 2 && v[0].spread == 1);
		sw_assert_f(!strcmp(v[0].verdict, "No difference proven (Δ within 3 × spread)"), "%s",
			    v[0].verdict);
		sw_assert_eq(stats_boot_compare(r, 2, far, 2, STATS_BOOT_SPREAD, &v[0]), 0);
		sw_assert(v[0].proven);
		sw_assert_f(!strcmp(v[0].verdict, "+4.98 %"), "%s", v[0].verdict);
		sw_assert_eq(stats_boot_compare(r, 1, far, 1, STATS_BOOT_SPREAD, &v[0]), 0);
		sw_assert(!v[0].tested && !v[0].proven);
		sw_assert_f(!strcmp(v[0].verdict, "No difference proven (1 boot a side; ≥ 2 needed)"),
			    "%s", v[0].verdict);
	}
	sw_subtest("test-needs-four-boots") {
		static const double r[] = { 1.00, 1.01, 0.99 }, d[] = { 1.50, 1.51, 1.49 };

		sw_assert_eq(stats_boot_compare(r, 3, d, 3, STATS_BOOT_TEST, &v[0]), 0);
		sw_assert(!v[0].tested && !v[0].proven && v[0].p == 0.1);
		sw_assert(stats_interval_excludes_zero(v[0].rel_lo, v[0].rel_hi));
		sw_assert_f(!strcmp(v[0].verdict, "No difference proven (3 boots a side; ≥ 4 needed)"),
			    "%s", v[0].verdict);
		sw_assert_eq(stats_boot_compare(r, 3, d, 2, STATS_BOOT_TEST, &v[0]), 0);
		sw_assert_f(!strcmp(v[0].verdict,
				    "No difference proven (3 vs 2 boots; ≥ 4 a side needed)"),
			    "%s", v[0].verdict);
	}
	sw_subtest("test-proven-then-holm") {
		static const double r[] = { 1.00, 1.01, 0.99, 1.02 }, d[] = { 1.10, 1.11, 1.09, 1.12 };
		static const double one[] = { 1 }, bad[] = { 1, 0, 1, 1 };

		sw_assert_eq(stats_boot_compare(r, 4, d, 4, STATS_BOOT_TEST, &v[0]), 0);
		sw_assert(v[0].tested && v[0].proven && v[0].p == 2.0 / 70 && v[0].p_adj == v[0].p);
		/* The ratio of geometric means, 1.10494 / 1.00494. */
		assert_near(v[0].rel, 0.0995142, 1e-6);
		sw_assert_f(!strcmp(v[0].verdict, "+9.95 %"), "%s", v[0].verdict);
		sw_assert(v[0].cv > 0.008 && v[0].cv < 0.02);
		/* Two such cases: 2 · 2/70 = 0.057 after Holm, no longer proven;
		 * an untested case (one boot) does not count in the family. */
		v[1] = v[0];
		sw_assert_eq(stats_boot_compare(one, 1, one, 1, STATS_BOOT_TEST, &v[2]), 0);
		sw_assert_eq(stats_boot_holm(v, 3), 0);
		assert_near(v[0].p_adj, 4.0 / 70, 1e-15);
		sw_assert(!v[0].proven && !v[1].proven && !v[2].proven && isnan(v[2].p_adj));
		sw_assert_f(!strcmp(v[0].verdict, "No difference proven"), "%s", v[0].verdict);
		sw_assert_errno(stats_boot_compare(r, 4, bad, 4, STATS_BOOT_TEST, &v[0]), EDOM);
		sw_assert_errno(stats_boot_compare(r, 0, d, 4, STATS_BOOT_TEST, &v[0]), EINVAL);
		/* A spread verdict keeps non-positive values, without a cv. */
		sw_assert_eq(stats_boot_compare(r, 4, bad, 4, STATS_BOOT_SPREAD, &v[0]), 0);
		sw_assert(isnan(v[0].cv));
	}
	sw_subtest("test-nan-interval-not-proven") {
		/* Zero spread on both sides: Welch's interval collapses onto the
		 * difference, the permutation test still answers. */
		static const double r[] = { 2, 2, 2, 2 }, d[] = { 3, 3, 3, 3 };

		sw_assert_eq(stats_boot_compare(r, 4, d, 4, STATS_BOOT_TEST, &v[0]), 0);
		sw_assert(v[0].exact && v[0].proven && v[0].rel_lo == v[0].rel_hi);
		assert_near(v[0].rel, 0.5, 1e-15);
		sw_assert(!strcmp(stats_format_p(buf, sizeof(buf), v[0].p, v[0].exact), "exact"));
		v[0].rel_lo = NAN;
		v[0].p_adj = 0;
		sw_assert_eq(stats_boot_holm(v, 1), 0);
		sw_assert(!v[0].proven);
	}
}

static void test_boots_needed(void)
{
	sw_subtest("boots-needed-hand-checked") {
		/* cv 1 %, effect 2 %: 2 ((t + t') / 2)² is 5.10 at n = 5 (df 8) and
		 * 4.83 at n = 6 (df 10). */
		sw_assert_eq(stats_boots_needed(0.01, 0.02, 0.05), 6);
		sw_assert_eq(stats_boots_needed(0, 0.02, 0.05), STATS_MIN_BOOTS);
		sw_assert_eq(stats_boots_needed(0.001, 0.5, 0.05), STATS_MIN_BOOTS);
		/* Normal approximation 2 (2.8016 · 4)² = 251.2, t adds about 1. */
		int n = stats_boots_needed(0.2, 0.05, 0.05);

		sw_assert_f(n >= 252 && n <= 254, "n = %d", n);
	}
	sw_subtest("boots-needed-monotone") {
		int last = 0;

		for (double cv = 0; cv <= 0.5; cv += 0.01) {
			int n = stats_boots_needed(cv, 0.05, 0.05);

			sw_assert_f(n >= last, "cv %g: %d < %d", cv, n, last);
			last = n;
		}
		last = stats_boots_needed(0.1, 0.005, 0.05);
		for (double effect = 0.01; effect <= 1; effect += 0.01) {
			int n = stats_boots_needed(0.1, effect, 0.05);

			sw_assert_f(n <= last && n >= STATS_MIN_BOOTS, "effect %g: %d > %d", effect,
				    n, last);
			last = n;
		}
	}
	sw_subtest("boots-needed-domain") {
		sw_assert_errno(stats_boots_needed(0.1, 0, 0.05), EDOM);
		sw_assert_errno(stats_boots_needed(-0.1, 0.1, 0.05), EDOM);
		sw_assert_errno(stats_boots_needed(NAN, 0.1, 0.05), EDOM);
		sw_assert_errno(stats_boots_needed(0.1, INFINITY, 0.05), EDOM);
		sw_assert_errno(stats_boots_needed(1e6, 1e-6, 0.05), ERANGE);
		sw_assert_errno(stats_boots_needed(0.1, 0.1, 0), EDOM);
		sw_assert_errno(stats_boots_needed(0.1, 0.1, 1), EDOM);
	}
	sw_subtest("boots-needed-holm-level") {
		/* Holm's first step across 38 cases tests at 0.05 / 38: the
		 * permutation test gets there only with 7 boots a side
		 * (2 / C(14, 7) = 0.00058 < 0.0013 < 2 / C(12, 6) = 0.0022). */
		sw_assert_eq(stats_boots_needed(0, 0.3, 0.05 / 38), 7);
		sw_assert_f(stats_boots_needed(0.1, 0.1, 0.05 / 38) > stats_boots_needed(0.1, 0.1, 0.05),
			    "a stricter level needs no more boots");
	}
}

static void test_linear_fit(void)
{
	struct stats_linear_fit f;

	sw_subtest("linear-fit-exact-line") {
		/* x in any order: a line fits with no error at all. */
		double x[] = { 3, 0, 1, 2, 4 }, y[] = { 7, 1, 3, 5, 9 };
		sw_assert_eq(stats_linear_fit(x, y, 5, 95, &f), 0);
		sw_assert_f(f.slope == 2 && f.intercept == 1, "slope %g intercept %g", f.slope, f.intercept);
		sw_assert_f(f.se == 0 && f.lo == 2 && f.hi == 2 && f.r2 == 1 && f.n_eff == 5,
			    "se %g [%g, %g] r2 %g n_eff %g", f.se, f.lo, f.hi, f.r2, f.n_eff);
	}
	sw_subtest("linear-fit-by-hand") {
		/* Residuals 0.29, −0.27, −0.33, 0.31: r1 = −0.0915 / 0.362 ≤ 0,
		 * so no correction: se = √(0.362 / 2 / 5), t(0.975, 2) =
		 * 4.302653. */
		double x[] = { 1, 2, 3, 4 }, y[] = { 1.5, 2, 3, 4.7 };
		sw_assert_eq(stats_linear_fit(x, y, 4, 95, &f), 0);
		double se = sqrt(0.0362), half = 4.302652729749464 * se;
		sw_assert_f(fabs(f.slope - 1.06) < 1e-12 && fabs(f.intercept - 0.15) < 1e-12,
			    "slope %.15g intercept %.15g", f.slope, f.intercept);
		sw_assert_f(fabs(f.r1 + 0.0915 / 0.362) < 1e-12 && f.n_eff == 4, "r1 %.15g n_eff %g", f.r1,
			    f.n_eff);
		sw_assert_f(fabs(f.se - se) < 1e-12 && fabs(f.lo - (1.06 - half)) < 1e-6 &&
			    fabs(f.hi - (1.06 + half)) < 1e-6, "se %.15g [%.9g, %.9g]", f.se, f.lo, f.hi);
		sw_assert_f(fabs(f.r2 - (1 - 0.362 / 5.98)) < 1e-12, "r2 %.15g", f.r2);
	}
	sw_subtest("linear-fit-steps-widen-the-interval") {
		/* A flat series with one step in the middle (memory taken once):
		 * its residuals follow each other, so it counts as far fewer
		 * points than it has and its interval is several times the
		 * ordinary one: Sxy 1250, Sxx 83325, SSR 25 − Sxy² / Sxx. */
		double x[100], y[100];
		for (int i = 0; i < 100; i++) {
			x[i] = i;
			y[i] = i < 50 ? 0 : 1;
		}
		sw_assert_eq(stats_linear_fit(x, y, 100, 95, &f), 0);
		sw_assert_f(f.slope > 0 && f.r1 > 0.8 && f.n_eff < 10, "slope %g r1 %g n_eff %g", f.slope, f.r1,
			    f.n_eff);
		double ordinary = sqrt((25 - 1250.0 * 1250 / 83325) / 98 / 83325);
		sw_assert_f(fabs(f.slope - 1250.0 / 83325) < 1e-12 && f.se > 3 * ordinary, "slope %g se %g, ordinary %g",
			    f.slope, f.se, ordinary);
	}
	sw_subtest("linear-fit-growth-over-noise") {
		/* A steady growth of 3 per step under white noise of ±50 is a
		 * slope; the same noise alone is not. */
		struct stats_rng rng;
		stats_rng_seed(&rng, 7);
		double x[500], y[500], flat[500];
		for (int i = 0; i < 500; i++) {
			double noise = (double)stats_rng_below(&rng, 101) - 50;
			x[i] = i;
			y[i] = 3.0 * i + noise;
			flat[i] = noise;
		}
		sw_assert_eq(stats_linear_fit(x, y, 500, 95, &f), 0);
		sw_assert_f(f.lo > 2.8 && f.hi < 3.2 && f.lo < 3 && f.hi > 3, "[%g, %g]", f.lo, f.hi);
		sw_assert_f(fabs(f.r1) < 0.2, "white noise has r1 %g", f.r1);
		sw_assert_eq(stats_linear_fit(x, flat, 500, 95, &f), 0);
		sw_assert_f(f.lo < 0 && f.hi > 0, "noise alone gave [%g, %g]", f.lo, f.hi);
	}
	sw_subtest("linear-fit-errors") {
		double x[] = { 1, 1, 1 }, y[] = { 1, 2, 3 };
		sw_assert_errno(stats_linear_fit(x, y, 3, 95, &f), EINVAL);
		sw_assert_errno(stats_linear_fit(y, x, 2, 95, &f), EINVAL);
	}
}

int main(int argc, char **argv)
{
	sw_test_init("stats", argc, argv);
	test_ministat_vectors();
	test_cover_letter();
	test_t_table();
	test_descriptive();
	test_welch();
	test_rank_methods();
	test_bootstrap();
	test_welch_log();
	test_reporting_helpers();
	test_permutation();
	test_holm();
	test_boot_verdicts();
	test_boots_needed();
	test_linear_fit();
	return sw_test_exit();
}
