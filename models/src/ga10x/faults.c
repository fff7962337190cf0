/* SPDX-License-Identifier: MIT */
/* GA10x personality: to be written (registers refused as unknown until then). */
#include "../internal.h"
#include "ga10x.h"

int ga10x_faults_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v)
{
	(void)g; (void)off; (void)v;
	return -1;
}

int ga10x_faults_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	(void)g; (void)off; (void)v;
	return -1;
}

void ga10x_intr_raise(struct gm_gpu *g, uint32_t leaf_bits)
{
	(void)g; (void)leaf_bits;
}

void ga10x_fault_replay(struct gm_gpu *g, const struct ga10x_replay *r)
{
	(void)g; (void)r;
}

void ga10x_ac_clear(struct gm_gpu *g, const struct ga10x_ac_clear *c)
{
	(void)g; (void)c;
}
