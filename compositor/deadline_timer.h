/* A timer on the event loop at absolute CLOCK_MONOTONIC times, the clock of
 * presentation times (deadline_timer.c). */
#ifndef SYNCWAY_DEADLINE_TIMER_H
#define SYNCWAY_DEADLINE_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct wl_event_loop;
struct wl_event_source;

struct sw_deadline_timer {
	int fd;
	struct wl_event_source *source;
	void (*fire)(void *data);
	void *data;
	char name[48]; /* for its error messages */
};

/* fire(data) runs from the event loop at each expiry (several slept
 * through count as one). false, with errno set, when there is no timer. */
bool sw_deadline_timer_init(struct sw_deadline_timer *timer, struct wl_event_loop *loop,
			    const char *name, void (*fire)(void *data), void *data);
void sw_deadline_timer_finish(struct sw_deadline_timer *timer);

/* Expires at at_ns, then every period_ns if not 0; replaces what was
 * armed before. Logs and returns false when the kernel refuses. */
bool sw_deadline_timer_arm(struct sw_deadline_timer *timer, int64_t at_ns, int64_t period_ns);

#endif
