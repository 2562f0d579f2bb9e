/* linux-drm-syncobj-v1: the protocol objects, commit validation, the CPU
 * wait for acquire points and the CPU signal of release points.
 *
 * The path of one commit (see docs/compositor.md):
 *   client_commit: validate the pending points (errors go to the
 *     wp_linux_drm_syncobj_surface_v1); attach a release tracker to the
 *     buffer; ask the kernel once, without blocking, whether the acquire point
 *     is signalled (TIMELINE_WAIT, WAIT_FOR_SUBMIT, timeout 0).
 *   not signalled (or not even submitted): lock the pending state so wlroots
 *     caches it, and every later commit queues behind it in order; an eventfd
 *     registered with SYNCOBJ_EVENTFD (flags 0: signalled, which also covers
 *     points that materialize later) wakes the event loop, which unlocks.
 *   the buffer's last user lets go (wlr_buffer "release": texture destroyed,
 *     scanout flipped away, surface gone, or never shown at all): with
 *     pixman, which has read it by then, TIMELINE_SIGNAL the release point
 *     from the CPU; with a GPU renderer, import the fence of the render jobs
 *     submitted so far into the release point, so that it signals when the
 *     GPU is done reading (render_fence below).
 * Points travel with their commit as wlr_surface_synced state, so they are
 * double-buffered like the rest of wl_surface state. All ioctls go through
 * common/syncobj.c and are accounted in server->syncobj_stats. */
#include "explicit_sync.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "frame_stats.h"
#include "linux-drm-syncobj-v1-protocol.h"
#include "renderer.h"
#include "server.h"
#include "syncobj.h"

#define MANAGER_VERSION 1

struct sw_explicit_sync {
	struct sw_server *server;
	struct wl_global *global;
	int drm_fd; /* server's */
	struct sw_syncobj_stats *stats; /* server's */

	/* Whether rendering may still be running after the output commit
	 * (GPU renderers); pixman has finished reading when it returns. */
	bool release_after_frames;
	/* A sync_file that signals once every fenced render job submitted so
	 * far has finished: the fences of the frames' render targets, merged.
	 * -1 before the first fenced frame. */
	int render_fence;
	/* The number of the newest frame whose render target had no pending
	 * fence (none at all, or already signalled when the frame was
	 * submitted: a CPU rasteriser, or a driver without implicit fences).
	 * Nothing but its retiring says such a frame is done reading. */
	uint64_t unfenced_frame;
	bool unfenced_logged;

	struct wl_list queues;   /* sw_wait_queue.link */
	struct wl_list clients;  /* sw_sync_client.link */
	struct wl_list releases; /* sw_release.link */
	struct wl_listener frames_retired;

	struct sw_explicit_sync_counters counters;
};

/* An imported drm_syncobj. The protocol object, pending/cached/current
 * states, waits and release trackers each hold a reference, so destroying
 * the wp_linux_drm_syncobj_timeline_v1 leaves points already set working. */
struct sw_imported_timeline {
	struct sw_explicit_sync *sync;
	uint32_t handle;
	uint32_t resource_id; /* for error messages, also after it is gone */
	int refs;
};

/* One commit's points, double-buffered through wlr_surface_synced. */
struct sw_sync_state {
	struct sw_imported_timeline *acquire_timeline;
	uint64_t acquire_point;
	struct sw_imported_timeline *release_timeline;
	uint64_t release_point;
};

/* wp_linux_drm_syncobj_surface_v1: lives until the client destroys it or the
 * wl_surface goes away, whichever is first. Commits it already accepted do
 * not depend on it (waits and release trackers stand alone). */
struct sw_sync_surface {
	struct sw_explicit_sync *sync;
	struct wl_resource *resource;
	struct wlr_surface *surface;
	struct sw_sync_state pending, current;
	struct wlr_surface_synced synced;
	struct wlr_addon addon;

	struct wl_listener client_commit;
};

/* What one client's held commits cost the compositor, against its caps
 * (sw_options: max_held_commits, max_waiting_surfaces). Lives while the
 * client is connected or any of its waits is. */
struct sw_sync_client {
	struct wl_list link; /* sw_explicit_sync.clients */
	struct wl_client *client; /* NULL once disconnected */
	size_t held;  /* its commits waiting on an acquire point */
	size_t armed; /* its waits with an eventfd: one per surface */
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
	struct wl_event_source *source; /* NULL until it is the surface's oldest */
	int event_fd;
};

/* A release point waiting for the compositor to be done with its buffer. */
struct sw_release {
	struct wl_list link; /* sw_explicit_sync.releases */
	struct sw_explicit_sync *sync;
	struct sw_imported_timeline *timeline;
	uint64_t point;
	struct wlr_buffer *buffer; /* NULL once released */
	uint64_t barrier;          /* frames 1..barrier must retire first */

