/* The event loop's turns: see loop_stats.h. */
#include "loop_stats.h"

#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <wlr/util/log.h>

#include "clock.h"
#include "json.h"

/* The statistics of the loop being measured; NULL: none. */
static struct sw_loop_stats *measured;

struct sw_loop_stats *sw_loop_stats_create(struct wl_event_loop *loop, bool cpu_times)
{
	struct sw_loop_stats *stats = calloc(1, sizeof(*stats));
	if (!stats)
		return NULL;
	stats->epoll_fd = wl_event_loop_get_fd(loop);
	stats->started_ns = sw_clock_ns(CLOCK_MONOTONIC);
	stats->begin_ns = stats->started_ns;
	stats->cpu_times = cpu_times;
	if (cpu_times)
		stats->begin_cpu_ns = sw_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	measured = stats;
	return stats;
}

void sw_loop_stats_destroy(struct sw_loop_stats *stats)
{
	if (measured == stats)
		measured = NULL;
	free(stats);
}

/* The rare part of a turn's end: a new longest turn, or a long one. */
static void turn_long(struct sw_loop_stats *stats, int64_t d)
{
	const char *what = stats->what ? stats->what : "nothing noted";
	if (d > stats->max_ns) {
		stats->max_ns = d;
		stats->max_at_ns = stats->begin_ns - stats->started_ns;
		stats->max_what = stats->what;
	}
	if (d > SW_LOOP_LONG_NS) {
		stats->long_turns++;
		if (stats->cpu_times)
			wlr_log(WLR_INFO, "event loop: a turn took %.1f ms after %.3f s (%s), "
				"%.1f ms of it on a CPU", d / 1e6,
				(stats->begin_ns - stats->started_ns) / 1e9, what,
				(sw_clock_ns(CLOCK_THREAD_CPUTIME_ID) - stats->begin_cpu_ns) / 1e6);
	}
}

/* libc's epoll_wait() for every caller, with the measured loop's wait
 * between two turns (see loop_stats.h). epoll_pwait() with no signal mask
 * is the same system call. */
int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
	struct sw_loop_stats *stats = measured;
	if (!stats || epfd != stats->epoll_fd)
		return epoll_pwait(epfd, events, maxevents, timeout, NULL);

	int64_t d = sw_clock_ns(CLOCK_MONOTONIC) - stats->begin_ns;
	stats->turns++;
	if (d > stats->window_max_ns)
		stats->window_max_ns = d;
	if (d > stats->max_ns || d > SW_LOOP_LONG_NS)
		turn_long(stats, d);

	int n = epoll_pwait(epfd, events, maxevents, timeout, NULL);

	stats->begin_ns = sw_clock_ns(CLOCK_MONOTONIC);
	if (stats->cpu_times)
		stats->begin_cpu_ns = sw_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	stats->what = NULL;
	return n;
}

double sw_loop_stats_take_window_max(struct sw_loop_stats *stats)
{
	double ms = stats->window_max_ns / 1e6;
	stats->window_max_ns = 0;
	return ms;
}

void sw_loop_stats_print(const struct sw_loop_stats *stats, FILE *f)
{
	fprintf(f, "syncway: event loop: %llu turns, longest dispatch %.1f ms (after %.1f s, %s), "
		"%llu turns over %.1f ms\n", (unsigned long long)stats->turns, stats->max_ns / 1e6,
		stats->max_at_ns / 1e9, stats->max_what ? stats->max_what : "nothing noted",
		(unsigned long long)stats->long_turns, SW_LOOP_LONG_NS / 1e6);
}

void sw_loop_stats_write_json(const struct sw_loop_stats *stats, FILE *f)
{
	fprintf(f, ",\"loop_turns\":%llu,\"loop_longest_ms\":%.3f,\"loop_longest_at_s\":%.3f,"
		"\"loop_longest_what\":", (unsigned long long)stats->turns, stats->max_ns / 1e6,
		stats->max_at_ns / 1e9);
	if (stats->max_what)
		sw_json_string(f, stats->max_what);
	else
		fputs("null", f);
	fprintf(f, ",\"loop_long_turns\":%llu", (unsigned long long)stats->long_turns);
}
