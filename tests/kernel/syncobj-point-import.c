/* A sync_file at a timeline point, as syncway does it
 * (sw_syncobj_point_import_sync_file() in common/syncobj.c): the compositor
 * for every release on a GPU renderer, the GLES2 clients for every acquire.
 *
 * Since Linux 6.16 FD_TO_HANDLE with IMPORT_SYNC_FILE | TIMELINE puts the
 * fence at the point in one call; before, it takes four (a temporary binary
 * syncobj, the import, TRANSFER to the point, DESTROY). The helper learns
 * which once per process and SYNCWAY_IMPORT_AT_POINT=0 forces the four. This
 * suite checks, on whatever kernel it runs on, that the helper makes the
 * fewest calls that kernel allows (read from the per-kind accounting), that
 * it learns the answer once, and that both ways leave the same state: the
 * point submitted and pending, signalled with the sync_file's own fence, no
 * handle left behind, the same errors for a bad sync_file or timeline.
 *
 * Whether the kernel has the flag is asked here independently of the code
 * under test: FD_TO_HANDLE with the flags, a valid sync_file and handle 0
 * (never a syncobj) answers ENOENT where the flag is known and EINVAL where
 * it is not, and changes nothing either way.
 *
 * The transcript has the calls and states, the same for base and patched of
 * one Linux version (the call mix differs between 6.12 and 7.3 by design). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kt.h"
#include "syncobj.h"

#define ENV "SYNCWAY_IMPORT_AT_POINT"
#define POINT 5

/* What a subtest holds (a failed check longjmps out). */
static struct {
	int fd, timeline, fence;
} t = { .fd = -1, .timeline = -1, .fence = -1 };

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Releases what the last subtest held and puts the helper back to learning
 * from the kernel. */
static void end(void)
{
	close_fd(&t.fence);
	close_fd(&t.timeline);
	close_fd(&t.fd);
	unsetenv(ENV);
	sw_syncobj_point_import_reset();
}

/* A fresh fd, a sw_sync timeline with a pending fence (seqno 1), and the
 * helper in the way asked for: four calls forced (forced) or learning from
 * the kernel afresh. */
static void begin(bool forced)
{
	end();
	t.fd = kt_open();
	t.timeline = kt_sw_timeline();
	t.fence = kt_sw_fence(t.timeline, 1);
	if (forced)
		setenv(ENV, "0", 1);
}

/* 1 when the kernel imports at a point in one call, 0 when it refuses the
 * flag: asked once, with a signalled sync_file and handle 0. */
static int kernel_has_flag(void)
{
	static int known = -1;

	if (known >= 0)
		return known;
	int file = kt_signaled_sync_file(t.fd);
	uint32_t h = 0;
	int ret = kt_fd_to_handle(t.fd, file,
				  DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE |
					  DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_TIMELINE,
				  POINT, 0, &h);
	close(file);
	sw_assert_f(ret == -ENOENT || ret == -EINVAL,
		    "IMPORT_SYNC_FILE|TIMELINE into handle 0: %s, not ENOENT or EINVAL", kt_ret(ret));
	known = ret == -ENOENT;
	printf("# the kernel %s IMPORT_SYNC_FILE|TIMELINE\n", known ? "takes" : "refuses");
	return known;
}

static const char *way_name(enum sw_syncobj_point_import way)
{
	switch (way) {
	case SW_POINT_IMPORT_PROBE: return "probe";
	case SW_POINT_IMPORT_ONE_CALL: return "one-call";
	case SW_POINT_IMPORT_FOUR_CALLS: return "four-calls";
	case SW_POINT_IMPORT_FORCED_FOUR: return "forced-four";
	}
	return "?";
}

/* The accounted calls, "create=1,transfer=1,import_sync_file_point=1/1"
 * (count, then failed ones after a slash), in the accounting's order. */
