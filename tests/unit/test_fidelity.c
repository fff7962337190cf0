/* SPDX-License-Identifier: MIT */
/*
 * Timing fidelity with the model alone:
 *  - the idle device's clock: copies (and driver work) issued while no
 *    launch runs advance PTIMER to their completion, and the next launch
 *    starts then (a prefetch's cost shows, as cudaMemPrefetchAsync then a
 *    kernel on one stream);
 *  - the collapse at oversubscription, qualitatively: gather under an
 *    emulated stock-UVM driver (fault, evict the oldest block, migrate the
 *    faulted one, replay after the copies) is >= 10x slower per byte of
 *    footprint at 1.5x the driver's VRAM than at 0.5x, while the same
 *    gather over sysmem mapped to the GPU stays flat per byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel/hotset.h"
#include "gpumodel/kernel.h"
#include "tests.h"

#define MiB		(1ull << 20)
#define SYS2VID		(gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM))
#define VID2SYS		(gmt_ce_flags(EMGPU_APERTURE_VIDMEM, EMGPU_APERTURE_SYSMEM))

static uint64_t xfer_ns(uint64_t bytes, uint64_t mbps)
{
	return (bytes * 1000000ull + mbps - 1) / mbps / 1000;
}

static uint64_t ptimer(struct th *t)
{
	uint64_t lo = gm_reg_read(t->g, EMGPU_REG_PTIMER_LO);

	return lo | (uint64_t)gm_reg_read(t->g, EMGPU_REG_PTIMER_HI) << 32;
}

/* A prefetch before a launch: PTIMER shows it, the launch starts after it. */
static void test_prefetch_clock(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint64_t x = xfer_ns(2 * MiB, p->link_h2d_mbps), t0, t1, args[3];
	struct emgpu_fault_entry e;
	struct gm_stats st;
	unsigned int i;

	th_ce_setup(t);
	th_enable_faults(t, 64);
	t0 = ptimer(t);
	CU_ASSERT_EQUAL(t0, 0);
	/* 8 x 2 MiB host->device from the worker thread: the two engines
	 * overlap their setup, the link serializes the bytes */
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_WORKER);
	for (i = 0; i < 8; i++)
		th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA + i * 2 * MiB,
			   i * 2 * MiB, 2 * MiB, 0);
	t1 = ptimer(t);
	CU_ASSERT_EQUAL(t1 - t0, p->ce_setup_ns + 8 * x);
	CU_ASSERT_EQUAL(gm_ce_done_ns(t->g), t1);
	CU_ASSERT_EQUAL(gm_now_ns(t->g), t1);
	gm_get_stats(t->g, &st);
	CU_ASSERT_EQUAL(st.sim_ns, t1);
	/* reading the clock changes nothing: the same value again */
	CU_ASSERT_EQUAL(ptimer(t), t1);
	/* from the FAULT thread each copy waits for the one before (the
	 * first one's setup overlapped the link's backlog) */
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_FAULT);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 16 * MiB, 2 * MiB, 0);
	CU_ASSERT_EQUAL(ptimer(t), t1 + x);
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 18 * MiB, 2 * MiB, 0);
	CU_ASSERT_EQUAL(ptimer(t), t1 + 2 * x + p->ce_setup_ns);
	t1 = ptimer(t);
	/* driver work outside a launch: its time passes too */
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTION_CHUNK_ALLOC |
		     3 << EMGPU_DRV_ACTION_COUNT_SHIFT);
	CU_ASSERT_EQUAL(ptimer(t), t1 + 3 * p->drv_chunk_alloc_ns);
	t1 = ptimer(t);
	/* the launch starts at the idle clock: its first fault is stamped
	 * launch_ns later */
	args[0] = VA_BASE;
	args[1] = 4096;
	args[2] = 1;
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_STREAM, 1, 0, args, 3), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(ptimer(t), t1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	th_fault_entry(t, 0, &e);
	CU_ASSERT_EQUAL(emgpu_le64_to_cpu(e.timestamp), t1 + p->launch_ns);
	th_free(t);
}

