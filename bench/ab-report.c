/* sw-ab-report: turns the raw samples of tools/report (build/report/raw/) into
 * the markdown report, the data files and the gnuplot script of the plots.
 * All statistics come from bench/stats (stats.h); the ministat-form blocks are
 * the output of syncway-ministat on the same data files.
 *
 *   usage: sw-ab-report --raw DIR --out FILE.md --plots PREFIX
 *                       [--ministat PATH] [--kmalloc-dir DIR] [--seed N]
 *
 * Inputs (written by bench/guest-ab.sh and tools/report):
 *   DIR/meta.txt                          key=value: date, machine, kernels, command
 *   DIR/micro-<mode>-<kernel>-r<N>.jsonl  syncobj-bench JSON lines
 *   DIR/frame-wall-<kernel>-r<N>.jsonl    syncway --stats output
 *   DIR/host-loadavg.txt, DIR/boot-times.txt
 *   KDIR/kmalloc-<kernel>.json            syncobj-kmalloc-count --out lines (optional)
 * Outputs: FILE.md; PREFIX-data/ (one value per line, per series); PREFIX-plots.gp
 * (run by tools/report with gnuplot in the directory of FILE.md), which draws
 * PREFIX-micro.png, PREFIX-fps.png and PREFIX-frametime.png.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stats.h"

#define MAX_CASES 64
#define MAX_RUNS 32
#define FRAME_WARMUP_NS 2000000000LL
#define WINDOW_NS 5000000000LL
#define BOOTSTRAP_B 4000
#define CONF 95.0

static const char *kernels[2] = { "base", "patched" };
static const char *modes[2] = { "icount", "wall" };

struct series {
	struct stats_sample pooled;	/* every batch of every run */
	double run_median[MAX_RUNS];	/* per-run median */
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
	double fps;		/* (N-1)/(t_N - t_1) after the warm-up */
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
	struct stats_sample windows;	/* FPS per 5 s window, all runs */
	struct stats_sample commit_windows;
	struct stats_sample intervals_ms;
	struct frame_run run[MAX_RUNS];
	int runs;
};
static struct frame_data frames[2];

static char meta_keys[64][32], meta_vals[64][512];
static int nmeta;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sw-ab-report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
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
	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) && nmeta < 64) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		line[strcspn(line, "\0")] = 0;
		eq[1 + strcspn(eq + 1, "\n")] = 0;
		snprintf(meta_keys[nmeta], sizeof(meta_keys[0]), "%s", line);
		snprintf(meta_vals[nmeta], sizeof(meta_vals[0]), "%s", eq + 1);
		nmeta++;
	}
	fclose(f);
}

/* Value of "key": in a JSON line (numbers only); def when absent. */
static double jnum(const char *line, const char *key, double def)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = strstr(line, pat);
	if (!p)
		return def;
	return strtod(p + strlen(pat), NULL);
}

static void jstr(const char *line, const char *key, char *out, size_t len)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *p = strstr(line, pat);
	out[0] = 0;
	if (!p)
		return;
	p += strlen(pat);
	size_t n = strcspn(p, "\"");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = 0;
}

static struct micro_case *find_case(const char *name, unsigned handles)
{
	for (int i = 0; i < ncases; i++)
		if (!strcmp(cases[i].name, name) && cases[i].handles == handles)
			return &cases[i];
	if (ncases == MAX_CASES)
		die("too many cases");
	struct micro_case *c = &cases[ncases++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->handles = handles;
	for (int m = 0; m < 2; m++)
		for (int k = 0; k < 2; k++)
			stats_sample_init(&c->s[m][k].pooled);
	return c;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void read_micro(const char *path, int mode, int kernel)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		char name[32];
		jstr(line, "case", name, sizeof(name));
		if (!name[0])
			continue;
		struct micro_case *c = find_case(name, (unsigned)jnum(line, "handles", 0));
		struct series *s = &c->s[mode][kernel];
		const char *p = strstr(line, "\"samples\":[");
		if (!p || s->runs == MAX_RUNS)
			continue;
		p += strlen("\"samples\":[");
		double run[4096];
		int n = 0;
		while (*p && *p != ']' && n < 4096) {
			char *end;
			double v = strtod(p, &end);
			if (end == p)
				break;
			run[n++] = v;
			stats_sample_add(&s->pooled, v);
			p = end + (*end == ',');
		}
		qsort(run, n, sizeof(double), cmp_double);
		s->run_median[s->runs++] = stats_median(run, n);
	}
	free(line);
	fclose(f);
}

