// SPDX-License-Identifier: GPL-2.0
/*
 * Ember-adaptive in ember.ko: the driver glue of the `ember` policy (the
 * Ember paper's sections 4.3, 5 and 6.1, Table 1). The decisions are
 * hardware-neutral (ember_adaptive.c, ember_policy_ember.c); this file
 * carries them out with the driver's own routines:
 *
 *  - Table 1's module parameters, checked at load (a bad set fails the
 *    load with -EINVAL and a message naming the parameters);
 *  - mapped by default: blocks of an `ember` VA space start with preferred
 *    location CPU and accessed-by GPU (ember_va_space.c), so host pages
 *    are mapped as sysmem with access counting, never faulted;
 *  - access monitor: a notification's count goes to the decayed demand of
 *    the root chunk backing its VA block, under pmm.lock only;
 *  - promotion: a notification at the threshold promotes the span of
 *    cpu_preferred_prefetch_chunk_mb around its block, notified block
 *    first, one block lock at a time, each block's host pages in one copy
 *    on the NOTIFY timeline; it stops at the high watermark and resumes
 *    at the block's next notification (the counter is re-armed);
 *  - reclamation worker: every interval (the device's policy timer)
 *    halves demand and evicts the pass's victims on the WORKER timeline;
 *    evicted blocks stay mapped, their counters see them again;
 *  - migration history: arrival and eviction times on each block.
 *
 * Time: the device's PTIMER; Table 1's ms are device ms by default
 * (ember_ns_per_ms=1000000). ember_ns_per_ms=0 scales them like the
 * testbed scales memory (1000000 x VRAM / the full card's VRAM, e.g.
 * 128 MiB for a 141 GiB H200): the time to sweep memory shrinks by that
 * factor, but a 2 MiB block's copy does not, so scaled periods make the
 * worker evict still-hot blocks every few copies (measured: gather 1.0x
 * thrashes); device ms keep the paper's ratio of period to block copy.
 *
 * LOCKING: vs->lock (read) around every pass; at most one VA-block lock
 * at a time, never taken with pmm.lock held (ember_drv.h's order).
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "ember_drv.h"
#include "ember_policy_ember.h"

static struct ember_adaptive_params ember_ap = EMBER_ADAPTIVE_PARAMS_DEFAULT;

#define EMBER_AP_PARAM(name, desc)					\
	module_param_named(name, ember_ap.name, uint, 0444);		\
	MODULE_PARM_DESC(name, desc)

EMBER_AP_PARAM(cpu_preferred_blocks_enable,
	       "Ember-adaptive master switch: `ember` is new VA spaces' policy (0 or 1, default 0)");
EMBER_AP_PARAM(cpu_preferred_block_promotion_enable,
	       "Promote a span of blocks around a notified one (0 or 1, default 1)");
EMBER_AP_PARAM(cpu_preferred_prefetch_chunk_mb,
	       "Span promoted per notification, MiB (even, default 64)");
EMBER_AP_PARAM(perf_access_counter_threshold,
	       "Accesses before a notification (1..65535, default 256)");
EMBER_AP_PARAM(perf_eager_eviction_enable,
	       "Decay-based eager reclamation (0 or 1, default 1)");
EMBER_AP_PARAM(perf_eager_eviction_high_watermark,
	       "Device memory use forcing eviction, % (default 90)");
EMBER_AP_PARAM(perf_eager_eviction_low_watermark,
	       "Device memory use reclamation targets, % (below the high one, default 85)");
EMBER_AP_PARAM(perf_eager_eviction_interval_ms,
	       "Aging period, ms (default 25)");
EMBER_AP_PARAM(perf_eager_eviction_batch_count,
	       "Root chunks evicted per pass at most (default 16)");
EMBER_AP_PARAM(perf_eager_eviction_heat_ratio,
	       "Hottest:coldest demand ratio that replaces below the high watermark (default 2)");
EMBER_AP_PARAM(perf_eager_eviction_stale_intervals,
	       "Intervals at zero demand until a chunk is cold (default 5)");
EMBER_AP_PARAM(perf_migration_aware_eviction_enable,
	       "Migration-aware protection (0 or 1, default 1)");
EMBER_AP_PARAM(perf_migration_eviction_base_grace_ms,
	       "Grace after arrival, ms (default 100)");
EMBER_AP_PARAM(perf_migration_eviction_return_window_ms,
	       "Window counting returns after an eviction, ms (default 500)");
EMBER_AP_PARAM(perf_migration_eviction_score_grace_ms,
	       "Grace per migration score point, ms (default 250)");
EMBER_AP_PARAM(perf_migration_eviction_max_grace_ms,
	       "Grace cap, ms (default 2000)");
EMBER_AP_PARAM(perf_migration_eviction_decay_ms,
	       "Migration score halving period, ms (default 1000)");

static unsigned long ember_ns_per_ms = 1000000;
module_param(ember_ns_per_ms, ulong, 0444);
MODULE_PARM_DESC(ember_ns_per_ms,
		 "Device ns per ms of the Ember periods (0: 1000000 x VRAM / the full card's VRAM; default 1000000)");

/* The full card's VRAM of each profile (the testbed's scaling rule). */
static u64 ember_full_vram(u32 profile)
{
	switch (profile) {
	case EMGPU_PROFILE_RTX5080:
		return 16ull << 30;
	case EMGPU_PROFILE_A40:
		return 48ull << 30;
	case EMGPU_PROFILE_H200:
		return 141ull << 30;
	case EMGPU_PROFILE_GH200:
		return 96ull << 30;
	default:
		return 0;
	}
}

