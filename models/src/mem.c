/* SPDX-License-Identifier: MIT */
/*
 * Memory: VRAM backing store and sysmem through the embedder's DMA.
 *
 * VRAM is host memory allocated lazily, one 2 MiB chunk on its first
 * write (reads of an untouched chunk return zeros without allocating), so
 * a full-size h200 profile (141 GiB) costs only what is touched, up to the
 * embedder's cap (gm_config's vram_backing_max): a write that would pass
 * it is refused whole, before any byte moves. A chunk
 * may be poisoned by fault injection: reads of it fail with
 * EMGPU_ERR_POISON, writes succeed.
 *
 * A chunk is its own 2 MiB-aligned anonymous mapping, advised for a
 * transparent huge page: the first write costs one page fault instead of
 * 512, and the kernel hands it over zeroed.
 */
#define _DEFAULT_SOURCE		/* MAP_ANONYMOUS, madvise */
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

static uint8_t *chunk_alloc(void)
{
	/* map twice the size, keep the aligned middle */
	uint8_t *p = mmap(NULL, 2 * GM_CHUNK_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t head;

	if (p == MAP_FAILED)
		return NULL;
	head = (GM_CHUNK_SIZE - ((uintptr_t)p & (GM_CHUNK_SIZE - 1))) & (GM_CHUNK_SIZE - 1);
	if (head)
		munmap(p, head);
	munmap(p + head + GM_CHUNK_SIZE, GM_CHUNK_SIZE - head);
	p += head;
#ifdef MADV_HUGEPAGE
	madvise(p, GM_CHUNK_SIZE, MADV_HUGEPAGE);
#endif
	return p;
}

int gm_mem_init(struct gm_gpu *g)
{
	g->nchunks = g->prof.vram_bytes >> GM_CHUNK_SHIFT;
	g->vram = calloc(g->nchunks, sizeof(*g->vram));
	g->chunk_poison = calloc(g->nchunks, 1);
	g->chunk_ready = calloc(g->nchunks, sizeof(*g->chunk_ready));
	return g->vram && g->chunk_poison && g->chunk_ready ? 0 : -1;
}

void gm_mem_fini(struct gm_gpu *g)
{
	uint64_t i;

	if (g->vram)
		for (i = 0; i < g->nchunks; i++)
			if (g->vram[i])
				munmap(g->vram[i], GM_CHUNK_SIZE);
	g->vram_chunks = 0;
	free(g->vram);
	free(g->chunk_poison);
	free(g->chunk_ready);
	g->chunk_ready = NULL;
	g->vram = NULL;
	g->chunk_poison = NULL;
}

static int vram_range_ok(const struct gm_gpu *g, uint64_t pa, uint64_t len)
{
	return pa + len >= pa && pa + len <= g->prof.vram_bytes;
}

int gm_vram_read(struct gm_gpu *g, uint64_t pa, void *buf, uint64_t len)
{
	uint8_t *out = buf;

	if (!vram_range_ok(g, pa, len))
		return -EMGPU_ERR_VRAM_RANGE;
	while (len) {
		uint64_t c = pa >> GM_CHUNK_SHIFT, off = pa & (GM_CHUNK_SIZE - 1);
		uint64_t n = GM_CHUNK_SIZE - off;

		if (n > len)
			n = len;
		if (g->chunk_poison[c]) {
			gm_inject_poison_hit(g, pa);
			return -EMGPU_ERR_POISON;
		}
		if (g->vram[c])
			memcpy(out, g->vram[c] + off, n);
		else
			memset(out, 0, n);
		out += n;
		pa += n;
		len -= n;
	}
	return 0;
}

/* Whether the chunks [pa, pa + len) lacks fit under the cap. */
static int backing_ok(const struct gm_gpu *g, uint64_t pa, uint64_t len)
{
	uint64_t c, last, missing = 0;

	if (!g->vram_chunks_max || !len)
		return 1;
	last = (pa + len - 1) >> GM_CHUNK_SHIFT;
	for (c = pa >> GM_CHUNK_SHIFT; c <= last; c++)
		missing += !g->vram[c];
	return missing <= g->vram_chunks_max - g->vram_chunks;
}

int gm_vram_write(struct gm_gpu *g, uint64_t pa, const void *buf,
		  uint64_t len)
{
	const uint8_t *in = buf;

	if (!vram_range_ok(g, pa, len))
		return -EMGPU_ERR_VRAM_RANGE;
	if (!backing_ok(g, pa, len))
		return -EMGPU_ERR_VRAM_BACKING;
	while (len) {
		uint64_t c = pa >> GM_CHUNK_SHIFT, off = pa & (GM_CHUNK_SIZE - 1);
		uint64_t n = GM_CHUNK_SIZE - off;

		if (n > len)
			n = len;
		if (!g->vram[c]) {
			g->vram[c] = chunk_alloc();
			if (!g->vram[c])
				return -EMGPU_ERR_VRAM_BACKING;
			g->vram_chunks++;
		}
		memcpy(g->vram[c] + off, in, n);
		in += n;
		pa += n;
		len -= n;
	}
	return 0;
}

int gm_mem_write(struct gm_gpu *g, unsigned int aperture, uint64_t pa,
		 const void *buf, uint64_t len)
{
	if (aperture == EMGPU_APERTURE_VIDMEM)
		return gm_vram_write(g, pa, buf, len);
	if (aperture == EMGPU_APERTURE_SYSMEM)
		return gm_dma_write(g, pa, buf, len);
	return -EMGPU_ERR_BAD_VALUE;
}
