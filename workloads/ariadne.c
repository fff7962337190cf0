// SPDX-License-Identifier: MIT
/*
 * What ARIADNE's workloads (HPCA'26: sparse, dense and mixed sharing
 * degrees) share: gemvrow.c and atax.c their sizes and inputs (A, x),
 * those two and decode.c the CPU GEMV, all four and gemm.c the check of
 * an int8 input. The generator ar_a() and AR_COLS are in app_common.h.
 */
#include <string.h>

#include "app_common.h"

uint64_t ar_gemv(const int8_t *w, const int8_t *x, uint64_t rows, uint64_t cols,
		 int8_t *y)
{
	uint64_t r, c, sum = 0;
	uint32_t acc;

	for (r = 0; r < rows; r++) {
		for (acc = 0, c = 0; c < cols; c++)
			acc += (uint32_t)(w[r * cols + c] * x[c]);
		y[r] = (int8_t)(uint8_t)(acc >> 7);
		sum += acc;
	}
	return sum;
}

void ar_check_input(struct em_app_data *a, const int8_t *p, uint64_t n, uint64_t salt)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		check(a, (uint8_t)p[i], (uint8_t)ar_a(a, salt, i));
}

void ar_size(struct em_app_data *a, uint64_t align)
{
	uint64_t rows = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / AR_COLS) &
			~(align - 1);

	a->n[0] = rows < align ? align : rows;
	a->n[1] = a->passes;
	set_bytes(a, 0, a->n[0] * AR_COLS);
	set_bytes(a, 1, AR_COLS);
	set_bytes(a, 2, a->n[0]);
}

void ar_fill(struct em_app_data *a)
{
	uint64_t i;
	int8_t *w = a->p[0], *x = a->p[1];

	for (i = 0; i < a->n[0] * AR_COLS; i++)
		w[i] = ar_a(a, 70, i);
	for (i = 0; i < AR_COLS; i++)
		x[i] = ar_a(a, 71, i);
	memset(a->p[2], 0, a->bytes[2]);
}
