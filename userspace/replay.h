/* SPDX-License-Identifier: MIT */
/*
 * Trace replay (issue 30; docs/trace-replay.md): ember-run -k trace:FILE
 * replays a capture trace (docs/trace-format.md) through libember: its
 * allocations as managed memory scaled to the run's footprint, its advice,
 * prefetches, copies and memsets in order, each launch as the trace
 * kernel (EMBER_KERNEL_TRACE) over that launch's warp streams.
 *
 * Two halves: the plan (replay_plan.c: libtrace only, no device, so a bad
 * trace is refused before anything runs, and tests run it natively) and
 * the run (replay.c: libember).
 */
#ifndef EMBER_REPLAY_H
#define EMBER_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace.h"

/* The card the committed traces were captured on: an H200 SM's clock,
 * 1.98 GHz, the cycle the card's time is counted in (docs/trace-replay.md). */
#define EM_REPLAY_CARD_CYCLE_PS	505
/* Its launch overhead, in each launch's captured time (the host's clock
 * from the launch to the end of a synchronize, docs/capture.md): the
 * median launch row of experiments/card-results/h200-calibrate.jsonl, one
 * thread reading one resident word; the h200 profiles' launch_ns. */
#define EM_REPLAY_CARD_LAUNCH_NS	7000
/*
 * args[6] of a replayed launch (the trace kernel's compute per access, in
 * 1/256 warp instructions): the card's time card_ns less the card's launch
 * overhead, as card cycles, spread over the launch's `records` accesses and
 * shared by its `warps` modelled warps (docs/trace-replay.md, "Compute time
 * between accesses"), at most 2^32.
 */
uint64_t em_replay_compute_units(uint64_t card_ns, uint32_t warps,
				 uint64_t records);
/* Traces are looked for here when FILE has no '/' (the guest image's copy). */
#define EM_REPLAY_TRACE_DIR	"/traces"
#define EM_REPLAY_MAX_ALLOCS	65536

/* One of the trace's allocations and its replay. */
struct em_replay_alloc {
	uint64_t card_base, card_size;	/* on the card */
	uint32_t kind;			/* enum trace_memory_kind */
	uint64_t size;			/* replay bytes: scaled, whole lines */
	uint64_t lines;			/* size / 128 */
	uint8_t *input;			/* bit per line: read before any write */
	uint8_t *touched;		/* bit per line: holds the pattern at the end */
	uint8_t *written;		/* plan scratch: written by earlier launches */
	uint8_t *written_now;		/* plan scratch: by the launch laid out */
	bool launch_wrote;		/* plan scratch: written_now has a bit set */
	void *p;			/* the run's allocation (NULL: not live) */
	uint64_t *sums;			/* run: each line's pattern sum once read (0: not yet) */
};

struct em_replay_plan {
	char path[256];
	const char *name;		/* path's last component */
	struct trace_reader *reader;
	struct trace_reader *timing;	/* -T: card times without the patch, or NULL */
	uint32_t file_crc;		/* CRC-32 of the whole file */
	uint64_t file_size;
	size_t nallocs;
	struct em_replay_alloc *allocs;
	uint32_t *alloc_of_event;	/* event index -> its allocation (ALLOC/FREE) */
	uint64_t peak_bytes;		/* the trace's largest live footprint */
	double scale;			/* replay bytes / card bytes */
	uint64_t replay_peak_bytes;
	uint64_t records, dropped, outside;	/* over every launch */
	/* the records' accesses (an atomic's are two) on device and on pinned
	 * host allocations (em_replay_layout) */
	uint64_t device_accesses, host_accesses;
	uint64_t card_ns;		/* sum of the times used */
	uint64_t max_warps, max_records;	/* of one launch */
	uint64_t max_warp_records;	/* of one warp (checked streams only) */
	int times_instrumented;		/* card times include the patch */
};

/*
 * Opens and validates `path` (a name without '/' is looked for in
 * EM_REPLAY_TRACE_DIR) and, with timing_path, a timing-only trace of the
 * same program whose launches must match (kernel, grid and block); with
 * check_streams, every launch's streams are read and checked (ember-agent
 * on the host: the one check of them; the guest reads them unchecked). 0,
 * or -1 with the reader's "FILE: offset N: what" (or the replayer's own,
 * same form) in err.
 */
