/* Frame-pacing protocol conformance: one subtest per rule of fifo-v1 and
 * commit-timing-v1, and tearing-control-v1's (the tables are in
 * docs/conformance.md). Runs against the compositor of
 * $WAYLAND_DISPLAY, syncway or any other:
 *
 *   pacing-conformance [--list] [--run GLOB] [--json FILE]
 *
 * The subtests of a protocol the compositor does not offer are skipped.
 * Whether a commit waited is read from presentation feedback: a content
 * update that set a barrier must be presented (not discarded) before the
 * one that waited on it, at an earlier refresh; one with a target time
 * must not be presented before it.
 *
 * SYNCWAY_CONFORMANCE_EXPECT_TEARING=1: the compositor is known to honour
 * the async hint of a fullscreen window on its output (syncway headless),
 * so those frames must be presented without the vsync flag; elsewhere the
 * hint may be declined and the flags are only noted.
 *
 * SYNCWAY_PACING_HELD_DISPLAY, with SYNCWAY_PACING_HELD_SURFACE, _CLIENT
 * and _TOTAL: a compositor with small caps on the commits a surface, a
 * client and all clients may hold back (syncway's --max-held-per-surface,
 * --max-held-commits, --max-held-total; run-in-guest starts one), for the
 * held-commit subtests; skipped without it. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit-timing-v1-client-protocol.h"
#include "ct.h"
#include "fifo-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "tearing-control-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define FIFO_MANAGER_IFACE (&wp_fifo_manager_v1_interface)
#define FIFO_IFACE (&wp_fifo_v1_interface)

static struct wp_fifo_manager_v1 *need_fifo_manager(struct ct_conn *c)
{
	if (!c->d->fifo_manager)
		sw_skip("the compositor does not offer wp_fifo_manager_v1");
	return c->d->fifo_manager;
}

static struct wp_fifo_v1 *get_fifo(struct ct_window *w)
{
	return wp_fifo_manager_v1_get_fifo(need_fifo_manager(w->c), w->win.surface);
}

/* A toplevel with a fifo object, showing a first buffer (so that it is on
 * an output: the protocol lets compositors ignore the constraint for
 * surfaces they do not update). */
static struct ct_window *shown_toplevel(struct ct_conn *c, struct wp_fifo_v1 **fifo)
{
	struct ct_window *w = ct_toplevel(c);
	*fifo = get_fifo(w);
	ct_need_presented(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), "first buffer");
	return w;
}

static void need_settled(struct ct_conn *c, struct ct_track *t, const char *what)
{
	if (!ct_wait_settled(c, t, CT_DEADLINE_MS))
		sw_fail("%s: no presentation feedback within %d ms", what, CT_DEADLINE_MS);
}

/* a, carrying set_barrier, must have been shown for a refresh of its own
 * before b, which waited on the barrier. */
static void need_shown_in_order(struct ct_conn *c, struct ct_track *a, struct ct_track *b,
				const char *what)
{
	need_settled(c, a, what);
	need_settled(c, b, what);
	if (!a->presented)
		sw_fail("%s: the update that set the barrier was discarded, not shown for a refresh", what);
	if (!b->presented)
		sw_fail("%s: the update that waited on the barrier was not presented", what);
	if (b->presented_ns <= a->presented_ns)
		sw_fail("%s: both updates were presented at the same refresh (%" PRId64 " ns)", what,
			a->presented_ns);
}

