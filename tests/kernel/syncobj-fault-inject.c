/* Fault injection on every allocation and user copy of the syncobj ioctls.
 *
 * The kernel's fault-injection framework (Documentation/fault-injection/):
 * writing N to /proc/thread-self/fail-nth makes the N-th should_fail() call
 * of this thread fail, whichever of failslab (every slab allocation),
 * fail_page_alloc (every page allocation) or fail_usercopy (every
 * copy_from_user / copy_to_user) makes it; reading it back gives 0 once the
 * fault was injected. For each case (an ioctl with its flags, on a fixture
 * built fresh every round):
 *
 *   <ioctl>-<case>-fail-N   N = 1, 2, ...: the call with its N-th fallible
 *                           call failed (the first also makes the reference:
 *                           the call without a fault, its result and state
 *                           after, and a count of its fallible calls with
 *                           fail-nth far away). Either the call failed with
 *                           the error of that path (ENOMEM for an
 *                           allocation, EFAULT for a copy, or what the kernel
 *                           documents there) and left the state as it was
 *                           (every syncobj's fence and points, a WAIT of
 *                           each, the handles made, the fds opened, an
 *                           eventfd registered), or the fault was absorbed
 *                           (the call did what it does without a fault), or
 *                           it failed with EFAULT after the call had done its
 *                           work (drm_ioctl copies the arguments back last:
 *                           there is no way back from there, so that is
 *                           reported, not failed). And no fence may outlive
 *                           the round (a leaked reference keeps its sw_sync
 *                           timeline alive). A round that injected nothing
 *                           must be the reference; past the count it ends the
 *                           case: every site has been failed once.
 *   <ioctl>-<case>-sites    how many sites that was.
 *
 * Then the leak check: kmemleak's report after everything is closed (no
 * entry from the syncobj, fence or sync_file code), or, without kmemleak,
 * the slab balance of syncobj-leak-check over the injections done again.
 * Without fault injection in the kernel every subtest skips with the reason.
 * The transcript (--transcript) is per kernel build: its site counts change
 * with the series, so it is not compared between kernels. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kt.h"

#define FAIL_NTH "/proc/thread-self/fail-nth"
#define DEBUGFS "/sys/kernel/debug"
/* fail-nth for counting: far beyond any ioctl's sites */
#define COUNT_NTH (1u << 30)
#define MAX_N 16 /* the largest count of the array ioctls */
#define MAX_SITES 4096
#define STATE_LEN 4096

#define ALL DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
#define FOR_SUBMIT DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
#define AVAILABLE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE
#define SYNC_FILE KT_FLAG_SYNC_FILE
#define TIMELINE KT_FLAG_TIMELINE

/* Positions in the fixture of the single-object cases (kt_spec_mixed of 5). */
enum { M_NONE, M_STUB, M_PENDING, M_TIMELINE, M_TIMELINE_PENDING, M_N };

enum op {
	OP_CREATE, OP_DESTROY, OP_HANDLE_TO_FD, OP_FD_TO_HANDLE, OP_IMPORT, OP_TRANSFER,
	OP_EVENTFD, OP_WAIT, OP_WAIT_PENDING, OP_TWAIT, OP_TWAIT_SUBMIT, OP_QUERY, OP_RESET,
	OP_SIGNAL, OP_TSIGNAL,
};

/* What an imported sync_file holds: a sw_sync fence, pending or signalled. */
enum fence { F_PENDING, F_SIGNALED };

struct fi_case {
	const char *ioctl;
	char name[64];       /* the case, after the ioctl's name */
	enum op op;
	uint32_t h, h2;      /* fixture positions (TRANSFER: source, target) */
	uint32_t flags;
	uint64_t point, point2;
	enum fence fence;
	uint32_t n;          /* array ioctls: handles */
	int also;            /* an errno the path gives besides ENOMEM / EFAULT */
	const char *also_why;
	unsigned sites;      /* found by its sweep */
};

#define MAX_CASES 80
static struct fi_case cases[MAX_CASES];
static int ncases;

static struct {
	int nth_fd;          /* -1 without fault injection */
	char why[256];       /* then why, for the skips */
	const char *only;    /* --cases GLOB */
	struct kt_fdset fds_main;
	/* the current case: its reference, and how far the sweep got */
	bool ref_valid, ran, reached, swept;
	int ref_ret;
	char ref_after[STATE_LEN];
	unsigned counted, found;
	/* totals */
	unsigned injections, absorbed, committed, nsites, ncases_run;
} fi = { .nth_fd = -1 };

