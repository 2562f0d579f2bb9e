/* The single-object syncobj ioctls: CREATE, DESTROY, HANDLE_TO_FD and
 * FD_TO_HANDLE (a syncobj fd both ways, sync_file export and import, and
 * both at a timeline point with the TIMELINE flags of Linux 6.16), TRANSFER
 * and EVENTFD.
 *
 * Transcript line per call:
 *   <inputs> -> ret=R [fd=KIND] [file=S|P|E] in=[...] out=[...]
 * with the fixture's state before and after (kt_fix_state) and, after
 * "others=", the handles the call made. The transcript is what the kernel
 * answered, whichever kernel it is: 6.12 has no TIMELINE flags and rejects
 * them with EINVAL, 7.3 takes them; both are recorded, and transcripts are
 * compared only between two builds of one kernel version.
 *
 * Verdicts only on what the uapi promises on every kernel: a failed call
 * changes nothing (no state, no handle, no fd), what a successful call
 * returns is what it says (a syncobj fd, a sync_file of the right fence),
 * and at the end of every subtest no fd and no fence is left over (every
 * sw_sync timeline the subtest made is gone once its fds are closed, so no
 * fence reference leaked). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kt.h"

#define AVAILABLE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE
#define SYNC_FILE KT_FLAG_SYNC_FILE
#define TIMELINE KT_FLAG_TIMELINE

static struct kt_fix fix;
/* the fds at the start of the program, and once the fixture was made */
static struct kt_fdset fds_main, fds_fix;

/* Positions of kt_spec_mixed in a fixture of 5, and their words. */
enum { M_NONE, M_STUB, M_PENDING, M_TIMELINE, M_TIMELINE_PENDING, M_N };
static const char *const mixed_names[M_N] = { "none", "stub", "pending", "timeline@5",
					      "timeline@5+pending@8" };

/* ---- subtest frame ------------------------------------------------------------------ */

/* Releases what an earlier subtest left (one that failed half way too) and
 * makes the fixture: kt_spec_mixed of n, or all of one spec. */
static void begin_with(uint32_t n, const struct kt_spec *all)
{
	kt_fix_free(&fix);
	kt_fdset_close_new(&fds_main);
	if (all)
		kt_fix_make_all(&fix, n, *all);
	else
		kt_fix_make(&fix, n, kt_spec_mixed, NULL);
	kt_fdset_read(&fds_fix);
}

static void begin(void)
{
	begin_with(M_N, NULL);
}

/* The end of every subtest: nothing may be left open, and once all is
 * closed no fence of the subtest's sw_sync timelines may still be alive. */
static void finish(void)
{
	int left, alive;

	kt_fix_free(&fix);
	left = kt_fdset_close_new(&fds_main);
	sw_assert_f(left == 0,
		    "%d fds left open after the subtest (a call leaked an fd, or the test did)",
		    left);
	alive = kt_sw_timelines_alive();
	for (int i = 0; i < 50 && alive > 0; i++) {
		kt_sleep_ms(20); /* a fence callback or RCU may still hold one */
		alive = kt_sw_timelines_alive();
	}
	sw_assert_f(alive <= 0,
		    "%d sw_sync timelines still alive after every fd was closed: a fence "
		    "reference leaked",
		    alive);
}

/* ---- state and transcript ------------------------------------------------------------- */

/* The fixture's state, the handles others made and the fds opened since
 * the fixture was made: what a failed call must leave as it was. */
struct snap {
	char text[4096];
};

static void snap_take(struct snap *s)
{
	char *st = kt_fix_state(&fix), *others = kt_fix_others(&fix), *fds;

	fds = kt_fdset_new_text(&fds_fix);
	snprintf(s->text, sizeof(s->text), "%s%s%s%s%s", st, strcmp(others, "[]") ? " others=" : "",
		 strcmp(others, "[]") ? others : "", strcmp(fds, "[]") ? " fds=" : "",
		 strcmp(fds, "[]") ? fds : "");
	free(st);
	free(others);
	free(fds);
}

/* One call's line; a failed call must have changed nothing. */
static void record(const char *inputs, int ret, const char *extra, const struct snap *in,
		   const struct snap *out)
{
	kt_tr("%s -> ret=%s%s%s in=%s out=%s", inputs, kt_ret(ret), extra ? " " : "",
	      extra ? extra : "", in->text, out->text);
	if (ret != 0)
		sw_assert_f(!strcmp(in->text, out->text), "%s: failed with %s but changed %s -> %s",
			    inputs, kt_ret(ret), in->text, out->text);
}

/* ---- the calls, recorded --------------------------------------------------------------- */

static char handle_word[64];

/* The transcript's name of handle h: the fixture position's word. */
static const char *hname(uint32_t h)
{
	for (uint32_t i = 0; i < fix.n; i++) {
		if (fix.h[i] == h) {
			snprintf(handle_word, sizeof(handle_word), "%s",
				 fix.n == M_N ? mixed_names[i] : "h");
			return handle_word;
		}
	}
	snprintf(handle_word, sizeof(handle_word), h == 0 ? "0" : "unused");
	return handle_word;
}


