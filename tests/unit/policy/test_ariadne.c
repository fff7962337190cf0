/* SPDX-License-Identifier: MIT */
/*
 * CUnit tests of ARIADNE's decisions (policy/
 * ember_policy_ariadne.c), compiled in userspace from the source ember.ko
 * builds: parameters, sharing degree over the circular fault history, the
 * eviction key, the WCSS windows, dynamic zero-copy and its timing,
 * dynamic prefetching, proactive eviction.
 */
#include <string.h>

#include <CUnit/Basic.h>

#include "ember_policy_ariadne.h"
#include "policy_tests.h"

#define US 1000ull
#define MS 1000000ull

static const struct ariadne_params defaults = ARIADNE_PARAMS_DEFAULT;

/* The paper's defaults pass; each bad value is refused by name. */
static void test_params(void)
{
	struct ariadne_params p = defaults;
	char msg[128];

	CU_ASSERT_EQUAL(p.history, 16);
	CU_ASSERT_EQUAL(p.sd_weight_us, 100);
	CU_ASSERT_EQUAL(p.prefetch_sd, 3);
	CU_ASSERT_EQUAL(p.zero_copy_ms, 100);
	CU_ASSERT_EQUAL(p.wcss_keep_ms, 500);
	CU_ASSERT_EQUAL(ariadne_params_check(&p, msg, sizeof(msg)), 0);
	p.history = 0;
	CU_ASSERT_EQUAL(ariadne_params_check(&p, msg, sizeof(msg)), -1);
	CU_ASSERT_STRING_EQUAL(msg, "history=0 is out of range [1, 32]");
	p = defaults;
	p.zero_copy_ms = 0;
	CU_ASSERT_EQUAL(ariadne_params_check(&p, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "zero_copy_ms=0"));
	p = defaults;
	p.evict_free_pct = 51;
	CU_ASSERT_EQUAL(ariadne_params_check(&p, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "evict_free_pct=51"));
}

/* SD = distinct ids among the last `history` faults, oldest overwritten. */
static void test_sharing_degree(void)
{
	struct ariadne_block b;
	struct ariadne_params p = defaults;
	uint16_t ids[20];
	unsigned int i;

	memset(&b, 0, sizeof(b));
	CU_ASSERT_EQUAL(ariadne_sharing_degree(&p, &b), 0);
	/* a sparse block: one uTLB faults again and again */
	for (i = 0; i < 20; i++)
		ids[i] = 7;
	CU_ASSERT_EQUAL(ariadne_record_faults(&p, &b, ids, 20), 1);
	/* id 0 is a real uTLB, distinct from an empty slot */
	ids[0] = 0;
	CU_ASSERT_EQUAL(ariadne_record_faults(&p, &b, ids, 1), 2);
	/* 16 faults from 8 uTLBs push every old entry out */
	for (i = 0; i < 16; i++)
		ids[i] = (uint16_t)(10 + i % 8);
	CU_ASSERT_EQUAL(ariadne_record_faults(&p, &b, ids, 16), 8);
	/* 15 faults from one more uTLB leave one of the 8 in the queue */
	for (i = 0; i < 15; i++)
		ids[i] = 30;
	CU_ASSERT_EQUAL(ariadne_record_faults(&p, &b, ids, 15), 2);
	/* a shorter history forgets sooner */
	memset(&b, 0, sizeof(b));
	p.history = 4;
	for (i = 0; i < 6; i++)
		ids[i] = (uint16_t)i;
	CU_ASSERT_EQUAL(ariadne_record_faults(&p, &b, ids, 6), 4);
}

/* key = last fault time + 100 us x SD / 16 */
static void test_priority_key(void)
{
	struct ariadne_block sparse, dense;
	uint16_t ids[16];
	unsigned int i;

	memset(&sparse, 0, sizeof(sparse));
	memset(&dense, 0, sizeof(dense));
	for (i = 0; i < 16; i++)
		ids[i] = (uint16_t)i;
	ariadne_record_faults(&defaults, &dense, ids, 16);
	ariadne_record_faults(&defaults, &sparse, ids, 1);
	dense.last_fault_ns = 1000 * US;
	sparse.last_fault_ns = 1000 * US + 90 * US;
	CU_ASSERT_EQUAL(ariadne_priority_key(&defaults, &sparse),
			1090 * US + 100 * US / 16);
	CU_ASSERT_EQUAL(ariadne_priority_key(&defaults, &dense), 1100 * US);
	/* the dense block faulted 90 us earlier, yet the sparse one goes first */
	{
		struct ariadne_state s;
		struct ember_policy_chunk c[2] = {
			{ .va = 0, .last_used_ns = 1, .block_priv = &dense },
			{ .va = 2 << 20, .last_used_ns = 2, .block_priv = &sparse },
		};

		ariadne_state_init(&s, &defaults, 8);
		CU_ASSERT_EQUAL(ariadne_pick_victim(&s, c, 2), 1);
		c[1].busy = true;
		CU_ASSERT_EQUAL(ariadne_pick_victim(&s, c, 2), 0);
	}
}