static struct kt_fix fix;
static int efd = -1, import_tl = -1, import_fd = -1, syncobj_fd = -1;
static unsigned long req;
static union {
	struct drm_syncobj_create create;
	struct drm_syncobj_destroy destroy;
	struct sw_syncobj_handle_args handle;
	struct drm_syncobj_transfer transfer;
	struct drm_syncobj_eventfd eventfd;
	struct drm_syncobj_wait wait;
	struct drm_syncobj_timeline_wait twait;
	struct drm_syncobj_array array;
	struct drm_syncobj_timeline_array tarray;
} arg;
static uint32_t handles[MAX_N];
static uint64_t points[MAX_N], values[MAX_N];
static struct kt_fdset fds_setup;

/* ---- the knobs --------------------------------------------------------------------- */

/* failslab and fail_page_alloc skip allocations that may sleep unless told
 * otherwise (ignore-gfp-wait defaults to Y, and a syncobj ioctl allocates
 * with GFP_KERNEL), fail_page_alloc skips order 0 (min-order 1); verbose 0
 * keeps a thousand injections off the console; probability stays 0, so only
 * fail-nth, which is per thread, injects anything. */
static const struct knob {
	const char *path, *value;
	bool needed;
} knobs[] = {
	{ "failslab/ignore-gfp-wait", "N", true },
	{ "failslab/verbose", "0", true },
	{ "failslab/probability", "0", true },
	{ "fail_page_alloc/ignore-gfp-wait", "N", false },
	{ "fail_page_alloc/min-order", "0", false },
	{ "fail_page_alloc/verbose", "0", false },
	{ "fail_page_alloc/probability", "0", false },
	{ "fail_usercopy/verbose", "0", false },
	{ "fail_usercopy/probability", "0", false },
};
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))
static char *knob_saved[NKNOBS];

/* --show-sites: verbose 2 instead, every injection prints its stack to the
 * kernel log (which function each site is). */
static bool show_sites;

static bool knobs_set(void)
{
	char path[128];

	if (access(DEBUGFS "/failslab", F_OK) != 0)
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	for (size_t i = 0; i < NKNOBS; i++) {
		snprintf(path, sizeof(path), DEBUGFS "/%s", knobs[i].path);
		knob_saved[i] = kt_slurp(path);
		if (kt_write_str(path, show_sites && strstr(path, "/verbose") ? "2"
									: knobs[i].value) == 0)
			continue;
		if (knobs[i].needed) {
			snprintf(fi.why, sizeof(fi.why), "cannot set %s (%m): failslab needs "
				 "CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS", path);
			return false;
		}
		printf("# %s is missing: those faults are not injected\n", path);
	}
	return true;
}

static void knobs_restore(void)
{
	char path[128];

	for (size_t i = 0; i < NKNOBS; i++) {
		if (!knob_saved[i])
			continue;
		snprintf(path, sizeof(path), DEBUGFS "/%s", knobs[i].path);
		kt_write_str(path, knob_saved[i]);
		free(knob_saved[i]);
	}
}

/* ---- fail-nth ------------------------------------------------------------------------- */

static void nth_write(unsigned n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	sw_assert_f(pwrite(fi.nth_fd, buf, (size_t)len, 0) == len, "writing fail-nth: %m");
}

/* Reads fail-nth back and clears it: what was left of the count (0: the
 * fault was injected). Reading copies to user space, which counts down once
 * more when something is left: with 1 left that copy is the one that fails
 * (EFAULT), so EFAULT means 1. Clearing copies from user space, likewise;
 * it ends at 0 either way. */
static unsigned nth_take(void)
{
	char buf[16] = "", now[16] = "";
	ssize_t r = pread(fi.nth_fd, buf, sizeof(buf) - 1, 0);
	int err = errno;

	/* cleared first, whatever the read said: left armed, it would fail
	 * one of this thread's next allocations */
	for (int i = 0; i < 3 && pwrite(fi.nth_fd, "0", 1, 0) != 1; i++)
		;
	sw_assert_f(pread(fi.nth_fd, now, sizeof(now) - 1, 0) > 0 && atoi(now) == 0,
		    "fail-nth is not 0 after clearing it");
	if (r < 0 && err == EFAULT)
		return 1;
	sw_assert_f(r > 0, "reading fail-nth: %s", strerror(err));
	return (unsigned)strtoul(buf, NULL, 10);
}

/* The ioctl with the nth fallible call failed (0: none); *left gets what
 * fail-nth had left. Nothing but the ioctl runs in between: every buffer
 * it touches was written in setup, so not even a page fault counts. */
static int call_failing(unsigned nth, unsigned *left)
{
	int ret;

	if (nth)
		nth_write(nth);
	ret = ioctl(fix.fd, req, &arg) == 0 ? 0 : -errno;
	*left = nth ? nth_take() : 0;
	return ret;
}

/* ---- cases: fixture and arguments ------------------------------------------------------- */

