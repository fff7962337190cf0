// SPDX-License-Identifier: MIT
/*
 * libtrace unit tests (CUnit): a trace written by the writer reads back
 * field for field, and each kind of bad trace is refused with the file's
 * name and the exact byte offset. Bad traces are made from the good one by
 * patching bytes (and, where the test is about a later check, fixing the
 * checksums that guard them) or written directly with the writer, which
 * checks no semantics.
 *
 * Leaves good.trace, good-delta.trace (the same, its ACCESSES
 * delta-coded) and shared.trace (a launch sharing another's ACCESSES,
 * delta-coded) in the working directory: the fuzzer's seeds.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <zstd.h>

#include "trace.h"

#define GOOD "good.trace"
#define MANAGED_BASE 0x7f0000010000ull
#define MANAGED_SIZE 0x10000ull
#define DEVICE_BASE 0x7f0000040000ull
#define DEVICE_SIZE 0x1000ull

/* What the good trace's launch 0 recorded. */
static const uint64_t warp0_records[] = {
	MANAGED_BASE | TRACE_ACCESS_READ,
	(MANAGED_BASE + 0x80) | TRACE_ACCESS_WRITE,
	MANAGED_BASE | TRACE_ACCESS_READ,
};
static const uint64_t warp3_records[] = {
	DEVICE_BASE | TRACE_ACCESS_READ | TRACE_ACCESS_WRITE,
};

static void add_event(struct trace_writer *w, uint16_t kind, uint32_t arg32,
		      uint64_t address, uint64_t size, uint64_t arg64,
		      uint64_t time)
{
	struct trace_event e = { .kind = kind, .arg32 = arg32,
				 .address = address, .size = size,
				 .arg64 = arg64, .host_time_ns = time };

	CU_ASSERT_EQUAL_FATAL(trace_writer_add_event(w, &e), 0);
}

static uint32_t add_launch(struct trace_writer *w, const char *name,
			   uint32_t grid_x, uint32_t block_x, uint64_t time)
{
	struct trace_launch l = { .grid = { grid_x, 1, 1 },
				  .block = { block_x, 1, 1 },
				  .warps_per_block = (block_x + 31) / 32 };
	uint32_t index = 99;

	CU_ASSERT_EQUAL_FATAL(trace_writer_add_launch(w, &l, name, time, &index), 0);
	return index;
}

static void finish_launch(struct trace_writer *w, uint32_t index,
			  uint32_t grid_x, uint32_t block_x, uint64_t accesses,
			  uint64_t gpu_time)
{
	struct trace_launch l = { .launch_index = index,
				  .grid = { grid_x, 1, 1 },
				  .block = { block_x, 1, 1 },
				  .warps_per_block = (block_x + 31) / 32,
				  .gpu_time_ns = gpu_time,
				  .access_count = accesses,
				  .outside_count = 5 };

	CU_ASSERT_EQUAL_FATAL(trace_writer_update_launch(w, &l), 0);
}

/*
 * The good trace: a managed and a device allocation, advice, a prefetch, a
 * copy, launch 0 (2 blocks of 64 threads: warps 0..3; warps 0 and 3
 * access), the device allocation freed, launch 1 (no accesses), a sync.
 * `stray_line`, when nonzero, is added to warp 3 of launch 0 (launch 1
 * if `in_second_launch`): a line no allocation holds, for the tests.
 */
static void write_trace(const char *path, uint64_t stray_line,
			int in_second_launch)
{
	struct trace_writer *w;
	struct trace_error error;
	uint64_t warp3[2] = { warp3_records[0], stray_line | TRACE_ACCESS_READ };
	struct trace_warp_records warps[2] = {
		{ 0, 3, warp0_records },
		{ 3, (stray_line && !in_second_launch) ? 2 : 1, warp3 },
	};
	struct trace_warp_records second = { 0, 1, &warp3[1] };
	uint32_t launch;

	CU_ASSERT_EQUAL_FATAL(trace_writer_open(path, &w, &error), 0);
	CU_ASSERT_EQUAL(trace_writer_set_meta(w, "program", "unit-test"), 0);
	CU_ASSERT_EQUAL(trace_writer_set_meta(w, "device", "none"), 0);
	trace_writer_set_flags(w, TRACE_FLAG_TIMES_INSTRUMENTED);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_MANAGED, MANAGED_BASE,
		  MANAGED_SIZE, 0, 100);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_DEVICE, DEVICE_BASE,
		  DEVICE_SIZE, 0, 200);
	add_event(w, TRACE_EVENT_ADVISE, TRACE_ADVISE_SET_READ_MOSTLY,
		  MANAGED_BASE, MANAGED_SIZE, 0, 300);
	add_event(w, TRACE_EVENT_PREFETCH, 0, MANAGED_BASE, 0x8000, 0, 400);
	add_event(w, TRACE_EVENT_MEMCPY, 1, DEVICE_BASE, 256, 0x5000, 500);
	launch = add_launch(w, "kernel_a", 2, 64, 600);
	CU_ASSERT_EQUAL(launch, 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(w, launch, warps, 2), 0);
	finish_launch(w, launch, 2, 64, warps[1].record_count + 3, 12345);
	add_event(w, TRACE_EVENT_FREE, 0, DEVICE_BASE, 0, 0, 700);
	launch = add_launch(w, "kernel_b", 1, 32, 800);
	CU_ASSERT_EQUAL(launch, 1);
	if (stray_line && in_second_launch) {
		CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(w, launch, &second, 1), 0);
		finish_launch(w, launch, 1, 32, 1, 77);
	} else {
		finish_launch(w, launch, 1, 32, 0, 77);
	}
	add_event(w, TRACE_EVENT_SYNC, 0, 0, 0, 0, 900);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(w, &error), 0);
}

