/* Counts the slab allocations each syncobj array ioctl makes, with the kmem
 * tracepoints (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free) in a
 * private tracefs instance filtered to this process.
 *
 *   syncobj-kmalloc-count [--expect base|patched] [--out FILE] [--calls N]
 *                         [--list] [--run GLOB] [--json FILE]
 *
 * For WAIT, TIMELINE_WAIT, QUERY, RESET, SIGNAL and TIMELINE_SIGNAL with 1, 2,
 * 3, 4, 5 and 64 handles, it makes N calls (default 200; 50 for 64 handles)
 * after a warm-up, with a trace_marker line before each call, three times
 * over, and counts the events between markers that ran in task context
 * (events in hard/soft interrupt context are not the ioctl's and are
 * reported apart). It prints a table and, with --out (or
 * $SYNCWAY_KMALLOC_OUT), writes one JSON line per row.
 *
 * The subtests check only what holds on any kernel: the method sees nothing
 * for an ioctl that allocates nothing, and every call of a row allocates the
 * same number of objects in every repetition. --expect compares the table
 * with the numbers in notes/kernel-series.md (the lead's runner passes the
 * kernel flavour). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kt.h"

#define MAX_SITES 16

enum ev { EV_KMALLOC, EV_CACHE_ALLOC, EV_KFREE, EV_CACHE_FREE, EV_N };
static const char *const ev_names[EV_N] = { "kmalloc", "kmem_cache_alloc", "kfree",
					    "kmem_cache_free" };

enum op { OP_WAIT, OP_TIMELINE_WAIT, OP_QUERY, OP_RESET, OP_SIGNAL, OP_TIMELINE_SIGNAL, OP_N };
static const char *const op_names[OP_N] = { "WAIT",  "TIMELINE_WAIT", "QUERY",
					    "RESET", "SIGNAL",        "TIMELINE_SIGNAL" };
static const char *const op_subtests[OP_N] = { "wait",  "timeline-wait", "query",
					       "reset", "signal",        "timeline-signal" };

static const uint32_t counts[] = { 1, 2, 3, 4, 5, 64 };
#define N_COUNTS (sizeof(counts) / sizeof(counts[0]))
#define REPS 3

struct row {
	bool done;
	uint32_t calls;        /* per repetition */
	double avg[EV_N];      /* per call, over all repetitions */
	long min_allocs, max_allocs; /* per call, kmalloc + kmem_cache_alloc */
	double rep_allocs[REPS];
	long irq_events;
	long slab_events; /* the slab allocator's own, not counted */
	char site[MAX_SITES][64];
	double site_avg[MAX_SITES];
	int nsites;
};
static struct row table[OP_N][N_COUNTS];
static struct row control;

static struct {
	char dir[512]; /* the instance */
	bool ready;
	char why[1100];
	int marker_fd;
} tr;

static const char *expect_kernel;
static const char *out_path;
static uint32_t calls_opt;

/* ---- tracefs ----------------------------------------------------------------- */

static bool write_file(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return false;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	bool ok = write(fd, buf, (size_t)n) == n;
	close(fd);
	return ok;
}

static bool tr_write(const char *rel, const char *fmt, const char *arg)
{
	char path[768];
	snprintf(path, sizeof(path), "%s/%s", tr.dir, rel);
	return write_file(path, fmt, arg);
}

static void tr_cleanup(void)
{
	if (!tr.dir[0])
		return;
	tr_write("tracing_on", "0", NULL);
	for (int e = 0; e < EV_N; e++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "events/kmem/%s/enable", ev_names[e]);
		tr_write(rel, "0", NULL);
	}
	if (tr.marker_fd > 0)
		close(tr.marker_fd);
	rmdir(tr.dir);
	tr.dir[0] = '\0';
}

