/* SPDX-License-Identifier: MIT */
/*
 * Slicing transparency: a launch run to completion with gm_run(g, 0) and
 * with gm_run(g, B) for any budget B (or budgets changing from call to
 * call, or extra calls while the device waits) gives byte-identical
 * output, stats, clock and trace hash. The driver here services faults,
 * notifications and timer ticks in lockstep, as the guest driver does, and
 * acknowledges the interrupts at every stop as its interrupt handler does;
 * MODE_ISR acknowledges them between budget slices too, as a guest's
 * handler may at any wall-clock moment.
 */
#include <stdio.h>
#include <string.h>

#include "gpumodel/kernel.h"
#include "tests.h"

struct scen {
	const char *name;
	uint32_t kernel, warps;
	uint64_t args[6];
	int nargs;
	uint64_t bytes;		/* VA_BASE + bytes: the buffers */
	int premap;		/* 0: every page faults in; 1: 4K sysmem; 2: 2M vram */
	int odd_vram;		/* faults map odd pages to VRAM */
	int tables_in_vram;
	uint32_t ac_threshold, ac_gran;	/* 0: counters off */
	uint64_t timer_ns;
	const char *inj[4];
};

struct outcome {
	struct gm_stats st;
	uint64_t hash, result, launch_ns, now_ps, ce_done, out;
	uint64_t drv[EMGPU_DRV_THREADS];
	uint32_t status, error;
	unsigned int irqs[EMGPU_MSIX_VECTORS];
	uint64_t fired[4];
	uint64_t calls, budget_stops, ticks;
};

/* budget modes */
#define MODE_RANDOM	(~0ull)		/* 1..30, a new one for every call */
#define MODE_EXTRA	(~1ull)		/* 0, plus extra calls at every stop */
#define MODE_ISR	(~2ull)		/* random, INTR_STATUS cleared at budget stops */

/* The guest's interrupt handler: reads the causes and clears them. */
static void ack_interrupts(struct th *t)
{
	uint32_t status = gm_reg_read(t->g, EMGPU_REG_INTR_STATUS);

	if (status)
		gm_reg_write(t->g, EMGPU_REG_INTR_STATUS, status);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint64_t *w = p;
	size_t i;

	for (i = 0; i < n / 8; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	return h;
}

static void map_page(struct th *t, const struct scen *sc, uint64_t va)
{
	uint64_t off = (va - VA_BASE) & ~4095ull;

	if (sc->odd_vram && ((off >> 12) & 1))
		th_map(t, VA_BASE + off, EMGPU_APERTURE_VIDMEM, off, 12, 0);
	else
		th_map(t, VA_BASE + off, EMGPU_APERTURE_SYSMEM, TH_DATA + off, 12, 0);
}

static void service_faults(struct th *t, const struct scen *sc)
{
	uint32_t get = gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_GET);
	uint32_t put = gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_PUT);
	uint32_t size = gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_SIZE);
	struct emgpu_fault_entry e;

	for (; get != put; get = (get + 1) % size) {
		th_fault_entry(t, get, &e);
		if (emgpu_le64_to_cpu(e.addr) >= VA_BASE && emgpu_le64_to_cpu(e.addr) < VA_BASE + sc->bytes)
			map_page(t, sc, emgpu_le64_to_cpu(e.addr));
		gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTION_FAULT_PAGE |
			     1 << EMGPU_DRV_ACTION_COUNT_SHIFT);
	}
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_GET, get);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_STATUS, EMGPU_RING_OVERFLOW);
	gm_reg_write(t->g, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_ALL);
	gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
}

