// SPDX-License-Identifier: GPL-2.0
/*
 * VA blocks: per-page residency and mappings of 2 MiB of a managed range,
 * and the migrations between host and device memory (nvidia-uvm's
 * uvm_va_block.c: make_resident = unmap, populate, copy, finish).
 *
 * Every function here is called with block->lock held, except
 * ember_block_ensure_chunk(), which may drop and retake it.
 *
 * Order of a migration, so that no processor ever sees stale data:
 *  to GPU:  zap the CPU PTEs, remove sysmem GPU PTEs of the pages (with a
 *           TLB invalidate), copy (or zero-fill in VRAM for pages never
 *           touched), then write vidmem PTEs and free the host pages;
 *  to CPU:  remove the vidmem GPU PTEs (TLB invalidate), copy back, then
 *           the page is CPU-resident; the CPU maps it on its next fault and
 *           the GPU maps it as sysmem only under accessed-by advice.
 * A failed copy leaves the source pages resident where they were.
 */
#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>

#include "ember_drv.h"

#define for_each_page_in(i, mask) \
	for_each_set_bit(i, mask, EMBER_BLOCK_PAGES)

static u64 block_page_va(struct ember_va_block *block, unsigned int i)
{
	return block->start + ((u64)i << PAGE_SHIFT);
}

static struct device *block_dev(struct ember_va_block *block)
{
	return block->vs->gpu ? &block->vs->gpu->pdev->dev : NULL;
}

/* ---- host pages ---- */

static int block_alloc_cpu_page(struct ember_va_block *block, unsigned int i,
				bool zero)
{
	struct device *dev = block_dev(block);
	struct mem_cgroup *old;
	struct page *page;
	dma_addr_t dma = 0;

	/*
	 * Charged to the opener's memory cgroup, also when the fault bottom
	 * half (a kworker, in the root cgroup) allocates it.
	 */
	old = set_active_memcg(block->vs->memcg);
	page = alloc_page(GFP_HIGHUSER | __GFP_ACCOUNT | (zero ? __GFP_ZERO : 0));
	set_active_memcg(old);
	if (!page)
		return -ENOMEM;
	if (dev) {
		dma = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, dma)) {
			__free_page(page);
			return -ENOMEM;
		}
	}
	block->pages[i] = page;
	block->dma[i] = dma;
	return 0;
}

static void block_free_cpu_page(struct ember_va_block *block, unsigned int i)
{
	struct device *dev = block_dev(block);

	if (!block->pages[i])
		return;
	if (dev)
		dma_unmap_page(dev, block->dma[i], PAGE_SIZE, DMA_BIDIRECTIONAL);
	put_page(block->pages[i]);
	block->pages[i] = NULL;
	block->dma[i] = 0;
}

/* Removes the CPU PTEs of the pages in mask (of the owning file only). */
static void block_zap_cpu(struct ember_va_block *block,
			  const unsigned long *mask)
{
	DECLARE_BITMAP(zap, EMBER_BLOCK_PAGES);
	unsigned int first, end;

	if (!bitmap_and(zap, mask, block->cpu_mapped, EMBER_BLOCK_PAGES))
		return;
	for_each_set_bitrange(first, end, zap, EMBER_BLOCK_PAGES)
		unmap_mapping_range(&block->vs->mapping, block_page_va(block, first),
				    (u64)(end - first) << PAGE_SHIFT, 1);
	bitmap_andnot(block->cpu_mapped, block->cpu_mapped, zap,
		      EMBER_BLOCK_PAGES);
}

/* ---- GPU PTEs ---- */

static int block_get_pt(struct ember_va_block *block)
{
	if (!block->vs->gpu)
		return -ENODEV;
	if (!block->pt)
		block->pt = ember_mmu_get_leaf(block->vs, block->start);
	return block->pt ? 0 : -ENOMEM;
}

/*
 * Invalidates the GPU PTEs of the pages in mask, then the TLBs. A run of
 * contiguous PTEs is cleared as one write (nvidia-uvm clears a PTE range
 * with one copy-engine memset), so it costs one PTE_UPDATE.
 */
