/* SPDX-License-Identifier: MIT */
/*
 * Access counters: exact threshold, ACD, deterministic replacement (least
 * recently counted, the count lost), a hot region kept under churn, clear.
 */
#include <string.h>

#include "tests.h"

static void map_sys_range(struct th *t, uint64_t va, uint64_t bytes,
			  uint64_t extra)
{
	uint64_t off;

	for (off = 0; off < bytes; off += 4096)
		th_map(t, va + off, EMGPU_APERTURE_SYSMEM,
		       TH_DATA + (va - VA_BASE) + off, 12, extra);
}

static void stream(struct th *t, uint64_t va, uint64_t bytes)
{
	uint64_t args[3] = { va, bytes, 1 };

	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_run_to_end(t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
}

static uint32_t notifications(struct th *t)
{
	return gm_reg_read(t->g, EMGPU_REG_AC_BUF_PUT);
}

/* 2 lines read-modify-written = 4 counted accesses: threshold 4 fires once. */
static void test_threshold_exact(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	struct emgpu_notify_entry n;

	map_sys_range(t, VA_BASE, 4096, 0);
	th_enable_counters(t, 64, 4, EMGPU_AC_GRAN_2M);
	stream(t, VA_BASE, 256);
	CU_ASSERT_EQUAL(notifications(t), 1);
	th_notify_entry(t, 0, &n);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(n.addr), VA_BASE);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.counter), 4);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.tag), 0);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.sub_mask), 1);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.flags), EMGPU_NOTIFY_VALID);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.info), EMGPU_APERTURE_SYSMEM << 8);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_ACCESS_COUNTER], 1);
	/* saturated-until-cleared: more accesses, no new notification */
	stream(t, VA_BASE, 256);
	CU_ASSERT_EQUAL(notifications(t), 1);
	gm_reg_write(t->g, EMGPU_REG_AC_CLEAR, EMGPU_AC_CLEAR_ALL);
	stream(t, VA_BASE, 256);
	CU_ASSERT_EQUAL(notifications(t), 2);
	th_free(t);

	/* threshold 5 is not reached by 4 accesses */
	t = th_new("h200-256m", 1, 0);
	map_sys_range(t, VA_BASE, 4096, 0);
	th_enable_counters(t, 64, 5, EMGPU_AC_GRAN_2M);
	stream(t, VA_BASE, 256);
	CU_ASSERT_EQUAL(notifications(t), 0);
	th_free(t);
}

/* ACD pages and vidmem pages are not counted. */
static void test_acd_not_counted(void)
{
	struct th *t = th_new("h200-256m", 1, 0);

	map_sys_range(t, VA_BASE, 4096, EMGPU_PTE_ACD);
	th_map(t, VA_BASE + 4096, EMGPU_APERTURE_VIDMEM, 0, 12, 0);
	th_enable_counters(t, 64, 1, EMGPU_AC_GRAN_64K);
	stream(t, VA_BASE, 8192);
	CU_ASSERT_EQUAL(notifications(t), 0);
	th_free(t);
}

/* A card of `counters` counters over sysmem-mapped bytes, 64K granularity. */
static struct th *with_counters(uint32_t counters, uint64_t bytes,
				uint32_t threshold)
{
	struct gm_profile p;
	struct th *t;

	gm_profile_lookup("h200-256m", &p);
	p.num_access_counters = counters;
	t = th_new_profile(&p, 1, 0);
	map_sys_range(t, VA_BASE, bytes, 0);
	th_enable_counters(t, 64, threshold, EMGPU_AC_GRAN_64K);
	return t;
}

/* Notification i names addr, counter tag, and (unless 0) count. */
static void check_entry(struct th *t, uint32_t i, uint64_t addr, uint32_t tag,
			uint32_t count)
{
	struct emgpu_notify_entry n;

	th_notify_entry(t, i, &n);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(n.addr), addr);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.tag), tag);
	if (count)
		CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.counter), count);
}

/* Two counters, three 64K regions: lowest free first, then the least
 * recently counted one that is not waiting for a clear. */
static void test_replacement(void)
{
	struct th *t = with_counters(2, 0x30000, 600);
	struct emgpu_notify_entry n;
	const uint64_t r0 = VA_BASE, r1 = VA_BASE + 0x10000, r2 = VA_BASE + 0x20000;

	stream(t, r0 + 0x8000, 0x10000);	/* r0 -> c0 (512), r1 -> c1 (512) */
	stream(t, r2, 0x8000);			/* r2 replaces c0 (r0 older) */
	CU_ASSERT_EQUAL(notifications(t), 0);
	stream(t, r1 + 0x8000, 0x8000);		/* r1 kept c1: 1024 >= 600 */
	CU_ASSERT_EQUAL(notifications(t), 1);
	check_entry(t, 0, r1, 1, 600);
	th_notify_entry(t, 0, &n);
	/* 2K sub-regions: first half from before, then 44 lines = 0..18 */
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.sub_mask), 0x7ffffu);
	stream(t, r2 + 0x8000, 0x8000);		/* r2 on c0 */
	CU_ASSERT_EQUAL(notifications(t), 2);
	check_entry(t, 1, r2, 0, 600);
	stream(t, r0, 0x10000);			/* both wait for a clear: not counted */
	CU_ASSERT_EQUAL(notifications(t), 2);
	gm_reg_write(t->g, EMGPU_REG_AC_CLEAR_TAG, 1);
	gm_reg_write(t->g, EMGPU_REG_AC_CLEAR, EMGPU_AC_CLEAR_TARGETED);
	stream(t, r0, 0x10000);			/* r0 -> c1 */
	CU_ASSERT_EQUAL(notifications(t), 3);
	check_entry(t, 2, r0, 1, 0);
	th_free(t);
}