static void object_tests(void)
{
	ct_subtest("fifo-get-fifo-twice-is-already-exists")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		get_fifo(w);
		get_fifo(w);
		ct_expect_error(c, FIFO_MANAGER_IFACE, c->d->fifo_manager,
				WP_FIFO_MANAGER_V1_ERROR_ALREADY_EXISTS, "a second get_fifo for a surface");
	}

	ct_subtest("fifo-get-fifo-again-after-destroy")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		wp_fifo_v1_destroy(get_fifo(w));
		get_fifo(w);
		ct_roundtrip(c);
	}

	ct_subtest("fifo-set-barrier-after-surface-destroyed-is-error")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_fifo_v1 *fifo = get_fifo(w);
		ct_destroy_surface(w);
		wp_fifo_v1_set_barrier(fifo);
		ct_expect_error(c, FIFO_IFACE, fifo, WP_FIFO_V1_ERROR_SURFACE_DESTROYED,
				"set_barrier after the wl_surface was destroyed");
	}

	ct_subtest("fifo-wait-barrier-after-surface-destroyed-is-error")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_fifo_v1 *fifo = get_fifo(w);
		ct_destroy_surface(w);
		wp_fifo_v1_wait_barrier(fifo);
		ct_expect_error(c, FIFO_IFACE, fifo, WP_FIFO_V1_ERROR_SURFACE_DESTROYED,
				"wait_barrier after the wl_surface was destroyed");
	}

	ct_subtest("fifo-destroy-keeps-committed-state")
	{
		struct ct_conn *c = ct_connect();
		struct wp_fifo_v1 *fifo;
		struct ct_window *w = shown_toplevel(c, &fifo);
		wp_fifo_v1_set_barrier(fifo);
		struct ct_track *a = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		wp_fifo_v1_wait_barrier(fifo);
		wp_fifo_v1_destroy(fifo);
		struct ct_track *b = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		need_shown_in_order(c, a, b, "wait_barrier requested, then wp_fifo_v1.destroy, then commit");
	}
}

