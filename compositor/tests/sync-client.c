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
 * usage: sync-client [--frames N] [--buffers N] [--dmabuf] [--size WxH]
 *        [--wait-before-submit MS] [--unthrottled] [--high-points]
 *        [--end surface|syncobj|waiting] [--no-sync] [--queue]
 * --queue (with --wait-before-submit): right behind each waiting commit, one
 * whose acquire point is already signalled; it must not overtake.
 * --end waiting: a last commit whose acquire point is only signalled after
 * the wl_surface was destroyed (the compositor must cancel that wait).
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "drm_device.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "syncobj.h"
#include "xdg-shell-client-protocol.h"

#define MAX_BUFFERS 8
#define RELEASE_TIMEOUT_NS 2000000000LL
/* Presentation timestamps are vblank times the kernel may extrapolate, and
 * the guests here tick at 4 ms: only an image shown clearly before its
 * acquire point counts as a violation. --wait-before-submit delays the
 * signal well beyond this. */
#define EARLY_TOLERANCE_NS 5000000LL

struct buffer {
	struct client *client;
	struct wl_buffer *wl_buffer;
	void *data;
	size_t size;
	uint32_t stride;
	uint32_t dumb_handle;
	uint32_t release_handle;
	struct wp_linux_drm_syncobj_timeline_v1 *release_timeline;
	uint64_t release_point; /* last one handed out; 0: never committed */
};

struct feedback {
	struct wl_list link; /* client.feedbacks */
	struct client *client;
	struct wp_presentation_feedback *wp;
	int64_t signalled_ns; /* when the client signalled the acquire point; 0: not yet */
	/* Committed while an earlier acquire point was unsignalled: with
	 * commits applied in order, it may not show before that signal. */
	bool blocked;
	uint64_t frame;
};

struct client {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_list feedbacks; /* outstanding presentation feedback */
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	struct wl_shm *shm;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	struct wp_linux_drm_syncobj_manager_v1 *syncobj_manager;
	struct wp_presentation *presentation;
	clockid_t presentation_clock;

	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *xdg_toplevel;
	struct wp_linux_drm_syncobj_surface_v1 *sync_surface;
	bool configured, closed, frame_done;
	struct wl_callback *frame_cb;

	int drm_fd;  /* render node: syncobjs */
	int card_fd; /* primary node: dumb buffers */
	struct sw_syncobj_stats stats;
	uint32_t acquire_handle;
	struct wp_linux_drm_syncobj_timeline_v1 *acquire_timeline;
	uint64_t point_base, acquire_point;
	/* --queue: signalling a later point of the same timeline would signal
	 * the waiting one too, so queued commits use their own timeline. */
	uint32_t queue_handle;
	struct wp_linux_drm_syncobj_timeline_v1 *queue_timeline;
	uint64_t queue_point;

	struct buffer buffers[MAX_BUFFERS];
	int n_buffers;
	int width, height;

	/* options */
	int frames;
	bool use_dmabuf, unthrottled, no_sync, end_syncobj_only, end_waiting;
	int wait_before_submit_ms;

	/* wait-before-submit: the acquire point committed but not yet signalled */
	int timer_fd;
	uint64_t unsignalled_point;
	bool queue; /* --queue: a ready commit right behind each waiting one */

	/* results */
	uint64_t committed, presented, discarded, early, wl_buffer_releases;
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

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("sync-client: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	exit(2);
}

/* --- Wayland boilerplate ------------------------------------------------- */

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}
static const struct xdg_wm_base_listener wm_base_listener = { .ping = wm_base_ping };

static void presentation_clock_id(void *data, struct wp_presentation *p, uint32_t clk_id)
{
	struct client *c = data;
	c->presentation_clock = clk_id;
}
static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_clock_id,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		c->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, c);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3) {
		c->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3);
	} else if (strcmp(interface, wp_linux_drm_syncobj_manager_v1_interface.name) == 0) {
		c->syncobj_manager = wl_registry_bind(registry, name,
						      &wp_linux_drm_syncobj_manager_v1_interface, 1);
	} else if (strcmp(interface, wp_presentation_interface.name) == 0) {
		c->presentation = wl_registry_bind(registry, name, &wp_presentation_interface, 1);
		wp_presentation_add_listener(c->presentation, &presentation_listener, c);
	}
}
static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {}
static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct client *c = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	c->configured = true;
}
static const struct xdg_surface_listener xdg_surface_listener = { .configure = xdg_surface_configure };

