// SPDX-License-Identifier: MIT
/*
 * ember-apps: the testbed's applications on a real card, one run per call,
 * one JSON line. Sizes, inputs and the CPU reference are workloads/'s, the
 * files libember's apps use in the guest (same footprint, same words, every
 * output word checked the same way); the kernels below compute what the
 * model's kernels of models/src/kernels/ compute, with the same launch
 * sequence as userspace/apps.c (one launch per phase; the launch
 * is the barrier).
 *
 * usage: ember-apps APP VARIANT FOOTPRINT_BYTES [SEED]
 *        ember-apps --list   (the APPs, one a line)
 *   APP      an application of workloads/app_list.h with card 1
 *   VARIANT  uvm (plain managed memory), prefetch (each buffer prefetched
 *            whole after the fill), mapped (preferred location host +
 *            accessed-by the GPU before the fill). Ember-static is "uvm"
 *            under LD_PRELOAD=libember-static.so: no call of its own.
 *
 * ms is what the testbed's sim_ns + setup_ns measure: from the variant's
 * calls after the fill (the prefetch) to the end of the last launch,
 * host wall clock around synchronised work. Advice before the fill is not
 * in it, as in the testbed. The footprint must stay below a quarter of the
 * free device memory and 4 GiB: the program refuses otherwise, unless
 * EMBER_APPS_ANY_FOOTPRINT=1 (a card of one's own, e.g. the real-card guest
 * image of images/nvidia, where oversubscribing it is the point).
 *
 * EMBER_APPS_LOCK=FILE: several runs fill and verify on the CPU in parallel
 * while the card runs one timed section at a time (tests/hw/apps.sh). The
 * timed section, until the outputs are back in host memory, holds FILE
 * exclusively; a fill (the host's first touch goes through the UVM driver)
 * holds it shared, so no fill overlaps a timed section; FILE.gate, taken
 * before FILE by both, lets a waiting timed section in before new fills.
 */
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "../cuda_check.h"
#include "../cuda_mem_location.h"
#include "app_inputs.h"

#define MAX_FOOT	(4ull << 30)
#define THREADS		256

struct run {
	struct em_app_data d;
	cudaStream_t s;
	unsigned long long *counter;	/* device memory: a launch's result */
	unsigned int launches;
	int blocks;			/* grid-stride kernels' grid */
};

static uint8_t *buf(const struct run *r, int i)
{
	return (uint8_t *)r->d.p[i];
}

static int grid_for(const struct run *r, uint64_t items)
{
	uint64_t b = (items + THREADS - 1) / THREADS;

	return b < (uint64_t)r->blocks ? (int)(b ? b : 1) : r->blocks;
}

#define FOR_EACH(i, n)                                                         \
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;     \
	     i < (n); i += (uint64_t)gridDim.x * blockDim.x)

/* ---- pathfinder: next[c] = wall[r][c] + min(prev[c-1 .. c+1]) ---- */

__global__ void pf_row(const uint32_t *wall, uint64_t cols, uint64_t row,
		       const uint32_t *prev, uint32_t *next)
{
	FOR_EACH(c, cols) {
		uint32_t m = prev[c];

		if (c > 0 && prev[c - 1] < m)
			m = prev[c - 1];
		if (c + 1 < cols && prev[c + 1] < m)
			m = prev[c + 1];
		next[c] = wall[row * cols + c] + m;
	}
}

static const int pathfinder_rev = 1;

static int pathfinder_launch(struct run *r)
{
	uint64_t rows = r->d.n[0], cols = r->d.n[1];
	const uint32_t *wall = (const uint32_t *)buf(r, 0);
	uint32_t *res = (uint32_t *)buf(r, 1);

	for (uint64_t row = 1; row < rows; row++) {
		pf_row<<<grid_for(r, cols), THREADS, 0, r->s>>>(
			wall, cols, row, row == 1 ? wall : res + (row % 2) * cols,
			res + ((row + 1) % 2) * cols);
		r->launches++;
	}
	return 0;
}

