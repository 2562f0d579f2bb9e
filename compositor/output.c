/* Outputs and the frame loop: render the scene when the output asks for a
 * frame, account the frame, and track it until the output presents it. */
#include <assert.h>
#include <stdlib.h>
#include <time.h>
#include <wlr/backend/headless.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_tearing_control_v1.h>
#include <wlr/util/log.h>

#include "clock.h"
#include "commit_timing.h"
#include "explicit_sync.h"
#include "fifo.h"
#include "frame_delay.h"
#include "gamma_control.h"
#include "layer_shell.h"
#include "output_config.h"
#include "output_management.h"
#include "vblank.h"
#include "frame_stats.h"
#include "server.h"

#define RETIRE_TIMEOUT_MS 1000

void server_redraw_outputs(struct sw_server *server)
{
	struct sw_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (!output->scene_output)
			continue;
		wlr_damage_ring_add_whole(&output->scene_output->damage_ring);
		wlr_output_schedule_frame(output->wlr_output);
	}
}

uint64_t server_frames_retired(struct sw_server *server)
{
	uint64_t retired = server->frames_committed;
	struct sw_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (output->n_in_flight > 0 && output->in_flight[0].frame - 1 < retired)
			retired = output->in_flight[0].frame - 1;
	}
	return retired;
}

/* Drops the oldest n frames from the in-flight queue and tells whoever waits
 * for frames to retire (explicit sync's release points). */
static void output_retire(struct sw_output *output, int n)
{
	if (n <= 0)
		return;
	output->n_in_flight -= n;
	for (int i = 0; i < output->n_in_flight; i++)
		output->in_flight[i] = output->in_flight[i + n];
	wl_signal_emit_mutable(&output->server->events.frames_retired, NULL);
}

void output_retire_all(struct sw_output *output)
{
	for (int i = 0; i < output->n_in_flight; i++)
		sw_frame_stats_frame_presented(output->stats, output->in_flight[i].frame, NULL);
	output_retire(output, output->n_in_flight);
}

/* The retire timer, for when the oldest frame in flight (committed at
 * committed_ns) reaches RETIRE_TIMEOUT_MS, unless it is armed already. */
static void retire_timer_arm(struct sw_output *output, int64_t committed_ns, int64_t now_ns)
{
	if (output->retire_armed)
		return;
	int64_t left_ms = (committed_ns - now_ns) / 1000000 + RETIRE_TIMEOUT_MS;
	/* 0 would disarm it; a frame already that old goes at the next turn. */
	wl_event_source_timer_update(output->retire_timer, left_ms > 0 ? (int)left_ms + 1 : 1);
	output->retire_armed = true;
}

static int handle_retire_timeout(void *data)
{
	struct sw_output *output = data;
	output->retire_armed = false;
	if (output->n_in_flight == 0)
		return 0;
	int64_t now = sw_clock_ns(CLOCK_MONOTONIC);
	if (now - output->in_flight[0].committed_ns < (int64_t)RETIRE_TIMEOUT_MS * 1000000) {
		retire_timer_arm(output, output->in_flight[0].committed_ns, now);
		return 0;
	}
	wlr_log(WLR_ERROR, "%s: frame %llu not presented after %d ms; treating %d "
		"frame(s) as done so that buffer releases do not stall",
		output->wlr_output->name, (unsigned long long)output->in_flight[0].frame,
		RETIRE_TIMEOUT_MS, output->n_in_flight);
	output_retire_all(output);
	return 0;
}

static void handle_precommit(struct wl_listener *listener, void *data)
{
	struct sw_output *output = wl_container_of(listener, output, precommit);
	const struct wlr_output_event_precommit *event = data;
	/* wlr_scene_output_commit() renders, then commits: the precommit event
	 * sits between the two, so it splits render time from commit time. */
	if (!output->in_frame)
		return;
	output->precommit_ns = sw_clock_ns(CLOCK_MONOTONIC);
	/* Taken here rather than after the commit: a frame whose commit fails
	 * was rendered all the same, and may have read client buffers. */
	if (output->server->explicit_sync && (event->state->committed & WLR_OUTPUT_STATE_BUFFER))
		sw_explicit_sync_frame_rendered(output->server->explicit_sync, event->state->buffer);
}

