/* DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL: adds a signalled point to each syncobj of
 * an array of 0 ... 524288.
 *
 * Transcript line per case:
 *   n=N flags=F handles=H points=P(values) -> ret=R in=[...] out=[...]
 * The central property: a failed call changes nothing (6.12 reads every
 * point before it touches a syncobj). Asserted for every failing case. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define REQ DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL
#define NONE UINT32_MAX

static struct kt_fix fix;
static struct kt_arr h, p;
static struct kt_waiter th;

/* One call with the arguments h and p; ptext describes the points. */
static int op_case(const char *ptext, uint32_t n, uint32_t flags)
{
	char *before = kt_fix_state(&fix);
	int ret = kt_array_call(fix.fd, REQ, h.ptr, p.ptr, n, flags);
	char *after = kt_fix_state(&fix);

	kt_tr("n=%u flags=%u handles=%s points=%s(%s) -> ret=%s in=%s out=%s", n, flags, h.desc,
	      p.desc, ptext, kt_ret(ret), before, after);
	if (ret != 0)
		sw_assert_f(!strcmp(before, after), "n=%u: failed with %s but changed %s -> %s", n,
			    kt_ret(ret), before, after);
	free(before);
	free(after);
	return ret;
}

/* ok arrays: handles (unused handle at bad) and points */
static int op_fix(const uint64_t *points, const char *ptext, uint32_t bad, uint32_t flags)
{
	int ret;

	kt_arr_free(&h);
	kt_arr_free(&p);
	kt_arr_handles(&h, &fix, bad);
	kt_arr_make(&p, KT_PTR_OK, points, 8, fix.n, 0);
	ret = op_case(ptext, fix.n, flags);
	kt_arr_free(&h);
	kt_arr_free(&p);
	return ret;
}

/* The fixture's handles, each with point v. */
static int op_fix_all(uint64_t v, const char *ptext)
{
	uint64_t *pts = kt_u64_array(fix.n, v);
	int ret = op_fix(pts, ptext, NONE, 0);

	free(pts);
	return ret;
}

static void expect_points(uint64_t base, bool rising)
{
	char tok[64], want[64];

	for (uint32_t i = 0; i < fix.n; i++) {
		if (!kt_state_probed(fix.n, i))
			continue;
		uint64_t v = base + (rising ? i : 0);
		snprintf(want, sizeof(want), "S:%llu/%llu", (unsigned long long)v,
			 (unsigned long long)v);
		kt_state1(fix.fd, fix.h[i], tok, sizeof(tok));
		sw_assert_f(!strcmp(tok, want), "handle %u is %s, not %s", i, tok, want);
	}
}

static void test_count_zero(void)
{
	struct kt_ptr_iter it;

	kt_fix_make(&fix, 5, kt_spec_mixed, NULL);
	kt_for_each_ptr(it, KT_PTR_OK, KT_PTR_KERNEL, 0, true) {
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_make(&h, it.kind, fix.h, 4, 0, 0);
		kt_arr_make(&p, it.kind, NULL, 8, 0, 0);
		kt_expect(op_case("-", 0, 0), -EINVAL);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

static void test_flags_must_be_zero(void)
{
	static const uint32_t flags[] = { 1, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED << 1,
					  0x80000000u };

	kt_fix_make(&fix, 5, kt_spec_mixed, NULL);
	uint64_t *pts = kt_u64_array(5, 20);
	for (size_t i = 0; i < 3; i++)
		kt_expect(op_fix(pts, "20*5", NONE, flags[i]), -EINVAL);
	free(pts);
}

/* Fresh syncobjs get points 10, 11, ...; then one more point each. */
static void test_signals_points(void)
{
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_none());
		uint64_t *pts = kt_u64_array(n, 0);
		for (uint32_t i = 0; i < n; i++)
			pts[i] = 10 + i;
		kt_expect(op_fix(pts, "10+i", NONE, 0), 0);
		expect_points(10, true);
		free(pts);
		kt_expect(op_fix_all(5000, "5000"), 0);
		expect_points(5000, false);
	}
}

