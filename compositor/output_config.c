/* --output: mode, scale, transform and position per output, and a mode
 * that works even when the one asked for (or the preferred one) does not. */
#include "output_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/backend/headless.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>

static const char *const transform_names[] = {
	[WL_OUTPUT_TRANSFORM_NORMAL] = "normal",
	[WL_OUTPUT_TRANSFORM_90] = "90",
	[WL_OUTPUT_TRANSFORM_180] = "180",
	[WL_OUTPUT_TRANSFORM_270] = "270",
	[WL_OUTPUT_TRANSFORM_FLIPPED] = "flipped",
	[WL_OUTPUT_TRANSFORM_FLIPPED_90] = "flipped-90",
	[WL_OUTPUT_TRANSFORM_FLIPPED_180] = "flipped-180",
	[WL_OUTPUT_TRANSFORM_FLIPPED_270] = "flipped-270",
};

static bool parse_mode(const char *s, struct sw_output_config *c)
{
	int n = 0;
	if (sscanf(s, "%dx%d%n", &c->width, &c->height, &n) != 2 || c->width <= 0 || c->height <= 0)
		return false;
	if (s[n] == '@') {
		char *end;
		double hz = strtod(s + n + 1, &end);
		if (*end || hz <= 0)
			return false;
		c->refresh_mhz = (int)(hz * 1000 + 0.5);
	} else if (s[n]) {
		return false;
	}
	return true;
}

bool sw_output_config_parse(const char *spec, struct sw_output_config *c, char *err, size_t err_len)
{
	*c = (struct sw_output_config){ 0 };
	const char *colon = strchr(spec, ':');
	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(c->name)) {
		snprintf(err, err_len, "'%s' has no output name before ':'", spec);
		return false;
	}
	memcpy(c->name, spec, (size_t)(colon - spec));
	char items[256];
	snprintf(items, sizeof(items), "%s", colon + 1);
	if (!items[0]) {
		snprintf(err, err_len, "nothing after '%s:'", c->name);
		return false;
	}
	char *save = NULL;
	for (char *item = strtok_r(items, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *end;
		if (strcmp(item, "off") == 0) {
			c->off = true;
		} else if (strncmp(item, "scale=", 6) == 0) {
			c->scale = strtod(item + 6, &end);
			if (*end || c->scale <= 0 || c->scale > 10) {
				snprintf(err, err_len, "'%s': a scale is a number above 0, up to 10", item);
				return false;
			}
		} else if (strncmp(item, "transform=", 10) == 0) {
			size_t i = 0;
			while (i < sizeof(transform_names) / sizeof(transform_names[0]) &&
			       strcmp(item + 10, transform_names[i]))
				i++;
			if (i == sizeof(transform_names) / sizeof(transform_names[0])) {
				snprintf(err, err_len, "'%s': transforms are normal, 90, 180, 270, "
					 "flipped, flipped-90, flipped-180, flipped-270", item);
				return false;
			}
			c->has_transform = true;
			c->transform = (enum wl_output_transform)i;
		} else if (strncmp(item, "pos=", 4) == 0) {
			/* "pos=X,Y": Y is the next item. */
			char *y = strtok_r(NULL, ",", &save);
			c->x = (int)strtol(item + 4, &end, 10);
			bool x_ok = item[4] && !*end;
			c->y = y ? (int)strtol(y, &end, 10) : 0;
			if (!x_ok || !y || !*y || *end) {
				snprintf(err, err_len, "'%s%s%s': a position is pos=X,Y in layout pixels", item,
					 y ? "," : "", y ? y : "");
				return false;
			}
			c->has_position = true;
		} else if (!parse_mode(item, c)) {
			snprintf(err, err_len, "'%s' is neither a mode (WxH or WxH@HZ) nor scale=, "
				 "transform=, pos= or off", item);
			return false;
		}
	}
	return true;
}

const struct sw_output_config *sw_output_config_find(const struct sw_output_config *configs, size_t n,
						     const char *name)
{
	const struct sw_output_config *any = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(configs[i].name, name) == 0)
			return &configs[i];
		if (strcmp(configs[i].name, "*") == 0)
			any = &configs[i];
	}
	return any;
}

/* The output's mode closest to what config asks: that size, at that rate
 * when one is given (else the highest). */
static struct wlr_output_mode *find_mode(struct wlr_output *output, const struct sw_output_config *c)
{
	struct wlr_output_mode *mode, *best = NULL;
	wl_list_for_each(mode, &output->modes, link) {
		if (mode->width != c->width || mode->height != c->height)
			continue;
		if (c->refresh_mhz && abs(mode->refresh - c->refresh_mhz) > 500)
			continue;
		if (!best || mode->refresh > best->refresh)
			best = mode;
	}
	return best;
}

