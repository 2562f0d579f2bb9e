/* The conformance client toolkit (see ct.h). */
#include "ct.h"

#include <errno.h>
#include <linux/dma-buf.h>
#include <xf86drm.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "drm_device.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "sw_sync.h"

#define CT_SIZE 32

/* --- global state, per subtest cleanup ------------------------------------ */

struct signal_thread {
	struct signal_thread *next;
	pthread_t thread;
	uint32_t handle;
	uint64_t point;
	int delay_ms;
	volatile int64_t *when;
};

struct swsync_fence {
	struct swsync_fence *next;
	int timeline_fd;
};

struct owned_buffer {
	struct owned_buffer *next;
	struct ct_conn *c;
	struct sw_buffer *b;
};

static struct {
	bool init;
	int drm_fd;  /* render node */
	int card_fd; /* primary node, for dumb buffers; -2: not tried yet */
	char card_why[160];
	struct sw_syncobj_stats stats;
	double time_scale;
	uint64_t event_order;
	char last_log[512];

	struct ct_conn *conns;
	struct owned_buffer *buffers;
	struct ct_timeline *timelines;
	struct ct_window *windows;
	struct ct_track *tracks;
	struct signal_thread *threads;
	struct swsync_fence *fences;
} ct = { .drm_fd = -1, .card_fd = -2 };

static void log_handler(const char *fmt, va_list args)
{
	vsnprintf(ct.last_log, sizeof(ct.last_log), fmt, args);
	size_t n = strlen(ct.last_log);
	while (n > 0 && ct.last_log[n - 1] == '\n')
		ct.last_log[--n] = '\0';
}

const char *ct_last_log(void)
{
	return ct.last_log;
}

int ct_env_int(const char *name, int fallback)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : fallback;
}

int ct_ms(int ms)
{
	if (ct.time_scale <= 0) {
		const char *env = getenv("SYNCWAY_CONFORMANCE_TIME_SCALE");
		ct.time_scale = env ? strtod(env, NULL) : 1.0;
		if (ct.time_scale <= 0)
			ct.time_scale = 1.0;
	}
	return (int)(ms * ct.time_scale);
}

int64_t ct_now_ns(void)
{
	return sw_syncobj_now_ns();
}

void ct_note(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("# ", stdout);
	vprintf(fmt, args);
	fputc('\n', stdout);
	va_end(args);
}

/* Those of c, or all of them (c NULL). Before the connection goes: the
 * proxies need it, even one a protocol error ended. */
static void destroy_buffers(struct ct_conn *c)
{
	for (struct owned_buffer **p = &ct.buffers, *o; (o = *p);) {
		if (c && o->c != c) {
			p = &o->next;
			continue;
		}
		*p = o->next;
		sw_buffer_destroy(o->b);
		free(o);
	}
}

static void cleanup(void)
{
	/* Threads first: they may signal handles destroyed below. */
	for (struct signal_thread *t = ct.threads, *next; t; t = next) {
		next = t->next;
		pthread_join(t->thread, NULL);
		free(t);
	}
	ct.threads = NULL;
	destroy_buffers(NULL);
	for (struct ct_conn *c = ct.conns, *next; c; c = next) {
		next = c->next;
		sw_display_abandon(c->d);
		free(c);
	}
	ct.conns = NULL;
	for (struct ct_track *t = ct.tracks, *next; t; t = next) {
		next = t->next;
		free(t);
	}
	ct.tracks = NULL;
	for (struct ct_window *w = ct.windows, *next; w; w = next) {
		next = w->next;
		free(w);
	}
	ct.windows = NULL;
	for (struct ct_timeline *t = ct.timelines, *next; t; t = next) {
		next = t->next;
		if (t->handle)
			sw_syncobj_destroy(&ct.stats, ct.drm_fd, t->handle);
		free(t);
	}
	ct.timelines = NULL;
	for (struct swsync_fence *f = ct.fences, *next; f; f = next) {
		next = f->next;
		if (f->timeline_fd >= 0)
			close(f->timeline_fd);
		free(f);
	}
	ct.fences = NULL;
}

