/* Window management the compositor must honour: maximize and fullscreen
 * fill the output and are given back; popups are kept on the output;
 * decoration modes are answered;
 * layer-shell exclusive zones are left free by maximized windows; popups of
 * layer surfaces are shown. Runs against the
 * compositor of $WAYLAND_DISPLAY:
 *
 *   shell-conformance [--list] [--run GLOB] [--json FILE]
 *
 * SYNCWAY_CONFORMANCE_OUTPUT_SIZE=WxH, when set, is the size of the only
 * output; the filled size must be exactly that. */
#include <stdio.h>
#include <stdlib.h>

#include "ct.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* Dispatches until the compositor sends w another configure. */
static void next_configure(struct ct_window *w, const char *what)
{
	ct_need_configure_since(w, w->win.configures, what);
}

/* The filled size is the output's: exactly the one the environment names,
 * else at least not the client's choice (0x0). */
static void need_filled(struct ct_window *w, const char *what)
{
	const char *size = getenv("SYNCWAY_CONFORMANCE_OUTPUT_SIZE");
	int ow = 0, oh = 0;
	if (size && sscanf(size, "%dx%d", &ow, &oh) == 2) {
		if (w->win.configure_width != ow || w->win.configure_height != oh)
			sw_fail("%s: configured %dx%d, the output is %dx%d", what, w->win.configure_width,
				w->win.configure_height, ow, oh);
	} else if (w->win.configure_width <= 0 || w->win.configure_height <= 0) {
		sw_fail("%s: configured %dx%d, not the output's size", what, w->win.configure_width,
			w->win.configure_height);
	}
}

/* A toplevel showing a 32x32 buffer, the floating size to come back to. */
static struct ct_window *shown(struct ct_conn *c)
{
	struct ct_window *w = ct_toplevel(c);
	ct_need_presented(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), "first buffer");
	return w;
}

static void state_tests(void)
{
	ct_subtest("maximize-fills-the-output-and-unmaximize-restores")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = shown(c);
		xdg_toplevel_set_maximized(w->win.xdg_toplevel);
		next_configure(w, "set_maximized");
		if (!w->win.maximized)
			sw_fail("set_maximized: the configure has no maximized state");
		need_filled(w, "set_maximized");
		xdg_toplevel_unset_maximized(w->win.xdg_toplevel);
		next_configure(w, "unset_maximized");
		if (w->win.maximized)
			sw_fail("unset_maximized: the configure still has the maximized state");
		if (w->win.configure_width != 32 || w->win.configure_height != 32)
			sw_fail("unset_maximized: configured %dx%d, not the 32x32 it had",
				w->win.configure_width, w->win.configure_height);
	}

	ct_subtest("fullscreen-fills-the-output-and-unset-restores")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = shown(c);
		xdg_toplevel_set_fullscreen(w->win.xdg_toplevel, NULL);
		next_configure(w, "set_fullscreen");
		if (!w->win.fullscreen)
			sw_fail("set_fullscreen: the configure has no fullscreen state");
		need_filled(w, "set_fullscreen");
		xdg_toplevel_unset_fullscreen(w->win.xdg_toplevel);
		next_configure(w, "unset_fullscreen");
		if (w->win.fullscreen)
			sw_fail("unset_fullscreen: the configure still has the fullscreen state");
		if (w->win.configure_width != 32 || w->win.configure_height != 32)
			sw_fail("unset_fullscreen: configured %dx%d, not the 32x32 it had",
				w->win.configure_width, w->win.configure_height);
	}

	ct_subtest("maximized-before-first-commit-starts-filled")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_bare_surface(c);
		sw_window_finish(&w->win);
		sw_window_init(&w->win, c->d, "shell-conformance");
		xdg_toplevel_set_maximized(w->win.xdg_toplevel);
		wl_surface_commit(w->win.surface);
		next_configure(w, "initial commit after set_maximized");
		if (!w->win.maximized)
			sw_fail("initial configure: no maximized state");
		need_filled(w, "initial configure of a maximized window");
	}
}

/* --- decorations ---------------------------------------------------------- */

static void decoration_configure(void *data, struct zxdg_toplevel_decoration_v1 *decoration, uint32_t mode)
{
	*(uint32_t *)data = mode;
}

