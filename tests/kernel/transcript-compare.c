/* Compares two directories of kernel-suite transcripts (one kernel each),
 * one subtest per transcript file: the same lines in the same order, or the
 * subtest fails with the first differing lines. Runs on the host.
 *
 *   transcript-compare [--list] [--run GLOB] [--json FILE] [--allow FILE] DIR_A DIR_B
 *
 * --allow FILE lists documented intended differences, one per line:
 *   <transcript file>: <glob>
 * A pair of differing lines is tolerated when both lines match a glob given
 * for that file (fnmatch, so write the subtest name and '*'). '#' starts a
 * comment. The default is no allowed differences. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct lines {
	char **v;
	size_t n;
};

static bool read_lines(const char *path, struct lines *l)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	l->v = NULL;
	l->n = 0;
	if (!f)
		return false;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n++] = strdup(line);
	}
	free(line);
	fclose(f);
	return true;
}

static void free_lines(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static struct {
	char **file, **glob;
	size_t n;
} allow;

static void read_allow(const char *path)
{
	struct lines l;

	if (!read_lines(path, &l)) {
		fprintf(stderr, "transcript-compare: cannot read %s: %s\n", path, strerror(errno));
		exit(2);
	}
	for (size_t i = 0; i < l.n; i++) {
		char *s = l.v[i], *colon;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\0')
			continue;
		colon = strstr(s, ": ");
		if (!colon) {
			fprintf(stderr, "transcript-compare: %s:%zu: want '<file>: <glob>'\n", path,
				i + 1);
			exit(2);
		}
		*colon = '\0';
		allow.file = realloc(allow.file, (allow.n + 1) * sizeof(char *));
		allow.glob = realloc(allow.glob, (allow.n + 1) * sizeof(char *));
		allow.file[allow.n] = strdup(s);
		allow.glob[allow.n] = strdup(colon + 2);
		allow.n++;
	}
	free_lines(&l);
}

static bool allowed(const char *file, const char *a, const char *b)
{
	for (size_t i = 0; i < allow.n; i++) {
		if (strcmp(allow.file[i], file))
			continue;
		if (fnmatch(allow.glob[i], a, 0) == 0 && fnmatch(allow.glob[i], b, 0) == 0)
			return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* *.txt names in dir, appended to names (deduplicated later) */
static void list_dir(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		fprintf(stderr, "transcript-compare: cannot open %s: %s\n", dir, strerror(errno));
		exit(2);
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".txt"))
			continue;
		*names = realloc(*names, (*n + 1) * sizeof(char *));
		(*names)[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
}

static char *shorten(const char *s)
{
	static char buf[2][400];
	static int slot;

	slot ^= 1;
	if (strlen(s) < sizeof(buf[0]))
		return strcpy(buf[slot], s);
	snprintf(buf[slot], sizeof(buf[slot]), "%.380s...", s);
	return buf[slot];
}

int main(int argc, char **argv)
{
	char **hargv = calloc((size_t)argc + 1, sizeof(char *));
	const char *dirs[2] = { NULL, NULL };
	int hargc = 0, ndirs = 0;

	hargv[hargc++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--run") || !strcmp(argv[i], "--json")) && i + 1 < argc) {
			hargv[hargc++] = argv[i++];
			hargv[hargc++] = argv[i];
		} else if (!strcmp(argv[i], "--list")) {
			hargv[hargc++] = argv[i];
		} else if (!strcmp(argv[i], "--allow") && i + 1 < argc) {
			read_allow(argv[++i]);
		} else if (argv[i][0] != '-' && ndirs < 2) {
			dirs[ndirs++] = argv[i];
		} else {
			fprintf(stderr, "usage: %s [--list] [--run GLOB] [--json FILE] "
					"[--allow FILE] DIR_A DIR_B\n",
				argv[0]);
			return 2;
		}
	}
	if (ndirs != 2) {
		fprintf(stderr, "usage: %s [--list] [--run GLOB] [--json FILE] [--allow FILE] "
				"DIR_A DIR_B\n",
			argv[0]);
		return 2;
	}
	sw_test_init("transcript-compare", hargc, hargv);

	char **names = NULL;
	size_t n = 0;
	list_dir(dirs[0], &names, &n);
	list_dir(dirs[1], &names, &n);
	qsort(names, n, sizeof(*names), cmp_str);

	sw_subtest("transcripts-found") {
		sw_assert_f(n > 0, "no *.txt transcripts in %s or %s", dirs[0], dirs[1]);
	}
	/* static: a failed check longjmps out of the subtest body */
	static size_t i;
	for (i = 0; i < n; i++) {
		if (i > 0 && !strcmp(names[i], names[i - 1]))
			continue;
		sw_subtest(names[i]) {
			static struct lines a, b;
			char path[4096];
			size_t tolerated = 0;

			free_lines(&a);
			free_lines(&b);
			snprintf(path, sizeof(path), "%s/%s", dirs[0], names[i]);
			sw_assert_f(read_lines(path, &a), "%s is missing", path);
			snprintf(path, sizeof(path), "%s/%s", dirs[1], names[i]);
			sw_assert_f(read_lines(path, &b), "%s is missing", path);
			size_t m = a.n < b.n ? a.n : b.n;
			for (size_t j = 0; j < m; j++) {
				if (!strcmp(a.v[j], b.v[j]))
					continue;
				if (allowed(names[i], a.v[j], b.v[j])) {
					tolerated++;
					continue;
				}
				/* a few lines for people, the first in the message */
				size_t shown = 0;
				for (size_t k = j; k < m && shown < 5; k++) {
					if (!strcmp(a.v[k], b.v[k]) || allowed(names[i], a.v[k], b.v[k]))
						continue;
					printf("  %s:%zu\n    A: %s\n    B: %s\n", names[i], k + 1,
					       shorten(a.v[k]), shorten(b.v[k]));
					shown++;
				}
				sw_fail("line %zu differs: A: %s | B: %s", j + 1, shorten(a.v[j]),
					shorten(b.v[j]));
			}
			sw_assert_f(a.n == b.n, "%zu lines in %s, %zu in %s (first extra: %s)", a.n,
				    dirs[0], b.n, dirs[1],
				    shorten(a.n > b.n ? a.v[m] : b.v[m]));
			sw_assert_f(a.n > 1, "%s has no cases", names[i]);
			if (tolerated)
				printf("  %s: %zu allowed differences\n", names[i], tolerated);
		}
	}
	return sw_test_exit();
}
