/* syncway: a small wlroots compositor with its own linux-drm-syncobj-v1 and
 * per-frame accounting. Reads like tinywl's main(): parse options, make the
 * wlroots objects, run, tear down. See docs/compositor.md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/backend/drm.h>
#include <wlr/backend/multi.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_data_control_v1.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_fractional_scale_v1.h>
#include <wlr/types/wlr_linux_dmabuf_v1.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_tearing_control_v1.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_screencopy_v1.h>
#include <wlr/types/wlr_subcompositor.h>
#include <wlr/types/wlr_viewporter.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#include <xf86drm.h>

#include "drm_device.h"
#include "backend.h"
#include "commit_timing.h"
#include "explicit_sync.h"
#include "fifo.h"
#include "frame_stats.h"
#include "held_commits.h"
#include "layer_shell.h"
#include "listen.h"
#include "loop_stats.h"
#include "output_management.h"
#include "renderer.h"
#include "xwayland.h"
#include "session_lock.h"
#include "idle.h"
#include "output_power.h"
#include "gamma_control.h"
#include "pointer_constraints.h"
#include "cursor_shape.h"
#include "foreign_toplevel.h"
#include "activation.h"
#include "shortcuts_inhibit.h"
#include "heap_trim.h"
#include "security_context.h"
#include "server.h"

static const char usage[] =
	"usage: syncway [options]\n"
	"  -s, --startup CMD        run CMD with /bin/sh -c once the compositor is up\n"
	"                           (default: ~/.config/syncway/startup, if executable)\n"
	"  -x, --exit-with-client   quit when CMD exits, with its exit status\n"
	"      --stats FILE         write one JSON line per frame and per commit to FILE\n"
	"      --report SEC         seconds between the FPS lines on stderr (default 5, 0: none)\n"
	"      --headless-size WxH[@HZ]  mode of headless outputs (default 1280x720@60)\n"
	"      --outputs N          number of headless outputs (sets WLR_HEADLESS_OUTPUTS)\n"
	"      --output NAME:WxH[@HZ][,scale=S][,transform=T][,pos=X,Y]  or  --output NAME:off\n"
	"                           configure an output (NAME * for any other); repeatable.\n"
	"                           A mode that fails falls back to the output's other modes\n"
	"      --max-held-commits N commits one client may have held back (on acquire\n"
	"                           points, fifo barriers, target times) or queued behind\n"
	"                           held ones (default 4096, 0: no cap); beyond, a protocol\n"
	"                           error\n"
	"      --max-held-per-surface N  the same for one surface (default --max-held-commits)\n"
	"      --max-held-total N   the same for all clients together (default 16 times\n"
	"                           --max-held-commits, 65536; 0: no cap); beyond, the client\n"
	"                           holding the most is cut off\n"
	"      --max-waiting-surfaces N  surfaces of one client with commits waiting on acquire\n"
	"                           points (each costs 2 fds; default 256, 0: no cap);\n"
	"                           beyond, a protocol error\n"
	"      --fd-headroom N      fds kept free below the fd limit for connections, buffers\n"
	"                           and syncway's own; waiting surfaces of all clients get\n"
	"                           the rest (default: a quarter of the limit, at least 128,\n"
	"                           at most half)\n"
	"      --no-xwayland        no X11 clients (Xwayland starts at the first one otherwise)\n"
	"      --adaptive-sync      variable refresh rate on outputs that have it\n"
	"      --max-render-time MS|auto  render each frame MS milliseconds before the vblank\n"
	"                           it is for, so that what clients commit until then is\n"
	"                           shown at it; auto: as long as rendering took lately,\n"
	"                           and longer after misses (default off: at the frame\n"
	"                           event, right after the previous vblank; headless outputs\n"
	"                           a quarter refresh before); too short, and frames miss\n"
	"                           their vblank\n"
	"  -v, --verbose            wlroots info messages, and each turn of the event loop\n"
	"                           over 16.7 ms with its CPU time; twice for debug\n"
	"  -h, --help               this text\n"
	"Backends come from wlr_backend_autocreate(): DRM/KMS with libseat on a VT,\n"
	"nested in Wayland or X11 when WAYLAND_DISPLAY or DISPLAY is set, or\n"
	"WLR_BACKENDS=headless. Keys: Alt+Escape quits, Alt+F1 cycles windows,\n"
	"Alt+Return starts a terminal ($SYNCWAY_TERM, else foot, else weston-terminal),\n"
	"Ctrl+Alt+F1..F12 switch VTs, Alt+drag moves (left button) or resizes (right).\n"
	"Environment: SYNCWAY_EXPLICIT_SYNC=0 hides linux-drm-syncobj-v1, SYNCWAY_FIFO=0\n"
	"fifo-v1, SYNCWAY_COMMIT_TIMING=0 commit-timing-v1;\n"
	"SYNCWAY_DRM_DEVICE picks the DRM device when the backend has none;\n"
	"SYNCWAY_TERM the terminal; XCURSOR_THEME, XCURSOR_SIZE the cursor;\n"
	"SYNCWAY_REPEAT_RATE, SYNCWAY_REPEAT_DELAY key repeat; SYNCWAY_TAP,\n"
	"SYNCWAY_NATURAL_SCROLL, SYNCWAY_ACCEL_PROFILE, SYNCWAY_ACCEL_SPEED pointers.\n"
	"See syncway(1).\n";

static bool parse_size(const char *arg, struct sw_options *options)
{
	int w, h, n = 0;
	double hz = 0;
	if (sscanf(arg, "%dx%d%n", &w, &h, &n) != 2 || w <= 0 || h <= 0)
		return false;
	if (arg[n] == '@') {
		char *end;
		hz = strtod(arg + n + 1, &end);
		if (*end || hz <= 0)
			return false;
	} else if (arg[n]) {
		return false;
	}
	options->headless_width = w;
	options->headless_height = h;
	options->headless_refresh_mhz = (int)(hz * 1000 + 0.5);
	return true;
}

static bool parse_options(int argc, char **argv, struct sw_options *options, int *verbosity)
{
	enum { OPT_STATS = 256, OPT_REPORT, OPT_SIZE, OPT_OUTPUTS, OPT_MAX_HELD, OPT_MAX_HELD_SURFACE,
	       OPT_MAX_HELD_TOTAL, OPT_MAX_WAITING, OPT_FD_HEADROOM, OPT_NO_XWAYLAND, OPT_OUTPUT, OPT_ADAPTIVE_SYNC,
	       OPT_MAX_RENDER_TIME };
	static const struct option longopts[] = {
		{ "startup", required_argument, NULL, 's' },
		{ "exit-with-client", no_argument, NULL, 'x' },
		{ "stats", required_argument, NULL, OPT_STATS },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "headless-size", required_argument, NULL, OPT_SIZE },
		{ "outputs", required_argument, NULL, OPT_OUTPUTS },
		{ "max-held-commits", required_argument, NULL, OPT_MAX_HELD },
		{ "max-held-per-surface", required_argument, NULL, OPT_MAX_HELD_SURFACE },
		{ "max-held-total", required_argument, NULL, OPT_MAX_HELD_TOTAL },
		{ "max-waiting-surfaces", required_argument, NULL, OPT_MAX_WAITING },
		{ "fd-headroom", required_argument, NULL, OPT_FD_HEADROOM },
		{ "no-xwayland", no_argument, NULL, OPT_NO_XWAYLAND },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "adaptive-sync", no_argument, NULL, OPT_ADAPTIVE_SYNC },
		{ "max-render-time", required_argument, NULL, OPT_MAX_RENDER_TIME },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "s:xvh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			options->startup_cmd = optarg;
			break;
		case 'x':
			options->exit_with_client = true;
			break;
		case OPT_STATS:
			options->stats_path = optarg;
			break;
		case OPT_REPORT: {
			double secs = strtod(optarg, &end);
			if (*end || secs < 0) {
				fprintf(stderr, "syncway: --report wants seconds, not '%s'\n", optarg);
				return false;
			}
			options->report_interval_ms = (int)(secs * 1000 + 0.5);
			break;
		}
		case OPT_SIZE:
			if (!parse_size(optarg, options)) {
				fprintf(stderr, "syncway: --headless-size wants WxH or WxH@HZ, not '%s'\n", optarg);
				return false;
			}
			break;
		case OPT_OUTPUTS:
			options->headless_outputs = (int)strtol(optarg, &end, 10);
			if (*end || options->headless_outputs < 1 || options->headless_outputs > 16) {
				fprintf(stderr, "syncway: --outputs wants 1 to 16, not '%s'\n", optarg);
				return false;
			}
			break;
		case OPT_MAX_HELD:
		case OPT_MAX_HELD_SURFACE:
		case OPT_MAX_WAITING: {
			long n = strtol(optarg, &end, 10);
			if (*end || n < 0 || n > 10000000) {
				fprintf(stderr, "syncway: --%s wants a count (0: no cap), not '%s'\n",
					c == OPT_MAX_HELD ? "max-held-commits" :
					c == OPT_MAX_HELD_SURFACE ? "max-held-per-surface" :
					"max-waiting-surfaces", optarg);
				return false;
			}
			*(c == OPT_MAX_HELD ? &options->max_held_commits :
			  c == OPT_MAX_HELD_SURFACE ? &options->max_held_per_surface :
			  &options->max_waiting_surfaces) = (int)n;
			break;
		}
		case OPT_MAX_HELD_TOTAL: {
			long n = strtol(optarg, &end, 10);
			if (*end || end == optarg || n < 0 || n > 100000000) {
				fprintf(stderr, "syncway: --max-held-total wants a count (0: no cap), not '%s'\n",
					optarg);
				return false;
			}
			options->max_held_total = n;
			break;
		}
		case OPT_FD_HEADROOM: {
			long n = strtol(optarg, &end, 10);
			if (*end || n < 0 || n > 100000000) {
				fprintf(stderr, "syncway: --fd-headroom wants a count of fds, not '%s'\n", optarg);
				return false;
			}
			options->fd_headroom = n;
			break;
		}
		case OPT_NO_XWAYLAND:
			options->no_xwayland = true;
			break;
		case OPT_ADAPTIVE_SYNC:
			options->adaptive_sync = true;
			break;
		case OPT_MAX_RENDER_TIME: {
			if (strcmp(optarg, "off") == 0 || strcmp(optarg, "auto") == 0) {
				options->max_render_time_ns = optarg[0] == 'a' ? SW_MAX_RENDER_TIME_AUTO : 0;
				break;
			}
			double ms = strtod(optarg, &end);
			if (*end || end == optarg || !(ms > 0 && ms < 1000)) {
				fprintf(stderr, "syncway: --max-render-time wants milliseconds (above 0, "
					"below 1000), auto or off, not '%s'\n", optarg);
				return false;
			}
			options->max_render_time_ns = (int64_t)(ms * 1e6 + 0.5);
			break;
		}
		case OPT_OUTPUT: {
			char err[200];
			if (options->n_outputs == sizeof(options->outputs) / sizeof(options->outputs[0])) {
				fprintf(stderr, "syncway: at most 16 --output options\n");
				return false;
			}
			if (!sw_output_config_parse(optarg, &options->outputs[options->n_outputs], err, sizeof(err))) {
				fprintf(stderr, "syncway: --output %s: %s\n", optarg, err);
				return false;
			}
			options->n_outputs++;
			break;
		}
		case 'v':
			(*verbosity)++;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return false;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "syncway: unexpected argument '%s' (the client goes after -s, quoted)\n",
			argv[optind]);
		return false;
	}
	if (options->exit_with_client && !options->startup_cmd) {
		fprintf(stderr, "syncway: -x needs a command to wait for (-s CMD)\n");
		return false;
	}
	return true;
}

/* The start-up script a session runs without -s (display managers start
 * syncway bare): $XDG_CONFIG_HOME/syncway/startup, else
 * ~/.config/syncway/startup, when it exists and may be run. Writes the
 * command for /bin/sh -c into cmd; false when there is none. */
