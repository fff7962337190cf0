/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ember_adaptive.h: the decisions of Ember-adaptive (Ember paper, sections
 * 5.2, 5.3 and 6.1, Table 1), hardware-neutral.
 *
 * This is the policy's arithmetic and ordering, with no locking, allocation
 * or device access: demand on physical root chunks that halves every
 * interval, migration history on VA blocks, the grace a returning block
 * earns, the lexicographic victim order, which chunks a reclamation pass
 * evicts, and which blocks a promotion span covers. The driver core keeps
 * these structs next to its own chunk and block state and calls these
 * functions under its locks; the same file compiles into ember.ko, into
 * the CUnit suite (tests/unit/policy/) and into nvidia-uvm.
 *
 * Times are the device's clock in ns, never wall time.
 */
#ifndef EMBER_ADAPTIVE_H
#define EMBER_ADAPTIVE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "ember_adaptive_params.h"

/*
 * Table 1 of the paper (ember_adaptive_params.h, the one list of names,
 * defaults, ranges and descriptions), then the experiments outside it:
 * the names are the module parameters'.
 */
struct ember_adaptive_params {
#define EMBER_AP_FIELD(name, def, min, max, desc) unsigned int name;
	EMBER_ADAPTIVE_PARAMS(EMBER_AP_FIELD)
#undef EMBER_AP_FIELD
	/*
	 * Not in Table 1: device ns per "ms" of the parameters above. 0 in
	 * the module parameters (the default) means "scale with the card":
	 * 1000000 x VRAM / the full card's VRAM (ember_adaptive_scale());
	 * ember_adaptive_ms_ns reads 0 as 1000000.
	 */
	uint64_t ns_per_ms;
};

#define EMBER_AP_DEFAULT(name, def, min, max, desc) .name = def,
#define EMBER_ADAPTIVE_PARAMS_DEFAULT { EMBER_ADAPTIVE_PARAMS(EMBER_AP_DEFAULT) }

/*
 * Checks every parameter's range (the list's) and their relations (low
 * watermark below the high one, grace cap at least the base grace, ...). Returns 0, or -1
 * with a message naming the parameter in msg.
 */
int ember_adaptive_params_check(const struct ember_adaptive_params *p,
				char *msg, size_t len);

/*
 * Migration score: fixed point with EMBER_SCORE_ONE per point, so halving
 * keeps fractions. A block gains one point per 2 MiB that returns to the
 * GPU within the return window of its eviction.
 */
#define EMBER_SCORE_SHIFT	10
#define EMBER_SCORE_ONE		(1u << EMBER_SCORE_SHIFT)

/* Per VA block: migration history (section 5.1). */
struct ember_block_history {
	uint64_t last_evict_ns;		/* 0: never evicted */
	uint64_t score_ns;		/* when score was last decayed */
	uint32_t score;			/* fixed point, EMBER_SCORE_ONE = 1 */
};

/* Per resident root chunk: decayed demand and protection (section 5.3). */
struct ember_chunk_demand {
	uint64_t demand;		/* accesses, halved every interval */
	uint64_t arrived_ns;		/* residency start */
	uint64_t grace_until_ns;	/* protected until then */
	uint32_t score;			/* block's score at arrival, fixed point */
	uint32_t zero_intervals;	/* consecutive intervals at zero demand */
	bool resident;			/* backs a resident block */
	bool inflight;			/* its block is migrating: not a candidate */
};

/* Decays a block's score to now: halves once per decay period elapsed. */
void ember_block_decay_score(const struct ember_adaptive_params *p,
			     struct ember_block_history *b, uint64_t now_ns);

/*
 * An evicted block's pages come back to the GPU: a return within the
 * window of its eviction raises its score by one point per 2 MiB
 * (pages / 512).
 */
void ember_block_returned(const struct ember_adaptive_params *p,
			  struct ember_block_history *b, unsigned int pages,
			  uint64_t now_ns);

/*
 * A block's pages arrive on the GPU (promotion or fault): the chunk backing
 * it starts (or renews) its residency with the grace the block's score
 * earns and with demand (the notification's count, or 0 for a GPU first
 * touch).
 */
void ember_chunk_arrive(const struct ember_adaptive_params *p,
			struct ember_block_history *b,
			struct ember_chunk_demand *c, uint64_t demand,
			uint64_t now_ns);

/* Both of the above: a return (if it is one) and the arrival. */
void ember_block_arrive(const struct ember_adaptive_params *p,
			struct ember_block_history *b,
			struct ember_chunk_demand *c, unsigned int pages,
			uint64_t demand, uint64_t now_ns);

