// SPDX-License-Identifier: GPL-2.0
/*
 * Access-counter servicing (nvidia-uvm's uvm_gpu_access_counters.c, the
 * virtual path): the bottom half fetches notifications, hands each to the
 * running launch's policy (on_notification) with a view of the notified VA
 * block, carries out a promotion the policy asks for on the NOTIFY driver
 * timeline (it stalls no warp), and clears the counter so it re-arms.
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

/* Gives one notification to the policy; promotes if it asks to. */
static void ember_notify_one(struct ember_gpu *gpu, struct ember_va_space *vs,
			     const struct emgpu_notify_entry *e)
{
	struct ember_policy_notification n = {
		.va = e->addr,
		.sub_mask = e->sub_mask,
		.counter = e->counter & EMGPU_NOTIFY_COUNTER_MASK,
	};
	struct ember_policy_block view;
	struct ember_va_range *range;
	struct ember_va_block *block;

	if (vs->policy->adaptive) {	/* span promotion: ember_adaptive_drv.c */
		n.now_ns = ember_gpu_now_ns(gpu);
		ember_adaptive_notify(gpu, vs, &n);
		return;
	}
	down_read(&vs->lock);
	if (!vs->policy->on_notification)
		goto out;
	range = ember_range_find(vs, e->addr & ~(EMBER_VA_BLOCK_SIZE - 1),
				 EMBER_VA_BLOCK_SIZE);
	block = range ? ember_range_block(range, e->addr, false) : NULL;
	if (!block)
		goto out;
	mutex_lock(&block->lock);
	if (!block->dead) {
		ember_block_policy_view(block, &view);
		view.now_ns = n.now_ns = ember_gpu_now_ns(gpu);
		if (vs->policy->on_notification(vs->policy_data, &n, &view)) {
			if (view.dest != EMBER_LOC_CPU)
				view.dest = EMBER_LOC_GPU;
			if (!ember_block_apply(block, &view, EMBER_CAUSE_NOTIFY))
				ember_stat_inc(vs, promotions);
		} else {
			block->policy_priv = view.priv;
		}
	}
	mutex_unlock(&block->lock);
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
		WRITE_ONCE(slot->flags, 0);
		gpu->ac_get = (gpu->ac_get + 1) % EMBER_AC_BUF_ENTRIES;
		if (!(e.flags & EMGPU_NOTIFY_VALID))
			continue;
		n++;
		if (vs)
			ember_notify_one(gpu, vs, &e);
		/* re-arm the counter, whatever the policy did */
		mutex_lock(&gpu->hw_lock);
		ember_wr(gpu, EMGPU_REG_AC_CLEAR_TAG, e.tag & EMGPU_NOTIFY_TAG_MASK);
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
