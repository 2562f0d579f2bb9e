/* The GLES2 renderer: a real GPU (virgl in the guest) through EGL on a GBM
 * device, made on the render node the client's syncobjs live on.
 *
 * Its buffers are GBM buffer objects, allocated with the modifiers the
 * compositor announced for the format, exported as dmabufs (one to the
 * compositor through linux-dmabuf, one kept by the sw_buffer for its
 * implicit fences) and imported back as EGLImages bound to a renderbuffer
 * of a framebuffer object. A frame is glClear of the background and one
 * scissored glClear per rectangle: no shaders. After the frame the native
 * fence of the flush (common/egl_gbm.c) is the sync_file of the GPU job,
 * still pending on a real GPU, which the client turns into its acquire
 * point. Nothing here waits for the GPU. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <drm_fourcc.h>

#include "egl_gbm.h"
#include "renderer.h"

struct gles2_target {
	struct sw_buffer *buffer; /* NULL once the slot is free */
	struct gbm_bo *bo;
	EGLImageKHR image;
	GLuint renderbuffer, framebuffer;
};

struct gles2_renderer {
	struct sw_renderer base;
	struct sw_egl_gbm egl;
	bool modifiers; /* EGL_EXT_image_dma_buf_import_modifiers */
	struct gles2_target *targets;
	size_t n_targets;
	/* sw_renderer_gles2_busy: a scratch target and a slow shader */
	GLuint busy_texture, busy_framebuffer, busy_program, busy_vbo;
	GLint busy_seed;
	unsigned busy_jobs;

	PFNEGLCREATEIMAGEKHRPROC create_image;
	PFNEGLDESTROYIMAGEKHRPROC destroy_image;
	PFNGLEGLIMAGETARGETRENDERBUFFERSTORAGEOESPROC image_target_renderbuffer;
};

static const struct sw_renderer_impl gles2_impl;

static struct gles2_target *find_target(struct gles2_renderer *r, const struct sw_buffer *b)
{
	for (size_t i = 0; i < r->n_targets; i++)
		if (r->targets[i].buffer == b)
			return &r->targets[i];
	return NULL;
}

static void target_finish(struct gles2_renderer *r, struct gles2_target *t)
{
	if (t->framebuffer)
		glDeleteFramebuffers(1, &t->framebuffer);
	if (t->renderbuffer)
		glDeleteRenderbuffers(1, &t->renderbuffer);
	if (t->image != EGL_NO_IMAGE_KHR)
		r->destroy_image(r->egl.display, t->image);
	if (t->bo)
		gbm_bo_destroy(t->bo);
	*t = (struct gles2_target){ .image = EGL_NO_IMAGE_KHR };
}

/* A buffer object the compositor can import: one of the explicit
 * modifiers it listed for format, else linear, else implicit (INVALID). */
static struct gbm_bo *allocate(struct gles2_renderer *r, const struct sw_display *d, uint32_t format,
			       int width, int height, uint64_t *modifier)
{
	uint64_t mods[64];
	unsigned n = 0;
	bool linear = false, implicit = false;
	for (size_t i = 0; i < d->n_modifiers; i++) {
		const struct sw_display_modifier *m = &d->modifiers[i];
		if (m->format != format)
			continue;
		if (m->modifier == DRM_FORMAT_MOD_INVALID)
			implicit = true;
		else if (n < sizeof(mods) / sizeof(mods[0]))
			mods[n++] = m->modifier;
		if (m->modifier == DRM_FORMAT_MOD_LINEAR)
			linear = true;
	}
	struct gbm_bo *bo = NULL;
	if (n && r->modifiers) {
		bo = gbm_bo_create_with_modifiers2(r->egl.gbm, width, height, format, mods, n,
						   GBM_BO_USE_RENDERING);
		if (bo) {
			*modifier = gbm_bo_get_modifier(bo);
			return bo;
		}
	}
	if (linear && (bo = gbm_bo_create(r->egl.gbm, width, height, format,
					  GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR))) {
		*modifier = DRM_FORMAT_MOD_LINEAR;
		return bo;
	}
	if (implicit &&
	    (bo = gbm_bo_create(r->egl.gbm, width, height, format, GBM_BO_USE_RENDERING))) {
		*modifier = DRM_FORMAT_MOD_INVALID;
		return bo;
	}
	return NULL;
}

