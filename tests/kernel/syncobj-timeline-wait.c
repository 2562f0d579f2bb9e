/* DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT: waits on timeline points over arrays of
 * 0 ... 65536 syncobjs.
 *
 * Transcript line per case:
 *   n=N flags=F timeout=T handles=H points=P(values) -> ret=R first=X state=[...]
 * State tokens: letter of the latest fence (N/P/S/E), ":query/last_submitted"
 * for timelines. A wait never changes the state; each case asserts that. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define ANY 0u
#define ALL DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
#define FOR_SUBMIT DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
#define AVAILABLE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE
#define DEADLINE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE
#define NONE UINT32_MAX

static struct kt_fix fix;
static struct kt_arr h, p;
static struct kt_waiter th;

/* One TIMELINE_WAIT on the fixture with the arguments h and p; points are
 * the values the caller meant to pass, for the transcript. */
static int wait_case(const uint64_t *points, uint32_t n, uint32_t flags,
		     const struct kt_timeout *t, uint32_t *first_out)
{
	char fl[64], pt[256];
	uint32_t first;
	char *before = kt_fix_state(&fix);
	int ret = kt_wait_call(fix.fd, true, h.ptr, p.ptr, n, flags, t->nsec, 0, &first);
	char *after = kt_fix_state(&fix);

	kt_u64_text(points, n, pt, sizeof(pt));
	kt_tr("n=%u flags=%s timeout=%s handles=%s points=%s(%s) -> ret=%s first=%s state=%s%s%s",
	      n, kt_wait_flags(flags, fl, sizeof(fl)), t->name, h.desc, p.desc,
	      p.kind == KT_PTR_NULL ? "-" : pt, kt_ret(ret), kt_first(first), after,
	      strcmp(before, after) ? " before=" : "", strcmp(before, after) ? before : "");
	sw_assert_f(!strcmp(before, after), "n=%u: TIMELINE_WAIT changed the state %s -> %s", n,
		    before, after);
	free(before);
	free(after);
	*first_out = first;
	return ret;
}

/* Waits on the fixture with the given points (ok arrays), an unused handle
 * at bad_handle (NONE: none). */
static int wait_pts(const uint64_t *points, uint32_t flags, const struct kt_timeout *t,
		    uint32_t bad_handle, uint32_t *first)
{
	int ret;

	kt_arr_free(&h);
	kt_arr_free(&p);
	kt_arr_handles(&h, &fix, bad_handle);
	kt_arr_make(&p, KT_PTR_OK, points, 8, fix.n, 0);
	ret = wait_case(points, fix.n, flags, t, first);
	kt_arr_free(&h);
	kt_arr_free(&p);
	return ret;
}

/* points: all v, except w at k (k == NONE: none) */
static uint64_t *points_k(uint32_t n, uint64_t v, uint32_t k, uint64_t w)
{
	uint64_t *pts = kt_u64_array(n, v);

	if (k < n)
		pts[k] = w;
	return pts;
}

static int wait_all_at(uint64_t v, uint32_t k, uint64_t w, uint32_t flags,
		       const struct kt_timeout *t, uint32_t *first)
{
	uint64_t *pts = points_k(fix.n, v, k, w);
	int ret = wait_pts(pts, flags, t, NONE, first);

	free(pts);
	return ret;
}

/* A thread in TIMELINE_WAIT on all of the fixture's handles and these
 * points, which it takes (and frees). */
static void start_waiter(uint64_t *points, uint32_t flags)
{
	kt_waiter_start(&th, fix.fd, true, fix.h, points, fix.n, flags);
	free(points);
}

static void test_count_zero(void)
{
	struct kt_ptr_iter it;
	uint32_t first;

	kt_fix_make_all(&fix, 0, kt_timeline(10, 0, 0));
	kt_for_each_ptr(it, KT_PTR_OK, KT_PTR_KERNEL, 0, true) {
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_make(&h, it.kind, NULL, 4, 0, 0);
		kt_arr_make(&p, it.kind, NULL, 8, 0, 0);
		kt_expect_first(wait_case(NULL, 0, ANY, &kt_t0, &first), 0, first, KT_FIRST_UNSET);
		kt_expect_first(wait_case(NULL, 0, ALL | AVAILABLE, &kt_t0, &first), 0, first,
				KT_FIRST_UNSET);
	}
	kt_expect_first(wait_case(NULL, 0, 1u << 4, &kt_t0, &first), -EINVAL, first,
			KT_FIRST_UNSET);
	kt_arr_free(&h);
	kt_arr_free(&p);
}

