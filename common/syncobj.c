#include "syncobj.h"
#include "clock.h"
#include "syncobj_uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

static const char *const op_names[SW_SYNCOBJ_OP_COUNT] = {
	[SW_SYNCOBJ_CREATE] = "create",
	[SW_SYNCOBJ_DESTROY] = "destroy",
	[SW_SYNCOBJ_HANDLE_TO_FD] = "handle_to_fd",
	[SW_SYNCOBJ_FD_TO_HANDLE] = "fd_to_handle",
	[SW_SYNCOBJ_EXPORT_SYNC_FILE] = "export_sync_file",
	[SW_SYNCOBJ_IMPORT_SYNC_FILE] = "import_sync_file",
	[SW_SYNCOBJ_WAIT] = "wait",
	[SW_SYNCOBJ_TIMELINE_WAIT] = "timeline_wait",
	[SW_SYNCOBJ_RESET] = "reset",
	[SW_SYNCOBJ_SIGNAL] = "signal",
	[SW_SYNCOBJ_TIMELINE_SIGNAL] = "timeline_signal",
	[SW_SYNCOBJ_QUERY] = "query",
	[SW_SYNCOBJ_TRANSFER] = "transfer",
	[SW_SYNCOBJ_EVENTFD] = "eventfd",
	[SW_SYNCOBJ_IMPORT_SYNC_FILE_POINT] = "import_sync_file_point",
};

const char *sw_syncobj_op_name(enum sw_syncobj_op op)
{
	if ((unsigned)op >= SW_SYNCOBJ_OP_COUNT)
		return "unknown";
	return op_names[op];
}

int64_t sw_syncobj_now_ns(void)
{
	return sw_clock_ns(CLOCK_MONOTONIC);
}

int64_t sw_syncobj_timeout_abs(int64_t rel_ns)
{
	if (rel_ns < 0)
		return INT64_MAX;
	int64_t now = sw_syncobj_now_ns();
	return rel_ns > INT64_MAX - now ? INT64_MAX : now + rel_ns;
}

/* The one place an ioctl is issued: timed with the vDSO clock (a small
 * fraction of an ioctl's cost; docs/bench.md has the measured costs),
 * retried on EINTR/EAGAIN by drmIoctl, and accounted once however often it
 * restarted. */
static int timed_ioctl(struct sw_syncobj_stats *stats, enum sw_syncobj_op op, int fd,
		       unsigned long request, void *arg)
{
	int64_t start = stats ? sw_syncobj_now_ns() : 0;
	int ret = drmIoctl(fd, request, arg);
	int err = ret ? errno : 0;
	if (stats) {
		struct sw_syncobj_op_stats *s = &stats->op[op];
		uint64_t ns = (uint64_t)(sw_syncobj_now_ns() - start);
		s->count++;
		s->total_ns += ns;
		if (ns > s->max_ns)
			s->max_ns = ns;
		if (err == ETIME)
			s->timeouts++;
		else if (err)
			s->errors++;
	}
	if (err) {
		errno = err;
		return -err;
	}
	return 0;
}

void sw_syncobj_stats_reset(struct sw_syncobj_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
}

void sw_syncobj_stats_add(struct sw_syncobj_stats *dst, const struct sw_syncobj_stats *src)
{
	for (int i = 0; i < SW_SYNCOBJ_OP_COUNT; i++) {
		dst->op[i].count += src->op[i].count;
		dst->op[i].errors += src->op[i].errors;
		dst->op[i].timeouts += src->op[i].timeouts;
		dst->op[i].total_ns += src->op[i].total_ns;
		if (src->op[i].max_ns > dst->op[i].max_ns)
			dst->op[i].max_ns = src->op[i].max_ns;
	}
}

void sw_syncobj_stats_diff(struct sw_syncobj_stats *out, const struct sw_syncobj_stats *now,
			   const struct sw_syncobj_stats *before)
{
	for (int i = 0; i < SW_SYNCOBJ_OP_COUNT; i++) {
		out->op[i].count = now->op[i].count - before->op[i].count;
		out->op[i].errors = now->op[i].errors - before->op[i].errors;
		out->op[i].timeouts = now->op[i].timeouts - before->op[i].timeouts;
		out->op[i].total_ns = now->op[i].total_ns - before->op[i].total_ns;
		out->op[i].max_ns = now->op[i].max_ns;
	}
}

uint64_t sw_syncobj_stats_count(const struct sw_syncobj_stats *stats)
{
	uint64_t n = 0;
	for (int i = 0; i < SW_SYNCOBJ_OP_COUNT; i++)
		n += stats->op[i].count;
	return n;
}

