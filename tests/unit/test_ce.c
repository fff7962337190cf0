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

#define MEMSET_VID	(EMGPU_APERTURE_VIDMEM << EMGPU_CE_DST_APERTURE_SHIFT)

/* Queues a descriptor at *put of th_ce_setup()'s 64-entry ring. */
static void ce_queue(struct th *t, uint32_t *put, uint32_t op, uint32_t flags,
		     uint64_t src, uint64_t dst, uint32_t len, uint32_t payload)
{
	struct emgpu_ce_desc d = gmt_ce_desc(op, flags, src, dst, len, payload);

	memcpy(t->sys + TH_CE_RING + 32 * *put, &d, sizeof(d));
	*put = (*put + 1) % 64;
}

static void ce_ring(struct th *t, uint32_t put)
{
	gm_reg_write(t->g, EMGPU_REG_CE_RING_PUT, put);
	gm_reg_write(t->g, EMGPU_REG_CE_DOORBELL, 1);
}

/* Whether VRAM [addr, addr + len) holds the 32-bit pattern throughout. */
static int vram_holds(struct th *t, uint64_t addr, uint64_t len, uint32_t pattern)
{
	static uint32_t buf[MiB / 4];
	uint64_t off, i, n;

	for (off = 0; off < len; off += n) {
		n = len - off < MiB ? len - off : MiB;
		if (gm_vram_read(t->g, addr + off, buf, n))
			return 0;
		for (i = 0; i < n / 4; i++)
			if (buf[i] != pattern)
				return 0;
	}
	return 1;
}

/*
 * Queues three 48 MiB memsets of VRAM, back to back from 0, with pat[0..2];
 * the last releases 0x5e at the semaphore and raises the copy interrupt.
 */
static void queue_three_memsets(struct th *t, uint32_t *put, const uint32_t pat[3])
{
	uint32_t i;

	for (i = 0; i < 3; i++)
		ce_queue(t, put, EMGPU_CE_OP_MEMSET, MEMSET_VID |
			 (i == 2 ? EMGPU_CE_SEMAPHORE | EMGPU_CE_INTERRUPT : 0),
			 pat[i], 48 * MiB * i, 48 * MiB, 0x5e);
}

/* The time of n memsets of len bytes each in one push from an idle device. */
static uint64_t memsets_ns(const struct gm_profile *p, unsigned int n, uint64_t len)
{
	uint64_t ps = (len * 1000000ull + p->vram_bw_mbps - 1) / p->vram_bw_mbps;

	return (p->ce_setup_ns * 1000 + n * ps) / 1000;
}

/*
 * A push of three 48 MiB memsets is more than one slice (GM_CE_WORK): the
 * doorbell runs the first and a third of the second, each gm_run() one
 * more slice before any warp; the semaphore and the interrupt come with
 * the last descriptor, and bytes, time and the FAULT thread's wait are
 * those of the push run whole.
 */
