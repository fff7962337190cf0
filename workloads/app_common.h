/* SPDX-License-Identifier: MIT */
/*
 * What the applications' files (one per app, named like the model's
 * kernels in models/src/kernels/) share, private to workloads/: the input
 * generator, the digest's fold, the word checks, the check after a failed
 * launch, and the helpers two apps share (colscan's table, which ssb.c
 * scans too; ARIADNE's int8 matrices, ariadne.c). The public interface is
 * app_inputs.h; the list of apps is app_list.h.
 *
 * The small helpers are static inline: fill() calls gen() once a word,
 * in the guest under TCG, where a call per word would cost.
 */
#ifndef EMBER_APP_COMMON_H
#define EMBER_APP_COMMON_H

#include <stdint.h>
#include <string.h>

#include "app_inputs.h"
#include "gpumodel/splitmix64.h"	/* gm_mix64, the model's kernels' too */

#define MiB		(1024ull * 1024)

/* Cheap deterministic input generator: a multiply-xorshift of (seed, salt, i). */
static inline uint32_t gen(uint64_t seed, uint64_t salt, uint64_t i)
{
	uint64_t h = (i + (seed << 20) + (salt << 52)) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32);
}

/*
 * Folds bytes into a verification digest (em_app_verify), 8 at a time:
 * each step is a bijection of the state for a given word, so a single
 * changed word always changes the digest; several cancel with odds of
 * about 2^-64. Eight guest instructions per 8 bytes under TCG, where the
 * in-guest reference costs tens per word.
 */
static inline void digest_fold(struct em_app_fold *f, const void *p, size_t bytes)
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
static inline void digest_words(struct em_app_fold *f, const void *p, uint64_t n, size_t size)
{
	digest_fold(f, p, n * size);
	f->words += n;
}

/* Buffer i holds bytes, rounded up to a 128-byte line. */
static inline void set_bytes(struct em_app_data *a, int i, size_t bytes)
{
	a->bytes[i] = (bytes + 127) & ~(size_t)127;
}

static inline uint32_t *w32(const struct em_app_data *a, int i)
{
	return a->p[i];
}

static inline void check(struct em_app_data *a, uint64_t got, uint64_t want)
{
	a->words_checked++;
	if (got != want)
		a->mismatches++;
}

static inline uint64_t pow2_floor(uint64_t x)
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

static inline int word_lost(const uint8_t *lost, uint64_t w)
{
	return lost && lost[w / EM_APP_PAGE_WORDS];
}

/* n words from got[w], beside before[] and after[]; lost words skipped */
static inline void unit_add(struct unit *u, const uint32_t *got, const uint8_t *lost,
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

static inline void unit_end(struct em_app_data *a, struct unit *u)
{
	a->words_checked += u->words;
	a->mismatches += u->diff_before < u->diff_after ? u->diff_before :
							  u->diff_after;
	memset(u, 0, sizeof(*u));
}

/* ---- colscan's table, shared with ssb.c (colscan.c) ---- */

/* column col's value in row i */
typedef uint32_t (*col_val_fn)(const struct em_app_data *a, unsigned int col,
				uint64_t i);
/* colscan's column col (ssb's first 6 columns are the same) */
uint32_t cs_val(const struct em_app_data *a, unsigned int col, uint64_t i);
void cs_table_fill(struct em_app_data *a, unsigned int cols, col_val_fn val);
void cs_table_check(struct em_app_data *a, unsigned int cols, col_val_fn val);
void cs_scan_check(struct em_app_data *a, const uint32_t *t, uint64_t n,
		   const uint32_t *d, const uint64_t *out);
void cs_scan_args(const uint32_t *d, uint64_t args[4]);

/* ---- ARIADNE's workloads (ariadne.c) ---- */

/*
 * Rows of the Polybench-style matrices are 64 KiB of int8, so the 32 rows
 * one warp owns in a thread-per-row GEMV fill one 2 MiB VA block: each
 * block faults from one uTLB (sharing degree 1), as ARIADNE measures for
 * GEMV and ATAX.
 */
#define AR_COLS		EM_AR_COLS

static inline int8_t ar_a(const struct em_app_data *a, uint64_t salt, uint64_t i)
{
	return (int8_t)(gen(a->seed, salt, i) % 16) - 8;
}

/* CPU GEMV: y = (u8)(W x >> 7), one row of cols per output; returns the
 * sum of the int32 dot products (as u32), the kernel's launch result */
uint64_t ar_gemv(const int8_t *w, const int8_t *x, uint64_t rows, uint64_t cols,
		 int8_t *y);
/* Checks every byte of an int8 input against its generator. */
void ar_check_input(struct em_app_data *a, const int8_t *p, uint64_t n, uint64_t salt);
/* b0 A (rows x 64 KiB int8, rows a multiple of align), b1 x, b2 A x (rows) */
void ar_size(struct em_app_data *a, uint64_t align);
/* gemvrow's and atax's A (b0, salt 70) and x (b1, salt 71); b2 zeroed */
void ar_fill(struct em_app_data *a);

#endif /* EMBER_APP_COMMON_H */
