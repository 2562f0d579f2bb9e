/* Shared pieces of the drm_syncobj kernel behaviour suite (tests/kernel/).
 *
 * Every binary of the suite runs in a guest with a syncobj-capable render
 * node. It issues the array ioctls with raw ioctl() (so it can pass bad
 * pointers), builds syncobjs in known states through single-object paths
 * (CREATE, sync_file import, TRANSFER), reads their state back the same way,
 * and writes a canonical transcript: one line per case, inputs and outcome,
 * no timings, no addresses, no handle numbers.
 *
 * kt.c is the core (command line, transcript, device, handles); each
 * kt_*.c file owns one concern, named in its section below.
 */
#ifndef SYNCWAY_KT_H
#define SYNCWAY_KT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/sync_file.h>

#include <xf86drm.h>

#include "clock.h"
#include "harness.h"
#include "syncobj_uapi.h"

/* ---- sizes the 6.12 kernel imposes (read from drm_syncobj.c) ----------------
 * The array ioctls have no explicit limit on count_handles: the limit is what
 * kmalloc can give without going past KMALLOC_MAX_SIZE (4 MiB on x86-64 with
 * MAX_PAGE_ORDER 10). Past it the page allocator hits
 * WARN_ON_ONCE_GFP(order > MAX_PAGE_ORDER) (no __GFP_NOWARN) and the ioctl
 * fails with ENOMEM.
 *   WAIT, TIMELINE_WAIT: kcalloc(count, sizeof(struct syncobj_wait_entry) = 64)
 *   RESET, SIGNAL, QUERY, TIMELINE_SIGNAL: kmalloc_array(count, 8)
 */
#define KT_KMALLOC_MAX_SIZE (4u << 20)
#define KT_WAIT_ENTRY_SIZE 64u
#define KT_MAX_WAIT_COUNT (KT_KMALLOC_MAX_SIZE / KT_WAIT_ENTRY_SIZE)     /* 65536 */
#define KT_MAX_ARRAY_COUNT (KT_KMALLOC_MAX_SIZE / 8u)                    /* 524288 */

/* The counts every array ioctl is tried with (the maximum is separate). */
extern const uint32_t kt_counts[];
extern const size_t kt_ncounts;

/* Positions of "the bad element" in an array of n: first, middle, last
 * (deduplicated). Returns how many were written to pos[3]. */
int kt_positions(uint32_t n, uint32_t pos[3]);
const char *kt_pos_name(uint32_t n, uint32_t k);

/* With SYNCWAY_KT_FEW_COUNTS=1 (the debug kernels, whose KASAN and lockdep
 * make every call slow under TCG) only 1, 4 (the largest on-stack array), 5
 * (the first past it) and 64 are tried: true for the counts left out. */
bool kt_count_skipped(uint32_t n);

/* n over kt_counts[] but 0 (a case of its own in every suite). */
#define kt_for_each_count(n)                                                           \
	for (size_t kt_c_ = 1; kt_c_ < kt_ncounts && ((n) = kt_counts[kt_c_], true); kt_c_++) \
		if (kt_count_skipped(n)) {                                             \
		} else

/* Counts for the "pending fence signalled later" cases of every suite. */
static const uint32_t kt_later_counts[] = { 1, 2, 3, 4, 5, 8, 64, 1024 };
#define KT_N_LATER (sizeof(kt_later_counts) / sizeof(kt_later_counts[0]))

/* n over kt_later_counts[]. */
#define kt_for_each_later_count(n)                                                     \
	for (size_t kt_c_ = 0; kt_c_ < KT_N_LATER && ((n) = kt_later_counts[kt_c_], true); kt_c_++) \
		if (kt_count_skipped(n)) {                                             \
		} else

/* k over kt_positions(n). */
#define kt_for_each_pos(k, n)                                                          \
	for (uint32_t kt_pos_[3], kt_npos_ = (uint32_t)kt_positions(n, kt_pos_), kt_p_ = 0;  \
	     kt_p_ < kt_npos_ && ((k) = kt_pos_[kt_p_], true); kt_p_++)

