/* sw-ab-report: turns the raw samples of tools/report (build/report/raw/) into
 * the markdown report, the data files and the gnuplot script of the plots.
 * All statistics come from common/stats.c (stats.h); the ministat-form blocks are
 * the output of syncway-ministat on the same data files.
 *
 *   usage: sw-ab-report --raw DIR --out FILE.md --plots PREFIX
 *                       [--ministat PATH] [--kmalloc-dir DIR] [--seed N]
 *
 * Inputs (written by bench/guest-ab.sh and tools/report):
 *   DIR/meta.txt                          key=value: date, machine, kernels, command
 *   DIR/micro-<mode>-<kernel>-r<N>.jsonl  syncobj-bench JSON lines
 *   DIR/frame-wall-<kernel>-r<N>.jsonl    syncway --stats output
 *   DIR/client-times-wall-<kernel>-r<N>.txt  the frame client's `times` (optional)
 *   DIR/offload-icount-<kernel>-r<N>-<sync>-client.jsonl   syncway-offload --json
 *   DIR/offload-icount-<kernel>-r<N>-<sync>-syncway.jsonl  syncway --stats of that run
 *   DIR/prefix-icount-<base|NNNN>.jsonl   syncobj-bench on base and on the kernel of
 *                                         each prefix of the series (optional)
 *   DIR/hardened-icount-<kernel>-r<N>.jsonl  syncobj-bench on the hardened flavours
 *   DIR/hardened-vulnerabilities-<kernel>.txt  their /sys/.../cpu/vulnerabilities
 *                                         (both optional)
 *   DIR/virgl-icount-<kernel>-r<N>-{window,syncway,client}.jsonl  the virgl frame
 *                                         benchmark (optional; bench/ab_virgl.c)
 *   KDIR/kmalloc-<kernel>.json            syncobj-kmalloc-count --out lines (optional)
 * A JSON line that lacks a key the report needs is an error, not a default.
 * Outputs: FILE.md; PREFIX-data/ (one value per line, per series); PREFIX-plots.gp
 * (run by tools/report with gnuplot in the directory of FILE.md), which draws
 * PREFIX-offload.png, PREFIX-micro.png, PREFIX-fps.png and PREFIX-frametime.png.
 *
 * Verdicts come from one value per boot (docs/bench.md, "Statistics"); the
 * batches and windows of one boot are correlated and only describe the
 * precision within a boot.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ab-report.h"
#include "json.h"

#define MAX_CASES 64
#define MAX_BATCHES 4096
#define FRAME_WARMUP_NS 2000000000LL
#define WINDOW_NS 5000000000LL
#define BOOTSTRAP_B 4000
#define CONF 95.0
/* The relative difference the "boots needed" column is sized for. */
#define DETECT_EFFECT 0.05

enum { ICOUNT, WALL };
const char *const kernels[2] = { "base", "patched" };
static const char *modes[2] = { "icount", "wall" };

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

static struct micro_case cases[MAX_CASES];
static int ncases;

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
static const char *array_kinds[6] = { "wait", "timeline_wait", "query", "reset", "signal",
				      "timeline_signal" };

struct frame_data {
	struct stats_sample windows;	/* output FPS per 5 s window, all runs */
	struct stats_sample commit_windows;
	struct stats_sample intervals_ms;
	struct frame_run run[MAX_RUNS];
	int runs;
};
static struct frame_data frames[2];

/* The GPU-offload frame benchmark (syncway-offload under -icount): one run
 * per boot, kernel and sync mode. */
enum { SYNC_EXPLICIT, SYNC_NONE };
static const char *syncs[2] = { "explicit", "none" };
/* The largest share of a window the guest may idle: idle time is time the
 * instruction clock jumped over (I/O waits), not work. */
#define OFFLOAD_MAX_IDLE 0.001
/* The consistency check's tolerance between the measured and the predicted
 * difference per frame. */
#define CONSISTENCY_TOLERANCE 0.2

/* syncobj ioctl kinds as common/syncobj.c names them in JSON. */
char kind_names[MAX_KINDS][24];
int nkinds;

struct offload_run {
	int round;
	double fps;		/* client frames per guest second */
	double busy;		/* busy guest ns (instructions) per client frame */
	double idle;		/* idle share of the window */
	double output_fps;	/* frames the output presented per guest second */
	double commits;		/* commits the compositor counted per client frame */
	double cpu_user, cpu_sys;	/* the client's, ns per frame (tick resolution) */
	double client_calls[MAX_KINDS];	/* per client frame, both client threads */
	double comp_calls[MAX_KINDS];	/* the compositor's, per client frame */
	unsigned handles[MAX_KINDS];	/* handles per client call; 0: not a client call */
};

struct offload_series {
	struct offload_run run[MAX_RUNS];
	int runs;
};
static struct offload_series offload[2][2]; /* [kernel][sync] */

/* A value is the rest of a meta.txt line, so it always fits. */
static char meta_keys[64][32], meta_vals[64][1024];
static int nmeta;

_Noreturn void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sw-ab-report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* snprintf for paths and commands built from the command line and the names
 * in the raw directory: one that does not fit is an error, never a shortened
 * name that opens or runs something else. */
void format_fit(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		die("longer than %zu bytes: %.60s...", size - 1, buf);
}

static const char *meta(const char *key)
{
	for (int i = 0; i < nmeta; i++)
		if (!strcmp(meta_keys[i], key))
			return meta_vals[i];
	return "?";
}

static void read_meta(const char *dir)
{
	char path[4096], line[1024];
	format_fit(path, sizeof(path), "%s/meta.txt", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) && nmeta < 64) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		eq[1 + strcspn(eq + 1, "\n")] = 0;
		format_fit(meta_keys[nmeta], sizeof(meta_keys[0]), "%s", line);
		strcpy(meta_vals[nmeta], eq + 1);
		nmeta++;
	}
	fclose(f);
}

/* Where the value of "key" starts, or NULL. */
const char *jfind(const struct jline *l, const char *key)
{
	return sw_json_find(l->text, key);
}

const char *jneed(const struct jline *l, const char *key)
{
	const char *p = jfind(l, key);
	if (!p)
		die("%s:%ld: no \"%s\"", l->path, l->no, key);
	return p;
}

double jnum_at(const struct jline *l, const char *key, const char *p)
{
	char *end;
	double v = strtod(p, &end);
	if (end == p)
		die("%s:%ld: \"%s\" is not a number", l->path, l->no, key);
	return v;
}

double jnum(const struct jline *l, const char *key)
{
	return jnum_at(l, key, jneed(l, key));
}

/* For keys that lines leave out on purpose; each caller says why. */
static double jnum_optional(const struct jline *l, const char *key, double absent)
{
	const char *p = jfind(l, key);
	return p ? jnum_at(l, key, p) : absent;
}

void jstr(const struct jline *l, const char *key, char *out, size_t len)
{
	const char *p = jneed(l, key);
	if (*p != '"')
		die("%s:%ld: \"%s\" is not a string", l->path, l->no, key);
	size_t n = strcspn(++p, "\"");
	if (n >= len)
		die("%s:%ld: \"%s\" is too long", l->path, l->no, key);
	memcpy(out, p, n);
	out[n] = 0;
}

bool jbool(const struct jline *l, const char *key)
{
	const char *p = jneed(l, key);
	if (!strncmp(p, "true", 4))
		return true;
	if (!strncmp(p, "false", 5))
		return false;
	die("%s:%ld: \"%s\" is not a boolean", l->path, l->no, key);
}

/* The members of the object "key" (without its braces) into out. */
static void jobject(const struct jline *l, const char *key, char *out, size_t len)
{
	const char *p = jneed(l, key);
	if (*p != '{')
		die("%s:%ld: \"%s\" is not an object", l->path, l->no, key);
	size_t n = strcspn(++p, "}");
	if (n >= len || p[n] != '}')
		die("%s:%ld: \"%s\" is too long or unterminated", l->path, l->no, key);
	memcpy(out, p, n);
	out[n] = 0;
}

static bool blank(const char *line)
{
	return line[strspn(line, " \t\r\n")] == 0;
}

/* Dies when path cannot be read, except that a missing file is false when
 * it may be missing (!must). */
bool jreader_open(struct jreader *r, const char *path, bool must)
{
	*r = (struct jreader){ .l = { .path = path } };
	r->f = fopen(path, "r");
	if (!r->f && (must || errno != ENOENT))
		die("%s: %s", path, strerror(errno));
	return r->f != NULL;
}

bool jreader_next(struct jreader *r)
{
	while (getline(&r->buf, &r->cap, r->f) > 0) {
		r->l.no++;
		r->l.text = r->buf;
		if (!blank(r->buf))
			return true;
	}
	return false;
}

void jreader_close(struct jreader *r)
{
	free(r->buf);
	fclose(r->f);
}

