/* Runs a command as a sandboxed Wayland client: a security context
 * (security-context-v1) on a socket of its own, which the command gets as
 * WAYLAND_DISPLAY. The compositor tags every connection made on that
 * socket with the engine, app id and instance id given here, and hides its
 * privileged globals from them (syncway: see compositor/security_context.c).
 * Only this Wayland connection is confined: the command keeps the user's
 * files, processes and other sockets, the compositor's own socket and X11
 * (Xwayland is not sandboxed) among them. So this is a tool to try a
 * compositor's policy, or a piece of a sandbox that hides those, not a
 * sandbox by itself.
 *
 * The context lives as long as the command: when it exits, the close fd is
 * closed (the compositor stops accepting on the socket) and the socket is
 * removed. Clients already connected keep their connection. Exit status:
 * the command's (128 + N when signal N killed it), 125 when this tool
 * fails, 126 when the command cannot run, 127 when it is not found. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wayland-client.h>

#include "security-context-v1-client-protocol.h"

#define FAILED 125

static const char usage[] =
	"usage: syncway-sandbox [--app-id ID] [--engine NAME] [--instance-id ID] -- CMD [ARG...]\n"
	"  runs CMD with WAYLAND_DISPLAY on a new security context of the compositor's\n"
	"  (security-context-v1); --app-id defaults to CMD's name, --engine to\n"
	"  syncway-sandbox, --instance-id to this process's id. Exit status: CMD's,\n"
	"  125 when the context cannot be made, 126/127 when CMD cannot run.\n";

static struct wp_security_context_manager_v1 *manager;
static pid_t child;

static void handle_global(void *data, struct wl_registry *registry, uint32_t name,
			  const char *interface, uint32_t version)
{
	if (strcmp(interface, wp_security_context_manager_v1_interface.name) == 0)
		manager = wl_registry_bind(registry, name, &wp_security_context_manager_v1_interface, 1);
}

static void handle_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

/* What a failed round trip means, on stderr. */
static void print_display_error(struct wl_display *display, const char *when)
{
	const struct wl_interface *interface;
	uint32_t id;
	uint32_t code = wl_display_get_protocol_error(display, &interface, &id);
	int err = wl_display_get_error(display);
	if (err != EPROTO) {
		fprintf(stderr, "syncway-sandbox: %s: the connection to the compositor failed: %s\n",
			when, strerror(err));
	} else if ((interface == &wp_security_context_manager_v1_interface ||
		    interface == &wp_security_context_v1_interface) &&
		   code == WP_SECURITY_CONTEXT_MANAGER_V1_ERROR_NESTED) {
		/* wlroots sends the manager's code on the context: on it, 2
		 * would otherwise be already_set, which we never cause. */
		fprintf(stderr, "syncway-sandbox: %s: the compositor refuses a nested security context: "
			"this program already runs in a sandbox\n", when);
	} else {
		fprintf(stderr, "syncway-sandbox: %s: protocol error %u on %s@%u\n", when, code,
			interface ? interface->name : "?", id);
	}
}

