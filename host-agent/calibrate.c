// SPDX-License-Identifier: MIT
/* make calibrate: the card's microbenchmarks beside the testbed's (calibrate.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "gpumodel/profile.h"
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
 * fitted on it. measured: what the row sets under the measured rule,
 * where the driver's instructions replace every drv_* constant: the
 * fault-path rows set cpu_insn_ps (em_calibrate_fit_cpu()), a row whose
 * constants were all drv_* ones and that sets no cpu_insn_ps ("") is
 * held out there.
 */
static const struct fit {
	const char *bench;
	double buffer;
	const char *constants;
	const char *measured;	/* NULL: the same constants */
} fits[] = {
	{ "hbm_read", 0, "vram_bw_mbps warp_mlp", NULL },
	{ "h2d_copy", 0, "link_h2d_mbps", NULL },
	{ "d2h_copy", 0, "link_d2h_mbps", NULL },
	{ "prefetch", 256 * MiB, "ce_setup_ns drv_pte_update_ns", "ce_setup_ns" },
	{ "prefetch_to_host", 256 * MiB, "drv_host_page_ns", "" },
	{ "fault_seq", 16 * MiB, "fault_service_ns drv_fault_page_ns",
	  "fault_service_ns cpu_insn_ps" },
	{ "fault_seq", 64 * MiB, "fault_service_ns drv_fault_page_ns",
	  "fault_service_ns cpu_insn_ps" },
	{ "fault_seq", 256 * MiB, "fault_service_ns drv_fault_page_ns",
	  "fault_service_ns cpu_insn_ps" },
	{ "fault_seq", 1024 * MiB, "fault_service_ns drv_fault_page_ns",
	  "fault_service_ns cpu_insn_ps" },
	{ "fault_random", 256 * MiB, "drv_fault_block_ns", "cpu_insn_ps" },
	{ "fault_parallel", 256 * MiB, "drv_fault_block_ns", "cpu_insn_ps" },
	{ "fault_latency", 2 * MiB, "drv_chunk_alloc_ns drv_fault_block_ns", "cpu_insn_ps" },
	{ "fault_granule", 2 * MiB, "drv_chunk_alloc_ns drv_fault_block_ns", "" },
	{ "launch", 2 * MiB, "launch_ns", NULL },
	{ "mapped_latency", 2 * MiB, "link_latency_ns", NULL },
	{ "mapped_read", 256 * MiB, "warp_mlp", NULL },
	{ "mapped_read_4b", 256 * MiB, "link_request_ps", NULL },
	{ "mapped_write_4b", 256 * MiB, "link_write_request_ps", NULL },
	{ "mapped_write_fill", 0, "link_write_hit_ps", NULL },
	/* mechanisms: the model caches no sysmem line; a block made on
	 * the GPU skips drv_fault_block_ns */
	{ "mapped_reuse_4k", 0, "no-sysmem-cache", NULL },
	{ "mapped_reuse_256k", 0, "no-sysmem-cache", NULL },
	{ "mapped_reuse_4m", 0, "no-sysmem-cache", NULL },
	{ "gpu_first_touch", 0, "drv_fault_block_ns:host-blocks", "" },
	{ "fault_latency_gpu_made", 0, "drv_fault_block_ns:host-blocks", "" },
};