/* A sw_sync fence on a timeline of its own (so the fixture's fences are
 * not signalled with it): pending, or signalled at once. */
static int import_fence(enum fence f)
{
	import_tl = kt_sw_timeline();
	import_fd = kt_sw_fence(import_tl, 1);
	if (f == F_SIGNALED)
		kt_sw_inc(import_tl, 1);
	return import_fd;
}

static struct kt_spec spec_for(uint32_t i, uint32_t n, const void *ctx)
{
	const struct fi_case *c = ctx;

	switch (c->op) {
	case OP_WAIT: return kt_signaled();
	case OP_WAIT_PENDING: return kt_pending(1);
	case OP_TWAIT: return kt_timeline(5, 8, 1);
	case OP_TWAIT_SUBMIT: return kt_timeline(5, 0, 0);
	case OP_CREATE: return kt_none();
	default: return kt_spec_mixed(i, n, NULL);
	}
}

/* Builds the fixture and the arguments of case c: everything the call will
 * read or write is in place and touched. */
static void setup(const struct fi_case *c)
{
	uint32_t n = c->n ? c->n : c->op == OP_CREATE ? 0 : M_N, h;

	kt_fix_make(&fix, n, spec_for, c);
	h = c->h < n ? fix.h[c->h] : 0;
	memset(&arg, 0, sizeof(arg));
	for (uint32_t i = 0; i < MAX_N; i++) {
		handles[i] = i < n ? fix.h[i] : 0;
		points[i] = c->point;
		values[i] = KT_UNWRITTEN;
	}
	switch (c->op) {
	case OP_CREATE:
		req = DRM_IOCTL_SYNCOBJ_CREATE;
		arg.create.flags = c->flags;
		break;
	case OP_DESTROY:
		req = DRM_IOCTL_SYNCOBJ_DESTROY;
		arg.destroy.handle = h;
		break;
	case OP_HANDLE_TO_FD:
		req = KT_IOCTL_HANDLE_TO_FD;
		arg.handle = (struct sw_syncobj_handle_args){ .handle = h, .flags = c->flags,
							 .fd = -1, .point = c->point };
		break;
	case OP_FD_TO_HANDLE:
		syncobj_fd = -1;
		sw_assert(kt_handle_to_fd(fix.fd, h, 0, 0, 0, &syncobj_fd) == 0);
		req = KT_IOCTL_FD_TO_HANDLE;
		arg.handle = (struct sw_syncobj_handle_args){ .fd = syncobj_fd };
		break;
	case OP_IMPORT:
		req = KT_IOCTL_FD_TO_HANDLE;
		arg.handle = (struct sw_syncobj_handle_args){ .handle = h, .flags = c->flags,
							 .fd = import_fence(c->fence),
							 .point = c->point };
		break;
	case OP_TRANSFER:
		req = DRM_IOCTL_SYNCOBJ_TRANSFER;
		arg.transfer = (struct drm_syncobj_transfer){
			.src_handle = h, .dst_handle = fix.h[c->h2],
			.src_point = c->point, .dst_point = c->point2,
		};
		break;
	case OP_EVENTFD:
		efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		sw_assert_f(efd >= 0, "eventfd: %m");
		req = DRM_IOCTL_SYNCOBJ_EVENTFD;
		arg.eventfd = (struct drm_syncobj_eventfd){
			.handle = h, .flags = c->flags, .point = c->point, .fd = efd,
		};
		break;
	case OP_WAIT:
	case OP_WAIT_PENDING:
		req = DRM_IOCTL_SYNCOBJ_WAIT;
		arg.wait = (struct drm_syncobj_wait){
			.handles = (uintptr_t)handles, .count_handles = n, .flags = c->flags,
			.first_signaled = KT_FIRST_UNSET,
		};
		break;
	case OP_TWAIT:
	case OP_TWAIT_SUBMIT:
		req = DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT;
		arg.twait = (struct drm_syncobj_timeline_wait){
			.handles = (uintptr_t)handles, .points = (uintptr_t)points,
			.count_handles = n, .flags = c->flags, .first_signaled = KT_FIRST_UNSET,
		};
		break;
	case OP_RESET:
	case OP_SIGNAL:
		req = c->op == OP_RESET ? DRM_IOCTL_SYNCOBJ_RESET : DRM_IOCTL_SYNCOBJ_SIGNAL;
		arg.array = (struct drm_syncobj_array){ .handles = (uintptr_t)handles,
							.count_handles = n };
		break;
	case OP_QUERY:
	case OP_TSIGNAL:
		req = c->op == OP_QUERY ? DRM_IOCTL_SYNCOBJ_QUERY
					: DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL;
		arg.tarray = (struct drm_syncobj_timeline_array){
			.handles = (uintptr_t)handles,
			.points = (uintptr_t)(c->op == OP_QUERY ? values : points),
			.count_handles = n, .flags = c->flags,
		};
		break;
	}
	kt_fdset_read(&fds_setup);
}

