/* SPDX-License-Identifier: MIT */
/*
 * Where cudaMemAdvise and cudaMemPrefetchAsync point, in both runtime
 * generations the programs here are built with: CUDA 13 takes a struct
 * cudaMemLocation (and a flags argument to the prefetch); CUDA 11.8 (the
 * Debian toolkit that builds the real-card guest image, for a 535 driver)
 * takes a device number, cudaCpuDeviceId for the host. C and C++.
 */
#ifndef EMBER_CUDA_MEM_LOCATION_H
#define EMBER_CUDA_MEM_LOCATION_H

#include <cuda_runtime_api.h>

#if CUDART_VERSION >= 13000
typedef struct cudaMemLocation mem_location;

static inline mem_location mem_location_host(void)
{
	mem_location l = { cudaMemLocationTypeHost, 0 };
	return l;
}

static inline mem_location mem_location_device(int dev)
{
	mem_location l = { cudaMemLocationTypeDevice, dev };
	return l;
}

static inline cudaError_t mem_prefetch(const void *p, size_t bytes, mem_location to,
				       cudaStream_t s)
{
	return cudaMemPrefetchAsync(p, bytes, to, 0, s);
}
#else
typedef int mem_location;

static inline mem_location mem_location_host(void)
{
	return cudaCpuDeviceId;
}

static inline mem_location mem_location_device(int dev)
{
	return dev;
}

static inline cudaError_t mem_prefetch(const void *p, size_t bytes, mem_location to,
				       cudaStream_t s)
{
	return cudaMemPrefetchAsync(p, bytes, to, s);
}
#endif

#endif /* EMBER_CUDA_MEM_LOCATION_H */
