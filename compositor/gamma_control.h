/* wlr-gamma-control-unstable-v1 (gamma_control.c): clients set an output's
 * gamma ramps, applied with its next frame. */
#ifndef SYNCWAY_GAMMA_CONTROL_H
#define SYNCWAY_GAMMA_CONTROL_H

#include <stdbool.h>

struct sw_server;
struct sw_output;
struct wlr_output_state;

void gamma_control_init(struct sw_server *server);
void gamma_control_finish(struct sw_server *server);
/* For a frame of an output whose gamma_changed is set: puts the output's
 * ramps (none when no client sets them) into state, the frame being
 * built, and clears the flag. A client whose ramps the output refuses is
 * told "failed" and the frame goes without them. False when out of
 * memory. */
bool gamma_control_apply(struct sw_output *output, struct wlr_output_state *state);

#endif
