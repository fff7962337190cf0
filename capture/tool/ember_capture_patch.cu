// SPDX-License-Identifier: MIT
/*
 * ember-capture's device patch: called by the Compute Sanitizer for every
 * thread's global-memory access of a patched kernel. To keep its cost
 * bounded it coalesces per warp instruction: the active threads that touch
 * the same 128-byte line elect a leader (__match_any_sync), the warp's
 * first active lane claims one slot per leader with a single atomicAdd,
 * and each leader writes its record. Slots beyond the buffer's capacity
 * are not written; the host counts them as dropped.
 */
#include <sanitizer_patching.h>

#include "capture_patch.h"

static __device__ __forceinline__ unsigned int lane_id(void)
{
	unsigned int lane;

	asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
	return lane;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
ember_capture_global_access(void *userdata, uint64_t pc, void *ptr,
			    uint32_t access_size, uint32_t flags,
			    const void *new_value)
{
	struct capture_launch_buffer *buffer =
		(struct capture_launch_buffer *)userdata;
	unsigned int active = __activemask();
	unsigned int lane = lane_id();
	unsigned long long line = (unsigned long long)ptr & CAPTURE_LINE_MASK;
	unsigned int same_line = __match_any_sync(active, line);
	bool leader = (unsigned int)(__ffs(same_line) - 1) == lane;
	unsigned int leaders = __ballot_sync(active, leader);
	unsigned int first = __ffs(active) - 1;
	unsigned long long base = 0;

	(void)pc;
	(void)access_size;
	(void)new_value;
	if (!buffer)
		return SANITIZER_PATCH_SUCCESS;
	if (lane == first)
		base = atomicAdd(&buffer->claimed, (unsigned long long)__popc(leaders));
	base = __shfl_sync(active, base, first);
	if (leader) {
		unsigned long long slot = base + __popc(leaders & ((1u << lane) - 1));

		if (slot < buffer->capacity) {
			/* The sanitizer's READ and WRITE bits are the format's;
			 * an access with neither (an atomic) is both. */
			unsigned long long rw = flags & 3u;
			unsigned int block = blockIdx.x + blockIdx.y * gridDim.x +
					     blockIdx.z * gridDim.x * gridDim.y;
			unsigned int thread = threadIdx.x + threadIdx.y * blockDim.x +
					      threadIdx.z * blockDim.x * blockDim.y;
			struct capture_device_record *record = &buffer->records[slot];

			record->line_and_flags = line | (rw ? rw : 3u);
			record->warp_id = block * buffer->warps_per_block + thread / 32;
		}
	}
	return SANITIZER_PATCH_SUCCESS;
}