uint64_t sw_syncobj_stats_ns(const struct sw_syncobj_stats *stats)
{
	uint64_t n = 0;
	for (int i = 0; i < SW_SYNCOBJ_OP_COUNT; i++)
		n += stats->op[i].total_ns;
	return n;
}

uint64_t sw_syncobj_stats_errors(const struct sw_syncobj_stats *stats)
{
	uint64_t n = 0;
	for (int i = 0; i < SW_SYNCOBJ_OP_COUNT; i++)
		n += stats->op[i].errors;
	return n;
}

static int64_t succeeded(const struct sw_syncobj_stats *stats, enum sw_syncobj_op op)
{
	return (int64_t)(stats->op[op].count - stats->op[op].errors - stats->op[op].timeouts);
}

int64_t sw_syncobj_stats_handles(const struct sw_syncobj_stats *stats)
{
	return succeeded(stats, SW_SYNCOBJ_CREATE) + succeeded(stats, SW_SYNCOBJ_FD_TO_HANDLE) -
	       succeeded(stats, SW_SYNCOBJ_DESTROY);
}

void sw_syncobj_stats_write_json(FILE *f, const struct sw_syncobj_stats *stats, bool all)
{
	bool first = true;
	fputc('{', f);
	for (int i = 0; i < SW_SYNCOBJ_OP_COUNT; i++) {
		const struct sw_syncobj_op_stats *s = &stats->op[i];
		if (!all && s->count == 0)
			continue;
		fprintf(f, "%s\"%s\":[%llu,%llu,%llu,%llu]", first ? "" : ",", op_names[i],
			(unsigned long long)s->count, (unsigned long long)s->total_ns,
			(unsigned long long)s->errors, (unsigned long long)s->timeouts);
		first = false;
	}
	fputc('}', f);
}

void sw_syncobj_stats_print(FILE *f, const char *prefix, const struct sw_syncobj_stats *stats)
{
	for (int i = 0; i < SW_SYNCOBJ_OP_COUNT; i++) {
		const struct sw_syncobj_op_stats *s = &stats->op[i];
		if (s->count == 0)
			continue;
		fprintf(f, "%s%-22s %10llu calls %6llu errors %6llu timeouts  mean %8.0f ns  max %8llu ns\n",
			prefix ? prefix : "", op_names[i], (unsigned long long)s->count,
			(unsigned long long)s->errors, (unsigned long long)s->timeouts,
			(double)s->total_ns / (double)s->count, (unsigned long long)s->max_ns);
	}
}

int sw_syncobj_create(struct sw_syncobj_stats *stats, int fd, uint32_t flags, uint32_t *handle)
{
	struct drm_syncobj_create args = { .flags = flags };
	int ret = timed_ioctl(stats, SW_SYNCOBJ_CREATE, fd, DRM_IOCTL_SYNCOBJ_CREATE, &args);
	if (ret == 0)
		*handle = args.handle;
	return ret;
}

int sw_syncobj_destroy(struct sw_syncobj_stats *stats, int fd, uint32_t handle)
{
	struct drm_syncobj_destroy args = { .handle = handle };
	return timed_ioctl(stats, SW_SYNCOBJ_DESTROY, fd, DRM_IOCTL_SYNCOBJ_DESTROY, &args);
}

int sw_syncobj_handle_to_fd(struct sw_syncobj_stats *stats, int fd, uint32_t handle, int *syncobj_fd)
{
	/* The kernel accepts no O_CLOEXEC here for syncobj fds (it always
	 * installs them close-on-exec), so flags stay 0. */
	struct drm_syncobj_handle args = { .handle = handle, .fd = -1 };
	int ret = timed_ioctl(stats, SW_SYNCOBJ_HANDLE_TO_FD, fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &args);
	if (ret == 0)
		*syncobj_fd = args.fd;
	return ret;
}

int sw_syncobj_fd_to_handle(struct sw_syncobj_stats *stats, int fd, int syncobj_fd, uint32_t *handle)
{
	struct drm_syncobj_handle args = { .fd = syncobj_fd };
	int ret = timed_ioctl(stats, SW_SYNCOBJ_FD_TO_HANDLE, fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &args);
	if (ret == 0)
		*handle = args.handle;
	return ret;
}

int sw_syncobj_import_sync_file(struct sw_syncobj_stats *stats, int fd, uint32_t handle,
				int sync_file_fd)
{
	struct drm_syncobj_handle args = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
		.fd = sync_file_fd,
	};
	return timed_ioctl(stats, SW_SYNCOBJ_IMPORT_SYNC_FILE, fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &args);
}

