/* syncway-offload: the CPU side of a GPU-rendered Vulkan client, for the
 * frame benchmark (docs/bench.md, "The GPU-offload workload").
 *
 * On a real GPU a client like vkgears -present-mailbox spends almost no CPU
 * time rendering, so the syncobj ioctls of each frame are a visible share of
 * its CPU time per frame. This client renders nothing: its dmabufs are
 * filled once, and per frame it makes the calls that a Vulkan application
 * and Mesa's Wayland WSI make with explicit sync:
 *
 *   TIMELINE_WAIT  the WSI's wait for the buffer's release point before it
 *                  hands the image out again (vkAcquireNextImageKHR);
 *   (submit)       the "GPU" is a worker thread: one TIMELINE_SIGNAL of the
 *                  acquire point and the frame's fence (2 handles) stands
 *                  for the completed submit (vkQueueSubmit);
 *   protocol       set_acquire_point, set_release_point, attach, damage,
 *                  commit (vkQueuePresentKHR, mailbox: no frame callback);
 *   WAIT, RESET    the application's vkWaitForFences and vkResetFences on
 *                  its one fence, a binary syncobj.
 *
 * With --sync none the same loop runs without any syncobj: no points, the
 * buffer is reused after wl_buffer.release, the worker only marks the job
 * done and the fence wait is a wait for that. The difference between the two
 * is the syncobj share of a frame.
 *
 * Frames are counted in a window after a warm-up, in CLOCK_MONOTONIC: under
 * QEMU's -icount guest time counts instructions, so frames per guest second
 * are the instruction budget of a frame, compositor and kernel included.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <xf86drm.h>

#include "acquire_worker.h"
#include "buffer.h"
#include "clock.h"
#include "display.h"
#include "drm_device.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "syncobj.h"
#include "timeline.h"
#include "window.h"

#define MAX_BUFFERS 8
/* No wait of this client should ever come near it: a compositor that holds
 * a release point this long is broken, and the run says so. */
#define WAIT_TIMEOUT_NS 5000000000LL

struct options {
	bool explicit_sync;
	int width, height, n_buffers;
	double warmup_s, duration_s;
	const char *json_path;
};

/* What the counters said at one edge of the measured window. */
struct snapshot {
	int64_t t_ns;
	uint64_t frames;
	int64_t idle_ns; /* the whole guest's idle time, /proc/stat */
	int64_t user_ns, sys_ns; /* this process, both threads */
	struct sw_syncobj_stats syncobj; /* this process, both threads */
};

struct offload {
	struct options opt;
	struct sw_display *display;
	struct sw_window window;
	struct wp_linux_drm_syncobj_surface_v1 *sync_surface;

	int drm_fd, card_fd;
	struct sw_syncobj_stats stats; /* main thread */
	struct sw_timeline *acquire;
	uint32_t fence;
	struct sw_acquire_worker *worker;
	struct sw_buffer *buffers[MAX_BUFFERS];
	uint64_t releases_at_commit[MAX_BUFFERS]; /* --sync none */
	uint64_t frames;
	struct snapshot start, end;
};

static volatile sig_atomic_t quit;
static void on_signal(int sig) { quit = 1; }

/* --- measurement ------------------------------------------------------------ */

static int64_t idle_ns(void)
{
	unsigned long long user, nice, sys, idle, iowait;
	FILE *f = fopen("/proc/stat", "re");
	if (!f)
		sw_die("/proc/stat: %s", strerror(errno));
	int n = fscanf(f, "cpu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait);
	fclose(f);
	if (n != 5)
		sw_die("/proc/stat: unexpected first line");
	return (int64_t)((idle + iowait) * (1000000000.0 / (double)sysconf(_SC_CLK_TCK)));
}

static void take_snapshot(struct offload *o, struct snapshot *s)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	s->t_ns = sw_syncobj_now_ns();
	s->frames = o->frames;
	s->idle_ns = idle_ns();
	s->user_ns = sw_timeval_ns(ru.ru_utime);
	s->sys_ns = sw_timeval_ns(ru.ru_stime);
	s->syncobj = o->stats;
	if (o->worker) {
		struct sw_syncobj_stats w;
		sw_acquire_worker_stats(o->worker, &w);
		sw_syncobj_stats_add(&s->syncobj, &w);
	}
}