static struct micro_case *find_case(const char *name, unsigned handles)
{
	for (int i = 0; i < ncases; i++)
		if (!strcmp(cases[i].name, name) && cases[i].handles == handles)
			return &cases[i];
	if (ncases == MAX_CASES)
		die("more than %d cases", MAX_CASES);
	struct micro_case *c = &cases[ncases++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->handles = handles;
	for (int m = 0; m < 2; m++)
		for (int k = 0; k < 2; k++)
			stats_sample_init(&c->s[m][k].pooled);
	return c;
}

static const struct micro_case *floor_case(void)
{
	for (int i = 0; i < ncases; i++)
		if (!strcmp(cases[i].name, "floor"))
			return &cases[i];
	return NULL;
}

static void read_micro(const char *path, int mode, int kernel, int round)
{
	struct jreader r;
	const struct jline *l = &r.l;
	jreader_open(&r, path, true);
	while (jreader_next(&r)) {
		char name[32];
		jstr(l, "case", name, sizeof(name));
		struct micro_case *c = find_case(name, (unsigned)jnum(l, "handles"));
		struct series *s = &c->s[mode][kernel];
		if (s->runs == MAX_RUNS)
			die("%s: more than %d boots of %s/%u", path, MAX_RUNS, c->name, c->handles);
		const char *p = jneed(l, "samples");
		if (*p++ != '[')
			die("%s:%ld: \"samples\" is not an array", path, l->no);
		static double run[MAX_BATCHES];
		int n = 0;
		while (*p != ']') {
			char *end;
			if (n == MAX_BATCHES)
				die("%s:%ld: more than %d samples", path, l->no, MAX_BATCHES);
			run[n] = strtod(p, &end);
			if (end == p || (*end != ',' && *end != ']'))
				die("%s:%ld: malformed \"samples\"", path, l->no);
			if (stats_sample_add(&s->pooled, run[n++]) < 0)
				die("out of memory");
			p = end + (*end == ',');
		}
		if (!n)
			die("%s:%ld: no samples", path, l->no);
		stats_sort(run, n);
		s->run_round[s->runs] = round;
		s->run_median[s->runs++] = stats_median(run, n);
	}
	jreader_close(&r);
}

/* The client's CPU time per presented frame, from the second line of sh's
 * `times` in client-times-wall-<kernel>-r<N>.txt beside the frame file; NaN
 * when that file is missing (older raw directories have none). */
static double client_cpu_us(const char *dir, const char *frame_name, int frames_all)
{
	char tail[1024], path[4096], l1[256], l2[256];
	double um, us, sm, ss, v = NAN;
	snprintf(tail, sizeof(tail), "%s", frame_name + strlen("frame-"));
	tail[strcspn(tail, ".")] = 0;
	format_fit(path, sizeof(path), "%s/client-times-%s.txt", dir, tail);
	FILE *f = fopen(path, "r");
	if (!f)
		return NAN;
	if (fgets(l1, sizeof(l1), f) && fgets(l2, sizeof(l2), f) &&
	    sscanf(l2, "%lfm%lfs %lfm%lfs", &um, &us, &sm, &ss) == 4 && frames_all > 0)
		v = ((um + sm) * 60 + us + ss) * 1e6 / frames_all;
	fclose(f);
	return v;
}

static void add_window(struct stats_sample *s, long long events)
{
	if (stats_sample_add(s, events / (WINDOW_NS / 1e9)) < 0)
		die("out of memory");
}

static void read_frame(const char *dir, const char *name, int kernel)
{
	struct frame_data *fd = &frames[kernel];
	char path[4096];
	format_fit(path, sizeof(path), "%s/%s", dir, name);
	if (fd->runs == MAX_RUNS)
		die("%s: more than %d frame runs per kernel", path, MAX_RUNS);
	struct frame_run *r = &fd->run[fd->runs];
	memset(r, 0, sizeof(*r));
	char type[32], so[1024];
	struct jreader jr;
	const struct jline *l = &jr.l;
	jreader_open(&jr, path, true);
	long long t_first = -1, t_start = 0, t_first_frame = 0, t_last = 0, win_end = 0, cwin_end = 0;
	long long n = 0, win_frames = 0, commits = 0, win_commits = 0, t_c_first = -1, t_c_last = 0;
	double cpu = 0, ioctls = 0, ioctl_ns = 0, kinds[6] = { 0 };
	while (jreader_next(&jr)) {
		jstr(l, "type", type, sizeof(type));
		bool is_frame = !strcmp(type, "frame"), is_commit = !strcmp(type, "commit");
		if (!is_frame && !is_commit)
			continue;
		long long t = (long long)jnum(l, "t_ns");
		bool presented = is_frame && jbool(l, "presented");
		if (t_first < 0) {
			t_first = t;
			t_start = t + FRAME_WARMUP_NS;
			win_end = cwin_end = t_start + WINDOW_NS;
		}
		if (t < t_start) {
			r->frames_all += presented;
			continue;
		}
		if (is_commit) {
			for (; t >= cwin_end; cwin_end += WINDOW_NS, win_commits = 0)
				add_window(&fd->commit_windows, win_commits);
			win_commits++;
			commits++;
			if (t_c_first < 0)
				t_c_first = t;
			t_c_last = t;
			continue;
		}
		if (!presented)
			continue;
		r->frames_all++;
		for (; t >= win_end; win_end += WINDOW_NS, win_frames = 0)
			add_window(&fd->windows, win_frames);
		win_frames++;
		if (n == 0)
			t_first_frame = t;
		/* The first presented frame of a run has no interval. */
		double iv = jnum_optional(l, "interval_ns", -1);
		if (n > 0 && iv > 0 && stats_sample_add(&fd->intervals_ms, iv / 1e6) < 0)
			die("out of memory");
		cpu += jnum(l, "cpu_user_ns") + jnum(l, "cpu_sys_ns");
		ioctls += jnum(l, "syncobj_ioctls");
		ioctl_ns += jnum(l, "syncobj_ns");
		/* syncway writes only the kinds a frame used. */
		jobject(l, "syncobj", so, sizeof(so));
		struct jline inner = { .path = path, .no = l->no, .text = so };
		for (int kk = 0; kk < 6; kk++) {
			const char *q = jfind(&inner, array_kinds[kk]);
			if (q)
				kinds[kk] += jnum_at(&inner, array_kinds[kk], q + (*q == '['));
		}
		t_last = t;
		n++;
	}
	jreader_close(&jr);
	if (n < 2)
		return;
	r->fps = (n - 1) / ((t_last - t_first_frame) / 1e9);
	r->commit_rate = commits > 1 ? (commits - 1) / ((t_c_last - t_c_first) / 1e9) : 0;
	r->cpu_us = cpu / n / 1e3;
	r->ioctls = ioctls / n;
	r->ioctl_ns = ioctl_ns / n;
	r->frames = (int)n;
	for (int kk = 0; kk < 6; kk++)
		r->kind_per_frame[kk] = kinds[kk] / n;
	r->client_cpu_us = client_cpu_us(dir, name, r->frames_all);
	fd->runs++;
}

int kind_index(const struct jline *l, const char *name)
{
	for (int i = 0; i < nkinds; i++)
		if (!strcmp(kind_names[i], name))
			return i;
	if (nkinds == MAX_KINDS || strlen(name) >= sizeof(kind_names[0]))
		die("%s:%ld: unexpected syncobj kind \"%s\"", l->path, l->no, name);
	snprintf(kind_names[nkinds], sizeof(kind_names[0]), "%s", name);
	return nkinds++;
}

/* For each member "kind":N or "kind":[N,...] of the object "key": out[kind]
 * += N (the call count, for common/syncobj.c's arrays) or = N when assign. */
void add_kinds(const struct jline *l, const char *key, double *out, bool assign)
{
	char obj[1024], name[32];
	jobject(l, key, obj, sizeof(obj));
	struct jline inner = { .path = l->path, .no = l->no, .text = obj };
	for (const char *p = obj; (p = strchr(p, '"'));) {
		size_t n = strcspn(++p, "\"");
		if (n >= sizeof(name) || p[n] != '"')
			die("%s:%ld: malformed \"%s\"", l->path, l->no, key);
		memcpy(name, p, n);
		name[n] = 0;
		const char *v = jneed(&inner, name);
		double x = jnum_at(&inner, name, v + (*v == '['));
		int k = kind_index(l, name);
		out[k] = assign ? x : out[k] + x;
		p = strpbrk(v, ",]");
		if (p && *p == ']')
			p++;
		if (!p)
			break;
	}
}

/* The timeouts (the fourth number) of "timeline_wait":[calls,ns,errors,
 * timeouts] in a frame line's "syncobj", 0 when the frame made none. */
static double wait_timeouts(const struct jline *l)
{
	const char *p = jneed(l, "syncobj");
	const char *tw = strstr(p, "\"timeline_wait\":[");
	const char *end = strchr(p, '}');
	if (!tw || (end && tw > end))
		return 0;
	tw += strlen("\"timeline_wait\":[");
	for (int i = 0; i < 3; i++) {
		tw = strchr(tw, ',');
		if (!tw || (end && tw > end))
			die("%s:%ld: malformed \"timeline_wait\"", l->path, l->no);
		tw++;
	}
	return jnum_at(l, "timeline_wait", tw);
}

void read_window_lines(const char *path, long long t0, long long t1, struct window_lines *w)
{
	struct jreader jr;
	const struct jline *l = &jr.l;
	char type[32];
	*w = (struct window_lines){ 0 };
	jreader_open(&jr, path, true);
	while (jreader_next(&jr)) {
		jstr(l, "type", type, sizeof(type));
		bool is_frame = !strcmp(type, "frame");
		if (!is_frame && strcmp(type, "commit"))
			continue;
		long long t = (long long)jnum(l, "t_ns");
		if (t < t0 || t >= t1)
			continue;
		if (!is_frame) {
			w->commits++;
			w->waited += jbool(l, "waited");
			continue;
		}
		w->presented += jbool(l, "presented");
		add_kinds(l, "syncobj", w->calls, false);
		w->wait_timeouts += wait_timeouts(l);
	}
	jreader_close(&jr);
}

/* One offload run: the client's summary, then the compositor's frame and
 * commit lines inside the client's measured window. */
static void read_offload(const char *dir, const char *name, int kernel, int sync, int round)
{
	struct offload_series *os = &offload[kernel][sync];
	char path[4096], spath[4096], got[16];
	size_t prefix = strlen(name) - strlen("client.jsonl");
	format_fit(path, sizeof(path), "%s/%s", dir, name);
	format_fit(spath, sizeof(spath), "%s/%.*ssyncway.jsonl", dir, (int)prefix, name);
	if (os->runs == MAX_RUNS)
		die("%s: more than %d offload runs", path, MAX_RUNS);
	struct offload_run *r = &os->run[os->runs];
	memset(r, 0, sizeof(*r));
	r->round = round;

	struct jreader jr;
	const struct jline *l = &jr.l;
	jreader_open(&jr, path, true);
	double calls[MAX_KINDS] = { 0 }, handles[MAX_KINDS] = { 0 }, frames = 0;
	long long t0 = 0, t1 = 0;
	while (jreader_next(&jr)) {
		jstr(l, "sync", got, sizeof(got));
		if (strcmp(got, syncs[sync]))
			die("%s:%ld: \"sync\" is \"%s\", the file name says \"%s\"", path, l->no, got,
			    syncs[sync]);
		frames = jnum(l, "frames");
		t0 = (long long)jnum(l, "window_start_ns");
		t1 = (long long)jnum(l, "window_end_ns");
		if (frames < 1 || t1 <= t0)
			die("%s:%ld: an empty window", path, l->no);
		r->fps = jnum(l, "fps");
		r->busy = jnum(l, "busy_ns_per_frame");
		r->idle = jnum(l, "idle_ns") / (double)(t1 - t0);
		r->cpu_user = jnum(l, "cpu_user_ns") / frames;
		r->cpu_sys = jnum(l, "cpu_sys_ns") / frames;
		add_kinds(l, "syncobj", calls, false);
		add_kinds(l, "handles_per_call", handles, true);
	}
	jreader_close(&jr);
	if (!frames)
		die("%s: no summary line", path);

	struct window_lines w;
	read_window_lines(spath, t0, t1, &w);
	for (int k = 0; k < MAX_KINDS; k++) {
		r->client_calls[k] = calls[k] / frames;
		r->comp_calls[k] = w.calls[k] / frames;
		r->handles[k] = (unsigned)handles[k];
	}
	r->output_fps = w.presented / ((double)(t1 - t0) / 1e9);
	r->commits = w.commits / frames;
	os->runs++;
}

int kernel_index(const char *path, const char *kernel)
{
	for (int k = 0; k < 2; k++)
		if (!strcmp(kernel, kernels[k]))
			return k;
	die("%s: unknown kernel \"%s\"", path, kernel);
}

/* --- icount runs outside the A/B rounds: per patch, hardened ---------------- */

/* One boot's microbenchmark: the median of each case's batches. */
struct icount_run {
	char label[8]; /* "base", "patched" or the number of the last patch applied */
	int n;
	struct {
		char name[32];
		unsigned handles;
		double median;
	} c[MAX_CASES];
};

static void read_icount_run(const char *path, const char *label, struct icount_run *run)
{
	*run = (struct icount_run){ 0 };
	snprintf(run->label, sizeof(run->label), "%s", label);
	struct jreader r;
	const struct jline *l = &r.l;
	jreader_open(&r, path, true);
	while (jreader_next(&r)) {
		char mode[16];
		jstr(l, "mode", mode, sizeof(mode));
		if (strcmp(mode, "icount"))
			die("%s:%ld: mode \"%s\", where the instruction clock is needed", path, l->no, mode);
		if (run->n == MAX_CASES)
			die("%s: more than %d cases", path, MAX_CASES);
		jstr(l, "case", run->c[run->n].name, sizeof(run->c[run->n].name));
		run->c[run->n].handles = (unsigned)jnum(l, "handles");
		run->c[run->n++].median = jnum(l, "median");
	}
	jreader_close(&r);
	if (!run->n)
		die("%s: no cases", path);
}

#define MAX_PREFIXES 32
static struct icount_run prefixes[MAX_PREFIXES];
static int nprefixes;

static void read_prefix(const char *path, const char *label)
{
	if (nprefixes == MAX_PREFIXES)
		die("%s: more than %d prefixes", path, MAX_PREFIXES);
	struct icount_run *p = &prefixes[nprefixes];
	read_icount_run(path, label, p);
	/* base first, then the prefixes in the order of the series */
	if (!strcmp(label, "base")) {
		struct icount_run t = *p;
		memmove(&prefixes[1], &prefixes[0], nprefixes * sizeof(*p));
		prefixes[0] = t;
	}
	nprefixes++;
}

static struct icount_run hardened[2][MAX_RUNS];
static int nhardened[2];

static void read_hardened(const char *path, const char *kernel)
{
	int k = kernel_index(path, kernel);
	if (nhardened[k] == MAX_RUNS)
		die("%s: more than %d boots", path, MAX_RUNS);
	read_icount_run(path, kernel, &hardened[k][nhardened[k]++]);
}

static double run_value(const struct icount_run *p, const char *name, unsigned handles)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->c[i].name, name) && p->c[i].handles == handles)
			return p->c[i].median;
	return NAN;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_raw(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		die("%s: %s", dir, strerror(errno));
	struct dirent *e;
	/* sorted order, so that pooled samples do not depend on readdir */
	char *names[1024];
	int nn = 0;
	while ((e = readdir(d))) {
		if (nn == 1024)
			die("%s: more than 1024 files", dir);
		if (!(names[nn++] = strdup(e->d_name)))
			die("out of memory");
	}
	closedir(d);
	qsort(names, nn, sizeof(char *), cmp_names);
	for (int i = 0; i < nn; i++) {
		char mode[16], kernel[16], path[4096];
		char sync[16];
		int round, len = -1, flen = -1, olen = -1;
		const char *nm = names[i];
		int whole = (int)strlen(nm);
		format_fit(path, sizeof(path), "%s/%s", dir, nm);
		/* %n is reached only when the whole pattern, suffix included, matched. */
		sscanf(nm, "micro-%15[a-z]-%15[a-z]-r%d.jsonl%n", mode, kernel, &round, &len);
		sscanf(nm, "frame-wall-%15[a-z]-r%d.jsonl%n", kernel, &round, &flen);
		sscanf(nm, "offload-icount-%15[a-z]-r%d-%15[a-z]-client.jsonl%n", kernel, &round, sync,
		       &olen);
		char label[8];
		int plen = -1;
		sscanf(nm, "prefix-icount-%7[a-z0-9].jsonl%n", label, &plen);
		int hlen = -1, vlen = -1;
		sscanf(nm, "hardened-icount-%15[a-z]-r%d.jsonl%n", kernel, &round, &hlen);
		sscanf(nm, "virgl-icount-%15[a-z]-r%d-window.jsonl%n", kernel, &round, &vlen);
		if (plen == whole) {
			read_prefix(path, label);
		} else if (hlen == whole) {
			read_hardened(path, kernel);
		} else if (vlen == whole) {
			virgl_read(dir, nm, kernel_index(path, kernel), round);
		} else if (len == whole) {
			int m = !strcmp(mode, "icount") ? ICOUNT : !strcmp(mode, "wall") ? WALL : -1;
			if (m < 0)
				die("%s: unknown mode \"%s\"", path, mode);
			read_micro(path, m, kernel_index(path, kernel), round);
		} else if (flen == whole) {
			read_frame(dir, nm, kernel_index(path, kernel));
		} else if (olen == whole) {
			int sy = !strcmp(sync, "explicit") ? SYNC_EXPLICIT : !strcmp(sync, "none") ? SYNC_NONE : -1;
			if (sy < 0)
				die("%s: unknown sync mode \"%s\"", path, sync);
			read_offload(dir, nm, kernel_index(path, kernel), sy, round);
		}
		free(names[i]);
	}
	for (int i = 0; i < ncases; i++)
		for (int m = 0; m < 2; m++)
			for (int k = 0; k < 2; k++)
				stats_sort(cases[i].s[m][k].pooled.v, cases[i].s[m][k].pooled.n);
	for (int k = 0; k < 2; k++) {
		stats_sort(frames[k].windows.v, frames[k].windows.n);
		stats_sort(frames[k].commit_windows.v, frames[k].commit_windows.n);
	}
}

