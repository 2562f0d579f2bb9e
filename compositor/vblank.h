/* A simulated vblank clock for headless outputs, which have no display and
 * so no vblank of their own. */
#ifndef SYNCWAY_VBLANK_H
#define SYNCWAY_VBLANK_H

#include <stdbool.h>
#include <stdint.h>

struct rusage;
struct wl_event_loop;
struct wlr_output;
struct sw_vblank_clock;

/* On a headless output, a clock at the output's refresh rate (60 Hz
 * without a mode, the backend's own default): at every vblank it sends the
 * output a frame event, and the output's "present" events carry that
 * vblank's time and sequence number, the refresh period and the vsync
 * flag (a tearing page flip: its commit's time, no vsync flag). The frame
 * is rendered budget_ns before its vblank (0, or not less than the period:
 * a quarter of the period). Create it before anything else listens to the present event, so
 * that every listener (presentation feedback included) sees those values.
 * NULL on other outputs (and on failure, logged). Freed with the output. */
struct sw_vblank_clock *sw_vblank_clock_create(struct wlr_output *output, struct wl_event_loop *loop,
					       int64_t budget_ns);

/* Whether the frame event being handled is one of the clock's vblanks;
 * the backend's own frame events are not, and a clocked output ignores
 * them. */
bool sw_vblank_clock_ticking(const struct sw_vblank_clock *clock);

/* If output commit commit_seq was a frame committed in one of the
 * clock's vblanks: the thread's resource usage (getrusage(RUSAGE_THREAD))
 * taken when that vblank woke syncway, the frame's one CPU sample. False
 * otherwise. */
bool sw_vblank_clock_frame_usage(const struct sw_vblank_clock *clock, uint32_t commit_seq, struct rusage *out);

/* When the frame being rendered at this vblank will be presented: the
 * vblank's time (a little ahead of now). */
int64_t sw_vblank_clock_vblank_ns(const struct sw_vblank_clock *clock);

enum sw_vblank_kind {
	SW_VBLANK_UNKNOWN,       /* not yet, or too long ago to remember */
	SW_VBLANK_TICKED,        /* the output had a frame event for it */
	SW_VBLANK_SLEPT_BUSY,    /* slept through: syncway's own work ran past it */
	SW_VBLANK_SLEPT_WAITING, /* slept through: syncway was not given a CPU */
};

/* What happened at one of the last few hundred vblanks. */
enum sw_vblank_kind sw_vblank_clock_kind(const struct sw_vblank_clock *clock, uint64_t seq);

#endif
