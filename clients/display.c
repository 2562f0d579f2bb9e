#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "clock.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "xdg-shell-client-protocol.h"

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}
static const struct xdg_wm_base_listener wm_base_listener = { .ping = wm_base_ping };

static void presentation_clock_id(void *data, struct wp_presentation *p, uint32_t clk_id)
{
	struct sw_display *d = data;
	d->presentation_clock = clk_id;
}
static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_clock_id,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct sw_display *d = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		d->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		d->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(d->wm_base, &wm_base_listener, d);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		d->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3) {
		d->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3);
	} else if (strcmp(interface, wp_linux_drm_syncobj_manager_v1_interface.name) == 0) {
		d->syncobj_manager = wl_registry_bind(registry, name,
						      &wp_linux_drm_syncobj_manager_v1_interface, 1);
	} else if (strcmp(interface, wp_presentation_interface.name) == 0) {
		d->presentation = wl_registry_bind(registry, name, &wp_presentation_interface, 1);
		wp_presentation_add_listener(d->presentation, &presentation_listener, d);
	}
}
static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {}
static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

struct sw_display *sw_display_create(void)
{
	struct sw_display *d = calloc(1, sizeof(*d));
	d->presentation_clock = CLOCK_MONOTONIC;
	d->display = wl_display_connect(NULL);
	if (!d->display) {
		free(d);
		return NULL;
	}
	d->registry = wl_display_get_registry(d->display);
	wl_registry_add_listener(d->registry, &registry_listener, d);
	wl_display_roundtrip(d->display);
	wl_display_roundtrip(d->display); /* presentation clock_id */
	return d;
}

void sw_display_destroy(struct sw_display *d)
{
	if (!d)
		return;
	/* Every proxy goes, so that sanitizer runs stay quiet. */
	if (d->syncobj_manager)
		wp_linux_drm_syncobj_manager_v1_destroy(d->syncobj_manager);
	if (d->presentation)
		wp_presentation_destroy(d->presentation);
	if (d->dmabuf)
		zwp_linux_dmabuf_v1_destroy(d->dmabuf);
	if (d->wm_base)
		xdg_wm_base_destroy(d->wm_base);
	if (d->shm)
		wl_shm_destroy(d->shm);
	if (d->compositor)
		wl_compositor_destroy(d->compositor);
	wl_registry_destroy(d->registry);
	wl_display_roundtrip(d->display);
	wl_display_disconnect(d->display);
	free(d);
}

int64_t sw_display_now_ns(const struct sw_display *d)
{
	return sw_clock_ns(d->presentation_clock);
}
