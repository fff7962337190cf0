// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The `ac` policy: access-counter migration with a static threshold, what
 * nvidia-uvm does when its MIMC migration is enabled. Faults behave as in
 * the stock `uvm` policy without prefetch; a block whose host-resident
 * pages the GPU reads in place (accessed-by advice) moves to the GPU as
 * soon as its counter notifies; device memory is reclaimed only on demand,
 * least recently made resident first, and nothing protects a block from
 * coming back. It is the baseline between `uvm` and Ember-adaptive.
 * Hardware-neutral; guest-kmod/ember/modules/ember_ac_module.c registers it
 * from a module of its own, the way a researcher adds a policy.
 */
#include "ember_policy.h"

struct ember_ac_params ember_ac_params = {
	EMBER_AC_PARAMS(EMBER_PARAM_DEFAULT)
};

static void ac_launch_begin(void *pdata, struct ember_policy_launch *l)
{
	(void)pdata;
	l->ac_threshold = ember_ac_params.ac_threshold;
	l->ac_granularity_shift = 21;	/* one counter per 2 MiB VA block */
}

static void ac_on_fault_block(void *pdata, struct ember_policy_block *b)
{
	(void)pdata;
	b->dest = b->preferred == EMBER_LOC_CPU ? EMBER_LOC_CPU : EMBER_LOC_GPU;
	b->migrate = b->faulted;
}

/* A notification asks for its own block only. */
static bool ac_on_notification(void *pdata,
			       const struct ember_policy_notification *n,
			       const struct ember_policy_block *b,
			       struct ember_policy_span *span)
{
	(void)pdata;
	if (!b || ember_mask_empty(&b->resident_cpu))
		return false;
	span->start = b->start;
	span->end = b->start + (1ull << EMBER_BLOCK_SHIFT);
	(void)n;
	return true;
}

static enum ember_promote ac_promote_block(void *pdata,
					   const struct ember_policy_notification *n,
					   struct ember_policy_block *b)
{
	(void)pdata;
	(void)n;
	ember_mask_andnot(&b->migrate, &b->resident_cpu, &b->unmovable);
	if (ember_mask_empty(&b->migrate))
		return EMBER_PROMOTE_SKIP;
	b->dest = EMBER_LOC_GPU;
	return EMBER_PROMOTE_GO;
}

const struct ember_policy_ops ember_policy_ac = {
	.name = "ac",
	.wants_access_counters = true,
	.on_launch_begin = ac_launch_begin,
	.on_fault_block = ac_on_fault_block,
	.on_notification = ac_on_notification,
	.promote_block = ac_promote_block,
};
