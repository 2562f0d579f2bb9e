/* ext-session-lock-v1: a locker (swaylock) locks the session. From its lock
 * request on, a scene tree above every layer hides everything else: per
 * output in the layout, an opaque rectangle covering it, and above those
 * the locker's lock surfaces, each the size of its output. Keyboard focus
 * goes to a lock surface and nowhere else (session_lock_active() keeps the
 * other focus paths and the key bindings off); the pointer can only reach
 * lock surfaces, since the rectangles hide the rest of the scene from
 * view_at(). Screencopy reads what the scene renders, so it sees the lock
 * too. The locker is told it is locked once every output has presented a
 * frame rendered after the lock. The session stays locked until the locker
 * unlocks it: a locker that dies leaves it blank, and a new one may take
 * over and unlock; while one runs, others are refused. */
#include "session_lock.h"

#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_session_lock_v1.h>
#include <wlr/util/box.h>
#include <wlr/util/log.h>

#include "server.h"

struct sw_session_lock {
	struct sw_server *server;
	/* Above the overlay layer, enabled while locked: the rectangles
	 * (blanks), and the lock surfaces above them (surfaces). */
	struct wlr_scene_tree *tree, *blanks, *surfaces;
	/* From a lock request until an unlock; a locker that dies leaves it
	 * set. */
	bool locked;
	struct sw_locker *locker; /* NULL: none runs */
	struct wl_list outputs;   /* sw_lock_output.link; empty while unlocked */

	struct wl_listener new_lock;
	struct wl_listener layout_change;
};

/* One ext_session_lock_v1. */
struct sw_locker {
	struct sw_session_lock *session_lock;
	struct wlr_session_lock_v1 *wlr_lock;
	pid_t pid;
	bool locked_sent;
	struct wl_list surfaces; /* sw_lock_surface.link */

	struct wl_listener new_surface;
	struct wl_listener unlock;
	struct wl_listener destroy;
};

struct sw_lock_surface {
	struct wl_list link; /* sw_locker.surfaces */
	struct sw_locker *locker;
	struct wlr_session_lock_surface_v1 *lock_surface;
	struct wlr_scene_tree *tree;
	int width, height; /* the last configure; 0: none yet */

	struct wl_listener map;
	struct wl_listener destroy;
};

/* An output in the layout while locked: its blanking rectangle, and
 * whether it has presented a frame that hides the session. */
struct sw_lock_output {
	struct wl_list link; /* sw_session_lock.outputs */
	struct sw_session_lock *session_lock;
	struct wlr_output *output;
	struct wlr_scene_rect *blank;
	uint32_t lock_seq; /* its commit_seq when it was blanked */
	bool blanked;      /* a later commit was presented */

	struct wl_listener present; /* until blanked */
};

static const float blank_colour[4] = { 0, 0, 0, 1 };

bool session_lock_active(const struct sw_server *server)
{
	return server->session_lock && server->session_lock->locked;
}

/* The protocol wants no unlocked content left on screen when the locker
 * hears it is locked. Outputs that are off show none. */
static void maybe_send_locked(struct sw_session_lock *sl)
{
	struct sw_locker *locker = sl->locker;
	if (!locker || locker->locked_sent)
		return;
	struct sw_lock_output *lo;
	wl_list_for_each(lo, &sl->outputs, link) {
		if (lo->output->enabled && !lo->blanked)
			return;
	}
	wlr_session_lock_v1_send_locked(locker->wlr_lock);
	locker->locked_sent = true;
	wlr_log(WLR_INFO, "session lock: every output is blank, pid %d told it locked the session",
		locker->pid);
}

static void handle_output_present(struct wl_listener *listener, void *data)
{
	struct sw_lock_output *lo = wl_container_of(listener, lo, present);
	const struct wlr_output_event_present *event = data;
	if (!event->presented || (int32_t)(event->commit_seq - lo->lock_seq) <= 0)
		return;
	lo->blanked = true;
	/* Nothing to do at the frames after that one. */
	wl_list_remove(&lo->present.link);
	wl_list_init(&lo->present.link);
	maybe_send_locked(lo->session_lock);
}

