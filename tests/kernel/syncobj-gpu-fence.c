/* The syncobj ioctls on fences the GPU driver signals.
 *
 * The rest of the suite waits on sw_sync fences, which the CPU signals from
 * the test itself. Here every fence under test is a GPU job's
 * (kt_gpu_fence.c: under virtio-gpu with virgl, virtio_gpu's dma_fence,
 * signalled from the driver's dequeue work once the host has executed the
 * job): WAIT and TIMELINE_WAIT sleep on the driver's fence callbacks,
 * EVENTFD fires from them, and RESET drops a fence the driver still holds.
 *
 * The transcript gets only what is the same on every run: results of
 * blocking waits and of waits that cannot succeed, states and QUERY values
 * read after the job has signalled, whether an exported sync_file holds the
 * job's fence. Whether a job was still pending at some moment, and for how
 * long, depends on the host: that goes to '#' lines on stdout, never into
 * the transcript or a verdict. All syncobj ioctls go through
 * common/syncobj.c (kt_state1, the state read-back, excepted). */
#include <errno.h>
#include <dirent.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kt.h"
#include "kt_gpu_fence.h"
#include "syncobj.h"

#define ANY 0u
#define ALL DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
#define FOR_SUBMIT DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
#define AVAILABLE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE

/* A blocking wait's limit: far beyond any job, short enough that a lost
 * wake-up fails the subtest instead of the run's timeout. */
#define LONG_MS 30000

/* One GPU job: its sync_file and when it was flushed. */
struct job {
	int sf;
	int64_t flushed_ns;
};

/* What a subtest holds, static (a failed check longjmps out) and released
 * by begin()/end(). */
static struct {
	int fd;
	struct job job[8];
	int njobs;
	int timeline, sw_fence, efd, export_fd;
} t = { .fd = -1, .timeline = -1, .sw_fence = -1, .efd = -1, .export_fd = -1 };
static struct sw_syncobj_stats stats;

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Releases what the last subtest held. Jobs are waited for first, so that
 * the next subtest's jobs do not queue behind them on the host. */
static void end(void)
{
	for (int i = 0; i < t.njobs; i++) {
		kt_sync_wait(t.job[i].sf, LONG_MS);
		close_fd(&t.job[i].sf);
	}
	t.njobs = 0;
	close_fd(&t.sw_fence);
	close_fd(&t.timeline);
	close_fd(&t.efd);
	close_fd(&t.export_fd);
	close_fd(&t.fd);
}

