/* DRM_IOCTL_SYNCOBJ_WAIT: binary waits over arrays of 0 ... 65536 syncobjs.
 *
 * Every case writes one transcript line:
 *   n=N flags=F timeout=T handles=H -> ret=R first=X state=[...]
 * (the state of every handle after the call; a wait never changes it, and
 * each case asserts that too). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define ANY 0u
#define ALL DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
#define FOR_SUBMIT DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
#define DEADLINE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE
#define NONE UINT32_MAX

static struct kt_fix fix;
static struct kt_arr a;
static struct kt_waiter th;

/* One WAIT on the fixture with the handles argument a. Checks that the
 * state did not change and returns the result. */
static int wait_case(uint32_t n, uint32_t flags, const struct kt_timeout *t, uint32_t *first_out)
{
	char fl[64];
	uint32_t first;
	char *before = kt_fix_state(&fix);
	int ret = kt_wait_call(fix.fd, false, a.ptr, 0, n, flags, t->nsec, 0, &first);
	char *after = kt_fix_state(&fix);

	kt_tr("n=%u flags=%s timeout=%s handles=%s -> ret=%s first=%s state=%s%s%s", n,
	      kt_wait_flags(flags, fl, sizeof(fl)), t->name, a.desc, kt_ret(ret),
	      kt_first(first), after, strcmp(before, after) ? " before=" : "",
	      strcmp(before, after) ? before : "");
	sw_assert_f(!strcmp(before, after), "n=%u: WAIT changed the state %s -> %s", n, before,
		    after);
	free(before);
	free(after);
	*first_out = first;
	return ret;
}

/* The fixture's handles as an ok array, optionally with an unused handle at bad. */
static int wait_fix(uint32_t flags, const struct kt_timeout *t, uint32_t bad, uint32_t *first)
{
	int ret;

	kt_arr_free(&a);
	kt_arr_handles(&a, &fix, bad);
	ret = wait_case(fix.n, flags, t, first);
	kt_arr_free(&a);
	return ret;
}

static struct kt_spec spec_cycle3(uint32_t i, uint32_t n, const void *ctx)
{
	(void)n;
	(void)ctx;
	return kt_pending(i % 3 + 1);
}

static void test_count_zero(void)
{
	struct kt_ptr_iter it;
	uint32_t first;

	kt_fix_make_all(&fix, 0, kt_signaled());
	/* WAIT returns before looking at the handles pointer. */
	kt_for_each_ptr(it, KT_PTR_OK, KT_PTR_KERNEL, 0, true) {
		kt_arr_free(&a);
		kt_arr_make(&a, it.kind, NULL, 4, 0, 0);
		kt_expect_first(wait_case(0, ANY, &kt_t0, &first), 0, first, KT_FIRST_UNSET);
		kt_expect_first(wait_case(0, ALL | FOR_SUBMIT, &kt_t0, &first), 0, first,
				KT_FIRST_UNSET);
	}
	/* ... but after checking the flags. */
	kt_expect_first(wait_case(0, 1u << 4, &kt_t0, &first), -EINVAL, first, KT_FIRST_UNSET);
	kt_arr_free(&a);
}

static void test_invalid_flags(void)
{
	static const uint32_t bad[] = { DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, 1u << 4, 1u << 31,
					ALL | (1u << 4) };
	uint32_t first;

	kt_fix_make_all(&fix, 1, kt_signaled());
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		kt_expect_first(wait_fix(bad[i], &kt_t0, NONE, &first), -EINVAL, first,
				KT_FIRST_UNSET);
}

static void test_all_signaled(void)
{
	uint32_t first, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_signaled());
		kt_expect_first(wait_fix(ANY, &kt_t0, NONE, &first), 0, first, 0);
		kt_expect_first(wait_fix(ALL, &kt_t0, NONE, &first), 0, first, 0);
		kt_expect_first(wait_fix(ANY | FOR_SUBMIT, &kt_t0, NONE, &first), 0, first, 0);
		kt_expect_first(wait_fix(ALL | FOR_SUBMIT, &kt_t0, NONE, &first), 0, first, 0);
	}
}

