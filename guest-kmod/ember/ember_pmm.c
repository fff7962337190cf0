// SPDX-License-Identifier: GPL-2.0
/*
 * Physical memory manager: VRAM in 2 MiB root chunks (nvidia-uvm's
 * uvm_pmm_gpu.c without splitting: a VA block's GPU-resident pages all live
 * in its one chunk, at their offset in the block).
 *
 * Chunks are free or used. The used list is the LRU: a chunk moves to its
 * tail whenever its block becomes resident (uvm_pmm_gpu_mark_root_chunk_used:
 * on migration, not on access). When no chunk is free, allocation evicts on
 * demand: the policy picks a victim among the least recently used chunks,
 * and the owner block migrates its pages back to host memory; the caller
 * waits (for a fault, on the critical path).
 */
#include <linux/delay.h>
#include <linux/slab.h>

#include "ember_drv.h"

int ember_pmm_init(struct ember_gpu *gpu)
{
	struct ember_pmm *pmm = &gpu->pmm;
	u32 i;

	mutex_init(&pmm->lock);
	INIT_LIST_HEAD(&pmm->free);
	INIT_LIST_HEAD(&pmm->used);
	pmm->nchunks = gpu->vram_size / EMBER_CHUNK_SIZE;
	pmm->chunks = kvcalloc(pmm->nchunks, sizeof(*pmm->chunks), GFP_KERNEL);
	pmm->views = kvcalloc(pmm->nchunks, sizeof(*pmm->views), GFP_KERNEL);
	pmm->cands = kvcalloc(pmm->nchunks, sizeof(*pmm->cands), GFP_KERNEL);
	pmm->victims = kvcalloc(pmm->nchunks, sizeof(*pmm->victims), GFP_KERNEL);
	if (pmm->nchunks &&
	    (!pmm->chunks || !pmm->views || !pmm->cands || !pmm->victims)) {
		ember_pmm_fini(gpu);
		return -ENOMEM;
	}
	for (i = 0; i < pmm->nchunks; i++) {
		pmm->chunks[i].addr = (u64)i * EMBER_CHUNK_SIZE;
		list_add_tail(&pmm->chunks[i].node, &pmm->free);
	}
	pmm->nfree = pmm->nchunks;
	return 0;
}

void ember_pmm_fini(struct ember_gpu *gpu)
{
	struct ember_pmm *pmm = &gpu->pmm;

	if (pmm->chunks && pmm->nfree != pmm->nchunks)
		dev_err(&gpu->pdev->dev, "%u VRAM chunks still in use at removal\n",
			pmm->nchunks - pmm->nfree);
	kvfree(pmm->victims);
	kvfree(pmm->cands);
	kvfree(pmm->views);
	kvfree(pmm->chunks);
	pmm->chunks = NULL;
	pmm->views = NULL;
	pmm->cands = NULL;
	pmm->victims = NULL;
}

u64 ember_pmm_free_bytes(struct ember_gpu *gpu)
{
	u64 bytes;

	mutex_lock(&gpu->pmm.lock);
	bytes = (u64)gpu->pmm.nfree * EMBER_CHUNK_SIZE;
	mutex_unlock(&gpu->pmm.lock);
	return bytes;
}

u64 ember_pmm_total_bytes(struct ember_gpu *gpu)
{
	u64 bytes;

	mutex_lock(&gpu->pmm.lock);
	bytes = (u64)(gpu->pmm.nchunks - gpu->pmm.nretired) * EMBER_CHUNK_SIZE;
	mutex_unlock(&gpu->pmm.lock);
	return bytes;
}

/* LOCKING: pmm->lock */
static void pmm_retire_locked(struct ember_pmm *pmm, struct ember_chunk *chunk)
{
	lockdep_assert_held(&pmm->lock);
	if (chunk->retired)
		return;
	if (!chunk->block)
		pmm->nfree--;	/* it was on the free list */
	list_del_init(&chunk->node);
	chunk->block = NULL;
	chunk->evicting = false;
	chunk->retired = true;
	pmm->nretired++;
}

