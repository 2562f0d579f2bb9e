/* The six array ioctls as raw calls, and their arguments and results as
 * transcript text. */
#include "kt.h"

#include <stdio.h>
#include <stdlib.h>

int kt_array_call(int fd, unsigned long req, uint64_t handles, uint64_t points, uint32_t n,
		  uint32_t flags_or_pad)
{
	if (req == DRM_IOCTL_SYNCOBJ_RESET || req == DRM_IOCTL_SYNCOBJ_SIGNAL) {
		struct drm_syncobj_array a = {
			.handles = handles,
			.count_handles = n,
			.pad = flags_or_pad,
		};
		return kt_ioctl(fd, req, &a);
	}
	struct drm_syncobj_timeline_array a = {
		.handles = handles,
		.points = points,
		.count_handles = n,
		.flags = flags_or_pad,
	};
	return kt_ioctl(fd, req, &a);
}

bool kt_u64_text(const uint64_t *v, uint32_t n, char *buf, size_t len)
{
	size_t m = 0;

	if (!v || n == 0) {
		snprintf(buf, len, "-");
		return true;
	}
	buf[0] = '\0';
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;

		if (m + 32 >= len)
			return false;
		while (j < n && v[j] == v[i])
			j++;
		if (v[i] == KT_UNWRITTEN)
			m += (size_t)snprintf(buf + m, len - m, "%sunwritten", i ? "," : "");
		else
			m += (size_t)snprintf(buf + m, len - m, "%s%llu", i ? "," : "",
					      (unsigned long long)v[i]);
		if (j - i > 1)
			m += (size_t)snprintf(buf + m, len - m, "*%u", j - i);
		i = j;
	}
	return true;
}

uint64_t *kt_u64_array(uint32_t n, uint64_t v)
{
	uint64_t *a = malloc((n ? n : 1) * sizeof(*a));

	sw_assert(a);
	for (uint32_t i = 0; i < n; i++)
		a[i] = v;
	return a;
}

const char *kt_first(uint32_t first)
{
	static char buf[4][16];
	static int slot;

	if (first == KT_FIRST_UNSET)
		return "unset";
	if (first == UINT32_MAX)
		return "~0";
	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "%u", first);
	return buf[slot];
}

int kt_wait_call(int fd, bool timeline, uint64_t handles, uint64_t points, uint32_t n,
		 uint32_t flags, int64_t timeout_nsec, int64_t deadline_nsec, uint32_t *first)
{
	int ret;

	if (timeline) {
		struct drm_syncobj_timeline_wait w = {
			.handles = handles,
			.points = points,
			.timeout_nsec = timeout_nsec,
			.count_handles = n,
			.flags = flags,
			.first_signaled = KT_FIRST_UNSET,
			.deadline_nsec = (uint64_t)deadline_nsec,
		};
		ret = kt_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
		*first = w.first_signaled;
	} else {
		struct drm_syncobj_wait w = {
			.handles = handles,
			.timeout_nsec = timeout_nsec,
			.count_handles = n,
			.flags = flags,
			.first_signaled = KT_FIRST_UNSET,
			.deadline_nsec = (uint64_t)deadline_nsec,
		};
		ret = kt_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
		*first = w.first_signaled;
	}
	return ret;
}

void kt_check_timed_wait(int64_t took_ns, int64_t want_ns, uint32_t n)
{
	sw_assert_f(took_ns >= want_ns / 4, "n=%u: a %.0f ms wait returned after %.1f ms", n,
		    want_ns / 1e6, took_ns / 1e6);
	sw_assert_f(took_ns < 5000000000ll, "n=%u: a %.0f ms wait took %.1f ms", n,
		    want_ns / 1e6, took_ns / 1e6);
	if (took_ns < want_ns)
		printf("# note: n=%u: a wait until now+%.0f ms timed out after %.1f ms (jiffies)\n",
		       n, want_ns / 1e6, took_ns / 1e6);
}

const char *kt_wait_flags(uint32_t flags, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, "ALL" },
		{ DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, "FOR_SUBMIT" },
		{ DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, "AVAILABLE" },
		{ DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE, "DEADLINE" },
	};
	size_t n = 0;

	buf[0] = '\0';
	if (!(flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL))
		n += (size_t)snprintf(buf + n, len - n, "ANY");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (flags & names[i].bit) {
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", names[i].name);
			flags &= ~names[i].bit;
		}
		if (n >= len)
			break;
	}
	if (flags && n < len)
		snprintf(buf + n, len - n, "%s0x%x", n ? "|" : "", flags);
	return buf;
}
