// SPDX-License-Identifier: MIT
/* make calibrate: the card's microbenchmarks beside the testbed's (calibrate.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "term.h"

#define FLOOR		0.25	/* docs/architecture.md, "Requirements" */
#define MAX_VALS	64
#define MAX_SESSIONS	16
#define MiB		(1024.0 * 1024)

enum metric { RATE, TIME, REQUESTS, GRANULE };

/*
 * The rows h200x16's constants were fitted on, each with what it set (the
 * comments in models/src/profile.c say how). buffer 0: every size of the
 * bench (a constant from the median of its sizes, or a mechanism the bench
 * at any size decided). A row not here is held out: no constant was
 * fitted on it.
 */
static const struct fit {
	const char *bench;
	double buffer;
	const char *constants;
} fits[] = {
	{ "hbm_read", 0, "vram_bw_mbps warp_mlp" },
	{ "h2d_copy", 0, "link_h2d_mbps" },
	{ "d2h_copy", 0, "link_d2h_mbps" },
	{ "prefetch", 256 * MiB, "ce_setup_ns drv_pte_update_ns" },
	{ "prefetch_to_host", 256 * MiB, "drv_host_page_ns" },
	{ "fault_seq", 16 * MiB, "fault_service_ns drv_fault_page_ns" },
	{ "fault_seq", 64 * MiB, "fault_service_ns drv_fault_page_ns" },
	{ "fault_seq", 256 * MiB, "fault_service_ns drv_fault_page_ns" },
	{ "fault_seq", 1024 * MiB, "fault_service_ns drv_fault_page_ns" },
	{ "fault_random", 256 * MiB, "drv_fault_block_ns" },
	{ "fault_parallel", 256 * MiB, "drv_fault_block_ns" },
	{ "fault_latency", 2 * MiB, "drv_chunk_alloc_ns drv_fault_block_ns" },
	{ "fault_granule", 2 * MiB, "drv_chunk_alloc_ns drv_fault_block_ns" },
	{ "launch", 2 * MiB, "launch_ns" },
	{ "mapped_latency", 2 * MiB, "link_latency_ns" },
	{ "mapped_read", 256 * MiB, "warp_mlp" },
	{ "mapped_read_4b", 256 * MiB, "link_request_ps" },
	{ "mapped_write_4b", 256 * MiB, "link_write_request_ps" },
	{ "mapped_write_fill", 0, "link_write_hit_ps" },
	/* mechanisms: the model caches no sysmem line; a block made on
	 * the GPU skips drv_fault_block_ns */
	{ "mapped_reuse_4k", 0, "no-sysmem-cache" },
	{ "mapped_reuse_256k", 0, "no-sysmem-cache" },
	{ "mapped_reuse_4m", 0, "no-sysmem-cache" },
	{ "gpu_first_touch", 0, "drv_fault_block_ns:host-blocks" },
	{ "fault_latency_gpu_made", 0, "drv_fault_block_ns:host-blocks" },
};

const char *em_calibrate_fitted_on(const char *bench, double buffer)
{
	size_t i;

	for (i = 0; i < sizeof(fits) / sizeof(fits[0]); i++)
		if (!strcmp(fits[i].bench, bench) &&
		    (!fits[i].buffer || fits[i].buffer == buffer))
			return fits[i].constants;
	return NULL;
}

double em_calibrate_tolerance(double spread, const char **by)
{
	*by = spread > FLOOR ? "spread" : "25%";
	return spread > FLOOR ? spread : FLOOR;
}