int ct_begin(void)
{
	if (!ct.init) {
		ct.init = true;
		wl_log_set_handler_client(log_handler);
	}
	cleanup();
	ct.last_log[0] = '\0';
	return 1;
}

void ct_end(void)
{
	cleanup();
	if (ct.card_fd >= 0)
		close(ct.card_fd);
	if (ct.drm_fd >= 0)
		close(ct.drm_fd);
	ct.card_fd = -2;
	ct.drm_fd = -1;
}

/* --- connections ----------------------------------------------------------- */

static _Noreturn void fail_connection(struct ct_conn *c, const char *doing)
{
	int err = wl_display_get_error(c->d->display);
	if (err == EPROTO) {
		const struct wl_interface *iface = NULL;
		uint32_t id = 0;
		uint32_t code = wl_display_get_protocol_error(c->d->display, &iface, &id);
		sw_fail("%s: unexpected protocol error %u on %s@%u (\"%s\")", doing, code,
			iface ? iface->name : "?", id, ct.last_log);
	}
	sw_fail("%s: connection to the compositor lost: %s", doing, strerror(err ? err : errno));
}

struct ct_conn *ct_connect_to(const char *name)
{
	struct sw_display *d = sw_display_create(name);
	if (!d) {
		const char *shown = name ? name : getenv("WAYLAND_DISPLAY");
		sw_skip("cannot connect to the compositor (WAYLAND_DISPLAY=%s): %s",
			shown ? shown : "(unset)", strerror(errno));
	}
	struct ct_conn *c = calloc(1, sizeof(*c));
	c->d = d;
	c->next = ct.conns;
	ct.conns = c;
	if (wl_display_get_error(d->display))
		fail_connection(c, "roundtrip");
	if (!d->compositor)
		sw_fail("the compositor offers no wl_compositor version 4");
	return c;
}

struct ct_conn *ct_connect(void)
{
	return ct_connect_to(NULL);
}

void ct_disconnect(struct ct_conn *c)
{
	for (struct ct_conn **p = &ct.conns; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			break;
		}
	}
	/* Tracks and windows refer to proxies of this connection. */
	for (struct ct_track *t = ct.tracks; t; t = t->next) {
		if (t->w && t->w->c == c) {
			t->frame = NULL;
			t->feedback = NULL;
		}
	}
	for (struct ct_timeline *t = ct.timelines; t; t = t->next)
		if (t->c == c)
			t->proxy = NULL, t->c = NULL;
	destroy_buffers(c);
	sw_display_abandon(c->d);
	free(c);
}

void ct_need_manager(struct ct_conn *c)
{
	if (!c->d->syncobj_manager)
		sw_skip("the compositor does not offer wp_linux_drm_syncobj_manager_v1");
}

struct wp_linux_drm_syncobj_manager_v1 *ct_bind_manager(struct ct_conn *c)
{
	const struct sw_display_global *g =
		sw_display_find_global(c->d, wp_linux_drm_syncobj_manager_v1_interface.name);
	if (!g)
		sw_skip("the compositor does not offer wp_linux_drm_syncobj_manager_v1");
	return wl_registry_bind(c->d->registry, g->name, &wp_linux_drm_syncobj_manager_v1_interface, 1);
}

void ct_roundtrip(struct ct_conn *c)
{
	if (wl_display_roundtrip(c->d->display) < 0)
		fail_connection(c, "roundtrip");
}

int64_t ct_timed_roundtrip(struct ct_conn *c)
{
	int64_t start = ct_now_ns();
	ct_roundtrip(c);
	return ct_now_ns() - start;
}

