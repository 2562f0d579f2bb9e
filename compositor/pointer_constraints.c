/* pointer-constraints-unstable-v1 and relative-pointer-unstable-v1, as
 * games use them: every pointer motion reaches the client with pointer
 * focus as relative motion too (an absolute one as the distance moved;
 * none during a move or resize, when the pointer is the compositor's), and
 * a client may lock the pointer (the cursor stays where it is) or confine
 * it to a region of its surface; absolute motion obeys that too.
 *
 * A constraint is in force while its surface has pointer focus and the
 * pointer is inside its region: it takes hold when the pointer enters the
 * surface (or the region, at the next motion) and lets go when the focus
 * leaves. Only one is in force at a time, the one of the focused surface.
 * A confined pointer that finds itself outside its region (the surface
 * moved, or the client shrank the region) is let go rather than warped;
 * a persistent confinement takes hold again when the pointer comes back.
 * When a client unlocks the pointer, the cursor goes to the position hint
 * the client gave, if it lies in the region. */
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_pointer_constraints_v1.h>
#include <wlr/types/wlr_relative_pointer_v1.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/util/log.h>
#include <wlr/util/region.h>

#include "pointer_constraints.h"
#include "server.h"

struct sw_pointer_constraints {
	struct sw_server *server;
	struct wlr_pointer_constraints_v1 *manager;
	struct wlr_relative_pointer_manager_v1 *relative_pointers;
	struct wlr_pointer_constraint_v1 *active; /* the one in force, or NULL */

	struct wl_listener new_constraint;
	struct wl_listener focus_change;
	struct wl_listener active_destroy;
};

/* The position of the cursor on surface, from the scene; false when the
 * scene shows another surface there. */
static bool cursor_on_surface(struct sw_server *server, const struct wlr_surface *surface,
			      double *sx, double *sy)
{
	struct wlr_surface *under = NULL;
	view_at(server, server->cursor->x, server->cursor->y, &under, sx, sy);
	return under == surface;
}

static void forget_active(struct sw_pointer_constraints *pc)
{
	pc->active = NULL;
	wl_list_remove(&pc->active_destroy.link);
	wl_list_init(&pc->active_destroy.link);
}

static void deactivate(struct sw_pointer_constraints *pc)
{
	struct wlr_pointer_constraint_v1 *constraint = pc->active;
	forget_active(pc);
	/* This destroys a oneshot constraint: forgotten first. */
	wlr_pointer_constraint_v1_send_deactivated(constraint);
}

/* The constraint of the surface with pointer focus takes hold if the
 * pointer is inside its region. */
static void try_activate(struct sw_pointer_constraints *pc)
{
	struct wlr_seat *seat = pc->server->seat;
	struct wlr_surface *surface = seat->pointer_state.focused_surface;
	if (pc->active || !surface)
		return;
	struct wlr_pointer_constraint_v1 *constraint =
		wlr_pointer_constraints_v1_constraint_for_surface(pc->manager, surface, seat);
	if (!constraint ||
	    !pixman_region32_contains_point(&constraint->region, floor(seat->pointer_state.sx),
					    floor(seat->pointer_state.sy), NULL))
		return;
	pc->active = constraint;
	wl_signal_add(&constraint->events.destroy, &pc->active_destroy);
	wlr_pointer_constraint_v1_send_activated(constraint);
}

static uint32_t now_msec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* A client unlocking its pointer may say where its own cursor was; the
 * pointer goes there, so that the cursor does not jump back to where it
 * was locked. A hint outside the region is ignored. */
static void warp_to_hint(struct sw_pointer_constraints *pc,
			 struct wlr_pointer_constraint_v1 *constraint)
{
	struct sw_server *server = pc->server;
	double hx = constraint->current.cursor_hint.x, hy = constraint->current.cursor_hint.y;
	double sx, sy;
	if (!constraint->surface->mapped ||
	    !cursor_on_surface(server, constraint->surface, &sx, &sy) ||
	    !pixman_region32_contains_point(&constraint->region, floor(hx), floor(hy), NULL))
		return;
	wlr_cursor_warp_closest(server->cursor, NULL, server->cursor->x - sx + hx,
				server->cursor->y - sy + hy);
	wlr_seat_pointer_notify_motion(server->seat, now_msec(), hx, hy);
}

