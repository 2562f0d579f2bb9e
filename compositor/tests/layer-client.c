/* layer-client: a layer-shell surface of one colour on the top layer, at a
 * given place, that says on stdout when it has keyboard focus: for tests of
 * who gets the keyboard when layer surfaces are clicked (focus.sh).
 *
 * usage: layer-client RRGGBB X Y WIDTH HEIGHT none|on-demand|exclusive
 * The surface is anchored to the top left corner of the first output, X and
 * Y its margins, and asks for that keyboard interactivity. Over it, the
 * cursor is a 16x16 square of magenta (ff00ff), its hotspot at the top left
 * corner. Prints "shown" once its first buffer is committed, then "enter"
 * and "leave" as wl_keyboard events arrive, each line flushed. Runs until the compositor
 * closes the surface or the connection ends (status 0), or cannot start
 * (status 2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

#include "buffer.h"
#include "display.h"
#include "input.h"
#include "window.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"

struct layer {
	struct zwlr_layer_surface_v1 *layer_surface;
	struct wl_surface *cursor;
	bool configured, closed;
};

static void pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
			  struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
	struct layer *layer = data;
	wl_pointer_set_cursor(pointer, serial, layer->cursor, 0, 0);
}

/* Completed by sw_pointer_add_listener(). */
static struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
};

static void keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			   struct wl_surface *surface, struct wl_array *keys)
{
	printf("enter\n");
	fflush(stdout);
}

static void keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			   struct wl_surface *surface)
{
	printf("leave\n");
	fflush(stdout);
}

/* Completed by sw_keyboard_add_listener(). */
static struct wl_keyboard_listener keyboard_listener = {
	.enter = keyboard_enter,
	.leave = keyboard_leave,
};

static void layer_configure(void *data, struct zwlr_layer_surface_v1 *layer_surface, uint32_t serial,
			    uint32_t width, uint32_t height)
{
	struct layer *layer = data;
	zwlr_layer_surface_v1_ack_configure(layer_surface, serial);
	layer->configured = true;
}

static void layer_closed(void *data, struct zwlr_layer_surface_v1 *layer_surface)
{
	struct layer *layer = data;
	layer->closed = true;
}

static const struct zwlr_layer_surface_v1_listener layer_listener = {
	.configure = layer_configure,
	.closed = layer_closed,
};

int main(int argc, char *argv[])
{
	static const char *const interactivity_names[] = { "none", "exclusive", "on-demand" };
	int interactivity = -1;
	for (int i = 0; argc == 7 && i < 3; i++)
		if (strcmp(argv[6], interactivity_names[i]) == 0)
			interactivity = i; /* the protocol's values, in this order */
	char *end = NULL;
	unsigned long rgb = argc == 7 ? strtoul(argv[1], &end, 16) : 0;
	int x = argc == 7 ? atoi(argv[2]) : 0, y = argc == 7 ? atoi(argv[3]) : 0;
	int width = argc == 7 ? atoi(argv[4]) : 0, height = argc == 7 ? atoi(argv[5]) : 0;
	if (argc != 7 || *end || strlen(argv[1]) != 6 || width <= 0 || height <= 0 ||
	    interactivity < 0) {
		fprintf(stderr, "usage: layer-client RRGGBB X Y WIDTH HEIGHT none|on-demand|exclusive\n");
		return 2;
	}
	struct sw_display *d = sw_display_create(NULL);
	if (!d)
		sw_die("cannot connect to the compositor");
	const struct sw_display_global *seat_global = sw_display_find_global(d, "wl_seat");
	const struct sw_display_global *shell_global = sw_display_find_global(d, "zwlr_layer_shell_v1");
	/* on-demand is version 4's. */
	if (!d->compositor || !d->shm || !seat_global || !shell_global || shell_global->version < 4)
		sw_die("the compositor lacks wl_compositor 4, wl_shm, wl_seat or zwlr_layer_shell_v1 4");
	struct wl_seat *seat = wl_registry_bind(d->registry, seat_global->name, &wl_seat_interface, 1);
	struct wl_keyboard *keyboard = wl_seat_get_keyboard(seat);
	sw_keyboard_add_listener(keyboard, &keyboard_listener, NULL);
	struct zwlr_layer_shell_v1 *shell =
		wl_registry_bind(d->registry, shell_global->name, &zwlr_layer_shell_v1_interface, 4);

	struct layer layer = { 0 };
	struct sw_buffer *cursor_buffer =
		sw_buffer_create(d, SW_BUFFER_SHM, -1, DRM_FORMAT_XRGB8888, 16, 16, NULL);
	if (!cursor_buffer)
		sw_die("cannot make a cursor buffer");
	sw_buffer_fill(cursor_buffer, 0xffff00ffu);
	layer.cursor = wl_compositor_create_surface(d->compositor);
	wl_surface_attach(layer.cursor, cursor_buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(layer.cursor, 0, 0, 16, 16);
	wl_surface_commit(layer.cursor);
	struct wl_pointer *pointer = wl_seat_get_pointer(seat);
	sw_pointer_add_listener(pointer, &pointer_listener, &layer);
	struct wl_surface *surface = wl_compositor_create_surface(d->compositor);
	layer.layer_surface = zwlr_layer_shell_v1_get_layer_surface(
		shell, surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "layer-client");
	zwlr_layer_surface_v1_add_listener(layer.layer_surface, &layer_listener, &layer);
	zwlr_layer_surface_v1_set_size(layer.layer_surface, width, height);
	zwlr_layer_surface_v1_set_anchor(layer.layer_surface, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP |
								     ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT);
	zwlr_layer_surface_v1_set_margin(layer.layer_surface, y, 0, 0, x);
	zwlr_layer_surface_v1_set_keyboard_interactivity(layer.layer_surface, interactivity);
	wl_surface_commit(surface);
	while (!layer.configured)
		if (wl_display_dispatch(d->display) < 0 || layer.closed)
			sw_die("the surface was not configured");

	struct sw_buffer *buffer =
		sw_buffer_create(d, SW_BUFFER_SHM, -1, DRM_FORMAT_XRGB8888, width, height, NULL);
	if (!buffer)
		sw_die("cannot make a %dx%d buffer", width, height);
	sw_buffer_fill(buffer, 0xff000000u | (uint32_t)rgb);
	wl_surface_attach(surface, buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, width, height);
	wl_surface_commit(surface);
	if (wl_display_roundtrip(d->display) < 0)
		sw_die("the connection ended");
	printf("shown\n");
	fflush(stdout);

	while (!layer.closed && wl_display_dispatch(d->display) >= 0)
		;
	return 0;
}
