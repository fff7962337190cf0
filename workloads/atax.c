// SPDX-License-Identifier: MIT
/*
 * atax's CPU side (app_inputs.h): sizes, inputs, the CPU reference (A
 * and x, their sizes and the CPU GEMV are ariadne.c's). The kernels:
 * models/src/kernels/gemv.c and gemvt.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/* atax: as ar_size() (rows a multiple of GEMVT's 128), b3 y = A^T tmp (int32) */
static void ax_size(struct em_app_data *a)
{
	ar_size(a, 128);
	set_bytes(a, 3, AR_COLS * 4);
}

static void ax_fill(struct em_app_data *a)
{
	ar_fill(a);
	memset(a->p[3], 0, a->bytes[3]);
}

static int ax_verify(struct em_app_data *a)
{
	uint64_t rows = a->n[0], r, c, sum = 0;
	const int8_t *w = a->p[0];
	int8_t *t = malloc(rows);
	uint32_t *y = calloc(AR_COLS, 4);

	if (!t || !y) {
		free(t);
		free(y);
		return -ENOMEM;
	}
	ar_check_input(a, w, rows * AR_COLS, 70);
	ar_check_input(a, a->p[1], AR_COLS, 71);
	sum = ar_gemv(w, a->p[1], rows, AR_COLS, t);
	for (r = 0; r < rows; r++) {
		check(a, ((uint8_t *)a->p[2])[r], (uint8_t)t[r]);
		for (c = 0; c < AR_COLS; c++)
			y[c] += (uint32_t)(w[r * AR_COLS + c] * t[r]);
	}
	for (c = 0; c < AR_COLS; c++) {
		check(a, w32(a, 3)[c], y[c]);
		sum += y[c];
	}
	a->expected_result = a->n[1] * sum;
	a->result_ok = a->result == a->expected_result;
	free(t);
	free(y);
	return 0;
}

const struct em_app_ref em_app_atax = { "atax", 2, ax_size, ax_fill, ax_verify, NULL, NULL, NULL };
