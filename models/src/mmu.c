/* SPDX-License-Identifier: MIT */
/*
 * MMU: the VER2-like page-table walk (emgpu_hw.h) and the TLBs.
 *
 * Each uTLB has a direct-mapped array for 4 KiB/64 KiB translations (one
 * entry per 4 KiB page) and one for 2 MiB translations; a shared L2 TLB
 * has the same two arrays, larger. A miss looks in the L2, then walks the
 * tables by DMA (vidmem or sysmem, per the PDB/PDE aperture). Invalid
 * entries are never cached. Entries stay until invalidated through
 * TLB_INV, so a driver that changes a PTE without invalidating keeps
 * getting the old translation, as on hardware.
 */
#include <stdlib.h>

#include "internal.h"

int gm_mmu_init(struct gm_gpu *g)
{
	uint32_t i;

	g->nutlb = g->prof.num_gpcs * g->prof.utlbs_per_gpc;
	g->utlb = calloc(g->nutlb, sizeof(*g->utlb));
	if (!g->utlb)
		return -1;
	for (i = 0; i < g->nutlb; i++) {
		g->utlb[i].gpc = i / g->prof.utlbs_per_gpc;
		g->utlb[i].client = i % g->prof.utlbs_per_gpc;
	}
	return 0;
}

void gm_mmu_flush_all(struct gm_gpu *g)
{
	uint32_t i;

	g->tlb_gen += 1ull << GM_TLB_GEN_SHIFT;
	if (g->tlb_gen)
		return;	/* every entry is of an older generation now */
	/* the generation wrapped: clear for real */
	for (i = 0; i < g->nutlb; i++) {
		memset(g->utlb[i].t4k, 0, sizeof(g->utlb[i].t4k));
		memset(g->utlb[i].t2m, 0, sizeof(g->utlb[i].t2m));
	}
	memset(g->l2_4k, 0, sizeof(g->l2_4k));
	memset(g->l2_2m, 0, sizeof(g->l2_2m));
	memset(g->pde_cache, 0, sizeof(g->pde_cache));
}

/* Drops e if the page it translates overlaps [va, end). */
static void inv_entry(struct gm_tlb_entry *e, uint64_t gen,
		      unsigned int tag_shift, uint64_t va, uint64_t end)
{
	uint64_t base, size;

	if (!e->tag || (e->tag & GM_TLB_GEN_MASK) != gen)
		return;
	size = 1ull << e->shift;
	base = (((e->tag & ~GM_TLB_GEN_MASK) - 1) << tag_shift) & ~(size - 1);
	if (base < end && va < base + size)
		e->tag = 0;
}

static void inv_array(struct gm_tlb_entry *a, size_t n, uint64_t gen,
		      unsigned int shift, uint64_t va, uint64_t end)
{
	size_t i;

	for (i = 0; i < n; i++)
		inv_entry(&a[i], gen, shift, va, end);
}

void gm_mmu_invalidate(struct gm_gpu *g, uint32_t mode, uint64_t va,
		       uint64_t size)
{
	uint64_t end = va + size;
	uint32_t i;

	g->st.tlb_invalidates++;
	gm_assumed_charge(g, g->drv_thread, g->prof.tlb_invalidate_ns);
	if (gm_inject_check(g, GM_INJ_TLB_TIMEOUT, va, size)) {
		g->inv_status = EMGPU_TLB_INV_PENDING;
		gm_event(g, GM_EV_TLB_INV, mode, va, ~0ull);
		return;
	}
	g->inv_status = 0;
	gm_event(g, GM_EV_TLB_INV, mode, va, size);
	if (mode == EMGPU_TLB_INV_ALL) {
		gm_mmu_flush_all(g);
		return;
	}
	if (end < va)
		end = UINT64_MAX;
	for (i = 0; i < g->nutlb; i++) {
		inv_array(g->utlb[i].t4k, GM_UTLB_4K, g->tlb_gen,
			  EMGPU_PAGE_SHIFT, va, end);
		inv_array(g->utlb[i].t2m, GM_UTLB_2M, g->tlb_gen,
			  EMGPU_HUGE_PAGE_SHIFT, va, end);
	}
	inv_array(g->l2_4k, GM_L2TLB_4K, g->tlb_gen, EMGPU_PAGE_SHIFT, va, end);
	inv_array(g->l2_2m, GM_L2TLB_2M, g->tlb_gen, EMGPU_HUGE_PAGE_SHIFT,
		  va, end);
	inv_array(g->pde_cache, GM_PDE_CACHE, g->tlb_gen, EMGPU_HUGE_PAGE_SHIFT,
		  va, end);
}

static int entry_aperture(uint64_t e, unsigned int *ap)
{
	unsigned int a = (e & EMGPU_PTE_APERTURE_MASK) >> EMGPU_PTE_APERTURE_SHIFT;

	if (a != EMGPU_APERTURE_VIDMEM && a != EMGPU_APERTURE_SYSMEM)
		return -EMGPU_ERR_BAD_PTE;
	*ap = a;
	return 0;
}

