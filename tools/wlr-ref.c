/* syncway-wlr-ref: a tinywl-sized compositor on wlroots 0.18 that offers
 * linux-drm-syncobj-v1 through wlroots' own manager. It stands for the
 * wlroots 0.18 compositors in the peer comparison and the conformance
 * matrix (docs/peers.md, "The wlroots 0.18 reference"): headless, one
 * output, xdg-shell toplevels at fixed places drawn by wlr_scene,
 * wp_presentation, linux-dmabuf, a seat without devices.
 *
 * wlroots 0.18.2 (its headers and types/wlr_linux_drm_syncobj_v1.c) has the
 * manager, which checks the requests and holds a commit until its acquire
 * point *materializes* (lock_surface_commit(), WAIT_AVAILABLE), and nothing
 * else: no features.timeline to ask renderer and backend (0.19, 514c4b4cc),
 * no timelines in the scene or the renderers, no release helper (0.19,
 * 850dd7a79). So the reference adds the least a 0.18 compositor must, the
 * "glue" below: a commit is held until its acquire point signals (0.18's
 * timeline waiter and surface locks), and a release point is signalled
 * from the CPU once wlroots lets its buffer go, as 0.19's helper does.
 * --manager-only leaves the glue out: the manager alone. --syncobj-node
 * gives the manager a render node when the renderer has none (pixman): the
 * glue's waits and signals are the CPU's, so pixman needs no fence. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <xf86drm.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/render/allocator.h>
#include <wlr/render/drm_syncobj.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_linux_dmabuf_v1.h>
#include <wlr/types/wlr_linux_drm_syncobj_v1.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_subcompositor.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#include <wlr/version.h>

static const char usage[] =
	"usage: syncway-wlr-ref [options]\n"
	"The wlroots " WLR_VERSION_STR " reference compositor of syncway's peer comparison: headless,\n"
	"one output, xdg-shell windows at fixed places, no input devices. It offers\n"
	"linux-drm-syncobj-v1 through wlroots' own manager where the renderer has a DRM\n"
	"device (WLR_RENDERER=gles2 or vulkan; pixman with --syncobj-node), and, as\n"
	"wlroots 0.18 does not, waits for acquire points to signal and signals release\n"
	"points itself.\n"
	"      --mode WxH[@HZ]  the output's mode (default 1280x720@60)\n"
	"      --syncobj-node PATH  with a renderer on no DRM device (pixman), offer the\n"
	"                       manager on this one (a render node): the acquire waits and\n"
	"                       release points below are the CPU's, so the renderer never\n"
	"                       sees a fence (wlroots 0.19 would not offer it with pixman)\n"
	"      --manager-only   wlroots 0.18's manager alone: no wait for the signal, no\n"
	"                       release points (clients stall; for the conformance suites)\n"
	"  -d, --debug          wlroots' debug log\n"
	"  -v, --version        what it is\n"
	"  -h, --help           this text\n";

struct ref_server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_backend *backend;
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct wlr_scene *scene;
	struct wlr_scene_output_layout *scene_layout;
	struct wlr_output_layout *output_layout;
	int width, height, hz;
	bool glue; /* wait for acquire signals, signal release points */
	const char *syncobj_node; /* --syncobj-node: the manager's device with pixman */
	int syncobj_fd;
	bool output_failed;
	unsigned toplevels; /* toplevels so far, for their places */

	struct wl_listener new_output;
	struct wl_listener new_surface;
	struct wl_listener new_toplevel;
	struct wl_listener new_popup;
};

struct ref_output {
	struct ref_server *server;
	struct wlr_output *wlr_output;
	struct wlr_scene_output *scene_output;

	struct wl_listener frame;
	struct wl_listener destroy; /* no request_state: headless never asks */
};

struct ref_toplevel {
	struct ref_server *server;
	struct wlr_xdg_toplevel *xdg_toplevel;

	struct wl_listener commit;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
	struct wl_listener destroy;
};

