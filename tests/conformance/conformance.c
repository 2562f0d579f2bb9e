/* linux-drm-syncobj-v1 conformance: one subtest per rule of the checklist
 * in notes/protocol.md (rule numbers in the comments; the table with the
 * method of each is docs/conformance.md). Runs against the compositor of
 * $WAYLAND_DISPLAY:
 *
 *   syncobj-conformance [--list] [--run GLOB] [--json FILE]
 *
 * Environment:
 *   SYNCWAY_CONFORMANCE_BUFFER=dmabuf|shm  buffer type (default: dmabuf when
 *                                          possible, else wl_shm)
 *   SYNCWAY_CONFORMANCE_EXPECT_GLOBAL=1    rule 1 fails (not skips) when the
 *                                          device supports explicit sync and
 *                                          the compositor has no global
 *   SYNCWAY_CONFORMANCE_OFF_DISPLAYS="a b" sockets of compositors started with
 *                                          explicit sync off (rule 34)
 *   SYNCWAY_CONFORMANCE_TIME_SCALE=F       multiplies every timeout
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ct.h"
#include "drm_device.h"
#include "leaks.h"
#include "linux-drm-syncobj-v1-client-protocol.h"

#define MANAGER_IFACE (&wp_linux_drm_syncobj_manager_v1_interface)
#define SURFACE_IFACE (&wp_linux_drm_syncobj_surface_v1_interface)

/* A role-less wl_surface with a syncobj surface. */
static struct ct_window *sync_bare(struct ct_conn *c)
{
	struct ct_window *w = ct_bare_surface(c);
	ct_get_sync(w);
	return w;
}

/* Shows b on w with fresh timelines (acquire point 1, signalled first;
 * release point 1); returns the release timeline. */
static struct ct_timeline *show_fresh(struct ct_window *w, struct sw_buffer *b, struct ct_track **track)
{
	struct ct_timeline *acq = ct_timeline(w->c), *rel = ct_timeline(w->c);
	struct ct_track *t = ct_show(w, b, acq, 1, rel, 1);
	if (track)
		*track = t;
	return rel;
}

static void need_release(struct ct_conn *c, struct ct_timeline *rel, uint64_t point, const char *what)
{
	if (!ct_wait_signalled(c, rel, point, CT_DEADLINE_MS))
		sw_fail("%s: release point %" PRIu64 " not signalled within %d ms", what, point,
			CT_DEADLINE_MS);
}

/* --- the manager and its objects (rules 1-7) ------------------------------ */

