// SPDX-License-Identifier: MIT
/*
 * The Ember paper's radix sort (§7, "radix sort from Thrust"): thrust::sort
 * of 32-bit integer keys in one managed allocation, which Thrust dispatches
 * to CUB's radix sort. Its temporaries (CUB's second key buffer and its
 * digit histograms) are Thrust's own device allocations (cudaMalloc), which
 * no variant places (paper §8, "Library buffers"): they add about the keys'
 * size to the footprint on the card.
 *   radix_sort KEYS
 * The keys are written on the host (splitmix64 of their index), so the
 * sort starts from a cold allocation; the time printed is the sort's
 * (thrust::sort to its end), the sortedness check after it is not timed.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "gpumodel/splitmix64.h"

int main(int argc, char **argv)
{
	unsigned long long count = argc == 2 ? strtoull(argv[1], NULL, 0) : 0;
	uint32_t *keys;
	cudaError_t err;

	if (!count) {
		fprintf(stderr, "usage: radix_sort KEYS\n");
		return 2;
	}
	err = cudaMallocManaged(&keys, count * sizeof(*keys));
	if (err != cudaSuccess) {
		fprintf(stderr, "radix_sort: %s\n", cudaGetErrorString(err));
		return 1;
	}
	for (unsigned long long i = 0; i < count; i++)
		keys[i] = (uint32_t)gm_mix64(i);

	auto start = std::chrono::steady_clock::now();
	thrust::sort(thrust::device, keys, keys + count);
	err = cudaDeviceSynchronize();
	double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
						       start).count();
	if (err != cudaSuccess) {
		fprintf(stderr, "radix_sort: %s\n", cudaGetErrorString(err));
		return 1;
	}
	for (unsigned long long i = 1; i < count; i++)
		if (keys[i - 1] > keys[i]) {
			fprintf(stderr, "radix_sort: keys %llu and %llu out of order\n",
				i - 1, i);
			return 1;
		}
	printf("radix_sort: keys=%llu bytes=%llu time_s=%.6f\n", count,
	       count * (unsigned long long)sizeof(*keys), seconds);
	cudaFree(keys);
	return 0;
}
