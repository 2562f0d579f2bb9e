#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "buffer.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "window.h"

static void buffer_handle_release(void *data, struct wl_buffer *wl_buffer)
{
	/* Counted, never relied on: release points are the contract. */
	struct sw_buffer *b = data;
	b->wl_releases++;
}
static const struct wl_buffer_listener buffer_listener = { .release = buffer_handle_release };

const char *sw_buffer_type_name(enum sw_buffer_type type)
{
	return type == SW_BUFFER_DMABUF ? "dmabuf" : "shm";
}

int sw_buffer_open_card(int render_fd, char *why, size_t why_len)
{
	const char *path = getenv("SYNCWAY_CARD");
	drmDevicePtr dev = NULL;
	if (!path && render_fd >= 0) {
		int ret = drmGetDevice2(render_fd, 0, &dev);
		if (ret) {
			snprintf(why, why_len, "drmGetDevice2: %s", strerror(-ret));
			return -1;
		}
		if (!(dev->available_nodes & (1 << DRM_NODE_PRIMARY))) {
			snprintf(why, why_len, "the render node's device has no primary node");
			drmFreeDevice(&dev);
			return -1;
		}
		path = dev->nodes[DRM_NODE_PRIMARY];
	} else if (!path) {
		path = "/dev/dri/card0";
	}
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		snprintf(why, why_len, "cannot open %s: %s", path, strerror(errno));
	drmFreeDevice(&dev);
	return fd;
}

bool sw_buffer_dmabuf_modifier(const struct sw_display *d, uint32_t format, uint64_t *modifier)
{
	*modifier = DRM_FORMAT_MOD_LINEAR;
	if (sw_display_has_modifier(d, format, DRM_FORMAT_MOD_LINEAR))
		return true;
	*modifier = DRM_FORMAT_MOD_INVALID;
	return sw_display_has_modifier(d, format, DRM_FORMAT_MOD_INVALID);
}

