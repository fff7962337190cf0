// SPDX-License-Identifier: GPL-2.0
/*
 * ember_hooktest.ko: a policy module for the VM tests that implements every
 * hook of the ops table, so that a run under it shows, by ember.ko's
 * hook_calls counters, that the driver calls each one. Its decisions are
 * deliberately simple but real (they move data): faults on even blocks go
 * to the GPU, on odd ones stay on the host mapped with access counting,
 * and each notification promotes its own block; a timer tick with device
 * memory full reclaims the oldest idle chunk; on-demand victims are the
 * least recently arrived.
 *
 * mode= makes the module register a malformed table instead, to check that
 * ember_register_policy() refuses it: "nofault" (no on_fault_block),
 * "longname" (16 characters), "dupname" (the name "uvm", taken). The load
 * then fails with what registration returned.
 */
#include <linux/module.h>
#include <linux/string.h>

#include "ember_policy.h"

static char *mode = "";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "\"\" (a good table), nofault, longname or dupname");

struct hooktest_block {
	u64 arrivals;
};

struct hooktest_chunk {
	u64 arrived_ns;
};

static int ht_init(void **pdata, const struct ember_policy_env *env)
{
	*pdata = ember_policy_zalloc(sizeof(u64));
	return *pdata ? 0 : -ENOMEM;
}

static void ht_fini(void *pdata)
{
	ember_policy_free(pdata);
}

static void ht_launch_begin(void *pdata, struct ember_policy_launch *l)
{
	l->ac_threshold = 64;
	l->ac_granularity_shift = 21;
	l->timer_period_ns = 2000000;	/* 2 ms of device time: faults evict too */
}

static void ht_launch_end(void *pdata, const struct ember_policy_launch *l)
{
	(*(u64 *)pdata)++;	/* launches seen */
}

static void ht_fault(void *pdata, struct ember_policy_block *b)
{
	b->dest = (b->start >> EMBER_BLOCK_SHIFT) & 1 ? EMBER_LOC_CPU :
							EMBER_LOC_GPU;
	b->migrate = b->faulted;
}

static bool ht_notification(void *pdata,
			    const struct ember_policy_notification *n,
			    const struct ember_policy_block *b,
			    struct ember_policy_span *span)
{
	span->start = n->va & ~((1ull << EMBER_BLOCK_SHIFT) - 1);
	span->end = span->start + (1ull << EMBER_BLOCK_SHIFT);
	return true;
}

static enum ember_promote ht_promote(void *pdata,
				     const struct ember_policy_notification *n,
				     struct ember_policy_block *b)
{
	ember_mask_andnot(&b->migrate, &b->resident_cpu, &b->unmovable);
	if (ember_mask_empty(&b->migrate))
		return EMBER_PROMOTE_SKIP;
	b->dest = EMBER_LOC_GPU;
	return EMBER_PROMOTE_GO;
}

static void ht_tick(void *pdata, struct ember_policy_tick *t)
{
}

/* The least recently arrived idle chunk, or index n when none is. */
static u32 ht_oldest(const struct ember_policy_chunk *c, u32 n)
{
	u32 i, best = n;

	for (i = 0; i < n; i++) {
		const struct hooktest_chunk *hc = c[i].priv;

		if (c[i].busy)
			continue;
		if (best == n || hc->arrived_ns <
		    ((const struct hooktest_chunk *)c[best].priv)->arrived_ns)
			best = i;
	}
	return best;
}

static u32 ht_eager(void *pdata, struct ember_policy_tick *t)
{
	u32 i = ht_oldest(t->chunks, t->n);

	/* only when memory is full: the fault path must meet it too */
	if (i == t->n || t->chunks_used < t->chunks_total)
		return 0;
	t->victims[0] = i;
	return 1;
}

static u32 ht_pick_victim(void *pdata, const struct ember_policy_chunk *cand,
			  u32 n, u64 now_ns)
{
	u32 i = ht_oldest(cand, n);

	return i == n ? 0 : i;
}

static void ht_arrive(void *pdata, const struct ember_policy_residency *r)
{
	struct hooktest_chunk *hc = r->chunk_priv;
	struct hooktest_block *hb = r->block_priv;

	hc->arrived_ns = r->now_ns;
	hb->arrivals++;
}

static void ht_return(void *pdata, const struct ember_policy_residency *r)
{
}

static void ht_evict(void *pdata, const struct ember_policy_residency *r)
{
}

static struct ember_policy_ops hooktest_ops = {
	.name = "hooktest",
	.owner = THIS_MODULE,
	.wants_access_counters = true,
	.block_priv_size = sizeof(struct hooktest_block),
	.chunk_priv_size = sizeof(struct hooktest_chunk),
	.init = ht_init,
	.fini = ht_fini,
	.on_launch_begin = ht_launch_begin,
	.on_launch_end = ht_launch_end,
	.on_fault_block = ht_fault,
	.on_notification = ht_notification,
	.promote_block = ht_promote,
	.on_timer_tick = ht_tick,
	.pick_eager_victims = ht_eager,
	.pick_victim = ht_pick_victim,
	.on_arrive = ht_arrive,
	.on_return = ht_return,
	.on_evict = ht_evict,
};

static int __init hooktest_init(void)
{
	if (!strcmp(mode, "nofault"))
		hooktest_ops.on_fault_block = NULL;
	else if (!strcmp(mode, "longname"))
		hooktest_ops.name = "sixteen-chars-xx";
	else if (!strcmp(mode, "dupname"))
		hooktest_ops.name = "uvm";
	else if (mode[0])
		return -EINVAL;
	return ember_register_policy(&hooktest_ops);
}

static void __exit hooktest_exit(void)
{
	ember_unregister_policy(&hooktest_ops);
}

module_init(hooktest_init);
module_exit(hooktest_exit);

MODULE_DESCRIPTION("Ember: a test policy implementing every hook");
MODULE_LICENSE("GPL");
