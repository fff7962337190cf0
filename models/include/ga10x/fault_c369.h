/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA class C369 (MMU_FAULT_BUFFER): the 32-byte replayable fault entry
 * the GA10x personality writes into its fault buffer, the codes it carries
 * (hwref ampere/ga100 dev_fault.h) and the fields of the fault-buffer
 * registers nvidia-uvm reads and writes: GET and PUT (hwref volta/gv100
 * dev_fb.h NV_PFB_PRI_MMU_FAULT_BUFFER_GET/PUT) and PAGE_FAULT_CTRL (hwref
 * pascal/gp100 dev_fb.h). Bit positions and values are NVIDIA's; the names
 * are ours.
 *
 * An entry is eight little-endian 32-bit words; word w holds NVIDIA's bits
 * w*32+31 .. w*32 of the entry. nvidia-uvm's Ampere HAL parses it with
 * uvm_hal_volta_fault_buffer_parse_replayable_entry() and tests and clears
 * VALID with the Pascal functions (same bit: word 7 bit 31).
 */
#ifndef GA10X_FAULT_C369_H
#define GA10X_FAULT_C369_H

#include "emgpu_hw.h"

#define C369_ENTRY_SIZE			32
#define C369_ENTRY_WORDS		8

struct c369_entry {
	emgpu_le32 w[C369_ENTRY_WORDS];
};

/* word 0: INST_APERTURE [9:8], INST_LO [31:12] (instance address 31:12) */
#define C369_W0_INST_APERTURE_SHIFT	8
#define C369_W0_INST_APERTURE_MASK	0x00000300u
#define C369_W0_INST_LO_MASK		0xfffff000u
/* word 1: INST_HI, instance address 63:32 */
/* word 2: ADDR_PHYS_APERTURE [1:0], ADDR_LO [31:12] (address 31:12) */
#define C369_W2_ADDR_PHYS_APERTURE_MASK	0x00000003u
#define C369_W2_ADDR_LO_MASK		0xfffff000u
/* word 3: ADDR_HI, address 63:32; words 4, 5: TIMESTAMP 31:0, 63:32 (ns) */
/* word 6: ENGINE_ID [8:0] */
#define C369_W6_ENGINE_ID_MASK		0x000001ffu
/* word 7 */
#define C369_W7_FAULT_TYPE_MASK		0x0000001fu	/* [4:0] */
#define C369_W7_REPLAYABLE_FAULT	(1u << 7)
#define C369_W7_CLIENT_SHIFT		8		/* [14:8] */
#define C369_W7_CLIENT_MASK		0x00007f00u
#define C369_W7_ACCESS_TYPE_SHIFT	16		/* [19:16] */
#define C369_W7_ACCESS_TYPE_MASK	0x000f0000u
#define C369_W7_MMU_CLIENT_TYPE_SHIFT	20		/* [20] */
#define C369_W7_MMU_CLIENT_TYPE_MASK	0x00100000u
#define C369_W7_GPC_ID_SHIFT		24		/* [28:24] */
#define C369_W7_GPC_ID_MASK		0x1f000000u
#define C369_W7_PROTECTED_MODE		(1u << 29)
#define C369_W7_REPLAYABLE_FAULT_EN	(1u << 30)	/* nvidia-uvm asserts it */
#define C369_W7_VALID			(1u << 31)

/* INST_APERTURE values (ADDR_PHYS_APERTURE uses the same encoding) */
#define C369_APERTURE_VID_MEM		0u
#define C369_APERTURE_SYS_MEM_COHERENT	2u
#define C369_APERTURE_SYS_MEM_NONCOHERENT 3u

/* FAULT_TYPE (NV_PFAULT_FAULT_TYPE_*) */
#define C369_FAULT_TYPE_PDE			0x00u
#define C369_FAULT_TYPE_PDE_SIZE		0x01u
#define C369_FAULT_TYPE_PTE			0x02u
#define C369_FAULT_TYPE_VA_LIMIT_VIOLATION	0x03u
#define C369_FAULT_TYPE_UNBOUND_INST_BLOCK	0x04u
#define C369_FAULT_TYPE_PRIV_VIOLATION		0x05u
#define C369_FAULT_TYPE_RO_VIOLATION		0x06u
#define C369_FAULT_TYPE_WO_VIOLATION		0x07u
#define C369_FAULT_TYPE_PITCH_MASK_VIOLATION	0x08u
#define C369_FAULT_TYPE_WORK_CREATION		0x09u
#define C369_FAULT_TYPE_UNSUPPORTED_APERTURE	0x0au
#define C369_FAULT_TYPE_COMPRESSION_FAILURE	0x0bu
#define C369_FAULT_TYPE_UNSUPPORTED_KIND	0x0cu
#define C369_FAULT_TYPE_REGION_VIOLATION	0x0du
#define C369_FAULT_TYPE_POISONED		0x0eu
#define C369_FAULT_TYPE_ATOMIC_VIOLATION	0x0fu

