// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of /dev/ember (include/uapi/ember.h); launches are carried
 * out by ember_launch.c.
 * Every handler copies its argument in once, validates it (flags, pads,
 * alignment, overflow, ranges), zeroes the out-fields and copies back only
 * on success, as lib/test_hmm.c does.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ember_drv.h"

/* ---- argument checks ---- */

/* Page-aligned, nonzero, non-wrapping [addr, addr + length). */
static int ember_check_span(u64 addr, u64 length)
{
	if (!length || !PAGE_ALIGNED(addr) || !PAGE_ALIGNED(length))
		return -EINVAL;
	if (addr + length < addr)
		return -EOVERFLOW;
	return 0;
}

static struct ember_gpu *ember_vs_gpu(struct ember_va_space *vs)
{
	return vs->gpu && vs->gpu->ready ? vs->gpu : NULL;
}

/* ---- device info ---- */

/* Looks up the GPU at index. LOCKING: the caller holds ember_gpus_lock. */
static struct ember_gpu *ember_gpu_at(u32 index, u32 *count)
{
	struct ember_gpu *gpu, *found = NULL;
	u32 n = 0;

	lockdep_assert_held(&ember_gpus_lock);
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

/* ---- advise ---- */

static int ember_advise_block(struct ember_va_block *block,
			      const struct ember_advise *a)
{
	DECLARE_BITMAP(all, EMBER_BLOCK_PAGES);
	int ret = 0;

	bitmap_fill(all, EMBER_BLOCK_PAGES);
	mutex_lock(&block->lock);
	switch (a->advice) {
	case EMBER_ADVISE_SET_PREFERRED_LOCATION:
		block->preferred = a->processor == EMBER_PROC_CPU ?
				   EMBER_LOC_CPU : EMBER_LOC_GPU;
		break;
	case EMBER_ADVISE_UNSET_PREFERRED_LOCATION:
		block->preferred = EMBER_LOC_NONE;
		break;
	case EMBER_ADVISE_SET_ACCESSED_BY:
		block->accessed_by = true;
		ret = ember_block_map_remote(block, all, EMBER_CAUSE_PREFETCH);
		break;
	case EMBER_ADVISE_UNSET_ACCESSED_BY:
		block->accessed_by = false;
		break;
	}
	mutex_unlock(&block->lock);
	return ret;
}

static int ember_advise_check(struct ember_va_space *vs,
			      const struct ember_advise *a)
{
	int ret;

	if (a->flags || a->pad)
		return -EINVAL;
	ret = ember_check_span(a->addr, a->length);
	if (ret)
		return ret;
	switch (a->advice) {
	case EMBER_ADVISE_SET_PREFERRED_LOCATION:
		if (a->processor != EMBER_PROC_CPU &&
		    a->processor != EMBER_PROC_GPU)
			return -EINVAL;
		break;
	case EMBER_ADVISE_UNSET_PREFERRED_LOCATION:
		if (a->processor != EMBER_PROC_NONE)
			return -EINVAL;
		break;
	case EMBER_ADVISE_SET_ACCESSED_BY:
	case EMBER_ADVISE_UNSET_ACCESSED_BY:
		if (a->processor != EMBER_PROC_GPU)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (a->processor == EMBER_PROC_GPU && !vs->gpu)
		return -ENODEV;
	return 0;
}

static long ember_ioctl_advise(struct ember_va_space *vs, void __user *uarg)
{
	struct ember_va_range *range;
	struct ember_va_block *block;
	struct ember_advise a;
	u64 va;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	ret = ember_advise_check(vs, &a);
	if (ret)
		return ret;

	down_read(&vs->lock);
	range = ember_range_find(vs, a.addr, a.length);
	if (!range)
		ret = -EFAULT;
	else	/* the application places this range itself (paper, section 4) */
		WRITE_ONCE(range->hinted, true);
	for (va = round_down(a.addr, EMBER_VA_BLOCK_SIZE);
	     range && !ret && va < a.addr + a.length; va += EMBER_VA_BLOCK_SIZE) {
		block = ember_range_block(range, va, true);
		ret = block ? ember_advise_block(block, &a) : -ENOMEM;
	}
	up_read(&vs->lock);
	return ret;
}

/* ---- prefetch ---- */

static int ember_prefetch_block(struct ember_va_range *range,
				struct ember_va_block *block, u64 addr,
				u64 end, u32 processor, u64 *bytes)
{
	unsigned int first, last;
	struct ember_policy_block view;
	DECLARE_BITMAP(mask, EMBER_BLOCK_PAGES);
	int ret;

	first = (max(addr, block->start) - block->start) >> PAGE_SHIFT;
	last = (min(end, block->start + EMBER_VA_BLOCK_SIZE) - block->start) >>
	       PAGE_SHIFT;
	bitmap_zero(mask, EMBER_BLOCK_PAGES);
	bitmap_set(mask, first, last - first);

	mutex_lock(&block->lock);
	if (processor == EMBER_PROC_CPU) {
		ret = ember_block_make_resident_cpu(block, mask,
						    EMBER_CAUSE_PREFETCH, bytes);
	} else {
		ember_block_policy_view(range, block, &view);
		view.dest = EMBER_LOC_GPU;
		memcpy(&view.migrate, mask, sizeof(view.migrate));
		view.faulted = view.migrate;
		ret = ember_block_apply(block, &view, EMBER_CAUSE_PREFETCH, 0);
		if (!ret)
			*bytes += (u64)bitmap_weight(mask, EMBER_BLOCK_PAGES)
				  << PAGE_SHIFT;
	}
	mutex_unlock(&block->lock);
	return ret;
}

static long ember_ioctl_prefetch(struct ember_va_space *vs, void __user *uarg)
{
	struct ember_va_range *range;
	struct ember_va_block *block;
	struct ember_prefetch p;
	u64 va, bytes = 0, before;
	int ret;

	if (copy_from_user(&p, uarg, sizeof(p)))
		return -EFAULT;
	if (p.flags)
		return -EINVAL;
	ret = ember_check_span(p.addr, p.length);
	if (ret)
		return ret;
	if (p.processor != EMBER_PROC_CPU && p.processor != EMBER_PROC_GPU)
		return -EINVAL;
	if (p.processor == EMBER_PROC_GPU && !ember_vs_gpu(vs))
		return -ENODEV;

	before = atomic64_read(&vs->stats.v[EMBER_STAT(bytes_h2d)]);
	down_read(&vs->lock);
	range = ember_range_find(vs, p.addr, p.length);
	if (!range)
		ret = -EFAULT;
	else
		WRITE_ONCE(range->hinted, true);
	for (va = round_down(p.addr, EMBER_VA_BLOCK_SIZE);
	     range && !ret && va < p.addr + p.length; va += EMBER_VA_BLOCK_SIZE) {
		block = ember_range_block(range, va, true);
		ret = block ? ember_prefetch_block(range, block, p.addr,
						   p.addr + p.length,
						   p.processor, &bytes) : -ENOMEM;
	}
	up_read(&vs->lock);
	if (ret)
		return ret;

	if (p.processor == EMBER_PROC_GPU)	/* bytes copied, not mapped */
		bytes = atomic64_read(&vs->stats.v[EMBER_STAT(bytes_h2d)]) - before;
	p.bytes_migrated = bytes;
	if (copy_to_user(uarg, &p, sizeof(p)))
		return -EFAULT;
	return 0;
}

/* ---- launch and synchronize (ember_launch.c) ---- */

static long ember_ioctl_synchronize(struct ember_va_space *vs,
				    void __user *uarg)
{
	struct ember_synchronize s;
	u32 timeout;
	int ret;

	if (copy_from_user(&s, uarg, sizeof(s)))
		return -EFAULT;
	if (s.flags)
		return -EINVAL;
	if (!ember_vs_gpu(vs))
		return -ENODEV;
	timeout = s.timeout_ms;
	memset(&s, 0, sizeof(s));
	ret = ember_launch_sync(vs, &s, timeout);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &s, sizeof(s)))
		return -EFAULT;
	return 0;
}