static void test_push_over_budget(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	const struct gm_profile *p = gm_get_profile(t->g);
	const uint32_t pat[3] = { 0x11111111, 0x22222222, 0x33333333 };
	uint32_t put = 0, get, end, i;
	uint64_t moved, done = memsets_ns(p, 3, 48 * MiB);
	struct gm_stats st;

	CU_ASSERT_EQUAL(GM_CE_WORK, 64 * MiB);
	th_ce_setup(t);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_FAULT);
	queue_three_memsets(t, &put, pat);
	ce_ring(t, put);
	/* 64 + 48 MiB, then 64 + 16 MiB: the slice ends after a whole piece */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_RING_GET), 1);
	CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 1);
	CU_ASSERT_EQUAL(get, 1);
	CU_ASSERT_EQUAL(end, 3);
	CU_ASSERT_EQUAL(moved, 16 * MiB);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), EMGPU_CE_STATUS_BUSY);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 0);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_COPY], 0);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT), 0);
	CU_ASSERT(vram_holds(t, 0, 48 * MiB, pat[0]));
	CU_ASSERT(vram_holds(t, 48 * MiB, 16 * MiB, pat[1]));
	CU_ASSERT(vram_holds(t, 64 * MiB, MiB, 0));
	/* 32 MiB, then 64 + 32 MiB */
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_BUDGET);
	CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 1);
	CU_ASSERT_EQUAL(get, 2);
	CU_ASSERT_EQUAL(moved, 32 * MiB);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 0);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_COPY], 0);
	/* the last 16 MiB: the push ends, no launch runs */
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 0);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_RING_GET), 3);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 0x5e);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_COPY], 1);
	for (i = 0; i < 3; i++)
		CU_ASSERT(vram_holds(t, 48 * MiB * i, 48 * MiB, pat[i]));
	CU_ASSERT(vram_holds(t, 144 * MiB, MiB, 0));
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), done);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT), done);
	gm_get_stats(t->g, &st);
	CU_ASSERT_EQUAL(st.copies, 3);
	CU_ASSERT_EQUAL(st.bytes_d2d, 144 * MiB);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), 0);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_ERROR_STATUS), EMGPU_ERR_NONE);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	th_free(t);
}

/*
 * The same push at work_max 4 MiB (a fuzzer's bound, emgpu's work-max):
 * the doorbell moves 4 MiB, each gm_run() one more slice, 36 slices in
 * all; bytes, semaphore, interrupt and times equal the push run whole.
 */
static void test_push_work_max(void)
{
	struct gm_config cfg = { .seed = 1, .lockstep = 1, .work_max = 4 * MiB };
	const uint32_t pat[3] = { 0x11111111, 0x22222222, 0x33333333 };
	uint32_t put = 0, get, end, i, runs = 0;
	uint64_t moved, done;
	struct th *t;

	if (gm_profile_lookup("h200-256m", &cfg.profile))
		abort();
	t = th_new_config(&cfg, 0);
	done = memsets_ns(gm_get_profile(t->g), 3, 48 * MiB);
	th_ce_setup(t);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_FAULT);
	queue_three_memsets(t, &put, pat);
	ce_ring(t, put);
	CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 1);
	CU_ASSERT_EQUAL(get, 0);
	CU_ASSERT_EQUAL(moved, 4 * MiB);
	while (gm_run(t->g, 0) == GM_STOP_BUDGET && runs < 100)
		runs++;
	/* 35 gm_run()s: 34 stop at the budget, the 35th ends the push */
	CU_ASSERT_EQUAL(runs, 34);
	CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 0);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 0x5e);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_COPY], 1);
	for (i = 0; i < 3; i++)
		CU_ASSERT(vram_holds(t, 48 * MiB * i, 48 * MiB, pat[i]));
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), done);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT), done);
	th_free(t);
}

/*
 * A push within one slice runs whole in the doorbell's write, as before:
 * one memset of GM_CE_WORK bytes (its last piece starts with work left);
 * the next gm_run() has nothing of it to do and leaves the trace hash as
 * it was. 64 KiB more and the last piece waits for gm_run().
 */
static void test_push_within_budget(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint32_t put = 0, get, end;
	uint64_t moved, hash;

	th_ce_setup(t);
	ce_queue(t, &put, EMGPU_CE_OP_MEMSET, MEMSET_VID | EMGPU_CE_SEMAPHORE |
		 EMGPU_CE_INTERRUPT, 0xabababab, 0, GM_CE_WORK, 1);
	ce_ring(t, put);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_RING_GET), 1);
	CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 0);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 1);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_COPY], 1);
	CU_ASSERT(vram_holds(t, 0, GM_CE_WORK, 0xabababab));
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), memsets_ns(gm_get_profile(t->g), 1, GM_CE_WORK));
	hash = gm_trace_hash(t->g);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	CU_ASSERT_EQUAL(gm_trace_hash(t->g), hash);

	ce_queue(t, &put, EMGPU_CE_OP_MEMSET, MEMSET_VID | EMGPU_CE_SEMAPHORE,
		 0xcdcdcdcd, 0, GM_CE_WORK + 65536, 2);
	ce_ring(t, put);
	CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 1);
	CU_ASSERT_EQUAL(get, 1);
	CU_ASSERT_EQUAL(moved, GM_CE_WORK);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 2);
	CU_ASSERT(vram_holds(t, 0, GM_CE_WORK + 65536, 0xcdcdcdcd));
	CU_ASSERT(vram_holds(t, GM_CE_WORK + 65536, 65536, 0));
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_RING_GET), 2);
	th_free(t);
}

