// SPDX-License-Identifier: GPL-2.0
/*
 * ember.ko: binding to emgpu PCI devices. Maps BAR0, enables MSI-X (one
 * vector per interrupt cause), checks the interrupt path once at probe, sets
 * up the rings in sysmem (fault buffer, copy engine, launch descriptor) and
 * publishes the GPU on the list /dev/ember serves. Also the hardware
 * helpers the rest of the driver uses: copy-engine batches, TLB
 * invalidation, the page-directory base, driver-time charges and the
 * interrupt bottom half (which also hands the clock back in lockstep).
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "ember_drv.h"

static void ember_gpu_program(struct ember_gpu *gpu);

/* How long the probe-time interrupt self-test waits for its MSI-X message. */
#define EMBER_SELFTEST_TIMEOUT_MS 2000

static irqreturn_t ember_gpu_irq(int irq, void *data)
{
	struct ember_gpu *gpu = data;
	unsigned long flags;
	u32 status;
	int vec;

	spin_lock_irqsave(&gpu->irq_lock, flags);
	status = ember_rd(gpu, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_ALL;
	if (!status) {
		spin_unlock_irqrestore(&gpu->irq_lock, flags);
		/* MSI-X vectors are ours alone: the bottom half took it */
		return gpu->ready ? IRQ_HANDLED : IRQ_NONE;
	}
	ember_wr(gpu, EMGPU_REG_INTR_STATUS, status);	/* write-1-to-clear */
	for (vec = 0; vec < EMGPU_MSIX_VECTORS; vec++)
		if (status & BIT(vec))
			gpu->irq_count[vec]++;
	if (status & EMGPU_INTR_ERROR) {
		gpu->error_status = ember_rd(gpu, EMGPU_REG_ERROR_STATUS);
		gpu->error_info = ember_rd(gpu, EMGPU_REG_ERROR_INFO);
		/* a hung device does nothing until reset: do it at once */
		if (gpu->error_status == EMGPU_ERR_HANG && gpu->ready) {
			WRITE_ONCE(gpu->reset_pending, true);
			status |= EMGPU_INTR_LAUNCH;	/* wake the bottom half */
		}
	}
	if (gpu->selftest_pending && (status & EMGPU_INTR_TIMER)) {
		gpu->selftest_pending = false;
		complete(&gpu->selftest_done);
		status &= ~EMGPU_INTR_TIMER;
	}
	gpu->irq_pending |= status & ~EMGPU_INTR_ERROR;
	spin_unlock_irqrestore(&gpu->irq_lock, flags);

	if (gpu->ready && (status & ~EMGPU_INTR_ERROR))
		queue_work(gpu->wq, &gpu->isr_work);

	if ((status & EMGPU_INTR_ERROR) && gpu->error_status)
		dev_err_ratelimited(&gpu->pdev->dev,
				    "device error %u (info 0x%x)\n",
				    gpu->error_status, gpu->error_info);
	return IRQ_HANDLED;
}

/*
 * Raises one cause through INTR_SET and waits for its MSI-X message, so a
 * broken interrupt path is reported at probe rather than as a hang later.
 */
static bool ember_gpu_irq_selftest(struct ember_gpu *gpu)
{
	unsigned long left;

	reinit_completion(&gpu->selftest_done);
	spin_lock_irq(&gpu->irq_lock);
	gpu->selftest_pending = true;
	spin_unlock_irq(&gpu->irq_lock);

	ember_wr(gpu, EMGPU_REG_INTR_SET, EMGPU_INTR_TIMER);
	left = wait_for_completion_timeout(&gpu->selftest_done,
			msecs_to_jiffies(EMBER_SELFTEST_TIMEOUT_MS));

	spin_lock_irq(&gpu->irq_lock);
	gpu->selftest_pending = false;
	spin_unlock_irq(&gpu->irq_lock);
	return left != 0;
}

static int ember_gpu_setup_irqs(struct ember_gpu *gpu)
{
	struct pci_dev *pdev = gpu->pdev;
	int nvec, vec, ret;

	nvec = pci_alloc_irq_vectors(pdev, EMGPU_MSIX_VECTORS,
				     EMGPU_MSIX_VECTORS, PCI_IRQ_MSIX);
	if (nvec < 0)
		return nvec;
	for (vec = 0; vec < EMGPU_MSIX_VECTORS; vec++) {
		ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, vec),
				       ember_gpu_irq, 0, EMBER_NAME, gpu);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- bottom half ---- */

#define EMBER_INTR_WORK	(EMGPU_INTR_ALL & ~EMGPU_INTR_ERROR)

/* Takes the causes the ISR saw, and those raised since it last ran. */
static u32 ember_gpu_take_pending(struct ember_gpu *gpu)
{
	u32 pending, status;

	spin_lock_irq(&gpu->irq_lock);
	status = ember_rd(gpu, EMGPU_REG_INTR_STATUS) & EMBER_INTR_WORK;
	if (status)
		ember_wr(gpu, EMGPU_REG_INTR_STATUS, status);
	pending = gpu->irq_pending | status;
	gpu->irq_pending = 0;
	spin_unlock_irq(&gpu->irq_lock);
	return pending;
}

/*
 * In lockstep the device stops at every event that needs the driver and
 * waits for SYNC, frozen. Hand the clock back only when nothing it raised
 * or queued before freezing is left unserviced, so every event is handled
 * at the same modelled time in every run.
 */
static bool ember_gpu_try_sync(struct ember_gpu *gpu)
{
	bool idle;

	if (!(ember_rd(gpu, EMGPU_REG_SYNC_STATUS) & EMGPU_SYNC_WAITING))
		return true;
	spin_lock_irq(&gpu->irq_lock);
	idle = !gpu->irq_pending &&
	       !(ember_rd(gpu, EMGPU_REG_INTR_STATUS) & EMBER_INTR_WORK);
	spin_unlock_irq(&gpu->irq_lock);
	if (!idle ||
	    ember_rd(gpu, EMGPU_REG_FAULT_BUF_PUT) != gpu->fault_get ||
	    (gpu->ac_buf.cpu &&
	     ember_rd(gpu, EMGPU_REG_AC_BUF_PUT) != gpu->ac_get))
		return false;
	ember_wr(gpu, EMGPU_REG_SYNC, 1);
	return true;
}

/* The policy timer ticked: the running launch's policy gets device time. */
static void ember_gpu_timer_tick(struct ember_gpu *gpu)
{
	struct ember_va_space *vs;

	mutex_lock(&gpu->launch_lock);
	vs = gpu->launch_vs;
	if (vs)
		kref_get(&vs->kref);
	mutex_unlock(&gpu->launch_lock);
	ember_stat_inc(vs, timer_ticks);
	if (!vs)
		return;
	down_read(&vs->lock);
	if (vs->policy->on_timer_tick)
		vs->policy->on_timer_tick(vs->policy_data, ember_gpu_now_ns(gpu));
	ember_adaptive_reclaim(gpu, vs);	/* the eager reclamation worker */
	up_read(&vs->lock);
	ember_va_space_put(vs);
}

/*
 * The device made no progress for hang_timeout_ms (an injected hang, or a
 * real one): reset it, reprogram it, and fail the running launch with EIO.
 * VRAM survives a reset, so no data is lost. Runs in the bottom half.
 */
static void ember_gpu_recover(struct ember_gpu *gpu)
{
	struct ember_va_space *vs;

	dev_err(&gpu->pdev->dev, "device hung: resetting it\n");
	mutex_lock(&gpu->launch_lock);
	mutex_lock(&gpu->hw_lock);
	ember_wr(gpu, EMGPU_REG_RESET, EMGPU_RESET_MAGIC);
	ember_wr(gpu, EMGPU_REG_INTR_STATUS, EMGPU_INTR_ALL);
	ember_gpu_program(gpu);
	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, EMGPU_INTR_ALL);
	mutex_unlock(&gpu->hw_lock);
	vs = gpu->launch_vs;
	if (vs) {
		if (!vs->launch_error)
			vs->launch_error = -EIO;
		WRITE_ONCE(vs->launches_completed, vs->launches_completed + 1);
		gpu->launch_vs = NULL;
		gpu->launch_busy = false;
	}
	mutex_unlock(&gpu->launch_lock);
	if (!vs)
		return;
	ember_stat_inc(vs, launches_failed);
	wake_up_all(&vs->launch_wq);
	wake_up_all(&gpu->launch_wq);
	ember_va_space_put(vs);
}

