/* The seat: keyboards (xkb, repeat, compositor key bindings), the pointer
 * and its cursor, focus, the move/resize grabs driven by the pointer,
 * selections and drag-and-drop. */
#include <stdio.h>
#include <stdlib.h>
#include <wlr/backend.h>
#include <wlr/backend/session.h>
#include <wlr/interfaces/wlr_keyboard.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_primary_selection.h>
#include <wlr/types/wlr_primary_selection_v1.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>
#include <xkbcommon/xkbcommon.h>

#include "cursor_theme.h"
#include "idle.h"
#include "layer_shell.h"
#include "loop_stats.h"
#include "pointer_constraints.h"
#include "server.h"
#include "session_lock.h"
#include "shortcuts_inhibit.h"

/* The modifier for compositor bindings and alt+drag. */
#define SW_MODIFIER WLR_MODIFIER_ALT

static void handle_keyboard_modifiers(struct wl_listener *listener, void *data)
{
	struct sw_keyboard *keyboard = wl_container_of(listener, keyboard, modifiers);
	/* A seat has one keyboard at a time; the last one used wins. */
	wlr_seat_set_keyboard(keyboard->server->seat, keyboard->wlr_keyboard);
	wlr_seat_keyboard_notify_modifiers(keyboard->server->seat, &keyboard->wlr_keyboard->modifiers);
}

/* The terminal Alt+Return starts: $SYNCWAY_TERM, else foot, else
 * weston-terminal, whichever exists. */
static const char terminal_cmd[] =
	"if [ -n \"$SYNCWAY_TERM\" ]; then exec $SYNCWAY_TERM; "
	"elif command -v foot >/dev/null; then exec foot; else exec weston-terminal; fi";

