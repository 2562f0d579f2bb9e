/* syncway-ministat: the output of ministat(1) (Debian 20150715) byte for byte,
 * computed by the syncway statistics library, plus options of our own (Welch's
 * t, bootstrap, Mann-Whitney U / Hodges-Lehmann, JSON, datasets given as
 * N,AVG,SD) that stay off unless asked for, so that the default output is
 * ministat's.
 *
 * Known differences, all where ministat has no sensible output: a plot width
 * below 2 (ministat crashes or draws garbage), values that are not finite
 * (ministat accepts "nan" and "inf" and then crashes or prints nan), and
 * unreadable files such as directories (ministat treats them as empty).
 */
#include "json.h"
#include "stats.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MAX_DATASETS 7
/* ministat reads lines with fgets() into a buffer this size, so a longer line
 * arrives (and is counted) as several lines. */
#define LINE_CHUNK 8192
#define DEFAULT_WIDTH 74
#define DEFAULT_BOOTSTRAP 10000

enum {
	OPT_WELCH = 256,
	OPT_MANN_WHITNEY,
	OPT_BOOTSTRAP,
	OPT_SEED,
	OPT_JSON,
	OPT_MOMENTS,
	OPT_HELP,
};

struct options {
	bool plot;		/* cleared by -A and -n */
	bool compare;		/* cleared by -n */
	bool separate_bars;	/* -s */
	int column;		/* -C, from 1 */
	double conf;		/* -c */
	const char *delims;	/* -d */
	int width;		/* -w, else the terminal's width − 2, else 74 */
	bool welch;
	bool mann_whitney;
	unsigned bootstrap;	/* resamples; 0 leaves the bootstrap off */
	uint64_t seed;
	bool json;
	int moments_count;	/* --moments given; the first MAX_DATASETS kept */
	const char *moments[MAX_DATASETS];
};

struct dataset {
	const char *name;
	struct stats_sample sample;	/* sorted once summarized; empty for --moments */
	struct stats_summary sum;	/* ministat's one-pass variance: what it prints */
	struct stats_summary precise;	/* two-pass variance: our own options use this */
};

/* Indexed by a 1-based dataset number, or by the OR of several in a plot cell. */
static char symbol(unsigned number)
{
	return " x+*%#@O"[number];
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: syncway-ministat [-C column] [-c confidence] [-d delimiter(s)] [-Ans] [-w width] [file [file ...]]\n"
		"\tconfidence = {80%%, 90%%, 95%%, 98%%, 99%%, 99.5%%}\n"
		"\t-A : print statistics only. suppress the graph.\n"
		"\t-C : column number to extract (starts and defaults to 1)\n"
		"\t-d : delimiter(s) string, default to \" \\t\"\n"
		"\t-n : print summary statistics only, no graph/test\n"
		"\t-s : print avg/median/stddev bars on separate lines\n"
		"\t-w : width of graph/test output (default 74 or terminal width)\n"
		"\t--welch : also compare with Welch's t test (unequal variances)\n"
		"\t--mann-whitney : also compare with Mann-Whitney U and the Hodges-Lehmann shift\n"
		"\t--bootstrap[=B] : bootstrap intervals of the medians and of their difference (B = %d)\n"
		"\t--seed=N : seed of the bootstrap (default 1)\n"
		"\t--json : one JSON object per line, per dataset and per comparison, instead\n"
		"\t--moments=N,AVG,SD : a dataset known only by its summary, instead of files\n"
		"\t                     (repeat it; no plot, no --mann-whitney nor --bootstrap)\n",
		DEFAULT_BOOTSTRAP);
}

/* ministat's way: the reason, then the usage, and status 2. */
_Noreturn static void usage(const char *reason)
{
	fprintf(stderr, "%s\n", reason);
	print_usage(stderr);
	exit(2);
}

static int default_width(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col - 2;
	return DEFAULT_WIDTH;
}

/* Numbers in option arguments are parsed the way ministat does, including
 * strtol's long being narrowed to int, so that odd arguments behave alike. */
static long parse_long(const char *arg, const char *invalid)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end != '\0')
		usage(invalid);
	return v;
}

static unsigned parse_count(const char *arg, const char *what)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);

	if (*end != '\0' || end == arg || errno || v == 0 || v > UINT_MAX || arg[0] == '-')
		usage(what);
	return (unsigned)v;
}