static void ember_gpu_isr_work(struct work_struct *work)
{
	struct ember_gpu *gpu = container_of(work, struct ember_gpu, isr_work);
	unsigned int rounds;
	u32 pending;

	if (READ_ONCE(gpu->reset_pending)) {
		WRITE_ONCE(gpu->reset_pending, false);
		ember_gpu_recover(gpu);
	}
	for (rounds = 0; rounds < 1000; rounds++) {
		pending = ember_gpu_take_pending(gpu);
		/* the rings are polled every time: a lost interrupt costs latency */
		ember_fault_service(gpu);
		ember_notify_service(gpu);
		if (pending & EMGPU_INTR_TIMER)
			ember_gpu_timer_tick(gpu);
		ember_launch_poll(gpu);
		if (ember_gpu_try_sync(gpu))
			return;
	}
	ember_gpu_kick(gpu);	/* still busy: yield the worker, come back */
}

/* Runs the bottom half even without an interrupt (lost-interrupt watchdog). */
void ember_gpu_kick(struct ember_gpu *gpu)
{
	if (gpu->ready)
		queue_work(gpu->wq, &gpu->isr_work);
}

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
	b->thread = thread;
	b->count = 0;
	b->quiet = false;
	b->error = gpu->ready ? 0 : -ENODEV;
	mutex_lock(&gpu->hw_lock);
	if (!b->error)
		ember_hw_select_thread(gpu, thread);
}

