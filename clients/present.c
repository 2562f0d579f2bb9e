#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "presentation-time-client-protocol.h"

void sw_series_summarize(struct stats_sample *s, struct sw_series_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (s->n == 0)
		return;
	struct stats_summary sum;
	stats_sample_summarize(s, &sum);
	out->n = sum.n;
	out->mean = sum.mean;
	out->median = sum.median;
	out->p95 = stats_percentile(s->v, s->n, 95);
	out->p99 = stats_percentile(s->v, s->n, 99);
	out->max = sum.max;
}

void sw_series_write_json(FILE *f, struct stats_sample *s)
{
	struct sw_series_summary m;
	sw_series_summarize(s, &m);
	fprintf(f, "{\"n\":%zu,\"mean\":%.0f,\"median\":%.0f,\"p95\":%.0f,\"p99\":%.0f,\"max\":%.0f}",
		m.n, m.mean, m.median, m.p95, m.p99, m.max);
}

static void frame_free(struct sw_frame *fr)
{
	wl_list_remove(&fr->link);
	wp_presentation_feedback_destroy(fr->feedback);
	free(fr);
}

static void feedback_sync_output(void *data, struct wp_presentation_feedback *f, struct wl_output *o) {}

static void feedback_presented(void *data, struct wp_presentation_feedback *wp, uint32_t sec_hi,
			       uint32_t sec_lo, uint32_t nsec, uint32_t refresh, uint32_t seq_hi,
			       uint32_t seq_lo, uint32_t flags)
{
	struct sw_frame *fr = data;
	struct sw_present *p = fr->present;
	int64_t t = (int64_t)(((uint64_t)sec_hi << 32) | sec_lo) * 1000000000 + nsec;
	fr->presented = true;
	fr->present_ns = t;
	if (!refresh)
		refresh = p->fallback_refresh_ns;
	fr->refresh_ns = refresh;
	if (refresh)
		p->refresh_ns = refresh;
	if (p->presented == 0) {
		p->first_present_ns = t;
		p->window_start_ns = t;
	} else {
		fr->interval_ns = t - p->last_present_ns;
		stats_sample_add(&p->intervals, (double)fr->interval_ns);
		/* missed = round(interval / refresh) - 1, never negative */
		if (refresh) {
			long vblanks = lround((double)fr->interval_ns / (double)refresh);
			fr->missed = vblanks > 1 ? (int)(vblanks - 1) : 0;
			p->missed += fr->missed;
		}
	}
	stats_sample_add(&p->latencies, (double)(t - fr->commit_ns));
	if (!fr->acquire_ns && p->acquire_time)
		fr->acquire_ns = p->acquire_time(p->data, fr->seq);
	int64_t acq = fr->acquire_ns;
	if (acq)
		stats_sample_add(&p->acquire_latencies, (double)(t - acq));
	if (fr->target_ns)
		stats_sample_add(&p->target_errors, (double)(t - fr->target_ns));
	p->presented++;
	p->last_present_ns = t;

	/* vkgears-style: frames presented in each fixed window. */
	p->window_frames++;
	if (t - p->window_start_ns >= p->window_ns) {
		double secs = (double)(t - p->window_start_ns) / 1e9;
		if (p->fps_out) {
			fprintf(p->fps_out, "%" PRIu64 " frames in %.1f seconds = %.3f FPS\n",
				p->window_frames, secs, (double)p->window_frames / secs);
			fflush(p->fps_out);
		}
		p->window_start_ns = t;
		p->window_frames = 0;
	}
	if (p->frame_done)
		p->frame_done(p->data, fr);
	frame_free(fr);
}

static void feedback_discarded(void *data, struct wp_presentation_feedback *wp)
{
	struct sw_frame *fr = data;
	struct sw_present *p = fr->present;
	p->discarded++;
	if (p->frame_done)
		p->frame_done(p->data, fr);
	frame_free(fr);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

void sw_present_init(struct sw_present *p, struct sw_display *d)
{
	memset(p, 0, sizeof(*p));
	p->display = d;
	p->window_ns = 5000000000LL;
	wl_list_init(&p->frames);
}

void sw_present_finish(struct sw_present *p)
{
	struct sw_frame *fr, *tmp;
	wl_list_for_each_safe(fr, tmp, &p->frames, link)
		frame_free(fr);
	stats_sample_free(&p->intervals);
	stats_sample_free(&p->latencies);
	stats_sample_free(&p->acquire_latencies);
	stats_sample_free(&p->target_errors);
}

struct sw_frame *sw_present_track(struct sw_present *p, struct wl_surface *surface, uint64_t seq)
{
	if (!p->display->presentation)
		return NULL;
	struct sw_frame *fr = calloc(1, sizeof(*fr));
	fr->present = p;
	fr->seq = seq;
	fr->commit_ns = sw_display_now_ns(p->display);
	fr->feedback = wp_presentation_feedback(p->display->presentation, surface);
	wp_presentation_feedback_add_listener(fr->feedback, &feedback_listener, fr);
	wl_list_insert(p->frames.prev, &fr->link);
	return fr;
}

size_t sw_present_outstanding(const struct sw_present *p)
{
	return (size_t)wl_list_length(&p->frames);
}