static uint8_t *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc((size_t)n);
	CU_ASSERT_EQUAL_FATAL(fread(data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return data;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void set_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void set_le64(uint8_t *p, uint64_t v)
{
	set_le32(p, (uint32_t)v);
	set_le32(p + 4, (uint32_t)(v >> 32));
}

/* Recomputes the header's and the table's checksums after a patch. */
static void fix_checksums(uint8_t *data, size_t size)
{
	uint64_t table = le64(data + 32);
	uint32_t count = data[28] | data[29] << 8 | data[30] << 16 |
			 (uint32_t)data[31] << 24;

	if (table + (uint64_t)count * TRACE_SECTION_ENTRY_SIZE + 4 <= size)
		set_le32(data + table + count * TRACE_SECTION_ENTRY_SIZE,
			 trace_crc32(0, data + table,
				     count * TRACE_SECTION_ENTRY_SIZE));
	set_le32(data + 60, trace_crc32(0, data, 60));
}

/* Opens the bytes under `limits` (NULL: the defaults) and expects a
 * refusal at `offset` that says `words`, with errno `errnum`. */
static void expect_refusal_limits(const uint8_t *data, size_t size,
				  const struct trace_reader_limits *limits,
				  uint64_t offset, int errnum, const char *words)
{
	struct trace_reader *r = (struct trace_reader *)1;
	struct trace_error error = { 0 };
	char prefix[64];

	errno = 0;
	CU_ASSERT_EQUAL(trace_open_memory(data, size, "bad.trace", limits, &r,
					  &error), -1);
	CU_ASSERT_EQUAL(errno, errnum);
	CU_ASSERT_EQUAL(error.errnum, errnum);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_EQUAL(error.offset, offset);
	snprintf(prefix, sizeof(prefix), "bad.trace: offset %llu: ",
		 (unsigned long long)offset);
	CU_ASSERT_EQUAL(strncmp(error.message, prefix, strlen(prefix)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, words));
	if (error.offset != offset || !strstr(error.message, words))
		fprintf(stderr, "\n  got: %s (offset %llu)\n", error.message,
			(unsigned long long)error.offset);
}

/* A malformed trace: EBADMSG. */
static void expect_refusal(const uint8_t *data, size_t size, uint64_t offset,
			   const char *words)
{
	expect_refusal_limits(data, size, NULL, offset, EBADMSG, words);
}

static void test_crc32_check_value(void)
{
	CU_ASSERT_EQUAL(trace_crc32(0, "123456789", 9), 0xcbf43926u);
	CU_ASSERT_EQUAL(trace_crc32(trace_crc32(0, "1234", 4), "56789", 5),
			0xcbf43926u);
	CU_ASSERT_EQUAL(trace_crc32(0, "", 0), 0);
	/* combined from the parts' CRCs and the second's size */
	CU_ASSERT_EQUAL(trace_crc32_combine(trace_crc32(0, "1234", 4),
					    trace_crc32(0, "56789", 5), 5), 0xcbf43926u);
	CU_ASSERT_EQUAL(trace_crc32_combine(0, trace_crc32(0, "123456789", 9), 9),
			0xcbf43926u);
	CU_ASSERT_EQUAL(trace_crc32_combine(0xcbf43926u, 0, 0), 0xcbf43926u);
}

static void test_good_trace_reads_back(void)
{
	struct trace_reader *r;
	struct trace_warps *w;
	struct trace_error error;
	const struct trace_event *e;
	const struct trace_launch *l;
	const uint64_t *records;
	uint32_t warp_id, count;
	char value[32];

	write_trace(GOOD, 0, 0);
	CU_ASSERT_EQUAL_FATAL(trace_open(GOOD, NULL, &r, &error), 0);
	CU_ASSERT_EQUAL(trace_get_info(r)->version_major, 1);
	CU_ASSERT_EQUAL(trace_get_info(r)->version_minor, 0);
	CU_ASSERT_EQUAL(trace_get_info(r)->flags, TRACE_FLAG_TIMES_INSTRUMENTED);
	CU_ASSERT_EQUAL(trace_get_info(r)->line_size, 128);
	CU_ASSERT_EQUAL(trace_get_info(r)->warp_size, 32);
	/* ACCESSES of launch 0, META, EVENTS, LAUNCHES, NAMES */
	CU_ASSERT_EQUAL(trace_get_info(r)->section_count, 5);
	CU_ASSERT_EQUAL(trace_get_meta_value(r, "program", value, sizeof(value)), 0);
	CU_ASSERT_STRING_EQUAL(value, "unit-test");
	CU_ASSERT_EQUAL(trace_get_meta_value(r, "prog", value, sizeof(value)), -1);
	CU_ASSERT_STRING_EQUAL(trace_get_meta(r, NULL), "program=unit-test\ndevice=none\n");

	CU_ASSERT_EQUAL_FATAL(trace_event_count(r), 9);
	e = trace_get_event(r, 0);
	CU_ASSERT_EQUAL(e->kind, TRACE_EVENT_ALLOC);
	CU_ASSERT_EQUAL(e->arg32, TRACE_MEMORY_MANAGED);
	CU_ASSERT_EQUAL(e->address, MANAGED_BASE);
	CU_ASSERT_EQUAL(e->size, MANAGED_SIZE);
	CU_ASSERT_EQUAL(e->host_time_ns, 100);
	e = trace_get_event(r, 3);
	CU_ASSERT_EQUAL(e->kind, TRACE_EVENT_PREFETCH);
	CU_ASSERT_EQUAL(e->size, 0x8000);
	e = trace_get_event(r, 4);
	CU_ASSERT_EQUAL(e->kind, TRACE_EVENT_MEMCPY);
	CU_ASSERT_EQUAL(e->arg64, 0x5000);
	CU_ASSERT_EQUAL(e->arg32, 1);
	e = trace_get_event(r, 5);
	CU_ASSERT_EQUAL(e->kind, TRACE_EVENT_LAUNCH);
	CU_ASSERT_EQUAL(e->arg32, 0);
	CU_ASSERT_EQUAL(e->host_time_ns, 600);
	CU_ASSERT_EQUAL(trace_get_event(r, 6)->kind, TRACE_EVENT_FREE);
	CU_ASSERT_EQUAL(trace_get_event(r, 7)->arg32, 1);
	CU_ASSERT_EQUAL(trace_get_event(r, 8)->kind, TRACE_EVENT_SYNC);
	CU_ASSERT_PTR_NULL(trace_get_event(r, 9));

	CU_ASSERT_EQUAL_FATAL(trace_launch_count(r), 2);
	l = trace_get_launch(r, 0);
	CU_ASSERT_EQUAL(l->grid[0], 2);
	CU_ASSERT_EQUAL(l->block[0], 64);
	CU_ASSERT_EQUAL(l->warps_per_block, 2);
	CU_ASSERT_EQUAL(l->gpu_time_ns, 12345);
	CU_ASSERT_EQUAL(l->access_count, 4);
	CU_ASSERT_EQUAL(l->outside_count, 5);
	CU_ASSERT_EQUAL(l->dropped_count, 0);
	CU_ASSERT_STRING_EQUAL(trace_get_launch_name(r, 0), "kernel_a");
	CU_ASSERT_STRING_EQUAL(trace_get_launch_name(r, 1), "kernel_b");
	CU_ASSERT_EQUAL(trace_launch_event_index(r, 0), 5);
	CU_ASSERT_EQUAL(trace_launch_event_index(r, 1), 7);
	CU_ASSERT_EQUAL(trace_get_launch(r, 1)->gpu_time_ns, 77);

	CU_ASSERT_EQUAL_FATAL(trace_warps_open(r, 0, &w, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_warps_count(w), 2);
	trace_warps_get(w, 0, &warp_id, &records, &count);
	CU_ASSERT_EQUAL(warp_id, 0);
	CU_ASSERT_EQUAL_FATAL(count, 3);
	CU_ASSERT_EQUAL(records[0], MANAGED_BASE | TRACE_ACCESS_READ);
	CU_ASSERT_EQUAL(records[1], (MANAGED_BASE + 0x80) | TRACE_ACCESS_WRITE);
	CU_ASSERT_EQUAL(records[2], MANAGED_BASE | TRACE_ACCESS_READ);
	trace_warps_get(w, 1, &warp_id, &records, &count);
	CU_ASSERT_EQUAL(warp_id, 3);
	CU_ASSERT_EQUAL_FATAL(count, 1);
	CU_ASSERT_EQUAL(records[0], DEVICE_BASE | 3);
	CU_ASSERT_EQUAL(trace_access_line(records[0]), DEVICE_BASE);
	trace_warps_close(w);
	CU_ASSERT_EQUAL_FATAL(trace_warps_open(r, 1, &w, &error), 0);
	CU_ASSERT_EQUAL(trace_warps_count(w), 0);
	trace_warps_close(w);
	CU_ASSERT_EQUAL(trace_warps_open(r, 2, &w, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "no launch 2 (the trace has 2)"));
	trace_close(r);
}

static void test_truncated(void)
{
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);

	expect_refusal(data, 40, 40, "truncated: 40 bytes, the header needs 64");
	expect_refusal(data, size - 1, size - 1, "truncated: the header says");
	free(data);
}

static void test_bad_magic_and_unfinished_capture(void)
{
	struct trace_writer *w;
	struct trace_error error;
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);

	data[0] = 'X';
	expect_refusal(data, size, 0, "bad magic");
	free(data);

	/* A capture that died before close leaves a zero header. */
	CU_ASSERT_EQUAL_FATAL(trace_writer_open("unfinished.trace", &w, &error), 0);
	add_event(w, TRACE_EVENT_SYNC, 0, 0, 0, 0, 1);
	trace_writer_abandon(w);
	data = read_whole("unfinished.trace", &size);
	CU_ASSERT_EQUAL(size, 64);
	expect_refusal(data, size, 0, "bad magic");
	free(data);
}

static void test_wrong_version(void)
{
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);

	data[8] = 2;
	fix_checksums(data, size);
	expect_refusal(data, size, 8, "wrong version 2.0: this reader reads 1.x");
	free(data);
}

