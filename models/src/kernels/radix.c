/* SPDX-License-Identifier: MIT */
/*
 * radix: one 4-bit pass of an LSD radix sort of u32 keys (Thrust's radix
 * sort; the paper's random class: the scatter writes 16 digit runs per
 * chunk at data-dependent places). args[0] src VA, [1] n keys (multiple of
 * 32), [2] dst VA, [3] hist VA (chunks x 16 u32, 64 bytes each, rounded up
 * to a line), [4] shift (digit = key >> shift & 15, shift <= 28), [5] mode,
 * [6] chunks C (1 .. 2^20): chunk c holds key lines [c L / C, (c + 1) L / C)
 * of the L = n / 32 lines and is work item c (gm_next_item(): in order).
 *  mode 0 (count): each chunk's digit counts to hist[c][0..15].
 *  mode 1 (scan, warp 0): hist[c][d] becomes the output index of chunk
 *    c's first key with digit d: the number of keys with a smaller digit,
 *    plus those with digit d in chunks before c.
 *  mode 2 (scatter): each chunk's keys, in order, to dst[hist[c][d]++]
 *    (stable). Per line the keys are grouped by digit; each group is one
 *    store (two where it crosses a line), so a line costs ~15 stores.
 * A pass is modes 0, 1, 2 (three launches, each a barrier); the guest
 * swaps src and dst between passes. Stores beyond n are dropped.
 * Result: modes 0 and 1: 0; mode 2: the sum of key x (1 + index).
 * State: i = chunk, j = line in the chunk, k = store units done in the
 * line (scatter) or scan position, pc = sub-phase, out[0..15] = counts or
 * output indexes, out[16..31] = scan totals, line[] = the keys.
 */
#include <string.h>

#include "gpumodel/kernel.h"

#define RX_D	16

/*
 * Warp instructions a key line issues on the card (experiments/card-results/
 * h200-kernels.csv, 1 GiB: 4,186,112 key lines a pass): rx_count 86.0 M a
 * launch, 20.5 a line; rx_scatter 248.6 M, 59.4 a line.
 */
#define RX_COUNT_INSTS		21
#define RX_SCATTER_INSTS	59

static int radix_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	if (!a[1] || a[1] % 32 || a[1] >= (1ull << 32) || a[4] > 28 ||
	    a[5] > 2 || !a[6] || a[6] > (1u << 20))
		return -1;
	return gm_kernel_buf_ok(a[0], a[1] * 4) && gm_kernel_buf_ok(a[2], a[1] * 4) &&
	       gm_kernel_buf_ok(a[3], (a[6] * 64 + 127) & ~127ull) ? 0 : -1;
}

static void radix_init(const struct gm_launch *l, struct gm_warp *w)
{
	w->i = w->id;
	if (l->d.args[5] == 1 && w->id)
		w->i = l->d.args[6];	/* the scan is warp 0's */
}

/* First key line of chunk c. */
static uint64_t chunk_start(const uint64_t *a, uint64_t c)
{
	return c * (a[1] / 32) / a[6];
}

static int radix_count(struct gm_gpu *g, const struct gm_launch *l,
		       struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t line = chunk_start(a, w->i) + w->j;
	uint32_t keys[32];
	int r, x;

	if (line >= chunk_start(a, w->i + 1)) {
		r = gm_warp_store(g, w, a[3] + w->i * 64, w->out, 64);
		if (r)
			return r;
		w->i = gm_next_item(g);
		w->j = 0;
		memset(w->out, 0, sizeof(w->out));
		return GM_STEP_MORE;
	}
	r = gm_warp_load(g, w, a[0] + line * 128, keys, 128, EMGPU_ACCESS_READ);
	if (r)
		return r;
	for (x = 0; x < 32; x++)
		w->out[keys[x] >> a[4] & 15]++;
	gm_warp_compute(g, w, RX_COUNT_INSTS);
	w->j++;
	return GM_STEP_MORE;
}

