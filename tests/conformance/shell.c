/* xdg-shell window management the compositor must honour: maximize and
 * fullscreen fill the output and are given back. Runs against the
 * compositor of $WAYLAND_DISPLAY:
 *
 *   shell-conformance [--list] [--run GLOB] [--json FILE]
 *
 * SYNCWAY_CONFORMANCE_OUTPUT_SIZE=WxH, when set, is the size of the only
 * output; the filled size must be exactly that. */
#include <stdio.h>
#include <stdlib.h>

#include "ct.h"
#include "xdg-shell-client-protocol.h"

/* Dispatches until the compositor sends w another configure. */
static void next_configure(struct ct_window *w, const char *what)
{
	unsigned before = w->win.configures;
	int64_t deadline = ct_now_ns() + (int64_t)CT_DEADLINE_MS * 1000000;
	while (w->win.configures == before && ct_now_ns() < deadline)
		ct_dispatch(w->c, -1, 50);
	if (w->win.configures == before)
		sw_fail("%s: no configure within %d ms", what, CT_DEADLINE_MS);
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

int main(int argc, char **argv)
{
	sw_test_init("shell-conformance", argc, argv);
	state_tests();
	ct_end();
	return sw_test_exit();
}
