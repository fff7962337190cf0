/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: the MMU VER2 walk (include/ga10x/mmu_v2.h) and a TLB.
 *
 * The walk reads PD3, PD2, PD1 (or a 512 MiB PTE there), the PD0 dual
 * entry (or a 2 MiB PTE in its low word), then the big-page table and,
 * when the big PTE is invalid with all its state bits clear, the 4 KiB
 * table of the same PD0 entry. Each table is read through gm_mem_read() in
 * the aperture its parent names. Valid and sparse translations are cached
 * in a small direct-mapped TLB keyed by (pdb, page, page size); faults are
 * never cached. A cached entry stays until ga10x_tlb_invalidate() drops it,
 * so a PTE changed without an invalidate keeps its old translation, as on
 * hardware. Permission checks (PRIVILEGE, READ_ONLY, ATOMIC_DISABLE) apply
 * to the cached entry on every access. ga10x_tlb_invalidate() serves the
 * host's MEM_OP (host.c) and the RM's GA10X_REG_MMU_INVALIDATE (here).
 *
 * Modelling choices where nvidia-uvm's source does not pin the hardware
 * down: a big PTE that is invalid-and-clear over a PD0 entry without a
 * 4 KiB table faults as PDE (nvidia-uvm services PDE and PTE faults alike);
 * sparse is a PTE state only (nvidia-uvm writes sparse 64 KiB PTEs only);
 * a PTE at PD3/PD2, a PEER aperture (no peers here) and a large page whose
 * address is not aligned to its size are malformed (EMGPU_ERR_BAD_PTE).
 */
#include "../internal.h"
#include "ga10x.h"
#include "ga10x/mmu_v2.h"

int ga10x_mmu_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v)
{
	const struct ga10x_mmu *m = &ga10x_state(g)->mmu;

	switch (off) {
	case GA10X_REG_MMU_INVALIDATE_PDB_LO:	*v = (uint32_t)m->inv_pdb; break;
	case GA10X_REG_MMU_INVALIDATE_PDB_HI:	*v = (uint32_t)(m->inv_pdb >> 32); break;
	case GA10X_REG_MMU_INVALIDATE:		*v = 0; break;	/* never pending */
	default:
		return -1;
	}
	return 0;
}

/*
 * The RM's invalidate: every VA of PDB_LO/HI's directory, or of all with
 * ALL_PDB. A write without TRIGGER does nothing; unknown bits, no ALL_VA
 * (ranges are MEM_OP's, host.c) or a directory of a reserved aperture are
 * BAD_VALUE and invalidate nothing.
 */
static void mmu_invalidate(struct gm_gpu *g, uint32_t v)
{
	const uint32_t known = GA10X_MMU_INVALIDATE_ALL_VA |
			       GA10X_MMU_INVALIDATE_ALL_PDB |
			       GA10X_MMU_INVALIDATE_TRIGGER;
	uint64_t pdb = ga10x_state(g)->mmu.inv_pdb;
	unsigned int ap = (unsigned int)(pdb & GA10X_BASE_APERTURE_MASK);
	int all_pdbs = !!(v & GA10X_MMU_INVALIDATE_ALL_PDB);

	if ((v & ~known) || ((v & GA10X_MMU_INVALIDATE_TRIGGER) &&
			     (!(v & GA10X_MMU_INVALIDATE_ALL_VA) ||
			      (!all_pdbs && ap != GA10X_BASE_APERTURE_VIDMEM &&
			       ap != GA10X_BASE_APERTURE_SYSMEM)))) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, GA10X_REG_MMU_INVALIDATE);
		return;
	}
	if (v & GA10X_MMU_INVALIDATE_TRIGGER)
		ga10x_tlb_invalidate(g, all_pdbs, pdb, 0, ~0ull);
}

int ga10x_mmu_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	struct ga10x_mmu *m = &ga10x_state(g)->mmu;

	switch (off) {
	case GA10X_REG_MMU_INVALIDATE_PDB_LO:
		m->inv_pdb = (m->inv_pdb & ~0xffffffffull) | v;
		break;
	case GA10X_REG_MMU_INVALIDATE_PDB_HI:
		m->inv_pdb = (m->inv_pdb & 0xffffffffull) | (uint64_t)v << 32;
		break;
	case GA10X_REG_MMU_INVALIDATE:
		mmu_invalidate(g, v);
		break;
	default:
		return -1;
	}
	return 0;
}

/* ---- TLB ---- */

