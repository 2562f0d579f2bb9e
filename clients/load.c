/* syncway-load: N explicit-sync surfaces committing as fast as their
 * release points allow, for stress and benchmark runs.
 *
 * Each surface has its own acquire timeline and buffers (each with a
 * release timeline); a frame is a cheap fill, the acquire point is signalled
 * from the CPU right before the commit, and a buffer is reused only once its
 * release point's eventfd fired. One process, one poll loop over every
 * surface; run several processes for more clients.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "buffer.h"
#include "display.h"
#include "drm_device.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "syncobj.h"
#include "timeline.h"
#include "window.h"

#define BUFFERS_PER_SURFACE 3

struct load;

struct load_surface {
	struct load *load;
	int index;
	struct sw_window window;
	struct wp_linux_drm_syncobj_surface_v1 *sync_surface;
	struct sw_timeline *acquire;
	struct sw_buffer *buffers[BUFFERS_PER_SURFACE];
	uint64_t committed;
};

struct load {
	struct sw_display *display;
	int drm_fd, card_fd;
	enum sw_buffer_type type;
	int n_surfaces, width, height;
	double duration_s;
	struct sw_syncobj_stats stats;
	struct load_surface *surfaces;
};

static volatile sig_atomic_t quit;
static void on_signal(int sig) { quit = 1; }

static void surface_create(struct load *l, struct load_surface *s, int index)
{
	struct sw_display *d = l->display;
	s->load = l;
	s->index = index;
	sw_window_init(&s->window, d, "syncway-load");
	s->sync_surface = wp_linux_drm_syncobj_manager_v1_get_surface(d->syncobj_manager, s->window.surface);
	s->acquire = sw_timeline_create(d->syncobj_manager, l->drm_fd, &l->stats);
	if (!s->acquire)
		sw_die("cannot create a timeline: %s", strerror(errno));
	for (int i = 0; i < BUFFERS_PER_SURFACE; i++) {
		struct sw_timeline *release = sw_timeline_create(d->syncobj_manager, l->drm_fd, &l->stats);
		s->buffers[i] = release ? sw_buffer_create(d, l->type, l->card_fd, DRM_FORMAT_XRGB8888,
							   l->width, l->height, release) : NULL;
		if (!s->buffers[i])
			sw_die("cannot create buffer %d of surface %d: %s", i, index, strerror(errno));
	}
	wl_surface_commit(s->window.surface);
}

static void surface_destroy(struct load_surface *s)
{
	wp_linux_drm_syncobj_surface_v1_destroy(s->sync_surface);
	sw_window_finish(&s->window);
}

static void surface_commit(struct load_surface *s, struct sw_buffer *b)
{
	struct load *l = s->load;
	/* A cheap frame: one colour per commit, different per surface. */
	uint32_t colour = 0xff000000 | (uint32_t)((s->committed * 5 + s->index * 40) & 0xff) << 16 |
			  (uint32_t)((s->index * 90) & 0xff) << 8 | 0x80;
	sw_buffer_fill(b, colour);
	uint64_t acquire = ++s->acquire->point;
	if (sw_timeline_signal(s->acquire, &l->stats, acquire))
		sw_die("signalling acquire point: %s", strerror(errno));
	uint64_t release = sw_buffer_next_release(b);
	if (!release)
		sw_die("arming a release eventfd: %s", strerror(errno));
	wp_linux_drm_syncobj_surface_v1_set_acquire_point(s->sync_surface, s->acquire->proxy,
							  acquire >> 32, acquire & 0xffffffff);
	wp_linux_drm_syncobj_surface_v1_set_release_point(s->sync_surface, b->release->proxy,
							  release >> 32, release & 0xffffffff);
	wl_surface_attach(s->window.surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(s->window.surface, 0, 0, b->width, b->height);
	wl_surface_commit(s->window.surface);
	s->committed++;
}

/* One round: every surface with a free buffer commits; then poll. */
static bool step(struct load *l, int timeout_ms)
{
	struct wl_display *dpy = l->display->display;
	bool committed = false;
	for (int i = 0; i < l->n_surfaces; i++) {
		struct load_surface *s = &l->surfaces[i];
		/* A compositor that closes one window ends the run. */
		if (s->window.closed)
			quit = 1;
		if (!s->window.configured)
			continue;
		for (int j = 0; j < BUFFERS_PER_SURFACE; j++) {
			if (!s->buffers[j]->busy) {
				surface_commit(s, s->buffers[j]);
				committed = true;
				break;
			}
		}
	}
	while (wl_display_prepare_read(dpy) != 0)
		wl_display_dispatch_pending(dpy);
	if (wl_display_flush(dpy) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(dpy);
		return false;
	}
	int max = 1 + l->n_surfaces * BUFFERS_PER_SURFACE, n = 0;
	struct pollfd *fds = calloc(max, sizeof(*fds));
	struct sw_buffer **owner = calloc(max, sizeof(*owner));
	fds[n++] = (struct pollfd){ .fd = wl_display_get_fd(dpy), .events = POLLIN };
	for (int i = 0; i < l->n_surfaces; i++) {
		for (int j = 0; j < BUFFERS_PER_SURFACE; j++) {
			struct sw_buffer *b = l->surfaces[i].buffers[j];
			if (b->busy) {
				owner[n] = b;
				fds[n++] = (struct pollfd){ .fd = b->release_fd, .events = POLLIN };
			}
		}
	}
	int ret = poll(fds, n, committed ? 0 : timeout_ms);
	bool ok = true;
	if (ret > 0 && (fds[0].revents & POLLIN))
		ok = wl_display_read_events(dpy) >= 0;
	else
		wl_display_cancel_read(dpy);
	for (int i = 1; ret > 0 && i < n; i++)
		if (fds[i].revents & POLLIN)
			sw_buffer_released(owner[i]);
	free(fds);
	free(owner);
	return ok && wl_display_dispatch_pending(dpy) >= 0;
}

