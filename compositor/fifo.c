/* fifo-v1: a content update may wait until the surface's previous update
 * has been on screen for a refresh cycle.
 *
 * The path of one commit (see docs/compositor.md, "Frame pacing"):
 *   client_commit: a commit that carries wait_barrier, of a surface that is
 *     on an output and not a synchronized subsurface, is held with
 *     wlr_surface_lock_pending() when a barrier is set, or when earlier
 *     commits are still cached (one of them may set one); held commits
 *     queue in order, as many as held_commits.c lets the surface, its
 *     client and all clients hold (past that, a protocol error).
 *   commit (applied): set_barrier in the state just applied raises the
 *     barrier and asks the surface's outputs for a frame, so that the
 *     refresh which clears it comes even if nothing else changes.
 *   the output's frame event (its latching deadline): every barrier of a
 *     surface on that output is cleared, and the oldest held commit is
 *     unlocked if no earlier commit is still cached.
 * A surface on no output does not hold commits, and a barrier not cleared
 * by a refresh within FORWARD_PROGRESS_MS is cleared anyway: the protocol
 * lets the compositor ignore the constraint for surfaces it does not
 * update, and clear the condition early to keep clients going. */
#include "fifo.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_subcompositor.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "clock.h"
#include "fifo-v1-protocol.h"
#include "held_commits.h"
#include "server.h"

#define MANAGER_VERSION 1
#define FORWARD_PROGRESS_MS 1000

struct sw_fifo_manager {
	struct sw_server *server;
	struct wl_global *global;
	struct wl_list fifos; /* sw_fifo.link */
	struct sw_fifo_counters counters;
};

/* One commit's fifo requests, double-buffered through wlr_surface_synced. */
struct sw_fifo_state {
	bool set_barrier;
	bool wait_barrier;
};

/* The fifo state of one wl_surface. It outlives its wp_fifo_v1 object:
 * the protocol says commits already made keep their constraints when the
 * object is destroyed, and a new wp_fifo_v1 for the surface takes it over. */
struct sw_fifo {
	struct wl_list link; /* sw_fifo_manager.fifos */
	struct sw_fifo_manager *manager;
	struct wl_resource *resource; /* NULL after wp_fifo_v1.destroy */
	struct wlr_surface *surface;
	struct sw_fifo_state pending, current;
	struct wlr_surface_synced synced;
	struct wlr_addon addon;

	bool barrier; /* the "fifo_barrier" condition */
	int64_t barrier_ns; /* when it was raised */
	struct wl_array held; /* uint32_t cached-state seqs, oldest first */
	bool releasing; /* fifo_release() is on the stack */
	/* Armed when a barrier is raised with the timer idle, never re-armed
	 * or disarmed by the barriers that come and go every refresh (two
	 * timerfd_settime() calls a frame, measured in the peer comparison):
	 * when it fires, it checks the barrier up then against its own age. */
	struct wl_event_source *progress_timer;
	bool progress_armed;

	struct wl_listener client_commit;
	struct wl_listener commit;
};

static const struct wp_fifo_manager_v1_interface manager_impl;
static const struct wp_fifo_v1_interface fifo_impl;

/* --- per-commit state -------------------------------------------------- */

static void fifo_state_move(void *dst, void *src)
{
	/* Both requests apply to one commit only. */
	*(struct sw_fifo_state *)dst = *(struct sw_fifo_state *)src;
	*(struct sw_fifo_state *)src = (struct sw_fifo_state){ 0 };
}

static const struct wlr_surface_synced_impl fifo_state_impl = {
	.state_size = sizeof(struct sw_fifo_state),
	.move_state = fifo_state_move,
};

/* --- the barrier --------------------------------------------------------- */

static size_t held_count(const struct sw_fifo *fifo)
{
	return fifo->held.size / sizeof(uint32_t);
}

/* The protocol: "the constraint must be ignored if the surface is a
 * subsurface in synchronized mode" — synchronized through any ancestor. */
static bool surface_is_synchronized(struct wlr_surface *surface)
{
	struct wlr_subsurface *subsurface;
	while ((subsurface = wlr_subsurface_try_from_wlr_surface(surface))) {
		if (subsurface->synchronized)
			return true;
		surface = subsurface->parent;
		if (!surface)
			break;
	}
	return false;
}

/* Whether unlocking the cached state locked as seq applies it now rather
 * than behind an earlier commit that might still set a barrier: it is the
 * oldest cached state, not counting the one wlroots is applying right now
 * (it stays on the list until its commit event is over, and its successor
 * applies right after it once unlocked). */
static bool oldest_cached_is(struct wlr_surface *surface, uint32_t seq)
{
	struct wlr_surface_state *state;
	wl_list_for_each(state, &surface->cached, cached_state_link) {
		if (state->seq != surface->current.seq)
			return state->seq == seq;
	}
	return false;
}

