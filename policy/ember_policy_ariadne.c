// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The `ariadne` policy (ember_policy_ariadne.h says what it does and
 * where each number comes from). Hardware-neutral: the same source builds
 * into ember_ariadne.ko (guest-kmod/ember/modules/ember_ariadne_module.c) and
 * the CUnit policy suite.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/stddef.h>
#include <linux/string.h>
#ifndef UINT64_MAX
#define UINT64_MAX U64_MAX
#endif
#else
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#endif

#include "ember_policy_ariadne.h"

#define NS_PER_US	1000ull
#define NS_PER_MS	1000000ull

struct ariadne_params ariadne_params = ARIADNE_PARAMS_DEFAULT;

/* Each parameter's valid range (ARIADNE_PARAMS), checked in its order. */
static const struct {
	const char *name;
	size_t offset;
	unsigned int min, max;
} ariadne_param_ranges[] = {
#define ARIADNE_RANGE(f, def, lo, hi, desc) { #f, offsetof(struct ariadne_params, f), lo, hi },
	ARIADNE_PARAMS(ARIADNE_RANGE)
#undef ARIADNE_RANGE
};

int ariadne_params_check(const struct ariadne_params *p, char *msg, size_t len)
{
	unsigned int i, v;

	for (i = 0; i < sizeof(ariadne_param_ranges) / sizeof(ariadne_param_ranges[0]); i++) {
		memcpy(&v, (const char *)p + ariadne_param_ranges[i].offset, sizeof(v));
		if (v < ariadne_param_ranges[i].min || v > ariadne_param_ranges[i].max) {
			snprintf(msg, len, "%s=%u is out of range [%u, %u]",
				 ariadne_param_ranges[i].name, v,
				 ariadne_param_ranges[i].min,
				 ariadne_param_ranges[i].max);
			return -1;
		}
	}
	return 0;
}

/* ---- sharing degree and priority key ---- */

unsigned int ariadne_sharing_degree(const struct ariadne_params *p,
				    const struct ariadne_block *b)
{
	unsigned int i, j, sd = 0;

	for (i = 0; i < p->history; i++) {
		if (!b->utlb[i])
			continue;
		for (j = 0; j < i && b->utlb[j] != b->utlb[i]; j++)
			;
		sd += j == i;
	}
	return sd;
}

unsigned int ariadne_record_faults(const struct ariadne_params *p,
				   struct ariadne_block *b,
				   const uint16_t *utlb, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (utlb[i] >= 0xffffu)
			continue;
		b->utlb[b->head] = (uint16_t)(utlb[i] + 1);
		b->head = (uint8_t)((b->head + 1) % p->history);
	}
	b->sd = (uint8_t)ariadne_sharing_degree(p, b);
	return b->sd;
}

uint64_t ariadne_priority_key(const struct ariadne_params *p,
			      const struct ariadne_block *b)
{
	return b->last_fault_ns +
	       (uint64_t)p->sd_weight_us * NS_PER_US * b->sd / p->history;
}

/* ---- counting windows ---- */

void ariadne_window_init(struct ariadne_window *w, uint64_t span_ns)
{
	memset(w, 0, sizeof(*w));
	w->span_ns = span_ns;
}

static uint64_t window_width(const struct ariadne_window *w)
{
	uint64_t width = w->span_ns / ARIADNE_WINDOW_BUCKETS;

	return width ? width : 1;
}

/* Moves the window so that bucket idx is its newest. */
static void window_advance(struct ariadne_window *w, uint64_t idx)
{
	if (idx < w->first + ARIADNE_WINDOW_BUCKETS)
		return;
	if (idx - w->first >= 2 * ARIADNE_WINDOW_BUCKETS) {
		memset(w->count, 0, sizeof(w->count));
		w->first = idx - (ARIADNE_WINDOW_BUCKETS - 1);
		return;
	}
	while (w->first + ARIADNE_WINDOW_BUCKETS <= idx)
		w->count[w->first++ % ARIADNE_WINDOW_BUCKETS] = 0;
}

void ariadne_window_add(struct ariadne_window *w, uint64_t t_ns, int delta)
{
	uint64_t idx = t_ns / window_width(w);

	if (idx < w->first)
		return;		/* already forgotten */
	window_advance(w, idx);
	w->count[idx % ARIADNE_WINDOW_BUCKETS] += delta;
}

int32_t ariadne_window_count(struct ariadne_window *w, uint64_t now_ns)
{
	int32_t n = 0;
	unsigned int i;

	window_advance(w, now_ns / window_width(w));
	for (i = 0; i < ARIADNE_WINDOW_BUCKETS; i++)
		n += w->count[i];
	return n > 0 ? n : 0;
}

/* ---- WCSS ---- */

void ariadne_state_init(struct ariadne_state *s, const struct ariadne_params *p,
			uint32_t chunks_total)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->chunks_total = chunks_total;
	ariadne_window_init(&s->evicted, (uint64_t)p->wcss_keep_ms * NS_PER_MS);
	ariadne_window_init(&s->zero_copy, (uint64_t)p->zero_copy_ms * NS_PER_MS);
}

