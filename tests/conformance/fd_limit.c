/* The robustness suite's subtests at the compositor's fd limit: many
 * clients whose waiting surfaces together would take every fd (a few
 * holding many, or many holding few), and a flood of connections. They run against a second compositor started with a low
 * fd limit (run-in-guest starts one with `ulimit -n 1024`), so that the
 * limit is cheap to reach:
 *
 *   SYNCWAY_ROBUSTNESS_LIMITED_DISPLAY=NAME  its WAYLAND_DISPLAY (else the
 *                                            subtests skip)
 *   SYNCWAY_ROBUSTNESS_LIMITED_LOG=PATH      its log (with -v: libwayland's
 *                                            messages are at info level), for
 *                                            its budget and the "fd limit",
 *                                            "accept" and polling lines (else
 *                                            not checked, and the subtest of
 *                                            many small clients skips)
 *
 * See docs/conformance.md, "The robustness suite". */
#include "fd_limit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ct.h"
#include "leaks.h"

/* The compositor's CPU time so far (user + system, all threads), in clock
 * ticks, from /proc/PID/stat; -1 if unreadable. */
static long long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold spaces: fields count from its ')'. */
	char *p = strrchr(buf, ')');
	unsigned long long utime, stime;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
			 &stime) != 2)
		return -1;
	return (long long)(utime + stime);
}

/* The compositor's share of one CPU while c is dispatched for ms
 * milliseconds, in percent. */
static double cpu_percent_over(struct ct_conn *c, pid_t pid, int ms)
{
	long long before = cpu_ticks(pid);
	int64_t start = ct_now_ns();
	while (ct_now_ns() - start < (int64_t)ms * 1000000)
		ct_dispatch(c, -1, 20);
	long long after = cpu_ticks(pid);
	if (before < 0 || after < 0)
		sw_fail("cannot read /proc/%d/stat", (int)pid);
	double secs = (ct_now_ns() - start) / 1e9;
	return 100.0 * (double)(after - before) / (double)sysconf(_SC_CLK_TCK) / secs;
}

/* The compositor's log, or NULL without one. */
static FILE *limited_log(void)
{
	const char *path = getenv("SYNCWAY_ROBUSTNESS_LIMITED_LOG");
	return path && *path ? fopen(path, "re") : NULL;
}

/* Lines of the compositor's log containing needle; -1 without a log. */
static int log_lines(const char *needle)
{
	FILE *f = limited_log();
	if (!f)
		return -1;
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

/* The budget of waiting surfaces of all clients that the compositor's log
 * states ("... waiting surfaces of all clients at most N ..."); -1 without. */
static long limited_budget(void)
{
	FILE *f = limited_log();
	if (!f)
		return -1;
	char line[1024];
	long budget = -1;
	const char *needle = "waiting surfaces of all clients at most ";
	while (budget < 0 && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, needle);
		if (p)
			budget = strtol(p + strlen(needle), NULL, 10);
	}
	fclose(f);
	return budget;
}

/* A non-blocking connection to the compositor's socket; -1 with errno
 * (EAGAIN: its backlog is full). */
static int raw_connect(void)
{
	const char *dir = getenv("XDG_RUNTIME_DIR"), *name = getenv("WAYLAND_DISPLAY");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (!dir || !name)
		sw_skip("XDG_RUNTIME_DIR or WAYLAND_DISPLAY unset");
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", dir, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		sw_fail("socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* Whether the compositor closed the connection (refused it). */
static bool peer_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 0) <= 0)
		return false;
	char c;
	return (p.revents & (POLLHUP | POLLERR)) || recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

enum probe { PROBE_SERVED, PROBE_REFUSED, PROBE_HUNG };

static void handle_probe_done(void *data, struct wl_callback *cb, uint32_t serial)
{
	*(bool *)data = true;
}

static const struct wl_callback_listener probe_listener = { .done = handle_probe_done };

