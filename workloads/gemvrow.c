// SPDX-License-Identifier: MIT
/*
 * gemvrow's CPU side (app_inputs.h): sizes, inputs, the CPU reference
 * (the inputs A and x, their sizes and the CPU GEMV are ariadne.c's).
 * The kernel: models/src/kernels/gemv.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>

#include "app_common.h"

/* gemvrow: as ar_size(), 32 rows a warp; -p iterations */
static void gr_size(struct em_app_data *a)
{
	ar_size(a, 32);
}

static int gr_verify(struct em_app_data *a)
{
	uint64_t rows = a->n[0], r;
	int8_t *y = malloc(rows);

	if (!y)
		return -ENOMEM;
	ar_check_input(a, a->p[0], rows * AR_COLS, 70);
	ar_check_input(a, a->p[1], AR_COLS, 71);
	a->expected_result = a->n[1] * ar_gemv(a->p[0], a->p[1], rows, AR_COLS, y);
	for (r = 0; r < rows; r++)
		check(a, ((uint8_t *)a->p[2])[r], (uint8_t)y[r]);
	a->result_ok = a->result == a->expected_result;
	free(y);
	return 0;
}

const struct em_app_ref em_app_gemvrow = { "gemvrow", 2, gr_size, ar_fill, gr_verify, NULL, NULL, NULL };
