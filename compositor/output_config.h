/* What --output asks of an output, and enabling an output with it. */
#ifndef SYNCWAY_OUTPUT_CONFIG_H
#define SYNCWAY_OUTPUT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <wayland-server-protocol.h>

struct wlr_output;

struct sw_output_config {
	char name[64];        /* an output name, or "*" for any */
	bool off;
	int width, height;    /* 0: the preferred mode */
	int refresh_mhz;      /* 0: any */
	double scale;         /* 0: 1 */
	bool has_transform;
	enum wl_output_transform transform;
	bool has_position;
	int x, y;
};

/* Parses NAME:WxH[@HZ][,scale=S][,transform=T][,pos=X,Y] or NAME:off, with
 * NAME "*" for every output without a config of its own. On error, false
 * and what is wrong in err. */
bool sw_output_config_parse(const char *spec, struct sw_output_config *config, char *err, size_t err_len);

/* The config for output name among n (its own, else "*"), or NULL. */
const struct sw_output_config *sw_output_config_find(const struct sw_output_config *configs, size_t n,
						     const char *name);

/* The rate wlroots' headless outputs run at when a mode gives none; they
 * say 0, so syncway gives them this one in their mode. */
#define SW_HEADLESS_DEFAULT_MHZ 60000

/* Enables output with config (NULL: the preferred mode). When that mode
 * cannot be committed, tries the output's other modes, preferred first,
 * then (on backends that take any) a custom one, logging each failure.
 * headless_* are --headless-size's (0: none); adaptive_sync asks for
 * variable refresh on top (said on stderr when the output has none).
 * Returns false when nothing could be enabled, or when the config turns
 * the output off. */
bool sw_output_enable(struct wlr_output *output, const struct sw_output_config *config,
		      int headless_width, int headless_height, int headless_refresh_mhz,
		      bool adaptive_sync);

/* One line on stderr: the output's name, mode, scale and transform, or that
 * it is off. */
void sw_output_describe(const struct wlr_output *output);

#endif