/* ---- kmeans: assign (sums and counts into accum), then update ---- */

__global__ void km_assign(const uint4 *pts, uint64_t n, const uint32_t *cent,
			  uint32_t *memb, unsigned long long *accum)
{
	__shared__ unsigned long long sums[EM_KM_K * EM_KM_D + EM_KM_K];
	unsigned long long mine[EM_KM_K * EM_KM_D + EM_KM_K] = { 0 };
	uint32_t c0[EM_KM_K * EM_KM_D];

	/*
	 * Every loop over mine[] is unrolled: an index the compiler cannot
	 * resolve puts the array on the stack (local memory), as the first
	 * version's loops did: 160 bytes a thread, ~1 GB more DRAM traffic
	 * a pass over 1 GiB (experiments/card-results/h200-kernels.csv, km_assign;
	 * README, "Fidelity to a real card").
	 */
	if (threadIdx.x < EM_KM_K * EM_KM_D + EM_KM_K)
		sums[threadIdx.x] = 0;
#pragma unroll
	for (int k = 0; k < EM_KM_K * EM_KM_D; k++)
		c0[k] = cent[k];
	__syncthreads();
	FOR_EACH(p, n) {
		uint4 v = pts[p];
		uint32_t x[EM_KM_D] = { v.x, v.y, v.z, v.w };
		unsigned long long best = ~0ull;
		int bc = 0;

#pragma unroll
		for (int c = 0; c < EM_KM_K; c++) {
			unsigned long long dist = 0;

#pragma unroll
			for (int d = 0; d < EM_KM_D; d++) {
				long long diff = (long long)x[d] - c0[c * EM_KM_D + d];

				dist += (unsigned long long)(diff * diff);
			}
			if (dist < best) {
				best = dist;
				bc = c;
			}
		}
		memb[p] = bc;
		/* unrolled selects keep the thread's sums in registers */
#pragma unroll
		for (int c = 0; c < EM_KM_K; c++)
			if (bc == c) {
#pragma unroll
				for (int d = 0; d < EM_KM_D; d++)
					mine[c * EM_KM_D + d] += x[d];
				mine[EM_KM_K * EM_KM_D + c]++;
			}
	}
#pragma unroll
	for (int k = 0; k < EM_KM_K * EM_KM_D + EM_KM_K; k++)
		if (mine[k])
			atomicAdd(&sums[k], mine[k]);
	__syncthreads();
	if (threadIdx.x < EM_KM_K * EM_KM_D + EM_KM_K && sums[threadIdx.x])
		atomicAdd(&accum[threadIdx.x], sums[threadIdx.x]);
}

/* centroid c = sums[c] / counts[c] (kept when empty), counts stored, accum zeroed */
__global__ void km_update(uint32_t *cent, unsigned long long *accum)
{
	for (int c = 0; c < EM_KM_K; c++) {
		unsigned long long cnt = accum[EM_KM_K * EM_KM_D + c];

		for (int d = 0; d < EM_KM_D; d++)
			if (cnt)
				cent[c * EM_KM_D + d] =
					(uint32_t)(accum[c * EM_KM_D + d] / cnt);
		cent[16 + c] = (uint32_t)cnt;
	}
	for (int k = 0; k < 32; k++)	/* the two accum lines */
		accum[k] = 0;
}

static const int kmeans_rev = 2;

static int kmeans_launch(struct run *r)
{
	uint32_t *cent = (uint32_t *)buf(r, 2);
	unsigned long long *accum = (unsigned long long *)(buf(r, 2) + 128);

	for (uint64_t it = 0; it < r->d.n[1]; it++) {
		km_assign<<<grid_for(r, r->d.n[0]), THREADS, 0, r->s>>>(
			(const uint4 *)buf(r, 0), r->d.n[0], cent,
			(uint32_t *)buf(r, 1), accum);
		km_update<<<1, 1, 0, r->s>>>(cent, accum);
		r->launches += 2;
	}
	return 0;
}

