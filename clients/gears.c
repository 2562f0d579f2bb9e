/* syncway-gears: an animated explicit-sync demo client.
 *
 * Renders three gears (pixman, Vulkan or GLES2) into dmabufs or wl_shm buffers,
 * hands each frame to the compositor with an acquire point, and reuses a
 * buffer only once its release point is signalled (an eventfd per busy
 * buffer in the poll loop; wl_buffer.release is only counted). Paced by
 * fifo-v1 (each commit shown for a refresh), frame callbacks, or nothing
 * (mailbox), optionally at exact times with commit-timing-v1. Reports
 * vkgears-style FPS lines and, from wp_presentation feedback, frame
 * intervals, commit->present latency and missed frames; see docs/clients.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "acquire_worker.h"
#include "buffer.h"
#include "commit-timing-v1-client-protocol.h"
#include "display.h"
#include "drm_device.h"
#include "fifo-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "png.h"
#include "present.h"
#include "renderer.h"
#include "syncobj.h"
#include "timeline.h"
#include "window.h"

#define MAX_BUFFERS 8
#define FINAL_RELEASE_TIMEOUT_NS 2000000000LL

/* fifo: every commit sets a fifo-v1 barrier and waits on the previous one,
 * as Mesa's FIFO present mode does; frame-callback: draw when the
 * compositor says it drew; mailbox: draw whenever a buffer is free. */
enum mode { MODE_FIFO, MODE_FRAME_CALLBACK, MODE_MAILBOX };

static const char *const mode_names[] = {
	[MODE_FIFO] = "fifo",
	[MODE_FRAME_CALLBACK] = "frame-callback",
	[MODE_MAILBOX] = "mailbox",
};

struct options {
	enum mode mode;
	enum sw_buffer_type buffer_type;
	const char *renderer;
	int width, height, n_buffers;
	double duration_s;
	long frames;
	int gpu_time_ms;
	const char *json_path, *png_path;
	const char *title; /* the window's title and app id */
	bool checksum;
	double report_s; /* FPS window */
	double refresh_hz; /* when the compositor reports no refresh period */
	double target_fps; /* > 0: commit-timing targets at this rate */
};

struct gears {
	struct options opt;
	struct sw_display *display;
	struct sw_window window;
	struct wp_linux_drm_syncobj_surface_v1 *sync_surface;
	struct wp_fifo_v1 *fifo;                 /* MODE_FIFO */
	struct wp_commit_timer_v1 *commit_timer; /* --target-fps */
	int64_t first_target_ns;
	struct wl_callback *frame_cb;
	bool frame_pending;

	int drm_fd, card_fd;
	struct sw_syncobj_stats stats; /* main thread */
	struct sw_syncobj_stats last_total;
	struct sw_timeline *acquire;
	struct sw_acquire_worker *worker; /* --gpu-time */
	struct sw_syncobj_stats worker_stats; /* its ioctls, once it is gone */
	struct sw_buffer *buffers[MAX_BUFFERS];
	struct sw_buffer *last_committed;

	struct sw_renderer *renderer;
	struct sw_scene scene;
	struct sw_present present;
	FILE *json;
	int64_t start_ns;

	uint64_t committed, render_ns;
	uint64_t gpu_acquires; /* acquire points signalled by a render sync_file */
	uint64_t gpu_pending_at_commit; /* of those, not yet signalled when drawn */
	uint64_t checks_verified, checks_rewritten, reused_before_release;
	int failures;
};

static volatile sig_atomic_t quit;
static void on_signal(int sig) { quit = 1; }

static void fail(struct gears *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct gears *g, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("syncway-gears: FAIL: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	g->failures++;
}

/* --- frame callbacks ------------------------------------------------------ */

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct gears *g = data;
	g->frame_pending = false;
	g->frame_cb = NULL;
	wl_callback_destroy(cb);
}
static const struct wl_callback_listener frame_listener = { .done = frame_done };

/* --- per-frame output ------------------------------------------------------ */