static int block_unmap_gpu(struct ember_va_block *block,
			   const unsigned long *mask, enum ember_cause cause)
{
	DECLARE_BITMAP(unmap, EMBER_BLOCK_PAGES);
	unsigned int i, first = EMBER_BLOCK_PAGES, last = 0, runs = 0;

	lockdep_assert_held(&block->lock);
	if (!block->pt ||
	    !bitmap_and(unmap, mask, block->gpu_mapped, EMBER_BLOCK_PAGES))
		return 0;
	for_each_page_in(i, unmap) {
		WRITE_ONCE(block->pt->cpu[i], emgpu_cpu_to_le64(0));
		if (first == EMBER_BLOCK_PAGES || i != last + 1)
			runs++;
		first = min(first, i);
		last = i;
	}
	bitmap_andnot(block->gpu_mapped, block->gpu_mapped, unmap,
		      EMBER_BLOCK_PAGES);
	ember_hw_charge(block->vs->gpu, ember_cause_thread(cause),
			EMGPU_DRV_ACTION_PTE_UPDATE, runs);
	ember_stat_inc(block->vs, tlb_invalidates);
	return ember_tlb_invalidate(block->vs->gpu, ember_cause_thread(cause),
				    block_page_va(block, first),
				    (u64)(last - first + 1) << PAGE_SHIFT);
}

static void block_map_vidmem(struct ember_va_block *block,
			     const unsigned long *mask, enum ember_cause cause)
{
	unsigned int i;

	lockdep_assert_held(&block->lock);
	for_each_page_in(i, mask) {
		WRITE_ONCE(block->pt->cpu[i],
			   emgpu_cpu_to_le64(ember_pte_vidmem(block->chunk->addr +
							      ((u64)i << PAGE_SHIFT))));
		__set_bit(i, block->gpu_mapped);
	}
	ember_hw_charge(block->vs->gpu, ember_cause_thread(cause),
			EMGPU_DRV_ACTION_PTE_UPDATE,
			bitmap_weight(mask, EMBER_BLOCK_PAGES));
}

/*
 * Maps the host-resident pages of mask into the GPU page table as sysmem,
 * so the GPU reads them in place (accessed-by, preferred location CPU).
 */
int ember_block_map_remote(struct ember_va_block *block,
			   const unsigned long *mask, enum ember_cause cause)
{
	DECLARE_BITMAP(map, EMBER_BLOCK_PAGES);
	bool count = block->vs->policy->wants_access_counters;
	unsigned int i, n = 0;
	int ret;

	lockdep_assert_held(&block->lock);
	if (!bitmap_and(map, mask, block->cpu_resident, EMBER_BLOCK_PAGES))
		return 0;
	ret = block_get_pt(block);
	if (ret)
		return ret;
	for_each_page_in(i, map) {
		u64 pte = ember_pte_sysmem(block->dma[i], count);

		if (test_bit(i, block->gpu_mapped) &&
		    emgpu_le64_to_cpu(block->pt->cpu[i]) == pte)
			continue;
		WRITE_ONCE(block->pt->cpu[i], emgpu_cpu_to_le64(pte));
		__set_bit(i, block->gpu_mapped);
		n++;
	}
	ember_hw_charge(block->vs->gpu, ember_cause_thread(cause),
			EMGPU_DRV_ACTION_PTE_UPDATE, n);
	ember_stat_add(block->vs, EMBER_STAT(pages_mapped_remote), n);
	return 0;
}

/* ---- device memory ---- */

/*
 * Makes sure the block owns a VRAM root chunk. May drop and retake
 * block->lock to allocate (and evict another block); the caller must
 * re-read the block's state afterwards. LOCKING: block->lock and
 * vs->lock (read).
 */
int ember_block_ensure_chunk(struct ember_va_block *block,
			     enum ember_cause cause)
{
	struct ember_gpu *gpu = block->vs->gpu;
	struct ember_chunk *chunk;

