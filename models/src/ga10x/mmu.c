/* SPDX-License-Identifier: MIT */
/* GA10x personality: to be written (registers refused as unknown until then). */
#include "../internal.h"
#include "ga10x.h"

int ga10x_mmu_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v)
{
	(void)g; (void)off; (void)v;
	return -1;
}

int ga10x_mmu_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	(void)g; (void)off; (void)v;
	return -1;
}

int ga10x_translate(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		    unsigned int access, struct ga10x_xlate *out)
{
	(void)g; (void)pdb; (void)va; (void)access; (void)out;
	return -EMGPU_ERR_BAD_PTE;
}

void ga10x_tlb_invalidate(struct gm_gpu *g, int all_pdbs, uint64_t pdb,
			  uint64_t va, uint64_t end)
{
	(void)g; (void)all_pdbs; (void)pdb; (void)va; (void)end;
}
