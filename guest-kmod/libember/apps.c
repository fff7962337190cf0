// SPDX-License-Identifier: MIT
/* The paper's applications over libember: see apps.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps.h"
#include "emgpu_hw.h"

#define MiB		(1024ull * 1024)
#define APP_BUFS	4
#define UNVISITED	0xffffffffu

struct app_buf {
	void *p;
	size_t bytes;
};

struct app_run {
	const struct em_wl_config *cfg;
	struct em_wl_result *r;
	const struct em_app *app;
	uint64_t foot;			/* target footprint, bytes */
	uint64_t seed;
	uint32_t passes;		/* -p, or the app's default */
	struct app_buf b[APP_BUFS];
	uint64_t n[4];			/* sizes the app chose */
	uint64_t ret_last;		/* result of the last launch */
};

struct em_app {
	const char *name;
	uint32_t kernel;		/* enum emgpu_kernel_id */
	uint32_t def_passes;
	/* sizes from a->foot, allocates through app_alloc() */
	int (*setup)(struct app_run *a);
	/* writes the inputs through the CPU pointers */
	void (*fill)(struct app_run *a);
	/* launches every phase */
	int (*launch)(struct app_run *a);
	/* compares the outputs (and inputs) with the CPU reference */
	void (*verify)(struct app_run *a);
};

/* ---- helpers ---- */

