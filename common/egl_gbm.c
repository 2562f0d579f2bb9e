/* EGL on GBM, a surfaceless GLES2 context, shader programs and native fence
 * export (see egl_gbm.h). Nothing here waits for the GPU. */
#include "egl_gbm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool sw_egl_has_extension(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && (p = strstr(p, name)); p += len) {
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
	}
	return false;
}

static bool fail(struct sw_egl_gbm *e, char *err, size_t err_len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool fail(struct sw_egl_gbm *e, char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	sw_egl_gbm_finish(e);
	return false;
}

bool sw_egl_gbm_init(struct sw_egl_gbm *e, int drm_fd, const char *const *need, char *err,
		     size_t err_len)
{
	static const char *const fence_needs[] = {
		"EGL_KHR_fence_sync",
		"EGL_ANDROID_native_fence_sync",
		"EGL_KHR_surfaceless_context",
	};
	static const EGLint config_attribs[] = { EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
						 EGL_NONE };
	static const EGLint context_attribs[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display;
	EGLConfig config = EGL_NO_CONFIG_KHR;
	const char *client_ext, *ext, *vendor;
	struct gbm_bo *probe;
	EGLint major, minor;

	*e = (struct sw_egl_gbm){ .display = EGL_NO_DISPLAY, .context = EGL_NO_CONTEXT };
	e->gbm = gbm_create_device(drm_fd);
	if (!e->gbm)
		return fail(e, err, err_len, "gbm_create_device failed on the render node (%s)",
			    strerror(errno));
	client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	if (!sw_egl_has_extension(client_ext, "EGL_KHR_platform_gbm") &&
	    !sw_egl_has_extension(client_ext, "EGL_MESA_platform_gbm"))
		return fail(e, err, err_len, "EGL has no GBM platform (EGL_KHR_platform_gbm)");
	get_platform_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!get_platform_display)
		return fail(e, err, err_len, "EGL has no eglGetPlatformDisplayEXT");
	/* A device without 3D (virtio-gpu without virgl) has a GBM device
	 * too, whose buffers are dumb buffers a render node may not make. */
	probe = gbm_bo_create(e->gbm, 64, 64, GBM_FORMAT_XRGB8888, GBM_BO_USE_RENDERING);
	if (!probe)
		return fail(e, err, err_len,
			    "GBM cannot allocate a buffer to render into on the "
			    "render node (%s): no 3D GPU there (virtio-gpu without virgl?)",
			    strerror(errno));
	gbm_bo_destroy(probe);

	e->display = get_platform_display(EGL_PLATFORM_GBM_KHR, e->gbm, NULL);
	if (e->display == EGL_NO_DISPLAY)
		return fail(e, err, err_len, "no EGL display on GBM (EGL error 0x%x)",
			    eglGetError());
	if (!eglInitialize(e->display, &major, &minor)) {
		EGLint error = eglGetError();

		e->display = EGL_NO_DISPLAY; /* nothing to terminate */
		return fail(e, err, err_len, "eglInitialize failed on GBM (EGL error 0x%x)", error);
	}
	ext = eglQueryString(e->display, EGL_EXTENSIONS);
	vendor = eglQueryString(e->display, EGL_VENDOR);
	for (size_t i = 0; i < sizeof(fence_needs) / sizeof(fence_needs[0]); i++) {
		if (!sw_egl_has_extension(ext, fence_needs[i]))
			return fail(e, err, err_len, "EGL (%s) has no %s", vendor, fence_needs[i]);
	}
	for (; need && *need; need++) {
		if (!sw_egl_has_extension(ext, *need))
			return fail(e, err, err_len, "EGL (%s) has no %s", vendor, *need);
	}
	e->create_sync = (PFNEGLCREATESYNCKHRPROC)eglGetProcAddress("eglCreateSyncKHR");
	e->destroy_sync = (PFNEGLDESTROYSYNCKHRPROC)eglGetProcAddress("eglDestroySyncKHR");
	e->dup_native_fence_fd =
		(PFNEGLDUPNATIVEFENCEFDANDROIDPROC)eglGetProcAddress("eglDupNativeFenceFDANDROID");
	if (!e->create_sync || !e->destroy_sync || !e->dup_native_fence_fd)
		return fail(e, err, err_len, "the native fence entry points are missing");

	if (!eglBindAPI(EGL_OPENGL_ES_API))
		return fail(e, err, err_len, "eglBindAPI(GLES) failed");
	if (!sw_egl_has_extension(ext, "EGL_KHR_no_config_context")) {
		EGLint n = 0;

		if (!eglChooseConfig(e->display, config_attribs, &config, 1, &n) || n < 1)
			return fail(e, err, err_len, "no EGL config for GLES2");
	}
	e->context = eglCreateContext(e->display, config, EGL_NO_CONTEXT, context_attribs);
	if (e->context == EGL_NO_CONTEXT)
		return fail(e, err, err_len, "no GLES2 context (EGL error 0x%x)", eglGetError());
	if (!eglMakeCurrent(e->display, EGL_NO_SURFACE, EGL_NO_SURFACE, e->context))
		return fail(e, err, err_len, "eglMakeCurrent (surfaceless) failed (EGL error 0x%x)",
			    eglGetError());
	return true;
}

void sw_egl_gbm_finish(struct sw_egl_gbm *e)
{
	if (e->context != EGL_NO_CONTEXT) {
		eglMakeCurrent(e->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		eglDestroyContext(e->display, e->context);
	}
	if (e->display != EGL_NO_DISPLAY)
		eglTerminate(e->display);
	if (e->gbm)
		gbm_device_destroy(e->gbm);
	*e = (struct sw_egl_gbm){ .display = EGL_NO_DISPLAY, .context = EGL_NO_CONTEXT };
}

static GLuint compile(GLenum type, const char *source, char *err, size_t err_len)
{
	GLuint shader = glCreateShader(type);
	GLint ok = GL_FALSE;

	glShaderSource(shader, 1, &source, NULL);
	glCompileShader(shader);
	glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[512] = "";

		glGetShaderInfoLog(shader, sizeof(log), NULL, log);
		snprintf(err, err_len, "a GLES2 shader does not compile: %s", log);
		glDeleteShader(shader);
		return 0;
	}
	return shader;
}

GLuint sw_gles2_program(const char *vertex, const char *fragment, char *err, size_t err_len)
{
	GLuint vs = compile(GL_VERTEX_SHADER, vertex, err, err_len);
	GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, fragment, err, err_len) : 0;
	GLuint program = 0;
	GLint ok = GL_FALSE;

	if (fs) {
		program = glCreateProgram();
		glAttachShader(program, vs);
		glAttachShader(program, fs);
		glBindAttribLocation(program, 0, "pos");
		glLinkProgram(program);
		glGetProgramiv(program, GL_LINK_STATUS, &ok);
		if (!ok) {
			snprintf(err, err_len, "the GLES2 program does not link");
			glDeleteProgram(program);
			program = 0;
		}
	}
	/* Attached shaders live on in the program; deleting 0 is a no-op. */
	glDeleteShader(vs);
	glDeleteShader(fs);
	return program;
}

