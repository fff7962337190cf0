// SPDX-License-Identifier: MIT
/*
 * The applications' sizes, inputs and CPU references (app_inputs.h), shared
 * by libember's apps and the CUDA programs of cuda/apps/. The kernels they
 * feed are models/src/kernels/<app>.c (the testbed) and cuda/apps/ (a card);
 * each app's comment names its buffers and sizes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_inputs.h"

#define MiB		(1024ull * 1024)

/* ---- helpers ---- */

/* Cheap deterministic input generator: a multiply-xorshift of (seed, salt, i). */
static uint32_t gen(uint64_t seed, uint64_t salt, uint64_t i)
{
	uint64_t h = (i + (seed << 20) + (salt << 52)) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * Folds bytes into a verification digest (em_app_verify), 8 at a time:
 * each step is a bijection of the state for a given word, so a single
 * changed word always changes the digest; several cancel with odds of
 * about 2^-64. Eight guest instructions per 8 bytes under TCG, where the
 * in-guest reference costs tens per word.
 */
static void digest_fold(struct em_app_fold *f, const void *p, size_t bytes)
{
	const uint8_t *b = p;
	uint64_t v, h = f->h;
	size_t i;

	for (i = 0; i + 8 <= bytes; i += 8) {
		memcpy(&v, b + i, 8);
		h = (h + v) * 0x9fb21c651e98df25ull;
		h ^= h >> 29;
	}
	if (i < bytes) {
		v = 0;
		memcpy(&v, b + i, bytes - i);
		h = (h + v) * 0x9fb21c651e98df25ull;
		h ^= h >> 29;
	}
	f->h = h;
}

/* n words of size bytes each, that verify() checks one by one */
static void digest_words(struct em_app_fold *f, const void *p, uint64_t n, size_t size)
{
	digest_fold(f, p, n * size);
	f->words += n;
}

/* Buffer i holds bytes, rounded up to a 128-byte line. */
static void set_bytes(struct em_app_data *a, int i, size_t bytes)
{
	a->bytes[i] = (bytes + 127) & ~(size_t)127;
}

static uint32_t *w32(const struct em_app_data *a, int i)
{
	return a->p[i];
}

static void check(struct em_app_data *a, uint64_t got, uint64_t want)
{
	a->words_checked++;
	if (got != want)
		a->mismatches++;
}

static uint64_t pow2_floor(uint64_t x)
{
	uint64_t p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

/*
 * After a failed launch (verify_failed): a unit of words the failed launch
 * writes at once holds the reference before it or after it, whole. Sums
 * each unit's words that differ from either; unit_end() counts its words
 * and, unless one of the two matched entirely, the fewer differences as
 * mismatches.
 */
struct unit {
	uint64_t words, diff_before, diff_after;
};

static int word_lost(const uint8_t *lost, uint64_t w)
{
	return lost && lost[w / EM_APP_PAGE_WORDS];
}

/* n words from got[w], beside before[] and after[]; lost words skipped */
static void unit_add(struct unit *u, const uint32_t *got, const uint8_t *lost,
		     uint64_t w, const uint32_t *before, const uint32_t *after,
		     uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (word_lost(lost, w + i))
			continue;
		u->words++;
		u->diff_before += got[w + i] != before[i];
		u->diff_after += got[w + i] != after[i];
	}
}

static void unit_end(struct em_app_data *a, struct unit *u)
{
	a->words_checked += u->words;
	a->mismatches += u->diff_before < u->diff_after ? u->diff_before :
							  u->diff_after;
	memset(u, 0, sizeof(*u));
}

/* ---- pathfinder: b0 wall (rows x cols u32), b1 two result rows ---- */

static uint32_t pf_wall(const struct em_app_data *a, uint64_t i)
{
	return gen(a->seed, 1, i) % 10;
}

static void pf_size(struct em_app_data *a)
{
	uint64_t rows = a->passes < 2 ? 2 : a->passes > 4096 ? 4096 : a->passes;
	uint64_t cols = (a->foot / 4 / (rows + 2)) & ~31ull;

	a->n[0] = rows;
	a->n[1] = cols < 32 ? 32 : cols;
	set_bytes(a, 0, a->n[0] * a->n[1] * 4);
	set_bytes(a, 1, 2 * a->n[1] * 4);
}

static void pf_fill(struct em_app_data *a)
{
	uint64_t i, n = a->n[0] * a->n[1];
	uint32_t *w = w32(a, 0);

	for (i = 0; i < n; i++)
		w[i] = pf_wall(a, i);
	memset(a->p[1], 0, a->bytes[1]);
}

/* The reference's rows, prev starting as row 0; returns the buffer holding the last. */
static uint32_t *pf_ref(const struct em_app_data *a, uint32_t *prev, uint32_t *next)
{
	uint64_t rows = a->n[0], cols = a->n[1], r, c;
	uint32_t *t, m;

	for (c = 0; c < cols; c++)
		prev[c] = pf_wall(a, c);
	for (r = 1; r < rows; r++) {
		for (c = 0; c < cols; c++) {
			m = prev[c];
			if (c > 0 && prev[c - 1] < m)
				m = prev[c - 1];
			if (c + 1 < cols && prev[c + 1] < m)
				m = prev[c + 1];
			next[c] = pf_wall(a, r * cols + c) + m;
		}
		t = prev;
		prev = next;
		next = t;
	}
	return prev;
}

/* the last row goes to half (rows - 1 + 1) % 2 of b1 */
static uint32_t *pf_out(const struct em_app_data *a)
{
	return w32(a, 1) + (a->n[0] % 2) * a->n[1];
}

static int pf_verify(struct em_app_data *a)
{
	int ret = 0;
	uint64_t rows = a->n[0], cols = a->n[1], c;
	uint32_t *prev = malloc(cols * 4), *next = malloc(cols * 4);
	const uint32_t *w = w32(a, 0), *out = pf_out(a), *last;

	if (!prev || !next) {
		ret = -ENOMEM;
		goto out;
	}
	last = pf_ref(a, prev, next);
	for (c = 0; c < cols; c++)
		check(a, out[c], last[c]);
	for (c = 0; c < rows * cols; c++)
		check(a, w[c], pf_wall(a, c));
out:
	free(prev);
	free(next);
	return ret;
}

static int pf_expect(struct em_app_data *a)
{
	uint64_t cols = a->n[1];
	uint32_t *prev = malloc(cols * 4), *next = malloc(cols * 4);

	if (prev && next)
		memcpy(pf_out(a), pf_ref(a, prev, next), cols * 4);
	free(prev);
	free(next);
	return prev && next ? 0 : -ENOMEM;
}

static void pf_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	digest_words(f, pf_out(a), a->n[1], 4);
	digest_words(f, a->p[0], a->n[0] * a->n[1], 4);
}

