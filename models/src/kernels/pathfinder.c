/* SPDX-License-Identifier: MIT */
/*
 * pathfinder: one row of Rodinia's pathfinder dynamic program (the paper's
 * sequential class: the wall is streamed once, the two result rows are the
 * hot set). One launch per row; the launch is the barrier between rows.
 * args[0] wall VA (rows x cols u32), [1] rows, [2] cols (multiple of 32),
 * [3] row r (1 <= r < rows), [4] prev VA, [5] next VA (cols u32 each).
 * next[c] = wall[r][c] + min(prev[c-1], prev[c], prev[c+1]), neighbours
 * outside the row ignored. Line i of the row is work item i (in order); a step
 * reads the prev line, its two neighbouring words and the wall line, and
 * stores the next line (all loads, then the one store: safe to redo).
 * Result: the sum of next[]. State: i = line.
 */
#include "gpumodel/kernel.h"

/*
 * Warp instructions a line of a row issues on the card: pf_row of
 * experiments/card-results/h200-kernels.csv, 8.27 M a launch over 246,723 lines (1 GiB).
 */
#define PF_LINE_INSTS	34

static int pathfinder_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	if (!a[1] || !a[2] || a[2] % 32 || a[2] > (1ull << 32) ||
	    a[1] > (1ull << 44) / a[2] || a[3] < 1 || a[3] >= a[1])
		return -1;
	return gm_kernel_buf_ok(a[0], a[1] * a[2] * 4) &&
	       gm_kernel_buf_ok(a[4], a[2] * 4) &&
	       gm_kernel_buf_ok(a[5], a[2] * 4) ? 0 : -1;
}

static void pathfinder_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static inline uint32_t min2(uint32_t x, uint32_t y)
{
	return x < y ? x : y;
}

static int pathfinder_step(struct gm_gpu *g, const struct gm_launch *l,
			   struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t lines = a[2] / 32, prev = a[4] + w->i * 128, sum = 0;
	uint32_t p[32], wall[32], out[32], left = UINT32_MAX, right = UINT32_MAX;
	int r, k;

	if (w->i >= lines)
		return GM_STEP_DONE;
	r = gm_warp_load(g, w, prev, p, 128, EMGPU_ACCESS_READ);
	if (!r && w->i > 0)
		r = gm_warp_load(g, w, prev - 4, &left, 4, EMGPU_ACCESS_READ);
	if (!r && w->i + 1 < lines)
		r = gm_warp_load(g, w, prev + 128, &right, 4, EMGPU_ACCESS_READ);
	if (!r)
		r = gm_warp_load(g, w, a[0] + (a[3] * lines + w->i) * 128, wall,
				 128, EMGPU_ACCESS_READ);
	if (r)
		return r;
	for (k = 0; k < 32; k++) {
		uint32_t m = min2(p[k], min2(k ? p[k - 1] : left,
					     k < 31 ? p[k + 1] : right));

		out[k] = wall[k] + m;
		sum += out[k];
	}
	r = gm_warp_store(g, w, a[5] + w->i * 128, out, 128);
	if (r)
		return r;
	gm_warp_compute(g, w, PF_LINE_INSTS);
	w->acc += sum;
	w->i = gm_next_item(g);
	return GM_STEP_MORE;
}

/* a step not yet done starts with its load of the previous row */
static int pathfinder_accesses_first(const struct gm_launch *l,
				     const struct gm_warp *w)
{
	return w->i < l->d.args[2] / 32;
}

const struct gm_kernel gm_kernel_pathfinder = {
	.id = EMGPU_KERNEL_PATHFINDER,
	.name = "pathfinder",
	.check = pathfinder_check,
	.init = pathfinder_init,
	.step = pathfinder_step,
	.accesses_first = pathfinder_accesses_first,
};