/* pc 0: totals per digit over all chunks; pc 1: rewrite as indexes. */
static int radix_scan(struct gm_gpu *g, const struct gm_launch *l,
		      struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint32_t h[RX_D], base;
	int r, d;

	if (w->k >= a[6]) {
		if (w->pc)
			return GM_STEP_DONE;
		for (base = 0, d = 0; d < RX_D; d++) {	/* exclusive prefix */
			w->out[d] = base;
			base += w->out[16 + d];
		}
		w->pc = 1;
		w->k = 0;
		return GM_STEP_MORE;
	}
	r = gm_warp_load(g, w, a[3] + w->k * 64, h, 64,
			 w->pc ? EMGPU_ACCESS_WRITE : EMGPU_ACCESS_READ);
	if (r)
		return r;
	if (!w->pc) {
		for (d = 0; d < RX_D; d++)
			w->out[16 + d] += h[d];
		w->k++;
		return GM_STEP_MORE;
	}
	r = gm_warp_store(g, w, a[3] + w->k * 64, w->out, 64);
	if (r)
		return r;
	for (d = 0; d < RX_D; d++)
		w->out[d] += h[d];
	w->k++;
	return GM_STEP_MORE;
}

static int radix_scatter(struct gm_gpu *g, const struct gm_launch *l,
			 struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t line = chunk_start(a, w->i) + w->j, pos, unit = 0, sum = 0;
	uint32_t run[32], cnt[RX_D] = { 0 };
	int r, d, x, m, split;

	if (w->pc == 0) {	/* the chunk's output indexes */
		if (w->i >= a[6])
			return GM_STEP_DONE;
		r = gm_warp_load(g, w, a[3] + w->i * 64, w->out, 64,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		w->pc = 1;
		w->j = 0;
		return GM_STEP_MORE;
	}
	if (line >= chunk_start(a, w->i + 1)) {
		w->i = gm_next_item(g);
		w->pc = 0;
		return GM_STEP_MORE;
	}
	if (w->pc == 1) {
		r = gm_warp_load(g, w, a[0] + line * 128, w->line, 128,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		w->pc = 2;
		w->k = 0;
		return GM_STEP_MORE;
	}
	/* pc 2: store the digit groups, from unit k on (stores are idempotent) */
	for (d = 0; d < RX_D; d++) {
		for (m = 0, x = 0; x < 32; x++)
			if ((w->line[x] >> a[4] & 15) == (uint32_t)d)
				run[m++] = w->line[x];
		cnt[d] = (uint32_t)m;
		if (!m)
			continue;
		pos = w->out[d];
		/* split at the 128-byte boundary */
		split = (int)(32 - pos % 32);
		if (split > m)
			split = m;
		if (unit >= w->k && pos < a[1]) {
			r = gm_warp_store(g, w, a[2] + pos * 4, run, 4 * (uint32_t)split);
			if (r)
				return r;
			w->k = unit + 1;
		}
		unit++;
		if (split < m) {
			if (unit >= w->k && pos + (uint64_t)split < a[1]) {
				r = gm_warp_store(g, w, a[2] + (pos + split) * 4,
						  run + split, 4 * (uint32_t)(m - split));
				if (r)
					return r;
				w->k = unit + 1;
			}
			unit++;
		}
		for (x = 0; x < m; x++)
			sum += (uint64_t)run[x] * (pos + x + 1);
	}
	for (d = 0; d < RX_D; d++)
		w->out[d] += cnt[d];
	gm_warp_compute(g, w, RX_SCATTER_INSTS);
	w->acc += sum;
	w->j++;
	w->pc = 1;
	return GM_STEP_MORE;
}

static int radix_step(struct gm_gpu *g, const struct gm_launch *l,
		      struct gm_warp *w)
{
	switch (l->d.args[5]) {
	case 0:
		if (w->i >= l->d.args[6])
			return GM_STEP_DONE;
		return radix_count(g, l, w);
	case 1:
		if (w->i >= l->d.args[6])
			return GM_STEP_DONE;
		return radix_scan(g, l, w);
	default:
		return radix_scatter(g, l, w);
	}
}

const struct gm_kernel gm_kernel_radix = {
	.id = EMGPU_KERNEL_RADIX,
	.name = "radix",
	.check = radix_check,
	.init = radix_init,
	.step = radix_step,
};
