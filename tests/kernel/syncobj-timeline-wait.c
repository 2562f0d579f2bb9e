/* DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT: waits on timeline points over arrays of
 * 0 ... 65536 syncobjs.
 *
 * Transcript line per case:
 *   n=N flags=F timeout=T handles=H points=P(values) -> ret=R first=X state=[...]
 * State tokens: letter of the latest fence (N/P/S/E), ":query/last_submitted"
 * for timelines. A wait never changes the state; each case asserts that. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt.h"

#define ANY 0u
#define ALL DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
#define FOR_SUBMIT DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
#define AVAILABLE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE
#define DEADLINE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE
#define NONE UINT32_MAX

static struct kt_fix fix;

struct timeout {
	const char *name;
	int64_t nsec;
};
static const struct timeout T0 = { "0", 0 };

/* "10*63,11" for the transcript: the points the caller meant to pass */
static void points_text(const uint64_t *p, uint32_t n, char *buf, size_t len)
{
	size_t m = 0;

	buf[0] = '\0';
	if (!p)
		n = 0;
	for (uint32_t i = 0; i < n && m + 32 < len;) {
		uint32_t j = i;
		while (j < n && p[j] == p[i])
			j++;
		m += (size_t)snprintf(buf + m, len - m, "%s%" PRIu64, i ? "," : "", p[i]);
		if (j - i > 1)
			m += (size_t)snprintf(buf + m, len - m, "*%u", j - i);
		i = j;
	}
	if (n == 0)
		snprintf(buf, len, "-");
}

