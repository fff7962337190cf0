/* SPDX-License-Identifier: MIT */
/*
 * emgpu's own personality (emgpu_hw.h, driven by ember.ko): the shared
 * register file alone, accesses through the model's page tables and TLBs
 * (mmu.c, sm.c), faults and notifications into emgpu_hw.h's rings
 * (fault.c, counters.c), and a driver that answers every stop with SYNC.
 * It keeps no state of its own.
 */
#include "internal.h"

static int no_state_init(struct gm_gpu *g)
{
	(void)g;
	return 0;
}

static void no_state(struct gm_gpu *g)
{
	(void)g;
}

static int no_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v)
{
	(void)g, (void)off, (void)v;
	return -1;
}

static int no_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	(void)g, (void)off, (void)v;
	return -1;
}

static unsigned int nothing_blocked(struct gm_gpu *g)
{
	(void)g;
	return 0;
}

/* a launch runs in the address space of PDB_LO/_HI */
static int no_context(struct gm_gpu *g, uint32_t *info)
{
	(void)g, (void)info;
	return 0;
}

/* ember.ko answers every stop, a timer tick's included, with SYNC */
static int sync_answers(struct gm_gpu *g, enum gm_stop why)
{
	(void)g, (void)why;
	return 1;
}

/* the rings' PUT moves as entries are written: nothing to hand over */
static void nothing_held(struct gm_gpu *g, enum gm_stop why)
{
	(void)g, (void)why;
}

const struct gm_personality_ops gm_emgpu_personality = {
	.desc = {
		.regs_size = EMGPU_REGS_SIZE,
		.pci_device_id = EMGPU_PCI_DEVICE_ID,
		.msix_vectors = EMGPU_MSIX_VECTORS,
		/* no VRAM window, no block of its own, nothing to poll */
	},
	.init = no_state_init,
	.reset = no_state,
	.fini = no_state,
	.reg_read = no_reg_read,
	.reg_write = no_reg_write,
	.poll = nothing_blocked,
	.launch_bind = no_context,
	.warp_load = gm_emgpu_warp_load,
	.warp_store = gm_emgpu_warp_store,
	.ac_notify = gm_emgpu_ac_notify,
	.stop_waits = sync_answers,
	.stop_publish = nothing_held,
	.sync = no_state,
};