/* Every subtest starts here: skips without GPU fences, else a fresh fd. */
static void begin(void)
{
	end();
	kt_gpu_require();
	t.fd = kt_open();
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* A GPU job: one fence of the driver's, normally still pending. */
static struct job *job_new(void)
{
	struct kt_sync_info si;
	struct job *j;

	sw_assert(t.njobs < (int)(sizeof(t.job) / sizeof(t.job[0])));
	j = &t.job[t.njobs++];
	j->sf = kt_gpu_job();
	j->flushed_ns = sw_clock_ns(CLOCK_MONOTONIC);
	kt_sync_info(j->sf, &si);
	sw_assert_f(si.n == 1 && !strcmp(si.f[0].driver_name, kt_gpu_fence_driver()),
		    "a job's sync_file holds %u fences, the first %s's, not one of %s's", si.n,
		    si.n ? si.f[0].driver_name : "-", kt_gpu_fence_driver());
	return j;
}

static bool pending(const struct job *j)
{
	return kt_sync_status(j->sf) == 0;
}

/* When the job's fence signalled, in ms after its flush (from the fence's
 * own timestamp); -1 if it has not. For '#' lines only. */
static double job_ms(const struct job *j)
{
	struct kt_sync_info si;

	kt_sync_info(j->sf, &si);
	if (si.status != 1 || si.n != 1)
		return -1;
	return (double)((int64_t)si.f[0].timestamp_ns - j->flushed_ns) / 1e6;
}

static double ms_since(int64_t ns)
{
	return (double)(sw_clock_ns(CLOCK_MONOTONIC) - ns) / 1e6;
}

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

static uint32_t create(uint32_t flags)
{
	uint32_t h = 0;
	int ret = sw_syncobj_create(&stats, t.fd, flags, &h);

	sw_assert_f(ret == 0, "SYNCOBJ_CREATE failed: %s", kt_ret(ret));
	return h;
}

static void import(uint32_t h, const struct job *j)
{
	int ret = sw_syncobj_import_sync_file(&stats, t.fd, h, j->sf);

	sw_assert_f(ret == 0, "sync_file import failed: %s", kt_ret(ret));
}

/* The job's sync_file at a timeline point, as syncway puts it there: one
 * FD_TO_HANDLE on Linux 6.16 and later, CREATE, import, TRANSFER, DESTROY
 * before (syncobj-point-import checks which). */
static void import_point(uint32_t h, uint64_t point, const struct job *j)
{
	int ret = sw_syncobj_point_import_sync_file(&stats, t.fd, h, point, j->sf);

	sw_assert_f(ret == 0, "import to point %llu failed: %s", (unsigned long long)point,
		    kt_ret(ret));
}

static uint64_t query(uint32_t h, uint32_t flags)
{
	uint64_t v = KT_UNWRITTEN;
	int ret = sw_syncobj_query(&stats, t.fd, &h, &v, 1, flags);

	sw_assert_f(ret == 0, "QUERY failed: %s", kt_ret(ret));
	return v;
}

static const char *state(uint32_t h)
{
	static char buf[4][64];
	static int slot;

	slot = (slot + 1) % 4;
	return kt_state1(t.fd, h, buf[slot], sizeof(buf[slot]));
}

static int64_t deadline_ms(int ms)
{
	return sw_syncobj_timeout_abs((int64_t)ms * 1000000);
}

/* The sw_sync fence that is never signalled while it is looked at. */
static void sw_fence(void)
{
	t.timeline = kt_sw_timeline();
	t.sw_fence = kt_sw_fence(t.timeline, 1);
}

/* ---- binary syncobjs -------------------------------------------------------- */

/* WAIT on a syncobj holding a GPU fence sleeps until the driver signals it,
 * then returns 0 (first_signaled 0 for ANY; for ALL it is 0 or ~0 depending
 * on whether the first scan found the fence signalled, so not recorded). */
static void test_wait_blocks_until_signaled(void)
{
	static const uint32_t flags[] = { ANY, ALL };
	char fl[32];

	for (size_t i = 0; i < 2; i++) {
		begin();
		uint32_t h = create(0), first = KT_FIRST_UNSET;
		struct job *j = job_new();
		import(h, j);
		bool was_pending = pending(j);
		int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
		int ret = sw_syncobj_wait(&stats, t.fd, &h, 1, deadline_ms(LONG_MS), flags[i],
					  &first);
		double slept = ms_since(t0);
		int status = kt_sync_status(j->sf);

		kt_tr("n=1 flags=%s timeout=30s handles=gpu -> ret=%s%s%s fence=%s state=[%s]",
		      kt_wait_flags(flags[i], fl, sizeof(fl)), kt_ret(ret),
		      flags[i] == ANY ? " first=" : "", flags[i] == ANY ? kt_first(first) : "",
		      kt_sync_letter(status), state(h));
		note("%s: pending when the wait started: %s; the wait took %.1f ms; the fence "
		     "signalled %.1f ms after the flush",
		     fl, yes(was_pending), slept, job_ms(j));
		sw_assert_f(ret == 0, "WAIT %s returned %s", fl, kt_ret(ret));
		sw_assert_f(status == 1, "WAIT %s returned before the fence signalled", fl);
		if (flags[i] == ANY)
			sw_assert_f(first == 0, "first_signaled %s", kt_first(first));
	}
	end();
}

/* WAIT_ANY over a GPU fence and a sw_sync fence nobody signals: the GPU
 * one's index, whichever position it has. */
static void test_wait_any_returns_gpu_index(void)
{
	for (uint32_t k = 0; k < 2; k++) {
		begin();
		sw_fence();
		uint32_t h[2] = { create(0), create(0) }, first = KT_FIRST_UNSET;
		struct job *j = job_new();
		import(h[k], j);
		sw_assert(sw_syncobj_import_sync_file(&stats, t.fd, h[1 - k], t.sw_fence) == 0);
		bool was_pending = pending(j);
		int ret = sw_syncobj_wait(&stats, t.fd, h, 2, deadline_ms(LONG_MS), ANY, &first);

		kt_tr("n=2 flags=ANY timeout=30s handles=[%s] -> ret=%s first=%s state=[%s,%s]",
		      k ? "sw,gpu" : "gpu,sw", kt_ret(ret), kt_first(first), state(h[0]),
		      state(h[1]));
		note("gpu at %u: pending when the wait started: %s; signalled %.1f ms after the "
		     "flush", k, yes(was_pending), job_ms(j));
		sw_assert_f(ret == 0, "WAIT_ANY returned %s", kt_ret(ret));
		sw_assert_f(first == k, "first_signaled %s, the GPU fence is at %u",
			    kt_first(first), k);
	}
	end();
}

/* WAIT_ALL over a GPU fence and a sw_sync fence nobody signals: ETIME
 * (timeout 0 and 300 ms, whether or not the job finishes meanwhile), and
 * both syncobjs still hold the very fences imported: the exported GPU fence
 * carries the job's signal time, and so does the sw_sync one once it is
 * signalled at the end. */
static void test_wait_all_times_out_unchanged(void)
{
	static const int timeouts_ms[] = { 0, 300 };

	begin();
	sw_fence();
	uint32_t h[2] = { create(0), create(0) };
	struct job *j = job_new();
	import(h[0], j);
	sw_assert(sw_syncobj_import_sync_file(&stats, t.fd, h[1], t.sw_fence) == 0);
	for (size_t i = 0; i < 2; i++) {
		uint32_t first = KT_FIRST_UNSET;
		int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
		bool was_pending = pending(j);
		int ret = sw_syncobj_wait(&stats, t.fd, h, 2,
					  timeouts_ms[i] ? deadline_ms(timeouts_ms[i]) : 0, ALL,
					  &first);
		double took = ms_since(t0);

		kt_tr("n=2 flags=ALL timeout=%s handles=[gpu,sw] -> ret=%s first=%s",
		      timeouts_ms[i] ? "now+300ms" : "0", kt_ret(ret), kt_first(first));
		note("timeout %d ms: the job was pending when the wait started: %s; took %.1f ms",
		     timeouts_ms[i], yes(was_pending), took);
		sw_assert_f(ret == -ETIME, "WAIT_ALL returned %s", kt_ret(ret));
		sw_assert_f(first == KT_FIRST_UNSET, "first_signaled written: %s", kt_first(first));
		if (timeouts_ms[i])
			kt_check_timed_wait((int64_t)(took * 1e6), 300000000, 2);
	}
	sw_assert_f(kt_sync_wait(j->sf, LONG_MS), "the job did not signal in 30 s");
	note("the job signalled %.1f ms after the flush", job_ms(j));
	const char *st0 = state(h[0]), *st1 = state(h[1]);
	int e[2] = { -1, -1 };
	for (int i = 0; i < 2; i++)
		sw_assert(sw_syncobj_export_sync_file(&stats, t.fd, h[i], &e[i]) == 0);
	kt_sw_inc(t.timeline, 1);
	bool same0 = kt_sync_same_fence(j->sf, e[0]), same1 = kt_sync_same_fence(t.sw_fence, e[1]);
	close(e[0]);
	close(e[1]);
	kt_tr("after the job: state=[%s,%s] fences=[%s,%s]", st0, st1,
	      same0 ? "same" : "other", same1 ? "same" : "other");
	sw_assert_f(same0 && same1, "a failed WAIT_ALL changed a fence (gpu %s, sw %s)",
		    yes(same0), yes(same1));
	end();
}

/* ---- timeline points -------------------------------------------------------- */

/* A point whose fence is a GPU job (its sync_file imported at point 7):
 * WAIT_AVAILABLE is satisfied at once (timeout 0), a TIMELINE_WAIT for the
 * signal returns 0 after it, and QUERY then reads 7 (last submitted 7). */
static void test_point_available_then_signaled(void)
{
	const uint64_t point = 7;

	begin();
	uint32_t h = create(0), first = KT_FIRST_UNSET;
	struct job *j = job_new();
	import_point(h, point, j);
	int ret_avail = sw_syncobj_timeline_wait(&stats, t.fd, &h, &point, 1, 0, AVAILABLE,
						 &first);
	bool pending_at_available = pending(j);
	uint64_t q_before = query(h, 0);
	int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
	int ret = sw_syncobj_timeline_wait(&stats, t.fd, &h, &point, 1, deadline_ms(LONG_MS), 0,
					   NULL);
	double slept = ms_since(t0);
	uint64_t q = query(h, 0), last = query(h, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED);

	kt_tr("point=7 flags=AVAILABLE timeout=0 -> ret=%s first=%s", kt_ret(ret_avail),
	      kt_first(first));
	kt_tr("point=7 flags=0 timeout=30s -> ret=%s query=%llu last=%llu fence=%s state=[%s]",
	      kt_ret(ret), (unsigned long long)q, (unsigned long long)last,
	      kt_sync_letter(kt_sync_status(j->sf)), state(h));
	note("WAIT_AVAILABLE answered while the job was pending: %s (QUERY then %llu); the "
	     "signal wait took %.1f ms; the fence signalled %.1f ms after the flush",
	     yes(pending_at_available), (unsigned long long)q_before, slept,
	     job_ms(j));
	sw_assert_f(ret_avail == 0 && first == 0, "WAIT_AVAILABLE: %s first %s",
		    kt_ret(ret_avail), kt_first(first));
	sw_assert_f(ret == 0, "TIMELINE_WAIT for the signal returned %s", kt_ret(ret));
	sw_assert_f(q == point && last == point, "QUERY %llu, last submitted %llu",
		    (unsigned long long)q, (unsigned long long)last);
	end();
}

/* Points 1, 2, 3 on three GPU jobs submitted in that order: waiting for each
 * in turn returns 0 with QUERY at least that point, the three fences
 * signalled in submission order (one fence context, the dma_fence rule), and
 * QUERY reads 3 at the end. */
static void test_chain_in_submission_order(void)
{
	struct job *j[3];
	uint64_t q[3];
	int ret[3];
	char pend[4] = "";

	begin();
	uint32_t h = create(0);
	for (int i = 0; i < 3; i++) {
		j[i] = job_new();
		import_point(h, (uint64_t)i + 1, j[i]);
	}
	for (int i = 0; i < 3; i++) {
		uint64_t p = (uint64_t)i + 1;
		pend[i] = pending(j[i]) ? 'P' : 'S';
		ret[i] = sw_syncobj_timeline_wait(&stats, t.fd, &h, &p, 1, deadline_ms(LONG_MS), 0,
						  NULL);
		q[i] = query(h, 0);
		sw_assert_f(ret[i] == 0, "TIMELINE_WAIT for point %llu returned %s",
			    (unsigned long long)p, kt_ret(ret[i]));
		sw_assert_f(q[i] >= p, "after point %llu signalled QUERY reads %llu",
			    (unsigned long long)p, (unsigned long long)q[i]);
	}
	struct kt_sync_info si[3];
	bool ordered = true;
	for (int i = 0; i < 3; i++) {
		kt_sync_info(j[i]->sf, &si[i]);
		sw_assert_f(si[i].status == 1, "job %d not signalled after its point", i + 1);
		if (i)
			ordered &= si[i].f[0].timestamp_ns >= si[i - 1].f[0].timestamp_ns;
	}
	uint64_t last = query(h, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED);
	kt_tr("points=1,2,3 jobs=3 flags=0 timeout=30s -> ret=%s,%s,%s query=%llu last=%llu "
	      "signal-order=%s state=[%s]",
	      kt_ret(ret[0]), kt_ret(ret[1]), kt_ret(ret[2]), (unsigned long long)q[2],
	      (unsigned long long)last, ordered ? "submission" : "other", state(h));
	note("before each wait the job was %c,%c,%c (P pending); QUERY after each wait %llu, "
	     "%llu, %llu; signalled %.1f, %.1f, %.1f ms after their flushes",
	     pend[0], pend[1], pend[2], (unsigned long long)q[0], (unsigned long long)q[1],
	     (unsigned long long)q[2], job_ms(j[0]), job_ms(j[1]), job_ms(j[2]));
	sw_assert_f(ordered, "the GPU fences signalled out of submission order");
	sw_assert_f(q[2] == 3 && last == 3, "QUERY %llu, last submitted %llu at the end",
		    (unsigned long long)q[2], (unsigned long long)last);
	end();
}

/* ---- eventfds --------------------------------------------------------------- */

static int new_eventfd(void)
{
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	sw_assert_f(efd >= 0, "eventfd: %m");
	return efd;
}

static bool readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);

	sw_assert_f(r >= 0 || errno == EINTR, "poll: %m");
	return r > 0;
}

