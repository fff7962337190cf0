// SPDX-License-Identifier: GPL-2.0
/*
 * ember.ko: a UVM driver for emgpu. This file owns the module lifetime,
 * its parameters and /dev/ember, the one character device through which
 * userspace reaches every bound GPU (as /dev/nvidia-uvm does for
 * nvidia-uvm). Each open is a VA space; each mmap a managed range.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "ember_drv.h"

DEFINE_MUTEX(ember_gpus_lock);	/* protects ember_gpus */
LIST_HEAD(ember_gpus);

struct ember_stat_set ember_global_stats;

#define EMBER_FAULT_BATCH_COUNT_DEFAULT	256
#define EMBER_FAULT_BATCH_COUNT_MAX	EMBER_FAULT_BUF_ENTRIES
unsigned int ember_fault_batch_count = EMBER_FAULT_BATCH_COUNT_DEFAULT;
module_param_named(uvm_perf_fault_batch_count, ember_fault_batch_count, uint, 0444);
MODULE_PARM_DESC(uvm_perf_fault_batch_count,
		 "Fault entries fetched per batch (1..1024, default 256)");

#define EMBER_LAUNCH_TIMEOUT_MS_DEFAULT	600000
unsigned int ember_launch_timeout_ms = EMBER_LAUNCH_TIMEOUT_MS_DEFAULT;
module_param_named(launch_timeout_ms, ember_launch_timeout_ms, uint, 0644);
MODULE_PARM_DESC(launch_timeout_ms,
		 "Wall-clock limit of a synchronize, ms (>= 100, default 600000)");

#define EMBER_HW_TIMEOUT_MS_DEFAULT	2000
unsigned int ember_hw_timeout_ms = EMBER_HW_TIMEOUT_MS_DEFAULT;
module_param_named(hw_timeout_ms, ember_hw_timeout_ms, uint, 0644);
MODULE_PARM_DESC(hw_timeout_ms,
		 "Limit for a copy or TLB invalidate to complete, ms (>= 10, default 2000)");

#define EMBER_HANG_TIMEOUT_MS_DEFAULT	10000
unsigned int ember_hang_timeout_ms = EMBER_HANG_TIMEOUT_MS_DEFAULT;
module_param_named(hang_timeout_ms, ember_hang_timeout_ms, uint, 0644);
MODULE_PARM_DESC(hang_timeout_ms,
		 "Device clock standing still this long during a launch is a hang: reset, launch fails with EIO (>= 100 ms, default 10000)");

static void ember_check_params(void)
{
	if (!ember_fault_batch_count ||
	    ember_fault_batch_count > EMBER_FAULT_BATCH_COUNT_MAX) {
		pr_info("ember: invalid uvm_perf_fault_batch_count %u. Using %u instead\n",
			ember_fault_batch_count, EMBER_FAULT_BATCH_COUNT_DEFAULT);
		ember_fault_batch_count = EMBER_FAULT_BATCH_COUNT_DEFAULT;
	}
	if (ember_launch_timeout_ms < 100) {
		pr_info("ember: invalid launch_timeout_ms %u. Using %u instead\n",
			ember_launch_timeout_ms, EMBER_LAUNCH_TIMEOUT_MS_DEFAULT);
		ember_launch_timeout_ms = EMBER_LAUNCH_TIMEOUT_MS_DEFAULT;
	}
	if (ember_hang_timeout_ms < 100) {
		pr_info("ember: invalid hang_timeout_ms %u. Using %u instead\n",
			ember_hang_timeout_ms, EMBER_HANG_TIMEOUT_MS_DEFAULT);
		ember_hang_timeout_ms = EMBER_HANG_TIMEOUT_MS_DEFAULT;
	}
	if (ember_hw_timeout_ms < 10) {
		pr_info("ember: invalid hw_timeout_ms %u. Using %u instead\n",
			ember_hw_timeout_ms, EMBER_HW_TIMEOUT_MS_DEFAULT);
		ember_hw_timeout_ms = EMBER_HW_TIMEOUT_MS_DEFAULT;
	}
}

static int ember_open(struct inode *inode, struct file *file)
{
	struct ember_va_space *vs = ember_va_space_create(file);

	if (IS_ERR(vs))
		return PTR_ERR(vs);
	file->private_data = vs;
	return 0;
}

static int ember_release(struct inode *inode, struct file *file)
{
	struct ember_va_space *vs = file->private_data;

	ember_launch_release_vs(vs);
	ember_va_space_put(vs);
	return 0;
}

static int ember_mmap(struct file *file, struct vm_area_struct *vma)
{
	return ember_va_space_mmap(file->private_data, vma);
}

static const struct file_operations ember_fops = {
	.owner = THIS_MODULE,
	.open = ember_open,
	.release = ember_release,
	.mmap = ember_mmap,
	.unlocked_ioctl = ember_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice ember_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = EMBER_NAME,
	.fops = &ember_fops,
	.mode = 0666,
};

static int __init ember_init(void)
{
	int ret;

	ember_check_params();
	ret = ember_policy_init();
	if (ret)
		return ret;
	ret = ember_gpu_driver_register();
	if (ret)
		goto err_policy;
	ret = misc_register(&ember_misc);
	if (ret)
		goto err_gpu;
	return 0;

err_gpu:
	ember_gpu_driver_unregister();
err_policy:
	ember_policy_exit();
	return ret;
}

static void __exit ember_exit(void)
{
	misc_deregister(&ember_misc);
	ember_gpu_driver_unregister();
	ember_policy_exit();
}

module_init(ember_init);
module_exit(ember_exit);

MODULE_DESCRIPTION("Ember: a UVM driver for the emgpu emulated GPU");
MODULE_LICENSE("GPL");
