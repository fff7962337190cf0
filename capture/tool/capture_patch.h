/* SPDX-License-Identifier: MIT */
/*
 * What ember-capture's device patch and its host side share: the device
 * buffer one launch's records go into. The host writes the header before
 * each launch (claimed = 0) and reads it back at the launch's end.
 */
#ifndef EMBER_CAPTURE_PATCH_H
#define EMBER_CAPTURE_PATCH_H

#include <stdint.h>

/* One warp instruction's access to one 128-byte line. */
struct capture_device_record {
	uint64_t line_and_flags;	/* line address | TRACE_ACCESS_READ/WRITE */
	uint32_t warp_id;		/* block linear index * warps_per_block + warp */
	uint32_t unused;
};

struct capture_launch_buffer {
	/* Slots claimed by the warps. It counts on past capacity: what lies
	 * beyond was dropped, and claimed - capacity is how many. */
	unsigned long long claimed;
	unsigned long long capacity;
	struct capture_device_record *records;
	uint32_t warps_per_block;
	uint32_t unused;
};

#define CAPTURE_LINE_MASK (~127ull)

#endif