static uint64_t eventfd_value(int efd)
{
	uint64_t v = 0;

	sw_assert_f(read(efd, &v, sizeof(v)) == sizeof(v), "reading the eventfd: %m");
	return v;
}

/* Polls the eventfd until it is readable (30 s at most). Each time the
 * eventfd is looked at first and the fence after: an eventfd that is
 * readable while the fence is still pending fails. *pending_polls counts the
 * polls that found the fence pending. */
static bool eventfd_after_fence(int efd, const struct job *j, int *pending_polls)
{
	int64_t end_ns = sw_clock_ns(CLOCK_MONOTONIC) + (int64_t)LONG_MS * 1000000;

	*pending_polls = 0;
	for (;;) {
		bool e = readable(efd, 2);
		int status = kt_sync_status(j->sf);

		sw_assert_f(!e || status == 1, "the eventfd is readable, the fence is %s",
			    kt_sync_letter(status));
		if (e)
			return true;
		*pending_polls += status == 0;
		if (sw_clock_ns(CLOCK_MONOTONIC) > end_ns)
			return false;
	}
}

/* EVENTFD on a point backed by a GPU job, armed after the point was
 * imported and, the second case, armed on the empty point before the job is
 * even submitted: readable only once the job's fence has signalled, then
 * holding 1. */