static void barrier_tests(void)
{
	ct_subtest("fifo-wait-barrier-holds-until-refresh")
	{
		struct ct_conn *c = ct_connect();
		struct wp_fifo_v1 *fifo;
		struct ct_window *w = shown_toplevel(c, &fifo);
		wp_fifo_v1_set_barrier(fifo);
		struct ct_track *a = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		wp_fifo_v1_wait_barrier(fifo);
		struct ct_track *b = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		need_shown_in_order(c, a, b, "set_barrier commit, then wait_barrier commit at once");
	}

	/* What Mesa's WSI does in FIFO mode: every commit sets a barrier and
	 * waits on the previous one, so each image is shown for a refresh. */
	ct_subtest("fifo-barrier-set-and-waited-in-one-commit")
	{
		struct ct_conn *c = ct_connect();
		struct wp_fifo_v1 *fifo;
		struct ct_window *w = shown_toplevel(c, &fifo);
		struct ct_track *t[5];
		for (int i = 0; i < 5; i++) {
			wp_fifo_v1_set_barrier(fifo);
			wp_fifo_v1_wait_barrier(fifo);
			t[i] = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		}
		for (int i = 1; i < 5; i++) {
			char what[64];
			snprintf(what, sizeof(what), "commits %d and %d of 5, back to back", i, i + 1);
			need_shown_in_order(c, t[i - 1], t[i], what);
		}
	}

	/* Without wait_barrier a barrier holds nothing back: the second of two
	 * back-to-back commits replaces the first before it is shown. */
	ct_subtest("fifo-set-barrier-alone-holds-nothing")
	{
		struct ct_conn *c = ct_connect();
		struct wp_fifo_v1 *fifo;
		struct ct_window *w = shown_toplevel(c, &fifo);
		wp_fifo_v1_set_barrier(fifo);
		struct ct_track *a = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		struct ct_track *b = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		need_settled(c, a, "set_barrier commit");
		need_settled(c, b, "plain commit after it");
		if (!b->presented)
			sw_fail("the plain commit after a set_barrier commit was not presented");
		if (a->presented && b->presented_ns > a->presented_ns)
			ct_note("both shown at their own refresh (the compositor was idle in between)");
	}

	/* The protocol: the constraint must be ignored for a subsurface in
	 * synchronized mode (its updates apply with its parent's). Both of
	 * the child's updates apply at the parent's commit, so the first is
	 * replaced before it could be shown; had the second waited on the
	 * first's barrier, the first would be shown at a refresh of its own. */
	ct_subtest("fifo-synchronized-subsurface-ignores-wait")
	{
		struct ct_conn *c = ct_connect();
		need_fifo_manager(c);
		const struct sw_display_global *g = sw_display_find_global(c->d, wl_subcompositor_interface.name);
		if (!g)
			sw_skip("the compositor offers no wl_subcompositor");
		struct wl_subcompositor *sub = wl_registry_bind(c->d->registry, g->name, &wl_subcompositor_interface, 1);
		struct ct_window *parent = ct_toplevel(c);
		ct_need_presented(c, ct_commit_buffer(parent, ct_buffer(c), NULL, 0, NULL, 0), "the parent's buffer");
		struct ct_window *child = ct_bare_surface(c);
		struct wl_subsurface *subsurface =
			wl_subcompositor_get_subsurface(sub, child->win.surface, parent->win.surface);
		/* Shown once first: the protocol lets a compositor ignore the
		 * constraint for a surface that is on no output anyway. */
		struct ct_track *first = ct_commit_buffer(child, ct_buffer(c), NULL, 0, NULL, 0);
		ct_commit_damage(parent, 0, 0, 1);
		ct_need_presented(c, first, "the subsurface's first buffer");
		struct wp_fifo_v1 *fifo = get_fifo(child);
		wp_fifo_v1_set_barrier(fifo);
		struct ct_track *a = ct_commit_buffer(child, ct_buffer(c), NULL, 0, NULL, 0);
		wp_fifo_v1_wait_barrier(fifo);
		struct ct_track *b = ct_commit_buffer(child, ct_buffer(c), NULL, 0, NULL, 0);
		ct_commit_damage(parent, 0, 0, 1);
		need_settled(c, a, "the child's update with set_barrier");
		need_settled(c, b, "the child's update with wait_barrier");
		if (!b->presented)
			sw_fail("the synchronized subsurface's update with wait_barrier was not presented");
		if (a->presented && a->presented_ns < b->presented_ns)
			sw_fail("the synchronized subsurface's update waited on its barrier: the one before it "
				"was shown at a refresh of its own, %.1f ms earlier",
				(b->presented_ns - a->presented_ns) / 1e6);
		wl_subsurface_destroy(subsurface);
		wp_fifo_v1_destroy(fifo);
	}

	/* The protocol: a compositor may ignore the constraint for a surface it
	 * does not update. A role-less surface is never shown; a commit that
	 * waits on its barrier must still apply, or the client hangs. Applied
	 * is seen through explicit sync: the replaced buffer's release point. */
	ct_subtest("fifo-hidden-surface-does-not-wait")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_bare_surface(c);
		ct_get_sync(w);
		struct wp_fifo_v1 *fifo = get_fifo(w);
		struct ct_timeline *acq = ct_timeline(c), *rel_a = ct_timeline(c), *rel_b = ct_timeline(c);
		ct_signal(acq, 2);
		wp_fifo_v1_set_barrier(fifo);
		ct_prepare(w, ct_buffer(c), acq, 1, rel_a, 1);
		ct_commit(w);
		wp_fifo_v1_wait_barrier(fifo);
		ct_prepare(w, ct_buffer(c), acq, 2, rel_b, 1);
		ct_commit(w);
		/* Promptly: a barrier that only a timeout clears is not ignored. */
		if (!ct_wait_signalled(c, rel_a, 1, ct_ms(500)))
			sw_fail("the wait_barrier commit of a surface on no output did not apply within %d ms "
				"(the first buffer was not released)", ct_ms(500));
	}

	/* A commit held by its acquire point sets the barrier when it applies;
	 * the wait_barrier commit queued behind it must not apply with it. */
	ct_subtest("fifo-wait-barrier-behind-held-acquire")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct wp_fifo_v1 *fifo = get_fifo(w);
		struct ct_timeline *acq = ct_timeline(c);
		ct_show(w, ct_buffer(c), acq, 1, ct_timeline(c), 1);
		wp_fifo_v1_set_barrier(fifo);
		struct ct_track *a = ct_commit_buffer(w, ct_buffer(c), acq, 2, ct_timeline(c), 1);
		wp_fifo_v1_wait_barrier(fifo);
		struct ct_track *b = ct_commit_buffer(w, ct_buffer(c), acq, 3, ct_timeline(c), 1);
		ct_expect_not_applied(c, a, "set_barrier commit with an unsignalled acquire point");
		ct_signal(acq, 3);
		need_shown_in_order(c, a, b, "acquire point of the set_barrier commit signalled late");
	}
}