/* ---- command line and transcript ----------------------------------------- */

/* Takes "--name VALUE" out of argv, adjusting *argc, for options of a
 * binary's own: VALUE (the last one given), or NULL. */
const char *kt_take_option(int *argc, char **argv, const char *name);

/* Strips --transcript FILE and calls sw_test_init(). Without the option the
 * transcript goes to $SYNCWAY_TRANSCRIPT_DIR/<suite>.txt if that is set. */
void kt_init(const char *suite, int argc, char **argv);
int kt_exit(void);

/* Starts a subtest and remembers its name for transcript lines. */
#define kt_subtest(name) sw_subtest(kt_subtest_name(name))
const char *kt_subtest_name(const char *name);

/* Appends one line "<subtest>: <text>" to the transcript (no-op without one). */
void kt_tr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opens the transcript now rather than at its first line: for a program
 * that counts its own fds. */
void kt_tr_open(void);

/* true when an environment variable is set to a non-empty value other than 0 */
bool kt_env_flag(const char *name);

void kt_sleep_ms(long ms);

/* ---- device and raw ioctls ----------------------------------------------- */

/* Opens a fresh render-node fd (so a case's handles go away with close()),
 * or skips the subtest when there is no node or no timeline syncobjs. */
int kt_open(void);

/* ioctl() once (no EINTR retry); returns 0 or -errno. */
int kt_ioctl(int fd, unsigned long req, void *arg);

/* "0" or the errno name ("ENOENT") for a kt_ioctl result. */
const char *kt_ret(int ret);

/* Fails the subtest unless call returns want (0 or -errno). */
#define kt_expect(call, want)                                                          \
	do {                                                                           \
		int r_ = (call);                                                       \
		sw_assert_f(r_ == (want), "%s: expected %s, got %s", #call,            \
			    kt_ret(want), kt_ret(r_));                                 \
	} while (0)

uint32_t kt_create(int fd, uint32_t flags);
void kt_destroy(int fd, uint32_t handle);

/* A handle number that is not in use on fd (above every handle made so far). */
uint32_t kt_unused_handle(int fd);

/* ---- sw_sync: CPU-signalled fences (kt_sw_sync.c) ------------------------ */

/* Opens a sw_sync timeline (debugfs); skips the subtest if there is none. */
int kt_sw_timeline(void);
/* A sync_file fd for a fence that signals when the timeline reaches seqno. */
int kt_sw_fence(int timeline, uint32_t seqno);
/* Advances the timeline by inc. */
void kt_sw_inc(int timeline, uint32_t inc);
/* The deadline hint on a sw_sync fence: true and *ns when one is set. */
bool kt_sw_deadline(int fence_fd, uint64_t *ns);
/* How many sw_sync timelines this process made are still alive, from
 * debugfs's sync/info (a timeline lives while one of its fences does, so
 * after every fd is closed a non-zero count is a leaked fence reference);
 * -1 when sync/info cannot be read. */
int kt_sw_timelines_alive(void);

/* ---- fixtures: n syncobjs in described states (kt_fixture.c) -------------- */

enum kt_kind {
	KT_NONE,      /* created, no fence */
	KT_SIGNALED,  /* DRM_SYNCOBJ_CREATE_SIGNALED (stub fence) */
	KT_PENDING,   /* binary, holding an unsignalled sw_sync fence */
	KT_TIMELINE,  /* points via TRANSFER: sig (signalled) then pend (pending) */
};

struct kt_spec {
	enum kt_kind kind;
	uint64_t sig;     /* KT_TIMELINE: signalled point (0: none) */
	uint64_t pend;    /* KT_TIMELINE: pending point after sig (0: none) */
	uint32_t seqno;   /* KT_PENDING / pend: the sw_sync seqno (0 means 1) */
};

#define KT_MAX_SEQNO 64