/* A listening socket at XDG_RUNTIME_DIR/NAME; its name goes to name. */
static int listen_socket(char *path, size_t path_len, char *name, size_t name_len)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	if (!dir || !*dir) {
		fprintf(stderr, "syncway-sandbox: XDG_RUNTIME_DIR is not set: no place for the "
			"sandbox's socket\n");
		return -1;
	}
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(name, name_len, "syncway-sandbox-%d", (int)getpid());
	if ((size_t)snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", dir, name) >=
	    sizeof(addr.sun_path)) {
		fprintf(stderr, "syncway-sandbox: socket path %s/%s is too long\n", dir, name);
		return -1;
	}
	snprintf(path, path_len, "%s", addr.sun_path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "syncway-sandbox: socket: %s\n", strerror(errno));
		return -1;
	}
	/* The name has our pid: whatever is there was left by a process gone. */
	unlink(path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(fd, 128) != 0) {
		fprintf(stderr, "syncway-sandbox: cannot listen on %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Registers the context on listen_fd, to end when close_fd hangs up. */
static bool create_context(int listen_fd, int close_fd, const char *engine, const char *app_id,
			   const char *instance_id)
{
	struct wl_display *display = wl_display_connect(NULL);
	if (!display) {
		const char *name = getenv("WAYLAND_DISPLAY");
		fprintf(stderr, "syncway-sandbox: cannot connect to the Wayland display %s: %s\n",
			name ? name : "wayland-0 (WAYLAND_DISPLAY is not set)", strerror(errno));
		return false;
	}
	bool ok = false;
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	if (wl_display_roundtrip(display) < 0) {
		print_display_error(display, "listing the globals");
		goto out;
	}
	if (!manager) {
		/* syncway, like sway, hides the global from sandboxed clients
		 * rather than send them the nested error. */
		fprintf(stderr, "syncway-sandbox: the compositor offers no %s: it has no "
			"security-context-v1, or this program already runs in a sandbox (which may "
			"not make another)\n", wp_security_context_manager_v1_interface.name);
		goto out;
	}
	struct wp_security_context_v1 *context =
		wp_security_context_manager_v1_create_listener(manager, listen_fd, close_fd);
	wp_security_context_v1_set_sandbox_engine(context, engine);
	wp_security_context_v1_set_app_id(context, app_id);
	wp_security_context_v1_set_instance_id(context, instance_id);
	wp_security_context_v1_commit(context);
	/* Destroyed after the round trip: an error on a destroyed object
	 * would not say which. */
	if (wl_display_roundtrip(display) < 0) {
		print_display_error(display, "creating the security context");
		goto out;
	}
	/* The compositor keeps accepting on the socket after we disconnect. */
	wp_security_context_v1_destroy(context);
	wp_security_context_manager_v1_destroy(manager);
	ok = true;
out:
	wl_registry_destroy(registry);
	wl_display_disconnect(display);
	return ok;
}

/* A terminal's signals reach the command itself (same process group);
 * others are passed on, so that the context outlives the command only as
 * long as it takes to wait for it. */
static void forward_signal(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int run(char **argv, const char *display_name)
{
	child = fork();
	if (child < 0) {
		fprintf(stderr, "syncway-sandbox: fork: %s\n", strerror(errno));
		return FAILED;
	}
	if (child == 0) {
		setenv("WAYLAND_DISPLAY", display_name, 1);
		unsetenv("WAYLAND_SOCKET");
		execvp(argv[0], argv);
		int err = errno;
		fprintf(stderr, "syncway-sandbox: %s: %s\n", argv[0], strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	struct sigaction ignore = { .sa_handler = SIG_IGN }, forward = { .sa_handler = forward_signal };
	sigaction(SIGINT, &ignore, NULL);
	sigaction(SIGQUIT, &ignore, NULL);
	sigaction(SIGTERM, &forward, NULL);
	sigaction(SIGHUP, &forward, NULL);
	int status;
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "syncway-sandbox: waitpid: %s\n", strerror(errno));
			return FAILED;
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "app-id", required_argument, NULL, 'a' },
		{ "engine", required_argument, NULL, 'e' },
		{ "instance-id", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *app_id = NULL, *engine = "syncway-sandbox", *instance_id = NULL;
	int c;
	/* "+": options end at CMD, whose own options are its own. */
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			app_id = optarg;
			break;
		case 'e':
			engine = optarg;
			break;
		case 'i':
			instance_id = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return FAILED;
		}
	}
	if (optind == argc) {
		fputs(usage, stderr);
		return FAILED;
	}
	char **cmd = argv + optind;
	if (!app_id) {
		const char *slash = strrchr(cmd[0], '/');
		app_id = slash ? slash + 1 : cmd[0];
	}
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (!instance_id)
		instance_id = pid;

	char path[sizeof(((struct sockaddr_un *)0)->sun_path)], name[64];
	int listen_fd = listen_socket(path, sizeof(path), name, sizeof(name));
	if (listen_fd < 0)
		return FAILED;
	int close_pipe[2];
	if (pipe2(close_pipe, O_CLOEXEC) != 0) {
		fprintf(stderr, "syncway-sandbox: pipe: %s\n", strerror(errno));
		close(listen_fd);
		unlink(path);
		return FAILED;
	}
	bool ok = create_context(listen_fd, close_pipe[0], engine, app_id, instance_id);
	/* The compositor has its own copies now. The command inherits none
	 * (close-on-exec), so that only this process's exit or death ends
	 * the context. */
	close(listen_fd);
	close(close_pipe[0]);
	int status = ok ? run(cmd, name) : FAILED;
	close(close_pipe[1]);
	unlink(path);
	return status;
}
