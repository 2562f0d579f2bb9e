/* syncway-soak-client: one client of the soak benchmark (tools/soak,
 * docs/bench.md "Soak"). Until --duration is over it keeps a window that
 * commits a new frame at every frame callback, so that the compositor
 * presents one at every vblank, and churns what a long session sees:
 * - every frame goes with or without linux-drm-syncobj-v1 (the syncobj
 *   surface is dropped and made again), its acquire point signalled before
 *   the commit or, for a quarter of them, once the compositor had a
 *   millisecond to see the commit waiting (and never, when the client
 *   leaves first);
 * - buffers are replaced by new ones of another size and type (wl_shm or
 *   dmabuf), each with a new release timeline;
 * - a second toplevel, a popup and a subsurface come and go;
 * - every --session seconds (on average) it disconnects, cleanly or with
 *   everything still alive, and connects again.
 * The churn is drawn from a seeded generator, so a run can be repeated. A
 * protocol error or a connection lost other than by its own choice ends the
 * run with status 1. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buffer.h"
#include "display.h"
#include "drm_device.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "stats.h"
#include "syncobj.h"
#include "timeline.h"
#include "window.h"
#include "xdg-shell-client-protocol.h"

#define N_BUFFERS 3
/* A window hidden behind others gets no frame callbacks: it commits
 * anyway after this long. */
#define FRAME_TIMEOUT_NS 100000000LL

enum buffer_mode { MODE_SHM, MODE_DMABUF, MODE_MIXED };
enum sync_mode { SYNC_MIXED, SYNC_EXPLICIT, SYNC_IMPLICIT };

/* A surface shown once with one wl_shm buffer: the popup, the subsurface
 * and the second toplevel. */
struct extra {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_popup *popup;
	struct wl_subsurface *subsurface;
	struct sw_window window; /* the second toplevel */
	struct sw_buffer *buffer;
	bool shown;
};

struct soak {
	/* For the whole run. */
	int drm_fd, card_fd;
	enum buffer_mode mode;
	enum sync_mode sync_mode;
	int churn_frames; /* mean frames between changes; 0: none */
	double duration_s, session_s;
	struct stats_rng rng;
	struct sw_syncobj_stats stats;
	uint64_t sessions, frames, explicit_frames, late_acquires, rebuffers, toplevels, popups,
		subsurfaces, sync_toggles, abandoned;

	/* One connection. */
	struct sw_display *d;
	struct wl_subcompositor *subcompositor;
	struct sw_window main;
	struct wp_linux_drm_syncobj_surface_v1 *sync; /* NULL: implicit sync */
	struct sw_timeline *acquire;
	uint64_t late_point; /* committed, to be signalled after a wait; 0: none */
	struct sw_buffer *buffers[N_BUFFERS];
	/* An implicitly synchronized commit frees its buffer at the
	 * wl_buffer.release that brings wl_releases to this. */
	uint64_t release_wanted[N_BUFFERS];
	struct wl_callback *frame_cb;
	int64_t frame_asked_ns;
	bool frame_due;
	uint64_t next_churn; /* in frames */
	struct extra toplevel, popup, sub;
};

static volatile sig_atomic_t quit;
static void on_signal(int sig) { quit = 1; }

static uint64_t rand_below(struct soak *s, uint64_t n) { return stats_rng_below(&s->rng, n); }

static struct sw_buffer *shm_buffer(struct soak *s, int size, uint32_t colour)
{
	struct sw_buffer *b = sw_buffer_create(s->d, SW_BUFFER_SHM, -1, DRM_FORMAT_XRGB8888, size, size, NULL);
	if (!b)
		sw_die("cannot create a wl_shm buffer: %s", strerror(errno));
	sw_buffer_fill(b, colour);
	return b;
}

/* --- the main window's buffers -------------------------------------------- */

static void buffers_destroy(struct soak *s)
{
	for (int i = 0; i < N_BUFFERS; i++) {
		sw_buffer_destroy(s->buffers[i]);
		s->buffers[i] = NULL;
	}
}

