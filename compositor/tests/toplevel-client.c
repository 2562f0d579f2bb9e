/* toplevel-client: what the toplevels suite (toplevels.sh) needs where
 * Debian has no tool: an ext-foreign-toplevel-list listing, and a window
 * that uses xdg-activation and keyboard-shortcuts-inhibit on command.
 *
 * usage: toplevel-client list
 *	Prints "toplevel app_id=APP_ID title=TITLE" for each window in
 *	ext-foreign-toplevel-list-v1 and exits.
 * usage: toplevel-client window APP_ID TITLE
 *	Maps a window and says on stdout, a line each, what happens to it:
 *	"focus-in", "focus-out", "pointer-in", "key KEYSYM[ alt]" (presses),
 *	"configure[ maximized][ fullscreen]", "inhibitor active|inactive",
 *	"token TOKEN", "close" (and it exits). It takes commands on stdin, a
 *	line each:
 *	  title TEXT      sets its title
 *	  inhibit         inhibits the compositor's shortcuts on its window
 *	  token           gets an activation token made with the last serial
 *	                  it was sent, on the seat, for its window
 *	  token-serial    the same without the window
 *	  token-bare      a token made with neither serial nor window
 *	  activate TOKEN  asks for its window to be activated with TOKEN
 *	  quit            exits (as does the end of the input)
 * A command whose protocol the compositor does not offer gets the line
 * "error: no INTERFACE". Exits 0 when done, 2 on a usage error or when it
 * cannot go on: the compositor lacks a global it cannot do without (the
 * list, the seat), or the connection fails.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include "buffer.h"
#include "display.h"
#include "input.h"
#include "window.h"
#include "ext-foreign-toplevel-list-v1-client-protocol.h"
#include "keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"
#include "xdg-activation-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* list */

struct listed_toplevel {
	struct ext_foreign_toplevel_handle_v1 *handle;
	char *app_id, *title;
};

static struct listed_toplevel listed[64];
static int n_listed;

static void handle_title(void *data, struct ext_foreign_toplevel_handle_v1 *h, const char *title)
{
	struct listed_toplevel *t = data;
	free(t->title);
	t->title = strdup(title);
}

static void handle_app_id(void *data, struct ext_foreign_toplevel_handle_v1 *h, const char *app_id)
{
	struct listed_toplevel *t = data;
	free(t->app_id);
	t->app_id = strdup(app_id);
}

static void handle_done(void *data, struct ext_foreign_toplevel_handle_v1 *h)
{
	struct listed_toplevel *t = data;
	printf("toplevel app_id=%s title=%s\n", t->app_id ? t->app_id : "", t->title ? t->title : "");
}

static void handle_closed(void *data, struct ext_foreign_toplevel_handle_v1 *h) {}
static void handle_identifier(void *data, struct ext_foreign_toplevel_handle_v1 *h, const char *id) {}

static const struct ext_foreign_toplevel_handle_v1_listener handle_listener = {
	.closed = handle_closed,
	.done = handle_done,
	.title = handle_title,
	.app_id = handle_app_id,
	.identifier = handle_identifier,
};

static void list_toplevel(void *data, struct ext_foreign_toplevel_list_v1 *list,
			  struct ext_foreign_toplevel_handle_v1 *handle)
{
	if (n_listed == (int)(sizeof(listed) / sizeof(listed[0])))
		sw_die("more than %d windows", n_listed);
	struct listed_toplevel *t = &listed[n_listed++];
	t->handle = handle;
	ext_foreign_toplevel_handle_v1_add_listener(handle, &handle_listener, t);
}

static void list_finished(void *data, struct ext_foreign_toplevel_list_v1 *list) {}

static const struct ext_foreign_toplevel_list_v1_listener list_listener = {
	.toplevel = list_toplevel,
	.finished = list_finished,
};

