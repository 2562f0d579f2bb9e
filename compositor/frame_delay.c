/* A DRM output sends its frame event when the previous frame's page flip
 * completes, at a vblank, and a compositor that renders right then shows
 * the frame at the next vblank: whatever a client commits after the frame
 * event waits almost two refreshes to be seen. Rendering a render budget
 * before the next vblank instead (as sway's max_render_time does) shows
 * commits made until then at that vblank. The next vblank is predicted
 * from the latest presentation and the refresh period the backend
 * reported; a frame event without both is rendered at once. The budget is
 * the user's (--max-render-time): too short, and frames miss their vblank,
 * which the frame statistics count. */
#include "frame_delay.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>

#include "clock.h"

struct sw_frame_delay {
	int64_t budget_ns;
	int64_t vblank_ns;  /* the latest presentation; 0: none */
	int64_t refresh_ns; /* 0: unknown */
	int timer_fd;
	struct wl_event_source *source;
	bool armed;
	void (*render)(void *data);
	void *data;
};

static int handle_timer(int fd, uint32_t mask, void *data)
{
	struct sw_frame_delay *delay = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		wlr_log_errno(WLR_ERROR, "frame delay: reading the timer");
	if (!delay->armed)
		return 0;
	delay->armed = false;
	delay->render(delay->data);
	return 0;
}

struct sw_frame_delay *sw_frame_delay_create(struct wl_event_loop *loop, int64_t budget_ns,
					     void (*render)(void *data), void *data)
{
	struct sw_frame_delay *delay = calloc(1, sizeof(*delay));
	if (!delay)
		return NULL;
	delay->budget_ns = budget_ns;
	delay->render = render;
	delay->data = data;
	delay->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (delay->timer_fd < 0) {
		free(delay);
		return NULL;
	}
	delay->source = wl_event_loop_add_fd(loop, delay->timer_fd, WL_EVENT_READABLE, handle_timer, delay);
	if (!delay->source) {
		close(delay->timer_fd);
		free(delay);
		return NULL;
	}
	return delay;
}

void sw_frame_delay_destroy(struct sw_frame_delay *delay)
{
	if (!delay)
		return;
	wl_event_source_remove(delay->source);
	close(delay->timer_fd);
	free(delay);
}

void sw_frame_delay_presented(struct sw_frame_delay *delay, const struct wlr_output_event_present *event)
{
	if (!event->presented || !event->when)
		return;
	delay->vblank_ns = sw_timespec_ns(*event->when);
	delay->refresh_ns = event->refresh > 0 ? event->refresh : 0;
}

int64_t sw_frame_delay_vblank_ns(const struct sw_frame_delay *delay, int64_t now_ns)
{
	if (!delay->vblank_ns || !delay->refresh_ns)
		return 0;
	int64_t since = now_ns - delay->vblank_ns;
	int64_t n = since < 0 ? 0 : since / delay->refresh_ns + 1;
	return delay->vblank_ns + n * delay->refresh_ns;
}

bool sw_frame_delay_defer(struct sw_frame_delay *delay, int64_t now_ns)
{
	if (delay->armed)
		return true;
	int64_t vblank = sw_frame_delay_vblank_ns(delay, now_ns);
	if (!vblank || delay->budget_ns >= delay->refresh_ns)
		return false;
	int64_t due = vblank - delay->budget_ns;
	if (due <= now_ns)
		return false;
	struct itimerspec spec = { .it_value = sw_ns_timespec(due) };
	if (timerfd_settime(delay->timer_fd, TFD_TIMER_ABSTIME, &spec, NULL) != 0) {
		wlr_log_errno(WLR_ERROR, "frame delay: arming the timer");
		return false;
	}
	delay->armed = true;
	return true;
}