/* Takes a poisoned chunk out of service. LOCKING: its owner's block lock. */
void ember_pmm_retire(struct ember_gpu *gpu, struct ember_chunk *chunk)
{
	if (chunk->block)	/* its owner's, who called */
		lockdep_assert_held(&chunk->block->lock);
	mutex_lock(&gpu->pmm.lock);
	pmm_retire_locked(&gpu->pmm, chunk);
	mutex_unlock(&gpu->pmm.lock);
	dev_err(&gpu->pdev->dev, "VRAM chunk at %#llx poisoned: retired\n",
		chunk->addr);
}

/*
 * After a launch failed on poisoned VRAM (the device does not say where):
 * probes every chunk through the copy engine and retires the poisoned
 * ones; their owners' GPU-resident pages are lost (EIO/SIGBUS on access,
 * never silently zero). LOCKING: none held; takes block locks.
 */
void ember_pmm_scrub(struct ember_gpu *gpu)
{
	struct ember_pmm *pmm = &gpu->pmm;
	struct ember_va_block *block;
	struct ember_chunk *chunk;
	u32 i;

	for (i = 0; i < pmm->nchunks; i++) {
		chunk = &pmm->chunks[i];
		if (READ_ONCE(chunk->retired) ||
		    ember_vram_probe(gpu, chunk->addr) != -EHWPOISON)
			continue;
		mutex_lock(&pmm->lock);
		block = chunk->block;
		if (block)
			kref_get(&block->kref);
		else
			pmm_retire_locked(pmm, chunk);
		mutex_unlock(&pmm->lock);
		if (!block) {
			dev_err(&gpu->pdev->dev,
				"free VRAM chunk at %#llx poisoned: retired\n",
				chunk->addr);
			continue;
		}
		mutex_lock(&block->lock);
		if (block->chunk == chunk)
			ember_block_lose_chunk(block);
		mutex_unlock(&block->lock);
		ember_block_put(block);
	}
}

/* Returns a chunk to the free list. LOCKING: the owner's block lock. */
void ember_pmm_free(struct ember_gpu *gpu, struct ember_chunk *chunk)
{
	struct ember_pmm *pmm = &gpu->pmm;

	lockdep_assert_held(&chunk->block->lock);
	mutex_lock(&pmm->lock);
	chunk->block = NULL;
	chunk->evicting = false;
	list_move_tail(&chunk->node, &pmm->free);
	pmm->nfree++;
	mutex_unlock(&pmm->lock);
}

/* The owner became resident: most recently used. LOCKING: its block lock. */
void ember_pmm_mark_used(struct ember_gpu *gpu, struct ember_chunk *chunk)
{
	u64 now = ember_gpu_now_ns(gpu);

	lockdep_assert_held(&chunk->block->lock);
	mutex_lock(&gpu->pmm.lock);
	chunk->last_used_ns = now;
	list_move_tail(&chunk->node, &gpu->pmm.used);
	mutex_unlock(&gpu->pmm.lock);
}

/* LOCKING: pmm->lock. Returns a free chunk owned by block, or NULL. */
static struct ember_chunk *pmm_take_free(struct ember_pmm *pmm,
					 struct ember_va_block *block)
{
	struct ember_chunk *chunk;

	lockdep_assert_held(&pmm->lock);
	chunk = list_first_entry_or_null(&pmm->free, struct ember_chunk, node);
	if (!chunk)
		return NULL;
	list_del_init(&chunk->node);
	pmm->nfree--;
	chunk->block = block;
	chunk->evicting = false;
	memset(chunk->policy_priv, 0, sizeof(chunk->policy_priv));
	return chunk;
}

/*
 * Fills pmm->views and pmm->cands with vs's used chunks, least recently
 * made resident first; evicting ones are left out if skip_busy, else
 * marked busy. Returns how many. LOCKING: pmm->lock.
 */
