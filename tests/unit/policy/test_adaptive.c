/* SPDX-License-Identifier: MIT */
/*
 * CUnit tests of Ember-adaptive's arithmetic (policy/ember_adaptive.c),
 * compiled in userspace from the same source ember.ko builds: parameters,
 * score decay and returns, grace, victim order, reclamation passes and
 * promotion spans, each against the paper's sections 5.3 and 6.1.
 */
#include <string.h>

#include <CUnit/Basic.h>

#include "ember_adaptive.h"
#include "ember_policy_ember.h"
#include "policy_tests.h"

#define MS 1000000ull
#define MiB (1ull << 20)

static const struct ember_adaptive_params defaults = EMBER_ADAPTIVE_PARAMS_DEFAULT;

/* Table 1's defaults pass; each bad value is refused by name. */
static void test_params(void)
{
	struct ember_adaptive_params p = defaults;
	char msg[256];

	CU_ASSERT_EQUAL(ember_adaptive_params_check(&p, msg, sizeof(msg)), 0);
	p.perf_eager_eviction_low_watermark = 90;
	CU_ASSERT_EQUAL(ember_adaptive_params_check(&p, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "perf_eager_eviction_low_watermark=90 must be below"));
	p = defaults;
	p.perf_access_counter_threshold = 0;
	CU_ASSERT_EQUAL(ember_adaptive_params_check(&p, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "perf_access_counter_threshold=0"));
	p = defaults;
	p.cpu_preferred_prefetch_chunk_mb = 3;
	CU_ASSERT_EQUAL(ember_adaptive_params_check(&p, msg, sizeof(msg)), -1);
	p = defaults;
	p.perf_migration_eviction_max_grace_ms = 50;
	CU_ASSERT_EQUAL(ember_adaptive_params_check(&p, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "max_grace_ms=50"));
}

/* The score halves once per decay period (1 s by default). */
static void test_score_decay(void)
{
	struct ember_block_history b = { .score = 4 * EMBER_SCORE_ONE, .score_ns = 10 * MS };

	ember_block_decay_score(&defaults, &b, 10 * MS + 999 * MS);
	CU_ASSERT_EQUAL(b.score, 4 * EMBER_SCORE_ONE);
	ember_block_decay_score(&defaults, &b, 10 * MS + 1000 * MS);
	CU_ASSERT_EQUAL(b.score, 2 * EMBER_SCORE_ONE);
	ember_block_decay_score(&defaults, &b, 10 * MS + 3500 * MS);
	CU_ASSERT_EQUAL(b.score, EMBER_SCORE_ONE / 2);
	CU_ASSERT_EQUAL(b.score_ns, 10 * MS + 3000 * MS);
}

/*
 * A block returning within 500 ms of its eviction gains one point per
 * 2 MiB; grace = 100 ms + 250 ms per point, capped at 2 s.
 */
static void test_return_and_grace(void)
{
	struct ember_block_history b = { 0 };
	struct ember_chunk_demand c = { 0 };
	unsigned int i;

	ember_block_arrive(&defaults, &b, &c, 512, 300, 1000 * MS);
	CU_ASSERT_EQUAL(b.score, 0);
	CU_ASSERT_EQUAL(c.demand, 300);
	CU_ASSERT_EQUAL(c.grace_until_ns, 1100 * MS);
	CU_ASSERT_EQUAL(c.arrived_ns, 1000 * MS);
	CU_ASSERT_TRUE(c.resident);

	ember_block_evicted(&b, &c, 1200 * MS);
	CU_ASSERT_FALSE(c.resident);
	ember_block_arrive(&defaults, &b, &c, 512, 0, 1600 * MS);	/* 400 ms later */
	CU_ASSERT_EQUAL(b.score, EMBER_SCORE_ONE);
	CU_ASSERT_EQUAL(c.grace_until_ns, 1600 * MS + 350 * MS);

	ember_block_evicted(&b, &c, 2000 * MS);
	ember_block_arrive(&defaults, &b, &c, 256, 0, 2100 * MS);	/* half a block */
	CU_ASSERT_EQUAL(b.score, EMBER_SCORE_ONE / 2 + EMBER_SCORE_ONE / 2);	/* decayed, +0.5 */

	ember_block_evicted(&b, &c, 2200 * MS);
	ember_block_arrive(&defaults, &b, &c, 512, 0, 2200 * MS + 501 * MS);	/* too late */
	CU_ASSERT_EQUAL(b.score, EMBER_SCORE_ONE);

	for (i = 0; i < 10; i++) {		/* ping-pong: the grace is capped */
		ember_block_evicted(&b, &c, 3000 * MS + i * 10 * MS);
		ember_block_arrive(&defaults, &b, &c, 512, 0, 3005 * MS + i * 10 * MS);
	}
	CU_ASSERT_EQUAL(c.arrived_ns, 3095 * MS);
	CU_ASSERT_EQUAL(c.grace_until_ns, c.arrived_ns + 2000 * MS);
	CU_ASSERT_EQUAL(ember_grace_ns(&defaults, 11 * EMBER_SCORE_ONE), 2000 * MS);

	{
		struct ember_adaptive_params off = defaults;

		off.perf_migration_aware_eviction_enable = 0;
		CU_ASSERT_EQUAL(ember_grace_ns(&off, 5 * EMBER_SCORE_ONE), 0);
	}
}

