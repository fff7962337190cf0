// SPDX-License-Identifier: GPL-2.0
/*
 * ember_policy_ac.ko: the `ac` policy, an example of a policy written
 * outside ember.ko and registered with ember_register_policy() — the way a
 * researcher adds one without touching the driver.
 *
 * `ac` is access-counter migration with a static threshold, what
 * nvidia-uvm does when its MIMC migration is enabled: faults behave as in
 * the stock `uvm` policy, and a block whose host-resident pages the GPU
 * reads in place (accessed-by advice) moves to the GPU as soon as its
 * counter notifies; nothing is reclaimed early and nothing protects a
 * block from coming back. It is the DESIGN.md baseline between `uvm` and
 * Ember-adaptive. Select it per VA space: ember-run -P ac.
 */
#include <linux/module.h>

#include "ember_policy.h"

/* Faults: as the stock policy (no prefetch beyond the faulted pages). */
static void ac_on_fault_block(void *pdata, struct ember_policy_block *b)
{
	b->dest = b->preferred == EMBER_LOC_CPU ? EMBER_LOC_CPU : EMBER_LOC_GPU;
	b->migrate = b->faulted;
}

/* A notification moves the block's host-resident pages to the GPU. */
static bool ac_on_notification(void *pdata,
			       const struct ember_policy_notification *n,
			       struct ember_policy_block *b)
{
	if (ember_mask_empty(&b->resident_cpu))
		return false;
	b->dest = EMBER_LOC_GPU;
	b->migrate = b->resident_cpu;
	return true;
}

static const struct ember_policy_ops ember_policy_ac = {
	.name = "ac",
	.owner = THIS_MODULE,
	.wants_access_counters = true,
	.on_fault_block = ac_on_fault_block,
	.on_notification = ac_on_notification,
};

static int __init ember_policy_ac_init(void)
{
	return ember_register_policy(&ember_policy_ac);
}

static void __exit ember_policy_ac_exit(void)
{
	ember_unregister_policy(&ember_policy_ac);
}

module_init(ember_policy_ac_init);
module_exit(ember_policy_ac_exit);

MODULE_DESCRIPTION("Ember: access-counter migration policy (example external policy)");
MODULE_LICENSE("GPL");
