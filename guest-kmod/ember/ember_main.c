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

/*
 * Driver parameters. Each is checked by its setter, at load and on every
 * write through /sys/module/ember/parameters (those marked 0644): a value
 * out of range is refused with EINVAL and a message, never replaced by a
 * default and never taken in silently.
 */
int ember_param_set_range(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < min || v > max) {
		pr_err("ember: %s=%u is out of range [%u, %u]\n", kp->name, v,
		       min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

/* fault batches, timeouts, retries: ember_params.h */
EMBER_DRIVER_PARAMS(EMBER_PARAM_DEFINE)

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

/*
 * /dev/ember is rw for its owner and group only: on a shared machine the
 * users allowed to run GPU work are the members of group "ember", which a
 * udev rule gives the node (guest-kmod/ember/99-ember.rules; docs/driver.md). What
 * one of them may take is bounded by ember_limits.c.
 */
static struct miscdevice ember_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = EMBER_NAME,
	.fops = &ember_fops,
	.mode = 0660,
};

static int __init ember_init(void)
{
	int ret;

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
