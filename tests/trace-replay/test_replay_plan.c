// SPDX-License-Identifier: MIT
/*
 * The trace replay's plan (userspace/replay_plan.c), natively, no VM: the
 * committed selftest and PyTorch traces opened, scaled and laid out (exact
 * line counts), and bad traces refused with the reader's "FILE: offset N:
 * what": truncated, wrong version, a line outside every allocation, and a
 * timing trace of another program.
 *
 * usage: test-replay-plan TRACES_DIR WORKDIR
 */
#include <CUnit/Basic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define MiB (1ull << 20)

static const char *traces_dir, *work_dir;

static void trace_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", traces_dir, name);
}

static uint64_t count_bits(const uint8_t *map, uint64_t n)
{
	uint64_t i, c = 0;

	for (i = 0; i < n; i++)
		c += em_replay_bit(map, i);
	return c;
}

/* The allocation of card size `size` (the selftest's are unique). */
static const struct em_replay_alloc *by_size(const struct em_replay_plan *p,
					     uint64_t size)
{
	size_t i;

	for (i = 0; i < p->nallocs; i++)
		if (p->allocs[i].card_size == size)
			return &p->allocs[i];
	return NULL;
}

/*
 * selftest: fill writes every line of its 4 MiB buffer (32768 warps, one
 * line each), sum_pairs reads two of them and writes one of the 2 MiB
 * buffer per warp: nothing is read before it is written, so no input line;
 * every line of both holds the pattern at the end. At half the footprint
 * each buffer has half the lines, all still touched.
 */
