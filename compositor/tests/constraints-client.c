/* constraints-client: a window that uses the pointer as games do, for
 * pointer.sh: it locks or confines the pointer, reads relative motion and
 * names a cursor shape, and prints one line for each thing it receives.
 *
 * usage: constraints-client [--lock | --confine X,Y,W,H] [--hint X,Y]
 *                           [--unlock-after N] [--shape-on-click NAME]
 *        constraints-client --set-shape NAME
 * The first maps a 400x300 window, takes a persistent lock (or
 * confinement to the rectangle, in surface coordinates) with the cursor
 * position hint, and prints on stdout, flushed:
 *	ready			mapped; constraint requested
 *	enter SX SY, leave, motion SX SY, button
 *	axis AXIS VALUE		(wl_pointer.axis: 0 vertical, 1 horizontal)
 *	relative DX DY UDX UDY	(unaccelerated: UDX UDY)
 *	locked, unlocked, confined, unconfined
 *	unlocking, unlock	it destroys its lock, after N relative
 *				motions received while locked
 *	shape NAME		it asked for the shape, after a button press
 * ("unlock" and "shape" once the compositor has handled the request),
 * until it is killed. The second binds no surface: it asks for a shape
 * with the pointer it has (which never had focus), prints "shape NAME"
 * once the compositor has seen the request, and exits.
 * Exit status 2 when the compositor lacks a global it needs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

#include "buffer.h"
#include "cursor-shape-v1-client-protocol.h"
#include "display.h"
#include "input.h"
#include "pointer-constraints-unstable-v1-client-protocol.h"
#include "relative-pointer-unstable-v1-client-protocol.h"
#include "window.h"

#define WIDTH 400
#define HEIGHT 300

static const struct {
	const char *name;
	enum wp_cursor_shape_device_v1_shape shape;
} shapes[] = {
	{ "default", WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_DEFAULT },
	{ "crosshair", WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_CROSSHAIR },
	{ "not-allowed", WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_NOT_ALLOWED },
	{ "text", WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_TEXT },
};

struct client {
	struct sw_display *d;
	struct wl_seat *seat;
	struct wl_pointer *pointer;
	struct zwp_pointer_constraints_v1 *constraints;
	struct zwp_relative_pointer_manager_v1 *relative_manager;
	struct wp_cursor_shape_manager_v1 *shape_manager;
	struct wp_cursor_shape_device_v1 *shape_device;
	struct zwp_locked_pointer_v1 *locked;
	bool is_locked;
	int unlock_after, relative_while_locked;
	const char *shape_name;
	char shape_line[64]; /* "shape NAME" */
	enum wp_cursor_shape_device_v1_shape shape;
	uint32_t enter_serial;
};

static void sync_done(void *data, struct wl_callback *callback, uint32_t time)
{
	wl_callback_destroy(callback);
	printf("%s\n", (const char *)data);
}

static const struct wl_callback_listener sync_listener = { .done = sync_done };

/* Prints line once the compositor has handled the requests made so far:
 * the test may act on them then. */
static void say_when_done(struct client *c, const char *line)
{
	wl_callback_add_listener(wl_display_sync(c->d->display), &sync_listener, (void *)line);
}

static void pointer_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s,
			  wl_fixed_t x, wl_fixed_t y)
{
	struct client *c = data;
	c->enter_serial = serial;
	printf("enter %.2f %.2f\n", wl_fixed_to_double(x), wl_fixed_to_double(y));
}

static void pointer_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s)
{
	printf("leave\n");
}

static void pointer_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x,
			   wl_fixed_t y)
{
	printf("motion %.2f %.2f\n", wl_fixed_to_double(x), wl_fixed_to_double(y));
}

static void pointer_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time,
			   uint32_t button, uint32_t state)
{
	struct client *c = data;
	if (state != WL_POINTER_BUTTON_STATE_PRESSED)
		return;
	printf("button\n");
	if (c->shape_device) {
		wp_cursor_shape_device_v1_set_shape(c->shape_device, c->enter_serial, c->shape);
		say_when_done(c, c->shape_line);
	}
}

static void pointer_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis,
			 wl_fixed_t value)
{
	printf("axis %u %.2f\n", axis, wl_fixed_to_double(value));
}

static struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
};

static void relative_motion(void *data, struct zwp_relative_pointer_v1 *r, uint32_t utime_hi,
			    uint32_t utime_lo, wl_fixed_t dx, wl_fixed_t dy, wl_fixed_t udx,
			    wl_fixed_t udy)
{
	struct client *c = data;
	printf("relative %.2f %.2f %.2f %.2f\n", wl_fixed_to_double(dx), wl_fixed_to_double(dy),
	       wl_fixed_to_double(udx), wl_fixed_to_double(udy));
	if (c->is_locked && ++c->relative_while_locked == c->unlock_after) {
		zwp_locked_pointer_v1_destroy(c->locked);
		c->locked = NULL;
		c->is_locked = false;
		printf("unlocking\n");
		say_when_done(c, "unlock");
	}
}

static const struct zwp_relative_pointer_v1_listener relative_listener = {
	.relative_motion = relative_motion,
};

static void locked(void *data, struct zwp_locked_pointer_v1 *l)
{
	struct client *c = data;
	c->is_locked = true;
	printf("locked\n");
}

