/* pointer-client: moves syncway's pointer through wlr-virtual-pointer, for
 * tests that need pointer motion where no input device exists (a guest).
 *
 * usage: pointer-client X Y [X Y ...]
 * Each pair is a position as a fraction (0 to 1) of the whole layout, sent
 * as one absolute motion and a frame; the client waits for the compositor
 * to have handled it (a roundtrip) before the next. Exits 0 when all were
 * sent, 1 when syncway offers no virtual pointer or the connection fails.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

/* Absolute positions go in this many steps across the layout. */
#define EXTENT 10000

struct globals {
	struct wl_seat *seat;
	struct zwlr_virtual_pointer_manager_v1 *manager;
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct globals *g = data;
	if (strcmp(interface, wl_seat_interface.name) == 0 && !g->seat)
		g->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
		g->manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static bool parse_fraction(const char *arg, uint32_t *out)
{
	char *end;
	double f = strtod(arg, &end);
	if (*end || end == arg || f < 0 || f > 1)
		return false;
	*out = (uint32_t)(f * EXTENT + 0.5);
	return true;
}

int main(int argc, char *argv[])
{
	if (argc < 3 || (argc - 1) % 2) {
		fprintf(stderr, "usage: pointer-client X Y [X Y ...] (fractions of the layout)\n");
		return 2;
	}
	struct wl_display *display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "pointer-client: cannot connect to the compositor\n");
		return 1;
	}
	struct globals g = { 0 };
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &g);
	wl_display_roundtrip(display);
	if (!g.manager) {
		fprintf(stderr, "pointer-client: the compositor offers no zwlr_virtual_pointer_manager_v1\n");
		return 1;
	}
	struct zwlr_virtual_pointer_v1 *pointer =
		zwlr_virtual_pointer_manager_v1_create_virtual_pointer(g.manager, g.seat);
	int status = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		uint32_t x, y;
		if (!parse_fraction(argv[i], &x) || !parse_fraction(argv[i + 1], &y)) {
			fprintf(stderr, "pointer-client: '%s %s' is not a position (0 to 1 each)\n", argv[i],
				argv[i + 1]);
			status = 2;
			break;
		}
		zwlr_virtual_pointer_v1_motion_absolute(pointer, 0, x, y, EXTENT, EXTENT);
		zwlr_virtual_pointer_v1_frame(pointer);
		if (wl_display_roundtrip(display) < 0) {
			fprintf(stderr, "pointer-client: the connection failed\n");
			status = 1;
			break;
		}
	}
	zwlr_virtual_pointer_v1_destroy(pointer);
	zwlr_virtual_pointer_manager_v1_destroy(g.manager);
	if (g.seat)
		wl_seat_destroy(g.seat);
	wl_registry_destroy(registry);
	wl_display_roundtrip(display);
	wl_display_disconnect(display);
	return status;
}
