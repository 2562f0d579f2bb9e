/* Between the two halves of the frame accounting: the records that
 * frame_stats.c keeps, and the reports frame_report.c writes from them (the
 * lines on stderr and the --stats JSON lines; fields: docs/compositor.md).
 * Nothing else includes this. */
#ifndef SYNCWAY_FRAME_REPORT_H
#define SYNCWAY_FRAME_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <wayland-server-core.h>

#include "explicit_sync.h"
#include "stats.h"
#include "stats_stream.h"
#include "syncobj.h"

struct sw_server;

/* What became of a commit: its "result" in the JSON lines. */
enum sw_commit_fate {
	SW_COMMIT_PRESENTED,     /* a presented frame showed it */
	SW_COMMIT_NOT_PRESENTED, /* the frame that showed it was not presented */
	SW_COMMIT_DROPPED,       /* replaced by a newer commit before any frame showed it */
	SW_COMMIT_LOST,          /* its surface was destroyed first, or it was refused */
};

/* One wl_surface.commit with a buffer, until a frame shows it. Times are 0
 * until they happen. */
struct sw_commit_record {
	struct wl_list link;
	uint32_t surface_id;
	struct sw_surface_totals *totals; /* its surface's; holds a reference */
	uint32_t seq;
	bool explicit_sync, waited;
	int64_t t_commit, t_acquired, t_applied;
	int64_t t_target; /* commit-timing-v1's target time; 0: none */
};

/* Presented commits, in memory that does not grow with their number. */
struct sw_commit_totals {
	uint64_t presented;
	uint64_t early;                      /* presented before their target */
	struct stats_stream latency_ms;      /* commit -> presented */
	struct stats_stream target_error_ms; /* presented - target, commit-timing */
	struct stats_histogram latency_hist, target_error_hist; /* counts NULL until used */
};

struct sw_client_totals;

/* One surface's presented commits, from its first commit with a buffer
 * until the surface and the last of its commits are gone (the records
 * that frames still hold keep it); then reported and folded into its
 * client's. */
struct sw_surface_totals {
	struct wl_list link; /* sw_frame_stats.surfaces */
	uint32_t id;
	char app_id[64]; /* its xdg_toplevel's, when it had one */
	unsigned refs;   /* the surface, and each of its records */
	struct sw_client_totals *client;
	struct sw_commit_totals t;
};

/* One client's presented commits, of its surfaces that are gone. Kept
 * while the client or one of its surfaces' totals lives; then reported,
 * summed up in a sw_departed_client and freed. */
struct sw_client_totals {
	struct wl_list link; /* sw_frame_stats.clients */
	struct sw_frame_stats *stats;
	uint32_t id;
	pid_t pid;
	char app_id[64]; /* the first its surfaces had */
	unsigned refs;   /* the client while connected, and its surfaces' totals */
	uint64_t surfaces; /* folded in */
	struct sw_commit_totals t;
	struct wl_listener destroy;
};

/* A series as the tables print it. Median: the upper median, rank n/2,
 * as ministat prints it. p99: nearest rank ceil(0.99 n) - 1. Both within
 * STATS_STREAM_REL_ERR of the exact ones; n, mean and max exact. An empty
 * series is all zeros. */
struct sample_summary {
	uint64_t n;
	double mean, median, p99, max;
};

struct sample_summary sample_summarize(const struct stats_stream *s);

/* A client that left with presented commits, as the exit table shows it.
 * The last SW_DEPARTED_CLIENTS of them live in a ring inside
 * sw_frame_stats: a departure allocates nothing and frees the client's
 * series, so no long-lived chunk is left behind at wherever the heap had
 * put them (a session's clients come and go for as long as it runs). */
struct sw_departed_client {
	uint32_t id;
	char app_id[64];
	uint64_t early;
	struct sample_summary latency_ms, target_error_ms;
};

#define SW_DEPARTED_CLIENTS 16

/* One frame from its output commit until its present event. */
struct sw_pending_frame {
	struct wl_list link; /* sw_output_stats.pending */
	uint64_t frame;
	uint32_t commit_seq;
	int64_t t_start, t_rendered, t_end;
	int64_t cpu_user_ns, cpu_sys_ns;
	long ctxsw;
	struct sw_syncobj_stats syncobj; /* zero when ioctls is */
	uint64_t ioctls, ioctl_ns;       /* its sums */
	struct wl_list commits; /* sw_commit_record: shown first by this frame */
};

/* What the present event (or its absence) told about a frame. */
struct sw_frame_outcome {
	bool presented;
	int64_t t_present;   /* the end of the output commit when not presented */
	int64_t interval_ns; /* to the output's previous presented frame; -1: none */
	/* The vblanks between the previous presented frame and this one:
	 * missed when a commit this frame shows was ready before them, idle
	 * otherwise. Of the missed, those syncway slept through without
	 * having been busy: it was not given a CPU in time (headless clock
	 * only). */
	long missed, idle, missed_waiting;
	int64_t refresh_ns;  /* 0: unknown */
};

struct sw_vblank_clock;

