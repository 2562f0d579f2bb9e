/* The headless backend has no display, so no vblank: it sends a frame
 * event a whole number of milliseconds after each commit (so its frames
 * drift against any fixed rate), and reports a frame "presented" from an
 * idle callback right after the commit, with no refresh period and no
 * sequence. Pacing demos and tests need a display-like clock, so syncway
 * gives each headless output one: vblank n is at base + n * period, a
 * timerfd wakes the event loop a render budget before each vblank (a
 * quarter of the period, or --max-render-time) and
 * sends the output a frame event (fifo-v1's latching deadline, the moment
 * syncway renders), and the frame committed then is reported presented at
 * the first vblank not before the commit, with its sequence number: never
 * before the content was drawn, as on a display. A frame committed as a
 * tearing page flip is presented when committed, without the vsync flag,
 * as an async flip is scanned out at once. The backend's own frame
 * events are ignored. When the event loop wakes up past a vblank, that
 * vblank is skipped, as a display would skip it: a missed frame. The clock
 * remembers why for the recent vblanks: syncway's own work since its
 * previous vblank ran past the wake-up time, or it was not running (a
 * guest or host that gave its CPU to something else), which the frame
 * statistics tell apart. The thread's resource usage taken at each
 * wake-up for that is also the boundary of a frame's CPU figures: the
 * frame statistics take it instead of a second sample of their own. */
#include "vblank.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/backend/headless.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>

#include "clock.h"
#include "deadline_timer.h"
#include "output_config.h"

/* How many recent vblanks the clock remembers the kind of. */
#define VBLANK_HISTORY 256

struct sw_vblank_clock {
	struct wlr_output *output;
	struct sw_deadline_timer timer;
	int64_t period_ns;
	int64_t budget_ns;   /* --max-render-time; 0: a quarter of the period */
	int64_t base_ns;     /* vblank 0 */
	uint64_t seq;        /* the latest vblank */
	bool ticking;        /* in the frame event of vblank seq */
	uint64_t commit_seq; /* the vblank the latest commit goes out at */
	/* The latest commit was a tearing page flip: out when committed. */
	bool commit_tearing;
	int64_t commit_ns;
	uint64_t presented_seq; /* the vblank of the latest presentation */
	struct timespec when;   /* what rewritten present events point to */
	/* When the latest wake-up came, in wall and thread CPU time, and the
	 * thread's resource usage then (wake_usage_valid). */
	int64_t wake_ns, wake_cpu_ns;
	struct rusage wake_usage;
	bool wake_usage_valid;
	/* The output commit of the latest frame committed in a vblank. */
	uint32_t frame_commit_seq;
	uint8_t kinds[VBLANK_HISTORY]; /* enum sw_vblank_kind, by seq */

	struct wl_listener present;
	struct wl_listener commit;
	struct wl_listener destroy;
};

static int64_t output_period_ns(const struct wlr_output *output)
{
	/* A mode without a rate (wlr-output-management allows one) runs at
	 * the headless backend's default. */
	int mhz = output->refresh > 0 ? output->refresh : SW_HEADLESS_DEFAULT_MHZ;
	return (int64_t)(1e12 / mhz);
}

/* The first vblank at or after t. */
static uint64_t vblank_at_or_after(const struct sw_vblank_clock *clock, int64_t t)
{
	if (t <= clock->base_ns)
		return 0;
	return (uint64_t)((t - clock->base_ns + clock->period_ns - 1) / clock->period_ns);
}

/* How long before a vblank its frame is rendered: --max-render-time when
 * it leaves something of the period, else a quarter of the period. */
static int64_t render_budget(const struct sw_vblank_clock *clock)
{
	return clock->budget_ns > 0 && clock->budget_ns < clock->period_ns ? clock->budget_ns :
									      clock->period_ns / 4;
}

/* Wakes up a render budget before vblank seq and every vblank after it: a
 * periodic timer, so that a frame costs no timerfd_settime() (the kernel
 * counts the wake-ups slept through). */