static void test_eventfd_after_gpu_signals(void)
{
	const uint64_t point = 5;

	for (int before = 0; before < 2; before++) {
		begin();
		uint32_t h = create(0);
		struct job *j = NULL;
		int ret, polls;
		bool early = false;

		t.efd = new_eventfd();
		if (before) {
			ret = sw_syncobj_eventfd(&stats, t.fd, h, point, 0, t.efd);
			early = readable(t.efd, 0);
			j = job_new();
			import_point(h, point, j);
		} else {
			j = job_new();
			import_point(h, point, j);
			ret = sw_syncobj_eventfd(&stats, t.fd, h, point, 0, t.efd);
		}
		sw_assert_f(ret == 0, "SYNCOBJ_EVENTFD returned %s", kt_ret(ret));
		int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
		bool fired = eventfd_after_fence(t.efd, j, &polls);
		double took = ms_since(t0);
		uint64_t v = fired ? eventfd_value(t.efd) : 0;

		kt_tr("point=5 flags=0 armed=%s -> ret=%s%s eventfd=%s value=%llu fence=%s "
		      "state=[%s]",
		      before ? "before-submit" : "after-import", kt_ret(ret),
		      before ? (early ? " readable-before-submit=yes" : " readable-before-submit=no")
			     : "",
		      fired ? "readable" : "silent", (unsigned long long)v,
		      kt_sync_letter(kt_sync_status(j->sf)), state(h));
		note("armed %s: %d polls saw the job pending first; readable %.1f ms after "
		     "arming; the fence signalled %.1f ms after the flush",
		     before ? "before the submit" : "after the import", polls, took,
		     job_ms(j));
		sw_assert_f(!early, "the eventfd fired before the point existed");
		sw_assert_f(fired, "the eventfd did not fire within 30 s");
		sw_assert_f(v == 1, "the eventfd holds %llu", (unsigned long long)v);
	}
	end();
}

