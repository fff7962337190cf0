/* SPDX-License-Identifier: MIT */
/*
 * Test helpers for programs that drive the emgpu the way a driver would:
 * the unit tests (tests/unit), the qtest (tests/qtest, built inside QEMU's
 * tree), the fuzzer (tests/fuzz) and the benchmark (models/bench). The
 * library itself never uses them. Header-only, so that the qtest needs no
 * build change to use them.
 *
 *  - struct gmt_flat: guest RAM as one flat buffer, with DMA functions of
 *    the shape struct gm_callbacks wants;
 *  - struct gmt_pt: page tables in any memory the caller can read and
 *    write (a flat buffer, VRAM, QEMU's guest RAM), allocated from a pool
 *    in the order a walk needs them, entries little-endian;
 *  - encoders of copy and launch descriptors.
 */
#ifndef GPUMODEL_TESTLIB_H
#define GPUMODEL_TESTLIB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emgpu_hw.h"

/* ---- flat guest RAM: bus address == offset into mem ---- */

struct gmt_flat {
	uint8_t *mem;
	uint64_t size;
	int fail;		/* set: every DMA fails (a bad IOMMU mapping) */
};

static inline int gmt_flat_dma_read(void *opaque, uint64_t addr, void *buf,
				    uint64_t len)
{
	struct gmt_flat *f = opaque;

	if (f->fail || addr >= f->size || len > f->size - addr)
		return -1;
	memcpy(buf, f->mem + addr, len);
	return 0;
}

static inline int gmt_flat_dma_write(void *opaque, uint64_t addr,
				     const void *buf, uint64_t len)
{
	struct gmt_flat *f = opaque;

	if (f->fail || addr >= f->size || len > f->size - addr)
		return -1;
	memcpy(f->mem + addr, buf, len);
	return 0;
}

/* ---- page tables ---- */

struct gmt_pt {
	/* the memory holding the tables; set by the user */
	void *opaque;
	void (*read)(void *opaque, uint64_t addr, void *buf, uint64_t len);
	void (*write)(void *opaque, uint64_t addr, const void *buf,
		      uint64_t len);
	unsigned int aperture;	/* enum emgpu_aperture of that memory */
	/* derived */
	uint64_t root;		/* the PD3 */
	uint64_t next, end;	/* pool of free 4 KiB tables */
};

/* The next table of the pool, zeroed; aborts when the pool is used up. */
static inline uint64_t gmt_pt_alloc(struct gmt_pt *pt)
{
	static const uint8_t zero[EMGPU_PT_ENTRIES * EMGPU_PTE_SIZE];
	uint64_t t = pt->next;

	if (t + sizeof(zero) > pt->end)
		abort();
	pt->next += sizeof(zero);
	pt->write(pt->opaque, t, zero, sizeof(zero));
	return t;
}

/* Takes [pool, pool + pool_size) for tables; the root is the first. */
static inline void gmt_pt_init(struct gmt_pt *pt, uint64_t pool,
			       uint64_t pool_size)
{
	pt->next = pool;
	pt->end = pool + pool_size;
	pt->root = gmt_pt_alloc(pt);
}

/* A directory entry for `table` in the tables' memory. */
static inline uint64_t gmt_pt_pde(const struct gmt_pt *pt, uint64_t table)
{
	return emgpu_pte_encode(pt->aperture, table, 0);
}

/* The value for PDB: the root directory. */
static inline uint64_t gmt_pt_pdb(const struct gmt_pt *pt)
{
	return gmt_pt_pde(pt, pt->root);
}

static inline uint64_t gmt_pt_read(struct gmt_pt *pt, uint64_t addr)
{
	emgpu_pte_t e;

	pt->read(pt->opaque, addr, &e, sizeof(e));
	return emgpu_le64_to_cpu(e);
}

static inline void gmt_pt_write(struct gmt_pt *pt, uint64_t addr, uint64_t v)
{
	emgpu_pte_t e = emgpu_cpu_to_le64(v);

	pt->write(pt->opaque, addr, &e, sizeof(e));
}