static long ember_ioctl_launch(struct ember_va_space *vs, void __user *uarg)
{
	struct ember_gpu *gpu = ember_vs_gpu(vs);
	struct ember_synchronize s;
	struct ember_launch l;
	int ret;

	BUILD_BUG_ON(EMBER_LAUNCH_MAX_ARGS != EMGPU_LAUNCH_MAX_ARGS);
#define EMBER_SAME_KERNEL(k) BUILD_BUG_ON((int)EMBER_KERNEL_##k != (int)EMGPU_KERNEL_##k)
	EMBER_SAME_KERNEL(STREAM);
	EMBER_SAME_KERNEL(GATHER);
	EMBER_SAME_KERNEL(HOTSET);
	EMBER_SAME_KERNEL(PATHFINDER);
	EMBER_SAME_KERNEL(KMEANS);
	EMBER_SAME_KERNEL(CONV);
	EMBER_SAME_KERNEL(BITONIC);
	EMBER_SAME_KERNEL(RADIX);
	EMBER_SAME_KERNEL(BFS);
	EMBER_SAME_KERNEL(GEMV);
	EMBER_SAME_KERNEL(COLSCAN);
	EMBER_SAME_KERNEL(GEMVT);
	EMBER_SAME_KERNEL(GEMM);
	EMBER_SAME_KERNEL(NW);
	EMBER_SAME_KERNEL(TRACE);
#undef EMBER_SAME_KERNEL
	if (copy_from_user(&l, uarg, sizeof(l)))
		return -EFAULT;
	if (!l.kernel || l.kernel > EMBER_KERNEL_MAX ||
	    (l.flags & ~EMBER_LAUNCH_FLAGS) || l.pad)
		return -EINVAL;
	if (!gpu)
		return -ENODEV;
	l.launch_id = l.sim_ns = l.result = 0;

	ret = ember_launch_submit(vs, &l);
	if (ret)
		return ret;

	if (l.flags & EMBER_LAUNCH_SYNC) {
		memset(&s, 0, sizeof(s));
		ret = ember_launch_sync(vs, &s, 0);
		if (ret)
			return ret;
		l.sim_ns = s.sim_ns;
		l.result = s.result;
	}
	if (copy_to_user(uarg, &l, sizeof(l)))
		return -EFAULT;
	return 0;
}

