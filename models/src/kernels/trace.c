/* SPDX-License-Identifier: MIT */
/*
 * trace: replays a captured program's per-warp access streams (issue 30;
 * docs/trace-replay.md). The guest's replayer (userspace/replay.c) rebases
 * a launch of a capture trace (docs/trace-format.md) onto its own managed
 * allocations and hands the device two arrays in GPU memory:
 *   args[0] table VA: warp_count entries of 16 bytes, {u64 first record,
 *           u64 record count}, one per captured warp, in the trace's warp
 *           order (ascending warp id: block order, as a GPU dispatches)
 *   args[1] warp_count (the launch's work items, at most 2^32)
 *   args[2] records VA: u32 records, (line index << 2) | flags, flags
 *           TRACE_REC_READ (bit 0) and TRACE_REC_WRITE (bit 1), both for
 *           an atomic; a line index counts 128-byte lines from args[4]
 *   args[3] record count (every table entry lies inside it)
 *   args[4] base VA of the replay's allocations (128-byte aligned)
 *   args[5] span bytes: every line index is below span / 128
 *   args[6] compute per access, in 1/256 warp instructions, charged after
 *           each access (gm_warp_compute): how the replayer spreads the
 *           launch's time on the card over its accesses
 * Item k is captured warp k: its records in order, each one access of its
 * line: a read loads the line, a write stores the line's pattern word
 * trace_word(seed, va) at every word, an atomic loads it with write
 * permission and stores the pattern. Every line of a replay holds its
 * pattern or zero, and the replayer fills the lines a launch reads before
 * any write, so every read finds the pattern whatever the warps' order.
 * Result: the sum over read records of their 32 words (u32 each), which
 * the replayer computes from the same records on the CPU.
 * State: i = item, j = next record, n = its warp's end, pc = 0 before the
 * item's table entry is read, k = 1 + index of the record line cached in
 * line[] (0: none), acc = result, out[] = the accessed line.
 */
#include "gpumodel/kernel.h"

#define TRACE_TABLE_ENTRY	16
#define TRACE_RECORD_BYTES	4
#define TRACE_RECS_PER_LINE	(128 / TRACE_RECORD_BYTES)

static int trace_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	return a[1] && a[1] <= (1ull << 32) && a[3] && a[3] <= (1ull << 34) &&
	       gm_kernel_buf_ok(a[0], (a[1] * TRACE_TABLE_ENTRY + 127) & ~127ull) &&
	       gm_kernel_buf_ok(a[2], (a[3] * TRACE_RECORD_BYTES + 127) & ~127ull) &&
	       gm_kernel_buf_ok(a[4], a[5]) && a[5] / 128 <= (1ull << 30) &&
	       a[6] <= (1ull << 32) ? 0 : -1;
}

static void trace_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

/* The next item; pc keeps only the compute remainder (bits 8..15). */
static void trace_next_item(struct gm_gpu *g, struct gm_warp *w)
{
	w->pc &= ~1u;
	w->i = gm_next_item(g);
}

static int trace_step(struct gm_gpu *g, const struct gm_launch *l,
		      struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t entry[2], rline, va, sum = 0, units;
	uint32_t rec, flags;
	int r, k;

	if (w->i >= a[1])
		return GM_STEP_DONE;
	if (!(w->pc & 1)) {
		/* the replay's bookkeeping, not the program's: untimed */
		r = gm_warp_load_untimed(g, w, a[0] + w->i * TRACE_TABLE_ENTRY, entry,
					 sizeof(entry));
		if (r)
			return r;
		/* a table the guest got wrong fails the launch, never reads past it */
		if (entry[0] > a[3] || entry[1] > a[3] - entry[0])
			return -EMGPU_ERR_BAD_DESCRIPTOR;
		if (!entry[1]) {
			trace_next_item(g, w);
			return GM_STEP_MORE;
		}
		w->j = entry[0];
		w->n = entry[0] + entry[1];
		w->pc |= 1;
	}
	rline = w->j / TRACE_RECS_PER_LINE;
	if (w->k != rline + 1) {
		r = gm_warp_load_untimed(g, w, a[2] + rline * 128, w->line, 128);
		if (r)
			return r;
		w->k = rline + 1;	/* a cache: safe to keep if the access stalls */
	}
	rec = w->line[w->j % TRACE_RECS_PER_LINE];
	flags = rec & (EMGPU_TRACE_REC_READ | EMGPU_TRACE_REC_WRITE);
	if (!flags || (uint64_t)(rec >> EMGPU_TRACE_REC_SHIFT) >= a[5] / 128)
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	va = a[4] + (uint64_t)(rec >> EMGPU_TRACE_REC_SHIFT) * 128;
	if (flags & EMGPU_TRACE_REC_READ) {
		/* an atomic loads with write permission: its store cannot fault */
		r = gm_warp_load(g, w, va, w->out, 128,
				 flags & EMGPU_TRACE_REC_WRITE ? EMGPU_ACCESS_WRITE :
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		for (k = 0; k < 32; k++)
			sum += w->out[k];
	}
	if (flags & EMGPU_TRACE_REC_WRITE) {
		for (k = 0; k < 32; k++)
			w->out[k] = emgpu_trace_word(l->d.seed, va + 4 * k);
		r = gm_warp_store(g, w, va, w->out, 128);
		if (r)
			return r;	/* redone from the load: nothing was stored */
	}
	w->acc += sum;
	/* the card's time between accesses: a[6] / 256 instructions, the
	 * fraction carried in pc's bits 8..15 */
	units = a[6] + (w->pc >> 8);
	w->pc = (w->pc & 0xff) | (uint32_t)(units & 0xff) << 8;
	if (units >> 8)
		gm_warp_compute(g, w, (uint32_t)(units >> 8));
	if (++w->j == w->n)
		trace_next_item(g, w);
	return GM_STEP_MORE;
}

/* every step not yet done begins with an access (table, records or line) */
static int trace_accesses_first(const struct gm_launch *l,
				const struct gm_warp *w)
{
	return w->i < l->d.args[1];
}

const struct gm_kernel gm_kernel_trace = {
	.id = EMGPU_KERNEL_TRACE,
	.name = "trace",
	.check = trace_check,
	.init = trace_init,
	.step = trace_step,
	.accesses_first = trace_accesses_first,
};
