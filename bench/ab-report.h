/* What the files of sw-ab-report share. bench/ab-report.c is main() and the
 * head of the report; bench/ab_common.c the helpers every file uses (errors,
 * paths, data files, ministat blocks, meta.txt); bench/ab_input.c reads the
 * raw directory of one kernel family into the tables declared here; each
 * section of the report is a file of its own: bench/ab_offload.c,
 * bench/ab_virgl.c, bench/ab_micro.c, bench/ab_icount_runs.c,
 * bench/ab_frames.c, bench/ab_plots.c (with the appendix),
 * bench/ab_families.c (the families' base kernels side by side) and
 * bench/ab_result.c (the first screen). Nothing but main() lives in
 * ab-report.c: the other files are a library main() calls, and never call
 * back into it (bench/meson.build builds them as one).
 *
 * The report has a part per kernel family (raw/6.12/, raw/7.3/): main()
 * reads one family into the tables, writes its sections, keeps what the
 * comparison of the families and the first screen need (families_keep(),
 * result_frame()), empties the tables (reset_raw()) and goes on with the
 * next. The parts go to a buffer, so that the result can come first; the
 * per-case ministat blocks go to a file of their own, FILE-appendix.md. */
#ifndef SYNCWAY_AB_REPORT_H
#define SYNCWAY_AB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats.h"

#define MAX_RUNS 32
/* syncobj ioctl kinds, as common/syncobj.c names them in JSON. */
#define MAX_KINDS 16

extern const char *const kernels[2]; /* "base", "patched" */
extern char kind_names[MAX_KINDS][24];
extern int nkinds;

/* The kernel families a report can hold: raw/<family>/ each. */
#define MAX_FAMILIES 8

/* key=value lines of a meta.txt; a value is the rest of a line. */
#define META_MAX 64
struct meta {
	char keys[META_MAX][32], vals[META_MAX][1024];
	int n;
};

/* Where the report goes, and the family being written. */
struct report {
	FILE *md;
	FILE *gp;		/* PREFIX-plots.gp, every family's plots */
	const char *raw;	/* DIR */
	const char *ministat;
	const char *kmalloc_opt; /* --kmalloc-dir, or NULL */
	const char *plots;	/* PREFIX */
	const char *pbase;	/* basename of PREFIX, for links in FILE.md */
	struct stats_rng rng;
	/* The family being written: */
	const char *fam;	/* "6.12", "7.3" */
	const struct meta *meta;	/* DIR/<family>/meta.txt (the top-level one for a flat DIR) */
	char famdir[4096];	/* DIR/<family>, or DIR itself when it has no family directories */
	const char *kdir;	/* kmalloc-<kernel>.json: --kmalloc-dir, else famdir */
	char datadir[4096];	/* PREFIX-data/<family> */
	char datarel[4096];	/* the same relative to FILE.md's directory, for gnuplot */
	char pfam[4096];	/* basename of PREFIX, "-", the family: the family's images */
};

/* --- bench/ab_common.c ---------------------------------------------------- */

_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* snprintf for paths and commands built from the command line and the names
 * in the raw directory: one that does not fit is an error, never a shortened
 * name that opens or runs something else. */