/* Handles one byte past an aligned address, which no correct caller
 * passes: the kernel reads them as it reads aligned ones, one handle
 * included (the series reads a single aligned handle with get_user()). */
static void test_unaligned_handles(void)
{
	static const uint32_t ns[] = { 1, 2, 4, 5 };
	uint32_t first;

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		kt_fix_make_all(&fix, ns[i], kt_signaled());
		kt_arr_free(&a);
		kt_arr_make(&a, KT_PTR_UNALIGNED, fix.h, 4, ns[i], 0);
		kt_expect_first(wait_case(ns[i], ANY, &kt_t0, &first), 0, first, 0);
		kt_expect_first(wait_case(ns[i], ALL, &kt_t0, &first), 0, first, 0);
		kt_fix_make_all(&fix, ns[i], kt_pending(1));
		kt_arr_free(&a);
		kt_arr_make(&a, KT_PTR_UNALIGNED, fix.h, 4, ns[i], 0);
		kt_expect_first(wait_case(ns[i], ANY, &kt_t0, &first), -ETIME, first,
				KT_FIRST_UNSET);
	}
	kt_arr_free(&a);
}

static void test_first_signaled_any(void)
{
	uint32_t first, n, k;

	kt_for_each_count(n) {
		kt_for_each_pos(k, n) {
			for (int from = 0; from < 2; from++) {
				struct kt_only o = { k, kt_signaled(), kt_pending(1), from };
				kt_fix_make(&fix, n, kt_spec_only, &o);
				kt_expect_first(wait_fix(ANY, &kt_t0, NONE, &first), 0, first, k);
				bool all = n == 1 || (from && k == 0);
				kt_expect_first(wait_fix(ALL, &kt_t0, NONE, &first), all ? 0 : -ETIME,
						first, all ? 0 : KT_FIRST_UNSET);
			}
		}
	}
}

static void test_no_fence_is_einval(void)
{
	uint32_t first, n, k;

	kt_for_each_count(n) {
		kt_for_each_pos(k, n) {
			struct kt_only o = { k, kt_none(), kt_signaled(), false };
			kt_fix_make(&fix, n, kt_spec_only, &o);
			/* EINVAL even when an earlier syncobj is signalled */
			kt_expect_first(wait_fix(ANY, &kt_t0, NONE, &first), -EINVAL, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_fix(ALL, &kt_t0, NONE, &first), -EINVAL, first,
					KT_FIRST_UNSET);
			/* with WAIT_FOR_SUBMIT the missing fence is waited for */
			if (n == 1)
				kt_expect_first(wait_fix(ANY | FOR_SUBMIT, &kt_t0, NONE, &first),
						-ETIME, first, KT_FIRST_UNSET);
			else
				kt_expect_first(wait_fix(ANY | FOR_SUBMIT, &kt_t0, NONE, &first), 0,
						first, k == 0 ? 1 : 0);
			/* on failure first_signaled is not written back */
			kt_expect_first(wait_fix(ALL | FOR_SUBMIT, &kt_t0, NONE, &first), -ETIME,
					first, KT_FIRST_UNSET);
		}
	}
}

static void test_invalid_handle(void)
{
	uint32_t first, zero = 0, n, k;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_signaled());
		kt_for_each_pos(k, n) {
			kt_expect_first(wait_fix(ANY, &kt_t0, k, &first), -ENOENT, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_fix(ALL | FOR_SUBMIT, &kt_t0, k, &first), -ENOENT,
					first, KT_FIRST_UNSET);
		}
	}
	/* handle 0 is never valid */
	kt_fix_make_all(&fix, 1, kt_signaled());
	kt_arr_free(&a);
	kt_arr_make(&a, KT_PTR_OK, &zero, 4, 1, 0);
	snprintf(a.desc, sizeof(a.desc), "handle0");
	kt_expect_first(wait_case(1, ANY, &kt_t0, &first), -ENOENT, first, KT_FIRST_UNSET);
	kt_arr_free(&a);
}

static void test_bad_handles_pointer(void)
{
	struct kt_ptr_iter it;
	uint32_t first, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_signaled());
		kt_for_each_ptr(it, KT_PTR_NULL, KT_PTR_KERNEL, n, false) {
			kt_arr_free(&a);
			kt_arr_make(&a, it.kind, fix.h, 4, n, 0);
			kt_expect_first(wait_case(n, ANY, &kt_t0, &first), -EFAULT, first,
					KT_FIRST_UNSET);
		}
	}
	kt_arr_free(&a);
}

