/* The renderer, and dmabufs for the pixman renderer.
 *
 * wlroots 0.18's pixman renderer only reads buffers through a CPU pointer,
 * and linux-dmabuf buffers offer none, so with pixman no dmabuf could be
 * shown and linux-dmabuf would not even be advertised. Explicit sync is
 * guaranteed for dmabufs only, so syncway wraps pixman in a renderer that
 * maps single-plane linear dmabufs (DMA_BUF_IOCTL_SYNC around each read) and
 * hands pixman the mapping. Everything else goes straight to pixman. GPU
 * renderers (GLES2, Vulkan) import dmabufs themselves and are used as is.
 *
 * DMA_BUF_IOCTL_SYNC waits, without a timeout, for the implicit fences of
 * whoever writes the buffer: a client that keeps a write fence pending
 * would stop the compositor for everyone. So a read starts only when the
 * dmabuf polls readable (no pending write); otherwise the buffer is left
 * out of this frame, the event loop watches the dmabuf, and every output
 * is redrawn once its writes are done. */
#include "renderer.h"

#include <drm_fourcc.h>
#include <errno.h>
#include <linux/dma-buf.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/interface.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>

#include "server.h"

struct sw_mapping_renderer {
	struct wlr_renderer base;
	struct wlr_renderer *pixman;
	struct sw_server *server;
	int drm_fd; /* not owned */
	struct wlr_drm_format_set dmabuf_formats;
};

/* A read-only CPU view of a client's dmabuf; holds a lock on the client's
 * buffer for as long as pixman's texture holds this one, so the client
 * buffer's release (and with it the explicit-sync release point) waits for
 * the last read. */
struct sw_dmabuf_mapping {
	struct wlr_buffer base;
	struct sw_mapping_renderer *renderer;
	struct wlr_buffer *source;
	struct wl_event_source *write_watch; /* while a write is pending */
	void *map;
	size_t map_size;
	int fd; /* the source's, not owned */
	uint32_t offset, stride, format;
};

static const struct wlr_renderer_impl mapping_renderer_impl;

static struct sw_mapping_renderer *mapping_renderer_from(struct wlr_renderer *renderer)
{
	return wl_container_of(renderer, (struct sw_mapping_renderer *)NULL, base);
}

static void dmabuf_mapping_destroy(struct wlr_buffer *buffer)
{
	struct sw_dmabuf_mapping *mapping = wl_container_of(buffer, mapping, base);
	if (mapping->write_watch)
		wl_event_source_remove(mapping->write_watch);
	munmap(mapping->map, mapping->map_size);
	wlr_buffer_unlock(mapping->source);
	free(mapping);
}

static bool dmabuf_sync(struct sw_dmabuf_mapping *mapping, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_READ };
	while (ioctl(mapping->fd, DMA_BUF_IOCTL_SYNC, &sync) != 0) {
		if (errno != EINTR && errno != EAGAIN)
			return false;
	}
	return true;
}

static int handle_writes_done(int fd, uint32_t mask, void *data)
{
	struct sw_dmabuf_mapping *mapping = data;
	wl_event_source_remove(mapping->write_watch);
	mapping->write_watch = NULL;
	server_redraw_outputs(mapping->renderer->server);
	return 0;
}

static bool dmabuf_mapping_begin_access(struct wlr_buffer *buffer, uint32_t flags, void **data,
					uint32_t *format, size_t *stride)
{
	struct sw_dmabuf_mapping *mapping = wl_container_of(buffer, mapping, base);
	if (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE)
		return false;
	struct pollfd pfd = { .fd = mapping->fd, .events = POLLIN };
	if (poll(&pfd, 1, 0) == 0) {
		if (!mapping->write_watch)
			mapping->write_watch = wl_event_loop_add_fd(mapping->renderer->server->loop,
								    mapping->fd, WL_EVENT_READABLE,
								    handle_writes_done, mapping);
		return false;
	}
	/* Exporters that need no cache maintenance may refuse the ioctl; the
	 * mapping is still coherent then. */
	dmabuf_sync(mapping, DMA_BUF_SYNC_START);
	*data = (char *)mapping->map + mapping->offset;
	*format = mapping->format;
	*stride = mapping->stride;
	return true;
}

static void dmabuf_mapping_end_access(struct wlr_buffer *buffer)
{
	struct sw_dmabuf_mapping *mapping = wl_container_of(buffer, mapping, base);
	dmabuf_sync(mapping, DMA_BUF_SYNC_END);
}

static const struct wlr_buffer_impl dmabuf_mapping_impl = {
	.destroy = dmabuf_mapping_destroy,
	.begin_data_ptr_access = dmabuf_mapping_begin_access,
	.end_data_ptr_access = dmabuf_mapping_end_access,
};

static struct sw_dmabuf_mapping *dmabuf_mapping_create(struct sw_mapping_renderer *renderer,
						       struct wlr_buffer *source,
						       const struct wlr_dmabuf_attributes *attribs)
{
	if (attribs->n_planes != 1 || (attribs->modifier != DRM_FORMAT_MOD_LINEAR &&
				       attribs->modifier != DRM_FORMAT_MOD_INVALID)) {
		wlr_log(WLR_ERROR, "pixman: cannot map a %d-plane dmabuf with modifier 0x%llx",
			attribs->n_planes, (unsigned long long)attribs->modifier);
		return NULL;
	}
	struct sw_dmabuf_mapping *mapping = calloc(1, sizeof(*mapping));
	if (!mapping)
		return NULL;
	mapping->map_size = (size_t)attribs->offset[0] + (size_t)attribs->stride[0] * attribs->height;
	mapping->map = mmap(NULL, mapping->map_size, PROT_READ, MAP_SHARED, attribs->fd[0], 0);
	if (mapping->map == MAP_FAILED) {
		wlr_log_errno(WLR_ERROR, "pixman: cannot mmap a %dx%d dmabuf", attribs->width,
			      attribs->height);
		free(mapping);
		return NULL;
	}
	mapping->renderer = renderer;
	mapping->fd = attribs->fd[0];
	mapping->offset = attribs->offset[0];
	mapping->stride = attribs->stride[0];
	mapping->format = attribs->format;
	mapping->source = wlr_buffer_lock(source);
	wlr_buffer_init(&mapping->base, &dmabuf_mapping_impl, source->width, source->height);
	return mapping;
}

