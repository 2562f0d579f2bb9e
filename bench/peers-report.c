/* The peer comparison's tables, verdicts and plot (tools/peers,
 * docs/peers.md): syncway, sway and weston on the same clients, measured
 * from the client's side (the present probe's wp_presentation feedback) and
 * by the compositor process's CPU time over a window (busy-window).
 *
 *   syncway-peers-report MANIFEST OUT_DIR CLOCK HZ
 *
 * MANIFEST has one JSON line per run of a client on a compositor in a boot:
 *   {"boot":N,"compositor":"sway","client":"simple-shm","probe":"P","window":"W"}
 * (P: the probe's JSON lines, W: busy-window's line, or a "skip" line with a
 * "why"). CLOCK is "icount" (busy ns are instructions: -icount shift=0) or
 * "wall"; HZ the output's nominal refresh, for compositors whose feedback
 * reports no refresh period (wlroots' headless backend reports 0).
 *
 * Per run, over the window: presented frames of the client (presentation
 * time inside the window), FPS, missed refreshes (Σ max(0, round(interval /
 * refresh) − 1) between consecutive presented frames), the median
 * commit→present latency, and the compositor's busy time per presented
 * frame. One value per boot is the unit of the statistics; the verdicts
 * compare syncway against each other compositor, and each variant of it
 * (syncway-plain) against each peer, with stats_boot_compare(): the spread
 * rule under the instruction clock, the tests otherwise.
 *
 * Writes OUT_DIR/peers-table.md (also on stdout), OUT_DIR/peers.dat and
 * OUT_DIR/peers.gp (gnuplot: peers-cpu.png and peers-fps.png),
 * OUT_DIR/peers-summary.jsonl (one line per client and compositor, for the
 * test command's pipeline check) and, per client and compositor with a
 * value, OUT_DIR/cpu-CLIENT-COMPOSITOR.txt (one value per boot, for
 * syncway-ministat). */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stats.h"