/* The module's parameters in gpu's time unit. */
static void ember_params(struct ember_gpu *gpu, struct ember_adaptive_params *p)
{
	u64 full = ember_full_vram(gpu->profile);

	*p = ember_ap;
	if (ember_ns_per_ms)
		p->ns_per_ms = ember_ns_per_ms;
	else if (full && gpu->vram_size && gpu->vram_size < full)
		p->ns_per_ms = max_t(u64, 1, div64_u64(NSEC_PER_MSEC *
						       gpu->vram_size, full));
	else
		p->ns_per_ms = NSEC_PER_MSEC;
}

static bool ember_vs_adaptive(struct ember_va_space *vs)
{
	return vs->gpu && vs->policy->adaptive;
}

/* ---- the ops table ---- */

static void ember_on_fault_block(void *pdata, struct ember_policy_block *b)
{
	ember_policy_ember_fault(&ember_ap, b);
}

static const struct ember_policy_ops ember_policy_ember = {
	.name = "ember",
	.owner = THIS_MODULE,
	.wants_access_counters = true,
	.mapped_by_default = true,
	.adaptive = true,
	.on_fault_block = ember_on_fault_block,
};

/* The policy of new VA spaces: `ember` under the master switch. */
const char *ember_adaptive_default_policy(void)
{
	return ember_ap.cpu_preferred_blocks_enable ? "ember" : "uvm";
}

int ember_adaptive_init(void)
{
	char msg[160];

	if (ember_adaptive_params_check(&ember_ap, msg, sizeof(msg))) {
		pr_err("ember: invalid Ember-adaptive parameters: %s\n", msg);
		return -EINVAL;
	}
	return ember_register_policy(&ember_policy_ember);
}

void ember_adaptive_exit(void)
{
	ember_unregister_policy(&ember_policy_ember);
}

/*
 * A launch of an adaptive VA space starts: counters at the threshold and
 * 2 MiB granularity, the worker's timer at the interval.
 * LOCKING: gpu->launch_lock, vs->lock (read).
 */
void ember_adaptive_launch(struct ember_gpu *gpu, struct ember_va_space *vs)
{
	struct ember_adaptive_params p;

	if (!ember_vs_adaptive(vs))
		return;
	ember_params(gpu, &p);
	ember_wr(gpu, EMGPU_REG_AC_CONFIG,
		 (p.perf_access_counter_threshold &
		  EMGPU_AC_CONFIG_THRESHOLD_MASK) |
		 EMGPU_AC_GRAN_2M << EMGPU_AC_CONFIG_GRAN_SHIFT);
	ember_gpu_set_timer(gpu, p.perf_eager_eviction_enable ?
			    ember_adaptive_ms_ns(&p, p.perf_eager_eviction_interval_ms) : 0);
}

/* ---- migration history ---- */

/*
 * Pages of block arrived in device memory (promotion, fault, prefetch):
 * its chunk starts (or renews) its residency and grace.
 * LOCKING: block->lock.
 */
