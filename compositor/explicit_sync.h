/* linux-drm-syncobj-v1, syncway's own implementation (see
 * docs/compositor.md for the design and the rule table). */
#ifndef SYNCWAY_EXPLICIT_SYNC_H
#define SYNCWAY_EXPLICIT_SYNC_H

#include <stdint.h>
#include <stdio.h>

struct sw_server;
struct wlr_buffer;

struct sw_explicit_sync_counters {
	uint64_t timelines_imported, timelines_live;
	uint64_t commits;          /* commits that carried a buffer and points */
	uint64_t acquire_ready;    /* ... whose acquire point was already signalled */
	uint64_t acquire_waited;   /* ... that waited on an eventfd */
	uint64_t waits_cancelled;  /* waits dropped because the surface went away */
	uint64_t waits_polled;     /* waits watched by polling: no eventfd to be had */
	uint64_t clients_cut_off;  /* disconnected for holding the most when all
				    * clients' waiting surfaces reached the budget */
	uint64_t releases_signalled;
	uint64_t releases_fenced;   /* ... from a render fence (GPU renderers) */
	uint64_t releases_idle;     /* ... from the CPU, every render job done: the
				     * render fence was closed once signalled */
	uint64_t releases_deferred; /* ... after waiting for frames to retire */
	uint64_t release_errors;
	uint64_t protocol_errors;
};

/* Advertises wp_linux_drm_syncobj_manager_v1 (version 1); timelines are
 * imported into server->drm_fd and every ioctl is accounted in
 * server->syncobj_stats. The caller has checked that the device has
 * timelines and the eventfd ioctl. */
struct sw_explicit_sync *sw_explicit_sync_create(struct sw_server *server);
/* After the clients are gone: signals release points still waiting for
 * frames to retire, then frees everything. The final counters go to
 * *final when it is not NULL. */
void sw_explicit_sync_destroy(struct sw_explicit_sync *sync, struct sw_explicit_sync_counters *final);

/* A frame was rendered into target and is about to be committed (the
 * output's precommit): its render job's fence joins the one release points
 * import. Does nothing with pixman, whose reads are over by then. */
void sw_explicit_sync_frame_rendered(struct sw_explicit_sync *sync, struct wlr_buffer *target);

/* The counters as one line on f, and as a JSON object (the "explicit_sync"
 * of the --stats summary; keys: docs/compositor.md). */
void sw_explicit_sync_counters_print(FILE *f, const struct sw_explicit_sync_counters *counters);
void sw_explicit_sync_counters_write_json(FILE *f, const struct sw_explicit_sync_counters *counters);

#endif