static int parse_options(struct options *o, int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "welch", no_argument, NULL, OPT_WELCH },
		{ "mann-whitney", no_argument, NULL, OPT_MANN_WHITNEY },
		{ "bootstrap", optional_argument, NULL, OPT_BOOTSTRAP },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "moments", required_argument, NULL, OPT_MOMENTS },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct options){
		.plot = true,
		.compare = true,
		.column = 1,
		.conf = 95,
		.delims = " \t",
		.width = default_width(),
		.seed = 1,
	};
	while ((c = getopt_long(argc, argv, "AC:c:d:nsw:", long_options, NULL)) != -1) {
		switch (c) {
		case 'A':
			o->plot = false;
			break;
		case 'C':
			o->column = (int)parse_long(optarg, "Invalid column number.");
			if (o->column <= 0)
				usage("Column number should be positive.");
			break;
		case 'c':
			o->conf = strtod(optarg, &end);
			if (*end != '\0')
				usage("Not a floating point number");
			if (!stats_ministat_level_supported(o->conf))
				usage("No support for confidence level");
			break;
		case 'd':
			if (optarg[0] == '\0')
				usage("Can't use empty delimiter string");
			o->delims = optarg;
			break;
		case 'n':
			o->plot = false;
			o->compare = false;
			break;
		case 's':
			o->separate_bars = true;
			break;
		case 'w':
			o->width = (int)parse_long(optarg, "Invalid width, not a number.");
			if (o->width < 0)
				usage("Unable to move beyond left margin.");
			break;
		case OPT_WELCH:
			o->welch = true;
			break;
		case OPT_MANN_WHITNEY:
			o->mann_whitney = true;
			break;
		case OPT_BOOTSTRAP:
			o->bootstrap = optarg ? parse_count(optarg, "Invalid number of bootstrap resamples.")
					      : DEFAULT_BOOTSTRAP;
			break;
		case OPT_SEED:
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (*end != '\0' || end == optarg || errno)
				usage("Invalid seed.");
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_MOMENTS:
			if (o->moments_count < MAX_DATASETS)
				o->moments[o->moments_count] = optarg;
			o->moments_count++;
			break;
		case OPT_HELP:
			print_usage(stdout);
			exit(0);
		default:
			usage("Unknown option");
		}
	}
	return optind;
}

/* The field in the selected column, or NULL when the line has none: fields
 * are split with strtok, and one starting with '#' comments out the rest. */
static const char *select_field(char *line, const char *delims, int column)
{
	/* Trailing white space (CR of DOS files included) never reaches a field. */
	size_t len = strlen(line);

	while (len > 0 && strchr(" \t\n\v\f\r", line[len - 1]))
		line[--len] = '\0';
	char *field = strtok(line, delims);

	for (int i = 1; field; i++, field = strtok(NULL, delims)) {
		if (field[0] == '#')
			return NULL;
		if (i == column)
			return field;
	}
	return NULL;
}

static void read_dataset(FILE *f, struct dataset *ds, const struct options *o)
{
	char line[LINE_CHUNK];
	unsigned long lineno = 0;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		const char *field = select_field(line, o->delims, o->column);
		if (!field)
			continue;
		char *end;
		double v = strtod(field, &end);

		if (*end != '\0')
			errx(2, "Invalid data on line %lu in %s", lineno, ds->name);
		if (!isfinite(v))
			errx(2, "Invalid data on line %lu in %s: %s is not a finite number",
			     lineno, ds->name, field);
		if (stats_sample_add(&ds->sample, v) < 0)
			errx(1, "Out of memory reading %s", ds->name);
	}
	if (ferror(f))
		err(1, "Cannot read %s", ds->name);
}

static void load_dataset(const char *path, struct dataset *ds, const struct options *o)
{
	bool is_stdin = path == NULL || strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "r");

	ds->name = is_stdin ? "<stdin>" : path;
	if (!f)
		err(1, "Cannot open %s", path);
	stats_sample_init(&ds->sample);
	read_dataset(f, ds, o);
	if (!is_stdin)
		fclose(f);
	if (ds->sample.n < 3) {
		fprintf(stderr, "Dataset %s must contain at least 3 data points\n", ds->name);
		exit(2);
	}
	stats_sample_summarize_ministat(&ds->sample, &ds->sum);
	stats_sample_summarize(&ds->sample, &ds->precise);
}

