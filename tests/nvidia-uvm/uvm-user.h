/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs of tests/nvidia-uvm/ do as libcuda does, shared
 * by uvm-builtin-tests (its GPU VA space section) and uvm-launch-test:
 * managed ranges, the resource-manager stand-in's /dev/emgpu-rm
 * (include/uapi/emgpu_rm.h) and nvidia-uvm's fault counters. Built
 * against each driver branch's uvm_ioctl.h.
 */
#ifndef UVM_USER_H
#define UVM_USER_H

#include <errno.h>
#include <stdbool.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "uvm_linux_ioctl.h"
#include "uapi/emgpu_rm.h"
#include "uapi/ember.h"
#include "emgpu_hw.h"

#define UVM_VA_BLOCK_BYTES	(2ull << 20)

/* NVIDIA's UUID for the CPU (nvCpuUuid.c), as UVM reports locations. */
static const NvU8 uvm_cpu_uuid[16] = { 0xa6, 0x5e, 0x0f, 0x4e, 0xd7, 0xd4, 0x7b, 0xa2,
				       0x50, 0x47, 0x41, 0x2c, 0x14, 0x2a, 0x77, 0x73 };

/* A UVM ioctl: 0 and rmStatus NV_OK, or why not in @why. */
static inline bool uvm(int fd, unsigned long cmd, void *params, const NV_STATUS *status,
		       char *why, size_t len)
{
	if (ioctl(fd, cmd, params)) {
		snprintf(why, len, "errno %d (%s)", errno, strerror(errno));
		return false;
	}
	snprintf(why, len, "rmStatus 0x%x", *status);
	return *status == NV_OK;
}

/* An ioctl's errno, 0 on success. */
static inline int rm(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/*
 * A managed range of @bytes at a 2 MiB-aligned free address: reserve,
 * then map the UVM fd inside, as libcuda does (MAP_SHARED, the offset is
 * the address itself). MAP_FAILED on failure.
 */
static inline void *uvm_managed_map(int uvm_fd, uint64_t bytes)
{
	uint8_t *hole = mmap(NULL, bytes + UVM_VA_BLOCK_BYTES, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at;

	if (hole == MAP_FAILED)
		return MAP_FAILED;
	at = ((uintptr_t)hole + UVM_VA_BLOCK_BYTES - 1) & ~(uintptr_t)(UVM_VA_BLOCK_BYTES - 1);
	return mmap((void *)at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, uvm_fd,
		    (off_t)at);
}

/*
 * A counter of the GPU's fault_stats (nvidia-uvm loaded with
 * uvm_enable_debug_procfs=1): the first line whose first word is @name
 * ("replayable_faults", "start" for replays), or -1.
 */
static inline long long uvm_fault_stat(const char *name)
{
	char line[128], word[64];
	long long v = -1, x;
	glob_t g;
	FILE *f;

	if (glob("/proc/driver/nvidia-uvm/gpus/*/fault_stats", 0, NULL, &g))
		return -1;
	f = fopen(g.gl_pathv[0], "r");
	globfree(&g);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " %63s %lld", word, &x) == 2 && !strcmp(word, name)) {
			v = x;
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/*
 * A field of the registered GPU's info file as nvidia-uvm reports it
 * (/proc/driver/nvidia-uvm/gpus/<GPU>/info, gpu_info_print_common): the
 * first word after the line's leading @name ("architecture",
 * "host_class", ...) into @out; 0, or -1 if no such GPU or line.
 */
static inline int uvm_gpu_info(const char *name, char *out, size_t len)
{
	char line[160], word[64], value[64];
	int ret = -1;
	glob_t g;
	FILE *f;

	if (glob("/proc/driver/nvidia-uvm/gpus/*/info", 0, NULL, &g))
		return -1;
	f = fopen(g.gl_pathv[0], "r");
	globfree(&g);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " %63s %63s", word, value) == 2 && !strcmp(word, name)) {
			snprintf(out, len, "%s", value);
			ret = 0;
			break;
		}
	if (f)
		fclose(f);
	return ret;
}

/*
 * The STREAM kernel over [va, va + bytes), @passes times, on a channel of
 * /dev/emgpu-rm, waited for: EMGPU_RM_LAUNCH's errno, @l its outcome.
 */
static inline int emgpu_rm_stream(int rm_fd, uint32_t h_client, uint32_t h_channel, uint64_t va,
				  uint64_t bytes, uint32_t passes, uint32_t timeout_ms,
				  struct emgpu_rm_launch *l)
{
	memset(l, 0, sizeof(*l));
	l->h_client = h_client;
	l->h_channel = h_channel;
	l->kernel = EMBER_KERNEL_STREAM;
	l->args[0] = va;
	l->args[1] = bytes;
	l->args[2] = passes;
	l->timeout_ms = timeout_ms;
	return rm(rm_fd, EMGPU_RM_LAUNCH, l);
}

#endif /* UVM_USER_H */
