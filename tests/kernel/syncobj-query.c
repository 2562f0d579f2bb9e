/* DRM_IOCTL_SYNCOBJ_QUERY: reads the signalled (or, with LAST_SUBMITTED, the
 * last submitted) point of each syncobj of an array of 0 ... 524288.
 *
 * Transcript line per case:
 *   n=N flags=F handles=H points=P -> ret=R values=[...] state=[...]
 * values: what the points array holds afterwards ("unwritten" where the
 * kernel did not write; only the elements the program can read back: for
 * an array that faults at element k, elements 0..k-1). QUERY never changes a
 * syncobj (asserted). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define REQ DRM_IOCTL_SYNCOBJ_QUERY
#define LAST DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED
#define NONE UINT32_MAX

static struct kt_fix fix;
static struct kt_arr h, p;

/* What a failed QUERY may have left in the readable part of the points
 * array, for check_values(). */
enum written { WRITTEN_NONE, WRITTEN_ALL, WRITTEN_PREFIX };

/* The values QUERY should give for kt_spec_mixed position i. */
static uint64_t mixed_value(uint32_t i, bool last)
{
	switch (i % 5) {
	case 3: return 5;
	case 4: return last ? 8 : 5;
	default: return 0;
	}
}

/* One call with the arguments h and p (p filled with KT_UNWRITTEN where
 * addressable). Returns the result; *values gets a malloc'd copy of the
 * readable part of the points array (count in *nvalues). */
static int query_case(uint32_t n, uint32_t flags, uint64_t **values, uint32_t *nvalues)
{
	char *before = kt_fix_state(&fix);
	int ret = kt_array_call(fix.fd, REQ, h.ptr, p.ptr, n, flags);
	char *after = kt_fix_state(&fix);
	uint32_t nv = kt_arr_readable(&p);
	uint64_t *v = malloc((nv ? nv : 1) * sizeof(*v));
	char vt[512], ft[24];

	sw_assert(v);
	if (nv)
		memcpy(v, kt_arr_data(&p), nv * sizeof(*v));
	if (nv == 0)
		snprintf(vt, sizeof(vt), "-");
	else if (nv > KT_STATE_ALL_UP_TO)
		snprintf(vt, sizeof(vt), "(%u values, checked by the test)", nv);
	else if (!kt_u64_text(v, nv, vt, sizeof(vt) - 16))
		strcat(vt, ",...");
	snprintf(ft, sizeof(ft), "0x%x", flags);
	kt_tr("n=%u flags=%s handles=%s points=%s -> ret=%s values=[%s] state=%s", n,
	      flags == 0 ? "0" : flags == LAST ? "LAST_SUBMITTED" : ft, h.desc, p.desc,
	      kt_ret(ret), vt, after);
	sw_assert_f(!strcmp(before, after), "n=%u: QUERY changed the state %s -> %s", n, before,
		    after);
	free(before);
	free(after);
	if (values) {
		*values = v;
		*nvalues = nv;
	} else {
		free(v);
	}
	return ret;
}

/* handles: the fixture (unused handle at bad); points: a fresh array of kind */
static int query_fix(uint32_t bad, enum kt_ptr kind, uint32_t k, uint32_t flags,
		     uint64_t **values, uint32_t *nvalues)
{
	uint64_t *init = kt_u64_array(fix.n, KT_UNWRITTEN);
	int ret;

	kt_arr_free(&h);
	kt_arr_free(&p);
	kt_arr_handles(&h, &fix, bad);
	kt_arr_make(&p, kind, init, 8, fix.n, k);
	free(init);
	ret = query_case(fix.n, flags, values, nvalues);
	kt_arr_free(&h);
	kt_arr_free(&p);
	return ret;
}

/* Every readable value is either KT_UNWRITTEN or the mixed fixture's
 * value, and the written ones form a prefix; written says which of them
 * may be there. */
static void check_values(const uint64_t *v, uint32_t nv, bool last, enum written written)
{
	bool seen_unwritten = false;

	for (uint32_t i = 0; i < nv; i++) {
		if (v[i] == KT_UNWRITTEN) {
			sw_assert_f(written != WRITTEN_ALL, "value %u was not written", i);
			seen_unwritten = true;
			continue;
		}
		sw_assert_f(written != WRITTEN_NONE,
			    "value %u was written (%llu) by a failed QUERY", i,
			    (unsigned long long)v[i]);
		sw_assert_f(!seen_unwritten, "value %u written after an unwritten one", i);
		sw_assert_f(v[i] == mixed_value(i, last), "value %u is %llu, not %llu", i,
			    (unsigned long long)v[i], (unsigned long long)mixed_value(i, last));
	}
}