/* Whether the frame may tear: a fullscreen window asks for it
 * (wp_tearing_control_v1's async hint), as games and benchmarks in
 * immediate mode do. */
static bool output_wants_tearing(struct sw_output *output)
{
	struct sw_server *server = output->server;
	struct wlr_surface *surface = view_fullscreen_surface(server, output->wlr_output);
	return surface && server->tearing_control &&
	       wlr_tearing_control_manager_v1_surface_hint_from_surface(server->tearing_control, surface) ==
		       WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC;
}

/* wlr_scene_output_commit(), which knows no tearing, with a tearing page
 * flip when the output wants one and the backend takes it (on DRM: the
 * driver does async flips), a vsynced one otherwise. */
static bool output_commit_frame(struct sw_output *output)
{
	struct wlr_scene_output *scene_output = output->scene_output;
	struct wlr_output *wlr_output = output->wlr_output;
	if (!wlr_output->needs_frame && !pixman_region32_not_empty(&scene_output->pending_commit_damage))
		return true;
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	bool ok = wlr_scene_output_build_state(scene_output, &state, NULL);
	if (ok && output->gamma_changed)
		ok = gamma_control_apply(output, &state);
	bool want = ok && output_wants_tearing(output);
	/* Asked once per request: a refusal is logged by wlroots too. */
	if (want && !output->tearing_refused) {
		state.tearing_page_flip = true;
		if (!wlr_output_test_state(wlr_output, &state)) {
			state.tearing_page_flip = false;
			output->tearing_refused = true;
			fprintf(stderr, "syncway: output %s: the fullscreen window asks for tearing, the "
				"backend refuses it: vsync\n", wlr_output->name);
		}
	} else if (!want) {
		output->tearing_refused = false;
	}
	if (state.tearing_page_flip != output->tearing)
		fprintf(stderr, "syncway: output %s: %s\n", wlr_output->name, state.tearing_page_flip ?
			"tearing page flips for the fullscreen window" : "vsync again");
	output->tearing = state.tearing_page_flip;
	if (ok)
		ok = wlr_output_commit_state(wlr_output, &state);
	wlr_output_state_finish(&state);
	return ok;
}

/* When the frame rendered now is expected on screen: the clock's vblank,
 * the predicted one when frames are delayed, else now. */
static int64_t frame_target_ns(const struct sw_output *output, int64_t now)
{
	if (output->vblank)
		return sw_vblank_clock_vblank_ns(output->vblank);
	int64_t vblank = output->delay ? sw_frame_delay_vblank_ns(output->delay, now) : 0;
	return vblank ? vblank : now;
}

static void output_render_frame(struct sw_output *output)
{
	struct sw_server *server = output->server;
	struct wlr_output *wlr_output = output->wlr_output;

	uint32_t seq_before = wlr_output->commit_seq;
	int64_t start = sw_clock_ns(CLOCK_MONOTONIC);
	int64_t target = frame_target_ns(output, start);
	/* Commits due by the time this frame is presented go into it. */
	sw_commit_timing_output_latching(server->commit_timing, wlr_output, target);
	output->precommit_ns = 0;
	output->in_frame = true;
	bool ok = output_commit_frame(output);
	output->in_frame = false;
	int64_t end = sw_clock_ns(CLOCK_MONOTONIC);

	if (!ok)
		wlr_log(WLR_ERROR, "%s: failed to commit a frame", wlr_output->name);
	/* The scene skips the commit when nothing changed; only real commits
	 * are frames. */
	if (wlr_output->commit_seq != seq_before) {
		uint64_t frame = ++server->frames_committed;
		if (output->n_in_flight == (int)(sizeof(output->in_flight) / sizeof(output->in_flight[0]))) {
			/* A backend that never presents: keep the newest ones. */
			sw_frame_stats_frame_presented(output->stats, output->in_flight[0].frame, NULL);
			output_retire(output, 1);
		}
		output->in_flight[output->n_in_flight++] = (struct sw_frame_in_flight){
			.commit_seq = wlr_output->commit_seq,
			.frame = frame,
			.committed_ns = end,
		};
		retire_timer_arm(output, output->in_flight[0].committed_ns, end);
		if (output->delay)
			sw_frame_delay_rendered(output->delay, start, end, target);
		sw_frame_stats_frame_committed(output->stats, output->scene_output, frame,
					       wlr_output->commit_seq, start,
					       output->precommit_ns ? output->precommit_ns : end, end);
	}
	/* The frame has latched what it shows: fifo barriers on it clear, and
	 * the commits they held apply for the next one. After the accounting,
	 * which must credit this frame with what it rendered, not with what
	 * those commits apply. */
	sw_fifo_output_latched(server->fifo, wlr_output);

	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wlr_scene_output_send_frame_done(output->scene_output, &now);
}