/* A dataset known by "N,AVG,SD" alone, as in a cover letter. */
static void load_moments(const char *arg, struct dataset *ds)
{
	char *end = (char *)arg;
	unsigned long n = 0;
	double mean = NAN, stddev = NAN;

	errno = 0;
	if (arg[0] >= '0' && arg[0] <= '9')
		n = strtoul(arg, &end, 10);
	if (*end == ',')
		mean = strtod(end + 1, &end);
	if (*end == ',')
		stddev = strtod(end + 1, &end);
	if (*end != '\0' || errno || n < 2 || n > INT_MAX || !isfinite(mean) ||
	    !(stddev >= 0 && stddev < INFINITY))
		usage("Invalid --moments: give N,AVG,SD with N at least 2 and SD not negative.");
	ds->name = arg;
	stats_sample_init(&ds->sample);
	stats_summary_from_moments(n, mean, stddev, &ds->sum);
	ds->precise = ds->sum;
}

/* The ASCII plot. Its frame spans every min, max and mean ± stddev in width
 * columns of dx each, centred so that the extremes fall mid-column. Point
 * rows hold, per column, the OR of the 1-based numbers of the datasets with
 * a point there: 1|2 prints as '*', the symbol of dataset 3, as in ministat. */
struct plot {
	int width;
	double x0;		/* left edge of column 0 */
	double dx;
	size_t rows;
	size_t rows_cap;
	unsigned char *cells;	/* rows_cap × width */
	int bar_count;
	char *bars;		/* bar_count × width: '|', '_', 'M', 'A' or 0 */
};

static bool plot_init(struct plot *p, const struct dataset *ds, int count, int width,
		      bool separate_bars)
{
	/* ministat starts from ±9.99e101 rather than from the data, so a frame
	 * of huge values of one sign also takes in zero. */
	double lo = 999e99, hi = -999e99;

	for (int i = 0; i < count; i++) {
		const struct stats_summary *s = &ds[i].sum;
		double ends[] = { s->min, s->max, s->mean - s->stddev, s->mean + s->stddev };

		for (size_t j = 0; j < sizeof(ends) / sizeof(ends[0]); j++) {
			if (ends[j] < lo)
				lo = ends[j];
			if (ends[j] > hi)
				hi = ends[j];
		}
	}
	if (hi - lo == 0)
		return false;
	*p = (struct plot){
		.width = width,
		.dx = (hi - lo) / (width - 1),
		.bar_count = separate_bars ? count : 1,
	};
	p->x0 = lo - p->dx / 2;
	p->bars = calloc((size_t)p->bar_count, (size_t)width);
	if (!p->bars)
		errx(1, "Out of memory for the plot");
	return true;
}

/* -1 for a value that ministat's float-to-int conversion would put outside
 * the frame (a NaN stddev from an overflowing sum of squares): such a mark
 * is not drawn, which is what ministat's output shows. */
static int plot_column(const struct plot *p, double v)
{
	double c = (v - p->x0) / p->dx;

	return c >= 0 && c < p->width ? (int)c : -1;
}

/* ministat keeps as many point rows as the tallest column of the dataset
 * drawn last, and clears rows when that count grows again: taller stacks of
 * earlier datasets are cut off. Reproduced, since it shapes the output. */
static void plot_set_rows(struct plot *p, size_t rows)
{
	if (rows > p->rows_cap) {
		unsigned char *cells = realloc(p->cells, rows * (size_t)p->width);

		if (!cells)
			errx(1, "Out of memory for the plot");
		p->cells = cells;
		p->rows_cap = rows;
	}
	if (rows > p->rows)
		memset(p->cells + p->rows * p->width, 0, (rows - p->rows) * p->width);
	p->rows = rows;
}

/* Calls visit(p, column, height, number) for each point of a sorted sample,
 * height counting the points already in that column, from 0. */
static size_t plot_stacks(struct plot *p, const struct stats_sample *s, unsigned number,
			  void (*visit)(struct plot *p, int column, size_t height, unsigned number))
{
	size_t tallest = 0, height = 0;
	int previous = INT_MIN;

	for (size_t i = 0; i < s->n; i++) {
		int c = plot_column(p, s->v[i]);

		if (c < 0)
			continue;
		height = c == previous ? height + 1 : 0;
		previous = c;
		if (height + 1 > tallest)
			tallest = height + 1;
		if (visit)
			visit(p, c, height, number);
	}
	return tallest;
}

