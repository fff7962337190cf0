/* SPDX-License-Identifier: MIT */
/*
 * GH100 personality: the MMU VER3 walk (include/gh100/mmu_v3.h), filling
 * GA10x's TLB (../ga10x/mmu.c caches, checks permissions and serves
 * invalidates for both architectures).
 *
 * The walk reads PDE4, PDE3, PDE2, PDE1 (or a 512 MiB PTE there), the
 * PDE0 dual entry (or a 2 MiB PTE in its low word), then the big-page
 * table and, when the big PTE is INVALID (PCF 0), the 4 KiB table of the
 * same PDE0 entry. Each table is read in the aperture its parent names.
 *
 * Sparse: a PDE whose aperture is INVALID with its PCF's sparse bit set
 * makes its whole range sparse, cached as 512 MiB pieces above PDE0; a
 * dual PDE's big half so marked makes its 2 MiB sparse (the pattern of
 * nvidia-uvm's sparse 2 MiB PTE), its small half makes each 4 KiB page
 * sparse that no big PTE maps; a PTE with VALID clear and PCF SPARSE is a
 * sparse page of its size.
 *
 * Modelling choices where the hwref and nvidia-uvm do not pin the hardware
 * down (GA10x's where they apply): a big PTE with VALID clear and any PCF
 * but INVALID or SPARSE (NO_VALID_4KB_PAGE, MAPPING_NOWHERE, a reserved
 * value) faults as PTE without reading the 4 KiB entry; a 4 KiB, 2 MiB or
 * 512 MiB PTE with VALID clear faults as PTE unless SPARSE; a missing
 * table faults as PDE; a PTE at PDE4/PDE3/PDE2, a PEER aperture (no peers
 * here) and a large page whose address is not aligned to its size are
 * malformed (EMGPU_ERR_BAD_PTE); KIND is not checked; PDE PCF's cached and
 * ATS bits change nothing (no L2 model, no ATS).
 */
#include "../internal.h"
#include "gh100.h"
#include "ga10x/mmu_v2.h"
#include "gh100/mmu_v3.h"

static unsigned int pde_mem(unsigned int pde_ap)
{
	return pde_ap == GH100_PDE_APERTURE_VIDEO ? EMGPU_APERTURE_VIDMEM
						  : EMGPU_APERTURE_SYSMEM;
}

static int fault(unsigned int *ft, unsigned int type)
{
	*ft = type;
	return GA10X_XLATE_FAULT;
}

/* A sparse translation of va's page of 1 << shift. */
static int sparse(struct ga10x_tlb_entry *t, uint64_t va, unsigned int shift)
{
	t->page_shift = (uint8_t)shift;
	t->vpn = va >> shift;
	t->flags = GA10X_TLB_SPARSE;
	return 0;
}

/* Whether a PDE (or a dual PDE's half) with aperture INVALID is sparse. */
static int pde_sparse(uint64_t e)
{
	return !!(gh100_pde_pcf(e) & GH100_PDE_PCF_SPARSE);
}

/*
 * The PTE e for a page of 1 << shift holding va: fills *t (valid or
 * sparse), or reports a PTE fault for any other invalid state.
 */
static int walk_leaf(struct gm_gpu *g, uint64_t e, uint64_t va,
		     unsigned int shift, struct ga10x_tlb_entry *t,
		     unsigned int *ft)
{
	unsigned int ap, pcf = gh100_pte_pcf(e);

	if (!(e & GH100_PTE_VALID)) {
		if (pcf == GH100_PTE_PCF_SPARSE)
			return sparse(t, va, shift);
		return fault(ft, GA10X_MMU_FAULT_PTE);
	}
	t->page_shift = (uint8_t)shift;
	t->vpn = va >> shift;
	ap = gh100_pte_aperture(e);
	if (ap == GH100_PTE_APERTURE_PEER)
		return ga10x_mmu_bad_pte(g, va);
	/* the address bits below the page size are ignored (ga10x/mmu.c) */
	t->pa = gh100_pte_address(e) & ~((1ull << shift) - 1);
	t->aperture = ap == GH100_PTE_APERTURE_VIDEO ? EMGPU_APERTURE_VIDMEM
						     : EMGPU_APERTURE_SYSMEM;
	t->flags = (pcf & GH100_PTE_PCF_READ_ONLY ? GA10X_TLB_RO : 0) |
		   (pcf & GH100_PTE_PCF_NO_ATOMIC ? GA10X_TLB_NOATOMIC : 0) |
		   (pcf & GH100_PTE_PCF_UNCACHED ? GA10X_TLB_VOL : 0) |
		   (pcf & GH100_PTE_PCF_PRIVILEGE ? GA10X_TLB_PRIV : 0) |
		   (pcf & GH100_PTE_PCF_ACD ? GA10X_TLB_ACD : 0);
	return 0;
}

