/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ember_policy_ember.h: the `ember` policy (Ember-adaptive) decisions that
 * work on ember_policy.h's views, hardware-neutral like ember_adaptive.h.
 * The driver glue (ember_adaptive_drv.c in ember.ko) owns the ops table,
 * the parameters and the migration engine, and calls these.
 */
#ifndef EMBER_POLICY_EMBER_H
#define EMBER_POLICY_EMBER_H

#include "ember_adaptive.h"
#include "ember_policy.h"

/*
 * A GPU fault under mapped-by-default (section 5.2, fault-driven
 * promotion). Mapped pages never fault, so a faulted page is either
 * unpopulated or a host page not mapped yet:
 *  - a host-resident faulted page: keep everything on the host, map it;
 *  - only unpopulated pages: create them in device memory (no transfer),
 *    the whole block if it was never touched, else their 64 KiB groups'
 *    unpopulated pages; on the host instead when that would need a new
 *    root chunk above the high watermark, so faults never evict.
 */
void ember_policy_ember_fault(const struct ember_adaptive_params *p,
			      struct ember_policy_block *b);

/* Whether a notification earns promotion (section 5.2's threshold). */
bool ember_policy_ember_wants_promotion(const struct ember_adaptive_params *p,
					const struct ember_policy_notification *n);

/*
 * The pages of a block a promotion moves: its host-resident pages minus
 * those the driver protects (protect: lost, pinned, ...). Returns false
 * when there is nothing to move.
 */
bool ember_policy_ember_promote_mask(const struct ember_policy_block *b,
				     const struct ember_page_mask *protect,
				     struct ember_page_mask *out);

#endif /* EMBER_POLICY_EMBER_H */