	struct wl_listener buffer_release;
	struct wl_listener buffer_destroy;
};

static const struct wp_linux_drm_syncobj_manager_v1_interface manager_impl;
static const struct wp_linux_drm_syncobj_timeline_v1_interface timeline_impl;
static const struct wp_linux_drm_syncobj_surface_v1_interface surface_impl;

/* --- timelines -------------------------------------------------------- */

static struct sw_imported_timeline *timeline_ref(struct sw_imported_timeline *timeline)
{
	if (timeline)
		timeline->refs++;
	return timeline;
}

static void timeline_unref(struct sw_imported_timeline *timeline)
{
	if (!timeline || --timeline->refs > 0)
		return;
	struct sw_explicit_sync *sync = timeline->sync;
	if (sw_syncobj_destroy(sync->stats, sync->drm_fd, timeline->handle) != 0)
		wlr_log_errno(WLR_ERROR, "explicit sync: cannot destroy syncobj handle %u",
			      timeline->handle);
	sync->counters.timelines_live--;
	free(timeline);
}

static void timeline_handle_resource_destroy(struct wl_resource *resource)
{
	timeline_unref(wl_resource_get_user_data(resource));
}

static void timeline_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wp_linux_drm_syncobj_timeline_v1_interface timeline_impl = {
	.destroy = timeline_handle_destroy,
};

static struct sw_imported_timeline *timeline_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wp_linux_drm_syncobj_timeline_v1_interface,
				       &timeline_impl));
	return wl_resource_get_user_data(resource);
}

/* --- per-commit state -------------------------------------------------- */

static void sync_state_finish(void *data)
{
	struct sw_sync_state *state = data;
	timeline_unref(state->acquire_timeline);
	timeline_unref(state->release_timeline);
	*state = (struct sw_sync_state){ 0 };
}

static void sync_state_move(void *dst, void *src)
{
	/* Points apply to one commit only: moving them out of pending
	 * leaves pending empty for the next commit. */
	sync_state_finish(dst);
	*(struct sw_sync_state *)dst = *(struct sw_sync_state *)src;
	*(struct sw_sync_state *)src = (struct sw_sync_state){ 0 };
}

static const struct wlr_surface_synced_impl sync_state_impl = {
	.state_size = sizeof(struct sw_sync_state),
	.finish_state = sync_state_finish,
	.move_state = sync_state_move,
};

/* --- release points ------------------------------------------------------ */

static void release_destroy(struct sw_release *release)
{
	wl_list_remove(&release->buffer_release.link);
	wl_list_remove(&release->buffer_destroy.link);
	wl_list_remove(&release->link);
	timeline_unref(release->timeline);
	free(release);
}

static void release_signal(struct sw_release *release)
{
	struct sw_explicit_sync *sync = release->sync;
	if (sw_syncobj_timeline_signal(sync->stats, sync->drm_fd, &release->timeline->handle,
				       &release->point, 1) == 0) {
		sync->counters.releases_signalled++;
	} else {
		sync->counters.release_errors++;
		wlr_log_errno(WLR_ERROR, "explicit sync: cannot signal release point %" PRIu64
			      " of timeline@%u", release->point, release->timeline->resource_id);
	}
	release_destroy(release);
}

/* The release point signals when the GPU has finished every render job that
 * might have sampled the buffer. The wlr_buffer "release" that got us here
 * comes from the CPU: GLES2 only flushes, the headless backend reports
 * "presented" right after the commit, a failed output commit or the retire
 * timeout never waited for anything. Only the render target's fence knows,
 * so the point takes it; the CPU signals only when no frame had one. */
static void release_finish(struct sw_release *release)
{
	struct sw_explicit_sync *sync = release->sync;
	if (sync->render_fence < 0) {
		release_signal(release);
		return;
	}
	if (sw_syncobj_point_import_sync_file(sync->stats, sync->drm_fd, release->timeline->handle,
					      release->point, sync->render_fence) != 0) {
		sync->counters.release_errors++;
		wlr_log_errno(WLR_ERROR, "explicit sync: cannot import the render fence into "
			      "release point %" PRIu64 " of timeline@%u; signalling it from the CPU",
			      release->point, release->timeline->resource_id);
		release_signal(release);
		return;
	}
	sync->counters.releases_signalled++;
	sync->counters.releases_fenced++;
	release_destroy(release);
}