/* A new client connects and does a roundtrip, within timeout_ms. */
static enum probe probe_new_client(int timeout_ms, char *why, size_t why_len)
{
	int fd = raw_connect();
	if (fd < 0) {
		snprintf(why, why_len, "connect: %s", strerror(errno));
		return PROBE_REFUSED;
	}
	struct wl_display *d = wl_display_connect_to_fd(fd);
	if (!d) {
		close(fd);
		snprintf(why, why_len, "wl_display_connect_to_fd failed");
		return PROBE_REFUSED;
	}
	bool done = false;
	struct wl_callback *cb = wl_display_sync(d);
	wl_callback_add_listener(cb, &probe_listener, &done);
	int64_t end = ct_now_ns() + (int64_t)timeout_ms * 1000000;
	enum probe result = PROBE_HUNG;
	snprintf(why, why_len, "no answer within %d ms", timeout_ms);
	while (!done) {
		int64_t left = end - ct_now_ns();
		if (left <= 0)
			break;
		if (wl_display_flush(d) < 0 && errno != EAGAIN && errno != EPIPE) {
			snprintf(why, why_len, "flush: %s", strerror(errno));
			result = PROBE_REFUSED;
			break;
		}
		struct pollfd p = { .fd = wl_display_get_fd(d), .events = POLLIN };
		if (poll(&p, 1, (int)(left / 1000000) + 1) > 0 && wl_display_dispatch(d) < 0) {
			snprintf(why, why_len, "connection closed: %s", strerror(wl_display_get_error(d)));
			result = PROBE_REFUSED;
			break;
		}
	}
	if (done)
		result = PROBE_SERVED;
	wl_callback_destroy(cb);
	wl_display_disconnect(d);
	return result;
}

static const char *const probe_names[] = { "served", "refused", "left hanging" };

/* The subtests talk to the compositor with the low fd limit; the other
 * subtests' compositor is WAYLAND_DISPLAY again after them. */
static char *saved_display;

static void use_limited_compositor(void)
{
	const char *name = getenv("SYNCWAY_ROBUSTNESS_LIMITED_DISPLAY");
	if (!name || !*name)
		sw_skip("SYNCWAY_ROBUSTNESS_LIMITED_DISPLAY unset: needs a compositor started with a "
			"low fd limit (run-in-guest starts one)");
	const char *current = getenv("WAYLAND_DISPLAY");
	free(saved_display);
	saved_display = current ? strdup(current) : NULL;
	setenv("WAYLAND_DISPLAY", name, 1);
}

static void use_main_compositor(void)
{
	if (saved_display)
		setenv("WAYLAND_DISPLAY", saved_display, 1);
	free(saved_display);
	saved_display = NULL;
}

/* Ours must exceed the compositor's: every connection costs both a fd. */
static void raise_own_fd_limit(long want)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) != 0)
		sw_fail("getrlimit: %s", strerror(errno));
	if (r.rlim_cur >= (rlim_t)want)
		return;
	r.rlim_cur = (rlim_t)want;
	if (r.rlim_max < r.rlim_cur)
		r.rlim_max = r.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &r) != 0)
		sw_skip("cannot raise our own fd limit to %ld: %s", want, strerror(errno));
}

/* The observer and the guard of robustness.c: after the subtest the
 * compositor still draws, its fds are back to the baseline and every
 * syncobj made meanwhile is freed. */
struct limited {
	struct ct_conn *obs;
	struct ct_fd_watch fds;
	long limit;
	bool tracing;
	char why[256];
};

static void limited_start(struct limited *l)
{
	use_limited_compositor();
	l->obs = ct_connect_with_manager();
	ct_control_frame(l->obs);
	ct_roundtrip(l->obs);
	ct_fd_watch_start(l->obs, &l->fds);
	l->limit = ct_nofile_limit(l->fds.pid);
	if (l->limit <= 0)
		sw_skip("cannot read the compositor's fd limit");
	if (l->limit > 8192)
		sw_skip("the compositor's fd limit is %ld: too high to reach cheaply", l->limit);
	l->tracing = ct_objtrace_start(l->why, sizeof(l->why));
}

static void limited_end(struct limited *l, const char *what)
{
	struct ct_track *t = ct_control_frame(l->obs);
	if (!ct_wait_flag(l->obs, &t->frame_done, CT_DEADLINE_MS))
		sw_fail("%s: the compositor draws no frame for the observer", what);
	ct_fd_watch_expect_baseline(l->obs, &l->fds, CT_DEADLINE_MS, what);
	if (l->tracing) {
		ct_forget_all_timelines();
		ct_objtrace_expect_none_alive(l->obs, CT_DEADLINE_MS, what);
		ct_objtrace_stop();
	} else {
		ct_note("syncobjs not counted: %s", l->why);
	}
}

/* An explicit-sync client beside the ones under test: a window shown
 * once, whose later commits must each wait (bystander_frame). */
struct bystander {
	struct ct_conn *c;
	struct ct_window *w;
	struct sw_buffer *buf[2];
	struct ct_timeline *acq, *rel[4];
	uint64_t point;
};