void ember_adaptive_arrived(struct ember_va_block *block, unsigned int pages)
{
	struct ember_va_space *vs = block->vs;
	struct ember_adaptive_params p;
	struct ember_gpu *gpu = vs->gpu;
	u64 now;

	if (!ember_vs_adaptive(vs) || !block->chunk || !pages)
		return;
	ember_params(gpu, &p);
	now = ember_gpu_now_ns(gpu);
	mutex_lock(&gpu->pmm.lock);
	ember_block_arrive(&p, &block->hist, &block->chunk->demand, pages, 0,
			   now);
	mutex_unlock(&gpu->pmm.lock);
}

/* block left device memory: remember when, to see a return. LOCKING: block->lock. */
void ember_adaptive_evicted(struct ember_va_block *block)
{
	struct ember_chunk_demand gone;

	if (!ember_vs_adaptive(block->vs))
		return;
	ember_block_evicted(&block->hist, &gone,
			    ember_gpu_now_ns(block->vs->gpu));
}

/* ---- access monitor and promotion ---- */

/*
 * Adds count to the demand of the chunk backing block, if it has one.
 * No block lock: the chunk is checked to still be block's under pmm.lock.
 */
static void ember_account_demand(struct ember_gpu *gpu,
				 struct ember_va_block *block, u32 count)
{
	struct ember_chunk *chunk = READ_ONCE(block->chunk);

	if (!chunk)
		return;
	mutex_lock(&gpu->pmm.lock);
	if (chunk->block == block && chunk->demand.resident)
		ember_chunk_add_demand(&chunk->demand, count);
	mutex_unlock(&gpu->pmm.lock);
}

/*
 * Promotes one block: its host-resident pages in one copy, page table
 * updated, under its lock. Returns -ENOSPC when the high watermark stops
 * the span, else 0 (nothing to do or done; a failure leaves the pages
 * mapped on the host, where the next notification retries).
 * LOCKING: vs->lock (read); takes block->lock.
 */
static int ember_promote_block(struct ember_gpu *gpu,
			       struct ember_va_range *range, u64 va,
			       const struct ember_adaptive_params *p,
			       u32 demand)
{
	struct ember_policy_block view;
	struct ember_page_mask protect;
	struct ember_va_block *block;
	unsigned int pages;
	int ret = 0;

	block = ember_range_block(range, va, false);
	if (!block)
		return 0;	/* never touched: nothing to move */
	mutex_lock(&block->lock);
	if (block->dead || block->hist.promotion_inflight)
		goto out;
	ember_block_policy_view(block, &view);
	memcpy(&protect, block->lost, sizeof(protect));
	if (!ember_policy_ember_promote_mask(&view, &protect, &view.migrate))
		goto out;
	if (!block->chunk &&
	    !ember_promotion_has_room(p, view.chunks_used, view.chunks_total)) {
		ret = -ENOSPC;
		goto out;
	}
	pages = ember_mask_weight(&view.migrate);
	view.dest = EMBER_LOC_GPU;
	view.faulted = view.migrate;	/* all of it is asked for: no prefetch */
	block->hist.promotion_inflight = true;
	if (!ember_block_apply(block, &view, EMBER_CAUSE_NOTIFY)) {
		ember_stat_inc(block->vs, promotions);
		ember_stat_add(block->vs, EMBER_STAT(promoted_bytes),
			       (u64)pages << PAGE_SHIFT);
		/* the demand the counters saw travels with the region */
		ember_account_demand(gpu, block, demand);
	}
	block->hist.promotion_inflight = false;
out:
	mutex_unlock(&block->lock);
	return ret;
}

/*
 * Services one notification of an adaptive VA space. The notified block
 * stands in for its span: every block of the span arrives with its count.
 * LOCKING: none held; takes vs->lock (read), then one block lock at a time.
 */
void ember_adaptive_notify(struct ember_gpu *gpu, struct ember_va_space *vs,
			   const struct ember_policy_notification *n)
{
	u64 block_va = n->va & ~(EMBER_VA_BLOCK_SIZE - 1), start, end, va;
	struct ember_adaptive_params p;
	struct ember_va_range *range;
	struct ember_va_block *block;
	int ret;

	ember_params(gpu, &p);
	down_read(&vs->lock);
	range = ember_range_find(vs, block_va, EMBER_VA_BLOCK_SIZE);
	if (!range)
		goto out;
	block = ember_range_block(range, block_va, false);
	if (block)
		ember_account_demand(gpu, block, n->counter);
	if (!ember_policy_ember_wants_promotion(&p, n))
		goto out;
	ember_promotion_span(&p, block_va, range->start, range->end, &start,
			     &end);
	ret = ember_promote_block(gpu, range, block_va, &p, n->counter);
	for (va = start; !ret && va < end; va += EMBER_VA_BLOCK_SIZE)
		if (va != block_va)
			ret = ember_promote_block(gpu, range, va, &p,
						  n->counter);
	if (ret == -ENOSPC) {
		s64 seen = atomic64_read(&vs->ember_waiting_demand);

		ember_stat_inc(vs, promotions_halted);
		/* demand waiting for room, for the next reclamation pass */
		while (seen < n->counter &&
		       !atomic64_try_cmpxchg(&vs->ember_waiting_demand, &seen,
					     n->counter))
			;
	}
out:
	up_read(&vs->lock);
}