/* A new set: 8 to 48 pixels square, of the type the mode allows. */
static void buffers_create(struct soak *s)
{
	buffers_destroy(s);
	int size = 8 + 8 * (int)rand_below(s, 6);
	enum sw_buffer_type type = s->mode == MODE_SHM ? SW_BUFFER_SHM :
				   s->mode == MODE_DMABUF ? SW_BUFFER_DMABUF :
				   rand_below(s, 2) ? SW_BUFFER_DMABUF : SW_BUFFER_SHM;
	for (int i = 0; i < N_BUFFERS; i++) {
		struct sw_timeline *release = NULL;
		if (s->drm_fd >= 0 &&
		    !(release = sw_timeline_create(s->d->syncobj_manager, s->drm_fd, &s->stats)))
			sw_die("cannot create a release timeline: %s", strerror(errno));
		s->buffers[i] = sw_buffer_create(s->d, type, s->card_fd, DRM_FORMAT_XRGB8888, size, size, release);
		if (!s->buffers[i])
			sw_die("cannot create a %dx%d %s buffer: %s", size, size, sw_buffer_type_name(type),
			       strerror(errno));
		s->release_wanted[i] = 0;
	}
	s->rebuffers++;
}

static void buffer_released(void *data, int i)
{
	struct soak *s = data;
	sw_buffer_released(s->buffers[i]);
}

static int free_buffer(struct soak *s)
{
	for (int i = 0; i < N_BUFFERS; i++)
		if (!s->buffers[i]->busy && s->buffers[i]->wl_releases >= s->release_wanted[i])
			return i;
	return -1;
}

/* --- the main window's frames --------------------------------------------- */

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct soak *s = data;
	wl_callback_destroy(cb);
	s->frame_cb = NULL;
	s->frame_due = true;
}
static const struct wl_callback_listener frame_listener = { .done = frame_done };

/* One frame with a free buffer, if there is one; false otherwise. */
static bool draw(struct soak *s)
{
	int i = free_buffer(s);
	if (i < 0)
		return false;
	struct sw_buffer *b = s->buffers[i];
	struct wl_surface *surface = s->main.surface;
	sw_buffer_fill(b, 0xff000000 | (uint32_t)(s->frames * 0x010203));
	if (s->sync) {
		uint64_t point = ++s->acquire->point;
		if (rand_below(s, 4) == 0) {
			s->late_point = point;
			s->late_acquires++;
		} else if (sw_timeline_signal(s->acquire, &s->stats, point)) {
			sw_die("signalling an acquire point: %s", strerror(errno));
		}
		if (!sw_buffer_attach_explicit(b, surface, s->sync, s->acquire, point))
			sw_die("arming a release eventfd: %s", strerror(errno));
		s->explicit_frames++;
	} else {
		wl_surface_attach(surface, b->wl_buffer, 0, 0);
		wl_surface_damage_buffer(surface, 0, 0, b->width, b->height);
		s->release_wanted[i] = b->wl_releases + 1;
	}
	if (s->frame_cb)
		wl_callback_destroy(s->frame_cb);
	s->frame_cb = wl_surface_frame(surface);
	wl_callback_add_listener(s->frame_cb, &frame_listener, s);
	wl_surface_commit(surface);
	s->frame_due = false;
	s->frame_asked_ns = sw_syncobj_now_ns();
	s->frames++;
	return true;
}

/* --- what comes and goes --------------------------------------------------- */

static void extra_destroy(struct extra *e)
{
	if (e->popup)
		xdg_popup_destroy(e->popup);
	if (e->xdg_surface)
		xdg_surface_destroy(e->xdg_surface);
	if (e->subsurface)
		wl_subsurface_destroy(e->subsurface);
	if (e->surface)
		wl_surface_destroy(e->surface);
	sw_window_finish(&e->window);
	sw_buffer_destroy(e->buffer);
	*e = (struct extra){ 0 };
}

static void popup_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct extra *e = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	if (!e->shown) {
		wl_surface_attach(e->surface, e->buffer->wl_buffer, 0, 0);
		wl_surface_commit(e->surface);
		e->shown = true;
	}
}
static const struct xdg_surface_listener popup_surface_listener = { .configure = popup_surface_configure };

static void popup_configure(void *data, struct xdg_popup *p, int32_t x, int32_t y, int32_t w, int32_t h) {}
/* Dismissed by the compositor: it goes at the next churn of popups. */
static void popup_done(void *data, struct xdg_popup *p) {}
static void popup_repositioned(void *data, struct xdg_popup *p, uint32_t token) {}
static const struct xdg_popup_listener popup_listener = {
	.configure = popup_configure,
	.popup_done = popup_done,
	.repositioned = popup_repositioned,
};

