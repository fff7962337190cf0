// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The `ember` policy (see ember_policy_ember.h). Hardware-neutral: no
 * kernel interfaces.
 */
#include "ember_policy_ember.h"

struct ember_adaptive_params ember_params = EMBER_ADAPTIVE_PARAMS_DEFAULT;

int ember_policy_ember_check(char *msg, size_t len)
{
	return ember_adaptive_params_check(&ember_params, msg, len);
}

/* Per VA space. */
struct ember_space {
	struct ember_adaptive_params p;	/* Table 1, time unit resolved */
	/*
	 * The highest count of a notification whose promotion halted for
	 * lack of room since the last reclamation pass: demand waiting
	 * outside the GPU (ember_reclaim_select's waiting_demand).
	 */
	uint64_t waiting_demand;
	uint32_t nscratch;
	struct ember_chunk_demand **scratch;	/* one per root chunk */
};

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
				     struct ember_page_mask *out)
{
	ember_mask_andnot(out, &b->resident_cpu, &b->unmovable);
	return !ember_mask_empty(out);
}

/* ---- the ops table ---- */

static int ember_init(void **pdata, const struct ember_policy_env *env)
{
	struct ember_space *s = ember_policy_zalloc(sizeof(*s));

	if (!s)
		return -12;	/* ENOMEM: no errno.h in the neutral core */
	s->p = ember_params;
	ember_adaptive_scale(&s->p, env->vram_bytes, env->full_vram_bytes);
	s->nscratch = env->chunks_total;
	s->scratch = ember_policy_zalloc(sizeof(*s->scratch) *
					 (s->nscratch ? s->nscratch : 1));
	if (!s->scratch) {
		ember_policy_free(s);
		return -12;
	}
	*pdata = s;
	return 0;
}

static void ember_fini(void *pdata)
{
	struct ember_space *s = pdata;

	ember_policy_free(s->scratch);
	ember_policy_free(s);
}

static void ember_launch_begin(void *pdata, struct ember_policy_launch *l)
{
	const struct ember_adaptive_params *p = &((struct ember_space *)pdata)->p;

	l->ac_threshold = p->perf_access_counter_threshold;
	l->ac_granularity_shift = 21;	/* one counter per 2 MiB VA block */
	l->timer_period_ns = p->perf_eager_eviction_enable ?
		ember_adaptive_ms_ns(p, p->perf_eager_eviction_interval_ms) : 0;
}

static void ember_on_fault_block(void *pdata, struct ember_policy_block *b)
{
	if (b->hinted)	/* the application placed this range itself */
		ember_policy_uvm.on_fault_block(NULL, b);
	else
		ember_policy_ember_fault(&((struct ember_space *)pdata)->p, b);
}

static bool ember_on_notification(void *pdata,
				  const struct ember_policy_notification *n,
				  const struct ember_policy_block *b,
				  struct ember_policy_span *span)
{
	const struct ember_adaptive_params *p = &((struct ember_space *)pdata)->p;
	struct ember_chunk_demand *c = b ? b->chunk_priv : NULL;

	if (c && c->resident)	/* the demand the counters saw */
		ember_chunk_add_demand(c, n->counter);
	if ((b && b->hinted) || !p->cpu_preferred_block_promotion_enable ||
	    !ember_policy_ember_wants_promotion(p, n))
		return false;
	ember_promotion_span(p, n->va, n->range_start, n->range_end,
			     &span->start, &span->end);
	return true;
}

static enum ember_promote ember_promote_block(void *pdata,
					      const struct ember_policy_notification *n,
					      struct ember_policy_block *b)
{
	struct ember_space *s = pdata;

	if (b->hinted || !ember_policy_ember_promote_mask(b, &b->migrate))
		return EMBER_PROMOTE_SKIP;
	if (ember_mask_empty(&b->resident_gpu) &&
	    !ember_promotion_has_room(&s->p, b->chunks_used, b->chunks_total)) {
		if (n->counter > s->waiting_demand)
			s->waiting_demand = n->counter;
		return EMBER_PROMOTE_STOP;
	}
	b->dest = EMBER_LOC_GPU;
	return EMBER_PROMOTE_GO;
}

/* The tick's chunks as ember_adaptive.h's demand pointers, in order. */
static uint32_t tick_demands(struct ember_space *s, struct ember_policy_tick *t)
{
	uint32_t i, n = t->n < s->nscratch ? t->n : s->nscratch;

	for (i = 0; i < n; i++) {
		s->scratch[i] = t->chunks[i].priv;
		s->scratch[i]->inflight = t->chunks[i].busy;
	}
	return n;
}

static void ember_on_timer_tick(void *pdata, struct ember_policy_tick *t)
{
	struct ember_space *s = pdata;

	ember_age_chunks(s->scratch, tick_demands(s, t));
}

static uint32_t ember_pick_eager_victims(void *pdata, struct ember_policy_tick *t)
{
	struct ember_space *s = pdata;
	uint32_t n = tick_demands(s, t), k, i, j;

	k = (uint32_t)ember_reclaim_select(&s->p, s->scratch, n, t->chunks_used,
					   t->chunks_total, s->waiting_demand,
					   t->now_ns);
	s->waiting_demand = 0;
	/* back from demand pointers to the tick's indices */
	for (i = 0; i < k; i++)
		for (j = 0; j < n; j++)
			if (t->chunks[j].priv == s->scratch[i]) {
				t->victims[i] = j;
				break;
			}
	return k;
}

static uint32_t ember_pick_victim(void *pdata, const struct ember_policy_chunk *cand,
				  uint32_t n, uint64_t now_ns)
{
	struct ember_space *s = pdata;
	uint32_t i, best = n;

	for (i = 0; i < n; i++) {
		if (cand[i].busy || !cand[i].priv)
			continue;
		if (best == n || ember_victim_cmp(&s->p, cand[i].priv,
						  cand[best].priv, now_ns) < 0)
			best = i;
	}
	return best == n ? 0 : best;
}

static void ember_on_arrive(void *pdata, const struct ember_policy_residency *r)
{
	struct ember_space *s = pdata;

	ember_chunk_arrive(&s->p, r->block_priv, r->chunk_priv,
			   r->cause == EMBER_POLICY_CAUSE_PROMOTION ? r->counter : 0,
			   r->now_ns);
}

static void ember_on_return(void *pdata, const struct ember_policy_residency *r)
{
	ember_block_returned(&((struct ember_space *)pdata)->p, r->block_priv,
			     r->pages, r->now_ns);
}

static void ember_on_evict(void *pdata, const struct ember_policy_residency *r)
{
	struct ember_chunk_demand gone;

	(void)pdata;
	ember_block_evicted(r->block_priv, r->chunk_priv ? r->chunk_priv : &gone,
			    r->now_ns);
}

const struct ember_policy_ops ember_policy_ember = {
	.name = "ember",
	.wants_access_counters = true,
	.mapped_by_default = true,
	.block_priv_size = sizeof(struct ember_block_history),
	.chunk_priv_size = sizeof(struct ember_chunk_demand),
	.init = ember_init,
	.fini = ember_fini,
	.on_launch_begin = ember_launch_begin,
	.on_fault_block = ember_on_fault_block,
	.on_notification = ember_on_notification,
	.promote_block = ember_promote_block,
	.on_timer_tick = ember_on_timer_tick,
	.pick_eager_victims = ember_pick_eager_victims,
	.pick_victim = ember_pick_victim,
	.on_arrive = ember_on_arrive,
	.on_return = ember_on_return,
	.on_evict = ember_on_evict,
};