static void test_handles_fault_part_way(void)
{
	uint32_t first, n, k;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_signaled());
		kt_for_each_pos(k, n) {
			for (int kind = KT_PTR_FAULT; kind <= KT_PTR_FAULT_SPLIT; kind++) {
				kt_arr_free(&a);
				kt_arr_make(&a, kind, fix.h, 4, n, k);
				kt_expect_first(wait_case(n, ANY, &kt_t0, &first), -EFAULT, first,
						KT_FIRST_UNSET);
			}
		}
	}
	kt_arr_free(&a);
}

/* Two errors in one array: an unused handle at 1 and a fault at n/2. 6.12
 * copies the whole array first, so EFAULT wins. */
static void test_invalid_handle_before_fault(void)
{
	static const uint32_t ns[] = { 4, 5, 64 };
	uint32_t first;

	for (size_t c = 0; c < 3; c++) {
		uint32_t n = ns[c];
		kt_fix_make_all(&fix, n, kt_signaled());
		kt_arr_free(&a);
		kt_arr_handles_bad(&a, &fix, KT_PTR_FAULT, 1, n / 2);
		int ret = wait_case(n, ANY, &kt_t0, &first);
		sw_assert_f(ret == -EFAULT || ret == -ENOENT, "got %s", kt_ret(ret));
	}
	kt_arr_free(&a);
}

static void test_timeouts(void)
{
	/* an absolute time in the past (1 ns, 20 ms after boot) polls */
	const struct kt_timeout past = { "past", 1 }, past2 = { "past-20ms", 20000000 };
	uint32_t first, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_pending(1));
		for (int f = 0; f < 2; f++) {
			uint32_t flags = f ? ALL : ANY;
			kt_expect_first(wait_fix(flags, &kt_t0, NONE, &first), -ETIME, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_fix(flags, &past, NONE, &first), -ETIME, first,
					KT_FIRST_UNSET);
			kt_expect_first(wait_fix(flags, &past2, NONE, &first), -ETIME, first,
					KT_FIRST_UNSET);
			/* 20 ms from now: ETIME, and not before the time */
			int64_t start = sw_clock_ns(CLOCK_MONOTONIC);
			struct kt_timeout small = { "now+20ms", start + 20000000 };
			kt_expect_first(wait_fix(flags, &small, NONE, &first), -ETIME, first,
					KT_FIRST_UNSET);
			int64_t took = sw_clock_ns(CLOCK_MONOTONIC) - start;
			kt_check_timed_wait(took, 20000000, n);
		}
	}
}

/* A second thread sleeps in WAIT_ANY; the syncobj at k gets a fence that
 * the CPU signals (sw_sync) while it sleeps. */
static void test_signaled_later_any(void)
{
	uint32_t n, k;

	kt_for_each_later_count(n) {
		kt_for_each_pos(k, n) {
			struct kt_only o = { k, kt_pending(1), kt_pending(2), false };
			kt_fix_make(&fix, n, kt_spec_only, &o);
			kt_waiter_start(&th, fix.fd, false, fix.h, NULL, n, ANY);
			bool blocked = kt_waiter_blocked(&th, 5000);
			kt_sw_inc(fix.timeline, 1);
			sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
			char *st = kt_fix_state(&fix);
			kt_tr("n=%u flags=ANY timeout=later handles=ok signal=seqno1@%u(%s) -> "
			      "blocked=%d ret=%s first=%s state=%s",
			      n, k, kt_pos_name(n, k), blocked, kt_ret(th.ret),
			      kt_first(kt_waiter_first(&th)), st);
			free(st);
			sw_assert_f(blocked, "n=%u: the waiter did not block", n);
			kt_expect_first(th.ret, 0, kt_waiter_first(&th), k);
		}
	}
}

