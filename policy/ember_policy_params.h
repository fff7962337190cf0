/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ember_policy_params.h: the module parameters of the policies beside
 * Ember-adaptive (whose own are ember_adaptive_params.h's), one list per
 * policy, in that file's shape: X(name, default, min, max, description),
 * a module parameter of type unsigned int (uint) valid in [min, max], and
 * the field of that name in the policy's parameter struct. Each list
 * makes the struct and its defaults (ember_policy.h,
 * ember_policy_ariadne.h), its range check, the module parameters with
 * their descriptions (EMBER_PARAM_DESC), and ember-agent's check of a
 * matrix's modparams (host-agent/modparams.c). A default, range or
 * description changes here and nowhere else.
 *
 *   EMBER_UVM_PARAMS  the `uvm` policy's, ember.ko's parameters
 *                     (guest-kmod/ember/ember_policy.c), named as
 *                     nvidia-uvm names them. nvidia-uvm declares its own
 *                     two, with the same defaults and ranges, in NVIDIA's
 *                     uvm_perf_prefetch.c, not in our glue: making those
 *                     from this list would take a patch to NVIDIA's
 *                     source in the series, so they share it by name only.
 *   EMBER_AC_PARAMS   ember_ac.ko's (guest-kmod/ember/modules/ember_ac_module.c)
 *   ARIADNE_PARAMS    ember_ariadne.ko's
 *                     (guest-kmod/ember/modules/ember_ariadne_module.c)
 *
 * Every parameter of these lists is read-only after load
 * (EMBER_POLICY_PARAM_PERM, their sysfs mode): ember_ac.ko and
 * ember_ariadne.ko check the ranges at load only.
 *
 * Macros only; the one include, ember_adaptive_params.h, is macros only
 * too: the file compiles in the kernel, in user space and in the C
 * preprocessor alone.
 */
#ifndef EMBER_POLICY_PARAMS_H
#define EMBER_POLICY_PARAMS_H

#include "ember_adaptive_params.h"	/* EMBER_PARAM_DESC */

/* nvidia-uvm's TBN prefetcher threshold, percent (ember_perf_prefetch.c) */
#define EMBER_PREFETCH_THRESHOLD_DEFAULT	51
/* accesses before an access-counter notification, nvidia-uvm's default */
#define EMBER_AC_THRESHOLD_DEFAULT	256
/* ARIADNE: the longest fault history of a VA block, and so the highest
 * sharing degree */
#define ARIADNE_HISTORY_MAX	32

/* The sysfs mode of every parameter of these lists. */
#define EMBER_POLICY_PARAM_PERM	0444

#define EMBER_UVM_PARAMS(X)						\
	X(uvm_perf_prefetch_enable, 1, 0, 1,				\
	  "uvm policy: tree-based neighbourhood prefetch on faults")	\
	X(uvm_perf_prefetch_threshold, EMBER_PREFETCH_THRESHOLD_DEFAULT, 1, 100, \
	  "uvm policy: TBN occupancy threshold in percent")

#define EMBER_AC_PARAMS(X)						\
	X(ac_threshold, EMBER_AC_THRESHOLD_DEFAULT, 1, 65535,		\
	  "Accesses before a notification migrates a block")

#define ARIADNE_PARAMS(X)						\
	X(history, 16, 1, ARIADNE_HISTORY_MAX,				\
	  "Faults kept per VA block for its sharing degree")		\
	X(sd_weight_us, 100, 0, 1000000,				\
	  "Eviction key weight of the sharing degree, us")		\
	X(prefetch_sd, 3, 0, ARIADNE_HISTORY_MAX,			\
	  "Copy the whole block above this sharing degree")		\
	X(zero_copy_ms, 100, 1, 100000,					\
	  "Stay of a refetched block in host memory, ms")		\
	X(wcss_keep_ms, 500, 1, 100000,					\
	  "Evicted blocks stay in the working chunk set, ms")		\
	X(sparse_sd, 2, 1, ARIADNE_HISTORY_MAX,				\
	  "GPU-wide average sharing degree counted sparse")		\
	X(ample_free_pct, 50, 0, 100,					\
	  "Free device memory that is ample, %")			\
	X(evict_free_pct, 5, 0, 50,					\
	  "Free device memory the eviction worker keeps, %")		\
	X(evict_period_us, 1000, 10, 1000000,				\
	  "Period of the eviction worker, device us")			\
	X(prefetch_threshold, EMBER_PREFETCH_THRESHOLD_DEFAULT, 1, 100,	\
	  "Stock prefetcher threshold, %")

/* A list's entry as a field of its struct, and as that field's default. */
#define EMBER_PARAM_FIELD(name, def, min, max, desc)	unsigned int name;
#define EMBER_PARAM_DEFAULT(name, def, min, max, desc)	.name = def,

#endif /* EMBER_POLICY_PARAMS_H */