/* Point 20 on no fence, a stub, a pending binary fence, a timeline at 5, a
 * timeline at 5 with 8 pending. */
static void test_signals_every_state(void)
{
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_expect(op_fix_all(20, "20"), 0);
	}
}

static void test_points_null_means_zero(void)
{
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_make(&h, KT_PTR_OK, fix.h, 4, n, 0);
		kt_arr_make(&p, KT_PTR_NULL, NULL, 8, n, 0);
		kt_expect(op_case("-", n, 0), 0);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

/* A point below the timeline's last one is accepted. */
static void test_unordered_point(void)
{
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		kt_expect(op_fix_all(3, "3"), 0);
		kt_expect(op_fix_all(10, "10"), 0);
	}
}

static void test_invalid_handle(void)
{
	uint32_t n, k;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		uint64_t *pts = kt_u64_array(n, 20);
		kt_for_each_pos(k, n)
			kt_expect(op_fix(pts, "20", k, 0), -ENOENT);
		free(pts);
	}
}

static void test_bad_handles_pointer(void)
{
	struct kt_ptr_iter it;
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		uint64_t *pts = kt_u64_array(n, 20);
		kt_arr_free(&p);
		kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
		kt_for_each_ptr(it, KT_PTR_NULL, KT_PTR_FAULT_SPLIT, n, false) {
			kt_arr_free(&h);
			kt_arr_make(&h, it.kind, fix.h, 4, n, it.k);
			kt_expect(op_case("20", n, 0), -EFAULT);
		}
		free(pts);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

/* The posted v3 series signalled syncobjs 0..k-1 before it hit the fault
 * at k (and leaked a stub fence reference); 6.12 reads all points first.
 * Nothing may change. */
static void test_bad_points_pointer(void)
{
	struct kt_ptr_iter it;
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		uint64_t *pts = kt_u64_array(n, 20);
		kt_arr_free(&h);
		kt_arr_make(&h, KT_PTR_OK, fix.h, 4, n, 0);
		kt_for_each_ptr(it, KT_PTR_UNMAPPED, KT_PTR_FAULT_SPLIT, n, false) {
			kt_arr_free(&p);
			kt_arr_make(&p, it.kind, pts, 8, n, it.k);
			kt_expect(op_case("20", n, 0), -EFAULT);
		}
		/* read-only points are fine */
		kt_arr_free(&p);
		kt_arr_make(&p, KT_PTR_READONLY, pts, 8, n, 0);
		kt_expect(op_case("20", n, 0), 0);
		free(pts);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

static void test_errors_in_two_arrays(void)
{
	static const uint32_t ns[] = { 1, 2, 4, 5, 64 };

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		uint32_t n = ns[c];
		/* the second handle, or the only one */
		uint32_t bad = n > 1 ? 1 : 0;
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		uint64_t *pts = kt_u64_array(n, 20);
		/* unused handle at bad, points faulting at n/2 */
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_handles_bad(&h, &fix, KT_PTR_OK, bad, 0);
		kt_arr_make(&p, KT_PTR_FAULT, pts, 8, n, n / 2);
		int ret = op_case("20", n, 0);
		sw_assert_f(ret == -ENOENT || ret == -EFAULT, "got %s", kt_ret(ret));
		/* handles faulting at n/2 with an unused handle at 0 */
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_handles_bad(&h, &fix, KT_PTR_FAULT, 0, n / 2);
		kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
		ret = op_case("20", n, 0);
		sw_assert_f(ret == -ENOENT || ret == -EFAULT, "got %s", kt_ret(ret));
		free(pts);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

static void test_duplicate_handles(void)
{
	static const uint32_t ns[] = { 2, 5, 64, 1024 };

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		if (kt_count_skipped(ns[c]))
			continue;
		for (int dir = 0; dir < 2; dir++) {
			uint32_t n = ns[c];
			kt_fix_make_all(&fix, 1, kt_none());
			uint64_t *pts = kt_u64_array(n, 0);
			for (uint32_t i = 0; i < n; i++)
				pts[i] = dir ? n - i : i + 1;
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_same_handle(&h, fix.h[0], n);
			kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
			kt_expect(op_case(dir ? "n-i" : "1+i", n, 0), 0);
			free(pts);
		}
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

/* A thread in TIMELINE_WAIT ALL|FOR_SUBMIT on point 10 of fresh syncobjs
 * returns after one TIMELINE_SIGNAL of them all. */
static void test_wakes_timeline_waiters(void)
{
	uint32_t n;

	kt_for_each_later_count(n) {
		kt_fix_make_all(&fix, n, kt_none());
		uint64_t *pts = kt_u64_array(n, 10);
		kt_waiter_start(&th, fix.fd, true, fix.h, pts, n,
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT);
		bool b = kt_waiter_blocked(&th, 5000);
		int ret = kt_array_call(fix.fd, REQ, (uintptr_t)fix.h, (uintptr_t)pts, n, 0);
		sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
		char *st = kt_fix_state(&fix);
		kt_tr("n=%u waiter=TIMELINE_WAIT(ALL|FOR_SUBMIT,10) then TIMELINE_SIGNAL(10) -> "
		      "blocked=%d ret=%s waiter-ret=%s first=%s out=%s",
		      n, b, kt_ret(ret), kt_ret(th.ret), kt_first(kt_waiter_first(&th)), st);
		free(st);
		free(pts);
		sw_assert(b);
		kt_expect(ret, 0);
		kt_expect(th.ret, 0);
	}
}

static void test_max_count(void)
{
	uint32_t n = KT_MAX_ARRAY_COUNT;

	kt_max_count_or_skip();
	kt_fix_make(&fix, n, kt_spec_mixed_probed, NULL);
	uint64_t *pts = kt_u64_array(n, 20);
	kt_expect(op_fix(pts, "20", n - 1, 0), -ENOENT);
	kt_arr_make(&h, KT_PTR_OK, fix.h, 4, n, 0);
	kt_arr_make(&p, KT_PTR_FAULT, pts, 8, n, n - 1);
	kt_expect(op_case("20", n, 0), -EFAULT);
	kt_arr_free(&h);
	kt_arr_free(&p);
	kt_expect(op_fix(pts, "20", NONE, 0), 0);
	free(pts);
}

static void test_over_max_count(void)
{
	uint32_t n = KT_MAX_ARRAY_COUNT + 1;

	kt_over_max_count_or_skip();
	kt_fix_make_all(&fix, 1, kt_timeline(5, 0, 0));
	uint64_t *pts = kt_u64_array(n, 20);
	kt_arr_same_handle(&h, fix.h[0], n);
	kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
	int ret = op_case("20", n, 0);
	free(pts);
	kt_arr_free(&h);
	kt_arr_free(&p);
	sw_assert_f(ret == -ENOMEM || ret == 0, "got %s", kt_ret(ret));
}

int main(int argc, char **argv)
{
	kt_init("syncobj-timeline-signal", argc, argv);

	kt_subtest("count-zero-is-einval") test_count_zero();
	kt_subtest("flags-must-be-zero") test_flags_must_be_zero();
	kt_subtest("signals-points") test_signals_points();
	kt_subtest("signals-every-state") test_signals_every_state();
	kt_subtest("points-null-means-zero") test_points_null_means_zero();
	kt_subtest("unordered-point") test_unordered_point();
	kt_subtest("invalid-handle-changes-nothing") test_invalid_handle();
	kt_subtest("bad-handles-pointer-changes-nothing") test_bad_handles_pointer();
	kt_subtest("bad-points-pointer-changes-nothing") test_bad_points_pointer();
	kt_subtest("errors-in-two-arrays-change-nothing") test_errors_in_two_arrays();
	kt_subtest("duplicate-handles") test_duplicate_handles();
	kt_subtest("wakes-timeline-waiters") test_wakes_timeline_waiters();
	kt_subtest("max-count") test_max_count();
	kt_subtest("over-max-count") test_over_max_count();

	return kt_exit();
}
