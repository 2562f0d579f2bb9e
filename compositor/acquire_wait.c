/* linux-drm-syncobj-v1: the commits held back on acquire points. A commit
 * whose point is not signalled yet locks its cached state; the oldest one
 * of each surface waits on an eventfd registered with SYNCOBJ_EVENTFD, and
 * when it fires, handle_wait_ready unlocks it and every later commit that
 * is ready by then. The waiting surfaces one client may have are capped
 * (sw_sync_client, over_cap), and those of all clients together too
 * (over_budget: the fds): the client holding the most is cut off. The
 * held commits themselves (the memory) are bounded with those fifo-v1 and
 * commit-timing-v1 hold, in held_commits.c. Without an eventfd to be had
 * (the fd limit), a wait is watched by polling its point instead
 * (handle_poll). An eventfd that fired goes back to a small pool for the
 * next wait: a new one per wait cost six system calls a frame more
 * (eventfd, libwayland's duplicate, two epoll_ctl, two close). */
#include "acquire_wait.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "explicit_sync_internal.h"
#include "frame_stats.h"
#include "held_commits.h"
#include "server.h"
#include "syncobj.h"
#include "xwayland.h"

/* What one client's waits cost the compositor, against its cap
 * (sw_options: max_waiting_surfaces). Lives while the client is connected
 * or any of its waits is. */
struct sw_sync_client {
	struct wl_list link; /* sw_explicit_sync.clients */
	struct wl_client *client; /* NULL once disconnected */
	size_t held;    /* its commits waiting on an acquire point */
	size_t watched; /* its surfaces' oldest waits: eventfd or polled */
	struct wl_listener destroy;
};

/* The commits of one surface held back on acquire points, oldest first.
 * It hangs off the wl_surface, so that finding a surface's head costs the
 * same however many commits other surfaces and clients hold. Lives while
 * it holds a commit. */
struct sw_wait_queue {
	struct wlr_addon addon; /* on the wl_surface, owner sw_explicit_sync */
	struct wl_list link;    /* sw_explicit_sync.queues */
	struct wl_list waits;   /* sw_acquire_wait.link, oldest first */
	bool emptying;          /* its surface is going away */
};

/* An eventfd in the event loop. In a wait's hands it carries at most one
 * SYNCOBJ_EVENTFD registration; in the pool (sw_explicit_sync.eventfds) it
 * carries none and its counter is zero, so it cannot fire. */
struct sw_acquire_eventfd {
	struct wl_list link; /* sw_explicit_sync.eventfds, while pooled */
	struct sw_acquire_wait *wait; /* NULL while pooled */
	struct wl_event_source *source;
	int fd;
	uint32_t pooled_tick; /* sw_explicit_sync.eventfd_tick when pooled */
};

/* A commit held back until its acquire point is signalled. */
struct sw_acquire_wait {
	struct wl_list link; /* sw_wait_queue.waits */
	struct sw_explicit_sync *sync;
	struct sw_wait_queue *queue;
	struct sw_sync_client *owner;
	struct wlr_surface *surface;
	uint32_t seq; /* the locked cached state */
	struct sw_imported_timeline *timeline;
	uint64_t point;
	/* Once it is the surface's oldest: an eventfd, or polled, in
	 * sw_explicit_sync.polled. */
	struct sw_acquire_eventfd *eventfd;
	bool polled;
	bool watched; /* by an eventfd (until it fires) or polled */
	struct wl_list poll_link;
};

/* How often polled waits are checked: a frame at 200 Hz, so that a client
 * whose wait is polled loses at most that much latency. */
#define POLL_MS 5
/* A client with at most this many waiting surfaces is never cut off by the
 * budget: when nobody holds more, a wait past the budget is polled instead.
 * An honest client has one per window it is drawing. */
#define SMALL_WAITER 8
/* Eventfds kept for later waits: one per surface that draws every frame,
 * for a few windows. They count against the fd budget like watched
 * waits, and go first when it is reached. */
#define POOLED_EVENTFDS 4
/* A pooled eventfd unused for one to two of these is closed, so that the
 * compositor's fds go back to what they were soon after a client stops
 * drawing (the conformance suites' leak checks wait up to 3 s). */