/* kmalloc counts: allocs per call for (ioctl, count), NaN when the file or
 * the line is missing (the counts are only taken on some runs). */
static double kmalloc_allocs(const char *dir, int kernel, const char *case_name, unsigned handles)
{
	char path[4096], up[32], ioctl_name[32];
	format_fit(path, sizeof(path), "%s/kmalloc-%s.json", dir, kernels[kernel]);
	struct jreader r;
	const struct jline *l = &r.l;
	if (!jreader_open(&r, path, false))
		return NAN;
	size_t i;
	for (i = 0; case_name[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)(case_name[i] >= 'a' && case_name[i] <= 'z' ? case_name[i] - 32 : case_name[i]);
	up[i] = 0;
	double v = NAN;
	while (jreader_next(&r)) {
		jstr(l, "ioctl", ioctl_name, sizeof(ioctl_name));
		if (!strcmp(ioctl_name, up) && jnum(l, "count") == handles) {
			v = jnum(l, "allocs");
			break;
		}
	}
	jreader_close(&r);
	return v;
}

void write_values(const char *path, const double *v, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.6g\n", v[i]);
	fclose(f);
}

/* Appends syncway-ministat's output for two data files to md, as a code block. */
void ministat_block(const struct report *r, const char *args)
{
	char cmd[8192], buf[512];
	format_fit(cmd, sizeof(cmd), "%s %s 2>&1", r->ministat, args);
	FILE *p = popen(cmd, "r");
	if (!p)
		die("could not run %s: %s", r->ministat, strerror(errno));
	fputs("```\n", r->md);
	while (fgets(buf, sizeof(buf), p))
		fputs(buf, r->md);
	fputs("```\n", r->md);
	/* Its complaints (too few values, say) are in the block, for the reader. */
	pclose(p);
}

/* Batches (or windows) of one boot are correlated: these numbers describe
 * the precision within boots and never decide a verdict. */
struct within_boot {
	double med_b, med_p, p99_b, p99_p;
	struct stats_interval boot;	/* bootstrap CI of median(patched) − median(base) */
	struct stats_interval hl;	/* Hodges–Lehmann shift; NaN past its pair limit */
};

static void within_boot(const struct stats_sample *b, const struct stats_sample *p,
			struct stats_rng *rng, struct within_boot *w)
{
	w->med_b = stats_median(b->v, b->n);
	w->med_p = stats_median(p->v, p->n);
	w->p99_b = stats_percentile(b->v, b->n, 99);
	w->p99_p = stats_percentile(p->v, p->n, 99);
	if (stats_bootstrap_median_diff(b->v, b->n, p->v, p->n, BOOTSTRAP_B, CONF, rng, &w->boot) < 0)
		die("bootstrap failed (out of memory)");
	if (stats_hodges_lehmann(b->v, b->n, p->v, p->n, CONF, &w->hl) < 0)
		w->hl.estimate = w->hl.lo = w->hl.hi = NAN;
}

static void fmt_shift(char *out, size_t len, const struct stats_interval *in)
{
	if (isnan(in->estimate))
		snprintf(out, len, "–");
	else
		snprintf(out, len, "%+.1f [%+.1f, %+.1f]", in->estimate, in->lo, in->hi);
}

void fmt_rel_ci(char *out, size_t len, const struct stats_boot_verdict *v)
{
	if (isnan(v->rel_lo))
		snprintf(out, len, "%+.2f %%", 100 * v->rel);
	else
		snprintf(out, len, "%+.2f %% [%+.2f, %+.2f]", 100 * v->rel, 100 * v->rel_lo,
			 100 * v->rel_hi);
}

/* The boots needed at the verdict's cv, and beside it the cv the values
 * would have divided by the same boot's floor (NaN: none), which shows
 * whether that division would have helped. */
static void fmt_boots_needed(char *out, size_t len, const struct stats_boot_verdict *v,
			     double floor_cv)
{
	int n = isnan(v->cv) ? -EDOM : stats_boots_needed(v->cv, DETECT_EFFECT, 0.05);
	if (n < 0)
		snprintf(out, len, "–");
	else if (isnan(floor_cv))
		snprintf(out, len, "%d (cv %.1f %%)", n, 100 * v->cv);
	else
		snprintf(out, len, "%d (cv %.1f %%; /floor %.1f %%)", n, 100 * v->cv, 100 * floor_cv);
}

static void write_meta(const struct report *r)
{
	FILE *md = r->md;
	fprintf(md, "# A/B benchmark: drm_syncobj series, base vs patched\n\n");
	fprintf(md, "Generated by `tools/report` (`bench/ab-report.c`); how to read it: "
		    "[docs/bench.md](../bench.md). Nothing here is edited by hand.\n\n");
	fprintf(md, "| | |\n|---|---|\n");
	fprintf(md, "| date | %s |\n", meta("date"));
	fprintf(md, "| machine | %s CPUs, %s, host kernel %s |\n", meta("nproc"), meta("cpu"),
		meta("host_kernel"));
	fprintf(md, "| load average (1/5/15 min) | start %s, end %s (per boot: raw/host-loadavg.txt) |\n",
		meta("loadavg_start"), meta("loadavg_end"));
	fprintf(md, "| base kernel | `%s` (%s) |\n", meta("release_base"), meta("kdir_base"));
	fprintf(md, "| patched kernel | `%s` (%s) |\n", meta("release_patched"), meta("kdir_patched"));
	fprintf(md, "| emulator | %s, TCG, 1 vCPU |\n", meta("qemu"));
	fprintf(md, "| command | `%s` |\n", meta("command"));
	fprintf(md, "| frame client | `%s` |\n", meta("client"));
	fprintf(md, "| tree | %s |\n", meta("git"));
	fprintf(md, "| elapsed | %s s |\n\n", meta("elapsed_s"));
	fprintf(md, "Guest commands per boot: `tools/vm-run -q -k KERNEL [--icount] -- sh bench/guest-ab.sh "
		    "MODE KERNEL ROUND /results/raw`, kernels alternating base, patched, base, ... "
		    "(icount rounds first, then the virgl rounds with `--icount --gpu virgl`, then "
		    "wall-clock rounds).\n\n");
}

/* One value per boot of c in mode m on kernel k, in boot order: the median of
 * the boot's batches, divided by the floor's median of the same boot when
 * per_floor (a descriptive ratio: see micro_verdicts() for why verdicts do
 * not divide). */
static int boot_values(const struct micro_case *c, int m, int k, bool per_floor, double *out)
{
	const struct series *s = &c->s[m][k], *f = NULL;
	if (per_floor) {
		const struct micro_case *fc = floor_case();
		if (!fc)
			die("%s mode: no floor case to divide %s/%u by", modes[m], c->name, c->handles);
		f = &fc->s[m][k];
	}
	for (int i = 0; i < s->runs; i++) {
		out[i] = s->run_median[i];
		if (!f)
			continue;
		int j = 0;
		while (j < f->runs && f->run_round[j] != s->run_round[i])
			j++;
		if (j == f->runs)
			die("%s mode, %s round %d: %s/%u has no floor in the same boot", modes[m],
			    kernels[k], s->run_round[i], c->name, c->handles);
		out[i] /= f->run_median[j];
	}
	return s->runs;
}

static bool has_mode(const struct micro_case *c, int m)
{
	return c->s[m][0].runs && c->s[m][1].runs;
}

static bool is_control(const struct micro_case *c)
{
	return !strcmp(c->name, "floor") || !strcmp(c->name, "eventfd") ||
	       !strcmp(c->name, "transfer");
}

/* The case's per-boot verdicts of mode m, Holm-adjusted across the cases
 * that are tested; v[i] belongs to cases[i]. The values are not divided by
 * the same boot's floor: that would cancel a slow or fast boot state, but in
 * wall mode the floor's own time differs between the two kernel builds at
 * an identical instruction count (docs/bench.md), and the division carried
 * that into every case, the controls included. */
static void micro_verdicts(int m, struct stats_boot_verdict *v)
{
	struct stats_boot_verdict family[MAX_CASES];
	int index[MAX_CASES], nf = 0;
	for (int i = 0; i < ncases; i++) {
		const struct micro_case *c = &cases[i];
		if (!has_mode(c, m))
			continue;
		double b[MAX_RUNS], p[MAX_RUNS];
		int nb = boot_values(c, m, 0, false, b), np = boot_values(c, m, 1, false, p);
		int ret = stats_boot_compare(b, nb, p, np, m == WALL ? STATS_BOOT_TEST : STATS_BOOT_SPREAD,
					     &family[nf]);
		if (ret < 0)
			die("%s mode, %s/%u: per-boot comparison failed: %s", modes[m], c->name,
			    c->handles, strerror(-ret));
		index[nf++] = i;
	}
	if (stats_boot_holm(family, nf) < 0)
		die("out of memory");
	for (int j = 0; j < nf; j++)
		v[index[j]] = family[j];
}

/* The median of n per-boot values (n ≤ MAX_RUNS), leaving them as they are. */
double median_of(const double *v, int n)
{
	double tmp[MAX_RUNS];
	memcpy(tmp, v, sizeof(double) * (size_t)n);
	stats_sort(tmp, (size_t)n);
	return stats_median(tmp, (size_t)n);
}

/* The icount cost per call of kind with handles on kernel k: the median of
 * the case's per-boot medians; NaN when the microbenchmark has no such case. */
double icount_cost(const char *kind, unsigned handles, int k)
{
	for (int i = 0; i < ncases; i++) {
		const struct micro_case *c = &cases[i];
		if (!strcmp(c->name, kind) && c->handles == handles && has_mode(c, ICOUNT))
			return median_of(c->s[ICOUNT][k].run_median, c->s[ICOUNT][k].runs);
	}
	return NAN;
}

/* The median over boots of the case's median divided by the same boot's
 * floor median; NaN without a floor. */
static double floor_ratio(const struct micro_case *c, int m, int k)
{
	double v[MAX_RUNS];
	if (!floor_case())
		return NAN;
	return median_of(v, boot_values(c, m, k, true, v));
}

/* "name/handles on kernel" of cases[i], or "–" when there is no case (i < 0). */
static void write_case_on(FILE *f, int i, int k)
{
	if (i < 0)
		fputs("–", f);
	else
		fprintf(f, "%s/%u on %s", cases[i].name, cases[i].handles, kernels[k]);
}

/* The instruction clock's repeatability, per class of case. A call that
 * allocates per handle (SIGNAL's and TIMELINE_SIGNAL's fences and chains at
 * every count, every ioctl's arrays past SMALL_HANDLES) carries the slab
 * allocator's state, which differs from boot to boot: trusted to 2 %; the
 * others to 0.5 %. */
#define SMALL_HANDLES 8
static bool allocates_per_handle(const struct micro_case *c)
{
	return c->handles > SMALL_HANDLES || !strcmp(c->name, "signal") ||
	       !strcmp(c->name, "timeline_signal");
}

static const struct {
	const char *what;
	bool per_handle;
	double trusted;	/* % */
} repeat_classes[] = {
	{ "Cases without an allocation per handle", false, 0.5 },
	{ "Cases with an allocation per handle on every call (SIGNAL and TIMELINE_SIGNAL, and "
	  "every array over 8 handles: the slab allocator's state, which differs between boots, "
	  "shows in the count)", true, 2.0 },
};

static void write_icount_repeatability(FILE *md, const struct stats_boot_verdict *v)
{
	fprintf(md, "### Repeatability under icount\n\n"
		    "Spread of the per-boot medians of each case on the same kernel, "
		    "(max − min) / median.\n\n");
	for (size_t rc = 0; rc < sizeof(repeat_classes) / sizeof(repeat_classes[0]); rc++) {
		double worst = 0, trusted = repeat_classes[rc].trusted;
		int over = 0, total = 0, worst_i = -1, worst_k = 0;
		for (int i = 0; i < ncases; i++) {
			if (!has_mode(&cases[i], ICOUNT) ||
			    allocates_per_handle(&cases[i]) != repeat_classes[rc].per_handle)
				continue;
			for (int k = 0; k < 2; k++) {
				if ((k ? v[i].n : v[i].n_ref) < 2)
					continue;
				double spread = 100 * (k ? v[i].spread / v[i].median :
							   v[i].spread_ref / v[i].median_ref);
				total++;
				over += spread > trusted;
				if (spread > worst) {
					worst = spread;
					worst_i = i;
					worst_k = k;
				}
			}
		}
		fprintf(md, "- %s, trusted to %g %%: %d case×kernel pairs with ≥ 2 boots; %d over %g %%; "
			    "largest spread %.3f %% (", repeat_classes[rc].what, trusted, total, over,
			trusted, worst);
		write_case_on(md, worst_i, worst_k);
		fputs(").\n", md);
		printf("icount repeatability (%s): %d of %d case/kernel pairs over %g %%, worst "
		       "%.3f %% (", repeat_classes[rc].per_handle ? "per-handle allocations" : "no per-handle allocation", over, total, trusted,
		       worst);
		write_case_on(stdout, worst_i, worst_k);
		puts(")");
	}
	fputc('\n', md);
}

/* The controls with a difference proven in mode m: their number, and when f
 * is not NULL, the list "name (verdict), ..." written to f. */
static int differing_controls(FILE *f, int m, const struct stats_boot_verdict *v)
{
	int n = 0;
	for (int i = 0; i < ncases; i++) {
		if (!has_mode(&cases[i], m) || !is_control(&cases[i]) ||
		    !v[i].proven)
			continue;
		if (f)
			fprintf(f, "%s%s (%s)", n ? ", " : "", cases[i].name, v[i].verdict);
		n++;
	}
	return n;
}

/* Why a case that the instruction clock shows to differ is not proven in
 * wall mode: the boots a side that the mode's per-boot spread would need to
 * prove the change icount measures, at the level of Holm's first step. */
static void write_wall_unproven(FILE *md, const struct stats_boot_verdict *wall, int tested)
{
	struct stats_boot_verdict icount[MAX_CASES];
	int listed = 0;
	micro_verdicts(ICOUNT, icount);
	for (int i = 0; i < ncases; i++) {
		const struct stats_boot_verdict *w = &wall[i];
		if (!has_mode(&cases[i], ICOUNT) || !has_mode(&cases[i], WALL) || !icount[i].proven ||
		    !w->tested || w->proven)
			continue;
		if (!listed++)
			fprintf(md, "**Not proven in this mode although the instruction clock measures a "
				    "difference**, with the boots a side this mode's per-boot spread would "
				    "need to prove the icount change at the level of Holm's first step "
				    "(0.05 / %d) with 80 %% power:\n\n", tested);
		char rel[64], needed[32] = "–";
		int n = isnan(w->cv) ? -EDOM : stats_boots_needed(w->cv, fabs(icount[i].rel), 0.05 / tested);
		if (n > 0)
			snprintf(needed, sizeof(needed), "%d", n);
		fmt_rel_ci(rel, sizeof(rel), w);
		fprintf(md, "- %s/%u: icount %+.2f %%, here %s, per-boot cv %.1f %%: %s boots\n",
			cases[i].name, cases[i].handles, 100 * icount[i].rel, rel, 100 * w->cv, needed);
	}
	if (listed)
		fputc('\n', md);
}

static void write_micro_mode(struct report *r, int m)
{
	FILE *md = r->md;
	struct stats_boot_verdict v[MAX_CASES];
	micro_verdicts(m, v);

	fprintf(md, "## Per-ioctl cost, %s mode\n\n", modes[m]);
	if (m == ICOUNT)
		fprintf(md, "Guest nanoseconds under `-icount shift=0`: **instructions per call** (user + "
			    "kernel). Median and p99 over all batches of all boots (each batch = the mean "
			    "of many back-to-back calls); /floor: the median over boots of the case's "
			    "median divided by the floor's in the same boot. **Verdict** from the per-boot "
			    "medians, which the instruction clock repeats: Δ = median(patched) − "
			    "median(base) is called a difference when |Δ| > 3 × the larger spread (max − min "
			    "of one kernel's per-boot medians); *exact* when both spreads are 0.\n\n");
	else
		fprintf(md, "Wall-clock nanoseconds per call in the TCG guest (emulation noise and the "
			    "load of the shared host included); columns as in icount mode. **Verdict** "
			    "from each boot's median, not divided by the floor's (the floor's own time differs "
			    "between the two kernel builds; see its row): Welch's t on their logarithms gives the relative "
			    "Δ and its 95 %% CI, the exact permutation test on the same values gives p, "
			    "Holm-adjusted across this table; a difference needs a CI that excludes 0 and "
			    "an adjusted p < 0.05, with ≥ %d boots a side. *Boots for ±%.0f %%*: boots per "
			    "kernel for 80 %% power at that difference, from the pooled per-boot cv of "
			    "the values tested (and, beside it, of the values divided by the same boot's "
			    "floor, which shows whether that division would have helped).\n\n",
			STATS_MIN_BOOTS, 100 * DETECT_EFFECT);
	fprintf(md, "The last two columns pool the batches of all boots: they show the precision "
		    "*within* boots (batches of one boot are correlated) and decide nothing.\n\n");
	if (m == ICOUNT)
		fprintf(md, "| ioctl | handles | base median | base p99 | base /floor | patched median | "
			    "patched p99 | patched /floor | per-boot Δ median | spread base / patched | "
			    "verdict | within-boot Δ median [95 %% bootstrap] | within-boot HL shift "
			    "[95 %%] | kmallocs/call base → patched |\n"
			    "|---|--:|--:|--:|--:|--:|--:|--:|---|---|---|---|---|---|\n");
	else
		fprintf(md, "| ioctl | handles | base median | base p99 | base /floor | patched median | "
			    "patched p99 | patched /floor | Δ [95 %% CI] | p (permutation) | "
			    "p (Holm) | boots for ±%.0f %% | verdict | within-boot Δ median [95 %% "
			    "bootstrap] | within-boot HL shift [95 %%] | kmallocs/call base → patched |\n"
			    "|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|---|---|---|---|\n",
			100 * DETECT_EFFECT);
	int tested = 0;
	size_t min_boots = MAX_RUNS;
	for (int i = 0; i < ncases; i++) {
		struct micro_case *c = &cases[i];
		if (!has_mode(c, m))
			continue;
		struct within_boot w;
		within_boot(&c->s[m][0].pooled, &c->s[m][1].pooled, &r->rng, &w);
		char boot[64], hl[64], km[64] = "–";
		fmt_shift(boot, sizeof(boot), &w.boot);
		fmt_shift(hl, sizeof(hl), &w.hl);
		if (r->kdir) {
			double kb = kmalloc_allocs(r->kdir, 0, c->name, c->handles);
			double kp = kmalloc_allocs(r->kdir, 1, c->name, c->handles);
			if (!isnan(kb) || !isnan(kp))
				snprintf(km, sizeof(km), "%.2g → %.2g", kb, kp);
		}
		fprintf(md, "| %s | %u | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | ", c->name, c->handles,
			w.med_b, w.p99_b, floor_ratio(c, m, 0), w.med_p, w.p99_p, floor_ratio(c, m, 1));
		const struct stats_boot_verdict *cv = &v[i];
		char p[32], p_adj[32], rel[64], needed[64];
		if (m == ICOUNT)
			fprintf(md, "%+.1f (%+.2f %%) | %.3g / %.3g | %s | ", cv->diff, 100 * cv->rel,
				cv->spread_ref, cv->spread, cv->verdict);
		else {
			double ub[MAX_RUNS], up[MAX_RUNS];
			int nb = boot_values(c, m, 0, true, ub), np = boot_values(c, m, 1, true, up);
			fmt_rel_ci(rel, sizeof(rel), cv);
			/* The floor divided by itself says nothing. */
			fmt_boots_needed(needed, sizeof(needed), cv,
					 strcmp(c->name, "floor") ? stats_pooled_log_sd(ub, nb, up, np) : NAN);
			fprintf(md, "%s | %s | %s | %s | %s | ", rel,
				stats_format_p(p, sizeof(p), cv->p, cv->exact),
				stats_format_p(p_adj, sizeof(p_adj), cv->p_adj, cv->exact), needed,
				cv->verdict);
		}
		fprintf(md, "%s | %s | %s |\n", boot, hl, km);
		if (cv->tested)
			tested++;
		min_boots = cv->n_ref < min_boots ? cv->n_ref : min_boots;
		min_boots = cv->n < min_boots ? cv->n : min_boots;
	}
	fputc('\n', md);
	if (m == WALL && tested) {
		double best = stats_permutation_min_p(min_boots, min_boots);
		fprintf(md, "With %zu boots a side the permutation p is at least %.3g; Holm across the "
			    "%d tested cases multiplies the smallest by %d: %.3g%s.\n\n",
			min_boots, best, tested, tested, fmin(1, best * tested),
			best * tested < 0.05 ? "" : ", so no case can be proven with this many boots");
		write_wall_unproven(md, v, tested);
	}
	if (differing_controls(NULL, m, v)) {
		fputs("**Warning: controls the series does not touch differ in this mode: ", md);
		differing_controls(md, m, v);
		double worst = 0;
		for (int i = 0; i < ncases; i++)
			if (has_mode(&cases[i], m) && is_control(&cases[i]) && v[i].proven)
				worst = fmax(worst, fabs(v[i].rel));
		fprintf(md, ".** That is the size of the systematic error of this mode on this run (host "
			    "load, boot order, emulation of two differently laid out kernels); a difference "
			    "of another case within ±%.1f %% cannot be told apart from it.\n\n",
			100 * worst);
		printf("%s mode: controls differ (", modes[m]);
		differing_controls(stdout, m, v);
		puts("): that mode's verdicts are suspect");
	} else {
		fprintf(md, "Controls (%s): no difference proven, as expected.\n\n",
			"floor, eventfd, transfer");
	}
	if (m == ICOUNT)
		write_icount_repeatability(md, v);
}

/* Rows of the per-patch and hardened tables: the floor, one handle, the
 * largest count the fast paths take, the first they do not, and the
 * largest measured. */
static bool table_row(unsigned handles)
{
	static const unsigned shown[] = { 0, 1, 4, 5, 64 };
	for (size_t j = 0; j < sizeof(shown) / sizeof(*shown); j++)
		if (shown[j] == handles)
			return true;
	return false;
}

static void write_per_patch(struct report *r)
{
	FILE *md = r->md;
	fprintf(md, "## Instructions per call after each patch\n\n");
	if (!nprefixes) {
		fprintf(md, "Not measured in this run (`tools/report --per-patch`, the default without "
			    "`--quick`, boots base and the kernel of every prefix of the series under the "
			    "instruction clock).\n\n");
		return;
	}
	if (strcmp(prefixes[0].label, "base"))
		die("prefix-icount-base.jsonl is missing: the per-patch table starts at base");
	fprintf(md, "One boot per kernel under the instruction clock: base, then base with the "
		    "patches up to each number applied (the kernels `tools/build-prefixes` builds, "
		    "base's configuration). Each cell is the median instructions per call of the "
		    "batches, and in parentheses its change from the cell to its left: what that "
		    "patch did to the case. `floor` (an ioctl refused with EINVAL at once), `eventfd` and "
		    "`transfer` are controls no patch touches.\n\n| ioctl | handles |");
	for (int i = 0; i < nprefixes; i++)
		fprintf(md, " %s |", prefixes[i].label);
	fprintf(md, " all patches |\n|---|--:|");
	for (int i = 0; i <= nprefixes; i++)
		fprintf(md, "--:|");
	fprintf(md, "\n");
	const struct icount_run *b = &prefixes[0];
	for (int c = 0; c < b->n; c++) {
		const char *name = b->c[c].name;
		unsigned h = b->c[c].handles;
		if (!table_row(h))
			continue;
		fprintf(md, "| %s | %u | %.0f |", name, h, b->c[c].median);
		double prev = b->c[c].median, last = prev;
		for (int i = 1; i < nprefixes; i++) {
			double v = run_value(&prefixes[i], name, h);
			if (isnan(v)) {
				fprintf(md, " – |");
				continue;
			}
			fprintf(md, " %.0f (%+.1f %%) |", v, 100.0 * (v / prev - 1.0));
			prev = last = v;
		}
		fprintf(md, " %+.1f %% |\n", 100.0 * (last / b->c[c].median - 1.0));
	}
	fprintf(md, "\n");
}

/* The median over boots of a case on a hardened kernel, and its range
 * across those boots relative to that median (NaN when a boot lacks it). */
static double hardened_value(int k, const char *name, unsigned handles, double *range)
{
	double v[MAX_RUNS];
	for (int i = 0; i < nhardened[k]; i++)
		if (isnan(v[i] = run_value(&hardened[k][i], name, handles)))
			return NAN;
	double med = median_of(v, nhardened[k]);
	stats_sort(v, (size_t)nhardened[k]);
	*range = (v[nhardened[k] - 1] - v[0]) / med;
	return med;
}

static void write_vulnerabilities(const struct report *r, const char *kernel)
{
	char path[4096], line[512];
	format_fit(path, sizeof(path), "%s/hardened-vulnerabilities-%s.txt", r->raw, kernel);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(r->md, "What the %s kernel mitigated was not recorded (%s: %s).\n\n", kernel,
			path, strerror(errno));
		return;
	}
	fprintf(r->md, "What the hardened %s kernel reported in the guest "
		    "(`/sys/devices/system/cpu/vulnerabilities`, QEMU's `-cpu max` under TCG; a real "
		    "CPU reports its own):\n\n```\n", kernel);
	static const char dir[] = "/sys/devices/system/cpu/vulnerabilities/";
	while (fgets(line, sizeof(line), f))
		fputs(line + (strncmp(line, dir, sizeof(dir) - 1) ? 0 : sizeof(dir) - 1), r->md);
	fprintf(r->md, "```\n\n");
	fclose(f);
}