static void service_notify(struct th *t)
{
	uint32_t get = gm_reg_read(t->g, EMGPU_REG_AC_BUF_GET);
	uint32_t put = gm_reg_read(t->g, EMGPU_REG_AC_BUF_PUT);
	uint32_t size = gm_reg_read(t->g, EMGPU_REG_AC_BUF_SIZE);
	struct emgpu_notify_entry e;

	for (; get != put; get = (get + 1) % size) {
		th_notify_entry(t, get, &e);
		gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTION_NOTIFY_ENTRY |
			     1 << EMGPU_DRV_ACTION_COUNT_SHIFT);
		gm_reg_write(t->g, EMGPU_REG_AC_CLEAR_TAG, emgpu_le32_to_cpu(e.tag));
		gm_reg_write(t->g, EMGPU_REG_AC_CLEAR, EMGPU_AC_CLEAR_TARGETED);
	}
	gm_reg_write(t->g, EMGPU_REG_AC_BUF_GET, get);
	gm_reg_write(t->g, EMGPU_REG_AC_BUF_STATUS, EMGPU_RING_OVERFLOW);
}

static struct outcome run_sliced(const struct scen *sc, uint64_t mode)
{
	/* the full card's 256 counters: the random gather reaches its threshold */
	struct th *t = th_new("h200-256m-norule", 11, sc->tables_in_vram);
	uint64_t rng = 0x5eed, budget, before, off, used;
	struct outcome o;
	uint8_t vbuf[4096];
	unsigned int ticks = 0, guard = 0, k;
	enum gm_stop s;
	uint32_t i;

	memset(&o, 0, sizeof(o));
	for (i = 0; i < (4u << 20) / 4; i++)
		memcpy(t->sys + TH_DATA + 4 * i, &i, 4);
	for (off = 0; sc->premap && off < sc->bytes; off += sc->premap == 2 ? 2u << 20 : 4096)
		if (sc->premap == 2)
			th_map(t, VA_BASE + off, EMGPU_APERTURE_VIDMEM, off, 21, 0);
		else
			map_page(t, sc, VA_BASE + off);
	th_enable_faults(t, 64);
	if (sc->ac_threshold)
		th_enable_counters(t, 32, sc->ac_threshold, sc->ac_gran);
	th_ce_setup(t);
	for (k = 0; k < 4 && sc->inj[k]; k++)
		CU_ASSERT(gm_inject_add(t->g, sc->inj[k], NULL, 0) >= 0);
	if (sc->timer_ns) {
		gm_reg_write(t->g, EMGPU_REG_TIMER_PERIOD_HI, 0);
		gm_reg_write(t->g, EMGPU_REG_TIMER_PERIOD_LO, (uint32_t)sc->timer_ns);
	}
	th_ce_push(t, EMGPU_CE_OP_COPY, gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
		   TH_DATA, 8u << 20, 65536, 0);
	th_launch(t, sc->kernel, sc->warps, 3, sc->args, sc->nargs);

