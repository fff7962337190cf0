/* SPDX-License-Identifier: MIT */
/*
 * emgpu's GH100 personality: the MMU VER3 page-table format (Hopper).
 *
 * Bit positions and field values are NVIDIA's (hwref hopper/gh100
 * dev_mmu.h, NV_MMU_VER3_*; the same in the 535 and 550 trees); the names
 * are ours. The encoders build entries the way nvidia-uvm's Hopper HAL
 * (uvm_hopper_mmu.c) does on a system without ATS, so a test or the
 * resource-manager stand-in writes exactly what nvidia-uvm would.
 *
 * Layout of the 57-bit VA (uvm_hopper_mmu.c's depth table):
 *   depth 0  PDE4  VA[56]      2 entries of 8 bytes (a 4 KiB-aligned table)
 *   depth 1  PDE3  VA[55:47]   512 entries of 8 bytes
 *   depth 2  PDE2  VA[46:38]   512 entries of 8 bytes
 *   depth 3  PDE1  VA[37:29]   512 entries of 8 bytes, or a 512 MiB PTE
 *   depth 4  PDE0  VA[28:21]   256 dual entries of 16 bytes, or a 2 MiB PTE
 *                              in the low 8 bytes
 *   depth 5  PT    VA[20:16]   32 entries (64 KiB pages, 256-byte table)
 *                  VA[20:12]   512 entries (4 KiB pages, 4 KiB table)
 * A VA in the upper half (bits 63:57 copies of bit 56, as nvidia-uvm's
 * canonical form on a 57-bit GPU) walks through PDE4 entry 1. Every
 * table is little-endian 64-bit words.
 *
 * What changed from VER2 (ga10x/mmu_v2.h): one more level; addresses are
 * plain bit fields (PDE and PTE ADDRESS 51:12 hold the address's own bits,
 * vidmem PTEs 39:12; the dual PDE's big half 51:8); the VOL, PRIVILEGE,
 * READ_ONLY and ATOMIC_DISABLE bits and the invalid-entry states became
 * one PCF (permission control flags) field, which adds a per-page
 * access-counter disable (ACD); KIND shrank to 11:8; peers take 63:61.
 *
 * PDE PCF (5:3; a dual PDE's halves at 5:3 and 69:67): bit 3 is
 * "uncached" in a valid PDE and "sparse" in one whose aperture is
 * INVALID; bit 4 refuses ATS for the range. nvidia-uvm writes valid PDEs
 * as VALID_UNCACHED_ATS_ALLOWED and missing ones as 0; a sparse PDE makes
 * its whole range sparse (no fault, reads 0, writes dropped), which is
 * also how nvidia-uvm's sparse 2 MiB and 512 MiB PTEs (PCF SPARSE, VALID
 * clear) read at PDE0 and PDE1, where VALID and IS_PTE are one bit.
 *
 * PTE PCF (7:3): with VALID set, five independent bits (uncached,
 * privileged, read-only, no atomics, access counting disabled); with
 * VALID clear, a state: INVALID (a big PTE: the 4 KiB table decides),
 * SPARSE, MAPPING_NOWHERE, NO_VALID_4KB_PAGE (a big PTE: fault, the 4 KiB
 * entries are not read; nvidia-uvm's unmapped_pte for 64 KiB).
 */
#ifndef GH100_MMU_V3_H
#define GH100_MMU_V3_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/* ---- VA layout ---- */
#define GH100_MMU_VA_BITS		57
#define GH100_PDE4_SHIFT		56	/* 1 index bit */
#define GH100_PDE3_SHIFT		47	/* 9 */
#define GH100_PDE2_SHIFT		38	/* 9 */
#define GH100_PDE1_SHIFT		29	/* 9; also the 512 MiB page */
#define GH100_PDE0_SHIFT		21	/* 8; also the 2 MiB page */
#define GH100_PT_BIG_SHIFT		16	/* 5: 64 KiB pages */
#define GH100_PT_4K_SHIFT		12	/* 9: 4 KiB pages */
#define GH100_PDE4_ENTRIES		2
#define GH100_PDE3_ENTRIES		512
#define GH100_PDE2_ENTRIES		512
#define GH100_PDE1_ENTRIES		512
#define GH100_PDE0_ENTRIES		256
#define GH100_PT_BIG_ENTRIES		32
#define GH100_PT_4K_ENTRIES		512

