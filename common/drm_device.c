#include "drm_device.h"
#include "syncobj.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

int sw_drm_open_render_node(char *err, size_t err_len)
{
	const char *path = getenv("SYNCWAY_DRM_DEVICE");
	char buf[64];

	if (!path || !*path) {
		path = NULL;
		for (int minor = 128; minor < 192 && !path; minor++) {
			snprintf(buf, sizeof(buf), "/dev/dri/renderD%d", minor);
			if (access(buf, F_OK) == 0)
				path = buf;
		}
		if (!path) {
			snprintf(err, err_len, "no DRM render node in /dev/dri");
			return -1;
		}
	}
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
	return fd;
}

static bool has_cap(int fd, uint64_t cap)
{
	uint64_t value = 0;
	return drmGetCap(fd, cap, &value) == 0 && value;
}

bool sw_drm_probe_syncobj(int fd, struct sw_syncobj_caps *caps, char *err, size_t err_len)
{
	memset(caps, 0, sizeof(*caps));
	drmVersionPtr version = drmGetVersion(fd);
	if (!version) {
		snprintf(err, err_len, "not a DRM device: %s", strerror(errno));
		return false;
	}
	snprintf(caps->driver, sizeof(caps->driver), "%s", version->name);
	caps->version_major = version->version_major;
	caps->version_minor = version->version_minor;
	caps->version_patchlevel = version->version_patchlevel;
	drmFreeVersion(version);

	caps->syncobj = has_cap(fd, DRM_CAP_SYNCOBJ);
	caps->syncobj_timeline = has_cap(fd, DRM_CAP_SYNCOBJ_TIMELINE);
	/* syncobj.c owns every syncobj ioctl, the probe included. */
	caps->eventfd = sw_syncobj_probe_eventfd(NULL, fd);
	return true;
}
