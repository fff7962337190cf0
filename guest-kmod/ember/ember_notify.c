// SPDX-License-Identifier: GPL-2.0
/*
 * Access-counter servicing (nvidia-uvm's uvm_gpu_access_counters.c, the
 * virtual path): the bottom half fetches notifications, hands each to the
 * running launch's policy (on_notification) with a view of the notified VA
 * block, carries out the span promotion the policy asks for on the NOTIFY
 * driver timeline (it stalls no warp), and clears the counter so it
 * re-arms.
 * Counters count only sysmem PTEs without ACD, which the driver writes only
 * for policies with wants_access_counters; the uvm policy has none.
 */
#include "ember_drv.h"

#define EMBER_AC_BUF_ENTRIES	1024

int ember_notify_setup(struct ember_gpu *gpu)
{
	struct ember_dma *d = &gpu->ac_buf;

	d->size = EMBER_AC_BUF_ENTRIES * sizeof(struct emgpu_notify_entry);
	d->cpu = dma_alloc_coherent(&gpu->pdev->dev, d->size, &d->dma,
				    GFP_KERNEL);
	return d->cpu ? 0 : -ENOMEM;
}

/* Programs the ring into the device (probe, reset). */
void ember_notify_program(struct ember_gpu *gpu)
{
	struct ember_dma *d = &gpu->ac_buf;

	ember_wr64(gpu, EMGPU_REG_AC_BUF_LO, EMGPU_REG_AC_BUF_HI, d->dma);
	ember_wr(gpu, EMGPU_REG_AC_BUF_SIZE, EMBER_AC_BUF_ENTRIES);
	ember_wr(gpu, EMGPU_REG_AC_BUF_GET, 0);
	gpu->ac_get = 0;
	ember_wr(gpu, EMGPU_REG_AC_BUF_STATUS, EMGPU_RING_OVERFLOW);
	ember_wr(gpu, EMGPU_REG_AC_CTRL, EMGPU_RING_ENABLE);
}

void ember_notify_teardown(struct ember_gpu *gpu)
{
	struct ember_dma *d = &gpu->ac_buf;

	if (!d->cpu)
		return;
	ember_wr(gpu, EMGPU_REG_AC_CTRL, 0);
	dma_free_coherent(&gpu->pdev->dev, d->size, d->cpu, d->dma);
	d->cpu = NULL;
}

/*
 * Promotes one block of a span as the policy says. Returns -ENOSPC when the
 * policy stops the span, else 0 (a block that does not exist yet, or one
 * the policy skips, is passed over; a failed migration leaves the pages on
 * the host, where the next notification retries).
 * LOCKING: vs->lock (read); takes the block's lock.
 */
static int ember_promote_block(struct ember_va_space *vs,
			       struct ember_va_range *range, u64 va,
			       const struct ember_policy_notification *n)
{
	const struct ember_policy_ops *ops = vs->policy;
	struct ember_policy_block view;
	struct ember_va_block *block;
	enum ember_promote verdict;
	unsigned int pages;
	int ret = 0;

	lockdep_assert_held(&vs->lock);
	block = ember_range_block(range, va, false);
	if (!block)
		return 0;	/* never touched: nothing to move */
	mutex_lock(&block->lock);
	if (block->dead)
		goto out;
	ember_block_policy_view(range, block, &view);
	ember_hook_count(vs, EMBER_HOOK_PROMOTE_BLOCK);
	verdict = ops->promote_block(vs->policy_data, n, &view);
	if (verdict == EMBER_PROMOTE_STOP) {
		ret = -ENOSPC;
		goto out;
	}
	if (verdict != EMBER_PROMOTE_GO)
		goto out;
	if (view.dest != EMBER_LOC_CPU)
		view.dest = EMBER_LOC_GPU;
	pages = ember_mask_weight(&view.migrate);
	view.faulted = view.migrate;	/* all of it is asked for: no prefetch */
	if (!ember_block_apply(block, &view, EMBER_CAUSE_NOTIFY, n->counter) &&
	    view.dest == EMBER_LOC_GPU) {
		ember_stat_inc(vs, promotions);
		ember_stat_add(vs, EMBER_STAT(promoted_bytes),
			       (u64)pages << PAGE_SHIFT);
	}
out:
	mutex_unlock(&block->lock);
	return ret;
}

/*
 * Asks the policy about a notification, with a view of the notified block
 * (none if it holds no pages yet), under pmm.lock: the hook may update the
 * state of the chunk backing the block. Returns true with *span to promote.
 * LOCKING: vs->lock (read); takes the block's lock, then pmm.lock.
 */
static bool ember_notify_ask(struct ember_gpu *gpu, struct ember_va_space *vs,
			     struct ember_va_range *range,
			     const struct ember_policy_notification *n,
			     struct ember_policy_span *span)
{
	struct ember_va_block *block = ember_range_block(range, n->va, false);
	struct ember_policy_block view, *blk = NULL;
	bool promote;