static void write_hardened(struct report *r)
{
	FILE *md = r->md;
	fprintf(md, "## On a hardened kernel\n\n");
	if (!nhardened[0] && !nhardened[1]) {
		fprintf(md, "Not measured in this run (`tools/report --hardened` builds base and patched "
			    "with Debian's mitigations and hardening, "
			    "`kernel-patches/config-hardened.fragment`, and measures them under the "
			    "instruction clock).\n\n");
		return;
	}
	for (int k = 0; k < 2; k++)
		if (!nhardened[k])
			die("no hardened-icount-%s-r*.jsonl: the hardened table needs both kernels",
			    kernels[k]);
	fprintf(md, "The same microbenchmark on base and patched built with "
		    "`kernel-patches/config-hardened.fragment` on top of their configuration: the "
		    "mitigations and hardening options of Debian's amd64 kernel (stack protector, "
		    "`INIT_STACK_ALL_ZERO`, `INIT_ON_ALLOC_DEFAULT_ON`, hardened usercopy, hardened and "
		    "randomised slab freelists, retpolines and return thunks, page-table isolation, "
		    "...), under the instruction clock, %d and %d boots. Each cell is the median over "
		    "boots of the per-boot median instructions per call; randomised freelists and "
		    "page shuffling make boots differ slightly, so the largest range across the boots "
		    "of a kernel is shown. The last column is the change between the unhardened "
		    "kernels of the icount section above.\n\n",
		nhardened[0], nhardened[1]);
	fprintf(md, "| ioctl | handles | hardened base | hardened patched | Δ | range across boots | "
		    "Δ unhardened |\n|---|--:|--:|--:|--:|--:|--:|\n");
	const struct icount_run *b = &hardened[0][0];
	for (int c = 0; c < b->n; c++) {
		const char *name = b->c[c].name;
		unsigned h = b->c[c].handles;
		if (!table_row(h))
			continue;
		double rb, rp;
		double vb = hardened_value(0, name, h, &rb), vp = hardened_value(1, name, h, &rp);
		double ub = icount_cost(name, h, 0), up = icount_cost(name, h, 1);
		if (isnan(vb) || isnan(vp))
			die("hardened runs: %s/%u is missing from a boot", name, h);
		fprintf(md, "| %s | %u | %.0f | %.0f | %+.1f %% | %.1f %% |", name, h, vb, vp,
			100.0 * (vp / vb - 1.0), 100.0 * fmax(rb, rp));
		if (isnan(ub) || isnan(up))
			fprintf(md, " – |\n");
		else
			fprintf(md, " %+.1f %% |\n", 100.0 * (up / ub - 1.0));
	}
	fprintf(md, "\n");
	write_vulnerabilities(r, "patched");
}

