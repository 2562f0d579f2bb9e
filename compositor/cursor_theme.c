/* The cursor theme, read off the event loop and only once an image is
 * wanted.
 *
 * wlroots reads a whole theme (every cursor in it, decoded) the first time
 * wlr_cursor_set_xcursor() meets a scale it has not read: tens of
 * milliseconds of one turn on real hardware, and the theme at start-up cost
 * every syncway start about half a second in a TCG guest, with or without
 * a pointer. So the theme is read in a thread, one scale at a time, from
 * the first image asked for, and the image is shown when every output's
 * scale is in the manager: wlroots then finds them there and reads
 * nothing. Meanwhile the cursor shows no image.
 *
 * An output that takes a new scale would make wlroots read it in the turn
 * of the output's commit, while a theme image shows (the commit updates the
 * cursor before the layout says so): output management tells this module
 * first, and the image waits for the read like a first one. */
#include "cursor_theme.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/util/log.h>
#include <wlr/xcursor.h>

#include "loop_stats.h"
#include "server.h"

/* One scale being read. */
struct theme_read {
	struct sw_cursor_themes *themes;
	float scale;
	char *name; /* NULL: the default theme */
	uint32_t size;
	struct wlr_xcursor_theme *theme; /* the thread's result */
	pthread_t thread;
	int done_fd;
	struct wl_event_source *done_source;
};

struct sw_cursor_themes {
	struct sw_server *server;
	bool wanted;              /* an image was asked for: keep every scale read */
	char *pending;            /* the image to show once they are */
	char *shown;              /* the theme's image on show; NULL: none, or a client's */
	struct theme_read *read;  /* at most one at a time */
};

static bool scale_loaded(struct wlr_xcursor_manager *mgr, float scale)
{
	struct wlr_xcursor_manager_theme *theme;
	wl_list_for_each(theme, &mgr->scaled_themes, link) {
		if (theme->scale == scale)
			return true;
	}
	return false;
}

/* A scale of the layout's outputs that the manager has not read. */
static bool missing_scale(struct sw_cursor_themes *themes, float *scale)
{
	struct sw_server *server = themes->server;
	struct wlr_output_layout_output *l_output;
	wl_list_for_each(l_output, &server->output_layout->outputs, link) {
		if (!scale_loaded(server->cursor_mgr, l_output->output->scale)) {
			*scale = l_output->output->scale;
			return true;
		}
	}
	return false;
}

