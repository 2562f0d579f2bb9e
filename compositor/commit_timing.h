/* commit-timing-v1 (wp_commit_timing_manager_v1): syncway's own
 * implementation; see docs/compositor.md, "Frame pacing". */
#ifndef SYNCWAY_COMMIT_TIMING_H
#define SYNCWAY_COMMIT_TIMING_H

#include <stdbool.h>
#include <stdint.h>

struct sw_server;
struct sw_commit_timing_manager;
struct wlr_output;

struct sw_commit_timing_counters {
	/* Since the start: commits held, their target time still ahead at
	 * commit, and what became of them (the rest are held still). */
	uint64_t commits_held;
	uint64_t commits_released; /* applied once it came */
	uint64_t commits_dropped;  /* with their surface */
	uint64_t targets_past;     /* target time already past at commit */
	uint64_t protocol_errors;
};

/* Advertises wp_commit_timing_manager_v1 (version 1), unless advertise is
 * false: then no client can set a target. */
struct sw_commit_timing_manager *sw_commit_timing_manager_create(struct sw_server *server, bool advertise);
/* After the clients are gone. The final counters go to *final when it is
 * not NULL. */
void sw_commit_timing_manager_destroy(struct sw_commit_timing_manager *manager,
				      struct sw_commit_timing_counters *final);

/* The output is about to render a frame that will be presented at
 * present_ns (its best guess; never later than the real time): held
 * commits of the surfaces on it whose target is not after that apply now,
 * so that the frame shows them. */
void sw_commit_timing_output_latching(struct sw_commit_timing_manager *manager,
				      struct wlr_output *output, int64_t present_ns);

#endif
