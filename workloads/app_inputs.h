/* SPDX-License-Identifier: MIT */
/*
 * The applications' sizes, input generators and CPU references, in one
 * place (workloads/: a file per app, named like its kernel in
 * models/src/kernels/; app_list.h the list of them) for both sides: libember's
 * apps (apps.c, in the guest) and the CUDA programs of cuda/apps/ on a
 * real card. Both size their buffers from the same footprint, fill them
 * with the same words and check every output word against the same
 * reference, so a cell of the testbed and the card's cell beside it ran
 * the same computation on the same data. Plain C11 and libc: no
 * libember, no CUDA.
 *
 * A run: set foot, seed, passes; em_app_size(); allocate bytes[i] for every
 * nonzero entry into p[i]; fill(); launch the phases (each app's launch
 * sequence is in apps.c and cuda/apps/), adding each launch's result into
 * result; verify().
 */
#ifndef EMBER_APP_INPUTS_H
#define EMBER_APP_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "app_list.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EM_APP_BUFS		4
#define EM_APP_PAGE_WORDS	1024	/* u32 words of a 4 KiB page */
#define EM_APP_UNVISITED	0xffffffffu	/* bfs: level of an unreached vertex */

/* kmeans: 4 clusters of 4-dimensional u32 points */
#define EM_KM_K			4
#define EM_KM_D			4
/* conv: input channels */
#define EM_CV_CH		3
/* radix: at most this many chunks per pass */
#define EM_RX_CHUNKS_MAX	2048
/* colscan: columns of the table, queries cycled through, "no column" */
#define EM_CS_COLS		6
#define EM_CS_QUERIES		4
#define EM_CS_NONE		0xffu
/* ssb: the SSB queries q1.1 .. q4.3, one per run */
#define EM_SSB_QUERIES		13
#define EM_SSB_COLS		9	/* lineorder's columns (ssb.c) */

struct em_app_data {
	/* set by the caller */
	uint64_t foot;			/* target footprint, bytes */
	uint64_t seed;
	uint32_t passes;		/* 0: the app's default */
	int query;			/* ssb: em_app_ssb_query() of the app */
	/* set by em_app_size() */
	uint64_t n[4];			/* the app's sizes (see its file) */
	size_t bytes[EM_APP_BUFS];	/* multiples of 128; 0: buffer unused */
	/* set by the caller: the buffers, and the launches' summed results */
	void *p[EM_APP_BUFS];
	uint64_t result;
	/* set by verify() */
	uint64_t words_checked;
	uint64_t mismatches;
	uint64_t expected_result;
	int result_ok;			/* 1, 0, or -1: the app checks none */
	int verified_by_digest;		/* em_app_verify(): 1, or 0 (verify()) */
};

/*
 * What a correct run leaves, computed natively on the host
 * (em_app_host_digest) and checked in the guest (em_app_verify), where
 * the CPU reference under TCG costs more than the launches.
 */
struct em_app_digest {
	uint64_t digest;		/* of every word verify() checks */
	uint64_t words_checked;		/* verify()'s count for them */
	uint64_t expected_result;
	int checks_result;		/* verify() sets result_ok */
};

/* A digest being folded (em_app_ref.digest), and the checks it stands for. */
struct em_app_fold {
	uint64_t h;
	uint64_t words;
};

struct em_app_ref {
	const char *name;
	uint32_t def_passes;
	void (*size)(struct em_app_data *d);
	/* writes the inputs through the CPU pointers, zeroes the outputs */
	void (*fill)(struct em_app_data *d);
	/* compares outputs and inputs with the CPU reference; 0 or -ENOMEM */
	int (*verify)(struct em_app_data *d);
	/*
	 * After a launch failed part way: launches 0 .. done - 1 completed,
	 * launch done stopped anywhere. p[] are plain copies of the buffers
	 * read back, and a word on a lost page (lost[i] non-NULL and
	 * lost[i][word / EM_APP_PAGE_WORDS] set) is skipped. Every other word
	 * is compared with the reference after done launches, and where
	 * launch done writes, with the reference after it too: each unit
	 * the model's kernel writes at once must hold the one or the other,
	 * whole (the app's file says what that unit is and why a
	 * failure cannot split it). NULL: the app's partial state is not
	 * described. 0, -EINVAL (done is past the last launch) or -ENOMEM.
	 */
	int (*verify_failed)(struct em_app_data *d, uint64_t done,
			     const uint8_t *const lost[EM_APP_BUFS]);
	/*
	 * For em_app_host_digest(), after fill(): writes into the buffers what
	 * a correct run leaves in every word verify() checks, and where the
	 * app checks the launches' summed result, expected_result and
	 * result_ok 0; 0 or -ENOMEM. NULL: verify() always checks the app.
	 */
	int (*expect)(struct em_app_data *d);
	/*
	 * Folds every word verify() checks into f, in the order verify()
	 * first reads them (the pages' faults, and so the device's events,
	 * stay verify()'s), adding verify()'s count of checks for them.
	 */
	void (*digest)(const struct em_app_data *d, struct em_app_fold *f);
};

