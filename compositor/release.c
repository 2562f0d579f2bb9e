/* linux-drm-syncobj-v1: the release points. Each accepted commit gets a
 * release tracker on its buffer; once wlroots lets the buffer go, the
 * release point is signalled from the CPU (pixman) or takes the fence of
 * the render jobs submitted so far (GPU renderers), after the frames that
 * had no fence have retired. The render fence is collected here too, frame
 * by frame while a release tracker exists (sw_explicit_sync_frame_rendered);
 * a frame rendered while none does reads no buffer with a pending release
 * point, and its fence is taken only when a tracker comes. */
#include "release.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>

#include "explicit_sync_internal.h"
#include "server.h"
#include "syncobj.h"

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

/* The render fence into release's point: one FD_TO_HANDLE where the kernel
 * imports at a point (and while syncway finds out whether it does).
 * Otherwise the fence goes into syncway's binary syncobj once per render
 * fence, and each point takes it with a TRANSFER: two calls a release, or
 * one when several share a frame, where the helper's temporary syncobj
 * cost four. */
static int release_import(struct sw_explicit_sync *sync, struct sw_release *release)
{
	uint32_t timeline = release->timeline->handle;
	enum sw_syncobj_point_import way = sw_syncobj_point_import_way();
	if (way == SW_POINT_IMPORT_ONE_CALL && sync->render_syncobj) {
		/* Not needed on this kernel after all. */
		sw_syncobj_destroy(sync->stats, sync->drm_fd, sync->render_syncobj);
		sync->render_syncobj = 0;
	}
	if (way == SW_POINT_IMPORT_ONE_CALL || way == SW_POINT_IMPORT_PROBE || !sync->render_syncobj)
		return sw_syncobj_point_import_sync_file(sync->stats, sync->drm_fd, timeline,
							 release->point, sync->render_fence);
	if (sync->render_syncobj_seq != sync->render_fence_seq) {
		int ret = sw_syncobj_import_sync_file(sync->stats, sync->drm_fd, sync->render_syncobj,
						      sync->render_fence);
		if (ret != 0)
			return ret;
		sync->render_syncobj_seq = sync->render_fence_seq;
	}
	return sw_syncobj_transfer(sync->stats, sync->drm_fd, timeline, release->point,
				   sync->render_syncobj, 0, 0);
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
		if (sync->render_fence_seq > 0) /* there was one: closed, signalled */
			sync->counters.releases_idle++;
		release_signal(release);
		return;
	}
	if (release_import(sync, release) != 0) {
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

void handle_frames_retired(struct wl_listener *listener, void *data)
{
	struct sw_explicit_sync *sync = wl_container_of(listener, sync, frames_retired);
	uint64_t retired = server_frames_retired(sync->server);
	struct sw_release *release, *tmp;
	wl_list_for_each_safe(release, tmp, &sync->releases, link) {
		if (!release->buffer && release->barrier <= retired)
			release_finish(release);
	}
}

static void collect_stale_fence(struct sw_explicit_sync *sync);

bool release_create(struct sw_explicit_sync *sync, struct wlr_buffer *buffer,
		    struct sw_imported_timeline *timeline, uint64_t point)
{
	struct sw_release *release = calloc(1, sizeof(*release));
	if (!release)
		return false;
	/* The frames rendered before this commit while no tracker existed may
	 * have read this buffer (committed again, earlier without a release
	 * point): their fence joins the render fence before any release can
	 * take it. */
	collect_stale_fence(sync);
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

/* How often a render fence is looked at to see whether it can go. */
#define RENDER_FENCE_TICK_MS 1000

/* fence (owned) becomes the render fence. */
static void render_fence_replace(struct sw_explicit_sync *sync, int fence)
{
	/* The timer runs while there is a render fence: armed here when
	 * there was none, re-armed by each tick while there is one. */
	if (sync->render_fence >= 0)
		close(sync->render_fence);
	else
		wl_event_source_timer_update(sync->render_fence_timer, RENDER_FENCE_TICK_MS);
	sync->render_fence = fence;
	sync->render_fence_seq++;
}

/* Once no release point waits and every job the render fence covers is
 * done, the fence says no more than none: closing it leaves an idle
 * syncway without a sync_file of its clients' time, so that their leak
 * checks see its fds come back. While releases wait it stays, so that
 * they take it rather than a signal from the CPU; the releases that come
 * before the next fenced frame are the CPU's (releases_idle). */
static int handle_render_fence_tick(void *data)
{
	struct sw_explicit_sync *sync = data;
	struct pollfd pfd = { .fd = sync->render_fence, .events = POLLIN };
	if (sync->render_fence >= 0 && wl_list_empty(&sync->releases) && poll(&pfd, 1, 0) == 1) {
		close(sync->render_fence);
		sync->render_fence = -1;
	}
	if (sync->render_fence >= 0)
		wl_event_source_timer_update(sync->render_fence_timer, RENDER_FENCE_TICK_MS);
	return 0;
}

bool release_trackers_init(struct sw_explicit_sync *sync)
{
	sync->render_fence = -1;
	sync->render_fence_timer = wl_event_loop_add_timer(sync->server->loop,
							   handle_render_fence_tick, sync);
	return sync->render_fence_timer != NULL;
}

void release_trackers_finish(struct sw_explicit_sync *sync)
{
	wl_event_source_remove(sync->render_fence_timer);
	/* The swapchains may outlive this: no listener on their buffers. */
	if (sync->stale_target) {
		wl_list_remove(&sync->stale_target_destroy.link);
		sync->stale_target = NULL;
	}
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
}

/* A fence that signals when the writes to buffer are done, or -1. The same
 * poll() looks at older (the render fence so far, or -1): *older_done says
 * whether it has signalled. */
static int buffer_write_fence(struct wlr_buffer *buffer, int older, bool *older_done,
			      const char **why)
{
	/* The fences a reader waits for are the writers': DMA_BUF_SYNC_READ
	 * asks for exactly those. */
	struct wlr_dmabuf_attributes dmabuf;
	struct dma_buf_export_sync_file export = { .flags = DMA_BUF_SYNC_READ, .fd = -1 };
	*older_done = false;
	if (!wlr_buffer_get_dmabuf(buffer, &dmabuf)) {
		*why = "the render target is not a dmabuf";
		return -1;
	}
	if (ioctl(dmabuf.fd[0], DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &export) != 0) {
		*why = strerror(errno);
		return -1;
	}
	/* poll() skips an fd of -1. */
	struct pollfd pfd[2] = {
		{ .fd = export.fd, .events = POLLIN },
		{ .fd = older, .events = POLLIN },
	};
	if (poll(pfd, 2, 0) < 0 || pfd[0].revents != 0) {
		*why = "its fence was signalled when the frame was submitted";
		close(export.fd);
		return -1;
	}
	*older_done = older >= 0 && (pfd[1].revents & POLLIN);
	return export.fd;
}

/* Takes the fence of the frame numbered frame, which rendered into
 * target, into the render fence; fresh: the frame was submitted just now,
 * so a fence already signalled means that the renderer fences nothing. */
static void collect_fence(struct sw_explicit_sync *sync, struct wlr_buffer *target, uint64_t frame,
			  bool fresh)
{
	const char *why = NULL;
	bool older_done;
	int fence = buffer_write_fence(target, sync->render_fence, &older_done, &why);
	if (fence < 0) {
		/* Done already or never fenced: nothing but the frame's
		 * retiring tells those apart for an older frame. */
		if (sync->unfenced_frame < frame)
			sync->unfenced_frame = frame;
		if (fresh && !sync->unfenced_logged)
			wlr_log(WLR_INFO, "explicit sync: a frame without a render fence (%s): "
				"releases after it wait for it to be presented", why);
		sync->unfenced_logged |= fresh;
		return;
	}
	/* With the jobs before it done, this frame's fence is the whole
	 * render fence: no merge, no new sync_file (most frames, since the
	 * one before has usually finished by the next one's submission). */
	if (sync->render_fence < 0 || older_done) {
		render_fence_replace(sync, fence);
		return;
	}
	/* Merging keeps the newest fence per GPU context and drops signalled
	 * ones, so the merged fence stays small however long syncway runs, and
	 * covers every queue a frame was rendered on. */
	struct sync_merge_data merge = { .name = "syncway-render", .fd2 = fence };
	if (ioctl(sync->render_fence, SYNC_IOC_MERGE, &merge) == 0) {
		render_fence_replace(sync, merge.fence);
		close(fence);
	} else {
		/* The older jobs finish before this one on the same queue; with
		 * several queues this is the best left to do. */
		wlr_log_errno(WLR_ERROR, "explicit sync: SYNC_IOC_MERGE of render fences");
		render_fence_replace(sync, fence);
	}
}

static void stale_target_forget(struct sw_explicit_sync *sync)
{
	wl_list_remove(&sync->stale_target_destroy.link);
	sync->stale_target = NULL;
}

/* The deferred fence of the newest frame rendered without a tracker joins
 * the render fence. The renderer submits to one queue in order, so that
 * frame's fence also covers the untracked frames before it. */
static void collect_stale_fence(struct sw_explicit_sync *sync)
{
	struct wlr_buffer *target = sync->stale_target;
	if (!target)
		return;
	stale_target_forget(sync);
	collect_fence(sync, target, sync->stale_frame, false);
}

static void handle_stale_target_destroy(struct wl_listener *listener, void *data)
{
	/* The swapchain lets its buffer go (a new mode, the output gone): its
	 * dmabuf is still there while the destroy event runs. */
	struct sw_explicit_sync *sync = wl_container_of(listener, sync, stale_target_destroy);
	collect_stale_fence(sync);
}

void sw_explicit_sync_frame_rendered(struct sw_explicit_sync *sync, struct wlr_buffer *target)
{
	if (!sync->release_after_frames)
		return;
	/* The frame being committed gets the next number. */
	uint64_t frame = sync->server->frames_committed + 1;
	if (wl_list_empty(&sync->releases)) {
		/* No buffer with a pending release point to read: its fence
		 * (an export, a poll, a merge, two closes a frame; the cost is
		 * in docs/peers.md) waits until a tracker comes, and a newer
		 * frame's target replaces this one. */
		if (sync->stale_target != target) {
			if (sync->stale_target)
				stale_target_forget(sync);
			sync->stale_target = target;
			sync->stale_target_destroy.notify = handle_stale_target_destroy;
			wl_signal_add(&target->events.destroy, &sync->stale_target_destroy);
		}
		sync->stale_frame = frame;
		return;
	}
	collect_stale_fence(sync);
	collect_fence(sync, target, frame, true);
}