static void plot_mark_point(struct plot *p, int column, size_t height, unsigned number)
{
	p->cells[height * p->width + column] |= (unsigned char)number;
}

static void plot_bar(struct plot *p, const struct stats_summary *s, char *bar)
{
	int lo = plot_column(p, s->mean - s->stddev), hi = plot_column(p, s->mean + s->stddev);
	int median = plot_column(p, s->median), mean = plot_column(p, s->mean);

	if (hi >= 0)
		bar[hi] = '|';
	if (lo >= 0)
		bar[lo] = '|';
	for (int c = lo + 1; lo >= 0 && c < hi; c++)
		if (!bar[c])
			bar[c] = '_';
	if (median >= 0)
		bar[median] = 'M';
	if (mean >= 0)
		bar[mean] = 'A';
}

static void plot_dataset(struct plot *p, const struct dataset *ds, int index)
{
	plot_set_rows(p, plot_stacks(p, &ds->sample, index + 1, NULL));
	plot_stacks(p, &ds->sample, index + 1, plot_mark_point);
	plot_bar(p, &ds->sum, p->bars + (p->bar_count > 1 ? index : 0) * p->width);
}

static void print_plot_line(const struct plot *p, char edge, const char *cells, char fill)
{
	putchar(edge);
	for (int c = 0; c < p->width; c++)
		putchar(cells ? (cells[c] ? cells[c] : ' ') : fill);
	putchar(edge);
	putchar('\n');
}

static void print_plot(const struct dataset *ds, int count, const struct options *o)
{
	struct plot p;

	if (!plot_init(&p, ds, count, o->width, o->separate_bars)) {
		printf("[no plot, span is zero width]\n");
		return;
	}
	for (int i = 0; i < count; i++)
		plot_dataset(&p, &ds[i], i);

	char *line = malloc((size_t)p.width);
	if (!line)
		errx(1, "Out of memory for the plot");
	print_plot_line(&p, '+', NULL, '-');
	for (size_t r = p.rows; r-- > 0;) {
		for (int c = 0; c < p.width; c++)
			line[c] = symbol(p.cells[r * p.width + c]);
		print_plot_line(&p, '|', line, ' ');
	}
	for (int b = 0; b < p.bar_count; b++)
		print_plot_line(&p, '|', p.bars + b * p.width, ' ');
	print_plot_line(&p, '+', NULL, '-');
	free(line);
	free(p.cells);
	free(p.bars);
}

/* Each comparison (and each dataset's bootstrap) gets its own stream, so
 * that its result does not depend on which other analyses ran. */
static void seed_for(struct stats_rng *rng, const struct options *o, int index, bool comparison)
{
	stats_rng_seed(rng, o->seed + 2 * (uint64_t)index + comparison);
}

struct comparison {
	struct stats_student student;
	struct stats_welch welch;
	struct stats_mann_whitney mw;
	int hl_status;
	struct stats_interval hl;
	struct stats_interval boot;
};

static void compare(const struct dataset *ref, const struct dataset *d, int index,
		    const struct options *o, struct comparison *c)
{
	const struct stats_sample *r = &ref->sample, *s = &d->sample;

	/* The level and the sizes (n ≥ 3) were checked on input: these cannot fail. */
	stats_student_ministat(&ref->sum, &d->sum, o->conf, &c->student);
	if (o->welch)
		stats_welch(&ref->precise, &d->precise, o->conf, &c->welch);
	if (o->mann_whitney) {
		stats_mann_whitney(r->v, r->n, s->v, s->n, &c->mw);
		c->hl_status = stats_hodges_lehmann(r->v, r->n, s->v, s->n, o->conf, &c->hl);
	}
	if (o->bootstrap) {
		struct stats_rng rng;

		seed_for(&rng, o, index, true);
		if (stats_bootstrap_median_diff(r->v, r->n, s->v, s->n, o->bootstrap, o->conf,
						&rng, &c->boot) < 0)
			errx(1, "Out of memory for the bootstrap");
	}
}

static void bootstrap_median(const struct dataset *ds, int index, const struct options *o,
			     struct stats_interval *out)
{
	struct stats_rng rng;

	seed_for(&rng, o, index, false);
	if (stats_bootstrap_median(ds->sample.v, ds->sample.n, o->bootstrap, o->conf, &rng, out) < 0)
		errx(1, "Out of memory for the bootstrap");
}