/* Returns true when the compositor used the key itself. */
static bool handle_keybinding(struct sw_server *server, xkb_keysym_t sym)
{
	switch (sym) {
	case XKB_KEY_Return:
		server_spawn(server, terminal_cmd, NULL);
		return true;
	case XKB_KEY_Escape:
		wlr_log(WLR_INFO, "Alt+Escape: quitting");
		server_terminate(server);
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
	idle_notify_activity(server);

	/* libinput keycode -> xkbcommon keycode */
	uint32_t keycode = event->keycode + 8;
	const xkb_keysym_t *syms;
	int nsyms = xkb_state_key_get_syms(keyboard->wlr_keyboard->xkb_state, keycode, &syms);

	bool handled = false;
	uint32_t modifiers = wlr_keyboard_get_modifiers(keyboard->wlr_keyboard);
	/* Ctrl+Alt+Fn: the default keymaps turn it into XF86Switch_VT_n. */
	for (int i = 0; i < nsyms && event->state == WL_KEYBOARD_KEY_STATE_PRESSED; i++) {
		if (syms[i] < XKB_KEY_XF86Switch_VT_1 || syms[i] > XKB_KEY_XF86Switch_VT_12)
			continue;
		handled = true;
		unsigned vt = syms[i] - XKB_KEY_XF86Switch_VT_1 + 1;
		if (!server->session)
			wlr_log(WLR_INFO, "VT %u: no session to switch (not on a VT)", vt);
		else if (!wlr_session_change_vt(server->session, vt))
			wlr_log(WLR_ERROR, "cannot switch to VT %u", vt);
	}
	/* No bindings while locked, nor for a focused client that inhibits
	 * them (the VT switch above stays). */
	if (!handled && (modifiers & SW_MODIFIER) && event->state == WL_KEYBOARD_KEY_STATE_PRESSED &&
	    !session_lock_active(server) &&
	    !shortcuts_inhibited(server)) {
		for (int i = 0; i < nsyms; i++)
			handled = handle_keybinding(server, syms[i]) || handled;
	}

	if (!handled) {
		wlr_seat_set_keyboard(server->seat, keyboard->wlr_keyboard);
		wlr_seat_keyboard_notify_key(server->seat, event->time_msec, event->keycode, event->state);
	}
}

/* The keymap of every keyboard that brings none: the XKB_DEFAULT_*
 * environment variables choose the layout, so there is one, compiled at
 * start-up. Compiled again for each keyboard plugged in, it made a long
 * turn of the event loop (compositor/tests/stalls.sh). NULL when it cannot
 * be compiled. */
static struct xkb_keymap *compile_default_keymap(void)
{
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_keymap *keymap = context ?
		xkb_keymap_new_from_names(context, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
	if (!keymap)
		wlr_log(WLR_ERROR, "cannot compile the default keymap (XKB_DEFAULT_*)");
	xkb_context_unref(context);
	return keymap;
}

/* The seat always has a keyboard: clients may ask for wl_keyboard whatever
 * is plugged in (vkgears does at start and dies without one), and a seat
 * whose keyboard capability comes and goes confuses them. Without a real
 * keyboard, a placeholder with the default keymap stands in; it never
 * sends a key. */
static const struct wlr_keyboard_impl placeholder_keyboard_impl = {
	.name = "syncway-placeholder-keyboard",
};

static void seat_update_keyboard(struct sw_server *server)
{
	/* At exit the backend destroys its keyboards after input_finish(). */
	if (!server->placeholder_keyboard.keymap)
		return;
	if (wl_list_empty(&server->keyboards))
		wlr_seat_set_keyboard(server->seat, &server->placeholder_keyboard);
	wlr_seat_set_capabilities(server->seat, WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD);
}

static void handle_keyboard_destroy(struct wl_listener *listener, void *data)
{
	struct sw_keyboard *keyboard = wl_container_of(listener, keyboard, destroy);
	wl_list_remove(&keyboard->modifiers.link);
	wl_list_remove(&keyboard->key.link);
	wl_list_remove(&keyboard->destroy.link);
	wl_list_remove(&keyboard->link);
	struct sw_server *server = keyboard->server;
	free(keyboard);
	seat_update_keyboard(server);
}

static void new_keyboard(struct sw_server *server, struct wlr_input_device *device, bool is_virtual)
{
	struct wlr_keyboard *wlr_keyboard = wlr_keyboard_from_input_device(device);

	struct sw_keyboard *keyboard = calloc(1, sizeof(*keyboard));
	if (!keyboard) {
		wlr_log(WLR_ERROR, "out of memory");
		return;
	}
	keyboard->server = server;
	keyboard->wlr_keyboard = wlr_keyboard;
	/* A virtual keyboard brings its client's keymap, before any key: giving
	 * it the default one first cost a copy of that to every client. */
	if (!is_virtual && server->keymap)
		wlr_keyboard_set_keymap(wlr_keyboard, server->keymap);
	/* Virtual ones too: clients repeat at the rate of whichever keyboard
	 * typed last, so one that kept another rate would change the user's
	 * whenever wtype or an on-screen keyboard types. */
	sw_input_config_keyboard(&server->options->input, wlr_keyboard);

	keyboard->modifiers.notify = handle_keyboard_modifiers;
	wl_signal_add(&wlr_keyboard->events.modifiers, &keyboard->modifiers);
	keyboard->key.notify = handle_keyboard_key;
	wl_signal_add(&wlr_keyboard->events.key, &keyboard->key);
	keyboard->destroy.notify = handle_keyboard_destroy;
	wl_signal_add(&device->events.destroy, &keyboard->destroy);

	if (!is_virtual)
		wlr_seat_set_keyboard(server->seat, wlr_keyboard);
	wl_list_insert(&server->keyboards, &keyboard->link);
}

static void handle_new_input(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, new_input);
	struct wlr_input_device *device = data;

	switch (device->type) {
	case WLR_INPUT_DEVICE_KEYBOARD:
		new_keyboard(server, device, false);
		break;
	case WLR_INPUT_DEVICE_POINTER:
		sw_input_config_pointer(&server->options->input, device);
		wlr_cursor_attach_input_device(server->cursor, device);
		break;
	default:
		break;
	}

	seat_update_keyboard(server);
}

static void handle_new_virtual_keyboard(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, new_virtual_keyboard);
	struct wlr_virtual_keyboard_v1 *keyboard = data;
	/* wlroots compiles the keymap its client sends in this turn, most
	 * likely. */
	sw_loop_stats_note(server->loop_stats, "virtual keyboard: client keymap");
	new_keyboard(server, &keyboard->keyboard.base, true);
	seat_update_keyboard(server);
}

static void handle_new_virtual_pointer(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, new_virtual_pointer);
	struct wlr_virtual_pointer_v1_new_pointer_event *event = data;
	wlr_cursor_attach_input_device(server->cursor, &event->new_pointer->pointer.base);
	if (event->suggested_output)
		wlr_cursor_map_input_to_output(server->cursor, &event->new_pointer->pointer.base,
					       event->suggested_output);
}

