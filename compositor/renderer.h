#ifndef SYNCWAY_RENDERER_H
#define SYNCWAY_RENDERER_H

#include <stdbool.h>

struct wlr_backend;
struct wlr_renderer;

/* wlr_renderer_autocreate(), except that a pixman renderer is wrapped to
 * read linear dmabufs through mmap when drm_fd (the device those dmabufs
 * belong to, reported to linux-dmabuf clients; not owned) is >= 0. */
struct wlr_renderer *server_renderer_create(struct wlr_backend *backend, int drm_fd);
bool server_renderer_is_pixman(struct wlr_renderer *renderer);

#endif