/* ---- conv: 3x3 over the channels, ReLU, int32 wrapping ---- */

__global__ void cv_layer(const uint32_t *in, uint64_t h, uint64_t w,
			 const uint32_t *wt, uint32_t *out)
{
	__shared__ uint32_t k[9 * EM_CV_CH];

	if (threadIdx.x < 9 * EM_CV_CH)
		k[threadIdx.x] = wt[threadIdx.x];
	__syncthreads();
	FOR_EACH(i, h * w) {
		uint64_t y = i / w, x = i % w;
		uint32_t acc = 0;

		for (int c = 0; c < EM_CV_CH; c++)
			for (int dy = -1; dy <= 1; dy++) {
				const uint32_t *row, *wr = k + 9 * c + 3 * (dy + 1);

				if ((dy < 0 && y == 0) || (dy > 0 && y + 1 >= h))
					continue;
				row = in + (c * h + y + dy) * w;
				acc += wr[1] * row[x];
				if (x > 0)
					acc += wr[0] * row[x - 1];
				if (x + 1 < w)
					acc += wr[2] * row[x + 1];
			}
		out[i] = (int32_t)acc > 0 ? acc : 0;
	}
}

static const int conv_rev = 1;

static int conv_launch(struct run *r)
{
	uint64_t h = r->d.n[0], w = r->d.n[1];

	cv_layer<<<grid_for(r, h * w), THREADS, 0, r->s>>>(
		(const uint32_t *)buf(r, 0), h, w, (const uint32_t *)buf(r, 2),
		(uint32_t *)buf(r, 1));
	r->launches++;
	return 0;
}

/*
 * ---- bitonic: G interleaved segments of S lines (models/src/kernels/
 * bitonic.c); a pass (k, j >= 32) compare-exchanges segment lines, a pass
 * (k, 0) runs the in-line stages, a warp per line. j / 32 is a power of
 * two and so is G at power-of-two footprints: shifts, not the 64-bit
 * division routine the first version ran per element (its passes were
 * issue-bound: experiments/card-results/h200-kernels.csv, bt_lines and bt_in_line;
 * README, "Fidelity to a real card"). Another G divides. ----
 */

struct bt_segs {
	uint64_t g;		/* segments */
	unsigned int shift;	/* log2(g), or 64: g is no power of two */
};

__device__ uint64_t bt_seg_of(uint64_t line, struct bt_segs gs)
{
	return gs.shift < 64 ? line >> gs.shift : line / gs.g;
}

__global__ void bt_lines(uint32_t *keys, uint64_t lines, struct bt_segs gs,
			 uint64_t k, unsigned int jl_shift)
{
	uint64_t jl_mask = (1ull << jl_shift) - 1;

	FOR_EACH(t, lines / 2 * 32) {
		uint64_t p = t / 32, q = bt_seg_of(p, gs), n = t % 32;
		uint64_t sa = ((q >> jl_shift) << (jl_shift + 1)) + (q & jl_mask);
		uint64_t a = (p - q * gs.g + gs.g * sa) * 32 + n;
		uint64_t b = a + (gs.g << jl_shift) * 32;
		uint32_t x = keys[a], y = keys[b];
		bool asc = !((sa * 32) & k);

		if ((x > y) == asc) {
			keys[a] = y;
			keys[b] = x;
		}
	}
}