static void tr_setup(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *root = NULL;
	char path[768], rel[128], filter[64];

	for (size_t i = 0; i < 2 && !root; i++) {
		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (access(path, W_OK) == 0)
			root = roots[i];
	}
	if (!root) {
		snprintf(tr.why, sizeof(tr.why), "no writable tracefs instances directory "
			 "(/sys/kernel/tracing/instances)");
		return;
	}
	snprintf(path, sizeof(path), "%s/events/kmem/kmalloc", root);
	if (access(path, F_OK) != 0) {
		snprintf(tr.why, sizeof(tr.why), "no kmem tracepoints in %s/events", root);
		return;
	}
	snprintf(tr.dir, sizeof(tr.dir), "%s/instances/syncway-kmalloc-%d", root, (int)getpid());
	if (mkdir(tr.dir, 0755) != 0 && errno != EEXIST) {
		snprintf(tr.why, sizeof(tr.why), "mkdir %s: %s", tr.dir, strerror(errno));
		tr.dir[0] = '\0';
		return;
	}
	atexit(tr_cleanup);
	tr_write("tracing_on", "0", NULL);
	if (!tr_write("buffer_size_kb", "%s", "16384"))
		tr_write("buffer_size_kb", "%s", "4096");
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)getpid());
	for (int e = 0; e < EV_N; e++) {
		snprintf(rel, sizeof(rel), "events/kmem/%s/filter", ev_names[e]);
		if (!tr_write(rel, "%s", filter)) {
			snprintf(tr.why, sizeof(tr.why), "cannot set the filter of kmem/%s",
				 ev_names[e]);
			return;
		}
		snprintf(rel, sizeof(rel), "events/kmem/%s/enable", ev_names[e]);
		if (!tr_write(rel, "1", NULL)) {
			snprintf(tr.why, sizeof(tr.why), "cannot enable kmem/%s", ev_names[e]);
			return;
		}
	}
	snprintf(path, sizeof(path), "%s/trace_marker", tr.dir);
	tr.marker_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (tr.marker_fd < 0) {
		snprintf(tr.why, sizeof(tr.why), "open %s: %s", path, strerror(errno));
		return;
	}
	tr.ready = true;
}

static void marker(const char *text)
{
	size_t n = strlen(text);
	sw_assert_f(write(tr.marker_fd, text, n) == (ssize_t)n, "trace_marker: %m");
}

