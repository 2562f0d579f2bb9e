/* The Wayland socket. libwayland's own listening socket cannot refuse a
 * connection: when accept() fails (EMFILE, ENFILE at the fd limit) its
 * handler logs "failed to accept" and returns with the connection still
 * queued, so the socket stays readable and the event loop spins on it,
 * logging each turn, for as long as the compositor is at its limit. So
 * syncway makes the socket itself, the way wl_display_add_socket_auto()
 * does (same names, same lock file), and accepts on it:
 *
 *   - at the fd limit a spare fd, kept open for the purpose, is closed,
 *     the queued connection accepted and closed (the client sees its
 *     connection closed at once instead of hanging), and the spare opened
 *     again; then the socket is left alone for a little while, so that a
 *     flood of connection attempts costs a few system calls per attempt
 *     and no busy loop;
 *   - a connection is refused too when it would leave fewer than the
 *     reserve of fds free: connected clients keep that much room for the
 *     fds they send (shm pools, dmabufs, clipboard pipes), which the
 *     kernel drops at the limit, and libwayland then disconnects whichever
 *     client sent them;
 *   - the first refusal and the first accept after refusals are logged,
 *     one line each per episode, not one per attempt. */
#include "listen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <wayland-server-core.h>

/* How long the socket is left alone after refusing at the fd limit. */
#define PAUSE_MS 100
/* Connections taken per wake-up, so that a flood cannot hold the loop. */
#define ACCEPTS_PER_WAKE 32