/* Releases the round: the fixture, and every fd opened since the program
 * started (the call's, a fault's, the case's). */
static void teardown(void)
{
	kt_fix_free(&fix);
	kt_fdset_close_new(&fi.fds_main);
	efd = import_tl = import_fd = syncobj_fd = -1;
}

/* ---- state ---------------------------------------------------------------------------------- */

/* What a failed call must leave as it was: each syncobj's fence and points
 * (kt_fix_state), what a WAIT with timeout 0 says of each ("0" signalled,
 * "t" ETIME, "i" EINVAL: no fence, "?" gone), the handles the fixture did
 * not make, the fds opened since setup and, for EVENTFD, whether the eventfd
 * is readable and whether anything is registered on it (after the call only:
 * found by submitting and signalling the point, which ends the round). */
static void state(const struct fi_case *c, bool after, char *buf, size_t len)
{
	char *st = kt_fix_state(&fix), *others = kt_fix_others(&fix), *fds, waits[MAX_N + 1];
	size_t m;

	fds = kt_fdset_new_text(&fds_setup);
	for (uint32_t i = 0; i < fix.n; i++) {
		uint32_t first;
		int r = kt_wait_call(fix.fd, false, (uintptr_t)&fix.h[i], 0, 1, 0, 0, 0, &first);

		waits[i] = r == 0 ? '0' : r == -ETIME ? 't' : r == -EINVAL ? 'i' : '?';
	}
	waits[fix.n] = '\0';
	m = (size_t)snprintf(buf, len, "%s waits=%s others=%s fds=%s", st,
			     fix.n ? waits : "-", others, fds);
	free(st);
	free(others);
	free(fds);
	if (c->op == OP_EVENTFD) {
		struct pollfd p = { .fd = efd, .events = POLLIN };
		bool ready = poll(&p, 1, 0) == 1;
		uint64_t v = 0;

		if (after) {
			/* submit the point if it is not there, signal everything */
			if (c->point2)
				kt_fix_add_point(&fix, fix.h[c->h], c->point2, 0);
			kt_sw_inc(fix.timeline, KT_MAX_SEQNO);
			if (read(efd, &v, sizeof(v)) != sizeof(v))
				v = 0;
		}
		snprintf(buf + m, len - m, " eventfd=%s,registered=%s", ready ? "ready" : "quiet",
			 v ? "yes" : "no");
	}
}

/* ---- rounds ------------------------------------------------------------------------------ */

static struct {
	int ret;
	unsigned left;
	int leaked;          /* sw_sync timelines that outlived the round */
	char before[STATE_LEN], after[STATE_LEN];
} rd;

/* How many more of this process's sw_sync timelines are alive than were
 * before the round (their fences hold them; fence callbacks and RCU may
 * take a moment to let go). */
static int timelines_leaked(int before)
{
	int alive = kt_sw_timelines_alive();

	if (alive < 0 || before < 0)
		return 0; /* no sync/info: kmemleak or the slab balance decide */
	for (int i = 0; i < 50 && alive > before; i++) {
		kt_sleep_ms(20);
		alive = kt_sw_timelines_alive();
	}
	return alive - before;
}

/* setup, state, the call with its nth fallible call failed (0: none),
 * state, teardown */
static void round_run(const struct fi_case *c, unsigned nth)
{
	int alive = kt_sw_timelines_alive();

	setup(c);
	state(c, false, rd.before, sizeof(rd.before));
	rd.ret = call_failing(nth, &rd.left);
	state(c, true, rd.after, sizeof(rd.after));
	teardown();
	rd.leaked = timelines_leaked(alive);
}

static void require_fault_injection(void)
{
	if (fi.nth_fd < 0)
		sw_skip("%s", fi.why);
}

/* The case without a fault (result and state after), then the count of its
 * fallible calls: fail-nth far beyond them counts down once per call. */
static void reference(struct fi_case *c)
{
	round_run(c, 0);
	sw_assert_f(rd.leaked == 0, "without a fault, %d fence reference(s) outlived the round",
		    rd.leaked);
	fi.ref_ret = rd.ret;
	snprintf(fi.ref_after, sizeof(fi.ref_after), "%s", rd.after);
	kt_tr("reference: ret=%s in=%s out=%s", kt_ret(rd.ret), rd.before, rd.after);
	round_run(c, COUNT_NTH);
	sw_assert_f(rd.ret == fi.ref_ret && !strcmp(rd.after, fi.ref_after),
		    "with fail-nth beyond every site the call gave %s %s, without it %s %s",
		    kt_ret(rd.ret), rd.after, kt_ret(fi.ref_ret), fi.ref_after);
	fi.counted = COUNT_NTH - rd.left;
	fi.ref_valid = true;
	fi.ncases_run++;
	kt_tr("counted: %u fallible calls", fi.counted);
}