/* Cheap deterministic input generator: a multiply-xorshift of (seed, salt, i). */
static uint32_t gen(uint64_t seed, uint64_t salt, uint64_t i)
{
	uint64_t h = (i + (seed << 20) + (salt << 52)) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int app_fail(struct app_run *a, const char *call, int ret)
{
	if (!a->r->ret) {
		a->r->ret = ret;
		a->r->failed = call;
	}
	return ret;
}

static int app_alloc(struct app_run *a, int i, size_t bytes)
{
	int ret;

	bytes = (bytes + 127) & ~(size_t)127;
	a->b[i].bytes = bytes;
	ret = emMallocManaged(&a->b[i].p, bytes);
	if (ret) {
		a->b[i].p = NULL;
		return app_fail(a, "malloc_managed", ret);
	}
	a->r->footprint += emAllocSize(bytes);
	return 0;
}

static uint64_t va(const struct app_run *a, int i)
{
	return (uintptr_t)a->b[i].p;
}

static uint32_t *w32(const struct app_run *a, int i)
{
	return a->b[i].p;
}

/* One phase: launch, wait; sums the modelled time and the results. */
static int app_launch(struct app_run *a, const uint64_t *args, int nargs)
{
	struct ember_launch l;
	uint64_t ns = 0, res = 0;
	int ret;

	memset(&l, 0, sizeof(l));
	l.kernel = a->app->kernel;
	l.seed = a->cfg->seed;
	l.warps = a->cfg->warps;
	memcpy(l.args, args, sizeof(args[0]) * (size_t)nargs);
	ret = emLaunch(&l);
	if (ret)
		return app_fail(a, "launch", ret);
	ret = emDeviceSynchronize();
	emLastLaunch(&ns, &res);
	if (ret)
		return app_fail(a, "synchronize", ret);
	a->r->sim_ns += ns;
	a->r->result += res;
	a->ret_last = res;
	return 0;
}

static void check(struct app_run *a, uint64_t got, uint64_t want)
{
	a->r->words_checked++;
	if (got != want)
		a->r->mismatches++;
}

static uint64_t pow2_floor(uint64_t x)
{
	uint64_t p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

/* ---- pathfinder: b0 wall (rows x cols u32), b1 two result rows ---- */

static uint32_t pf_wall(const struct app_run *a, uint64_t i)
{
	return gen(a->seed, 1, i) % 10;
}

static int pf_setup(struct app_run *a)
{
	uint64_t rows = a->passes < 2 ? 2 : a->passes > 4096 ? 4096 : a->passes;
	uint64_t cols = (a->foot / 4 / (rows + 2)) & ~31ull;

	a->n[0] = rows;
	a->n[1] = cols < 32 ? 32 : cols;
	return app_alloc(a, 0, a->n[0] * a->n[1] * 4) ||
	       app_alloc(a, 1, 2 * a->n[1] * 4);
}

static void pf_fill(struct app_run *a)
{
	uint64_t i, n = a->n[0] * a->n[1];
	uint32_t *w = w32(a, 0);

	for (i = 0; i < n; i++)
		w[i] = pf_wall(a, i);
	memset(a->b[1].p, 0, a->b[1].bytes);
}

/* row r goes to half (r + 1) % 2 of b1, reading row 0 from the wall */
static int pf_launch(struct app_run *a)
{
	uint64_t r, rows = a->n[0], cols = a->n[1];

	for (r = 1; r < rows; r++) {
		uint64_t args[6] = { va(a, 0), rows, cols, r,
				     r == 1 ? va(a, 0) : va(a, 1) + (r % 2) * cols * 4,
				     va(a, 1) + ((r + 1) % 2) * cols * 4 };

		if (app_launch(a, args, 6))
			return -1;
	}
	return 0;
}

static void pf_verify(struct app_run *a)
{
	uint64_t rows = a->n[0], cols = a->n[1], r, c;
	uint32_t *prev = malloc(cols * 4), *next = malloc(cols * 4), *t, m;
	const uint32_t *w = w32(a, 0), *out;

	if (!prev || !next) {
		app_fail(a, "verify_alloc", -ENOMEM);
		goto out;
	}
	for (c = 0; c < cols; c++)
		prev[c] = pf_wall(a, c);
	for (r = 1; r < rows; r++) {
		for (c = 0; c < cols; c++) {
			m = prev[c];
			if (c > 0 && prev[c - 1] < m)
				m = prev[c - 1];
			if (c + 1 < cols && prev[c + 1] < m)
				m = prev[c + 1];
			next[c] = pf_wall(a, r * cols + c) + m;
		}
		t = prev;
		prev = next;
		next = t;
	}
	out = w32(a, 1) + (rows % 2) * cols;	/* half (rows - 1 + 1) % 2 */
	for (c = 0; c < cols; c++)
		check(a, out[c], prev[c]);
	for (c = 0; c < rows * cols; c++)
		check(a, w[c], pf_wall(a, c));
out:
	free(prev);
	free(next);
}

/* ---- kmeans: b0 points (n x 4 u32), b1 membership, b2 centroids + accum ---- */

#define KM_K	4
#define KM_D	4

static uint32_t km_coord(const struct app_run *a, uint64_t p, unsigned int d)
{
	uint32_t c = gen(a->seed, 2, p) % KM_K;

	return c * 12000 + d * 1500 + gen(a->seed, 3 + d, p) % 9000;
}

static int km_setup(struct app_run *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / 20) & ~31ull;

	a->n[0] = n < 64 ? 64 : n;
	a->n[1] = a->passes ? a->passes : 1;
	return app_alloc(a, 0, a->n[0] * 16) || app_alloc(a, 1, a->n[0] * 4) ||
	       app_alloc(a, 2, 4096);
}

static void km_fill(struct app_run *a)
{
	uint64_t p, n = a->n[0];
	uint32_t *pts = w32(a, 0), *cent = w32(a, 2);
	unsigned int c, d;

	for (p = 0; p < n; p++)
		for (d = 0; d < KM_D; d++)
			pts[p * KM_D + d] = km_coord(a, p, d);
	memset(a->b[1].p, 0, a->b[1].bytes);
	memset(a->b[2].p, 0, a->b[2].bytes);
	for (c = 0; c < KM_K; c++)	/* initial centroids: points c n / 4 */
		for (d = 0; d < KM_D; d++)
			cent[c * KM_D + d] = km_coord(a, c * (n / KM_K), d);
}

static int km_launch(struct app_run *a)
{
	uint64_t it, mode;

	for (it = 0; it < a->n[1]; it++)
		for (mode = 0; mode < 2; mode++) {
			uint64_t args[6] = { va(a, 0), a->n[0], va(a, 2), va(a, 1),
					     va(a, 2) + 128, mode };

			if (app_launch(a, args, 6))
				return -1;
		}
	return 0;
}

/*
 * Points first (regenerated), then Lloyd's iterations over the points in
 * memory, exactly as the device computes them.
 */
static void km_verify(struct app_run *a)
{
	uint64_t n = a->n[0], it, p, dist, best, sums[KM_K][KM_D], cnt[KM_K];
	uint32_t cent[KM_K][KM_D], *memb = malloc(n * 4);
	const uint32_t *dev = w32(a, 2), *pts = w32(a, 0), *dm = w32(a, 1), *pt;
	unsigned int c, d, bc;

	if (!memb) {
		app_fail(a, "verify_alloc", -ENOMEM);
		return;
	}
	for (p = 0; p < n; p++)
		for (d = 0; d < KM_D; d++)
			check(a, pts[p * KM_D + d], km_coord(a, p, d));
	for (c = 0; c < KM_K; c++)
		for (d = 0; d < KM_D; d++)
			cent[c][d] = km_coord(a, c * (n / KM_K), d);
	for (it = 0; it < a->n[1]; it++) {
		memset(sums, 0, sizeof(sums));
		memset(cnt, 0, sizeof(cnt));
		for (p = 0; p < n; p++) {
			pt = pts + p * KM_D;
			best = UINT64_MAX;
			bc = 0;
			for (c = 0; c < KM_K; c++) {
				for (dist = 0, d = 0; d < KM_D; d++) {
					int64_t x = (int64_t)pt[d] - cent[c][d];

					dist += (uint64_t)(x * x);
				}
				if (dist < best) {
					best = dist;
					bc = c;
				}
			}
			memb[p] = bc;
			cnt[bc]++;
			for (d = 0; d < KM_D; d++)
				sums[bc][d] += pt[d];
		}
		for (c = 0; c < KM_K; c++)
			for (d = 0; d < KM_D; d++)
				if (cnt[c])
					cent[c][d] = (uint32_t)(sums[c][d] / cnt[c]);
	}
	for (p = 0; p < n; p++)
		check(a, dm[p], memb[p]);
	for (c = 0; c < KM_K; c++) {
		check(a, dev[16 + c], (uint32_t)cnt[c]);
		for (d = 0; d < KM_D; d++)
			check(a, dev[c * KM_D + d], cent[c][d]);
	}
	for (p = 0; p < 64; p++)	/* accum left zeroed */
		check(a, dev[32 + p], 0);
	free(memb);
}

/* ---- conv: b0 input (3 x h x w u32), b1 output (h x w), b2 weights ---- */

#define CV_CH	3

static uint32_t cv_in(const struct app_run *a, uint64_t i)
{
	return gen(a->seed, 10, i) % 256;
}

static uint32_t cv_wt(const struct app_run *a, uint64_t i)
{
	return (uint32_t)((int32_t)(gen(a->seed, 11, i) % 9) - 4);
}

static int cv_setup(struct app_run *a)
{
	uint64_t w = 1024, h;

	while (w > 32 && a->foot / (16 * w) < 8)
		w /= 2;
	h = a->foot / (16 * w);
	a->n[0] = h < 3 ? 3 : h;
	a->n[1] = w;
	return app_alloc(a, 0, CV_CH * a->n[0] * w * 4) ||
	       app_alloc(a, 1, a->n[0] * w * 4) || app_alloc(a, 2, 4096);
}

static void cv_fill(struct app_run *a)
{
	uint64_t i, n = CV_CH * a->n[0] * a->n[1];
	uint32_t *in = w32(a, 0), *wt = w32(a, 2);

	for (i = 0; i < n; i++)
		in[i] = cv_in(a, i);
	memset(a->b[1].p, 0, a->b[1].bytes);
	memset(a->b[2].p, 0, a->b[2].bytes);
	for (i = 0; i < 9 * CV_CH; i++)
		wt[i] = cv_wt(a, i);
}

static int cv_launch(struct app_run *a)
{
	uint64_t args[6] = { va(a, 0), a->n[0], a->n[1], CV_CH, va(a, 2), va(a, 1) };

	return app_launch(a, args, 6);
}

static void cv_verify(struct app_run *a)
{
	uint64_t h = a->n[0], w = a->n[1], y, x, i;
	const uint32_t *in = w32(a, 0), *out = w32(a, 1), *row, *wr;
	uint32_t wt[9 * CV_CH], *acc = calloc(w, 4);
	int c, dy;

	if (!acc) {
		app_fail(a, "verify_alloc", -ENOMEM);
		return;
	}
	for (i = 0; i < 9 * CV_CH; i++)
		wt[i] = cv_wt(a, i);
	for (i = 0; i < CV_CH * h * w; i++)	/* inputs intact: then use them */
		check(a, in[i], cv_in(a, i));
	for (y = 0; y < h; y++) {
		memset(acc, 0, w * 4);	/* int32 arithmetic, wrapping */
		for (c = 0; c < CV_CH; c++)
			for (dy = -1; dy <= 1; dy++) {
				if ((dy < 0 && y == 0) || (dy > 0 && y + 1 >= h))
					continue;
				row = in + (c * h + y + (uint64_t)(int64_t)dy) * w;
				wr = wt + 9 * c + 3 * (dy + 1);
				acc[0] += wr[1] * row[0] + wr[2] * row[1];
				for (x = 1; x + 1 < w; x++)
					acc[x] += wr[0] * row[x - 1] + wr[1] * row[x] +
						  wr[2] * row[x + 1];
				acc[w - 1] += wr[0] * row[w - 2] + wr[1] * row[w - 1];
			}
		for (x = 0; x < w; x++)
			check(a, out[y * w + x], (int32_t)acc[x] > 0 ? acc[x] : 0);
	}
	free(acc);
}

/* ---- bitonic: b0 keys (G interleaved segments of S lines) ---- */

static int bt_setup(struct app_run *a)
{
	uint64_t lines = a->foot / 128, s = 1ull << (a->passes > 20 ? 20 : a->passes);

	if (lines < 1)
		lines = 1;
	if (s > lines)
		s = pow2_floor(lines);
	a->n[0] = s;			/* segment lines */
	a->n[1] = lines / s;		/* segments */
	return app_alloc(a, 0, a->n[0] * a->n[1] * 128);
}

static void bt_fill(struct app_run *a)
{
	uint64_t i, n = a->n[0] * a->n[1] * 32;
	uint32_t *k = w32(a, 0);

	for (i = 0; i < n; i++)
		k[i] = gen(a->seed, 20, i);
}

static int bt_launch(struct app_run *a)
{
	uint64_t s = a->n[0], bytes = a->n[0] * a->n[1] * 128, k, j;

	{
		uint64_t args[5] = { va(a, 0), bytes, s, 32, 0 };

		if (app_launch(a, args, 5))
			return -1;
	}
	for (k = 64; k <= 32 * s; k *= 2) {
		for (j = k / 2;; j /= 2) {
			uint64_t args[5] = { va(a, 0), bytes, s, k, j >= 32 ? j : 0 };

			if (app_launch(a, args, 5))
				return -1;
			if (j < 32)
				break;
		}
	}
	return 0;
}

/*
 * Every segment ascending, and the same multiset of keys as its input
 * (a sum of mixed keys, which a lost, duplicated or altered key changes):
 * with both, each output word equals the sorted input's.
 */
static void bt_verify(struct app_run *a)
{
	uint64_t s = a->n[0], g = a->n[1], t, x, seg;
	uint64_t *hin = calloc(g, 8), *hout = calloc(g, 8);
	uint32_t *last = calloc(g, 4);
	const uint32_t *k = w32(a, 0);

	if (!hin || !hout || !last) {
		app_fail(a, "verify_alloc", -ENOMEM);
		goto out;
	}
	for (t = 0; t < s * g; t++) {
		seg = t % g;
		for (x = 0; x < 32; x++) {
			uint32_t v = k[t * 32 + x];

			a->r->words_checked++;
			if ((t >= g || x) && v < last[seg])
				a->r->mismatches++;
			last[seg] = v;
			hout[seg] += mix64(v);
			hin[seg] += mix64(gen(a->seed, 20, t * 32 + x));
		}
	}
	for (seg = 0; seg < g; seg++)
		check(a, hout[seg], hin[seg]);
out:
	free(hin);
	free(hout);
	free(last);
}

/* ---- radix: b0 keys, b1 the other buffer, b2 histogram ---- */

#define RX_CHUNKS_MAX	2048

static uint32_t rx_key(const struct app_run *a, uint64_t i)
{
	uint32_t bits = 4 * (uint32_t)a->n[1];

	return bits >= 32 ? gen(a->seed, 30, i) :
	       gen(a->seed, 30, i) & ((1u << bits) - 1);
}

static int rx_setup(struct app_run *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / 8) & ~31ull;

	a->n[0] = n;
	a->n[1] = a->passes < 1 ? 1 : a->passes > 8 ? 8 : a->passes;
	a->n[2] = n / 32 < RX_CHUNKS_MAX ? n / 32 : RX_CHUNKS_MAX;
	return app_alloc(a, 0, n * 4) || app_alloc(a, 1, n * 4) ||
	       app_alloc(a, 2, a->n[2] * 64);
}