/* ACCESS_TYPE (NV_PFAULT_ACCESS_TYPE_*): virtual, and physical ones */
#define C369_ACCESS_VIRT_READ		0x0u
#define C369_ACCESS_VIRT_WRITE		0x1u
#define C369_ACCESS_VIRT_ATOMIC_STRONG	0x2u
#define C369_ACCESS_VIRT_PREFETCH	0x3u
#define C369_ACCESS_VIRT_ATOMIC_WEAK	0x4u
#define C369_ACCESS_PHYS_READ		0x8u
#define C369_ACCESS_PHYS_WRITE		0x9u
#define C369_ACCESS_PHYS_ATOMIC		0xau
#define C369_ACCESS_PHYS_PREFETCH	0xbu

/* MMU_CLIENT_TYPE */
#define C369_MMU_CLIENT_TYPE_GPC	0u
#define C369_MMU_CLIENT_TYPE_HUB	1u

/*
 * CLIENT for GPC faults (NV_PFAULT_CLIENT_GPC_*), the ones that map to a
 * uTLB in uvm_hal_ampere_mmu_client_id_to_utlb_id(): RAST, GCC and GPCCS
 * go to the RGG uTLB (0); T1_(2k) to LTP uTLB 2k+1; T1_(2k+1), PE_k and
 * TPCCS_k to LTP uTLB 2k+2.
 */
#define C369_CLIENT_GPC_T1(n)		((n) < 8 ? (n) : 0x21u + (n) - 8)	/* n < 16 */
#define C369_CLIENT_GPC_PE(n)		(0x08u + (n))	/* n < 8 */
#define C369_CLIENT_GPC_RAST		0x10u
#define C369_CLIENT_GPC_GCC		0x11u
#define C369_CLIENT_GPC_GPCCS		0x12u
#define C369_CLIENT_GPC_TPCCS(n)	(0x29u + (n))	/* n < 8 */

/* ENGINE_ID (NV_PFAULT_MMU_ENG_ID_*): graphics faults report GRAPHICS + VEID */
#define C369_MMU_ENG_ID_CE0		15u	/* CE0..CE9: 15..24 */
#define C369_MMU_ENG_ID_HOST0		32u	/* HOST0..HOST31: 32..63 */
#define C369_MMU_ENG_ID_GRAPHICS	64u	/* + VEID, below BAR1 */
#define C369_MMU_ENG_ID_BAR1		128u

/*
 * Fault-buffer GET and PUT registers: PTR [19:0] is the entry index, with
 * two status bits beside it. PUT is read-only. Writing GET sets PTR; a 1
 * in GETPTR_CORRUPTED or OVERFLOW clears that condition (nvidia-uvm writes
 * PTR alone first, then PTR with both clears, so that a fault arriving
 * between the two cannot re-assert OVERFLOW).
 */
#define C369_BUF_PTR_MASK		0x000fffffu
#define C369_BUF_MAX_ENTRIES		(C369_BUF_PTR_MASK + 1)
#define C369_BUF_GETPTR_CORRUPTED	(1u << 30)
#define C369_BUF_OVERFLOW		(1u << 31)

/* PAGE_FAULT_CTRL: PRF_FILTER [1:0], whether prefetch faults are reported */
#define C369_PAGE_FAULT_CTRL_PRF_FILTER_MASK	0x3u
#define C369_PAGE_FAULT_CTRL_PRF_SEND_ALL	0x0u	/* reset value */
#define C369_PAGE_FAULT_CTRL_PRF_SEND_NONE	0x3u

/* One entry's fields, decoded. Addresses are byte addresses. */
struct c369_fault {
	uint64_t inst;			/* instance block, 4 KiB aligned */
	uint32_t inst_aperture;		/* C369_APERTURE_* */
	uint64_t addr;			/* faulting address, 4 KiB aligned */
	uint32_t addr_phys_aperture;	/* physical faults only */
	uint64_t timestamp;		/* ns, PTIMER */
	uint32_t engine_id;		/* C369_MMU_ENG_ID_* */
	uint32_t fault_type;		/* C369_FAULT_TYPE_* */
	uint32_t client;		/* C369_CLIENT_* */
	uint32_t access_type;		/* C369_ACCESS_* */
	uint32_t client_type;		/* C369_MMU_CLIENT_TYPE_* */
	uint32_t gpc_id;
	uint8_t replayable, protected_mode, replayable_en, valid;
};