#define POOL_TICK_MS 500

/* --- per-client costs ---------------------------------------------------- */

static void sync_client_free_if_unused(struct sw_sync_client *owner)
{
	if (owner->client || owner->held > 0)
		return;
	wl_list_remove(&owner->link);
	free(owner);
}

static void handle_sync_client_destroy(struct wl_listener *listener, void *data)
{
	/* The client's surfaces, and with them its waits, go after this. */
	struct sw_sync_client *owner = wl_container_of(listener, owner, destroy);
	wl_list_remove(&owner->destroy.link);
	owner->client = NULL;
	sync_client_free_if_unused(owner);
}

static struct sw_sync_client *sync_client_get(struct sw_explicit_sync *sync, struct wl_client *client)
{
	struct sw_sync_client *owner;
	wl_list_for_each(owner, &sync->clients, link) {
		if (owner->client == client)
			return owner;
	}
	owner = calloc(1, sizeof(*owner));
	if (!owner)
		return NULL;
	owner->client = client;
	owner->destroy.notify = handle_sync_client_destroy;
	wl_client_add_destroy_listener(client, &owner->destroy);
	wl_list_insert(&sync->clients, &owner->link);
	return owner;
}

/* --- acquire points ------------------------------------------------------ */

static int handle_wait_ready(int fd, uint32_t mask, void *data);

static void eventfd_free(struct sw_acquire_eventfd *efd)
{
	wl_event_source_remove(efd->source);
	close(efd->fd);
	free(efd);
}

/* A fired eventfd, its registration spent and its counter read: pooled
 * for the next wait while the pool has room. */
static void eventfd_put(struct sw_explicit_sync *sync, struct sw_acquire_eventfd *efd)
{
	efd->wait = NULL;
	if (sync->pooled_eventfds >= POOLED_EVENTFDS) {
		eventfd_free(efd);
		return;
	}
	efd->pooled_tick = sync->eventfd_tick;
	wl_list_insert(&sync->eventfds, &efd->link);
	sync->pooled_eventfds++;
	/* Armed once per tick at most, not at every put. */
	if (!sync->eventfd_timer_armed) {
		wl_event_source_timer_update(sync->eventfd_timer, POOL_TICK_MS);
		sync->eventfd_timer_armed = true;
	}
}

/* Pooled eventfds that sat unused through a whole tick are closed. */
static int handle_eventfd_tick(void *data)
{
	struct sw_explicit_sync *sync = data;
	struct sw_acquire_eventfd *efd, *tmp;
	wl_list_for_each_safe(efd, tmp, &sync->eventfds, link) {
		if (efd->pooled_tick != sync->eventfd_tick) {
			wl_list_remove(&efd->link);
			sync->pooled_eventfds--;
			eventfd_free(efd);
		}
	}
	sync->eventfd_tick++;
	sync->eventfd_timer_armed = !wl_list_empty(&sync->eventfds);
	if (sync->eventfd_timer_armed)
		wl_event_source_timer_update(sync->eventfd_timer, POOL_TICK_MS);
	return 0;
}

/* Every pooled eventfd closed: the fds are wanted for waits. */
static void eventfds_drain(struct sw_explicit_sync *sync)
{
	struct sw_acquire_eventfd *efd, *tmp;
	wl_list_for_each_safe(efd, tmp, &sync->eventfds, link) {
		wl_list_remove(&efd->link);
		eventfd_free(efd);
	}
	sync->pooled_eventfds = 0;
}

static struct sw_acquire_eventfd *eventfd_get(struct sw_explicit_sync *sync, int *err)
{
	struct sw_acquire_eventfd *efd;
	if (!wl_list_empty(&sync->eventfds)) {
		efd = wl_container_of(sync->eventfds.next, efd, link);
		wl_list_remove(&efd->link);
		sync->pooled_eventfds--;
		return efd;
	}
	efd = calloc(1, sizeof(*efd));
	if (!efd) {
		*err = ENOMEM;
		return NULL;
	}
	efd->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd->fd < 0) {
		*err = errno;
		free(efd);
		return NULL;
	}
	/* The event loop polls a duplicate but hands this fd to the callback;
	 * without an fd for the duplicate, there is no source. */
	efd->source = wl_event_loop_add_fd(sync->server->loop, efd->fd, WL_EVENT_READABLE,
					   handle_wait_ready, efd);
	if (!efd->source) {
		close(efd->fd);
		free(efd);
		*err = EMFILE;
		return NULL;
	}
	return efd;
}