static bool default_startup_cmd(char *cmd, size_t len)
{
	const char *config = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char path[PATH_MAX];
	int n;
	if (config && config[0] == '/')
		n = snprintf(path, sizeof(path), "%s/syncway/startup", config);
	else if (home && home[0] == '/')
		n = snprintf(path, sizeof(path), "%s/.config/syncway/startup", home);
	else
		return false;
	if (n < 0 || (size_t)n >= sizeof(path) || access(path, F_OK) != 0)
		return false;
	if (access(path, X_OK) != 0) {
		fprintf(stderr, "syncway: %s is not executable: not run (chmod +x it)\n", path);
		return false;
	}
	/* Quoted for the shell; a quote in the path itself is not worth it. */
	if (strchr(path, '\'')) {
		fprintf(stderr, "syncway: %s has a quote in its path: not run\n", path);
		return false;
	}
	n = snprintf(cmd, len, "exec '%s'", path);
	if (n < 0 || (size_t)n >= len)
		return false;
	fprintf(stderr, "syncway: start-up script %s\n", path);
	return true;
}

/* The DRM device for syncobjs: the backend's (as a render node when it has
 * one), else $SYNCWAY_DRM_DEVICE or the first render node, for headless and
 * nested sessions. -1 when there is none. */
static int open_drm_device(struct wlr_backend *backend, char *where, size_t where_len)
{
	int backend_fd = wlr_backend_get_drm_fd(backend);
	if (backend_fd >= 0) {
		char *name = drmGetRenderDeviceNameFromFd(backend_fd);
		if (name) {
			int fd = open(name, O_RDWR | O_CLOEXEC);
			snprintf(where, where_len, "%s (the backend's render node)", name);
			free(name);
			if (fd >= 0)
				return fd;
		}
		/* A KMS-only device: syncobj ioctls work on the primary node too. */
		snprintf(where, where_len, "the backend's DRM device");
		return fcntl(backend_fd, F_DUPFD_CLOEXEC, 0);
	}
	char err[256];
	int fd = sw_drm_open_render_node(err, sizeof(err));
	if (fd < 0) {
		snprintf(where, where_len, "%s", err);
		return -1;
	}
	char *name = drmGetDeviceNameFromFd2(fd);
	snprintf(where, where_len, "%s", name ? name : "render node");
	free(name);
	return fd;
}