static const struct zxdg_toplevel_decoration_v1_listener decoration_listener = {
	.configure = decoration_configure,
};

static void decoration_tests(void)
{
	/* The compositor answers set_mode with a configure carrying the mode
	 * it chose (syncway: client-side, always), and later mode requests
	 * with a configure too. */
	ct_subtest("decoration-mode-is-answered")
	{
		struct ct_conn *c = ct_connect();
		const struct sw_display_global *g =
			sw_display_find_global(c->d, zxdg_decoration_manager_v1_interface.name);
		if (!g)
			sw_skip("the compositor offers no zxdg_decoration_manager_v1");
		struct zxdg_decoration_manager_v1 *manager =
			wl_registry_bind(c->d->registry, g->name, &zxdg_decoration_manager_v1_interface, 1);
		struct ct_window *w = ct_bare_surface(c);
		sw_window_finish(&w->win);
		sw_window_init(&w->win, c->d, "shell-conformance");
		struct zxdg_toplevel_decoration_v1 *decoration =
			zxdg_decoration_manager_v1_get_toplevel_decoration(manager, w->win.xdg_toplevel);
		uint32_t mode = 0;
		zxdg_toplevel_decoration_v1_add_listener(decoration, &decoration_listener, &mode);
		zxdg_toplevel_decoration_v1_set_mode(decoration, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
		wl_surface_commit(w->win.surface);
		next_configure(w, "initial commit with a decoration");
		ct_roundtrip(c);
		if (mode != ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE &&
		    mode != ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE)
			sw_fail("set_mode(server_side) and the initial commit: decoration configure %s", mode ?
				"with an unknown mode" : "never came");
		ct_note("server-side asked, %s-side given",
			mode == ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE ? "client" : "server");
		/* Answered with an xdg_surface.configure; the decoration's own
		 * configure only comes if the mode changes. */
		zxdg_toplevel_decoration_v1_unset_mode(decoration);
		next_configure(w, "unset_mode after the initial commit");
		/* A second decoration object for the same toplevel. */
		/* A second decoration object for the same toplevel: the enum is
		 * the decoration's, the protocol does not say on which object
		 * (wlroots posts it on the manager). */
		zxdg_decoration_manager_v1_get_toplevel_decoration(manager, w->win.xdg_toplevel);
		if (ct_try_roundtrip(c))
			sw_fail("a second get_toplevel_decoration for one toplevel was accepted");
		const struct wl_interface *iface = NULL;
		uint32_t code = wl_display_get_protocol_error(c->d->display, &iface, NULL);
		if (code != ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED || !iface ||
		    (iface != &zxdg_decoration_manager_v1_interface &&
		     iface != &zxdg_toplevel_decoration_v1_interface))
			sw_fail("a second get_toplevel_decoration: error %u on %s, expected already_constructed "
				"(\"%s\")", code, iface ? iface->name : "?", ct_last_log());
	}
}

/* --- layer shell ---------------------------------------------------------- */

struct layer {
	struct ct_window *w; /* its wl_surface */
	struct zwlr_layer_surface_v1 *ls;
	uint32_t width, height; /* the last configure */
	bool configured, closed;
};

static void layer_configure(void *data, struct zwlr_layer_surface_v1 *ls, uint32_t serial, uint32_t width,
			    uint32_t height)
{
	struct layer *l = data;
	l->width = width;
	l->height = height;
	l->configured = true;
	zwlr_layer_surface_v1_ack_configure(ls, serial);
}

static void layer_closed(void *data, struct zwlr_layer_surface_v1 *ls)
{
	struct layer *l = data;
	l->closed = true;
}

static const struct zwlr_layer_surface_v1_listener layer_listener = {
	.configure = layer_configure,
	.closed = layer_closed,
};

static struct zwlr_layer_shell_v1 *layer_shell(struct ct_conn *c)
{
	const struct sw_display_global *g = sw_display_find_global(c->d, zwlr_layer_shell_v1_interface.name);
	if (!g)
		sw_skip("the compositor offers no zwlr_layer_shell_v1");
	return wl_registry_bind(c->d->registry, g->name, &zwlr_layer_shell_v1_interface, 1);
}

/* A top-layer surface anchored to anchor, size width x height (0: the
 * output's along an edge anchored on both sides), given an exclusive zone,
 * configured and showing a buffer. */
static void layer_show(struct ct_conn *c, struct zwlr_layer_shell_v1 *shell, struct layer *l,
		       uint32_t anchor, uint32_t width, uint32_t height, int32_t zone)
{
	*l = (struct layer){ .w = ct_bare_surface(c) };
	l->ls = zwlr_layer_shell_v1_get_layer_surface(shell, l->w->win.surface, NULL,
						      ZWLR_LAYER_SHELL_V1_LAYER_TOP, "shell-conformance");
	zwlr_layer_surface_v1_add_listener(l->ls, &layer_listener, l);
	zwlr_layer_surface_v1_set_anchor(l->ls, anchor);
	zwlr_layer_surface_v1_set_size(l->ls, width, height);
	zwlr_layer_surface_v1_set_exclusive_zone(l->ls, zone);
	wl_surface_commit(l->w->win.surface);
	if (!ct_wait_flag(c, &l->configured, CT_DEADLINE_MS))
		sw_fail("layer surface: no configure within %d ms", CT_DEADLINE_MS);
	ct_need_presented(c, ct_commit_buffer(l->w, ct_buffer(c), NULL, 0, NULL, 0),
			  "the layer surface's first buffer");
}

static void layer_destroy(struct layer *l)
{
	zwlr_layer_surface_v1_destroy(l->ls);
	ct_destroy_surface(l->w);
}

struct popup {
	struct ct_window *w; /* its wl_surface */
	struct xdg_surface *xdg_surface;
	struct xdg_popup *xdg_popup;
	int32_t x, y; /* the last xdg_popup.configure, relative to the parent */
	bool configured, done;
};

static void popup_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct popup *p = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	p->configured = true;
}

