/* cursor-shape-v1: a client names a shape ("text", "crosshair", ...)
 * instead of attaching an image, and the cursor shows that image of the
 * theme syncway loaded (input.c), at every output's scale. As with
 * wl_pointer.set_cursor, only the client with pointer focus may change it.
 * Shapes for tablet tools are ignored: syncway has no tablet support. */
#include <stdlib.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_cursor_shape_v1.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/util/log.h>

#include "cursor_shape.h"
#include "cursor_theme.h"
#include "server.h"

struct sw_cursor_shape {
	struct sw_server *server;
	struct wlr_cursor_shape_manager_v1 *manager;

	struct wl_listener request_set_shape;
};

static void handle_request_set_shape(struct wl_listener *listener, void *data)
{
	struct sw_cursor_shape *cs = wl_container_of(listener, cs, request_set_shape);
	struct sw_server *server = cs->server;
	struct wlr_cursor_shape_manager_v1_request_set_shape_event *event = data;
	if (event->device_type != WLR_CURSOR_SHAPE_MANAGER_V1_DEVICE_TYPE_POINTER ||
	    server->seat->pointer_state.focused_client != event->seat_client)
		return;
	sw_cursor_set_image(server, wlr_cursor_shape_v1_name(event->shape));
}

void cursor_shape_init(struct sw_server *server)
{
	struct sw_cursor_shape *cs = calloc(1, sizeof(*cs));
	if (!cs) {
		wlr_log(WLR_ERROR, "cursor shape: out of memory");
		return;
	}
	cs->server = server;
	cs->manager = wlr_cursor_shape_manager_v1_create(server->display, 1);
	if (!cs->manager) {
		wlr_log(WLR_ERROR, "cursor shape: cannot create the global");
		free(cs);
		return;
	}
	cs->request_set_shape.notify = handle_request_set_shape;
	wl_signal_add(&cs->manager->events.request_set_shape, &cs->request_set_shape);
	server->cursor_shape = cs;
}

void cursor_shape_finish(struct sw_server *server)
{
	struct sw_cursor_shape *cs = server->cursor_shape;
	if (!cs)
		return;
	/* The global goes with the display. */
	wl_list_remove(&cs->request_set_shape.link);
	free(cs);
	server->cursor_shape = NULL;
}