static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *s) {}
static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	struct client *c = data;
	c->closed = true;
}
static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	/* Counted, never relied on: release points are the contract. */
	struct buffer *b = data;
	b->client->wl_buffer_releases++;
}
static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct client *c = data;
	c->frame_done = true;
	c->frame_cb = NULL;
	wl_callback_destroy(cb);
}
static const struct wl_callback_listener frame_listener = { .done = frame_done };

static int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void feedback_sync_output(void *data, struct wp_presentation_feedback *f, struct wl_output *o) {}
static void feedback_presented(void *data, struct wp_presentation_feedback *wp, uint32_t sec_hi,
			       uint32_t sec_lo, uint32_t nsec, uint32_t refresh, uint32_t seq_hi,
			       uint32_t seq_lo, uint32_t flags)
{
	struct feedback *fb = data;
	struct client *c = fb->client;
	int64_t t = (int64_t)(((uint64_t)sec_hi << 32) | sec_lo) * 1000000000 + nsec;
	c->presented++;
	if (!c->no_sync && (fb->signalled_ns == 0 || t < fb->signalled_ns - EARLY_TOLERANCE_NS)) {
		c->early++;
		fail(c, "frame %" PRIu64 " presented at %" PRId64 " ns, before its acquire point was "
		     "signalled (%" PRId64 ")", fb->frame, t, fb->signalled_ns);
	}
	wl_list_remove(&fb->link);
	wp_presentation_feedback_destroy(wp);
	free(fb);
}
static void feedback_discarded(void *data, struct wp_presentation_feedback *wp)
{
	struct feedback *fb = data;
	fb->client->discarded++;
	wl_list_remove(&fb->link);
	wp_presentation_feedback_destroy(wp);
	free(fb);
}
static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

/* --- buffers and timelines ------------------------------------------------ */

static struct wp_linux_drm_syncobj_timeline_v1 *new_timeline(struct client *c, uint32_t *handle)
{
	int fd;
	if (sw_syncobj_create(&c->stats, c->drm_fd, 0, handle) ||
	    sw_syncobj_handle_to_fd(&c->stats, c->drm_fd, *handle, &fd))
		die("cannot create a timeline syncobj: %s", strerror(errno));
	struct wp_linux_drm_syncobj_timeline_v1 *t =
		wp_linux_drm_syncobj_manager_v1_import_timeline(c->syncobj_manager, fd);
	close(fd); /* libwayland sent a copy */
	return t;
}

