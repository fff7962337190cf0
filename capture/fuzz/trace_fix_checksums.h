/* SPDX-License-Identifier: MIT */
/*
 * For libFuzzer targets that read traces (capture/fuzz/fuzz_trace_reader.c,
 * tests/fuzz/fuzz_replay_plan.c).
 */
#ifndef TRACE_FIX_CHECKSUMS_H
#define TRACE_FIX_CHECKSUMS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "trace_internal.h"

/* Recomputes every checksum the input's own table describes, so that
 * mutations reach the checks behind the CRCs (counts, events, accesses)
 * instead of stopping at a mismatch. */
static inline void trace_fix_checksums(uint8_t *data, size_t size)
{
	uint64_t table, count;

	if (size < TRACE_HEADER_SIZE)
		return;
	table = get_le64(data + HDR_TABLE_OFFSET);
	count = get_le32(data + HDR_SECTION_COUNT);
	if (table <= size && count <= (size - table) / TRACE_SECTION_ENTRY_SIZE &&
	    size - table - count * TRACE_SECTION_ENTRY_SIZE >= 4) {
		for (uint64_t i = 0; i < count; i++) {
			uint8_t *e = data + table + i * TRACE_SECTION_ENTRY_SIZE;
			uint64_t offset = get_le64(e + SEC_OFFSET);
			uint64_t stored = get_le64(e + SEC_STORED_SIZE);

			if (offset <= size && stored <= size - offset)
				put_le32(e + SEC_CRC,
					 trace_crc32(0, data + offset, stored));
		}
		put_le32(data + table + count * TRACE_SECTION_ENTRY_SIZE,
			 trace_crc32(0, data + table,
				     count * TRACE_SECTION_ENTRY_SIZE));
	}
	put_le32(data + HDR_CRC, trace_crc32(0, data, HDR_CRC));
}

#endif