static void test_invalid_flags(void)
{
	static const uint32_t bad[] = { 1u << 4, 1u << 31, ALL | AVAILABLE | (1u << 5) };
	uint32_t first;

	kt_fix_make_all(&fix, 1, kt_timeline(10, 0, 0));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		kt_expect_first(wait_all_at(10, NONE, 0, bad[i], &kt_t0, &first), -EINVAL, first,
				KT_FIRST_UNSET);
}

/* Timelines signalled up to 10: points 10, 5 (earlier), 1 and 0 (the
 * latest fence) are all signalled. */
static void test_signaled_points(void)
{
	static const uint64_t pts[] = { 10, 5, 1, 0 };
	static const uint32_t flags[] = { ANY, ALL, ALL | FOR_SUBMIT, ALL | AVAILABLE };
	uint32_t first, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		for (size_t i = 0; i < 4; i++)
			for (size_t f = 0; f < 4; f++)
				kt_expect_first(wait_all_at(pts[i], NONE, 0, flags[f], &kt_t0, &first),
						0, first, 0);
	}
}

/* points == NULL waits as if every point were 0 (the latest fence). */
static void test_points_null_means_zero(void)
{
	uint32_t first, n;

	kt_for_each_count(n) {
		for (int state = 0; state < 3; state++) {
			struct kt_spec spec = state == 0 ? kt_signaled()
					      : state == 1 ? kt_timeline(10, 0, 0)
							   : kt_timeline(10, 12, 1);
			kt_fix_make_all(&fix, n, spec);
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, KT_PTR_OK, fix.h, 4, n, 0);
			kt_arr_make(&p, KT_PTR_NULL, NULL, 8, n, 0);
			int want = state == 2 ? -ETIME : 0;
			uint32_t wf = state == 2 ? KT_FIRST_UNSET : 0;
			kt_expect_first(wait_case(NULL, n, ANY, &kt_t0, &first), want, first, wf);
			kt_expect_first(wait_case(NULL, n, ALL, &kt_t0, &first), want, first, wf);
			/* available, though not signalled */
			kt_expect_first(wait_case(NULL, n, ALL | AVAILABLE, &kt_t0, &first), 0,
					first, 0);
		}
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

/* Signalled up to 10, point 20 pending everywhere: wait for 20 except at
 * k, where 10 is asked for. */
static void test_first_signaled_any(void)
{
	uint32_t first, n, k;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 20, 1));
		kt_for_each_pos(k, n) {
			kt_expect_first(wait_all_at(20, k, 10, ANY, &kt_t0, &first), 0, first,
					k);
			kt_expect_first(wait_all_at(20, k, 10, ALL, &kt_t0, &first),
					n == 1 ? 0 : -ETIME, first, n == 1 ? 0 : KT_FIRST_UNSET);
		}
		/* pending but submitted: WAIT_AVAILABLE is satisfied */
		kt_expect_first(wait_all_at(20, NONE, 0, ALL | AVAILABLE, &kt_t0, &first), 0, first,
				0);
		kt_expect_first(wait_all_at(20, NONE, 0, ANY | AVAILABLE, &kt_t0, &first), 0, first,
				0);
		kt_expect_first(wait_all_at(20, NONE, 0, ALL, &kt_t0, &first), -ETIME, first,
				KT_FIRST_UNSET);
	}
}

/* Signalled up to 10; point 11 at k is not submitted. Without
 * WAIT_FOR_SUBMIT/WAIT_AVAILABLE that is EINVAL (even if others are
 * signalled); with either it is waited for. */
static void test_unsubmitted_point(void)
{
	uint32_t first, n, k;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		kt_for_each_pos(k, n) {
			uint32_t other = k == 0 ? 1 : 0;
			kt_expect_first(wait_all_at(10, k, 11, ANY, &kt_t0, &first), -EINVAL, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_all_at(10, k, 11, ALL, &kt_t0, &first), -EINVAL, first,
					KT_FIRST_UNSET);
			for (int f = 0; f < 2; f++) {
				uint32_t fl = f ? AVAILABLE : FOR_SUBMIT;
				if (n == 1)
					kt_expect_first(wait_all_at(10, k, 11, ANY | fl, &kt_t0, &first),
							-ETIME, first, KT_FIRST_UNSET);
				else
					kt_expect_first(wait_all_at(10, k, 11, ANY | fl, &kt_t0, &first),
							0, first, other);
				kt_expect_first(wait_all_at(10, k, 11, ALL | fl, &kt_t0, &first),
						-ETIME, first, KT_FIRST_UNSET);
			}
		}
	}
}

