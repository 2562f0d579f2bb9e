#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "clock.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "commit-timing-v1-client-protocol.h"
#include "fifo-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "window.h"
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

static void dmabuf_format(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format) {}

static void dmabuf_modifier(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format,
			    uint32_t hi, uint32_t lo)
{
	struct sw_display *d = data;
	if (d->n_modifiers == d->modifiers_cap) {
		size_t cap = d->modifiers_cap ? 2 * d->modifiers_cap : 64;
		struct sw_display_modifier *m = realloc(d->modifiers, cap * sizeof(*m));
		if (!m)
			return;
		d->modifiers = m;
		d->modifiers_cap = cap;
	}
	d->modifiers[d->n_modifiers++] = (struct sw_display_modifier){
		.format = format,
		.modifier = (uint64_t)hi << 32 | lo,
	};
}
static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = {
	.format = dmabuf_format,
	.modifier = dmabuf_modifier,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct sw_display *d = data;
	if (d->n_globals < (int)(sizeof(d->globals) / sizeof(d->globals[0]))) {
		struct sw_display_global *g = &d->globals[d->n_globals++];
		snprintf(g->interface, sizeof(g->interface), "%s", interface);
		g->name = name;
		g->version = version;
	}
	if (strcmp(interface, wl_compositor_interface.name) == 0 && version >= 4) {
		d->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		d->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(d->wm_base, &wm_base_listener, d);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		d->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3) {
		d->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3);
		zwp_linux_dmabuf_v1_add_listener(d->dmabuf, &dmabuf_listener, d);
	} else if (strcmp(interface, wp_linux_drm_syncobj_manager_v1_interface.name) == 0) {
		d->syncobj_manager = wl_registry_bind(registry, name,
						      &wp_linux_drm_syncobj_manager_v1_interface, 1);
	} else if (strcmp(interface, wp_commit_timing_manager_v1_interface.name) == 0) {
		d->commit_timing_manager = wl_registry_bind(registry, name,
							    &wp_commit_timing_manager_v1_interface, 1);
	} else if (strcmp(interface, wp_fifo_manager_v1_interface.name) == 0) {
		d->fifo_manager = wl_registry_bind(registry, name, &wp_fifo_manager_v1_interface, 1);
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

struct sw_display *sw_display_create(const char *name)
{
	struct sw_display *d = calloc(1, sizeof(*d));
	d->presentation_clock = CLOCK_MONOTONIC;
	d->display = wl_display_connect(name);
	if (!d->display) {
		free(d);
		return NULL;
	}
	d->registry = wl_display_get_registry(d->display);
	wl_registry_add_listener(d->registry, &registry_listener, d);
	if (wl_display_roundtrip(d->display) >= 0)
		wl_display_roundtrip(d->display); /* the bound globals' first events */
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
	if (d->fifo_manager)
		wp_fifo_manager_v1_destroy(d->fifo_manager);
	if (d->commit_timing_manager)
		wp_commit_timing_manager_v1_destroy(d->commit_timing_manager);
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
	sw_display_abandon(d);
}

void sw_display_abandon(struct sw_display *d)
{
	wl_display_disconnect(d->display);
	free(d->modifiers);
	free(d);
}

const struct sw_display_global *sw_display_find_global(const struct sw_display *d,
							const char *interface)
{
	for (int i = 0; i < d->n_globals; i++)
		if (strcmp(d->globals[i].interface, interface) == 0)
			return &d->globals[i];
	return NULL;
}

void *sw_display_bind(struct sw_display *d, const struct wl_interface *interface, uint32_t version)
{
	const struct sw_display_global *g = sw_display_find_global(d, interface->name);
	return g ? wl_registry_bind(d->registry, g->name, interface, version) : NULL;
}

void *sw_display_need(struct sw_display *d, const struct wl_interface *interface, uint32_t version)
{
	void *proxy = sw_display_bind(d, interface, version);
	if (!proxy)
		sw_die("the compositor offers no %s", interface->name);
	return proxy;
}

bool sw_display_has_modifier(const struct sw_display *d, uint32_t format, uint64_t modifier)
{
	for (size_t i = 0; i < d->n_modifiers; i++)
		if (d->modifiers[i].format == format && d->modifiers[i].modifier == modifier)
			return true;
	return false;
}

int64_t sw_display_now_ns(const struct sw_display *d)
{
	return sw_clock_ns(d->presentation_clock);
}
