/* SPDX-License-Identifier: MIT */
/*
 * Workloads over libember, shared by ember-run and the VM tests: allocate
 * managed memory sized as a multiple of VRAM, fill the inputs through the
 * CPU pointers, apply a variant (the paper's Table 3 / Listing 1 call
 * sequences), launch a built-in kernel on the same pointers, synchronize,
 * and verify every output word through the CPU pointers against a CPU
 * reference.
 *
 * Kernel "movinghot" is the moving hot set of the paper's section 7.7
 * (Figures 7, 11, 16): a window of half the VRAM, read with reuse, moves in
 * `passes` steps (default 8) across the whole footprint, one launch per
 * position, so a placement fixed before the run stops matching the hot set
 * while one re-derived online follows it. Each position's modelled time is
 * reported (phase_ns). With a drift (ember-run -d, the paper's Table 10)
 * the window moves by that share of itself per phase instead, from the
 * start of the footprint, which must hold every position.
 *
 * Variants: uvm (M), prefetch (M+P: each allocation prefetched whole),
 * mapped (M+A: preferred location CPU + accessed-by GPU), static (M+A+P:
 * mapped, then the leading prefix of each allocation, as large as
 * emMemGetInfo() reports free, prefetched to the GPU).
 */
#ifndef EMBER_WORKLOAD_H
#define EMBER_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>

#include "libember.h"

struct em_wl_config {
	const char *kernel;	/* stream, gather, hotset, movinghot, an app (apps.h) */
	const char *variant;	/* uvm, prefetch, mapped, static */
	double factor;		/* footprint / VRAM */
	uint64_t seed;
	uint32_t passes;	/* stream, hotset; 0 = 1 */
	uint32_t warps;		/* 0 = device default */
	/* movinghot: move by drift % of the window per phase (else spread) */
	int drifting;
	uint32_t drift;
	/*
	 * hotset (the paper's Figure 16): with grid set, randomness (% of
	 * accesses to a random line of the whole buffer) and reuse (accesses
	 * per page) as given, in pattern "pass" (a window of one VA block
	 * slides once over the buffer, each page read `reuse` times while the
	 * window is on it) or "passes" (every page once per pass, `reuse`
	 * passes). Without grid: 10 % random, reuse 4, -p passes.
	 */
	int grid;
	uint32_t randomness, reuse;
	const char *pattern;
	/*
	 * Variant autouvm (applications): its profile file; a profiling run
	 * records it first when it does not exist.
	 */
	const char *autouvm_profile;
	/*
	 * Applications: the host's digest of a correct run's outputs
	 * (em_app_digest_parse's form), checked instead of the in-guest
	 * reference; NULL, or one that differs: the reference checks.
	 */
	const char *verify_digest;
};

#define EM_WL_MAX_PHASES 32
/* hotset grid: at most this many accesses per page (the kernel's limit) */
#define EM_WL_MAX_REUSE 65536

struct em_wl_result {
	int ret;			/* 0 or the first failing call's -errno */
	const char *failed;		/* that call's name */
	uint64_t vram;
	uint64_t footprint;		/* managed bytes allocated */
	uint64_t words_checked;
	uint64_t mismatches;
	int result_ok;			/* checksum equal (1), not (0), unknown (-1) */
	int verified_by_digest;		/* apps: by the host's digest (1) or the reference */
	uint64_t result, expected_result;
	uint64_t sim_ns;		/* the launch's modelled duration */
	uint64_t setup_ns;		/* device time of advise + prefetch */
	struct ember_stats_counters stats;	/* of this run's VA space */
	/*
	 * 1 in each counter of stats the driver counts (emGetStatsCounted);
	 * the JSON prints the others as null (nvidia-uvm counts few)
	 */
	struct ember_stats_counters counted;
	/*
	 * After a failed launch: every page of the buffers read back through
	 * the CPU; a page whose read fails (SIGBUS: its data was lost) is
	 * counted, any other page must hold what the kernel could have left
	 * (its input, or a partial result), never zeros in place of data
	 * (counted in mismatches). stream, gather and hotset check every
	 * word; bitonic and radix too, against their references after the
	 * launches that completed (verify_failed, workloads/<app>.c); the other
	 * applications (apps.c) check the buffers no launch writes, and read
	 * the others for lost pages only.
	 */
	uint64_t lost_pages;
	/*
	 * em_wl_health(): a fresh launch on the same VA space after a
	 * failure, after a synchronize that collects the error of a launch a
	 * timed-out wait left running (health_drain_ret; 0 if none)
	 */
	int health_drain_ret, health_ret;
	uint64_t health_words, health_mismatches;
	/* "movinghot": one launch per position of the hot window */
	uint32_t nphases;
	uint64_t window;		/* bytes of the hot window (movinghot, hotset grid) */
	uint64_t phase_ns[EM_WL_MAX_PHASES];
	/* what the policy did during each position's launch (counter deltas) */
	uint64_t phase_promotions[EM_WL_MAX_PHASES];
	uint64_t phase_promotions_halted[EM_WL_MAX_PHASES];
	uint64_t phase_eager_evictions[EM_WL_MAX_PHASES];
	uint64_t phase_timer_ticks[EM_WL_MAX_PHASES];
	/* variant autouvm: profiled in this run, profile refused (why), plan */
	int autouvm_profiled;
	char autouvm_error[160];
	uint64_t autouvm_matched, autouvm_unmatched, autouvm_prefetch_bytes;
};

/*
 * Runs cfg->kernel, a microbenchmark or an application (apps.h): every
 * one an entry of the same table, run by the same steps (apps.c,
 * runner.h). Returns res->ret.
 */
int em_wl_run(const struct em_wl_config *cfg, struct em_wl_result *res);
/*
 * Reads [p, p + bytes) through the CPU, page by page, after a failed
 * launch: a page whose read raises SIGBUS counts in lost_pages; with ok,
 * every word i of the other pages counts in words_checked, and in
 * mismatches where ok(ctx, i, value) is 0.
 */
typedef int (*em_wl_word_ok)(const void *ctx, size_t i, uint32_t v);
void em_wl_read_back(const void *p, size_t bytes, em_wl_word_ok ok,
		     const void *ctx, struct em_wl_result *r);
/*
 * The same read into copy (bytes of plain memory), for a check that needs
 * the whole buffer: a page whose read raises SIGBUS counts in lost_pages
 * and sets lost[its index] (4 KiB pages from p); its words in copy are
 * left as they were. Counts no word.
 */
void em_wl_copy_back(const void *p, size_t bytes, uint32_t *copy, uint8_t *lost,
		     struct em_wl_result *r);
/*
 * The health check after a failed run: synchronizes once (a launch still
 * running is waited for, its error kept in health_drain_ret), allocates
 * two VA blocks on the same VA space, fills them through the CPU, runs one
 * stream launch and verifies every word; fills health_* of res. Returns
 * health_ret.
 */
int em_wl_health(const struct em_wl_config *cfg, struct em_wl_result *res);
/*
 * Writes the JSON fields (no braces) describing a run. The checksums are
 * full 64-bit values, so they go out as decimal strings (JSON readers such
 * as jansson hold integers only up to 2^63 - 1); every other number stays
 * below that (ember-run refuses larger seeds).
 */
void em_wl_json(FILE *f, const struct em_wl_config *cfg,
		const struct em_wl_result *res);

#endif /* EMBER_WORKLOAD_H */
