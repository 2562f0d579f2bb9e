/* Every DRM syncobj ioctl syncway issues goes through this file.
 *
 * Each wrapper issues exactly one ioctl (the composed helpers at the end
 * issue several, each through a wrapper) and accounts it in a struct
 * sw_syncobj_stats the caller owns: how many calls of that kind, how many
 * failed, and the CLOCK_MONOTONIC time spent inside the call. The compositor,
 * the clients, the benchmarks and the tests all use these wrappers, so their
 * numbers mean the same thing.
 *
 * Conventions:
 *   - stats may be NULL (nothing is accounted);
 *   - fd is a DRM device fd (a render node is enough for every call here);
 *   - functions return 0 on success and -errno on failure (like libdrm);
 *     errno is also left set;
 *   - timeouts are absolute CLOCK_MONOTONIC nanoseconds, as the kernel wants
 *     them; 0 means "poll": check once and return -ETIME if not ready.
 *     sw_syncobj_timeout_abs() turns a relative timeout into one.
 *   - a stats struct is not thread-safe: use one per thread and add them up
 *     with sw_syncobj_stats_add().
 */
#ifndef SYNCWAY_SYNCOBJ_H
#define SYNCWAY_SYNCOBJ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum sw_syncobj_op {
	SW_SYNCOBJ_CREATE,           /* DRM_IOCTL_SYNCOBJ_CREATE */
	SW_SYNCOBJ_DESTROY,          /* DRM_IOCTL_SYNCOBJ_DESTROY */
	SW_SYNCOBJ_HANDLE_TO_FD,     /* DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, syncobj fd */
	SW_SYNCOBJ_FD_TO_HANDLE,     /* DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, syncobj fd */
	SW_SYNCOBJ_EXPORT_SYNC_FILE, /* HANDLE_TO_FD with EXPORT_SYNC_FILE */
	SW_SYNCOBJ_IMPORT_SYNC_FILE, /* FD_TO_HANDLE with IMPORT_SYNC_FILE */
	SW_SYNCOBJ_WAIT,             /* DRM_IOCTL_SYNCOBJ_WAIT (binary) */
	SW_SYNCOBJ_TIMELINE_WAIT,    /* DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT */
	SW_SYNCOBJ_RESET,            /* DRM_IOCTL_SYNCOBJ_RESET */
	SW_SYNCOBJ_SIGNAL,           /* DRM_IOCTL_SYNCOBJ_SIGNAL (binary) */
	SW_SYNCOBJ_TIMELINE_SIGNAL,  /* DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL */
	SW_SYNCOBJ_QUERY,            /* DRM_IOCTL_SYNCOBJ_QUERY */
	SW_SYNCOBJ_TRANSFER,         /* DRM_IOCTL_SYNCOBJ_TRANSFER */
	SW_SYNCOBJ_EVENTFD,          /* DRM_IOCTL_SYNCOBJ_EVENTFD */
	/* FD_TO_HANDLE with IMPORT_SYNC_FILE | TIMELINE: a sync_file at a
	 * point in one call (Linux 6.16). Last, so that the kinds before it
	 * keep their numbers. */
	SW_SYNCOBJ_IMPORT_SYNC_FILE_POINT,
	SW_SYNCOBJ_OP_COUNT,
};

struct sw_syncobj_op_stats {
	uint64_t count;    /* calls, failed ones included */
	uint64_t errors;   /* calls that failed, timeouts excepted */
	uint64_t timeouts; /* waits that returned ETIME (e.g. a "not yet" poll) */
	uint64_t total_ns; /* CLOCK_MONOTONIC time inside the calls */
	uint64_t max_ns;   /* longest single call */
};

struct sw_syncobj_stats {
	struct sw_syncobj_op_stats op[SW_SYNCOBJ_OP_COUNT];
};

/* Short snake_case name of an op ("timeline_wait"), as used in JSON. */
const char *sw_syncobj_op_name(enum sw_syncobj_op op);