static void popup_create(struct soak *s, struct extra *e)
{
	struct xdg_positioner *pos = xdg_wm_base_create_positioner(s->d->wm_base);
	xdg_positioner_set_size(pos, 8, 8);
	xdg_positioner_set_anchor_rect(pos, 0, 0, s->buffers[0]->width, s->buffers[0]->height);
	xdg_positioner_set_anchor(pos, XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT);
	e->buffer = shm_buffer(s, 8, 0xffff8000);
	e->surface = wl_compositor_create_surface(s->d->compositor);
	e->xdg_surface = xdg_wm_base_get_xdg_surface(s->d->wm_base, e->surface);
	xdg_surface_add_listener(e->xdg_surface, &popup_surface_listener, e);
	e->popup = xdg_surface_get_popup(e->xdg_surface, s->main.xdg_surface, pos);
	xdg_popup_add_listener(e->popup, &popup_listener, e);
	xdg_positioner_destroy(pos);
	wl_surface_commit(e->surface);
	s->popups++;
}

/* Synchronized (the default): it shows with the main window's next frame. */
static void subsurface_create(struct soak *s, struct extra *e)
{
	e->buffer = shm_buffer(s, 4, 0xff00ff00);
	e->surface = wl_compositor_create_surface(s->d->compositor);
	e->subsurface = wl_subcompositor_get_subsurface(s->subcompositor, e->surface, s->main.surface);
	wl_subsurface_set_position(e->subsurface, 2, 2);
	wl_surface_attach(e->surface, e->buffer->wl_buffer, 0, 0);
	wl_surface_commit(e->surface);
	e->shown = true;
	s->subsurfaces++;
}

static void toplevel_create(struct soak *s, struct extra *e)
{
	e->buffer = shm_buffer(s, 16, 0xff0080ff);
	sw_window_init(&e->window, s->d, "soak-extra");
	wl_surface_commit(e->window.surface);
	s->toplevels++;
}

static void sync_toggle(struct soak *s)
{
	if (s->sync) {
		wp_linux_drm_syncobj_surface_v1_destroy(s->sync);
		s->sync = NULL;
	} else {
		s->sync = wp_linux_drm_syncobj_manager_v1_get_surface(s->d->syncobj_manager, s->main.surface);
	}
	s->sync_toggles++;
}

static void schedule_churn(struct soak *s)
{
	s->next_churn = s->churn_frames ? s->frames + 1 + rand_below(s, 2 * (uint64_t)s->churn_frames) :
					  UINT64_MAX;
}

/* One change every 1 to 2 × --churn frames. */
static void churn(struct soak *s)
{
	switch (rand_below(s, 5)) {
	case 0:
		if (s->toplevel.window.surface)
			extra_destroy(&s->toplevel);
		else
			toplevel_create(s, &s->toplevel);
		break;
	case 1:
		if (s->popup.surface)
			extra_destroy(&s->popup);
		else
			popup_create(s, &s->popup);
		break;
	case 2:
		if (s->sub.surface)
			extra_destroy(&s->sub);
		else if (s->subcompositor)
			subsurface_create(s, &s->sub);
		break;
	case 3:
		if (s->sync_mode == SYNC_MIXED)
			sync_toggle(s);
		break;
	case 4:
		buffers_create(s);
		break;
	}
	schedule_churn(s);
}

/* --- connections ----------------------------------------------------------- */

