/* syncway-release-check: does the compositor signal a release point only
 * once the GPU is done reading the buffer? A client that can fail.
 *
 * N GBM dmabufs rendered with GLES2 (render_gles2.c), frame k a solid
 * colour k mod P of a palette, each with a GPU acquire fence (the render
 * sync_file in the acquire point) and its own release point; commits paced
 * by fifo-v1, at most N - 1 waiting for their presentation feedback.
 *
 * The moment a buffer's release point signals (its eventfd, first thing
 * after poll() returns), the client
 *   1. exports the buffer's implicit fences, readers' included
 *      (DMA_BUF_IOCTL_EXPORT_SYNC_FILE with DMA_BUF_SYNC_WRITE), and polls
 *      them with timeout 0: pending means a GPU job that may read the buffer
 *      (the compositor's render job sampling it) had not finished when the
 *      release point signalled: an early release. Unless the commit's own
 *      acquire point had not signalled yet either, and the commit was
 *      never presented: then the pending job may be the client's own
 *      write, and a compositor that never showed the buffer has not read
 *      it (counted apart, not early);
 *   2. notes the time, then renders the poison colour (magenta) into the
 *      buffer and flushes: submitted to the GPU, never committed.
 * Meanwhile it reads the window's area of the output back, frame after
 * frame, with wlr-screencopy-unstable-v1 into wl_shm buffers: it must be
 * one uniform colour the client committed, never poison, never a mix.
 *
 * Why both: virgl runs every context's GPU jobs in submission order on the
 * host, so a release signalled after the compositor submitted its render
 * job but before that job finished never shows on screen (the poison render
 * queues behind it); only the fence check sees it. A release signalled at
 * commit, before the compositor rendered at all, lets the poison render go
 * first: poison on screen. See docs/clients.md.
 *
 * Exit status 0 only when at least --min-checked captures were checked and
 * none was poison, torn or foreign, and no release was early; 1 when a
 * check failed (or no GPU to run on), 2 on any other error. --no-screen
 * leaves the read-back out (compositors without wlr-screencopy): the fence
 * check alone decides. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buffer.h"
#include "display.h"
#include "drm_device.h"
#include "fifo-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "png.h"
#include "present.h"
#include "renderer.h"
#include "screencopy.h"
#include "syncobj.h"
#include "timeline.h"
#include "window.h"

#define MAX_BUFFERS 8
#define POISON 0xff00ffu
#define TOLERANCE 8 /* per channel, for the compositor's sampling */
#define REPORTED_ANOMALIES 5
#define DRAIN_TIMEOUT_NS 5000000000LL

/* Frame k is palette[k % P]: no black (the output's background), no
 * magenta (the poison), neighbours far apart. */
static const uint32_t palette[] = {
	0xff0000, 0x00ff00, 0x0000ff, 0xffff00, 0x00ffff, 0xffffff, 0xff8000,
};
#define PALETTE_N (int)(sizeof(palette) / sizeof(palette[0]))

struct options {
	int n_buffers, width, height, x, y;
	long frames, min_checked;
	int gpu_busy; /* slow draws queued after each commit */
	bool no_screen; /* the fence check alone: no read-back */
	double timeout_s;
	const char *json_path, *bad_png_path;
};

struct check_buffer {
	struct sw_buffer *b;
	uint64_t last_commit; /* seq + 1 of its last commit; 0: never */
	uint64_t acquire_point; /* of its last commit */
	int64_t commit_ns;
};

/* What became of a commit, by its seq: presentation feedback, and whether
 * its release came with a fence pending before its acquire point had
 * signalled (the fence may be the client's own write). */
enum {
	FATE_PRESENTED = 1,
	FATE_DISCARDED = 2,
	FATE_RELEASED_BEFORE_ACQUIRE = 4,
};

struct screencopy {
	struct zwlr_screencopy_frame_v1 *frame; /* the capture under way, or NULL */
	uint32_t flags;
	/* The wl_shm buffer captures go into, remade when the format changes. */
	struct wl_buffer *buffer;
	void *data;
	size_t size;
	uint32_t format, width, height, stride;
};

