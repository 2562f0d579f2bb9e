/* commit-timing-v1: a content update may ask not to be presented before a
 * given time.
 *
 * client_commit: a commit whose target time is still ahead is held with
 * wlr_surface_lock_pending(); wlroots queues every later commit of the
 * surface behind it, which keeps the protocol's "applied in the order they
 * are received". As many as held_commits.c lets the surface, its client and
 * all clients hold; past that, the commit is refused with a protocol error.
 * latching: just before an output renders a frame, the held commits of the
 * surfaces on it whose target is not after that frame's presentation time
 * are unlocked, so that this frame shows them: the first frame presented
 * at or after the target. On headless outputs the vblank clock gives that
 * time exactly; elsewhere "now" stands for it, which can only make the
 * update later, never early.
 * A timer per held commit, a refresh before its target, asks the surface's
 * outputs for a frame so that one comes even when nothing else changes; a
 * surface on no output has its commit applied by the timer at the target.
 *
 * Targets are in the presentation clock, CLOCK_MONOTONIC (syncway's
 * wp_presentation clock). */
#include "commit_timing.h"

#include <assert.h>
#include <stdlib.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "clock.h"
#include "frame_stats.h"
#include "held_commits.h"
#include "commit-timing-v1-protocol.h"
#include "server.h"

#define MANAGER_VERSION 1
#define NSEC_PER_SEC 1000000000LL

/* How far ahead of a target the surface's outputs are asked for a frame:
 * a refresh at the lowest rate outputs commonly run at. */
#define FRAME_REQUEST_AHEAD_NS (NSEC_PER_SEC / 30)

struct sw_commit_timing_manager {
	struct sw_server *server;
	struct wl_global *global;
	struct wl_list timers; /* sw_commit_timer.link */
	struct sw_commit_timing_counters counters;
};

/* One commit's target time (0: none), double-buffered through
 * wlr_surface_synced. */
struct sw_timing_state {
	int64_t target_ns;
};

/* The commit-timing state of one wl_surface. It outlives its
 * wp_commit_timer_v1: "existing timing constraints are not affected by the
 * destruction", and a new timer for the surface takes it over. */
struct sw_commit_timer {
	struct wl_list link; /* sw_commit_timing_manager.timers */
	struct sw_commit_timing_manager *manager;
	struct wl_resource *resource; /* NULL after wp_commit_timer_v1.destroy */
	struct wlr_surface *surface;
	struct sw_timing_state pending, current;
	struct wlr_surface_synced synced;
	struct wlr_addon addon;

	struct wl_list held; /* sw_timed_commit.link, in commit order */
	struct wl_listener client_commit;
};

/* A commit held until its target time. */
struct sw_timed_commit {
	struct wl_list link;
	struct sw_commit_timer *timer;
	uint32_t seq;
	int64_t target_ns;
	struct wl_event_source *source;
};

static const struct wp_commit_timing_manager_v1_interface manager_impl;
static const struct wp_commit_timer_v1_interface timer_impl;

static void timing_state_move(void *dst, void *src)
{
	/* A target applies to one commit only. */
	*(struct sw_timing_state *)dst = *(struct sw_timing_state *)src;
	*(struct sw_timing_state *)src = (struct sw_timing_state){ 0 };
}

static const struct wlr_surface_synced_impl timing_state_impl = {
	.state_size = sizeof(struct sw_timing_state),
	.move_state = timing_state_move,
};

/* --- held commits ------------------------------------------------------- */

static void timed_commit_destroy(struct sw_timed_commit *held)
{
	wl_event_source_remove(held->source);
	wl_list_remove(&held->link);
	free(held);
}

/* Milliseconds until target_ns, rounded up, so the timer never fires
 * early; at least 1 (0 disarms a wl_event_loop timer). */