/* Same copies, same launch: deterministic, and the launch time is unchanged. */
static void test_prefetch_launch_time(void)
{
	uint64_t lt[2], end[2], hash[2], setup = 0, mbps = 0;
	uint64_t args[3] = { VA_BASE, 2 * MiB, 1 };
	int k;

	for (k = 0; k < 2; k++) {
		struct th *t = th_new("h200-256m", 1, 0);

		th_ce_setup(t);
		th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0, 21, 0);
		if (k)
			th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, 0, 2 * MiB, 0);
		th_launch(t, EMGPU_KERNEL_STREAM, 0, 0, args, 3);
		CU_ASSERT_EQUAL(th_run_to_end(t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
		lt[k] = gm_launch_time_ns(t->g);
		end[k] = ptimer(t);
		hash[k] = gm_trace_hash(t->g);
		setup = gm_get_profile(t->g)->ce_setup_ns;
		mbps = gm_get_profile(t->g)->link_h2d_mbps;
		th_free(t);
	}
	CU_ASSERT_EQUAL(lt[0], lt[1]);
	CU_ASSERT_EQUAL(end[1], end[0] + setup + xfer_ns(2 * MiB, mbps));
	CU_ASSERT_NOT_EQUAL(hash[0], hash[1]);
}

/*
 * A background copy (a promotion, on the notification thread) into VRAM
 * while a kernel runs: warps reaching the chunk wait for the copy's
 * completion, so promoted data is not served from VRAM before it arrived;
 * the same copy into another chunk delays nothing.
 */
static void test_background_copy_hazard(void)
{
	uint64_t args[3] = { VA_BASE, 2 * MiB, 1 }, lt[2], done[2];
	int k;

	for (k = 0; k < 2; k++) {
		struct th *t = th_new("h200-256m", 1, 0);

		th_ce_setup(t);
		th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0, 21, 0);
		th_launch(t, EMGPU_KERNEL_STREAM, 0, 0, args, 3);
		CU_ASSERT_EQUAL(gm_run(t->g, 64), GM_STOP_BUDGET);	/* warps running */
		gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_NOTIFY);
		/* k = 0: into the kernel's chunk; k = 1: into another chunk */
		th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA, k ? 8 * MiB : 0,
			   2 * MiB, 0);
		done[k] = gm_ce_done_ns(t->g);
		CU_ASSERT_EQUAL(th_run_to_end(t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
		lt[k] = gm_launch_time_ns(t->g);
		th_free(t);
	}
	/* 2 MiB over the 32 GB/s link: far longer than the kernel alone */
	CU_ASSERT(done[0] >= xfer_ns(2 * MiB, 32000));
	CU_ASSERT(lt[0] >= done[0]);
	CU_ASSERT(lt[1] < done[1] / 4);
}

/* ---- an emulated stock-UVM driver over gather ---- */

#define BLK_SHIFT	16		/* 64 KiB: UVM's big-page migration unit */
#define BLK		(1ull << BLK_SHIFT)
#define CAP_BLOCKS	64		/* the driver's VRAM: 4 MiB */
#define VRAM_BASE	(16 * MiB)

struct uvm_drv {
	uint64_t bytes;
	uint32_t ring[CAP_BLOCKS];	/* resident blocks, oldest first */
	uint32_t slot_of[1024];		/* block -> VRAM slot + 1 */
	uint32_t head, n;
	uint64_t migrations, evictions;
};