/* query_fix() of the mixed fixture, then check_values() of what it left. */
static void expect_query_fix(uint32_t bad, enum kt_ptr kind, uint32_t k, uint32_t flags,
			     int want, enum written written)
{
	uint64_t *v;
	uint32_t nv;

	kt_expect(query_fix(bad, kind, k, flags, &v, &nv), want);
	check_values(v, nv, flags & LAST, written);
	free(v);
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
		kt_expect(query_case(0, 0, NULL, NULL), -EINVAL);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

static void test_invalid_flags(void)
{
	static const uint32_t flags[] = { LAST << 1, 0x80000000u, LAST | (LAST << 1) };

	kt_fix_make(&fix, 5, kt_spec_mixed, NULL);
	for (size_t i = 0; i < 3; i++)
		expect_query_fix(NONE, KT_PTR_OK, 0, flags[i], -EINVAL, WRITTEN_NONE);
}

/* no fence, stub, pending binary: 0; timeline at 5: 5/5; at 5 with 8
 * pending: 5, and 8 with LAST_SUBMITTED */
static void test_values(void)
{
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		for (int last = 0; last < 2; last++)
			expect_query_fix(NONE, KT_PTR_OK, 0, last ? LAST : 0, 0, WRITTEN_ALL);
	}
}

static void test_invalid_handle(void)
{
	uint32_t n, k;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_for_each_pos(k, n)
			expect_query_fix(k, KT_PTR_OK, 0, 0, -ENOENT, WRITTEN_NONE);
	}
}

static void test_bad_handles_pointer(void)
{
	struct kt_ptr_iter it;
	uint64_t *v;
	uint32_t nv, n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		uint64_t *init = kt_u64_array(n, KT_UNWRITTEN);
		/* the kernel only reads the handles: read-only ones are fine */
		kt_for_each_ptr(it, KT_PTR_NULL, KT_PTR_FAULT_SPLIT, n, true) {
			int want = it.kind == KT_PTR_READONLY ? 0 : -EFAULT;
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, it.kind, fix.h, 4, n, it.k);
			kt_arr_make(&p, KT_PTR_OK, init, 8, n, 0);
			kt_expect(query_case(n, 0, &v, &nv), want);
			check_values(v, nv, false, want == 0 ? WRITTEN_ALL : WRITTEN_NONE);
			free(v);
		}
		free(init);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

/* NULL, unmapped, kernel and read-only points: EFAULT, nothing readable
 * written. */
static void test_bad_points_pointer(void)
{
	struct kt_ptr_iter it;
	uint32_t n;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_for_each_ptr(it, KT_PTR_NULL, KT_PTR_READONLY, 0, true)
			expect_query_fix(NONE, it.kind, 0, 0, -EFAULT, WRITTEN_NONE);
	}
}

/* Points array faulting at element k: EFAULT. 6.12 writes the values one
 * by one, so elements 0..k-1 hold the values; the transcript shows them.
 * (A straddling element k may be partly written by copy_to_user; its bytes
 * are not recorded.) */
static void test_points_fault_part_way(void)
{
	uint32_t n, k;

	kt_for_each_count(n) {
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		kt_for_each_pos(k, n)
			for (int kind = KT_PTR_FAULT; kind <= KT_PTR_FAULT_SPLIT; kind++)
				expect_query_fix(NONE, kind, k, 0, -EFAULT, WRITTEN_PREFIX);
	}
}

/* unused handle at 1 (0 of one) and points faulting at n/2: the lookup fails first,
 * nothing is written */
