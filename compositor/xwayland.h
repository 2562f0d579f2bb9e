/* Xwayland for X11 clients (see xwayland.c). */
#ifndef SYNCWAY_XWAYLAND_H
#define SYNCWAY_XWAYLAND_H

struct sw_server;

/* After the seat exists; sets DISPLAY. Logs and leaves server->xwayland
 * NULL when it cannot be set up. */
void xwayland_init(struct sw_server *server);
/* Before the clients are destroyed: Xwayland is one of them. */
void xwayland_finish(struct sw_server *server);

#endif
