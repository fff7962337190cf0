/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality, MMU walk and TLB (owner of include/ga10x/mmu_v2.h;
 * GH100's VER3 walk, ../gh100/, fills the same TLB): state.
 */
#ifndef GM_GA10X_MMU_H
#define GM_GA10X_MMU_H

#include <stdint.h>

/* TLB: direct-mapped, a power of two */
#define GA10X_TLB_BITS		8
#define GA10X_TLB_ENTRIES	(1u << GA10X_TLB_BITS)

/* One cached translation: page (pdb, vpn) of 1 << page_shift bytes. */
struct ga10x_tlb_entry {
	uint64_t pdb;		/* address | GA10X_BASE_APERTURE_*, as translated */
	uint64_t vpn;		/* va >> page_shift */
	uint64_t pa;		/* page base; 0 for sparse */
	uint8_t valid;
	uint8_t page_shift;	/* 12, 16, 21 or 29 */
	uint8_t aperture;	/* EMGPU_APERTURE_* */
	uint8_t flags;		/* GA10X_TLB_* */
};

#define GA10X_TLB_RO		(1u << 0)
#define GA10X_TLB_NOATOMIC	(1u << 1)
#define GA10X_TLB_VOL		(1u << 2)
#define GA10X_TLB_PRIV		(1u << 3)
#define GA10X_TLB_SPARSE	(1u << 4)
#define GA10X_TLB_ACD		(1u << 5)	/* VER3: access counting disabled */

struct ga10x_mmu {
	/* slot: a hash of (pdb, vpn, page size); zeroed by ga10x_reset() */
	struct ga10x_tlb_entry tlb[GA10X_TLB_ENTRIES];
	/* GA10X_REG_MMU_INVALIDATE_PDB_LO/HI as written */
	uint64_t inv_pdb;
};

#endif /* GM_GA10X_MMU_H */
