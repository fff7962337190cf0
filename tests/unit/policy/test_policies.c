/* SPDX-License-Identifier: MIT */
/*
 * CUnit tests of the policies as ops tables (policy/): what each
 * hook decides when a driver calls it as ember.ko does. The test plays the
 * driver: it allocates the per-block and per-chunk state the policy
 * declares, builds the views and calls the hooks in the driver's order.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "ember_policy_ember.h"
#include "policy_tests.h"

#define MS 1000000ull
#define MiB (1ull << 20)

static char msg[128];

/* ---- the ops check every driver applies at registration ---- */

static void test_ops_check(void)
{
	struct ember_policy_ops ops = ember_policy_uvm;

	CU_ASSERT_EQUAL(ember_policy_ops_check(&ember_policy_uvm, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ember_policy_ember, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ember_policy_ac, msg, sizeof(msg)), 0);

	CU_ASSERT_EQUAL(ember_policy_ops_check(NULL, msg, sizeof(msg)), -1);
	ops.name = "";
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ops, msg, sizeof(msg)), -1);
	CU_ASSERT_STRING_EQUAL(msg, "no name");
	ops.name = "sixteen-chars-xx";
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ops, msg, sizeof(msg)), -1);
	ops.name = "fifteen-chars-x";
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ops, msg, sizeof(msg)), 0);
	ops.on_fault_block = NULL;
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ops, msg, sizeof(msg)), -1);
	CU_ASSERT_STRING_EQUAL(msg, "no on_fault_block");

	ops = ember_policy_ember;
	ops.promote_block = NULL;
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ops, msg, sizeof(msg)), -1);
	ops = ember_policy_ember;
	ops.on_timer_tick = NULL;
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ops, msg, sizeof(msg)), -1);
	ops = ember_policy_ember;
	ops.chunk_priv_size = EMBER_POLICY_CHUNK_PRIV_MAX + 1;
	CU_ASSERT_EQUAL(ember_policy_ops_check(&ops, msg, sizeof(msg)), -1);
}

/* ---- uvm and ac ---- */

static void test_uvm(void)
{
	struct ember_policy_block b;
	unsigned int i;

	memset(&b, 0, sizeof(b));
	b.preferred = EMBER_LOC_CPU;
	ember_mask_set(&b.faulted, 7);
	ember_policy_uvm.on_fault_block(NULL, &b);
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_CPU);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), 1);

	/* faults on more than half of a 64 KiB big page's pair: the TBN grows */
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 20; i++)
		ember_mask_set(&b.faulted, i);
	ember_policy_uvm.on_fault_block(NULL, &b);
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_GPU);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), 32);

	ember_uvm_params.uvm_perf_prefetch_enable = 0;
	ember_policy_uvm.on_fault_block(NULL, &b);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), 20);
	ember_uvm_params.uvm_perf_prefetch_enable = 1;

	memset(&b, 0, sizeof(b));			/* untouched, preferred GPU */
	b.preferred = EMBER_LOC_GPU;
	ember_mask_set(&b.faulted, 100);
	ember_policy_uvm.on_fault_block(NULL, &b);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), EMBER_BLOCK_PAGES);
}

static void test_ac(void)
{
	struct ember_policy_notification n = { .va = 6 * MiB + 4096, .counter = 256 };
	struct ember_policy_launch l;
	struct ember_policy_span span;
	struct ember_policy_block b;

	memset(&l, 0, sizeof(l));
	ember_policy_ac.on_launch_begin(NULL, &l);
	CU_ASSERT_EQUAL(l.ac_threshold, 256);
	CU_ASSERT_EQUAL(l.ac_granularity_shift, 21);

	memset(&b, 0, sizeof(b));
	b.start = 6 * MiB;
	CU_ASSERT_FALSE(ember_policy_ac.on_notification(NULL, &n, NULL, &span));
	CU_ASSERT_FALSE(ember_policy_ac.on_notification(NULL, &n, &b, &span));
	ember_mask_set_range(&b.resident_cpu, 0, 64);
	ember_mask_set(&b.unmovable, 3);
	CU_ASSERT_TRUE(ember_policy_ac.on_notification(NULL, &n, &b, &span));
	CU_ASSERT_EQUAL(span.start, 6 * MiB);
	CU_ASSERT_EQUAL(span.end, 8 * MiB);
	CU_ASSERT_EQUAL(ember_policy_ac.promote_block(NULL, &n, &b), EMBER_PROMOTE_GO);
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_GPU);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), 63);
}

/* ---- ember: a small driver around the ops table ---- */

#define NCHUNKS 100

