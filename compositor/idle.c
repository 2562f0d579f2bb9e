/* ext-idle-notify-v1 and idle-inhibit-unstable-v1: idle daemons (swayidle)
 * are told when the user has done nothing for their timeouts, and clients
 * showing something the user watches (video players) keep the session
 * awake. Every input event counts as activity (input.c). An inhibitor
 * counts only while its surface is shown: mapped, and on an output as the
 * scene sees it (surface_on_output()); a minimized or unmapped player must
 * not keep the screen on forever. */
#include "idle.h"

#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_idle_inhibit_v1.h>
#include <wlr/types/wlr_idle_notify_v1.h>
#include <wlr/util/log.h>

#include "server.h"

struct sw_idle {
	struct sw_server *server;
	struct wlr_idle_notifier_v1 *notifier;
	struct wlr_idle_inhibit_manager_v1 *inhibit_manager;
	struct wl_list inhibitors; /* sw_idle_inhibitor.link */
	/* Whether the inhibitors hold is decided once per event loop turn:
	 * a surface enters its output only once the scene has placed it,
	 * which may be after the map or commit that asked for the check. */
	struct wl_event_source *check;
	bool inhibited;

	struct wl_listener new_inhibitor;
};

struct sw_idle_inhibitor {
	struct wl_list link; /* sw_idle.inhibitors */
	struct sw_idle *idle;
	struct wlr_idle_inhibitor_v1 *wlr_inhibitor;

	/* Surfaces map in a commit, and unmap in one or when their role goes.
	 * A shown surface may also be moved off every output or covered whole
	 * (or its output turned off): its next commit notices. */
	struct wl_listener commit;
	struct wl_listener unmap;
	struct wl_listener destroy;
};

static void check_inhibitors(void *data)
{
	struct sw_idle *idle = data;
	idle->check = NULL;
	bool inhibited = false;
	struct sw_idle_inhibitor *inhibitor;
	wl_list_for_each(inhibitor, &idle->inhibitors, link) {
		struct wlr_surface *surface = inhibitor->wlr_inhibitor->surface;
		if (surface->mapped && surface_on_output(surface, NULL)) {
			inhibited = true;
			break;
		}
	}
	if (inhibited == idle->inhibited)
		return;
	idle->inhibited = inhibited;
	wlr_log(WLR_INFO, "idle: %s", inhibited ? "inhibited by a shown surface" :
		"no shown surface inhibits it");
	wlr_idle_notifier_v1_set_inhibited(idle->notifier, inhibited);
}

static void schedule_check(struct sw_idle *idle)
{
	if (!idle->check)
		idle->check = wl_event_loop_add_idle(idle->server->loop, check_inhibitors, idle);
}

static void handle_inhibitor_unmap(struct wl_listener *listener, void *data)
{
	struct sw_idle_inhibitor *inhibitor = wl_container_of(listener, inhibitor, unmap);
	schedule_check(inhibitor->idle);
}

static void handle_inhibitor_commit(struct wl_listener *listener, void *data)
{
	struct sw_idle_inhibitor *inhibitor = wl_container_of(listener, inhibitor, commit);
	schedule_check(inhibitor->idle);
}

static void inhibitor_destroy(struct sw_idle_inhibitor *inhibitor)
{
	wl_list_remove(&inhibitor->unmap.link);
	wl_list_remove(&inhibitor->commit.link);
	wl_list_remove(&inhibitor->destroy.link);
	wl_list_remove(&inhibitor->link);
	free(inhibitor);
}

static void handle_inhibitor_destroy(struct wl_listener *listener, void *data)
{
	struct sw_idle_inhibitor *inhibitor = wl_container_of(listener, inhibitor, destroy);
	struct sw_idle *idle = inhibitor->idle;
	inhibitor_destroy(inhibitor);
	schedule_check(idle);
}

static void handle_new_inhibitor(struct wl_listener *listener, void *data)
{
	struct sw_idle *idle = wl_container_of(listener, idle, new_inhibitor);
	struct wlr_idle_inhibitor_v1 *wlr_inhibitor = data;
	struct sw_idle_inhibitor *inhibitor = calloc(1, sizeof(*inhibitor));
	if (!inhibitor) {
		wl_resource_post_no_memory(wlr_inhibitor->resource);
		return;
	}
	inhibitor->idle = idle;
	inhibitor->wlr_inhibitor = wlr_inhibitor;
	struct wlr_surface *surface = wlr_inhibitor->surface;
	inhibitor->unmap.notify = handle_inhibitor_unmap;
	wl_signal_add(&surface->events.unmap, &inhibitor->unmap);
	inhibitor->commit.notify = handle_inhibitor_commit;
	wl_signal_add(&surface->events.commit, &inhibitor->commit);
	/* wlroots destroys the inhibitor with its surface. */
	inhibitor->destroy.notify = handle_inhibitor_destroy;
	wl_signal_add(&wlr_inhibitor->events.destroy, &inhibitor->destroy);
	wl_list_insert(&idle->inhibitors, &inhibitor->link);
	schedule_check(idle);
}

void idle_notify_activity(struct sw_server *server)
{
	if (server->idle)
		wlr_idle_notifier_v1_notify_activity(server->idle->notifier, server->seat);
}

void idle_init(struct sw_server *server)
{
	struct sw_idle *idle = calloc(1, sizeof(*idle));
	if (!idle) {
		wlr_log(WLR_ERROR, "idle: out of memory; no idle notification");
		return;
	}
	idle->server = server;
	wl_list_init(&idle->inhibitors);
	/* Both globals go with the display. */
	idle->notifier = wlr_idle_notifier_v1_create(server->display);
	idle->inhibit_manager = wlr_idle_inhibit_v1_create(server->display);
	if (!idle->notifier || !idle->inhibit_manager) {
		wlr_log(WLR_ERROR, "idle: cannot create the globals");
		free(idle);
		return;
	}
	idle->new_inhibitor.notify = handle_new_inhibitor;
	wl_signal_add(&idle->inhibit_manager->events.new_inhibitor, &idle->new_inhibitor);
	server->idle = idle;
}

void idle_finish(struct sw_server *server)
{
	struct sw_idle *idle = server->idle;
	if (!idle)
		return;
	/* Empty unless a client outlived wl_display_destroy_clients(). */
	struct sw_idle_inhibitor *inhibitor, *tmp;
	wl_list_for_each_safe(inhibitor, tmp, &idle->inhibitors, link)
		inhibitor_destroy(inhibitor);
	if (idle->check)
		wl_event_source_remove(idle->check);
	wl_list_remove(&idle->new_inhibitor.link);
	free(idle);
	server->idle = NULL;
}
