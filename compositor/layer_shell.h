/* wlr-layer-shell (see layer_shell.c). */
#ifndef SYNCWAY_LAYER_SHELL_H
#define SYNCWAY_LAYER_SHELL_H

struct sw_server;
struct wlr_output;
struct wlr_surface;

/* Makes the layer trees and the window tree between them (before any
 * window or layer surface exists), and the global. */
void layer_shell_init(struct sw_server *server);
void layer_shell_finish(struct sw_server *server);
/* Places the output's layer surfaces and recomputes its usable area; when
 * that changed, maximized windows on the output are fitted to it again. */
void layer_shell_arrange(struct sw_server *server, struct wlr_output *output);
/* A click on surface: the layer surface it belongs to gets the keyboard if
 * it takes keyboard input (on demand or exclusive). */
void layer_shell_focus_surface(struct sw_server *server, struct wlr_surface *surface);
/* The scene tree of a layer surface, NULL if surface is not one. */
struct wlr_scene_tree *layer_shell_surface_tree(struct wlr_surface *surface);

#endif