void format_fit(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* One value per line. */
void write_values(const char *path, const double *v, size_t n);
/* Appends syncway-ministat's output (args: its options and files) to the
 * report, as a code block. Below three values a side (fewest), a sentence
 * instead: ministat's t-test has no answer, and its complaint is no reading
 * for a report. */
void ministat_block(const struct report *r, const char *args, size_t fewest);
/* Reads path's key=value lines into m; false when path does not exist and
 * may not (!must), any other error dies. */
bool read_meta(const char *path, struct meta *m, bool must);
/* The value of key in m, "?" when it has none (or m is NULL). */
const char *meta_get(const struct meta *m, const char *key);
/* A value of the family's meta.txt (r->meta), "?" when it has none. */
const char *family_meta(const struct report *r, const char *key);

/* --- bench/ab_input.c: JSON lines ----------------------------------------- */

/* One line of a JSON-lines file, and where it came from for error messages.
 * The files are flat objects written by our own tools, so a key is found by
 * its quoted name; nested objects are searched with jobject(). */
struct jline {
	const char *path;
	long no;
	const char *text;
};

/* Where the value of "key" starts, or NULL; jneed() dies instead. */
const char *jfind(const struct jline *l, const char *key);
const char *jneed(const struct jline *l, const char *key);
double jnum_at(const struct jline *l, const char *key, const char *p);
double jnum(const struct jline *l, const char *key);
void jstr(const struct jline *l, const char *key, char *out, size_t len);
bool jbool(const struct jline *l, const char *key);

/* A JSON-lines file read line by line: blank lines are skipped, and l names
 * the current line (file and number) for error messages. */
struct jreader {
	FILE *f;
	char *buf;
	size_t cap;
	struct jline l;
};

/* Dies when path cannot be read, except that a missing file is false when
 * it may be missing (!must). */
bool jreader_open(struct jreader *r, const char *path, bool must);
bool jreader_next(struct jreader *r);
void jreader_close(struct jreader *r);

/* The index of a syncobj kind in kind_names, added when new. */
int kind_index(const struct jline *l, const char *name);
/* For each member "kind":N or "kind":[N,...] of the object "key": out[kind]
 * += N (the call count, for common/syncobj.c's arrays) or = N when assign. */
void add_kinds(const struct jline *l, const char *key, double *out, bool assign);
/* The i-th number of "kind":[calls,ns,errors,timeouts] in the line's object
 * "syncobj" (common/syncobj.c's arrays), absent when it has no such kind. */
double syncobj_number(const struct jline *l, const char *kind, int i, double absent);
int kernel_index(const char *path, const char *kernel);

/* syncway's --stats commit and frame lines with t_ns in [t0, t1): commits,
 * those whose acquire point was not signalled at commit, presented frames,
 * the frame lines' syncobj calls by kind and their TIMELINE_WAIT timeouts
 * (polls of a point not yet signalled). */
struct window_lines {
	double commits, waited, presented;
	double calls[MAX_KINDS];
	double wait_timeouts;
};
void read_window_lines(const char *path, long long t0, long long t1, struct window_lines *w);

/* --- bench/ab_input.c: the raw directory ---------------------------------- */

/* Reads the files of a family's raw directory it knows by name into the
 * tables below (the virgl frame benchmark's through virgl_read()), in sorted
 * order, and sorts the pooled samples. */
void read_raw(const char *dir);
/* Empties the tables read_raw() filled, for the next family. */
void reset_raw(void);

/* The per-ioctl microbenchmark, micro-<mode>-<kernel>-r<N>.jsonl. */
#define MAX_CASES 64
enum { ICOUNT, WALL };
extern const char *const modes[2]; /* "icount", "wall" */

struct series {
	struct stats_sample pooled;	/* every batch of every boot, sorted once read */
	double run_median[MAX_RUNS];	/* per-boot median of the batches */
	int run_round[MAX_RUNS];	/* the boot's round, to pair it with the floor */
	int runs;
};

struct micro_case {
	char name[32];
	unsigned handles;
	struct series s[2][2]; /* [mode][kernel] */
};

extern struct micro_case cases[MAX_CASES];
extern int ncases;

/* The wall-clock frame benchmark, frame-wall-<kernel>-r<N>.jsonl: the first
 * FRAME_WARMUP_NS of each run are dropped. */
#define FRAME_WARMUP_NS 2000000000LL

struct frame_run {
	double fps;		/* output: (N-1)/(t_N - t_1) after the warm-up */
	double commit_rate;	/* client commits per second after the warm-up */
	double cpu_us;		/* compositor user+sys per frame */
	double ioctls;		/* syncobj ioctls per frame (compositor) */
	double ioctl_ns;	/* their ns per frame */
	double client_cpu_us;	/* client user+sys per presented frame (whole run), NaN if unknown */
	int frames;
	int frames_all;		/* presented frames including the warm-up */
	double kind_per_frame[6];	/* compositor syncobj calls per frame, by array ioctl */
};

/* The six array ioctls, as named in syncobj-bench cases and syncway's JSON. */
extern const char *const array_kinds[6];

struct frame_data {
	struct stats_sample windows;	/* output FPS per 5 s window, all runs */
	struct stats_sample commit_windows;
	struct stats_sample intervals_ms;
	struct frame_run run[MAX_RUNS];
	int runs;
};
extern struct frame_data frames[2];

/* The GPU-offload frame benchmark (syncway-offload under -icount): per boot,
 * kernel and sync mode one value, pooled over that boot's runs (each with
 * new processes, so a new address-space layout; docs/bench.md). */
enum { SYNC_EXPLICIT, SYNC_NONE };
extern const char *const syncs[2]; /* "explicit", "none" */

#define MAX_OFFLOAD_RUNS 16

struct offload_run {
	int round;
	double fps;		/* client frames per guest second, the runs pooled */
	double busy;		/* busy guest ns (instructions) per client frame */
	double idle;		/* idle share of the window */
	double output_fps;	/* frames the output presented per guest second */
	double commits;		/* commits the compositor counted per client frame */
	double cpu_user, cpu_sys;	/* the client's, ns per frame (tick resolution) */
	double client_calls[MAX_KINDS];	/* per client frame, both client threads */
	double comp_calls[MAX_KINDS];	/* the compositor's, per client frame */
	unsigned handles[MAX_KINDS];	/* handles per client call; 0: not a client call */
	int n_runs;			/* the boot's runs of this sync mode */
	double run_busy[MAX_OFFLOAD_RUNS];	/* each run's busy ns per client frame */
};

struct offload_series {
	struct offload_run run[MAX_RUNS];
	int runs;
};
extern struct offload_series offload[2][2]; /* [kernel][sync] */

/* icount runs outside the A/B rounds: one boot of base and of the kernel of
 * each prefix of the series (prefix-icount-<base|NNNN>.jsonl), and the boots
 * of the hardened flavours (hardened-icount-<kernel>-r<N>.jsonl). One boot's
 * microbenchmark: the median of each case's batches. */
struct icount_run {
	char label[8]; /* "base", "patched" or the number of the last patch applied */
	int n;
	struct {
		char name[32];
		unsigned handles;
		double median;
	} c[MAX_CASES];
};

#define MAX_PREFIXES 32
extern struct icount_run prefixes[MAX_PREFIXES]; /* base first, then in the order of the series */
extern int nprefixes;
extern struct icount_run hardened[2][MAX_RUNS];
extern int nhardened[2];

/* --- bench/ab_micro.c: the per-ioctl cost, and the per-boot statistics ---- */

/* The relative difference the "boots needed" column is sized for. */
#define DETECT_EFFECT 0.05

/* Whether c has boots on both kernels in mode m. */
bool has_mode(const struct micro_case *c, int m);
/* The median of n per-boot values (n ≤ MAX_RUNS), leaving them as they are. */
double median_of(const double *v, int n);
/* The icount cost per call of kind with handles on kernel k: the median of
 * the microbenchmark case's per-boot medians; NaN without such a case. */
double icount_cost(const char *kind, unsigned handles, int k);
/* kmalloc counts: allocations per call of the case's ioctl with handles on
 * kernel k, from dir/kmalloc-<kernel>.json; NaN when the file or the line is
 * missing (the counts are only taken on some runs). */
double kmalloc_allocs(const char *dir, int kernel, const char *case_name, unsigned handles);
/* "a → b" of two allocation counts, "–" for one that is NaN, "–" alone when
 * both are. */
void fmt_allocs(char *out, size_t len, double a, double b);

/* Batches (or windows) of one boot are correlated: these numbers describe
 * the precision within boots and never decide a verdict. */
struct within_boot {
	double med_b, med_p, p99_b, p99_p;
	struct stats_interval boot;	/* bootstrap CI of median(patched) − median(base) */
	struct stats_interval hl;	/* Hodges–Lehmann shift; NaN past its pair limit */
};
void within_boot(const struct stats_sample *b, const struct stats_sample *p,
		 struct stats_rng *rng, struct within_boot *w);
/* "+1.2 [+0.5, +2.0]", or "–" when the estimate is NaN. */
void fmt_shift(char *out, size_t len, const struct stats_interval *in);
/* "+1.23 % [+0.50, +2.00]" from a STATS_BOOT_TEST verdict. */
void fmt_rel_ci(char *out, size_t len, const struct stats_boot_verdict *v);
/* The boots needed to detect DETECT_EFFECT at the verdict's cv, with the cv
 * of the values divided by the floor beside it unless floor_cv is NaN. */
void fmt_boots_needed(char *out, size_t len, const struct stats_boot_verdict *v,
		      double floor_cv);

/* The section of each mode that has cases on both kernels. */
void write_micro(struct report *r);

/* --- bench/ab_icount_runs.c ----------------------------------------------- */

void write_per_patch(struct report *r);
void write_hardened(struct report *r);

/* --- bench/ab_offload.c --------------------------------------------------- */

/* Whether both kernels have runs of the sync mode. */
bool have_offload(int sync);
/* One value per boot of a run field (by offset) for a kernel and sync mode. */
int offload_values(int k, int sync, size_t field, double *out);
/* The GPU-offload model's syncobj calls of kind per client frame, the
 * client's (both threads) or the compositor's, mean over the explicit-sync
 * runs of both kernels; NaN when the report has no offload runs. */
double offload_model_calls(int kind, bool client);
/* A run's syncobj calls per frame above min, "kind N.NNN, ...", or "none". */
void write_calls(FILE *md, const double *calls, double min);
/* The headline, when both kernels have explicit-sync runs. */
void write_offload(struct report *r);

/* --- bench/ab_virgl.c ----------------------------------------------------- */

/* The virgl frame benchmark: one boot's files, named
 * virgl-icount-<kernel>-r<N>-window.jsonl (with -syncway.jsonl and
 * -client.jsonl beside it), and its section of the report. */
void virgl_read(const char *dir, const char *name, int kernel, int round);
void virgl_reset(void);
void virgl_write(struct report *r);

/* --- bench/ab_frames.c ---------------------------------------------------- */

/* Writes the heading "## title, Linux <family>"; false, with a line saying
 * so, when runs (a plural noun) exist on one kernel only. */
bool section_on_both(const struct report *r, const char *title, const char *runs, int base,
		     int patched);
/* The wall-clock frame benchmark, when it has runs. */
void write_frames(struct report *r);

/* --- bench/ab_plots.c ----------------------------------------------------- */

/* The appendix file's head: its title (the run's date) and a link back to
 * the main file, named main_name beside it. */
void write_appendix_head(FILE *md, const char *date, const char *main_name);
/* The family's cases, their batches in ministat form (written to r->md,
 * which main() points at the appendix file meanwhile). */
void write_appendix(struct report *r);
/* The main file's last section: where the per-case blocks are, the
 * appendix file named appendix_name beside it. */
void write_appendix_link(FILE *md, const char *appendix_name);
/* The family's data files, its plots in r->gp, and its plots' section, last
 * in the family's part. */
void write_plots(struct report *r);

/* --- bench/ab_families.c -------------------------------------------------- */

/* Keeps what the comparison of the families needs from the family just
 * read: each icount case's per-boot medians on base and patched, and the
 * allocations per call on base. */
void families_keep(const struct report *r);
/* Base of the first family against base of each later one, per ioctl,
 * under the instruction clock; a line saying why when there is one family. */
void families_write(struct report *r);
/* The first screen's table of the key cases (docs/bench.md says which and
 * why): instructions per call on base and patched of every family, the
 * series' effect on each, and each later family's base against the
 * first's. */
void families_key_cases(FILE *md);

/* --- bench/ab_result.c: the first screen ---------------------------------- */

/* The frame benchmarks whose verdicts the first screen shows. */
enum { RESULT_OFFLOAD, RESULT_CONTROL, RESULT_VIRGL, RESULT_FRAMES };

/* Opens the first screen's record of the family r points at; main() calls
 * it as each family begins, the sections below fill it. */
void result_enter(const struct report *r);
/* The verdicts of a frame benchmark on the family being written, as its
 * section computed them: the spread rule's and the test's (NULL: none), the
 * medians with that many decimals, and what stands beside them (a
 * prediction, what the run can resolve). */
void result_frame(int which, const struct stats_boot_verdict *spread,
		  const struct stats_boot_verdict *test, int decimals, const char *note);
/* Why a frame benchmark has no verdict on the family being written. */
void result_missing(int which, const char *why);
/* Which of the family's plots bench/ab_plots.c drew: the GPU-offload runs'
 * and the per-ioctl one. */
void result_plots(bool offload, bool micro);
/* The first screen, after the title: the per-frame verdicts of every family,
 * the key cases per ioctl and the main plot (its part of r->gp: the
 * GPU-offload runs of every family that has them, else the first family's
 * per-ioctl plot). */
void result_write(struct report *r);

#endif