/* EVENTFD with WAIT_AVAILABLE on a point that exists: readable at once,
 * however far the job is. */
static void test_eventfd_available_at_once(void)
{
	const uint64_t point = 5;

	begin();
	uint32_t h = create(0);
	struct job *j = job_new();
	import_point(h, point, j);
	t.efd = new_eventfd();
	int ret = sw_syncobj_eventfd(&stats, t.fd, h, point, AVAILABLE, t.efd);
	bool now = readable(t.efd, 0);
	bool was_pending = pending(j);
	uint64_t v = now ? eventfd_value(t.efd) : 0;

	kt_tr("point=5 flags=AVAILABLE -> ret=%s eventfd=%s value=%llu", kt_ret(ret),
	      now ? "readable" : "silent", (unsigned long long)v);
	note("the job was pending when the eventfd was found readable: %s", yes(was_pending));
	sw_assert_f(ret == 0, "SYNCOBJ_EVENTFD returned %s", kt_ret(ret));
	sw_assert_f(now && v == 1, "WAIT_AVAILABLE eventfd: readable %s, value %llu", yes(now),
		    (unsigned long long)v);
	end();
}

/* ---- sync_file export ------------------------------------------------------- */

/* A binary syncobj's GPU fence and a point's, exported as sync_files and
 * waited on (poll): they signal, and hold the job's fence itself (one fence,
 * the job's driver, timeline and signal time). */
