// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of /dev/ember (include/uapi/ember.h) and launch bookkeeping.
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
	for (va = round_down(a.addr, EMBER_VA_BLOCK_SIZE);
	     range && !ret && va < a.addr + a.length; va += EMBER_VA_BLOCK_SIZE) {
		block = ember_range_block(range, va, true);
		ret = block ? ember_advise_block(block, &a) : -ENOMEM;
	}
	up_read(&vs->lock);
	return ret;
}

/* ---- prefetch ---- */

static int ember_prefetch_block(struct ember_va_block *block, u64 addr,
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
		ember_block_policy_view(block, &view);
		view.dest = EMBER_LOC_GPU;
		memcpy(&view.migrate, mask, sizeof(view.migrate));
		view.faulted = view.migrate;
		ret = ember_block_apply(block, &view, EMBER_CAUSE_PREFETCH);
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
	for (va = round_down(p.addr, EMBER_VA_BLOCK_SIZE);
	     range && !ret && va < p.addr + p.length; va += EMBER_VA_BLOCK_SIZE) {
		block = ember_range_block(range, va, true);
		ret = block ? ember_prefetch_block(block, p.addr,
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

/* ---- launch and synchronize ---- */

/*
 * Completes the running launch if the device says it is over. Called from
 * the bottom half (launch interrupt, or polled). LOCKING: takes launch_lock.
 */
void ember_launch_poll(struct ember_gpu *gpu)
{
	struct ember_va_space *vs;
	u32 status;
	u64 sim;
	int err;
	bool poison;

	mutex_lock(&gpu->launch_lock);
	vs = gpu->launch_vs;
	status = vs ? ember_rd(gpu, EMGPU_REG_LAUNCH_STATUS) : 0;
	if (!vs || status == EMGPU_LAUNCH_RUNNING || status == EMGPU_LAUNCH_IDLE) {
		mutex_unlock(&gpu->launch_lock);
		return;
	}
	sim = ember_rd64(gpu, EMGPU_REG_LAUNCH_TIME_LO, EMGPU_REG_LAUNCH_TIME_HI);
	vs->last_sim_ns = sim;
	vs->last_result = ember_rd64(gpu, EMGPU_REG_LAUNCH_RESULT_LO,
				     EMGPU_REG_LAUNCH_RESULT_HI);
	err = status == EMGPU_LAUNCH_DONE ? 0 :
	      status == EMGPU_LAUNCH_CANCELLED ? -EFAULT : -EIO;
	if (err && !vs->launch_error)
		vs->launch_error = err;
	WRITE_ONCE(vs->launches_completed, vs->launches_completed + 1);
	poison = status == EMGPU_LAUNCH_ERROR &&
		 ember_rd(gpu, EMGPU_REG_ERROR_STATUS) == EMGPU_ERR_POISON;
	if (poison)	/* before anyone else launches onto the same chunk */
		ember_wr(gpu, EMGPU_REG_ERROR_CLEAR, 1);
	if (poison)
		ember_pmm_scrub(gpu);
	gpu->launch_vs = NULL;
	gpu->launch_busy = false;
	mutex_unlock(&gpu->launch_lock);

	ember_stat_add(vs, EMBER_STAT(launch_sim_ns), sim);
	atomic64_set(&vs->stats.v[EMBER_STAT(last_launch_sim_ns)], sim);
	atomic64_set(&ember_global_stats.v[EMBER_STAT(last_launch_sim_ns)], sim);
	if (status != EMGPU_LAUNCH_DONE)
		ember_stat_inc(vs, launches_failed);
	wake_up_all(&vs->launch_wq);
	wake_up_all(&gpu->launch_wq);
	ember_va_space_put(vs);
}

static bool ember_vs_idle(struct ember_va_space *vs)
{
	return READ_ONCE(vs->launches_completed) ==
	       READ_ONCE(vs->launches_submitted);
}

/*
 * Waits until every launch of vs completed, kicking the bottom half now
 * and then so that a lost interrupt only costs time. 0, -ETIMEDOUT or
 * -EINTR/-ERESTARTSYS.
 */
static int ember_vs_wait_idle(struct ember_va_space *vs, u32 timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	unsigned long moved = jiffies;
	struct ember_gpu *gpu = vs->gpu;
	u64 clock = ember_gpu_now_ns(gpu), now;
	long left;

	while (!ember_vs_idle(vs)) {
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		left = wait_event_interruptible_timeout(vs->launch_wq,
							ember_vs_idle(vs),
							msecs_to_jiffies(50));
		if (left < 0)
			return left;
		if (left)
			continue;
		ember_gpu_kick(gpu);
		/* watchdog: the device clock must move while a launch runs */
		now = ember_gpu_now_ns(gpu);
		if (now != clock) {
			clock = now;
			moved = jiffies;
		} else if (time_after(jiffies, moved +
				      msecs_to_jiffies(ember_hang_timeout_ms))) {
			WRITE_ONCE(gpu->reset_pending, true);
			ember_gpu_kick(gpu);
			moved = jiffies;
		}
	}
	return 0;
}

static int ember_sync_result(struct ember_va_space *vs,
			     struct ember_synchronize *s, u32 timeout_ms)
{
	struct ember_gpu *gpu = vs->gpu;
	int ret;

	ret = ember_vs_wait_idle(vs, timeout_ms ?: ember_launch_timeout_ms);
	if (ret)
		return ret;
	mutex_lock(&gpu->launch_lock);
	s->launch_id = vs->launches_completed;
	s->sim_ns = vs->last_sim_ns;
	s->result = vs->last_result;
	ret = vs->launch_error;
	vs->launch_error = 0;
	mutex_unlock(&gpu->launch_lock);
	return ret;
}

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
	ret = ember_sync_result(vs, &s, timeout);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &s, sizeof(s)))
		return -EFAULT;
	return 0;
}