static uint32_t leaf_flags(uint64_t e, unsigned int ap)
{
	uint32_t f = 0;

	if (ap == EMGPU_APERTURE_SYSMEM)
		f |= GM_TLB_SYSMEM;
	if (e & EMGPU_PTE_READ_ONLY)
		f |= GM_TLB_RO;
	if (e & EMGPU_PTE_ACD)
		f |= GM_TLB_ACD;
	if (e & EMGPU_PTE_ATOMIC_DISABLE)
		f |= GM_TLB_NOATOMIC;
	return f;
}

static inline int read_entry(struct gm_gpu *g, unsigned int ap,
			     uint64_t table, unsigned int idx, uint64_t *e)
{
	emgpu_pte_t raw;
	int r = gm_mem_read(g, ap, table + (uint64_t)EMGPU_PTE_SIZE * idx, &raw,
			    sizeof(raw));

	if (r)
		return r;
	*e = emgpu_le64_to_cpu(raw);
	return 0;
}

/*
 * The last level of a walk: va's entry in the PT that pde (a PD1 entry)
 * points to. Returns as gm_mmu_walk(). A walk whose page-walk cache holds
 * the PD1 entry comes straight here.
 */
static inline int walk_pt(struct gm_gpu *g, uint64_t va, uint64_t pde,
			  struct gm_tlb_entry *out)
{
	unsigned int ap, idx = (va >> EMGPU_PAGE_SHIFT) & (EMGPU_PT_ENTRIES - 1);
	uint64_t e, e0;
	int r;

	if ((pde & (EMGPU_PTE_RESERVED_MASK | EMGPU_PDE_IS_PTE | EMGPU_PTE_BIG)))
		return -EMGPU_ERR_BAD_PTE;
	r = entry_aperture(pde, &ap);
	if (r)
		return r;
	r = read_entry(g, ap, pde & EMGPU_PTE_ADDR_MASK, idx, &e);
	if (r)
		return r;
	/* a 4 KiB page, or a 64 KiB page at its group's head */
	if (!(e & EMGPU_PTE_VALID)) {
		if (!(idx & 15))
			return EMGPU_FAULT_PTE;
		r = read_entry(g, ap, pde & EMGPU_PTE_ADDR_MASK, idx & ~15u, &e0);
		if (r)
			return r;
		if (!(e0 & EMGPU_PTE_VALID) || !(e0 & EMGPU_PTE_BIG))
			return EMGPU_FAULT_PTE;
		e = e0;
		idx &= ~15u;
	}
	if (e & (EMGPU_PTE_RESERVED_MASK | EMGPU_PDE_IS_PTE))
		return -EMGPU_ERR_BAD_PTE;
	r = entry_aperture(e, &ap);
	if (r)
		return r;
	out->tag = (va >> EMGPU_PAGE_SHIFT) + 1;
	out->flags = leaf_flags(e, ap);
	if (e & EMGPU_PTE_BIG) {
		if ((idx & 15) || (e & EMGPU_PTE_ADDR_MASK &
				   ((1ull << EMGPU_BIG_PAGE_SHIFT) - 1)))
			return -EMGPU_ERR_BAD_PTE;
		out->pa = (e & EMGPU_PTE_ADDR_MASK) +
			  (va & ((1ull << EMGPU_BIG_PAGE_SHIFT) - 1) &
			   ~((1ull << EMGPU_PAGE_SHIFT) - 1));
		out->shift = EMGPU_BIG_PAGE_SHIFT;
	} else {
		out->pa = e & EMGPU_PTE_ADDR_MASK;
		out->shift = EMGPU_PAGE_SHIFT;
	}
	return 0;
}

/*
 * Walks the tables for va. Returns 0 and fills *out (tag and pa for the
 * 4 KiB page holding va, or the 2 MiB page), a positive fault type, or a
 * negative error (a malformed entry, or a table outside memory).
 */
