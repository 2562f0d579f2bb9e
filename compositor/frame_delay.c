/* A DRM output sends its frame event when the previous frame's page flip
 * completes, at a vblank, and a compositor that renders right then shows
 * the frame at the next vblank: whatever a client commits after the frame
 * event waits almost two refreshes to be seen. Rendering a render budget
 * before the next vblank instead (as sway's max_render_time does) shows
 * commits made until then at that vblank. The next vblank is predicted
 * from the latest presentation and the refresh period the backend
 * reported; a frame event without both is rendered at once. The budget is
 * the user's (--max-render-time MS): too short, and frames miss their
 * vblank, which the frame statistics count. Or it is measured (auto, as
 * Mutter's frame clock and KWin estimate their render time): the longest
 * render-to-commit time of the last AUTO_WINDOW frames, a margin, and a
 * penalty that grows by a millisecond at each frame shown after the vblank
 * it was rendered for (work the CPU time does not see: a GPU still
 * drawing, a flip the kernel took late) and shrinks while frames make it. */
#include "frame_delay.h"

#include <stdlib.h>
#include <wlr/types/wlr_output.h>

#include "clock.h"
#include "deadline_timer.h"

#define AUTO_WINDOW 64
#define AUTO_MARGIN_NS 1000000
#define AUTO_MIN_NS 1500000
#define AUTO_PENALTY_STEP_NS 1000000

struct sw_frame_delay {
	int64_t budget_ns;  /* 0: measured */
	int64_t busy_ns[AUTO_WINDOW]; /* render start to commit end, by frame */
	unsigned n_frames;
	int64_t penalty_ns;
	int64_t target_ns;  /* the vblank the latest frame was rendered for; 0: none */
	int64_t vblank_ns;  /* the latest presentation; 0: none */
	int64_t refresh_ns; /* 0: unknown */
	struct sw_deadline_timer timer;
	bool armed;
	bool due; /* render() runs for the timer: its frame's vblank is the target */
	void (*render)(void *data);
	void *data;
};

static void handle_due(void *data)
{
	struct sw_frame_delay *delay = data;
	if (!delay->armed)
		return;
	delay->armed = false;
	delay->due = true;
	delay->render(delay->data);
	delay->due = false;
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
	if (!sw_deadline_timer_init(&delay->timer, loop, "frame delay", handle_due, delay)) {
		free(delay);
		return NULL;
	}
	return delay;
}

void sw_frame_delay_destroy(struct sw_frame_delay *delay)
{
	if (!delay)
		return;
	sw_deadline_timer_finish(&delay->timer);
	free(delay);
}

void sw_frame_delay_presented(struct sw_frame_delay *delay, const struct wlr_output_event_present *event)
{
	if (!event->presented || !event->when)
		return;
	delay->vblank_ns = sw_timespec_ns(*event->when);
	delay->refresh_ns = event->refresh > 0 ? event->refresh : 0;
	if (delay->budget_ns || !delay->target_ns || !delay->refresh_ns)
		return;
	if (delay->vblank_ns >= delay->target_ns + delay->refresh_ns / 2)
		delay->penalty_ns = delay->penalty_ns + AUTO_PENALTY_STEP_NS < delay->refresh_ns / 2 ?
			delay->penalty_ns + AUTO_PENALTY_STEP_NS : delay->refresh_ns / 2;
	else
		delay->penalty_ns -= delay->penalty_ns / 32;
	delay->target_ns = 0;
}

void sw_frame_delay_rendered(struct sw_frame_delay *delay, int64_t start_ns, int64_t end_ns, int64_t target_ns)
{
	delay->busy_ns[delay->n_frames++ % AUTO_WINDOW] = end_ns - start_ns;
	/* Only a frame rendered at its due time says whether the budget was
	 * enough: one whose frame event came later had less. */
	delay->target_ns = delay->due ? target_ns : 0;
}

/* The budget now. */
static int64_t budget_now(const struct sw_frame_delay *delay)
{
	if (delay->budget_ns)
		return delay->budget_ns;
	int64_t longest = 0;
	unsigned n = delay->n_frames < AUTO_WINDOW ? delay->n_frames : AUTO_WINDOW;
	for (unsigned i = 0; i < n; i++)
		if (delay->busy_ns[i] > longest)
			longest = delay->busy_ns[i];
	int64_t budget = longest + AUTO_MARGIN_NS + delay->penalty_ns;
	if (budget < AUTO_MIN_NS)
		budget = AUTO_MIN_NS;
	/* Never more than half a refresh: past that, rendering at the frame
	 * event would do as well. */
	if (delay->refresh_ns && budget > delay->refresh_ns / 2)
		budget = delay->refresh_ns / 2;
	return budget;
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
	int64_t budget = budget_now(delay);
	if (!vblank || budget >= delay->refresh_ns)
		return false;
	int64_t due = vblank - budget;
	if (due <= now_ns)
		return false;
	if (!sw_deadline_timer_arm(&delay->timer, due, 0))
		return false;
	delay->armed = true;
	return true;
}