/* Demand halves each interval; silent intervals are counted until new demand. */
static void test_aging(void)
{
	struct ember_chunk_demand c = { .demand = 10, .resident = true };
	struct ember_chunk_demand *list[] = { &c };
	unsigned int i;

	ember_age_chunks(list, 1);
	CU_ASSERT_EQUAL(c.demand, 5);
	ember_age_chunks(list, 1);
	ember_age_chunks(list, 1);
	CU_ASSERT_EQUAL(c.demand, 1);
	CU_ASSERT_EQUAL(c.zero_intervals, 0);
	for (i = 0; i < 3; i++)
		ember_age_chunks(list, 1);
	CU_ASSERT_EQUAL(c.demand, 0);
	CU_ASSERT_EQUAL(c.zero_intervals, 3);
	ember_chunk_add_demand(&c, 256);
	CU_ASSERT_EQUAL(c.zero_intervals, 0);
	CU_ASSERT_EQUAL(c.demand, 256);
}

/* Unprotected first; then lowest score, oldest residency, lowest demand. */
static void test_victim_order(void)
{
	const uint64_t now = 10000 * MS;
	struct ember_chunk_demand prot_late = { .grace_until_ns = now + 900 * MS, .resident = true };
	struct ember_chunk_demand prot_soon = { .grace_until_ns = now + 100 * MS, .score = 5000, .resident = true };
	struct ember_chunk_demand scored = { .score = EMBER_SCORE_ONE, .arrived_ns = 1, .resident = true };
	struct ember_chunk_demand old = { .arrived_ns = 100, .demand = 1000, .resident = true };
	struct ember_chunk_demand young_cold = { .arrived_ns = 200, .demand = 1, .resident = true };
	struct ember_chunk_demand young_hot = { .arrived_ns = 200, .demand = 50, .resident = true };

	CU_ASSERT_TRUE(ember_victim_cmp(&defaults, &old, &prot_soon, now) < 0);
	CU_ASSERT_TRUE(ember_victim_cmp(&defaults, &prot_soon, &prot_late, now) < 0);	/* first to expire */
	CU_ASSERT_TRUE(ember_victim_cmp(&defaults, &old, &scored, now) < 0);		/* score before age */
	CU_ASSERT_TRUE(ember_victim_cmp(&defaults, &old, &young_cold, now) < 0);	/* age before demand */
	CU_ASSERT_TRUE(ember_victim_cmp(&defaults, &young_cold, &young_hot, now) < 0);
	CU_ASSERT_EQUAL(ember_victim_cmp(&defaults, &young_hot, &young_hot, now), 0);
	/* protection lapses with time */
	CU_ASSERT_TRUE(ember_victim_cmp(&defaults, &prot_late, &scored, now + 901 * MS) < 0);
}