static bool create_shm(struct sw_display *d, struct sw_buffer *b, uint32_t format)
{
	b->stride = b->width * 4;
	b->size = (size_t)b->stride * b->height;
	int fd = memfd_create("syncway-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, b->size) < 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	b->data = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (b->data == MAP_FAILED) {
		close(fd);
		return false;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(d->shm, fd, b->size);
	/* wl_shm codes are DRM's but for the two oldest formats. */
	uint32_t shm_format = format == DRM_FORMAT_ARGB8888 ? WL_SHM_FORMAT_ARGB8888 :
			      format == DRM_FORMAT_XRGB8888 ? WL_SHM_FORMAT_XRGB8888 : format;
	b->wl_buffer = wl_shm_pool_create_buffer(pool, 0, b->width, b->height, b->stride,
						 shm_format);
	wl_shm_pool_destroy(pool);
	close(fd);
	return true;
}

/* The wl_buffer of a one-plane dmabuf; the fd is the caller's. */
static struct wl_buffer *dmabuf_wl_buffer(struct sw_display *d, int fd, uint32_t format,
					  uint64_t modifier, uint32_t offset, uint32_t stride,
					  int width, int height)
{
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(d->dmabuf);
	zwp_linux_buffer_params_v1_add(params, fd, 0, offset, stride, modifier >> 32,
				       modifier & 0xffffffff);
	struct wl_buffer *wl_buffer = zwp_linux_buffer_params_v1_create_immed(params, width, height,
									      format, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	return wl_buffer;
}

static bool create_dmabuf(struct sw_display *d, struct sw_buffer *b, uint32_t format)
{
	uint64_t offset, size, modifier;
	int fd;
	if (!sw_buffer_dmabuf_modifier(d, format, &modifier)) {
		errno = ENOTSUP;
		return false;
	}
	if (drmModeCreateDumbBuffer(b->card_fd, b->width, b->height, 32, 0, &b->dumb_handle,
				    &b->stride, &size))
		return false;
	b->size = size;
	if (drmModeMapDumbBuffer(b->card_fd, b->dumb_handle, &offset))
		return false;
	b->data = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, b->card_fd, offset);
	if (b->data == MAP_FAILED)
		return false;
	if (drmPrimeHandleToFD(b->card_fd, b->dumb_handle, DRM_CLOEXEC | DRM_RDWR, &fd))
		return false;
	/* Dumb buffers are linear; pixman in syncway reads exactly that. */
	b->modifier = modifier;
	b->wl_buffer = dmabuf_wl_buffer(d, fd, format, modifier, 0, b->stride, b->width, b->height);
	close(fd);
	return true;
}

/* A buffer with nothing behind it yet: every resource field says "none",
 * which is what sw_buffer_destroy() looks at. */
static struct sw_buffer *buffer_new(enum sw_buffer_type type, int width, int height,
				    struct sw_timeline *release)
{
	struct sw_buffer *b = calloc(1, sizeof(*b));
	b->type = type;
	b->width = width;
	b->height = height;
	b->card_fd = -1;
	b->release = release;
	b->release_fd = -1;
	b->dmabuf_fd = -1;
	b->data = MAP_FAILED;
	return b;
}

struct sw_buffer *sw_buffer_create(struct sw_display *d, enum sw_buffer_type type, int card_fd,
				   uint32_t format, int width, int height,
				   struct sw_timeline *release)
{
	struct sw_buffer *b = buffer_new(type, width, height, release);
	b->card_fd = card_fd;
	bool ok = type == SW_BUFFER_DMABUF ? d->dmabuf && create_dmabuf(d, b, format) :
					     create_shm(d, b, format);
	if (!ok) {
		int err = errno;
		b->release = NULL; /* the caller still owns it */
		sw_buffer_destroy(b);
		errno = err;
		return NULL;
	}
	wl_buffer_add_listener(b->wl_buffer, &buffer_listener, b);
	return b;
}

struct sw_buffer *sw_buffer_create_solid(struct sw_display *d, int width, int height,
					 uint32_t colour)
{
	struct sw_buffer *b =
		sw_buffer_create(d, SW_BUFFER_SHM, -1, DRM_FORMAT_XRGB8888, width, height, NULL);
	if (!b)
		sw_die("cannot make a %dx%d buffer: %s", width, height, strerror(errno));
	sw_buffer_fill(b, colour);
	return b;
}

struct sw_buffer *sw_buffer_create_gpu(struct sw_display *d, int dmabuf_fd, uint32_t format,
				       uint64_t modifier, uint32_t offset, uint32_t stride,
				       int width, int height, struct sw_timeline *release)
{
	if (!d->dmabuf) {
		close(dmabuf_fd);
		errno = ENOTSUP;
		return NULL;
	}
	struct sw_buffer *b = buffer_new(SW_BUFFER_DMABUF, width, height, release);
	b->stride = stride;
	b->dmabuf_fd = dmabuf_fd;
	b->modifier = modifier;
	b->wl_buffer = dmabuf_wl_buffer(d, dmabuf_fd, format, modifier, offset, stride, width, height);
	wl_buffer_add_listener(b->wl_buffer, &buffer_listener, b);
	return b;
}

void sw_buffer_destroy(struct sw_buffer *b)
{
	if (!b)
		return;
	if (b->wl_buffer)
		wl_buffer_destroy(b->wl_buffer);
	if (b->data != MAP_FAILED)
		munmap(b->data, b->size);
	if (b->dumb_handle)
		drmModeDestroyDumbBuffer(b->card_fd, b->dumb_handle);
	if (b->release_fd >= 0)
		close(b->release_fd);
	if (b->dmabuf_fd >= 0)
		close(b->dmabuf_fd);
	sw_timeline_destroy(b->release);
	free(b);
}

uint64_t sw_buffer_next_release(struct sw_buffer *b)
{
	if (b->release_fd >= 0) {
		close(b->release_fd);
		b->release_fd = -1;
	}
	b->release_fd = sw_timeline_eventfd(b->release, b->release->point + 1);
	if (b->release_fd < 0)
		return 0;
	return sw_buffer_take_release(b);
}

uint64_t sw_buffer_take_release(struct sw_buffer *b)
{
	b->release_point = ++b->release->point;
	b->busy = true;
	return b->release_point;
}

void sw_buffer_released(struct sw_buffer *b)
{
	uint64_t n;
	if (b->release_fd >= 0) {
		if (read(b->release_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
			perror("syncway client: release eventfd");
		close(b->release_fd);
		b->release_fd = -1;
	}
	b->busy = false;
}

uint64_t sw_buffer_attach_explicit(struct sw_buffer *b, struct wl_surface *surface,
				   struct wp_linux_drm_syncobj_surface_v1 *sync_surface,
				   struct sw_timeline *acquire, uint64_t acquire_point)
{
	uint64_t release = sw_buffer_next_release(b);
	if (!release)
		return 0;
	wp_linux_drm_syncobj_surface_v1_set_acquire_point(sync_surface, acquire->proxy,
							  acquire_point >> 32, acquire_point & 0xffffffff);
	wp_linux_drm_syncobj_surface_v1_set_release_point(sync_surface, b->release->proxy,
							  release >> 32, release & 0xffffffff);
	wl_surface_attach(surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, b->width, b->height);
	return release;
}

#define DISPATCH_MAX_BUFFERS 16

bool sw_buffers_dispatch(struct sw_display *d, struct sw_buffer *const *buffers, int n,
			 int timeout_ms, void (*released)(void *data, int i), void *data)
{
	struct wl_display *dpy = d->display;
	while (wl_display_prepare_read(dpy) != 0)
		wl_display_dispatch_pending(dpy);
	if (wl_display_flush(dpy) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(dpy);
		return false;
	}
	struct pollfd fds[DISPATCH_MAX_BUFFERS + 1];
	int owner[DISPATCH_MAX_BUFFERS];
	int n_fds = 0;
	for (int i = 0; i < n && i < DISPATCH_MAX_BUFFERS; i++) {
		if (buffers[i]->busy && buffers[i]->release_fd >= 0) {
			owner[n_fds] = i;
			fds[n_fds++] = (struct pollfd){ .fd = buffers[i]->release_fd, .events = POLLIN };
		}
	}
	fds[n_fds] = (struct pollfd){ .fd = wl_display_get_fd(dpy), .events = POLLIN };
	int ret = poll(fds, n_fds + 1, timeout_ms);
	for (int i = 0; ret > 0 && i < n_fds; i++)
		if (fds[i].revents & POLLIN)
			released(data, owner[i]);
	if (ret > 0 && (fds[n_fds].revents & POLLIN)) {
		if (wl_display_read_events(dpy) < 0)
			return false;
	} else {
		wl_display_cancel_read(dpy);
	}
	return wl_display_dispatch_pending(dpy) >= 0;
}

int sw_buffers_wait_released(struct sw_buffer *const *buffers, int n, struct sw_syncobj_stats *stats,
			     int drm_fd, int64_t timeout_ns, int *n_busy)
{
	uint32_t handles[DISPATCH_MAX_BUFFERS];
	uint64_t points[DISPATCH_MAX_BUFFERS];
	int busy = 0;
	for (int i = 0; i < n && i < DISPATCH_MAX_BUFFERS; i++) {
		if (buffers[i]->busy) {
			handles[busy] = buffers[i]->release->handle;
			points[busy++] = buffers[i]->release_point;
		}
	}
	*n_busy = busy;
	if (!busy)
		return 0;
	return sw_syncobj_timeline_wait(stats, drm_fd, handles, points, busy,
					sw_syncobj_timeout_abs(timeout_ns),
					DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
					DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
}

void sw_buffer_fill(struct sw_buffer *b, uint32_t colour)
{
	for (int y = 0; y < b->height; y++) {
		uint32_t *row = (uint32_t *)((char *)b->data + (size_t)y * b->stride);
		for (int x = 0; x < b->width; x++)
			row[x] = colour;
	}
}

uint64_t sw_buffer_checksum(const struct sw_buffer *b)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int y = 0; y < b->height; y++) {
		const uint64_t *row = (const uint64_t *)((const char *)b->data + (size_t)y * b->stride);
		/* 8 bytes at a time: the width of 32-bit rows here is even
		 * often enough; an odd last pixel is folded in below. */
		int n = b->width / 2;
		for (int x = 0; x < n; x++)
			h = (h ^ row[x]) * 0x100000001b3ull;
		if (b->width & 1)
			h = (h ^ ((const uint32_t *)row)[b->width - 1]) * 0x100000001b3ull;
	}
	return h;
}