#define MAX_NAMES 16
#define MAX_BOOTS 64
#define LINE_MAX_LEN 4096

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("syncway-peers-report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* One run's figures. */
struct run {
	bool done;
	double cpu;	/* compositor busy ns per presented frame */
	double client_cpu;
	double fps;
	double missed_per_s;
	double latency_ms;
	double refresh_ms; /* as the client's feedback said; 0: not reported */
	double interval_ms; /* median interval between presented frames */
	long frames;
	long subsurfaces, deco_requests;
	long deco_mode; /* last set_mode asked for; 0: none */
};

struct cell {
	struct run runs[MAX_BOOTS];
	int n_runs;
	char why[160]; /* of the first skip */
	int skips;
};

static char comps[MAX_NAMES][32], clients[MAX_NAMES][32];
static int n_comps, n_clients;
static struct cell cells[MAX_NAMES][MAX_NAMES]; /* [client][compositor] */

static int name_index(char names[][32], int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return i;
	if (*n == MAX_NAMES)
		die("more than %d names", MAX_NAMES);
	snprintf(names[*n], 32, "%s", name);
	return (*n)++;
}

/* The string value of key into buf (no escapes: our own names). */
static bool json_str(const char *line, const char *key, char *buf, size_t len)
{
	const char *v = sw_json_find(line, key);
	if (!v || *v != '"')
		return false;
	v++;
	size_t n = strcspn(v, "\"");
	if (n >= len)
		n = len - 1;
	memcpy(buf, v, n);
	buf[n] = 0;
	return true;
}

static bool json_num(const char *line, const char *key, double *out)
{
	const char *v = sw_json_find(line, key);
	if (!v)
		return false;
	char *end;
	*out = strtod(v, &end);
	return end != v;
}

static double median_of(struct stats_sample *s)
{
	if (!s->n)
		return NAN;
	stats_sort(s->v, s->n);
	return stats_median(s->v, s->n);
}

/* The figures of one run from its window and probe files; false (and why)
 * for a skipped run. */
static bool read_run(const char *window, const char *probe, double hz, struct run *r, char *why,
		     size_t why_len)
{
	char line[LINE_MAX_LEN];
	FILE *f = fopen(window, "r");
	if (!f) {
		snprintf(why, why_len, "no window file");
		return false;
	}
	double t0 = NAN, t1 = NAN, busy = NAN, client_busy = NAN;
	while (fgets(line, sizeof(line), f)) {
		char type[32];
		if (!json_str(line, "type", type, sizeof(type)))
			continue;
		if (!strcmp(type, "skip")) {
			json_str(line, "why", why, why_len);
			fclose(f);
			return false;
		}
		if (strcmp(type, "window") != 0)
			continue;
		json_num(line, "window_start_ns", &t0);
		json_num(line, "window_end_ns", &t1);
		/* procs: the compositor first, then the client. */
		const char *p = strstr(line, "\"procs\"");
		if (p && json_num(p, "busy_ns", &busy)) {
			const char *q = strstr(p, "},{");
			if (q)
				json_num(q, "busy_ns", &client_busy);
		}
	}
	fclose(f);
	if (!isfinite(t0) || !isfinite(t1) || !isfinite(busy) || t1 <= t0) {
		snprintf(why, why_len, "no window line");
		return false;
	}
	f = fopen(probe, "r");
	if (!f) {
		snprintf(why, why_len, "no probe file");
		return false;
	}
	struct stats_sample lat, iv;
	stats_sample_init(&lat);
	stats_sample_init(&iv);
	double prev = NAN, refresh = 0, missed = 0;
	long frames = 0;
	memset(r, 0, sizeof(*r));
	while (fgets(line, sizeof(line), f)) {
		char type[32], what[48];
		if (!json_str(line, "type", type, sizeof(type)))
			continue;
		if (!strcmp(type, "request") && json_str(line, "what", what, sizeof(what))) {
			if (!strcmp(what, "get_subsurface"))
				r->subsurfaces++;
			else {
				double m;
				r->deco_requests++;
				if (json_num(line, "mode", &m))
					r->deco_mode = (long)m;
			}
			continue;
		}
		if (strcmp(type, "present") != 0)
			continue;
		double c, t, rf;
		if (!json_num(line, "commit_ns", &c) || !json_num(line, "present_ns", &t))
			continue;
		if (json_num(line, "refresh_ns", &rf) && rf > 0)
			refresh = rf;
		if (t < t0 || t > t1)
			continue;
		frames++;
		stats_sample_add(&lat, (t - c) / 1e6);
		if (isfinite(prev)) {
			double period = refresh > 0 ? refresh : 1e9 / hz;
			double k = round((t - prev) / period) - 1;
			if (k > 0)
				missed += k;
			stats_sample_add(&iv, (t - prev) / 1e6);
		}
		prev = t;
	}
	fclose(f);
	if (frames == 0) {
		snprintf(why, why_len, "no frame presented in the window");
		stats_sample_free(&lat);
		stats_sample_free(&iv);
		return false;
	}
	double secs = (t1 - t0) / 1e9;
	r->done = true;
	r->frames = frames;
	r->cpu = busy / (double)frames;
	r->client_cpu = isfinite(client_busy) ? client_busy / (double)frames : NAN;
	r->fps = (double)frames / secs;
	r->missed_per_s = missed / secs;
	r->latency_ms = median_of(&lat);
	r->interval_ms = median_of(&iv);
	r->refresh_ms = refresh / 1e6;
	stats_sample_free(&lat);
	stats_sample_free(&iv);
	return true;
}

/* The per-boot values of one figure of a cell. */
static size_t values(const struct cell *c, size_t offset, double *out)
{
	size_t n = 0;
	for (int i = 0; i < c->n_runs; i++)
		if (c->runs[i].done)
			out[n++] = *(const double *)((const char *)&c->runs[i] + offset);
	return n;
}

struct spread {
	size_t n;
	double median, min, max;
};

static struct spread spread_of(const struct cell *c, size_t offset)
{
	double v[MAX_BOOTS];
	struct spread s = { .n = values(c, offset, v), .median = NAN, .min = NAN, .max = NAN };
	if (s.n) {
		stats_sort(v, s.n);
		s.median = stats_median(v, s.n);
		s.min = v[0];
		s.max = v[s.n - 1];
	}
	return s;
}

/* "1.23 (1.20–1.30)", scaled; "1.23" for one boot. */
static void fmt_spread(char *buf, size_t len, struct spread s, double scale, int digits)
{
	if (!s.n)
		snprintf(buf, len, "–");
	else if (s.n == 1)
		snprintf(buf, len, "%.*f", digits, s.median * scale);
	else
		snprintf(buf, len, "%.*f (%.*f–%.*f)", digits, s.median * scale, digits, s.min * scale, digits,
			 s.max * scale);
}

static bool is_syncway(const char *comp)
{
	return !strncmp(comp, "syncway", strlen("syncway"));
}

/* One line of the verdict table and of the summary: compositor sw (syncway
 * or a variant) against compositor j on client k. */
static void verdict_row(FILE *md, FILE *sum, int k, int sw, int j, bool icount)
{
	struct cell *s = &cells[k][sw], *p = &cells[k][j];
	double vs[MAX_BOOTS], vp[MAX_BOOTS], fs[MAX_BOOTS], fp[MAX_BOOTS];
	size_t ns = values(s, offsetof(struct run, cpu), vs), np = values(p, offsetof(struct run, cpu), vp);
	values(s, offsetof(struct run, fps), fs);
	values(p, offsetof(struct run, fps), fp);
	if (!ns || !np) {
		fprintf(md, "| %s | %s | %s | – | not both run | – |\n", clients[k], comps[sw], comps[j]);
		return;
	}
	struct stats_boot_verdict v, vf;
	enum stats_boot_rule rule = icount ? STATS_BOOT_SPREAD : STATS_BOOT_TEST;
	if (stats_boot_compare(vp, np, vs, ns, rule, &v) != 0 || stats_boot_compare(fp, np, fs, ns, rule, &vf) != 0)
		die("%s: no verdict", clients[k]);
	fprintf(md, "| %s | %s | %s | %.3f | %s | %s |\n", clients[k], comps[sw], comps[j], v.median / v.median_ref,
		v.verdict, vf.verdict);
	fprintf(sum, "{\"client\":\"%s\",\"syncway\":\"%s\",\"syncway_vs\":\"%s\",\"ratio\":%.4f,\"proven\":%s}\n",
		clients[k], comps[sw], comps[j], v.median / v.median_ref, v.proven ? "true" : "false");
}

int main(int argc, char **argv)
{
	if (argc != 5)
		die("usage: syncway-peers-report MANIFEST OUT_DIR icount|wall HZ");
	const char *out_dir = argv[2];
	bool icount = !strcmp(argv[3], "icount");
	if (!icount && strcmp(argv[3], "wall") != 0)
		die("the clock is icount or wall, not '%s'", argv[3]);
	double hz = atof(argv[4]);
	if (!(hz > 0))
		die("bad refresh rate '%s'", argv[4]);
	FILE *m = fopen(argv[1], "r");
	if (!m)
		die("cannot read %s", argv[1]);
	char line[LINE_MAX_LEN];
	while (fgets(line, sizeof(line), m)) {
		char comp[32], client[32], probe[1024], window[1024];
		if (!json_str(line, "compositor", comp, sizeof(comp)) ||
		    !json_str(line, "client", client, sizeof(client)) ||
		    !json_str(line, "probe", probe, sizeof(probe)) || !json_str(line, "window", window, sizeof(window)))
			die("manifest line without compositor, client, probe or window: %s", line);
		struct cell *c = &cells[name_index(clients, &n_clients, client)][name_index(comps, &n_comps, comp)];
		if (c->n_runs == MAX_BOOTS)
			die("more than %d boots", MAX_BOOTS);
		char why[160] = "";
		if (!read_run(window, probe, hz, &c->runs[c->n_runs], why, sizeof(why))) {
			if (!c->skips++)
				snprintf(c->why, sizeof(c->why), "%s", why);
		}
		c->n_runs++;
	}
	fclose(m);
	if (!n_clients)
		die("%s: no runs", argv[1]);

	char path[1200];
	snprintf(path, sizeof(path), "%s/peers-table.md", out_dir);
	FILE *md = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/peers-summary.jsonl", out_dir);
	FILE *sum = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/peers.dat", out_dir);
	FILE *dat = fopen(path, "w");
	if (!md || !sum || !dat)
		die("cannot write in %s", out_dir);

	/* The figures: one row per client and compositor. */
	const char *unit = icount ? "M instructions" : "ms";
	double scale = 1e-6; /* ns (or instructions) to ms (or M instructions) */
	fprintf(md, "| client | compositor | boots | compositor %s / presented frame | client %s / frame "
		    "| presented FPS | missed refreshes / s | commit→present ms | refresh seen ms | "
		    "client subsurfaces, decoration requests |\n",
		unit, unit);
	fprintf(md, "|---|---|---|---|---|---|---|---|---|---|\n");
	for (int k = 0; k < n_clients; k++) {
		for (int j = 0; j < n_comps; j++) {
			struct cell *c = &cells[k][j];
			if (!c->n_runs)
				continue;
			struct spread cpu = spread_of(c, offsetof(struct run, cpu));
			char a[64], b[64], f[64], mi[64], l[64], rf[64];
			if (!cpu.n) {
				fprintf(md, "| %s | %s | %d | not run: %s | | | | | | |\n", clients[k], comps[j], c->n_runs,
					c->why);
				fprintf(sum, "{\"client\":\"%s\",\"compositor\":\"%s\",\"boots\":0,\"skipped\":%d,"
					     "\"why\":\"%s\"}\n", clients[k], comps[j], c->skips, c->why);
				continue;
			}
			fmt_spread(a, sizeof(a), cpu, scale, icount ? 3 : 3);
			fmt_spread(b, sizeof(b), spread_of(c, offsetof(struct run, client_cpu)), scale, 3);
			struct spread fps = spread_of(c, offsetof(struct run, fps));
			fmt_spread(f, sizeof(f), fps, 1, 1);
			fmt_spread(mi, sizeof(mi), spread_of(c, offsetof(struct run, missed_per_s)), 1, 1);
			fmt_spread(l, sizeof(l), spread_of(c, offsetof(struct run, latency_ms)), 1, 2);
			struct spread r = spread_of(c, offsetof(struct run, refresh_ms));
			struct spread iv = spread_of(c, offsetof(struct run, interval_ms));
			if (r.max > 0)
				snprintf(rf, sizeof(rf), "%.2f", r.median);
			else
				snprintf(rf, sizeof(rf), "0 (interval %.2f)", iv.median);
			long subs = 0, decos = 0, mode = 0;
			long min_frames = -1;
			for (int i = 0; i < c->n_runs; i++) {
				if (!c->runs[i].done)
					continue;
				subs = c->runs[i].subsurfaces > subs ? c->runs[i].subsurfaces : subs;
				decos = c->runs[i].deco_requests > decos ? c->runs[i].deco_requests : decos;
				mode = c->runs[i].deco_mode ? c->runs[i].deco_mode : mode;
				if (min_frames < 0 || c->runs[i].frames < min_frames)
					min_frames = c->runs[i].frames;
			}
			fprintf(md, "| %s | %s | %zu%s | %s | %s | %s | %s | %s | %s | %ld, %ld%s |\n", clients[k], comps[j],
				cpu.n, c->skips ? " (+ skips)" : "", a, b, f, mi, l, rf, subs, decos,
				mode == 1 ? " (asked client-side)" : mode == 2 ? " (asked server-side)" : "");
			fprintf(sum, "{\"client\":\"%s\",\"compositor\":\"%s\",\"boots\":%zu,\"skipped\":%d,"
				     "\"min_frames\":%ld,\"cpu_per_frame\":%.0f,\"fps\":%.3f}\n",
				clients[k], comps[j], cpu.n, c->skips, min_frames, cpu.median, fps.median);
			/* ministat's input: one value per boot. */
			snprintf(path, sizeof(path), "%s/cpu-%s-%s.txt", out_dir, clients[k], comps[j]);
			FILE *v = fopen(path, "w");
			if (!v)
				die("cannot write %s", path);
			for (int i = 0; i < c->n_runs; i++)
				if (c->runs[i].done)
					fprintf(v, "%.0f\n", c->runs[i].cpu);
			fclose(v);
		}
	}

	/* The verdicts, per client: syncway against every other compositor
	 * (its variants included: what their switches cost), each variant
	 * against the peers. */
	fprintf(md, "\n| client | syncway | vs | compositor %s / frame: syncway / other | verdict | "
		    "presented FPS: verdict |\n|---|---|---|---|---|---|\n", unit);
	for (int k = 0; k < n_clients; k++) {
		for (int sw = 0; sw < n_comps; sw++) {
			if (!is_syncway(comps[sw]))
				continue;
			for (int j = 0; j < n_comps; j++) {
				if (j != sw && (!strcmp(comps[sw], "syncway") || !is_syncway(comps[j])))
					verdict_row(md, sum, k, sw, j, icount);
			}
		}
	}

	/* The plot data: per client, per compositor median, min, max of the
	 * CPU per frame and of the FPS (NaN where it did not run). */
	fprintf(dat, "# client");
	for (int j = 0; j < n_comps; j++)
		fprintf(dat, " %s_cpu %s_min %s_max %s_fps %s_fmin %s_fmax", comps[j], comps[j], comps[j], comps[j],
			comps[j], comps[j]);
	fputc('\n', dat);
	for (int k = 0; k < n_clients; k++) {
		fprintf(dat, "%s", clients[k]);
		for (int j = 0; j < n_comps; j++) {
			struct spread c = spread_of(&cells[k][j], offsetof(struct run, cpu));
			struct spread f = spread_of(&cells[k][j], offsetof(struct run, fps));
			fprintf(dat, " %g %g %g %g %g %g", c.median * scale, c.min * scale, c.max * scale, f.median,
				f.min, f.max);
		}
		fputc('\n', dat);
	}
	snprintf(path, sizeof(path), "%s/peers.gp", out_dir);
	FILE *gp = fopen(path, "w");
	if (!gp)
		die("cannot write %s", path);
	fprintf(gp, "set terminal pngcairo size 900,480 font ',10'\n"
		    "set style data histogram\nset style histogram errorbars gap 2 lw 1\n"
		    "set style fill solid 0.7 border -1\nset key top left\nset grid ytics\n"
		    "set yrange [0:*]\nset datafile missing 'nan'\nset xtics noenhanced\n");
	for (int plot = 0; plot < 2; plot++) {
		fprintf(gp, "set output 'peers-%s.png'\nset ylabel '%s'\nset title '%s'\nplot ", plot ? "fps" : "cpu",
			plot ? "presented FPS" : icount ? "compositor M instructions / presented frame" :
							  "compositor CPU ms / presented frame",
			plot ? "Presented frames per second (median of the boots, min–max)" :
			       "Compositor cost per presented frame (median of the boots, min–max)");
		for (int j = 0; j < n_comps; j++)
			fprintf(gp, "%s'peers.dat' using %d:%d:%d:xtic(1) title '%s'", j ? ", " : "", 2 + 6 * j + 3 * plot,
				3 + 6 * j + 3 * plot, 4 + 6 * j + 3 * plot, comps[j]);
		fputc('\n', gp);
	}
	fclose(gp);
	fclose(dat);
	fclose(sum);
	fclose(md);
	snprintf(path, sizeof(path), "%s/peers-table.md", out_dir);
	FILE *in = fopen(path, "r");
	if (in) {
		while (fgets(line, sizeof(line), in))
			fputs(line, stdout);
		fclose(in);
	}
	return 0;
}