static void manager_tests(void)
{
	/* Rule 1 (see 34 for the "switched off" half). */
	ct_subtest("global-advertised-iff-timeline-support")
	{
		struct ct_conn *c = ct_connect();
		struct sw_syncobj_caps caps;
		char err[256];
		if (!sw_drm_probe_syncobj(ct_drm_fd(), &caps, err, sizeof(err)))
			sw_skip("cannot probe the DRM device: %s", err);
		bool supported = sw_syncobj_caps_explicit_sync(&caps);
		const struct sw_display_global *g = sw_display_find_global(c->d, MANAGER_IFACE->name);
		ct_note("device driver %s: DRM_CAP_SYNCOBJ_TIMELINE=%d, SYNCOBJ_EVENTFD %s; global %s",
			caps.driver, caps.syncobj_timeline, caps.eventfd ? "present" : "missing",
			g ? "advertised" : "absent");
		if (!supported && g)
			sw_fail("wp_linux_drm_syncobj_manager_v1 is advertised, but the device lacks %s",
				!caps.syncobj_timeline ? "DRM_CAP_SYNCOBJ_TIMELINE" : "DRM_IOCTL_SYNCOBJ_EVENTFD");
		if (supported && !g) {
			const char *expect = getenv("SYNCWAY_CONFORMANCE_EXPECT_GLOBAL");
			if (expect && strcmp(expect, "1") == 0)
				sw_fail("the device supports timelines and SYNCOBJ_EVENTFD, but the "
					"compositor does not advertise wp_linux_drm_syncobj_manager_v1");
			sw_skip("the compositor does not offer explicit sync (allowed)");
		}
		if (g)
			sw_assert_f(g->version == 1, "global advertised at version %u; the protocol has "
				    "only version 1", g->version);
	}

	/* Rule 2. */
	ct_subtest("manager-destroy-keeps-objects-working")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct ct_timeline *acq1 = ct_timeline(c), *rel1 = ct_timeline(c);
		struct ct_timeline *acq2 = ct_timeline(c), *rel2 = ct_timeline(c);
		wp_linux_drm_syncobj_manager_v1_destroy(c->d->syncobj_manager);
		c->d->syncobj_manager = NULL;
		ct_roundtrip(c);
		struct sw_buffer *b1 = ct_buffer(c), *b2 = ct_buffer(c);
		ct_show(w, b1, acq1, 1, rel1, 1);
		ct_show(w, b2, acq2, 1, rel2, 1);
		need_release(c, rel1, 1, "first buffer replaced after manager.destroy");
	}

	/* Rule 3: on the manager, also through a second binding of the global. */
	ct_subtest("get-surface-twice-is-surface-exists")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = sync_bare(c);
		wp_linux_drm_syncobj_manager_v1_get_surface(c->d->syncobj_manager, w->win.surface);
		ct_expect_error(c, MANAGER_IFACE, c->d->syncobj_manager,
				WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_SURFACE_EXISTS,
				"second get_surface for one wl_surface");

		struct ct_conn *c2 = ct_connect_with_manager();
		struct ct_window *w2 = sync_bare(c2);
		struct wp_linux_drm_syncobj_manager_v1 *other = ct_bind_manager(c2);
		wp_linux_drm_syncobj_manager_v1_get_surface(other, w2->win.surface);
		ct_expect_error(c2, MANAGER_IFACE, other,
				WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_SURFACE_EXISTS,
				"second get_surface through another manager binding");
	}

	/* Rule 4. */
	ct_subtest("get-surface-after-destroy-works")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		ct_destroy_sync(w);
		/* Back to implicit sync: a plain commit is fine. */
		struct ct_track *t = ct_commit_buffer(w, ct_buffer(c), NULL, 0, NULL, 0);
		ct_need_presented(c, t, "plain commit after the syncobj surface was destroyed");
		ct_get_sync(w);
		ct_roundtrip(c);
		struct ct_timeline *rel = show_fresh(w, ct_buffer(c), NULL);
		show_fresh(w, ct_buffer(c), NULL);
		need_release(c, rel, 1, "buffer committed through the second syncobj surface, replaced");
	}

	/* Rule 5. */
	ct_subtest("import-non-syncobj-fd-is-invalid-timeline")
	{
		struct ct_conn *c = ct_connect_with_manager();
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		sw_assert(fd >= 0);
		wp_linux_drm_syncobj_manager_v1_import_timeline(c->d->syncobj_manager, fd);
		close(fd);
		ct_expect_error(c, MANAGER_IFACE, c->d->syncobj_manager,
				WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_INVALID_TIMELINE,
				"import_timeline of /dev/null");
	}

	/* Rule 6: works, and the compositor's fds (and, with tracefs, the
	 * syncobjs it holds) return to the baseline. */
	ct_subtest("import-timeline-leaks-no-fd")
	{
		enum { N = 64 };
		static struct ct_timeline *t[N];
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct sw_buffer *b1 = ct_buffer(c), *b2 = ct_buffer(c);
		ct_control_frame(c);
		/* The window is on screen before the baseline: on an output that
		 * can scan out (the DRM backend) the scene gives a shown surface
		 * dmabuf feedback of its own, a format table in a shm file that
		 * lives as long as the surface. */
		struct ct_timeline *warm = ct_timeline(c);
		ct_show(w, b2, warm, 1, warm, 2);
		ct_roundtrip(c);
		struct ct_fd_watch watch;
		ct_fd_watch_start(c, &watch);
		char why[256];
		bool tracing = ct_objtrace_start(why, sizeof(why));

		for (int i = 0; i < N; i++)
			t[i] = ct_timeline(c);
		ct_roundtrip(c);
		ct_show(w, b1, t[0], 1, t[1], 1);
		ct_show(w, b2, t[2], 1, t[3], 1);
		need_release(c, t[1], 1, "imported timeline as release timeline, buffer replaced");
		struct ct_fds alive;
		if (ct_fds_read(watch.pid, &alive))
			ct_note("compositor fds: %d at the baseline, %d with %d timelines imported",
				watch.base.total, alive.total, N);
		for (int i = 0; i < N; i++)
			ct_timeline_destroy_proxy(t[i]);
		/* The displayed buffer's release point still refers to t[3]:
		 * replace it with a plain commit so nothing needs it. */
		ct_destroy_sync(w);
		ct_need_presented(c, ct_commit_buffer(w, b1, NULL, 0, NULL, 0), "plain commit");
		ct_fd_watch_expect_baseline(c, &watch, CT_DEADLINE_MS,
					    "after destroying the imported timelines");
		if (tracing) {
			for (int i = 0; i < N; i++)
				ct_timeline_forget(t[i]);
			ct_objtrace_expect_none_alive(c, CT_DEADLINE_MS,
						      "after destroying the timelines and our handles");
			ct_objtrace_stop();
		} else {
			ct_note("syncobj handles not measured: %s", why);
		}
	}

	/* Rule 7. */
	ct_subtest("timeline-destroy-before-commit-keeps-points")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		show_fresh(w, ct_buffer(c), NULL);
		struct ct_timeline *acq = ct_timeline(c), *rel = ct_timeline(c);
		ct_prepare(w, ct_buffer(c), acq, 1, rel, 1);
		ct_timeline_destroy_proxy(acq);
		ct_timeline_destroy_proxy(rel);
		struct ct_track *t = ct_track(w);
		ct_commit(w);
		ct_roundtrip(c);
		ct_expect_not_applied(c, t, "acquire timeline object destroyed before the commit, point "
				      "not signalled");
		ct_signal(acq, 1);
		ct_need_presented(c, t, "acquire point of a destroyed timeline object signalled");
		show_fresh(w, ct_buffer(c), NULL);
		need_release(c, rel, 1, "release timeline object destroyed before the commit, buffer replaced");
	}
}