static void uvm_fault(struct th *t, uint64_t va, void *ctx)
{
	struct uvm_drv *d = ctx;
	uint64_t b = (va - VA_BASE) >> BLK_SHIFT, off;
	uint32_t slot, v;

	if (va < VA_BASE || va >= VA_BASE + d->bytes || d->slot_of[b])
		return;
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTION_FAULT_PAGE |
		     1 << EMGPU_DRV_ACTION_COUNT_SHIFT);
	if (d->n == CAP_BLOCKS) {	/* evict on demand: the batch waits */
		v = d->ring[d->head];
		d->head = (d->head + 1) % CAP_BLOCKS;
		d->n--;
		slot = d->slot_of[v] - 1;
		d->slot_of[v] = 0;
		for (off = 0; off < BLK; off += 4096)
			th_unmap(t, VA_BASE + ((uint64_t)v << BLK_SHIFT) + off, 12);
		gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTION_CHUNK_EVICT |
			     1 << EMGPU_DRV_ACTION_COUNT_SHIFT);
		th_ce_push(t, EMGPU_CE_OP_COPY, VID2SYS, VRAM_BASE + slot * BLK,
			   TH_DATA + ((uint64_t)v << BLK_SHIFT), BLK, 0);
		d->evictions++;
	} else {
		slot = d->n;
	}
	th_ce_push(t, EMGPU_CE_OP_COPY, SYS2VID, TH_DATA + (b << BLK_SHIFT),
		   VRAM_BASE + slot * BLK, BLK, 0);
	for (off = 0; off < BLK; off += 4096)
		th_map(t, VA_BASE + (b << BLK_SHIFT) + off, EMGPU_APERTURE_VIDMEM,
		       VRAM_BASE + slot * BLK + off, 12, 0);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTION_PTE_UPDATE |
		     16 << EMGPU_DRV_ACTION_COUNT_SHIFT);
	d->ring[(d->head + d->n++) % CAP_BLOCKS] = (uint32_t)b;
	d->slot_of[b] = slot + 1;
	d->migrations++;
}

struct fid {
	uint64_t ns, result, migrations, evictions;
};

/* gather sized like libember's workload: footprint = factor x capacity,
 * a quarter of the source lines gathered; uvm or mapped */
static struct fid run_gather(unsigned int factor_x2, int mapped)
{
	uint64_t foot = CAP_BLOCKS * BLK * factor_x2 / 2;
	uint64_t count = (foot / 128 / 4) & ~31ull, src = foot - count * 4, off;
	uint64_t args[4] = { VA_BASE, src, VA_BASE + src, count };
	struct th *t = th_new("h200-256m", 3, 0);
	struct uvm_drv *d = calloc(1, sizeof(*d));
	struct fid f;
	uint32_t i;

	d->bytes = foot;
	for (i = 0; i < foot / 4; i++)
		memcpy(t->sys + TH_DATA + 4 * i, &i, 4);
	th_ce_setup(t);
	th_enable_faults(t, 64);
	if (mapped)	/* SetPreferredLocation(CPU) + SetAccessedBy(GPU) */
		for (off = 0; off < foot; off += 4096)
			th_map(t, VA_BASE + off, EMGPU_APERTURE_SYSMEM, TH_DATA + off, 12, 0);
	th_launch(t, EMGPU_KERNEL_GATHER, 0, 17, args, 4);
	CU_ASSERT_EQUAL(th_run_to_end(t, mapped ? NULL : uvm_fault, d, NULL),
			EMGPU_LAUNCH_DONE);
	f.ns = gm_launch_time_ns(t->g);
	f.result = gm_launch_result(t->g);
	f.migrations = d->migrations;
	f.evictions = d->evictions;
	free(d);
	th_free(t);
	return f;
}

static void test_gather_collapse(void)
{
	struct fid u05 = run_gather(1, 0), u15 = run_gather(3, 0);
	struct fid m05 = run_gather(1, 1), m15 = run_gather(3, 1);
	struct fid again = run_gather(3, 0);
	uint64_t l = 5000;	/* launch_ns: a fixed cost, not per byte */
	/* per byte of footprint, the factors being 0.5 and 1.5: x3 */
	uint64_t uvm_ratio_x100 = (u15.ns - l) * 100 / (3 * (u05.ns - l));
	uint64_t map_ratio_x100 = (m15.ns - l) * 100 / (3 * (m05.ns - l));

	CU_ASSERT_EQUAL(u05.evictions, 0);
	CU_ASSERT_EQUAL(u05.migrations, CAP_BLOCKS / 2);
	CU_ASSERT(u15.evictions > 10 * CAP_BLOCKS);
	/* the same answer every way */
	CU_ASSERT_EQUAL(u05.result, m05.result);
	CU_ASSERT_EQUAL(u15.result, m15.result);
	/* deterministic */
	CU_ASSERT_EQUAL(again.ns, u15.ns);
	CU_ASSERT_EQUAL(again.evictions, u15.evictions);
	/* stock UVM collapses: >= 10x slower per byte at 1.5x */
	CU_ASSERT(uvm_ratio_x100 >= 1000);
	/* mapped access is interconnect-bound and flat per byte (+-10 %) */
	CU_ASSERT(map_ratio_x100 >= 90 && map_ratio_x100 <= 110);
	/* a quarter of the lines read once each: mapped reads less than
	 * migration moves, so it wins even at 0.5x */
	CU_ASSERT(m05.ns < u05.ns);
	if (getenv("GM_FIDELITY_PRINT"))
		fprintf(stderr, "\n  gather uvm 0.5x %llu ns, 1.5x %llu ns (%llu evictions), "
			"per byte x%.1f; mapped 0.5x %llu ns, 1.5x %llu ns, per byte x%.2f\n",
			(unsigned long long)u05.ns, (unsigned long long)u15.ns,
			(unsigned long long)u15.evictions, uvm_ratio_x100 / 100.0,
			(unsigned long long)m05.ns, (unsigned long long)m15.ns,
			map_ratio_x100 / 100.0);
}