static bool ember_sem_reached(u32 sem, u32 seq)
{
	return (s32)(sem - seq) >= 0;
}

static int ember_ce_flush(struct ember_ce_batch *b)
{
	struct ember_gpu *gpu = b->gpu;
	struct emgpu_ce_desc *ring = gpu->ce_ring.cpu;
	u32 last = (gpu->ce_put + EMBER_CE_RING_ENTRIES - 1) %
		   EMBER_CE_RING_ENTRIES;
	volatile u32 *sem = gpu->ce_sem.cpu;
	unsigned long deadline;
	u32 status;

	if (!b->count || b->error)
		return b->error;
	ring[last].flags |= EMGPU_CE_SEMAPHORE;
	ring[last].payload = ++gpu->ce_seq;
	b->count = 0;
	wmb();	/* descriptors before the doorbell */
	ember_wr(gpu, EMGPU_REG_CE_RING_PUT, gpu->ce_put);
	ember_wr(gpu, EMGPU_REG_CE_DOORBELL, 1);

	deadline = jiffies + msecs_to_jiffies(ember_hw_timeout_ms);
	while (!ember_sem_reached(READ_ONCE(*sem), gpu->ce_seq)) {
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

		if (!b->quiet)
			dev_err_ratelimited(&gpu->pdev->dev, "copy engine error%s\n",
					    poison ? " (poisoned VRAM)" : "");
		ember_wr(gpu, EMGPU_REG_CE_STATUS, EMGPU_CE_STATUS_ERROR);
		if (poison)
			ember_wr(gpu, EMGPU_REG_ERROR_CLEAR, 1);
		b->error = poison ? -EHWPOISON : -EIO;
	} else if (!ember_sem_reached(READ_ONCE(*sem), gpu->ce_seq)) {
		dev_err_ratelimited(&gpu->pdev->dev, "copy engine timeout\n");
		b->error = -ETIMEDOUT;
	}
	if (b->error)	/* resynchronise our PUT with the device's GET */
		gpu->ce_put = ember_rd(gpu, EMGPU_REG_CE_RING_GET) %
			      EMBER_CE_RING_ENTRIES;
	return b->error;
}