/* A new scale is read off the loop too, once the cursor was wanted
 * (compositor/cursor_theme.c). */
static void handle_layout_change(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, layout_change);
	sw_cursor_themes_layout_changed(server->cursor_themes);
}

static void handle_request_cursor(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, request_cursor);
	struct wlr_seat_pointer_request_set_cursor_event *event = data;
	/* Only the client with pointer focus may set the cursor image. */
	if (server->seat->pointer_state.focused_client == event->seat_client) {
		sw_cursor_drop_pending(server);
		wlr_cursor_set_surface(server->cursor, event->surface, event->hotspot_x, event->hotspot_y);
	}
}

static void handle_request_set_selection(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, request_set_selection);
	struct wlr_seat_request_set_selection_event *event = data;
	wlr_seat_set_selection(server->seat, event->source, event->serial);
}

static void handle_request_set_primary_selection(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, request_set_primary_selection);
	struct wlr_seat_request_set_primary_selection_event *event = data;
	wlr_seat_set_primary_selection(server->seat, event->source, event->serial);
}

static void handle_request_start_drag(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, request_start_drag);
	struct wlr_seat_request_start_drag_event *event = data;
	/* Only a client holding a pointer button on its own surface may start
	 * a drag, or any client could steal the pointer. */
	if (wlr_seat_validate_pointer_grab_serial(server->seat, event->origin, event->serial)) {
		wlr_seat_start_pointer_drag(server->seat, event->drag, event->serial);
		return;
	}
	wlr_log(WLR_INFO, "drag refused: serial %u is not a pointer grab on its origin", event->serial);
	wlr_data_source_destroy(event->drag->source);
}

static void handle_drag_icon_destroy(struct wl_listener *listener, void *data)
{
	/* wlroots destroys the icon's scene tree with it. */
	struct sw_server *server = wl_container_of(listener, server, drag_icon_destroy);
	server->drag_icon = NULL;
	wl_list_remove(&server->drag_icon_destroy.link);
}

static void handle_start_drag(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, start_drag);
	struct wlr_drag *drag = data;
	if (!drag->icon)
		return;
	/* The icon's tree goes with the drag icon; it follows the cursor. */
	server->drag_icon = wlr_scene_drag_icon_create(&server->scene->tree, drag->icon);
	if (!server->drag_icon)
		return;
	wlr_scene_node_set_position(&server->drag_icon->node, server->cursor->x, server->cursor->y);
	server->drag_icon_destroy.notify = handle_drag_icon_destroy;
	wl_signal_add(&drag->icon->events.destroy, &server->drag_icon_destroy);
}

static void process_cursor_move(struct sw_server *server)
{
	view_move(server->grabbed_view, server->cursor->x - server->grab_x,
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
	view_geometry(view, &geo_box);
	view_move(view, new_left - geo_box.x, new_top - geo_box.y);
	view_set_size(view, new_right - new_left, new_bottom - new_top);
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

	if (server->seat->drag && server->drag_icon)
		wlr_scene_node_set_position(&server->drag_icon->node, server->cursor->x, server->cursor->y);
	double sx, sy;
	struct wlr_surface *surface = NULL;
	view_at(server, server->cursor->x, server->cursor->y, &surface, &sx, &sy);
	/* Over a surface, the cursor is the one its client sets (X11 and
	 * layer surfaces too, which are no views). */
	if (!surface)
		sw_cursor_set_image(server, "default");
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
	idle_notify_activity(server);
	double dx = event->delta_x, dy = event->delta_y;
	pointer_constraints_motion(server->pointer_constraints, event->time_msec, &dx, &dy,
				   event->unaccel_dx, event->unaccel_dy);
	wlr_cursor_move(server->cursor, &event->pointer->base, dx, dy);
	process_cursor_motion(server, event->time_msec);
}

static void handle_cursor_motion_absolute(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, cursor_motion_absolute);
	struct wlr_pointer_motion_absolute_event *event = data;
	idle_notify_activity(server);
	/* As a relative motion, so that constraints hold for it too. */
	double lx, ly;
	wlr_cursor_absolute_to_layout_coords(server->cursor, &event->pointer->base, event->x,
					     event->y, &lx, &ly);
	double dx = lx - server->cursor->x, dy = ly - server->cursor->y;
	pointer_constraints_motion(server->pointer_constraints, event->time_msec, &dx, &dy, dx, dy);
	wlr_cursor_move(server->cursor, &event->pointer->base, dx, dy);
	process_cursor_motion(server, event->time_msec);
}