static struct sw_buffer *gles2_create_buffer(struct sw_renderer *base, struct sw_display *d,
					     uint32_t format, int width, int height,
					     struct sw_timeline *release, char *err, size_t err_len)
{
	struct gles2_renderer *r = (struct gles2_renderer *)base;
	struct gles2_target *t = find_target(r, NULL);
	if (!t) {
		r->targets = realloc(r->targets, (r->n_targets + 1) * sizeof(*r->targets));
		t = &r->targets[r->n_targets++];
		*t = (struct gles2_target){ .image = EGL_NO_IMAGE_KHR };
	}
	if (!d->dmabuf) {
		snprintf(err, err_len, "the compositor offers no zwp_linux_dmabuf_v1");
		return NULL;
	}
	uint64_t modifier = DRM_FORMAT_MOD_INVALID;
	t->bo = allocate(r, d, format, width, height, &modifier);
	if (!t->bo) {
		snprintf(err, err_len, "GBM cannot allocate a %dx%d buffer with a modifier the "
			 "compositor takes for format 0x%08x (%s)", width, height, format, strerror(errno));
		target_finish(r, t);
		return NULL;
	}
	if (gbm_bo_get_plane_count(t->bo) != 1) {
		snprintf(err, err_len, "GBM made a buffer of %d planes; one is all this takes",
			 gbm_bo_get_plane_count(t->bo));
		target_finish(r, t);
		return NULL;
	}
	uint32_t stride = gbm_bo_get_stride_for_plane(t->bo, 0);
	uint32_t offset = gbm_bo_get_offset(t->bo, 0);
	int fd = gbm_bo_get_fd_for_plane(t->bo, 0);
	if (fd < 0) {
		snprintf(err, err_len, "gbm_bo_get_fd_for_plane: %s", strerror(errno));
		target_finish(r, t);
		return NULL;
	}

	/* The client's own view of the same memory: an EGLImage of the dmabuf. */
	EGLint attribs[32];
	int a = 0;
	attribs[a++] = EGL_WIDTH;
	attribs[a++] = width;
	attribs[a++] = EGL_HEIGHT;
	attribs[a++] = height;
	attribs[a++] = EGL_LINUX_DRM_FOURCC_EXT;
	attribs[a++] = (EGLint)format;
	attribs[a++] = EGL_DMA_BUF_PLANE0_FD_EXT;
	attribs[a++] = fd;
	attribs[a++] = EGL_DMA_BUF_PLANE0_OFFSET_EXT;
	attribs[a++] = (EGLint)offset;
	attribs[a++] = EGL_DMA_BUF_PLANE0_PITCH_EXT;
	attribs[a++] = (EGLint)stride;
	if (modifier != DRM_FORMAT_MOD_INVALID && r->modifiers) {
		attribs[a++] = EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT;
		attribs[a++] = (EGLint)(modifier & 0xffffffff);
		attribs[a++] = EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT;
		attribs[a++] = (EGLint)(modifier >> 32);
	}
	attribs[a++] = EGL_NONE;
	t->image = r->create_image(r->egl.display, EGL_NO_CONTEXT, EGL_LINUX_DMA_BUF_EXT, NULL,
				   attribs);
	if (t->image == EGL_NO_IMAGE_KHR) {
		snprintf(err, err_len, "eglCreateImageKHR of the dmabuf failed (0x%x)", eglGetError());
		close(fd);
		target_finish(r, t);
		return NULL;
	}
	glGenRenderbuffers(1, &t->renderbuffer);
	glBindRenderbuffer(GL_RENDERBUFFER, t->renderbuffer);
	r->image_target_renderbuffer(GL_RENDERBUFFER, t->image);
	glGenFramebuffers(1, &t->framebuffer);
	glBindFramebuffer(GL_FRAMEBUFFER, t->framebuffer);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->renderbuffer);
	GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		snprintf(err, err_len, "the dmabuf's framebuffer is incomplete (0x%x)", status);
		close(fd);
		target_finish(r, t);
		return NULL;
	}

	t->buffer = sw_buffer_create_gpu(d, fd, format, modifier, offset, stride, width, height, release);
	if (!t->buffer) {
		snprintf(err, err_len, "wrapping the dmabuf: %s", strerror(errno));
		target_finish(r, t);
		return NULL;
	}
	return t->buffer;
}

