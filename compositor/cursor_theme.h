/* The cursor theme, read off the event loop and only once an image is
 * wanted (compositor/cursor_theme.c). */
#ifndef SYNCWAY_CURSOR_THEME_H
#define SYNCWAY_CURSOR_THEME_H

struct sw_server;
struct sw_cursor_themes;

struct sw_cursor_themes *sw_cursor_themes_create(struct sw_server *server);
/* Waits for a read in progress. */
void sw_cursor_themes_destroy(struct sw_cursor_themes *themes);

/* Shows the theme's image NAME: now if the theme is read at the scale of
 * every output, else once it is (the last name asked for wins). */
void sw_cursor_set_image(struct sw_server *server, const char *name);

/* Another image is shown (a client's surface): the pending one is not. */
void sw_cursor_drop_pending(struct sw_server *server);

/* The layout changed: a new scale is read too, once any image was asked
 * for. */
void sw_cursor_themes_layout_changed(struct sw_cursor_themes *themes);

/* An output is about to take scale: if the theme has not been read at it
 * and its image shows, the image is hidden and waits for the read (which
 * the layout's change starts) rather than wlroots reading the theme in the
 * turn of the output's commit. */
void sw_cursor_themes_scale_coming(struct sw_cursor_themes *themes, float scale);

#endif
