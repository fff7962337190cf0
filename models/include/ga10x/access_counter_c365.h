/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA class C365 (ACCESS_COUNTER_NOTIFY_BUFFER): the 32-byte
 * access-counter notification the GA10x personality writes into its
 * notification buffer, and the fields of the access-counter registers:
 * GET and PUT (plain entry indices: nvidia-uvm compares and writes them
 * raw), FULL (NVIDIA's NV_PFB_NISO_ACCESS_COUNTER_NOTIFY_BUFFER_INFO, which
 * the RM hands over as pAccessCntrBufferFull) and CONFIG (the layout of
 * NV_PFB_NISO_ACCESS_COUNTER_CONFIG, hwref gv100 dev_fb.h, written by the
 * stand-in). Bit positions and values are NVIDIA's; the names are ours.
 *
 * An entry is eight little-endian 32-bit words; word w holds NVIDIA's bits
 * w*32+31 .. w*32. nvidia-uvm's Ampere HAL parses it with
 * uvm_hal_volta_access_counter_buffer_parse_entry(): on Ampere it accepts
 * only virtual (GVA) notifications, whose INST and MMU_ENGINE_ID find the
 * VA space; ADDR is the full byte address (not a page number).
 */
#ifndef GA10X_ACCESS_COUNTER_C365_H
#define GA10X_ACCESS_COUNTER_C365_H

#include "emgpu_hw.h"

#define C365_ENTRY_SIZE			32
#define C365_ENTRY_WORDS		8

struct c365_entry {
	emgpu_le32 w[C365_ENTRY_WORDS];
};

/* word 0 */
#define C365_W0_TYPE			(1u << 0)	/* C365_TYPE_* */
#define C365_W0_ADDR_TYPE		(1u << 1)	/* C365_ADDR_TYPE_* */
#define C365_W0_BANK_SHIFT		2		/* [5:2] */
#define C365_W0_BANK_MASK		0x0000003cu
#define C365_W0_APERTURE_SHIFT		8		/* [9:8] */
#define C365_W0_APERTURE_MASK		0x00000300u
#define C365_W0_INST_APERTURE_SHIFT	10		/* [11:10] */
#define C365_W0_INST_APERTURE_MASK	0x00000c00u
#define C365_W0_INST_LO_MASK		0xfffff000u	/* instance address 31:12 */
/* word 1: INST_HI, instance address 63:32; words 2, 3: ADDR 31:0, 63:32 */
/* word 4: SUB_GRANULARITY, one bit per 1/32 of the counter's region */
/* word 5: NOTIFY_TAG [19:0] */
#define C365_W5_NOTIFY_TAG_MASK		0x000fffffu
/* word 6: COUNTER_VAL [15:0] */
#define C365_W6_COUNTER_VAL_MASK	0x0000ffffu
/* word 7 */
#define C365_W7_PEER_ID_MASK		0x00000007u	/* [2:0] */
#define C365_W7_MMU_ENGINE_ID_SHIFT	20		/* [28:20] */
#define C365_W7_MMU_ENGINE_ID_MASK	0x1ff00000u
#define C365_W7_VALID			(1u << 31)

/* TYPE: which counters notified. nvidia-uvm: CPU = MOMC, GPU = MIMC. */
#define C365_TYPE_CPU			0u	/* MOMC: inbound accesses to vidmem */
#define C365_TYPE_GPU			1u	/* MIMC: this GPU's accesses to sysmem */
#define C365_ADDR_TYPE_GVA		0u
#define C365_ADDR_TYPE_GPA		1u
/* APERTURE (GPA notifications) and INST_APERTURE */
#define C365_APERTURE_VID_MEM		0u
#define C365_APERTURE_PEER_MEM		1u	/* APERTURE only */
#define C365_APERTURE_SYS_MEM_COHERENT	2u
#define C365_APERTURE_SYS_MEM_NONCOHERENT 3u

/* GET and PUT: the entry index, PTR [19:0] */
#define C365_BUF_PTR_MASK		0x000fffffu
#define C365_BUF_MAX_ENTRIES		(C365_BUF_PTR_MASK + 1)

/* FULL register (NOTIFY_BUFFER_INFO), read-only */
#define C365_INFO_FULL			(1u << 0)	/* no room for one more entry */
#define C365_INFO_PUSHED		(1u << 1)	/* reset value 1 */
#define C365_INFO_WRITE_NACK		(1u << 24)

/* CONFIG (NV_PFB_NISO_ACCESS_COUNTER_CONFIG layout) */
#define C365_CONFIG_THRESHOLD_MASK	0x0000ffffu	/* [15:0] */
#define C365_CONFIG_MIMC_GRAN_SHIFT	16		/* [17:16] */
#define C365_CONFIG_MIMC_GRAN_MASK	0x00030000u
#define C365_CONFIG_MOMC_GRAN_SHIFT	18		/* [19:18] */
#define C365_CONFIG_MOMC_GRAN_MASK	0x000c0000u
#define C365_CONFIG_MIMC_USE_LIMIT_SHIFT 28		/* [29:28] */
#define C365_CONFIG_MIMC_USE_LIMIT_MASK	0x30000000u
#define C365_CONFIG_MOMC_USE_LIMIT_SHIFT 30		/* [31:30] */
#define C365_CONFIG_MOMC_USE_LIMIT_MASK	0xc0000000u
#define C365_CONFIG_VALID_MASK		0xf00fffffu
#define C365_GRAN_64K			0u
#define C365_GRAN_2M			1u
#define C365_GRAN_16M			2u
#define C365_GRAN_16G			3u
#define C365_USE_LIMIT_NONE		0u
#define C365_USE_LIMIT_QTR		1u
#define C365_USE_LIMIT_HALF		2u
#define C365_USE_LIMIT_FULL		3u