/* The buffer is no longer referenced. pixman reads while building the
 * frame, so by now it is done: the CPU signals, no extra latency. With a GPU
 * renderer the frames that might have read it (all committed so far) may
 * still be rendering: release_finish() hands the point their render fence,
 * after the frames that had none have retired (presented or dropped).
 * Scanout needs nothing more: the backend holds a buffer lock until it has
 * flipped away from it. */
static void release_buffer_gone(struct sw_release *release)
{
	struct sw_server *server = release->sync->server;
	wl_list_remove(&release->buffer_release.link);
	wl_list_init(&release->buffer_release.link);
	wl_list_remove(&release->buffer_destroy.link);
	wl_list_init(&release->buffer_destroy.link);
	release->buffer = NULL;
	if (!release->sync->release_after_frames) {
		release_signal(release);
		return;
	}
	/* An unfenced frame whose commit failed never got its number; the
	 * frames committed so far bound the wait then. */
	release->barrier = release->sync->unfenced_frame;
	if (release->barrier > server->frames_committed)
		release->barrier = server->frames_committed;
	if (server_frames_retired(server) >= release->barrier)
		release_finish(release);
	else
		release->sync->counters.releases_deferred++;
}

static void handle_buffer_release(struct wl_listener *listener, void *data)
{
	struct sw_release *release = wl_container_of(listener, release, buffer_release);
	release_buffer_gone(release);
}

static void handle_buffer_destroy(struct wl_listener *listener, void *data)
{
	/* Only reachable if the buffer was unlocked before we looked: release
	 * fires before destroy otherwise. */
	struct sw_release *release = wl_container_of(listener, release, buffer_destroy);
	release_buffer_gone(release);
}

static void handle_frames_retired(struct wl_listener *listener, void *data)
{
	struct sw_explicit_sync *sync = wl_container_of(listener, sync, frames_retired);
	uint64_t retired = server_frames_retired(sync->server);
	struct sw_release *release, *tmp;
	wl_list_for_each_safe(release, tmp, &sync->releases, link) {
		if (!release->buffer && release->barrier <= retired)
			release_finish(release);
	}
}

static bool release_create(struct sw_explicit_sync *sync, struct wlr_buffer *buffer,
			   struct sw_imported_timeline *timeline, uint64_t point)
{
	struct sw_release *release = calloc(1, sizeof(*release));
	if (!release)
		return false;
	release->sync = sync;
	release->timeline = timeline_ref(timeline);
	release->point = point;
	release->buffer = buffer;
	/* The pending state holds a lock on the buffer, so its release event
	 * cannot have fired yet; a buffer committed again gets one tracker
	 * per commit and all of them fire at its final release. */
	release->buffer_release.notify = handle_buffer_release;
	wl_signal_add(&buffer->events.release, &release->buffer_release);
	release->buffer_destroy.notify = handle_buffer_destroy;
	wl_signal_add(&buffer->events.destroy, &release->buffer_destroy);
	wl_list_insert(sync->releases.prev, &release->link);
	return true;
}

/* A fence that signals when the writes to buffer are done, or -1. */
static int buffer_write_fence(struct wlr_buffer *buffer, const char **why)
{
	/* The fences a reader waits for are the writers': DMA_BUF_SYNC_READ
	 * asks for exactly those. */
	struct wlr_dmabuf_attributes dmabuf;
	struct dma_buf_export_sync_file export = { .flags = DMA_BUF_SYNC_READ, .fd = -1 };
	if (!wlr_buffer_get_dmabuf(buffer, &dmabuf)) {
		*why = "the render target is not a dmabuf";
		return -1;
	}
	if (ioctl(dmabuf.fd[0], DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &export) != 0) {
		*why = strerror(errno);
		return -1;
	}
	struct pollfd pfd = { .fd = export.fd, .events = POLLIN };
	if (poll(&pfd, 1, 0) != 0) {
		*why = "its fence was signalled when the frame was submitted";
		close(export.fd);
		return -1;
	}
	return export.fd;
}

void sw_explicit_sync_frame_rendered(struct sw_explicit_sync *sync, struct wlr_buffer *target)
{
	if (!sync->release_after_frames)
		return;
	const char *why = NULL;
	int fence = buffer_write_fence(target, &why);
	if (fence < 0) {
		/* The frame being committed gets the next number. */
		sync->unfenced_frame = sync->server->frames_committed + 1;
		if (!sync->unfenced_logged)
			wlr_log(WLR_INFO, "explicit sync: a frame without a render fence (%s): "
				"releases after it wait for it to be presented", why);
		sync->unfenced_logged = true;
		return;
	}
	if (sync->render_fence < 0) {
		sync->render_fence = fence;
		return;
	}
	/* Merging keeps the newest fence per GPU context and drops signalled
	 * ones, so the merged fence stays small however long syncway runs, and
	 * covers every queue a frame was rendered on. */
	struct sync_merge_data merge = { .name = "syncway-render", .fd2 = fence };
	if (ioctl(sync->render_fence, SYNC_IOC_MERGE, &merge) == 0) {
		close(sync->render_fence);
		sync->render_fence = merge.fence;
	} else {
		/* The older jobs finish before this one on the same queue; with
		 * several queues this is the best left to do. */
		wlr_log_errno(WLR_ERROR, "explicit sync: SYNC_IOC_MERGE of render fences");
		close(sync->render_fence);
		sync->render_fence = dup(fence);
	}
	close(fence);
}

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