/* --- commit-timing-v1 ------------------------------------------------------ */

#define TIMING_MANAGER_IFACE (&wp_commit_timing_manager_v1_interface)
#define TIMER_IFACE (&wp_commit_timer_v1_interface)

static struct wp_commit_timer_v1 *get_timer(struct ct_window *w)
{
	if (!w->c->d->commit_timing_manager)
		sw_skip("the compositor does not offer wp_commit_timing_manager_v1");
	return wp_commit_timing_manager_v1_get_timer(w->c->d->commit_timing_manager, w->win.surface);
}

static void set_target(struct wp_commit_timer_v1 *timer, int64_t ns)
{
	uint64_t sec = (uint64_t)(ns / 1000000000);
	wp_commit_timer_v1_set_timestamp(timer, (uint32_t)(sec >> 32), (uint32_t)sec,
					 (uint32_t)(ns % 1000000000));
}

/* The target, this far ahead in the presentation clock: long enough that a
 * compositor ignoring it shows the update well before. */
static int64_t target_ahead(struct ct_conn *c)
{
	return sw_display_now_ns(c->d) + (int64_t)ct_ms(300) * 1000000;
}

static void need_not_before(struct ct_conn *c, struct ct_track *t, int64_t target_ns, const char *what)
{
	need_settled(c, t, what);
	if (!t->presented)
		sw_fail("%s: not presented", what);
	if (t->presented_ns < target_ns)
		sw_fail("%s: presented %.3f ms before its target time", what,
			(target_ns - t->presented_ns) / 1e6);
	ct_note("%s: presented %.3f ms after the target", what, (t->presented_ns - target_ns) / 1e6);
}

