/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ARIADNE (Shin et al., HPCA'26; the Korean summary in the project's
 * papers folder), hardware-neutral: the decisions of ember_policy_ariadne.c,
 * exposed for the CUnit policy suite.
 *
 * Sharing degree (SD): per VA block, the source uTLB ids of its last
 * `history` faults in a circular queue; SD = the number of distinct ids.
 * Many uTLBs faulting on one block means many thread blocks touch it
 * (dense); one means a sparse block.
 *
 * Working chunk set size (WCSS): GPU-resident blocks + zero-copy blocks +
 * blocks evicted within `wcss_keep_ms` (counted only while the GPU-wide
 * average SD is at most `sparse_sd`: a sparse workload re-touches what it
 * lost). WCSS above the GPU's chunks is oversubscription.
 *
 * Eviction: the victim is the chunk with the smallest key
 * last_fault_ns + sd_weight_us x 1000 x SD / history.
 *
 * Dynamic zero-copy: under oversubscription a block evicted and faulted
 * again stays in host memory, mapped (zero-copy), for `zero_copy_ms`
 * instead of returning; an access-counter notification after that
 * promotes it if it is still used.
 *
 * Dynamic prefetching: a fault migrates the whole block when free device
 * memory is at least `ample_free_pct` percent or SD > `prefetch_sd`, else
 * the stock tree-based prefetcher's pages.
 *
 * Proactive eviction: a worker (the policy timer, every
 * `evict_period_us`) evicts by key while free memory is below
 * `evict_free_pct` percent, so that faults rarely evict on the critical
 * path; the fault path itself is pipelined by the driver core (populate of
 * the next block overlapping the copy of this one) when the ops table asks
 * for it.
 */
#ifndef EMBER_POLICY_ARIADNE_H
#define EMBER_POLICY_ARIADNE_H

#include "ember_policy.h"

#define ARIADNE_WINDOW_BUCKETS	64	/* time buckets of a counting window */

/* Module parameters, with the paper's defaults (ARIADNE_PARAMS). */
struct ariadne_params {
	ARIADNE_PARAMS(EMBER_PARAM_FIELD)
};

#define ARIADNE_PARAMS_DEFAULT { ARIADNE_PARAMS(EMBER_PARAM_DEFAULT) }

extern struct ariadne_params ariadne_params;

/* 0, or -1 with the offending parameter, its value and range in msg. */
int ariadne_params_check(const struct ariadne_params *p, char *msg, size_t len);

/* Per VA block (the policy's block_priv, zeroed by the core). */
struct ariadne_block {
	uint16_t utlb[ARIADNE_HISTORY_MAX];	/* circular: uTLB id + 1, 0 = empty */
	uint8_t head;				/* next slot */
	uint8_t sd;				/* distinct ids in utlb[] */
	uint8_t in_zero_copy;			/* counted in the zero-copy window */
	uint8_t in_evicted;			/* counted in the evicted window */
	uint64_t last_fault_ns;
	uint64_t evicted_ns;			/* last eviction, if in_evicted */
	uint64_t zero_copy_ns;			/* zero-copy since, if in_zero_copy */
};

/*
 * Counts events by the time they happened, forgetting those older than
 * the window: ARIADNE_WINDOW_BUCKETS buckets of window / buckets each.
 */
struct ariadne_window {
	uint64_t span_ns;			/* window length */
	uint64_t first;				/* bucket index of count[0] */
	int32_t count[ARIADNE_WINDOW_BUCKETS];
};

/* Per VA space. */
struct ariadne_state {
	struct ariadne_params p;		/* copied at init */
	uint32_t chunks_total;
	uint32_t chunks_used;			/* as last seen */
	uint32_t avg_sd_x16;			/* GPU-wide SD, moving average x 16 */
	struct ariadne_window evicted;		/* evictions not yet returned */
	struct ariadne_window zero_copy;	/* blocks entering zero-copy */
	uint64_t zero_copy_entries;		/* statistics */
	uint64_t promotions;
	uint64_t whole_block_copies;
};

/* Appends fault sources (oldest first) to the history; returns the SD. */
unsigned int ariadne_record_faults(const struct ariadne_params *p,
				   struct ariadne_block *b,
				   const uint16_t *utlb, unsigned int n);
/* Distinct ids in the history. */
unsigned int ariadne_sharing_degree(const struct ariadne_params *p,
				    const struct ariadne_block *b);
/* The eviction priority key: smaller is evicted first. */
uint64_t ariadne_priority_key(const struct ariadne_params *p,
			      const struct ariadne_block *b);

void ariadne_window_init(struct ariadne_window *w, uint64_t span_ns);
void ariadne_window_add(struct ariadne_window *w, uint64_t t_ns, int delta);
/* Events in (now - span, now]. */
int32_t ariadne_window_count(struct ariadne_window *w, uint64_t now_ns);

void ariadne_state_init(struct ariadne_state *s, const struct ariadne_params *p,
			uint32_t chunks_total);
/* Resident + zero-copy + recently evicted (while the average SD is sparse). */
uint32_t ariadne_wcss(struct ariadne_state *s, uint64_t now_ns);

/* The decisions, on the draft ops table's views. */
void ariadne_fault_block(struct ariadne_state *s, struct ariadne_block *b,
			 struct ember_policy_block *blk, const uint16_t *utlb,
			 unsigned int n);
void ariadne_evicted(struct ariadne_state *s, struct ariadne_block *b,
		     uint64_t now_ns);
/* A notification for a block in host memory: true to promote it now. */
bool ariadne_notified(struct ariadne_state *s, struct ariadne_block *b,
		      uint64_t now_ns);
uint32_t ariadne_pick_victim(const struct ariadne_state *s,
			     const struct ember_policy_chunk *cand, uint32_t n);
/* Proactive eviction: fills t->victims by key; returns how many. */
uint32_t ariadne_eager_victims(const struct ariadne_state *s,
			       struct ember_policy_tick *t);

extern const struct ember_policy_ops ember_policy_ariadne;

#endif /* EMBER_POLICY_ARIADNE_H */
