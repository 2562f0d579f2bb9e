/* fifo-v1 (wp_fifo_manager_v1): syncway's own implementation; see
 * docs/compositor.md, "Frame pacing". */
#ifndef SYNCWAY_FIFO_H
#define SYNCWAY_FIFO_H

#include <stdbool.h>
#include <stdint.h>

struct sw_server;
struct sw_fifo_manager;
struct wlr_output;

struct sw_fifo_counters {
	uint64_t barriers_set;
	uint64_t barriers_timed_out; /* cleared without a refresh, to keep clients going */
	/* Since the start: wait_barrier commits held for a refresh, and what
	 * became of them (the rest are held still). */
	uint64_t commits_held;
	uint64_t commits_released;
	uint64_t commits_dropped;    /* with their surface */
	uint64_t waits_ignored;      /* surface on no output, or a synchronized subsurface */
	uint64_t protocol_errors;
};

/* Advertises wp_fifo_manager_v1 (version 1), unless advertise is false:
 * then no client can use fifo-v1 and the frame path's calls below have
 * nothing to do. */
struct sw_fifo_manager *sw_fifo_manager_create(struct sw_server *server, bool advertise);
/* After the clients are gone. The final counters go to *final when it is
 * not NULL. */
void sw_fifo_manager_destroy(struct sw_fifo_manager *manager, struct sw_fifo_counters *final);

/* The output reached its latching deadline (its frame event): barriers of
 * the surfaces on it are cleared and their held commits may apply. */
void sw_fifo_output_latched(struct sw_fifo_manager *manager, struct wlr_output *output);

#endif