static void on_frame_done(void *data, struct sw_frame *fr)
{
	struct gears *g = data;
	if (!g->json)
		return;
	fprintf(g->json, "{\"type\":\"frame\",\"seq\":%" PRIu64 ",\"result\":\"%s\",\"commit_ns\":%" PRId64,
		fr->seq, fr->presented ? "presented" : "discarded", fr->commit_ns);
	if (fr->presented)
		fprintf(g->json, ",\"present_ns\":%" PRId64 ",\"interval_ns\":%" PRId64
			",\"latency_ns\":%" PRId64 ",\"acquire_to_present_ns\":%" PRId64
			",\"refresh_ns\":%u,\"missed\":%d",
			fr->present_ns, fr->interval_ns, fr->present_ns - fr->commit_ns,
			fr->acquire_ns ? fr->present_ns - fr->acquire_ns : -1, fr->refresh_ns, fr->missed);
	if (fr->presented && fr->target_ns)
		fprintf(g->json, ",\"target_ns\":%" PRId64 ",\"target_error_ns\":%" PRId64, fr->target_ns,
			fr->present_ns - fr->target_ns);
	fprintf(g->json, ",\"syncobj_ioctls\":%" PRIu64 ",\"syncobj_ns\":%" PRIu64 "}\n",
		fr->syncobj_ioctls, fr->syncobj_ns);
}

static int64_t acquire_time(void *data, uint64_t seq)
{
	struct gears *g = data;
	return g->worker ? sw_acquire_worker_signalled_ns(g->worker, seq) : 0;
}

/* All syncobj ioctls so far, both threads. */
static void total_stats(struct gears *g, struct sw_syncobj_stats *out)
{
	*out = g->stats;
	sw_syncobj_stats_add(out, &g->worker_stats);
	if (g->worker) {
		struct sw_syncobj_stats w;
		sw_acquire_worker_stats(g->worker, &w);
		sw_syncobj_stats_add(out, &w);
	}
}

/* --- buffers ---------------------------------------------------------------- */

/* The release point of b has signalled (its eventfd fired): with
 * --checksum, the content must be what was committed. */
static void buffer_released(struct gears *g, struct sw_buffer *b)
{
	sw_buffer_released(b);
	if (g->opt.checksum) {
		if (sw_buffer_checksum(b) == b->checksum)
			g->checks_verified++;
		else {
			g->checks_rewritten++;
			fail(g, "buffer content changed between commit and release point %" PRIu64,
			     b->release_point);
		}
	}
}

static struct sw_buffer *free_buffer(struct gears *g)
{
	for (int i = 0; i < g->opt.n_buffers; i++)
		if (!g->buffers[i]->busy)
			return g->buffers[i];
	return NULL;
}

