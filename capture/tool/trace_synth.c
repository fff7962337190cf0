// SPDX-License-Identifier: MIT
/*
 * trace-synth: writes a synthetic accesses trace of RECORDS records, for
 * measuring the replay at scale (make replay-bench; docs/trace-replay.md,
 * "Replay throughput"). Never committed: the command makes it again.
 *
 * One managed allocation of BYTES (default 64 MiB) swept as the built-in
 * stream kernel sweeps its buffer: record r is a read-modify-write (read
 * and write: an atomic) of line r mod (BYTES / 128), so RECORDS records
 * are RECORDS / lines passes of stream over the same lines, in the same
 * order. LAUNCHES launches (default: one per 2^20 records) of captured
 * warps of 32 records each (a warp's 32 consecutive lines), one block of
 * one warp each; each launch then a sync; the allocation freed at the
 * end. Launch times are 0: no compute between accesses, the model's
 * memory time alone.
 *
 * usage: trace-synth OUT.trace RECORDS [LAUNCHES [BYTES]]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define BASE		0x7f0000000000ull
#define WARP_RECORDS	32u

static int fail(struct trace_writer *w, const char *what)
{
	fprintf(stderr, "trace-synth: %s: %s\n", what, trace_writer_last_error(w));
	trace_writer_abandon(w);
	return 1;
}

static uint64_t number(const char *s, const char *what)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !v) {
		fprintf(stderr, "trace-synth: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	uint64_t records, launches, bytes = 64ull << 20, lines, per, r = 0, l;
	struct trace_warp_records *warps = NULL;
	uint64_t *recs = NULL;
	struct trace_writer *w;
	struct trace_error err;
	struct trace_event e;
	char value[32];

	if (argc < 3 || argc > 5) {
		fputs("usage: trace-synth OUT.trace RECORDS [LAUNCHES [BYTES]]\n", stderr);
		return 2;
	}
	records = number(argv[2], "record count");
	launches = argc > 3 ? number(argv[3], "launch count") : (records + (1 << 20) - 1) >> 20;
	if (argc > 4)
		bytes = number(argv[4], "allocation size");
	lines = bytes / TRACE_LINE_SIZE;
	per = (records + launches - 1) / launches;
	if (!lines || per > UINT32_MAX / 2 || launches > records) {
		fprintf(stderr, "trace-synth: %" PRIu64 " records in %" PRIu64 " launches over %"
			PRIu64 " bytes: no launch of whole lines\n", records, launches, bytes);
		return 2;
	}
	recs = malloc(per * sizeof(*recs));
	warps = calloc((per + WARP_RECORDS - 1) / WARP_RECORDS, sizeof(*warps));
	if (!recs || !warps || trace_writer_open(argv[1], &w, &err)) {
		fprintf(stderr, "trace-synth: %s\n", recs && warps ? err.message : strerror(ENOMEM));
		return 1;
	}
	trace_writer_set_meta(w, "program", "trace-synth");
	snprintf(value, sizeof(value), "%" PRIu64, records);
	trace_writer_set_meta(w, "records", value);
	memset(&e, 0, sizeof(e));
	e.kind = TRACE_EVENT_ALLOC;
	e.arg32 = TRACE_MEMORY_MANAGED;
	e.address = BASE;
	e.size = lines * TRACE_LINE_SIZE;
	if (trace_writer_add_event(w, &e))
		return fail(w, "alloc");
	for (l = 0; l < launches && r < records; l++) {
		uint64_t n = records - r < per ? records - r : per, k, nw;
		struct trace_launch tl = { .block = { WARP_RECORDS, 1, 1 }, .warps_per_block = 1 };
		uint32_t li;

		nw = (n + WARP_RECORDS - 1) / WARP_RECORDS;
		tl.grid[0] = (uint32_t)nw;
		tl.grid[1] = tl.grid[2] = 1;
		if (trace_writer_add_launch(w, &tl, "synth_stream", l + 1, &li))
			return fail(w, "launch");
		for (k = 0; k < n; k++, r++)
			recs[k] = (BASE + r % lines * TRACE_LINE_SIZE) | TRACE_ACCESS_READ |
				  TRACE_ACCESS_WRITE;
		for (k = 0; k < nw; k++) {
			warps[k].warp_id = (uint32_t)k;
			warps[k].records = recs + k * WARP_RECORDS;
			warps[k].record_count = (uint32_t)(n - k * WARP_RECORDS < WARP_RECORDS ?
							   n - k * WARP_RECORDS : WARP_RECORDS);
		}
		if (trace_writer_add_accesses(w, li, warps, nw))
			return fail(w, "accesses");
		tl.launch_index = li;
		tl.access_count = n;
		if (trace_writer_update_launch(w, &tl))
			return fail(w, "launch record");
		memset(&e, 0, sizeof(e));
		e.kind = TRACE_EVENT_SYNC;
		e.host_time_ns = l + 1;
		if (trace_writer_add_event(w, &e))
			return fail(w, "sync");
	}
	memset(&e, 0, sizeof(e));
	e.kind = TRACE_EVENT_FREE;
	e.address = BASE;
	e.host_time_ns = l + 1;
	if (trace_writer_add_event(w, &e))
		return fail(w, "free");
	if (trace_writer_close(w, &err)) {
		fprintf(stderr, "trace-synth: %s\n", err.message);
		return 1;
	}
	free(recs);
	free(warps);
	printf("%s: %" PRIu64 " records in %" PRIu64 " launches over %" PRIu64 " lines\n",
	       argv[1], records, l, lines);
	return 0;
}