static void test_header_checksum(void)
{
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);

	data[12] ^= 0x4;	/* a flag bit, checksum left stale */
	expect_refusal(data, size, 60, "header checksum mismatch");
	free(data);
}

static void test_section_checksum(void)
{
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);

	/* The first section (launch 0's accesses) starts right after the
	 * header. */
	data[64 + 5] ^= 0x10;
	expect_refusal(data, size, 64, "section 0 (ACCESSES): checksum mismatch");
	free(data);
}

static void test_table_checksum(void)
{
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);
	uint64_t table = le64(data + 32);

	data[table + 1] ^= 1;
	expect_refusal(data, size, size - 4, "section table checksum mismatch");
	free(data);
}

static void test_counts_beyond_file(void)
{
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);
	uint64_t table = le64(data + 32);

	/* One more section than the table holds. */
	set_le32(data + 28, 6);
	fix_checksums(data, size);
	expect_refusal(data, size, 32, "section table (6 entries at offset");
	/* An absurd count. */
	set_le32(data + 28, 0x7fffffff);
	fix_checksums(data, size);
	expect_refusal(data, size, 28, "absurd section count 2147483647");
	free(data);

	/* A section claiming more bytes than lie before the table. */
	data = read_whole(GOOD, &size);
	set_le64(data + table + 16, 1ull << 40);
	fix_checksums(data, size);
	expect_refusal(data, size, table + 8, "section 0 (ACCESSES): 1099511627776 bytes at offset 64");
	free(data);

	/* A decompressed size beyond the reader's limit. */
	data = read_whole(GOOD, &size);
	set_le64(data + table + 24, (1ull << 30) + 1);
	fix_checksums(data, size);
	expect_refusal_limits(data, size, NULL, table + 24, EFBIG,
			      "absurd decompressed size 1073741825");
	free(data);
}

/*
 * A table that promises more decompressed bytes than the file can hold at
 * the ratio limit (1024 by default): section 0 (launch 0's accesses, read
 * only when opened) says 1 GiB, the section limit, in a file of a few
 * hundred bytes. Refused when the trace is opened, before any decompression.
 */
static void test_ratio_limit(void)
{
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);
	uint64_t table = le64(data + 32);
	struct trace_reader_limits limits;
	char words[128];

	set_le64(data + table + 24, 1ull << 30);
	fix_checksums(data, size);
	snprintf(words, sizeof(words),
		 "section 0 (ACCESSES): decompressed sizes add up to 1073741824 bytes, more than 1024 times the file's %zu",
		 size);
	expect_refusal_limits(data, size, NULL, table + 24, EFBIG, words);
	/* the limit is the caller's */
	trace_reader_default_limits(&limits);
	limits.max_compression_ratio = (1ull << 30) / size + 1;
	snprintf(words, sizeof(words), "more than %llu times",
		 (unsigned long long)limits.max_compression_ratio - 1);
	limits.max_compression_ratio--;
	expect_refusal_limits(data, size, &limits, table + 24, EFBIG, words);
	free(data);
}

/* The sections' decompressed sizes together, each under its own limit. */
static void test_total_limit(void)
{
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);
	uint64_t table = le64(data + 32), total = 0;
	uint32_t count = data[28];
	struct trace_reader_limits limits;
	struct trace_reader *r;
	struct trace_error error;

	for (uint32_t i = 0; i < count; i++)
		total += le64(data + table + i * TRACE_SECTION_ENTRY_SIZE + 24);
	trace_reader_default_limits(&limits);
	limits.max_total_raw_bytes = total;
	CU_ASSERT_EQUAL(trace_open_memory(data, size, "good.trace", &limits, &r,
					  &error), 0);
	trace_close(r);
	limits.max_total_raw_bytes = total - 1;
	expect_refusal_limits(data, size, &limits,
			      table + (count - 1) * TRACE_SECTION_ENTRY_SIZE + 24,
			      EFBIG, "decompressed sizes add up past the limit of");
	/* a file above max_file_bytes, from memory as from a path */
	limits = (struct trace_reader_limits){ 0 };
	trace_reader_default_limits(&limits);
	limits.max_file_bytes = size - 1;
	expect_refusal_limits(data, size, &limits, 0, EFBIG,
			      "bytes, above the limit of");
	errno = 0;
	CU_ASSERT_EQUAL(trace_open(GOOD, &limits, &r, &error), -1);
	CU_ASSERT_EQUAL(errno, EFBIG);
	CU_ASSERT_EQUAL(error.errnum, EFBIG);
	free(data);
}

/*
 * A real decompression bomb: one warp of 8 Mi identical records (64 MiB)
 * that zstd packs into a few KiB. The table is honest, the frame is
 * sound: the ratio alone refuses it, at open, before the 64 MiB exist.
 */
static void test_decompression_bomb(void)
{
	enum { RECORDS = 8u << 20 };
	uint64_t *records = malloc(RECORDS * sizeof(*records));
	struct trace_warp_records warp = { 0, RECORDS, records };
	struct trace_writer *w;
	struct trace_reader *r = (struct trace_reader *)1;
	struct trace_error error;
	uint32_t launch;
	size_t size;
	uint8_t *data;

	CU_ASSERT_PTR_NOT_NULL_FATAL(records);
	for (size_t i = 0; i < RECORDS; i++)
		records[i] = MANAGED_BASE | TRACE_ACCESS_READ;
	CU_ASSERT_EQUAL_FATAL(trace_writer_open("bomb.trace", &w, &error), 0);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_MANAGED, MANAGED_BASE,
		  MANAGED_SIZE, 0, 1);
	launch = add_launch(w, "bomb", 1, 32, 2);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(w, launch, &warp, 1), 0);
	finish_launch(w, launch, 1, 32, RECORDS, 3);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(w, &error), 0);
	free(records);
	data = read_whole("bomb.trace", &size);
	CU_ASSERT(size < (RECORDS * sizeof(*records)) / 1024);
	errno = 0;
	CU_ASSERT_EQUAL(trace_open("bomb.trace", NULL, &r, &error), -1);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_EQUAL(errno, EFBIG);
	CU_ASSERT_EQUAL(error.errnum, EFBIG);
	CU_ASSERT_EQUAL(error.offset, le64(data + 32) + 24);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message,
		"section 0 (ACCESSES): decompressed sizes add up to"));
	free(data);
}

/* errno for what is not a malformed trace */
static void test_errno(void)
{
	struct trace_reader *r;
	struct trace_warps *w;
	struct trace_error error;

	errno = 0;
	CU_ASSERT_EQUAL(trace_open("no-such.trace", NULL, &r, &error), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(error.errnum, ENOENT);
	CU_ASSERT_EQUAL_FATAL(trace_open(GOOD, NULL, &r, &error), 0);
	errno = 0;
	CU_ASSERT_EQUAL(trace_warps_open(r, 2, &w, &error), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(error.errnum, EINVAL);
	trace_close(r);
}

static void test_frame_size_disagrees(void)
{
	struct trace_reader *r;
	struct trace_warps *w;
	struct trace_error error;
	size_t size;
	uint8_t *data = read_whole(GOOD, &size);
	uint64_t table = le64(data + 32);

	/* The table says 4096 raw bytes; the frame says 56. Found when the
	 * launch's accesses are opened, at the section's offset. */
	set_le64(data + table + 24, 4096);
	fix_checksums(data, size);
	CU_ASSERT_EQUAL_FATAL(trace_open_memory(data, size, "bad.trace", NULL, &r,
						&error), 0);
	CU_ASSERT_EQUAL(trace_warps_open(r, 0, &w, &error), -1);
	CU_ASSERT_EQUAL(error.offset, 64);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message,
		"section 0 (ACCESSES): zstd frame holds 56 bytes, the table says 4096"));
	trace_close(r);
	free(data);
}