/* perf_migration_aware_eviction_enable=0: neither grace nor score orders. */
static void test_victim_order_unaware(void)
{
	struct ember_adaptive_params p = defaults;
	const uint64_t now = 10000 * MS;
	struct ember_chunk_demand prot = { .grace_until_ns = now + 900 * MS, .arrived_ns = 50, .resident = true };
	struct ember_chunk_demand scored = { .score = 4 * EMBER_SCORE_ONE, .arrived_ns = 60, .resident = true };
	struct ember_chunk_demand plain = { .arrived_ns = 70, .resident = true };
	struct ember_chunk_demand *all[] = { &plain, &scored, &prot };

	p.perf_migration_aware_eviction_enable = 0;
	CU_ASSERT_TRUE(ember_victim_cmp(&p, &prot, &plain, now) < 0);	/* oldest first */
	CU_ASSERT_TRUE(ember_victim_cmp(&p, &scored, &plain, now) < 0);
	CU_ASSERT_EQUAL(ember_victim_first(&p, all, 3, now), 2);
	CU_ASSERT_EQUAL(ember_victim_first(&defaults, all, 3, now), 0);	/* aware: plain */
	CU_ASSERT_EQUAL(ember_grace_ns(&p, 4 * EMBER_SCORE_ONE), 0);
}

/* Above the high watermark: evict in order down to the low one, in batches. */
static void test_reclaim_above_high(void)
{
	struct ember_adaptive_params p = defaults;
	struct ember_chunk_demand c[20], *list[20];
	const uint64_t now = 5000 * MS;
	size_t i, k;

	memset(c, 0, sizeof(c));
	for (i = 0; i < 20; i++) {
		c[i].resident = true;
		c[i].arrived_ns = 1000 * MS - i * MS;	/* c[19] is the oldest */
		list[i] = &c[i];
	}
	c[19].grace_until_ns = now + MS;	/* oldest but protected: last */
	/* 95 of 100 chunks used: down to 85 means 10 victims */
	k = ember_reclaim_select(&p, list, 20, 95, 100, 0, now);
	CU_ASSERT_EQUAL(k, 10);
	CU_ASSERT_PTR_EQUAL(list[0], &c[18]);
	CU_ASSERT_PTR_EQUAL(list[9], &c[9]);
	for (i = 0; i < k; i++)
		CU_ASSERT_PTR_NOT_EQUAL(list[i], &c[19]);

	p.perf_eager_eviction_batch_count = 4;
	k = ember_reclaim_select(&p, list, 20, 95, 100, 0, now);
	CU_ASSERT_EQUAL(k, 4);

	/* everything protected: space is still freed, earliest expiry first */
	for (i = 0; i < 20; i++)
		c[i].grace_until_ns = now + (100 - i) * MS;
	p.perf_eager_eviction_batch_count = defaults.perf_eager_eviction_batch_count;
	k = ember_reclaim_select(&p, list, 20, 92, 100, 0, now);
	CU_ASSERT_EQUAL(k, 7);
	CU_ASSERT_PTR_EQUAL(list[0], &c[19]);
	CU_ASSERT_PTR_EQUAL(list[6], &c[13]);
}

/*
 * Below it: only unprotected cold chunks (hottest >= 2x their demand, or
 * silent for 5 intervals); chunks in flight or not resident never.
 */