struct kt_fix {
	int fd;
	int timeline;           /* sw_sync timeline, -1 until needed */
	uint32_t n;
	uint32_t *h;            /* n handles, in spec order */
	int fence_fd[KT_MAX_SEQNO + 1]; /* sync_file per seqno, -1 until needed */
	uint32_t src_signaled;  /* helper binary syncobjs for TRANSFER */
};

typedef struct kt_spec (*kt_spec_fn)(uint32_t i, uint32_t n, const void *ctx);

/* Fixtures live in static storage: a zeroed struct kt_fix is empty (fd 0
 * and fence_fd 0 mean "none"). kt_fix_make releases any previous fixture in
 * *f, then opens a fresh fd and makes n syncobjs. */
void kt_fix_make(struct kt_fix *f, uint32_t n, kt_spec_fn spec, const void *ctx);
/* All n in one state. */
void kt_fix_make_all(struct kt_fix *f, uint32_t n, struct kt_spec spec);
void kt_fix_free(struct kt_fix *f);
/* Imports the pending sw_sync fence with this seqno into handle h. */
void kt_fix_import_pending(struct kt_fix *f, uint32_t h, uint32_t seqno);
/* Adds a point to timeline syncobj h via TRANSFER (pending when seqno != 0). */
void kt_fix_add_point(struct kt_fix *f, uint32_t h, uint64_t point, uint32_t seqno);

/* Fills a u32 array with the fixture's handles, replacing position bad (if
 * < n) with an unused handle. */
uint32_t *kt_handles(const struct kt_fix *f, uint32_t bad);

/* A mix of every state, cycling with i: N, S, P (seqno 1), timeline at 5,
 * timeline at 5 with pending 8 (seqno 2). */
struct kt_spec kt_spec_mixed(uint32_t i, uint32_t n, const void *ctx);

/* kt_spec_mixed at the positions kt_fix_state probes, KT_NONE elsewhere:
 * cheap to build for the maximum counts. */
struct kt_spec kt_spec_mixed_probed(uint32_t i, uint32_t n, const void *ctx);

/* For kt_spec_only: at_k at position k (and, with from_k, after it),
 * others elsewhere. */
struct kt_only {
	uint32_t k;
	struct kt_spec at_k, others;
	bool from_k;
};
struct kt_spec kt_spec_only(uint32_t i, uint32_t n, const void *ctx);

/* Common spec constructors. */
struct kt_spec kt_none(void);
struct kt_spec kt_signaled(void);
struct kt_spec kt_pending(uint32_t seqno);
struct kt_spec kt_timeline(uint64_t sig, uint64_t pend, uint32_t seqno);

/* ---- reading states back (kt_state.c) -------------------------------------- */

/* The state of one handle: a letter for the fence (N none, P pending,
 * S signalled, E signalled with an error, from the exported sync_file) and,
 * when not both zero, ":query/last_submitted" from a one-handle QUERY.
 * An unknown handle gives "?". Writes into buf (>= 64 bytes). */
const char *kt_state1(int fd, uint32_t handle, char *buf, size_t len);

/* The state of every handle of the fixture, run-length encoded:
 * "[S*3,P,S*60]". Returns a malloc'd string the caller frees. Fixtures of
 * more than KT_STATE_ALL_UP_TO handles (the maximum-count cases) are probed
 * at a fixed sample of positions (first and last 64, the middle three, every
 * 257th); the others show as "-". Probing costs five syscalls per handle. */
#define KT_STATE_ALL_UP_TO 4096u
bool kt_state_probed(uint32_t n, uint32_t i);
char *kt_fix_state(const struct kt_fix *f);
/* The states of the live handles on the fixture's fd that are not among
 * its handles or its helper (made by the call under test: CREATE,
 * FD_TO_HANDLE), in handle order: "[S]", "[]" for none. malloc'd. */
char *kt_fix_others(const struct kt_fix *f);

/* ---- sync_files (kt_state.c) ---------------------------------------------- */