static bool same_drm_device(int a, int b)
{
	drmDevicePtr da = NULL, db = NULL;
	bool same = a >= 0 && b >= 0 && drmGetDevice2(a, 0, &da) == 0 &&
		    drmGetDevice2(b, 0, &db) == 0 && drmDevicesEqual(da, db);
	drmFreeDevice(&da);
	drmFreeDevice(&db);
	return same;
}

/* Whether the protocol that the environment variable name switches is on:
 * 0 hides it from clients, so that they take the path they take on a
 * compositor without it (the peer comparison's like-for-like rows, and
 * clients' fallbacks under test). */
static bool env_switch(const char *name, const char *protocol)
{
	const char *env = getenv(name);
	if (!env || strcmp(env, "0") != 0)
		return true;
	fprintf(stderr, "syncway: %s: off (%s=0)\n", protocol, name);
	return false;
}

/* SYNCWAY_REALTIME=1: the event loop's thread at the lowest real-time
 * priority where it may (root, CAP_SYS_NICE or RLIMIT_RTPRIO), as sway
 * runs by default. A client woken by an event syncway sends (a frame done,
 * a buffer release) then no longer preempts it before it has gone back to
 * sleep; but a client that sends its requests in several flushes wakes it
 * for each. docs/peers.md has what each costs a frame. Whatever syncway
 * starts (the startup command, Xwayland, wlroots' threads) starts as a
 * normal task. */