static void usage(FILE *f, int status)
{
	fputs("usage: syncway-load [--surfaces N] [--duration S] [--size WxH] [--buffer dmabuf|shm]\n", f);
	exit(status);
}

int main(int argc, char **argv)
{
	struct load l = { .n_surfaces = 4, .width = 128, .height = 128, .duration_s = 5,
			  .type = SW_BUFFER_SHM, .drm_fd = -1, .card_fd = -1 };
	static const struct option longopts[] = {
		{ "surfaces", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': l.n_surfaces = atoi(optarg); break;
		case 'd': l.duration_s = atof(optarg); break;
		case 's':
			if (sscanf(optarg, "%dx%d", &l.width, &l.height) != 2)
				usage(stderr, 2);
			break;
		case 'b':
			if (strcmp(optarg, "dmabuf") == 0)
				l.type = SW_BUFFER_DMABUF;
			else if (strcmp(optarg, "shm") == 0)
				l.type = SW_BUFFER_SHM;
			else
				usage(stderr, 2);
			break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (l.n_surfaces < 1 || l.n_surfaces > 256 || l.width < 1 || l.height < 1 || l.duration_s <= 0)
		usage(stderr, 2);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	l.display = sw_display_create(NULL);
	if (!l.display)
		sw_die("cannot connect to WAYLAND_DISPLAY=%s", getenv("WAYLAND_DISPLAY"));
	if (!l.display->compositor || !l.display->wm_base || !l.display->syncobj_manager)
		sw_die("the compositor lacks wl_compositor, xdg_wm_base or wp_linux_drm_syncobj_manager_v1");
	char err[256];
	l.drm_fd = sw_drm_open_render_node(err, sizeof(err));
	if (l.drm_fd < 0)
		sw_die("%s", err);
	if (l.type == SW_BUFFER_DMABUF &&
	    (!l.display->dmabuf || (l.card_fd = sw_buffer_open_card(l.drm_fd, err, sizeof(err))) < 0)) {
		fprintf(stderr, "syncway-load: no dmabuf support here (%s): falling back to wl_shm\n",
			l.display->dmabuf ? err : "no zwp_linux_dmabuf_v1");
		l.type = SW_BUFFER_SHM;
	}
	l.surfaces = calloc(l.n_surfaces, sizeof(*l.surfaces));
	for (int i = 0; i < l.n_surfaces; i++)
		surface_create(&l, &l.surfaces[i], i);

	int64_t start = sw_syncobj_now_ns(), end = start + (int64_t)(l.duration_s * 1e9);
	while (!quit && sw_syncobj_now_ns() < end)
		if (!step(&l, 100))
			sw_die("connection lost (protocol error?)");
	double secs = (double)(sw_syncobj_now_ns() - start) / 1e9;

	/* The end: all surfaces go; every release point must then signal. */
	for (int i = 0; i < l.n_surfaces; i++)
		surface_destroy(&l.surfaces[i]);
	if (wl_display_roundtrip(l.display->display) < 0)
		sw_die("connection lost at the end");
	int unsignalled = 0;
	uint64_t total = 0;
	for (int i = 0; i < l.n_surfaces; i++) {
		struct load_surface *s = &l.surfaces[i];
		total += s->committed;
		for (int j = 0; j < BUFFERS_PER_SURFACE; j++) {
			struct sw_buffer *b = s->buffers[j];
			if (b->busy && sw_syncobj_timeline_wait(&l.stats, l.drm_fd, &b->release->handle,
								&b->release_point, 1,
								sw_syncobj_timeout_abs(2000000000LL),
								DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL))
				unsignalled++;
			sw_buffer_destroy(b);
		}
		sw_timeline_destroy(s->acquire);
	}
	printf("syncway-load: %d surfaces, %s %dx%d: %" PRIu64 " commits in %.2f s = %.1f commits/s "
	       "(%.1f per surface); syncobj %.2f ioctls/commit, %.1f us/commit; %d release points not signalled\n",
	       l.n_surfaces, sw_buffer_type_name(l.type), l.width, l.height, total, secs, (double)total / secs,
	       (double)total / secs / l.n_surfaces,
	       total ? (double)sw_syncobj_stats_count(&l.stats) / (double)total : 0,
	       total ? (double)sw_syncobj_stats_ns(&l.stats) / (double)total / 1e3 : 0, unsignalled);
	sw_syncobj_stats_print(stdout, "syncway-load:   ", &l.stats);
	free(l.surfaces);
	sw_display_destroy(l.display);
	close(l.drm_fd);
	if (l.card_fd >= 0)
		close(l.card_fd);
	return unsignalled || total == 0 ? 1 : 0;
}
