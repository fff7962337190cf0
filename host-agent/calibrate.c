// SPDX-License-Identifier: MIT
/* make calibrate: the card's microbenchmarks beside the testbed's (calibrate.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"

#define WITHIN	0.25	/* DESIGN.md section 7: every row within 25 % */
#define MAX_VALS 16

enum metric { RATE, TIME, REQUESTS, GRANULE };

/* What a row compares: a rate for bandwidth benches, a time for isolated ones. */
static enum metric metric_of(const char *bench)
{
	if (!strcmp(bench, "launch") || !strcmp(bench, "mapped_latency") ||
	    !strcmp(bench, "fault_latency") || !strcmp(bench, "fault_parallel"))
		return TIME;
	if (!strcmp(bench, "mapped_read_4b") || !strcmp(bench, "mapped_write_4b"))
		return REQUESTS;
	if (!strcmp(bench, "fault_granule"))
		return GRANULE;
	return RATE;
}

static const char *const unit_of[] = {
	[RATE] = "GB/s", [TIME] = "us", [REQUESTS] = "Mreq/s", [GRANULE] = "KiB",
};

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static double value(json_t *o, enum metric m)
{
	switch (m) {
	case TIME: return num(o, "seconds") * 1e6;
	case REQUESTS: return num(o, "requests_per_s") / 1e6;
	default: return num(o, "gbps");
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The card's lines (comments and non-bench lines skipped). */
static json_t *load_card(const char *path)
{
	json_t *all = json_array(), *o;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		json_decref(all);
		return NULL;
	}
	while (getline(&line, &cap, f) > 0) {
		if (line[0] != '{')
			continue;
		o = json_loads(line, 0, NULL);
		if (o && json_object_get(o, "bench"))
			json_array_append(all, o);
		json_decref(o);
	}
	free(line);
	fclose(f);
	return all;
}

/* Median of bench's metric over rows of one buffer size. */
static int median_of(json_t *rows, const char *bench, double buffer,
		     enum metric m, double *out)
{
	double v[MAX_VALS];
	size_t i, n = 0;
	json_t *o;

	json_array_foreach(rows, i, o)
		if (!strcmp(str(o, "bench"), bench) && num(o, "buffer") == buffer &&
		    n < MAX_VALS)
			v[n++] = value(o, m);
	if (!n)
		return -1;
	*out = median(v, n);
	return 0;
}

/*
 * The region one isolated fault migrated, in KiB: the first probe offset
 * that was not resident (a majority of the runs' probes decides).
 */
static int granule_of(json_t *rows, double *out)
{
	double offsets[MAX_VALS];
	size_t i, k, n = 0;
	json_t *o;

	json_array_foreach(rows, i, o) {
		if (strcmp(str(o, "bench"), "fault_granule"))
			continue;
		for (k = 0; k < n && offsets[k] != num(o, "offset"); k++)
			;
		if (k == n && n < MAX_VALS)
			offsets[n++] = num(o, "offset");
	}
	if (!n)
		return -1;
	qsort(offsets, n, sizeof(*offsets), cmp_double);
	for (k = 0; k < n; k++) {
		int yes = 0, all = 0;

		json_array_foreach(rows, i, o)
			if (!strcmp(str(o, "bench"), "fault_granule") &&
			    num(o, "offset") == offsets[k]) {
				yes += num(o, "resident") > 0;
				all++;
			}
		if (2 * yes <= all) {
			*out = offsets[k] / 1024;
			return 0;
		}
	}
	*out = 2048;	/* the whole 2 MiB block */
	return 0;
}

static void size_name(double bytes, char *buf, size_t len)
{
	if (bytes >= (1 << 30))
		snprintf(buf, len, "%g GiB", bytes / (1 << 30));
	else
		snprintf(buf, len, "%g MiB", bytes / (1 << 20));
}

int em_calibrate_print(const char *card_path, const char *model_path,
		       const char *profile, FILE *out)
{
	json_t *card = load_card(card_path), *all, *model, *o;
	unsigned int bad, rows = 0, within = 0;
	int granule_done = 0;
	size_t i;

	all = em_results_load(model_path, &bad);
	if (!card || !all) {
		json_decref(card);
		json_decref(all);
		return -1;
	}
	model = json_array();
	json_array_foreach(all, i, o)
		if (!strcmp(str(o, "scenario"), "ubench") && json_object_get(o, "bench"))
			json_array_append(model, o);

	fprintf(out, "Calibration: the H200 (%s) beside the testbed (profile %s)\n",
		card_path, profile);
	fprintf(out, "%-18s %8s %7s %10s %10s %8s\n", "bench", "buffer", "unit",
		"card", "model", "error");
	json_array_foreach(model, i, o) {
		const char *bench = str(o, "bench");
		enum metric m = metric_of(bench);
		double c, v, err;
		char buf[32];

		if (!strcmp(bench, "error")) {
			fprintf(out, "ember-ubench failed: %s (%d)\n", str(o, "call"),
				(int)num(o, "ret"));
			continue;
		}
		if (m == GRANULE) {
			if (granule_done++ || granule_of(card, &c) || granule_of(model, &v))
				continue;
			snprintf(buf, sizeof(buf), "2 MiB");
		} else {
			if (median_of(card, bench, num(o, "buffer"), m, &c))
				continue;	/* the card has no such row */
			median_of(model, bench, num(o, "buffer"), m, &v);
			size_name(num(o, "buffer"), buf, sizeof(buf));
		}
		err = c > 0 ? v / c - 1 : INFINITY;
		rows++;
		within += fabs(err) <= WITHIN;
		fprintf(out, "%-18s %8s %7s %10.2f %10.2f %+7.0f%%%s\n", bench, buf,
			unit_of[m], c, v, 100 * err, fabs(err) <= WITHIN ? "" : "  <-");
	}
	fprintf(out, "%u of %u within %.0f%%\n", within, rows, 100 * WITHIN);
	json_decref(model);
	json_decref(all);
	json_decref(card);
	return (int)(rows - within);
}

int em_calibrate_run(struct em_vm_config *cfg)
{
	struct em_vm_outcome out;
	struct em_vm vm;
	json_t *results;
	unsigned int bad;
	int rc;

	if (em_vm_start(&vm, cfg))
		return 1;
	em_vm_wait(&vm, &out);
	results = em_results_load(vm.results_path, &bad);
	rc = !results || out.timed_out || out.exit_status ||
	     !em_results_find(results, "boot", "end") ||
	     !em_results_find(results, "ubench", "bench");
	fprintf(stderr, "calibrate: VM on %s, %.1f s%s\n", cfg->profile, out.wall_s,
		rc ? ", did not finish cleanly" : "");
	if (rc)
		fprintf(stderr, "calibrate: see %s and %s\n", vm.console_path,
			vm.qemu_log_path);
	json_decref(results);
	return rc;
}
