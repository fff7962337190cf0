// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Checks of a policy's ops table, the same in every host of the core: a
 * driver refuses to register a table this rejects.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#else
#include <stdio.h>
#endif

#include "ember_policy.h"

#define EMBER_POLICY_NAME_MAX	15

int ember_policy_ops_check(const struct ember_policy_ops *ops, char *msg,
			   size_t len)
{
	const char *why = NULL;

	if (!ops || !ops->name || !ops->name[0])
		why = "no name";
	else if (strlen(ops->name) > EMBER_POLICY_NAME_MAX)
		why = "name longer than 15 characters";
	else if (!ops->on_fault_block)
		why = "no on_fault_block";
	else if (ops->on_notification && !ops->promote_block)
		why = "on_notification without promote_block";
	else if (ops->pick_eager_victims && !ops->on_timer_tick)
		why = "pick_eager_victims without on_timer_tick";
	else if (ops->chunk_priv_size > EMBER_POLICY_CHUNK_PRIV_MAX)
		why = "chunk_priv_size above EMBER_POLICY_CHUNK_PRIV_MAX";
	if (!why)
		return 0;
	snprintf(msg, len, "%s", why);
	return -1;
}