/* A syncobj without any fence behaves like an unsubmitted point. */
static void test_no_fence(void)
{
	uint32_t first, n, k;

	kt_for_each_count(n) {
		kt_for_each_pos(k, n) {
			struct kt_only o = { k, kt_none(), kt_timeline(10, 0, 0), false };
			kt_fix_make(&fix, n, kt_spec_only, &o);
			kt_expect_first(wait_all_at(10, k, 1, ANY, &kt_t0, &first), -EINVAL, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_all_at(0, NONE, 0, ANY | FOR_SUBMIT, &kt_t0, &first),
					n == 1 ? -ETIME : 0, first,
					n == 1 ? KT_FIRST_UNSET : k == 0 ? 1 : 0);
			kt_expect_first(wait_all_at(0, NONE, 0, ALL | AVAILABLE, &kt_t0, &first),
					-ETIME, first, KT_FIRST_UNSET);
		}
	}
}

static void test_invalid_handle(void)
{
	uint32_t first, n, k;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		uint64_t *pts = kt_u64_array(n, 10);
		kt_for_each_pos(k, n) {
			kt_expect_first(wait_pts(pts, ANY, &kt_t0, k, &first), -ENOENT, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_pts(pts, ALL | AVAILABLE, &kt_t0, k, &first),
					-ENOENT, first, KT_FIRST_UNSET);
		}
		free(pts);
	}
}

static void test_bad_handles_pointer(void)
{
	struct kt_ptr_iter it;
	uint32_t first, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		uint64_t *pts = kt_u64_array(n, 10);
		kt_arr_free(&p);
		kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
		kt_for_each_ptr(it, KT_PTR_NULL, KT_PTR_FAULT_SPLIT, n, false) {
			kt_arr_free(&h);
			kt_arr_make(&h, it.kind, fix.h, 4, n, it.k);
			kt_expect_first(wait_case(pts, n, ANY, &kt_t0, &first), -EFAULT, first,
					KT_FIRST_UNSET);
		}
		free(pts);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

/* NULL is allowed (all zeros); unmapped, kernel, or an array that faults
 * at element k fail with EFAULT before any waiting. */
static void test_bad_points_pointer(void)
{
	struct kt_ptr_iter it;
	uint32_t first, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		uint64_t *pts = kt_u64_array(n, 10);
		kt_arr_free(&h);
		kt_arr_make(&h, KT_PTR_OK, fix.h, 4, n, 0);
		kt_for_each_ptr(it, KT_PTR_UNMAPPED, KT_PTR_FAULT_SPLIT, n, false) {
			kt_arr_free(&p);
			kt_arr_make(&p, it.kind, pts, 8, n, it.k);
			kt_expect_first(wait_case(pts, n, ANY, &kt_t0, &first), -EFAULT, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_case(pts, n, ALL | FOR_SUBMIT, &kt_t0, &first), -EFAULT,
					first, KT_FIRST_UNSET);
		}
		/* read-only points are fine: the kernel only reads them */
		kt_arr_free(&p);
		kt_arr_make(&p, KT_PTR_READONLY, pts, 8, n, 0);
		kt_expect_first(wait_case(pts, n, ANY, &kt_t0, &first), 0, first, 0);
		free(pts);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

/* Which error wins when there are two. 6.12 looks up all handles (ENOENT)
 * before it reads any point, and reads all points (EFAULT) before it looks
 * at any fence (EINVAL). */
static void test_errors_in_two_arrays(void)
{
	static const uint32_t ns[] = { 1, 2, 4, 5, 64 };
	uint32_t first;

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		uint32_t n = ns[c];
		/* the second handle, or the only one */
		uint32_t bad = n > 1 ? 1 : 0;
		/* unused handle at bad + points faulting at n/2 */
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		uint64_t *pts = kt_u64_array(n, 10);
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_handles_bad(&h, &fix, KT_PTR_OK, bad, 0);
		kt_arr_make(&p, KT_PTR_FAULT, pts, 8, n, n / 2);
		kt_expect_first(wait_case(pts, n, ANY, &kt_t0, &first), -ENOENT, first,
				KT_FIRST_UNSET);
		/* unsubmitted point at 0 (EINVAL) + points faulting at n/2 */
		pts[0] = 11;
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_make(&h, KT_PTR_OK, fix.h, 4, n, 0);
		kt_arr_make(&p, KT_PTR_FAULT, pts, 8, n, n / 2);
		int ret = wait_case(pts, n, ANY, &kt_t0, &first);
		sw_assert_f(ret == -EFAULT || ret == -EINVAL, "got %s", kt_ret(ret));
		/* handles faulting at n/2 with an unused handle before it */
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_handles_bad(&h, &fix, KT_PTR_FAULT, 0, n / 2);
		kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
		ret = wait_case(pts, n, ANY, &kt_t0, &first);
		sw_assert_f(ret == -EFAULT || ret == -ENOENT, "got %s", kt_ret(ret));
		free(pts);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

static void test_timeouts(void)
{
	const struct kt_timeout past = { "past", 1 }, past2 = { "past-20ms", 20000000 };
	uint32_t first, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 20, 1));
		for (int f = 0; f < 2; f++) {
			uint32_t flags = f ? ALL : ANY;
			kt_expect_first(wait_all_at(20, NONE, 0, flags, &kt_t0, &first), -ETIME,
					first, KT_FIRST_UNSET);
			kt_expect_first(wait_all_at(20, NONE, 0, flags, &past, &first), -ETIME, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_all_at(20, NONE, 0, flags, &past2, &first), -ETIME,
					first, KT_FIRST_UNSET);
			/* an unsubmitted point with WAIT_FOR_SUBMIT times out too */
			kt_expect_first(wait_all_at(21, NONE, 0, flags | FOR_SUBMIT, &past, &first),
					-ETIME, first, KT_FIRST_UNSET);
			int64_t start = sw_clock_ns(CLOCK_MONOTONIC);
			struct kt_timeout small = { "now+20ms", start + 20000000 };
			kt_expect_first(wait_all_at(20, NONE, 0, flags, &small, &first), -ETIME,
					first, KT_FIRST_UNSET);
			int64_t took = sw_clock_ns(CLOCK_MONOTONIC) - start;
			kt_check_timed_wait(took, 20000000, n);
		}
	}
}

