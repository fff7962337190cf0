// SPDX-License-Identifier: MIT
/*
 * conv's CPU side (app_inputs.h): sizes, inputs, the CPU reference and digest.
 * The kernel: models/src/kernels/conv.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/* ---- conv: b0 input (3 x h x w u32), b1 output (h x w), b2 weights ---- */

static uint32_t cv_in(const struct em_app_data *a, uint64_t i)
{
	return gen(a->seed, 10, i) % 256;
}

static uint32_t cv_wt(const struct em_app_data *a, uint64_t i)
{
	return (uint32_t)((int32_t)(gen(a->seed, 11, i) % 9) - 4);
}

static void cv_size(struct em_app_data *a)
{
	uint64_t w = 1024, h;

	while (w > 32 && a->foot / (16 * w) < 8)
		w /= 2;
	h = a->foot / (16 * w);
	a->n[0] = h < 3 ? 3 : h;
	a->n[1] = w;
	set_bytes(a, 0, EM_CV_CH * a->n[0] * w * 4);
	set_bytes(a, 1, a->n[0] * w * 4);
	set_bytes(a, 2, 4096);
}

static void cv_fill(struct em_app_data *a)
{
	uint64_t i, n = EM_CV_CH * a->n[0] * a->n[1];
	uint32_t *in = w32(a, 0), *wt = w32(a, 2);

	for (i = 0; i < n; i++)
		in[i] = cv_in(a, i);
	memset(a->p[1], 0, a->bytes[1]);
	memset(a->p[2], 0, a->bytes[2]);
	for (i = 0; i < 9 * EM_CV_CH; i++)
		wt[i] = cv_wt(a, i);
}

/* Row y of the output before the ReLU into acc (w words; int32, wrapping). */
static void cv_ref_row(const struct em_app_data *a, const uint32_t *in,
		       const uint32_t *wt, uint64_t y, uint32_t *acc)
{
	uint64_t h = a->n[0], w = a->n[1], x;
	const uint32_t *row, *wr;
	int c, dy;

	memset(acc, 0, w * 4);
	for (c = 0; c < EM_CV_CH; c++)
		for (dy = -1; dy <= 1; dy++) {
			if ((dy < 0 && y == 0) || (dy > 0 && y + 1 >= h))
				continue;
			row = in + (c * h + y + (uint64_t)(int64_t)dy) * w;
			wr = wt + 9 * c + 3 * (dy + 1);
			acc[0] += wr[1] * row[0] + wr[2] * row[1];
			for (x = 1; x + 1 < w; x++)
				acc[x] += wr[0] * row[x - 1] + wr[1] * row[x] + wr[2] * row[x + 1];
			acc[w - 1] += wr[0] * row[w - 2] + wr[1] * row[w - 1];
		}
}

static uint32_t cv_relu(uint32_t v)
{
	return (int32_t)v > 0 ? v : 0;
}

static int cv_verify(struct em_app_data *a)
{
	uint64_t h = a->n[0], w = a->n[1], y, x, i;
	const uint32_t *in = w32(a, 0), *out = w32(a, 1);
	uint32_t wt[9 * EM_CV_CH], *acc = calloc(w, 4);

	if (!acc)
		return -ENOMEM;
	for (i = 0; i < 9 * EM_CV_CH; i++)
		wt[i] = cv_wt(a, i);
	for (i = 0; i < EM_CV_CH * h * w; i++)	/* inputs intact: then use them */
		check(a, in[i], cv_in(a, i));
	for (y = 0; y < h; y++) {
		cv_ref_row(a, in, wt, y, acc);
		for (x = 0; x < w; x++)
			check(a, out[y * w + x], cv_relu(acc[x]));
	}
	free(acc);
	return 0;
}

static int cv_expect(struct em_app_data *a)
{
	uint64_t w = a->n[1], y, x;
	uint32_t *out = w32(a, 1);

	for (y = 0; y < a->n[0]; y++) {
		cv_ref_row(a, w32(a, 0), w32(a, 2), y, out + y * w);
		for (x = 0; x < w; x++)
			out[y * w + x] = cv_relu(out[y * w + x]);
	}
	return 0;
}

/* the weights in b2 are regenerated, not read */
static void cv_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	digest_words(f, a->p[0], EM_CV_CH * a->n[0] * a->n[1], 4);
	digest_words(f, a->p[1], a->n[0] * a->n[1], 4);
}

const struct em_app_ref em_app_conv = { "conv", 1, cv_size, cv_fill, cv_verify, NULL,
					 cv_expect, cv_digest };