static void print_student(const struct stats_student *t)
{
	if (!t->significant) {
		printf("No difference proven at %.1f%% confidence\n", t->conf);
		return;
	}
	printf("Difference at %.1f%% confidence\n", t->conf);
	printf("\t%g +/- %g\n", t->diff, t->err);
	printf("\t%g%% +/- %g%%\n", t->pct_diff, t->pct_err);
	printf("\t(Student's t, pooled s = %g)\n", t->pooled_sd);
}

static void print_extras(const struct comparison *c, const struct options *o)
{
	if (o->welch) {
		const struct stats_welch *w = &c->welch;

		printf("Welch's t at %.1f%% confidence: %g [%g, %g]\n", o->conf, w->diff, w->lo, w->hi);
		printf("\t(t = %g, df = %g, p = %g)\n", w->t, w->df, w->p);
	}
	if (o->mann_whitney) {
		printf("Mann-Whitney U = %g, z = %g, p = %g\n", c->mw.u, c->mw.z, c->mw.p);
		if (c->hl_status == 0)
			printf("Hodges-Lehmann shift at %.1f%% confidence: %g [%g, %g]\n", o->conf,
			       c->hl.estimate, c->hl.lo, c->hl.hi);
		else
			printf("Hodges-Lehmann shift: skipped, more than %u pairs\n", STATS_HL_MAX_PAIRS);
	}
	if (o->bootstrap)
		printf("Bootstrap difference of medians at %.1f%% confidence: %g [%g, %g]\n"
		       "\t(B = %u, seed = %llu)\n",
		       o->conf, c->boot.estimate, c->boot.lo, c->boot.hi, o->bootstrap,
		       (unsigned long long)o->seed);
}

static void print_report(const struct dataset *ds, int count, const struct options *o)
{
	for (int i = 0; i < count; i++)
		printf("%c %s\n", symbol(i + 1), ds[i].name);
	if (o->plot)
		print_plot(ds, count, o);
	printf("    N           Min           Max        Median           Avg        Stddev\n");
	for (int i = 0; i < count; i++) {
		const struct stats_summary *s = &ds[i].sum;

		if (ds[i].sample.n)
			printf("%c %3zu %13.8g %13.8g %13.8g %13.8g %13.8g\n", symbol(i + 1), s->n,
			       s->min, s->max, s->median, s->mean, s->stddev);
		else
			printf("%c %3zu %13s %13s %13s %13.8g %13.8g\n", symbol(i + 1), s->n, "-", "-",
			       "-", s->mean, s->stddev);
		if (o->bootstrap) {
			struct stats_interval m;

			bootstrap_median(&ds[i], i, o, &m);
			printf("\tmedian %g, %.1f%% bootstrap interval [%g, %g] (B = %u, seed = %llu)\n",
			       m.estimate, o->conf, m.lo, m.hi, o->bootstrap,
			       (unsigned long long)o->seed);
		}
		if (i > 0 && o->compare) {
			struct comparison c;

			compare(&ds[0], &ds[i], i, o, &c);
			print_student(&c.student);
			print_extras(&c, o);
		}
	}
}

/* JSON numbers: the fewest digits that read back exactly, without an
 * exponent where %g would add one only for lack of digits (50, not 5e+01);
 * null when not finite. */
