/* xdg-decoration: syncway draws no window decorations, so every toplevel
 * is told to draw its own (client-side), whatever mode it asks for. The
 * protocol still wants an answer to each request: a configure carrying the
 * mode, which xdg-shell allows only after the surface's initial commit.
 *
 * SYNCWAY_DECORATIONS=server answers server-side instead, and syncway still
 * draws none: no decorations at all, as sway with "default_border none"
 * gives, for comparing the compositors on the same pixels (tools/peers);
 * SYNCWAY_DECORATIONS=none offers no xdg-decoration global, so that each
 * client does what it does without one. Read here rather than as an option
 * because it is a benchmark setting, not a user's. */
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_xdg_decoration_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "server.h"

static enum wlr_xdg_toplevel_decoration_v1_mode answer_mode = WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE;

struct sw_decoration {
	struct wlr_xdg_toplevel_decoration_v1 *wlr_decoration;
	bool answer_pending; /* a request came before the initial commit */

	struct wl_listener request_mode;
	struct wl_listener surface_commit;
	struct wl_listener destroy;
};

static void decoration_answer(struct sw_decoration *decoration)
{
	if (!decoration->wlr_decoration->toplevel->base->initialized) {
		decoration->answer_pending = true;
		return;
	}
	decoration->answer_pending = false;
	wlr_xdg_toplevel_decoration_v1_set_mode(decoration->wlr_decoration, answer_mode);
}

static void handle_request_mode(struct wl_listener *listener, void *data)
{
	struct sw_decoration *decoration = wl_container_of(listener, decoration, request_mode);
	decoration_answer(decoration);
}

static void handle_surface_commit(struct wl_listener *listener, void *data)
{
	struct sw_decoration *decoration = wl_container_of(listener, decoration, surface_commit);
	if (decoration->answer_pending)
		decoration_answer(decoration);
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct sw_decoration *decoration = wl_container_of(listener, decoration, destroy);
	wl_list_remove(&decoration->request_mode.link);
	wl_list_remove(&decoration->surface_commit.link);
	wl_list_remove(&decoration->destroy.link);
	free(decoration);
}

static void handle_new_toplevel_decoration(struct wl_listener *listener, void *data)
{
	struct wlr_xdg_toplevel_decoration_v1 *wlr_decoration = data;
	struct sw_decoration *decoration = calloc(1, sizeof(*decoration));
	if (!decoration) {
		wl_resource_post_no_memory(wlr_decoration->resource);
		return;
	}
	decoration->wlr_decoration = wlr_decoration;
	decoration->request_mode.notify = handle_request_mode;
	wl_signal_add(&wlr_decoration->events.request_mode, &decoration->request_mode);
	decoration->surface_commit.notify = handle_surface_commit;
	wl_signal_add(&wlr_decoration->toplevel->base->surface->events.commit, &decoration->surface_commit);
	decoration->destroy.notify = handle_destroy;
	wl_signal_add(&wlr_decoration->events.destroy, &decoration->destroy);
	/* Without a request the client still learns the mode it gets. */
	decoration_answer(decoration);
}

void decoration_init(struct sw_server *server)
{
	const char *mode = getenv("SYNCWAY_DECORATIONS");
	if (mode && !strcmp(mode, "none")) {
		wlr_log(WLR_INFO, "SYNCWAY_DECORATIONS=none: no xdg-decoration global");
		return;
	}
	if (mode && !strcmp(mode, "server"))
		answer_mode = WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE;
	else if (mode && *mode && strcmp(mode, "client") != 0)
		wlr_log(WLR_ERROR, "SYNCWAY_DECORATIONS=%s: not client, server or none; client-side", mode);
	struct wlr_xdg_decoration_manager_v1 *manager = wlr_xdg_decoration_manager_v1_create(server->display);
	if (!manager) {
		wlr_log(WLR_ERROR, "cannot create the xdg-decoration global");
		return;
	}
	server->new_toplevel_decoration.notify = handle_new_toplevel_decoration;
	wl_signal_add(&manager->events.new_toplevel_decoration, &server->new_toplevel_decoration);
}

void decoration_finish(struct sw_server *server)
{
	if (server->new_toplevel_decoration.link.next)
		wl_list_remove(&server->new_toplevel_decoration.link);
}
