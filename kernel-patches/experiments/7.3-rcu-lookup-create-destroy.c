/* Instructions per CREATE+DESTROY pair of DRM syncobjs, and per temporary
 * syncobj of common/syncobj.c's sw_syncobj_point_{import,export}_sync_file(),
 * under -icount (guest ns = instructions); docs/kernel-patches.md, "An
 * RCU-only lookup, measured". Same method as syncobj-bench: warm-up calls,
 * then batches of calls with one CLOCK_MONOTONIC read around each batch.
 *   usage: create-destroy BATCHES CALLS WARMUP [signaled]
 * Prints the floor (an ioctl number drm_ioctl rejects), the pair, and
 * without "signaled" the import and export sequences, per call: median,
 * mean, min, max of the batch means. Built with gcc -O2 -static; run as
 *   create-destroy 30 100 200; create-destroy 30 10000 1000 (and signaled)
 * in a fresh guest boot per kernel. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

struct sc { uint32_t handle, flags; };
struct sd { uint32_t handle, pad; };
#define CREATE _IOWR('d', 0xBF, struct sc)
#define DESTROY _IOWR('d', 0xC0, struct sd)
#define FLOOR _IOWR('d', 0xef, struct sd)
struct sh { uint32_t handle, flags; int32_t fd; uint32_t pad; uint64_t point; };
struct st { uint32_t src, dst; uint64_t src_point, dst_point; uint32_t flags, pad; };
#define TO_FD _IOWR('d', 0xC1, struct sh)
#define FROM_FD _IOWR('d', 0xC2, struct sh)
#define TRANSFER _IOWR('d', 0xCC, struct st)
/* modes: 0 create+destroy, 1 floor, 2 import pattern, 3 export pattern:
 * common/syncobj.c's sw_syncobj_point_{import,export}_sync_file */
static uint32_t timeline;
static int sync_file = -1;
static uint64_t point;
#define CHK(x) do { if (x) { perror(#x); exit(1); } } while (0)

static int fd;
static uint32_t cflags;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void run(int floor, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (floor == 2 || floor == 3) {
			struct sc c = { 0, 0 };
			CHK(ioctl(fd, CREATE, &c));
			if (floor == 2) {
				struct sh h = { c.handle, 1, sync_file, 0, 0 };
				CHK(ioctl(fd, FROM_FD, &h));
				struct st t = { c.handle, timeline, 0, ++point, 0, 0 };
				CHK(ioctl(fd, TRANSFER, &t));
			} else {
				struct st t = { timeline, c.handle, point, 0, 0, 0 };
				CHK(ioctl(fd, TRANSFER, &t));
				struct sh h = { c.handle, 1, -1, 0, 0 };
				CHK(ioctl(fd, TO_FD, &h));
				close(h.fd);
			}
			struct sd d = { c.handle, 0 };
			CHK(ioctl(fd, DESTROY, &d));
			continue;
		}
		if (floor) {
			struct sd d = { 0 };
			ioctl(fd, FLOOR, &d);
			continue;
		}
		struct sc c = { 0, cflags };
		if (ioctl(fd, CREATE, &c)) { perror("create"); exit(1); }
		struct sd d = { c.handle, 0 };
		if (ioctl(fd, DESTROY, &d)) { perror("destroy"); exit(1); }
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned b = atoi(argv[1]), n = atoi(argv[2]), w = atoi(argv[3]);
	cflags = argc > 4 && !strcmp(argv[4], "signaled") ? 1 : 0;
	fd = open("/dev/dri/renderD128", O_RDWR);
	if (fd < 0) { perror("open"); return 1; }
	int modes[] = { 1, 0, 2, 3 };
	static const char *names[] = { "create+destroy", "floor", "import-pattern", "export-pattern" };
	{
		struct sc c = { 0, 1 };
		CHK(ioctl(fd, CREATE, &c));
		struct sh h = { c.handle, 1, -1, 0, 0 };
		CHK(ioctl(fd, TO_FD, &h));
		sync_file = h.fd;
		struct sc t = { 0, 0 };
		CHK(ioctl(fd, CREATE, &t));
		timeline = t.handle;
	}
	for (int m = 0; m < (cflags ? 2 : 4); m++) {
		int floor = modes[m];
		double *s = calloc(b, sizeof(*s)), sum = 0;
		run(floor, w);
		for (unsigned i = 0; i < b; i++) {
			double t0 = now();
			run(floor, n);
			s[i] = (now() - t0) / n;
			sum += s[i];
		}
		qsort(s, b, sizeof(*s), cmp);
		printf("%s%s batches=%u calls=%u median=%.1f mean=%.1f min=%.1f max=%.1f\n",
		       names[floor], floor || !cflags ? "" : "(signaled)",
		       b, n, b % 2 ? s[b / 2] : (s[b / 2 - 1] + s[b / 2]) / 2,
		       sum / b, s[0], s[b - 1]);
		free(s);
	}
	return 0;
}