const char *em_calibrate_fitted_on(const char *bench, double buffer, bool measured)
{
	const char *c;
	size_t i;

	for (i = 0; i < sizeof(fits) / sizeof(fits[0]); i++)
		if (!strcmp(fits[i].bench, bench) &&
		    (!fits[i].buffer || fits[i].buffer == buffer)) {
			c = measured && fits[i].measured ? fits[i].measured : fits[i].constants;
			return *c ? c : NULL;
		}
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

/* A VM's ember-ubench rows; an "error" row is told on out. */
static json_t *ubench_rows(json_t *all, FILE *out)
{
	json_t *rows = json_array(), *o;
	char call[128];
	size_t i;

	json_array_foreach(all, i, o)
		if (!strcmp(str(o, "scenario"), "ubench") && json_object_get(o, "bench")) {
			json_array_append(rows, o);
			if (!strcmp(str(o, "bench"), "error"))
				fprintf(out, "ember-ubench failed: %s (%d)\n",
					em_term_safe(str(o, "call"), call, sizeof(call)),
					(int)num(o, "ret"));
		}
	return rows;
}

struct tally {
	unsigned int rows, within, within_floor;
};

/* One group's rows (fitted or held-out); counts into t. */
static void print_group(json_t *card, json_t *model, int fitted, bool measured,
			FILE *out, struct tally *t)
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
		fit = em_calibrate_fitted_on(bench, buffer, measured);
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
		       const char *profile, bool measured, FILE *out)
{
	json_t *card = load_card(card_paths), *all, *model;
	struct tally fitted = { 0 }, held = { 0 };
	unsigned int bad;

	all = em_results_load(model_path, &bad);
	if (!card || !all) {
		if (!all)
			perror(model_path);
		json_decref(card);
		json_decref(all);
		return -1;
	}
	model = ubench_rows(all, out);

	fprintf(out, "Calibration: the H200 (%zu sessions: %s) beside the testbed (profile %s)\n",
		json_array_size(card), card_paths, profile);
	fprintf(out, "card: the median over the sessions of each session's median; spread:\n"
		"(max - min) / median over the sessions; a row is close when |error| <= tol,\n"
		"tol = max(spread, 25%%), \"by\" says which\n");
	print_group(card, model, 1, measured, out, &fitted);
	print_group(card, model, 0, measured, out, &held);
	fprintf(out, "fitted: %u of %u within tolerance; held-out: %u of %u\n",
		fitted.within, fitted.rows, held.within, held.rows);
	json_decref(model);
	json_decref(all);
	json_decref(card);
	return (int)(fitted.rows - fitted.within + held.rows - held.within);
}

/*
 * A row's value as a time: a time itself, or the time per unit a rate
 * stands for (its inverse); a granule is no time.
 */
static int as_time(enum metric m, double v, double *t)
{
	if (m == GRANULE || !(v > 0))
		return -1;
	*t = m == TIME ? v : 1 / v;
	return 0;
}

/* One row of the cpu_insn_ps fit: card and runs as times (as_time()). */
struct cpu_row {
	json_t *o;		/* its line in run a */
	enum metric m;
	double card, spread, t0, slope;
	unsigned int sessions;
	bool fitted;
};

/* Its value at ps, in its own unit. */
static double predict(const struct cpu_row *r, double ps)
{
	double t = r->t0 + r->slope * ps;

	return r->m == TIME ? t : 1 / t;
}

static void print_cpu_rows(const struct cpu_row *rows, size_t n, bool fitted,
			   const unsigned int ps[2], double fit, FILE *out,
			   struct tally *t)
{
	size_t i;

	fprintf(out, "%s\n%-19s %7s %6s %9s %6s %9s %9s %9s %6s %4s\n",
		fitted ? "fault-path rows cpu_insn_ps is fitted on:" :
		"held-out rows (their time depends on cpu_insn_ps; not fitted on):",
		"bench", "buffer", "unit", "card", "spread", "", "", "at fit", "error", "tol");
	for (i = 0; i < n; i++) {
		const struct cpu_row *r = &rows[i];
		double c = r->m == TIME ? r->card : 1 / r->card, v = predict(r, fit);
		double err = v / c - 1, tol;
		const char *by;
		char buf[32];
		int close;

		if (r->fitted != fitted)
			continue;
		size_name(num(r->o, "buffer"), buf, sizeof(buf));
		tol = em_calibrate_tolerance(r->spread, &by);
		close = fabs(err) <= tol;
		t->rows++;
		t->within += close;
		t->within_floor += fabs(err) <= FLOOR;
		fprintf(out, "%-19s %7s %6s %9.2f %5.0f%% %9.2f %9.2f %9.2f %+5.0f%% %3.0f%%%s\n",
			str(r->o, "bench"), buf, unit_of[r->m], c, 100 * r->spread,
			predict(r, ps[0]), predict(r, ps[1]), v, 100 * err, 100 * tol,
			close ? "" : "  <-");
	}
	fprintf(out, "%s: %u of %u within tolerance (%u within 25%% alone)\n",
		fitted ? "fitted" : "held-out", t->within, t->rows, t->within_floor);
}

