/* sw_sync's user interface, for the tests that need CPU-signalled fences
 * (tests/kernel/, tests/conformance/). The kernel defines it in
 * drivers/dma-buf/sw_sync.c and exports no header for it, so the structs
 * and numbers are restated here, once. Needs CONFIG_SW_SYNC and debugfs. */
#ifndef SYNCWAY_SW_SYNC_H
#define SYNCWAY_SW_SYNC_H

#include <stdint.h>
#include <sys/ioctl.h>

/* Opening it makes a new timeline; closing it signals what is left. */
#define SW_SYNC_PATH "/sys/kernel/debug/sync/sw_sync"

struct sw_sync_create_fence_data {
	uint32_t value;
	char name[32];
	int32_t fence;
};

struct sw_sync_get_deadline {
	uint64_t deadline_ns;
	uint32_t pad;
	int32_t fence_fd;
};

#define SW_SYNC_IOC_MAGIC 'W'
#define SW_SYNC_IOC_CREATE_FENCE _IOWR(SW_SYNC_IOC_MAGIC, 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC _IOW(SW_SYNC_IOC_MAGIC, 1, uint32_t)
#define SW_SYNC_GET_DEADLINE _IOWR(SW_SYNC_IOC_MAGIC, 2, struct sw_sync_get_deadline)

#endif
