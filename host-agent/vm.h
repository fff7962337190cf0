/* SPDX-License-Identifier: MIT */
/*
 * Booting one test VM: QEMU started directly with an emgpu, the guest image
 * and a kernel command line naming the scenarios to run. The guest's JSON
 * lines arrive on the second serial port, kept in <workdir>/results.jsonl;
 * the console goes to <workdir>/console.log and QEMU's own output to
 * <workdir>/qemu.log.
 */
#ifndef EMBER_AGENT_VM_H
#define EMBER_AGENT_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

struct em_vm_config {
	const char *qemu;		/* qemu-system-x86_64 with emgpu */
	const char *kernel;		/* guest bzImage */
	const char *initrd;		/* guest initramfs */
	const char *workdir;		/* created if missing */
	const char *profile;		/* emgpu profile, e.g. "h200-256m" */
	const char *device_opts;	/* extra ",key=value" for -device emgpu */
	const char *scenarios;		/* comma-separated, for the guest's init */
	const char *accel;		/* "tcg" (default) or "kvm" */
	uint64_t seed;
	unsigned int memory_mib;	/* guest RAM, default 512 */
	unsigned int timeout_s;		/* wall-clock limit, default 120 */
};

struct em_vm {
	struct em_vm_config cfg;
	pid_t pid;
	double started;			/* monotonic seconds */
	char console_path[4096];
	char results_path[4096];
	char qemu_log_path[4096];
	char qmp_path[4096];
};

struct em_vm_outcome {
	bool timed_out;
	int exit_status;		/* QEMU's, or -signal */
	double wall_s;
};

/* mkdir -p; returns 0 or -errno (with a message on stderr). */
int em_mkdir_p(const char *path);

/*
 * Starts QEMU paused (-S) only to realize an emgpu with device_opts, as a
 * configuration check. Returns QEMU's exit status (0: the device was
 * accepted and QEMU was stopped after timeout_s), with its output in msg.
 */
int em_vm_check_device(const char *qemu, const char *device_opts,
		       unsigned int timeout_s, char *msg, size_t len);

/* Starts QEMU; returns 0 or -errno (with a message on stderr). */
int em_vm_start(struct em_vm *vm, const struct em_vm_config *cfg);

/* Waits for QEMU to exit, killing it at the configured timeout. */
void em_vm_wait(struct em_vm *vm, struct em_vm_outcome *out);

/*
 * Loads the guest's JSON lines as an array of objects. Lines that do not
 * parse (a guest that died mid-line) are skipped and counted in *bad.
 * Returns NULL only if the file cannot be read.
 */
json_t *em_results_load(const char *path, unsigned int *bad);

/* First result of scenario that has key, or NULL. */
json_t *em_results_find(json_t *results, const char *scenario,
			const char *key);

#endif /* EMBER_AGENT_VM_H */
