// SPDX-License-Identifier: GPL-2.0
/*
 * Replayable-fault servicing (nvidia-uvm's uvm_gpu_replayable_faults.c):
 * the bottom half fetches a batch of fault entries, coalesces duplicates,
 * sorts them by address, services each VA block once under its lock
 * (the policy chooses destination and prefetch, the block migrates), then
 * replays. A fault outside every managed range, or one the driver cannot
 * service, cancels the launch instead: the launch fails (-EFAULT or the
 * servicing error) and the driver stays usable.
 *
 * Faults are charged to the device's FAULT driver timeline, so the work of
 * servicing a batch (eviction, copies, PTE writes) delays its replay.
 */
#include <linux/sort.h>

#include "ember_drv.h"

/* Copies up to max valid entries from GET and advances GET. */
static u32 ember_fault_fetch(struct ember_gpu *gpu, struct emgpu_fault_entry *out,
			     u32 max)
{
	struct emgpu_fault_entry *ring = gpu->fault_buf.cpu;
	u32 put = ember_rd(gpu, EMGPU_REG_FAULT_BUF_PUT);
	u32 n = 0, spins;

	if (put >= EMBER_FAULT_BUF_ENTRIES) {
		dev_err_ratelimited(&gpu->pdev->dev, "fault PUT %u out of range\n",
				    put);
		return 0;
	}
	while (gpu->fault_get != put && n < max) {
		struct emgpu_fault_entry *e = &ring[gpu->fault_get];

		/* entries may become visible out of order: wait for VALID */
		for (spins = 0; !(emgpu_le32_to_cpu(READ_ONCE(e->info)) &
				     EMGPU_FAULT_INFO_VALID) &&
		     spins < 1000; spins++)
			cpu_relax();
		rmb();
		if (emgpu_le32_to_cpu(READ_ONCE(e->info)) & EMGPU_FAULT_INFO_VALID)
			out[n++] = *e;
		WRITE_ONCE(e->info, emgpu_cpu_to_le32(0));
		gpu->fault_get = (gpu->fault_get + 1) % EMBER_FAULT_BUF_ENTRIES;
	}
	if (n || gpu->fault_get == put)
		ember_wr(gpu, EMGPU_REG_FAULT_BUF_GET, gpu->fault_get);
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* A fault's source uTLB, for the policy (ARIADNE's sharing degree). */
struct ember_fault_src {
	u64 block;		/* VA block of the fault */
	u32 idx;		/* position in the batch */
	u16 utlb;		/* device-wide uTLB id */
};

