/* Key repeat and the libinput settings of pointers, read from the
 * environment at start-up (syncway(1), ENVIRONMENT), and applying them to
 * each device as it comes. */
#ifndef SYNCWAY_INPUT_CONFIG_H
#define SYNCWAY_INPUT_CONFIG_H

#include <stdbool.h>

struct wlr_input_device;
struct wlr_keyboard;

/* -1 in a libinput setting: not set, the device keeps libinput's default. */
struct sw_input_config {
	int repeat_rate;    /* keys a second, 0: no repeat */
	int repeat_delay;   /* ms before the first repeat */
	int tap;            /* tap-to-click: 0 or 1 */
	int natural_scroll; /* 0 or 1 */
	int accel_profile;  /* an enum libinput_config_accel_profile */
	double accel_speed; /* -1 to 1; only with has_accel_speed */
	bool has_accel_speed;
};

/* Fills config from SYNCWAY_REPEAT_RATE, SYNCWAY_REPEAT_DELAY, SYNCWAY_TAP,
 * SYNCWAY_NATURAL_SCROLL, SYNCWAY_ACCEL_PROFILE and SYNCWAY_ACCEL_SPEED.
 * On a bad value, false and a line on stderr naming the variable. */
bool sw_input_config_from_env(struct sw_input_config *config);

/* Gives keyboard the configured repeat rate and delay. */
void sw_input_config_keyboard(const struct sw_input_config *config, struct wlr_keyboard *keyboard);

/* Applies the libinput settings to a pointer device where it has them (a
 * libinput device, and tap only on touchpads, and so on), and logs what it
 * has then. Other pointers (virtual, nested) have none: left alone. */
void sw_input_config_pointer(const struct sw_input_config *config, struct wlr_input_device *device);

#endif
