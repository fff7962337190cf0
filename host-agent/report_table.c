// SPDX-License-Identifier: MIT
/*
 * A matrix's results.jsonl as a table: a row per application and factor,
 * a column per variant, policy, sweep point and seed (struct column), a
 * cell per run; what the speedup tables and the claims read.
 */
#define _GNU_SOURCE
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t factor_slot(struct table *t, double f)
{
	size_t i;

	for (i = 0; i < t->nfactors; i++)
		if (fabs(t->factors[i] - f) < 1e-9)
			return i;
	if (t->nfactors == MAX_FACTORS)
		return MAX_FACTORS;
	t->factors[t->nfactors] = f;
	return t->nfactors++;
}

static int find_column(const struct table *t, const struct column *c)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (rep_same_column(&t->cols[i], c))
			return (int)i;
	return -1;
}

/*
 * Orders the columns as the paper's variants (stable: a variant's policies
 * and points in the order the runs came), then labels each and finds its
 * baseline and whether it is the paper's column.
 */
static void columns_finish(struct table *t)
{
	bool seeds = false;
	size_t i, j;

	for (i = 1; i < t->ncols; i++)
		for (j = i; j > 0 && t->cols[j].variant < t->cols[j - 1].variant; j--) {
			struct column x = t->cols[j];

			t->cols[j] = t->cols[j - 1];
			t->cols[j - 1] = x;
		}
	for (i = 1; i < t->ncols; i++)
		seeds |= t->cols[i].seed != t->cols[0].seed;
	t->uvm = -1;
	/* the tables' "uvm ms": stock uvm, on ember where the matrix has it */
	for (i = 0; i < t->ncols; i++)
		if (!strcmp(rep_variant_order[t->cols[i].variant], "uvm") &&
		    !strcmp(t->cols[i].policy, "uvm") &&
		    (t->uvm < 0 || (!strcmp(t->cols[i].driver, EM_DRIVER_EMBER) &&
				    strcmp(t->cols[t->uvm].driver, EM_DRIVER_EMBER))))
			t->uvm = (int)i;
	for (i = 0; i < t->ncols; i++) {
		struct column *c = &t->cols[i];
		struct column base = *c;
		size_t n;

		n = (size_t)snprintf(c->label, sizeof(c->label), "%s", rep_variant_order[c->variant]);
		if (!c->own_policy)
			n += (size_t)snprintf(c->label + n, sizeof(c->label) - n, "/%s", c->policy);
		if (strcmp(c->driver, EM_DRIVER_EMBER) && n < sizeof(c->label))
			n += (size_t)snprintf(c->label + n, sizeof(c->label) - n, "@%s", c->driver);
		if (c->sweep[0] && n < sizeof(c->label))
			n += (size_t)snprintf(c->label + n, sizeof(c->label) - n, " %s", c->sweep);
		if (seeds && n < sizeof(c->label))
			snprintf(c->label + n, sizeof(c->label) - n, " s%" JSON_INTEGER_FORMAT,
				 c->seed);
		base.variant = rep_index_of_variant("uvm");
		snprintf(base.policy, sizeof(base.policy), "%s", "uvm");
		c->baseline = find_column(t, &base);
	}
	if (t->ncols)
		rep_paper_driver(t, t->cols[t->uvm >= 0 ? t->uvm : 0].driver);
}

void rep_paper_driver(struct table *t, const char *driver)
{
	const struct column *first = NULL;
	size_t i;

	/* the paper's point: the driver's stock uvm's, or its first column's */
	for (i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];

		if (strcmp(c->driver, driver))
			continue;
		if (!strcmp(rep_variant_order[c->variant], "uvm") && !strcmp(c->policy, "uvm")) {
			first = c;
			break;
		}
		if (!first)
			first = c;
	}
	for (i = 0; i < t->ncols; i++) {
		struct column *c = &t->cols[i];

		c->paper = first && c->own_policy && !strcmp(c->sweep, first->sweep) &&
			   c->seed == first->seed && !strcmp(c->driver, driver);
	}
}

/*
 * Puts run o (a line of results.jsonl) in its cell. A cell a run already
 * holds is a duplicate: both are kept out of the tables, and the report
 * names them (rep_print_duplicates) and fails, since either number alone
 * would be a silent choice.
 */