struct ref_popup {
	struct wlr_xdg_popup *xdg_popup;

	struct wl_listener commit;
	struct wl_listener destroy;
};

/* The glue, per wl_surface: the commits held until their acquire point
 * signals. Commits apply in order, so only the oldest is waited for: one
 * waiter (an eventfd and its event source) per surface, not per commit. */
struct ref_surface {
	struct ref_server *server;
	struct wlr_surface *surface;
	struct wl_list held; /* ref_held.link, oldest first */
	struct wlr_drm_syncobj_timeline_waiter waiter;
	bool waiting;

	struct wl_listener client_commit;
	struct wl_listener waiter_ready;
	struct wl_listener destroy;
};

/* A commit held by the glue: its surface state's lock and acquire point. */
struct ref_held {
	struct wl_list link;
	struct wlr_drm_syncobj_timeline *timeline;
	uint64_t point;
	uint32_t seq;
};

/* A release point, signalled when its buffer is released. */
struct ref_release {
	struct wlr_drm_syncobj_timeline *timeline;
	uint64_t point;

	struct wl_listener buffer_release;
};

/* --- the glue: acquire waits and release points ---------------------------- */

/* wlroots 0.18 hands the compositor the current syncobj state only
 * (wlr_linux_drm_syncobj_v1_get_surface_state()); the pending one, which a
 * commit must be held on, is the entry at the same index of the pending
 * surface state's synced array (wlr_surface_state.synced: one per
 * wlr_surface_synced, the manager's among them). */
static struct wlr_linux_drm_syncobj_surface_v1_state *syncobj_pending(struct wlr_surface *surface)
{
	struct wlr_linux_drm_syncobj_surface_v1_state *current =
		wlr_linux_drm_syncobj_v1_get_surface_state(surface);
	if (!current)
		return NULL;
	void **cur = surface->current.synced.data, **pend = surface->pending.synced.data;
	size_t n = surface->current.synced.size / sizeof(void *);
	for (size_t i = 0; i < n && i < surface->pending.synced.size / sizeof(void *); i++)
		if (cur[i] == current)
			return pend[i];
	return NULL;
}

static void handle_release_buffer_release(struct wl_listener *listener, void *data)
{
	struct ref_release *release = wl_container_of(listener, release, buffer_release);
	/* From the CPU, as 0.19's helper does: the GLES2 renderer may still
	 * read the buffer on the GPU; a client writing it with a driver that
	 * honours implicit sync waits for those reads. */
	if (drmSyncobjTimelineSignal(release->timeline->drm_fd, &release->timeline->handle,
				     &release->point, 1) != 0)
		wlr_log_errno(WLR_ERROR, "cannot signal a release point");
	wlr_drm_syncobj_timeline_unref(release->timeline);
	wl_list_remove(&release->buffer_release.link);
	free(release);
}

/* Registered when the client commits rather than when the state applies
 * (0.19's scene does it then): a commit dropped unapplied, its surface
 * destroyed while it waits, has its buffer released too. */
static void release_with_buffer(struct wlr_linux_drm_syncobj_surface_v1_state *state,
				struct wlr_buffer *buffer)
{
	struct ref_release *release = calloc(1, sizeof(*release));
	if (!release) {
		wlr_log(WLR_ERROR, "out of memory: a release point will not be signalled");
		return;
	}
	release->timeline = wlr_drm_syncobj_timeline_ref(state->release_timeline);
	release->point = state->release_point;
	release->buffer_release.notify = handle_release_buffer_release;
	/* The pending state holds a lock on its buffer: a release comes. */
	wl_signal_add(&buffer->events.release, &release->buffer_release);
}

static void held_destroy(struct ref_held *held)
{
	wl_list_remove(&held->link);
	wlr_drm_syncobj_timeline_unref(held->timeline);
	free(held);
}

/* Waits for the oldest held commit's point, after letting go of those
 * whose points have signalled. Unlocking may apply states at once. */
