/* The parts of the drm_syncobj uapi that the installed libdrm headers may
 * lack.
 *
 * Linux 6.16 gave DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD and FD_TO_HANDLE a timeline
 * point: struct drm_syncobj_handle grew a u64 after pad, and a TIMELINE flag
 * for each direction says that it is used (with EXPORT_SYNC_FILE and
 * IMPORT_SYNC_FILE, a sync_file of a point, or one put at a point, in one
 * call). libdrm 2.4.124, the build root's, has neither the flags nor the
 * field, and the ioctl number encodes the struct's size, so the longer
 * struct is restated here under this project's names with ioctl numbers of
 * its size. Older kernels take it as well: drm_ioctl() copies the larger
 * struct in and out, the ioctl ignores the tail, and it refuses the flag it
 * does not know with EINVAL.
 *
 * Used by common/syncobj.c and the kernel behaviour suite (tests/kernel/kt.h).
 */
#ifndef SYNCWAY_SYNCOBJ_UAPI_H
#define SYNCWAY_SYNCOBJ_UAPI_H

#include <stdint.h>
#include <xf86drm.h>

#ifndef DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_TIMELINE
#define DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_TIMELINE (1 << 1)
#endif
#ifndef DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_TIMELINE
#define DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_TIMELINE (1 << 1)
#endif

/* struct drm_syncobj_handle as of Linux 6.16. */
struct sw_syncobj_handle_args {
	uint32_t handle;
	uint32_t flags;
	int32_t fd;
	uint32_t pad;
	uint64_t point;
};
_Static_assert(sizeof(struct sw_syncobj_handle_args) == 24,
	       "the 6.16 struct drm_syncobj_handle is 24 bytes");

#define SW_IOCTL_SYNCOBJ_HANDLE_TO_FD DRM_IOWR(0xC1, struct sw_syncobj_handle_args)
#define SW_IOCTL_SYNCOBJ_FD_TO_HANDLE DRM_IOWR(0xC2, struct sw_syncobj_handle_args)

#endif