/* --- protocol errors (rules 8-22) -------------------------------------------- */

/* A role-less surface whose syncobj surface already had one good commit. */
static struct ct_window *bare_with_content(struct ct_conn *c)
{
	struct ct_window *w = sync_bare(c);
	struct ct_timeline *acq = ct_timeline(c), *rel = ct_timeline(c);
	ct_signal(acq, 1);
	ct_prepare(w, ct_buffer(c), acq, 1, rel, 1);
	ct_commit(w);
	ct_roundtrip(c);
	return w;
}

/* Commits w's pending state, which the compositor must refuse with error
 * code on the syncobj surface. */
static void commit_refused(struct ct_window *w, uint32_t code, const char *what)
{
	ct_commit(w);
	ct_expect_error(w->c, SURFACE_IFACE, w->sync, code, what);
}

/* Rules 8 and 9: the acquire (or release) point set on a syncobj surface
 * whose wl_surface is gone. */
static void point_without_surface(bool release, const char *what)
{
	struct ct_conn *c = ct_connect_with_manager();
	struct ct_window *w = sync_bare(c);
	struct ct_timeline *t = ct_timeline(c);
	ct_destroy_surface(w);
	ct_roundtrip(c);
	if (release)
		ct_set_release(w, t, 1);
	else
		ct_set_acquire(w, t, 1);
	ct_expect_error(c, SURFACE_IFACE, w->sync, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_SURFACE,
			what);
}

/* Rules 19, 20 and 35: both points on one timeline, the acquire point not
 * before the release point. */
static void one_timeline_conflict(uint64_t acquire, uint64_t release, const char *what)
{
	struct ct_conn *c = ct_connect_with_manager();
	struct ct_window *w = sync_bare(c);
	struct ct_timeline *t = ct_timeline(c);
	ct_prepare(w, ct_buffer(c), t, acquire, t, release);
	commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_CONFLICTING_POINTS, what);
}