static u32 pmm_gather(struct ember_pmm *pmm, struct ember_va_space *vs,
		      bool skip_busy)
{
	struct ember_chunk *chunk;
	u32 n = 0;

	lockdep_assert_held(&pmm->lock);
	list_for_each_entry(chunk, &pmm->used, node) {
		if (!chunk->block || chunk->block->vs != vs ||
		    (skip_busy && chunk->evicting))
			continue;
		pmm->views[n] = (struct ember_policy_chunk) {
			.va = chunk->block->start,
			.last_used_ns = chunk->last_used_ns,
			.priv = chunk->policy_priv,
			.block_priv = chunk->block->policy_priv,
			.busy = chunk->evicting,
		};
		pmm->cands[n++] = chunk;
	}
	return n;
}

/* Marks chunk for eviction and pins its owner. LOCKING: pmm->lock. */
static struct ember_chunk *pmm_claim(struct ember_chunk *chunk)
{
	lockdep_assert_held(&chunk->block->vs->gpu->pmm.lock);
	chunk->evicting = true;
	kref_get(&chunk->block->kref);
	return chunk;
}

/*
 * Picks a victim for vs's allocation: its policy chooses among vs's own
 * chunks (their state is the policy's); a VA space with none there takes
 * the least recently used chunk of another. Takes a reference on the
 * owner. LOCKING: pmm->lock and the allocating VA space's lock (for its
 * policy).
 */
static struct ember_chunk *pmm_pick_victim(struct ember_gpu *gpu,
					   struct ember_va_space *vs)
{
	const struct ember_policy_ops *ops = vs->policy;
	struct ember_pmm *pmm = &gpu->pmm;
	struct ember_chunk *chunk;
	u32 n, pick = 0;

	lockdep_assert_held(&pmm->lock);
	lockdep_assert_held(&vs->lock);
	n = pmm_gather(pmm, vs, true);
	if (!n) {
		list_for_each_entry(chunk, &pmm->used, node)
			if (!chunk->evicting && chunk->block)
				return pmm_claim(chunk);
		return NULL;
	}
	if (ops->pick_victim) {
		ember_hook_count(vs, EMBER_HOOK_PICK_VICTIM);
		pick = ops->pick_victim(vs->policy_data, pmm->views, n,
					ember_gpu_now_ns(gpu));
	}
	return pmm_claim(pmm->cands[pick < n ? pick : 0]);
}

/*
 * Evicts chunk (claimed: evicting set, its owner pinned) back to host
 * memory. Returns 0 (also when the chunk changed hands or was poisoned
 * meanwhile: nothing left to do) or -errno with the chunk released.
 * LOCKING: vs->lock (read) of the evicting thread, no block lock.
 */
static int pmm_evict_chunk(struct ember_gpu *gpu, struct ember_chunk *chunk,
			   struct ember_va_block *block, enum ember_cause cause,
			   bool eager)
{
	int ret = 0;

	mutex_lock(&block->lock);
	if (!block->dead && block->chunk == chunk) {
		unsigned int pages = bitmap_weight(block->gpu_resident,
						   EMBER_BLOCK_PAGES);

		ret = ember_block_evict(block, cause, eager);
		if (!ret) {
			ember_stat_inc(block->vs, evictions);
			if (eager)
				ember_stat_inc(block->vs, eager_evictions);
			ember_stat_add(block->vs, EMBER_STAT(pages_evicted), pages);
			ember_hw_charge(gpu, ember_cause_thread(cause),
					EMGPU_DRV_ACTION_CHUNK_EVICT, 1);
		} else if (block->chunk == chunk) {
			mutex_lock(&gpu->pmm.lock);
			chunk->evicting = false;
			mutex_unlock(&gpu->pmm.lock);
		} else {
			ret = 0;	/* the chunk was poisoned and retired: try another */
		}
	}
	mutex_unlock(&block->lock);
	ember_block_put(block);
	return ret;
}

/* Evicts one root chunk on demand; 0, -EBUSY if none is evictable now. */
static int pmm_evict_one(struct ember_gpu *gpu, struct ember_va_space *vs,
			 enum ember_cause cause)
{
	struct ember_chunk *chunk;

	mutex_lock(&gpu->pmm.lock);
	chunk = pmm_pick_victim(gpu, vs);
	mutex_unlock(&gpu->pmm.lock);
	if (!chunk)
		return -EBUSY;
	return pmm_evict_chunk(gpu, chunk, chunk->block, cause, false);
}