struct check {
	struct options opt;
	struct sw_display *display;
	struct wl_registry *registry; /* for wl_output and screencopy */
	struct wl_output *output;
	struct zwlr_screencopy_manager_v1 *screencopy_manager;
	struct sw_window window;
	struct wp_linux_drm_syncobj_surface_v1 *sync_surface;
	struct wp_fifo_v1 *fifo;
	struct sw_present present;

	int drm_fd;
	struct sw_syncobj_stats stats;
	struct sw_timeline *acquire;
	struct sw_renderer *renderer;
	struct check_buffer buffers[MAX_BUFFERS];
	struct sw_buffer *sw_buffers[MAX_BUFFERS]; /* the same, for the library */
	struct sw_scene scene;
	struct screencopy sc;

	uint64_t committed;
	uint32_t committed_colours; /* bit i: palette[i] was committed */
	/* the checks */
	uint64_t releases, early_releases, fence_export_errors, poison_renders;
	/* fate[seq], FATE_*; releases before their acquire point of commits
	 * never presented: the compositor cannot have read those (not early) */
	uint8_t *fate;
	uint64_t unread_releases;
	int busy_fence;            /* sync_file of the last busy job, or -1 */
	uint64_t busy_at_release;  /* releases that found it still running */
	uint64_t captures, capture_failures, checked, poison_frames, torn_frames, foreign_frames;
	int reported;
	bool bad_png_written;
	struct stats_sample commit_to_release; /* ns */
	int errors;
};

static volatile sig_atomic_t quit;
static void on_signal(int sig) { quit = 1; }