static void write_micro(struct report *r)
{
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < ncases; i++)
			if (has_mode(&cases[i], m)) {
				write_micro_mode(r, m);
				break;
			}
}

/* --- the GPU-offload frame benchmark --------------------------------------- */

static bool have_offload(int sync)
{
	return offload[0][sync].runs && offload[1][sync].runs;
}

/* One value per boot of a run field (by offset) for a kernel and sync mode. */
static int offload_values(int k, int sync, size_t field, double *out)
{
	const struct offload_series *os = &offload[k][sync];
	for (int i = 0; i < os->runs; i++)
		out[i] = *(const double *)((const char *)&os->run[i] + field);
	return os->runs;
}

/* Mean over every run of both kernels of one sync mode of a per-kind call
 * rate (client or compositor). */
static double mean_calls(int sync, int kind, bool client)
{
	double sum = 0;
	int n = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < offload[k][sync].runs; i++, n++)
			sum += client ? offload[k][sync].run[i].client_calls[kind] :
					offload[k][sync].run[i].comp_calls[kind];
	return n ? sum / n : 0;
}

double offload_model_calls(int kind, bool client)
{
	return have_offload(SYNC_EXPLICIT) ? mean_calls(SYNC_EXPLICIT, kind, client) : NAN;
}

void write_calls(FILE *md, const double *calls, double min)
{
	int n = 0;
	for (int k = 0; k < nkinds; k++)
		if (calls[k] > min)
			fprintf(md, "%s%s %.3f", n++ ? ", " : "", kind_names[k], calls[k]);
	if (!n)
		fputs("none", md);
}

