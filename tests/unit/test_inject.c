/* SPDX-License-Identifier: MIT */
/* Fault injection: the parser, and every kind firing at its trigger. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests.h"

#define SYS2VID (gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM))

static void test_parse(void)
{
	struct gm_inject in;
	char err[128];

	CU_ASSERT_EQUAL(gm_inject_parse("kind=ce-error,trigger=event:100,count=1", &in, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(in.kind, GM_INJ_CE_ERROR);
	CU_ASSERT_EQUAL(in.trigger, GM_TRIG_EVENT);
	CU_ASSERT_EQUAL(in.event, 100);
	CU_ASSERT_EQUAL(in.count, 1);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=poison,range=0x200000+0x200000", &in, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(in.range_start, 0x200000);
	CU_ASSERT_EQUAL(in.range_len, 0x200000);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=ce-stall,trigger=prob:0.25,seed=7,factor=1000,count=0", &in, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(in.prob_ppm, 250000);
	CU_ASSERT_EQUAL(in.factor, 1000);
	CU_ASSERT_EQUAL(in.count, 0);
	/* bad specs: -EINVAL and a message */
	CU_ASSERT_EQUAL(gm_inject_parse("kind=nope", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "unknown kind: nope");
	CU_ASSERT_EQUAL(gm_inject_parse("", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("trigger=event:1", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "kind= is required");
	CU_ASSERT_EQUAL(gm_inject_parse("kind=poison", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,trigger=event:x", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,trigger=prob:1.5", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,trigger=soon", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,range=5", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,range=0xffffffffffffffff+2", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=ce-stall,factor=5", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,colour=red", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,count=-1", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,during=launch", &in, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(in.launch_only, 1);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,during=any", &in, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(in.launch_only, 0);
	CU_ASSERT_EQUAL(gm_inject_parse("kind=hang,during=soon", &in, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "during must be launch or any: soon");
}

/* during=launch: copies outside a launch pass untouched, one inside fails. */
static void test_during_launch(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 1 << 20, 4 }, off;
	int slot;

	for (off = 0; off < (1 << 20); off += 4096)
		th_map(t, VA_BASE + off, EMGPU_APERTURE_VIDMEM, off, 12, 0);
	th_ce_setup(t);
	slot = gm_inject_add(t->g, "kind=ce-error,trigger=always,during=launch", NULL, 0);
	CU_ASSERT_EQUAL(slot, 0);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 0x200000, 4096, 0);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), 0);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 0);
	th_launch(t, EMGPU_KERNEL_STREAM, 8, 0, args, 3);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 0x201000, 4096, 0);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), EMGPU_CE_STATUS_ERROR);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 1);
	CU_ASSERT_EQUAL(gm_inject_fired_in_launch(t->g, slot), 1);
	th_free(t);
}

/* ce-error at event N: copies before it succeed, the first after fails. */
static void test_ce_error_event(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	struct gm_stats st;
	uint64_t ev;
	int slot;

	th_ce_setup(t);
	memset(t->sys + TH_DATA, 0x5a, 4096);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 0, 4096, 0);
	gm_get_stats(t->g, &st);
	ev = st.events + 1;	/* fires at the first check after one more event */
	{
		char spec[64];

		snprintf(spec, sizeof(spec), "kind=ce-error,trigger=event:%llu", (unsigned long long)ev);
		slot = gm_inject_add(t->g, spec, NULL, 0);
	}
	CU_ASSERT_EQUAL(slot, 0);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 4096, 4096, 0);	/* event ev-1 */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), 0);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 0);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID | EMGPU_CE_SEMAPHORE, TH_DATA, 8192, 4096, 9);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), EMGPU_CE_STATUS_ERROR);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 1);
	CU_ASSERT_EQUAL(gm_inject_fired_in_launch(t->g, slot), 0);	/* no launch ran */
	CU_ASSERT_EQUAL(th_u32(t, TH_SEM), 9);		/* released anyway */
	{
		uint8_t b = 0;

		gm_vram_read(t->g, 8192, &b, 1);
		CU_ASSERT_EQUAL(b, 0);			/* no bytes moved */
		gm_vram_read(t->g, 4096, &b, 1);
		CU_ASSERT_EQUAL(b, 0x5a);
	}
	/* count=1: the next copy works */
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 8192, 4096, 0);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_CE_STATUS), 0);
	th_free(t);
}

