/* An xdg_toplevel of a size the client chose itself: the surface, its roles,
 * and what the compositor said of it (configured, asked to close). Every
 * syncway client shows its frames in one or more of these. */
#ifndef SW_CLIENT_WINDOW_H
#define SW_CLIENT_WINDOW_H

#include <stdbool.h>

#include "display.h"

struct sw_buffer;

struct sw_window {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *xdg_toplevel;
	bool configured; /* the first configure was acked: buffers may be attached */
	bool closed;     /* the compositor asked it to close */
	/* The last xdg_toplevel.configure: size (0: the client's choice) and
	 * states; configures counts them. */
	int configure_width, configure_height;
	bool maximized, fullscreen;
	unsigned configures;
};

/* title is also the app id. The caller makes the first (empty) commit, after
 * attaching whatever other surface state it wants to go with it. */
void sw_window_init(struct sw_window *w, struct sw_display *d, const char *title);
/* Makes that first commit and dispatches until the compositor's first
 * configure is acked; dies (sw_die) if the connection ends before. */
void sw_window_wait_configured(struct sw_window *w, struct sw_display *d);
/* Attaches b, damages all of it and commits. */
void sw_window_show(struct sw_window *w, const struct sw_buffer *b);
/* Destroys what w has (a surface given no role has only the wl_surface)
 * and leaves it empty. */
void sw_window_finish(struct sw_window *w);

/* Prints "<program>: <message>" on stderr and exits with status 2: the
 * clients' answer to anything they cannot go on from. */
void sw_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
