/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ember.h: the ioctl ABI of /dev/ember, shared by ember.ko and guest
 * userspace (libember, ember-run, the VM tests). Every field says whether
 * the caller fills it (in) or the driver does (out); out-fields are zeroed
 * by the driver before it fills them. Numbering starts at 1 so that a zeroed
 * command never means anything.
 *
 * Managed memory. Each open of /dev/ember is one VA space (one per process,
 * as with nvidia-uvm). A managed allocation is an mmap of /dev/ember with
 *   - MAP_SHARED, address and length multiples of EMBER_VA_BLOCK_SIZE,
 *   - the file offset equal to the address (libember reserves an aligned
 *     VA range first, then maps it with MAP_FIXED),
 * and is valid at the same VA on the CPU and on the GPU. munmap of the
 * whole allocation frees it; partial munmap, mremap and fork inheritance
 * are refused (EINVAL) or not inherited.
 *
 * Errors, for every command:
 *   EFAULT     the argument pointer is bad, or [addr, addr + length) is not
 *              inside one managed allocation of this VA space
 *   EINVAL     zero length, misalignment, unknown flags or enum values,
 *              nonzero pad/reserved fields
 *   EOVERFLOW  addr + length wraps around
 *   ENODEV     no GPU is bound to ember.ko
 *   ENOENT     unknown policy name
 *   EIO        the device reported an error; ETIMEDOUT: it did not answer
 *   ENOTTY     unknown command
 * A launch that touches an address outside every allocation is cancelled
 * and reported as EFAULT by EMBER_IOCTL_SYNCHRONIZE (or by the launch itself
 * with EMBER_LAUNCH_SYNC); the next launch works normally.
 */
#ifndef _UAPI_EMBER_H
#define _UAPI_EMBER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EMBER_ABI_VERSION	1
#define EMBER_IOCTL_MAGIC	'E'

/* Managed allocations are made of 2 MiB VA blocks. */
#define EMBER_VA_BLOCK_SHIFT	21
#define EMBER_VA_BLOCK_SIZE	(1ull << EMBER_VA_BLOCK_SHIFT)

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

/* Processors, for advice and prefetch (CUDA's cudaCpuDeviceId / device). */
enum ember_processor {
	EMBER_PROC_NONE = 0,		/* reserved: catches uninitialised fields */
	EMBER_PROC_CPU = 1,
	EMBER_PROC_GPU = 2,		/* the VA space's GPU */
};

/* cudaMemAdvise's advice values that Ember implements. */
enum ember_advice {
	EMBER_ADVISE_NONE = 0,			/* reserved */
	EMBER_ADVISE_SET_PREFERRED_LOCATION = 1,	/* processor: CPU or GPU */
	EMBER_ADVISE_UNSET_PREFERRED_LOCATION = 2,	/* processor: must be NONE */
	EMBER_ADVISE_SET_ACCESSED_BY = 3,		/* processor: GPU */
	EMBER_ADVISE_UNSET_ACCESSED_BY = 4,		/* processor: GPU */
};

/*
 * Advice applies to every 2 MiB VA block that [addr, addr + length)
 * touches. ACCESSED_BY(GPU) maps the host-resident pages of those blocks
 * into the GPU page table (sysmem aperture), now and after every
 * migration, so the GPU reads them in place without faulting.
 */
struct ember_advise {
	__u64 addr;			/* (in) page aligned */
	__u64 length;			/* (in) page aligned, nonzero */
	__u32 advice;			/* (in) enum ember_advice */
	__u32 processor;		/* (in) enum ember_processor */
	__u32 flags;			/* (in) must be zero */
	__u32 pad;			/* (in) must be zero */
};

/* Migrates [addr, addr + length) to the processor (cudaMemPrefetchAsync). */
struct ember_prefetch {
	__u64 addr;			/* (in) page aligned */
	__u64 length;			/* (in) page aligned, nonzero */
	__u32 processor;		/* (in) EMBER_PROC_CPU or EMBER_PROC_GPU */
	__u32 flags;			/* (in) must be zero */
	__u64 bytes_migrated;		/* (out) bytes copied to the processor */
};

/*
 * Built-in kernels: the values of enum emgpu_kernel_id (emgpu_hw.h; the
 * driver checks at build time that both lists agree). Arguments are GPU
 * VAs of managed ranges and sizes.
 */
