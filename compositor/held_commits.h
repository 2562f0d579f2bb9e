/* The commits clients have held back from applying, whatever holds them:
 * an acquire point (linux-drm-syncobj-v1, acquire_wait.c), a fifo barrier
 * (fifo.c) or a target time (commit_timing.c). A held commit keeps its
 * cached state, and wlroots queues every later commit of the surface behind
 * it, held or not: each is a cached state of its own (about half a
 * kilobyte, with its damage, frame callbacks and buffer lock). They are
 * counted here for the three protocols at once and bounded per surface
 * (--max-held-per-surface), per client (--max-held-commits) and for all
 * clients together (--max-held-total); see docs/compositor.md. */
#ifndef SYNCWAY_HELD_COMMITS_H
#define SYNCWAY_HELD_COMMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sw_server;
struct sw_held_commits;
struct wl_client;
struct wlr_surface;

struct sw_held_commits_counters {
	uint64_t refused;         /* commits refused past a cap: a protocol error */
	uint64_t clients_cut_off; /* holding the most when all clients' reached the total */
	uint64_t most;            /* the most held at once, all clients together */
};

struct sw_held_commits *sw_held_commits_create(const struct sw_server *server);
/* After the clients are gone. The final counters go to *final when it is
 * not NULL. */
void sw_held_commits_destroy(struct sw_held_commits *held, struct sw_held_commits_counters *final);
/* The commits held or queued behind held ones right now, all clients. */
size_t sw_held_commits_now(const struct sw_held_commits *held);

/* From a client_commit listener, before the commit being handled on
 * surface is held (wlr_surface_lock_pending()): NULL when it may be; else
 * why not, in buf, for the protocol error that refuses it. From then on
 * the surface's commits are counted, and any commit of it that would
 * queue behind a held one is checked the same way (and refused, with
 * sw_held_commits_refuse()). Past --max-held-total, a client holding more
 * than this one is cut off (sw_client_cut_off()) instead of refusing;
 * Xwayland is neither cut off nor refused there (its own caps hold). */
const char *sw_held_commits_check(struct sw_held_commits *held, struct wlr_surface *surface,
				  char *buf, size_t len);
/* sw_held_commits_check(), refusing the commit itself when it may not be
 * held: false then. */
bool sw_held_commits_admit(struct sw_held_commits *held, struct wlr_surface *surface);

/* Disconnects client at once, telling it why (a wl_display implementation
 * error: libwayland cuts its text at 127 characters) and logging it with
 * its pid after what ("explicit sync", ...), so that what it held is free
 * for the commit that found a bound reached. */
void sw_client_cut_off(struct wl_client *client, const char *what, const char *why);

#endif