/* ---- kmeans: b0 points (n x 4 u32), b1 membership, b2 centroids + accum ---- */

/* point p's cluster's corner; its coordinates lie within 9000 above */
static uint32_t km_base(const struct em_app_data *a, uint64_t p)
{
	return gen(a->seed, 2, p) % EM_KM_K * 12000;
}

static uint32_t km_offset(const struct em_app_data *a, uint64_t p, unsigned int d)
{
	return d * 1500 + gen(a->seed, 3 + d, p) % 9000;
}

static uint32_t km_coord(const struct em_app_data *a, uint64_t p, unsigned int d)
{
	return km_base(a, p) + km_offset(a, p, d);
}

static void km_size(struct em_app_data *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / 20) & ~31ull;

	a->n[0] = n < 64 ? 64 : n;
	a->n[1] = a->passes ? a->passes : 1;
	set_bytes(a, 0, a->n[0] * 16);
	set_bytes(a, 1, a->n[0] * 4);
	set_bytes(a, 2, 4096);
}

static void km_fill(struct em_app_data *a)
{
	uint64_t p, n = a->n[0];
	uint32_t *pts = w32(a, 0), *cent = w32(a, 2);
	unsigned int c, d;

	for (p = 0; p < n; p++) {
		uint32_t base = km_base(a, p);	/* once a point: cheaper under TCG */

		for (d = 0; d < EM_KM_D; d++)
			pts[p * EM_KM_D + d] = base + km_offset(a, p, d);
	}
	memset(a->p[1], 0, a->bytes[1]);
	memset(a->p[2], 0, a->bytes[2]);
	for (c = 0; c < EM_KM_K; c++)	/* initial centroids: points c n / 4 */
		for (d = 0; d < EM_KM_D; d++)
			cent[c * EM_KM_D + d] = km_coord(a, c * (n / EM_KM_K), d);
}

/*
 * Lloyd's iterations over the points in memory, exactly as the device
 * computes them: each point's cluster in the last iteration, the
 * centroids after it and its cluster sizes.
 */
