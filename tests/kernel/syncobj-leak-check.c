/* Leak proof for the syncobj array ioctls, meant for the `debug` kernel
 * (kmemleak); it also runs, with the kmemleak subtests skipped, on kernels
 * without kmemleak.
 *
 *   syncobj-leak-check [--ops N] [--tolerance OBJECTS] [--list] [--run GLOB] [--json FILE]
 *
 * 1. kmemleak baseline: scan, record what is already reported (boot-time
 *    suspects; printed, then ignored) and `clear` it.
 * 2. A warm-up round on its own fd (so first-use allocations are not
 *    counted), then a slab snapshot: every kmalloc-* cache shrunk
 *    (/sys/kernel/slab/<cache>/shrink, which flushes the per-CPU slabs so
 *    /proc/slabinfo's active_objs is exact), then active_objs read.
 * 3. The workload: N (default 100 000) calls with 1-5 handles cycling
 *    through twelve kinds — successful WAIT/TIMELINE_WAIT/QUERY/RESET/
 *    SIGNAL/TIMELINE_SIGNAL, waits that time out after arming fence
 *    callbacks or WAIT_FOR_SUBMIT entries, and failing calls (unused handle,
 *    faulting handles or points) — each checked for its expected result.
 *    Then every fd is closed.
 * 4. Slab balance: shrink and read again until the difference per cache is
 *    within the tolerance (freed-by-RCU objects arrive late: kfree_rcu
 *    batches drain after up to 5 s), for at most 20 s.
 * 5. kmemleak: after the 5 s minimum object age, scan twice and read the
 *    report. No entry's backtrace may involve drm_syncobj / dma_fence;
 *    anything else new is reported by its own subtest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt.h"

static struct {
	bool done;
	bool has_kmemleak;
	char no_kmemleak[256];
	char *boot_report;     /* what kmemleak held before the workload */
	char *after_report;    /* and after it */
	int boot_entries;
	struct kt_slab_snap before;
	bool shrink_ok;
	double seconds;
	uint64_t ops;
} st;

static uint64_t opt_ops = 100000;
static long opt_tolerance = 256;
/* --self-test-leak N: keep N extra syncobjs (kmalloc'd, still referenced)
 * alive across the second snapshot, so slab-kmalloc-balance must fail: shows
 * the check can see a leak of that size. */
static uint32_t opt_self_leak;

/* ---- the workload -------------------------------------------------------------------- */

enum kind {
	K_WAIT_SIGNALED, K_WAIT_PENDING_ETIME, K_TWAIT_SIGNALED, K_TWAIT_SUBMIT_ETIME, K_QUERY,
	K_RESET, K_SIGNAL, K_TSIGNAL, K_WAIT_BAD_HANDLE, K_TSIGNAL_FAULT, K_QUERY_FAULT,
	K_TWAIT_HANDLES_FAULT, K_N
};

struct work {
	int fd, timeline;
	uint32_t sig[5], pend[5], tl[5], target[5], tsig[5];
	uint32_t bad[5]; /* sig[] with an unused handle last */
	uint64_t ones[5], far[5], out[5], next_point;
	struct kt_fault pfault[6], hfault[6]; /* [n]: faulting at n-1 */
};

static void work_setup(struct work *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = kt_open();
	w->timeline = kt_sw_timeline();
	int fence = kt_sw_fence(w->timeline, 1); /* never signalled */
	uint32_t src = kt_create(w->fd, DRM_SYNCOBJ_CREATE_SIGNALED);
	for (int i = 0; i < 5; i++) {
		w->sig[i] = kt_create(w->fd, DRM_SYNCOBJ_CREATE_SIGNALED);
		w->pend[i] = kt_create(w->fd, 0);
		struct drm_syncobj_handle imp = {
			.handle = w->pend[i],
			.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
			.fd = fence,
		};
		sw_assert(kt_ioctl(w->fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp) == 0);
		w->tl[i] = kt_create(w->fd, 0);
		struct drm_syncobj_transfer t = { .src_handle = src, .dst_handle = w->tl[i],
						  .dst_point = 1 };
		sw_assert(kt_ioctl(w->fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &t) == 0);
		w->target[i] = kt_create(w->fd, 0);
		w->tsig[i] = kt_create(w->fd, 0);
		w->ones[i] = 1;
		w->far[i] = 1000000000;
	}
	close(fence);
	memcpy(w->bad, w->sig, sizeof(w->bad));
	for (uint32_t n = 1; n <= 5; n++) {
		kt_fault_make(&w->pfault[n], 8, n, n - 1, false);
		kt_fault_fill(&w->pfault[n], w->ones, n * 8);
		kt_fault_make(&w->hfault[n], 4, n, n - 1, false);
		kt_fault_fill(&w->hfault[n], w->tl, n * 4);
	}
	w->next_point = 1;
}