static int list(struct sw_display *d)
{
	struct ext_foreign_toplevel_list_v1 *list =
		sw_display_need(d, &ext_foreign_toplevel_list_v1_interface, 1);
	ext_foreign_toplevel_list_v1_add_listener(list, &list_listener, NULL);
	/* The handles come with their details, each set ended by done. */
	if (wl_display_roundtrip(d->display) < 0)
		sw_die("the connection failed");
	for (int i = 0; i < n_listed; i++) {
		ext_foreign_toplevel_handle_v1_destroy(listed[i].handle);
		free(listed[i].app_id);
		free(listed[i].title);
	}
	ext_foreign_toplevel_list_v1_destroy(list);
	return 0;
}

/* window */

struct client {
	struct sw_display *d;
	struct sw_window window;
	struct sw_buffer *buffer;
	unsigned configures_seen;
	struct wl_seat *seat;
	struct wl_keyboard *keyboard;
	struct wl_pointer *pointer;
	uint32_t serial; /* the last one the compositor sent */
	struct xdg_activation_v1 *activation;
	struct zwp_keyboard_shortcuts_inhibit_manager_v1 *inhibit_manager;
	struct zwp_keyboard_shortcuts_inhibitor_v1 *inhibitor;
	struct xkb_context *xkb;
	struct xkb_keymap *keymap;
	struct xkb_state *xkb_state;
	char line[512];
	size_t line_len;
	bool done;
};

static void keyboard_keymap(void *data, struct wl_keyboard *kb, uint32_t format, int32_t fd, uint32_t size)
{
	struct client *c = data;
	char *map = format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 ?
		mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (map == MAP_FAILED)
		sw_die("cannot read the keymap");
	struct xkb_keymap *keymap = xkb_keymap_new_from_buffer(c->xkb, map, strnlen(map, size),
							       XKB_KEYMAP_FORMAT_TEXT_V1,
							       XKB_KEYMAP_COMPILE_NO_FLAGS);
	munmap(map, size);
	if (!keymap)
		sw_die("cannot compile the keymap");
	xkb_state_unref(c->xkb_state);
	xkb_keymap_unref(c->keymap);
	c->keymap = keymap;
	c->xkb_state = xkb_state_new(keymap);
}

static void keyboard_enter(void *data, struct wl_keyboard *kb, uint32_t serial, struct wl_surface *surface,
			   struct wl_array *keys)
{
	struct client *c = data;
	c->serial = serial;
	printf("focus-in\n");
}

static void keyboard_leave(void *data, struct wl_keyboard *kb, uint32_t serial, struct wl_surface *surface)
{
	struct client *c = data;
	c->serial = serial;
	printf("focus-out\n");
}

static void keyboard_key(void *data, struct wl_keyboard *kb, uint32_t serial, uint32_t time, uint32_t key,
			 uint32_t state)
{
	struct client *c = data;
	c->serial = serial;
	if (state != WL_KEYBOARD_KEY_STATE_PRESSED || !c->xkb_state)
		return;
	char name[64];
	xkb_keysym_get_name(xkb_state_key_get_one_sym(c->xkb_state, key + 8), name, sizeof(name));
	bool alt = xkb_state_mod_name_is_active(c->xkb_state, XKB_MOD_NAME_ALT, XKB_STATE_MODS_EFFECTIVE) > 0;
	printf("key %s%s\n", name, alt ? " alt" : "");
}

static void keyboard_modifiers(void *data, struct wl_keyboard *kb, uint32_t serial, uint32_t depressed,
			       uint32_t latched, uint32_t locked, uint32_t group)
{
	struct client *c = data;
	c->serial = serial;
	if (c->xkb_state)
		xkb_state_update_mask(c->xkb_state, depressed, latched, locked, 0, 0, group);
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = keyboard_keymap,
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
	.modifiers = keyboard_modifiers,
};

static void pointer_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *surface,
			  wl_fixed_t x, wl_fixed_t y)
{
	struct client *c = data;
	c->serial = serial;
	printf("pointer-in\n");
}

static void pointer_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *surface)
{
	struct client *c = data;
	c->serial = serial;
}