static void km_ref(const struct em_app_data *a, const uint32_t *pts, uint32_t *memb,
		   uint32_t cent[EM_KM_K][EM_KM_D], uint64_t cnt[EM_KM_K])
{
	uint64_t n = a->n[0], it, p, dist, best, sums[EM_KM_K][EM_KM_D];
	uint32_t prev[EM_KM_K][EM_KM_D];
	const uint32_t *pt;
	unsigned int c, d, bc;
	int lt;

	for (c = 0; c < EM_KM_K; c++)
		for (d = 0; d < EM_KM_D; d++)
			cent[c][d] = km_coord(a, c * (n / EM_KM_K), d);
	for (it = 0; it < a->n[1]; it++) {
		/*
		 * Centroids an iteration left unchanged give every later one
		 * the same memberships, counts and centroids: stop there.
		 */
		if (it && !memcmp(prev, cent, sizeof(prev)))
			break;
		memcpy(prev, cent, sizeof(prev));
		memset(sums, 0, sizeof(sums));
		memset(cnt, 0, EM_KM_K * sizeof(cnt[0]));
		for (p = 0; p < n; p++) {
			pt = pts + p * EM_KM_D;
			best = UINT64_MAX;
			bc = 0;
			for (c = 0; c < EM_KM_K; c++) {
				for (dist = 0, d = 0; d < EM_KM_D; d++) {
					int64_t x = (int64_t)pt[d] - cent[c][d];

					dist += (uint64_t)(x * x);
				}
				lt = dist < best;	/* no branch: the clusters are random */
				best = lt ? dist : best;
				bc = lt ? c : bc;
			}
			memb[p] = bc;
			cnt[bc]++;
			for (d = 0; d < EM_KM_D; d++)
				sums[bc][d] += pt[d];
		}
		for (c = 0; c < EM_KM_K; c++)
			for (d = 0; d < EM_KM_D; d++)
				if (cnt[c])
					cent[c][d] = (uint32_t)(sums[c][d] / cnt[c]);
	}
}

/* Points first (regenerated), then the reference over the points in memory. */
static int km_verify(struct em_app_data *a)
{
	uint64_t n = a->n[0], p, cnt[EM_KM_K];
	uint32_t cent[EM_KM_K][EM_KM_D], *memb = malloc(n * 4);
	const uint32_t *dev = w32(a, 2), *pts = w32(a, 0), *dm = w32(a, 1);
	unsigned int c, d;

	if (!memb)
		return -ENOMEM;
	for (p = 0; p < n; p++)
		for (d = 0; d < EM_KM_D; d++)
			check(a, pts[p * EM_KM_D + d], km_coord(a, p, d));
	km_ref(a, pts, memb, cent, cnt);
	for (p = 0; p < n; p++)
		check(a, dm[p], memb[p]);
	for (c = 0; c < EM_KM_K; c++) {
		check(a, dev[16 + c], (uint32_t)cnt[c]);
		for (d = 0; d < EM_KM_D; d++)
			check(a, dev[c * EM_KM_D + d], cent[c][d]);
	}
	for (p = 0; p < 64; p++)	/* accum left zeroed */
		check(a, dev[32 + p], 0);
	free(memb);
	return 0;
}

/* fill() left the accumulators zeroed */
static int km_expect(struct em_app_data *a)
{
	uint64_t cnt[EM_KM_K];
	uint32_t cent[EM_KM_K][EM_KM_D], *dev = w32(a, 2);
	unsigned int c;

	km_ref(a, w32(a, 0), w32(a, 1), cent, cnt);
	memcpy(dev, cent, sizeof(cent));
	for (c = 0; c < EM_KM_K; c++)
		dev[16 + c] = (uint32_t)cnt[c];
	return 0;
}

/* b2: the centroids and counts (words 0..19), the accumulators (32..95) */
static void km_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	digest_words(f, a->p[0], a->n[0] * EM_KM_D, 4);
	digest_words(f, a->p[1], a->n[0], 4);
	digest_words(f, w32(a, 2), 20, 4);
	digest_words(f, w32(a, 2) + 32, 64, 4);
}

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
			hout[seg] += mix64(v);
			hin[seg] += mix64(gen(a->seed, 20, t * 32 + x));
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
		hout += mix64(k[i]);
		hin += mix64(rx_key(a, i));
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

/* ---- bfs: b0 row_ptr (u64), b1 col (u64), b2 level (u32) ---- */

static uint32_t bfs_deg(const struct em_app_data *a, uint64_t v)
{
	return 4 + gen(a->seed, 40, v) % 9;	/* 4..12, mean 8 */
}

static uint64_t bfs_nbr(const struct em_app_data *a, uint64_t e)
{
	return (((uint64_t)gen(a->seed, 41, e) << 32) | gen(a->seed, 42, e)) % a->n[0];
}

static void bfs_size(struct em_app_data *a)
{
	uint64_t v = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / 76) & ~31ull;
	uint64_t i, e = 0;

	a->n[0] = v < 32 ? 32 : v;
	for (i = 0; i < a->n[0]; i++)
		e += bfs_deg(a, i);
	a->n[1] = e;
	set_bytes(a, 0, (a->n[0] + 1) * 8);
	set_bytes(a, 1, e * 8);
	set_bytes(a, 2, a->n[0] * 4);
}

static void bfs_fill(struct em_app_data *a)
{
	uint64_t v, e = 0, d, *rp = a->p[0], *col = a->p[1];
	uint32_t *lev = w32(a, 2);

	for (v = 0; v < a->n[0]; v++) {
		rp[v] = e;
		for (d = bfs_deg(a, v); d; d--, e++)
			col[e] = bfs_nbr(a, e);
		lev[v] = EM_APP_UNVISITED;
	}
	rp[v] = e;
	lev[0] = 0;
}

