/* Views (xdg-shell toplevels and managed X11 windows) and xdg popups:
 * mapping, placement, focus, and the interactive move/resize grabs. The
 * two kinds of views differ only in the view_* functions at the top. */
#include <assert.h>
#include <stdlib.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>

#include "foreign_toplevel.h"
#include "layer_shell.h"
#include "server.h"
#include "session_lock.h"

struct wlr_surface *view_surface(struct sw_view *view)
{
	return view->kind == SW_VIEW_XDG ? view->xdg_toplevel->base->surface : view->xsurface->surface;
}

const char *view_title(struct sw_view *view)
{
	return view->kind == SW_VIEW_XDG ? view->xdg_toplevel->title : view->xsurface->title;
}

const char *view_app_id(struct sw_view *view)
{
	return view->kind == SW_VIEW_XDG ? view->xdg_toplevel->app_id : view->xsurface->class;
}

void view_geometry(struct sw_view *view, struct wlr_box *box)
{
	if (view->kind == SW_VIEW_XDG)
		wlr_xdg_surface_get_geometry(view->xdg_toplevel->base, box);
	else
		*box = (struct wlr_box){ 0, 0, view->xsurface->width, view->xsurface->height };
}

void view_move(struct sw_view *view, int x, int y)
{
	wlr_scene_node_set_position(&view->scene_tree->node, x, y);
	/* X11 clients place their menus and tooltips from where they think
	 * they are. */
	if (view->kind == SW_VIEW_XWAYLAND)
		wlr_xwayland_surface_configure(view->xsurface, x, y, view->xsurface->width,
					       view->xsurface->height);
}

void view_set_size(struct sw_view *view, int width, int height)
{
	if (view->kind == SW_VIEW_XDG)
		wlr_xdg_toplevel_set_size(view->xdg_toplevel, width, height);
	else
		wlr_xwayland_surface_configure(view->xsurface, view->scene_tree->node.x,
					       view->scene_tree->node.y, width, height);
}

void view_close(struct sw_view *view)
{
	if (view->kind == SW_VIEW_XDG)
		wlr_xdg_toplevel_send_close(view->xdg_toplevel);
	else
		wlr_xwayland_surface_close(view->xsurface);
}

static void view_activate(struct sw_view *view, bool activated)
{
	if (view->kind == SW_VIEW_XDG) {
		wlr_xdg_toplevel_set_activated(view->xdg_toplevel, activated);
		return;
	}
	wlr_xwayland_surface_activate(view->xsurface, activated);
	/* The raised window goes on top in X11's stacking order too, which
	 * X11 clients read. wlroots refuses (asserts) to restack a window
	 * that made itself override-redirect since it mapped. */
	if (activated && !view->xsurface->override_redirect)
		wlr_xwayland_surface_restack(view->xsurface, NULL, XCB_STACK_MODE_ABOVE);
}

/* The fullscreen and maximized states the window was last given. */
static void view_fill_state(struct sw_view *view, bool *fullscreen, bool *maximized)
{
	if (view->kind == SW_VIEW_XDG) {
		*fullscreen = view->xdg_toplevel->scheduled.fullscreen;
		*maximized = view->xdg_toplevel->scheduled.maximized;
	} else {
		*fullscreen = view->xsurface->fullscreen;
		*maximized = view->xsurface->maximized_horz && view->xsurface->maximized_vert;
	}
}

void view_focus(struct sw_view *view, struct wlr_surface *surface)
{
	/* While locked, windows wait: the lock surface keeps the keyboard. */
	if (!view || session_lock_active(view->server))
		return;
	struct sw_server *server = view->server;
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *prev = seat->keyboard_state.focused_surface;
	if (prev == surface)
		return;
	/* Tell the previous window it lost focus so it can stop drawing its
	 * caret, and so on. */
	struct sw_view *prev_view = prev ? view_from_surface(prev) : NULL;
	if (prev_view)
		view_activate(prev_view, false);
	wlr_scene_node_raise_to_top(&view->scene_tree->node);
	wl_list_remove(&view->link);
	wl_list_insert(&server->views, &view->link);
	view_activate(view, true);

	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard) {
		wlr_seat_keyboard_notify_enter(seat, view_surface(view), keyboard->keycodes,
					       keyboard->num_keycodes, &keyboard->modifiers);
	}
}