/* What SYNC_IOC_FILE_INFO says about a sync_file: its status (1 signalled,
 * 0 pending, < 0 the error) and its fences (containers unwrapped). */
#define KT_SYNC_MAX_FENCES 8
struct kt_sync_info {
	int status;
	uint32_t n;   /* fences in the file; the first KT_SYNC_MAX_FENCES are in f[] */
	struct sync_fence_info f[KT_SYNC_MAX_FENCES];
};
void kt_sync_info(int sync_file, struct kt_sync_info *si);
int kt_sync_status(int sync_file);
/* "S", "P" or "E" for a status, as in the state tokens. */
const char *kt_sync_letter(int status);
/* poll()s the sync_file: true once it has signalled, false after timeout_ms. */
bool kt_sync_wait(int sync_file, int timeout_ms);
/* Whether the one fence of sync_file one, signalled, is among the fences of
 * other: same driver, timeline and signal time (the time, in ns, that
 * dma_fence_signal stamped on it tells one fence from every other). */
bool kt_sync_same_fence(int one, int other);

/* ---- the maximum counts (kt.c) ------------------------------------------------ */

/* The first statement of every max-count subtest: skips it, saying why,
 * when SYNCWAY_KT_SKIP_MAX=1. The debug kernel needs minutes for the
 * 65536+ CREATEs of each; base and patched always run them. */
void kt_max_count_or_skip(void);

/* The first statement of every over-max-count subtest: skips it unless
 * SYNCWAY_KT_WARN=1, because one handle past the maximum makes 6.12 print
 * a page-allocator WARNING, which fails a tools/vm-run run. */
void kt_over_max_count_or_skip(void);

/* ---- bad user pointers (kt_user_ptr.c) ------------------------------------- */

/* An array of count elements of elem bytes whose element k starts on
 * (split: straddles) the first byte of a PROT_NONE region: elements before k
 * are readable and writable. Copy data in with kt_fault_fill(). */
struct kt_fault {
	void *map;
	size_t map_len;
	void *array;
	size_t readable;  /* bytes of the array before the PROT_NONE region */
};
void kt_fault_make(struct kt_fault *fa, size_t elem, uint32_t count, uint32_t k, bool split);
void kt_fault_fill(struct kt_fault *fa, const void *src, size_t len);
void kt_fault_free(struct kt_fault *fa);

/* An address that was mapped and has just been unmapped. */
uint64_t kt_unmapped_address(void);
/* An address inside the kernel half of the address space. */
#define KT_KERNEL_ADDRESS 0xffff888000000000ull

/* Read-only mapping holding len bytes of src (for pointers the kernel writes). */
void *kt_readonly_copy(const void *src, size_t len);
void kt_readonly_free(void *p, size_t len);

/* A user array argument in one of its variants, with a transcript word:
 * "ok", "null", "unmapped", "kernel", "readonly", "fault@K(first)" (element
 * K starts the PROT_NONE region), "fault@K(middle)+split" (element K
 * straddles it), "unaligned" (readable, one byte past an aligned address:
 * no correct caller passes one, and no iteration includes it). */
enum kt_ptr { KT_PTR_OK, KT_PTR_NULL, KT_PTR_UNMAPPED, KT_PTR_KERNEL, KT_PTR_READONLY,
	      KT_PTR_FAULT, KT_PTR_FAULT_SPLIT, KT_PTR_UNALIGNED };
struct kt_arr {
	enum kt_ptr kind;
	uint64_t ptr;
	size_t elem;
	uint32_t n;
	void *buf;            /* KT_PTR_OK, UNALIGNED: malloc'd copy; READONLY: mapping */
	struct kt_fault fa;
	char desc[48];
};
/* Builds the argument from n elements of elem bytes at data (k: fault position). */
void kt_arr_make(struct kt_arr *a, enum kt_ptr kind, const void *data, size_t elem,
		 uint32_t n, uint32_t k);