static int ms_until(int64_t target_ns)
{
	int64_t left = target_ns - sw_clock_ns(CLOCK_MONOTONIC);
	int64_t ms = (left + 999999) / 1000000;
	return ms < 1 ? 1 : ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

static void timed_commit_release(struct sw_timed_commit *held)
{
	struct wlr_surface *surface = held->timer->surface;
	uint32_t seq = held->seq;
	held->timer->manager->counters.commits_released++;
	timed_commit_destroy(held);
	/* Applies the commit, and any unheld ones queued behind it. */
	wlr_surface_unlock_cached(surface, seq);
}

static int handle_target_near(void *data)
{
	struct sw_timed_commit *held = data;
	struct wlr_surface *surface = held->timer->surface;
	if (!wl_list_empty(&surface->current_outputs)) {
		struct wlr_surface_output *surface_output;
		wl_list_for_each(surface_output, &surface->current_outputs, link)
			wlr_output_schedule_frame(surface_output->output);
		return 0;
	}
	/* On no output, no frame will latch it: the target time itself. */
	if (sw_clock_ns(CLOCK_MONOTONIC) < held->target_ns) {
		wl_event_source_timer_update(held->source, ms_until(held->target_ns));
		return 0;
	}
	timed_commit_release(held);
	return 0;
}

void sw_commit_timing_output_latching(struct sw_commit_timing_manager *manager,
				      struct wlr_output *output, int64_t present_ns)
{
	if (!manager)
		return;
	struct sw_commit_timer *timer, *tmp;
	wl_list_for_each_safe(timer, tmp, &manager->timers, link) {
		if (wl_list_empty(&timer->held) || !surface_on_output(timer->surface, output))
			continue;
		/* Unlocking may apply commits and run any listener; the surface
		 * (and this timer) may go, so one commit per pass. */
		struct sw_timed_commit *held = wl_container_of(timer->held.next, held, link);
		if (held->target_ns <= present_ns)
			timed_commit_release(held);
		else if (held->target_ns - present_ns < FRAME_REQUEST_AHEAD_NS)
			/* Without damage, nothing else brings the next frame. */
			wlr_output_schedule_frame(output);
	}
}

static void handle_client_commit(struct wl_listener *listener, void *data)
{
	struct sw_commit_timer *timer = wl_container_of(listener, timer, client_commit);
	struct wlr_surface *surface = timer->surface;
	int64_t target_ns = timer->pending.target_ns;
	if (surface->pending_rejected || target_ns == 0)
		return;
	sw_frame_stats_commit_target(timer->manager->server->frame_stats, surface, surface->pending.seq,
				     target_ns);
	if (target_ns <= sw_clock_ns(CLOCK_MONOTONIC)) {
		timer->manager->counters.targets_past++;
		return;
	}
	if (!sw_held_commits_admit(timer->manager->server->held_commits, surface))
		return;
	struct sw_timed_commit *held = calloc(1, sizeof(*held));
	if (!held) {
		wl_client_post_no_memory(wl_resource_get_client(surface->resource));
		return;
	}
	held->source = wl_event_loop_add_timer(timer->manager->server->loop, handle_target_near, held);
	if (!held->source) {
		free(held);
		wl_client_post_no_memory(wl_resource_get_client(surface->resource));
		return;
	}
	held->timer = timer;
	held->target_ns = target_ns;
	held->seq = wlr_surface_lock_pending(surface);
	wl_list_insert(timer->held.prev, &held->link);
	wl_event_source_timer_update(held->source, ms_until(target_ns - FRAME_REQUEST_AHEAD_NS));
	timer->manager->counters.commits_held++;
}

/* --- wp_commit_timer_v1 ---------------------------------------------------- */

static void commit_timer_destroy(struct sw_commit_timer *timer)
{
	if (timer->resource)
		wl_resource_set_user_data(timer->resource, NULL);
	/* The held cached states die with the surface; nothing to unlock. */
	struct sw_timed_commit *held, *tmp;
	wl_list_for_each_safe(held, tmp, &timer->held, link) {
		timer->manager->counters.commits_dropped++;
		timed_commit_destroy(held);
	}
	wl_list_remove(&timer->client_commit.link);
	wl_list_remove(&timer->link);
	wlr_addon_finish(&timer->addon);
	wlr_surface_synced_finish(&timer->synced);
	free(timer);
}

static void addon_handle_destroy(struct wlr_addon *addon)
{
	struct sw_commit_timer *timer = wl_container_of(addon, timer, addon);
	commit_timer_destroy(timer);
}

static const struct wlr_addon_interface addon_impl = {
	.name = "syncway_wp_commit_timer_v1",
	.destroy = addon_handle_destroy,
};

static struct sw_commit_timer *timer_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wp_commit_timer_v1_interface, &timer_impl));
	return wl_resource_get_user_data(resource);
}

static void timer_handle_resource_destroy(struct wl_resource *resource)
{
	struct sw_commit_timer *timer = timer_from_resource(resource);
	if (timer)
		timer->resource = NULL;
}