struct fake_gpu {
	void *pdata;
	struct ember_block_history hist[NCHUNKS];	/* block i backs chunk i */
	struct ember_chunk_demand chunk[NCHUNKS];
	struct ember_policy_chunk views[NCHUNKS];
	uint32_t victims[NCHUNKS];
};

static struct fake_gpu *ember_start(uint64_t vram, uint64_t full)
{
	struct ember_policy_env env = {
		.vram_bytes = vram, .full_vram_bytes = full, .chunks_total = NCHUNKS,
	};
	struct fake_gpu *g = calloc(1, sizeof(*g));

	CU_ASSERT_EQUAL(ember_policy_ember.block_priv_size, sizeof(g->hist[0]));
	CU_ASSERT_EQUAL(ember_policy_ember.chunk_priv_size, sizeof(g->chunk[0]));
	CU_ASSERT_EQUAL(ember_policy_ember.init(&g->pdata, &env), 0);
	return g;
}

static void ember_stop(struct fake_gpu *g)
{
	ember_policy_ember.fini(g->pdata);
	free(g);
	ember_params = (struct ember_adaptive_params)EMBER_ADAPTIVE_PARAMS_DEFAULT;
}

/* Block i's pages arrive (a fault or a promotion with count). */
static void arrive(struct fake_gpu *g, unsigned int i, uint32_t cause,
		   uint32_t count, uint64_t now)
{
	struct ember_policy_residency r = {
		.va = i * 2 * MiB, .now_ns = now, .pages = EMBER_BLOCK_PAGES,
		.cause = cause, .counter = count,
		.block_priv = &g->hist[i], .chunk_priv = &g->chunk[i],
	};

	ember_policy_ember.on_arrive(g->pdata, &r);
}

static uint32_t tick(struct fake_gpu *g, unsigned int n, uint32_t used,
		     uint64_t now)
{
	struct ember_policy_tick t = {
		.now_ns = now, .chunks = g->views, .n = n, .chunks_used = used,
		.chunks_total = NCHUNKS, .victims = g->victims,
	};
	unsigned int i;

	for (i = 0; i < n; i++)
		g->views[i] = (struct ember_policy_chunk) {
			.va = i * 2 * MiB, .priv = &g->chunk[i],
			.block_priv = &g->hist[i],
		};
	ember_policy_ember.on_timer_tick(g->pdata, &t);
	return ember_policy_ember.pick_eager_victims(g->pdata, &t);
}

/* The time unit follows the card a scaled GPU stands for, when asked to. */
static void test_ember_launch_and_scale(void)
{
	struct ember_policy_launch l;
	struct fake_gpu *g;

	ember_params.ns_per_ms = 1000000;		/* device ms: not scaled */
	g = ember_start(128 * MiB, 16384 * MiB);
	memset(&l, 0, sizeof(l));
	ember_policy_ember.on_launch_begin(g->pdata, &l);
	CU_ASSERT_EQUAL(l.ac_threshold, 256);
	CU_ASSERT_EQUAL(l.ac_granularity_shift, 21);
	CU_ASSERT_EQUAL(l.timer_period_ns, 25 * MS);
	ember_stop(g);

	ember_params.ns_per_ms = 0;			/* scaled: 1/128 */
	g = ember_start(128 * MiB, 16384 * MiB);
	ember_policy_ember.on_launch_begin(g->pdata, &l);
	CU_ASSERT_EQUAL(l.timer_period_ns, 25 * 7812);
	ember_stop(g);

	ember_params.perf_eager_eviction_enable = 0;	/* the switch: no timer */
	g = ember_start(128 * MiB, 128 * MiB);
	ember_policy_ember.on_launch_begin(g->pdata, &l);
	CU_ASSERT_EQUAL(l.timer_period_ns, 0);
	CU_ASSERT_EQUAL(tick(g, 0, 95, 0), 0);
	ember_stop(g);
}

