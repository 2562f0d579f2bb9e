/* The soak benchmark's verdict (tools/soak, docs/bench.md "Soak"): from the
 * guest's samples of syncway (bench/soak-guest.sh), the slope of each
 * resource against presented frames after the warm-up, with its interval
 * (stats_linear_fit: least squares, corrected for residuals that follow each
 * other), and whether it grows.
 *
 *   syncway-soak-report [--warmup PCT] [--rss-tolerance B] [--count-tolerance N]
 *                       SAMPLES.tsv TABLE.md
 *
 * Writes the table (markdown) to TABLE.md and stdout, then one line per
 * resource and the verdict on stderr. A resource grows when the lower end
 * of its 95 % interval is above its tolerance: B bytes a frame for memory,
 * N a frame for fds and syncobj handles (both 0 unless given). VmRSS, open
 * fds and syncobj handles decide; VmRSS's parts (RssAnon, RssFile: pages of
 * mapped files, RssShmem: the clients' shm pools mapped), malloc's bytes
 * in use and free (which tell a leak from pages the allocator keeps), the
 * [heap] mapping's size and resident pages and the open fds that are not
 * sockets are shown.
 *
 * A VmRSS that grows is **bounded** instead when all of its growth is in
 * the [heap] mapping and that mapping cannot grow: VmRSS but the [heap]'s
 * pages, the [heap]'s size and malloc's bytes in use all flat. Then VmRSS
 * stays under VmRSS but the heap plus the heap's size, both flat: what
 * moves is which pages of a fixed heap are resident between two of
 * malloc_trim()'s walks (compositor/heap_trim.c), not memory taken. The
 * rule was set before the day-long run it judges (docs/results/soak.md).
 * Exit status: 0 flat or bounded,
 * 1 growing, 2 too few samples or another error. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* A day of 60 Hz frames. */
#define FRAMES_PER_DAY (60.0 * 86400)

/* RssFile, RssShmem, the heap and the sockets came later: samples without
 * them read as "-". The fds that are not sockets are worked out from two
 * columns. */
enum column { C_TIME, C_FRAMES, C_RSS, C_ANON, C_FDS, C_HANDLES, C_LONGEST, C_FPS, C_CPU, C_FILE, C_SHMEM,
	      C_HEAP, C_HEAP_FREE, C_SOCKETS, C_HEAP_SIZE, C_HEAP_RSS, N_FILE_COLUMNS,
	      C_FDS_NOT_SOCKETS = N_FILE_COLUMNS, C_RSS_BUT_HEAP, N_COLUMNS, N_REQUIRED = C_FILE };

struct series {
	const char *name;
	enum column column;
	double scale;     /* to the unit */
	const char *unit; /* of one value, after scale */
	bool decides;
	bool memory;      /* --rss-tolerance applies, else --count-tolerance */
};

enum series_id { S_RSS, S_RSS_BUT_HEAP, S_HEAP_SIZE, S_HEAP_RSS, S_ANON, S_FILE, S_SHMEM, S_HEAP_IN_USE,
		 S_HEAP_FREE, S_FDS, S_FDS_NOT_SOCKETS, S_HANDLES, N_SERIES };

static const struct series series[N_SERIES] = {
	[S_RSS] = { "VmRSS", C_RSS, 1024, "bytes", true, true },
	[S_RSS_BUT_HEAP] = { "VmRSS but [heap]", C_RSS_BUT_HEAP, 1024, "bytes", false, true },
	[S_HEAP_SIZE] = { "[heap] size", C_HEAP_SIZE, 1024, "bytes", false, true },
	[S_HEAP_RSS] = { "[heap] resident", C_HEAP_RSS, 1024, "bytes", false, true },
	[S_ANON] = { "RssAnon", C_ANON, 1024, "bytes", false, true },
	[S_FILE] = { "RssFile", C_FILE, 1024, "bytes", false, true },
	[S_SHMEM] = { "RssShmem", C_SHMEM, 1024, "bytes", false, true },
	[S_HEAP_IN_USE] = { "heap in use", C_HEAP, 1, "bytes", false, true },
	[S_HEAP_FREE] = { "heap free", C_HEAP_FREE, 1, "bytes", false, true },
	[S_FDS] = { "open fds", C_FDS, 1, "fds", true, false },
	[S_FDS_NOT_SOCKETS] = { "open fds but sockets", C_FDS_NOT_SOCKETS, 1, "fds", false, false },
	[S_HANDLES] = { "syncobj handles", C_HANDLES, 1, "handles", true, false },
};

/* One series after the warm-up. */
struct result {
	bool measured; /* in every sample */
	struct stats_linear_fit fit;
	double limit;  /* its tolerance, a frame */
	bool grows;    /* beyond it */
	double first, last, max;
};