static void error_tests(void)
{
	/* Rules 8 and 9. */
	ct_subtest("set-acquire-after-surface-destroy-is-no-surface")
	{
		point_without_surface(false, "set_acquire_point after the wl_surface was destroyed");
	}

	ct_subtest("set-release-after-surface-destroy-is-no-surface")
	{
		point_without_surface(true, "set_release_point after the wl_surface was destroyed");
	}

	/* Rules 10-13: points without a pending buffer. 11 and 12 on a
	 * surface that has a current buffer: what counts is this commit. */
	ct_subtest("both-points-without-buffer-is-no-buffer")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = sync_bare(c);
		struct ct_timeline *a = ct_timeline(c), *r = ct_timeline(c);
		ct_set_acquire(w, a, 1);
		ct_set_release(w, r, 2);
		commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_BUFFER,
			       "commit with both points and no buffer");
	}

	ct_subtest("acquire-only-without-buffer-is-no-buffer")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = bare_with_content(c);
		ct_set_acquire(w, ct_timeline(c), 1);
		commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_BUFFER,
			       "commit with an acquire point and no new buffer");
	}

	ct_subtest("release-only-without-buffer-is-no-buffer")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = bare_with_content(c);
		ct_set_release(w, ct_timeline(c), 1);
		commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_BUFFER,
			       "commit with a release point and no new buffer");
	}

	ct_subtest("points-with-null-buffer-is-no-buffer")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = bare_with_content(c);
		ct_prepare(w, NULL, ct_timeline(c), 1, ct_timeline(c), 1);
		commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_BUFFER,
			       "attach(NULL) with both points");
	}

	/* Rules 14-16. */
	ct_subtest("buffer-with-release-only-is-no-acquire-point")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = sync_bare(c);
		ct_prepare(w, ct_buffer(c), NULL, 0, ct_timeline(c), 1);
		commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_ACQUIRE_POINT,
			       "buffer with a release point only");
	}

	ct_subtest("buffer-with-acquire-only-is-no-release-point")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = sync_bare(c);
		struct ct_timeline *a = ct_timeline(c);
		ct_signal(a, 1);
		ct_prepare(w, ct_buffer(c), a, 1, NULL, 0);
		commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_RELEASE_POINT,
			       "buffer with an acquire point only");
	}

	ct_subtest("buffer-without-points-is-no-acquire-point")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = sync_bare(c);
		ct_attach(w, ct_buffer(c));
		commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_ACQUIRE_POINT,
			       "buffer without any point");
	}

	/* Rules 17 and 18. */
	ct_subtest("commit-without-buffer-or-points-is-fine")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		ct_commit(w);
		ct_roundtrip(c);
		show_fresh(w, ct_buffer(c), NULL);
		ct_need_presented(c, ct_commit_damage(w, 0, 0, 4),
				  "commit with damage only, no buffer, no points");
		ct_commit(w);
		ct_roundtrip(c);
	}

	ct_subtest("null-attach-without-points-is-fine")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		show_fresh(w, ct_buffer(c), NULL);
		ct_attach(w, NULL);
		ct_commit(w);
		ct_roundtrip(c);
		/* And the surface can be mapped again. */
		ct_commit(w);
		ct_roundtrip(c);
		struct ct_window *bare = sync_bare(c);
		ct_attach(bare, NULL);
		ct_commit(bare);
		ct_roundtrip(c);
	}

	/* Rules 19-22. */
	ct_subtest("same-timeline-equal-points-is-conflicting")
	{
		one_timeline_conflict(5, 5, "acquire 5 and release 5 on one timeline");
	}

	ct_subtest("same-timeline-acquire-after-release-is-conflicting")
	{
		one_timeline_conflict(6, 5, "acquire 6 and release 5 on one timeline");
	}

	ct_subtest("same-timeline-acquire-before-release-is-fine")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct ct_timeline *t = ct_timeline(c);
		ct_show(w, ct_buffer(c), t, 1, t, 2);
		show_fresh(w, ct_buffer(c), NULL);
		need_release(c, t, 2, "acquire 1, release 2 on one timeline, buffer replaced");
	}

	ct_subtest("different-timelines-any-points-are-fine")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		/* Acquire far above release, on two syncobjs. */
		struct ct_timeline *a = ct_timeline(c), *r = ct_timeline(c);
		ct_show(w, ct_buffer(c), a, 10, r, 1);
		/* Equal points on two imports of one syncobj: two objects, so
		 * not "identical timelines". */
		struct ct_timeline *t = ct_timeline(c);
		struct ct_timeline *again = ct_timeline_import_again(t);
		ct_signal(t, 5);
		struct ct_track *tr = ct_commit_buffer(w, ct_buffer(c), t, 5, again, 5);
		ct_need_presented(c, tr, "acquire 5 and release 5 on two imports of one syncobj");
		need_release(c, r, 1, "acquire 10 / release 1 on two timelines, buffer replaced");
	}
}

/* --- buffers, points and waits (rules 23-28, 35) --------------------------------- */

