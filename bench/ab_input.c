/* sw-ab-report's reading of a kernel family's raw directory (the list of its
 * files is in bench/ab-report.c): the JSON-lines reader every section uses,
 * and the tables of bench/ab-report.h filled from the files read. The virgl
 * frame benchmark reads its own files (bench/ab_virgl.c).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab-report.h"
#include "json.h"

#define MAX_BATCHES 4096
#define WINDOW_NS 5000000000LL

const char *const kernels[2] = { "base", "patched" };
/* syncobj ioctl kinds as common/syncobj.c names them in JSON. */
char kind_names[MAX_KINDS][24];
int nkinds;

/* The tables read_raw() fills. */
struct micro_case cases[MAX_CASES];
int ncases;
const char *const modes[2] = { "icount", "wall" };

const char *const array_kinds[6] = { "wait", "timeline_wait", "query", "reset", "signal",
				     "timeline_signal" };
struct frame_data frames[2];

const char *const syncs[2] = { "explicit", "none" };
struct offload_series offload[2][2];

struct icount_run prefixes[MAX_PREFIXES];
int nprefixes;
struct icount_run hardened[2][MAX_RUNS];
int nhardened[2];

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

double syncobj_number(const struct jline *l, const char *kind, int i, double absent)
{
	char key[40];
	const char *p = jneed(l, "syncobj");
	const char *end = strchr(p, '}');
	snprintf(key, sizeof(key), "\"%s\":[", kind);
	const char *v = strstr(p, key);
	if (!v || (end && v > end))
		return absent;
	v += strlen(key);
	for (; i > 0; i--) {
		v = strchr(v, ',');
		if (!v || (end && v > end))
			die("%s:%ld: malformed \"%s\"", l->path, l->no, kind);
		v++;
	}
	return jnum_at(l, kind, v);
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
		w->wait_timeouts += syncobj_number(l, "timeline_wait", 3, 0);
	}
	jreader_close(&jr);
}

/* One boot's offload runs of a sync mode: the client's summaries, one line
 * per run (bench/guest-ab.sh makes $SYNCWAY_BENCH_OFFLOAD_RUNS of them, each
 * with new processes), then the compositor's frame and commit lines inside
 * each run's measured window (the runs' syncway lines follow each other in
 * one file; their windows do not overlap, the guest's clock runs on). The
 * boot's value pools its runs: frames over window time. */
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
	double calls[MAX_KINDS] = { 0 }, handles[MAX_KINDS] = { 0 }, frames = 0, window = 0, idle = 0;
	double cpu_user = 0, cpu_sys = 0;
	long long t0[MAX_OFFLOAD_RUNS], t1[MAX_OFFLOAD_RUNS];
	while (jreader_next(&jr)) {
		if (r->n_runs == MAX_OFFLOAD_RUNS)
			die("%s:%ld: more than %d runs in one boot", path, l->no, MAX_OFFLOAD_RUNS);
		jstr(l, "sync", got, sizeof(got));
		if (strcmp(got, syncs[sync]))
			die("%s:%ld: \"sync\" is \"%s\", the file name says \"%s\"", path, l->no, got,
			    syncs[sync]);
		double f = jnum(l, "frames");
		long long a = (long long)jnum(l, "window_start_ns"), b = (long long)jnum(l, "window_end_ns");
		if (f < 1 || b <= a)
			die("%s:%ld: an empty window", path, l->no);
		if (r->n_runs && a < t1[r->n_runs - 1])
			die("%s:%ld: a window that starts before the previous one ends", path, l->no);
		t0[r->n_runs] = a;
		t1[r->n_runs] = b;
		r->run_busy[r->n_runs++] = jnum(l, "busy_ns_per_frame");
		frames += f;
		window += (double)(b - a);
		idle += jnum(l, "idle_ns");
		cpu_user += jnum(l, "cpu_user_ns");
		cpu_sys += jnum(l, "cpu_sys_ns");
		add_kinds(l, "syncobj", calls, false);
		add_kinds(l, "handles_per_call", handles, true);
	}
	jreader_close(&jr);
	if (!r->n_runs)
		die("%s: no summary line", path);
	r->fps = frames / (window / 1e9);
	r->busy = (window - idle) / frames;
	r->idle = idle / window;
	r->cpu_user = cpu_user / frames;
	r->cpu_sys = cpu_sys / frames;

	struct window_lines sum = { 0 };
	for (int i = 0; i < r->n_runs; i++) {
		struct window_lines w;
		read_window_lines(spath, t0[i], t1[i], &w);
		sum.commits += w.commits;
		sum.presented += w.presented;
		for (int k = 0; k < MAX_KINDS; k++)
			sum.calls[k] += w.calls[k];
	}
	for (int k = 0; k < MAX_KINDS; k++) {
		r->client_calls[k] = calls[k] / frames;
		r->comp_calls[k] = sum.calls[k] / frames;
		r->handles[k] = (unsigned)handles[k];
	}
	r->output_fps = sum.presented / (window / 1e9);
	r->commits = sum.commits / frames;
	os->runs++;
}

int kernel_index(const char *path, const char *kernel)
{
	for (int k = 0; k < 2; k++)
		if (!strcmp(kernel, kernels[k]))
			return k;
	die("%s: unknown kernel \"%s\"", path, kernel);
}

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

static void read_hardened(const char *path, const char *kernel)
{
	int k = kernel_index(path, kernel);
	if (nhardened[k] == MAX_RUNS)
		die("%s: more than %d boots", path, MAX_RUNS);
	read_icount_run(path, kernel, &hardened[k][nhardened[k]++]);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void read_raw(const char *dir)
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

void reset_raw(void)
{
	for (int i = 0; i < ncases; i++)
		for (int m = 0; m < 2; m++)
			for (int k = 0; k < 2; k++)
				stats_sample_free(&cases[i].s[m][k].pooled);
	memset(cases, 0, sizeof(cases));
	ncases = 0;
	for (int k = 0; k < 2; k++) {
		stats_sample_free(&frames[k].windows);
		stats_sample_free(&frames[k].commit_windows);
		stats_sample_free(&frames[k].intervals_ms);
	}
	memset(frames, 0, sizeof(frames));
	memset(offload, 0, sizeof(offload));
	memset(prefixes, 0, sizeof(prefixes));
	nprefixes = 0;
	memset(hardened, 0, sizeof(hardened));
	memset(nhardened, 0, sizeof(nhardened));
	virgl_reset();
}
