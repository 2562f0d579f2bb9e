/* Three gears as horizontal spans and tooth squares: crude next to
 * glxgears' polygons, but the same for every renderer and cheap to fill. */
#include <math.h>
#include <stdlib.h>

#include "renderer.h"

static void add_rect(struct sw_scene *s, double x, double y, double w, double h, uint32_t rgb)
{
	int32_t x0 = (int32_t)lround(x), y0 = (int32_t)lround(y);
	int32_t x1 = (int32_t)lround(x + w), y1 = (int32_t)lround(y + h);
	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	if (x1 > s->width)
		x1 = s->width;
	if (y1 > s->height)
		y1 = s->height;
	if (x1 <= x0 || y1 <= y0)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 512;
		s->rects = realloc(s->rects, s->cap * sizeof(*s->rects));
	}
	s->rects[s->n++] = (struct sw_rect){ x0, y0, x1 - x0, y1 - y0, rgb };
}

/* A ring of inner radius r0 and outer r1 (pixels) around (cx, cy), drawn
 * in bands; then teeth squares between r1 and r2. */
static void add_gear(struct sw_scene *s, double cx, double cy, double r0, double r1, double r2,
		     int teeth, double angle_deg, uint32_t rgb)
{
	double band = fmax(1.0, r1 / 40.0);
	for (double dy = -r1; dy < r1; dy += band) {
		double yc = dy + band / 2;
		double half = sqrt(fmax(0.0, r1 * r1 - yc * yc));
		if (fabs(yc) < r0) {
			/* Two spans either side of the hole. */
			double hole = sqrt(r0 * r0 - yc * yc);
			add_rect(s, cx - half, cy + dy, half - hole, band, rgb);
			add_rect(s, cx + hole, cy + dy, half - hole, band, rgb);
		} else {
			add_rect(s, cx - half, cy + dy, 2 * half, band, rgb);
		}
	}
	double tooth = fmax(2.0, 2.0 * M_PI * r1 / (teeth * 2.5));
	for (int i = 0; i < teeth; i++) {
		double a = (angle_deg * M_PI / 180.0) + 2.0 * M_PI * i / teeth;
		for (double r = r1 - tooth / 2; r < r2; r += tooth / 2) {
			double x = cx + r * cos(a), y = cy - r * sin(a);
			add_rect(s, x - tooth / 2, y - tooth / 2, tooth, tooth, rgb);
		}
	}
}

void sw_scene_build(struct sw_scene *s, int width, int height, double angle)
{
	s->width = width;
	s->height = height;
	s->n = 0;
	s->background = 0x101020;
	/* glxgears' world: about [-7, 7] in both directions. */
	double scale = fmin(width, height) / 15.0;
	/* Centre of the three gears: (-0.95, 0.1). */
	double ox = width / 2.0 + 0.95 * scale, oy = height / 2.0 + 0.1 * scale;
#define G(x, y) ox + (x) * scale, oy - (y) * scale
	add_gear(s, G(-3.0, -2.0), 1.0 * scale, 4.0 * scale, 4.7 * scale, 20, angle, 0xcc1a0d);
	add_gear(s, G(3.1, -2.0), 0.5 * scale, 2.0 * scale, 2.7 * scale, 10, -2.0 * angle - 9.0, 0x00cc33);
	add_gear(s, G(-3.1, 4.2), 1.3 * scale, 2.0 * scale, 2.7 * scale, 10, -2.0 * angle - 25.0, 0x3333ff);
#undef G
}

void sw_scene_finish(struct sw_scene *s)
{
	free(s->rects);
	s->rects = NULL;
	s->n = s->cap = 0;
}
