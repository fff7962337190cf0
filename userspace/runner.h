/* SPDX-License-Identifier: MIT */
/*
 * libember's one workload runner (em_wl_run, apps.c), private to
 * libember: the state of a run, and the steps each entry of the runner's
 * table supplies. The paper's applications share one set of steps
 * (apps.c: sizes, inputs and CPU reference from workloads/, a launch
 * sequence each); the microbenchmarks stream, gather, hotset and
 * movinghot have theirs in workload.c.
 */
#ifndef EMBER_RUNNER_H
#define EMBER_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app_inputs.h"
#include "workload.h"

struct em_app;
struct em_autouvm;

/* One run of one entry. */
struct app_run {
	const struct em_wl_config *cfg;
	struct em_wl_result *r;
	const struct em_app *app;
	/*
	 * Sizes and buffers (the runner allocates bytes[i] into p[i]), the
	 * launches' summed result (r->result at the end) and, for the
	 * applications, their checks.
	 */
	struct em_app_data d;
	uint64_t ret_last;		/* result of the last launch */
	uint64_t launches_done;		/* launches that returned 0 */
	struct em_autouvm *au;		/* variant autouvm, else NULL */
	/* applications: the host's digest of a correct run (-V), if it parsed */
	bool have_digest;
	struct em_app_digest digest;
};

/*
 * What an entry does at each step of em_wl_run(), in this order:
 *   check    the configuration, before anything runs: 0, or the -errno
 *            with the failing item recorded in r (NULL: nothing to check)
 *   size     d.n[] and d.bytes[] from d.foot (factor x VRAM, at least
 *            4 MiB); the runner allocates every nonzero bytes[i] as
 *            managed memory and applies the variant's advice to it
 *   fill     writes the inputs through the CPU pointers; the runner then
 *            applies the variant's prefetches (r->setup_ns)
 *   launch   every launch, adding each one's result into d.result: 0, or
 *            nonzero with the failing call recorded in r
 *   after_error  after a failed launch: reads the buffers back through
 *            the CPU (lost pages, words that no launch could have left;
 *            NULL: none are read)
 *   verify   after the launches: r's words_checked, mismatches,
 *            expected_result and result_ok (-1 where nothing is compared
 *            with the result); 0 or a -errno
 */
struct em_run_steps {
	int (*check)(struct app_run *a);
	void (*size)(struct app_run *a);
	void (*fill)(struct app_run *a);
	int (*launch)(struct app_run *a);
	void (*after_error)(struct app_run *a);
	int (*verify)(struct app_run *a);
};

/*
 * An entry of the runner's table (one per line of app_list.h's
 * EM_MICROBENCHMARKS and EM_APPS; aliases share their application's). Only the paper's applications have a
 * ref (a CPU side in workloads/): they alone take variant autouvm and a
 * host digest (-V), print their steps' guest wall time, and add their
 * fields to the JSON (em_app_json).
 */
struct em_app {
	const char *name;
	uint32_t kernel;		/* enum emgpu_kernel_id */
	const struct em_run_steps *steps;
	/* the paper's applications (their steps are apps.c's): */
	const struct em_app_ref *ref;	/* sizes, inputs, reference */
	/* launches every phase */
	int (*launch)(struct app_run *a);
	/* bit i: no launch writes buffer i (checked word by word after an error) */
	unsigned int inputs;
};

/*
 * The entry ember-run -k name runs (apps.c's table, generated from
 * workloads/app_list.h; an alias or an SSB query finds its
 * application's), or NULL.
 */
const struct em_app *em_app_find(const char *name);

/* The microbenchmarks' steps (workload.c). */
extern const struct em_run_steps em_wl_stream_steps, em_wl_gather_steps,
	em_wl_hotset_steps, em_wl_movinghot_steps;

/*
 * The variant's calls on one buffer (workload.c): phase 0 its advice,
 * before the inputs are written, phase 1 its prefetches, after. 0 or a
 * -errno, with the failing call recorded in r.
 */
int em_wl_variant(const char *variant, void *p, size_t bytes, struct em_wl_result *r,
		  int phase);

#endif /* EMBER_RUNNER_H */