static void rx_fill(struct app_run *a)
{
	uint64_t i;
	uint32_t *k = w32(a, 0);

	for (i = 0; i < a->n[0]; i++)
		k[i] = rx_key(a, i);
	memset(a->b[1].p, 0, a->b[1].bytes);
	memset(a->b[2].p, 0, a->b[2].bytes);
}

static int rx_launch(struct app_run *a)
{
	uint64_t p, mode;

	for (p = 0; p < a->n[1]; p++)
		for (mode = 0; mode < 3; mode++) {
			uint64_t args[7] = { va(a, p % 2), a->n[0], va(a, 1 - p % 2),
					     va(a, 2), 4 * p, mode, a->n[2] };

			if (app_launch(a, args, 7))
				return -1;
		}
	return 0;
}

static void rx_verify(struct app_run *a)
{
	uint64_t n = a->n[0], i, hin = 0, hout = 0, pos = 0;
	uint32_t bits = 4 * (uint32_t)a->n[1], v, *cnt;
	const uint32_t *k = w32(a, a->n[1] % 2);

	if (bits <= 16) {	/* exact: the counting-sort reference */
		cnt = calloc(1u << bits, 4);
		if (!cnt) {
			app_fail(a, "verify_alloc", -ENOMEM);
			return;
		}
		for (i = 0; i < n; i++)
			cnt[rx_key(a, i)]++;
		for (v = 0; v < (1u << bits); v++)
			while (cnt[v]--)
				check(a, k[pos++], v);
		free(cnt);
		return;
	}
	for (i = 0; i < n; i++) {	/* sorted, same multiset */
		a->r->words_checked++;
		if (i && k[i] < k[i - 1])
			a->r->mismatches++;
		hout += mix64(k[i]);
		hin += mix64(rx_key(a, i));
	}
	check(a, hout, hin);
}