static void unlocked(void *data, struct zwp_locked_pointer_v1 *l)
{
	struct client *c = data;
	c->is_locked = false;
	printf("unlocked\n");
}

static const struct zwp_locked_pointer_v1_listener locked_listener = {
	.locked = locked,
	.unlocked = unlocked,
};

static void confined(void *data, struct zwp_confined_pointer_v1 *p)
{
	printf("confined\n");
}

static void unconfined(void *data, struct zwp_confined_pointer_v1 *p)
{
	printf("unconfined\n");
}

static const struct zwp_confined_pointer_v1_listener confined_listener = {
	.confined = confined,
	.unconfined = unconfined,
};

static enum wp_cursor_shape_device_v1_shape parse_shape(const char *name)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (strcmp(shapes[i].name, name) == 0)
			return shapes[i].shape;
	sw_die("unknown shape '%s'", name);
}

static void usage(void)
{
	fprintf(stderr, "usage: constraints-client [--lock | --confine X,Y,W,H] [--hint X,Y]\n"
			"                          [--unlock-after N] [--shape-on-click NAME]\n"
			"       constraints-client --set-shape NAME\n");
	exit(2);
}

int main(int argc, char *argv[])
{
	struct client c = { 0 };
	bool lock = false, confine = false, has_hint = false, set_shape = false;
	int rx = 0, ry = 0, rw = 0, rh = 0;
	double hx = 0, hy = 0;
	for (int i = 1; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--lock") == 0) {
			lock = true;
		} else if (strcmp(argv[i], "--confine") == 0 && next &&
			   sscanf(next, "%d,%d,%d,%d", &rx, &ry, &rw, &rh) == 4) {
			confine = true;
			i++;
		} else if (strcmp(argv[i], "--hint") == 0 && next &&
			   sscanf(next, "%lf,%lf", &hx, &hy) == 2) {
			has_hint = true;
			i++;
		} else if (strcmp(argv[i], "--unlock-after") == 0 && next) {
			c.unlock_after = atoi(next);
			i++;
		} else if ((strcmp(argv[i], "--shape-on-click") == 0 ||
			    strcmp(argv[i], "--set-shape") == 0) &&
			   next) {
			set_shape = strcmp(argv[i], "--set-shape") == 0;
			c.shape_name = next;
			c.shape = parse_shape(next);
			snprintf(c.shape_line, sizeof(c.shape_line), "shape %s", next);
			i++;
		} else {
			usage();
		}
	}
	if (lock && confine)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	c.d = sw_display_create(NULL);
	if (!c.d || wl_display_get_error(c.d->display))
		sw_die("cannot connect to the compositor");
	c.seat = sw_display_need(c.d, &wl_seat_interface, 1);
	c.pointer = wl_seat_get_pointer(c.seat);
	if (c.shape_name) {
		c.shape_manager = sw_display_need(c.d, &wp_cursor_shape_manager_v1_interface, 1);
		c.shape_device = wp_cursor_shape_manager_v1_get_pointer(c.shape_manager, c.pointer);
	}
	if (set_shape) {
		wp_cursor_shape_device_v1_set_shape(c.shape_device, 0, c.shape);
		if (wl_display_roundtrip(c.d->display) < 0)
			sw_die("the connection failed");
		printf("%s\n", c.shape_line);
		sw_display_abandon(c.d);
		return 0;
	}
	sw_pointer_add_listener(c.pointer, &pointer_listener, &c);
	c.relative_manager = sw_display_need(c.d, &zwp_relative_pointer_manager_v1_interface, 1);
	struct zwp_relative_pointer_v1 *relative =
		zwp_relative_pointer_manager_v1_get_relative_pointer(c.relative_manager, c.pointer);
	zwp_relative_pointer_v1_add_listener(relative, &relative_listener, &c);
	if (lock || confine)
		c.constraints = sw_display_need(c.d, &zwp_pointer_constraints_v1_interface, 1);

	struct sw_window w;
	sw_window_init(&w, c.d, "constraints-client");
	sw_window_wait_configured(&w, c.d);
	struct sw_buffer *buffer = sw_buffer_create_solid(c.d, WIDTH, HEIGHT, 0xff3060a0);

	struct wl_region *region = NULL;
	if (confine) {
		region = wl_compositor_create_region(c.d->compositor);
		wl_region_add(region, rx, ry, rw, rh);
	}
	if (lock) {
		c.locked = zwp_pointer_constraints_v1_lock_pointer(
			c.constraints, w.surface, c.pointer, NULL,
			ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
		zwp_locked_pointer_v1_add_listener(c.locked, &locked_listener, &c);
		if (has_hint)
			zwp_locked_pointer_v1_set_cursor_position_hint(
				c.locked, wl_fixed_from_double(hx), wl_fixed_from_double(hy));
	} else if (confine) {
		struct zwp_confined_pointer_v1 *confined_pointer =
			zwp_pointer_constraints_v1_confine_pointer(
				c.constraints, w.surface, c.pointer, region,
				ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
		zwp_confined_pointer_v1_add_listener(confined_pointer, &confined_listener, &c);
		wl_region_destroy(region);
	}
	sw_window_show(&w, buffer);
	if (wl_display_roundtrip(c.d->display) < 0)
		sw_die("the connection failed");
	printf("ready\n");
	while (wl_display_dispatch(c.d->display) >= 0)
		;
	sw_die("the connection failed");
}
