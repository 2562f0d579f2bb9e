/* The backend, and the event loop a headless one runs on.
 *
 * On headless outputs syncway's vblank clock (vblank.c) makes the frames.
 * wlroots' headless backend also arms a timer at every commit and sends a
 * frame event when it expires, which syncway ignores; on the display's
 * event loop that timer woke the compositor once more per frame, and the
 * peer comparison (docs/peers.md) counts what a frame costs. A
 * headless-only backend therefore gets an event loop of its own that
 * nobody polls: its timers expire unread, and its idle callbacks (the
 * presentation events, the outputs' frame and done events) run from
 * sw_backend_dispatch_idle(). Any other backend set runs on the display's
 * loop, as wlroots makes it.
 *
 * Re-arming that timer still cost a timerfd_settime() a frame: libwayland
 * programs a loop's timerfd whenever the timer at the top of its heap
 * changes. A timer that expires first and, on a loop nobody dispatches,
 * stays at the top forever keeps the headless backend's re-arms in the
 * heap, away from the kernel.
 *
 * libwayland frees a source removed while its loop runs (every idle
 * callback, once run) only at the end of wl_event_loop_dispatch(), so a
 * loop that only ever runs its idle callbacks keeps every one: two or
 * three a frame, 80 bytes a frame for as long as syncway runs. The
 * backend's loop is dispatched once every IDLE_TURNS_PER_DISPATCH turns
 * to free them: its expired timers then run too (their frame events are
 * not the vblank clock's, which syncway ignores), and the timer at the
 * top is armed again. */
#include <stdlib.h>
#include <string.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/util/log.h>

#include "backend.h"
#include "server.h"

/* At most this many idle sources wait to be freed, a few kilobytes. */
#define IDLE_TURNS_PER_DISPATCH 256

/* WLR_HEADLESS_OUTPUTS, read as wlroots reads it: 1 when unset or bad. */
static long headless_outputs(void)
{
	const char *env = getenv("WLR_HEADLESS_OUTPUTS");
	if (!env)
		return 1;
	char *end;
	long n = strtol(env, &end, 10);
	if (*end || end == env || n < 0) {
		wlr_log(WLR_ERROR, "WLR_HEADLESS_OUTPUTS='%s' is not a count: one output", env);
		return 1;
	}
	return n;
}

static int never_dispatched(void *data)
{
	return 0;
}

bool sw_backend_create(struct sw_server *server)
{
	const char *backends = getenv("WLR_BACKENDS");
	if (!backends || strcmp(backends, "headless") != 0) {
		server->backend = wlr_backend_autocreate(server->loop, &server->session);
		return server->backend != NULL;
	}
	server->backend_loop = wl_event_loop_create();
	if (!server->backend_loop)
		return false;
	server->backend_timer_top = wl_event_loop_add_timer(server->backend_loop, never_dispatched, NULL);
	if (server->backend_timer_top)
		wl_event_source_timer_update(server->backend_timer_top, 1);
	server->backend = wlr_headless_backend_create(server->backend_loop);
	if (!server->backend) {
		sw_backend_destroy(server);
		return false;
	}
	/* wlroots' size; --headless-size applies when the output is enabled. */
	for (long i = headless_outputs(); i > 0; i--)
		wlr_headless_add_output(server->backend, 1280, 720);
	return true;
}

void sw_backend_dispatch_idle(struct sw_server *server)
{
	if (!server->backend_loop)
		return;
	if (++server->backend_idle_turns < IDLE_TURNS_PER_DISPATCH) {
		wl_event_loop_dispatch_idle(server->backend_loop);
		return;
	}
	server->backend_idle_turns = 0;
	wl_event_loop_dispatch(server->backend_loop, 0);
	if (server->backend_timer_top)
		wl_event_source_timer_update(server->backend_timer_top, 1);
}

void sw_backend_destroy(struct sw_server *server)
{
	if (server->backend)
		wlr_backend_destroy(server->backend);
	server->backend = NULL;
	if (server->backend_timer_top)
		wl_event_source_remove(server->backend_timer_top);
	server->backend_timer_top = NULL;
	if (server->backend_loop)
		wl_event_loop_destroy(server->backend_loop);
	server->backend_loop = NULL;
}