static void report_anomaly(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report_anomaly(struct check *c, const char *fmt, ...)
{
	if (c->reported++ >= REPORTED_ANOMALIES) {
		if (c->reported == REPORTED_ANOMALIES + 1)
			fputs("syncway-release-check: (further anomalies are only counted)\n", stderr);
		return;
	}
	va_list args;
	va_start(args, fmt);
	fputs("syncway-release-check: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
}

/* --- globals the library does not bind ------------------------------------ */

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct check *c = data;
	if (strcmp(interface, wl_output_interface.name) == 0 && !c->output)
		c->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	else if (strcmp(interface, zwlr_screencopy_manager_v1_interface.name) == 0)
		c->screencopy_manager = wl_registry_bind(registry, name,
							 &zwlr_screencopy_manager_v1_interface, 1);
}
static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {}
static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* --- the release check ---------------------------------------------------- */

/* 1 when some fence on the dmabuf (a writer's or a reader's) is still
 * pending, 0 when none is, -1 when the kernel cannot tell. */
static int dmabuf_busy(int dmabuf_fd)
{
	struct dma_buf_export_sync_file export = { .flags = DMA_BUF_SYNC_WRITE, .fd = -1 };
	if (ioctl(dmabuf_fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &export) != 0)
		return -1;
	int busy = poll(&(struct pollfd){ .fd = export.fd, .events = POLLIN }, 1, 0) == 0;
	close(export.fd);
	return busy;
}

/* A release before the acquire point counts once the commit's feedback
 * is in: not read when it was discarded, early when it was presented or
 * (at the end, final) when no feedback came. */
static void fate_settle(struct check *c, uint64_t seq, bool final)
{
	uint8_t f = c->fate[seq];
	if (!(f & FATE_RELEASED_BEFORE_ACQUIRE) || (!final && !(f & (FATE_PRESENTED | FATE_DISCARDED))))
		return;
	c->fate[seq] = f & ~FATE_RELEASED_BEFORE_ACQUIRE;
	if (f & FATE_DISCARDED) {
		c->unread_releases++;
		return;
	}
	c->early_releases++;
	report_anomaly(c, "early release: the release point of commit %" PRIu64 " signalled while a "
		       "GPU job on the buffer was pending, before its acquire point, and the commit "
		       "was %s", seq, f & FATE_PRESENTED ? "presented after all" : "never reported on");
}

static void handle_frame_done(void *data, struct sw_frame *frame)
{
	struct check *c = data;
	if (frame->seq >= (uint64_t)c->opt.frames)
		return;
	c->fate[frame->seq] |= frame->presented ? FATE_PRESENTED : FATE_DISCARDED;
	fate_settle(c, frame->seq, false);
}

static void buffer_released(struct check *c, struct check_buffer *cb)
{
	struct sw_buffer *b = cb->b;
	/* First the fences, before anything else can let the GPU catch up. */
	int busy = dmabuf_busy(b->dmabuf_fd);
	int64_t now = sw_display_now_ns(c->display);
	if (c->busy_fence >= 0 && poll(&(struct pollfd){ .fd = c->busy_fence, .events = POLLIN }, 1, 0) == 0)
		c->busy_at_release++;
	sw_buffer_released(b);
	c->releases++;
	stats_sample_add(&c->commit_to_release, (double)(now - cb->commit_ns));
	if (busy < 0) {
		c->fence_export_errors++;
		report_anomaly(c, "DMA_BUF_IOCTL_EXPORT_SYNC_FILE on a released buffer: %s", strerror(errno));
	} else if (busy) {
		/* A pending fence with the acquire point still unsignalled may be
		 * the client's own write: a commit replaced before it was ever
		 * shown is released without having been read. Whether it was
		 * shown, its feedback says (fate_settle); a compositor that
		 * releases at commit and reads later (mutant m6) shows it. */
		uint64_t seq = cb->last_commit - 1;
		int acquired = sw_syncobj_point_signalled(&c->stats, c->drm_fd, c->acquire->handle,
							  cb->acquire_point);
		if (acquired == 0 && seq < (uint64_t)c->opt.frames) {
			c->fate[seq] |= FATE_RELEASED_BEFORE_ACQUIRE;
			fate_settle(c, seq, false);
		} else {
			c->early_releases++;
			report_anomaly(c, "early release: release point %" PRIu64 " of commit %" PRIu64
				       " signalled %.3f ms after the commit while a GPU job on the buffer "
				       "was still pending", b->release_point, seq,
				       (double)(now - cb->commit_ns) / 1e6);
		}
	}
	/* Then poison it: if the compositor still reads it, it shows. */
	c->scene.background = POISON;
	c->scene.n = 0;
	int sync_file = -1;
	if (!sw_renderer_draw(c->renderer, &c->scene, b, &sync_file))
		sw_die("the poison render failed");
	if (sync_file >= 0)
		close(sync_file);
	c->poison_renders++;
}

/* --- committing ----------------------------------------------------------- */

static struct check_buffer *free_buffer(struct check *c)
{
	/* The least recently committed: a poisoned buffer stays poisoned as
	 * long as it can, for the compositor to show if it still reads it. */
	struct check_buffer *best = NULL;
	for (int i = 0; i < c->opt.n_buffers; i++) {
		struct check_buffer *cb = &c->buffers[i];
		if (!cb->b->busy && (!best || cb->last_commit < best->last_commit))
			best = cb;
	}
	return best;
}

static void commit_frame(struct check *c, struct check_buffer *cb)
{
	struct sw_buffer *b = cb->b;
	int index = (int)(c->committed % PALETTE_N);
	c->scene.background = palette[index];
	c->scene.n = 0;
	int sync_file = -1;
	if (!sw_renderer_draw(c->renderer, &c->scene, b, &sync_file) || sync_file < 0)
		sw_die("rendering frame %" PRIu64 " failed", c->committed);
	uint64_t acquire = ++c->acquire->point;
	cb->acquire_point = acquire;
	if (sw_syncobj_point_import_sync_file(&c->stats, c->drm_fd, c->acquire->handle, acquire, sync_file))
		sw_die("importing the render sync_file into acquire point %" PRIu64 ": %s", acquire,
		       strerror(errno));
	close(sync_file);
	if (!sw_buffer_attach_explicit(b, c->window.surface, c->sync_surface, c->acquire, acquire))
		sw_die("arming the release eventfd: %s", strerror(errno));
	if (c->fifo) {
		wp_fifo_v1_set_barrier(c->fifo);
		wp_fifo_v1_wait_barrier(c->fifo);
	}
	sw_present_track(&c->present, c->window.surface, c->committed);
	wl_surface_commit(c->window.surface);
	cb->last_commit = ++c->committed;
	cb->commit_ns = sw_display_now_ns(c->display);
	c->committed_colours |= 1u << index;
	/* A busy GPU, as a real application keeps it: the compositor's next
	 * render job queues behind this work, so it is still running when a
	 * release that does not wait for it signals. */
	if (c->opt.gpu_busy) {
		if (c->busy_fence >= 0)
			close(c->busy_fence);
		c->busy_fence = sw_renderer_gles2_busy(c->renderer, c->opt.gpu_busy);
		if (c->busy_fence < 0)
			sw_die("keeping the GPU busy failed");
	}
}

/* --- reading the output back ---------------------------------------------- */

static bool near(uint32_t a, uint32_t b)
{
	for (int shift = 0; shift < 24; shift += 8) {
		int d = (int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff);
		if (d > TOLERANCE || d < -TOLERANCE)
			return false;
	}
	return true;
}

/* 0xRRGGBB of a captured pixel; the formats wlroots copies into. */
static uint32_t pixel_rgb(const struct screencopy *sc, uint32_t x, uint32_t y)
{
	uint32_t p = ((const uint32_t *)((const char *)sc->data + (size_t)y * sc->stride))[x];
	if (sc->format == DRM_FORMAT_XBGR8888 || sc->format == DRM_FORMAT_ABGR8888)
		return (p & 0x00ff00) | (p & 0xff) << 16 | (p >> 16 & 0xff);
	return p & 0xffffff;
}

static int palette_index(uint32_t rgb)
{
	for (int i = 0; i < PALETTE_N; i++)
		if (near(rgb, palette[i]))
			return i;
	return -1;
}

static void write_bad_png(struct check *c)
{
	struct screencopy *sc = &c->sc;
	if (!c->opt.bad_png_path || c->bad_png_written)
		return;
	uint32_t *rows = malloc((size_t)sc->width * sc->height * 4);
	for (uint32_t y = 0; y < sc->height; y++)
		for (uint32_t x = 0; x < sc->width; x++)
			rows[(size_t)y * sc->width + x] = pixel_rgb(sc, x, y);
	c->bad_png_written = sw_png_write_xrgb8888(c->opt.bad_png_path, rows, (int)sc->width,
						   (int)sc->height, sc->width * 4);
	free(rows);
}

static void check_capture(struct check *c)
{
	struct screencopy *sc = &c->sc;
	uint32_t first = pixel_rgb(sc, 0, 0), other = first;
	uint64_t poison = 0, differing = 0;
	uint32_t ox = 0, oy = 0;
	for (uint32_t y = 0; y < sc->height; y++) {
		for (uint32_t x = 0; x < sc->width; x++) {
			uint32_t rgb = pixel_rgb(sc, x, y);
			if (near(rgb, POISON))
				poison++;
			if (!near(rgb, first)) {
				if (!differing++) {
					other = rgb;
					ox = x;
					oy = y;
				}
			}
		}
	}
	c->checked++;
	uint64_t n = (uint64_t)sc->width * sc->height;
	int index = palette_index(first);
	if (poison) {
		c->poison_frames++;
		report_anomaly(c, "capture %" PRIu64 ": poison on screen (%" PRIu64 " of %" PRIu64
			       " pixels): the compositor read a buffer after its release point signalled",
			       c->checked, poison, n);
	} else if (differing) {
		c->torn_frames++;
		report_anomaly(c, "capture %" PRIu64 ": torn: #%06x at (0,0), #%06x at (%u,%u), %" PRIu64
			       " of %" PRIu64 " pixels differ from the first", c->checked, first, other,
			       ox, oy, differing, n);
	} else if (index < 0 || !(c->committed_colours & (1u << index))) {
		c->foreign_frames++;
		report_anomaly(c, "capture %" PRIu64 ": #%06x everywhere, a colour the client never "
			       "committed (is the window at %d,%d?)", c->checked, first, c->opt.x, c->opt.y);
	} else {
		return;
	}
	write_bad_png(c);
}

static void shm_buffer_finish(struct screencopy *sc)
{
	if (sc->buffer)
		wl_buffer_destroy(sc->buffer);
	if (sc->data && sc->data != MAP_FAILED)
		munmap(sc->data, sc->size);
	sc->buffer = NULL;
	sc->data = NULL;
}

static void frame_buffer(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t format,
			 uint32_t width, uint32_t height, uint32_t stride)
{
	struct check *c = data;
	struct screencopy *sc = &c->sc;
	/* wl_shm codes are DRM's but for the two oldest formats. */
	uint32_t drm_format = format == WL_SHM_FORMAT_ARGB8888 ? DRM_FORMAT_ARGB8888 :
			      format == WL_SHM_FORMAT_XRGB8888 ? DRM_FORMAT_XRGB8888 : format;
	if (drm_format != DRM_FORMAT_XRGB8888 && drm_format != DRM_FORMAT_ARGB8888 &&
	    drm_format != DRM_FORMAT_XBGR8888 && drm_format != DRM_FORMAT_ABGR8888)
		sw_die("screencopy offers wl_shm format 0x%08x, which this client does not read", format);
	if (!sc->buffer || sc->format != drm_format || sc->width != width || sc->height != height ||
	    sc->stride != stride) {
		shm_buffer_finish(sc);
		sc->format = drm_format;
		sc->width = width;
		sc->height = height;
		sc->stride = stride;
		sc->size = (size_t)stride * height;
		int fd = memfd_create("syncway-release-check", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)sc->size) < 0)
			sw_die("capture buffer: %s", strerror(errno));
		sc->data = mmap(NULL, sc->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (sc->data == MAP_FAILED)
			sw_die("capture buffer: %s", strerror(errno));
		struct wl_shm_pool *pool = wl_shm_create_pool(c->display->shm, fd, (int32_t)sc->size);
		sc->buffer = wl_shm_pool_create_buffer(pool, 0, (int32_t)width, (int32_t)height,
						       (int32_t)stride, format);
		wl_shm_pool_destroy(pool);
		close(fd);
	}
	zwlr_screencopy_frame_v1_copy(frame, sc->buffer);
}

