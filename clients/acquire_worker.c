#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acquire_worker.h"
#include "clock.h"

static int signal_job(struct sw_acquire_worker *w, uint64_t point)
{
	if (!w->timeline)
		return 0;
	uint32_t handles[2] = { w->timeline->handle, w->fence };
	uint64_t points[2] = { point, 0 };
	return sw_syncobj_timeline_signal(&w->stats, w->timeline->drm_fd, handles, points,
					  w->fence ? 2 : 1);
}

static void *worker_main(void *data)
{
	struct sw_acquire_worker *w = data;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->head == w->tail && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->head == w->tail)
			break;
		struct sw_acquire_job job = w->jobs[w->tail % SW_ACQUIRE_RING];
		pthread_mutex_unlock(&w->lock);
		/* "Rendering" until due; on stop, finish early so nothing hangs. */
		int64_t left = job.due_ns - sw_clock_ns(CLOCK_MONOTONIC);
		if (left > 0 && !w->stop) {
			struct timespec ts = { left / 1000000000, left % 1000000000 };
			nanosleep(&ts, NULL);
		}
		pthread_mutex_lock(&w->lock);
		if (signal_job(w, job.point)) {
			w->failures++;
			fprintf(stderr, "syncway client: signalling acquire point %llu: %s\n",
				(unsigned long long)job.point, strerror(errno));
		}
		atomic_store(&w->signalled_ns[job.seq % SW_ACQUIRE_RING], sw_clock_ns(w->clock));
		w->tail++;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct sw_acquire_worker *sw_acquire_worker_create(struct sw_timeline *timeline, uint32_t fence,
						   clockid_t clock)
{
	struct sw_acquire_worker *w = calloc(1, sizeof(*w));
	w->timeline = timeline;
	w->fence = fence;
	w->clock = clock;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (pthread_create(&w->thread, NULL, worker_main, w)) {
		free(w);
		return NULL;
	}
	return w;
}

void sw_acquire_worker_destroy(struct sw_acquire_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void sw_acquire_worker_queue(struct sw_acquire_worker *w, uint64_t point, uint64_t seq, int64_t delay_ns)
{
	pthread_mutex_lock(&w->lock);
	while (w->head - w->tail >= SW_ACQUIRE_RING)
		pthread_cond_wait(&w->cond, &w->lock);
	atomic_store(&w->signalled_ns[seq % SW_ACQUIRE_RING], 0);
	w->jobs[w->head % SW_ACQUIRE_RING] = (struct sw_acquire_job){
		.point = point, .seq = seq, .due_ns = sw_clock_ns(CLOCK_MONOTONIC) + delay_ns,
	};
	w->head++;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void sw_acquire_worker_stats(struct sw_acquire_worker *w, struct sw_syncobj_stats *out)
{
	pthread_mutex_lock(&w->lock);
	*out = w->stats;
	pthread_mutex_unlock(&w->lock);
}

int64_t sw_acquire_worker_signalled_ns(struct sw_acquire_worker *w, uint64_t seq)
{
	return atomic_load(&w->signalled_ns[seq % SW_ACQUIRE_RING]);
}

void sw_acquire_worker_flush(struct sw_acquire_worker *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->head != w->tail)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}