static void surface_wait_next(struct ref_surface *rs)
{
	while (!wl_list_empty(&rs->held)) {
		struct ref_held *held = wl_container_of(rs->held.next, held, link);
		bool signalled = false;
		if (!wlr_drm_syncobj_timeline_check(held->timeline, held->point,
						    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, &signalled))
			signalled = true; /* a broken timeline would hold the surface for ever */
		if (!signalled) {
			/* flags 0: until signalled, submitted or not yet. */
			if (wlr_drm_syncobj_timeline_waiter_init(&rs->waiter, held->timeline, held->point, 0,
								 rs->server->loop)) {
				wl_signal_add(&rs->waiter.events.ready, &rs->waiter_ready);
				rs->waiting = true;
				return;
			}
			wlr_log(WLR_ERROR, "cannot wait for an acquire point: the commit applies now");
		}
		uint32_t seq = held->seq;
		held_destroy(held);
		wlr_surface_unlock_cached(rs->surface, seq);
	}
}

static void surface_stop_waiting(struct ref_surface *rs)
{
	if (!rs->waiting)
		return;
	wl_list_remove(&rs->waiter_ready.link);
	wlr_drm_syncobj_timeline_waiter_finish(&rs->waiter);
	rs->waiting = false;
}

static void handle_surface_waiter_ready(struct wl_listener *listener, void *data)
{
	struct ref_surface *rs = wl_container_of(listener, rs, waiter_ready);
	surface_stop_waiting(rs);
	surface_wait_next(rs);
}

static void handle_surface_client_commit(struct wl_listener *listener, void *data)
{
	struct ref_surface *rs = wl_container_of(listener, rs, client_commit);
	struct wlr_surface *surface = rs->surface;
	struct wlr_linux_drm_syncobj_surface_v1_state *pending = syncobj_pending(surface);
	/* Only commits the manager accepts (its client_commit listener runs
	 * after this one and refuses the rest with a protocol error). */
	if (!pending || !pending->acquire_timeline || !pending->release_timeline ||
	    !surface->pending.buffer)
		return;
	if (pending->acquire_timeline == pending->release_timeline &&
	    pending->acquire_point >= pending->release_point)
		return;
	release_with_buffer(pending, surface->pending.buffer);
	/* Held only while unsignalled: wlroots applies cached states in
	 * order, so a ready commit behind a held one waits anyway. */
	bool signalled = false;
	if (wlr_drm_syncobj_timeline_check(pending->acquire_timeline, pending->acquire_point,
					   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, &signalled) &&
	    signalled)
		return;
	struct ref_held *held = calloc(1, sizeof(*held));
	if (!held) {
		wl_resource_post_no_memory(surface->resource);
		return;
	}
	held->timeline = wlr_drm_syncobj_timeline_ref(pending->acquire_timeline);
	held->point = pending->acquire_point;
	held->seq = wlr_surface_lock_pending(surface);
	wl_list_insert(rs->held.prev, &held->link);
	if (!rs->waiting)
		surface_wait_next(rs);
}

static void handle_surface_destroy(struct wl_listener *listener, void *data)
{
	struct ref_surface *rs = wl_container_of(listener, rs, destroy);
	/* No unlocks: the surface drops its cached states (and their buffers,
	 * whose release points then signal) right after this event; an unlock
	 * now would apply a state to a dying surface. */
	surface_stop_waiting(rs);
	struct ref_held *held, *tmp;
	wl_list_for_each_safe(held, tmp, &rs->held, link)
		held_destroy(held);
	wl_list_remove(&rs->client_commit.link);
	wl_list_remove(&rs->destroy.link);
	free(rs);
}

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct ref_server *server = wl_container_of(listener, server, new_surface);
	struct wlr_surface *surface = data;
	struct ref_surface *rs = calloc(1, sizeof(*rs));
	if (!rs) {
		wl_resource_post_no_memory(surface->resource);
		return;
	}
	rs->server = server;
	rs->surface = surface;
	wl_list_init(&rs->held);
	rs->waiter_ready.notify = handle_surface_waiter_ready;
	rs->client_commit.notify = handle_surface_client_commit;
	wl_signal_add(&surface->events.client_commit, &rs->client_commit);
	rs->destroy.notify = handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &rs->destroy);
}