__global__ void bt_in_line(uint32_t *keys, uint64_t lines, struct bt_segs gs,
			   uint64_t k)
{
	/* a warp is one line in every round: lines * 32 and the stride are whole warps */
	FOR_EACH(t, lines * 32) {
		uint64_t line = t / 32, e0 = bt_seg_of(line, gs) * 32;
		unsigned int x = (unsigned int)(t % 32);
		uint32_t v = keys[t];

		for (uint64_t kk = k == 32 ? 2 : k; kk <= k; kk *= 2)
			for (unsigned int jj = kk / 2 < 16 ? (unsigned int)kk / 2 : 16; jj;
			     jj /= 2) {
				uint32_t o = __shfl_xor_sync(0xffffffffu, v, jj);
				bool asc = !((e0 + (x & ~jj)) & kk), low = !(x & jj);

				v = (low == asc) ? min(v, o) : max(v, o);
			}
		keys[t] = v;
	}
}

static const int bitonic_rev = 2;

static int bitonic_launch(struct run *r)
{
	uint64_t s = r->d.n[0], lines = r->d.n[0] * r->d.n[1];
	struct bt_segs gs = { r->d.n[1], 64 };
	uint32_t *keys = (uint32_t *)buf(r, 0);
	int in_line_blocks = grid_for(r, lines * 32);

	if (!(gs.g & (gs.g - 1)))
		gs.shift = (unsigned int)__builtin_ctzll(gs.g);
	bt_in_line<<<in_line_blocks, THREADS, 0, r->s>>>(keys, lines, gs, 32);
	r->launches++;
	for (uint64_t k = 64; k <= 32 * s; k *= 2) {
		for (uint64_t j = k / 2; j >= 32; j /= 2) {
			bt_lines<<<grid_for(r, lines / 2 * 32), THREADS, 0, r->s>>>(
				keys, lines, gs, k,
				(unsigned int)__builtin_ctzll(j / 32));
			r->launches++;
		}
		bt_in_line<<<in_line_blocks, THREADS, 0, r->s>>>(keys, lines, gs, k);
		r->launches++;
	}
	return 0;
}

/*
 * ---- radix: per 4-bit pass count, scan, stable scatter by chunk
 * (models/src/kernels/radix.c); chunk c is one block ----
 */

__device__ uint64_t rx_chunk_start(uint64_t c, uint64_t lines, uint64_t chunks)
{
	return c * lines / chunks;
}

__global__ void rx_count(const uint32_t *src, uint64_t n, uint32_t *hist,
			 unsigned int shift, uint64_t chunks)
{
	__shared__ uint32_t cnt[16];
	uint64_t c = blockIdx.x, lines = n / 32;
	uint64_t lo = rx_chunk_start(c, lines, chunks) * 32;
	uint64_t hi = rx_chunk_start(c + 1, lines, chunks) * 32;

	if (threadIdx.x < 16)
		cnt[threadIdx.x] = 0;
	__syncthreads();
	/* lo, hi and the block are whole warps: one add per digit per warp */
	for (uint64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
		uint32_t digit = src[i] >> shift & 15;
		uint32_t peers = __match_any_sync(0xffffffffu, digit);

		if (!(peers & ((1u << (threadIdx.x % 32)) - 1)))
			atomicAdd(&cnt[digit], (uint32_t)__popc(peers));
	}
	__syncthreads();
	if (threadIdx.x < 16)
		hist[c * 16 + threadIdx.x] = cnt[threadIdx.x];
}

/* hist[c][d] becomes chunk c's first output index for digit d */
__global__ void rx_scan(uint32_t *hist, uint64_t chunks)
{
	__shared__ uint32_t total[16];
	unsigned int d = threadIdx.x;
	uint32_t base = 0, t;

	for (uint64_t c = 0; c < chunks; c++)
		base += hist[c * 16 + d];
	total[d] = base;
	__syncthreads();
	base = 0;
	for (unsigned int e = 0; e < d; e++)
		base += total[e];
	for (uint64_t c = 0; c < chunks; c++) {
		t = hist[c * 16 + d];
		hist[c * 16 + d] = base;
		base += t;
	}
}

