/* SPDX-License-Identifier: MIT */
/*
 * bfs: one level of a top-down breadth-first search over a CSR graph
 * (EMOGI's BFS, 64-bit vertex ids; the paper's random class: adjacency
 * lists and neighbour levels are read in data-dependent order).
 * args[0] row_ptr VA ((vertices + 1) u64), [1] vertices V (multiple of
 * 32), [2] col VA (edges u64), [3] edges E, [4] level VA (V u32,
 * 0xffffffff = unvisited), [5] cur.
 * Every vertex v with level[v] == cur sets level[u] = cur + 1 for each
 * neighbour u (col[row_ptr[v] .. row_ptr[v+1])) still unvisited. Writes
 * race only with writes of the same value, and a vertex reaching cur + 1
 * in this launch is never taken as one at cur, so the result does not
 * depend on warp order. The guest launches cur = 0, 1, ... until a launch
 * returns 0; every launch is a barrier. Out-of-range row_ptr entries are
 * clamped and neighbours >= V skipped (corrupt input stays in bounds).
 * Level line i (32 vertices) is work item i (gm_next_item(): in order).
 * Result: the number of vertices at level cur.
 * State: pc 0 load level line i into line[], 1 find the next frontier
 * vertex from j and load its row_ptr pair into k, n; 2 load the col line
 * of edge k into out[]; 3 check neighbour col[k].
 */
#include <string.h>

#include "gpumodel/kernel.h"

/*
 * Warp instructions a level line issues on the card, its frontier search
 * and a level's share of the edges: bfs_level of experiments/card-results/
 * h200-kernels.csv, 8.68-8.80 M a level over 440,643 level lines (1 GiB).
 */
#define BFS_LINE_INSTS	20

#define BFS_UNVISITED	0xffffffffu

static int bfs_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	if (!a[1] || a[1] % 32 || a[1] >= (1ull << 32) || !a[3] ||
	    a[3] > (1ull << 40) || a[5] >= BFS_UNVISITED - 1)
		return -1;
	return gm_kernel_buf_ok(a[0], ((a[1] + 1) * 8 + 127) & ~127ull) &&
	       gm_kernel_buf_ok(a[2], (a[3] * 8 + 127) & ~127ull) &&
	       gm_kernel_buf_ok(a[4], a[1] * 4) ? 0 : -1;
}

static void bfs_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static int bfs_step(struct gm_gpu *g, const struct gm_launch *l,
		    struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t lines = a[1] / 32, v, rp[2], va, u;
	uint32_t cur = (uint32_t)a[5], lv, next = cur + 1;
	int r;

	switch (w->pc) {
	case 0:
		if (w->i >= lines)
			return GM_STEP_DONE;
		r = gm_warp_load(g, w, a[4] + w->i * 128, w->line, 128,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		gm_warp_compute(g, w, BFS_LINE_INSTS);
		w->j = 0;
		w->pc = 1;
		/* fall through */
	case 1:
		while (w->j < 32 && w->line[w->j] != cur)
			w->j++;
		if (w->j >= 32) {
			w->i = gm_next_item(g);
			w->pc = 0;
			return GM_STEP_MORE;
		}
		v = w->i * 32 + w->j;
		va = a[0] + v * 8;
		if ((va & 127) != 120) {
			r = gm_warp_load(g, w, va, rp, 16, EMGPU_ACCESS_READ);
		} else {
			r = gm_warp_load(g, w, va, &rp[0], 8, EMGPU_ACCESS_READ);
			if (!r)
				r = gm_warp_load(g, w, va + 8, &rp[1], 8,
						 EMGPU_ACCESS_READ);
		}
		if (r)
			return r;
		w->n = rp[1] < a[3] ? rp[1] : a[3];
		w->k = rp[0] < w->n ? rp[0] : w->n;
		w->acc++;
		w->pc = 2;
		return GM_STEP_MORE;
	case 2:
		if (w->k >= w->n) {
			w->j++;
			w->pc = 1;
			return GM_STEP_MORE;
		}
		r = gm_warp_load(g, w, a[2] + (w->k & ~15ull) * 8, w->out, 128,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		w->pc = 3;
		return GM_STEP_MORE;
	default:
		memcpy(&u, &w->out[2 * (w->k & 15)], 8);
		if (u < a[1]) {
			va = a[4] + u * 4;
			r = gm_warp_load(g, w, va, &lv, 4, EMGPU_ACCESS_READ);
			if (!r && lv == BFS_UNVISITED)
				r = gm_warp_store(g, w, va, &next, 4);
			if (r)
				return r;
		}
		w->k++;
		if (w->k >= w->n) {
			w->j++;
			w->pc = 1;
		} else if (!(w->k & 15)) {
			w->pc = 2;
		}
		return GM_STEP_MORE;
	}
}

const struct gm_kernel gm_kernel_bfs = {
	.id = EMGPU_KERNEL_BFS,
	.name = "bfs",
	.check = bfs_check,
	.init = bfs_init,
	.step = bfs_step,
};