bool ct_dispatch(struct ct_conn *c, int extra_fd, int timeout_ms)
{
	struct wl_display *d = c->d->display;
	while (wl_display_prepare_read(d) != 0) {
		if (wl_display_dispatch_pending(d) < 0)
			fail_connection(c, "dispatch");
	}
	if (wl_display_flush(d) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(d);
		fail_connection(c, "flush");
	}
	struct pollfd fds[2] = {
		{ .fd = wl_display_get_fd(d), .events = POLLIN },
		{ .fd = extra_fd, .events = POLLIN },
	};
	int n = poll(fds, extra_fd >= 0 ? 2 : 1, timeout_ms < 0 ? 0 : timeout_ms);
	if (n > 0 && fds[0].revents) {
		if (wl_display_read_events(d) < 0)
			fail_connection(c, "reading events");
	} else {
		wl_display_cancel_read(d);
	}
	if (wl_display_dispatch_pending(d) < 0)
		fail_connection(c, "dispatch");
	return n > 0 && extra_fd >= 0 && (fds[1].revents & POLLIN);
}

bool ct_wait_flag(struct ct_conn *c, const bool *flag, int timeout_ms)
{
	int64_t deadline = ct_now_ns() + (int64_t)timeout_ms * 1000000;
	while (!*flag) {
		int64_t left = deadline - ct_now_ns();
		if (left <= 0)
			return false;
		ct_dispatch(c, -1, (int)(left / 1000000) + 1);
	}
	return true;
}

void ct_need_configure_since(struct ct_window *w, unsigned before, const char *what)
{
	int64_t deadline = ct_now_ns() + (int64_t)CT_DEADLINE_MS * 1000000;
	while (w->win.configures == before && ct_now_ns() < deadline)
		ct_dispatch(w->c, -1, 50);
	if (w->win.configures == before)
		sw_fail("%s: no configure within %d ms", what, CT_DEADLINE_MS);
}

bool ct_try_roundtrip(struct ct_conn *c)
{
	if (wl_display_roundtrip(c->d->display) >= 0)
		return true;
	if (wl_display_get_error(c->d->display) != EPROTO)
		fail_connection(c, "roundtrip");
	return false;
}

void ct_check_error(struct ct_conn *c, const struct wl_interface *iface, void *object, uint32_t code,
		    const char *what)
{
	uint32_t want_id = wl_proxy_get_id(object);
	int err = wl_display_get_error(c->d->display);
	if (err == 0)
		sw_fail("%s: expected error %u on %s@%u, but the compositor accepted it", what, code,
			iface->name, want_id);
	if (err != EPROTO)
		sw_fail("%s: expected error %u on %s@%u, but the connection failed with %s", what,
			code, iface->name, want_id, strerror(err));
	const struct wl_interface *got_iface = NULL;
	uint32_t got_id = 0;
	uint32_t got = wl_display_get_protocol_error(c->d->display, &got_iface, &got_id);
	const char *got_name = got_iface ? got_iface->name : "?";
	if (got != code || !got_iface || strcmp(got_name, iface->name) != 0 || got_id != want_id)
		sw_fail("%s: expected error %u on %s@%u, got error %u on %s@%u (\"%s\")", what, code,
			iface->name, want_id, got, got_name, got_id, ct.last_log);
}

void ct_expect_error(struct ct_conn *c, const struct wl_interface *iface, void *object,
		     uint32_t code, const char *what)
{
	ct_try_roundtrip(c);
	ct_check_error(c, iface, object, code, what);
}

pid_t ct_compositor_pid(struct ct_conn *c)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(wl_display_get_fd(c->d->display), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -1;
	return cred.pid;
}

/* --- DRM device ------------------------------------------------------------ */

int ct_drm_fd(void)
{
	if (ct.drm_fd < 0) {
		char err[256];
		ct.drm_fd = sw_drm_open_render_node(err, sizeof(err));
		if (ct.drm_fd < 0)
			sw_skip("no DRM device for syncobjs: %s", err);
	}
	return ct.drm_fd;
}

struct sw_syncobj_stats *ct_stats(void)
{
	return &ct.stats;
}

static int card_fd(char *why, size_t why_len)
{
	if (ct.card_fd == -2)
		ct.card_fd = sw_buffer_open_card(ct_drm_fd(), ct.card_why, sizeof(ct.card_why));
	if (ct.card_fd < 0)
		snprintf(why, why_len, "%s", ct.card_why);
	return ct.card_fd;
}