/* --- the output -------------------------------------------------------------- */

static void handle_output_frame(struct wl_listener *listener, void *data)
{
	struct ref_output *output = wl_container_of(listener, output, frame);
	/* The scene draws what changed and sends the presentation feedback
	 * of what it drew (wlr_presentation finds the surfaces itself). */
	wlr_scene_output_commit(output->scene_output, NULL);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wlr_scene_output_send_frame_done(output->scene_output, &now);
}

static void handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct ref_output *output = wl_container_of(listener, output, destroy);
	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->destroy.link);
	free(output);
}

static void handle_new_output(struct wl_listener *listener, void *data)
{
	struct ref_server *server = wl_container_of(listener, server, new_output);
	struct wlr_output *wlr_output = data;
	struct ref_output *output = calloc(1, sizeof(*output));
	if (!output || !wlr_output_init_render(wlr_output, server->allocator, server->renderer)) {
		free(output);
		server->output_failed = true;
		return;
	}
	/* The headless backend takes any mode: the one we were given. */
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	wlr_output_state_set_custom_mode(&state, server->width, server->height, server->hz * 1000);
	bool ok = wlr_output_commit_state(wlr_output, &state);
	wlr_output_state_finish(&state);
	if (!ok) {
		fprintf(stderr, "syncway-wlr-ref: the output takes no %dx%d@%d mode\n", server->width,
			server->height, server->hz);
		free(output);
		server->output_failed = true;
		return;
	}
	output->server = server;
	output->wlr_output = wlr_output;
	output->frame.notify = handle_output_frame;
	wl_signal_add(&wlr_output->events.frame, &output->frame);
	output->destroy.notify = handle_output_destroy;
	wl_signal_add(&wlr_output->events.destroy, &output->destroy);
	struct wlr_output_layout_output *lo = wlr_output_layout_add_auto(server->output_layout, wlr_output);
	output->scene_output = wlr_scene_output_create(server->scene, wlr_output);
	if (!lo || !output->scene_output) {
		server->output_failed = true;
		return;
	}
	wlr_scene_output_layout_add_output(server->scene_layout, lo, output->scene_output);
}

/* --- xdg-shell ---------------------------------------------------------------- */

static void handle_toplevel_commit(struct wl_listener *listener, void *data)
{
	struct ref_toplevel *toplevel = wl_container_of(listener, toplevel, commit);
	/* The first configure answers the initial commit; size 0x0 lets the
	 * client choose, and every window is shown as the active one. */
	if (toplevel->xdg_toplevel->base->initial_commit) {
		wlr_xdg_toplevel_set_size(toplevel->xdg_toplevel, 0, 0);
		wlr_xdg_toplevel_set_activated(toplevel->xdg_toplevel, true);
	}
}

/* Maximize and fullscreen are not done, but xdg-shell wants a configure
 * in reply, once the surface has had its first. */
static void handle_toplevel_request_maximize(struct wl_listener *listener, void *data)
{
	struct ref_toplevel *toplevel = wl_container_of(listener, toplevel, request_maximize);
	if (toplevel->xdg_toplevel->base->initialized)
		wlr_xdg_surface_schedule_configure(toplevel->xdg_toplevel->base);
}

static void handle_toplevel_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct ref_toplevel *toplevel = wl_container_of(listener, toplevel, request_fullscreen);
	if (toplevel->xdg_toplevel->base->initialized)
		wlr_xdg_surface_schedule_configure(toplevel->xdg_toplevel->base);
}

