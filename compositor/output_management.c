/* wlr-output-management: tools such as wlr-randr list the outputs and
 * change their mode, scale, transform, position, and whether they are on.
 * A configuration is tested or committed on the backend as a whole, so a
 * change to several outputs either all happens or none of it does. */
#include <stdlib.h>
#include <wlr/backend.h>
#include <wlr/render/pass.h>
#include <wlr/render/swapchain.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_output_management_v1.h>
#include <wlr/types/wlr_output_swapchain_manager.h>
#include <wlr/util/box.h>
#include <wlr/util/log.h>

#include "cursor_theme.h"
#include "output_config.h"
#include "output_management.h"
#include "server.h"

struct sw_output_management {
	struct sw_server *server;
	struct wlr_output_manager_v1 *manager;
	/* The state clients see is rebuilt once per event loop iteration: the
	 * layout changes several times during one apply, and also while an
	 * output is being destroyed, when it must not be described. */
	struct wl_event_source *idle;

	struct wl_listener apply;
	struct wl_listener test;
	struct wl_listener layout_change;
};

static void publish(void *data)
{
	struct sw_output_management *om = data;
	struct sw_server *server = om->server;
	om->idle = NULL;
	struct wlr_output_configuration_v1 *config = wlr_output_configuration_v1_create();
	if (!config)
		goto oom;
	struct sw_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct wlr_output_configuration_head_v1 *head =
			wlr_output_configuration_head_v1_create(config, output->wlr_output);
		if (!head) {
			wlr_output_configuration_v1_destroy(config);
			goto oom;
		}
		struct wlr_box box;
		wlr_output_layout_get_box(server->output_layout, output->wlr_output, &box);
		if (!wlr_box_empty(&box)) {
			head->state.x = box.x;
			head->state.y = box.y;
			/* Turned off by output power (output_power.c), it is
			 * still in the layout: on, as far as output management
			 * goes. */
			head->state.enabled = true;
		}
	}
	wlr_output_manager_v1_set_configuration(om->manager, config);
	return;
oom:
	wlr_log(WLR_ERROR, "output management: out of memory; clients see an old configuration");
}

void sw_output_management_changed(struct sw_output_management *om)
{
	if (om && !om->idle)
		om->idle = wl_event_loop_add_idle(om->server->loop, publish, om);
}

static void free_states(struct wlr_backend_output_state *states, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wlr_output_state_finish(&states[i].base);
	free(states);
}

/* A black frame for an output that the configuration turns on or gives a
 * new size: the DRM backend enables a CRTC or changes its size only with a
 * buffer to show, and unlike wlr_output_commit_state() a backend-wide
 * commit does not make one. The scene follows at the output's next frame;
 * rendering it here would read client buffers outside the frames whose
 * presentation releases them (explicit_sync.c). */
static bool add_black_frame(struct sw_server *server, struct wlr_swapchain *swapchain,
			    struct wlr_backend_output_state *state)
{
	struct wlr_buffer *buffer = swapchain ? wlr_swapchain_acquire(swapchain, NULL) : NULL;
	if (!buffer)
		return false;
	struct wlr_render_pass *pass = wlr_renderer_begin_buffer_pass(server->renderer, buffer, NULL);
	bool ok = pass != NULL;
	if (ok) {
		wlr_render_pass_add_rect(pass, &(struct wlr_render_rect_options){
			.box = { .width = buffer->width, .height = buffer->height },
			.color = { .a = 1 },
		});
		ok = wlr_render_pass_submit(pass);
	}
	if (ok)
		wlr_output_state_set_buffer(&state->base, buffer);
	wlr_buffer_unlock(buffer);
	return ok;
}

/* Tests or commits the whole configuration; on a commit, the swapchains
 * made for it replace the outputs' own only when it went through. */