static const char *calls_text(const struct sw_syncobj_stats *s)
{
	static char buf[256];
	size_t m = 0;

	buf[0] = '\0';
	for (int op = 0; op < SW_SYNCOBJ_OP_COUNT; op++) {
		const struct sw_syncobj_op_stats *o = &s->op[op];
		if (!o->count)
			continue;
		m += (size_t)snprintf(buf + m, sizeof(buf) - m, "%s%s=%llu", m ? "," : "",
				      sw_syncobj_op_name(op), (unsigned long long)o->count);
		if (o->errors && m < sizeof(buf))
			m += (size_t)snprintf(buf + m, sizeof(buf) - m, "/%llu",
					      (unsigned long long)o->errors);
		if (m >= sizeof(buf))
			break;
	}
	return m ? buf : "none";
}

/* The calls one import of a valid sync_file must make, with the helper in
 * way (before the call): one where the kernel takes the flag; the refused
 * probe and the four where it does not; the four alone once learnt or
 * forced. */
static const char *expected_calls(enum sw_syncobj_point_import way)
{
	static const char four[] = "create=1,destroy=1,import_sync_file=1,transfer=1";
	static const char probe_four[] =
		"create=1,destroy=1,import_sync_file=1,transfer=1,import_sync_file_point=1/1";

	if (way == SW_POINT_IMPORT_FORCED_FOUR || way == SW_POINT_IMPORT_FOUR_CALLS)
		return four;
	if (kernel_has_flag())
		return "import_sync_file_point=1";
	return way == SW_POINT_IMPORT_PROBE ? probe_four : four;
}

/* Imports t.fence (or file, when >= 0) at point of h and checks the calls
 * against expected_calls(); returns the result. The calls go to the
 * transcript line with what. */
static int import_checked(const char *what, uint32_t h, uint64_t point, int file)
{
	struct sw_syncobj_stats s = { 0 };
	enum sw_syncobj_point_import before = sw_syncobj_point_import_way();
	int ret = sw_syncobj_point_import_sync_file(&s, t.fd, h, point, file >= 0 ? file : t.fence);
	enum sw_syncobj_point_import after = sw_syncobj_point_import_way();
	const char *got = calls_text(&s), *want = expected_calls(before);

	kt_tr("%s: way=%s -> ret=%s calls=%s way=%s", what, way_name(before), kt_ret(ret), got,
	      way_name(after));
	sw_assert_f(ret == 0, "%s: the import failed: %s", what, kt_ret(ret));
	sw_assert_f(!strcmp(got, want), "%s: calls %s, expected %s", what, got, want);
	sw_assert_f(sw_syncobj_stats_handles(&s) == 0, "%s: %lld handles left behind", what,
		    (long long)sw_syncobj_stats_handles(&s));
	return ret;
}

static uint32_t new_timeline(void)
{
	uint32_t h = 0;
	int ret = sw_syncobj_create(NULL, t.fd, 0, &h);

	sw_assert_f(ret == 0, "SYNCOBJ_CREATE failed: %s", kt_ret(ret));
	return h;
}

static uint64_t query(uint32_t h, uint32_t flags)
{
	uint64_t v = KT_UNWRITTEN;
	int ret = sw_syncobj_query(NULL, t.fd, &h, &v, 1, flags);

	sw_assert_f(ret == 0, "QUERY failed: %s", kt_ret(ret));
	return v;
}

static int twait(uint32_t h, uint64_t point, uint32_t flags)
{
	return sw_syncobj_timeline_wait(NULL, t.fd, &h, &point, 1, 0, flags, NULL);
}

/* What the point of h looks like while t.fence is pending and after it has
 * signalled, as one transcript line; fails unless it is what a sync_file
 * at that point must give: submitted at once (last submitted = point,
 * WAIT_AVAILABLE satisfied), not signalled (QUERY below point, a poll for
 * the signal ETIME), then signalled by the fence (QUERY = point, the wait
 * returns 0) with the very fence the sync_file held. */