static void timing_tests(void)
{
	ct_subtest("commit-timing-get-timer-twice-is-commit-timer-exists")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		get_timer(w);
		get_timer(w);
		ct_expect_error(c, TIMING_MANAGER_IFACE, c->d->commit_timing_manager,
				WP_COMMIT_TIMING_MANAGER_V1_ERROR_COMMIT_TIMER_EXISTS,
				"a second get_timer for a surface");
	}

	ct_subtest("commit-timing-get-timer-again-after-destroy")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		wp_commit_timer_v1_destroy(get_timer(w));
		get_timer(w);
		ct_roundtrip(c);
	}

	ct_subtest("commit-timing-nsec-of-a-second-is-invalid-timestamp")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_commit_timer_v1 *timer = get_timer(w);
		wp_commit_timer_v1_set_timestamp(timer, 0, 1, 1000000000);
		ct_expect_error(c, TIMER_IFACE, timer, WP_COMMIT_TIMER_V1_ERROR_INVALID_TIMESTAMP,
				"set_timestamp with tv_nsec = 1000000000");
	}

	ct_subtest("commit-timing-second-timestamp-is-timestamp-exists")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_commit_timer_v1 *timer = get_timer(w);
		set_target(timer, target_ahead(c));
		set_target(timer, target_ahead(c));
		ct_expect_error(c, TIMER_IFACE, timer, WP_COMMIT_TIMER_V1_ERROR_TIMESTAMP_EXISTS,
				"two set_timestamp before one commit");
	}

	ct_subtest("commit-timing-timestamp-after-commit-is-allowed")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_commit_timer_v1 *timer = get_timer(w);
		int64_t past = sw_display_now_ns(c->d) - 1000000;
		set_target(timer, past);
		ct_commit(w);
		set_target(timer, past);
		ct_roundtrip(c);
	}

	ct_subtest("commit-timing-set-timestamp-after-surface-destroyed-is-error")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_commit_timer_v1 *timer = get_timer(w);
		ct_destroy_surface(w);
		set_target(timer, target_ahead(c));
		ct_expect_error(c, TIMER_IFACE, timer, WP_COMMIT_TIMER_V1_ERROR_SURFACE_DESTROYED,
				"set_timestamp after the wl_surface was destroyed");
	}

	ct_subtest("commit-timing-not-presented-before-target")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_commit_timer_v1 *timer = get_timer(w);
		ct_need_presented(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), "first buffer");
		for (int i = 0; i < 3; i++) {
			int64_t target = target_ahead(c);
			set_target(timer, target);
			need_not_before(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), target,
					"commit with a target time");
		}
	}

	/* "Content updates are applied in the order they are received": a
	 * plain commit behind a timed one waits for it. */
	ct_subtest("commit-timing-later-commits-wait-in-order")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_commit_timer_v1 *timer = get_timer(w);
		ct_need_presented(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), "first buffer");
		int64_t target = target_ahead(c);
		set_target(timer, target);
		struct ct_track *a = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		struct ct_track *b = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		need_not_before(c, b, target, "plain commit behind a timed one");
		need_settled(c, a, "the timed commit");
	}

	ct_subtest("commit-timing-past-target-applies-at-once")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_commit_timer_v1 *timer = get_timer(w);
		ct_need_presented(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), "first buffer");
		set_target(timer, sw_display_now_ns(c->d) - 1000000000);
		struct ct_track *t = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		if (!ct_wait_settled(c, t, ct_ms(500)) || !t->presented)
			sw_fail("a commit whose target time is a second ago was not presented within %d ms",
				ct_ms(500));
	}

	ct_subtest("commit-timing-destroy-keeps-committed-target")
	{
		struct ct_conn *c = ct_connect();
		struct ct_window *w = ct_toplevel(c);
		struct wp_commit_timer_v1 *timer = get_timer(w);
		ct_need_presented(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), "first buffer");
		int64_t target = target_ahead(c);
		set_target(timer, target);
		wp_commit_timer_v1_destroy(timer);
		need_not_before(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), target,
				"set_timestamp, wp_commit_timer_v1.destroy, then commit");
	}
}

/* --- held commits ------------------------------------------------------- */

/* The caps of the compositor at $SYNCWAY_PACING_HELD_DISPLAY. */
struct held_caps {
	const char *display;
	int surface, client, total;
};

static struct held_caps need_held_compositor(void)
{
	struct held_caps caps = {
		.display = getenv("SYNCWAY_PACING_HELD_DISPLAY"),
		.surface = ct_env_int("SYNCWAY_PACING_HELD_SURFACE", 0),
		.client = ct_env_int("SYNCWAY_PACING_HELD_CLIENT", 0),
		.total = ct_env_int("SYNCWAY_PACING_HELD_TOTAL", 0),
	};
	if (!caps.display || !*caps.display || caps.surface <= 0 || caps.client <= caps.surface ||
	    caps.total <= caps.client)
		sw_skip("SYNCWAY_PACING_HELD_DISPLAY and its caps (surface < client < total) unset: "
			"needs a compositor with small caps on held commits (run-in-guest starts one)");
	return caps;
}

/* A role-less surface whose commits carry a target time 10^6 s ahead:
 * every one is held (a surface on no output is not exempt from targets). */
struct timed_holder {
	struct ct_window *w;
	struct wp_commit_timer_v1 *timer;
};

static struct timed_holder timed_holder(struct ct_conn *c)
{
	struct timed_holder h = { .w = ct_bare_surface(c) };
	h.timer = get_timer(h.w);
	return h;
}

static void held_commit(struct ct_conn *c, struct timed_holder *h)
{
	set_target(h->timer, sw_display_now_ns(c->d) + 1000000 * 1000000000LL);
	wl_surface_commit(h->w->win.surface);
}