static void ember_ce_push(struct ember_ce_batch *b, u32 op, u32 flags,
			  u64 src, u64 dst, u32 len)
{
	struct ember_gpu *gpu = b->gpu;
	struct emgpu_ce_desc *d;

	if (b->error)
		return;
	if (b->count == EMBER_CE_RING_ENTRIES - 1 && ember_ce_flush(b))
		return;
	d = (struct emgpu_ce_desc *)gpu->ce_ring.cpu + gpu->ce_put;
	d->op = op;
	d->flags = flags;
	d->src = src;
	d->dst = dst;
	d->length = len;
	d->payload = 0;
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

/* Points the MMU at a VA space's page tables (0: none). */
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

/* ---- rings ---- */

static int ember_dma_alloc(struct ember_gpu *gpu, struct ember_dma *d,
			   size_t size)
{
	d->size = size;
	d->cpu = dma_alloc_coherent(&gpu->pdev->dev, size, &d->dma, GFP_KERNEL);
	return d->cpu ? 0 : -ENOMEM;
}

static void ember_dma_free(struct ember_gpu *gpu, struct ember_dma *d)
{
	if (d->cpu)
		dma_free_coherent(&gpu->pdev->dev, d->size, d->cpu, d->dma);
	d->cpu = NULL;
}

static void ember_gpu_free_rings(struct ember_gpu *gpu)
{
	ember_dma_free(gpu, &gpu->fault_buf);
	ember_dma_free(gpu, &gpu->ce_ring);
	ember_dma_free(gpu, &gpu->ce_sem);
	ember_dma_free(gpu, &gpu->launch_desc);
	kfree(gpu->batch);
	gpu->batch = NULL;
}

#define EMBER_CAPS_NEEDED (EMGPU_CAP_REPLAYABLE_FAULTS | EMGPU_CAP_COPY_ENGINE | \
			   EMGPU_CAP_LAUNCH)

/*
 * Programs the rings and the driver timeline into the device, at probe and
 * after a reset (which clears every register but keeps VRAM).
 */
static void ember_gpu_program(struct ember_gpu *gpu)
{
	ember_wr64(gpu, EMGPU_REG_FAULT_BUF_LO, EMGPU_REG_FAULT_BUF_HI,
		   gpu->fault_buf.dma);
	ember_wr(gpu, EMGPU_REG_FAULT_BUF_SIZE, EMBER_FAULT_BUF_ENTRIES);
	ember_wr(gpu, EMGPU_REG_FAULT_BUF_GET, 0);
	gpu->fault_get = 0;
	ember_wr(gpu, EMGPU_REG_FAULT_BUF_STATUS, EMGPU_RING_OVERFLOW);
	ember_wr(gpu, EMGPU_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);

	ember_wr64(gpu, EMGPU_REG_CE_RING_LO, EMGPU_REG_CE_RING_HI,
		   gpu->ce_ring.dma);
	ember_wr(gpu, EMGPU_REG_CE_RING_SIZE, EMBER_CE_RING_ENTRIES);
	gpu->ce_put = ember_rd(gpu, EMGPU_REG_CE_RING_GET) %
		      EMBER_CE_RING_ENTRIES;
	ember_wr(gpu, EMGPU_REG_CE_RING_PUT, gpu->ce_put);
	ember_wr64(gpu, EMGPU_REG_CE_SEM_LO, EMGPU_REG_CE_SEM_HI,
		   gpu->ce_sem.dma);

	if (gpu->ac_buf.cpu)
		ember_notify_program(gpu);

	ember_wr(gpu, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_FAULT);
	gpu->hw_thread = EMGPU_DRV_THREAD_FAULT;
	gpu->pdb = 0;
	gpu->timer_period_ns = 0;	/* a reset stopped the timer */
}

/*
 * Sets up the fault buffer, the copy-engine ring and its semaphore, and the
 * launch descriptor. A device without the capabilities stays usable for
 * CPU-only managed memory (gpu->ready stays false).
 */
