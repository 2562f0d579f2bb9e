/* What clients hold back: see held_commits.h. A surface whose commits are
 * held gets an addon (sw_held_surface) with a wlr_surface_synced state,
 * which is how it sees, at no cost per commit, each commit wlroots queues
 * (its pending state moved into a cached one) and each it drops (the
 * cached state finished: applied, or gone with the surface). */
#include "held_commits.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "server.h"
#include "xwayland.h"

struct sw_held_commits {
	const struct sw_server *server;
	struct wl_list clients; /* sw_held_client.link */
	size_t queued;          /* commits held or queued behind held ones, all clients */
	struct sw_held_commits_counters counters;
};

/* One client's commits held or queued. Lives while the client is
 * connected or any of its surfaces is counted. */
struct sw_held_client {
	struct wl_list link; /* sw_held_commits.clients */
	struct sw_held_commits *held;
	struct wl_client *client; /* NULL once disconnected */
	size_t queued;
	size_t surfaces;
	struct wl_listener destroy;
};

/* The synced state: in the surface's pending and current state it points
 * back at its sw_held_surface; in a cached state it says the commit was
 * counted, until the state is finished. */
struct held_state {
	struct sw_held_surface *surface;
	bool queued;
};

/* The counted commits of one wl_surface; lives as long as the surface. */
struct sw_held_surface {
	struct wlr_addon addon; /* owner: the sw_held_commits */
	struct sw_held_client *owner;
	struct wlr_surface *surface;
	struct held_state pending, current;
	struct wlr_surface_synced synced;
	struct wl_listener client_commit;
	size_t queued; /* its cached states counted */
	/* The pending commit already checked and let through, so that the
	 * listener of every protocol holding it checks it once; 0: none. */
	uint32_t admitted_seq;
};

/* --- counting ------------------------------------------------------------- */

static void held_client_free_if_unused(struct sw_held_client *owner)
{
	if (owner->client || owner->surfaces > 0)
		return;
	wl_list_remove(&owner->link);
	free(owner);
}

static void held_surface_count(struct sw_held_surface *hs, bool add)
{
	struct sw_held_commits *held = hs->owner->held;
	if (add) {
		hs->queued++;
		hs->owner->queued++;
		if (++held->queued > held->counters.most)
			held->counters.most = held->queued;
	} else {
		assert(hs->queued > 0 && hs->owner->queued > 0 && held->queued > 0);
		hs->queued--;
		hs->owner->queued--;
		held->queued--;
	}
}

static void held_state_move(void *dst, void *src)
{
	struct held_state *d = dst, *s = src;
	struct sw_held_surface *hs = s->surface;
	/* The pending state moved into a new cached one: a commit queued.
	 * Applying a state (into current) moves nothing: finishing the
	 * cached state right after counts it out. */
	if (hs && s == &hs->pending && d != &hs->current) {
		*d = (struct held_state){ .surface = hs, .queued = true };
		held_surface_count(hs, true);
	}
}

static void held_state_finish(void *state)
{
	struct held_state *st = state;
	if (st->queued)
		held_surface_count(st->surface, false);
	st->queued = false;
}

static const struct wlr_surface_synced_impl held_state_impl = {
	.state_size = sizeof(struct held_state),
	.finish_state = held_state_finish,
	.move_state = held_state_move,
};

static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	/* The client's surfaces, and what they hold, go after this. */
	struct sw_held_client *owner = wl_container_of(listener, owner, destroy);
	wl_list_remove(&owner->destroy.link);
	owner->client = NULL;
	held_client_free_if_unused(owner);
}

static struct sw_held_client *held_client_get(struct sw_held_commits *held, struct wl_client *client)
{
	struct wl_listener *listener = wl_client_get_destroy_listener(client, handle_client_destroy);
	struct sw_held_client *owner;
	if (listener)
		return wl_container_of(listener, owner, destroy);
	owner = calloc(1, sizeof(*owner));
	if (!owner)
		return NULL;
	owner->held = held;
	owner->client = client;
	owner->destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client, &owner->destroy);
	wl_list_insert(&held->clients, &owner->link);
	return owner;
}