int sw_egl_gbm_flush_fence(struct sw_egl_gbm *e, char *err, size_t err_len)
{
	/* A native fence sync gets its fence at the next flush: made before
	 * it, it covers everything submitted so far. */
	static const EGLint attribs[] = { EGL_SYNC_NATIVE_FENCE_FD_ANDROID,
					  EGL_NO_NATIVE_FENCE_FD_ANDROID, EGL_NONE };
	EGLSyncKHR sync = e->create_sync(e->display, EGL_SYNC_NATIVE_FENCE_ANDROID, attribs);
	EGLint egl_error;
	GLenum gl_error;
	int fd;

	if (sync == EGL_NO_SYNC_KHR) {
		snprintf(err, err_len,
			 "eglCreateSyncKHR(EGL_SYNC_NATIVE_FENCE_ANDROID) failed "
			 "(EGL error 0x%x)",
			 eglGetError());
		return -1;
	}
	glFlush();
	fd = e->dup_native_fence_fd(e->display, sync);
	egl_error = eglGetError(); /* before eglDestroySyncKHR resets it */
	e->destroy_sync(e->display, sync);
	if (fd == EGL_NO_NATIVE_FENCE_FD_ANDROID) {
		snprintf(err, err_len, "eglDupNativeFenceFDANDROID failed (EGL error 0x%x)",
			 egl_error);
		return -1;
	}
	gl_error = glGetError();
	if (gl_error != GL_NO_ERROR) {
		snprintf(err, err_len, "a GLES2 job failed (GL error 0x%x)", gl_error);
		close(fd);
		return -1;
	}
	return fd;
}
