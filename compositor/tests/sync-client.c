/* sync-client: a small linux-drm-syncobj-v1 client for smoke-testing
 * syncway (not a demo: the real clients live in clients/).
 *
 * It renders a changing colour with the CPU into wl_shm buffers or into
 * dmabufs made from dumb buffers, signals the acquire point from the CPU,
 * and reuses a buffer only once its release point is signalled: it never
 * looks at wl_buffer.release (it only counts them). Each buffer has its own
 * release timeline, as the protocol recommends.
 *
 * Checks, each reported and reflected in the exit status:
 *   - no frame is presented before its acquire point was signalled
 *     (presentation feedback vs. the client's own clock), which also covers
 *     --wait-before-submit (commit first, materialize+signal later);
 *   - buffers come back: a release wait longer than 2 s is a failure;
 *   - at the end, after the wl_surface (or only the syncobj surface) is
 *     destroyed, every release point handed out is signalled.
 *
 * Connection, window, buffers, timelines and presentation feedback come
 * from the client library (clients/); what is its own is the checks.
 *
 * usage: sync-client [--frames N] [--buffers N] [--dmabuf] [--size WxH]
 *        [--wait-before-submit MS] [--unthrottled] [--high-points]
 *        [--end surface|syncobj|waiting] [--no-sync] [--queue]
 * --queue (with --wait-before-submit): right behind each waiting commit, one
 * whose acquire point is already signalled; it must not overtake.
 * --end waiting: a last commit whose acquire point is only signalled after
 * the wl_surface was destroyed (the compositor must cancel that wait).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xf86drm.h>

#include "buffer.h"
#include "display.h"
#include "drm_device.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "present.h"
#include "syncobj.h"
#include "timeline.h"
#include "window.h"

#define MAX_BUFFERS 8
#define RELEASE_TIMEOUT_NS 2000000000LL
/* Presentation timestamps are vblank times the kernel may extrapolate from a
 * coarse clock tick: only an image shown clearly before its acquire point
 * counts as a violation. --wait-before-submit delays the signal well beyond
 * this. */
#define EARLY_TOLERANCE_NS 5000000LL

struct client {
	struct sw_display *d;
	struct sw_window window;
	/* A frame's acquire_ns is when the client signalled its acquire point;
	 * 0 while the commit waits behind an unsignalled point (it may not
	 * show before that signal, commits being applied in order). */
	struct sw_present present;
	struct wp_linux_drm_syncobj_surface_v1 *sync_surface;
	bool frame_done;
	struct wl_callback *frame_cb;

	int drm_fd;  /* render node: syncobjs */
	int card_fd; /* primary node: dumb buffers */
	struct sw_syncobj_stats stats;
	uint64_t point_base;
	struct sw_timeline *acquire;
	/* --queue: signalling a later point of the same timeline would signal
	 * the waiting one too, so queued commits use their own timeline. */
	struct sw_timeline *queue_timeline;

	struct sw_buffer *buffers[MAX_BUFFERS];
	int n_buffers;
	int width, height;

	/* options */
	int frames;
	bool use_dmabuf, unthrottled, no_sync, end_syncobj_only, end_waiting;
	int wait_before_submit_ms;
	bool queue; /* a ready commit right behind each waiting one */

	/* wait-before-submit: the acquire point committed but not yet signalled */
	int timer_fd;
	uint64_t unsignalled_point;

	/* results */
	uint64_t committed, early;
	uint64_t blocked_waits;
	int64_t max_wait_ns;
	int failures;
};

static void fail(struct client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct client *c, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("sync-client: FAIL: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	c->failures++;
}

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct client *c = data;
	c->frame_done = true;
	c->frame_cb = NULL;
	wl_callback_destroy(cb);
}
static const struct wl_callback_listener frame_listener = { .done = frame_done };