#define SYSMEM_BYTES	(16 * 4096)	/* the sysmem tests' buffer: 512 lines */

/*
 * Runs hotset (args) over SYSMEM_BYTES of sysmem mapped at VA_BASE on
 * profile p, the buffer first filled with 0xff bytes. Returns the model,
 * the launch done, for the caller to read and th_free().
 */
/* The hotset kernel on 4 warps over what t maps, run to its end. */
static void hotset_to_end(struct th *t, const uint64_t *args, int nargs)
{
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_HOTSET, 4, 0, args, nargs),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_run_to_end(t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
}

static struct th *sysmem_hotset(const struct gm_profile *p, const uint64_t *args,
				int nargs)
{
	struct th *t = th_new_profile(p, 1, 0);
	uint64_t off;

	memset(t->sys + TH_DATA, 0xff, SYSMEM_BYTES);
	for (off = 0; off < SYSMEM_BYTES; off += 4096)
		th_map(t, VA_BASE + off, EMGPU_APERTURE_SYSMEM, TH_DATA + off, 12, 0);
	hotset_to_end(t, args, nargs);
	return t;
}

/* word of the sysmem buffer at byte offset off, for gm_hotset_reference() */
static uint32_t sys_word(void *ctx, uint64_t off)
{
	const struct th *t = ctx;

	return th_u32(t, TH_DATA + off);
}

/*
 * The hotset kernel's result equals its CPU reference (gpumodel/hotset.h,
 * what libember's runner checks launches against) over distinct words:
 * the whole buffer, a window with a partial last position and random
 * lines, all random, several passes, seeds 7 and 8.
 */
static void test_hotset_reference(void)
{
	static const uint64_t shapes[][6] = {
		{ VA_BASE, SYSMEM_BYTES, 0, 0, 4, 3 },
		{ VA_BASE, SYSMEM_BYTES, 3 * 4096, 25, 5, 2 },
		{ VA_BASE, SYSMEM_BYTES, 2 * 4096, 100, 1, 4 },
		{ VA_BASE, SYSMEM_BYTES, 5 * 4096, 0, 40, 1 },
	};
	uint64_t seed, off, ref, zero_ref = 0;
	unsigned int i;

	for (seed = 7; seed <= 8; seed++)
		for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			struct th *t = th_new("h200-64m", 1, 0);
			uint64_t args[6];

			memcpy(args, shapes[i], sizeof(args));
			for (off = 0; off < SYSMEM_BYTES; off += 4) {
				uint32_t w = (uint32_t)gm_mix64(off ^ i << 20);

				memcpy(t->sys + TH_DATA + off, &w, 4);
			}
			for (off = 0; off < SYSMEM_BYTES; off += 4096)
				th_map(t, VA_BASE + off, EMGPU_APERTURE_SYSMEM,
				       TH_DATA + off, 12, 0);
			CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_HOTSET, 4, seed,
						  args, 6), EMGPU_LAUNCH_RUNNING);
			CU_ASSERT_EQUAL(th_run_to_end(t, NULL, NULL, NULL),
					EMGPU_LAUNCH_DONE);
			ref = gm_hotset_reference(args, seed, sys_word, t);
			CU_ASSERT_EQUAL(gm_launch_result(t->g), ref);
			if (i == 0)
				zero_ref = ref;
			else
				CU_ASSERT_NOT_EQUAL(ref, zero_ref);
			th_free(t);
		}
}

