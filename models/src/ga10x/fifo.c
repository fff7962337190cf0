/* SPDX-License-Identifier: MIT */
/* GA10x personality: to be written (registers refused as unknown until then). */
#include "../internal.h"
#include "ga10x.h"

int ga10x_fifo_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v)
{
	(void)g; (void)off; (void)v;
	return -1;
}

int ga10x_fifo_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	(void)g; (void)off; (void)v;
	return -1;
}

void ga10x_fifo_doorbell(struct gm_gpu *g, uint32_t token)
{
	gm_error(g, EMGPU_ERR_BAD_VALUE, token);
}

unsigned int ga10x_fifo_poll(struct gm_gpu *g)
{
	(void)g;
	return 0;
}