#define GH100_PAGE_4K_SHIFT		12
#define GH100_PAGE_64K_SHIFT		16
#define GH100_PAGE_2M_SHIFT		21
#define GH100_PAGE_512M_SHIFT		29

#define GH100_PDE_SIZE			8	/* NV_MMU_VER3_PDE__SIZE */
#define GH100_DUAL_PDE_SIZE		16	/* NV_MMU_VER3_DUAL_PDE__SIZE */
#define GH100_PTE_SIZE			8	/* NV_MMU_VER3_PTE__SIZE */
/* tables are this aligned (uvm's allocation_size_hopper) */
#define GH100_PD_ALIGN			4096
#define GH100_PT_BIG_ALIGN		256

/* ---- PDE: PDE4, PDE3, PDE2, PDE1 (NV_MMU_VER3_PDE_*) ---- */
/* bit 0 is IS_PTE (and a PTE's VALID): set only in a PDE1 512 MiB PTE */
#define GH100_PDE_IS_PTE		(1ull << 0)
#define GH100_PDE_APERTURE_SHIFT	1		/* 2:1 */
#define GH100_PDE_APERTURE_MASK		(3ull << 1)
#define GH100_PDE_APERTURE_INVALID	0u
#define GH100_PDE_APERTURE_VIDEO	1u
#define GH100_PDE_APERTURE_SYS_COH	2u
#define GH100_PDE_APERTURE_SYS_NONCOH	3u
#define GH100_PDE_PCF_SHIFT		3		/* 5:3 */
#define GH100_PDE_PCF_MASK		(7ull << 3)
/* PDE PCF values: bit 0 uncached (valid) / sparse (invalid), bit 1 no ATS */
#define GH100_PDE_PCF_VALID_CACHED_ATS	0x0u	/* also INVALID_ATS_ALLOWED */
#define GH100_PDE_PCF_VALID_UNCACHED_ATS 0x1u	/* also SPARSE_ATS_ALLOWED */
#define GH100_PDE_PCF_VALID_CACHED_NO_ATS 0x2u	/* also INVALID_ATS_NOT_ALLOWED */
#define GH100_PDE_PCF_VALID_UNCACHED_NO_ATS 0x3u /* also SPARSE_ATS_NOT_ALLOWED */
#define GH100_PDE_PCF_INVALID		0x0u
#define GH100_PDE_PCF_SPARSE		0x1u	/* the bit, with APERTURE INVALID */
#define GH100_PDE_PCF_NO_ATS		0x2u	/* the bit */
#define GH100_PDE_ADDRESS_MASK		0x000ffffffffff000ull	/* 51:12 */

/* ---- dual PDE: PDE0, 16 bytes (NV_MMU_VER3_DUAL_PDE_*) ---- */
/* low word: the big (64 KiB-page) table, and IS_PTE for the whole entry */
#define GH100_DUAL_PDE_IS_PTE		(1ull << 0)
#define GH100_DUAL_PDE_APERTURE_BIG_SHIFT 1		/* 2:1 */
#define GH100_DUAL_PDE_APERTURE_BIG_MASK (3ull << 1)
#define GH100_DUAL_PDE_PCF_BIG_SHIFT	3		/* 5:3 */
#define GH100_DUAL_PDE_PCF_BIG_MASK	(7ull << 3)
/* ADDRESS_BIG 51:8 holds addr >> 8 (ADDRESS_BIG_SHIFT): addr's bits 51:8 */
#define GH100_DUAL_PDE_ADDRESS_BIG_MASK	0x000fffffffffff00ull
/* high word (bits 127:64): the small (4 KiB-page) table; positions in it */
#define GH100_DUAL_PDE_APERTURE_SMALL_SHIFT 1		/* 66:65 */
#define GH100_DUAL_PDE_APERTURE_SMALL_MASK (3ull << 1)
#define GH100_DUAL_PDE_PCF_SMALL_SHIFT	3		/* 69:67 */
#define GH100_DUAL_PDE_PCF_SMALL_MASK	(7ull << 3)
#define GH100_DUAL_PDE_ADDRESS_SMALL_MASK 0x000ffffffffff000ull /* 115:76 */
/* aperture and PCF values of both halves: GH100_PDE_APERTURE_*, _PCF_* */