/* Only the oldest held commit of a surface has an eventfd: the commits
 * queued behind it cannot apply before it anyway, and one fd per surface
 * rather than per commit keeps a client that floods commits on unsignalled
 * points from exhausting the compositor's fds. */
static bool wait_arm(struct sw_acquire_wait *wait)
{
	struct sw_explicit_sync *sync = wait->sync;
	int event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (event_fd < 0) {
		wlr_log_errno(WLR_ERROR, "explicit sync: eventfd");
		return false;
	}
	/* flags 0: fire once the point is signalled, waiting for it to
	 * materialize first if needed (wait-before-submit). An already
	 * signalled point fires at once. */
	if (sw_syncobj_eventfd(sync->stats, sync->drm_fd, wait->timeline->handle, wait->point, 0,
			       event_fd) != 0) {
		wlr_log_errno(WLR_ERROR, "explicit sync: SYNCOBJ_EVENTFD for point %" PRIu64,
			      wait->point);
		close(event_fd);
		return false;
	}
	wait->source = wl_event_loop_add_fd(sync->server->loop, event_fd, WL_EVENT_READABLE,
					    handle_wait_ready, wait);
	if (!wait->source) {
		close(event_fd);
		return false;
	}
	/* The event loop polls a duplicate but hands this fd to the callback. */
	wait->event_fd = event_fd;
	wait->owner->armed++;
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
	if (wait->source) {
		wl_event_source_remove(wait->source);
		close(wait->event_fd);
		wait->owner->armed--;
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
static int handle_wait_ready(int fd, uint32_t mask, void *data)
{
	struct sw_acquire_wait *wait = data;
	struct sw_explicit_sync *sync = wait->sync;
	struct wlr_surface *surface = wait->surface;
	uint32_t seqs[64];
	size_t n = 0;
	uint64_t count;

	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		wlr_log_errno(WLR_ERROR, "explicit sync: reading an acquire eventfd");
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
		if (!wait_arm(next)) {
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
	return 0;
}

/* Why a client may not hold another commit, or NULL. A held commit costs a
 * cached state, a buffer lock and a wait; the first one of a surface also
 * an eventfd and libwayland's duplicate of it. Unbounded, one client could
 * take every fd the compositor has. */
static const char *over_cap(struct sw_explicit_sync *sync, const struct sw_sync_client *owner,
			    bool needs_eventfd, char *buf, size_t len)
{
	const struct sw_options *options = sync->server->options;
	if (options->max_held_commits > 0 && owner->held >= (size_t)options->max_held_commits) {
		snprintf(buf, len, "more than %d commits waiting on acquire points (--max-held-commits)",
			 options->max_held_commits);
		return buf;
	}
	if (needs_eventfd && options->max_waiting_surfaces > 0 &&
	    owner->armed >= (size_t)options->max_waiting_surfaces) {
		snprintf(buf, len, "more than %d surfaces with commits waiting on acquire points "
			 "(--max-waiting-surfaces)", options->max_waiting_surfaces);
		return buf;
	}
	return NULL;
}

/* false with *cap set when a cap forbids it, false with *cap NULL when the
 * compositor cannot wait (out of fds or memory). */
static bool wait_create(struct sw_explicit_sync *sync, struct wlr_surface *surface,
			struct sw_imported_timeline *timeline, uint64_t point, const char **cap,
			char *cap_buf, size_t cap_len)
{
	*cap = NULL;
	struct sw_sync_client *owner = sync_client_get(sync, wl_resource_get_client(surface->resource));
	if (!owner)
		return false;
	bool needs_eventfd = !surface_next_wait(sync, surface);
	if ((*cap = over_cap(sync, owner, needs_eventfd, cap_buf, cap_len)))
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
	if (needs_eventfd && !wait_arm(wait)) {
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

/* --- wp_linux_drm_syncobj_surface_v1 ------------------------------------- */

static void sync_surface_destroy(struct sw_sync_surface *ss)
{
	if (!ss)
		return;
	wl_list_remove(&ss->client_commit.link);
	wlr_addon_finish(&ss->addon);
	/* Discards points set since the last commit (the protocol allows it);
	 * committed ones live on in waits and release trackers. */
	wlr_surface_synced_finish(&ss->synced);
	wl_resource_set_user_data(ss->resource, NULL);
	free(ss);
}

static void sync_surface_handle_resource_destroy(struct wl_resource *resource)
{
	sync_surface_destroy(wl_resource_get_user_data(resource));
}

static void sync_surface_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void addon_handle_destroy(struct wlr_addon *addon)
{
	/* The wl_surface is going away; the protocol object stays, inert:
	 * its requests now raise no_surface. */
	struct sw_sync_surface *ss = wl_container_of(addon, ss, addon);
	sync_surface_destroy(ss);
}

static const struct wlr_addon_interface addon_impl = {
	.name = "syncway_linux_drm_syncobj_surface_v1",
	.destroy = addon_handle_destroy,
};

static struct sw_sync_surface *sync_surface_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wp_linux_drm_syncobj_surface_v1_interface,
				       &surface_impl));
	return wl_resource_get_user_data(resource);
}

static void set_point(struct wl_resource *resource, struct wl_resource *timeline_resource,
		      uint32_t point_hi, uint32_t point_lo, bool acquire)
{
	struct sw_sync_surface *ss = sync_surface_from_resource(resource);
	if (!ss) {
		wlr_log(WLR_ERROR, "explicit sync: set_%s_point on wp_linux_drm_syncobj_surface_v1@%u "
			"after its wl_surface was destroyed", acquire ? "acquire" : "release",
			wl_resource_get_id(resource));
		/* Inert resources reach no sw_explicit_sync, so this error is
		 * logged but not in counters.protocol_errors. */
		wl_resource_post_error(resource, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_SURFACE,
				       "set_%s_point: the wl_surface was destroyed",
				       acquire ? "acquire" : "release");
		return;
	}
	struct sw_imported_timeline *timeline = timeline_from_resource(timeline_resource);
	uint64_t point = (uint64_t)point_hi << 32 | point_lo;
	/* A second call in the same commit cycle replaces the first. */
	struct sw_imported_timeline **slot = acquire ? &ss->pending.acquire_timeline :
						       &ss->pending.release_timeline;
	timeline_ref(timeline);
	timeline_unref(*slot);
	*slot = timeline;
	if (acquire)
		ss->pending.acquire_point = point;
	else
		ss->pending.release_point = point;
}

static void sync_surface_handle_set_acquire_point(struct wl_client *client, struct wl_resource *resource,
						  struct wl_resource *timeline, uint32_t point_hi,
						  uint32_t point_lo)
{
	set_point(resource, timeline, point_hi, point_lo, true);
}

static void sync_surface_handle_set_release_point(struct wl_client *client, struct wl_resource *resource,
						  struct wl_resource *timeline, uint32_t point_hi,
						  uint32_t point_lo)
{
	set_point(resource, timeline, point_hi, point_lo, false);
}

static const struct wp_linux_drm_syncobj_surface_v1_interface surface_impl = {
	.destroy = sync_surface_handle_destroy,
	.set_acquire_point = sync_surface_handle_set_acquire_point,
	.set_release_point = sync_surface_handle_set_release_point,
};

/* Refuses the commit with a protocol error on the syncobj surface. The
 * client sees at most 127 bytes, so the log gets the same words with the
 * client's pid: strict errors kill real clients, and whoever debugs that
 * needs to know which commit and which point. */
static void reject(struct sw_sync_surface *ss, uint32_t code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void reject(struct sw_sync_surface *ss, uint32_t code, const char *fmt, ...)
{
	char msg[256];
	va_list args;
	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);

	pid_t pid = 0;
	wl_client_get_credentials(wl_resource_get_client(ss->resource), &pid, NULL, NULL);
	wlr_log(WLR_ERROR, "explicit sync: client pid %d: wp_linux_drm_syncobj_surface_v1@%u "
		"error %u: %s", (int)pid, wl_resource_get_id(ss->resource), code, msg);
	ss->sync->counters.protocol_errors++;
	wlr_surface_reject_pending(ss->surface, ss->resource, code, "%s", msg);
}

static bool buffer_supports_explicit_sync(struct wlr_buffer *buffer)
{
	/* linux-dmabuf buffers must be accepted; wl_shm ones are too, so that
	 * CPU-rendered clients can use release points instead of
	 * wl_buffer.release. */
	struct wlr_dmabuf_attributes dmabuf;
	struct wlr_shm_attributes shm;
	return wlr_buffer_get_dmabuf(buffer, &dmabuf) || wlr_buffer_get_shm(buffer, &shm);
}

static void handle_client_commit(struct wl_listener *listener, void *data)
{
	struct sw_sync_surface *ss = wl_container_of(listener, ss, client_commit);
	struct sw_explicit_sync *sync = ss->sync;
	struct wlr_surface *surface = ss->surface;
	const struct sw_sync_state *pending = &ss->pending;

	/* Someone else (xdg-shell, viewporter, wlroots itself) already
	 * refused this commit. */
	if (surface->pending_rejected)
		return;

	uint32_t surface_id = wl_resource_get_id(surface->resource);
	struct wlr_buffer *buffer = surface->pending.buffer;
	bool acquire = pending->acquire_timeline != NULL;
	bool release = pending->release_timeline != NULL;

	if (!buffer) {
		/* No buffer and no points is fine, attach(NULL) included. */
		if (acquire || release) {
			bool null_attach = surface->pending.committed & WLR_SURFACE_STATE_BUFFER;
			reject(ss, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_BUFFER,
			       "wl_surface@%u commit: %s set but %s", surface_id,
			       acquire && release ? "acquire and release points" : acquire ? "acquire point" : "release point",
			       null_attach ? "a NULL buffer attached" : "no buffer attached");
		}
		return;
	}
	if (!buffer_supports_explicit_sync(buffer)) {
		reject(ss, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_UNSUPPORTED_BUFFER,
		       "wl_surface@%u commit: buffer is neither linux-dmabuf nor wl_shm", surface_id);
		return;
	}
	if (!acquire) {
		reject(ss, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_ACQUIRE_POINT,
		       "wl_surface@%u commit: buffer attached but no acquire point set%s", surface_id,
		       release ? " (release point set)" : "");
		return;
	}
	if (!release) {
		reject(ss, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_RELEASE_POINT,
		       "wl_surface@%u commit: buffer attached, acquire point %" PRIu64
		       " set, no release point", surface_id, pending->acquire_point);
		return;
	}
	/* "Identical timelines" means the same timeline object: two imports
	 * of one syncobj are two objects. */
	if (pending->acquire_timeline == pending->release_timeline &&
	    pending->acquire_point >= pending->release_point) {
		reject(ss, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_CONFLICTING_POINTS,
		       "wl_surface@%u commit: acquire %" PRIu64 " >= release %" PRIu64
		       " on one timeline@%u", surface_id, pending->acquire_point,
		       pending->release_point, pending->acquire_timeline->resource_id);
		return;
	}

	sync->counters.commits++;
	struct wl_client *client = wl_resource_get_client(ss->resource);
	if (!release_create(sync, buffer, pending->release_timeline, pending->release_point)) {
		wl_client_post_no_memory(client);
		return;
	}

	struct sw_imported_timeline *timeline = pending->acquire_timeline;
	uint64_t point = pending->acquire_point;
	int ready = sw_syncobj_point_signalled(sync->stats, sync->drm_fd, timeline->handle, point);
	if (ready == 1) {
		sync->counters.acquire_ready++;
		sw_frame_stats_commit_acquired(sync->server->frame_stats, surface, surface->pending.seq,
					       sw_syncobj_now_ns(), false);
		return;
	}
	if (ready < 0)
		wlr_log(WLR_ERROR, "explicit sync: TIMELINE_WAIT on acquire point %" PRIu64
			" of timeline@%u: %s; waiting for it anyway", point, timeline->resource_id,
			strerror(-ready));
	const char *cap;
	char cap_buf[128];
	if (!wait_create(sync, surface, timeline, point, &cap, cap_buf, sizeof(cap_buf))) {
		/* The commit must not be applied unwaited; refusing it ends the
		 * client, which is better than showing a buffer mid-render. */
		pid_t pid = 0;
		wl_client_get_credentials(client, &pid, NULL, NULL);
		wlr_log(WLR_ERROR, "explicit sync: client pid %d: cannot wait for acquire point %" PRIu64
			" of timeline@%u on wl_surface@%u: %s", (int)pid, point, timeline->resource_id,
			surface_id, cap ? cap : "out of resources");
		if (cap)
			sync->counters.protocol_errors++;
		wlr_surface_reject_pending(surface, wl_client_get_object(client, 1),
					   WL_DISPLAY_ERROR_IMPLEMENTATION, "%s",
					   cap ? cap : "compositor cannot wait for the acquire point");
		return;
	}
	sync->counters.acquire_waited++;
}

/* --- wp_linux_drm_syncobj_manager_v1 -------------------------------------- */

static struct sw_explicit_sync *sync_from_manager(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wp_linux_drm_syncobj_manager_v1_interface,
				       &manager_impl));
	return wl_resource_get_user_data(resource);
}

