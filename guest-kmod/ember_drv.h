/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ember.ko internals: one struct ember_gpu per bound emgpu, and the global
 * list /dev/ember serves.
 *
 * Locking order (outermost first):
 *   ember_gpus_lock (mutex)  -> the list of GPUs and each GPU's registers
 *                               outside interrupt context
 *   gpu->irq_lock (spinlock) -> interrupt bookkeeping, taken in hard IRQ
 */
#ifndef EMBER_DRV_H
#define EMBER_DRV_H

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>

#include "emgpu_hw.h"
#include "uapi/ember.h"

#define EMBER_NAME "ember"

struct ember_gpu {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct list_head node;		/* in ember_gpus, under ember_gpus_lock */

	/* read once at probe, immutable afterwards */
	u32 hw_version;
	u32 caps;
	u32 profile;
	u64 vram_size;
	u32 flags;			/* EMBER_GPU_* */

	spinlock_t irq_lock;		/* protects the fields below */
	u64 irq_count[EMGPU_MSIX_VECTORS];
	u32 error_status;		/* last device error seen */
	u32 error_info;
	bool selftest_pending;
	struct completion selftest_done;
};

static inline u32 ember_rd(struct ember_gpu *gpu, u32 reg)
{
	return readl(gpu->regs + reg);
}

static inline void ember_wr(struct ember_gpu *gpu, u32 reg, u32 val)
{
	writel(val, gpu->regs + reg);
}

/* Reads a LO/HI pair; reading LO latches HI on the device. */
static inline u64 ember_rd64(struct ember_gpu *gpu, u32 reg_lo, u32 reg_hi)
{
	u64 lo = ember_rd(gpu, reg_lo);

	return lo | (u64)ember_rd(gpu, reg_hi) << 32;
}

/* ember_gpu.c */
int ember_gpu_driver_register(void);
void ember_gpu_driver_unregister(void);
void ember_gpu_fill_info(struct ember_gpu *gpu, struct ember_device_info *info);

/* ember_main.c: the GPU list, LOCKING: ember_gpus_lock */
extern struct mutex ember_gpus_lock;
extern struct list_head ember_gpus;

#endif /* EMBER_DRV_H */