/* One ioctl, recorded with the state before and after; 0 or -errno. */
static int rec_call(const char *inputs, unsigned long req, void *arg, const char *extra)
{
	struct snap in, out;
	int ret;

	snap_take(&in);
	ret = kt_ioctl(fix.fd, req, arg);
	snap_take(&out);
	record(inputs, ret, extra, &in, &out);
	return ret;
}

/* HANDLE_TO_FD, recorded; returns the fd (the caller closes it) or -errno.
 * A successful call's fd shows in the state after it ("fds=[...]"). */
static int h2f(uint32_t h, uint32_t flags, uint64_t point, uint32_t pad)
{
	struct sw_syncobj_handle_args a = {
		.handle = h, .flags = flags, .fd = -1, .pad = pad, .point = point
	};
	char inputs[160], ft[32], kind[48];
	int ret;

	snprintf(inputs, sizeof(inputs), "handle-to-fd handle=%s flags=%s point=%llu pad=%u",
		 hname(h), kt_handle_flags(flags, ft, sizeof(ft)), (unsigned long long)point, pad);
	ret = rec_call(inputs, KT_IOCTL_HANDLE_TO_FD, &a, NULL);
	if (ret)
		return ret;
	kt_fd_kind(a.fd, kind, sizeof(kind));
	sw_assert_f(!strncmp(kind, flags & SYNC_FILE ? "sync_file" : "syncobj", 7),
		    "%s: returned a %s fd", inputs, kind);
	return a.fd;
}

/* FD_TO_HANDLE of from (fdword says what it is) into h (IMPORT_SYNC_FILE)
 * or a new handle; returns 0 or -errno, *made the new handle. */
static int f2h(const char *fdword, int from, uint32_t h, uint32_t flags, uint64_t point,
	       uint32_t pad, uint32_t *made)
{
	struct sw_syncobj_handle_args a = {
		.handle = h, .flags = flags, .fd = from, .pad = pad, .point = point
	};
	char inputs[160], ft[32], tok[64];
	int ret;

	snprintf(inputs, sizeof(inputs), "fd-to-handle fd=%s handle=%s flags=%s point=%llu pad=%u",
		 fdword, flags & SYNC_FILE ? hname(h) : "-", kt_handle_flags(flags, ft, sizeof(ft)),
		 (unsigned long long)point, pad);
	ret = rec_call(inputs, KT_IOCTL_FD_TO_HANDLE, &a, NULL);
	if (ret == 0 && !(flags & SYNC_FILE))
		sw_assert_f(strcmp(kt_state1(fix.fd, a.handle, tok, sizeof(tok)), "?"),
			    "%s: returned a handle that does not exist", inputs);
	if (made)
		*made = ret == 0 ? a.handle : 0;
	return ret;
}

static int xfer(uint32_t src, uint64_t src_point, uint32_t dst, uint64_t dst_point,
		uint32_t flags, uint32_t pad)
{
	struct drm_syncobj_transfer t = {
		.src_handle = src, .dst_handle = dst, .src_point = src_point,
		.dst_point = dst_point, .flags = flags, .pad = pad,
	};
	char inputs[160];

	snprintf(inputs, sizeof(inputs), "transfer src=%s@%llu", hname(src),
		 (unsigned long long)src_point);
	snprintf(inputs + strlen(inputs), sizeof(inputs) - strlen(inputs),
		 " dst=%s@%llu flags=0x%x pad=%u", hname(dst), (unsigned long long)dst_point,
		 flags, pad);
	return rec_call(inputs, DRM_IOCTL_SYNCOBJ_TRANSFER, &t, NULL);
}

/* ---- helpers ------------------------------------------------------------------------- */

/* A pending sw_sync fence of the fixture's timeline (closing it, in
 * kt_fix_free, signals what is left). */
static int sw_fence(uint32_t seqno)
{
	if (fix.timeline <= 0)
		fix.timeline = kt_sw_timeline();
	return kt_sw_fence(fix.timeline, seqno);
}

static void sw_inc(uint32_t n)
{
	kt_sw_inc(fix.timeline, n);
}

/* TIMELINE_WAIT for one point, timeout 0. */
static int twait(uint32_t h, uint64_t point, uint32_t flags)
{
	uint32_t first;

	return kt_wait_call(fix.fd, true, (uintptr_t)&h, (uintptr_t)&point, 1, flags, 0, 0,
			    &first);
}

static const char *state_of(uint32_t h)
{
	static char buf[4][64];
	static int slot;

	slot = (slot + 1) % 4;
	return kt_state1(fix.fd, h, buf[slot], sizeof(buf[slot]));
}

