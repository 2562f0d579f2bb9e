/* wl_event_loop_add_timer() takes relative milliseconds and reprograms
 * libwayland's one timerfd whenever its earliest timer changes. Frame
 * timing wants nanoseconds on the clock the presentation times use, and a
 * periodic expiry that costs no system call a frame: a timerfd of its own
 * on the event loop, armed at absolute times. */
#include "deadline_timer.h"

#include <errno.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>

#include "clock.h"

static int handle_expiry(int fd, uint32_t mask, void *data)
{
	struct sw_deadline_timer *timer = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		wlr_log_errno(WLR_ERROR, "%s: reading the timer", timer->name);
	timer->fire(timer->data);
	return 0;
}

bool sw_deadline_timer_init(struct sw_deadline_timer *timer, struct wl_event_loop *loop,
			    const char *name, void (*fire)(void *data), void *data)
{
	snprintf(timer->name, sizeof(timer->name), "%s", name);
	timer->fire = fire;
	timer->data = data;
	timer->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (timer->fd < 0)
		return false;
	timer->source = wl_event_loop_add_fd(loop, timer->fd, WL_EVENT_READABLE, handle_expiry, timer);
	if (!timer->source) {
		int err = errno;
		close(timer->fd);
		timer->fd = -1;
		errno = err;
		return false;
	}
	return true;
}

void sw_deadline_timer_finish(struct sw_deadline_timer *timer)
{
	if (timer->source)
		wl_event_source_remove(timer->source);
	if (timer->fd >= 0)
		close(timer->fd);
	timer->source = NULL;
	timer->fd = -1;
}

bool sw_deadline_timer_arm(struct sw_deadline_timer *timer, int64_t at_ns, int64_t period_ns)
{
	struct itimerspec spec = { .it_value = sw_ns_timespec(at_ns) };
	if (period_ns)
		spec.it_interval = sw_ns_timespec(period_ns);
	if (timerfd_settime(timer->fd, TFD_TIMER_ABSTIME, &spec, NULL) != 0) {
		wlr_log_errno(WLR_ERROR, "%s: arming the timer", timer->name);
		return false;
	}
	return true;
}
