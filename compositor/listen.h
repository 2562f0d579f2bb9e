/* The Wayland socket, owned by syncway rather than libwayland (see
 * listen.c for why). */
#ifndef SYNCWAY_LISTEN_H
#define SYNCWAY_LISTEN_H

struct sw_listener;
struct wl_display;

/* Listens on $XDG_RUNTIME_DIR/wayland-N, the first N from 0 to 32 whose
 * lock file is free, as wl_display_add_socket_auto() would; NULL with a
 * message on stderr when none can be made. Connections are refused while
 * fewer than reserve fds (0: none) would be left below the fd limit. */
struct sw_listener *sw_listener_create(struct wl_display *display, long reserve);
/* "wayland-N", for WAYLAND_DISPLAY. */
const char *sw_listener_name(const struct sw_listener *listener);
/* Stops listening and removes the socket and its lock file. */
void sw_listener_destroy(struct sw_listener *listener);

#endif
