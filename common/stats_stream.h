/* A series summarized in bounded memory, for the figures of a program that
 * runs for weeks (syncway's frame accounting), where keeping every sample
 * would grow with uptime.
 *
 * Count, sum (so the mean), minimum and maximum are exact. Quantiles come
 * from a histogram of logarithmic buckets, as in DDSketch (Masson, Rim and
 * Lee, "DDSketch: a fast and fully-mergeable quantile sketch with
 * relative-error guarantees", VLDB 2019), with its linearly interpolated
 * mapping (no logarithm computed, stats_stream.c): no bucket spans more
 * than a factor γ = (1 + α) / (1 − α), and each stands for a value within
 * α of every magnitude in it. So the value a stream gives for a rank is
 * within STATS_STREAM_REL_ERR (relative) of the value of that rank in the
 * sorted series, for magnitudes from STATS_STREAM_MIN_ABS to
 * STATS_STREAM_MAX_ABS. Smaller magnitudes count as 0 (an absolute error
 * below STATS_STREAM_MIN_ABS); larger ones fall into the last bucket, and
 * the lowest and highest ranks are the exact minimum and maximum.
 *
 * Memory: the buckets between the smallest and the largest magnitude seen,
 * 8 bytes each, about 330 per decade; at most about 56 KB a sign, however
 * many values are added. Two streams merge exactly (the result is the
 * stream of both series). A zeroed struct is an empty stream.
 *
 * A stream made by stats_stream_init_fixed() instead has the buckets of a
 * given range from the start and never others, so its memory does not
 * change at all while a program runs: the error bound holds inside the
 * range, a value outside counts as the nearest value the range has (0 for
 * a negative one when it has no negative buckets), and min and max stay
 * exact. */
#ifndef SYNCWAY_STATS_STREAM_H
#define SYNCWAY_STATS_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STATS_STREAM_REL_ERR 0.005
#define STATS_STREAM_MIN_ABS 1e-9
#define STATS_STREAM_MAX_ABS 1e12

struct stats_stream_buckets {
	int32_t first;     /* bucket index of counts[0] */
	uint32_t len;
	uint64_t *counts;
};

struct stats_stream {
	uint64_t n;
	double sum, min, max;
	uint64_t zero;     /* magnitudes below STATS_STREAM_MIN_ABS */
	struct stats_stream_buckets pos, neg;
	bool fixed; /* stats_stream_init_fixed(): the buckets never change */
};

/* An empty stream with the buckets of magnitudes lo to hi (0 < lo < hi),
 * of both signs when negative is true, resident in memory now; -ENOMEM
 * (s is then an empty adaptive stream). */
int stats_stream_init_fixed(struct stats_stream *s, double lo, double hi, bool negative);

/* Adds x. -EDOM for NaN (not added). -ENOMEM when its bucket could not be
 * allocated: x still counts, in the nearest bucket there is (exact in
 * count, sum, min and max, beyond the error bound in quantiles). A fixed
 * stream never allocates. */
int stats_stream_add(struct stats_stream *s, double x);
/* dst += src; -ENOMEM as stats_stream_add(). */
int stats_stream_merge(struct stats_stream *dst, const struct stats_stream *src);
void stats_stream_free(struct stats_stream *s);
/* The bytes of buckets all streams of the process hold now (not thread
 * safe: one thread's streams). */
size_t stats_stream_bytes(void);

/* The value of rank r (0 = the smallest) of the series sorted ascending,
 * within the error bound; NaN when r >= n. */
double stats_stream_rank(const struct stats_stream *s, uint64_t r);
/* Nearest rank, as stats_percentile(): rank ceil(p/100 · n) − 1. */
double stats_stream_percentile(const struct stats_stream *s, double p);
/* The upper median, rank n / 2, as ministat prints it. */
double stats_stream_median(const struct stats_stream *s);
/* sum / n; 0 for an empty stream. */
double stats_stream_mean(const struct stats_stream *s);

#endif