static void arm(struct sw_vblank_clock *clock, uint64_t seq)
{
	int64_t t = clock->base_ns + (int64_t)seq * clock->period_ns - render_budget(clock);
	sw_deadline_timer_arm(&clock->timer, t, clock->period_ns);
}

/* Notes the kind of the vblanks from the one the timer was armed for to
 * the one this wake-up can still make. Those before it were slept through:
 * by syncway's own doing when the CPU time its thread used since the
 * previous wake-up alone reaches past the wake-up time of the first one,
 * else for want of a CPU (unknown before the first wake-up). */
static void note_wake_up(struct sw_vblank_clock *clock, uint64_t armed, uint64_t seq, int64_t now)
{
	/* getrusage() rather than the thread's CPU clock: one system call
	 * gives the frame statistics their user and system time too. */
	clock->wake_usage_valid = getrusage(RUSAGE_THREAD, &clock->wake_usage) == 0;
	int64_t cpu = clock->wake_usage_valid ?
		sw_timeval_ns(clock->wake_usage.ru_utime) + sw_timeval_ns(clock->wake_usage.ru_stime) :
		sw_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int64_t deadline = clock->base_ns + (int64_t)armed * clock->period_ns - render_budget(clock);
	enum sw_vblank_kind slept = !clock->wake_ns ? SW_VBLANK_UNKNOWN :
		clock->wake_ns + (cpu - clock->wake_cpu_ns) >= deadline ?
		SW_VBLANK_SLEPT_BUSY : SW_VBLANK_SLEPT_WAITING;
	uint64_t first = seq - armed > VBLANK_HISTORY ? seq - VBLANK_HISTORY : armed;
	for (uint64_t s = first; s < seq; s++)
		clock->kinds[s % VBLANK_HISTORY] = slept;
	clock->kinds[seq % VBLANK_HISTORY] = SW_VBLANK_TICKED;
	clock->wake_ns = now;
	clock->wake_cpu_ns = cpu;
}

static void handle_vblank(void *data)
{
	struct sw_vblank_clock *clock = data;
	/* The vblank this frame can still make; any before it were missed. */
	int64_t now = sw_clock_ns(CLOCK_MONOTONIC);
	uint64_t armed = clock->seq + 1;
	uint64_t seq = vblank_at_or_after(clock, now);
	/* A late wake-up took the next vblank already (the previous one had
	 * gone by): this one is that vblank's own, which has its frame. A
	 * display takes one frame a vblank; a second would be shown a vblank
	 * late, and so would every frame after it. */
	if (seq < armed)
		return;
	clock->seq = seq;
	note_wake_up(clock, armed, seq, now);
	if (!clock->output->enabled)
		return;
	clock->ticking = true;
	wlr_output_send_frame(clock->output);
	clock->ticking = false;
}

static void handle_present(struct wl_listener *listener, void *data)
{
	struct sw_vblank_clock *clock = wl_container_of(listener, clock, present);
	struct wlr_output_event_present *event = data;
	if (!event->presented)
		return;
	/* A tearing flip is scanned out at once, mid-refresh: its time is the
	 * commit's, its sequence the vblank before it, and it has no vsync. */
	if (clock->commit_tearing) {
		uint64_t next = vblank_at_or_after(clock, clock->commit_ns);
		clock->when = sw_ns_timespec(clock->commit_ns);
		event->when = &clock->when;
		event->seq = (unsigned)(next > 0 ? next - 1 : 0);
		event->refresh = (int)clock->period_ns;
		event->flags &= ~WLR_OUTPUT_PRESENT_VSYNC;
		return;
	}
	/* The backend reports it from an idle callback, after the vblank's
	 * frame event is over: the commit listener below noted its vblank.
	 * Never two frames at the same vblank. */
	uint64_t seq = clock->commit_seq;
	if (seq <= clock->presented_seq && clock->presented_seq)
		seq = clock->presented_seq + 1;
	clock->presented_seq = seq;
	clock->when = sw_ns_timespec(clock->base_ns + (int64_t)seq * clock->period_ns);
	event->when = &clock->when;
	event->seq = (unsigned)seq;
	event->refresh = (int)clock->period_ns;
	event->flags |= WLR_OUTPUT_PRESENT_VSYNC;
}

