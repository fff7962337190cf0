// SPDX-License-Identifier: GPL-2.0
/*
 * The launch lifecycle: a kernel launch claims its GPU (one launch at a
 * time per GPU), tells its VA space's policy (on_launch_begin, with the
 * managed ranges its arguments name; the policy sets the access counters
 * and its timer for the launch), rings the doorbell, and completes in the
 * bottom half (on_launch_end). Waiting for completion runs the watchdog:
 * the device's clock must move while a launch runs, or the device is
 * reset (ember_gpu.c).
 */
#include <linux/sched/signal.h>

#include "ember_drv.h"

/* Tells vs's policy its launch ended. LOCKING: none held. */
void ember_launch_end_policy(struct ember_gpu *gpu, struct ember_va_space *vs,
			     int status, u64 sim_ns)
{
	struct ember_policy_launch pl = {
		.now_ns = ember_gpu_now_ns(gpu),
		.status = status,
		.sim_ns = sim_ns,
	};

	down_read(&vs->lock);
	if (vs->policy->on_launch_end) {
		ember_hook_count(vs, EMBER_HOOK_LAUNCH_END);
		vs->policy->on_launch_end(vs->policy_data, &pl);
	}
	up_read(&vs->lock);
}

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
	if (vs && status == EMGPU_LAUNCH_RUNNING && !gpu->launch_overdue &&
	    ember_limits_launch_overdue(gpu, gpu->launch_start_ns)) {
		/* ended by a reset in the bottom half: ETIME at synchronize */
		dev_warn(&gpu->pdev->dev,
			 "launch %llu held the GPU past launch_hold_ms=%u ms of device time: ending it\n",
			 vs->launches_submitted, ember_launch_hold_ms);
		gpu->launch_overdue = true;
		WRITE_ONCE(gpu->reset_pending, true);
		ember_gpu_kick(gpu);
	}
	if (!vs || status == EMGPU_LAUNCH_RUNNING || status == EMGPU_LAUNCH_IDLE) {
		mutex_unlock(&gpu->launch_lock);
		return;
	}
	sim = ember_rd64(gpu, EMGPU_REG_LAUNCH_TIME_LO, EMGPU_REG_LAUNCH_TIME_HI);
	vs->last_sim_ns = sim;
	vs->last_result = ember_rd64(gpu, EMGPU_REG_LAUNCH_RESULT_LO,
				     EMGPU_REG_LAUNCH_RESULT_HI);
	/*
	 * A descriptor the device refuses (a kernel's buffer wrapping or past
	 * its VA bits) is the caller's malformed argument, not a device
	 * failure: EINVAL, as the ioctl's own checks give, so that EIO keeps
	 * meaning the hardware failed (poison, hang, a copy error).
	 */
	err = status == EMGPU_LAUNCH_DONE ? 0 :
	      status == EMGPU_LAUNCH_CANCELLED ? -EFAULT :
	      status == EMGPU_LAUNCH_ERROR &&
	      ember_rd(gpu, EMGPU_REG_ERROR_STATUS) == EMGPU_ERR_BAD_DESCRIPTOR ? -EINVAL :
	      -EIO;
	if (err && !vs->launch_error)
		vs->launch_error = err;
	WRITE_ONCE(vs->launches_completed, vs->launches_completed + 1);
	ember_limits_launch_put(vs);
	poison = status == EMGPU_LAUNCH_ERROR &&
		 ember_rd(gpu, EMGPU_REG_ERROR_STATUS) == EMGPU_ERR_POISON;
	if (poison)	/* before anyone else launches onto the same chunk */
		ember_wr(gpu, EMGPU_REG_ERROR_CLEAR, 1);
	if (poison)
		ember_pmm_scrub(gpu);
	gpu->launch_vs = NULL;
	gpu->launch_busy = false;
	mutex_unlock(&gpu->launch_lock);

	ember_launch_end_policy(gpu, vs, err, sim);
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

#define EMBER_WATCHDOG_POLL_MS	50
#define EMBER_DRIVER_STALL_FACTOR	6

/*
 * Whether the device is waiting for the driver rather than hung: in
 * lockstep it stops at every hand-off until the driver's SYNC, faulting
 * warps wait for the replay of their batch, and while the bottom half
 * services (queued or running) nothing the device waits for is late. A
 * slow driver (a loaded host starving the guest) is not a hung device.
 */
