/* SPDX-License-Identifier: MIT */
/*
 * conv: a CNN-like convolution layer, 3x3 over up to 3 input channels into
 * one output map with ReLU (the paper's CNN; sequential, each input line
 * read by three output rows per channel).
 * args[0] in VA (channels x height x width u32, planar), [1] height,
 * [2] width (multiple of 32), [3] channels (1..3), [4] weights VA (one
 * line: int32 w[c][dy][dx] at word 9 c + 3 dy + dx), [5] out VA (height x
 * width u32). out[y][x] = max(0, sum w[c][dy][dx] in[c][y+dy-1][x+dx-1])
 * with zero padding, in int32.
 * Output line o (row o / (width / 32)) is work item o (in order). Per output
 * line, 3 x channels steps each read one input line and its two
 * neighbouring words and accumulate in the warp; a last step stores it.
 * Result: the sum of out[].
 * State: pc 0 loads the weights into line[0..26]; i = output line, j =
 * input row step (3 c + dy), out[] = int32 accumulators.
 */
#include <string.h>

#include "gpumodel/kernel.h"

/*
 * Warp instructions an output line issues on the card (3 channels): cv_layer
 * of experiments/card-results/h200-kernels.csv, 418 M over 2^21 output lines (1 GiB).
 */
#define CV_LINE_INSTS	199

static int conv_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	if (!a[1] || !a[2] || a[2] % 32 || a[2] > (1ull << 32) ||
	    a[1] > (1ull << 40) / a[2] || a[3] < 1 || a[3] > 3)
		return -1;
	return gm_kernel_buf_ok(a[0], a[3] * a[1] * a[2] * 4) &&
	       gm_kernel_buf_ok(a[4], 128) &&
	       gm_kernel_buf_ok(a[5], a[1] * a[2] * 4) ? 0 : -1;
}

static void conv_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static int conv_step(struct gm_gpu *g, const struct gm_launch *l,
		     struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t h = a[1], lpr = a[2] / 32, total = h * lpr, y, xl, va, sum = 0;
	uint32_t v[34], out[32];
	uint32_t wt[3];
	int r, k, c, dy;

	if (w->i >= total)
		return GM_STEP_DONE;
	if (w->pc == 0) {
		r = gm_warp_load(g, w, a[4], w->line, 128, EMGPU_ACCESS_READ);
		if (r)
			return r;
		memset(w->out, 0, sizeof(w->out));
		w->pc = 1;
		w->j = 0;
		return GM_STEP_MORE;
	}
	y = w->i / lpr;
	xl = w->i % lpr;
	if (w->j < 3 * a[3]) {
		c = (int)(w->j / 3);
		dy = (int)(w->j % 3) - 1;
		if ((dy < 0 && y == 0) || (dy > 0 && y + 1 >= h)) {
			w->j++;		/* zero padding: nothing to read */
			return GM_STEP_MORE;
		}
		va = a[0] + (((uint64_t)c * h + y + (uint64_t)(int64_t)dy) * lpr + xl) * 128;
		v[0] = v[33] = 0;
		r = gm_warp_load(g, w, va, v + 1, 128, EMGPU_ACCESS_READ);
		if (!r && xl > 0)
			r = gm_warp_load(g, w, va - 4, v, 4, EMGPU_ACCESS_READ);
		if (!r && xl + 1 < lpr)
			r = gm_warp_load(g, w, va + 128, v + 33, 4, EMGPU_ACCESS_READ);
		if (r)
			return r;
		memcpy(wt, w->line + 9 * c + 3 * (dy + 1), sizeof(wt));
		for (k = 0; k < 32; k++)	/* int32 arithmetic, wrapping */
			w->out[k] += wt[0] * v[k] + wt[1] * v[k + 1] +
				     wt[2] * v[k + 2];
		w->j++;
		return GM_STEP_MORE;
	}
	for (k = 0; k < 32; k++) {
		out[k] = (int32_t)w->out[k] > 0 ? w->out[k] : 0;
		sum += out[k];
	}
	r = gm_warp_store(g, w, a[5] + w->i * 128, out, 128);
	if (r)
		return r;
	gm_warp_compute(g, w, CV_LINE_INSTS);
	w->acc += sum;
	memset(w->out, 0, sizeof(w->out));
	w->j = 0;
	w->i = gm_next_item(g);
	return GM_STEP_MORE;
}

const struct gm_kernel gm_kernel_conv = {
	.id = EMGPU_KERNEL_CONV,
	.name = "conv",
	.check = conv_check,
	.init = conv_init,
	.step = conv_step,
};
