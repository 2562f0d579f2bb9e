/* security-context-v1: a sandbox (Flatpak, syncway-sandbox) hands syncway a
 * listening socket, and every client that connects on it carries the
 * sandbox's engine, app id and instance id. Such a client does not see the
 * globals that read or drive the whole session: screen capture, clipboard
 * control, locking, output configuration and power, gamma, virtual input,
 * input methods, other clients' windows, shortcut inhibition, layer shell
 * (a sandboxed client must not draw a fake lock screen or panel over the
 * session; sway hides it too), and security-context itself (a nested
 * context could shed the restrictions; the protocol asks for this). The
 * one global filter of the display does it by interface name, so a
 * module that adds one of these globals is covered without a hook; it
 * also shows Xwayland's shell only to Xwayland, as wlroots asks. */
#include "security_context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_security_context_v1.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>
#include <wlr/xwayland/server.h>
#include <wlr/xwayland/shell.h>

#include "server.h"

/* Some of these syncway does not offer (yet): a module that adds one is
 * hidden from sandboxes from the start. */
static const char *const privileged_interfaces[] = {
	"zwlr_screencopy_manager_v1",
	"zwlr_export_dmabuf_manager_v1",
	"ext_image_copy_capture_manager_v1",
	"zwlr_data_control_manager_v1",
	"ext_data_control_manager_v1",
	"ext_session_lock_manager_v1",
	"zwlr_output_manager_v1",
	"zwlr_output_power_manager_v1",
	"zwlr_gamma_control_manager_v1",
	"zwp_virtual_keyboard_manager_v1",
	"zwlr_virtual_pointer_manager_v1",
	"zwp_input_method_manager_v2",
	"zwlr_foreign_toplevel_manager_v1",
	"ext_foreign_toplevel_list_v1", /* window titles and app ids */
	"zwp_keyboard_shortcuts_inhibit_manager_v1",
	"zwlr_layer_shell_v1",
	"wp_security_context_manager_v1",
};

struct sw_security_context {
	struct sw_server *server;
	struct wlr_security_context_manager_v1 *manager;
	struct wl_list new_clients; /* sw_new_client.link */

	struct wl_listener commit;
	struct wl_listener client_created;
};

/* A connection not yet looked at: wlroots attaches a sandbox's metadata to
 * the client it accepted only after wl_client_create() returns, that is
 * after the display's client-created signal, so the look-up waits for the
 * loop's next idle turn. */
struct sw_new_client {
	struct wl_list link; /* sw_security_context.new_clients */
	struct sw_security_context *sc;
	struct wl_client *client;
	struct wl_event_source *idle; /* NULL once it ran: the loop removes it */

	struct wl_listener destroy;
};

static const char *or_unset(const char *s)
{
	return s ? s : "(unset)";
}

static bool is_privileged(const char *interface)
{
	for (size_t i = 0; i < sizeof(privileged_interfaces) / sizeof(privileged_interfaces[0]); i++)
		if (strcmp(interface, privileged_interfaces[i]) == 0)
			return true;
	return false;
}

static bool filter_global(const struct wl_client *client, const struct wl_global *global, void *data)
{
	struct sw_security_context *sc = data;
	struct wlr_xwayland *xwayland = sc->server->xwayland;
	if (xwayland && global == xwayland->shell_v1->global)
		return xwayland->server && client == xwayland->server->client;
	if (!is_privileged(wl_global_get_interface(global)->name))
		return true;
	return !wlr_security_context_manager_v1_lookup_client(sc->manager, client);
}

static void new_client_destroy(struct sw_new_client *nc)
{
	wl_list_remove(&nc->link);
	wl_list_remove(&nc->destroy.link);
	if (nc->idle)
		wl_event_source_remove(nc->idle);
	free(nc);
}

static void handle_new_client_idle(void *data)
{
	struct sw_new_client *nc = data;
	nc->idle = NULL;
	const struct wlr_security_context_v1_state *state =
		wlr_security_context_manager_v1_lookup_client(nc->sc->manager, nc->client);
	if (state) {
		pid_t pid = 0;
		wl_client_get_credentials(nc->client, &pid, NULL, NULL);
		wlr_log(WLR_INFO, "security context: sandboxed client pid %d connected: "
			"sandbox_engine %s, app_id %s, instance_id %s; privileged globals hidden",
			(int)pid, or_unset(state->sandbox_engine), or_unset(state->app_id),
			or_unset(state->instance_id));
	}
	new_client_destroy(nc);
}

static void handle_new_client_destroy(struct wl_listener *listener, void *data)
{
	struct sw_new_client *nc = wl_container_of(listener, nc, destroy);
	new_client_destroy(nc);
}

static void handle_client_created(struct wl_listener *listener, void *data)
{
	struct sw_security_context *sc = wl_container_of(listener, sc, client_created);
	struct wl_client *client = data;
	struct sw_new_client *nc = calloc(1, sizeof(*nc));
	if (!nc) {
		wlr_log(WLR_ERROR, "security context: no memory to look at a new client");
		return;
	}
	nc->idle = wl_event_loop_add_idle(sc->server->loop, handle_new_client_idle, nc);
	if (!nc->idle) {
		wlr_log(WLR_ERROR, "security context: no memory to look at a new client");
		free(nc);
		return;
	}
	nc->sc = sc;
	nc->client = client;
	nc->destroy.notify = handle_new_client_destroy;
	wl_client_add_destroy_listener(client, &nc->destroy);
	wl_list_insert(&sc->new_clients, &nc->link);
}

static void handle_commit(struct wl_listener *listener, void *data)
{
	struct wlr_security_context_v1_commit_event *event = data;
	pid_t pid = 0;
	wl_client_get_credentials(event->parent_client, &pid, NULL, NULL);
	wlr_log(WLR_INFO, "security context: new context from pid %d: sandbox_engine %s, "
		"app_id %s, instance_id %s", (int)pid, or_unset(event->state->sandbox_engine),
		or_unset(event->state->app_id), or_unset(event->state->instance_id));
}

void security_context_init(struct sw_server *server)
{
	struct sw_security_context *sc = calloc(1, sizeof(*sc));
	if (!sc) {
		fprintf(stderr, "syncway: security-context-v1: off (no memory)\n");
		return;
	}
	sc->manager = wlr_security_context_manager_v1_create(server->display);
	if (!sc->manager) {
		fprintf(stderr, "syncway: security-context-v1: off (cannot create its global)\n");
		free(sc);
		return;
	}
	sc->server = server;
	wl_list_init(&sc->new_clients);
	sc->commit.notify = handle_commit;
	wl_signal_add(&sc->manager->events.commit, &sc->commit);
	sc->client_created.notify = handle_client_created;
	wl_display_add_client_created_listener(server->display, &sc->client_created);
	wl_display_set_global_filter(server->display, filter_global, sc);
	server->security_context = sc;
}

void security_context_finish(struct sw_server *server)
{
	struct sw_security_context *sc = server->security_context;
	if (!sc)
		return;
	/* The manager and its contexts go with the display, later. */
	wl_display_set_global_filter(server->display, NULL, NULL);
	struct sw_new_client *nc, *tmp;
	wl_list_for_each_safe(nc, tmp, &sc->new_clients, link)
		new_client_destroy(nc);
	wl_list_remove(&sc->commit.link);
	wl_list_remove(&sc->client_created.link);
	free(sc);
	server->security_context = NULL;
}
