/* cursor-shape-v1, on wlroots' helper: clients name a cursor shape and
 * syncway shows that image of its own cursor theme. */
#ifndef SYNCWAY_CURSOR_SHAPE_H
#define SYNCWAY_CURSOR_SHAPE_H

struct sw_server;

void cursor_shape_init(struct sw_server *server);
void cursor_shape_finish(struct sw_server *server);

#endif
