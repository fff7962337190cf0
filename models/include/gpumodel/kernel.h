/* SPDX-License-Identifier: MIT */
/*
 * Built-in kernel interface. A kernel is one file in models/src/kernels/
 * that defines a const struct gm_kernel, plus one line in
 * models/src/kernels/table.c (and its source path in models/sources.mk).
 *
 * Each warp is a restartable state machine: step() performs at most a few
 * memory accesses through gm_warp_load()/gm_warp_store() and advances the
 * warp's own state (pc, i..n, scratch) only after they succeed. When an
 * access returns GM_STEP_STALL the step must return GM_STEP_STALL with the
 * warp's state unchanged (or changed only in ways that are safe to redo):
 * the same step is called again after the replay. Kernels never see time;
 * the accessors charge it.
 */
#ifndef GPUMODEL_KERNEL_H
#define GPUMODEL_KERNEL_H

#include <stdint.h>

#include "emgpu_hw.h"
#include "gpumodel/splitmix64.h"	/* gm_mix64, the PRNG kernels use */

struct gm_gpu;

enum gm_warp_state {
	GM_WARP_IDLE = 0,
	GM_WARP_RUNNABLE,
	GM_WARP_STALLED,	/* waiting for a replay */
	GM_WARP_DONE,
};

struct gm_warp {
	uint32_t id;		/* 0 .. warps - 1 */
	uint32_t sm;
	uint32_t utlb;		/* global uTLB index */
	uint32_t state;		/* enum gm_warp_state */
	uint64_t t;		/* warp's local time, ps */
	/* kernel state: free for the kernel, zeroed at launch */
	uint32_t pc;		/* resume point */
	uint64_t i, j, k, n;
	uint64_t acc;		/* partial result, summed into LAUNCH_RESULT */
	uint32_t line[32];	/* 128-byte scratch */
	uint32_t out[32];	/* 128-byte scratch */
};

/* A launch descriptor (struct emgpu_launch_desc) in CPU byte order. */
struct gm_launch_params {
	uint32_t kernel;
	uint32_t warps;
	uint64_t seed;
	uint64_t args[EMGPU_LAUNCH_MAX_ARGS];
};

struct gm_launch {
	struct gm_launch_params d;	/* decoded copy, validated */
	uint32_t warps;			/* warps running it */
	uint32_t seq;			/* launch sequence number (fault inst) */
};

enum gm_step {
	GM_STEP_MORE = 0,	/* progress made, call again */
	GM_STEP_DONE = 1,	/* the warp finished */
	GM_STEP_STALL = 2,	/* an access faulted or its uTLB is stalled */
	/* negative: enum emgpu_error, the launch fails */
};

struct gm_kernel {
	uint32_t id;		/* enum emgpu_kernel_id */
	const char *name;
	/* Checks the arguments; 0, or -1 for a malformed descriptor. */
	int (*check)(const struct gm_launch *l);
	/* Sets up one warp's state (already zeroed). */
	void (*init)(const struct gm_launch *l, struct gm_warp *w);
	int (*step)(struct gm_gpu *g, const struct gm_launch *l,
		    struct gm_warp *w);
	/*
	 * Optional: non-zero when step() would begin with an access, so that
	 * on a stalled uTLB it would return GM_STEP_STALL having changed
	 * nothing. The run loop then stalls the warp without calling step():
	 * in a faulting sweep every warp of a stalled uTLB is stepped once
	 * per fault batch only to find that out. NULL: step() is called.
	 */
	int (*accesses_first)(const struct gm_launch *l,
			      const struct gm_warp *w);
};

/*
 * In-order work dispatch (persistent threads): a launch's work items are
 * numbered 0, 1, 2, ...; warp w starts on item w (init sets w->i = w->id,
 * the first wave, as a GPU dispatches blocks 0..N-1 to its SMs) and, when
 * it has finished an item, takes the next undispatched one from the
 * launch's cursor, which starts at the launch's warp count. A GPU hands
 * out thread blocks in order as SMs free up, so the items in progress
 * form a small window that advances through the data: a warp that stalls
 * (on a fault) holds one item while the others move on, rather than the
 * others racing ahead through their own fixed strides of the whole buffer
 * (which let a grid-stride assignment spread the active pages over more
 * than VRAM). Kernels compute per-item results that do not depend on the
 * warp or the order, so outputs are unchanged; the order warps take items
 * in is the run loop's deterministic visiting order.
 */
uint64_t gm_next_item(struct gm_gpu *g);

/* Looks up a built-in kernel by id; NULL if none (models/src/kernels/table.c). */
const struct gm_kernel *gm_kernel_find(uint32_t id);

/*
 * Warp memory accessors: translate through the warp's uTLB, move len bytes
 * (at most 128, within one 128-byte line), charge time, count for access
 * counters. Return 0, GM_STEP_STALL, or a negative enum emgpu_error.
 * gm_warp_load() with access EMGPU_ACCESS_WRITE checks write permission (for
 * a read-modify-write whose store then cannot fault).
 */
/*
 * Charges a work item's ALU work, insts warp instructions, to the warp at
 * the profile's warp_issue_ps each (a modelled warp stands for one SM
 * scheduler's warps, which issue one instruction a cycle between them).
 * Call it once per item, after its last access succeeded (a stalled step
 * is redone). The warp's clock is the sum of its instructions and its
 * accesses; the shared memory queues make a launch the later of its
 * warps' issue time and its bytes' time (a roofline: many warps hide
 * memory behind compute and compute behind memory).
 */
void gm_warp_compute(struct gm_gpu *g, struct gm_warp *w, uint32_t insts);

int gm_warp_load(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		 void *buf, uint32_t len, unsigned int access);
int gm_warp_store(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		  const void *buf, uint32_t len);
/*
 * A read the kernel makes for its own bookkeeping, which the program it
 * stands for never made (the trace kernel's warp table and records):
 * translated and read as gm_warp_load() reads, stalling on a fault alike,
 * but charged no time and counted nowhere (accesses, the link and VRAM
 * queues, the access counters), so that a replay's time and counts are
 * its program's alone.
 */
int gm_warp_load_untimed(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
			 void *buf, uint32_t len);

/*
 * Ends a work item whose result is the 32 int32 sums in w->out: stores
 * them as one line at va, adds them to the launch result, clears out[]
 * and j, and takes the next item. Returns 0 or the store's GM_STEP_STALL
 * / -error (nothing changed then).
 */
static inline int gm_warp_finish_sums(struct gm_gpu *g, struct gm_warp *w,
				      uint64_t va)
{
	int r = gm_warp_store(g, w, va, w->out, 128), c;

	if (r)
		return r;
	for (c = 0; c < 32; c++) {
		w->acc += w->out[c];
		w->out[c] = 0;
	}
	w->j = 0;
	w->i = gm_next_item(g);
	return GM_STEP_MORE;
}

/* A buffer argument is usable: 128-byte aligned, whole lines, in the VA. */
static inline int gm_kernel_buf_ok(uint64_t va, uint64_t bytes)
{
	return bytes && !(va & 127) && !(bytes & 127) && va + bytes > va &&
	       !((va + bytes - 1) >> EMGPU_VA_BITS);
}

#endif /* GPUMODEL_KERNEL_H */
