/* SPDX-License-Identifier: MIT */
/*
 * The driver's CPU cost (models/src/guest_cost.c): instructions counted per
 * activity, charged under MEASURED, only counted under ASSUMED.
 */
#include <errno.h>
#include <string.h>

#include "tests.h"

#define INSN_BASE	1000000ull	/* the guest's count when we start */

static struct th *cost_new(enum gm_driver_cost cost)
{
	struct gm_config cfg = { .seed = 1, .lockstep = 1, .driver_cost = cost };
	struct th *t;

	CU_ASSERT_EQUAL_FATAL(gm_profile_lookup("h200-256m", &cfg.profile), 0);
	t = th_new_config(&cfg, 0);
	th_enable_faults(t, 64);
	th_ce_setup(t);
	gm_guest_insns(t->g, INSN_BASE);	/* the first report: a mark */
	return t;
}

static void stats(struct th *t, struct gm_stats *st)
{
	gm_get_stats(t->g, st);
}

/*
 * MEASURED: a batch's instructions are charged to the FAULT thread as
 * they come, the assumed constants (the hand-off's fault_service_ns,
 * DRIVER_TIME) only counted; the replay waits for the instructions.
 */
static void test_measured_fault_batch(void)
{
	struct th *t = cost_new(GM_DRIVER_COST_MEASURED);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint64_t args[3] = { VA_BASE, 128, 1 }, now, insns = INSN_BASE;
	struct gm_stats st;

	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	gm_guest_insns(t->g, insns += 777);	/* the app's, before the batch */
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	now = gm_now_ns(t->g);
	/* nothing assumed is charged at the hand-off */
	CU_ASSERT(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT) <= now);
	gm_guest_insns(t->g, insns += 5000);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT),
			now + 5000ull * p->cpu_insn_ps / 1000);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_TIME, 7000);	/* counted only */
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT),
			now + 5000ull * p->cpu_insn_ps / 1000);
	th_map(t, VA_BASE, EMGPU_APERTURE_SYSMEM, TH_DATA, 12, 0);
	gm_guest_insns(t->g, insns += 3000);
	gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
	gm_guest_insns(t->g, insns += 400);	/* after the replay: nobody's */
	gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);
	CU_ASSERT(gm_launch_time_ns(t->g) >= now + 8000ull * p->cpu_insn_ps / 1000 +
		  p->replay_ns);
	stats(t, &st);
	CU_ASSERT_EQUAL(st.cpu_insns_fault, 8000);
	CU_ASSERT_EQUAL(st.cpu_ns_fault, 8000ull * p->cpu_insn_ps / 1000);
	CU_ASSERT_EQUAL(st.cpu_insns_other, 777 + 400);
	CU_ASSERT_EQUAL(st.cpu_insns_evict + st.cpu_insns_notify +
			st.cpu_insns_prefetch + st.cpu_insns_worker, 0);
	CU_ASSERT_EQUAL(st.cpu_measured_ns, st.cpu_ns_fault);
	CU_ASSERT_EQUAL(st.cpu_assumed_ns, p->fault_service_ns + 7000);
	th_free(t);
}

/* ASSUMED: the same batch is charged as before; the instructions counted. */
static void test_assumed_counts_only(void)
{
	struct th *t = cost_new(GM_DRIVER_COST_ASSUMED);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint64_t args[3] = { VA_BASE, 128, 1 }, now;
	struct gm_stats st;

	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	now = gm_now_ns(t->g);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT),
			now + p->fault_service_ns);
	gm_guest_insns(t->g, INSN_BASE + 123456);
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT),
			now + p->fault_service_ns);
	stats(t, &st);
	CU_ASSERT_EQUAL(st.cpu_insns_fault, 123456);
	CU_ASSERT_EQUAL(st.cpu_assumed_ns, p->fault_service_ns);
	th_free(t);
}

/*
 * Copies name the work around them: in a batch an eviction (device to
 * host) makes what follows eviction work until the next copy; outside a
 * batch a host-to-device copy makes the instructions up to the guest's
 * next access prefetch work, charged to WORKER.
 */