/* The dual PDE0 entry pd0 for va: a 2 MiB PTE, or its big and 4 KiB tables. */
static int walk_pde0(struct gm_gpu *g, const uint64_t pd0[2], uint64_t va,
		     struct ga10x_tlb_entry *t, unsigned int *ft)
{
	unsigned int big_ap, small_ap, idx;
	uint64_t e;
	int r;

	if (pd0[0] & GH100_DUAL_PDE_IS_PTE)	/* a 2 MiB PTE, low word */
		return walk_leaf(g, pd0[0], va, GH100_PAGE_2M_SHIFT, t, ft);
	big_ap = gh100_pde_aperture(pd0[0]);
	small_ap = gh100_pde_aperture(pd0[1]);

	if (big_ap != GH100_PDE_APERTURE_INVALID) {
		idx = (unsigned int)(va >> GH100_PT_BIG_SHIFT) &
		      (GH100_PT_BIG_ENTRIES - 1);
		r = ga10x_mmu_read(g, pde_mem(big_ap),
				   gh100_dual_pde_big_address(pd0[0]) +
				   (uint64_t)idx * GH100_PTE_SIZE, &e, 1);
		if (r)
			return r;
		if ((e & GH100_PTE_VALID) ||
		    gh100_pte_pcf(e) != GH100_PTE_PCF_INVALID)
			return walk_leaf(g, e, va, GH100_PAGE_64K_SHIFT, t, ft);
		/* INVALID: the 4 KiB table decides */
	} else if (pde_sparse(pd0[0])) {
		return sparse(t, va, GH100_PAGE_2M_SHIFT);
	}
	if (small_ap == GH100_PDE_APERTURE_INVALID) {
		if (pde_sparse(pd0[1]))
			return sparse(t, va, GH100_PAGE_4K_SHIFT);
		return fault(ft, GA10X_MMU_FAULT_PDE);
	}
	idx = (unsigned int)(va >> GH100_PT_4K_SHIFT) & (GH100_PT_4K_ENTRIES - 1);
	r = ga10x_mmu_read(g, pde_mem(small_ap), gh100_pde_address(pd0[1]) +
			   (uint64_t)idx * GH100_PTE_SIZE, &e, 1);
	if (r)
		return r;
	return walk_leaf(g, e, va, GH100_PAGE_4K_SHIFT, t, ft);
}

int gh100_mmu_walk_v3(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		      struct ga10x_tlb_entry *t, unsigned int *ft)
{
	static const struct {
		unsigned int shift, entries;
	} level[] = {
		{ GH100_PDE4_SHIFT, GH100_PDE4_ENTRIES },
		{ GH100_PDE3_SHIFT, GH100_PDE3_ENTRIES },
		{ GH100_PDE2_SHIFT, GH100_PDE2_ENTRIES },
		{ GH100_PDE1_SHIFT, GH100_PDE1_ENTRIES },
	};
	const unsigned int pde1 = 3;
	unsigned int i, ap, idx;
	uint64_t table, e, pd0[2];
	int r;

	r = ga10x_mmu_root(g, pdb, &ap, &table);
	if (r)
		return r;
	for (i = 0; i < sizeof(level) / sizeof(level[0]); i++) {
		idx = (unsigned int)(va >> level[i].shift) &
		      (level[i].entries - 1);
		r = ga10x_mmu_read(g, ap, table + (uint64_t)idx * GH100_PDE_SIZE,
				   &e, 1);
		if (r)
			return r;
		if (e & GH100_PDE_IS_PTE) {
			if (i != pde1)		/* only PDE1 holds PTEs */
				return ga10x_mmu_bad_pte(g, va);
			return walk_leaf(g, e, va, GH100_PAGE_512M_SHIFT, t, ft);
		}
		if (gh100_pde_aperture(e) == GH100_PDE_APERTURE_INVALID) {
			if (pde_sparse(e))
				return sparse(t, va, GH100_PAGE_512M_SHIFT);
			return fault(ft, GA10X_MMU_FAULT_PDE);
		}
		ap = pde_mem(gh100_pde_aperture(e));
		table = gh100_pde_address(e);
	}

	idx = (unsigned int)(va >> GH100_PDE0_SHIFT) & (GH100_PDE0_ENTRIES - 1);
	r = ga10x_mmu_read(g, ap, table + (uint64_t)idx * GH100_DUAL_PDE_SIZE,
			   pd0, 2);
	if (r)
		return r;
	return walk_pde0(g, pd0, va, t, ft);
}
