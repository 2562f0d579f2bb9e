/* The compositor's state: one struct per object, listeners beside the data
 * they serve. See docs/compositor.md. */
#ifndef SYNCWAY_SERVER_H
#define SYNCWAY_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/util/box.h>

#include "input_config.h"
#include "output_config.h"
#include "syncobj.h"

struct sw_session_lock;
struct sw_idle;
struct sw_output_power;
struct sw_gamma_control;
struct sw_pointer_constraints;
struct sw_cursor_shape;
struct sw_cursor_themes;
struct sw_heap_trim;
struct sw_foreign_toplevel;
struct sw_foreign_toplevel_handle;
struct sw_activation;
struct sw_shortcuts_inhibit;
struct sw_security_context;
struct sw_explicit_sync;
struct sw_fifo_manager;
struct sw_commit_timing_manager;
struct sw_held_commits;
struct sw_frame_stats;
struct sw_listener;
struct sw_loop_stats;
struct sw_output_stats;
struct sw_vblank_clock;
struct wlr_surface;
struct wlr_xwayland_surface;

#define SW_MAX_RENDER_TIME_AUTO (-1)

struct sw_options {
	const char *startup_cmd;      /* -s: run with /bin/sh -c */
	const char *stats_path;       /* --stats: JSON lines */
	int headless_width, headless_height, headless_refresh_mhz; /* 0: default */
	int headless_outputs;         /* 0: whatever the backend made */
	bool exit_with_client;        /* -x: quit when the -s command exits */
	bool no_xwayland;             /* --no-xwayland */
	bool adaptive_sync;           /* --adaptive-sync: VRR where outputs have it */
	/* --max-render-time: frames rendered that long before the vblank;
	 * 0: headless outputs a quarter of the period, others at once;
	 * SW_MAX_RENDER_TIME_AUTO: measured (headless: a quarter period). */
	int64_t max_render_time_ns;
	struct sw_input_config input; /* from the environment (input_config.c) */
	struct sw_output_config outputs[16]; /* --output, in the order given */
	size_t n_outputs;
	int report_interval_ms;       /* the "N frames in 5.0 seconds" lines */
	/* Commits held back (acquire points, fifo barriers, target times) or
	 * queued behind held ones (held_commits.c); 0: no cap. */
	int max_held_per_surface;     /* per surface; -1: unset */
	int max_held_commits;         /* per client */
	long max_held_total;          /* all clients together; -1: unset */
	int max_waiting_surfaces;     /* per client, surfaces with such a commit; 0: no cap */
	long fd_headroom;             /* --fd-headroom; -1 until set_fd_budget() */
	/* Of all clients together, from the fd limit less the headroom; 0: no
	 * budget (the limit is unknown or unlimited). */
	long max_waiting_total;
};

enum sw_cursor_mode {
	SW_CURSOR_PASSTHROUGH,
	SW_CURSOR_MOVE,
	SW_CURSOR_RESIZE,
};

struct sw_server {
	const struct sw_options *options;

	struct wl_display *display;
	struct wl_event_loop *loop;
	struct sw_listener *listener; /* the Wayland socket */
	struct wlr_backend *backend;
	/* A headless backend's own event loop, never polled (backend.c);
	 * NULL for other backends. */
	struct wl_event_loop *backend_loop;
	struct wl_event_source *backend_timer_top; /* on backend_loop */
	unsigned backend_idle_turns; /* its idle callbacks run since it was last dispatched */
	bool running; /* until server_terminate() */
	struct wlr_session *session;
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct wlr_compositor *compositor;
	struct wlr_scene *scene;
	struct wlr_scene_output_layout *scene_layout;
	struct wlr_output_layout *output_layout;
	struct sw_output_management *output_management; /* NULL: none */
	struct wlr_tearing_control_manager_v1 *tearing_control;
	struct wlr_linux_dmabuf_v1 *linux_dmabuf; /* NULL: no dmabuf import */