static void test_copy_activities(void)
{
	struct th *t = cost_new(GM_DRIVER_COST_MEASURED);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint64_t args[3] = { VA_BASE, 128, 1 }, insns = INSN_BASE, worker0;
	uint32_t d2h = EMGPU_APERTURE_VIDMEM << EMGPU_CE_SRC_APERTURE_SHIFT |
		       EMGPU_APERTURE_SYSMEM << EMGPU_CE_DST_APERTURE_SHIFT;
	uint32_t h2d = EMGPU_APERTURE_SYSMEM << EMGPU_CE_SRC_APERTURE_SHIFT |
		       EMGPU_APERTURE_VIDMEM << EMGPU_CE_DST_APERTURE_SHIFT;
	struct gm_stats st;

	/* outside a batch: prefetch until the next access, then nobody's */
	worker0 = gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_WORKER);
	th_ce_push(t, EMGPU_CE_OP_COPY, h2d, TH_DATA, 0, 4096, 0);
	gm_guest_insns(t->g, insns += 600);
	gm_guest_insns(t->g, insns += 50);
	stats(t, &st);
	CU_ASSERT_EQUAL(st.cpu_insns_prefetch, 600);
	CU_ASSERT_EQUAL(st.cpu_insns_other, 50);
	CU_ASSERT(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_WORKER) >=
		  worker0 + 600ull * p->cpu_insn_ps / 1000);

	/* in a batch: an eviction's work lasts until the next copy */
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	gm_guest_insns(t->g, insns += 1000);
	th_ce_push(t, EMGPU_CE_OP_COPY, d2h, 0, TH_DATA, 4096, 0);
	gm_guest_insns(t->g, insns += 200);
	gm_guest_insns(t->g, insns += 300);
	th_ce_push(t, EMGPU_CE_OP_COPY, h2d, TH_DATA, 0, 4096, 0);
	gm_guest_insns(t->g, insns += 70);
	th_map(t, VA_BASE, EMGPU_APERTURE_SYSMEM, TH_DATA, 12, 0);
	gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
	stats(t, &st);
	CU_ASSERT_EQUAL(st.cpu_insns_fault, 1000 + 70);
	CU_ASSERT_EQUAL(st.cpu_insns_evict, 500);
	CU_ASSERT_EQUAL(st.cpu_insns_prefetch, 600);
	th_free(t);
}

/* The same reports give the same charges and the same trace hash. */
static void test_measured_repeats(void)
{
	uint64_t hash[2], busy[2];
	int i;

	for (i = 0; i < 2; i++) {
		struct th *t = cost_new(GM_DRIVER_COST_MEASURED);
		uint64_t args[3] = { VA_BASE, 128, 1 };

		th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
		CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
		gm_guest_insns(t->g, INSN_BASE + 4242);
		th_map(t, VA_BASE, EMGPU_APERTURE_SYSMEM, TH_DATA, 12, 0);
		gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
		gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
		CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);
		hash[i] = gm_trace_hash(t->g);
		busy[i] = gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT);
		th_free(t);
	}
	CU_ASSERT_EQUAL(hash[0], hash[1]);
	CU_ASSERT_EQUAL(busy[0], busy[1]);
}

/* A constant out of range is refused with its name and range. */
static void test_profile_range(void)
{
	struct gm_profile p;
	struct gm_config cfg = { .lockstep = 1 };
	struct gm_callbacks cb = { 0 };
	char err[128] = "";

	CU_ASSERT_EQUAL_FATAL(gm_profile_lookup("h200-256m", &p), 0);
	CU_ASSERT_EQUAL(gm_profile_check(&p, err, sizeof(err)), 0);
	p.cpu_insn_ps = GM_CPU_INSN_PS_MAX + 1;
	CU_ASSERT_EQUAL(gm_profile_check(&p, err, sizeof(err)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "cpu_insn_ps 100001 out of range [10, 100000] ps");
	p.cpu_insn_ps = 0;
	CU_ASSERT_EQUAL(gm_profile_check(&p, err, sizeof(err)), -ERANGE);
	cfg.profile = p;
	CU_ASSERT_PTR_NULL(gm_create(&cfg, &cb));
	CU_ASSERT_STRING_EQUAL(gm_driver_cost_name(GM_DRIVER_COST_MEASURED), "measured");
	CU_ASSERT_PTR_NULL(gm_driver_cost_name((enum gm_driver_cost)7));
}

void add_cpu_cost_suite(void)
{
	CU_pSuite s = CU_add_suite("driver cpu cost", NULL, NULL);

	CU_add_test(s, "measured: a batch's instructions charged, constants counted",
		    test_measured_fault_batch);
	CU_add_test(s, "assumed: instructions counted, constants charged",
		    test_assumed_counts_only);
	CU_add_test(s, "copies name the work around them", test_copy_activities);
	CU_add_test(s, "measured charges repeat", test_measured_repeats);
	CU_add_test(s, "cpu_insn_ps out of range refused", test_profile_range);
}