static void write_offload_runs(FILE *md)
{
	fprintf(md, "| kernel | sync | boot | client frames/s | busy instr/frame | idle | output FPS | "
		    "compositor commits/frame | client CPU user + sys ns/frame | client syncobj calls/frame | "
		    "compositor syncobj calls/frame |\n|---|---|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
	for (int sync = 0; sync < 2; sync++)
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < offload[k][sync].runs; i++) {
				const struct offload_run *o = &offload[k][sync].run[i];
				fprintf(md, "| %s | %s | %d | %.2f | %.0f | %.3f %% | %.1f | %.3f | %.0f + %.0f | ",
					kernels[k], syncs[sync], o->round, o->fps, o->busy, 100 * o->idle,
					o->output_fps, o->commits, o->cpu_user, o->cpu_sys);
				write_calls(md, o->client_calls, 0);
				fputs(" | ", md);
				write_calls(md, o->comp_calls, 0);
				fputs(" |\n", md);
			}
	fputc('\n', md);
}

/* Σ over the syncobj kinds of one frame (client and compositor, explicit
 * runs) of calls × the microbenchmark's patched − base cost per call. Writes
 * its table; returns NaN when a kind with calls has no microbenchmark case. */
static double write_offload_prediction(FILE *md)
{
	double total = 0;
	fprintf(md, "| who | ioctl | handles | calls/frame | base instr/call | patched instr/call | "
		    "Δ instr/frame |\n|---|---|--:|--:|--:|--:|--:|\n");
	for (int who = 0; who < 2; who++)
		for (int kk = 0; kk < nkinds; kk++) {
			double calls = mean_calls(SYNC_EXPLICIT, kk, who == 0);
			if (calls <= 0)
				continue;
			unsigned h = who == 0 ? offload[0][SYNC_EXPLICIT].run[0].handles[kk] : 1;
			if (!h)
				h = 1;
			double cb = icount_cost(kind_names[kk], h, 0), cp = icount_cost(kind_names[kk], h, 1);
			if (isnan(cb) || isnan(cp)) {
				fprintf(md, "| %s | %s | %u | %.3f | – | – | not benchmarked |\n",
					who ? "compositor" : "client", kind_names[kk], h, calls);
				total = NAN;
				continue;
			}
			total += calls * (cp - cb);
			fprintf(md, "| %s | %s | %u | %.3f | %.0f | %.0f | %+.0f |\n",
				who ? "compositor" : "client", kind_names[kk], h, calls, cb, cp, calls * (cp - cb));
		}
	fprintf(md, "| | **total** | | | | | **%+.0f** |\n\n", total);
	return total;
}

/* The headline: client frames per guest second of the GPU-offload client,
 * base against patched, with the no-sync control, the consistency check
 * against the microbenchmark and the boots the design needs. */
