/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: its ops table (../personality.h), its state's
 * lifetime, and the BAR0 block of include/ga10x/regs.h. PTIMER and the
 * doorbell are here; every other offset goes to the unit that owns it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "ga10x.h"
#include "ga10x/ce_c7b5.h"
#include "ga10x/fault_c369.h"
#include "ga10x/host_c56f.h"
#include "ga10x/mmu_v2.h"

/* Ampere: MMU VER2 (include/ga10x/mmu_v2.h), 49-bit VAs, no upper half,
 * host class c56f, copy class c7b5 */
static const struct ga10x_arch ga10x_ampere = {
	.va_bits = GA10X_MMU_VA_BITS,
	.canonical = 0,
	.walk = ga10x_mmu_walk_v2,
	.mmu_eng_graphics = C369_MMU_ENG_ID_GRAPHICS,
	.sem_addr_hi_mask = C56F_SEM_ADDR_HI_MASK,
	.cancel_eng_id_mask = C56F_MEM_OP_A_CANCEL_MMU_ENGINE_ID_MASK,
	.pb_extended_base = 0,
	.ce_class = AMPERE_DMA_COPY_B_CLASS,
	.ce_upper_mask = C7B5_OFFSET_UPPER_MASK,
	.ce_scrub = 0,
};

int ga10x_init_arch(struct gm_gpu *g, const struct ga10x_arch *arch)
{
	struct gm_ga10x *nv = calloc(1, sizeof(*nv));

	if (!nv)
		return -1;
	nv->arch = arch;
	g->pers.priv = nv;
	return 0;
}

static int ga10x_init(struct gm_gpu *g)
{
	return ga10x_init_arch(g, &ga10x_ampere);
}

void ga10x_fini(struct gm_gpu *g)
{
	free(g->pers.priv);
	g->pers.priv = NULL;
}

void ga10x_reset(struct gm_gpu *g)
{
	struct gm_ga10x *nv = ga10x_state(g);
	const struct ga10x_arch *arch = nv->arch;

	memset(nv, 0, sizeof(*nv));
	nv->arch = arch;
}

/* below GA10X_REG_BASE: emgpu_hw.h's registers, the shared register file */
static int ga10x_own_reg(uint32_t off)
{
	return off >= GA10X_REG_BASE && off < GA10X_REGS_SIZE;
}

int ga10x_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v)
{
	if (!ga10x_own_reg(off))
		return -1;
	switch (off) {
	case GA10X_REG_PTIMER_TIME_0:
		/* TIME_1 is not latched on hardware: nvidia-uvm reads 1, 0, 1
		 * and retries on a carry; keep TIME_1 live as it is there. */
		*v = (uint32_t)gm_now_ns(g);
		return 0;
	case GA10X_REG_PTIMER_TIME_1:
		*v = (uint32_t)(gm_now_ns(g) >> 32);
		return 0;
	case GA10X_REG_LAUNCH_CHANNEL:
		*v = ga10x_state(g)->sm.launch_channel;
		return 0;
	}
	if (!ga10x_fifo_reg_read(g, off, v) ||
	    !ga10x_faults_reg_read(g, off, v) ||
	    !ga10x_mmu_reg_read(g, off, v))
		return 0;
	gm_error(g, EMGPU_ERR_BAD_REGISTER, off);
	*v = 0;
	return 0;
}

int ga10x_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	if (!ga10x_own_reg(off))
		return -1;
	if (off == GA10X_REG_DOORBELL) {
		ga10x_fifo_doorbell(g, v);
		return 0;
	}
	if (off == GA10X_REG_LAUNCH_CHANNEL) {
		/* checked at the launch doorbell, when the channel must be ready */
		if (v >= GA10X_CHANNELS)
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		else
			ga10x_state(g)->sm.launch_channel = v;
		return 0;
	}
	if (!ga10x_fifo_reg_write(g, off, v) ||
	    !ga10x_faults_reg_write(g, off, v) ||
	    !ga10x_mmu_reg_write(g, off, v))
		return 0;
	gm_error(g, EMGPU_ERR_BAD_REGISTER, off);
	return 0;
}

/* gm_personality_desc()'s reg_name: the block's names, for traces */
const char *ga10x_reg_name(uint32_t off, char *buf, size_t len)
{
	static const struct {
		uint32_t off;
		const char *name;
	} regs[] = {
#define REG(r) { GA10X_REG_##r, #r }
		REG(PTIMER_TIME_0), REG(PTIMER_TIME_1), REG(DOORBELL),
		REG(LAUNCH_CHANNEL),
		REG(INTR_LEAF), REG(INTR_EN_SET), REG(INTR_EN_CLEAR),
		REG(INTR_EN),
		REG(FAULT_BUF_LO), REG(FAULT_BUF_HI), REG(FAULT_BUF_SIZE),
		REG(FAULT_BUF_GET), REG(FAULT_BUF_PUT), REG(FAULT_BUF_INFO),
		REG(PAGE_FAULT_CTRL), REG(FAULT_BUF_CTRL),
		REG(AC_BUF_LO), REG(AC_BUF_HI), REG(AC_BUF_SIZE),
		REG(AC_BUF_GET), REG(AC_BUF_PUT), REG(AC_BUF_FULL),
		REG(AC_CONFIG), REG(AC_CTRL),
		REG(MMU_INVALIDATE_PDB_LO), REG(MMU_INVALIDATE_PDB_HI),
		REG(MMU_INVALIDATE),
#undef REG
	};
	static const char *const chan_regs[GA10X_REG_CHAN_STRIDE / 4] = {
		"INST_LO", "INST_HI", "PDB_LO", "PDB_HI", "GPFIFO_LO",
		"GPFIFO_HI", "GPFIFO_ENTRIES", "USERD_LO", "USERD_HI",
		"NOTIFIER_LO", "NOTIFIER_HI", "ENGINE", "CTRL", "STATUS",
		"TOKEN",
	};
	uint32_t in;
	size_t i;

	if (!ga10x_own_reg(off))
		return NULL;
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (regs[i].off == off)
			return regs[i].name;
	if (off < GA10X_REG_CHAN_BASE ||
	    off >= GA10X_REG_CHAN(GA10X_CHANNELS, 0))
		return "?";
	in = (off - GA10X_REG_CHAN_BASE) % GA10X_REG_CHAN_STRIDE / 4;
	snprintf(buf, len, "CHAN%u_%s",
		 (unsigned int)((off - GA10X_REG_CHAN_BASE) /
				GA10X_REG_CHAN_STRIDE),
		 chan_regs[in] ? chan_regs[in] : "?");
	return buf;
}

const struct gm_personality_ops gm_ga10x_personality = {
	.desc = {
		.regs_size = GA10X_REGS_SIZE,
		.pci_device_id = GA10X_PCI_DEVICE_ID,
		.msix_vectors = GA10X_MSIX_VECTORS,
		.vram_bar = GA10X_BAR_VRAM,
		.vram_bar_max = GA10X_BAR2_SIZE_MAX,
		.polls = 1,
		.reg_name = ga10x_reg_name,
	},
	.init = ga10x_init,
	GA10X_SHARED_OPS,
};