/* ce-stall multiplies the transfer time by factor, only in its range. */
static void test_ce_stall(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint64_t xfer = 65536ull * 1000000 / p->link_h2d_mbps / 1000;

	th_ce_setup(t);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_WORKER);
	gm_inject_add(t->g, "kind=ce-stall,range=0x100000+0x1000,factor=100", NULL, 0);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 0, 65536, 0);
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), p->ce_setup_ns + xfer);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 0x100000, 65536, 0);
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), p->ce_setup_ns + xfer + 100 * xfer);
	th_free(t);
}

static void fault_once(struct th *t)
{
	uint64_t args[3] = { VA_BASE, 128, 1 };

	th_enable_faults(t, 64);
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
}

static void test_fault_overflow_and_dup(void)
{
	struct th *t = th_new("h200-256m", 1, 0);

	gm_inject_add(t->g, "kind=fault-overflow", NULL, 0);
	fault_once(t);
	CU_ASSERT_EQUAL(gm_inject_fired_in_launch(t->g, 0), 1);	/* the launch's fault */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_PUT), 0);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_STATUS), EMGPU_RING_OVERFLOW);
	th_free(t);

	t = th_new("h200-256m", 1, 0);
	gm_inject_add(t->g, "kind=fault-dup", NULL, 0);
	fault_once(t);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_PUT), 2);
	CU_ASSERT_EQUAL(memcmp(t->sys + TH_FAULT_BUF, t->sys + TH_FAULT_BUF + 32, 32), 0);
	th_free(t);
}

static uint32_t notify_run(const char *spec, struct emgpu_notify_entry *first)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 4096, 1 }, off;
	uint32_t put;

	for (off = 0; off < 4096; off += 4096)
		th_map(t, VA_BASE + off, EMGPU_APERTURE_SYSMEM, TH_DATA + off, 12, 0);
	th_enable_counters(t, 64, 4, EMGPU_AC_GRAN_2M);
	if (spec)
		CU_ASSERT_EQUAL(gm_inject_add(t->g, spec, NULL, 0), 0);
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	while (gm_run(t->g, 0) != GM_STOP_LAUNCH_DONE)
		gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	put = gm_reg_read(t->g, EMGPU_REG_AC_BUF_PUT);
	th_notify_entry(t, 0, first);
	th_free(t);
	return put;
}

static void test_notify_kinds(void)
{
	struct emgpu_notify_entry a, b;

	CU_ASSERT_EQUAL(notify_run(NULL, &a), 1);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(a.addr), VA_BASE);
	CU_ASSERT_EQUAL(notify_run("kind=notify-drop", &b), 0);
	CU_ASSERT_EQUAL(notify_run("kind=notify-dup", &b), 2);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(b.addr), VA_BASE);
	CU_ASSERT_EQUAL(notify_run("kind=notify-corrupt", &b), 1);
	CU_ASSERT_NOT_EQUAL(emgpu_le64_to_cpu(b.addr), VA_BASE);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(b.tag), EMGPU_NOTIFY_TAG_MASK);
	/* a range that misses the region: nothing fires */
	CU_ASSERT_EQUAL(notify_run("kind=notify-drop,range=0x1000+0x1000", &b), 1);
}

static void test_lost_irq(void)
{
	struct th *t = th_new("h200-256m", 1, 0);

	gm_inject_add(t->g, "kind=lost-irq", NULL, 0);
	fault_once(t);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_FAULT], 0);
	CU_ASSERT(gm_reg_read(t->g, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_FAULT);
	th_free(t);
}

