/* The backend, and the event loop a headless one runs on. */
#ifndef SYNCWAY_BACKEND_H
#define SYNCWAY_BACKEND_H

#include <stdbool.h>

struct sw_server;

/* server->backend from wlr_backend_autocreate(), or, for WLR_BACKENDS=headless,
 * a headless backend on an event loop of its own (server->backend_loop) with
 * the outputs WLR_HEADLESS_OUTPUTS asks for. */
bool sw_backend_create(struct sw_server *server);
/* Runs what the headless backend left for later: once per iteration of the
 * compositor's loop, before the clients are flushed. */
void sw_backend_dispatch_idle(struct sw_server *server);
void sw_backend_destroy(struct sw_server *server);

#endif