/* WAIT_ALL over fences at seqnos 1..3: it sleeps until the last. */
static void test_signaled_later_all(void)
{
	uint32_t n;

	kt_for_each_later_count(n) {
		uint32_t steps = n < 3 ? n : 3;
		char blocked[16] = "";
		bool ok = true;

		kt_fix_make(&fix, n, spec_cycle3, NULL);
		kt_waiter_start(&th, fix.fd, false, fix.h, NULL, n, ALL);
		for (uint32_t s = 0; s < steps; s++) {
			bool b = kt_waiter_blocked(&th, 5000);
			ok &= b;
			blocked[s] = b ? '1' : '0';
			kt_sw_inc(fix.timeline, 1);
		}
		sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
		char *st = kt_fix_state(&fix);
		kt_tr("n=%u flags=ALL timeout=later handles=ok signal=seqno1..%u -> "
		      "blocked=%s ret=%s first=%s state=%s",
		      n, steps, blocked, kt_ret(th.ret), kt_first(kt_waiter_first(&th)), st);
		free(st);
		sw_assert_f(ok, "n=%u: the waiter was not asleep before each signal (%s)", n,
			    blocked);
		sw_assert_f(th.ret == 0, "n=%u: WAIT_ALL returned %s", n, kt_ret(th.ret));
	}
}

/* No fences at all; WAIT_FOR_SUBMIT sleeps until the syncobj at k gets one
 * (still pending: it keeps sleeping) and it signals. */
static void test_wait_for_submit_then_signal(void)
{
	uint32_t n, k;

	kt_for_each_later_count(n) {
		kt_for_each_pos(k, n) {
			kt_fix_make_all(&fix, n, kt_none());
			kt_waiter_start(&th, fix.fd, false, fix.h, NULL, n, ANY | FOR_SUBMIT);
			bool b1 = kt_waiter_blocked(&th, 5000);
			kt_fix_import_pending(&fix, fix.h[k], 1);
			bool b2 = kt_waiter_blocked(&th, 5000);
			kt_sw_inc(fix.timeline, 1);
			sw_assert_f(kt_waiter_join(&th, 10000), "waiter did not return");
			char *st = kt_fix_state(&fix);
			kt_tr("n=%u flags=ANY|FOR_SUBMIT timeout=later handles=ok "
			      "submit=pending@%u(%s) then signal -> blocked=%d%d ret=%s first=%s "
			      "state=%s",
			      n, k, kt_pos_name(n, k), b1, b2, kt_ret(th.ret),
			      kt_first(kt_waiter_first(&th)), st);
			free(st);
			sw_assert_f(b1 && b2, "n=%u: waiter not asleep (before submit %d, after %d)",
				    n, b1, b2);
			kt_expect_first(th.ret, 0, kt_waiter_first(&th), k);
		}
	}
}

static void test_duplicate_handles(void)
{
	static const uint32_t ns[] = { 2, 5, 64, 1024 };
	uint32_t first;

	for (int pend = 0; pend < 2; pend++) {
		for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
			if (kt_count_skipped(ns[c]))
				continue;
			uint32_t n = ns[c];
			kt_fix_make_all(&fix, 1, pend ? kt_pending(1) : kt_signaled());
			kt_arr_free(&a);
			kt_arr_same_handle(&a, fix.h[0], n);
			kt_expect_first(wait_case(n, ANY, &kt_t0, &first), pend ? -ETIME : 0, first,
					pend ? KT_FIRST_UNSET : 0);
			kt_expect_first(wait_case(n, ALL, &kt_t0, &first), pend ? -ETIME : 0, first,
					pend ? KT_FIRST_UNSET : 0);
		}
	}
	kt_arr_free(&a);
}

/* WAIT_DEADLINE sets the deadline on the fences it waits for. */
static void test_deadline_hint(void)
{
	static const uint32_t ns[] = { 1, 4, 5, 64 };
	const int64_t deadline = 1000000000000ll; /* 1000 s after boot */
	uint32_t first;

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		uint32_t n = ns[c];
		kt_fix_make_all(&fix, n, kt_pending(1));
		int ret = kt_wait_call(fix.fd, false, (uintptr_t)fix.h, 0, n, ANY | DEADLINE, 0,
				       deadline, &first);
		uint64_t ns_set = 0;
		bool set = kt_sw_deadline(fix.fence_fd[1], &ns_set);
		kt_tr("n=%u flags=ANY|DEADLINE deadline=1000s timeout=0 handles=ok -> ret=%s "
		      "first=%s fence-deadline=%s",
		      n, kt_ret(ret), kt_first(first),
		      !set ? "none" : ns_set == (uint64_t)deadline ? "1000s" : "other");
		kt_expect_first(ret, -ETIME, first, KT_FIRST_UNSET);
		sw_assert_f(set && ns_set == (uint64_t)deadline,
			    "n=%u: the fence has no deadline 1000 s (set %d, %" PRIu64 ")", n, set,
			    ns_set);
	}
}