static void setup_realtime(void)
{
	const char *env = getenv("SYNCWAY_REALTIME");
	if (!env || strcmp(env, "1") != 0)
		return;
	struct sched_param param = { .sched_priority = sched_get_priority_min(SCHED_RR) };
	if (sched_setscheduler(0, SCHED_RR | SCHED_RESET_ON_FORK, &param) != 0) {
		fprintf(stderr, "syncway: real-time scheduling: off (%s; it needs CAP_SYS_NICE or "
			"RLIMIT_RTPRIO)\n", strerror(errno));
		return;
	}
	fprintf(stderr, "syncway: real-time scheduling: on (SCHED_RR, priority %d)\n",
		param.sched_priority);
}

static void setup_explicit_sync(struct sw_server *server, const char *where)
{
	if (!env_switch("SYNCWAY_EXPLICIT_SYNC", "explicit sync"))
		return;
	if (server->drm_fd < 0) {
		fprintf(stderr, "syncway: explicit sync: off (no DRM device: %s)\n", where);
		return;
	}
	struct sw_syncobj_caps caps;
	char err[256];
	if (!sw_drm_probe_syncobj(server->drm_fd, &caps, err, sizeof(err))) {
		fprintf(stderr, "syncway: explicit sync: off (%s: %s)\n", where, err);
		return;
	}
	/* DRM_CAP_SYNCOBJ alone is not enough: clients use timelines, and the
	 * compositor needs the eventfd ioctl to wait without blocking. */
	if (!sw_syncobj_caps_explicit_sync(&caps)) {
		fprintf(stderr, "syncway: explicit sync: off (%s, driver %s: timeline cap %d, "
			"SYNCOBJ_EVENTFD %s)\n", where, caps.driver, caps.syncobj_timeline,
			caps.eventfd ? "present" : "missing");
		return;
	}
	server->explicit_sync = sw_explicit_sync_create(server);
	if (!server->explicit_sync) {
		fprintf(stderr, "syncway: explicit sync: off (cannot create the global)\n");
		return;
	}
	fprintf(stderr, "syncway: explicit sync: on (%s, driver %s)\n", where, caps.driver);
}