static unsigned int tlb_slot(uint64_t pdb, uint64_t vpn, unsigned int shift)
{
	uint64_t h = vpn * 0x9e3779b97f4a7c15ull ^ pdb * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t)shift * 0x165667b19e3779f9ull;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (unsigned int)(h >> (64 - GA10X_TLB_BITS));
}

static struct ga10x_tlb_entry *tlb_lookup(struct ga10x_mmu *m, uint64_t pdb,
					  uint64_t va)
{
	static const unsigned int shifts[] = {
		GA10X_PAGE_4K_SHIFT, GA10X_PAGE_64K_SHIFT,
		GA10X_PAGE_2M_SHIFT, GA10X_PAGE_512M_SHIFT,
	};
	unsigned int i;

	for (i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		uint64_t vpn = va >> shifts[i];
		struct ga10x_tlb_entry *e =
			&m->tlb[tlb_slot(pdb, vpn, shifts[i])];

		if (e->valid && e->pdb == pdb && e->page_shift == shifts[i] &&
		    e->vpn == vpn)
			return e;
	}
	return NULL;
}

void ga10x_tlb_invalidate(struct gm_gpu *g, int all_pdbs, uint64_t pdb,
			  uint64_t va, uint64_t end)
{
	struct ga10x_mmu *m = &ga10x_state(g)->mmu;
	unsigned int i;

	g->st.tlb_invalidates++;
	/*
	 * a sysmem PDB's address is the guest's allocator's (nvidia-uvm's
	 * own page tree root): the event keeps vidmem ones, as a copy's
	 */
	gm_event(g, GM_EV_TLB_INV, all_pdbs ? ~0ull :
		 (pdb & GA10X_BASE_APERTURE_MASK) == GA10X_BASE_APERTURE_VIDMEM ? pdb :
		 pdb & GA10X_BASE_APERTURE_MASK, va, end);
	for (i = 0; i < GA10X_TLB_ENTRIES; i++) {
		struct ga10x_tlb_entry *e = &m->tlb[i];
		uint64_t base, last;

		if (!e->valid || (!all_pdbs && e->pdb != pdb))
			continue;
		base = e->vpn << e->page_shift;
		last = base + ((1ull << e->page_shift) - 1);
		if (base < end && va <= last)
			e->valid = 0;
	}
}

/* ---- walk ---- */

int ga10x_mmu_read(struct gm_gpu *g, unsigned int ap, uint64_t pa,
		   uint64_t *w, unsigned int n)
{
	uint8_t b[GA10X_DUAL_PDE_SIZE];
	unsigned int i, j;
	int r = gm_mem_read(g, ap, pa, b, (uint64_t)n * 8);

	if (r) {
		gm_error(g, (enum emgpu_error)-r, (uint32_t)pa);
		return r;
	}
	for (i = 0; i < n; i++) {
		w[i] = 0;
		for (j = 0; j < 8; j++)
			w[i] |= (uint64_t)b[i * 8 + j] << (8 * j);
	}
	return 0;
}

static unsigned int pde_mem(unsigned int pde_ap)
{
	return pde_ap == GA10X_PDE_APERTURE_VIDEO ? EMGPU_APERTURE_VIDMEM
						  : EMGPU_APERTURE_SYSMEM;
}

int ga10x_mmu_bad_pte(struct gm_gpu *g, uint64_t va)
{
	gm_error(g, EMGPU_ERR_BAD_PTE, (uint32_t)(va >> GA10X_PAGE_4K_SHIFT));
	return -EMGPU_ERR_BAD_PTE;
}

static int fault(unsigned int *ft, unsigned int type)
{
	*ft = type;
	return GA10X_XLATE_FAULT;
}

/*
 * The PTE e for a page of 1 << shift holding va: fills *t (valid or
 * sparse), or reports a PTE fault for an invalid one.
 */