/* Only the oldest held commit of a surface has an eventfd: the commits
 * queued behind it cannot apply before it anyway, and one fd per surface
 * rather than per commit keeps a client that floods commits on unsignalled
 * points from exhausting the compositor's fds. 0, or the errno. */
static int wait_arm(struct sw_acquire_wait *wait)
{
	struct sw_explicit_sync *sync = wait->sync;
	int err = 0;
	struct sw_acquire_eventfd *efd = eventfd_get(sync, &err);
	if (!efd)
		return err;
	/* flags 0: fire once the point is signalled, waiting for it to
	 * materialize first if needed (wait-before-submit). An already
	 * signalled point fires at once. */
	if (sw_syncobj_eventfd(sync->stats, sync->drm_fd, wait->timeline->handle, wait->point, 0,
			       efd->fd) != 0) {
		err = errno;
		wlr_log_errno(WLR_ERROR, "explicit sync: SYNCOBJ_EVENTFD for point %" PRIu64,
			      wait->point);
		eventfd_put(sync, efd);
		return err;
	}
	efd->wait = wait;
	wait->eventfd = efd;
	return 0;
}

/* Watched by polling, for want of an eventfd: TIMELINE_WAIT with timeout 0
 * every POLL_MS, through common/syncobj.c like every other ioctl. */
static void wait_poll(struct sw_acquire_wait *wait, const char *why)
{
	struct sw_explicit_sync *sync = wait->sync;
	if (wl_list_empty(&sync->polled)) {
		wlr_log(WLR_ERROR, "explicit sync: %s: polling acquire points every %d ms", why, POLL_MS);
		wl_event_source_timer_update(sync->poll_timer, POLL_MS);
	}
	wait->polled = true;
	wl_list_insert(sync->polled.prev, &wait->poll_link);
	sync->counters.waits_polled++;
}

/* The surface's oldest held commit gets watched: an eventfd, or polling
 * when the compositor has no fd for one (or poll_only: the budget is
 * spent). false when it cannot be watched at all. */
static bool wait_watch(struct sw_acquire_wait *wait, bool poll_only)
{
	int err = 0;
	if (poll_only)
		wait_poll(wait, "waiting surfaces at the fd budget, none holding many");
	else if ((err = wait_arm(wait)) == EMFILE || err == ENFILE || err == ENOMEM)
		wait_poll(wait, strerror(err));
	else if (err != 0)
		return false;
	wait->watched = true;
	wait->owner->watched++;
	wait->sync->watched++;
	return true;
}

static void queue_free(struct sw_wait_queue *queue)
{
	wlr_addon_finish(&queue->addon);
	wl_list_remove(&queue->link);
	free(queue);
}

static void wait_destroy(struct sw_acquire_wait *wait)
{
	struct sw_wait_queue *queue = wait->queue;
	if (wait->eventfd) {
		/* Not fired yet: the kernel may still hold a registration that
		 * would wake a later wait, so this one is not pooled. */
		eventfd_free(wait->eventfd);
	}
	if (wait->polled)
		wl_list_remove(&wait->poll_link);
	if (wait->watched) {
		wait->owner->watched--;
		wait->sync->watched--;
	}
	wl_list_remove(&wait->link);
	timeline_unref(wait->timeline);
	wait->owner->held--;
	sync_client_free_if_unused(wait->owner);
	free(wait);
	if (wl_list_empty(&queue->waits) && !queue->emptying)
		queue_free(queue);
}

/* Every held commit of the queue, cancelled. */
static void queue_empty(struct sw_explicit_sync *sync, struct sw_wait_queue *queue)
{
	queue->emptying = true;
	struct sw_acquire_wait *wait, *tmp;
	wl_list_for_each_safe(wait, tmp, &queue->waits, link) {
		sync->counters.waits_cancelled++;
		wait_destroy(wait);
	}
	queue_free(queue);
}