struct samples {
	double *v[N_COLUMNS]; /* NaN: "-" */
	size_t n, cap;
};

static int read_samples(const char *path, struct samples *s)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 256;
			for (int c = 0; c < N_COLUMNS; c++)
				s->v[c] = realloc(s->v[c], s->cap * sizeof(double));
		}
		char *p = line;
		for (int c = 0; c < N_FILE_COLUMNS; c++) {
			char *end;
			double x = p ? strtod(p, &end) : NAN;
			s->v[c][s->n] = !p || end == p ? NAN : x;
			p = p ? strchr(p, '\t') : NULL;
			if (!p && c < N_REQUIRED - 1) {
				fclose(f);
				return -EINVAL;
			}
			p = p ? p + 1 : NULL;
		}
		/* Clients' connections come and go with their sessions: what
		 * stays besides them is where a leak of other fds shows. */
		s->v[C_FDS_NOT_SOCKETS][s->n] = s->v[C_FDS][s->n] - s->v[C_SOCKETS][s->n];
		s->v[C_RSS_BUT_HEAP][s->n] = s->v[C_RSS][s->n] - s->v[C_HEAP_RSS][s->n];
		s->n++;
	}
	fclose(f);
	return 0;
}

/* "+1.23 MB" and the like, for bytes; plain numbers otherwise. */
static const char *human(char *buf, size_t len, double x, const char *unit)
{
	if (strcmp(unit, "bytes") != 0) {
		snprintf(buf, len, "%+.3g %s", x, unit);
		return buf;
	}
	const char *units[] = { "bytes", "kB", "MB", "GB", "TB" };
	int u = 0;
	while (fabs(x) >= 1000 && u < 4) {
		x /= 1000;
		u++;
	}
	snprintf(buf, len, "%+.3g %s", x, units[u]);
	return buf;
}