static void draw_and_commit(struct gears *g, struct sw_buffer *b)
{
	/* Independent of the eventfd bookkeeping: ask the kernel whether the
	 * last release point of this buffer really is signalled. */
	if (g->opt.checksum && b->release_point &&
	    sw_timeline_signalled(b->release, b->release_point) != 1) {
		g->reused_before_release++;
		fail(g, "buffer reused before its release point %" PRIu64 " signalled", b->release_point);
	}

	double t = (double)(sw_syncobj_now_ns() - g->start_ns) / 1e9;
	int64_t r0 = sw_syncobj_now_ns();
	sw_scene_build(&g->scene, g->opt.width, g->opt.height, 100.0 * t);
	int sync_file = -1;
	if (!sw_renderer_draw(g->renderer, &g->scene, b, &sync_file))
		sw_die("%s renderer failed", g->renderer->impl->name);
	g->render_ns += sw_syncobj_now_ns() - r0;
	/* Is the GPU still busy when the frame is committed? (lavapipe may
	 * export a sync_file that has already signalled.) */
	if (sync_file >= 0 && poll(&(struct pollfd){ .fd = sync_file, .events = POLLIN }, 1, 0) == 0)
		g->gpu_pending_at_commit++;
	/* The checksum and the late signal of the worker both want the
	 * pixels now: wait for the GPU then (sync_files are pollable). */
	if (sync_file >= 0 && (g->opt.checksum || g->worker)) {
		struct pollfd pfd = { .fd = sync_file, .events = POLLIN };
		while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			;
	}
	if (g->opt.checksum)
		b->checksum = sw_buffer_checksum(b);

	uint64_t seq = g->committed;
	struct sw_frame *fr = sw_present_track(&g->present, g->window.surface, seq);
	uint64_t acquire = ++g->acquire->point;
	if (g->worker) {
		sw_acquire_worker_queue(g->worker, acquire, seq, (int64_t)g->opt.gpu_time_ms * 1000000);
	} else if (sync_file >= 0) {
		/* The GPU signals the point: its sync_file goes into it. */
		if (sw_syncobj_point_import_sync_file(&g->stats, g->drm_fd, g->acquire->handle, acquire, sync_file))
			sw_die("importing the render sync_file into acquire point %" PRIu64 ": %s", acquire,
			    strerror(errno));
		g->gpu_acquires++;
	} else {
		if (sw_timeline_signal(g->acquire, &g->stats, acquire))
			sw_die("signalling acquire point %" PRIu64 ": %s", acquire, strerror(errno));
		if (fr)
			fr->acquire_ns = sw_display_now_ns(g->display);
	}
	if (sync_file >= 0)
		close(sync_file);
	if (!sw_buffer_attach_explicit(b, g->window.surface, g->sync_surface, g->acquire, acquire))
		sw_die("arming the release eventfd: %s", strerror(errno));
	if (g->fifo) {
		wp_fifo_v1_set_barrier(g->fifo);
		wp_fifo_v1_wait_barrier(g->fifo);
	}
	if (g->commit_timer) {
		/* Targets on a fixed grid from the first one, so that a late frame
		 * does not push every later one back. */
		if (!g->first_target_ns)
			g->first_target_ns = sw_display_now_ns(g->display);
		int64_t target = g->first_target_ns + (int64_t)(g->committed * 1e9 / g->opt.target_fps);
		wp_commit_timer_v1_set_timestamp(g->commit_timer, (uint32_t)((uint64_t)(target / 1000000000) >> 32),
						 (uint32_t)(target / 1000000000), (uint32_t)(target % 1000000000));
		if (fr)
			fr->target_ns = target;
	}
	if (g->opt.mode == MODE_FRAME_CALLBACK) {
		g->frame_cb = wl_surface_frame(g->window.surface);
		wl_callback_add_listener(g->frame_cb, &frame_listener, g);
		g->frame_pending = true;
	}
	wl_surface_commit(g->window.surface);
	g->committed++;
	g->last_committed = b;

	/* This frame's ioctls: everything since the previous commit. */
	struct sw_syncobj_stats now, delta;
	total_stats(g, &now);
	sw_syncobj_stats_diff(&delta, &now, &g->last_total);
	g->last_total = now;
	if (fr) {
		fr->syncobj_ioctls = sw_syncobj_stats_count(&delta);
		fr->syncobj_ns = sw_syncobj_stats_ns(&delta);
	}
}

/* --- the loop ------------------------------------------------------------- */

static void on_released(void *data, int i)
{
	struct gears *g = data;
	buffer_released(g, g->buffers[i]);
}

/* Waits up to timeout_ms for Wayland events or release points. */
static bool dispatch(struct gears *g, int timeout_ms)
{
	return sw_buffers_dispatch(g->display, g->buffers, g->opt.n_buffers, timeout_ms, on_released, g);
}

static bool time_is_up(struct gears *g)
{
	if (quit || g->window.closed)
		return true;
	if (g->opt.frames > 0 && (long)g->committed >= g->opt.frames)
		return true;
	return g->opt.duration_s > 0 &&
	       (double)(sw_syncobj_now_ns() - g->start_ns) / 1e9 >= g->opt.duration_s;
}