/* ---- PTE (NV_MMU_VER3_PTE_*) ---- */
#define GH100_PTE_VALID			(1ull << 0)
#define GH100_PTE_APERTURE_SHIFT	1		/* 2:1 */
#define GH100_PTE_APERTURE_MASK		(3ull << 1)
#define GH100_PTE_APERTURE_VIDEO	0u
#define GH100_PTE_APERTURE_PEER		1u
#define GH100_PTE_APERTURE_SYS_COH	2u
#define GH100_PTE_APERTURE_SYS_NONCOH	3u
#define GH100_PTE_PCF_SHIFT		3		/* 7:3 */
#define GH100_PTE_PCF_MASK		(0x1full << 3)
/* PCF of a valid PTE: independent bits (REGULAR_RW_ATOMIC_CACHED_ACE is 0) */
#define GH100_PTE_PCF_UNCACHED		0x01u
#define GH100_PTE_PCF_PRIVILEGE		0x02u
#define GH100_PTE_PCF_READ_ONLY		0x04u
#define GH100_PTE_PCF_NO_ATOMIC		0x08u
#define GH100_PTE_PCF_ACD		0x10u	/* access counting disabled */
/* PCF of a PTE with VALID clear: one state */
#define GH100_PTE_PCF_INVALID		0x00u
#define GH100_PTE_PCF_SPARSE		0x01u
#define GH100_PTE_PCF_MAPPING_NOWHERE	0x02u
#define GH100_PTE_PCF_NO_VALID_4KB_PAGE	0x03u
#define GH100_PTE_KIND_SHIFT		8		/* 11:8 */
#define GH100_PTE_KIND_MASK		(0xfull << 8)
#define GH100_PTE_ADDRESS_SYS_MASK	0x000ffffffffff000ull	/* 51:12: sys, peer */
#define GH100_PTE_ADDRESS_VID_MASK	0x000000fffffff000ull	/* 39:12 */
#define GH100_PTE_PEER_ID_SHIFT		61			/* 63:61 */
#define GH100_PTE_PEER_ID_MASK		(7ull << 61)

/* NV_MMU_PTE_KIND_* that nvidia-uvm writes */
#define GH100_PTE_KIND_GENERIC_MEMORY	0x6u	/* every mapping */
#define GH100_PTE_KIND_INVALID		0x7u
#define GH100_PTE_KIND_SMSKED_MESSAGE	0xfu	/* sked-reflected PTE */

/* The invalid patterns nvidia-uvm writes (uvm_hopper_mmu.c). */
#define GH100_PTE_SPARSE		((uint64_t)GH100_PTE_PCF_SPARSE << GH100_PTE_PCF_SHIFT)		/* 0x8 */
#define GH100_PTE_UNMAPPED_BIG		((uint64_t)GH100_PTE_PCF_NO_VALID_4KB_PAGE << GH100_PTE_PCF_SHIFT)	/* 0x18 */

/*
 * Fault types a walk reports: NV_PFAULT_FAULT_TYPE_* of hwref hopper/gh100
 * dev_fault.h, the same values as Ampere's (ga10x/mmu_v2.h's
 * GA10X_MMU_FAULT_*, which the shared code uses).
 */

/* ---- encoders (nvidia-uvm's bit patterns, ATS off) ---- */

/*
 * A PDE4..PDE1 entry pointing at a table at pa (4 KiB aligned) in aperture
 * ap (GH100_PDE_APERTURE_*); INVALID gives 0, as uvm's make_pde does for a
 * missing table. nvidia-uvm's valid PDEs are VALID_UNCACHED_ATS_ALLOWED.
 */
static inline uint64_t gh100_pde(unsigned int ap, uint64_t pa)
{
	if (ap == GH100_PDE_APERTURE_INVALID)
		return 0;
	return ((uint64_t)(ap & 3) << GH100_PDE_APERTURE_SHIFT) |
	       ((uint64_t)GH100_PDE_PCF_VALID_UNCACHED_ATS << GH100_PDE_PCF_SHIFT) |
	       (pa & GH100_PDE_ADDRESS_MASK);
}

