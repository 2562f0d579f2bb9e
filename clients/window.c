#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "buffer.h"
#include "window.h"
#include "xdg-shell-client-protocol.h"

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct sw_window *w = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	w->configured = true;
}
static const struct xdg_surface_listener xdg_surface_listener = { .configure = xdg_surface_configure };

/* The size is recorded, not followed: the clients' buffers are made once. */
static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t width, int32_t height,
			       struct wl_array *states)
{
	struct sw_window *w = data;
	w->configure_width = width;
	w->configure_height = height;
	w->maximized = w->fullscreen = false;
	const uint32_t *state;
	wl_array_for_each(state, states) {
		if (*state == XDG_TOPLEVEL_STATE_MAXIMIZED)
			w->maximized = true;
		else if (*state == XDG_TOPLEVEL_STATE_FULLSCREEN)
			w->fullscreen = true;
	}
	w->configures++;
}

static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	struct sw_window *w = data;
	w->closed = true;
}
static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

void sw_window_init(struct sw_window *w, struct sw_display *d, const char *title)
{
	*w = (struct sw_window){ 0 };
	w->surface = wl_compositor_create_surface(d->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(d->wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &xdg_surface_listener, w);
	w->xdg_toplevel = xdg_surface_get_toplevel(w->xdg_surface);
	xdg_toplevel_add_listener(w->xdg_toplevel, &toplevel_listener, w);
	xdg_toplevel_set_title(w->xdg_toplevel, title);
	xdg_toplevel_set_app_id(w->xdg_toplevel, title);
}

void sw_window_wait_configured(struct sw_window *w, struct sw_display *d)
{
	wl_surface_commit(w->surface);
	while (!w->configured)
		if (wl_display_dispatch(d->display) < 0)
			sw_die("the connection ended before the window was configured");
}

void sw_window_show(struct sw_window *w, const struct sw_buffer *b)
{
	wl_surface_attach(w->surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(w->surface, 0, 0, b->width, b->height);
	wl_surface_commit(w->surface);
}

void sw_window_finish(struct sw_window *w)
{
	if (w->xdg_toplevel)
		xdg_toplevel_destroy(w->xdg_toplevel);
	if (w->xdg_surface)
		xdg_surface_destroy(w->xdg_surface);
	if (w->surface)
		wl_surface_destroy(w->surface);
	*w = (struct sw_window){ 0 };
}

void sw_die(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	exit(2);
}