struct sw_listener {
	struct wl_display *display;
	char name[32];
	struct sockaddr_un addr;
	char lock_path[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
	int fd, lock_fd;
	int spare_fd; /* /dev/null, given up to refuse a connection at the limit */
	long reserve;        /* fds kept for connected clients */
	long first_reserved; /* fd numbers from here on are the reserve; 0: none */
	struct wl_event_source *source;
	struct wl_event_source *resume_timer;
	bool at_limit;          /* an episode of refusals is going on */
	unsigned long refused;  /* connections refused in it */
};

static int open_spare(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void pause_accepting(struct sw_listener *listener)
{
	wl_event_source_fd_update(listener->source, 0);
	wl_event_source_timer_update(listener->resume_timer, PAUSE_MS);
}

static int handle_resume(void *data)
{
	struct sw_listener *listener = data;
	wl_event_source_fd_update(listener->source, WL_EVENT_READABLE);
	return 0;
}

/* Out of fds (err), or into the reserve (0): the queued connections are
 * closed rather than left to make the socket readable again at once. */
static void refuse(struct sw_listener *listener, int err)
{
	if (!listener->at_limit && err)
		fprintf(stderr, "syncway: at the fd limit (%s): refusing connections\n", strerror(err));
	else if (!listener->at_limit)
		fprintf(stderr, "syncway: near the fd limit (the last %ld fds are kept for connected "
			"clients): refusing connections\n", listener->reserve);
	listener->at_limit = true;
	for (int i = 0; i < ACCEPTS_PER_WAKE; i++) {
		if (listener->spare_fd >= 0) {
			close(listener->spare_fd);
			listener->spare_fd = -1;
		}
		int fd = accept4(listener->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0) {
			close(fd);
			listener->refused++;
		}
		listener->spare_fd = open_spare();
		if (fd < 0 || listener->spare_fd < 0)
			break;
	}
	pause_accepting(listener);
}

static int handle_connection(int fd, uint32_t mask, void *data)
{
	struct sw_listener *listener = data;
	for (int i = 0; i < ACCEPTS_PER_WAKE; i++) {
		int client_fd = accept4(listener->fd, NULL, NULL, SOCK_CLOEXEC);
		if (client_fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE)
				refuse(listener, errno);
			else if (errno != EAGAIN)
				fprintf(stderr, "syncway: accepting a connection: %s\n", strerror(errno));
			return 0;
		}
		/* accept() returns the lowest free fd: at or past the reserve,
		 * that many fds and more are taken, and a client made of it
		 * would eat into its room. */
		if (listener->first_reserved > 0 && client_fd >= listener->first_reserved) {
			close(client_fd);
			listener->refused++;
			refuse(listener, 0);
			return 0;
		}
		if (listener->at_limit) {
			fprintf(stderr, "syncway: below the fd limit again: accepting connections after "
				"%lu refused\n", listener->refused);
			listener->at_limit = false;
			listener->refused = 0;
		}
		if (listener->spare_fd < 0)
			listener->spare_fd = open_spare();
		/* One fd short (its event loop duplicates client_fd),
		 * wl_client_create() fails and leaves client_fd open: its own
		 * listener closes it then, and so must this one. */
		if (!wl_client_create(listener->display, client_fd)) {
			close(client_fd);
			listener->refused++;
			refuse(listener, errno);
			return 0;
		}
	}
	return 0;
}

/* The lock file, as libwayland keeps it: whoever holds the lock owns the
 * name, and a socket left by a compositor that died may be replaced. */
static bool lock_name(struct sw_listener *listener)
{
	snprintf(listener->lock_path, sizeof(listener->lock_path), "%s.lock", listener->addr.sun_path);
	listener->lock_fd = open(listener->lock_path, O_CREAT | O_CLOEXEC | O_RDWR,
				 S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP);
	if (listener->lock_fd < 0)
		return false;
	if (flock(listener->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		close(listener->lock_fd);
		listener->lock_fd = -1;
		return false;
	}
	struct stat st;
	if (stat(listener->addr.sun_path, &st) == 0 && (st.st_mode & (S_IWUSR | S_IWGRP)))
		unlink(listener->addr.sun_path);
	return true;
}

static bool listen_on(struct sw_listener *listener, const char *dir, int n)
{
	snprintf(listener->name, sizeof(listener->name), "wayland-%d", n);
	listener->addr.sun_family = AF_LOCAL;
	int len = snprintf(listener->addr.sun_path, sizeof(listener->addr.sun_path), "%s/%s", dir,
			   listener->name);
	if (len < 0 || (size_t)len >= sizeof(listener->addr.sun_path)) {
		fprintf(stderr, "syncway: socket path %s/%s is too long\n", dir, listener->name);
		return false;
	}
	if (!lock_name(listener))
		return false;
	/* Non-blocking: accepting goes on until the queue is empty. */
	listener->fd = socket(PF_LOCAL, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (listener->fd >= 0 &&
	    bind(listener->fd, (struct sockaddr *)&listener->addr, sizeof(listener->addr)) == 0 &&
	    listen(listener->fd, 128) == 0)
		return true;
	fprintf(stderr, "syncway: cannot listen on %s: %s\n", listener->addr.sun_path, strerror(errno));
	if (listener->fd >= 0)
		close(listener->fd);
	listener->fd = -1;
	close(listener->lock_fd);
	listener->lock_fd = -1;
	return false;
}

struct sw_listener *sw_listener_create(struct wl_display *display, long reserve)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	if (!dir || !*dir) {
		fprintf(stderr, "syncway: XDG_RUNTIME_DIR is not set\n");
		return NULL;
	}
	struct sw_listener *listener = calloc(1, sizeof(*listener));
	if (!listener)
		return NULL;
	listener->display = display;
	listener->fd = listener->lock_fd = -1;
	struct rlimit limit;
	if (reserve > 0 && getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
	    (long)limit.rlim_cur > reserve) {
		listener->reserve = reserve;
		listener->first_reserved = (long)limit.rlim_cur - reserve;
	}
	for (int n = 0; n <= 32 && listener->fd < 0; n++)
		listen_on(listener, dir, n);
	if (listener->fd < 0) {
		fprintf(stderr, "syncway: no free name from wayland-0 to wayland-32 in %s\n", dir);
		free(listener);
		return NULL;
	}
	struct wl_event_loop *loop = wl_display_get_event_loop(display);
	listener->spare_fd = open_spare();
	listener->source = wl_event_loop_add_fd(loop, listener->fd, WL_EVENT_READABLE,
						handle_connection, listener);
	listener->resume_timer = wl_event_loop_add_timer(loop, handle_resume, listener);
	if (listener->spare_fd < 0 || !listener->source || !listener->resume_timer) {
		fprintf(stderr, "syncway: cannot watch the Wayland socket\n");
		sw_listener_destroy(listener);
		return NULL;
	}
	return listener;
}

const char *sw_listener_name(const struct sw_listener *listener)
{
	return listener->name;
}

void sw_listener_destroy(struct sw_listener *listener)
{
	if (!listener)
		return;
	if (listener->source)
		wl_event_source_remove(listener->source);
	if (listener->resume_timer)
		wl_event_source_remove(listener->resume_timer);
	if (listener->spare_fd >= 0)
		close(listener->spare_fd);
	close(listener->fd);
	unlink(listener->addr.sun_path);
	unlink(listener->lock_path);
	close(listener->lock_fd);
	free(listener);
}