static struct sw_lock_output *lock_output_create(struct sw_session_lock *sl,
						 struct wlr_output *output)
{
	struct sw_lock_output *lo = calloc(1, sizeof(*lo));
	if (!lo)
		return NULL;
	lo->blank = wlr_scene_rect_create(sl->blanks, 0, 0, blank_colour);
	if (!lo->blank) {
		free(lo);
		return NULL;
	}
	lo->session_lock = sl;
	lo->output = output;
	lo->lock_seq = output->commit_seq;
	lo->present.notify = handle_output_present;
	wl_signal_add(&output->events.present, &lo->present);
	wl_list_insert(sl->outputs.prev, &lo->link);
	return lo;
}

static void lock_output_destroy(struct sw_lock_output *lo)
{
	wlr_scene_node_destroy(&lo->blank->node);
	wl_list_remove(&lo->present.link);
	wl_list_remove(&lo->link);
	free(lo);
}

/* A lock surface is its output's size, and shows where the output is in
 * the layout; nowhere while the output is not in it. */
static void lock_surface_arrange(struct sw_lock_surface *ls)
{
	struct sw_server *server = ls->locker->session_lock->server;
	struct wlr_output *output = ls->lock_surface->output;
	int width, height;
	wlr_output_effective_resolution(output, &width, &height);
	if (width > 0 && height > 0 && (width != ls->width || height != ls->height)) {
		wlr_session_lock_surface_v1_configure(ls->lock_surface, width, height);
		ls->width = width;
		ls->height = height;
	}
	struct wlr_box box;
	wlr_output_layout_get_box(server->output_layout, output, &box);
	wlr_scene_node_set_enabled(&ls->tree->node, !wlr_box_empty(&box));
	wlr_scene_node_set_position(&ls->tree->node, box.x, box.y);
}

/* Makes the blanking rectangles and lock surfaces follow the layout:
 * outputs that come while locked are blank before their first frame. */
static void sync_outputs(struct sw_session_lock *sl)
{
	struct wlr_output_layout *layout = sl->server->output_layout;
	struct sw_lock_output *lo, *tmp;
	wl_list_for_each_safe(lo, tmp, &sl->outputs, link) {
		if (!sl->locked || !wlr_output_layout_get(layout, lo->output))
			lock_output_destroy(lo);
	}
	if (!sl->locked)
		return;
	struct wlr_output_layout_output *l_output;
	wl_list_for_each(l_output, &layout->outputs, link) {
		struct sw_lock_output *found = NULL;
		wl_list_for_each(lo, &sl->outputs, link) {
			if (lo->output == l_output->output)
				found = lo;
		}
		if (!found)
			found = lock_output_create(sl, l_output->output);
		if (!found) {
			wlr_log(WLR_ERROR, "session lock: out of memory: %s is not blanked",
				l_output->output->name);
			continue;
		}
		struct wlr_box box;
		wlr_output_layout_get_box(layout, l_output->output, &box);
		wlr_scene_node_set_position(&found->blank->node, box.x, box.y);
		wlr_scene_rect_set_size(found->blank, box.width, box.height);
	}
	if (sl->locker) {
		struct sw_lock_surface *ls;
		wl_list_for_each(ls, &sl->locker->surfaces, link)
			lock_surface_arrange(ls);
	}
	/* The output that was still to present may have gone. */
	maybe_send_locked(sl);
}

static void handle_layout_change(struct wl_listener *listener, void *data)
{
	struct sw_session_lock *sl = wl_container_of(listener, sl, layout_change);
	if (sl->locked)
		sync_outputs(sl);
}

static void focus_lock_surface(struct sw_server *server, struct wlr_surface *surface)
{
	struct wlr_seat *seat = server->seat;
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard)
		wlr_seat_keyboard_notify_enter(seat, surface, keyboard->keycodes,
					       keyboard->num_keycodes, &keyboard->modifiers);
}

static void handle_lock_surface_map(struct wl_listener *listener, void *data)
{
	struct sw_lock_surface *ls = wl_container_of(listener, ls, map);
	struct sw_server *server = ls->locker->session_lock->server;
	/* The first lock surface to show takes the keyboard; the others get
	 * it when that one goes. */
	struct wlr_surface *focused = server->seat->keyboard_state.focused_surface;
	if (!focused || !wlr_session_lock_surface_v1_try_from_wlr_surface(focused))
		focus_lock_surface(server, ls->lock_surface->surface);
}