static void frame_flags(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t flags)
{
	struct check *c = data;
	c->sc.flags = flags; /* y-invert: no matter for a uniform colour */
}

static void frame_ready(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t sec_hi,
			uint32_t sec_lo, uint32_t nsec)
{
	struct check *c = data;
	c->captures++;
	check_capture(c);
	zwlr_screencopy_frame_v1_destroy(frame);
	c->sc.frame = NULL;
}

static void frame_failed(void *data, struct zwlr_screencopy_frame_v1 *frame)
{
	struct check *c = data;
	c->capture_failures++;
	zwlr_screencopy_frame_v1_destroy(frame);
	c->sc.frame = NULL;
}

static const struct zwlr_screencopy_frame_v1_listener frame_listener = {
	.buffer = frame_buffer,
	.flags = frame_flags,
	.ready = frame_ready,
	.failed = frame_failed,
};

static void start_capture(struct check *c)
{
	c->sc.frame = zwlr_screencopy_manager_v1_capture_output_region(
		c->screencopy_manager, 0, c->output, c->opt.x, c->opt.y, c->opt.width, c->opt.height);
	zwlr_screencopy_frame_v1_add_listener(c->sc.frame, &frame_listener, c);
}

/* --- the loop ------------------------------------------------------------- */

static void on_released(void *data, int i)
{
	struct check *c = data;
	buffer_released(c, &c->buffers[i]);
}

