/* What every file of sw-ab-report uses and none of them owns: errors, paths
 * that must fit, data files, syncway-ministat's blocks and the key=value
 * lines of meta.txt. It lives apart from main() (bench/ab-report.c) so that
 * the section files depend on this and the tables of bench/ab_input.c, and
 * main() on them, never the other way round.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab-report.h"

_Noreturn void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sw-ab-report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void format_fit(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		die("longer than %zu bytes: %.60s...", size - 1, buf);
}

void write_values(const char *path, const double *v, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.6g\n", v[i]);
	fclose(f);
}

void ministat_block(const struct report *r, const char *args, size_t fewest)
{
	char cmd[8192], buf[512];
	if (fewest < 3) {
		fprintf(r->md, "Not shown: ministat needs at least 3 values a side, this run has %zu "
			       "(more rounds give them: tools/report --help).\n", fewest);
		return;
	}
	format_fit(cmd, sizeof(cmd), "%s %s 2>&1", r->ministat, args);
	FILE *p = popen(cmd, "r");
	if (!p)
		die("could not run %s: %s", r->ministat, strerror(errno));
	fputs("```\n", r->md);
	while (fgets(buf, sizeof(buf), p))
		fputs(buf, r->md);
	fputs("```\n", r->md);
	pclose(p);
}

const char *meta_get(const struct meta *m, const char *key)
{
	for (int i = 0; m && i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	return "?";
}

bool read_meta(const char *path, struct meta *m, bool must)
{
	char line[1024];
	m->n = 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		if (must || errno != ENOENT)
			die("%s: %s", path, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f) && m->n < META_MAX) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		eq[1 + strcspn(eq + 1, "\n")] = 0;
		format_fit(m->keys[m->n], sizeof(m->keys[0]), "%s", line);
		/* the rest of a line of at most sizeof(line): it always fits */
		strcpy(m->vals[m->n], eq + 1);
		m->n++;
	}
	fclose(f);
	return true;
}

const char *family_meta(const struct report *r, const char *key)
{
	return meta_get(r->meta, key);
}