/* One notification's fields, decoded. */
struct c365_notify {
	uint32_t type;			/* C365_TYPE_* */
	uint32_t addr_type;		/* C365_ADDR_TYPE_* */
	uint32_t bank;			/* [3:0], opaque: a targeted clear names it */
	uint32_t aperture;		/* GPA: C365_APERTURE_* */
	uint32_t inst_aperture;		/* GVA: C365_APERTURE_* but PEER */
	uint64_t inst;			/* GVA: instance block, 4 KiB aligned */
	uint64_t addr;			/* byte address of the counted region */
	uint32_t sub_granularity;
	uint32_t notify_tag;		/* [19:0], opaque: a targeted clear names it */
	uint32_t counter_val;		/* [15:0] */
	uint32_t peer_id;		/* GPA peer */
	uint32_t mmu_engine_id;		/* GVA: as C369 ENGINE_ID */
	uint8_t valid;
};

static inline void c365_encode(const struct c365_notify *n, struct c365_entry *e)
{
	e->w[0] = emgpu_cpu_to_le32((n->type ? C365_W0_TYPE : 0) |
				    (n->addr_type ? C365_W0_ADDR_TYPE : 0) |
				    (n->bank << C365_W0_BANK_SHIFT & C365_W0_BANK_MASK) |
				    (n->aperture << C365_W0_APERTURE_SHIFT &
				     C365_W0_APERTURE_MASK) |
				    (n->inst_aperture << C365_W0_INST_APERTURE_SHIFT &
				     C365_W0_INST_APERTURE_MASK) |
				    ((uint32_t)n->inst & C365_W0_INST_LO_MASK));
	e->w[1] = emgpu_cpu_to_le32((uint32_t)(n->inst >> 32));
	e->w[2] = emgpu_cpu_to_le32((uint32_t)n->addr);
	e->w[3] = emgpu_cpu_to_le32((uint32_t)(n->addr >> 32));
	e->w[4] = emgpu_cpu_to_le32(n->sub_granularity);
	e->w[5] = emgpu_cpu_to_le32(n->notify_tag & C365_W5_NOTIFY_TAG_MASK);
	e->w[6] = emgpu_cpu_to_le32(n->counter_val & C365_W6_COUNTER_VAL_MASK);
	e->w[7] = emgpu_cpu_to_le32((n->peer_id & C365_W7_PEER_ID_MASK) |
				    (n->mmu_engine_id << C365_W7_MMU_ENGINE_ID_SHIFT &
				     C365_W7_MMU_ENGINE_ID_MASK) |
				    (n->valid ? C365_W7_VALID : 0));
}

static inline void c365_decode(const struct c365_entry *e, struct c365_notify *n)
{
	uint32_t w0 = emgpu_le32_to_cpu(e->w[0]), w7 = emgpu_le32_to_cpu(e->w[7]);

	n->type = !!(w0 & C365_W0_TYPE);
	n->addr_type = !!(w0 & C365_W0_ADDR_TYPE);
	n->bank = (w0 & C365_W0_BANK_MASK) >> C365_W0_BANK_SHIFT;
	n->aperture = (w0 & C365_W0_APERTURE_MASK) >> C365_W0_APERTURE_SHIFT;
	n->inst_aperture = (w0 & C365_W0_INST_APERTURE_MASK) >>
			   C365_W0_INST_APERTURE_SHIFT;
	n->inst = (uint64_t)emgpu_le32_to_cpu(e->w[1]) << 32 |
		  (w0 & C365_W0_INST_LO_MASK);
	n->addr = (uint64_t)emgpu_le32_to_cpu(e->w[3]) << 32 |
		  emgpu_le32_to_cpu(e->w[2]);
	n->sub_granularity = emgpu_le32_to_cpu(e->w[4]);
	n->notify_tag = emgpu_le32_to_cpu(e->w[5]) & C365_W5_NOTIFY_TAG_MASK;
	n->counter_val = emgpu_le32_to_cpu(e->w[6]) & C365_W6_COUNTER_VAL_MASK;
	n->peer_id = w7 & C365_W7_PEER_ID_MASK;
	n->mmu_engine_id = (w7 & C365_W7_MMU_ENGINE_ID_MASK) >>
			   C365_W7_MMU_ENGINE_ID_SHIFT;
	n->valid = !!(w7 & C365_W7_VALID);
}

#endif /* GA10X_ACCESS_COUNTER_C365_H */