/* Waits for the GPU to be free and claims it. LOCKING: returns with launch_lock. */
static int ember_launch_claim(struct ember_gpu *gpu)
{
	long left;

	mutex_lock(&gpu->launch_lock);
	while (gpu->launch_busy) {
		mutex_unlock(&gpu->launch_lock);
		left = wait_event_interruptible_timeout(gpu->launch_wq,
							!READ_ONCE(gpu->launch_busy),
							msecs_to_jiffies(50));
		if (left < 0)
			return left;
		if (!left)
			ember_gpu_kick(gpu);
		mutex_lock(&gpu->launch_lock);
	}
	return 0;
}

static long ember_ioctl_launch(struct ember_va_space *vs, void __user *uarg)
{
	struct ember_gpu *gpu = ember_vs_gpu(vs);
	struct emgpu_launch_desc *desc;
	struct ember_synchronize s;
	struct ember_launch l;
	int ret;

	BUILD_BUG_ON(EMBER_LAUNCH_MAX_ARGS != EMGPU_LAUNCH_MAX_ARGS);
	BUILD_BUG_ON((int)EMBER_KERNEL_STREAM != (int)EMGPU_KERNEL_STREAM ||
		     (int)EMBER_KERNEL_GATHER != (int)EMGPU_KERNEL_GATHER ||
		     (int)EMBER_KERNEL_HOTSET != (int)EMGPU_KERNEL_HOTSET);
	if (copy_from_user(&l, uarg, sizeof(l)))
		return -EFAULT;
	if (!l.kernel || l.kernel > EMBER_KERNEL_MAX ||
	    (l.flags & ~EMBER_LAUNCH_FLAGS) || l.pad)
		return -EINVAL;
	if (!gpu)
		return -ENODEV;
	l.launch_id = l.sim_ns = l.result = 0;

	ret = ember_launch_claim(gpu);
	if (ret)
		return ret;
	gpu->launch_busy = true;
	gpu->launch_vs = vs;
	kref_get(&vs->kref);
	l.launch_id = ++vs->launches_submitted;

	desc = gpu->launch_desc.cpu;
	memset(desc, 0, sizeof(*desc));
	desc->kernel = l.kernel;
	desc->warps = l.warps;
	desc->seed = l.seed;
	memcpy(desc->args, l.args, sizeof(desc->args));
	ember_gpu_set_pdb(gpu, ember_mmu_root_pde(vs));
	down_read(&vs->lock);
	if (!vs->policy->adaptive)
		ember_gpu_set_timer(gpu, vs->policy->on_timer_tick ?
				    vs->policy->timer_period_ns : 0);
	ember_adaptive_launch(gpu, vs);
	up_read(&vs->lock);
	wmb();	/* the descriptor before the doorbell */
	ember_wr64(gpu, EMGPU_REG_LAUNCH_DESC_LO, EMGPU_REG_LAUNCH_DESC_HI,
		   gpu->launch_desc.dma);
	ember_wr(gpu, EMGPU_REG_LAUNCH_DOORBELL, 1);
	mutex_unlock(&gpu->launch_lock);
	ember_stat_inc(vs, launches);
	ember_gpu_kick(gpu);	/* a descriptor the device rejects at once */

	if (l.flags & EMBER_LAUNCH_SYNC) {
		memset(&s, 0, sizeof(s));
		ret = ember_sync_result(vs, &s, 0);
		if (ret)
			return ret;
		l.sim_ns = s.sim_ns;
		l.result = s.result;
	}
	if (copy_to_user(uarg, &l, sizeof(l)))
		return -EFAULT;
	return 0;
}

/*
 * The file is closing: let its launch finish (or cancel it) before the
 * ranges go. The VA space itself lives on while the launch holds a ref.
 */
void ember_launch_release_vs(struct ember_va_space *vs)
{
	struct ember_gpu *gpu = vs->gpu;

	if (!gpu || !gpu->ready || ember_vs_idle(vs))
		return;
	if (ember_vs_wait_idle(vs, 1000) == 0)
		return;
	mutex_lock(&gpu->launch_lock);
	if (gpu->launch_vs == vs)
		ember_wr(gpu, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_CANCEL);
	mutex_unlock(&gpu->launch_lock);
	ember_gpu_kick(gpu);
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
	if (ops->init) {
		ret = ops->init(&data);
		if (ret) {
			ember_policy_put(ops);
			return ret;
		}
	}

	down_write(&vs->lock);
	if (!list_empty(&vs->ranges)) {	/* blocks may hold its data */
		up_write(&vs->lock);
		if (ops->fini)
			ops->fini(data);
		ember_policy_put(ops);
		return -EBUSY;
	}
	old = vs->policy;
	old_data = vs->policy_data;
	vs->policy = ops;
	vs->policy_data = data;
	up_write(&vs->lock);

	if (old->fini)
		old->fini(old_data);
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