static void test_address_outside_allocations(void)
{
	struct trace_reader *r;
	struct trace_warps *w;
	struct trace_error error;

	/* A line no allocation ever held. */
	write_trace("outside.trace", 0x100000, 0);
	CU_ASSERT_EQUAL_FATAL(trace_open("outside.trace", NULL, &r, &error), 0);
	CU_ASSERT_EQUAL(trace_warps_open(r, 0, &w, &error), -1);
	CU_ASSERT_PTR_NULL(w);
	CU_ASSERT_EQUAL(error.offset, 64);
	/* 8 + 2 warp entries of 8 + 4 records of 8: the fifth record. */
	CU_ASSERT_STRING_EQUAL(error.message,
		"outside.trace: offset 64: section 0 (ACCESSES), payload byte 56: "
		"warp 3 record 1: line 0x100000 is outside every allocation live at launch 0");
	trace_close(r);

	/* The device allocation, but after it was freed. */
	write_trace("freed.trace", DEVICE_BASE, 1);
	CU_ASSERT_EQUAL_FATAL(trace_open("freed.trace", NULL, &r, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_warps_open(r, 0, &w, &error), 0);
	trace_warps_close(w);
	CU_ASSERT_EQUAL(trace_warps_open(r, 1, &w, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message,
		"line 0x7f0000040000 is outside every allocation live at launch 1"));
	trace_close(r);
}

/* Streams read a warp at a time (trace_records_*): the warps and records
 * trace_warps_open() gives, and a stray line as written (unchecked). */
static void test_records_stream(void)
{
	struct trace_reader *r;
	struct trace_records *s;
	struct trace_error error;
	const uint64_t *records;
	uint32_t id, count;

	write_trace("outside.trace", 0x100000, 0);
	CU_ASSERT_EQUAL_FATAL(trace_open("outside.trace", NULL, &r, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_records_open(r, 0, &s, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_records_warps(s), 2);
	CU_ASSERT_EQUAL_FATAL(trace_records_next(s, &id, &records, &count, &error), 0);
	CU_ASSERT_EQUAL(id, 0);
	CU_ASSERT_EQUAL_FATAL(count, 3);
	CU_ASSERT_EQUAL(memcmp(records, warp0_records, sizeof(warp0_records)), 0);
	CU_ASSERT_EQUAL_FATAL(trace_records_next(s, &id, &records, &count, &error), 0);
	CU_ASSERT_EQUAL(id, 3);
	CU_ASSERT_EQUAL_FATAL(count, 2);
	CU_ASSERT_EQUAL(records[0], warp3_records[0]);
	CU_ASSERT_EQUAL(trace_access_line(records[1]), 0x100000);
	CU_ASSERT_EQUAL(trace_records_next(s, &id, &records, &count, &error), 1);
	trace_records_close(s);
	/* a launch without a section: no warps */
	CU_ASSERT_EQUAL_FATAL(trace_records_open(r, 1, &s, &error), 0);
	CU_ASSERT_EQUAL(trace_records_warps(s), 0);
	CU_ASSERT_EQUAL(trace_records_next(s, &id, &records, &count, &error), 1);
	trace_records_close(s);
	trace_close(r);
}

/* The open reads the file once (its whole CRC-32 with it); a launch's
 * section is read again when opened, and refused if it changed since. */
static void test_file_read_again(void)
{
	struct trace_reader *r;
	struct trace_warps *w;
	struct trace_error error;
	size_t size;
	uint8_t *data;
	FILE *f;

	write_trace("again.trace", DEVICE_BASE, 0);
	data = read_whole("again.trace", &size);
	CU_ASSERT_EQUAL_FATAL(trace_open("again.trace", NULL, &r, &error), 0);
	CU_ASSERT_EQUAL(trace_get_info(r)->file_crc32, trace_crc32(0, data, size));
	/* a byte of the first section (launch 0's ACCESSES, at 64) changes */
	data[70] ^= 0xff;
	f = fopen("again.trace", "r+b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, size, f), size);
	fclose(f);
	CU_ASSERT_EQUAL(trace_warps_open(r, 0, &w, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message,
		"again.trace: offset 64: section 0 (ACCESSES): changed since the trace was opened"));
	/* streamed: refused, at the latest when its end is read */
	{
		struct trace_records *s;
		const uint64_t *records;
		uint32_t id, count;
		int rc;

		if (!trace_records_open(r, 0, &s, &error)) {
			while (!(rc = trace_records_next(s, &id, &records, &count, &error)))
				;
			CU_ASSERT_EQUAL(rc, -1);
			trace_records_close(s);
		}
		/* here the changed byte breaks the warp table first (the CRC is
		 * compared at the end) */
		CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "again.trace: offset 64: section 0 "
					      "(ACCESSES)"));
	}
	trace_close(r);
	free(data);
}

static void test_bad_events(void)
{
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_error error;

	/* A free of nothing, and a prefetch of device memory: refused at the
	 * EVENTS section (the only section: index 1, after META at 64). */
	CU_ASSERT_EQUAL_FATAL(trace_writer_open("events.trace", &w, &error), 0);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_DEVICE, DEVICE_BASE,
		  DEVICE_SIZE, 0, 1);
	add_event(w, TRACE_EVENT_PREFETCH, 0, DEVICE_BASE, 128, 0, 2);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(w, &error), 0);
	CU_ASSERT_EQUAL(trace_open("events.trace", NULL, &r, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message,
		"section 1 (EVENTS), payload byte 64: event 1 (prefetch): "
		"0x7f0000040000+128 is not inside a live managed allocation"));

	CU_ASSERT_EQUAL_FATAL(trace_writer_open("events.trace", &w, &error), 0);
	add_event(w, TRACE_EVENT_FREE, 0, MANAGED_BASE, 0, 0, 1);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(w, &error), 0);
	CU_ASSERT_EQUAL(trace_open("events.trace", NULL, &r, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message,
		"payload byte 16: event 0 (free): 0x7f0000010000 is no live allocation"));

	/* Overlapping allocations. */
	CU_ASSERT_EQUAL_FATAL(trace_writer_open("events.trace", &w, &error), 0);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_MANAGED, MANAGED_BASE,
		  MANAGED_SIZE, 0, 1);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_MANAGED,
		  MANAGED_BASE + MANAGED_SIZE - 1, 2, 0, 1);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(w, &error), 0);
	CU_ASSERT_EQUAL(trace_open("events.trace", NULL, &r, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message,
		"event 1 (alloc): 0x7f000001ffff+2 overlaps a live allocation"));
}

static void test_writer_refuses_bad_meta(void)
{
	struct trace_writer *w;
	struct trace_error error;

	CU_ASSERT_EQUAL_FATAL(trace_writer_open("meta.trace", &w, &error), 0);
	CU_ASSERT_EQUAL(trace_writer_set_meta(w, "a=b", "c"), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(trace_writer_last_error(w), "meta key 'a=b'"));
	CU_ASSERT_EQUAL(trace_writer_set_meta(w, "a", "two\nlines"), -1);
	CU_ASSERT_EQUAL(trace_writer_close(w, &error), 0);
}