static void manager_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	/* Surfaces and timelines do not depend on the manager object. */
	wl_resource_destroy(resource);
}

static void manager_handle_get_surface(struct wl_client *client, struct wl_resource *resource,
				       uint32_t id, struct wl_resource *surface_resource)
{
	struct sw_explicit_sync *sync = sync_from_manager(resource);
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);

	struct wlr_addon *existing = wlr_addon_find(&surface->addons, sync, &addon_impl);
	if (existing) {
		struct sw_sync_surface *other = wl_container_of(existing, other, addon);
		wlr_log(WLR_ERROR, "explicit sync: get_surface for wl_surface@%u, which already has "
			"wp_linux_drm_syncobj_surface_v1@%u", wl_resource_get_id(surface_resource),
			wl_resource_get_id(other->resource));
		sync->counters.protocol_errors++;
		wl_resource_post_error(resource, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_SURFACE_EXISTS,
				       "wl_surface@%u already has wp_linux_drm_syncobj_surface_v1@%u",
				       wl_resource_get_id(surface_resource),
				       wl_resource_get_id(other->resource));
		return;
	}

	struct sw_sync_surface *ss = calloc(1, sizeof(*ss));
	if (!ss) {
		wl_resource_post_no_memory(resource);
		return;
	}
	ss->resource = wl_resource_create(client, &wp_linux_drm_syncobj_surface_v1_interface,
					  wl_resource_get_version(resource), id);
	if (!ss->resource) {
		free(ss);
		wl_resource_post_no_memory(resource);
		return;
	}
	if (!wlr_surface_synced_init(&ss->synced, surface, &sync_state_impl, &ss->pending, &ss->current)) {
		wl_resource_destroy(ss->resource);
		free(ss);
		wl_resource_post_no_memory(resource);
		return;
	}
	ss->sync = sync;
	ss->surface = surface;
	wl_resource_set_implementation(ss->resource, &surface_impl, ss,
				       sync_surface_handle_resource_destroy);
	wlr_addon_init(&ss->addon, &surface->addons, sync, &addon_impl);
	ss->client_commit.notify = handle_client_commit;
	wl_signal_add(&surface->events.client_commit, &ss->client_commit);
}