/* ---- bfs: b0 row_ptr (u64), b1 col (u64), b2 level (u32) ---- */

static uint32_t bfs_deg(const struct app_run *a, uint64_t v)
{
	return 4 + gen(a->seed, 40, v) % 9;	/* 4..12, mean 8 */
}

static uint64_t bfs_nbr(const struct app_run *a, uint64_t e)
{
	return (((uint64_t)gen(a->seed, 41, e) << 32) | gen(a->seed, 42, e)) % a->n[0];
}

static int bfs_setup(struct app_run *a)
{
	uint64_t v = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / 76) & ~31ull;
	uint64_t i, e = 0;

	a->n[0] = v < 32 ? 32 : v;
	for (i = 0; i < a->n[0]; i++)
		e += bfs_deg(a, i);
	a->n[1] = e;
	return app_alloc(a, 0, (a->n[0] + 1) * 8) || app_alloc(a, 1, e * 8) ||
	       app_alloc(a, 2, a->n[0] * 4);
}

static void bfs_fill(struct app_run *a)
{
	uint64_t v, e = 0, d, *rp = a->b[0].p, *col = a->b[1].p;
	uint32_t *lev = w32(a, 2);

	for (v = 0; v < a->n[0]; v++) {
		rp[v] = e;
		for (d = bfs_deg(a, v); d; d--, e++)
			col[e] = bfs_nbr(a, e);
		lev[v] = UNVISITED;
	}
	rp[v] = e;
	lev[0] = 0;
}

