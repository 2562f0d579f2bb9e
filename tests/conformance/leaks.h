/* What the compositor holds: its open fds (from /proc) and the drm_syncobj
 * kernel objects alive (from the kmem tracepoints). See docs/conformance.md,
 * "Leaks: what is measured". */
#ifndef SYNCWAY_CT_LEAKS_H
#define SYNCWAY_CT_LEAKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ct_conn;

/* The compositor's fds by kind (readlink of /proc/PID/fd/N). */
struct ct_fds {
	int total;
	int eventfd, syncobj, sync_file, dmabuf, drm, socket, memfd, shm, other;
	/* What the "other" fds point at, so a failure can say what leaked. */
	char other_targets[1024];
};

/* The soft RLIMIT_NOFILE of process pid, from /proc/PID/limits; -1 if
 * unknown. */
long ct_nofile_limit(pid_t pid);
/* false when /proc/PID/fd cannot be read (not the same user, no /proc). */
bool ct_fds_read(pid_t pid, struct ct_fds *out);
/* "41 fds (eventfd 2, drm 3, socket 12, ...)". */
void ct_fds_describe(const struct ct_fds *f, char *buf, size_t len);

/* A baseline for the compositor of c: its fd count once stable (two equal
 * reads 50 ms apart, dispatching c meanwhile). Skips if unreadable. */
struct ct_fd_watch {
	pid_t pid;
	struct ct_fds base;
};
void ct_fd_watch_start(struct ct_conn *c, struct ct_fd_watch *w);
/* Dispatches c until the count is back to the baseline; fails the subtest
 * (naming the kinds that grew) after timeout_ms. Shared-memory files
 * (memfds, /dev/shm) do not count: compositors keep tables they send
 * clients in them (keymaps, dmabuf feedback) and free them on their own
 * schedule; a difference there is only noted. */
void ct_fd_watch_expect_baseline(struct ct_conn *c, struct ct_fd_watch *w, int timeout_ms,
				 const char *what);

/* drm_syncobj objects created and freed from now on, system wide: kmalloc
 * events whose call site is drm_syncobj_create, matched by pointer with
 * kfree events (limited to call sites in drm_syncobj.c when kallsyms gives
 * the range), in a private tracefs instance. */
/* Starts tracing; false (reason in why) when tracefs/kmem events are not
 * available to us. */
bool ct_objtrace_start(char *why, size_t why_len);
/* Reads the events so far: syncobjs created since the start and still
 * alive. false (reason in why) if the trace cannot be trusted (lost
 * events, unreadable). */
bool ct_objtrace_count(long *created, long *alive, char *why, size_t why_len);
void ct_objtrace_stop(void);
/* Dispatches c until no syncobj created since ct_objtrace_start is alive;
 * fails after timeout_ms, saying how many are. */
void ct_objtrace_expect_none_alive(struct ct_conn *c, int timeout_ms, const char *what);

#endif
