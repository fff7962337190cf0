// SPDX-License-Identifier: MIT
/*
 * bitonic's CPU side (app_inputs.h): sizes, inputs, the CPU reference, digest and the
 * check after a failed launch.
 * The kernel: models/src/kernels/bitonic.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

/* ---- bitonic: b0 keys (G interleaved segments of S lines) ---- */

static void bt_size(struct em_app_data *a)
{
	uint64_t lines = a->foot / 128, s = 1ull << (a->passes > 20 ? 20 : a->passes);

	if (lines < 1)
		lines = 1;
	if (s > lines)
		s = pow2_floor(lines);
	a->n[0] = s;			/* segment lines */
	a->n[1] = lines / s;		/* segments */
	set_bytes(a, 0, a->n[0] * a->n[1] * 128);
}

static void bt_fill(struct em_app_data *a)
{
	uint64_t i, n = a->n[0] * a->n[1] * 32;
	uint32_t *k = w32(a, 0);

	for (i = 0; i < n; i++)
		k[i] = gen(a->seed, 20, i);
}

/*
 * Every segment ascending, and the same multiset of keys as its input
 * (a sum of mixed keys, which a lost, duplicated or altered key changes):
 * with both, each output word equals the sorted input's.
 */
static int bt_verify(struct em_app_data *a)
{
	int ret = 0;
	uint64_t s = a->n[0], g = a->n[1], t, x, seg;
	uint64_t *hin = calloc(g, 8), *hout = calloc(g, 8);
	uint32_t *last = calloc(g, 4);
	const uint32_t *k = w32(a, 0);

	if (!hin || !hout || !last) {
		ret = -ENOMEM;
		goto out;
	}
	for (t = 0; t < s * g; t++) {
		seg = t % g;
		for (x = 0; x < 32; x++) {
			uint32_t v = k[t * 32 + x];

			a->words_checked++;
			if ((t >= g || x) && v < last[seg])
				a->mismatches++;
			last[seg] = v;
			hout[seg] += gm_mix64(v);
			hin[seg] += gm_mix64(gen(a->seed, 20, t * 32 + x));
		}
	}
	for (seg = 0; seg < g; seg++)
		check(a, hout[seg], hin[seg]);
out:
	free(hin);
	free(hout);
	free(last);
	return ret;
}

/* Sorts n keys ascending (LSD radix, a byte a pass); tmp: n words. */
static void sort_u32(uint32_t *v, uint32_t *tmp, uint64_t n)
{
	uint64_t at[256], i, base, c;
	uint32_t *src = v, *dst = tmp, *t;
	unsigned int shift;
	int d;

	for (shift = 0; shift < 32; shift += 8) {
		memset(at, 0, sizeof(at));
		for (i = 0; i < n; i++)
			at[src[i] >> shift & 255]++;
		for (base = 0, d = 0; d < 256; d++) {
			c = at[d];
			at[d] = base;
			base += c;
		}
		for (i = 0; i < n; i++)
			dst[at[src[i] >> shift & 255]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	/* four passes: the keys are back in v */
}

/* Each segment's keys sorted, line t of segment t % g in element order. */
static int bt_expect(struct em_app_data *a)
{
	uint64_t s = a->n[0], g = a->n[1], seg, l;
	uint32_t *v = malloc(s * 128), *tmp = malloc(s * 128), *k = w32(a, 0);

	for (seg = 0; v && tmp && seg < g; seg++) {
		for (l = 0; l < s; l++)
			memcpy(v + l * 32, k + (seg + g * l) * 32, 128);
		sort_u32(v, tmp, s * 32);
		for (l = 0; l < s; l++)
			memcpy(k + (seg + g * l) * 32, v + l * 32, 128);
	}
	free(v);
	free(tmp);
	return v && tmp ? 0 : -ENOMEM;
}

/* verify() also checks each segment's sum of keys: equal where every key is */
static void bt_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	digest_words(f, a->p[0], a->n[0] * a->n[1] * 32, 4);
	f->words += a->n[1];
}

int em_app_bitonic_launch(const struct em_app_data *a, uint64_t i, uint64_t *k,
			  uint64_t *j)
{
	uint64_t kk, jj, n = 1;

	if (!i) {
		*k = 32;
		*j = 0;
		return 1;
	}
	for (kk = 64; kk <= 32 * a->n[0]; kk *= 2)
		for (jj = kk / 2;; jj /= 2) {
			if (n++ == i) {
				*k = kk;
				*j = jj >= 32 ? jj : 0;
				return 1;
			}
			if (jj < 32)
				break;
		}
	return 0;
}

/*
 * Launch (k, j) of the network (em_app_bitonic_launch) on the keys of one
 * segment, in element order: its stages as the textbook network writes
 * them, element e against e + jj where (e & jj) == 0, ascending where
 * (e & kk) == 0.
 */
static void bt_ref_launch(uint32_t *v, uint64_t elems, uint64_t k, uint64_t j)
{
	uint64_t kk, jj, e;
	uint32_t t;

	for (kk = k == 32 ? 2 : k; kk <= k; kk *= 2)
		for (jj = j ? j : (kk / 2 < 16 ? kk / 2 : 16); jj >= (j ? j : 1);
		     jj /= 2)
			for (e = 0; e < elems; e++)
				if (!(e & jj) && (v[e] > v[e + jj]) == !(e & kk)) {
					t = v[e];
					v[e] = v[e + jj];
					v[e + jj] = t;
				}
}

/*
 * After launch done failed. The unit: a line (j == 0), or the two lines of
 * a compare-exchange (j >= 32), which the model's kernel loads, then
 * stores, in one step; a step's stores cannot fault (both lines were
 * loaded for writing in that step), and hangs and poison take effect
 * only between steps (models/src/sm.c), so a failure leaves a pair
 * swapped or not, never torn. Per segment: its input, the launches before
 * done, and done.
 */
static int bt_verify_failed(struct em_app_data *a, uint64_t done,
			    const uint8_t *const lost[EM_APP_BUFS])
{
	uint64_t s = a->n[0], gs = a->n[1], g, e, i, k, j, rk, rj, jl, sa, l;
	uint32_t *before = malloc(s * 128), *after = malloc(s * 128);
	const uint32_t *keys = w32(a, 0);
	struct unit u = { 0 };
	int ret = 0;

	if (!em_app_bitonic_launch(a, done, &k, &j)) {
		ret = -EINVAL;
		goto out;
	}
	if (!before || !after) {
		ret = -ENOMEM;
		goto out;
	}
	jl = j / 32;
	for (g = 0; g < gs; g++) {
		for (e = 0; e < s * 32; e++)
			before[e] = gen(a->seed, 20, (g + gs * (e / 32)) * 32 + e % 32);
		for (i = 0; i < done && em_app_bitonic_launch(a, i, &rk, &rj); i++)
			bt_ref_launch(before, s * 32, rk, rj);
		memcpy(after, before, s * 128);
		bt_ref_launch(after, s * 32, k, j);
		for (sa = 0; sa < s; sa++) {
			if (jl && (sa & jl))
				continue;	/* the upper line of a pair */
			for (l = sa; l <= sa + jl; l += jl ? jl : 1)
				unit_add(&u, keys, lost[0], (g + gs * l) * 32, before + l * 32,
					 after + l * 32, 32);
			unit_end(a, &u);
		}
	}
out:
	free(before);
	free(after);
	return ret;
}

const struct em_app_ref em_app_bitonic = { "bitonic", 5, bt_size, bt_fill, bt_verify,
					    bt_verify_failed, bt_expect, bt_digest };