/* --- buffers ----------------------------------------------------------------- */

bool ct_dmabuf_usable(struct ct_conn *c, char *why, size_t why_len)
{
	uint64_t modifier;
	if (!c->d->dmabuf) {
		snprintf(why, why_len, "no zwp_linux_dmabuf_v1 version >= 3");
		return false;
	}
	if (!sw_buffer_dmabuf_modifier(c->d, DRM_FORMAT_ARGB8888, &modifier)) {
		snprintf(why, why_len, "ARGB8888 with a linear modifier is not advertised");
		return false;
	}
	return card_fd(why, why_len) >= 0;
}

struct sw_buffer *ct_buffer_of(struct ct_conn *c, enum sw_buffer_type type)
{
	char why[200];
	if (type == SW_BUFFER_SHM && !c->d->shm)
		sw_skip("no wl_shm");
	if (type == SW_BUFFER_DMABUF && !ct_dmabuf_usable(c, why, sizeof(why)))
		sw_skip("cannot make dmabufs: %s", why);
	struct sw_buffer *b = sw_buffer_create(c->d, type, ct.card_fd, DRM_FORMAT_ARGB8888, CT_SIZE,
					       CT_SIZE, NULL);
	if (!b)
		sw_fail("cannot make a %s buffer: %s", sw_buffer_type_name(type), strerror(errno));
	struct owned_buffer *o = calloc(1, sizeof(*o));
	o->c = c;
	o->b = b;
	o->next = ct.buffers;
	ct.buffers = o;
	/* Premultiplied, half transparent: never an opaque region. A shade
	 * of its own for each. */
	static uint32_t n;
	sw_buffer_fill(b, 0x80000000u | ((++n * 0x3f) & 0x7f) << 16 | 0x4000 | 0x20);
	return b;
}

struct sw_buffer *ct_buffer(struct ct_conn *c)
{
	const char *env = getenv("SYNCWAY_CONFORMANCE_BUFFER");
	char why[200];
	if (env && strcmp(env, "shm") == 0)
		return ct_buffer_of(c, SW_BUFFER_SHM);
	if (env && strcmp(env, "dmabuf") == 0)
		return ct_buffer_of(c, SW_BUFFER_DMABUF);
	bool dmabuf = ct_dmabuf_usable(c, why, sizeof(why));
	return ct_buffer_of(c, dmabuf ? SW_BUFFER_DMABUF : SW_BUFFER_SHM);
}

/* --- timelines ---------------------------------------------------------------- */

static struct ct_timeline *timeline_import(struct ct_conn *c, uint32_t handle, bool own)
{
	ct_need_manager(c);
	int fd;
	int ret = sw_syncobj_handle_to_fd(&ct.stats, ct_drm_fd(), handle, &fd);
	if (ret)
		sw_fail("SYNCOBJ_HANDLE_TO_FD: %s", strerror(-ret));
	struct ct_timeline *t = calloc(1, sizeof(*t));
	t->c = c;
	t->handle = own ? handle : 0;
	t->proxy = wp_linux_drm_syncobj_manager_v1_import_timeline(c->d->syncobj_manager, fd);
	close(fd); /* libwayland sent its own copy */
	t->next = ct.timelines;
	ct.timelines = t;
	return t;
}

struct ct_timeline *ct_timeline(struct ct_conn *c)
{
	ct_need_manager(c);
	uint32_t handle;
	int ret = sw_syncobj_create(&ct.stats, ct_drm_fd(), 0, &handle);
	if (ret)
		sw_fail("SYNCOBJ_CREATE: %s", strerror(-ret));
	return timeline_import(c, handle, true);
}