	lockdep_assert_held(&vs->lock);
	if (block) {
		mutex_lock(&block->lock);
		if (!block->dead) {
			ember_block_policy_view(range, block, &view);
			blk = &view;
		}
	}
	mutex_lock(&gpu->pmm.lock);
	if (blk && block->chunk)
		view.chunk_priv = block->chunk->policy_priv;
	ember_hook_count(vs, EMBER_HOOK_NOTIFICATION);
	promote = vs->policy->on_notification(vs->policy_data, n, blk, span);
	mutex_unlock(&gpu->pmm.lock);
	if (block)
		mutex_unlock(&block->lock);
	return promote;
}

/*
 * Gives one notification to the policy and carries out the span promotion
 * it asks for: block by block, the notified block first, until the policy
 * stops the span (its watermark). Promotions run on the NOTIFY timeline:
 * they stall no warp.
 * LOCKING: none held; takes vs->lock (read), then one block lock at a time.
 */
static void ember_notify_one(struct ember_gpu *gpu, struct ember_va_space *vs,
			     const struct emgpu_notify_entry *e)
{
	struct ember_policy_notification n = {
		.va = emgpu_le64_to_cpu(e->addr),
		.sub_mask = emgpu_le32_to_cpu(e->sub_mask),
		.counter = emgpu_le32_to_cpu(e->counter) &
			   EMGPU_NOTIFY_COUNTER_MASK,
	};
	u64 block_va = n.va & ~(EMBER_VA_BLOCK_SIZE - 1), va;
	struct ember_policy_span span = { 0 };
	struct ember_va_range *range;
	int ret;

	down_read(&vs->lock);
	if (!vs->policy->on_notification)
		goto out;
	range = ember_range_find(vs, block_va, EMBER_VA_BLOCK_SIZE);
	if (!range)
		goto out;
	n.now_ns = ember_gpu_now_ns(gpu);
	n.range_start = range->start;
	n.range_end = range->end;
	if (!ember_notify_ask(gpu, vs, range, &n, &span))
		goto out;
	span.start = max(round_down(span.start, EMBER_VA_BLOCK_SIZE), range->start);
	span.end = min(round_up(span.end, EMBER_VA_BLOCK_SIZE), range->end);
	ret = 0;
	if (block_va >= span.start && block_va < span.end)
		ret = ember_promote_block(vs, range, block_va, &n);
	for (va = span.start; !ret && va < span.end; va += EMBER_VA_BLOCK_SIZE)
		if (va != block_va)
			ret = ember_promote_block(vs, range, va, &n);
	if (ret == -ENOSPC)
		ember_stat_inc(vs, promotions_halted);
out:
	up_read(&vs->lock);
}

/* Drains the notification ring. Runs in the bottom half. */
void ember_notify_service(struct ember_gpu *gpu)
{
	struct emgpu_notify_entry *ring = gpu->ac_buf.cpu, e;
	struct ember_va_space *vs;
	u32 put, n = 0;

	if (!gpu->ready || !ring)
		return;
	put = ember_rd(gpu, EMGPU_REG_AC_BUF_PUT);
	if (put >= EMBER_AC_BUF_ENTRIES || put == gpu->ac_get)
		goto overflow;

	mutex_lock(&gpu->launch_lock);
	vs = gpu->launch_vs;
	if (vs)
		kref_get(&vs->kref);
	mutex_unlock(&gpu->launch_lock);

	while (gpu->ac_get != put) {
		struct emgpu_notify_entry *slot = &ring[gpu->ac_get];

		rmb();
		e = *slot;
		WRITE_ONCE(slot->flags, emgpu_cpu_to_le32(0));
		gpu->ac_get = (gpu->ac_get + 1) % EMBER_AC_BUF_ENTRIES;
		if (!(emgpu_le32_to_cpu(e.flags) & EMGPU_NOTIFY_VALID))
			continue;
		n++;
		if (vs)
			ember_notify_one(gpu, vs, &e);
		/* re-arm the counter, whatever the policy did */
		mutex_lock(&gpu->hw_lock);
		ember_wr(gpu, EMGPU_REG_AC_CLEAR_TAG,
			 emgpu_le32_to_cpu(e.tag) & EMGPU_NOTIFY_TAG_MASK);
		ember_wr(gpu, EMGPU_REG_AC_CLEAR, EMGPU_AC_CLEAR_TARGETED);
		mutex_unlock(&gpu->hw_lock);
	}
	ember_wr(gpu, EMGPU_REG_AC_BUF_GET, gpu->ac_get);
	ember_stat_add(vs, EMBER_STAT(notifications), n);
	ember_hw_charge(gpu, EMGPU_DRV_THREAD_NOTIFY,
			EMGPU_DRV_ACTION_NOTIFY_ENTRY, n);
	if (vs)
		ember_va_space_put(vs);
overflow:
	if (ember_rd(gpu, EMGPU_REG_AC_BUF_STATUS) & EMGPU_RING_OVERFLOW) {
		/* lost notifications: re-arm every counter so none stays stuck */
		ember_wr(gpu, EMGPU_REG_AC_BUF_STATUS, EMGPU_RING_OVERFLOW);
		ember_wr(gpu, EMGPU_REG_AC_CLEAR, EMGPU_AC_CLEAR_ALL);
	}
}
