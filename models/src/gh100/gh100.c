/* SPDX-License-Identifier: MIT */
/*
 * GH100 personality: its ops table (../personality.h), on GA10x's units
 * with Hopper's page tables and engine ids (gh100.h says what is shared).
 */
#include "../internal.h"
#include "gh100.h"
#include "ga10x/mmu_v2.h"
#include "gh100/ce_c8b5.h"
#include "gh100/host_c86f.h"
#include "gh100/mmu_v3.h"
#include "gh100/regs.h"

/* Hopper: MMU VER3, 57-bit VAs and their upper half, its engine ids,
 * host class c86f, copy class c8b5 */
static const struct ga10x_arch gh100_hopper = {
	.va_bits = GH100_MMU_VA_BITS,
	.canonical = 1,
	.walk = gh100_mmu_walk_v3,
	.mmu_eng_graphics = GH100_MMU_ENG_ID_GRAPHICS,
	.sem_addr_hi_mask = C86F_SEM_ADDR_HI_MASK,
	.cancel_eng_id_mask = C86F_MEM_OP_A_CANCEL_MMU_ENGINE_ID_MASK,
	.pb_extended_base = 1,
	.ce_class = HOPPER_DMA_COPY_A_CLASS,
	.ce_upper_mask = C8B5_UPPER_MASK,
	.ce_scrub = 1,
};

static int gh100_init(struct gm_gpu *g)
{
	return ga10x_init_arch(g, &gh100_hopper);
}

const struct gm_personality_ops gm_gh100_personality = {
	.desc = {
		.regs_size = GA10X_REGS_SIZE,
		.pci_device_id = GH100_PCI_DEVICE_ID,
		.msix_vectors = GA10X_MSIX_VECTORS,
		.vram_bar = GA10X_BAR_VRAM,
		.vram_bar_max = GA10X_BAR2_SIZE_MAX,
		.polls = 1,
		.reg_name = ga10x_reg_name,
	},
	.init = gh100_init,
	GA10X_SHARED_OPS,
};
