/* Client buffers for explicit sync: CPU-mapped 32-bit RGB memory shared with
 * the compositor either as a dmabuf (a dumb buffer exported with PRIME) or
 * as wl_shm, each with its own release timeline; or a dmabuf a GPU renders
 * into (a GBM buffer), which the client does not map. A buffer is free
 * again once its release point is signalled; wl_buffer.release is only
 * counted. */
#ifndef SW_CLIENT_BUFFER_H
#define SW_CLIENT_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <drm_fourcc.h>

#include "display.h"
#include "syncobj.h"
#include "timeline.h"

struct wl_surface;
struct wp_linux_drm_syncobj_surface_v1;

enum sw_buffer_type {
	SW_BUFFER_DMABUF,
	SW_BUFFER_SHM,
};

struct sw_buffer {
	enum sw_buffer_type type;
	struct wl_buffer *wl_buffer;
	void *data;                   /* MAP_FAILED: not mapped (a GPU buffer) */
	size_t size;
	uint32_t stride;
	int width, height;
	int card_fd; /* dmabuf: the primary node owning dumb_handle */
	uint32_t dumb_handle;
	int dmabuf_fd;                /* a GPU buffer's dmabuf, or -1 */
	uint64_t modifier;            /* the modifier it was announced with */

	struct sw_timeline *release;  /* NULL without explicit sync */
	uint64_t release_point;       /* last one handed out; 0: never committed */
	int release_fd;               /* eventfd armed for release_point, or -1 */
	bool busy;                    /* committed, release point not seen signalled */

	uint64_t checksum;            /* content at commit (--checksum) */
	uint64_t wl_releases;         /* wl_buffer.release events (ignored) */
};

/* format: DRM_FORMAT_XRGB8888, or DRM_FORMAT_ARGB8888 (premultiplied) for a
 * surface that must not hide what lies below it. card_fd is only used for
 * SW_BUFFER_DMABUF. release may be NULL. */
struct sw_buffer *sw_buffer_create(struct sw_display *d, enum sw_buffer_type type, int card_fd,
				   uint32_t format, int width, int height,
				   struct sw_timeline *release);
/* A wl_shm XRGB8888 buffer of one colour, for a window whose content does
 * not matter; dies (sw_die, window.h) when it cannot be made. */
struct sw_buffer *sw_buffer_create_solid(struct sw_display *d, int width, int height,
					 uint32_t colour);
/* A dmabuf someone else allocated (one plane; a GPU renders into it),
 * announced with modifier (DRM_FORMAT_MOD_INVALID: implicit). Takes
 * dmabuf_fd, which the buffer keeps open (for its implicit fences) until
 * it is destroyed; on failure it is closed. No CPU mapping: data is
 * MAP_FAILED, so checksum and fill are not for these. */
struct sw_buffer *sw_buffer_create_gpu(struct sw_display *d, int dmabuf_fd, uint32_t format,
				       uint64_t modifier, uint32_t offset, uint32_t stride,
				       int width, int height, struct sw_timeline *release);
void sw_buffer_destroy(struct sw_buffer *b);

const char *sw_buffer_type_name(enum sw_buffer_type type);
/* The modifier a linear dumb buffer of format is announced with: LINEAR, or
 * INVALID (implicit) where the compositor lists only that. False when it
 * lists neither: it would refuse the buffer. */
bool sw_buffer_dmabuf_modifier(const struct sw_display *d, uint32_t format, uint64_t *modifier);
/* Opens the primary node dumb buffers are made on: $SYNCWAY_CARD, else the
 * one of render_fd's device, so that buffers and syncobjs share a device
 * (card0 need not be renderD128's one), else (render_fd < 0)
 * /dev/dri/card0. -1 with the reason in why. */
int sw_buffer_open_card(int render_fd, char *why, size_t why_len);

/* Hands out the next release point and arms an eventfd for it; marks the
 * buffer busy. Returns the point (0 on failure). */
uint64_t sw_buffer_next_release(struct sw_buffer *b);
/* The same without the eventfd, for a client that polls or waits on the
 * release timelines itself (one ioctl less per frame). */
uint64_t sw_buffer_take_release(struct sw_buffer *b);
/* Consumes the armed eventfd after poll() said it is readable. */
void sw_buffer_released(struct sw_buffer *b);

/* Hands b to surface for its next commit with explicit sync: the acquire
 * point, b's next release point (eventfd armed), attach, damage of the
 * whole buffer; the caller commits. Returns the release point, 0 when the
 * eventfd cannot be armed (errno set). */
uint64_t sw_buffer_attach_explicit(struct sw_buffer *b, struct wl_surface *surface,
				   struct wp_linux_drm_syncobj_surface_v1 *sync_surface,
				   struct sw_timeline *acquire, uint64_t acquire_point);
/* One wait of a client's loop, up to timeout_ms, on the Wayland fd and the
 * release eventfds of the busy ones among buffers: released(data, i) for
 * each buffer i whose release point signalled, before any Wayland event is
 * read (it sees the buffer first, and then consumes the eventfd with
 * sw_buffer_released), then the events are dispatched. False when the
 * connection is lost. At most 16 buffers. */
bool sw_buffers_dispatch(struct sw_display *d, struct sw_buffer *const *buffers, int n,
			 int timeout_ms, void (*released)(void *data, int i), void *data);
/* After the surface is gone: one TIMELINE_WAIT (WAIT_ALL) for the last
 * release point of every busy buffer, timeout_ns from now. 0 when all
 * signalled (they stay marked busy: the caller takes them back), -errno
 * otherwise; *n_busy says how many there were. */
int sw_buffers_wait_released(struct sw_buffer *const *buffers, int n, struct sw_syncobj_stats *stats,
			     int drm_fd, int64_t timeout_ns, int *n_busy);

/* Every pixel the one colour (in the buffer's format). */
void sw_buffer_fill(struct sw_buffer *b, uint32_t colour);

/* FNV-1a over the pixels (rows only, not the stride padding). */
uint64_t sw_buffer_checksum(const struct sw_buffer *b);

#endif
