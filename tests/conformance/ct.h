/* A small Wayland client toolkit for the linux-drm-syncobj-v1 conformance
 * and robustness suites (see docs/conformance.md).
 *
 * Everything here runs inside a harness subtest: a helper that cannot do
 * its job fails (or skips) the running subtest. Objects are owned by the
 * toolkit and torn down at the start of the next subtest (ct_subtest), so a
 * failed check never leaks a connection into the next one.
 *
 * Which commit did the compositor apply? Each tracked commit carries a
 * wl_surface.frame callback and a wp_presentation_feedback. Both are
 * per-commit (double-buffered) state: a compositor can only deliver them
 * once that commit's state has been applied (frame: applied and a frame
 * was drawn since; presented: the image of that commit was shown;
 * discarded: applied, then replaced before being shown, or the surface
 * went away). A commit for which none of them arrived while the compositor
 * kept drawing frames for another window (the "control" window) has not
 * been applied. */
#ifndef SYNCWAY_CT_H
#define SYNCWAY_CT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <wayland-client.h>

#include "buffer.h"
#include "display.h"
#include "harness.h"
#include "syncobj.h"
#include "window.h"

struct wp_presentation;
struct wp_presentation_feedback;
struct wp_linux_drm_syncobj_manager_v1;
struct wp_linux_drm_syncobj_surface_v1;
struct wp_linux_drm_syncobj_timeline_v1;

/* Scaled by $SYNCWAY_CONFORMANCE_TIME_SCALE (slow guests). */
#define CT_DEADLINE_MS ct_ms(3000) /* something that must happen */
#define CT_QUIET_MS ct_ms(300)     /* a window in which something must not */
int ct_ms(int ms);

/* Every subtest body: cleans up what earlier subtests left. */
#define ct_subtest(name)                                                         \
	sw_subtest(name) for (int ct_once_ = ct_begin(); ct_once_; ct_once_ = 0)
int ct_begin(void);
/* At the end of main(). */
void ct_end(void);

/* Informational line in the output ("# name: text"), not a result. */
void ct_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int64_t ct_now_ns(void);

/* --- connections --------------------------------------------------------- */

struct ct_conn {
	struct ct_conn *next;
	struct sw_display *d; /* the connection and its globals (clients/display.h) */
	struct ct_window *control; /* lazily created */
	struct sw_buffer *control_buffer;
};

/* Connects to $WAYLAND_DISPLAY (ct_connect) or name; skips the subtest
 * when there is no compositor to talk to. Binds the usual globals. */
struct ct_conn *ct_connect(void);
struct ct_conn *ct_connect_to(const char *name);
void ct_disconnect(struct ct_conn *c);
/* Skips unless the compositor offers wp_linux_drm_syncobj_manager_v1. */
void ct_need_manager(struct ct_conn *c);
/* Binds another instance of the manager global. */
struct wp_linux_drm_syncobj_manager_v1 *ct_bind_manager(struct ct_conn *c);

/* Roundtrip; a protocol error (or lost connection) fails the subtest with
 * the error, its object and the compositor's message. */
void ct_roundtrip(struct ct_conn *c);
/* Same, but returns the time it took (ns). */
int64_t ct_timed_roundtrip(struct ct_conn *c);
/* Flushes, waits up to timeout_ms for events (or extra_fd, if >= 0, to
 * become readable) and dispatches them. Returns true if extra_fd is
 * readable. Fails the subtest on a connection error. */
bool ct_dispatch(struct ct_conn *c, int extra_fd, int timeout_ms);
/* Dispatches until *flag is true; false after timeout_ms. */
bool ct_wait_flag(struct ct_conn *c, const bool *flag, int timeout_ms);
struct ct_window;
/* Dispatches until w has had more than `before` configures; fails the
 * subtest ("WHAT: no configure ...") after CT_DEADLINE_MS. */
void ct_need_configure_since(struct ct_window *w, unsigned before, const char *what);
/* Roundtrip that may end in a protocol error: false then (other
 * connection errors fail the subtest). */
bool ct_try_roundtrip(struct ct_conn *c);
/* After a failed ct_try_roundtrip: fails unless the error is `code` on
 * `object` (a proxy of interface `iface`); also fails if there was none. */
void ct_check_error(struct ct_conn *c, const struct wl_interface *iface, void *object, uint32_t code,
		    const char *what);
/* Expects the next roundtrip to end in protocol error `code` posted on
 * `object` (a proxy of interface `iface`). what: the request in words. */