static void test_exported_sync_file_is_gpu_fence(void)
{
	const uint64_t point = 9;

	for (int tl = 0; tl < 2; tl++) {
		begin();
		uint32_t h = create(0);
		struct job *j = job_new();
		int ret;

		if (tl) {
			import_point(h, point, j);
			ret = sw_syncobj_point_export_sync_file(&stats, t.fd, h, point,
								&t.export_fd);
		} else {
			import(h, j);
			ret = sw_syncobj_export_sync_file(&stats, t.fd, h, &t.export_fd);
		}
		sw_assert_f(ret == 0, "export returned %s", kt_ret(ret));
		bool was_pending = kt_sync_status(t.export_fd) == 0;
		int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
		bool done = kt_sync_wait(t.export_fd, LONG_MS);
		double took = ms_since(t0);
		struct kt_sync_info si;
		kt_sync_info(t.export_fd, &si);
		int job_status = kt_sync_status(j->sf);
		bool same = done && job_status == 1 && kt_sync_same_fence(j->sf, t.export_fd);

		kt_tr("export=%s -> ret=%s poll=%s status=%s fences=%u driver=%s same-fence=%s",
		      tl ? "point9" : "binary", kt_ret(ret), done ? "signaled" : "timeout",
		      kt_sync_letter(si.status), si.n, si.n ? si.f[0].driver_name : "-",
		      yes(same));
		note("%s: the exported sync_file was pending: %s; poll took %.1f ms; the fence "
		     "signalled %.1f ms after the flush",
		     tl ? "point" : "binary", yes(was_pending), took, job_ms(j));
		sw_assert_f(done, "the exported sync_file did not signal in 30 s");
		sw_assert_f(same, "the exported sync_file does not hold the job's fence");
	}
	end();
}

/* ---- reset ------------------------------------------------------------------ */

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	sw_assert_f(d, "/proc/self/fd: %m");
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* RESET of a binary syncobj and of a timeline while their GPU fence is
 * pending: RESET returns 0, the syncobj has no fence, a WAIT without
 * WAIT_FOR_SUBMIT is EINVAL and with it ETIME (binary); TIMELINE_WAIT for
 * the point is EINVAL, WAIT_AVAILABLE ETIME, QUERY 0 (timeline). The job is
 * not affected: its sync_file still signals, without error. Nothing is left
 * behind: every handle is destroyed and the process has as many fds as
 * before. */
