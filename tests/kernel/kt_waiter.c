/* A second thread asleep in a wait ioctl, and how to tell that it sleeps. */
#include "kt.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *waiter_main(void *arg)
{
	struct kt_waiter *w = arg;
	unsigned long req = w->timeline ? DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT : DRM_IOCTL_SYNCOBJ_WAIT;

	w->tid = gettid();
	w->ret = kt_ioctl(w->fd, req, &w->args);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *copy_of(const void *src, size_t len)
{
	void *p = malloc(len ? len : 1);

	sw_assert(p);
	memcpy(p, src, len);
	return p;
}

void kt_waiter_start(struct kt_waiter *w, int fd, bool timeline, const uint32_t *handles,
		     const uint64_t *points, uint32_t n, uint32_t flags)
{
	/* Long enough never to expire in a passing case, short enough that a
	 * lost wake-up fails the subtest instead of hanging the guest. */
	int64_t timeout = sw_clock_ns(CLOCK_MONOTONIC) + 20000000000ll;
	pthread_t th;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->timeline = timeline;
	w->ret = 1;
	w->handles = copy_of(handles, n * sizeof(*handles));
	if (timeline) {
		w->points = points ? copy_of(points, n * sizeof(*points)) : NULL;
		w->args.timeline_wait = (struct drm_syncobj_timeline_wait){
			.handles = (uintptr_t)w->handles,
			.points = (uintptr_t)w->points,
			.count_handles = n,
			.flags = flags,
			.timeout_nsec = timeout,
			.first_signaled = KT_FIRST_UNSET,
		};
	} else {
		w->args.wait = (struct drm_syncobj_wait){
			.handles = (uintptr_t)w->handles,
			.count_handles = n,
			.flags = flags,
			.timeout_nsec = timeout,
			.first_signaled = KT_FIRST_UNSET,
		};
	}
	sw_assert_f(pthread_create(&th, NULL, waiter_main, w) == 0, "pthread_create failed");
	w->thread = (unsigned long)th;
}

uint32_t kt_waiter_first(const struct kt_waiter *w)
{
	return w->timeline ? w->args.timeline_wait.first_signaled : w->args.wait.first_signaled;
}

enum waiter_seen { WAITER_RUNNING, WAITER_ASLEEP, WAITER_DONE };

static enum waiter_seen waiter_look(const struct kt_waiter *w)
{
	char path[64], buf[64];
	ssize_t m;
	int fd;

	if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		return WAITER_DONE;
	if (!w->tid)
		return WAITER_RUNNING;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)w->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return WAITER_RUNNING;
	m = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	/* 16 is ioctl on x86-64; the file says "running" unless the task
	 * sleeps. */
	return m > 3 && !strncmp(buf, "16 ", 3) ? WAITER_ASLEEP : WAITER_RUNNING;
}

/* Looks every millisecond until the thread has returned (or, with
 * until_asleep, sleeps in the ioctl) or timeout_ms have passed. */
static enum waiter_seen waiter_poll(const struct kt_waiter *w, int timeout_ms, bool until_asleep)
{
	int64_t end = sw_clock_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;

	for (;;) {
		enum waiter_seen seen = waiter_look(w);

		if (seen == WAITER_DONE || (until_asleep && seen == WAITER_ASLEEP))
			return seen;
		if (sw_clock_ns(CLOCK_MONOTONIC) > end)
			return seen;
		kt_sleep_ms(1);
	}
}

bool kt_waiter_blocked(struct kt_waiter *w, int timeout_ms)
{
	return waiter_poll(w, timeout_ms, true) == WAITER_ASLEEP;
}

bool kt_waiter_join(struct kt_waiter *w, int timeout_ms)
{
	if (waiter_poll(w, timeout_ms, false) != WAITER_DONE)
		return false;
	pthread_join((pthread_t)w->thread, NULL);
	free(w->handles);
	free(w->points);
	w->handles = NULL;
	w->points = NULL;
	return true;
}
