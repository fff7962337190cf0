/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ember_policy_ember.h: the `ember` policy, Ember-adaptive (the Ember
 * paper's sections 4.3, 5 and 6.1, Table 1), as an ops table over
 * ember_adaptive.h's arithmetic. Hardware-neutral: a driver carries out
 * what the hooks decide; its glue binds Table 1's module parameters to
 * ember_adaptive_params and registers ember_policy_ember.
 *
 *  - mapped by default: blocks start with preferred location CPU and
 *    accessed-by GPU, so host pages are mapped as sysmem with access
 *    counting, never faulted;
 *  - faults (fault-driven promotion): GPU first-touch pages are created in
 *    device memory, host pages are mapped (ember_policy_ember_fault);
 *  - access monitor: a notification's count goes to the decayed demand of
 *    the root chunk backing its block (per-chunk state: ember_chunk_demand);
 *  - promotion: a notification at perf_access_counter_threshold asks for
 *    the span of cpu_preferred_prefetch_chunk_mb around its block (none
 *    with cpu_preferred_block_promotion_enable=0); each block's host pages
 *    move until the high watermark stops the span;
 *  - eager reclamation: every perf_eager_eviction_interval_ms the timer
 *    halves demand and the pass picks victims (ember_reclaim_select);
 *  - on-demand eviction: the victim order of section 5.3;
 *  - migration history (per-block state: ember_block_history): arrival,
 *    eviction and return times, score and grace.
 * A range the application advised or prefetched itself is left to it
 * (section 4): stock fault handling, no promotion.
 */
#ifndef EMBER_POLICY_EMBER_H
#define EMBER_POLICY_EMBER_H

#include "ember_adaptive.h"
#include "ember_policy.h"

/* Table 1's values, bound to module parameters by the driver's glue. */
extern struct ember_adaptive_params ember_params;
extern const struct ember_policy_ops ember_policy_ember;

/* Checks ember_params at load: 0, or -1 with the reason in msg. */
int ember_policy_ember_check(char *msg, size_t len);

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
 * the unmovable ones. Returns false when there is nothing to move.
 */
bool ember_policy_ember_promote_mask(const struct ember_policy_block *b,
				     struct ember_page_mask *out);

#endif /* EMBER_POLICY_EMBER_H */