/* 32 warps, a line each per round; stable: chunk, line, lane order */
__global__ void rx_scatter(const uint32_t *src, uint64_t n, uint32_t *dst,
			   const uint32_t *hist, unsigned int shift, uint64_t chunks)
{
	__shared__ uint32_t base[16], wcnt[32][16];
	uint64_t c = blockIdx.x, lines = n / 32;
	uint64_t lo = rx_chunk_start(c, lines, chunks);
	uint64_t hi = rx_chunk_start(c + 1, lines, chunks);
	unsigned int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

	if (threadIdx.x < 16)
		base[threadIdx.x] = hist[c * 16 + threadIdx.x];
	for (uint64_t l0 = lo; l0 < hi; l0 += 32) {
		uint64_t line = l0 + warp;
		bool active = line < hi;
		uint32_t key = 0, digit = 0, peers = 0, rank = 0;

		if (threadIdx.x < 32 * 16)
			wcnt[threadIdx.x / 16][threadIdx.x % 16] = 0;
		__syncthreads();
		if (active) {
			key = src[line * 32 + lane];
			digit = key >> shift & 15;
			peers = __match_any_sync(0xffffffffu, digit);
			rank = __popc(peers & ((1u << lane) - 1));
			if (!rank)
				wcnt[warp][digit] = __popc(peers);
		}
		__syncthreads();
		if (threadIdx.x < 16) {	/* exclusive prefix over the warps */
			uint32_t run = base[threadIdx.x], x;

			for (int w = 0; w < 32; w++) {
				x = wcnt[w][threadIdx.x];
				wcnt[w][threadIdx.x] = run;
				run += x;
			}
			base[threadIdx.x] = run;
		}
		__syncthreads();
		if (active) {
			uint64_t pos = wcnt[warp][digit] + rank;

			if (pos < n)
				dst[pos] = key;
		}
		__syncthreads();
	}
}

static const int radix_rev = 1;

static int radix_launch(struct run *r)
{
	uint64_t n = r->d.n[0], chunks = r->d.n[2];
	uint32_t *hist = (uint32_t *)buf(r, 2);

	for (uint64_t p = 0; p < r->d.n[1]; p++) {
		const uint32_t *src = (const uint32_t *)buf(r, (int)(p % 2));
		uint32_t *dst = (uint32_t *)buf(r, (int)(1 - p % 2));

		rx_count<<<(unsigned int)chunks, THREADS, 0, r->s>>>(
			src, n, hist, (unsigned int)(4 * p), chunks);
		rx_scan<<<1, 16, 0, r->s>>>(hist, chunks);
		rx_scatter<<<(unsigned int)chunks, 1024, 0, r->s>>>(
			src, n, dst, hist, (unsigned int)(4 * p), chunks);
		r->launches += 3;
	}
	return 0;
}

/* ---- bfs: one top-down level; result: vertices at level cur ---- */

__global__ void bfs_level(const uint64_t *rp, uint64_t nv, const uint64_t *col,
			  uint64_t ne, uint32_t *level, uint32_t cur,
			  unsigned long long *count)
{
	FOR_EACH(v, nv) {
		bool frontier = level[v] == cur;
		unsigned int mask = __activemask(), f = __ballot_sync(mask, frontier);

		if (frontier && !(f & ((1u << (threadIdx.x % 32)) - 1)))
			atomicAdd(count, (unsigned long long)__popc(f));
		if (!frontier)
			continue;
		uint64_t end = rp[v + 1] < ne ? rp[v + 1] : ne;
		uint64_t k = rp[v] < end ? rp[v] : end;

		for (; k < end; k++) {
			uint64_t u = col[k];

			if (u < nv && level[u] == EM_APP_UNVISITED)
				level[u] = cur + 1;
		}
	}
}

static const int bfs_rev = 1;

