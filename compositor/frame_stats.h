/* Per-frame and per-commit accounting (fields: docs/compositor.md). */
#ifndef SYNCWAY_FRAME_STATS_H
#define SYNCWAY_FRAME_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sw_server;
struct sw_vblank_clock;
struct sw_frame_stats;
struct sw_output_stats;
struct wlr_output;
struct wlr_output_event_present;
struct wlr_scene_output;
struct wlr_surface;

/* Starts accounting: every surface's commits, a line on stderr every
 * server->options->report_interval_ms, JSON lines to options->stats_path
 * when set. Returns NULL (reason on stderr) if the file cannot be opened. */
struct sw_frame_stats *sw_frame_stats_create(struct sw_server *server);
/* Writes the summary (stderr, and a JSON "summary" line) and frees. */
void sw_frame_stats_destroy(struct sw_frame_stats *stats);
/* Counts open fds before the first client and after the last one left;
 * the summary compares the two (a leak check). */
void sw_frame_stats_mark_fds(struct sw_frame_stats *stats, bool clients_gone);

/* Final explicit-sync counters, for the JSON summary. */
struct sw_explicit_sync_counters;
void sw_frame_stats_explicit_sync_done(struct sw_frame_stats *stats,
				       const struct sw_explicit_sync_counters *counters);

/* clock: the output's vblank clock (NULL: none), which tells the missed
 * vblanks syncway slept through for want of a CPU. */
struct sw_output_stats *sw_frame_stats_add_output(struct sw_frame_stats *stats, struct wlr_output *output,
						 const struct sw_vblank_clock *clock);
void sw_frame_stats_remove_output(struct sw_output_stats *ostats);

/* A frame was committed: start..rendered is scene rendering,
 * rendered..end the output commit. Takes the thread's CPU time and the
 * syncobj ioctls since the previous frame (of any output). */
void sw_frame_stats_frame_committed(struct sw_output_stats *ostats, struct wlr_scene_output *scene_output,
				    uint64_t frame, uint32_t commit_seq, int64_t start_ns,
				    int64_t rendered_ns, int64_t end_ns);
/* The frame was presented (event) or will never be (NULL). */
void sw_frame_stats_frame_presented(struct sw_output_stats *ostats, uint64_t frame,
				    const struct wlr_output_event_present *event);

/* Explicit sync: commit seq of surface may now be applied (t_ns), either
 * right at commit (waited false) or after an eventfd wait. */
void sw_frame_stats_commit_acquired(struct sw_frame_stats *stats, struct wlr_surface *surface,
				    uint32_t seq, int64_t t_ns, bool waited);
/* commit-timing-v1: commit seq of surface is to be presented at target_ns
 * (CLOCK_MONOTONIC), not before. */
void sw_frame_stats_commit_target(struct sw_frame_stats *stats, struct wlr_surface *surface,
				  uint32_t seq, int64_t target_ns);

#endif
