// SPDX-License-Identifier: MIT
/*
 * radix's CPU side (app_inputs.h): sizes, inputs, the CPU reference, digest and the
 * check after a failed launch.
 * The kernel: models/src/kernels/radix.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/* ---- radix: b0 keys, b1 the other buffer, b2 histogram ---- */

static uint32_t rx_key(const struct em_app_data *a, uint64_t i)
{
	uint32_t bits = 4 * (uint32_t)a->n[1];

	return bits >= 32 ? gen(a->seed, 30, i) :
	       gen(a->seed, 30, i) & ((1u << bits) - 1);
}

static void rx_size(struct em_app_data *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / 8) & ~31ull;

	a->n[0] = n;
	a->n[1] = a->passes < 1 ? 1 : a->passes > 8 ? 8 : a->passes;
	a->n[2] = n / 32 < EM_RX_CHUNKS_MAX ? n / 32 : EM_RX_CHUNKS_MAX;
	set_bytes(a, 0, n * 4);
	set_bytes(a, 1, n * 4);
	set_bytes(a, 2, a->n[2] * 64);
}

static void rx_fill(struct em_app_data *a)
{
	uint64_t i;
	uint32_t *k = w32(a, 0);

	for (i = 0; i < a->n[0]; i++)
		k[i] = rx_key(a, i);
	memset(a->p[1], 0, a->bytes[1]);
	memset(a->p[2], 0, a->bytes[2]);
}

static int rx_verify(struct em_app_data *a)
{
	uint64_t n = a->n[0], i, hin = 0, hout = 0, pos = 0;
	uint32_t bits = 4 * (uint32_t)a->n[1], v, *cnt;
	const uint32_t *k = w32(a, a->n[1] % 2);

	if (bits <= 16) {	/* exact: the counting-sort reference */
		cnt = calloc(1u << bits, 4);
		if (!cnt)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			cnt[rx_key(a, i)]++;
		for (v = 0; v < (1u << bits); v++)
			while (cnt[v]--)
				check(a, k[pos++], v);
		free(cnt);
		return 0;
	}
	for (i = 0; i < n; i++) {	/* sorted, same multiset */
		a->words_checked++;
		if (i && k[i] < k[i - 1])
			a->mismatches++;
		hout += gm_mix64(k[i]);
		hin += gm_mix64(rx_key(a, i));
	}
	check(a, hout, hin);
	return 0;
}

/* One pass of the LSD sort: in stably by the digit at shift, into out. */
static void rx_ref_pass(const uint32_t *in, uint32_t *out, uint64_t n,
			uint32_t shift)
{
	uint64_t at[16] = { 0 }, i, base = 0, c;
	int d;

	for (i = 0; i < n; i++)
		at[in[i] >> shift & 15]++;
	for (d = 0; d < 16; d++) {
		c = at[d];
		at[d] = base;
		base += c;
	}
	for (i = 0; i < n; i++)
		out[at[in[i] >> shift & 15]++] = in[i];
}

/* The passes as the device runs them, b0 and b1 in turn: sorted keys in b[passes % 2]. */
static int rx_expect(struct em_app_data *a)
{
	uint64_t p;

	for (p = 0; p < a->n[1]; p++)
		rx_ref_pass(w32(a, p % 2), w32(a, 1 - p % 2), a->n[0], 4 * (uint32_t)p);
	return 0;
}

/* past 16 bits verify() also checks the sum of keys: equal where every key is */
static void rx_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	digest_words(f, a->p[a->n[1] % 2], a->n[0], 4);
	f->words += 4 * a->n[1] > 16;
}

/*
 * The histogram the pass at shift leaves over keys (the pass's source),
 * chunks x 16 u32: each chunk's digit counts (mode 0), or after the scan
 * (idx) the output index of its first key of each digit.
 */
