// SPDX-License-Identifier: GPL-2.0
/*
 * ember_ac.ko: registers the `ac` policy (policy/ember_policy_ac.c) from a
 * module of its own through ember_register_policy() — the way a researcher
 * adds a policy without touching the driver. Select it per VA space:
 * ember-run -P ac.
 */
#include <linux/module.h>

#include "ember_policy.h"

/* Names, defaults, ranges and descriptions: policy/ember_policy_params.h. */
#define EMBER_AC_PARAM(name, def, min, max, desc)			\
	module_param_named(name, ember_ac_params.name, uint,		\
			   EMBER_POLICY_PARAM_PERM);			\
	MODULE_PARM_DESC(name, EMBER_PARAM_DESC(name, def, min, max, desc));
EMBER_AC_PARAMS(EMBER_AC_PARAM)
#undef EMBER_AC_PARAM

static bool ember_ac_param_in_range(unsigned int v, unsigned int min, unsigned int max)
{
	return v >= min && v <= max;
}

/* The ops table with this module as owner, so it cannot unload under use. */
static struct ember_policy_ops ember_ac_ops;

static int __init ember_ac_init(void)
{
#define EMBER_AC_RANGE(name, def, min, max, desc)			\
	if (!ember_ac_param_in_range(ember_ac_params.name, min, max)) {	\
		pr_err("ember_ac: " #name "=%u is out of range [%u, %u]\n",	\
		       ember_ac_params.name, min, max);			\
		return -EINVAL;						\
	}
	EMBER_AC_PARAMS(EMBER_AC_RANGE)
#undef EMBER_AC_RANGE
	ember_ac_ops = ember_policy_ac;
	ember_ac_ops.owner = THIS_MODULE;
	return ember_register_policy(&ember_ac_ops);
}

static void __exit ember_ac_exit(void)
{
	ember_unregister_policy(&ember_ac_ops);
}

module_init(ember_ac_init);
module_exit(ember_ac_exit);

MODULE_DESCRIPTION("Ember: access-counter migration policy (example external policy)");
MODULE_LICENSE("GPL");
