/* The window lists of task bars and docks. wlr-foreign-toplevel-management
 * tells its clients each window's title, app id, outputs and state
 * (activated, maximized, fullscreen) and lets them activate, close,
 * maximize and fullscreen it; ext-foreign-toplevel-list only lists titles
 * and app ids. Every mapped view (xdg toplevel or managed X11 window, whose
 * class is its app id) has one handle in each, from map to unmap. Minimize
 * requests are ignored: syncway has no minimized state (a window that hid
 * on request would have no way back without a task bar). An X11 window's
 * maximized and fullscreen states are not reported (they are an xdg
 * configure's). */
#include "foreign_toplevel.h"

#include <assert.h>
#include <stdlib.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_ext_foreign_toplevel_list_v1.h>
#include <wlr/types/wlr_foreign_toplevel_management_v1.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>

#include "server.h"

struct sw_foreign_toplevel {
	struct wlr_foreign_toplevel_manager_v1 *manager;
	struct wlr_ext_foreign_toplevel_list_v1 *list;
	struct wl_list handles; /* sw_foreign_toplevel_handle.link */

	/* Activated is keyboard focus, whoever moves it. */
	struct wl_listener focus_change;
};

/* One mapped window in both lists. */
struct sw_foreign_toplevel_handle {
	struct wl_list link; /* sw_foreign_toplevel.handles */
	struct sw_view *view;
	struct wlr_foreign_toplevel_handle_v1 *wlr_handle;
	struct wlr_ext_foreign_toplevel_handle_v1 *ext_handle;
	/* The scene's buffer for the window's own surface: the outputs it
	 * enters are the window's. NULL when the scene shows none. */
	struct wlr_scene_buffer *scene_buffer;

	struct wl_listener set_title;
	struct wl_listener set_app_id;
	struct wl_listener configure;
	struct wl_listener output_enter;
	struct wl_listener output_leave;
	struct wl_listener request_activate;
	struct wl_listener request_close;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
};

/* wlroots sends a title or app id only once it has one: the protocols have
 * no "none" (an X11 window may drop its title). */
static void update_names(struct sw_foreign_toplevel_handle *handle)
{
	const char *title = view_title(handle->view), *app_id = view_app_id(handle->view);
	if (title)
		wlr_foreign_toplevel_handle_v1_set_title(handle->wlr_handle, title);
	if (app_id)
		wlr_foreign_toplevel_handle_v1_set_app_id(handle->wlr_handle, app_id);
	struct wlr_ext_foreign_toplevel_handle_v1_state state = {
		.title = title,
		.app_id = app_id,
	};
	wlr_ext_foreign_toplevel_handle_v1_update_state(handle->ext_handle, &state);
}

static void handle_set_title(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, set_title);
	update_names(handle);
}

static void handle_set_app_id(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, set_app_id);
	update_names(handle);
}

/* The states the window was last told, whoever asked for them (itself, a
 * task bar, or the compositor when it maps). */
static void handle_configure(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, configure);
	struct wlr_xdg_surface_configure *configure = data;
	wlr_foreign_toplevel_handle_v1_set_maximized(handle->wlr_handle,
						     configure->toplevel_configure->maximized);
	wlr_foreign_toplevel_handle_v1_set_fullscreen(handle->wlr_handle,
						      configure->toplevel_configure->fullscreen);
}

static void handle_output_enter(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, output_enter);
	struct wlr_scene_output *scene_output = data;
	wlr_foreign_toplevel_handle_v1_output_enter(handle->wlr_handle, scene_output->output);
}

static void handle_output_leave(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, output_leave);
	struct wlr_scene_output *scene_output = data;
	wlr_foreign_toplevel_handle_v1_output_leave(handle->wlr_handle, scene_output->output);
}

static void handle_request_activate(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, request_activate);
	struct wlr_foreign_toplevel_handle_v1_activated_event *event = data;
	struct sw_view *view = handle->view;
	if (event->seat != view->server->seat)
		return;
	wlr_log(WLR_INFO, "foreign-toplevel: activating \"%s\"", view_title(view) ? view_title(view) : "");
	view_focus(view, view_surface(view));
}

