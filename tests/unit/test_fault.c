/* SPDX-License-Identifier: MIT */
/* Replayable faults: entry contents, replay resumes, cancel, overflow. */
#include <string.h>

#include "gpumodel/kernel.h"
#include "tests.h"

/* maps the faulting 4K page to sysmem at TH_DATA + (va - VA_BASE) */
static void map_identity(struct th *t, uint64_t va, void *ctx)
{
	unsigned int *count = ctx;

	th_map(t, va, EMGPU_APERTURE_SYSMEM, TH_DATA + (va - VA_BASE), 12, 0);
	if (count)
		(*count)++;
}

/* A faulting warp writes a C369-like entry, stalls, and resumes on replay. */
static void test_fault_replay_resumes(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 8192, 1 }, expect = 0;
	struct emgpu_fault_entry e;
	unsigned int mapped = 0, batches = 0, i;
	uint32_t w;

	for (i = 0; i < 2048; i++) {
		w = i * 3;
		memcpy(t->sys + TH_DATA + 4 * i, &w, 4);
		expect += w;
	}
	th_enable_faults(t, 64);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_STREAM, 2, 0, args, 3),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	/* both warps touch page 0, from different uTLBs: two entries */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_PUT), 2);
	th_fault_entry(t, 0, &e);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(e.addr), VA_BASE);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(e.inst), 1);
	CU_ASSERT(emgpu_le32_to_cpu(e.info) & EMGPU_FAULT_INFO_VALID);
	CU_ASSERT(emgpu_le32_to_cpu(e.info) & EMGPU_FAULT_INFO_REPLAYABLE);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.info) & EMGPU_FAULT_INFO_TYPE_MASK, EMGPU_FAULT_PDE);	/* no tables yet */
	CU_ASSERT_EQUAL((emgpu_le32_to_cpu(e.info) & EMGPU_FAULT_INFO_ACCESS_MASK) >> EMGPU_FAULT_INFO_ACCESS_SHIFT,
			EMGPU_ACCESS_WRITE);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_FAULT], 1);
	/* lockstep: nothing runs until SYNC; without a replay all stay stalled */
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_WAIT_SYNC);
	gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_STALLED);
	CU_ASSERT_EQUAL(th_run_to_end(t, map_identity, &mapped, &batches),
			EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(mapped, 4);	/* pages 0 and 1, each from both uTLBs */
	CU_ASSERT_EQUAL(batches, 2);
	for (i = 0; i < 2048; i++)
		CU_ASSERT_EQUAL(th_u32(t, TH_DATA + 4 * i), i * 3 + 1);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), expect);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_LAUNCH_SEQ), 1);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_LAUNCH], 1);
	th_free(t);
}

/* Stalled warps resume only at replay time: after the batch's service. */
static void test_replay_time(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 128, 1 }, t_replay;
	const struct gm_profile *p = gm_get_profile(t->g);

	th_enable_faults(t, 64);
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	/* the hand-off charges the fault service to the FAULT driver thread */
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT),
			gm_now_ns(t->g) + p->fault_service_ns);
	map_identity(t, VA_BASE, NULL);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_TIME, 7000);	/* migration work */
	t_replay = gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT) + p->replay_ns;
	CU_ASSERT_EQUAL(t_replay, gm_now_ns(t->g) + p->fault_service_ns + 7000 + p->replay_ns);
	gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
	gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);
	/* the access after replay ends no earlier than the replay */
	CU_ASSERT(gm_launch_time_ns(t->g) >= t_replay);
	CU_ASSERT(gm_launch_time_ns(t->g) < t_replay + 2000);
	th_free(t);
}

/* CANCEL fails the launch with CANCELLED. */
static void test_cancel(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 4096, 1 };

	th_enable_faults(t, 64);
	th_launch(t, EMGPU_KERNEL_STREAM, 4, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_CANCEL);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_CANCELLED);
	CU_ASSERT_EQUAL(t->irqs[EMGPU_INTR_VEC_LAUNCH], 1);
	gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	th_free(t);
}

