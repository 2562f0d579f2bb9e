/* Guest smoke test: the kernel under test gives a render node with timeline
 * syncobjs and the eventfd ioctl, and a point can be signalled and waited. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <xf86drm.h>

#include "drm_device.h"
#include "harness.h"

/* Shared across subtests, so not automatic: a failed check longjmps. */
static struct sw_syncobj_caps caps;
static int fd = -1;

int main(int argc, char **argv)
{
	char err[256];

	sw_test_init("syncobj-smoke", argc, argv);

	sw_subtest("render-node-opens") {
		fd = sw_drm_open_render_node(err, sizeof(err));
		sw_assert_f(fd >= 0, "%s", err);
		sw_assert_f(sw_drm_probe_syncobj(fd, &caps, err, sizeof(err)), "%s", err);
	}

	sw_subtest("timeline-cap-reported") {
		if (fd < 0)
			sw_skip("no render node");
		sw_assert(caps.syncobj);
		sw_assert(caps.syncobj_timeline);
	}

	sw_subtest("eventfd-ioctl-exists") {
		if (fd < 0)
			sw_skip("no render node");
		sw_assert_f(caps.eventfd, "DRM_IOCTL_SYNCOBJ_EVENTFD(handle 0, fd -1) did not fail with ENOENT");
	}

	sw_subtest("timeline-point-signal-and-wait") {
		uint32_t h;
		uint64_t point = 5, value = 0, later = 6;

		if (fd < 0)
			sw_skip("no render node");
		sw_assert_eq(drmSyncobjCreate(fd, 0, &h), 0);
		/* No fence yet: a plain wait is refused, a wait-for-submit with
		 * a zero timeout reports ETIME. */
		sw_assert_errno(drmSyncobjTimelineWait(fd, &h, &point, 1, 0, 0, NULL), EINVAL);
		sw_assert_errno(drmSyncobjTimelineWait(fd, &h, &point, 1, 0,
						       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL),
				ETIME);
		sw_assert_eq(drmSyncobjTimelineSignal(fd, &h, &point, 1), 0);
		sw_assert_eq(drmSyncobjQuery(fd, &h, &value, 1), 0);
		sw_assert_eq(value, 5);
		sw_assert_eq(drmSyncobjTimelineWait(fd, &h, &point, 1, 0, 0, NULL), 0);
		sw_assert_errno(drmSyncobjTimelineWait(fd, &h, &later, 1, 0,
						       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, NULL),
				ETIME);
		sw_assert_eq(drmSyncobjDestroy(fd, h), 0);
	}

	sw_subtest("eventfd-fires-on-signal") {
		uint32_t h;
		uint64_t point = 7, count = 0;

		if (fd < 0 || !caps.eventfd)
			sw_skip("no render node or no eventfd ioctl");
		int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		sw_assert(efd >= 0);
		sw_assert_eq(drmSyncobjCreate(fd, 0, &h), 0);
		sw_assert_eq(drmSyncobjEventfd(fd, h, point, efd, 0), 0);
		struct pollfd pfd = { .fd = efd, .events = POLLIN };
		sw_assert_eq(poll(&pfd, 1, 0), 0);
		sw_assert_eq(drmSyncobjTimelineSignal(fd, &h, &point, 1), 0);
		sw_assert_eq(poll(&pfd, 1, 1000), 1);
		sw_assert_eq(read(efd, &count, sizeof(count)), sizeof(count));
		sw_assert_eq(count, 1);
		close(efd);
		sw_assert_eq(drmSyncobjDestroy(fd, h), 0);
	}

	if (fd >= 0)
		close(fd);
	return sw_test_exit();
}