static void need_alive(struct ct_conn *c, const char *what)
{
	if (!ct_try_roundtrip(c))
		sw_fail("%s: refused (\"%s\")", what, ct_last_log());
}

/* The compositor must have refused what c just committed with
 * wl_display's implementation error naming option. */
static void need_refused(struct ct_conn *c, const char *option, const char *what)
{
	if (ct_try_roundtrip(c))
		sw_fail("%s: accepted, no protocol error", what);
	const struct wl_interface *iface = NULL;
	uint32_t code = wl_display_get_protocol_error(c->d->display, &iface, NULL);
	if (iface != &wl_display_interface || code != WL_DISPLAY_ERROR_IMPLEMENTATION)
		sw_fail("%s: error %u on %s, expected wl_display.implementation (\"%s\")", what, code,
			iface ? iface->name : "?", ct_last_log());
	if (!strstr(ct_last_log(), option))
		sw_fail("%s: the error does not name %s: \"%s\"", what, option, ct_last_log());
	ct_note("%s: \"%s\"", what, ct_last_log());
}

/* The compositor holds a content update back until a barrier clears or
 * its target time comes, and wlroots queues every later update of the
 * surface behind it: each costs memory until it applies. Unbounded, a
 * client committing ahead took syncway to 1.34 GB. */