/* Waits up to timeout_ms; release eventfds are handled before any Wayland
 * event (sw_buffers_dispatch), and each one's fence check before anything
 * else. */
static bool dispatch(struct check *c, int timeout_ms)
{
	return sw_buffers_dispatch(c->display, c->sw_buffers, c->opt.n_buffers, timeout_ms,
				   on_released, c);
}

static void run(struct check *c)
{
	int64_t start = sw_syncobj_now_ns(), drain_start = 0;
	int in_flight_max = c->opt.n_buffers > 2 ? c->opt.n_buffers - 1 : 1;
	while (!quit && !c->window.closed) {
		int64_t now = sw_syncobj_now_ns();
		if ((double)(now - start) / 1e9 > c->opt.timeout_s) {
			fprintf(stderr, "syncway-release-check: timed out after %.0f s with %" PRIu64
				" commits\n", c->opt.timeout_s, c->committed);
			c->errors++;
			break;
		}
		if ((long)c->committed >= c->opt.frames) {
			/* Every commit presented (and captured on the way), or 5 s. */
			if (!drain_start)
				drain_start = now;
			if (sw_present_outstanding(&c->present) == 0 || now - drain_start > DRAIN_TIMEOUT_NS)
				break;
		} else if (c->window.configured &&
			   (int)sw_present_outstanding(&c->present) < in_flight_max) {
			struct check_buffer *cb = free_buffer(c);
			if (cb)
				commit_frame(c, cb);
		}
		/* Read back once the window is on the output. */
		if (!c->opt.no_screen && !c->sc.frame && c->present.presented > 0)
			start_capture(c);
		if (!dispatch(c, 100))
			sw_die("connection lost (protocol error?)");
	}
	if (c->sc.frame) {
		zwlr_screencopy_frame_v1_destroy(c->sc.frame);
		c->sc.frame = NULL;
	}
}

