/* SPDX-License-Identifier: MIT */
/*
 * emgpu's GA10x personality: the MMU VER2 page-table format.
 *
 * Bit positions and field values are NVIDIA's (hwref turing/tu102
 * dev_mmu.h, NV_MMU_VER2_*, which Ampere keeps); the names are ours. The
 * encoders build entries the way nvidia-uvm's Ampere HAL does (its make_pte
 * and make_pde come from the Turing, Volta and Pascal HALs), so a test or
 * the resource-manager stand-in writes exactly what nvidia-uvm would.
 *
 * Layout of the 49-bit VA (uvm_ampere_mmu.c's depth table):
 *   depth 0  PD3   VA[48:47]   4 entries of 8 bytes
 *   depth 1  PD2   VA[46:38]   512 entries of 8 bytes
 *   depth 2  PD1   VA[37:29]   512 entries of 8 bytes, or a 512 MiB PTE
 *   depth 3  PD0   VA[28:21]   256 dual entries of 16 bytes, or a 2 MiB PTE
 *                              in the low 8 bytes
 *   depth 4  PT    VA[20:16]   32 entries (64 KiB pages, 256-byte table)
 *                  VA[20:12]   512 entries (4 KiB pages, 4 KiB table)
 * Every table is little-endian 64-bit words.
 *
 * Big-PTE states (uvm_mmu.h's unmapped_pte comment; uvm_pascal_mmu.c): a
 * 64 KiB PTE with VALID clear is
 *   - all zero ("invalid"): the MMU walks the 4 KiB table of the same PD0
 *     entry instead;
 *   - PRIVILEGE set, VOL clear ("unmapped", GA10X_PTE_UNMAPPED_BIG): the
 *     walk stops, the access faults, the 4 KiB entries are never read;
 *   - VOL set (GA10X_PTE_SPARSE, what UvmMapExternalSparse writes, 64 KiB
 *     only): sparse, no fault, reads return 0 and writes are dropped.
 * VOL on an invalid PTE means sparse at every PTE size (VALID clear: the
 * MMU still reads VOL and PRIVILEGE).
 */
#ifndef GA10X_MMU_V2_H
#define GA10X_MMU_V2_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/* ---- VA layout ---- */
#define GA10X_MMU_VA_BITS		49
#define GA10X_PD3_SHIFT			47	/* 2 index bits */
#define GA10X_PD2_SHIFT			38	/* 9 */
#define GA10X_PD1_SHIFT			29	/* 9; also the 512 MiB page */
#define GA10X_PD0_SHIFT			21	/* 8; also the 2 MiB page */
#define GA10X_PT_BIG_SHIFT		16	/* 5: 64 KiB pages */
#define GA10X_PT_4K_SHIFT		12	/* 9: 4 KiB pages */
#define GA10X_PD3_ENTRIES		4
#define GA10X_PD2_ENTRIES		512
#define GA10X_PD1_ENTRIES		512
#define GA10X_PD0_ENTRIES		256
#define GA10X_PT_BIG_ENTRIES		32
#define GA10X_PT_4K_ENTRIES		512

#define GA10X_PAGE_4K_SHIFT		12
#define GA10X_PAGE_64K_SHIFT		16
#define GA10X_PAGE_2M_SHIFT		21
#define GA10X_PAGE_512M_SHIFT		29

#define GA10X_PDE_SIZE			8	/* NV_MMU_VER2_PDE__SIZE */
#define GA10X_DUAL_PDE_SIZE		16	/* NV_MMU_VER2_DUAL_PDE__SIZE */
#define GA10X_PTE_SIZE			8	/* NV_MMU_VER2_PTE__SIZE */
/* tables are this aligned (uvm's allocation_size_pascal) */
#define GA10X_PD_ALIGN			4096
#define GA10X_PT_BIG_ALIGN		256

/* ---- PDE: PD3, PD2, PD1 (NV_MMU_VER2_PDE_*) ---- */
/* bit 0 is IS_PTE: clear in a PDE (IS_PDE_TRUE == 0), set in a PD1 PTE */
#define GA10X_PDE_IS_PTE		(1ull << 0)
#define GA10X_PDE_APERTURE_SHIFT	1		/* 2:1 */
#define GA10X_PDE_APERTURE_MASK		(3ull << 1)
#define GA10X_PDE_APERTURE_INVALID	0u
#define GA10X_PDE_APERTURE_VIDEO	1u
#define GA10X_PDE_APERTURE_SYS_COH	2u
#define GA10X_PDE_APERTURE_SYS_NONCOH	3u
#define GA10X_PDE_VOL			(1ull << 3)
#define GA10X_PDE_NO_ATS		(1ull << 5)	/* PD1 only, ATS systems */
#define GA10X_PDE_ADDRESS_LSB		8
#define GA10X_PDE_ADDRESS_SYS_MASK	0x003fffffffffff00ull	/* 53:8 */
#define GA10X_PDE_ADDRESS_VID_MASK	0x00000001ffffff00ull	/* 32:8 */
#define GA10X_PDE_ADDRESS_VID_PEER_MASK	0x0000000e00000000ull	/* 35:33 */
#define GA10X_PDE_ADDRESS_SHIFT		12	/* the field holds addr >> 12 */