static int bfs_launch(struct run *r)
{
	unsigned long long got;
	uint64_t cur;

	for (cur = 0; cur < r->d.n[0]; cur++) {
		CHECK(cudaMemsetAsync(r->counter, 0, sizeof(*r->counter), r->s));
		bfs_level<<<grid_for(r, r->d.n[0]), THREADS, 0, r->s>>>(
			(const uint64_t *)buf(r, 0), r->d.n[0],
			(const uint64_t *)buf(r, 1), r->d.n[1], (uint32_t *)buf(r, 2),
			(uint32_t)cur, r->counter);
		r->launches++;
		CHECK(cudaMemcpyAsync(&got, r->counter, sizeof(got),
				      cudaMemcpyDeviceToHost, r->s));
		CHECK(cudaStreamSynchronize(r->s));
		r->d.result += got;
		if (!got)
			break;
	}
	r->d.n[2] = cur;
	return 0;
}

/* ---- gemv: y[r] = (u8)((u32)(W[r] . x) >> 7), a warp per row ---- */

__global__ void gv_token(const int8_t *w, uint64_t n, const int8_t *x, int8_t *y)
{
	uint64_t warps = (uint64_t)gridDim.x * blockDim.x / 32;
	unsigned int lane = threadIdx.x % 32;

	for (uint64_t row = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32;
	     row < n; row += warps) {
		const char4 *wr = (const char4 *)(w + row * n);
		const char4 *xv = (const char4 *)x;
		uint32_t acc = 0;

		for (uint64_t c = lane; c < n / 4; c += 32) {
			char4 a = wr[c], b = xv[c];

			acc += (uint32_t)(a.x * b.x) + (uint32_t)(a.y * b.y) +
			       (uint32_t)(a.z * b.z) + (uint32_t)(a.w * b.w);
		}
		for (int o = 16; o; o /= 2)
			acc += __shfl_xor_sync(0xffffffffu, acc, o);
		if (!lane)
			y[row] = (int8_t)(uint8_t)(acc >> 7);
	}
}

static const int gemv_rev = 1;

static int gemv_launch(struct run *r)
{
	uint64_t n = r->d.n[0];
	int8_t *v = (int8_t *)buf(r, 1);

	for (uint64_t t = 0; t < r->d.n[1]; t++) {
		gv_token<<<grid_for(r, n * 32), THREADS, 0, r->s>>>(
			(const int8_t *)buf(r, 0), n, v + t * n, v + (t + 1) * n);
		r->launches++;
	}
	return 0;
}

/*
 * ---- colscan: a warp per line of 32 rows, predicated loads (a lane stops
 * loading once its row fails a filter), sum a x b over the passing rows ----
 */

struct cs_query {
	unsigned int f[3], a, b;
	uint32_t lo[3], hi[3];
};

__global__ void cs_scan(const uint32_t *t, uint64_t n, struct cs_query q,
			unsigned long long *out)
{
	FOR_EACH(x, n) {
		bool ok = true;
		unsigned long long v = 0;

		for (int f = 0; f < 3; f++)
			if (ok && q.f[f] != EM_CS_NONE) {
				uint32_t c = t[q.f[f] * n + x];

				ok = c >= q.lo[f] && c <= q.hi[f];
			}
		if (ok)
			v = (unsigned long long)t[q.a * n + x] *
			    (q.b != EM_CS_NONE ? t[q.b * n + x] : 1);
		for (int o = 16; o; o /= 2)
			v += __shfl_xor_sync(0xffffffffu, v, o);
		if (x % 32 == 0)
			out[x / 32] = v;
	}
}

static const int colscan_rev = 1;

static int colscan_launch(struct run *r)
{
	uint64_t n = r->d.n[0], args[4];
	struct cs_query q;

	for (uint64_t k = 0; k < r->d.n[1]; k++) {
		em_app_colscan_query(k, args);
		for (int f = 0; f < 3; f++) {
			q.f[f] = (unsigned int)(args[0] >> (8 * f)) & 0xff;
			q.lo[f] = (uint32_t)args[1 + f];
			q.hi[f] = (uint32_t)(args[1 + f] >> 32);
		}
		q.a = (unsigned int)(args[0] >> 24) & 0xff;
		q.b = (unsigned int)(args[0] >> 32) & 0xff;
		/* n is a multiple of 512: whole warps, one line each */
		cs_scan<<<grid_for(r, n), THREADS, 0, r->s>>>(
			(const uint32_t *)buf(r, 0), n, q,
			(unsigned long long *)(buf(r, 1) + k * (n / 4)));
		r->launches++;
	}
	return 0;
}

