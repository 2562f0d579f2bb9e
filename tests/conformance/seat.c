/* The seat as clients without input devices still see it: a keyboard
 * whenever one is asked for, and the clipboard and primary selection
 * passed from one client to the focused one. Runs against the compositor
 * of $WAYLAND_DISPLAY:
 *
 *   seat-conformance [--list] [--run GLOB] [--json FILE]
 *
 * A client's selection needs the serial of an input event it received: a
 * newly mapped window gets keyboard focus, and wl_keyboard.enter's serial
 * is that event. Drag-and-drop needs a pointer button held down, which a
 * guest without input devices cannot press (docs/compositor.md has the
 * manual check). A virtual pointer (wlr-virtual-pointer) stands in for a
 * mouse where motion is all a subtest needs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ct.h"
#include "input.h"
#include "primary-selection-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define MIME "text/plain;charset=utf-8"

/* One client's seat: its keyboard's focus and the offers it was given. */
struct seat {
	struct ct_conn *c;
	struct wl_seat *seat;
	uint32_t caps;
	bool caps_known;
	struct wl_keyboard *keyboard;
	uint32_t enter_serial;
	bool focused;
	struct wl_data_device_manager *ddm;
	struct wl_data_device *dd;
	struct wl_data_offer *selection; /* the current clipboard offer */
	struct zwp_primary_selection_device_manager_v1 *psm;
	struct zwp_primary_selection_device_v1 *psd;
	struct zwp_primary_selection_offer_v1 *primary; /* the current primary offer */
	/* What the source side was asked for. */
	int sends;
};

static const char payload[] = "syncway selection payload";

static void seat_caps(void *data, struct wl_seat *wl_seat, uint32_t caps)
{
	struct seat *s = data;
	s->caps = caps;
	s->caps_known = true;
}

static void seat_name(void *data, struct wl_seat *wl_seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_caps,
	.name = seat_name,
};

static void kb_enter(void *data, struct wl_keyboard *kb, uint32_t serial, struct wl_surface *surface,
		     struct wl_array *keys)
{
	struct seat *s = data;
	s->enter_serial = serial;
	s->focused = true;
}

static void kb_leave(void *data, struct wl_keyboard *kb, uint32_t serial, struct wl_surface *surface)
{
	struct seat *s = data;
	s->focused = false;
}

static struct wl_keyboard_listener keyboard_listener = {
	.enter = kb_enter,
	.leave = kb_leave,
};

/* --- offers and sources --------------------------------------------------- */

static void offer_offer(void *data, struct wl_data_offer *offer, const char *mime)
{
}

static void offer_source_actions(void *data, struct wl_data_offer *offer, uint32_t actions)
{
}

static void offer_action(void *data, struct wl_data_offer *offer, uint32_t action)
{
}

static const struct wl_data_offer_listener offer_listener = {
	.offer = offer_offer,
	.source_actions = offer_source_actions,
	.action = offer_action,
};

static void dd_data_offer(void *data, struct wl_data_device *dd, struct wl_data_offer *offer)
{
	wl_data_offer_add_listener(offer, &offer_listener, data);
}

static void dd_enter(void *data, struct wl_data_device *dd, uint32_t serial, struct wl_surface *surface,
		     wl_fixed_t x, wl_fixed_t y, struct wl_data_offer *offer)
{
}

static void dd_leave(void *data, struct wl_data_device *dd)
{
}

static void dd_motion(void *data, struct wl_data_device *dd, uint32_t time, wl_fixed_t x, wl_fixed_t y)
{
}

static void dd_drop(void *data, struct wl_data_device *dd)
{
}

static void dd_selection(void *data, struct wl_data_device *dd, struct wl_data_offer *offer)
{
	struct seat *s = data;
	if (s->selection)
		wl_data_offer_destroy(s->selection);
	s->selection = offer;
}

static const struct wl_data_device_listener dd_listener = {
	.data_offer = dd_data_offer,
	.enter = dd_enter,
	.leave = dd_leave,
	.motion = dd_motion,
	.drop = dd_drop,
	.selection = dd_selection,
};