struct sw_view *view_at(struct sw_server *server, double lx, double ly,
			struct wlr_surface **surface, double *sx, double *sy)
{
	struct wlr_scene_node *node = wlr_scene_node_at(&server->scene->tree.node, lx, ly, sx, sy);
	if (!node || node->type != WLR_SCENE_NODE_BUFFER)
		return NULL;
	struct wlr_scene_buffer *scene_buffer = wlr_scene_buffer_from_node(node);
	struct wlr_scene_surface *scene_surface = wlr_scene_surface_try_from_buffer(scene_buffer);
	if (!scene_surface)
		return NULL;
	*surface = scene_surface->surface;
	/* The view's tree carries its sw_view in data; popups and subsurfaces
	 * sit below it. */
	struct wlr_scene_tree *tree = node->parent;
	while (tree && !tree->node.data)
		tree = tree->node.parent;
	return tree ? tree->node.data : NULL;
}

struct sw_view *view_from_surface(struct wlr_surface *surface)
{
	/* xwayland.c keeps a managed X11 window's view in its data. */
	struct wlr_xwayland_surface *xsurface = wlr_xwayland_surface_try_from_wlr_surface(surface);
	if (xsurface)
		return xsurface->data;
	struct wlr_xdg_toplevel *toplevel = wlr_xdg_toplevel_try_from_wlr_surface(surface);
	struct wlr_scene_tree *tree = toplevel ? toplevel->base->data : NULL;
	return tree ? tree->node.data : NULL;
}

void view_cycle(struct sw_server *server)
{
	if (wl_list_length(&server->views) < 2)
		return;
	struct sw_view *next = wl_container_of(server->views.prev, next, link);
	view_focus(next, view_surface(next));
}

void view_begin_interactive(struct sw_view *view, enum sw_cursor_mode mode, uint32_t edges)
{
	struct sw_server *server = view->server;
	server->grabbed_view = view;
	server->cursor_mode = mode;

	if (mode == SW_CURSOR_MOVE) {
		server->grab_x = server->cursor->x - view->scene_tree->node.x;
		server->grab_y = server->cursor->y - view->scene_tree->node.y;
	} else {
		struct wlr_box geo_box;
		view_geometry(view, &geo_box);
		double border_x = (view->scene_tree->node.x + geo_box.x) +
				  ((edges & WLR_EDGE_RIGHT) ? geo_box.width : 0);
		double border_y = (view->scene_tree->node.y + geo_box.y) +
				  ((edges & WLR_EDGE_BOTTOM) ? geo_box.height : 0);
		server->grab_x = server->cursor->x - border_x;
		server->grab_y = server->cursor->y - border_y;
		server->grab_geobox = geo_box;
		server->grab_geobox.x += view->scene_tree->node.x;
		server->grab_geobox.y += view->scene_tree->node.y;
		server->resize_edges = edges;
	}
}

/* The output a view is on: the one under its centre, else the first. */
static struct wlr_output *view_output(struct sw_view *view)
{
	struct wlr_box geo;
	view_geometry(view, &geo);
	double cx = view->scene_tree->node.x + geo.width / 2.0;
	double cy = view->scene_tree->node.y + geo.height / 2.0;
	struct wlr_output *output = wlr_output_layout_output_at(view->server->output_layout, cx, cy);
	if (!output) {
		struct wlr_output_layout_output *first;
		wl_list_for_each(first, &view->server->output_layout->outputs, link) {
			output = first->output;
			break;
		}
	}
	return output;
}

/* Fullscreen fills an output, maximized its usable area (what layer-shell
 * panels leave); both give back the floating geometry when both are off.
 * Fullscreen also goes above every other window. */
