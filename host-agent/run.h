/* SPDX-License-Identifier: MIT */
/*
 * One run of a matrix as the scheduler, its back-ends and the judge take
 * it: what every run of its matrix shares (em_run_settings), the run
 * itself (em_run), how it ended (em_run_outcome), and where the built
 * pieces are (em_paths). The matrix (matrix.h) plans the runs; nothing
 * that takes them reads the matrix.
 */
#ifndef EMBER_AGENT_RUN_H
#define EMBER_AGENT_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

/* a policy name as ember.ko registers it: at most 15 characters */
#define EM_POLICY_NAME_MAX	16
/* the drivers of key `driver` */
#define EM_DRIVER_EMBER		"ember"
#define EM_DRIVER_NVIDIA_UVM	"nvidia-uvm"

/* Where the built pieces are (the Makefile passes them). */
struct em_paths {
	const char *qemu, *kernel, *initrd;
	const char *initrd_nvidia_uvm;	/* the nvidia-uvm image, for driver nvidia-uvm */
	const char *results;	/* parent of <name>/ */
	const char *accel;
};

/* What the runs of one matrix share: their VM and the guest's settings. */
struct em_run_settings {
	char profile[64];	/* emgpu profile */
	unsigned int memory_mib;	/* guest RAM */
	unsigned int timeout_s;	/* per run */
	char run_args[256];	/* extra ember-run arguments */
	char modparams[512];	/* ember.ko's, comma-separated, for the guest's insmod */
	char nvuvm_branch[32];	/* "": the nvidia-uvm image's newest */
	/* under nvidia-uvm, emgpu's personality ("ga10x", "gh100"): the matrix's
	 * nvuvm_personality, else the profile's nvidia_personality; "" without
	 * nvidia-uvm */
	char nvuvm_personality[8];
	/* under nvidia-uvm, uvm_perf_pma_batch_nonpinned_order: the matrix's
	 * nvuvm_pma_batch_order, else -1 (the scaling rule's, matrix.c) */
	int nvuvm_pma_batch_order;
	/* emgpu's driver-cost, "measured" (the default) or "assumed" */
	char driver_cost[16];
};

/* One combination of the matrix. */
struct em_run {
	const struct em_run_settings *settings;	/* its matrix's */
	char id[160];
	const char *app, *variant;
	char policy[EM_POLICY_NAME_MAX];	/* the policy ember.ko runs it under */
	const char *driver;	/* EM_DRIVER_EMBER or EM_DRIVER_NVIDIA_UVM */
	/* nvidia-uvm's parameters for this run (the guest's nvuvm_modparams=,
	 * comma-separated), or "" */
	char nvuvm_modparams[192];
	/* the nvidia-uvm module it loads (the guest's nvuvm_module=), or "" */
	const char *nvuvm_module;
	double factor;
	uint64_t seed;
	char dir[4096];		/* logs and result.json */
	char args[512];		/* ember-run arguments, comma-separated */
	char sweep[96];		/* this run's sweep options ("-r 0 -u 32"), or "" */
	const char *inject_kind;	/* NULL: no injection */
	const char *inject_spec;
	/* what the kind must lead to: its matrix's expect.KIND, else the
	 * driver's (em_inject_expected) */
	const char *inject_expected;
	/* filled while it runs */
	json_int_t injections_fired;	/* -1: unknown */
	json_int_t injections_in_launch;	/* of those, hitting a launch */
	char inject_error[256];
	json_t *device;		/* emgpu's stats at the guest's end, or NULL */
};

/* Outcome of one run however it ran (QEMU directly or through libvirt). */
struct em_run_outcome {
	bool timed_out;
	int exit_status;
	double wall_s;
	double cpu_s;		/* the VM's CPU seconds; 0 where unknown (libvirt) */
	const char *host;	/* "local" or the libvirt URI */
	/* the host went away before the run ended: not a result, rerun it */
	bool host_lost;
	/* lines from the guest that broke the host's protocol, ignored (vm.h) */
	unsigned int guest_errors;
	/* the file whose cap the guest passed (vm.h's EM_VM_CAPS), the VM
	 * stopped there; NULL: none */
	const char *cap_file;
	uint64_t cap_bytes;
};

#endif /* EMBER_AGENT_RUN_H */
