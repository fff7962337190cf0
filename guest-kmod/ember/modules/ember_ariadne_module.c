// SPDX-License-Identifier: GPL-2.0
/*
 * ember_ariadne.ko: registers the `ariadne` policy
 * (policy/ember_policy_ariadne.c) through ember_register_policy(), its
 * parameters as module parameters with the paper's defaults. A value out
 * of range refuses the load with a message naming it. Select it per VA
 * space: ember-run -P ariadne.
 */
#include <linux/module.h>

#include "ember_policy_ariadne.h"

#define ARIADNE_PARAM(name, desc)					\
	module_param_named(name, ariadne_params.name, uint, 0444);	\
	MODULE_PARM_DESC(name, desc)

ARIADNE_PARAM(history, "Faults kept per VA block for its sharing degree (1..32, default 16)");
ARIADNE_PARAM(sd_weight_us, "Eviction key weight of the sharing degree, us (0..1000000, default 100)");
ARIADNE_PARAM(prefetch_sd, "Copy the whole block above this sharing degree (0..32, default 3)");
ARIADNE_PARAM(zero_copy_ms, "Stay of a refetched block in host memory, ms (1..100000, default 100)");
ARIADNE_PARAM(wcss_keep_ms, "Evicted blocks stay in the working chunk set, ms (1..100000, default 500)");
ARIADNE_PARAM(sparse_sd, "GPU-wide average sharing degree counted sparse (1..32, default 2)");
ARIADNE_PARAM(ample_free_pct, "Free device memory that is ample, % (0..100, default 50)");
ARIADNE_PARAM(evict_free_pct, "Free device memory the eviction worker keeps, % (0..50, default 5)");
ARIADNE_PARAM(evict_period_us, "Period of the eviction worker, device us (10..1000000, default 1000)");
ARIADNE_PARAM(prefetch_threshold, "Stock prefetcher threshold, % (1..100, default 51)");

/* The ops table with this module as owner, so it cannot unload under use. */
static struct ember_policy_ops ember_ariadne_ops;

static int __init ember_ariadne_init(void)
{
	char msg[96];

	if (ariadne_params_check(&ariadne_params, msg, sizeof(msg))) {
		pr_err("ember_ariadne: %s\n", msg);
		return -EINVAL;
	}
	ember_ariadne_ops = ember_policy_ariadne;
	ember_ariadne_ops.owner = THIS_MODULE;
	return ember_register_policy(&ember_ariadne_ops);
}

static void __exit ember_ariadne_exit(void)
{
	ember_unregister_policy(&ember_ariadne_ops);
}

module_init(ember_ariadne_init);
module_exit(ember_ariadne_exit);

MODULE_DESCRIPTION("Ember: ARIADNE policy (sharing degree, dynamic zero-copy, SD-aware eviction)");
MODULE_LICENSE("GPL");