void ct_expect_error(struct ct_conn *c, const struct wl_interface *iface, void *object,
		     uint32_t code, const char *what);
/* The last message libwayland logged (the compositor's error text). */
const char *ct_last_log(void);
/* A count the runner passed in the environment, or fallback when unset. */
int ct_env_int(const char *name, int fallback);
/* Pid of the compositor at the other end (SO_PEERCRED), or -1. */
pid_t ct_compositor_pid(struct ct_conn *c);

/* --- buffers ------------------------------------------------------------- */

/* Whether dmabufs (dumb buffers exported from the primary node) can be
 * made for c; reason in why when not. */
bool ct_dmabuf_usable(struct ct_conn *c, char *why, size_t why_len);
/* A 32x32 half-transparent ARGB8888 buffer (never opaque, so windows that
 * overlap do not hide each other) of the client library, without a
 * release timeline of its own: the subtests set their points. Its type is
 * $SYNCWAY_CONFORMANCE_BUFFER (dmabuf|shm), else dmabuf when usable, else
 * wl_shm. Destroyed with its connection or at the next subtest. */
struct sw_buffer *ct_buffer(struct ct_conn *c);
/* The same of the type given; skips when that type cannot be made. */
struct sw_buffer *ct_buffer_of(struct ct_conn *c, enum sw_buffer_type type);

/* --- the DRM device and timelines ----------------------------------------- */

/* The client's render node; skips without one. */
int ct_drm_fd(void);
struct sw_syncobj_stats *ct_stats(void);

struct ct_timeline {
	struct ct_timeline *next;
	struct ct_conn *c;
	uint32_t handle; /* ours, on ct_drm_fd() */
	struct wp_linux_drm_syncobj_timeline_v1 *proxy;
};

/* A fresh timeline syncobj, imported into c. */
struct ct_timeline *ct_timeline(struct ct_conn *c);

/* An explicit-sync client's swap chain: buffers used in turn, each with a
 * release timeline and the last release point handed out (0: none yet),
 * and one acquire timeline for all of them. */
#define CT_CHAIN_MAX 4
struct ct_chain {
	int n;
	struct sw_buffer *buffer[CT_CHAIN_MAX];
	struct ct_timeline *release[CT_CHAIN_MAX];
	uint64_t release_point[CT_CHAIN_MAX];
	struct ct_timeline *acquire;
};
void ct_chain_init(struct ct_chain *chain, struct ct_conn *c, int n);
/* Another import of t's syncobj (a distinct timeline object). */
struct ct_timeline *ct_timeline_import_again(struct ct_timeline *t);
void ct_timeline_destroy_proxy(struct ct_timeline *t);
/* Our handle goes too (the proxy may live on). */
void ct_timeline_forget(struct ct_timeline *t);
/* Destroys our handle of every timeline made in this subtest. */
void ct_forget_all_timelines(void);
/* CPU signal (TIMELINE_SIGNAL) of one point. */
void ct_signal(struct ct_timeline *t, uint64_t point);
bool ct_signalled(struct ct_timeline *t, uint64_t point);
/* Dispatches c until the point is signalled; false after timeout_ms. */
bool ct_wait_signalled(struct ct_conn *c, struct ct_timeline *t, uint64_t point, int timeout_ms);
/* Signals the point from another thread after delay_ms; *when gets the
 * CLOCK_MONOTONIC time just before the signal (0 until then). */
void ct_signal_later(struct ct_timeline *t, uint64_t point, int delay_ms, volatile int64_t *when);

/* sw_sync: fences that are materialized but not signalled until we say so
 * (/sys/kernel/debug/sync/sw_sync: CONFIG_SW_SYNC, debugfs, root). */
bool ct_swsync_available(void);
/* Puts an unsignalled sw_sync fence at point of t (materialized, not
 * signalled) and returns a token for ct_swsync_release; skips the subtest
 * without sw_sync. The fence signals (with an error) at the latest when
 * the next subtest starts. */
int ct_swsync_attach(struct ct_timeline *t, uint64_t point);
void ct_swsync_release(int token);
/* Attaches an unsignalled sw_sync fence to dmabuf b as a pending write
 * (DMA_BUF_IOCTL_IMPORT_SYNC_FILE): implicit sync says nobody may read it
 * until ct_swsync_release(token). Skips for wl_shm buffers. */
int ct_write_fence(struct sw_buffer *b);