/* A thread sleeps in TIMELINE_WAIT for point 20 (pending, seqno 1 at k, 2
 * elsewhere); the CPU signals seqno 1. */
static void test_signaled_later(void)
{
	uint32_t n, k;

	kt_for_each_later_count(n) {
		kt_for_each_pos(k, n) {
			for (int all = 0; all < 2; all++) {
				struct kt_only o = { k, kt_timeline(10, 20, 1),
						     kt_timeline(10, 20, 2), false };
				kt_fix_make(&fix, n, kt_spec_only, &o);
				start_waiter(kt_u64_array(n, 20), all ? ALL : ANY);
				bool b1 = kt_waiter_blocked(&th, 5000);
				kt_sw_inc(fix.timeline, 1);
				bool b2 = true;
				if (all && n > 1) {
					b2 = kt_waiter_blocked(&th, 5000);
					kt_sw_inc(fix.timeline, 1);
				}
				sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
				char *st = kt_fix_state(&fix);
				kt_tr("n=%u flags=%s timeout=later points=20 signal=seqno1@%u(%s)%s "
				      "-> blocked=%d%d ret=%s first=%s state=%s",
				      n, all ? "ALL" : "ANY", k, kt_pos_name(n, k),
				      all && n > 1 ? ",seqno2" : "", b1, b2, kt_ret(th.ret),
				      kt_first(kt_waiter_first(&th)), st);
				free(st);
				sw_assert_f(b1 && b2, "n=%u: the waiter was not asleep", n);
				sw_assert_f(th.ret == 0, "n=%u: got %s", n, kt_ret(th.ret));
				if (!all)
					sw_assert_eq(kt_waiter_first(&th), k);
			}
		}
	}
}

/* WAIT_FOR_SUBMIT on point 15 (timelines at 10): it sleeps while the point
 * is missing, keeps sleeping once it is submitted but pending, and returns
 * when it signals. */
