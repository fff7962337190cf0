// SPDX-License-Identifier: GPL-2.0
/*
 * ember.ko: binding to emgpu PCI devices. Maps BAR0, enables MSI-X (one
 * vector per interrupt cause), checks the interrupt path once at probe, sets
 * up the rings in sysmem (fault buffer, copy engine, launch descriptor),
 * publishes the GPU on the list /dev/ember serves, and runs the interrupt
 * bottom half (which also hands the clock back in lockstep) and the reset
 * after a hang. The hardware operations the driver core uses are in
 * ember_hw.c.
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

/*
 * Whether the device stands still, so that what the driver reads of it is
 * the same in every run. In lockstep it runs between hand-offs in slices
 * of the main loop, and a bottom half kicked by wall-clock time (the launch
 * wait's polls) could otherwise service a fault or notification written in
 * the middle of an epoch: at a modelled time that differs from run to run.
 */
static bool ember_gpu_stands_still(struct ember_gpu *gpu)
{
	if (!(gpu->caps & EMGPU_CAP_LOCKSTEP))
		return true;	/* free-running: the driver races it by design */
	return (ember_rd(gpu, EMGPU_REG_SYNC_STATUS) & EMGPU_SYNC_WAITING) ||
	       ember_rd(gpu, EMGPU_REG_LAUNCH_STATUS) != EMGPU_LAUNCH_RUNNING;
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
	ember_pmm_timer_tick(gpu, vs);	/* the policy's eager reclamation */
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
	int err;

	mutex_lock(&gpu->launch_lock);
	/* a launch held the GPU past launch_hold_ms, or the device hung */
	err = gpu->launch_overdue && gpu->launch_vs ? -ETIME : -EIO;
	gpu->launch_overdue = false;
	if (err == -EIO)
		dev_err(&gpu->pdev->dev, "device hung: resetting it\n");
	else
		dev_warn(&gpu->pdev->dev, "resetting the device to end the overdue launch\n");
	mutex_lock(&gpu->hw_lock);
	ember_wr(gpu, EMGPU_REG_RESET, EMGPU_RESET_MAGIC);
	ember_wr(gpu, EMGPU_REG_INTR_STATUS, EMGPU_INTR_ALL);
	ember_gpu_program(gpu);
	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, EMGPU_INTR_ALL);
	mutex_unlock(&gpu->hw_lock);
	vs = gpu->launch_vs;
	if (vs) {
		if (!vs->launch_error)
			vs->launch_error = err;
		WRITE_ONCE(vs->launches_completed, vs->launches_completed + 1);
		ember_limits_launch_put(vs);
		gpu->launch_vs = NULL;
		gpu->launch_busy = false;
	}
	mutex_unlock(&gpu->launch_lock);
	if (!vs)
		return;
	ember_launch_end_policy(gpu, vs, err, 0);
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
	/* the device waits for us meanwhile: not a hang (the launch watchdog) */
	WRITE_ONCE(gpu->isr_running, true);
	for (rounds = 0; rounds < 1000; rounds++) {
		/* mid-run: only the launch; its stop raises what it holds */
		if (!ember_gpu_stands_still(gpu)) {
			ember_launch_poll(gpu);
			goto out;
		}
		pending = ember_gpu_take_pending(gpu);
		/* the rings are polled every time: a lost interrupt costs latency */
		ember_fault_service(gpu);
		ember_notify_service(gpu);
		if (pending & EMGPU_INTR_TIMER)
			ember_gpu_timer_tick(gpu);
		ember_launch_poll(gpu);
		if (ember_gpu_try_sync(gpu))
			goto out;
	}
	ember_gpu_kick(gpu);	/* still busy: yield the worker, come back */
out:
	WRITE_ONCE(gpu->isr_running, false);
}

/* Runs the bottom half even without an interrupt (lost-interrupt watchdog). */
void ember_gpu_kick(struct ember_gpu *gpu)
{
	if (gpu->ready)
		queue_work(gpu->wq, &gpu->isr_work);
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
	/* the card a scaled profile stands for (the policy scales with it) */
	gpu->full_vram_size = ember_rd64(gpu, EMGPU_REG_FULL_VRAM_SIZE_LO,
					 EMGPU_REG_FULL_VRAM_SIZE_HI);
	if (!gpu->full_vram_size)
		gpu->full_vram_size = gpu->vram_size;

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