/* The check of every presented frame: not before its acquire point. */
static void frame_settled(void *data, struct sw_frame *fr)
{
	struct client *c = data;
	if (!fr->presented || c->no_sync)
		return;
	if (fr->acquire_ns == 0 || fr->present_ns < fr->acquire_ns - EARLY_TOLERANCE_NS) {
		c->early++;
		fail(c, "frame %" PRIu64 " presented at %" PRId64 " ns, before its acquire point was "
		     "signalled (%" PRId64 ")", fr->seq, fr->present_ns, fr->acquire_ns);
	}
}

static struct sw_timeline *new_timeline(struct client *c)
{
	struct sw_timeline *t = sw_timeline_create(c->d->syncobj_manager, c->drm_fd, &c->stats);
	if (!t)
		sw_die("cannot create a timeline syncobj: %s", strerror(errno));
	t->point = c->point_base;
	return t;
}

/* A buffer whose release point is signalled (or that was never used);
 * blocks (bounded) when all are still with the compositor. */
static struct sw_buffer *next_buffer(struct client *c)
{
	uint32_t handles[MAX_BUFFERS];
	uint64_t points[MAX_BUFFERS];
	int n = 0;
	for (int i = 0; i < c->n_buffers; i++) {
		struct sw_buffer *b = c->buffers[i];
		if (b->release_point == 0)
			return b;
		if (c->no_sync)
			continue;
		if (sw_timeline_signalled(b->release, b->release_point) == 1)
			return b;
		handles[n] = b->release->handle;
		points[n] = b->release_point;
		n++;
	}
	if (c->no_sync)
		return c->buffers[c->committed % c->n_buffers];

	c->blocked_waits++;
	int64_t start = sw_syncobj_now_ns();
	uint32_t first = 0;
	int ret = sw_syncobj_timeline_wait(&c->stats, c->drm_fd, handles, points, n,
					   sw_syncobj_timeout_abs(RELEASE_TIMEOUT_NS),
					   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, &first);
	int64_t waited = sw_syncobj_now_ns() - start;
	if (waited > c->max_wait_ns)
		c->max_wait_ns = waited;
	if (ret) {
		fail(c, "no release point signalled within %lld ms (%s)",
		     RELEASE_TIMEOUT_NS / 1000000, strerror(-ret));
		return NULL;
	}
	for (int i = 0; i < c->n_buffers; i++)
		if (c->buffers[i]->release->handle == handles[first])
			return c->buffers[i];
	return NULL;
}

static void signal_acquire(struct client *c, uint64_t point)
{
	int ret = sw_timeline_signal(c->acquire, &c->stats, point);
	if (ret)
		sw_die("TIMELINE_SIGNAL acquire point %" PRIu64 ": %s", point, strerror(-ret));
}

