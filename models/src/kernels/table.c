/* SPDX-License-Identifier: MIT */
/*
 * The built-in kernels, indexed by enum emgpu_kernel_id. Adding a kernel:
 * write models/src/kernels/<name>.c defining `const struct gm_kernel
 * gm_kernel_<name>`, declare it and add one row below, add the id to
 * enum emgpu_kernel_id in emgpu_hw.h and the source to models/sources.mk.
 */
#include <stddef.h>

#include "gpumodel/kernel.h"

extern const struct gm_kernel gm_kernel_stream;
extern const struct gm_kernel gm_kernel_gather;
extern const struct gm_kernel gm_kernel_hotset;
extern const struct gm_kernel gm_kernel_pathfinder;
extern const struct gm_kernel gm_kernel_kmeans;
extern const struct gm_kernel gm_kernel_conv;
extern const struct gm_kernel gm_kernel_bitonic;
extern const struct gm_kernel gm_kernel_radix;
extern const struct gm_kernel gm_kernel_bfs;
extern const struct gm_kernel gm_kernel_gemv;
extern const struct gm_kernel gm_kernel_colscan;
extern const struct gm_kernel gm_kernel_gemvt;
extern const struct gm_kernel gm_kernel_gemm;
extern const struct gm_kernel gm_kernel_nw;
extern const struct gm_kernel gm_kernel_trace;

static const struct gm_kernel *const kernels[] = {
	[EMGPU_KERNEL_STREAM] = &gm_kernel_stream,
	[EMGPU_KERNEL_GATHER] = &gm_kernel_gather,
	[EMGPU_KERNEL_HOTSET] = &gm_kernel_hotset,
	[EMGPU_KERNEL_PATHFINDER] = &gm_kernel_pathfinder,
	[EMGPU_KERNEL_KMEANS] = &gm_kernel_kmeans,
	[EMGPU_KERNEL_CONV] = &gm_kernel_conv,
	[EMGPU_KERNEL_BITONIC] = &gm_kernel_bitonic,
	[EMGPU_KERNEL_RADIX] = &gm_kernel_radix,
	[EMGPU_KERNEL_BFS] = &gm_kernel_bfs,
	[EMGPU_KERNEL_GEMV] = &gm_kernel_gemv,
	[EMGPU_KERNEL_COLSCAN] = &gm_kernel_colscan,
	[EMGPU_KERNEL_GEMVT] = &gm_kernel_gemvt,
	[EMGPU_KERNEL_GEMM] = &gm_kernel_gemm,
	[EMGPU_KERNEL_NW] = &gm_kernel_nw,
	[EMGPU_KERNEL_TRACE] = &gm_kernel_trace,
};

const struct gm_kernel *gm_kernel_find(uint32_t id)
{
	return id < sizeof(kernels) / sizeof(kernels[0]) ? kernels[id] : NULL;
}