static void work_free(struct work *w)
{
	for (int n = 1; n <= 5; n++) {
		kt_fault_free(&w->pfault[n]);
		kt_fault_free(&w->hfault[n]);
	}
	close(w->fd);
	close(w->timeline); /* signals the pending fence (-ENOENT) */
}

static void work_op(struct work *w, uint64_t i)
{
	enum kind k = (enum kind)(i % K_N);
	uint32_t n = (uint32_t)(1 + (i / K_N) % 5), first;
	int ret, want = 0;

	switch (k) {
	case K_WAIT_SIGNALED:
		ret = kt_wait_call(w->fd, false, (uintptr_t)w->sig, 0, n, 0, 0, 0, &first);
		break;
	case K_WAIT_PENDING_ETIME:
		ret = kt_wait_call(w->fd, false, (uintptr_t)w->pend, 0, n,
				   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0, 0, &first);
		want = -ETIME;
		break;
	case K_TWAIT_SIGNALED:
		ret = kt_wait_call(w->fd, true, (uintptr_t)w->tl, (uintptr_t)w->ones, n,
				   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0, 0, &first);
		break;
	case K_TWAIT_SUBMIT_ETIME:
		ret = kt_wait_call(w->fd, true, (uintptr_t)w->tl, (uintptr_t)w->far, n,
				   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0, 0, &first);
		want = -ETIME;
		break;
	case K_QUERY:
		ret = kt_array_call(w->fd, DRM_IOCTL_SYNCOBJ_QUERY, (uintptr_t)w->tl,
				    (uintptr_t)w->out, n, 0);
		break;
	case K_RESET:
		ret = kt_array_call(w->fd, DRM_IOCTL_SYNCOBJ_RESET, (uintptr_t)w->target, 0, n, 0);
		break;
	case K_SIGNAL:
		ret = kt_array_call(w->fd, DRM_IOCTL_SYNCOBJ_SIGNAL, (uintptr_t)w->target, 0, n, 0);
		break;
	case K_TSIGNAL: {
		uint64_t p[5];
		w->next_point++;
		for (uint32_t j = 0; j < n; j++)
			p[j] = w->next_point;
		ret = kt_array_call(w->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, (uintptr_t)w->tsig,
				    (uintptr_t)p, n, 0);
		break;
	}
	case K_WAIT_BAD_HANDLE:
		w->bad[n - 1] = 0; /* handle 0 is never valid */
		ret = kt_wait_call(w->fd, false, (uintptr_t)w->bad, 0, n, 0, 0, 0, &first);
		w->bad[n - 1] = w->sig[n - 1];
		want = -ENOENT;
		break;
	case K_TSIGNAL_FAULT:
		ret = kt_array_call(w->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, (uintptr_t)w->tsig,
				    (uintptr_t)w->pfault[n].array, n, 0);
		want = -EFAULT;
		break;
	case K_QUERY_FAULT:
		ret = kt_array_call(w->fd, DRM_IOCTL_SYNCOBJ_QUERY, (uintptr_t)w->tl,
				    (uintptr_t)w->pfault[n].array, n, 0);
		want = -EFAULT;
		break;
	default:
		ret = kt_wait_call(w->fd, true, (uintptr_t)w->hfault[n].array, (uintptr_t)w->ones,
				   n, 0, 0, 0, &first);
		want = -EFAULT;
		break;
	}
	sw_assert_f(ret == want, "operation %llu (kind %d, %u handles): %s, expected %s",
		    (unsigned long long)i, (int)k, n, kt_ret(ret), kt_ret(want));
}

static void run_work(uint64_t ops)
{
	static struct work w;

	work_setup(&w);
	for (uint64_t i = 0; i < ops; i++)
		work_op(&w, i);
	work_free(&w);
}