/*
 * The victim is the least recently counted counter, not the oldest taken,
 * and its region's count is lost: 2 counters, threshold 600, 64K regions.
 */
static void test_replacement_recency(void)
{
	struct th *t = with_counters(2, 0x30000, 600);
	const uint64_t r0 = VA_BASE, r1 = VA_BASE + 0x10000, r2 = VA_BASE + 0x20000;

	stream(t, r0, 0x8000);			/* r0 -> c0: 512 */
	stream(t, r1, 0x8000);			/* r1 -> c1: 512 */
	stream(t, r0 + 0x8000, 0x1000);		/* r0: 576, now the newer */
	stream(t, r2, 0x1000);			/* r2 replaces c1 (r1), not c0 */
	CU_ASSERT_EQUAL(notifications(t), 0);
	stream(t, r0 + 0x9000, 0x1000);		/* r0: 640 >= 600 */
	CU_ASSERT_EQUAL(notifications(t), 1);
	check_entry(t, 0, r0, 0, 600);
	/* r1 takes c1 back from r2 (c0 waits for a clear) and starts at 0:
	 * its first 512 were lost, 512 more stay below 600 */
	stream(t, r1 + 0x8000, 0x8000);
	CU_ASSERT_EQUAL(notifications(t), 1);
	stream(t, r1, 0x1000);			/* 576 */
	CU_ASSERT_EQUAL(notifications(t), 1);
	stream(t, r1 + 0x1000, 0x1000);		/* 640: notifies on c1 */
	CU_ASSERT_EQUAL(notifications(t), 2);
	check_entry(t, 1, r1, 1, 0);
	th_free(t);
}

/*
 * Figure 16's case: a 64K window sliding over 64 regions with 10 % of the
 * accesses on random lines of all of them, 8 counters, threshold 256, the
 * window read 512 times at each position. The window is counted by most
 * accesses, so it stays while random regions come and go, and every
 * window region notifies. (With the counters taken in turn, one would live
 * about 8 / 0.1 = 80 accesses, and none would.) Notified counters are
 * cleared as a driver would after promoting.
 */
static void test_hot_region_kept_under_churn(void)
{
	const uint64_t regions = 64, bytes = regions << 16;
	struct th *t = with_counters(8, bytes, 256);
	struct emgpu_notify_entry n;
	uint64_t args[6] = { VA_BASE, bytes, 0x10000, 10, 32, 1 };
	uint8_t seen[64] = { 0 };
	uint32_t get = 0, put, seen_count = 0, i;
	enum gm_stop s;

	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_HOTSET, 4, 7, args, 6),
			EMGPU_LAUNCH_RUNNING);
	while ((s = gm_run(t->g, 0)) != GM_STOP_LAUNCH_DONE) {
		CU_ASSERT_FATAL(s != GM_STOP_HANG && s != GM_STOP_IDLE);
		put = gm_reg_read(t->g, EMGPU_REG_AC_BUF_PUT);
		for (; get != put; get = (get + 1) % 64) {
			th_notify_entry(t, get, &n);
			i = (uint32_t)((emgpu_le64_to_cpu(n.addr) - VA_BASE) >> 16);
			CU_ASSERT_FATAL(i < regions);
			seen_count += !seen[i];
			seen[i] = 1;
			gm_reg_write(t->g, EMGPU_REG_AC_CLEAR_TAG,
				     emgpu_le32_to_cpu(n.tag));
			gm_reg_write(t->g, EMGPU_REG_AC_CLEAR,
				     EMGPU_AC_CLEAR_TARGETED);
		}
		gm_reg_write(t->g, EMGPU_REG_AC_BUF_GET, get);
		gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	}
	CU_ASSERT_EQUAL(seen_count, regions);
	th_free(t);
}

/* A full notification ring sets OVERFLOW; the counter notifies again later. */
static void test_notify_overflow(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	struct gm_stats st;

	map_sys_range(t, VA_BASE, 0x30000, 0);
	th_enable_counters(t, 2, 2, EMGPU_AC_GRAN_64K);	/* one usable entry */
	stream(t, VA_BASE, 0x30000);
	gm_get_stats(t->g, &st);
	CU_ASSERT_EQUAL(st.notify_overflows, 0);	/* the harness drains it */
	CU_ASSERT_EQUAL(st.notifications, 3);
	th_free(t);

	t = th_new("h200-256m", 1, 0);
	map_sys_range(t, VA_BASE, 0x30000, 0);
	th_enable_counters(t, 2, 2, EMGPU_AC_GRAN_64K);
	{
		uint64_t args[3] = { VA_BASE, 0x30000, 1 };
		enum gm_stop s;

		th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
		/* never drain: GET stays 0 */
		while ((s = gm_run(t->g, 0)) != GM_STOP_LAUNCH_DONE)
			gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	}
	gm_get_stats(t->g, &st);
	CU_ASSERT_EQUAL(st.notifications, 1);
	CU_ASSERT(st.notify_overflows >= 2);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_AC_BUF_STATUS), EMGPU_RING_OVERFLOW);
	th_free(t);
}

void add_counter_suite(void)
{
	CU_pSuite s = CU_add_suite("access counters", NULL, NULL);

	CU_add_test(s, "threshold reached exactly, re-arm on clear", test_threshold_exact);
	CU_add_test(s, "ACD and vidmem not counted", test_acd_not_counted);
	CU_add_test(s, "deterministic allocation and replacement", test_replacement);
	CU_add_test(s, "least recently counted replaced, its count lost",
		    test_replacement_recency);
	CU_add_test(s, "a hot region kept under random churn",
		    test_hot_region_kept_under_churn);
	CU_add_test(s, "notification ring overflow", test_notify_overflow);
}