/* h200x16-256m with its link at mbps each way. */
static struct gm_profile link_profile(uint32_t mbps)
{
	struct gm_profile p;

	CU_ASSERT_EQUAL(gm_profile_lookup("h200x16-256m", &p), 0);
	p.link_h2d_mbps = p.link_d2h_mbps = mbps;
	return p;
}

/* sysmem_hotset()'s launch time, in ns. */
static uint64_t sysmem_hotset_ns(const struct gm_profile *p, const uint64_t *args,
				 int nargs)
{
	struct th *t = sysmem_hotset(p, args, nargs);
	uint64_t ns = gm_launch_time_ns(t->g);

	th_free(t);
	return ns;
}

/*
 * Reads every line of the buffer `reads` times in one launch, `word`
 * bytes of each (hotset args[6]), on a profile whose link is the
 * bottleneck (100 MB/s: 1.28 us a line, 320 ns a 32-byte sector) and whose
 * read requests take req_ps each. Returns the launch's ns.
 */
static uint64_t sysmem_read_ns(uint32_t req_ps, uint32_t reads, uint32_t word)
{
	const uint64_t args[7] = { VA_BASE, SYSMEM_BYTES, 0, 0, 32 * reads, 1, word };
	struct gm_profile p = link_profile(100);

	p.link_request_ps = req_ps;
	return sysmem_hotset_ns(&p, args, 7);
}

/*
 * Sub-line sysmem reads: a word moves a 32-byte sector, but no faster than
 * the request rate; a line is bound by its bytes; a line read twice pays
 * the link twice (no sysmem line is served on chip). Without a request
 * rate every access is a line.
 */
static void test_sysmem_requests(void)
{
	uint64_t lines = SYSMEM_BYTES / 128;
	uint64_t line = sysmem_read_ns(500000, 1, 0);
	uint64_t word = sysmem_read_ns(500000, 1, 4);
	uint64_t word_fast = sysmem_read_ns(1000, 1, 4);
	uint64_t twice = sysmem_read_ns(500000, 2, 0);
	uint64_t no_rate = sysmem_read_ns(0, 1, 4);

	CU_ASSERT(line >= lines * 1280 && line <= lines * 1280 * 11 / 10);
	CU_ASSERT(word >= lines * 500 && word <= lines * 500 * 11 / 10);
	CU_ASSERT(word_fast >= lines * 320 && word_fast <= lines * 320 * 11 / 10);
	CU_ASSERT(twice >= 2 * lines * 1280 && twice <= 2 * line * 11 / 10);
	CU_ASSERT(no_rate >= lines * 1280 && no_rate <= line * 11 / 10);
}

/*
 * Sub-line sysmem stores (hotset args[7]): each 4-byte store to its own
 * line is one write request (link_write_request_ps) where requests are the
 * bottleneck, and a line's bytes where the link is; every line's first
 * word holds the line's number afterwards. Read requests play no part.
 */
static void test_sysmem_store_requests(void)
{
	/* link MB/s, write request ps, the ns a store must cost */
	static const uint32_t cases[2][3] = {
		{ 100000, 500000, 500 },	/* request-bound */
		{ 100, 100000, 320 },		/* link-bound: a 32-byte sector */
	};
	const uint64_t args[8] = { VA_BASE, SYSMEM_BYTES, 0, 0, 32, 1, 4, 1 };
	uint64_t lines = SYSMEM_BYTES / 128, ns, line;
	struct gm_profile p;
	struct th *t;
	int i;

	for (i = 0; i < 2; i++) {
		p = link_profile(cases[i][0]);
		p.link_request_ps = 1;
		p.link_write_request_ps = cases[i][1];
		t = sysmem_hotset(&p, args, 8);
		ns = gm_launch_time_ns(t->g);
		CU_ASSERT(ns >= lines * cases[i][2] && ns <= lines * cases[i][2] * 11 / 10);
		for (line = 0; line < lines; line++) {
			CU_ASSERT_EQUAL(th_u32(t, TH_DATA + line * 128), line);
			/* 4 bytes stored: the line's next word untouched */
			CU_ASSERT_EQUAL(th_u32(t, TH_DATA + line * 128 + 4), 0xffffffffu);
		}
		th_free(t);
	}
}