static int wait_case(const struct kt_arr *h, const struct kt_arr *p, const uint64_t *points,
		     uint32_t n, uint32_t flags, struct timeout t, uint32_t *first_out)
{
	char fl[64], pt[256];
	uint32_t first;
	char *before = kt_fix_state(&fix);
	int ret = kt_wait_call(fix.fd, true, h->ptr, p->ptr, n, flags, t.nsec, 0, &first);
	char *after = kt_fix_state(&fix);

	points_text(points, n, pt, sizeof(pt));
	kt_tr("n=%u flags=%s timeout=%s handles=%s points=%s(%s) -> ret=%s first=%s state=%s%s%s",
	      n, kt_wait_flags(flags, fl, sizeof(fl)), t.name, h->desc, p->desc,
	      p->kind == KT_PTR_NULL ? "-" : pt, kt_ret(ret), kt_first(first), after,
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
static int wait_pts(const uint64_t *points, uint32_t flags, struct timeout t, uint32_t bad_handle,
		    uint32_t *first)
{
	static struct kt_arr h, p;
	uint32_t *hs = kt_handles(&fix, bad_handle);
	int ret;

	kt_arr_free(&h);
	kt_arr_free(&p);
	kt_arr_make(&h, KT_PTR_OK, hs, 4, fix.n, 0);
	if (bad_handle < fix.n)
		snprintf(h.desc, sizeof(h.desc), "bad@%u(%s)", bad_handle,
			 kt_pos_name(fix.n, bad_handle));
	kt_arr_make(&p, KT_PTR_OK, points, 8, fix.n, 0);
	free(hs);
	ret = wait_case(&h, &p, points, fix.n, flags, t, first);
	kt_arr_free(&h);
	kt_arr_free(&p);
	return ret;
}

/* points: all v, except w at k (k == NONE: none) */
static uint64_t *points_k(uint32_t n, uint64_t v, uint32_t k, uint64_t w)
{
	uint64_t *p = malloc((n ? n : 1) * sizeof(*p));

	sw_assert(p);
	for (uint32_t i = 0; i < n; i++)
		p[i] = i == k ? w : v;
	return p;
}

static int wait_all_at(uint64_t v, uint32_t k, uint64_t w, uint32_t flags, struct timeout t,
		       uint32_t *first)
{
	uint64_t *p = points_k(fix.n, v, k, w);
	int ret = wait_pts(p, flags, t, NONE, first);
	free(p);
	return ret;
}

struct only {
	uint32_t k;
	struct kt_spec at_k, others;
};
static struct kt_spec spec_only(uint32_t i, uint32_t n, const void *ctx)
{
	const struct only *o = ctx;
	(void)n;
	return i == o->k ? o->at_k : o->others;
}

#define expect(call, want, first, want_first)                                          \
	do {                                                                           \
		int r_ = (call);                                                       \
		sw_assert_f(r_ == (want), "%s: expected %s, got %s", #call,            \
			    kt_ret(want), kt_ret(r_));                                 \
		sw_assert_f((first) == (want_first),                                   \
			    "%s: expected first_signaled %s, got %s", #call,           \
			    kt_first(want_first), kt_first(first));                    \
	} while (0)

static struct kt_waiter th;

/* A thread in TIMELINE_WAIT on all of the fixture's handles and these
 * points, which it takes (and frees). */
static void start_waiter(uint64_t *points, uint32_t flags)
{
	kt_waiter_start(&th, fix.fd, true, fix.h, points, fix.n, flags);
	free(points);
}

int main(int argc, char **argv)
{
	kt_init("syncobj-timeline-wait", argc, argv);

	kt_subtest("count-zero-returns-0") {
		static struct kt_arr h, p;
		uint32_t first;

		kt_fix_make_all(&fix, 0, kt_timeline(10, 0, 0));
		for (int kind = KT_PTR_OK; kind <= KT_PTR_KERNEL; kind++) {
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, kind, NULL, 4, 0, 0);
			kt_arr_make(&p, kind, NULL, 8, 0, 0);
			expect(wait_case(&h, &p, NULL, 0, ANY, T0, &first), 0, first, KT_FIRST_UNSET);
			expect(wait_case(&h, &p, NULL, 0, ALL | AVAILABLE, T0, &first), 0, first,
			       KT_FIRST_UNSET);
		}
		expect(wait_case(&h, &p, NULL, 0, 1u << 4, T0, &first), -EINVAL, first,
		       KT_FIRST_UNSET);
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("invalid-flags") {
		static const uint32_t bad[] = { 1u << 4, 1u << 31, ALL | AVAILABLE | (1u << 5) };
		uint32_t first;

		kt_fix_make_all(&fix, 1, kt_timeline(10, 0, 0));
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			expect(wait_all_at(10, NONE, 0, bad[i], T0, &first), -EINVAL, first,
			       KT_FIRST_UNSET);
	}

	kt_subtest("signaled-points") {
		/* Timelines signalled up to 10: points 10, 5 (earlier), 1 and 0
		 * (the latest fence) are all signalled. */
		static const uint64_t pts[] = { 10, 5, 1, 0 };
		static const uint32_t flags[] = { ANY, ALL, ALL | FOR_SUBMIT, ALL | AVAILABLE };
		uint32_t first;

		for (size_t c = 1; c < kt_ncounts; c++) {
			kt_fix_make_all(&fix, kt_counts[c], kt_timeline(10, 0, 0));
			for (size_t i = 0; i < 4; i++)
				for (size_t f = 0; f < 4; f++)
					expect(wait_all_at(pts[i], NONE, 0, flags[f], T0, &first), 0,
					       first, 0);
		}
	}

	kt_subtest("points-null-means-zero") {
		/* points == NULL waits as if every point were 0 (the latest fence). */
		static struct kt_arr h, p;
		uint32_t first;

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
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
				expect(wait_case(&h, &p, NULL, n, ANY, T0, &first), want, first, wf);
				expect(wait_case(&h, &p, NULL, n, ALL, T0, &first), want, first, wf);
				/* available, though not signalled */
				expect(wait_case(&h, &p, NULL, n, ALL | AVAILABLE, T0, &first), 0,
				       first, 0);
			}
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("first-signaled-any") {
		/* Signalled up to 10, point 20 pending everywhere: wait for 20
		 * except at k, where 10 is asked for. */
		uint32_t first, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			kt_fix_make_all(&fix, n, kt_timeline(10, 20, 1));
			for (int p = 0; p < m; p++) {
				expect(wait_all_at(20, pos[p], 10, ANY, T0, &first), 0, first, pos[p]);
				expect(wait_all_at(20, pos[p], 10, ALL, T0, &first),
				       n == 1 ? 0 : -ETIME, first, n == 1 ? 0 : KT_FIRST_UNSET);
			}
			/* pending but submitted: WAIT_AVAILABLE is satisfied */
			expect(wait_all_at(20, NONE, 0, ALL | AVAILABLE, T0, &first), 0, first, 0);
			expect(wait_all_at(20, NONE, 0, ANY | AVAILABLE, T0, &first), 0, first, 0);
			expect(wait_all_at(20, NONE, 0, ALL, T0, &first), -ETIME, first,
			       KT_FIRST_UNSET);
		}
	}

	kt_subtest("unsubmitted-point") {
		/* Signalled up to 10; point 11 at k is not submitted. Without
		 * WAIT_FOR_SUBMIT/WAIT_AVAILABLE that is EINVAL (even if others
		 * are signalled); with either it is waited for. */
		uint32_t first, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			for (int p = 0; p < m; p++) {
				uint32_t k = pos[p], other = k == 0 ? 1 : 0;
				expect(wait_all_at(10, k, 11, ANY, T0, &first), -EINVAL, first,
				       KT_FIRST_UNSET);
				expect(wait_all_at(10, k, 11, ALL, T0, &first), -EINVAL, first,
				       KT_FIRST_UNSET);
				for (int f = 0; f < 2; f++) {
					uint32_t fl = f ? AVAILABLE : FOR_SUBMIT;
					if (n == 1)
						expect(wait_all_at(10, k, 11, ANY | fl, T0, &first),
						       -ETIME, first, KT_FIRST_UNSET);
					else
						expect(wait_all_at(10, k, 11, ANY | fl, T0, &first), 0,
						       first, other);
					expect(wait_all_at(10, k, 11, ALL | fl, T0, &first), -ETIME,
					       first, KT_FIRST_UNSET);
				}
			}
		}
	}

	kt_subtest("no-fence") {
		/* A syncobj without any fence behaves like an unsubmitted point. */
		uint32_t first, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			for (int p = 0; p < m; p++) {
				uint32_t k = pos[p];
				struct only o = { k, kt_none(), kt_timeline(10, 0, 0) };
				kt_fix_make(&fix, n, spec_only, &o);
				expect(wait_all_at(10, k, 1, ANY, T0, &first), -EINVAL, first,
				       KT_FIRST_UNSET);
				expect(wait_all_at(0, NONE, 0, ANY | FOR_SUBMIT, T0, &first),
				       n == 1 ? -ETIME : 0, first,
				       n == 1 ? KT_FIRST_UNSET : k == 0 ? 1 : 0);
				expect(wait_all_at(0, NONE, 0, ALL | AVAILABLE, T0, &first), -ETIME,
				       first, KT_FIRST_UNSET);
			}
		}
	}

	kt_subtest("invalid-handle") {
		uint32_t first, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			uint64_t *pts = points_k(n, 10, NONE, 0);
			for (int p = 0; p < m; p++) {
				expect(wait_pts(pts, ANY, T0, pos[p], &first), -ENOENT, first,
				       KT_FIRST_UNSET);
				expect(wait_pts(pts, ALL | AVAILABLE, T0, pos[p], &first), -ENOENT,
				       first, KT_FIRST_UNSET);
			}
			free(pts);
		}
	}

	kt_subtest("bad-handles-pointer") {
		static struct kt_arr h, p;
		uint32_t first, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			uint64_t *pts = points_k(n, 10, NONE, 0);
			kt_arr_free(&p);
			kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
			for (int kind = KT_PTR_NULL; kind <= KT_PTR_FAULT_SPLIT; kind++) {
				if (kind == KT_PTR_READONLY)
					continue;
				int reps = kind >= KT_PTR_FAULT ? m : 1;
				for (int r = 0; r < reps; r++) {
					kt_arr_free(&h);
					kt_arr_make(&h, kind, fix.h, 4, n, pos[r]);
					expect(wait_case(&h, &p, pts, n, ANY, T0, &first), -EFAULT,
					       first, KT_FIRST_UNSET);
				}
			}
			free(pts);
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("bad-points-pointer") {
		/* NULL is allowed (all zeros); unmapped, kernel, or an array that
		 * faults at element k fail with EFAULT before any waiting. */
		static struct kt_arr h, p;
		uint32_t first, pos[3];

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			int m = kt_positions(n, pos);
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			uint64_t *pts = points_k(n, 10, NONE, 0);
			kt_arr_free(&h);
			kt_arr_make(&h, KT_PTR_OK, fix.h, 4, n, 0);
			for (int kind = KT_PTR_UNMAPPED; kind <= KT_PTR_FAULT_SPLIT; kind++) {
				if (kind == KT_PTR_READONLY)
					continue;
				int reps = kind >= KT_PTR_FAULT ? m : 1;
				for (int r = 0; r < reps; r++) {
					kt_arr_free(&p);
					kt_arr_make(&p, kind, pts, 8, n, pos[r]);
					expect(wait_case(&h, &p, pts, n, ANY, T0, &first), -EFAULT,
					       first, KT_FIRST_UNSET);
					expect(wait_case(&h, &p, pts, n, ALL | FOR_SUBMIT, T0, &first),
					       -EFAULT, first, KT_FIRST_UNSET);
				}
			}
			/* read-only points are fine: the kernel only reads them */
			kt_arr_free(&p);
			kt_arr_make(&p, KT_PTR_READONLY, pts, 8, n, 0);
			expect(wait_case(&h, &p, pts, n, ANY, T0, &first), 0, first, 0);
			free(pts);
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("errors-in-two-arrays") {
		/* Which error wins when there are two. 6.12 looks up all handles
		 * (ENOENT) before it reads any point, and reads all points
		 * (EFAULT) before it looks at any fence (EINVAL). */
		static struct kt_arr h, p;
		static const uint32_t ns[] = { 2, 4, 5, 64 };
		uint32_t first;

		for (size_t c = 0; c < 4; c++) {
			uint32_t n = ns[c];
			/* unused handle at 1 + points faulting at n/2 */
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			uint64_t *pts = points_k(n, 10, NONE, 0);
			uint32_t *hs = kt_handles(&fix, 1);
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, KT_PTR_OK, hs, 4, n, 0);
			snprintf(h.desc, sizeof(h.desc), "bad@1");
			kt_arr_make(&p, KT_PTR_FAULT, pts, 8, n, n / 2);
			expect(wait_case(&h, &p, pts, n, ANY, T0, &first), -ENOENT, first,
			       KT_FIRST_UNSET);
			free(hs);
			/* unsubmitted point at 0 (EINVAL) + points faulting at n/2 */
			pts[0] = 11;
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, KT_PTR_OK, fix.h, 4, n, 0);
			kt_arr_make(&p, KT_PTR_FAULT, pts, 8, n, n / 2);
			int ret = wait_case(&h, &p, pts, n, ANY, T0, &first);
			sw_assert_f(ret == -EFAULT || ret == -EINVAL, "got %s", kt_ret(ret));
			/* handles faulting at n/2 with an unused handle before it */
			hs = kt_handles(&fix, 0);
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, KT_PTR_FAULT, hs, 4, n, n / 2);
			size_t l = strlen(h.desc);
			snprintf(h.desc + l, sizeof(h.desc) - l, ",bad@0");
			kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
			ret = wait_case(&h, &p, pts, n, ANY, T0, &first);
			sw_assert_f(ret == -EFAULT || ret == -ENOENT, "got %s", kt_ret(ret));
			free(hs);
			free(pts);
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("timeouts") {
		uint32_t first;

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			kt_fix_make_all(&fix, n, kt_timeline(10, 20, 1));
			for (int f = 0; f < 2; f++) {
				uint32_t flags = f ? ALL : ANY;
				struct timeout past = { "past", 1 }, past2 = { "past-20ms", 20000000 };
				expect(wait_all_at(20, NONE, 0, flags, T0, &first), -ETIME, first,
				       KT_FIRST_UNSET);
				expect(wait_all_at(20, NONE, 0, flags, past, &first), -ETIME, first,
				       KT_FIRST_UNSET);
				expect(wait_all_at(20, NONE, 0, flags, past2, &first), -ETIME, first,
				       KT_FIRST_UNSET);
				/* an unsubmitted point with WAIT_FOR_SUBMIT times out too */
				expect(wait_all_at(21, NONE, 0, flags | FOR_SUBMIT, past, &first),
				       -ETIME, first, KT_FIRST_UNSET);
				int64_t start = sw_clock_ns(CLOCK_MONOTONIC);
				struct timeout small = { "now+20ms", start + 20000000 };
				expect(wait_all_at(20, NONE, 0, flags, small, &first), -ETIME, first,
				       KT_FIRST_UNSET);
				int64_t took = sw_clock_ns(CLOCK_MONOTONIC) - start;
				kt_check_timed_wait(took, 20000000, n);
			}
		}
	}

	kt_subtest("signaled-later") {
		/* A thread sleeps in TIMELINE_WAIT for point 20 (pending, seqno
		 * 1 at k, 2 elsewhere); the CPU signals seqno 1. */
		uint32_t pos[3];

		for (size_t c = 0; c < KT_N_LATER; c++) {
			uint32_t n = kt_later_counts[c];
			int m = kt_positions(n, pos);
			for (int p = 0; p < m; p++) {
				for (int all = 0; all < 2; all++) {
					struct only o = { pos[p], kt_timeline(10, 20, 1),
							  kt_timeline(10, 20, 2) };
					kt_fix_make(&fix, n, spec_only, &o);
					start_waiter(points_k(n, 20, NONE, 0), all ? ALL : ANY);
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
					      n, all ? "ALL" : "ANY", pos[p], kt_pos_name(n, pos[p]),
					      all && n > 1 ? ",seqno2" : "", b1, b2, kt_ret(th.ret),
					      kt_first(kt_waiter_first(&th)), st);
					free(st);
					sw_assert_f(b1 && b2, "n=%u: the waiter was not asleep", n);
					sw_assert_f(th.ret == 0, "n=%u: got %s", n, kt_ret(th.ret));
					if (!all)
						sw_assert_eq(kt_waiter_first(&th), pos[p]);
				}
			}
		}
	}

	kt_subtest("wait-for-submit-later") {
		/* WAIT_FOR_SUBMIT on point 15 (timelines at 10): it sleeps while
		 * the point is missing, keeps sleeping once it is submitted but
		 * pending, and returns when it signals. */
		uint32_t pos[3];

		for (size_t c = 0; c < KT_N_LATER; c++) {
			uint32_t n = kt_later_counts[c];
			int m = kt_positions(n, pos);
			for (int p = 0; p < m; p++) {
				uint32_t k = pos[p];
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
				sw_assert_f(b1 && b2, "n=%u: waiter not asleep (before submit %d, "
					    "after %d)", n, b1, b2);
				sw_assert_f(th.ret == 0, "n=%u: got %s", n, kt_ret(th.ret));
			}
		}
	}

	kt_subtest("wait-available-later") {
		/* WAIT_AVAILABLE|ALL on point 15 everywhere: returns as soon as
		 * the last syncobj gets the point, while every fence is pending. */
		for (size_t c = 0; c < KT_N_LATER; c++) {
			uint32_t n = kt_later_counts[c];
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			start_waiter(points_k(n, 15, NONE, 0), ALL | AVAILABLE);
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

	kt_subtest("old-and-unordered-points") {
		/* Points below what the chain still holds count as signalled. */
		uint32_t first;

		for (size_t c = 1; c < kt_ncounts; c++) {
			uint32_t n = kt_counts[c];
			kt_fix_make_all(&fix, n, kt_timeline(10, 0, 0));
			for (uint32_t i = 0; i < n; i++)
				kt_fix_add_point(&fix, fix.h[i], 20, 0);
			expect(wait_all_at(3, NONE, 0, ALL, T0, &first), 0, first, 0);
			expect(wait_all_at(15, NONE, 0, ALL, T0, &first), 0, first, 0);
			/* a point below the last one added after it */
			for (uint32_t i = 0; i < n; i++)
				kt_fix_add_point(&fix, fix.h[i], 5, 1);
			int r = wait_all_at(20, NONE, 0, ALL, T0, &first);
			sw_assert_f(r == 0 || r == -ETIME || r == -EINVAL, "got %s", kt_ret(r));
			r = wait_all_at(5, NONE, 0, ALL, T0, &first);
			sw_assert_f(r == 0 || r == -ETIME || r == -EINVAL, "got %s", kt_ret(r));
		}
	}

	kt_subtest("duplicate-handles") {
		static const uint32_t ns[] = { 2, 5, 64, 1024 };
		static struct kt_arr h, p;
		uint32_t first;

		for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
			uint32_t n = ns[c];
			kt_fix_make_all(&fix, 1, kt_timeline(10, 20, 1));
			uint32_t *hs = malloc(n * sizeof(*hs));
			uint64_t *pts = malloc(n * sizeof(*pts));
			for (uint32_t i = 0; i < n; i++) {
				hs[i] = fix.h[0];
				pts[i] = i % 2 ? 20 : 10;
			}
			kt_arr_free(&h);
			kt_arr_free(&p);
			kt_arr_make(&h, KT_PTR_OK, hs, 4, n, 0);
			snprintf(h.desc, sizeof(h.desc), "same-handle*%u", n);
			kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
			expect(wait_case(&h, &p, pts, n, ANY, T0, &first), 0, first, 0);
			expect(wait_case(&h, &p, pts, n, ALL, T0, &first), -ETIME, first,
			       KT_FIRST_UNSET);
			expect(wait_case(&h, &p, pts, n, ALL | AVAILABLE, T0, &first), 0, first, 0);
			free(hs);
			free(pts);
		}
		kt_arr_free(&h);
		kt_arr_free(&p);
	}

	kt_subtest("deadline-hint") {
		static const uint32_t ns[] = { 1, 4, 5, 64 };
		const int64_t deadline = 1000000000000ll;
		uint32_t first;

		for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
			uint32_t n = ns[c];
			kt_fix_make_all(&fix, n, kt_timeline(10, 20, 1));
			uint32_t *hs = kt_handles(&fix, NONE);
			uint64_t *pts = points_k(n, 20, NONE, 0);
			int ret = kt_wait_call(fix.fd, true, (uintptr_t)hs, (uintptr_t)pts, n,
					       ALL | DEADLINE, 0, deadline, &first);
			free(hs);
			free(pts);
			uint64_t ns_set = 0;
			bool set = kt_sw_deadline(fix.fence_fd[1], &ns_set);
			kt_tr("n=%u flags=ALL|DEADLINE deadline=1000s timeout=0 points=20 -> ret=%s "
			      "first=%s fence-deadline=%s",
			      n, kt_ret(ret), kt_first(first),
			      !set ? "none" : ns_set == (uint64_t)deadline ? "1000s" : "other");
			expect(ret, -ETIME, first, KT_FIRST_UNSET);
			sw_assert_f(set && ns_set == (uint64_t)deadline,
				    "n=%u: the fence has no deadline of 1000 s", n);
		}
	}

	kt_subtest("max-count") {
		kt_max_count_or_skip();
		uint32_t first, n = KT_MAX_WAIT_COUNT;

		kt_fix_make_all(&fix, n, kt_timeline(10, 20, 1));
		expect(wait_all_at(10, NONE, 0, ALL, T0, &first), 0, first, 0);
		expect(wait_all_at(20, NONE, 0, ALL | AVAILABLE, T0, &first), 0, first, 0);
		expect(wait_all_at(20, n - 1, 10, ANY, T0, &first), 0, first, n - 1);
		expect(wait_all_at(20, n - 1, 10, ALL, T0, &first), -ETIME, first, KT_FIRST_UNSET);
		expect(wait_all_at(10, n - 1, 21, ALL, T0, &first), -EINVAL, first, KT_FIRST_UNSET);
		uint64_t *pts = points_k(n, 10, NONE, 0);
		expect(wait_pts(pts, ANY, T0, n - 1, &first), -ENOENT, first, KT_FIRST_UNSET);
		free(pts);
	}

	kt_subtest("over-max-count") {
		static struct kt_arr h, p;
		uint32_t first, n = KT_MAX_WAIT_COUNT + 1;

		if (!kt_env_flag("SYNCWAY_KT_WARN"))
			sw_skip("triggers a page-allocator WARNING in 6.12; set SYNCWAY_KT_WARN=1");
		kt_fix_make_all(&fix, 1, kt_timeline(10, 0, 0));
		uint32_t *hs = malloc(n * sizeof(*hs));
		uint64_t *pts = malloc(n * sizeof(*pts));
		for (uint32_t i = 0; i < n; i++) {
			hs[i] = fix.h[0];
			pts[i] = 10;
		}
		kt_arr_make(&h, KT_PTR_OK, hs, 4, n, 0);
		snprintf(h.desc, sizeof(h.desc), "same-handle*%u", n);
		kt_arr_make(&p, KT_PTR_OK, pts, 8, n, 0);
		int ret = wait_case(&h, &p, pts, n, ALL, T0, &first);
		free(hs);
		free(pts);
		kt_arr_free(&h);
		kt_arr_free(&p);
		sw_assert_f(ret == -ENOMEM || ret == 0, "got %s", kt_ret(ret));
	}

	return kt_exit();
}
