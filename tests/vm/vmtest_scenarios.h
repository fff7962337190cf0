/* SPDX-License-Identifier: MIT */
/*
 * The VM test's scenario table, compiled into both of its halves: the
 * guest program (guest/ember-vmtest.c), which runs the scenarios and names
 * each call it makes after a row here, and the host harness (vmtest.c),
 * which boots VMs with these scenario names and judges each call's errno
 * by the same row. A call exists in both or in neither: the guest names it
 * by its enum constant, the host iterates the rows.
 *
 * Errnos are <errno.h>'s symbols (guest and host are both x86-64 Linux);
 * 0: the call must succeed.
 */
#ifndef VMTEST_SCENARIOS_H
#define VMTEST_SCENARIOS_H

#include <errno.h>

#include "uapi/ember.h"

/*
 * The guest's scenarios: X(name, function), the function being
 * scenario_<function> of the guest. A name with a '-' in it is a workload
 * instead ("<kernel>-<variant>-<factor>x...", scenario_workload()).
 */
#define VMTEST_SCENARIOS(X)					\
	X(probe, probe)						\
	X(info, probe)		/* what `make run` shows */	\
	X(reload, reload)					\
	X(badioctl, badioctl)					\
	X(hold, hold)						\
	X(managed_cpu, managed_cpu)				\
	X(managed_badinput, managed_badinput)			\
	X(invalid_access, invalid_access)			\
	X(interleave, interleave)				\
	X(concurrent, concurrent)				\
	X(eviction, eviction)					\
	X(unload_after_use, unload_after_use)			\
	X(adaptive, adaptive)					\
	X(external_policy, external_policy)			\
	X(adaptive_params, adaptive_params)			\
	X(policy_hooks, policy_hooks)				\
	X(table1_switches, table1_switches)			\
	X(limits, limits)					\
	X(autouvm, autouvm)					\
	X(ariadne, ariadne)

/* badioctl: malformed ioctls on /dev/ember, X(call, errno). */
#define VMTEST_BADIOCTL_CALLS(X)				\
	X(unknown_cmd, ENOTTY)					\
	X(wrong_size, ENOTTY)					\
	X(null_pointer, EFAULT)					\
	X(bad_pointer, EFAULT)					\
	X(nonzero_pad, EINVAL)					\
	X(no_such_gpu, ENODEV)

/*
 * managed_badinput: every managed-memory ioctl and mmap with bad
 * arguments (docs/specs/uapi.md), X(call, errno), in the guest's order.
 */
#define VMTEST_MANAGED_BADINPUT_CALLS(X)			\
	X(policy_uvm_before_mmap, 0)				\
	X(policy_unknown, ENOENT)				\
	X(policy_empty, EINVAL)					\
	X(policy_unterminated, EINVAL)				\
	X(mmap_private, EINVAL)					\
	X(mmap_unaligned_length, EINVAL)			\
	X(mmap_unaligned_address, EINVAL)			\
	X(mmap_offset_not_address, EINVAL)			\
	X(munmap_partial, EINVAL)				\
	X(mremap_move, EINVAL)					\
	X(policy_after_mmap, EBUSY)				\
	X(advise_ok, 0)						\
	X(advise_zero_length, EINVAL)				\
	X(advise_unaligned_addr, EINVAL)			\
	X(advise_unaligned_length, EINVAL)			\
	X(advise_overflow, EOVERFLOW)				\
	X(advise_unknown_advice, EINVAL)			\
	X(advise_zero_advice, EINVAL)				\
	X(advise_bad_processor, EINVAL)				\
	X(advise_accessed_by_cpu, EINVAL)			\
	X(advise_flags, EINVAL)					\
	X(advise_pad, EINVAL)					\
	X(advise_outside, EFAULT)				\
	X(advise_straddles_end, EFAULT)				\
	X(prefetch_cpu_ok, 0)					\
	X(prefetch_zero_length, EINVAL)				\
	X(prefetch_unaligned, EINVAL)				\
	X(prefetch_overflow, EOVERFLOW)				\
	X(prefetch_no_processor, EINVAL)			\
	X(prefetch_flags, EINVAL)				\
	X(prefetch_outside, EFAULT)				\
	X(launch_no_kernel, EINVAL)				\
	X(launch_kernel_too_big, EINVAL)			\
	X(launch_flags, EINVAL)					\
	X(launch_pad, EINVAL)					\
	X(synchronize_flags, EINVAL)				\
	X(mem_get_info_ok, 0)					\
	X(mem_get_info_gpu_index, EINVAL)			\
	X(mem_get_info_pad, EINVAL)				\
	X(stats_scope, EINVAL)					\
	X(stats_pad, EINVAL)					\
	X(stats_null, EFAULT)

struct vmtest_call {
	const char *call;
	int errno_expected;
};

#define VMTEST_CALL_ENUM_(call, err)	VMTEST_BADIOCTL_##call,
enum vmtest_badioctl { VMTEST_BADIOCTL_CALLS(VMTEST_CALL_ENUM_) VMTEST_NBADIOCTL };
#undef VMTEST_CALL_ENUM_
#define VMTEST_CALL_ENUM_(call, err)	VMTEST_BADINPUT_##call,
enum vmtest_badinput {
	VMTEST_MANAGED_BADINPUT_CALLS(VMTEST_CALL_ENUM_) VMTEST_NBADINPUT
};
#undef VMTEST_CALL_ENUM_

#define VMTEST_CALL_ROW_(call, err)	{ #call, err },
static const struct vmtest_call vmtest_badioctl_calls[] = {
	VMTEST_BADIOCTL_CALLS(VMTEST_CALL_ROW_)
};
static const struct vmtest_call vmtest_badinput_calls[] = {
	VMTEST_MANAGED_BADINPUT_CALLS(VMTEST_CALL_ROW_)
};
#undef VMTEST_CALL_ROW_

/*
 * policy_hooks: the result line's key for each hook's call count,
 * "hook_<member of struct ember_policy_ops>", by enum ember_policy_hook.
 */
#define VMTEST_HOOK_KEY_(id, member)	"hook_" #member,
static const char *const vmtest_hook_keys[EMBER_POLICY_HOOKS] = {
	EMBER_POLICY_HOOK_LIST(VMTEST_HOOK_KEY_)
};
#undef VMTEST_HOOK_KEY_

#endif /* VMTEST_SCENARIOS_H */
