// SPDX-License-Identifier: MIT
/*
 * gemv's CPU side (app_inputs.h): sizes, inputs, the CPU reference.
 * The kernel: models/src/kernels/gemv.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/* ---- gemv: b0 weights (n x n int8), b1 the token vectors (tokens + 1) ---- */

static int8_t gv_w(const struct em_app_data *a, uint64_t i)
{
	return (int8_t)(gen(a->seed, 50, i) % 16) - 8;
}

static void gv_size(struct em_app_data *a)
{
	uint64_t budget = a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB, n = 128;

	while ((n + 128) * (n + 128) <= budget)
		n += 128;
	a->n[0] = n;
	a->n[1] = a->passes ? a->passes : 1;
	set_bytes(a, 0, n * n);
	set_bytes(a, 1, (a->n[1] + 1) * n);
}

static void gv_fill(struct em_app_data *a)
{
	uint64_t i, n = a->n[0];
	int8_t *w = a->p[0], *x = a->p[1];

	for (i = 0; i < n * n; i++)
		w[i] = gv_w(a, i);
	memset(a->p[1], 0, a->bytes[1]);
	for (i = 0; i < n; i++)
		x[i] = (int8_t)gen(a->seed, 51, i);
}

static int gv_verify(struct em_app_data *a)
{
	int ret = 0;
	uint64_t n = a->n[0], t, r, c;
	const int8_t *w = a->p[0], *dev = a->p[1], *row;
	int8_t *x = malloc(n), *y = malloc(n), *tmp;
	uint32_t acc;

	if (!x || !y) {
		ret = -ENOMEM;
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
	return ret;
}

const struct em_app_ref em_app_gemv = { "gemv", 8, gv_size, gv_fill, gv_verify, NULL, NULL, NULL };
