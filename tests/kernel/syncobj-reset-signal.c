/* DRM_IOCTL_SYNCOBJ_RESET (built as syncobj-reset) and DRM_IOCTL_SYNCOBJ_SIGNAL
 * (built as syncobj-signal, KT_SIGNAL=1): the two handle-array ioctls without
 * points. One source, because they differ only in the state they leave.
 *
 * Transcript line per case:
 *   n=N pad=P handles=H -> ret=R in=[...] out=[...]
 * A failed call must change nothing (in == out, asserted). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#ifndef KT_SIGNAL
#define KT_SIGNAL 0
#endif

#if KT_SIGNAL
#define SUITE "syncobj-signal"
#define REQ DRM_IOCTL_SYNCOBJ_SIGNAL
#define DONE 'S' /* a signalled stub fence */
#else
#define SUITE "syncobj-reset"
#define REQ DRM_IOCTL_SYNCOBJ_RESET
#define DONE 'N' /* no fence */
#endif

#define NONE UINT32_MAX

static struct kt_fix fix;
static struct kt_arr a;
static struct kt_waiter th;

/* One call with the handles argument a; checks "nothing changed" on
 * failure and "every handle is DONE" on success (when check_done). Returns
 * the result. */
static int op_case(uint32_t n, uint32_t pad, bool check_done)
{
	char *before = kt_fix_state(&fix);
	int ret = kt_array_call(fix.fd, REQ, a.ptr, 0, n, pad);
	char *after = kt_fix_state(&fix);

	kt_tr("n=%u pad=%u handles=%s -> ret=%s in=%s out=%s", n, pad, a.desc, kt_ret(ret),
	      before, after);
	if (ret != 0)
		sw_assert_f(!strcmp(before, after), "n=%u: failed with %s but changed %s -> %s", n,
			    kt_ret(ret), before, after);
	if (ret == 0 && check_done) {
		char tok[64];
		for (uint32_t i = 0; i < fix.n; i++) {
			if (!kt_state_probed(fix.n, i))
				continue;
			kt_state1(fix.fd, fix.h[i], tok, sizeof(tok));
			sw_assert_f(tok[0] == DONE && tok[1] == '\0',
				    "n=%u: handle %u is %s afterwards, not %c", n, i, tok, DONE);
		}
	}
	free(before);
	free(after);
	return ret;
}

static int op_fix(uint32_t bad, uint32_t pad, bool check_done)
{
	int ret;

	kt_arr_free(&a);
	kt_arr_handles(&a, &fix, bad);
	ret = op_case(fix.n, pad, check_done);
	kt_arr_free(&a);
	return ret;
}

/* A thread in WAIT on all of the fixture's handles. */
static void start_waiter(uint32_t flags)
{
	kt_waiter_start(&th, fix.fd, false, fix.h, NULL, fix.n, flags);
}

static void test_count_zero(void)
{
	struct kt_ptr_iter it;

	kt_fix_make(&fix, 5, kt_spec_mixed, NULL);
	kt_for_each_ptr(it, KT_PTR_OK, KT_PTR_KERNEL, 0, true) {
		kt_arr_free(&a);
		kt_arr_make(&a, it.kind, fix.h, 4, 0, 0);
		kt_expect(op_case(0, 0, false), -EINVAL);
	}
	kt_arr_free(&a);
}

static void test_pad_must_be_zero(void)
{
	static const uint32_t pads[] = { 1, 0x80000000u };

	for (size_t i = 0; i < 2; i++) {
		kt_fix_make(&fix, 5, kt_spec_mixed, NULL);
		kt_expect(op_fix(NONE, pads[i], false), -EINVAL);
	}
}

static void test_every_state(void)
{
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_expect(op_fix(NONE, 0, true), 0);
		/* and again, on what the first call left */
		kt_expect(op_fix(NONE, 0, true), 0);
	}
}

static void test_invalid_handle(void)
{
	uint32_t zero[2], n, k;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_for_each_pos(k, n)
			kt_expect(op_fix(k, 0, false), -ENOENT);
	}
	/* handle 0 is never valid */
	kt_fix_make(&fix, 2, kt_spec_mixed, NULL);
	zero[0] = fix.h[0];
	zero[1] = 0;
	kt_arr_free(&a);
	kt_arr_make(&a, KT_PTR_OK, zero, 4, 2, 0);
	snprintf(a.desc, sizeof(a.desc), "handle0@1");
	kt_expect(op_case(2, 0, false), -ENOENT);
	kt_arr_free(&a);
}

