/* wlr-layer-shell: panels, docks, wallpapers and launchers. Each layer
 * surface sits in the scene tree of its layer (background and bottom below
 * the windows, top and overlay above), placed by wlroots' scene helper
 * within its output; exclusive zones shrink the output's usable area, which
 * is what maximized windows fill. A surface that names no output gets the
 * first one; one asking for keyboard focus on the top or overlay layer
 * gets it when it maps, and any that takes keyboard input gets it when
 * clicked (input.c). */
#include "layer_shell.h"

#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_layer_shell_v1.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/box.h>
#include <wlr/util/log.h>

#include "server.h"
#include "session_lock.h"

#define LAYER_SHELL_VERSION 4

struct sw_layer_surface {
	struct wl_list link; /* sw_server.layer_surfaces */
	struct sw_server *server;
	struct wlr_layer_surface_v1 *layer_surface;
	struct wlr_scene_layer_surface_v1 *scene;

	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener commit;
	struct wl_listener new_popup;
	struct wl_listener output_destroy;
	struct wl_listener destroy;
};

static const char *const layer_names[] = { "background", "bottom", "top", "overlay" };

void layer_shell_arrange(struct sw_server *server, struct wlr_output *wlr_output)
{
	struct wlr_box full;
	wlr_output_layout_get_box(server->output_layout, wlr_output, &full);
	if (wlr_box_empty(&full))
		return;
	struct wlr_box usable = full;
	/* Overlay first: the upper layers' exclusive zones push the lower. */
	for (int layer = ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY; layer >= 0; layer--) {
		struct sw_layer_surface *ls;
		wl_list_for_each(ls, &server->layer_surfaces, link) {
			struct wlr_layer_surface_v1 *surface = ls->layer_surface;
			if (surface->output == wlr_output && (int)surface->current.layer == layer &&
			    surface->initialized)
				wlr_scene_layer_surface_v1_configure(ls->scene, &full, &usable);
		}
	}
	struct sw_output *output = wlr_output->data;
	if (output && !wlr_box_equal(&output->usable_area, &usable)) {
		output->usable_area = usable;
		views_refill(server, wlr_output);
	}
}

struct wlr_scene_tree *layer_shell_surface_tree(struct wlr_surface *surface)
{
	struct wlr_layer_surface_v1 *layer_surface = wlr_layer_surface_v1_try_from_wlr_surface(surface);
	struct sw_layer_surface *ls = layer_surface ? layer_surface->data : NULL;
	return ls ? ls->scene->tree : NULL;
}

/* Gives the keyboard to a layer surface that takes it, unless the session
 * is locked. */
static void layer_focus(struct sw_server *server, struct wlr_layer_surface_v1 *surface)
{
	if (surface->current.keyboard_interactive == ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE ||
	    session_lock_active(server))
		return;
	struct wlr_seat *seat = server->seat;
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard)
		wlr_seat_keyboard_notify_enter(seat, surface->surface, keyboard->keycodes,
					       keyboard->num_keycodes, &keyboard->modifiers);
}

void layer_shell_focus_surface(struct sw_server *server, struct wlr_surface *surface)
{
	/* The click may be on one of its subsurfaces. */
	struct wlr_layer_surface_v1 *layer_surface =
		wlr_layer_surface_v1_try_from_wlr_surface(wlr_surface_get_root_surface(surface));
	if (layer_surface)
		layer_focus(server, layer_surface);
}

static void handle_map(struct wl_listener *listener, void *data)
{
	struct sw_layer_surface *ls = wl_container_of(listener, ls, map);
	struct wlr_layer_surface_v1 *surface = ls->layer_surface;
	wlr_log(WLR_INFO, "layer shell: mapped \"%s\" on the %s layer of %s", surface->namespace,
		layer_names[surface->current.layer], surface->output->name);
	layer_shell_arrange(ls->server, surface->output);
	if (surface->current.layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP)
		layer_focus(ls->server, surface);
}

static void handle_unmap(struct wl_listener *listener, void *data)
{
	struct sw_layer_surface *ls = wl_container_of(listener, ls, unmap);
	struct wlr_seat *seat = ls->server->seat;
	if (seat->keyboard_state.focused_surface == ls->layer_surface->surface)
		wlr_seat_keyboard_clear_focus(seat);
	if (ls->layer_surface->output)
		layer_shell_arrange(ls->server, ls->layer_surface->output);
}