/* Windows forget events older than their span; returns cancel events. */
static void test_window(void)
{
	struct ariadne_window w;

	ariadne_window_init(&w, 500 * MS);
	ariadne_window_add(&w, 10 * MS, 1);
	ariadne_window_add(&w, 20 * MS, 1);
	CU_ASSERT_EQUAL(ariadne_window_count(&w, 400 * MS), 2);
	ariadne_window_add(&w, 20 * MS, -1);
	CU_ASSERT_EQUAL(ariadne_window_count(&w, 400 * MS), 1);
	/* 10 ms + 500 ms: forgotten (bucket granularity 500 / 64 ms) */
	CU_ASSERT_EQUAL(ariadne_window_count(&w, 520 * MS), 0);
	/* a cancel of a forgotten event changes nothing */
	ariadne_window_add(&w, 10 * MS, -1);
	CU_ASSERT_EQUAL(ariadne_window_count(&w, 520 * MS), 0);
	/* a long jump clears everything */
	ariadne_window_add(&w, 600 * MS, 1);
	CU_ASSERT_EQUAL(ariadne_window_count(&w, 5000 * MS), 0);
}

static void fault_view(struct ember_policy_block *blk, void *priv, uint64_t now,
		       uint32_t used, uint32_t total, unsigned int page)
{
	memset(blk, 0, sizeof(*blk));
	blk->start = 64ull << 20;
	blk->range_start = blk->start;
	blk->range_end = blk->start + (64ull << 20);
	blk->now_ns = now;
	blk->chunks_used = used;
	blk->chunks_total = total;
	blk->priv = priv;
	ember_mask_set(&blk->faulted, page);
}

/*
 * Dynamic prefetching: with little free memory a sparse block gets the
 * stock prefetcher's pages, a dense one (SD > 3) the whole block; with
 * ample free memory every block is copied whole.
 */
static void test_dynamic_prefetch(void)
{
	struct ariadne_state s;
	struct ariadne_block b;
	struct ember_policy_block blk;
	uint16_t ids[4] = { 1, 2, 3, 4 };

	ariadne_state_init(&s, &defaults, 64);
	memset(&b, 0, sizeof(b));
	fault_view(&blk, &b, 1 * MS, 60, 64, 5);
	ariadne_fault_block(&s, &b, &blk, ids, 1);
	CU_ASSERT_EQUAL(blk.dest, EMBER_LOC_GPU);
	/* one fault in an empty block: its 64 KiB big page only */
	CU_ASSERT_EQUAL(ember_mask_weight(&blk.migrate), 16);
	CU_ASSERT(ember_mask_test(&blk.migrate, 5));
	fault_view(&blk, &b, 2 * MS, 60, 64, 300);
	ariadne_fault_block(&s, &b, &blk, ids + 1, 3);	/* SD 4 */
	CU_ASSERT_EQUAL(b.sd, 4);
	CU_ASSERT_EQUAL(ember_mask_weight(&blk.migrate), EMBER_BLOCK_PAGES);
	/* ample: half the GPU free */
	memset(&b, 0, sizeof(b));
	fault_view(&blk, &b, 3 * MS, 32, 64, 5);
	ariadne_fault_block(&s, &b, &blk, ids, 1);
	CU_ASSERT_EQUAL(ember_mask_weight(&blk.migrate), EMBER_BLOCK_PAGES);
	/* never past the allocation's end */
	memset(&b, 0, sizeof(b));
	fault_view(&blk, &b, 4 * MS, 0, 64, 5);
	blk.range_end = blk.start + (1 << 20);
	ariadne_fault_block(&s, &b, &blk, ids, 1);
	CU_ASSERT_EQUAL(ember_mask_weight(&blk.migrate), EMBER_BLOCK_PAGES / 2);
}

/*
 * Dynamic zero-copy: under oversubscription (WCSS above the GPU: full
 * memory plus a recent eviction, average SD sparse) an evicted block that
 * faults again stays in host memory for 100 ms; a notification within
 * them is declined, one after them promotes; a fault after them returns
 * it to the GPU.
 */