/*
 * Address of the entry mapping va with pages of 1 << shift: the PD1 entry
 * for 2 MiB pages, else the PT entry. Missing directories are allocated.
 */
static inline uint64_t gmt_pt_slot(struct gmt_pt *pt, uint64_t va,
				   unsigned int shift)
{
	uint64_t table = pt->root, a, e;
	unsigned int level;

	for (level = 0; level < EMGPU_PT_LEVELS - 1; level++) {
		a = table + EMGPU_PTE_SIZE *
			    ((va >> (39 - 9 * level)) & (EMGPU_PT_ENTRIES - 1));
		if (level == EMGPU_PT_LEVELS - 2 && shift == EMGPU_HUGE_PAGE_SHIFT)
			return a;
		e = gmt_pt_read(pt, a);
		if (!(e & EMGPU_PTE_VALID)) {
			e = gmt_pt_pde(pt, gmt_pt_alloc(pt));
			gmt_pt_write(pt, a, e);
		}
		table = e & EMGPU_PTE_ADDR_MASK;
	}
	return table + EMGPU_PTE_SIZE *
		       ((va >> EMGPU_PAGE_SHIFT) & (EMGPU_PT_ENTRIES - 1));
}

/* Writes a raw entry (CPU order) into the slot for va. */
static inline void gmt_pt_set(struct gmt_pt *pt, uint64_t va,
			      unsigned int shift, uint64_t entry)
{
	gmt_pt_write(pt, gmt_pt_slot(pt, va, shift), entry);
}

/*
 * Maps the page of 1 << shift bytes (12, 16 or 21) at va to pa in
 * `aperture`, with extra EMGPU_PTE_* bits.
 */
static inline void gmt_pt_map(struct gmt_pt *pt, uint64_t va,
			      unsigned int aperture, uint64_t pa,
			      unsigned int shift, uint64_t extra)
{
	if (shift == EMGPU_HUGE_PAGE_SHIFT)
		extra |= EMGPU_PDE_IS_PTE;
	else if (shift == EMGPU_BIG_PAGE_SHIFT)
		extra |= EMGPU_PTE_BIG;
	gmt_pt_set(pt, va, shift, emgpu_pte_encode(aperture, pa, extra));
}

/* ---- descriptors ---- */

static inline uint32_t gmt_ce_flags(unsigned int src_aperture,
				    unsigned int dst_aperture)
{
	return src_aperture << EMGPU_CE_SRC_APERTURE_SHIFT |
	       dst_aperture << EMGPU_CE_DST_APERTURE_SHIFT;
}

static inline struct emgpu_ce_desc gmt_ce_desc(uint32_t op, uint32_t flags,
					       uint64_t src, uint64_t dst,
					       uint32_t length, uint32_t payload)
{
	struct emgpu_ce_desc d;

	d.op = emgpu_cpu_to_le32(op);
	d.flags = emgpu_cpu_to_le32(flags);
	d.src = emgpu_cpu_to_le64(src);
	d.dst = emgpu_cpu_to_le64(dst);
	d.length = emgpu_cpu_to_le32(length);
	d.payload = emgpu_cpu_to_le32(payload);
	return d;
}

/* args[0 .. nargs - 1]; the other arguments are 0. */
static inline struct emgpu_launch_desc
gmt_launch_desc(uint32_t kernel, uint32_t warps, uint64_t seed,
		const uint64_t *args, unsigned int nargs)
{
	struct emgpu_launch_desc d;
	unsigned int i;

	d.kernel = emgpu_cpu_to_le32(kernel);
	d.warps = emgpu_cpu_to_le32(warps);
	d.seed = emgpu_cpu_to_le64(seed);
	for (i = 0; i < EMGPU_LAUNCH_MAX_ARGS; i++)
		d.args[i] = emgpu_cpu_to_le64(i < nargs ? args[i] : 0);
	return d;
}

#endif /* GPUMODEL_TESTLIB_H */
