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
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"
#define NCACHES 64

struct slab_snap {
	int n;
	char name[NCACHES][64];
	long active[NCACHES];
};

static struct {
	bool done;
	bool has_kmemleak;
	char no_kmemleak[256];
	char *boot_report;     /* what kmemleak held before the workload */
	char *after_report;    /* and after it */
	int boot_entries;
	struct slab_snap before;
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

/* ---- files -------------------------------------------------------------------- */

static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	for (;;) {
		if (n + 4096 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* ---- slab counters ---------------------------------------------------------------- */

static bool is_kmalloc_cache(const char *name)
{
	return strstr(name, "kmalloc-") != NULL;
}

/* Shrinks every kmalloc cache (returns false if /sys/kernel/slab is absent)
 * and reads active_objs from /proc/slabinfo. */
static bool slab_snapshot(struct slab_snap *s)
{
	char *text = slurp("/proc/slabinfo");
	bool shrunk = true;

	sw_assert_f(text, "cannot read /proc/slabinfo: %m");
	s->n = 0;
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0 shrinks, pass 1 reads what is left */
		char *copy = strdup(text);
		for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
			char name[64];
			long active;
			if (sscanf(line, "%63s %ld", name, &active) != 2 || !is_kmalloc_cache(name))
				continue;
			if (pass == 0) {
				char path[128];
				snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
				if (write_str(path, "1") != 0)
					shrunk = false;
			} else if (s->n < NCACHES) {
				snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
				s->active[s->n++] = active;
			}
		}
		free(copy);
		if (pass == 0) {
			free(text);
			text = slurp("/proc/slabinfo");
			sw_assert(text);
		}
	}
	free(text);
	return shrunk;
}

static long snap_get(const struct slab_snap *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return s->active[i];
	return 0;
}

static long snap_total(const struct slab_snap *s)
{
	long t = 0;
	for (int i = 0; i < s->n; i++)
		t += s->active[i];
	return t;
}

/* Snapshots every 0.5 s until the kmalloc caches stop shrinking: at least
 * 7 s (kfree_rcu batches drain every 5 s, then wait for a grace period),
 * then until two readings in a row do not go down, at most 20 s. Returns
 * the seconds waited; *s holds the last reading. */
static double settle(struct slab_snap *s)
{
	int64_t start = sw_clock_ns(CLOCK_MONOTONIC);
	long prev = -1;

	for (;;) {
		slab_snapshot(s);
		long total = snap_total(s);
		double t = (sw_clock_ns(CLOCK_MONOTONIC) - start) / 1e9;
		if ((t >= 7.0 && prev >= 0 && total >= prev) || t > 20.0)
			return t;
		prev = total;
		kt_sleep_ms(500);
	}
}

/* ---- kmemleak ----------------------------------------------------------------------- */

static void kmemleak_probe(void)
{
	if (access(KMEMLEAK, F_OK) != 0) {
		snprintf(st.no_kmemleak, sizeof(st.no_kmemleak),
			 "this kernel has no kmemleak (%s: CONFIG_DEBUG_KMEMLEAK is off)", KMEMLEAK);
		return;
	}
	int ret = write_str(KMEMLEAK, "scan");
	if (ret != 0) {
		snprintf(st.no_kmemleak, sizeof(st.no_kmemleak),
			 "kmemleak is present but not usable (scan: %s; disabled at boot or "
			 "after an error?)", kt_ret(ret));
		return;
	}
	st.has_kmemleak = true;
}

static int count_entries(const char *report)
{
	int n = 0;
	for (const char *p = report; (p = strstr(p, "unreferenced object")); p++)
		n++;
	return n;
}

/* The first few backtrace frames of each entry, one line per entry. */
static void print_entries(const char *report, const char *prefix)
{
	const char *p = report;

	while ((p = strstr(p, "unreferenced object"))) {
		const char *end = strstr(p + 1, "unreferenced object");
		const char *bt = strstr(p, "backtrace");
		char line[512];
		size_t m = (size_t)snprintf(line, sizeof(line), "%s%.*s frames:", prefix,
					    (int)strcspn(p, "\n"), p);
		int frames = 0;
		if (bt && (!end || bt < end)) {
			const char *q = strchr(bt, '\n');
			while (q && (!end || q < end) && frames < 6 && m + 2 < sizeof(line)) {
				q++;
				while (*q == ' ')
					q++;
				size_t l = strcspn(q, "\n");
				if (l == 0)
					break;
				/* "[<ffff...>] func+0x../0x.." -> "func" */
				const char *f = strstr(q, "] ");
				f = f && (size_t)(f - q) < l ? f + 2 : q;
				size_t fl = strcspn(f, "+\n ");
				m += (size_t)snprintf(line + m, sizeof(line) - m, " %.*s", (int)fl, f);
				frames++;
				q = strchr(q, '\n');
			}
		}
		printf("%s\n", line);
		p += 1;
	}
}

/* How many entries have drm_syncobj or dma_fence code in their backtrace
 * (only the backtrace: the comm line names this program, "syncobj-leak-ch"). */
static int count_syncobj_entries(const char *report)
{
	static const char *const words[] = { "drm_syncobj", "dma_fence" };
	int n = 0;
	const char *p = report;

	while ((p = strstr(p, "unreferenced object"))) {
		const char *end = strstr(p + 1, "unreferenced object");
		const char *bt = strstr(p, "backtrace");
		if (bt && (!end || bt < end)) {
			size_t len = end ? (size_t)(end - bt) : strlen(bt);
			for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
				const char *hit = strstr(bt, words[w]);
				if (hit && (size_t)(hit - bt) < len) {
					n++;
					break;
				}
			}
		}
		p += 1;
	}
	return n;
}

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
	kmemleak_probe();
	if (st.has_kmemleak) {
		/* boot-time suspects: recorded, printed, then cleared */
		st.boot_report = slurp(KMEMLEAK);
		st.boot_entries = st.boot_report ? count_entries(st.boot_report) : 0;
		printf("# kmemleak before the workload: %d suspect(s)%s\n", st.boot_entries,
		       st.boot_entries ? " (ignored from here on):" : "");
		if (st.boot_entries)
			print_entries(st.boot_report, "#   ");
		sw_assert_f(write_str(KMEMLEAK, "clear") == 0, "kmemleak clear failed");
	} else {
		printf("# %s\n", st.no_kmemleak);
	}
	run_work(1000); /* warm-up */
	/* let the warm-up's RCU-deferred frees land first */
	settle(&st.before);
	st.shrink_ok = slab_snapshot(&st.before);
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
	static struct slab_snap after;
	long worst = 0;
	const char *worst_name = "";

	if (!st.done)
		sw_skip("the workload subtest did not run");
	double waited = settle(&after);
	for (int i = 0; i < after.n; i++) {
		long d = after.active[i] - snap_get(&st.before, after.name[i]);
		if (d > worst) {
			worst = d;
			worst_name = after.name[i];
		}
	}
	printf("# kmalloc caches, active objects before -> after (settled %.1f s after the "
	       "workload%s):\n",
	       waited,
	       st.shrink_ok ? "" : "; /sys/kernel/slab/*/shrink unavailable: per-CPU "
				   "slabs count as used");
	for (int i = 0; i < after.n; i++) {
		long b = snap_get(&st.before, after.name[i]);
		if (b || after.active[i])
			printf("#   %-24s %8ld -> %8ld  (%+ld)\n", after.name[i], b,
			       after.active[i], after.active[i] - b);
	}
	sw_assert_f(worst <= opt_tolerance,
		    "%s grew by %ld objects over %llu operations (tolerance %ld)",
		    worst_name, worst, (unsigned long long)st.ops, opt_tolerance);
}

static void test_kmemleak_no_syncobj_leaks(void)
{
	static char *report;

	if (!st.done)
		sw_skip("the workload subtest did not run");
	if (!st.has_kmemleak)
		sw_skip("%s", st.no_kmemleak);
	/* kmemleak reports objects older than 5 s only */
	kt_sleep_ms(6000);
	sw_assert_f(write_str(KMEMLEAK, "scan") == 0, "kmemleak scan failed");
	sw_assert_f(write_str(KMEMLEAK, "scan") == 0, "kmemleak scan failed");
	free(report);
	report = slurp(KMEMLEAK);
	sw_assert(report);
	int all = count_entries(report), sync = count_syncobj_entries(report);
	printf("# kmemleak after the workload: %d new suspect(s), %d involving "
	       "syncobjs/fences\n",
	       all, sync);
	print_entries(report, "#   ");
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
	int all = count_entries(st.after_report);
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