static void test_zero_copy_timing(void)
{
	struct ariadne_state s;
	struct ariadne_block b;
	struct ember_policy_block blk;
	uint16_t one = 3;

	ariadne_state_init(&s, &defaults, 64);
	memset(&b, 0, sizeof(b));
	fault_view(&blk, &b, 1 * MS, 63, 64, 0);
	ariadne_fault_block(&s, &b, &blk, &one, 1);
	CU_ASSERT_EQUAL(blk.dest, EMBER_LOC_GPU);
	ariadne_evicted(&s, &b, 10 * MS);
	CU_ASSERT_EQUAL(ariadne_wcss(&s, 10 * MS), 64);	/* 63 + 1 evicted */
	fault_view(&blk, &b, 20 * MS, 64, 64, 1);
	ariadne_fault_block(&s, &b, &blk, &one, 1);
	CU_ASSERT_EQUAL(blk.dest, EMBER_LOC_CPU);
	CU_ASSERT(ember_mask_test(&blk.migrate, 1));
	CU_ASSERT_EQUAL(s.zero_copy_entries, 1);
	/* counted once: zero-copy now, no longer evicted */
	CU_ASSERT_EQUAL(ariadne_wcss(&s, 20 * MS), 65);
	/* within 100 ms: faults stay in host memory, notifications wait */
	fault_view(&blk, &b, 119 * MS, 64, 64, 2);
	ariadne_fault_block(&s, &b, &blk, &one, 1);
	CU_ASSERT_EQUAL(blk.dest, EMBER_LOC_CPU);
	CU_ASSERT_FALSE(ariadne_notified(&s, &b, 119 * MS));
	/* after them a notification promotes it */
	CU_ASSERT_TRUE(ariadne_notified(&s, &b, 120 * MS));
	CU_ASSERT_EQUAL(b.in_zero_copy, 0);
	CU_ASSERT_EQUAL(ariadne_wcss(&s, 120 * MS), 64);
	/* a block never evicted takes no detour */
	memset(&b, 0, sizeof(b));
	fault_view(&blk, &b, 130 * MS, 64, 64, 0);
	ariadne_fault_block(&s, &b, &blk, &one, 1);
	CU_ASSERT_EQUAL(blk.dest, EMBER_LOC_GPU);
}

/* Without oversubscription, or for a dense workload, a refetch returns. */
static void test_zero_copy_needs_pressure(void)
{
	struct ariadne_state s;
	struct ariadne_block b;
	struct ember_policy_block blk;
	uint16_t ids[16];
	unsigned int i;

	ariadne_state_init(&s, &defaults, 64);
	memset(&b, 0, sizeof(b));
	fault_view(&blk, &b, 1 * MS, 10, 64, 0);
	ariadne_fault_block(&s, &b, &blk, ids, 0);
	ariadne_evicted(&s, &b, 2 * MS);
	fault_view(&blk, &b, 3 * MS, 10, 64, 0);
	ariadne_fault_block(&s, &b, &blk, ids, 0);
	CU_ASSERT_EQUAL(blk.dest, EMBER_LOC_GPU);
	/* dense: the GPU-wide SD is high, evicted blocks leave the WCSS */
	for (i = 0; i < 16; i++)
		ids[i] = (uint16_t)i;
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 8; i++) {
		fault_view(&blk, &b, (4 + i) * MS, 64, 64, i);
		ariadne_fault_block(&s, &b, &blk, ids, 16);
	}
	CU_ASSERT(s.avg_sd_x16 > 16 * defaults.sparse_sd);
	ariadne_evicted(&s, &b, 20 * MS);
	CU_ASSERT_EQUAL(ariadne_wcss(&s, 20 * MS), 64);
	fault_view(&blk, &b, 21 * MS, 64, 64, 0);
	ariadne_fault_block(&s, &b, &blk, ids, 16);
	CU_ASSERT_EQUAL(blk.dest, EMBER_LOC_GPU);
}

/* The worker frees memory down to 5 %, lowest keys first, skipping busy. */
static void test_eager_victims(void)
{
	struct ariadne_state s;
	struct ariadne_block b[6];
	struct ember_policy_chunk c[6];
	uint32_t victims[6];
	struct ember_policy_tick t = { .chunks = c, .n = 6, .victims = victims,
				       .chunks_used = 40, .chunks_total = 40 };
	unsigned int i;

	ariadne_state_init(&s, &defaults, 40);
	memset(b, 0, sizeof(b));
	memset(c, 0, sizeof(c));
	for (i = 0; i < 6; i++) {
		b[i].last_fault_ns = (10 - i) * MS;	/* 5 is the oldest */
		c[i].block_priv = &b[i];
	}
	c[5].busy = true;
	CU_ASSERT_EQUAL(ariadne_eager_victims(&s, &t), 2);	/* 5 % of 40 */
	CU_ASSERT_EQUAL(victims[0], 4);
	CU_ASSERT_EQUAL(victims[1], 3);
	t.chunks_used = 37;
	CU_ASSERT_EQUAL(ariadne_eager_victims(&s, &t), 0);
}

void add_ariadne_tests(void)
{
	CU_pSuite s = CU_add_suite("ariadne", NULL, NULL);

	CU_add_test(s, "parameters: paper defaults, out of range refused", test_params);
	CU_add_test(s, "sharing degree over the last 16 faults", test_sharing_degree);
	CU_add_test(s, "priority key: last fault + 100 us x SD / 16", test_priority_key);
	CU_add_test(s, "counting windows forget and cancel", test_window);
	CU_add_test(s, "dynamic prefetching: SD > 3 or ample memory", test_dynamic_prefetch);
	CU_add_test(s, "dynamic zero-copy: 100 ms in host memory", test_zero_copy_timing);
	CU_add_test(s, "zero-copy only under oversubscription", test_zero_copy_needs_pressure);
	CU_add_test(s, "proactive eviction by key", test_eager_victims);
}
