/* Reading syncobj states back, one handle at a time, for the transcripts,
 * and what a sync_file holds. */
#include "kt.h"

#include <errno.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int query1(int fd, uint32_t handle, uint32_t flags, uint64_t *point)
{
	struct drm_syncobj_timeline_array q = {
		.handles = (uintptr_t)&handle,
		.points = (uintptr_t)point,
		.count_handles = 1,
		.flags = flags,
	};
	return kt_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &q);
}

void kt_sync_info(int sync_file, struct kt_sync_info *si)
{
	struct sync_file_info info = { 0 };
	struct sync_fence_info *f;
	int ret = kt_ioctl(sync_file, SYNC_IOC_FILE_INFO, &info);

	sw_assert_f(ret == 0, "SYNC_IOC_FILE_INFO failed: %s", kt_ret(ret));
	memset(si, 0, sizeof(*si));
	si->status = info.status;
	si->n = info.num_fences;
	if (!info.num_fences)
		return;
	/* The fences, a second call: the kernel wants room for all of them. */
	f = calloc(info.num_fences, sizeof(*f));
	sw_assert(f);
	info.sync_fence_info = (uintptr_t)f;
	ret = kt_ioctl(sync_file, SYNC_IOC_FILE_INFO, &info);
	if (ret == 0) {
		si->status = info.status;
		si->n = info.num_fences;
		memcpy(si->f, f,
		       (si->n < KT_SYNC_MAX_FENCES ? si->n : KT_SYNC_MAX_FENCES) * sizeof(*f));
	}
	free(f);
	sw_assert_f(ret == 0, "SYNC_IOC_FILE_INFO (fences) failed: %s", kt_ret(ret));
}

int kt_sync_status(int sync_file)
{
	struct sync_file_info info = { 0 };
	int ret = kt_ioctl(sync_file, SYNC_IOC_FILE_INFO, &info);

	sw_assert_f(ret == 0, "SYNC_IOC_FILE_INFO failed: %s", kt_ret(ret));
	return info.status;
}

const char *kt_sync_letter(int status)
{
	return status > 0 ? "S" : status == 0 ? "P" : "E";
}

bool kt_sync_wait(int sync_file, int timeout_ms)
{
	struct pollfd p = { .fd = sync_file, .events = POLLIN };
	int64_t end = sw_clock_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;

	for (;;) {
		int left = (int)((end - sw_clock_ns(CLOCK_MONOTONIC)) / 1000000);
		int r = poll(&p, 1, left > 0 ? left : 0);

		if (r > 0)
			return true;
		sw_assert_f(r == 0 || errno == EINTR, "poll on a sync_file failed: %m");
		if (r == 0 && left <= 0)
			return false;
	}
}

bool kt_sync_same_fence(int one, int other)
{
	struct kt_sync_info a, b;

	kt_sync_info(one, &a);
	kt_sync_info(other, &b);
	sw_assert_f(a.n == 1 && a.status == 1, "not one signalled fence (%u fences, status %d)",
		    a.n, a.status);
	for (uint32_t i = 0; i < b.n && i < KT_SYNC_MAX_FENCES; i++) {
		if (b.f[i].timestamp_ns == a.f[0].timestamp_ns &&
		    !strcmp(b.f[i].driver_name, a.f[0].driver_name) &&
		    !strcmp(b.f[i].obj_name, a.f[0].obj_name))
			return true;
	}
	return false;
}

const char *kt_state1(int fd, uint32_t handle, char *buf, size_t len)
{
	struct drm_syncobj_handle e = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	uint64_t q = 0, last = 0;
	char letter;
	int ret = kt_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &e);

	if (ret == -ENOENT) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (ret == -EINVAL) {
		letter = 'N'; /* drm_syncobj_find_fence: no fence */
	} else {
		sw_assert_f(ret == 0, "EXPORT_SYNC_FILE failed: %s", kt_ret(ret));
		letter = kt_sync_letter(kt_sync_status(e.fd))[0];
		close(e.fd);
	}
	ret = query1(fd, handle, 0, &q);
	sw_assert_f(ret == 0, "QUERY of one handle failed: %s", kt_ret(ret));
	ret = query1(fd, handle, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED, &last);
	sw_assert_f(ret == 0, "QUERY (LAST_SUBMITTED) of one handle failed: %s", kt_ret(ret));
	if (q == 0 && last == 0)
		snprintf(buf, len, "%c", letter);
	else
		snprintf(buf, len, "%c:%llu/%llu", letter, (unsigned long long)q,
			 (unsigned long long)last);
	return buf;
}

struct rle {
	char *s;
	size_t len, cap;
	bool items;
	char prev[64];
	uint32_t run;
};

static void rle_put(struct rle *r, const char *text)
{
	size_t m = strlen(text);

	if (r->len + m + 1 > r->cap) {
		r->cap = (r->cap + m + 1) * 2;
		r->s = realloc(r->s, r->cap);
		sw_assert(r->s);
	}
	memcpy(r->s + r->len, text, m + 1);
	r->len += m;
}

static void rle_flush(struct rle *r)
{
	char item[96];

	if (!r->run)
		return;
	if (r->run == 1)
		snprintf(item, sizeof(item), "%s%s", r->items ? "," : "", r->prev);
	else
		snprintf(item, sizeof(item), "%s%s*%u", r->items ? "," : "", r->prev, r->run);
	rle_put(r, item);
	r->items = true;
	r->run = 0;
}

static void rle_add(struct rle *r, const char *tok)
{
	if (r->run && !strcmp(r->prev, tok)) {
		r->run++;
		return;
	}
	rle_flush(r);
	snprintf(r->prev, sizeof(r->prev), "%s", tok);
	r->run = 1;
}

bool kt_state_probed(uint32_t n, uint32_t i)
{
	if (n <= KT_STATE_ALL_UP_TO)
		return true;
	return i < 64 || i >= n - 64 || i % 257 == 0 || i == n / 2 || i == n / 2 - 1 ||
	       i == n / 2 + 1;
}

char *kt_fix_state(const struct kt_fix *f)
{
	struct rle r = { 0 };
	char tok[64];
	uint32_t probed = 0;

	for (uint32_t i = 0; i < f->n; i++)
		probed += kt_state_probed(f->n, i);
	if (probed != f->n) {
		snprintf(tok, sizeof(tok), "sample%u/%u", probed, f->n);
		rle_put(&r, tok);
	}
	rle_put(&r, "[");
	for (uint32_t i = 0; i < f->n; i++) {
		if (kt_state_probed(f->n, i))
			rle_add(&r, kt_state1(f->fd, f->h[i], tok, sizeof(tok)));
	}
	rle_flush(&r);
	rle_put(&r, "]");
	return r.s;
}

char *kt_fix_others(const struct kt_fix *f)
{
	/* handles are handed out lowest free first from 1, so new ones are
	 * below the highest known + the few the call can have made */
	uint32_t top = f->src_signaled;
	struct rle r = { 0 };
	char tok[64];

	for (uint32_t i = 0; i < f->n; i++)
		top = f->h[i] > top ? f->h[i] : top;
	rle_put(&r, "[");
	for (uint32_t h = 1; h <= top + 8; h++) {
		bool known = h == f->src_signaled;

		for (uint32_t i = 0; i < f->n && !known; i++)
			known = f->h[i] == h;
		if (known || !strcmp(kt_state1(f->fd, h, tok, sizeof(tok)), "?"))
			continue;
		rle_add(&r, tok);
	}
	rle_flush(&r);
	rle_put(&r, "]");
	return r.s;
}
