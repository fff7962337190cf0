/* SPDX-License-Identifier: MIT */
/*
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", 2014; Vigna's constants), the one definition the model,
 * its kernels, the workloads' CPU side (workloads/), libember and the
 * guest test programs use, so that a line a kernel draws and the line its
 * CPU reference draws are the same number. Header only: C11 and C++,
 * no globals.
 */
#ifndef GPUMODEL_SPLITMIX64_H
#define GPUMODEL_SPLITMIX64_H

#include <stdint.h>

/* The generator's increment, 2^64 / the golden ratio (odd). */
#define GM_SPLITMIX64_GAMMA	0x9e3779b97f4a7c15ull

/*
 * The generator's output for state x: gm_splitmix64() returns
 * gm_mix64(*state), then advances the state by the gamma. Alone, a 64-bit
 * hash of x: the kernels draw gm_mix64(seed + item).
 */
static inline uint64_t gm_mix64(uint64_t x)
{
	x += GM_SPLITMIX64_GAMMA;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* One step of the generator: the next number, and *state advanced. */
static inline uint64_t gm_splitmix64(uint64_t *state)
{
	uint64_t x = *state;

	*state += GM_SPLITMIX64_GAMMA;
	return gm_mix64(x);
}

#endif /* GPUMODEL_SPLITMIX64_H */
