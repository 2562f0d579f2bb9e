/* sw_sync timelines and fences: the CPU signals what the tests wait for. */
#include "kt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sw_sync.h"

/* beside SW_SYNC_PATH: every live sync_timeline and its fences */
#define SW_SYNC_INFO_PATH "/sys/kernel/debug/sync/info"

int kt_sw_timeline(void)
{
	int fd = open(SW_SYNC_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		sw_skip("no sw_sync timeline (" SW_SYNC_PATH ": %m; "
			"needs CONFIG_SW_SYNC and debugfs)");
	return fd;
}

int kt_sw_fence(int timeline, uint32_t seqno)
{
	struct sw_sync_create_fence_data d = { .value = seqno };
	int ret;

	snprintf(d.name, sizeof(d.name), "kt-%u", seqno);
	ret = kt_ioctl(timeline, SW_SYNC_IOC_CREATE_FENCE, &d);
	sw_assert_f(ret == 0, "SW_SYNC_IOC_CREATE_FENCE failed: %s", kt_ret(ret));
	return d.fence;
}

void kt_sw_inc(int timeline, uint32_t inc)
{
	int ret = kt_ioctl(timeline, SW_SYNC_IOC_INC, &inc);
	sw_assert_f(ret == 0, "SW_SYNC_IOC_INC failed: %s", kt_ret(ret));
}

bool kt_sw_deadline(int fence_fd, uint64_t *ns)
{
	struct sw_sync_get_deadline d = { .fence_fd = fence_fd };
	int timeline = kt_sw_timeline(); /* any sw_sync fd answers this ioctl */
	int ret = kt_ioctl(timeline, SW_SYNC_GET_DEADLINE, &d);

	close(timeline);
	if (ret == -ENOENT)
		return false;
	sw_assert_f(ret == 0, "SW_SYNC_GET_DEADLINE failed: %s", kt_ret(ret));
	*ns = d.deadline_ns;
	return true;
}

int kt_sw_timelines_alive(void)
{
	/* sw_sync names each timeline after the comm of the task that opened
	 * it; sync/info lists the live ones as "<name>: <value>" lines before
	 * its "fences:" section (their fences follow, indented). */
	char comm[32] = "", line[256];
	FILE *f = fopen("/proc/self/comm", "r");
	int n = 0;

	if (!f || !fgets(comm, sizeof(comm), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	f = fopen(SW_SYNC_INFO_PATH, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(comm);

		if (!strncmp(line, "fences:", 7))
			break;
		if (!strncmp(line, comm, l) && !strncmp(line + l, ": ", 2))
			n++;
	}
	fclose(f);
	return n;
}