	/* The DRM device timelines are imported into and signalled on (a render
	 * node); -1 when there is none. Owned. */
	int drm_fd;
	/* Every syncobj ioctl the compositor issues is accounted here; the
	 * frame statistics take per-frame differences of it. */
	struct sw_syncobj_stats syncobj_stats;
	struct sw_explicit_sync *explicit_sync; /* NULL: protocol not offered */
	struct sw_fifo_manager *fifo;
	struct sw_commit_timing_manager *commit_timing;
	/* The bounds on held commits, for the three protocols above. */
	struct sw_held_commits *held_commits;
	struct sw_frame_stats *frame_stats;
	struct sw_loop_stats *loop_stats; /* from just before the loop until the end */

	struct wl_list outputs; /* sw_output.link */
	struct wl_listener new_output;

	/* Frames committed on any output, numbered from 1. A frame retires when
	 * its output reports it presented (or dropped); a client buffer may
	 * only be released once every frame that could have read it retired,
	 * which matters for renderers that finish after the commit returns. */
	uint64_t frames_committed;
	struct {
		struct wl_signal frames_retired;
	} events;

	struct wlr_xdg_shell *xdg_shell;
	struct wl_listener new_xdg_toplevel;
	struct wl_listener new_xdg_popup;
	struct wl_listener new_toplevel_decoration;

	/* Scene order: layers[background], layers[bottom], view_tree (the
	 * windows), layers[top], layers[overlay]. */
	struct wlr_scene_tree *layers[4];
	struct wlr_scene_tree *view_tree;
	struct wl_list layer_surfaces; /* sw_layer_surface.link */
	struct wl_listener new_layer_surface;

	struct wlr_xwayland *xwayland; /* NULL: --no-xwayland or it failed */
	struct wl_listener xwayland_start;
	struct wl_listener xwayland_ready;
	struct wl_listener xwayland_new_surface;
	struct wl_list views; /* sw_view.link, front to back */

	struct wlr_cursor *cursor;
	struct wlr_xcursor_manager *cursor_mgr; /* read at every output's scale... */
	struct sw_cursor_themes *cursor_themes; /* ...off the loop, once wanted */
	struct wl_listener layout_change;
	struct wl_listener cursor_motion;
	struct wl_listener cursor_motion_absolute;
	struct wl_listener cursor_button;
	struct wl_listener cursor_axis;
	struct wl_listener cursor_frame;

	struct wlr_seat *seat;
	struct wl_listener new_input;
	struct wl_listener request_cursor;
	struct wl_listener request_set_selection;
	struct wl_listener request_set_primary_selection;
	struct wl_listener request_start_drag;
	struct wl_listener start_drag;
	struct wlr_scene_tree *drag_icon; /* the current drag's, or NULL */
	struct wl_listener drag_icon_destroy;
	struct wl_listener new_virtual_keyboard;
	struct wl_listener new_virtual_pointer;
	struct wl_list keyboards; /* sw_keyboard.link: real and virtual ones */
	/* The seat's keyboard while there is no other (see input.c). */
	struct wlr_keyboard placeholder_keyboard;
	struct xkb_keymap *keymap; /* of every keyboard that brings none; NULL: none */

	enum sw_cursor_mode cursor_mode;
	struct sw_view *grabbed_view;
	double grab_x, grab_y;
	struct wlr_box grab_geobox;
	uint32_t resize_edges;

	/* The desktop protocols, one module each (see the files named so). */
	struct sw_session_lock *session_lock; /* session_lock.c */
	struct sw_idle *idle; /* idle.c */
	struct sw_output_power *output_power; /* output_power.c */
	struct sw_gamma_control *gamma_control; /* gamma_control.c */
	struct sw_pointer_constraints *pointer_constraints; /* pointer_constraints.c */
	struct sw_cursor_shape *cursor_shape; /* cursor_shape.c */
	struct sw_foreign_toplevel *foreign_toplevel; /* foreign_toplevel.c */
	struct sw_activation *activation; /* activation.c */
	struct sw_shortcuts_inhibit *shortcuts_inhibit; /* shortcuts_inhibit.c */
	struct sw_security_context *security_context; /* security_context.c */
	struct sw_heap_trim *heap_trim; /* heap_trim.c */