static void connect_session(struct soak *s)
{
	s->d = sw_display_create(NULL);
	if (!s->d)
		sw_die("cannot connect to WAYLAND_DISPLAY=%s", getenv("WAYLAND_DISPLAY"));
	if (!s->d->compositor || !s->d->wm_base || !s->d->shm)
		sw_die("the compositor lacks wl_compositor, xdg_wm_base or wl_shm");
	if (s->drm_fd >= 0 && !s->d->syncobj_manager)
		sw_die("the compositor offers no wp_linux_drm_syncobj_manager_v1 (try --buffer shm --sync implicit)");
	if (s->mode != MODE_SHM && !s->d->dmabuf)
		sw_die("the compositor offers no zwp_linux_dmabuf_v1 (try --buffer shm)");
	const struct sw_display_global *g = sw_display_find_global(s->d, wl_subcompositor_interface.name);
	s->subcompositor = g ? wl_registry_bind(s->d->registry, g->name, &wl_subcompositor_interface, 1) : NULL;
	sw_window_init(&s->main, s->d, "soak");
	if (s->drm_fd >= 0 &&
	    !(s->acquire = sw_timeline_create(s->d->syncobj_manager, s->drm_fd, &s->stats)))
		sw_die("cannot create an acquire timeline: %s", strerror(errno));
	bool explicit = s->sync_mode == SYNC_MIXED ? rand_below(s, 2) : s->sync_mode == SYNC_EXPLICIT;
	s->sync = explicit ? wp_linux_drm_syncobj_manager_v1_get_surface(s->d->syncobj_manager,
									   s->main.surface) : NULL;
	buffers_create(s);
	wl_surface_commit(s->main.surface);
	s->frame_due = true;
	schedule_churn(s);
	s->sessions++;
}

/* Clean: every object destroyed and a roundtrip. Abandoned: the same
 * destructors are queued but the connection closes without flushing them,
 * the way a client that crashes leaves. */
static void disconnect_session(struct soak *s, bool clean)
{
	extra_destroy(&s->toplevel);
	extra_destroy(&s->popup);
	extra_destroy(&s->sub);
	if (s->frame_cb)
		wl_callback_destroy(s->frame_cb);
	s->frame_cb = NULL;
	if (s->sync)
		wp_linux_drm_syncobj_surface_v1_destroy(s->sync);
	s->sync = NULL;
	sw_window_finish(&s->main);
	buffers_destroy(s);
	sw_timeline_destroy(s->acquire);
	s->acquire = NULL;
	s->late_point = 0;
	if (s->subcompositor)
		wl_subcompositor_destroy(s->subcompositor);
	if (clean) {
		sw_display_destroy(s->d);
	} else {
		sw_display_abandon(s->d);
		s->abandoned++;
	}
	s->d = NULL;
}

/* Runs one connection until end_ns (or a signal); false when the
 * connection was lost. */
static bool run_session(struct soak *s, int64_t end_ns)
{
	while (!quit) {
		int64_t now = sw_syncobj_now_ns();
		if (now >= end_ns)
			return true;
		if (s->main.closed)
			sw_die("the compositor closed the window");
		if (s->frames >= s->next_churn)
			churn(s);
		if (s->toplevel.window.configured && !s->toplevel.shown) {
			wl_surface_attach(s->toplevel.window.surface, s->toplevel.buffer->wl_buffer, 0, 0);
			wl_surface_commit(s->toplevel.window.surface);
			s->toplevel.shown = true;
		}
		if (!s->frame_due && now - s->frame_asked_ns > FRAME_TIMEOUT_NS)
			s->frame_due = true;
		bool drew = s->main.configured && s->frame_due && draw(s);
		/* A late acquire point: the commit goes out, the compositor
		 * (on the same CPU, as likely as not) gets a millisecond to
		 * take it in and wait, then the point signals. */
		int timeout_ms = s->late_point ? 1 : drew ? 0 : 20;
		if (!sw_buffers_dispatch(s->d, s->buffers, N_BUFFERS, timeout_ms, buffer_released, s))
			return false;
		if (s->late_point) {
			if (sw_timeline_signal(s->acquire, &s->stats, s->late_point))
				sw_die("signalling an acquire point: %s", strerror(errno));
			s->late_point = 0;
		}
	}
	return true;
}

static void usage(FILE *f, int status)
{
	fputs("usage: syncway-soak-client [--duration S] [--session S] [--seed N] [--buffer shm|dmabuf|mixed]\n"
	      "                           [--sync explicit|implicit|mixed] [--churn N]\n"
	      "  --duration S  run this long, then exit 0 (default: until SIGTERM/SIGINT)\n"
	      "  --session S   mean lifetime of a connection (default 10; 0: one for the whole run)\n"
	      "  --seed N      the churn's generator (default: the pid)\n"
	      "  --buffer M    buffer types (default mixed: wl_shm and dmabuf in turn)\n"
	      "  --sync M      linux-drm-syncobj-v1 on every frame, on none, or switched (default mixed)\n"
	      "  --churn N     a change every N frames on average (default 100; 0: none)\n"
	      "With --buffer shm --sync implicit it needs no DRM render node.\n", f);
	exit(status);
}

