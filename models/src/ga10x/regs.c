/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: the BAR0 block of include/ga10x/regs.h. PTIMER and
 * the doorbell are here; every other offset goes to the unit that owns it.
 */
#include <stdlib.h>

#include "../internal.h"
#include "ga10x.h"

int ga10x_init(struct gm_gpu *g)
{
	g->nv = calloc(1, sizeof(*g->nv));
	return g->nv ? 0 : -1;
}

void ga10x_fini(struct gm_gpu *g)
{
	free(g->nv);
	g->nv = NULL;
}

void ga10x_reset(struct gm_gpu *g)
{
	memset(g->nv, 0, sizeof(*g->nv));
}

uint32_t ga10x_reg_read(struct gm_gpu *g, uint32_t off)
{
	uint32_t v;

	switch (off) {
	case GA10X_REG_PTIMER_TIME_0: {
		uint64_t ns = gm_now_ns(g);

		/* TIME_1 is not latched on hardware: nvidia-uvm reads 1, 0, 1
		 * and retries on a carry; keep TIME_1 live as it is there. */
		return (uint32_t)ns;
	}
	case GA10X_REG_PTIMER_TIME_1:
		return (uint32_t)(gm_now_ns(g) >> 32);
	case GA10X_REG_LAUNCH_CHANNEL:
		return g->nv->sm.launch_channel;
	}
	if (!ga10x_fifo_reg_read(g, off, &v) ||
	    !ga10x_faults_reg_read(g, off, &v) ||
	    !ga10x_mmu_reg_read(g, off, &v))
		return v;
	gm_error(g, EMGPU_ERR_BAD_REGISTER, off);
	return 0;
}

unsigned int gm_poll(struct gm_gpu *g)
{
	return g->nv ? ga10x_fifo_poll(g) : 0;
}

void ga10x_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	if (off == GA10X_REG_DOORBELL) {
		ga10x_fifo_doorbell(g, v);
		return;
	}
	if (off == GA10X_REG_LAUNCH_CHANNEL) {
		/* checked at the launch doorbell, when the channel must be ready */
		if (v >= GA10X_CHANNELS)
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		else
			g->nv->sm.launch_channel = v;
		return;
	}
	if (!ga10x_fifo_reg_write(g, off, v) ||
	    !ga10x_faults_reg_write(g, off, v) ||
	    !ga10x_mmu_reg_write(g, off, v))
		return;
	gm_error(g, EMGPU_ERR_BAD_REGISTER, off);
}