/* Notifications: demand below the threshold, a span at it, none when off. */
static void test_ember_notification(void)
{
	struct ember_policy_notification n = {
		.va = 512 * MiB, .counter = 100, .range_start = 0,
		.range_end = 1024 * MiB,
	};
	struct ember_policy_span span;
	struct ember_policy_block b;
	struct fake_gpu *g = ember_start(200 * MiB, 200 * MiB);

	memset(&b, 0, sizeof(b));
	b.start = 512 * MiB;
	b.chunk_priv = &g->chunk[0];
	arrive(g, 0, EMBER_POLICY_CAUSE_FAULT, 0, 1 * MS);
	CU_ASSERT_FALSE(ember_policy_ember.on_notification(g->pdata, &n, &b, &span));
	CU_ASSERT_EQUAL(g->chunk[0].demand, 100);	/* the access monitor */
	n.counter = 256;
	CU_ASSERT_TRUE(ember_policy_ember.on_notification(g->pdata, &n, &b, &span));
	CU_ASSERT_EQUAL(span.start, 480 * MiB);
	CU_ASSERT_EQUAL(span.end, 544 * MiB);
	CU_ASSERT_TRUE(ember_policy_ember.on_notification(g->pdata, &n, NULL, &span));

	/* cpu_preferred_block_promotion_enable=0 stops promotion altogether */
	g->chunk[0].demand = 0;
	ember_params.cpu_preferred_block_promotion_enable = 0;
	ember_policy_ember.fini(g->pdata);
	ember_policy_ember.init(&g->pdata, &(struct ember_policy_env){
		.vram_bytes = 200 * MiB, .chunks_total = NCHUNKS });
	CU_ASSERT_FALSE(ember_policy_ember.on_notification(g->pdata, &n, &b, &span));
	CU_ASSERT_FALSE(ember_policy_ember.on_notification(g->pdata, &n, NULL, &span));
	CU_ASSERT_EQUAL(g->chunk[0].demand, 256);	/* still monitored */
	ember_stop(g);
}

/*
 * A span stops at the high watermark; the demand left waiting makes a
 * resident region twice as cold give way at the next pass.
 */
static void test_ember_promotion_and_reclaim(void)
{
	struct ember_policy_notification n = { .va = 0, .counter = 1300 };
	struct ember_policy_block b;
	struct fake_gpu *g = ember_start(200 * MiB, 200 * MiB);
	uint64_t now = 10000 * MS;
	unsigned int i;

	memset(&b, 0, sizeof(b));
	ember_mask_set_range(&b.resident_cpu, 0, 512);
	ember_mask_set(&b.unmovable, 5);
	b.chunks_total = NCHUNKS;
	b.chunks_used = 50;
	CU_ASSERT_EQUAL(ember_policy_ember.promote_block(g->pdata, &n, &b), EMBER_PROMOTE_GO);
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_GPU);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), 511);
	b.chunks_used = 89;
	CU_ASSERT_EQUAL(ember_policy_ember.promote_block(g->pdata, &n, &b), EMBER_PROMOTE_GO);
	b.chunks_used = 90;
	CU_ASSERT_EQUAL(ember_policy_ember.promote_block(g->pdata, &n, &b), EMBER_PROMOTE_STOP);
	ember_mask_set(&b.resident_gpu, 0);		/* has its chunk: no room needed */
	CU_ASSERT_EQUAL(ember_policy_ember.promote_block(g->pdata, &n, &b), EMBER_PROMOTE_GO);
	ember_mask_zero(&b.resident_cpu);
	CU_ASSERT_EQUAL(ember_policy_ember.promote_block(g->pdata, &n, &b), EMBER_PROMOTE_SKIP);

	/*
	 * 80 resident chunks past their grace: halved, 1000 each and 600 for
	 * chunk 7, which is twice as cold as the 1300 left waiting only
	 */
	for (i = 0; i < 80; i++) {
		arrive(g, i, EMBER_POLICY_CAUSE_PROMOTION, 2000, 1 * MS);
		g->chunk[i].demand = 2000;
	}
	g->chunk[7].demand = 1200;
	CU_ASSERT_EQUAL(tick(g, 80, 80, now), 1);
	CU_ASSERT_EQUAL(g->victims[0], 7);
	CU_ASSERT_EQUAL(tick(g, 80, 80, now + 25 * MS), 0);	/* waiting was taken */
	ember_stop(g);
}

