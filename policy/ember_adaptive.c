// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ember_adaptive.c: Ember-adaptive's decisions (see ember_adaptive.h).
 * Plain C: no locks, no allocation, no device; the driver core calls in
 * under its own locks.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#ifndef UINT32_MAX
#define UINT32_MAX U32_MAX
#endif
#else
#include <stdio.h>
#include <string.h>
#endif

#include "ember_adaptive.h"

#define NS_PER_MS		1000000ull
#define PAGES_PER_2M		512u
#define SPAN_ALIGN		(2ull << 20)

static int check_range(char *msg, size_t len, const char *name,
		       unsigned int v, unsigned int min, unsigned int max)
{
	if (v >= min && v <= max)
		return 0;
	snprintf(msg, len, "%s=%u is out of range [%u, %u]", name, v, min, max);
	return -1;
}

int ember_adaptive_params_check(const struct ember_adaptive_params *p,
				char *msg, size_t len)
{
#define RANGE(field, def, min, max, desc)				\
	do {								\
		if (check_range(msg, len, #field, p->field, min, max))	\
			return -1;					\
	} while (0);
	EMBER_ADAPTIVE_PARAMS(RANGE)
#undef RANGE
	if (p->cpu_preferred_prefetch_chunk_mb % 2) {
		snprintf(msg, len, "cpu_preferred_prefetch_chunk_mb=%u is not a multiple of 2 (VA blocks are 2 MiB)",
			 p->cpu_preferred_prefetch_chunk_mb);
		return -1;
	}
	if (p->perf_eager_eviction_low_watermark >= p->perf_eager_eviction_high_watermark) {
		snprintf(msg, len, "perf_eager_eviction_low_watermark=%u must be below perf_eager_eviction_high_watermark=%u",
			 p->perf_eager_eviction_low_watermark,
			 p->perf_eager_eviction_high_watermark);
		return -1;
	}
	if (p->perf_migration_eviction_max_grace_ms < p->perf_migration_eviction_base_grace_ms) {
		snprintf(msg, len, "perf_migration_eviction_max_grace_ms=%u is below perf_migration_eviction_base_grace_ms=%u",
			 p->perf_migration_eviction_max_grace_ms,
			 p->perf_migration_eviction_base_grace_ms);
		return -1;
	}
	return 0;
}

uint64_t ember_adaptive_ms_ns(const struct ember_adaptive_params *p,
			      unsigned int ms)
{
	return (uint64_t)ms * (p->ns_per_ms ? p->ns_per_ms : NS_PER_MS);
}

void ember_block_decay_score(const struct ember_adaptive_params *p,
			     struct ember_block_history *b, uint64_t now_ns)
{
	uint64_t period = ember_adaptive_ms_ns(p, p->perf_migration_eviction_decay_ms);
	uint64_t halvings;

	if (now_ns <= b->score_ns)
		return;
	halvings = (now_ns - b->score_ns) / period;
	if (!halvings)
		return;
	b->score = halvings >= 32 ? 0 : b->score >> halvings;
	b->score_ns += halvings * period;
}

uint64_t ember_grace_ns(const struct ember_adaptive_params *p, uint32_t score)
{
	uint64_t ms;

	if (!p->perf_migration_aware_eviction_enable)
		return 0;
	ms = p->perf_migration_eviction_base_grace_ms +
	     ((uint64_t)score * p->perf_migration_eviction_score_grace_ms >>
	      EMBER_SCORE_SHIFT);
	if (ms > p->perf_migration_eviction_max_grace_ms)
		ms = p->perf_migration_eviction_max_grace_ms;
	return ember_adaptive_ms_ns(p, (unsigned int)ms);
}

void ember_adaptive_scale(struct ember_adaptive_params *p, uint64_t vram,
			  uint64_t full_vram)
{
	uint64_t span_mb, batch;

	if (!full_vram || !vram || vram >= full_vram) {	/* k = 1 */
		if (!p->ns_per_ms)
			p->ns_per_ms = NS_PER_MS;
		return;
	}
	if (!p->ns_per_ms)
		p->ns_per_ms = NS_PER_MS * vram / full_vram;
	if (!p->ns_per_ms)
		p->ns_per_ms = 1;
	/* the span stays whole 2 MiB blocks, at least one */
	span_mb = (uint64_t)p->cpu_preferred_prefetch_chunk_mb * vram / full_vram;
	span_mb &= ~1ull;
	p->cpu_preferred_prefetch_chunk_mb = span_mb < 2 ? 2 : (unsigned int)span_mb;
	batch = ((uint64_t)p->perf_eager_eviction_batch_count * vram + full_vram / 2) /
		full_vram;
	p->perf_eager_eviction_batch_count = batch ? (unsigned int)batch : 1;
}

static void block_start_history(const struct ember_adaptive_params *p,
				struct ember_block_history *b, uint64_t now_ns)
{
	if (!b->score_ns)
		b->score_ns = now_ns;
	ember_block_decay_score(p, b, now_ns);
}

void ember_block_returned(const struct ember_adaptive_params *p,
			  struct ember_block_history *b, unsigned int pages,
			  uint64_t now_ns)
{
	uint64_t window = ember_adaptive_ms_ns(p,
					       p->perf_migration_eviction_return_window_ms);

	block_start_history(p, b, now_ns);
	if (b->last_evict_ns && now_ns - b->last_evict_ns <= window)
		b->score += (uint32_t)((uint64_t)pages * EMBER_SCORE_ONE / PAGES_PER_2M);
}

void ember_block_arrive(const struct ember_adaptive_params *p,
			struct ember_block_history *b,
			struct ember_chunk_demand *c, unsigned int pages,
			uint64_t demand, uint64_t now_ns)
{
	ember_block_returned(p, b, pages, now_ns);
	ember_chunk_arrive(p, b, c, demand, now_ns);
}

void ember_chunk_arrive(const struct ember_adaptive_params *p,
			struct ember_block_history *b,
			struct ember_chunk_demand *c, uint64_t demand,
			uint64_t now_ns)
{
	block_start_history(p, b, now_ns);
	c->demand += demand;
	if (!c->resident) {
		c->resident = true;
		c->arrived_ns = now_ns;
		c->zero_intervals = 0;
	}
	c->score = b->score;
	c->grace_until_ns = now_ns + ember_grace_ns(p, b->score);
}

void ember_block_evicted(struct ember_block_history *b,
			 struct ember_chunk_demand *c, uint64_t now_ns)
{
	b->last_evict_ns = now_ns ? now_ns : 1;
	memset(c, 0, sizeof(*c));
}

void ember_chunk_add_demand(struct ember_chunk_demand *c, uint32_t count)
{
	c->demand += count;
	c->zero_intervals = 0;
}

void ember_age_chunks(struct ember_chunk_demand *const *chunks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct ember_chunk_demand *c = chunks[i];

		if (!c->resident)
			continue;
		c->demand >>= 1;
		if (c->demand)
			c->zero_intervals = 0;
		else if (c->zero_intervals < UINT32_MAX)
			c->zero_intervals++;
	}
}

static bool is_protected(const struct ember_chunk_demand *c, uint64_t now_ns)
{
	return c->grace_until_ns > now_ns;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

int ember_victim_cmp(const struct ember_adaptive_params *p,
		     const struct ember_chunk_demand *a,
		     const struct ember_chunk_demand *b, uint64_t now_ns)
{
	bool pa, pb;
	int r;

	if (p->perf_migration_aware_eviction_enable) {
		pa = is_protected(a, now_ns);
		pb = is_protected(b, now_ns);
		if (pa != pb)
			return pa ? 1 : -1;
		if (pa && (r = cmp_u64(a->grace_until_ns, b->grace_until_ns)))
			return r;	/* all protected: the first to expire goes */
		if ((r = cmp_u64(a->score, b->score)))
			return r;
	}
	if ((r = cmp_u64(a->arrived_ns, b->arrived_ns)))
		return r;
	return cmp_u64(a->demand, b->demand);
}

size_t ember_victim_first(const struct ember_adaptive_params *p,
			  struct ember_chunk_demand *const *chunks, size_t n,
			  uint64_t now_ns)
{
	size_t i, best = n;

	for (i = 0; i < n; i++) {
		if (chunks[i]->inflight)
			continue;
		if (best == n || ember_victim_cmp(p, chunks[i], chunks[best],
						  now_ns) < 0)
			best = i;
	}
	return best;
}

static void swap_chunks(struct ember_chunk_demand **c, size_t i, size_t j)
{
	struct ember_chunk_demand *t = c[i];

	c[i] = c[j];
	c[j] = t;
}

/*
 * Moves the first `want` chunks in victim order among c[0..n) to the front
 * (selection: want passes, so a pass costs batch x n, not a full sort).
 */
static size_t select_front(const struct ember_adaptive_params *p,
			   struct ember_chunk_demand **c, size_t n, size_t want,
			   uint64_t now_ns)
{
	size_t k, i, best;

	if (want > n)
		want = n;
	for (k = 0; k < want; k++) {
		best = k;
		for (i = k + 1; i < n; i++)
			if (ember_victim_cmp(p, c[i], c[best], now_ns) < 0)
				best = i;
		swap_chunks(c, k, best);
	}
	return want;
}

static bool is_cold(const struct ember_adaptive_params *p,
		    const struct ember_chunk_demand *c, uint64_t hottest)
{
	if (c->zero_intervals >= p->perf_eager_eviction_stale_intervals)
		return true;
	return hottest && c->demand * p->perf_eager_eviction_heat_ratio <= hottest;
}

size_t ember_reclaim_select(const struct ember_adaptive_params *p,
			    struct ember_chunk_demand **chunks, size_t n,
			    size_t used, size_t total, uint64_t waiting_demand,
			    uint64_t now_ns)
{
	size_t batch = p->perf_eager_eviction_batch_count, i, m = 0, k, low;
	uint64_t hottest = 0;

	if (!p->perf_eager_eviction_enable || !total)
		return 0;
	/* candidates first: resident and not migrating */
	for (i = 0; i < n; i++)
		if (chunks[i]->resident && !chunks[i]->inflight)
			swap_chunks(chunks, m++, i);

	if (used * 100 > (size_t)p->perf_eager_eviction_high_watermark * total) {
		low = (size_t)p->perf_eager_eviction_low_watermark * total / 100;
		k = used - low;
		return select_front(p, chunks, m, k < batch ? k : batch, now_ns);
	}

	if (p->ember_replace_on_demand && !waiting_demand)
		return 0;	/* the experiment: no promotion waits */
	hottest = waiting_demand;
	for (i = 0; i < m; i++)
		if (chunks[i]->demand > hottest)
			hottest = chunks[i]->demand;
	/* below the high watermark: only unprotected cold chunks */
	for (i = k = 0; i < m; i++)
		if (!is_protected(chunks[i], now_ns) && is_cold(p, chunks[i], hottest))
			swap_chunks(chunks, k++, i);
	return select_front(p, chunks, k, batch, now_ns);
}

bool ember_promotion_has_room(const struct ember_adaptive_params *p,
			      size_t used, size_t total)
{
	return (used + 1) * 100 <= (size_t)p->perf_eager_eviction_high_watermark * total;
}

void ember_promotion_span(const struct ember_adaptive_params *p,
			  uint64_t block_va, uint64_t alloc_start,
			  uint64_t alloc_end, uint64_t *start, uint64_t *end)
{
	uint64_t span = (uint64_t)p->cpu_preferred_prefetch_chunk_mb << 20;
	uint64_t lo = alloc_start & ~(SPAN_ALIGN - 1);
	uint64_t hi = (alloc_end + SPAN_ALIGN - 1) & ~(SPAN_ALIGN - 1);
	uint64_t block = block_va & ~(SPAN_ALIGN - 1);
	uint64_t s;

	if (span < SPAN_ALIGN)
		span = SPAN_ALIGN;
	if (hi - lo <= span) {
		*start = lo;
		*end = hi;
		return;
	}
	/* centred: as many blocks before the notified one as after it */
	s = block + SPAN_ALIGN / 2 > lo + span / 2 ?
	    ((block + SPAN_ALIGN / 2 - span / 2) & ~(SPAN_ALIGN - 1)) : lo;
	if (s < lo)
		s = lo;
	if (s + span > hi)
		s = hi - span;	/* shifted at the allocation's end */
	*start = s;
	*end = s + span;
}
