/* SPDX-License-Identifier: MIT */
/* The test programs' kernel: adds every u32 word of p into *out. */
#ifndef EMBER_SUM_WORDS_CUH
#define EMBER_SUM_WORDS_CUH

__global__ void sum_words(const unsigned int *p, size_t n, unsigned long long *out)
{
	unsigned long long acc = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		acc += p[i];
	atomicAdd(out, acc);
}

#endif /* EMBER_SUM_WORDS_CUH */
