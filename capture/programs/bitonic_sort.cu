// SPDX-License-Identifier: MIT
/*
 * The Ember paper's "our bitonic sort" (§7, its strided workload), written
 * as the paper describes it: the textbook bitonic network on 32-bit keys in
 * one managed allocation, one kernel launch per compare-exchange pass. Pass
 * (k, j) pairs key i with key i ^ j: for j of a page or more, each warp's
 * two streams lie j * 4 bytes apart, so a pass sweeps the whole array in
 * two strided fronts; a sort of 2^p keys is p (p + 1) / 2 such passes.
 *   bitonic_sort LOG2_KEYS
 * The keys are written on the host (splitmix64 of their index), so the
 * sort starts from a cold allocation; the time printed is the passes'
 * (first launch to the last's end), the sortedness check is not timed.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "gpumodel/splitmix64.h"

#define THREADS_PER_BLOCK 256

/* One compare-exchange pass: each thread owns the pair (i, i ^ j) whose
 * lower index is i; bit k of i says whether that pair sorts up or down. */
__global__ void bitonic_pass(uint32_t *keys, unsigned long long j,
			     unsigned long long k)
{
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long partner = i ^ j;

	if (partner > i) {
		uint32_t a = keys[i], b = keys[partner];
		bool ascending = (i & k) == 0;

		if ((a > b) == ascending) {
			keys[i] = b;
			keys[partner] = a;
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int log2_keys = argc == 2 ? (unsigned int)atoi(argv[1]) : 0;
	unsigned long long count = 1ull << log2_keys;
	uint32_t *keys;
	cudaError_t err;

	if (log2_keys < 8 || log2_keys > 34) {
		fprintf(stderr, "usage: bitonic_sort LOG2_KEYS (8 to 34)\n");
		return 2;
	}
	err = cudaMallocManaged(&keys, count * sizeof(*keys));
	if (err != cudaSuccess) {
		fprintf(stderr, "bitonic_sort: %s\n", cudaGetErrorString(err));
		return 1;
	}
	for (unsigned long long i = 0; i < count; i++)
		keys[i] = (uint32_t)gm_mix64(i);

	auto start = std::chrono::steady_clock::now();
	unsigned int passes = 0;
	for (unsigned long long k = 2; k <= count; k <<= 1)
		for (unsigned long long j = k >> 1; j > 0; j >>= 1, passes++)
			bitonic_pass<<<(unsigned int)(count / THREADS_PER_BLOCK),
				       THREADS_PER_BLOCK>>>(keys, j, k);
	err = cudaDeviceSynchronize();
	double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
						       start).count();
	if (err != cudaSuccess) {
		fprintf(stderr, "bitonic_sort: %s\n", cudaGetErrorString(err));
		return 1;
	}
	for (unsigned long long i = 1; i < count; i++)
		if (keys[i - 1] > keys[i]) {
			fprintf(stderr, "bitonic_sort: keys %llu and %llu out of order\n",
				i - 1, i);
			return 1;
		}
	printf("bitonic_sort: keys=%llu bytes=%llu passes=%u time_s=%.6f\n", count,
	       count * (unsigned long long)sizeof(*keys), passes, seconds);
	cudaFree(keys);
	return 0;
}
