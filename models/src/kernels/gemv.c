/* SPDX-License-Identifier: MIT */
/*
 * gemv: int8 matrix-vector product, the proxy for LLM token generation
 * (decode re-reads every weight per token; the paper's reuse class).
 * args[0] W VA (rows x cols int8, row-major), [1] rows (multiple of 4),
 * [2] cols (multiple of 128), [3] x VA (cols int8), [4] y VA (rows bytes,
 * rounded up to a line), [5] shift (0..31), [6] rows per work item R (4,
 * 8, 16 or 32; 0 = 4; R divides rows).
 * y[r] = (u8)((u32)(sum over c of W[r][c] x[c], int32) >> shift).
 * Rows go to warps in groups of R (group q is work item q, gm_next_item());
 * a step loads one x line and the R rows' weight lines under it, and the
 * last stores the group's R output bytes. R = 4 is a tiled GEMV whose
 * neighbouring rows run on different SMs (a weight block is shared by many
 * uTLBs); R = 32 is Polybench's thread per row, a warp owning 32 whole rows
 * (with long rows a weight block is touched by one uTLB: ARIADNE's sparse
 * sharing degree). One launch is one token: the guest feeds y back as the
 * next x (rows == cols) and launches again.
 * Result: the sum of the dot products (as u32).
 * State: i = row group, j = column line, out[0..R) = int32 sums.
 */
#include <string.h>

#include "gpumodel/kernel.h"

/*
 * Warp instructions per 128-byte weight line, in hundredths, on the card:
 * gv_token of experiments/card-results/h200-kernels.csv, 35.98 M a token over
 * 8,323,200 weight lines (1 GiB).
 */
#define GV_LINE_INSTS_X100	432

/* rows per work item */
static uint64_t gemv_band(const uint64_t *a)
{
	return a[6] ? a[6] : 4;
}

static int gemv_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;
	uint64_t band = gemv_band(a);

	if ((band != 4 && band != 8 && band != 16 && band != 32) ||
	    !a[1] || a[1] % band || !a[2] || a[2] % 128 || a[2] > (1ull << 32) ||
	    a[1] > (1ull << 44) / a[2] || a[5] > 31)
		return -1;
	return gm_kernel_buf_ok(a[0], a[1] * a[2]) && gm_kernel_buf_ok(a[3], a[2]) &&
	       gm_kernel_buf_ok(a[4], (a[1] + 127) & ~127ull) ? 0 : -1;
}

static void gemv_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static int gemv_step(struct gm_gpu *g, const struct gm_launch *l,
		     struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t band = gemv_band(a), groups = a[1] / band, clines = a[2] / 128;
	uint64_t row;
	int8_t x[128], wt[32][128];
	uint8_t y[32] = { 0 };
	uint32_t s;
	int r, q, c;

	if (w->i >= groups)
		return GM_STEP_DONE;
	if (w->j < clines) {
		r = gm_warp_load(g, w, a[3] + w->j * 128, x, 128, EMGPU_ACCESS_READ);
		for (q = 0; q < (int)band && !r; q++) {
			row = w->i * band + (uint64_t)q;
			r = gm_warp_load(g, w, a[0] + row * a[2] + w->j * 128,
					 wt[q], 128, EMGPU_ACCESS_READ);
		}
		if (r)
			return r;
		for (q = 0; q < (int)band; q++) {
			s = 0;
			for (c = 0; c < 128; c++)
				s += (uint32_t)((int32_t)wt[q][c] * x[c]);
			w->out[q] += s;
		}
		gm_warp_compute(g, w, (uint32_t)((band * GV_LINE_INSTS_X100 + 50) / 100));
		w->j++;
		return GM_STEP_MORE;
	}
	for (q = 0; q < (int)band; q++)
		y[q] = (uint8_t)(w->out[q] >> a[5]);
	r = gm_warp_store(g, w, a[4] + w->i * band, y, (uint32_t)band);
	if (r)
		return r;
	for (q = 0; q < (int)band; q++)
		w->acc += w->out[q];
	memset(w->out, 0, band * sizeof(w->out[0]));
	w->j = 0;
	w->i = gm_next_item(g);
	return GM_STEP_MORE;
}

const struct gm_kernel gm_kernel_gemv = {
	.id = EMGPU_KERNEL_GEMV,
	.name = "gemv",
	.check = gemv_check,
	.init = gemv_init,
	.step = gemv_step,
};