static void queue_handle_surface_destroy(struct wlr_addon *addon)
{
	/* The cached states die with the surface; a late eventfd must not
	 * touch them. */
	struct sw_wait_queue *queue = wl_container_of(addon, queue, addon);
	struct sw_explicit_sync *sync = wl_container_of(addon->owner, sync, queues);
	queue_empty(sync, queue);
}

static const struct wlr_addon_interface queue_addon_impl = {
	.name = "syncway_acquire_wait_queue",
	.destroy = queue_handle_surface_destroy,
};

static struct sw_wait_queue *surface_queue(struct sw_explicit_sync *sync, struct wlr_surface *surface)
{
	struct wlr_addon *addon = wlr_addon_find(&surface->addons, &sync->queues, &queue_addon_impl);
	struct sw_wait_queue *queue;
	return addon ? wl_container_of(addon, queue, addon) : NULL;
}

/* The oldest held commit of a surface. */
static struct sw_acquire_wait *surface_next_wait(struct sw_explicit_sync *sync,
						 struct wlr_surface *surface)
{
	struct sw_wait_queue *queue = surface_queue(sync, surface);
	struct sw_acquire_wait *wait;
	if (!queue || wl_list_empty(&queue->waits))
		return NULL;
	return wl_container_of(queue->waits.next, wait, link);
}

struct surface_guard {
	struct wl_listener destroy;
	bool destroyed;
};

static void handle_guard_destroy(struct wl_listener *listener, void *data)
{
	struct surface_guard *guard = wl_container_of(listener, guard, destroy);
	guard->destroyed = true;
	wl_list_remove(&guard->destroy.link);
	wl_list_init(&guard->destroy.link);
}

/* The head of a surface's queue of held commits is signalled. Commits behind
 * it whose points are signalled by now go with it, without a trip through
 * the event loop each (a burst of thousands of held commits is otherwise
 * drained one loop iteration at a time); at most a batch per call, after
 * which the next head's eventfd, firing at once, continues. */
static void wait_ready(struct sw_acquire_wait *wait)
{
	struct sw_explicit_sync *sync = wait->sync;
	struct wlr_surface *surface = wait->surface;
	uint32_t seqs[64];
	size_t n = 0;

	sw_frame_stats_commit_acquired(sync->server->frame_stats, surface, wait->seq,
				       sw_syncobj_now_ns(), true);
	seqs[n++] = wait->seq;
	wait_destroy(wait);

	struct sw_acquire_wait *next;
	uint64_t unwatched_point = 0;
	bool unwatched = false;
	while ((next = surface_next_wait(sync, surface))) {
		if (n < sizeof(seqs) / sizeof(seqs[0]) &&
		    sw_syncobj_point_signalled(sync->stats, sync->drm_fd, next->timeline->handle,
					       next->point) == 1) {
			sw_frame_stats_commit_acquired(sync->server->frame_stats, surface,
						       next->seq, sw_syncobj_now_ns(), true);
			seqs[n++] = next->seq;
			wait_destroy(next);
			continue;
		}
		if (!wait_watch(next, false)) {
			unwatched = true;
			unwatched_point = next->point;
		}
		break;
	}

	/* Unlocking applies commits, which runs arbitrary listeners. The
	 * commits collected are ready whatever happens to the next one. */
	struct wl_client *client = wl_resource_get_client(surface->resource);
	struct surface_guard guard = { .destroy.notify = handle_guard_destroy };
	wl_signal_add(&surface->events.destroy, &guard.destroy);
	for (size_t i = 0; i < n && !guard.destroyed; i++)
		wlr_surface_unlock_cached(surface, seqs[i]);
	wl_list_remove(&guard.destroy.link);
	/* A held commit nobody watches would stall the surface for good. */
	if (unwatched)
		wl_client_post_implementation_error(client, "compositor cannot wait for acquire point %" PRIu64,
						    unwatched_point);
}