/* Where the elements live (NULL when not addressable from user space). */
void *kt_arr_data(const struct kt_arr *a);
/* How many leading elements the program can read back (all for ok/readonly,
 * those wholly before the PROT_NONE region for faults, none otherwise). */
uint32_t kt_arr_readable(const struct kt_arr *a);
void kt_arr_free(struct kt_arr *a);

/* The fixture's handles as an ok argument, with an unused handle at bad
 * (none when bad >= n), described "bad@K(pos)". */
void kt_arr_handles(struct kt_arr *a, const struct kt_fix *f, uint32_t bad);
/* For the cases with two errors: the fixture's handles with an unused
 * handle at bad, as an argument of kind (k: where a fault starts),
 * described "bad@B" for ok and "<kind's word>,bad@B" otherwise. */
void kt_arr_handles_bad(struct kt_arr *a, const struct kt_fix *f, enum kt_ptr kind, uint32_t bad,
			uint32_t k);
/* n copies of one handle as an ok argument, described "same-handle*N". */
void kt_arr_same_handle(struct kt_arr *a, uint32_t handle, uint32_t n);

/* The pointer kinds first..last for an array of n, each once, the fault
 * kinds once per kt_positions() of n (k: that position, 0 for the other
 * kinds); KT_PTR_READONLY only when readonly (the kernel writes through
 * some of these pointers, so read-only ones are not bad there). */
struct kt_ptr_iter {
	enum kt_ptr kind, last;
	uint32_t k;
	bool readonly;
	uint32_t pos[3];
	int npos, p;
	bool started;
};
void kt_ptr_iter_init(struct kt_ptr_iter *it, enum kt_ptr first, enum kt_ptr last, uint32_t n,
		      bool readonly);
bool kt_ptr_iter_next(struct kt_ptr_iter *it);
#define kt_for_each_ptr(it, first, last, n, readonly)                                  \
	for (kt_ptr_iter_init(&(it), first, last, n, readonly); kt_ptr_iter_next(&(it));)

/* ---- a second thread that blocks in a wait ioctl (kt_waiter.c) ----------- */

struct kt_waiter {
	int fd;
	bool timeline;          /* TIMELINE_WAIT, else WAIT */
	union {
		struct drm_syncobj_wait wait;
		struct drm_syncobj_timeline_wait timeline_wait;
	} args;
	uint32_t *handles;      /* the thread's copies, freed by kt_waiter_join */
	uint64_t *points;
	volatile pid_t tid;
	volatile int done;
	int ret;
	unsigned long thread;  /* pthread_t */
};

/* Starts a thread in WAIT (timeline false: points is ignored) or
 * TIMELINE_WAIT on copies of the n handles and points, with flags and a
 * timeout 20 s from now. */
void kt_waiter_start(struct kt_waiter *w, int fd, bool timeline, const uint32_t *handles,
		     const uint64_t *points, uint32_t n, uint32_t flags);
/* first_signaled as the kernel left it in the thread's arguments */
uint32_t kt_waiter_first(const struct kt_waiter *w);
/* Waits (up to timeout_ms) until the thread sleeps inside ioctl(): true if so,
 * false if it returned or did not get there. */
bool kt_waiter_blocked(struct kt_waiter *w, int timeout_ms);
/* Waits for the thread to return (up to timeout_ms); false if it did not. */
bool kt_waiter_join(struct kt_waiter *w, int timeout_ms);

/* ---- the single-object ioctls (kt_single_ioctls.c) ------------------------- */

/* Linux 6.16's struct drm_syncobj_handle, with the timeline point, and its
 * TIMELINE flags: common/syncobj_uapi.h (the build root's libdrm predates
 * them). */
#define KT_IOCTL_HANDLE_TO_FD SW_IOCTL_SYNCOBJ_HANDLE_TO_FD
#define KT_IOCTL_FD_TO_HANDLE SW_IOCTL_SYNCOBJ_FD_TO_HANDLE

/* The flags by the words the transcripts use: bit 0 is EXPORT_SYNC_FILE
 * for HANDLE_TO_FD and IMPORT_SYNC_FILE for FD_TO_HANDLE, bit 1 TIMELINE
 * for both. */