void ct_chain_init(struct ct_chain *chain, struct ct_conn *c, int n)
{
	if (n < 1 || n > CT_CHAIN_MAX)
		sw_fail("a swap chain of %d buffers (1..%d)", n, CT_CHAIN_MAX);
	*chain = (struct ct_chain){ .n = n };
	for (int i = 0; i < n; i++) {
		chain->buffer[i] = ct_buffer(c);
		chain->release[i] = ct_timeline(c);
	}
	chain->acquire = ct_timeline(c);
}

struct ct_timeline *ct_timeline_import_again(struct ct_timeline *t)
{
	/* Not ours to destroy: signals and checks go through t. */
	return timeline_import(t->c, t->handle, false);
}

void ct_timeline_destroy_proxy(struct ct_timeline *t)
{
	if (t->proxy)
		wp_linux_drm_syncobj_timeline_v1_destroy(t->proxy);
	t->proxy = NULL;
}

void ct_timeline_forget(struct ct_timeline *t)
{
	if (t->handle)
		sw_syncobj_destroy(&ct.stats, ct.drm_fd, t->handle);
	t->handle = 0;
}

void ct_forget_all_timelines(void)
{
	for (struct ct_timeline *t = ct.timelines; t; t = t->next)
		ct_timeline_forget(t);
}

static uint32_t handle_of(struct ct_timeline *t)
{
	/* A second import signals through the timeline it was made from. */
	if (t->handle)
		return t->handle;
	sw_fail("timeline has no handle of ours");
}

void ct_signal(struct ct_timeline *t, uint64_t point)
{
	uint32_t handle = handle_of(t);
	int ret = sw_syncobj_timeline_signal(&ct.stats, ct.drm_fd, &handle, &point, 1);
	if (ret)
		sw_fail("TIMELINE_SIGNAL point %" PRIu64 ": %s", point, strerror(-ret));
}

bool ct_signalled(struct ct_timeline *t, uint64_t point)
{
	int ret = sw_syncobj_point_signalled(&ct.stats, ct.drm_fd, handle_of(t), point);
	if (ret < 0)
		sw_fail("TIMELINE_WAIT (poll) point %" PRIu64 ": %s", point, strerror(-ret));
	return ret == 1;
}

bool ct_wait_signalled(struct ct_conn *c, struct ct_timeline *t, uint64_t point, int timeout_ms)
{
	if (ct_signalled(t, point))
		return true;
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0)
		sw_fail("eventfd: %s", strerror(errno));
	int ret = sw_syncobj_eventfd(&ct.stats, ct.drm_fd, handle_of(t), point, 0, efd);
	if (ret) {
		close(efd);
		sw_fail("SYNCOBJ_EVENTFD point %" PRIu64 ": %s", point, strerror(-ret));
	}
	int64_t deadline = ct_now_ns() + (int64_t)timeout_ms * 1000000;
	bool done = false;
	while (!done) {
		int64_t left = deadline - ct_now_ns();
		if (left <= 0)
			break;
		done = ct_dispatch(c, efd, (int)(left / 1000000) + 1);
	}
	close(efd);
	return done || ct_signalled(t, point);
}

