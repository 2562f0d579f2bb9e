/* What explicit_sync.c asks of release.c: a release tracker per accepted
 * commit, the frames_retired listener, and the trackers' end at exit.
 * Nothing else includes this. */
#ifndef SYNCWAY_RELEASE_H
#define SYNCWAY_RELEASE_H

#include <stdbool.h>
#include <stdint.h>

struct sw_explicit_sync;
struct sw_imported_timeline;
struct wl_listener;
struct wlr_buffer;

/* Signals point on timeline once the compositor is done with buffer; the
 * tracker takes a timeline reference. false when out of memory. */
bool release_create(struct sw_explicit_sync *sync, struct wlr_buffer *buffer,
		    struct sw_imported_timeline *timeline, uint64_t point);
/* On server->events.frames_retired: the releases that waited for those
 * frames go. */
void handle_frames_retired(struct wl_listener *listener, void *data);
/* The render fence's timer; false when it cannot be made. */
bool release_trackers_init(struct sw_explicit_sync *sync);
/* After the waits: released buffers' points go now, the others are
 * dropped unsignalled. */
void release_trackers_finish(struct sw_explicit_sync *sync);

#endif