static void lock_surface_destroy(struct sw_lock_surface *ls)
{
	struct sw_server *server = ls->locker->session_lock->server;
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *surface = ls->lock_surface->surface;
	wl_list_remove(&ls->map.link);
	wl_list_remove(&ls->destroy.link);
	wl_list_remove(&ls->link);
	wlr_scene_node_destroy(&ls->tree->node);
	if (seat->keyboard_state.focused_surface == surface) {
		/* Another of the locker's surfaces takes the keyboard, unless
		 * they all go (an unlock). */
		struct sw_lock_surface *other;
		struct wlr_surface *next = NULL;
		if (ls->locker->session_lock->locked) {
			wl_list_for_each(other, &ls->locker->surfaces, link) {
				if (other->lock_surface->surface->mapped)
					next = other->lock_surface->surface;
			}
		}
		if (next)
			focus_lock_surface(server, next);
		else
			wlr_seat_keyboard_clear_focus(seat);
	}
	if (seat->pointer_state.focused_surface == surface)
		wlr_seat_pointer_clear_focus(seat);
	free(ls);
}

static void handle_lock_surface_destroy(struct wl_listener *listener, void *data)
{
	struct sw_lock_surface *ls = wl_container_of(listener, ls, destroy);
	lock_surface_destroy(ls);
}

static void handle_new_lock_surface(struct wl_listener *listener, void *data)
{
	struct sw_locker *locker = wl_container_of(listener, locker, new_surface);
	struct wlr_session_lock_surface_v1 *lock_surface = data;
	struct sw_lock_surface *ls = calloc(1, sizeof(*ls));
	/* The surface's own tree goes with the wl_surface, which may go
	 * before its role: ls->tree holds it and stays until the role goes. */
	ls->tree = ls ? wlr_scene_tree_create(locker->session_lock->surfaces) : NULL;
	if (!ls || !ls->tree ||
	    !wlr_scene_subsurface_tree_create(ls->tree, lock_surface->surface)) {
		if (ls && ls->tree)
			wlr_scene_node_destroy(&ls->tree->node);
		free(ls);
		wl_resource_post_no_memory(lock_surface->resource);
		return;
	}
	ls->locker = locker;
	ls->lock_surface = lock_surface;
	ls->map.notify = handle_lock_surface_map;
	wl_signal_add(&lock_surface->surface->events.map, &ls->map);
	ls->destroy.notify = handle_lock_surface_destroy;
	wl_signal_add(&lock_surface->events.destroy, &ls->destroy);
	wl_list_insert(locker->surfaces.prev, &ls->link);
	lock_surface_arrange(ls);
}

/* Hides the session and takes input from every client: a grab (a popup's,
 * a drag, a move or resize) ends, and focus waits for a lock surface. */
static void session_lock_begin(struct sw_session_lock *sl)
{
	struct sw_server *server = sl->server;
	sl->locked = true;
	wlr_scene_node_raise_to_top(&sl->tree->node);
	wlr_scene_node_set_enabled(&sl->tree->node, true);
	server->cursor_mode = SW_CURSOR_PASSTHROUGH;
	server->grabbed_view = NULL;
	wlr_seat_keyboard_end_grab(server->seat);
	wlr_seat_pointer_end_grab(server->seat);
	wlr_seat_keyboard_clear_focus(server->seat);
	wlr_seat_pointer_clear_focus(server->seat);
	sync_outputs(sl);
}

/* Shows the session again, with the keyboard on the topmost window. */
static void session_lock_end(struct sw_session_lock *sl)
{
	struct sw_server *server = sl->server;
	wlr_scene_node_set_enabled(&sl->tree->node, false);
	sync_outputs(sl);
	if (!wl_list_empty(&server->views)) {
		struct sw_view *top = wl_container_of(server->views.next, top, link);
		view_focus(top, view_surface(top));
	}
}

static void locker_destroy(struct sw_locker *locker)
{
	struct sw_lock_surface *ls, *tmp;
	wl_list_for_each_safe(ls, tmp, &locker->surfaces, link)
		lock_surface_destroy(ls);
	wl_list_remove(&locker->new_surface.link);
	wl_list_remove(&locker->unlock.link);
	wl_list_remove(&locker->destroy.link);
	locker->session_lock->locker = NULL;
	free(locker);
}

static void handle_unlock(struct wl_listener *listener, void *data)
{
	/* wlroots destroys the lock (and its surfaces) right after. */
	struct sw_locker *locker = wl_container_of(listener, locker, unlock);
	locker->session_lock->locked = false;
	wlr_log(WLR_INFO, "session lock: unlocked by pid %d", locker->pid);
}

