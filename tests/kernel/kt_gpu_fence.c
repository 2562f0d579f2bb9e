/* Fences the GPU driver signals: GLES2 jobs on EGL/GBM, exported as
 * sync_files through EGL_ANDROID_native_fence_sync (common/egl_gbm.c; see
 * kt_gpu_fence.h).
 *
 * Why EGL and not DRM_IOCTL_VIRTGPU_EXECBUFFER with FENCE_FD_OUT: a job
 * that keeps the host busy for a while needs a virgl command stream (a
 * context, a surface, shaders, draws), which Mesa's virgl driver encodes
 * for us; a hand-made stream would be either empty (signalled at once) or a
 * second virgl encoder to maintain. The fence is the same either way: Mesa
 * asks for it with VIRTGPU_EXECBUF_FENCE_FD_OUT on the EXECBUFFER of the
 * flush, so the sync_file holds virtio_gpu's own dma_fence. */
#include "kt_gpu_fence.h"

#include <GLES2/gl2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <virtgpu_drm.h>

#include "drm_device.h"
#include "egl_gbm.h"
#include "kt.h"

/* A 2048x2048 RGBA8 target (16 MiB), each draw a full-size triangle whose
 * fragments run LOOP iterations, blended onto the previous draw so that no
 * draw can be dropped. */
#define FBO_SIZE 2048
#define MAX_DRAWS 512

static const char vs_src[] = "attribute vec2 pos;\n"
			     "varying vec2 uv;\n"
			     "void main() {\n"
			     "	uv = pos * 0.5 + 0.5;\n"
			     "	gl_Position = vec4(pos, 0.0, 1.0);\n"
			     "}\n";

static const char fs_src[] = "precision highp float;\n"
			     "varying vec2 uv;\n"
			     "uniform float seed;\n"
			     "void main() {\n"
			     "	vec4 c = vec4(uv, seed, 1.0);\n"
			     "	for (int i = 0; i < 24; i++)\n"
			     "		c = fract(c * 1.6180339 + vec4(0.31, 0.17, 0.07, 0.13));\n"
			     "	gl_FragColor = c * 0.001;\n"
			     "}\n";

static struct {
	int state; /* 0 not tried, 1 ready, -1 unavailable (why) */
	char why[256];
	char desc[256];
	char driver[32];
	int fd;
	struct sw_egl_gbm egl;
	GLuint prog, fbo, tex, vbo;
	GLint seed_loc;
	int draws;
	unsigned jobs;
} g = { .fd = -1 };

/* Records why there is no GPU and returns false. */
static bool unavailable(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool unavailable(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g.why, sizeof(g.why), fmt, ap);
	va_end(ap);
	return false;
}

/* A render node that can run GL jobs: virtio-gpu only with 3D (virgl). */
static bool open_device(void)
{
	char err[256];
	drmVersionPtr v;

	g.fd = sw_drm_open_render_node(err, sizeof(err));
	if (g.fd < 0)
		return unavailable("%s", err);
	v = drmGetVersion(g.fd);
	if (!v)
		return unavailable("not a DRM device");
	snprintf(g.driver, sizeof(g.driver), "%s", v->name);
	drmFreeVersion(v);
	if (!strcmp(g.driver, "virtio_gpu")) {
		int features = 0;
		struct drm_virtgpu_getparam p = {
			.param = VIRTGPU_PARAM_3D_FEATURES,
			.value = (uintptr_t)&features,
		};
		int ret = kt_ioctl(g.fd, DRM_IOCTL_VIRTGPU_GETPARAM, &p);
		if (ret != 0 || !features)
			return unavailable("virtio-gpu without 3D (2D device, VIRTGPU_PARAM_3D_FEATURES "
					   "%s): boot the guest with tools/vm-run --gpu virgl",
					   ret ? kt_ret(ret) : "0");
	}
	return true;
}

static bool setup_egl(void)
{
	char err[256];

	if (!sw_egl_gbm_init(&g.egl, g.fd, NULL, err, sizeof(err)))
		return unavailable("%s", err);
	return true;
}

