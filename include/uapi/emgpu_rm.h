/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/emgpu-rm: the user interface of the resource-manager stand-in
 * (guest-kmod/emgpu-rm/), what libcuda gets from nvidia.ko's RM on a card: the RM
 * objects a CUDA context needs (a client, a GPU VA space, a compute
 * channel in it) and kernel launches on that channel.
 *
 * A program hands the client, VA space and channel handles to nvidia-uvm
 * (UVM_REGISTER_GPU_VASPACE, UVM_REGISTER_CHANNEL), which then owns the
 * VA space's page tables: the model's SMs translate a launch's accesses
 * through them, and the launch's replayable faults reach nvidia-uvm by the
 * channel's instance pointer. Every handle belongs to the open file that
 * made it; another file's handle is refused with ENOENT.
 */
#ifndef _UAPI_EMGPU_RM_H
#define _UAPI_EMGPU_RM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EMGPU_RM_DEVICE		"/dev/emgpu-rm"
#define EMGPU_RM_LAUNCH_MAX_ARGS	8

/* The GPU this file works on: its UUID as nvidia-uvm knows it. */
struct emgpu_rm_gpu_info {
	__u8 uuid[16];			/* (out) */
	__u64 vram_bytes;		/* (out) */
	__u64 ptimer_ns;		/* (out) the GPU's PTIMER now: its clock, ns */
	__u64 vram_free_bytes;		/* (out) VRAM the PMA has free now: RM's free FB */
	__u32 num_sms;			/* (out) the SMs a launch's warps run on */
	__u32 warps_per_sm;		/* (out) resident warps per SM: SMs x this slots */
};

/* A client and a GPU VA space in it, for UVM_REGISTER_GPU_VASPACE. */
struct emgpu_rm_va_space {
	__u32 h_client;			/* (out) */
	__u32 h_va_space;		/* (out) */
};

/* A compute channel in a VA space, for UVM_REGISTER_CHANNEL. */
struct emgpu_rm_channel {
	__u32 h_client;			/* (in) */
	__u32 h_va_space;		/* (in) */
	__u32 h_channel;		/* (out) */
	__u32 hw_channel;		/* (out) the device's channel index */
};

/* Frees a VA space or a channel (a VA space's channels first: EBUSY). */
struct emgpu_rm_free {
	__u32 h_client;			/* (in) */
	__u32 handle;			/* (in) */
};

/*
 * Runs one of the model's kernels (enum ember_kernel's numbers,
 * include/uapi/ember.h) on a channel and waits for it: 0, or EFAULT for a
 * launch that nvidia-uvm cancelled (a fault it could not service),
 * ECANCELED for a channel nvidia-uvm stopped (before or during the
 * launch), EIO for a device error, ETIMEDOUT after timeout_ms (0: 60 s),
 * ENOENT for a handle not this file's, EINVAL for a channel nvidia-uvm
 * has not registered (its VA space has no page directory yet);
 * docs/rm-standin.md lists them all.
 */
struct emgpu_rm_launch {
	__u32 h_client;			/* (in) */
	__u32 h_channel;		/* (in) */
	__u32 kernel;			/* (in) */
	__u32 warps;			/* (in) 0 = one per SM slot */
	__u64 seed;			/* (in) */
	__u64 args[EMGPU_RM_LAUNCH_MAX_ARGS];	/* (in) GPU VAs and sizes */
	__u32 timeout_ms;		/* (in) */
	__u32 status;			/* (out) the device's enum emgpu_launch_status */
	__u64 sim_ns;			/* (out) modelled duration */
	__u64 result;			/* (out) the kernel's checksum */
};

#define EMGPU_RM_IOCTL_MAGIC	0xe7
#define EMGPU_RM_GPU_INFO	_IOR(EMGPU_RM_IOCTL_MAGIC, 0, struct emgpu_rm_gpu_info)
#define EMGPU_RM_VA_SPACE_CREATE _IOR(EMGPU_RM_IOCTL_MAGIC, 1, struct emgpu_rm_va_space)
#define EMGPU_RM_CHANNEL_CREATE	_IOWR(EMGPU_RM_IOCTL_MAGIC, 2, struct emgpu_rm_channel)
#define EMGPU_RM_FREE		_IOW(EMGPU_RM_IOCTL_MAGIC, 3, struct emgpu_rm_free)
#define EMGPU_RM_LAUNCH		_IOWR(EMGPU_RM_IOCTL_MAGIC, 4, struct emgpu_rm_launch)

#endif /* _UAPI_EMGPU_RM_H */