static void wait_tests(void)
{
	/* Rule 23. */
	ct_subtest("dmabuf-accepted-shm-documented")
	{
		struct ct_conn *c = ct_connect_with_manager();
		char why[200];
		bool dmabuf = ct_dmabuf_usable(c, why, sizeof(why));
		if (dmabuf) {
			struct ct_window *w = ct_sync_window(c);
			struct ct_timeline *rel = show_fresh(w, ct_buffer_of(c, SW_BUFFER_DMABUF), NULL);
			show_fresh(w, ct_buffer_of(c, SW_BUFFER_DMABUF), NULL);
			need_release(c, rel, 1, "dmabuf replaced");
		}
		struct ct_conn *c2 = ct_connect_with_manager();
		struct ct_window *w2 = ct_sync_window(c2);
		struct ct_timeline *acq = ct_timeline(c2), *rel = ct_timeline(c2);
		ct_signal(acq, 1);
		struct ct_track *t = ct_commit_buffer(w2, ct_buffer_of(c2, SW_BUFFER_SHM), acq, 1, rel, 1);
		if (!ct_try_roundtrip(c2)) {
			ct_check_error(c2, SURFACE_IFACE, w2->sync,
				       WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_UNSUPPORTED_BUFFER,
				       "wl_shm buffer with explicit sync");
			ct_note("wl_shm with explicit sync: refused with unsupported_buffer");
		} else {
			ct_need_presented(c2, t, "wl_shm buffer with explicit sync");
			ct_note("wl_shm with explicit sync: accepted");
		}
		if (!dmabuf)
			sw_skip("dmabuf (the type that must be accepted) not tested: %s", why);
	}

	/* Rule 24, both points, both directions for acquire. */
	ct_subtest("second-set-point-replaces-first")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		show_fresh(w, ct_buffer(c), NULL);

		struct ct_timeline *never = ct_timeline(c), *acq = ct_timeline(c);
		struct ct_timeline *rel_first = ct_timeline(c), *rel_second = ct_timeline(c);
		ct_signal(acq, 1);
		ct_attach(w, ct_buffer(c));
		ct_set_acquire(w, never, 1);
		ct_set_acquire(w, acq, 1);
		ct_set_release(w, rel_first, 1);
		ct_set_release(w, rel_second, 1);
		struct ct_track *t1 = ct_track(w);
		ct_commit(w);
		ct_need_presented(c, t1, "first acquire point never signalled, second one signalled");

		struct ct_timeline *acq2 = ct_timeline(c), *never2 = ct_timeline(c), *rel2 = ct_timeline(c);
		ct_signal(acq2, 1);
		ct_attach(w, ct_buffer(c));
		ct_set_acquire(w, acq2, 1);
		ct_set_acquire(w, never2, 1);
		ct_set_release(w, rel2, 1);
		struct ct_track *t2 = ct_track(w);
		ct_commit(w);
		ct_expect_not_applied(c, t2, "first acquire point signalled, second (which counts) not");
		ct_signal(never2, 1);
		ct_need_presented(c, t2, "second acquire point signalled");

		need_release(c, rel_second, 1, "second release point, buffer replaced");
		ct_expect_unsignalled(c, rel_first, 1, "release point replaced by a second "
				      "set_release_point");
	}

	/* Rule 24 against rules 19-20: what conflicts is the pair that counts
	 * at commit, not one a second set_*_point replaced. */
	ct_subtest("second-set-point-clears-conflict")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct ct_timeline *a = ct_timeline(c), *b = ct_timeline(c);
		ct_signal(a, 1);
		ct_attach(w, ct_buffer(c));
		ct_set_acquire(w, a, 100);
		ct_set_release(w, a, 2);
		ct_set_acquire(w, a, 1);
		struct ct_track *t1 = ct_track(w);
		ct_commit(w);
		ct_need_presented(c, t1, "acquire 100 / release 2 on one timeline, acquire replaced by 1");

		ct_signal(b, 1);
		ct_attach(w, ct_buffer(c));
		ct_set_acquire(w, b, 1);
		ct_set_release(w, b, 1);
		ct_set_release(w, b, 2);
		struct ct_track *t2 = ct_track(w);
		ct_commit(w);
		ct_need_presented(c, t2, "acquire 1 / release 1 on one timeline, release replaced by 2");
		need_release(c, a, 2, "first buffer replaced");
	}

	/* Rule 25: the acquire point is materialized (a sw_sync fence, like a
	 * GPU job's) but not signalled; a compositor that only waits for
	 * materialization applies it too early. */
	ct_subtest("not-applied-before-acquire-signalled")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct ct_timeline *rel0 = show_fresh(w, ct_buffer(c), NULL);
		struct ct_timeline *acq = ct_timeline(c), *rel = ct_timeline(c);
		bool swsync = ct_swsync_available();
		int token = swsync ? ct_swsync_attach(acq, 1) : -1;
		if (!swsync)
			ct_note("no sw_sync: the acquire point is not even materialized (weaker)");
		struct ct_track *t = ct_commit_buffer(w, ct_buffer(c), acq, 1, rel, 1);
		ct_roundtrip(c);
		ct_expect_not_applied(c, t, swsync ? "acquire point materialized, not signalled"
						   : "acquire point not submitted");
		if (ct_signalled(rel0, 1))
			sw_fail("the displayed buffer was released while the next commit waits for its "
				"acquire point: that commit was applied");
		int64_t when = ct_now_ns();
		if (swsync)
			ct_swsync_release(token);
		else
			ct_signal(acq, 1);
		ct_need_presented(c, t, "acquire point signalled");
		if (c->d->presentation && t->presented_ns + 1000000 < when)
			sw_fail("presented at %" PRId64 " ns, before the acquire point was signalled at "
				"%" PRId64 " ns", t->presented_ns, when);
	}

	/* Rule 26: commit first; the point is submitted (materialized,
	 * unsignalled) later, then signalled from another thread. */
	ct_subtest("wait-before-submit")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		show_fresh(w, ct_buffer(c), NULL);
		struct ct_timeline *acq = ct_timeline(c), *rel = ct_timeline(c);
		struct ct_track *t = ct_commit_buffer(w, ct_buffer(c), acq, 1, rel, 1);
		int64_t rt = ct_timed_roundtrip(c);
		if (rt > (int64_t)ct_ms(1000) * 1000000)
			sw_fail("a roundtrip after the commit took %" PRId64 " ms: the compositor blocks "
				"on an acquire point that does not exist yet", rt / 1000000);
		ct_expect_not_applied(c, t, "acquire point not submitted");
		volatile int64_t when = 0;
		if (ct_swsync_available()) {
			int token = ct_swsync_attach(acq, 1);
			ct_expect_not_applied(c, t, "acquire point submitted (materialized), not signalled");
			when = ct_now_ns();
			ct_swsync_release(token);
		} else {
			ct_note("no sw_sync: the point materializes and signals at once");
			ct_signal_later(acq, 1, 100, &when);
		}
		ct_need_presented(c, t, "acquire point submitted and signalled after the commit");
		if (!when)
			sw_fail("presented before the signalling thread signalled");
		if (c->d->presentation && t->presented_ns + 1000000 < when)
			sw_fail("presented at %" PRId64 " ns, before the signal at %" PRId64 " ns",
				t->presented_ns, (int64_t)when);
		/* From a thread, while we sit in poll(). */
		struct ct_timeline *acq2 = ct_timeline(c), *rel2 = ct_timeline(c);
		struct ct_track *t2 = ct_commit_buffer(w, ct_buffer(c), acq2, 1, rel2, 1);
		ct_signal_later(acq2, 1, ct_ms(150), &when);
		ct_need_presented(c, t2, "acquire point submitted and signalled by another thread");
		if (!when || t2->received_ns < when)
			sw_fail("presentation feedback arrived before the other thread signalled");
	}

	/* Rule 27. */
	ct_subtest("points-are-double-buffered")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		show_fresh(w, ct_buffer(c), NULL);
		/* Reused points would make this commit a no_buffer error. */
		struct ct_track *t = ct_commit_damage(w, 0, 0, 4);
		if (!ct_try_roundtrip(c))
			sw_fail("a commit without buffer after one with points failed: the points were "
				"reused (error %u: \"%s\")",
				wl_display_get_protocol_error(c->d->display, NULL, NULL), ct_last_log());
		ct_need_presented(c, t, "damage-only commit after a commit with points");
		/* Reused points would make this one acceptable. */
		ct_attach(w, ct_buffer(c));
		commit_refused(w, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_ACQUIRE_POINT,
			       "buffer without points two commits after a commit with points");
	}

	/* Rule 28: A waits, B is ready, C becomes ready before A. */
	ct_subtest("waiting-commit-not-overtaken")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct ct_timeline *rel0 = show_fresh(w, ct_buffer(c), NULL);
		struct ct_timeline *acq[3], *rel[3];
		struct ct_track *t[3];
		for (int i = 0; i < 3; i++) {
			acq[i] = ct_timeline(c);
			rel[i] = ct_timeline(c);
		}
		ct_signal(acq[1], 1);
		for (int i = 0; i < 3; i++)
			t[i] = ct_commit_buffer(w, ct_buffer(c), acq[i], 1, rel[i], 1);
		ct_roundtrip(c);
		ct_signal(acq[2], 1);
		ct_expect_not_applied(c, t[1], "commit B (acquire signalled) queued behind A (waiting)");
		ct_expect_not_applied(c, t[2], "commit C (acquire signalled after commit) queued behind A");
		if (ct_applied(t[0]))
			sw_fail("commit A was applied before its acquire point was signalled");
		if (ct_signalled(rel0, 1))
			sw_fail("the displayed buffer was released while A waits: a later commit overtook A");
		ct_signal(acq[0], 1);
		ct_need_presented(c, t[2], "A signalled: the last commit C");
		for (int i = 0; i < 2; i++)
			if (!ct_wait_settled(c, t[i], CT_DEADLINE_MS))
				sw_fail("commit %c: no presentation feedback after C was presented", 'A' + i);
		if (c->d->presentation &&
		    !(t[0]->feedback_order < t[1]->feedback_order && t[1]->feedback_order < t[2]->feedback_order))
			sw_fail("commits applied out of order: feedback order A %" PRIu64 ", B %" PRIu64
				", C %" PRIu64, t[0]->feedback_order, t[1]->feedback_order, t[2]->feedback_order);
		ct_note("A %s, B %s, C presented", t[0]->presented ? "presented" : "discarded",
			t[1]->presented ? "presented" : "discarded");
	}

	/* Rule 35. */
	ct_subtest("point-hi-64-bit")
	{
		const uint64_t acquire = (1ull << 32) | 5, release = (2ull << 32) | 1;
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		show_fresh(w, ct_buffer(c), NULL);
		struct ct_timeline *acq = ct_timeline(c), *rel = ct_timeline(c);
		struct ct_track *t = ct_commit_buffer(w, ct_buffer(c), acq, acquire, rel, release);
		ct_signal(acq, 5);
		ct_expect_not_applied(c, t, "acquire point 0x100000005 waiting, point 5 signalled");
		ct_signal(acq, acquire);
		ct_need_presented(c, t, "acquire point 0x100000005 signalled");
		show_fresh(w, ct_buffer(c), NULL);
		need_release(c, rel, release, "release point 0x200000001, buffer replaced");
		uint64_t value = 0;
		uint32_t handle = rel->handle;
		sw_assert_eq(sw_syncobj_query(ct_stats(), ct_drm_fd(), &handle, &value, 1, 0), 0);
		if (value != release)
			sw_fail("release timeline's last signalled point is 0x%" PRIx64 ", expected 0x%" PRIx64,
				value, release);
		/* One timeline across the 32-bit boundary: 0xffffffff < 0x100000000. */
		struct ct_timeline *one = ct_timeline(c);
		ct_show(w, ct_buffer(c), one, 0xffffffffull, one, 1ull << 32);
		show_fresh(w, ct_buffer(c), NULL);
		need_release(c, one, 1ull << 32, "acquire 0xffffffff / release 0x100000000, replaced");
		/* And the other way round is a conflict. */
		one_timeline_conflict(1ull << 32, 0xffffffffull,
				      "acquire 0x100000000, release 0xffffffff on one timeline");
	}
}