static void handle_toplevel_destroy(struct wl_listener *listener, void *data)
{
	struct ref_toplevel *toplevel = wl_container_of(listener, toplevel, destroy);
	wl_list_remove(&toplevel->commit.link);
	wl_list_remove(&toplevel->request_maximize.link);
	wl_list_remove(&toplevel->request_fullscreen.link);
	wl_list_remove(&toplevel->destroy.link);
	free(toplevel);
}

static void handle_new_toplevel(struct wl_listener *listener, void *data)
{
	struct ref_server *server = wl_container_of(listener, server, new_toplevel);
	struct wlr_xdg_toplevel *xdg_toplevel = data;
	struct ref_toplevel *toplevel = calloc(1, sizeof(*toplevel));
	struct wlr_scene_tree *tree = wlr_scene_xdg_surface_create(&server->scene->tree, xdg_toplevel->base);
	if (!toplevel || !tree) {
		free(toplevel);
		wl_resource_post_no_memory(xdg_toplevel->resource);
		return;
	}
	/* Fixed places, a cascade of eight, so that windows that come
	 * together overlap little; the scene shows the tree once mapped. */
	int step = 32 * (int)(server->toplevels++ % 8);
	wlr_scene_node_set_position(&tree->node, step, step);
	xdg_toplevel->base->data = tree; /* the parent of its popups' trees */
	toplevel->server = server;
	toplevel->xdg_toplevel = xdg_toplevel;
	toplevel->commit.notify = handle_toplevel_commit;
	wl_signal_add(&xdg_toplevel->base->surface->events.commit, &toplevel->commit);
	toplevel->request_maximize.notify = handle_toplevel_request_maximize;
	wl_signal_add(&xdg_toplevel->events.request_maximize, &toplevel->request_maximize);
	toplevel->request_fullscreen.notify = handle_toplevel_request_fullscreen;
	wl_signal_add(&xdg_toplevel->events.request_fullscreen, &toplevel->request_fullscreen);
	toplevel->destroy.notify = handle_toplevel_destroy;
	wl_signal_add(&xdg_toplevel->events.destroy, &toplevel->destroy);
}

static void handle_popup_commit(struct wl_listener *listener, void *data)
{
	struct ref_popup *popup = wl_container_of(listener, popup, commit);
	if (popup->xdg_popup->base->initial_commit)
		wlr_xdg_surface_schedule_configure(popup->xdg_popup->base);
}

static void handle_popup_destroy(struct wl_listener *listener, void *data)
{
	struct ref_popup *popup = wl_container_of(listener, popup, destroy);
	wl_list_remove(&popup->commit.link);
	wl_list_remove(&popup->destroy.link);
	free(popup);
}

static void handle_new_popup(struct wl_listener *listener, void *data)
{
	struct wlr_xdg_popup *xdg_popup = data;
	/* A popup's tree goes under its parent's (an xdg surface here: no
	 * layer shell); one without a parent yet is left undrawn. */
	struct wlr_xdg_surface *parent =
		xdg_popup->parent ? wlr_xdg_surface_try_from_wlr_surface(xdg_popup->parent) : NULL;
	struct ref_popup *popup = calloc(1, sizeof(*popup));
	if (!popup) {
		wl_resource_post_no_memory(xdg_popup->resource);
		return;
	}
	if (parent && parent->data)
		xdg_popup->base->data = wlr_scene_xdg_surface_create(parent->data, xdg_popup->base);
	popup->xdg_popup = xdg_popup;
	popup->commit.notify = handle_popup_commit;
	wl_signal_add(&xdg_popup->base->surface->events.commit, &popup->commit);
	popup->destroy.notify = handle_popup_destroy;
	wl_signal_add(&xdg_popup->events.destroy, &popup->destroy);
}

/* --- start-up ------------------------------------------------------------------- */

static int handle_signal(int signal, void *data)
{
	wl_display_terminate(data);
	return 0;
}