static const struct xdg_surface_listener popup_surface_listener = {
	.configure = popup_surface_configure,
};

static void popup_configure(void *data, struct xdg_popup *xdg_popup, int32_t x, int32_t y, int32_t width,
			    int32_t height)
{
	struct popup *p = data;
	p->x = x;
	p->y = y;
}

static void popup_done(void *data, struct xdg_popup *xdg_popup)
{
	struct popup *p = data;
	p->done = true;
}

static void popup_repositioned(void *data, struct xdg_popup *xdg_popup, uint32_t token)
{
}

static const struct xdg_popup_listener popup_listener = {
	.configure = popup_configure,
	.popup_done = popup_done,
	.repositioned = popup_repositioned,
};

/* A 16x16 popup of parent (NULL: none yet, for a layer surface to adopt
 * with adopt), asked to open above the parent's top edge but allowed to
 * flip: the compositor flips it when above is off the output. Configured
 * and showing a buffer. */
static void popup_show(struct ct_conn *c, struct popup *p, struct xdg_surface *parent,
		       struct zwlr_layer_surface_v1 *adopt)
{
	if (!c->d->wm_base)
		sw_skip("the compositor offers no xdg_wm_base");
	*p = (struct popup){ .w = ct_bare_surface(c) };
	p->xdg_surface = xdg_wm_base_get_xdg_surface(c->d->wm_base, p->w->win.surface);
	xdg_surface_add_listener(p->xdg_surface, &popup_surface_listener, p);
	struct xdg_positioner *pos = xdg_wm_base_create_positioner(c->d->wm_base);
	xdg_positioner_set_size(pos, 16, 16);
	xdg_positioner_set_anchor_rect(pos, 0, 0, 32, 32);
	xdg_positioner_set_anchor(pos, XDG_POSITIONER_ANCHOR_TOP);
	xdg_positioner_set_gravity(pos, XDG_POSITIONER_GRAVITY_TOP);
	xdg_positioner_set_constraint_adjustment(pos, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y);
	p->xdg_popup = xdg_surface_get_popup(p->xdg_surface, parent, pos);
	xdg_popup_add_listener(p->xdg_popup, &popup_listener, p);
	xdg_positioner_destroy(pos);
	if (adopt)
		zwlr_layer_surface_v1_get_popup(adopt, p->xdg_popup);
	wl_surface_commit(p->w->win.surface);
	if (!ct_wait_flag(c, &p->configured, CT_DEADLINE_MS))
		sw_fail("popup: no xdg_surface.configure within %d ms", CT_DEADLINE_MS);
	ct_need_presented(c, ct_commit_buffer(p->w, ct_buffer(c), NULL, 0, NULL, 0),
			  "the popup's first buffer");
	if (p->done)
		sw_fail("popup: dismissed (popup_done) instead of shown");
}