/* The largest array 6.12 takes: kcalloc(n, 64) <= KMALLOC_MAX_SIZE. */
static void test_max_count(void)
{
	uint32_t first, n = KT_MAX_WAIT_COUNT;
	struct kt_only o = { n - 1, kt_signaled(), kt_pending(1), false };

	kt_max_count_or_skip();
	int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
	kt_fix_make_all(&fix, n, kt_signaled());
	int64_t t1 = sw_clock_ns(CLOCK_MONOTONIC);
	kt_expect_first(wait_fix(ANY, &kt_t0, NONE, &first), 0, first, 0);
	int64_t t2 = sw_clock_ns(CLOCK_MONOTONIC);
	printf("# max-count: %u CREATEs %.0f ms, one WAIT with state probes %.0f ms\n", n,
	       (t1 - t0) / 1e6, (t2 - t1) / 1e6);
	kt_expect_first(wait_fix(ALL, &kt_t0, NONE, &first), 0, first, 0);
	kt_expect_first(wait_fix(ANY, &kt_t0, n - 1, &first), -ENOENT, first, KT_FIRST_UNSET);
	kt_fix_make(&fix, n, kt_spec_only, &o);
	kt_expect_first(wait_fix(ANY, &kt_t0, NONE, &first), 0, first, n - 1);
	kt_expect_first(wait_fix(ALL, &kt_t0, NONE, &first), -ETIME, first, KT_FIRST_UNSET);
}

/* One more than max-count: the entries array passes 4 MiB, the page
 * allocator warns (WARN_ON_ONCE, no __GFP_NOWARN) and WAIT fails with
 * ENOMEM. The warning fails a tools/vm-run run, so opt in. */
static void test_over_max_count(void)
{
	uint32_t first, n = KT_MAX_WAIT_COUNT + 1;

	kt_over_max_count_or_skip();
	kt_fix_make_all(&fix, 1, kt_signaled());
	kt_arr_free(&a);
	kt_arr_same_handle(&a, fix.h[0], n);
	int ret = wait_case(n, ANY, &kt_t0, &first);
	kt_arr_free(&a);
	sw_assert_f(ret == -ENOMEM || ret == 0, "got %s", kt_ret(ret));
}

int main(int argc, char **argv)
{
	kt_init("syncobj-wait", argc, argv);

	kt_subtest("count-zero-returns-0") test_count_zero();
	kt_subtest("invalid-flags") test_invalid_flags();
	kt_subtest("all-signaled") test_all_signaled();
	kt_subtest("first-signaled-any") test_first_signaled_any();
	kt_subtest("unaligned-handles") test_unaligned_handles();
	kt_subtest("no-fence-is-einval-without-wait-for-submit") test_no_fence_is_einval();
	kt_subtest("invalid-handle") test_invalid_handle();
	kt_subtest("bad-handles-pointer") test_bad_handles_pointer();
	kt_subtest("handles-fault-part-way") test_handles_fault_part_way();
	kt_subtest("invalid-handle-before-fault") test_invalid_handle_before_fault();
	kt_subtest("timeouts") test_timeouts();
	kt_subtest("signaled-later-any") test_signaled_later_any();
	kt_subtest("signaled-later-all") test_signaled_later_all();
	kt_subtest("wait-for-submit-then-signal") test_wait_for_submit_then_signal();
	kt_subtest("duplicate-handles") test_duplicate_handles();
	kt_subtest("deadline-hint") test_deadline_hint();
	kt_subtest("max-count") test_max_count();
	kt_subtest("over-max-count") test_over_max_count();

	return kt_exit();
}
