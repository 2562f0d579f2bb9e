/* Heap pages given back when clients leave.
 *
 * glibc's free() returns memory to the kernel only from the top of the
 * heap; what a client's objects leave free inside it stays resident. Over
 * a session of clients that come and go that is RSS growing with uptime
 * while malloc's bytes in use stay flat (tools/soak, docs/results/soak.md).
 * A second after the last of a burst of clients left, malloc_trim() gives
 * the free pages back (MADV_DONTNEED): one walk of the free lists, off any
 * frame's path.
 *
 * It cannot give back what glibc's tcache holds: up to seven freed chunks
 * of each size up to 1032 bytes, kept per thread outside the free lists,
 * which malloc_trim() does not walk and mallinfo2() counts as in use. Its
 * fill shows as heap in use growing for hours, and the chunks it holds
 * move over the heap, where they keep pages resident that the trim would
 * release (docs/results/soak.md). One chunk a size keeps most of the
 * cache's speed (an allocation freed and made again at once) and a
 * seventh of what it can hold (docs/compositor.md, "What bounds a
 * session"). The cache is set up from GLIBC_TUNABLES when a process
 * starts, so syncway starts itself once more with
 * glibc.malloc.tcache_count=1 added to it, and hands its children the
 * environment it was given. A GLIBC_TUNABLES that sets the count already
 * is the user's choice and is left alone, as are runs under valgrind
 * (whose tools would lose the process at the exec) and sanitizer builds
 * (whose allocator is not glibc's). */
#include "heap_trim.h"

#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>

#include "server.h"

#define TRIM_DELAY_MS 1000

#define TCACHE_ONE "glibc.malloc.tcache_count=1"
/* For the second start: that it is one, and the GLIBC_TUNABLES of the
 * first, if it had one. */
#define ENV_STARTED "SYNCWAY_TCACHE_SET"
#define ENV_TUNABLES_WAS "SYNCWAY_GLIBC_TUNABLES"

static bool under_valgrind_or_sanitizer(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return true;
#endif
#endif
	const char *preload = getenv("LD_PRELOAD");
	return preload && strstr(preload, "vgpreload");
}

/* The children get the environment syncway was started with. */
static void restore_tunables(void)
{
	const char *was = getenv(ENV_TUNABLES_WAS);
	if (was)
		setenv("GLIBC_TUNABLES", was, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	unsetenv(ENV_TUNABLES_WAS);
	unsetenv(ENV_STARTED);
}

void heap_trim_exec_with_small_tcache(char **argv)
{
	if (getenv(ENV_STARTED)) {
		restore_tunables();
		return;
	}
	const char *tunables = getenv("GLIBC_TUNABLES");
	if ((tunables && strstr(tunables, "glibc.malloc.tcache_count")) || under_valgrind_or_sanitizer())
		return;
	char value[4096];
	int n = snprintf(value, sizeof(value), "%s%s" TCACHE_ONE, tunables ? tunables : "",
			 tunables && *tunables ? ":" : "");
	if (n < 0 || (size_t)n >= sizeof(value))
		return;
	if ((tunables && setenv(ENV_TUNABLES_WAS, tunables, 1) != 0) || setenv(ENV_STARTED, "1", 1) != 0 ||
	    setenv("GLIBC_TUNABLES", value, 1) != 0) {
		restore_tunables();
		return;
	}
	/* The binary by its own path, not /proc/self/exe: the process is
	 * named after the file it executes (ps, top, pgrep). */
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (len > 0) {
		path[len] = '\0';
		execv(path, argv);
	}
	/* No /proc, or the binary is gone: glibc's cache stays. */
	restore_tunables();
}

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