static void handle_cursor_button(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, cursor_button);
	struct wlr_pointer_button_event *event = data;
	idle_notify_activity(server);

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
	if (view)
		view_focus(view, surface);
	else if (surface)
		layer_shell_focus_surface(server, surface);

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
	idle_notify_activity(server);
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
	/* wlroots does not read XCURSOR_THEME and XCURSOR_SIZE itself; clients
	 * do, so they get the size syncway uses when it is unset. A missing
	 * theme only means no cursor image. */
	const char *theme = getenv("XCURSOR_THEME");
	const char *size_env = getenv("XCURSOR_SIZE");
	char *end = NULL;
	long size = size_env ? strtol(size_env, &end, 10) : 0;
	if (!size_env || *end || size <= 0 || size > 512) {
		if (size_env)
			wlr_log(WLR_ERROR, "XCURSOR_SIZE=%s is not a size in pixels; using 24", size_env);
		size = 24;
		setenv("XCURSOR_SIZE", "24", 1);
	}
	server->cursor_mgr = wlr_xcursor_manager_create(theme, (uint32_t)size);
	server->cursor_themes = sw_cursor_themes_create(server);
	if (!server->cursor_mgr || !server->cursor_themes) {
		wlr_log(WLR_ERROR, "cursor theme: out of memory");
		abort();
	}
	wlr_log(WLR_INFO, "cursor theme %s, size %ld", theme ? theme : "(default)", size);
	server->layout_change.notify = handle_layout_change;
	wl_signal_add(&server->output_layout->events.change, &server->layout_change);

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
	wlr_primary_selection_v1_device_manager_create(server->display);
	server->request_set_primary_selection.notify = handle_request_set_primary_selection;
	wl_signal_add(&server->seat->events.request_set_primary_selection,
		      &server->request_set_primary_selection);
	server->request_start_drag.notify = handle_request_start_drag;
	wl_signal_add(&server->seat->events.request_start_drag, &server->request_start_drag);
	server->start_drag.notify = handle_start_drag;
	wl_signal_add(&server->seat->events.start_drag, &server->start_drag);

	server->keymap = compile_default_keymap();
	wlr_keyboard_init(&server->placeholder_keyboard, &placeholder_keyboard_impl,
			  placeholder_keyboard_impl.name);
	if (server->keymap)
		wlr_keyboard_set_keymap(&server->placeholder_keyboard, server->keymap);
	/* Clients read the repeat rate of the seat's keyboard, this one too. */
	sw_input_config_keyboard(&server->options->input, &server->placeholder_keyboard);
	seat_update_keyboard(server);

	/* Virtual keyboards (wtype, on-screen keyboards) are keyboards like any
	 * other, compositor bindings included. */
	struct wlr_virtual_keyboard_manager_v1 *virtual_keyboards =
		wlr_virtual_keyboard_manager_v1_create(server->display);
	server->new_virtual_keyboard.notify = handle_new_virtual_keyboard;
	wl_signal_add(&virtual_keyboards->events.new_virtual_keyboard, &server->new_virtual_keyboard);
	/* And virtual pointers (wlrctl, remote desktops, the stall test). */
	struct wlr_virtual_pointer_manager_v1 *virtual_pointers =
		wlr_virtual_pointer_manager_v1_create(server->display);
	server->new_virtual_pointer.notify = handle_new_virtual_pointer;
	wl_signal_add(&virtual_pointers->events.new_virtual_pointer, &server->new_virtual_pointer);
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
	wl_list_remove(&server->request_set_primary_selection.link);
	wl_list_remove(&server->request_start_drag.link);
	wl_list_remove(&server->start_drag.link);
	wl_list_remove(&server->new_virtual_keyboard.link);
	wl_list_remove(&server->new_virtual_pointer.link);
	wl_list_remove(&server->layout_change.link);
	wlr_seat_set_keyboard(server->seat, NULL);
	wlr_keyboard_finish(&server->placeholder_keyboard);
	server->placeholder_keyboard.keymap = NULL;
	xkb_keymap_unref(server->keymap);
	server->keymap = NULL;
	sw_cursor_themes_destroy(server->cursor_themes);
	wlr_xcursor_manager_destroy(server->cursor_mgr);
	wlr_cursor_destroy(server->cursor);
}
