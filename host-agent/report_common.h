/* SPDX-License-Identifier: MIT */
/*
 * What the reports of `ember-agent report` share: the paper's variants in
 * their order, the table of a matrix's results (a row per application
 * and factor, a column per variant x policy x sweep point x seed, a cell
 * per run; report_table.c) and a few helpers. Each report is a file of
 * its own: report_speedup.c (the speedup tables beside the paper's),
 * report_claims.c (ARIADNE's and AutoUVM's claims), report_campaign.c (a
 * fault-injection campaign), report_fig16.c (Figure 16's grid),
 * report_movinghot.c (the moving hot set's plot); report.c picks them.
 */
#ifndef EMBER_AGENT_REPORT_COMMON_H
#define EMBER_AGENT_REPORT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "run.h"
#include "variant_table.h"

#define MAX_APPS	16
#define MAX_FACTORS	8
#define MAX_COLUMNS	32

/*
 * One column of the speedup tables: a variant under one policy and driver
 * at one sweep point and seed. A column is keyed by every dimension a matrix
 * varies besides the rows (app, factor), so two runs share a cell only
 * when they differ in nothing the matrix says (a run recorded twice, or
 * results of two matrices merged): the report names such a pair as an
 * error instead of keeping either (cell.dup).
 */
struct column {
	int variant;		/* index into rep_variant_order */
	char policy[EM_POLICY_NAME_MAX];
	char driver[16];	/* "ember" (also for results from before the field) or "nvidia-uvm" */
	char sweep[96];		/* the sweep options without -P ("-r 0 -u 32"), or "" */
	json_int_t seed;
	bool own_policy;	/* the policy the variant runs without `policies` */
	char label[160];	/* "uvm", "uvm/mine", "static -p 2", "mapped s2", "uvm@nvidia-uvm" */
	/*
	 * stock uvm on the same driver at the same sweep point and seed, its
	 * speedups' base; -1 when the matrix has none
	 */
	int baseline;
	/* the variant as the paper has it: own policy, at the first point */
	bool paper;
};

struct cell {
	double sim_ns;		/* modelled setup + kernels; 0: no successful run */
	double kernel_ns;	/* the kernels alone */
	double tokens_per_s;	/* decode runs */
	const char *status;
	bool dup;		/* a second run claimed the cell: not shown */
};

#define REP_NOT_RECORDED	"not recorded"

struct table {
	char apps[MAX_APPS][64];	/* "trace:pathfinder-256m-accesses.trace" fits */
	size_t napps;
	double factors[MAX_FACTORS];
	size_t nfactors;
	char profile[64];
	/* nvidia-uvm's runs' emgpu personality (result.json's "personality"):
	 * "gh100", "ga10x", "mixed", or REP_NOT_RECORDED (runs from before
	 * the field); "" without nvidia-uvm runs */
	char nvuvm_personality[16];
	/* the moving hot set's drift (ember-run -d), -1: none (size_label) */
	int drift;
	struct column cols[MAX_COLUMNS];
	size_t ncols;
	int uvm;		/* the first stock uvm column (the tables' "uvm ms"), or -1 */
	struct cell cells[MAX_APPS][MAX_FACTORS][MAX_COLUMNS];
};

/* ---- report_common.c ---- */

/* The variants the tables know, in the paper's order (uvm first). */
extern const char *const rep_variant_order[];
extern const size_t rep_nvariants;
/* A variant's index in rep_variant_order, or -1. */
int rep_index_of_variant(const char *v);

/* The index of name in names[*n] (added when new); max when full. */
size_t rep_slot(char *names, size_t width, size_t *n, size_t max, const char *name);
/* rep_slot over an array of names: char names[max][width] */
#define REP_SLOT(names, n, max, name) \
	rep_slot(&(names)[0][0], sizeof((names)[0]), n, max, name)

/*
 * The column of run o (a result.json object), without its label, baseline
 * or paper flag; false when o is not a run of a known variant.
 */
bool rep_run_column(json_t *o, struct column *c);
bool rep_same_column(const struct column *a, const struct column *b);

/* The profile's base GPU name ("h200-128m" -> "h200"). */
void rep_base_gpu(const char *profile, char *out, size_t len);

/* ---- report_table.c ---- */