static void handle_locker_destroy(struct wl_listener *listener, void *data)
{
	struct sw_locker *locker = wl_container_of(listener, locker, destroy);
	struct sw_session_lock *sl = locker->session_lock;
	pid_t pid = locker->pid;
	locker_destroy(locker);
	if (sl->locked)
		wlr_log(WLR_INFO, "session lock: the locker (pid %d) died without unlocking: "
			"the session stays locked until a new locker unlocks it", pid);
	else
		session_lock_end(sl);
}

static void handle_new_lock(struct wl_listener *listener, void *data)
{
	struct sw_session_lock *sl = wl_container_of(listener, sl, new_lock);
	struct wlr_session_lock_v1 *wlr_lock = data;
	pid_t pid = 0;
	wl_client_get_credentials(wl_resource_get_client(wlr_lock->resource), &pid, NULL, NULL);
	if (sl->locker) {
		wlr_log(WLR_INFO, "session lock: refused a lock from pid %d: pid %d holds "
			"the session", pid, sl->locker->pid);
		wlr_session_lock_v1_destroy(wlr_lock);
		return;
	}
	struct sw_locker *locker = calloc(1, sizeof(*locker));
	if (!locker) {
		wl_resource_post_no_memory(wlr_lock->resource);
		return;
	}
	locker->session_lock = sl;
	locker->wlr_lock = wlr_lock;
	locker->pid = pid;
	wl_list_init(&locker->surfaces);
	locker->new_surface.notify = handle_new_lock_surface;
	wl_signal_add(&wlr_lock->events.new_surface, &locker->new_surface);
	locker->unlock.notify = handle_unlock;
	wl_signal_add(&wlr_lock->events.unlock, &locker->unlock);
	locker->destroy.notify = handle_locker_destroy;
	wl_signal_add(&wlr_lock->events.destroy, &locker->destroy);
	sl->locker = locker;
	if (sl->locked) {
		wlr_log(WLR_INFO, "session lock: pid %d takes over the locked session", pid);
	} else {
		wlr_log(WLR_INFO, "session lock: locked by pid %d", pid);
		session_lock_begin(sl);
	}
	/* Outputs blank since an earlier locker need no new frame. */
	maybe_send_locked(sl);
}

void session_lock_init(struct sw_server *server)
{
	struct sw_session_lock *sl = calloc(1, sizeof(*sl));
	if (!sl) {
		wlr_log(WLR_ERROR, "session lock: out of memory: no ext-session-lock-v1");
		return;
	}
	/* Created after the layers, so above them; raised again at each lock
	 * over whatever came since. */
	sl->tree = wlr_scene_tree_create(&server->scene->tree);
	if (sl->tree) {
		sl->blanks = wlr_scene_tree_create(sl->tree);
		sl->surfaces = wlr_scene_tree_create(sl->tree);
	}
	struct wlr_session_lock_manager_v1 *manager = sl->blanks && sl->surfaces ?
		wlr_session_lock_manager_v1_create(server->display) : NULL;
	if (!manager) {
		wlr_log(WLR_ERROR, "session lock: out of memory: no ext-session-lock-v1");
		if (sl->tree)
			wlr_scene_node_destroy(&sl->tree->node);
		free(sl);
		return;
	}
	sl->server = server;
	wlr_scene_node_set_enabled(&sl->tree->node, false);
	wl_list_init(&sl->outputs);
	sl->new_lock.notify = handle_new_lock;
	wl_signal_add(&manager->events.new_lock, &sl->new_lock);
	sl->layout_change.notify = handle_layout_change;
	wl_signal_add(&server->output_layout->events.change, &sl->layout_change);
	server->session_lock = sl;
}

void session_lock_finish(struct sw_server *server)
{
	struct sw_session_lock *sl = server->session_lock;
	if (!sl)
		return;
	/* main.c destroys the clients first; a locker still connected would
	 * outlive the listeners freed here. */
	if (sl->locker)
		locker_destroy(sl->locker);
	sl->locked = false;
	sync_outputs(sl);
	wl_list_remove(&sl->new_lock.link);
	wl_list_remove(&sl->layout_change.link);
	wlr_scene_node_destroy(&sl->tree->node);
	free(sl);
	server->session_lock = NULL;
}