static bool draw_and_commit(struct client *c)
{
	struct sw_buffer *b = next_buffer(c);
	if (!b)
		return false;

	/* "Rendering": a colour cycling with the frame number. */
	uint32_t colour = 0xff000000 | ((c->committed * 7) & 0xff) << 16 |
			  ((c->committed * 3) & 0xff) << 8 | (255 - (c->committed & 0xff));
	sw_buffer_fill(b, colour);

	struct sw_frame *fr = sw_present_track(&c->present, c->window.surface, c->committed);
	if (!c->no_sync) {
		struct sw_timeline *timeline = c->acquire;
		uint64_t acquire;
		sw_buffer_take_release(b);
		if (c->unsignalled_point) {
			/* Queued behind a waiting commit (--queue). */
			timeline = c->queue_timeline;
			acquire = ++timeline->point;
			int ret = sw_timeline_signal(timeline, &c->stats, acquire);
			if (ret)
				sw_die("TIMELINE_SIGNAL: %s", strerror(-ret));
		} else if (c->wait_before_submit_ms > 0) {
			/* Commit first; the point materializes (and signals) later. */
			acquire = ++timeline->point;
			c->unsignalled_point = acquire;
			struct itimerspec its = {
				.it_value = { .tv_sec = c->wait_before_submit_ms / 1000,
					      .tv_nsec = (c->wait_before_submit_ms % 1000) * 1000000L },
			};
			timerfd_settime(c->timer_fd, 0, &its, NULL);
		} else {
			acquire = ++timeline->point;
			/* Read before signalling: the compositor may present the
			 * frame before this process runs again, so only a time
			 * taken before the ioctl is a sound lower bound. */
			if (fr)
				fr->acquire_ns = sw_display_now_ns(c->d);
			signal_acquire(c, acquire);
		}
		wp_linux_drm_syncobj_surface_v1_set_acquire_point(c->sync_surface, timeline->proxy,
								  acquire >> 32, acquire & 0xffffffff);
		wp_linux_drm_syncobj_surface_v1_set_release_point(c->sync_surface, b->release->proxy,
								  b->release_point >> 32,
								  b->release_point & 0xffffffff);
	} else {
		b->release_point = 1;
	}

	wl_surface_attach(c->window.surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(c->window.surface, 0, 0, c->width, c->height);
	if (!c->unthrottled) {
		c->frame_done = false;
		c->frame_cb = wl_surface_frame(c->window.surface);
		wl_callback_add_listener(c->frame_cb, &frame_listener, c);
	}
	wl_surface_commit(c->window.surface);
	c->committed++;
	return true;
}

/* Dispatches Wayland events and the wait-before-submit timer for up to
 * timeout_ms (-1: until something happens). */
static bool dispatch(struct client *c, int timeout_ms)
{
	struct wl_display *display = c->d->display;
	while (wl_display_prepare_read(display) != 0)
		wl_display_dispatch_pending(display);
	if (wl_display_flush(display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(display);
		return false;
	}
	struct pollfd fds[2] = {
		{ .fd = wl_display_get_fd(display), .events = POLLIN },
		{ .fd = c->timer_fd, .events = POLLIN },
	};
	int ret = poll(fds, 2, timeout_ms);
	if (ret > 0 && (fds[0].revents & POLLIN)) {
		if (wl_display_read_events(display) < 0)
			return false;
	} else {
		wl_display_cancel_read(display);
	}
	if (fds[1].revents & POLLIN) {
		uint64_t n;
		if (read(c->timer_fd, &n, sizeof(n)) < 0)
			sw_die("timerfd: %s", strerror(errno));
		int64_t now = sw_display_now_ns(c->d); /* before: see draw_and_commit() */
		signal_acquire(c, c->unsignalled_point);
		struct sw_frame *fr;
		wl_list_for_each(fr, &c->present.frames, link)
			if (!fr->acquire_ns)
				fr->acquire_ns = now;
		c->unsignalled_point = 0;
	}
	return wl_display_dispatch_pending(display) >= 0;
}

static void usage(void)
{
	fputs("usage: sync-client [--frames N] [--buffers N] [--dmabuf] [--size WxH]\n"
	      "                   [--wait-before-submit MS] [--unthrottled] [--high-points]\n"
	      "                   [--end surface|syncobj|waiting] [--no-sync] [--queue]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	struct client c = {
		.frames = 120,
		.n_buffers = 3,
		.width = 256,
		.height = 256,
		.drm_fd = -1,
		.card_fd = -1,
	};
	static const struct option longopts[] = {
		{ "frames", required_argument, NULL, 'f' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "dmabuf", no_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "wait-before-submit", required_argument, NULL, 'w' },
		{ "unthrottled", no_argument, NULL, 'u' },
		{ "high-points", no_argument, NULL, 'H' },
		{ "end", required_argument, NULL, 'e' },
		{ "no-sync", no_argument, NULL, 'n' },
		{ "queue", no_argument, NULL, 'q' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': c.frames = atoi(optarg); break;
		case 'b': c.n_buffers = atoi(optarg); break;
		case 'd': c.use_dmabuf = true; break;
		case 's':
			if (sscanf(optarg, "%dx%d", &c.width, &c.height) != 2)
				usage();
			break;
		case 'w': c.wait_before_submit_ms = atoi(optarg); break;
		case 'u': c.unthrottled = true; break;
		case 'H': c.point_base = (1ull << 32) + 1000; break;
		case 'e':
			if (strcmp(optarg, "syncobj") == 0)
				c.end_syncobj_only = true;
			else if (strcmp(optarg, "waiting") == 0)
				c.end_waiting = true;
			else if (strcmp(optarg, "surface") != 0)
				usage();
			break;
		case 'n': c.no_sync = true; break;
		case 'q': c.queue = true; break;
		default: usage();
		}
	}
	if (c.frames < 1 || c.n_buffers < 1 || c.n_buffers > MAX_BUFFERS || c.width < 1 || c.height < 1)
		usage();

	c.d = sw_display_create(NULL);
	if (!c.d)
		sw_die("cannot connect to WAYLAND_DISPLAY=%s", getenv("WAYLAND_DISPLAY"));
	if (!c.d->compositor || !c.d->wm_base || !c.d->shm)
		sw_die("the compositor lacks wl_compositor, xdg_wm_base or wl_shm");
	if (!c.no_sync && !c.d->syncobj_manager)
		sw_die("the compositor does not offer wp_linux_drm_syncobj_manager_v1");
	if (c.use_dmabuf && !c.d->dmabuf)
		sw_die("the compositor does not offer zwp_linux_dmabuf_v1 (version 3+)");
	sw_present_init(&c.present, c.d);
	c.present.frame_done = frame_settled;
	c.present.data = &c;

	char err[256];
	c.drm_fd = sw_drm_open_render_node(err, sizeof(err));
	if (c.drm_fd < 0 && !c.no_sync)
		sw_die("%s", err);
	if (c.use_dmabuf) {
		c.card_fd = sw_buffer_open_card(c.drm_fd, err, sizeof(err));
		if (c.card_fd < 0)
			sw_die("no primary DRM node for dumb buffers: %s", err);
	}
	c.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	sw_window_init(&c.window, c.d, "sync-client");
	if (!c.no_sync) {
		c.sync_surface = wp_linux_drm_syncobj_manager_v1_get_surface(c.d->syncobj_manager,
									     c.window.surface);
		c.acquire = new_timeline(&c);
		if (c.queue)
			c.queue_timeline = new_timeline(&c);
	}
	enum sw_buffer_type type = c.use_dmabuf ? SW_BUFFER_DMABUF : SW_BUFFER_SHM;
	for (int i = 0; i < c.n_buffers; i++) {
		struct sw_timeline *release = c.no_sync ? NULL : new_timeline(&c);
		c.buffers[i] = sw_buffer_create(c.d, type, c.card_fd, DRM_FORMAT_XRGB8888, c.width,
						c.height, release);
		if (!c.buffers[i])
			sw_die("cannot create a %s buffer: %s", sw_buffer_type_name(type), strerror(errno));
	}
	wl_surface_commit(c.window.surface);
	while (!c.window.configured)
		if (!dispatch(&c, -1))
			sw_die("connection lost before the first configure");

	int64_t start = sw_syncobj_now_ns();
	c.frame_done = true;
	while ((int)c.committed < c.frames && !c.window.closed && c.failures == 0) {
		/* One commit at a time with wait-before-submit, so that each
		 * acquire point gets its own timer. */
		bool ready = (c.unthrottled || c.frame_done) && c.unsignalled_point == 0;
		if (ready) {
			if (!draw_and_commit(&c))
				break;
			if (c.queue && c.unsignalled_point && (int)c.committed < c.frames &&
			    !draw_and_commit(&c))
				break;
			if (!dispatch(&c, 0))
				sw_die("connection lost (protocol error?)");
		} else if (!dispatch(&c, 1000)) {
			sw_die("connection lost (protocol error?)");
		}
	}
	/* Let the last frames reach the screen. */
	for (int i = 0; i < 50 && c.present.presented + c.present.discarded < c.committed; i++)
		if (!dispatch(&c, 20))
			sw_die("connection lost");
	double secs = (double)(sw_syncobj_now_ns() - start) / 1e9;

	/* The end: take the surface (or just its syncobj object) away; every
	 * release point handed out must then be signalled. */
	if (!c.no_sync) {
		if (c.end_waiting) {
			/* One more commit whose acquire point is not signalled
			 * before the surface goes: the compositor must drop the
			 * wait (and still release the buffer). */
			c.wait_before_submit_ms = 3600 * 1000;
			if (!draw_and_commit(&c))
				sw_die("no buffer for the last commit");
			if (wl_display_roundtrip(c.d->display) < 0)
				sw_die("connection lost (protocol error?)");
		}
		if (c.end_syncobj_only) {
			wp_linux_drm_syncobj_surface_v1_destroy(c.sync_surface);
			/* Without the object, a plain NULL commit must be fine. */
			wl_surface_attach(c.window.surface, NULL, 0, 0);
			wl_surface_commit(c.window.surface);
		} else {
			sw_window_finish(&c.window);
		}
		if (wl_display_roundtrip(c.d->display) < 0)
			sw_die("connection lost at the end (protocol error?)");
		if (c.unsignalled_point) {
			/* Now, after the compositor forgot about it. */
			timerfd_settime(c.timer_fd, 0, &(struct itimerspec){ 0 }, NULL);
			signal_acquire(&c, c.unsignalled_point);
			c.unsignalled_point = 0;
		}
		uint32_t handles[MAX_BUFFERS];
		uint64_t points[MAX_BUFFERS];
		int n = 0;
		for (int i = 0; i < c.n_buffers; i++) {
			if (c.buffers[i]->release_point) {
				handles[n] = c.buffers[i]->release->handle;
				points[n] = c.buffers[i]->release_point;
				n++;
			}
		}
		int ret = n ? sw_syncobj_timeline_wait(&c.stats, c.drm_fd, handles, points, n,
						       sw_syncobj_timeout_abs(RELEASE_TIMEOUT_NS),
						       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
						       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL) : 0;
		if (ret)
			fail(&c, "after destroying the %s, not every release point was signalled "
			     "within 2 s (%s)", c.end_syncobj_only ? "syncobj surface" : "wl_surface",
			     strerror(-ret));
		else
			fprintf(stderr, "sync-client: all %d last release points signalled after the "
				"%s was destroyed\n", n, c.end_syncobj_only ? "syncobj surface" : "wl_surface");
	}

	uint64_t wl_releases = 0;
	for (int i = 0; i < c.n_buffers; i++)
		wl_releases += c.buffers[i]->wl_releases;
	fprintf(stderr, "sync-client: %s%s: %" PRIu64 " frames committed in %.2f s (%.1f/s), %" PRIu64
		" presented, %" PRIu64 " discarded, %" PRIu64 " presented before acquire; %" PRIu64
		" blocking release waits (max %.2f ms); %" PRIu64 " wl_buffer.release events (ignored)\n",
		sw_buffer_type_name(type), c.no_sync ? ", no explicit sync" : "", c.committed, secs,
		(double)c.committed / secs, c.present.presented, c.present.discarded, c.early,
		c.blocked_waits, (double)c.max_wait_ns / 1e6, wl_releases);
	fprintf(stderr, "sync-client: syncobj ioctls (%" PRIu64 " calls):\n", sw_syncobj_stats_count(&c.stats));
	sw_syncobj_stats_print(stderr, "sync-client:   ", &c.stats);

	/* Tidy up so that the compositor's leak accounting stays clean. */
	for (int i = 0; i < c.n_buffers; i++)
		sw_buffer_destroy(c.buffers[i]);
	sw_timeline_destroy(c.acquire);
	sw_timeline_destroy(c.queue_timeline);
	/* Every proxy goes, so that sanitizer runs stay quiet. */
	if (c.frame_cb)
		wl_callback_destroy(c.frame_cb);
	sw_present_finish(&c.present);
	if (c.sync_surface && !c.end_syncobj_only)
		wp_linux_drm_syncobj_surface_v1_destroy(c.sync_surface);
	if (c.no_sync || c.end_syncobj_only)
		sw_window_finish(&c.window);
	sw_display_destroy(c.d);
	if (c.drm_fd >= 0)
		close(c.drm_fd);
	if (c.card_fd >= 0)
		close(c.card_fd);
	if (c.failures)
		fprintf(stderr, "sync-client: %d check(s) failed\n", c.failures);
	else
		fprintf(stderr, "sync-client: all checks passed\n");
	return c.failures ? 1 : 0;
}