/*
 * A store's bytes (hotset args[6]) to every line `stores` times, on a
 * request-bound profile (the link 100 GB/s) whose write requests take
 * 500 ns, 100 ns where the host holds the line (hit_ps). Returns the
 * launch's ns.
 */
static uint64_t sysmem_store_ns(uint32_t hit_ps, uint32_t stores, uint32_t bytes)
{
	const uint64_t args[8] = { VA_BASE, SYSMEM_BYTES, 0, 0, 32 * stores, 1,
				   bytes, 1 };
	struct gm_profile p = link_profile(100000);

	p.link_request_ps = 1;
	p.link_write_request_ps = 500000;
	p.link_write_hit_ps = hit_ps;
	return sysmem_hotset_ns(&p, args, 8);
}

/*
 * The host merges a partial write into its 64-byte line: the first 4-byte
 * store to a line costs a write request, the second (the host holds the
 * line now) the cheaper one; a store of a whole host line (64 bytes) is
 * cheap the first time (less the launch's fixed part, the once run's
 * time above its stores'). Without the cheaper rate every store costs a
 * write request.
 */
static void test_sysmem_write_hits(void)
{
	const uint64_t lines = SYSMEM_BYTES / 128;
	uint64_t once = sysmem_store_ns(100000, 1, 4);
	uint64_t twice = sysmem_store_ns(100000, 2, 4);
	uint64_t whole = sysmem_store_ns(100000, 1, 64);
	uint64_t twice_no_hits = sysmem_store_ns(0, 2, 4);

	CU_ASSERT(once >= lines * 500 && once <= lines * 500 * 11 / 10);
	CU_ASSERT(twice >= lines * 600 && twice <= lines * 600 * 11 / 10);
	/* the launch's fixed part (~6 us here) would be 10 % of this one */
	CU_ASSERT(whole - (once - lines * 500) >= lines * 100 &&
		  whole - (once - lines * 500) <= lines * 100 * 11 / 10);
	CU_ASSERT(twice_no_hits >= lines * 1000 && twice_no_hits <= lines * 1000 * 11 / 10);
}

/*
 * Stores to every line of 4 MiB of sysmem twice (4 bytes, so the second
 * finds the host holding the line unless another line took its slot),
 * page i backed by physical page i * stride of the harness's sysmem.
 * Returns the launch's ns; *hash its trace hash.
 */
static uint64_t sysmem_pages_store_ns(uint64_t stride, uint64_t *hash)
{
	const uint64_t bytes = 4 * MiB;
	const uint64_t args[8] = { VA_BASE, bytes, 0, 0, 64, 1, 4, 1 };
	struct gm_profile p = link_profile(100000);
	struct th *t;
	uint64_t i, pa, ns;

	/* request-bound, as sysmem_store_ns() */
	p.link_request_ps = 1;
	p.link_write_request_ps = 500000;
	p.link_write_hit_ps = 100000;
	t = th_new_profile(&p, 1, 0);

	for (i = 0; i < bytes / 4096; i++) {
		pa = TH_DATA + i * stride * 4096;
		CU_ASSERT_FATAL(pa + 4096 <= TH_SYS_SIZE);
		th_map(t, VA_BASE + i * 4096, EMGPU_APERTURE_SYSMEM, pa, 12, 0);
	}
	hotset_to_end(t, args, 8);
	ns = gm_launch_time_ns(t->g);
	*hash = gm_trace_hash(t->g);
	th_free(t);
	return ns;
}

/*
 * Which physical pages back a buffer is the guest allocator's choice and
 * differs from boot to boot; the modelled time and the trace must not.
 */
static void test_sysmem_pages_anywhere(void)
{
	uint64_t h1, h13;
	uint64_t ns1 = sysmem_pages_store_ns(1, &h1);
	uint64_t ns13 = sysmem_pages_store_ns(13, &h13);

	CU_ASSERT_EQUAL(ns1, ns13);
	CU_ASSERT_EQUAL(h1, h13);
}

