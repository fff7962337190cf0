// SPDX-License-Identifier: MIT
/* libFuzzer target: any bytes given to the reader are either refused with
 * a message or read whole (every event, launch and warp stream), never a
 * crash, a leak or an out-of-bounds read (ASan, UBSan). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <stdlib.h>

#include "trace.h"
#include "trace_fix_checksums.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_everything(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed = malloc(size ? size : 1);

	read_everything(data, size);
	if (fixed) {
		memcpy(fixed, data, size);
		trace_fix_checksums(fixed, size);
		read_everything(fixed, size);
		free(fixed);
	}
	return 0;
}

static void read_everything(const uint8_t *data, size_t size)
{
	/* Small limits: a hostile size is refused, not allocated. */
	struct trace_reader_limits limits = { .max_section_raw_bytes = 1 << 20,
					      .max_total_raw_bytes = 1 << 22,
					      .max_compression_ratio = 1024,
					      .max_file_bytes = 1 << 20 };
	struct trace_reader *reader;
	struct trace_error error;
	volatile uint64_t sink = 0;

	if (trace_open_memory(data, size, "fuzz", &limits, &reader, &error)) {
		if (!memchr(error.message, 0, sizeof(error.message)))
			__builtin_trap();
		return;
	}
	for (size_t i = 0; i < trace_event_count(reader); i++)
		sink += trace_get_event(reader, i)->address;
	for (size_t i = 0; i < trace_launch_count(reader); i++) {
		struct trace_records *stream;
		struct trace_warps *warps;
		const uint64_t *recs;
		uint32_t id, n;

		sink += strlen(trace_get_launch_name(reader, i));
		/* streamed a warp at a time, unchecked: the guest's way */
		if (!trace_records_open(reader, i, &stream, &error)) {
			while (!trace_records_next(stream, &id, &recs, &n, &error))
				for (uint32_t k = 0; k < n; k++)
					sink += recs[k];
			trace_records_close(stream);
		}
		if (trace_warps_open(reader, i, &warps, &error))
			continue;
		for (size_t w = 0; w < trace_warps_count(warps); w++) {
			const uint64_t *records;
			uint32_t warp_id, count;

			trace_warps_get(warps, w, &warp_id, &records, &count);
			for (uint32_t k = 0; k < count; k++)
				sink += records[k];
		}
		trace_warps_close(warps);
	}
	trace_close(reader);
	(void)sink;
}