int sw_syncobj_import_sync_file_point(struct sw_syncobj_stats *stats, int fd, uint32_t handle,
				      uint64_t point, int sync_file_fd)
{
	struct sw_syncobj_handle_args args = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE |
			 DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_TIMELINE,
		.fd = sync_file_fd,
		.point = point,
	};
	return timed_ioctl(stats, SW_SYNCOBJ_IMPORT_SYNC_FILE_POINT, fd, SW_IOCTL_SYNCOBJ_FD_TO_HANDLE,
			   &args);
}

int sw_syncobj_export_sync_file(struct sw_syncobj_stats *stats, int fd, uint32_t handle,
				int *sync_file_fd)
{
	struct drm_syncobj_handle args = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	int ret = timed_ioctl(stats, SW_SYNCOBJ_EXPORT_SYNC_FILE, fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &args);
	if (ret == 0)
		*sync_file_fd = args.fd;
	return ret;
}

int sw_syncobj_wait(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles,
		    uint32_t count, int64_t timeout_abs_ns, uint32_t flags, uint32_t *first_signaled)
{
	struct drm_syncobj_wait args = {
		.handles = (uintptr_t)handles,
		.timeout_nsec = timeout_abs_ns,
		.count_handles = count,
		.flags = flags,
	};
	int ret = timed_ioctl(stats, SW_SYNCOBJ_WAIT, fd, DRM_IOCTL_SYNCOBJ_WAIT, &args);
	if (ret == 0 && first_signaled)
		*first_signaled = args.first_signaled;
	return ret;
}

int sw_syncobj_timeline_wait(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles,
			     const uint64_t *points, uint32_t count, int64_t timeout_abs_ns,
			     uint32_t flags, uint32_t *first_signaled)
{
	struct drm_syncobj_timeline_wait args = {
		.handles = (uintptr_t)handles,
		.points = (uintptr_t)points,
		.timeout_nsec = timeout_abs_ns,
		.count_handles = count,
		.flags = flags,
	};
	int ret = timed_ioctl(stats, SW_SYNCOBJ_TIMELINE_WAIT, fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &args);
	if (ret == 0 && first_signaled)
		*first_signaled = args.first_signaled;
	return ret;
}

int sw_syncobj_reset(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles, uint32_t count)
{
	struct drm_syncobj_array args = { .handles = (uintptr_t)handles, .count_handles = count };
	return timed_ioctl(stats, SW_SYNCOBJ_RESET, fd, DRM_IOCTL_SYNCOBJ_RESET, &args);
}

int sw_syncobj_signal(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles, uint32_t count)
{
	struct drm_syncobj_array args = { .handles = (uintptr_t)handles, .count_handles = count };
	return timed_ioctl(stats, SW_SYNCOBJ_SIGNAL, fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &args);
}

int sw_syncobj_timeline_signal(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles,
			       const uint64_t *points, uint32_t count)
{
	struct drm_syncobj_timeline_array args = {
		.handles = (uintptr_t)handles,
		.points = (uintptr_t)points,
		.count_handles = count,
	};
	return timed_ioctl(stats, SW_SYNCOBJ_TIMELINE_SIGNAL, fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &args);
}

int sw_syncobj_query(struct sw_syncobj_stats *stats, int fd, const uint32_t *handles,
		     uint64_t *points, uint32_t count, uint32_t flags)
{
	struct drm_syncobj_timeline_array args = {
		.handles = (uintptr_t)handles,
		.points = (uintptr_t)points,
		.count_handles = count,
		.flags = flags,
	};
	return timed_ioctl(stats, SW_SYNCOBJ_QUERY, fd, DRM_IOCTL_SYNCOBJ_QUERY, &args);
}

int sw_syncobj_transfer(struct sw_syncobj_stats *stats, int fd, uint32_t dst, uint64_t dst_point,
			uint32_t src, uint64_t src_point, uint32_t flags)
{
	struct drm_syncobj_transfer args = {
		.src_handle = src,
		.dst_handle = dst,
		.src_point = src_point,
		.dst_point = dst_point,
		.flags = flags,
	};
	return timed_ioctl(stats, SW_SYNCOBJ_TRANSFER, fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &args);
}

int sw_syncobj_eventfd(struct sw_syncobj_stats *stats, int fd, uint32_t handle, uint64_t point,
		       uint32_t flags, int eventfd_fd)
{
	struct drm_syncobj_eventfd args = {
		.handle = handle,
		.flags = flags,
		.point = point,
		.fd = eventfd_fd,
	};
	return timed_ioctl(stats, SW_SYNCOBJ_EVENTFD, fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &args);
}

bool sw_syncobj_probe_eventfd(struct sw_syncobj_stats *stats, int fd)
{
	return sw_syncobj_eventfd(stats, fd, 0, 0, 0, -1) == -ENOENT;
}

