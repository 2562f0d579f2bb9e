/* Key repeat and the usual libinput settings (tap-to-click, natural
 * scrolling, pointer acceleration), from environment variables as the
 * keyboard layout already is (XKB_DEFAULT_*): syncway has no configuration
 * file, and a session started by a display manager gets its environment
 * from the usual places (environment.d, the profile). Read once, checked
 * before anything starts, applied to each device as it comes. */
#include "input_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libinput.h>
#include <wlr/backend/libinput.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/util/log.h>

/* Reads the integer in environment variable name into *value when it is
 * set; false (and says it wants what) when it is not one from min to max. */
static bool env_int(const char *name, int min, int max, const char *what, int *value)
{
	const char *env = getenv(name);
	if (!env)
		return true;
	char *end;
	errno = 0;
	long n = strtol(env, &end, 10);
	if (end == env || *end || errno || n < min || n > max) {
		fprintf(stderr, "syncway: %s wants %s, not '%s'\n", name, what, env);
		return false;
	}
	*value = (int)n;
	return true;
}

bool sw_input_config_from_env(struct sw_input_config *config)
{
	/* wlroots' own defaults, which every keyboard had before. */
	*config = (struct sw_input_config){
		.repeat_rate = 25,
		.repeat_delay = 600,
		.tap = -1,
		.natural_scroll = -1,
		.accel_profile = -1,
	};
	if (!env_int("SYNCWAY_REPEAT_RATE", 0, 1000, "keys a second, 0 (no repeat) to 1000",
		     &config->repeat_rate) ||
	    !env_int("SYNCWAY_REPEAT_DELAY", 1, 10000, "milliseconds, 1 to 10000",
		     &config->repeat_delay) ||
	    !env_int("SYNCWAY_TAP", 0, 1, "0 (off) or 1 (on)", &config->tap) ||
	    !env_int("SYNCWAY_NATURAL_SCROLL", 0, 1, "0 (off) or 1 (on)", &config->natural_scroll))
		return false;

	const char *profile = getenv("SYNCWAY_ACCEL_PROFILE");
	if (profile && strcmp(profile, "flat") == 0) {
		config->accel_profile = LIBINPUT_CONFIG_ACCEL_PROFILE_FLAT;
	} else if (profile && strcmp(profile, "adaptive") == 0) {
		config->accel_profile = LIBINPUT_CONFIG_ACCEL_PROFILE_ADAPTIVE;
	} else if (profile) {
		fprintf(stderr, "syncway: SYNCWAY_ACCEL_PROFILE wants flat or adaptive, not '%s'\n", profile);
		return false;
	}

	const char *speed = getenv("SYNCWAY_ACCEL_SPEED");
	if (speed) {
		char *end;
		config->accel_speed = strtod(speed, &end);
		/* The negated test also refuses NaN. */
		if (end == speed || *end || !(config->accel_speed >= -1 && config->accel_speed <= 1)) {
			fprintf(stderr, "syncway: SYNCWAY_ACCEL_SPEED wants a speed from -1 to 1, not '%s'\n",
				speed);
			return false;
		}
		config->has_accel_speed = true;
	}
	return true;
}

void sw_input_config_keyboard(const struct sw_input_config *config, struct wlr_keyboard *keyboard)
{
	wlr_keyboard_set_repeat_info(keyboard, config->repeat_rate, config->repeat_delay);
	wlr_log(WLR_INFO, "input %s: keyboard, repeat %d/s after %d ms",
		keyboard->base.name ? keyboard->base.name : "(unnamed)", keyboard->repeat_info.rate,
		keyboard->repeat_info.delay);
}

/* Logs a setting that did not take: the device said it has it. */
static void check_status(const char *device, const char *setting, enum libinput_config_status status)
{
	if (status != LIBINPUT_CONFIG_STATUS_SUCCESS)
		wlr_log(WLR_ERROR, "input %s: cannot set %s: %s", device, setting,
			libinput_config_status_to_str(status));
}

void sw_input_config_pointer(const struct sw_input_config *config, struct wlr_input_device *device)
{
	if (!wlr_input_device_is_libinput(device))
		return;
	struct libinput_device *handle = wlr_libinput_get_device_handle(device);
	const char *name = libinput_device_get_name(handle);
	/* What the device has afterwards, read back from libinput: the
	 * settings asked for, else its defaults. */
	char has[160] = "";
	size_t len = 0;

	if (libinput_device_config_tap_get_finger_count(handle) > 0) {
		if (config->tap >= 0)
			check_status(name, "tap-to-click", libinput_device_config_tap_set_enabled(handle,
				config->tap ? LIBINPUT_CONFIG_TAP_ENABLED : LIBINPUT_CONFIG_TAP_DISABLED));
		len += snprintf(has + len, sizeof(has) - len, ", tap %s",
				libinput_device_config_tap_get_enabled(handle) ? "on" : "off");
	}
	if (libinput_device_config_scroll_has_natural_scroll(handle)) {
		if (config->natural_scroll >= 0)
			check_status(name, "natural scrolling",
				     libinput_device_config_scroll_set_natural_scroll_enabled(handle,
					config->natural_scroll));
		len += snprintf(has + len, sizeof(has) - len, ", natural scroll %s",
				libinput_device_config_scroll_get_natural_scroll_enabled(handle) ? "on" : "off");
	}
	if (libinput_device_config_accel_is_available(handle)) {
		/* A profile the device lacks is skipped, not an error: one
		 * setting serves mice and touchpads alike. */
		if (config->accel_profile >= 0 &&
		    (libinput_device_config_accel_get_profiles(handle) & (uint32_t)config->accel_profile))
			check_status(name, "the acceleration profile",
				     libinput_device_config_accel_set_profile(handle, config->accel_profile));
		if (config->has_accel_speed)
			check_status(name, "the acceleration speed",
				     libinput_device_config_accel_set_speed(handle, config->accel_speed));
		enum libinput_config_accel_profile profile = libinput_device_config_accel_get_profile(handle);
		len += snprintf(has + len, sizeof(has) - len, ", acceleration %s, speed %.2f",
				profile == LIBINPUT_CONFIG_ACCEL_PROFILE_FLAT ? "flat" :
				profile == LIBINPUT_CONFIG_ACCEL_PROFILE_ADAPTIVE ? "adaptive" : "other",
				libinput_device_config_accel_get_speed(handle));
	}
	wlr_log(WLR_INFO, "input %s: pointer%s", name, len ? has : ", no tap, scroll or acceleration settings");
}