static void run(struct gears *g)
{
	g->start_ns = sw_syncobj_now_ns();
	total_stats(g, &g->last_total);
	while (!time_is_up(g)) {
		struct sw_buffer *b = g->window.configured && !g->frame_pending ? free_buffer(g) : NULL;
		if (b)
			draw_and_commit(g, b);
		/* Mailbox with a free buffer: just collect events and go on. */
		bool more = g->opt.mode == MODE_MAILBOX && free_buffer(g);
		if (!dispatch(g, more ? 0 : 100))
			sw_die("connection lost (protocol error?)");
	}
	/* Let the last frames reach the screen. */
	for (int i = 0; i < 50 && sw_present_outstanding(&g->present) > 0; i++)
		if (!dispatch(g, 20))
			sw_die("connection lost");
}

/* --- start and end -------------------------------------------------------- */

static void usage(FILE *f, int status)
{
	fputs("usage: syncway-gears [--mode fifo|frame-callback|mailbox] [--target-fps N]\n"
	      "                     [--buffer dmabuf|shm] [--renderer pixman|vulkan|gles2]\n"
	      "                     [--size WxH] [--duration S] [--frames N] [--buffers N]\n"
	      "                     [--gpu-time MS] [--json FILE] [--checksum] [--png FILE]\n"
	      "                     [--report SEC] [--refresh HZ] [--title NAME]\n", f);
	exit(status);
}

static void parse_options(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "renderer", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "frames", required_argument, NULL, 'f' },
		{ "buffers", required_argument, NULL, 'n' },
		{ "gpu-time", required_argument, NULL, 'g' },
		{ "json", required_argument, NULL, 'j' },
		{ "checksum", no_argument, NULL, 'c' },
		{ "png", required_argument, NULL, 'p' },
		{ "report", required_argument, NULL, 'R' },
		{ "refresh", required_argument, NULL, 'H' },
		{ "target-fps", required_argument, NULL, 'T' },
		{ "title", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	*o = (struct options){ .report_s = 5,
		.mode = MODE_FIFO, .buffer_type = SW_BUFFER_DMABUF, .renderer = "pixman",
		.width = 300, .height = 300, .n_buffers = 3, .title = "syncway-gears",
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm': {
			size_t i = 0;
			while (i < sizeof(mode_names) / sizeof(mode_names[0]) && strcmp(optarg, mode_names[i]))
				i++;
			if (i == sizeof(mode_names) / sizeof(mode_names[0]))
				usage(stderr, 2);
			o->mode = (enum mode)i;
			break;
		}
		case 'b':
			if (strcmp(optarg, "dmabuf") == 0)
				o->buffer_type = SW_BUFFER_DMABUF;
			else if (strcmp(optarg, "shm") == 0)
				o->buffer_type = SW_BUFFER_SHM;
			else
				usage(stderr, 2);
			break;
		case 'r':
			if (strcmp(optarg, "pixman") && strcmp(optarg, "vulkan") && strcmp(optarg, "gles2"))
				usage(stderr, 2);
			o->renderer = optarg;
			break;
		case 's':
			if (sscanf(optarg, "%dx%d", &o->width, &o->height) != 2)
				usage(stderr, 2);
			break;
		case 'd': o->duration_s = atof(optarg); break;
		case 'f': o->frames = atol(optarg); break;
		case 'n': o->n_buffers = atoi(optarg); break;
		case 'g': o->gpu_time_ms = atoi(optarg); break;
		case 'j': o->json_path = optarg; break;
		case 't': o->title = optarg; break;
		case 'c': o->checksum = true; break;
		case 'p': o->png_path = optarg; break;
		case 'R': o->report_s = atof(optarg); break;
		case 'H': o->refresh_hz = atof(optarg); break;
		case 'T': o->target_fps = atof(optarg); break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (o->width < 16 || o->height < 16 || o->width > 8192 || o->height > 8192 ||
	    o->n_buffers < 2 || o->report_s <= 0 || o->n_buffers > MAX_BUFFERS || o->gpu_time_ms < 0 ||
	    o->target_fps < 0 || o->target_fps > 1000 || optind != argc)
		usage(stderr, 2);
}

