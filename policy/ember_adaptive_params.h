/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ember_adaptive_params.h: Table 1 of the Ember paper, Ember-adaptive's
 * parameters, as the one list everything else is generated from: the
 * fields of struct ember_adaptive_params, EMBER_ADAPTIVE_PARAMS_DEFAULT
 * and the range checks (ember_adaptive.h, ember_adaptive.c), the module
 * parameters of ember.ko (guest-kmod/ember/ember_policy.c) and of
 * nvidia-uvm (guest-kmod/nvidia-uvm/glue/uvm_ember.c) with their
 * descriptions, guest-kmod/nvidia-uvm/check.sh's modinfo check
 * (guest-kmod/nvidia-uvm/common.sh, table1()), ember-agent's check of a
 * matrix's modparams (host-agent/modparams.c) and docs/table1.md
 * (`make table1-doc`). A default, range or description changes here and
 * nowhere else.
 *
 * Each entry is X(name, default, min, max, description): a field and a
 * module parameter of type unsigned int (uint), valid in [min, max].
 * Relations between parameters (the low watermark below the high one, ...)
 * are ember_adaptive_params_check()'s. The values are plain decimal
 * literals: they are also stringified into the module parameters'
 * descriptions and the docs.
 *
 * Macros only, no includes: the file compiles in the kernel, in user space
 * and in the C preprocessor alone.
 */
#ifndef EMBER_ADAPTIVE_PARAMS_H
#define EMBER_ADAPTIVE_PARAMS_H

/* Promotion (section 5.2) */
#define EMBER_TABLE1_PROMOTION(X)					\
	X(cpu_preferred_blocks_enable, 0, 0, 1,				\
	  "Ember-adaptive master switch: `ember` is new VA spaces' policy") \
	X(cpu_preferred_block_promotion_enable, 1, 0, 1,		\
	  "Promote a span of blocks on a notification at the threshold") \
	X(cpu_preferred_prefetch_chunk_mb, 64, 2, 1048576,		\
	  "Span promoted per notification, MiB (even)")			\
	X(perf_access_counter_threshold, 256, 1, 65535,			\
	  "Accesses before a notification")

/* Reclamation (section 5.3) */
#define EMBER_TABLE1_RECLAMATION(X)					\
	X(perf_eager_eviction_enable, 1, 0, 1,				\
	  "Decay-based eager reclamation")				\
	X(perf_eager_eviction_high_watermark, 90, 1, 100,		\
	  "Device memory use forcing eviction, %")			\
	X(perf_eager_eviction_low_watermark, 85, 0, 99,			\
	  "Device memory use reclamation targets, %, below the high one") \
	X(perf_eager_eviction_interval_ms, 25, 1, 60000,		\
	  "Aging period, ms")						\
	X(perf_eager_eviction_batch_count, 16, 1, 4096,			\
	  "Root chunks evicted per pass at most")			\
	X(perf_eager_eviction_heat_ratio, 2, 1, 1000,			\
	  "Hottest:coldest demand ratio that replaces below the high watermark") \
	X(perf_eager_eviction_stale_intervals, 5, 1, 1000,		\
	  "Intervals at zero demand until a chunk is cold")

/* Migration-aware protection (sections 5.1 and 5.3) */
#define EMBER_TABLE1_PROTECTION(X)					\
	X(perf_migration_aware_eviction_enable, 1, 0, 1,		\
	  "Migration-aware protection and victim order")		\
	X(perf_migration_eviction_base_grace_ms, 100, 0, 600000,	\
	  "Grace after arrival, ms")					\
	X(perf_migration_eviction_return_window_ms, 500, 0, 600000,	\
	  "Window counting returns after an eviction, ms")		\
	X(perf_migration_eviction_score_grace_ms, 250, 0, 600000,	\
	  "Grace per migration score point, ms")			\
	X(perf_migration_eviction_max_grace_ms, 2000, 0, 600000,	\
	  "Grace cap, ms, at least the base grace")			\
	X(perf_migration_eviction_decay_ms, 1000, 1, 600000,		\
	  "Migration score halving period, ms")

/* Table 1, in the paper's order. */
#define EMBER_TABLE1_PARAMS(X)						\
	EMBER_TABLE1_PROMOTION(X)					\
	EMBER_TABLE1_RECLAMATION(X)					\
	EMBER_TABLE1_PROTECTION(X)

/*
 * Not in Table 1, and not the paper's policy (experiments, 0 by default),
 * ember.ko's only. ember_replace_on_demand: below the high watermark,
 * evict only while a promotion waits for room (waiting_demand > 0), so a
 * resident chunk that the counters cannot see is not reclaimed for
 * nothing (ember_reclaim_select()).
 */
#define EMBER_ADAPTIVE_EXTRA_PARAMS(X)					\
	X(ember_replace_on_demand, 0, 0, 1,				\
	  "Experiment outside the paper: below the high watermark evict only while a promotion waits for room")

/* Every uint parameter: Table 1, then the experiments. */
#define EMBER_ADAPTIVE_PARAMS(X)					\
	EMBER_TABLE1_PARAMS(X)						\
	EMBER_ADAPTIVE_EXTRA_PARAMS(X)

/*
 * A module parameter's description, for an entry of this list or of any
 * list of Ember's parameters (ember_policy_params.h,
 * guest-kmod/ember/ember_params.h): the entry's text, its range and its
 * default, e.g. "Aging period, ms (1..60000, default 25)", each value
 * macro-expanded first (ARIADNE_HISTORY_MAX reads 32). modinfo shows it;
 * guest-kmod/nvidia-uvm/check.sh looks for "default N)".
 */
#define EMBER_PARAM_STR(x)	#x
#define EMBER_PARAM_DESC(name, def, min, max, desc)			\
	desc " (" EMBER_PARAM_STR(min) ".." EMBER_PARAM_STR(max)	\
	", default " EMBER_PARAM_STR(def) ")"

#endif /* EMBER_ADAPTIVE_PARAMS_H */