static void *signal_thread_main(void *data)
{
	struct signal_thread *st = data;
	struct timespec ts = { st->delay_ms / 1000, (long)(st->delay_ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	if (st->when)
		*st->when = ct_now_ns();
	/* Stats are per thread; this one is not accounted. */
	sw_syncobj_timeline_signal(NULL, ct.drm_fd, &st->handle, &st->point, 1);
	return NULL;
}

void ct_signal_later(struct ct_timeline *t, uint64_t point, int delay_ms, volatile int64_t *when)
{
	struct signal_thread *st = calloc(1, sizeof(*st));
	st->handle = handle_of(t);
	st->point = point;
	st->delay_ms = delay_ms;
	st->when = when;
	if (when)
		*when = 0;
	if (pthread_create(&st->thread, NULL, signal_thread_main, st) != 0) {
		free(st);
		sw_fail("pthread_create failed");
	}
	st->next = ct.threads;
	ct.threads = st;
}

/* --- sw_sync ------------------------------------------------------------------ */

bool ct_swsync_available(void)
{
	return access(SW_SYNC_PATH, R_OK | W_OK) == 0;
}

/* An unsignalled sw_sync fence, its timeline kept for ct_swsync_release
 * (and signalled at the next subtest at the latest); *token gets it. */
static int swsync_fence(const char *name, int *token)
{
	int tl = open(SW_SYNC_PATH, O_RDWR | O_CLOEXEC);
	if (tl < 0)
		sw_skip("no sw_sync (%s: %s): cannot make an unsignalled fence", SW_SYNC_PATH,
			strerror(errno));
	struct sw_sync_create_fence_data data = { .value = 1 };
	snprintf(data.name, sizeof(data.name), "%s", name);
	if (ioctl(tl, SW_SYNC_IOC_CREATE_FENCE, &data) != 0) {
		close(tl);
		sw_fail("SW_SYNC_IOC_CREATE_FENCE: %s", strerror(errno));
	}
	struct swsync_fence *f = calloc(1, sizeof(*f));
	f->timeline_fd = tl;
	f->next = ct.fences;
	ct.fences = f;
	*token = tl;
	return data.fence;
}

int ct_write_fence(struct sw_buffer *b)
{
	if (b->type != SW_BUFFER_DMABUF)
		sw_skip("a write fence needs a dmabuf");
	int dmabuf;
	if (drmPrimeHandleToFD(b->card_fd, b->dumb_handle, DRM_CLOEXEC, &dmabuf) != 0)
		sw_fail("PRIME export of the buffer: %s", strerror(errno));
	int token;
	int fence = swsync_fence("ct-write", &token);
	struct dma_buf_import_sync_file import = { .flags = DMA_BUF_SYNC_WRITE, .fd = fence };
	int ret = ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &import);
	int err = errno;
	close(fence);
	close(dmabuf);
	if (ret != 0)
		sw_fail("DMA_BUF_IOCTL_IMPORT_SYNC_FILE: %s", strerror(err));
	return token;
}

int ct_swsync_attach(struct ct_timeline *t, uint64_t point)
{
	int token;
	int fence = swsync_fence("ct-acquire", &token);
	int ret = sw_syncobj_point_import_sync_file(&ct.stats, ct.drm_fd, handle_of(t), point, fence);
	close(fence);
	if (ret)
		sw_fail("importing a sw_sync fence at point %" PRIu64 ": %s", point, strerror(-ret));
	return token;
}

void ct_swsync_release(int token)
{
	uint32_t one = 1;
	if (ioctl(token, SW_SYNC_IOC_INC, &one) != 0)
		sw_fail("SW_SYNC_IOC_INC: %s", strerror(errno));
}

/* --- surfaces ------------------------------------------------------------------- */

static struct ct_window *window_new(struct ct_conn *c)
{
	struct ct_window *w = calloc(1, sizeof(*w));
	w->c = c;
	w->next = ct.windows;
	ct.windows = w;
	return w;
}

struct ct_window *ct_bare_surface(struct ct_conn *c)
{
	struct ct_window *w = window_new(c);
	w->win.surface = wl_compositor_create_surface(c->d->compositor);
	return w;
}

struct ct_window *ct_toplevel(struct ct_conn *c)
{
	if (!c->d->wm_base)
		sw_skip("the compositor offers no xdg_wm_base");
	struct ct_window *w = window_new(c);
	sw_window_init(&w->win, c->d, "syncobj-conformance");
	wl_surface_commit(w->win.surface);
	if (!ct_wait_flag(c, &w->win.configured, CT_DEADLINE_MS))
		sw_fail("no xdg_surface.configure within %d ms", CT_DEADLINE_MS);
	return w;
}

void ct_get_sync(struct ct_window *w)
{
	ct_need_manager(w->c);
	w->sync = wp_linux_drm_syncobj_manager_v1_get_surface(w->c->d->syncobj_manager,
							      w->win.surface);
}

void ct_destroy_sync(struct ct_window *w)
{
	if (w->sync)
		wp_linux_drm_syncobj_surface_v1_destroy(w->sync);
	w->sync = NULL;
}

void ct_destroy_surface(struct ct_window *w)
{
	sw_window_finish(&w->win);
}

void ct_attach(struct ct_window *w, struct sw_buffer *b)
{
	wl_surface_attach(w->win.surface, b ? b->wl_buffer : NULL, 0, 0);
	if (b)
		wl_surface_damage_buffer(w->win.surface, 0, 0, b->width, b->height);
}

void ct_set_acquire(struct ct_window *w, struct ct_timeline *t, uint64_t point)
{
	wp_linux_drm_syncobj_surface_v1_set_acquire_point(w->sync, t->proxy, (uint32_t)(point >> 32),
							  (uint32_t)point);
}

void ct_set_release(struct ct_window *w, struct ct_timeline *t, uint64_t point)
{
	wp_linux_drm_syncobj_surface_v1_set_release_point(w->sync, t->proxy, (uint32_t)(point >> 32),
							  (uint32_t)point);
}

void ct_commit(struct ct_window *w)
{
	wl_surface_commit(w->win.surface);
}

/* --- tracking --------------------------------------------------------------------- */

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct ct_track *t = data;
	t->frame_done = true;
	t->frame_order = ++ct.event_order;
	t->frame = NULL;
	if (!t->feedback)
		t->received_ns = ct_now_ns();
	wl_callback_destroy(cb);
}
static const struct wl_callback_listener frame_listener = { .done = frame_done };