/* One warp's in-line bitonic pass over a 2 MiB page of VRAM: its ns. */
static uint64_t bitonic_in_line_ns(const struct gm_profile *p, uint64_t k)
{
	const uint64_t args[5] = { VA_BASE, 2 * MiB, 2 * MiB / 128, k, 0 };
	struct th *t = th_new_profile(p, 1, 0);
	uint64_t ns;

	th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0, 21, 0);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_BITONIC, 1, 0, args, 5),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_run_to_end(t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
	ns = gm_launch_time_ns(t->g);
	th_free(t);
	return ns;
}

/*
 * Compute time: an in-line bitonic pass at k = 32 runs 15 stages a line,
 * at k = 64 five, with the same accesses; on one warp (nothing overlaps)
 * the two differ by exactly 10 stages' instructions a line at
 * warp_issue_ps each, and not at all when ALU work is free.
 */
static void test_compute_time(void)
{
	const uint64_t lines = 2 * MiB / 128;
	struct gm_profile p;
	uint64_t diff, want;

	CU_ASSERT_EQUAL(gm_profile_lookup("h200x16-256m", &p), 0);
	CU_ASSERT(p.warp_issue_ps > 0);
	want = lines * 10 * 20 * p.warp_issue_ps / 1000;
	diff = bitonic_in_line_ns(&p, 32) - bitonic_in_line_ns(&p, 64);
	CU_ASSERT(diff + 1 >= want && diff <= want + 1);
	p.warp_issue_ps = 0;
	CU_ASSERT_EQUAL(bitonic_in_line_ns(&p, 32), bitonic_in_line_ns(&p, 64));
}

/* FAULT_BLOCK and HOST_PAGE cost the profile's time per count. */
static void test_driver_actions(void)
{
	struct th *t = th_new("h200x16-256m", 1, 0);
	const struct gm_profile *p = gm_get_profile(t->g);
	uint64_t t0 = ptimer(t);

	CU_ASSERT(p->drv_fault_block_ns > p->drv_fault_page_ns);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_THREAD, EMGPU_DRV_THREAD_FAULT);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTION_FAULT_BLOCK |
		     3 << EMGPU_DRV_ACTION_COUNT_SHIFT);
	CU_ASSERT_EQUAL(ptimer(t), t0 + 3 * p->drv_fault_block_ns);
	t0 = ptimer(t);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTION_HOST_PAGE |
		     512 << EMGPU_DRV_ACTION_COUNT_SHIFT);
	CU_ASSERT_EQUAL(ptimer(t), t0 + 512 * p->drv_host_page_ns);
	CU_ASSERT_EQUAL(t->errors, 0);
	gm_reg_write(t->g, EMGPU_REG_DRIVER_ACTION, EMGPU_DRV_ACTIONS);
	CU_ASSERT_EQUAL(t->errors, 1);
	th_free(t);
}

void add_fidelity_suite(void)
{
	CU_pSuite s = CU_add_suite("timing fidelity", NULL, NULL);

	CU_add_test(s, "a prefetch advances the idle clock; the launch starts after it", test_prefetch_clock);
	CU_add_test(s, "hotset's result equals its CPU reference", test_hotset_reference);
	CU_add_test(s, "copies before a launch shift it, launch time unchanged", test_prefetch_launch_time);
	CU_add_test(s, "a background copy delays the warps that read its chunk",
		    test_background_copy_hazard);
	CU_add_test(s, "gather: uvm collapses >= 10x per byte at 1.5x, mapped flat", test_gather_collapse);
	CU_add_test(s, "sysmem: a word costs a sector or a request, a line its bytes",
		    test_sysmem_requests);
	CU_add_test(s, "sysmem: a 4-byte store costs a write request, its word lands",
		    test_sysmem_store_requests);
	CU_add_test(s, "sysmem: a store to a host line held costs less, a whole line too",
		    test_sysmem_write_hits);
	CU_add_test(s, "sysmem: the physical pages behind a buffer change no time",
		    test_sysmem_pages_anywhere);
	CU_add_test(s, "driver actions FAULT_BLOCK and HOST_PAGE", test_driver_actions);
	CU_add_test(s, "compute: a kernel's instructions at warp_issue_ps each", test_compute_time);
}