int sw_syncobj_point_signalled(struct sw_syncobj_stats *stats, int fd, uint32_t handle, uint64_t point)
{
	/* Without WAIT_FOR_SUBMIT a point that has not materialized is an
	 * error (EINVAL); with it and timeout 0 it is simply "not yet". */
	int ret = sw_syncobj_timeline_wait(stats, fd, &handle, &point, 1, 0,
					   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	if (ret == 0)
		return 1;
	if (ret == -ETIME)
		return 0;
	return ret;
}

/* What sw_syncobj_point_import_sync_file() knows of the kernel; POINT_UNREAD
 * until SYNCWAY_IMPORT_AT_POINT has been read. Atomic because it is the
 * process's and the helper may be called from any thread (unlike a stats
 * struct, it cannot be one per thread); two threads that probe at once both
 * try the one call and learn the same thing. */
enum { POINT_UNREAD = -1 };
static _Atomic int point_import = POINT_UNREAD;

enum sw_syncobj_point_import sw_syncobj_point_import_way(void)
{
	int way = atomic_load(&point_import);
	if (way != POINT_UNREAD)
		return (enum sw_syncobj_point_import)way;
	const char *env = getenv("SYNCWAY_IMPORT_AT_POINT");
	int from_env = env && !strcmp(env, "0") ? SW_POINT_IMPORT_FORCED_FOUR : SW_POINT_IMPORT_PROBE;
	/* Another thread may have read it and learnt more since. */
	if (!atomic_compare_exchange_strong(&point_import, &way, from_env))
		return (enum sw_syncobj_point_import)way;
	return (enum sw_syncobj_point_import)from_env;
}

void sw_syncobj_point_import_reset(void)
{
	atomic_store(&point_import, POINT_UNREAD);
}

/* The four-call import through a temporary binary syncobj. *imported says
 * whether the kernel took the sync_file (the binary import succeeded). */
static int point_import_four_calls(struct sw_syncobj_stats *stats, int fd, uint32_t timeline,
				   uint64_t point, int sync_file_fd, bool *imported)
{
	uint32_t tmp;
	*imported = false;
	int ret = sw_syncobj_create(stats, fd, 0, &tmp);
	if (ret)
		return ret;
	ret = sw_syncobj_import_sync_file(stats, fd, tmp, sync_file_fd);
	*imported = ret == 0;
	if (ret == 0)
		ret = sw_syncobj_transfer(stats, fd, timeline, point, tmp, 0, 0);
	/* Always, success or not: leaked temporaries exhaust handles. */
	int err = errno;
	sw_syncobj_destroy(stats, fd, tmp);
	errno = err;
	return ret;
}

int sw_syncobj_point_import_sync_file(struct sw_syncobj_stats *stats, int fd, uint32_t timeline,
				      uint64_t point, int sync_file_fd)
{
	enum sw_syncobj_point_import way = sw_syncobj_point_import_way();
	bool imported;
	if (way == SW_POINT_IMPORT_ONE_CALL)
		return sw_syncobj_import_sync_file_point(stats, fd, timeline, point, sync_file_fd);
	if (way != SW_POINT_IMPORT_PROBE)
		return point_import_four_calls(stats, fd, timeline, point, sync_file_fd, &imported);

	/* The probe is the real call: where the kernel has the flag it is the
	 * import itself, and where it lacks it the kernel refuses the flags
	 * before it looks at anything else, so the refusal leaves nothing
	 * behind. */
	int ret = sw_syncobj_import_sync_file_point(stats, fd, timeline, point, sync_file_fd);
	if (ret == 0)
		atomic_store(&point_import, SW_POINT_IMPORT_ONE_CALL);
	if (ret != -EINVAL)
		return ret;
	/* EINVAL is also what a kernel with the flag says to an fd that is no
	 * sync_file. The four calls tell the two apart: if the binary import
	 * takes this sync_file, the flag was refused. */
	ret = point_import_four_calls(stats, fd, timeline, point, sync_file_fd, &imported);
	if (imported)
		atomic_store(&point_import, SW_POINT_IMPORT_FOUR_CALLS);
	return ret;
}

int sw_syncobj_point_export_sync_file(struct sw_syncobj_stats *stats, int fd, uint32_t timeline,
				      uint64_t point, int *sync_file_fd)
{
	uint32_t tmp;
	int ret = sw_syncobj_create(stats, fd, 0, &tmp);
	if (ret)
		return ret;
	ret = sw_syncobj_transfer(stats, fd, tmp, 0, timeline, point, 0);
	if (ret == 0)
		ret = sw_syncobj_export_sync_file(stats, fd, tmp, sync_file_fd);
	int err = errno;
	sw_syncobj_destroy(stats, fd, tmp);
	errno = err;
	return ret;
}