int em_calibrate_fit_cpu(const char *card_paths, const char *const model_paths[2],
			 const unsigned int ps[2], FILE *out, unsigned int *fitted_ps)
{
	json_t *card = load_card(card_paths), *all[2] = { NULL, NULL }, *runs[2] = { NULL, NULL };
	struct tally fitted = { 0 }, held = { 0 };
	struct cpu_row *rows = NULL;
	double num_sum = 0, den_sum = 0, fit;
	size_t i, n = 0, flat = 0;
	unsigned int bad;
	int rc = -1, k;
	json_t *o;

	for (k = 0; k < 2; k++) {
		all[k] = em_results_load(model_paths[k], &bad);
		if (!all[k]) {
			perror(model_paths[k]);
			goto out;
		}
		runs[k] = ubench_rows(all[k], out);
	}
	if (!card || ps[0] == ps[1])
		goto out;
	rows = calloc(json_array_size(runs[0]) + 1, sizeof(*rows));
	if (!rows)
		goto out;
	json_array_foreach(runs[0], i, o) {
		const char *bench = str(o, "bench"), *fit_on;
		enum metric m = metric_of(bench);
		double buffer = num(o, "buffer"), c, va, vb, ta, tb;
		struct cpu_row *r = &rows[n];

		if (!strcmp(bench, "error") || printed_before(runs[0], i, o) || m == GRANULE ||
		    card_value(card, bench, buffer, m, &c, &r->spread, &r->sessions) ||
		    row_value(runs[0], bench, buffer, m, &va) ||
		    row_value(runs[1], bench, buffer, m, &vb) ||
		    as_time(m, c, &r->card) || as_time(m, va, &ta) || as_time(m, vb, &tb))
			continue;
		/* a row the constant does not move tells nothing of it */
		if (fabs(tb / ta - 1) < 1e-3) {
			flat++;
			continue;
		}
		r->o = o;
		r->m = m;
		r->slope = (tb - ta) / ((double)ps[1] - ps[0]);
		r->t0 = ta - r->slope * ps[0];
		fit_on = em_calibrate_fitted_on(bench, buffer, true);
		r->fitted = fit_on && strstr(fit_on, "cpu_insn_ps");
		if (r->fitted) {
			/* least squares of the relative error, (t0 + slope ps) / card - 1 */
			num_sum += r->slope / r->card * (1 - r->t0 / r->card);
			den_sum += (r->slope / r->card) * (r->slope / r->card);
		}
		n++;
	}
	if (!(den_sum > 0)) {
		fprintf(out, "cpu_insn_ps: no fault-path row moves with it\n");
		goto out;
	}
	fit = num_sum / den_sum;
	fit = fit < GM_CPU_INSN_PS_MIN ? GM_CPU_INSN_PS_MIN :
	      fit > GM_CPU_INSN_PS_MAX ? GM_CPU_INSN_PS_MAX : fit;
	*fitted_ps = (unsigned int)lround(fit);
	fprintf(out, "cpu_insn_ps: the testbed at %u and %u ps; each row's time taken as\n"
		"t0 + slope * cpu_insn_ps (the driver's instructions the same at both),\n"
		"the columns: the card, the runs at %u and %u ps, the line at the fit;\n"
		"the fit minimises the squared relative error over the fault-path rows;\n"
		"rows the constant does not move, left out: %zu\n",
		ps[0], ps[1], ps[0], ps[1], flat);
	print_cpu_rows(rows, n, true, ps, *fitted_ps, out, &fitted);
	print_cpu_rows(rows, n, false, ps, *fitted_ps, out, &held);
	fprintf(out, "cpu_insn_ps fitted: %u ps (least squares %.1f); fitted: %u of %u within "
		"tolerance; held-out: %u of %u\n", *fitted_ps, fit, fitted.within, fitted.rows,
		held.within, held.rows);
	rc = 0;
out:
	free(rows);
	for (k = 0; k < 2; k++) {
		json_decref(runs[k]);
		json_decref(all[k]);
	}
	json_decref(card);
	return rc;
}