static bool try_commit(struct wlr_output *output, struct wlr_output_state *state, const char *what)
{
	if (wlr_output_test_state(output, state) && wlr_output_commit_state(output, state))
		return true;
	wlr_log(WLR_ERROR, "%s: cannot enable %s", output->name, what);
	return false;
}

/* Variable refresh on top of a working mode, so that an output without it
 * keeps the mode: wlroots refuses the whole commit otherwise. */
static void enable_adaptive_sync(struct wlr_output *output)
{
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_adaptive_sync_enabled(&state, true);
	/* Some backends (headless) take the commit and leave it off. */
	if (!wlr_output_test_state(output, &state) || !wlr_output_commit_state(output, &state) ||
	    output->adaptive_sync_status != WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED)
		fprintf(stderr, "syncway: output %s: no adaptive sync (the output or driver has none)\n",
			output->name);
	wlr_output_state_finish(&state);
}

static int headless_mhz(int mhz)
{
	return mhz > 0 ? mhz : SW_HEADLESS_DEFAULT_MHZ;
}

bool sw_output_enable(struct wlr_output *output, const struct sw_output_config *c,
		      int headless_width, int headless_height, int headless_refresh_mhz,
		      bool adaptive_sync)
{
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	if (c && c->off) {
		wlr_output_state_set_enabled(&state, false);
		wlr_output_commit_state(output, &state);
		wlr_output_state_finish(&state);
		wlr_log(WLR_INFO, "%s: off (--output)", output->name);
		return false;
	}
	wlr_output_state_set_enabled(&state, true);
	if (c && c->scale > 0)
		wlr_output_state_set_scale(&state, (float)c->scale);
	if (c && c->has_transform)
		wlr_output_state_set_transform(&state, c->transform);

	bool headless = wlr_output_is_headless(output);
	char what[64];
	bool ok = false;
	if (c && c->width > 0) {
		struct wlr_output_mode *mode = find_mode(output, c);
		if (mode)
			wlr_output_state_set_mode(&state, mode);
		else if (headless)
			wlr_output_state_set_custom_mode(&state, c->width, c->height,
							 headless_mhz(c->refresh_mhz));
		snprintf(what, sizeof(what), "the mode asked for, %dx%d", c->width, c->height);
		if (mode || headless)
			ok = try_commit(output, &state, what);
		else
			wlr_log(WLR_ERROR, "%s: has no mode %dx%d%s", output->name, c->width, c->height,
				c->refresh_mhz ? " at that rate" : "");
	} else if (headless && headless_width > 0) {
		wlr_output_state_set_custom_mode(&state, headless_width, headless_height,
						 headless_mhz(headless_refresh_mhz));
		ok = try_commit(output, &state, "the --headless-size mode");
	} else if (headless) {
		wlr_output_state_set_custom_mode(&state, output->width, output->height,
						 SW_HEADLESS_DEFAULT_MHZ);
		ok = try_commit(output, &state, "its size at 60 Hz");
	} else {
		struct wlr_output_mode *preferred = wlr_output_preferred_mode(output);
		if (preferred)
			wlr_output_state_set_mode(&state, preferred);
		ok = try_commit(output, &state, "its preferred mode");
	}
	/* Any mode that works beats a dark screen. */
	struct wlr_output_mode *mode;
	wl_list_for_each(mode, &output->modes, link) {
		if (ok)
			break;
		wlr_output_state_set_mode(&state, mode);
		snprintf(what, sizeof(what), "mode %dx%d@%.3f Hz", mode->width, mode->height,
			 mode->refresh / 1000.0);
		ok = try_commit(output, &state, what);
		if (ok)
			wlr_log(WLR_ERROR, "%s: fell back to %s", output->name, what);
	}
	wlr_output_state_finish(&state);
	if (ok && adaptive_sync)
		enable_adaptive_sync(output);
	if (ok)
		sw_output_describe(output);
	return ok;
}

void sw_output_describe(const struct wlr_output *output)
{
	if (!output->enabled) {
		fprintf(stderr, "syncway: output %s: off\n", output->name);
		return;
	}
	fprintf(stderr, "syncway: output %s: %dx%d@%.3f Hz, scale %.2f, transform %s%s\n", output->name,
		output->width, output->height, output->refresh / 1000.0, output->scale,
		transform_names[output->transform],
		output->adaptive_sync_status == WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED ? ", adaptive sync" : "");
}