/* After the surface is gone every release point handed out must signal
 * (rule 32). */
static void wait_final_releases(struct check *c)
{
	int n;
	int ret = sw_buffers_wait_released(c->sw_buffers, c->opt.n_buffers, &c->stats, c->drm_fd,
					   2000000000LL, &n);
	if (ret) {
		fprintf(stderr, "syncway-release-check: FAIL: %d release points not signalled within 2 s "
			"of destroying the surface (%s)\n", n, strerror(-ret));
		c->errors++;
	}
}

/* --- start and end -------------------------------------------------------- */

static void usage(FILE *f, int status)
{
	fputs("usage: syncway-release-check [--buffers N] [--frames N] [--min-checked N]\n"
	      "                             [--size WxH] [--at X,Y] [--gpu-busy DRAWS] [--timeout S]\n"
	      "                             [--json FILE] [--bad-png FILE] [--no-screen]\n", f);
	exit(status);
}

static void parse_options(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "buffers", required_argument, NULL, 'n' },
		{ "frames", required_argument, NULL, 'f' },
		{ "min-checked", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "at", required_argument, NULL, 'a' },
		{ "timeout", required_argument, NULL, 't' },
		{ "gpu-busy", required_argument, NULL, 'g' },
		{ "json", required_argument, NULL, 'j' },
		{ "bad-png", required_argument, NULL, 'p' },
		{ "no-screen", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	*o = (struct options){ .n_buffers = 3, .width = 64, .height = 64, .frames = 300,
		.min_checked = 100, .timeout_s = 120, .gpu_busy = 2 };
	int opt;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': o->n_buffers = atoi(optarg); break;
		case 'f': o->frames = atol(optarg); break;
		case 'm': o->min_checked = atol(optarg); break;
		case 's':
			if (sscanf(optarg, "%dx%d", &o->width, &o->height) != 2)
				usage(stderr, 2);
			break;
		case 'a':
			if (sscanf(optarg, "%d,%d", &o->x, &o->y) != 2)
				usage(stderr, 2);
			break;
		case 't': o->timeout_s = atof(optarg); break;
		case 'g': o->gpu_busy = atoi(optarg); break;
		case 'j': o->json_path = optarg; break;
		case 'p': o->bad_png_path = optarg; break;
		case 'N': o->no_screen = true; break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (o->n_buffers < 2 || o->n_buffers > MAX_BUFFERS || o->frames < 1 || o->min_checked < 0 ||
	    o->width < 1 || o->height < 1 || o->width > 4096 || o->height > 4096 || o->x < 0 ||
	    o->y < 0 || o->timeout_s <= 0 || o->gpu_busy < 0 || o->gpu_busy > 64 || optind != argc)
		usage(stderr, 2);
}