static void clear(uint32_t rgb)
{
	glClearColor(((rgb >> 16) & 0xff) / 255.0f, ((rgb >> 8) & 0xff) / 255.0f, (rgb & 0xff) / 255.0f,
		     1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
}

/* Submits the commands so far; the sync_file of the job (-1 on error). */
static int flush(struct gles2_renderer *r)
{
	char err[256];
	int fd = sw_egl_gbm_flush_fence(&r->egl, err, sizeof(err));
	if (fd < 0)
		fprintf(stderr, "gles2 renderer: %s\n", err);
	return fd;
}

static bool gles2_draw(struct sw_renderer *base, const struct sw_scene *s, struct sw_buffer *b,
		       int *sync_file_fd)
{
	struct gles2_renderer *r = (struct gles2_renderer *)base;
	*sync_file_fd = -1;
	struct gles2_target *t = find_target(r, b);
	if (!t) {
		fprintf(stderr, "gles2 renderer: a buffer it did not allocate\n");
		return false;
	}
	glBindFramebuffer(GL_FRAMEBUFFER, t->framebuffer);
	glViewport(0, 0, b->width, b->height);
	glDisable(GL_SCISSOR_TEST);
	clear(s->background);
	/* Rendering into a framebuffer object, window y 0 is the first row of
	 * the buffer's memory, which the compositor shows at the top: the
	 * scene's y needs no flip. */
	glEnable(GL_SCISSOR_TEST);
	for (size_t i = 0; i < s->n; i++) {
		const struct sw_rect *q = &s->rects[i];
		glScissor(q->x, q->y, q->w, q->h);
		clear(q->rgb);
	}
	glDisable(GL_SCISSOR_TEST);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	*sync_file_fd = flush(r);
	return *sync_file_fd >= 0;
}

/* --- keeping the GPU busy ------------------------------------------------ */

#define BUSY_SIZE 256

static const char busy_vertex_source[] =
	"attribute vec2 pos;\n"
	"void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
/* A loop the compiler cannot fold: 256 dependent steps per pixel. */
static const char busy_fragment_source[] =
	"precision highp float;\n"
	"uniform float seed;\n"
	"void main() {\n"
	"	float x = fract(gl_FragCoord.x * 0.0137 + gl_FragCoord.y * 0.0071 + seed);\n"
	"	for (int i = 0; i < 256; i++)\n"
	"		x = fract(x * 1.618 + 0.31);\n"
	"	gl_FragColor = vec4(x, x, x, 1.0);\n"
	"}\n";

static bool busy_init(struct gles2_renderer *r)
{
	char err[256];
	r->busy_program =
		sw_gles2_program(busy_vertex_source, busy_fragment_source, err, sizeof(err));
	if (!r->busy_program) {
		fprintf(stderr, "gles2 renderer: %s\n", err);
		return false;
	}
	r->busy_seed = glGetUniformLocation(r->busy_program, "seed");
	static const GLfloat quad[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
	glGenBuffers(1, &r->busy_vbo);
	glBindBuffer(GL_ARRAY_BUFFER, r->busy_vbo);
	glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	glGenTextures(1, &r->busy_texture);
	glBindTexture(GL_TEXTURE_2D, r->busy_texture);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, BUSY_SIZE, BUSY_SIZE, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
	glBindTexture(GL_TEXTURE_2D, 0);
	glGenFramebuffers(1, &r->busy_framebuffer);
	glBindFramebuffer(GL_FRAMEBUFFER, r->busy_framebuffer);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->busy_texture, 0);
	GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	return status == GL_FRAMEBUFFER_COMPLETE;
}

int sw_renderer_gles2_busy(struct sw_renderer *base, int draws)
{
	if (base->impl != &gles2_impl)
		return -1;
	struct gles2_renderer *r = (struct gles2_renderer *)base;
	if (!r->busy_program && !busy_init(r))
		return -1;
	glBindFramebuffer(GL_FRAMEBUFFER, r->busy_framebuffer);
	glViewport(0, 0, BUSY_SIZE, BUSY_SIZE);
	glUseProgram(r->busy_program);
	glBindBuffer(GL_ARRAY_BUFFER, r->busy_vbo);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
	glEnableVertexAttribArray(0);
	for (int i = 0; i < draws; i++) {
		glUniform1f(r->busy_seed, (float)(r->busy_jobs++ % 1000) / 1000.0f);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	}
	glDisableVertexAttribArray(0);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	glUseProgram(0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	return flush(r);
}

static void gles2_destroy(struct sw_renderer *base)
{
	struct gles2_renderer *r = (struct gles2_renderer *)base;
	if (r->egl.context != EGL_NO_CONTEXT) {
		eglMakeCurrent(r->egl.display, EGL_NO_SURFACE, EGL_NO_SURFACE, r->egl.context);
		for (size_t i = 0; i < r->n_targets; i++)
			target_finish(r, &r->targets[i]);
		if (r->busy_program)
			glDeleteProgram(r->busy_program);
		if (r->busy_framebuffer)
			glDeleteFramebuffers(1, &r->busy_framebuffer);
		if (r->busy_texture)
			glDeleteTextures(1, &r->busy_texture);
		if (r->busy_vbo)
			glDeleteBuffers(1, &r->busy_vbo);
	}
	sw_egl_gbm_finish(&r->egl);
	free(r->targets);
	free(r);
}

static const struct sw_renderer_impl gles2_impl = {
	.name = "gles2",
	.draw = gles2_draw,
	.destroy = gles2_destroy,
	.create_buffer = gles2_create_buffer,
};

static struct sw_renderer *fail(struct gles2_renderer *r, char *err, size_t err_len, const char *fmt,
				...) __attribute__((format(printf, 4, 5)));
static struct sw_renderer *fail(struct gles2_renderer *r, char *err, size_t err_len, const char *fmt,
				...)
{
	va_list args;
	va_start(args, fmt);
	vsnprintf(err, err_len, fmt, args);
	va_end(args);
	gles2_destroy(&r->base);
	return NULL;
}

struct sw_renderer *sw_renderer_gles2_create(int drm_fd, char *err, size_t err_len)
{
	static const char *const need[] = { "EGL_KHR_image_base", "EGL_EXT_image_dma_buf_import",
					    NULL };
	struct gles2_renderer *r = calloc(1, sizeof(*r));
	r->base.impl = &gles2_impl;

	if (!sw_egl_gbm_init(&r->egl, drm_fd, need, err, err_len)) {
		gles2_destroy(&r->base);
		return NULL;
	}
	r->modifiers = sw_egl_has_extension(eglQueryString(r->egl.display, EGL_EXTENSIONS),
					    "EGL_EXT_image_dma_buf_import_modifiers");
	r->create_image = (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
	r->destroy_image = (PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
	r->image_target_renderbuffer = (PFNGLEGLIMAGETARGETRENDERBUFFERSTORAGEOESPROC)
		eglGetProcAddress("glEGLImageTargetRenderbufferStorageOES");
	if (!r->create_image || !r->destroy_image || !r->image_target_renderbuffer)
		return fail(r, err, err_len, "an EGL or GL entry point is missing");
	const char *gl_ext = (const char *)glGetString(GL_EXTENSIONS);
	if (!sw_egl_has_extension(gl_ext, "GL_OES_EGL_image"))
		return fail(r, err, err_len, "GLES2 lacks GL_OES_EGL_image");
	snprintf(r->base.description, sizeof(r->base.description), "GLES2 %s (%s)",
		 (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));
	return &r->base;
}
