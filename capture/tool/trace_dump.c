// SPDX-License-Identifier: MIT
/*
 * trace-dump: checks a trace and prints it, for people and for scripts.
 *   trace-dump FILE            header, meta, events, launches (one line each)
 *   trace-dump --accesses FILE the same and every warp's lines
 *   trace-dump --summary FILE  counts only
 * Exit 0 if the whole trace (every launch's accesses too) is valid, 1 with
 * the reader's message (file and offset) if not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

int main(int argc, char **argv)
{
	int accesses = 0, summary = 0, argi = 1;
	struct trace_reader *r;
	struct trace_error error;
	const struct trace_info *info;
	uint64_t total_records = 0, total_dropped = 0, total_outside = 0;
	uint64_t total_gpu_ns = 0;

	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "--accesses"))
			accesses = 1;
		else if (!strcmp(argv[argi], "--summary"))
			summary = 1;
		else
			break;
	}
	if (argi != argc - 1) {
		fprintf(stderr, "usage: trace-dump [--accesses|--summary] FILE\n");
		return 2;
	}
	if (trace_open(argv[argi], NULL, &r, &error)) {
		fprintf(stderr, "trace-dump: %s\n", error.message);
		return 1;
	}
	info = trace_get_info(r);
	printf("trace %s: version %u.%u flags %#x sections %u bytes %" PRIu64 "\n",
	       argv[argi], info->version_major, info->version_minor, info->flags,
	       info->section_count, info->file_size);
	if (!summary)
		printf("%s", trace_get_meta(r, NULL));
	for (size_t i = 0; i < trace_event_count(r) && !summary; i++) {
		const struct trace_event *e = trace_get_event(r, i);

		printf("event %zu %s t=%" PRIu64 " addr=%#" PRIx64 " size=%" PRIu64
		       " arg32=%u arg64=%#" PRIx64 "\n", i,
		       trace_event_kind_name(e->kind), e->host_time_ns, e->address,
		       e->size, e->arg32, e->arg64);
	}
	for (size_t i = 0; i < trace_launch_count(r); i++) {
		const struct trace_launch *l = trace_get_launch(r, i);
		struct trace_warps *w;

		if (!summary)
			printf("launch %zu %s grid=%ux%ux%u block=%ux%ux%u gpu_ns=%" PRIu64
			       " records=%" PRIu64 " dropped=%" PRIu64 " outside=%" PRIu64 "\n",
			       i, trace_get_launch_name(r, i), l->grid[0], l->grid[1],
			       l->grid[2], l->block[0], l->block[1], l->block[2],
			       l->gpu_time_ns, l->access_count, l->dropped_count,
			       l->outside_count);
		total_records += l->access_count;
		total_dropped += l->dropped_count;
		total_outside += l->outside_count;
		total_gpu_ns += l->gpu_time_ns;
		if (trace_warps_open(r, i, &w, &error)) {
			fprintf(stderr, "trace-dump: %s\n", error.message);
			trace_close(r);
			return 1;
		}
		for (size_t k = 0; k < trace_warps_count(w) && accesses; k++) {
			const uint64_t *records;
			uint32_t warp_id, count;

			trace_warps_get(w, k, &warp_id, &records, &count);
			printf("  warp %u:", warp_id);
			for (uint32_t j = 0; j < count; j++)
				printf(" %#" PRIx64 "%s%s", trace_access_line(records[j]),
				       records[j] & TRACE_ACCESS_READ ? "r" : "",
				       records[j] & TRACE_ACCESS_WRITE ? "w" : "");
			printf("\n");
		}
		trace_warps_close(w);
	}
	printf("events %zu launches %zu records %" PRIu64 " dropped %" PRIu64
	       " outside %" PRIu64 " gpu_ns %" PRIu64 "\n", trace_event_count(r),
	       trace_launch_count(r), total_records, total_dropped, total_outside,
	       total_gpu_ns);
	trace_close(r);
	return 0;
}