static void held_tests(void)
{
	ct_subtest("commit-timing-held-commits-past-the-surface-cap-get-a-protocol-error")
	{
		struct held_caps caps = need_held_compositor();
		struct ct_conn *c = ct_connect_to(caps.display);
		struct timed_holder h = timed_holder(c);
		for (int i = 0; i < caps.surface; i++)
			held_commit(c, &h);
		need_alive(c, "commits held for a target time, as many as the surface cap");
		held_commit(c, &h);
		need_refused(c, "--max-held-per-surface", "one held commit more");
	}

	/* What the measurement above did: one target time far ahead, then
	 * plain commits, every one queued behind it. */
	ct_subtest("commit-timing-commits-queued-behind-a-held-one-count-against-the-cap")
	{
		struct held_caps caps = need_held_compositor();
		struct ct_conn *c = ct_connect_to(caps.display);
		struct timed_holder h = timed_holder(c);
		held_commit(c, &h);
		for (int i = 1; i < caps.surface; i++)
			wl_surface_commit(h.w->win.surface);
		need_alive(c, "one commit held for its target, plain ones behind it up to the surface cap");
		wl_surface_commit(h.w->win.surface);
		need_refused(c, "--max-held-per-surface", "one plain commit more behind it");
	}

	/* Every commit sets a barrier and waits on the one before: each is
	 * held until a refresh (the compositor draws ten a second), so a
	 * burst of twice the cap overruns it. */
	ct_subtest("fifo-held-commits-past-the-surface-cap-get-a-protocol-error")
	{
		struct held_caps caps = need_held_compositor();
		struct ct_conn *c = ct_connect_to(caps.display);
		struct wp_fifo_v1 *fifo;
		struct ct_window *w = shown_toplevel(c, &fifo);
		for (int i = 0; i < caps.surface / 2; i++) {
			wp_fifo_v1_set_barrier(fifo);
			wp_fifo_v1_wait_barrier(fifo);
			wl_surface_commit(w->win.surface);
		}
		need_alive(c, "fifo commits held, half the surface cap");
		for (int i = 0; i < 2 * caps.surface; i++) {
			wp_fifo_v1_set_barrier(fifo);
			wp_fifo_v1_wait_barrier(fifo);
			wl_surface_commit(w->win.surface);
		}
		need_refused(c, "--max-held-per-surface", "a burst of fifo commits, twice the surface cap");
	}

	/* Surfaces each below their cap, together past the client's; once the
	 * client is gone, what it held is counted out: another holds as much. */
	ct_subtest("held-commits-past-the-client-cap-get-a-protocol-error")
	{
		struct held_caps caps = need_held_compositor();
		int per = caps.surface - 1, surfaces = (caps.client + per - 1) / per;
		for (int round = 0; round < 2; round++) {
			struct ct_conn *c = ct_connect_to(caps.display);
			int held = 0;
			for (int s = 0; s < surfaces; s++) {
				struct timed_holder h = timed_holder(c);
				for (int i = 0; i < per && held < caps.client; i++, held++)
					held_commit(c, &h);
			}
			need_alive(c, round ? "a client holding the client cap, after one that did left" :
					      "commits held on several surfaces, as many as the client cap");
			if (round) {
				ct_disconnect(c);
				break;
			}
			struct timed_holder h = timed_holder(c);
			held_commit(c, &h);
			need_refused(c, "--max-held-commits", "one held commit more, on another surface");
			ct_disconnect(c);
		}
	}

	/* Two clients together past the total, each below its cap: the one
	 * holding the most is cut off, not the one committing, and a third
	 * client's commit with a near target time is still presented. */
	ct_subtest("held-commits-of-all-clients-past-the-total-cut-the-heaviest")
	{
		struct held_caps caps = need_held_compositor();
		struct ct_conn *a = ct_connect_to(caps.display), *b = ct_connect_to(caps.display);
		struct ct_conn *e = ct_connect_to(caps.display);
		struct ct_window *ew = ct_toplevel(e);
		struct wp_commit_timer_v1 *et = get_timer(ew);
		ct_need_presented(e, ct_commit_buffer(ew, ct_buffer(e), NULL, 0, NULL, 0), "the bystander's first buffer");
		int per = caps.surface - 1, heavy = caps.client - 1, held_b = 0;
		for (int held = 0; held < heavy;) {
			struct timed_holder h = timed_holder(a);
			for (int i = 0; i < per && held < heavy; i++, held++)
				held_commit(a, &h);
		}
		need_alive(a, "the first client holding commits, below its cap");
		struct timed_holder hb = timed_holder(b);
		bool a_alive = true;
		while (a_alive && held_b < caps.total) {
			if (held_b % per == per - 1)
				hb = timed_holder(b);
			held_commit(b, &hb);
			held_b++;
			if (held_b + heavy >= caps.total - 2) {
				need_alive(b, "the second client, committing past the total");
				a_alive = ct_try_roundtrip(a);
			}
		}
		ct_note("client A held %d commits, client B %d when A was %s", heavy, held_b,
			a_alive ? "still connected" : "cut off");
		if (a_alive)
			sw_fail("all clients' held commits reached %d, past the total of %d, and the client "
				"holding %d was not cut off", heavy + held_b, caps.total, heavy);
		const struct wl_interface *iface = NULL;
		uint32_t code = wl_display_get_protocol_error(a->d->display, &iface, NULL);
		if (iface != &wl_display_interface || code != WL_DISPLAY_ERROR_IMPLEMENTATION ||
		    !strstr(ct_last_log(), "--max-held-total"))
			sw_fail("the client holding the most was cut off with error %u on %s, not "
				"wl_display.implementation naming --max-held-total (\"%s\")", code,
				iface ? iface->name : "?", ct_last_log());
		need_alive(b, "the client that committed, holding less, after the other was cut off");
		int64_t target = sw_display_now_ns(e->d) + (int64_t)ct_ms(100) * 1000000;
		set_target(et, target);
		need_not_before(e, ct_commit_buffer(ew, ct_buffer(e), NULL, 0, NULL, 0), target,
				"a bystander's commit with a target time, after the cut-off");
	}
}

static struct wp_tearing_control_manager_v1 *tearing_manager(struct ct_conn *c)
{
	const struct sw_display_global *g =
		sw_display_find_global(c->d, wp_tearing_control_manager_v1_interface.name);
	if (!g)
		sw_skip("the compositor does not offer wp_tearing_control_manager_v1");
	return wl_registry_bind(c->d->registry, g->name, &wp_tearing_control_manager_v1_interface, 1);
}