	for (;;) {
		if (mode == MODE_RANDOM || mode == MODE_ISR)
			budget = (rng = gm_mix64(rng)) % 30 + 1;
		else
			budget = mode == MODE_EXTRA ? 0 : mode;
		{
			struct gm_stats st;

			gm_get_stats(t->g, &st);
			before = st.accesses;
			s = gm_run(t->g, budget);
			gm_get_stats(t->g, &st);
			used = st.accesses - before;
		}
		o.calls++;
		/* a step makes at most two accesses: the budget holds to one */
		if (budget)
			CU_ASSERT(used <= budget + 1);
		if (s == GM_STOP_BUDGET) {
			o.budget_stops++;
			CU_ASSERT(used >= budget);
			if (mode == MODE_ISR)
				ack_interrupts(t);
			continue;
		}
		ack_interrupts(t);
		if (s == GM_STOP_LAUNCH_DONE || s == GM_STOP_IDLE || s == GM_STOP_HANG)
			break;
		if (++guard > 200000) {
			CU_FAIL("no end");
			break;
		}
		if (mode == MODE_EXTRA)	/* calls while waiting change nothing */
			for (k = 0; k < 3; k++)
				CU_ASSERT_EQUAL(gm_run(t->g, k), s == GM_STOP_STALLED ?
						GM_STOP_STALLED : GM_STOP_WAIT_SYNC);
		if (s == GM_STOP_FAULT || s == GM_STOP_STALLED)
			service_faults(t, sc);
		if (s == GM_STOP_NOTIFY)
			service_notify(t);
		if (s == GM_STOP_TIMER && ++ticks % 3 == 0)	/* background copy */
			th_ce_push(t, EMGPU_CE_OP_COPY,
				   gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
				   TH_DATA + 4096ull * (ticks % 64), (9u << 20) + 4096ull * (ticks % 64),
				   4096, 0);
		gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
		if (mode == MODE_EXTRA)
			for (k = 0; k < 2; k++)
				gm_reg_read(t->g, EMGPU_REG_PTIMER_LO);
	}
	o.ticks = ticks;
	gm_get_stats(t->g, &o.st);
	o.hash = gm_trace_hash(t->g);
	o.result = gm_launch_result(t->g);
	o.launch_ns = gm_launch_time_ns(t->g);
	o.now_ps = gm_now_ps(t->g);
	o.ce_done = gm_ce_done_ns(t->g);
	o.status = gm_launch_status(t->g);
	o.error = gm_error_status(t->g);
	for (k = 0; k < EMGPU_DRV_THREADS; k++)
		o.drv[k] = gm_driver_busy_ns(t->g, k);
	memcpy(o.irqs, t->irqs, sizeof(o.irqs));
	for (k = 0; k < 4; k++)
		o.fired[k] = gm_inject_fired(t->g, (int)k);
	/* the bytes: rings, tables, data, and the VRAM the run wrote */
	o.out = fnv(0xcbf29ce484222325ull, t->sys, TH_DATA + (4u << 20));
	for (off = 0; off < (10u << 20); off += sizeof(vbuf)) {
		if (gm_vram_read(t->g, off, vbuf, sizeof(vbuf)))
			memset(vbuf, 0xee, sizeof(vbuf));
		o.out = fnv(o.out, vbuf, sizeof(vbuf));
	}
	th_free(t);
	return o;
}

static const struct scen scens[] = {
	{ .name = "gather, faults, counters, timer, injections",
	  .kernel = EMGPU_KERNEL_GATHER, .warps = 8,
	  .args = { VA_BASE, 64 * 4096, VA_BASE + 64 * 4096, 1024 }, .nargs = 4,
	  .bytes = 72 * 4096, .ac_threshold = 16, .ac_gran = EMGPU_AC_GRAN_64K,
	  .timer_ns = 3000,
	  .inj = { "kind=fault-dup,trigger=prob:0.2,count=0,seed=3",
		   "kind=notify-drop,trigger=prob:0.1,count=0,seed=4",
		   "kind=poison,range=0xf000000+0x1000,count=0",
		   "kind=lost-irq,trigger=prob:0.3,count=0,seed=5" } },
	{ .name = "stream, faults to sysmem and vram, 3 passes",
	  .kernel = EMGPU_KERNEL_STREAM, .warps = 16,
	  .args = { VA_BASE, 64 * 4096, 3 }, .nargs = 3,
	  .bytes = 64 * 4096, .odd_vram = 1, .ac_threshold = 32,
	  .ac_gran = EMGPU_AC_GRAN_64K, .timer_ns = 10000,
	  .inj = { "kind=ce-stall,trigger=prob:0.5,count=0,seed=6",
		   "kind=fault-overflow,trigger=prob:0.05,count=0,seed=7" } },
	{ .name = "hotset, window, random share, reuse",
	  .kernel = EMGPU_KERNEL_HOTSET, .warps = 12,
	  .args = { VA_BASE, 128 * 4096, 32 * 4096, 20, 4, 2 }, .nargs = 6,
	  .bytes = 128 * 4096, .tables_in_vram = 1, .ac_threshold = 8,
	  .ac_gran = EMGPU_AC_GRAN_64K, .timer_ns = 7000,
	  .inj = { "kind=notify-dup,trigger=prob:0.3,count=0,seed=8" } },
	{ .name = "stream, resident vram, all warps",
	  .kernel = EMGPU_KERNEL_STREAM, .warps = 0,
	  .args = { VA_BASE, 2u << 20, 2 }, .nargs = 3,
	  .bytes = 2u << 20, .premap = 2, .timer_ns = 2000 },
	{ .name = "gather, mapped sysmem, counters",
	  .kernel = EMGPU_KERNEL_GATHER, .warps = 32,
	  .args = { VA_BASE, 256 * 4096, VA_BASE + 256 * 4096, 4096 }, .nargs = 4,
	  .bytes = 264 * 4096, .premap = 1, .ac_threshold = 64,
	  .ac_gran = EMGPU_AC_GRAN_64K },
};