/* A GPU renderer's own dmabufs: no fallback, it can draw into nothing else. */
static void create_renderer_buffers(struct gears *g)
{
	if (g->opt.buffer_type != SW_BUFFER_DMABUF)
		sw_die("the %s renderer draws into its own dmabufs only: use --buffer dmabuf",
		       g->renderer->impl->name);
	for (int i = 0; i < g->opt.n_buffers; i++) {
		char err[256];
		struct sw_timeline *release = sw_timeline_create(g->display->syncobj_manager, g->drm_fd, &g->stats);
		if (!release)
			sw_die("cannot create a release timeline: %s", strerror(errno));
		g->buffers[i] = g->renderer->impl->create_buffer(g->renderer, g->display, DRM_FORMAT_XRGB8888,
								 g->opt.width, g->opt.height, release,
								 err, sizeof(err));
		if (!g->buffers[i])
			sw_die("cannot create buffer %d: %s", i, err);
	}
}

static void create_buffers(struct gears *g)
{
	if (g->renderer->impl->create_buffer) {
		create_renderer_buffers(g);
		return;
	}
	if (g->opt.buffer_type == SW_BUFFER_DMABUF) {
		/* dmabuf first; wl_shm when the compositor or device can't. */
		const char *why = NULL;
		char card_why[256];
		if (!g->display->dmabuf)
			why = "the compositor offers no zwp_linux_dmabuf_v1";
		else if ((g->card_fd = sw_buffer_open_card(g->drm_fd, card_why, sizeof(card_why))) < 0)
			why = card_why;
		if (why) {
			fprintf(stderr, "syncway-gears: %s: falling back to wl_shm\n", why);
			g->opt.buffer_type = SW_BUFFER_SHM;
		}
	}
	for (int i = 0; i < g->opt.n_buffers; i++) {
		struct sw_timeline *release = sw_timeline_create(g->display->syncobj_manager, g->drm_fd, &g->stats);
		if (!release)
			sw_die("cannot create a release timeline: %s", strerror(errno));
		g->buffers[i] = sw_buffer_create(g->display, g->opt.buffer_type, g->card_fd,
						 DRM_FORMAT_XRGB8888, g->opt.width, g->opt.height,
						 release);
		if (!g->buffers[i] && g->opt.buffer_type == SW_BUFFER_DMABUF && i == 0) {
			fprintf(stderr, "syncway-gears: dumb buffer/PRIME export failed (%s): falling back to wl_shm\n",
				strerror(errno));
			g->opt.buffer_type = SW_BUFFER_SHM;
			g->buffers[i] = sw_buffer_create(g->display, SW_BUFFER_SHM, -1,
							 DRM_FORMAT_XRGB8888, g->opt.width,
							 g->opt.height, release);
		}
		if (!g->buffers[i])
			sw_die("cannot create buffer %d: %s", i, strerror(errno));
	}
}

/* After the surface is gone every release point handed out must signal
 * (rule 32); the checksums of those last buffers are checked too. */
static void check_final_releases(struct gears *g)
{
	int n;
	int ret = sw_buffers_wait_released(g->buffers, g->opt.n_buffers, &g->stats, g->drm_fd,
					   FINAL_RELEASE_TIMEOUT_NS, &n);
	if (ret) {
		fail(g, "%d release points not signalled within 2 s of destroying the surface (%s)",
		     n, strerror(-ret));
		return;
	}
	for (int i = 0; i < g->opt.n_buffers; i++)
		if (g->buffers[i]->busy)
			buffer_released(g, g->buffers[i]);
	fprintf(stderr, "syncway-gears: all %d last release points signalled after the surface was destroyed\n", n);
}