static void primary_offer_offer(void *data, struct zwp_primary_selection_offer_v1 *offer, const char *mime)
{
}

static const struct zwp_primary_selection_offer_v1_listener primary_offer_listener = {
	.offer = primary_offer_offer,
};

static void psd_data_offer(void *data, struct zwp_primary_selection_device_v1 *psd,
			   struct zwp_primary_selection_offer_v1 *offer)
{
	zwp_primary_selection_offer_v1_add_listener(offer, &primary_offer_listener, data);
}

static void psd_selection(void *data, struct zwp_primary_selection_device_v1 *psd,
			  struct zwp_primary_selection_offer_v1 *offer)
{
	struct seat *s = data;
	if (s->primary)
		zwp_primary_selection_offer_v1_destroy(s->primary);
	s->primary = offer;
}

static const struct zwp_primary_selection_device_v1_listener psd_listener = {
	.data_offer = psd_data_offer,
	.selection = psd_selection,
};

/* The source side writes the payload to whoever receives. */
static void write_payload(struct seat *s, const char *mime, int32_t fd)
{
	s->sends++;
	if (strcmp(mime, MIME) == 0 && write(fd, payload, sizeof(payload) - 1) != sizeof(payload) - 1)
		ct_note("writing the payload: %s", strerror(errno));
	close(fd);
}

static void source_target(void *data, struct wl_data_source *source, const char *mime)
{
}

static void source_send(void *data, struct wl_data_source *source, const char *mime, int32_t fd)
{
	write_payload(data, mime, fd);
}

static void source_cancelled(void *data, struct wl_data_source *source)
{
}

static void source_dnd_drop_performed(void *data, struct wl_data_source *source)
{
}

static void source_dnd_finished(void *data, struct wl_data_source *source)
{
}

static void source_action(void *data, struct wl_data_source *source, uint32_t action)
{
}

static const struct wl_data_source_listener source_listener = {
	.target = source_target,
	.send = source_send,
	.cancelled = source_cancelled,
	.dnd_drop_performed = source_dnd_drop_performed,
	.dnd_finished = source_dnd_finished,
	.action = source_action,
};

static void primary_source_send(void *data, struct zwp_primary_selection_source_v1 *source, const char *mime,
				int32_t fd)
{
	write_payload(data, mime, fd);
}

static void primary_source_cancelled(void *data, struct zwp_primary_selection_source_v1 *source)
{
}

static const struct zwp_primary_selection_source_v1_listener primary_source_listener = {
	.send = primary_source_send,
	.cancelled = primary_source_cancelled,
};

/* --- set-up ------------------------------------------------------------- */

static void *bind(struct ct_conn *c, const struct wl_interface *iface, uint32_t version)
{
	const struct sw_display_global *g = sw_display_find_global(c->d, iface->name);
	if (!g)
		sw_skip("the compositor offers no %s", iface->name);
	return wl_registry_bind(c->d->registry, g->name, iface, version);
}

/* A client with a seat, a keyboard and a shown window, focused; returns
 * the window. */
static struct ct_window *seat_init(struct seat *s)
{
	*s = (struct seat){ .c = ct_connect() };
	s->seat = bind(s->c, &wl_seat_interface, 5);
	wl_seat_add_listener(s->seat, &seat_listener, s);
	ct_roundtrip(s->c);
	if (!(s->caps & WL_SEAT_CAPABILITY_KEYBOARD))
		sw_fail("wl_seat capabilities 0x%x: no keyboard", s->caps);
	s->keyboard = wl_seat_get_keyboard(s->seat);
	sw_keyboard_add_listener(s->keyboard, &keyboard_listener, s);
	struct ct_window *w = ct_toplevel(s->c);
	ct_need_presented(s->c, ct_commit_buffer(w, ct_buffer(s->c), NULL, 0, NULL, 0), "the window's buffer");
	if (!ct_wait_flag(s->c, &s->focused, CT_DEADLINE_MS))
		sw_fail("a newly shown window got no keyboard focus (wl_keyboard.enter) within %d ms",
			CT_DEADLINE_MS);
	return w;
}