static void test_wait_for_submit_later(void)
{
	uint32_t n, k;

	kt_for_each_later_count(n) {
		kt_for_each_pos(k, n) {
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			start_waiter(points_k(n, 10, k, 15), ALL | FOR_SUBMIT);
			bool b1 = kt_waiter_blocked(&th, 5000);
			kt_fix_add_point(&fix, fix.h[k], 15, 1);
			bool b2 = kt_waiter_blocked(&th, 5000);
			kt_sw_inc(fix.timeline, 1);
			sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
			char *st = kt_fix_state(&fix);
			kt_tr("n=%u flags=ALL|FOR_SUBMIT timeout=later points=10,15@%u(%s) "
			      "submit=pending15@%u then signal -> blocked=%d%d ret=%s first=%s "
			      "state=%s",
			      n, k, kt_pos_name(n, k), k, b1, b2, kt_ret(th.ret),
			      kt_first(kt_waiter_first(&th)), st);
			free(st);
			sw_assert_f(b1 && b2, "n=%u: waiter not asleep (before submit %d, after %d)",
				    n, b1, b2);
			sw_assert_f(th.ret == 0, "n=%u: got %s", n, kt_ret(th.ret));
		}
	}
}

/* WAIT_AVAILABLE|ALL on point 15 everywhere: returns as soon as the last
 * syncobj gets the point, while every fence is pending. */
static void test_wait_available_later(void)
{
	uint32_t n;

	kt_for_each_later_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		start_waiter(kt_u64_array(n, 15), ALL | AVAILABLE);
		bool asleep = true;
		for (uint32_t i = 0; i < n; i++) {
			/* skip the per-step check for big arrays, keep first/last */
			if (i < 8 || i == n - 1)
				asleep &= kt_waiter_blocked(&th, 5000);
			kt_fix_add_point(&fix, fix.h[i], 15, 1);
		}
		sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
		char *st = kt_fix_state(&fix);
		kt_tr("n=%u flags=ALL|AVAILABLE timeout=later points=15 submit=pending15 "
		      "one by one -> blocked=%d ret=%s first=%s state=%s",
		      n, asleep, kt_ret(th.ret), kt_first(kt_waiter_first(&th)), st);
		free(st);
		sw_assert_f(asleep, "n=%u: waiter not asleep before the last submit", n);
		sw_assert_f(th.ret == 0, "n=%u: got %s", n, kt_ret(th.ret));
	}
}

/* Points below what the chain still holds count as signalled. */
static void test_old_and_unordered_points(void)
{
	uint32_t first, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		for (uint32_t i = 0; i < n; i++)
			kt_fix_add_point(&fix, fix.h[i], 20, 0);
		kt_expect_first(wait_all_at(3, NONE, 0, ALL, &kt_t0, &first), 0, first, 0);
		kt_expect_first(wait_all_at(15, NONE, 0, ALL, &kt_t0, &first), 0, first, 0);
		/* a point below the last one added after it */
		for (uint32_t i = 0; i < n; i++)
			kt_fix_add_point(&fix, fix.h[i], 5, 1);
		int r = wait_all_at(20, NONE, 0, ALL, &kt_t0, &first);
		sw_assert_f(r == 0 || r == -ETIME || r == -EINVAL, "got %s", kt_ret(r));
		r = wait_all_at(5, NONE, 0, ALL, &kt_t0, &first);
		sw_assert_f(r == 0 || r == -ETIME || r == -EINVAL, "got %s", kt_ret(r));
	}
}

