// SPDX-License-Identifier: GPL-2.0
/*
 * ember_ac.ko: registers the `ac` policy (policy/ember_policy_ac.c) from a
 * module of its own through ember_register_policy() — the way a researcher
 * adds a policy without touching the driver. Select it per VA space:
 * ember-run -P ac.
 */
#include <linux/module.h>

#include "ember_policy.h"

module_param_named(ac_threshold, ember_ac_params.threshold, uint, 0444);
MODULE_PARM_DESC(ac_threshold,
		 "Accesses before a notification migrates a block (1..65535, default 256)");

/* The ops table with this module as owner, so it cannot unload under use. */
static struct ember_policy_ops ember_ac_ops;

static int __init ember_ac_init(void)
{
	if (!ember_ac_params.threshold || ember_ac_params.threshold > 65535) {
		pr_err("ember_ac: ac_threshold=%u is out of range [1, 65535]\n",
		       ember_ac_params.threshold);
		return -EINVAL;
	}
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
