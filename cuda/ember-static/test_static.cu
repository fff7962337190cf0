// SPDX-License-Identifier: MIT
/*
 * An unmodified CUDA program for libember-static.so: allocates managed
 * memory, fills it on the host, reads it on the GPU, checks the sum, and
 * prints one JSON line with the kernel time and where the pages ended up
 * (cudaMemRangeGetAttribute on the first and last 2 MiB).
 *
 * usage: test-static [bytes]
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "../cuda_check.h"
#include "sum_words.cuh"

static int last_prefetch_location(void *p, size_t bytes)
{
	int loc = -3;

	cudaMemRangeGetAttribute(&loc, sizeof(loc),
				 cudaMemRangeAttributeLastPrefetchLocation, p, bytes);
	return loc;
}

int main(int argc, char **argv)
{
	size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (1ull << 30);
	size_t n = bytes / 4, i;
	unsigned long long *sum, expect = 0;
	unsigned int *p;
	cudaEvent_t a, b;
	float ms;

	CHECK(cudaMallocManaged(&p, bytes));
	CHECK(cudaMallocManaged(&sum, sizeof(*sum)));
	for (i = 0; i < n; i++) {
		p[i] = (unsigned int)(i * 2654435761u);
		expect += p[i];
	}
	*sum = 0;
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	CHECK(cudaEventRecord(a));
	sum_words<<<1024, 256>>>(p, n, sum);
	CHECK(cudaEventRecord(b));
	CHECK(cudaEventSynchronize(b));
	CHECK(cudaGetLastError());
	CHECK(cudaEventElapsedTime(&ms, a, b));
	printf("{\"bytes\":%zu,\"ms\":%.3f,\"sum_ok\":%d,\"first_2m_prefetched_to\":%d,"
	       "\"last_2m_prefetched_to\":%d}\n", bytes, ms, *sum == expect,
	       last_prefetch_location(p, 2u << 20),
	       last_prefetch_location((char *)p + bytes - (2u << 20), 2u << 20));
	return *sum == expect ? 0 : 1;
}
