/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ember.h: the ioctl ABI of /dev/ember, shared by ember.ko and guest
 * userspace (libember, ember-run, the VM tests). Every field says whether
 * the caller fills it (in) or the driver does (out); out-fields are zeroed
 * by the driver before it fills them. Numbering starts at 1 so that a zeroed
 * command never means anything.
 */
#ifndef _UAPI_EMBER_H
#define _UAPI_EMBER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EMBER_ABI_VERSION	1
#define EMBER_IOCTL_MAGIC	'E'

/* Device-info flags */
#define EMBER_GPU_MSIX_OK	(1u << 0)	/* the probe-time interrupt self-test passed */

struct ember_device_info {
	__u32 gpu_index;		/* (in) 0 .. number of bound GPUs - 1 */
	__u32 abi_version;		/* (out) EMBER_ABI_VERSION */
	__u32 hw_id;			/* (out) EMGPU_REG_ID */
	__u32 hw_version;		/* (out) EMGPU_REG_VERSION */
	__u32 caps;			/* (out) EMGPU_CAP_* */
	__u32 profile;			/* (out) enum emgpu_profile_id */
	__u32 num_sms;			/* (out) */
	__u32 warps_per_sm;		/* (out) */
	__u32 num_gpcs;			/* (out) */
	__u32 utlbs_per_gpc;		/* (out) */
	__u32 num_access_counters;	/* (out) */
	__u32 num_copy_engines;		/* (out) */
	__u32 page_sizes;		/* (out) EMGPU_PAGE_SIZE_* */
	__u32 flags;			/* (out) EMBER_GPU_* */
	__u64 vram_size;		/* (out) bytes */
	__u64 ptimer_ns;		/* (out) the device's virtual clock now */
	__u32 num_gpus;			/* (out) GPUs bound to ember.ko */
	__u32 pad;			/* (in) must be zero */
};

#define EMBER_IOCTL_GET_DEVICE_INFO \
	_IOWR(EMBER_IOCTL_MAGIC, 1, struct ember_device_info)

#endif /* _UAPI_EMBER_H */
