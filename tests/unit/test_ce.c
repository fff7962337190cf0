/* SPDX-License-Identifier: MIT */
/* Copy engine: bytes move between apertures, semaphore, modelled time. */
#include <stdlib.h>
#include <string.h>

#include "tests.h"

#define MiB (1ull << 20)

static uint64_t xfer_ns(uint64_t bytes, uint64_t mbps)
{
	return (bytes * 1000000ull + mbps - 1) / mbps / 1000;
}

static void test_copy_moves_bytes_and_time(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint32_t sys2vid = gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM);
	uint32_t vid2sys = gmt_ce_flags(EMGPU_APERTURE_VIDMEM, EMGPU_APERTURE_SYSMEM);
	uint64_t i, one = xfer_ns(MiB, p->link_h2d_mbps) + p->ce_setup_ns;
	uint8_t *buf = malloc(MiB);
	struct gm_stats st;

	for (i = 0; i < MiB; i++)
		t->sys[TH_DATA + i] = (uint8_t)(i * 7 + 1);
	th_ce_setup(t);
	/* background copies: the issuing thread does not wait for them */
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_WORKER);
	th_ce_push(t, EMGPU_CE_OP_COPY, sys2vid | EMGPU_CE_SEMAPHORE | EMGPU_CE_INTERRUPT,
		   TH_DATA, 4 * MiB, MiB, 0xabc);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_RING_GET), 1);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 0xabc);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_COPY], 1);
	CU_ASSERT_EQUAL(gm_vram_read(t->g, 4 * MiB, buf, MiB), 0);
	CU_ASSERT_EQUAL(memcmp(buf, t->sys + TH_DATA, MiB), 0);
	/* size / bandwidth plus setup, exactly */
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), one);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_DONE_TIME_LO), one);
	/* back to sysmem, the other link direction, the other engine: parallel */
	th_ce_push(t, EMGPU_CE_OP_COPY, vid2sys, 4 * MiB, TH_DATA + 2 * MiB, MiB, 0);
	CU_ASSERT_EQUAL(memcmp(t->sys + TH_DATA + 2 * MiB, t->sys + TH_DATA, MiB), 0);
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), xfer_ns(MiB, p->link_d2h_mbps) + p->ce_setup_ns);
	/* a second host->device copy queues behind the first on the link;
	 * its engine decoded it while the first moved bytes: no setup */
	th_ce_push(t, EMGPU_CE_OP_COPY, sys2vid, TH_DATA, 8 * MiB, MiB, 0);
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), one + xfer_ns(MiB, p->link_h2d_mbps));
	/* memset of vidmem */
	th_ce_push(t, EMGPU_CE_OP_MEMSET, EMGPU_APERTURE_VIDMEM << EMGPU_CE_DST_APERTURE_SHIFT,
		   0x11223344, 12 * MiB, 4096, 0);
	CU_ASSERT_EQUAL(gm_vram_read(t->g, 12 * MiB + 4092, buf, 4), 0);
	CU_ASSERT_EQUAL(buf[0], 0x44);
	CU_ASSERT_EQUAL(buf[3], 0x11);
	gm_get_stats(t->g, &st);
	CU_ASSERT_EQUAL(st.copies, 4);
	CU_ASSERT_EQUAL(st.bytes_h2d, 2 * MiB);
	CU_ASSERT_EQUAL(st.bytes_d2h, MiB);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), 0);
	free(buf);
	th_free(t);
}

/* Copies rung by the FAULT thread delay the replay; worker copies do not. */
static void test_copy_who_waits(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint32_t sys2vid = gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM);

	th_ce_setup(t);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_WORKER);
	th_ce_push(t, EMGPU_CE_OP_COPY, sys2vid, TH_DATA, 0, 2 * MiB, 0);
	CU_ASSERT(gm_ce_done_ns(t->g) > 0);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_WORKER), 0);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT), 0);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_FAULT);
	th_ce_push(t, EMGPU_CE_OP_COPY, sys2vid, TH_DATA, 2 * MiB, 2 * MiB, 0);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT), gm_ce_done_ns(t->g));
	th_free(t);
}

/*
 * Page-by-page copies in one push run at link rate: each engine decodes
 * the next descriptor while the link moves the previous one's bytes, and a
 * FAULT-thread push is waited for once, at its last completion.
 */
static void test_copy_pipeline(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint32_t sys2vid = gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM);
	uint64_t page = xfer_ns(4096, p->link_h2d_mbps);
	uint32_t put = 0, i;

	th_ce_setup(t);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_FAULT);
	for (i = 0; i < 32; i++) {	/* 32 descriptors, one doorbell */
		struct emgpu_ce_desc d = gmt_ce_desc(EMGPU_CE_OP_COPY, sys2vid,
						     TH_DATA + 4096ull * i,
						     4096ull * i, 4096, 0);

		memcpy(t->sys + TH_CE_RING + 32 * put, &d, sizeof(d));
		put = (put + 1) % 64;
	}
	gm_reg_write(t->g, EMGPU_REG_CE_RING_PUT, put);
	gm_reg_write(t->g, EMGPU_REG_CE_DOORBELL, 1);
	/* 4096 B at 32 GB/s = 128 ns: the first pays setup, the rest only bytes */
	CU_ASSERT_EQUAL(page, 128);
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), p->ce_setup_ns + 32 * page);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT),
			p->ce_setup_ns + 32 * page);
	/* the next push from the FAULT thread is issued after this one */
	th_ce_push(t, EMGPU_CE_OP_COPY, sys2vid, TH_DATA, 1 * MiB, 4096, 0);
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), 2 * p->ce_setup_ns + 33 * page);
	th_free(t);
}

void add_ce_suite(void)
{
	CU_pSuite s = CU_add_suite("copy engine", NULL, NULL);

	CU_add_test(s, "copy moves bytes, time = size / bandwidth", test_copy_moves_bytes_and_time);
	CU_add_test(s, "fault-thread copies delay replay, worker copies do not", test_copy_who_waits);
	CU_add_test(s, "one push of page copies runs at link rate", test_copy_pipeline);
}