static void test_reclaim_below_high(void)
{
	const uint64_t now = 5000 * MS;
	struct ember_chunk_demand hot = { .demand = 100, .resident = true, .arrived_ns = 1 };
	struct ember_chunk_demand warm = { .demand = 60, .resident = true, .arrived_ns = 2 };
	struct ember_chunk_demand half = { .demand = 50, .resident = true, .arrived_ns = 3 };
	struct ember_chunk_demand cold = { .demand = 10, .resident = true, .arrived_ns = 4 };
	struct ember_chunk_demand stale = { .resident = true, .zero_intervals = 5, .arrived_ns = 5 };
	struct ember_chunk_demand young_zero = { .resident = true, .zero_intervals = 2, .arrived_ns = 6 };
	struct ember_chunk_demand guarded = { .demand = 1, .resident = true, .grace_until_ns = now + MS };
	struct ember_chunk_demand moving = { .demand = 1, .resident = true, .inflight = true };
	struct ember_chunk_demand gone = { .demand = 1 };
	struct ember_chunk_demand *list[] = {
		&gone, &moving, &guarded, &stale, &cold, &half, &warm, &hot, &young_zero,
	};
	size_t k = ember_reclaim_select(&defaults, list, 9, 50, 100, 0, now), i;

	CU_ASSERT_EQUAL(k, 4);
	CU_ASSERT_PTR_EQUAL(list[0], &half);	/* oldest of the cold ones */
	CU_ASSERT_PTR_EQUAL(list[1], &cold);
	CU_ASSERT_PTR_EQUAL(list[2], &stale);
	CU_ASSERT_PTR_EQUAL(list[3], &young_zero);	/* 0 x 2 <= 100 */

	/* with equal demand everywhere nothing is cold: no churn */
	hot.demand = warm.demand = half.demand = cold.demand = 40;
	stale.zero_intervals = young_zero.zero_intervals = 0;
	stale.demand = young_zero.demand = 40;
	CU_ASSERT_EQUAL(ember_reclaim_select(&defaults, list, 9, 50, 100, 0, now), 0);

	/* ...until demand waits outside: a halted promotion's count of 100
	 * makes every resident chunk at 40 (<= 100 / 2) cold; protection holds */
	k = ember_reclaim_select(&defaults, list, 9, 50, 100, 100, now);
	CU_ASSERT_EQUAL(k, 6);
	for (i = 0; i < k; i++) {
		CU_ASSERT_PTR_NOT_EQUAL(list[i], &guarded);
		CU_ASSERT_PTR_NOT_EQUAL(list[i], &moving);
		CU_ASSERT_PTR_NOT_EQUAL(list[i], &gone);
	}
	CU_ASSERT_EQUAL(ember_reclaim_select(&defaults, list, 9, 50, 100, 79, now), 0);
}

/*
 * ember_replace_on_demand (an experiment outside the paper): below the high
 * watermark nothing is evicted unless a promotion waits; then the same
 * cold chunks as without it; above the watermark nothing changes.
 */
