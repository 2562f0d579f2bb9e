/* x11-client: an X11 window that asks for fullscreen on command, as games
 * do, and says where the window manager put it (focus.sh).
 *
 * usage: x11-client TITLE
 * Maps a 100x80 window of class "SwX11" with that title on $DISPLAY and
 * says on stdout, a line each, "configure X Y WIDTH HEIGHT" at every
 * ConfigureNotify. It takes commands on stdin, a line each:
 *   fullscreen    asks for _NET_WM_STATE_FULLSCREEN (EWMH client message)
 *   quit          exits (as does the end of the input)
 * Exits 0 when done, 1 when the X server cannot be reached or goes away,
 * 2 on a usage error.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/xcb.h>

static xcb_atom_t intern(xcb_connection_t *conn, const char *name)
{
	xcb_intern_atom_reply_t *reply =
		xcb_intern_atom_reply(conn, xcb_intern_atom(conn, 0, strlen(name), name), NULL);
	xcb_atom_t atom = reply ? reply->atom : XCB_ATOM_NONE;
	free(reply);
	return atom;
}

/* EWMH: a client asks the window manager with a message to the root. */
static void ask_fullscreen(xcb_connection_t *conn, xcb_screen_t *screen, xcb_window_t window)
{
	xcb_client_message_event_t event = {
		.response_type = XCB_CLIENT_MESSAGE,
		.format = 32,
		.window = window,
		.type = intern(conn, "_NET_WM_STATE"),
	};
	event.data.data32[0] = 1; /* _NET_WM_STATE_ADD */
	event.data.data32[1] = intern(conn, "_NET_WM_STATE_FULLSCREEN");
	event.data.data32[3] = 1; /* from a normal application */
	xcb_send_event(conn, 0, screen->root,
		       XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY,
		       (const char *)&event);
	xcb_flush(conn);
}

int main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: x11-client TITLE\n");
		return 2;
	}
	xcb_connection_t *conn = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(conn)) {
		fprintf(stderr, "x11-client: cannot connect to the X server\n");
		return 1;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	xcb_window_t window = xcb_generate_id(conn);
	uint32_t values[] = { screen->white_pixel, XCB_EVENT_MASK_STRUCTURE_NOTIFY };
	xcb_create_window(conn, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, 100, 80, 0,
			  XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
			  XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
			    strlen(argv[1]), argv[1]);
	static const char class[] = "sw-x11\0SwX11"; /* instance, class */
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8,
			    sizeof(class), class);
	xcb_map_window(conn, window);
	xcb_flush(conn);

	struct pollfd fds[2] = {
		{ .fd = xcb_get_file_descriptor(conn), .events = POLLIN },
		{ .fd = STDIN_FILENO, .events = POLLIN },
	};
	char input[256];
	size_t used = 0;
	for (;;) {
		xcb_generic_event_t *event;
		while ((event = xcb_poll_for_event(conn))) {
			if ((event->response_type & 0x7f) == XCB_CONFIGURE_NOTIFY) {
				xcb_configure_notify_event_t *configure = (void *)event;
				printf("configure %d %d %u %u\n", configure->x, configure->y,
				       configure->width, configure->height);
				fflush(stdout);
			}
			free(event);
		}
		if (xcb_connection_has_error(conn))
			return 1;
		if (poll(fds, 2, -1) < 0)
			return 1;
		if (!(fds[1].revents & (POLLIN | POLLHUP)))
			continue;
		/* Unbuffered: poll() would not see lines stdio had read ahead. */
		ssize_t n = read(STDIN_FILENO, input + used, sizeof(input) - 1 - used);
		if (n <= 0)
			break;
		used += n;
		input[used] = '\0';
		char *line = input, *end;
		bool quit = false;
		while ((end = strchr(line, '\n'))) {
			*end = '\0';
			if (strcmp(line, "fullscreen") == 0)
				ask_fullscreen(conn, screen, window);
			quit = quit || strcmp(line, "quit") == 0;
			line = end + 1;
		}
		/* A line longer than the buffer is no command. */
		if (quit || (line == input && used == sizeof(input) - 1))
			break;
		used -= line - input;
		memmove(input, line, used);
	}
	xcb_disconnect(conn);
	return 0;
}
