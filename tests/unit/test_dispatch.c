/* SPDX-License-Identifier: MIT */
/*
 * In-order work dispatch (gm_next_item()): with every warp running, a
 * linear sweep keeps a narrow active front, so a capacity-limited driver
 * (emulated here: 64 KiB blocks, FIFO eviction, as stock UVM evicts its
 * least recently migrated block) evicts as often with 528 warps as with
 * one: each block once per pass beyond capacity. Before in-order dispatch
 * the fixed grid-stride assignment let warps drift more than the capacity
 * apart and the same sweep thrashed.
 */
#include <stdlib.h>
#include <string.h>

#include "gpumodel/kernel.h"
#include "tests.h"

#define BLK_SHIFT	16
#define BLK		(1ull << BLK_SHIFT)

struct fifo_drv {
	uint64_t bytes;		/* buffer at VA_BASE */
	uint32_t cap;		/* resident blocks at most */
	uint32_t *ring;		/* resident blocks, oldest first */
	uint32_t head, n;
	uint8_t *resident;
	uint64_t migrations, evictions;
};

static void fifo_fault(struct th *t, uint64_t va, void *ctx)
{
	struct fifo_drv *d = ctx;
	uint64_t b = (va - VA_BASE) >> BLK_SHIFT, off;
	uint32_t v;

	if (va < VA_BASE || va >= VA_BASE + d->bytes || d->resident[b])
		return;		/* a duplicate in the batch */
	if (d->n == d->cap) {
		v = d->ring[d->head];
		d->head = (d->head + 1) % d->cap;
		d->n--;
		d->resident[v] = 0;
		d->evictions++;
		for (off = 0; off < BLK; off += 4096)
			th_unmap(t, VA_BASE + ((uint64_t)v << BLK_SHIFT) + off, 12);
	}
	for (off = 0; off < BLK; off += 4096)	/* data stays in place */
		th_map(t, VA_BASE + (b << BLK_SHIFT) + off, EMGPU_APERTURE_SYSMEM,
		       TH_DATA + (b << BLK_SHIFT) + off, 12, 0);
	d->ring[(d->head + d->n++) % d->cap] = (uint32_t)b;
	d->resident[b] = 1;
	d->migrations++;
}

struct sweep {
	uint64_t evictions, migrations, result, launch_ns, hash;
	uint64_t out;		/* FNV of the buffer afterwards */
};

static struct sweep run_sweep(uint32_t kernel, uint32_t warps, uint64_t bytes,
			      uint32_t cap, const uint64_t *args, int nargs)
{
	struct th *t = th_new("h200-256m", 5, 0);
	struct fifo_drv d = { .bytes = bytes, .cap = cap };
	struct sweep s;
	uint64_t i, h = 0xcbf29ce484222325ull;

	d.ring = calloc(cap, sizeof(*d.ring));
	d.resident = calloc(bytes >> BLK_SHIFT, 1);
	for (i = 0; i < bytes / 4; i++)
		memcpy(t->sys + TH_DATA + 4 * i, &(uint32_t){ (uint32_t)(i * 2654435761u) }, 4);
	th_enable_faults(t, 64);
	CU_ASSERT_EQUAL(th_launch(t, kernel, warps, 9, args, nargs), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_run_to_end(t, fifo_fault, &d, NULL), EMGPU_LAUNCH_DONE);
	s.evictions = d.evictions;
	s.migrations = d.migrations;
	s.result = gm_launch_result(t->g);
	s.launch_ns = gm_launch_time_ns(t->g);
	s.hash = gm_trace_hash(t->g);
	for (i = 0; i < bytes; i++)
		h = (h ^ t->sys[TH_DATA + i]) * 0x100000001b3ull;
	s.out = h;
	free(d.ring);
	free(d.resident);
	th_free(t);
	return s;
}

