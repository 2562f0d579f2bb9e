/* The client side of wlr-screencopy-unstable-v1, version 1 (what wlroots
 * 0.18's wlr_screencopy_manager_v1 serves, and syncway offers), written out
 * by hand: no package in the build root ships the protocol's XML (it lives
 * in wlr-protocols), so wayland-scanner has nothing to generate it from.
 * These are the interface tables and request stubs the scanner would
 * write for version 1: manager requests capture_output,
 * capture_output_region, destroy; frame requests copy, destroy; frame
 * events buffer, flags, ready, failed. Once the XML is installed,
 * protocols/meson.build should generate this instead. */
#ifndef SW_CLIENT_SCREENCOPY_H
#define SW_CLIENT_SCREENCOPY_H

#include <stdint.h>
#include <wayland-client.h>

struct zwlr_screencopy_manager_v1;
struct zwlr_screencopy_frame_v1;

extern const struct wl_interface zwlr_screencopy_manager_v1_interface;
extern const struct wl_interface zwlr_screencopy_frame_v1_interface;

/* zwlr_screencopy_frame_v1.flags */
#define ZWLR_SCREENCOPY_FRAME_V1_FLAGS_Y_INVERT 1

struct zwlr_screencopy_frame_v1_listener {
	/* The wl_shm buffer the copy wants: a wl_shm format, size, stride. */
	void (*buffer)(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t format,
		       uint32_t width, uint32_t height, uint32_t stride);
	void (*flags)(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t flags);
	/* The buffer holds the frame; time of its presentation. */
	void (*ready)(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t tv_sec_hi,
		      uint32_t tv_sec_lo, uint32_t tv_nsec);
	void (*failed)(void *data, struct zwlr_screencopy_frame_v1 *frame);
};

/* Capture the region (output-local, logical coordinates) of the next
 * frame of output. */
struct zwlr_screencopy_frame_v1 *
zwlr_screencopy_manager_v1_capture_output_region(struct zwlr_screencopy_manager_v1 *manager,
						 int32_t overlay_cursor, struct wl_output *output,
						 int32_t x, int32_t y, int32_t width, int32_t height);
void zwlr_screencopy_manager_v1_destroy(struct zwlr_screencopy_manager_v1 *manager);

int zwlr_screencopy_frame_v1_add_listener(struct zwlr_screencopy_frame_v1 *frame,
					  const struct zwlr_screencopy_frame_v1_listener *listener,
					  void *data);
void zwlr_screencopy_frame_v1_copy(struct zwlr_screencopy_frame_v1 *frame, struct wl_buffer *buffer);
void zwlr_screencopy_frame_v1_destroy(struct zwlr_screencopy_frame_v1 *frame);

#endif
