/* sync-errors: quick checks of syncway's linux-drm-syncobj-v1 error paths,
 * one fresh connection per case (a protocol error ends the connection).
 * The full conformance suite lives in tests/conformance/; this is the
 * compositor author's own smoke check. Prints PASS/FAIL per case and
 * "N passed, N failed"; the exit status is 1 if any case failed.
 *   usage: sync-errors [--dmabuf]   (default: wl_shm buffers)
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "drm_device.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "syncobj.h"

struct conn {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	struct wp_linux_drm_syncobj_manager_v1 *manager;
	struct wl_surface *surface;
};

static int drm_fd = -1, card_fd = -1;
static bool use_dmabuf;
static struct sw_syncobj_stats stats;
static int passed, failed;

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct conn *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3)
		c->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3);
	else if (strcmp(interface, wp_linux_drm_syncobj_manager_v1_interface.name) == 0)
		c->manager = wl_registry_bind(registry, name, &wp_linux_drm_syncobj_manager_v1_interface, 1);
}
static void registry_global_remove(void *data, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener registry_listener = { registry_global, registry_global_remove };

static bool conn_open(struct conn *c)
{
	memset(c, 0, sizeof(*c));
	c->display = wl_display_connect(NULL);
	if (!c->display)
		return false;
	wl_registry_add_listener(wl_display_get_registry(c->display), &registry_listener, c);
	wl_display_roundtrip(c->display);
	if (!c->compositor || !c->shm || !c->manager || (use_dmabuf && !c->dmabuf))
		return false;
	c->surface = wl_compositor_create_surface(c->compositor);
	return true;
}

static struct wl_buffer *new_buffer(struct conn *c)
{
	const int w = 16, h = 16;
	if (use_dmabuf) {
		uint32_t handle, stride;
		uint64_t size;
		int fd;
		if (drmModeCreateDumbBuffer(card_fd, w, h, 32, 0, &handle, &stride, &size) ||
		    drmPrimeHandleToFD(card_fd, handle, DRM_CLOEXEC, &fd))
			return NULL;
		struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(c->dmabuf);
		zwp_linux_buffer_params_v1_add(params, fd, 0, 0, stride, DRM_FORMAT_MOD_LINEAR >> 32,
					       DRM_FORMAT_MOD_LINEAR & 0xffffffff);
		struct wl_buffer *b = zwp_linux_buffer_params_v1_create_immed(params, w, h, DRM_FORMAT_XRGB8888, 0);
		zwp_linux_buffer_params_v1_destroy(params);
		close(fd);
		drmModeDestroyDumbBuffer(card_fd, handle); /* the dmabuf keeps it alive */
		return b;
	}
	int fd = memfd_create("sync-errors", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, w * h * 4) < 0)
		return NULL;
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, w * h * 4);
	struct wl_buffer *b = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return b;
}

/* A timeline the test owns (handle) and its imported object. */
struct timeline {
	uint32_t handle;
	int fd;
	struct wp_linux_drm_syncobj_timeline_v1 *obj;
};

static void new_timeline(struct conn *c, struct timeline *t)
{
	if (sw_syncobj_create(&stats, drm_fd, 0, &t->handle) ||
	    sw_syncobj_handle_to_fd(&stats, drm_fd, t->handle, &t->fd)) {
		fprintf(stderr, "sync-errors: cannot create a syncobj: %s\n", strerror(errno));
		exit(2);
	}
	t->obj = wp_linux_drm_syncobj_manager_v1_import_timeline(c->manager, t->fd);
}

static void signal_point(struct timeline *t, uint64_t point)
{
	sw_syncobj_timeline_signal(&stats, drm_fd, &t->handle, &point, 1);
}

static void free_timeline(struct timeline *t)
{
	close(t->fd);
	sw_syncobj_destroy(&stats, drm_fd, t->handle);
}

/* Ends a case: a roundtrip, then the error (or none) is compared with the
 * expectation. expect_iface NULL means "no error". */
