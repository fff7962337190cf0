// SPDX-License-Identifier: GPL-2.0
/*
 * The policy registry: ember.ko's built-in policies and those other
 * modules add with ember_register_policy(). A VA space holds a reference
 * on its policy's module for as long as it uses it.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "ember_drv.h"

#define EMBER_MAX_POLICIES 8

static DEFINE_MUTEX(ember_policies_lock);	/* protects ember_policies */
static const struct ember_policy_ops *ember_policies[EMBER_MAX_POLICIES];

/* uvm policy parameters, nvidia-uvm's names and defaults */
static unsigned int uvm_perf_prefetch_enable = 1;
module_param(uvm_perf_prefetch_enable, uint, 0444);
MODULE_PARM_DESC(uvm_perf_prefetch_enable,
		 "uvm policy: tree-based neighbourhood prefetch on faults (0 or 1, default 1)");

#define UVM_PERF_PREFETCH_THRESHOLD_DEFAULT EMBER_PREFETCH_THRESHOLD_DEFAULT
static unsigned int uvm_perf_prefetch_threshold =
	UVM_PERF_PREFETCH_THRESHOLD_DEFAULT;
module_param(uvm_perf_prefetch_threshold, uint, 0444);
MODULE_PARM_DESC(uvm_perf_prefetch_threshold,
		 "uvm policy: TBN occupancy threshold in percent (1..100, default 51)");

static const struct ember_policy_ops **ember_policy_slot(const char *name)
{
	unsigned int i;

	for (i = 0; i < EMBER_MAX_POLICIES; i++)
		if (ember_policies[i] && !strcmp(ember_policies[i]->name, name))
			return &ember_policies[i];
	return NULL;
}

/**
 * ember_register_policy() - make a policy selectable by name
 * @ops: the policy; must stay valid until ember_unregister_policy()
 *
 * Return: 0, -EINVAL for a bad name or no on_fault_block, -EEXIST for a
 * name in use, -ENOSPC when the table is full.
 */
int ember_register_policy(const struct ember_policy_ops *ops)
{
	unsigned int i;
	int ret = -ENOSPC;

	if (!ops || !ops->name || !ops->name[0] ||
	    strlen(ops->name) >= EMBER_POLICY_NAME_LEN || !ops->on_fault_block)
		return -EINVAL;
	mutex_lock(&ember_policies_lock);
	if (ember_policy_slot(ops->name)) {
		ret = -EEXIST;
		goto out;
	}
	for (i = 0; i < EMBER_MAX_POLICIES; i++) {
		if (!ember_policies[i]) {
			ember_policies[i] = ops;
			ret = 0;
			break;
		}
	}
out:
	mutex_unlock(&ember_policies_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(ember_register_policy);

void ember_unregister_policy(const struct ember_policy_ops *ops)
{
	const struct ember_policy_ops **slot;

	mutex_lock(&ember_policies_lock);
	slot = ember_policy_slot(ops->name);
	if (slot && *slot == ops)
		*slot = NULL;
	mutex_unlock(&ember_policies_lock);
}
EXPORT_SYMBOL_GPL(ember_unregister_policy);

/* Finds a policy and pins its module; NULL if unknown or going away. */
const struct ember_policy_ops *ember_policy_get(const char *name)
{
	const struct ember_policy_ops **slot, *ops = NULL;

	mutex_lock(&ember_policies_lock);
	slot = ember_policy_slot(name);
	if (slot && try_module_get((*slot)->owner))
		ops = *slot;
	mutex_unlock(&ember_policies_lock);
	return ops;
}

void ember_policy_put(const struct ember_policy_ops *ops)
{
	module_put(ops->owner);
}

int ember_policy_init(void)
{
	int ret;

	if (uvm_perf_prefetch_enable > 1) {
		pr_info("ember: invalid uvm_perf_prefetch_enable %u. Using 1 instead\n",
			uvm_perf_prefetch_enable);
		uvm_perf_prefetch_enable = 1;
	}
	if (!uvm_perf_prefetch_threshold || uvm_perf_prefetch_threshold > 100) {
		pr_info("ember: invalid uvm_perf_prefetch_threshold %u. Using %u instead\n",
			uvm_perf_prefetch_threshold,
			UVM_PERF_PREFETCH_THRESHOLD_DEFAULT);
		uvm_perf_prefetch_threshold = UVM_PERF_PREFETCH_THRESHOLD_DEFAULT;
	}
	ember_uvm_params.prefetch_enable = uvm_perf_prefetch_enable;
	ember_uvm_params.prefetch_threshold = uvm_perf_prefetch_threshold;
	ret = ember_register_policy(&ember_policy_uvm);
	if (ret)
		return ret;
	ret = ember_adaptive_init();	/* `ember`: Table 1's parameters */
	if (ret)
		ember_unregister_policy(&ember_policy_uvm);
	return ret;
}

void ember_policy_exit(void)
{
	ember_adaptive_exit();
	ember_unregister_policy(&ember_policy_uvm);
}