static void manager_handle_import_timeline(struct wl_client *client, struct wl_resource *resource,
					   uint32_t id, int fd)
{
	struct sw_explicit_sync *sync = sync_from_manager(resource);
	uint32_t handle;
	int ret = sw_syncobj_fd_to_handle(sync->stats, sync->drm_fd, fd, &handle);
	/* The handle keeps the syncobj alive; the fd is not needed. */
	close(fd);
	if (ret != 0) {
		wlr_log(WLR_ERROR, "explicit sync: import_timeline for new id %u: fd is not a "
			"drm_syncobj: %s", id, strerror(-ret));
		sync->counters.protocol_errors++;
		wl_resource_post_error(resource, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_INVALID_TIMELINE,
				       "import_timeline: fd is not a drm_syncobj (%s)", strerror(-ret));
		return;
	}

	struct sw_imported_timeline *timeline = calloc(1, sizeof(*timeline));
	struct wl_resource *timeline_resource = timeline ?
		wl_resource_create(client, &wp_linux_drm_syncobj_timeline_v1_interface,
				   wl_resource_get_version(resource), id) : NULL;
	if (!timeline_resource) {
		free(timeline);
		sw_syncobj_destroy(sync->stats, sync->drm_fd, handle);
		wl_resource_post_no_memory(resource);
		return;
	}
	timeline->sync = sync;
	timeline->handle = handle;
	timeline->resource_id = id;
	timeline->refs = 1;
	sync->counters.timelines_imported++;
	sync->counters.timelines_live++;
	wl_resource_set_implementation(timeline_resource, &timeline_impl, timeline,
				       timeline_handle_resource_destroy);
}

