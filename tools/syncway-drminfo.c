/* Prints what the DRM render node offers for explicit sync, for people and
 * (with --json) for scripts. Exit status 1 when there is no usable device. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "drm_device.h"

int main(int argc, char **argv)
{
	struct sw_syncobj_caps caps;
	struct utsname uts;
	char err[256];
	int json = argc > 1 && !strcmp(argv[1], "--json");

	if (argc > 1 && !json) {
		fprintf(stderr, "usage: %s [--json]\n", argv[0]);
		return 2;
	}
	uname(&uts);
	int fd = sw_drm_open_render_node(err, sizeof(err));
	if (fd < 0 || !sw_drm_probe_syncobj(fd, &caps, err, sizeof(err))) {
		fprintf(stderr, "syncway-drminfo: %s\n", err);
		return 1;
	}
	close(fd);
	if (json) {
		printf("{\"kernel\":\"%s\",\"driver\":\"%s\",\"driver_version\":\"%d.%d.%d\","
		       "\"cap_syncobj\":%d,\"cap_syncobj_timeline\":%d,\"syncobj_eventfd\":%d}\n",
		       uts.release, caps.driver, caps.version_major, caps.version_minor,
		       caps.version_patchlevel, caps.syncobj, caps.syncobj_timeline, caps.eventfd);
	} else {
		printf("kernel %s, driver %s %d.%d.%d: CAP_SYNCOBJ=%d CAP_SYNCOBJ_TIMELINE=%d "
		       "SYNCOBJ_EVENTFD=%s\n",
		       uts.release, caps.driver, caps.version_major, caps.version_minor,
		       caps.version_patchlevel, caps.syncobj, caps.syncobj_timeline,
		       caps.eventfd ? "yes" : "no");
	}
	return 0;
}
