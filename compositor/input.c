/* The seat: keyboards (xkb, repeat, compositor key bindings), the pointer
 * and its cursor, focus, and the move/resize grabs driven by the pointer. */
#include <stdlib.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>
#include <xkbcommon/xkbcommon.h>

#include "server.h"

/* The modifier for compositor bindings and alt+drag. */
#define SW_MODIFIER WLR_MODIFIER_ALT

static void handle_keyboard_modifiers(struct wl_listener *listener, void *data)
{
	struct sw_keyboard *keyboard = wl_container_of(listener, keyboard, modifiers);
	/* A seat has one keyboard at a time; the last one used wins. */
	wlr_seat_set_keyboard(keyboard->server->seat, keyboard->wlr_keyboard);
	wlr_seat_keyboard_notify_modifiers(keyboard->server->seat, &keyboard->wlr_keyboard->modifiers);
}

/* Returns true when the compositor used the key itself. */
static bool handle_keybinding(struct sw_server *server, xkb_keysym_t sym)
{
	switch (sym) {
	case XKB_KEY_Escape:
		wlr_log(WLR_INFO, "Alt+Escape: quitting");
		wl_display_terminate(server->display);
		return true;
	case XKB_KEY_F1:
		view_cycle(server);
		return true;
	default:
		return false;
	}
}

static void handle_keyboard_key(struct wl_listener *listener, void *data)
{
	struct sw_keyboard *keyboard = wl_container_of(listener, keyboard, key);
	struct sw_server *server = keyboard->server;
	struct wlr_keyboard_key_event *event = data;

	/* libinput keycode -> xkbcommon keycode */
	uint32_t keycode = event->keycode + 8;
	const xkb_keysym_t *syms;
	int nsyms = xkb_state_key_get_syms(keyboard->wlr_keyboard->xkb_state, keycode, &syms);

	bool handled = false;
	uint32_t modifiers = wlr_keyboard_get_modifiers(keyboard->wlr_keyboard);
	if ((modifiers & SW_MODIFIER) && event->state == WL_KEYBOARD_KEY_STATE_PRESSED) {
		for (int i = 0; i < nsyms; i++)
			handled = handle_keybinding(server, syms[i]) || handled;
	}

	if (!handled) {
		wlr_seat_set_keyboard(server->seat, keyboard->wlr_keyboard);
		wlr_seat_keyboard_notify_key(server->seat, event->time_msec, event->keycode, event->state);
	}
}

static void handle_keyboard_destroy(struct wl_listener *listener, void *data)
{
	struct sw_keyboard *keyboard = wl_container_of(listener, keyboard, destroy);
	wl_list_remove(&keyboard->modifiers.link);
	wl_list_remove(&keyboard->key.link);
	wl_list_remove(&keyboard->destroy.link);
	wl_list_remove(&keyboard->link);
	free(keyboard);
}

static void new_keyboard(struct sw_server *server, struct wlr_input_device *device)
{
	struct wlr_keyboard *wlr_keyboard = wlr_keyboard_from_input_device(device);

	struct sw_keyboard *keyboard = calloc(1, sizeof(*keyboard));
	if (!keyboard) {
		wlr_log(WLR_ERROR, "out of memory");
		return;
	}
	keyboard->server = server;
	keyboard->wlr_keyboard = wlr_keyboard;

	/* The XKB_DEFAULT_* environment variables choose the layout. */
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_keymap *keymap = context ?
		xkb_keymap_new_from_names(context, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
	if (keymap)
		wlr_keyboard_set_keymap(wlr_keyboard, keymap);
	else
		wlr_log(WLR_ERROR, "%s: cannot compile a keymap", device->name);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	wlr_keyboard_set_repeat_info(wlr_keyboard, 25, 600);

	keyboard->modifiers.notify = handle_keyboard_modifiers;
	wl_signal_add(&wlr_keyboard->events.modifiers, &keyboard->modifiers);
	keyboard->key.notify = handle_keyboard_key;
	wl_signal_add(&wlr_keyboard->events.key, &keyboard->key);
	keyboard->destroy.notify = handle_keyboard_destroy;
	wl_signal_add(&device->events.destroy, &keyboard->destroy);

	wlr_seat_set_keyboard(server->seat, wlr_keyboard);
	wl_list_insert(&server->keyboards, &keyboard->link);
}

static void handle_new_input(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, new_input);
	struct wlr_input_device *device = data;

	switch (device->type) {
	case WLR_INPUT_DEVICE_KEYBOARD:
		new_keyboard(server, device);
		break;
	case WLR_INPUT_DEVICE_POINTER:
		wlr_cursor_attach_input_device(server->cursor, device);
		break;
	default:
		break;
	}

	uint32_t caps = WL_SEAT_CAPABILITY_POINTER;
	if (!wl_list_empty(&server->keyboards))
		caps |= WL_SEAT_CAPABILITY_KEYBOARD;
	wlr_seat_set_capabilities(server->seat, caps);
}