static int ember_gpu_setup_rings(struct ember_gpu *gpu)
{
	int ret;

	if ((gpu->caps & EMBER_CAPS_NEEDED) != EMBER_CAPS_NEEDED) {
		dev_info(&gpu->pdev->dev,
			 "device lacks faults/copy/launch (caps %#x): CPU-only\n",
			 gpu->caps);
		return 0;
	}
	ret = dma_set_mask_and_coherent(&gpu->pdev->dev, DMA_BIT_MASK(52));
	if (ret)
		return ret;
	gpu->batch = kcalloc(ember_fault_batch_count, sizeof(*gpu->batch),
			     GFP_KERNEL);
	if (!gpu->batch ||
	    ember_dma_alloc(gpu, &gpu->fault_buf, EMBER_FAULT_BUF_ENTRIES *
			    sizeof(struct emgpu_fault_entry)) ||
	    ember_dma_alloc(gpu, &gpu->ce_ring, EMBER_CE_RING_ENTRIES *
			    sizeof(struct emgpu_ce_desc)) ||
	    ember_dma_alloc(gpu, &gpu->ce_sem, PAGE_SIZE) ||
	    ember_dma_alloc(gpu, &gpu->launch_desc, PAGE_SIZE)) {
		ember_gpu_free_rings(gpu);
		return -ENOMEM;
	}

	if ((gpu->caps & EMGPU_CAP_ACCESS_COUNTERS) && ember_notify_setup(gpu))
		dev_warn(&gpu->pdev->dev, "no access-counter ring\n");
	ember_gpu_program(gpu);
	gpu->ready = true;
	return 0;
}

/* Stops the device using our memory before it is freed. */
static void ember_gpu_quiesce(struct ember_gpu *gpu)
{
	int vec;

	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, 0);
	if (!gpu->ready)
		return;
	ember_wr(gpu, EMGPU_REG_FAULT_BUF_CTRL, 0);
	ember_wr64(gpu, EMGPU_REG_PDB_LO, EMGPU_REG_PDB_HI, 0);
	gpu->ready = false;
	for (vec = 0; vec < EMGPU_MSIX_VECTORS; vec++)
		synchronize_irq(pci_irq_vector(gpu->pdev, vec));
	cancel_work_sync(&gpu->isr_work);
	ember_notify_teardown(gpu);
}

/* The GPU a new VA space uses: the first bound one, or NULL. */
struct ember_gpu *ember_gpu_get_default(void)
{
	struct ember_gpu *gpu;

	mutex_lock(&ember_gpus_lock);
	gpu = list_first_entry_or_null(&ember_gpus, struct ember_gpu, node);
	mutex_unlock(&ember_gpus_lock);
	return gpu;
}

void ember_gpu_fill_info(struct ember_gpu *gpu, struct ember_device_info *info)
{
	info->abi_version = EMBER_ABI_VERSION;
	info->hw_id = ember_rd(gpu, EMGPU_REG_ID);
	info->hw_version = gpu->hw_version;
	info->caps = gpu->caps;
	info->profile = gpu->profile;
	info->num_sms = ember_rd(gpu, EMGPU_REG_NUM_SMS);
	info->warps_per_sm = ember_rd(gpu, EMGPU_REG_WARPS_PER_SM);
	info->num_gpcs = ember_rd(gpu, EMGPU_REG_NUM_GPCS);
	info->utlbs_per_gpc = ember_rd(gpu, EMGPU_REG_UTLBS_PER_GPC);
	info->num_access_counters = ember_rd(gpu, EMGPU_REG_NUM_ACCESS_COUNTERS);
	info->num_copy_engines = ember_rd(gpu, EMGPU_REG_NUM_COPY_ENGINES);
	info->page_sizes = ember_rd(gpu, EMGPU_REG_PAGE_SIZES);
	info->flags = gpu->flags;
	info->vram_size = gpu->vram_size;
	info->ptimer_ns = ember_rd64(gpu, EMGPU_REG_PTIMER_LO,
				     EMGPU_REG_PTIMER_HI);
}