/* The block was evicted at now: remember it to recognise a return. */
void ember_block_evicted(struct ember_block_history *b,
			 struct ember_chunk_demand *c, uint64_t now_ns);

/*
 * The scaling rule (docs/model.md) for a GPU with vram bytes standing
 * for a card of full_vram (the device's VRAM_SIZE and FULL_VRAM_SIZE):
 * with k = full_vram / vram, Table 1's values, which are the full card's,
 * shrink by k where they are a share of the card: the periods (ns_per_ms
 * = 0 resolves to 1000000 / k, at least 1; a given ns_per_ms is kept),
 * the promotion span (even MiB, at least one 2 MiB block) and the
 * reclamation batch (rounded, at least one chunk). k = 1 (an unscaled
 * card, or a profile with the rule off) changes nothing.
 */
void ember_adaptive_scale(struct ember_adaptive_params *p, uint64_t vram,
			  uint64_t full_vram);

/* A parameter in ms as device ns, in the params' time unit. */
uint64_t ember_adaptive_ms_ns(const struct ember_adaptive_params *p,
			      unsigned int ms);

/* Grace period for a score: base + score x per-point grace, capped (ns). */
uint64_t ember_grace_ns(const struct ember_adaptive_params *p, uint32_t score);

/* A notification's count added to the chunk backing the notified block. */
void ember_chunk_add_demand(struct ember_chunk_demand *c, uint32_t count);

/* One aging interval: halve each chunk's demand, count silent intervals. */
void ember_age_chunks(struct ember_chunk_demand *const *chunks, size_t n);

/*
 * Victim order, lexicographic (section 5.3): unprotected before protected
 * (protected ones by earliest expiry), then lowest migration score, oldest
 * residency, lowest decayed demand. Without migration-aware eviction
 * (perf_migration_aware_eviction_enable=0) neither protection nor score
 * takes part: oldest residency, then lowest demand. Returns <0 when a is
 * evicted before b.
 */
int ember_victim_cmp(const struct ember_adaptive_params *p,
		     const struct ember_chunk_demand *a,
		     const struct ember_chunk_demand *b, uint64_t now_ns);

/* Index of the first victim among chunks[0..n) (not inflight), or n. */
size_t ember_victim_first(const struct ember_adaptive_params *p,
			  struct ember_chunk_demand *const *chunks, size_t n,
			  uint64_t now_ns);

/*
 * One reclamation pass over the chunks (in any order): reorders chunks[] so
 * that its first k entries are the victims, in eviction order, and returns
 * k (at most batch_count).
 *  - used/total chunks above the high watermark: evict in victim order
 *    until usage reaches the low watermark; protection only orders them, so
 *    a fully protected memory still frees space;
 *  - otherwise: evict unprotected chunks that are cold, i.e. silent for
 *    stale_intervals intervals, or whose demand times heat_ratio is at most
 *    the hottest chunk's demand.
 * waiting_demand is the highest count of a notification whose promotion
 * halted for lack of room since the last pass: demand waiting outside the
 * GPU competes with the resident chunks' for the heat ratio (online region
 * replacement: a resident region twice as cold as a waiting one makes way),
 * since the counters see only host memory. With ember_replace_on_demand
 * (an experiment outside the paper) nothing is evicted below the high
 * watermark unless waiting_demand is non-zero. Chunks not resident or in
 * flight are never chosen. Call after ember_age_chunks().
 */
size_t ember_reclaim_select(const struct ember_adaptive_params *p,
			    struct ember_chunk_demand **chunks, size_t n,
			    size_t used, size_t total, uint64_t waiting_demand,
			    uint64_t now_ns);

/* Whether one more chunk may be promoted into without crossing the high watermark. */
bool ember_promotion_has_room(const struct ember_adaptive_params *p,
			      size_t used, size_t total);

/*
 * The promotion span around a notified block: cpu_preferred_prefetch_chunk_mb
 * of VA, 2 MiB aligned, centred on the block and shifted to stay inside
 * [alloc_start, alloc_end). Returns the span in *start and *end. (Whether
 * to promote at all is cpu_preferred_block_promotion_enable's, asked by the
 * caller.)
 */
void ember_promotion_span(const struct ember_adaptive_params *p,
			  uint64_t block_va, uint64_t alloc_start,
			  uint64_t alloc_end, uint64_t *start, uint64_t *end);

#endif /* EMBER_ADAPTIVE_H */