/* What a client's wl_pointer was told. */
struct pointer {
	bool entered, moved;
};

static void pointer_enter(void *data, struct wl_pointer *wl_pointer, uint32_t serial,
			  struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
	((struct pointer *)data)->entered = true;
}

static void pointer_leave(void *data, struct wl_pointer *wl_pointer, uint32_t serial,
			  struct wl_surface *surface)
{
	((struct pointer *)data)->entered = false;
}

static void pointer_motion(void *data, struct wl_pointer *wl_pointer, uint32_t time, wl_fixed_t x,
			   wl_fixed_t y)
{
	((struct pointer *)data)->moved = true;
}

static struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
};

/* xdg_toplevel.move and .resize carry the serial of the button press that
 * starts them; a compositor that takes any serial lets any client take
 * the pointer away from the user. The window is made fullscreen, so that
 * it is wherever the pointer goes; the pointer is put on it, and the
 * client asks with its keyboard focus serial (a real serial, of no press):
 * pointer motion must still reach it. */
static void grab_refused(const char *request)
{
	struct seat s;
	struct ct_window *w = seat_init(&s);
	struct pointer p = { 0 };
	sw_pointer_add_listener(wl_seat_get_pointer(s.seat), &pointer_listener, &p);
	xdg_toplevel_set_fullscreen(w->win.xdg_toplevel, NULL);
	if (!ct_wait_flag(s.c, &w->win.fullscreen, CT_DEADLINE_MS))
		sw_fail("the window was not made fullscreen within %d ms", CT_DEADLINE_MS);
	ct_need_presented(s.c, ct_commit_buffer(w, ct_buffer(s.c), NULL, 0, NULL, 0),
			  "the fullscreen window's buffer");
	struct zwlr_virtual_pointer_manager_v1 *vpm =
		bind(s.c, &zwlr_virtual_pointer_manager_v1_interface, 1);
	struct zwlr_virtual_pointer_v1 *vp =
		zwlr_virtual_pointer_manager_v1_create_virtual_pointer(vpm, s.seat);
	zwlr_virtual_pointer_v1_motion_absolute(vp, 0, 10, 10, 1000, 1000);
	zwlr_virtual_pointer_v1_frame(vp);
	if (!ct_wait_flag(s.c, &p.entered, CT_DEADLINE_MS))
		sw_fail("the pointer put on the fullscreen window never entered it");
	if (strcmp(request, "move") == 0)
		xdg_toplevel_move(w->win.xdg_toplevel, s.seat, s.enter_serial);
	else
		xdg_toplevel_resize(w->win.xdg_toplevel, s.seat, s.enter_serial,
				    XDG_TOPLEVEL_RESIZE_EDGE_BOTTOM_RIGHT);
	ct_roundtrip(s.c);
	p.moved = false;
	zwlr_virtual_pointer_v1_motion(vp, 1, wl_fixed_from_int(5), wl_fixed_from_int(5));
	zwlr_virtual_pointer_v1_frame(vp);
	if (!ct_wait_flag(s.c, &p.moved, CT_DEADLINE_MS))
		sw_fail("after xdg_toplevel.%s with a serial of no button press, pointer motion no "
			"longer reached the window: the compositor began a grab", request);
	zwlr_virtual_pointer_v1_destroy(vp);
	zwlr_virtual_pointer_manager_v1_destroy(vpm);
}

static void grab_tests(void)
{
	ct_subtest("move-request-without-a-button-press-does-not-grab-the-pointer")
		grab_refused("move");
	ct_subtest("resize-request-without-a-button-press-does-not-grab-the-pointer")
		grab_refused("resize");
}

/* Reads what the source side writes into fd's pipe, dispatching the source's
 * connection until it has written and closed its end. */