/* ---- dual PDE: PD0, 16 bytes (NV_MMU_VER2_DUAL_PDE_*) ---- */
/* low word: the big (64 KiB-page) table, and IS_PTE for the whole entry */
#define GA10X_DUAL_PDE_IS_PTE		(1ull << 0)
#define GA10X_DUAL_PDE_APERTURE_BIG_SHIFT 1		/* 2:1 */
#define GA10X_DUAL_PDE_APERTURE_BIG_MASK (3ull << 1)
#define GA10X_DUAL_PDE_VOL_BIG		(1ull << 3)
#define GA10X_DUAL_PDE_NO_ATS		(1ull << 5)
#define GA10X_DUAL_PDE_ADDRESS_BIG_LSB	4
#define GA10X_DUAL_PDE_ADDRESS_BIG_SYS_MASK 0x003ffffffffffff0ull	/* 53:4 */
#define GA10X_DUAL_PDE_ADDRESS_BIG_VID_MASK 0x00000001fffffff0ull	/* 32:4 */
#define GA10X_DUAL_PDE_ADDRESS_BIG_SHIFT 8	/* big tables are 256-byte aligned */
/* high word (bits 127:64): the small (4 KiB-page) table; positions in it */
#define GA10X_DUAL_PDE_APERTURE_SMALL_SHIFT 1		/* 66:65 */
#define GA10X_DUAL_PDE_APERTURE_SMALL_MASK (3ull << 1)
#define GA10X_DUAL_PDE_VOL_SMALL	(1ull << 3)	/* 67 */
#define GA10X_DUAL_PDE_ADDRESS_SMALL_LSB 8
#define GA10X_DUAL_PDE_ADDRESS_SMALL_SYS_MASK 0x003fffffffffff00ull	/* 117:72 */
#define GA10X_DUAL_PDE_ADDRESS_SMALL_VID_MASK 0x00000001ffffff00ull	/* 96:72 */
#define GA10X_DUAL_PDE_ADDRESS_SHIFT	12
/* aperture values of both halves: GA10X_PDE_APERTURE_* */

/* ---- PTE (NV_MMU_VER2_PTE_*) ---- */
#define GA10X_PTE_VALID			(1ull << 0)
#define GA10X_PTE_APERTURE_SHIFT	1		/* 2:1 */
#define GA10X_PTE_APERTURE_MASK		(3ull << 1)
#define GA10X_PTE_APERTURE_VIDEO	0u
#define GA10X_PTE_APERTURE_PEER		1u
#define GA10X_PTE_APERTURE_SYS_COH	2u
#define GA10X_PTE_APERTURE_SYS_NONCOH	3u
#define GA10X_PTE_VOL			(1ull << 3)	/* nvidia-uvm: set unless cached */
#define GA10X_PTE_ENCRYPTED		(1ull << 4)
#define GA10X_PTE_PRIVILEGE		(1ull << 5)
#define GA10X_PTE_READ_ONLY		(1ull << 6)
#define GA10X_PTE_ATOMIC_DISABLE	(1ull << 7)
#define GA10X_PTE_ADDRESS_LSB		8
#define GA10X_PTE_ADDRESS_SYS_MASK	0x003fffffffffff00ull	/* 53:8 */
#define GA10X_PTE_ADDRESS_VID_MASK	0x00000001ffffff00ull	/* 32:8, PA 36:12 */
#define GA10X_PTE_ADDRESS_VID_BITS	25
#define GA10X_PTE_ADDRESS_VID_PEER_SHIFT 33			/* 35:33 */
#define GA10X_PTE_ADDRESS_VID_PEER_MASK	0x0000000e00000000ull
/* 55:36: a comptag line; Volta+ nvidia-uvm puts vidmem PA bits 46:37 here */
#define GA10X_PTE_COMPTAGLINE_SHIFT	36
#define GA10X_PTE_COMPTAGLINE_MASK	0x00fffff000000000ull
#define GA10X_PTE_KIND_SHIFT		56			/* 63:56 */
#define GA10X_PTE_KIND_MASK		0xff00000000000000ull
#define GA10X_PTE_ADDRESS_SHIFT		12

