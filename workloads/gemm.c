// SPDX-License-Identifier: MIT
/*
 * gemm's CPU side (app_inputs.h): sizes, inputs, the CPU reference.
 * The kernel: models/src/kernels/gemm.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/*
 * gemm: b0 A (m x k int8), b1 B (k x n int8), b2 C (m x n int32); -p = m.
 * Tiled over k (EM_GM_TILE rows of B a launch), as a blocked GEMM keeps a
 * tile of B as its working set.
 */
#define GM_K		EM_GM_K

static void gm_size(struct em_app_data *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / GM_K) & ~31ull;

	a->n[0] = a->passes;		/* rows of A and C: passes over B */
	a->n[1] = n < 32 ? 32 : n;
	set_bytes(a, 0, a->n[0] * GM_K);
	set_bytes(a, 1, GM_K * a->n[1]);
	set_bytes(a, 2, a->n[0] * a->n[1] * 4);
}

static void gm_fill(struct em_app_data *a)
{
	uint64_t i;
	int8_t *ap = a->p[0], *bp = a->p[1];

	for (i = 0; i < a->n[0] * GM_K; i++)
		ap[i] = ar_a(a, 72, i);
	for (i = 0; i < GM_K * a->n[1]; i++)
		bp[i] = ar_a(a, 73, i);
	memset(a->p[2], 0, a->bytes[2]);
}

static int gm_verify(struct em_app_data *a)
{
	uint64_t m = a->n[0], n = a->n[1], i, j, p;
	const int8_t *ap = a->p[0], *bp = a->p[1];
	uint32_t *row = calloc(n, 4);

	if (!row)
		return -ENOMEM;
	ar_check_input(a, ap, m * GM_K, 72);
	ar_check_input(a, bp, GM_K * n, 73);
	for (i = 0; i < m; i++) {
		memset(row, 0, n * 4);
		for (p = 0; p < GM_K; p++) {
			for (j = 0; j < n; j++)
				row[j] += (uint32_t)(ap[i * GM_K + p] * bp[p * n + j]);
			/* each tile's launch sums the C lines it stored */
			if ((p + 1) % EM_GM_TILE == 0)
				for (j = 0; j < n; j++)
					a->expected_result += row[j];
		}
		for (j = 0; j < n; j++)
			check(a, w32(a, 2)[i * n + j], row[j]);
	}
	a->result_ok = a->result == a->expected_result;
	free(row);
	return 0;
}

const struct em_app_ref em_app_gemm = { "gemm", 4, gm_size, gm_fill, gm_verify, NULL, NULL, NULL };