static bool setup_gl(void)
{
	static const GLfloat tri[] = { -1, -1, 3, -1, -1, 3 };
	char err[256];

	g.prog = sw_gles2_program(vs_src, fs_src, err, sizeof(err));
	if (!g.prog)
		return unavailable("%s", err);
	g.seed_loc = glGetUniformLocation(g.prog, "seed");

	glGenTextures(1, &g.tex);
	glBindTexture(GL_TEXTURE_2D, g.tex);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, FBO_SIZE, FBO_SIZE, 0, GL_RGBA, GL_UNSIGNED_BYTE,
		     NULL);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	glGenFramebuffers(1, &g.fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, g.fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g.tex, 0);
	if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
		return unavailable("a %dx%d RGBA framebuffer is incomplete", FBO_SIZE, FBO_SIZE);

	glGenBuffers(1, &g.vbo);
	glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
	glBufferData(GL_ARRAY_BUFFER, sizeof(tri), tri, GL_STATIC_DRAW);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
	glEnableVertexAttribArray(0);
	glViewport(0, 0, FBO_SIZE, FBO_SIZE);
	glUseProgram(g.prog);
	glEnable(GL_BLEND);
	glBlendFunc(GL_ONE, GL_ONE);
	if (glGetError() != GL_NO_ERROR)
		return unavailable("GLES2 setup failed");
	return true;
}

/* One job of draws draws: a clear, the draws, a native fence, the flush. */
static int submit(int draws)
{
	char err[256];
	int fd;

	glClearColor(0, 0, (float)(g.jobs++ % 7) / 7.0f, 1);
	glClear(GL_COLOR_BUFFER_BIT);
	for (int i = 0; i < draws; i++) {
		glUniform1f(g.seed_loc, (float)i / (float)draws);
		glDrawArrays(GL_TRIANGLES, 0, 3);
	}
	fd = sw_egl_gbm_flush_fence(&g.egl, err, sizeof(err));
	sw_assert_f(fd >= 0, "%s", err);
	return fd;
}

/* How long a job of draws draws stays pending, in ms (the time from its
 * flush until its sync_file signals); *driver gets the fence's driver, read
 * before the wait: 7.3 (not 6.12) names a signalled fence's driver
 * "detached-driver", the driver being free to go away once it signalled. */
static double time_job(int draws, char *driver, size_t len)
{
	int64_t t0 = sw_clock_ns(CLOCK_MONOTONIC);
	int fd = submit(draws);
	struct kt_sync_info si;

	kt_sync_info(fd, &si);
	bool done = kt_sync_wait(fd, 60000);
	int64_t t1 = sw_clock_ns(CLOCK_MONOTONIC);

	close(fd);
	sw_assert_f(done, "a calibration job of %d draws did not signal in 60 s", draws);
	snprintf(driver, len, "%s", si.n ? si.f[0].driver_name : "");
	return (double)(t1 - t0) / 1e6;
}

/* Sizes the job towards $SYNCWAY_KT_GPU_MS (default 400 ms) of pending. */
static bool calibrate(void)
{
	const char *env = getenv("SYNCWAY_KT_GPU_MS");
	double target = env && atof(env) > 0 ? atof(env) : 400;
	char driver[32] = "";
	int draws = 2;
	double ms = time_job(1, driver, sizeof(driver)); /* warms up shaders and buffers */

	if (!strcmp(driver, "sw_sync") || !driver[0])
		return unavailable("the native fences are not a GPU driver's (\"%s\")", driver);
	snprintf(g.driver, sizeof(g.driver), "%s", driver);
	for (;;) {
		ms = time_job(draws, driver, sizeof(driver));
		if (ms >= 50 || draws >= MAX_DRAWS)
			break;
		draws *= 8;
	}
	g.draws = (int)(target * draws / (ms > 0.1 ? ms : 0.1));
	g.draws = g.draws < 1 ? 1 : g.draws > MAX_DRAWS ? MAX_DRAWS : g.draws;
	snprintf(g.desc, sizeof(g.desc),
		 "%s, fences of %s; %d draws took %.0f ms, so %d draws of %dx%d per job "
		 "(target %.0f ms)",
		 (const char *)glGetString(GL_RENDERER), g.driver, draws, ms, g.draws, FBO_SIZE,
		 FBO_SIZE, target);
	printf("# gpu: %s\n", g.desc);
	return true;
}

void kt_gpu_require(void)
{
	if (g.state == 0) {
		g.state = -1;
		unavailable("setting the GPU up failed in an earlier subtest");
		if (open_device() && setup_egl() && setup_gl() && calibrate())
			g.state = 1;
	}
	if (g.state < 0)
		sw_skip("no GPU fences: %s", g.why);
}

int kt_gpu_job(void)
{
	sw_assert_f(g.state == 1, "kt_gpu_job without a GPU");
	return submit(g.draws);
}

const char *kt_gpu_fence_driver(void)
{
	return g.driver;
}

const char *kt_gpu_desc(void)
{
	return g.desc;
}