/* The round with fallible call nth failed, and its verdict. A round in
 * which the call made fewer than nth such calls injected nothing: the call
 * must then be the reference, and past the count that round ends the case
 * (every site has been failed once). */
static void test_fail(struct fi_case *c, unsigned nth)
{
	const char *outcome;
	bool errno_ok;

	require_fault_injection();
	fi.ran = true;
	if (!fi.ref_valid)
		reference(c);
	round_run(c, nth);
	fi.reached = rd.left == 0;
	if (!fi.reached) {
		kt_tr("nth=%u -> not reached (the call made %u fallible calls): ret=%s%s", nth,
		      nth - rd.left, kt_ret(rd.ret),
		      strcmp(rd.after, fi.ref_after) ? " differs" : " as without a fault");
		sw_assert_f(rd.ret == fi.ref_ret && !strcmp(rd.after, fi.ref_after),
			    "no fault was injected, yet the call gave %s %s, without fail-nth "
			    "%s %s",
			    kt_ret(rd.ret), rd.after, kt_ret(fi.ref_ret), fi.ref_after);
		sw_assert_f(rd.leaked == 0, "no fault was injected, yet %d fence reference(s) "
			    "outlived the round", rd.leaked);
		return;
	}
	fi.injections++;
	fi.found = nth > fi.found ? nth : fi.found;
	errno_ok = rd.ret == -ENOMEM || rd.ret == -EFAULT || (c->also && rd.ret == -c->also);
	if (rd.ret == fi.ref_ret)
		outcome = !strcmp(rd.after, fi.ref_after) ? "absorbed" : "absorbed-but-different";
	else if (!strcmp(rd.after, rd.before))
		outcome = "unchanged";
	else if (rd.ret == -EFAULT && !strcmp(rd.after, fi.ref_after))
		outcome = "committed";
	else
		outcome = "changed";
	kt_tr("nth=%u -> ret=%s %s%s", nth, kt_ret(rd.ret), outcome,
	      rd.leaked ? " fence-leaked" : "");
	if (strcmp(outcome, "unchanged") && strcmp(outcome, "absorbed"))
		kt_tr("  out=%s", rd.after);
	fi.absorbed += !strcmp(outcome, "absorbed");
	fi.committed += !strcmp(outcome, "committed");
	sw_assert_f(rd.leaked == 0,
		    "failed with %s and leaked %d fence reference(s): the fence's sw_sync "
		    "timeline is still alive after every fd was closed",
		    kt_ret(rd.ret), rd.leaked);
	sw_assert_f(strcmp(outcome, "absorbed-but-different"),
		    "the fault was absorbed (%s) but the state is %s, without a fault %s",
		    kt_ret(rd.ret), rd.after, fi.ref_after);
	if (rd.ret == fi.ref_ret)
		return;
	sw_assert_f(errno_ok, "failed with %s, which is neither ENOMEM nor EFAULT%s%s",
		    kt_ret(rd.ret), c->also ? " nor " : "", c->also ? kt_ret(-c->also) : "");
	if (c->also && rd.ret == -c->also)
		printf("# %s-%s-fail-%u: %s (%s)\n", c->ioctl, c->name, nth, kt_ret(rd.ret),
		       c->also_why);
	if (!strcmp(outcome, "committed"))
		printf("# %s-%s-fail-%u: EFAULT after the call had done its work (the arguments' "
		       "copy back to user space; no way back from there)\n",
		       c->ioctl, c->name, nth);
	sw_assert_f(strcmp(outcome, "changed"),
		    "failed with %s but changed the state: %s -> %s (without a fault: %s)",
		    kt_ret(rd.ret), rd.before, rd.after, fi.ref_after);
}

/* After the sweep: how many sites it found. */
static void test_sites(struct fi_case *c)
{
	require_fault_injection();
	if (!fi.ref_valid || !fi.swept)
		sw_skip("not every fail-N subtest of the case ran (--run)");
	c->sites = fi.found;
	fi.nsites += fi.found;
	kt_tr("sites=%u (counted without a fault: %u)", fi.found, fi.counted);
	printf("# %s-%s: %u sites (%u fallible calls without a fault), reference ret=%s\n",
	       c->ioctl, c->name, fi.found, fi.counted, kt_ret(fi.ref_ret));
}