static const struct wp_linux_drm_syncobj_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.get_surface = manager_handle_get_surface,
	.import_timeline = manager_handle_import_timeline,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct sw_explicit_sync *sync = data;
	struct wl_resource *resource =
		wl_resource_create(client, &wp_linux_drm_syncobj_manager_v1_interface, version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, sync, NULL);
}

/* --- lifetime ------------------------------------------------------------- */

struct sw_explicit_sync *sw_explicit_sync_create(struct sw_server *server)
{
	struct sw_explicit_sync *sync = calloc(1, sizeof(*sync));
	if (!sync)
		return NULL;
	sync->server = server;
	sync->drm_fd = server->drm_fd;
	sync->stats = &server->syncobj_stats;
	sync->release_after_frames = !server_renderer_is_pixman(server->renderer);
	sync->render_fence = -1;
	wl_list_init(&sync->queues);
	wl_list_init(&sync->clients);
	wl_list_init(&sync->releases);
	sync->global = wl_global_create(server->display, &wp_linux_drm_syncobj_manager_v1_interface,
					MANAGER_VERSION, sync, manager_bind);
	if (!sync->global) {
		free(sync);
		return NULL;
	}
	sync->frames_retired.notify = handle_frames_retired;
	wl_signal_add(&server->events.frames_retired, &sync->frames_retired);
	return sync;
}