/* em_app_NAME of every application of app_list.h, in workloads/NAME.c */
#define EM_APP_REF_DECLARE(name, kernel, paper, inputs, card)	\
	extern const struct em_app_ref em_app_##name;
EM_APPS(EM_APP_REF_DECLARE)
#undef EM_APP_REF_DECLARE

/* gemvrow and atax: int8 columns of A, so 32 rows fill a 2 MiB VA block */
#define EM_AR_COLS		(64 * 1024)
/* gemm: the inner dimension, and the rows of B one launch reads */
#define EM_GM_K			1024
#define EM_GM_TILE		128
/* decode: managed pools the caching allocator packs the tensors into */
#define EM_DC_POOLS		3
/* decode: pool and offset of tensor t (layer t / 2; even W, odd KV); its bytes */
uint64_t em_app_decode_tensor(const struct em_app_data *d, uint64_t t, int *pool,
			      uint64_t *off);
/* decode: offset in b3 of token t's layer-l output h, or its scores */
uint64_t em_app_decode_act(const struct em_app_data *d, uint64_t t, uint64_t l,
			   int scores);

/*
 * bitonic's launch sequence (apps.c and verify_failed follow it): launch
 * i's block size *k and stride *j (0: every stage of block k with a
 * stride below 32, inside each line): (32, 0), then for k = 64 .. 32 S:
 * j = k / 2 .. 32, then (k, 0). Returns 0 past the last launch.
 */
int em_app_bitonic_launch(const struct em_app_data *d, uint64_t i, uint64_t *k,
			  uint64_t *j);

/* Sets the default passes where none is given, then the sizes. */
void em_app_size(const struct em_app_ref *ref, struct em_app_data *d);

/* The reference of that name (an application's own, not an alias), or NULL. */
const struct em_app_ref *em_app_ref_find(const char *name);
/*
 * The application ember-run -k name runs: an alias's application, ssb for
 * an SSB query ("ssb-q1.3"), an application's own name; NULL for anything
 * else (the microbenchmarks among them).
 */
const char *em_app_of(const char *name);
/*
 * The paper's row for -k name (app_list.h's paper, or an SSB query's own:
 * "q1.3"), "+" between rows to be summed; NULL where the paper has none.
 */
const char *em_app_paper(const char *name);
/*
 * On the host, natively, d sized (em_app_size) and its buffers allocated:
 * fills them, writes the reference's outputs with expect() and digests
 * them. 0, -ENOTSUP (the app has no expect()) or -ENOMEM. (tests/unit
 * checks that verify() finds every word of expect()'s outputs right and
 * counts the words digest() does.)
 */
int em_app_host_digest(const struct em_app_ref *ref, struct em_app_data *d,
		       struct em_app_digest *out);
/*
 * In the guest after the launches: with want, digests every word verify()
 * checks; equal to want's, each of them is what the reference computed
 * (words_checked, expected_result and result_ok as verify() sets them,
 * verified_by_digest 1). Otherwise (no want, no digest, a difference)
 * verify() runs: the words are compared one by one and a difference is
 * counted where it is. Returns what verify() does, or 0.
 */
int em_app_verify(const struct em_app_ref *ref, struct em_app_data *d,
		  const struct em_app_digest *want);
/* "DIGEST:WORDS:EXPECTED:CHECKS" (no commas or spaces: a kernel command line's word) */
void em_app_digest_format(const struct em_app_digest *dg, char *buf, size_t len);
int em_app_digest_parse(const char *s, struct em_app_digest *dg);

/* colscan query q (cycled): the kernel's args[4..7] (see colscan.c). */
void em_app_colscan_query(uint64_t q, uint64_t args[4]);
/* The SSB query of app name "ssb-q1.1" .. "ssb-q4.3" (0..12), or -1. */
int em_app_ssb_query(const char *name);
/* ssb query q (0..12): the colscan kernel's args[4..7]. */
void em_app_ssb_args(int q, uint64_t args[4]);

#ifdef __cplusplus
}
#endif

#endif /* EMBER_APP_INPUTS_H */