static void view_arrange(struct sw_view *view, struct wlr_output *output)
{
	bool fullscreen, maximized;
	view_fill_state(view, &fullscreen, &maximized);
	bool fill = fullscreen || maximized;
	if (fill && !view->filling) {
		struct wlr_box geo;
		view_geometry(view, &geo);
		view->floating = (struct wlr_box){ view->scene_tree->node.x, view->scene_tree->node.y,
						   geo.width, geo.height };
		view->filling = true;
	}
	if (fill) {
		struct wlr_box box;
		wlr_output_layout_get_box(view->server->output_layout, output, &box);
		/* Maximized windows leave panels their exclusive zones. */
		struct sw_output *sw_output = output->data;
		if (!fullscreen && sw_output && !wlr_box_empty(&sw_output->usable_area))
			box = sw_output->usable_area;
		if (wlr_box_empty(&box))
			return;
		view_move(view, box.x, box.y);
		view_set_size(view, box.width, box.height);
		if (fullscreen)
			wlr_scene_node_raise_to_top(&view->scene_tree->node);
	} else if (view->filling) {
		view->filling = false;
		view_move(view, view->floating.x, view->floating.y);
		view_set_size(view, view->floating.width, view->floating.height);
	}
}

void views_refill(struct sw_server *server, struct wlr_output *output)
{
	struct sw_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->filling && view_output(view) == output)
			view_arrange(view, output);
	}
}

/* What windows may take of output: what layer-shell panels leave. */
static struct wlr_box usable_area(struct sw_server *server, struct wlr_output *output)
{
	struct wlr_box area;
	wlr_output_layout_get_box(server->output_layout, output, &area);
	struct sw_output *sw_output = output->data;
	if (sw_output && !wlr_box_empty(&sw_output->usable_area))
		area = sw_output->usable_area;
	return area;
}

/* Moves box, a window's place, from the output that was at gone to the
 * nearest output that remains: at the same offset, pushed in where it
 * would stick out, shrunk where it is bigger. Returns that output, or NULL
 * when box stays: its centre was not on gone, or is on another output too
 * (they overlapped), or no output remains. */
static struct wlr_output *rescue_box(struct sw_server *server, const struct wlr_box *gone,
				     struct wlr_box *box)
{
	double cx = box->x + box->width / 2.0, cy = box->y + box->height / 2.0;
	if (!wlr_box_contains_point(gone, cx, cy) ||
	    wlr_output_layout_output_at(server->output_layout, cx, cy))
		return NULL;
	double lx, ly;
	wlr_output_layout_closest_point(server->output_layout, NULL, cx, cy, &lx, &ly);
	struct wlr_output *output = wlr_output_layout_output_at(server->output_layout, lx, ly);
	if (!output)
		return NULL;
	struct wlr_box area = usable_area(server, output);
	if (box->width > area.width)
		box->width = area.width;
	if (box->height > area.height)
		box->height = area.height;
	int x = area.x + box->x - gone->x, y = area.y + box->y - gone->y;
	box->x = x < area.x ? area.x : x > area.x + area.width - box->width ?
		area.x + area.width - box->width : x;
	box->y = y < area.y ? area.y : y > area.y + area.height - box->height ?
		area.y + area.height - box->height : y;
	return output;
}

void views_rescue(struct sw_server *server, const struct wlr_box *gone)
{
	if (wlr_box_empty(gone))
		return;
	struct sw_view *view;
	wl_list_for_each(view, &server->views, link) {
		struct wlr_box geo;
		view_geometry(view, &geo);
		struct wlr_box box = { view->scene_tree->node.x, view->scene_tree->node.y, geo.width,
				       geo.height };
		struct wlr_output *output = rescue_box(server, gone, &box);
		if (!output)
			continue;
		wlr_log(WLR_INFO, "window %s: its output went, now on %s",
			view_title(view) ? view_title(view) : "(untitled)", output->name);
		if (view->filling) {
			/* Its floating place may have been on another output
			 * (fullscreen on the output a client named). */
			rescue_box(server, gone, &view->floating);
			view_arrange(view, output);
			continue;
		}
		view_move(view, box.x, box.y);
		if (box.width != geo.width || box.height != geo.height)
			view_set_size(view, box.width, box.height);
	}
}

struct wlr_surface *view_fullscreen_surface(struct sw_server *server, struct wlr_output *output)
{
	struct sw_view *view;
	wl_list_for_each(view, &server->views, link) {
		bool fullscreen = view->kind == SW_VIEW_XDG ? view->xdg_toplevel->current.fullscreen :
							      view->xsurface->fullscreen;
		if (fullscreen && view_output(view) == output)
			return view_surface(view);
	}
	return NULL;
}