/* ---- memory info, stats, policy ---- */

static long ember_ioctl_mem_get_info(struct ember_va_space *vs,
				     void __user *uarg)
{
	struct ember_mem_info m;

	if (copy_from_user(&m, uarg, sizeof(m)))
		return -EFAULT;
	if (m.gpu_index || m.pad)
		return -EINVAL;
	if (!vs->gpu)
		return -ENODEV;
	m.free = ember_pmm_free_bytes(vs->gpu);
	m.total = ember_pmm_total_bytes(vs->gpu);
	if (copy_to_user(uarg, &m, sizeof(m)))
		return -EFAULT;
	return 0;
}

static long ember_ioctl_get_stats(struct ember_va_space *vs, void __user *uarg)
{
	struct ember_stat_set *src;
	struct ember_stats_user {
		__u32 scope;
		__u32 pad;
		__u64 v[EMBER_NR_STATS];
	} *st;
	unsigned int i;
	long ret = 0;

	BUILD_BUG_ON(sizeof(*st) != sizeof(struct ember_stats_counters) + 8);
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	if (copy_from_user(st, uarg, sizeof(*st))) {
		ret = -EFAULT;
		goto out;
	}
	if (st->pad || st->scope > EMBER_STATS_GLOBAL) {
		ret = -EINVAL;
		goto out;
	}
	src = st->scope == EMBER_STATS_GLOBAL ? &ember_global_stats : &vs->stats;
	for (i = 0; i < EMBER_NR_STATS; i++)
		st->v[i] = atomic64_read(&src->v[i]);
	if (copy_to_user(uarg, st, sizeof(*st)))
		ret = -EFAULT;
out:
	kfree(st);
	return ret;
}

static long ember_ioctl_set_policy(struct ember_va_space *vs, void __user *uarg)
{
	const struct ember_policy_ops *ops, *old;
	struct ember_set_policy p;
	void *data = NULL, *old_data;
	int ret = 0;

	if (copy_from_user(&p, uarg, sizeof(p)))
		return -EFAULT;
	if (!memchr(p.name, 0, sizeof(p.name)) || !p.name[0])
		return -EINVAL;
	ops = ember_policy_get(p.name);
	if (!ops)
		return -ENOENT;
	ret = ember_policy_space_init(vs, ops, &data);
	if (ret) {
		ember_policy_put(ops);
		return ret;
	}

	down_write(&vs->lock);
	if (!list_empty(&vs->ranges)) {	/* blocks may hold its data */
		up_write(&vs->lock);
		ember_policy_space_fini(vs, ops, data);
		ember_policy_put(ops);
		return -EBUSY;
	}
	old = vs->policy;
	old_data = vs->policy_data;
	vs->policy = ops;
	vs->policy_data = data;
	up_write(&vs->lock);

	ember_policy_space_fini(vs, old, old_data);
	ember_policy_put(old);
	return 0;
}

long ember_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ember_va_space *vs = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case EMBER_IOCTL_GET_DEVICE_INFO:
		return ember_ioctl_get_device_info(uarg);
	case EMBER_IOCTL_ADVISE:
		return ember_ioctl_advise(vs, uarg);
	case EMBER_IOCTL_PREFETCH:
		return ember_ioctl_prefetch(vs, uarg);
	case EMBER_IOCTL_LAUNCH:
		return ember_ioctl_launch(vs, uarg);
	case EMBER_IOCTL_SYNCHRONIZE:
		return ember_ioctl_synchronize(vs, uarg);
	case EMBER_IOCTL_MEM_GET_INFO:
		return ember_ioctl_mem_get_info(vs, uarg);
	case EMBER_IOCTL_GET_STATS:
		return ember_ioctl_get_stats(vs, uarg);
	case EMBER_IOCTL_SET_POLICY:
		return ember_ioctl_set_policy(vs, uarg);
	default:
		return -ENOTTY;
	}
}
