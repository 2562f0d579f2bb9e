/* keyboard-shortcuts-inhibit-unstable-v1: a client that wants the keys the
 * compositor binds (a remote desktop, a virtual machine viewer) asks for
 * them on one of its surfaces; while that surface has keyboard focus its
 * inhibitor is active and Alt+Return, Alt+Escape and Alt+F1 reach the
 * client instead (input.c). The VT switch (Ctrl+Alt+Fn) is never
 * inhibited, as in sway: it is the way out of a client that keeps every
 * key. Every inhibitor is honoured; the client learns it from the active
 * and inactive events. */
#include "shortcuts_inhibit.h"

#include <stdlib.h>
#include <wlr/types/wlr_keyboard_shortcuts_inhibit_v1.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/util/log.h>

#include "server.h"

struct sw_shortcuts_inhibit {
	struct sw_server *server;
	struct wlr_keyboard_shortcuts_inhibit_manager_v1 *manager;

	struct wl_listener new_inhibitor;
	struct wl_listener focus_change;
};

/* wlroots keeps the inhibitors and destroys them with their surface or
 * resource; which of them is active follows keyboard focus alone. */
static void update_inhibitor(struct sw_shortcuts_inhibit *inhibit,
			     struct wlr_keyboard_shortcuts_inhibitor_v1 *inhibitor)
{
	struct wlr_seat *seat = inhibit->server->seat;
	if (inhibitor->seat == seat && inhibitor->surface == seat->keyboard_state.focused_surface)
		wlr_keyboard_shortcuts_inhibitor_v1_activate(inhibitor);
	else
		wlr_keyboard_shortcuts_inhibitor_v1_deactivate(inhibitor);
}

static void handle_new_inhibitor(struct wl_listener *listener, void *data)
{
	struct sw_shortcuts_inhibit *inhibit = wl_container_of(listener, inhibit, new_inhibitor);
	update_inhibitor(inhibit, data);
}

static void handle_focus_change(struct wl_listener *listener, void *data)
{
	struct sw_shortcuts_inhibit *inhibit = wl_container_of(listener, inhibit, focus_change);
	struct wlr_keyboard_shortcuts_inhibitor_v1 *inhibitor;
	wl_list_for_each(inhibitor, &inhibit->manager->inhibitors, link)
		update_inhibitor(inhibit, inhibitor);
}

bool shortcuts_inhibited(struct sw_server *server)
{
	struct sw_shortcuts_inhibit *inhibit = server->shortcuts_inhibit;
	if (!inhibit)
		return false;
	struct wlr_keyboard_shortcuts_inhibitor_v1 *inhibitor;
	wl_list_for_each(inhibitor, &inhibit->manager->inhibitors, link) {
		if (inhibitor->active && inhibitor->surface == server->seat->keyboard_state.focused_surface)
			return true;
	}
	return false;
}

void shortcuts_inhibit_init(struct sw_server *server)
{
	struct sw_shortcuts_inhibit *inhibit = calloc(1, sizeof(*inhibit));
	if (!inhibit) {
		wlr_log(WLR_ERROR, "keyboard-shortcuts-inhibit: out of memory; not offered");
		return;
	}
	inhibit->server = server;
	inhibit->manager = wlr_keyboard_shortcuts_inhibit_v1_create(server->display);
	if (!inhibit->manager) {
		wlr_log(WLR_ERROR, "keyboard-shortcuts-inhibit: cannot create the global; not offered");
		free(inhibit);
		return;
	}
	inhibit->new_inhibitor.notify = handle_new_inhibitor;
	wl_signal_add(&inhibit->manager->events.new_inhibitor, &inhibit->new_inhibitor);
	inhibit->focus_change.notify = handle_focus_change;
	wl_signal_add(&server->seat->keyboard_state.events.focus_change, &inhibit->focus_change);
	server->shortcuts_inhibit = inhibit;
}

void shortcuts_inhibit_finish(struct sw_server *server)
{
	struct sw_shortcuts_inhibit *inhibit = server->shortcuts_inhibit;
	if (!inhibit)
		return;
	wl_list_remove(&inhibit->new_inhibitor.link);
	wl_list_remove(&inhibit->focus_change.link);
	free(inhibit);
	server->shortcuts_inhibit = NULL;
}
