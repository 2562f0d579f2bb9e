/* Time as int64_t nanoseconds, the unit every syncway program counts in. */
#ifndef SYNCWAY_CLOCK_H
#define SYNCWAY_CLOCK_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static inline int64_t sw_timespec_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t sw_timeval_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

static inline struct timespec sw_ns_timespec(int64_t ns)
{
	return (struct timespec){ .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
}

/* clock_gettime(clock) in ns (the vDSO for the usual clocks: no syscall). */
static inline int64_t sw_clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return sw_timespec_ns(ts);
}

#endif
