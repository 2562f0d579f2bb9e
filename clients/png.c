#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png.h"

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
}

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void chunk(FILE *f, const char *type, const uint8_t *data, size_t len)
{
	uint8_t hdr[8];
	put32(hdr, (uint32_t)len);
	memcpy(hdr + 4, type, 4);
	uint32_t crc = crc_update(0xffffffffu, hdr + 4, 4);
	if (len)
		crc = crc_update(crc, data, len);
	crc ^= 0xffffffffu;
	uint8_t tail[4];
	put32(tail, crc);
	fwrite(hdr, 1, 8, f);
	if (len)
		fwrite(data, 1, len, f);
	fwrite(tail, 1, 4, f);
}

bool sw_png_write_xrgb8888(const char *path, const void *data, int width, int height, uint32_t stride)
{
	crc_init();
	/* Raw scanlines: filter byte 0, then RGB. */
	size_t row = 1 + (size_t)width * 3, raw_len = row * height;
	uint8_t *raw = malloc(raw_len);
	for (int y = 0; y < height; y++) {
		const uint8_t *src = (const uint8_t *)data + (size_t)y * stride;
		uint8_t *dst = raw + y * row;
		*dst++ = 0;
		for (int x = 0; x < width; x++) {
			*dst++ = src[4 * x + 2];
			*dst++ = src[4 * x + 1];
			*dst++ = src[4 * x + 0];
		}
	}
	/* zlib stream of stored blocks (at most 65535 bytes each). */
	size_t blocks = raw_len / 65535 + 1;
	size_t z_len = 2 + raw_len + blocks * 5 + 4;
	uint8_t *z = malloc(z_len), *p = z;
	*p++ = 0x78;
	*p++ = 0x01;
	uint32_t a = 1, b = 0;
	for (size_t off = 0; off < raw_len || off == 0;) {
		size_t n = raw_len - off > 65535 ? 65535 : raw_len - off;
		bool last = off + n == raw_len;
		*p++ = last ? 1 : 0;
		*p++ = n & 0xff;
		*p++ = n >> 8;
		*p++ = ~n & 0xff;
		*p++ = (~n >> 8) & 0xff;
		memcpy(p, raw + off, n);
		for (size_t i = 0; i < n; i++) {
			a = (a + raw[off + i]) % 65521;
			b = (b + a) % 65521;
		}
		p += n;
		off += n;
		if (last)
			break;
	}
	put32(p, b << 16 | a);
	p += 4;

	FILE *f = fopen(path, "wb");
	bool ok = f != NULL;
	if (ok) {
		static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
		uint8_t ihdr[13];
		put32(ihdr, width);
		put32(ihdr + 4, height);
		ihdr[8] = 8;  /* bit depth */
		ihdr[9] = 2;  /* truecolour */
		ihdr[10] = 0; /* deflate */
		ihdr[11] = 0; /* adaptive filtering */
		ihdr[12] = 0; /* no interlace */
		fwrite(sig, 1, 8, f);
		chunk(f, "IHDR", ihdr, sizeof(ihdr));
		chunk(f, "IDAT", z, (size_t)(p - z));
		chunk(f, "IEND", NULL, 0);
		ok = fclose(f) == 0;
	}
	free(raw);
	free(z);
	return ok;
}
