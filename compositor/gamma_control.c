/* wlr-gamma-control-unstable-v1: night-light tools (wlsunset, gammastep)
 * set an output's gamma ramps. A new table is marked on the output and goes
 * into its next frame's commit (output.c), tested first: an output that
 * refuses it tells the client "failed" and shows the frame without it.
 * wlroots itself answers "failed" to a client asking for the ramps of an
 * output without a gamma LUT (a gamma size of 0: the headless backend, and
 * KMS drivers without one, such as virtio-gpu), and to a second client
 * asking for the same output. */
#include "gamma_control.h"

#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_gamma_control_v1.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>

#include "server.h"

struct sw_gamma_control {
	struct wlr_gamma_control_manager_v1 *manager;

	struct wl_listener set_gamma;
};

static void handle_set_gamma(struct wl_listener *listener, void *data)
{
	const struct wlr_gamma_control_manager_v1_set_gamma_event *event = data;
	/* A new table, or the control gone (its ramps are then reset). */
	struct sw_output *output = event->output->data;
	if (!output)
		return;
	output->gamma_changed = true;
	wlr_output_schedule_frame(event->output);
}

bool gamma_control_apply(struct sw_output *output, struct wlr_output_state *state)
{
	struct sw_gamma_control *gc = output->server->gamma_control;
	output->gamma_changed = false;
	struct wlr_gamma_control_v1 *control =
		wlr_gamma_control_manager_v1_get_control(gc->manager, output->wlr_output);
	if (!wlr_gamma_control_v1_apply(control, state))
		return false;
	if (!control || wlr_output_test_state(output->wlr_output, state))
		return true;
	wlr_log(WLR_INFO, "%s: the output refuses the gamma ramps; the client is told so",
		output->wlr_output->name);
	wlr_gamma_control_v1_send_failed_and_destroy(control);
	/* Its destruction asks for the ramps to be reset: this frame does. */
	output->gamma_changed = false;
	return wlr_gamma_control_v1_apply(NULL, state);
}

void gamma_control_init(struct sw_server *server)
{
	struct sw_gamma_control *gc = calloc(1, sizeof(*gc));
	if (!gc) {
		wlr_log(WLR_ERROR, "gamma control: out of memory; not offered");
		return;
	}
	/* The global goes with the display. */
	gc->manager = wlr_gamma_control_manager_v1_create(server->display);
	if (!gc->manager) {
		wlr_log(WLR_ERROR, "gamma control: cannot create the global");
		free(gc);
		return;
	}
	gc->set_gamma.notify = handle_set_gamma;
	wl_signal_add(&gc->manager->events.set_gamma, &gc->set_gamma);
	server->gamma_control = gc;
}

void gamma_control_finish(struct sw_server *server)
{
	struct sw_gamma_control *gc = server->gamma_control;
	if (!gc)
		return;
	wl_list_remove(&gc->set_gamma.link);
	free(gc);
	server->gamma_control = NULL;
}
