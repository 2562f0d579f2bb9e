/* How long the event loop's turns take: the longest, per report window and
 * overall, and what a long one did. A turn that takes longer than a
 * refresh delays every frame and every client waiting on syncway, whatever
 * it dispatched.
 *
 * A turn is all that syncway does between two waits for events: the
 * dispatch of what woke it, the idle callbacks (where wlroots renders
 * frames on most backends), the flush to clients. The wait is inside
 * wl_event_loop_dispatch(), in its epoll_wait() on the loop's epoll fd, and
 * libwayland has no hook around it; so syncway's own epoll_wait() (in
 * loop_stats.c), which the dynamic linker gives libwayland instead of
 * libc's, ends a turn before that wait and begins the next after it. Two
 * CLOCK_MONOTONIC reads a turn (the vDSO), no system call more: the peer
 * comparison counts what a frame costs the compositor, and waiting in a
 * poll() of our own before a dispatch that does not wait would have added
 * one to every turn.
 *
 * The few handlers that can do slow work name it with sw_loop_stats_note();
 * a long turn is reported with the last name noted in it. Where a turn's
 * time went when syncway did not run (another task had the CPU, or a
 * system call blocked) shows in its CPU time, which costs a system call a
 * turn: only when asked for (syncway -v, which logs each long turn). */
#ifndef SYNCWAY_LOOP_STATS_H
#define SYNCWAY_LOOP_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <wayland-server-core.h>

/* One refresh at 60 Hz: a turn longer than this is a stall. */
#define SW_LOOP_LONG_NS 16700000

struct sw_loop_stats {
	int epoll_fd;       /* the measured loop's */
	int64_t started_ns; /* sw_loop_stats_create() */
	int64_t begin_ns;   /* of the current turn */
	bool cpu_times;     /* read the thread's CPU time at each turn */
	int64_t begin_cpu_ns;
	const char *what;   /* noted in the current turn, or NULL */
	uint64_t turns, long_turns;
	int64_t window_max_ns; /* since the last sw_loop_stats_take_window_max() */
	int64_t max_ns, max_at_ns; /* overall, and when that turn began */
	const char *max_what;
};

/* Measures loop's turns (one loop at a time) from here: the first turn
 * begins now, so create it just before the loop runs. With cpu_times, each
 * turn over SW_LOOP_LONG_NS is logged (info level) with the CPU time
 * syncway's thread used in it. */
struct sw_loop_stats *sw_loop_stats_create(struct wl_event_loop *loop, bool cpu_times);
void sw_loop_stats_destroy(struct sw_loop_stats *stats);

/* Names the slow work the current turn does (a string that lives as long
 * as the statistics); stats may be NULL. */
static inline void sw_loop_stats_note(struct sw_loop_stats *stats, const char *what)
{
	if (stats)
		stats->what = what;
}

/* The longest turn since the previous call (since the start for the
 * first), in ms; starts the next window. */
double sw_loop_stats_take_window_max(struct sw_loop_stats *stats);

/* "syncway: event loop: N turns, longest dispatch X.X ms (after T s,
 * WHAT), K turns over 16.7 ms". */
void sw_loop_stats_print(const struct sw_loop_stats *stats, FILE *f);

/* The same as JSON members, each preceded by a comma, for a summary
 * object: "loop_turns", "loop_longest_ms", "loop_longest_at_s",
 * "loop_longest_what" (null when nothing was noted), "loop_long_turns". */
void sw_loop_stats_write_json(const struct sw_loop_stats *stats, FILE *f);

#endif