/* What a row compares: a rate for bandwidth benches, a time for isolated ones. */
static enum metric metric_of(const char *bench)
{
	if (!strcmp(bench, "launch") || !strcmp(bench, "mapped_latency") ||
	    !strcmp(bench, "fault_latency") || !strcmp(bench, "fault_parallel") ||
	    !strcmp(bench, "fault_latency_gpu_made"))
		return TIME;
	if (!strcmp(bench, "mapped_read_4b") || !strcmp(bench, "mapped_write_4b") ||
	    !strcmp(bench, "mapped_write_fill"))
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

/*
 * One card file's bench lines (comments and headers skipped): the whole
 * file, or with "PATH:N" its first N lines (the lines past them copies of
 * other sessions' rows).
 */
static json_t *load_session(const char *spec)
{
	json_t *rows = json_array(), *o;
	char *path = strdup(spec), *colon, *end, *line = NULL;
	unsigned long upto = 0, n = 0;
	size_t cap = 0;
	FILE *f = NULL;

	if (!path)
		goto fail;
	colon = strrchr(path, ':');
	if (colon) {
		*colon = '\0';
		upto = strtoul(colon + 1, &end, 10);
		if (!upto || *end) {
			fprintf(stderr, "calibrate: '%s': not PATH or PATH:LINES\n", spec);
			goto fail;
		}
	}
	f = fopen(path, "re");
	if (!f) {
		perror(path);
		goto fail;
	}
	while (getline(&line, &cap, f) > 0 && (!upto || ++n <= upto)) {
		if (line[0] != '{')
			continue;
		o = json_loads(line, 0, NULL);
		if (o && json_object_get(o, "bench"))
			json_array_append(rows, o);
		json_decref(o);
	}
	free(line);
	fclose(f);
	free(path);
	return rows;
fail:
	free(path);
	json_decref(rows);
	return NULL;
}

/* Every session of a comma-separated list of files, an array each. */
static json_t *load_card(const char *paths)
{
	json_t *sessions = json_array(), *rows;
	char *list = strdup(paths), *save = NULL, *path;

	if (!list) {
		json_decref(sessions);
		return NULL;
	}
	for (path = strtok_r(list, ",", &save); path; path = strtok_r(NULL, ",", &save)) {
		if (json_array_size(sessions) == MAX_SESSIONS) {
			fprintf(stderr, "calibrate: more than %d card files\n", MAX_SESSIONS);
			goto fail;
		}
		rows = load_session(path);
		if (!rows)
			goto fail;
		json_array_append_new(sessions, rows);
	}
	free(list);
	return sessions;
fail:
	free(list);
	json_decref(sessions);
	return NULL;
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

/* A row's value in one set of rows: the median, or the granule's KiB. */
static int row_value(json_t *rows, const char *bench, double buffer,
		     enum metric m, double *out)
{
	return m == GRANULE ? granule_of(rows, out) : median_of(rows, bench, buffer, m, out);
}

/* Over the sessions with the row: the median of their medians and the spread. */
static int card_value(json_t *sessions, const char *bench, double buffer,
		      enum metric m, double *med, double *spread, unsigned int *n)
{
	double v[MAX_SESSIONS], lo, hi;
	json_t *rows;
	size_t i, k = 0;

	json_array_foreach(sessions, i, rows)
		if (!row_value(rows, bench, buffer, m, &v[k]))
			k++;
	if (!k)
		return -1;
	*n = (unsigned int)k;
	*med = median(v, k);	/* sorts v */
	lo = v[0];
	hi = v[k - 1];
	*spread = *med > 0 ? (hi - lo) / *med : 0;
	return 0;
}

static void size_name(double bytes, char *buf, size_t len)
{
	if (bytes >= (1 << 30))
		snprintf(buf, len, "%g GiB", bytes / (1 << 30));
	else
		snprintf(buf, len, "%g MiB", bytes / (1 << 20));
}

/* An earlier model row of the same bench and buffer (printed already). */
static int printed_before(json_t *model, size_t upto, json_t *o)
{
	json_t *r;
	size_t i;

	json_array_foreach(model, i, r) {
		if (i >= upto)
			break;
		if (!strcmp(str(r, "bench"), str(o, "bench")) &&
		    (metric_of(str(o, "bench")) == GRANULE ||
		     num(r, "buffer") == num(o, "buffer")))
			return 1;
	}
	return 0;
}

struct tally {
	unsigned int rows, within, within_floor;
};

/* One group's rows (fitted or held-out); counts into t. */
static void print_group(json_t *card, json_t *model, int fitted, FILE *out,
			struct tally *t)
{
	json_t *o;
	size_t i;

	fprintf(out, "%s\n", fitted ?
		"fitted rows (a constant of models/src/profile.c was set from each):" :
		"held-out rows (no constant was fitted on them):");
	fprintf(out, "%-19s %7s %6s %9s %4s %6s %9s %6s %4s %s\n", "bench",
		"buffer", "unit", "card", "sess", "spread", "model", "error", "tol",
		fitted ? "by     fitted (constants)" : "by");
	json_array_foreach(model, i, o) {
		const char *bench = str(o, "bench"), *fit, *by;
		enum metric m = metric_of(bench);
		double buffer = num(o, "buffer"), c, spread, v, err, tol;
		unsigned int n;
		char buf[32];
		int close;

		if (!strcmp(bench, "error") || printed_before(model, i, o))
			continue;
		fit = em_calibrate_fitted_on(bench, buffer);
		if (!fit != !fitted)
			continue;
		if (card_value(card, bench, buffer, m, &c, &spread, &n) ||
		    row_value(model, bench, buffer, m, &v))
			continue;	/* the card has no such row */
		if (m == GRANULE)
			snprintf(buf, sizeof(buf), "2 MiB");
		else
			size_name(buffer, buf, sizeof(buf));
		err = c > 0 ? v / c - 1 : INFINITY;
		tol = em_calibrate_tolerance(spread, &by);
		close = fabs(err) <= tol;
		t->rows++;
		t->within += close;
		t->within_floor += fabs(err) <= FLOOR;
		fprintf(out, "%-19s %7s %6s %9.2f %4u %5.0f%% %9.2f %+5.0f%% %3.0f%% %-6s %s%s%s%s\n",
			bench, buf, unit_of[m], c, n, 100 * spread, v, 100 * err,
			100 * tol, by, fit ? "fitted (" : "held-out", fit ? fit : "",
			fit ? ")" : "", close ? "" : "  <-");
	}
	fprintf(out, "%s: %u of %u within tolerance (%u within 25%% alone)\n",
		fitted ? "fitted" : "held-out", t->within, t->rows, t->within_floor);
}

int em_calibrate_print(const char *card_paths, const char *model_path,
		       const char *profile, FILE *out)
{
	json_t *card = load_card(card_paths), *all, *model, *o;
	struct tally fitted = { 0 }, held = { 0 };
	unsigned int bad;
	char call[128];
	size_t i;

	all = em_results_load(model_path, &bad);
	if (!card || !all) {
		if (!all)
			perror(model_path);
		json_decref(card);
		json_decref(all);
		return -1;
	}
	model = json_array();
	json_array_foreach(all, i, o)
		if (!strcmp(str(o, "scenario"), "ubench") && json_object_get(o, "bench")) {
			json_array_append(model, o);
			if (!strcmp(str(o, "bench"), "error"))
				fprintf(out, "ember-ubench failed: %s (%d)\n",
					em_term_safe(str(o, "call"), call, sizeof(call)),
					(int)num(o, "ret"));
		}

	fprintf(out, "Calibration: the H200 (%zu sessions: %s) beside the testbed (profile %s)\n",
		json_array_size(card), card_paths, profile);
	fprintf(out, "card: the median over the sessions of each session's median; spread:\n"
		"(max - min) / median over the sessions; a row is close when |error| <= tol,\n"
		"tol = max(spread, 25%%), \"by\" says which\n");
	print_group(card, model, 1, out, &fitted);
	print_group(card, model, 0, out, &held);
	fprintf(out, "fitted: %u of %u within tolerance; held-out: %u of %u\n",
		fitted.within, fitted.rows, held.within, held.rows);
	json_decref(model);
	json_decref(all);
	json_decref(card);
	return (int)(fitted.rows - fitted.within + held.rows - held.within);
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