static void write_offload(struct report *r)
{
	FILE *md = r->md;
	char path[4096], args[9000];
	if (!have_offload(SYNC_EXPLICIT))
		return;
	fprintf(md, "## Frame benchmark: GPU-offload client under the instruction clock\n\n"
		    "syncway headless (pixman, one 64x64 output at 60 Hz) and `syncway-offload`, a "
		    "client that renders nothing and per frame makes the syncobj calls of a Vulkan "
		    "application and Mesa's WSI in mailbox mode (docs/bench.md, *The GPU-offload "
		    "frame benchmark*), all on the guest's one vCPU under `-icount shift=0`, one run "
		    "per boot. Guest time counts instructions, so **client frames per guest second** "
		    "(the vkgears analogue: the client's own presents) is the inverse of the "
		    "instructions one frame costs, client, compositor and kernel together. *sync none*: "
		    "the same loop without any syncobj (`SYNCWAY_EXPLICIT_SYNC=0`, `--sync none`), the "
		    "control.\n\n");
	write_offload_runs(md);
	for (int k = 0; k < 2; k++)
		for (int sync = 0; sync < 2; sync++) {
			double v[MAX_RUNS];
			int n = offload_values(k, sync, offsetof(struct offload_run, fps), v);
			format_fit(path, sizeof(path), "%s/offload-fps-%s-%s.txt", r->datadir, syncs[sync],
				 kernels[k]);
			write_values(path, v, (size_t)n);
		}
	fprintf(md, "### Client frames per guest second, explicit sync, ministat form (x base, + patched; "
		    "one value per boot)\n\n");
	format_fit(args, sizeof(args), "-w 72 %s/offload-fps-explicit-base.txt %s/offload-fps-explicit-patched.txt",
		 r->datadir, r->datadir);
	ministat_block(r, args);

	/* Verdicts: the instruction clock's spread rule on the per-boot values,
	 * and beside it the test the wall-clock numbers get, which needs more
	 * boots but no assumption that the clock repeats. */
	struct stats_boot_verdict v[2], t[2];
	double busy_med[2][2];
	for (int sync = 0; sync < 2; sync++) {
		double b[MAX_RUNS], p[MAX_RUNS];
		if (!have_offload(sync))
			continue;
		int nb = offload_values(0, sync, offsetof(struct offload_run, fps), b);
		int np = offload_values(1, sync, offsetof(struct offload_run, fps), p);
		int ret = stats_boot_compare(b, (size_t)nb, p, (size_t)np, STATS_BOOT_SPREAD, &v[sync]);
		if (ret < 0)
			die("offload %s: per-boot comparison failed: %s", syncs[sync], strerror(-ret));
		v[sync].cv = stats_pooled_log_sd(b, (size_t)nb, p, (size_t)np);
		ret = stats_boot_compare(b, (size_t)nb, p, (size_t)np, STATS_BOOT_TEST, &t[sync]);
		if (ret < 0 || (ret = stats_boot_holm(&t[sync], 1)) < 0)
			die("offload %s: per-boot test failed: %s", syncs[sync], strerror(-ret));
		for (int k = 0; k < 2; k++) {
			double x[MAX_RUNS];
			int n = offload_values(k, sync, offsetof(struct offload_run, busy), x);
			busy_med[sync][k] = median_of(x, n);
		}
	}
	double measured = busy_med[SYNC_EXPLICIT][1] - busy_med[SYNC_EXPLICIT][0];
	double control = have_offload(SYNC_NONE) ? busy_med[SYNC_NONE][1] - busy_med[SYNC_NONE][0] : NAN;
	double did = measured - control;

	fprintf(md, "\n| | boots base / patched | base median | patched median | Δ | spread base / patched "
		    "| verdict (spread rule) | Welch on logs [95 %% CI], permutation p | verdict (test) |\n"
		    "|---|--:|--:|--:|--:|--:|---|---|---|\n");
	for (int sync = 0; sync < 2; sync++) {
		char rel[64], p[32];
		if (!have_offload(sync))
			continue;
		fmt_rel_ci(rel, sizeof(rel), &t[sync]);
		fprintf(md, "| client frames/s, %s | %zu / %zu | %.2f | %.2f | %+.2f (%+.3f %%) | %.3g / %.3g | "
			    "**%s** | %s, p = %s | %s |\n",
			sync == SYNC_EXPLICIT ? "explicit sync" : "no sync (control)", v[sync].n_ref,
			v[sync].n, v[sync].median_ref, v[sync].median, v[sync].diff, 100 * v[sync].rel,
			v[sync].spread_ref, v[sync].spread, v[sync].verdict, rel,
			stats_format_p(p, sizeof(p), t[sync].p, t[sync].exact), t[sync].verdict);
	}
	fprintf(md, "\nThe spread rule, as for the per-ioctl costs under icount, calls a difference when "
		    "|Δ| > 3 × the larger spread (max − min of one kernel's per-boot values). The test, "
		    "as for wall-clock numbers, needs a Welch interval that excludes 0 and a permutation "
		    "p < 0.05, with ≥ %d boots a side.\n\n", STATS_MIN_BOOTS);
	fprintf(md, "Busy instructions per client frame (median over boots): explicit sync %.0f on base, "
		    "%.0f on patched (%+.0f); no sync %.0f and %.0f (%+.0f). **Difference in differences, "
		    "the syncobj share of the change: %+.0f instructions per frame** (%+.2f %% of a base "
		    "frame).\n\n",
		busy_med[SYNC_EXPLICIT][0], busy_med[SYNC_EXPLICIT][1], measured,
		have_offload(SYNC_NONE) ? busy_med[SYNC_NONE][0] : NAN,
		have_offload(SYNC_NONE) ? busy_med[SYNC_NONE][1] : NAN, control, did,
		100 * did / busy_med[SYNC_EXPLICIT][0]);

	fprintf(md, "### Consistency with the microbenchmark\n\n"
		    "The syncobj calls of one frame (mean over the explicit-sync runs of both kernels) "
		    "times the icount cost per call of the same ioctl and handle count (median of the "
		    "per-boot medians above):\n\n");
	double predicted = write_offload_prediction(md);
	double ratio = did / predicted;
	if (isnan(ratio))
		fprintf(md, "No ratio: a kind is not benchmarked or the control is missing.\n\n");
	else if (fabs(ratio - 1) <= CONSISTENCY_TOLERANCE)
		fprintf(md, "Measured / predicted = %+.0f / %+.0f = **%.2f**: the frame benchmark's change "
			    "is what the per-ioctl costs add up to (within %.0f %%).\n\n",
			did, predicted, ratio, 100 * CONSISTENCY_TOLERANCE);
	else
		fprintf(md, "Measured / predicted = %+.0f / %+.0f = **%.2f: a mismatch over %.0f %%.** The "
			    "microbenchmark times back-to-back calls on signalled fences; in a frame the "
			    "calls also wait, wake other threads and miss warm caches, which the series "
			    "may change too (see docs/bench.md, *Consistency*).\n\n",
			did, predicted, ratio, 100 * CONSISTENCY_TOLERANCE);
	printf("offload frames/s: base %.2f, patched %.2f: %s; control: %s; measured/predicted %.2f\n",
	       v[SYNC_EXPLICIT].median_ref, v[SYNC_EXPLICIT].median, v[SYNC_EXPLICIT].verdict,
	       have_offload(SYNC_NONE) ? v[SYNC_NONE].verdict : "none", ratio);

	/* Power: boots needed for the predicted effect at the measured spread. */
	double effect = fabs(predicted) / busy_med[SYNC_EXPLICIT][0];
	int needed = isnan(effect) || isnan(v[SYNC_EXPLICIT].cv) ? -EDOM :
			stats_boots_needed(v[SYNC_EXPLICIT].cv, effect, 0.05);
	if (needed > 0)
		fprintf(md, "**Power.** The predicted effect is %.2f %% of a frame; the per-boot relative "
			    "sd of client frames/s is %.4f %%. Boots per kernel for a two-sided Welch test "
			    "at α = 0.05 with 80 %% power: **%d** (this run: %zu and %zu; under the spread "
			    "rule 2 a side decide when the spread stays below a third of the effect).\n\n",
			100 * effect, 100 * v[SYNC_EXPLICIT].cv, needed, v[SYNC_EXPLICIT].n_ref,
			v[SYNC_EXPLICIT].n);
	else
		fprintf(md, "**Power:** not computable (fewer than 2 boots a side, or no prediction).\n\n");

	bool idle = false;
	for (int k = 0; k < 2; k++)
		for (int sync = 0; sync < 2; sync++)
			for (int i = 0; i < offload[k][sync].runs; i++)
				idle |= offload[k][sync].run[i].idle > OFFLOAD_MAX_IDLE;
	if (idle)
		fprintf(md, "**Warning: a run idled more than %.1f %% of its window.** Under `-icount "
			    "sleep=off` idle time is guest time the clock jumped over (an I/O wait), so "
			    "frames per guest second of that run do not measure instructions.\n\n",
			100 * OFFLOAD_MAX_IDLE);

	fprintf(md, "### Beside the cover letter\n\n"
		    "| measurement | client | Δ FPS |\n|---|---|--:|\n"
		    "| this run (icount, GPU-offload model, TCG guest) | syncway-offload, mailbox | %+.2f %% (%s) |\n"
		    "| cover letter: Steam Deck | vkgears `-present-mailbox` | +1.63 %% ± 0.22 %% |\n"
		    "| cover letter: Alder Lake laptop | vkgears `-present-mailbox` | +5.11 %% ± 0.75 %% |\n"
		    "| reviewer: Raspberry Pi 5 | vkgears | +2.9 %% |\n\n",
		100 * v[SYNC_EXPLICIT].rel,
		v[SYNC_EXPLICIT].proven ? "a difference under the spread rule" : "no difference proven");
	fprintf(md, "The cover letter's vkgears samples (theirs, not measured here), recomputed from "
		    "N, average and standard deviation by `syncway-ministat --moments`. Steam Deck:\n\n");
	ministat_block(r, "--moments 135,22307.707,198.75011 --moments 118,22671.442,192.10609");
	fprintf(md, "\nAlder Lake laptop:\n\n");
	ministat_block(r, "--moments 55,7754.5195,191.69526 --moments 55,8150.6303,105.84085");
	fprintf(md, "\nTheir samples are 5 s windows of 5 runs per kernel on real GPUs at 7 700–22 700 "
		    "FPS; windows of one run are correlated, so their intervals are too narrow. Only "
		    "the direction and the relative size compare with this emulated guest.\n\n");
}

static void write_frame_runs(FILE *md)
{
	fprintf(md, "| kernel | run | output FPS (N−1)/(t_N−t_1) | client commits/s | compositor CPU "
		    "µs/frame | client CPU µs/frame | syncobj ioctls/frame | syncobj ns/frame |\n"
		    "|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < frames[k].runs; i++) {
			struct frame_run *fr = &frames[k].run[i];
			char ccpu[32] = "–";
			if (!isnan(fr->client_cpu_us))
				snprintf(ccpu, sizeof(ccpu), "%.0f", fr->client_cpu_us);
			fprintf(md, "| %s | %d | %.2f | %.1f | %.0f | %s | %.2f | %.0f |\n", kernels[k],
				i + 1, fr->fps, fr->commit_rate, fr->cpu_us, ccpu, fr->ioctls, fr->ioctl_ns);
		}
	fputc('\n', md);
}

/* The compositor's syncobj work per frame in instructions: its calls per
 * frame by kind (all frame runs of both kernels) times icount_cost() with one
 * handle, as in the offload consistency check, for each kernel. */
static void write_frame_instructions(FILE *md)
{
	double per_frame[6] = { 0 }, est[2] = { 0, 0 };
	int nr = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < frames[k].runs; i++, nr++)
			for (int kk = 0; kk < 6; kk++)
				per_frame[kk] += frames[k].run[i].kind_per_frame[kk];
	bool ok = nr > 0;
	fprintf(md, "Compositor syncobj work per frame, in instructions: calls per frame by kind "
		    "(mean over all frame runs) × the icount cost per call with 1 handle (the median "
		    "of its per-boot medians).\n\n"
		    "| ioctl | calls/frame | base instr/call | patched instr/call |\n|---|--:|--:|--:|\n");
	for (int kk = 0; ok && kk < 6; kk++) {
		per_frame[kk] /= nr;
		if (per_frame[kk] <= 0)
			continue;
		double cb = icount_cost(array_kinds[kk], 1, 0), cp = icount_cost(array_kinds[kk], 1, 1);
		if (isnan(cb) || isnan(cp)) {
			ok = false;
			break;
		}
		est[0] += per_frame[kk] * cb;
		est[1] += per_frame[kk] * cp;
		fprintf(md, "| %s | %.2f | %.0f | %.0f |\n", array_kinds[kk], per_frame[kk], cb, cp);
	}
	if (ok && est[0] > 0)
		fprintf(md, "\nEstimate: %.0f instructions per frame on base, %.0f on patched (%+.0f, "
			    "%+.1f %%). The client's own syncobj calls are not counted here.\n\n",
			est[0], est[1], est[1] - est[0], 100 * (est[1] - est[0]) / est[0]);
	else
		fprintf(md, "\n(no icount costs for the compositor's ioctls: no estimate)\n\n");
}

/* The verdict on per-run output FPS: each frame run is one wall boot. */
static void write_frame_verdict(struct report *r)
{
	FILE *md = r->md;
	double fps[2][MAX_RUNS];
	struct stats_boot_verdict v;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < frames[k].runs; i++)
			fps[k][i] = frames[k].run[i].fps;
	int ret = stats_boot_compare(fps[0], frames[0].runs, fps[1], frames[1].runs, STATS_BOOT_TEST,
				     &v);
	if (ret < 0)
		die("frame runs: per-boot comparison failed: %s", strerror(-ret));
	if (stats_boot_holm(&v, 1) < 0)
		die("out of memory");
	char rel[64], p[32], needed[64];
	fmt_rel_ci(rel, sizeof(rel), &v);
	fmt_boots_needed(needed, sizeof(needed), &v, NAN);
	fprintf(md, "**Per-boot test** on the per-run output FPS (%zu vs %zu runs, one per boot; "
		    "Welch's t on their logarithms and the exact permutation test, ≥ %d boots a "
		    "side): median %.2f on base, %.2f on patched; Δ %s, p = %s; boots for ±%.0f %%: "
		    "%s.\n\n- **verdict: %s**\n\n",
		v.n_ref, v.n, STATS_MIN_BOOTS, v.median_ref, v.median, rel,
		stats_format_p(p, sizeof(p), v.p, v.exact), 100 * DETECT_EFFECT, needed, v.verdict);
	printf("frame output FPS: base median %.2f, patched median %.2f (per run): %s\n", v.median_ref,
	       v.median, v.verdict);
}

bool section_on_both(FILE *md, const char *title, const char *runs, int base, int patched)
{
	fprintf(md, "## %s\n\n", title);
	if (base && patched)
		return true;
	fprintf(md, "%s on one kernel only (%d base, %d patched): no comparison.\n\n", runs, base,
		patched);
	return false;
}

