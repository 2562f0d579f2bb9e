/* Between the three files of linux-drm-syncobj-v1: the state they share
 * (struct sw_explicit_sync) and the imported timelines every commit's
 * points, waits and release trackers reference. explicit_sync.c owns the
 * protocol objects and commit validation, acquire_wait.c the commits held
 * on acquire points, release.c the release points. Nothing else includes
 * this. */
#ifndef SYNCWAY_EXPLICIT_SYNC_INTERNAL_H
#define SYNCWAY_EXPLICIT_SYNC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "explicit_sync.h"

struct sw_syncobj_stats;
struct wlr_buffer;

struct sw_explicit_sync {
	struct sw_server *server;
	struct wl_global *global;
	int drm_fd; /* server's */
	struct sw_syncobj_stats *stats; /* server's */

	/* Whether rendering may still be running after the output commit
	 * (GPU renderers); pixman has finished reading when it returns. */
	bool release_after_frames;
	/* A sync_file that signals once every fenced render job submitted so
	 * far has finished: the fences of the frames' render targets, merged,
	 * or the newest alone once the ones before it have signalled. -1
	 * before the first fenced frame, and after the timer closed a
	 * signalled one (then render_fence_seq > 0). */
	int render_fence;
	uint64_t render_fence_seq; /* bumped whenever a fence becomes render_fence */
	/* Armed while there is a render fence; closes it once it has
	 * signalled: an idle syncway holds no sync_file (release.c). */
	struct wl_event_source *render_fence_timer;
	/* Where the kernel cannot import a sync_file at a timeline point
	 * (before Linux 6.16): a binary syncobj of syncway's holding the
	 * render fence as of render_syncobj_seq, which release points take it
	 * from (release.c: release_import). Made at start-up with a GPU
	 * renderer, so that a leak check never sees it come; 0 without, and
	 * once the kernel has imported at a point. */
	uint32_t render_syncobj;
	uint64_t render_syncobj_seq;
	/* The number of the newest frame whose render target had no pending
	 * fence (none at all, or already signalled when the frame was
	 * submitted: a CPU rasteriser, or a driver without implicit fences).
	 * Nothing but its retiring says such a frame is done reading. */
	uint64_t unfenced_frame;
	bool unfenced_logged;
	/* The render target of the newest frame rendered while no release
	 * tracker existed, whose fence was not taken then (the frame's
	 * number: stale_frame), or NULL. Such a frame read no buffer with a
	 * pending release point; its fence is taken only once one could need
	 * it (release.c: collect_stale_fence). */
	struct wlr_buffer *stale_target;
	uint64_t stale_frame;
	struct wl_listener stale_target_destroy;

	struct wl_list queues;   /* sw_wait_queue.link */
	struct wl_list clients;  /* sw_sync_client.link */
	/* Waits watched by polling their point, for want of an eventfd
	 * (sw_acquire_wait.poll_link), and the timer that polls them; made at
	 * start-up, since at the fd limit a timer could not be. */
	struct wl_list polled;
	struct wl_event_source *poll_timer;
	size_t watched; /* surfaces of all clients with a waiting commit */
	/* Fired eventfds kept for later waits (sw_acquire_eventfd.link), and
	 * the timer that closes those left unused. */
	struct wl_list eventfds;
	size_t pooled_eventfds;
	struct wl_event_source *eventfd_timer;
	uint32_t eventfd_tick;
	bool eventfd_timer_armed;
	struct wl_list releases; /* sw_release.link */
	struct wl_listener frames_retired;

	struct sw_explicit_sync_counters counters;
};

/* An imported drm_syncobj. The protocol object, pending/cached/current
 * states, waits and release trackers each hold a reference, so destroying
 * the wp_linux_drm_syncobj_timeline_v1 leaves points already set working. */
struct sw_imported_timeline {
	struct sw_explicit_sync *sync;
	uint32_t handle;
	uint32_t resource_id; /* for error messages, also after it is gone */
	int refs;
};

/* A reference taken (NULL passes through) and dropped; the last one
 * destroys the syncobj handle. */
struct sw_imported_timeline *timeline_ref(struct sw_imported_timeline *timeline);
void timeline_unref(struct sw_imported_timeline *timeline);

#endif
