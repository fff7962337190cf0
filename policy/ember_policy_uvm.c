// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The `uvm` policy: stock nvidia-uvm behaviour, the paper's baseline.
 *
 *  - Residency (uvm_va_block_select_residency): a fault migrates to the
 *    faulting GPU, unless the block's preferred location is the CPU, in
 *    which case the page stays in (or is created in) host memory and the
 *    GPU maps it remotely.
 *  - Prefetch: the TBN prefetcher (threshold 51 %), or the whole block on
 *    a first touch whose destination is the preferred location.
 *  - Eviction: least recently *made resident* root chunk first (nvidia's
 *    LRU is updated on migration, not on access), on demand, on the
 *    critical path.
 *  - Access counters: ignored (nvidia-uvm disables counter-driven
 *    migration on x86 by default).
 * Hardware-neutral: no kernel interfaces (see ember_policy.h).
 */
#include "ember_policy.h"

struct ember_uvm_params ember_uvm_params = {
	EMBER_UVM_PARAMS(EMBER_PARAM_DEFAULT)
};

static bool block_untouched(const struct ember_policy_block *b)
{
	return ember_mask_empty(&b->resident_cpu) &&
	       ember_mask_empty(&b->resident_gpu);
}

static void uvm_on_fault_block(void *pdata, struct ember_policy_block *b)
{
	(void)pdata;
	if (b->preferred == EMBER_LOC_CPU) {
		b->dest = EMBER_LOC_CPU;
		b->migrate = b->faulted;
		return;
	}
	b->dest = EMBER_LOC_GPU;
	if (!ember_uvm_params.uvm_perf_prefetch_enable) {
		b->migrate = b->faulted;
		return;
	}
	if (b->preferred == EMBER_LOC_GPU && block_untouched(b)) {
		ember_mask_fill(&b->migrate);
		return;
	}
	ember_prefetch_tbn(&b->resident_gpu, &b->faulted,
			   ember_uvm_params.uvm_perf_prefetch_threshold, &b->migrate);
	ember_mask_or(&b->migrate, &b->migrate, &b->faulted);
}

const struct ember_policy_ops ember_policy_uvm = {
	.name = "uvm",
	.on_fault_block = uvm_on_fault_block,
	/* no pick_victim: the least recently made resident chunk goes */
};