/*
 * A doorbell rung while a push is under way moves its end: the NOP it adds
 * releases its semaphore after the memset. Reprogramming the ring
 * (CE_RING_SIZE, CE_RING_LO) or a reset drops a push under way: no more
 * bytes, no semaphore, no interrupt.
 */
static void test_push_extended_and_dropped(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint32_t put = 0, get, end, i;
	uint64_t moved;

	th_ce_setup(t);
	ce_queue(t, &put, EMGPU_CE_OP_MEMSET, MEMSET_VID, 0x01010101, 0, 96 * MiB, 0);
	ce_ring(t, put);
	ce_queue(t, &put, EMGPU_CE_OP_NOP, EMGPU_CE_SEMAPHORE | EMGPU_CE_INTERRUPT,
		 0, 0, 0, 7);
	ce_ring(t, put);
	CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 1);
	CU_ASSERT_EQUAL(get, 0);
	CU_ASSERT_EQUAL(end, 2);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 0);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 7);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_COPY], 1);
	CU_ASSERT(vram_holds(t, 0, 96 * MiB, 0x01010101));

	for (i = 0; i < 3; i++) {
		put = 0;
		th_ce_setup(t);		/* GET = PUT = 0 */
		ce_queue(t, &put, EMGPU_CE_OP_MEMSET, MEMSET_VID, 0x02020202,
			 0, 96 * MiB, 0);
		ce_queue(t, &put, EMGPU_CE_OP_NOP, EMGPU_CE_SEMAPHORE |
			 EMGPU_CE_INTERRUPT, 0, 0, 0, 8 + i);
		ce_ring(t, put);
		CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 1);
		if (i == 0)
			gm_reg_write(t->g, EMGPU_REG_CE_RING_SIZE, 64);
		else if (i == 1)
			gm_reg_write(t->g, EMGPU_REG_CE_RING_LO, TH_CE_RING);
		else
			gm_reset(t->g);
		CU_ASSERT_EQUAL(gm_ce_pending(t->g, &get, &end, &moved), 0);
		CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
		CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 7);
		CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_COPY], 1);
		/* the first slice's bytes only */
		CU_ASSERT(vram_holds(t, 0, 64 * MiB, 0x02020202));
		CU_ASSERT(vram_holds(t, 64 * MiB, 32 * MiB, 0x01010101));
	}
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_ERROR_STATUS), EMGPU_ERR_NONE);
	th_free(t);
}

void add_ce_suite(void)
{
	CU_pSuite s = CU_add_suite("copy engine", NULL, NULL);

	CU_add_test(s, "copy moves bytes, time = size / bandwidth", test_copy_moves_bytes_and_time);
	CU_add_test(s, "fault-thread copies delay replay, worker copies do not", test_copy_who_waits);
	CU_add_test(s, "one push of page copies runs at link rate", test_copy_pipeline);
	CU_add_test(s, "a push over GM_CE_WORK goes on in gm_run()", test_push_over_budget);
	CU_add_test(s, "a push at a lower work_max: same bytes and times", test_push_work_max);
	CU_add_test(s, "a push within GM_CE_WORK runs whole in the doorbell", test_push_within_budget);
	CU_add_test(s, "a doorbell extends a push under way, a new ring drops it", test_push_extended_and_dropped);
}