int main(int argc, char **argv)
{
	struct soak s = { .mode = MODE_MIXED, .sync_mode = SYNC_MIXED, .churn_frames = 100, .session_s = 10,
			  .card_fd = -1 };
	uint64_t seed = (uint64_t)getpid();
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "session", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'r' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "sync", required_argument, NULL, 'y' },
		{ "churn", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': s.duration_s = atof(optarg); break;
		case 's': s.session_s = atof(optarg); break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		case 'b':
			if (strcmp(optarg, "shm") == 0)
				s.mode = MODE_SHM;
			else if (strcmp(optarg, "dmabuf") == 0)
				s.mode = MODE_DMABUF;
			else if (strcmp(optarg, "mixed") == 0)
				s.mode = MODE_MIXED;
			else
				usage(stderr, 2);
			break;
		case 'y':
			if (strcmp(optarg, "explicit") == 0)
				s.sync_mode = SYNC_EXPLICIT;
			else if (strcmp(optarg, "implicit") == 0)
				s.sync_mode = SYNC_IMPLICIT;
			else if (strcmp(optarg, "mixed") == 0)
				s.sync_mode = SYNC_MIXED;
			else
				usage(stderr, 2);
			break;
		case 'c': s.churn_frames = atoi(optarg); break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (optind != argc || s.duration_s < 0 || s.session_s < 0 || s.churn_frames < 0)
		usage(stderr, 2);
	stats_rng_seed(&s.rng, seed);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	char err[256];
	/* Only timelines and dmabufs need the device: shm with implicit sync
	 * soaks a compositor on a machine without one. */
	s.drm_fd = -1;
	if (s.sync_mode != SYNC_IMPLICIT || s.mode != MODE_SHM) {
		s.drm_fd = sw_drm_open_render_node(err, sizeof(err));
		if (s.drm_fd < 0)
			sw_die("%s", err);
	}
	if (s.mode != MODE_SHM && (s.card_fd = sw_buffer_open_card(s.drm_fd, err, sizeof(err))) < 0)
		sw_die("%s (try --buffer shm)", err);

	int64_t start = sw_syncobj_now_ns();
	int64_t end = s.duration_s > 0 ? start + (int64_t)(s.duration_s * 1e9) : INT64_MAX;
	int status = 0;
	while (!quit && sw_syncobj_now_ns() < end) {
		connect_session(&s);
		/* Lifetimes from 0.5 to 1.5 times --session. */
		int64_t life = (int64_t)(s.session_s * 1e9 * (0.5 + (double)rand_below(&s, 1000) / 1000));
		int64_t session_end = s.session_s > 0 ? sw_syncobj_now_ns() + life : INT64_MAX;
		if (!run_session(&s, session_end < end ? session_end : end)) {
			int code = wl_display_get_error(s.d->display);
			const struct wl_interface *iface;
			uint32_t id;
			if (code == EPROTO) {
				uint32_t perr = wl_display_get_protocol_error(s.d->display, &iface, &id);
				fprintf(stderr, "syncway-soak-client: protocol error %u on %s#%u\n", perr,
					iface ? iface->name : "?", id);
			} else {
				fprintf(stderr, "syncway-soak-client: connection lost: %s\n", strerror(code));
			}
			status = 1;
			sw_display_abandon(s.d);
			break;
		}
		disconnect_session(&s, rand_below(&s, 2));
	}
	printf("syncway-soak-client: seed %" PRIu64 ": %" PRIu64 " sessions (%" PRIu64 " abandoned), %" PRIu64
	       " frames (%" PRIu64 " explicit, %" PRIu64 " with a late acquire point), %" PRIu64
	       " buffer sets, %" PRIu64 " sync toggles, %" PRIu64 " toplevels, %" PRIu64 " popups, %" PRIu64
	       " subsurfaces\n", seed, s.sessions, s.abandoned, s.frames, s.explicit_frames, s.late_acquires,
	       s.rebuffers, s.sync_toggles, s.toplevels, s.popups, s.subsurfaces);
	if (s.drm_fd >= 0)
		close(s.drm_fd);
	if (s.card_fd >= 0)
		close(s.card_fd);
	return status;
}
