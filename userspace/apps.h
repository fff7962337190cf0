/* SPDX-License-Identifier: MIT */
/*
 * The Ember paper's applications over libember (section 7.3: pathfinder,
 * kmeans, cnn, bitonic sort, radix sort, BFS; plus GEMV as the LLM
 * token-generation proxy, a column scan as the SSB-query proxy, and the 13
 * SSB queries one by one). Each app sizes its inputs from a footprint (factor x VRAM), allocates them as
 * managed memory, fills them through the CPU pointers, runs the built-in
 * device kernel once per phase (the launch is the barrier between phases),
 * and verifies every output word through the CPU pointers against a CPU
 * reference. They are entries of em_wl_run()'s one table (apps.c), beside
 * the microbenchmarks, with the same variant calls (uvm, prefetch,
 * mapped, static; and autouvm, theirs alone), so every app runs under
 * every variant.
 *
 *  app         kernel      -p (passes)            phases (launches)
 *  pathfinder  PATHFINDER  rows (32)              rows - 1
 *  kmeans      KMEANS      iterations (5)         2 per iteration
 *  cnn, conv   CONV        -                      1
 *  bitonic[_sort] BITONIC    log2 segment lines (5) 1 + s (s + 3) / 2
 *  radix[_sort] RADIX       4-bit passes (4)       3 per pass
 *  bfs         BFS         -                      levels + 1
 *  gemv, llm   GEMV        tokens (8)             1 per token
 *  colscan,ssb COLSCAN     queries (4, up to 8)   1 per query
 *  ssb-q1.1 .. ssb-q4.3  COLSCAN  -              1 (that SSB query)
 * ARIADNE's workloads (HPCA'26; sharing degree: sparse, dense, mixed):
 *  gemvrow     GEMV (32 rows per warp)  iterations (2)  1 per iteration
 *  atax        GEMV + GEMVT  iterations (2)       2 per iteration
 *  gemm        GEMM        rows of A (4)          k / 128 (tiles of k)
 *  nw          NW          -                      2 n / 32 - 1
 *  decode      GEMV        tokens (4)             2 per layer and token
 * decode is an LLM decode step: L layers' weights and KV caches packed by a
 * caching allocator into 3 managed pools (workloads/decode.c).
 */
#ifndef EMBER_APPS_H
#define EMBER_APPS_H

#include <stddef.h>
#include <stdio.h>

#include "workload.h"

/* Extra JSON fields of an application run (leading comma); none otherwise. */
void em_app_json(FILE *f, const struct em_wl_config *cfg,
		 const struct em_wl_result *r);
/* "pathfinder|kmeans|..." for usage lines. */
const char *em_app_names(void);

#endif /* EMBER_APPS_H */