/*
 * Levels by BFS from vertex 0 over the graph in memory into ref; q: nv
 * words. Visited vertices are also marked in a bitmap (nv / 8 bytes),
 * which stays in cache where ref, read at random per edge, would not.
 * -ENOMEM or 0.
 */
static int bfs_ref(const struct em_app_data *a, const uint64_t *rp, const uint64_t *col,
		   uint32_t *ref, uint32_t *q)
{
	uint64_t nv = a->n[0], v, k, c;
	uint64_t *seen = calloc(nv / 64 + 1, 8);
	uint32_t qh = 0, qt = 0, x;

	if (!seen)
		return -ENOMEM;
	for (v = 0; v < nv; v++)
		ref[v] = EM_APP_UNVISITED;
	ref[0] = 0;
	seen[0] = 1;
	q[qt++] = 0;
	while (qh < qt) {
		x = q[qh++];
		for (k = rp[x]; k < rp[x + 1] && k < a->n[1]; k++) {
			c = col[k];
			if (c < nv && !(seen[c / 64] >> (c % 64) & 1)) {
				seen[c / 64] |= 1ull << (c % 64);
				ref[c] = ref[x] + 1;
				q[qt++] = (uint32_t)c;
			}
		}
	}
	free(seen);
	return 0;
}

static int bfs_verify(struct em_app_data *a)
{
	int ret = 0;
	uint64_t nv = a->n[0], v, e = 0, d;
	const uint64_t *rp = a->p[0], *col = a->p[1];
	const uint32_t *lev = w32(a, 2);
	uint32_t *ref = malloc(nv * 4), *q = malloc(nv * 4);

	if (!ref || !q) {
		ret = -ENOMEM;
		goto out;
	}
	for (v = 0; v < nv; v++) {	/* the graph intact, then BFS over it */
		check(a, rp[v], e);
		for (d = bfs_deg(a, v); d; d--, e++)
			check(a, col[e], bfs_nbr(a, e));
	}
	check(a, rp[nv], e);
	ret = bfs_ref(a, rp, col, ref, q);
	for (v = 0; !ret && v < nv; v++) {
		check(a, lev[v], ref[v]);
		a->expected_result += ref[v] != EM_APP_UNVISITED;
	}
	if (!ret)
		a->result_ok = a->result == a->expected_result;
out:
	free(ref);
	free(q);
	return ret;
}

static int bfs_expect(struct em_app_data *a)
{
	uint32_t *q = malloc(a->n[0] * 4), *lev = w32(a, 2);
	uint64_t v;

	if (!q || bfs_ref(a, a->p[0], a->p[1], lev, q)) {
		free(q);
		return -ENOMEM;
	}
	for (a->expected_result = 0, v = 0; v < a->n[0]; v++)
		a->expected_result += lev[v] != EM_APP_UNVISITED;
	a->result_ok = 0;
	free(q);
	return 0;
}

/* in bfs_verify()'s order: each vertex's offset, then its edges */
static void bfs_digest(const struct em_app_data *a, struct em_app_fold *f)
{
	const uint64_t *rp = a->p[0], *col = a->p[1];
	uint64_t v, e = 0, d;

	for (v = 0; v < a->n[0]; v++, e += d) {
		d = bfs_deg(a, v);
		digest_words(f, rp + v, 1, 8);
		digest_words(f, col + e, d, 8);
	}
	digest_words(f, rp + a->n[0], 1, 8);
	digest_words(f, a->p[2], a->n[0], 4);
}

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

static uint32_t cs_val(const struct em_app_data *a, unsigned int col, uint64_t i)
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

typedef uint32_t (*col_val_fn)(const struct em_app_data *a, unsigned int col,
				uint64_t i);

/* A column scan's table b0 (cols x n[0] rows) filled, its output b1 zeroed. */
static void table_fill(struct em_app_data *a, unsigned int cols, col_val_fn val)
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
static void table_check(struct em_app_data *a, unsigned int cols, col_val_fn val)
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
	table_fill(a, EM_CS_COLS, cs_val);
}

/*
 * The CPU reference of one colscan query d (f1 lo hi, f2 lo hi, f3 lo hi,
 * a, b) over the n-row table t: checks out[i], the sum of line i.
 */
static void scan_check(struct em_app_data *a, const uint32_t *t, uint64_t n,
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

	table_check(a, EM_CS_COLS, cs_val);	/* the table intact: then use it */
	for (q = 0; q < a->n[1]; q++)
		scan_check(a, t, n, cs_q[q % EM_CS_QUERIES], out + q * (n / 32));
	return 0;
}