	lockdep_assert_held(&block->lock);
	lockdep_assert_held(&block->vs->lock);
	while (!block->chunk) {
		mutex_unlock(&block->lock);
		chunk = ember_pmm_alloc(gpu, block->vs, block, cause);
		mutex_lock(&block->lock);
		if (IS_ERR(chunk))
			return PTR_ERR(chunk);
		if (block->dead || block->chunk) {
			ember_pmm_free(gpu, chunk);
			if (block->dead)
				return -ENOENT;
			break;
		}
		block->chunk = chunk;
	}
	return 0;
}

static void block_release_chunk_if_empty(struct ember_va_block *block)
{
	if (block->chunk && bitmap_empty(block->gpu_resident, EMBER_BLOCK_PAGES)) {
		ember_pmm_free(block->vs->gpu, block->chunk);
		block->chunk = NULL;
	}
}

/* ---- the policy's residency hooks ---- */

static u32 block_policy_cause(enum ember_cause cause)
{
	switch (cause) {
	case EMBER_CAUSE_FAULT:
		return EMBER_POLICY_CAUSE_FAULT;
	case EMBER_CAUSE_PREFETCH:
		return EMBER_POLICY_CAUSE_PREFETCH;
	case EMBER_CAUSE_NOTIFY:
		return EMBER_POLICY_CAUSE_PROMOTION;
	default:
		return EMBER_POLICY_CAUSE_CPU;
	}
}

/*
 * Pages of block arrived in its chunk (on_return first if the block had
 * been evicted), or are about to leave it for an eviction (on_evict, the
 * chunk's state still valid). The policy's hooks only compute; pmm.lock
 * keeps every chunk's state stable for them. LOCKING: block->lock.
 */
static void block_policy_residency(struct ember_va_block *block, bool arrive,
				   unsigned int pages, u32 policy_cause,
				   u32 counter)
{
	const struct ember_policy_ops *ops = block->vs->policy;
	struct ember_gpu *gpu = block->vs->gpu;
	bool returned = arrive && block->evicted;
	struct ember_policy_residency r;

	lockdep_assert_held(&block->lock);
	block->evicted = !arrive;
	/* a policy without residency hooks costs no clock read, no pmm.lock */
	if (!(returned && ops->on_return) && !(arrive && ops->on_arrive) &&
	    !(!arrive && ops->on_evict))
		return;
	r = (struct ember_policy_residency) {
		.va = block->start,
		.now_ns = ember_gpu_now_ns(gpu),
		.pages = pages,
		.cause = policy_cause,
		.counter = counter,
		.block_priv = block->policy_priv,
		.chunk_priv = block->chunk ? block->chunk->policy_priv : NULL,
	};
	mutex_lock(&gpu->pmm.lock);
	if (returned && ops->on_return) {
		ember_hook_count(block->vs, EMBER_HOOK_RETURN);
		ops->on_return(block->vs->policy_data, &r);
	}
	if (arrive && ops->on_arrive) {
		ember_hook_count(block->vs, EMBER_HOOK_ARRIVE);
		ops->on_arrive(block->vs->policy_data, &r);
	}
	if (!arrive && ops->on_evict) {
		ember_hook_count(block->vs, EMBER_HOOK_EVICT);
		ops->on_evict(block->vs->policy_data, &r);
	}
	mutex_unlock(&gpu->pmm.lock);
}

/* ---- make_resident ---- */

/*
 * Migrates the pages of mask to the GPU (zero-filling never-touched ones
 * in VRAM). The block must own a chunk (ember_block_ensure_chunk). Adds
 * the bytes copied to *bytes when bytes is not NULL.
 */
int ember_block_make_resident_gpu(struct ember_va_block *block,
				  const unsigned long *mask,
				  enum ember_cause cause, u32 counter, u64 *bytes)
{
	DECLARE_BITMAP(need, EMBER_BLOCK_PAGES);
	DECLARE_BITMAP(copy, EMBER_BLOCK_PAGES);
	DECLARE_BITMAP(fill, EMBER_BLOCK_PAGES);
	struct ember_gpu *gpu = block->vs->gpu;
	struct ember_va_space *vs = block->vs;
	struct ember_ce_batch ce;
	unsigned int i, first, end, ncopy, nfill;
	u64 base;
	int ret;