static void write_frames(struct report *r)
{
	FILE *md = r->md;
	char path[4096], args[9000];
	if (!frames[0].runs && !frames[1].runs)
		return;
	if (!section_on_both(md, "Frame benchmark (wall clock)", "Frame runs", frames[0].runs,
			     frames[1].runs))
		return;
	fprintf(md, "syncway headless (pixman, one output), the client(s) above in mailbox mode, all "
		    "on one vCPU; the first %lld s of each run are warm-up and dropped. **Output FPS** = "
		    "frames the output presented (per run, and per 5 s window); **client commits/s** "
		    "counts every commit of the client (mailbox: most are superseded), the rate a "
		    "client such as vkgears reports as its FPS.\n\n",
		FRAME_WARMUP_NS / 1000000000);
	write_frame_runs(md);
	write_frame_instructions(md);
	write_frame_verdict(r);
	for (int k = 0; k < 2; k++) {
		format_fit(path, sizeof(path), "%s/fps-%s.txt", r->datadir, kernels[k]);
		write_values(path, frames[k].windows.v, frames[k].windows.n);
		format_fit(path, sizeof(path), "%s/commits-%s.txt", r->datadir, kernels[k]);
		write_values(path, frames[k].commit_windows.v, frames[k].commit_windows.n);
		format_fit(path, sizeof(path), "%s/interval-%s.txt", r->datadir, kernels[k]);
		write_values(path, frames[k].intervals_ms.v, frames[k].intervals_ms.n);
	}
	fprintf(md, "### Output FPS per 5 s window, ministat form (x base, + patched)\n\n");
	format_fit(args, sizeof(args), "-w 72 %s/fps-base.txt %s/fps-patched.txt", r->datadir, r->datadir);
	ministat_block(r, args);
	if (frames[0].windows.n && frames[1].windows.n) {
		struct within_boot w;
		char boot[64], hl[64];
		within_boot(&frames[0].windows, &frames[1].windows, &r->rng, &w);
		fmt_shift(boot, sizeof(boot), &w.boot);
		fmt_shift(hl, sizeof(hl), &w.hl);
		fprintf(md, "\nWindows of one run are correlated, so the Student's t above is too "
			    "optimistic, and so are these descriptions of the precision within boots "
			    "(they decide nothing): median(patched) − median(base) of the windows %s FPS "
			    "(95 %% bootstrap); Hodges–Lehmann shift %s FPS.\n\n",
			boot, hl);
	}
	fprintf(md, "### Client commits per 5 s window, ministat form\n\n");
	format_fit(args, sizeof(args), "-w 72 %s/commits-base.txt %s/commits-patched.txt", r->datadir,
		 r->datadir);
	ministat_block(r, args);
}

static void write_appendix(struct report *r)
{
	fprintf(r->md, "## Appendix: ministat form per case (x base, + patched; batch samples of all "
		       "boots, so within-boot precision only)\n\n"
		       "ministat's one-pass variance can cancel below 0 on equal values, and then "
		       "it prints `-nan` as the stddev; the report's own statistics use two "
		       "passes.\n\n");
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < ncases; i++) {
			struct micro_case *c = &cases[i];
			if (!has_mode(c, m))
				continue;
			char fb[4096], fp[4096], args[9000];
			format_fit(fb, sizeof(fb), "%s/%s-%s-%u-base.txt", r->datadir, modes[m], c->name,
				 c->handles);
			format_fit(fp, sizeof(fp), "%s/%s-%s-%u-patched.txt", r->datadir, modes[m], c->name,
				 c->handles);
			write_values(fb, c->s[m][0].pooled.v, c->s[m][0].pooled.n);
			write_values(fp, c->s[m][1].pooled.v, c->s[m][1].pooled.n);
			fprintf(r->md, "### %s, %s, %u handles\n\n", modes[m], c->name, c->handles);
			format_fit(args, sizeof(args), "-w 72 %s %s", fb, fp);
			ministat_block(r, args);
			fputc('\n', r->md);
		}
}

static void write_plots(struct report *r)
{
	char path[4096];
	format_fit(path, sizeof(path), "%s/micro-icount.dat", r->datadir);
	FILE *bars = fopen(path, "w");
	if (!bars)
		die("%s: %s", path, strerror(errno));
	for (int i = 0; i < ncases; i++) {
		const struct series *s = cases[i].s[ICOUNT];
		if (has_mode(&cases[i], ICOUNT))
			fprintf(bars, "\"%s/%u\" %.1f %.1f\n", cases[i].name, cases[i].handles,
				stats_median(s[0].pooled.v, s[0].pooled.n),
				stats_median(s[1].pooled.v, s[1].pooled.n));
	}
	fclose(bars);

	if (have_offload(SYNC_EXPLICIT)) {
		format_fit(path, sizeof(path), "%s/offload.dat", r->datadir);
		FILE *od = fopen(path, "w");
		if (!od)
			die("%s: %s", path, strerror(errno));
		for (int sync = 0; sync < 2; sync++) {
			double ref[MAX_RUNS];
			int nref = offload_values(0, sync, offsetof(struct offload_run, fps), ref);
			if (!nref)
				continue;
			double base = median_of(ref, nref);
			for (int k = 0; k < 2; k++)
				for (int i = 0; i < offload[k][sync].runs; i++)
					fprintf(od, "%d %.6f\n", 2 * sync + k,
						100 * (offload[k][sync].run[i].fps / base - 1));
		}
		fclose(od);
		fprintf(r->md, "## Plots\n\n![GPU-offload client frames per guest second](%s-offload.png)\n\n",
			r->pbase);
	} else {
		fprintf(r->md, "## Plots\n\n");
	}
	fprintf(r->md, "![per-ioctl instructions](%s-micro.png)\n\n"
		       "![output FPS windows](%s-fps.png)\n\n![frame intervals](%s-frametime.png)\n",
		r->pbase, r->pbase, r->pbase);
	format_fit(path, sizeof(path), "%s-plots.gp", r->plots);
	FILE *gp = fopen(path, "w");
	if (!gp)
		die("%s: %s", path, strerror(errno));
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", r->datadir);
	const char *dd = basename(tmp);
	if (have_offload(SYNC_EXPLICIT))
		fprintf(gp,
			"set terminal pngcairo size 900,500 noenhanced\n"
			"set output '%s-offload.png'\n"
			"set title 'GPU-offload client under icount: client frames per guest second, one point per boot'\n"
			"set ylabel '%% against the median of base'\nset xrange [-0.5:3.5]\n"
			"set xtics ('base, explicit sync' 0, 'patched, explicit sync' 1, 'base, no sync' 2, "
			"'patched, no sync' 3)\nset grid ytics\nset key off\n"
			"plot '%s/offload.dat' using 1:2 with points pt 7 ps 1.2\n"
			"unset xrange\nset autoscale x\nset xtics autofreq\nset key default\n",
			r->pbase, dd);
	fprintf(gp,
		"set terminal pngcairo size 1400,600 noenhanced\n"
		"set output '%s-micro.png'\n"
		"set title 'syncobj ioctls under icount: instructions per call (median)'\n"
		"set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8\n"
		"set xtics rotate by -60 font ',8'\nset logscale y\nset ylabel 'instructions per call'\n"
		"set grid ytics\n"
		"plot '%s/micro-icount.dat' using 2:xtic(1) title 'base', '' using 3 title 'patched'\n"
		"unset logscale y\nunset style\nset xtics norotate font ''\n",
		r->pbase, dd);
	fprintf(gp,
		"set terminal pngcairo size 900,500 noenhanced\n"
		"set output '%s-fps.png'\n"
		"set title 'output FPS per 5 s window'\nset ylabel 'FPS'\nset xrange [-0.5:1.5]\n"
		"set xtics ('base' 0, 'patched' 1)\nset style fill empty\nset grid ytics\n"
		"set style data points\n"
		"plot '%s/fps-base.txt' using (0+0.15*(rand(0)-0.5)):1 with points pt 7 ps 0.8 title 'base', "
		"'%s/fps-patched.txt' using (1+0.15*(rand(0)-0.5)):1 with points pt 7 ps 0.8 title 'patched'\n"
		"unset xrange\nset autoscale x\nset xtics autofreq\n",
		r->pbase, dd, dd);
	fprintf(gp,
		"set output '%s-frametime.png'\n"
		"set title 'frame intervals (all frames after warm-up)'\nset xlabel 'interval (ms)'\n"
		"set ylabel 'fraction of frames'\nbw=0.5\nbin(x)=bw*floor(x/bw)+bw/2\nset xrange [0:60]\n"
		"set style fill transparent solid 0.4\n"
		"plot '%s/interval-base.txt' using (bin($1)):(1.0/%zu) smooth frequency with boxes title 'base', "
		"'%s/interval-patched.txt' using (bin($1)):(1.0/%zu) smooth frequency with boxes title 'patched'\n",
		r->pbase, dd, frames[0].intervals_ms.n ? frames[0].intervals_ms.n : 1, dd,
		frames[1].intervals_ms.n ? frames[1].intervals_ms.n : 1);
	fclose(gp);
	printf("wrote %s\n", path);
}

int main(int argc, char **argv)
{
	const char *raw = NULL, *out = NULL;
	struct report r = { .ministat = "syncway-ministat" };
	uint64_t seed = 20250301;
	static const struct option opts[] = {
		{ "raw", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "plots", required_argument, NULL, 'p' },
		{ "ministat", required_argument, NULL, 'm' },
		{ "kmalloc-dir", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ 0 },
	};
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'r': raw = optarg; break;
		case 'o': out = optarg; break;
		case 'p': r.plots = optarg; break;
		case 'm': r.ministat = optarg; break;
		case 'k': r.kdir = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!raw || !out || !r.plots)
		die("usage: sw-ab-report --raw DIR --out FILE.md --plots PREFIX [--ministat PATH] "
		    "[--kmalloc-dir DIR] [--seed N]");
	r.raw = raw;
	read_meta(raw);
	read_raw(raw);
	if (!ncases)
		die("no microbenchmark samples in %s", raw);

	format_fit(r.datadir, sizeof(r.datadir), "%s-data", r.plots);
	if (mkdir(r.datadir, 0755) < 0 && errno != EEXIST)
		die("%s: %s", r.datadir, strerror(errno));
	char tmp[4096];
	format_fit(tmp, sizeof(tmp), "%s", r.plots);
	r.pbase = basename(tmp);
	r.md = fopen(out, "w");
	if (!r.md)
		die("%s: %s", out, strerror(errno));
	stats_rng_seed(&r.rng, seed);

	write_meta(&r);
	write_offload(&r);
	virgl_write(&r);
	write_micro(&r);
	write_per_patch(&r);
	write_hardened(&r);
	write_frames(&r);
	write_appendix(&r);
	write_plots(&r);
	if (fclose(r.md) != 0)
		die("%s: %s", out, strerror(errno));
	printf("wrote %s\n", out);
	return 0;
}