/* Whether box overlaps a mapped window other than view. */
static bool overlaps_others(struct sw_view *view, const struct wlr_box *box)
{
	struct sw_view *other;
	wl_list_for_each(other, &view->server->views, link) {
		if (other == view)
			continue;
		struct wlr_box geo, ob, common;
		view_geometry(other, &geo);
		ob = (struct wlr_box){ other->scene_tree->node.x, other->scene_tree->node.y, geo.width,
				       geo.height };
		if (wlr_box_intersection(&common, box, &ob))
			return true;
	}
	return false;
}

/* A new window goes where it covers no other, scanning the usable area of
 * the output under the cursor row by row; where there is no such place,
 * at its top left corner. Windows that hide each other look like a frozen
 * client, and a hidden surface gets no frame callbacks and is not paced
 * (fifo-v1 lets compositors ignore its barriers). */
static void view_place(struct sw_view *view)
{
	struct sw_server *server = view->server;
	struct wlr_output *output = wlr_output_layout_output_at(server->output_layout, server->cursor->x,
								server->cursor->y);
	if (!output)
		output = view_output(view);
	if (!output)
		return;
	struct wlr_box area = usable_area(server, output);
	struct wlr_box geo;
	view_geometry(view, &geo);
	const int step = 16;
	for (int y = area.y; y + geo.height <= area.y + area.height; y += step) {
		for (int x = area.x; x + geo.width <= area.x + area.width; x += step) {
			struct wlr_box box = { x, y, geo.width, geo.height };
			if (!overlaps_others(view, &box)) {
				view_move(view, x, y);
				return;
			}
		}
	}
	view_move(view, area.x, area.y);
}

void view_map(struct sw_view *view)
{
	if (!view->placed && !view->filling) {
		/* An X11 window may map fullscreen (games do): xdg toplevels
		 * were arranged at their first commit. */
		bool fullscreen, maximized;
		view_fill_state(view, &fullscreen, &maximized);
		struct wlr_output *output = view_output(view);
		if ((fullscreen || maximized) && output)
			view_arrange(view, output);
		else
			view_place(view);
	}
	view->placed = true;
	wl_list_insert(&view->server->views, &view->link);
	foreign_toplevel_map(view);
	view_focus(view, view_surface(view));
}

void view_unmap(struct sw_view *view)
{
	foreign_toplevel_unmap(view);
	if (view == view->server->grabbed_view) {
		view->server->cursor_mode = SW_CURSOR_PASSTHROUGH;
		view->server->grabbed_view = NULL;
	}
	wl_list_remove(&view->link);
	wl_list_init(&view->link);
	/* Keyboard focus goes to the next view, if any. */
	if (!wl_list_empty(&view->server->views)) {
		struct sw_view *next = wl_container_of(view->server->views.next, next, link);
		view_focus(next, view_surface(next));
	}
}

static void handle_map(struct wl_listener *listener, void *data)
{
	struct sw_view *view = wl_container_of(listener, view, map);
	view_map(view);
}

static void handle_unmap(struct wl_listener *listener, void *data)
{
	struct sw_view *view = wl_container_of(listener, view, unmap);
	view_unmap(view);
}

static void handle_commit(struct wl_listener *listener, void *data)
{
	struct sw_view *view = wl_container_of(listener, view, commit);
	/* The first commit asks for a configure; 0x0 lets the client pick. */
	if (view->xdg_toplevel->base->initial_commit) {
		/* Maximized or fullscreen asked for before the first commit. */
		struct wlr_xdg_toplevel *toplevel = view->xdg_toplevel;
		wlr_xdg_toplevel_set_maximized(toplevel, toplevel->requested.maximized);
		wlr_xdg_toplevel_set_fullscreen(toplevel, toplevel->requested.fullscreen);
		struct wlr_output *output = toplevel->requested.fullscreen_output ?
			toplevel->requested.fullscreen_output : view_output(view);
		if ((toplevel->requested.maximized || toplevel->requested.fullscreen) && output)
			view_arrange(view, output);
		else
			wlr_xdg_toplevel_set_size(toplevel, 0, 0);
	}
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct sw_view *view = wl_container_of(listener, view, destroy);
	wl_list_remove(&view->map.link);
	wl_list_remove(&view->unmap.link);
	wl_list_remove(&view->commit.link);
	wl_list_remove(&view->destroy.link);
	wl_list_remove(&view->request_move.link);
	wl_list_remove(&view->request_resize.link);
	wl_list_remove(&view->request_maximize.link);
	wl_list_remove(&view->request_fullscreen.link);
	wl_list_remove(&view->link);
	free(view);
}