/* One subtest (the harness's setjmp stays out of run_case's loop). */
static void subtest(struct fi_case *c, unsigned nth)
{
	static char name[160];

	if (nth)
		snprintf(name, sizeof(name), "%s-%s-fail-%u", c->ioctl, c->name, nth);
	else
		snprintf(name, sizeof(name), "%s-%s-sites", c->ioctl, c->name);
	kt_subtest(name)
	{
		if (nth)
			test_fail(c, nth);
		else
			test_sites(c);
	}
}

/* fail-1, fail-2, ... until a round past the count injects nothing, then
 * -sites. Listed, fail-1 stands for them all. */
static void run_case(struct fi_case *c, bool listing)
{
	char name[160];

	snprintf(name, sizeof(name), "%s-%s", c->ioctl, c->name);
	if (fi.only && fnmatch(fi.only, name, 0) != 0)
		return;
	fi.ref_valid = false;
	fi.swept = true;
	fi.counted = fi.found = 0;
	if (!listing && fi.nth_fd < 0) {
		subtest(c, 0); /* skips, saying why: one line per case */
		return;
	}
	for (unsigned n = 1; n <= MAX_SITES; n++) {
		fi.ran = fi.reached = false;
		subtest(c, n);
		if (listing)
			break;
		if (!fi.ran)
			fi.swept = false; /* not selected */
		else if (!fi.ref_valid)
			break; /* the reference failed */
		if (!fi.reached && fi.ref_valid && n >= fi.counted)
			break;
	}
	subtest(c, 0);
}

/* ---- leak check ------------------------------------------------------------------------------ */

static struct {
	const char *method;  /* --leak-method: auto, kmemleak or slab */
	unsigned rounds;     /* slab balance: every injection again, this many times */
	long tolerance;
	bool kmemleak;       /* usable, and cleared before the cases */
	char no_kmemleak[256];
} leak = { .method = "auto", .rounds = 16, .tolerance = 8 };

static void leak_prepare(void)
{
	char *report;
	int n;

	if (!strcmp(leak.method, "slab")) {
		snprintf(leak.no_kmemleak, sizeof(leak.no_kmemleak), "--leak-method slab");
		return;
	}
	leak.kmemleak = kt_kmemleak_usable(leak.no_kmemleak, sizeof(leak.no_kmemleak));
	if (!leak.kmemleak)
		return;
	/* what is there already (boot-time suspects) is not the cases' */
	report = kt_slurp(KT_KMEMLEAK);
	n = report ? kt_kmemleak_entries(report) : 0;
	printf("# kmemleak before the cases: %d suspect(s), cleared\n", n);
	free(report);
	if (kt_write_str(KT_KMEMLEAK, "clear") != 0) {
		snprintf(leak.no_kmemleak, sizeof(leak.no_kmemleak), "kmemleak clear failed");
		leak.kmemleak = false;
	}
}

static void test_no_leaks_kmemleak(void)
{
	static const char *const words[] = { "drm_syncobj", "dma_fence", "sync_file", "sync_pt",
					     "sw_sync", "drm_ioctl", NULL };
	static char *report;
	int all, ours;

	require_fault_injection();
	if (!leak.kmemleak)
		sw_skip("%s (the slab balance decides)", leak.no_kmemleak);
	printf("# leak check: kmemleak, after %u injections\n", fi.injections);
	free(report);
	report = kt_kmemleak_scan();
	all = kt_kmemleak_entries(report);
	ours = kt_kmemleak_matching(report, words);
	printf("# kmemleak: %d new suspect(s), %d from the syncobj, fence or sync_file code\n",
	       all, ours);
	kt_kmemleak_print(report, "#   ");
	if (ours)
		printf("%s", report);
	kt_tr("kmemleak: %d suspect(s) from the syncobj, fence or sync_file code", ours);
	sw_assert_f(ours == 0, "kmemleak reports %d object(s) from the syncobj, fence or "
		    "sync_file code (report above)", ours);
}

/* Without kmemleak: every injection of every case again, leak.rounds
 * times, between two settled snapshots of the kmalloc caches. A reference
 * leaked at one site of one case leaves leak.rounds objects. */
static void test_no_leaks_slab(void)
{
	static struct kt_slab_snap before, after;
	const char *worst_name;
	unsigned calls = 0;
	long worst;

	require_fault_injection();
	if (leak.kmemleak)
		sw_skip("kmemleak decided (no-leaks-kmemleak)");
	printf("# leak check: slab balance (%s), every injection %u times more\n",
	       leak.no_kmemleak, leak.rounds);
	kt_slab_settle(&before);
	for (unsigned r = 0; r < leak.rounds; r++) {
		for (int i = 0; i < ncases; i++) {
			for (unsigned n = 1; n <= cases[i].sites; n++) {
				unsigned left;

				setup(&cases[i]);
				call_failing(n, &left);
				teardown();
				calls++;
			}
		}
	}
	kt_slab_settle(&after);
	worst = kt_slab_worst_growth(&before, &after, &worst_name);
	printf("# kmalloc caches, active objects before -> after %u calls:\n", calls);
	kt_slab_print(&before, &after);
	kt_tr("slab balance: %u rounds, largest growth %ld", leak.rounds, worst);
	sw_assert_f(worst <= leak.tolerance,
		    "%s grew by %ld objects over %u calls with a fault (tolerance %ld)", worst_name,
		    worst, calls, leak.tolerance);
}