static const uint64_t modes[] = { 1, 7, 1000, 1u << 20, MODE_RANDOM, MODE_EXTRA, MODE_ISR };

static void check_scen(const struct scen *sc)
{
	struct outcome ref = run_sliced(sc, 0), o;
	size_t m;

	/* the scenario exercises what it should */
	CU_ASSERT(ref.st.accesses > 1000);
	CU_ASSERT_EQUAL(ref.budget_stops, 0);
	if (!sc->premap)
		CU_ASSERT(ref.st.faults > 0 && ref.st.replays > 0);
	if (sc->ac_threshold)
		CU_ASSERT(ref.st.notifications > 0);
	if (sc->timer_ns)
		CU_ASSERT(ref.ticks > 0);
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		o = run_sliced(sc, modes[m]);
		if (modes[m] == 1 || modes[m] == 7 || modes[m] == MODE_RANDOM ||
		    modes[m] == MODE_ISR)
			CU_ASSERT(o.budget_stops > 0);
		CU_ASSERT_EQUAL(o.hash, ref.hash);
		CU_ASSERT_EQUAL(o.out, ref.out);
		CU_ASSERT_EQUAL(o.result, ref.result);
		CU_ASSERT_EQUAL(o.launch_ns, ref.launch_ns);
		CU_ASSERT_EQUAL(o.now_ps, ref.now_ps);
		CU_ASSERT_EQUAL(o.status, ref.status);
		CU_ASSERT_EQUAL(o.error, ref.error);
		CU_ASSERT_EQUAL(o.ce_done, ref.ce_done);
		CU_ASSERT(!memcmp(&o.st, &ref.st, sizeof(o.st)));
		CU_ASSERT(!memcmp(o.drv, ref.drv, sizeof(o.drv)));
		CU_ASSERT(!memcmp(o.irqs, ref.irqs, sizeof(o.irqs)));
		CU_ASSERT(!memcmp(o.fired, ref.fired, sizeof(o.fired)));
		if (o.hash != ref.hash || memcmp(&o.st, &ref.st, sizeof(o.st)))
			printf("\n  %s, budget mode %#llx: events %llu vs %llu, accesses %llu vs %llu\n",
			       sc->name, (unsigned long long)modes[m],
			       (unsigned long long)o.st.events, (unsigned long long)ref.st.events,
			       (unsigned long long)o.st.accesses, (unsigned long long)ref.st.accesses);
	}
}

static void test_gather_faults(void) { check_scen(&scens[0]); }
static void test_stream_faults(void) { check_scen(&scens[1]); }
static void test_hotset(void) { check_scen(&scens[2]); }
static void test_stream_vram(void) { check_scen(&scens[3]); }
static void test_gather_mapped(void) { check_scen(&scens[4]); }

void add_slicing_suite(void)
{
	CU_pSuite s = CU_add_suite("slicing transparency", NULL, NULL);

	CU_add_test(s, "gather: faults, counters, timer, injections", test_gather_faults);
	CU_add_test(s, "stream: faults to sysmem and vram, overflow", test_stream_faults);
	CU_add_test(s, "hotset: window, random, reuse, tables in vram", test_hotset);
	CU_add_test(s, "stream: resident vram, every warp", test_stream_vram);
	CU_add_test(s, "gather: mapped sysmem with counters", test_gather_mapped);
}
