/* Presentation-feedback bookkeeping for one surface: per frame the commit
 * time, the acquire-signal time, and what wp_presentation says; aggregates
 * as docs/clients.md defines them (frame interval, commit->present latency,
 * missed frames, 5 s FPS windows). */
#ifndef SW_CLIENT_PRESENT_H
#define SW_CLIENT_PRESENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <wayland-client.h>

#include "display.h"
#include "stats.h"

struct sw_frame {
	struct wl_list link; /* sw_present.frames */
	struct sw_present *present;
	struct wp_presentation_feedback *feedback;
	uint64_t seq;            /* the client's frame number */
	int64_t commit_ns;       /* presentation clock */
	int64_t acquire_ns;      /* acquire point signalled (0: unknown) */
	int64_t target_ns;       /* commit-timing target (0: none) */
	uint64_t syncobj_ioctls; /* the client's syncobj ioctls for this frame */
	uint64_t syncobj_ns;
	/* filled when the feedback arrives */
	bool presented;
	int64_t present_ns;
	uint32_t refresh_ns;
	int64_t interval_ns; /* to the previous presented frame; 0 for the first */
	int missed;          /* vblanks skipped before this one */
};

struct sw_present {
	struct sw_display *display;
	struct wl_list frames; /* waiting for feedback */
	/* Called once per frame when its feedback arrives, before it is freed. */
	void (*frame_done)(void *data, struct sw_frame *frame);
	/* Optional: when the acquire point of frame seq was signalled (0:
	 * unknown), for signals from other threads. */
	int64_t (*acquire_time)(void *data, uint64_t seq);
	void *data;
	FILE *fps_out;         /* 5 s FPS lines; NULL: none */
	int64_t window_ns;
	/* Refresh period to use when the compositor reports none (0: none). */
	uint32_t fallback_refresh_ns;

	uint64_t presented, discarded, missed;
	int64_t first_present_ns, last_present_ns;
	uint32_t refresh_ns;
	int64_t window_start_ns;
	uint64_t window_frames;
	struct stats_sample intervals, latencies, acquire_latencies; /* ns */
	struct stats_sample target_errors; /* presented - target, ns (commit-timing) */
};

/* median: the upper median sorted[n/2], as ministat prints it; p95 and
 * p99: nearest rank, sorted[ceil(q n) - 1]. All 0 for an empty series. */
struct sw_series_summary {
	size_t n;
	double mean, median, p95, p99, max;
};

void sw_present_init(struct sw_present *p, struct sw_display *d);
/* Destroys the feedback objects still outstanding. */
void sw_present_finish(struct sw_present *p);
/* Asks for feedback on the next commit of surface; call before the commit. */
struct sw_frame *sw_present_track(struct sw_present *p, struct wl_surface *surface, uint64_t seq);
size_t sw_present_outstanding(const struct sw_present *p);

/* Both sort s in place (common/stats' summaries do); it can still grow. */
void sw_series_summarize(struct stats_sample *s, struct sw_series_summary *out);
/* {"n":..,"mean":..,"median":..,"p95":..,"p99":..,"max":..} in ns */
void sw_series_write_json(FILE *f, struct stats_sample *s);

#endif