static void check_point(const char *what, uint32_t h, uint64_t point)
{
	char st[64];
	uint64_t last = query(h, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), q0 = query(h, 0);
	int avail = twait(h, point, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE);
	int early = twait(h, point, 0);
	kt_state1(t.fd, h, st, sizeof(st));

	kt_sw_inc(t.timeline, 1);
	int late = twait(h, point, 0);
	uint64_t q1 = query(h, 0);
	int out = -1, ret = sw_syncobj_point_export_sync_file(NULL, t.fd, h, point, &out);
	bool same = ret == 0 && kt_sync_same_fence(t.fence, out);
	if (out >= 0)
		close(out);

	kt_tr("%s: pending: last=%llu query=%llu available=%s wait=%s state=%s; signalled: "
	      "wait=%s query=%llu fence=%s",
	      what, (unsigned long long)last, (unsigned long long)q0, kt_ret(avail), kt_ret(early),
	      st, kt_ret(late), (unsigned long long)q1, same ? "same" : "other");
	sw_assert_f(last == point, "%s: last submitted %llu, not %llu", what,
		    (unsigned long long)last, (unsigned long long)point);
	sw_assert_f(q0 < point, "%s: point %llu signalled before the fence (QUERY %llu)", what,
		    (unsigned long long)point, (unsigned long long)q0);
	sw_assert_f(avail == 0, "%s: WAIT_AVAILABLE %s", what, kt_ret(avail));
	sw_assert_f(early == -ETIME, "%s: the wait before the signal %s", what, kt_ret(early));
	sw_assert_f(late == 0, "%s: the wait after the signal %s", what, kt_ret(late));
	sw_assert_f(q1 == point, "%s: QUERY %llu after the signal", what, (unsigned long long)q1);
	sw_assert_f(ret == 0, "%s: exporting the point: %s", what, kt_ret(ret));
	sw_assert_f(same, "%s: the point does not hold the sync_file's fence", what);
}

/* The first import of the process makes the fewest calls the kernel
 * allows: one FD_TO_HANDLE where it takes the flag (no CREATE, TRANSFER,
 * DESTROY), else the refused one and the four; the point then holds the
 * fence. */
static void test_first_import_fewest_calls(void)
{
	begin(false);
	uint32_t h = new_timeline();
	import_checked("first import", h, POINT, -1);
	enum sw_syncobj_point_import way = sw_syncobj_point_import_way();
	sw_assert_f(way == (kernel_has_flag() ? SW_POINT_IMPORT_ONE_CALL : SW_POINT_IMPORT_FOUR_CALLS),
		    "learnt %s", way_name(way));
	check_point("first import", h, POINT);
	end();
}

/* Once learnt, never asked again: later imports, on another fd too, make
 * one call or four, and the kernel never sees the refused flag again. */
static void test_learnt_once(void)
{
	static const uint64_t points[] = { 1, 2, 9 };

	begin(false);
	uint32_t h = new_timeline();
	import_checked("learning", h, points[0], -1);
	close_fd(&t.fd);
	t.fd = kt_open();
	h = new_timeline();
	for (size_t i = 1; i < sizeof(points) / sizeof(points[0]); i++) {
		char what[32];
		snprintf(what, sizeof(what), "new fd, point %llu", (unsigned long long)points[i]);
		import_checked(what, h, points[i], -1);
	}
	check_point("new fd, last point", h, points[2]);
	end();
}

/* SYNCWAY_IMPORT_AT_POINT=0: the four calls, whatever the kernel, and the
 * same state as the one call gives. */
static void test_forced_four_calls(void)
{
	begin(true);
	enum sw_syncobj_point_import way = sw_syncobj_point_import_way();
	sw_assert_f(way == SW_POINT_IMPORT_FORCED_FOUR, "with %s=0 the way is %s", ENV,
		    way_name(way));
	uint32_t h = new_timeline();
	import_checked("forced", h, POINT, -1);
	import_checked("forced, again", h, POINT + 1, -1);
	check_point("forced", h, POINT + 1);
	end();
}

/* A sync_file that has signalled already signals the point at once, both
 * ways. */