	pid_t child_pid; /* the -s command, 0 when none runs */
	int child_status;
	struct wl_event_source *sigchld_source;
	struct wl_event_source *sigint_source;
	struct wl_event_source *sigterm_source;
};

struct sw_output {
	struct wl_list link; /* sw_server.outputs */
	struct sw_server *server;
	struct wlr_output *wlr_output;
	struct wlr_scene_output *scene_output; /* NULL while not in the layout */
	struct sw_output_stats *stats;
	struct sw_vblank_clock *vblank; /* headless only; owned by the output */
	struct sw_frame_delay *delay;   /* others, with --max-render-time; NULL: none */
	/* What layer-shell exclusive zones leave of the output, in layout
	 * coordinates: what maximized windows fill. */
	struct wlr_box usable_area;

	/* Frames committed and not yet presented, oldest first. */
	struct sw_frame_in_flight {
		uint32_t commit_seq;
		uint64_t frame;
		int64_t committed_ns;
	} in_flight[8];
	int n_in_flight;
	/* Retires frames whose present event never comes (e.g. a backend that
	 * drops it), so that buffer releases cannot stall forever. Armed by
	 * the first frame in flight and re-armed for the oldest when it fires,
	 * not at every frame: two timerfd_settime() calls a frame were a
	 * measurable part of what a frame cost the compositor. */
	struct wl_event_source *retire_timer;
	bool retire_armed;
	int64_t precommit_ns; /* when the frame being committed finished rendering */
	bool in_frame;
	/* Whether the last frame was a tearing page flip (logged when it
	 * changes), and whether the backend refused one since the fullscreen
	 * window asked (not asked again until it stops asking). */
	bool tearing, tearing_refused;
	/* A client set new gamma ramps, or its control went: the next frame
	 * carries them (gamma_control.c). */
	bool gamma_changed;

	struct wl_listener frame;
	struct wl_listener request_state;
	struct wl_listener precommit;
	struct wl_listener present;
	struct wl_listener destroy;
};

/* A window: an xdg toplevel, or a managed X11 window (xwayland.c; the
 * override-redirect ones, menus and tooltips, are no views). The few
 * things the two do differently go through the view_* functions below. */
enum sw_view_kind {
	SW_VIEW_XDG,
	SW_VIEW_XWAYLAND,
};

struct sw_view {
	struct wl_list link; /* sw_server.views, while mapped */
	struct sw_server *server;
	enum sw_view_kind kind;
	struct wlr_xdg_toplevel *xdg_toplevel; /* SW_VIEW_XDG */
	struct wlr_xwayland_surface *xsurface; /* SW_VIEW_XWAYLAND */
	/* An X11 window's exists while it is mapped (xwayland.c). */
	struct wlr_scene_tree *scene_tree;

	/* The xdg toplevel's events (xwayland.c has the X11 window's). */
	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener commit;
	struct wl_listener destroy;
	struct wl_listener request_move;
	struct wl_listener request_resize;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;

	/* Maximized or fullscreen: it fills an output, and floating is the
	 * geometry it gets back. */
	bool placed; /* it has been mapped once: it stays where it was put */
	bool filling;
	struct wlr_box floating;
	/* Its entries in the task bars' window lists, while mapped
	 * (foreign_toplevel.c). */
	struct sw_foreign_toplevel_handle *foreign_handle;
};

struct sw_popup {
	struct sw_server *server;
	struct wlr_xdg_popup *xdg_popup;
	struct wl_listener commit;
	struct wl_listener destroy;
};

struct sw_keyboard {
	struct wl_list link; /* sw_server.keyboards */
	struct sw_server *server;
	struct wlr_keyboard *wlr_keyboard;