static void pointer_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t button,
			   uint32_t state)
{
	struct client *c = data;
	c->serial = serial;
}

static struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.button = pointer_button,
};

static void inhibitor_active(void *data, struct zwp_keyboard_shortcuts_inhibitor_v1 *inhibitor)
{
	printf("inhibitor active\n");
}

static void inhibitor_inactive(void *data, struct zwp_keyboard_shortcuts_inhibitor_v1 *inhibitor)
{
	printf("inhibitor inactive\n");
}

static const struct zwp_keyboard_shortcuts_inhibitor_v1_listener inhibitor_listener = {
	.active = inhibitor_active,
	.inactive = inhibitor_inactive,
};

static void token_done(void *data, struct xdg_activation_token_v1 *token, const char *name)
{
	printf("token %s\n", name);
	xdg_activation_token_v1_destroy(token);
}

static const struct xdg_activation_token_v1_listener token_listener = { .done = token_done };

static void request_token(struct client *c, bool with_serial, bool with_surface)
{
	struct xdg_activation_token_v1 *token = xdg_activation_v1_get_activation_token(c->activation);
	xdg_activation_token_v1_add_listener(token, &token_listener, c);
	if (with_serial)
		xdg_activation_token_v1_set_serial(token, c->serial, c->seat);
	if (with_surface)
		xdg_activation_token_v1_set_surface(token, c->window.surface);
	xdg_activation_token_v1_commit(token);
}

/* Each protocol's commands fail alone, so that the window serves the
 * others' checks. */
static void run_command(struct client *c, const char *line)
{
	if (strncmp(line, "title ", 6) == 0) {
		xdg_toplevel_set_title(c->window.xdg_toplevel, line + 6);
	} else if ((strncmp(line, "token", 5) == 0 || strncmp(line, "activate ", 9) == 0) &&
		   !c->activation) {
		printf("error: no %s\n", xdg_activation_v1_interface.name);
	} else if (strcmp(line, "inhibit") == 0 && !c->inhibit_manager) {
		printf("error: no %s\n", zwp_keyboard_shortcuts_inhibit_manager_v1_interface.name);
	} else if (strcmp(line, "inhibit") == 0) {
		/* A second one on the surface is a protocol error. */
		if (c->inhibitor)
			return;
		c->inhibitor = zwp_keyboard_shortcuts_inhibit_manager_v1_inhibit_shortcuts(
			c->inhibit_manager, c->window.surface, c->seat);
		zwp_keyboard_shortcuts_inhibitor_v1_add_listener(c->inhibitor, &inhibitor_listener, c);
	} else if (strcmp(line, "token") == 0) {
		request_token(c, true, true);
	} else if (strcmp(line, "token-serial") == 0) {
		request_token(c, true, false);
	} else if (strcmp(line, "token-bare") == 0) {
		request_token(c, false, false);
	} else if (strncmp(line, "activate ", 9) == 0) {
		xdg_activation_v1_activate(c->activation, line + 9, c->window.surface);
	} else if (strcmp(line, "quit") == 0) {
		c->done = true;
	} else {
		sw_die("unknown command '%s'", line);
	}
}

/* Runs each whole line read; the end of the input ends the client. */
static void read_commands(struct client *c)
{
	ssize_t n = read(STDIN_FILENO, c->line + c->line_len, sizeof(c->line) - 1 - c->line_len);
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		c->done = true;
		return;
	}
	c->line_len += n;
	char *start = c->line, *nl;
	while ((nl = memchr(start, '\n', c->line_len - (start - c->line)))) {
		*nl = '\0';
		run_command(c, start);
		start = nl + 1;
	}
	c->line_len -= start - c->line;
	memmove(c->line, start, c->line_len);
	if (c->line_len == sizeof(c->line) - 1)
		sw_die("command line too long");
}

/* Says what the compositor asked of the window, and answers a configure
 * with a commit of the same buffer (its size stays the client's). */
