/* Unit tests of bench/stats: ministat's published vectors, the cover
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

static void summarize(const double *v, size_t n, struct stats_sample *s,
		      struct stats_summary *out)
{
	stats_sample_init(s);
	for (size_t i = 0; i < n; i++)
		sw_assert_eq(stats_sample_add(s, v[i]), 0);
	stats_sample_summarize(s, out);
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
		summarize(iguana, 7, &x, &sx);
		summarize(chameleon, 5, &p, &sp);
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
	sw_subtest("medians") {
		static const double v[] = { 4, 1, 3, 2 };

		summarize(v, 4, &s, &sum);
		sw_assert(sum.median == 3);		/* ministat's upper median */
		sw_assert(stats_median(s.v, s.n) == 2.5);
		sw_assert(stats_median(s.v, 3) == 2);
		stats_sample_free(&s);
	}
	sw_subtest("one-pass-variance") {
		static const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

		summarize(v, 8, &s, &sum);
		sw_assert(sum.mean == 5);
		assert_near(sum.var, 32.0 / 7, 1e-12);
		sw_assert(sum.min == 2 && sum.max == 9);
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
	return sw_test_exit();
}
