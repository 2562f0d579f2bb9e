/* Listeners for a seat's pointer and keyboard in clients that watch only
 * some of their events (the test clients): an event whose entry is NULL is
 * ignored, a keymap's fd closed. */
#ifndef SW_CLIENT_INPUT_H
#define SW_CLIENT_INPUT_H

#include <wayland-client.h>

/* The listener is completed in place before it is added, so it is not
 * const: a static one, which may serve several proxies. */
void sw_pointer_add_listener(struct wl_pointer *pointer, struct wl_pointer_listener *listener,
			     void *data);
void sw_keyboard_add_listener(struct wl_keyboard *keyboard, struct wl_keyboard_listener *listener,
			      void *data);

#endif