/* ---- the run ---- */

/*
 * The applications of workloads/app_list.h with card 1. rev: the revision
 * of NAME's kernels (NAME_rev, beside NAME_launch), in the output line; a
 * change to how an app's kernels run on the card (not what they compute)
 * takes the next one, and make compare-card compares each app's latest
 * revision only.
 */
struct app {
	const char *name;
	const struct em_app_ref *ref;
	int (*launch)(struct run *r);
	int rev;
};

#define CARD_APP(name, kernel, paper, inputs, card)			\
	EM_APP_IF_CARD(card, { #name, &em_app_##name, name##_launch, name##_rev },)
static const struct app apps[] = { EM_APPS(CARD_APP) };
#undef CARD_APP

static double now_ms(void)
{
	return std::chrono::duration<double, std::milli>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

/*
 * Takes FILE (how: LOCK_SH or LOCK_EX) through FILE.gate: a shared holder
 * lets the gate go at once, an exclusive one keeps it until it is done.
 */
static int lock_take(const char *file, int *fd, int *gate, int how)
{
	char name[4096];

	snprintf(name, sizeof(name), "%s.gate", file);
	if ((*gate < 0 && (*gate = open(name, O_RDWR | O_CREAT, 0644)) < 0) ||
	    flock(*gate, LOCK_EX) || (*fd = open(file, O_RDWR | O_CREAT, 0644)) < 0 ||
	    flock(*fd, how)) {
		perror("ember-apps: lock");
		return -1;
	}
	if (how == LOCK_SH)
		flock(*gate, LOCK_UN);
	return 0;
}

/* Listing 1's calls for one buffer: phase 0 before the fill, 1 after. */
static int variant_calls(const char *v, void *p, size_t bytes, int dev,
			 int phase, cudaStream_t s)
{
	mem_location host = mem_location_host();
	mem_location gpu = mem_location_device(dev);

	if (phase == 0 && !strcmp(v, "mapped")) {
		CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, host));
		CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, gpu));
	}
	if (phase == 1 && !strcmp(v, "prefetch"))
		CHECK(mem_prefetch(p, bytes, gpu, s));
	return 0;
}