/* A full ring drops faults with OVERFLOW; the warps re-fault after replay. */
static void test_overflow(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	/* hotset, 4 pages, no randomness: warp w touches page w first */
	uint64_t args[6] = { VA_BASE, 4 * 4096, 0, 0, 1, 1 };
	struct gm_stats st;
	unsigned int mapped = 0;

	th_enable_faults(t, 2);		/* one usable entry */
	th_launch(t, EMGPU_KERNEL_HOTSET, 4, 0, args, 6);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_PUT), 1);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_STATUS), EMGPU_RING_OVERFLOW);
	gm_get_stats(t->g, &st);
	CU_ASSERT_EQUAL(st.faults, 4);
	CU_ASSERT_EQUAL(st.fault_entries, 1);
	CU_ASSERT_EQUAL(st.fault_overflows, 3);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_STATUS, EMGPU_RING_OVERFLOW);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_STATUS), 0);
	gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	CU_ASSERT_EQUAL(th_run_to_end(t, map_identity, &mapped, NULL), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(mapped, 4);
	th_free(t);
}

/*
 * Fault entries name their source uTLB: SM s faults through GPC s % gpcs,
 * uTLB (s / gpcs) % utlbs_per_gpc, so the first gpcs x utlbs_per_gpc SMs
 * fault with distinct ids (what ARIADNE's sharing degree counts).
 */
static void test_fault_utlb_ids(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint32_t nutlb = p->num_gpcs * p->utlbs_per_gpc, i, put, id, sm;
	/* one line per warp: warps 0..31 touch page 0, 32..47 page 1 */
	uint64_t args[3] = { VA_BASE, 48 * 128, 1 };
	struct emgpu_fault_entry e;
	uint64_t seen = 0;

	CU_ASSERT_EQUAL_FATAL(nutlb, 40);
	th_enable_faults(t, 64);
	th_launch(t, EMGPU_KERNEL_STREAM, 48, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	/* warps 40..47 share the uTLBs of warps 0..7, already stalled */
	put = gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_PUT);
	CU_ASSERT_EQUAL(put, nutlb);
	for (i = 0; i < put; i++) {
		th_fault_entry(t, i, &e);
		sm = emgpu_le32_to_cpu(e.engine);
		id = EMGPU_FAULT_UTLB_ID(emgpu_le32_to_cpu(e.info), p->utlbs_per_gpc);
		CU_ASSERT_EQUAL(id, (sm % p->num_gpcs) * p->utlbs_per_gpc +
				    (sm / p->num_gpcs) % p->utlbs_per_gpc);
		CU_ASSERT_EQUAL(emgpu_le64_to_cpu(e.addr), VA_BASE + (sm < 32 ? 0 : 4096));
		CU_ASSERT_FALSE(seen >> id & 1);
		seen |= 1ull << id;
	}
	CU_ASSERT_EQUAL(seen, (1ull << nutlb) - 1);
	th_free(t);
}

/*
 * A pipelined driver populates block i + 1 on the POPULATE thread while
 * the FAULT thread copies block i (JOIN orders each copy after its
 * populate): n blocks cost p + (n - 1) max(p, c) + c instead of n (p + c).
 */