static void rx_ref_hist(const struct em_app_data *a, const uint32_t *keys,
			uint32_t shift, int idx, uint32_t *h)
{
	uint64_t chunks = a->n[2], lines = a->n[0] / 32, c, i;
	uint32_t base[16] = { 0 }, t;
	int d;

	memset(h, 0, chunks * 64);
	for (c = 0; c < chunks; c++)
		for (i = c * lines / chunks * 32; i < (c + 1) * lines / chunks * 32; i++)
			h[c * 16 + (keys[i] >> shift & 15)]++;
	if (!idx)
		return;
	for (c = 0; c < chunks; c++)
		for (d = 0; d < 15; d++)
			base[d + 1] += h[c * 16 + d];
	for (d = 1; d < 16; d++)
		base[d] += base[d - 1];
	for (c = 0; c < chunks; c++)
		for (d = 0; d < 16; d++) {
			t = h[c * 16 + d];
			h[c * 16 + d] = base[d];
			base[d] += t;
		}
}

/*
 * After launch done (pass p = done / 3, mode done % 3) failed. The pass's
 * source, buffer p % 2, is only read by it: the keys after p passes,
 * word for word. Its destination holds what pass p - 1 left there (the
 * keys after p - 1 passes; zeros before pass 1), and while the scatter
 * ran, each word that or its key after pass p (the scatter's stores put
 * every key at its final index; a word is the unit). The histogram:
 * before the count, the previous scan's indexes (zeros before pass 0);
 * the count and the scan store a chunk's 16 words at once, so during the
 * count each chunk holds the old row or its counts, during the scan its
 * counts or indexes, and the scatter only reads the indexes.
 */
static int rx_verify_failed(struct em_app_data *a, uint64_t done,
			    const uint8_t *const lost[EM_APP_BUFS])
{
	uint64_t n = a->n[0], p = done / 3, mode = done % 3, q, i;
	uint64_t rows = a->n[2] * 16, src = p % 2, dst = 1 - p % 2;
	uint32_t *prev = calloc(n, 4), *cur = malloc(n * 4), *next = NULL;
	uint32_t *h_old = calloc(rows, 4), *h_cnt = malloc(rows * 4);
	uint32_t *h_idx = malloc(rows * 4), *t;
	static const uint32_t zero[16];
	struct unit u = { 0 };
	int ret = 0;

	if (p >= a->n[1]) {
		ret = -EINVAL;
		goto out;
	}
	if (mode == 2)
		next = malloc(n * 4);
	if (!prev || !cur || !h_old || !h_cnt || !h_idx || (mode == 2 && !next)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		cur[i] = rx_key(a, i);
	for (q = 0; q < p; q++) {
		t = prev;
		prev = cur;
		cur = t;
		rx_ref_pass(prev, cur, n, 4 * (uint32_t)q);
	}
	if (p)
		rx_ref_hist(a, prev, 4 * (uint32_t)(p - 1), 1, h_old);
	rx_ref_hist(a, cur, 4 * (uint32_t)p, 0, h_cnt);
	rx_ref_hist(a, cur, 4 * (uint32_t)p, 1, h_idx);
	if (next)
		rx_ref_pass(cur, next, n, 4 * (uint32_t)p);

	unit_add(&u, w32(a, src), lost[src], 0, cur, cur, n);
	unit_end(a, &u);
	for (i = 0; i < n; i++) {
		unit_add(&u, w32(a, dst), lost[dst], i, prev + i, next ? next + i : prev + i, 1);
		unit_end(a, &u);
	}
	for (i = 0; i < rows; i += 16) {
		unit_add(&u, w32(a, 2), lost[2], i,
			 (mode == 0 ? h_old : mode == 1 ? h_cnt : h_idx) + i,
			 (mode == 0 ? h_cnt : h_idx) + i, 16);
		unit_end(a, &u);
	}
	/* the rest of the histogram's last line: no launch writes it */
	for (i = rows; i < a->bytes[2] / 4; i += 16) {
		unit_add(&u, w32(a, 2), lost[2], i, zero, zero, 16);
		unit_end(a, &u);
	}
out:
	free(prev);
	free(cur);
	free(next);
	free(h_old);
	free(h_cnt);
	free(h_idx);
	return ret;
}

const struct em_app_ref em_app_radix = { "radix", 4, rx_size, rx_fill, rx_verify,
					  rx_verify_failed, rx_expect, rx_digest };
