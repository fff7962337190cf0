// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The `ember` policy's decisions on ember_policy.h views (see
 * ember_policy_ember.h). Hardware-neutral: no kernel interfaces.
 */
#include "ember_policy_ember.h"

static bool block_untouched(const struct ember_policy_block *b)
{
	return ember_mask_empty(&b->resident_cpu) &&
	       ember_mask_empty(&b->resident_gpu);
}

void ember_policy_ember_fault(const struct ember_adaptive_params *p,
			      struct ember_policy_block *b)
{
	struct ember_page_mask host, untouched;
	unsigned int i, g;

	/* a faulted page with a host copy: map it, move nothing */
	for (i = 0; i < EMBER_MASK_WORDS; i++)
		host.w[i] = b->faulted.w[i] & b->resident_cpu.w[i];
	if (!ember_mask_empty(&host) ||
	    (ember_mask_empty(&b->resident_gpu) &&
	     !ember_promotion_has_room(p, b->chunks_used, b->chunks_total))) {
		b->dest = EMBER_LOC_CPU;
		b->migrate = b->faulted;
		return;
	}
	b->dest = EMBER_LOC_GPU;
	if (block_untouched(b)) {
		ember_mask_fill(&b->migrate);
		return;
	}
	ember_mask_or(&untouched, &b->resident_cpu, &b->resident_gpu);
	ember_mask_zero(&b->migrate);
	for (g = 0; g < EMBER_BLOCK_PAGES; g += EMBER_BIG_PAGES) {
		if (!ember_mask_count_range(&b->faulted, g, EMBER_BIG_PAGES))
			continue;
		for (i = g; i < g + EMBER_BIG_PAGES; i++)
			if (!ember_mask_test(&untouched, i))
				ember_mask_set(&b->migrate, i);
	}
	ember_mask_or(&b->migrate, &b->migrate, &b->faulted);
}

bool ember_policy_ember_wants_promotion(const struct ember_adaptive_params *p,
					const struct ember_policy_notification *n)
{
	return n->counter >= p->perf_access_counter_threshold;
}

bool ember_policy_ember_promote_mask(const struct ember_policy_block *b,
				     const struct ember_page_mask *protect,
				     struct ember_page_mask *out)
{
	ember_mask_andnot(out, &b->resident_cpu, protect);
	return !ember_mask_empty(out);
}