static void render_delayed_frame(void *data)
{
	struct sw_output *output = data;
	if (output->scene_output && output->wlr_output->enabled)
		output_render_frame(output);
}

static void handle_frame(struct wl_listener *listener, void *data)
{
	struct sw_output *output = wl_container_of(listener, output, frame);

	/* A clocked output renders at its vblanks only. */
	if (output->vblank && !sw_vblank_clock_ticking(output->vblank))
		return;
	/* A variable refresh rate or a tearing flip shows the frame when it
	 * comes: waiting would only add latency. */
	if (output->delay &&
	    output->wlr_output->adaptive_sync_status != WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED &&
	    !output_wants_tearing(output) &&
	    sw_frame_delay_defer(output->delay, sw_clock_ns(CLOCK_MONOTONIC)))
		return;
	output_render_frame(output);
}

static void handle_present(struct wl_listener *listener, void *data)
{
	struct sw_output *output = wl_container_of(listener, output, present);
	struct wlr_output_event_present *event = data;

	if (output->delay)
		sw_frame_delay_presented(output->delay, event);
	/* Presents arrive in commit order; anything older than this one will
	 * never be presented. Sequence numbers wrap, hence the signed diff. */
	int n = 0;
	while (n < output->n_in_flight &&
	       (int32_t)(output->in_flight[n].commit_seq - event->commit_seq) <= 0) {
		bool match = output->in_flight[n].commit_seq == event->commit_seq;
		sw_frame_stats_frame_presented(output->stats, output->in_flight[n].frame,
					       match ? event : NULL);
		n++;
	}
	output_retire(output, n);
}

static void handle_request_state(struct wl_listener *listener, void *data)
{
	/* Nested backends: the host window was resized or closed. */
	struct sw_output *output = wl_container_of(listener, output, request_state);
	const struct wlr_output_event_request_state *event = data;
	wlr_output_commit_state(output->wlr_output, event->state);
	if (!output->wlr_output->enabled)
		output_retire_all(output);
}

void output_place(struct sw_output *output, bool has_position, int x, int y)
{
	struct sw_server *server = output->server;
	struct wlr_output_layout_output *l_output = has_position ?
		wlr_output_layout_add(server->output_layout, output->wlr_output, x, y) :
		wlr_output_layout_add_auto(server->output_layout, output->wlr_output);
	if (!l_output) {
		wlr_log(WLR_ERROR, "%s: cannot add it to the layout", output->wlr_output->name);
		return;
	}
	if (!output->scene_output) {
		output->scene_output = wlr_scene_output_create(server->scene, output->wlr_output);
		if (!output->scene_output) {
			wlr_log(WLR_ERROR, "%s: out of memory", output->wlr_output->name);
			wlr_output_layout_remove(server->output_layout, output->wlr_output);
			return;
		}
		wlr_scene_output_layout_add_output(server->scene_layout, l_output, output->scene_output);
	}
	layer_shell_arrange(server, output->wlr_output);
}

/* Takes output out of the layout, and the windows that were on it to the
 * outputs that remain. */
static void output_leave_layout(struct sw_output *output)
{
	struct wlr_output_layout *layout = output->server->output_layout;
	struct wlr_box gone;
	wlr_output_layout_get_box(layout, output->wlr_output, &gone);
	wlr_output_layout_remove(layout, output->wlr_output);
	views_rescue(output->server, &gone);
}