uint32_t ariadne_wcss(struct ariadne_state *s, uint64_t now_ns)
{
	uint32_t wcss = s->chunks_used +
			(uint32_t)ariadne_window_count(&s->zero_copy, now_ns);

	if (s->avg_sd_x16 <= 16 * s->p.sparse_sd)
		wcss += (uint32_t)ariadne_window_count(&s->evicted, now_ns);
	return wcss;
}

/* ---- decisions ---- */

static void leave_zero_copy(struct ariadne_state *s, struct ariadne_block *b)
{
	if (b->in_zero_copy)
		ariadne_window_add(&s->zero_copy, b->zero_copy_ns, -1);
	b->in_zero_copy = 0;
}

static void leave_evicted(struct ariadne_state *s, struct ariadne_block *b)
{
	if (b->in_evicted)
		ariadne_window_add(&s->evicted, b->evicted_ns, -1);
	b->in_evicted = 0;
}

static bool zero_copy_current(const struct ariadne_state *s,
			      const struct ariadne_block *b, uint64_t now_ns)
{
	return b->in_zero_copy &&
	       now_ns - b->zero_copy_ns < (uint64_t)s->p.zero_copy_ms * NS_PER_MS;
}

/* The pages of blk inside its managed allocation. */
static void block_pages(const struct ember_policy_block *blk,
			struct ember_page_mask *m)
{
	uint64_t first = 0, end = EMBER_BLOCK_PAGES;

	if (blk->range_start > blk->start)
		first = (blk->range_start - blk->start) >> EMBER_PAGE_SHIFT;
	if (blk->range_end &&
	    blk->range_end < blk->start + ((uint64_t)EMBER_BLOCK_PAGES << EMBER_PAGE_SHIFT))
		end = (blk->range_end - blk->start + (1u << EMBER_PAGE_SHIFT) - 1) >>
		      EMBER_PAGE_SHIFT;
	ember_mask_zero(m);
	if (end > first)
		ember_mask_set_range(m, (unsigned int)first,
				     (unsigned int)(end - first));
}

void ariadne_fault_block(struct ariadne_state *s, struct ariadne_block *b,
			 struct ember_policy_block *blk, const uint16_t *utlb,
			 unsigned int n)
{
	uint64_t now = blk->now_ns;
	struct ember_page_mask whole;
	unsigned int sd;

	s->chunks_used = blk->chunks_used;
	if (blk->chunks_total)
		s->chunks_total = blk->chunks_total;
	sd = ariadne_record_faults(&s->p, b, utlb, n);
	if (n)
		s->avg_sd_x16 = (7 * s->avg_sd_x16 + 16 * sd) / 8;
	b->last_fault_ns = now;

	blk->migrate = blk->faulted;
	if (blk->preferred == EMBER_LOC_CPU) {
		blk->dest = EMBER_LOC_CPU;
		return;
	}
	if (zero_copy_current(s, b, now)) {
		blk->dest = EMBER_LOC_CPU;
		return;
	}
	leave_zero_copy(s, b);
	if (b->in_evicted) {
		/* a refetch: under oversubscription it stays in host memory */
		bool over = ariadne_wcss(s, now) > s->chunks_total;

		leave_evicted(s, b);
		if (over) {
			b->in_zero_copy = 1;
			b->zero_copy_ns = now;
			ariadne_window_add(&s->zero_copy, now, 1);
			s->zero_copy_entries++;
			blk->dest = EMBER_LOC_CPU;
			return;
		}
	}
	blk->dest = EMBER_LOC_GPU;
	if ((s->chunks_total &&
	     (uint64_t)(s->chunks_total - (s->chunks_used < s->chunks_total ?
					   s->chunks_used : s->chunks_total)) * 100 >=
	     (uint64_t)s->p.ample_free_pct * s->chunks_total) ||
	    sd > s->p.prefetch_sd) {
		block_pages(blk, &whole);
		ember_mask_andnot(&blk->migrate, &whole, &blk->unmovable);
		s->whole_block_copies++;
	} else {
		ember_prefetch_tbn(&blk->resident_gpu, &blk->faulted,
				   s->p.prefetch_threshold, &blk->migrate);
		ember_mask_andnot(&blk->migrate, &blk->migrate, &blk->unmovable);
	}
	ember_mask_or(&blk->migrate, &blk->migrate, &blk->faulted);
}

void ariadne_evicted(struct ariadne_state *s, struct ariadne_block *b,
		     uint64_t now_ns)
{
	leave_evicted(s, b);
	b->in_evicted = 1;
	b->evicted_ns = now_ns;
	ariadne_window_add(&s->evicted, now_ns, 1);
}

bool ariadne_notified(struct ariadne_state *s, struct ariadne_block *b,
		      uint64_t now_ns)
{
	if (zero_copy_current(s, b, now_ns))
		return false;	/* its second chance is not over */
	leave_zero_copy(s, b);
	return true;
}

static uint64_t chunk_key(const struct ariadne_state *s,
			  const struct ember_policy_chunk *c)
{
	return c->block_priv ? ariadne_priority_key(&s->p, c->block_priv) :
			       c->last_used_ns;
}

