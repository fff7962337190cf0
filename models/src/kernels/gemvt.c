/* SPDX-License-Identifier: MIT */
/*
 * gemvt: transposed int8 matrix-vector product, y = A^T t, the second
 * phase of Polybench's ATAX (tmp = A x by GEMV, then y = A^T tmp) in
 * ARIADNE's workload set. args[0] A VA (rows x cols int8, row-major),
 * [1] rows (multiple of 128), [2] cols (multiple of 32), [3] t VA (rows
 * int8), [4] y VA (cols int32).
 * y[c] = sum over r of A[r][c] t[r] (int32, wrapping).
 * One thread per column, as Polybench's kernel: work item q is columns
 * [32 q, 32 q + 32), and its warp walks every row, reading the 32 bytes of
 * the row under its columns (a t line every 128 rows), then stores the 32
 * sums (one y line). Neighbouring items walk the same rows at the same
 * time, so every block of A is shared by many uTLBs (dense), unlike the
 * GEMV phase with 32 rows per item.
 * Result: the sum of y (as u32).
 * State: i = item, j = row, line[] = the current t line, out[] = sums.
 */
#include "gpumodel/kernel.h"

static int gemvt_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	if (!a[1] || a[1] % 128 || !a[2] || a[2] % 32 || a[2] > (1ull << 32) ||
	    a[1] > (1ull << 44) / a[2])
		return -1;
	return gm_kernel_buf_ok(a[0], a[1] * a[2]) && gm_kernel_buf_ok(a[3], a[1]) &&
	       gm_kernel_buf_ok(a[4], (a[2] * 4 + 127) & ~127ull) ? 0 : -1;
}

static void gemvt_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static int gemvt_step(struct gm_gpu *g, const struct gm_launch *l,
		      struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t items = a[2] / 32, row = w->j;
	int8_t arow[32];
	const int8_t *t = (const int8_t *)w->line;
	int r, c;

	if (w->i >= items)
		return GM_STEP_DONE;
	if (row < a[1]) {
		if (row % 128 == 0) {
			r = gm_warp_load(g, w, a[3] + row, w->line, 128,
					 EMGPU_ACCESS_READ);
			if (r)
				return r;
		}
		r = gm_warp_load(g, w, a[0] + row * a[2] + w->i * 32, arow, 32,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		for (c = 0; c < 32; c++)
			w->out[c] += (uint32_t)((int32_t)arow[c] * t[row % 128]);
		w->j++;
		return GM_STEP_MORE;
	}
	return gm_warp_finish_sums(g, w, a[4] + w->i * 128);
}

const struct gm_kernel gm_kernel_gemvt = {
	.id = EMGPU_KERNEL_GEMVT,
	.name = "gemvt",
	.check = gemvt_check,
	.init = gemvt_init,
	.step = gemvt_step,
};