static void read_payload(struct seat *src, int fd, const char *what)
{
	char buf[128];
	size_t n = 0;
	int sends = src->sends;
	int64_t deadline = ct_now_ns() + (int64_t)CT_DEADLINE_MS * 1000000;
	while (src->sends == sends && ct_now_ns() < deadline)
		ct_dispatch(src->c, -1, 50);
	if (src->sends == sends)
		sw_fail("%s: the source was never asked to send within %d ms", what, CT_DEADLINE_MS);
	for (;;) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (strcmp(buf, payload) != 0)
		sw_fail("%s: received \"%s\", expected \"%s\"", what, buf, payload);
}

static void selection_tests(void)
{
	ct_subtest("seat-has-a-keyboard-without-devices")
	{
		/* vkgears and others ask for wl_keyboard at start: a seat
		 * without the capability is a protocol error for them. */
		struct seat s;
		seat_init(&s);
	}

	ct_subtest("clipboard-reaches-the-next-focused-client")
	{
		struct seat a, b;
		seat_init(&a);
		a.ddm = bind(a.c, &wl_data_device_manager_interface, 3);
		a.dd = wl_data_device_manager_get_data_device(a.ddm, a.seat);
		wl_data_device_add_listener(a.dd, &dd_listener, &a);
		struct wl_data_source *source = wl_data_device_manager_create_data_source(a.ddm);
		wl_data_source_add_listener(source, &source_listener, &a);
		wl_data_source_offer(source, MIME);
		wl_data_device_set_selection(a.dd, source, a.enter_serial);
		ct_roundtrip(a.c);

		seat_init(&b);
		b.ddm = bind(b.c, &wl_data_device_manager_interface, 3);
		b.dd = wl_data_device_manager_get_data_device(b.ddm, b.seat);
		wl_data_device_add_listener(b.dd, &dd_listener, &b);
		ct_roundtrip(b.c);
		if (!b.selection)
			sw_fail("the client focused after another set the clipboard got no selection offer");
		int fds[2];
		if (pipe2(fds, O_CLOEXEC) != 0)
			sw_fail("pipe: %s", strerror(errno));
		wl_data_offer_receive(b.selection, MIME, fds[1]);
		close(fds[1]);
		wl_display_flush(b.c->d->display);
		read_payload(&a, fds[0], "clipboard");
	}

	ct_subtest("primary-selection-reaches-the-next-focused-client")
	{
		struct seat a, b;
		seat_init(&a);
		a.psm = bind(a.c, &zwp_primary_selection_device_manager_v1_interface, 1);
		a.psd = zwp_primary_selection_device_manager_v1_get_device(a.psm, a.seat);
		zwp_primary_selection_device_v1_add_listener(a.psd, &psd_listener, &a);
		struct zwp_primary_selection_source_v1 *source =
			zwp_primary_selection_device_manager_v1_create_source(a.psm);
		zwp_primary_selection_source_v1_add_listener(source, &primary_source_listener, &a);
		zwp_primary_selection_source_v1_offer(source, MIME);
		zwp_primary_selection_device_v1_set_selection(a.psd, source, a.enter_serial);
		ct_roundtrip(a.c);

		seat_init(&b);
		b.psm = bind(b.c, &zwp_primary_selection_device_manager_v1_interface, 1);
		b.psd = zwp_primary_selection_device_manager_v1_get_device(b.psm, b.seat);
		zwp_primary_selection_device_v1_add_listener(b.psd, &psd_listener, &b);
		ct_roundtrip(b.c);
		if (!b.primary)
			sw_fail("the client focused after another set the primary selection got no offer");
		int fds[2];
		if (pipe2(fds, O_CLOEXEC) != 0)
			sw_fail("pipe: %s", strerror(errno));
		zwp_primary_selection_offer_v1_receive(b.primary, MIME, fds[1]);
		close(fds[1]);
		wl_display_flush(b.c->d->display);
		read_payload(&a, fds[0], "primary selection");
	}
}

int main(int argc, char **argv)
{
	sw_test_init("seat-conformance", argc, argv);
	selection_tests();
	grab_tests();
	ct_end();
	return sw_test_exit();
}
