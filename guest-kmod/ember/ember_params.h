/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ember_params.h: ember.ko's own module parameters, one list per file
 * that holds them; the policies' are policy/ember_adaptive_params.h's and
 * policy/ember_policy_params.h's. Each list makes the variables and their
 * module parameters with the descriptions (EMBER_PARAM_DESC), ember_drv.h's
 * declarations, and ember-agent's check of a matrix's modparams
 * (host-agent/modparams.c). A default, range or description changes here
 * and nowhere else.
 *
 * X(name, var, default, min, max, perm, description): the module
 * parameter name, a uint kept in var, valid in [min, max]: its setter
 * (EMBER_RANGE_PARAM) refuses a value outside with EINVAL, at load and on
 * a write through /sys/module/ember/parameters where perm allows one.
 *
 *   EMBER_DRIVER_PARAMS  ember_main.c's: fault batches, timeouts, retries
 *   EMBER_LIMIT_PARAMS   ember_limits.c's: what one opener may take
 *
 * EMBER_ULONG_PARAMS: X(name, var, default, perm, description), a ulong
 * taking any value (ember_policy.c).
 *
 * Macros only, no includes: the file compiles in the kernel, in user space
 * and in the C preprocessor alone.
 */
#ifndef EMBER_PARAMS_H
#define EMBER_PARAMS_H

/* Entries of the fault buffer: the most one batch can fetch. */
#define EMBER_FAULT_BUF_ENTRIES	1024
/* The largest uint, the bound of a parameter bounded only below. */
#define EMBER_PARAM_UINT_MAX	4294967295

#define EMBER_DRIVER_PARAMS(X)						\
	X(uvm_perf_fault_batch_count, ember_fault_batch_count, 256,	\
	  1, EMBER_FAULT_BUF_ENTRIES, 0444,				\
	  "Fault entries fetched per batch")				\
	X(launch_timeout_ms, ember_launch_timeout_ms, 600000,		\
	  100, EMBER_PARAM_UINT_MAX, 0644,				\
	  "Limit of a synchronize in device time (the device clock advanced this much), ms") \
	X(hw_timeout_ms, ember_hw_timeout_ms, 2000,			\
	  10, EMBER_PARAM_UINT_MAX, 0644,				\
	  "Limit for a copy or TLB invalidate to complete, ms")		\
	X(hang_timeout_ms, ember_hang_timeout_ms, 10000,		\
	  100, EMBER_PARAM_UINT_MAX, 0644,				\
	  "Device clock standing still during a launch, the device not waiting for the driver, " \
	  "for this long in 50 ms watchdog polls is a hang: reset, launch fails with EIO, ms") \
	X(ce_retries, ember_ce_retries, 3, 0, 16, 0644,			\
	  "Times a copy-engine batch that reported an error is resubmitted before its copies " \
	  "fail with EIO")

#define EMBER_LIMIT_PARAMS(X)						\
	X(max_managed_mb_per_open, ember_max_managed_mb_per_open, 65536, \
	  2, 16777216, 0644,						\
	  "Managed bytes one open of /dev/ember may mmap, MiB; past it mmap fails with ENOMEM") \
	X(max_managed_mb, ember_max_managed_mb, 262144, 2, 16777216, 0644, \
	  "Managed bytes all opens together may mmap, MiB; past it mmap fails with ENOMEM") \
	X(max_launches_per_open, ember_max_launches_per_open, 64, 1, 65536, 0644, \
	  "Outstanding launches (running or waiting for the GPU) of one open; past it "	\
	  "EMBER_IOCTL_LAUNCH fails with EAGAIN")			\
	X(max_launches, ember_max_launches, 1024, 1, 65536, 0644,	\
	  "Outstanding launches of all opens together; past it "	\
	  "EMBER_IOCTL_LAUNCH fails with EAGAIN")			\
	X(launch_hold_ms, ember_launch_hold_ms, 3600000, 1, EMBER_PARAM_UINT_MAX, 0644, \
	  "Device time one launch may hold the GPU, ms; past it the launch is ended by a device " \
	  "reset and fails with ETIME")

#define EMBER_ULONG_PARAMS(X)						\
	X(ember_ns_per_ms, ember_ns_per_ms, 0, 0444,			\
	  "Device ns per ms of the Ember periods (default 0: 1000000 x VRAM / "	\
	  "the full card's VRAM, the scaling rule)")

#endif /* EMBER_PARAMS_H */
