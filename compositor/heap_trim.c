/* Heap pages given back when clients leave.
 *
 * glibc's free() returns memory to the kernel only from the top of the
 * heap; what a client's objects leave free inside it stays resident. Over
 * a session of clients that come and go that is RSS growing with uptime
 * while malloc's bytes in use stay flat (tools/soak, docs/results/soak.md).
 * A second after the last of a burst of clients left, malloc_trim() gives
 * the free pages back (MADV_DONTNEED): one walk of the free lists, off any
 * frame's path. */
#include "heap_trim.h"

#include <malloc.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>

#include "server.h"

#define TRIM_DELAY_MS 1000

struct sw_heap_trim {
	struct sw_server *server;
	struct wl_listener client_created;
	struct wl_event_source *timer;
	struct wl_list clients; /* trim_client.link */
};

struct trim_client {
	struct sw_heap_trim *trim;
	struct wl_listener destroy;
	struct wl_list link;
};

static void trim_client_destroy(struct trim_client *tc)
{
	wl_list_remove(&tc->destroy.link);
	wl_list_remove(&tc->link);
	free(tc);
}

static int handle_timer(void *data)
{
	malloc_trim(0);
	return 0;
}

static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct trim_client *tc = wl_container_of(listener, tc, destroy);
	/* Re-armed by every client that leaves: one trim per burst. */
	wl_event_source_timer_update(tc->trim->timer, TRIM_DELAY_MS);
	trim_client_destroy(tc);
}

static void handle_client_created(struct wl_listener *listener, void *data)
{
	struct sw_heap_trim *trim = wl_container_of(listener, trim, client_created);
	struct wl_client *client = data;
	struct trim_client *tc = calloc(1, sizeof(*tc));
	if (!tc)
		return; /* its departure just does not trim */
	tc->trim = trim;
	tc->destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client, &tc->destroy);
	wl_list_insert(&trim->clients, &tc->link);
}

void heap_trim_init(struct sw_server *server)
{
	struct sw_heap_trim *trim = calloc(1, sizeof(*trim));
	if (!trim) {
		wlr_log(WLR_ERROR, "heap trim: out of memory; free heap pages stay resident");
		return;
	}
	trim->server = server;
	wl_list_init(&trim->clients);
	trim->timer = wl_event_loop_add_timer(server->loop, handle_timer, trim);
	if (!trim->timer) {
		wlr_log(WLR_ERROR, "heap trim: no timer; free heap pages stay resident");
		free(trim);
		return;
	}
	trim->client_created.notify = handle_client_created;
	wl_display_add_client_created_listener(server->display, &trim->client_created);
	server->heap_trim = trim;
}

void heap_trim_finish(struct sw_server *server)
{
	struct sw_heap_trim *trim = server->heap_trim;
	if (!trim)
		return;
	struct trim_client *tc, *tmp;
	wl_list_for_each_safe(tc, tmp, &trim->clients, link)
		trim_client_destroy(tc);
	wl_list_remove(&trim->client_created.link);
	wl_event_source_remove(trim->timer);
	free(trim);
	server->heap_trim = NULL;
}