uint32_t ariadne_pick_victim(const struct ariadne_state *s,
			     const struct ember_policy_chunk *cand, uint32_t n)
{
	uint32_t i, best = 0;
	uint64_t key, best_key = UINT64_MAX;

	for (i = 0; i < n; i++) {
		if (cand[i].busy)
			continue;
		key = chunk_key(s, &cand[i]);
		if (key < best_key) {
			best_key = key;
			best = i;
		}
	}
	return best;
}

uint32_t ariadne_eager_victims(const struct ariadne_state *s,
			       struct ember_policy_tick *t)
{
	uint64_t total = t->chunks_total, used = t->chunks_used, key, best_key;
	uint64_t want = total * s->p.evict_free_pct / 100, free;
	uint32_t k = 0, i, j, best;

	free = used < total ? total - used : 0;
	while (free + k < want && k < t->n) {
		best = t->n;
		best_key = UINT64_MAX;
		for (i = 0; i < t->n; i++) {
			if (t->chunks[i].busy)
				continue;
			for (j = 0; j < k && t->victims[j] != i; j++)
				;
			if (j < k)
				continue;
			key = chunk_key(s, &t->chunks[i]);
			if (key < best_key) {
				best_key = key;
				best = i;
			}
		}
		if (best == t->n)
			break;
		t->victims[k++] = best;
	}
	return k;
}

/* ---- the ops table ---- */

static int ariadne_init(void **pdata, const struct ember_policy_env *env)
{
	struct ariadne_state *s = ember_policy_zalloc(sizeof(*s));

	if (!s)
		return -12;	/* ENOMEM, in both hosts */
	ariadne_state_init(s, &ariadne_params, env->chunks_total);
	*pdata = s;
	return 0;
}

static void ariadne_fini(void *pdata)
{
	ember_policy_free(pdata);
}

static void ariadne_launch_begin(void *pdata, struct ember_policy_launch *l)
{
	struct ariadne_state *s = pdata;

	l->ac_threshold = EMBER_AC_THRESHOLD_DEFAULT;
	l->ac_granularity_shift = EMBER_BLOCK_SHIFT;
	l->timer_period_ns = (uint64_t)s->p.evict_period_us * NS_PER_US;
}

static void ariadne_on_fault_block(void *pdata, struct ember_policy_block *blk)
{
	ariadne_fault_block(pdata, blk->priv, blk, blk->fault_utlb,
			    blk->nfault_utlb);
}

static bool ariadne_on_notification(void *pdata,
				    const struct ember_policy_notification *n,
				    const struct ember_policy_block *blk,
				    struct ember_policy_span *span)
{
	if (!blk || !blk->priv || ember_mask_empty(&blk->resident_cpu) ||
	    !ariadne_notified(pdata, blk->priv, n->now_ns))
		return false;
	span->start = blk->start;
	span->end = blk->start + (1ull << EMBER_BLOCK_SHIFT);
	return true;
}

static enum ember_promote ariadne_promote_block(void *pdata,
						const struct ember_policy_notification *n,
						struct ember_policy_block *blk)
{
	struct ariadne_state *s = pdata;

	(void)n;
	ember_mask_andnot(&blk->migrate, &blk->resident_cpu, &blk->unmovable);
	if (ember_mask_empty(&blk->migrate))
		return EMBER_PROMOTE_SKIP;
	blk->dest = EMBER_LOC_GPU;
	s->promotions++;
	return EMBER_PROMOTE_GO;
}

static void ariadne_on_timer_tick(void *pdata, struct ember_policy_tick *t)
{
	struct ariadne_state *s = pdata;

	s->chunks_used = t->chunks_used;
}

static uint32_t ariadne_pick_eager(void *pdata, struct ember_policy_tick *t)
{
	return ariadne_eager_victims(pdata, t);
}

static uint32_t ariadne_on_pick_victim(void *pdata,
				       const struct ember_policy_chunk *cand,
				       uint32_t n, uint64_t now_ns)
{
	(void)now_ns;
	return ariadne_pick_victim(pdata, cand, n);
}

static void ariadne_on_evict(void *pdata, const struct ember_policy_residency *r)
{
	if (r->block_priv && (r->cause == EMBER_POLICY_CAUSE_EVICTION ||
			      r->cause == EMBER_POLICY_CAUSE_EAGER))
		ariadne_evicted(pdata, r->block_priv, r->now_ns);
}

const struct ember_policy_ops ember_policy_ariadne = {
	.name = "ariadne",
	.wants_access_counters = true,
	.pipelined_faults = true,
	.block_priv_size = sizeof(struct ariadne_block),
	.init = ariadne_init,
	.fini = ariadne_fini,
	.on_launch_begin = ariadne_launch_begin,
	.on_fault_block = ariadne_on_fault_block,
	.on_notification = ariadne_on_notification,
	.promote_block = ariadne_promote_block,
	.on_timer_tick = ariadne_on_timer_tick,
	.pick_eager_victims = ariadne_pick_eager,
	.pick_victim = ariadne_on_pick_victim,
	.on_evict = ariadne_on_evict,
};
