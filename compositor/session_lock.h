/* ext-session-lock-v1: screen lockers (swaylock). See session_lock.c. */
#ifndef SYNCWAY_SESSION_LOCK_H
#define SYNCWAY_SESSION_LOCK_H

#include <stdbool.h>

struct sw_server;

void session_lock_init(struct sw_server *server);
void session_lock_finish(struct sw_server *server);
/* Whether the session is locked: from a locker's lock request until its
 * unlock, also while no locker runs (the last one died). Nothing but lock
 * surfaces may take keyboard focus or use the compositor's key bindings
 * then. */
bool session_lock_active(const struct sw_server *server);

#endif