static void test_selftest_layout(void)
{
	struct em_replay_plan p;
	const struct em_replay_alloc *a, *b;
	char path[512], err[320];

	trace_path(path, sizeof(path), "selftest-accesses.trace");
	CU_ASSERT_EQUAL_FATAL(em_replay_open(&p, path, NULL, true, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.nallocs, 3);
	CU_ASSERT_EQUAL(p.peak_bytes, 512 + 4 * MiB + 2 * MiB);
	CU_ASSERT_EQUAL(p.records, 81920);
	CU_ASSERT_EQUAL(p.max_records, 49152);
	CU_ASSERT_EQUAL(p.max_warps, 32768);
	CU_ASSERT_EQUAL(p.card_ns, 97249 + 437420);
	CU_ASSERT_EQUAL(p.times_instrumented, 1);
	CU_ASSERT_STRING_EQUAL(p.name, "selftest-accesses.trace");
	CU_ASSERT_EQUAL(p.file_size, 144667);

	CU_ASSERT_EQUAL_FATAL(em_replay_layout(&p, p.peak_bytes, err, sizeof(err)), 0);
	a = by_size(&p, 4 * MiB);
	b = by_size(&p, 2 * MiB);
	CU_ASSERT_FATAL(a && b);
	CU_ASSERT_EQUAL(a->lines, 32768);
	CU_ASSERT_EQUAL(count_bits(a->input, a->lines), 0);
	CU_ASSERT_EQUAL(count_bits(a->touched, a->lines), 32768);
	CU_ASSERT_EQUAL(count_bits(b->input, b->lines), 0);
	CU_ASSERT_EQUAL(count_bits(b->touched, b->lines), 16384);
	CU_ASSERT_EQUAL(p.replay_peak_bytes, 512 + 4 * MiB + 2 * MiB);

	CU_ASSERT_EQUAL_FATAL(em_replay_layout(&p, p.peak_bytes / 2, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(a->lines, 16384);
	CU_ASSERT_EQUAL(count_bits(a->touched, a->lines), 16384);
	CU_ASSERT_EQUAL(count_bits(b->touched, b->lines), 8192);
	CU_ASSERT_EQUAL(count_bits(a->input, a->lines), 0);
	em_replay_close(&p);
}

/*
 * CuPy's kernels: 81920 of their accesses fall in the 64 MiB buffer it
 * made with cudaMalloc (trace-dump --accesses, each record's line counted
 * by address against the trace's device allocations, an atomic twice;
 * it has none there), none in pinned memory; a layout at another scale
 * keeps the count.
 */
static void test_cupy_device_accesses(void)
{
	struct em_replay_plan p;
	char path[512], err[320];

	trace_path(path, sizeof(path), "cupy-accesses.trace");
	CU_ASSERT_EQUAL_FATAL(em_replay_open(&p, path, NULL, true, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(em_replay_layout(&p, p.peak_bytes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.device_accesses, 81920);
	CU_ASSERT_EQUAL(p.host_accesses, 0);
	CU_ASSERT_EQUAL_FATAL(em_replay_layout(&p, p.peak_bytes / 2, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.device_accesses, 81920);
	em_replay_close(&p);
}

/*
 * PyTorch's forward pass: 10 launches, 258364 records; its weights come in
 * by memcpy (written before any launch reads them), so a read of a line
 * no copy and no earlier launch wrote is an input (256 lines of its
 * 121183280-byte peak); every input line is touched, and scaling to 2x
 * keeps the peak at twice, to the line.
 */
static void test_torch_layout(void)
{
	struct em_replay_plan p;
	char path[512], err[320];
	uint64_t in1 = 0, t1 = 0, t2 = 0;
	size_t i;

	trace_path(path, sizeof(path), "torch-accesses.trace");
	CU_ASSERT_EQUAL_FATAL(em_replay_open(&p, path, NULL, true, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(trace_launch_count(p.reader), 10);
	CU_ASSERT_EQUAL(p.records, 258364);
	CU_ASSERT_EQUAL(p.dropped, 0);
	CU_ASSERT_EQUAL(p.outside, 0);
	CU_ASSERT_EQUAL_FATAL(em_replay_layout(&p, p.peak_bytes, err, sizeof(err)), 0);
	for (i = 0; i < p.nallocs; i++) {
		const struct em_replay_alloc *a = &p.allocs[i];
		uint64_t l;

		for (l = 0; l < a->lines; l++)
			CU_ASSERT(!em_replay_bit(a->input, l) || em_replay_bit(a->touched, l));
		in1 += count_bits(a->input, a->lines);
		t1 += count_bits(a->touched, a->lines);
	}
	CU_ASSERT_EQUAL(p.peak_bytes, 121183280);
	/* its kernels touch none of its cudaMalloc'd or pinned buffers */
	CU_ASSERT_EQUAL(p.device_accesses, 0);
	CU_ASSERT_EQUAL(p.host_accesses, 0);
	CU_ASSERT_EQUAL(in1, 256);
	CU_ASSERT_EQUAL(t1, 167996);
	CU_ASSERT_EQUAL_FATAL(em_replay_layout(&p, 2 * p.peak_bytes, err, sizeof(err)), 0);
	CU_ASSERT(p.scale > 1.999 && p.scale < 2.001);
	CU_ASSERT(p.replay_peak_bytes >= 2 * p.peak_bytes &&
		  p.replay_peak_bytes <= 2 * p.peak_bytes + 128 * p.nallocs);
	for (i = 0; i < p.nallocs; i++)
		t2 += count_bits(p.allocs[i].touched, p.allocs[i].lines);
	/* accessed lines spread apart (as many), copied ranges double */
	CU_ASSERT(t2 >= t1 && t2 <= 2 * t1 + p.nallocs);
	em_replay_close(&p);
}

static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	CU_ASSERT_FATAL(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t size)
{
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(buf, 1, size, f), size);
	fclose(f);
}

/* Opens path; the refusal's message must contain `want`. */
static void expect_refused(const char *path, const char *want)
{
	struct em_replay_plan p;
	char err[320] = "";

	CU_ASSERT_EQUAL(em_replay_open(&p, path, NULL, true, err, sizeof(err)), -1);
	if (!strstr(err, want) || strncmp(err, path, strlen(path)))
		fprintf(stderr, "\n  got '%s', want '%s: ...%s...'\n", err, path, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	CU_ASSERT_EQUAL(strncmp(err, path, strlen(path)), 0);
	em_replay_close(&p);
}

static void test_bad_traces(void)
{
	char src[512], path[512];
	size_t size;
	char *buf;
	uint32_t crc;

	trace_path(src, sizeof(src), "torch-accesses.trace");
	buf = slurp(src, &size);
	/* truncated at 1000 bytes */
	snprintf(path, sizeof(path), "%s/truncated.trace", work_dir);
	spit(path, buf, 1000);
	expect_refused(path, ": offset 1000: truncated: the header says 187542 bytes");
	/* major version 2, the header's CRC made right again */
	buf[8] = 2;
	crc = trace_crc32(0, buf, 60);
	memcpy(buf + 60, &crc, 4);
	snprintf(path, sizeof(path), "%s/version2.trace", work_dir);
	spit(path, buf, size);
	expect_refused(path, ": offset 8: wrong version 2.0");
	free(buf);
}

/* A trace whose one launch reads a line past its one allocation. */
static void test_outside(void)
{
	static const uint64_t recs[2] = { 0x7f0000000000ull | TRACE_ACCESS_READ,
					  0x7f0000100000ull | TRACE_ACCESS_READ };
	struct trace_warp_records w = { .warp_id = 0, .record_count = 2, .records = recs };
	struct trace_event e = { .kind = TRACE_EVENT_ALLOC, .arg32 = TRACE_MEMORY_MANAGED,
				 .address = 0x7f0000000000ull, .size = 4096 };
	struct trace_launch l = { .grid = { 1, 1, 1 }, .block = { 32, 1, 1 },
				  .warps_per_block = 1 };
	struct trace_writer *tw;
	struct trace_error terr;
	char path[512];
	uint32_t li;

	snprintf(path, sizeof(path), "%s/outside.trace", work_dir);
	CU_ASSERT_EQUAL_FATAL(trace_writer_open(path, &tw, &terr), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_event(tw, &e), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_launch(tw, &l, "k", 1, &li), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(tw, li, &w, 1), 0);
	l.launch_index = li;
	l.access_count = 2;
	l.gpu_time_ns = 1000;
	CU_ASSERT_EQUAL_FATAL(trace_writer_update_launch(tw, &l), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(tw, &terr), 0);
	expect_refused(path, "warp 0 record 1: line 0x7f0000100000 is outside every "
		       "allocation live at launch 0");
	/* the guest's open leaves the streams unchecked; its layout refuses the line */
	{
		struct em_replay_plan p;
		char err[320] = "";

		CU_ASSERT_EQUAL_FATAL(em_replay_open(&p, path, NULL, false, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(em_replay_layout(&p, 8192, err, sizeof(err)), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "outside.trace: launch 0 warp 0 record 1: "
					      "line 0x7f0000100000 outside every allocation"));
		em_replay_close(&p);
	}
}

/* One launch of kernel "k" on grid x 1 x 1 of 32 threads: a timing trace
 * (no accesses) or an accesses one (one record). */
static void write_one_launch(const char *path, uint32_t grid, bool accesses)
{
	static const uint64_t rec = 0x7f0000000000ull | TRACE_ACCESS_READ;
	struct trace_warp_records w = { .warp_id = 0, .record_count = 1, .records = &rec };
	struct trace_event e = { .kind = TRACE_EVENT_ALLOC, .arg32 = TRACE_MEMORY_MANAGED,
				 .address = 0x7f0000000000ull, .size = 4096 };
	struct trace_launch l = { .grid = { grid, 1, 1 }, .block = { 32, 1, 1 },
				  .warps_per_block = 1,
				  .flags = accesses ? 0 : TRACE_LAUNCH_NO_ACCESSES };
	struct trace_writer *tw;
	struct trace_error terr;
	uint32_t li;

	CU_ASSERT_EQUAL_FATAL(trace_writer_open(path, &tw, &terr), 0);
	if (!accesses)
		trace_writer_set_flags(tw, TRACE_FLAG_NO_ACCESSES);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_event(tw, &e), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_add_launch(tw, &l, "k", 1, &li), 0);
	if (accesses)
		CU_ASSERT_EQUAL_FATAL(trace_writer_add_accesses(tw, li, &w, 1), 0);
	l.launch_index = li;
	l.access_count = accesses;
	l.gpu_time_ns = 1000;
	CU_ASSERT_EQUAL_FATAL(trace_writer_update_launch(tw, &l), 0);
	CU_ASSERT_EQUAL_FATAL(trace_writer_close(tw, &terr), 0);
}

/* A timing trace whose launch has the same kernel on another grid. */
static void test_timing_grid_mismatch(void)
{
	struct em_replay_plan p;
	char path[512], tpath[512], want[1200], err[320] = "";

	snprintf(path, sizeof(path), "%s/one.trace", work_dir);
	snprintf(tpath, sizeof(tpath), "%s/one-timing.trace", work_dir);
	write_one_launch(path, 1, true);
	write_one_launch(tpath, 2, false);
	CU_ASSERT_EQUAL(em_replay_open(&p, path, tpath, true, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: launch 0 (k) has grid 2x1x1 of 32x1x1, %s's grid "
		 "1x1x1 of 32x1x1", tpath, path);
	CU_ASSERT_STRING_EQUAL(err, want);
	em_replay_close(&p);
	write_one_launch(tpath, 1, false);
	CU_ASSERT_EQUAL(em_replay_open(&p, path, tpath, true, err, sizeof(err)), 0);
	em_replay_close(&p);
}

/* A timing trace must be the same program's: the selftest's is not torch's. */
static void test_timing_mismatch(void)
{
	struct em_replay_plan p;
	char path[512], tpath[512], err[320] = "";

	trace_path(path, sizeof(path), "torch-accesses.trace");
	trace_path(tpath, sizeof(tpath), "selftest-timing.trace");
	CU_ASSERT_EQUAL(em_replay_open(&p, path, tpath, true, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, ": 2 launches, "));
	em_replay_close(&p);
	trace_path(tpath, sizeof(tpath), "torch-timing.trace");
	CU_ASSERT_EQUAL(em_replay_open(&p, path, tpath, true, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.times_instrumented, 0);
	em_replay_close(&p);
}

/*
 * capture's trace-synth (make replay-bench's traces): 10000 records in 3
 * launches over 512 lines (the Makefile writes it), every record a
 * read-modify-write of line r mod 512; and the guest memory its replay
 * takes (em_replay_memory()).
 */
static void test_synth(void)
{
	struct em_replay_plan p;
	struct em_replay_memory m;
	char path[512], err[320];

	snprintf(path, sizeof(path), "%s/synth.trace", work_dir);
	CU_ASSERT_EQUAL_FATAL(em_replay_open(&p, path, NULL, true, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.nallocs, 1);
	CU_ASSERT_EQUAL(p.peak_bytes, 65536);
	CU_ASSERT_EQUAL(trace_launch_count(p.reader), 3);
	CU_ASSERT_EQUAL(p.records, 10000);
	CU_ASSERT_EQUAL(p.max_records, 3334);
	CU_ASSERT_EQUAL(p.max_warps, 105);	/* 3334 / 32, rounded up */
	CU_ASSERT_EQUAL(p.max_warp_records, 32);
	CU_ASSERT_EQUAL(p.card_ns, 0);
	CU_ASSERT_EQUAL_FATAL(em_replay_layout(&p, p.peak_bytes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.allocs[0].lines, 512);
	/* the first launch reads every line before any launch wrote it */
	CU_ASSERT_EQUAL(count_bits(p.allocs[0].input, 512), 512);
	CU_ASSERT_EQUAL(count_bits(p.allocs[0].touched, 512), 512);
	em_replay_memory(&p, 65536, &m);
	CU_ASSERT_EQUAL(m.file, p.file_size);
	CU_ASSERT_EQUAL(m.footprint, 65536 + 128);
	/* 513 lines: 4 bits each (and a byte's rounding per allocation), 8 bytes of sum */
	CU_ASSERT_EQUAL(m.maps, 4 * (65 + 1) + 8 * 513);
	/* table 105 x 16 and records 3334 x 4, whole pages; reader: 105 x 8,
	 * its chunk, one warp's 32 records */
	CU_ASSERT_EQUAL(m.launch, 4096 + 16384 + 840 + (1 << 20) + 256);
	CU_ASSERT_EQUAL(m.total, m.file + m.footprint + m.maps + m.launch);
	em_replay_close(&p);
}

/*
 * The compute per access (args[6]): the card's time less the card's launch
 * overhead (the device charges its own launch), as card cycles over the
 * records, times the warps that share them, in 1/256 instructions. 505 ns
 * of kernel are 1000 card cycles: over 100 records on 4 warps, 40
 * instructions an access. A launch no longer than the overhead computes
 * nothing; no records, nothing; the most is 2^32.
 */
static void test_compute_units(void)
{
	const uint64_t launch = EM_REPLAY_CARD_LAUNCH_NS;

	CU_ASSERT_EQUAL(em_replay_compute_units(launch + 505, 4, 100), 40 * 256);
	CU_ASSERT_EQUAL(em_replay_compute_units(launch + 505, 1, 100), 10 * 256);
	CU_ASSERT_EQUAL(em_replay_compute_units(launch + 5050, 4, 100), 400 * 256);
	CU_ASSERT_EQUAL(em_replay_compute_units(launch, 4, 100), 0);
	CU_ASSERT_EQUAL(em_replay_compute_units(launch / 2, 4, 100), 0);
	CU_ASSERT_EQUAL(em_replay_compute_units(0, 4, 100), 0);
	CU_ASSERT_EQUAL(em_replay_compute_units(launch + 505, 4, 0), 0);
	CU_ASSERT_EQUAL(em_replay_compute_units(1ull << 40, 528, 1), 1ull << 32);
}

int main(int argc, char **argv)
{
	CU_pSuite s;
	unsigned int failed;

	if (argc != 3) {
		fprintf(stderr, "usage: %s TRACES_DIR WORKDIR\n", argv[0]);
		return 2;
	}
	traces_dir = argv[1];
	work_dir = argv[2];
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("trace replay plan", NULL, NULL);
	CU_add_test(s, "selftest: lines written before read, scaled by half", test_selftest_layout);
	CU_add_test(s, "torch: inputs, touched lines, scaled 2x", test_torch_layout);
	CU_add_test(s, "cupy: accesses to device memory, at two scales", test_cupy_device_accesses);
	CU_add_test(s, "timing trace of the same kernels on other grids", test_timing_grid_mismatch);
	CU_add_test(s, "truncated and wrong-version traces refused", test_bad_traces);
	CU_add_test(s, "a line outside every allocation refused", test_outside);
	CU_add_test(s, "timing trace of another program refused", test_timing_mismatch);
	CU_add_test(s, "trace-synth: records, inputs, guest memory", test_synth);
	CU_add_test(s, "compute per access: the card's time less its launch", test_compute_units);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
