#include "harness.h"
#include "json.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

jmp_buf sw_subtest_jmp;

enum result { RESULT_PASS, RESULT_FAIL, RESULT_SKIP };

static struct {
	const char *suite;
	const char *filter; /* --run: only these */
	const char *skip;   /* --skip: not these */
	bool list_only;
	FILE *json;
	const char *name;
	enum result result;
	char message[1024];
	struct timespec start;
	unsigned counts[3];
} state;

static void usage_exit(const char *argv0)
{
	fprintf(stderr, "usage: %s [--list] [--run GLOB] [--skip GLOB] [--json FILE]\n", argv0);
	exit(2);
}

static void open_json(const char *path)
{
	state.json = fopen(path, "a");
	if (!state.json) {
		fprintf(stderr, "%s: cannot open %s: %m\n", state.suite, path);
		exit(2);
	}
}

void sw_test_init(const char *suite, int argc, char **argv)
{
	/* One suite run twice in a test run (say against two backends) names
	 * its results apart by a variant: "suite@variant". */
	static char named[128];
	const char *variant = getenv("SYNCWAY_TEST_VARIANT");
	if (variant && *variant) {
		snprintf(named, sizeof(named), "%s@%s", suite, variant);
		suite = named;
	}
	state.suite = suite;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			state.list_only = true;
		} else if (!strcmp(argv[i], "--run") && i + 1 < argc) {
			state.filter = argv[++i];
		} else if (!strcmp(argv[i], "--skip") && i + 1 < argc) {
			state.skip = argv[++i];
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			open_json(argv[++i]);
		} else {
			usage_exit(argv[0]);
		}
	}
	const char *env = getenv("SYNCWAY_TEST_JSON");
	if (!state.json && env && *env)
		open_json(env);
	/* Keep PASS/FAIL lines in order with the output of child processes. */
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static double elapsed_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - state.start.tv_sec) * 1e3 +
	       (now.tv_nsec - state.start.tv_nsec) / 1e6;
}

bool sw_subtest_start(const char *name)
{
	if ((state.filter && fnmatch(state.filter, name, 0) != 0) ||
	    (state.skip && fnmatch(state.skip, name, 0) == 0))
		return false;
	if (state.list_only) {
		printf("%s\n", name);
		return false;
	}
	state.name = name;
	state.result = RESULT_PASS;
	state.message[0] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &state.start);
	return true;
}

bool sw_subtest_finish(void)
{
	static const char *const words[] = { "PASS", "FAIL", "SKIP" };
	double ms = elapsed_ms();

	state.counts[state.result]++;
	if (state.result == RESULT_PASS)
		printf("PASS %s/%s (%.2f ms)\n", state.suite, state.name, ms);
	else
		printf("%s %s/%s: %s\n", words[state.result], state.suite, state.name,
		       state.message);
	if (state.json) {
		fputs("{\"suite\":", state.json);
		sw_json_string(state.json, state.suite);
		fputs(",\"subtest\":", state.json);
		sw_json_string(state.json, state.name);
		fprintf(state.json, ",\"result\":\"%s\",\"ms\":%.3f,\"message\":",
			state.result == RESULT_PASS   ? "pass"
			: state.result == RESULT_FAIL ? "fail"
						      : "skip",
			ms);
		sw_json_string(state.json, state.message);
		fputs("}\n", state.json);
		fflush(state.json);
	}
	state.name = NULL;
	return false;
}

static _Noreturn void leave(enum result result, const char *prefix, const char *fmt,
			    va_list ap)
{
	if (!state.name) {
		/* A check outside any subtest is a broken test binary. */
		fprintf(stderr, "%s: check outside a subtest: ", state.suite);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		exit(1);
	}
	state.result = result;
	size_t n = (size_t)snprintf(state.message, sizeof(state.message), "%s", prefix);
	if (n < sizeof(state.message))
		vsnprintf(state.message + n, sizeof(state.message) - n, fmt, ap);
	longjmp(sw_subtest_jmp, 1);
}

void sw_fail_at(const char *file, int line, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s:%d: ", file, line);
	va_start(ap, fmt);
	leave(RESULT_FAIL, prefix, fmt, ap);
}

void sw_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	leave(RESULT_SKIP, "", fmt, ap);
}

int sw_test_exit(void)
{
	if (state.list_only)
		return 0;
	printf("%s: %u subtests passed, %u failed, %u skipped\n", state.suite,
	       state.counts[RESULT_PASS], state.counts[RESULT_FAIL],
	       state.counts[RESULT_SKIP]);
	if (state.json)
		fclose(state.json);
	return state.counts[RESULT_FAIL] ? 1 : 0;
}
