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
#include <unistd.h>

#include "kt.h"

#define REQ DRM_IOCTL_SYNCOBJ_QUERY
#define LAST DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED
#define NONE UINT32_MAX

static struct kt_fix fix;

/* The values QUERY should give for kt_spec_mixed position i. */
static uint64_t mixed_value(uint32_t i, bool last)
{
	switch (i % 5) {
	case 3: return 5;
	case 4: return last ? 8 : 5;
	default: return 0;
	}
}

/* One call with handles h and a points array p (filled with KT_UNWRITTEN
 * where addressable). Returns the result; *values gets a malloc'd copy of
 * the readable part of the points array (count in *nvalues). */
static int query_case(const struct kt_arr *h, struct kt_arr *p, uint32_t n, uint32_t flags,
		      uint64_t **values, uint32_t *nvalues)
{
	char *before = kt_fix_state(&fix);
	int ret = kt_array_call(fix.fd, REQ, h->ptr, p->ptr, n, flags);
	char *after = kt_fix_state(&fix);
	uint32_t nv = kt_arr_readable(p);
	uint64_t *v = malloc((nv ? nv : 1) * sizeof(*v));
	char vt[512];

	sw_assert(v);
	if (nv)
		memcpy(v, kt_arr_data(p), nv * sizeof(*v));
	if (nv == 0)
		snprintf(vt, sizeof(vt), "-");
	else if (nv > KT_STATE_ALL_UP_TO)
		snprintf(vt, sizeof(vt), "(%u values, checked by the test)", nv);
	else if (!kt_u64_text(v, nv, vt, sizeof(vt) - 16))
		strcat(vt, ",...");
	char ft[24];
	snprintf(ft, sizeof(ft), "0x%x", flags);
	kt_tr("n=%u flags=%s handles=%s points=%s -> ret=%s values=[%s] state=%s", n,
	      flags == 0 ? "0" : flags == LAST ? "LAST_SUBMITTED" : ft, h->desc, p->desc,
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

static uint64_t *unwritten(uint32_t n)
{
	uint64_t *p = malloc((n ? n : 1) * sizeof(*p));
	sw_assert(p);
	for (uint32_t i = 0; i < n; i++)
		p[i] = KT_UNWRITTEN;
	return p;
}

/* handles: the fixture (unused handle at bad); points: a fresh array of kind */
static int query_fix(uint32_t bad, enum kt_ptr kind, uint32_t k, uint32_t flags,
		     uint64_t **values, uint32_t *nvalues)
{
	static struct kt_arr h, p;
	uint32_t *hs = kt_handles(&fix, bad);
	uint64_t *init = unwritten(fix.n);
	int ret;

	kt_arr_free(&h);
	kt_arr_free(&p);
	kt_arr_make(&h, KT_PTR_OK, hs, 4, fix.n, 0);
	if (bad < fix.n)
		snprintf(h.desc, sizeof(h.desc), "bad@%u(%s)", bad, kt_pos_name(fix.n, bad));
	kt_arr_make(&p, kind, init, 8, fix.n, k);
	free(hs);
	free(init);
	ret = query_case(&h, &p, fix.n, flags, values, nvalues);
	kt_arr_free(&h);
	kt_arr_free(&p);
	return ret;
}

/* Every readable value is either KT_UNWRITTEN (all_unwritten) or the mixed
 * fixture's value (written, and the prefix written is contiguous). */
static void check_values(const uint64_t *v, uint32_t nv, bool last, bool all_unwritten,
			 bool all_written)
{
	bool seen_unwritten = false;

	for (uint32_t i = 0; i < nv; i++) {
		if (v[i] == KT_UNWRITTEN) {
			sw_assert_f(!all_written, "value %u was not written", i);
			seen_unwritten = true;
			continue;
		}
		sw_assert_f(!all_unwritten, "value %u was written (%llu) by a failed QUERY", i,
			    (unsigned long long)v[i]);
		sw_assert_f(!seen_unwritten, "value %u written after an unwritten one", i);
		sw_assert_f(v[i] == mixed_value(i, last), "value %u is %llu, not %llu", i,
			    (unsigned long long)v[i], (unsigned long long)mixed_value(i, last));
	}
}

int main(int argc, char **argv)
{
	kt_init("syncobj-query", argc, argv);

	kt_subtest("count-zero-is-einval") {
		static struct kt_arr h, p;

		kt_fix_make(&fix, 5, kt_spec_mixed, NULL);
		for (int kind = KT_PTR_OK; kind <= KT_PTR_KERNEL; kind++) {
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, kind, fix.h, 4, 0, 0);
			kt_arr_make(&p, kind, NULL, 8, 0, 0);
			kt_expect(query_case(&h, &p, 0, 0, NULL, NULL), -EINVAL);
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("invalid-flags") {
		static const uint32_t flags[] = { LAST << 1, 0x80000000u, LAST | (LAST << 1) };
		uint64_t *v;
		uint32_t nv;

		kt_fix_make(&fix, 5, kt_spec_mixed, NULL);
		for (size_t i = 0; i < 3; i++) {
			kt_expect(query_fix(NONE, KT_PTR_OK, 0, flags[i], &v, &nv), -EINVAL);
			check_values(v, nv, false, true, false);
			free(v);
		}
	}

	kt_subtest("values") {
		/* no fence, stub, pending binary: 0; timeline at 5: 5/5; at 5
		 * with 8 pending: 5, and 8 with LAST_SUBMITTED */
		uint64_t *v;
		uint32_t nv;

		for (size_t c = 1; c < kt_ncounts; c++) {
			kt_fix_make(&fix, kt_counts[c], kt_spec_mixed, NULL);
			for (int last = 0; last < 2; last++) {
				kt_expect(query_fix(NONE, KT_PTR_OK, 0, last ? LAST : 0, &v, &nv), 0);
				check_values(v, nv, last, false, true);
				free(v);
			}
		}
	}

	kt_subtest("invalid-handle-writes-nothing") {
		uint64_t *v;
		uint32_t nv, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			kt_fix_make(&fix, n, kt_spec_mixed, NULL);
			for (int p = 0; p < m; p++) {
				kt_expect(query_fix(pos[p], KT_PTR_OK, 0, 0, &v, &nv), -ENOENT);
				check_values(v, nv, false, true, false);
				free(v);
			}
		}
	}

	kt_subtest("bad-handles-pointer-writes-nothing") {
		static struct kt_arr h, p;
		uint64_t *v;
		uint32_t nv, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			kt_fix_make(&fix, n, kt_spec_mixed, NULL);
			uint64_t *init = unwritten(n);
			for (int kind = KT_PTR_NULL; kind <= KT_PTR_FAULT_SPLIT; kind++) {
				int reps = kind >= KT_PTR_FAULT ? m : 1;
				for (int r = 0; r < reps; r++) {
					kt_arr_free(&h);
					kt_arr_free(&p);
					kt_arr_make(&h, kind, fix.h, 4, n, pos[r]);
					kt_arr_make(&p, KT_PTR_OK, init, 8, n, 0);
					int want = kind == KT_PTR_READONLY ? 0 : -EFAULT;
					kt_expect(query_case(&h, &p, n, 0, &v, &nv), want);
					check_values(v, nv, false, want != 0, want == 0);
					free(v);
				}
			}
			free(init);
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("bad-points-pointer") {
		/* NULL, unmapped, kernel and read-only points: EFAULT, nothing
		 * readable written. */
		uint64_t *v;
		uint32_t nv;

		for (size_t c = 1; c < kt_ncounts; c++) {
			kt_fix_make(&fix, kt_counts[c], kt_spec_mixed, NULL);
			for (int kind = KT_PTR_NULL; kind <= KT_PTR_READONLY; kind++) {
				kt_expect(query_fix(NONE, kind, 0, 0, &v, &nv), -EFAULT);
				check_values(v, nv, false, true, false);
				free(v);
			}
		}
	}

	kt_subtest("points-fault-part-way") {
		/* Points array faulting at element k: EFAULT. 6.12 writes the
		 * values one by one, so elements 0..k-1 hold the values; the
		 * transcript shows them. (A straddling element k may be partly
		 * written by copy_to_user; its bytes are not recorded.) */
		uint64_t *v;
		uint32_t nv, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			kt_fix_make(&fix, n, kt_spec_mixed, NULL);
			for (int p = 0; p < m; p++) {
				for (int kind = KT_PTR_FAULT; kind <= KT_PTR_FAULT_SPLIT; kind++) {
					kt_expect(query_fix(NONE, kind, pos[p], 0, &v, &nv), -EFAULT);
					check_values(v, nv, false, false, false);
					free(v);
				}
			}
		}
	}

	kt_subtest("errors-in-two-arrays") {
		/* unused handle at 1 and points faulting at n/2: the lookup
		 * fails first, nothing is written */
		static struct kt_arr h, p;
		static const uint32_t ns[] = { 2, 4, 5, 64 };
		uint64_t *v;
		uint32_t nv;

		for (size_t c = 0; c < 4; c++) {
			uint32_t n = ns[c];
			kt_fix_make(&fix, n, kt_spec_mixed, NULL);
			uint32_t *hs = kt_handles(&fix, 1);
			uint64_t *init = unwritten(n);
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, KT_PTR_OK, hs, 4, n, 0);
			snprintf(h.desc, sizeof(h.desc), "bad@1");
			kt_arr_make(&p, KT_PTR_FAULT, init, 8, n, n / 2);
			int ret = query_case(&h, &p, n, 0, &v, &nv);
			sw_assert_f(ret == -ENOENT || ret == -EFAULT, "got %s", kt_ret(ret));
			check_values(v, nv, false, ret == -ENOENT, false);
			free(v);
			free(hs);
			free(init);
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("duplicate-handles") {
		static const uint32_t ns[] = { 2, 5, 64, 1024 };
		static struct kt_arr h, p;
		uint64_t *v;
		uint32_t nv;

		for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
			uint32_t n = ns[c];
			kt_fix_make_all(&fix, 1, kt_timeline(5, 8, 1));
			uint32_t *hs = malloc(n * sizeof(*hs));
			for (uint32_t i = 0; i < n; i++)
				hs[i] = fix.h[0];
			uint64_t *init = unwritten(n);
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, KT_PTR_OK, hs, 4, n, 0);
			snprintf(h.desc, sizeof(h.desc), "same-handle*%u", n);
			kt_arr_make(&p, KT_PTR_OK, init, 8, n, 0);
			kt_expect(query_case(&h, &p, n, 0, &v, &nv), 0);
			for (uint32_t i = 0; i < nv; i++)
				sw_assert_eq(v[i], 5);
			free(v);
			kt_expect(query_case(&h, &p, n, LAST, &v, &nv), 0);
			for (uint32_t i = 0; i < nv; i++)
				sw_assert_eq(v[i], 8);
			free(v);
			free(hs);
			free(init);
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("unordered-point") {
		/* After a point below the last one (5 after 10), the payload is
		 * what the chain walk finds; 6.12's comment warns it may be 0. */
		uint64_t *v;
		uint32_t nv;

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			for (uint32_t i = 0; i < n; i++)
				kt_fix_add_point(&fix, fix.h[i], 5, 0);
			for (int last = 0; last < 2; last++) {
				kt_expect(query_fix(NONE, KT_PTR_OK, 0, last ? LAST : 0, &v, &nv), 0);
				free(v);
			}
		}
	}

	kt_subtest("max-count") {
		kt_max_count_or_skip();
		uint32_t n = KT_MAX_ARRAY_COUNT, nv;
		uint64_t *v;

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

	kt_subtest("over-max-count") {
		static struct kt_arr h, p;
		uint32_t n = KT_MAX_ARRAY_COUNT + 1;

		if (!kt_env_flag("SYNCWAY_KT_WARN"))
			sw_skip("triggers a page-allocator WARNING in 6.12; set SYNCWAY_KT_WARN=1");
		kt_fix_make_all(&fix, 1, kt_timeline(5, 0, 0));
		uint32_t *hs = malloc(n * sizeof(*hs));
		for (uint32_t i = 0; i < n; i++)
			hs[i] = fix.h[0];
		uint64_t *init = unwritten(n);
		kt_arr_make(&h, KT_PTR_OK, hs, 4, n, 0);
		snprintf(h.desc, sizeof(h.desc), "same-handle*%u", n);
		kt_arr_make(&p, KT_PTR_OK, init, 8, n, 0);
		int ret = query_case(&h, &p, n, 0, NULL, NULL);
		free(hs);
		free(init);
		kt_arr_free(&h);
		kt_arr_free(&p);
		sw_assert_f(ret == -ENOMEM || ret == 0, "got %s", kt_ret(ret));
	}

	return kt_exit();
}