static void handle_request_cursor(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, request_cursor);
	struct wlr_seat_pointer_request_set_cursor_event *event = data;
	/* Only the client with pointer focus may set the cursor image. */
	if (server->seat->pointer_state.focused_client == event->seat_client)
		wlr_cursor_set_surface(server->cursor, event->surface, event->hotspot_x, event->hotspot_y);
}

static void handle_request_set_selection(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, request_set_selection);
	struct wlr_seat_request_set_selection_event *event = data;
	wlr_seat_set_selection(server->seat, event->source, event->serial);
}

static void process_cursor_move(struct sw_server *server)
{
	struct sw_view *view = server->grabbed_view;
	wlr_scene_node_set_position(&view->scene_tree->node, server->cursor->x - server->grab_x,
				    server->cursor->y - server->grab_y);
}

static void process_cursor_resize(struct sw_server *server)
{
	/* The new size only shows once the client commits a buffer that fits,
	 * so the position moves with it only for the top/left edges. */
	struct sw_view *view = server->grabbed_view;
	double border_x = server->cursor->x - server->grab_x;
	double border_y = server->cursor->y - server->grab_y;
	int new_left = server->grab_geobox.x;
	int new_right = server->grab_geobox.x + server->grab_geobox.width;
	int new_top = server->grab_geobox.y;
	int new_bottom = server->grab_geobox.y + server->grab_geobox.height;

	if (server->resize_edges & WLR_EDGE_TOP) {
		new_top = border_y;
		if (new_top >= new_bottom)
			new_top = new_bottom - 1;
	} else if (server->resize_edges & WLR_EDGE_BOTTOM) {
		new_bottom = border_y;
		if (new_bottom <= new_top)
			new_bottom = new_top + 1;
	}
	if (server->resize_edges & WLR_EDGE_LEFT) {
		new_left = border_x;
		if (new_left >= new_right)
			new_left = new_right - 1;
	} else if (server->resize_edges & WLR_EDGE_RIGHT) {
		new_right = border_x;
		if (new_right <= new_left)
			new_right = new_left + 1;
	}

	struct wlr_box geo_box;
	wlr_xdg_surface_get_geometry(view->xdg_toplevel->base, &geo_box);
	wlr_scene_node_set_position(&view->scene_tree->node, new_left - geo_box.x, new_top - geo_box.y);
	wlr_xdg_toplevel_set_size(view->xdg_toplevel, new_right - new_left, new_bottom - new_top);
}

static void process_cursor_motion(struct sw_server *server, uint32_t time)
{
	if (server->cursor_mode == SW_CURSOR_MOVE) {
		process_cursor_move(server);
		return;
	} else if (server->cursor_mode == SW_CURSOR_RESIZE) {
		process_cursor_resize(server);
		return;
	}

	double sx, sy;
	struct wlr_surface *surface = NULL;
	struct sw_view *view = view_at(server, server->cursor->x, server->cursor->y, &surface, &sx, &sy);
	if (!view)
		wlr_cursor_set_xcursor(server->cursor, server->cursor_mgr, "default");
	if (surface) {
		wlr_seat_pointer_notify_enter(server->seat, surface, sx, sy);
		wlr_seat_pointer_notify_motion(server->seat, time, sx, sy);
	} else {
		wlr_seat_pointer_clear_focus(server->seat);
	}
}

static void handle_cursor_motion(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, cursor_motion);
	struct wlr_pointer_motion_event *event = data;
	wlr_cursor_move(server->cursor, &event->pointer->base, event->delta_x, event->delta_y);
	process_cursor_motion(server, event->time_msec);
}

static void handle_cursor_motion_absolute(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, cursor_motion_absolute);
	struct wlr_pointer_motion_absolute_event *event = data;
	wlr_cursor_warp_absolute(server->cursor, &event->pointer->base, event->x, event->y);
	process_cursor_motion(server, event->time_msec);
}