static void test_errors_in_two_arrays(void)
{
	static const uint32_t ns[] = { 1, 2, 4, 5, 64 };
	uint64_t *v;
	uint32_t nv;

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		uint32_t n = ns[c];
		/* the second handle, or the only one */
		uint32_t bad = n > 1 ? 1 : 0;
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
		uint64_t *init = kt_u64_array(n, KT_UNWRITTEN);
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_handles_bad(&h, &fix, KT_PTR_OK, bad, 0);
		kt_arr_make(&p, KT_PTR_FAULT, init, 8, n, n / 2);
		int ret = query_case(n, 0, &v, &nv);
		sw_assert_f(ret == -ENOENT || ret == -EFAULT, "got %s", kt_ret(ret));
		check_values(v, nv, false, ret == -ENOENT ? WRITTEN_NONE : WRITTEN_PREFIX);
		free(v);
		free(init);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

static void test_duplicate_handles(void)
{
	static const uint32_t ns[] = { 2, 5, 64, 1024 };
	uint64_t *v;
	uint32_t nv;

	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		if (kt_count_skipped(ns[c]))
			continue;
		uint32_t n = ns[c];
		kt_fix_make_all(&fix, 1, kt_timeline(5, 8, 1));
		uint64_t *init = kt_u64_array(n, KT_UNWRITTEN);
		kt_arr_free(&h);
		kt_arr_free(&p);
		kt_arr_same_handle(&h, fix.h[0], n);
		kt_arr_make(&p, KT_PTR_OK, init, 8, n, 0);
		kt_expect(query_case(n, 0, &v, &nv), 0);
		for (uint32_t i = 0; i < nv; i++)
			sw_assert_eq(v[i], 5);
		free(v);
		kt_expect(query_case(n, LAST, &v, &nv), 0);
		for (uint32_t i = 0; i < nv; i++)
			sw_assert_eq(v[i], 8);
		free(v);
		free(init);
	}
	kt_arr_free(&h);
	kt_arr_free(&p);
}

/* After a point below the last one (5 after 10), the payload is what the
 * chain walk finds; 6.12's comment warns it may be 0. */
static void test_unordered_point(void)
{
	uint64_t *v;
	uint32_t nv, n;

	kt_for_each_count(n) {
		kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
		for (uint32_t i = 0; i < n; i++)
			kt_fix_add_point(&fix, fix.h[i], 5, 0);
		for (int last = 0; last < 2; last++) {
			kt_expect(query_fix(NONE, KT_PTR_OK, 0, last ? LAST : 0, &v, &nv), 0);
			free(v);
		}
	}
}

static void test_max_count(void)
{
	uint32_t n = KT_MAX_ARRAY_COUNT, nv;
	uint64_t *v;

	kt_max_count_or_skip();
	kt_fix_make(&fix, n, kt_spec_mixed_probed, NULL);
	kt_expect(query_fix(n - 1, KT_PTR_OK, 0, 0, &v, &nv), -ENOENT);
	for (uint32_t i = 0; i < nv; i++)
		sw_assert_eq(v[i], KT_UNWRITTEN);
	free(v);
	for (int last = 0; last < 2; last++) {
		kt_expect(query_fix(NONE, KT_PTR_OK, 0, last ? LAST : 0, &v, &nv), 0);
		for (uint32_t i = 0; i < nv; i++) {
			uint64_t want = kt_state_probed(n, i) ? mixed_value(i, last) : 0;
			sw_assert_f(v[i] == want, "value %u is %llu, not %llu", i,
				    (unsigned long long)v[i], (unsigned long long)want);
		}
		free(v);
	}
	kt_expect(query_fix(NONE, KT_PTR_FAULT, n - 1, 0, &v, &nv), -EFAULT);
	free(v);
}

static void test_over_max_count(void)
{
	uint32_t n = KT_MAX_ARRAY_COUNT + 1;

	kt_over_max_count_or_skip();
	kt_fix_make_all(&fix, 1, kt_timeline(5, 0, 0));
	uint64_t *init = kt_u64_array(n, KT_UNWRITTEN);
	kt_arr_same_handle(&h, fix.h[0], n);
	kt_arr_make(&p, KT_PTR_OK, init, 8, n, 0);
	int ret = query_case(n, 0, NULL, NULL);
	free(init);
	kt_arr_free(&h);
	kt_arr_free(&p);
	sw_assert_f(ret == -ENOMEM || ret == 0, "got %s", kt_ret(ret));
}

int main(int argc, char **argv)
{
	kt_init("syncobj-query", argc, argv);

	kt_subtest("count-zero-is-einval") test_count_zero();
	kt_subtest("invalid-flags") test_invalid_flags();
	kt_subtest("values") test_values();
	kt_subtest("invalid-handle-writes-nothing") test_invalid_handle();
	kt_subtest("bad-handles-pointer-writes-nothing") test_bad_handles_pointer();
	kt_subtest("bad-points-pointer") test_bad_points_pointer();
	kt_subtest("points-fault-part-way") test_points_fault_part_way();
	kt_subtest("errors-in-two-arrays") test_errors_in_two_arrays();
	kt_subtest("duplicate-handles") test_duplicate_handles();
	kt_subtest("unordered-point") test_unordered_point();
	kt_subtest("max-count") test_max_count();
	kt_subtest("over-max-count") test_over_max_count();

	return kt_exit();
}
