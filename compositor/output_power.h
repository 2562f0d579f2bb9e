/* wlr-output-power-management-unstable-v1 (output_power.c): outputs turned
 * off and on by clients such as wlopm, kept in the layout meanwhile. */
#ifndef SYNCWAY_OUTPUT_POWER_H
#define SYNCWAY_OUTPUT_POWER_H

struct sw_server;

void output_power_init(struct sw_server *server);
void output_power_finish(struct sw_server *server);

#endif