/* --- one frame ---------------------------------------------------------------- */

static void dispatch_pending(struct offload *o)
{
	struct wl_display *dpy = o->display->display;
	while (wl_display_prepare_read(dpy) != 0)
		wl_display_dispatch_pending(dpy);
	if (wl_display_flush(dpy) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(dpy);
		sw_die("connection lost (protocol error?)");
	}
	struct pollfd pfd = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
	if (poll(&pfd, 1, 0) > 0) {
		if (wl_display_read_events(dpy) < 0)
			sw_die("connection lost (protocol error?)");
	} else {
		wl_display_cancel_read(dpy);
	}
	if (wl_display_dispatch_pending(dpy) < 0)
		sw_die("connection lost (protocol error?)");
}

/* vkAcquireNextImageKHR: the buffer is ours again once the compositor is
 * done with it. */
static void acquire_image(struct offload *o, int i)
{
	struct sw_buffer *b = o->buffers[i];
	if (o->opt.explicit_sync) {
		if (!b->release_point)
			return;
		int ret = sw_syncobj_timeline_wait(&o->stats, o->drm_fd, &b->release->handle,
						   &b->release_point, 1,
						   sw_syncobj_timeout_abs(WAIT_TIMEOUT_NS),
						   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
		if (ret)
			sw_die("release point %" PRIu64 " of buffer %d: %s", b->release_point, i,
			    strerror(-ret));
		return;
	}
	int64_t deadline = sw_syncobj_now_ns() + WAIT_TIMEOUT_NS;
	while (b->busy && b->wl_releases == o->releases_at_commit[i]) {
		if (sw_syncobj_now_ns() > deadline)
			sw_die("buffer %d: no wl_buffer.release within 5 s", i);
		if (wl_display_dispatch(o->display->display) < 0)
			sw_die("connection lost (protocol error?)");
	}
	b->busy = false;
}

/* vkQueuePresentKHR, mailbox: the frame goes out at once, no frame callback. */
static void present(struct offload *o, int i)
{
	struct sw_buffer *b = o->buffers[i];
	if (o->opt.explicit_sync) {
		uint64_t acquire = o->acquire->point;
		uint64_t release = ++b->release->point;
		b->release_point = release;
		wp_linux_drm_syncobj_surface_v1_set_acquire_point(o->sync_surface, o->acquire->proxy,
								  acquire >> 32, acquire & 0xffffffff);
		wp_linux_drm_syncobj_surface_v1_set_release_point(o->sync_surface, b->release->proxy,
								  release >> 32, release & 0xffffffff);
	} else {
		o->releases_at_commit[i] = b->wl_releases;
		b->busy = true;
	}
	wl_surface_attach(o->window.surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(o->window.surface, 0, 0, b->width, b->height);
	wl_surface_commit(o->window.surface);
	if (wl_display_flush(o->display->display) < 0 && errno != EAGAIN)
		sw_die("connection lost (protocol error?)");
}

/* vkWaitForFences + vkResetFences on the frame's fence. */
static void wait_fence(struct offload *o)
{
	if (!o->opt.explicit_sync) {
		sw_acquire_worker_flush(o->worker);
		return;
	}
	int ret = sw_syncobj_wait(&o->stats, o->drm_fd, &o->fence, 1,
				  sw_syncobj_timeout_abs(WAIT_TIMEOUT_NS),
				  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				  NULL);
	if (ret)
		sw_die("waiting for the fence of frame %" PRIu64 ": %s", o->frames, strerror(-ret));
	if ((ret = sw_syncobj_reset(&o->stats, o->drm_fd, &o->fence, 1)))
		sw_die("resetting the fence: %s", strerror(-ret));
}

static void frame(struct offload *o)
{
	int i = (int)(o->frames % (uint64_t)o->opt.n_buffers);
	acquire_image(o, i);
	/* The submit: the "GPU" signals the acquire point and the fence. */
	uint64_t point = o->opt.explicit_sync ? ++o->acquire->point : 0;
	sw_acquire_worker_queue(o->worker, point, o->frames, 0);
	present(o, i);
	wait_fence(o);
	dispatch_pending(o);
	o->frames++;
}

static void run(struct offload *o)
{
	while (!o->window.configured)
		if (wl_display_dispatch(o->display->display) < 0)
			sw_die("connection lost before the first configure");
	int64_t t0 = sw_syncobj_now_ns();
	int64_t warmup_end = t0 + (int64_t)(o->opt.warmup_s * 1e9);
	int64_t end = warmup_end + (int64_t)(o->opt.duration_s * 1e9);
	bool measuring = false;
	while (!quit && !o->window.closed) {
		frame(o);
		int64_t now = sw_syncobj_now_ns();
		if (!measuring && now >= warmup_end) {
			take_snapshot(o, &o->start);
			measuring = true;
		}
		if (measuring && now >= end)
			break;
	}
	if (!measuring)
		sw_die("stopped during the warm-up: nothing measured");
	take_snapshot(o, &o->end);
}

/* --- start and end ------------------------------------------------------------ */

static void usage(FILE *f, int status)
{
	fputs("usage: syncway-offload [--sync explicit|none] [--buffers N] [--size WxH]\n"
	      "                       [--warmup S] [--duration S] [--json FILE]\n", f);
	exit(status);
}

static void parse_options(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sync", required_argument, NULL, 'S' },
		{ "buffers", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	*o = (struct options){ .explicit_sync = true, .width = 64, .height = 64, .n_buffers = 4,
			       .warmup_s = 2, .duration_s = 10 };
	int opt;
	char *end;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'S':
			if (strcmp(optarg, "explicit") == 0)
				o->explicit_sync = true;
			else if (strcmp(optarg, "none") == 0)
				o->explicit_sync = false;
			else
				sw_die("--sync: '%s' is neither explicit nor none", optarg);
			break;
		case 'n':
			o->n_buffers = (int)strtol(optarg, &end, 10);
			if (*end || o->n_buffers < 3 || o->n_buffers > MAX_BUFFERS)
				sw_die("--buffers: '%s' is not a number from 3 to %d", optarg, MAX_BUFFERS);
			break;
		case 's':
			if (sscanf(optarg, "%dx%d", &o->width, &o->height) != 2 || o->width < 1 ||
			    o->height < 1 || o->width > 4096 || o->height > 4096)
				sw_die("--size: '%s' is not WxH (1..4096)", optarg);
			break;
		case 'w':
			o->warmup_s = strtod(optarg, &end);
			if (*end || !(o->warmup_s >= 0))
				sw_die("--warmup: '%s' is not a number of seconds", optarg);
			break;
		case 'd':
			o->duration_s = strtod(optarg, &end);
			if (*end || !(o->duration_s > 0))
				sw_die("--duration: '%s' is not a positive number of seconds", optarg);
			break;
		case 'j': o->json_path = optarg; break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (optind != argc)
		usage(stderr, 2);
}

/* Filled once: a GPU would have rendered them. */
static void create_buffers(struct offload *o)
{
	static const uint32_t colours[MAX_BUFFERS] = { 0xffc03030, 0xff30c030, 0xff3030c0, 0xffc0c030,
						       0xffc030c0, 0xff30c0c0, 0xffc0c0c0, 0xff303030 };
	if (!o->display->dmabuf)
		sw_die("the compositor offers no zwp_linux_dmabuf_v1");
	char why[256];
	if ((o->card_fd = sw_buffer_open_card(o->drm_fd, why, sizeof(why))) < 0)
		sw_die("no primary DRM node for dumb buffers: %s", why);
	for (int i = 0; i < o->opt.n_buffers; i++) {
		struct sw_timeline *release = NULL;
		if (o->opt.explicit_sync &&
		    !(release = sw_timeline_create(o->display->syncobj_manager, o->drm_fd, &o->stats)))
			sw_die("cannot create a release timeline: %s", strerror(errno));
		struct sw_buffer *b = sw_buffer_create(o->display, SW_BUFFER_DMABUF, o->card_fd,
						       DRM_FORMAT_XRGB8888, o->opt.width,
						       o->opt.height, release);
		if (!b)
			sw_die("cannot create dmabuf %d: %s", i, strerror(errno));
		sw_buffer_fill(b, colours[i]);
		o->buffers[i] = b;
	}
}

/* Rule 32 of the protocol: once the surface is gone every release point
 * handed out must signal. */
static bool final_releases_signalled(struct offload *o)
{
	uint32_t handles[MAX_BUFFERS];
	uint64_t points[MAX_BUFFERS];
	uint32_t n = 0;
	for (int i = 0; i < o->opt.n_buffers; i++)
		if (o->buffers[i]->release_point) {
			handles[n] = o->buffers[i]->release->handle;
			points[n++] = o->buffers[i]->release_point;
		}
	int ret = n ? sw_syncobj_timeline_wait(&o->stats, o->drm_fd, handles, points, n,
					       sw_syncobj_timeout_abs(WAIT_TIMEOUT_NS),
					       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
					       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL) : 0;
	if (ret)
		fprintf(stderr, "syncway-offload: FAIL: %u release points not signalled within 5 s "
			"of destroying the surface (%s)\n", n, strerror(-ret));
	return ret == 0;
}

/* The ioctls of one frame, by kind, with the handles each call carries:
 * the model above, fixed by construction; the counts say whether the run
 * kept to it. */
static const struct {
	enum sw_syncobj_op op;
	unsigned handles;
} frame_calls[] = {
	{ SW_SYNCOBJ_TIMELINE_WAIT, 1 },
	{ SW_SYNCOBJ_TIMELINE_SIGNAL, 2 },
	{ SW_SYNCOBJ_WAIT, 1 },
	{ SW_SYNCOBJ_RESET, 1 },
};

static void report(struct offload *o)
{
	const struct snapshot *a = &o->start, *z = &o->end;
	uint64_t frames = z->frames - a->frames;
	int64_t ns = z->t_ns - a->t_ns, idle = z->idle_ns - a->idle_ns;
	double fps = (double)frames / ((double)ns / 1e9);
	double busy_per_frame = frames ? (double)(ns - idle) / (double)frames : 0;
	struct sw_syncobj_stats calls;
	sw_syncobj_stats_diff(&calls, &z->syncobj, &a->syncobj);

	printf("syncway-offload: %s sync, %d dmabufs %dx%d, mailbox: %" PRIu64 " frames in %.3f s "
	       "= %.2f frames/s; idle %.2f %%, %.0f busy ns/frame; CPU %.0f user + %.0f sys ns/frame\n",
	       o->opt.explicit_sync ? "explicit" : "no", o->opt.n_buffers, o->opt.width, o->opt.height,
	       frames, (double)ns / 1e9, fps, 100.0 * (double)idle / (double)ns, busy_per_frame,
	       frames ? (double)(z->user_ns - a->user_ns) / (double)frames : 0,
	       frames ? (double)(z->sys_ns - a->sys_ns) / (double)frames : 0);
	printf("syncway-offload: syncobj calls per frame:");
	for (int op = 0; op < SW_SYNCOBJ_OP_COUNT; op++)
		if (calls.op[op].count)
			printf(" %s %.3f", sw_syncobj_op_name(op),
			       (double)calls.op[op].count / (double)frames);
	printf("%s\n", sw_syncobj_stats_count(&calls) ? "" : " none");
	if (!o->opt.json_path)
		return;
	FILE *f = fopen(o->opt.json_path, "we");
	if (!f)
		sw_die("%s: %s", o->opt.json_path, strerror(errno));
	fprintf(f, "{\"type\":\"summary\",\"client\":\"syncway-offload\",\"sync\":\"%s\",\"buffers\":%d,"
		"\"width\":%d,\"height\":%d,\"warmup_s\":%.3f,\"window_start_ns\":%" PRId64
		",\"window_end_ns\":%" PRId64 ",\"frames\":%" PRIu64 ",\"fps\":%.6f,\"idle_ns\":%" PRId64
		",\"busy_ns_per_frame\":%.3f,\"cpu_user_ns\":%" PRId64 ",\"cpu_sys_ns\":%" PRId64
		",\"syncobj\":",
		o->opt.explicit_sync ? "explicit" : "none", o->opt.n_buffers, o->opt.width, o->opt.height,
		o->opt.warmup_s, a->t_ns, z->t_ns, frames, fps, idle, busy_per_frame,
		z->user_ns - a->user_ns, z->sys_ns - a->sys_ns);
	sw_syncobj_stats_write_json(f, &calls, false);
	fputs(",\"handles_per_call\":{", f);
	for (size_t k = 0; k < sizeof(frame_calls) / sizeof(frame_calls[0]); k++)
		fprintf(f, "%s\"%s\":%u", k ? "," : "", sw_syncobj_op_name(frame_calls[k].op),
			frame_calls[k].handles);
	fputs("}}\n", f);
	if (fclose(f))
		sw_die("%s: %s", o->opt.json_path, strerror(errno));
}

int main(int argc, char **argv)
{
	struct offload o = { .drm_fd = -1, .card_fd = -1 };
	parse_options(&o.opt, argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);

	o.display = sw_display_create(NULL);
	if (!o.display)
		sw_die("cannot connect to WAYLAND_DISPLAY=%s", getenv("WAYLAND_DISPLAY"));
	struct sw_display *d = o.display;
	if (!d->compositor || !d->wm_base)
		sw_die("the compositor lacks wl_compositor or xdg_wm_base");
	if (o.opt.explicit_sync && !d->syncobj_manager)
		sw_die("the compositor does not offer wp_linux_drm_syncobj_manager_v1 (try --sync none)");
	char err[256];
	o.drm_fd = sw_drm_open_render_node(err, sizeof(err));
	if (o.drm_fd < 0)
		sw_die("%s", err);

	sw_window_init(&o.window, d, "syncway-offload");
	if (o.opt.explicit_sync) {
		o.sync_surface = wp_linux_drm_syncobj_manager_v1_get_surface(d->syncobj_manager,
									     o.window.surface);
		o.acquire = sw_timeline_create(d->syncobj_manager, o.drm_fd, &o.stats);
		if (!o.acquire)
			sw_die("cannot create the acquire timeline: %s", strerror(errno));
		if (sw_syncobj_create(&o.stats, o.drm_fd, 0, &o.fence))
			sw_die("cannot create the fence: %s", strerror(errno));
	}
	o.worker = sw_acquire_worker_create(o.acquire, o.fence, d->presentation_clock);
	if (!o.worker)
		sw_die("cannot start the GPU stand-in thread");
	create_buffers(&o);
	wl_surface_commit(o.window.surface);
	run(&o);

	sw_acquire_worker_flush(o.worker);
	sw_acquire_worker_destroy(o.worker);
	if (o.sync_surface)
		wp_linux_drm_syncobj_surface_v1_destroy(o.sync_surface);
	sw_window_finish(&o.window);
	if (wl_display_roundtrip(d->display) < 0)
		sw_die("connection lost at the end (protocol error?)");
	bool ok = !o.opt.explicit_sync || final_releases_signalled(&o);
	report(&o);

	for (int i = 0; i < o.opt.n_buffers; i++)
		sw_buffer_destroy(o.buffers[i]);
	if (o.acquire) {
		sw_timeline_destroy(o.acquire);
		sw_syncobj_destroy(&o.stats, o.drm_fd, o.fence);
	}
	sw_display_destroy(d);
	close(o.drm_fd);
	close(o.card_fd);
	return ok ? 0 : 1;
}