static inline void c369_encode(const struct c369_fault *f, struct c369_entry *e)
{
	uint32_t w7;

	e->w[0] = emgpu_cpu_to_le32(((uint32_t)f->inst & C369_W0_INST_LO_MASK) |
				    (f->inst_aperture << C369_W0_INST_APERTURE_SHIFT &
				     C369_W0_INST_APERTURE_MASK));
	e->w[1] = emgpu_cpu_to_le32((uint32_t)(f->inst >> 32));
	e->w[2] = emgpu_cpu_to_le32(((uint32_t)f->addr & C369_W2_ADDR_LO_MASK) |
				    (f->addr_phys_aperture &
				     C369_W2_ADDR_PHYS_APERTURE_MASK));
	e->w[3] = emgpu_cpu_to_le32((uint32_t)(f->addr >> 32));
	e->w[4] = emgpu_cpu_to_le32((uint32_t)f->timestamp);
	e->w[5] = emgpu_cpu_to_le32((uint32_t)(f->timestamp >> 32));
	e->w[6] = emgpu_cpu_to_le32(f->engine_id & C369_W6_ENGINE_ID_MASK);
	w7 = (f->fault_type & C369_W7_FAULT_TYPE_MASK) |
	     (f->client << C369_W7_CLIENT_SHIFT & C369_W7_CLIENT_MASK) |
	     (f->access_type << C369_W7_ACCESS_TYPE_SHIFT &
	      C369_W7_ACCESS_TYPE_MASK) |
	     (f->client_type << C369_W7_MMU_CLIENT_TYPE_SHIFT &
	      C369_W7_MMU_CLIENT_TYPE_MASK) |
	     (f->gpc_id << C369_W7_GPC_ID_SHIFT & C369_W7_GPC_ID_MASK) |
	     (f->replayable ? C369_W7_REPLAYABLE_FAULT : 0) |
	     (f->protected_mode ? C369_W7_PROTECTED_MODE : 0) |
	     (f->replayable_en ? C369_W7_REPLAYABLE_FAULT_EN : 0) |
	     (f->valid ? C369_W7_VALID : 0);
	e->w[7] = emgpu_cpu_to_le32(w7);
}

static inline void c369_decode(const struct c369_entry *e, struct c369_fault *f)
{
	uint32_t w0 = emgpu_le32_to_cpu(e->w[0]), w2 = emgpu_le32_to_cpu(e->w[2]);
	uint32_t w7 = emgpu_le32_to_cpu(e->w[7]);

	f->inst = (uint64_t)emgpu_le32_to_cpu(e->w[1]) << 32 |
		  (w0 & C369_W0_INST_LO_MASK);
	f->inst_aperture = (w0 & C369_W0_INST_APERTURE_MASK) >>
			   C369_W0_INST_APERTURE_SHIFT;
	f->addr = (uint64_t)emgpu_le32_to_cpu(e->w[3]) << 32 |
		  (w2 & C369_W2_ADDR_LO_MASK);
	f->addr_phys_aperture = w2 & C369_W2_ADDR_PHYS_APERTURE_MASK;
	f->timestamp = (uint64_t)emgpu_le32_to_cpu(e->w[5]) << 32 |
		       emgpu_le32_to_cpu(e->w[4]);
	f->engine_id = emgpu_le32_to_cpu(e->w[6]) & C369_W6_ENGINE_ID_MASK;
	f->fault_type = w7 & C369_W7_FAULT_TYPE_MASK;
	f->client = (w7 & C369_W7_CLIENT_MASK) >> C369_W7_CLIENT_SHIFT;
	f->access_type = (w7 & C369_W7_ACCESS_TYPE_MASK) >>
			 C369_W7_ACCESS_TYPE_SHIFT;
	f->client_type = (w7 & C369_W7_MMU_CLIENT_TYPE_MASK) >>
			 C369_W7_MMU_CLIENT_TYPE_SHIFT;
	f->gpc_id = (w7 & C369_W7_GPC_ID_MASK) >> C369_W7_GPC_ID_SHIFT;
	f->replayable = !!(w7 & C369_W7_REPLAYABLE_FAULT);
	f->protected_mode = !!(w7 & C369_W7_PROTECTED_MODE);
	f->replayable_en = !!(w7 & C369_W7_REPLAYABLE_FAULT_EN);
	f->valid = !!(w7 & C369_W7_VALID);
}

static inline int c369_is_prefetch(uint32_t access_type)
{
	return access_type == C369_ACCESS_VIRT_PREFETCH ||
	       access_type == C369_ACCESS_PHYS_PREFETCH;
}

#endif /* GA10X_FAULT_C369_H */