static void finish(struct conn *c, const char *name, const struct wl_interface *expect_iface,
		   uint32_t expect_code)
{
	wl_display_roundtrip(c->display);
	int err = wl_display_get_error(c->display);
	const struct wl_interface *iface = NULL;
	uint32_t code = 0, id = 0;
	if (err == EPROTO)
		code = wl_display_get_protocol_error(c->display, &iface, &id);
	bool ok;
	if (!expect_iface)
		ok = err == 0;
	else
		ok = err == EPROTO && iface && strcmp(iface->name, expect_iface->name) == 0 && code == expect_code;
	if (ok) {
		passed++;
		printf("PASS %s\n", name);
	} else {
		failed++;
		if (err == EPROTO)
			printf("FAIL %s: got error %u on %s@%u, wanted %s\n", name, code,
			       iface ? iface->name : "?", id, expect_iface ? expect_iface->name : "no error");
		else
			printf("FAIL %s: got %s, wanted error %u on %s\n", name, err ? strerror(err) : "no error",
			       expect_code, expect_iface ? expect_iface->name : "-");
	}
	wl_display_disconnect(c->display);
}

#define MANAGER_ERR(e) &wp_linux_drm_syncobj_manager_v1_interface, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_##e
#define SURFACE_ERR(e) &wp_linux_drm_syncobj_surface_v1_interface, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_##e
#define NO_ERROR NULL, 0

static void set_points(struct wp_linux_drm_syncobj_surface_v1 *s, struct timeline *acq, uint64_t a,
		       struct timeline *rel, uint64_t r)
{
	if (acq)
		wp_linux_drm_syncobj_surface_v1_set_acquire_point(s, acq->obj, a >> 32, a & 0xffffffff);
	if (rel)
		wp_linux_drm_syncobj_surface_v1_set_release_point(s, rel->obj, r >> 32, r & 0xffffffff);
}

/* One case: open, body, finish. The body sees c, s (syncobj surface),
 * a and b (two timelines on separate syncobjs) and buf. */