static void test_poison(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 4096, 1 };
	uint8_t b[8];

	CU_ASSERT_EQUAL(gm_inject_add(t->g, "kind=poison,range=0x200000+0x1000", NULL, 0), 0);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);	/* applies it */
	CU_ASSERT_EQUAL(gm_vram_read(t->g, 0x200000 + 0x1ffff8, b, 8), -EMGPU_ERR_POISON);
	CU_ASSERT_EQUAL(gm_vram_read(t->g, 0x1ffff8, b, 8), 0);
	CU_ASSERT_EQUAL(gm_vram_read(t->g, 0x400000, b, 8), 0);
	/* marking chunks and failed reads outside a launch hit no launch */
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, 0), 1);
	CU_ASSERT_EQUAL(gm_inject_fired_in_launch(t->g, 0), 0);
	th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0x201000, 12, 0);
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_inject_fired_in_launch(t->g, 0), 1);	/* the warp's read */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_ERROR_STATUS), EMGPU_ERR_POISON);
	th_free(t);
}

static void test_tlb_timeout(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	unsigned int ap;
	uint64_t pa;

	th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0x1000, 12, 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_READ, &ap, &pa), 0);
	th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0x2000, 12, 0);
	gm_inject_add(t->g, "kind=tlb-timeout", NULL, 0);
	gm_reg_write(t->g, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_ALL);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_TLB_INV_STATUS), EMGPU_TLB_INV_PENDING);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x1000);
	gm_reg_write(t->g, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_ALL);	/* retry works */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_TLB_INV_STATUS), 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x2000);
	th_free(t);
}

static void test_hang(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 1 << 20, 4 }, off;

	for (off = 0; off < (1 << 20); off += 4096)
		th_map(t, VA_BASE + off, EMGPU_APERTURE_VIDMEM, off, 12, 0);
	gm_inject_add(t->g, "kind=hang,trigger=event:1", NULL, 0);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);	/* 0 events: not yet */
	th_launch(t, EMGPU_KERNEL_STREAM, 8, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_HANG);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_ERROR_STATUS), EMGPU_ERR_HANG);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_HANG);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_RUNNING);
	gm_reg_write(t->g, EMGPU_REG_RESET, EMGPU_RESET_MAGIC);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, 0), 1);	/* survives the reset */
	CU_ASSERT_EQUAL(gm_inject_fired_in_launch(t->g, 0), 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	gm_set_pdb(t->g, gmt_pt_pdb(&t->pt));	/* reset cleared it */
	th_launch(t, EMGPU_KERNEL_STREAM, 8, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);	/* count=1: spent */
	CU_ASSERT_EQUAL(gm_launch_status(t->g), EMGPU_LAUNCH_DONE);
	th_free(t);
}

/* prob triggers are deterministic per seed */
static void test_prob_deterministic(void)
{
	uint64_t fired[2];
	int r;

	for (r = 0; r < 2; r++) {
		struct th *t = th_new("h200-256m", 9, 0);
		int i;

		th_ce_setup(t);
		gm_inject_add(t->g, "kind=ce-error,trigger=prob:0.3,count=0,seed=5", NULL, 0);
		for (i = 0; i < 40; i++)
			th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 0, 4096, 0);
		fired[r] = gm_inject_fired(t->g, 0) << 32 ^ gm_trace_hash(t->g);
		CU_ASSERT(gm_inject_fired(t->g, 0) > 2 && gm_inject_fired(t->g, 0) < 30);
		th_free(t);
	}
	CU_ASSERT_EQUAL(fired[0], fired[1]);
}

void add_inject_suite(void)
{
	CU_pSuite s = CU_add_suite("fault injection", NULL, NULL);

	CU_add_test(s, "spec parser", test_parse);
	CU_add_test(s, "ce-error at event N", test_ce_error_event);
	CU_add_test(s, "ce-stall in range", test_ce_stall);
	CU_add_test(s, "fault-overflow, fault-dup", test_fault_overflow_and_dup);
	CU_add_test(s, "notify-drop, -dup, -corrupt", test_notify_kinds);
	CU_add_test(s, "lost-irq", test_lost_irq);
	CU_add_test(s, "poison", test_poison);
	CU_add_test(s, "tlb-timeout", test_tlb_timeout);
	CU_add_test(s, "hang", test_hang);
	CU_add_test(s, "prob trigger is deterministic", test_prob_deterministic);
	CU_add_test(s, "during=launch", test_during_launch);
}