#define KT_FLAG_SYNC_FILE DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE
#define KT_FLAG_TIMELINE DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_TIMELINE

/* HANDLE_TO_FD: *out gets the fd (left alone on failure). 0 or -errno. */
int kt_handle_to_fd(int fd, uint32_t handle, uint32_t flags, uint64_t point, uint32_t pad,
		    int *out);
/* FD_TO_HANDLE: *handle is the target with IMPORT_SYNC_FILE and gets the
 * new handle without. 0 or -errno. */
int kt_fd_to_handle(int fd, int from, uint32_t flags, uint64_t point, uint32_t pad,
		    uint32_t *handle);
int kt_transfer(int fd, uint32_t src, uint64_t src_point, uint32_t dst, uint64_t dst_point,
		uint32_t flags, uint32_t pad);
int kt_eventfd_call(int fd, uint32_t handle, uint64_t point, uint32_t flags, int evfd,
		    uint32_t pad);
/* A sync_file of point (0: the current fence) of h, or -errno. */
int kt_export(int fd, uint32_t h, uint64_t point);
/* A sync_file holding a signalled stub fence. */
int kt_signaled_sync_file(int fd);
/* Flags of the two handle ioctls as text: "0", "EXPORT|TIMELINE", "0x4". */
const char *kt_handle_flags(uint32_t flags, char *buf, size_t len);

/* ---- file descriptors of this process (kt_single_ioctls.c) --------------------- */

/* The open fds below KT_FDSET_MAX, as read from /proc/self/fd. */
#define KT_FDSET_MAX 1024
struct kt_fdset {
	uint64_t bits[KT_FDSET_MAX / 64];
	int n;
};
void kt_fdset_read(struct kt_fdset *s);
/* What fd is, for transcripts: "syncobj", "sync_file:S" (its status),
 * "eventfd", "drm", "sw_sync" (a timeline) or "other". */
const char *kt_fd_kind(int fd, char *buf, size_t len);
/* The fds open now that were not in base, described with kt_fd_kind in
 * fd order ("[sync_file:P]"). Returns a malloc'd string. */
char *kt_fdset_new_text(const struct kt_fdset *base);
/* Closes the fds open now that were not in base; returns how many. */
int kt_fdset_close_new(const struct kt_fdset *base);

/* ---- leak checks: slab counters and kmemleak (kt_leak.c) ---------------------- */

/* A whole file, NUL-terminated and malloc'd; NULL when it cannot be read. */
char *kt_slurp(const char *path);
/* Writes s to path (a sysfs or debugfs knob): 0 or -errno. */
int kt_write_str(const char *path, const char *s);

/* active_objs of every kmalloc-* cache, from /proc/slabinfo. */
#define KT_SLAB_CACHES 64
struct kt_slab_snap {
	int n;
	char name[KT_SLAB_CACHES][64];
	long active[KT_SLAB_CACHES];
};
/* Shrinks every kmalloc cache (/sys/kernel/slab/<cache>/shrink flushes the
 * per-CPU slabs, so active_objs becomes exact), then reads them. Returns
 * false when shrinking was not possible. */
bool kt_slab_snapshot(struct kt_slab_snap *s);
/* Snapshots every 0.5 s until the caches stop shrinking: at least 7 s
 * (kfree_rcu batches drain every 5 s, then wait for a grace period), then
 * until two readings in a row do not go down, at most 20 s. Returns the
 * seconds waited; *s holds the last reading. */
double kt_slab_settle(struct kt_slab_snap *s);
/* The largest growth of one cache from before to after (*name: which). */
long kt_slab_worst_growth(const struct kt_slab_snap *before, const struct kt_slab_snap *after,
			  const char **name);
/* "#   kmalloc-64   120 -> 121  (+1)" lines for every cache in use. */
void kt_slab_print(const struct kt_slab_snap *before, const struct kt_slab_snap *after);

