/* Compositor fds from /proc and drm_syncobj objects from the kmem
 * tracepoints (see leaks.h). */
#include "leaks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ct.h"

/* --- fds ------------------------------------------------------------------- */

long ct_nofile_limit(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	long soft = -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Max open files", 14) == 0) {
			sscanf(line + 14, "%ld", &soft);
			break;
		}
	}
	fclose(f);
	return soft;
}

bool ct_fds_read(pid_t pid, struct ct_fds *out)
{
	char dir_path[64];
	snprintf(dir_path, sizeof(dir_path), "/proc/%d/fd", (int)pid);
	DIR *dir = opendir(dir_path);
	if (!dir)
		return false;
	*out = (struct ct_fds){ 0 };
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		char path[PATH_MAX], target[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir_path, e->d_name);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue; /* closed meanwhile */
		target[n] = '\0';
		out->total++;
		if (strstr(target, "[eventfd]"))
			out->eventfd++;
		else if (strstr(target, "syncobj"))
			out->syncobj++;
		else if (strstr(target, "sync_file"))
			out->sync_file++;
		else if (strstr(target, "dmabuf") || strstr(target, "dma_buf"))
			out->dmabuf++;
		else if (strncmp(target, "/dev/dri/", 9) == 0)
			out->drm++;
		else if (strncmp(target, "socket:", 7) == 0)
			out->socket++;
		else if (strncmp(target, "/memfd:", 7) == 0)
			out->memfd++;
		else if (strncmp(target, "/dev/shm/", 9) == 0)
			out->shm++;
		else {
			out->other++;
			size_t used = strlen(out->other_targets);
			snprintf(out->other_targets + used, sizeof(out->other_targets) - used, "%s%s",
				 used ? ", " : "", target);
		}
	}
	closedir(dir);
	return true;
}

void ct_fds_describe(const struct ct_fds *f, char *buf, size_t len)
{
	snprintf(buf, len,
		 "%d fds (eventfd %d, syncobj %d, sync_file %d, dmabuf %d, drm %d, socket %d, "
		 "memfd %d, shm %d, other %d%s%s)",
		 f->total, f->eventfd, f->syncobj, f->sync_file, f->dmabuf, f->drm, f->socket,
		 f->memfd, f->shm, f->other, f->other ? ": " : "", f->other_targets);
}

void ct_fd_watch_start(struct ct_conn *c, struct ct_fd_watch *w)
{
	w->pid = ct_compositor_pid(c);
	if (w->pid <= 0)
		sw_skip("cannot tell the compositor's pid (SO_PEERCRED)");
	struct ct_fds a, b;
	if (!ct_fds_read(w->pid, &a))
		sw_skip("cannot read /proc/%d/fd (run as the compositor's user or root)", (int)w->pid);
	for (int i = 0; i < 40; i++) {
		ct_roundtrip(c);
		ct_dispatch(c, -1, 50);
		if (!ct_fds_read(w->pid, &b))
			sw_fail("the compositor (pid %d) went away", (int)w->pid);
		if (a.total == b.total)
			break;
		a = b;
	}
	w->base = b;
}

/* The fds that count against a baseline: all but shared-memory files. */
static int counted(const struct ct_fds *f)
{
	return f->total - f->memfd - f->shm;
}

void ct_fd_watch_expect_baseline(struct ct_conn *c, struct ct_fd_watch *w, int timeout_ms,
				 const char *what)
{
	int64_t deadline = ct_now_ns() + (int64_t)timeout_ms * 1000000;
	struct ct_fds now;
	for (;;) {
		ct_roundtrip(c);
		if (!ct_fds_read(w->pid, &now))
			sw_fail("%s: the compositor (pid %d) went away", what, (int)w->pid);
		if (counted(&now) <= counted(&w->base)) {
			int more = now.memfd + now.shm - w->base.memfd - w->base.shm;
			if (more > 0)
				ct_note("%s: %d shared-memory files more than at the baseline (not counted)",
					what, more);
			return;
		}
		if (ct_now_ns() > deadline)
			break;
		ct_dispatch(c, -1, 50);
	}
	char base[1400], got[1400];
	ct_fds_describe(&w->base, base, sizeof(base));
	ct_fds_describe(&now, got, sizeof(got));
	sw_fail("%s: the compositor's fds did not return to the baseline within %d ms: before %s, "
		"after %s", what, timeout_ms, base, got);
}

/* --- syncobj objects ------------------------------------------------------------ */