static int handle_wait_ready(int fd, uint32_t mask, void *data)
{
	struct sw_acquire_eventfd *efd = data;
	struct sw_acquire_wait *wait = efd->wait;
	uint64_t count;
	ssize_t n = read(fd, &count, sizeof(count));
	if (n < 0 && errno == EAGAIN)
		return 0; /* a wake-up with nothing behind it */
	if (n < 0)
		wlr_log_errno(WLR_ERROR, "explicit sync: reading an acquire eventfd");
	if (!wait) {
		wlr_log(WLR_ERROR, "explicit sync: a pooled acquire eventfd fired");
		return 0;
	}
	/* The registration fired and the counter is read: the eventfd is
	 * clean for the next wait, which wait_ready may arm at once. */
	wait->eventfd = NULL;
	if (n < 0)
		eventfd_free(efd);
	else
		eventfd_put(wait->sync, efd);
	wait_ready(wait);
	return 0;
}

/* The polled waits whose points are signalled by now go ahead. Applying a
 * commit runs listeners that may destroy other waits, so each is taken off
 * a private list first, and a destroyed one simply leaves it. */
static int handle_poll(void *data)
{
	struct sw_explicit_sync *sync = data;
	struct wl_list pending;
	wl_list_init(&pending);
	wl_list_insert_list(&pending, &sync->polled);
	wl_list_init(&sync->polled);
	while (!wl_list_empty(&pending)) {
		struct sw_acquire_wait *wait = wl_container_of(pending.next, wait, poll_link);
		wl_list_remove(&wait->poll_link);
		wl_list_insert(sync->polled.prev, &wait->poll_link);
		if (sw_syncobj_point_signalled(sync->stats, sync->drm_fd, wait->timeline->handle,
					       wait->point) == 1)
			wait_ready(wait);
	}
	if (!wl_list_empty(&sync->polled))
		wl_event_source_timer_update(sync->poll_timer, POLL_MS);
	else
		wlr_log(WLR_ERROR, "explicit sync: no acquire point polled any more");
	return 0;
}

/* Why a client may not have another waiting surface, or NULL. The first
 * held commit of a surface costs an eventfd and libwayland's duplicate of
 * it. Unbounded, one client could take every fd the compositor has. */
static const char *over_cap(struct sw_explicit_sync *sync, const struct sw_sync_client *owner,
			    bool needs_eventfd, char *buf, size_t len)
{
	const struct sw_options *options = sync->server->options;
	if (needs_eventfd && options->max_waiting_surfaces > 0 &&
	    owner->watched >= (size_t)options->max_waiting_surfaces) {
		snprintf(buf, len, "more than %d surfaces with commits waiting on acquire points "
			 "(--max-waiting-surfaces)", options->max_waiting_surfaces);
		return buf;
	}
	return NULL;
}

/* The connected client other than owner with the most waiting surfaces,
 * or NULL. Never Xwayland: it waits for every X11 client at once, and
 * cutting it off for one X11 client's load would end them all. */
static struct sw_sync_client *heaviest_other(struct sw_explicit_sync *sync,
					     const struct sw_sync_client *owner)
{
	struct sw_sync_client *heavy = NULL, *other;
	wl_list_for_each(other, &sync->clients, link) {
		if (other != owner && other->client && (!heavy || other->watched > heavy->watched) &&
		    !xwayland_owns_client(sync->server, other->client))
			heavy = other;
	}
	return heavy;
}

/* What a client with the most waiting surfaces (holds) is told when all
 * clients' together reached the budget. libwayland cuts an error's text
 * at 127 characters. */
static const char *total_words(const struct sw_explicit_sync *sync, size_t holds, char *buf, size_t len)
{
	snprintf(buf, len, "waiting surfaces of all clients at the compositor's limit (%ld, "
		 "--fd-headroom): this client holds the most (%zu)",
		 sync->server->options->max_waiting_total, holds);
	return buf;
}

/* Cuts a client off for holding the most when all clients' waiting
 * surfaces reached the budget. */
static void cut_off(struct sw_explicit_sync *sync, struct sw_sync_client *heavy)
{
	char why[192];
	total_words(sync, heavy->watched, why, sizeof(why));
	sync->counters.clients_cut_off++;
	sync->counters.protocol_errors++;
	sw_client_cut_off(heavy->client, "explicit sync", why);
}

/* Another waiting surface for owner, with all clients' at the budget: the
 * one holding the most goes (another client: cut off; owner: refused, with
 * the words in buf), unless even the most is few (SMALL_WAITER), in
 * which case owner's wait is polled (*poll_only) and nobody is cut off.
 * Xwayland's wait is polled too, whatever it holds: it takes no fd, and
 * --max-waiting-surfaces still bounds how many it has. */