static void feedback_sync_output(void *data, struct wp_presentation_feedback *f, struct wl_output *o) {}
static void feedback_presented(void *data, struct wp_presentation_feedback *f, uint32_t sec_hi,
			       uint32_t sec_lo, uint32_t nsec, uint32_t refresh, uint32_t seq_hi,
			       uint32_t seq_lo, uint32_t flags)
{
	struct ct_track *t = data;
	t->presented = t->settled = true;
	t->feedback_order = ++ct.event_order;
	t->received_ns = ct_now_ns();
	t->presented_ns = (int64_t)(((uint64_t)sec_hi << 32) | sec_lo) * 1000000000 + nsec;
	t->presented_flags = flags;
	t->feedback = NULL;
	wp_presentation_feedback_destroy(f);
}
static void feedback_discarded(void *data, struct wp_presentation_feedback *f)
{
	struct ct_track *t = data;
	t->discarded = t->settled = true;
	t->feedback_order = ++ct.event_order;
	t->received_ns = ct_now_ns();
	t->feedback = NULL;
	wp_presentation_feedback_destroy(f);
}
static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

struct ct_track *ct_track(struct ct_window *w)
{
	struct ct_track *t = calloc(1, sizeof(*t));
	t->w = w;
	t->next = ct.tracks;
	ct.tracks = t;
	t->frame = wl_surface_frame(w->win.surface);
	wl_callback_add_listener(t->frame, &frame_listener, t);
	if (w->c->d->presentation) {
		t->feedback = wp_presentation_feedback(w->c->d->presentation, w->win.surface);
		wp_presentation_feedback_add_listener(t->feedback, &feedback_listener, t);
	}
	return t;
}

void ct_prepare(struct ct_window *w, struct sw_buffer *b, struct ct_timeline *acq,
		uint64_t acq_point, struct ct_timeline *rel, uint64_t rel_point)
{
	ct_attach(w, b);
	if (acq)
		ct_set_acquire(w, acq, acq_point);
	if (rel)
		ct_set_release(w, rel, rel_point);
}

struct ct_track *ct_commit_buffer(struct ct_window *w, struct sw_buffer *b, struct ct_timeline *acq,
				  uint64_t acq_point, struct ct_timeline *rel, uint64_t rel_point)
{
	ct_prepare(w, b, acq, acq_point, rel, rel_point);
	struct ct_track *t = ct_track(w);
	ct_commit(w);
	return t;
}

struct ct_track *ct_commit_damage(struct ct_window *w, int x, int y, int size)
{
	wl_surface_damage_buffer(w->win.surface, x, y, size, size);
	struct ct_track *t = ct_track(w);
	ct_commit(w);
	return t;
}