/* Move and resize start from a button held down on the window (its
 * decoration's title bar or edge): the request's serial must be that
 * press, or any client could take the pointer away from the user. */
static bool grab_serial_valid(struct sw_view *view, uint32_t serial, const char *request)
{
	if (wlr_seat_validate_pointer_grab_serial(view->server->seat,
						  view->xdg_toplevel->base->surface, serial))
		return true;
	wlr_log(WLR_INFO, "%s refused: serial %u is not a button held on the window", request,
		serial);
	return false;
}

static void handle_request_move(struct wl_listener *listener, void *data)
{
	struct wlr_xdg_toplevel_move_event *event = data;
	struct sw_view *view = wl_container_of(listener, view, request_move);
	if (grab_serial_valid(view, event->serial, "move"))
		view_begin_interactive(view, SW_CURSOR_MOVE, 0);
}

static void handle_request_resize(struct wl_listener *listener, void *data)
{
	struct wlr_xdg_toplevel_resize_event *event = data;
	struct sw_view *view = wl_container_of(listener, view, request_resize);
	if (grab_serial_valid(view, event->serial, "resize"))
		view_begin_interactive(view, SW_CURSOR_RESIZE, event->edges);
}

void view_set_maximized(struct sw_view *view, bool maximized)
{
	if (view->kind == SW_VIEW_XDG)
		wlr_xdg_toplevel_set_maximized(view->xdg_toplevel, maximized);
	else
		wlr_xwayland_surface_set_maximized(view->xsurface, maximized);
	struct wlr_output *output = view_output(view);
	if (output)
		view_arrange(view, output);
}

void view_set_fullscreen(struct sw_view *view, bool fullscreen, struct wlr_output *output)
{
	if (view->kind == SW_VIEW_XDG)
		wlr_xdg_toplevel_set_fullscreen(view->xdg_toplevel, fullscreen);
	else
		wlr_xwayland_surface_set_fullscreen(view->xsurface, fullscreen);
	if (!output)
		output = view_output(view);
	if (output)
		view_arrange(view, output);
}

static void handle_request_maximize(struct wl_listener *listener, void *data)
{
	/* xdg-shell wants a configure in reply, also when nothing changes. */
	struct sw_view *view = wl_container_of(listener, view, request_maximize);
	struct wlr_xdg_toplevel *toplevel = view->xdg_toplevel;
	if (!toplevel->base->initialized)
		return;
	view_set_maximized(view, toplevel->requested.maximized);
	wlr_xdg_surface_schedule_configure(toplevel->base);
}

static void handle_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct sw_view *view = wl_container_of(listener, view, request_fullscreen);
	struct wlr_xdg_toplevel *toplevel = view->xdg_toplevel;
	if (!toplevel->base->initialized)
		return;
	/* The output the client names, when it names one. */
	view_set_fullscreen(view, toplevel->requested.fullscreen, toplevel->requested.fullscreen_output);
	wlr_xdg_surface_schedule_configure(toplevel->base);
}

void handle_new_xdg_toplevel(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, new_xdg_toplevel);
	struct wlr_xdg_toplevel *xdg_toplevel = data;

	struct sw_view *view = calloc(1, sizeof(*view));
	if (!view) {
		wl_resource_post_no_memory(xdg_toplevel->resource);
		return;
	}
	view->server = server;
	view->kind = SW_VIEW_XDG;
	view->xdg_toplevel = xdg_toplevel;
	view->scene_tree = wlr_scene_xdg_surface_create(server->view_tree, xdg_toplevel->base);
	view->scene_tree->node.data = view;
	/* Popups find their parent's tree here. */
	xdg_toplevel->base->data = view->scene_tree;
	wl_list_init(&view->link);

	struct wlr_surface *surface = xdg_toplevel->base->surface;
	view->map.notify = handle_map;
	wl_signal_add(&surface->events.map, &view->map);
	view->unmap.notify = handle_unmap;
	wl_signal_add(&surface->events.unmap, &view->unmap);
	view->commit.notify = handle_commit;
	wl_signal_add(&surface->events.commit, &view->commit);
	view->destroy.notify = handle_destroy;
	wl_signal_add(&xdg_toplevel->events.destroy, &view->destroy);
	view->request_move.notify = handle_request_move;
	wl_signal_add(&xdg_toplevel->events.request_move, &view->request_move);
	view->request_resize.notify = handle_request_resize;
	wl_signal_add(&xdg_toplevel->events.request_resize, &view->request_resize);
	view->request_maximize.notify = handle_request_maximize;
	wl_signal_add(&xdg_toplevel->events.request_maximize, &view->request_maximize);
	view->request_fullscreen.notify = handle_request_fullscreen;
	wl_signal_add(&xdg_toplevel->events.request_fullscreen, &view->request_fullscreen);
}