static void *read_theme(void *data)
{
	struct theme_read *read = data;
	read->theme = wlr_xcursor_theme_load(read->name, (int)(read->size * read->scale));
	uint64_t one = 1;
	/* The eventfd cannot be full: one write, read once. */
	while (write(read->done_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	return NULL;
}

static void read_finish(struct theme_read *read)
{
	pthread_join(read->thread, NULL);
	wl_event_source_remove(read->done_source);
	close(read->done_fd);
	free(read->name);
}

/* Shows name, which the themes then own. */
static void show(struct sw_cursor_themes *themes, char *name)
{
	struct sw_server *server = themes->server;
	wlr_cursor_set_xcursor(server->cursor, server->cursor_mgr, name);
	if (themes->shown != name)
		free(themes->shown);
	themes->shown = name;
}

static void show_pending(struct sw_cursor_themes *themes)
{
	if (!themes->pending)
		return;
	show(themes, themes->pending);
	themes->pending = NULL;
}

static void read_next(struct sw_cursor_themes *themes);

static int handle_read_done(int fd, uint32_t mask, void *data)
{
	struct theme_read *read = data;
	struct sw_cursor_themes *themes = read->themes;
	struct wlr_xcursor_manager *mgr = themes->server->cursor_mgr;
	read_finish(read);
	themes->read = NULL;
	struct wlr_xcursor_theme *theme = read->theme;
	float scale = read->scale;
	free(read);
	if (!theme) {
		/* No retry loop: wlroots tries once more when the image is set. */
		wlr_log(WLR_ERROR, "cannot load the cursor theme at scale %.2f", scale);
		show_pending(themes);
		return 0;
	}
	struct wlr_xcursor_manager_theme *entry = NULL;
	/* wlroots may have read the scale itself meanwhile (a new scale on
	 * an output while an image showed). */
	if (!scale_loaded(mgr, scale) && (entry = calloc(1, sizeof(*entry)))) {
		/* The manager's own entry, which it frees as its own. */
		entry->scale = scale;
		entry->theme = theme;
		wl_list_insert(&mgr->scaled_themes, &entry->link);
		wlr_log(WLR_INFO, "cursor theme: read at scale %.2f off the event loop", scale);
	} else {
		wlr_xcursor_theme_destroy(theme);
	}
	read_next(themes);
	return 0;
}

/* Reads the next missing scale, or shows the pending image when none is
 * missing. */
static void read_next(struct sw_cursor_themes *themes)
{
	if (themes->read || !themes->wanted)
		return;
	float scale;
	if (!missing_scale(themes, &scale)) {
		show_pending(themes);
		return;
	}
	struct sw_server *server = themes->server;
	struct theme_read *read = calloc(1, sizeof(*read));
	if (!read)
		goto on_loop;
	read->themes = themes;
	read->scale = scale;
	read->size = server->cursor_mgr->size;
	read->name = server->cursor_mgr->name ? strdup(server->cursor_mgr->name) : NULL;
	if (server->cursor_mgr->name && !read->name)
		goto free_read;
	read->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (read->done_fd < 0)
		goto free_read;
	read->done_source = wl_event_loop_add_fd(server->loop, read->done_fd, WL_EVENT_READABLE,
						 handle_read_done, read);
	if (!read->done_source)
		goto close_fd;
	if (pthread_create(&read->thread, NULL, read_theme, read) != 0)
		goto remove_source;
	themes->read = read;
	return;

remove_source:
	wl_event_source_remove(read->done_source);
close_fd:
	close(read->done_fd);
free_read:
	free(read->name);
	free(read);
on_loop:
	/* No thread: read it the way wlroots would, in this turn. */
	wlr_log(WLR_ERROR, "cursor theme: cannot read it off the event loop; reading it now");
	sw_loop_stats_note(server->loop_stats, "cursor theme");
	if (!wlr_xcursor_manager_load(server->cursor_mgr, scale))
		wlr_log(WLR_ERROR, "cannot load the cursor theme at scale %.2f", scale);
	show_pending(themes);
}

void sw_cursor_set_image(struct sw_server *server, const char *name)
{
	struct sw_cursor_themes *themes = server->cursor_themes;
	float scale;
	themes->wanted = true;
	if (!themes->read && !missing_scale(themes, &scale)) {
		free(themes->pending);
		themes->pending = NULL;
		/* At every motion over the desktop: a copy only for a new name. */
		char *copy = themes->shown && strcmp(themes->shown, name) == 0 ? themes->shown : strdup(name);
		if (copy) {
			show(themes, copy);
		} else {
			/* Shown, but not remembered: a new scale then reads on
			 * the loop rather than bringing back a stale image. */
			wlr_cursor_set_xcursor(server->cursor, server->cursor_mgr, name);
			free(themes->shown);
			themes->shown = NULL;
		}
		return;
	}
	if (!themes->pending || strcmp(themes->pending, name) != 0) {
		char *copy = strdup(name);
		if (!copy)
			return;
		free(themes->pending);
		themes->pending = copy;
	}
	/* Nothing stale meanwhile (a client's cursor from the surface the
	 * pointer left). */
	wlr_cursor_unset_image(server->cursor);
	free(themes->shown);
	themes->shown = NULL;
	read_next(themes);
}

void sw_cursor_drop_pending(struct sw_server *server)
{
	struct sw_cursor_themes *themes = server->cursor_themes;
	free(themes->pending);
	themes->pending = NULL;
	free(themes->shown);
	themes->shown = NULL;
}

void sw_cursor_themes_scale_coming(struct sw_cursor_themes *themes, float scale)
{
	if (!themes->shown || scale_loaded(themes->server->cursor_mgr, scale))
		return;
	wlr_cursor_unset_image(themes->server->cursor);
	free(themes->pending);
	themes->pending = themes->shown;
	themes->shown = NULL;
}

void sw_cursor_themes_layout_changed(struct sw_cursor_themes *themes)
{
	read_next(themes);
}

struct sw_cursor_themes *sw_cursor_themes_create(struct sw_server *server)
{
	struct sw_cursor_themes *themes = calloc(1, sizeof(*themes));
	if (themes)
		themes->server = server;
	return themes;
}

void sw_cursor_themes_destroy(struct sw_cursor_themes *themes)
{
	if (!themes)
		return;
	if (themes->read) {
		read_finish(themes->read);
		if (themes->read->theme)
			wlr_xcursor_theme_destroy(themes->read->theme);
		free(themes->read);
	}
	free(themes->pending);
	free(themes->shown);
	free(themes);
}