	lockdep_assert_held(&block->lock);
	if (!gpu || !gpu->ready)
		return -ENODEV;
	if (bitmap_intersects(mask, block->lost, EMBER_BLOCK_PAGES))
		return -EIO;
	if (!bitmap_andnot(need, mask, block->gpu_resident, EMBER_BLOCK_PAGES))
		return 0;
	if (!block->chunk)
		return -ENOMEM;
	ret = block_get_pt(block);
	if (ret)
		return ret;
	bitmap_and(copy, need, block->cpu_resident, EMBER_BLOCK_PAGES);
	bitmap_andnot(fill, need, block->cpu_resident, EMBER_BLOCK_PAGES);

	/* nobody may write the host copy while it is copied */
	block_zap_cpu(block, copy);
	ret = block_unmap_gpu(block, copy, cause);
	if (ret)
		return ret;

	base = block->chunk->addr;
	ember_ce_begin(&ce, gpu, ember_cause_thread(cause));
	ce.vs = block->vs;
	for_each_page_in(i, copy)
		ember_ce_copy(&ce, EMGPU_APERTURE_VIDMEM,
			      base + ((u64)i << PAGE_SHIFT),
			      EMGPU_APERTURE_SYSMEM, block->dma[i], PAGE_SIZE);
	for_each_set_bitrange(first, end, fill, EMBER_BLOCK_PAGES)
		ember_ce_memset(&ce, base + ((u64)first << PAGE_SHIFT),
				(end - first) << PAGE_SHIFT);
	ret = ember_ce_end(&ce);
	if (ret)
		return ret;

	for_each_page_in(i, copy)
		block_free_cpu_page(block, i);
	bitmap_andnot(block->cpu_resident, block->cpu_resident, copy,
		      EMBER_BLOCK_PAGES);
	bitmap_or(block->gpu_resident, block->gpu_resident, need,
		  EMBER_BLOCK_PAGES);
	block_map_vidmem(block, need, cause);
	ember_pmm_mark_used(gpu, block->chunk);
	block_policy_residency(block, true, bitmap_weight(need, EMBER_BLOCK_PAGES),
			       block_policy_cause(cause), counter);

	ncopy = bitmap_weight(copy, EMBER_BLOCK_PAGES);
	nfill = bitmap_weight(fill, EMBER_BLOCK_PAGES);
	ember_stat_add(vs, EMBER_STAT(pages_h2d), ncopy);
	ember_stat_add(vs, EMBER_STAT(bytes_h2d), (u64)ncopy << PAGE_SHIFT);
	ember_stat_add(vs, EMBER_STAT(pages_gpu_populated), nfill);
	if (bytes)
		*bytes += (u64)ncopy << PAGE_SHIFT;
	return 0;
}

/* Frees the pages of mask allocated by a failed migration to the CPU. */
static void block_free_cpu_pages(struct ember_va_block *block,
				 const unsigned long *mask)
{
	unsigned int i;

	for_each_page_in(i, mask)
		block_free_cpu_page(block, i);
}

/*
 * Migrates the GPU-resident pages of mask back to host memory and creates
 * the never-touched ones there (zeroed). Frees the chunk once the block
 * has no GPU-resident page left. evict: 0, or the policy cause of an
 * eviction (EMBER_POLICY_CAUSE_EVICTION or _EAGER), which the policy hears
 * of; cause picks the driver timeline.
 */
static int block_make_resident_cpu(struct ember_va_block *block,
				   const unsigned long *mask,
				   enum ember_cause cause, u32 evict, u64 *bytes)
{
	DECLARE_BITMAP(move, EMBER_BLOCK_PAGES);
	DECLARE_BITMAP(fill, EMBER_BLOCK_PAGES);
	DECLARE_BITMAP(alloc, EMBER_BLOCK_PAGES);
	struct ember_va_space *vs = block->vs;
	struct ember_ce_batch ce;
	unsigned int i, nmove;
	int ret = 0;

