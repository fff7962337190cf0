// SPDX-License-Identifier: GPL-2.0
/*
 * ember.ko: a UVM driver for emgpu. This file owns the module lifetime and
 * /dev/ember, the one character device through which userspace reaches
 * every bound GPU (as /dev/nvidia-uvm does for nvidia-uvm).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "ember_drv.h"

DEFINE_MUTEX(ember_gpus_lock);	/* protects ember_gpus */
LIST_HEAD(ember_gpus);

/* Looks up the GPU at index. LOCKING: the caller holds ember_gpus_lock. */
static struct ember_gpu *ember_gpu_at(u32 index, u32 *count)
{
	struct ember_gpu *gpu, *found = NULL;
	u32 n = 0;

	list_for_each_entry(gpu, &ember_gpus, node) {
		if (n == index)
			found = gpu;
		n++;
	}
	*count = n;
	return found;
}

static long ember_ioctl_get_device_info(void __user *uarg)
{
	struct ember_device_info info;
	struct ember_gpu *gpu;
	u32 index, count;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if (info.pad)
		return -EINVAL;
	index = info.gpu_index;
	memset(&info, 0, sizeof(info));
	info.gpu_index = index;

	mutex_lock(&ember_gpus_lock);
	gpu = ember_gpu_at(index, &count);
	if (gpu)
		ember_gpu_fill_info(gpu, &info);
	mutex_unlock(&ember_gpus_lock);
	if (!gpu)
		return -ENODEV;
	info.num_gpus = count;

	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long ember_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case EMBER_IOCTL_GET_DEVICE_INFO:
		return ember_ioctl_get_device_info(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations ember_fops = {
	.owner = THIS_MODULE,
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

	ret = ember_gpu_driver_register();
	if (ret)
		return ret;
	ret = misc_register(&ember_misc);
	if (ret) {
		ember_gpu_driver_unregister();
		return ret;
	}
	return 0;
}

static void __exit ember_exit(void)
{
	misc_deregister(&ember_misc);
	ember_gpu_driver_unregister();
}

module_init(ember_init);
module_exit(ember_exit);

MODULE_DESCRIPTION("Ember: a UVM driver for the emgpu emulated GPU");
MODULE_LICENSE("GPL");
