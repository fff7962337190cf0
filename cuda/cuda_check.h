/* SPDX-License-Identifier: MIT */
/* CHECK(call): a failing CUDA runtime call is printed and main() returns 1. */
#ifndef EMBER_CUDA_CHECK_H
#define EMBER_CUDA_CHECK_H

#include <cstdio>

#include <cuda_runtime.h>

#define CHECK(call)                                                            \
	do {                                                                   \
		cudaError_t e_ = (call);                                       \
		if (e_ != cudaSuccess) {                                       \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, \
				#call, cudaGetErrorString(e_));                \
			return 1;                                              \
		}                                                              \
	} while (0)

#endif /* EMBER_CUDA_CHECK_H */