static void handle_request_close(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, request_close);
	const char *title = view_title(handle->view);
	wlr_log(WLR_INFO, "foreign-toplevel: asking \"%s\" to close", title ? title : "");
	view_close(handle->view);
}

static void handle_request_maximize(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, request_maximize);
	struct wlr_foreign_toplevel_handle_v1_maximized_event *event = data;
	view_set_maximized(handle->view, event->maximized);
}

static void handle_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel_handle *handle = wl_container_of(listener, handle, request_fullscreen);
	struct wlr_foreign_toplevel_handle_v1_fullscreen_event *event = data;
	view_set_fullscreen(handle->view, event->fullscreen, event->output);
}

static void find_surface_buffer(struct wlr_scene_buffer *buffer, int sx, int sy, void *data)
{
	struct sw_foreign_toplevel_handle *handle = data;
	struct wlr_scene_surface *scene_surface = wlr_scene_surface_try_from_buffer(buffer);
	if (scene_surface && scene_surface->surface == view_surface(handle->view))
		handle->scene_buffer = buffer;
}

static void handle_focus_change(struct wl_listener *listener, void *data)
{
	struct sw_foreign_toplevel *foreign = wl_container_of(listener, foreign, focus_change);
	struct wlr_seat_keyboard_focus_change_event *event = data;
	struct sw_foreign_toplevel_handle *handle;
	wl_list_for_each(handle, &foreign->handles, link) {
		struct wlr_surface *surface = view_surface(handle->view);
		if (surface == event->old_surface || surface == event->new_surface)
			wlr_foreign_toplevel_handle_v1_set_activated(handle->wlr_handle,
								     surface == event->new_surface);
	}
}

void foreign_toplevel_map(struct sw_view *view)
{
	struct sw_foreign_toplevel *foreign = view->server->foreign_toplevel;
	if (!foreign)
		return;
	struct sw_foreign_toplevel_handle *handle = calloc(1, sizeof(*handle));
	if (!handle) {
		wlr_log(WLR_ERROR, "foreign-toplevel: out of memory; a window is left out of the lists");
		return;
	}
	struct wlr_ext_foreign_toplevel_handle_v1_state state = {
		.title = view_title(view),
		.app_id = view_app_id(view),
	};
	handle->wlr_handle = wlr_foreign_toplevel_handle_v1_create(foreign->manager);
	handle->ext_handle = wlr_ext_foreign_toplevel_handle_v1_create(foreign->list, &state);
	if (!handle->wlr_handle || !handle->ext_handle) {
		wlr_log(WLR_ERROR, "foreign-toplevel: out of memory; a window is left out of the lists");
		wlr_foreign_toplevel_handle_v1_destroy(handle->wlr_handle);
		wlr_ext_foreign_toplevel_handle_v1_destroy(handle->ext_handle);
		free(handle);
		return;
	}
	handle->view = view;
	view->foreign_handle = handle;
	wl_list_insert(&foreign->handles, &handle->link);

	update_names(handle);
	handle->set_title.notify = handle_set_title;
	handle->set_app_id.notify = handle_set_app_id;
	if (view->kind == SW_VIEW_XDG) {
		struct wlr_xdg_toplevel *toplevel = view->xdg_toplevel;
		wlr_foreign_toplevel_handle_v1_set_maximized(handle->wlr_handle,
							     toplevel->scheduled.maximized);
		wlr_foreign_toplevel_handle_v1_set_fullscreen(handle->wlr_handle,
							      toplevel->scheduled.fullscreen);
		wl_signal_add(&toplevel->events.set_title, &handle->set_title);
		wl_signal_add(&toplevel->events.set_app_id, &handle->set_app_id);
		handle->configure.notify = handle_configure;
		wl_signal_add(&toplevel->base->events.configure, &handle->configure);
	} else {
		wl_signal_add(&view->xsurface->events.set_title, &handle->set_title);
		wl_signal_add(&view->xsurface->events.set_class, &handle->set_app_id);
		wl_list_init(&handle->configure.link);
	}
	handle->request_activate.notify = handle_request_activate;
	wl_signal_add(&handle->wlr_handle->events.request_activate, &handle->request_activate);
	handle->request_close.notify = handle_request_close;
	wl_signal_add(&handle->wlr_handle->events.request_close, &handle->request_close);
	handle->request_maximize.notify = handle_request_maximize;
	wl_signal_add(&handle->wlr_handle->events.request_maximize, &handle->request_maximize);
	handle->request_fullscreen.notify = handle_request_fullscreen;
	wl_signal_add(&handle->wlr_handle->events.request_fullscreen, &handle->request_fullscreen);

	/* The outputs the scene shows the window on: those it has already (a
	 * window mapped again shows its last buffer at once), then those it
	 * enters and leaves. */
	wlr_scene_node_for_each_buffer(&view->scene_tree->node, find_surface_buffer, handle);
	wl_list_init(&handle->output_enter.link);
	wl_list_init(&handle->output_leave.link);
	if (handle->scene_buffer) {
		struct wlr_scene_output *scene_output;
		wl_list_for_each(scene_output, &view->server->scene->outputs, link) {
			if (handle->scene_buffer->active_outputs & (1ull << scene_output->index))
				wlr_foreign_toplevel_handle_v1_output_enter(handle->wlr_handle,
									    scene_output->output);
		}
		handle->output_enter.notify = handle_output_enter;
		wl_signal_add(&handle->scene_buffer->events.output_enter, &handle->output_enter);
		handle->output_leave.notify = handle_output_leave;
		wl_signal_add(&handle->scene_buffer->events.output_leave, &handle->output_leave);
	}
}