void output_unplace(struct sw_output *output)
{
	output_retire_all(output);
	if (output->scene_output)
		wlr_scene_output_destroy(output->scene_output);
	output->scene_output = NULL;
	output_leave_layout(output);
}

bool surface_on_output(const struct wlr_surface *surface, const struct wlr_output *output)
{
	struct wlr_surface_output *surface_output;
	wl_list_for_each(surface_output, &surface->current_outputs, link) {
		if (!output || surface_output->output == output)
			return true;
	}
	return false;
}

static void handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct sw_output *output = wl_container_of(listener, output, destroy);

	output->wlr_output->data = NULL;
	output_retire_all(output);
	/* Before the layout's own listener would remove it. */
	output_leave_layout(output);
	sw_frame_stats_remove_output(output->stats);
	wl_event_source_remove(output->retire_timer);
	sw_frame_delay_destroy(output->delay);
	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->request_state.link);
	wl_list_remove(&output->precommit.link);
	wl_list_remove(&output->present.link);
	wl_list_remove(&output->destroy.link);
	wl_list_remove(&output->link);
	free(output);
}

void handle_new_output(struct wl_listener *listener, void *data)
{
	struct sw_server *server = wl_container_of(listener, server, new_output);
	struct wlr_output *wlr_output = data;
	const struct sw_options *options = server->options;

	if (!wlr_output_init_render(wlr_output, server->allocator, server->renderer)) {
		wlr_log(WLR_ERROR, "%s: cannot render to this output", wlr_output->name);
		return;
	}
	/* --max-render-time's budget; 0 with auto or off (the frame delay
	 * measures one, the vblank clock takes a quarter refresh). */
	int64_t budget_ns = options->max_render_time_ns > 0 ? options->max_render_time_ns : 0;
	/* First on the present event, so that every listener sees its times. */
	struct sw_vblank_clock *vblank = sw_vblank_clock_create(wlr_output, server->loop, budget_ns);

	const struct sw_output_config *config = sw_output_config_find(options->outputs, options->n_outputs,
									wlr_output->name);
	/* An output left off is still one that output management can turn
	 * on. */
	bool enabled = sw_output_enable(wlr_output, config, options->headless_width,
					options->headless_height, options->headless_refresh_mhz,
					options->adaptive_sync);

	struct sw_output *output = calloc(1, sizeof(*output));
	if (!output) {
		wlr_log(WLR_ERROR, "out of memory");
		return;
	}
	output->server = server;
	output->wlr_output = wlr_output;
	wlr_output->data = output;
	output->vblank = vblank;
	output->retire_timer = wl_event_loop_add_timer(server->loop, handle_retire_timeout, output);
	if (!vblank && options->max_render_time_ns) {
		output->delay = sw_frame_delay_create(server->loop, budget_ns, render_delayed_frame, output);
		if (!output->delay)
			wlr_log_errno(WLR_ERROR, "%s: frames are rendered at the frame event, not "
				      "--max-render-time before the vblank", wlr_output->name);
	}
	output->stats = sw_frame_stats_add_output(server->frame_stats, wlr_output, vblank);

	output->frame.notify = handle_frame;
	wl_signal_add(&wlr_output->events.frame, &output->frame);
	output->request_state.notify = handle_request_state;
	wl_signal_add(&wlr_output->events.request_state, &output->request_state);
	output->precommit.notify = handle_precommit;
	wl_signal_add(&wlr_output->events.precommit, &output->precommit);
	output->present.notify = handle_present;
	wl_signal_add(&wlr_output->events.present, &output->present);
	output->destroy.notify = handle_output_destroy;
	wl_signal_add(&wlr_output->events.destroy, &output->destroy);
	wl_list_insert(&server->outputs, &output->link);

	/* Where --output puts it, else left to right in the order they appear. */
	if (enabled)
		output_place(output, config && config->has_position, config ? config->x : 0,
			     config ? config->y : 0);
	sw_output_management_changed(server->output_management);

	wlr_log(WLR_INFO, "output %s: %dx%d@%.3f Hz", wlr_output->name, wlr_output->width,
		wlr_output->height, wlr_output->refresh / 1000.0);
}
