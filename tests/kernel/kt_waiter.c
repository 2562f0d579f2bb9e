/* A second thread asleep in an ioctl, and how to tell that it sleeps. */
#include "kt.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *waiter_main(void *arg)
{
	struct kt_waiter *w = arg;

	w->tid = gettid();
	w->ret = kt_ioctl(w->fd, w->req, w->arg);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

void kt_waiter_start(struct kt_waiter *w, int fd, unsigned long req, void *arg)
{
	pthread_t th;

	w->fd = fd;
	w->req = req;
	w->arg = arg;
	w->tid = 0;
	w->done = 0;
	w->ret = 1;
	sw_assert_f(pthread_create(&th, NULL, waiter_main, w) == 0, "pthread_create failed");
	w->thread = (unsigned long)th;
}

bool kt_waiter_blocked(struct kt_waiter *w, int timeout_ms)
{
	int64_t end = sw_clock_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;
	char path[64], buf[64];

	for (;;) {
		if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
			return false;
		if (w->tid) {
			snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)w->tid);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				ssize_t m = read(fd, buf, sizeof(buf) - 1);
				close(fd);
				/* 16 is ioctl on x86-64; the file says "running"
				 * unless the task sleeps. */
				if (m > 3 && !strncmp(buf, "16 ", 3))
					return true;
			}
		}
		if (sw_clock_ns(CLOCK_MONOTONIC) > end)
			return false;
		kt_sleep_ms(1);
	}
}

bool kt_waiter_join(struct kt_waiter *w, int timeout_ms)
{
	int64_t end = sw_clock_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;

	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
		if (sw_clock_ns(CLOCK_MONOTONIC) > end)
			return false;
		kt_sleep_ms(1);
	}
	pthread_join((pthread_t)w->thread, NULL);
	return true;
}
