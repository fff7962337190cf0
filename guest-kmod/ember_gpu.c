// SPDX-License-Identifier: GPL-2.0
/*
 * ember.ko: binding to emgpu PCI devices. Maps BAR0, enables MSI-X (one
 * vector per interrupt cause), checks the interrupt path once at probe and
 * publishes the GPU on the list /dev/ember serves.
 */
#include <linux/interrupt.h>
#include <linux/module.h>

#include "ember_drv.h"

/* How long the probe-time interrupt self-test waits for its MSI-X message. */
#define EMBER_SELFTEST_TIMEOUT_MS 2000

static irqreturn_t ember_gpu_irq(int irq, void *data)
{
	struct ember_gpu *gpu = data;
	unsigned long flags;
	u32 status;
	int vec;

	status = ember_rd(gpu, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_ALL;
	if (!status)
		return IRQ_NONE;
	ember_wr(gpu, EMGPU_REG_INTR_STATUS, status);	/* write-1-to-clear */

	spin_lock_irqsave(&gpu->irq_lock, flags);
	for (vec = 0; vec < EMGPU_MSIX_VECTORS; vec++)
		if (status & BIT(vec))
			gpu->irq_count[vec]++;
	if (status & EMGPU_INTR_ERROR) {
		gpu->error_status = ember_rd(gpu, EMGPU_REG_ERROR_STATUS);
		gpu->error_info = ember_rd(gpu, EMGPU_REG_ERROR_INFO);
	}
	if (gpu->selftest_pending && (status & EMGPU_INTR_TIMER)) {
		gpu->selftest_pending = false;
		complete(&gpu->selftest_done);
	}
	spin_unlock_irqrestore(&gpu->irq_lock, flags);

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

	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, 0);
	ember_wr(gpu, EMGPU_REG_INTR_STATUS, EMGPU_INTR_ALL);
	ret = ember_gpu_setup_irqs(gpu);
	if (ret) {
		dev_err(&pdev->dev, "MSI-X setup failed: %d\n", ret);
		return ret;
	}
	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, EMGPU_INTR_ALL);
	if (ember_gpu_irq_selftest(gpu))
		gpu->flags |= EMBER_GPU_MSIX_OK;
	else
		dev_warn(&pdev->dev, "no MSI-X message from the interrupt self-test\n");

	pci_set_drvdata(pdev, gpu);
	mutex_lock(&ember_gpus_lock);
	list_add_tail(&gpu->node, &ember_gpus);
	mutex_unlock(&ember_gpus_lock);

	dev_info(&pdev->dev, "emgpu v%u.%u profile %u, %llu MiB VRAM, caps %#x\n",
		 gpu->hw_version >> 16, gpu->hw_version & 0xffff, gpu->profile,
		 gpu->vram_size >> 20, gpu->caps);
	return 0;
}

static void ember_gpu_remove(struct pci_dev *pdev)
{
	struct ember_gpu *gpu = pci_get_drvdata(pdev);

	mutex_lock(&ember_gpus_lock);
	list_del(&gpu->node);
	mutex_unlock(&ember_gpus_lock);

	/* quiesce the device; devm/pcim release IRQs, vectors and the BAR */
	ember_wr(gpu, EMGPU_REG_INTR_ENABLE, 0);
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