static void test_reset_while_pending(void)
{
	const uint64_t point = 4;
	struct sw_syncobj_stats before_stats = stats;
	int fds_before;

	begin();
	close_fd(&t.fd);
	fds_before = open_fds();
	t.fd = kt_open();
	uint32_t b = create(0), tl = create(0), first = KT_FIRST_UNSET;
	struct job *jb = job_new(), *jt = job_new();
	import(b, jb);
	import_point(tl, point, jt);
	bool pend_b = pending(jb), pend_t = pending(jt);
	int r_reset = sw_syncobj_reset(&stats, t.fd, &b, 1);
	int r_reset_t = sw_syncobj_reset(&stats, t.fd, &tl, 1);
	const char *sb = state(b), *st = state(tl);
	int w0 = sw_syncobj_wait(&stats, t.fd, &b, 1, deadline_ms(LONG_MS), ANY, &first);
	int w1 = sw_syncobj_wait(&stats, t.fd, &b, 1, deadline_ms(100), ANY | FOR_SUBMIT, &first);
	int w2 = sw_syncobj_timeline_wait(&stats, t.fd, &tl, &point, 1, deadline_ms(LONG_MS), 0,
					  &first);
	int w3 = sw_syncobj_timeline_wait(&stats, t.fd, &tl, &point, 1, deadline_ms(100),
					  AVAILABLE, &first);
	uint64_t q = query(tl, 0);
	bool done_b = kt_sync_wait(jb->sf, LONG_MS), done_t = kt_sync_wait(jt->sf, LONG_MS);
	int stat_b = kt_sync_status(jb->sf), stat_t = kt_sync_status(jt->sf);

	kt_tr("binary: reset -> ret=%s state=[%s]; wait ANY 30s -> ret=%s; wait ANY|FOR_SUBMIT "
	      "now+100ms -> ret=%s; job=%s",
	      kt_ret(r_reset), sb, kt_ret(w0), kt_ret(w1),
	      done_b ? kt_sync_letter(stat_b) : "timeout");
	kt_tr("timeline point=4: reset -> ret=%s state=[%s]; wait 0 30s -> ret=%s; wait "
	      "AVAILABLE now+100ms -> ret=%s; query=%llu; job=%s",
	      kt_ret(r_reset_t), st, kt_ret(w2), kt_ret(w3), (unsigned long long)q,
	      done_t ? kt_sync_letter(stat_t) : "timeout");
	note("pending at RESET: binary %s, timeline %s; signalled %.1f, %.1f ms after the flush",
	     yes(pend_b), yes(pend_t), job_ms(jb), job_ms(jt));
	sw_assert_f(r_reset == 0 && r_reset_t == 0, "RESET: %s, %s", kt_ret(r_reset),
		    kt_ret(r_reset_t));
	sw_assert_f(!strcmp(sb, "N") && !strcmp(st, "N"), "after RESET: %s, %s", sb, st);
	sw_assert_f(w0 == -EINVAL && w1 == -ETIME, "binary waits after RESET: %s, %s",
		    kt_ret(w0), kt_ret(w1));
	sw_assert_f(w2 == -EINVAL && w3 == -ETIME, "timeline waits after RESET: %s, %s",
		    kt_ret(w2), kt_ret(w3));
	sw_assert_f(q == 0, "QUERY after RESET: %llu", (unsigned long long)q);
	sw_assert_f(done_b && done_t && stat_b == 1 && stat_t == 1,
		    "the jobs after RESET: %s %d, %s %d", yes(done_b), stat_b, yes(done_t),
		    stat_t);

	/* leaks: every handle this subtest made is destroyed, no fd is left */
	sw_assert(sw_syncobj_destroy(&stats, t.fd, b) == 0);
	sw_assert(sw_syncobj_destroy(&stats, t.fd, tl) == 0);
	end();
	int fds_after = open_fds();
	uint64_t created = stats.op[SW_SYNCOBJ_CREATE].count -
			   before_stats.op[SW_SYNCOBJ_CREATE].count;
	uint64_t destroyed = stats.op[SW_SYNCOBJ_DESTROY].count -
			     before_stats.op[SW_SYNCOBJ_DESTROY].count;
	kt_tr("afterwards -> handles created=%llu destroyed=%llu fds=%s",
	      (unsigned long long)created, (unsigned long long)destroyed,
	      fds_after == fds_before ? "as-before" : "changed");
	sw_assert_f(created == destroyed, "%llu handles created, %llu destroyed",
		    (unsigned long long)created, (unsigned long long)destroyed);
	sw_assert_f(fds_after == fds_before, "%d fds before, %d after", fds_before, fds_after);
}

int main(int argc, char **argv)
{
	kt_init("syncobj-gpu-fence", argc, argv);

	kt_subtest("wait-blocks-until-gpu-signals") test_wait_blocks_until_signaled();
	kt_subtest("wait-any-returns-gpu-index") test_wait_any_returns_gpu_index();
	kt_subtest("wait-all-with-unsignaled-times-out-unchanged") test_wait_all_times_out_unchanged();
	kt_subtest("point-available-at-once-then-signaled") test_point_available_then_signaled();
	kt_subtest("points-signal-in-submission-order") test_chain_in_submission_order();
	kt_subtest("eventfd-readable-after-gpu-signals") test_eventfd_after_gpu_signals();
	kt_subtest("eventfd-available-at-once") test_eventfd_available_at_once();
	kt_subtest("exported-sync-file-is-gpu-fence") test_exported_sync_file_is_gpu_fence();
	kt_subtest("reset-while-gpu-pending") test_reset_while_pending();
	end();
	sw_syncobj_stats_print(stdout, "# syncobj ioctls: ", &stats);

	return kt_exit();
}