static void find_drm_backend(struct wlr_backend *backend, void *data)
{
	if (wlr_backend_is_drm(backend))
		*(bool *)data = true;
}

static bool has_drm_backend(struct wlr_backend *backend)
{
	bool found = false;
	if (wlr_backend_is_multi(backend))
		wlr_multi_for_each_backend(backend, find_drm_backend, &found);
	else
		find_drm_backend(backend, &found);
	return found;
}

void server_terminate(struct sw_server *server)
{
	server->running = false;
}

static int handle_terminate_signal(int signal, void *data)
{
	struct sw_server *server = data;
	server_terminate(server);
	return 0;
}

static int handle_sigchld(int signal, void *data)
{
	/* Only our own child: wlroots waits for the processes it starts
	 * (Xwayland) itself, and reaping those here breaks it. Other programs
	 * syncway starts are not its children (server_spawn). */
	struct sw_server *server = data;
	int status;
	if (server->child_pid > 0 && waitpid(server->child_pid, &status, WNOHANG) == server->child_pid) {
		server->child_pid = 0;
		server->child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		fprintf(stderr, "syncway: startup command exited with status %d\n", server->child_status);
		if (server->options->exit_with_client)
			server_terminate(server);
	}
	return 0;
}

/* The soft fd limit syncway started with; children get it back. */
static struct rlimit initial_nofile;

/* Each client costs the compositor fds (its socket, dmabufs, eventfds);
 * the usual soft limit of 1024 is reached by a few hundred surfaces, after
 * which every client's next dmabuf or wait fails. The hard limit is what
 * the administrator allows. Returns the limit in force. */
static long raise_nofile_limit(void)
{
	if (getrlimit(RLIMIT_NOFILE, &initial_nofile) != 0)
		return -1;
	struct rlimit raised = initial_nofile;
	raised.rlim_cur = raised.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
		fprintf(stderr, "syncway: cannot raise the fd limit to %llu: %s\n",
			(unsigned long long)raised.rlim_max, strerror(errno));
		raised = initial_nofile;
	}
	if (raised.rlim_cur == RLIM_INFINITY || raised.rlim_cur > LONG_MAX)
		return LONG_MAX;
	return (long)raised.rlim_cur;
}

/* What all clients' waiting surfaces may cost together: two fds each (an
 * eventfd and the event loop's duplicate), within the fd limit less the
 * headroom, which keeps fds for new connections, buffers and syncway's own
 * needs whatever the waits take. false when the headroom leaves nothing. */
static bool set_fd_budget(struct sw_options *options, long limit)
{
	if (limit <= 0 || limit == LONG_MAX)
		return true; /* unknown or unlimited: the per-client caps only */
	if (options->fd_headroom < 0) {
		options->fd_headroom = limit / 4 > 128 ? limit / 4 : 128;
		if (options->fd_headroom > limit / 2)
			options->fd_headroom = limit / 2;
	}
	if (options->fd_headroom >= limit) {
		fprintf(stderr, "syncway: --fd-headroom %ld leaves no fds of the limit of %ld for waits\n",
			options->fd_headroom, limit);
		return false;
	}
	options->max_waiting_total = (limit - options->fd_headroom) / 2;
	fprintf(stderr, "syncway: fd limit %ld: waiting surfaces of all clients at most %ld "
		"(headroom %ld fds)\n", limit, options->max_waiting_total, options->fd_headroom);
	return true;
}

static void exec_client(const char *cmd)
{
	/* The event loop blocks the signals it reads through signalfd, and
	 * raised the fd limit: the client should inherit neither (select()
	 * users break above 1024 fds). */
	sigset_t set;
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	if (initial_nofile.rlim_cur)
		setrlimit(RLIMIT_NOFILE, &initial_nofile);
	execl("/bin/sh", "/bin/sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

bool server_spawn(struct sw_server *server, const char *cmd, pid_t *pid_out)
{
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "syncway: fork: %s\n", strerror(errno));
		return false;
	}
	if (pid == 0) {
		/* A program nobody waits for is started by a child that exits at
		 * once, so that init reaps it, not syncway. */
		if (!pid_out && fork() != 0)
			_exit(0);
		exec_client(cmd);
	}
	if (pid_out) {
		*pid_out = pid;
	} else {
		int status;
		waitpid(pid, &status, 0);
	}
	return true;
}