/* The kernel's args[4..7] of query d (colscan.c). */
static void scan_args(const uint32_t *d, uint64_t args[4])
{
	args[0] = d[0] | (uint64_t)d[3] << 8 | (uint64_t)d[6] << 16 |
		  (uint64_t)d[9] << 24 | (uint64_t)d[10] << 32;
	args[1] = d[1] | (uint64_t)d[2] << 32;
	args[2] = d[4] | (uint64_t)d[5] << 32;
	args[3] = d[7] | (uint64_t)d[8] << 32;
}

void em_app_colscan_query(uint64_t q, uint64_t args[4])
{
	scan_args(cs_q[q % EM_CS_QUERIES], args);
}

/*
 * ---- ssb: the 13 SSB queries (O'Neil et al.; the paper's Tables 7-8 run
 * them on Crystal), one per run, over lineorder's columns ----
 *
 * Crystal keeps the dimension tables in small GPU hash tables and streams
 * the fact table's columns; what moves is lineorder. So the table here is
 * lineorder alone (b0, 9 columns of u32), and a join with a filtered
 * dimension is a range filter on the foreign key with the dimension
 * filter's selectivity: keys are uniform over SF 1's cardinalities
 * (customer 30,000, supplier 2,000, part 200,000), the filtered keys are
 * the range's low end. Dates are day numbers 0..2554 (7 x 365 days,
 * 1992..1998, no leap days): year y is [365 y, 365 y + 364]. The colscan
 * kernel reads f1, then f2 and f3 only for lines where a row still passes
 * (Crystal's predicated loads), then a and b. Where Crystal reads a
 * column only as a group-by key (flight 2's lo_orderdate), it is a filter
 * that passes every row, so it is read as Crystal reads it.
 * Flight 4 needs 6 columns and 4 filters; the kernel has 3 filters and
 * sums a x b (SSB: revenue - supplycost): q4.1 leaves out lo_orderdate
 * (its group-by key), q4.2-q4.3 leave out lo_partkey and fold the part
 * filter's selectivity into the customer range (same product, same rows
 * surviving when keys are independent). Output: b1, one u64 per line.
 */
enum {
	LO_DATE, LO_DISC, LO_QTY, LO_PRICE, LO_REV, LO_COST, LO_CUST, LO_SUPP,
	LO_PART, LO_COLS
};
_Static_assert(LO_COLS == EM_SSB_COLS, "lineorder's columns");

#define SSB_DAYS	2555u
#define SSB_CUST	30000u
#define SSB_SUPP	2000u
#define SSB_PART	200000u
#define SSB_YEAR(y)	(365u * ((y) - 1992))

static const char *const ssb_names[EM_SSB_QUERIES] = {
	"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1",
	"q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3",
};

