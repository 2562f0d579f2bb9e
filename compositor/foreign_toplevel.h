/* The window lists of task bars and docks: wlr-foreign-toplevel-management
 * and ext-foreign-toplevel-list (see foreign_toplevel.c). */
#ifndef SYNCWAY_FOREIGN_TOPLEVEL_H
#define SYNCWAY_FOREIGN_TOPLEVEL_H

struct sw_server;
struct sw_view;

void foreign_toplevel_init(struct sw_server *server);
void foreign_toplevel_finish(struct sw_server *server);
/* A window enters both lists when it maps and leaves them when it
 * unmaps. */
void foreign_toplevel_map(struct sw_view *view);
void foreign_toplevel_unmap(struct sw_view *view);

#endif