/* By block, then in fault-buffer order. */
static int cmp_src(const void *a, const void *b)
{
	const struct ember_fault_src *x = a, *y = b;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Services the faults of one block: pages[0..n) sorted, in one block. */
static int ember_fault_service_block(struct ember_va_space *vs,
				     struct ember_va_range *range,
				     const u64 *pages, u32 n,
				     const u16 *utlb, u32 nutlb)
{
	struct ember_policy_block view;
	struct ember_va_block *block;
	u32 i;
	int ret;

	block = ember_range_block(range, pages[0], true);
	if (!block)
		return -ENOMEM;
	mutex_lock(&block->lock);
	if (block->dead) {
		mutex_unlock(&block->lock);
		return -EFAULT;
	}
	ember_block_policy_view(range, block, &view);
	for (i = 0; i < n; i++)
		ember_mask_set(&view.faulted,
			       (pages[i] - block->start) >> PAGE_SHIFT);
	view.fault_utlb = utlb;
	view.nfault_utlb = nutlb;
	ember_hook_count(vs, EMBER_HOOK_FAULT_BLOCK);
	vs->policy->on_fault_block(vs->policy_data, &view);
	/* a policy must at least resolve what faulted */
	ember_mask_or(&view.migrate, &view.migrate, &view.faulted);
	if (view.dest != EMBER_LOC_CPU)
		view.dest = EMBER_LOC_GPU;
	ret = ember_block_apply(block, &view, EMBER_CAUSE_FAULT, 0);
	mutex_unlock(&block->lock);
	return ret;
}

/*
 * How many VA blocks of the batch's sorted, unique pages have a faulted
 * page in host memory: those pay the driver's host-side work of a block
 * (DRIVER_ACTION FAULT_BLOCK). A block whose faulted pages nobody touched
 * is made on the GPU without it: on the H200 a first fault there costs
 * ~10 us less than one on host pages, beyond the copy (fault_latency_gpu_made
 * in experiments/card-results/h200-ubench-6.jsonl). A block not created yet has no
 * pages anywhere. LOCKING: the caller holds vs->lock (read); takes each
 * block's lock.
 */
static u32 ember_fault_host_blocks(struct ember_va_space *vs, const u64 *pages,
				   u32 n)
{
	struct ember_va_range *range;
	struct ember_va_block *block;
	u32 i, j, k, host = 0;
	bool from_host;

	lockdep_assert_held(&vs->lock);
	for (i = 0; i < n; i = j) {
		u64 block_va = pages[i] & ~(EMBER_VA_BLOCK_SIZE - 1);

		for (j = i + 1; j < n &&
		     (pages[j] & ~(EMBER_VA_BLOCK_SIZE - 1)) == block_va; j++)
			;
		range = ember_range_find(vs, pages[i], PAGE_SIZE);
		block = range ? ember_range_block(range, pages[i], false) : NULL;
		if (!block)
			continue;
		from_host = false;
		mutex_lock(&block->lock);
		for (k = i; k < j && !from_host; k++)
			from_host = test_bit((pages[k] - block->start) >> PAGE_SHIFT,
					     block->cpu_resident);
		mutex_unlock(&block->lock);
		host += from_host;
	}
	return host;
}

/*
 * Services one batch. Returns 0, -EFAULT when some fault is outside every
 * range (the launch must be cancelled), or another -errno when servicing
 * failed.
 */
static int ember_fault_service_batch(struct ember_gpu *gpu,
				     struct ember_va_space *vs,
				     const struct emgpu_fault_entry *batch,
				     u32 n)
{
	u32 utlbs_per_gpc = ember_rd(gpu, EMGPU_REG_UTLBS_PER_GPC), k = 0, s0;
	struct ember_fault_src *src;
	struct ember_va_range *range;
	u16 *utlb;
	u64 *pages;
	u32 i, j, unique = 0;
	int ret = 0, err;

	pages = kmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	src = kmalloc_array(n, sizeof(*src), GFP_KERNEL);
	utlb = kmalloc_array(n, sizeof(*utlb), GFP_KERNEL);
	if (!pages || !src || !utlb) {
		kfree(pages);
		kfree(src);
		kfree(utlb);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		u32 info = emgpu_le32_to_cpu(batch[i].info);

		pages[i] = emgpu_le64_to_cpu(batch[i].addr) & PAGE_MASK;
		src[i].block = pages[i] & ~(EMBER_VA_BLOCK_SIZE - 1);
		src[i].idx = i;
		src[i].utlb = EMGPU_FAULT_UTLB_ID(info, utlbs_per_gpc);
	}
	sort(pages, n, sizeof(*pages), cmp_u64, NULL);
	sort(src, n, sizeof(*src), cmp_src, NULL);
	for (i = 0; i < n; i++)
		utlb[i] = src[i].utlb;
	for (i = 0; i < n; i++)
		if (!unique || pages[unique - 1] != pages[i])
			pages[unique++] = pages[i];

	ember_stat_add(vs, EMBER_STAT(faults), n);
	ember_stat_add(vs, EMBER_STAT(faults_duplicate), n - unique);
	ember_stat_inc(vs, fault_batches);
	down_read(&vs->lock);
	/* nvidia-uvm services a batch block by block: a cost per VA block
	 * migrated from host memory (its host-side work) and a smaller one
	 * per faulted page */
	ember_hw_charge(gpu, EMGPU_DRV_THREAD_FAULT, EMGPU_DRV_ACTION_FAULT_BLOCK,
			ember_fault_host_blocks(vs, pages, unique));
	ember_hw_charge(gpu, EMGPU_DRV_THREAD_FAULT,
			EMGPU_DRV_ACTION_FAULT_PAGE, unique);
	/* a pipelined batch populates once it has been read and sorted */
	if (vs->policy->pipelined_faults)
		ember_hw_join(gpu, EMGPU_DRV_THREAD_POPULATE, EMGPU_DRV_THREAD_FAULT);

	for (i = 0; i < unique; i = j) {
		u64 block_va = pages[i] & ~(EMBER_VA_BLOCK_SIZE - 1);

		for (j = i + 1; j < unique &&
		     (pages[j] & ~(EMBER_VA_BLOCK_SIZE - 1)) == block_va; j++)
			;
		/* this block's sources: src is sorted by block too */
		while (k < n && src[k].block < block_va)
			k++;
		for (s0 = k; k < n && src[k].block == block_va; k++)
			;
		range = ember_range_find(vs, pages[i], PAGE_SIZE);
		if (!range) {
			ember_stat_add(vs, EMBER_STAT(faults_fatal), j - i);
			ret = ret ?: -EFAULT;
			continue;
		}
		err = ember_fault_service_block(vs, range, pages + i, j - i,
						utlb + s0, k - s0);
		if (err)
			ret = ret ?: err;
	}
	up_read(&vs->lock);
	kfree(pages);
	kfree(src);
	kfree(utlb);
	return ret;
}

static void ember_fault_cancel(struct ember_gpu *gpu, struct ember_va_space *vs,
			       int err)
{
	mutex_lock(&gpu->launch_lock);
	if (gpu->launch_vs == vs && !vs->launch_error)
		vs->launch_error = err;
	mutex_unlock(&gpu->launch_lock);
	if (err != -EFAULT)
		dev_err_ratelimited(&gpu->pdev->dev,
				    "fault servicing failed (%d): launch cancelled\n",
				    err);
	ember_wr(gpu, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_CANCEL);
	ember_stat_inc(vs, cancels);
}

/* Drains the fault buffer. Runs in the bottom half (one at a time). */
void ember_fault_service(struct ember_gpu *gpu)
{
	struct ember_va_space *vs;
	bool overflow, cancelled = false;
	u32 n;
	int ret;

	if (!gpu->ready)
		return;
	mutex_lock(&gpu->launch_lock);
	vs = gpu->launch_vs;
	if (vs)
		kref_get(&vs->kref);
	mutex_unlock(&gpu->launch_lock);

	for (;;) {
		n = ember_fault_fetch(gpu, gpu->batch, ember_fault_batch_count);
		overflow = ember_rd(gpu, EMGPU_REG_FAULT_BUF_STATUS) &
			   EMGPU_RING_OVERFLOW;
		if (overflow)
			ember_wr(gpu, EMGPU_REG_FAULT_BUF_STATUS,
				 EMGPU_RING_OVERFLOW);
		if (!n && !overflow)
			break;
		if (!vs || cancelled)	/* no launch to service: stale entries */
			continue;
		ret = n ? ember_fault_service_batch(gpu, vs, gpu->batch, n) : 0;
		if (ret) {
			ember_fault_cancel(gpu, vs, ret);
			cancelled = true;
			continue;
		}
		/* overflowed faults were dropped: their warps re-fault now */
		ember_wr(gpu, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
		ember_stat_inc(vs, replays);
	}
	if (vs)
		ember_va_space_put(vs);
}