bool ct_wait_settled(struct ct_conn *c, struct ct_track *t, int timeout_ms)
{
	return ct_wait_flag(c, c->d->presentation ? &t->settled : &t->frame_done, timeout_ms);
}

void ct_need_presented(struct ct_conn *c, struct ct_track *t, const char *what)
{
	if (!ct_wait_settled(c, t, CT_DEADLINE_MS))
		sw_fail("%s: not presented within %d ms (frame callback %s)", what, CT_DEADLINE_MS,
			t->frame_done ? "done" : "not done either");
	if (t->discarded)
		sw_fail("%s: presentation feedback says discarded, expected presented", what);
}

struct ct_track *ct_show(struct ct_window *w, struct sw_buffer *b, struct ct_timeline *acq,
			 uint64_t acq_point, struct ct_timeline *rel, uint64_t rel_point)
{
	ct_signal(acq, acq_point);
	struct ct_track *t = ct_commit_buffer(w, b, acq, acq_point, rel, rel_point);
	ct_need_presented(w->c, t, "commit with a signalled acquire point");
	return t;
}

struct ct_track *ct_control_frame(struct ct_conn *c)
{
	if (!c->control) {
		c->control = ct_toplevel(c);
		c->control_buffer = ct_buffer_of(c, SW_BUFFER_SHM);
		ct_attach(c->control, c->control_buffer);
	}
	return ct_commit_damage(c->control, 0, 0, 1);
}

bool ct_quiet(struct ct_conn *c, int ms, bool (*fired)(void *arg), void *arg)
{
	int64_t end = ct_now_ns() + (int64_t)ms * 1000000;
	int frames = 0;
	struct ct_track *control = ct_control_frame(c);
	for (;;) {
		if (fired(arg))
			return false;
		if (control->frame_done) {
			frames++;
			control = ct_control_frame(c);
		}
		int64_t left = end - ct_now_ns();
		if (left <= 0)
			break;
		ct_dispatch(c, -1, (int)(left / 1000000) + 1);
	}
	/* Give the compositor a fair chance to draw at least two frames. */
	int64_t grace = ct_now_ns() + (int64_t)CT_DEADLINE_MS * 1000000;
	while (frames < 2 && ct_now_ns() < grace) {
		ct_dispatch(c, -1, 10);
		if (fired(arg))
			return false;
		if (control->frame_done) {
			frames++;
			control = ct_control_frame(c);
		}
	}
	if (frames < 2)
		sw_fail("the compositor drew %d frames of the control window in %d ms; cannot tell "
			"whether it holds anything back", frames, ms);
	return true;
}

static bool track_fired(void *arg)
{
	return ct_applied(arg);
}

void ct_expect_not_applied(struct ct_conn *c, struct ct_track *t, const char *what)
{
	if (!ct_quiet(c, CT_QUIET_MS, track_fired, t))
		sw_fail("%s: the commit was applied early (frame callback %s, presentation feedback %s)",
			what, t->frame_done ? "done" : "pending",
			t->presented ? "presented" : t->discarded ? "discarded" : "pending");
}

struct point_arg {
	struct ct_timeline *t;
	uint64_t point;
};

static bool point_fired(void *arg)
{
	struct point_arg *p = arg;
	return ct_signalled(p->t, p->point);
}

void ct_expect_unsignalled(struct ct_conn *c, struct ct_timeline *t, uint64_t point, const char *what)
{
	struct point_arg arg = { t, point };
	if (!ct_quiet(c, CT_QUIET_MS, point_fired, &arg))
		sw_fail("%s: point %" PRIu64 " was signalled", what, point);
}

struct ct_conn *ct_connect_with_manager(void)
{
	struct ct_conn *c = ct_connect();
	ct_need_manager(c);
	return c;
}

struct ct_window *ct_sync_window(struct ct_conn *c)
{
	struct ct_window *w = ct_toplevel(c);
	ct_get_sync(w);
	return w;
}