static const struct wlr_drm_format_set *mapping_get_texture_formats(struct wlr_renderer *renderer,
								    uint32_t buffer_caps)
{
	struct sw_mapping_renderer *r = mapping_renderer_from(renderer);
	if (buffer_caps & WLR_BUFFER_CAP_DMABUF)
		return &r->dmabuf_formats;
	return wlr_renderer_get_texture_formats(r->pixman, buffer_caps);
}

static const struct wlr_drm_format_set *mapping_get_render_formats(struct wlr_renderer *renderer)
{
	struct sw_mapping_renderer *r = mapping_renderer_from(renderer);
	return r->pixman->impl->get_render_formats(r->pixman);
}

static void mapping_destroy(struct wlr_renderer *renderer)
{
	struct sw_mapping_renderer *r = mapping_renderer_from(renderer);
	wlr_renderer_destroy(r->pixman);
	wlr_drm_format_set_finish(&r->dmabuf_formats);
	free(r);
}

static int mapping_get_drm_fd(struct wlr_renderer *renderer)
{
	return mapping_renderer_from(renderer)->drm_fd;
}

static struct wlr_texture *mapping_texture_from_buffer(struct wlr_renderer *renderer,
						       struct wlr_buffer *buffer)
{
	struct sw_mapping_renderer *r = mapping_renderer_from(renderer);
	struct wlr_dmabuf_attributes attribs;
	/* Buffers with a CPU pointer (wl_shm, our own) go to pixman as is. */
	if (!wlr_buffer_get_dmabuf(buffer, &attribs) || buffer->impl->begin_data_ptr_access)
		return wlr_texture_from_buffer(r->pixman, buffer);

	struct sw_dmabuf_mapping *mapping = dmabuf_mapping_create(r, buffer, &attribs);
	if (!mapping)
		return NULL;
	/* The texture locks the mapping while it needs it; dropping our
	 * reference leaves it to the texture. */
	struct wlr_texture *texture = wlr_texture_from_buffer(r->pixman, &mapping->base);
	wlr_buffer_drop(&mapping->base);
	return texture;
}

static struct wlr_render_pass *mapping_begin_buffer_pass(struct wlr_renderer *renderer,
							 struct wlr_buffer *buffer,
							 const struct wlr_buffer_pass_options *options)
{
	struct sw_mapping_renderer *r = mapping_renderer_from(renderer);
	return wlr_renderer_begin_buffer_pass(r->pixman, buffer, options);
}

static struct wlr_render_timer *mapping_render_timer_create(struct wlr_renderer *renderer)
{
	struct sw_mapping_renderer *r = mapping_renderer_from(renderer);
	return wlr_render_timer_create(r->pixman);
}

static const struct wlr_renderer_impl mapping_renderer_impl = {
	.get_texture_formats = mapping_get_texture_formats,
	.get_render_formats = mapping_get_render_formats,
	.destroy = mapping_destroy,
	.get_drm_fd = mapping_get_drm_fd,
	.texture_from_buffer = mapping_texture_from_buffer,
	.begin_buffer_pass = mapping_begin_buffer_pass,
	.render_timer_create = mapping_render_timer_create,
};

static struct wlr_renderer *mapping_renderer_create(struct sw_server *server,
						   struct wlr_renderer *pixman, int drm_fd)
{
	struct sw_mapping_renderer *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->server = server;
	r->pixman = pixman;
	r->drm_fd = drm_fd;

	/* Whatever pixman reads through a pointer, as linear dmabufs. Dumb
	 * buffers carry no modifier (INVALID); they are linear too. */
	const struct wlr_drm_format_set *shm = wlr_renderer_get_texture_formats(pixman, WLR_BUFFER_CAP_DATA_PTR);
	for (size_t i = 0; shm && i < shm->len; i++) {
		wlr_drm_format_set_add(&r->dmabuf_formats, shm->formats[i].format, DRM_FORMAT_MOD_LINEAR);
		wlr_drm_format_set_add(&r->dmabuf_formats, shm->formats[i].format, DRM_FORMAT_MOD_INVALID);
	}

	wlr_renderer_init(&r->base, &mapping_renderer_impl, pixman->render_buffer_caps);
	r->base.features = pixman->features;
	return &r->base;
}

struct wlr_renderer *server_renderer_create(struct sw_server *server, int drm_fd)
{
	struct wlr_renderer *renderer = wlr_renderer_autocreate(server->backend);
	if (!renderer || !wlr_renderer_is_pixman(renderer) || drm_fd < 0)
		return renderer;
	struct wlr_renderer *wrapped = mapping_renderer_create(server, renderer, drm_fd);
	if (!wrapped) {
		wlr_log(WLR_ERROR, "pixman: no memory for dmabuf mapping; wl_shm only");
		return renderer;
	}
	wlr_log(WLR_INFO, "pixman renderer: reading linear dmabufs through mmap");
	return wrapped;
}

bool server_renderer_is_pixman(struct wlr_renderer *renderer)
{
	return renderer->impl == &mapping_renderer_impl || wlr_renderer_is_pixman(renderer);
}
