/* Bounded-memory series: see stats_stream.h for the error bound. */
#include "stats_stream.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A stream grows its buckets by at least this many at a time: a series
 * wanders over a few neighbouring buckets, and one realloc() per new
 * bucket would be most of its cost. */
#define GROW_SLACK 32

/* The mapping: L(m) = e + f - 1 for m = 2^e f, 1 <= f < 2, a base-2
 * logarithm interpolated linearly between powers of two (DDSketch's
 * LinearlyInterpolatedMapping): no logarithm to compute, only the bits of
 * m. Bucket i holds L in ((i - 1) w, i w]. dL / d(ln m) = f lies in [1, 2),
 * so a bucket spans at most w in ln m: with w = ln γ, hi / lo <= γ, and the
 * value 2 lo hi / (lo + hi) is within (γ - 1) / (γ + 1) = α of all of it. */
static double bucket_width(void)
{
	static double w;
	if (w == 0)
		w = log((1 + STATS_STREAM_REL_ERR) / (1 - STATS_STREAM_REL_ERR));
	return w;
}

static double interpolated_log2(double m)
{
	uint64_t bits;
	memcpy(&bits, &m, sizeof(bits));
	int e = (int)((bits >> 52) & 0x7ff) - 1023;
	double f = (double)(bits & ((UINT64_C(1) << 52) - 1)) / (double)(UINT64_C(1) << 52);
	return e + f;
}

/* The inverse of interpolated_log2(). */
static double interpolated_exp2(double l)
{
	double e = floor(l);
	return ldexp(1 + (l - e), (int)e);
}

/* Magnitudes from STATS_STREAM_MIN_ABS on; larger than the maximum go to
 * its bucket. */
static int32_t bucket_of(double m)
{
	static double per_unit; /* 1 / bucket_width() */
	if (per_unit == 0)
		per_unit = 1 / bucket_width();
	if (m > STATS_STREAM_MAX_ABS)
		m = STATS_STREAM_MAX_ABS;
	/* ceil(), which is a call without SSE4.1: conversion truncates
	 * towards 0, which is the ceiling of a negative value already. */
	double y = interpolated_log2(m) * per_unit;
	int32_t i = (int32_t)y;
	return y > i ? i + 1 : i;
}

static double bucket_value(int32_t i)
{
	double lo = interpolated_exp2((i - 1) * bucket_width());
	double hi = interpolated_exp2(i * bucket_width());
	return 2 * lo * hi / (lo + hi);
}

/* The bytes of buckets every stream of the process holds: one program's
 * streams live on one thread (syncway's event loop). */
static size_t held_bytes;

size_t stats_stream_bytes(void)
{
	return held_bytes;
}

/* Makes [lo, hi] part of b's range; false when out of memory. */
static bool buckets_cover(struct stats_stream_buckets *b, int32_t lo, int32_t hi)
{
	if (b->len && lo >= b->first && hi < b->first + (int32_t)b->len)
		return true;
	int32_t min = bucket_of(STATS_STREAM_MIN_ABS), max = bucket_of(STATS_STREAM_MAX_ABS);
	int32_t first = lo, last = hi;
	if (b->len) {
		if (b->first < first)
			first = b->first;
		if (b->first + (int32_t)b->len - 1 > last)
			last = b->first + (int32_t)b->len - 1;
	}
	first = first - GROW_SLACK < min ? min : first - GROW_SLACK;
	last = last + GROW_SLACK > max ? max : last + GROW_SLACK;
	uint32_t len = (uint32_t)(last - first + 1);
	uint64_t *counts = calloc(len, sizeof(*counts));
	if (!counts)
		return false;
	if (b->len)
		memcpy(counts + (b->first - first), b->counts, b->len * sizeof(*counts));
	free(b->counts);
	held_bytes += (size_t)(len - b->len) * sizeof(*counts);
	b->counts = counts;
	b->first = first;
	b->len = len;
	return true;
}

/* Adds count to bucket i, or, out of memory or out of a fixed stream's
 * range, to the nearest one there is (or to the zero bucket of s when b
 * has none). */
static int buckets_add(struct stats_stream *s, struct stats_stream_buckets *b, int32_t i,
		       uint64_t count)
{
	if (!s->fixed && buckets_cover(b, i, i)) {
		b->counts[i - b->first] += count;
		return 0;
	}
	if (!b->len)
		s->zero += count;
	else if (i < b->first)
		b->counts[0] += count;
	else if (i >= b->first + (int32_t)b->len)
		b->counts[b->len - 1] += count;
	else
		b->counts[i - b->first] += count;
	return s->fixed ? 0 : -ENOMEM;
}