static int walk_leaf(struct gm_gpu *g, uint64_t e, uint64_t va,
		     unsigned int shift, struct ga10x_tlb_entry *t,
		     unsigned int *ft)
{
	unsigned int ap;

	t->page_shift = (uint8_t)shift;
	t->vpn = va >> shift;
	if (!(e & GA10X_PTE_VALID)) {
		if (!(e & GA10X_PTE_VOL))
			return fault(ft, GA10X_MMU_FAULT_PTE);
		t->flags = GA10X_TLB_SPARSE;	/* VOL wins over PRIVILEGE */
		return 0;
	}
	ap = ga10x_pte_aperture(e);
	if (ap == GA10X_PTE_APERTURE_PEER)
		return ga10x_mmu_bad_pte(g, va);
	/*
	 * A big or huge page's offset comes from the VA: the address bits
	 * below the page size are ignored, as nvidia-uvm's own
	 * UVM_TEST_MEM_SANITY (580: test_huge_page_size) relies on when it
	 * maps a 512M PTE at an unaligned sysmem address.
	 */
	t->pa = ga10x_pte_address(e) & ~((1ull << shift) - 1);
	t->aperture = ap == GA10X_PTE_APERTURE_VIDEO ? EMGPU_APERTURE_VIDMEM
						     : EMGPU_APERTURE_SYSMEM;
	t->flags = (e & GA10X_PTE_READ_ONLY ? GA10X_TLB_RO : 0) |
		   (e & GA10X_PTE_ATOMIC_DISABLE ? GA10X_TLB_NOATOMIC : 0) |
		   (e & GA10X_PTE_VOL ? GA10X_TLB_VOL : 0) |
		   (e & GA10X_PTE_PRIVILEGE ? GA10X_TLB_PRIV : 0);
	return 0;
}

int ga10x_mmu_root(struct gm_gpu *g, uint64_t pdb, unsigned int *ap,
		   uint64_t *table)
{
	unsigned int base_ap = (unsigned int)(pdb & GA10X_BASE_APERTURE_MASK);

	if ((pdb & (GA10X_PD_ALIGN - 1) & ~(uint64_t)GA10X_BASE_APERTURE_MASK) ||
	    (base_ap != GA10X_BASE_APERTURE_VIDMEM &&
	     base_ap != GA10X_BASE_APERTURE_SYSMEM)) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, (uint32_t)pdb);
		return -EMGPU_ERR_BAD_VALUE;
	}
	*ap = base_ap == GA10X_BASE_APERTURE_VIDMEM ? EMGPU_APERTURE_VIDMEM
						    : EMGPU_APERTURE_SYSMEM;
	*table = pdb & ~(uint64_t)(GA10X_PD_ALIGN - 1);
	return 0;
}

/* MMU VER2's walk of pdb's tables for va (struct ga10x_arch's walk). */
int ga10x_mmu_walk_v2(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		      struct ga10x_tlb_entry *t, unsigned int *ft)
{
	static const unsigned int shift[] = {
		GA10X_PD3_SHIFT, GA10X_PD2_SHIFT, GA10X_PD1_SHIFT,
	};
	static const unsigned int entries[] = {
		GA10X_PD3_ENTRIES, GA10X_PD2_ENTRIES, GA10X_PD1_ENTRIES,
	};
	unsigned int level, ap, big_ap, small_ap, idx;
	uint64_t table, e, pd0[2];
	int r;

	r = ga10x_mmu_root(g, pdb, &ap, &table);
	if (r)
		return r;
	for (level = 0; level < 3; level++) {
		idx = (unsigned int)(va >> shift[level]) & (entries[level] - 1);
		r = ga10x_mmu_read(g, ap, table + (uint64_t)idx * GA10X_PDE_SIZE,
			       &e, 1);
		if (r)
			return r;
		if (e & GA10X_PDE_IS_PTE) {
			if (level != 2)		/* only PD1 holds PTEs */
				return ga10x_mmu_bad_pte(g, va);
			return walk_leaf(g, e, va, GA10X_PAGE_512M_SHIFT, t, ft);
		}
		if (ga10x_pde_aperture(e) == GA10X_PDE_APERTURE_INVALID)
			return fault(ft, GA10X_MMU_FAULT_PDE);
		ap = pde_mem(ga10x_pde_aperture(e));
		table = ga10x_pde_address(e);
	}

	idx = (unsigned int)(va >> GA10X_PD0_SHIFT) & (GA10X_PD0_ENTRIES - 1);
	r = ga10x_mmu_read(g, ap, table + (uint64_t)idx * GA10X_DUAL_PDE_SIZE,
		       pd0, 2);
	if (r)
		return r;
	if (pd0[0] & GA10X_DUAL_PDE_IS_PTE)	/* a 2 MiB PTE, low word */
		return walk_leaf(g, pd0[0], va, GA10X_PAGE_2M_SHIFT, t, ft);
	big_ap = ga10x_pde_aperture(pd0[0]);
	small_ap = ga10x_pde_aperture(pd0[1]);

	if (big_ap != GA10X_PDE_APERTURE_INVALID) {
		idx = (unsigned int)(va >> GA10X_PT_BIG_SHIFT) &
		      (GA10X_PT_BIG_ENTRIES - 1);
		r = ga10x_mmu_read(g, pde_mem(big_ap),
			       ga10x_dual_pde_big_address(pd0[0]) +
			       (uint64_t)idx * GA10X_PTE_SIZE, &e, 1);
		if (r)
			return r;
		if (e & (GA10X_PTE_VALID | GA10X_PTE_VOL))
			return walk_leaf(g, e, va, GA10X_PAGE_64K_SHIFT, t, ft);
		if (e & GA10X_PTE_PRIVILEGE)	/* unmapped: 4K never read */
			return fault(ft, GA10X_MMU_FAULT_PTE);
		/* invalid: the 4 KiB table decides */
	}
	if (small_ap == GA10X_PDE_APERTURE_INVALID)
		return fault(ft, GA10X_MMU_FAULT_PDE);
	idx = (unsigned int)(va >> GA10X_PT_4K_SHIFT) & (GA10X_PT_4K_ENTRIES - 1);
	r = ga10x_mmu_read(g, pde_mem(small_ap), ga10x_pde_address(pd0[1]) +
		       (uint64_t)idx * GA10X_PTE_SIZE, &e, 1);
	if (r)
		return r;
	return walk_leaf(g, e, va, GA10X_PAGE_4K_SHIFT, t, ft);
}