/*
 * The policy timer fired during a launch of vs: the policy sees vs's
 * resident chunks (on_timer_tick), picks the ones to reclaim now
 * (pick_eager_victims), and they are written back on the WORKER timeline.
 * Evicted blocks stay mapped (accessed-by), so their counters see them
 * again. LOCKING: vs->lock (read), no block lock; runs in the bottom half.
 */
void ember_pmm_timer_tick(struct ember_gpu *gpu, struct ember_va_space *vs)
{
	const struct ember_policy_ops *ops = vs->policy;
	struct ember_pmm *pmm = &gpu->pmm;
	struct ember_chunk **victims;
	struct ember_policy_tick t;
	u32 k = 0, i;

	lockdep_assert_held(&vs->lock);
	if (!ops->on_timer_tick || !pmm->nchunks)
		return;
	victims = kmalloc_array(pmm->nchunks, sizeof(*victims), GFP_KERNEL);
	if (!victims)
		return;
	mutex_lock(&pmm->lock);
	t = (struct ember_policy_tick) {
		.now_ns = ember_gpu_now_ns(gpu),
		.chunks = pmm->views,
		.n = pmm_gather(pmm, vs, false),
		.chunks_total = pmm->nchunks - pmm->nretired,
		.victims = pmm->victims,
	};
	t.chunks_used = t.chunks_total - pmm->nfree;
	ember_hook_count(vs, EMBER_HOOK_TIMER_TICK);
	ops->on_timer_tick(vs->policy_data, &t);
	if (ops->pick_eager_victims) {
		ember_hook_count(vs, EMBER_HOOK_PICK_EAGER_VICTIMS);
		k = min(ops->pick_eager_victims(vs->policy_data, &t), t.n);
	}
	for (i = 0; i < k; i++) {
		struct ember_chunk *chunk = pmm->cands[pmm->victims[i] < t.n ?
						       pmm->victims[i] : 0];

		victims[i] = chunk->evicting ? NULL : pmm_claim(chunk);
	}
	mutex_unlock(&pmm->lock);

	for (i = 0; i < k; i++)
		if (victims[i])
			pmm_evict_chunk(gpu, victims[i], victims[i]->block,
					EMBER_CAUSE_EVICTION, true);
	kfree(victims);
}

/*
 * Allocates a root chunk for block, evicting the least recently used one
 * when VRAM is full. LOCKING: the caller holds vs->lock (read) and no block
 * lock (eviction takes the victim's).
 */
struct ember_chunk *ember_pmm_alloc(struct ember_gpu *gpu,
				    struct ember_va_space *vs,
				    struct ember_va_block *block,
				    enum ember_cause cause)
{
	struct ember_pmm *pmm = &gpu->pmm;
	struct ember_chunk *chunk;
	unsigned int tries;
	int ret;

	lockdep_assert_held(&vs->lock);
	for (tries = 0; tries < pmm->nchunks + 64; tries++) {
		mutex_lock(&pmm->lock);
		chunk = pmm_take_free(pmm, block);
		mutex_unlock(&pmm->lock);
		if (chunk) {
			if (cause == EMBER_CAUSE_FAULT && vs->policy->pipelined_faults) {
				/*
				 * Populate on its own timeline: it ran while the
				 * previous block copied; this block's copy waits
				 * for it.
				 */
				ember_hw_charge(gpu, EMGPU_DRV_THREAD_POPULATE,
						EMGPU_DRV_ACTION_CHUNK_ALLOC, 1);
				ember_hw_join(gpu, EMGPU_DRV_THREAD_FAULT,
					      EMGPU_DRV_THREAD_POPULATE);
			} else {
				ember_hw_charge(gpu, ember_cause_thread(cause),
						EMGPU_DRV_ACTION_CHUNK_ALLOC, 1);
			}
			return chunk;
		}
		ret = pmm_evict_one(gpu, vs, cause);
		if (ret == -EBUSY)	/* all busy: another thread evicts */
			usleep_range(50, 200);
		else if (ret)
			return ERR_PTR(ret);
	}
	return ERR_PTR(-ENOMEM);
}
