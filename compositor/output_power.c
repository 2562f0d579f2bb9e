/* wlr-output-power-management-unstable-v1: idle daemons (swayidle through
 * wlopm) turn outputs off and on. An output turned off is disabled, so that
 * it really stops presenting (on KMS its CRTC goes off, and the display
 * with it), but it keeps its place in the layout and the scene: windows
 * and layer surfaces stay where they are and come back with it, and
 * nothing is rearranged. wlroots tells the clients the new mode when the
 * commit lands. */
#include "output_power.h"

#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_power_management_v1.h>
#include <wlr/util/log.h>

#include "server.h"

struct sw_output_power {
	struct wlr_output_power_manager_v1 *manager;

	struct wl_listener set_mode;
};

static void output_power_off(struct sw_output *output)
{
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, false);
	bool ok = wlr_output_commit_state(output->wlr_output, &state);
	wlr_output_state_finish(&state);
	if (!ok) {
		wlr_log(WLR_ERROR, "%s: cannot turn it off", output->wlr_output->name);
		return;
	}
	/* A disabled output presents none of the frames it had in flight. */
	output_retire_all(output);
	wlr_log(WLR_INFO, "%s: turned off", output->wlr_output->name);
}

static void output_power_on(struct sw_output *output)
{
	struct wlr_output *wlr_output = output->wlr_output;
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	/* In its mode of before. KMS lights a CRTC only with a buffer to show:
	 * wlroots puts a blank one into this commit, and the scene draws the
	 * next frame whole (on a new swapchain), a frame like any other for
	 * the accounting (output.c). */
	bool ok = wlr_output_commit_state(wlr_output, &state);
	wlr_output_state_finish(&state);
	if (!ok) {
		wlr_log(WLR_ERROR, "%s: cannot turn it on", wlr_output->name);
		return;
	}
	/* Clients that waited for frame callbacks since it went off get
	 * them then. */
	wlr_output_schedule_frame(wlr_output);
	wlr_log(WLR_INFO, "%s: turned on", wlr_output->name);
}

static void handle_set_mode(struct wl_listener *listener, void *data)
{
	const struct wlr_output_power_v1_set_mode_event *event = data;
	struct sw_output *output = event->output->data;
	/* Power applies to outputs in the layout; one disabled through output
	 * management (or --output) stays off until that turns it on. */
	if (!output || !output->scene_output) {
		wlr_log(WLR_INFO, "%s: not in the layout; power request ignored", event->output->name);
		return;
	}
	bool on = event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON;
	if (on == event->output->enabled)
		return;
	if (on)
		output_power_on(output);
	else
		output_power_off(output);
}

void output_power_init(struct sw_server *server)
{
	struct sw_output_power *power = calloc(1, sizeof(*power));
	if (!power) {
		wlr_log(WLR_ERROR, "output power: out of memory; not offered");
		return;
	}
	/* The global goes with the display. */
	power->manager = wlr_output_power_manager_v1_create(server->display);
	if (!power->manager) {
		wlr_log(WLR_ERROR, "output power: cannot create the global");
		free(power);
		return;
	}
	power->set_mode.notify = handle_set_mode;
	wl_signal_add(&power->manager->events.set_mode, &power->set_mode);
	server->output_power = power;
}

void output_power_finish(struct sw_server *server)
{
	struct sw_output_power *power = server->output_power;
	if (!power)
		return;
	wl_list_remove(&power->set_mode.link);
	free(power);
	server->output_power = NULL;
}