void sw_syncobj_stats_reset(struct sw_syncobj_stats *stats);
/* dst += src (max_ns: the larger of the two). */
void sw_syncobj_stats_add(struct sw_syncobj_stats *dst, const struct sw_syncobj_stats *src);
/* out = now - before, for per-frame deltas (max_ns: taken from now). */
void sw_syncobj_stats_diff(struct sw_syncobj_stats *out, const struct sw_syncobj_stats *now,
			   const struct sw_syncobj_stats *before);
/* Sums over all ops. */
uint64_t sw_syncobj_stats_count(const struct sw_syncobj_stats *stats);
uint64_t sw_syncobj_stats_ns(const struct sw_syncobj_stats *stats);
uint64_t sw_syncobj_stats_errors(const struct sw_syncobj_stats *stats);
/* Handles the counted calls made and did not destroy: successful CREATEs
 * and FD_TO_HANDLE imports of syncobj fds, less successful DESTROYs. */
int64_t sw_syncobj_stats_handles(const struct sw_syncobj_stats *stats);
/* Writes {"timeline_wait":[count,ns,errors,timeouts],...} with the ops that have a
 * non-zero count (all of them when all is true). */
void sw_syncobj_stats_write_json(FILE *f, const struct sw_syncobj_stats *stats, bool all);
/* One line per op with a non-zero count: name, calls, errors, timeouts, mean ns, max ns. */
void sw_syncobj_stats_print(FILE *f, const char *prefix, const struct sw_syncobj_stats *stats);

/* CLOCK_MONOTONIC now, in ns. */
int64_t sw_syncobj_now_ns(void);
/* Absolute timeout rel_ns from now; rel_ns < 0 means "forever" (INT64_MAX). */
int64_t sw_syncobj_timeout_abs(int64_t rel_ns);

/* --- one ioctl each --------------------------------------------------- */

/* flags: 0 or DRM_SYNCOBJ_CREATE_SIGNALED. */
int sw_syncobj_create(struct sw_syncobj_stats *stats, int fd, uint32_t flags, uint32_t *handle);
int sw_syncobj_destroy(struct sw_syncobj_stats *stats, int fd, uint32_t handle);
/* A syncobj fd (shareable, e.g. over Wayland) for a handle; O_CLOEXEC. */
int sw_syncobj_handle_to_fd(struct sw_syncobj_stats *stats, int fd, uint32_t handle, int *syncobj_fd);
/* A handle for a syncobj fd; the caller still owns (and closes) syncobj_fd.
 * Fails with -EINVAL/-EBADF for fds that are not syncobjs. */
int sw_syncobj_fd_to_handle(struct sw_syncobj_stats *stats, int fd, int syncobj_fd, uint32_t *handle);
/* Replaces the fence of a binary syncobj with a sync_file's fence. */
int sw_syncobj_import_sync_file(struct sw_syncobj_stats *stats, int fd, uint32_t handle,
				int sync_file_fd);
/* Adds a sync_file's fence at point of a timeline (point 0: replaces the
 * fence, as above). Linux 6.16 and later; older kernels answer EINVAL, which
 * every kernel also answers for a sync_file_fd that is no sync_file. */
int sw_syncobj_import_sync_file_point(struct sw_syncobj_stats *stats, int fd, uint32_t handle,
				      uint64_t point, int sync_file_fd);
/* A sync_file for the fence of a binary syncobj (-EINVAL if it has none). */
int sw_syncobj_export_sync_file(struct sw_syncobj_stats *stats, int fd, uint32_t handle,
				int *sync_file_fd);
/* flags: DRM_SYNCOBJ_WAIT_FLAGS_*; first_signaled may be NULL. */
int sw_syncobj_wait(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles,
		    uint32_t count, int64_t timeout_abs_ns, uint32_t flags, uint32_t *first_signaled);
/* Waits for timeline points. flags 0 wants every point to have materialized
 * already (else -EINVAL); WAIT_FOR_SUBMIT also waits for materialization
 * (timeout 0: -ETIME until signalled); WAIT_AVAILABLE only waits for
 * materialization. */