static int ember_gpu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct ember_gpu *gpu;
	u32 magic;
	int ret;

	gpu = devm_kzalloc(&pdev->dev, sizeof(*gpu), GFP_KERNEL);
	if (!gpu)
		return -ENOMEM;
	gpu->pdev = pdev;
	spin_lock_init(&gpu->irq_lock);
	init_completion(&gpu->selftest_done);
	INIT_LIST_HEAD(&gpu->node);
	mutex_init(&gpu->hw_lock);
	mutex_init(&gpu->launch_lock);
	init_waitqueue_head(&gpu->launch_wq);
	INIT_WORK(&gpu->isr_work, ember_gpu_isr_work);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(EMGPU_BAR_REGS), EMBER_NAME);
	if (ret)
		return ret;
	gpu->regs = pcim_iomap_table(pdev)[EMGPU_BAR_REGS];
	if (pci_resource_len(pdev, EMGPU_BAR_REGS) < EMGPU_REGS_SIZE) {
		dev_err(&pdev->dev, "BAR%d is smaller than %#x bytes\n",
			EMGPU_BAR_REGS, EMGPU_REGS_SIZE);
		return -ENODEV;
	}
	pci_set_master(pdev);

	magic = ember_rd(gpu, EMGPU_REG_ID);
	gpu->hw_version = ember_rd(gpu, EMGPU_REG_VERSION);
	if (magic != EMGPU_ID_MAGIC ||
	    gpu->hw_version >> 16 != EMGPU_VERSION_MAJOR) {
		dev_err(&pdev->dev, "not an emgpu v%u (id %#x, version %#x)\n",
			EMGPU_VERSION_MAJOR, magic, gpu->hw_version);
		return -ENODEV;
	}
	gpu->caps = ember_rd(gpu, EMGPU_REG_CAPS);
	gpu->profile = ember_rd(gpu, EMGPU_REG_PROFILE);
	gpu->vram_size = ember_rd64(gpu, EMGPU_REG_VRAM_SIZE_LO,
				    EMGPU_REG_VRAM_SIZE_HI);

	gpu->wq = alloc_ordered_workqueue("ember-isr", WQ_MEM_RECLAIM);
	if (!gpu->wq)
		return -ENOMEM;
	ret = ember_pmm_init(gpu);
	if (ret)
		goto err_wq;

	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, 0);
	ember_wr(gpu, EMGPU_REG_INTR_STATUS, EMGPU_INTR_ALL);
	ret = ember_gpu_setup_irqs(gpu);
	if (ret) {
		dev_err(&pdev->dev, "MSI-X setup failed: %d\n", ret);
		goto err_pmm;
	}
	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, EMGPU_INTR_ALL);
	if (ember_gpu_irq_selftest(gpu))
		gpu->flags |= EMBER_GPU_MSIX_OK;
	else
		dev_warn(&pdev->dev, "no MSI-X message from the interrupt self-test\n");
	ret = ember_gpu_setup_rings(gpu);
	if (ret) {
		dev_err(&pdev->dev, "ring setup failed: %d\n", ret);
		goto err_irq;
	}

	pci_set_drvdata(pdev, gpu);
	mutex_lock(&ember_gpus_lock);
	list_add_tail(&gpu->node, &ember_gpus);
	mutex_unlock(&ember_gpus_lock);

	dev_info(&pdev->dev, "emgpu v%u.%u profile %u, %llu MiB VRAM, caps %#x\n",
		 gpu->hw_version >> 16, gpu->hw_version & 0xffff, gpu->profile,
		 gpu->vram_size >> 20, gpu->caps);
	return 0;

err_irq:
	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, 0);
err_pmm:
	ember_pmm_fini(gpu);
err_wq:
	destroy_workqueue(gpu->wq);
	return ret;
}

static void ember_gpu_remove(struct pci_dev *pdev)
{
	struct ember_gpu *gpu = pci_get_drvdata(pdev);

	mutex_lock(&ember_gpus_lock);
	list_del(&gpu->node);
	mutex_unlock(&ember_gpus_lock);

	/* quiesce the device; devm/pcim release IRQs, vectors and the BAR */
	ember_gpu_quiesce(gpu);
	destroy_workqueue(gpu->wq);
	/* a launch of a file closed while it ran: nothing will complete it */
	if (gpu->launch_vs) {
		ember_va_space_put(gpu->launch_vs);
		gpu->launch_vs = NULL;
	}
	ember_gpu_free_rings(gpu);
	ember_pmm_fini(gpu);
}

static const struct pci_device_id ember_gpu_ids[] = {
	{ PCI_DEVICE(EMGPU_PCI_VENDOR_ID, EMGPU_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ember_gpu_ids);

static struct pci_driver ember_gpu_driver = {
	.name = EMBER_NAME,
	.id_table = ember_gpu_ids,
	.probe = ember_gpu_probe,
	.remove = ember_gpu_remove,
};

int ember_gpu_driver_register(void)
{
	return pci_register_driver(&ember_gpu_driver);
}

void ember_gpu_driver_unregister(void)
{
	pci_unregister_driver(&ember_gpu_driver);
}
