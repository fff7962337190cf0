// SPDX-License-Identifier: GPL-2.0
/*
 * The policy registry and the built-in policies' parameters.
 *
 * Policies register with ember_register_policy(): ember.ko's own (`uvm`,
 * `ember`) exactly as a module of someone else's does (modules/ holds
 * `ac`). A VA space holds a reference on its policy's module for as long
 * as it uses it. The policies themselves are hardware-neutral C in
 * policy/; this file binds their parameters to module parameters: nvidia's
 * names for `uvm`, Table 1's for `ember`. They are read-only after load
 * (0444), checked at load: a bad set refuses the load with a message.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ember_drv.h"
#include "policy/ember_policy_ember.h"

#define EMBER_MAX_POLICIES 8

/*
 * uapi's hook list (EMBER_POLICY_HOOK_LIST, the hook_calls indices) names
 * the ops table's hooks in the table's order, and all of them: a hook
 * renamed, moved, added or removed in one and not the other fails the
 * build here.
 */
#define EMBER_HOOK_OFFSET(member)	offsetof(struct ember_policy_ops, member)
#define EMBER_HOOK_CHECK_(id, member)					\
	static_assert(EMBER_HOOK_OFFSET(member) == EMBER_HOOK_OFFSET(init) +	\
		      EMBER_HOOK_##id * sizeof(void (*)(void)),		\
		      "EMBER_POLICY_HOOK_LIST: " #member " out of place");
EMBER_POLICY_HOOK_LIST(EMBER_HOOK_CHECK_)
#undef EMBER_HOOK_CHECK_
static_assert(sizeof(struct ember_policy_ops) == EMBER_HOOK_OFFSET(init) +
	      EMBER_POLICY_HOOKS * sizeof(void (*)(void)),
	      "EMBER_POLICY_HOOK_LIST: the ops table has hooks the list lacks");

static DEFINE_MUTEX(ember_policies_lock);	/* protects ember_policies */
static const struct ember_policy_ops *ember_policies[EMBER_MAX_POLICIES];

/* ---- the hosts' allocator for the neutral core ---- */

void *ember_policy_zalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(ember_policy_zalloc);

void ember_policy_free(void *p)
{
	kvfree(p);
}
EXPORT_SYMBOL_GPL(ember_policy_free);
/* the stock prefetcher, for policies in modules of their own (ariadne) */
EXPORT_SYMBOL_GPL(ember_prefetch_tbn);

/* ---- `uvm`: nvidia-uvm's names and defaults ---- */

/* Names, defaults, ranges and descriptions: policy/ember_policy_params.h. */
#define EMBER_UVM_PARAM(name, def, min, max, desc)			\
	EMBER_RANGE_PARAM(name, ember_uvm_params.name, min, max,	\
			  EMBER_POLICY_PARAM_PERM,			\
			  EMBER_PARAM_DESC(name, def, min, max, desc));
EMBER_UVM_PARAMS(EMBER_UVM_PARAM)
#undef EMBER_UVM_PARAM

/* ---- `ember`: Table 1 of the paper ---- */

/*
 * Names, defaults, ranges and descriptions: policy/ember_adaptive_params.h,
 * Table 1 and then the experiments outside the paper.
 */
#define EMBER_AP_PARAM(name, def, min, max, desc)			\
	module_param_named(name, ember_params.name, uint, 0444);	\
	MODULE_PARM_DESC(name, EMBER_PARAM_DESC(name, def, min, max, desc));
EMBER_ADAPTIVE_PARAMS(EMBER_AP_PARAM)
#undef EMBER_AP_PARAM

/*
 * Not in Table 1. 0, the default, follows the scaling rule (models/
 * README.md): the periods shrink with the card, 1000000 x VRAM_SIZE /
 * FULL_VRAM_SIZE, as the promotion span and the reclamation batch do
 * (ember_adaptive_scale()); a profile with the rule off reports the two
 * sizes equal. A value fixes the unit (1000000: device ms).
 */
#define EMBER_ULONG_PARAM(name, var, def, perm, desc)			\
	static unsigned long var = def;					\
	module_param_named(name, var, ulong, perm);			\
	MODULE_PARM_DESC(name, desc);
EMBER_ULONG_PARAMS(EMBER_ULONG_PARAM)
#undef EMBER_ULONG_PARAM

/* ---- the registry ---- */

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
 * Return: 0, -EINVAL for a malformed table (ember_policy_ops_check()) or a
 * name in use, each with a kernel message, -ENOSPC when the registry is
 * full.
 */
int ember_register_policy(const struct ember_policy_ops *ops)
{
	char why[80];
	unsigned int i;
	int ret = -ENOSPC;

	if (ember_policy_ops_check(ops, why, sizeof(why))) {
		pr_err("ember: policy %.16s refused: %s\n",
		       ops && ops->name ? ops->name : "(null)", why);
		return -EINVAL;
	}
	mutex_lock(&ember_policies_lock);
	if (ember_policy_slot(ops->name)) {
		pr_err("ember: policy %s refused: name in use\n", ops->name);
		ret = -EINVAL;
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

/* The policy of new VA spaces: `ember` under Table 1's master switch. */
const struct ember_policy_ops *ember_policy_get_default(void)
{
	return ember_policy_get(ember_params.cpu_preferred_blocks_enable ?
				ember_policy_ember.name : ember_policy_uvm.name);
}

void ember_policy_put(const struct ember_policy_ops *ops)
{
	module_put(ops->owner);
}

/* Starts ops on vs (not yet vs->policy): its state, sized for vs's GPU. */
int ember_policy_space_init(struct ember_va_space *vs,
			    const struct ember_policy_ops *ops, void **pdata)
{
	struct ember_policy_env env = { 0 };

	*pdata = NULL;
	if (vs->gpu) {
		env.vram_bytes = vs->gpu->vram_size;
		env.full_vram_bytes = vs->gpu->full_vram_size;
		env.chunks_total = vs->gpu->pmm.nchunks;
	}
	if (!ops->init)
		return 0;
	ember_hook_count(vs, EMBER_HOOK_INIT);
	return ops->init(pdata, &env);
}

void ember_policy_space_fini(struct ember_va_space *vs,
			     const struct ember_policy_ops *ops, void *pdata)
{
	if (!ops->fini)
		return;
	ember_hook_count(vs, EMBER_HOOK_FINI);
	ops->fini(pdata);
}

int ember_policy_init(void)
{
	char msg[160];
	int ret;

	ember_params.ns_per_ms = ember_ns_per_ms;
	if (ember_policy_ember_check(msg, sizeof(msg))) {
		pr_err("ember: invalid Ember-adaptive parameters: %s\n", msg);
		return -EINVAL;
	}
	ret = ember_register_policy(&ember_policy_uvm);
	if (ret)
		return ret;
	ret = ember_register_policy(&ember_policy_ember);
	if (ret)
		ember_unregister_policy(&ember_policy_uvm);
	return ret;
}

void ember_policy_exit(void)
{
	ember_unregister_policy(&ember_policy_ember);
	ember_unregister_policy(&ember_policy_uvm);
}