static void test_duplicate_handles(void)
{
	static const uint32_t ns[] = { 2, 5, 64, 1024 };
	uint32_t first;

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		if (kt_count_skipped(ns[c]))
			continue;
		uint32_t n = ns[c];
		kt_fix_make_all(&fix, 1, kt_timeline(10, 20, 1));
		uint64_t *pts = kt_u64_array(n, 10);
		for (uint32_t i = 1; i < n; i += 2)
			pts[i] = 20;
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_same_handle(&h, fix.h[0], n);
		kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
		kt_expect_first(wait_case(pts, n, ANY, &kt_t0, &first), 0, first, 0);
		kt_expect_first(wait_case(pts, n, ALL, &kt_t0, &first), -ETIME, first,
				KT_FIRST_UNSET);
		kt_expect_first(wait_case(pts, n, ALL | AVAILABLE, &kt_t0, &first), 0, first, 0);
		free(pts);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

static void test_deadline_hint(void)
{
	static const uint32_t ns[] = { 1, 4, 5, 64 };
	const int64_t deadline = 1000000000000ll;
	uint32_t first;

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		uint32_t n = ns[c];
		kt_fix_make_all(&fix, n, kt_timeline(10, 20, 1));
		uint64_t *pts = kt_u64_array(n, 20);
		int ret = kt_wait_call(fix.fd, true, (uintptr_t)fix.h, (uintptr_t)pts, n,
				       ALL | DEADLINE, 0, deadline, &first);
		free(pts);
		uint64_t ns_set = 0;
		bool set = kt_sw_deadline(fix.fence_fd[1], &ns_set);
		kt_tr("n=%u flags=ALL|DEADLINE deadline=1000s timeout=0 points=20 -> ret=%s "
		      "first=%s fence-deadline=%s",
		      n, kt_ret(ret), kt_first(first),
		      !set ? "none" : ns_set == (uint64_t)deadline ? "1000s" : "other");
		kt_expect_first(ret, -ETIME, first, KT_FIRST_UNSET);
		sw_assert_f(set && ns_set == (uint64_t)deadline,
			    "n=%u: the fence has no deadline of 1000 s", n);
	}
}

static void test_max_count(void)
{
	uint32_t first, n = KT_MAX_WAIT_COUNT;

	kt_max_count_or_skip();
	kt_fix_make_all(&fix, n, kt_timeline(10, 20, 1));
	kt_expect_first(wait_all_at(10, NONE, 0, ALL, &kt_t0, &first), 0, first, 0);
	kt_expect_first(wait_all_at(20, NONE, 0, ALL | AVAILABLE, &kt_t0, &first), 0, first, 0);
	kt_expect_first(wait_all_at(20, n - 1, 10, ANY, &kt_t0, &first), 0, first, n - 1);
	kt_expect_first(wait_all_at(20, n - 1, 10, ALL, &kt_t0, &first), -ETIME, first,
			KT_FIRST_UNSET);
	kt_expect_first(wait_all_at(10, n - 1, 21, ALL, &kt_t0, &first), -EINVAL, first,
			KT_FIRST_UNSET);
	uint64_t *pts = kt_u64_array(n, 10);
	kt_expect_first(wait_pts(pts, ANY, &kt_t0, n - 1, &first), -ENOENT, first, KT_FIRST_UNSET);
	free(pts);
}

static void test_over_max_count(void)
{
	uint32_t first, n = KT_MAX_WAIT_COUNT + 1;

	kt_over_max_count_or_skip();
	kt_fix_make_all(&fix, 1, kt_timeline(10, 0, 0));
	uint64_t *pts = kt_u64_array(n, 10);
	kt_arr_same_handle(&h, fix.h[0], n);
	kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
	int ret = wait_case(pts, n, ALL, &kt_t0, &first);
	free(pts);
	kt_arr_free(&h);
	kt_arr_free(&p);
	sw_assert_f(ret == -ENOMEM || ret == 0, "got %s", kt_ret(ret));
}

int main(int argc, char **argv)
{
	kt_init("syncobj-timeline-wait", argc, argv);

	kt_subtest("count-zero-returns-0") test_count_zero();
	kt_subtest("invalid-flags") test_invalid_flags();
	kt_subtest("signaled-points") test_signaled_points();
	kt_subtest("points-null-means-zero") test_points_null_means_zero();
	kt_subtest("first-signaled-any") test_first_signaled_any();
	kt_subtest("unsubmitted-point") test_unsubmitted_point();
	kt_subtest("no-fence") test_no_fence();
	kt_subtest("invalid-handle") test_invalid_handle();
	kt_subtest("bad-handles-pointer") test_bad_handles_pointer();
	kt_subtest("bad-points-pointer") test_bad_points_pointer();
	kt_subtest("errors-in-two-arrays") test_errors_in_two_arrays();
	kt_subtest("timeouts") test_timeouts();
	kt_subtest("signaled-later") test_signaled_later();
	kt_subtest("wait-for-submit-later") test_wait_for_submit_later();
	kt_subtest("wait-available-later") test_wait_available_later();
	kt_subtest("old-and-unordered-points") test_old_and_unordered_points();
	kt_subtest("duplicate-handles") test_duplicate_handles();
	kt_subtest("deadline-hint") test_deadline_hint();
	kt_subtest("max-count") test_max_count();
	kt_subtest("over-max-count") test_over_max_count();

	return kt_exit();
}