/* ---- the reclamation worker ---- */

/*
 * Evicts one chunk the pass chose (it holds a ref on the owner and the
 * chunk's evicting flag). LOCKING: vs->lock (read); takes the block lock.
 */
static void ember_reclaim_chunk(struct ember_gpu *gpu, struct ember_chunk *chunk,
				struct ember_va_block *block)
{
	unsigned int pages;
	int ret;

	mutex_lock(&block->lock);
	if (!block->dead && block->chunk == chunk) {
		pages = bitmap_weight(block->gpu_resident, EMBER_BLOCK_PAGES);
		ret = ember_block_make_resident_cpu(block, block->gpu_resident,
						    EMBER_CAUSE_EVICTION, NULL);
		if (!ret) {
			ember_stat_inc(block->vs, evictions);
			ember_stat_inc(block->vs, eager_evictions);
			ember_stat_add(block->vs, EMBER_STAT(pages_evicted), pages);
			ember_hw_charge(gpu, EMGPU_DRV_THREAD_WORKER,
					EMGPU_DRV_ACTION_CHUNK_EVICT, 1);
			ember_adaptive_evicted(block);
		} else if (block->chunk == chunk) {
			mutex_lock(&gpu->pmm.lock);
			chunk->evicting = false;
			mutex_unlock(&gpu->pmm.lock);
		}
	}
	mutex_unlock(&block->lock);
	ember_block_put(block);
}

/*
 * One pass of the worker, on the policy timer of an adaptive VA space's
 * launch: age every resident chunk of the VA space, choose the victims
 * (ember_reclaim_select) and write them back on the WORKER timeline.
 * LOCKING: vs->lock (read), no block lock; runs in the bottom half.
 */
void ember_adaptive_reclaim(struct ember_gpu *gpu, struct ember_va_space *vs)
{
	struct ember_pmm *pmm = &gpu->pmm;
	struct ember_adaptive_params p;
	struct ember_chunk_demand **cand;
	struct ember_va_block **owners;
	struct ember_chunk **victims;
	struct ember_chunk *chunk;
	size_t m = 0, k, i, used, total;
	u64 now;

	if (!ember_vs_adaptive(vs) || !pmm->nchunks)
		return;
	ember_params(gpu, &p);
	cand = kmalloc_array(pmm->nchunks, sizeof(*cand), GFP_KERNEL);
	victims = kmalloc_array(p.perf_eager_eviction_batch_count,
				sizeof(*victims), GFP_KERNEL);
	owners = kmalloc_array(p.perf_eager_eviction_batch_count,
			       sizeof(*owners), GFP_KERNEL);
	if (!cand || !victims || !owners)
		goto out;
	now = ember_gpu_now_ns(gpu);

	mutex_lock(&pmm->lock);
	list_for_each_entry(chunk, &pmm->used, node) {
		if (!chunk->block || chunk->block->vs != vs)
			continue;
		chunk->demand.inflight = chunk->evicting;
		cand[m++] = &chunk->demand;
	}
	ember_age_chunks(cand, m);
	total = pmm->nchunks - pmm->nretired;
	used = total - pmm->nfree;
	k = ember_reclaim_select(&p, cand, m, used, total,
				 atomic64_xchg(&vs->ember_waiting_demand, 0), now);
	for (i = 0; i < k; i++) {
		chunk = container_of(cand[i], struct ember_chunk, demand);
		chunk->evicting = true;
		kref_get(&chunk->block->kref);
		victims[i] = chunk;
		owners[i] = chunk->block;
	}
	mutex_unlock(&pmm->lock);

	for (i = 0; i < k; i++)
		ember_reclaim_chunk(gpu, victims[i], owners[i]);
out:
	kfree(owners);
	kfree(victims);
	kfree(cand);
}
