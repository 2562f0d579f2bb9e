/* What the sections of sw-ab-report share: bench/ab-report.c (reading the raw
 * directory, the per-ioctl, offload and wall-clock sections, main) and the
 * sections in files of their own (bench/ab_virgl.c). */
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

/* Where the report goes. */
struct report {
	FILE *md;
	const char *raw;	/* DIR */
	const char *ministat;
	const char *kdir;	/* kmalloc-<kernel>.json, or NULL */
	const char *plots;	/* PREFIX */
	const char *pbase;	/* basename of PREFIX, for links in FILE.md */
	char datadir[4096];	/* PREFIX-data */
	struct stats_rng rng;
};

_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* snprintf for paths and commands built from the command line and the names
 * in the raw directory: one that does not fit is an error, never a shortened
 * name that opens or runs something else. */
void format_fit(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

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

/* One value per line. */
void write_values(const char *path, const double *v, size_t n);
/* Appends syncway-ministat's output (args: its options and files) to the
 * report, as a code block. */
void ministat_block(const struct report *r, const char *args);
/* A run's syncobj calls per frame above min, "kind N.NNN, ...", or "none". */
void write_calls(FILE *md, const double *calls, double min);
/* Writes the heading "## title"; false, with a line saying so, when runs
 * (a plural noun) exist on one kernel only. */
bool section_on_both(FILE *md, const char *title, const char *runs, int base, int patched);
/* The median of n per-boot values (n ≤ MAX_RUNS), leaving them as they are. */
double median_of(const double *v, int n);
/* The icount cost per call of kind with handles on kernel k: the median of
 * the microbenchmark case's per-boot medians; NaN without such a case. */
double icount_cost(const char *kind, unsigned handles, int k);
/* "+1.23 % [+0.50, +2.00]" from a STATS_BOOT_TEST verdict. */
void fmt_rel_ci(char *out, size_t len, const struct stats_boot_verdict *v);

/* The GPU-offload model's syncobj calls of kind per client frame, the
 * client's (both threads) or the compositor's, mean over the explicit-sync
 * runs of both kernels; NaN when the report has no offload runs. */
double offload_model_calls(int kind, bool client);

/* The virgl frame benchmark (bench/ab_virgl.c): one boot's files, named
 * virgl-icount-<kernel>-r<N>-window.jsonl (with -syncway.jsonl and
 * -client.jsonl beside it), and its section of the report. */
void virgl_read(const char *dir, const char *name, int kernel, int round);
void virgl_write(struct report *r);

#endif