static void popup_destroy(struct popup *p)
{
	xdg_popup_destroy(p->xdg_popup);
	xdg_surface_destroy(p->xdg_surface);
	ct_destroy_surface(p->w);
}

/* The parent is at the top of the output: above it is off-screen. */
static void need_flipped(const struct popup *p, const char *what)
{
	ct_note("%s: placed at %d,%d", what, p->x, p->y);
	if (p->y < 0)
		sw_fail("%s: placed at %d,%d, above the output's top edge; flip_y allowed %d,32", what,
			p->x, p->y, p->x);
}

static void popup_tests(void)
{
	ct_subtest("popup-near-the-output-edge-is-flipped-onto-it")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = shown(c);
		/* Maximized: the window's top edge is the output's. */
		xdg_toplevel_set_maximized(w->win.xdg_toplevel);
		next_configure(w, "set_maximized");
		ct_need_presented(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0),
				  "the maximized window's buffer");
		struct popup p;
		popup_show(c, &p, w->win.xdg_surface, NULL);
		need_flipped(&p, "a popup of a maximized window");
		popup_destroy(&p);
	}
}

static void layer_tests(void)
{
	/* A panel's exclusive zone is not covered by maximized windows, and
	 * they take the room back when the panel goes. */
	ct_subtest("exclusive-zone-shrinks-maximized-windows")
	{
		enum { ZONE = 32 };
		struct ct_conn *c = ct_connect();
		struct zwlr_layer_shell_v1 *shell = layer_shell(c);
		struct ct_window *w = shown(c);
		xdg_toplevel_set_maximized(w->win.xdg_toplevel);
		next_configure(w, "set_maximized");
		need_filled(w, "set_maximized");
		int full_w = w->win.configure_width, full_h = w->win.configure_height;

		struct layer panel;
		unsigned configures = w->win.configures;
		const uint32_t top = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
				     ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
		layer_show(c, shell, &panel, top, 0, ZONE, ZONE);
		if ((int)panel.width != full_w || panel.height != ZONE)
			sw_fail("panel anchored top, left and right: configured %ux%u, expected %dx%d",
				panel.width, panel.height, full_w, ZONE);
		ct_need_configure_since(w, configures, "a top panel with an exclusive zone appeared");
		if (w->win.configure_width != full_w || w->win.configure_height != full_h - ZONE)
			sw_fail("beside a panel with a %d px exclusive zone the maximized window is "
				"configured %dx%d, expected %dx%d", ZONE, w->win.configure_width,
				w->win.configure_height, full_w, full_h - ZONE);

		configures = w->win.configures;
		layer_destroy(&panel);
		ct_need_configure_since(w, configures, "the panel went away");
		if (w->win.configure_width != full_w || w->win.configure_height != full_h)
			sw_fail("after the panel went the maximized window is configured %dx%d, expected "
				"the whole %dx%d", w->win.configure_width, w->win.configure_height, full_w,
				full_h);
		zwlr_layer_shell_v1_destroy(shell);
	}

	/* A popup of a layer surface (a panel's menu) is created without a
	 * parent and given one by zwlr_layer_surface_v1.get_popup. */
	ct_subtest("layer-popup-is-shown-on-the-output")
	{
		struct ct_conn *c = ct_connect();
		struct zwlr_layer_shell_v1 *shell = layer_shell(c);
		struct layer panel;
		layer_show(c, shell, &panel, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP, 32, 32, 0);

		struct popup p;
		popup_show(c, &p, NULL, panel.ls);
		need_flipped(&p, "a popup of a panel at the top");
		popup_destroy(&p);
		layer_destroy(&panel);
		zwlr_layer_shell_v1_destroy(shell);
	}
}

int main(int argc, char **argv)
{
	sw_test_init("shell-conformance", argc, argv);
	state_tests();
	popup_tests();
	decoration_tests();
	layer_tests();
	ct_end();
	return sw_test_exit();
}