	lockdep_assert_held(&block->lock);
	if (bitmap_intersects(mask, block->lost, EMBER_BLOCK_PAGES))
		return -EIO;	/* their data is gone: never hand out zeros */
	bitmap_and(move, mask, block->gpu_resident, EMBER_BLOCK_PAGES);
	bitmap_andnot(fill, mask, block->gpu_resident, EMBER_BLOCK_PAGES);
	bitmap_andnot(fill, fill, block->cpu_resident, EMBER_BLOCK_PAGES);
	bitmap_zero(alloc, EMBER_BLOCK_PAGES);

	for_each_page_in(i, move) {
		ret = block_alloc_cpu_page(block, i, false);
		if (ret)
			goto err_free;
		__set_bit(i, alloc);
	}
	for_each_page_in(i, fill) {
		ret = block_alloc_cpu_page(block, i, true);
		if (ret)
			goto err_free;
		__set_bit(i, alloc);
	}

	if (!bitmap_empty(move, EMBER_BLOCK_PAGES)) {
		/* the GPU must not write VRAM behind the copy */
		ret = block_unmap_gpu(block, move, cause);
		if (ret)
			goto err_remap;
		ember_hw_charge(vs->gpu, ember_cause_thread(cause),
				EMGPU_DRV_ACTION_HOST_PAGE,
				bitmap_weight(move, EMBER_BLOCK_PAGES));
		ember_ce_begin(&ce, vs->gpu, ember_cause_thread(cause));
		ce.vs = vs;
		for_each_page_in(i, move)
			ember_ce_copy(&ce, EMGPU_APERTURE_SYSMEM, block->dma[i],
				      EMGPU_APERTURE_VIDMEM,
				      block->chunk->addr + ((u64)i << PAGE_SHIFT),
				      PAGE_SIZE);
		ret = ember_ce_end(&ce);
		if (ret == -EHWPOISON) {
			block_free_cpu_pages(block, alloc);
			ember_block_lose_chunk(block);
			return -EIO;
		}
		if (ret)
			goto err_remap;
	}

	nmove = bitmap_weight(move, EMBER_BLOCK_PAGES);
	if (nmove && evict)
		block_policy_residency(block, false, nmove, evict, 0);
	bitmap_andnot(block->gpu_resident, block->gpu_resident, move,
		      EMBER_BLOCK_PAGES);
	bitmap_or(block->cpu_resident, block->cpu_resident, alloc,
		  EMBER_BLOCK_PAGES);
	block_release_chunk_if_empty(block);

	ember_stat_add(vs, EMBER_STAT(pages_d2h), nmove);
	ember_stat_add(vs, EMBER_STAT(bytes_d2h), (u64)nmove << PAGE_SHIFT);
	ember_stat_add(vs, EMBER_STAT(pages_cpu_populated),
		       bitmap_weight(fill, EMBER_BLOCK_PAGES));
	if (bytes)
		*bytes += (u64)nmove << PAGE_SHIFT;

	/* accessed-by: the GPU keeps reaching the pages, now in place */
	if (block->accessed_by && vs->gpu && vs->gpu->ready)
		return ember_block_map_remote(block, alloc, cause);
	return 0;

err_remap:
	if (block->pt) {
		DECLARE_BITMAP(remap, EMBER_BLOCK_PAGES);

		bitmap_andnot(remap, move, block->gpu_mapped, EMBER_BLOCK_PAGES);
		block_map_vidmem(block, remap, cause);
	}
err_free:
	block_free_cpu_pages(block, alloc);
	return ret;
}

int ember_block_make_resident_cpu(struct ember_va_block *block,
				  const unsigned long *mask,
				  enum ember_cause cause, u64 *bytes)
{
	return block_make_resident_cpu(block, mask, cause, 0, bytes);
}

/*
 * Evicts the block's GPU-resident pages to host memory, on demand for an
 * allocation of the given cause (whose timeline pays) or, if eager, for
 * the policy's reclamation; its policy hears of it (on_evict).
 */
int ember_block_evict(struct ember_va_block *block, enum ember_cause cause,
		      bool eager)
{
	return block_make_resident_cpu(block, block->gpu_resident, cause,
				       eager ? EMBER_POLICY_CAUSE_EAGER :
				       EMBER_POLICY_CAUSE_EVICTION, NULL);
}