	struct wl_listener modifiers;
	struct wl_listener key;
	struct wl_listener destroy;
};

/* output.c */
void handle_new_output(struct wl_listener *listener, void *data);
/* Damages every output whole and asks each for a frame. */
void server_redraw_outputs(struct sw_server *server);
/* Ends the compositor's loop after the current dispatch. */
void server_terminate(struct sw_server *server);
/* Highest frame number n such that frames 1..n have all retired. */
uint64_t server_frames_retired(struct sw_server *server);
/* Puts an enabled output into the layout (at x, y, else right of the
 * others) and the scene; again, it moves it. */
void output_place(struct sw_output *output, bool has_position, int x, int y);
/* Takes a disabled output out of the layout and the scene. */
void output_unplace(struct sw_output *output);
/* Counts every frame output has in flight as presented: for an output
 * just disabled, which will present none of them. */
void output_retire_all(struct sw_output *output);
/* Whether the scene shows the surface on output (any output when NULL): it
 * sends wl_surface.enter where some of the surface is visible, not hidden
 * under opaque ones. */
bool surface_on_output(const struct wlr_surface *surface, const struct wlr_output *output);

/* view.c */
void handle_new_xdg_toplevel(struct wl_listener *listener, void *data);
void handle_new_xdg_popup(struct wl_listener *listener, void *data);
void view_focus(struct sw_view *view, struct wlr_surface *surface);
struct sw_view *view_at(struct sw_server *server, double lx, double ly,
			struct wlr_surface **surface, double *sx, double *sy);
/* The view whose toplevel surface this is, or NULL. */
struct sw_view *view_from_surface(struct wlr_surface *surface);
/* For the shells: a window that maps joins the list (placed, listed for
 * task bars, focused); one that unmaps leaves it, the focus going to the
 * next. */
void view_map(struct sw_view *view);
void view_unmap(struct sw_view *view);
/* What differs between the kinds of views. The title and app id (an X11
 * window's class) may be NULL; the geometry is the window's box in its
 * surface's coordinates (xdg's window geometry, leaving out client-side
 * shadows). */
struct wlr_surface *view_surface(struct sw_view *view);
const char *view_title(struct sw_view *view);
const char *view_app_id(struct sw_view *view);
void view_geometry(struct sw_view *view, struct wlr_box *box);
/* Puts the window's top left corner at x, y in the layout. */
void view_move(struct sw_view *view, int x, int y);
/* Asks for a size; 0x0 lets an xdg toplevel choose. */
void view_set_size(struct sw_view *view, int width, int height);
void view_close(struct sw_view *view);
void view_begin_interactive(struct sw_view *view, enum sw_cursor_mode mode, uint32_t edges);
void view_cycle(struct sw_server *server);
/* What a client or a task bar asks for; output NULL: the one the view is
 * on. */
void view_set_maximized(struct sw_view *view, bool maximized);
void view_set_fullscreen(struct sw_view *view, bool fullscreen, struct wlr_output *output);
/* Fits the maximized and fullscreen windows on output to it again (its
 * mode or usable area changed). */
void views_refill(struct sw_server *server, struct wlr_output *output);
/* Moves the windows that were on the output at gone, which has just left
 * the layout, onto the outputs that remain (output.c, when an output is
 * turned off or unplugged). */
void views_rescue(struct sw_server *server, const struct wlr_box *gone);
/* The surface of the topmost fullscreen window on output, or NULL. */
struct wlr_surface *view_fullscreen_surface(struct sw_server *server, struct wlr_output *output);

/* main.c: runs cmd with /bin/sh -c, with the environment and limits a
 * client should get; its pid goes to *pid when pid is not NULL. */
bool server_spawn(struct sw_server *server, const char *cmd, pid_t *pid);

/* decoration.c: xdg-decoration, client-side always. */
void decoration_init(struct sw_server *server);
void decoration_finish(struct sw_server *server);

/* input.c */
void input_init(struct sw_server *server);
void input_finish(struct sw_server *server);

#endif