static void test_bad_handles_pointer(void)
{
	struct kt_ptr_iter it;
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_for_each_ptr(it, KT_PTR_NULL, KT_PTR_FAULT_SPLIT, n, false) {
			kt_arr_free(&a);
			kt_arr_make(&a, it.kind, fix.h, 4, n, it.k);
			kt_expect(op_case(n, 0, false), -EFAULT);
		}
		/* the kernel only reads the handles */
		kt_arr_free(&a);
		kt_arr_make(&a, KT_PTR_READONLY, fix.h, 4, n, 0);
		kt_expect(op_case(n, 0, true), 0);
	}
	kt_arr_free(&a);
}

/* Two errors: an unused handle at 1, the array faulting at n/2. 6.12
 * copies the whole array first (EFAULT). Either way nothing may change. */
static void test_invalid_handle_before_fault(void)
{
	static const uint32_t ns[] = { 4, 5, 64 };

	for (size_t c = 0; c < 3; c++) {
		uint32_t n = ns[c];
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_arr_free(&a);
		kt_arr_handles_bad(&a, &fix, KT_PTR_FAULT, 1, n / 2);
		int ret = op_case(n, 0, false);
		sw_assert_f(ret == -EFAULT || ret == -ENOENT, "got %s", kt_ret(ret));
	}
	kt_arr_free(&a);
}

static void test_duplicate_handles(void)
{
	static const uint32_t ns[] = { 2, 5, 64, 1024 };

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		if (kt_count_skipped(ns[c]))
			continue;
		for (uint32_t kind = 0; kind < 5; kind++) {
			kt_fix_make_all(&fix, 1, kt_spec_mixed(kind, 5, NULL));
			kt_arr_free(&a);
			kt_arr_same_handle(&a, fix.h[0], ns[c]);
			kt_expect(op_case(ns[c], 0, true), 0);
		}
	}
	kt_arr_free(&a);
}

#if KT_SIGNAL
/* A thread sleeps in WAIT_ALL|WAIT_FOR_SUBMIT on syncobjs without fences;
 * one SIGNAL of all of them wakes it. */
static void test_wakes_wait_for_submit(void)
{
	uint32_t n;

	kt_for_each_later_count(n) {
		kt_fix_make_all(&fix, n, kt_none());
		start_waiter(DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT);
		bool b = kt_waiter_blocked(&th, 5000);
		int ret = kt_array_call(fix.fd, REQ, (uintptr_t)fix.h, 0, n, 0);
		sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
		char *st = kt_fix_state(&fix);
		kt_tr("n=%u waiter=WAIT(ALL|FOR_SUBMIT) then SIGNAL all -> blocked=%d ret=%s "
		      "waiter-ret=%s first=%s out=%s",
		      n, b, kt_ret(ret), kt_ret(th.ret), kt_first(kt_waiter_first(&th)), st);
		free(st);
		sw_assert(b);
		kt_expect(ret, 0);
		kt_expect(th.ret, 0);
	}
}

/* A thread already waiting on pending fences (no FOR_SUBMIT) keeps waiting
 * on them when SIGNAL swaps in a stub; it returns when the old fences
 * signal. */
static void test_fence_waiter_keeps_old_fence(void)
{
	uint32_t n;

	kt_for_each_later_count(n) {
		kt_fix_make_all(&fix, n, kt_pending(1));
		start_waiter(0);
		bool b1 = kt_waiter_blocked(&th, 5000);
		int ret = kt_array_call(fix.fd, REQ, (uintptr_t)fix.h, 0, n, 0);
		bool b2 = kt_waiter_blocked(&th, 200);
		kt_sw_inc(fix.timeline, 1);
		sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
		char *st = kt_fix_state(&fix);
		kt_tr("n=%u waiter=WAIT(ANY) on pending, SIGNAL all, then old fences signal "
		      "-> blocked=%d%d ret=%s waiter-ret=%s first=%s out=%s",
		      n, b1, b2, kt_ret(ret), kt_ret(th.ret), kt_first(kt_waiter_first(&th)), st);
		free(st);
		sw_assert_f(b1 && b2, "n=%u: waiter asleep before SIGNAL %d, after %d", n, b1, b2);
		kt_expect(ret, 0);
		kt_expect(th.ret, 0);
	}
}
#else
/* A thread in WAIT_ANY|WAIT_FOR_SUBMIT on fenceless syncobjs is not woken
 * by RESET (it installs no fence); a later import at k of a signalled
 * fence wakes it. */
