/* present-probe: wp_presentation feedback for an unmodified Wayland client,
 * loaded with LD_PRELOAD, so that the peer comparison (tools/peers,
 * docs/peers.md) measures every client on every compositor the same way,
 * from the client's side: what the tested client's own commits got.
 *
 *   SYNCWAY_PROBE_OUT=FILE LD_PRELOAD=libsyncway-present-probe.so CLIENT...
 *
 * It interposes wl_proxy_marshal_flags(), through which every request of
 * libwayland-client's generated stubs passes (the client's, Mesa's EGL and
 * Vulkan WSI's), and the older variadic entry points, and forwards each to
 * wl_proxy_marshal_array_flags(). The
 * surface given to xdg_wm_base.get_xdg_surface is the client's window;
 * before each wl_surface.commit of it (by object id: Mesa commits through a
 * proxy wrapper) it asks for wp_presentation feedback on a queue of its own,
 * which it dispatches at the next commit and at exit. JSON lines, one write
 * each, so that a client killed at the end of a run loses nothing written:
 *   {"type":"probe","pid":P,"clock_id":C}
 *   {"type":"present","commit_ns":T,"present_ns":T,"refresh_ns":N,"msc":N,"flags":F}
 *   {"type":"discarded","commit_ns":T}
 *   {"type":"request","what":"get_subsurface"|"get_toplevel_decoration"|
 *    "decoration_set_mode","mode":M}
 * commit_ns is taken on the presentation clock when the commit is sent.
 * The requests say whether the client decorates itself (libdecor's
 * decorations are subsurfaces) and what decoration mode it asked for.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "presentation-time-client-protocol.h"

#define MAX_ARGS 20 /* libwayland's WL_CLOSURE_MAX_ARGS */

/* Recursive: the probe's own requests (the roundtrips' wl_display.sync)
 * pass through the interposed wl_proxy_marshal_flags() again. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static int out_fd = -2; /* -2: not opened yet, -1: off */
static uint32_t window_id;
static struct wl_display *display;
static struct wl_event_queue *queue;
static struct wl_proxy *presentation; /* a wp_presentation on queue */
static clockid_t clock_id = CLOCK_MONOTONIC;
static bool set_up;

struct pending {
	struct wl_proxy *feedback;
	int64_t commit_ns;
};

