#ifndef SYNCWAY_RENDERER_H
#define SYNCWAY_RENDERER_H

#include <stdbool.h>

struct sw_server;
struct wlr_backend;
struct wlr_renderer;

/* wlr_renderer_autocreate(), except that a pixman renderer is wrapped to
 * read linear dmabufs through mmap when drm_fd (the device those dmabufs
 * belong to, reported to linux-dmabuf clients; not owned) is >= 0. A
 * dmabuf whose writes are still pending is left out of the frame instead
 * of waited for; once they are done, every output of server is redrawn. */
struct wlr_renderer *server_renderer_create(struct sw_server *server, int drm_fd);
bool server_renderer_is_pixman(struct wlr_renderer *renderer);

#endif