/* ---- cases ---------------------------------------------------------------------------------- */

static void add(const char *ioctl, const char *name, struct fi_case c)
{
	sw_assert_f(ncases < MAX_CASES, "too many cases");
	c.ioctl = ioctl;
	snprintf(c.name, sizeof(c.name), "%s", name);
	cases[ncases++] = c;
}

static const char export_why[] = "drm_syncobj_export_sync_file() reports a failed "
				 "sync_file_create() as EINVAL";

/* Every ioctl and flag combination of the behaviour suite, on the fixture
 * [none, stub, pending, timeline at 5, timeline at 5 + pending 8] for the
 * single-object ones. */
static void add_single_cases(void)
{
	add("create", "flags-0", (struct fi_case){ .op = OP_CREATE });
	add("create", "signaled",
	    (struct fi_case){ .op = OP_CREATE, .flags = DRM_SYNCOBJ_CREATE_SIGNALED });
	add("destroy", "binary", (struct fi_case){ .op = OP_DESTROY, .h = M_PENDING });
	add("destroy", "timeline", (struct fi_case){ .op = OP_DESTROY, .h = M_TIMELINE_PENDING });
	add("handle-to-fd", "syncobj",
	    (struct fi_case){ .op = OP_HANDLE_TO_FD, .h = M_TIMELINE_PENDING });
	add("handle-to-fd", "export-sync-file",
	    (struct fi_case){ .op = OP_HANDLE_TO_FD, .h = M_PENDING, .flags = SYNC_FILE,
			      .also = EINVAL, .also_why = export_why });
	add("handle-to-fd", "export-sync-file-timeline",
	    (struct fi_case){ .op = OP_HANDLE_TO_FD, .h = M_TIMELINE_PENDING, .flags = SYNC_FILE,
			      .also = EINVAL, .also_why = export_why });
	add("handle-to-fd", "export-sync-file-at-signaled-point",
	    (struct fi_case){ .op = OP_HANDLE_TO_FD, .h = M_TIMELINE_PENDING,
			      .flags = SYNC_FILE | TIMELINE, .point = 5, .also = EINVAL,
			      .also_why = export_why });
	add("handle-to-fd", "export-sync-file-at-pending-point",
	    (struct fi_case){ .op = OP_HANDLE_TO_FD, .h = M_TIMELINE_PENDING,
			      .flags = SYNC_FILE | TIMELINE, .point = 8, .also = EINVAL,
			      .also_why = export_why });
	add("fd-to-handle", "syncobj", (struct fi_case){ .op = OP_FD_TO_HANDLE, .h = M_PENDING });
	add("fd-to-handle", "import-sync-file",
	    (struct fi_case){ .op = OP_IMPORT, .h = M_TIMELINE, .flags = SYNC_FILE });
	add("fd-to-handle", "import-sync-file-signaled",
	    (struct fi_case){ .op = OP_IMPORT, .h = M_NONE, .flags = SYNC_FILE,
			      .fence = F_SIGNALED });
	add("fd-to-handle", "import-sync-file-at-point",
	    (struct fi_case){ .op = OP_IMPORT, .h = M_TIMELINE, .flags = SYNC_FILE | TIMELINE,
			      .point = 7 });
	add("fd-to-handle", "import-sync-file-at-point-signaled",
	    (struct fi_case){ .op = OP_IMPORT, .h = M_TIMELINE, .flags = SYNC_FILE | TIMELINE,
			      .point = 7, .fence = F_SIGNALED });
	add("fd-to-handle", "import-sync-file-at-point-into-empty",
	    (struct fi_case){ .op = OP_IMPORT, .h = M_NONE, .flags = SYNC_FILE | TIMELINE,
			      .point = 3 });
	add("transfer", "binary-to-timeline",
	    (struct fi_case){ .op = OP_TRANSFER, .h = M_PENDING, .h2 = M_TIMELINE, .point2 = 10 });
	add("transfer", "timeline-to-binary",
	    (struct fi_case){ .op = OP_TRANSFER, .h = M_TIMELINE_PENDING, .point = 8,
			      .h2 = M_STUB });
	add("transfer", "timeline-to-timeline",
	    (struct fi_case){ .op = OP_TRANSFER, .h = M_TIMELINE_PENDING, .point = 5,
			      .h2 = M_TIMELINE, .point2 = 9 });
	add("transfer", "binary-to-binary",
	    (struct fi_case){ .op = OP_TRANSFER, .h = M_PENDING, .h2 = M_NONE });
	add("eventfd", "signaled-point",
	    (struct fi_case){ .op = OP_EVENTFD, .h = M_TIMELINE_PENDING, .point = 5 });
	add("eventfd", "pending-point",
	    (struct fi_case){ .op = OP_EVENTFD, .h = M_TIMELINE_PENDING, .point = 8 });
	add("eventfd", "available",
	    (struct fi_case){ .op = OP_EVENTFD, .h = M_TIMELINE_PENDING, .point = 8,
			      .flags = AVAILABLE });
	add("eventfd", "unsubmitted-point",
	    (struct fi_case){ .op = OP_EVENTFD, .h = M_TIMELINE, .point = 12, .point2 = 12 });
}

