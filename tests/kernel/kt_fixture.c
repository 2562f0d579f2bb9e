/* Fixtures: n syncobjs in described states, on a fresh render-node fd. */
#include "kt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kt_spec kt_none(void) { return (struct kt_spec){ .kind = KT_NONE }; }
struct kt_spec kt_signaled(void) { return (struct kt_spec){ .kind = KT_SIGNALED }; }
struct kt_spec kt_pending(uint32_t seqno)
{
	return (struct kt_spec){ .kind = KT_PENDING, .seqno = seqno };
}
struct kt_spec kt_timeline(uint64_t sig, uint64_t pend, uint32_t seqno)
{
	return (struct kt_spec){ .kind = KT_TIMELINE, .sig = sig, .pend = pend, .seqno = seqno };
}

void kt_fix_free(struct kt_fix *f)
{
	if (f->fd > 0)
		close(f->fd);
	for (int i = 0; i <= KT_MAX_SEQNO; i++) {
		if (f->fence_fd[i] > 0)
			close(f->fence_fd[i]);
	}
	/* Closing the timeline signals what is left (with -ENOENT). */
	if (f->timeline > 0)
		close(f->timeline);
	free(f->h);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->timeline = -1;
}

static int fix_fence(struct kt_fix *f, uint32_t seqno)
{
	if (seqno == 0)
		seqno = 1;
	sw_assert_f(seqno <= KT_MAX_SEQNO, "seqno %u too large for a fixture", seqno);
	if (f->timeline <= 0)
		f->timeline = kt_sw_timeline();
	if (f->fence_fd[seqno] <= 0)
		f->fence_fd[seqno] = kt_sw_fence(f->timeline, seqno);
	return f->fence_fd[seqno];
}

void kt_fix_import_pending(struct kt_fix *f, uint32_t h, uint32_t seqno)
{
	int ret = kt_fd_to_handle(f->fd, fix_fence(f, seqno), KT_FLAG_SYNC_FILE, 0, 0, &h);

	sw_assert_f(ret == 0, "sync_file import failed: %s", kt_ret(ret));
}

void kt_fix_add_point(struct kt_fix *f, uint32_t h, uint64_t point, uint32_t seqno)
{
	uint32_t src;
	bool temp = false;
	int ret;

	if (seqno == 0) {
		if (!f->src_signaled)
			f->src_signaled = kt_create(f->fd, DRM_SYNCOBJ_CREATE_SIGNALED);
		src = f->src_signaled;
	} else {
		src = kt_create(f->fd, 0);
		kt_fix_import_pending(f, src, seqno);
		temp = true;
	}
	ret = kt_transfer(f->fd, src, 0, h, point, 0, 0);
	sw_assert_f(ret == 0, "SYNCOBJ_TRANSFER to point %llu failed: %s",
		    (unsigned long long)point, kt_ret(ret));
	if (temp)
		kt_destroy(f->fd, src);
}

static struct kt_spec spec_all(uint32_t i, uint32_t n, const void *ctx)
{
	(void)i;
	(void)n;
	return *(const struct kt_spec *)ctx;
}

void kt_fix_make_all(struct kt_fix *f, uint32_t n, struct kt_spec spec)
{
	kt_fix_make(f, n, spec_all, &spec);
}

void kt_fix_make(struct kt_fix *f, uint32_t n, kt_spec_fn spec, const void *ctx)
{
	kt_fix_free(f);
	f->fd = kt_open();
	f->n = n;
	f->h = calloc(n ? n : 1, sizeof(*f->h));
	sw_assert(f->h);
	for (uint32_t i = 0; i < n; i++) {
		struct kt_spec s = spec(i, n, ctx);

		f->h[i] = kt_create(f->fd, s.kind == KT_SIGNALED ? DRM_SYNCOBJ_CREATE_SIGNALED : 0);
		if (s.kind == KT_PENDING) {
			kt_fix_import_pending(f, f->h[i], s.seqno);
		} else if (s.kind == KT_TIMELINE) {
			if (s.sig)
				kt_fix_add_point(f, f->h[i], s.sig, 0);
			if (s.pend)
				kt_fix_add_point(f, f->h[i], s.pend, s.seqno ? s.seqno : 1);
		}
	}
}

struct kt_spec kt_spec_mixed(uint32_t i, uint32_t n, const void *ctx)
{
	(void)n;
	(void)ctx;
	switch (i % 5) {
	case 0: return kt_none();
	case 1: return kt_signaled();
	case 2: return kt_pending(1);
	case 3: return kt_timeline(5, 0, 0);
	default: return kt_timeline(5, 8, 2);
	}
}

struct kt_spec kt_spec_mixed_probed(uint32_t i, uint32_t n, const void *ctx)
{
	return kt_state_probed(n, i) ? kt_spec_mixed(i, n, ctx) : kt_none();
}

struct kt_spec kt_spec_only(uint32_t i, uint32_t n, const void *ctx)
{
	const struct kt_only *o = ctx;

	(void)n;
	return i == o->k || (o->from_k && i > o->k) ? o->at_k : o->others;
}

uint32_t *kt_handles(const struct kt_fix *f, uint32_t bad)
{
	uint32_t *h = malloc((f->n ? f->n : 1) * sizeof(*h));

	sw_assert(h);
	memcpy(h, f->h, f->n * sizeof(*h));
	if (bad < f->n)
		h[bad] = kt_unused_handle(f->fd);
	return h;
}

void kt_arr_handles(struct kt_arr *a, const struct kt_fix *f, uint32_t bad)
{
	uint32_t *h = kt_handles(f, bad);

	kt_arr_make(a, KT_PTR_OK, h, sizeof(*h), f->n, 0);
	free(h);
	if (bad < f->n)
		snprintf(a->desc, sizeof(a->desc), "bad@%u(%s)", bad, kt_pos_name(f->n, bad));
}

void kt_arr_handles_bad(struct kt_arr *a, const struct kt_fix *f, enum kt_ptr kind, uint32_t bad,
			uint32_t k)
{
	uint32_t *h = kt_handles(f, bad);
	size_t l;

	kt_arr_make(a, kind, h, sizeof(*h), f->n, k);
	free(h);
	l = kind == KT_PTR_OK ? 0 : strlen(a->desc);
	snprintf(a->desc + l, sizeof(a->desc) - l, "%sbad@%u", l ? "," : "", bad);
}

void kt_arr_same_handle(struct kt_arr *a, uint32_t handle, uint32_t n)
{
	uint32_t *h = malloc((n ? n : 1) * sizeof(*h));

	sw_assert(h);
	for (uint32_t i = 0; i < n; i++)
		h[i] = handle;
	kt_arr_make(a, KT_PTR_OK, h, sizeof(*h), n, 0);
	free(h);
	snprintf(a->desc, sizeof(a->desc), "same-handle*%u", n);
}
