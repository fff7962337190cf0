/* SPDX-License-Identifier: MIT */
/*
 * gemm: int8 matrix product C = A B with int32 results, Polybench's GEMM
 * in ARIADNE's workload set (its dense class). args[0] A VA (m x k int8,
 * row-major), [1] m, [2] k (multiple of 128), [3] B VA (k x n int8,
 * row-major), [4] n (multiple of 32), [5] C VA (m x n int32), [6] p0, [7]
 * tile: with tile 0, C[i][j] = sum over p of A[i][p] B[p][j] (int32,
 * wrapping); otherwise C[i][j] += the sum over p in [p0, p0 + tile) (p0
 * and tile multiples of 128): a tiled GEMM launches once per tile of k,
 * so that one tile of B is the working set, as a blocked GEMM keeps it.
 * Work item q is the 32-column strip s = q % (n / 32) of row i = q / (n /
 * 32); its warp walks its p, loading an A line every 128 p and the 32
 * bytes of B row p under its strip, then stores the C line. Every item
 * reads the whole tile of B, and items in flight at once span many SMs:
 * each block of B is shared by many uTLBs (ARIADNE's dense sharing
 * degree). Result: the sum of the C lines stored (as u32).
 * State: i = item, pc = C line loaded (tiles), j = p - p0, line[] = the
 * current A line, out[] = sums.
 */
#include "gpumodel/kernel.h"

static int gemm_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	if (!a[1] || !a[2] || a[2] % 128 || !a[4] || a[4] % 32 ||
	    a[2] > (1ull << 32) || a[4] > (1ull << 32) || a[6] % 128 ||
	    a[7] % 128 || a[6] > a[2] || a[7] > a[2] - a[6] || (a[6] && !a[7]) ||
	    a[1] > (1ull << 40) / a[2] || a[1] > (1ull << 40) / a[4] ||
	    a[2] > (1ull << 44) / a[4])
		return -1;
	return gm_kernel_buf_ok(a[0], a[1] * a[2]) &&
	       gm_kernel_buf_ok(a[3], a[2] * a[4]) &&
	       gm_kernel_buf_ok(a[5], a[1] * a[4] * 4) ? 0 : -1;
}

static void gemm_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static int gemm_step(struct gm_gpu *g, const struct gm_launch *l,
		     struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t strips = a[4] / 32, row = w->i / strips, strip = w->i % strips;
	uint64_t span = a[7] ? a[7] : a[2], p = a[6] + w->j;
	uint64_t c_va = a[5] + (row * a[4] + strip * 32) * 4;
	const int8_t *arow = (const int8_t *)w->line;
	int8_t b[32];
	int r, c;

	if (w->i >= a[1] * strips)
		return GM_STEP_DONE;
	if (a[7] && !w->pc) {		/* a tile adds to C */
		r = gm_warp_load(g, w, c_va, w->out, 128, EMGPU_ACCESS_READ);
		if (r)
			return r;
		w->pc = 1;
		return GM_STEP_MORE;
	}
	if (w->j < span) {
		if (p % 128 == 0) {
			r = gm_warp_load(g, w, a[0] + row * a[2] + p, w->line,
					 128, EMGPU_ACCESS_READ);
			if (r)
				return r;
		}
		r = gm_warp_load(g, w, a[3] + p * a[4] + strip * 32, b, 32,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		for (c = 0; c < 32; c++)
			w->out[c] += (uint32_t)((int32_t)arow[p % 128] * b[c]);
		w->j++;
		return GM_STEP_MORE;
	}
	r = gm_warp_finish_sums(g, w, c_va);
	if (r == GM_STEP_MORE)
		w->pc = 0;
	return r;
}

const struct gm_kernel gm_kernel_gemm = {
	.id = EMGPU_KERNEL_GEMM,
	.name = "gemm",
	.check = gemm_check,
	.init = gemm_init,
	.step = gemm_step,
};