static bool ember_gpu_waits_for_driver(struct ember_gpu *gpu)
{
	return (ember_rd(gpu, EMGPU_REG_SYNC_STATUS) & EMGPU_SYNC_WAITING) ||
	       ember_rd(gpu, EMGPU_REG_FAULT_BUF_GET) !=
	       ember_rd(gpu, EMGPU_REG_FAULT_BUF_PUT) ||
	       work_pending(&gpu->isr_work) || READ_ONCE(gpu->isr_running);
}

/*
 * Waits until every launch of vs completed, kicking the bottom half now
 * and then so that a lost interrupt only costs time. 0, -ETIMEDOUT or
 * -EINTR/-ERESTARTSYS.
 *
 * Both limits are in the device's terms, not the guest's wall clock, so
 * that a lockstep run ends the same however loaded its host is:
 *  - timeout_ms is device time: -ETIMEDOUT once the device clock has
 *    advanced that much since the wait began (a reset, which restarts the
 *    clock, adds nothing);
 *  - the hang watchdog counts polls in which the device made no progress:
 *    its clock stood still and it was not waiting for the driver.
 *    hang_timeout_ms / 50 such polls in a row reset the device. A hung
 *    device's clock stops, so this count is the one limit that cannot be
 *    device time; a guest starved by its host polls less often instead of
 *    seeing its device hang, and any progress or wait for the driver
 *    starts the count again.
 * A device that waits for the driver is never reset, so one more count
 * keeps a stalled driver (a bottom half that never answers the SYNC it
 * is kicked for) from holding the caller forever: after
 * EMBER_DRIVER_STALL_FACTOR times the hang limit of polls in a row with
 * the clock standing still, for whatever reason, the wait gives up with
 * -ETIMEDOUT and says so. Host load alone cannot get there: every poll
 * kicks the bottom half, and each answer moves the clock.
 */
static int ember_vs_wait_idle(struct ember_va_space *vs, u32 timeout_ms)
{
	struct ember_gpu *gpu = vs->gpu;
	u64 clock = ember_gpu_now_ns(gpu), now, waited_ns = 0;
	u64 limit_ns = (u64)timeout_ms * NSEC_PER_MSEC;
	unsigned int stuck = 0, stalled = 0;
	long left;

	while (!ember_vs_idle(vs)) {
		left = wait_event_interruptible_timeout(vs->launch_wq,
				ember_vs_idle(vs),
				msecs_to_jiffies(EMBER_WATCHDOG_POLL_MS));
		if (left < 0)
			return left;
		if (left)
			continue;
		now = ember_gpu_now_ns(gpu);
		if (now > clock)
			waited_ns += now - clock;
		if (waited_ns >= limit_ns)
			return -ETIMEDOUT;
		/*
		 * watchdog: the device clock must move while a launch runs.
		 * Looked at before this poll's kick, whose queued bottom half
		 * would otherwise always look like the driver being busy.
		 */
		if (now != clock) {
			stuck = 0;
			stalled = 0;
		} else if ((u64)++stalled * EMBER_WATCHDOG_POLL_MS >=
			   (u64)EMBER_DRIVER_STALL_FACTOR * ember_hang_timeout_ms) {
			dev_err(&gpu->pdev->dev,
				"device clock stood still for %u polls while it waited for the driver; giving up the wait\n",
				stalled);
			return -ETIMEDOUT;
		} else if (ember_gpu_waits_for_driver(gpu)) {
			stuck = 0;
		} else if (++stuck * EMBER_WATCHDOG_POLL_MS >= ember_hang_timeout_ms) {
			WRITE_ONCE(gpu->reset_pending, true);
			stuck = 0;
		}
		ember_gpu_kick(gpu);
		clock = now;
	}
	return 0;
}