/* NV_MMU_PTE_KIND_* that nvidia-uvm writes (Turing+: no PITCH kind) */
#define GA10X_PTE_KIND_PITCH		0x00u	/* Pascal/Volta's */
#define GA10X_PTE_KIND_GENERIC_MEMORY	0x06u	/* every Turing+ nvidia-uvm PTE */
#define GA10X_PTE_KIND_INVALID		0x07u
#define GA10X_PTE_KIND_SMSKED_MESSAGE	0x0fu

/* The two special invalid patterns (uvm_pascal_mmu.c). */
#define GA10X_PTE_SPARSE		GA10X_PTE_VOL		/* 0x8 */
#define GA10X_PTE_UNMAPPED_BIG		GA10X_PTE_PRIVILEGE	/* 0x20 */

/* ---- fault types a walk reports (hwref ampere/ga100 dev_fault.h,
 * NV_PFAULT_FAULT_TYPE_*: the values of fault entries' FAULT_TYPE) ---- */
#define GA10X_MMU_FAULT_PDE		0x00u	/* no table at some level */
#define GA10X_MMU_FAULT_PDE_SIZE	0x01u
#define GA10X_MMU_FAULT_PTE		0x02u	/* invalid or unmapped PTE */
#define GA10X_MMU_FAULT_VA_LIMIT	0x03u	/* VA beyond 49 bits */
#define GA10X_MMU_FAULT_UNBOUND_INST	0x04u
#define GA10X_MMU_FAULT_PRIV		0x05u	/* PRIVILEGE PTE, unprivileged access */
#define GA10X_MMU_FAULT_RO		0x06u	/* write or atomic, READ_ONLY PTE */
#define GA10X_MMU_FAULT_WO		0x07u
#define GA10X_MMU_FAULT_UNSUPPORTED_APERTURE 0x0au
#define GA10X_MMU_FAULT_UNSUPPORTED_KIND 0x0cu
#define GA10X_MMU_FAULT_POISONED	0x0eu
#define GA10X_MMU_FAULT_ATOMIC		0x0fu	/* atomic, ATOMIC_DISABLE PTE */

/* ---- encoders (nvidia-uvm's bit patterns) ---- */

/*
 * A PD3/PD2/PD1 entry pointing at a table at pa (4 KiB aligned) in
 * aperture ap (GA10X_PDE_APERTURE_*); INVALID gives 0, as uvm's make_pde
 * does for a missing table. nvidia-uvm always sets VOL in a PDE.
 */
static inline uint64_t ga10x_pde(unsigned int ap, uint64_t pa)
{
	uint64_t f = pa >> GA10X_PDE_ADDRESS_SHIFT << GA10X_PDE_ADDRESS_LSB;

	if (ap == GA10X_PDE_APERTURE_INVALID)
		return 0;
	f &= ap == GA10X_PDE_APERTURE_VIDEO ? GA10X_PDE_ADDRESS_VID_MASK
					    : GA10X_PDE_ADDRESS_SYS_MASK;
	return ((uint64_t)ap << GA10X_PDE_APERTURE_SHIFT) | GA10X_PDE_VOL | f;
}

/* The low word of a PD0 entry: its big-page table (256-byte aligned). */
static inline uint64_t ga10x_dual_pde_big(unsigned int ap, uint64_t pa)
{
	uint64_t f = pa >> GA10X_DUAL_PDE_ADDRESS_BIG_SHIFT <<
		     GA10X_DUAL_PDE_ADDRESS_BIG_LSB;

	if (ap == GA10X_PDE_APERTURE_INVALID)
		return 0;
	f &= ap == GA10X_PDE_APERTURE_VIDEO ?
	     GA10X_DUAL_PDE_ADDRESS_BIG_VID_MASK :
	     GA10X_DUAL_PDE_ADDRESS_BIG_SYS_MASK;
	return ((uint64_t)ap << GA10X_DUAL_PDE_APERTURE_BIG_SHIFT) |
	       GA10X_DUAL_PDE_VOL_BIG | f;
}

/* The high word of a PD0 entry: its 4 KiB-page table (4 KiB aligned). */
static inline uint64_t ga10x_dual_pde_small(unsigned int ap, uint64_t pa)
{
	uint64_t f = pa >> GA10X_DUAL_PDE_ADDRESS_SHIFT <<
		     GA10X_DUAL_PDE_ADDRESS_SMALL_LSB;

	if (ap == GA10X_PDE_APERTURE_INVALID)
		return 0;
	f &= ap == GA10X_PDE_APERTURE_VIDEO ?
	     GA10X_DUAL_PDE_ADDRESS_SMALL_VID_MASK :
	     GA10X_DUAL_PDE_ADDRESS_SMALL_SYS_MASK;
	return ((uint64_t)ap << GA10X_DUAL_PDE_APERTURE_SMALL_SHIFT) |
	       GA10X_DUAL_PDE_VOL_SMALL | f;
}

