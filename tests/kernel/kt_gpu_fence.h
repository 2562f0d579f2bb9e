/* Fences the GPU driver signals (tests/kernel/kt_gpu_fence.c).
 *
 * Every other fence of the behaviour suite is CPU-signalled (sw_sync). This
 * source gives sync_files for real GPU jobs: EGL on GBM on the suite's render
 * node, a GLES2 job (blended full-size draws with a long fragment loop into a
 * large FBO), then eglCreateSyncKHR(EGL_SYNC_NATIVE_FENCE_ANDROID), glFlush
 * and eglDupNativeFenceFDANDROID. Under virtio-gpu with virgl the fence is
 * virtio_gpu's own, pending until the host has executed the job.
 *
 * How long a job stays pending depends on the host (llvmpipe on a shared
 * CPU): the job size is calibrated once per process towards
 * $SYNCWAY_KT_GPU_MS (default 400 ms), and nothing timing-dependent may go
 * into a transcript.
 */
#ifndef SYNCWAY_KT_GPU_FENCE_H
#define SYNCWAY_KT_GPU_FENCE_H

/* Sets up EGL/GLES2 once per process (and calibrates the job size); skips
 * the running subtest, with the reason, when there is no GPU that exports
 * native fences: no EGL or GBM, no EGL_ANDROID_native_fence_sync, a 2D
 * virtio-gpu, or fences that are not the driver's own. */
void kt_gpu_require(void);

/* Submits one job; returns a sync_file fd for its fence, normally still
 * pending. Call kt_gpu_require() first. */
int kt_gpu_job(void);

/* The driver name the job fences carry ("virtio_gpu"). */
const char *kt_gpu_fence_driver(void);

/* One line for the '#' comments: renderer, job size, calibration. */
const char *kt_gpu_desc(void);

#endif