static void test_replace_on_demand(void)
{
	struct ember_adaptive_params p = defaults;
	const uint64_t now = 5000 * MS;
	struct ember_chunk_demand c[6], *list[6], *plain[6];
	char msg[256];
	size_t i, k;

	memset(c, 0, sizeof(c));
	for (i = 0; i < 6; i++) {
		c[i].resident = true;
		c[i].arrived_ns = i + 1;
		c[i].demand = i < 3 ? 0 : 40;	/* 0..2 cold */
		c[i].zero_intervals = i < 3 ? 5 : 0;
	}
	p.ember_replace_on_demand = 1;
	CU_ASSERT_EQUAL(ember_adaptive_params_check(&p, msg, sizeof(msg)), 0);
	for (i = 0; i < 6; i++)
		list[i] = plain[i] = &c[i];
	/* below: the paper's rule evicts the three stale chunks, the experiment none */
	CU_ASSERT_EQUAL(ember_reclaim_select(&defaults, plain, 6, 50, 100, 0, now), 3);
	CU_ASSERT_EQUAL(ember_reclaim_select(&p, list, 6, 50, 100, 0, now), 0);
	/* a halted promotion: the same victims in the same order */
	k = ember_reclaim_select(&p, list, 6, 50, 100, 100, now);
	CU_ASSERT_EQUAL(k, ember_reclaim_select(&defaults, plain, 6, 50, 100, 100, now));
	CU_ASSERT_EQUAL(k, 6);	/* 40 x 2 <= 100: all cold */
	for (i = 0; i < k; i++)
		CU_ASSERT_PTR_EQUAL(list[i], plain[i]);
	/* above the high watermark: down to the low one either way */
	CU_ASSERT_EQUAL(ember_reclaim_select(&p, list, 6, 95, 100, 0, now), 6);
	p.ember_replace_on_demand = 2;
	CU_ASSERT_EQUAL(ember_adaptive_params_check(&p, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ember_replace_on_demand=2"));
}

/* Promotion stops at the high watermark (90 %). */
/* A scaled testbed: every period shrinks by the same factor. */
static void test_time_unit(void)
{
	struct ember_adaptive_params p = defaults;
	struct ember_block_history b = { 0 };
	struct ember_chunk_demand c = { 0 };

	CU_ASSERT_EQUAL(ember_adaptive_ms_ns(&p, 25), 25 * MS);
	p.ns_per_ms = 1000;
	CU_ASSERT_EQUAL(ember_adaptive_ms_ns(&p, 25), 25000);
	CU_ASSERT_EQUAL(ember_grace_ns(&p, 0), 100000);
	CU_ASSERT_EQUAL(ember_grace_ns(&p, 100 * EMBER_SCORE_ONE), 2000000);
	/* evicted at 1 ms, back 400 us later: within the scaled 500 "ms" */
	ember_block_arrive(&p, &b, &c, 512, 0, 1000);
	ember_block_evicted(&b, &c, 1000000);
	ember_block_arrive(&p, &b, &c, 512, 0, 1400000);
	CU_ASSERT_EQUAL(b.score, EMBER_SCORE_ONE);
	CU_ASSERT_EQUAL(c.grace_until_ns, 1400000 + 350000);
	/* one scaled decay period (1 ms) halves it */
	ember_block_decay_score(&p, &b, 2400000 + 1000);
	CU_ASSERT_EQUAL(b.score, EMBER_SCORE_ONE / 2);
}

/*
 * The scaling rule: a 1/k card divides the periods, the promotion span and
 * the reclamation batch by k, keeping whole blocks and chunks; k = 1 and a
 * fixed time unit leave what they should.
 */
static void test_scaling_rule(void)
{
	static const struct {
		uint64_t vram, full, ns_per_ms;
		unsigned int span_mb, batch;
	} cases[] = {
		{ 16384 * MiB, 16384 * MiB, 1000000, 64, 16 },	/* k = 1 */
		{ 512 * MiB, 512 * MiB, 1000000, 64, 16 },	/* rule off */
		{ 1024 * MiB, 16384 * MiB, 62500, 4, 1 },	/* k = 16 */
		{ 512 * MiB, 16384 * MiB, 31250, 2, 1 },	/* k = 32: 0.5 rounds up */
		{ 256 * MiB, 16384 * MiB, 15625, 2, 1 },	/* k = 64: one block */
		{ 128 * MiB, 16384 * MiB, 7812, 2, 1 },		/* k = 128 */
		{ 8192 * MiB, 16384 * MiB, 500000, 32, 8 },	/* k = 2 */
	};
	struct ember_adaptive_params p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = defaults;
		p.ns_per_ms = 0;
		ember_adaptive_scale(&p, cases[i].vram, cases[i].full);
		CU_ASSERT_EQUAL(p.ns_per_ms, cases[i].ns_per_ms);
		CU_ASSERT_EQUAL(p.cpu_preferred_prefetch_chunk_mb, cases[i].span_mb);
		CU_ASSERT_EQUAL(p.perf_eager_eviction_batch_count, cases[i].batch);
		CU_ASSERT_EQUAL(ember_adaptive_ms_ns(&p, 25),
				25 * cases[i].ns_per_ms);
	}
	/* a given time unit is kept; the span and batch still follow k */
	p = defaults;
	p.ns_per_ms = MS;
	ember_adaptive_scale(&p, 512 * MiB, 16384 * MiB);
	CU_ASSERT_EQUAL(p.ns_per_ms, MS);
	CU_ASSERT_EQUAL(p.cpu_preferred_prefetch_chunk_mb, 2);
	/* the result passes the parameter checks */
	{
		char msg[128];

		CU_ASSERT_EQUAL(ember_adaptive_params_check(&p, msg, sizeof(msg)), 0);
	}
}

/* Mapped by default: faults create in VRAM, map host pages, never evict. */
static void test_ember_fault(void)
{
	struct ember_policy_block b;
	struct ember_policy_notification n = { .counter = 256 };
	struct ember_page_mask out;

	memset(&b, 0, sizeof(b));
	b.chunks_total = 100;
	b.chunks_used = 10;
	ember_mask_set(&b.faulted, 3);
	ember_policy_ember_fault(&defaults, &b);	/* untouched: whole block */
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_GPU);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), EMBER_BLOCK_PAGES);

	b.chunks_used = 90;				/* a new chunk would cross 90 % */
	ember_policy_ember_fault(&defaults, &b);
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_CPU);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), 1);

	ember_mask_set(&b.resident_gpu, 0);		/* has a chunk: no room needed */
	ember_mask_set(&b.resident_cpu, 40);
	ember_policy_ember_fault(&defaults, &b);
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_GPU);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), 15);	/* its 64 KiB group less page 0 */
	CU_ASSERT(!ember_mask_test(&b.migrate, 0));

	ember_mask_set(&b.faulted, 40);			/* a host page faulted: map */
	ember_policy_ember_fault(&defaults, &b);
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_CPU);

	CU_ASSERT(ember_policy_ember_wants_promotion(&defaults, &n));
	n.counter = 255;
	CU_ASSERT(!ember_policy_ember_wants_promotion(&defaults, &n));

	ember_mask_set(&b.unmovable, 40);		/* lost or pinned: not moved */
	CU_ASSERT(!ember_policy_ember_promote_mask(&b, &out));
	ember_mask_set(&b.resident_cpu, 41);
	CU_ASSERT(ember_policy_ember_promote_mask(&b, &out));
	CU_ASSERT_EQUAL(ember_mask_weight(&out), 1);
}