static bool parse_mode(const char *s, struct ref_server *server)
{
	int w, h, hz = 60;
	char at, end;
	int n = sscanf(s, "%dx%d%c%d%c", &w, &h, &at, &hz, &end);
	if (!(n == 2 || (n == 4 && at == '@')) || w < 1 || h < 1 || w > 16384 || h > 16384 || hz < 1 ||
	    hz > 1000)
		return false;
	server->width = w;
	server->height = h;
	server->hz = hz;
	return true;
}

/* wlroots 0.19 offers the protocol where renderer and backend have
 * features.timeline: the headless backend always, GLES2 and Vulkan on a
 * device with timeline syncobjs, pixman never. 0.18 cannot ask; a renderer
 * on a DRM device is what it can see, and the manager checks the device
 * (DRM_CAP_SYNCOBJ_TIMELINE and the syncobj eventfd) itself. */
static const char *offer_syncobj(struct ref_server *server, struct wlr_compositor *compositor)
{
	static char why[160];
	int fd = wlr_renderer_get_drm_fd(server->renderer);
	bool own = false;
	if (fd < 0 && server->syncobj_node) {
		/* The glue waits for acquire points and signals release points
		 * on the CPU, and pixman reads a buffer only once its commit is
		 * applied: a device for the manager's timelines is all it
		 * lacks. Not the renderer's, so the reference's own. */
		fd = server->syncobj_fd = open(server->syncobj_node, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			snprintf(why, sizeof(why), "off (cannot open %s: %s)", server->syncobj_node,
				 strerror(errno));
			return why;
		}
		own = true;
	}
	if (fd < 0)
		return "off (the renderer has no DRM device: pixman; see --syncobj-node)";
	if (!wlr_linux_drm_syncobj_manager_v1_create(server->display, 1, fd))
		return "off (the device lacks timeline syncobjs or their eventfd)";
	if (!server->glue)
		return own ? "on, wlroots' manager alone (--manager-only), on --syncobj-node" :
			     "on, wlroots' manager alone (--manager-only)";
	server->new_surface.notify = handle_new_surface;
	wl_signal_add(&compositor->events.new_surface, &server->new_surface);
	if (own) {
		snprintf(why, sizeof(why),
			 "on (wlroots' manager on %s, the reference's acquire waits and release points)",
			 server->syncobj_node);
		return why;
	}
	return "on (wlroots' manager, the reference's acquire waits and release points)";
}

static int fail(const char *why)
{
	fprintf(stderr, "syncway-wlr-ref: cannot start: %s\n", why);
	return 1;
}

