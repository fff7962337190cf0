// SPDX-License-Identifier: MIT
/* PyTorch's pluggable allocator backed by cudaMallocManaged
 * (torch.cuda.memory.CUDAPluggableAllocator): every tensor is managed. */
#include <cuda_runtime.h>
#include <sys/types.h>

extern "C" void *ember_managed_malloc(ssize_t size, int device, cudaStream_t stream)
{
	void *p = nullptr;

	(void)device;
	(void)stream;
	if (cudaMallocManaged(&p, size ? size : 1, cudaMemAttachGlobal) != cudaSuccess)
		return nullptr;
	return p;
}

extern "C" void ember_managed_free(void *p, ssize_t size, int device, cudaStream_t stream)
{
	(void)size;
	(void)device;
	(void)stream;
	cudaFree(p);
}
