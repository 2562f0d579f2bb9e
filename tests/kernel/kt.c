#include "kt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "drm_device.h"
#include "sw_sync.h"

const uint32_t kt_counts[] = { 0, 1, 2, 3, 4, 5, 8, 64, 1024 };
const size_t kt_ncounts = sizeof(kt_counts) / sizeof(kt_counts[0]);

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

void kt_init(const char *suite, int argc, char **argv)
{
	static char path[4096];
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int n = 0;

	kt.suite = suite;
	rest[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--transcript") && i + 1 < argc)
			kt.transcript_path = argv[++i];
		else
			rest[n++] = argv[i];
	}
	if (!kt.transcript_path) {
		const char *dir = getenv("SYNCWAY_TRANSCRIPT_DIR");
		if (dir && *dir) {
			snprintf(path, sizeof(path), "%s/%s.txt", dir, suite);
			kt.transcript_path = path;
		}
	}
	sw_test_init(suite, n, rest);
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

void kt_tr(const char *fmt, ...)
{
	va_list ap;

	if (!kt.transcript_path || kt.transcript_failed)
		return;
	if (!kt.transcript) {
		kt.transcript = fopen(kt.transcript_path, "w");
		if (!kt.transcript) {
			fprintf(stderr, "%s: cannot open %s: %m\n", kt.suite, kt.transcript_path);
			kt.transcript_failed = true;
			return;
		}
		fprintf(kt.transcript, "# %s transcript v1\n", kt.suite);
	}
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

/* ---- sw_sync ---------------------------------------------------------------- */

int kt_sw_timeline(void)
{
	int fd = open(SW_SYNC_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		sw_skip("no sw_sync timeline (" SW_SYNC_PATH ": %m; "
			"needs CONFIG_SW_SYNC and debugfs)");
	return fd;
}

int kt_sw_fence(int timeline, uint32_t seqno)
{
	struct sw_sync_create_fence_data d = { .value = seqno };
	int ret;

	snprintf(d.name, sizeof(d.name), "kt-%u", seqno);
	ret = kt_ioctl(timeline, SW_SYNC_IOC_CREATE_FENCE, &d);
	sw_assert_f(ret == 0, "SW_SYNC_IOC_CREATE_FENCE failed: %s", kt_ret(ret));
	return d.fence;
}

void kt_sw_inc(int timeline, uint32_t inc)
{
	int ret = kt_ioctl(timeline, SW_SYNC_IOC_INC, &inc);
	sw_assert_f(ret == 0, "SW_SYNC_IOC_INC failed: %s", kt_ret(ret));
}

bool kt_sw_deadline(int fence_fd, uint64_t *ns)
{
	struct sw_sync_get_deadline d = { .fence_fd = fence_fd };
	int timeline = kt_sw_timeline(); /* any sw_sync fd answers this ioctl */
	int ret = kt_ioctl(timeline, SW_SYNC_GET_DEADLINE, &d);

	close(timeline);
	if (ret == -ENOENT)
		return false;
	sw_assert_f(ret == 0, "SW_SYNC_GET_DEADLINE failed: %s", kt_ret(ret));
	*ns = d.deadline_ns;
	return true;
}

/* ---- fixtures ----------------------------------------------------------------- */

struct kt_spec kt_none(void) { return (struct kt_spec){ .kind = KT_NONE }; }
struct kt_spec kt_signaled(void) { return (struct kt_spec){ .kind = KT_SIGNALED }; }
struct kt_spec kt_pending(uint32_t seqno)
{
	return (struct kt_spec){ .kind = KT_PENDING, .seqno = seqno };
}
struct kt_spec kt_timeline(uint64_t sig, uint64_t pend, uint32_t seqno)
{
	return (struct kt_spec){ .kind = KT_TIMELINE, .sig = sig, .pend = pend, .seqno = seqno };
}

void kt_fix_free(struct kt_fix *f)
{
	if (f->fd > 0)
		close(f->fd);
	for (int i = 0; i <= KT_MAX_SEQNO; i++) {
		if (f->fence_fd[i] > 0)
			close(f->fence_fd[i]);
	}
	/* Closing the timeline signals what is left (with -ENOENT). */
	if (f->timeline > 0)
		close(f->timeline);
	free(f->h);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->timeline = -1;
}

static int fix_fence(struct kt_fix *f, uint32_t seqno)
{
	if (seqno == 0)
		seqno = 1;
	sw_assert_f(seqno <= KT_MAX_SEQNO, "seqno %u too large for a fixture", seqno);
	if (f->timeline <= 0)
		f->timeline = kt_sw_timeline();
	if (f->fence_fd[seqno] <= 0)
		f->fence_fd[seqno] = kt_sw_fence(f->timeline, seqno);
	return f->fence_fd[seqno];
}

void kt_fix_import_pending(struct kt_fix *f, uint32_t h, uint32_t seqno)
{
	struct drm_syncobj_handle a = {
		.handle = h,
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
		.fd = fix_fence(f, seqno),
	};
	int ret = kt_ioctl(f->fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &a);
	sw_assert_f(ret == 0, "sync_file import failed: %s", kt_ret(ret));
}

void kt_fix_add_point(struct kt_fix *f, uint32_t h, uint64_t point, uint32_t seqno)
{
	uint32_t src;
	bool temp = false;
	int ret;

	if (seqno == 0) {
		if (!f->src_signaled)
			f->src_signaled = kt_create(f->fd, DRM_SYNCOBJ_CREATE_SIGNALED);
		src = f->src_signaled;
	} else {
		src = kt_create(f->fd, 0);
		kt_fix_import_pending(f, src, seqno);
		temp = true;
	}
	struct drm_syncobj_transfer t = {
		.src_handle = src,
		.dst_handle = h,
		.src_point = 0,
		.dst_point = point,
	};
	ret = kt_ioctl(f->fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &t);
	sw_assert_f(ret == 0, "SYNCOBJ_TRANSFER to point %llu failed: %s",
		    (unsigned long long)point, kt_ret(ret));
	if (temp)
		kt_destroy(f->fd, src);
}

static struct kt_spec spec_all(uint32_t i, uint32_t n, const void *ctx)
{
	(void)i;
	(void)n;
	return *(const struct kt_spec *)ctx;
}

void kt_fix_make_all(struct kt_fix *f, uint32_t n, struct kt_spec spec)
{
	kt_fix_make(f, n, spec_all, &spec);
}

void kt_fix_make(struct kt_fix *f, uint32_t n, kt_spec_fn spec, const void *ctx)
{
	kt_fix_free(f);
	f->fd = kt_open();
	f->n = n;
	f->h = calloc(n ? n : 1, sizeof(*f->h));
	sw_assert(f->h);
	for (uint32_t i = 0; i < n; i++) {
		struct kt_spec s = spec(i, n, ctx);

		f->h[i] = kt_create(f->fd, s.kind == KT_SIGNALED ? DRM_SYNCOBJ_CREATE_SIGNALED : 0);
		if (s.kind == KT_PENDING) {
			kt_fix_import_pending(f, f->h[i], s.seqno);
		} else if (s.kind == KT_TIMELINE) {
			if (s.sig)
				kt_fix_add_point(f, f->h[i], s.sig, 0);
			if (s.pend)
				kt_fix_add_point(f, f->h[i], s.pend, s.seqno ? s.seqno : 1);
		}
	}
}

struct kt_spec kt_spec_mixed(uint32_t i, uint32_t n, const void *ctx)
{
	(void)n;
	(void)ctx;
	switch (i % 5) {
	case 0: return kt_none();
	case 1: return kt_signaled();
	case 2: return kt_pending(1);
	case 3: return kt_timeline(5, 0, 0);
	default: return kt_timeline(5, 8, 2);
	}
}

struct kt_spec kt_spec_mixed_probed(uint32_t i, uint32_t n, const void *ctx)
{
	return kt_state_probed(n, i) ? kt_spec_mixed(i, n, ctx) : kt_none();
}

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

void kt_u64_text(const uint64_t *v, uint32_t n, char *buf, size_t len)
{
	size_t m = 0;

	buf[0] = '\0';
	if (!v || n == 0) {
		snprintf(buf, len, "-");
		return;
	}
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		if (m + 48 >= len) {
			snprintf(buf + m, len - m, ",...");
			return;
		}
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
}

uint32_t *kt_handles(const struct kt_fix *f, uint32_t bad)
{
	uint32_t *h = malloc((f->n ? f->n : 1) * sizeof(*h));

	sw_assert(h);
	memcpy(h, f->h, f->n * sizeof(*h));
	if (bad < f->n)
		h[bad] = kt_unused_handle(f->fd);
	return h;
}

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
		struct sync_file_info info = { 0 };
		ret = kt_ioctl(e.fd, SYNC_IOC_FILE_INFO, &info);
		close(e.fd);
		sw_assert_f(ret == 0, "SYNC_IOC_FILE_INFO failed: %s", kt_ret(ret));
		letter = info.status > 0 ? 'S' : info.status == 0 ? 'P' : 'E';
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

/* ---- bad pointers --------------------------------------------------------------- */

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

void kt_fault_make(struct kt_fault *fa, size_t elem, uint32_t count, uint32_t k, bool split)
{
	size_t ps = page_size();
	size_t before = (size_t)k * elem + (split ? elem / 2 : 0);
	size_t total = (size_t)count * elem;
	size_t pre = (before + ps - 1) / ps;
	size_t post = (total - before + ps - 1) / ps + 1;

	if (pre == 0)
		pre = 1;
	fa->map_len = (pre + post) * ps;
	fa->map = mmap(NULL, fa->map_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sw_assert_f(fa->map != MAP_FAILED, "mmap: %m");
	sw_assert_f(mprotect((char *)fa->map + pre * ps, post * ps, PROT_NONE) == 0,
		    "mprotect: %m");
	fa->array = (char *)fa->map + pre * ps - before;
	fa->readable = before;
}

void kt_fault_fill(struct kt_fault *fa, const void *src, size_t len)
{
	memcpy(fa->array, src, len < fa->readable ? len : fa->readable);
}

void kt_fault_free(struct kt_fault *fa)
{
	if (fa->map && fa->map != MAP_FAILED)
		munmap(fa->map, fa->map_len);
	memset(fa, 0, sizeof(*fa));
}

uint64_t kt_unmapped_address(void)
{
	size_t ps = page_size();
	void *p = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	sw_assert_f(p != MAP_FAILED, "mmap: %m");
	munmap(p, 4 * ps);
	return (uint64_t)(uintptr_t)p + ps;
}

void *kt_readonly_copy(const void *src, size_t len)
{
	size_t ps = page_size();
	size_t mlen = (len + ps - 1) / ps * ps;
	void *p = mmap(NULL, mlen ? mlen : ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	sw_assert_f(p != MAP_FAILED, "mmap: %m");
	memcpy(p, src, len);
	sw_assert_f(mprotect(p, mlen ? mlen : ps, PROT_READ) == 0, "mprotect: %m");
	return p;
}

void kt_readonly_free(void *p, size_t len)
{
	size_t ps = page_size();
	size_t mlen = (len + ps - 1) / ps * ps;
	munmap(p, mlen ? mlen : ps);
}

void kt_arr_make(struct kt_arr *a, enum kt_ptr kind, const void *data, size_t elem,
		 uint32_t n, uint32_t k)
{
	size_t len = (size_t)n * elem;

	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->elem = elem;
	a->n = n;
	switch (kind) {
	case KT_PTR_OK:
		a->buf = malloc(len ? len : 1);
		sw_assert(a->buf);
		memcpy(a->buf, data, len);
		a->ptr = (uintptr_t)a->buf;
		snprintf(a->desc, sizeof(a->desc), "ok");
		break;
	case KT_PTR_NULL:
		snprintf(a->desc, sizeof(a->desc), "null");
		break;
	case KT_PTR_UNMAPPED:
		a->ptr = kt_unmapped_address();
		snprintf(a->desc, sizeof(a->desc), "unmapped");
		break;
	case KT_PTR_KERNEL:
		a->ptr = KT_KERNEL_ADDRESS;
		snprintf(a->desc, sizeof(a->desc), "kernel");
		break;
	case KT_PTR_READONLY:
		a->buf = kt_readonly_copy(data, len);
		a->ptr = (uintptr_t)a->buf;
		snprintf(a->desc, sizeof(a->desc), "readonly");
		break;
	case KT_PTR_FAULT:
	case KT_PTR_FAULT_SPLIT:
		kt_fault_make(&a->fa, elem, n, k, kind == KT_PTR_FAULT_SPLIT);
		kt_fault_fill(&a->fa, data, len);
		a->ptr = (uintptr_t)a->fa.array;
		snprintf(a->desc, sizeof(a->desc), "fault@%u(%s)%s", k, kt_pos_name(n, k),
			 kind == KT_PTR_FAULT_SPLIT ? "+split" : "");
		break;
	}
}

void *kt_arr_data(const struct kt_arr *a)
{
	switch (a->kind) {
	case KT_PTR_OK:
	case KT_PTR_READONLY:
		return a->buf;
	case KT_PTR_FAULT:
	case KT_PTR_FAULT_SPLIT:
		return a->fa.array;
	default:
		return NULL;
	}
}

uint32_t kt_arr_readable(const struct kt_arr *a)
{
	switch (a->kind) {
	case KT_PTR_OK:
	case KT_PTR_READONLY:
		return a->n;
	case KT_PTR_FAULT:
	case KT_PTR_FAULT_SPLIT:
		return (uint32_t)(a->fa.readable / a->elem);
	default:
		return 0;
	}
}

void kt_arr_free(struct kt_arr *a)
{
	if (a->kind == KT_PTR_OK)
		free(a->buf);
	else if (a->kind == KT_PTR_READONLY && a->buf)
		kt_readonly_free(a->buf, (size_t)a->n * a->elem);
	kt_fault_free(&a->fa);
	memset(a, 0, sizeof(*a));
}

/* ---- waiter thread ----------------------------------------------------------------- */

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

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

bool kt_waiter_blocked(struct kt_waiter *w, int timeout_ms)
{
	int64_t end = kt_now_ns() + (int64_t)timeout_ms * 1000000;
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
		if (kt_now_ns() > end)
			return false;
		sleep_ms(1);
	}
}

bool kt_waiter_join(struct kt_waiter *w, int timeout_ms)
{
	int64_t end = kt_now_ns() + (int64_t)timeout_ms * 1000000;

	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
		if (kt_now_ns() > end)
			return false;
		sleep_ms(1);
	}
	pthread_join((pthread_t)w->thread, NULL);
	return true;
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

int64_t kt_now_ns(void)
{
	return sw_clock_ns(CLOCK_MONOTONIC);
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

void kt_max_count_or_skip(void)
{
	const char *env = getenv("SYNCWAY_KT_SKIP_MAX");
	if (env && !strcmp(env, "1"))
		sw_skip("SYNCWAY_KT_SKIP_MAX=1 (too slow on this kernel; base and patched run it)");
}