/* ---- the CPU side ---- */

/*
 * Services a CPU fault on one page: brings its 64 KiB group back from the
 * GPU if it is there, creates the page (zeroed) if it was never touched,
 * and inserts the group's host-resident pages into the faulting VMA (fault
 * around, as TTM does), the faulting page last.
 */
vm_fault_t ember_block_cpu_fault(struct ember_va_block *block,
				 struct vm_fault *vmf)
{
	DECLARE_BITMAP(mask, EMBER_BLOCK_PAGES);
	unsigned int i = (vmf->address - block->start) >> PAGE_SHIFT;
	unsigned int j, group = round_down(i, EMBER_BIG_PAGES);
	vm_fault_t vret;
	int ret = 0;

	mutex_lock(&block->lock);
	if (block->dead) {
		vret = VM_FAULT_SIGBUS;
		goto out;
	}
	ember_stat_inc(block->vs, cpu_faults);
	bitmap_zero(mask, EMBER_BLOCK_PAGES);
	if (test_bit(i, block->gpu_resident)) {
		bitmap_set(mask, group, EMBER_BIG_PAGES);
		bitmap_and(mask, mask, block->gpu_resident, EMBER_BLOCK_PAGES);
	}
	__set_bit(i, mask);
	if (!test_bit(i, block->cpu_resident))
		ret = ember_block_make_resident_cpu(block, mask,
						    EMBER_CAUSE_CPU_FAULT, NULL);
	if (ret) {
		vret = ret == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
		goto out;
	}
	for (j = group; j < group + EMBER_BIG_PAGES; j++) {
		if (j == i || !test_bit(j, block->cpu_resident) ||
		    test_bit(j, block->cpu_mapped))
			continue;
		if (vmf_insert_page(vmf->vma, block_page_va(block, j),
				    block->pages[j]) == VM_FAULT_NOPAGE)
			__set_bit(j, block->cpu_mapped);
	}
	vret = vmf_insert_page(vmf->vma, vmf->address & PAGE_MASK,
			       block->pages[i]);
	if (vret == VM_FAULT_NOPAGE)
		__set_bit(i, block->cpu_mapped);
out:
	mutex_unlock(&block->lock);
	return vret;
}

/* ---- policy glue ---- */

/* The policy's view of block, a block of range. LOCKING: block->lock. */
void ember_block_policy_view(struct ember_va_range *range,
			     struct ember_va_block *block,
			     struct ember_policy_block *view)
{
	BUILD_BUG_ON(sizeof(view->resident_cpu) != sizeof(block->cpu_resident));
	lockdep_assert_held(&block->lock);
	memset(view, 0, sizeof(*view));
	view->start = block->start;
	view->now_ns = block->vs->gpu ? ember_gpu_now_ns(block->vs->gpu) : 0;
	view->range_start = range->start;
	view->range_end = range->end;
	view->hinted = READ_ONCE(range->hinted);
	view->preferred = block->preferred;
	view->accessed_by_gpu = block->accessed_by;
	memcpy(&view->resident_cpu, block->cpu_resident,
	       sizeof(view->resident_cpu));
	memcpy(&view->resident_gpu, block->gpu_resident,
	       sizeof(view->resident_gpu));
	memcpy(&view->unmovable, block->lost, sizeof(view->unmovable));
	view->priv = block->policy_priv;
	if (block->vs->gpu) {
		struct ember_pmm *pmm = &block->vs->gpu->pmm;

		mutex_lock(&pmm->lock);
		view->chunks_total = pmm->nchunks - pmm->nretired;
		view->chunks_used = view->chunks_total - pmm->nfree;
		mutex_unlock(&pmm->lock);
	}
}

/*
 * Carries out a policy decision: view->migrate to view->dest. Pages kept
 * on (or created in) host memory are mapped by the GPU as sysmem, so the
 * faults that asked for them are resolved. Returns 0 or -errno.
 * LOCKING: block->lock (may be dropped and retaken), vs->lock (read).
 */
