/* wlr-screencopy-unstable-v1 version 1, client side, by hand (see
 * screencopy.h for why). Message order is the protocol's: opcodes are
 * indices into these tables. */
#include "screencopy.h"

static const struct wl_interface *types[] = {
	NULL, NULL, NULL, NULL,
	/* capture_output: frame, overlay_cursor, output */
	&zwlr_screencopy_frame_v1_interface, NULL, &wl_output_interface,
	/* capture_output_region: frame, overlay_cursor, output, x, y, width, height */
	&zwlr_screencopy_frame_v1_interface, NULL, &wl_output_interface, NULL, NULL, NULL, NULL,
	/* copy: buffer */
	&wl_buffer_interface,
};

static const struct wl_message manager_requests[] = {
	{ "capture_output", "nio", types + 4 },
	{ "capture_output_region", "nioiiii", types + 7 },
	{ "destroy", "", types + 0 },
};

const struct wl_interface zwlr_screencopy_manager_v1_interface = {
	"zwlr_screencopy_manager_v1", 1, 3, manager_requests, 0, NULL,
};

static const struct wl_message frame_requests[] = {
	{ "copy", "o", types + 14 },
	{ "destroy", "", types + 0 },
};

static const struct wl_message frame_events[] = {
	{ "buffer", "uuuu", types + 0 },
	{ "flags", "u", types + 0 },
	{ "ready", "uuu", types + 0 },
	{ "failed", "", types + 0 },
};

const struct wl_interface zwlr_screencopy_frame_v1_interface = {
	"zwlr_screencopy_frame_v1", 1, 2, frame_requests, 4, frame_events,
};

enum { MANAGER_CAPTURE_OUTPUT_REGION = 1, MANAGER_DESTROY = 2 };
enum { FRAME_COPY = 0, FRAME_DESTROY = 1 };

struct zwlr_screencopy_frame_v1 *
zwlr_screencopy_manager_v1_capture_output_region(struct zwlr_screencopy_manager_v1 *manager,
						 int32_t overlay_cursor, struct wl_output *output,
						 int32_t x, int32_t y, int32_t width, int32_t height)
{
	struct wl_proxy *proxy = (struct wl_proxy *)manager;
	return (struct zwlr_screencopy_frame_v1 *)wl_proxy_marshal_flags(
		proxy, MANAGER_CAPTURE_OUTPUT_REGION, &zwlr_screencopy_frame_v1_interface,
		wl_proxy_get_version(proxy), 0, NULL, overlay_cursor, output, x, y, width, height);
}

void zwlr_screencopy_manager_v1_destroy(struct zwlr_screencopy_manager_v1 *manager)
{
	struct wl_proxy *proxy = (struct wl_proxy *)manager;
	wl_proxy_marshal_flags(proxy, MANAGER_DESTROY, NULL, wl_proxy_get_version(proxy),
			       WL_MARSHAL_FLAG_DESTROY);
}

int zwlr_screencopy_frame_v1_add_listener(struct zwlr_screencopy_frame_v1 *frame,
					  const struct zwlr_screencopy_frame_v1_listener *listener,
					  void *data)
{
	return wl_proxy_add_listener((struct wl_proxy *)frame, (void (**)(void))listener, data);
}

void zwlr_screencopy_frame_v1_copy(struct zwlr_screencopy_frame_v1 *frame, struct wl_buffer *buffer)
{
	struct wl_proxy *proxy = (struct wl_proxy *)frame;
	wl_proxy_marshal_flags(proxy, FRAME_COPY, NULL, wl_proxy_get_version(proxy), 0, buffer);
}

void zwlr_screencopy_frame_v1_destroy(struct zwlr_screencopy_frame_v1 *frame)
{
	struct wl_proxy *proxy = (struct wl_proxy *)frame;
	wl_proxy_marshal_flags(proxy, FRAME_DESTROY, NULL, wl_proxy_get_version(proxy),
			       WL_MARSHAL_FLAG_DESTROY);
}