void foreign_toplevel_unmap(struct sw_view *view)
{
	struct sw_foreign_toplevel_handle *handle = view->foreign_handle;
	if (!handle)
		return;
	view->foreign_handle = NULL;
	wl_list_remove(&handle->link);
	wl_list_remove(&handle->set_title.link);
	wl_list_remove(&handle->set_app_id.link);
	wl_list_remove(&handle->configure.link);
	wl_list_remove(&handle->output_enter.link);
	wl_list_remove(&handle->output_leave.link);
	wl_list_remove(&handle->request_activate.link);
	wl_list_remove(&handle->request_close.link);
	wl_list_remove(&handle->request_maximize.link);
	wl_list_remove(&handle->request_fullscreen.link);
	/* Both send closed to their clients. */
	wlr_foreign_toplevel_handle_v1_destroy(handle->wlr_handle);
	wlr_ext_foreign_toplevel_handle_v1_destroy(handle->ext_handle);
	free(handle);
}

void foreign_toplevel_init(struct sw_server *server)
{
	struct sw_foreign_toplevel *foreign = calloc(1, sizeof(*foreign));
	if (!foreign) {
		wlr_log(WLR_ERROR, "foreign-toplevel: out of memory; no window lists");
		return;
	}
	foreign->manager = wlr_foreign_toplevel_manager_v1_create(server->display);
	foreign->list = wlr_ext_foreign_toplevel_list_v1_create(server->display, 1);
	if (!foreign->manager || !foreign->list) {
		/* Whichever was made goes with the display. */
		wlr_log(WLR_ERROR, "foreign-toplevel: cannot create the globals; no window lists");
		free(foreign);
		return;
	}
	wl_list_init(&foreign->handles);
	foreign->focus_change.notify = handle_focus_change;
	wl_signal_add(&server->seat->keyboard_state.events.focus_change, &foreign->focus_change);
	server->foreign_toplevel = foreign;
}

void foreign_toplevel_finish(struct sw_server *server)
{
	struct sw_foreign_toplevel *foreign = server->foreign_toplevel;
	if (!foreign)
		return;
	/* The clients are gone, and their windows unmapped with them. */
	assert(wl_list_empty(&foreign->handles));
	wl_list_remove(&foreign->focus_change.link);
	free(foreign);
	server->foreign_toplevel = NULL;
}
