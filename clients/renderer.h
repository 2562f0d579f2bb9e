/* Renderers behind one small interface. A frame is a scene of coloured
 * rectangles (three gears, glxgears' layout) so that every renderer draws
 * the same picture without shaders. draw() fills a sw_buffer: either the
 * pixels are in it on return (*sync_file_fd = -1: the client signals the
 * acquire point itself) or they will be once the returned sync_file
 * signals (the client imports it into the acquire point). pixman and
 * Vulkan draw into CPU-mapped buffers the client made; a renderer with
 * create_buffer (GLES2) draws only into buffers it allocated itself. */
#ifndef SW_CLIENT_RENDERER_H
#define SW_CLIENT_RENDERER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffer.h"

struct sw_rect {
	int32_t x, y, w, h;
	uint32_t rgb; /* 0xRRGGBB */
};

struct sw_scene {
	int width, height;
	uint32_t background;
	struct sw_rect *rects;
	size_t n, cap;
};

/* The gears at angle (degrees) for a width x height frame. */
void sw_scene_build(struct sw_scene *s, int width, int height, double angle);
void sw_scene_finish(struct sw_scene *s);

struct sw_renderer;
struct sw_renderer_impl {
	const char *name;
	bool (*draw)(struct sw_renderer *r, const struct sw_scene *scene, struct sw_buffer *buffer,
		     int *sync_file_fd);
	void (*destroy)(struct sw_renderer *r);
	/* NULL, or: a dmabuf of this renderer's own for the compositor,
	 * reason in err when it cannot make one. */
	struct sw_buffer *(*create_buffer)(struct sw_renderer *r, struct sw_display *d, uint32_t format,
					   int width, int height, struct sw_timeline *release,
					   char *err, size_t err_len);
};

struct sw_renderer {
	const struct sw_renderer_impl *impl;
	char description[128]; /* e.g. the Vulkan device name */
};

struct sw_renderer *sw_renderer_pixman_create(char *err, size_t err_len);
/* Renders offscreen at width x height; NULL (reason in err) without a device. */
struct sw_renderer *sw_renderer_vulkan_create(int width, int height, char *err, size_t err_len);

/* GLES2 through EGL on a GBM device made on drm_fd (the render node the
 * client's syncobjs live on), rendering into GBM dmabufs; every draw
 * returns the sync_file of its GPU job (EGL_ANDROID_native_fence_sync).
 * NULL (reason in err) without EGL, GBM, dmabuf import or native fences. */
struct sw_renderer *sw_renderer_gles2_create(int drm_fd, char *err, size_t err_len);
/* GLES2 only: keeps the GPU busy for a while (draws full-target quads of a
 * slow fragment shader into a scratch target) and submits them without
 * waiting. Returns the job's sync_file, or -1 when r is not GLES2 or the
 * GL side failed. */
int sw_renderer_gles2_busy(struct sw_renderer *r, int draws);

static inline bool sw_renderer_draw(struct sw_renderer *r, const struct sw_scene *s, struct sw_buffer *b,
				    int *sync_file_fd)
{
	return r->impl->draw(r, s, b, sync_file_fd);
}
static inline void sw_renderer_destroy(struct sw_renderer *r)
{
	if (r)
		r->impl->destroy(r);
}

#endif