static void create_shm_buffer(struct client *c, struct buffer *b)
{
	b->stride = c->width * 4;
	b->size = (size_t)b->stride * c->height;
	int fd = memfd_create("sync-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, b->size) < 0)
		die("memfd: %s", strerror(errno));
	b->data = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (b->data == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, b->size);
	b->wl_buffer = wl_shm_pool_create_buffer(pool, 0, c->width, c->height, b->stride,
						 WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
}

static void create_dmabuf_buffer(struct client *c, struct buffer *b)
{
	uint64_t offset;
	int fd;
	if (drmModeCreateDumbBuffer(c->card_fd, c->width, c->height, 32, 0, &b->dumb_handle,
				    &b->stride, &b->size))
		die("DRM_IOCTL_MODE_CREATE_DUMB: %s", strerror(errno));
	if (drmModeMapDumbBuffer(c->card_fd, b->dumb_handle, &offset))
		die("DRM_IOCTL_MODE_MAP_DUMB: %s", strerror(errno));
	b->data = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, c->card_fd, offset);
	if (b->data == MAP_FAILED)
		die("mmap dumb buffer: %s", strerror(errno));
	if (drmPrimeHandleToFD(c->card_fd, b->dumb_handle, DRM_CLOEXEC | DRM_RDWR, &fd))
		die("PRIME export: %s", strerror(errno));
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(c->dmabuf);
	zwp_linux_buffer_params_v1_add(params, fd, 0, 0, b->stride, DRM_FORMAT_MOD_LINEAR >> 32,
				       DRM_FORMAT_MOD_LINEAR & 0xffffffff);
	b->wl_buffer = zwp_linux_buffer_params_v1_create_immed(params, c->width, c->height,
							       DRM_FORMAT_XRGB8888, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	close(fd);
}

/* A buffer whose release point is signalled (or that was never used);
 * blocks (bounded) when all are still with the compositor. */
static struct buffer *next_buffer(struct client *c)
{
	uint32_t handles[MAX_BUFFERS];
	uint64_t points[MAX_BUFFERS];
	int n = 0;
	for (int i = 0; i < c->n_buffers; i++) {
		struct buffer *b = &c->buffers[i];
		if (b->release_point == 0)
			return b;
		if (c->no_sync)
			continue;
		if (sw_syncobj_point_signalled(&c->stats, c->drm_fd, b->release_handle, b->release_point) == 1)
			return b;
		handles[n] = b->release_handle;
		points[n] = b->release_point;
		n++;
	}
	if (c->no_sync)
		return &c->buffers[c->committed % c->n_buffers];

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
		if (c->buffers[i].release_handle == handles[first])
			return &c->buffers[i];
	return NULL;
}

static void signal_acquire(struct client *c, uint64_t point)
{
	if (sw_syncobj_timeline_signal(&c->stats, c->drm_fd, &c->acquire_handle, &point, 1))
		die("TIMELINE_SIGNAL acquire point %" PRIu64 ": %s", point, strerror(errno));
}

static bool draw_and_commit(struct client *c)
{
	struct buffer *b = next_buffer(c);
	if (!b)
		return false;

	/* "Rendering": a colour cycling with the frame number. */
	uint32_t colour = 0xff000000 | ((c->committed * 7) & 0xff) << 16 |
			  ((c->committed * 3) & 0xff) << 8 | (255 - (c->committed & 0xff));
	for (int y = 0; y < c->height; y++) {
		uint32_t *row = (uint32_t *)((char *)b->data + (size_t)y * b->stride);
		for (int x = 0; x < c->width; x++)
			row[x] = colour;
	}

	struct feedback *fb = calloc(1, sizeof(*fb));
	fb->client = c;
	fb->frame = c->committed;
	wl_list_init(&fb->link);
	if (c->presentation) {
		wl_list_insert(&c->feedbacks, &fb->link);
		fb->wp = wp_presentation_feedback(c->presentation, c->surface);
		wp_presentation_feedback_add_listener(fb->wp, &feedback_listener, fb);
	}

	if (!c->no_sync) {
		struct wp_linux_drm_syncobj_timeline_v1 *timeline = c->acquire_timeline;
		uint64_t acquire;
		b->release_point = b->release_point ? b->release_point + 1 : c->point_base + 1;
		if (c->unsignalled_point) {
			/* Queued behind a waiting commit (--queue). */
			acquire = ++c->queue_point;
			timeline = c->queue_timeline;
			if (sw_syncobj_timeline_signal(&c->stats, c->drm_fd, &c->queue_handle, &acquire, 1))
				die("TIMELINE_SIGNAL: %s", strerror(errno));
			fb->blocked = true;
		} else if (c->wait_before_submit_ms > 0) {
			/* Commit first; the point materializes (and signals) later. */
			acquire = ++c->acquire_point;
			c->unsignalled_point = acquire;
			fb->blocked = true;
			struct itimerspec its = {
				.it_value = { .tv_sec = c->wait_before_submit_ms / 1000,
					      .tv_nsec = (c->wait_before_submit_ms % 1000) * 1000000L },
			};
			timerfd_settime(c->timer_fd, 0, &its, NULL);
		} else {
			acquire = ++c->acquire_point;
			/* Read before signalling: the compositor may present the
			 * frame before this process runs again, so only a time
			 * taken before the ioctl is a sound lower bound. */
			fb->signalled_ns = clock_ns(c->presentation_clock);
			signal_acquire(c, acquire);
		}
		wp_linux_drm_syncobj_surface_v1_set_acquire_point(c->sync_surface, timeline,
								  acquire >> 32, acquire & 0xffffffff);
		wp_linux_drm_syncobj_surface_v1_set_release_point(c->sync_surface, b->release_timeline,
								  b->release_point >> 32,
								  b->release_point & 0xffffffff);
	} else {
		b->release_point = 1;
		fb->signalled_ns = 1;
	}
	if (!c->presentation)
		free(fb);

	wl_surface_attach(c->surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(c->surface, 0, 0, c->width, c->height);
	if (!c->unthrottled) {
		c->frame_done = false;
		c->frame_cb = wl_surface_frame(c->surface);
		wl_callback_add_listener(c->frame_cb, &frame_listener, c);
	}
	wl_surface_commit(c->surface);
	c->committed++;
	return true;
}

/* Dispatches Wayland events and the wait-before-submit timer for up to
 * timeout_ms (-1: until something happens). */
static bool dispatch(struct client *c, int timeout_ms)
{
	while (wl_display_prepare_read(c->display) != 0)
		wl_display_dispatch_pending(c->display);
	if (wl_display_flush(c->display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(c->display);
		return false;
	}
	struct pollfd fds[2] = {
		{ .fd = wl_display_get_fd(c->display), .events = POLLIN },
		{ .fd = c->timer_fd, .events = POLLIN },
	};
	int ret = poll(fds, 2, timeout_ms);
	if (ret > 0 && (fds[0].revents & POLLIN)) {
		if (wl_display_read_events(c->display) < 0)
			return false;
	} else {
		wl_display_cancel_read(c->display);
	}
	if (fds[1].revents & POLLIN) {
		uint64_t n;
		if (read(c->timer_fd, &n, sizeof(n)) < 0)
			die("timerfd: %s", strerror(errno));
		int64_t now = clock_ns(c->presentation_clock); /* before: see draw_and_commit() */
		signal_acquire(c, c->unsignalled_point);
		struct feedback *fb;
		wl_list_for_each(fb, &c->feedbacks, link) {
			if (fb->blocked) {
				fb->blocked = false;
				fb->signalled_ns = now;
			}
		}
		c->unsignalled_point = 0;
	}
	return wl_display_dispatch_pending(c->display) >= 0;
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
		.presentation_clock = CLOCK_MONOTONIC,
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
	c.acquire_point = c.point_base;

	c.display = wl_display_connect(NULL);
	if (!c.display)
		die("cannot connect to WAYLAND_DISPLAY=%s", getenv("WAYLAND_DISPLAY"));
	wl_list_init(&c.feedbacks);
	c.registry = wl_display_get_registry(c.display);
	wl_registry_add_listener(c.registry, &registry_listener, &c);
	wl_display_roundtrip(c.display);
	wl_display_roundtrip(c.display); /* presentation clock_id */
	if (!c.compositor || !c.wm_base || !c.shm)
		die("the compositor lacks wl_compositor, xdg_wm_base or wl_shm");
	if (!c.no_sync && !c.syncobj_manager)
		die("the compositor does not offer wp_linux_drm_syncobj_manager_v1");
	if (c.use_dmabuf && !c.dmabuf)
		die("the compositor does not offer zwp_linux_dmabuf_v1 (version 3+)");

	char err[256];
	c.drm_fd = sw_drm_open_render_node(err, sizeof(err));
	if (c.drm_fd < 0 && !c.no_sync)
		die("%s", err);
	if (c.use_dmabuf) {
		c.card_fd = open(getenv("SYNC_CLIENT_CARD") ? getenv("SYNC_CLIENT_CARD") : "/dev/dri/card0",
				 O_RDWR | O_CLOEXEC);
		if (c.card_fd < 0)
			die("cannot open the primary DRM node for dumb buffers: %s", strerror(errno));
	}
	c.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	c.surface = wl_compositor_create_surface(c.compositor);
	c.xdg_surface = xdg_wm_base_get_xdg_surface(c.wm_base, c.surface);
	xdg_surface_add_listener(c.xdg_surface, &xdg_surface_listener, &c);
	c.xdg_toplevel = xdg_surface_get_toplevel(c.xdg_surface);
	xdg_toplevel_add_listener(c.xdg_toplevel, &toplevel_listener, &c);
	xdg_toplevel_set_title(c.xdg_toplevel, "sync-client");
	if (!c.no_sync) {
		c.sync_surface = wp_linux_drm_syncobj_manager_v1_get_surface(c.syncobj_manager, c.surface);
		c.acquire_timeline = new_timeline(&c, &c.acquire_handle);
		c.queue_point = c.point_base;
		if (c.queue)
			c.queue_timeline = new_timeline(&c, &c.queue_handle);
	}
	for (int i = 0; i < c.n_buffers; i++) {
		struct buffer *b = &c.buffers[i];
		b->client = &c;
		if (c.use_dmabuf)
			create_dmabuf_buffer(&c, b);
		else
			create_shm_buffer(&c, b);
		wl_buffer_add_listener(b->wl_buffer, &buffer_listener, b);
		if (!c.no_sync)
			b->release_timeline = new_timeline(&c, &b->release_handle);
	}
	wl_surface_commit(c.surface);
	while (!c.configured)
		if (!dispatch(&c, -1))
			die("connection lost before the first configure");

	int64_t start = sw_syncobj_now_ns();
	c.frame_done = true;
	while ((int)c.committed < c.frames && !c.closed && c.failures == 0) {
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
				die("connection lost (protocol error?)");
		} else if (!dispatch(&c, 1000)) {
			die("connection lost (protocol error?)");
		}
	}
	/* Let the last frames reach the screen. */
	for (int i = 0; i < 50 && c.presented + c.discarded < c.committed; i++)
		if (!dispatch(&c, 20))
			die("connection lost");
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
				die("no buffer for the last commit");
			if (wl_display_roundtrip(c.display) < 0)
				die("connection lost (protocol error?)");
		}
		if (c.end_syncobj_only) {
			wp_linux_drm_syncobj_surface_v1_destroy(c.sync_surface);
			/* Without the object, a plain NULL commit must be fine. */
			wl_surface_attach(c.surface, NULL, 0, 0);
			wl_surface_commit(c.surface);
		} else {
			xdg_toplevel_destroy(c.xdg_toplevel);
			xdg_surface_destroy(c.xdg_surface);
			wl_surface_destroy(c.surface);
		}
		if (wl_display_roundtrip(c.display) < 0)
			die("connection lost at the end (protocol error?)");
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
			if (c.buffers[i].release_point) {
				handles[n] = c.buffers[i].release_handle;
				points[n] = c.buffers[i].release_point;
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

	fprintf(stderr, "sync-client: %s%s: %" PRIu64 " frames committed in %.2f s (%.1f/s), %" PRIu64
		" presented, %" PRIu64 " discarded, %" PRIu64 " presented before acquire; %" PRIu64
		" blocking release waits (max %.2f ms); %" PRIu64 " wl_buffer.release events (ignored)\n",
		c.use_dmabuf ? "dmabuf" : "shm", c.no_sync ? ", no explicit sync" : "", c.committed, secs,
		(double)c.committed / secs, c.presented, c.discarded, c.early, c.blocked_waits,
		(double)c.max_wait_ns / 1e6, c.wl_buffer_releases);
	fprintf(stderr, "sync-client: syncobj ioctls (%" PRIu64 " calls):\n", sw_syncobj_stats_count(&c.stats));
	sw_syncobj_stats_print(stderr, "sync-client:   ", &c.stats);

	/* Tidy up so that the compositor's leak accounting stays clean. */
	for (int i = 0; i < c.n_buffers; i++) {
		struct buffer *b = &c.buffers[i];
		wl_buffer_destroy(b->wl_buffer);
		munmap(b->data, b->size);
		if (b->release_timeline) {
			wp_linux_drm_syncobj_timeline_v1_destroy(b->release_timeline);
			sw_syncobj_destroy(&c.stats, c.drm_fd, b->release_handle);
		}
		if (b->dumb_handle)
			drmModeDestroyDumbBuffer(c.card_fd, b->dumb_handle);
	}
	if (c.acquire_timeline) {
		wp_linux_drm_syncobj_timeline_v1_destroy(c.acquire_timeline);
		sw_syncobj_destroy(&c.stats, c.drm_fd, c.acquire_handle);
	}
	if (c.queue_timeline) {
		wp_linux_drm_syncobj_timeline_v1_destroy(c.queue_timeline);
		sw_syncobj_destroy(&c.stats, c.drm_fd, c.queue_handle);
	}
	/* Every proxy goes, so that sanitizer runs stay quiet. */
	if (c.frame_cb)
		wl_callback_destroy(c.frame_cb);
	struct feedback *fb, *fb_tmp;
	wl_list_for_each_safe(fb, fb_tmp, &c.feedbacks, link) {
		wp_presentation_feedback_destroy(fb->wp);
		free(fb);
	}
	if (c.sync_surface && !c.end_syncobj_only)
		wp_linux_drm_syncobj_surface_v1_destroy(c.sync_surface);
	if (c.no_sync || c.end_syncobj_only) {
		xdg_toplevel_destroy(c.xdg_toplevel);
		xdg_surface_destroy(c.xdg_surface);
		wl_surface_destroy(c.surface);
	}
	if (c.syncobj_manager)
		wp_linux_drm_syncobj_manager_v1_destroy(c.syncobj_manager);
	if (c.presentation)
		wp_presentation_destroy(c.presentation);
	if (c.dmabuf)
		zwp_linux_dmabuf_v1_destroy(c.dmabuf);
	xdg_wm_base_destroy(c.wm_base);
	wl_shm_destroy(c.shm);
	wl_compositor_destroy(c.compositor);
	wl_registry_destroy(c.registry);
	wl_display_roundtrip(c.display);
	wl_display_disconnect(c.display);
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