/*
 * Delta coding (TRACE_COMPRESSION_DELTA_ZSTD). The edge trace: one
 * allocation of every byte but the last, so that any line is inside it;
 * launch 0 (2^20 warps) with an empty warp, a warp of one record, the
 * largest deltas both ways, a warp at the grid's end, every valid flag;
 * launch 1 with the flags the checked reader refuses (0, bits 2..6),
 * which the coding must keep as they are (the stream reads them back).
 */
#define LAST_LINE (UINT64_MAX & ~TRACE_ACCESS_FLAG_MASK)
static const uint64_t edge_one[] = { 0 | TRACE_ACCESS_READ };
static const uint64_t edge_far[] = {
	LAST_LINE | TRACE_ACCESS_WRITE,			/* + (2^57 - 1) lines */
	0 | TRACE_ACCESS_READ | TRACE_ACCESS_WRITE,	/* - (2^57 - 1) lines */
	LAST_LINE | TRACE_ACCESS_READ,
	LAST_LINE | TRACE_ACCESS_READ,			/* a delta of 0 */
	0x80 | TRACE_ACCESS_WRITE,
};
static const uint64_t edge_stride[] = { 0x1000 | 1, 0x1080 | 1, 0x1100 | 2 };
static const uint64_t edge_flags[] = { 0x4000, 0x4000 | 0x7f, 0x4080 | 0x04,
				       0x4080 | 0x43 };

static void write_edge_trace(const char *path, uint32_t compression)
{
	struct trace_warp_records warps[] = {
		{ 0, 0, NULL },
		{ 1, 1, edge_one },
		{ 7, 5, edge_far },
		{ 8, 0, NULL },
		{ (1u << 20) - 1, 3, edge_stride },
	};
	struct trace_warp_records flags = { 2, 4, edge_flags };
	struct trace_writer *w;
	struct trace_error error;
	uint32_t launch;

	CU_ASSERT_EQUAL_FATAL(trace_writer_open(path, &w, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_set_accesses_compression(w, compression), 0);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_MANAGED, 0, UINT64_MAX, 0, 1);
	launch = add_launch(w, "edges", 1u << 19, 64, 2);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(w, launch, warps, 5), 0);
	finish_launch(w, launch, 1u << 19, 64, 9, 3);
	launch = add_launch(w, "flags", 1, 96, 4);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(w, launch, &flags, 1), 0);
	finish_launch(w, launch, 1, 96, 4, 5);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(w, &error), 0);
}

/* Every launch's streams of two traces, word for word: streamed and,
 * where `checked` has the launch's bit, opened whole. */
