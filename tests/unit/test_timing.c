/* SPDX-License-Identifier: MIT */
/* Shared link bandwidth, and the trace hash's determinism. */
#include <stdio.h>
#include <string.h>

#include "gpumodel/kernel.h"
#include "tests.h"

static void map_range(struct th *t, uint64_t bytes, unsigned int ap)
{
	uint64_t off;

	for (off = 0; off < bytes; off += 4096)
		th_map(t, VA_BASE + off, ap,
		       (ap == EMGPU_APERTURE_SYSMEM ? TH_DATA : 0) + off, 12, 0);
}

/* reads every line of bytes once (hotset without randomness), in ns */
static uint64_t read_time(unsigned int ap, uint32_t warps, uint64_t bytes)
{
	struct gm_profile p;
	struct th *t;
	uint64_t args[6] = { VA_BASE, bytes, 0, 0, 32, 1 }, ns;

	gm_profile_lookup("h200-256m", &p);
	p.link_h2d_mbps = p.link_d2h_mbps = 100;	/* the link is the bottleneck */
	t = th_new_profile(&p, 1, 0);
	map_range(t, bytes, ap);
	th_launch(t, EMGPU_KERNEL_HOTSET, warps, 0, args, 6);
	CU_ASSERT_EQUAL(th_run_to_end(t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
	ns = gm_launch_time_ns(t->g);
	th_free(t);
	return ns;
}

/* Two warps each doing one warp's work over the link take ~twice as long. */
static void test_link_contention(void)
{
	uint64_t one = read_time(EMGPU_APERTURE_SYSMEM, 1, 2 * 4096);
	uint64_t two = read_time(EMGPU_APERTURE_SYSMEM, 2, 4 * 4096);

	CU_ASSERT(one > 64 * 1280);		/* 64 lines x 1.28 us per 128 B */
	CU_ASSERT(two * 10 >= one * 19);
	CU_ASSERT(two * 10 <= one * 21);
	/* in VRAM the same two warps do not saturate bandwidth: no doubling */
	one = read_time(EMGPU_APERTURE_VIDMEM, 1, 2 * 4096);
	two = read_time(EMGPU_APERTURE_VIDMEM, 2, 4 * 4096);
	CU_ASSERT(two * 10 <= one * 12);
}

struct scenario {
	uint64_t hash, result, sim_ns;
};

static void map_on_fault(struct th *t, uint64_t va, void *ctx)
{
	(void)ctx;
	th_map(t, va, EMGPU_APERTURE_SYSMEM, TH_DATA + (va - VA_BASE), 12, 0);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION,
		     EMGPU_DRV_ACTION_FAULT_PAGE | 1 << EMGPU_DRV_ACTION_COUNT_SHIFT);
}

/* gather over faulting memory with counters and a copy: every event kind */
static struct scenario run_scenario(uint64_t seed, int poke)
{
	struct th *t = th_new("h200-256m", seed, 0);
	uint64_t args[4] = { VA_BASE, 64 * 4096, VA_BASE + 64 * 4096, 512 };
	struct scenario s;
	uint32_t i;

	for (i = 0; i < 64 * 1024; i++)
		memcpy(t->sys + TH_DATA + 4 * i, &i, 4);
	if (poke)	/* one bit of the line item 0 reads */
		t->sys[TH_DATA + 128 * (gm_mix64(seed) % (64 * 32)) + 16] ^= 1;
	th_enable_faults(t, 64);
	th_enable_counters(t, 64, 16, EMGPU_AC_GRAN_64K);
	th_ce_setup(t);
	th_ce_push(t, EMGPU_CE_OP_COPY,
		   EMGPU_APERTURE_SYSMEM << EMGPU_CE_SRC_APERTURE_SHIFT, TH_DATA, 0,
		   65536, 0);
	th_launch(t, EMGPU_KERNEL_GATHER, 8, seed, args, 4);
	CU_ASSERT_EQUAL(th_run_to_end(t, map_on_fault, NULL, NULL), EMGPU_LAUNCH_DONE);
	s.hash = gm_trace_hash(t->g);
	s.result = gm_launch_result(t->g);
	s.sim_ns = gm_now_ns(t->g);
	/* the register view of the hash, LO latching HI */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_TRACE_HASH_LO), (uint32_t)s.hash);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_TRACE_HASH_HI), (uint32_t)(s.hash >> 32));
	th_free(t);
	return s;
}

static void test_hash_deterministic(void)
{
	struct scenario a = run_scenario(42, 0), b = run_scenario(42, 0);
	struct scenario c = run_scenario(43, 0), d = run_scenario(42, 1);

	CU_ASSERT_EQUAL(a.hash, b.hash);
	CU_ASSERT_EQUAL(a.result, b.result);
	CU_ASSERT_EQUAL(a.sim_ns, b.sim_ns);
	CU_ASSERT_NOT_EQUAL(a.hash, c.hash);	/* another seed: other lines */
	CU_ASSERT_NOT_EQUAL(a.hash, d.hash);	/* one input bit changed */
	CU_ASSERT_NOT_EQUAL(a.result, d.result);
}

/* gather computes the right answer through faults */
static void test_gather_result(void)
{
	struct th *t = th_new("h200-256m", 5, 0);
	uint64_t args[4] = { VA_BASE, 16 * 4096, VA_BASE + 16 * 4096, 64 };
	uint32_t i, k, line, sum;

	for (i = 0; i < 16 * 1024; i++)
		memcpy(t->sys + TH_DATA + 4 * i, &i, 4);
	th_enable_faults(t, 64);
	th_launch(t, EMGPU_KERNEL_GATHER, 3, 99, args, 4);
	CU_ASSERT_EQUAL(th_run_to_end(t, map_on_fault, NULL, NULL), EMGPU_LAUNCH_DONE);
	for (k = 0; k < 64; k++) {
		line = (uint32_t)(gm_mix64(99 + k) % (16 * 4096 / 128));
		for (sum = 0, i = 0; i < 32; i++)
			sum += line * 32 + i;
		CU_ASSERT_EQUAL(th_u32(t, TH_DATA + 16 * 4096 + 4 * k), sum);
	}
	th_free(t);
}

/* The policy timer stops the run at its period. */
static void test_timer(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 64 * 4096, 50 };

	map_range(t, 64 * 4096, EMGPU_APERTURE_VIDMEM);
	gm_reg_write(t->g, EMGPU_REG_TIMER_PERIOD_HI, 0);
	gm_reg_write(t->g, EMGPU_REG_TIMER_PERIOD_LO, 20000);
	th_launch(t, EMGPU_KERNEL_STREAM, 4, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_TIMER);
	CU_ASSERT_EQUAL(gm_now_ns(t->g), 20000);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_PTIMER_LO), 20000);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_PTIMER_HI), 0);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_TIMER], 1);
	gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_TIMER);
	CU_ASSERT_EQUAL(gm_now_ns(t->g), 40000);
	th_free(t);
}

void add_timing_suite(void)
{
	CU_pSuite s = CU_add_suite("timing and determinism", NULL, NULL);

	CU_add_test(s, "two warps contending for the link take twice as long", test_link_contention);
	CU_add_test(s, "same seed same hash; other seed or input other hash", test_hash_deterministic);
	CU_add_test(s, "gather output is right through faults", test_gather_result);
	CU_add_test(s, "policy timer ticks at its period", test_timer);
}