static char *read_trace(size_t *len)
{
	char path[768];
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int fd;

	snprintf(path, sizeof(path), "%s/trace", tr.dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	sw_assert_f(fd >= 0, "open %s: %m", path);
	for (;;) {
		if (n + 65536 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			sw_assert(buf);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		sw_assert_f(r >= 0, "read %s: %m", path);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---- the measured calls -------------------------------------------------------- */

static struct kt_fix fix;
static uint32_t *handles;
static uint64_t *points;
static uint64_t next_point;

static void prepare(enum op op, uint32_t n)
{
	free(handles);
	free(points);
	switch (op) {
	case OP_WAIT:
		kt_fix_make_all(&fix, n, kt_signaled());
		break;
	case OP_TIMELINE_WAIT:
	case OP_QUERY:
		kt_fix_make_all(&fix, n, kt_timeline(1, 0, 0));
		break;
	default:
		kt_fix_make_all(&fix, n, kt_none());
		break;
	}
	handles = kt_handles(&fix, UINT32_MAX);
	points = calloc(n, sizeof(*points));
	for (uint32_t i = 0; i < n; i++)
		points[i] = 1;
	next_point = 1;
}

/* One call; must succeed. */
static void call(enum op op, uint32_t n)
{
	uint32_t first;
	int ret;

	switch (op) {
	case OP_WAIT:
		ret = kt_wait_call(fix.fd, false, (uintptr_t)handles, 0, n, 0, 0, 0, &first);
		break;
	case OP_TIMELINE_WAIT:
		ret = kt_wait_call(fix.fd, true, (uintptr_t)handles, (uintptr_t)points, n, 0, 0, 0,
				   &first);
		break;
	case OP_QUERY:
		ret = kt_array_call(fix.fd, DRM_IOCTL_SYNCOBJ_QUERY, (uintptr_t)handles,
				    (uintptr_t)points, n, 0);
		break;
	case OP_RESET:
		ret = kt_array_call(fix.fd, DRM_IOCTL_SYNCOBJ_RESET, (uintptr_t)handles, 0, n, 0);
		break;
	case OP_SIGNAL:
		ret = kt_array_call(fix.fd, DRM_IOCTL_SYNCOBJ_SIGNAL, (uintptr_t)handles, 0, n, 0);
		break;
	default:
		next_point++;
		for (uint32_t i = 0; i < n; i++)
			points[i] = next_point;
		ret = kt_array_call(fix.fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, (uintptr_t)handles,
				    (uintptr_t)points, n, 0);
		break;
	}
	sw_assert_f(ret == 0, "%s with %u handles failed: %s", op_names[op], n, kt_ret(ret));
}

/* The control: an ioctl drm_ioctl() rejects before any driver code. */
static void call_control(void)
{
	int ret = kt_ioctl(fix.fd, DRM_IOWR(0xef, struct drm_syncobj_array), &(struct drm_syncobj_array){ 0 });
	sw_assert_f(ret == -EINVAL || ret == -ENOTTY, "control ioctl gave %s", kt_ret(ret));
}

struct slice {
	long ev[EV_N];
};

/* The function an event's call_site names, "?" when it names none. */
static void call_site(const char *event, char *site, size_t len)
{
	const char *cs = strstr(event, "call_site=");

	if (!cs) {
		snprintf(site, len, "?");
		return;
	}
	cs += 10;
	snprintf(site, len, "%.*s", (int)strcspn(cs, "+ "), cs);
}

/* An allocation the slab allocator makes for itself (7.x refills its per-CPU
 * sheaves of objects from the kmalloc caches), by the function it comes from. */
static bool slab_bookkeeping(const char *event)
{
	char site[64];

	call_site(event, site, sizeof(site));
	return !strncmp(site, "__pcs_", 6) || strstr(site, "sheaf");
}

/* Parses the trace: events between "kt-call I" and the next marker go to
 * slices[I]. Deduplicates the second kmalloc event 6.12 emits for a large
 * kmalloc (same pointer, back to back). */
static void parse(char *text, struct slice *slices, uint32_t ncalls, struct row *r,
		  double weight)
{
	long cur = -1;
	uint32_t seen = 0;
	char last_ptr[32] = "";

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		char *br = strstr(line, "] ");
		if (!br)
			continue;
		char *flags = br + 2;
		char *colon = strstr(flags, ": ");
		if (!colon)
			continue;
		char *event = colon + 2;
		if (!strncmp(event, "tracing_mark_write: ", 20)) {
			char *m = event + 20;
			if (!strncmp(m, "kt-call ", 8)) {
				cur = strtol(m + 8, NULL, 10);
				sw_assert_f(cur >= 0 && (uint32_t)cur < ncalls, "bad marker %s", m);
				seen++;
			} else {
				cur = -1;
			}
			last_ptr[0] = '\0';
			continue;
		}
		int e;
		for (e = 0; e < EV_N; e++) {
			size_t l = strlen(ev_names[e]);
			if (!strncmp(event, ev_names[e], l) && event[l] == ':')
				break;
		}
		if (e == EV_N || cur < 0)
			continue;
		/* hardirq/softirq/NMI context: not the ioctl's own work */
		if (flags[2] == 'h' || flags[2] == 's' || flags[2] == 'H' || flags[2] == 'z' ||
		    flags[2] == 'Z') {
			r->irq_events++;
			continue;
		}
		/* kmemleak's own metadata (debug kernels): not the ioctl's */
		if ((e == EV_CACHE_ALLOC || e == EV_CACHE_FREE) &&
		    strstr(event, "name=kmemleak_object"))
			continue;
		/* The slab allocator's own bookkeeping (7.x's per-CPU sheaves of
		 * objects, refilled now and then, whichever call gets there):
		 * not the ioctl's allocations, and never a whole number per call */
		if (slab_bookkeeping(event)) {
			r->slab_events++;
			continue;
		}
		char *ptr = strstr(event, " ptr=");
		if (e == EV_KMALLOC && ptr) {
			char p[32];
			snprintf(p, sizeof(p), "%.*s", (int)strcspn(ptr + 5, " "), ptr + 5);
			if (!strcmp(p, last_ptr))
				continue; /* the large-kmalloc double event */
			snprintf(last_ptr, sizeof(last_ptr), "%s", p);
		}
		slices[cur].ev[e]++;
		if (e == EV_KMALLOC || e == EV_CACHE_ALLOC) {
			char site[64];
			call_site(event, site, sizeof(site));
			int s;
			for (s = 0; s < r->nsites; s++)
				if (!strcmp(r->site[s], site))
					break;
			if (s == r->nsites && r->nsites < MAX_SITES) {
				snprintf(r->site[s], sizeof(r->site[s]), "%s", site);
				r->nsites++;
			}
			if (s < MAX_SITES)
				r->site_avg[s] += weight;
		}
	}
	sw_assert_f(seen == ncalls, "found %u of %u call markers: trace buffer overrun?", seen,
		    ncalls);
}

/* Measures one row: REPS repetitions of ncalls calls each. */
static void measure(struct row *r, enum op op, uint32_t n, bool is_control)
{
	uint32_t ncalls = calls_opt ? calls_opt : n > 8 ? 50 : 200;
	struct slice *slices = calloc(ncalls, sizeof(*slices));
	char m[32];

	memset(r, 0, sizeof(*r));
	r->calls = ncalls;
	r->min_allocs = -1;
	if (is_control)
		kt_fix_make_all(&fix, 1, kt_signaled());
	else
		prepare(op, n);
	/* warm up: fault in code and data, fill per-cpu slab caches */
	for (int i = 0; i < 20; i++) {
		if (is_control)
			call_control();
		else
			call(op, n);
	}
	for (int rep = 0; rep < REPS; rep++) {
		memset(slices, 0, ncalls * sizeof(*slices));
		tr_write("trace", "%s", ""); /* O_TRUNC empties the buffer */
		sw_assert_f(tr_write("tracing_on", "1", NULL), "tracing_on: %m");
		for (uint32_t i = 0; i < ncalls; i++) {
			snprintf(m, sizeof(m), "kt-call %u", i);
			marker(m);
			if (is_control)
				call_control();
			else
				call(op, n);
		}
		marker("kt-end");
		tr_write("tracing_on", "0", NULL);
		size_t len;
		char *text = read_trace(&len);
		parse(text, slices, ncalls, r, 1.0 / (ncalls * REPS));
		free(text);
		long total = 0;
		for (uint32_t i = 0; i < ncalls; i++) {
			long a = slices[i].ev[EV_KMALLOC] + slices[i].ev[EV_CACHE_ALLOC];
			total += a;
			if (r->min_allocs < 0 || a < r->min_allocs)
				r->min_allocs = a;
			if (a > r->max_allocs)
				r->max_allocs = a;
			for (int e = 0; e < EV_N; e++)
				r->avg[e] += (double)slices[i].ev[e] / (ncalls * REPS);
		}
		r->rep_allocs[rep] = (double)total / ncalls;
	}
	r->done = true;
	free(slices);
}

/* ---- output --------------------------------------------------------------------- */

static void json_row(FILE *f, const char *kernel, const char *op, uint32_t n, const struct row *r)
{
	fprintf(f, "{\"kernel\":\"%s\",\"ioctl\":\"%s\",\"count\":%u,\"calls\":%u,\"repetitions\":%d,"
		   "\"allocs\":%.4f,\"kmalloc\":%.4f,\"kmem_cache_alloc\":%.4f,\"kfree\":%.4f,"
		   "\"kmem_cache_free\":%.4f,\"min_allocs\":%ld,\"max_allocs\":%ld,"
		   "\"irq_events_excluded\":%ld,\"sites\":{",
		kernel, op, n, r->calls, REPS, r->avg[EV_KMALLOC] + r->avg[EV_CACHE_ALLOC],
		r->avg[EV_KMALLOC], r->avg[EV_CACHE_ALLOC], r->avg[EV_KFREE], r->avg[EV_CACHE_FREE],
		r->min_allocs, r->max_allocs, r->irq_events);
	for (int s = 0; s < r->nsites; s++)
		fprintf(f, "%s\"%s\":%.4f", s ? "," : "", r->site[s], r->site_avg[s]);
	fprintf(f, "}}\n");
}

static void print_table(const char *kernel)
{
	FILE *out = NULL;

	if (out_path) {
		out = fopen(out_path, "w");
		if (!out)
			fprintf(stderr, "syncobj-kmalloc-count: cannot write %s: %m\n", out_path);
	}
	printf("\nslab allocations per call (kmalloc + kmem_cache_alloc, task context), kernel %s\n",
	       kernel);
	printf("%-16s", "ioctl \\ handles");
	for (size_t c = 0; c < N_COUNTS; c++)
		printf("%8u", counts[c]);
	printf("\n");
	for (int op = 0; op < OP_N; op++) {
		bool any = false;
		for (size_t c = 0; c < N_COUNTS; c++)
			any |= table[op][c].done;
		if (!any)
			continue;
		printf("%-16s", op_names[op]);
		for (size_t c = 0; c < N_COUNTS; c++) {
			const struct row *r = &table[op][c];
			if (!r->done)
				printf("%8s", "-");
			else
				printf("%8.2f", r->avg[EV_KMALLOC] + r->avg[EV_CACHE_ALLOC]);
			if (r->done && out)
				json_row(out, kernel, op_names[op], counts[c], r);
		}
		printf("\n");
	}
	if (control.done) {
		printf("%-16s%8.2f  (control: rejected ioctl)\n", "CONTROL",
		       control.avg[EV_KMALLOC] + control.avg[EV_CACHE_ALLOC]);
		if (out)
			json_row(out, kernel, "CONTROL", 0, &control);
	}
	printf("\nwhere they come from (per call):\n");
	for (int op = 0; op < OP_N; op++) {
		for (size_t c = 0; c < N_COUNTS; c++) {
			const struct row *r = &table[op][c];
			if (!r->done || (counts[c] != 1 && counts[c] != 5 && counts[c] != 64))
				continue;
			printf("  %s n=%u:", op_names[op], counts[c]);
			for (int s = 0; s < r->nsites; s++)
				printf(" %s %.2f", r->site[s], r->site_avg[s]);
			printf("%s (frees %.2f kfree, %.2f kmem_cache_free; %ld events in irq context "
			       "and %ld of the slab allocator's own ignored)\n",
			       r->nsites ? "" : " none", r->avg[EV_KFREE], r->avg[EV_CACHE_FREE],
			       r->irq_events, r->slab_events);
		}
	}
	if (out)
		fclose(out);
}

/* ---- expectations (notes/kernel-series.md) ----------------------------------------- */

/* base (6.12): handles copy + syncobj array everywhere, + points + entries
 * for the waits, + points + chains arrays + n chain nodes for TIMELINE_SIGNAL,
 * + n stub fences for SIGNAL. */
static double expect_base(enum op op, uint32_t n)
{
	switch (op) {
	case OP_WAIT:
	case OP_TIMELINE_WAIT: return 4;
	case OP_QUERY:
	case OP_RESET: return 2;
	case OP_SIGNAL: return 2 + n;
	default: return 4 + n;
	}
}

/* patched, n <= 4: everything on the stack; what the call creates stays:
 * the chain nodes of TIMELINE_SIGNAL, the one stub fence SIGNAL shares
 * between its syncobjs. */
static double expect_patched_small(enum op op, uint32_t n)
{
	switch (op) {
	case OP_WAIT:
	case OP_TIMELINE_WAIT:
	case OP_QUERY:
	case OP_RESET: return 0;
	case OP_SIGNAL: return 1;
	default: return n;
	}
}

/* patched, n > 4 (the handles copy and the wait points array are gone for
 * every count, SIGNAL makes one stub fence): syncobj array (+ entries for
 * waits, + the stub for SIGNAL, + chains array and maybe a points array for
 * TIMELINE_SIGNAL). */
static void expect_patched_large(enum op op, uint32_t n, double *lo, double *hi)
{
	switch (op) {
	case OP_WAIT:
	case OP_TIMELINE_WAIT: *lo = *hi = 2; break;
	case OP_QUERY:
	case OP_RESET: *lo = *hi = 1; break;
	case OP_SIGNAL: *lo = *hi = 2; break;
	default: *lo = 2 + n; *hi = 3 + n; break;
	}
}

static void check_expect(bool small_only, bool large_only)
{
	char bad[1024] = "";
	size_t m = 0;
	int checked = 0;

	for (int op = 0; op < OP_N; op++) {
		for (size_t c = 0; c < N_COUNTS; c++) {
			const struct row *r = &table[op][c];
			uint32_t n = counts[c];
			double got, lo, hi;
			if (!r->done)
				continue;
			got = r->avg[EV_KMALLOC] + r->avg[EV_CACHE_ALLOC];
			if (!strcmp(expect_kernel, "base")) {
				lo = hi = expect_base(op, n);
			} else if (n <= 4) {
				if (large_only)
					continue;
				lo = hi = expect_patched_small(op, n);
			} else {
				if (small_only)
					continue;
				expect_patched_large(op, n, &lo, &hi);
			}
			checked++;
			if (got < lo - 0.005 || got > hi + 0.005) {
				char want[32];
				if (hi > lo)
					snprintf(want, sizeof(want), "%g..%g", lo, hi);
				else
					snprintf(want, sizeof(want), "%g", lo);
				if (m + 1 < sizeof(bad))
					m += (size_t)snprintf(bad + m, sizeof(bad) - m,
							      "%s%s n=%u: %.2f (want %s)", m ? "; " : "",
							      op_names[op], n, got, want);
				if (m >= sizeof(bad))
					m = sizeof(bad) - 1;
			}
		}
	}
	if (checked == 0)
		sw_skip("no rows measured (run the ioctl subtests too)");
	sw_assert_f(m == 0, "%s", bad);
}

/* A number drm_ioctl rejects: any allocation it shows is noise the method
 * would count. */
static void test_control_ioctl(void)
{
	tr_setup();
	if (!tr.ready)
		sw_skip("%s", tr.why);
	measure(&control, 0, 0, true);
	sw_assert_f(control.max_allocs == 0,
		    "a rejected ioctl shows %ld allocations: the method counts noise",
		    control.max_allocs);
}

static void test_op(int op)
{
	if (!tr.dir[0])
		tr_setup();
	if (!tr.ready)
		sw_skip("%s", tr.why);
	for (size_t c = 0; c < N_COUNTS; c++) {
		struct row *r = &table[op][c];
		measure(r, op, counts[c], false);
		/* kernel-independent: a whole number, the same for every call
		 * and every repetition */
		sw_assert_f(r->min_allocs == r->max_allocs, "%s n=%u: %ld to %ld allocations per call",
			    op_names[op], counts[c], r->min_allocs, r->max_allocs);
		for (int rep = 1; rep < REPS; rep++)
			sw_assert_f(r->rep_allocs[rep] == r->rep_allocs[0],
				    "%s n=%u: repetitions differ (%.3f, %.3f)", op_names[op],
				    counts[c], r->rep_allocs[0], r->rep_allocs[rep]);
	}
}

int main(int argc, char **argv)
{
	struct utsname u;
	char kernel[128];
	const char *v;

	expect_kernel = kt_take_option(&argc, argv, "--expect");
	out_path = kt_take_option(&argc, argv, "--out");
	if ((v = kt_take_option(&argc, argv, "--calls")))
		calls_opt = (uint32_t)strtoul(v, NULL, 10);
	if (expect_kernel && strcmp(expect_kernel, "base") && strcmp(expect_kernel, "patched")) {
		fprintf(stderr, "syncobj-kmalloc-count: --expect wants base or patched\n");
		return 2;
	}
	if (!out_path && getenv("SYNCWAY_KMALLOC_OUT") && *getenv("SYNCWAY_KMALLOC_OUT"))
		out_path = getenv("SYNCWAY_KMALLOC_OUT");
	uname(&u);
	snprintf(kernel, sizeof(kernel), "%s", u.release);
	kt_init("syncobj-kmalloc-count", argc, argv);

	kt_subtest("control-ioctl-allocates-nothing") test_control_ioctl();
	/* volatile: a failing subtest longjmps back into this loop. */
	for (volatile int op = 0; op < OP_N; op++)
		kt_subtest(op_subtests[op]) test_op(op);
	if (expect_kernel && !strcmp(expect_kernel, "base")) {
		kt_subtest("expect-base") check_expect(false, false);
	} else if (expect_kernel) {
		kt_subtest("expect-patched-up-to-4-handles") check_expect(true, false);
		kt_subtest("expect-patched-over-4-handles") check_expect(false, true);
	}

	if (control.done || table[0][0].done)
		print_table(kernel);
	kt_fix_free(&fix);
	tr_cleanup();
	return kt_exit();
}
