// SPDX-License-Identifier: MIT
/*
 * colscan's CPU side (app_inputs.h): sizes, inputs, the CPU reference;
 * its table and scan reference serve ssb.c too.
 * The kernel: models/src/kernels/colscan.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <string.h>

#include "app_common.h"

/* ---- colscan: b0 table (6 columns), b1 per-query per-line sums ---- */

enum { CS_DATE, CS_DISC, CS_QTY, CS_PRICE, CS_REV, CS_COST };

/* SSB flight 1 (q1.1-q1.3) and a q4-like query: filters, then a x b */
static const uint32_t cs_q[EM_CS_QUERIES][11] = {
	/* f1 lo hi, f2 lo hi, f3 lo hi, a, b */
	{ CS_DATE, 365, 729, CS_DISC, 1, 3, CS_QTY, 1, 24, CS_PRICE, CS_DISC },
	{ CS_DATE, 730, 760, CS_DISC, 4, 6, CS_QTY, 26, 35, CS_PRICE, CS_DISC },
	{ CS_DATE, 1100, 1106, CS_DISC, 5, 7, CS_QTY, 26, 35, CS_PRICE, CS_DISC },
	{ CS_DATE, 1461, 2191, CS_COST, 0, 50000, EM_CS_NONE, 0, 0, CS_REV, EM_CS_NONE },
};

uint32_t cs_val(const struct em_app_data *a, unsigned int col, uint64_t i)
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

static void cs_size(struct em_app_data *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) /
		      (4 * EM_CS_COLS)) & ~511ull;

	a->n[0] = n < 512 ? 512 : n;
	a->n[1] = a->passes < 1 ? 1 : a->passes > 8 ? 8 : a->passes;
	set_bytes(a, 0, EM_CS_COLS * a->n[0] * 4);
	set_bytes(a, 1, a->n[1] * a->n[0] / 4);
}

/* A column scan's table b0 (cols x n[0] rows) filled, its output b1 zeroed. */
void cs_table_fill(struct em_app_data *a, unsigned int cols, col_val_fn val)
{
	uint64_t i, n = a->n[0];
	uint32_t *t = w32(a, 0);
	unsigned int c;

	for (c = 0; c < cols; c++)
		for (i = 0; i < n; i++)
			t[c * n + i] = val(a, c, i);
	memset(a->p[1], 0, a->bytes[1]);
}

/* The table still holds its inputs (a scan only reads it). */
void cs_table_check(struct em_app_data *a, unsigned int cols, col_val_fn val)
{
	uint64_t i, n = a->n[0];
	const uint32_t *t = w32(a, 0);
	unsigned int c;

	for (c = 0; c < cols; c++)
		for (i = 0; i < n; i++)
			check(a, t[c * n + i], val(a, c, i));
}

static void cs_fill(struct em_app_data *a)
{
	cs_table_fill(a, EM_CS_COLS, cs_val);
}

/*
 * The CPU reference of one colscan query d (f1 lo hi, f2 lo hi, f3 lo hi,
 * a, b) over the n-row table t: checks out[i], the sum of line i.
 */
void cs_scan_check(struct em_app_data *a, const uint32_t *t, uint64_t n,
		       const uint32_t *d, const uint64_t *out)
{
	uint64_t i, x, sum;
	unsigned int f;

	for (i = 0; i < n / 32; i++) {
		for (sum = 0, x = i * 32; x < i * 32 + 32; x++) {
			int ok = 1;

			for (f = 0; f < 3; f++)
				if (d[3 * f] != EM_CS_NONE &&
				    (t[d[3 * f] * n + x] < d[3 * f + 1] ||
				     t[d[3 * f] * n + x] > d[3 * f + 2]))
					ok = 0;
			if (ok)
				sum += (uint64_t)t[d[9] * n + x] *
				       (d[10] != EM_CS_NONE ? t[d[10] * n + x] : 1);
		}
		check(a, out[i], sum);
	}
}

static int cs_verify(struct em_app_data *a)
{
	uint64_t n = a->n[0], q;
	const uint32_t *t = w32(a, 0);
	const uint64_t *out = a->p[1];

	cs_table_check(a, EM_CS_COLS, cs_val);	/* the table intact: then use it */
	for (q = 0; q < a->n[1]; q++)
		cs_scan_check(a, t, n, cs_q[q % EM_CS_QUERIES], out + q * (n / 32));
	return 0;
}

/* The kernel's args[4..7] of query d (colscan.c). */
void cs_scan_args(const uint32_t *d, uint64_t args[4])
{
	args[0] = d[0] | (uint64_t)d[3] << 8 | (uint64_t)d[6] << 16 |
		  (uint64_t)d[9] << 24 | (uint64_t)d[10] << 32;
	args[1] = d[1] | (uint64_t)d[2] << 32;
	args[2] = d[4] | (uint64_t)d[5] << 32;
	args[3] = d[7] | (uint64_t)d[8] << 32;
}

void em_app_colscan_query(uint64_t q, uint64_t args[4])
{
	cs_scan_args(cs_q[q % EM_CS_QUERIES], args);
}

const struct em_app_ref em_app_colscan = { "colscan", 4, cs_size, cs_fill, cs_verify, NULL, NULL, NULL };
