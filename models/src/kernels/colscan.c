/* SPDX-License-Identifier: MIT */
/*
 * colscan: a filter-aggregate column scan over a columnar fact table, the
 * proxy for the SSB queries on Crystal (the hot set is the columns a query
 * reads; it changes from query to query).
 * args[0] table VA (columns x rows u32, column c at table + 4 c rows),
 * [1] rows (multiple of 512), [2] columns (1..16), [3] out VA (rows / 32
 * u64), [4] query: filter columns f1 [7:0], f2 [15:8], f3 [23:16] and
 * aggregate columns a [31:24], b [39:32] (0xff: no filter; b 0xff: 1),
 * [5], [6], [7]: the filters' inclusive ranges, lo [31:0], hi [63:32].
 * For each line of 32 rows (line i is work item i, gm_next_item()) the step reads f1,
 * then f2 and f3 only while some row still passes (Crystal's predicated
 * loads), then a and b, and stores sum a * b (u64) over passing rows at
 * out[i]. One launch is one query. Result: the sum over all rows.
 * State: i = row line.
 */
#include "gpumodel/kernel.h"

/*
 * Warp instructions a line of 32 rows issues on the card: cs_scan of
 * experiments/card-results/h200-kernels.csv, 108-127 M a query over 1,395,360 row
 * lines (1 GiB), 84 a line on average over the four queries.
 */
#define CS_LINE_INSTS	84

#define CS_NONE	0xffu

static int colscan_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;
	unsigned int f;

	if (!a[1] || a[1] % 512 || a[1] > (1ull << 36) || !a[2] || a[2] > 16 ||
	    a[4] >> 40)
		return -1;
	for (f = 0; f < 5; f++) {
		unsigned int c = (unsigned int)(a[4] >> (8 * f)) & 0xff;

		if (c != CS_NONE && c >= a[2])
			return -1;
	}
	if (((a[4] >> 24) & 0xff) == CS_NONE)
		return -1;		/* a is required */
	return gm_kernel_buf_ok(a[0], a[2] * a[1] * 4) &&
	       gm_kernel_buf_ok(a[3], a[1] / 4) ? 0 : -1;
}

static void colscan_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static int colscan_step(struct gm_gpu *g, const struct gm_launch *l,
			struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t lines = a[1] / 32, sum = 0;
	uint32_t v[32], vb[32], mask = 0xffffffffu, lo, hi;
	unsigned int f, c, ca, cb;
	int r, x;

	if (w->i >= lines)
		return GM_STEP_DONE;
	for (f = 0; f < 3 && mask; f++) {
		c = (unsigned int)(a[4] >> (8 * f)) & 0xff;
		if (c == CS_NONE)
			continue;
		r = gm_warp_load(g, w, a[0] + (c * a[1] / 32 + w->i) * 128, v, 128,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		lo = (uint32_t)a[5 + f];
		hi = (uint32_t)(a[5 + f] >> 32);
		for (x = 0; x < 32; x++)
			if (v[x] < lo || v[x] > hi)
				mask &= ~(1u << x);
	}
	if (mask) {
		ca = (unsigned int)(a[4] >> 24) & 0xff;
		cb = (unsigned int)(a[4] >> 32) & 0xff;
		r = gm_warp_load(g, w, a[0] + (ca * a[1] / 32 + w->i) * 128, v, 128,
				 EMGPU_ACCESS_READ);
		if (!r && cb != CS_NONE)
			r = gm_warp_load(g, w, a[0] + (cb * a[1] / 32 + w->i) * 128,
					 vb, 128, EMGPU_ACCESS_READ);
		if (r)
			return r;
		for (x = 0; x < 32; x++)
			if (mask & (1u << x))
				sum += (uint64_t)v[x] * (cb != CS_NONE ? vb[x] : 1);
	}
	r = gm_warp_store(g, w, a[3] + w->i * 8, &sum, 8);
	if (r)
		return r;
	gm_warp_compute(g, w, CS_LINE_INSTS);
	w->acc += sum;
	w->i = gm_next_item(g);
	return GM_STEP_MORE;
}

const struct gm_kernel gm_kernel_colscan = {
	.id = EMGPU_KERNEL_COLSCAN,
	.name = "colscan",
	.check = colscan_check,
	.init = colscan_init,
	.step = colscan_step,
};