static void test_pipelined_populate(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	const uint32_t pop = EMGPU_DRV_THREAD_POPULATE, flt = EMGPU_DRV_THREAD_FAULT;
	const struct gm_profile *p = gm_get_profile(t->g);
	const uint64_t c = 3000, n = 4;
	uint64_t serial, pipelined, i;

	/* serial: populate and copy back to back on the FAULT thread */
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, flt);
	for (i = 0; i < n; i++) {
		gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION,
			     EMGPU_DRV_ACTION_CHUNK_ALLOC | 1 << EMGPU_DRV_ACTION_COUNT_SHIFT);
		gm_reg_write(t->g, EMGPU_REG_DRIVER_TIME, c);
	}
	serial = gm_driver_busy_ns(t->g, flt);
	CU_ASSERT_EQUAL(serial, n * (p->drv_chunk_alloc_ns + c));
	gm_reset(t->g);

	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, pop);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION,
		     EMGPU_DRV_ACTION_CHUNK_ALLOC | 1 << EMGPU_DRV_ACTION_COUNT_SHIFT);
	for (i = 0; i < n; i++) {
		gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, flt);
		gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION,
			     EMGPU_DRV_ACTION_JOIN | pop << EMGPU_DRV_ACTION_COUNT_SHIFT);
		/* block i is populated: copy it while block i + 1 populates */
		CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, flt),
				p->drv_chunk_alloc_ns + i * (c > p->drv_chunk_alloc_ns ?
							     c : p->drv_chunk_alloc_ns));
		if (i + 1 < n) {
			gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, pop);
			gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION,
				     EMGPU_DRV_ACTION_CHUNK_ALLOC |
				     1 << EMGPU_DRV_ACTION_COUNT_SHIFT);
			gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, flt);
		}
		gm_reg_write(t->g, EMGPU_REG_DRIVER_TIME, c);
	}
	pipelined = gm_driver_busy_ns(t->g, flt);
	CU_ASSERT_EQUAL(pipelined, p->drv_chunk_alloc_ns + (n - 1) *
			(c > p->drv_chunk_alloc_ns ? c : p->drv_chunk_alloc_ns) + c);
	CU_ASSERT(pipelined < serial);
	/* JOIN names a thread; a bad one is a guest error */
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION,
		     EMGPU_DRV_ACTION_JOIN | EMGPU_DRV_THREADS << EMGPU_DRV_ACTION_COUNT_SHIFT);
	CU_ASSERT_EQUAL(gm_error_status(t->g), EMGPU_ERR_BAD_VALUE);
	th_free(t);
}

/* The replay waits for the POPULATE thread as for the FAULT thread. */
static void test_replay_waits_for_populate(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 128, 1 }, t_replay;
	const struct gm_profile *p = gm_get_profile(t->g);

	th_enable_faults(t, 64);
	th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	map_identity(t, VA_BASE, NULL);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_POPULATE);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_TIME, p->fault_service_ns + 20000);
	t_replay = gm_now_ns(t->g) + p->fault_service_ns + 20000 + p->replay_ns;
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_POPULATE) +
			p->replay_ns, t_replay);
	gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
	gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_LAUNCH_DONE);
	CU_ASSERT(gm_launch_time_ns(t->g) >= t_replay);
	th_free(t);
}

/*
 * One step of warp w (on uTLB 0, which a fault has stalled): what
 * accesses_first() promises, checked against step() itself. Returns the
 * step's result; a step that stalls must change nothing but the state.
 */
static int step_on_stalled(struct th *t, const struct gm_kernel *k,
			   const struct gm_launch *l, struct gm_warp *w)
{
	struct gm_stats before, after;
	uint64_t hash = gm_trace_hash(t->g);
	struct gm_warp copy = *w;
	int first = k->accesses_first(l, w), r;

	gm_get_stats(t->g, &before);
	r = k->step(t->g, l, w);
	gm_get_stats(t->g, &after);
	if (first) {
		CU_ASSERT_EQUAL(r, GM_STEP_STALL);
		CU_ASSERT_EQUAL(w->state, GM_WARP_STALLED);
		w->state = copy.state;
		CU_ASSERT_EQUAL(memcmp(w, &copy, sizeof(copy)), 0);
		CU_ASSERT_EQUAL(memcmp(&before, &after, sizeof(before)), 0);
		CU_ASSERT_EQUAL(gm_trace_hash(t->g), hash);
	}
	return r;
}

/*
 * A kernel's accesses_first() lets the run loop stall a warp of a stalled
 * uTLB without stepping it: exact only if such a step would begin with an
 * access (stall, nothing changed), and a finished warp still finishes.
 */