enum ember_kernel {
	EMBER_KERNEL_NONE = 0,
	EMBER_KERNEL_STREAM = 1,	/* buf, bytes, passes */
	EMBER_KERNEL_GATHER = 2,	/* src, src bytes, dst, count */
	EMBER_KERNEL_HOTSET = 3,	/* buf, bytes, window, random %, reuse, passes */
	EMBER_KERNEL_PATHFINDER = 4,	/* wall, rows, cols, row, prev, next */
	EMBER_KERNEL_KMEANS = 5,	/* points, n, centroids, membership, accum, mode */
	EMBER_KERNEL_CONV = 6,		/* in, height, width, channels, weights, out */
	EMBER_KERNEL_BITONIC = 7,	/* buf, bytes, segment lines, k, j */
	EMBER_KERNEL_RADIX = 8,		/* src, n, dst, hist, shift, mode, chunks */
	EMBER_KERNEL_BFS = 9,		/* row_ptr, vertices, col, edges, level, cur */
	EMBER_KERNEL_GEMV = 10,		/* W, rows, cols, x, y, shift, rows per item */
	EMBER_KERNEL_COLSCAN = 11,	/* table, rows, columns, out, query, 3 ranges */
	EMBER_KERNEL_GEMVT = 12,	/* A, rows, cols, t, y */
	EMBER_KERNEL_GEMM = 13,		/* A, m, k, B, n, C, p0, tile */
	EMBER_KERNEL_NW = 14,		/* H, n, ref, gap, diagonal */
	EMBER_KERNEL_TRACE = 15,	/* table, warps, records, count, base, span, compute */
	EMBER_KERNEL_MAX = 255,
};

#define EMBER_LAUNCH_MAX_ARGS	8
#define EMBER_LAUNCH_SYNC	(1u << 0)	/* wait for completion */
#define EMBER_LAUNCH_FLAGS	EMBER_LAUNCH_SYNC

/*
 * Starts a kernel on the GPU over this VA space. Launches run one at a
 * time per GPU; a launch waits for the one before it. With
 * EMBER_LAUNCH_SYNC the call returns the launch's outcome as
 * EMBER_IOCTL_SYNCHRONIZE does and fills the (out) fields marked sync.
 */
struct ember_launch {
	__u32 kernel;			/* (in) enum ember_kernel, nonzero */
	__u32 warps;			/* (in) 0 = one per SM slot */
	__u64 seed;			/* (in) */
	__u64 args[EMBER_LAUNCH_MAX_ARGS];	/* (in) GPU VAs and sizes */
	__u32 flags;			/* (in) EMBER_LAUNCH_* */
	__u32 pad;			/* (in) must be zero */
	__u64 launch_id;		/* (out) this VA space's launch number, from 1 */
	__u64 sim_ns;			/* (out, sync) modelled duration of the launch */
	__u64 result;			/* (out, sync) the kernel's checksum */
};

/*
 * Waits until every launch of this VA space has completed; returns 0, or
 * the error of the first failed launch since the previous synchronize
 * (EFAULT: a fault was cancelled; EIO: the device failed it; ETIMEDOUT).
 */
struct ember_synchronize {
	__u32 flags;			/* (in) must be zero */
	__u32 timeout_ms;		/* (in) device time; 0 = launch_timeout_ms */
	__u64 launch_id;		/* (out) last completed launch */
	__u64 sim_ns;			/* (out) its modelled duration */
	__u64 result;			/* (out) its checksum */
};

struct ember_mem_info {
	__u32 gpu_index;		/* (in) must be zero: the VA space's GPU */
	__u32 pad;			/* (in) must be zero */
	__u64 free;			/* (out) bytes of VRAM in free root chunks */
	__u64 total;			/* (out) bytes of VRAM */
};

/*
 * The policy hooks, for hook_calls: X(ID, member), member the hook's name in
 * struct ember_policy_ops (policy/ember_policy.h), in that table's order
 * (guest-kmod/ember/ember_policy.c checks each name against the table). The enum's
 * values are the ABI's indices into hook_calls: append, never reorder.
 */
#define EMBER_POLICY_HOOK_LIST(X)		\
	X(INIT, init)				\
	X(FINI, fini)				\
	X(LAUNCH_BEGIN, on_launch_begin)	\
	X(LAUNCH_END, on_launch_end)		\
	X(FAULT_BLOCK, on_fault_block)		\
	X(NOTIFICATION, on_notification)	\
	X(PROMOTE_BLOCK, promote_block)		\
	X(TIMER_TICK, on_timer_tick)		\
	X(PICK_EAGER_VICTIMS, pick_eager_victims) \
	X(PICK_VICTIM, pick_victim)		\
	X(ARRIVE, on_arrive)			\
	X(RETURN, on_return)			\
	X(EVICT, on_evict)