static const char *over_budget(struct sw_explicit_sync *sync, struct sw_sync_client *owner,
			       bool *poll_only, char *buf, size_t len)
{
	long budget = sync->server->options->max_waiting_total;
	*poll_only = false;
	if (budget > 0 && sync->watched + sync->pooled_eventfds >= (size_t)budget)
		eventfds_drain(sync);
	if (budget <= 0 || sync->watched < (size_t)budget)
		return NULL;
	if (xwayland_owns_client(sync->server, owner->client)) {
		*poll_only = true;
		return NULL;
	}
	struct sw_sync_client *heavy = heaviest_other(sync, owner);
	size_t mine = owner->watched + 1;
	if ((heavy ? heavy->watched : 0) <= SMALL_WAITER && mine <= SMALL_WAITER) {
		*poll_only = true;
		return NULL;
	}
	if (heavy && heavy->watched > mine) {
		cut_off(sync, heavy);
		return NULL;
	}
	return total_words(sync, mine, buf, len);
}

bool wait_create(struct sw_explicit_sync *sync, struct wlr_surface *surface,
		 struct sw_imported_timeline *timeline, uint64_t point, const char **cap,
		 char *cap_buf, size_t cap_len)
{
	*cap = NULL;
	struct sw_sync_client *owner = sync_client_get(sync, wl_resource_get_client(surface->resource));
	if (!owner)
		return false;
	bool needs_eventfd = !surface_next_wait(sync, surface), poll_only = false;
	if ((*cap = over_cap(sync, owner, needs_eventfd, cap_buf, cap_len)))
		return false;
	if ((*cap = sw_held_commits_check(sync->server->held_commits, surface, cap_buf, cap_len)))
		return false;
	if (needs_eventfd && (*cap = over_budget(sync, owner, &poll_only, cap_buf, cap_len)))
		return false;
	struct sw_wait_queue *queue = surface_queue(sync, surface);
	if (!queue) {
		queue = calloc(1, sizeof(*queue));
		if (!queue)
			return false;
		wl_list_init(&queue->waits);
		/* The owner is the list head: an address only this sync has. */
		wlr_addon_init(&queue->addon, &surface->addons, &sync->queues, &queue_addon_impl);
		wl_list_insert(&sync->queues, &queue->link);
	}
	struct sw_acquire_wait *wait = calloc(1, sizeof(*wait));
	if (!wait) {
		if (wl_list_empty(&queue->waits))
			queue_free(queue);
		return false;
	}
	wait->sync = sync;
	wait->queue = queue;
	wait->owner = owner;
	wait->surface = surface;
	wait->timeline = timeline;
	wait->point = point;
	if (needs_eventfd && !wait_watch(wait, poll_only)) {
		free(wait);
		if (wl_list_empty(&queue->waits))
			queue_free(queue);
		return false;
	}
	owner->held++;
	timeline_ref(timeline);
	wait->seq = wlr_surface_lock_pending(surface);
	wl_list_insert(queue->waits.prev, &wait->link);
	return true;
}

bool wait_queues_init(struct sw_explicit_sync *sync)
{
	wl_list_init(&sync->queues);
	wl_list_init(&sync->polled);
	wl_list_init(&sync->eventfds);
	sync->poll_timer = wl_event_loop_add_timer(sync->server->loop, handle_poll, sync);
	if (!sync->poll_timer)
		return false;
	sync->eventfd_timer = wl_event_loop_add_timer(sync->server->loop, handle_eventfd_tick, sync);
	if (!sync->eventfd_timer) {
		wl_event_source_remove(sync->poll_timer);
		return false;
	}
	return true;
}

void wait_queues_finish(struct sw_explicit_sync *sync)
{
	struct sw_wait_queue *queue, *queue_tmp;
	wl_list_for_each_safe(queue, queue_tmp, &sync->queues, link)
		queue_empty(sync, queue);
	eventfds_drain(sync);
	wl_event_source_remove(sync->eventfd_timer);
	wl_event_source_remove(sync->poll_timer);
}
