// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware layer the driver core calls: the device clock, driver-time
 * charges on the device's timelines, copy-engine batches, VRAM probes,
 * TLB invalidation, the policy timer and the page-directory base. Every
 * register access here is under gpu->hw_lock; waits are bounded by
 * hw_timeout_ms.
 */
#include <linux/delay.h>

#include "ember_drv.h"

u64 ember_gpu_now_ns(struct ember_gpu *gpu)
{
	return ember_rd64(gpu, EMGPU_REG_PTIMER_LO, EMGPU_REG_PTIMER_HI);
}

/* ---- driver timelines ---- */

u32 ember_cause_thread(enum ember_cause cause)
{
	switch (cause) {
	case EMBER_CAUSE_FAULT:
		return EMGPU_DRV_THREAD_FAULT;
	case EMBER_CAUSE_NOTIFY:
		return EMGPU_DRV_THREAD_NOTIFY;
	default:
		return EMGPU_DRV_THREAD_WORKER;
	}
}

/* LOCKING: gpu->hw_lock */
static void ember_hw_select_thread(struct ember_gpu *gpu, u32 thread)
{
	lockdep_assert_held(&gpu->hw_lock);
	if (gpu->hw_thread != thread) {
		ember_wr(gpu, EMGPU_REG_DRIVER_THREAD, thread);
		gpu->hw_thread = thread;
	}
}

/* Charges count driver actions of the profile's cost to a timeline. */
void ember_hw_charge(struct ember_gpu *gpu, u32 thread, u32 action, u32 count)
{
	if (!gpu->ready || !count)
		return;
	count = min_t(u32, count, EMGPU_DRV_ACTION_CODE_MASK << 16);
	mutex_lock(&gpu->hw_lock);
	ember_hw_select_thread(gpu, thread);
	ember_wr(gpu, EMGPU_REG_DRIVER_ACTION,
		 action | count << EMGPU_DRV_ACTION_COUNT_SHIFT);
	mutex_unlock(&gpu->hw_lock);
}

/* Timeline `thread` waits until timeline `other` is idle (DRIVER_ACTION JOIN). */
void ember_hw_join(struct ember_gpu *gpu, u32 thread, u32 other)
{
	if (!gpu->ready)
		return;
	mutex_lock(&gpu->hw_lock);
	ember_hw_select_thread(gpu, thread);
	ember_wr(gpu, EMGPU_REG_DRIVER_ACTION,
		 EMGPU_DRV_ACTION_JOIN | other << EMGPU_DRV_ACTION_COUNT_SHIFT);
	mutex_unlock(&gpu->hw_lock);
}

/* ---- copy engine ---- */

/*
 * A batch holds gpu->hw_lock from ember_ce_begin() to ember_ce_end();
 * descriptors are flushed (doorbell, wait for the semaphore) when the ring
 * fills and at the end. The first failure sticks in b->error and makes the
 * rest of the batch a no-op.
 */
void ember_ce_begin(struct ember_ce_batch *b, struct ember_gpu *gpu, u32 thread)
{
	b->gpu = gpu;
	b->vs = NULL;
	b->thread = thread;
	b->count = 0;
	b->quiet = false;
	b->error = gpu->ready ? 0 : -ENODEV;
	mutex_lock(&gpu->hw_lock);
	if (!b->error)
		ember_hw_select_thread(gpu, thread);
	b->first = gpu->ce_put;
}

static bool ember_sem_reached(u32 sem, u32 seq)
{
	return (s32)(sem - seq) >= 0;
}

/*
 * Queues the batch's descriptors [b->first, b->first + count) again after
 * themselves. The device runs every descriptor of a kick and does not say
 * which one failed, so the whole batch goes again; that is safe because a
 * batch's copies read no bytes another copy of it writes (migrations
 * copy between distinct pages). In ring order, since the copy never
 * overtakes its source (count < EMBER_CE_RING_ENTRIES).
 * LOCKING: gpu->hw_lock
 */
static void ember_ce_requeue(struct ember_ce_batch *b, u32 count)
{
	struct ember_gpu *gpu = b->gpu;
	struct emgpu_ce_desc *ring = gpu->ce_ring.cpu;
	u32 i;

	lockdep_assert_held(&gpu->hw_lock);
	for (i = 0; i < count; i++) {
		ring[gpu->ce_put] = ring[(b->first + i) % EMBER_CE_RING_ENTRIES];
		gpu->ce_put = (gpu->ce_put + 1) % EMBER_CE_RING_ENTRIES;
	}
	b->first = (gpu->ce_put + EMBER_CE_RING_ENTRIES - count) %
		   EMBER_CE_RING_ENTRIES;
}

