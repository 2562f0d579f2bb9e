/* The Wayland globals every syncway client binds, in one place. */
#ifndef SW_CLIENT_DISPLAY_H
#define SW_CLIENT_DISPLAY_H

#include <stdbool.h>
#include <time.h>
#include <wayland-client.h>

struct sw_display {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	struct wl_shm *shm;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	struct wp_linux_drm_syncobj_manager_v1 *syncobj_manager;
	struct wp_presentation *presentation;
	clockid_t presentation_clock;
};

/* Connects to $WAYLAND_DISPLAY and binds the globals (two roundtrips, so the
 * presentation clock is known). NULL on failure. */
struct sw_display *sw_display_create(void);
void sw_display_destroy(struct sw_display *d);

/* Time in the compositor's presentation clock, ns. */
int64_t sw_display_now_ns(const struct sw_display *d);

#endif