static void expect_same_records(const char *a, const char *b, unsigned int checked)
{
	struct trace_reader *ra, *rb;
	struct trace_error error;

	CU_ASSERT_EQUAL_FATAL(trace_open(a, NULL, &ra, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_open(b, NULL, &rb, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_launch_count(ra), trace_launch_count(rb));
	for (size_t l = 0; l < trace_launch_count(ra); l++) {
		struct trace_records *sa, *sb;
		const uint64_t *xa, *xb;
		uint32_t ida, idb, na, nb;
		int rca, rcb;

		CU_ASSERT_EQUAL_FATAL(trace_records_open(ra, l, &sa, &error), 0);
		CU_ASSERT_EQUAL_FATAL(trace_records_open(rb, l, &sb, &error), 0);
		CU_ASSERT_EQUAL(trace_records_warps(sa), trace_records_warps(sb));
		do {
			rca = trace_records_next(sa, &ida, &xa, &na, &error);
			rcb = trace_records_next(sb, &idb, &xb, &nb, &error);
			CU_ASSERT_EQUAL_FATAL(rca, rcb);
			if (rca)
				break;
			CU_ASSERT_EQUAL(ida, idb);
			CU_ASSERT_EQUAL_FATAL(na, nb);
			CU_ASSERT(!na || !memcmp(xa, xb, na * sizeof(*xa)));
		} while (1);
		CU_ASSERT_EQUAL(rca, 1);
		trace_records_close(sa);
		trace_records_close(sb);
		if (checked & (1u << l)) {
			struct trace_warps *wa, *wb;

			CU_ASSERT_EQUAL_FATAL(trace_warps_open(ra, l, &wa, &error), 0);
			CU_ASSERT_EQUAL_FATAL(trace_warps_open(rb, l, &wb, &error), 0);
			CU_ASSERT_EQUAL_FATAL(trace_warps_count(wa), trace_warps_count(wb));
			for (size_t k = 0; k < trace_warps_count(wa); k++) {
				trace_warps_get(wa, k, &ida, &xa, &na);
				trace_warps_get(wb, k, &idb, &xb, &nb);
				CU_ASSERT_EQUAL(ida, idb);
				CU_ASSERT_EQUAL_FATAL(na, nb);
				CU_ASSERT(!na || !memcmp(xa, xb, na * sizeof(*xa)));
			}
			trace_warps_close(wa);
			trace_warps_close(wb);
		}
	}
	trace_close(ra);
	trace_close(rb);
}

static void test_delta_round_trip(void)
{
	struct trace_reader *r;
	struct trace_records *s;
	struct trace_warps *w;
	struct trace_error error;
	const uint64_t *records;
	uint32_t id, count;

	write_edge_trace("edge.trace", TRACE_COMPRESSION_ZSTD);
	write_edge_trace("edge-delta.trace", TRACE_COMPRESSION_DELTA_ZSTD);
	expect_same_records("edge.trace", "edge-delta.trace", 1u << 0);

	CU_ASSERT_EQUAL_FATAL(trace_open("edge-delta.trace", NULL, &r, &error), 0);
	/* 1.1: the file has a delta-coded section */
	CU_ASSERT_EQUAL(trace_get_info(r)->version_minor, 1);
	/* launch 0, checked whole: the records as written */
	CU_ASSERT_EQUAL_FATAL(trace_warps_open(r, 0, &w, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_warps_count(w), 5);
	trace_warps_get(w, 0, &id, &records, &count);
	CU_ASSERT_EQUAL(id, 0);
	CU_ASSERT_EQUAL(count, 0);
	trace_warps_get(w, 1, &id, &records, &count);
	CU_ASSERT_EQUAL(id, 1);
	CU_ASSERT_EQUAL_FATAL(count, 1);
	CU_ASSERT_EQUAL(records[0], edge_one[0]);
	trace_warps_get(w, 2, &id, &records, &count);
	CU_ASSERT_EQUAL(id, 7);
	CU_ASSERT_EQUAL_FATAL(count, 5);
	CU_ASSERT_EQUAL(memcmp(records, edge_far, sizeof(edge_far)), 0);
	trace_warps_get(w, 3, &id, &records, &count);
	CU_ASSERT_EQUAL(id, 8);
	CU_ASSERT_EQUAL(count, 0);
	trace_warps_get(w, 4, &id, &records, &count);
	CU_ASSERT_EQUAL(id, (1u << 20) - 1);
	CU_ASSERT_EQUAL_FATAL(count, 3);
	CU_ASSERT_EQUAL(memcmp(records, edge_stride, sizeof(edge_stride)), 0);
	trace_warps_close(w);
	/* launch 1: its flags kept, streamed; refused checked */
	CU_ASSERT_EQUAL_FATAL(trace_records_open(r, 1, &s, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_records_next(s, &id, &records, &count, &error), 0);
	CU_ASSERT_EQUAL(id, 2);
	CU_ASSERT_EQUAL_FATAL(count, 4);
	CU_ASSERT_EQUAL(memcmp(records, edge_flags, sizeof(edge_flags)), 0);
	CU_ASSERT_EQUAL(trace_records_next(s, &id, &records, &count, &error), 1);
	trace_records_close(s);
	errno = 0;
	CU_ASSERT_EQUAL(trace_warps_open(r, 1, &w, &error), -1);
	CU_ASSERT_EQUAL(errno, EBADMSG);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "warp 2 record 0: flags 0"));
	trace_close(r);

	/* the good trace, delta-coded: the same records; the fuzzer's seed */
	write_trace(GOOD, 0, 0);
	{
		struct trace_writer *dw;
		uint64_t warp3[1] = { warp3_records[0] };
		struct trace_warp_records warps[2] = { { 0, 3, warp0_records },
						       { 3, 1, warp3 } };
		uint32_t launch;

		CU_ASSERT_EQUAL_FATAL(trace_writer_open("good-delta.trace", &dw, &error), 0);
		CU_ASSERT_EQUAL(trace_writer_set_accesses_compression(dw, 7), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(trace_writer_last_error(dw), "compression 7"));
		CU_ASSERT_EQUAL_FATAL(trace_writer_set_accesses_compression(dw,
					TRACE_COMPRESSION_DELTA_ZSTD), 0);
		/* ids coded as gaps must ascend */
		{
			struct trace_warp_records backwards[2] = { warps[1], warps[0] };

			CU_ASSERT_EQUAL(trace_writer_add_accesses(dw, 0, backwards, 2), -1);
			CU_ASSERT_PTR_NOT_NULL(strstr(trace_writer_last_error(dw),
				"launch 0: warp 0 after warp 3: delta coding needs ascending warp ids"));
		}
		trace_writer_set_flags(dw, TRACE_FLAG_TIMES_INSTRUMENTED);
		add_event(dw, TRACE_EVENT_ALLOC, TRACE_MEMORY_MANAGED, MANAGED_BASE,
			  MANAGED_SIZE, 0, 100);
		add_event(dw, TRACE_EVENT_ALLOC, TRACE_MEMORY_DEVICE, DEVICE_BASE,
			  DEVICE_SIZE, 0, 200);
		add_event(dw, TRACE_EVENT_ADVISE, TRACE_ADVISE_SET_READ_MOSTLY,
			  MANAGED_BASE, MANAGED_SIZE, 0, 300);
		add_event(dw, TRACE_EVENT_PREFETCH, 0, MANAGED_BASE, 0x8000, 0, 400);
		add_event(dw, TRACE_EVENT_MEMCPY, 1, DEVICE_BASE, 256, 0x5000, 500);
		launch = add_launch(dw, "kernel_a", 2, 64, 600);
		CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(dw, launch, warps, 2), 0);
		finish_launch(dw, launch, 2, 64, 4, 12345);
		add_event(dw, TRACE_EVENT_FREE, 0, DEVICE_BASE, 0, 0, 700);
		launch = add_launch(dw, "kernel_b", 1, 32, 800);
		finish_launch(dw, launch, 1, 32, 0, 77);
		add_event(dw, TRACE_EVENT_SYNC, 0, 0, 0, 0, 900);
		CU_ASSERT_EQUAL_FATAL(trace_writer_close(dw, &error), 0);
	}
	expect_same_records(GOOD, "good-delta.trace", 3);
	/* a trace without a delta-coded section stays 1.0 */
	CU_ASSERT_EQUAL_FATAL(trace_open(GOOD, NULL, &r, &error), 0);
	CU_ASSERT_EQUAL(trace_get_info(r)->version_minor, 0);
	trace_close(r);
}

/*
 * good-delta.trace with section 0 (launch 0's ACCESSES, right after the
 * header) replaced by `coded` compressed, its table saying `raw_size`
 * decoded bytes: the sections after it moved, the table and the header
 * fixed. Returns the new file (*size: its size).
 */
static uint8_t *with_coded_section(const uint8_t *coded, size_t coded_size,
				   uint64_t raw_size, size_t *size)
{
	size_t old_size, bound = ZSTD_compressBound(coded_size), stored;
	uint8_t *old = read_whole("good-delta.trace", &old_size);
	uint64_t table = le64(old + 32), old_stored = le64(old + table + 16);
	uint32_t count = old[28];
	uint8_t *frame = malloc(bound), *out;
	int64_t shift;

	stored = ZSTD_compress(frame, bound, coded, coded_size, 3);
	CU_ASSERT_FATAL(!ZSTD_isError(stored));
	shift = (int64_t)stored - (int64_t)old_stored;
	*size = old_size + shift;
	out = malloc(*size);
	memcpy(out, old, 64);
	memcpy(out + 64, frame, stored);
	memcpy(out + 64 + stored, old + 64 + old_stored, old_size - 64 - old_stored);
	table += shift;
	set_le64(out + 32, table);
	set_le64(out + 40, *size);
	set_le64(out + table + 16, stored);
	set_le64(out + table + 24, raw_size);
	set_le32(out + table + 32, trace_crc32(0, frame, stored));
	for (uint32_t i = 1; i < count; i++) {
		uint8_t *e = out + table + i * TRACE_SECTION_ENTRY_SIZE;

		set_le64(e + 8, le64(e + 8) + shift);
	}
	fix_checksums(out, *size);
	free(frame);
	free(old);
	return out;
}

/* The trace opens; launch 0's accesses are refused, whole and streamed,
 * with EBADMSG at the section's offset (64) saying `words`. */
static void expect_coded_refusal(const uint8_t *coded, size_t coded_size,
				 uint64_t raw_size, const char *words)
{
	size_t size;
	uint8_t *data = with_coded_section(coded, coded_size, raw_size, &size);
	struct trace_reader *r;
	struct trace_records *s;
	struct trace_warps *w;
	struct trace_error error = { 0 };
	const uint64_t *records;
	uint32_t id, count;
	int rc = -1;

	CU_ASSERT_EQUAL_FATAL(trace_open_memory(data, size, "bad.trace", NULL, &r, &error), 0);
	errno = 0;
	CU_ASSERT_EQUAL(trace_warps_open(r, 0, &w, &error), -1);
	CU_ASSERT_EQUAL(errno, EBADMSG);
	CU_ASSERT_EQUAL(error.errnum, EBADMSG);
	CU_ASSERT_EQUAL(error.offset, 64);
	CU_ASSERT_EQUAL(strncmp(error.message, "bad.trace: offset 64: section 0 (ACCESSES)", 42), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, words));
	if (!strstr(error.message, words))
		fprintf(stderr, "\n  got: %s\n", error.message);
	memset(&error, 0, sizeof(error));
	errno = 0;
	if (!trace_records_open(r, 0, &s, &error)) {
		while (!(rc = trace_records_next(s, &id, &records, &count, &error)))
			;
		trace_records_close(s);
	}
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(errno, EBADMSG);
	CU_ASSERT_EQUAL(error.offset, 64);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, words));
	trace_close(r);
	free(data);
}

