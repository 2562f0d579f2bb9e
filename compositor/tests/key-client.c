/* key-client: a window of one colour that says on stdout what keyboard input
 * reaches it, for tests that check who gets the keys (lock.sh).
 *
 * usage: key-client RRGGBB WIDTH HEIGHT
 * Prints "shown" once its first buffer is committed, then "enter", "leave"
 * and "key CODE pressed|released" as wl_keyboard events arrive, each line
 * flushed. Runs until the compositor closes the window or the connection
 * ends (status 0), or cannot start (status 2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

#include "buffer.h"
#include "display.h"
#include "input.h"
#include "window.h"

static void keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			   struct wl_surface *surface, struct wl_array *keys)
{
	printf("enter\n");
}

static void keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			   struct wl_surface *surface)
{
	printf("leave\n");
}

static void keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time,
			 uint32_t key, uint32_t state)
{
	printf("key %u %s\n", key, state == WL_KEYBOARD_KEY_STATE_PRESSED ? "pressed" : "released");
}

static struct wl_keyboard_listener keyboard_listener = {
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
};

int main(int argc, char *argv[])
{
	char *end;
	unsigned long rgb = argc == 4 ? strtoul(argv[1], &end, 16) : 0;
	int width = argc == 4 ? atoi(argv[2]) : 0, height = argc == 4 ? atoi(argv[3]) : 0;
	if (argc != 4 || *end || strlen(argv[1]) != 6 || width <= 0 || height <= 0) {
		fprintf(stderr, "usage: key-client RRGGBB WIDTH HEIGHT\n");
		return 2;
	}
	/* Each line as it happens: the suite waits for them. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sw_display *d = sw_display_create(NULL);
	if (!d)
		sw_die("cannot connect to the compositor");
	if (!d->compositor || !d->wm_base || !d->shm)
		sw_die("the compositor lacks wl_compositor 4, xdg_wm_base or wl_shm");
	struct wl_seat *seat = sw_display_need(d, &wl_seat_interface, 1);
	/* A seat without a keyboard has none to give: syncway's always has one. */
	sw_keyboard_add_listener(wl_seat_get_keyboard(seat), &keyboard_listener, NULL);

	struct sw_window w;
	sw_window_init(&w, d, "key-client");
	sw_window_wait_configured(&w, d);
	sw_window_show(&w, sw_buffer_create_solid(d, width, height, 0xff000000u | (uint32_t)rgb));
	if (wl_display_roundtrip(d->display) < 0)
		sw_die("the connection ended");
	printf("shown\n");

	while (!w.closed && wl_display_dispatch(d->display) >= 0)
		;
	return 0;
}