static void json_number(double v)
{
	char buf[32];
	int precision = 1;

	if (!isfinite(v)) {
		fputs("null", stdout);
		return;
	}
	for (; precision < 17; precision++) {
		snprintf(buf, sizeof(buf), "%.*g", precision, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	int magnitude = v == 0 ? 0 : (int)floor(log10(fabs(v)));

	if (magnitude >= precision && magnitude < 17)
		precision = magnitude + 1;
	printf("%.*g", precision, v);
}

/* Writes ,"key": (or "key": first in its object). */
static void json_key(bool *first, const char *key)
{
	printf("%s\"%s\":", *first ? "" : ",", key);
	*first = false;
}

static void json_field(bool *first, const char *key, double v)
{
	json_key(first, key);
	json_number(v);
}

static void json_interval(bool *first, const char *key, const struct stats_interval *in)
{
	bool inner = true;

	json_key(first, key);
	putchar('{');
	json_field(&inner, "estimate", in->estimate);
	json_field(&inner, "lo", in->lo);
	json_field(&inner, "hi", in->hi);
	putchar('}');
}

static void json_dataset(const struct dataset *ds, int index, const struct options *o)
{
	const struct stats_summary *s = &ds->precise;
	struct stats_percentiles p;
	bool first = true;

	printf("{\"type\":\"dataset\",\"index\":%d,\"name\":", index);
	sw_json_string(stdout, ds->name);
	printf(",\"n\":%zu,", s->n);
	json_field(&first, "min", s->min);
	json_field(&first, "max", s->max);
	json_field(&first, "median", s->median);
	json_field(&first, "mean", s->mean);
	json_field(&first, "stddev", s->stddev);
	if (ds->sample.n) {
		stats_percentiles(ds->sample.v, ds->sample.n, &p);
		json_field(&first, "p50", p.p50);
		json_field(&first, "p95", p.p95);
		json_field(&first, "p99", p.p99);
		json_field(&first, "p99_9", p.p999);
	}
	if (o->bootstrap) {
		struct stats_interval m;

		bootstrap_median(ds, index, o, &m);
		json_interval(&first, "bootstrap_median", &m);
	}
	printf("}\n");
}

static void json_comparison(const struct comparison *c, int index, const struct options *o)
{
	const struct stats_student *t = &c->student;
	bool first = true, inner = true;

	printf("{\"type\":\"comparison\",\"index\":%d,\"reference\":0,", index);
	json_field(&first, "confidence", o->conf);
	json_key(&first, "student");
	printf("{\"nu\":%u,", t->nu);
	json_field(&inner, "t", t->t);
	json_field(&inner, "difference", t->diff);
	json_field(&inner, "error", t->err);
	json_field(&inner, "percent", t->pct_diff);
	json_field(&inner, "percent_error", t->pct_err);
	json_field(&inner, "pooled_sd", t->pooled_sd);
	printf(",\"significant\":%s}", t->significant ? "true" : "false");
	if (o->welch) {
		const struct stats_welch *w = &c->welch;

		inner = true;
		json_key(&first, "welch");
		putchar('{');
		json_field(&inner, "difference", w->diff);
		json_field(&inner, "lo", w->lo);
		json_field(&inner, "hi", w->hi);
		json_field(&inner, "se", w->se);
		json_field(&inner, "df", w->df);
		json_field(&inner, "t", w->t);
		json_field(&inner, "p", w->p);
		putchar('}');
	}
	if (o->mann_whitney) {
		inner = true;
		json_key(&first, "mann_whitney");
		putchar('{');
		json_field(&inner, "u", c->mw.u);
		json_field(&inner, "z", c->mw.z);
		json_field(&inner, "p", c->mw.p);
		putchar('}');
		if (c->hl_status == 0)
			json_interval(&first, "hodges_lehmann", &c->hl);
	}
	if (o->bootstrap)
		json_interval(&first, "bootstrap_median_difference", &c->boot);
	printf("}\n");
}

static void print_json(const struct dataset *ds, int count, const struct options *o)
{
	for (int i = 0; i < count; i++)
		json_dataset(&ds[i], i, o);
	for (int i = 1; o->compare && i < count; i++) {
		struct comparison c;

		compare(&ds[0], &ds[i], i, o, &c);
		json_comparison(&c, i, o);
	}
}

int main(int argc, char **argv)
{
	struct options o;
	int first = parse_options(&o, argc, argv);
	int files = argc - first;
	int count = o.moments_count ? o.moments_count : files > 0 ? files : 1;
	struct dataset ds[MAX_DATASETS];

	if (o.moments_count && files > 0)
		usage("Give either files or --moments, not both.");
	if (o.moments_count && (o.mann_whitney || o.bootstrap))
		usage("--mann-whitney and --bootstrap need the data points, not --moments.");
	if (count > MAX_DATASETS)
		usage("Too many datasets.");
	for (int i = 0; i < count; i++) {
		if (o.moments_count)
			load_moments(o.moments[i], &ds[i]);
		else
			load_dataset(files > 0 ? argv[first + i] : NULL, &ds[i], &o);
	}
	o.plot = o.plot && !o.moments_count && !o.json;
	if (o.plot && o.width < 2)
		errx(2, "The plot needs a width of at least 2 (see -w, -A and -n).");
	if (o.json)
		print_json(ds, count, &o);
	else
		print_report(ds, count, &o);
	for (int i = 0; i < count; i++)
		stats_sample_free(&ds[i].sample);
	if (fflush(stdout) != 0 || ferror(stdout))
		err(1, "Cannot write the output");
	return 0;
}