/*
 * Kicks the queued descriptors and waits for the batch's semaphore. A
 * copy-engine error is retried: the batch is resubmitted up to ce_retries
 * times (ce_retries in the stats), then its copies fail with EIO. Poisoned
 * VRAM (EHWPOISON) and a timeout are not retried: the same bytes would
 * fail again, and a device that does not answer is the hang watchdog's.
 */
static int ember_ce_flush(struct ember_ce_batch *b)
{
	struct ember_gpu *gpu = b->gpu;
	struct emgpu_ce_desc *ring = gpu->ce_ring.cpu;
	emgpu_le32 *sem = gpu->ce_sem.cpu;	/* the device writes it, LE */
	u32 count = b->count, tries = 0, last;
	unsigned long deadline;
	u32 status;

	lockdep_assert_held(&gpu->hw_lock);
	if (!b->count || b->error)
		return b->error;
	b->count = 0;
again:
	last = (gpu->ce_put + EMBER_CE_RING_ENTRIES - 1) % EMBER_CE_RING_ENTRIES;
	ring[last].flags = emgpu_cpu_to_le32(emgpu_le32_to_cpu(ring[last].flags) |
					     EMGPU_CE_SEMAPHORE);
	ring[last].payload = emgpu_cpu_to_le32(++gpu->ce_seq);
	wmb();	/* descriptors before the doorbell */
	ember_wr(gpu, EMGPU_REG_CE_RING_PUT, gpu->ce_put);
	ember_wr(gpu, EMGPU_REG_CE_DOORBELL, 1);

	deadline = jiffies + msecs_to_jiffies(ember_hw_timeout_ms);
	while (!ember_sem_reached(emgpu_le32_to_cpu(READ_ONCE(*sem)),
				  gpu->ce_seq)) {
		status = ember_rd(gpu, EMGPU_REG_CE_STATUS);
		if ((status & EMGPU_CE_STATUS_ERROR) ||
		    time_after(jiffies, deadline))
			break;
		usleep_range(10, 100);
	}
	rmb();	/* the copied bytes after the semaphore */
	status = ember_rd(gpu, EMGPU_REG_CE_STATUS);
	if (status & EMGPU_CE_STATUS_ERROR) {
		bool poison = ember_rd(gpu, EMGPU_REG_ERROR_STATUS) ==
			      EMGPU_ERR_POISON;

		ember_wr(gpu, EMGPU_REG_CE_STATUS, EMGPU_CE_STATUS_ERROR);
		if (poison)
			ember_wr(gpu, EMGPU_REG_ERROR_CLEAR, 1);
		/* every descriptor ran: GET == PUT, the ring has room */
		if (!poison && tries < ember_ce_retries &&
		    ember_rd(gpu, EMGPU_REG_CE_RING_GET) % EMBER_CE_RING_ENTRIES ==
		    gpu->ce_put) {
			tries++;
			ember_stat_inc(b->vs, ce_retries);
			ember_ce_requeue(b, count);
			goto again;
		}
		if (!b->quiet)
			dev_err_ratelimited(&gpu->pdev->dev, "copy engine error%s%s\n",
					    poison ? " (poisoned VRAM)" : "",
					    tries ? " after retries" : "");
		b->error = poison ? -EHWPOISON : -EIO;
	} else if (!ember_sem_reached(emgpu_le32_to_cpu(READ_ONCE(*sem)),
				      gpu->ce_seq)) {
		dev_err_ratelimited(&gpu->pdev->dev, "copy engine timeout\n");
		b->error = -ETIMEDOUT;
	}
	if (b->error)	/* resynchronise our PUT with the device's GET */
		gpu->ce_put = ember_rd(gpu, EMGPU_REG_CE_RING_GET) %
			      EMBER_CE_RING_ENTRIES;
	b->first = gpu->ce_put;
	return b->error;
}

static void ember_ce_push(struct ember_ce_batch *b, u32 op, u32 flags,
			  u64 src, u64 dst, u32 len)
{
	struct ember_gpu *gpu = b->gpu;
	struct emgpu_ce_desc *d;

	lockdep_assert_held(&gpu->hw_lock);
	if (b->error)
		return;
	if (b->count == EMBER_CE_RING_ENTRIES - 1 && ember_ce_flush(b))
		return;
	d = (struct emgpu_ce_desc *)gpu->ce_ring.cpu + gpu->ce_put;
	d->op = emgpu_cpu_to_le32(op);
	d->flags = emgpu_cpu_to_le32(flags);
	d->src = emgpu_cpu_to_le64(src);
	d->dst = emgpu_cpu_to_le64(dst);
	d->length = emgpu_cpu_to_le32(len);
	d->payload = emgpu_cpu_to_le32(0);
	gpu->ce_put = (gpu->ce_put + 1) % EMBER_CE_RING_ENTRIES;
	b->count++;
}

