/* SPDX-License-Identifier: MIT */
/* Access counters: exact threshold, ACD, deterministic replacement, clear. */
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

/* Two counters, three 64K regions: lowest free first, then a clock hand. */
static void test_replacement(void)
{
	struct gm_profile p;
	struct th *t;
	struct emgpu_notify_entry n;
	const uint64_t r0 = VA_BASE, r1 = VA_BASE + 0x10000, r2 = VA_BASE + 0x20000;

	gm_profile_lookup("h200-256m", &p);
	p.num_access_counters = 2;
	t = th_new_profile(&p, 1, 0);
	map_sys_range(t, VA_BASE, 0x30000, 0);
	th_enable_counters(t, 64, 600, EMGPU_AC_GRAN_64K);
	stream(t, r0 + 0x8000, 0x10000);	/* r0 -> c0 (512), r1 -> c1 (512) */
	stream(t, r2, 0x8000);			/* r2 replaces c0 (hand 0) */
	CU_ASSERT_EQUAL(notifications(t), 0);
	stream(t, r1 + 0x8000, 0x8000);		/* r1 kept c1: 1024 >= 600 */
	CU_ASSERT_EQUAL(notifications(t), 1);
	th_notify_entry(t, 0, &n);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(n.addr), r1);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.tag), 1);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.counter), 600);
	/* 2K sub-regions: first half from before, then 44 lines = 0..18 */
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.sub_mask), 0x7ffffu);
	stream(t, r2 + 0x8000, 0x8000);		/* r2 on c0 */
	CU_ASSERT_EQUAL(notifications(t), 2);
	th_notify_entry(t, 1, &n);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(n.addr), r2);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.tag), 0);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.counter), 600);
	stream(t, r0, 0x10000);			/* both wait for a clear: not counted */
	CU_ASSERT_EQUAL(notifications(t), 2);
	gm_reg_write(t->g, EMGPU_REG_AC_CLEAR_TAG, 1);
	gm_reg_write(t->g, EMGPU_REG_AC_CLEAR, EMGPU_AC_CLEAR_TARGETED);
	stream(t, r0, 0x10000);			/* r0 -> c1 */
	CU_ASSERT_EQUAL(notifications(t), 3);
	th_notify_entry(t, 2, &n);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(n.addr), r0);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(n.tag), 1);
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
	CU_add_test(s, "notification ring overflow", test_notify_overflow);
}
