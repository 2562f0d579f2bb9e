/* Signals acquire points from a worker thread some time after the frame was
 * committed, standing in for a GPU that finishes later: the compositor sees
 * points that are neither signalled nor (for a while) materialized at
 * commit time. Points are signalled in the order they were queued.
 *
 * With a fence (a binary syncobj), one TIMELINE_SIGNAL signals both the
 * acquire point and the fence, as one completed GPU submit signals its
 * semaphore and its VkFence. Without a timeline the worker signals nothing
 * and only marks jobs done (the no-sync control of syncway-offload). */
#ifndef SW_CLIENT_ACQUIRE_WORKER_H
#define SW_CLIENT_ACQUIRE_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

#define SW_ACQUIRE_RING 1024

struct sw_acquire_job {
	uint64_t point, seq;
	int64_t due_ns; /* CLOCK_MONOTONIC */
};

struct sw_acquire_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct sw_timeline *timeline; /* NULL: no syncobj at all */
	uint32_t fence;               /* binary syncobj of timeline's device, or 0 */
	struct sw_acquire_job jobs[SW_ACQUIRE_RING];
	unsigned head, tail; /* under lock */
	bool stop;
	/* The worker's own ioctls (a stats struct is per thread); read
	 * under lock. */
	struct sw_syncobj_stats stats;
	uint64_t failures;
	/* Signal time of frame seq, in clock, by seq % ring. */
	clockid_t clock;
	_Atomic int64_t signalled_ns[SW_ACQUIRE_RING];
};

struct sw_acquire_worker *sw_acquire_worker_create(struct sw_timeline *timeline, uint32_t fence,
						   clockid_t clock);
/* Signals every queued point, then joins the thread. */
void sw_acquire_worker_destroy(struct sw_acquire_worker *w);
/* Waits until every queued point is signalled. */
void sw_acquire_worker_flush(struct sw_acquire_worker *w);
/* Signal point delay_ns from now. */
void sw_acquire_worker_queue(struct sw_acquire_worker *w, uint64_t point, uint64_t seq, int64_t delay_ns);
/* A copy of the worker's ioctl accounting. */
void sw_acquire_worker_stats(struct sw_acquire_worker *w, struct sw_syncobj_stats *out);
int64_t sw_acquire_worker_signalled_ns(struct sw_acquire_worker *w, uint64_t seq);

#endif