static struct {
	char dir[512];
	bool active;
	bool filtered; /* the tracefs filter does the call-site match */
} tr;

static bool write_file(const char *dir, const char *name, const char *value)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = write(fd, value, strlen(value));
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(value);
}

static const char *tracefs_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char path[256];
		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (access(path, W_OK) == 0)
			return roots[i];
	}
	return NULL;
}

static bool syncobj_symbol(const char *name)
{
	return strncmp(name, "drm_syncobj", 11) == 0 || strncmp(name, "syncobj_", 8) == 0 ||
	       strncmp(name, "__drm_syncobj", 13) == 0;
}

/* [lo, hi): from the first drm_syncobj.c function to the end of its last
 * one, from /proc/kallsyms (needs real addresses: root). */
static bool syncobj_text_range(unsigned long *lo, unsigned long *hi)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return false;
	unsigned long min = ~0ul, max = 0, next = ~0ul, addr;
	char type, name[256];
	for (int pass = 0; pass < 2; pass++) {
		rewind(f);
		while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, name) == 3) {
			if (type != 't' && type != 'T')
				continue;
			if (pass == 0 && syncobj_symbol(name)) {
				if (addr < min)
					min = addr;
				if (addr > max)
					max = addr;
			} else if (pass == 1 && addr > max && addr < next) {
				next = addr;
			}
		}
		if (max == 0)
			break;
	}
	fclose(f);
	if (max == 0 || min == 0 || next == ~0ul)
		return false;
	*lo = min;
	*hi = next;
	return true;
}

bool ct_objtrace_start(char *why, size_t why_len)
{
	ct_objtrace_stop();
	const char *root = tracefs_root();
	if (!root) {
		snprintf(why, why_len, "no writable tracefs (/sys/kernel/tracing or "
			 "/sys/kernel/debug/tracing, as root)");
		return false;
	}
	snprintf(tr.dir, sizeof(tr.dir), "%s/instances/syncway-ct-%d", root, (int)getpid());
	rmdir(tr.dir);
	if (mkdir(tr.dir, 0700) != 0) {
		snprintf(why, why_len, "cannot create %s: %s", tr.dir, strerror(errno));
		return false;
	}
	tr.active = true;
	/* With a GPU renderer every release point takes a temporary syncobj
	 * (the render fence's import), several events each: the backlog
	 * subtest's hundred thousand releases overflowed 8 MiB. */
	write_file(tr.dir, "buffer_size_kb", "65536");
	/* The call site is the function that called kmalloc/kfree: the
	 * syncobj itself is kzalloc'ed in drm_syncobj_create and kfree'd in
	 * drm_syncobj_free. '.function' filters exist since Linux 6.2;
	 * without them every kmalloc is traced and matched here. */
	tr.filtered = write_file(tr.dir, "events/kmem/kmalloc/filter",
				 "call_site.function == drm_syncobj_create");
	/* drm_syncobj_free ends with a tail call to kfree, so kfree's call
	 * site is whoever dropped the last reference (drm_syncobj_put is
	 * inline): somewhere in drm_syncobj.c. Limit kfree events to that
	 * text range when kallsyms tells it; the pointer match below is
	 * what counts, the filter only keeps the volume down. */
	unsigned long lo, hi;
	char filter[128];
	if (syncobj_text_range(&lo, &hi)) {
		snprintf(filter, sizeof(filter), "call_site >= 0x%lx && call_site < 0x%lx", lo, hi);
		write_file(tr.dir, "events/kmem/kfree/filter", filter);
	}
	if (!write_file(tr.dir, "events/kmem/kmalloc/enable", "1") ||
	    !write_file(tr.dir, "events/kmem/kfree/enable", "1")) {
		snprintf(why, why_len, "cannot enable the kmem:kmalloc/kfree events in %s: %s", tr.dir,
			 strerror(errno));
		ct_objtrace_stop();
		return false;
	}
	write_file(tr.dir, "tracing_on", "1");
	return true;
}

void ct_objtrace_stop(void)
{
	if (!tr.active)
		return;
	write_file(tr.dir, "tracing_on", "0");
	write_file(tr.dir, "events/kmem/kmalloc/enable", "0");
	write_file(tr.dir, "events/kmem/kfree/enable", "0");
	rmdir(tr.dir);
	tr.active = false;
}

/* A small open-addressing set of pointer hashes as printed by %p. */
struct ptr_set {
	char (*keys)[24];
	bool *used;
	size_t cap, count;
};

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void set_grow(struct ptr_set *s);

