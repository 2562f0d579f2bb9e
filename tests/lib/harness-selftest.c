/* Checks the harness itself: runs this binary again in --sample mode, where it
 * has one passing, one failing and one skipped subtest, and checks the exit
 * status, the human lines and the JSON lines that mode produced. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static int sample(int argc, char **argv)
{
	sw_test_init("sample", argc, argv);
	sw_subtest("passes") {
		sw_assert_eq(1 + 1, 2);
	}
	sw_subtest("fails") {
		sw_assert_eq(2 * 2, 5);
		sw_fail("not reached");
	}
	sw_subtest("skips") {
		sw_skip("needs \"quotes\"");
	}
	return sw_test_exit();
}

static char self[4096];
static char out_path[64], json_path[64];

/* Runs the sample with extra arguments; returns its exit status. */
static int run_sample(const char *arg1, const char *arg2)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "SYNCWAY_TEST_JSON= '%s' --sample %s %s >'%s'", self,
		 arg1 ? arg1 : "", arg2 ? arg2 : "", out_path);
	int status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--sample"))
		return sample(argc - 1, argv + 1);

	sw_test_init("harness-selftest", argc, argv);
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	snprintf(out_path, sizeof(out_path), "/tmp/harness-out.%d", getpid());
	snprintf(json_path, sizeof(json_path), "/tmp/harness-json.%d", getpid());

	sw_subtest("failure-sets-exit-status") {
		sw_assert_eq(run_sample(NULL, NULL), 1);
	}
	sw_subtest("human-lines-name-each-result") {
		run_sample(NULL, NULL);
		char *out = slurp(out_path);
		sw_assert(strstr(out, "PASS sample/passes ("));
		sw_assert(strstr(out, "FAIL sample/fails: ") &&
			  strstr(out, "expected 2 * 2 == 5 (got 4, 5)"));
		sw_assert(!strstr(out, "not reached"));
		sw_assert(strstr(out, "SKIP sample/skips: needs \"quotes\""));
		sw_assert(strstr(out, "sample: 1 subtests passed, 1 failed, 1 skipped"));
	}
	sw_subtest("json-lines-are-escaped") {
		unlink(json_path);
		run_sample("--json", json_path);
		char *json = slurp(json_path);
		sw_assert(strstr(json, "{\"suite\":\"sample\",\"subtest\":\"passes\",\"result\":\"pass\""));
		sw_assert(strstr(json, "\"subtest\":\"fails\",\"result\":\"fail\""));
		sw_assert(strstr(json, "\"result\":\"skip\"") &&
			  strstr(json, "\"message\":\"needs \\\"quotes\\\"\"}"));
		int lines = 0;
		for (char *p = json; *p; p++)
			lines += *p == '\n';
		sw_assert_eq(lines, 3);
	}
	sw_subtest("filter-runs-only-matching") {
		sw_assert_eq(run_sample("--run", "pass*"), 0);
		char *out = slurp(out_path);
		sw_assert(strstr(out, "PASS sample/passes"));
		sw_assert(!strstr(out, "sample/fails"));
	}
	sw_subtest("list-prints-names-only") {
		sw_assert_eq(run_sample("--list", NULL), 0);
		sw_assert(!strcmp(slurp(out_path), "passes\nfails\nskips\n"));
	}
	unlink(out_path);
	unlink(json_path);
	return sw_test_exit();
}