static void handle_commit(struct wl_listener *listener, void *data)
{
	struct sw_layer_surface *ls = wl_container_of(listener, ls, commit);
	struct wlr_layer_surface_v1 *surface = ls->layer_surface;
	if (!surface->output)
		return;
	/* The initial commit wants a configure; later ones may change the
	 * anchor, size, zone or layer. */
	if (surface->initial_commit || surface->current.committed) {
		if (surface->current.committed & WLR_LAYER_SURFACE_V1_STATE_LAYER)
			wlr_scene_node_reparent(&ls->scene->tree->node,
						ls->server->layers[surface->current.layer]);
		layer_shell_arrange(ls->server, surface->output);
	}
}

static void handle_new_popup(struct wl_listener *listener, void *data)
{
	/* A panel's menu: created without a parent, it gets the layer surface
	 * here and is drawn in its tree, so it moves with it (view.c places
	 * it on the output). */
	struct sw_layer_surface *ls = wl_container_of(listener, ls, new_popup);
	struct wlr_xdg_popup *popup = data;
	popup->base->data = wlr_scene_xdg_surface_create(ls->scene->tree, popup->base);
	if (!popup->base->data)
		wl_resource_post_no_memory(popup->resource);
}

static void handle_output_destroy(struct wl_listener *listener, void *data)
{
	/* Its output went away: so does the layer surface. */
	struct sw_layer_surface *ls = wl_container_of(listener, ls, output_destroy);
	ls->layer_surface->output = NULL;
	wlr_layer_surface_v1_destroy(ls->layer_surface);
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct sw_layer_surface *ls = wl_container_of(listener, ls, destroy);
	struct wlr_output *output = ls->layer_surface->output;
	wl_list_remove(&ls->map.link);
	wl_list_remove(&ls->unmap.link);
	wl_list_remove(&ls->commit.link);
	wl_list_remove(&ls->new_popup.link);
	wl_list_remove(&ls->output_destroy.link);
	wl_list_remove(&ls->destroy.link);
	wl_list_remove(&ls->link);
	ls->layer_surface->data = NULL;
	struct sw_server *server = ls->server;
	free(ls);
	if (output)
		layer_shell_arrange(server, output);
}

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, new_layer_surface);
	struct wlr_layer_surface_v1 *surface = data;
	if (!surface->output) {
		struct sw_output *first = wl_list_empty(&server->outputs) ? NULL :
			wl_container_of(server->outputs.prev, first, link);
		if (!first) {
			wlr_log(WLR_INFO, "layer shell: no output for \"%s\"", surface->namespace);
			wlr_layer_surface_v1_destroy(surface);
			return;
		}
		surface->output = first->wlr_output;
	}
	struct sw_layer_surface *ls = calloc(1, sizeof(*ls));
	if (!ls) {
		wlr_layer_surface_v1_destroy(surface);
		return;
	}
	ls->server = server;
	ls->layer_surface = surface;
	ls->scene = wlr_scene_layer_surface_v1_create(server->layers[surface->pending.layer], surface);
	if (!ls->scene) {
		free(ls);
		wlr_layer_surface_v1_destroy(surface);
		return;
	}
	ls->map.notify = handle_map;
	wl_signal_add(&surface->surface->events.map, &ls->map);
	ls->unmap.notify = handle_unmap;
	wl_signal_add(&surface->surface->events.unmap, &ls->unmap);
	ls->commit.notify = handle_commit;
	wl_signal_add(&surface->surface->events.commit, &ls->commit);
	ls->new_popup.notify = handle_new_popup;
	wl_signal_add(&surface->events.new_popup, &ls->new_popup);
	ls->output_destroy.notify = handle_output_destroy;
	wl_signal_add(&surface->output->events.destroy, &ls->output_destroy);
	ls->destroy.notify = handle_destroy;
	wl_signal_add(&surface->events.destroy, &ls->destroy);
	wl_list_insert(&server->layer_surfaces, &ls->link);
	surface->data = ls;
}

void layer_shell_init(struct sw_server *server)
{
	/* Stacking: background, bottom, the windows, top, overlay. */
	for (int i = 0; i < 2; i++)
		server->layers[i] = wlr_scene_tree_create(&server->scene->tree);
	server->view_tree = wlr_scene_tree_create(&server->scene->tree);
	for (int i = 2; i < 4; i++)
		server->layers[i] = wlr_scene_tree_create(&server->scene->tree);
	wl_list_init(&server->layer_surfaces);
	struct wlr_layer_shell_v1 *shell = wlr_layer_shell_v1_create(server->display, LAYER_SHELL_VERSION);
	if (!shell) {
		wlr_log(WLR_ERROR, "cannot create the layer shell global");
		return;
	}
	server->new_layer_surface.notify = handle_new_surface;
	wl_signal_add(&shell->events.new_surface, &server->new_layer_surface);
}

void layer_shell_finish(struct sw_server *server)
{
	if (server->new_layer_surface.link.next)
		wl_list_remove(&server->new_layer_surface.link);
}