struct sw_output_stats {
	struct wl_list link; /* sw_frame_stats.outputs */
	struct sw_frame_stats *stats;
	char name[64];
	struct wl_list pending; /* sw_pending_frame, oldest first */

	const struct sw_vblank_clock *clock; /* NULL: not a clocked output */
	uint64_t presented, not_presented, missed, idle, missed_waiting;
	int64_t first_present_ns, last_present_ns;
	unsigned last_present_seq; /* 0: the backend gives none */

	/* the current report window */
	uint64_t win_frames;
	int64_t win_start_ns, win_cpu_ns;
	uint64_t win_ioctls, win_ioctl_ns;

	/* Out of memory, a series (here and in sw_frame_stats) loses precision
	 * rather than the compositor its life: stats_stream_add() failures
	 * are ignored. */
	struct stats_stream interval_ms, render_ms, commit_ms, cpu_user_us, cpu_sys_us, ioctls, ioctl_us;
	struct sw_syncobj_stats syncobj_total;
};

/* Open fds by kind: a leak check for the kinds explicit sync creates
 * (eventfds for waits, syncobj and sync_file fds). Buffer fds (dmabufs,
 * memfds of shm buffers) are counted apart because swapchains grow lazily
 * (a third buffer on a busy output). */
struct sw_fd_count {
	int total, buffers, eventfd, syncobj, sync_file, sockets;
};

/* What the process holds, for the report-window line. */
struct sw_process_sample {
	long rss_kb;               /* -1: unknown */
	/* malloc's view (mallinfo2): what is allocated, mmapped chunks
	 * included, and what its arenas hold free. RSS alone cannot tell a
	 * leak from pages the allocator keeps. */
	size_t heap_in_use, heap_free;
	struct sw_fd_count fds;
	int64_t syncobj_handles;   /* sw_syncobj_stats_handles() */
	double longest_turn_ms;    /* of the event loop in the window; < 0: not measured */
};

struct sw_frame_stats {
	struct sw_server *server;
	FILE *json; /* NULL without --stats */
	struct wl_list outputs; /* sw_output_stats.link */
	struct wl_event_source *report_timer;
	struct wl_event_source *report_signal; /* SIGUSR1: the lines now */
	uint32_t next_surface_id;
	int64_t start_ns;
	struct sw_fd_count fds_before, fds_after;
	/* malloc's bytes in use at the same two moments: what clients that
	 * came and went left behind, to the byte (RSS moves by pages). */
	size_t heap_before, heap_after;
	/* Of which the accounting's series (stats_stream_bytes()): bounded,
	 * but their range widens as new extremes come. */
	size_t series_before, series_after;
	bool have_sync_counters;
	struct sw_explicit_sync_counters sync_counters;

	struct rusage last_rusage;
	struct sw_syncobj_stats last_syncobj;
	uint64_t last_syncobj_calls; /* its count */

	/* Commits not presented count as lost in these totals. */
	uint64_t commits, commits_explicit, commits_waited, commits_presented, commits_dropped,
		commits_lost;
	struct stats_stream acquire_ms, apply_ms, present_ms, acquire_to_present_ms, target_error_ms;
	struct wl_list surfaces; /* sw_surface_totals.link, oldest first */
	struct wl_list clients;  /* sw_client_totals.link, oldest first */
	uint32_t next_client_id;
	unsigned departed;       /* clients gone with presented commits */
	struct sw_departed_client departed_ring[SW_DEPARTED_CLIENTS]; /* [departed % N]: the next */
	struct wl_list applied;  /* sw_surface_stats.applied_link: shown by no frame yet */
	uint64_t win_commits;
	double win_present_ms_sum;

	struct wl_listener new_surface;
};

/* The JSON line of a commit; output is the one whose frame showed it
 * (NULL: none did). */
void frame_report_commit(const struct sw_frame_stats *stats, const struct sw_commit_record *rec,
			 enum sw_commit_fate fate, const struct sw_output_stats *output,
			 uint64_t frame, int64_t t_present);
void frame_report_frame(const struct sw_output_stats *output, const struct sw_pending_frame *frame,
			const struct sw_frame_outcome *outcome);
/* The line on stderr about output's report window, which ends at now. */
void frame_report_window(const struct sw_output_stats *output, int64_t now);
/* The line on stderr about the process, after the windows' lines. */
void frame_report_process(const struct sw_process_sample *sample);
/* The output's table on stderr and its "output_summary" line. */
void frame_report_output(const struct sw_output_stats *output);
/* The "surface_summary" line of a surface whose totals are done. */
void frame_report_surface(const struct sw_frame_stats *stats, const struct sw_surface_totals *surface);
/* The "client_summary" line of a client whose totals are done. */
void frame_report_client(const struct sw_frame_stats *stats, const struct sw_client_totals *client);
/* A table on stderr of the presented commits per client: the last
 * SW_DEPARTED_CLIENTS that left (by the exit, all have). */
void frame_report_clients(const struct sw_frame_stats *stats);
/* The exit summary on stderr and the "summary" line. */
void frame_report_summary(const struct sw_frame_stats *stats);

#endif
