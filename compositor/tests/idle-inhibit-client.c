/* idle-inhibit-client: a window that inhibits idle, as a video player does
 * (idle.sh).
 *
 * usage: idle-inhibit-client
 * Maps a 64x64 window with a zwp_idle_inhibitor_v1 on its surface, prints
 * "shown" once its first frame callback came (the compositor drew it),
 * then waits. SIGUSR1 unmaps the window (a null buffer) and prints
 * "hidden"; the inhibitor stays. SIGUSR2 destroys the inhibitor and prints
 * "released"; the window stays. SIGTERM and SIGINT end it. Exits 1 when
 * the compositor offers no zwp_idle_inhibit_manager_v1, 2 on other errors.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <wayland-client.h>

#include "buffer.h"
#include "display.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "window.h"

static volatile sig_atomic_t hide_requested, release_requested, quit;
/* The signals are blocked but while waiting in ppoll(), so that none comes
 * between the check of the flags and the wait. */
static sigset_t wait_mask;

static void handle_signal(int sig)
{
	if (sig == SIGUSR1)
		hide_requested = 1;
	else if (sig == SIGUSR2)
		release_requested = 1;
	else
		quit = 1;
}

static void frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	bool *shown = data;
	*shown = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener frame_listener = { .done = frame_done };

/* One turn: flush, wait for events or a signal, dispatch. */
static void dispatch(struct sw_display *d)
{
	struct wl_display *display = d->display;
	while (wl_display_prepare_read(display) != 0)
		wl_display_dispatch_pending(display);
	if (wl_display_flush(display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(display);
		sw_die("connection lost");
	}
	struct pollfd pfd = { .fd = wl_display_get_fd(display), .events = POLLIN };
	if (ppoll(&pfd, 1, NULL, &wait_mask) <= 0) {
		wl_display_cancel_read(display);
		if (errno != EINTR)
			sw_die("poll: %s", strerror(errno));
		return;
	}
	if (wl_display_read_events(display) < 0 || wl_display_dispatch_pending(display) < 0)
		sw_die("connection lost");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa = { .sa_handler = handle_signal };
	sigset_t blocked;
	sigemptyset(&blocked);
	int signals[] = { SIGUSR1, SIGUSR2, SIGTERM, SIGINT };
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		sigaction(signals[i], &sa, NULL);
		sigaddset(&blocked, signals[i]);
	}
	sigprocmask(SIG_BLOCK, &blocked, &wait_mask);

	struct sw_display *d = sw_display_create(NULL);
	if (!d)
		sw_die("cannot connect to the compositor");
	if (!d->compositor || !d->wm_base || !d->shm)
		sw_die("the compositor lacks wl_compositor, xdg_wm_base or wl_shm");
	struct zwp_idle_inhibit_manager_v1 *manager =
		sw_display_bind(d, &zwp_idle_inhibit_manager_v1_interface, 1);
	if (!manager) {
		fprintf(stderr,
			"idle-inhibit-client: the compositor offers no zwp_idle_inhibit_manager_v1\n");
		sw_display_destroy(d);
		return 1;
	}

	struct sw_window window;
	sw_window_init(&window, d, "idle-inhibit-client");
	struct zwp_idle_inhibitor_v1 *inhibitor =
		zwp_idle_inhibit_manager_v1_create_inhibitor(manager, window.surface);
	sw_window_wait_configured(&window, d);

	struct sw_buffer *buffer = sw_buffer_create_solid(d, 64, 64, 0xff4080c0);
	bool shown = false;
	wl_callback_add_listener(wl_surface_frame(window.surface), &frame_listener, &shown);
	sw_window_show(&window, buffer);
	while (!shown && !quit)
		dispatch(d);
	if (shown)
		printf("shown\n");

	while (!quit) {
		if (hide_requested) {
			hide_requested = 0;
			wl_surface_attach(window.surface, NULL, 0, 0);
			wl_surface_commit(window.surface);
			wl_display_roundtrip(d->display);
			printf("hidden\n");
		}
		if (release_requested && inhibitor) {
			zwp_idle_inhibitor_v1_destroy(inhibitor);
			inhibitor = NULL;
			wl_display_roundtrip(d->display);
			printf("released\n");
		}
		dispatch(d);
	}

	if (inhibitor)
		zwp_idle_inhibitor_v1_destroy(inhibitor);
	zwp_idle_inhibit_manager_v1_destroy(manager);
	sw_window_finish(&window);
	sw_buffer_destroy(buffer);
	sw_display_destroy(d);
	return 0;
}