int gm_mmu_walk(struct gm_gpu *g, uint64_t va, struct gm_tlb_entry *out)
{
	uint64_t pde = g->pdb, e, hpn = va >> EMGPU_HUGE_PAGE_SHIFT;
	struct gm_tlb_entry *pc = &g->pde_cache[hpn & (GM_PDE_CACHE - 1)];
	unsigned int level, ap, idx;
	int r;

	g->st.walks++;
	if (va >> EMGPU_VA_BITS)
		return EMGPU_FAULT_PDE;
	if (!(pde & EMGPU_PTE_VALID))
		return EMGPU_FAULT_PDE;
	if (pc->tag == ((hpn + 1) | g->tlb_gen))
		return walk_pt(g, va, pc->pa, out);	/* straight to the PT */
	for (level = 0; level < EMGPU_PT_LEVELS - 1; level++) {
		unsigned int shift = 39 - 9 * level;

		if ((pde & (EMGPU_PTE_RESERVED_MASK | EMGPU_PDE_IS_PTE |
			    EMGPU_PTE_BIG)))
			return -EMGPU_ERR_BAD_PTE;
		r = entry_aperture(pde, &ap);
		if (r)
			return r;
		idx = (va >> shift) & (EMGPU_PT_ENTRIES - 1);
		r = read_entry(g, ap, pde & EMGPU_PTE_ADDR_MASK, idx, &e);
		if (r)
			return r;
		if (!(e & EMGPU_PTE_VALID))
			return EMGPU_FAULT_PDE;
		if (level == 2 && (e & EMGPU_PDE_IS_PTE)) {
			if ((e & (EMGPU_PTE_RESERVED_MASK | EMGPU_PTE_BIG)) ||
			    (e & EMGPU_PTE_ADDR_MASK &
			     ((1ull << EMGPU_HUGE_PAGE_SHIFT) - 1)))
				return -EMGPU_ERR_BAD_PTE;
			r = entry_aperture(e, &ap);
			if (r)
				return r;
			out->tag = (va >> EMGPU_HUGE_PAGE_SHIFT) + 1;
			out->pa = e & EMGPU_PTE_ADDR_MASK;
			out->flags = leaf_flags(e, ap);
			out->shift = EMGPU_HUGE_PAGE_SHIFT;
			return 0;
		}
		pde = e;
	}
	/*
	 * The PD1 entry: cached for the next walk in its 2 MiB region. It
	 * spans the region, so a range invalidate touching any byte of it
	 * drops it (inv_entry() reads the span from shift).
	 */
	pc->tag = (hpn + 1) | g->tlb_gen;
	pc->pa = pde;
	pc->flags = 0;
	pc->shift = EMGPU_HUGE_PAGE_SHIFT;
	return walk_pt(g, va, pde, out);
}

/*
 * uTLB miss: L2 lookup, else walk; fills the L2 and the uTLB. Returns as
 * gm_mmu_walk(), with *out pointing at the uTLB entry on success.
 */
int gm_mmu_miss(struct gm_gpu *g, struct gm_utlb *u, uint64_t va,
		const struct gm_tlb_entry **out)
{
	uint64_t vpn = va >> EMGPU_PAGE_SHIFT, hpn = va >> EMGPU_HUGE_PAGE_SHIFT;
	struct gm_tlb_entry *l4 = &g->l2_4k[vpn & (GM_L2TLB_4K - 1)];
	struct gm_tlb_entry *l2 = &g->l2_2m[hpn & (GM_L2TLB_2M - 1)];
	struct gm_tlb_entry e, *dst;
	int r;

	if (va >> EMGPU_VA_BITS)
		return gm_mmu_walk(g, va, &e);	/* faults */
	if (l4->tag == ((vpn + 1) | g->tlb_gen)) {
		e = *l4;
		g->st.l2_tlb_hits++;
	} else if (l2->tag == ((hpn + 1) | g->tlb_gen)) {
		e = *l2;
		g->st.l2_tlb_hits++;
	} else {
		r = gm_mmu_walk(g, va, &e);
		if (r)
			return r;
		e.tag |= g->tlb_gen;
		*(e.shift == EMGPU_HUGE_PAGE_SHIFT ? l2 : l4) = e;
	}
	if (e.shift == EMGPU_HUGE_PAGE_SHIFT)
		dst = &u->t2m[hpn & (GM_UTLB_2M - 1)];
	else
		dst = &u->t4k[vpn & (GM_UTLB_4K - 1)];
	*dst = e;
	*out = dst;
	return 0;
}

int gm_translate(struct gm_gpu *g, unsigned int utlb, uint64_t va,
		 unsigned int access, unsigned int *aperture, uint64_t *pa)
{
	const struct gm_tlb_entry *e;
	struct gm_utlb *u;
	int r;

	if (utlb >= g->nutlb)
		return -EMGPU_ERR_BAD_VALUE;
	u = &g->utlb[utlb];
	r = gm_mmu_lookup(g, u, va, &e);
	if (r)
		return r;
	if ((access == EMGPU_ACCESS_WRITE || access == EMGPU_ACCESS_ATOMIC) &&
	    (e->flags & GM_TLB_RO))
		return EMGPU_FAULT_RO_VIOLATION;
	if (access == EMGPU_ACCESS_ATOMIC && (e->flags & GM_TLB_NOATOMIC))
		return EMGPU_FAULT_ATOMIC_VIOLATION;
	*aperture = e->flags & GM_TLB_SYSMEM ? EMGPU_APERTURE_SYSMEM
					     : EMGPU_APERTURE_VIDMEM;
	*pa = e->pa + (va & ((1ull << (e->shift == EMGPU_HUGE_PAGE_SHIFT ?
					EMGPU_HUGE_PAGE_SHIFT : EMGPU_PAGE_SHIFT)) - 1));
	return 0;
}
