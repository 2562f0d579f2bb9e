/* The single-object syncobj ioctls as raw calls (HANDLE_TO_FD and
 * FD_TO_HANDLE with the 6.16 point, TRANSFER, EVENTFD), and the fds of
 * this process: what a call opened, and closing what it left behind. */
#include "kt.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kt_handle_to_fd(int fd, uint32_t handle, uint32_t flags, uint64_t point, uint32_t pad,
		    int *out)
{
	struct sw_syncobj_handle_args a = {
		.handle = handle,
		.flags = flags,
		.fd = -1,
		.pad = pad,
		.point = point,
	};
	int ret = kt_ioctl(fd, KT_IOCTL_HANDLE_TO_FD, &a);

	if (ret == 0)
		*out = a.fd;
	return ret;
}

int kt_fd_to_handle(int fd, int from, uint32_t flags, uint64_t point, uint32_t pad,
		    uint32_t *handle)
{
	struct sw_syncobj_handle_args a = {
		.handle = *handle,
		.flags = flags,
		.fd = from,
		.pad = pad,
		.point = point,
	};
	int ret = kt_ioctl(fd, KT_IOCTL_FD_TO_HANDLE, &a);

	if (ret == 0)
		*handle = a.handle;
	return ret;
}

int kt_transfer(int fd, uint32_t src, uint64_t src_point, uint32_t dst, uint64_t dst_point,
		uint32_t flags, uint32_t pad)
{
	struct drm_syncobj_transfer t = {
		.src_handle = src,
		.dst_handle = dst,
		.src_point = src_point,
		.dst_point = dst_point,
		.flags = flags,
		.pad = pad,
	};
	return kt_ioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &t);
}

int kt_eventfd_call(int fd, uint32_t handle, uint64_t point, uint32_t flags, int evfd,
		    uint32_t pad)
{
	struct drm_syncobj_eventfd e = {
		.handle = handle,
		.flags = flags,
		.point = point,
		.fd = evfd,
		.pad = pad,
	};
	return kt_ioctl(fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &e);
}

int kt_export(int fd, uint32_t h, uint64_t point)
{
	uint32_t flags = KT_FLAG_SYNC_FILE | (point ? KT_FLAG_TIMELINE : 0);
	int out = -1;
	int ret = kt_handle_to_fd(fd, h, flags, point, 0, &out);

	return ret ? ret : out;
}

int kt_signaled_sync_file(int fd)
{
	uint32_t h = kt_create(fd, DRM_SYNCOBJ_CREATE_SIGNALED);
	int file = kt_export(fd, h, 0);

	sw_assert_f(file >= 0, "EXPORT_SYNC_FILE of a signalled syncobj failed: %s",
		    kt_ret(file));
	kt_destroy(fd, h);
	return file;
}

const char *kt_handle_flags(uint32_t flags, char *buf, size_t len)
{
	/* bit 0 is EXPORT for HANDLE_TO_FD and IMPORT for FD_TO_HANDLE: the
	 * callers say which ioctl; the words name the bits */
	static const char *const names[] = { "SYNC_FILE", "TIMELINE" };
	size_t m = 0;

	if (flags == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	if (flags & ~3u) {
		snprintf(buf, len, "0x%x", flags);
		return buf;
	}
	buf[0] = '\0';
	for (int i = 0; i < 2; i++) {
		if (flags & (1u << i))
			m += (size_t)snprintf(buf + m, len - m, "%s%s", m ? "|" : "", names[i]);
	}
	return buf;
}

/* ---- fds of this process -------------------------------------------------------- */

static bool fdset_has(const struct kt_fdset *s, int fd)
{
	return fd >= 0 && fd < KT_FDSET_MAX && (s->bits[fd / 64] >> (fd % 64) & 1);
}

void kt_fdset_read(struct kt_fdset *s)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	sw_assert_f(d, "cannot list /proc/self/fd: %m");
	memset(s, 0, sizeof(*s));
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || fd == dirfd(d) || fd >= KT_FDSET_MAX)
			continue;
		s->bits[fd / 64] |= 1ull << (fd % 64);
		s->n++;
	}
	closedir(d);
}

const char *kt_fd_kind(int fd, char *buf, size_t len)
{
	char path[64], target[256];
	ssize_t l;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	l = readlink(path, target, sizeof(target) - 1);
	if (l < 0) {
		snprintf(buf, len, "closed");
		return buf;
	}
	target[l] = '\0';
	if (!strcmp(target, "anon_inode:syncobj_file"))
		snprintf(buf, len, "syncobj");
	else if (!strcmp(target, "anon_inode:sync_file"))
		snprintf(buf, len, "sync_file:%s", kt_sync_letter(kt_sync_status(fd)));
	else if (!strcmp(target, "anon_inode:[eventfd]"))
		snprintf(buf, len, "eventfd");
	else if (!strncmp(target, "/dev/dri/", 9))
		snprintf(buf, len, "drm");
	else if (strstr(target, "/sync/sw_sync"))
		snprintf(buf, len, "sw_sync");
	else
		snprintf(buf, len, "other");
	return buf;
}

char *kt_fdset_new_text(const struct kt_fdset *base)
{
	struct kt_fdset now;
	size_t cap = 16, m;
	char *s = malloc(cap), kind[64];

	sw_assert(s);
	kt_fdset_read(&now);
	m = (size_t)snprintf(s, cap, "[");
	for (int fd = 0; fd < KT_FDSET_MAX; fd++) {
		if (!fdset_has(&now, fd) || fdset_has(base, fd))
			continue;
		kt_fd_kind(fd, kind, sizeof(kind));
		if (m + strlen(kind) + 3 > cap) {
			cap = (cap + strlen(kind) + 3) * 2;
			s = realloc(s, cap);
			sw_assert(s);
		}
		m += (size_t)snprintf(s + m, cap - m, "%s%s", m > 1 ? "," : "", kind);
	}
	snprintf(s + m, cap - m, "]");
	return s;
}

int kt_fdset_close_new(const struct kt_fdset *base)
{
	struct kt_fdset now;
	int closed = 0;

	kt_fdset_read(&now);
	for (int fd = 0; fd < KT_FDSET_MAX; fd++) {
		if (fdset_has(&now, fd) && !fdset_has(base, fd)) {
			close(fd);
			closed++;
		}
	}
	return closed;
}
