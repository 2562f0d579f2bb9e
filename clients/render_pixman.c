/* The CPU renderer: pixman fills straight into the mapped buffer. */
#include <pixman.h>
#include <stdio.h>
#include <stdlib.h>

#include "renderer.h"

struct pixman_renderer {
	struct sw_renderer base;
	pixman_box32_t *boxes;
	size_t cap;
};

static pixman_color_t colour(uint32_t rgb)
{
	return (pixman_color_t){
		.red = ((rgb >> 16) & 0xff) * 0x101,
		.green = ((rgb >> 8) & 0xff) * 0x101,
		.blue = (rgb & 0xff) * 0x101,
		.alpha = 0xffff,
	};
}

static bool pixman_draw(struct sw_renderer *base, const struct sw_scene *s, struct sw_buffer *b,
			int *sync_file_fd)
{
	struct pixman_renderer *r = (struct pixman_renderer *)base;
	*sync_file_fd = -1; /* done on return */
	pixman_image_t *img = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8, b->width, b->height,
								 b->data, b->stride);
	if (!img)
		return false;
	pixman_color_t bg = colour(s->background);
	pixman_box32_t all = { 0, 0, b->width, b->height };
	pixman_image_fill_boxes(PIXMAN_OP_SRC, img, &bg, 1, &all);
	if (r->cap < s->n) {
		r->cap = s->n;
		r->boxes = realloc(r->boxes, r->cap * sizeof(*r->boxes));
	}
	/* One fill per run of rectangles of the same colour. */
	size_t i = 0;
	while (i < s->n) {
		size_t n = 0;
		uint32_t rgb = s->rects[i].rgb;
		for (; i < s->n && s->rects[i].rgb == rgb; i++, n++) {
			const struct sw_rect *q = &s->rects[i];
			r->boxes[n] = (pixman_box32_t){ q->x, q->y, q->x + q->w, q->y + q->h };
		}
		pixman_color_t c = colour(rgb);
		pixman_image_fill_boxes(PIXMAN_OP_SRC, img, &c, n, r->boxes);
	}
	pixman_image_unref(img);
	return true;
}

static void pixman_destroy(struct sw_renderer *base)
{
	struct pixman_renderer *r = (struct pixman_renderer *)base;
	free(r->boxes);
	free(r);
}

static const struct sw_renderer_impl pixman_impl = {
	.name = "pixman",
	.draw = pixman_draw,
	.destroy = pixman_destroy,
};

struct sw_renderer *sw_renderer_pixman_create(char *err, size_t err_len)
{
	struct pixman_renderer *r = calloc(1, sizeof(*r));
	r->base.impl = &pixman_impl;
	snprintf(r->base.description, sizeof(r->base.description), "pixman %s (CPU)",
		 pixman_version_string());
	return &r->base;
}