static void fifo_release(struct sw_fifo *fifo)
{
	/* Unlocking applies the commit, whose commit event comes back here. */
	if (fifo->releasing)
		return;
	fifo->releasing = true;
	while (held_count(fifo) > 0 && !fifo->barrier && fifo->surface) {
		uint32_t *seqs = fifo->held.data;
		uint32_t seq = seqs[0];
		if (!oldest_cached_is(fifo->surface, seq))
			break;
		memmove(seqs, seqs + 1, fifo->held.size - sizeof(uint32_t));
		fifo->held.size -= sizeof(uint32_t);
		fifo->manager->counters.commits_released++;
		wlr_surface_unlock_cached(fifo->surface, seq);
	}
	fifo->releasing = false;
}

static void fifo_clear_barrier(struct sw_fifo *fifo)
{
	fifo->barrier = false;
	fifo_release(fifo);
}

static void progress_timer_arm(struct sw_fifo *fifo, int64_t ms)
{
	if (fifo->progress_armed)
		return;
	wl_event_source_timer_update(fifo->progress_timer, ms > 0 ? (int)ms : 1);
	fifo->progress_armed = true;
}

static int handle_progress_timeout(void *data)
{
	struct sw_fifo *fifo = data;
	fifo->progress_armed = false;
	if (!fifo->barrier)
		return 0;
	int64_t age_ns = sw_clock_ns(CLOCK_MONOTONIC) - fifo->barrier_ns;
	if (age_ns < FORWARD_PROGRESS_MS * 1000000LL) {
		progress_timer_arm(fifo, FORWARD_PROGRESS_MS - age_ns / 1000000);
		return 0;
	}
	fifo->manager->counters.barriers_timed_out++;
	fifo_clear_barrier(fifo);
	return 0;
}

static void handle_surface_commit(struct wl_listener *listener, void *data)
{
	struct sw_fifo *fifo = wl_container_of(listener, fifo, commit);
	if (fifo->current.set_barrier) {
		fifo->current.set_barrier = false;
		if (surface_on_output(fifo->surface, NULL)) {
			fifo->barrier = true;
			fifo->barrier_ns = sw_clock_ns(CLOCK_MONOTONIC);
			fifo->manager->counters.barriers_set++;
			progress_timer_arm(fifo, FORWARD_PROGRESS_MS);
			struct wlr_surface_output *surface_output;
			wl_list_for_each(surface_output, &fifo->surface->current_outputs, link)
				wlr_output_schedule_frame(surface_output->output);
		}
	}
	/* An earlier cached commit just applied: the next held one may now be
	 * the oldest. */
	fifo_release(fifo);
}

static void handle_client_commit(struct wl_listener *listener, void *data)
{
	struct sw_fifo *fifo = wl_container_of(listener, fifo, client_commit);
	struct wlr_surface *surface = fifo->surface;
	if (surface->pending_rejected || !fifo->pending.wait_barrier)
		return;
	if (!surface_on_output(surface, NULL) || surface_is_synchronized(surface)) {
		fifo->manager->counters.waits_ignored++;
		return;
	}
	if (!fifo->barrier && held_count(fifo) == 0 && wl_list_empty(&surface->cached))
		return;
	if (!sw_held_commits_admit(fifo->manager->server->held_commits, surface))
		return;
	uint32_t *seq = wl_array_add(&fifo->held, sizeof(*seq));
	if (!seq) {
		wl_client_post_no_memory(wl_resource_get_client(surface->resource));
		return;
	}
	*seq = wlr_surface_lock_pending(surface);
	fifo->manager->counters.commits_held++;
}

void sw_fifo_output_latched(struct sw_fifo_manager *manager, struct wlr_output *output)
{
	if (!manager)
		return;
	struct sw_fifo *fifo, *tmp;
	wl_list_for_each_safe(fifo, tmp, &manager->fifos, link) {
		if (fifo->surface && fifo->barrier &&
		    (surface_on_output(fifo->surface, output) || !surface_on_output(fifo->surface, NULL)))
			fifo_clear_barrier(fifo);
	}
}

/* --- wp_fifo_v1 ------------------------------------------------------------ */

static void fifo_destroy(struct sw_fifo *fifo)
{
	if (fifo->resource)
		wl_resource_set_user_data(fifo->resource, NULL);
	wl_list_remove(&fifo->client_commit.link);
	wl_list_remove(&fifo->commit.link);
	wl_list_remove(&fifo->link);
	wlr_addon_finish(&fifo->addon);
	wlr_surface_synced_finish(&fifo->synced);
	wl_event_source_remove(fifo->progress_timer);
	/* The held cached states die with the surface; nothing to unlock. */
	fifo->manager->counters.commits_dropped += held_count(fifo);
	wl_array_release(&fifo->held);
	free(fifo);
}

static void addon_handle_destroy(struct wlr_addon *addon)
{
	struct sw_fifo *fifo = wl_container_of(addon, fifo, addon);
	fifo_destroy(fifo);
}

static const struct wlr_addon_interface addon_impl = {
	.name = "syncway_wp_fifo_v1",
	.destroy = addon_handle_destroy,
};

static struct sw_fifo *fifo_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wp_fifo_v1_interface, &fifo_impl));
	return wl_resource_get_user_data(resource);
}