int main(int argc, char **argv)
{
	double warmup = 10, rss_tolerance = 0, count_tolerance = 0;
	int arg = 1;
	for (; arg + 1 < argc && strncmp(argv[arg], "--", 2) == 0; arg += 2) {
		if (strcmp(argv[arg], "--warmup") == 0)
			warmup = atof(argv[arg + 1]);
		else if (strcmp(argv[arg], "--rss-tolerance") == 0)
			rss_tolerance = atof(argv[arg + 1]);
		else if (strcmp(argv[arg], "--count-tolerance") == 0)
			count_tolerance = atof(argv[arg + 1]);
		else
			break;
	}
	if (argc - arg != 2 || warmup < 0 || warmup >= 90 || rss_tolerance < 0 || count_tolerance < 0) {
		fputs("usage: syncway-soak-report [--warmup PCT] [--rss-tolerance B] [--count-tolerance N] "
		      "SAMPLES.tsv TABLE.md\n", stderr);
		return 2;
	}
	struct samples s = { 0 };
	int ret = read_samples(argv[arg], &s);
	if (ret) {
		fprintf(stderr, "syncway-soak-report: %s: %s\n", argv[arg], strerror(-ret));
		return 2;
	}
	if (s.n < 4) {
		fprintf(stderr, "syncway-soak-report: %zu samples: too few to fit a line\n", s.n);
		return 2;
	}
	/* The warm-up: the samples before PCT % of the frames. */
	double last = s.v[C_FRAMES][s.n - 1];
	size_t first = 0;
	while (first < s.n && s.v[C_FRAMES][first] < last * warmup / 100)
		first++;
	size_t n = s.n - first;
	double *x = s.v[C_FRAMES] + first;
	FILE *md = fopen(argv[arg + 1], "w");
	if (!md) {
		fprintf(stderr, "syncway-soak-report: %s: %s\n", argv[arg + 1], strerror(errno));
		return 2;
	}
	double secs = s.v[C_TIME][s.n - 1] - s.v[C_TIME][first];
	double frames = last - x[0];
	double cpu_s = (s.v[C_CPU][s.n - 1] - s.v[C_CPU][first]) / 100;
	fprintf(md, "%zu samples, %zu after the warm-up (the first %.0f %% of the frames): %.0f frames "
		"presented in %.0f s of guest time after it, %.0f FPS; syncway's CPU time %.2f ms per "
		"frame.\n\n", s.n, n, warmup, frames, secs, secs > 0 ? frames / secs : 0,
		frames > 0 ? cpu_s * 1e3 / frames : 0);
	fputs("| resource | at the warm-up's end | at the end | slope per million frames (95 % interval) "
	      "| per day at 60 Hz | r1 | n_eff | verdict |\n|---|---|---|---|---|---|---|---|\n", md);
	double *y = malloc(n * sizeof(*y));
	struct result r[N_SERIES] = { 0 };
	for (int i = 0; i < N_SERIES; i++) {
		const struct series *se = &series[i];
		const double *col = s.v[se->column] + first;
		size_t k = 0;
		for (; k < n && !isnan(col[k]); k++) {
			y[k] = col[k] * se->scale;
			r[i].max = k == 0 || y[k] > r[i].max ? y[k] : r[i].max;
		}
		if (k < n)
			continue;
		if (stats_linear_fit(x, y, n, 95, &r[i].fit)) {
			fprintf(stderr, "syncway-soak-report: %s: no line fits (all frames alike?)\n", se->name);
			fclose(md);
			return 2;
		}
		r[i].measured = true;
		r[i].limit = se->memory ? rss_tolerance : count_tolerance;
		r[i].grows = r[i].fit.lo > r[i].limit;
		r[i].first = y[0];
		r[i].last = y[n - 1];
	}
	const int heap_parts[] = { S_RSS_BUT_HEAP, S_HEAP_SIZE, S_HEAP_IN_USE };
	bool bounded = r[S_RSS].grows;
	for (size_t i = 0; i < sizeof(heap_parts) / sizeof(heap_parts[0]); i++)
		bounded = bounded && r[heap_parts[i]].measured && !r[heap_parts[i]].grows;
	bool growing = false;
	for (int i = 0; i < N_SERIES; i++) {
		const struct series *se = &series[i];
		const struct stats_linear_fit *fit = &r[i].fit;
		if (!r[i].measured) {
			fprintf(md, "| %s | – | – | not in every sample | – | – | – | not measured |\n", se->name);
			fprintf(stderr, "syncway-soak-report: %s: not in every sample\n", se->name);
			continue;
		}
		double limit = r[i].limit;
		char limit_text[64] = "";
		if (limit > 0)
			snprintf(limit_text, sizeof(limit_text), " (tolerance %g %s a frame)", limit, se->unit);
		char a[32], b[32], c[32], d[32], e[32], f[32];
		const char *verdict = r[i].grows ? limit > 0 ? "**growing** beyond the tolerance" : "**growing**" :
				      fit->lo > 0 ? "growing, within the tolerance" :
				      isinf(fit->hi) ? "flat (too few independent samples to tell)" :
				      "flat within measurement error";
		char bound[160];
		if (i == S_RSS && bounded) {
			snprintf(bound, sizeof(bound), "**bounded**: grows only in [heap], whose size stays at "
				 "most %s (VmRSS but [heap] at most %s)",
				 human(a, sizeof(a), r[S_HEAP_SIZE].max, "bytes") + 1,
				 human(b, sizeof(b), r[S_RSS_BUT_HEAP].max, "bytes") + 1);
			verdict = bound;
		}
		if (r[i].grows && se->decides && !(i == S_RSS && bounded))
			growing = true;
		fprintf(md, "| %s | %s | %s | %s (%s … %s) | %s | %.2f | %.1f | %s%s |\n", se->name,
			human(a, sizeof(a), r[i].first, se->unit) + 1, human(b, sizeof(b), r[i].last, se->unit) + 1,
			human(c, sizeof(c), fit->slope * 1e6, se->unit), human(d, sizeof(d), fit->lo * 1e6, se->unit),
			human(e, sizeof(e), fit->hi * 1e6, se->unit),
			human(f, sizeof(f), fit->slope * FRAMES_PER_DAY, se->unit), fit->r1, fit->n_eff, verdict,
			se->decides ? "" : " (shown, does not decide)");
		fprintf(stderr, "soak: %-20s %s per million frames (95 %%: %s … %s), %s per day at 60 Hz: %s%s\n",
			se->name, c, d, e, f,
			i == S_RSS && bounded ? "bounded (in [heap], which does not grow)" :
			r[i].grows ? "GROWING" : fit->lo > 0 ? "growing, within tolerance" : "flat",
			limit_text);
	}
	/* The longest dispatch: the worst window and the median window. */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(s.v[C_LONGEST][first + i]))
			y[k++] = s.v[C_LONGEST][first + i];
	if (k > 0) {
		stats_sort(y, k);
		fprintf(md, "\nLongest event-loop dispatch per report window after the warm-up: median "
			"%.1f ms, worst %.1f ms.\n", stats_median(y, k), y[k - 1]);
	}
	fclose(md);
	free(y);
	fprintf(stderr, "soak: verdict: %s\n", growing ? "GROWING (VmRSS, fds or syncobj handles)" :
		bounded ? "bounded (VmRSS moves only within a [heap] that does not grow; fds and handles flat)" :
		rss_tolerance > 0 || count_tolerance > 0 ? "no growth beyond measurement error and the tolerances" :
		"flat");
	FILE *in = fopen(argv[arg + 1], "r");
	int ch;
	while (in && (ch = fgetc(in)) != EOF)
		putchar(ch);
	if (in)
		fclose(in);
	return growing ? 1 : 0;
}