static int bfs_launch(struct app_run *a)
{
	uint64_t cur;

	for (cur = 0; cur < a->n[0]; cur++) {
		uint64_t args[6] = { va(a, 0), a->n[0], va(a, 1), a->n[1],
				     va(a, 2), cur };

		if (app_launch(a, args, 6))
			return -1;
		if (!a->ret_last)
			break;
	}
	a->n[2] = cur;		/* levels */
	return 0;
}

static void bfs_verify(struct app_run *a)
{
	uint64_t nv = a->n[0], v, e = 0, d, k;
	const uint64_t *rp = a->b[0].p, *col = a->b[1].p;
	const uint32_t *lev = w32(a, 2);
	uint32_t *ref = malloc(nv * 4), *q = malloc(nv * 4), qh = 0, qt = 0, x;

	if (!ref || !q) {
		app_fail(a, "verify_alloc", -ENOMEM);
		goto out;
	}
	for (v = 0; v < nv; v++) {	/* the graph intact, then BFS over it */
		check(a, rp[v], e);
		for (d = bfs_deg(a, v); d; d--, e++)
			check(a, col[e], bfs_nbr(a, e));
		ref[v] = UNVISITED;
	}
	check(a, rp[nv], e);
	ref[0] = 0;
	q[qt++] = 0;
	while (qh < qt) {
		x = q[qh++];
		for (k = rp[x]; k < rp[x + 1] && k < a->n[1]; k++)
			if (col[k] < nv && ref[col[k]] == UNVISITED) {
				ref[col[k]] = ref[x] + 1;
				q[qt++] = (uint32_t)col[k];
			}
	}
	for (v = 0; v < nv; v++) {
		check(a, lev[v], ref[v]);
		a->r->expected_result += ref[v] != UNVISITED;
	}
	a->r->result_ok = a->r->result == a->r->expected_result;
out:
	free(ref);
	free(q);
}