#define KT_KMEMLEAK "/sys/kernel/debug/kmemleak"
/* Whether kmemleak exists and accepts "scan"; if not, why (in why). */
bool kt_kmemleak_usable(char *why, size_t len);
/* Sleeps past kmemleak's minimum object age (5 s), scans twice and returns
 * the report (malloc'd). */
char *kt_kmemleak_scan(void);
int kt_kmemleak_entries(const char *report);
/* One line per entry: its header and first backtrace frames. */
void kt_kmemleak_print(const char *report, const char *prefix);
/* How many entries name one of words (a NULL-terminated list) in their
 * backtrace (only there: the comm line names the test program). */
int kt_kmemleak_matching(const char *report, const char *const *words);

/* ---- the four other array ioctls (kt_array_ioctls.c) ------------------------ */

/* RESET / SIGNAL (struct drm_syncobj_array, pad) or TIMELINE_SIGNAL / QUERY
 * (struct drm_syncobj_timeline_array, flags). Returns 0 or -errno. */
int kt_array_call(int fd, unsigned long req, uint64_t handles, uint64_t points, uint32_t n,
		  uint32_t flags_or_pad);

/* What QUERY points arrays hold before the call ("unwritten" in text). */
#define KT_UNWRITTEN 0x5a5a5a5a5a5a5a5aull

/* "3*4,0" run-length text of n u64 values (KT_UNWRITTEN as "unwritten",
 * "-" for none) in buf. It stops before a run once fewer than 32 bytes of
 * len are left, and then returns false. */
bool kt_u64_text(const uint64_t *v, uint32_t n, char *buf, size_t len);

/* A malloc'd array of n copies of v. */
uint64_t *kt_u64_array(uint32_t n, uint64_t v);

/* ---- the two wait ioctls (kt_array_ioctls.c) ------------------------------- */

/* What first_signaled holds before the call; the kernel leaves it alone on
 * failure (drm_ioctl copies the struct back anyway). */
#define KT_FIRST_UNSET 0xdeadbeefu
/* "unset", "~0" or the number */
const char *kt_first(uint32_t first);

/* SYNCOBJ_WAIT (timeline false: points is ignored) or SYNCOBJ_TIMELINE_WAIT.
 * Returns 0 or -errno; *first gets first_signaled. */
/* Fails the subtest unless call returns want and first (read after the
 * call) is want_first. */
#define kt_expect_first(call, want, first, want_first)                                  \
	do {                                                                           \
		int r_ = (call);                                                       \
		sw_assert_f(r_ == (want), "%s: expected %s, got %s", #call,            \
			    kt_ret(want), kt_ret(r_));                                 \
		sw_assert_f((first) == (want_first),                                   \
			    "%s: expected first_signaled %s, got %s", #call,           \
			    kt_first(want_first), kt_first(first));                    \
	} while (0)

/* A wait's timeout_nsec (absolute CLOCK_MONOTONIC; 0 polls) and its word in
 * the transcript. */
struct kt_timeout {
	const char *name;
	int64_t nsec;
};
static const struct kt_timeout kt_t0 = { "0", 0 };

int kt_wait_call(int fd, bool timeline, uint64_t handles, uint64_t points, uint32_t n,
		 uint32_t flags, int64_t timeout_nsec, int64_t deadline_nsec, uint32_t *first);

/* Checks a wait with an absolute timeout want_ns after its start that
 * returned ETIME after took_ns: it must really have slept (>= want/4) and
 * not hung (< 5 s). The syncobj waits convert the timeout to jiffies, and
 * when the tick runs late (TCG, several vCPUs) jiffies jump and the wait
 * can end early by a few ms; that is printed as a note, not failed. */
void kt_check_timed_wait(int64_t took_ns, int64_t want_ns, uint32_t n);

/* Flags as text: "ANY", "ALL|FOR_SUBMIT", ... */
const char *kt_wait_flags(uint32_t flags, char *buf, size_t len);

#endif