static void report_window(struct client *c)
{
	struct sw_window *w = &c->window;
	if (w->closed) {
		printf("close\n");
		c->done = true;
		return;
	}
	if (w->configures == c->configures_seen)
		return;
	c->configures_seen = w->configures;
	printf("configure%s%s\n", w->maximized ? " maximized" : "", w->fullscreen ? " fullscreen" : "");
	sw_window_show(w, c->buffer);
}

static int window(struct sw_display *d, const char *app_id, const char *title)
{
	struct client c = { .d = d };
	c.seat = sw_display_need(d, &wl_seat_interface, 1);
	c.activation = sw_display_bind(d, &xdg_activation_v1_interface, 1);
	c.inhibit_manager =
		sw_display_bind(d, &zwp_keyboard_shortcuts_inhibit_manager_v1_interface, 1);
	c.xkb = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	if (!c.xkb)
		sw_die("no xkb context");
	/* syncway's seat always has both (input.c). */
	c.keyboard = wl_seat_get_keyboard(c.seat);
	wl_keyboard_add_listener(c.keyboard, &keyboard_listener, &c);
	c.pointer = wl_seat_get_pointer(c.seat);
	sw_pointer_add_listener(c.pointer, &pointer_listener, &c);

	c.buffer = sw_buffer_create_solid(d, 160, 120, 0xff808080);
	sw_window_init(&c.window, d, title);
	xdg_toplevel_set_app_id(c.window.xdg_toplevel, app_id);
	wl_surface_commit(c.window.surface);

	struct wl_display *display = d->display;
	bool input_open = true;
	while (!c.done) {
		while (wl_display_prepare_read(display) != 0) {
			if (wl_display_dispatch_pending(display) < 0)
				sw_die("the connection failed");
		}
		wl_display_flush(display);
		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(display), .events = POLLIN },
			{ .fd = STDIN_FILENO, .events = POLLIN },
		};
		if (poll(fds, input_open ? 2 : 1, -1) < 0) {
			wl_display_cancel_read(display);
			if (errno == EINTR)
				continue;
			sw_die("poll: %s", strerror(errno));
		}
		if (fds[0].revents) {
			if (wl_display_read_events(display) < 0)
				sw_die("the connection failed");
		} else {
			wl_display_cancel_read(display);
		}
		if (wl_display_dispatch_pending(display) < 0)
			sw_die("the connection failed");
		if (c.window.configured)
			report_window(&c);
		if (input_open && fds[1].revents && !c.done) {
			read_commands(&c);
			input_open = !c.done;
		}
	}

	if (c.inhibitor)
		zwp_keyboard_shortcuts_inhibitor_v1_destroy(c.inhibitor);
	sw_window_finish(&c.window);
	sw_buffer_destroy(c.buffer);
	wl_keyboard_destroy(c.keyboard);
	wl_pointer_destroy(c.pointer);
	if (c.inhibit_manager)
		zwp_keyboard_shortcuts_inhibit_manager_v1_destroy(c.inhibit_manager);
	if (c.activation)
		xdg_activation_v1_destroy(c.activation);
	wl_seat_destroy(c.seat);
	xkb_state_unref(c.xkb_state);
	xkb_keymap_unref(c.keymap);
	xkb_context_unref(c.xkb);
	return 0;
}

int main(int argc, char *argv[])
{
	bool is_list = argc == 2 && strcmp(argv[1], "list") == 0;
	bool is_window = argc == 4 && strcmp(argv[1], "window") == 0;
	if (!is_list && !is_window) {
		fprintf(stderr, "usage: toplevel-client list | toplevel-client window APP_ID TITLE\n");
		return 2;
	}
	/* Each line as it happens: the suite waits for them. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sw_display *d = sw_display_create(NULL);
	if (!d || wl_display_get_error(d->display))
		sw_die("cannot connect to the compositor");
	if (!d->compositor || !d->wm_base || !d->shm)
		sw_die("the compositor lacks wl_compositor 4, xdg_wm_base or wl_shm");
	int status = is_list ? list(d) : window(d, argv[2], argv[3]);
	sw_display_destroy(d);
	return status;
}
