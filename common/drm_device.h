/* Finding the DRM render node and what its syncobj support is. */
#ifndef SYNCWAY_DRM_DEVICE_H
#define SYNCWAY_DRM_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

struct sw_syncobj_caps {
	char driver[32];
	int version_major, version_minor, version_patchlevel;
	bool syncobj;          /* DRM_CAP_SYNCOBJ */
	bool syncobj_timeline; /* DRM_CAP_SYNCOBJ_TIMELINE */
	bool eventfd;          /* DRM_IOCTL_SYNCOBJ_EVENTFD exists */
};

/* Opens $SYNCWAY_DRM_DEVICE, or else the first render node. Returns the fd,
 * or -1 with a reason in err. */
int sw_drm_open_render_node(char *err, size_t err_len);

/* Fills caps; returns false (reason in err) when the device cannot be asked. */
bool sw_drm_probe_syncobj(int fd, struct sw_syncobj_caps *caps, char *err, size_t err_len);

/* Explicit sync as linux-drm-syncobj-v1 needs it: timelines and eventfds. */
static inline bool sw_syncobj_caps_explicit_sync(const struct sw_syncobj_caps *caps)
{
	return caps->syncobj_timeline && caps->eventfd;
}

#endif