/* --- surfaces and commits ------------------------------------------------- */

struct ct_window {
	struct ct_window *next;
	struct ct_conn *c;
	struct sw_window win; /* a role-less surface has only win.surface */
	struct wp_linux_drm_syncobj_surface_v1 *sync;
};

/* A mapped-to-be xdg_toplevel: initial commit done and configure acked. */
struct ct_window *ct_toplevel(struct ct_conn *c);
/* A wl_surface without a role (never shown). */
struct ct_window *ct_bare_surface(struct ct_conn *c);
/* get_surface through c's manager (skips without one). */
void ct_get_sync(struct ct_window *w);
/* A connection whose compositor offers the manager (skips otherwise). */
struct ct_conn *ct_connect_with_manager(void);
/* A mapped-to-be toplevel with a syncobj surface. */
struct ct_window *ct_sync_window(struct ct_conn *c);
void ct_destroy_sync(struct ct_window *w);
/* Destroys the role objects and the wl_surface (not the syncobj surface). */
void ct_destroy_surface(struct ct_window *w);

void ct_attach(struct ct_window *w, struct sw_buffer *b); /* b NULL: attach(NULL) */
void ct_set_acquire(struct ct_window *w, struct ct_timeline *t, uint64_t point);
void ct_set_release(struct ct_window *w, struct ct_timeline *t, uint64_t point);
void ct_commit(struct ct_window *w);
/* A commit's pending state: attach b (with whole-buffer damage; NULL:
 * attach(NULL)), then the points given (timeline NULL: none). */
void ct_prepare(struct ct_window *w, struct sw_buffer *b, struct ct_timeline *acq,
		uint64_t acq_point, struct ct_timeline *rel, uint64_t rel_point);

struct ct_track {
	struct ct_track *next;
	struct ct_window *w;
	struct wl_callback *frame;
	struct wp_presentation_feedback *feedback;
	bool frame_done, presented, discarded, settled;
	uint64_t frame_order, feedback_order; /* global event order, 1-based */
	int64_t received_ns;                   /* when the feedback arrived */
	int64_t presented_ns;                  /* compositor's timestamp */
	uint32_t presented_flags;              /* wp_presentation_feedback kinds */
};

/* Adds a frame callback and a presentation feedback to w's pending state. */
struct ct_track *ct_track(struct ct_window *w);
static inline bool ct_applied(const struct ct_track *t)
{
	return t->frame_done || t->presented || t->discarded;
}
/* ct_prepare, track, commit. */
struct ct_track *ct_commit_buffer(struct ct_window *w, struct sw_buffer *b, struct ct_timeline *acq,
				  uint64_t acq_point, struct ct_timeline *rel, uint64_t rel_point);
/* A tracked commit of damage alone, size x size at (x, y): the compositor
 * draws the surface again from the buffer it has. */
struct ct_track *ct_commit_damage(struct ct_window *w, int x, int y, int size);
/* Signals acq_point, commits b with both points and waits until it is
 * presented; fails the subtest otherwise. */
struct ct_track *ct_show(struct ct_window *w, struct sw_buffer *b, struct ct_timeline *acq,
			 uint64_t acq_point, struct ct_timeline *rel, uint64_t rel_point);
/* Waits for the presentation feedback (presented or discarded); with no
 * wp_presentation, for the frame callback. */
bool ct_wait_settled(struct ct_conn *c, struct ct_track *t, int timeout_ms);
/* Fails the subtest unless t is presented within CT_DEADLINE_MS. */
void ct_need_presented(struct ct_conn *c, struct ct_track *t, const char *what);

/* One frame of the control window (another toplevel on c, plain wl_shm,
 * no explicit sync): damage + frame callback + commit; returns the track. */
struct ct_track *ct_control_frame(struct ct_conn *c);

/* For ms milliseconds keeps the compositor drawing the control window and
 * checks after every event that fired(arg) stays false; returns false as
 * soon as it is true. Fails the subtest if the compositor drew fewer than
 * 2 control frames (nothing would prove it was running). */
bool ct_quiet(struct ct_conn *c, int ms, bool (*fired)(void *arg), void *arg);
/* The usual cases of ct_quiet, failing with what. */
void ct_expect_not_applied(struct ct_conn *c, struct ct_track *t, const char *what);
void ct_expect_unsignalled(struct ct_conn *c, struct ct_timeline *t, uint64_t point, const char *what);

#endif
