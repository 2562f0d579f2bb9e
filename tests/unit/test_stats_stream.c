/* Unit tests of the bounded-memory series (common/stats_stream.c): every
 * quantile within the stated relative error of the exact nearest-rank one
 * on known data, exact count, sum, minimum and maximum, exact merging,
 * memory that stops growing (and, for a fixed range, never changes), and
 * the count of bytes all streams hold. */
#include "harness.h"
#include "stats.h"
#include "stats_stream.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 20000

/* The bound of stats_stream.h, with room for the rounding of log(). */
static bool within_bound(double got, double exact)
{
	return fabs(got - exact) <= STATS_STREAM_REL_ERR * fabs(exact) * (1 + 1e-9) +
					    STATS_STREAM_MIN_ABS;
}

/* Streams v, sorts a copy, and compares every rank and the percentiles
 * the compositor reports; returns the largest relative error seen. With
 * fixed, the stream has the fixed range of 1e-6 to 1e6, both signs. */
static double check_against_exact(const double *v, size_t n, bool fixed)
{
	struct stats_stream s = { 0 };
	if (fixed)
		sw_assert_eq(stats_stream_init_fixed(&s, 1e-6, 1e6, true), 0);
	double *sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		sw_fail("out of memory");
		return NAN;
	}
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		sw_assert_eq(stats_stream_add(&s, v[i]), 0);
		sorted[i] = v[i];
		sum += v[i];
	}
	stats_sort(sorted, n);
	sw_assert_eq(s.n, (uint64_t)n);
	sw_assert(s.min == sorted[0] && s.max == sorted[n - 1]);
	sw_assert_f(fabs(s.sum - sum) <= 1e-12 * fabs(sum), "sum %g, expected %g", s.sum, sum);
	double worst = 0;
	for (size_t r = 0; r < n; r++) {
		double got = stats_stream_rank(&s, r);
		if (!within_bound(got, sorted[r])) {
			sw_fail("rank %zu of %zu: %.17g, exact %.17g", r, n, got, sorted[r]);
			break;
		}
		if (sorted[r] != 0 && fabs(got - sorted[r]) / fabs(sorted[r]) > worst)
			worst = fabs(got - sorted[r]) / fabs(sorted[r]);
	}
	static const double ps[] = { 0, 1, 10, 50, 90, 95, 99, 99.9, 100 };
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		double want = stats_percentile(sorted, n, ps[k]);
		double got = stats_stream_percentile(&s, ps[k]);
		sw_assert_f(within_bound(got, want), "p%g: %.17g, exact %.17g", ps[k], got, want);
	}
	sw_assert_f(within_bound(stats_stream_median(&s), sorted[n / 2]), "upper median %.17g, exact %.17g",
		    stats_stream_median(&s), sorted[n / 2]);
	free(sorted);
	stats_stream_free(&s);
	return worst;
}

static void test_quantiles(void)
{
	static double v[N];
	struct stats_rng rng;

	sw_subtest("empty-stream") {
		struct stats_stream s = { 0 };
		sw_assert(isnan(stats_stream_rank(&s, 0)) && isnan(stats_stream_median(&s)));
		sw_assert(isnan(stats_stream_percentile(&s, 99)) && stats_stream_mean(&s) == 0);
		stats_stream_free(&s);
	}
	sw_subtest("one-value-is-exact") {
		struct stats_stream s = { 0 };
		sw_assert_eq(stats_stream_add(&s, 16.6667), 0);
		sw_assert(stats_stream_median(&s) == 16.6667 && stats_stream_percentile(&s, 99) == 16.6667);
		sw_assert(stats_stream_mean(&s) == 16.6667);
		stats_stream_free(&s);
	}
	sw_subtest("frame-intervals-within-the-bound") {
		/* 16.67 ms frames, a miss every 50th (33.3 ms), one stall. */
		for (size_t i = 0; i < N; i++)
			v[i] = i % 50 == 0 ? 33.334 : 16.667 + (double)(i % 7) * 0.001;
		v[N / 2] = 189.0;
		double worst = check_against_exact(v, N, false);
		sw_assert_f(worst > 0, "no error at all: the buckets are not being used");
	}
	sw_subtest("log-uniform-over-twelve-decades-within-the-bound") {
		stats_rng_seed(&rng, 31);
		for (size_t i = 0; i < N; i++)
			v[i] = pow(10, -6 + 12 * (double)stats_rng_below(&rng, 1u << 30) / (1u << 30));
		check_against_exact(v, N, false);
		check_against_exact(v, N, true);
	}
	sw_subtest("signed-values-and-zeros-within-the-bound") {
		/* presented − target errors: early (negative), exact (0) and late. */
		stats_rng_seed(&rng, 7);
		for (size_t i = 0; i < N; i++) {
			double x = (double)stats_rng_below(&rng, 2000001) / 1000.0 - 1000.0;
			v[i] = i % 10 == 0 ? 0 : x;
		}
		check_against_exact(v, N, false);
		check_against_exact(v, N, true);
	}
	sw_subtest("sums-stay-exact") {
		struct stats_stream s = { 0 };
		for (int i = 1; i <= 1000; i++)
			stats_stream_add(&s, i);
		sw_assert(s.n == 1000 && s.sum == 500500 && s.min == 1 && s.max == 1000);
		sw_assert(stats_stream_mean(&s) == 500.5);
		stats_stream_free(&s);
	}
	sw_subtest("nan-is-refused") {
		struct stats_stream s = { 0 };
		sw_assert_errno(stats_stream_add(&s, NAN), EDOM);
		sw_assert(s.n == 0);
		stats_stream_free(&s);
	}
}