#define EMBER_HOOK_ENUM_(id, member) EMBER_HOOK_##id,
enum ember_policy_hook {
	EMBER_POLICY_HOOK_LIST(EMBER_HOOK_ENUM_)
	EMBER_POLICY_HOOKS
};
#undef EMBER_HOOK_ENUM_

/* Counters; "pages" are 4 KiB pages. */
struct ember_stats_counters {
	__u64 faults;			/* GPU fault entries fetched */
	__u64 fault_batches;		/* batches serviced */
	__u64 faults_duplicate;		/* entries coalesced into another */
	__u64 faults_fatal;		/* entries outside any allocation */
	__u64 replays;
	__u64 cancels;
	__u64 pages_h2d;		/* pages migrated host -> device */
	__u64 bytes_h2d;
	__u64 pages_d2h;		/* pages migrated device -> host */
	__u64 bytes_d2h;
	__u64 pages_gpu_populated;	/* GPU first-touch pages (memset in VRAM) */
	__u64 pages_cpu_populated;	/* CPU first-touch pages */
	__u64 cpu_faults;		/* CPU page faults serviced */
	__u64 evictions;		/* 2 MiB root chunks evicted */
	__u64 pages_evicted;
	__u64 prefetched_bytes;		/* moved by the TBN prefetcher beyond the faulted pages */
	__u64 prefetch_ioctl_bytes;	/* moved by EMBER_IOCTL_PREFETCH */
	__u64 pages_mapped_remote;	/* sysmem PTEs written (accessed-by, preferred CPU) */
	__u64 notifications;		/* access-counter notifications handled */
	__u64 promotions;		/* blocks promoted by a policy on notification */
	__u64 timer_ticks;
	__u64 tlb_invalidates;
	__u64 launches;
	__u64 launches_failed;
	__u64 launch_sim_ns;		/* sum of the modelled durations of launches */
	__u64 last_launch_sim_ns;
	__u64 promoted_bytes;		/* moved host -> device by promotions */
	__u64 eager_evictions;		/* root chunks reclaimed by the eager worker */
	__u64 promotions_halted;	/* spans stopped at the high watermark */
	__u64 hook_calls[EMBER_POLICY_HOOKS];	/* policy hooks called, by enum ember_policy_hook */
	__u64 ce_retries;		/* copy-engine batches resubmitted after an error */
	__u64 reserved[2];		/* (out) zero */
};

#define EMBER_STATS_VA_SPACE	0	/* this open file */
#define EMBER_STATS_GLOBAL	1	/* every VA space since load */

struct ember_stats {
	__u32 scope;			/* (in) EMBER_STATS_* */
	__u32 pad;			/* (in) must be zero */
	struct ember_stats_counters c;	/* (out) */
};

#define EMBER_POLICY_NAME_LEN	16

/* Selects this VA space's policy by name ("uvm" by default). */
struct ember_set_policy {
	char name[EMBER_POLICY_NAME_LEN];	/* (in) NUL-terminated */
};

#define EMBER_IOCTL_GET_DEVICE_INFO \
	_IOWR(EMBER_IOCTL_MAGIC, 1, struct ember_device_info)
#define EMBER_IOCTL_ADVISE	_IOW(EMBER_IOCTL_MAGIC, 2, struct ember_advise)
#define EMBER_IOCTL_PREFETCH	_IOWR(EMBER_IOCTL_MAGIC, 3, struct ember_prefetch)
#define EMBER_IOCTL_LAUNCH	_IOWR(EMBER_IOCTL_MAGIC, 4, struct ember_launch)
#define EMBER_IOCTL_SYNCHRONIZE	_IOWR(EMBER_IOCTL_MAGIC, 5, struct ember_synchronize)
#define EMBER_IOCTL_MEM_GET_INFO _IOWR(EMBER_IOCTL_MAGIC, 6, struct ember_mem_info)
#define EMBER_IOCTL_GET_STATS	_IOWR(EMBER_IOCTL_MAGIC, 7, struct ember_stats)
#define EMBER_IOCTL_SET_POLICY	_IOW(EMBER_IOCTL_MAGIC, 8, struct ember_set_policy)

#endif /* _UAPI_EMBER_H */
