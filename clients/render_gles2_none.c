/* Built without EGL, GLES2 or GBM headers: the GLES2 renderer says so. */
#include <stdio.h>

#include "renderer.h"

struct sw_renderer *sw_renderer_gles2_create(int drm_fd, char *err, size_t err_len)
{
	snprintf(err, err_len, "built without EGL, GLES2 and GBM (libegl-dev, libgles-dev, libgbm-dev)");
	return NULL;
}

int sw_renderer_gles2_busy(struct sw_renderer *r, int draws)
{
	return -1;
}
