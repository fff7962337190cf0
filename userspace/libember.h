/* SPDX-License-Identifier: MIT */
/*
 * libember: CUDA-like managed-memory calls over /dev/ember.
 *
 *   emMallocManaged(&p, n)                     cudaMallocManaged
 *   emFree(p)                                  cudaFree
 *   emMemAdvise(p, n, advice, device)          cudaMemAdvise
 *   emMemPrefetchAsync(p, n, device)           cudaMemPrefetchAsync
 *   emLaunch(&launch)                          kernel<<<...>>>(...)
 *   emDeviceSynchronize()                      cudaDeviceSynchronize
 *   emMemGetInfo(&free, &total)                cudaMemGetInfo
 * plus emGetStats(), emSetPolicy() and emGetDeviceInfo().
 *
 * Drivers: the same calls run on ember.ko (/dev/ember, the default) or on
 * NVIDIA's nvidia-uvm (/dev/nvidia-uvm with the resource-manager stand-in
 * /dev/emgpu-rm, emgpu's GA10x personality), chosen once per context by
 * emSetDriver() before the first call, else by $EMBER_DRIVER ("ember" or
 * "nvidia-uvm"); the application does not change (em_backend.h). Under
 * nvidia-uvm, emSetPolicy() is EOPNOTSUPP (its policy is chosen when the
 * module loads), emMemGetInfo()'s free is what the stand-in's PMA has
 * free (as libcuda's is RM's), and emGetStatsCounted() says which
 * counters the driver really counts.
 *
 * Devices: emCpuDeviceId (-1) is the host, 0 is the GPU. Every call returns
 * emSuccess (0) or a negative errno. One process-wide handle (the "context")
 * is opened on first use; emReset() closes it and frees everything.
 */
#ifndef LIBEMBER_H
#define LIBEMBER_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/ember.h"

#define emSuccess	0
#define emCpuDeviceId	(-1)

enum emMemoryAdvise {
	emMemAdviseSetPreferredLocation = 1,
	emMemAdviseUnsetPreferredLocation = 2,
	emMemAdviseSetAccessedBy = 3,
	emMemAdviseUnsetAccessedBy = 4,
};

/* "ember" or "nvidia-uvm": 0, -EINVAL (unknown), -EBUSY (another is open). */
int emSetDriver(const char *name);
/* The open context's driver, or the one emInit() would open (NULL: a bad $EMBER_DRIVER). */
const char *emDriverName(void);
int emInit(void);
void emReset(void);
int emFd(void);

int emMallocManaged(void **ptr, size_t size);
int emFree(void *ptr);
int emMemAdvise(const void *ptr, size_t count, enum emMemoryAdvise advice,
		int device);
int emMemPrefetchAsync(const void *ptr, size_t count, int device);
/* Starts l->kernel; l->launch_id is filled. */
int emLaunch(struct ember_launch *l);
int emDeviceSynchronize(void);
/* The last synchronize's launch: modelled ns and checksum. */
int emLastLaunch(uint64_t *sim_ns, uint64_t *result);
int emMemGetInfo(size_t *free_bytes, size_t *total_bytes);
int emGetStats(struct ember_stats_counters *c, int global);
/*
 * emGetStats, and in counted (may be NULL) 1 for each counter the driver
 * counts, 0 for those it does not (0 in *c, meaning nothing).
 */
int emGetStatsCounted(struct ember_stats_counters *c,
		      struct ember_stats_counters *counted, int global);
int emSetPolicy(const char *name);
int emGetDeviceInfo(struct ember_device_info *info);
/* Size of a managed allocation of size bytes (VA-block granularity). */
size_t emAllocSize(size_t size);

#endif /* LIBEMBER_H */
