// SPDX-License-Identifier: MIT
/*
 * trace-compare: whether two traces say the same, and how fast each one's
 * accesses decode. The same: META, flags, events, launches and kernel
 * names field for field, and every launch's warps and records word for
 * word, read both ways (streamed a warp at a time, as the guest's replay
 * reads them, and whole and checked, as the host's check does), whatever
 * each file's compression. Then ROUNDS rounds (default 3) of each way over
 * each file, A then B: the median CPU time of each (this process's, so a
 * busy machine slows both alike), in records per CPU second, and B's over
 * A's, measured in the same run. Freed memory stays with the process
 * (glibc's mallopt), so that every round after the first reuses it: the
 * rounds time decoding, not the kernel's page faults, whose cost varies
 * with the allocator's state more than with the file.
 *   trace-compare A B [ROUNDS]
 * Exit 0 if the same, 1 with the first difference or the reader's message.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "trace.h"

#define MAX_ROUNDS 15

static int differ(const char *what, size_t index)
{
	printf("trace-compare: they differ: %s %zu\n", what, index);
	return 1;
}

static int launch_records(struct trace_reader *a, struct trace_reader *b, size_t l,
			  uint64_t *warps, uint64_t *records, struct trace_error *error)
{
	struct trace_records *sa = NULL, *sb = NULL;
	struct trace_warps *wa = NULL, *wb = NULL;
	const uint64_t *xa, *xb;
	uint32_t ida, idb, na, nb;
	int rca, rcb, rc = -1;

	if (trace_records_open(a, l, &sa, error) || trace_records_open(b, l, &sb, error))
		goto out;
	do {
		if ((rca = trace_records_next(sa, &ida, &xa, &na, error)) < 0 ||
		    (rcb = trace_records_next(sb, &idb, &xb, &nb, error)) < 0)
			goto out;
		if (rca != rcb || (!rca && (ida != idb || na != nb ||
					    memcmp(xa, xb, (size_t)na * sizeof(*xa))))) {
			rc = differ("streamed records of launch", l);
			goto out;
		}
		*warps += !rca;
		*records += rca ? 0 : na;
	} while (!rca);
	if (trace_warps_open(a, l, &wa, error) || trace_warps_open(b, l, &wb, error))
		goto out;
	if (trace_warps_count(wa) != trace_warps_count(wb)) {
		rc = differ("warps (checked) of launch", l);
		goto out;
	}
	for (size_t k = 0; k < trace_warps_count(wa); k++) {
		trace_warps_get(wa, k, &ida, &xa, &na);
		trace_warps_get(wb, k, &idb, &xb, &nb);
		if (ida != idb || na != nb || memcmp(xa, xb, (size_t)na * sizeof(*xa))) {
			rc = differ("records (checked) of launch", l);
			goto out;
		}
	}
	rc = 0;
out:
	trace_records_close(sa);
	trace_records_close(sb);
	trace_warps_close(wa);
	trace_warps_close(wb);
	return rc;
}

/* Everything but the accesses, then the accesses: 0 the same, 1 not,
 * -1 a refusal (in *error). */