/* The low word of a PDE0 entry: its big-page table (256-byte aligned). */
static inline uint64_t gh100_dual_pde_big(unsigned int ap, uint64_t pa)
{
	if (ap == GH100_PDE_APERTURE_INVALID)
		return 0;
	return ((uint64_t)(ap & 3) << GH100_DUAL_PDE_APERTURE_BIG_SHIFT) |
	       ((uint64_t)GH100_PDE_PCF_VALID_UNCACHED_ATS <<
		GH100_DUAL_PDE_PCF_BIG_SHIFT) |
	       (pa & GH100_DUAL_PDE_ADDRESS_BIG_MASK);
}

/* The high word of a PDE0 entry: its 4 KiB-page table (4 KiB aligned). */
static inline uint64_t gh100_dual_pde_small(unsigned int ap, uint64_t pa)
{
	if (ap == GH100_PDE_APERTURE_INVALID)
		return 0;
	return ((uint64_t)(ap & 3) << GH100_DUAL_PDE_APERTURE_SMALL_SHIFT) |
	       ((uint64_t)GH100_PDE_PCF_VALID_UNCACHED_ATS <<
		GH100_DUAL_PDE_PCF_SMALL_SHIFT) |
	       (pa & GH100_DUAL_PDE_ADDRESS_SMALL_MASK);
}

/*
 * A valid PTE of any page size for a page at pa in aperture ap
 * (GH100_PTE_APERTURE_*), as uvm's make_pte_hopper: pcf is a valid PTE's
 * GH100_PTE_PCF_* bits, peer the peer id of a PEER aperture. A vidmem
 * address keeps bits 39:12, any other 51:12.
 */
static inline uint64_t gh100_pte(unsigned int ap, uint64_t pa, unsigned int pcf,
				 unsigned int kind, unsigned int peer)
{
	uint64_t e = GH100_PTE_VALID |
		     ((uint64_t)(ap & 3) << GH100_PTE_APERTURE_SHIFT) |
		     ((uint64_t)(pcf & 0x1f) << GH100_PTE_PCF_SHIFT) |
		     ((uint64_t)(kind & 0xf) << GH100_PTE_KIND_SHIFT);

	if (ap == GH100_PTE_APERTURE_VIDEO)
		return e | (pa & GH100_PTE_ADDRESS_VID_MASK);
	e |= pa & GH100_PTE_ADDRESS_SYS_MASK;
	if (ap == GH100_PTE_APERTURE_PEER)
		e |= ((uint64_t)peer << GH100_PTE_PEER_ID_SHIFT) &
		     GH100_PTE_PEER_ID_MASK;
	return e;
}

/* ---- decoders ---- */

static inline unsigned int gh100_pte_aperture(uint64_t e)
{
	return (unsigned int)((e & GH100_PTE_APERTURE_MASK) >>
			      GH100_PTE_APERTURE_SHIFT);
}

static inline unsigned int gh100_pte_pcf(uint64_t e)
{
	return (unsigned int)((e & GH100_PTE_PCF_MASK) >> GH100_PTE_PCF_SHIFT);
}

/* The page address a valid PTE holds (vidmem: 39:12; else 51:12). */
static inline uint64_t gh100_pte_address(uint64_t e)
{
	return e & (gh100_pte_aperture(e) == GH100_PTE_APERTURE_VIDEO ?
		    GH100_PTE_ADDRESS_VID_MASK : GH100_PTE_ADDRESS_SYS_MASK);
}

/* Aperture and PCF of a PDE4..PDE1 entry, or of either dual PDE half. */
static inline unsigned int gh100_pde_aperture(uint64_t e)
{
	return (unsigned int)((e & GH100_PDE_APERTURE_MASK) >>
			      GH100_PDE_APERTURE_SHIFT);
}

static inline unsigned int gh100_pde_pcf(uint64_t e)
{
	return (unsigned int)((e & GH100_PDE_PCF_MASK) >> GH100_PDE_PCF_SHIFT);
}

/* The table address of a PDE4..PDE1 entry or a dual PDE's small half. */
static inline uint64_t gh100_pde_address(uint64_t e)
{
	return e & GH100_PDE_ADDRESS_MASK;
}

/* The big-page table address of a dual PDE's low word. */
static inline uint64_t gh100_dual_pde_big_address(uint64_t lo)
{
	return lo & GH100_DUAL_PDE_ADDRESS_BIG_MASK;
}

#endif /* GH100_MMU_V3_H */