/* Keeps a popup on the output its window or panel is on, as the
 * positioner's constraint adjustments allow: a menu opened near an edge
 * must not end up off-screen. */
static void popup_unconstrain(struct sw_server *server, struct wlr_xdg_popup *popup)
{
	/* The root of the popup chain: a toplevel or a layer surface. */
	struct wlr_surface *root = popup->parent;
	struct wlr_xdg_surface *xdg;
	while (root && (xdg = wlr_xdg_surface_try_from_wlr_surface(root)) &&
	       xdg->role == WLR_XDG_SURFACE_ROLE_POPUP && xdg->popup)
		root = xdg->popup->parent;
	if (!root)
		return;
	struct wlr_scene_tree *tree;
	struct wlr_box geo = { 0 };
	xdg = wlr_xdg_surface_try_from_wlr_surface(root);
	if (xdg) {
		tree = xdg->data;
		/* The toplevel's tree starts at its window geometry, the
		 * box must be in its surface's coordinates. */
		wlr_xdg_surface_get_geometry(xdg, &geo);
	} else {
		tree = layer_shell_surface_tree(root);
	}
	int lx, ly;
	if (!tree || !wlr_scene_node_coords(&tree->node, &lx, &ly))
		return;
	struct wlr_output *output = wlr_output_layout_output_at(server->output_layout, lx, ly);
	if (!output)
		return;
	struct wlr_box box;
	wlr_output_layout_get_box(server->output_layout, output, &box);
	box.x -= lx - geo.x;
	box.y -= ly - geo.y;
	wlr_xdg_popup_unconstrain_from_box(popup, &box);
}

static void handle_popup_commit(struct wl_listener *listener, void *data)
{
	struct sw_popup *popup = wl_container_of(listener, popup, commit);
	if (popup->xdg_popup->base->initial_commit) {
		popup_unconstrain(popup->server, popup->xdg_popup);
		wlr_xdg_surface_schedule_configure(popup->xdg_popup->base);
	}
}

static void handle_popup_destroy(struct wl_listener *listener, void *data)
{
	struct sw_popup *popup = wl_container_of(listener, popup, destroy);
	wl_list_remove(&popup->commit.link);
	wl_list_remove(&popup->destroy.link);
	free(popup);
}

void handle_new_xdg_popup(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, new_xdg_popup);
	struct wlr_xdg_popup *xdg_popup = data;

	struct sw_popup *popup = calloc(1, sizeof(*popup));
	if (!popup) {
		wl_resource_post_no_memory(xdg_popup->resource);
		return;
	}
	popup->xdg_popup = xdg_popup;
	popup->server = server;

	/* The parent is a toplevel or another popup; both keep their scene
	 * tree in data. A popup without a parent yet gets one from
	 * layer-shell's get_popup (layer_shell.c). */
	struct wlr_xdg_surface *parent = xdg_popup->parent ?
		wlr_xdg_surface_try_from_wlr_surface(xdg_popup->parent) : NULL;
	if (parent && parent->data) {
		struct wlr_scene_tree *parent_tree = parent->data;
		xdg_popup->base->data = wlr_scene_xdg_surface_create(parent_tree, xdg_popup->base);
	}

	popup->commit.notify = handle_popup_commit;
	wl_signal_add(&xdg_popup->base->surface->events.commit, &popup->commit);
	popup->destroy.notify = handle_popup_destroy;
	wl_signal_add(&xdg_popup->events.destroy, &popup->destroy);
}