static void test_delta_hostile(void)
{
	/* launch 0 of the good trace (2 blocks of 64 threads: warps 0..3)
	 * coded by hand: the warp count, then each warp's id gap and record
	 * count; then warp 0's records (its first from line 0: 7 bytes, coded
	 * bytes 12..18; then 1 byte each), warp 3's (from warp 0's first: 2
	 * bytes, 21..22). */
	const uint8_t head[] = { 2, 0, 0, 0, 0, 0, 0, 0,
				 0, 3,	/* warp 0: 3 records */
				 2, 1 };/* warp 3: 1 record */
	uint8_t coded[64];
	size_t n;
	/* warp 0's first record: line MANAGED_BASE >> 7 from line 0, read */
	const uint64_t first = (MANAGED_BASE >> 7) << 3 | TRACE_ACCESS_READ;

#define PUT_VARINT(v)                                                          \
	do {                                                                   \
		uint64_t x_ = (v);                                             \
		while (x_ >= 0x80) {                                           \
			coded[n++] = (uint8_t)(x_ | 0x80);                     \
			x_ >>= 7;                                              \
		}                                                              \
		coded[n++] = (uint8_t)x_;                                      \
	} while (0)
	/* a well-formed stream first: the good trace's launch 0, which
	 * reads back (so that each case below fails for its one fault) */
	memcpy(coded, head, sizeof(head));
	n = sizeof(head);
	PUT_VARINT(first);			/* +line, read */
	PUT_VARINT(1u << 3 | 2);		/* +1 line (zigzag 2), write */
	PUT_VARINT(1u << 2 | 1);		/* -1 line (zigzag 1), read */
	PUT_VARINT(((DEVICE_BASE - MANAGED_BASE) >> 7) << 3 | 3); /* warp 3 */
	{
		size_t size;
		uint8_t *data = with_coded_section(coded, n, 8 + 16 + 32, &size);
		struct trace_reader *r;
		struct trace_warps *w;
		struct trace_error error;

		CU_ASSERT_EQUAL_FATAL(trace_open_memory(data, size, "ok.trace", NULL, &r,
							&error), 0);
		CU_ASSERT_EQUAL(trace_warps_open(r, 0, &w, &error), 0);
		trace_warps_close(w);
		trace_close(r);
		free(data);
	}
	/* the same, with one byte more: refused at the end */
	coded[n] = 0;
	expect_coded_refusal(coded, n + 1, 56, "coded byte 23: 1 coded bytes after the last record");
	/* truncated: the last varint's continuation with nothing after it */
	coded[n - 1] |= 0x80;
	expect_coded_refusal(coded, n, 56, "coded byte 21: warp 3 record 0: the coded stream ends inside it");
	/* overlong: the last varint's extra zero byte */
	coded[n] = 0;
	expect_coded_refusal(coded, n + 1, 56, "coded byte 21: warp 3 record 0: an overlong varint");
	/* a varint of 65 bits: ten bytes, the tenth 2 */
	n = sizeof(head);
	for (int k = 0; k < 9; k++)
		coded[n++] = 0xff;
	coded[n++] = 2;
	expect_coded_refusal(coded, n, 56, "coded byte 12: warp 0 record 0: a varint of more than 64 bits");
	/* a delta of -1 line from line 0 */
	n = sizeof(head);
	PUT_VARINT(1u << 2 | 1);
	expect_coded_refusal(coded, n, 56,
			     "coded byte 12: warp 0 record 0: a delta of -1 lines from line 0 leads outside 64 bits");
	/* a delta of 2^57 lines from line 0 */
	n = sizeof(head);
	PUT_VARINT((1ull << 58) << 2 | 1);
	expect_coded_refusal(coded, n, 56, "leads outside 64 bits");
	/* flags 1 in a flags byte: it folds into the varint */
	n = sizeof(head);
	PUT_VARINT(first & ~3ull);
	coded[n++] = 1;
	expect_coded_refusal(coded, n, 56, "warp 0 record 0: flags byte 0x1");
	/* the table says more decoded bytes than the warps fill */
	n = sizeof(head);
	PUT_VARINT(first);
	expect_coded_refusal(coded, n, 64,
			     "the warps hold 4 records, the launch record says 4, the section's 64 bytes 5");
	/* a frame that holds more than its decoded size can code to */
	memset(coded + sizeof(head), 0x80, sizeof(coded) - sizeof(head));
	expect_coded_refusal(coded, sizeof(coded), 40,
			     "zstd frame holds 64 coded bytes, more than the 50 the table's 40 decoded bytes can code to");
	/* a warp id past the grid (warp 1 + 3 + 1 of 4) */
	memcpy(coded, head, sizeof(head));
	coded[10] = 3;
	expect_coded_refusal(coded, sizeof(head), 56,
			     "coded byte 10: warp entry 1: warp 4 is beyond the grid's 4 warps");
#undef PUT_VARINT
}

/* Delta coding only for ACCESSES: refused on another section at open. */
static void test_delta_only_accesses(void)
{
	size_t size;
	uint8_t *data = read_whole("good-delta.trace", &size);
	uint64_t table = le64(data + 32);

	/* entry 1: META */
	set_le32(data + table + TRACE_SECTION_ENTRY_SIZE + 4, TRACE_COMPRESSION_DELTA_ZSTD);
	fix_checksums(data, size);
	expect_refusal(data, size, table + TRACE_SECTION_ENTRY_SIZE + 4,
		       "section 1 (META): delta coding (compression 2) is for ACCESSES sections only");
	set_le32(data + table + TRACE_SECTION_ENTRY_SIZE + 4, 3);
	fix_checksums(data, size);
	expect_refusal(data, size, table + TRACE_SECTION_ENTRY_SIZE + 4,
		       "section 1: unknown compression 3");
	free(data);
}

/*
 * The shared-sections trace: launches 0 and 2 record the same lines (warp
 * 0 of the good trace's launch 0), launch 1 others, each ACCESSES section
 * stored as `compression` says.
 */
static void write_shared_trace(const char *path, uint32_t compression)
{
	static const uint64_t other[] = { (MANAGED_BASE + 0x100) | TRACE_ACCESS_WRITE };
	struct trace_warp_records same = { 0, 3, warp0_records };
	struct trace_warp_records different = { 1, 1, other };
	struct trace_writer *w;
	struct trace_error error;

	CU_ASSERT_EQUAL_FATAL(trace_writer_open(path, &w, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_set_accesses_compression(w, compression), 0);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_MANAGED, MANAGED_BASE,
		  MANAGED_SIZE, 0, 100);
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t launch = add_launch(w, "kernel", 1, 64, 200 + i);

		CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(w, launch,
					i == 1 ? &different : &same, 1), 0);
		finish_launch(w, launch, 1, 64, i == 1 ? 1 : 3, 1000 + i);
	}
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(w, &error), 0);
}

/* The table entry of launch `launch`'s ACCESSES section, in the file. */
static uint8_t *accesses_entry(uint8_t *data, uint32_t launch)
{
	uint64_t table = le64(data + 32);
	uint32_t count = data[28] | data[29] << 8;

	for (uint32_t i = 0; i < count; i++) {
		uint8_t *e = data + table + i * TRACE_SECTION_ENTRY_SIZE;

		if (e[0] == TRACE_SECTION_ACCESSES &&
		    (e[36] | e[37] << 8) == (int)launch)
			return e;
	}
	CU_FAIL_FATAL("no ACCESSES section of that launch");
	return NULL;
}

/*
 * A launch that repeats an earlier launch's lines shares its stored bytes
 * (format 1.2): one copy in the file, two table entries; read back word for
 * word through both paths, plain or delta-coded. A table entry at another
 * section's bytes that is not its equal is refused as an overlap.
 */