/* ---- gemv: b0 weights (n x n int8), b1 the token vectors (tokens + 1) ---- */

static int8_t gv_w(const struct app_run *a, uint64_t i)
{
	return (int8_t)(gen(a->seed, 50, i) % 16) - 8;
}

static int gv_setup(struct app_run *a)
{
	uint64_t budget = a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB, n = 128;

	while ((n + 128) * (n + 128) <= budget)
		n += 128;
	a->n[0] = n;
	a->n[1] = a->passes ? a->passes : 1;
	return app_alloc(a, 0, n * n) || app_alloc(a, 1, (a->n[1] + 1) * n);
}

static void gv_fill(struct app_run *a)
{
	uint64_t i, n = a->n[0];
	int8_t *w = a->b[0].p, *x = a->b[1].p;

	for (i = 0; i < n * n; i++)
		w[i] = gv_w(a, i);
	memset(a->b[1].p, 0, a->b[1].bytes);
	for (i = 0; i < n; i++)
		x[i] = (int8_t)gen(a->seed, 51, i);
}

static int gv_launch(struct app_run *a)
{
	uint64_t t, n = a->n[0];

	for (t = 0; t < a->n[1]; t++) {
		uint64_t args[6] = { va(a, 0), n, n, va(a, 1) + t * n,
				     va(a, 1) + (t + 1) * n, 7 };

		if (app_launch(a, args, 6))
			return -1;
	}
	return 0;
}

static void gv_verify(struct app_run *a)
{
	uint64_t n = a->n[0], t, r, c;
	const int8_t *w = a->b[0].p, *dev = a->b[1].p, *row;
	int8_t *x = malloc(n), *y = malloc(n), *tmp;
	uint32_t acc;

	if (!x || !y) {
		app_fail(a, "verify_alloc", -ENOMEM);
		goto out;
	}
	for (r = 0; r < n * n; r++)	/* weights intact: then use them */
		check(a, (uint8_t)w[r], (uint8_t)gv_w(a, r));
	for (c = 0; c < n; c++)
		x[c] = (int8_t)gen(a->seed, 51, c);
	for (t = 0; t < a->n[1]; t++) {
		for (r = 0; r < n; r++) {
			row = w + r * n;
			for (acc = 0, c = 0; c < n; c++)
				acc += (uint32_t)(row[c] * x[c]);
			y[r] = (int8_t)(uint8_t)(acc >> 7);
			check(a, (uint8_t)dev[(t + 1) * n + r], (uint8_t)y[r]);
		}
		tmp = x;
		x = y;
		y = tmp;
	}
out:
	free(x);
	free(y);
}

/* ---- colscan: b0 table (6 columns), b1 per-query per-line sums ---- */

enum { CS_DATE, CS_DISC, CS_QTY, CS_PRICE, CS_REV, CS_COST, CS_COLS };
#define CS_NONE		0xffu
#define CS_QUERIES	4

/* SSB flight 1 (q1.1-q1.3) and a q4-like query: filters, then a x b */
static const uint32_t cs_q[CS_QUERIES][11] = {
	/* f1 lo hi, f2 lo hi, f3 lo hi, a, b */
	{ CS_DATE, 365, 729, CS_DISC, 1, 3, CS_QTY, 1, 24, CS_PRICE, CS_DISC },
	{ CS_DATE, 730, 760, CS_DISC, 4, 6, CS_QTY, 26, 35, CS_PRICE, CS_DISC },
	{ CS_DATE, 1100, 1106, CS_DISC, 5, 7, CS_QTY, 26, 35, CS_PRICE, CS_DISC },
	{ CS_DATE, 1461, 2191, CS_COST, 0, 50000, CS_NONE, 0, 0, CS_REV, CS_NONE },
};

