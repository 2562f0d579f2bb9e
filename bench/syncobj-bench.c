/* syncobj-bench: cost per call of the DRM syncobj ioctls, run in a guest.
 *
 * Cases: WAIT, TIMELINE_WAIT, QUERY, RESET, SIGNAL, TIMELINE_SIGNAL with
 * 1, 2, 4, 5, 8 and 64 handles (all fences signalled, so waits return at
 * once); TIMELINE_WAIT_PENDING, a poll (timeout 0, WAIT_FOR_SUBMIT) whose
 * last point is not submitted yet, so that it fails with ETIME after
 * looking at every other, signalled, point: the worst case for a check of
 * signalled fences before the full wait; EVENTFD and TRANSFER as controls
 * the series does not touch, and
 * FLOOR: an ioctl number drm_ioctl rejects (the cheapest possible ioctl on
 * the render node).
 *
 * Method: for each case, `--warmup` calls, then `--batches` batches of
 * `--calls` calls each; one CLOCK_MONOTONIC read before and after each batch
 * (never around single calls), so the sample of a case is the batch mean
 * cost per call, `--batches` values. The ioctls go through common/syncobj.c
 * with stats = NULL, which issues the bare ioctl with no timing of its own.
 * Under `tools/vm-run --icount` guest nanoseconds are guest instructions
 * (user + kernel), so the numbers are instruction counts per call.
 *
 * Output: a human table on stdout; with --json FILE one JSON line per case:
 *   {"bench":"syncobj","case":"wait","handles":1,"mode":"icount","kernel":"...",
 *    "batches":30,"calls":100,"median":2431.2,"p99":2440.1,"min":...,"max":...,
 *    "mean":...,"floor_ratio":8.38,"samples":[...]}
 *   usage: syncobj-bench [--json FILE] [--mode LABEL] [--batches N] [--calls N]
 *                        [--warmup N] [--case NAME] [--device PATH]
 *                        [--trace-one NAME/HANDLES]
 *
 * --trace-one is for tools/ioctl-profile, which single-steps the kernel under
 * a debugger: after the warm-up calls of that one case it issues one marker
 * ioctl (TRACE_MARKER, rejected like FLOOR's but with a number of its own),
 * then exactly one call of the case, and exits; no timing.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "clock.h"
#include "drm_device.h"
#include "stats.h"
#include "syncobj.h"

#define MAX_HANDLES 64
#define TRACE_MARKER DRM_IOWR(0xee, struct drm_syncobj_array)

enum kind { K_FLOOR, K_WAIT, K_TIMELINE_WAIT, K_QUERY, K_RESET, K_SIGNAL, K_TIMELINE_SIGNAL,
	    K_TIMELINE_WAIT_PENDING, K_EVENTFD, K_TRANSFER };

static const char *kind_name[] = {
	[K_FLOOR] = "floor", [K_WAIT] = "wait", [K_TIMELINE_WAIT] = "timeline_wait",
	[K_QUERY] = "query", [K_RESET] = "reset", [K_SIGNAL] = "signal",
	[K_TIMELINE_SIGNAL] = "timeline_signal",
	[K_TIMELINE_WAIT_PENDING] = "timeline_wait_pending", [K_EVENTFD] = "eventfd",
	[K_TRANSFER] = "transfer",
};

struct bench_case {
	enum kind kind;
	uint32_t n;
	uint32_t handles[MAX_HANDLES];
	uint64_t points[MAX_HANDLES];
	uint64_t next_point; /* TIMELINE_SIGNAL: rising points */
	int efd;
};

static int fd = -1;
static int floor_errno; /* errno of the floor ioctl, reported in the JSON */