/* --- release points (rules 29-33) ------------------------------------------------ */

static void release_tests(void)
{
	/* Rule 29. */
	ct_subtest("release-signalled-after-replace")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct ct_timeline *rel_a = show_fresh(w, ct_buffer(c), NULL);
		struct ct_timeline *rel_b = show_fresh(w, ct_buffer(c), NULL);
		need_release(c, rel_a, 1, "buffer A replaced by B");
		if (ct_signalled(rel_b, 1))
			sw_fail("buffer B, on screen, has its release point signalled");
	}

	/* Rule 30: displayed and re-read (damage-only commits make the
	 * compositor draw the surface again from the same buffer). */
	ct_subtest("release-not-signalled-while-displayed")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct sw_buffer *b = ct_buffer(c);
		struct ct_timeline *rel = show_fresh(w, b, NULL);
		if (b->type == SW_BUFFER_SHM)
			ct_note("wl_shm: a compositor that copies shm buffers may release early and "
				"still conform; run with dmabufs for a strict check");
		for (int i = 0; i < 5; i++) {
			ct_need_presented(c, ct_commit_damage(w, i, i, 2),
					  "damage-only commit of the displayed buffer");
			if (ct_signalled(rel, 1))
				sw_fail("release point of the displayed buffer signalled after %d redraws", i + 1);
		}
		ct_expect_unsignalled(c, rel, 1, "buffer still displayed");
		show_fresh(w, ct_buffer(c), NULL);
		need_release(c, rel, 1, "buffer replaced at last");
	}

	/* Rule 31. */
	ct_subtest("release-signalled-when-never-shown")
	{
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		show_fresh(w, ct_buffer(c), NULL);
		/* (a) replaced before it could be drawn: two commits at once. */
		struct ct_timeline *acq_a = ct_timeline(c), *rel_a = ct_timeline(c);
		struct ct_timeline *acq_b = ct_timeline(c), *rel_b = ct_timeline(c);
		ct_signal(acq_a, 1);
		ct_signal(acq_b, 1);
		struct ct_track *ta = ct_commit_buffer(w, ct_buffer(c), acq_a, 1, rel_a, 1);
		struct ct_track *tb = ct_commit_buffer(w, ct_buffer(c), acq_b, 1, rel_b, 1);
		ct_need_presented(c, tb, "second of two back-to-back commits");
		need_release(c, rel_a, 1, "(a) buffer replaced before it was shown");
		ct_note("(a) first commit %s", ta->presented ? "was presented anyway" : "was discarded");
		/* (b) hidden: unmapped with attach(NULL). */
		ct_attach(w, NULL);
		ct_commit(w);
		ct_roundtrip(c);
		need_release(c, rel_b, 1, "(b) surface unmapped with attach(NULL)");
		/* (c) a surface without a role is never shown at all. */
		struct ct_window *bare = sync_bare(c);
		struct ct_timeline *acq_c = ct_timeline(c), *rel_c = ct_timeline(c);
		struct ct_timeline *acq_d = ct_timeline(c), *rel_d = ct_timeline(c);
		ct_signal(acq_c, 1);
		ct_signal(acq_d, 1);
		ct_commit_buffer(bare, ct_buffer(c), acq_c, 1, rel_c, 1);
		ct_roundtrip(c);
		ct_commit_buffer(bare, ct_buffer(c), acq_d, 1, rel_d, 1);
		ct_roundtrip(c);
		need_release(c, rel_c, 1, "(c) role-less surface, buffer replaced");
	}

	/* Rule 32. */
	ct_subtest("release-signalled-on-surface-destroy")
	{
		struct ct_conn *c = ct_connect_with_manager();
		/* (a) wl_surface destroyed while its buffer is displayed. */
		struct ct_window *w1 = ct_sync_window(c);
		struct ct_timeline *rel1 = show_fresh(w1, ct_buffer(c), NULL);
		ct_destroy_surface(w1);
		ct_roundtrip(c);
		need_release(c, rel1, 1, "(a) wl_surface destroyed");
		/* (b) the syncobj surface destroyed; the buffer goes when a plain
		 * commit replaces it. */
		struct ct_window *w2 = ct_sync_window(c);
		struct ct_timeline *rel2 = show_fresh(w2, ct_buffer(c), NULL);
		ct_destroy_sync(w2);
		ct_roundtrip(c);
		struct ct_track *t = ct_commit_buffer(w2, ct_buffer(c), NULL, 0, NULL, 0);
		ct_need_presented(c, t, "plain commit after the syncobj surface was destroyed");
		need_release(c, rel2, 1, "(b) syncobj surface destroyed, buffer replaced by a plain commit");
		/* (b') the syncobj surface destroyed, then the wl_surface. */
		struct ct_window *w3 = ct_sync_window(c);
		struct ct_timeline *rel3 = show_fresh(w3, ct_buffer(c), NULL);
		ct_destroy_sync(w3);
		ct_destroy_surface(w3);
		ct_roundtrip(c);
		need_release(c, rel3, 1, "(b') syncobj surface then wl_surface destroyed");
		/* (c) wl_surface destroyed while a commit waits for its acquire
		 * point: its buffer was never used; the release point must come
		 * at the latest once the acquire point is signalled. */
		struct ct_window *w4 = ct_sync_window(c);
		struct ct_timeline *rel4 = show_fresh(w4, ct_buffer(c), NULL);
		struct ct_timeline *acq5 = ct_timeline(c), *rel5 = ct_timeline(c);
		ct_commit_buffer(w4, ct_buffer(c), acq5, 1, rel5, 1);
		ct_roundtrip(c);
		ct_destroy_surface(w4);
		ct_roundtrip(c);
		need_release(c, rel4, 1, "(c) displayed buffer of a surface destroyed mid-wait");
		ct_signal(acq5, 1);
		need_release(c, rel5, 1, "(c) waiting commit of a destroyed surface, acquire signalled");
	}

	/* Rule 33: wl_buffer.release is never looked at; buffers are reused
	 * only once their release point is signalled. 20 frames paced by frame
	 * callbacks, then 20 as fast as release points allow. */
	ct_subtest("progress-through-release-points-alone")
	{
		enum { FRAMES = 40, BUFFERS = 2 };
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		struct ct_chain ch;
		ct_chain_init(&ch, c, BUFFERS);
		struct ct_track *last = NULL;
		for (int frame = 0; frame < FRAMES; frame++) {
			int i = frame % BUFFERS;
			uint64_t *point = &ch.release_point[i];
			if (*point && !ct_wait_signalled(c, ch.release[i], *point, CT_DEADLINE_MS))
				sw_fail("frame %d: release point %" PRIu64 " of buffer %d not signalled "
					"within %d ms; a client that relies on release points stalls",
					frame, *point, i, CT_DEADLINE_MS);
			ct_signal(ch.acquire, frame + 1);
			last = ct_commit_buffer(w, ch.buffer[i], ch.acquire, frame + 1, ch.release[i],
						++*point);
			if (frame < FRAMES / 2 && !ct_wait_flag(c, &last->frame_done, CT_DEADLINE_MS))
				sw_fail("frame %d: no frame callback within %d ms", frame, CT_DEADLINE_MS);
		}
		ct_need_presented(c, last, "last frame");
		ct_note("wl_buffer.release events (not used): %" PRIu64 ", %" PRIu64,
			ch.buffer[0]->wl_releases, ch.buffer[1]->wl_releases);
	}
}