static void test_promotion_room(void)
{
	CU_ASSERT_TRUE(ember_promotion_has_room(&defaults, 89, 100));
	CU_ASSERT_FALSE(ember_promotion_has_room(&defaults, 90, 100));
	CU_ASSERT_FALSE(ember_promotion_has_room(&defaults, 0, 0));
}

/* 64 MiB centred on the block, shifted at allocation edges. */
static void test_promotion_span(void)
{
	struct ember_adaptive_params p = defaults;
	uint64_t s, e;

	ember_promotion_span(&p, 512 * MiB, 0, 1024 * MiB, &s, &e);
	CU_ASSERT_EQUAL(s, 480 * MiB);
	CU_ASSERT_EQUAL(e, 544 * MiB);
	ember_promotion_span(&p, 4 * MiB + 12345, 0, 1024 * MiB, &s, &e);
	CU_ASSERT_EQUAL(s, 0);
	CU_ASSERT_EQUAL(e, 64 * MiB);
	ember_promotion_span(&p, 1022 * MiB, 0, 1024 * MiB, &s, &e);
	CU_ASSERT_EQUAL(s, 960 * MiB);
	CU_ASSERT_EQUAL(e, 1024 * MiB);
	ember_promotion_span(&p, 6 * MiB, 2 * MiB, 12 * MiB, &s, &e);	/* small allocation */
	CU_ASSERT_EQUAL(s, 2 * MiB);
	CU_ASSERT_EQUAL(e, 12 * MiB);
	p.cpu_preferred_prefetch_chunk_mb = 2;			/* one block */
	ember_promotion_span(&p, 512 * MiB + 4096, 0, 1024 * MiB, &s, &e);
	CU_ASSERT_EQUAL(s, 512 * MiB);
	CU_ASSERT_EQUAL(e, 514 * MiB);
}

void add_adaptive_tests(void)
{
	CU_pSuite s = CU_add_suite("ember-adaptive arithmetic", NULL, NULL);

	CU_add_test(s, "Table 1 parameters and their checks", test_params);
	CU_add_test(s, "migration score decay", test_score_decay);
	CU_add_test(s, "returns raise the score, grace is capped", test_return_and_grace);
	CU_add_test(s, "demand halves each interval", test_aging);
	CU_add_test(s, "lexicographic victim order", test_victim_order);
	CU_add_test(s, "victim order without migration awareness",
		    test_victim_order_unaware);
	CU_add_test(s, "reclaim above the high watermark", test_reclaim_above_high);
	CU_add_test(s, "reclaim below it: cold only", test_reclaim_below_high);
	CU_add_test(s, "ember_replace_on_demand: below it only for a waiting promotion",
		    test_replace_on_demand);
	CU_add_test(s, "periods in a scaled time unit", test_time_unit);
	CU_add_test(s, "the scaling rule: periods, span and batch over k",
		    test_scaling_rule);
	CU_add_test(s, "ember policy: faults and promotion masks", test_ember_fault);
	CU_add_test(s, "promotion stops at the high watermark", test_promotion_room);
	CU_add_test(s, "promotion span centred and shifted", test_promotion_span);
}