/* On-demand victims in section 5.3's order; arrival, eviction and return. */
static void test_ember_victims_and_history(void)
{
	struct ember_policy_chunk cand[3];
	struct ember_policy_residency r;
	struct fake_gpu *g = ember_start(200 * MiB, 200 * MiB);
	uint64_t t0 = 5000 * MS;
	unsigned int i;

	arrive(g, 0, EMBER_POLICY_CAUSE_FAULT, 0, t0);		/* oldest */
	arrive(g, 1, EMBER_POLICY_CAUSE_FAULT, 0, t0 + 10 * MS);
	arrive(g, 2, EMBER_POLICY_CAUSE_FAULT, 0, t0 + 20 * MS);
	for (i = 0; i < 3; i++)
		cand[i] = (struct ember_policy_chunk) { .priv = &g->chunk[i] };
	/* all within their 100 ms grace: the first to expire goes */
	CU_ASSERT_EQUAL(ember_policy_ember.pick_victim(g->pdata, cand, 3, t0 + 50 * MS), 0);
	/* grace over: lowest score, then oldest */
	g->chunk[0].score = EMBER_SCORE_ONE;
	CU_ASSERT_EQUAL(ember_policy_ember.pick_victim(g->pdata, cand, 3, t0 + 500 * MS), 1);
	cand[1].busy = true;
	CU_ASSERT_EQUAL(ember_policy_ember.pick_victim(g->pdata, cand, 3, t0 + 500 * MS), 2);

	/* evicted, then back within the return window: score and grace grow */
	r = (struct ember_policy_residency) {
		.va = 0, .now_ns = t0 + 600 * MS, .pages = EMBER_BLOCK_PAGES,
		.cause = EMBER_POLICY_CAUSE_EVICTION,
		.block_priv = &g->hist[2], .chunk_priv = &g->chunk[2],
	};
	ember_policy_ember.on_evict(g->pdata, &r);
	CU_ASSERT_EQUAL(g->hist[2].last_evict_ns, t0 + 600 * MS);
	CU_ASSERT_FALSE(g->chunk[2].resident);
	r.now_ns = t0 + 700 * MS;
	r.cause = EMBER_POLICY_CAUSE_FAULT;
	ember_policy_ember.on_return(g->pdata, &r);
	ember_policy_ember.on_arrive(g->pdata, &r);
	CU_ASSERT_EQUAL(g->hist[2].score, EMBER_SCORE_ONE);
	CU_ASSERT_EQUAL(g->chunk[2].grace_until_ns, t0 + 700 * MS + 350 * MS);
	ember_stop(g);

	/* perf_migration_aware_eviction_enable=0: oldest first, no grace */
	ember_params.perf_migration_aware_eviction_enable = 0;
	g = ember_start(200 * MiB, 200 * MiB);
	arrive(g, 0, EMBER_POLICY_CAUSE_FAULT, 0, t0);
	arrive(g, 1, EMBER_POLICY_CAUSE_FAULT, 0, t0 + 10 * MS);
	g->chunk[0].score = 8 * EMBER_SCORE_ONE;
	for (i = 0; i < 2; i++)
		cand[i] = (struct ember_policy_chunk) { .priv = &g->chunk[i] };
	CU_ASSERT_EQUAL(g->chunk[1].grace_until_ns, t0 + 10 * MS);
	CU_ASSERT_EQUAL(ember_policy_ember.pick_victim(g->pdata, cand, 2, t0 + 20 * MS), 0);
	ember_stop(g);
}

/* A range the application placed itself is left to it (paper, section 4). */
static void test_ember_hinted(void)
{
	struct ember_policy_notification n = { .va = 0, .counter = 1000, .range_end = 64 * MiB };
	struct ember_policy_span span;
	struct ember_policy_block b;
	struct fake_gpu *g = ember_start(200 * MiB, 200 * MiB);
	unsigned int i;

	memset(&b, 0, sizeof(b));
	b.hinted = true;
	b.preferred = EMBER_LOC_GPU;
	b.chunks_total = NCHUNKS;
	for (i = 0; i < 20; i++)
		ember_mask_set(&b.faulted, i);
	ember_mask_set(&b.resident_gpu, 100);
	ember_policy_ember.on_fault_block(g->pdata, &b);	/* stock: TBN */
	CU_ASSERT_EQUAL(b.dest, EMBER_LOC_GPU);
	CU_ASSERT_EQUAL(ember_mask_weight(&b.migrate), 32);
	ember_mask_set(&b.resident_cpu, 200);
	CU_ASSERT_FALSE(ember_policy_ember.on_notification(g->pdata, &n, &b, &span));
	CU_ASSERT_EQUAL(ember_policy_ember.promote_block(g->pdata, &n, &b), EMBER_PROMOTE_SKIP);
	ember_stop(g);
}

void add_policy_tests(void)
{
	CU_pSuite s = CU_add_suite("policies as ops tables", NULL, NULL);

	CU_add_test(s, "malformed ops tables are refused", test_ops_check);
	CU_add_test(s, "uvm: residency and the TBN prefetcher", test_uvm);
	CU_add_test(s, "ac: one block per notification", test_ac);
	CU_add_test(s, "ember: launch set-up, scaled periods, eager switch",
		    test_ember_launch_and_scale);
	CU_add_test(s, "ember: demand, spans, promotion switch",
		    test_ember_notification);
	CU_add_test(s, "ember: watermark stop and online replacement",
		    test_ember_promotion_and_reclaim);
	CU_add_test(s, "ember: victim order, returns, migration-aware switch",
		    test_ember_victims_and_history);
	CU_add_test(s, "ember: hinted ranges are the application's",
		    test_ember_hinted);
}