static void set_add(struct ptr_set *s, const char *key)
{
	if ((s->count + 1) * 2 > s->cap)
		set_grow(s);
	size_t i = hash_str(key) & (s->cap - 1);
	while (s->used[i]) {
		if (strcmp(s->keys[i], key) == 0)
			return;
		i = (i + 1) & (s->cap - 1);
	}
	s->used[i] = true;
	snprintf(s->keys[i], sizeof(s->keys[i]), "%s", key);
	s->count++;
}

static bool set_remove(struct ptr_set *s, const char *key)
{
	if (!s->cap)
		return false;
	size_t i = hash_str(key) & (s->cap - 1);
	while (s->used[i]) {
		if (strcmp(s->keys[i], key) == 0) {
			/* Re-insert the rest of the cluster (linear probing). */
			s->used[i] = false;
			s->count--;
			size_t j = (i + 1) & (s->cap - 1);
			while (s->used[j]) {
				char k[24];
				snprintf(k, sizeof(k), "%s", s->keys[j]);
				s->used[j] = false;
				s->count--;
				set_add(s, k);
				j = (j + 1) & (s->cap - 1);
			}
			return true;
		}
		i = (i + 1) & (s->cap - 1);
	}
	return false;
}

static void set_grow(struct ptr_set *s)
{
	struct ptr_set old = *s;
	s->cap = old.cap ? old.cap * 2 : 1024;
	s->keys = calloc(s->cap, sizeof(*s->keys));
	s->used = calloc(s->cap, sizeof(*s->used));
	s->count = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i])
			set_add(s, old.keys[i]);
	free(old.keys);
	free(old.used);
}

static bool field(const char *line, const char *name, char *out, size_t len)
{
	const char *p = strstr(line, name);
	if (!p)
		return false;
	p += strlen(name);
	size_t n = strcspn(p, " \n");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

bool ct_objtrace_count(long *created, long *alive, char *why, size_t why_len)
{
	if (!tr.active) {
		snprintf(why, why_len, "not tracing");
		return false;
	}
	char path[1024];
	snprintf(path, sizeof(path), "%s/trace", tr.dir);
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(why, why_len, "cannot read %s: %s", path, strerror(errno));
		return false;
	}
	struct ptr_set set = { 0 };
	long made = 0;
	bool lost = false;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#') {
			long in_buffer, written;
			const char *p = strstr(line, "entries-in-buffer/entries-written:");
			if (p && sscanf(p, "entries-in-buffer/entries-written: %ld/%ld", &in_buffer,
					&written) == 2 && in_buffer != written)
				lost = true;
			continue;
		}
		if (strstr(line, "LOST") && strstr(line, "EVENTS"))
			lost = true;
		char ptr[24], site[128];
		bool is_alloc = strstr(line, " kmalloc: ") != NULL;
		bool is_free = !is_alloc && strstr(line, " kfree: ") != NULL;
		if (!is_alloc && !is_free)
			continue;
		if (!field(line, "ptr=", ptr, sizeof(ptr)) || !field(line, "call_site=", site, sizeof(site)))
			continue;
		if (is_alloc && (tr.filtered || strncmp(site, "drm_syncobj_create+", 19) == 0)) {
			made++;
			set_add(&set, ptr);
		} else if (is_free) {
			set_remove(&set, ptr);
		}
	}
	free(line);
	fclose(f);
	*created = made;
	*alive = (long)set.count;
	free(set.keys);
	free(set.used);
	if (lost) {
		snprintf(why, why_len, "the trace buffer overflowed (events lost)");
		return false;
	}
	return true;
}

void ct_objtrace_expect_none_alive(struct ct_conn *c, int timeout_ms, const char *what)
{
	int64_t deadline = ct_now_ns() + (int64_t)timeout_ms * 1000000;
	long created = 0, alive = 0;
	char why[256];
	for (;;) {
		if (c)
			ct_roundtrip(c);
		if (!ct_objtrace_count(&created, &alive, why, sizeof(why)))
			sw_fail("%s: syncobj count unusable: %s", what, why);
		if (alive == 0)
			return;
		if (ct_now_ns() > deadline)
			break;
		if (c)
			ct_dispatch(c, -1, 50);
		else
			usleep(50000);
	}
	sw_fail("%s: %ld of the %ld drm_syncobjs created since the start are still alive after "
		"%d ms (every handle on them should be gone)", what, alive, created, timeout_ms);
}
