/* keyboard-shortcuts-inhibit-unstable-v1: compositor key bindings go to a
 * client that asks for them while it has keyboard focus (see
 * shortcuts_inhibit.c). */
#ifndef SYNCWAY_SHORTCUTS_INHIBIT_H
#define SYNCWAY_SHORTCUTS_INHIBIT_H

#include <stdbool.h>

struct sw_server;

void shortcuts_inhibit_init(struct sw_server *server);
void shortcuts_inhibit_finish(struct sw_server *server);
/* Whether the surface with keyboard focus inhibits the compositor's key
 * bindings now. */
bool shortcuts_inhibited(struct sw_server *server);

#endif
