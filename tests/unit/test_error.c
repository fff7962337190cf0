/* SPDX-License-Identifier: MIT */
/* Malformed guest values: an error code, never a crash. */
#include <string.h>

#include "tests.h"

static uint32_t err_of(struct th *t)
{
	uint32_t e = gm_reg_read(t->g, EMGPU_REG_ERROR_STATUS);

	gm_reg_write(t->g, EMGPU_REG_ERROR_CLEAR, 1);
	return e;
}

static void test_registers(void)
{
	struct th *t = th_new("h200-256m", 1, 0);

	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_ID), EMGPU_ID_MAGIC);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_PROFILE), EMGPU_PROFILE_H200);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_VRAM_SIZE_LO), 256u << 20);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, 0x3ffc), 0);		/* unknown: reads 0 */
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_REGISTER);	/* ...and is flagged */
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_ERROR], 1);
	gm_reg_write(t->g, 0x3ffc, 1);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_REGISTER);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_ERROR], 1);	/* status still set */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_DOORBELL), 0);	/* write-only */
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_PUT, 3);		/* read-only */
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_REGISTER);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_ERROR_COUNT), 4);
	/* each latched error reached the embedder's error callback once */
	CU_ASSERT_EQUAL(t->errors, 4);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_REGISTER);
	CU_ASSERT_EQUAL(t->last_error_info, EMGPU_REG_FAULT_BUF_PUT);
	/* W1C interrupt status; the vector fires only on a 0->1 transition */
	CU_ASSERT(gm_reg_read(t->g, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_ERROR);
	gm_reg_write(t->g, EMGPU_REG_INTR_STATUS, EMGPU_INTR_ERROR);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_INTR_STATUS), 0);
	gm_reg_write(t->g, EMGPU_REG_SCRATCH, 0x1234);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_SCRATCH), 0x1234);
	th_free(t);
}

static void test_rings(void)
{
	struct th *t = th_new("h200-256m", 1, 0);

	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_SIZE, 3);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_RING);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_SIZE, EMGPU_RING_MAX_ENTRIES * 2);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_RING);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_LO, 0x1234);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_RING);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);	/* no size */
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_RING);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_CTRL), 0);
	th_enable_faults(t, 16);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_NONE);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_GET, 16);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_INDEX);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_GET), 0);
	gm_reg_write(t->g, EMGPU_REG_AC_CONFIG, 0);		/* threshold 0 */
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_VALUE);
	gm_reg_write(t->g, EMGPU_REG_AC_CONFIG, 1 | 3u << EMGPU_AC_CONFIG_GRAN_SHIFT);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_VALUE);
	gm_reg_write(t->g, EMGPU_REG_CE_DOORBELL, 1);		/* no ring */
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_RING);
	th_ce_setup(t);
	gm_reg_write(t->g, EMGPU_REG_CE_RING_PUT, 64);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_INDEX);
	gm_reg_write(t->g, EMGPU_REG_TLB_INV, 7);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_VALUE);
	gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, 9);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_VALUE);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREADS);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_VALUE);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, 0xff);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_VALUE);
	th_free(t);
}

static void test_bad_descriptors(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint32_t sys2vid = gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM);
	uint64_t args[3] = { VA_BASE + 1, 128, 1 };

	th_ce_setup(t);
	th_ce_push(t, EMGPU_CE_OP_COPY, sys2vid, TH_DATA, 0, 6, 0);	/* not x4 */
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_DESCRIPTOR);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), EMGPU_CE_STATUS_ERROR);
	th_ce_push(t, 9, sys2vid, TH_DATA, 0, 4, 0);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_DESCRIPTOR);
	th_ce_push(t, EMGPU_CE_OP_COPY, 1u << 20, TH_DATA, 0, 4, 0);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_DESCRIPTOR);
	th_ce_push(t, EMGPU_CE_OP_COPY, sys2vid, TH_DATA, (256ull << 20) - 4, 8, 0);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_VRAM_RANGE);
	th_ce_push(t, EMGPU_CE_OP_COPY, sys2vid, 1ull << 40, 0, 4096, 0);	/* outside RAM */
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_DMA);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_RING_GET), 5);
	/* launches: unaligned buffer, unknown kernel, too many warps */
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_DESCRIPTOR);
	args[0] = VA_BASE;
	CU_ASSERT_EQUAL(th_launch(t, 77, 1, 0, args, 3), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_STREAM, 100000, 0, args, 3), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_LAUNCH_SEQ), 0);
	/* a launch while one runs is refused, the first goes on */
	th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0, 12, 0);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_DONE);
	th_free(t);
}

/* A malformed PTE met by a warp fails the launch with BAD_PTE. */
static void test_bad_pte_in_launch(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 128, 1 };

	th_set_raw(t, VA_BASE, 12, EMGPU_PTE_VALID | (1ull << 63));
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_BAD_PTE);
	/* a vidmem PTE beyond VRAM */
	th_set_raw(t, VA_BASE, 12, EMGPU_PTE_VALID | (1ull << 40));
	gm_reg_write(t->g, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_ALL);
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_VRAM_RANGE);
	/* fault buffer DMA failure */
	th_unmap(t, VA_BASE, 12);
	gm_reg_write(t->g, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_ALL);
	th_enable_faults(t, 64);
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	t->flat.fail = 1;
	gm_run(t->g, 0);
	t->flat.fail = 0;
	CU_ASSERT_EQUAL(err_of(t), EMGPU_ERR_DMA);
	th_free(t);
}

