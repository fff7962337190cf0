/* SPDX-License-Identifier: MIT */
/*
 * The Ember paper's applications over libember (section 7.3: pathfinder,
 * kmeans, cnn, bitonic sort, radix sort, BFS; plus GEMV as the LLM
 * token-generation proxy, a column scan as the SSB-query proxy, and the 13
 * SSB queries one by one; ARIADNE's workloads). Each app sizes its inputs
 * from a footprint (factor x VRAM), allocates them as managed memory, fills
 * them through the CPU pointers, runs the built-in device kernel once per
 * phase (the launch is the barrier between phases), and verifies every
 * output word through the CPU pointers against a CPU reference. They are
 * entries of em_wl_run()'s one table (apps.c), beside the
 * microbenchmarks, with the same variant calls (uvm, prefetch, mapped,
 * static; and autouvm, theirs alone), so every app runs under every
 * variant. The apps, their kernels, aliases, passes and launches:
 * workloads/app_list.h. decode is an LLM decode step: L layers' weights
 * and KV caches packed by a caching allocator into 3 managed pools
 * (workloads/decode.c).
 */
#ifndef EMBER_APPS_H
#define EMBER_APPS_H

#include <stddef.h>
#include <stdio.h>

#include "workload.h"

/* Extra JSON fields of an application run (leading comma); none otherwise. */
void em_app_json(FILE *f, const struct em_wl_config *cfg,
		 const struct em_wl_result *r);
/* Every -k name but trace:FILE, "stream|gather|...", for usage lines. */
void em_app_names(FILE *f);

#endif /* EMBER_APPS_H */