static void handle_active_destroy(struct wl_listener *listener, void *data)
{
	struct sw_pointer_constraints *pc = wl_container_of(listener, pc, active_destroy);
	struct wlr_pointer_constraint_v1 *constraint = pc->active;
	forget_active(pc);
	/* Destroyed while in force: the client unlocked (or its surface went). */
	if (constraint->type == WLR_POINTER_CONSTRAINT_V1_LOCKED &&
	    constraint->current.cursor_hint.enabled)
		warp_to_hint(pc, constraint);
}

static void handle_new_constraint(struct wl_listener *listener, void *data)
{
	struct sw_pointer_constraints *pc = wl_container_of(listener, pc, new_constraint);
	/* A game usually locks the pointer while it is already over its
	 * surface. */
	try_activate(pc);
}

static void handle_focus_change(struct wl_listener *listener, void *data)
{
	struct sw_pointer_constraints *pc = wl_container_of(listener, pc, focus_change);
	struct wlr_seat_pointer_focus_change_event *event = data;
	if (pc->active && pc->active->surface != event->new_surface)
		deactivate(pc);
	try_activate(pc);
}

void pointer_constraints_motion(struct sw_pointer_constraints *pc, uint32_t time_msec, double *dx,
				double *dy, double unaccel_dx, double unaccel_dy)
{
	/* During a move or resize the pointer is the compositor's. */
	if (!pc || pc->server->cursor_mode != SW_CURSOR_PASSTHROUGH)
		return;
	struct sw_server *server = pc->server;
	wlr_relative_pointer_manager_v1_send_relative_motion(pc->relative_pointers, server->seat,
							     (uint64_t)time_msec * 1000, *dx, *dy,
							     unaccel_dx, unaccel_dy);
	/* The pointer may have entered the region since the focus came. */
	try_activate(pc);
	struct wlr_pointer_constraint_v1 *constraint = pc->active;
	if (!constraint)
		return;
	if (constraint->type == WLR_POINTER_CONSTRAINT_V1_LOCKED) {
		*dx = *dy = 0;
		return;
	}
	double sx, sy, to_x, to_y;
	if (!cursor_on_surface(server, constraint->surface, &sx, &sy) ||
	    !wlr_region_confine(&constraint->region, sx, sy, sx + *dx, sy + *dy, &to_x, &to_y)) {
		deactivate(pc);
		return;
	}
	*dx = to_x - sx;
	*dy = to_y - sy;
}

void pointer_constraints_init(struct sw_server *server)
{
	struct sw_pointer_constraints *pc = calloc(1, sizeof(*pc));
	if (!pc) {
		wlr_log(WLR_ERROR, "pointer constraints: out of memory");
		return;
	}
	pc->server = server;
	pc->manager = wlr_pointer_constraints_v1_create(server->display);
	pc->relative_pointers = wlr_relative_pointer_manager_v1_create(server->display);
	if (!pc->manager || !pc->relative_pointers) {
		wlr_log(WLR_ERROR, "pointer constraints: cannot create the globals");
		free(pc);
		return;
	}
	pc->new_constraint.notify = handle_new_constraint;
	wl_signal_add(&pc->manager->events.new_constraint, &pc->new_constraint);
	pc->focus_change.notify = handle_focus_change;
	wl_signal_add(&server->seat->pointer_state.events.focus_change, &pc->focus_change);
	pc->active_destroy.notify = handle_active_destroy;
	wl_list_init(&pc->active_destroy.link);
	server->pointer_constraints = pc;
}

void pointer_constraints_finish(struct sw_server *server)
{
	struct sw_pointer_constraints *pc = server->pointer_constraints;
	if (!pc)
		return;
	/* The globals go with the display. */
	wl_list_remove(&pc->new_constraint.link);
	wl_list_remove(&pc->focus_change.link);
	wl_list_remove(&pc->active_destroy.link);
	free(pc);
	server->pointer_constraints = NULL;
}
