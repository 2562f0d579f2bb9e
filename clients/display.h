/* The Wayland globals every syncway client binds, in one place: the demo
 * clients, sync-client and the conformance suites. */
#ifndef SW_CLIENT_DISPLAY_H
#define SW_CLIENT_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <wayland-client.h>

/* A global as the registry announced it, bound or not. */
struct sw_display_global {
	char interface[64];
	uint32_t name, version;
};

/* A format + modifier pair zwp_linux_dmabuf_v1 advertised. */
struct sw_display_modifier {
	uint32_t format;
	uint64_t modifier;
};

struct sw_display {
	struct wl_display *display;
	struct wl_registry *registry;
	struct sw_display_global globals[96]; /* the first 96 announced */
	int n_globals;
	struct wl_compositor *compositor; /* only at version 4+ (damage_buffer) */
	struct xdg_wm_base *wm_base;
	struct wl_shm *shm;
	struct zwp_linux_dmabuf_v1 *dmabuf; /* only at version 3+ (modifiers, create_immed) */
	struct sw_display_modifier *modifiers;
	size_t n_modifiers, modifiers_cap;
	struct wp_linux_drm_syncobj_manager_v1 *syncobj_manager;
	struct wp_presentation *presentation;
	clockid_t presentation_clock;
	struct wp_fifo_manager_v1 *fifo_manager; /* NULL: not offered */
	struct wp_commit_timing_manager_v1 *commit_timing_manager; /* NULL: not offered */
};

/* Connects to the display name ($WAYLAND_DISPLAY for NULL) and binds the
 * globals, with two roundtrips so that the presentation clock and the
 * dmabuf modifiers are known. NULL (errno set) when it cannot connect; a
 * connection that failed during the roundtrips is returned as it is
 * (wl_display_get_error() tells). */
struct sw_display *sw_display_create(const char *name);
/* Destroys every proxy it bound, then disconnects. */
void sw_display_destroy(struct sw_display *d);
/* Disconnects without destroying anything first: for a connection a
 * protocol error ended, or one whose surfaces are still alive (xdg_wm_base
 * may not go before them). The compositor cleans up after it. */
void sw_display_abandon(struct sw_display *d);

const struct sw_display_global *sw_display_find_global(const struct sw_display *d,
							const char *interface);
/* Binds the first global of interface at version: NULL when the compositor
 * offers none. sw_display_need dies then (sw_die, window.h). */
void *sw_display_bind(struct sw_display *d, const struct wl_interface *interface, uint32_t version);
void *sw_display_need(struct sw_display *d, const struct wl_interface *interface, uint32_t version);
bool sw_display_has_modifier(const struct sw_display *d, uint32_t format, uint64_t modifier);

/* Time in the compositor's presentation clock, ns. */
int64_t sw_display_now_ns(const struct sw_display *d);

#endif