static void die(const char *what, int err)
{
	fprintf(stderr, "syncobj-bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void setup(struct bench_case *c)
{
	int ret;
	c->efd = -1;
	switch (c->kind) {
	case K_FLOOR:
		return;
	case K_WAIT:
	case K_SIGNAL:
	case K_RESET:
		for (uint32_t i = 0; i < c->n; i++)
			if ((ret = sw_syncobj_create(NULL, fd, DRM_SYNCOBJ_CREATE_SIGNALED, &c->handles[i])))
				die("create", ret);
		return;
	case K_TIMELINE_WAIT:
	case K_TIMELINE_WAIT_PENDING:
	case K_QUERY:
	case K_TIMELINE_SIGNAL:
	case K_EVENTFD:
		for (uint32_t i = 0; i < c->n; i++) {
			if ((ret = sw_syncobj_create(NULL, fd, 0, &c->handles[i])))
				die("create", ret);
			c->points[i] = 1;
		}
		if ((ret = sw_syncobj_timeline_signal(NULL, fd, c->handles, c->points, c->n)))
			die("timeline_signal (setup)", ret);
		c->next_point = 2;
		if (c->kind == K_TIMELINE_WAIT_PENDING)
			c->points[c->n - 1] = 2;
		if (c->kind == K_EVENTFD && (c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
			die("eventfd", errno);
		return;
	case K_TRANSFER:
		/* binary -> binary: src signalled, dst replaced each call */
		if ((ret = sw_syncobj_create(NULL, fd, DRM_SYNCOBJ_CREATE_SIGNALED, &c->handles[0])) ||
		    (ret = sw_syncobj_create(NULL, fd, 0, &c->handles[1])))
			die("create", ret);
		return;
	}
}

static void teardown(struct bench_case *c)
{
	if (c->kind == K_FLOOR)
		return;
	uint32_t n = c->kind == K_TRANSFER ? 2 : c->n;
	for (uint32_t i = 0; i < n; i++)
		sw_syncobj_destroy(NULL, fd, c->handles[i]);
	if (c->efd >= 0)
		close(c->efd);
}

/* `calls` calls of the case; returns the first failure (0 if none). */
static int run(struct bench_case *c, unsigned calls)
{
	int ret = 0;
	struct drm_syncobj_array floor_arg = { 0 };
	switch (c->kind) {
	case K_FLOOR:
		for (unsigned k = 0; k < calls; k++)
			if (ioctl(fd, DRM_IOWR(0xef, struct drm_syncobj_array), &floor_arg) < 0)
				floor_errno = errno;
		return floor_errno ? 0 : -EPROTO; /* it must fail */
	case K_WAIT:
		for (unsigned k = 0; k < calls && !ret; k++)
			ret = sw_syncobj_wait(NULL, fd, c->handles, c->n, 0,
					      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
		return ret;
	case K_TIMELINE_WAIT:
		for (unsigned k = 0; k < calls && !ret; k++)
			ret = sw_syncobj_timeline_wait(NULL, fd, c->handles, c->points, c->n, 0,
						       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
						       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
		return ret;
	case K_TIMELINE_WAIT_PENDING:
		for (unsigned k = 0; k < calls && !ret; k++) {
			ret = sw_syncobj_timeline_wait(NULL, fd, c->handles, c->points, c->n, 0,
						       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
						       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
			ret = ret == -ETIME ? 0 : ret ? ret : -EPROTO; /* it must time out */
		}
		return ret;
	case K_QUERY: {
		uint64_t out[MAX_HANDLES];
		for (unsigned k = 0; k < calls && !ret; k++)
			ret = sw_syncobj_query(NULL, fd, c->handles, out, c->n, 0);
		return ret;
	}
	case K_RESET:
		for (unsigned k = 0; k < calls && !ret; k++)
			ret = sw_syncobj_reset(NULL, fd, c->handles, c->n);
		return ret;
	case K_SIGNAL:
		for (unsigned k = 0; k < calls && !ret; k++)
			ret = sw_syncobj_signal(NULL, fd, c->handles, c->n);
		return ret;
	case K_TIMELINE_SIGNAL: {
		uint64_t pts[MAX_HANDLES];
		for (unsigned k = 0; k < calls && !ret; k++) {
			for (uint32_t i = 0; i < c->n; i++)
				pts[i] = c->next_point;
			c->next_point++;
			ret = sw_syncobj_timeline_signal(NULL, fd, c->handles, pts, c->n);
		}
		return ret;
	}
	case K_EVENTFD:
		for (unsigned k = 0; k < calls && !ret; k++)
			ret = sw_syncobj_eventfd(NULL, fd, c->handles[0], 1, 0, c->efd);
		if (!ret) {
			uint64_t v;
			(void)!read(c->efd, &v, sizeof(v));
		}
		return ret;
	case K_TRANSFER:
		for (unsigned k = 0; k < calls && !ret; k++)
			ret = sw_syncobj_transfer(NULL, fd, c->handles[1], 0, c->handles[0], 0, 0);
		return ret;
	}
	return -EINVAL;
}

/* --trace-one's NAME/HANDLES into *c; false (said on stderr) when it is not
 * a case syncobj-bench has. */
static bool parse_trace_spec(const char *spec, struct bench_case *c)
{
	char name[32];
	unsigned n;
	int len = -1;
	if (sscanf(spec, "%31[a-z_]/%u%n", name, &n, &len) != 2 || spec[len] != '\0') {
		fprintf(stderr, "syncobj-bench: --trace-one wants NAME/HANDLES, e.g. wait/1, not '%s'\n",
			spec);
		return false;
	}
	size_t k = 0;
	while (k < sizeof(kind_name) / sizeof(kind_name[0]) && strcmp(kind_name[k], name))
		k++;
	if (k == sizeof(kind_name) / sizeof(kind_name[0])) {
		fprintf(stderr, "syncobj-bench: --trace-one: no case '%s'\n", name);
		return false;
	}
	*c = (struct bench_case){ .kind = (enum kind)k, .n = n };
	uint32_t lo = 1, hi = MAX_HANDLES;
	if (c->kind == K_FLOOR)
		lo = hi = 0;
	else if (c->kind == K_EVENTFD || c->kind == K_TRANSFER)
		hi = 1;
	if (n < lo || n > hi) {
		fprintf(stderr, "syncobj-bench: --trace-one: %s takes %u to %u handles, not %u\n", name,
			lo, hi, n);
		return false;
	}
	return true;
}

/* The --trace-one sequence; see the header. */
static int trace_one(struct bench_case *c, unsigned warmup)
{
	struct drm_syncobj_array marker = { 0 };
	setup(c);
	int ret = run(c, warmup);
	if (!ret && ioctl(fd, TRACE_MARKER, &marker) == 0)
		ret = -EPROTO;
	if (!ret)
		ret = run(c, 1);
	if (ret)
		die(kind_name[c->kind], ret);
	teardown(c);
	printf("syncobj-bench: traced one %s/%u after %u warm-up calls\n", kind_name[c->kind], c->n,
	       warmup);
	return 0;
}

int main(int argc, char **argv)
{
	const char *json_path = NULL, *mode = "wall", *only = NULL, *device = NULL, *trace = NULL;
	unsigned batches = 30, calls = 100, warmup = 200;
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "mode", required_argument, NULL, 'm' },
		{ "batches", required_argument, NULL, 'b' },
		{ "calls", required_argument, NULL, 'c' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "case", required_argument, NULL, 'C' },
		{ "device", required_argument, NULL, 'd' },
		{ "trace-one", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int o;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'j': json_path = optarg; break;
		case 'm': mode = optarg; break;
		case 'b': batches = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'c': calls = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'w': warmup = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'C': only = optarg; break;
		case 'd': device = optarg; break;
		case 't': trace = optarg; break;
		case 'h':
			puts("usage: syncobj-bench [--json FILE] [--mode LABEL] [--batches N] [--calls N]\n"
			     "                     [--warmup N] [--case NAME] [--device PATH]\n"
			     "                     [--trace-one NAME/HANDLES]");
			return 0;
		default:
			return 2;
		}
	}
	struct bench_case traced;
	if (trace && !parse_trace_spec(trace, &traced))
		return 2;
	if (batches < 2 || calls < 1) {
		fprintf(stderr, "syncobj-bench: --batches must be >= 2 and --calls >= 1\n");
		return 2;
	}
	if (device)
		fd = open(device, O_RDWR | O_CLOEXEC);
	else
		fd = sw_drm_open_render_node(NULL, 0);
	if (fd < 0)
		die("cannot open a render node", errno ? errno : ENODEV);

	if (trace)
		return trace_one(&traced, warmup);

	FILE *json = NULL;
	if (json_path && !(json = fopen(json_path, "w")))
		die(json_path, errno);
	struct utsname u;
	uname(&u);

	static const enum kind array_kinds[] = { K_WAIT, K_TIMELINE_WAIT, K_QUERY, K_RESET, K_SIGNAL,
						 K_TIMELINE_SIGNAL, K_TIMELINE_WAIT_PENDING };
	static const uint32_t counts[] = { 1, 2, 4, 5, 8, 64 };
	enum { N_ARRAY = sizeof(array_kinds) / sizeof(array_kinds[0]),
	       N_COUNTS = sizeof(counts) / sizeof(counts[0]) };
	struct bench_case cases[1 + N_ARRAY * N_COUNTS + 2];
	size_t ncases = 0;
	cases[ncases++] = (struct bench_case){ .kind = K_FLOOR, .n = 0 };
	for (size_t a = 0; a < N_ARRAY; a++)
		for (size_t b = 0; b < N_COUNTS; b++)
			cases[ncases++] = (struct bench_case){ .kind = array_kinds[a], .n = counts[b] };
	cases[ncases++] = (struct bench_case){ .kind = K_EVENTFD, .n = 1 };
	cases[ncases++] = (struct bench_case){ .kind = K_TRANSFER, .n = 1 };

	double *samples = calloc(batches, sizeof(*samples));
	double *sorted = calloc(batches, sizeof(*sorted));
	double floor_median = 0;
	printf("# syncobj-bench on %s, mode %s: %u batches x %u calls, ns per call\n", u.release, mode,
	       batches, calls);
	printf("%-16s %4s %10s %10s %10s %8s\n", "case", "n", "median", "p99", "min", "/floor");
	for (size_t i = 0; i < ncases; i++) {
		struct bench_case *c = &cases[i];
		if (only && strcmp(only, kind_name[c->kind]) && c->kind != K_FLOOR)
			continue;
		setup(c);
		/* Fewer calls per batch for the big arrays keeps the run short; the
		 * per-call cost is what is reported. */
		unsigned cpb = c->n >= 64 ? (calls + 7) / 8 : calls;
		int ret = run(c, warmup);
		if (ret)
			die(kind_name[c->kind], ret);
		for (unsigned b = 0; b < batches; b++) {
			int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
			ret = run(c, cpb);
			int64_t t1 = sw_clock_ns(CLOCK_MONOTONIC);
			if (ret)
				die(kind_name[c->kind], ret);
			samples[b] = (double)(t1 - t0) / cpb;
		}
		teardown(c);
		memcpy(sorted, samples, batches * sizeof(*sorted));
		struct stats_sample s = { .v = sorted, .n = batches, .cap = batches };
		struct stats_summary sum;
		s.sum = s.sum_sq = 0;
		for (unsigned b = 0; b < batches; b++) {
			s.sum += samples[b];
			s.sum_sq += samples[b] * samples[b];
		}
		stats_sample_summarize(&s, &sum);
		double med = stats_median(sorted, batches);
		double p99 = stats_percentile(sorted, batches, 99);
		if (c->kind == K_FLOOR)
			floor_median = med;
		double ratio = floor_median > 0 ? med / floor_median : 0;
		printf("%-16s %4u %10.1f %10.1f %10.1f %8.2f\n", kind_name[c->kind], c->n, med, p99,
		       sum.min, ratio);
		if (json) {
			fprintf(json,
				"{\"bench\":\"syncobj\",\"case\":\"%s\",\"handles\":%u,\"mode\":\"%s\","
				"\"kernel\":\"%s\",\"batches\":%u,\"calls\":%u,\"median\":%.3f,\"p99\":%.3f,"
				"\"min\":%.3f,\"max\":%.3f,\"mean\":%.3f,\"floor_ratio\":%.4f,",
				kind_name[c->kind], c->n, mode, u.release, batches, cpb, med, p99, sum.min,
				sum.max, sum.mean, ratio);
			if (c->kind == K_FLOOR)
				fprintf(json, "\"errno\":\"%s\",", strerrorname_np(floor_errno));
			fputs("\"samples\":[", json);
			for (unsigned b = 0; b < batches; b++)
				fprintf(json, "%s%.3f", b ? "," : "", samples[b]);
			fputs("]}\n", json);
		}
	}
	if (json && fclose(json))
		die(json_path, errno);
	free(samples);
	free(sorted);
	close(fd);
	return 0;
}