void sw_explicit_sync_destroy(struct sw_explicit_sync *sync, struct sw_explicit_sync_counters *final)
{
	if (!sync)
		return;
	wl_list_remove(&sync->frames_retired.link);
	wl_global_destroy(sync->global);

	/* Clients are gone, so are their surfaces and the waits with them. */
	struct sw_wait_queue *queue, *queue_tmp;
	wl_list_for_each_safe(queue, queue_tmp, &sync->queues, link)
		queue_empty(sync, queue);
	/* Every client is gone, so their records freed themselves. */
	assert(wl_list_empty(&sync->clients));
	/* Nothing renders any more: released buffers' points can go now
	 * (on the render fence where there is one).
	 * Buffers still referenced (by what, at this point?) are dropped
	 * without a signal, since nothing guarantees they are unused. */
	size_t unreleased = 0;
	struct sw_release *release, *release_tmp;
	wl_list_for_each_safe(release, release_tmp, &sync->releases, link) {
		if (release->buffer) {
			unreleased++;
			release_destroy(release);
		} else {
			release_finish(release);
		}
	}
	if (unreleased)
		wlr_log(WLR_ERROR, "explicit sync: %zu buffer(s) still referenced at exit; "
			"their release points were not signalled", unreleased);
	if (sync->counters.timelines_live)
		wlr_log(WLR_ERROR, "explicit sync: %llu timeline(s) still referenced at exit",
			(unsigned long long)sync->counters.timelines_live);
	if (final)
		*final = sync->counters;
	if (sync->render_fence >= 0)
		close(sync->render_fence);
	free(sync);
}

void sw_explicit_sync_counters_print(FILE *f, const struct sw_explicit_sync_counters *c)
{
	fprintf(f, "syncway: explicit sync: %llu timelines imported (%llu alive), %llu commits "
		"(%llu ready at commit, %llu waited, %llu waits cancelled), %llu release points "
		"signalled (%llu on render fences, %llu after frames retired, %llu errors), "
		"%llu protocol errors\n",
		(unsigned long long)c->timelines_imported, (unsigned long long)c->timelines_live,
		(unsigned long long)c->commits, (unsigned long long)c->acquire_ready,
		(unsigned long long)c->acquire_waited, (unsigned long long)c->waits_cancelled,
		(unsigned long long)c->releases_signalled, (unsigned long long)c->releases_fenced,
		(unsigned long long)c->releases_deferred,
		(unsigned long long)c->release_errors, (unsigned long long)c->protocol_errors);
}

/* The JSON keys, in the order they are written. */
static const struct {
	const char *key;
	size_t offset;
} counter_keys[] = {
	{ "timelines_imported", offsetof(struct sw_explicit_sync_counters, timelines_imported) },
	{ "timelines_alive", offsetof(struct sw_explicit_sync_counters, timelines_live) },
	{ "commits", offsetof(struct sw_explicit_sync_counters, commits) },
	{ "acquire_ready", offsetof(struct sw_explicit_sync_counters, acquire_ready) },
	{ "acquire_waited", offsetof(struct sw_explicit_sync_counters, acquire_waited) },
	{ "waits_cancelled", offsetof(struct sw_explicit_sync_counters, waits_cancelled) },
	{ "releases_signalled", offsetof(struct sw_explicit_sync_counters, releases_signalled) },
	{ "releases_fenced", offsetof(struct sw_explicit_sync_counters, releases_fenced) },
	{ "releases_deferred", offsetof(struct sw_explicit_sync_counters, releases_deferred) },
	{ "release_errors", offsetof(struct sw_explicit_sync_counters, release_errors) },
	{ "protocol_errors", offsetof(struct sw_explicit_sync_counters, protocol_errors) },
};

void sw_explicit_sync_counters_write_json(FILE *f, const struct sw_explicit_sync_counters *c)
{
	for (size_t i = 0; i < sizeof(counter_keys) / sizeof(counter_keys[0]); i++) {
		const uint64_t *value = (const void *)((const char *)c + counter_keys[i].offset);
		fprintf(f, "%s\"%s\":%llu", i ? "," : "{", counter_keys[i].key,
			(unsigned long long)*value);
	}
	fputc('}', f);
}