static void report(struct gears *g, double secs)
{
	struct sw_present *p = &g->present;
	struct sw_series_summary iv, lat, acq;
	sw_series_summarize(&p->intervals, &iv);
	sw_series_summarize(&p->latencies, &lat);
	sw_series_summarize(&p->acquire_latencies, &acq);
	struct sw_syncobj_stats total;
	total_stats(g, &total);
	uint64_t wl_releases = 0;
	for (int i = 0; i < g->opt.n_buffers; i++)
		wl_releases += g->buffers[i]->wl_releases;
	double fps = p->presented > 1 ? (double)(p->presented - 1) /
					((double)(p->last_present_ns - p->first_present_ns) / 1e9) : 0;
	const char *mode = mode_names[g->opt.mode];
	const char *buf = sw_buffer_type_name(g->opt.buffer_type);

	printf("syncway-gears: %s, %s, %s, %dx%d, %d buffers%s: %" PRIu64 " frames committed in %.2f s, %"
	       PRIu64 " presented, %" PRIu64 " discarded (superseded), %.2f FPS presented\n",
	       g->renderer->description, buf, mode, g->opt.width, g->opt.height, g->opt.n_buffers,
	       g->worker ? ", acquire from worker" : g->gpu_acquires ? ", acquire from render sync_file" : "", g->committed, secs, p->presented, p->discarded, fps);
	printf("syncway-gears: frame interval ms: mean %.2f median %.2f p95 %.2f p99 %.2f max %.2f; ",
	       iv.mean / 1e6, iv.median / 1e6, iv.p95 / 1e6, iv.p99 / 1e6, iv.max / 1e6);
	if (p->refresh_ns)
		printf("missed frames %" PRIu64 " (refresh %.2f ms)\n", p->missed, p->refresh_ns / 1e6);
	else
		printf("missed frames n/a (the compositor reports no refresh period; see --refresh)\n");
	printf("syncway-gears: commit->present ms: median %.2f p99 %.2f; ", lat.median / 1e6, lat.p99 / 1e6);
	if (acq.n)
		printf("acquire->present ms: median %.2f p99 %.2f; ", acq.median / 1e6, acq.p99 / 1e6);
	else
		printf("acquire->present n/a (signalled by the GPU); ");
	printf("render %.2f ms/frame\n", g->committed ? (double)g->render_ns / (double)g->committed / 1e6 : 0);
	if (g->commit_timer) {
		struct sw_series_summary err;
		sw_series_summarize(&p->target_errors, &err);
		printf("syncway-gears: commit timing at %.2f FPS: presented - target ms: median %.3f p99 %.3f "
		       "max %.3f (%zu frames)\n", g->opt.target_fps, err.median / 1e6, err.p99 / 1e6,
		       err.max / 1e6, err.n);
	}
	printf("syncway-gears: syncobj %.2f ioctls/frame, %.1f us/frame (%" PRIu64 " calls, %" PRIu64
	       " errors); %" PRIu64 " wl_buffer.release events (ignored)\n",
	       g->committed ? (double)sw_syncobj_stats_count(&total) / (double)g->committed : 0,
	       g->committed ? (double)sw_syncobj_stats_ns(&total) / (double)g->committed / 1e3 : 0,
	       sw_syncobj_stats_count(&total), sw_syncobj_stats_errors(&total), wl_releases);
	sw_syncobj_stats_print(stdout, "syncway-gears:   ", &total);
	if (g->gpu_acquires)
		printf("syncway-gears: %" PRIu64 " acquire points from render sync_files, %" PRIu64
		       " of them still pending when the frame was committed\n", g->gpu_acquires,
		       g->gpu_pending_at_commit);
	if (g->opt.checksum)
		printf("syncway-gears: checksum: %" PRIu64 " verified at release, %" PRIu64
		       " rewritten before release, %" PRIu64 " reused before release\n",
		       g->checks_verified, g->checks_rewritten, g->reused_before_release);

	if (!g->json)
		return;
	fprintf(g->json, "{\"type\":\"summary\",\"renderer\":\"%s\",\"device\":\"%s\",\"buffer\":\"%s\","
		"\"mode\":\"%s\",\"width\":%d,\"height\":%d,\"buffers\":%d,\"gpu_time_ms\":%d,"
		"\"seconds\":%.3f,\"committed\":%" PRIu64 ",\"presented\":%" PRIu64 ",\"discarded\":%" PRIu64
		",\"fps\":%.3f,\"missed\":%" PRIu64 ",\"refresh_ns\":%u,\"interval_ns\":",
		g->renderer->impl->name, g->renderer->description, buf, mode, g->opt.width, g->opt.height,
		g->opt.n_buffers, g->opt.gpu_time_ms, secs, g->committed, p->presented, p->discarded, fps,
		p->missed, p->refresh_ns);
	sw_series_write_json(g->json, &p->intervals);
	fputs(",\"latency_ns\":", g->json);
	sw_series_write_json(g->json, &p->latencies);
	fputs(",\"acquire_to_present_ns\":", g->json);
	sw_series_write_json(g->json, &p->acquire_latencies);
	if (g->commit_timer) {
		fprintf(g->json, ",\"target_fps\":%.3f,\"target_error_ns\":", g->opt.target_fps);
		sw_series_write_json(g->json, &p->target_errors);
	}
	fprintf(g->json, ",\"syncobj_ioctls\":%" PRIu64 ",\"syncobj_ns\":%" PRIu64 ",\"syncobj\":",
		sw_syncobj_stats_count(&total), sw_syncobj_stats_ns(&total));
	sw_syncobj_stats_write_json(g->json, &total, false);
	fprintf(g->json, ",\"checksum\":{\"enabled\":%s,\"verified\":%" PRIu64 ",\"rewritten\":%" PRIu64
		",\"reused_before_release\":%" PRIu64 "},\"wl_buffer_releases\":%" PRIu64 ",\"gpu_acquires\":%" PRIu64 ",\"gpu_pending_at_commit\":%" PRIu64 ",\"failures\":%d}\n",
		g->opt.checksum ? "true" : "false", g->checks_verified, g->checks_rewritten,
		g->reused_before_release, wl_releases, g->gpu_acquires, g->gpu_pending_at_commit, g->failures);
}

