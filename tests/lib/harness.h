/* Subtests for syncway's test binaries, in the spirit of IGT: one binary per
 * subject, one named subtest per behaviour.
 *
 * Each subtest prints one human line on stdout:
 *   PASS suite/name (1.23 ms)
 *   FAIL suite/name: file.c:42: expected x == y (got 3, 4)
 *   SKIP suite/name: no /dev/dri/renderD128
 * and, when SYNCWAY_TEST_JSON names a file (or --json FILE is given), appends
 * one JSON line to it: {"suite":...,"subtest":...,"result":"pass|fail|skip",
 * "ms":...,"message":...}. tools/test counts results from those lines.
 *
 * Command line of every test binary: [--list] [--run GLOB] [--json FILE].
 * SYNCWAY_TEST_VARIANT=V names the suite "suite@V" (a suite run twice).
 */
#ifndef SYNCWAY_HARNESS_H
#define SYNCWAY_HARNESS_H

#include <setjmp.h>
#include <stdbool.h>

extern jmp_buf sw_subtest_jmp;

void sw_test_init(const char *suite, int argc, char **argv);
/* Exit status for main(): 0 when nothing failed, 1 otherwise. */
int sw_test_exit(void);

bool sw_subtest_start(const char *name);
bool sw_subtest_finish(void);

/* Ends the running subtest. */
_Noreturn void sw_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
_Noreturn void sw_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A subtest body runs once if selected; a failed check longjmps out of it, so
 * state that outlives a subtest must be static (or volatile), not automatic. */
#define sw_subtest(name)                                                         \
	for (bool sw_active_ = sw_subtest_start(name); sw_active_;               \
	     sw_active_ = sw_subtest_finish())                                   \
		if (setjmp(sw_subtest_jmp) == 0)

#define sw_fail(...) sw_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#define sw_assert(cond)                                                          \
	do {                                                                     \
		if (!(cond))                                                     \
			sw_fail("assertion failed: %s", #cond);                  \
	} while (0)

#define sw_assert_f(cond, ...)                                                   \
	do {                                                                     \
		if (!(cond))                                                     \
			sw_fail(__VA_ARGS__);                                    \
	} while (0)

#define sw_assert_eq(a, b)                                                       \
	do {                                                                     \
		long long sw_a_ = (long long)(a), sw_b_ = (long long)(b);        \
		if (sw_a_ != sw_b_)                                              \
			sw_fail("expected %s == %s (got %lld, %lld)", #a, #b,    \
				sw_a_, sw_b_);                                   \
	} while (0)

/* For calls that return -1 and set errno (or return -errno). */
#define sw_assert_errno(expr, err)                                               \
	do {                                                                     \
		errno = 0;                                                       \
		long long sw_r_ = (long long)(expr);                             \
		int sw_e_ = sw_r_ < -1 ? (int)-sw_r_ : errno;                    \
		if (sw_r_ >= 0 || sw_e_ != (err))                                \
			sw_fail("expected %s to fail with %s, got %lld (%s)",    \
				#expr, #err, sw_r_, strerror(sw_e_));            \
	} while (0)

#endif