static void test_signalled_sync_file(void)
{
	for (int forced = 0; forced < 2; forced++) {
		begin(forced);
		uint32_t h = new_timeline();
		int file = kt_signaled_sync_file(t.fd);
		import_checked(forced ? "signalled, forced" : "signalled", h, POINT, file);
		close(file);
		int ret = twait(h, POINT, 0);
		uint64_t q = query(h, 0);
		kt_tr("%s: wait=%s query=%llu", forced ? "forced" : "auto", kt_ret(ret),
		      (unsigned long long)q);
		sw_assert_f(ret == 0 && q == POINT, "the point: wait %s, QUERY %llu", kt_ret(ret),
			    (unsigned long long)q);
	}
	end();
}

/* An fd that is no sync_file fails with EINVAL both ways, leaves the
 * timeline and the handle table as they were, and teaches the helper
 * nothing (EINVAL is also what a kernel without the flag answers): the next
 * import of a real sync_file still finds the kernel's way. */
static void test_bad_sync_file(void)
{
	for (int forced = 0; forced < 2; forced++) {
		begin(forced);
		uint32_t h = new_timeline();
		int efd = eventfd(0, EFD_CLOEXEC);
		sw_assert_f(efd >= 0, "eventfd: %m");
		struct sw_syncobj_stats s = { 0 };
		int ret = sw_syncobj_point_import_sync_file(&s, t.fd, h, POINT, efd);
		close(efd);
		enum sw_syncobj_point_import way = sw_syncobj_point_import_way();
		char st[64];
		kt_state1(t.fd, h, st, sizeof(st));
		kt_tr("eventfd%s -> ret=%s way=%s state=%s", forced ? ", forced" : "", kt_ret(ret),
		      way_name(way), st);
		sw_assert_f(ret == -EINVAL, "importing an eventfd: %s", kt_ret(ret));
		sw_assert_f(!strcmp(st, "N"), "the timeline changed: %s", st);
		sw_assert_f(sw_syncobj_stats_handles(&s) == 0, "%lld handles left behind",
			    (long long)sw_syncobj_stats_handles(&s));
		sw_assert_f(way == (forced ? SW_POINT_IMPORT_FORCED_FOUR : SW_POINT_IMPORT_PROBE),
			    "after a bad fd the way is %s", way_name(way));
		if (!forced) {
			import_checked("after the eventfd", h, POINT, -1);
			check_point("after the eventfd", h, POINT);
		}
	}
	end();
}

/* A timeline handle that does not exist (0 never does) fails with ENOENT
 * both ways, with no handle left behind. */
static void test_no_such_timeline(void)
{
	for (int forced = 0; forced < 2; forced++) {
		begin(forced);
		struct sw_syncobj_stats s = { 0 };
		int ret = sw_syncobj_point_import_sync_file(&s, t.fd, 0, POINT, t.fence);
		kt_tr("handle 0%s -> ret=%s", forced ? ", forced" : "", kt_ret(ret));
		sw_assert_f(ret == -ENOENT, "importing into handle 0: %s", kt_ret(ret));
		sw_assert_f(sw_syncobj_stats_handles(&s) == 0, "%lld handles left behind",
			    (long long)sw_syncobj_stats_handles(&s));
	}
	end();
}

int main(int argc, char **argv)
{
	kt_init("syncobj-point-import", argc, argv);
	/* The subtests set it themselves; one from the caller would decide
	 * the way the learning subtests must find out. */
	unsetenv(ENV);

	kt_subtest("first-import-makes-the-fewest-calls") test_first_import_fewest_calls();
	kt_subtest("learnt-once-per-process") test_learnt_once();
	kt_subtest("forced-four-calls-same-state") test_forced_four_calls();
	kt_subtest("signalled-sync-file-signals-the-point") test_signalled_sync_file();
	kt_subtest("bad-sync-file-fails-and-teaches-nothing") test_bad_sync_file();
	kt_subtest("no-such-timeline-fails-alike") test_no_such_timeline();

	return kt_exit();
}