/* n frames of w, each presented; how many carried the vsync flag. */
static int frames_with_vsync(struct ct_conn *c, struct ct_window *w, int n, const char *what)
{
	int vsync = 0;
	for (int i = 0; i < n; i++) {
		struct ct_track *t = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		need_settled(c, t, what);
		if (!t->presented)
			sw_fail("%s: frame %d discarded, not presented", what, i + 1);
		if (t->presented_flags & WP_PRESENTATION_FEEDBACK_KIND_VSYNC)
			vsync++;
	}
	return vsync;
}

static void tearing_tests(void)
{
	ct_subtest("tearing-get-control-twice-is-tearing-control-exists")
	{
		struct ct_conn *c = ct_connect();
		struct wp_tearing_control_manager_v1 *m = tearing_manager(c);
		struct ct_window *w = ct_toplevel(c);
		wp_tearing_control_manager_v1_get_tearing_control(m, w->win.surface);
		wp_tearing_control_manager_v1_get_tearing_control(m, w->win.surface);
		ct_expect_error(c, &wp_tearing_control_manager_v1_interface, m,
				WP_TEARING_CONTROL_MANAGER_V1_ERROR_TEARING_CONTROL_EXISTS,
				"a second get_tearing_control for one surface");
	}

	/* A fullscreen window asking for async presentation (a game in
	 * immediate mode) keeps being shown; where the compositor honours it,
	 * without vsync, and with vsync again once it asks for that. */
	ct_subtest("tearing-async-hint-of-fullscreen-window")
	{
		enum { FRAMES = 10 };
		const char *env = getenv("SYNCWAY_CONFORMANCE_EXPECT_TEARING");
		bool expect = env && strcmp(env, "1") == 0;
		struct ct_conn *c = ct_connect();
		struct wp_tearing_control_manager_v1 *m = tearing_manager(c);
		struct ct_window *w = ct_toplevel(c);
		/* Shown first: xdg-shell does not say when the configure that
		 * answers set_fullscreen comes, and a compositor may answer a
		 * window not yet mapped at its map (sway does). */
		need_settled(c, ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0), "first buffer");
		unsigned before = w->win.configures;
		xdg_toplevel_set_fullscreen(w->win.xdg_toplevel, NULL);
		ct_need_configure_since(w, before, "set_fullscreen");
		if (!w->win.fullscreen)
			sw_skip("the compositor left the window as it was after set_fullscreen (its "
				"policy, which xdg-shell allows)");
		struct wp_tearing_control_v1 *tc = wp_tearing_control_manager_v1_get_tearing_control(m, w->win.surface);
		wp_tearing_control_v1_set_presentation_hint(tc, WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC);
		int async_vsync = frames_with_vsync(c, w, FRAMES, "async hint");
		wp_tearing_control_v1_set_presentation_hint(tc, WP_TEARING_CONTROL_V1_PRESENTATION_HINT_VSYNC);
		int vsync_vsync = frames_with_vsync(c, w, FRAMES, "vsync hint again");
		ct_note("frames with the vsync flag: %d of %d with the async hint, %d of %d with vsync", async_vsync,
			FRAMES, vsync_vsync, FRAMES);
		/* The first frame after the hint changed may be the last one
		 * committed the old way. */
		if (expect && async_vsync > 1)
			sw_fail("%d of %d frames of a fullscreen window with the async hint were vsynced",
				async_vsync, FRAMES);
		if (expect && vsync_vsync < FRAMES - 1)
			sw_fail("only %d of %d frames were vsynced after the hint went back to vsync",
				vsync_vsync, FRAMES);
		wp_tearing_control_v1_destroy(tc);
	}
}

int main(int argc, char **argv)
{
	sw_test_init("pacing-conformance", argc, argv);
	object_tests();
	barrier_tests();
	timing_tests();
	held_tests();
	tearing_tests();
	ct_end();
	return sw_test_exit();
}
