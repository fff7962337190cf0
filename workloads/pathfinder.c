// SPDX-License-Identifier: MIT
/*
 * pathfinder's CPU side (app_inputs.h): sizes, inputs, the CPU reference and digest.
 * The kernel: models/src/kernels/pathfinder.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/* ---- pathfinder: b0 wall (rows x cols u32), b1 two result rows ---- */

static uint32_t pf_wall(const struct em_app_data *a, uint64_t i)
{
	return gen(a->seed, 1, i) % 10;
}

static void pf_size(struct em_app_data *a)
{
	uint64_t rows = a->passes < 2 ? 2 : a->passes > 4096 ? 4096 : a->passes;
	uint64_t cols = (a->foot / 4 / (rows + 2)) & ~31ull;

	a->n[0] = rows;
	a->n[1] = cols < 32 ? 32 : cols;
	set_bytes(a, 0, a->n[0] * a->n[1] * 4);
	set_bytes(a, 1, 2 * a->n[1] * 4);
}

static void pf_fill(struct em_app_data *a)
{
	uint64_t i, n = a->n[0] * a->n[1];
	uint32_t *w = w32(a, 0);

	for (i = 0; i < n; i++)
		w[i] = pf_wall(a, i);
	memset(a->p[1], 0, a->bytes[1]);
}

/* The reference's rows, prev starting as row 0; returns the buffer holding the last. */
static uint32_t *pf_ref(const struct em_app_data *a, uint32_t *prev, uint32_t *next)
{
	uint64_t rows = a->n[0], cols = a->n[1], r, c;
	uint32_t *t, m;

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
	return prev;
}

/* the last row goes to half (rows - 1 + 1) % 2 of b1 */
static uint32_t *pf_out(const struct em_app_data *a)
{
	return w32(a, 1) + (a->n[0] % 2) * a->n[1];
}

static int pf_verify(struct em_app_data *a)
{
	int ret = 0;
	uint64_t rows = a->n[0], cols = a->n[1], c;
	uint32_t *prev = malloc(cols * 4), *next = malloc(cols * 4);
	const uint32_t *w = w32(a, 0), *out = pf_out(a), *last;

	if (!prev || !next) {
		ret = -ENOMEM;
		goto out;
	}
	last = pf_ref(a, prev, next);
	for (c = 0; c < cols; c++)
		check(a, out[c], last[c]);
	for (c = 0; c < rows * cols; c++)
		check(a, w[c], pf_wall(a, c));
out:
	free(prev);
	free(next);
	return ret;
}

static int pf_expect(struct em_app_data *a)
{
	uint64_t cols = a->n[1];
	uint32_t *prev = malloc(cols * 4), *next = malloc(cols * 4);

	if (prev && next)
		memcpy(pf_out(a), pf_ref(a, prev, next), cols * 4);
	free(prev);
	free(next);
	return prev && next ? 0 : -ENOMEM;
}

static void pf_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	digest_words(f, pf_out(a), a->n[1], 4);
	digest_words(f, a->p[0], a->n[0] * a->n[1], 4);
}

const struct em_app_ref em_app_pathfinder = { "pathfinder", 32, pf_size, pf_fill, pf_verify, NULL,
						pf_expect, pf_digest };