static void held_surface_destroy(struct sw_held_surface *hs)
{
	struct sw_held_client *owner = hs->owner;
	/* Finishes the cached states' synced states: counts them out. */
	wlr_surface_synced_finish(&hs->synced);
	assert(hs->queued == 0);
	wl_list_remove(&hs->client_commit.link);
	wlr_addon_finish(&hs->addon);
	free(hs);
	owner->surfaces--;
	held_client_free_if_unused(owner);
}

static void held_surface_handle_destroy(struct wlr_addon *addon)
{
	struct sw_held_surface *hs = wl_container_of(addon, hs, addon);
	held_surface_destroy(hs);
}

static const struct wlr_addon_interface held_surface_addon_impl = {
	.name = "syncway_held_commits",
	.destroy = held_surface_handle_destroy,
};

/* A commit that wlroots will queue behind a held one (or that a listener
 * before this one held) is checked like one about to be held. */
static void handle_surface_client_commit(struct wl_listener *listener, void *data)
{
	struct sw_held_surface *hs = wl_container_of(listener, hs, client_commit);
	struct wlr_surface *surface = hs->surface;
	if (surface->pending_rejected ||
	    (surface->pending.cached_state_locks == 0 && wl_list_empty(&surface->cached)))
		return;
	sw_held_commits_admit(hs->owner->held, surface);
}

static struct sw_held_surface *held_surface_get(struct sw_held_commits *held, struct wlr_surface *surface)
{
	struct wlr_addon *addon = wlr_addon_find(&surface->addons, held, &held_surface_addon_impl);
	struct sw_held_surface *hs;
	if (addon)
		return wl_container_of(addon, hs, addon);
	struct sw_held_client *owner = held_client_get(held, wl_resource_get_client(surface->resource));
	if (!owner)
		return NULL;
	hs = calloc(1, sizeof(*hs));
	if (!hs || !wlr_surface_synced_init(&hs->synced, surface, &held_state_impl, &hs->pending,
					    &hs->current)) {
		free(hs);
		held_client_free_if_unused(owner);
		return NULL;
	}
	hs->pending.surface = hs;
	hs->current.surface = hs;
	hs->owner = owner;
	hs->surface = surface;
	owner->surfaces++;
	wlr_addon_init(&hs->addon, &surface->addons, held, &held_surface_addon_impl);
	hs->client_commit.notify = handle_surface_client_commit;
	wl_signal_add(&surface->events.client_commit, &hs->client_commit);
	return hs;
}

/* --- the bounds ------------------------------------------------------------ */

void sw_client_cut_off(struct wl_client *client, const char *what, const char *why)
{
	pid_t pid = 0;
	wl_client_get_credentials(client, &pid, NULL, NULL);
	wlr_log(WLR_ERROR, "%s: client pid %d cut off: %s", what, (int)pid, why);
	wl_client_post_implementation_error(client, "%s", why);
	wl_client_flush(client);
	wl_client_destroy(client);
}

/* The connected client other than owner holding the most, or NULL.
 * Never Xwayland: it holds for every X11 client at once, and cutting it
 * off for one X11 client's load would end them all. */
static struct sw_held_client *heaviest_other(struct sw_held_commits *held,
					     const struct sw_held_client *owner)
{
	struct sw_held_client *heavy = NULL, *other;
	wl_list_for_each(other, &held->clients, link) {
		if (other != owner && other->client && (!heavy || other->queued > heavy->queued) &&
		    !xwayland_owns_client(held->server, other->client))
			heavy = other;
	}
	return heavy;
}

/* What a client holding the most (holds) is told when all clients'
 * together reached --max-held-total. libwayland cuts an error's text at
 * 127 characters. */
static const char *total_words(const struct sw_held_commits *held, size_t holds, char *buf, size_t len)
{
	snprintf(buf, len, "held commits of all clients at the compositor's limit (%ld, "
		 "--max-held-total): this client holds the most (%zu)",
		 held->server->options->max_held_total, holds);
	return buf;
}