/* stream over 1.5x the capacity, 2 passes: ideal is 1 eviction per block past capacity per pass */
static void test_stream_front(void)
{
	const uint64_t bytes = 96 * BLK;	/* 6 MiB, capacity 64 blocks */
	uint64_t args[3] = { VA_BASE, bytes, 2 };
	struct sweep one = run_sweep(EMGPU_KERNEL_STREAM, 1, bytes, 64, args, 3);
	struct sweep w32 = run_sweep(EMGPU_KERNEL_STREAM, 32, bytes, 64, args, 3);
	struct sweep all = run_sweep(EMGPU_KERNEL_STREAM, 0, bytes, 64, args, 3);
	struct sweep again = run_sweep(EMGPU_KERNEL_STREAM, 0, bytes, 64, args, 3);

	/* pass 1: 32 past capacity; pass 2 starts with the 64 newest resident,
	 * all of which FIFO evicts before their turn: 96 more */
	CU_ASSERT_EQUAL(one.evictions, 32 + 96);
	CU_ASSERT_EQUAL(w32.evictions, 32 + 96);
	CU_ASSERT_EQUAL(all.evictions, 32 + 96);
	CU_ASSERT_EQUAL(all.migrations, 96 + 96);
	/* the same words and result whoever did which line */
	CU_ASSERT_EQUAL(one.out, all.out);
	CU_ASSERT_EQUAL(one.result, all.result);
	CU_ASSERT_EQUAL(w32.out, all.out);
	CU_ASSERT_EQUAL(w32.result, all.result);
	/* deterministic */
	CU_ASSERT_EQUAL(all.hash, again.hash);
	CU_ASSERT_EQUAL(all.launch_ns, again.launch_ns);
	/* (grid-stride dispatch: 3060 migrations, 2996 evictions, 138.5 ms
	 * against 9.5 ms now); all warps are faster than one */
	CU_ASSERT(all.launch_ns < one.launch_ns);
}

/* hotset's window slides for all warps together: each block migrates once */
static void test_hotset_front(void)
{
	const uint64_t bytes = 96 * BLK;
	/* window 4 blocks, no random share, reuse 8, one pass */
	uint64_t args[6] = { VA_BASE, bytes, 4 * BLK, 0, 8, 1 };
	struct sweep one = run_sweep(EMGPU_KERNEL_HOTSET, 1, bytes, 16, args, 6);
	struct sweep all = run_sweep(EMGPU_KERNEL_HOTSET, 0, bytes, 16, args, 6);

	CU_ASSERT_EQUAL(one.migrations, 96);
	CU_ASSERT_EQUAL(one.evictions, 96 - 16);
	/*
	 * 528 warps over 512 slots per window: the front spans two windows,
	 * and a warp whose uTLB a peer's new fault stalls again right after a
	 * replay can hold its slot a little longer: 5 blocks come back once
	 * (grid-stride dispatch: 984 migrations, 968 evictions)
	 */
	CU_ASSERT_EQUAL(all.migrations, 101);
	CU_ASSERT_EQUAL(all.evictions, 85);
	CU_ASSERT_EQUAL(one.result, all.result);
}

/* the cursor hands out items in order, starting after the first wave */
static void test_gather_dispatch(void)
{
	const uint64_t bytes = 32 * BLK;
	uint64_t args[4] = { VA_BASE, bytes - 4 * BLK, VA_BASE + bytes - 4 * BLK, 4096 };
	struct sweep one = run_sweep(EMGPU_KERNEL_GATHER, 1, bytes, 32, args, 4);
	struct sweep all = run_sweep(EMGPU_KERNEL_GATHER, 0, bytes, 32, args, 4);
	struct sweep odd = run_sweep(EMGPU_KERNEL_GATHER, 7, bytes, 32, args, 4);

	CU_ASSERT_EQUAL(one.evictions, 0);
	CU_ASSERT_EQUAL(one.out, all.out);
	CU_ASSERT_EQUAL(one.result, all.result);
	CU_ASSERT_EQUAL(odd.out, all.out);
	CU_ASSERT_EQUAL(odd.result, all.result);
}

void add_dispatch_suite(void)
{
	CU_pSuite s = CU_add_suite("in-order dispatch", NULL, NULL);

	CU_add_test(s, "stream at 1.5x capacity: 528 warps evict like one", test_stream_front);
	CU_add_test(s, "hotset window: each block migrates once with every warp", test_hotset_front);
	CU_add_test(s, "gather: same output for 1, 7 and 528 warps", test_gather_dispatch);
}
