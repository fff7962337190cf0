// SPDX-License-Identifier: GPL-2.0
/*
 * What one opener of /dev/ember may take from a shared machine: managed
 * bytes (the sizes of its mmap'd ranges, which bound the host pages and
 * VRAM it can make the driver allocate), outstanding launches (submitted,
 * or waiting for the GPU, and not yet completed) and how long one launch
 * may hold the GPU. Each has a per-open and a global limit, as module
 * parameters whose setters refuse values out of range (EINVAL), writable
 * by root through /sys/module/ember/parameters. The defaults are far above
 * what any test or experiment here uses. Refusals (docs/specs/uapi.md):
 *   mmap past a managed-bytes limit       ENOMEM
 *   EMBER_IOCTL_LAUNCH past a launch limit EAGAIN
 *   a launch holding the GPU too long     ended by a device reset; its
 *                                         synchronize returns ETIME
 * Host pages are charged to the opener's memory cgroup (ember_va_block.c).
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>

#include "ember_drv.h"

/* the limits: ember_params.h */
EMBER_LIMIT_PARAMS(EMBER_PARAM_DEFINE)

static atomic64_t ember_managed_bytes = ATOMIC64_INIT(0);
static atomic_t ember_launches = ATOMIC_INIT(0);

/* Adds n to *v unless that passes limit. */
static bool ember_limit_add64(atomic64_t *v, s64 n, s64 limit)
{
	s64 old = atomic64_read(v);

	do {
		if (old + n > limit)
			return false;
	} while (!atomic64_try_cmpxchg(v, &old, old + n));
	return true;
}

static bool ember_limit_inc(atomic_t *v, int limit)
{
	int old = atomic_read(v);

	do {
		if (old >= limit)
			return false;
	} while (!atomic_try_cmpxchg(v, &old, old + 1));
	return true;
}

/*
 * Charges a new managed range of `bytes` to vs and to the machine: 0, or
 * -ENOMEM past either limit. LOCKING: vs->lock (write).
 */
int ember_limits_charge_managed(struct ember_va_space *vs, u64 bytes)
{
	u64 per_open = (u64)READ_ONCE(ember_max_managed_mb_per_open) << 20;
	u64 global = (u64)READ_ONCE(ember_max_managed_mb) << 20;

	lockdep_assert_held_write(&vs->lock);
	if (bytes > per_open || vs->managed_bytes > per_open - bytes) {
		pr_info_ratelimited("ember: %s[%d]: mmap of %llu bytes refused: max_managed_mb_per_open=%u\n",
				    current->comm, task_pid_nr(current), bytes,
				    ember_max_managed_mb_per_open);
		return -ENOMEM;
	}
	if (!ember_limit_add64(&ember_managed_bytes, bytes, global)) {
		pr_info_ratelimited("ember: %s[%d]: mmap of %llu bytes refused: max_managed_mb=%u\n",
				    current->comm, task_pid_nr(current), bytes,
				    ember_max_managed_mb);
		return -ENOMEM;
	}
	vs->managed_bytes += bytes;
	return 0;
}

/* A managed range is gone. LOCKING: vs->lock (write). */
void ember_limits_uncharge_managed(struct ember_va_space *vs, u64 bytes)
{
	lockdep_assert_held_write(&vs->lock);
	vs->managed_bytes -= bytes;
	atomic64_sub(bytes, &ember_managed_bytes);
}

/* A launch of vs begins (before it waits for the GPU): 0 or -EAGAIN. */
int ember_limits_launch_get(struct ember_va_space *vs)
{
	if (!ember_limit_inc(&vs->launches_outstanding,
			     READ_ONCE(ember_max_launches_per_open)))
		return -EAGAIN;
	if (!ember_limit_inc(&ember_launches, READ_ONCE(ember_max_launches))) {
		atomic_dec(&vs->launches_outstanding);
		return -EAGAIN;
	}
	return 0;
}

/* A launch of vs completed, or never got the GPU. */
void ember_limits_launch_put(struct ember_va_space *vs)
{
	atomic_dec(&vs->launches_outstanding);
	atomic_dec(&ember_launches);
}

/*
 * Whether the running launch, begun at device time start_ns, has held the
 * GPU past launch_hold_ms. LOCKING: gpu->launch_lock.
 */
bool ember_limits_launch_overdue(struct ember_gpu *gpu, u64 start_ns)
{
	u64 now = ember_gpu_now_ns(gpu);

	lockdep_assert_held(&gpu->launch_lock);
	return now > start_ns &&
	       now - start_ns >= (u64)READ_ONCE(ember_launch_hold_ms) * NSEC_PER_MSEC;
}