static void test_shared_sections(void)
{
	static const uint32_t kinds[] = { TRACE_COMPRESSION_ZSTD,
					  TRACE_COMPRESSION_DELTA_ZSTD };

	for (size_t k = 0; k < 2; k++) {
		struct trace_reader *r;
		struct trace_error error;
		struct trace_records *records;
		const uint64_t *got;
		uint32_t warp, n;
		size_t size;
		uint8_t *data, *e0, *e1, *e2, *meta;

		write_shared_trace("shared.trace", kinds[k]);
		CU_ASSERT_EQUAL_FATAL(trace_open("shared.trace", NULL, &r, &error), 0);
		CU_ASSERT_EQUAL(trace_get_info(r)->version_minor, 2);
		for (size_t launch = 0; launch < 3; launch += 2) {
			CU_ASSERT_EQUAL_FATAL(trace_records_open(r, launch, &records, &error), 0);
			CU_ASSERT_EQUAL_FATAL(trace_records_next(records, &warp, &got, &n, &error), 0);
			CU_ASSERT_EQUAL(warp, 0);
			CU_ASSERT_EQUAL_FATAL(n, 3);
			CU_ASSERT_EQUAL(memcmp(got, warp0_records, sizeof(warp0_records)), 0);
			CU_ASSERT_EQUAL(trace_records_next(records, &warp, &got, &n, &error), 1);
			trace_records_close(records);
		}
		{
			struct trace_warps *warps;

			CU_ASSERT_EQUAL_FATAL(trace_warps_open(r, 2, &warps, &error), 0);
			CU_ASSERT_EQUAL(trace_warps_count(warps), 1);
			trace_warps_get(warps, 0, &warp, &got, &n);
			CU_ASSERT_EQUAL(n, 3);
			CU_ASSERT_EQUAL(memcmp(got, warp0_records, sizeof(warp0_records)), 0);
			trace_warps_close(warps);
		}
		trace_close(r);

		data = read_whole("shared.trace", &size);
		e0 = accesses_entry(data, 0);
		e1 = accesses_entry(data, 1);
		e2 = accesses_entry(data, 2);
		CU_ASSERT_EQUAL(le64(e2 + 8), le64(e0 + 8));	/* one copy */
		CU_ASSERT_NOT_EQUAL(le64(e1 + 8), le64(e0 + 8));
		/* an entry at launch 0's bytes with another checksum */
		set_le32(e2 + 32, le64(e2 + 32) ^ 1);
		fix_checksums(data, size);
		expect_refusal(data, size, (uint64_t)(e2 + 8 - data),
			       "overlap another section");
		set_le32(e2 + 32, le64(e0 + 32));
		/* at launch 1's bytes, whose entry it does not equal */
		set_le64(e2 + 8, le64(e1 + 8));
		fix_checksums(data, size);
		expect_refusal(data, size, (uint64_t)(e2 + 8 - data),
			       "overlap another section");
		/* a META entry at launch 0's bytes: only ACCESSES share */
		meta = data + le64(data + 32) + TRACE_SECTION_ENTRY_SIZE * 3;
		CU_ASSERT_EQUAL_FATAL(meta[0], TRACE_SECTION_META);
		set_le64(e2 + 8, le64(e0 + 8));
		memcpy(meta + 8, e0 + 8, 28);	/* offset .. crc */
		fix_checksums(data, size);
		expect_refusal(data, size, (uint64_t)(meta + 8 - data),
			       "overlap another section");
		free(data);
	}
	/* nothing repeated: no section shared, the version stays below 1.2 */
	{
		struct trace_reader *r;
		struct trace_error error;

		CU_ASSERT_EQUAL_FATAL(trace_open("good-delta.trace", NULL, &r, &error), 0);
		CU_ASSERT_EQUAL(trace_get_info(r)->version_minor, 1);
		trace_close(r);
	}
}

/*
 * A delta-coded section is out of the compression ratio (a sweep codes to
 * a few bits a warp), not out of the size limits: 8 Mi identical records
 * (64 MiB decoded) in a file of a few hundred bytes open under the
 * default limits and read back; under a section limit below their size
 * they are refused at open, EFBIG, before anything is decoded.
 */
static void test_delta_limits(void)
{
	enum { RECORDS = 8u << 20 };
	uint64_t *records = malloc(RECORDS * sizeof(*records));
	struct trace_warp_records warp = { 0, RECORDS, records };
	struct trace_reader_limits limits;
	struct trace_reader *r;
	struct trace_records *s;
	struct trace_writer *w;
	struct trace_error error;
	const uint64_t *got;
	uint32_t launch, id, count;
	size_t size;
	uint8_t *data;

	CU_ASSERT_PTR_NOT_NULL_FATAL(records);
	for (size_t i = 0; i < RECORDS; i++)
		records[i] = MANAGED_BASE | TRACE_ACCESS_READ;
	CU_ASSERT_EQUAL_FATAL(trace_writer_open("sweep.trace", &w, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_set_accesses_compression(w,
				TRACE_COMPRESSION_DELTA_ZSTD), 0);
	trace_writer_set_level(w, 19);
	add_event(w, TRACE_EVENT_ALLOC, TRACE_MEMORY_MANAGED, MANAGED_BASE,
		  MANAGED_SIZE, 0, 1);
	launch = add_launch(w, "sweep", 1, 32, 2);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(w, launch, &warp, 1), 0);
	finish_launch(w, launch, 1, 32, RECORDS, 3);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(w, &error), 0);
	free(records);
	data = read_whole("sweep.trace", &size);
	CU_ASSERT(size < (RECORDS * sizeof(*records)) / 1024);
	CU_ASSERT_EQUAL_FATAL(trace_open("sweep.trace", NULL, &r, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_records_open(r, 0, &s, &error), 0);
	CU_ASSERT_EQUAL_FATAL(trace_records_next(s, &id, &got, &count, &error), 0);
	CU_ASSERT_EQUAL(count, RECORDS);
	CU_ASSERT_EQUAL(got[0], MANAGED_BASE | TRACE_ACCESS_READ);
	CU_ASSERT_EQUAL(got[RECORDS - 1], MANAGED_BASE | TRACE_ACCESS_READ);
	CU_ASSERT_EQUAL(trace_records_next(s, &id, &got, &count, &error), 1);
	trace_records_close(s);
	trace_close(r);
	trace_reader_default_limits(&limits);
	limits.max_section_raw_bytes = RECORDS * 8ull;
	errno = 0;
	CU_ASSERT_EQUAL(trace_open("sweep.trace", &limits, &r, &error), -1);
	CU_ASSERT_EQUAL(errno, EFBIG);
	CU_ASSERT_EQUAL(error.offset, le64(data + 32) + 24);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message,
		"section 0 (ACCESSES): absurd decompressed size 67108880"));
	free(data);
}

int main(void)
{
	CU_pSuite suite;
	unsigned int failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	suite = CU_add_suite("libtrace", NULL, NULL);
	/* good.trace is written by the second test and read by the rest. */
	CU_add_test(suite, "crc32 check value", test_crc32_check_value);
	CU_add_test(suite, "good trace reads back", test_good_trace_reads_back);
	CU_add_test(suite, "truncated", test_truncated);
	CU_add_test(suite, "bad magic, unfinished capture",
		    test_bad_magic_and_unfinished_capture);
	CU_add_test(suite, "wrong version", test_wrong_version);
	CU_add_test(suite, "header checksum", test_header_checksum);
	CU_add_test(suite, "section checksum", test_section_checksum);
	CU_add_test(suite, "table checksum", test_table_checksum);
	CU_add_test(suite, "counts beyond the file", test_counts_beyond_file);
	CU_add_test(suite, "ratio limit", test_ratio_limit);
	CU_add_test(suite, "total decompressed limit", test_total_limit);
	CU_add_test(suite, "decompression bomb", test_decompression_bomb);
	CU_add_test(suite, "errno of other refusals", test_errno);
	CU_add_test(suite, "frame size disagrees", test_frame_size_disagrees);
	CU_add_test(suite, "address outside allocations",
		    test_address_outside_allocations);
	CU_add_test(suite, "records streamed", test_records_stream);
	CU_add_test(suite, "file read again", test_file_read_again);
	CU_add_test(suite, "bad events", test_bad_events);
	CU_add_test(suite, "writer refuses bad meta", test_writer_refuses_bad_meta);
	/* good.trace is rewritten by the first of these, good-delta.trace
	 * written for the rest */
	CU_add_test(suite, "delta coding: round trip", test_delta_round_trip);
	CU_add_test(suite, "delta coding: hostile streams", test_delta_hostile);
	CU_add_test(suite, "delta coding: ACCESSES only", test_delta_only_accesses);
	CU_add_test(suite, "delta coding: limits", test_delta_limits);
	CU_add_test(suite, "shared sections", test_shared_sections);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
