/* wlr-output-management-unstable-v1, on wlroots' helper. */
#ifndef SYNCWAY_OUTPUT_MANAGEMENT_H
#define SYNCWAY_OUTPUT_MANAGEMENT_H

struct sw_server;
struct sw_output_management;

struct sw_output_management *sw_output_management_create(struct sw_server *server);
/* Before the display: the manager's global goes with it. */
void sw_output_management_destroy(struct sw_output_management *om);
/* Outputs came, went or changed: clients learn it once the event loop is
 * idle. om may be NULL. */
void sw_output_management_changed(struct sw_output_management *om);

#endif
