// SPDX-License-Identifier: GPL-2.0
/*
 * GPU page tables of a VA space: emgpu's VER2-like radix tree
 * (PD3 -> PD2 -> PD1 -> PT, 512 8-byte entries each), kept in coherent
 * sysmem. Directories are created on demand and live as long as the VA
 * space; a VA block maps exactly one leaf table (2 MiB = 512 x 4 KiB), which
 * it caches. PTEs themselves are written by the block code under the block
 * lock; a changed or removed valid PTE is always followed by a TLB
 * invalidate (ember_tlb_invalidate) before the old target is reused.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "ember_drv.h"

static struct ember_pt *pt_alloc(struct ember_gpu *gpu, bool directory)
{
	struct ember_pt *pt = kzalloc(sizeof(*pt), GFP_KERNEL);

	if (!pt)
		return NULL;
	pt->cpu = dma_alloc_coherent(&gpu->pdev->dev, PAGE_SIZE, &pt->dma,
				     GFP_KERNEL);
	if (directory)
		pt->child = kcalloc(EMGPU_PT_ENTRIES, sizeof(*pt->child),
				    GFP_KERNEL);
	if (!pt->cpu || (directory && !pt->child)) {
		if (pt->cpu)
			dma_free_coherent(&gpu->pdev->dev, PAGE_SIZE, pt->cpu,
					  pt->dma);
		kfree(pt->child);
		kfree(pt);
		return NULL;
	}
	return pt;
}

static void pt_free(struct ember_gpu *gpu, struct ember_pt *pt)
{
	unsigned int i;

	if (!pt)
		return;
	if (pt->child) {
		for (i = 0; i < EMGPU_PT_ENTRIES; i++)
			pt_free(gpu, pt->child[i]);
		kfree(pt->child);
	}
	dma_free_coherent(&gpu->pdev->dev, PAGE_SIZE, pt->cpu, pt->dma);
	kfree(pt);
}

/* A directory entry or the PDB pointing at a table in sysmem. */
static u64 ember_pde(dma_addr_t table)
{
	return emgpu_pte_encode(EMGPU_APERTURE_SYSMEM, table, 0);
}

/* VRAM pages never count accesses (ACD): counters watch host memory. */
u64 ember_pte_vidmem(u64 addr)
{
	return emgpu_pte_encode(EMGPU_APERTURE_VIDMEM, addr, EMGPU_PTE_ACD);
}

u64 ember_pte_sysmem(u64 addr, bool count_accesses)
{
	return emgpu_pte_encode(EMGPU_APERTURE_SYSMEM, addr,
				count_accesses ? 0 : EMGPU_PTE_ACD);
}

int ember_mmu_init(struct ember_va_space *vs)
{
	vs->pt_root = pt_alloc(vs->gpu, true);
	return vs->pt_root ? 0 : -ENOMEM;
}

void ember_mmu_fini(struct ember_va_space *vs)
{
	if (!vs->pt_root)
		return;
	/* never leave the MMU pointing at freed tables */
	if (vs->gpu->pdb == ember_mmu_root_pde(vs))
		ember_gpu_set_pdb(vs->gpu, 0);
	pt_free(vs->gpu, vs->pt_root);
	vs->pt_root = NULL;
}

u64 ember_mmu_root_pde(struct ember_va_space *vs)
{
	return ember_pde(vs->pt_root->dma);
}

/* Returns the leaf table mapping the 2 MiB at va, creating the path. */
struct ember_pt *ember_mmu_get_leaf(struct ember_va_space *vs, u64 va)
{
	struct ember_pt *pt = vs->pt_root, *next;
	unsigned int level, idx;

	mutex_lock(&vs->pt_lock);
	for (level = 0; level < EMGPU_PT_LEVELS - 1; level++) {
		idx = (va >> (39 - 9 * level)) & (EMGPU_PT_ENTRIES - 1);
		next = pt->child[idx];
		if (!next) {
			next = pt_alloc(vs->gpu, level < EMGPU_PT_LEVELS - 2);
			if (!next) {
				pt = NULL;
				break;
			}
			pt->child[idx] = next;
			wmb();	/* the zeroed table before the entry to it */
			WRITE_ONCE(pt->cpu[idx],
				   emgpu_cpu_to_le64(ember_pde(next->dma)));
		}
		pt = next;
	}
	mutex_unlock(&vs->pt_lock);
	return pt;
}
