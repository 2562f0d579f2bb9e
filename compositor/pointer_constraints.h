/* pointer-constraints-unstable-v1 and relative-pointer-unstable-v1, on
 * wlroots' helpers: what games need to lock or confine the pointer and
 * read its motion as deltas. */
#ifndef SYNCWAY_POINTER_CONSTRAINTS_H
#define SYNCWAY_POINTER_CONSTRAINTS_H

#include <stdint.h>

struct sw_server;
struct sw_pointer_constraints;

void pointer_constraints_init(struct sw_server *server);
void pointer_constraints_finish(struct sw_server *server);

/* A pointer motion of (*dx, *dy) in layout coordinates (unaccelerated:
 * unaccel_dx, unaccel_dy), before the cursor moves: the client with
 * pointer focus gets it as relative motion, and *dx, *dy become what the
 * constraint in force leaves of it (0 for a locked pointer). pc may be
 * NULL. */
void pointer_constraints_motion(struct sw_pointer_constraints *pc, uint32_t time_msec, double *dx,
				double *dy, double unaccel_dx, double unaccel_dy);

#endif