/* f1 lo hi, f2 lo hi, f3 lo hi, a, b; the SSB predicate beside each */
static const uint32_t ssb_q[EM_SSB_QUERIES][11] = {
	/* d_year = 1993, lo_discount 1..3, lo_quantity < 25 */
	{ LO_DATE, SSB_YEAR(1993), SSB_YEAR(1993) + 364, LO_DISC, 1, 3, LO_QTY, 1, 24,
	  LO_PRICE, LO_DISC },
	/* d_yearmonthnum = 199401, lo_discount 4..6, lo_quantity 26..35 */
	{ LO_DATE, SSB_YEAR(1994), SSB_YEAR(1994) + 30, LO_DISC, 4, 6, LO_QTY, 26, 35,
	  LO_PRICE, LO_DISC },
	/* d_weeknuminyear = 6 and d_year = 1994, lo_discount 5..7, lo_quantity 26..35 */
	{ LO_DATE, SSB_YEAR(1994) + 35, SSB_YEAR(1994) + 41, LO_DISC, 5, 7, LO_QTY, 26,
	  35, LO_PRICE, LO_DISC },
	/* s_region = 'AMERICA' (1/5), p_category = 'MFGR#12' (1/25); by d_year */
	{ LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_PART, 0, SSB_PART / 25 - 1, LO_DATE, 0,
	  SSB_DAYS - 1, LO_REV, EM_CS_NONE },
	/* s_region = 'ASIA', p_brand1 'MFGR#2221'..'MFGR#2228' (8 of 1000) */
	{ LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_PART, 0, SSB_PART / 125 - 1, LO_DATE, 0,
	  SSB_DAYS - 1, LO_REV, EM_CS_NONE },
	/* s_region = 'EUROPE', p_brand1 = 'MFGR#2239' (1 of 1000) */
	{ LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_PART, 0, SSB_PART / 1000 - 1, LO_DATE, 0,
	  SSB_DAYS - 1, LO_REV, EM_CS_NONE },
	/* c_region = s_region = 'ASIA' (1/5 each), d_year 1992..1997 */
	{ LO_CUST, 0, SSB_CUST / 5 - 1, LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_DATE, 0,
	  SSB_YEAR(1997) + 364, LO_REV, EM_CS_NONE },
	/* c_nation = s_nation = 'UNITED STATES' (1/25 each), d_year 1992..1997 */
	{ LO_CUST, 0, SSB_CUST / 25 - 1, LO_SUPP, 0, SSB_SUPP / 25 - 1, LO_DATE, 0,
	  SSB_YEAR(1997) + 364, LO_REV, EM_CS_NONE },
	/* c_city, s_city in two cities (2 of 250 each), d_year 1992..1997 */
	{ LO_CUST, 0, SSB_CUST / 125 - 1, LO_SUPP, 0, SSB_SUPP / 125 - 1, LO_DATE, 0,
	  SSB_YEAR(1997) + 364, LO_REV, EM_CS_NONE },
	/* the same cities, d_yearmonth = 'Dec1997' */
	{ LO_CUST, 0, SSB_CUST / 125 - 1, LO_SUPP, 0, SSB_SUPP / 125 - 1, LO_DATE,
	  SSB_YEAR(1997) + 334, SSB_YEAR(1997) + 364, LO_REV, EM_CS_NONE },
	/* c_region = s_region = 'AMERICA', p_mfgr in 2 of 5 */
	{ LO_CUST, 0, SSB_CUST / 5 - 1, LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_PART, 0,
	  SSB_PART * 2 / 5 - 1, LO_REV, LO_COST },
	/* as q4.1 and d_year 1997..1998 (2/7); p_mfgr's 2/5 on the customer key */
	{ LO_CUST, 0, SSB_CUST / 5 * 2 / 5 - 1, LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_DATE,
	  SSB_YEAR(1997), SSB_DAYS - 1, LO_REV, LO_COST },
	/* c_region 'AMERICA', s_nation 'UNITED STATES' (1/25), d_year 1997..1998,
	 * p_category 'MFGR#14' (1/25, on the customer key) */
	{ LO_CUST, 0, SSB_CUST / 5 / 25 - 1, LO_SUPP, 0, SSB_SUPP / 25 - 1, LO_DATE,
	  SSB_YEAR(1997), SSB_DAYS - 1, LO_REV, LO_COST },
};

int em_app_ssb_query(const char *name)
{
	int q;

	if (!name || strncmp(name, "ssb-", 4))
		return -1;
	for (q = 0; q < EM_SSB_QUERIES; q++)
		if (!strcmp(name + 4, ssb_names[q]))
			return q;
	return -1;
}

void em_app_ssb_args(int q, uint64_t args[4])
{
	scan_args(ssb_q[q], args);
}

static uint32_t ssb_val(const struct em_app_data *a, unsigned int col, uint64_t i)
{
	uint32_t h = gen(a->seed, 80 + col, i);

	switch (col) {
	case LO_DATE:	return h % SSB_DAYS;
	case LO_CUST:	return h % SSB_CUST;
	case LO_SUPP:	return h % SSB_SUPP;
	case LO_PART:	return h % SSB_PART;
	default:	return cs_val(a, col, i);	/* as colscan's columns */
	}
}

static void ssb_size(struct em_app_data *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) /
		      (4 * LO_COLS)) & ~511ull;

	a->n[0] = n < 512 ? 512 : n;
	set_bytes(a, 0, LO_COLS * a->n[0] * 4);
	set_bytes(a, 1, a->n[0] / 4);
}

static void ssb_fill(struct em_app_data *a)
{
	table_fill(a, LO_COLS, ssb_val);
}

static int ssb_verify(struct em_app_data *a)
{
	if (a->query < 0 || a->query >= EM_SSB_QUERIES)
		return -EINVAL;
	table_check(a, LO_COLS, ssb_val);
	scan_check(a, w32(a, 0), a->n[0], ssb_q[a->query], a->p[1]);
	return 0;
}

/* ---- ARIADNE's workloads (HPCA'26): sparse, dense and mixed sharing degrees ---- */

/*
 * Rows of the Polybench-style matrices are 64 KiB of int8, so the 32 rows
 * one warp owns in a thread-per-row GEMV fill one 2 MiB VA block: each
 * block faults from one uTLB (sharing degree 1), as ARIADNE measures for
 * GEMV and ATAX.
 */
#define AR_COLS		EM_AR_COLS

static int8_t ar_a(const struct em_app_data *a, uint64_t salt, uint64_t i)
{
	return (int8_t)(gen(a->seed, salt, i) % 16) - 8;
}

/* CPU GEMV: y = (u8)(W x >> 7), one row of cols per output; returns the
 * sum of the int32 dot products (as u32), the kernel's launch result */
static uint64_t ar_gemv(const int8_t *w, const int8_t *x, uint64_t rows,
			uint64_t cols, int8_t *y)
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

