// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the trace replay's plan (userspace/replay_plan.c
 * over capture/libtrace): ember-run -k trace:FILE hands it whatever file it
 * is given, so any bytes must be either refused with a message or planned
 * (opened, every launch's streams read, scaled and laid out), never a
 * crash, a leak, an out-of-bounds access (ASan) or undefined behaviour
 * (UBSan). A plan that is made must be consistent: every allocation's
 * replay size whole lines, at least one, and the scaled peak at least
 * the target's.
 *
 * Input: a trace file. It is planned as given and with its checksums
 * recomputed (capture/fuzz/trace_fix_checksums.h), so that mutations reach
 * the checks behind the CRCs; each both ways: its streams checked at the
 * open (ember-agent, on the host) and read unchecked (ember-run in the
 * guest, where the layout's own lookups are all that stands between a
 * record and the replay's allocations). The planner opens a path,
 * so the bytes go to a memory file named by /proc/self/fd.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay.h"
#include "trace_fix_checksums.h"

/* A footprint as ember-run asks for (factor x VRAM), small enough that the
 * planner's per-line maps stay small. */
#define TARGET_BYTES	(64ull << 20)
/*
 * The work one input may ask for: the planner reads every record, so its
 * time grows with them, as it should, and a few kilobytes of delta-coded
 * or shared sections hold hundreds of millions (the committed paper
 * traces among the seeds). A trace whose sections decode past this is left
 * alone, as a reader with this total limit would refuse it (EFBIG).
 */
#define MAX_DECODED_BYTES (16ull << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether the input is within MAX_DECODED_BYTES (or refused for another
 * reason, which the planner must then give too). */
static bool within_budget(const uint8_t *data, size_t size)
{
	struct trace_reader_limits limits;
	struct trace_reader *r;
	struct trace_error error;

	trace_reader_default_limits(&limits);
	limits.max_total_raw_bytes = MAX_DECODED_BYTES;
	if (!trace_open_memory(data, size, "budget", &limits, &r, &error)) {
		trace_close(r);
		return true;
	}
	return error.errnum != EFBIG;
}

static void plan(int fd, const char *path, const uint8_t *data, size_t size,
		 bool check_streams)
{
	struct em_replay_plan p;
	char err[320];
	size_t i;

	if (!within_budget(data, size))
		return;
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	err[0] = 0;
	if (em_replay_open(&p, path, NULL, check_streams, err, sizeof(err))) {
		/* refused with a message, and nothing left open */
		if (!err[0] || !memchr(err, 0, sizeof(err)))
			abort();
		em_replay_close(&p);
		return;
	}
	if (em_replay_layout(&p, TARGET_BYTES, err, sizeof(err))) {
		if (!err[0])
			abort();
	} else {
		for (i = 0; i < p.nallocs; i++)
			if (!p.allocs[i].size || p.allocs[i].size % 128 ||
			    p.allocs[i].lines != p.allocs[i].size / 128)
				abort();
		if (p.replay_peak_bytes < TARGET_BYTES / 2)
			abort();
	}
	em_replay_close(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	uint8_t *fixed;

	if (fd < 0) {
		fd = memfd_create("fuzz-replay-plan", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	plan(fd, path, data, size, true);
	plan(fd, path, data, size, false);
	fixed = malloc(size ? size : 1);
	if (!fixed)
		abort();
	memcpy(fixed, data, size);
	trace_fix_checksums(fixed, size);
	plan(fd, path, fixed, size, true);
	plan(fd, path, fixed, size, false);
	free(fixed);
	return 0;
}
