/* Xwayland: X11 clients as windows of their own. wlroots runs the server
 * (lazily: at the first X11 connection) and its window manager; syncway
 * puts each mapped X11 window in the scene, at the place X11 asks for,
 * gives it keyboard focus unless it is an override-redirect one (menus,
 * tooltips), and lets it configure itself. X11 GL and Vulkan clients reach
 * linux-drm-syncobj-v1 through Xwayland, which implements it on top of
 * the compositor's when its glamor renderer runs on a GPU. */
#include "xwayland.h"

#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>
#include <wlr/xwayland/server.h>

#include "loop_stats.h"
#include "server.h"

struct sw_xwayland_view {
	struct sw_server *server;
	struct wlr_xwayland_surface *xsurface;
	struct wlr_scene_tree *tree; /* while mapped */

	struct wl_listener associate;
	struct wl_listener dissociate;
	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener request_configure;
	struct wl_listener request_activate;
	struct wl_listener destroy;
};

static void xwayland_view_focus(struct sw_xwayland_view *view)
{
	struct wlr_seat *seat = view->server->seat;
	wlr_xwayland_surface_activate(view->xsurface, true);
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard)
		wlr_seat_keyboard_notify_enter(seat, view->xsurface->surface, keyboard->keycodes,
					       keyboard->num_keycodes, &keyboard->modifiers);
}

static void handle_map(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *view = wl_container_of(listener, view, map);
	struct wlr_xwayland_surface *xsurface = view->xsurface;
	view->tree = wlr_scene_tree_create(view->server->view_tree);
	if (!view->tree || !wlr_scene_surface_create(view->tree, xsurface->surface)) {
		wlr_log(WLR_ERROR, "xwayland: no memory to show window 0x%x", xsurface->window_id);
		return;
	}
	wlr_scene_node_set_position(&view->tree->node, xsurface->x, xsurface->y);
	wlr_log(WLR_INFO, "xwayland: mapped window 0x%x \"%s\" (class %s) at %d,%d, %ux%u%s",
		xsurface->window_id, xsurface->title ? xsurface->title : "",
		xsurface->class ? xsurface->class : "", xsurface->x, xsurface->y, xsurface->width,
		xsurface->height, xsurface->override_redirect ? ", override-redirect" : "");
	if (!xsurface->override_redirect)
		xwayland_view_focus(view);
}

static void handle_unmap(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *view = wl_container_of(listener, view, unmap);
	if (view->tree)
		wlr_scene_node_destroy(&view->tree->node);
	view->tree = NULL;
}

static void handle_associate(struct wl_listener *listener, void *data)
{
	/* Only now is there a wl_surface to show. */
	struct sw_xwayland_view *view = wl_container_of(listener, view, associate);
	struct wlr_surface *surface = view->xsurface->surface;
	view->map.notify = handle_map;
	wl_signal_add(&surface->events.map, &view->map);
	view->unmap.notify = handle_unmap;
	wl_signal_add(&surface->events.unmap, &view->unmap);
}

static void handle_dissociate(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *view = wl_container_of(listener, view, dissociate);
	wl_list_remove(&view->map.link);
	wl_list_remove(&view->unmap.link);
}

static void handle_request_configure(struct wl_listener *listener, void *data)
{
	/* A floating window manager: X11 windows go where they ask. */
	struct sw_xwayland_view *view = wl_container_of(listener, view, request_configure);
	struct wlr_xwayland_surface_configure_event *event = data;
	wlr_xwayland_surface_configure(view->xsurface, event->x, event->y, event->width, event->height);
	if (view->tree)
		wlr_scene_node_set_position(&view->tree->node, event->x, event->y);
}

static void handle_request_activate(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *view = wl_container_of(listener, view, request_activate);
	if (view->xsurface->surface && view->tree)
		xwayland_view_focus(view);
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *view = wl_container_of(listener, view, destroy);
	if (view->tree)
		wlr_scene_node_destroy(&view->tree->node);
	wl_list_remove(&view->associate.link);
	wl_list_remove(&view->dissociate.link);
	wl_list_remove(&view->request_configure.link);
	wl_list_remove(&view->request_activate.link);
	wl_list_remove(&view->destroy.link);
	free(view);
}

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, xwayland_new_surface);
	struct wlr_xwayland_surface *xsurface = data;
	struct sw_xwayland_view *view = calloc(1, sizeof(*view));
	if (!view) {
		wlr_log(WLR_ERROR, "xwayland: no memory for window 0x%x", xsurface->window_id);
		return;
	}
	view->server = server;
	view->xsurface = xsurface;
	view->associate.notify = handle_associate;
	wl_signal_add(&xsurface->events.associate, &view->associate);
	view->dissociate.notify = handle_dissociate;
	wl_signal_add(&xsurface->events.dissociate, &view->dissociate);
	view->request_configure.notify = handle_request_configure;
	wl_signal_add(&xsurface->events.request_configure, &view->request_configure);
	view->request_activate.notify = handle_request_activate;
	wl_signal_add(&xsurface->events.request_activate, &view->request_activate);
	view->destroy.notify = handle_destroy;
	wl_signal_add(&xsurface->events.destroy, &view->destroy);
}

static void handle_start(struct wl_listener *listener, void *data)
{
	/* wlroots forks Xwayland in this turn, at the first X11 connection. */
	struct sw_server *server = wl_container_of(listener, server, xwayland_start);
	sw_loop_stats_note(server->loop_stats, "xwayland start");
}

static void handle_ready(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, xwayland_ready);
	/* wlroots has just set up its window manager, in this turn. */
	sw_loop_stats_note(server->loop_stats, "xwayland window manager start");
	wlr_xwayland_set_seat(server->xwayland, server->seat);
	wlr_log(WLR_INFO, "xwayland: ready on DISPLAY=%s", server->xwayland->display_name);
}

void xwayland_init(struct sw_server *server)
{
	server->xwayland = wlr_xwayland_create(server->display, server->compositor, true);
	if (!server->xwayland) {
		fprintf(stderr, "syncway: xwayland: off (cannot set up the X11 server; see the "
			"wlroots messages above)\n");
		return;
	}
	server->xwayland_start.notify = handle_start;
	wl_signal_add(&server->xwayland->server->events.start, &server->xwayland_start);
	server->xwayland_ready.notify = handle_ready;
	wl_signal_add(&server->xwayland->events.ready, &server->xwayland_ready);
	server->xwayland_new_surface.notify = handle_new_surface;
	wl_signal_add(&server->xwayland->events.new_surface, &server->xwayland_new_surface);
	/* For the -s command and every program started from here. */
	setenv("DISPLAY", server->xwayland->display_name, true);
	fprintf(stderr, "syncway: xwayland: on DISPLAY=%s (started at the first X11 client)\n",
		server->xwayland->display_name);
}

void xwayland_finish(struct sw_server *server)
{
	if (!server->xwayland)
		return;
	wl_list_remove(&server->xwayland_start.link);
	wl_list_remove(&server->xwayland_ready.link);
	wl_list_remove(&server->xwayland_new_surface.link);
	wlr_xwayland_destroy(server->xwayland);
	server->xwayland = NULL;
}