static void handle_commit(struct wl_listener *listener, void *data)
{
	struct sw_vblank_clock *clock = wl_container_of(listener, clock, commit);
	const struct wlr_output_event_commit *event = data;
	clock->commit_tearing = event->state->tearing_page_flip;
	clock->commit_ns = sw_clock_ns(CLOCK_MONOTONIC);
	if (clock->ticking)
		clock->frame_commit_seq = clock->output->commit_seq;
	/* A frame goes out at the vblank its frame event was for; one
	 * committed outside them (the first modeset, a configuration from
	 * output management) at the next one that has no frame yet, which
	 * then gets no frame event of its own, as a display sends none while
	 * a flip is pending. */
	if (clock->ticking) {
		clock->commit_seq = clock->seq;
	} else {
		uint64_t seq = vblank_at_or_after(clock, clock->commit_ns);
		clock->commit_seq = seq > clock->seq ? seq : clock->seq + 1;
		clock->seq = clock->commit_seq;
	}
	/* A new mode: the clock goes on at its rate from the next vblank. */
	int64_t period = output_period_ns(clock->output);
	if (period == clock->period_ns)
		return;
	int64_t next = clock->base_ns + (int64_t)(clock->seq + 1) * clock->period_ns;
	clock->period_ns = period;
	clock->base_ns = next - (int64_t)(clock->seq + 1) * period;
	arm(clock, clock->seq + 1);
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct sw_vblank_clock *clock = wl_container_of(listener, clock, destroy);
	wl_list_remove(&clock->present.link);
	wl_list_remove(&clock->commit.link);
	wl_list_remove(&clock->destroy.link);
	sw_deadline_timer_finish(&clock->timer);
	free(clock);
}

struct sw_vblank_clock *sw_vblank_clock_create(struct wlr_output *output, struct wl_event_loop *loop,
					       int64_t budget_ns)
{
	if (!wlr_output_is_headless(output))
		return NULL;
	struct sw_vblank_clock *clock = calloc(1, sizeof(*clock));
	if (!clock)
		goto fail;
	clock->output = output;
	char name[48];
	snprintf(name, sizeof(name), "%s vblank", output->name);
	if (!sw_deadline_timer_init(&clock->timer, loop, name, handle_vblank, clock))
		goto fail_free;
	clock->period_ns = output_period_ns(output);
	clock->budget_ns = budget_ns;
	clock->base_ns = sw_clock_ns(CLOCK_MONOTONIC);
	arm(clock, 1);
	clock->present.notify = handle_present;
	wl_signal_add(&output->events.present, &clock->present);
	clock->commit.notify = handle_commit;
	wl_signal_add(&output->events.commit, &clock->commit);
	clock->destroy.notify = handle_destroy;
	wl_signal_add(&output->events.destroy, &clock->destroy);
	return clock;

fail_free:
	free(clock);
fail:
	wlr_log_errno(WLR_ERROR, "%s: no vblank clock; frames and presentation times are the "
		      "headless backend's", output->name);
	return NULL;
}

int64_t sw_vblank_clock_vblank_ns(const struct sw_vblank_clock *clock)
{
	return clock->base_ns + (int64_t)clock->seq * clock->period_ns;
}

bool sw_vblank_clock_frame_usage(const struct sw_vblank_clock *clock, uint32_t commit_seq, struct rusage *out)
{
	if (!clock->wake_usage_valid || clock->frame_commit_seq != commit_seq)
		return false;
	*out = clock->wake_usage;
	return true;
}

bool sw_vblank_clock_ticking(const struct sw_vblank_clock *clock)
{
	return clock->ticking;
}

enum sw_vblank_kind sw_vblank_clock_kind(const struct sw_vblank_clock *clock, uint64_t seq)
{
	if (seq > clock->seq || clock->seq - seq >= VBLANK_HISTORY)
		return SW_VBLANK_UNKNOWN;
	return clock->kinds[seq % VBLANK_HISTORY];
}