static bool report(struct check *c)
{
	for (long seq = 0; seq < c->opt.frames; seq++)
		fate_settle(c, (uint64_t)seq, true);
	/* Without the read-back only the fence check decides; the summary
	 * says so, and the JSON has screen_checked false. */
	long min_checked = c->opt.no_screen ? 0 : c->opt.min_checked;
	bool pass = c->errors == 0 && (long)c->checked >= min_checked && c->poison_frames == 0 &&
		    c->torn_frames == 0 && c->foreign_frames == 0 && c->early_releases == 0 &&
		    c->fence_export_errors == 0;
	struct sw_series_summary rel;
	sw_series_summarize(&c->commit_to_release, &rel);
	printf("syncway-release-check: %s, %d buffers %dx%d at %d,%d: %" PRIu64 " commits, %" PRIu64
	       " presented; %" PRIu64 " captures checked (at least %ld wanted), %" PRIu64 " not taken; %"
	       PRIu64 " poison, %" PRIu64 " torn, %" PRIu64 " foreign; %" PRIu64 " releases, %" PRIu64
	       " early (fence pending), %" PRIu64 " before their acquire point and never presented "
	       "(not read, not early), %" PRIu64 " poison renders, %" PRIu64 " with the GPU still busy; "
	       "commit->release ms median %.2f min %.2f%s: %s\n",
	       c->renderer->description, c->opt.n_buffers, c->opt.width, c->opt.height, c->opt.x,
	       c->opt.y, c->committed, c->present.presented, c->checked, min_checked,
	       c->capture_failures, c->poison_frames, c->torn_frames, c->foreign_frames, c->releases,
	       c->early_releases, c->unread_releases, c->poison_renders, c->busy_at_release,
	       rel.median / 1e6,
	       c->commit_to_release.n ? c->commit_to_release.v[0] / 1e6 : 0,
	       c->opt.no_screen ? "; the output not read back (--no-screen): the fence check alone" : "",
	       pass ? "PASS" : "FAIL");
	sw_syncobj_stats_print(stdout, "syncway-release-check:   ", &c->stats);
	if (!c->opt.json_path)
		return pass;
	FILE *f = fopen(c->opt.json_path, "w");
	if (!f) {
		fprintf(stderr, "syncway-release-check: %s: %s\n", c->opt.json_path, strerror(errno));
		return false;
	}
	fprintf(f, "{\"type\":\"summary\",\"client\":\"syncway-release-check\",\"renderer\":\"%s\","
		"\"device\":\"%s\",\"buffers\":%d,\"width\":%d,\"height\":%d,\"x\":%d,\"y\":%d,"
		"\"commits\":%" PRIu64 ",\"presented\":%" PRIu64 ",\"captures\":%" PRIu64
		",\"checked\":%" PRIu64 ",\"min_checked\":%ld,\"capture_failures\":%" PRIu64
		",\"poison_frames\":%" PRIu64 ",\"torn_frames\":%" PRIu64 ",\"foreign_frames\":%" PRIu64
		",\"releases\":%" PRIu64 ",\"early_releases\":%" PRIu64 ",\"unread_releases\":%" PRIu64
		",\"fence_export_errors\":%" PRIu64
		",\"poison_renders\":%" PRIu64 ",\"gpu_busy\":%d,\"busy_at_release\":%" PRIu64
		",\"screen_checked\":%s"
		",\"commit_to_release_ns\":",
		c->renderer->impl->name, c->renderer->description, c->opt.n_buffers, c->opt.width,
		c->opt.height, c->opt.x, c->opt.y, c->committed, c->present.presented, c->captures,
		c->checked, min_checked, c->capture_failures, c->poison_frames, c->torn_frames,
		c->foreign_frames, c->releases, c->early_releases, c->unread_releases,
		c->fence_export_errors,
		c->poison_renders, c->opt.gpu_busy, c->busy_at_release,
		c->opt.no_screen ? "false" : "true");
	sw_series_write_json(f, &c->commit_to_release);
	fputs(",\"syncobj\":", f);
	sw_syncobj_stats_write_json(f, &c->stats, false);
	fprintf(f, ",\"errors\":%d,\"result\":\"%s\"}\n", c->errors, pass ? "pass" : "fail");
	fclose(f);
	return pass;
}

