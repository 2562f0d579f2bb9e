/* ext-idle-notify-v1 and idle-inhibit-unstable-v1 (idle.c): idle daemons
 * learn when the user is away; clients showing a surface keep the session
 * awake. */
#ifndef SYNCWAY_IDLE_H
#define SYNCWAY_IDLE_H

struct sw_server;

void idle_init(struct sw_server *server);
void idle_finish(struct sw_server *server);
/* The user did something: a key, pointer motion, a button or a scroll, on
 * any device, virtual ones included. Restarts every idle timer. */
void idle_notify_activity(struct sw_server *server);

#endif
