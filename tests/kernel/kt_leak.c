/* Leak checks from user space: the balance of the kmalloc slab caches, and
 * kmemleak's report, for syncobj-leak-check and syncobj-fault-inject. */
#include "kt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *kt_slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	sw_assert(buf);
	for (;;) {
		if (n + 4096 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			sw_assert(buf);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
}

int kt_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* ---- slab counters ---------------------------------------------------------------- */

bool kt_slab_snapshot(struct kt_slab_snap *s)
{
	char *text = kt_slurp("/proc/slabinfo");
	bool shrunk = true;

	sw_assert_f(text, "cannot read /proc/slabinfo: %m");
	s->n = 0;
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0 shrinks, pass 1 reads what is left */
		char *copy = strdup(text);
		for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
			char name[64];
			long active;
			if (sscanf(line, "%63s %ld", name, &active) != 2 ||
			    !strstr(name, "kmalloc-"))
				continue;
			if (pass == 0) {
				char path[128];
				snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
				if (kt_write_str(path, "1") != 0)
					shrunk = false;
			} else if (s->n < KT_SLAB_CACHES) {
				snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
				s->active[s->n++] = active;
			}
		}
		free(copy);
		if (pass == 0) {
			free(text);
			text = kt_slurp("/proc/slabinfo");
			sw_assert(text);
		}
	}
	free(text);
	return shrunk;
}

static long snap_get(const struct kt_slab_snap *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return s->active[i];
	return 0;
}

static long snap_total(const struct kt_slab_snap *s)
{
	long t = 0;
	for (int i = 0; i < s->n; i++)
		t += s->active[i];
	return t;
}

double kt_slab_settle(struct kt_slab_snap *s)
{
	int64_t start = sw_clock_ns(CLOCK_MONOTONIC);
	long prev = -1;

	for (;;) {
		kt_slab_snapshot(s);
		long total = snap_total(s);
		double t = (sw_clock_ns(CLOCK_MONOTONIC) - start) / 1e9;
		if ((t >= 7.0 && prev >= 0 && total >= prev) || t > 20.0)
			return t;
		prev = total;
		kt_sleep_ms(500);
	}
}

long kt_slab_worst_growth(const struct kt_slab_snap *before, const struct kt_slab_snap *after,
			  const char **name)
{
	long worst = 0;

	*name = "";
	for (int i = 0; i < after->n; i++) {
		long d = after->active[i] - snap_get(before, after->name[i]);
		if (d > worst) {
			worst = d;
			*name = after->name[i];
		}
	}
	return worst;
}

void kt_slab_print(const struct kt_slab_snap *before, const struct kt_slab_snap *after)
{
	for (int i = 0; i < after->n; i++) {
		long b = snap_get(before, after->name[i]);
		if (b || after->active[i])
			printf("#   %-24s %8ld -> %8ld  (%+ld)\n", after->name[i], b,
			       after->active[i], after->active[i] - b);
	}
}

/* ---- kmemleak ----------------------------------------------------------------------- */

bool kt_kmemleak_usable(char *why, size_t len)
{
	int ret;

	if (access(KT_KMEMLEAK, F_OK) != 0) {
		snprintf(why, len, "this kernel has no kmemleak (%s: CONFIG_DEBUG_KMEMLEAK is off)",
			 KT_KMEMLEAK);
		return false;
	}
	ret = kt_write_str(KT_KMEMLEAK, "scan");
	if (ret != 0) {
		snprintf(why, len,
			 "kmemleak is present but not usable (scan: %s; disabled at boot or "
			 "after an error?)",
			 kt_ret(ret));
		return false;
	}
	return true;
}

char *kt_kmemleak_scan(void)
{
	char *report;

	/* kmemleak reports objects older than 5 s only */
	kt_sleep_ms(6000);
	sw_assert_f(kt_write_str(KT_KMEMLEAK, "scan") == 0, "kmemleak scan failed");
	sw_assert_f(kt_write_str(KT_KMEMLEAK, "scan") == 0, "kmemleak scan failed");
	report = kt_slurp(KT_KMEMLEAK);
	sw_assert(report);
	return report;
}

int kt_kmemleak_entries(const char *report)
{
	int n = 0;
	for (const char *p = report; (p = strstr(p, "unreferenced object")); p++)
		n++;
	return n;
}

void kt_kmemleak_print(const char *report, const char *prefix)
{
	const char *p = report;

	while ((p = strstr(p, "unreferenced object"))) {
		const char *end = strstr(p + 1, "unreferenced object");
		const char *bt = strstr(p, "backtrace");
		char line[512];
		size_t m = (size_t)snprintf(line, sizeof(line), "%s%.*s frames:", prefix,
					    (int)strcspn(p, "\n"), p);
		int frames = 0;
		if (bt && (!end || bt < end)) {
			const char *q = strchr(bt, '\n');
			while (q && (!end || q < end) && frames < 6 && m + 2 < sizeof(line)) {
				q++;
				while (*q == ' ')
					q++;
				size_t l = strcspn(q, "\n");
				if (l == 0)
					break;
				/* "[<ffff...>] func+0x../0x.." -> "func" */
				const char *f = strstr(q, "] ");
				f = f && (size_t)(f - q) < l ? f + 2 : q;
				size_t fl = strcspn(f, "+\n ");
				m += (size_t)snprintf(line + m, sizeof(line) - m, " %.*s", (int)fl, f);
				frames++;
				q = strchr(q, '\n');
			}
		}
		printf("%s\n", line);
		p += 1;
	}
}

int kt_kmemleak_matching(const char *report, const char *const *words)
{
	int n = 0;
	const char *p = report;

	while ((p = strstr(p, "unreferenced object"))) {
		const char *end = strstr(p + 1, "unreferenced object");
		const char *bt = strstr(p, "backtrace");
		if (bt && (!end || bt < end)) {
			size_t len = end ? (size_t)(end - bt) : strlen(bt);
			for (size_t w = 0; words[w]; w++) {
				const char *hit = strstr(bt, words[w]);
				if (hit && (size_t)(hit - bt) < len) {
					n++;
					break;
				}
			}
		}
		p += 1;
	}
	return n;
}
