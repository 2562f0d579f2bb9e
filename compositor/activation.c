/* xdg-activation-v1: a client asks for a token, passes it on (to a program
 * it starts, or to another of its windows), and whoever holds it may ask
 * for a window to be focused and raised. Without a rule any client could
 * take the keyboard from the one the user types into, so a token counts
 * only if it was made on syncway's seat, for a surface of the client that
 * had keyboard focus at that moment. wlroots has already checked the
 * serial the client gave (one syncway sent to it) and that the surface
 * had keyboard or pointer focus; pointer focus alone is not enough here,
 * and a token without a surface cannot show whose it was. Other requests
 * are ignored and said so at INFO; a token serves once (wlroots). */
#include "activation.h"

#include <stdlib.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_activation_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "server.h"

struct sw_activation {
	struct sw_server *server;
	struct wlr_xdg_activation_v1 *wlr_activation;

	struct wl_listener new_token;
	struct wl_listener request_activate;
};

/* A token's data is the module when it counts (see above). */
static void handle_new_token(struct wl_listener *listener, void *data)
{
	struct sw_activation *activation = wl_container_of(listener, activation, new_token);
	struct wlr_xdg_activation_token_v1 *token = data;
	struct wlr_seat *seat = activation->server->seat;
	struct wlr_surface *focused = seat->keyboard_state.focused_surface;
	if (token->seat == seat && token->surface && focused &&
	    wl_resource_get_client(token->surface->resource) == wl_resource_get_client(focused->resource))
		token->data = activation;
}

static void handle_request_activate(struct wl_listener *listener, void *data)
{
	struct sw_activation *activation = wl_container_of(listener, activation, request_activate);
	struct wlr_xdg_activation_v1_request_activate_event *event = data;
	struct sw_view *view = view_from_surface(event->surface);
	if (!view || !event->surface->mapped) {
		wlr_log(WLR_INFO, "xdg-activation: ignored: the surface is not a mapped window");
		return;
	}
	const char *title = view_title(view) ? view_title(view) : "";
	if (event->token->data != activation) {
		wlr_log(WLR_INFO, "xdg-activation: \"%s\" not activated: its token was not made "
			"by the client with keyboard focus", title);
		return;
	}
	wlr_log(WLR_INFO, "xdg-activation: activating \"%s\"", title);
	view_focus(view, event->surface);
}

void activation_init(struct sw_server *server)
{
	struct sw_activation *activation = calloc(1, sizeof(*activation));
	if (!activation) {
		wlr_log(WLR_ERROR, "xdg-activation: out of memory; not offered");
		return;
	}
	activation->server = server;
	activation->wlr_activation = wlr_xdg_activation_v1_create(server->display);
	if (!activation->wlr_activation) {
		wlr_log(WLR_ERROR, "xdg-activation: cannot create the global; not offered");
		free(activation);
		return;
	}
	activation->new_token.notify = handle_new_token;
	wl_signal_add(&activation->wlr_activation->events.new_token, &activation->new_token);
	activation->request_activate.notify = handle_request_activate;
	wl_signal_add(&activation->wlr_activation->events.request_activate, &activation->request_activate);
	server->activation = activation;
}

void activation_finish(struct sw_server *server)
{
	struct sw_activation *activation = server->activation;
	if (!activation)
		return;
	wl_list_remove(&activation->new_token.link);
	wl_list_remove(&activation->request_activate.link);
	free(activation);
	server->activation = NULL;
}