void ember_ce_copy(struct ember_ce_batch *b, u32 dst_ap, u64 dst, u32 src_ap,
		   u64 src, u32 len)
{
	ember_ce_push(b, EMGPU_CE_OP_COPY,
		      src_ap << EMGPU_CE_SRC_APERTURE_SHIFT |
		      dst_ap << EMGPU_CE_DST_APERTURE_SHIFT, src, dst, len);
}

/* Zero-fills vidmem: GPU first-touch pages, no transfer. */
void ember_ce_memset(struct ember_ce_batch *b, u64 dst, u32 len)
{
	ember_ce_push(b, EMGPU_CE_OP_MEMSET,
		      EMGPU_APERTURE_VIDMEM << EMGPU_CE_DST_APERTURE_SHIFT,
		      0, dst, len);
}

int ember_ce_end(struct ember_ce_batch *b)
{
	int ret = ember_ce_flush(b);

	mutex_unlock(&b->gpu->hw_lock);
	return ret;
}

/* Reads 4 bytes of VRAM through the copy engine: -EHWPOISON if poisoned. */
int ember_vram_probe(struct ember_gpu *gpu, u64 addr)
{
	struct ember_ce_batch ce;

	ember_ce_begin(&ce, gpu, EMGPU_DRV_THREAD_WORKER);
	ce.quiet = true;
	ember_ce_copy(&ce, EMGPU_APERTURE_SYSMEM, gpu->ce_sem.dma + 64,
		      EMGPU_APERTURE_VIDMEM, addr, 4);
	return ember_ce_end(&ce);
}

/* ---- MMU ---- */

/* LOCKING: gpu->hw_lock */
static int ember_tlb_wait(struct ember_gpu *gpu)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ember_hw_timeout_ms);

	lockdep_assert_held(&gpu->hw_lock);
	while (ember_rd(gpu, EMGPU_REG_TLB_INV_STATUS) & EMGPU_TLB_INV_PENDING) {
		if (time_after(jiffies, deadline)) {
			dev_warn_ratelimited(&gpu->pdev->dev,
					     "TLB invalidate timeout\n");
			return -ETIMEDOUT;
		}
		usleep_range(10, 100);
	}
	return 0;
}

#define EMBER_TLB_TRIES 3

/*
 * Invalidates the GPU TLBs over [va, va + size); after every downgrade.
 * An invalidate that does not complete is issued again (a lost one is
 * harmless to repeat); -ETIMEDOUT only if none completes.
 */
int ember_tlb_invalidate(struct ember_gpu *gpu, u32 thread, u64 va, u64 size)
{
	int ret = 0, tries;

	if (!gpu->ready)
		return 0;
	mutex_lock(&gpu->hw_lock);
	ember_hw_select_thread(gpu, thread);
	for (tries = 0; tries < EMBER_TLB_TRIES; tries++) {
		ember_wr64(gpu, EMGPU_REG_TLB_INV_VA_LO, EMGPU_REG_TLB_INV_VA_HI,
			   va);
		ember_wr64(gpu, EMGPU_REG_TLB_INV_SIZE_LO,
			   EMGPU_REG_TLB_INV_SIZE_HI, size);
		ember_wr(gpu, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_RANGE);
		ret = ember_tlb_wait(gpu);
		if (!ret)
			break;
	}
	mutex_unlock(&gpu->hw_lock);
	ember_stat_inc(NULL, tlb_invalidates);
	return ret;
}

/*
 * Sets the policy timer's period. Writing the register restarts the
 * period, so it is written only when it changes: back-to-back launches
 * shorter than one period must still see the timer tick.
 */
void ember_gpu_set_timer(struct ember_gpu *gpu, u64 period_ns)
{
	mutex_lock(&gpu->hw_lock);
	if (gpu->timer_period_ns != period_ns) {
		ember_wr64(gpu, EMGPU_REG_TIMER_PERIOD_LO,
			   EMGPU_REG_TIMER_PERIOD_HI, period_ns);
		gpu->timer_period_ns = period_ns;
	}
	mutex_unlock(&gpu->hw_lock);
}

/* Points the MMU at a VA space's page tables (0: none). */
void ember_gpu_set_pdb(struct ember_gpu *gpu, u64 pde)
{
	if (!gpu->ready)
		return;
	mutex_lock(&gpu->hw_lock);
	if (gpu->pdb != pde) {
		ember_wr64(gpu, EMGPU_REG_PDB_LO, EMGPU_REG_PDB_HI, pde);
		ember_wr(gpu, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_ALL);
		ember_tlb_wait(gpu);
		gpu->pdb = pde;
	}
	mutex_unlock(&gpu->hw_lock);
}

