// SPDX-License-Identifier: MIT
/*
 * trace-recompress: rewrites a trace, record for record, with every
 * section compressed at zstd LEVEL (default 19, the level the committed
 * traces are stored at; ember-capture writes at 9 to keep up with the
 * card), its ACCESSES sections delta-coded with --delta (compression 2:
 * docs/trace-format.md) and plainly (compression 1) without. What the
 * trace says is unchanged: META, flags, events in their order, launches
 * and each launch's per-warp lines; trace-dump prints the same lines for
 * both files but the first (the file's size and version).
 *   trace-recompress [-LEVEL] [--delta] IN OUT
 * Exit 0, or 1 with the reader's or the writer's message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Copies META's "key=value" lines into the writer. */
static int copy_meta(const struct trace_reader *r, struct trace_writer *w)
{
	size_t length;
	const char *meta = trace_get_meta(r, &length);
	char *copy = malloc(length + 1), *line, *save = NULL;
	int rc = 0;

	if (!copy)
		return -1;
	memcpy(copy, meta, length);
	copy[length] = 0;
	for (line = strtok_r(copy, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save)) {
		char *equals = strchr(line, '=');

		if (!equals)
			continue;
		*equals = 0;
		rc = trace_writer_set_meta(w, line, equals + 1);
	}
	free(copy);
	return rc;
}

/* One launch: its record and LAUNCH event, its accesses, its counts. */
static int copy_launch(struct trace_reader *r, struct trace_writer *w,
		       const struct trace_event *e, struct trace_error *error)
{
	size_t index = e->arg32;
	struct trace_launch launch = *trace_get_launch(r, index);
	struct trace_warp_records *records = NULL;
	struct trace_warps *warps;
	uint32_t written;
	size_t count;
	int rc = -1;

	if (trace_writer_add_launch(w, &launch, trace_get_launch_name(r, index),
				    e->host_time_ns, &written) ||
	    trace_warps_open(r, index, &warps, error))
		return -1;
	count = trace_warps_count(warps);
	if (count && !(records = calloc(count, sizeof(*records))))
		goto out;
	for (size_t k = 0; k < count; k++)
		trace_warps_get(warps, k, &records[k].warp_id, &records[k].records,
				&records[k].record_count);
	if (count && trace_writer_add_accesses(w, written, records, count))
		goto out;
	launch.launch_index = written;
	rc = trace_writer_update_launch(w, &launch);
out:
	free(records);
	trace_warps_close(warps);
	return rc;
}

int main(int argc, char **argv)
{
	int level = 19, argi = 1;
	uint32_t compression = TRACE_COMPRESSION_ZSTD;
	struct trace_reader_limits limits;
	struct trace_reader *r;
	struct trace_writer *w;
	struct trace_error error = { 0 };

	for (; argi < argc - 2 && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "--delta"))
			compression = TRACE_COMPRESSION_DELTA_ZSTD;
		else
			level = atoi(argv[argi] + 1);
	}
	if (argc - argi != 2 || level < 1 || level > 22) {
		fprintf(stderr, "usage: trace-recompress [-LEVEL] [--delta] IN OUT (LEVEL 1 to 22)\n");
		return 2;
	}
	/* A capture is a trusted file here: take it whole, whatever its size. */
	trace_reader_default_limits(&limits);
	limits.max_file_bytes = UINT64_MAX;
	limits.max_section_raw_bytes = UINT64_MAX;
	limits.max_total_raw_bytes = UINT64_MAX;
	limits.max_compression_ratio = UINT64_MAX;
	if (trace_open(argv[argi], &limits, &r, &error)) {
		fprintf(stderr, "trace-recompress: %s\n", error.message);
		return 1;
	}
	if (trace_writer_open(argv[argi + 1], &w, &error)) {
		fprintf(stderr, "trace-recompress: %s\n", error.message);
		trace_close(r);
		return 1;
	}
	trace_writer_set_level(w, level);
	if (trace_writer_set_accesses_compression(w, compression))
		goto fail;
	trace_writer_set_flags(w, trace_get_info(r)->flags);
	if (copy_meta(r, w))
		goto fail;
	for (size_t i = 0; i < trace_event_count(r); i++) {
		const struct trace_event *e = trace_get_event(r, i);

		if (e->kind == TRACE_EVENT_LAUNCH ? copy_launch(r, w, e, &error) :
						    trace_writer_add_event(w, e))
			goto fail;
	}
	trace_close(r);
	if (trace_writer_close(w, &error)) {
		fprintf(stderr, "trace-recompress: %s\n", error.message);
		return 1;
	}
	return 0;
fail:
	fprintf(stderr, "trace-recompress: %s\n",
		error.message[0] ? error.message : trace_writer_last_error(w));
	trace_writer_abandon(w);
	trace_close(r);
	return 1;
}
