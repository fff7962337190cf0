/* SPDX-License-Identifier: MIT */
/*
 * Device reset clears every staged _HI half of a 64-bit register: a _LO
 * written after the reset commits 0 above bit 31, in both personalities.
 */
#include <stdlib.h>

#include "tests.h"
#include "ga10x/regs.h"

/* _HI staged by a write, then committed by the _LO write */
struct staged_pair {
	uint32_t hi, lo, lo_value;
};

/* emgpu_hw.h's pairs: the register file both personalities share */
static const struct staged_pair shared_pairs[] = {
	{ EMGPU_REG_PDB_HI, EMGPU_REG_PDB_LO, 0 },
	{ EMGPU_REG_TLB_INV_VA_HI, EMGPU_REG_TLB_INV_VA_LO, 0x1000 },
	{ EMGPU_REG_TLB_INV_SIZE_HI, EMGPU_REG_TLB_INV_SIZE_LO, 0x1000 },
	{ EMGPU_REG_FAULT_BUF_HI, EMGPU_REG_FAULT_BUF_LO, 0x1000 },
	{ EMGPU_REG_AC_BUF_HI, EMGPU_REG_AC_BUF_LO, 0x1000 },
	{ EMGPU_REG_CE_RING_HI, EMGPU_REG_CE_RING_LO, 0x1000 },
	{ EMGPU_REG_CE_SEM_HI, EMGPU_REG_CE_SEM_LO, 0x1000 },
	{ EMGPU_REG_LAUNCH_DESC_HI, EMGPU_REG_LAUNCH_DESC_LO, 0x1000 },
	{ EMGPU_REG_TIMER_PERIOD_HI, EMGPU_REG_TIMER_PERIOD_LO, 0 },
};

/* GA10x's own pairs (channel 0's for the channel registers) */
static const struct staged_pair ga10x_pairs[] = {
	{ GA10X_REG_FAULT_BUF_HI, GA10X_REG_FAULT_BUF_LO, 0x1000 },
	{ GA10X_REG_AC_BUF_HI, GA10X_REG_AC_BUF_LO, 0x1000 },
	{ GA10X_REG_MMU_INVALIDATE_PDB_HI, GA10X_REG_MMU_INVALIDATE_PDB_LO, 0x1000 },
	{ GA10X_REG_CHAN(0, GA10X_REG_CHAN_PDB_HI),
	  GA10X_REG_CHAN(0, GA10X_REG_CHAN_PDB_LO), 0x1000 },
};

static struct gm_gpu *new_gpu(enum gm_personality p)
{
	struct gm_config cfg = { .personality = p, .seed = 1 };
	struct gm_callbacks cb = { 0 };
	struct gm_gpu *g;

	CU_ASSERT_FATAL(gm_profile_lookup("h200-256m", &cfg.profile) == 0);
	g = gm_create(&cfg, &cb);
	CU_ASSERT_FATAL(g != NULL);
	return g;
}

static void check_pairs(struct gm_gpu *g, const struct staged_pair *pairs,
			size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		gm_reg_write(g, pairs[i].hi, 0x5a);
	gm_reg_write(g, EMGPU_REG_RESET, EMGPU_RESET_MAGIC);
	for (i = 0; i < n; i++) {
		gm_reg_write(g, pairs[i].lo, pairs[i].lo_value);
		CU_ASSERT_EQUAL(gm_reg_read(g, pairs[i].hi), 0);
		CU_ASSERT_EQUAL(gm_reg_read(g, pairs[i].lo), pairs[i].lo_value);
	}
	CU_ASSERT_EQUAL(gm_error_status(g), 0);
}

/* _HI halves latched by a _LO read before the reset read as 0 after it */
static void check_latches(struct gm_gpu *g)
{
	gm_reg_write(g, EMGPU_REG_DRIVER_TIME, 0xffffffffu);	/* past 2^32 ns */
	gm_reg_write(g, EMGPU_REG_DRIVER_TIME, 0xffffffffu);
	(void)gm_reg_read(g, EMGPU_REG_PTIMER_LO);
	CU_ASSERT_NOT_EQUAL(gm_reg_read(g, EMGPU_REG_PTIMER_HI), 0);
	(void)gm_reg_read(g, EMGPU_REG_TRACE_HASH_LO);
	CU_ASSERT_NOT_EQUAL(gm_reg_read(g, EMGPU_REG_TRACE_HASH_HI), 0);
	gm_reg_write(g, EMGPU_REG_RESET, EMGPU_RESET_MAGIC);
	CU_ASSERT_EQUAL(gm_reg_read(g, EMGPU_REG_PTIMER_HI), 0);
	CU_ASSERT_EQUAL(gm_reg_read(g, EMGPU_REG_LAUNCH_TIME_HI), 0);
	CU_ASSERT_EQUAL(gm_reg_read(g, EMGPU_REG_TRACE_HASH_HI), 0);
	CU_ASSERT_EQUAL(gm_reg_read(g, EMGPU_REG_LAUNCH_RESULT_HI), 0);
}

static void test_reset_emgpu(void)
{
	struct gm_gpu *g = new_gpu(GM_PERSONALITY_EMGPU);

	check_pairs(g, shared_pairs, sizeof(shared_pairs) / sizeof(shared_pairs[0]));
	check_latches(g);
	gm_destroy(g);
}

static void test_reset_ga10x(void)
{
	struct gm_gpu *g = new_gpu(GM_PERSONALITY_GA10X);

	check_pairs(g, shared_pairs, sizeof(shared_pairs) / sizeof(shared_pairs[0]));
	check_pairs(g, ga10x_pairs, sizeof(ga10x_pairs) / sizeof(ga10x_pairs[0]));
	check_latches(g);
	gm_destroy(g);
}

void add_reset_suite(void)
{
	CU_pSuite s = CU_add_suite("reset", NULL, NULL);

	CU_add_test(s, "reset clears staged _HI halves (emgpu)", test_reset_emgpu);
	CU_add_test(s, "reset clears staged _HI halves (GA10x)", test_reset_ga10x);
}