int main(int argc, char **argv)
{
	struct gears g = { .drm_fd = -1, .card_fd = -1 };
	parse_options(&g.opt, argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);

	g.display = sw_display_create(NULL);
	if (!g.display)
		sw_die("cannot connect to WAYLAND_DISPLAY=%s", getenv("WAYLAND_DISPLAY"));
	struct sw_display *d = g.display;
	if (!d->compositor || !d->wm_base || !d->shm)
		sw_die("the compositor lacks wl_compositor, xdg_wm_base or wl_shm");
	if (!d->syncobj_manager)
		sw_die("the compositor does not offer wp_linux_drm_syncobj_manager_v1");
	char err[256];
	g.drm_fd = sw_drm_open_render_node(err, sizeof(err));
	if (g.drm_fd < 0)
		sw_die("%s", err);

	if (strcmp(g.opt.renderer, "vulkan") == 0) {
		g.renderer = sw_renderer_vulkan_create(g.opt.width, g.opt.height, err, sizeof(err));
	} else if (strcmp(g.opt.renderer, "gles2") == 0) {
		/* Its buffers are not mapped: nothing to checksum or picture. */
		if (g.opt.checksum || g.opt.png_path)
			sw_die("--checksum and --png read the buffers with the CPU; the gles2 renderer's are not mapped");
		g.renderer = sw_renderer_gles2_create(g.drm_fd, err, sizeof(err));
		if (!g.renderer) {
			/* No GPU to speak of: a plain failure, not a usage error. */
			fprintf(stderr, "syncway-gears: gles2 renderer: %s\n", err);
			return 1;
		}
	} else {
		g.renderer = sw_renderer_pixman_create(err, sizeof(err));
	}
	if (!g.renderer)
		sw_die("%s renderer: %s", g.opt.renderer, err);
	if (g.opt.json_path && !(g.json = fopen(g.opt.json_path, "w")))
		sw_die("%s: %s", g.opt.json_path, strerror(errno));

	sw_present_init(&g.present, d);
	g.present.fps_out = stdout;
	g.present.window_ns = (int64_t)(g.opt.report_s * 1e9);
	if (g.opt.refresh_hz > 0)
		g.present.fallback_refresh_ns = (uint32_t)(1e9 / g.opt.refresh_hz);
	g.present.frame_done = on_frame_done;
	g.present.acquire_time = acquire_time;
	g.present.data = &g;

	sw_window_init(&g.window, d, g.opt.title);
	g.sync_surface = wp_linux_drm_syncobj_manager_v1_get_surface(d->syncobj_manager, g.window.surface);
	if (g.opt.mode == MODE_FIFO) {
		if (d->fifo_manager) {
			g.fifo = wp_fifo_manager_v1_get_fifo(d->fifo_manager, g.window.surface);
		} else {
			fprintf(stderr, "syncway-gears: the compositor offers no wp_fifo_manager_v1: "
				"pacing with frame callbacks instead\n");
			g.opt.mode = MODE_FRAME_CALLBACK;
		}
	}
	if (g.opt.target_fps > 0) {
		if (!d->commit_timing_manager)
			sw_die("--target-fps needs wp_commit_timing_manager_v1, which the compositor does not offer");
		g.commit_timer = wp_commit_timing_manager_v1_get_timer(d->commit_timing_manager, g.window.surface);
	}
	g.acquire = sw_timeline_create(d->syncobj_manager, g.drm_fd, &g.stats);
	if (!g.acquire)
		sw_die("cannot create the acquire timeline: %s", strerror(errno));
	if (g.opt.gpu_time_ms > 0 && !(g.worker = sw_acquire_worker_create(g.acquire, 0, d->presentation_clock)))
		sw_die("cannot start the acquire worker");
	create_buffers(&g);
	fprintf(stderr, "syncway-gears: %s, %s buffers, %s mode\n", g.renderer->description,
		sw_buffer_type_name(g.opt.buffer_type), mode_names[g.opt.mode]);

	wl_surface_commit(g.window.surface);
	run(&g);
	double secs = (double)(sw_syncobj_now_ns() - g.start_ns) / 1e9;

	/* A picture of the last frame: it is unchanged until its release. */
	if (g.opt.png_path && g.last_committed) {
		struct sw_buffer *b = g.last_committed;
		if (!sw_png_write_xrgb8888(g.opt.png_path, b->data, b->width, b->height, b->stride))
			fail(&g, "cannot write %s", g.opt.png_path);
	}

	/* Every acquire point signalled before the surface goes; the worker's
	 * ioctls stay in the totals. */
	if (g.worker) {
		sw_acquire_worker_flush(g.worker);
		sw_acquire_worker_stats(g.worker, &g.worker_stats);
		sw_acquire_worker_destroy(g.worker);
		g.worker = NULL;
	}
	if (g.frame_cb)
		wl_callback_destroy(g.frame_cb);
	if (g.fifo)
		wp_fifo_v1_destroy(g.fifo);
	if (g.commit_timer)
		wp_commit_timer_v1_destroy(g.commit_timer);
	wp_linux_drm_syncobj_surface_v1_destroy(g.sync_surface);
	sw_window_finish(&g.window);
	if (wl_display_roundtrip(d->display) < 0)
		sw_die("connection lost at the end (protocol error?)");
	check_final_releases(&g);
	report(&g, secs);

	/* The renderer first: Vulkan may have imported the buffer mappings,
	 * GLES2 has EGLImages of the dmabufs. */
	sw_renderer_destroy(g.renderer);
	for (int i = 0; i < g.opt.n_buffers; i++)
		sw_buffer_destroy(g.buffers[i]);
	sw_timeline_destroy(g.acquire);
	sw_present_finish(&g.present);
	sw_scene_finish(&g.scene);
	sw_display_destroy(d);
	if (g.json)
		fclose(g.json);
	close(g.drm_fd);
	if (g.card_fd >= 0)
		close(g.card_fd);
	if (g.present.presented == 0 && g.committed > 0)
		g.failures++;
	return g.failures ? 1 : 0;
}
