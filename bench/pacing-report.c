/* The pacing demo's table and plots (tools/pacing-demo; docs/compositor.md,
 * "Frame pacing"): from syncway's --stats JSON lines, per client (a surface,
 * known by its app id) the presented commits, their intervals and their
 * commit-to-present latencies.
 *
 *   syncway-pacing-report STATS.jsonl OUT_DIR APP_ID:CADENCE:LABEL...
 *
 * CADENCE is the number of refreshes the client means each frame to last
 * (1 for a client that wants every refresh; 2 for 30 FPS on a 60 Hz
 * output). Writes OUT_DIR/pacing-table.md (also on stdout), one data file
 * per client (OUT_DIR/pacing-APP_ID.dat: presentation time in seconds from
 * the first of any client, interval and latency in ms) and OUT_DIR/pacing.gp,
 * the gnuplot script of pacing-frametimes.png and pacing-latency.png. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stats.h"

#define MAX_SURFACES 256
#define MAX_CLIENTS 16

struct present {
	double t_ns;       /* when it was presented */
	double latency_ms; /* commit -> presented */
};

struct surface {
	unsigned id;
	char app_id[64];
	struct present *p;
	size_t n, cap;
	size_t dropped; /* replaced before any frame showed them */
};

struct client {
	const char *app_id, *label;
	int cadence;
	struct surface *s;
};

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("syncway-pacing-report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static struct surface surfaces[MAX_SURFACES];
static size_t n_surfaces;

static struct surface *surface_get(unsigned id)
{
	for (size_t i = 0; i < n_surfaces; i++)
		if (surfaces[i].id == id)
			return &surfaces[i];
	if (n_surfaces == MAX_SURFACES)
		die("more than %d surfaces", MAX_SURFACES);
	surfaces[n_surfaces].id = id;
	return &surfaces[n_surfaces++];
}

static bool num(const char *line, const char *key, double *out)
{
	const char *p = sw_json_find(line, key);
	char *end;
	if (!p)
		return false;
	*out = strtod(p, &end);
	return end != p;
}

/* The string value of key, unescaped only as far as our app ids need. */
static bool str(const char *line, const char *key, char *out, size_t len)
{
	const char *p = sw_json_find(line, key);
	if (!p || *p != '"')
		return false;
	size_t i = 0;
	for (p++; *p && *p != '"' && i + 1 < len; p++)
		out[i++] = *p;
	out[i] = '\0';
	return true;
}

/* The refresh period of the output(s), from the frame lines; 0: none. */
static double read_stats(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		die("cannot read %s: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	double refresh_ns = 0;
	long no = 0;
	while (getline(&line, &cap, f) > 0) {
		no++;
		double v, t, lat;
		if (strstr(line, "\"type\":\"frame\"")) {
			if (!refresh_ns && num(line, "refresh_ns", &v))
				refresh_ns = v;
		} else if (strstr(line, "\"type\":\"commit\"")) {
			if (!num(line, "surface", &v) || !num(line, "t_ns", &t))
				die("%s:%ld: a commit line without surface or t_ns", path, no);
			struct surface *s = surface_get((unsigned)v);
			if (strstr(line, "\"result\":\"dropped\""))
				s->dropped++;
			if (!strstr(line, "\"result\":\"presented\""))
				continue;
			if (!num(line, "present_ns", &lat))
				die("%s:%ld: a presented commit without present_ns", path, no);
			if (s->n == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 256;
				s->p = realloc(s->p, s->cap * sizeof(*s->p));
				if (!s->p)
					die("out of memory");
			}
			s->p[s->n++] = (struct present){ .t_ns = t + lat, .latency_ms = lat / 1e6 };
		} else if (strstr(line, "\"type\":\"surface_summary\"")) {
			if (!num(line, "surface", &v))
				die("%s:%ld: a surface_summary without surface", path, no);
			struct surface *s = surface_get((unsigned)v);
			str(line, "app_id", s->app_id, sizeof(s->app_id));
		}
	}
	free(line);
	fclose(f);
	return refresh_ns;
}

static int by_time(const void *a, const void *b)
{
	double x = ((const struct present *)a)->t_ns, y = ((const struct present *)b)->t_ns;
	return x < y ? -1 : x > y;
}

/* The surface of app_id with the most presented commits. */
static struct surface *find_client(const char *app_id)
{
	struct surface *best = NULL;
	for (size_t i = 0; i < n_surfaces; i++)
		if (strcmp(surfaces[i].app_id, app_id) == 0 && (!best || surfaces[i].n > best->n))
			best = &surfaces[i];
	return best;
}

static void fmt_row(FILE *f, const struct client *c, double refresh_ns)
{
	struct surface *s = c->s;
	if (!s || s->n < 2) {
		fprintf(f, "| %s | %zu presented: not measured | | | | | |\n", c->label, s ? s->n : 0);
		return;
	}
	qsort(s->p, s->n, sizeof(*s->p), by_time);
	struct stats_sample iv, lat;
	stats_sample_init(&iv);
	stats_sample_init(&lat);
	long missed = 0;
	for (size_t i = 0; i < s->n; i++) {
		stats_sample_add(&lat, s->p[i].latency_ms);
		if (i == 0)
			continue;
		double d = s->p[i].t_ns - s->p[i - 1].t_ns;
		stats_sample_add(&iv, d / 1e6);
		if (refresh_ns > 0) {
			long k = lround(d / (c->cadence * refresh_ns)) - 1;
			missed += k > 0 ? k : 0;
		}
	}
	struct stats_summary siv, slat;
	stats_sample_summarize(&iv, &siv);
	stats_sample_summarize(&lat, &slat);
	double secs = (s->p[s->n - 1].t_ns - s->p[0].t_ns) / 1e9;
	fprintf(f, "| %s | %.2f | %.2f / %.2f | ", c->label, (double)(s->n - 1) / secs,
		stats_percentile(iv.v, iv.n, 50), stats_percentile(iv.v, iv.n, 99));
	/* One interval has no spread. */
	if (isfinite(siv.stddev))
		fprintf(f, "%.2f | ", siv.stddev);
	else
		fputs("n/a | ", f);
	if (refresh_ns > 0)
		fprintf(f, "%ld | ", missed);
	else
		fputs("n/a | ", f);
	fprintf(f, "%zu | %.2f / %.2f |\n", s->dropped, stats_percentile(lat.v, lat.n, 50),
		stats_percentile(lat.v, lat.n, 99));
	stats_sample_free(&iv);
	stats_sample_free(&lat);
}

int main(int argc, char **argv)
{
	if (argc < 4)
		die("usage: syncway-pacing-report STATS.jsonl OUT_DIR APP_ID:CADENCE:LABEL...");
	const char *dir = argv[2];
	struct client clients[MAX_CLIENTS];
	int n_clients = 0;
	for (int i = 3; i < argc; i++) {
		if (n_clients == MAX_CLIENTS)
			die("more than %d clients", MAX_CLIENTS);
		char *spec = argv[i], *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			die("'%s' is not APP_ID:CADENCE:LABEL", spec);
		*c1 = *c2 = '\0';
		struct client *c = &clients[n_clients++];
		c->app_id = spec;
		c->cadence = atoi(c1 + 1);
		c->label = c2 + 1;
		if (c->cadence < 1)
			die("%s: the cadence is a number of refreshes, at least 1", spec);
	}

	double refresh_ns = read_stats(argv[1]);
	double t0 = 0;
	for (int i = 0; i < n_clients; i++) {
		clients[i].s = find_client(clients[i].app_id);
		if (!clients[i].s)
			fprintf(stderr, "syncway-pacing-report: no surface with app id %s in %s\n",
				clients[i].app_id, argv[1]);
		for (size_t j = 0; clients[i].s && j < clients[i].s->n; j++)
			if (!t0 || clients[i].s->p[j].t_ns < t0)
				t0 = clients[i].s->p[j].t_ns;
	}

	char path[4096];
	snprintf(path, sizeof(path), "%s/pacing-table.md", dir);
	FILE *md = fopen(path, "we");
	if (!md)
		die("cannot write %s: %s", path, strerror(errno));
	FILE *outs[2] = { md, stdout };
	for (int k = 0; k < 2; k++) {
		fprintf(outs[k], "| client | FPS | frame time p50 / p99 (ms) | jitter (ms, sd) | missed "
			"refreshes | dropped | commit→present p50 / p99 (ms) |\n|---|--:|--:|--:|--:|--:|--:|\n");
		for (int i = 0; i < n_clients; i++)
			fmt_row(outs[k], &clients[i], refresh_ns);
	}
	fclose(md);

	snprintf(path, sizeof(path), "%s/pacing.gp", dir);
	FILE *gp = fopen(path, "we");
	if (!gp)
		die("cannot write %s: %s", path, strerror(errno));
	int n_plots = 0;
	double t_end = 0;
	for (int i = 0; i < n_clients; i++) {
		struct surface *s = clients[i].s;
		if (!s || s->n < 2)
			continue;
		n_plots++;
		if ((s->p[s->n - 1].t_ns - t0) / 1e9 > t_end)
			t_end = (s->p[s->n - 1].t_ns - t0) / 1e9;
	}
	/* One panel per client, on one time axis: overlaid, five clients'
	 * frame times are one blur. */
	fprintf(gp, "set terminal pngcairo size 1000,%d font ',10'\n"
		"set output 'pacing-frametimes.png'\n"
		"set multiplot layout %d,1 title 'Frame time of each client (interval between its "
		"presented frames)'\n"
		"set grid\nset key off\nset yrange [0:*]\nset ytics 16.6667 format '%%.1f'\n"
		"set lmargin 10\nset tmargin 1.5\nset bmargin 1.5\nset xrange [0:%.3f]\n",
		120 * (n_plots ? n_plots : 1) + 60, n_plots ? n_plots : 1, t_end);
	int plotted = 0;
	for (int i = 0; i < n_clients; i++) {
		struct surface *s = clients[i].s;
		if (!s || s->n < 2)
			continue;
		snprintf(path, sizeof(path), "%s/pacing-%s.dat", dir, clients[i].app_id);
		FILE *dat = fopen(path, "we");
		if (!dat)
			die("cannot write %s: %s", path, strerror(errno));
		fputs("# t_s interval_ms latency_ms\n", dat);
		for (size_t j = 1; j < s->n; j++)
			fprintf(dat, "%.6f %.3f %.3f\n", (s->p[j].t_ns - t0) / 1e9,
				(s->p[j].t_ns - s->p[j - 1].t_ns) / 1e6, s->p[j].latency_ms);
		fclose(dat);
		plotted++;
		fprintf(gp, "set title '%s' offset 0,-0.8\nset ylabel 'ms'\n%s"
			"plot 'pacing-%s.dat' using 1:2 with points pt 7 ps 0.35 lc %d\n", clients[i].label,
			plotted == n_plots ? "set xlabel 'time (s)'\n" : "", clients[i].app_id, plotted);
	}
	fputs("unset multiplot\nreset\nset terminal pngcairo size 1000,560 font ',10'\n"
	      "set key top left\nset grid\n", gp);
	fputs("\nset output 'pacing-latency.png'\n"
	      "set title 'Commit to present latency, sorted (a CDF on its side)'\n"
	      "set xlabel 'fraction of presented commits'\nset ylabel 'commit to present (ms)'\n"
	      "set xrange [0:1]\nset yrange [0:*]\nplot ", gp);
	plotted = 0;
	for (int i = 0; i < n_clients; i++) {
		struct surface *s = clients[i].s;
		if (!s || s->n < 2)
			continue;
		fprintf(gp, "%s'< sort -g -k3 pacing-%s.dat' using ($0/%zu):3 with lines lw 2 title '%s'",
			plotted++ ? ", \\\n     " : "", clients[i].app_id, s->n - 1, clients[i].label);
	}
	fputc('\n', gp);
	fclose(gp);
	return 0;
}
