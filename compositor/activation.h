/* xdg-activation-v1: a window comes to the front when a client that had
 * keyboard focus vouches for it (see activation.c). */
#ifndef SYNCWAY_ACTIVATION_H
#define SYNCWAY_ACTIVATION_H

struct sw_server;

void activation_init(struct sw_server *server);
void activation_finish(struct sw_server *server);

#endif