/* Reads dir/results.jsonl into t; every line kept in *keep (a JSON array). */
int rep_table_load(const char *dir, struct table *t, json_t **keep);
/* Names every cell two or more runs claimed; returns how many. */
unsigned int rep_print_duplicates(const struct table *t, json_t *all, FILE *out);
/* One run of a duplicate cell in its list: its id, or its line in the file. */
void rep_print_run_name(FILE *out, json_t *o, size_t i, bool *first);
/* Cell (a, f) of column v's base (stock uvm at its point), or an empty one. */
const struct cell *rep_base_cell(const struct table *t, size_t a, size_t f, size_t v);
/* What a cell without a time shows: its status, "dup", or "-". */
const char *rep_cell_word(const struct cell *c);
/* The paper's column of a variant (its own policy, the first point), or -1. */
int rep_paper_col(const struct table *t, const char *variant);
/* Cell (a, f) of column v; an empty one for v < 0. */
const struct cell *rep_cell_at(const struct table *t, size_t a, size_t f, int v);
/*
 * Marks as the paper's columns (column.paper) the variants' own-policy
 * columns on driver, at the sweep point and seed of its first stock uvm
 * column (of its first column if it has none). rep_table_load marks
 * those of stock uvm's driver, ember where the results have it.
 */
void rep_paper_driver(struct table *t, const char *driver);

/* ---- report_speedup.c: the paper's CSV (experiments/paper/table*.csv) ---- */

/*
 * What the paper's CSV measures (the header's last column): "seconds" (a
 * run's whole time: the testbed's setup + kernels), "kernel_seconds" (the
 * kernels alone) or "tokens_per_s" (a rate, compared as time per token; of
 * the kernels alone, as ember-run's tokens_per_s and the paper's generation
 * rate, which leaves out the prompt and any staging).
 */
enum rep_paper_unit { REP_PAPER_SECONDS, REP_PAPER_KERNEL_SECONDS, REP_PAPER_TOKENS_PER_S };
enum rep_paper_unit rep_paper_unit_of(const char *csv);
/* The testbed's time of a cell in the paper's unit; 0: no successful run. */
double rep_cell_time(const struct cell *c, enum rep_paper_unit u);
/* The paper's row label of factor f: "1.5x", or "d25" for a drift run. */
void rep_size_label(const struct table *t, size_t f, char *out, size_t len);
/*
 * The program an app stands for: a built-in app's own name, and a trace's
 * (trace:PROG-...: the file's name up to its first '-' or '.', a built-in
 * app's name, as capture/traces/paper names its traces), in buf.
 */
const char *rep_app_program(const char *app, char *buf, size_t len);
/*
 * The paper's column (its size label) that the testbed's size label
 * compares with on gpu: the label itself, but the H200's "~1.5x" inputs
 * were its device memory's size (its Table 4 caption: 16 GiB on 16 GiB,
 * docs/paper-inputs.md), so the H200's 1x runs compare with "1.5x" too.
 */
const char *rep_paper_size(const char *gpu, const char *size);
/*
 * The paper's time (seconds, or seconds per token for a rate) of our app
 * and variant on gpu at size; *capped for ">1800"; 0 where it has none.
 */
double rep_paper_value(const char *csv, const char *gpu, const char *size,
		       const char *app, const char *variant, int *capped);

/*
 * How many pairs of n variants theirs orders (times; capped[i]: a lower
 * bound) and, in *agree, how many of them ours orders the same way.
 */
unsigned int rep_order_pairs(const double *ours, const double *theirs, const int *capped,
			     size_t n, unsigned int *agree);

/* ---- the reports ---- */

/* report_speedup.c: the tables, the order and summary lines, the placement costs */
void rep_print_tables(const struct table *t, const char *paper_csv, FILE *out);
void rep_print_paper_summary(const struct table *t, const char *csv, FILE *out);
void rep_print_placement_costs(const struct table *t, const char *csv, FILE *out);
/* the speedup bars, one PNG per factor; 0 or -1 */
int rep_plot_speedup(const struct table *t, const char *dir);

/* report_claims.c */
void rep_print_claims(const struct table *t, FILE *out);

/* report_campaign.c: false when the results hold no injected run */
bool rep_print_campaign(json_t *all, FILE *out);

/*
 * report_fig16.c: false when the results hold no grid run; *duplicates
 * counts the grid cells two runs claimed (named in the report)
 */
bool rep_print_fig16(json_t *all, const char *csv, FILE *out, unsigned int *duplicates);

/* report_movinghot.c: 0, or -1 when gnuplot failed */
int rep_plot_moving_hot(json_t *all, const char *dir);

#endif /* EMBER_AGENT_REPORT_COMMON_H */
