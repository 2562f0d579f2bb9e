/* Xwayland for X11 clients (see xwayland.c). */
#ifndef SYNCWAY_XWAYLAND_H
#define SYNCWAY_XWAYLAND_H

#include <stdbool.h>

struct sw_server;
struct wl_client;

/* After the seat exists; sets DISPLAY. Logs and leaves server->xwayland
 * NULL when it cannot be set up. */
void xwayland_init(struct sw_server *server);
/* Before the clients are destroyed: Xwayland is one of them. */
void xwayland_finish(struct sw_server *server);
/* Whether client is Xwayland, which speaks for every X11 client at once:
 * the budgets of all clients never cut it off (docs/compositor.md). */
bool xwayland_owns_client(const struct sw_server *server, const struct wl_client *client);

#endif