/* Checks every byte of an int8 input against its generator. */
static void ar_check_input(struct em_app_data *a, const int8_t *p, uint64_t n,
			   uint64_t salt)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		check(a, (uint8_t)p[i], (uint8_t)ar_a(a, salt, i));
}

/* b0 A (rows x 64 KiB int8, rows a multiple of align), b1 x, b2 A x (rows) */
static void ar_size(struct em_app_data *a, uint64_t align)
{
	uint64_t rows = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) / AR_COLS) &
			~(align - 1);

	a->n[0] = rows < align ? align : rows;
	a->n[1] = a->passes;
	set_bytes(a, 0, a->n[0] * AR_COLS);
	set_bytes(a, 1, AR_COLS);
	set_bytes(a, 2, a->n[0]);
}

/* gemvrow: as ar_size(), 32 rows a warp; -p iterations */
static void gr_size(struct em_app_data *a)
{
	ar_size(a, 32);
}

static void gr_fill(struct em_app_data *a)
{
	uint64_t i;
	int8_t *w = a->p[0], *x = a->p[1];

	for (i = 0; i < a->n[0] * AR_COLS; i++)
		w[i] = ar_a(a, 70, i);
	for (i = 0; i < AR_COLS; i++)
		x[i] = ar_a(a, 71, i);
	memset(a->p[2], 0, a->bytes[2]);
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

/* atax: as ar_size() (rows a multiple of GEMVT's 128), b3 y = A^T tmp (int32) */
static void ax_size(struct em_app_data *a)
{
	ar_size(a, 128);
	set_bytes(a, 3, AR_COLS * 4);
}

static void ax_fill(struct em_app_data *a)
{
	gr_fill(a);
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

/* nw: b0 H ((n + 1) x (n + 32) int32, see nw.c), b1 ref (n x n int32) */
#define NW_GAP		10

static int32_t nw_ref(const struct em_app_data *a, uint64_t i)
{
	return (int32_t)(gen(a->seed, 74, i) % 21) - 10;
}

static void nw_size(struct em_app_data *a)
{
	uint64_t budget = a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB, n = 32;

	while ((n + 33) * (n + 64) * 4 + (n + 32) * (n + 32) * 4 <= budget)
		n += 32;
	a->n[0] = n;
	set_bytes(a, 0, (n + 1) * (n + 32) * 4);
	set_bytes(a, 1, n * n * 4);
}

static void nw_fill(struct em_app_data *a)
{
	uint64_t n = a->n[0], w = n + 32, i;
	int32_t *h = a->p[0], *ref = a->p[1];

	memset(a->p[0], 0, a->bytes[0]);
	for (i = 0; i <= n; i++) {
		h[i * w + 31] = -(int32_t)i * NW_GAP;
		h[31 + i] = -(int32_t)i * NW_GAP;
	}
	for (i = 0; i < n * n; i++)
		ref[i] = nw_ref(a, i);
}

static int nw_verify(struct em_app_data *a)
{
	uint64_t n = a->n[0], w = n + 32, i, j;
	const int32_t *h = a->p[0], *ref = a->p[1];
	int32_t *prev = malloc((n + 1) * 4), *cur = malloc((n + 1) * 4), *tmp, m;

	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -ENOMEM;
	}
	for (i = 0; i < n * n; i++)
		check(a, (uint32_t)ref[i], (uint32_t)nw_ref(a, i));
	for (j = 0; j <= n; j++)
		prev[j] = -(int32_t)j * NW_GAP;
	for (i = 1; i <= n; i++) {
		cur[0] = -(int32_t)i * NW_GAP;
		for (j = 1; j <= n; j++) {
			m = prev[j - 1] + ref[(i - 1) * n + j - 1];
			if (prev[j] - NW_GAP > m)
				m = prev[j] - NW_GAP;
			if (cur[j - 1] - NW_GAP > m)
				m = cur[j - 1] - NW_GAP;
			cur[j] = m;
			check(a, (uint32_t)h[i * w + 31 + j], (uint32_t)m);
			a->expected_result += (uint32_t)m;
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	a->result_ok = a->result == a->expected_result;
	free(prev);
	free(cur);
	return 0;
}

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

/* ---- the table ---- */

const struct em_app_ref em_app_pathfinder = { "pathfinder", 32, pf_size, pf_fill, pf_verify, NULL,
						pf_expect, pf_digest };
const struct em_app_ref em_app_kmeans = { "kmeans", 5, km_size, km_fill, km_verify, NULL,
					   km_expect, km_digest };
const struct em_app_ref em_app_conv = { "conv", 1, cv_size, cv_fill, cv_verify, NULL,
					 cv_expect, cv_digest };
const struct em_app_ref em_app_bitonic = { "bitonic", 5, bt_size, bt_fill, bt_verify,
					    bt_verify_failed, bt_expect, bt_digest };
const struct em_app_ref em_app_radix = { "radix", 4, rx_size, rx_fill, rx_verify,
					  rx_verify_failed, rx_expect, rx_digest };
const struct em_app_ref em_app_bfs = { "bfs", 1, bfs_size, bfs_fill, bfs_verify, NULL,
					bfs_expect, bfs_digest };
const struct em_app_ref em_app_gemv = { "gemv", 8, gv_size, gv_fill, gv_verify, NULL, NULL, NULL };
const struct em_app_ref em_app_colscan = { "colscan", 4, cs_size, cs_fill, cs_verify, NULL, NULL, NULL };
const struct em_app_ref em_app_ssb = { "ssb", 1, ssb_size, ssb_fill, ssb_verify, NULL, NULL, NULL };
const struct em_app_ref em_app_gemvrow = { "gemvrow", 2, gr_size, gr_fill, gr_verify, NULL, NULL, NULL };
const struct em_app_ref em_app_atax = { "atax", 2, ax_size, ax_fill, ax_verify, NULL, NULL, NULL };
const struct em_app_ref em_app_gemm = { "gemm", 4, gm_size, gm_fill, gm_verify, NULL, NULL, NULL };
const struct em_app_ref em_app_nw = { "nw", 1, nw_size, nw_fill, nw_verify, NULL, NULL, NULL };
const struct em_app_ref em_app_decode = { "decode", 4, dc_size, dc_fill, dc_verify, NULL, NULL, NULL };

void em_app_size(const struct em_app_ref *ref, struct em_app_data *a)
{
	if (!a->passes)
		a->passes = ref->def_passes;
	a->result_ok = -1;
	ref->size(a);
}

/* ---- verification by digest ---- */

const struct em_app_ref *em_app_ref_find(const char *name)
{
	static const struct em_app_ref *const refs[] = {
		&em_app_pathfinder, &em_app_kmeans, &em_app_conv, &em_app_bitonic,
		&em_app_radix, &em_app_bfs, &em_app_gemv, &em_app_colscan, &em_app_ssb,
		&em_app_gemvrow, &em_app_atax, &em_app_gemm, &em_app_nw, &em_app_decode,
	};
	size_t i;

	for (i = 0; name && i < sizeof(refs) / sizeof(refs[0]); i++)
		if (!strcmp(refs[i]->name, name))
			return refs[i];
	return NULL;
}

/*
 * The run's parameters and buffers first: a digest of another run never
 * matches. Not n[], which they determine and a launch sequence may add
 * to (bfs's levels).
 */
static void app_digest(const struct em_app_ref *ref, const struct em_app_data *a,
		       struct em_app_fold *f)
{
	uint64_t head[8] = { a->bytes[0], a->bytes[1], a->bytes[2], a->bytes[3], a->foot,
			     a->seed, a->passes, (uint64_t)(int64_t)a->query };

	f->h = f->words = 0;
	digest_fold(f, head, sizeof(head));
	ref->digest(a, f);
}

int em_app_host_digest(const struct em_app_ref *ref, struct em_app_data *a,
		       struct em_app_digest *out)
{
	struct em_app_fold f;
	int ret;

	if (!ref->expect || !ref->digest)
		return -ENOTSUP;
	ref->fill(a);
	ret = ref->expect(a);
	if (ret)
		return ret;
	app_digest(ref, a, &f);
	out->digest = f.h;
	out->words_checked = f.words;
	out->expected_result = a->expected_result;
	out->checks_result = a->result_ok >= 0;
	return 0;
}

int em_app_verify(const struct em_app_ref *ref, struct em_app_data *a,
		  const struct em_app_digest *want)
{
	struct em_app_fold f;

	a->verified_by_digest = 0;
	if (want && ref->digest && (app_digest(ref, a, &f), f.h == want->digest) &&
	    f.words == want->words_checked) {
		a->words_checked += want->words_checked;
		a->expected_result = want->expected_result;
		a->result_ok = want->checks_result ? a->result == want->expected_result : -1;
		a->verified_by_digest = 1;
		return 0;
	}
	return ref->verify(a);
}

void em_app_digest_format(const struct em_app_digest *dg, char *buf, size_t len)
{
	snprintf(buf, len, "%016llx:%llu:%llu:%d", (unsigned long long)dg->digest,
		 (unsigned long long)dg->words_checked,
		 (unsigned long long)dg->expected_result, dg->checks_result);
}

int em_app_digest_parse(const char *s, struct em_app_digest *dg)
{
	unsigned long long d, w, e;
	int r, end = 0;

	if (sscanf(s, "%16llx:%llu:%llu:%d%n", &d, &w, &e, &r, &end) != 4 || s[end] ||
	    (r != 0 && r != 1))
		return -EINVAL;
	dg->digest = d;
	dg->words_checked = w;
	dg->expected_result = e;
	dg->checks_result = r;
	return 0;
}