static void test_accesses_first(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t args[3] = { VA_BASE, 8192, 1 };
	const struct gm_kernel *ks = gm_kernel_find(EMGPU_KERNEL_STREAM);
	const struct gm_kernel *kg = gm_kernel_find(EMGPU_KERNEL_GATHER);
	const struct gm_kernel *kp = gm_kernel_find(EMGPU_KERNEL_PATHFINDER);
	struct gm_launch ls = { .d = { .kernel = EMGPU_KERNEL_STREAM, .warps = 4,
				       .args = { VA_BASE, 8192, 2 } },
				.warps = 4, .seq = 1 };
	struct gm_launch lg = { .d = { .kernel = EMGPU_KERNEL_GATHER, .warps = 4,
				       .seed = 7, .args = { VA_BASE, 8192,
							    VA_BASE + 8192, 64 } },
				.warps = 4, .seq = 1 };
	struct gm_launch lp = { .d = { .kernel = EMGPU_KERNEL_PATHFINDER, .warps = 4,
				       .args = { VA_BASE, 4, 256, 1, VA_BASE + 4096,
						 VA_BASE + 8192 } },
				.warps = 4, .seq = 1 };
	struct gm_warp w;

	th_enable_faults(t, 64);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);	/* warp 0: uTLB 0 */
	CU_ASSERT_PTR_NOT_NULL_FATAL(ks->accesses_first);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kg->accesses_first);

	/* stream: 64 lines, 2 passes */
	memset(&w, 0, sizeof(w));
	w.state = GM_WARP_RUNNABLE;
	w.t = 5000;
	w.i = 70;
	w.j = 6;
	CU_ASSERT_TRUE(ks->accesses_first(&ls, &w));
	CU_ASSERT_EQUAL(step_on_stalled(t, ks, &ls, &w), GM_STEP_STALL);
	w.i = 127;
	w.j = 63;
	CU_ASSERT_EQUAL(step_on_stalled(t, ks, &ls, &w), GM_STEP_STALL);
	w.i = 128;
	CU_ASSERT_FALSE(ks->accesses_first(&ls, &w));
	CU_ASSERT_EQUAL(step_on_stalled(t, ks, &ls, &w), GM_STEP_DONE);

	/* gather: 2 groups of 32 items; a load, the group's store, done */
	memset(&w, 0, sizeof(w));
	w.state = GM_WARP_RUNNABLE;
	w.i = 1;
	w.j = 3;
	CU_ASSERT_EQUAL(step_on_stalled(t, kg, &lg, &w), GM_STEP_STALL);
	w.j = 32;
	CU_ASSERT_EQUAL(step_on_stalled(t, kg, &lg, &w), GM_STEP_STALL);
	w.i = 2;
	w.j = 0;
	CU_ASSERT_FALSE(kg->accesses_first(&lg, &w));
	CU_ASSERT_EQUAL(step_on_stalled(t, kg, &lg, &w), GM_STEP_DONE);

	/* pathfinder: 4 rows of 256 columns, row 1 from row 0: 8 lines */
	CU_ASSERT_PTR_NOT_NULL_FATAL(kp->accesses_first);
	memset(&w, 0, sizeof(w));
	w.state = GM_WARP_RUNNABLE;
	w.i = 3;
	CU_ASSERT_EQUAL(step_on_stalled(t, kp, &lp, &w), GM_STEP_STALL);
	w.i = 7;
	CU_ASSERT_EQUAL(step_on_stalled(t, kp, &lp, &w), GM_STEP_STALL);
	w.i = 8;
	CU_ASSERT_FALSE(kp->accesses_first(&lp, &w));
	CU_ASSERT_EQUAL(step_on_stalled(t, kp, &lp, &w), GM_STEP_DONE);
	th_free(t);
}

void add_fault_suite(void)
{
	CU_pSuite s = CU_add_suite("faults", NULL, NULL);

	CU_add_test(s, "fault entry, replay resumes the warp", test_fault_replay_resumes);
	CU_add_test(s, "warps resume at replay time", test_replay_time);
	CU_add_test(s, "cancel fails the launch", test_cancel);
	CU_add_test(s, "overflow flag, no fault lost", test_overflow);
	CU_add_test(s, "fault entries name distinct uTLBs", test_fault_utlb_ids);
	CU_add_test(s, "pipelined populate overlaps copies", test_pipelined_populate);
	CU_add_test(s, "replay waits for the populate thread", test_replay_waits_for_populate);
	CU_add_test(s, "accesses_first: a stalled uTLB's warp stalls unstepped", test_accesses_first);
}