int ember_launch_sync(struct ember_va_space *vs,
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

/*
 * The managed ranges the launch's arguments point into, for the policy.
 * LOCKING: vs->lock (read).
 */
static void ember_launch_ranges(struct ember_va_space *vs,
				const struct ember_launch *l,
				struct ember_policy_launch *pl)
{
	struct ember_va_range *range;
	unsigned int i, j;

	lockdep_assert_held(&vs->lock);
	for (i = 0; i < EMBER_LAUNCH_MAX_ARGS; i++) {
		range = ember_range_find(vs, l->args[i], 1);
		if (!range)
			continue;
		for (j = 0; j < pl->nranges; j++)
			if (pl->ranges[j].start == range->start)
				break;
		if (j < pl->nranges || pl->nranges == EMBER_POLICY_LAUNCH_RANGES)
			continue;
		pl->ranges[pl->nranges].start = range->start;
		pl->ranges[pl->nranges].end = range->end;
		pl->nranges++;
	}
}

/*
 * The policy's set-up for a launch: access-counter threshold and
 * granularity (the device's reset values unless the policy says), and
 * the policy timer. LOCKING: gpu->launch_lock, vs->lock (read).
 */
static void ember_launch_begin_policy(struct ember_gpu *gpu,
				      struct ember_va_space *vs,
				      const struct ember_launch *l)
{
	struct ember_policy_launch pl = {
		.now_ns = ember_gpu_now_ns(gpu),
		.kernel = l->kernel,
	};
	u32 config = EMGPU_AC_CONFIG_DEFAULT, gran;

	lockdep_assert_held(&gpu->launch_lock);
	lockdep_assert_held(&vs->lock);
	ember_launch_ranges(vs, l, &pl);
	if (vs->policy->on_launch_begin) {
		ember_hook_count(vs, EMBER_HOOK_LAUNCH_BEGIN);
		vs->policy->on_launch_begin(vs->policy_data, &pl);
	}
	if (pl.ac_threshold) {
		gran = pl.ac_granularity_shift >= 24 ? EMGPU_AC_GRAN_16M :
		       pl.ac_granularity_shift >= 21 ? EMGPU_AC_GRAN_2M :
		       EMGPU_AC_GRAN_64K;
		config = min_t(u32, pl.ac_threshold,
			       EMGPU_AC_CONFIG_THRESHOLD_MASK) |
			 gran << EMGPU_AC_CONFIG_GRAN_SHIFT;
	}
	ember_wr(gpu, EMGPU_REG_AC_CONFIG, config);
	ember_gpu_set_timer(gpu, vs->policy->on_timer_tick ?
			    pl.timer_period_ns : 0);
}

/*
 * Starts l on vs's GPU: claims it, sets the policy up and rings the
 * doorbell. Fills l->launch_id. LOCKING: none held.
 */
int ember_launch_submit(struct ember_va_space *vs, struct ember_launch *l)
{
	struct ember_gpu *gpu = vs->gpu;
	struct emgpu_launch_desc *desc;
	unsigned int i;
	int ret;

	ret = ember_limits_launch_get(vs);
	if (ret)
		return ret;
	ret = ember_launch_claim(gpu);
	if (ret) {
		ember_limits_launch_put(vs);
		return ret;
	}
	gpu->launch_busy = true;
	gpu->launch_vs = vs;
	gpu->launch_overdue = false;
	kref_get(&vs->kref);
	l->launch_id = ++vs->launches_submitted;

	desc = gpu->launch_desc.cpu;
	memset(desc, 0, sizeof(*desc));
	desc->kernel = emgpu_cpu_to_le32(l->kernel);
	desc->warps = emgpu_cpu_to_le32(l->warps);
	desc->seed = emgpu_cpu_to_le64(l->seed);
	for (i = 0; i < EMGPU_LAUNCH_MAX_ARGS; i++)
		desc->args[i] = emgpu_cpu_to_le64(l->args[i]);
	ember_gpu_set_pdb(gpu, ember_mmu_root_pde(vs));
	down_read(&vs->lock);
	ember_launch_begin_policy(gpu, vs, l);
	up_read(&vs->lock);
	wmb();	/* the descriptor before the doorbell */
	ember_wr64(gpu, EMGPU_REG_LAUNCH_DESC_LO, EMGPU_REG_LAUNCH_DESC_HI,
		   gpu->launch_desc.dma);
	gpu->launch_start_ns = ember_gpu_now_ns(gpu);
	ember_wr(gpu, EMGPU_REG_LAUNCH_DOORBELL, 1);
	mutex_unlock(&gpu->launch_lock);
	ember_stat_inc(vs, launches);
	ember_gpu_kick(gpu);	/* a descriptor the device rejects at once */
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