int em_replay_open(struct em_replay_plan *p, const char *path,
		   const char *timing_path, bool check_streams, char *err, size_t errlen);
/*
 * Scales the trace to footprint target_bytes (factor x VRAM) and works out
 * which lines are inputs (read before any write: the CPU fills them) and
 * which hold the pattern at the end, and the largest launch's warps; one
 * pass over the streams, read unchecked, each record's allocation looked
 * up (a line outside every live one is refused here). 0 or -1 with err.
 */
int em_replay_layout(struct em_replay_plan *p, uint64_t target_bytes,
		     char *err, size_t errlen);
void em_replay_close(struct em_replay_plan *p);

/*
 * What a replay at footprint bytes takes of the guest's memory, besides
 * the guest's kernel and image (ember-agent refuses a matrix past its
 * memory, before any VM boots). From a plan whose streams were checked
 * (max_warps is known then).
 */
struct em_replay_memory {
	uint64_t file;		/* the trace (and -T's) in the image: the guest's RAM */
	uint64_t footprint;	/* the replay's allocations, each whole lines: at most
				 * all in the guest's RAM (evicted, or not yet migrated) */
	uint64_t launch;	/* the largest launch: the device's records and warp
				 * table, the reader's warp table and one warp's records */
	uint64_t maps;		/* the plan's four bits per replayed line, the
				 * run's sum of each line read (8 bytes) */
	uint64_t total;
};
void em_replay_memory(const struct em_replay_plan *p, uint64_t footprint,
		      struct em_replay_memory *m);

/* The allocation that line `card_line` (128-aligned) overlaps among the
 * live ones (sorted by base), or -1. */
long em_replay_find(const struct em_replay_plan *p, const uint32_t *live,
		    size_t nlive, uint64_t card_addr, uint64_t len);
/* The same for a line, trying first `hint` (the previous record's
 * allocation, live at the same launch, or -1): records run in long
 * sequences through one allocation. */
long em_replay_find_line(const struct em_replay_plan *p, const uint32_t *live,
			 size_t nlive, uint64_t card_line, long hint);
/* Its offset in the replay: scaled, whole lines, inside the allocation. */
uint64_t em_replay_offset(const struct em_replay_plan *p,
			  const struct em_replay_alloc *a, uint64_t card_addr);
/* Adds allocation i to / removes it from the live list (sorted by base). */
void em_replay_live_add(const struct em_replay_plan *p, uint32_t *live,
			size_t *nlive, uint32_t i);
void em_replay_live_remove(uint32_t *live, size_t *nlive, uint32_t i);

/* What a run replayed, beside struct em_wl_result. */
struct em_replay_result {
	char trace[64];			/* the file's name */
	uint32_t trace_crc;		/* CRC-32 of the file */
	int times_instrumented;
	double scale;
	uint64_t trace_peak_bytes, replay_peak_bytes;
	uint64_t launches, launches_replayed, launches_ok;
	uint64_t records, dropped, outside;
	uint64_t device_accesses, host_accesses;	/* the plan's */
	uint64_t card_ns;		/* the card's time of the launches replayed */
	uint64_t advice_skipped;	/* read-mostly: libember has none */
	uint64_t cpu_copies;		/* memcpy/memset events done by the CPU */
	char error[320];		/* a refused trace: the reader's message */
};

struct em_wl_config;
struct em_wl_result;
/* The run (replay.c): cfg->kernel is "trace:FILE". Returns res->ret. */
int em_replay_run(const struct em_wl_config *cfg, struct em_wl_result *res,
		  const char *timing_path, struct em_replay_result *rr);
/* Its extra JSON fields (leading comma), after em_wl_json. */
void em_replay_json(FILE *f, const struct em_replay_result *rr);

static inline int em_replay_bit(const uint8_t *map, uint64_t i)
{
	return map[i >> 3] >> (i & 7) & 1;
}

static inline void em_replay_set(uint8_t *map, uint64_t i)
{
	map[i >> 3] |= (uint8_t)(1u << (i & 7));
}

#endif
