/* What explicit_sync.c asks of acquire_wait.c: hold a commit until its
 * acquire point is signalled, and cancel every held commit at exit.
 * Nothing else includes this. */
#ifndef SYNCWAY_ACQUIRE_WAIT_H
#define SYNCWAY_ACQUIRE_WAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sw_explicit_sync;
struct sw_imported_timeline;
struct wlr_surface;

/* Holds surface's pending commit until point on timeline is signalled; the
 * wait takes a timeline reference. false with *cap set when a cap forbids
 * it (the words, in cap_buf), false with *cap NULL when the compositor
 * cannot wait (out of fds or memory). */
bool wait_create(struct sw_explicit_sync *sync, struct wlr_surface *surface,
		 struct sw_imported_timeline *timeline, uint64_t point, const char **cap,
		 char *cap_buf, size_t cap_len);
/* The lists and the poll timer, at start-up; false when they cannot be
 * made. */
bool wait_queues_init(struct sw_explicit_sync *sync);
/* Every held commit of every surface, cancelled; the timer and the pooled
 * eventfds go. */
void wait_queues_finish(struct sw_explicit_sync *sync);

#endif
