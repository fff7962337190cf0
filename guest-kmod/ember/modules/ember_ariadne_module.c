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

/* Names, defaults, ranges and descriptions: policy/ember_policy_params.h. */
#define ARIADNE_PARAM(name, def, min, max, desc)			\
	module_param_named(name, ariadne_params.name, uint,		\
			   EMBER_POLICY_PARAM_PERM);			\
	MODULE_PARM_DESC(name, EMBER_PARAM_DESC(name, def, min, max, desc));
ARIADNE_PARAMS(ARIADNE_PARAM)
#undef ARIADNE_PARAM

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