static void bystander_start(struct bystander *b)
{
	b->c = ct_connect_with_manager();
	b->w = ct_sync_window(b->c);
	b->buf[0] = ct_buffer(b->c);
	b->buf[1] = ct_buffer(b->c);
	b->acq = ct_timeline(b->c);
	for (int i = 0; i < 4; i++)
		b->rel[i] = ct_timeline(b->c);
	b->point = 1;
	ct_show(b->w, b->buf[0], b->acq, 1, b->rel[0], 1);
}

/* The bystander's next commit (at most three a subtest: a release
 * timeline each). It must wait, its acquire point signalled 100 ms after
 * the commit, so the compositor needs an eventfd (or another way to see it
 * signalled), and it must be presented. */
static void bystander_frame(struct bystander *b, const char *what)
{
	uint64_t p = ++b->point;
	struct ct_track *t = ct_commit_buffer(b->w, b->buf[p % 2], b->acq, p, b->rel[(p - 1) % 4], p);
	ct_signal_later(b->acq, p, ct_ms(100), NULL);
	if (!ct_try_roundtrip(b->c))
		sw_fail("%s: the explicit-sync client was disconnected: \"%s\"", what, ct_last_log());
	ct_need_presented(b->c, t, what);
}

enum { ATTACKERS = 8 };
/* syncway polls instead of cutting off when no client holds more than eight
 * waiting surfaces (acquire_wait.c); the budget of a compositor with 1024
 * fds needs about 50 such clients. */
enum { SMALL_SURFACES = 8, SMALL_CLIENTS_MAX = 256 };

struct attacker {
	struct ct_conn *c;
	struct sw_buffer *buf;
	struct ct_timeline *acq, *rel;
	int held; /* commits it made the compositor hold (an attacker: one a surface) */
	bool cut;
	bool display_error; /* cut with wl_display.implementation */
	char why[320];
};

/* Another role-less surface with a commit held on a never-signalled point. */
static void attacker_surface(struct attacker *a)
{
	struct ct_window *w = ct_bare_surface(a->c);
	ct_get_sync(w);
	ct_prepare(w, a->buf, a->acq, 1, a->rel, (uint64_t)++a->held);
	ct_commit(w);
}

/* Roundtrip of an attacker: false once the compositor cut it off, with the
 * error's words kept. */
static bool attacker_alive(struct attacker *a)
{
	if (a->cut)
		return false;
	if (wl_display_roundtrip(a->c->d->display) >= 0)
		return true;
	a->cut = true;
	const struct wl_interface *iface = NULL;
	uint32_t code = wl_display_get_protocol_error(a->c->d->display, &iface, NULL);
	a->display_error = iface == &wl_display_interface && code == WL_DISPLAY_ERROR_IMPLEMENTATION;
	snprintf(a->why, sizeof(a->why), "%s: error %u on %s (\"%s\")",
		 strerror(wl_display_get_error(a->c->d->display)), code, iface ? iface->name : "-",
		 ct_last_log());
	return false;
}

/* A client's surface for holding commits (attacker's buf, acq and rel). */
static struct ct_window *holder_start(struct attacker *a)
{
	struct ct_window *w = ct_sync_window(a->c);
	a->buf = ct_buffer_of(a->c, SW_BUFFER_SHM);
	a->acq = ct_timeline(a->c);
	a->rel = ct_timeline(a->c);
	ct_roundtrip(a->c);
	return w;
}

/* One more commit held on w (never-signalled point 1), counted in
 * a->held; roundtrip: see at once whether it was taken. */
static void holder_commit(struct attacker *a, struct ct_window *w, bool roundtrip)
{
	if (a->cut)
		return;
	ct_prepare(w, a->buf, a->acq, 1, a->rel, (uint64_t)++a->held);
	ct_commit(w);
	if (roundtrip)
		attacker_alive(a);
}

/* After a subtest of connections, whether it passed or failed: closes
 * them, and the client it used for the rest. */
static void flood_end(int *fds, int *n, struct ct_conn **client)
{
	for (int i = 0; i < *n; i++)
		close(fds[i]);
	*n = 0;
	if (*client)
		ct_disconnect(*client);
	*client = NULL;
}

