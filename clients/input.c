#include <unistd.h>

#include "input.h"

static void pointer_enter(void *data, struct wl_pointer *p, uint32_t serial,
			  struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
}

static void pointer_leave(void *data, struct wl_pointer *p, uint32_t serial,
			  struct wl_surface *surface)
{
}

static void pointer_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x,
			   wl_fixed_t y)
{
}

static void pointer_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time,
			   uint32_t button, uint32_t state)
{
}

static void pointer_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis,
			 wl_fixed_t value)
{
}

static void pointer_frame(void *data, struct wl_pointer *p)
{
}

static void pointer_axis_source(void *data, struct wl_pointer *p, uint32_t source)
{
}

static void pointer_axis_stop(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis)
{
}

static void pointer_axis_discrete(void *data, struct wl_pointer *p, uint32_t axis, int32_t discrete)
{
}

static void pointer_axis_value120(void *data, struct wl_pointer *p, uint32_t axis, int32_t value120)
{
}

static void pointer_axis_relative_direction(void *data, struct wl_pointer *p, uint32_t axis,
					    uint32_t direction)
{
}

static const struct wl_pointer_listener pointer_ignored = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
	.frame = pointer_frame,
	.axis_source = pointer_axis_source,
	.axis_stop = pointer_axis_stop,
	.axis_discrete = pointer_axis_discrete,
	.axis_value120 = pointer_axis_value120,
	.axis_relative_direction = pointer_axis_relative_direction,
};

static void keyboard_keymap(void *data, struct wl_keyboard *k, uint32_t format, int32_t fd,
			    uint32_t size)
{
	close(fd);
}

static void keyboard_enter(void *data, struct wl_keyboard *k, uint32_t serial,
			   struct wl_surface *surface, struct wl_array *keys)
{
}

static void keyboard_leave(void *data, struct wl_keyboard *k, uint32_t serial,
			   struct wl_surface *surface)
{
}

static void keyboard_key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t time,
			 uint32_t key, uint32_t state)
{
}

static void keyboard_modifiers(void *data, struct wl_keyboard *k, uint32_t serial,
			       uint32_t depressed, uint32_t latched, uint32_t locked,
			       uint32_t group)
{
}

static void keyboard_repeat_info(void *data, struct wl_keyboard *k, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener keyboard_ignored = {
	.keymap = keyboard_keymap,
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
	.modifiers = keyboard_modifiers,
	.repeat_info = keyboard_repeat_info,
};

/* A listener is an array of function pointers, one per event, as
 * libwayland itself takes it (wl_proxy_add_listener). */
typedef void (*handler)(void);

static void complete(void *listener, const void *ignored, size_t size)
{
	handler *entries = listener;
	const handler *defaults = ignored;
	for (size_t i = 0; i < size / sizeof(handler); i++)
		if (!entries[i])
			entries[i] = defaults[i];
}

void sw_pointer_add_listener(struct wl_pointer *pointer, struct wl_pointer_listener *listener,
			     void *data)
{
	complete(listener, &pointer_ignored, sizeof(*listener));
	wl_pointer_add_listener(pointer, listener, data);
}

void sw_keyboard_add_listener(struct wl_keyboard *keyboard, struct wl_keyboard_listener *listener,
			      void *data)
{
	complete(listener, &keyboard_ignored, sizeof(*listener));
	wl_keyboard_add_listener(keyboard, listener, data);
}