static int compare(struct trace_reader *a, struct trace_reader *b,
		   uint64_t *warps, uint64_t *records, struct trace_error *error)
{
	size_t la, lb;
	const char *ma = trace_get_meta(a, &la), *mb = trace_get_meta(b, &lb);

	if (la != lb || memcmp(ma, mb, la))
		return differ("META of length", la);
	if (trace_get_info(a)->flags != trace_get_info(b)->flags)
		return differ("header flags", trace_get_info(a)->flags);
	if (trace_event_count(a) != trace_event_count(b))
		return differ("event count", trace_event_count(a));
	for (size_t i = 0; i < trace_event_count(a); i++)
		if (memcmp(trace_get_event(a, i), trace_get_event(b, i),
			   sizeof(struct trace_event)))
			return differ("event", i);
	if (trace_launch_count(a) != trace_launch_count(b))
		return differ("launch count", trace_launch_count(a));
	for (size_t l = 0; l < trace_launch_count(a); l++) {
		int rc;

		if (memcmp(trace_get_launch(a, l), trace_get_launch(b, l),
			   sizeof(struct trace_launch)) ||
		    strcmp(trace_get_launch_name(a, l), trace_get_launch_name(b, l)))
			return differ("launch", l);
		if ((rc = launch_records(a, b, l, warps, records, error)))
			return rc;
	}
	return 0;
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Every launch's records read one way: the CPU seconds it took. */
static int decode_all(struct trace_reader *r, int whole, double *seconds,
		      struct trace_error *error)
{
	volatile uint64_t sink = 0;
	double start = cpu_seconds();

	for (size_t l = 0; l < trace_launch_count(r); l++) {
		const uint64_t *x;
		uint32_t id, n;

		if (whole) {
			struct trace_warps *w;

			if (trace_warps_open(r, l, &w, error))
				return -1;
			for (size_t k = 0; k < trace_warps_count(w); k++) {
				trace_warps_get(w, k, &id, &x, &n);
				sink += n ? x[n - 1] : 0;
			}
			trace_warps_close(w);
		} else {
			struct trace_records *s;
			int rc;

			if (trace_records_open(r, l, &s, error))
				return -1;
			while (!(rc = trace_records_next(s, &id, &x, &n, error)))
				sink += n ? x[n - 1] : 0;
			trace_records_close(s);
			if (rc < 0)
				return -1;
		}
	}
	*seconds = cpu_seconds() - start;
	(void)sink;
	return 0;
}

static int compare_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
	struct trace_reader *r[2] = { NULL, NULL };
	struct trace_error error = { 0 };
	static const char *const way[2] = { "streamed", "whole, checked" };
	double times[2][2][MAX_ROUNDS], median[2][2];
	uint64_t warps = 0, records = 0;
	int rounds = argc == 4 ? atoi(argv[3]) : 3, rc = 1;

	if ((argc != 3 && argc != 4) || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: trace-compare A B [ROUNDS (1 to %d)]\n", MAX_ROUNDS);
		return 2;
	}
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, INT32_MAX);
	mallopt(M_TRIM_THRESHOLD, INT32_MAX);
#endif
	/* the consumers' limits: a trace they would refuse is refused here */
	for (int f = 0; f < 2; f++)
		if (trace_open(argv[1 + f], NULL, &r[f], &error))
			goto fail;
	switch (compare(r[0], r[1], &warps, &records, &error)) {
	case 0:
		break;
	case 1:
		goto out;
	default:
		goto fail;
	}
	printf("trace-compare: the same: %zu events, %zu launches, %" PRIu64 " warps, %"
	       PRIu64 " records\n", trace_event_count(r[0]), trace_launch_count(r[0]),
	       warps, records);
	for (int k = 0; k < rounds; k++)
		for (int w = 0; w < 2; w++)
			for (int f = 0; f < 2; f++)
				if (decode_all(r[f], w, &times[f][w][k], &error))
					goto fail;
	for (int f = 0; f < 2; f++) {
		const struct trace_info *info = trace_get_info(r[f]);

		for (int w = 0; w < 2; w++) {
			qsort(times[f][w], (size_t)rounds, sizeof(double), compare_double);
			median[f][w] = times[f][w][rounds / 2];
		}
		printf("%s: %" PRIu64 " bytes (version %u.%u), %.3f bytes a record; "
		       "streamed %.3f s CPU (%.1f M records/s), whole %.3f s CPU (%.1f M records/s)\n",
		       argv[1 + f], info->file_size, info->version_major, info->version_minor,
		       records ? (double)info->file_size / (double)records : 0.0,
		       median[f][0], (double)records / median[f][0] * 1e-6,
		       median[f][1], (double)records / median[f][1] * 1e-6);
	}
	for (int w = 0; w < 2; w++)
		printf("B/A %s: %.2f x the speed, median of %d rounds\n", way[w],
		       median[1][w] > 0 ? median[0][w] / median[1][w] : 0.0, rounds);
	printf("B/A size: %.4f\n", (double)trace_get_info(r[1])->file_size /
				  (double)trace_get_info(r[0])->file_size);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "trace-compare: %s\n", error.message);
out:
	trace_close(r[0]);
	trace_close(r[1]);
	return rc;
}
