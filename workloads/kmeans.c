// SPDX-License-Identifier: MIT
/*
 * kmeans's CPU side (app_inputs.h): sizes, inputs, the CPU reference and digest.
 * The kernel: models/src/kernels/kmeans.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/* ---- kmeans: b0 points (n x 4 u32), b1 membership, b2 centroids + accum ---- */

/* point p's cluster's corner; its coordinates lie within 9000 above */
static uint32_t km_base(const struct em_app_data *a, uint64_t p)
{
	return gen(a->seed, 2, p) % EM_KM_K * 12000;
}

static uint32_t km_offset(const struct em_app_data *a, uint64_t p, unsigned int d)
{
	return d * 1500 + gen(a->seed, 3 + d, p) % 9000;
}

static uint32_t km_coord(const struct em_app_data *a, uint64_t p, unsigned int d)
{
	return km_base(a, p) + km_offset(a, p, d);
}

static void km_size(struct em_app_data *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / 20) & ~31ull;

	a->n[0] = n < 64 ? 64 : n;
	a->n[1] = a->passes ? a->passes : 1;
	set_bytes(a, 0, a->n[0] * 16);
	set_bytes(a, 1, a->n[0] * 4);
	set_bytes(a, 2, 4096);
}

static void km_fill(struct em_app_data *a)
{
	uint64_t p, n = a->n[0];
	uint32_t *pts = w32(a, 0), *cent = w32(a, 2);
	unsigned int c, d;

	for (p = 0; p < n; p++) {
		uint32_t base = km_base(a, p);	/* once a point: cheaper under TCG */

		for (d = 0; d < EM_KM_D; d++)
			pts[p * EM_KM_D + d] = base + km_offset(a, p, d);
	}
	memset(a->p[1], 0, a->bytes[1]);
	memset(a->p[2], 0, a->bytes[2]);
	for (c = 0; c < EM_KM_K; c++)	/* initial centroids: points c n / 4 */
		for (d = 0; d < EM_KM_D; d++)
			cent[c * EM_KM_D + d] = km_coord(a, c * (n / EM_KM_K), d);
}

/*
 * Lloyd's iterations over the points in memory, exactly as the device
 * computes them: each point's cluster in the last iteration, the
 * centroids after it and its cluster sizes.
 */
static void km_ref(const struct em_app_data *a, const uint32_t *pts, uint32_t *memb,
		   uint32_t cent[EM_KM_K][EM_KM_D], uint64_t cnt[EM_KM_K])
{
	uint64_t n = a->n[0], it, p, dist, best, sums[EM_KM_K][EM_KM_D];
	uint32_t prev[EM_KM_K][EM_KM_D];
	const uint32_t *pt;
	unsigned int c, d, bc;
	int lt;

	for (c = 0; c < EM_KM_K; c++)
		for (d = 0; d < EM_KM_D; d++)
			cent[c][d] = km_coord(a, c * (n / EM_KM_K), d);
	for (it = 0; it < a->n[1]; it++) {
		/*
		 * Centroids an iteration left unchanged give every later one
		 * the same memberships, counts and centroids: stop there.
		 */
		if (it && !memcmp(prev, cent, sizeof(prev)))
			break;
		memcpy(prev, cent, sizeof(prev));
		memset(sums, 0, sizeof(sums));
		memset(cnt, 0, EM_KM_K * sizeof(cnt[0]));
		for (p = 0; p < n; p++) {
			pt = pts + p * EM_KM_D;
			best = UINT64_MAX;
			bc = 0;
			for (c = 0; c < EM_KM_K; c++) {
				for (dist = 0, d = 0; d < EM_KM_D; d++) {
					int64_t x = (int64_t)pt[d] - cent[c][d];

					dist += (uint64_t)(x * x);
				}
				lt = dist < best;	/* no branch: the clusters are random */
				best = lt ? dist : best;
				bc = lt ? c : bc;
			}
			memb[p] = bc;
			cnt[bc]++;
			for (d = 0; d < EM_KM_D; d++)
				sums[bc][d] += pt[d];
		}
		for (c = 0; c < EM_KM_K; c++)
			for (d = 0; d < EM_KM_D; d++)
				if (cnt[c])
					cent[c][d] = (uint32_t)(sums[c][d] / cnt[c]);
	}
}

/* Points first (regenerated), then the reference over the points in memory. */
static int km_verify(struct em_app_data *a)
{
	uint64_t n = a->n[0], p, cnt[EM_KM_K];
	uint32_t cent[EM_KM_K][EM_KM_D], *memb = malloc(n * 4);
	const uint32_t *dev = w32(a, 2), *pts = w32(a, 0), *dm = w32(a, 1);
	unsigned int c, d;

	if (!memb)
		return -ENOMEM;
	for (p = 0; p < n; p++)
		for (d = 0; d < EM_KM_D; d++)
			check(a, pts[p * EM_KM_D + d], km_coord(a, p, d));
	km_ref(a, pts, memb, cent, cnt);
	for (p = 0; p < n; p++)
		check(a, dm[p], memb[p]);
	for (c = 0; c < EM_KM_K; c++) {
		check(a, dev[16 + c], (uint32_t)cnt[c]);
		for (d = 0; d < EM_KM_D; d++)
			check(a, dev[c * EM_KM_D + d], cent[c][d]);
	}
	for (p = 0; p < 64; p++)	/* accum left zeroed */
		check(a, dev[32 + p], 0);
	free(memb);
	return 0;
}

/* fill() left the accumulators zeroed */
static int km_expect(struct em_app_data *a)
{
	uint64_t cnt[EM_KM_K];
	uint32_t cent[EM_KM_K][EM_KM_D], *dev = w32(a, 2);
	unsigned int c;

	km_ref(a, w32(a, 0), w32(a, 1), cent, cnt);
	memcpy(dev, cent, sizeof(cent));
	for (c = 0; c < EM_KM_K; c++)
		dev[16 + c] = (uint32_t)cnt[c];
	return 0;
}

/* b2: the centroids and counts (words 0..19), the accumulators (32..95) */
static void km_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	digest_words(f, a->p[0], a->n[0] * EM_KM_D, 4);
	digest_words(f, a->p[1], a->n[0], 4);
	digest_words(f, w32(a, 2), 20, 4);
	digest_words(f, w32(a, 2) + 32, 64, 4);
}

const struct em_app_ref em_app_kmeans = { "kmeans", 5, km_size, km_fill, km_verify, NULL,
					   km_expect, km_digest };
