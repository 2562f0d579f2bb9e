/* A client-side timeline: a syncobj in the client's DRM device, imported
 * into the compositor as a wp_linux_drm_syncobj_timeline_v1. Every ioctl
 * goes through common/syncobj.h, accounted in the stats the caller owns. */
#ifndef SW_CLIENT_TIMELINE_H
#define SW_CLIENT_TIMELINE_H

#include <stdint.h>

#include "syncobj.h"

struct wp_linux_drm_syncobj_manager_v1;

struct sw_timeline {
	int drm_fd;
	uint32_t handle;
	struct wp_linux_drm_syncobj_timeline_v1 *proxy;
	struct sw_syncobj_stats *stats;
	uint64_t point; /* last point handed out */
};

/* CREATE + HANDLE_TO_FD, import_timeline, close. NULL on failure. */
struct sw_timeline *sw_timeline_create(struct wp_linux_drm_syncobj_manager_v1 *manager, int drm_fd,
				       struct sw_syncobj_stats *stats);
void sw_timeline_destroy(struct sw_timeline *t);

/* CPU signal of a point (TIMELINE_SIGNAL). stats may differ from t->stats
 * (another thread signals with its own). */
int sw_timeline_signal(struct sw_timeline *t, struct sw_syncobj_stats *stats, uint64_t point);
/* 1 signalled, 0 not (yet), -errno. One TIMELINE_WAIT poll. */
int sw_timeline_signalled(struct sw_timeline *t, uint64_t point);
/* A new non-blocking eventfd the kernel bumps once point is signalled
 * (EVENTFD ioctl); -1 on failure. The caller closes it. */
int sw_timeline_eventfd(struct sw_timeline *t, uint64_t point);

#endif
