/* Built without Vulkan headers: the Vulkan renderer says so. */
#include <stdio.h>

#include "renderer.h"

struct sw_renderer *sw_renderer_vulkan_create(int width, int height, char *err, size_t err_len)
{
	snprintf(err, err_len, "syncway-gears was built without Vulkan");
	return NULL;
}