static void fifo_handle_resource_destroy(struct wl_resource *resource)
{
	struct sw_fifo *fifo = fifo_from_resource(resource);
	if (fifo)
		fifo->resource = NULL;
}

static void fifo_request(struct wl_resource *resource, bool set)
{
	struct sw_fifo *fifo = fifo_from_resource(resource);
	if (!fifo) {
		wl_resource_post_error(resource, WP_FIFO_V1_ERROR_SURFACE_DESTROYED,
				       "%s_barrier: the wl_surface was destroyed", set ? "set" : "wait");
		return;
	}
	if (set)
		fifo->pending.set_barrier = true;
	else
		fifo->pending.wait_barrier = true;
}

static void fifo_handle_set_barrier(struct wl_client *client, struct wl_resource *resource)
{
	fifo_request(resource, true);
}

static void fifo_handle_wait_barrier(struct wl_client *client, struct wl_resource *resource)
{
	fifo_request(resource, false);
}

static void fifo_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wp_fifo_v1_interface fifo_impl = {
	.set_barrier = fifo_handle_set_barrier,
	.wait_barrier = fifo_handle_wait_barrier,
	.destroy = fifo_handle_destroy,
};

static struct sw_fifo *fifo_create(struct sw_fifo_manager *manager, struct wlr_surface *surface)
{
	struct sw_fifo *fifo = calloc(1, sizeof(*fifo));
	if (!fifo)
		return NULL;
	fifo->progress_timer = wl_event_loop_add_timer(manager->server->loop,
						       handle_progress_timeout, fifo);
	if (!fifo->progress_timer ||
	    !wlr_surface_synced_init(&fifo->synced, surface, &fifo_state_impl, &fifo->pending,
				     &fifo->current)) {
		if (fifo->progress_timer)
			wl_event_source_remove(fifo->progress_timer);
		free(fifo);
		return NULL;
	}
	fifo->manager = manager;
	fifo->surface = surface;
	wl_array_init(&fifo->held);
	wlr_addon_init(&fifo->addon, &surface->addons, manager, &addon_impl);
	fifo->client_commit.notify = handle_client_commit;
	wl_signal_add(&surface->events.client_commit, &fifo->client_commit);
	fifo->commit.notify = handle_surface_commit;
	wl_signal_add(&surface->events.commit, &fifo->commit);
	wl_list_insert(&manager->fifos, &fifo->link);
	return fifo;
}

/* --- wp_fifo_manager_v1 ---------------------------------------------------- */

static void manager_handle_get_fifo(struct wl_client *client, struct wl_resource *resource,
				    uint32_t id, struct wl_resource *surface_resource)
{
	assert(wl_resource_instance_of(resource, &wp_fifo_manager_v1_interface, &manager_impl));
	struct sw_fifo_manager *manager = wl_resource_get_user_data(resource);
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);

	struct sw_fifo *fifo = NULL;
	struct wlr_addon *existing = wlr_addon_find(&surface->addons, manager, &addon_impl);
	if (existing) {
		fifo = wl_container_of(existing, fifo, addon);
		if (fifo->resource) {
			manager->counters.protocol_errors++;
			wl_resource_post_error(resource, WP_FIFO_MANAGER_V1_ERROR_ALREADY_EXISTS,
					       "wl_surface@%u already has wp_fifo_v1@%u",
					       wl_resource_get_id(surface_resource),
					       wl_resource_get_id(fifo->resource));
			return;
		}
	}
	struct wl_resource *fifo_resource = wl_resource_create(client, &wp_fifo_v1_interface,
							       wl_resource_get_version(resource), id);
	if (!fifo_resource) {
		wl_resource_post_no_memory(resource);
		return;
	}
	if (!fifo)
		fifo = fifo_create(manager, surface);
	if (!fifo) {
		wl_resource_destroy(fifo_resource);
		wl_resource_post_no_memory(resource);
		return;
	}
	fifo->resource = fifo_resource;
	wl_resource_set_implementation(fifo_resource, &fifo_impl, fifo, fifo_handle_resource_destroy);
}

static void manager_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wp_fifo_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.get_fifo = manager_handle_get_fifo,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wp_fifo_manager_v1_interface,
							  version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

struct sw_fifo_manager *sw_fifo_manager_create(struct sw_server *server, bool advertise)
{
	struct sw_fifo_manager *manager = calloc(1, sizeof(*manager));
	if (!manager)
		return NULL;
	manager->server = server;
	wl_list_init(&manager->fifos);
	if (!advertise)
		return manager;
	manager->global = wl_global_create(server->display, &wp_fifo_manager_v1_interface,
					   MANAGER_VERSION, manager, manager_bind);
	if (!manager->global) {
		free(manager);
		return NULL;
	}
	return manager;
}

void sw_fifo_manager_destroy(struct sw_fifo_manager *manager, struct sw_fifo_counters *final)
{
	if (!manager)
		return;
	/* Clients are gone, and their surfaces' fifo state with them. */
	assert(wl_list_empty(&manager->fifos));
	if (manager->global)
		wl_global_destroy(manager->global);
	if (final)
		*final = manager->counters;
	free(manager);
}