/* --- global switched off (rule 34) ------------------------------------------------ */

static void switch_tests(void)
{
	ct_subtest("no-global-when-switched-off")
	{
		const char *list = getenv("SYNCWAY_CONFORMANCE_OFF_DISPLAYS");
		if (!list || !*list)
			sw_skip("SYNCWAY_CONFORMANCE_OFF_DISPLAYS names no compositor started with "
				"explicit sync off (run-in-guest starts syncway with "
				"SYNCWAY_EXPLICIT_SYNC=0 and with a device without syncobjs)");
		static char copy[1024];
		char *save = NULL;
		snprintf(copy, sizeof(copy), "%s", list);
		int n = 0;
		for (char *name = strtok_r(copy, " ,", &save); name; name = strtok_r(NULL, " ,", &save)) {
			struct wl_display *probe = wl_display_connect(name);
			if (!probe)
				sw_fail("cannot connect to %s", name);
			wl_display_disconnect(probe);
			struct ct_conn *c = ct_connect_to(name);
			if (sw_display_find_global(c->d, MANAGER_IFACE->name))
				sw_fail("%s advertises wp_linux_drm_syncobj_manager_v1 although explicit sync "
					"is off there", name);
			ct_note("%s: %d globals, none of them wp_linux_drm_syncobj_manager_v1", name,
				c->d->n_globals);
			n++;
		}
		sw_assert(n > 0);
	}
}

int main(int argc, char **argv)
{
	sw_test_init("syncobj-conformance", argc, argv);
	manager_tests();
	error_tests();
	wait_tests();
	release_tests();
	switch_tests();
	ct_end();
	return sw_test_exit();
}