static void emit(const char *fmt, ...)
{
	if (out_fd == -2) {
		const char *path = getenv("SYNCWAY_PROBE_OUT");
		out_fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	}
	if (out_fd < 0)
		return;
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n <= 0 || n >= (int)sizeof(line) - 1)
		return;
	line[n] = '\n';
	if (write(out_fd, line, (size_t)n + 1) < 0)
		return; /* nowhere to report it; the frame is just missing */
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(clock_id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* libwayland's wl_argument_from_va_list(), which it does not export. */
static void args_from_va(const char *signature, union wl_argument *args, va_list ap)
{
	int i = 0;
	for (const char *c = signature; *c && i < MAX_ARGS; c++) {
		switch (*c) {
		case 'i': args[i++].i = va_arg(ap, int32_t); break;
		case 'u': args[i++].u = va_arg(ap, uint32_t); break;
		case 'f': args[i++].f = va_arg(ap, wl_fixed_t); break;
		case 's': args[i++].s = va_arg(ap, const char *); break;
		case 'o': args[i++].o = va_arg(ap, struct wl_object *); break;
		case 'n': args[i++].o = va_arg(ap, struct wl_object *); break;
		case 'a': args[i++].a = va_arg(ap, struct wl_array *); break;
		case 'h': args[i++].h = va_arg(ap, int32_t); break;
		default: break; /* '?' and the version digits */
		}
	}
}

static void feedback_sync_output(void *data, struct wp_presentation_feedback *fb, struct wl_output *output)
{
}

static void feedback_done(struct pending *p)
{
	wl_proxy_destroy(p->feedback);
	free(p);
}

static void feedback_presented(void *data, struct wp_presentation_feedback *fb, uint32_t sec_hi,
			       uint32_t sec_lo, uint32_t nsec, uint32_t refresh, uint32_t seq_hi,
			       uint32_t seq_lo, uint32_t flags)
{
	struct pending *p = data;
	int64_t t = (int64_t)(((uint64_t)sec_hi << 32) | sec_lo) * 1000000000LL + nsec;
	emit("{\"type\":\"present\",\"commit_ns\":%lld,\"present_ns\":%lld,\"refresh_ns\":%u,"
	     "\"msc\":%llu,\"flags\":%u}", (long long)p->commit_ns, (long long)t, refresh,
	     (unsigned long long)(((uint64_t)seq_hi << 32) | seq_lo), flags);
	feedback_done(p);
}

static void feedback_discarded(void *data, struct wp_presentation_feedback *fb)
{
	struct pending *p = data;
	emit("{\"type\":\"discarded\",\"commit_ns\":%lld}", (long long)p->commit_ns);
	feedback_done(p);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

static void presentation_clock_id(void *data, struct wp_presentation *p, uint32_t clk)
{
	clock_id = (clockid_t)clk;
}

static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_clock_id,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	if (presentation || strcmp(interface, wp_presentation_interface.name) != 0)
		return;
	union wl_argument args[4] = {
		{ .u = name }, { .s = interface }, { .u = 1 }, { .o = NULL },
	};
	presentation = wl_proxy_marshal_array_flags((struct wl_proxy *)registry, WL_REGISTRY_BIND,
						    &wp_presentation_interface, 1, 0, args);
	wl_proxy_add_listener(presentation, (void (**)(void))&presentation_listener, NULL);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* Binds wp_presentation on a queue of the probe's own, so that none of its
 * events reach the client's queues. Called with lock held. */
static void setup(struct wl_proxy *any)
{
	set_up = true;
	display = wl_proxy_get_display(any);
	queue = wl_display_create_queue(display);
	struct wl_display *wrapper = wl_proxy_create_wrapper(display);
	wl_proxy_set_queue((struct wl_proxy *)wrapper, queue);
	union wl_argument args[1] = { { .o = NULL } };
	struct wl_proxy *registry = wl_proxy_marshal_array_flags((struct wl_proxy *)wrapper,
								 WL_DISPLAY_GET_REGISTRY, &wl_registry_interface,
								 wl_proxy_get_version((struct wl_proxy *)wrapper), 0, args);
	wl_proxy_wrapper_destroy(wrapper);
	wl_proxy_add_listener(registry, (void (**)(void))&registry_listener, NULL);
	wl_display_roundtrip_queue(display, queue); /* the globals */
	wl_display_roundtrip_queue(display, queue); /* the clock id */
	wl_proxy_destroy(registry);
	emit("{\"type\":\"probe\",\"pid\":%d,\"clock_id\":%d,\"presentation\":%s}", (int)getpid(),
	     (int)clock_id, presentation ? "true" : "false");
}

/* Before a commit of the window: feedback for it, and the events of earlier
 * ones that the client's reads have queued. Called with lock held. */
static void track_commit(struct wl_proxy *surface)
{
	wl_display_dispatch_queue_pending(display, queue);
	if (!presentation)
		return;
	struct pending *p = calloc(1, sizeof(*p));
	if (!p)
		return;
	union wl_argument args[2] = { { .o = (struct wl_object *)surface }, { .o = NULL } };
	p->feedback = wl_proxy_marshal_array_flags(presentation, WP_PRESENTATION_FEEDBACK,
						   &wp_presentation_feedback_interface, 1, 0, args);
	if (!p->feedback) {
		free(p);
		return;
	}
	wl_proxy_add_listener(p->feedback, (void (**)(void))&feedback_listener, p);
	p->commit_ns = now_ns();
}

/* Every variadic marshalling entry point ends here: the arguments read with
 * the request's signature, what the probe watches noted, then the request
 * sent as libwayland 1.23 itself does. */
static struct wl_proxy *marshal(struct wl_proxy *proxy, uint32_t opcode, const struct wl_interface *interface,
				uint32_t version, uint32_t flags, va_list ap)
{
	const char *class = wl_proxy_get_class(proxy);
	union wl_argument args[MAX_ARGS] = { 0 };
	/* A proxy begins with its wl_object, whose first member is the
	 * interface (libwayland 1.23 exports no getter for it). */
	const struct wl_interface *self = *(const struct wl_interface **)proxy;
	args_from_va(self->methods[opcode].signature, args, ap);

	pthread_mutex_lock(&lock);
	if (!strcmp(class, "xdg_wm_base") && opcode == 2 /* get_xdg_surface */ && !window_id) {
		window_id = wl_proxy_get_id((struct wl_proxy *)args[1].o);
		if (!set_up)
			setup(proxy);
	} else if (!strcmp(class, "wl_surface") && opcode == 6 /* commit */ && window_id &&
		   wl_proxy_get_id(proxy) == window_id) {
		track_commit(proxy);
	} else if (!strcmp(class, "wl_subcompositor") && opcode == 1) {
		emit("{\"type\":\"request\",\"what\":\"get_subsurface\"}");
	} else if (!strcmp(class, "zxdg_decoration_manager_v1") && opcode == 1) {
		emit("{\"type\":\"request\",\"what\":\"get_toplevel_decoration\"}");
	} else if (!strcmp(class, "zxdg_toplevel_decoration_v1") && opcode == 1) {
		emit("{\"type\":\"request\",\"what\":\"decoration_set_mode\",\"mode\":%u}", args[0].u);
	}
	pthread_mutex_unlock(&lock);
	return wl_proxy_marshal_array_flags(proxy, opcode, interface, version, flags, args);
}

struct wl_proxy *wl_proxy_marshal_flags(struct wl_proxy *proxy, uint32_t opcode,
					const struct wl_interface *interface, uint32_t version,
					uint32_t flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	struct wl_proxy *p = marshal(proxy, opcode, interface, version, flags, ap);
	va_end(ap);
	return p;
}

/* The entry points of code generated before libwayland 1.20 (vkcube's
 * protocol stubs use them). */
void wl_proxy_marshal(struct wl_proxy *proxy, uint32_t opcode, ...)
{
	va_list ap;
	va_start(ap, opcode);
	marshal(proxy, opcode, NULL, wl_proxy_get_version(proxy), 0, ap);
	va_end(ap);
}

struct wl_proxy *wl_proxy_marshal_constructor(struct wl_proxy *proxy, uint32_t opcode,
					      const struct wl_interface *interface, ...)
{
	va_list ap;
	va_start(ap, interface);
	struct wl_proxy *p = marshal(proxy, opcode, interface, wl_proxy_get_version(proxy), 0, ap);
	va_end(ap);
	return p;
}

struct wl_proxy *wl_proxy_marshal_constructor_versioned(struct wl_proxy *proxy, uint32_t opcode,
							const struct wl_interface *interface,
							uint32_t version, ...)
{
	va_list ap;
	va_start(ap, version);
	struct wl_proxy *p = marshal(proxy, opcode, interface, version, 0, ap);
	va_end(ap);
	return p;
}

/* Clients that load libwayland-client with dlopen() and take its functions
 * with dlsym() on its handle (vkcube) bypass LD_PRELOAD's interposition: the
 * probe's own functions are given to them instead. */
void *dlsym(void *restrict handle, const char *restrict name)
{
	static void *(*real)(void *, const char *);
	if (!real)
		real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!real)
		real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	if (handle != RTLD_NEXT && handle != RTLD_DEFAULT) {
		if (!strcmp(name, "wl_proxy_marshal_flags"))
			return (void *)wl_proxy_marshal_flags;
		if (!strcmp(name, "wl_proxy_marshal"))
			return (void *)wl_proxy_marshal;
		if (!strcmp(name, "wl_proxy_marshal_constructor"))
			return (void *)wl_proxy_marshal_constructor;
		if (!strcmp(name, "wl_proxy_marshal_constructor_versioned"))
			return (void *)wl_proxy_marshal_constructor_versioned;
		if (!strcmp(name, "wl_display_disconnect"))
			return (void *)wl_display_disconnect;
	}
	return real(handle, name);
}

/* The frames presented after the client's last commit, whose events its
 * last reads queued. */
void wl_display_disconnect(struct wl_display *d)
{
	static void (*real)(struct wl_display *);
	if (!real)
		real = (void (*)(struct wl_display *))dlsym(RTLD_NEXT, "wl_display_disconnect");
	pthread_mutex_lock(&lock);
	if (queue && d == display) {
		wl_display_dispatch_queue_pending(display, queue);
		queue = NULL;
		presentation = NULL;
	}
	pthread_mutex_unlock(&lock);
	real(d);
}
