/* linux-drm-syncobj-v1: the protocol objects (manager, timelines, syncobj
 * surfaces), the double-buffered points and commit validation; the
 * compositor's creation and teardown, its counters. The CPU wait for
 * acquire points is acquire_wait.c's, the release points release.c's.
 *
 * The path of one commit (see docs/compositor.md):
 *   client_commit: validate the pending points (errors go to the
 *     wp_linux_drm_syncobj_surface_v1); attach a release tracker to the
 *     buffer; ask the kernel once, without blocking, whether the acquire point
 *     is signalled (TIMELINE_WAIT, WAIT_FOR_SUBMIT, timeout 0).
 *   not signalled (or not even submitted): lock the pending state so wlroots
 *     caches it, and every later commit queues behind it in order; an eventfd
 *     registered with SYNCOBJ_EVENTFD (flags 0: signalled, which also covers
 *     points that materialize later) wakes the event loop, which unlocks
 *     (acquire_wait.c).
 *   the buffer's last user lets go (wlr_buffer "release": texture destroyed,
 *     scanout flipped away, surface gone, or never shown at all): with
 *     pixman, which has read it by then, TIMELINE_SIGNAL the release point
 *     from the CPU; with a GPU renderer, import the fence of the render jobs
 *     submitted so far into the release point, so that it signals when the
 *     GPU is done reading (render_fence, release.c).
 * Points travel with their commit as wlr_surface_synced state, so they are
 * double-buffered like the rest of wl_surface state. All ioctls go through
 * common/syncobj.c and are accounted in server->syncobj_stats. */
#include "explicit_sync.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "acquire_wait.h"
#include "explicit_sync_internal.h"
#include "frame_stats.h"
#include "linux-drm-syncobj-v1-protocol.h"
#include "release.h"
#include "renderer.h"
#include "server.h"
#include "syncobj.h"

#define MANAGER_VERSION 1

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

static const struct wp_linux_drm_syncobj_manager_v1_interface manager_impl;
static const struct wp_linux_drm_syncobj_timeline_v1_interface timeline_impl;
static const struct wp_linux_drm_syncobj_surface_v1_interface surface_impl;

/* --- timelines -------------------------------------------------------- */

struct sw_imported_timeline *timeline_ref(struct sw_imported_timeline *timeline)
{
	if (timeline)
		timeline->refs++;
	return timeline;
}

void timeline_unref(struct sw_imported_timeline *timeline)
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
	char cap_buf[192];
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
	if (sync->release_after_frames &&
	    sw_syncobj_create(sync->stats, sync->drm_fd, 0, &sync->render_syncobj) != 0) {
		/* Releases then import through a temporary syncobj each. */
		wlr_log_errno(WLR_ERROR, "explicit sync: cannot create the render fence's syncobj");
		sync->render_syncobj = 0;
	}
	wl_list_init(&sync->clients);
	wl_list_init(&sync->releases);
	if (!release_trackers_init(sync))
		goto error_syncobj;
	if (!wait_queues_init(sync))
		goto error_releases;
	sync->global = wl_global_create(server->display, &wp_linux_drm_syncobj_manager_v1_interface,
					MANAGER_VERSION, sync, manager_bind);
	if (!sync->global) {
		wait_queues_finish(sync);
		goto error_releases;
	}
	sync->frames_retired.notify = handle_frames_retired;
	wl_signal_add(&server->events.frames_retired, &sync->frames_retired);
	return sync;

error_releases:
	release_trackers_finish(sync);
error_syncobj:
	if (sync->render_syncobj)
		sw_syncobj_destroy(sync->stats, sync->drm_fd, sync->render_syncobj);
	free(sync);
	return NULL;
}

void sw_explicit_sync_destroy(struct sw_explicit_sync *sync, struct sw_explicit_sync_counters *final)
{
	if (!sync)
		return;
	wl_list_remove(&sync->frames_retired.link);
	wl_global_destroy(sync->global);

	/* Clients are gone, so are their surfaces and the waits with them. */
	wait_queues_finish(sync);
	/* Every client is gone, so their records freed themselves. */
	assert(wl_list_empty(&sync->clients));
	release_trackers_finish(sync);
	if (sync->counters.timelines_live)
		wlr_log(WLR_ERROR, "explicit sync: %llu timeline(s) still referenced at exit",
			(unsigned long long)sync->counters.timelines_live);
	if (final)
		*final = sync->counters;
	if (sync->render_fence >= 0)
		close(sync->render_fence);
	if (sync->render_syncobj)
		sw_syncobj_destroy(sync->stats, sync->drm_fd, sync->render_syncobj);
	free(sync);
}

void sw_explicit_sync_counters_print(FILE *f, const struct sw_explicit_sync_counters *c)
{
	fprintf(f, "syncway: explicit sync: %llu timelines imported (%llu alive), %llu commits "
		"(%llu ready at commit, %llu waited, %llu waits cancelled), %llu release points "
		"signalled (%llu on render fences, %llu with every render job done, %llu after frames "
		"retired, %llu errors), "
		"%llu protocol errors, %llu waits polled, %llu clients cut off by the fd budget\n",
		(unsigned long long)c->timelines_imported, (unsigned long long)c->timelines_live,
		(unsigned long long)c->commits, (unsigned long long)c->acquire_ready,
		(unsigned long long)c->acquire_waited, (unsigned long long)c->waits_cancelled,
		(unsigned long long)c->releases_signalled, (unsigned long long)c->releases_fenced,
		(unsigned long long)c->releases_idle, (unsigned long long)c->releases_deferred,
		(unsigned long long)c->release_errors, (unsigned long long)c->protocol_errors,
		(unsigned long long)c->waits_polled, (unsigned long long)c->clients_cut_off);
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
	{ "releases_idle", offsetof(struct sw_explicit_sync_counters, releases_idle) },
	{ "releases_deferred", offsetof(struct sw_explicit_sync_counters, releases_deferred) },
	{ "release_errors", offsetof(struct sw_explicit_sync_counters, release_errors) },
	{ "protocol_errors", offsetof(struct sw_explicit_sync_counters, protocol_errors) },
	{ "waits_polled", offsetof(struct sw_explicit_sync_counters, waits_polled) },
	{ "clients_cut_off", offsetof(struct sw_explicit_sync_counters, clients_cut_off) },
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