int ember_block_apply(struct ember_va_block *block,
		      struct ember_policy_block *view, enum ember_cause cause,
		      u32 counter)
{
	DECLARE_BITMAP(mask, EMBER_BLOCK_PAGES);
	DECLARE_BITMAP(need, EMBER_BLOCK_PAGES);
	DECLARE_BITMAP(extra, EMBER_BLOCK_PAGES);
	u64 bytes = 0;
	int ret;

	lockdep_assert_held(&block->lock);
	lockdep_assert_held(&block->vs->lock);
	memcpy(mask, &view->migrate, sizeof(mask));
	if (view->dest == EMBER_LOC_CPU) {
		ret = ember_block_make_resident_cpu(block, mask, cause, NULL);
		if (!ret)
			ret = ember_block_map_remote(block, mask, cause);
		return ret;
	}

	if (!bitmap_andnot(need, mask, block->gpu_resident, EMBER_BLOCK_PAGES))
		return 0;
	ret = ember_block_ensure_chunk(block, cause);
	if (ret)
		return ret;
	/* the lock may have been dropped: take what is still needed */
	bitmap_andnot(need, mask, block->gpu_resident, EMBER_BLOCK_PAGES);
	memcpy(extra, &view->faulted, sizeof(extra));
	bitmap_andnot(extra, need, extra, EMBER_BLOCK_PAGES);
	bitmap_and(extra, extra, block->cpu_resident, EMBER_BLOCK_PAGES);
	ret = ember_block_make_resident_gpu(block, need, cause, counter, &bytes);
	if (ret) {
		block_release_chunk_if_empty(block);
		return ret;
	}
	if (cause == EMBER_CAUSE_FAULT)
		ember_stat_add(block->vs, EMBER_STAT(prefetched_bytes),
			       (u64)bitmap_weight(extra, EMBER_BLOCK_PAGES)
			       << PAGE_SHIFT);
	if (cause == EMBER_CAUSE_PREFETCH)
		ember_stat_add(block->vs, EMBER_STAT(prefetch_ioctl_bytes), bytes);
	return 0;
}

/* The range is going away: unmap from the GPU and free all memory. */
void ember_block_destroy(struct ember_va_block *block)
{
	DECLARE_BITMAP(all, EMBER_BLOCK_PAGES);
	unsigned int i;

	bitmap_fill(all, EMBER_BLOCK_PAGES);
	mutex_lock(&block->lock);
	block->dead = true;
	block_unmap_gpu(block, all, EMBER_CAUSE_CPU_FAULT);
	for (i = 0; i < EMBER_BLOCK_PAGES; i++)
		block_free_cpu_page(block, i);
	bitmap_zero(block->cpu_resident, EMBER_BLOCK_PAGES);
	bitmap_zero(block->gpu_resident, EMBER_BLOCK_PAGES);
	bitmap_zero(block->cpu_mapped, EMBER_BLOCK_PAGES);
	bitmap_zero(block->lost, EMBER_BLOCK_PAGES);
	block_release_chunk_if_empty(block);
	mutex_unlock(&block->lock);
}

/*
 * The block's chunk is poisoned: its GPU-resident pages are lost. Unmaps
 * them, remembers them as lost (accesses fail until the range is freed)
 * and retires the chunk.
 */
void ember_block_lose_chunk(struct ember_va_block *block)
{
	struct ember_chunk *chunk = block->chunk;
	unsigned int n;

	lockdep_assert_held(&block->lock);
	if (!chunk)
		return;
	block_unmap_gpu(block, block->gpu_resident, EMBER_CAUSE_EVICTION);
	n = bitmap_weight(block->gpu_resident, EMBER_BLOCK_PAGES);
	bitmap_or(block->lost, block->lost, block->gpu_resident,
		  EMBER_BLOCK_PAGES);
	bitmap_zero(block->gpu_resident, EMBER_BLOCK_PAGES);
	block->chunk = NULL;
	ember_pmm_retire(block->vs->gpu, chunk);
	dev_err_ratelimited(&block->vs->gpu->pdev->dev,
			    "%u pages at %#llx lost in poisoned VRAM\n", n,
			    block->start);
}
