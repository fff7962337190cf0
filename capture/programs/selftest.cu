// SPDX-License-Identifier: MIT
/* ember-capture's own check on a card: a managed array written by one
 * kernel and read by a second, with advice and a prefetch between. Each
 * warp of `fill` writes 32 floats = one 128-byte line, so its launch must
 * hold exactly N / 32 records, one per warp; `sum_pairs` reads two lines
 * per warp (warp w reads lines 2w and 2w+1 of `a`, writes line w of `b`). */
#include <cstdio>
#include <cuda_runtime.h>

#define N (1 << 20)

__global__ void fill(float *a)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	a[i] = (float)i;
}

__global__ void sum_pairs(const float *a, float *b)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int warp = i / 32, lane = i % 32;

	b[i] = a[warp * 64 + lane] + a[warp * 64 + 32 + lane];
}

int main(void)
{
	float *a, *b;
	cudaMemLocation gpu = { cudaMemLocationTypeDevice, 0 };

	cudaMallocManaged(&a, N * sizeof(float));
	cudaMallocManaged(&b, N / 2 * sizeof(float));
	cudaMemAdvise(a, N * sizeof(float), cudaMemAdviseSetPreferredLocation, gpu);
	cudaMemPrefetchAsync(a, N * sizeof(float), gpu, 0, 0);
	fill<<<N / 256, 256>>>(a);
	sum_pairs<<<N / 2 / 256, 256>>>(a, b);
	cudaDeviceSynchronize();
	printf("selftest: b[5] = %.1f (expect %.1f)\n", b[5], 5.0f + 5.0f + 32.0f);
	cudaFree(a);
	cudaFree(b);
	return b == a;
}