static void test_merge_and_memory(void)
{
	struct stats_rng rng;

	sw_subtest("merge-is-the-stream-of-both") {
		struct stats_stream a = { 0 }, b = { 0 }, all = { 0 };
		stats_rng_seed(&rng, 5);
		for (int i = 0; i < 5000; i++) {
			double x = (double)stats_rng_below(&rng, 1000000) / 1000.0 - 100.0;
			stats_stream_add(i % 3 ? &a : &b, x);
			stats_stream_add(&all, x);
		}
		stats_stream_add(&b, 1e9); /* b reaches buckets a has none of */
		stats_stream_add(&all, 1e9);
		sw_assert_eq(stats_stream_merge(&a, &b), 0);
		sw_assert(a.n == all.n && a.min == all.min && a.max == all.max && a.zero == all.zero);
		sw_assert_f(fabs(a.sum - all.sum) <= 1e-9 * fabs(all.sum), "sum %g vs %g", a.sum, all.sum);
		for (uint64_t r = 0; r < all.n; r++) {
			if (stats_stream_rank(&a, r) != stats_stream_rank(&all, r)) {
				sw_fail("rank %llu: merged %.17g, one stream %.17g", (unsigned long long)r,
					stats_stream_rank(&a, r), stats_stream_rank(&all, r));
				break;
			}
		}
		stats_stream_free(&a);
		stats_stream_free(&b);
		stats_stream_free(&all);
	}
	sw_subtest("merge-into-empty-and-of-empty") {
		struct stats_stream a = { 0 }, e = { 0 };
		stats_stream_add(&a, -3);
		stats_stream_add(&a, 4);
		sw_assert_eq(stats_stream_merge(&a, &e), 0);
		sw_assert(a.n == 2 && a.min == -3 && a.max == 4);
		sw_assert_eq(stats_stream_merge(&e, &a), 0);
		sw_assert(e.n == 2 && e.min == -3 && e.max == 4 && stats_stream_median(&e) == 4);
		stats_stream_free(&a);
		stats_stream_free(&e);
	}
	sw_subtest("memory-stops-growing") {
		/* Values over the whole range and beyond: the buckets cover at
		 * most the bounded range, and a million more values add none. */
		struct stats_stream s = { 0 };
		stats_rng_seed(&rng, 11);
		for (int i = 0; i < 200000; i++) {
			double x = pow(10, -12 + 27 * (double)stats_rng_below(&rng, 1u << 30) / (1u << 30));
			stats_stream_add(&s, i % 2 ? x : -x);
		}
		uint32_t pos = s.pos.len, neg = s.neg.len;
		/* A bucket is at least ln γ wide in log2 (stats_stream.c). */
		double max_buckets = ceil(log2(STATS_STREAM_MAX_ABS / STATS_STREAM_MIN_ABS) /
					  log((1 + STATS_STREAM_REL_ERR) / (1 - STATS_STREAM_REL_ERR))) + 2;
		sw_assert_f(pos <= max_buckets && neg <= max_buckets, "%u and %u buckets, at most %.0f",
			    pos, neg, max_buckets);
		sw_assert_f((pos + neg) * sizeof(uint64_t) < 2 * 56 * 1024, "%zu bytes",
			    (pos + neg) * sizeof(uint64_t));
		for (int i = 0; i < 1000000; i++)
			stats_stream_add(&s, (double)stats_rng_below(&rng, 1000000) / 7.0);
		sw_assert(s.pos.len == pos && s.neg.len == neg);
		/* Exact, far beyond the last bucket. */
		sw_assert(s.max > 100 * STATS_STREAM_MAX_ABS && s.min < -100 * STATS_STREAM_MAX_ABS);
		stats_stream_free(&s);
	}
	sw_subtest("fixed-stream-never-changes-its-memory") {
		/* What a week of frames does to a compositor's series: values
		 * in and far beyond the range, both signs, and merges. */
		size_t base = stats_stream_bytes();
		struct stats_stream s, a = { 0 };
		sw_assert_eq(stats_stream_init_fixed(&s, 1e-3, 1e5, false), 0);
		size_t held = stats_stream_bytes() - base;
		sw_assert_f(held == s.pos.len * sizeof(uint64_t) && s.neg.len == 0, "%zu bytes", held);
		const uint64_t *counts = s.pos.counts;
		uint32_t len = s.pos.len;
		stats_rng_seed(&rng, 13);
		for (int i = 0; i < 200000; i++) {
			double x = pow(10, -12 + 27 * (double)stats_rng_below(&rng, 1u << 30) / (1u << 30));
			sw_assert_eq(stats_stream_add(&s, i % 5 ? x : -x), 0);
			stats_stream_add(&a, x);
		}
		sw_assert_eq(stats_stream_merge(&s, &a), 0);
		sw_assert(s.pos.counts == counts && s.pos.len == len && s.neg.len == 0);
		sw_assert_f(stats_stream_bytes() - base == held + (a.pos.len + a.neg.len) * sizeof(uint64_t),
			    "%zu bytes, %zu expected", stats_stream_bytes() - base,
			    held + (a.pos.len + a.neg.len) * sizeof(uint64_t));
		sw_assert(s.n == 400000 && s.min < -1e14 && s.max > 1e14);
		stats_stream_free(&a);
		stats_stream_free(&s);
		sw_assert_f(stats_stream_bytes() == base, "%zu bytes left", stats_stream_bytes() - base);
	}
	sw_subtest("fixed-stream-counts-outside-values-at-its-ends") {
		struct stats_stream s;
		sw_assert_eq(stats_stream_init_fixed(&s, 1, 100, false), 0);
		stats_stream_add(&s, -3);   /* no negative buckets: counts as 0 */
		stats_stream_add(&s, 1e-3); /* below the range: its lowest value */
		stats_stream_add(&s, 5);
		stats_stream_add(&s, 1e-3);
		stats_stream_add(&s, 1e6);  /* above: its highest */
		stats_stream_add(&s, 1e6);
		sw_assert(stats_stream_rank(&s, 0) == -3 && stats_stream_rank(&s, 5) == 1e6);
		sw_assert(s.zero == 1);
		sw_assert_f(within_bound(stats_stream_rank(&s, 1), 1) && within_bound(stats_stream_rank(&s, 2), 1),
			    "ranks 1, 2: %g, %g", stats_stream_rank(&s, 1), stats_stream_rank(&s, 2));
		sw_assert_f(within_bound(stats_stream_rank(&s, 3), 5), "rank 3: %g", stats_stream_rank(&s, 3));
		sw_assert_f(within_bound(stats_stream_rank(&s, 4), 100), "rank 4: %g", stats_stream_rank(&s, 4));
		stats_stream_free(&s);
	}
	sw_subtest("bytes-held-counts-every-stream") {
		/* stats_stream_bytes() is the buckets of all live streams:
		 * growing, merging and freeing keep it exact. */
		size_t base = stats_stream_bytes();
		struct stats_stream a = { 0 }, b = { 0 };
		for (int i = 1; i <= 1000; i++) {
			stats_stream_add(&a, i * 0.01);
			stats_stream_add(&b, -i * 100.0);
		}
		stats_stream_merge(&a, &b);
		size_t held = (a.pos.len + a.neg.len + b.pos.len + b.neg.len) * sizeof(uint64_t);
		sw_assert_f(stats_stream_bytes() - base == held, "%zu bytes counted, %zu held",
			    stats_stream_bytes() - base, held);
		stats_stream_free(&b);
		sw_assert(stats_stream_bytes() - base == (a.pos.len + a.neg.len) * sizeof(uint64_t));
		stats_stream_free(&a);
		sw_assert_f(stats_stream_bytes() == base, "%zu bytes left", stats_stream_bytes() - base);
	}
}

int main(int argc, char **argv)
{
	sw_test_init("stats-stream", argc, argv);
	test_quantiles();
	test_merge_and_memory();
	return sw_test_exit();
}