#define CASE(name, expect, ...)                                                          \
	do {                                                                             \
		struct conn c;                                                           \
		if (!conn_open(&c)) {                                                    \
			printf("FAIL %s: cannot connect or globals missing\n", name);    \
			failed++;                                                        \
			break;                                                           \
		}                                                                        \
		struct timeline a, b;                                                    \
		new_timeline(&c, &a);                                                    \
		new_timeline(&c, &b);                                                    \
		struct wl_buffer *buf = new_buffer(&c);                                  \
		struct wp_linux_drm_syncobj_surface_v1 *s =                              \
			wp_linux_drm_syncobj_manager_v1_get_surface(c.manager, c.surface); \
		(void)s;                                                                 \
		(void)buf;                                                               \
		__VA_ARGS__;                                                             \
		finish(&c, name, expect);                                                \
		free_timeline(&a);                                                       \
		free_timeline(&b);                                                       \
	} while (0)

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--dmabuf") == 0)
		use_dmabuf = true;
	char err[256];
	drm_fd = sw_drm_open_render_node(err, sizeof(err));
	if (drm_fd < 0) {
		fprintf(stderr, "sync-errors: %s\n", err);
		return 2;
	}
	if (use_dmabuf && (card_fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC)) < 0) {
		fprintf(stderr, "sync-errors: /dev/dri/card0: %s\n", strerror(errno));
		return 2;
	}

	/* rule 3 */
	CASE("surface-exists", MANAGER_ERR(SURFACE_EXISTS),
	     wp_linux_drm_syncobj_manager_v1_get_surface(c.manager, c.surface));
	/* rule 4 */
	CASE("get-surface-after-destroy", NO_ERROR, {
		wp_linux_drm_syncobj_surface_v1_destroy(s);
		s = wp_linux_drm_syncobj_manager_v1_get_surface(c.manager, c.surface);
		signal_point(&a, 1);
		set_points(s, &a, 1, &b, 1);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	/* rule 5 */
	CASE("invalid-timeline", MANAGER_ERR(INVALID_TIMELINE), {
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		wp_linux_drm_syncobj_manager_v1_import_timeline(c.manager, fd);
		close(fd);
	});
	/* rules 8-9 */
	CASE("no-surface-acquire", SURFACE_ERR(NO_SURFACE), {
		wl_surface_destroy(c.surface);
		set_points(s, &a, 1, NULL, 0);
	});
	CASE("no-surface-release", SURFACE_ERR(NO_SURFACE), {
		wl_surface_destroy(c.surface);
		set_points(s, NULL, 0, &b, 1);
	});
	/* rules 10-13 */
	CASE("no-buffer-both", SURFACE_ERR(NO_BUFFER), {
		set_points(s, &a, 1, &b, 1);
		wl_surface_commit(c.surface);
	});
	CASE("no-buffer-acquire-only", SURFACE_ERR(NO_BUFFER), {
		set_points(s, &a, 1, NULL, 0);
		wl_surface_commit(c.surface);
	});
	CASE("no-buffer-release-only", SURFACE_ERR(NO_BUFFER), {
		set_points(s, NULL, 0, &b, 1);
		wl_surface_commit(c.surface);
	});
	CASE("no-buffer-null-attach", SURFACE_ERR(NO_BUFFER), {
		set_points(s, &a, 1, &b, 1);
		wl_surface_attach(c.surface, NULL, 0, 0);
		wl_surface_commit(c.surface);
	});
	/* rules 14-16 */
	CASE("no-acquire-point", SURFACE_ERR(NO_ACQUIRE_POINT), {
		set_points(s, NULL, 0, &b, 1);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	CASE("no-release-point", SURFACE_ERR(NO_RELEASE_POINT), {
		set_points(s, &a, 1, NULL, 0);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	CASE("no-points-at-all", SURFACE_ERR(NO_ACQUIRE_POINT), {
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	/* rules 17-18 */
	CASE("no-buffer-no-points", NO_ERROR, wl_surface_commit(c.surface));
	CASE("null-attach-no-points", NO_ERROR, {
		wl_surface_attach(c.surface, NULL, 0, 0);
		wl_surface_commit(c.surface);
	});
	/* rules 19-22 */
	CASE("conflicting-equal", SURFACE_ERR(CONFLICTING_POINTS), {
		set_points(s, &a, 5, &a, 5);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	CASE("conflicting-greater", SURFACE_ERR(CONFLICTING_POINTS), {
		set_points(s, &a, 6, &a, 5);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	CASE("same-timeline-ordered", NO_ERROR, {
		signal_point(&a, 5);
		set_points(s, &a, 5, &a, 6);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	CASE("two-imports-of-one-syncobj", NO_ERROR, {
		struct wp_linux_drm_syncobj_timeline_v1 *again =
			wp_linux_drm_syncobj_manager_v1_import_timeline(c.manager, a.fd);
		signal_point(&a, 9);
		wp_linux_drm_syncobj_surface_v1_set_acquire_point(s, a.obj, 0, 9);
		wp_linux_drm_syncobj_surface_v1_set_release_point(s, again, 0, 3);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	/* rule 24: the second acquire point replaces a conflicting first one */
	CASE("second-point-replaces-first", NO_ERROR, {
		signal_point(&a, 1);
		set_points(s, &a, 100, &a, 2);
		set_points(s, &a, 1, NULL, 0);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	/* rule 27: points do not stick to the next commit */
	CASE("points-are-double-buffered", NO_ERROR, {
		signal_point(&a, 1);
		set_points(s, &a, 1, &b, 1);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
		wl_surface_commit(c.surface);
	});
	/* rule 7 and rule 2 */
	CASE("timeline-destroyed-before-commit", NO_ERROR, {
		signal_point(&a, 1);
		set_points(s, &a, 1, &b, 1);
		wp_linux_drm_syncobj_timeline_v1_destroy(a.obj);
		wp_linux_drm_syncobj_timeline_v1_destroy(b.obj);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	CASE("manager-destroyed", NO_ERROR, {
		wp_linux_drm_syncobj_manager_v1_destroy(c.manager);
		signal_point(&a, 1);
		set_points(s, &a, 1, &b, 1);
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});
	/* rule 35 */
	CASE("64-bit-points", NO_ERROR, {
		uint64_t p = (3ull << 32) | 7;
		signal_point(&a, p);
		set_points(s, &a, p, &a, p + (1ull << 32));
		wl_surface_attach(c.surface, buf, 0, 0);
		wl_surface_commit(c.surface);
	});

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