static void cell_fill(struct table *t, json_t *o)
{
	const char *app = json_string_value(json_object_get(o, "app"));
	const char *status = json_string_value(json_object_get(o, "status"));
	struct column key;
	struct cell *c;
	size_t a, fi;
	int v;

	if (!app || !status || !rep_run_column(o, &key) || (v = find_column(t, &key)) < 0)
		return;
	snprintf(t->profile, sizeof(t->profile), "%s",
		 json_string_value(json_object_get(o, "profile")) ?: "?");
	if (!strcmp(key.driver, EM_DRIVER_NVIDIA_UVM)) {
		const char *pers = json_string_value(json_object_get(o, "personality")) ?:
				   REP_NOT_RECORDED;

		if (!t->nvuvm_personality[0])
			snprintf(t->nvuvm_personality, sizeof(t->nvuvm_personality), "%s", pers);
		else if (strcmp(t->nvuvm_personality, pers))
			snprintf(t->nvuvm_personality, sizeof(t->nvuvm_personality), "mixed");
	}
	a = REP_SLOT(t->apps, &t->napps, MAX_APPS, app);
	fi = factor_slot(t, json_number_value(json_object_get(o, "factor")));
	if (a == MAX_APPS || fi == MAX_FACTORS)
		return;
	c = &t->cells[a][fi][v];
	if (c->status) {
		c->dup = true;
		c->sim_ns = c->kernel_ns = c->tokens_per_s = 0;
		return;
	}
	c->status = status;
	{
		const char *args = json_string_value(json_object_get(o, "run_args"));
		const char *d = args ? strstr(args, "-d ") : NULL;

		if (d)
			t->drift = atoi(d + 3);
	}
	/* the whole modelled run: advice and prefetch, then the kernels */
	if (!strcmp(status, "ok")) {
		json_t *run = json_object_get(o, "run");

		c->sim_ns = (double)json_integer_value(json_object_get(run, "sim_ns")) +
			    (double)json_integer_value(json_object_get(run, "setup_ns"));
		c->kernel_ns = (double)json_integer_value(json_object_get(run, "sim_ns"));
		c->tokens_per_s = json_number_value(json_object_get(run, "tokens_per_s"));
	}
}

int rep_table_load(const char *dir, struct table *t, json_t **keep)
{
	char path[4200];
	json_t *all = json_array(), *o;
	FILE *f;
	char *line = NULL;
	size_t cap = 0, i;

	t->drift = -1;
	snprintf(path, sizeof(path), "%s/results.jsonl", dir);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "ember-agent: no %s (run the matrix first)\n", path);
		json_decref(all);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		struct column c;

		o = json_loads(line, 0, NULL);
		if (!json_is_object(o)) {
			json_decref(o);
			/* kept in place, so array index + 1 is the line number */
			o = json_null();
		}
		json_array_append_new(all, o);
		if (!json_string_value(json_object_get(o, "app")) ||
		    !json_string_value(json_object_get(o, "status")) || !rep_run_column(o, &c) ||
		    find_column(t, &c) >= 0 || t->ncols == MAX_COLUMNS)
			continue;
		t->cols[t->ncols++] = c;
	}
	free(line);
	fclose(f);
	columns_finish(t);
	json_array_foreach(all, i, o)
		cell_fill(t, o);
	*keep = all;
	return 0;
}

/*
 * Every cell two or more runs claimed, naming them (their ids, or lines of
 * results.jsonl): the same run recorded twice, or runs that differ only in
 * what no column says (run_args, modparams, profile, commit). Averaging
 * them would hide exactly such a mix-up, and the runs are deterministic,
 * so a true repeat adds nothing to average. Returns how many cells.
 */
unsigned int rep_print_duplicates(const struct table *t, json_t *all, FILE *out)
{
	unsigned int cells = 0;
	size_t a, f, v, i;
	json_t *o;

	for (a = 0; a < t->napps; a++)
		for (f = 0; f < t->nfactors; f++)
			for (v = 0; v < t->ncols; v++) {
				bool first = true;

				if (!t->cells[a][f][v].dup)
					continue;
				cells++;
				fprintf(out, "error: one cell, several runs: %s %gx %s:", t->apps[a],
					t->factors[f], t->cols[v].label);
				json_array_foreach(all, i, o) {
					const char *app = json_string_value(json_object_get(o, "app"));
					struct column c;

					if (!app || strcmp(app, t->apps[a]) ||
					    !json_string_value(json_object_get(o, "status")) ||
					    fabs(json_number_value(json_object_get(o, "factor")) -
						 t->factors[f]) >= 1e-9 ||
					    !rep_run_column(o, &c) || !rep_same_column(&c, &t->cols[v]))
						continue;
					rep_print_run_name(out, o, i, &first);
				}
				fprintf(out, " (a cell is app, factor, variant, policy, driver, sweep "
					"and seed; these runs differ in none: the same run twice, or "
					"results of two matrices in one file); none of them is "
					"shown\n");
			}
	return cells;
}

/* The time of column v's base in cell (a, f): stock uvm's at its point. */
const struct cell *rep_base_cell(const struct table *t, size_t a, size_t f, size_t v)
{
	static const struct cell none;
	int b = t->cols[v].baseline;

	return b >= 0 ? &t->cells[a][f][b] : &none;
}

/* What a cell without a time shows: its status, "dup", or "-". */
const char *rep_cell_word(const struct cell *c)
{
	return c->dup ? "dup" : c->status ? c->status : "-";
}

/* The paper's column of a variant (its own policy, the first point), or -1. */
int rep_paper_col(const struct table *t, const char *variant)
{
	int v = rep_index_of_variant(variant);
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (t->cols[i].variant == v && t->cols[i].paper)
			return (int)i;
	return -1;
}

/* Cell (a, f) of column v; an empty one for v < 0 (no such column). */
const struct cell *rep_cell_at(const struct table *t, size_t a, size_t f, int v)
{
	static const struct cell none;

	return v >= 0 ? &t->cells[a][f][v] : &none;
}
