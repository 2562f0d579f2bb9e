/* Xwayland: X11 clients as windows of their own. wlroots runs the server
 * (lazily: at the first X11 connection) and its window manager; syncway
 * puts each mapped X11 window in the scene. A managed one is a view like
 * an xdg toplevel (view.c): placed, focused, raised, cycled through and
 * listed for task bars, its class for app id; it may move and resize
 * itself while it floats. An override-redirect one (menus, tooltips) is
 * only shown, where X11 puts it: no focus, not in the list. X11 GL and
 * Vulkan clients reach linux-drm-syncobj-v1 through Xwayland, which
 * implements it on top of the compositor's when its glamor renderer runs
 * on a GPU. */
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

/* One X11 window, from its creation to its destruction. While it is
 * mapped and managed, view is in the view list and xsurface->data points
 * to it (view_from_surface()); view.scene_tree is its tree while mapped. */
struct sw_xwayland_view {
	struct sw_view view;

	struct wl_listener associate;
	struct wl_listener dissociate;
	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener request_configure;
	struct wl_listener request_activate;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
	struct wl_listener set_geometry;
	struct wl_listener destroy;
};

static void handle_map(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, map);
	struct sw_view *view = &xview->view;
	struct wlr_xwayland_surface *xsurface = view->xsurface;
	view->scene_tree = wlr_scene_tree_create(view->server->view_tree);
	if (!view->scene_tree || !wlr_scene_surface_create(view->scene_tree, xsurface->surface)) {
		wlr_log(WLR_ERROR, "xwayland: no memory to show window 0x%x", xsurface->window_id);
		if (view->scene_tree)
			wlr_scene_node_destroy(&view->scene_tree->node);
		view->scene_tree = NULL;
		return;
	}
	wlr_scene_node_set_position(&view->scene_tree->node, xsurface->x, xsurface->y);
	wlr_log(WLR_INFO, "xwayland: mapped window 0x%x \"%s\" (class %s) at %d,%d, %ux%u%s",
		xsurface->window_id, xsurface->title ? xsurface->title : "",
		xsurface->class ? xsurface->class : "", xsurface->x, xsurface->y, xsurface->width,
		xsurface->height, xsurface->override_redirect ? ", override-redirect" : "");
	if (xsurface->override_redirect)
		return;
	/* view_at() finds the view from its tree. */
	view->scene_tree->node.data = view;
	xsurface->data = view;
	view_map(view);
}

static void handle_unmap(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, unmap);
	struct sw_view *view = &xview->view;
	if (view->xsurface->data) {
		view->xsurface->data = NULL;
		view_unmap(view);
	}
	if (view->scene_tree)
		wlr_scene_node_destroy(&view->scene_tree->node);
	view->scene_tree = NULL;
}

static void handle_associate(struct wl_listener *listener, void *data)
{
	/* Only now is there a wl_surface to show. */
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, associate);
	struct wlr_surface *surface = xview->view.xsurface->surface;
	xview->map.notify = handle_map;
	wl_signal_add(&surface->events.map, &xview->map);
	xview->unmap.notify = handle_unmap;
	wl_signal_add(&surface->events.unmap, &xview->unmap);
}

static void handle_dissociate(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, dissociate);
	wl_list_remove(&xview->map.link);
	wl_list_remove(&xview->unmap.link);
}

static void handle_request_configure(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, request_configure);
	struct sw_view *view = &xview->view;
	struct wlr_xwayland_surface_configure_event *event = data;
	/* A window that fills an output keeps its place; X11 wants an answer
	 * all the same. */
	if (view->filling) {
		wlr_xwayland_surface_configure(view->xsurface, view->xsurface->x, view->xsurface->y,
					       view->xsurface->width, view->xsurface->height);
		return;
	}
	/* A floating window manager: X11 windows go where they ask. */
	wlr_xwayland_surface_configure(view->xsurface, event->x, event->y, event->width, event->height);
	if (view->scene_tree)
		wlr_scene_node_set_position(&view->scene_tree->node, event->x, event->y);
}

static void handle_request_activate(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, request_activate);
	if (xview->view.xsurface->data)
		view_focus(&xview->view, xview->view.xsurface->surface);
}

/* wlroots has set the window's state to what it asks for; syncway grants
 * it, once the window is a view. */
static void handle_request_maximize(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, request_maximize);
	struct wlr_xwayland_surface *xsurface = xview->view.xsurface;
	if (xsurface->data)
		view_set_maximized(&xview->view, xsurface->maximized_horz && xsurface->maximized_vert);
}

static void handle_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, request_fullscreen);
	struct wlr_xwayland_surface *xsurface = xview->view.xsurface;
	if (xsurface->data)
		view_set_fullscreen(&xview->view, xsurface->fullscreen, NULL);
}

static void handle_set_geometry(struct wl_listener *listener, void *data)
{
	/* Override-redirect windows move themselves; managed ones ask
	 * (request_configure). */
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, set_geometry);
	struct wlr_xwayland_surface *xsurface = xview->view.xsurface;
	if (xsurface->override_redirect && xview->view.scene_tree)
		wlr_scene_node_set_position(&xview->view.scene_tree->node, xsurface->x, xsurface->y);
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct sw_xwayland_view *xview = wl_container_of(listener, xview, destroy);
	if (xview->view.scene_tree)
		wlr_scene_node_destroy(&xview->view.scene_tree->node);
	wl_list_remove(&xview->associate.link);
	wl_list_remove(&xview->dissociate.link);
	wl_list_remove(&xview->request_configure.link);
	wl_list_remove(&xview->request_activate.link);
	wl_list_remove(&xview->request_maximize.link);
	wl_list_remove(&xview->request_fullscreen.link);
	wl_list_remove(&xview->set_geometry.link);
	wl_list_remove(&xview->destroy.link);
	free(xview);
}

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, xwayland_new_surface);
	struct wlr_xwayland_surface *xsurface = data;
	struct sw_xwayland_view *xview = calloc(1, sizeof(*xview));
	if (!xview) {
		wlr_log(WLR_ERROR, "xwayland: no memory for window 0x%x", xsurface->window_id);
		return;
	}
	xview->view.server = server;
	xview->view.kind = SW_VIEW_XWAYLAND;
	xview->view.xsurface = xsurface;
	wl_list_init(&xview->view.link);
	xview->associate.notify = handle_associate;
	wl_signal_add(&xsurface->events.associate, &xview->associate);
	xview->dissociate.notify = handle_dissociate;
	wl_signal_add(&xsurface->events.dissociate, &xview->dissociate);
	xview->request_configure.notify = handle_request_configure;
	wl_signal_add(&xsurface->events.request_configure, &xview->request_configure);
	xview->request_activate.notify = handle_request_activate;
	wl_signal_add(&xsurface->events.request_activate, &xview->request_activate);
	xview->request_maximize.notify = handle_request_maximize;
	wl_signal_add(&xsurface->events.request_maximize, &xview->request_maximize);
	xview->request_fullscreen.notify = handle_request_fullscreen;
	wl_signal_add(&xsurface->events.request_fullscreen, &xview->request_fullscreen);
	xview->set_geometry.notify = handle_set_geometry;
	wl_signal_add(&xsurface->events.set_geometry, &xview->set_geometry);
	xview->destroy.notify = handle_destroy;
	wl_signal_add(&xsurface->events.destroy, &xview->destroy);
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

bool xwayland_owns_client(const struct sw_server *server, const struct wl_client *client)
{
	/* The server's client exists only while Xwayland runs. */
	return server->xwayland && server->xwayland->server->client &&
	       server->xwayland->server->client == client;
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
