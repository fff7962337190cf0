// SPDX-License-Identifier: MIT
/*
 * decode's CPU side (app_inputs.h): sizes, inputs, the CPU reference (the
 * int8 generator and GEMV reference are ariadne.c's).
 * The kernel: models/src/kernels/gemv.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/*
 * decode: an LLM decode step as PyTorch runs it. Each of L layers has a
 * weight matrix (d x d int8) and a KV cache (ctx x d int8); a caching
 * allocator packs them, in creation order, first fit, into EM_DC_POOLS
 * large managed pools (b0..b2), as PyTorch's allocator serves tensors
 * from a few cudaMallocManaged blocks; b3 holds the activations. Per token
 * and layer: h = W x (projection), s = KV h (attention scores), x = h
 * for the next layer; the last layer's h is the next token's input.
 */
static uint64_t dc_tensor_bytes(const struct em_app_data *a, uint64_t t)
{
	uint64_t d = a->n[0];

	return (t % 2 ? a->n[3] : d) * d;	/* W_l, then KV_l */
}

uint64_t em_app_decode_tensor(const struct em_app_data *a, uint64_t t, int *pool,
			      uint64_t *off)
{
	uint64_t used[EM_DC_POOLS] = { 0 }, i, bytes;
	int p;

	for (i = 0; i <= t; i++) {
		bytes = (dc_tensor_bytes(a, i) + 511) & ~511ull;
		for (p = 0; p < EM_DC_POOLS - 1 && used[p] + bytes > a->bytes[p]; p++)
			;
		*pool = p;
		*off = used[p];
		used[p] += bytes;
	}
	return dc_tensor_bytes(a, t);
}

static void dc_size(struct em_app_data *a)
{
	uint64_t budget = a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB;
	uint64_t d = 2048, ctx = 1024, layer = (d + ctx) * d, layers, pool;
	int p;

	/* the pools' rounding and first-fit waste: under a tensor and 2 MiB each */
	layers = budget > EM_DC_POOLS * (d * d + 2 * MiB) + layer ?
		 (budget - EM_DC_POOLS * (d * d + 2 * MiB)) / layer : 1;
	a->n[0] = d;
	a->n[1] = layers;
	a->n[2] = a->passes;		/* tokens */
	a->n[3] = ctx;
	/* each pool's waste is under one tensor: all fit */
	pool = (a->n[1] * layer / EM_DC_POOLS + d * d + 2 * MiB - 1) & ~(2 * MiB - 1);
	for (p = 0; p < EM_DC_POOLS; p++)
		set_bytes(a, p, pool);
	set_bytes(a, 3, em_app_decode_act(a, a->n[2], 0, 1));	/* the end */
}

/* Offset in b3 of token t's layer-l output h (s: its scores). */
uint64_t em_app_decode_act(const struct em_app_data *a, uint64_t t, uint64_t l,
			   int scores)
{
	uint64_t d = a->n[0], steps = a->n[2] * a->n[1], step = t * a->n[1] + l;

	return scores ? d * (1 + steps) + a->n[3] * step : d * (1 + step);
}

static int8_t *dc_tensor(const struct em_app_data *a, uint64_t t)
{
	uint64_t off;
	int p;

	em_app_decode_tensor(a, t, &p, &off);
	return (int8_t *)a->p[p] + off;
}

static void dc_fill(struct em_app_data *a)
{
	uint64_t t, i, bytes;
	int p;
	int8_t *x = a->p[3];

	for (p = 0; p < EM_DC_POOLS; p++)
		memset(a->p[p], 0, a->bytes[p]);
	for (t = 0; t < 2 * a->n[1]; t++) {
		int8_t *w = dc_tensor(a, t);

		bytes = dc_tensor_bytes(a, t);
		for (i = 0; i < bytes; i++)
			w[i] = ar_a(a, 80 + t, i);
	}
	memset(a->p[3], 0, a->bytes[3]);
	for (i = 0; i < a->n[0]; i++)
		x[i] = ar_a(a, 79, i) * 16;
}

static int dc_verify(struct em_app_data *a)
{
	uint64_t d = a->n[0], ctx = a->n[3], t, l, i;
	const int8_t *act = a->p[3];
	int8_t *x = malloc(d), *h = malloc(d), *s = malloc(ctx);

	if (!x || !h || !s) {
		free(x);
		free(h);
		free(s);
		return -ENOMEM;
	}
	for (t = 0; t < 2 * a->n[1]; t++)
		ar_check_input(a, dc_tensor(a, t), dc_tensor_bytes(a, t), 80 + t);
	for (i = 0; i < d; i++)
		x[i] = ar_a(a, 79, i) * 16;
	for (t = 0; t < a->n[2]; t++)
		for (l = 0; l < a->n[1]; l++) {
			a->expected_result += ar_gemv(dc_tensor(a, 2 * l), x, d, d, h);
			a->expected_result += ar_gemv(dc_tensor(a, 2 * l + 1), h, ctx, d, s);
			for (i = 0; i < d; i++)
				check(a, (uint8_t)act[em_app_decode_act(a, t, l, 0) + i],
				      (uint8_t)h[i]);
			for (i = 0; i < ctx; i++)
				check(a, (uint8_t)act[em_app_decode_act(a, t, l, 1) + i],
				      (uint8_t)s[i]);
			memcpy(x, h, d);
		}
	a->result_ok = a->result == a->expected_result;
	free(x);
	free(h);
	free(s);
	return 0;
}

const struct em_app_ref em_app_decode = { "decode", 4, dc_size, dc_fill, dc_verify, NULL, NULL, NULL };