/* Another commit held for owner, with all clients' at --max-held-total:
 * a client holding more goes (cut off), else owner's commit is refused.
 * Xwayland's goes ahead: --max-held-commits still bounds what it holds,
 * so the total can pass the bound by at most that much. */
static const char *over_total(struct sw_held_commits *held, struct sw_held_client *owner,
			      char *buf, size_t len)
{
	long max = held->server->options->max_held_total;
	if (max <= 0 || held->queued < (size_t)max || xwayland_owns_client(held->server, owner->client))
		return NULL;
	struct sw_held_client *heavy = heaviest_other(held, owner);
	size_t mine = owner->queued + 1;
	if (heavy && heavy->queued > mine) {
		char why[192];
		total_words(held, heavy->queued, why, sizeof(why));
		held->counters.clients_cut_off++;
		sw_client_cut_off(heavy->client, "held commits", why);
		return NULL;
	}
	return total_words(held, mine, buf, len);
}

const char *sw_held_commits_check(struct sw_held_commits *held, struct wlr_surface *surface,
				  char *buf, size_t len)
{
	struct sw_held_surface *hs = held_surface_get(held, surface);
	if (!hs) {
		snprintf(buf, len, "compositor out of memory for held commits");
		return buf;
	}
	if (hs->admitted_seq == surface->pending.seq)
		return NULL;
	const struct sw_options *options = held->server->options;
	const char *why = NULL;
	/* The client's cap first: by default a surface's is the same. */
	if (options->max_held_commits > 0 && hs->owner->queued >= (size_t)options->max_held_commits) {
		snprintf(buf, len, "more than %d commits held back or queued behind them "
			 "(--max-held-commits)", options->max_held_commits);
		why = buf;
	} else if (options->max_held_per_surface > 0 && hs->queued >= (size_t)options->max_held_per_surface) {
		snprintf(buf, len, "more than %d commits held back or queued behind them on wl_surface@%u "
			 "(--max-held-per-surface)", options->max_held_per_surface,
			 wl_resource_get_id(surface->resource));
		why = buf;
	} else {
		why = over_total(held, hs->owner, buf, len);
	}
	if (why) {
		held->counters.refused++;
		return why;
	}
	hs->admitted_seq = surface->pending.seq;
	return NULL;
}

bool sw_held_commits_admit(struct sw_held_commits *held, struct wlr_surface *surface)
{
	char buf[192];
	const char *why = sw_held_commits_check(held, surface, buf, sizeof(buf));
	if (!why)
		return true;
	/* Neither fifo-v1 nor commit-timing-v1 has an error for a commit
	 * the compositor will not hold, and the commit may be one that
	 * neither protocol touched (queued behind a held one): the error is
	 * wl_display's implementation error, as for explicit sync's caps. */
	struct wl_client *client = wl_resource_get_client(surface->resource);
	pid_t pid = 0;
	wl_client_get_credentials(client, &pid, NULL, NULL);
	wlr_log(WLR_ERROR, "held commits: client pid %d: commit on wl_surface@%u refused: %s", (int)pid,
		wl_resource_get_id(surface->resource), why);
	wlr_surface_reject_pending(surface, wl_client_get_object(client, 1),
				   WL_DISPLAY_ERROR_IMPLEMENTATION, "%s", why);
	return false;
}

/* --- the ledger -------------------------------------------------------------- */

struct sw_held_commits *sw_held_commits_create(const struct sw_server *server)
{
	struct sw_held_commits *held = calloc(1, sizeof(*held));
	if (!held)
		return NULL;
	held->server = server;
	wl_list_init(&held->clients);
	return held;
}

size_t sw_held_commits_now(const struct sw_held_commits *held)
{
	return held->queued;
}

void sw_held_commits_destroy(struct sw_held_commits *held, struct sw_held_commits_counters *final)
{
	if (!held)
		return;
	/* The clients went, and their surfaces with what those held. */
	assert(held->queued == 0 && wl_list_empty(&held->clients));
	if (final)
		*final = held->counters;
	free(held);
}