/* The array ioctls with 1, 2, 4 (the series' on-stack limit), 5 and 16
 * handles: signalled waits, waits that arm fence callbacks or submit
 * entries and time out, and the mixed fixture for the others. */
static void add_array_cases(void)
{
	static const uint32_t counts[] = { 1, 2, 4, 5, MAX_N };
	static const struct {
		const char *ioctl, *prefix;
		struct fi_case c;
	} kinds[] = {
		{ "wait", "", { .op = OP_WAIT, .flags = ALL } },
		{ "wait", "pending-", { .op = OP_WAIT_PENDING, .flags = ALL } },
		{ "timeline-wait", "", { .op = OP_TWAIT, .flags = ALL, .point = 5 } },
		{ "timeline-wait", "for-submit-",
		  { .op = OP_TWAIT_SUBMIT, .flags = ALL | FOR_SUBMIT, .point = 9 } },
		{ "query", "", { .op = OP_QUERY } },
		{ "query", "last-submitted-",
		  { .op = OP_QUERY, .flags = DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED } },
		{ "reset", "", { .op = OP_RESET } },
		{ "signal", "", { .op = OP_SIGNAL } },
		{ "timeline-signal", "", { .op = OP_TSIGNAL, .point = 20 } },
	};
	char name[64];

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			struct fi_case c = kinds[k].c;

			c.n = counts[i];
			snprintf(name, sizeof(name), "%s%u-handle%s", kinds[k].prefix, c.n,
				 c.n == 1 ? "" : "s");
			add(kinds[k].ioctl, name, c);
		}
	}
}

static void fault_injection_setup(void)
{
	fi.nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	if (fi.nth_fd < 0) {
		snprintf(fi.why, sizeof(fi.why),
			 "no %s (%m): this kernel has no fault injection (CONFIG_FAULT_INJECTION, "
			 "CONFIG_FAILSLAB; the debug flavours have them)",
			 FAIL_NTH);
		return;
	}
	if (!knobs_set()) {
		close(fi.nth_fd);
		fi.nth_fd = -1;
		return;
	}
	leak_prepare();
}

int main(int argc, char **argv)
{
	bool listing = false;
	const char *v;

	for (int i = 1; i < argc; i++)
		listing |= !strcmp(argv[i], "--list");
	fi.only = kt_take_option(&argc, argv, "--cases");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--show-sites")) {
			show_sites = true;
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			argc--;
			break;
		}
	}
	if ((v = kt_take_option(&argc, argv, "--leak-method")))
		leak.method = v;
	if ((v = kt_take_option(&argc, argv, "--leak-rounds")))
		leak.rounds = (unsigned)strtoul(v, NULL, 10);
	if ((v = kt_take_option(&argc, argv, "--tolerance")))
		leak.tolerance = strtol(v, NULL, 10);
	kt_init("syncobj-fault-inject", argc, argv);
	kt_tr_open(); /* the program's own fds stay open through every round */
	add_single_cases();
	add_array_cases();
	if (!listing)
		fault_injection_setup();
	kt_fdset_read(&fi.fds_main);

	for (int i = 0; i < ncases; i++)
		run_case(&cases[i], listing);
	if (!listing && fi.nth_fd >= 0) {
		printf("# %u injections over %u sites of %u cases: %u absorbed, %u failed with "
		       "EFAULT after the call's work\n",
		       fi.injections, fi.nsites, fi.ncases_run, fi.absorbed, fi.committed);
	}
	kt_subtest("no-leaks-kmemleak") test_no_leaks_kmemleak();
	kt_subtest("no-leaks-slab-balance") test_no_leaks_slab();

	if (fi.nth_fd >= 0) {
		knobs_restore();
		close(fi.nth_fd);
	}
	return kt_exit();
}