static void timer_handle_set_timestamp(struct wl_client *client, struct wl_resource *resource,
				       uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec)
{
	struct sw_commit_timer *timer = timer_from_resource(resource);
	if (!timer) {
		wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_SURFACE_DESTROYED,
				       "set_timestamp: the wl_surface was destroyed");
		return;
	}
	if (tv_nsec >= NSEC_PER_SEC) {
		timer->manager->counters.protocol_errors++;
		wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_INVALID_TIMESTAMP,
				       "set_timestamp: tv_nsec %u is not below one second", tv_nsec);
		return;
	}
	if (timer->pending.target_ns != 0) {
		timer->manager->counters.protocol_errors++;
		wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_TIMESTAMP_EXISTS,
				       "set_timestamp: this commit already has a target time");
		return;
	}
	uint64_t sec = (uint64_t)tv_sec_hi << 32 | tv_sec_lo;
	/* Past the year 2262 a target no longer fits in int64 ns: it means
	 * "never" as much as the largest one that fits does. */
	int64_t max_sec = (INT64_MAX - NSEC_PER_SEC) / NSEC_PER_SEC;
	int64_t target_ns = sec > (uint64_t)max_sec ? INT64_MAX - NSEC_PER_SEC :
						      (int64_t)sec * NSEC_PER_SEC + tv_nsec;
	/* 0 means "no target" here; the epoch itself is long past anyway. */
	timer->pending.target_ns = target_ns > 0 ? target_ns : 1;
}

static void timer_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wp_commit_timer_v1_interface timer_impl = {
	.set_timestamp = timer_handle_set_timestamp,
	.destroy = timer_handle_destroy,
};

static struct sw_commit_timer *commit_timer_create(struct sw_commit_timing_manager *manager,
					    struct wlr_surface *surface)
{
	struct sw_commit_timer *timer = calloc(1, sizeof(*timer));
	if (!timer)
		return NULL;
	if (!wlr_surface_synced_init(&timer->synced, surface, &timing_state_impl, &timer->pending,
				     &timer->current)) {
		free(timer);
		return NULL;
	}
	timer->manager = manager;
	timer->surface = surface;
	wl_list_init(&timer->held);
	wlr_addon_init(&timer->addon, &surface->addons, manager, &addon_impl);
	timer->client_commit.notify = handle_client_commit;
	wl_signal_add(&surface->events.client_commit, &timer->client_commit);
	wl_list_insert(&manager->timers, &timer->link);
	return timer;
}

/* --- wp_commit_timing_manager_v1 ------------------------------------------- */

static void manager_handle_get_timer(struct wl_client *client, struct wl_resource *resource,
				     uint32_t id, struct wl_resource *surface_resource)
{
	assert(wl_resource_instance_of(resource, &wp_commit_timing_manager_v1_interface, &manager_impl));
	struct sw_commit_timing_manager *manager = wl_resource_get_user_data(resource);
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);

	struct sw_commit_timer *timer = NULL;
	struct wlr_addon *existing = wlr_addon_find(&surface->addons, manager, &addon_impl);
	if (existing) {
		timer = wl_container_of(existing, timer, addon);
		if (timer->resource) {
			manager->counters.protocol_errors++;
			wl_resource_post_error(resource, WP_COMMIT_TIMING_MANAGER_V1_ERROR_COMMIT_TIMER_EXISTS,
					       "wl_surface@%u already has wp_commit_timer_v1@%u",
					       wl_resource_get_id(surface_resource),
					       wl_resource_get_id(timer->resource));
			return;
		}
	}
	struct wl_resource *timer_resource = wl_resource_create(client, &wp_commit_timer_v1_interface,
								wl_resource_get_version(resource), id);
	if (!timer_resource) {
		wl_resource_post_no_memory(resource);
		return;
	}
	if (!timer)
		timer = commit_timer_create(manager, surface);
	if (!timer) {
		wl_resource_destroy(timer_resource);
		wl_resource_post_no_memory(resource);
		return;
	}
	timer->resource = timer_resource;
	wl_resource_set_implementation(timer_resource, &timer_impl, timer, timer_handle_resource_destroy);
}

static void manager_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wp_commit_timing_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.get_timer = manager_handle_get_timer,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wp_commit_timing_manager_v1_interface,
							  version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

struct sw_commit_timing_manager *sw_commit_timing_manager_create(struct sw_server *server, bool advertise)
{
	struct sw_commit_timing_manager *manager = calloc(1, sizeof(*manager));
	if (!manager)
		return NULL;
	manager->server = server;
	wl_list_init(&manager->timers);
	if (!advertise)
		return manager;
	manager->global = wl_global_create(server->display, &wp_commit_timing_manager_v1_interface,
					   MANAGER_VERSION, manager, manager_bind);
	if (!manager->global) {
		free(manager);
		return NULL;
	}
	return manager;
}

void sw_commit_timing_manager_destroy(struct sw_commit_timing_manager *manager,
				      struct sw_commit_timing_counters *final)
{
	if (!manager)
		return;
	if (manager->global)
		wl_global_destroy(manager->global);
	if (final)
		*final = manager->counters;
	free(manager);
}