int sw_syncobj_timeline_wait(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles,
			     const uint64_t *points, uint32_t count, int64_t timeout_abs_ns,
			     uint32_t flags, uint32_t *first_signaled);
int sw_syncobj_reset(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles, uint32_t count);
int sw_syncobj_signal(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles, uint32_t count);
/* Signals points from the CPU (adds signalled fences at those points). */
int sw_syncobj_timeline_signal(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles,
			       const uint64_t *points, uint32_t count);
/* Last signalled point of each handle (flags 0) or last submitted one
 * (DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED). */
int sw_syncobj_query(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles,
		     uint64_t *points, uint32_t count, uint32_t flags);
/* Copies the fence at src_point of src to dst_point of dst (0 = binary). */
int sw_syncobj_transfer(struct sw_syncobj_stats *stats, int fd, uint32_t dst, uint64_t dst_point,
			uint32_t src, uint64_t src_point, uint32_t flags);
/* Makes the kernel bump eventfd_fd once the point is signalled (flags 0,
 * also fine before the point materializes) or has materialized
 * (DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE). */
int sw_syncobj_eventfd(struct sw_syncobj_stats *stats, int fd, uint32_t handle, uint64_t point,
		       uint32_t flags, int eventfd_fd);

/* --- composed helpers ------------------------------------------------- */

/* Whether DRM_IOCTL_SYNCOBJ_EVENTFD exists: with handle 0 (never a syncobj)
 * and fd -1 a kernel that knows it answers ENOENT; older kernels answer
 * EINVAL or ENOTTY. Accounted as one (failed) EVENTFD call. */
bool sw_syncobj_probe_eventfd(struct sw_syncobj_stats *stats, int fd);
/* Non-blocking: 1 when the point is signalled, 0 when it is not (also when
 * it has not materialized yet), -errno on error. One TIMELINE_WAIT with
 * WAIT_FOR_SUBMIT and timeout 0. */
int sw_syncobj_point_signalled(struct sw_syncobj_stats *stats, int fd, uint32_t handle, uint64_t point);
/* Makes point of timeline signal with a sync_file's fence. Where the
 * kernel can (Linux 6.16), one call: sw_syncobj_import_sync_file_point().
 * Elsewhere four: a temporary binary syncobj, import, transfer, destroy (the
 * temporary is destroyed on every path; 3 when the import fails). Which of
 * the two is learnt by the first import of the process whose sync_file the
 * kernel takes (see sw_syncobj_point_import_way()); on an older kernel that
 * import costs one call more, the refused one. */
int sw_syncobj_point_import_sync_file(struct sw_syncobj_stats *stats, int fd, uint32_t timeline,
				      uint64_t point, int sync_file_fd);

/* How sw_syncobj_point_import_sync_file() imports, for the whole process:
 * the kernel decides, and it is the same for every DRM fd and driver (the
 * flag is handled in drm_syncobj.c itself), so one answer serves the
 * compositor's one fd and a test's hundred alike. */
enum sw_syncobj_point_import {
	SW_POINT_IMPORT_PROBE,       /* not known yet: the next import tries one call */
	SW_POINT_IMPORT_ONE_CALL,    /* the kernel took IMPORT_SYNC_FILE | TIMELINE */
	SW_POINT_IMPORT_FOUR_CALLS,  /* the kernel refused it (Linux before 6.16) */
	SW_POINT_IMPORT_FORCED_FOUR, /* SYNCWAY_IMPORT_AT_POINT=0: four calls, never probed */
};
enum sw_syncobj_point_import sw_syncobj_point_import_way(void);
/* Forgets what was learnt and reads SYNCWAY_IMPORT_AT_POINT again on the
 * next import: for tests, and for measuring both ways in one process. */
void sw_syncobj_point_import_reset(void);

/* A sync_file for a point that has materialized (-EINVAL otherwise):
 * temporary binary syncobj, transfer, export, destroy. 3-4 ioctls. */
int sw_syncobj_point_export_sync_file(struct sw_syncobj_stats *stats, int fd, uint32_t timeline,
				      uint64_t point, int *sync_file_fd);

#endif
