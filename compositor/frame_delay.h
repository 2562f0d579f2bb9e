/* Rendering late in the refresh on outputs whose backend sends the frame
 * events (DRM, nested): --max-render-time (frame_delay.c). */
#ifndef SYNCWAY_FRAME_DELAY_H
#define SYNCWAY_FRAME_DELAY_H

#include <stdbool.h>
#include <stdint.h>

struct wl_event_loop;
struct wlr_output_event_present;
struct sw_frame_delay;

/* render(data) is called when a deferred frame is due. budget_ns: the
 * render budget, or 0 to measure one. */
struct sw_frame_delay *sw_frame_delay_create(struct wl_event_loop *loop, int64_t budget_ns,
					     void (*render)(void *data), void *data);
void sw_frame_delay_destroy(struct sw_frame_delay *delay);

/* The output presented a frame: the vblank the next ones are predicted
 * from. */
void sw_frame_delay_presented(struct sw_frame_delay *delay, const struct wlr_output_event_present *event);

/* At a frame event: true when the frame is put off until the budget before
 * the next vblank (render() comes then; frame events meanwhile are folded
 * into it), false to render now: no vblank known yet, or the budget
 * reaches back to now. */
bool sw_frame_delay_defer(struct sw_frame_delay *delay, int64_t now_ns);

/* A frame was rendered and committed from start_ns to end_ns, for the
 * vblank at target_ns (0: unknown): what a measured budget learns from. */
void sw_frame_delay_rendered(struct sw_frame_delay *delay, int64_t start_ns, int64_t end_ns, int64_t target_ns);

/* The vblank the frame being rendered is predicted to be shown at; 0 when
 * unknown. */
int64_t sw_frame_delay_vblank_ns(const struct sw_frame_delay *delay, int64_t now_ns);

#endif