/*
 * A valid PTE of any page size for a page at pa in aperture ap
 * (GA10X_PTE_APERTURE_*), as nvidia-uvm's make_pte: flags are any of VOL,
 * PRIVILEGE, READ_ONLY, ATOMIC_DISABLE, ENCRYPTED; peer is the peer id of
 * a PEER aperture. Video and peer addresses above 37 bits continue in
 * COMPTAGLINE (Volta+).
 */
static inline uint64_t ga10x_pte(unsigned int ap, uint64_t pa, uint64_t flags,
				 unsigned int kind, unsigned int peer)
{
	uint64_t a = pa >> GA10X_PTE_ADDRESS_SHIFT;
	uint64_t e = GA10X_PTE_VALID | flags |
		     ((uint64_t)(ap & 3) << GA10X_PTE_APERTURE_SHIFT) |
		     ((uint64_t)(kind & 0xff) << GA10X_PTE_KIND_SHIFT);

	if (ap == GA10X_PTE_APERTURE_SYS_COH ||
	    ap == GA10X_PTE_APERTURE_SYS_NONCOH)
		return e | ((a << GA10X_PTE_ADDRESS_LSB) &
			    GA10X_PTE_ADDRESS_SYS_MASK);
	e |= (a << GA10X_PTE_ADDRESS_LSB) & GA10X_PTE_ADDRESS_VID_MASK;
	e |= ((a >> GA10X_PTE_ADDRESS_VID_BITS) << GA10X_PTE_COMPTAGLINE_SHIFT) &
	     GA10X_PTE_COMPTAGLINE_MASK;
	if (ap == GA10X_PTE_APERTURE_PEER)
		e |= ((uint64_t)peer << GA10X_PTE_ADDRESS_VID_PEER_SHIFT) &
		     GA10X_PTE_ADDRESS_VID_PEER_MASK;
	return e;
}

/* ---- decoders ---- */

static inline unsigned int ga10x_pte_aperture(uint64_t e)
{
	return (unsigned int)((e & GA10X_PTE_APERTURE_MASK) >>
			      GA10X_PTE_APERTURE_SHIFT);
}

/* The page address a valid PTE holds (video: ADDRESS_VID and COMPTAGLINE). */
static inline uint64_t ga10x_pte_address(uint64_t e)
{
	unsigned int ap = ga10x_pte_aperture(e);
	uint64_t a;

	if (ap == GA10X_PTE_APERTURE_SYS_COH ||
	    ap == GA10X_PTE_APERTURE_SYS_NONCOH)
		return ((e & GA10X_PTE_ADDRESS_SYS_MASK) >> GA10X_PTE_ADDRESS_LSB)
		       << GA10X_PTE_ADDRESS_SHIFT;
	a = (e & GA10X_PTE_ADDRESS_VID_MASK) >> GA10X_PTE_ADDRESS_LSB;
	a |= ((e & GA10X_PTE_COMPTAGLINE_MASK) >> GA10X_PTE_COMPTAGLINE_SHIFT)
	     << GA10X_PTE_ADDRESS_VID_BITS;
	return a << GA10X_PTE_ADDRESS_SHIFT;
}

static inline unsigned int ga10x_pde_aperture(uint64_t e)
{
	return (unsigned int)((e & GA10X_PDE_APERTURE_MASK) >>
			      GA10X_PDE_APERTURE_SHIFT);
}

/* The table address of a PD3/PD2/PD1 entry or a dual PDE's small half. */
static inline uint64_t ga10x_pde_address(uint64_t e)
{
	uint64_t m = ga10x_pde_aperture(e) == GA10X_PDE_APERTURE_VIDEO ?
		     GA10X_PDE_ADDRESS_VID_MASK : GA10X_PDE_ADDRESS_SYS_MASK;

	return ((e & m) >> GA10X_PDE_ADDRESS_LSB) << GA10X_PDE_ADDRESS_SHIFT;
}

/* The big-page table address of a dual PDE's low word. */
static inline uint64_t ga10x_dual_pde_big_address(uint64_t lo)
{
	uint64_t m = ga10x_pde_aperture(lo) == GA10X_PDE_APERTURE_VIDEO ?
		     GA10X_DUAL_PDE_ADDRESS_BIG_VID_MASK :
		     GA10X_DUAL_PDE_ADDRESS_BIG_SYS_MASK;

	return ((lo & m) >> GA10X_DUAL_PDE_ADDRESS_BIG_LSB) <<
	       GA10X_DUAL_PDE_ADDRESS_BIG_SHIFT;
}

#endif /* GA10X_MMU_V2_H */
