/* SPDX-License-Identifier: MIT */
/*
 * nw: Needleman-Wunsch global alignment scores, Rodinia's NW in ARIADNE's
 * workload set (its mixed sharing-degree class): a wavefront over 32 x 32
 * tiles, one launch per anti-diagonal of tiles.
 * args[0] H VA (the score matrix: n + 1 rows of n + 32 int32; cell (i, j),
 * 0 <= i, j <= n, at word i (n + 32) + 31 + j, so each tile row is one
 * aligned line), [1] n (multiple of 32), [2] ref VA (n x n int32; the
 * similarity of cell (i, j) at ref[(i - 1) n + j - 1]), [3] gap penalty
 * (int32), [4] d, the tile diagonal (0 <= d < 2 n / 32 - 1). The guest
 * fills row 0 and column 0 (H[i][0] = -i gap, H[0][j] = -j gap) and
 * launches d = 0, 1, ... in order.
 * H[i][j] = max(H[i-1][j-1] + ref(i, j), H[i-1][j] - gap, H[i][j-1] - gap).
 * Work item q is tile (ti, tj) = (lo + q, d - lo - q), lo = max(0, d - T +
 * 1), T = n / 32: its warp loads the row above the tile and its corner,
 * the column left of it (one word per row), then per row the ref line,
 * and stores the row. Early and late diagonals have few tiles (few
 * uTLBs per block), middle ones many.
 * Result: the sum of the cells computed, each as u32.
 * State: i = item, pc = phase (0 top, 1 left column, 2 rows), k = row or
 * column index, n = the diagonal neighbour of the next row's first cell,
 * line[] = the previous row, out[] = the left column.
 */
#include "gpumodel/kernel.h"

static int nw_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;
	uint64_t n = a[1];

	if (!n || n % 32 || n > (1ull << 20) || a[4] >= 2 * (n / 32) - 1)
		return -1;
	return gm_kernel_buf_ok(a[0], (n + 1) * (n + 32) * 4) &&
	       gm_kernel_buf_ok(a[2], n * n * 4) ? 0 : -1;
}

static void nw_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

/* Tiles on diagonal d: the first tile row and the count. */
static void nw_diag(const uint64_t *a, uint64_t *lo, uint64_t *count)
{
	uint64_t tiles = a[1] / 32, d = a[4];

	*lo = d >= tiles ? d - tiles + 1 : 0;
	*count = (d < tiles ? d : tiles - 1) - *lo + 1;
}

static int32_t max3(int32_t x, int32_t y, int32_t z)
{
	int32_t m = x > y ? x : y;

	return m > z ? m : z;
}

static int nw_step(struct gm_gpu *g, const struct gm_launch *l,
		   struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t n = a[1], stride = (n + 32) * 4, lo, count, ti, tj, row, word;
	int32_t gap = (int32_t)a[3], ref[32], cell[32], diag, left;
	uint32_t corner;
	int r, c;

	nw_diag(a, &lo, &count);
	if (w->i >= count)
		return GM_STEP_DONE;
	ti = lo + w->i;
	tj = a[4] - ti;
	word = 31 + 32 * tj;		/* column 32 tj, left of the tile */
	switch (w->pc) {
	case 0:				/* the row above and its corner */
		row = 32 * ti;
		r = gm_warp_load(g, w, a[0] + row * stride + (word + 1) * 4,
				 w->line, 128, EMGPU_ACCESS_READ);
		if (!r)
			r = gm_warp_load(g, w, a[0] + row * stride + word * 4,
					 &corner, 4, EMGPU_ACCESS_READ);
		if (r)
			return r;
		w->n = corner;
		w->pc = 1;
		w->k = 0;
		return GM_STEP_MORE;
	case 1:				/* the column to the left */
		row = 32 * ti + 1 + w->k;
		r = gm_warp_load(g, w, a[0] + row * stride + word * 4,
				 &w->out[w->k], 4, EMGPU_ACCESS_READ);
		if (r)
			return r;
		if (++w->k == 32) {
			w->pc = 2;
			w->k = 0;
		}
		return GM_STEP_MORE;
	default:			/* row k of the tile */
		row = 32 * ti + 1 + w->k;
		r = gm_warp_load(g, w, a[2] + ((row - 1) * n + 32 * tj) * 4, ref,
				 128, EMGPU_ACCESS_READ);
		if (r)
			return r;
		diag = (int32_t)w->n;
		left = (int32_t)w->out[w->k];
		for (c = 0; c < 32; c++) {
			cell[c] = max3(diag + ref[c], (int32_t)w->line[c] - gap,
				       left - gap);
			diag = (int32_t)w->line[c];
			left = cell[c];
		}
		r = gm_warp_store(g, w, a[0] + row * stride + (word + 1) * 4, cell,
				  128);
		if (r)
			return r;
		for (c = 0; c < 32; c++) {
			w->line[c] = (uint32_t)cell[c];
			w->acc += (uint32_t)cell[c];
		}
		w->n = w->out[w->k];
		if (++w->k < 32)
			return GM_STEP_MORE;
		w->pc = 0;
		w->k = 0;
		w->i = gm_next_item(g);
		return GM_STEP_MORE;
	}
}

const struct gm_kernel gm_kernel_nw = {
	.id = EMGPU_KERNEL_NW,
	.name = "nw",
	.check = nw_check,
	.init = nw_init,
	.step = nw_step,
};
