/* A tiny PNG writer (RGB, 8 bit, zlib "stored" blocks: no compression and no
 * library): enough for screenshots of the client's own frames. */
#ifndef SW_CLIENT_PNG_H
#define SW_CLIENT_PNG_H

#include <stdbool.h>
#include <stdint.h>

/* XRGB8888 pixels (little endian: B, G, R, X in memory). */
bool sw_png_write_xrgb8888(const char *path, const void *data, int width, int height, uint32_t stride);

#endif
