// SPDX-License-Identifier: MIT
/*
 * bfs's CPU side (app_inputs.h): sizes, inputs, the CPU reference and digest.
 * The kernel: models/src/kernels/bfs.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_common.h"

/* ---- bfs: b0 row_ptr (u64), b1 col (u64), b2 level (u32) ---- */

static uint32_t bfs_deg(const struct em_app_data *a, uint64_t v)
{
	return 4 + gen(a->seed, 40, v) % 9;	/* 4..12, mean 8 */
}

static uint64_t bfs_nbr(const struct em_app_data *a, uint64_t e)
{
	return (((uint64_t)gen(a->seed, 41, e) << 32) | gen(a->seed, 42, e)) % a->n[0];
}

static void bfs_size(struct em_app_data *a)
{
	uint64_t v = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / 76) & ~31ull;
	uint64_t i, e = 0;

	a->n[0] = v < 32 ? 32 : v;
	for (i = 0; i < a->n[0]; i++)
		e += bfs_deg(a, i);
	a->n[1] = e;
	set_bytes(a, 0, (a->n[0] + 1) * 8);
	set_bytes(a, 1, e * 8);
	set_bytes(a, 2, a->n[0] * 4);
}

static void bfs_fill(struct em_app_data *a)
{
	uint64_t v, e = 0, d, *rp = a->p[0], *col = a->p[1];
	uint32_t *lev = w32(a, 2);

	for (v = 0; v < a->n[0]; v++) {
		rp[v] = e;
		for (d = bfs_deg(a, v); d; d--, e++)
			col[e] = bfs_nbr(a, e);
		lev[v] = EM_APP_UNVISITED;
	}
	rp[v] = e;
	lev[0] = 0;
}

/*
 * Levels by BFS from vertex 0 over the graph in memory into ref; q: nv
 * words. Visited vertices are also marked in a bitmap (nv / 8 bytes),
 * which stays in cache where ref, read at random per edge, would not.
 * -ENOMEM or 0.
 */
static int bfs_ref(const struct em_app_data *a, const uint64_t *rp, const uint64_t *col,
		   uint32_t *ref, uint32_t *q)
{
	uint64_t nv = a->n[0], v, k, c;
	uint64_t *seen = calloc(nv / 64 + 1, 8);
	uint32_t qh = 0, qt = 0, x;

	if (!seen)
		return -ENOMEM;
	for (v = 0; v < nv; v++)
		ref[v] = EM_APP_UNVISITED;
	ref[0] = 0;
	seen[0] = 1;
	q[qt++] = 0;
	while (qh < qt) {
		x = q[qh++];
		for (k = rp[x]; k < rp[x + 1] && k < a->n[1]; k++) {
			c = col[k];
			if (c < nv && !(seen[c / 64] >> (c % 64) & 1)) {
				seen[c / 64] |= 1ull << (c % 64);
				ref[c] = ref[x] + 1;
				q[qt++] = (uint32_t)c;
			}
		}
	}
	free(seen);
	return 0;
}

static int bfs_verify(struct em_app_data *a)
{
	int ret = 0;
	uint64_t nv = a->n[0], v, e = 0, d;
	const uint64_t *rp = a->p[0], *col = a->p[1];
	const uint32_t *lev = w32(a, 2);
	uint32_t *ref = malloc(nv * 4), *q = malloc(nv * 4);

	if (!ref || !q) {
		ret = -ENOMEM;
		goto out;
	}
	for (v = 0; v < nv; v++) {	/* the graph intact, then BFS over it */
		check(a, rp[v], e);
		for (d = bfs_deg(a, v); d; d--, e++)
			check(a, col[e], bfs_nbr(a, e));
	}
	check(a, rp[nv], e);
	ret = bfs_ref(a, rp, col, ref, q);
	for (v = 0; !ret && v < nv; v++) {
		check(a, lev[v], ref[v]);
		a->expected_result += ref[v] != EM_APP_UNVISITED;
	}
	if (!ret)
		a->result_ok = a->result == a->expected_result;
out:
	free(ref);
	free(q);
	return ret;
}

static int bfs_expect(struct em_app_data *a)
{
	uint32_t *q = malloc(a->n[0] * 4), *lev = w32(a, 2);
	uint64_t v;

	if (!q || bfs_ref(a, a->p[0], a->p[1], lev, q)) {
		free(q);
		return -ENOMEM;
	}
	for (a->expected_result = 0, v = 0; v < a->n[0]; v++)
		a->expected_result += lev[v] != EM_APP_UNVISITED;
	a->result_ok = 0;
	free(q);
	return 0;
}

/* in bfs_verify()'s order: each vertex's offset, then its edges */
static void bfs_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	const uint64_t *rp = a->p[0], *col = a->p[1];
	uint64_t v, e = 0, d;

	for (v = 0; v < a->n[0]; v++, e += d) {
		d = bfs_deg(a, v);
		digest_words(f, rp + v, 1, 8);
		digest_words(f, col + e, d, 8);
	}
	digest_words(f, rp + a->n[0], 1, 8);
	digest_words(f, a->p[2], a->n[0], 4);
}

const struct em_app_ref em_app_bfs = { "bfs", 1, bfs_size, bfs_fill, bfs_verify, NULL,
					bfs_expect, bfs_digest };