static bool config_apply(struct sw_server *server, struct wlr_backend_output_state *states, size_t n,
			 bool commit)
{
	struct wlr_output_swapchain_manager swapchains;
	wlr_output_swapchain_manager_init(&swapchains, server->backend);
	bool ok = wlr_output_swapchain_manager_prepare(&swapchains, states, n);
	for (size_t i = 0; ok && i < n; i++) {
		struct wlr_backend_output_state *state = &states[i];
		if (!state->base.enabled)
			continue;
		struct wlr_swapchain *swapchain =
			wlr_output_swapchain_manager_get_swapchain(&swapchains, state->output);
		if (!state->output->enabled || swapchain != state->output->swapchain)
			ok = add_black_frame(server, swapchain, state);
	}
	ok = ok && wlr_backend_test(server->backend, states, n);
	if (ok && commit) {
		for (size_t i = 0; i < n; i++) {
			if (states[i].base.enabled && (states[i].base.committed & WLR_OUTPUT_STATE_SCALE))
				sw_cursor_themes_scale_coming(server->cursor_themes, states[i].base.scale);
		}
		ok = wlr_backend_commit(server->backend, states, n);
		if (ok)
			wlr_output_swapchain_manager_apply(&swapchains);
		/* The image hidden for a new scale comes back once it is read,
		 * or now when the commit failed. */
		sw_cursor_themes_layout_changed(server->cursor_themes);
	}
	wlr_output_swapchain_manager_finish(&swapchains);
	return ok;
}

static void handle_config(struct sw_output_management *om, struct wlr_output_configuration_v1 *config,
			  bool commit)
{
	struct sw_server *server = om->server;
	size_t n = 0;
	struct wlr_backend_output_state *states = wlr_output_configuration_v1_build_state(config, &n);
	bool ok = states && config_apply(server, states, n, commit);
	if (states)
		free_states(states, n);

	if (ok && commit) {
		struct wlr_output_configuration_head_v1 *head;
		wl_list_for_each(head, &config->heads, link) {
			struct sw_output *output = head->state.output->data;
			if (!output)
				continue;
			if (head->state.enabled)
				output_place(output, true, head->state.x, head->state.y);
			else
				output_unplace(output);
			sw_output_describe(output->wlr_output);
		}
	}
	if (!ok)
		wlr_log(WLR_ERROR, "output management: a client's configuration %s",
			commit ? "could not be applied; outputs unchanged" : "failed its test");
	if (ok)
		wlr_output_configuration_v1_send_succeeded(config);
	else
		wlr_output_configuration_v1_send_failed(config);
	wlr_output_configuration_v1_destroy(config);
	sw_output_management_changed(om);
}

static void handle_apply(struct wl_listener *listener, void *data)
{
	struct sw_output_management *om = wl_container_of(listener, om, apply);
	handle_config(om, data, true);
}

static void handle_test(struct wl_listener *listener, void *data)
{
	struct sw_output_management *om = wl_container_of(listener, om, test);
	handle_config(om, data, false);
}

static void handle_layout_change(struct wl_listener *listener, void *data)
{
	struct sw_output_management *om = wl_container_of(listener, om, layout_change);
	sw_output_management_changed(om);
}

struct sw_output_management *sw_output_management_create(struct sw_server *server)
{
	struct sw_output_management *om = calloc(1, sizeof(*om));
	if (!om)
		return NULL;
	om->server = server;
	om->manager = wlr_output_manager_v1_create(server->display);
	if (!om->manager) {
		free(om);
		return NULL;
	}
	om->apply.notify = handle_apply;
	wl_signal_add(&om->manager->events.apply, &om->apply);
	om->test.notify = handle_test;
	wl_signal_add(&om->manager->events.test, &om->test);
	om->layout_change.notify = handle_layout_change;
	wl_signal_add(&server->output_layout->events.change, &om->layout_change);
	return om;
}

void sw_output_management_destroy(struct sw_output_management *om)
{
	if (!om)
		return;
	if (om->idle)
		wl_event_source_remove(om->idle);
	wl_list_remove(&om->apply.link);
	wl_list_remove(&om->test.link);
	wl_list_remove(&om->layout_change.link);
	free(om);
}
