/* SPDX-License-Identifier: MIT */
/*
 * kmeans: Lloyd's k-means over integer points (Rodinia's k-means; the
 * paper's sequential class with reuse: every iteration re-reads every
 * point). 4 clusters of 4-dimensional u32 points (16 bytes, 8 a line).
 * args[0] points VA, [1] n (multiple of 32), [2] centroids VA (one line:
 * centroid c coordinate d at word 4 c + d, counts at words 16..19), [3]
 * membership VA (n u32), [4] accum VA (two lines: u64 sums[c][d] at
 * 8 (4 c + d), then u64 counts[c]; zero before the first iteration),
 * [5] mode.
 *
 * Mode 0 (assign): each warp loads the centroids once, then point line i
 * (work item i, gm_next_item()): nearest centroid by squared distance (ties to the
 * lower index) to membership, sums and counts kept in the warp; at its
 * end the warp adds them into accum, one atomic read-modify-write per
 * line (a load that checks write permission, then a store that cannot
 * fault: no other warp runs in between). Result: the sum of the distances.
 * Mode 1 (update): warp 0 sets centroid c to sums[c] / counts[c] (kept when
 * the cluster is empty), stores the counts, zeroes accum. Result: the sum
 * of the new coordinates. The guest runs mode 0 then mode 1 per iteration.
 *
 * State: pc (0 load centroids, 1 points, 2 and 3 flush accum, 4 done),
 * i = point line, line[0..15] centroids, line[16..19] counts, out[] = the
 * 16 u64 sums.
 */
#include <string.h>

#include "gpumodel/kernel.h"

#define KM_K	4
#define KM_D	4

/*
 * Warp instructions a point line (8 points) issues on the card: km_assign
 * of experiments/card-results/h200-kernels.csv, rev 2, 452 M a launch over 53.6 M
 * points at 1 GiB (8.44 a point: 64-bit distances to 4 centroids, the
 * sums kept per thread).
 */
#define KM_ASSIGN_INSTS	68

static int kmeans_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	return a[1] && !(a[1] % 32) && a[1] <= (1ull << 40) &&
	       gm_kernel_buf_ok(a[0], a[1] * 16) && gm_kernel_buf_ok(a[2], 128) &&
	       gm_kernel_buf_ok(a[3], a[1] * 4) && gm_kernel_buf_ok(a[4], 256) &&
	       a[5] <= 1 ? 0 : -1;
}

static void kmeans_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static uint64_t get64(const uint32_t *v, int idx)
{
	uint64_t x;

	memcpy(&x, v + 2 * idx, 8);
	return x;
}

static void put64(uint32_t *v, int idx, uint64_t x)
{
	memcpy(v + 2 * idx, &x, 8);
}

static int kmeans_update(struct gm_gpu *g, const struct gm_launch *l,
			 struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint32_t sums[32], cnts[32], cent[32], zero[32] = { 0 };
	uint64_t sum = 0, n;
	int r, c, d;

	if (w->id != 0)
		return GM_STEP_DONE;
	r = gm_warp_load(g, w, a[4], sums, 128, EMGPU_ACCESS_WRITE);
	if (!r)
		r = gm_warp_load(g, w, a[4] + 128, cnts, 128, EMGPU_ACCESS_WRITE);
	if (!r)
		r = gm_warp_load(g, w, a[2], cent, 128, EMGPU_ACCESS_WRITE);
	if (r)
		return r;
	for (c = 0; c < KM_K; c++) {
		n = get64(cnts, c);
		for (d = 0; d < KM_D; d++) {
			if (n)
				cent[c * KM_D + d] =
					(uint32_t)(get64(sums, c * KM_D + d) / n);
			sum += cent[c * KM_D + d];
		}
		cent[16 + c] = (uint32_t)n;
	}
	/* the loads checked write permission: these stores cannot fault */
	r = gm_warp_store(g, w, a[2], cent, 128);
	if (!r)
		r = gm_warp_store(g, w, a[4], zero, 128);
	if (!r)
		r = gm_warp_store(g, w, a[4] + 128, zero, 128);
	if (r)
		return r;
	w->acc += sum;
	return GM_STEP_DONE;
}

/* Adds the warp's sums (line 0) or counts (line 1) into accum. */
static int kmeans_flush(struct gm_gpu *g, const struct gm_launch *l,
			struct gm_warp *w, int line)
{
	uint32_t v[32];
	int r, k;

	r = gm_warp_load(g, w, l->d.args[4] + 128 * line, v, 128,
			 EMGPU_ACCESS_WRITE);
	if (r)
		return r;
	for (k = 0; k < (line ? KM_K : KM_K * KM_D); k++)
		put64(v, k, get64(v, k) + (line ? w->line[16 + k] : get64(w->out, k)));
	r = gm_warp_store(g, w, l->d.args[4] + 128 * line, v, 128);
	if (r)
		return r;
	w->pc++;
	return GM_STEP_MORE;
}

static int kmeans_step(struct gm_gpu *g, const struct gm_launch *l,
		       struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t lines = a[1] / 8, dist, best, sum = 0;
	uint32_t pts[32], memb[8];
	int r, p, c, d, bc;

	if (a[5] == 1)
		return kmeans_update(g, l, w);
	switch (w->pc) {
	case 0:
		if (w->i >= lines)
			return GM_STEP_DONE;	/* no points: nothing to add */
		r = gm_warp_load(g, w, a[2], w->line, 128, EMGPU_ACCESS_READ);
		if (r)
			return r;
		memset(w->line + 16, 0, 16 * sizeof(w->line[0]));
		memset(w->out, 0, sizeof(w->out));
		w->pc = 1;
		return GM_STEP_MORE;
	case 1:
		if (w->i >= lines) {
			w->pc = 2;
			return GM_STEP_MORE;
		}
		r = gm_warp_load(g, w, a[0] + w->i * 128, pts, 128,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		for (p = 0; p < 8; p++) {
			best = UINT64_MAX;
			bc = 0;
			for (c = 0; c < KM_K; c++) {
				dist = 0;
				for (d = 0; d < KM_D; d++) {
					int64_t diff = (int64_t)pts[4 * p + d] -
						       (int64_t)w->line[4 * c + d];

					dist += (uint64_t)(diff * diff);
				}
				if (dist < best) {
					best = dist;
					bc = c;
				}
			}
			memb[p] = (uint32_t)bc;
			sum += best;
		}
		r = gm_warp_store(g, w, a[3] + w->i * 32, memb, 32);
		if (r)
			return r;
		for (p = 0; p < 8; p++) {
			bc = (int)memb[p];
			w->line[16 + bc]++;
			for (d = 0; d < KM_D; d++)
				put64(w->out, bc * KM_D + d,
				      get64(w->out, bc * KM_D + d) + pts[4 * p + d]);
		}
		gm_warp_compute(g, w, KM_ASSIGN_INSTS);
		w->acc += sum;
		w->i = gm_next_item(g);
		return GM_STEP_MORE;
	case 2:
		return kmeans_flush(g, l, w, 0);
	case 3:
		return kmeans_flush(g, l, w, 1);
	default:
		return GM_STEP_DONE;
	}
}

const struct gm_kernel gm_kernel_kmeans = {
	.id = EMGPU_KERNEL_KMEANS,
	.name = "kmeans",
	.check = kmeans_check,
	.init = kmeans_init,
	.step = kmeans_step,
};