static uint32_t cs_val(const struct app_run *a, unsigned int col, uint64_t i)
{
	uint32_t h = gen(a->seed, 60 + col, i);

	switch (col) {
	case CS_DATE:	return h % 2557;	/* days 1992-01-01 .. 1998-12-31 */
	case CS_DISC:	return h % 11;
	case CS_QTY:	return 1 + h % 50;
	case CS_PRICE:	return 90000 + h % 10000000;
	case CS_REV:	return h % 10000000;
	default:	return 10000 + h % 100000;
	}
}

static int cs_setup(struct app_run *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) /
		      (4 * CS_COLS)) & ~511ull;

	a->n[0] = n < 512 ? 512 : n;
	a->n[1] = a->passes < 1 ? 1 : a->passes > 8 ? 8 : a->passes;
	return app_alloc(a, 0, CS_COLS * a->n[0] * 4) ||
	       app_alloc(a, 1, a->n[1] * a->n[0] / 4);
}

static void cs_fill(struct app_run *a)
{
	uint64_t i, n = a->n[0];
	uint32_t *t = w32(a, 0);
	unsigned int c;

	for (c = 0; c < CS_COLS; c++)
		for (i = 0; i < n; i++)
			t[c * n + i] = cs_val(a, c, i);
	memset(a->b[1].p, 0, a->b[1].bytes);
}

static int cs_launch(struct app_run *a)
{
	uint64_t q, n = a->n[0];

	for (q = 0; q < a->n[1]; q++) {
		const uint32_t *d = cs_q[q % CS_QUERIES];
		uint64_t args[8] = {
			va(a, 0), n, CS_COLS, va(a, 1) + q * (n / 4),
			d[0] | (uint64_t)d[3] << 8 | (uint64_t)d[6] << 16 |
			(uint64_t)d[9] << 24 | (uint64_t)d[10] << 32,
			d[1] | (uint64_t)d[2] << 32, d[4] | (uint64_t)d[5] << 32,
			d[7] | (uint64_t)d[8] << 32,
		};

		if (app_launch(a, args, 8))
			return -1;
	}
	return 0;
}

static void cs_verify(struct app_run *a)
{
	uint64_t n = a->n[0], q, i, x, sum;
	const uint32_t *t = w32(a, 0);
	const uint64_t *out = a->b[1].p;
	unsigned int c, f;

	for (c = 0; c < CS_COLS; c++)	/* the table intact: then use it */
		for (i = 0; i < n; i++)
			check(a, t[c * n + i], cs_val(a, c, i));
	for (q = 0; q < a->n[1]; q++) {
		const uint32_t *d = cs_q[q % CS_QUERIES];

		for (i = 0; i < n / 32; i++) {
			for (sum = 0, x = i * 32; x < i * 32 + 32; x++) {
				int ok = 1;

				for (f = 0; f < 3; f++)
					if (d[3 * f] != CS_NONE &&
					    (t[d[3 * f] * n + x] < d[3 * f + 1] ||
					     t[d[3 * f] * n + x] > d[3 * f + 2]))
						ok = 0;
				if (ok)
					sum += (uint64_t)t[d[9] * n + x] *
					       (d[10] != CS_NONE ? t[d[10] * n + x] : 1);
			}
			check(a, out[q * (n / 32) + i], sum);
		}
	}
}

/* ---- the table ---- */

static const struct em_app apps[] = {
	{ "pathfinder", EMGPU_KERNEL_PATHFINDER, 32, pf_setup, pf_fill, pf_launch, pf_verify },
	{ "kmeans", EMGPU_KERNEL_KMEANS, 5, km_setup, km_fill, km_launch, km_verify },
	{ "cnn", EMGPU_KERNEL_CONV, 1, cv_setup, cv_fill, cv_launch, cv_verify },
	{ "conv", EMGPU_KERNEL_CONV, 1, cv_setup, cv_fill, cv_launch, cv_verify },
	{ "bitonic", EMGPU_KERNEL_BITONIC, 5, bt_setup, bt_fill, bt_launch, bt_verify },
	{ "bitonic_sort", EMGPU_KERNEL_BITONIC, 5, bt_setup, bt_fill, bt_launch, bt_verify },
	{ "radix", EMGPU_KERNEL_RADIX, 4, rx_setup, rx_fill, rx_launch, rx_verify },
	{ "radix_sort", EMGPU_KERNEL_RADIX, 4, rx_setup, rx_fill, rx_launch, rx_verify },
	{ "bfs", EMGPU_KERNEL_BFS, 1, bfs_setup, bfs_fill, bfs_launch, bfs_verify },
	{ "gemv", EMGPU_KERNEL_GEMV, 8, gv_setup, gv_fill, gv_launch, gv_verify },
	{ "llm", EMGPU_KERNEL_GEMV, 8, gv_setup, gv_fill, gv_launch, gv_verify },
	{ "colscan", EMGPU_KERNEL_COLSCAN, 4, cs_setup, cs_fill, cs_launch, cs_verify },
	{ "ssb", EMGPU_KERNEL_COLSCAN, 4, cs_setup, cs_fill, cs_launch, cs_verify },
};