static void handle_cursor_button(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, cursor_button);
	struct wlr_pointer_button_event *event = data;

	if (event->state == WL_POINTER_BUTTON_STATE_RELEASED) {
		if (server->cursor_mode != SW_CURSOR_PASSTHROUGH) {
			server->cursor_mode = SW_CURSOR_PASSTHROUGH;
			server->grabbed_view = NULL;
			return;
		}
		wlr_seat_pointer_notify_button(server->seat, event->time_msec, event->button, event->state);
		return;
	}

	double sx, sy;
	struct wlr_surface *surface = NULL;
	struct sw_view *view = view_at(server, server->cursor->x, server->cursor->y, &surface, &sx, &sy);
	view_focus(view, surface);

	/* Alt+left drag moves, Alt+right drag resizes (bottom-right), as in
	 * tinywl; the client never sees those buttons. */
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(server->seat);
	if (view && keyboard && (wlr_keyboard_get_modifiers(keyboard) & SW_MODIFIER)) {
		if (event->button == 0x110 /* BTN_LEFT */) {
			view_begin_interactive(view, SW_CURSOR_MOVE, 0);
			return;
		}
		if (event->button == 0x111 /* BTN_RIGHT */) {
			view_begin_interactive(view, SW_CURSOR_RESIZE, WLR_EDGE_BOTTOM | WLR_EDGE_RIGHT);
			return;
		}
	}
	wlr_seat_pointer_notify_button(server->seat, event->time_msec, event->button, event->state);
}

static void handle_cursor_axis(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, cursor_axis);
	struct wlr_pointer_axis_event *event = data;
	wlr_seat_pointer_notify_axis(server->seat, event->time_msec, event->orientation, event->delta,
				     event->delta_discrete, event->source, event->relative_direction);
}

static void handle_cursor_frame(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, cursor_frame);
	wlr_seat_pointer_notify_frame(server->seat);
}

void input_init(struct sw_server *server)
{
	wl_list_init(&server->keyboards);

	server->cursor = wlr_cursor_create();
	wlr_cursor_attach_output_layout(server->cursor, server->output_layout);
	/* XCURSOR_THEME/XCURSOR_SIZE pick the theme; missing themes only
	 * mean no cursor image. */
	server->cursor_mgr = wlr_xcursor_manager_create(NULL, 24);

	server->cursor_mode = SW_CURSOR_PASSTHROUGH;
	server->cursor_motion.notify = handle_cursor_motion;
	wl_signal_add(&server->cursor->events.motion, &server->cursor_motion);
	server->cursor_motion_absolute.notify = handle_cursor_motion_absolute;
	wl_signal_add(&server->cursor->events.motion_absolute, &server->cursor_motion_absolute);
	server->cursor_button.notify = handle_cursor_button;
	wl_signal_add(&server->cursor->events.button, &server->cursor_button);
	server->cursor_axis.notify = handle_cursor_axis;
	wl_signal_add(&server->cursor->events.axis, &server->cursor_axis);
	server->cursor_frame.notify = handle_cursor_frame;
	wl_signal_add(&server->cursor->events.frame, &server->cursor_frame);

	server->new_input.notify = handle_new_input;
	wl_signal_add(&server->backend->events.new_input, &server->new_input);
	server->seat = wlr_seat_create(server->display, "seat0");
	server->request_cursor.notify = handle_request_cursor;
	wl_signal_add(&server->seat->events.request_set_cursor, &server->request_cursor);
	server->request_set_selection.notify = handle_request_set_selection;
	wl_signal_add(&server->seat->events.request_set_selection, &server->request_set_selection);
}

void input_finish(struct sw_server *server)
{
	wl_list_remove(&server->cursor_motion.link);
	wl_list_remove(&server->cursor_motion_absolute.link);
	wl_list_remove(&server->cursor_button.link);
	wl_list_remove(&server->cursor_axis.link);
	wl_list_remove(&server->cursor_frame.link);
	wl_list_remove(&server->new_input.link);
	wl_list_remove(&server->request_cursor.link);
	wl_list_remove(&server->request_set_selection.link);
	wlr_xcursor_manager_destroy(server->cursor_mgr);
	wlr_cursor_destroy(server->cursor);
}