static void test_workload(void)
{
	st.has_kmemleak = kt_kmemleak_usable(st.no_kmemleak, sizeof(st.no_kmemleak));
	if (st.has_kmemleak) {
		/* boot-time suspects: recorded, printed, then cleared */
		st.boot_report = kt_slurp(KT_KMEMLEAK);
		st.boot_entries = st.boot_report ? kt_kmemleak_entries(st.boot_report) : 0;
		printf("# kmemleak before the workload: %d suspect(s)%s\n", st.boot_entries,
		       st.boot_entries ? " (ignored from here on):" : "");
		if (st.boot_entries)
			kt_kmemleak_print(st.boot_report, "#   ");
		sw_assert_f(kt_write_str(KT_KMEMLEAK, "clear") == 0, "kmemleak clear failed");
	} else {
		printf("# %s\n", st.no_kmemleak);
	}
	run_work(1000); /* warm-up */
	/* let the warm-up's RCU-deferred frees land first */
	kt_slab_settle(&st.before);
	st.shrink_ok = kt_slab_snapshot(&st.before);
	int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
	run_work(opt_ops);
	if (opt_self_leak) {
		int fd = kt_open(); /* never closed: the "leak" */
		for (uint32_t i = 0; i < opt_self_leak; i++)
			kt_create(fd, 0);
		printf("# self-test: %u syncobjs left alive on purpose\n", opt_self_leak);
	}
	st.seconds = (sw_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	st.ops = opt_ops;
	printf("# %llu operations in %.1f s (%.1f us each)\n", (unsigned long long)opt_ops,
	       st.seconds, st.seconds * 1e6 / (double)(opt_ops ? opt_ops : 1));
	st.done = true;
}

/* A leak of one object in any one kind of call at one count leaves ops/60
 * objects (1666 for 100 000 operations); unrelated activity between the
 * snapshots (the guest is otherwise idle) is tens of objects. Default
 * tolerance: 256 per cache. */
static void test_slab_kmalloc_balance(void)
{
	static struct kt_slab_snap after;
	const char *worst_name;

	if (!st.done)
		sw_skip("the workload subtest did not run");
	double waited = kt_slab_settle(&after);
	long worst = kt_slab_worst_growth(&st.before, &after, &worst_name);
	printf("# kmalloc caches, active objects before -> after (settled %.1f s after the "
	       "workload%s):\n",
	       waited,
	       st.shrink_ok ? "" : "; /sys/kernel/slab/*/shrink unavailable: per-CPU "
				   "slabs count as used");
	kt_slab_print(&st.before, &after);
	sw_assert_f(worst <= opt_tolerance,
		    "%s grew by %ld objects over %llu operations (tolerance %ld)",
		    worst_name, worst, (unsigned long long)st.ops, opt_tolerance);
}

static void test_kmemleak_no_syncobj_leaks(void)
{
	static const char *const words[] = { "drm_syncobj", "dma_fence", NULL };
	static char *report;

	if (!st.done)
		sw_skip("the workload subtest did not run");
	if (!st.has_kmemleak)
		sw_skip("%s", st.no_kmemleak);
	free(report);
	report = kt_kmemleak_scan();
	int all = kt_kmemleak_entries(report), sync = kt_kmemleak_matching(report, words);
	printf("# kmemleak after the workload: %d new suspect(s), %d involving "
	       "syncobjs/fences\n",
	       all, sync);
	kt_kmemleak_print(report, "#   ");
	st.after_report = report; /* for the next subtest */
	sw_assert_f(sync == 0, "%d kmemleak reports involve drm_syncobj/dma_fence", sync);
}

static void test_kmemleak_nothing_new(void)
{
	if (!st.done)
		sw_skip("the workload subtest did not run");
	if (!st.has_kmemleak)
		sw_skip("%s", st.no_kmemleak);
	if (!st.after_report)
		sw_skip("kmemleak-no-syncobj-leaks did not run");
	int all = kt_kmemleak_entries(st.after_report);
	sw_assert_f(all == 0, "%d new kmemleak suspects (none involving syncobjs; listed "
		    "above)", all);
}

int main(int argc, char **argv)
{
	const char *v;

	if ((v = kt_take_option(&argc, argv, "--ops")))
		opt_ops = strtoull(v, NULL, 10);
	if ((v = kt_take_option(&argc, argv, "--self-test-leak")))
		opt_self_leak = (uint32_t)strtoul(v, NULL, 10);
	if ((v = kt_take_option(&argc, argv, "--tolerance")))
		opt_tolerance = strtol(v, NULL, 10);
	kt_init("syncobj-leak-check", argc, argv);

	kt_subtest("workload") test_workload();
	kt_subtest("slab-kmalloc-balance") test_slab_kmalloc_balance();
	kt_subtest("kmemleak-no-syncobj-leaks") test_kmemleak_no_syncobj_leaks();
	kt_subtest("kmemleak-nothing-new") test_kmemleak_nothing_new();

	return kt_exit();
}