int main(int argc, char **argv)
{
	struct ref_server server = {
		.width = 1280, .height = 720, .hz = 60, .glue = true, .syncobj_fd = -1,
	};
	enum wlr_log_importance log_level = WLR_ERROR;
	static const struct option options[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "manager-only", no_argument, NULL, 'M' },
		{ "syncobj-node", required_argument, NULL, 'S' },
		{ "debug", no_argument, NULL, 'd' },
		{ "version", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "dvh", options, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (!parse_mode(optarg, &server)) {
				fprintf(stderr, "syncway-wlr-ref: --mode wants WxH or WxH@HZ, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'M':
			server.glue = false;
			break;
		case 'S':
			server.syncobj_node = optarg;
			break;
		case 'd':
			log_level = WLR_DEBUG;
			break;
		case 'v':
			printf("syncway-wlr-ref, wlroots %s (reference)\n", WLR_VERSION_STR);
			return 0;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "syncway-wlr-ref: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	wlr_log_init(log_level, NULL);

	server.display = wl_display_create();
	if (!server.display)
		return fail("no Wayland display");
	server.loop = wl_display_get_event_loop(server.display);
	/* Headless, whatever WLR_BACKENDS says: the peers are all headless. */
	server.backend = wlr_headless_backend_create(server.loop);
	if (!server.backend)
		return fail("no headless backend");
	/* WLR_RENDERER picks it; GLES2 and Vulkan open a render node. */
	server.renderer = wlr_renderer_autocreate(server.backend);
	if (!server.renderer)
		return fail("no renderer (see WLR_RENDERER; wlroots' log above)");
	if (!wlr_renderer_init_wl_shm(server.renderer, server.display))
		return fail("no wl_shm");
	server.allocator = wlr_allocator_autocreate(server.backend, server.renderer);
	if (!server.allocator)
		return fail("no allocator for the renderer");
	struct wlr_compositor *compositor = wlr_compositor_create(server.display, 6, server.renderer);
	struct wlr_xdg_shell *xdg_shell = wlr_xdg_shell_create(server.display, 3);
	server.output_layout = wlr_output_layout_create(server.display); /* makes wl_output */
	server.scene = wlr_scene_create();
	if (!compositor || !xdg_shell || !server.output_layout || !server.scene ||
	    !wlr_subcompositor_create(server.display) || !wlr_data_device_manager_create(server.display) ||
	    !wlr_seat_create(server.display, "seat0") ||
	    !wlr_presentation_create(server.display, server.backend) ||
	    !(server.scene_layout = wlr_scene_attach_output_layout(server.scene, server.output_layout)))
		return fail("out of memory for the globals or the scene");
	/* linux-dmabuf as wlr_renderer_init_wl_display() would make it, and
	 * the scene sends its per-surface feedback. */
	if (wlr_renderer_get_texture_formats(server.renderer, WLR_BUFFER_CAP_DMABUF) &&
	    wlr_renderer_get_drm_fd(server.renderer) >= 0) {
		struct wlr_linux_dmabuf_v1 *dmabuf =
			wlr_linux_dmabuf_v1_create_with_renderer(server.display, 4, server.renderer);
		if (!dmabuf)
			return fail("no linux-dmabuf");
		wlr_scene_set_linux_dmabuf_v1(server.scene, dmabuf);
	}
	server.new_toplevel.notify = handle_new_toplevel;
	wl_signal_add(&xdg_shell->events.new_toplevel, &server.new_toplevel);
	server.new_popup.notify = handle_new_popup;
	wl_signal_add(&xdg_shell->events.new_popup, &server.new_popup);
	const char *syncobj = offer_syncobj(&server, compositor);

	server.new_output.notify = handle_new_output;
	wl_signal_add(&server.backend->events.new_output, &server.new_output);
	if (!wlr_headless_add_output(server.backend, server.width, server.height))
		return fail("no headless output");
	const char *socket = wl_display_add_socket_auto(server.display);
	if (!socket)
		return fail("no Wayland socket (is XDG_RUNTIME_DIR set and writable?)");
	if (!wlr_backend_start(server.backend))
		return fail("the headless backend did not start");
	if (server.output_failed)
		return fail("the output could not be set up");
	setenv("WAYLAND_DISPLAY", socket, 1);
	wl_event_loop_add_signal(server.loop, SIGTERM, handle_signal, server.display);
	wl_event_loop_add_signal(server.loop, SIGINT, handle_signal, server.display);

	const char *renderer = getenv("WLR_RENDERER");
	int fd = wlr_renderer_get_drm_fd(server.renderer);
	char *node = fd >= 0 ? drmGetDeviceNameFromFd2(fd) : NULL;
	fprintf(stderr, "syncway-wlr-ref: wlroots %s (reference), renderer %s%s%s, output %dx%d@%d, "
		"linux-drm-syncobj-v1 %s; WAYLAND_DISPLAY=%s\n", WLR_VERSION_STR,
		renderer && *renderer ? renderer : "auto", node ? " on " : "", node ? node : "",
		server.width, server.height, server.hz, syncobj, socket);
	free(node);
	wl_display_run(server.display);

	wl_display_destroy_clients(server.display);
	wlr_scene_node_destroy(&server.scene->tree.node);
	wlr_allocator_destroy(server.allocator);
	wlr_renderer_destroy(server.renderer);
	wlr_backend_destroy(server.backend);
	wl_display_destroy(server.display);
	if (server.syncobj_fd >= 0)
		close(server.syncobj_fd);
	return 0;
}
