/* SPDX-License-Identifier: MIT */
/*
 * CHECK(call): a failing CUDA runtime call is printed and the caller
 * returns 1; CHECK_EXIT(call) prints it and exits with status 1, for
 * functions that return no status.
 */
#ifndef EMBER_CUDA_CHECK_H
#define EMBER_CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

/* Prints a failed call; returns whether it failed. */
static inline bool cuda_check_failed(cudaError_t e, const char *file, int line,
				     const char *call)
{
	if (e == cudaSuccess)
		return false;
	fprintf(stderr, "%s:%d: %s: %s\n", file, line, call,
		cudaGetErrorString(e));
	return true;
}

#define CHECK(call)                                                  \
	do {                                                         \
		if (cuda_check_failed((call), __FILE__, __LINE__, #call)) \
			return 1;                                    \
	} while (0)

#define CHECK_EXIT(call)                                             \
	do {                                                         \
		if (cuda_check_failed((call), __FILE__, __LINE__, #call)) \
			exit(1);                                     \
	} while (0)

#endif /* EMBER_CUDA_CHECK_H */