static const struct em_app *app_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(apps) / sizeof(apps[0]); i++)
		if (!strcmp(apps[i].name, name))
			return &apps[i];
	return NULL;
}

int em_app_is_app(const char *name)
{
	return app_find(name) != NULL;
}

const char *em_app_names(void)
{
	return "pathfinder|kmeans|cnn|bitonic|radix|bfs|gemv|colscan";
}

static double wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t ptimer(void)
{
	struct ember_device_info info;

	return emGetDeviceInfo(&info) ? 0 : info.ptimer_ns;
}

int em_app_run(const struct em_wl_config *cfg, struct em_wl_result *r,
	       em_app_variant_fn variant)
{
	struct app_run a;
	double tm[6];
	size_t total;
	uint64_t t0;
	int i, ret, phase;

	memset(r, 0, sizeof(*r));
	memset(&a, 0, sizeof(a));
	r->result_ok = -1;
	a.cfg = cfg;
	a.r = r;
	a.app = app_find(cfg->kernel);
	a.seed = cfg->seed;
	if (!a.app)
		return app_fail(&a, "kernel", -EINVAL);
	a.passes = cfg->passes ? cfg->passes : a.app->def_passes;
	if (strcmp(cfg->variant, "uvm") && strcmp(cfg->variant, "prefetch") &&
	    strcmp(cfg->variant, "mapped") && strcmp(cfg->variant, "static"))
		return app_fail(&a, "variant", -EINVAL);
	ret = emMemGetInfo(NULL, &total);
	if (ret)
		return app_fail(&a, "mem_get_info", ret);
	r->vram = total;
	a.foot = (uint64_t)(cfg->factor * (double)total);
	if (a.foot < 4 * MiB)
		a.foot = 4 * MiB;

	tm[0] = wall_ms();
	if (a.app->setup(&a))
		goto out;
	for (i = 0; i < APP_BUFS; i++)
		if (a.b[i].p && variant(cfg->variant, a.b[i].p, a.b[i].bytes, r, 0))
			goto out;
	tm[1] = wall_ms();
	a.app->fill(&a);
	tm[2] = wall_ms();
	t0 = ptimer();
	for (phase = 1, i = 0; i < APP_BUFS; i++)
		if (a.b[i].p && variant(cfg->variant, a.b[i].p, a.b[i].bytes, r, phase))
			goto out;
	r->setup_ns = ptimer() - t0;
	tm[3] = wall_ms();
	if (a.app->launch(&a))
		goto out;
	tm[4] = wall_ms();
	a.app->verify(&a);
	tm[5] = wall_ms();
	/* guest wall time of each step, for whoever tunes the sizes */
	fprintf(stderr, "ember-run: %s setup %.0f fill %.0f prefetch %.0f "
		"launches %.0f verify %.0f ms\n", a.app->name, tm[1] - tm[0],
		tm[2] - tm[1], tm[3] - tm[2], tm[4] - tm[3], tm[5] - tm[4]);
out:
	emGetStats(&r->stats, 0);
	for (i = 0; i < APP_BUFS; i++)
		if (a.b[i].p)
			emFree(a.b[i].p);
	return r->ret;
}

void em_app_json(FILE *f, const struct em_wl_config *cfg,
		 const struct em_wl_result *r)
{
	const struct em_app *app = app_find(cfg->kernel);
	uint32_t passes;

	if (!app)
		return;
	passes = cfg->passes ? cfg->passes : app->def_passes;
	fprintf(f, ",\"app\":\"%s\",\"passes\":%u,\"launches\":%llu", app->name,
		passes, (unsigned long long)r->stats.launches);
	if (app->kernel == EMGPU_KERNEL_GEMV)
		fprintf(f, ",\"tokens\":%u,\"tokens_per_s\":%.3f", passes,
			r->sim_ns ? passes * 1e9 / (double)r->sim_ns : 0.0);
}
