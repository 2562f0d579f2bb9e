/* A GLES2 context on a render node through EGL on GBM, its shader programs,
 * and the sync_files of its GPU jobs (EGL_ANDROID_native_fence_sync): what
 * the GLES2 client renderer (clients/render_gles2.c) and the kernel suite's
 * GPU fences (tests/kernel/kt_gpu_fence.c) share. Built only where EGL,
 * GLES2 and GBM are (egl_gbm_dep), and kept out of common_dep so that
 * nothing else links EGL. */
#ifndef SYNCWAY_EGL_GBM_H
#define SYNCWAY_EGL_GBM_H

#include <stdbool.h>
#include <stddef.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <gbm.h>

struct sw_egl_gbm {
	struct gbm_device *gbm;
	EGLDisplay display;
	EGLContext context;
	PFNEGLCREATESYNCKHRPROC create_sync;
	PFNEGLDESTROYSYNCKHRPROC destroy_sync;
	PFNEGLDUPNATIVEFENCEFDANDROIDPROC dup_native_fence_fd;
};

/* Whether name is a whole word of the space-separated list (NULL: none). */
bool sw_egl_has_extension(const char *list, const char *name);

/* A GBM device on drm_fd (which stays the caller's), its EGL display and a
 * surfaceless GLES2 context, made current. The display must have native
 * fences, surfaceless contexts and the extensions of the NULL-terminated
 * need (may be NULL). Returns false with the reason in err, e left empty. */
bool sw_egl_gbm_init(struct sw_egl_gbm *e, int drm_fd, const char *const *need, char *err,
		     size_t err_len);

/* Undoes sw_egl_gbm_init; e may be empty (zeroed). */
void sw_egl_gbm_finish(struct sw_egl_gbm *e);

/* A linked program of the two shaders' sources, its attribute "pos" at
 * location 0; 0 with the reason in err. Needs the current context. */
GLuint sw_gles2_program(const char *vertex, const char *fragment, char *err, size_t err_len);

/* Submits the GL commands so far; returns the sync_file of their job, or -1
 * with the reason in err. Does not wait for the GPU. */
int sw_egl_gbm_flush_fence(struct sw_egl_gbm *e, char *err, size_t err_len);

#endif