/* An eventfd's count, read (0 when it is not readable within ms). */
static uint64_t ev_take(int efd, int ms)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t v = 0;

	if (poll(&p, 1, ms) == 1 && read(efd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	return v;
}

static int new_eventfd(void)
{
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	sw_assert_f(efd >= 0, "eventfd: %m");
	return efd;
}

/* A number that is no open fd. */
static int closed_fd(void)
{
	int fd = dup(0);

	sw_assert_f(fd >= 0, "dup: %m");
	close(fd);
	return fd;
}

/* ---- CREATE and DESTROY --------------------------------------------------------------- */

static void create_case(uint32_t flags)
{
	struct drm_syncobj_create c = { .handle = KT_FIRST_UNSET, .flags = flags };
	char inputs[64], extra[32];
	struct snap in, out;
	int ret;

	snap_take(&in);
	ret = kt_ioctl(fix.fd, DRM_IOCTL_SYNCOBJ_CREATE, &c);
	snap_take(&out);
	snprintf(inputs, sizeof(inputs), "create flags=0x%x", flags);
	snprintf(extra, sizeof(extra), "handle=%s",
		 c.handle == KT_FIRST_UNSET ? "unchanged" : ret ? "changed" : "new");
	record(inputs, ret, extra, &in, &out);
	if (ret == 0)
		sw_assert_f(strcmp(state_of(c.handle), "?"), "CREATE returned a handle that does "
							      "not exist");
}

static void test_create(uint32_t flags)
{
	begin_with(0, NULL);
	create_case(flags);
	finish();
}

static void test_create_invalid_flags(void)
{
	static const uint32_t flags[] = { 2, 3, 0x80000000u };

	begin_with(0, NULL);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		create_case(flags[i]);
	finish();
}

static int destroy(uint32_t h, uint32_t pad)
{
	struct drm_syncobj_destroy d = { .handle = h, .pad = pad };
	char inputs[64];

	snprintf(inputs, sizeof(inputs), "destroy handle=%s pad=%u", hname(h), pad);
	return rec_call(inputs, DRM_IOCTL_SYNCOBJ_DESTROY, &d, NULL);
}

static void test_destroy_every_state(void)
{
	begin();
	for (uint32_t i = 0; i < M_N; i++) {
		kt_expect(destroy(fix.h[i], 0), 0);
		sw_assert_f(!strcmp(state_of(fix.h[i]), "?"), "%s still exists after DESTROY",
			    mixed_names[i]);
	}
	for (uint32_t i = 0; i < M_N; i++)
		destroy(fix.h[i], 0); /* twice */
	finish();
}

static void test_destroy_invalid(void)
{
	begin();
	destroy(kt_unused_handle(fix.fd), 0);
	destroy(0, 0);
	destroy(fix.h[M_STUB], 1);
	finish();
}

/* The syncobj lives on in its fd: importing it again gives its state. */
static void test_destroy_keeps_exported_syncobj(void)
{
	static const int which[] = { M_PENDING, M_TIMELINE_PENDING };

	begin();
	for (size_t i = 0; i < 2; i++) {
		uint32_t h = fix.h[which[i]], again;
		char was[64];
		int fd;

		snprintf(was, sizeof(was), "%s", state_of(h));
		fd = h2f(h, 0, 0, 0);
		sw_assert_f(fd >= 0, "handle-to-fd of a live syncobj failed: %s", kt_ret(fd));
		kt_expect(destroy(h, 0), 0);
		kt_expect(f2h("syncobj", fd, 0, 0, 0, 0, &again), 0);
		close(fd);
		kt_tr("imported again: %s (was %s)", state_of(again), was);
		sw_assert_f(!strcmp(state_of(again), was),
			    "the syncobj imported back is %s, was %s", state_of(again), was);
	}
	sw_inc(2);
	char *others = kt_fix_others(&fix);
	kt_tr("after the fences signal: others=%s", others);
	free(others);
	finish();
}

/* ---- HANDLE_TO_FD and FD_TO_HANDLE: syncobj fds ----------------------------------- */

/* Exported from one drm fd, imported on another: one syncobj, two handles. */
static void test_handle_to_fd_then_fd_to_handle(void)
{
	static int fd2 = -1;

	begin();
	fd2 = kt_open();
	for (uint32_t i = 0; i < M_N; i++) {
		uint32_t h2 = 0;
		char here[64], there[64];
		int fd = h2f(fix.h[i], 0, 0, 0), ret;

		sw_assert_f(fd >= 0, "handle-to-fd of %s failed: %s", mixed_names[i], kt_ret(fd));
		ret = kt_fd_to_handle(fd2, fd, 0, 0, 0, &h2);
		close(fd);
		sw_assert_f(ret == 0, "fd-to-handle on a second drm fd failed: %s", kt_ret(ret));
		snprintf(here, sizeof(here), "%s", state_of(fix.h[i]));
		kt_state1(fd2, h2, there, sizeof(there));
		sw_assert_f(!strcmp(here, there), "%s is %s, imported on another fd %s",
			    mixed_names[i], here, there);
		ret = kt_array_call(fd2, DRM_IOCTL_SYNCOBJ_SIGNAL, (uintptr_t)&h2, 0, 1, 0);
		sw_assert_f(ret == 0, "SIGNAL through the import failed: %s", kt_ret(ret));
		kt_tr("%s imported on a second fd: %s there; SIGNAL there -> %s here",
		      mixed_names[i], there, state_of(fix.h[i]));
		sw_assert_f(!strcmp(state_of(fix.h[i]), "S") ||
				    !strncmp(state_of(fix.h[i]), "S:", 2),
			    "SIGNAL through the import left %s here", state_of(fix.h[i]));
	}
	close(fd2);
	fd2 = -1;
	finish();
}

static void test_fd_to_handle_twice(void)
{
	uint32_t a, b;
	int fd;

	begin();
	fd = h2f(fix.h[M_PENDING], 0, 0, 0);
	sw_assert_f(fd >= 0, "handle-to-fd failed: %s", kt_ret(fd));
	kt_expect(f2h("syncobj", fd, 0, 0, 0, 0, &a), 0);
	kt_expect(f2h("syncobj", fd, 0, 0, 0, 0, &b), 0);
	close(fd);
	kt_tr("two imports: %s handles", a != b ? "distinct" : "the same");
	sw_assert_f(a != b, "two imports of one fd gave one handle");
	kt_destroy(fix.fd, a);
	kt_tr("one destroyed, the other: %s", state_of(b));
	finish();
}

static void test_handle_to_fd_invalid_handle(void)
{
	begin();
	h2f(kt_unused_handle(fix.fd), 0, 0, 0);
	h2f(0, 0, 0, 0);
	finish();
}

/* Flags and pad that are not accepted, and the 6.16 point where it does not
 * apply: outcomes as the kernel gives them. Any fd returned is closed. */
static void h2f_close(uint32_t h, uint32_t flags, uint64_t point, uint32_t pad)
{
	int fd = h2f(h, flags, point, pad);

	if (fd >= 0)
		close(fd);
}

static void test_handle_to_fd_invalid_flags(void)
{
	begin();
	h2f_close(fix.h[M_STUB], 4, 0, 0);
	h2f_close(fix.h[M_STUB], 0x80000000u, 0, 0);
	h2f_close(fix.h[M_STUB], SYNC_FILE | 4, 0, 0);
	finish();
}

static void test_handle_to_fd_pad(void)
{
	begin();
	h2f_close(fix.h[M_STUB], 0, 0, 1);
	h2f_close(fix.h[M_STUB], SYNC_FILE, 0, 1);
	finish();
}

static void test_handle_to_fd_point_without_flag(void)
{
	begin();
	h2f_close(fix.h[M_TIMELINE_PENDING], 0, 5, 0);
	finish();
}

static void test_handle_to_fd_timeline_without_export(void)
{
	begin();
	h2f_close(fix.h[M_TIMELINE_PENDING], TIMELINE, 0, 0);
	h2f_close(fix.h[M_TIMELINE_PENDING], TIMELINE, 5, 0);
	finish();
}

/* The fds that are not syncobj fds, for FD_TO_HANDLE without and with
 * IMPORT_SYNC_FILE (wrong is the kind the flags do not want). */
static void f2h_bad_fds(uint32_t h, uint32_t flags, uint64_t point)
{
	int efd = new_eventfd(), wrong;

	wrong = flags & SYNC_FILE ? h2f(fix.h[M_STUB], 0, 0, 0) : kt_signaled_sync_file(fix.fd);
	sw_assert_f(wrong >= 0, "could not make the wrong kind of fd: %s", kt_ret(wrong));
	f2h("-1", -1, h, flags, point, 0, NULL);
	f2h("closed", closed_fd(), h, flags, point, 0, NULL);
	f2h("eventfd", efd, h, flags, point, 0, NULL);
	f2h("drm", fix.fd, h, flags, point, 0, NULL);
	f2h(flags & SYNC_FILE ? "syncobj" : "sync_file", wrong, h, flags, point, 0, NULL);
	close(efd);
	close(wrong);
}

static void test_fd_to_handle_invalid_fd(void)
{
	begin();
	f2h_bad_fds(0, 0, 0);
	finish();
}

/* One syncobj fd imported with the given flags, point and pad; any handle
 * made is left for the fixture to release. */
static void f2h_syncobj(uint32_t flags, uint64_t point, uint32_t pad)
{
	int fd = h2f(fix.h[M_STUB], 0, 0, 0);

	sw_assert_f(fd >= 0, "handle-to-fd failed: %s", kt_ret(fd));
	f2h("syncobj", fd, 0, flags, point, pad, NULL);
	close(fd);
}

static void test_fd_to_handle_invalid_flags(void)
{
	begin();
	f2h_syncobj(4, 0, 0);
	f2h_syncobj(0x80000000u, 0, 0);
	f2h_syncobj(0, 0, 1);
	finish();
}

static void test_fd_to_handle_point_without_flag(void)
{
	begin();
	f2h_syncobj(0, 5, 0);
	finish();
}

static void test_fd_to_handle_timeline_without_import(void)
{
	begin();
	f2h_syncobj(TIMELINE, 0, 0);
	f2h_syncobj(TIMELINE, 5, 0);
	finish();
}

/* ---- sync_file export ------------------------------------------------------------------- */

static void test_export_every_state(void)
{
	begin();
	for (uint32_t i = 0; i < M_N; i++)
		h2f_close(fix.h[i], SYNC_FILE, 0, 0);
	finish();
}

/* "any later signal or reset operations on the syncobj will not affect the
 * exported sync file" (drm_syncobj.c) */
static void test_export_is_a_snapshot(void)
{
	uint32_t h;
	int file, stub;

	begin();
	h = fix.h[M_PENDING];
	file = h2f(h, SYNC_FILE, 0, 0);
	sw_assert_f(file >= 0, "EXPORT_SYNC_FILE of a pending fence failed: %s", kt_ret(file));
	kt_expect(kt_array_call(fix.fd, DRM_IOCTL_SYNCOBJ_RESET, (uintptr_t)&h, 0, 1, 0), 0);
	kt_tr("reset: syncobj %s file %s", state_of(h), kt_sync_letter(kt_sync_status(file)));
	sw_assert_f(kt_sync_status(file) == 0, "RESET changed the exported sync_file");
	stub = kt_signaled_sync_file(fix.fd);
	f2h("sync_file:S", stub, h, SYNC_FILE, 0, 0, NULL);
	close(stub);
	kt_tr("signalled fence imported: syncobj %s file %s", state_of(h),
	      kt_sync_letter(kt_sync_status(file)));
	sw_assert_f(kt_sync_status(file) == 0, "an import changed the exported sync_file");
	sw_inc(1);
	kt_tr("its fence signalled: file %s", kt_sync_letter(kt_sync_status(file)));
	close(file);
	finish();
}

static void test_export_invalid_handle(void)
{
	begin();
	h2f(kt_unused_handle(fix.fd), SYNC_FILE, 0, 0);
	h2f(0, SYNC_FILE, 0, 0);
	finish();
}

static void test_export_at_signaled_point(void)
{
	static const uint64_t points[] = { 5, 4, 1 };

	begin();
	for (size_t i = 0; i < 3; i++) {
		h2f_close(fix.h[M_TIMELINE_PENDING], SYNC_FILE | TIMELINE, points[i], 0);
		h2f_close(fix.h[M_TIMELINE], SYNC_FILE | TIMELINE, points[i], 0);
	}
	finish();
}

/* A pending point's sync_file signals with that point's fence, which is
 * the one that was put there. */
static void test_export_at_pending_point(void)
{
	int file;

	begin();
	file = h2f(fix.h[M_TIMELINE_PENDING], SYNC_FILE | TIMELINE, 8, 0);
	if (file >= 0) {
		bool same;

		sw_inc(2); /* the fixture's seqno 2 is point 8's fence */
		sw_assert_f(kt_sync_wait(file, 1000), "the sync_file of point 8 did not signal");
		same = kt_sync_same_fence(fix.fence_fd[2], file);
		kt_tr("after the point's fence signalled: file %s, %s",
		      kt_sync_letter(kt_sync_status(file)), same ? "its fence" : "another fence");
		close(file);
		sw_assert_f(same, "the sync_file of point 8 does not hold the point's fence");
	}
	finish();
}

static void test_export_at_unsubmitted_point(void)
{
	begin();
	h2f_close(fix.h[M_TIMELINE_PENDING], SYNC_FILE | TIMELINE, 9, 0);
	h2f_close(fix.h[M_TIMELINE], SYNC_FILE | TIMELINE, 6, 0);
	h2f_close(fix.h[M_NONE], SYNC_FILE | TIMELINE, 1, 0);
	finish();
}

static void test_export_at_point_zero(void)
{
	begin();
	h2f_close(fix.h[M_TIMELINE_PENDING], SYNC_FILE | TIMELINE, 0, 0);
	finish();
}

static void test_export_at_point_of_binary(void)
{
	begin();
	h2f_close(fix.h[M_STUB], SYNC_FILE | TIMELINE, 1, 0);
	h2f_close(fix.h[M_PENDING], SYNC_FILE | TIMELINE, 1, 0);
	finish();
}

static void test_export_point_without_flag(void)
{
	begin();
	h2f_close(fix.h[M_TIMELINE_PENDING], SYNC_FILE, 5, 0);
	finish();
}

/* ---- sync_file import ------------------------------------------------------------------- */

static void test_import_every_state(bool signaled)
{
	int file;

	begin();
	file = signaled ? kt_signaled_sync_file(fix.fd) : sw_fence(3);
	for (uint32_t i = 0; i < M_N; i++)
		f2h(signaled ? "sync_file:S" : "sync_file:P", file, fix.h[i], SYNC_FILE, 0, 0,
		    NULL);
	close(file);
	finish();
}

static void test_import_invalid_fd(void)
{
	begin();
	f2h_bad_fds(fix.h[M_STUB], SYNC_FILE, 0);
	finish();
}

static void test_import_invalid_handle(void)
{
	int file;

	begin();
	file = sw_fence(3);
	f2h("sync_file:P", file, kt_unused_handle(fix.fd), SYNC_FILE, 0, 0, NULL);
	f2h("sync_file:P", file, 0, SYNC_FILE, 0, 0, NULL);
	close(file);
	finish();
}

static void test_import_invalid_flags(void)
{
	int file;

	begin();
	file = sw_fence(3);
	f2h("sync_file:P", file, fix.h[M_STUB], SYNC_FILE | 4, 0, 0, NULL);
	f2h("sync_file:P", file, fix.h[M_STUB], SYNC_FILE, 0, 1, NULL);
	close(file);
	finish();
}

/* The 6.16 import at a point: a signalled fence at 7 and a pending one at
 * 9 on a timeline at 5, each followed by what QUERY and the waits say. */
static void test_import_at_point_then_query(void)
{
	static const struct kt_spec t5 = { .kind = KT_TIMELINE, .sig = 5 };
	uint32_t h;
	int stub, pend, r7, r9;

	begin_with(1, &t5);
	h = fix.h[0];
	stub = kt_signaled_sync_file(fix.fd);
	r7 = f2h("sync_file:S", stub, h, SYNC_FILE | TIMELINE, 7, 0, NULL);
	close(stub);
	kt_tr("then: state %s, wait@7 %s", state_of(h), kt_ret(twait(h, 7, 0)));
	if (r7 == 0)
		sw_assert_f(!strcmp(state_of(h), "S:7/7"), "after a signalled fence at 7: %s",
			    state_of(h));
	pend = sw_fence(1);
	r9 = f2h("sync_file:P", pend, h, SYNC_FILE | TIMELINE, 9, 0, NULL);
	kt_tr("then: state %s, wait@9 %s, wait@9 AVAILABLE %s, wait@10 %s", state_of(h),
	      kt_ret(twait(h, 9, 0)), kt_ret(twait(h, 9, AVAILABLE)), kt_ret(twait(h, 10, 0)));
	if (r9 == 0) {
		sw_assert_f(!strcmp(state_of(h), r7 ? "P:5/9" : "P:7/9"),
			    "after a pending fence at 9: %s", state_of(h));
		kt_expect(twait(h, 9, 0), -ETIME);
		kt_expect(twait(h, 9, AVAILABLE), 0);
	}
	sw_inc(1);
	kt_tr("its fence signalled: state %s, wait@9 %s", state_of(h), kt_ret(twait(h, 9, 0)));
	if (r9 == 0) {
		int file = kt_export(fix.fd, h, 9);
		bool same;

		sw_assert_f(file >= 0, "export of point 9 failed: %s", kt_ret(file));
		same = kt_sync_same_fence(pend, file);
		close(file);
		kt_tr("point 9 exported: %s", same ? "the imported fence" : "another fence");
		sw_assert_f(same, "point 9 does not hold the imported fence");
	}
	close(pend);
	finish();
}

static void test_import_at_point_every_state(void)
{
	int file;

	begin();
	file = sw_fence(3);
	for (uint32_t i = 0; i < M_N; i++)
		f2h("sync_file:P", file, fix.h[i], SYNC_FILE | TIMELINE, 10, 0, NULL);
	close(file);
	finish();
}

/* A point below the last one (QUERY's comment in drm_syncobj.c warns). */
static void test_import_at_point_unordered(void)
{
	uint32_t h;
	int stub;

	begin();
	h = fix.h[M_TIMELINE_PENDING];
	stub = kt_signaled_sync_file(fix.fd);
	f2h("sync_file:S", stub, h, SYNC_FILE | TIMELINE, 3, 0, NULL);
	close(stub);
	kt_tr("then: wait@3 %s, wait@5 %s, wait@8 %s", kt_ret(twait(h, 3, 0)),
	      kt_ret(twait(h, 5, 0)), kt_ret(twait(h, 8, 0)));
	finish();
}

static void import_stub(uint32_t h, uint32_t flags, uint64_t point)
{
	int stub = kt_signaled_sync_file(fix.fd);

	f2h("sync_file:S", stub, h, flags, point, 0, NULL);
	close(stub);
}

static void test_import_at_point_zero(void)
{
	begin();
	import_stub(fix.h[M_TIMELINE_PENDING], SYNC_FILE | TIMELINE, 0);
	finish();
}

static void test_import_point_without_flag(void)
{
	begin();
	import_stub(fix.h[M_TIMELINE_PENDING], SYNC_FILE, 7);
	finish();
}

/* Failing imports at a point drop the fence they took: finish() finds the
 * fence's timeline gone. */
static void test_import_at_point_invalid(void)
{
	int file;

	begin();
	file = sw_fence(3);
	f2h("sync_file:P", file, kt_unused_handle(fix.fd), SYNC_FILE | TIMELINE, 7, 0, NULL);
	f2h("sync_file:P", file, 0, SYNC_FILE | TIMELINE, 7, 0, NULL);
	f2h("sync_file:P", file, fix.h[M_TIMELINE], SYNC_FILE | TIMELINE, 7, 1, NULL);
	f2h("sync_file:P", file, fix.h[M_TIMELINE], SYNC_FILE | TIMELINE | 4, 7, 0, NULL);
	close(file);
	f2h_bad_fds(fix.h[M_TIMELINE], SYNC_FILE | TIMELINE, 7);
	finish();
}

/* ---- TRANSFER ---------------------------------------------------------------------------- */

static void test_transfer_binary_to_timeline(void)
{
	begin();
	xfer(fix.h[M_PENDING], 0, fix.h[M_TIMELINE_PENDING], 10, 0, 0);
	xfer(fix.h[M_STUB], 0, fix.h[M_NONE], 3, 0, 0);
	xfer(fix.h[M_STUB], 0, fix.h[M_TIMELINE], 6, 0, 0);
	finish();
}

static void test_transfer_timeline_to_binary(void)
{
	begin();
	xfer(fix.h[M_TIMELINE_PENDING], 5, fix.h[M_PENDING], 0, 0, 0);
	xfer(fix.h[M_TIMELINE_PENDING], 8, fix.h[M_NONE], 0, 0, 0);
	xfer(fix.h[M_TIMELINE_PENDING], 3, fix.h[M_STUB], 0, 0, 0);
	finish();
}

static void test_transfer_timeline_to_timeline(void)
{
	begin();
	xfer(fix.h[M_TIMELINE_PENDING], 8, fix.h[M_TIMELINE], 6, 0, 0);
	xfer(fix.h[M_TIMELINE], 5, fix.h[M_TIMELINE_PENDING], 9, 0, 0);
	finish();
}

static void test_transfer_binary_to_binary(void)
{
	begin();
	xfer(fix.h[M_PENDING], 0, fix.h[M_STUB], 0, 0, 0);
	xfer(fix.h[M_STUB], 0, fix.h[M_NONE], 0, 0, 0);
	finish();
}

static void test_transfer_invalid(void)
{
	uint32_t unused;

	begin();
	unused = kt_unused_handle(fix.fd);
	xfer(fix.h[M_STUB], 0, fix.h[M_TIMELINE], 6, 0, 1);
	xfer(fix.h[M_STUB], 0, fix.h[M_TIMELINE], 6, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0);
	xfer(fix.h[M_STUB], 0, fix.h[M_TIMELINE], 6, 0x80, 0);
	xfer(unused, 0, fix.h[M_TIMELINE], 6, 0, 0);
	xfer(fix.h[M_STUB], 0, unused, 6, 0, 0);
	xfer(fix.h[M_STUB], 0, unused, 0, 0, 0);
	xfer(fix.h[M_NONE], 0, fix.h[M_TIMELINE], 6, 0, 0);
	xfer(fix.h[M_NONE], 0, fix.h[M_STUB], 0, 0, 0);
	xfer(fix.h[M_TIMELINE_PENDING], 9, fix.h[M_TIMELINE], 6, 0, 0);
	finish();
}

/* ---- EVENTFD ----------------------------------------------------------------------------- */

/* SYNCOBJ_EVENTFD on h at point, recorded with what the eventfd holds right
 * after ("eventfd=N", 0 when not readable). */
static int evcall(int efd, uint32_t h, uint64_t point, uint32_t flags, uint32_t pad,
		  const char *fdword)
{
	struct drm_syncobj_eventfd e = {
		.handle = h, .flags = flags, .point = point, .fd = efd, .pad = pad
	};
	char inputs[128], extra[32];
	struct snap in, out;
	int ret;

	snprintf(inputs, sizeof(inputs), "eventfd handle=%s point=%llu flags=0x%x pad=%u fd=%s",
		 hname(h), (unsigned long long)point, flags, pad, fdword);
	snap_take(&in);
	ret = kt_ioctl(fix.fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &e);
	snap_take(&out);
	snprintf(extra, sizeof(extra), "eventfd=%llu",
		 efd >= 0 ? (unsigned long long)ev_take(efd, 0) : 0ull);
	record(inputs, ret, extra, &in, &out);
	return ret;
}

static void test_eventfd_points(uint32_t which, uint64_t point, uint32_t flags, uint32_t inc)
{
	int efd;

	begin();
	efd = new_eventfd();
	evcall(efd, fix.h[which], point, flags, 0, "eventfd");
	if (inc)
		sw_inc(inc);
	kt_tr("after the fences signal: eventfd=%llu", (unsigned long long)ev_take(efd, 100));
	close(efd);
	finish();
}

/* Armed on a point nobody has submitted: fires once one is there and
 * signals (or, with WAIT_AVAILABLE, once it is there). */
static void test_eventfd_unsubmitted_point(uint32_t flags)
{
	int efd;

	begin();
	efd = new_eventfd();
	evcall(efd, fix.h[M_TIMELINE], 12, flags, 0, "eventfd");
	kt_fix_add_point(&fix, fix.h[M_TIMELINE], 12, 3);
	kt_tr("point 12 submitted, pending: eventfd=%llu", (unsigned long long)ev_take(efd, 0));
	sw_inc(3);
	kt_tr("point 12 signalled: eventfd=%llu", (unsigned long long)ev_take(efd, 100));
	close(efd);
	finish();
}

static void test_eventfd_invalid(void)
{
	int efd, file;

	begin();
	efd = new_eventfd();
	file = kt_signaled_sync_file(fix.fd);
	evcall(efd, fix.h[M_TIMELINE], 5, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0, "eventfd");
	evcall(efd, fix.h[M_TIMELINE], 5, 0x80, 0, "eventfd");
	evcall(efd, fix.h[M_TIMELINE], 5, 0, 1, "eventfd");
	evcall(efd, kt_unused_handle(fix.fd), 5, 0, 0, "eventfd");
	evcall(-1, fix.h[M_TIMELINE], 5, 0, 0, "-1");
	evcall(closed_fd(), fix.h[M_TIMELINE], 5, 0, 0, "closed");
	evcall(file, fix.h[M_TIMELINE], 5, 0, 0, "sync_file");
	close(file);
	close(efd);
	finish();
}

int main(int argc, char **argv)
{
	kt_init("syncobj-handle-fd", argc, argv);
	kt_tr_open(); /* its fd is the program's, not a subtest's */
	kt_fdset_read(&fds_main);

	kt_subtest("create-flags-0") test_create(0);
	kt_subtest("create-signaled") test_create(DRM_SYNCOBJ_CREATE_SIGNALED);
	kt_subtest("create-invalid-flags") test_create_invalid_flags();
	kt_subtest("destroy-every-state") test_destroy_every_state();
	kt_subtest("destroy-invalid-handle-or-pad") test_destroy_invalid();
	kt_subtest("destroy-keeps-exported-syncobj") test_destroy_keeps_exported_syncobj();

	kt_subtest("handle-to-fd-then-fd-to-handle") test_handle_to_fd_then_fd_to_handle();
	kt_subtest("fd-to-handle-twice-gives-two-handles") test_fd_to_handle_twice();
	kt_subtest("handle-to-fd-invalid-handle") test_handle_to_fd_invalid_handle();
	kt_subtest("handle-to-fd-invalid-flags") test_handle_to_fd_invalid_flags();
	kt_subtest("handle-to-fd-pad-nonzero") test_handle_to_fd_pad();
	kt_subtest("handle-to-fd-point-without-flag") test_handle_to_fd_point_without_flag();
	kt_subtest("handle-to-fd-timeline-flag-without-export")
		test_handle_to_fd_timeline_without_export();
	kt_subtest("fd-to-handle-invalid-fd") test_fd_to_handle_invalid_fd();
	kt_subtest("fd-to-handle-invalid-flags-or-pad") test_fd_to_handle_invalid_flags();
	kt_subtest("fd-to-handle-point-without-flag") test_fd_to_handle_point_without_flag();
	kt_subtest("fd-to-handle-timeline-flag-without-import")
		test_fd_to_handle_timeline_without_import();

	kt_subtest("export-sync-file-every-state") test_export_every_state();
	kt_subtest("export-sync-file-is-a-snapshot") test_export_is_a_snapshot();
	kt_subtest("export-sync-file-invalid-handle") test_export_invalid_handle();
	kt_subtest("export-sync-file-at-signaled-point") test_export_at_signaled_point();
	kt_subtest("export-sync-file-at-pending-point") test_export_at_pending_point();
	kt_subtest("export-sync-file-at-unsubmitted-point") test_export_at_unsubmitted_point();
	kt_subtest("export-sync-file-at-point-zero") test_export_at_point_zero();
	kt_subtest("export-sync-file-at-point-of-binary") test_export_at_point_of_binary();
	kt_subtest("export-sync-file-point-without-flag") test_export_point_without_flag();

	kt_subtest("import-sync-file-every-state") test_import_every_state(false);
	kt_subtest("import-sync-file-signaled-every-state") test_import_every_state(true);
	kt_subtest("import-sync-file-invalid-fd") test_import_invalid_fd();
	kt_subtest("import-sync-file-invalid-handle") test_import_invalid_handle();
	kt_subtest("import-sync-file-invalid-flags-or-pad") test_import_invalid_flags();
	kt_subtest("import-sync-file-at-point-then-query") test_import_at_point_then_query();
	kt_subtest("import-sync-file-at-point-every-state") test_import_at_point_every_state();
	kt_subtest("import-sync-file-at-point-unordered") test_import_at_point_unordered();
	kt_subtest("import-sync-file-at-point-zero") test_import_at_point_zero();
	kt_subtest("import-sync-file-point-without-flag") test_import_point_without_flag();
	kt_subtest("import-sync-file-at-point-invalid") test_import_at_point_invalid();

	kt_subtest("transfer-binary-to-timeline") test_transfer_binary_to_timeline();
	kt_subtest("transfer-timeline-to-binary") test_transfer_timeline_to_binary();
	kt_subtest("transfer-timeline-to-timeline") test_transfer_timeline_to_timeline();
	kt_subtest("transfer-binary-to-binary") test_transfer_binary_to_binary();
	kt_subtest("transfer-invalid") test_transfer_invalid();

	kt_subtest("eventfd-signaled-point") test_eventfd_points(M_TIMELINE_PENDING, 5, 0, 0);
	kt_subtest("eventfd-pending-point") test_eventfd_points(M_TIMELINE_PENDING, 8, 0, 2);
	kt_subtest("eventfd-available-pending-point")
		test_eventfd_points(M_TIMELINE_PENDING, 8, AVAILABLE, 0);
	kt_subtest("eventfd-binary-pending") test_eventfd_points(M_PENDING, 0, 0, 1);
	kt_subtest("eventfd-unsubmitted-point") test_eventfd_unsubmitted_point(0);
	kt_subtest("eventfd-unsubmitted-point-available") test_eventfd_unsubmitted_point(AVAILABLE);
	kt_subtest("eventfd-invalid") test_eventfd_invalid();

	return kt_exit();
}
