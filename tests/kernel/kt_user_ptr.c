/* User pointers the kernel must reject: unmapped, kernel, read-only and
 * arrays that fault part way. */
#include "kt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

void kt_fault_make(struct kt_fault *fa, size_t elem, uint32_t count, uint32_t k, bool split)
{
	size_t ps = page_size();
	size_t before = (size_t)k * elem + (split ? elem / 2 : 0);
	size_t total = (size_t)count * elem;
	size_t pre = (before + ps - 1) / ps;
	size_t post = (total - before + ps - 1) / ps + 1;

	if (pre == 0)
		pre = 1;
	fa->map_len = (pre + post) * ps;
	fa->map = mmap(NULL, fa->map_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sw_assert_f(fa->map != MAP_FAILED, "mmap: %m");
	sw_assert_f(mprotect((char *)fa->map + pre * ps, post * ps, PROT_NONE) == 0,
		    "mprotect: %m");
	fa->array = (char *)fa->map + pre * ps - before;
	fa->readable = before;
}

void kt_fault_fill(struct kt_fault *fa, const void *src, size_t len)
{
	memcpy(fa->array, src, len < fa->readable ? len : fa->readable);
}

void kt_fault_free(struct kt_fault *fa)
{
	if (fa->map && fa->map != MAP_FAILED)
		munmap(fa->map, fa->map_len);
	memset(fa, 0, sizeof(*fa));
}

uint64_t kt_unmapped_address(void)
{
	size_t ps = page_size();
	void *p = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	sw_assert_f(p != MAP_FAILED, "mmap: %m");
	munmap(p, 4 * ps);
	return (uint64_t)(uintptr_t)p + ps;
}

void *kt_readonly_copy(const void *src, size_t len)
{
	size_t ps = page_size();
	size_t mlen = (len + ps - 1) / ps * ps;
	void *p = mmap(NULL, mlen ? mlen : ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	sw_assert_f(p != MAP_FAILED, "mmap: %m");
	memcpy(p, src, len);
	sw_assert_f(mprotect(p, mlen ? mlen : ps, PROT_READ) == 0, "mprotect: %m");
	return p;
}

void kt_readonly_free(void *p, size_t len)
{
	size_t ps = page_size();
	size_t mlen = (len + ps - 1) / ps * ps;
	munmap(p, mlen ? mlen : ps);
}

void kt_arr_make(struct kt_arr *a, enum kt_ptr kind, const void *data, size_t elem,
		 uint32_t n, uint32_t k)
{
	size_t len = (size_t)n * elem;

	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->elem = elem;
	a->n = n;
	switch (kind) {
	case KT_PTR_OK:
		a->buf = malloc(len ? len : 1);
		sw_assert(a->buf);
		memcpy(a->buf, data, len);
		a->ptr = (uintptr_t)a->buf;
		snprintf(a->desc, sizeof(a->desc), "ok");
		break;
	case KT_PTR_NULL:
		snprintf(a->desc, sizeof(a->desc), "null");
		break;
	case KT_PTR_UNMAPPED:
		a->ptr = kt_unmapped_address();
		snprintf(a->desc, sizeof(a->desc), "unmapped");
		break;
	case KT_PTR_KERNEL:
		a->ptr = KT_KERNEL_ADDRESS;
		snprintf(a->desc, sizeof(a->desc), "kernel");
		break;
	case KT_PTR_READONLY:
		a->buf = kt_readonly_copy(data, len);
		a->ptr = (uintptr_t)a->buf;
		snprintf(a->desc, sizeof(a->desc), "readonly");
		break;
	case KT_PTR_FAULT:
	case KT_PTR_FAULT_SPLIT:
		kt_fault_make(&a->fa, elem, n, k, kind == KT_PTR_FAULT_SPLIT);
		kt_fault_fill(&a->fa, data, len);
		a->ptr = (uintptr_t)a->fa.array;
		snprintf(a->desc, sizeof(a->desc), "fault@%u(%s)%s", k, kt_pos_name(n, k),
			 kind == KT_PTR_FAULT_SPLIT ? "+split" : "");
		break;
	case KT_PTR_UNALIGNED:
		a->buf = malloc(len + 1);
		sw_assert(a->buf);
		memcpy((char *)a->buf + 1, data, len);
		a->ptr = (uintptr_t)a->buf + 1;
		snprintf(a->desc, sizeof(a->desc), "unaligned");
		break;
	}
}

void *kt_arr_data(const struct kt_arr *a)
{
	switch (a->kind) {
	case KT_PTR_OK:
	case KT_PTR_READONLY:
		return a->buf;
	case KT_PTR_FAULT:
	case KT_PTR_FAULT_SPLIT:
		return a->fa.array;
	case KT_PTR_UNALIGNED:
		return (char *)a->buf + 1;
	default:
		return NULL;
	}
}

uint32_t kt_arr_readable(const struct kt_arr *a)
{
	switch (a->kind) {
	case KT_PTR_OK:
	case KT_PTR_READONLY:
	case KT_PTR_UNALIGNED:
		return a->n;
	case KT_PTR_FAULT:
	case KT_PTR_FAULT_SPLIT:
		return (uint32_t)(a->fa.readable / a->elem);
	default:
		return 0;
	}
}

void kt_arr_free(struct kt_arr *a)
{
	if (a->kind == KT_PTR_OK || a->kind == KT_PTR_UNALIGNED)
		free(a->buf);
	else if (a->kind == KT_PTR_READONLY && a->buf)
		kt_readonly_free(a->buf, (size_t)a->n * a->elem);
	kt_fault_free(&a->fa);
	memset(a, 0, sizeof(*a));
}

void kt_ptr_iter_init(struct kt_ptr_iter *it, enum kt_ptr first, enum kt_ptr last, uint32_t n,
		      bool readonly)
{
	memset(it, 0, sizeof(*it));
	it->kind = first;
	it->last = last;
	it->readonly = readonly;
	it->npos = kt_positions(n, it->pos);
}

bool kt_ptr_iter_next(struct kt_ptr_iter *it)
{
	if (it->started)
		it->p++;
	it->started = true;
	for (;;) {
		bool fault = it->kind == KT_PTR_FAULT || it->kind == KT_PTR_FAULT_SPLIT;

		if (it->kind > it->last)
			return false;
		if (it->p < (fault ? it->npos : 1) &&
		    (it->readonly || it->kind != KT_PTR_READONLY)) {
			it->k = fault ? it->pos[it->p] : 0;
			return true;
		}
		it->kind = (enum kt_ptr)(it->kind + 1);
		it->p = 0;
	}
}