static bool buckets_reserve(struct stats_stream_buckets *b, int32_t first, int32_t last)
{
	uint32_t len = (uint32_t)(last - first + 1);
	/* malloc() and clear rather than calloc(), which may leave fresh
	 * pages untouched: they are resident now, and the process's RSS
	 * does not creep up later as values reach them. */
	uint64_t *counts = malloc(len * sizeof(*counts));
	if (!counts)
		return false;
	memset(counts, 0, len * sizeof(*counts));
	held_bytes += (size_t)len * sizeof(*counts);
	*b = (struct stats_stream_buckets){ .first = first, .len = len, .counts = counts };
	return true;
}

int stats_stream_init_fixed(struct stats_stream *s, double lo, double hi, bool negative)
{
	*s = (struct stats_stream){ 0 };
	int32_t first = bucket_of(lo), last = bucket_of(hi);
	if (!buckets_reserve(&s->pos, first, last) ||
	    (negative && !buckets_reserve(&s->neg, first, last))) {
		stats_stream_free(s);
		return -ENOMEM;
	}
	s->fixed = true;
	return 0;
}

int stats_stream_add(struct stats_stream *s, double x)
{
	if (isnan(x))
		return -EDOM;
	if (s->n == 0 || x < s->min)
		s->min = x;
	if (s->n == 0 || x > s->max)
		s->max = x;
	s->n++;
	s->sum += x;
	double m = fabs(x);
	if (m < STATS_STREAM_MIN_ABS) {
		s->zero++;
		return 0;
	}
	struct stats_stream_buckets *b = x > 0 ? &s->pos : &s->neg;
	int32_t i = bucket_of(m);
	if (i >= b->first && i - b->first < (int32_t)b->len) {
		b->counts[i - b->first]++;
		return 0;
	}
	return buckets_add(s, b, i, 1);
}

static int buckets_merge(struct stats_stream *dst, struct stats_stream_buckets *d,
			 const struct stats_stream_buckets *src)
{
	if (!src->len)
		return 0;
	int err = 0;
	if (!dst->fixed && !buckets_cover(d, src->first, src->first + (int32_t)src->len - 1))
		err = -ENOMEM;
	for (uint32_t k = 0; k < src->len; k++)
		if (src->counts[k] && buckets_add(dst, d, src->first + (int32_t)k, src->counts[k]))
			err = -ENOMEM;
	return err;
}

int stats_stream_merge(struct stats_stream *dst, const struct stats_stream *src)
{
	if (src->n == 0)
		return 0;
	if (dst->n == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->n == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	dst->zero += src->zero;
	int a = buckets_merge(dst, &dst->pos, &src->pos);
	int b = buckets_merge(dst, &dst->neg, &src->neg);
	return a ? a : b;
}

void stats_stream_free(struct stats_stream *s)
{
	free(s->pos.counts);
	free(s->neg.counts);
	held_bytes -= (size_t)(s->pos.len + s->neg.len) * sizeof(*s->pos.counts);
	*s = (struct stats_stream){ 0 };
}

double stats_stream_rank(const struct stats_stream *s, uint64_t r)
{
	if (r >= s->n)
		return NAN;
	if (r == 0)
		return s->min;
	if (r == s->n - 1)
		return s->max;
	/* Ascending: the negative buckets from the largest magnitude down,
	 * the zeros, the positive ones from the smallest magnitude up. */
	double v = 0;
	uint64_t seen = 0;
	bool found = false;
	for (uint32_t k = s->neg.len; k-- > 0 && !found;) {
		seen += s->neg.counts[k];
		if (r < seen) {
			v = -bucket_value(s->neg.first + (int32_t)k);
			found = true;
		}
	}
	if (!found) {
		seen += s->zero;
		found = r < seen;
	}
	for (uint32_t k = 0; k < s->pos.len && !found; k++) {
		seen += s->pos.counts[k];
		if (r < seen) {
			v = bucket_value(s->pos.first + (int32_t)k);
			found = true;
		}
	}
	/* Within the bucket and within [min, max], so closer to the truth. */
	return v < s->min ? s->min : v > s->max ? s->max : v;
}

double stats_stream_percentile(const struct stats_stream *s, double p)
{
	if (s->n == 0)
		return NAN;
	/* The same rank as stats_percentile(), its rounding forgiven alike. */
	double rank = p / 100 * (double)s->n;
	rank = ceil(rank - rank * 1e-12);
	if (rank > (double)s->n)
		rank = (double)s->n;
	return stats_stream_rank(s, rank < 1 ? 0 : (uint64_t)rank - 1);
}

double stats_stream_median(const struct stats_stream *s)
{
	return stats_stream_rank(s, s->n / 2);
}

double stats_stream_mean(const struct stats_stream *s)
{
	return s->n ? s->sum / (double)s->n : 0;
}