int main(int argc, char *argv[])
{
	struct sw_options options = {
		.report_interval_ms = 5000,
		.max_held_per_surface = -1,
		.max_held_commits = 4096,
		.max_held_total = -1,
		.max_waiting_surfaces = 256,
		.fd_headroom = -1,
	};
	heap_trim_exec_with_small_tcache(argv);
	int verbosity = 0;
	if (!parse_options(argc, argv, &options, &verbosity) || !sw_input_config_from_env(&options.input))
		return 2;
	wlr_log_init(verbosity >= 2 ? WLR_DEBUG : verbosity == 1 ? WLR_INFO : WLR_ERROR, NULL);
	/* Sixteen clients at their cap, whatever the cap: raising it alone
	 * must not leave a lower bound on all of them. */
	if (options.max_held_total < 0)
		options.max_held_total = 16L * options.max_held_commits;
	/* One surface may hold what its client may, unless told less. */
	if (options.max_held_per_surface < 0)
		options.max_held_per_surface = options.max_held_commits;
	if (!set_fd_budget(&options, raise_nofile_limit()))
		return 2;
	setup_realtime();
	if (options.headless_outputs > 0) {
		char n[16];
		snprintf(n, sizeof(n), "%d", options.headless_outputs);
		setenv("WLR_HEADLESS_OUTPUTS", n, 1);
	}

	struct sw_server server = { .options = &options, .drm_fd = -1 };
	wl_list_init(&server.outputs);
	wl_list_init(&server.views);
	wl_signal_init(&server.events.frames_retired);

	server.display = wl_display_create();
	server.loop = wl_display_get_event_loop(server.display);
	if (!sw_backend_create(&server)) {
		fprintf(stderr, "syncway: no backend: on a VT, run as a user seatd or logind lets "
			"open the seat (or as root with LIBSEAT_BACKEND=noop); inside a Wayland or X11 "
			"session set WAYLAND_DISPLAY or DISPLAY; anywhere, WLR_BACKENDS=headless\n");
		wl_display_destroy(server.display);
		return 1;
	}

	char where[300] = "";
	server.drm_fd = open_drm_device(server.backend, where, sizeof(where));

	server.renderer = server_renderer_create(&server, server.drm_fd);
	if (!server.renderer) {
		fprintf(stderr, "syncway: no renderer (WLR_RENDERER=pixman works everywhere)\n");
		return 1;
	}
	/* A GPU renderer names its own device; timelines go there too. */
	int renderer_fd = server_renderer_is_pixman(server.renderer) ? -1 :
		wlr_renderer_get_drm_fd(server.renderer);
	if (renderer_fd >= 0 && !same_drm_device(renderer_fd, server.drm_fd)) {
		if (server.drm_fd >= 0)
			close(server.drm_fd);
		server.drm_fd = fcntl(renderer_fd, F_DUPFD_CLOEXEC, 0);
		snprintf(where, sizeof(where), "the renderer's DRM device");
	}
	wlr_renderer_init_wl_shm(server.renderer, server.display);
	server.allocator = wlr_allocator_autocreate(server.backend, server.renderer);
	if (!server.allocator) {
		fprintf(stderr, "syncway: no allocator for this renderer and backend\n");
		return 1;
	}

	server.compositor = wlr_compositor_create(server.display, 6, server.renderer);
	wlr_subcompositor_create(server.display);
	wlr_data_device_manager_create(server.display);
	wlr_viewporter_create(server.display);
	wlr_presentation_create(server.display, server.backend);
	wlr_screencopy_manager_v1_create(server.display);

	server.output_layout = wlr_output_layout_create(server.display);
	server.scene = wlr_scene_create();
	server.scene_layout = wlr_scene_attach_output_layout(server.scene, server.output_layout);
	/* Bars (waybar) and screenshot tools (grim) find outputs by name and
	 * logical geometry here. */
	wlr_xdg_output_manager_v1_create(server.display, server.output_layout);
	/* The scene tells each surface its output's scale as it enters. */
	wlr_fractional_scale_manager_v1_create(server.display, 1);
	/* Clipboard managers and wl-clipboard's watch mode. */
	wlr_data_control_manager_v1_create(server.display);
	server.output_management = sw_output_management_create(&server);
	/* Fullscreen windows that ask for it get tearing page flips (output.c). */
	server.tearing_control = wlr_tearing_control_manager_v1_create(server.display, 1);
	if (!server.output_management)
		fprintf(stderr, "syncway: wlr-output-management: off (cannot create its global)\n");

	if (wlr_renderer_get_texture_formats(server.renderer, WLR_BUFFER_CAP_DMABUF) &&
	    wlr_renderer_get_drm_fd(server.renderer) >= 0) {
		server.linux_dmabuf = wlr_linux_dmabuf_v1_create_with_renderer(server.display, 4, server.renderer);
		/* Scanout feedback only means something on KMS outputs. */
		if (server.linux_dmabuf && has_drm_backend(server.backend))
			wlr_scene_set_linux_dmabuf_v1(server.scene, server.linux_dmabuf);
	}
	if (!server.linux_dmabuf)
		fprintf(stderr, "syncway: linux-dmabuf: off (the renderer imports no dmabufs)\n");

	server.frame_stats = sw_frame_stats_create(&server);
	server.held_commits = sw_held_commits_create(&server);
	if (!server.frame_stats || !server.held_commits)
		return 1;
	setup_explicit_sync(&server, where);
	server.fifo = sw_fifo_manager_create(&server, env_switch("SYNCWAY_FIFO", "fifo-v1"));
	server.commit_timing = sw_commit_timing_manager_create(&server,
							       env_switch("SYNCWAY_COMMIT_TIMING", "commit-timing-v1"));
	if (!server.fifo || !server.commit_timing) {
		fprintf(stderr, "syncway: cannot create the fifo-v1 and commit-timing-v1 globals\n");
		return 1;
	}

	server.new_output.notify = handle_new_output;
	wl_signal_add(&server.backend->events.new_output, &server.new_output);

	/* 6, the newest wlroots 0.18 implements. */
	server.xdg_shell = wlr_xdg_shell_create(server.display, 6);
	server.new_xdg_toplevel.notify = handle_new_xdg_toplevel;
	wl_signal_add(&server.xdg_shell->events.new_toplevel, &server.new_xdg_toplevel);
	server.new_xdg_popup.notify = handle_new_xdg_popup;
	wl_signal_add(&server.xdg_shell->events.new_popup, &server.new_xdg_popup);

	decoration_init(&server);
	layer_shell_init(&server);
	input_init(&server);
	session_lock_init(&server);
	idle_init(&server);
	output_power_init(&server);
	gamma_control_init(&server);
	pointer_constraints_init(&server);
	cursor_shape_init(&server);
	foreign_toplevel_init(&server);
	activation_init(&server);
	shortcuts_inhibit_init(&server);
	security_context_init(&server);
	heap_trim_init(&server);
	if (!options.no_xwayland)
		xwayland_init(&server);

	/* The last quarter of the headroom: fds that connected clients send
	 * (buffers, pipes) are dropped by the kernel at the limit, which
	 * costs the sender its connection. The rest of the headroom is for
	 * the connections themselves and syncway's own fds. */
	server.listener = sw_listener_create(server.display,
					     options.fd_headroom > 0 ? options.fd_headroom / 4 : 0);
	if (!server.listener) {
		fprintf(stderr, "syncway: cannot create a Wayland socket (is XDG_RUNTIME_DIR set "
			"and writable?)\n");
		return 1;
	}
	const char *socket = sw_listener_name(server.listener);
	if (!wlr_backend_start(server.backend)) {
		fprintf(stderr, "syncway: cannot start the backend\n");
		return 1;
	}
	setenv("WAYLAND_DISPLAY", socket, true);
	fprintf(stderr, "syncway: running on WAYLAND_DISPLAY=%s\n", socket);

	server.sigint_source = wl_event_loop_add_signal(server.loop, SIGINT, handle_terminate_signal, &server);
	server.sigterm_source = wl_event_loop_add_signal(server.loop, SIGTERM, handle_terminate_signal, &server);
	server.sigchld_source = wl_event_loop_add_signal(server.loop, SIGCHLD, handle_sigchld, &server);
	sw_frame_stats_mark_fds(server.frame_stats, false);
	char script_cmd[PATH_MAX + 8];
	if (!options.startup_cmd && default_startup_cmd(script_cmd, sizeof(script_cmd)))
		options.startup_cmd = script_cmd;
	if (options.startup_cmd && !server_spawn(&server, options.startup_cmd, &server.child_pid))
		return 1;

	/* wl_display_run(), with the headless backend's idle callbacks run
	 * before the clients are flushed (backend.c); each turn timed
	 * (loop_stats.h). */
	server.loop_stats = sw_loop_stats_create(server.loop, verbosity >= 1);
	if (!server.loop_stats)
		return 1;
	server.running = true;
	while (server.running) {
		sw_backend_dispatch_idle(&server);
		wl_display_flush_clients(server.display);
		wl_event_loop_dispatch(server.loop, -1);
	}
	sw_loop_stats_print(server.loop_stats, stderr);
	sw_listener_destroy(server.listener);
	server.listener = NULL;

	/* Clients first: their surfaces release buffers, which signals release
	 * points while the device and the event loop still exist. Xwayland is
	 * one of them, with a window manager of its own to stop first. */
	size_t held_at_exit = sw_held_commits_now(server.held_commits);
	xwayland_finish(&server);
	wl_display_destroy_clients(server.display);
	if (server.explicit_sync) {
		struct sw_explicit_sync_counters counters;
		sw_explicit_sync_destroy(server.explicit_sync, &counters);
		server.explicit_sync = NULL;
		sw_explicit_sync_counters_print(stderr, &counters);
		sw_frame_stats_explicit_sync_done(server.frame_stats, &counters);
	}
	struct sw_fifo_counters fifo_counters;
	sw_fifo_manager_destroy(server.fifo, &fifo_counters);
	server.fifo = NULL;
	fprintf(stderr, "syncway: fifo: %llu barriers set (%llu cleared without a refresh), "
		"%llu commits held since the start (%llu released, %llu dropped with their surfaces), "
		"%llu waits ignored, %llu protocol errors\n",
		(unsigned long long)fifo_counters.barriers_set,
		(unsigned long long)fifo_counters.barriers_timed_out,
		(unsigned long long)fifo_counters.commits_held,
		(unsigned long long)fifo_counters.commits_released,
		(unsigned long long)fifo_counters.commits_dropped,
		(unsigned long long)fifo_counters.waits_ignored,
		(unsigned long long)fifo_counters.protocol_errors);
	struct sw_commit_timing_counters timing_counters;
	sw_commit_timing_manager_destroy(server.commit_timing, &timing_counters);
	server.commit_timing = NULL;
	fprintf(stderr, "syncway: commit timing: %llu commits held for their target time since the "
		"start (%llu released, %llu dropped with their surfaces), %llu targets already past, "
		"%llu protocol errors\n",
		(unsigned long long)timing_counters.commits_held,
		(unsigned long long)timing_counters.commits_released,
		(unsigned long long)timing_counters.commits_dropped,
		(unsigned long long)timing_counters.targets_past,
		(unsigned long long)timing_counters.protocol_errors);
	struct sw_held_commits_counters held_counters;
	sw_held_commits_destroy(server.held_commits, &held_counters);
	server.held_commits = NULL;
	fprintf(stderr, "syncway: held commits: %zu held back or queued behind held ones at exit "
		"(dropped with their clients), at most %llu at once; %llu refused past a cap, "
		"%llu clients cut off at --max-held-total\n", held_at_exit,
		(unsigned long long)held_counters.most, (unsigned long long)held_counters.refused,
		(unsigned long long)held_counters.clients_cut_off);
	sw_frame_stats_mark_fds(server.frame_stats, true);
	heap_trim_finish(&server);
	security_context_finish(&server);
	shortcuts_inhibit_finish(&server);
	activation_finish(&server);
	foreign_toplevel_finish(&server);
	cursor_shape_finish(&server);
	pointer_constraints_finish(&server);
	gamma_control_finish(&server);
	output_power_finish(&server);
	idle_finish(&server);
	session_lock_finish(&server);
	input_finish(&server);
	decoration_finish(&server);
	sw_output_management_destroy(server.output_management);
	layer_shell_finish(&server);
	wlr_scene_node_destroy(&server.scene->tree.node);
	wl_event_source_remove(server.sigint_source);
	wl_event_source_remove(server.sigterm_source);
	wl_event_source_remove(server.sigchld_source);
	wl_list_remove(&server.new_output.link);
	wl_list_remove(&server.new_xdg_toplevel.link);
	wl_list_remove(&server.new_xdg_popup.link);
	sw_backend_destroy(&server); /* outputs print their summaries */
	sw_frame_stats_destroy(server.frame_stats);
	sw_loop_stats_destroy(server.loop_stats);
	server.loop_stats = NULL;
	wlr_allocator_destroy(server.allocator);
	wlr_renderer_destroy(server.renderer);
	wl_display_destroy(server.display);
	if (server.drm_fd >= 0)
		close(server.drm_fd);

	if (server.child_pid > 0)
		kill(server.child_pid, SIGTERM);
	return options.exit_with_client ? server.child_status : 0;
}