static void read_frame(const char *path, int kernel)
{
	struct frame_data *fd = &frames[kernel];
	if (fd->runs == MAX_RUNS)
		return;
	FILE *f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	memset(&fd->run[fd->runs], 0, sizeof(fd->run[0]));
	char *line = NULL;
	size_t cap = 0;
	long long t_first = -1, t_start = 0, t_last = 0, win_end = 0, cwin_end = 0;
	long long n = 0, win_frames = 0, commits = 0, win_commits = 0, t_c_first = -1, t_c_last = 0;
	double cpu = 0, ioctls = 0, ioctl_ns = 0, kinds[6] = { 0 };
	while (getline(&line, &cap, f) > 0) {
		bool is_frame = strstr(line, "\"type\":\"frame\"") != NULL;
		bool is_commit = strstr(line, "\"type\":\"commit\"") != NULL;
		if (!is_frame && !is_commit)
			continue;
		long long t = (long long)jnum(line, "t_ns", 0);
		if (t_first < 0) {
			t_first = t;
			t_start = t + FRAME_WARMUP_NS;
			win_end = cwin_end = t_start + WINDOW_NS;
		}
		if (t < t_start) {
			if (is_frame && !strstr(line, "\"presented\":false"))
				fd->run[fd->runs].frames_all++;
			continue;
		}
		if (is_commit) {
			while (t >= cwin_end) {
				stats_sample_add(&fd->commit_windows, win_commits / (WINDOW_NS / 1e9));
				win_commits = 0;
				cwin_end += WINDOW_NS;
			}
			win_commits++;
			commits++;
			if (t_c_first < 0)
				t_c_first = t;
			t_c_last = t;
			continue;
		}
		if (strstr(line, "\"presented\":false"))
			continue;
		fd->run[fd->runs].frames_all++;
		while (t >= win_end) {
			stats_sample_add(&fd->windows, win_frames / (WINDOW_NS / 1e9));
			win_frames = 0;
			win_end += WINDOW_NS;
		}
		win_frames++;
		if (n == 0)
			fd->run[fd->runs].fps = (double)t; /* t_1, replaced below */
		double iv = jnum(line, "interval_ns", -1);
		if (n > 0 && iv > 0)
			stats_sample_add(&fd->intervals_ms, iv / 1e6);
		cpu += jnum(line, "cpu_user_ns", 0) + jnum(line, "cpu_sys_ns", 0);
		ioctls += jnum(line, "syncobj_ioctls", 0);
		ioctl_ns += jnum(line, "syncobj_ns", 0);
		const char *so = strstr(line, "\"syncobj\":{");
		for (int kk = 0; so && kk < 6; kk++) {
			char pat[48];
			snprintf(pat, sizeof(pat), "\"%s\":[", array_kinds[kk]);
			const char *q = strstr(so, pat);
			if (q)
				kinds[kk] += strtod(q + strlen(pat), NULL);
		}
		t_last = t;
		n++;
	}
	free(line);
	fclose(f);
	struct frame_run *r = &fd->run[fd->runs];
	if (n < 2)
		return;
	r->fps = (n - 1) / ((t_last - r->fps) / 1e9);
	r->commit_rate = commits > 1 ? (commits - 1) / ((t_c_last - t_c_first) / 1e9) : 0;
	r->cpu_us = cpu / n / 1e3;
	r->ioctls = ioctls / n;
	r->ioctl_ns = ioctl_ns / n;
	r->frames = (int)n;
	for (int kk = 0; kk < 6; kk++)
		r->kind_per_frame[kk] = kinds[kk] / n;
	r->client_cpu_us = NAN;
	/* client-times-wall-<kernel>-r<N>.txt: the second line of sh's `times` */
	char tpath[4096];
	snprintf(tpath, sizeof(tpath), "%s", path);
	char *slash = strrchr(tpath, '/');
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (slash && !strncmp(base, "frame-", 6)) {
		char tail[1024];
		snprintf(tail, sizeof(tail), "%s", base + 6);
		tail[strcspn(tail, ".")] = 0;
		snprintf(slash + 1, sizeof(tpath) - (size_t)(slash + 1 - tpath), "client-times-%s.txt", tail);
		FILE *tf = fopen(tpath, "r");
		if (tf) {
			char l1[256], l2[256];
			double um, us, sm, ss;
			if (fgets(l1, sizeof(l1), tf) && fgets(l2, sizeof(l2), tf) &&
			    sscanf(l2, "%lfm%lfs %lfm%lfs", &um, &us, &sm, &ss) == 4 && r->frames_all > 0)
				r->client_cpu_us = ((um + sm) * 60 + us + ss) * 1e6 / r->frames_all;
			fclose(tf);
		}
	}
	fd->runs++;
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
	while ((e = readdir(d)) && nn < 1024)
		names[nn++] = strdup(e->d_name);
	closedir(d);
	qsort(names, nn, sizeof(char *), (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < nn; i++) {
		char mode[16], kernel[16], path[4096];
		int round;
		const char *nm = names[i];
		snprintf(path, sizeof(path), "%s/%s", dir, nm);
		size_t len = strlen(nm);
		if (len < 7 || strcmp(nm + len - 6, ".jsonl"))
			goto next;
		if (sscanf(nm, "micro-%15[a-z]-%15[a-z]-r%d.jsonl", mode, kernel, &round) == 3) {
			int m = !strcmp(mode, "wall"), k = !strcmp(kernel, "patched");
			read_micro(path, m, k);
		} else if (sscanf(nm, "frame-wall-%15[a-z]-r%d.jsonl", kernel, &round) == 2) {
			read_frame(path, !strcmp(kernel, "patched"));
		}
next:
		free(names[i]);
	}
}

/* kmalloc counts: allocs per call for (ioctl, count), or NaN. */
static double kmalloc_allocs(const char *dir, int kernel, const char *case_name, unsigned handles)
{
	char path[4096], up[32], ioctl_name[32];
	snprintf(path, sizeof(path), "%s/kmalloc-%s.json", dir, kernels[kernel]);
	FILE *f = fopen(path, "r");
	if (!f)
		return NAN;
	size_t i;
	for (i = 0; case_name[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)(case_name[i] >= 'a' && case_name[i] <= 'z' ? case_name[i] - 32 : case_name[i]);
	up[i] = 0;
	char *line = NULL;
	size_t cap = 0;
	double v = NAN;
	while (getline(&line, &cap, f) > 0) {
		jstr(line, "ioctl", ioctl_name, sizeof(ioctl_name));
		if (!strcmp(ioctl_name, up) && (unsigned)jnum(line, "count", -1) == handles) {
			v = jnum(line, "allocs", NAN);
			break;
		}
	}
	free(line);
	fclose(f);
	return v;
}

static void write_values(const char *path, const double *v, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.6g\n", v[i]);
	fclose(f);
}

/* Appends syncway-ministat's output for two data files to md, as a code block. */
static void ministat_block(FILE *md, const char *ministat, const char *args)
{
	char cmd[8192], buf[512];
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", ministat, args);
	FILE *p = popen(cmd, "r");
	if (!p) {
		fprintf(md, "(could not run %s)\n", ministat);
		return;
	}
	fputs("```\n", md);
	while (fgets(buf, sizeof(buf), p))
		fputs(buf, md);
	fputs("```\n", md);
	pclose(p);
}

struct comparison {
	struct stats_summary sb, sp;
	double med_b, med_p, p99_b, p99_p;
	struct stats_interval boot;	/* median(patched) - median(base) */
	struct stats_welch welch_runs;	/* on per-run medians */
	bool have_welch;
	struct stats_mann_whitney mw;
	struct stats_interval hl;
	bool have_hl;
	bool proven;
};

static void compare(struct stats_sample *b, struct stats_sample *p, const double *rb, int nrb,
		    const double *rp, int nrp, struct stats_rng *rng, struct comparison *c)
{
	memset(c, 0, sizeof(*c));
	stats_sample_summarize(b, &c->sb);
	stats_sample_summarize(p, &c->sp);
	c->med_b = stats_median(b->v, b->n);
	c->med_p = stats_median(p->v, p->n);
	c->p99_b = stats_percentile(b->v, b->n, 99);
	c->p99_p = stats_percentile(p->v, p->n, 99);
	c->boot.estimate = NAN;
	c->boot.lo = c->boot.hi = NAN;
	if (b->n && p->n)
		stats_bootstrap_median_diff(b->v, b->n, p->v, p->n, BOOTSTRAP_B, CONF, rng, &c->boot);
	if (nrb >= 2 && nrp >= 2) {
		struct stats_sample x, y;
		struct stats_summary sx, sy;
		stats_sample_init(&x);
		stats_sample_init(&y);
		for (int i = 0; i < nrb; i++)
			stats_sample_add(&x, rb[i]);
		for (int i = 0; i < nrp; i++)
			stats_sample_add(&y, rp[i]);
		stats_sample_summarize(&x, &sx);
		stats_sample_summarize(&y, &sy);
		c->have_welch = stats_welch(&sx, &sy, CONF, &c->welch_runs) == 0;
		stats_sample_free(&x);
		stats_sample_free(&y);
	}
	if (b->n && p->n) {
		stats_mann_whitney(b->v, b->n, p->v, p->n, &c->mw);
		c->have_hl = stats_hodges_lehmann(b->v, b->n, p->v, p->n, CONF, &c->hl) == 0;
	}
	/* "proven" only when the bootstrap interval of the median difference
	 * and, where there are ≥ 2 runs a side, Welch's t on the per-run
	 * medians agree that there is a difference. */
	bool boot_sig = !(c->boot.lo <= 0 && c->boot.hi >= 0);
	bool welch_sig = !c->have_welch || !(c->welch_runs.lo <= 0 && c->welch_runs.hi >= 0);
	c->proven = boot_sig && welch_sig;
}

static void fmt_verdict(char *out, size_t len, const struct comparison *c)
{
	if (!c->proven)
		snprintf(out, len, "No difference proven");
	else
		snprintf(out, len, "%+.2f %%", 100 * c->boot.estimate / c->med_b);
}

int main(int argc, char **argv)
{
	const char *raw = NULL, *out = NULL, *plots = NULL, *ministat = "syncway-ministat",
		   *kdir = NULL;
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
		case 'p': plots = optarg; break;
		case 'm': ministat = optarg; break;
		case 'k': kdir = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!raw || !out || !plots)
		die("usage: sw-ab-report --raw DIR --out FILE.md --plots PREFIX [--ministat PATH] [--kmalloc-dir DIR]");
	read_meta(raw);
	read_raw(raw);
	if (!ncases)
		die("no microbenchmark samples in %s", raw);

	char datadir[4096];
	snprintf(datadir, sizeof(datadir), "%s-data", plots);
	mkdir(datadir, 0755);
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", plots);
	const char *pbase = basename(tmp);

	FILE *md = fopen(out, "w");
	if (!md)
		die("%s: %s", out, strerror(errno));
	struct stats_rng rng;
	stats_rng_seed(&rng, seed);

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
		    "(icount rounds first, then wall-clock rounds).\n\n");

	/* --- per-ioctl -------------------------------------------------------- */
	FILE *bars = NULL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/micro-icount.dat", datadir);
	bars = fopen(path, "w");
	for (int m = 0; m < 2; m++) {
		double floor_b = NAN, floor_p = NAN;
		for (int i = 0; i < ncases; i++)
			if (!strcmp(cases[i].name, "floor") && cases[i].s[m][0].pooled.n && cases[i].s[m][1].pooled.n) {
				struct stats_summary tmp_s;
				stats_sample_summarize(&cases[i].s[m][0].pooled, &tmp_s);
				stats_sample_summarize(&cases[i].s[m][1].pooled, &tmp_s);
				floor_b = stats_median(cases[i].s[m][0].pooled.v, cases[i].s[m][0].pooled.n);
				floor_p = stats_median(cases[i].s[m][1].pooled.v, cases[i].s[m][1].pooled.n);
			}
		if (!cases[0].s[m][0].runs && !cases[0].s[m][1].runs)
			continue;
		fprintf(md, "## Per-ioctl cost, %s mode\n\n", modes[m]);
		fprintf(md, "%s\n\n",
			m == 0 ? "Guest nanoseconds under `-icount shift=0`: **instructions per call** (user + "
				 "kernel). Per case: the median and p99 over all batches of all boots "
				 "(each batch = the mean of many back-to-back calls)."
			       : "Wall-clock nanoseconds per call in the TCG guest (includes emulation "
				 "noise and the load of the shared host). Same method.");
		char control_warn[512] = "";
		fprintf(md, "| ioctl | handles | base median | base p99 | base /floor | patched median | "
			    "patched p99 | patched /floor | Δ median (95 %% bootstrap CI) | Welch per-run p | "
			    "HL shift (95 %% CI) | verdict | kmallocs/call base → patched |\n");
		fprintf(md, "|---|--:|--:|--:|--:|--:|--:|--:|---|--:|---|---|---|\n");
		for (int i = 0; i < ncases; i++) {
			struct micro_case *c = &cases[i];
			struct series *b = &c->s[m][0], *p = &c->s[m][1];
			if (!b->pooled.n || !p->pooled.n)
				continue;
			struct comparison cmp;
			compare(&b->pooled, &p->pooled, b->run_median, b->runs, p->run_median, p->runs, &rng,
				&cmp);
			char verdict[64], welch[32] = "–", hl[64] = "–", km[64] = "–";
			fmt_verdict(verdict, sizeof(verdict), &cmp);
			if (cmp.have_welch)
				snprintf(welch, sizeof(welch), "%.3g", cmp.welch_runs.p);
			if (cmp.have_hl)
				snprintf(hl, sizeof(hl), "%+.1f [%+.1f, %+.1f]", cmp.hl.estimate, cmp.hl.lo, cmp.hl.hi);
			if (kdir) {
				double kb = kmalloc_allocs(kdir, 0, c->name, c->handles);
				double kp = kmalloc_allocs(kdir, 1, c->name, c->handles);
				if (!isnan(kb) || !isnan(kp))
					snprintf(km, sizeof(km), "%.2g → %.2g", kb, kp);
			}
			fprintf(md, "| %s | %u | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %+.1f (%+.2f %%) [%+.1f, %+.1f] | %s | %s | %s | %s |\n",
				c->name, c->handles, cmp.med_b, cmp.p99_b, cmp.med_b / floor_b, cmp.med_p,
				cmp.p99_p, cmp.med_p / floor_p, cmp.boot.estimate,
				100 * cmp.boot.estimate / cmp.med_b, cmp.boot.lo, cmp.boot.hi, welch, hl,
				verdict, km);
			bool is_control = !strcmp(c->name, "floor") || !strcmp(c->name, "eventfd") ||
					  !strcmp(c->name, "transfer");
			if (is_control && cmp.proven) {
				size_t l = strlen(control_warn);
				snprintf(control_warn + l, sizeof(control_warn) - l, "%s%s (%+.1f %%)",
					 l ? ", " : "", c->name, 100 * cmp.boot.estimate / cmp.med_b);
			}
			if (m == 0 && bars)
				fprintf(bars, "\"%s/%u\" %.1f %.1f\n", c->name, c->handles, cmp.med_b, cmp.med_p);
		}
		fputc('\n', md);
		if (control_warn[0]) {
			fprintf(md, "**Warning: controls the series does not touch differ in this mode: %s.** "
				    "That is the size of the systematic error of this mode on this run (host load, "
				    "boot order, emulation); treat its other verdicts with the same suspicion.\n\n",
				control_warn);
			printf("%s mode: controls differ (%s): that mode's verdicts are suspect\n", modes[m],
			       control_warn);
		} else {
			fprintf(md, "Controls (floor, eventfd, transfer): no difference proven, as expected.\n\n");
		}
		if (m == 0) {
			/* repeatability of the instruction clock */
			fprintf(md, "### Repeatability under icount\n\n"
				    "Spread of the per-boot medians of each case on the same kernel, "
				    "(max − min) / median; the instrument is trusted to 0.5 %%.\n\n");
			double worst = 0;
			char worst_case[64] = "–";
			int over = 0, total = 0;
			for (int i = 0; i < ncases; i++)
				for (int k = 0; k < 2; k++) {
					struct series *s = &cases[i].s[0][k];
					if (s->runs < 2)
						continue;
					double lo = s->run_median[0], hi = lo;
					for (int r = 1; r < s->runs; r++) {
						lo = fmin(lo, s->run_median[r]);
						hi = fmax(hi, s->run_median[r]);
					}
					double spread = 100 * (hi - lo) / lo;
					total++;
					if (spread > 0.5)
						over++;
					if (spread > worst) {
						worst = spread;
						snprintf(worst_case, sizeof(worst_case), "%s/%u on %s", cases[i].name,
							 cases[i].handles, kernels[k]);
					}
				}
			fprintf(md, "%d case×kernel pairs with ≥ 2 boots; %d over 0.5 %%; largest spread %.3f %% (%s).\n\n",
				total, over, worst, worst_case);
			printf("icount repeatability: %d of %d case/kernel pairs over 0.5 %%, worst %.3f %% (%s)\n",
			       over, total, worst, worst_case);
		}
	}
	if (bars)
		fclose(bars);

	/* --- frame benchmark -------------------------------------------------- */
	if (frames[0].runs || frames[1].runs) {
		fprintf(md, "## Frame benchmark (wall clock)\n\n"
			    "syncway headless (pixman, one output), the client(s) above in mailbox mode, all "
			    "on one vCPU; the first %lld s of each run are warm-up and dropped. FPS = frames "
			    "presented by the output per 5 s window (vkgears-compatible); client commits/s "
			    "counts every commit of the client (mailbox: most are superseded).\n\n",
			FRAME_WARMUP_NS / 1000000000);
		fprintf(md, "| kernel | run | FPS (N−1)/(t_N−t_1) | client commits/s | compositor CPU µs/frame | "
			    "client CPU µs/frame | syncobj ioctls/frame | syncobj ns/frame |\n|---|--:|--:|--:|--:|--:|--:|--:|\n");
		for (int k = 0; k < 2; k++)
			for (int r = 0; r < frames[k].runs; r++) {
				struct frame_run *fr = &frames[k].run[r];
				char ccpu[32] = "–";
				if (!isnan(fr->client_cpu_us))
					snprintf(ccpu, sizeof(ccpu), "%.0f", fr->client_cpu_us);
				fprintf(md, "| %s | %d | %.2f | %.1f | %.0f | %s | %.2f | %.0f |\n", kernels[k], r + 1,
					fr->fps, fr->commit_rate, fr->cpu_us, ccpu, fr->ioctls, fr->ioctl_ns);
			}
		fputc('\n', md);
		/* The compositor's syncobj work per frame in instructions: its calls
		 * per frame by kind (all frame runs of both kernels) times the icount
		 * cost per call with one handle, for each kernel. */
		{
			double per_frame[6] = { 0 };
			int nr = 0;
			for (int k = 0; k < 2; k++)
				for (int r = 0; r < frames[k].runs; r++, nr++)
					for (int kk = 0; kk < 6; kk++)
						per_frame[kk] += frames[k].run[r].kind_per_frame[kk];
			double est[2] = { 0, 0 };
			bool ok = nr > 0;
			fprintf(md, "Compositor syncobj work per frame, in instructions: calls per frame by kind "
				    "(mean over all frame runs) × the icount median per call with 1 handle.\n\n"
				    "| ioctl | calls/frame | base instr/call | patched instr/call |\n|---|--:|--:|--:|\n");
			for (int kk = 0; ok && kk < 6; kk++) {
				per_frame[kk] /= nr;
				if (per_frame[kk] <= 0)
					continue;
				struct micro_case *mc = NULL;
				for (int i = 0; i < ncases; i++)
					if (!strcmp(cases[i].name, array_kinds[kk]) && cases[i].handles == 1)
						mc = &cases[i];
				if (!mc || !mc->s[0][0].pooled.n || !mc->s[0][1].pooled.n) {
					ok = false;
					break;
				}
				double cb = stats_median(mc->s[0][0].pooled.v, mc->s[0][0].pooled.n);
				double cp = stats_median(mc->s[0][1].pooled.v, mc->s[0][1].pooled.n);
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
		char fb[4096], fp[4096];
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "%s/fps-%s.txt", datadir, kernels[k]);
			write_values(path, frames[k].windows.v, frames[k].windows.n);
			snprintf(path, sizeof(path), "%s/commits-%s.txt", datadir, kernels[k]);
			write_values(path, frames[k].commit_windows.v, frames[k].commit_windows.n);
			snprintf(path, sizeof(path), "%s/interval-%s.txt", datadir, kernels[k]);
			write_values(path, frames[k].intervals_ms.v, frames[k].intervals_ms.n);
		}
		snprintf(fb, sizeof(fb), "%s/fps-base.txt", datadir);
		snprintf(fp, sizeof(fp), "%s/fps-patched.txt", datadir);
		fprintf(md, "### Output FPS per 5 s window, ministat form (x base, + patched)\n\n");
		char args[9000];
		snprintf(args, sizeof(args), "-w 72 %s %s", fb, fp);
		ministat_block(md, ministat, args);
		double rb[MAX_RUNS], rp[MAX_RUNS];
		for (int r = 0; r < frames[0].runs; r++)
			rb[r] = frames[0].run[r].fps;
		for (int r = 0; r < frames[1].runs; r++)
			rp[r] = frames[1].run[r].fps;
		if (frames[0].windows.n && frames[1].windows.n) {
			struct comparison cmp;
			compare(&frames[0].windows, &frames[1].windows, rb, frames[0].runs, rp, frames[1].runs,
				&rng, &cmp);
			char verdict[64];
			fmt_verdict(verdict, sizeof(verdict), &cmp);
			fprintf(md, "\nWindows of one run are correlated, so the Student's t above is too "
				    "optimistic; the sturdier companions:\n\n");
			fprintf(md, "- bootstrap 95 %% CI of median(patched) − median(base), windows: %+.2f [%+.2f, %+.2f] FPS\n",
				cmp.boot.estimate, cmp.boot.lo, cmp.boot.hi);
			if (cmp.have_welch)
				fprintf(md, "- Welch's t on the per-run FPS (%d vs %d runs): diff %+.2f, 95 %% CI [%+.2f, %+.2f], p = %.3g\n",
					frames[0].runs, frames[1].runs, cmp.welch_runs.diff, cmp.welch_runs.lo,
					cmp.welch_runs.hi, cmp.welch_runs.p);
			fprintf(md, "- Mann–Whitney U = %.1f, p = %.3g", cmp.mw.u, cmp.mw.p);
			if (cmp.have_hl)
				fprintf(md, "; Hodges–Lehmann shift %+.2f [%+.2f, %+.2f] FPS", cmp.hl.estimate,
					cmp.hl.lo, cmp.hl.hi);
			fprintf(md, "\n- **verdict: %s**\n\n", verdict);
			printf("frame FPS: base median %.2f, patched median %.2f: %s\n", cmp.med_b, cmp.med_p,
			       verdict);
		}
		fprintf(md, "### Client commits per 5 s window, ministat form\n\n");
		snprintf(args, sizeof(args), "-w 72 %s/commits-base.txt %s/commits-patched.txt", datadir, datadir);
		ministat_block(md, ministat, args);
		fprintf(md, "\n### For comparison: the cover letter's numbers (theirs, not measured here)\n\n"
			    "vkgears `-present-mailbox` FPS samples as published with the series "
			    "(notes/kernel-series.md), recomputed from N, average and standard deviation "
			    "by `syncway-ministat --moments`. Steam Deck:\n\n");
		ministat_block(md, ministat, "--moments 135,22307.707,198.75011 --moments 118,22671.442,192.10609");
		fprintf(md, "\nAlder Lake laptop:\n\n");
		ministat_block(md, ministat, "--moments 55,7754.5195,191.69526 --moments 55,8150.6303,105.84085");
		fprintf(md, "\nA reviewer reported +2.9 %% (ministat) on a Raspberry Pi 5. Their numbers are vkgears "
			    "on real GPUs at 7 700–22 700 FPS, not comparable in absolute terms with "
			    "this CPU-bound, emulated guest; only the direction and the relative size are.\n\n");
	}

	/* --- ministat blocks per case ---------------------------------------- */
	fprintf(md, "## Appendix: ministat form per case (x base, + patched; batch samples of all boots)\n\n");
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < ncases; i++) {
			struct micro_case *c = &cases[i];
			if (!c->s[m][0].pooled.n || !c->s[m][1].pooled.n)
				continue;
			char fb[4096], fp[4096], args[9000];
			snprintf(fb, sizeof(fb), "%s/%s-%s-%u-base.txt", datadir, modes[m], c->name, c->handles);
			snprintf(fp, sizeof(fp), "%s/%s-%s-%u-patched.txt", datadir, modes[m], c->name, c->handles);
			write_values(fb, c->s[m][0].pooled.v, c->s[m][0].pooled.n);
			write_values(fp, c->s[m][1].pooled.v, c->s[m][1].pooled.n);
			fprintf(md, "### %s, %s, %u handles\n\n", modes[m], c->name, c->handles);
			snprintf(args, sizeof(args), "-w 72 %s %s", fb, fp);
			ministat_block(md, ministat, args);
			fputc('\n', md);
		}

	/* --- plots ----------------------------------------------------------- */
	fprintf(md, "## Plots\n\n![per-ioctl instructions](%s-micro.png)\n\n![FPS windows](%s-fps.png)\n\n"
		    "![frame intervals](%s-frametime.png)\n", pbase, pbase, pbase);
	fclose(md);

	snprintf(path, sizeof(path), "%s-plots.gp", plots);
	FILE *gp = fopen(path, "w");
	if (!gp)
		die("%s: %s", path, strerror(errno));
	const char *dd = basename(datadir);
	fprintf(gp,
		"set terminal pngcairo size 1400,600 noenhanced\n"
		"set output '%s-micro.png'\n"
		"set title 'syncobj ioctls under icount: instructions per call (median)'\n"
		"set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8\n"
		"set xtics rotate by -60 font ',8'\nset logscale y\nset ylabel 'instructions per call'\n"
		"set grid ytics\n"
		"plot '%s/micro-icount.dat' using 2:xtic(1) title 'base', '' using 3 title 'patched'\n"
		"unset logscale y\nunset style\nset xtics norotate font ''\n",
		pbase, dd);
	fprintf(gp,
		"set terminal pngcairo size 900,500 noenhanced\n"
		"set output '%s-fps.png'\n"
		"set title 'output FPS per 5 s window'\nset ylabel 'FPS'\nset xrange [-0.5:1.5]\n"
		"set xtics ('base' 0, 'patched' 1)\nset style fill empty\nset grid ytics\n"
		"set style data points\n"
		"plot '%s/fps-base.txt' using (0+0.15*(rand(0)-0.5)):1 with points pt 7 ps 0.8 title 'base', "
		"'%s/fps-patched.txt' using (1+0.15*(rand(0)-0.5)):1 with points pt 7 ps 0.8 title 'patched'\n"
		"unset xrange\nset autoscale x\nset xtics autofreq\n",
		pbase, dd, dd);
	fprintf(gp,
		"set output '%s-frametime.png'\n"
		"set title 'frame intervals (all frames after warm-up)'\nset xlabel 'interval (ms)'\n"
		"set ylabel 'fraction of frames'\nbw=0.5\nbin(x)=bw*floor(x/bw)+bw/2\nset xrange [0:60]\n"
		"set style fill transparent solid 0.4\n"
		"plot '%s/interval-base.txt' using (bin($1)):(1.0/%zu) smooth frequency with boxes title 'base', "
		"'%s/interval-patched.txt' using (bin($1)):(1.0/%zu) smooth frequency with boxes title 'patched'\n",
		pbase, dd, frames[0].intervals_ms.n ? frames[0].intervals_ms.n : 1, dd,
		frames[1].intervals_ms.n ? frames[1].intervals_ms.n : 1);
	fclose(gp);
	printf("wrote %s and %s\n", out, path);
	return 0;
}