int main(int argc, char **argv)
{
	const struct app *app = NULL;
	struct run r;
	const char *variant, *lock = getenv("EMBER_APPS_LOCK");
	const char *any = getenv("EMBER_APPS_ANY_FOOTPRINT");
	bool any_footprint = any && !strcmp(any, "1");
	mem_location host = mem_location_host();
	size_t free_b, total_b, alloc = 0;
	double t0, t1, t2, t3, t4, t5;
	int dev, lock_fd = -1, gate_fd = -1;
	cudaDeviceProp prop;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < sizeof(apps) / sizeof(apps[0]); i++)
			printf("%s\n", apps[i].name);
		return 0;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: ember-apps APP uvm|prefetch|mapped FOOTPRINT_BYTES [SEED]\n"
			"       ember-apps --list\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(apps) / sizeof(apps[0]); i++)
		if (!strcmp(apps[i].name, argv[1]))
			app = &apps[i];
	variant = argv[2];
	if (!app || (strcmp(variant, "uvm") && strcmp(variant, "prefetch") &&
		     strcmp(variant, "mapped"))) {
		fprintf(stderr, "ember-apps: unknown app or variant\n");
		return 2;
	}
	memset(&r, 0, sizeof(r));
	r.d.foot = strtoull(argv[3], NULL, 0);
	r.d.seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 1;
	CHECK(cudaGetDevice(&dev));
	CHECK(cudaGetDeviceProperties(&prop, dev));
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	em_app_size(app->ref, &r.d);
	for (int i = 0; i < EM_APP_BUFS; i++)
		alloc += r.d.bytes[i];
	if (!any_footprint && (r.d.foot > MAX_FOOT || alloc > free_b / 4)) {
		fprintf(stderr, "ember-apps: %zu bytes of managed memory refused "
			"(free %zu: at most a quarter, and 4 GiB)\n", alloc, free_b);
		return 3;
	}
	r.blocks = prop.multiProcessorCount * 16;
	CHECK(cudaStreamCreate(&r.s));
	CHECK(cudaMalloc(&r.counter, sizeof(*r.counter)));

	t0 = now_ms();
	for (int i = 0; i < EM_APP_BUFS; i++)
		if (r.d.bytes[i]) {
			CHECK(cudaMallocManaged(&r.d.p[i], r.d.bytes[i]));
			if (variant_calls(variant, r.d.p[i], r.d.bytes[i], dev, 0, r.s))
				return 1;
		}
	if (lock && lock_take(lock, &lock_fd, &gate_fd, LOCK_SH))
		return 1;
	app->ref->fill(&r.d);
	if (lock_fd >= 0) {
		close(lock_fd);
		if (lock_take(lock, &lock_fd, &gate_fd, LOCK_EX))
			return 1;
	}
	t1 = now_ms();
	for (int i = 0; i < EM_APP_BUFS; i++)
		if (r.d.p[i] && variant_calls(variant, r.d.p[i], r.d.bytes[i], dev, 1, r.s))
			return 1;
	CHECK(cudaStreamSynchronize(r.s));
	t2 = now_ms();
	if (app->launch(&r))
		return 1;
	CHECK(cudaStreamSynchronize(r.s));
	CHECK(cudaGetLastError());
	t3 = now_ms();
	/* outputs back to the host before the lock goes: verify faults nothing */
	for (int i = 0; i < EM_APP_BUFS; i++)
		if (r.d.p[i])
			CHECK(mem_prefetch(r.d.p[i], r.d.bytes[i], host, r.s));
	CHECK(cudaStreamSynchronize(r.s));
	t4 = now_ms();
	if (lock_fd >= 0) {
		close(lock_fd);
		close(gate_fd);
	}
	if (app->ref->verify(&r.d)) {
		fprintf(stderr, "ember-apps: out of host memory for the reference\n");
		return 1;
	}
	t5 = now_ms();
	printf("{\"app\":\"%s\",\"rev\":%d,\"variant\":\"%s\",\"footprint\":%llu,"
	       "\"alloc_bytes\":%zu,\"seed\":%llu,\"passes\":%u,\"launches\":%u,"
	       "\"ms\":%.3f,\"setup_ms\":%.3f,\"launch_ms\":%.3f,"
	       "\"words_checked\":%llu,\"mismatches\":%llu,\"result_ok\":%d,"
	       "\"verified\":%d,\"fill_s\":%.1f,\"to_host_s\":%.1f,"
	       "\"verify_s\":%.1f,\"device\":\"%s\"}\n",
	       app->name, app->rev, variant, (unsigned long long)r.d.foot, alloc,
	       (unsigned long long)r.d.seed, r.d.passes, r.launches, t3 - t1,
	       t2 - t1, t3 - t2, (unsigned long long)r.d.words_checked,
	       (unsigned long long)r.d.mismatches, r.d.result_ok,
	       !r.d.mismatches && r.d.words_checked && r.d.result_ok != 0,
	       (t1 - t0) / 1e3, (t4 - t3) / 1e3, (t5 - t4) / 1e3, prop.name);
	for (int i = 0; i < EM_APP_BUFS; i++)
		if (r.d.p[i])
			cudaFree(r.d.p[i]);
	return r.d.mismatches ? 1 : 0;
}
