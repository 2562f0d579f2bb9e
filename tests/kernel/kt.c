/* The core of the kernel tests: command line, transcript, device and
 * handles. The other kt_*.c files own one concern each (see kt.h). */
#include "kt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "drm_device.h"

const uint32_t kt_counts[] = { 0, 1, 2, 3, 4, 5, 8, 64, 1024 };
const size_t kt_ncounts = sizeof(kt_counts) / sizeof(kt_counts[0]);

bool kt_count_skipped(uint32_t n)
{
	static int few = -1;

	if (few < 0)
		few = kt_env_flag("SYNCWAY_KT_FEW_COUNTS");
	return few && n != 1 && n != 4 && n != 5 && n != 64;
}

static struct {
	const char *suite;
	const char *subtest;
	const char *transcript_path;
	FILE *transcript;
	bool transcript_failed;
} kt;

int kt_positions(uint32_t n, uint32_t pos[3])
{
	uint32_t cand[3] = { 0, n / 2, n - 1 };
	int m = 0;

	if (n == 0)
		return 0;
	for (int i = 0; i < 3; i++) {
		bool seen = false;
		for (int j = 0; j < m; j++)
			seen |= pos[j] == cand[i];
		if (!seen)
			pos[m++] = cand[i];
	}
	return m;
}

const char *kt_pos_name(uint32_t n, uint32_t k)
{
	if (k == 0)
		return "first";
	if (k == n - 1)
		return "last";
	return "middle";
}

const char *kt_take_option(int *argc, char **argv, const char *name)
{
	const char *value = NULL;
	int n = 1;

	for (int i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], name) && i + 1 < *argc)
			value = argv[++i];
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	*argc = n;
	return value;
}

void kt_init(const char *suite, int argc, char **argv)
{
	static char path[4096];

	kt.suite = suite;
	kt.transcript_path = kt_take_option(&argc, argv, "--transcript");
	if (!kt.transcript_path) {
		const char *dir = getenv("SYNCWAY_TRANSCRIPT_DIR");
		if (dir && *dir) {
			snprintf(path, sizeof(path), "%s/%s.txt", dir, suite);
			kt.transcript_path = path;
		}
	}
	sw_test_init(suite, argc, argv);
}

int kt_exit(void)
{
	int status = sw_test_exit();

	if (kt.transcript && fclose(kt.transcript) != 0)
		kt.transcript_failed = true;
	if (kt.transcript_failed) {
		fprintf(stderr, "%s: could not write the transcript %s\n", kt.suite,
			kt.transcript_path);
		return 1;
	}
	return status;
}

const char *kt_subtest_name(const char *name)
{
	kt.subtest = name;
	return name;
}

void kt_tr_open(void)
{
	if (!kt.transcript_path || kt.transcript_failed || kt.transcript)
		return;
	kt.transcript = fopen(kt.transcript_path, "w");
	if (!kt.transcript) {
		fprintf(stderr, "%s: cannot open %s: %m\n", kt.suite, kt.transcript_path);
		kt.transcript_failed = true;
		return;
	}
	fprintf(kt.transcript, "# %s transcript v1\n", kt.suite);
}

void kt_tr(const char *fmt, ...)
{
	va_list ap;

	kt_tr_open();
	if (!kt.transcript)
		return;
	fprintf(kt.transcript, "%s: ", kt.subtest ? kt.subtest : "-");
	va_start(ap, fmt);
	vfprintf(kt.transcript, fmt, ap);
	va_end(ap);
	fputc('\n', kt.transcript);
}

bool kt_env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

/* ---- device --------------------------------------------------------------- */

int kt_open(void)
{
	static int checked; /* 0 unknown, 1 good, -1 bad */
	static char why[256];
	char err[256];
	int fd = sw_drm_open_render_node(err, sizeof(err));

	if (fd < 0)
		sw_skip("%s", err);
	if (checked == 0) {
		struct sw_syncobj_caps caps;
		if (!sw_drm_probe_syncobj(fd, &caps, why, sizeof(why))) {
			checked = -1;
		} else if (!caps.syncobj_timeline) {
			snprintf(why, sizeof(why), "%s has no timeline syncobjs", caps.driver);
			checked = -1;
		} else {
			checked = 1;
		}
	}
	if (checked < 0) {
		close(fd);
		sw_skip("%s", why);
	}
	return fd;
}

int kt_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) == 0 ? 0 : -errno;
}

const char *kt_ret(int ret)
{
	static char buf[4][32];
	static int slot;
	const char *name;

	if (ret == 0)
		return "0";
	if (ret > 0) {
		slot = (slot + 1) % 4;
		snprintf(buf[slot], sizeof(buf[slot]), "%d", ret);
		return buf[slot];
	}
	name = strerrorname_np(-ret);
	if (name)
		return name;
	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "errno%d", -ret);
	return buf[slot];
}

uint32_t kt_create(int fd, uint32_t flags)
{
	struct drm_syncobj_create c = { .flags = flags };
	int ret = kt_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c);

	sw_assert_f(ret == 0, "SYNCOBJ_CREATE failed: %s", kt_ret(ret));
	return c.handle;
}

void kt_destroy(int fd, uint32_t handle)
{
	struct drm_syncobj_destroy d = { .handle = handle };
	int ret = kt_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);

	sw_assert_f(ret == 0, "SYNCOBJ_DESTROY failed: %s", kt_ret(ret));
}

uint32_t kt_unused_handle(int fd)
{
	/* idr hands out the lowest free id: make one, free it, and nothing
	 * takes its place until the next CREATE. */
	uint32_t h = kt_create(fd, 0);
	kt_destroy(fd, h);
	return h;
}

void kt_max_count_or_skip(void)
{
	const char *env = getenv("SYNCWAY_KT_SKIP_MAX");
	if (env && !strcmp(env, "1"))
		sw_skip("SYNCWAY_KT_SKIP_MAX=1 (too slow on this kernel; base and patched run it)");
}

void kt_over_max_count_or_skip(void)
{
	if (!kt_env_flag("SYNCWAY_KT_WARN"))
		sw_skip("triggers a page-allocator WARNING in 6.12; set SYNCWAY_KT_WARN=1");
}

void kt_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };
	nanosleep(&ts, NULL);
}