static void test_reset_leaves_submit_waiter_asleep(void)
{
	uint32_t n;

	kt_for_each_later_count(n) {
		uint32_t k = n - 1;
		kt_fix_make_all(&fix, n, kt_none());
		start_waiter(DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT);
		bool b1 = kt_waiter_blocked(&th, 5000);
		int ret = kt_array_call(fix.fd, REQ, (uintptr_t)fix.h, 0, n, 0);
		bool b2 = kt_waiter_blocked(&th, 200);
		kt_fix_import_pending(&fix, fix.h[k], 1);
		kt_sw_inc(fix.timeline, 1);
		sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
		char *st = kt_fix_state(&fix);
		kt_tr("n=%u waiter=WAIT(ANY|FOR_SUBMIT), RESET all, then fence@%u -> "
		      "blocked=%d%d ret=%s waiter-ret=%s first=%s out=%s",
		      n, k, b1, b2, kt_ret(ret), kt_ret(th.ret), kt_first(kt_waiter_first(&th)),
		      st);
		free(st);
		sw_assert(b1 && b2);
		kt_expect(ret, 0);
		kt_expect(th.ret, 0);
		sw_assert_eq(kt_waiter_first(&th), k);
	}
}

/* After RESET a plain WAIT has no fence to wait for. */
static void test_reset_then_wait_is_einval(void)
{
	uint32_t n;

	kt_for_each_count(n) {
		uint32_t first;
		kt_fix_make_all(&fix, n, kt_signaled());
		kt_expect(kt_array_call(fix.fd, REQ, (uintptr_t)fix.h, 0, n, 0), 0);
		int ret = kt_wait_call(fix.fd, false, (uintptr_t)fix.h, 0, n, 0, 0, 0, &first);
		kt_tr("n=%u RESET then WAIT(ANY) -> ret=%s first=%s", n, kt_ret(ret),
		      kt_first(first));
		kt_expect(ret, -EINVAL);
	}
}
#endif

/* kmalloc_array(n, 8) for the syncobj pointers is the limit. */
static void test_max_count(void)
{
	uint32_t n = KT_MAX_ARRAY_COUNT;

	kt_max_count_or_skip();
	kt_fix_make(&fix, n, kt_spec_mixed_probed, NULL);
	kt_expect(op_fix(n - 1, 0, false), -ENOENT);
	kt_expect(op_fix(NONE, 0, true), 0);
}

static void test_over_max_count(void)
{
	uint32_t n = KT_MAX_ARRAY_COUNT + 1;

	kt_over_max_count_or_skip();
	kt_fix_make_all(&fix, 1, kt_pending(1));
	kt_arr_same_handle(&a, fix.h[0], n);
	int ret = op_case(n, 0, false);
	kt_arr_free(&a);
	sw_assert_f(ret == -ENOMEM || ret == 0, "got %s", kt_ret(ret));
}

int main(int argc, char **argv)
{
	kt_init(SUITE, argc, argv);

	kt_subtest("count-zero-is-einval") test_count_zero();
	kt_subtest("pad-must-be-zero") test_pad_must_be_zero();
	kt_subtest(KT_SIGNAL ? "signals-every-state" : "resets-every-state") test_every_state();
	kt_subtest("invalid-handle-changes-nothing") test_invalid_handle();
	kt_subtest("bad-handles-pointer-changes-nothing") test_bad_handles_pointer();
	kt_subtest("invalid-handle-before-fault") test_invalid_handle_before_fault();
	kt_subtest("duplicate-handles") test_duplicate_handles();
#if KT_SIGNAL
	kt_subtest("wakes-wait-for-submit") test_wakes_wait_for_submit();
	kt_subtest("fence-waiter-keeps-old-fence") test_fence_waiter_keeps_old_fence();
#else
	kt_subtest("reset-leaves-submit-waiter-asleep") test_reset_leaves_submit_waiter_asleep();
	kt_subtest("reset-then-wait-is-einval") test_reset_then_wait_is_einval();
#endif
	kt_subtest("max-count") test_max_count();
	kt_subtest("over-max-count") test_over_max_count();

	return kt_exit();
}
