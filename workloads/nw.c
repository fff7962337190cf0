// SPDX-License-Identifier: MIT
/*
 * nw's CPU side (app_inputs.h): sizes, inputs, the CPU reference.
 * The kernel: models/src/kernels/nw.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/* nw: b0 H ((n + 1) x (n + 32) int32, see nw.c), b1 ref (n x n int32) */
#define NW_GAP		10

static int32_t nw_ref(const struct em_app_data *a, uint64_t i)
{
	return (int32_t)(gen(a->seed, 74, i) % 21) - 10;
}

static void nw_size(struct em_app_data *a)
{
	uint64_t budget = a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB, n = 32;

	while ((n + 33) * (n + 64) * 4 + (n + 32) * (n + 32) * 4 <= budget)
		n += 32;
	a->n[0] = n;
	set_bytes(a, 0, (n + 1) * (n + 32) * 4);
	set_bytes(a, 1, n * n * 4);
}

static void nw_fill(struct em_app_data *a)
{
	uint64_t n = a->n[0], w = n + 32, i;
	int32_t *h = a->p[0], *ref = a->p[1];

	memset(a->p[0], 0, a->bytes[0]);
	for (i = 0; i <= n; i++) {
		h[i * w + 31] = -(int32_t)i * NW_GAP;
		h[31 + i] = -(int32_t)i * NW_GAP;
	}
	for (i = 0; i < n * n; i++)
		ref[i] = nw_ref(a, i);
}

static int nw_verify(struct em_app_data *a)
{
	uint64_t n = a->n[0], w = n + 32, i, j;
	const int32_t *h = a->p[0], *ref = a->p[1];
	int32_t *prev = malloc((n + 1) * 4), *cur = malloc((n + 1) * 4), *tmp, m;

	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -ENOMEM;
	}
	for (i = 0; i < n * n; i++)
		check(a, (uint32_t)ref[i], (uint32_t)nw_ref(a, i));
	for (j = 0; j <= n; j++)
		prev[j] = -(int32_t)j * NW_GAP;
	for (i = 1; i <= n; i++) {
		cur[0] = -(int32_t)i * NW_GAP;
		for (j = 1; j <= n; j++) {
			m = prev[j - 1] + ref[(i - 1) * n + j - 1];
			if (prev[j] - NW_GAP > m)
				m = prev[j] - NW_GAP;
			if (cur[j - 1] - NW_GAP > m)
				m = cur[j - 1] - NW_GAP;
			cur[j] = m;
			check(a, (uint32_t)h[i * w + 31 + j], (uint32_t)m);
			a->expected_result += (uint32_t)m;
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	a->result_ok = a->result == a->expected_result;
	free(prev);
	free(cur);
	return 0;
}

const struct em_app_ref em_app_nw = { "nw", 1, nw_size, nw_fill, nw_verify, NULL, NULL, NULL };