void fd_limit_tests(void)
{
	/* Eight clients whose waiting surfaces (two fds each) would together
	 * take several times the compositor's fds, none of them past the
	 * per-client cap (256): the first holds limit/6 surfaces, then the
	 * other seven add theirs in turn. Bystanders connected before (an
	 * explicit-sync client whose commits must wait, a wl_shm one) keep
	 * getting frames, a new client connects, the client holding the most
	 * is the first one cut off, the compositor stays below its limit
	 * without spinning, and everything comes back afterwards. */
	ct_subtest("waiting-surfaces-of-many-clients-cut-the-heaviest")
	{
		static struct attacker att[ATTACKERS];
		struct limited l;
		limited_start(&l);
		int per = (int)(l.limit / 6);
		if (per > 250)
			per = 250; /* below the per-client cap: the total must bind */
		struct bystander e;
		bystander_start(&e);
		struct ct_conn *s = ct_connect(); /* wl_shm, no explicit sync */
		ct_control_frame(s);
		ct_roundtrip(s);
		for (int i = 0; i < ATTACKERS; i++) {
			att[i] = (struct attacker){ .c = ct_connect_with_manager() };
			att[i].buf = ct_buffer_of(att[i].c, SW_BUFFER_SHM);
			att[i].acq = ct_timeline(att[i].c);
			att[i].rel = ct_timeline(att[i].c);
			ct_roundtrip(att[i].c);
		}
		struct ct_fds now;
		int most = l.fds.base.total, first_cut = -1, cuts = 0;
		for (int k = 0; k < per && attacker_alive(&att[0]); k++) {
			attacker_surface(&att[0]);
			if (k % 25 == 24 && ct_fds_read(l.fds.pid, &now) && now.total > most)
				most = now.total;
		}
		if (att[0].cut)
			first_cut = 0;
		for (int k = 0; k < per; k++) {
			int alive = 0;
			for (int i = 1; i < ATTACKERS; i++) {
				if (att[i].cut)
					continue;
				attacker_surface(&att[i]);
				alive++;
			}
			if (k % 8 == 7 || k == per - 1) {
				for (int i = 0; i < ATTACKERS; i++) {
					if (!att[i].cut && !attacker_alive(&att[i])) {
						cuts++;
						if (first_cut < 0)
							first_cut = i;
						ct_note("client %d cut off with %d surfaces sent: %s", i,
							att[i].held, att[i].why);
					}
				}
				if (ct_fds_read(l.fds.pid, &now) && now.total > most)
					most = now.total;
			}
			if (!alive)
				break;
		}
		if (!att[0].cut && !attacker_alive(&att[0])) {
			cuts++;
			ct_note("client 0 cut off with %d surfaces sent: %s", att[0].held, att[0].why);
		}
		ct_note("%d clients, the first with %d waiting surfaces, the others up to %d each: "
			"%d cut off; compositor fds %d at the start, at most %d (limit %ld)", ATTACKERS,
			att[0].held, per, cuts, l.fds.base.total, most, l.limit);

		/* The bystanders, with the attackers that are left still there. */
		bystander_frame(&e, "a waiting commit of a bystander");
		for (int i = 0; i < 3; i++) {
			struct ct_track *t = ct_control_frame(s);
			if (!ct_wait_flag(s, &t->frame_done, CT_DEADLINE_MS))
				sw_fail("the wl_shm bystander got no frame");
		}
		char why[128];
		enum probe p = probe_new_client(CT_DEADLINE_MS, why, sizeof(why));
		if (p != PROBE_SERVED)
			sw_fail("a new client was %s (%s) while %d clients held waiting surfaces",
				probe_names[p], why, ATTACKERS);
		double cpu = cpu_percent_over(l.obs, l.fds.pid, 1500);
		ct_note("compositor CPU %.1f %% of one CPU over 1.5 s with the attackers connected", cpu);
		bystander_frame(&e, "a second waiting commit of a bystander");

		if (first_cut != 0)
			sw_fail("the first client cut off was client %d, not client 0, which held the "
				"most waiting surfaces (%d)", first_cut, att[0].held);
		if (!att[0].display_error)
			sw_fail("client 0 was cut off without a wl_display implementation error: %s",
				att[0].why);
		if (most >= l.limit - 32)
			sw_fail("the compositor reached %d fds, its limit being %ld: no headroom left for "
				"new clients and waits", most, l.limit);
		if (cpu > 20)
			sw_fail("the compositor used %.1f %% of a CPU while idle near its fd limit", cpu);
		for (int i = 0; i < ATTACKERS; i++)
			ct_disconnect(att[i].c);
		bystander_frame(&e, "a waiting commit after the attackers left");
		ct_disconnect(e.c);
		ct_disconnect(s);
		limited_end(&l, "after the clients with waiting surfaces left");
	}
	use_main_compositor();

	/* Clients of eight waiting surfaces each (syncway calls eight or fewer
	 * few) until all of them together pass the compositor's budget: with
	 * nobody holding many there is no one to blame, so nobody is cut off;
	 * the waits past the budget are watched by polling, which costs no
	 * fd, an explicit-sync bystander's waiting commit is presented, and
	 * the compositor stays below its fd limit. */
	ct_subtest("small-clients-past-the-budget-are-polled-not-cut-off")
	{
		static struct attacker small[SMALL_CLIENTS_MAX];
		struct limited l;
		limited_start(&l);
		long budget = limited_budget();
		if (budget <= 0)
			sw_skip("the compositor's budget is not in its log (SYNCWAY_ROBUSTNESS_LIMITED_LOG)");
		int clients = (int)(budget / SMALL_SURFACES) + 2;
		if (clients > SMALL_CLIENTS_MAX)
			sw_skip("a budget of %ld needs %d clients of %d surfaces", budget, clients,
				SMALL_SURFACES);
		raise_own_fd_limit(clients * 8L + 256);
		int polled_lines = log_lines("at the fd budget, none holding many");
		struct bystander e;
		bystander_start(&e);
		struct ct_fds now;
		int most = l.fds.base.total, cut = 0;
		for (int i = 0; i < clients; i++) {
			small[i] = (struct attacker){ .c = ct_connect_with_manager() };
			small[i].buf = ct_buffer_of(small[i].c, SW_BUFFER_SHM);
			small[i].acq = ct_timeline(small[i].c);
			small[i].rel = ct_timeline(small[i].c);
			for (int k = 0; k < SMALL_SURFACES; k++)
				attacker_surface(&small[i]);
			if (!attacker_alive(&small[i])) {
				cut++;
				ct_note("client %d of %d surfaces cut off: %s", i, SMALL_SURFACES,
					small[i].why);
			}
			if (i % 8 == 7 && ct_fds_read(l.fds.pid, &now) && now.total > most)
				most = now.total;
		}
		for (int i = 0; i < clients; i++)
			if (!small[i].cut && !attacker_alive(&small[i]))
				cut++;
		if (ct_fds_read(l.fds.pid, &now) && now.total > most)
			most = now.total;
		bystander_frame(&e, "a bystander's waiting commit with the budget spent");
		int polled = log_lines("at the fd budget, none holding many") - polled_lines;
		ct_note("%d clients of %d waiting surfaces (%d in all, budget %ld): %d cut off; "
			"compositor fds %d at the start, at most %d (limit %ld)", clients,
			SMALL_SURFACES, clients * SMALL_SURFACES, budget, cut, l.fds.base.total, most,
			l.limit);
		if (cut)
			sw_fail("%d of %d clients holding %d waiting surfaces each were cut off", cut,
				clients, SMALL_SURFACES);
		if (polled_lines >= 0 && polled < 1)
			sw_fail("past its budget the compositor never said it polls the waits of clients "
				"holding few");
		if (most >= l.limit - 32)
			sw_fail("the compositor reached %d fds, its limit being %ld", most, l.limit);
		for (int i = 0; i < clients; i++)
			ct_disconnect(small[i].c);
		bystander_frame(&e, "a waiting commit after the clients left");
		ct_disconnect(e.c);
		limited_end(&l, "after the clients of few waiting surfaces left");
	}
	use_main_compositor();

	/* All clients' held commits together against --max-held-total (3000 on
	 * the limited compositor, below its per-client cap of 4096): one client
	 * holds two thirds of it on one surface, a second adds commits until
	 * the bound is reached. The first is cut off, not the one committing;
	 * then the second, holding the most, is cut off by a bystander's
	 * waiting commit, which is presented. */
	ct_subtest("held-commits-of-all-clients-cut-the-heaviest")
	{
		long total = ct_env_int("SYNCWAY_ROBUSTNESS_LIMITED_HELD_TOTAL", 0);
		if (total <= 0)
			sw_skip("SYNCWAY_ROBUSTNESS_LIMITED_HELD_TOTAL unset: the compositor's "
				"--max-held-total is not known");
		struct limited l;
		limited_start(&l);
		struct bystander e;
		bystander_start(&e);
		struct attacker a = { .c = ct_connect_with_manager() }, b = { .c = ct_connect_with_manager() };
		struct ct_window *wa = holder_start(&a), *wb = holder_start(&b);
		long heavy = total * 2 / 3;
		for (long k = 0; k < heavy; k++)
			holder_commit(&a, wa, k % 500 == 499);
		if (!attacker_alive(&a))
			sw_fail("a client holding %ld commits, below the bound of %ld, was cut off: %s",
				heavy, total, a.why);
		while (b.held < total && attacker_alive(&b) && !a.cut) {
			holder_commit(&b, wb, false);
			if (b.held % 50 == 0 || b.held + heavy >= total)
				attacker_alive(&a);
		}
		ct_note("client A held %d commits, client B %d when A was %s", a.held, b.held,
			a.cut ? "cut off" : "still connected");
		if (!a.cut)
			sw_fail("all clients' held commits reached %d, past the bound of %ld, and the "
				"client holding %d was not cut off", a.held + b.held, total,
				a.held);
		if (b.cut)
			sw_fail("the client committing (holding %d) was cut off, not the one holding "
				"the most (%d): %s", b.held, a.held, b.why);
		if (!a.display_error || !strstr(a.why, "--max-held-total"))
			sw_fail("the client holding the most was not told why: %s", a.why);
		/* Up to the bound, alone: then a bystander's commit. */
		while (b.held < total && !b.cut)
			holder_commit(&b, wb, b.held % 500 == 499);
		if (!attacker_alive(&b))
			sw_fail("a client holding %d commits alone, at most the bound of %ld, was cut off: %s",
				b.held, total, b.why);
		bystander_frame(&e, "a bystander's waiting commit at the bound");
		if (attacker_alive(&b))
			sw_fail("a bystander's commit took all clients' held commits past the bound of %ld "
				"and the client holding %d was not cut off", total, b.held);
		ct_note("client B cut off holding %d: %s", b.held, b.why);
		ct_disconnect(a.c);
		ct_disconnect(b.c);
		bystander_frame(&e, "a waiting commit after the holders left");
		ct_disconnect(e.c);
		limited_end(&l, "after the clients holding commits left");
	}
	use_main_compositor();

	/* Connections until the compositor is at its fd limit, then more for
	 * two seconds: they may be refused, but the compositor must not spin
	 * on its listening socket or log each refusal, a connected client's
	 * commit that must wait still completes, and once the flood leaves a
	 * new client is served. */
	static int held[16384], n;
	ct_subtest("connection-flood-at-fd-limit-is-refused-without-spinning")
	{
		int refused = 0, attempts = 0;
		struct limited l;
		limited_start(&l);
		raise_own_fd_limit(l.limit * 2 + 256);
		struct bystander e;
		bystander_start(&e);
		int limit_lines = log_lines("fd limit"), accept_lines = log_lines("accept");

		/* Up to the limit: batches until the compositor stops taking them. */
		struct ct_fds now = l.fds.base;
		bool full = false;
		while (!full && n < (int)(sizeof(held) / sizeof(held[0])) - 64) {
			for (int i = 0; i < 32; i++) {
				int fd = raw_connect();
				attempts++;
				if (fd < 0) {
					refused++;
					full = true;
					break;
				}
				held[n++] = fd;
			}
			ct_dispatch(e.c, -1, 30);
			for (int i = n - 32; i >= 0 && i < n; i++)
				if (peer_closed(held[i]))
					full = true;
			if (!ct_fds_read(l.fds.pid, &now))
				sw_fail("the compositor went away");
			if (now.total >= l.limit - 2 || n > l.limit + 512)
				full = true;
		}
		if (now.total < l.limit / 2 && !refused)
			sw_fail("%d connections took the compositor to %d fds only, its limit being %ld",
				n, now.total, l.limit);
		ct_note("%d connections opened before the compositor stopped taking them: fds %d "
			"(limit %ld)", n, now.total, l.limit);

		/* Two more seconds of attempts, one every 5 ms. */
		long long before = cpu_ticks(l.fds.pid);
		int64_t start = ct_now_ns();
		int hanging = 0;
		while (ct_now_ns() - start < 2000000000LL) {
			int fd = raw_connect();
			attempts++;
			if (fd < 0)
				refused++;
			else if (n < (int)(sizeof(held) / sizeof(held[0])))
				held[n++] = fd;
			else
				close(fd);
			ct_dispatch(e.c, -1, 5);
		}
		long long after = cpu_ticks(l.fds.pid);
		double secs = (ct_now_ns() - start) / 1e9;
		double cpu = 100.0 * (double)(after - before) / (double)sysconf(_SC_CLK_TCK) / secs;
		for (int i = 0; i < n; i++)
			if (!peer_closed(held[i]))
				hanging++;
		ct_note("%d connection attempts in all, %d refused at connect; over %.1f s at the "
			"limit the compositor used %.1f %% of one CPU; %d connections open, %d closed "
			"by the compositor", attempts, refused, secs, cpu, hanging, n - hanging);
		int limit_during = log_lines("fd limit") - limit_lines;
		int accept_during = log_lines("accept") - accept_lines;
		if (cpu > 20 || (limit_lines >= 0 && (limit_during > 1 || accept_during > 2)))
			sw_fail("while connections were refused at its fd limit the compositor used "
				"%.1f %% of a CPU and logged %d \"fd limit\" lines and %d about accept "
				"(a busy loop, a line per attempt?)", cpu, limit_during, accept_during);
		bystander_frame(&e, "a connected client's waiting commit at the fd limit");

		for (int i = 0; i < n; i++)
			close(held[i]);
		n = 0;
		char why[128];
		enum probe p = PROBE_HUNG;
		for (int64_t end = ct_now_ns() + (int64_t)CT_DEADLINE_MS * 1000000;
		     p != PROBE_SERVED && ct_now_ns() < end;)
			p = probe_new_client(CT_DEADLINE_MS, why, sizeof(why));
		if (p != PROBE_SERVED)
			sw_fail("after the flood left, a new client was %s (%s)", probe_names[p], why);
		struct ct_conn *c = ct_connect_with_manager();
		struct ct_window *w = ct_sync_window(c);
		ct_show(w, ct_buffer(c), ct_timeline(c), 1, ct_timeline(c), 1);
		ct_disconnect(c);
		int limit_total = log_lines("fd limit") - limit_lines;
		if (limit_lines >= 0)
			ct_note("compositor log: %d \"fd limit\" lines during the flood, %d in all; %d "
				"lines about accept", limit_during, limit_total, accept_during);
		if (limit_lines >= 0 && limit_total > 2)
			sw_fail("the compositor logged %d \"fd limit\" lines for one flood", limit_total);
		if (limit_lines >= 0 && limit_total < 1)
			sw_fail("the compositor never said it was at its fd limit");
		ct_disconnect(e.c);
		limited_end(&l, "after the connection flood left");
	}
	/* A failed check leaves them open otherwise. */
	static struct ct_conn *none;
	flood_end(held, &n, &none);
	use_main_compositor();

	/* Connections take fds two at a time until the compositor stops
	 * taking them; then a client connected before sends fds (wl_shm
	 * pools) and must stay connected: the kernel drops fds sent to a
	 * process at its limit, and libwayland disconnects the client whose
	 * fds were dropped. So connections must stop short of the limit. */
	static struct ct_conn *sender;
	ct_subtest("clients-keep-room-for-fds-they-send-when-connections-flood")
	{
		struct limited l;
		limited_start(&l);
		raise_own_fd_limit(l.limit * 2 + 256);
		struct bystander e;
		bystander_start(&e);
		sender = ct_connect();
		ct_roundtrip(sender);
		struct ct_fds now = l.fds.base;
		int64_t quiet_since = ct_now_ns();
		int last = now.total;
		bool refused = false;
		while (!refused && n < (int)(sizeof(held) / sizeof(held[0])) - 32) {
			for (int i = 0; i < 16; i++) {
				int fd = raw_connect();
				if (fd < 0) {
					refused = true;
					break;
				}
				held[n++] = fd;
			}
			ct_dispatch(e.c, -1, 20);
			for (int i = n - 16; i >= 0 && i < n; i++)
				refused = refused || peer_closed(held[i]);
			if (!ct_fds_read(l.fds.pid, &now))
				sw_fail("the compositor went away");
			/* At the limit, accept() fails and nothing is closed. */
			if (now.total != last)
				quiet_since = ct_now_ns();
			last = now.total;
			if (now.total >= l.limit - 1 || ct_now_ns() - quiet_since > 1000000000LL)
				break;
		}
		ct_note("%d connections took the compositor to %d fds (limit %ld)%s", n, now.total,
			l.limit, refused ? ", then it closed them" : "");
		int pools = 0;
		for (; pools < 32; pools++) {
			ct_buffer_of(sender, SW_BUFFER_SHM);
			if (wl_display_roundtrip(sender->d->display) < 0)
				break;
		}
		if (pools < 32)
			sw_fail("a connected client was disconnected (%s) sending wl_shm pool %d with the "
				"compositor at %d of %ld fds after a connection flood",
				strerror(wl_display_get_error(sender->d->display)), pools + 1, now.total,
				l.limit);
		if (ct_fds_read(l.fds.pid, &now))
			ct_note("32 wl_shm pools sent: the compositor at %d fds", now.total);
		bystander_frame(&e, "a waiting commit after the connection flood");
		flood_end(held, &n, &sender);
		ct_disconnect(e.c);
		limited_end(&l, "after the connection flood and the wl_shm pools");
	}
	flood_end(held, &n, &sender);
	use_main_compositor();

	/* With one fd left, accept() succeeds but the connection cannot
	 * become a client (the event loop needs a second fd for it), and
	 * wl_client_create() leaves its fd open: a compositor that does not
	 * close it keeps it for good, and any client can repeat that until
	 * the compositor sits at its limit. Connections (two fds each, until
	 * the compositor takes no more) and dmabufs (one each) bring the
	 * compositor to one fd short. */
	static struct ct_conn *filler;
	ct_subtest("connection-with-one-fd-left-is-closed-not-leaked")
	{
		struct limited l;
		limited_start(&l);
		raise_own_fd_limit(l.limit * 2 + 256);
		filler = ct_connect_with_manager();
		char no_dmabuf[128];
		if (!ct_dmabuf_usable(filler, no_dmabuf, sizeof(no_dmabuf)))
			sw_skip("one fd short of the limit is reached with dmabufs: %s", no_dmabuf);
		struct ct_fds now;
		int64_t deadline = ct_now_ns() + (int64_t)CT_DEADLINE_MS * 1000000;
		for (int want = 0, batch = 0;;) {
			ct_roundtrip(filler);
			if (!ct_fds_read(l.fds.pid, &now))
				sw_fail("the compositor went away");
			if (now.total >= l.limit - 3 || n >= (int)(sizeof(held) / sizeof(held[0])) - 16)
				break;
			/* Refused: the compositor keeps the rest for the fds its
			 * clients send; dmabufs take it from here. */
			bool refused = false;
			for (int i = n - batch; i < n; i++)
				refused = refused || peer_closed(held[i]);
			if (refused)
				break;
			/* Accepted in the compositor's own time: near the limit,
			 * one at a time, each taken in before the next. */
			if (now.total < want) {
				if (ct_now_ns() > deadline)
					sw_fail("%d connections: the compositor is at %d fds, not %d", n,
						now.total, want);
				ct_dispatch(filler, -1, 5);
				continue;
			}
			batch = now.total < l.limit / 2 ? 16 : 1;
			for (int i = 0; i < batch; i++) {
				if ((held[n] = raw_connect()) < 0)
					sw_fail("connection %d refused at %d fds (limit %ld)", n, now.total,
						l.limit);
				n++;
			}
			want = now.total + 2 * batch;
			deadline = ct_now_ns() + (int64_t)CT_DEADLINE_MS * 1000000;
		}
		for (int i = 0; now.total < l.limit - 1 && i < 1024; i++) {
			/* One fd each: in eights while that many are missing. */
			for (int k = l.limit - 1 - now.total >= 8 ? 8 : 1; k > 0; k--)
				ct_buffer_of(filler, SW_BUFFER_DMABUF);
			ct_roundtrip(filler);
			if (!ct_fds_read(l.fds.pid, &now))
				sw_fail("the compositor went away");
		}
		if (now.total != l.limit - 1)
			sw_skip("could not bring the compositor to one fd short of its limit %ld (at %d)",
				l.limit, now.total);
		ct_note("%d connections and dmabufs took the compositor to %d fds, limit %ld", n,
			now.total, l.limit);
		int fd = raw_connect();
		if (fd < 0)
			sw_fail("with one fd left the connection was refused at connect: %s",
				strerror(errno));
		held[n++] = fd;
		bool closed = false;
		for (int64_t end = ct_now_ns() + (int64_t)CT_DEADLINE_MS * 1000000;
		     !(closed = peer_closed(fd)) && ct_now_ns() < end;)
			ct_dispatch(filler, -1, 10);
		if (!closed)
			sw_fail("with one fd left, a connection was accepted and left hanging for %d ms: "
				"its fd is lost to the compositor", CT_DEADLINE_MS);
		flood_end(held, &n, &filler);
		limited_end(&l, "after the connection with one fd left");
	}
	flood_end(held, &n, &filler);
	use_main_compositor();
}
