/* SPDX-License-Identifier: MIT */
/*
 * CUDA 12's cudaMemAdvise(ptr, count, advice, int device) and
 * cudaMemPrefetchAsync(ptr, count, int device, stream), which CUDA 13's
 * runtime replaced by forms taking a cudaMemLocation. EMOGI's bfs.cu and
 * UVMBench's CNN call the old forms; capture/scripts/
 * paper-programs-on-card.sh builds them unchanged with this header
 * force-included (nvcc -include), so each call reaches the runtime's
 * function (and the variants' interposer) as the same request for the
 * same device.
 */
#ifndef EMBER_CUDA12_COMPAT_H
#define EMBER_CUDA12_COMPAT_H

#include <cuda_runtime.h>

static inline cudaError_t cudaMemAdvise(const void *ptr, size_t count,
					enum cudaMemoryAdvise advice, int device)
{
	struct cudaMemLocation location;

	location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost :
						    cudaMemLocationTypeDevice;
	location.id = device == cudaCpuDeviceId ? 0 : device;
	return cudaMemAdvise(ptr, count, advice, location);
}

static inline cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count,
					       int device, cudaStream_t stream = 0)
{
	struct cudaMemLocation location;

	location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost :
						    cudaMemLocationTypeDevice;
	location.id = device == cudaCpuDeviceId ? 0 : device;
	return cudaMemPrefetchAsync(ptr, count, location, 0, stream);
}

#endif
