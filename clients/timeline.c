#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <xf86drm.h>

#include "linux-drm-syncobj-v1-client-protocol.h"
#include "timeline.h"

struct sw_timeline *sw_timeline_create(struct wp_linux_drm_syncobj_manager_v1 *manager, int drm_fd,
				       struct sw_syncobj_stats *stats)
{
	struct sw_timeline *t = calloc(1, sizeof(*t));
	int fd;
	t->drm_fd = drm_fd;
	t->stats = stats;
	if (sw_syncobj_create(stats, drm_fd, 0, &t->handle)) {
		free(t);
		return NULL;
	}
	if (sw_syncobj_handle_to_fd(stats, drm_fd, t->handle, &fd)) {
		sw_syncobj_destroy(stats, drm_fd, t->handle);
		free(t);
		return NULL;
	}
	t->proxy = wp_linux_drm_syncobj_manager_v1_import_timeline(manager, fd);
	close(fd); /* libwayland sends a copy */
	return t;
}

void sw_timeline_destroy(struct sw_timeline *t)
{
	if (!t)
		return;
	wp_linux_drm_syncobj_timeline_v1_destroy(t->proxy);
	sw_syncobj_destroy(t->stats, t->drm_fd, t->handle);
	free(t);
}

int sw_timeline_signal(struct sw_timeline *t, struct sw_syncobj_stats *stats, uint64_t point)
{
	return sw_syncobj_timeline_signal(stats, t->drm_fd, &t->handle, &point, 1);
}

int sw_timeline_signalled(struct sw_timeline *t, uint64_t point)
{
	return sw_syncobj_point_signalled(t->stats, t->drm_fd, t->handle, point);
}

int sw_timeline_eventfd(struct sw_timeline *t, uint64_t point)
{
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0)
		return -1;
	if (sw_syncobj_eventfd(t->stats, t->drm_fd, t->handle, point, 0, efd)) {
		int err = errno;
		close(efd);
		errno = err;
		return -1;
	}
	return efd;
}