int em_calibrate_driver_cost(const char *card_paths, json_t *device, FILE *out)
{
	json_t *card = load_card(card_paths);
	double insns = num(device, "cpu_insns_fault"), us = num(device, "cpu_ns_fault") / 1e3;
	double batches = num(device, "replays") + num(device, "cancels");
	double entries = num(device, "fault_entries"), lat, spread;
	unsigned int n;

	if (!card || !json_is_object(device) || !(batches > 0) || !(entries > 0) || !(insns > 0)) {
		fprintf(out, "driver cost: no fault batch in the run's device stats\n");
		json_decref(card);
		return -1;
	}
	/* the run's own charge (cpu_ns_fault), at whatever cpu_insn_ps it ran */
	fprintf(out, "driver cost at %.0f ps (the run's device stats): fault service %.0f "
		"instructions in %.0f batches, %.0f fault entries:\n"
		"  per batch  %9.0f instructions  %9.2f us\n"
		"  per fault  %9.0f instructions  %9.2f us\n",
		us * 1e6 / insns, insns, batches, entries, insns / batches, us / batches,
		insns / entries, us / entries);
	if (!card_value(card, "fault_latency", 2 * MiB, TIME, &lat, &spread, &n))
		fprintf(out, "  the card's fault_latency (one isolated fault, 2 MiB): %.2f us "
			"(%u sessions, spread %.0f%%)\n", lat, n, 100 * spread);
	json_decref(card);
	return 0;
}

static void ask_stats(struct em_vm *vm, struct em_qmp *q, void *arg)
{
	(void)vm;
	(void)arg;
	em_qmp_queue(q, "qom-get", json_pack("{s:s,s:s}", "path", EM_VM_GPU_QOM_PATH,
					     "property", "stats"));
}

static void take_stats(struct em_vm *vm, struct em_qmp *q, void *arg)
{
	json_t **device = arg, *stats = em_qmp_reply(q, 0, NULL, 0);

	(void)vm;
	json_decref(*device);
	*device = json_is_object(stats) ? json_incref(stats) : NULL;
}

static const struct em_vm_hold_ops stats_at_hold = {
	.ask = ask_stats,
	.answered = take_stats,
};

int em_calibrate_run(struct em_vm_config *cfg, json_t **device)
{
	struct em_vm_outcome out;
	struct em_vm vm;
	json_t *results;
	unsigned int bad;
	int rc;

	*device = NULL;
	cfg->hold_at_end = true;
	cfg->hold = &stats_at_hold;
	cfg->hold_arg = device;
	if (em_vm_start(&vm, cfg))
		return 1;
	em_vm_wait(&vm, &out);
	results = em_results_load(vm.results_path, &bad);
	rc = !results || out.timed_out || out.exit_status ||
	     !em_results_find(results, "boot", "end") ||
	     !em_results_find(results, "ubench", "bench");
	fprintf(stderr, "calibrate: VM on %s%s, driver cost %s, %.1f s%s\n", cfg->profile,
		cfg->device_opts ? cfg->device_opts : "",
		cfg->driver_cost ? cfg->driver_cost : "assumed", out.wall_s,
		rc ? ", did not finish cleanly" : "");
	if (rc)
		fprintf(stderr, "calibrate: see %s and %s\n", vm.console_path,
			vm.qemu_log_path);
	json_decref(results);
	return rc;
}
