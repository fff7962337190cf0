/* SPDX-License-Identifier: MIT */
/*
 * bitonic: one pass of a bitonic sorting network over u32 keys (the
 * paper's strided class). args[0] buf VA, [1] bytes (L = bytes / 128
 * lines), [2] segment lines S (a power of two dividing L), [3] k, [4] j.
 *
 * The buffer holds G = L / S interleaved segments: element e of segment g
 * is word e % 32 of line g + G (e / 32), so a stride of one segment line
 * is G lines of memory and the network's strides span the whole buffer
 * (S = L, G = 1: one sort of everything). Element e sorts ascending in a
 * block of size k when (e & k) == 0.
 *  j >= 32 (a power of two below k): compare-exchange of segment lines a
 *    and a + j / 32 (a & (j / 32) == 0): load both with write permission,
 *    store both (the stores cannot fault, so the step is safe to redo).
 *    Pair p (g = p % G fastest) is work item p (in order).
 *  j == 0: every stage of block k with stride below 32, inside each line
 *    (k == 32: blocks 2 .. 32, which sorts each line in alternating
 *    directions). Line t is work item t (gm_next_item(): in order).
 * Pass order: (32, 0), then for k = 64 .. 32 S: j = k / 2 .. 32, then
 * (k, 0); afterwards every segment is sorted ascending. Each launch is one
 * pass: its completion is the barrier. Result: the sum of the keys.
 * State: i = pair or line.
 */
#include "gpumodel/kernel.h"

/*
 * Warp instructions on the card (experiments/card-results/h200-kernels.csv, rev 2, at
 * 1 GiB: 2^23 lines): a pass j >= 32, 168.6 M over 2^22 line pairs, 40 a
 * pair; an in-line pass, 2559 M with 15 stages (k = 32) and 898 M with 5
 * (k >= 64): 8 + 20 a stage per line (305 and 107 measured).
 */
#define BT_PAIR_INSTS		40
#define BT_LINE_INSTS		8
#define BT_STAGE_INSTS		20

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static int bitonic_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;
	uint64_t lines = a[1] / 128;

	if (!gm_kernel_buf_ok(a[0], a[1]) || !is_pow2(a[2]) || lines % a[2] ||
	    a[2] > (1ull << 36) || !is_pow2(a[3]) || a[3] < 32 ||
	    a[3] > 32 * a[2])
		return -1;
	return !a[4] || (is_pow2(a[4]) && a[4] >= 32 && a[4] < a[3]) ? 0 : -1;
}

static void bitonic_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static void cmpx(uint32_t *x, uint32_t *y, int asc)
{
	uint32_t t;

	if ((*x > *y) == asc) {
		t = *x;
		*x = *y;
		*y = t;
	}
}

/*
 * The stages of block kk with strides below 32 on the line of element e0;
 * returns how many.
 */
static uint32_t in_line(uint32_t *v, uint64_t e0, uint64_t kk)
{
	uint64_t jj, x;
	uint32_t stages = 0;

	for (jj = kk / 2 < 16 ? kk / 2 : 16; jj; jj /= 2, stages++)
		for (x = 0; x < 32; x++)
			if (!(x & jj))
				cmpx(&v[x], &v[x | jj], !((e0 + x) & kk));
	return stages;
}

static int bitonic_step(struct gm_gpu *g, const struct gm_launch *l,
			struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t lines = a[1] / 128, s = a[2], gs = lines / s, k = a[3];
	uint64_t sum = 0, jl, q, sa, va, vb, kk;
	uint32_t x[32], y[32], insts;
	int r, n;

	if (!a[4]) {
		if (w->i >= lines)
			return GM_STEP_DONE;
		va = a[0] + w->i * 128;
		r = gm_warp_load(g, w, va, x, 128, EMGPU_ACCESS_WRITE);
		if (r)
			return r;
		sa = w->i / gs;
		insts = BT_LINE_INSTS;
		for (kk = k == 32 ? 2 : k; kk <= k; kk *= 2)
			insts += BT_STAGE_INSTS * in_line(x, sa * 32, kk);
		r = gm_warp_store(g, w, va, x, 128);
		if (r)
			return r;
		for (n = 0; n < 32; n++)
			sum += x[n];
	} else {
		if (w->i >= lines / 2)
			return GM_STEP_DONE;
		jl = a[4] / 32;
		q = w->i / gs;
		sa = (q / jl) * 2 * jl + q % jl;
		va = a[0] + (w->i % gs + gs * sa) * 128;
		vb = va + gs * jl * 128;
		r = gm_warp_load(g, w, va, x, 128, EMGPU_ACCESS_WRITE);
		if (!r)
			r = gm_warp_load(g, w, vb, y, 128, EMGPU_ACCESS_WRITE);
		if (r)
			return r;
		for (n = 0; n < 32; n++) {
			cmpx(&x[n], &y[n], !((sa * 32) & k));
			sum += (uint64_t)x[n] + y[n];
		}
		r = gm_warp_store(g, w, va, x, 128);
		if (!r)
			r = gm_warp_store(g, w, vb, y, 128);
		if (r)
			return r;
		insts = BT_PAIR_INSTS;
	}
	gm_warp_compute(g, w, insts);
	w->acc += sum;
	w->i = gm_next_item(g);
	return GM_STEP_MORE;
}

const struct gm_kernel gm_kernel_bitonic = {
	.id = EMGPU_KERNEL_BITONIC,
	.name = "bitonic",
	.check = bitonic_check,
	.init = bitonic_init,
	.step = bitonic_step,
};
