// SPDX-License-Identifier: MIT
/* libFuzzer target: any bytes given to the reader are either refused with
 * a message or read whole (every event, launch and warp stream), never a
 * crash, a leak or an out-of-bounds read (ASan, UBSan). Each input is
 * read three ways: as given, with its checksums recomputed, and as the
 * coded stream of a delta-coded ACCESSES section (spliced into a trace
 * made once at start, behind a zstd frame of its own), so that mutations
 * reach the delta decoder rather than zstd's frame checks. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <stdlib.h>

#include <zstd.h>

#include "trace.h"
#include "trace_fix_checksums.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_everything(const uint8_t *data, size_t size);

/* The splice's template: a delta-coded trace whose first section is
 * launch 0's ACCESSES (4 warps, 4 records, one allocation of every byte
 * but the last: any line is inside it). libFuzzer's entry points take no
 * context, so it is the harness's one piece of state, made once. */
static struct {
	uint8_t *bytes;
	size_t size;
} template;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint64_t records[4] = { 0x80 | 1, 0x100 | 2, 0x80 | 3, 0x1000 | 1 };
	struct trace_warp_records warps[2] = { { 0, 3, records }, { 3, 1, records + 3 } };
	struct trace_launch launch = { .grid = { 2, 1, 1 }, .block = { 64, 1, 1 },
				       .warps_per_block = 2 };
	struct trace_event alloc = { .kind = TRACE_EVENT_ALLOC, .arg32 = TRACE_MEMORY_MANAGED,
				     .size = UINT64_MAX };
	char path[] = "/tmp/fuzz-trace-template-XXXXXX";
	struct trace_writer *w;
	struct trace_error error;
	uint32_t index;
	FILE *f;
	long n;
	int fd = mkstemp(path);

	(void)argc;
	(void)argv;
	if (fd < 0)
		return 0;
	close(fd);
	if (!trace_writer_open(path, &w, &error)) {
		trace_writer_set_accesses_compression(w, TRACE_COMPRESSION_DELTA_ZSTD);
		trace_writer_add_event(w, &alloc);
		trace_writer_add_launch(w, &launch, "k", 1, &index);
		trace_writer_add_accesses(w, index, warps, 2);
		launch.access_count = 4;
		trace_writer_update_launch(w, &launch);
		trace_writer_close(w, &error);
	}
	f = fopen(path, "rb");
	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (template.bytes = malloc((size_t)n)) &&
	    fread(template.bytes, 1, (size_t)n, f) == (size_t)n)
		template.size = (size_t)n;
	if (f)
		fclose(f);
	unlink(path);
	return 0;
}

/* The template with its first section replaced by `coded` in a zstd
 * frame, the table's raw size for it from the input's first 2 bytes (a
 * multiple of 8, as every decoded size is): sections after it moved, the
 * table and the header fixed. */
static void read_as_coded(const uint8_t *data, size_t size)
{
	uint64_t table, old_stored, raw_size;
	size_t bound, stored, out_size;
	uint8_t *frame, *out;
	uint32_t count;

	if (!template.size || size < 2)
		return;
	raw_size = (uint64_t)(data[0] | data[1] << 8) * 8;
	data += 2;
	size -= 2;
	table = get_le64(template.bytes + HDR_TABLE_OFFSET);
	count = get_le32(template.bytes + HDR_SECTION_COUNT);
	old_stored = get_le64(template.bytes + table + SEC_STORED_SIZE);
	bound = ZSTD_compressBound(size);
	frame = malloc(bound ? bound : 1);
	if (!frame)
		return;
	stored = ZSTD_compress(frame, bound, data, size, 1);
	out_size = template.size - old_stored + stored;
	out = ZSTD_isError(stored) ? NULL : malloc(out_size);
	if (out) {
		uint64_t shift = stored - old_stored;	/* mod 2^64: added back */

		memcpy(out, template.bytes, TRACE_HEADER_SIZE);
		memcpy(out + TRACE_HEADER_SIZE, frame, stored);
		memcpy(out + TRACE_HEADER_SIZE + stored,
		       template.bytes + TRACE_HEADER_SIZE + old_stored,
		       template.size - TRACE_HEADER_SIZE - old_stored);
		table += shift;
		put_le64(out + HDR_TABLE_OFFSET, table);
		put_le64(out + HDR_FILE_SIZE, out_size);
		put_le64(out + table + SEC_STORED_SIZE, stored);
		put_le64(out + table + SEC_RAW_SIZE, raw_size);
		for (uint32_t i = 1; i < count; i++) {
			uint8_t *e = out + table + i * TRACE_SECTION_ENTRY_SIZE;

			put_le64(e + SEC_OFFSET, get_le64(e + SEC_OFFSET) + shift);
		}
		trace_fix_checksums(out, out_size);
		read_everything(out, out_size);
		free(out);
	}
	free(frame);
}

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
	read_as_coded(data, size);
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