static uint64_t reg64(struct th *t, uint32_t lo, uint32_t hi)
{
	uint64_t v = gm_reg_read(t->g, lo);

	return v | (uint64_t)gm_reg_read(t->g, hi) << 32;
}

/*
 * PROFILE names the card and FULL_VRAM_SIZE the one a scaled profile
 * stands for under the scaling rule (the paper's card, capped at 16 GiB),
 * so a driver reads k = FULL_VRAM_SIZE / VRAM_SIZE and needs no table of
 * its own; the access counters are the paper card's divided by k.
 * "-norule" shrinks VRAM only (k = 1, 256 counters).
 */
static void test_profile_registers(void)
{
	static const struct {
		const char *name;
		uint32_t id;
		uint64_t vram, full;
		uint32_t counters;
	} cases[] = {
		{ "h200", EMGPU_PROFILE_H200, 141ull << 30, 141ull << 30, 256 },
		{ "h200-16g", EMGPU_PROFILE_H200, 16ull << 30, 16ull << 30, 256 },
		{ "h200-512m", EMGPU_PROFILE_H200, 512ull << 20, 16ull << 30, 8 },
		{ "h200-256m", EMGPU_PROFILE_H200, 256ull << 20, 16ull << 30, 4 },
		{ "h200-256m-norule", EMGPU_PROFILE_H200, 256ull << 20, 256ull << 20, 256 },
		/* "h200" is a prefix of "h200x16": the lookup must not stop there */
		{ "h200x16", EMGPU_PROFILE_H200X16, 141ull << 30, 141ull << 30, 256 },
		{ "h200x16-2g", EMGPU_PROFILE_H200X16, 2ull << 30, 16ull << 30, 32 },
		{ "rtx5080-1g", EMGPU_PROFILE_RTX5080, 1ull << 30, 16ull << 30, 16 },
		{ "a40-64m", EMGPU_PROFILE_A40, 64ull << 20, 16ull << 30, 1 },
		{ "gh200-512m", EMGPU_PROFILE_GH200, 512ull << 20, 16ull << 30, 8 },
		{ "gh200-32g", EMGPU_PROFILE_GH200, 32ull << 30, 32ull << 30, 256 },
	};
	struct gm_profile p;
	struct th *t;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t = th_new(cases[i].name, 1, 0);
		CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_PROFILE), cases[i].id);
		CU_ASSERT_EQUAL(reg64(t, EMGPU_REG_VRAM_SIZE_LO, EMGPU_REG_VRAM_SIZE_HI),
				cases[i].vram);
		CU_ASSERT_EQUAL(reg64(t, EMGPU_REG_FULL_VRAM_SIZE_LO,
				      EMGPU_REG_FULL_VRAM_SIZE_HI), cases[i].full);
		CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_NUM_ACCESS_COUNTERS),
				cases[i].counters);
		CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_ERROR_STATUS), EMGPU_ERR_NONE);
		th_free(t);
	}
	CU_ASSERT_EQUAL(gm_profile_lookup("h200-norule", &p), -EINVAL);
	CU_ASSERT_EQUAL(gm_profile_lookup("h200-256x", &p), -EINVAL);
	/* scaling a scaled profile again (QEMU's vram-size on "h200-256m"):
	 * the same paper card, k doubles */
	CU_ASSERT_EQUAL(gm_profile_lookup("h200-256m", &p), 0);
	CU_ASSERT_EQUAL(gm_profile_scale(&p, 128ull << 20, &p), 0);
	t = th_new_profile(&p, 1, 0);
	CU_ASSERT_EQUAL(reg64(t, EMGPU_REG_FULL_VRAM_SIZE_LO, EMGPU_REG_FULL_VRAM_SIZE_HI),
			16ull << 30);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_NUM_ACCESS_COUNTERS), 2);
	th_free(t);
	/* and with the rule off it stays off */
	CU_ASSERT_EQUAL(gm_profile_lookup("h200-256m-norule", &p), 0);
	CU_ASSERT_EQUAL(gm_profile_scale(&p, 128ull << 20, &p), 0);
	CU_ASSERT_EQUAL(gm_profile_full_vram(&p), 128ull << 20);
	CU_ASSERT_EQUAL(p.num_access_counters, 256);
}

/* PTIMER: LO latches HI. */
static void test_ptimer_latch(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 128, 1 };

	th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0, 12, 0);
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	gm_run(t->g, 0);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_PTIMER_LO), (uint32_t)gm_now_ns(t->g));
	CU_ASSERT(gm_now_ns(t->g) > 0);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_PTIMER_HI), 0);
	th_free(t);
}

void add_error_suite(void)
{
	CU_pSuite s = CU_add_suite("malformed inputs", NULL, NULL);

	CU_add_test(s, "registers, W1C, error latch", test_registers);
	CU_add_test(s, "ring configuration and indexes", test_rings);
	CU_add_test(s, "copy and launch descriptors", test_bad_descriptors);
	CU_add_test(s, "bad PTE, VRAM range, DMA failure in a launch", test_bad_pte_in_launch);
	CU_add_test(s, "PTIMER latch", test_ptimer_latch);
	CU_add_test(s, "PROFILE, FULL_VRAM_SIZE and counters by the scaling rule",
		    test_profile_registers);
}