/* Whether the MMU takes va (struct ga10x_arch's va_bits, canonical). */
static int va_in_range(const struct ga10x_arch *a, uint64_t va)
{
	uint64_t upper = va >> (a->va_bits - 1);	/* the sign bit and above */

	return !(va >> a->va_bits) ||
	       (a->canonical && upper == ~0ull >> (a->va_bits - 1));
}

int ga10x_translate(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		    unsigned int access, struct ga10x_xlate *out)
{
	const struct ga10x_arch *arch = ga10x_state(g)->arch;
	struct ga10x_mmu *m = &ga10x_state(g)->mmu;
	struct ga10x_tlb_entry *e, w;
	unsigned int type = access & GA10X_ACCESS_TYPE_MASK;
	int r;

	memset(out, 0, sizeof(*out));
	if (type > EMGPU_ACCESS_PREFETCH ||
	    (access & ~(GA10X_ACCESS_TYPE_MASK | GA10X_ACCESS_PRIVILEGED))) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, access);
		return -EMGPU_ERR_BAD_VALUE;
	}
	if (!va_in_range(arch, va)) {
		out->fault_type = GA10X_MMU_FAULT_VA_LIMIT;
		return GA10X_XLATE_FAULT;
	}
	e = tlb_lookup(m, pdb, va);
	if (e) {
		g->st.tlb_hits++;
	} else {
		memset(&w, 0, sizeof(w));
		g->st.walks++;
		r = arch->walk(g, pdb, va, &w, &out->fault_type);
		if (r)
			return r;
		w.pdb = pdb;
		w.valid = 1;
		e = &m->tlb[tlb_slot(pdb, w.vpn, w.page_shift)];
		*e = w;
	}

	out->page_shift = e->page_shift;
	if (e->flags & GA10X_TLB_SPARSE) {
		out->sparse = 1;
		return 0;
	}
	out->aperture = e->aperture;
	out->pa = e->pa + (va & ((1ull << e->page_shift) - 1));
	out->read_only = !!(e->flags & GA10X_TLB_RO);
	out->atomic_disable = !!(e->flags & GA10X_TLB_NOATOMIC);
	out->vol = !!(e->flags & GA10X_TLB_VOL);
	out->priv = !!(e->flags & GA10X_TLB_PRIV);
	out->acd = !!(e->flags & GA10X_TLB_ACD);
	if (out->priv && !(access & GA10X_ACCESS_PRIVILEGED))
		out->fault_type = GA10X_MMU_FAULT_PRIV;
	else if (out->read_only && (type == EMGPU_ACCESS_WRITE ||
				    type == EMGPU_ACCESS_ATOMIC))
		out->fault_type = GA10X_MMU_FAULT_RO;
	else if (out->atomic_disable && type == EMGPU_ACCESS_ATOMIC)
		out->fault_type = GA10X_MMU_FAULT_ATOMIC;
	else
		return 0;
	return GA10X_XLATE_FAULT;
}