int main(int argc, char **argv)
{
	struct check c = { .drm_fd = -1, .busy_fence = -1 };
	parse_options(&c.opt, argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	stats_sample_init(&c.commit_to_release);

	c.display = sw_display_create(NULL);
	if (!c.display)
		sw_die("cannot connect to WAYLAND_DISPLAY=%s", getenv("WAYLAND_DISPLAY"));
	struct sw_display *d = c.display;
	if (!d->compositor || !d->wm_base || !d->shm || !d->dmabuf || !d->presentation)
		sw_die("the compositor lacks wl_compositor, xdg_wm_base, wl_shm, linux-dmabuf or wp_presentation");
	if (!d->syncobj_manager)
		sw_die("the compositor does not offer wp_linux_drm_syncobj_manager_v1");
	c.registry = wl_display_get_registry(d->display);
	wl_registry_add_listener(c.registry, &registry_listener, &c);
	if (wl_display_roundtrip(d->display) < 0)
		sw_die("connection lost");
	if (!c.opt.no_screen && (!c.screencopy_manager || !c.output))
		sw_die("the compositor offers no zwlr_screencopy_manager_v1 or no wl_output: nothing to "
		       "read the output back with (--no-screen: the fence check alone)");

	char err[256];
	c.drm_fd = sw_drm_open_render_node(err, sizeof(err));
	if (c.drm_fd < 0)
		sw_die("%s", err);
	c.renderer = sw_renderer_gles2_create(c.drm_fd, err, sizeof(err));
	if (!c.renderer) {
		fprintf(stderr, "syncway-release-check: no GPU to check with: gles2 renderer: %s\n", err);
		return 1;
	}

	sw_present_init(&c.present, d);
	c.present.frame_done = handle_frame_done;
	c.present.data = &c;
	c.fate = calloc((size_t)c.opt.frames, 1);
	if (!c.fate)
		sw_die("out of memory");
	sw_window_init(&c.window, d, "syncway-release-check");
	c.sync_surface = wp_linux_drm_syncobj_manager_v1_get_surface(d->syncobj_manager, c.window.surface);
	if (d->fifo_manager)
		c.fifo = wp_fifo_manager_v1_get_fifo(d->fifo_manager, c.window.surface);
	else
		fprintf(stderr, "syncway-release-check: no wp_fifo_manager_v1: paced by presentation "
			"feedback only, which makes early releases rarer to catch\n");
	c.acquire = sw_timeline_create(d->syncobj_manager, c.drm_fd, &c.stats);
	if (!c.acquire)
		sw_die("cannot create the acquire timeline: %s", strerror(errno));
	for (int i = 0; i < c.opt.n_buffers; i++) {
		struct sw_timeline *release = sw_timeline_create(d->syncobj_manager, c.drm_fd, &c.stats);
		if (!release)
			sw_die("cannot create a release timeline: %s", strerror(errno));
		c.buffers[i].b = c.renderer->impl->create_buffer(c.renderer, d, DRM_FORMAT_XRGB8888,
								 c.opt.width, c.opt.height, release,
								 err, sizeof(err));
		if (!c.buffers[i].b)
			sw_die("cannot create buffer %d: %s", i, err);
		c.sw_buffers[i] = c.buffers[i].b;
	}
	fprintf(stderr, "syncway-release-check: %s, %d GBM dmabufs %dx%d (modifier 0x%016" PRIx64
		"), palette of %d, poison #%06x\n", c.renderer->description, c.opt.n_buffers,
		c.opt.width, c.opt.height, c.buffers[0].b->modifier, PALETTE_N, POISON);

	wl_surface_commit(c.window.surface);
	run(&c);

	if (c.fifo)
		wp_fifo_v1_destroy(c.fifo);
	wp_linux_drm_syncobj_surface_v1_destroy(c.sync_surface);
	sw_window_finish(&c.window);
	if (wl_display_roundtrip(d->display) < 0)
		sw_die("connection lost at the end (protocol error?)");
	wait_final_releases(&c);
	bool pass = report(&c);

	sw_renderer_destroy(c.renderer);
	for (int i = 0; i < c.opt.n_buffers; i++)
		sw_buffer_destroy(c.buffers[i].b);
	sw_timeline_destroy(c.acquire);
	sw_present_finish(&c.present);
	sw_scene_finish(&c.scene);
	shm_buffer_finish(&c.sc);
	if (c.screencopy_manager)
		zwlr_screencopy_manager_v1_destroy(c.screencopy_manager);
	if (c.output)
		wl_output_destroy(c.output);
	wl_registry_destroy(c.registry);
	sw_display_destroy(d);
	close(c.drm_fd);
	free(c.fate);
	if (c.busy_fence >= 0)
		close(c.busy_fence);
	stats_sample_free(&c.commit_to_release);
	return pass ? 0 : 1;
}
