// SPDX-License-Identifier: MIT
/*
 * ember-agent report: turns a matrix's results.jsonl into the paper's
 * comparison: per application and oversubscription factor, each variant's
 * speedup over stock UVM (modelled time of setup — advice, prefetch — plus
 * kernels, as the paper's runtimes include them), beside the paper's
 * numbers for the same GPU from one of its appendix tables in CSV
 * (experiments/paper/table*.csv); the geometric means; per cell the order of
 * the variants beside the paper's, with a summary line per size; and a
 * Figure 10-style bar chart (log scale) drawn by gnuplot.
 */
#define _GNU_SOURCE
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "matrix.h"

#define MAX_APPS	16
#define MAX_FACTORS	8
#define MAX_COLUMNS	32

static const char *const variant_order[] = {
	"uvm", "prefetch", "mapped", "static", "adaptive",
	/* the policies of ariadne.conf and autouvm.conf */
	"ac", "ariadne", "autouvm", "ember",
};
#define NVARIANTS (sizeof(variant_order) / sizeof(variant_order[0]))

/*
 * The paper's query runtimes the column scan stands for: the SSB queries
 * of Tables 7-8 measured on all three PCIe GPUs, summed (one colscan run
 * is one sequence of queries; see paper_value()).
 */
#define SSB_QUERIES "q1.3+q2.1+q2.2+q2.3+q3.1+q3.2+q3.3+q3.4"

/* Our names -> the paper's (rows of experiments/paper/table*.csv). */
static const struct {
	const char *ours, *paper;
} app_names[] = {
	{ "pathfinder", "pathfinder" }, { "kmeans", "kmeans" },
	{ "conv", "cnn" }, { "bitonic", "bitonic_sort" },
	{ "radix", "radix_sort" }, { "bfs", "bfs" },
	{ "gemv", "llm" }, { "llm", "llm" },
	{ "colscan", SSB_QUERIES }, { "ssb", SSB_QUERIES },
	{ "movinghot", "movinghot" },
}, variant_names[] = {
	{ "uvm", "uvm" }, { "prefetch", "prefetch" }, { "mapped", "uvm_mapped" },
	{ "static", "ember_static" }, { "adaptive", "ember_adaptive" },
};

/*
 * One column of the speedup tables: a variant under one policy at one
 * sweep point and seed. A column is keyed by every dimension a matrix
 * varies besides the rows (app, factor), so two runs share a cell only
 * when they differ in nothing the matrix says (a run recorded twice, or
 * results of two matrices merged): the report names such a pair as an
 * error instead of keeping either (cell.dup).
 */
struct column {
	int variant;		/* index into variant_order */
	char policy[EM_POLICY_NAME_MAX];
	char sweep[96];		/* the sweep options without -P ("-r 0 -u 32"), or "" */
	json_int_t seed;
	bool own_policy;	/* the policy the variant runs without `policies` */
	char label[160];	/* "uvm", "uvm/mine", "static -p 2", "mapped s2" */
	/*
	 * stock uvm at the same sweep point and seed, its speedups' base; -1
	 * when the matrix has none
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
	const char *id;		/* the run's id, or NULL */
	size_t line;		/* its line of results.jsonl */
	bool dup;		/* a second run claimed the cell: not shown */
};

struct table {
	char apps[MAX_APPS][32];
	size_t napps;
	double factors[MAX_FACTORS];
	size_t nfactors;
	char profile[64];
	/* the moving hot set's drift (ember-run -d), -1: none; see size_label() */
	int drift;
	struct column cols[MAX_COLUMNS];
	size_t ncols;
	int uvm;		/* the first stock uvm column (the tables' "uvm ms"), or -1 */
	struct cell cells[MAX_APPS][MAX_FACTORS][MAX_COLUMNS];
};

static const char *map_name(const char *ours, int apps)
{
	size_t i, n = apps ? sizeof(app_names) / sizeof(app_names[0]) :
		      sizeof(variant_names) / sizeof(variant_names[0]);

	/* one SSB query per run (ember-run -k ssb-q1.3): the paper's row q1.3 */
	if (apps && !strncmp(ours, "ssb-q", 5))
		return ours + 4;

	for (i = 0; i < n; i++) {
		const char *o = apps ? app_names[i].ours : variant_names[i].ours;

		if (!strcmp(o, ours))
			return apps ? app_names[i].paper : variant_names[i].paper;
	}
	return NULL;
}

static int index_of_variant(const char *v)
{
	size_t i;

	for (i = 0; i < NVARIANTS; i++)
		if (!strcmp(v, variant_order[i]))
			return (int)i;
	return -1;
}

static size_t slot(char (*names)[32], size_t *n, size_t max, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return i;
	if (*n == max)
		return max;
	snprintf(names[*n], 32, "%s", name);
	return (*n)++;
}

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

/*
 * The column of run o, without its label, baseline or paper flag; false
 * when o is not a run of a known variant. The policy is the one recorded
 * ("policy"), else the one its ember-run arguments select (results from
 * before the field, e.g. a sweep of -P), else the variant's own; a -P in
 * the sweep is the policy, not a sweep point.
 */
static bool run_column(json_t *o, struct column *c)
{
	const char *variant = json_string_value(json_object_get(o, "variant"));
	const char *policy = json_string_value(json_object_get(o, "policy"));
	const char *args = json_string_value(json_object_get(o, "ember_run"));
	const char *sweep = json_string_value(json_object_get(o, "sweep")) ?: "";
	char own[EM_POLICY_NAME_MAX], word[96];
	size_t n = 0;

	memset(c, 0, sizeof(*c));
	if (!variant || (c->variant = index_of_variant(variant)) < 0)
		return false;
	em_variant_policy(variant, own, sizeof(own));
	if (policy)
		snprintf(c->policy, sizeof(c->policy), "%s", policy);
	else if (args)
		em_args_policy(args, c->policy, sizeof(c->policy));
	else
		snprintf(c->policy, sizeof(c->policy), "%s", own);
	c->own_policy = !strcmp(c->policy, own);
	/* the sweep's options but -P, word pairs "-r 0" */
	while (*sweep) {
		size_t len;

		sweep += strspn(sweep, " ");
		len = strcspn(sweep, " ");
		len += strspn(sweep + len, " ");
		len += strcspn(sweep + len, " ");
		if (len && strncmp(sweep, "-P ", 3)) {
			snprintf(word, sizeof(word), "%.*s", (int)len, sweep);
			n += (size_t)snprintf(c->sweep + n, sizeof(c->sweep) - n, "%s%s",
					      n ? " " : "", word);
			if (n >= sizeof(c->sweep))
				break;
		}
		sweep += len;
	}
	c->seed = json_integer_value(json_object_get(o, "seed"));
	return true;
}

static bool same_column(const struct column *a, const struct column *b)
{
	return a->variant == b->variant && !strcmp(a->policy, b->policy) &&
	       !strcmp(a->sweep, b->sweep) && a->seed == b->seed;
}

static int find_column(const struct table *t, const struct column *c)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (same_column(&t->cols[i], c))
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
	int first;

	for (i = 1; i < t->ncols; i++)
		for (j = i; j > 0 && t->cols[j].variant < t->cols[j - 1].variant; j--) {
			struct column x = t->cols[j];

			t->cols[j] = t->cols[j - 1];
			t->cols[j - 1] = x;
		}
	for (i = 1; i < t->ncols; i++)
		seeds |= t->cols[i].seed != t->cols[0].seed;
	t->uvm = -1;
	for (i = 0; i < t->ncols && t->uvm < 0; i++)
		if (!strcmp(variant_order[t->cols[i].variant], "uvm") &&
		    !strcmp(t->cols[i].policy, "uvm"))
			t->uvm = (int)i;
	/* the paper's point: stock uvm's, or the first column's */
	first = t->uvm >= 0 ? t->uvm : 0;
	for (i = 0; i < t->ncols; i++) {
		struct column *c = &t->cols[i];
		struct column base = *c;
		size_t n;

		n = (size_t)snprintf(c->label, sizeof(c->label), "%s", variant_order[c->variant]);
		if (!c->own_policy)
			n += (size_t)snprintf(c->label + n, sizeof(c->label) - n, "/%s", c->policy);
		if (c->sweep[0] && n < sizeof(c->label))
			n += (size_t)snprintf(c->label + n, sizeof(c->label) - n, " %s", c->sweep);
		if (seeds && n < sizeof(c->label))
			snprintf(c->label + n, sizeof(c->label) - n, " s%" JSON_INTEGER_FORMAT,
				 c->seed);
		base.variant = index_of_variant("uvm");
		snprintf(base.policy, sizeof(base.policy), "%s", "uvm");
		c->baseline = find_column(t, &base);
		c->paper = c->own_policy && !strcmp(c->sweep, t->cols[first].sweep) &&
			   c->seed == t->cols[first].seed;
	}
}

/*
 * Puts run o (line of results.jsonl) in its cell. A cell a run already
 * holds is a duplicate: both are kept out of the tables, and the report
 * names them (print_duplicates) and fails, since either number alone
 * would be a silent choice.
 */
static void cell_fill(struct table *t, json_t *o, size_t line)
{
	const char *app = json_string_value(json_object_get(o, "app"));
	const char *status = json_string_value(json_object_get(o, "status"));
	struct column key;
	struct cell *c;
	size_t a, fi;
	int v;

	if (!app || !status || !run_column(o, &key) || (v = find_column(t, &key)) < 0)
		return;
	snprintf(t->profile, sizeof(t->profile), "%s",
		 json_string_value(json_object_get(o, "profile")) ?: "?");
	a = slot(t->apps, &t->napps, MAX_APPS, app);
	fi = factor_slot(t, json_real_value(json_object_get(o, "factor")));
	if (a == MAX_APPS || fi == MAX_FACTORS)
		return;
	c = &t->cells[a][fi][v];
	if (c->status) {
		c->dup = true;
		c->sim_ns = c->kernel_ns = c->tokens_per_s = 0;
		return;
	}
	c->status = status;
	c->id = json_string_value(json_object_get(o, "id"));
	c->line = line;
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

static int load(const char *dir, struct table *t, json_t **keep)
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
		    !json_string_value(json_object_get(o, "status")) || !run_column(o, &c) ||
		    find_column(t, &c) >= 0 || t->ncols == MAX_COLUMNS)
			continue;
		t->cols[t->ncols++] = c;
	}
	free(line);
	fclose(f);
	columns_finish(t);
	json_array_foreach(all, i, o)
		cell_fill(t, o, i + 1);
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
static unsigned int print_duplicates(const struct table *t, json_t *all, FILE *out)
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
					const char *id = json_string_value(json_object_get(o, "id"));
					struct column c;

					if (!app || strcmp(app, t->apps[a]) ||
					    !json_string_value(json_object_get(o, "status")) ||
					    fabs(json_real_value(json_object_get(o, "factor")) -
						 t->factors[f]) >= 1e-9 ||
					    !run_column(o, &c) || !same_column(&c, &t->cols[v]))
						continue;
					if (id)
						fprintf(out, "%s %s", first ? "" : ",", id);
					else
						fprintf(out, "%s line %zu", first ? "" : ",", i + 1);
					first = false;
				}
				fprintf(out, " (a cell is app, factor, variant, policy, sweep and "
					"seed; these runs differ in none: the same run twice, or "
					"results of two matrices in one file); none of them is "
					"shown\n");
			}
	return cells;
}

/*
 * What the paper's CSV measures (the header's last column): "seconds" (a
 * run's whole time: the testbed's setup + kernels), "kernel_seconds" (the
 * kernels alone) or "tokens_per_s" (a rate, compared as time per token; of
 * the kernels alone, as ember-run's tokens_per_s and the paper's generation
 * rate, which leaves out the prompt and any staging).
 */
enum paper_unit { PAPER_SECONDS, PAPER_KERNEL_SECONDS, PAPER_TOKENS_PER_S };

static enum paper_unit paper_unit_of(const char *csv)
{
	char line[256];
	enum paper_unit u = PAPER_SECONDS;
	FILE *f = csv ? fopen(csv, "re") : NULL;

	if (!f)
		return u;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "size,", 5)) {
			if (strstr(line, ",kernel_seconds"))
				u = PAPER_KERNEL_SECONDS;
			else if (strstr(line, ",tokens_per_s"))
				u = PAPER_TOKENS_PER_S;
			break;
		}
	fclose(f);
	return u;
}

/* The testbed's time of a cell in the paper's unit; 0: no successful run. */
static double cell_time(const struct cell *c, enum paper_unit u)
{
	return u == PAPER_SECONDS ? c->sim_ns : c->kernel_ns;
}

/* The paper's row label of factor f: "1.5x", or "d25" for a drift run. */
static void size_label(const struct table *t, size_t f, char *out, size_t len)
{
	if (t->drift >= 0)
		snprintf(out, len, "d%d", t->drift);
	else
		snprintf(out, len, "%gx", t->factors[f]);
}

/* One row's value: seconds, or seconds per token for a rate. */
static double paper_row(const char *csv, const char *gpu, const char *size,
			const char *app, const char *variant, int *capped)
{
	char line[256];
	double val = 0;
	FILE *f;

	*capped = 0;
	f = fopen(csv, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char sz[16], g[32], ap[32], va[32], v[32];

		if (line[0] == '#' ||
		    sscanf(line, "%15[^,],%31[^,],%31[^,],%31[^,],%31s", sz, g, ap,
			   va, v) != 5)
			continue;
		if (strcmp(sz, size) || strcmp(g, gpu) || strcmp(ap, app) ||
		    strcmp(va, variant))
			continue;
		*capped = v[0] == '>';
		val = strtod(v + *capped, NULL);
		break;
	}
	fclose(f);
	if (val > 0 && paper_unit_of(csv) == PAPER_TOKENS_PER_S)
		val = 1 / val;
	return val;
}

/*
 * The paper's time for (gpu, size, app, variant); *capped for ">1800". An
 * app the paper splits ("q1.3+q2.1+...") is the sum of its rows, 0 unless
 * the paper gives all of them.
 */
static double paper_value(const char *csv, const char *gpu, const char *size,
			  const char *app, const char *variant, int *capped)
{
	const char *papp = map_name(app, 1), *pvar = map_name(variant, 0);
	char one[32];
	double sum = 0, v;
	int c;

	*capped = 0;
	if (!csv || !papp || !pvar)
		return 0;
	while (*papp) {
		size_t n = strcspn(papp, "+");

		snprintf(one, sizeof(one), "%.*s", (int)n, papp);
		v = paper_row(csv, gpu, size, one, pvar, &c);
		if (v <= 0)
			return 0;
		sum += v;
		*capped |= c;
		papp += n + (papp[n] == '+');
	}
	return sum;
}

/* The profile's base GPU name ("h200-128m" -> "h200"). */
static void base_gpu(const char *profile, char *out, size_t len)
{
	snprintf(out, len, "%s", profile);
	out[strcspn(out, "-")] = '\0';
}

/* The time of column v's base in cell (a, f): stock uvm's at its point. */
static const struct cell *base_cell(const struct table *t, size_t a, size_t f, size_t v)
{
	static const struct cell none;
	int b = t->cols[v].baseline;

	return b >= 0 ? &t->cells[a][f][b] : &none;
}

/*
 * The paper's time of column v's variant, 0 where the column is not the
 * paper's (another policy, another sweep point or seed).
 */
static double paper_column(const struct table *t, const char *csv, const char *gpu,
			   const char *size, size_t a, size_t v, int *capped)
{
	*capped = 0;
	if (!t->cols[v].paper)
		return 0;
	return paper_value(csv, gpu, size, t->apps[a], variant_order[t->cols[v].variant],
			   capped);
}

/* What a cell without a time shows: its status, "dup", or "-". */
static const char *cell_word(const struct cell *c)
{
	return c->dup ? "dup" : c->status ? c->status : "-";
}

static void print_tables(const struct table *t, const char *paper_csv, FILE *out)
{
	char gpu[64];
	size_t a, f, v;
	bool bases = false;

	enum paper_unit unit = paper_unit_of(paper_csv);

	base_gpu(t->profile, gpu, sizeof(gpu));
	for (v = 0; v < t->ncols; v++)
		bases |= t->cols[v].baseline >= 0 && t->cols[v].baseline != t->uvm;
	for (f = 0; f < t->nfactors; f++) {
		double logsum[MAX_COLUMNS] = { 0 }, plogsum[MAX_COLUMNS] = { 0 };
		unsigned int cnt[MAX_COLUMNS] = { 0 }, pcnt[MAX_COLUMNS] = { 0 };
		char size[16];

		bool paper = false;
		int capped;

		size_label(t, f, size, sizeof(size));
		/* brackets only where the paper has the cell (Table 4's apps) */
		for (a = 0; a < t->napps && !paper; a++)
			paper = paper_value(paper_csv, gpu, size, t->apps[a], "uvm",
					    &capped) > 0;
		if (paper)
			fprintf(out, "\nSpeedup over UVM at %s (profile %s; paper's %s in brackets)\n",
				size, t->profile, gpu);
		else
			fprintf(out, "\nSpeedup over UVM at %s (profile %s)\n", size,
				t->profile);
		/* several stock uvm columns (sweep points, seeds): each its own base */
		if (bases)
			fprintf(out, "(each column over stock uvm at its own sweep point and seed)\n");
		fprintf(out, "%-12s", "app");
		for (v = 0; v < t->ncols; v++)
			if ((int)v != t->uvm)
				fprintf(out, " %18s", t->cols[v].label);
		fprintf(out, " %14s\n", "uvm ms");
		for (a = 0; a < t->napps; a++) {
			static const struct cell none;
			const struct cell *uvm = t->uvm >= 0 ? &t->cells[a][f][t->uvm] : &none;
			double tu = cell_time(uvm, unit);

			fprintf(out, "%-12s", t->apps[a]);
			for (v = 0; v < t->ncols; v++) {
				const struct cell *c = &t->cells[a][f][v];
				double base = cell_time(base_cell(t, a, f, v), unit);
				int capped_u = 0, capped_v;
				/* the paper's uvm beside the paper's columns only */
				double pv = paper_column(t, paper_csv, gpu, size, a, v, &capped_v);
				double pu = pv > 0 ? paper_value(paper_csv, gpu, size, t->apps[a],
								 "uvm", &capped_u) : 0;
				char ours[24] = "-", theirs[24] = "";

				if ((int)v == t->uvm)
					continue;
				if (cell_time(c, unit) > 0 && base > 0) {
					double s = base / cell_time(c, unit);

					snprintf(ours, sizeof(ours), "%.2f", s);
					logsum[v] += log(s);
					cnt[v]++;
				} else if (c->status) {
					snprintf(ours, sizeof(ours), "%s", cell_word(c));
				}
				if (pu > 0 && pv > 0) {
					/* a capped time bounds the speedup only one way */
					snprintf(theirs, sizeof(theirs), "[%s%.2f]",
						 capped_u && !capped_v ? ">" :
						 capped_v && !capped_u ? "<" :
						 capped_u ? "~" : "", pu / pv);
					plogsum[v] += log(pu / pv);
					pcnt[v]++;
				}
				fprintf(out, " %8s %9s", ours, theirs);
			}
			if (tu > 0)
				fprintf(out, " %14.3f\n", tu / 1e6);
			else
				fprintf(out, " %14s\n", uvm->status ? cell_word(uvm) : "-");
		}
		fprintf(out, "%-12s", "geomean");
		for (v = 0; v < t->ncols; v++) {
			char ours[24] = "-", theirs[24] = "";

			if ((int)v == t->uvm)
				continue;
			if (cnt[v])
				snprintf(ours, sizeof(ours), "%.2f", exp(logsum[v] / cnt[v]));
			if (pcnt[v])
				snprintf(theirs, sizeof(theirs), "[%.2f]",
					 exp(plogsum[v] / pcnt[v]));
			fprintf(out, " %8s %9s", ours, theirs);
		}
		fputc('\n', out);
	}
}

/* Columns of cell (a, f) that both the testbed and the paper timed. */
struct paper_cell {
	int v[MAX_COLUMNS];
	double ours[MAX_COLUMNS], theirs[MAX_COLUMNS];
	int capped[MAX_COLUMNS];
	size_t n;
};

static void paper_cell_load(const struct table *t, const char *csv, const char *gpu,
			    size_t a, size_t f, struct paper_cell *pc)
{
	enum paper_unit unit = paper_unit_of(csv);
	char size[16];
	size_t v;

	size_label(t, f, size, sizeof(size));
	pc->n = 0;
	for (v = 0; v < t->ncols; v++) {
		double ours = cell_time(&t->cells[a][f][v], unit), theirs;
		int capped;

		theirs = paper_column(t, csv, gpu, size, a, v, &capped);
		if (ours <= 0 || theirs <= 0)
			continue;
		pc->v[pc->n] = (int)v;
		pc->ours[pc->n] = ours;
		pc->theirs[pc->n] = theirs;
		pc->capped[pc->n] = capped;
		pc->n++;
	}
}

/* "static < adaptive < uvm": the variants fastest first. */
static void print_order(const struct table *t, const struct paper_cell *pc,
			const double *time, FILE *out)
{
	size_t idx[MAX_COLUMNS], i, j;

	for (i = 0; i < pc->n; i++)
		idx[i] = i;
	for (i = 1; i < pc->n; i++)
		for (j = i; j > 0 && time[idx[j]] < time[idx[j - 1]]; j--) {
			size_t x = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = x;
		}
	for (i = 0; i < pc->n; i++)
		fprintf(out, "%s%s", i ? " < " : "", t->cols[pc->v[idx[i]]].label);
}

/*
 * Per table and size: each cell's order of the variants, the testbed's
 * beside the paper's, with how many pairs agree (a pair the paper cannot
 * order, both capped or equal, is not counted; one the testbed times equal
 * does not agree); the cells whose every
 * counted pair agrees; and per variant the geometric mean over the apps of
 * testbed speedup over UVM / paper speedup over UVM (cells with a capped
 * paper time left out: their speedup is a bound). Only the paper's columns
 * count (their variant's own policy, at the first sweep point and seed).
 */
static void print_paper_summary(const struct table *t, const char *csv, FILE *out)
{
	char gpu[64], size[16];
	size_t a, f, i, j;

	if (!csv)
		return;
	base_gpu(t->profile, gpu, sizeof(gpu));
	for (f = 0; f < t->nfactors; f++) {
		double logsum[MAX_COLUMNS] = { 0 };
		unsigned int cnt[MAX_COLUMNS] = { 0 }, cells = 0, ordered = 0;
		unsigned int agree_all = 0, pairs_all = 0;

		size_label(t, f, size, sizeof(size));
		fprintf(out, "\nOrder of the variants at %s, fastest first (testbed %s | paper's %s)\n",
			size, t->profile, gpu);
		for (a = 0; a < t->napps; a++) {
			struct paper_cell pc;
			unsigned int agree = 0, pairs = 0;
			size_t u = MAX_COLUMNS;

			paper_cell_load(t, csv, gpu, a, f, &pc);
			if (pc.n < 2)
				continue;
			for (i = 0; i < pc.n; i++) {
				if (pc.v[i] == t->uvm)
					u = i;
				for (j = i + 1; j < pc.n; j++) {
					double p = pc.theirs[i] - pc.theirs[j];
					double o = pc.ours[i] - pc.ours[j];

					if ((pc.capped[i] && pc.capped[j]) || p == 0)
						continue;
					pairs++;
					/* a tie on the testbed orders nothing: not the paper's order */
					agree += o != 0 && (p < 0) == (o < 0);
				}
			}
			if (u < MAX_COLUMNS && !pc.capped[u])
				for (i = 0; i < pc.n; i++) {
					if (i == u || pc.capped[i])
						continue;
					logsum[pc.v[i]] += log((pc.ours[u] / pc.ours[i]) /
							       (pc.theirs[u] / pc.theirs[i]));
					cnt[pc.v[i]]++;
				}
			cells++;
			ordered += agree == pairs;
			agree_all += agree;
			pairs_all += pairs;
			fprintf(out, "%-12s %s  ", t->apps[a], agree == pairs ? "same " : "DIFF ");
			print_order(t, &pc, pc.ours, out);
			fprintf(out, " | ");
			print_order(t, &pc, pc.theirs, out);
			fprintf(out, "  (%u/%u pairs)\n", agree, pairs);
		}
		if (!cells)
			continue;
		fprintf(out, "summary %s %s: paper's order in %u of %u cells, %u of %u pairs; "
			"speedup over UVM testbed/paper, geomean:", gpu, size, ordered, cells,
			agree_all, pairs_all);
		for (i = 0; i < t->ncols; i++)
			if (cnt[i] && (int)i != t->uvm)
				fprintf(out, " %s %.2f (%u)", t->cols[i].label,
					exp(logsum[i] / cnt[i]), cnt[i]);
		fputc('\n', out);
	}
}

/* The paper's column of a variant (its own policy, the first point), or -1. */
static int paper_col(const struct table *t, const char *variant)
{
	int v = index_of_variant(variant);
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (t->cols[i].variant == v && t->cols[i].paper)
			return (int)i;
	return -1;
}

/* Cell (a, f) of column v; an empty one for v < 0 (no such column). */
static const struct cell *cell_at(const struct table *t, size_t a, size_t f, int v)
{
	static const struct cell none;

	return v >= 0 ? &t->cells[a][f][v] : &none;
}

/*
 * One-time placement costs, where the paper's CSV gives them (Table 10:
 * rows <variant>_cost): each variant's setup (advise + prefetch, modelled)
 * beside the paper's cost of the same calls.
 */
static void print_placement_costs(const struct table *t, const char *csv, FILE *out)
{
	static const struct {
		const char *variant, *paper;
	} costs[] = {
		{ "prefetch", "prefetch_cost" }, { "mapped", "advise_cost" },
		{ "static", "ember_static_cost" },
	};
	char gpu[64], size[16];
	size_t a, f, i;
	bool header = false;

	if (!csv)
		return;
	base_gpu(t->profile, gpu, sizeof(gpu));
	for (f = 0; f < t->nfactors; f++) {
		size_label(t, f, size, sizeof(size));
		for (a = 0; a < t->napps; a++)
			for (i = 0; i < sizeof(costs) / sizeof(costs[0]); i++) {
				int capped;
				const struct cell *c = cell_at(t, a, f,
							       paper_col(t, costs[i].variant));
				double theirs = paper_row(csv, gpu, size, t->apps[a],
							  costs[i].paper, &capped);

				if (theirs <= 0 || c->sim_ns <= 0)
					continue;
				if (!header)
					fprintf(out, "\nOne-time placement cost (testbed setup ms | paper's s)\n");
				header = true;
				fprintf(out, "%-12s %-5s %-9s %10.3f | %.2f\n", t->apps[a], size,
					costs[i].variant, (c->sim_ns - c->kernel_ns) / 1e6, theirs);
			}
	}
}

/*
 * Geometric mean over the table's apps of time(num) / time(den) at factor
 * f: the speedup of den over num. 0 when no app has both.
 */
static double geomean_ratio(const struct table *t, size_t f, int num, int den,
			    unsigned int *n)
{
	double logsum = 0;
	size_t a;

	*n = 0;
	for (a = 0; a < t->napps; a++) {
		const struct cell *x = cell_at(t, a, f, num), *y = cell_at(t, a, f, den);

		if (x->sim_ns > 0 && y->sim_ns > 0) {
			logsum += log(x->sim_ns / y->sim_ns);
			(*n)++;
		}
	}
	return *n ? exp(logsum / *n) : 0;
}

/*
 * The claims of the papers behind ariadne.conf and autouvm.conf, beside
 * what this table measured: ARIADNE (HPCA'26) over AC at 130 / 175 /
 * 300 % oversubscription and AC against UVM without it; AutoUVM over UVM.
 */
static void print_claims(const struct table *t, FILE *out)
{
	static const struct {
		double factor, claim;
	} ariadne_claims[] = { { 1.3, 1.9 }, { 1.75, 2.3 }, { 3.0, 4.0 } };
	int uvm = paper_col(t, "uvm"), ac = paper_col(t, "ac");
	int ar = paper_col(t, "ariadne"), au = paper_col(t, "autouvm");
	double r, logsum = 0;
	unsigned int n, nf = 0;
	size_t f, i, a;

	if (ar >= 0 && ac >= 0) {
		fprintf(out, "\nModelled ms (setup + kernels) per app and factor; ARIADNE over AC\n");
		fprintf(out, "%-10s %6s %10s %10s %10s %10s %8s\n", "app", "factor", "uvm",
			"ac", "ariadne", "ember", "ar/ac");
		for (a = 0; a < t->napps; a++)
			for (f = 0; f < t->nfactors; f++) {
				int cols[4] = { uvm, ac, ar, paper_col(t, "ember") };
				size_t c;

				fprintf(out, "%-10s %5gx", t->apps[a], t->factors[f]);
				for (c = 0; c < 4; c++) {
					const struct cell *x = cell_at(t, a, f, cols[c]);

					if (x->sim_ns > 0)
						fprintf(out, " %10.3f", x->sim_ns / 1e6);
					else
						fprintf(out, " %10s", cell_word(x));
				}
				if (cell_at(t, a, f, ac)->sim_ns > 0 && cell_at(t, a, f, ar)->sim_ns > 0)
					fprintf(out, " %7.2fx", cell_at(t, a, f, ac)->sim_ns /
						cell_at(t, a, f, ar)->sim_ns);
				fputc('\n', out);
			}
		fprintf(out, "\nARIADNE's claims (geomean over the apps; the paper's in brackets)\n");
		for (f = 0; f < t->nfactors; f++) {
			char x[16];

			snprintf(x, sizeof(x), "%gx", t->factors[f]);
			if (t->factors[f] <= 1.0) {
				r = geomean_ratio(t, f, ac, uvm, &n);
				fprintf(out, "AC slower than UVM at %-6s %6.2fx  [1.3x]  (%u apps)\n",
					x, r, n);
				continue;
			}
			for (i = 0; i < sizeof(ariadne_claims) / sizeof(ariadne_claims[0]); i++)
				if (fabs(ariadne_claims[i].factor - t->factors[f]) < 1e-9)
					break;
			r = geomean_ratio(t, f, ac, ar, &n);
			if (i < sizeof(ariadne_claims) / sizeof(ariadne_claims[0]))
				fprintf(out, "ARIADNE over AC at %-6s   %6.2fx  [%.1fx]  (%u apps)\n",
					x, r, ariadne_claims[i].claim, n);
			else
				fprintf(out, "ARIADNE over AC at %-6s   %6.2fx  (%u apps; no claim)\n",
					x, r, n);
		}
	}
	if (au >= 0 && uvm >= 0) {
		fprintf(out, "\nAutoUVM's claim: 3.1x over UVM on average (ten LLMs, 2.0x oversubscription)\n");
		for (f = 0; f < t->nfactors; f++) {
			char x[16];

			r = geomean_ratio(t, f, uvm, au, &n);
			if (!n)
				continue;
			snprintf(x, sizeof(x), "%gx", t->factors[f]);
			fprintf(out, "AutoUVM over UVM at %-6s  %6.2fx  (%u apps)\n", x, r, n);
			logsum += log(r);
			nf++;
		}
		if (nf)
			fprintf(out, "AutoUVM over UVM, mean of factors: %.2fx  [3.1x]\n",
				exp(logsum / nf));
		fprintf(out, "tokens/s (decode; all device time):\n");
		for (a = 0; a < t->napps; a++)
			for (f = 0; f < t->nfactors; f++) {
				size_t v;

				if (cell_at(t, a, f, uvm)->tokens_per_s <= 0)
					continue;
				fprintf(out, "  %-10s %5gx", t->apps[a], t->factors[f]);
				for (v = 0; v < t->ncols; v++)
					if (t->cells[a][f][v].tokens_per_s > 0)
						fprintf(out, "  %s %.1f", t->cols[v].label,
							t->cells[a][f][v].tokens_per_s);
				fputc('\n', out);
			}
	}
}

/* Every run whose cell reads "error", with the reason em_run_record kept. */
static void print_errors(json_t *all, FILE *out)
{
	size_t i;
	json_t *r;

	json_array_foreach(all, i, r) {
		const char *status = json_string_value(json_object_get(r, "status"));

		if (status && !strcmp(status, "error"))
			fprintf(out, "error: %s: %s\n",
				json_string_value(json_object_get(r, "id")) ?: "?",
				json_string_value(json_object_get(r, "why")) ?:
				"(no reason recorded)");
	}
}

/* Figure 10-style clustered bars of speedup over UVM, log scale, one PNG per factor. */
static int plot(const struct table *t, const char *dir)
{
	char path[4200], cmd[8600];
	size_t a, f, v, datcol;
	bool first;
	FILE *d, *g;
	int rc = 0;

	for (f = 0; f < t->nfactors; f++) {
		snprintf(path, sizeof(path), "%s/speedup-%gx.dat", dir, t->factors[f]);
		d = fopen(path, "we");
		if (!d)
			return -1;
		/* a column per table column but stock uvm, each over its base */
		fprintf(d, "# app");
		for (v = 0; v < t->ncols; v++)
			if ((int)v != t->uvm)
				fprintf(d, " %s", t->cols[v].label);
		fputc('\n', d);
		for (a = 0; a < t->napps; a++) {
			fprintf(d, "%s", t->apps[a]);
			for (v = 0; v < t->ncols; v++) {
				const struct cell *c = &t->cells[a][f][v];
				const struct cell *uvm = base_cell(t, a, f, v);

				if ((int)v == t->uvm)
					continue;
				if (c->sim_ns > 0 && uvm->sim_ns > 0)
					fprintf(d, " %g", uvm->sim_ns / c->sim_ns);
				else
					fprintf(d, " NaN");
			}
			fputc('\n', d);
		}
		fclose(d);

		snprintf(path, sizeof(path), "%s/speedup-%gx.gp", dir, t->factors[f]);
		g = fopen(path, "we");
		if (!g)
			return -1;
		fprintf(g,
			"set terminal pngcairo size 1000,500 noenhanced\n"
			"set output '%s/speedup-%gx.png'\n"
			"set title 'Speedup over UVM at %gx (%s, modelled time)'\n"
			"set style data histograms\n"
			"set style histogram clustered gap 1\n"
			"set style fill solid 0.8 border -1\n"
			"set logscale y\n"
			"set ylabel 'speedup over UVM (log)'\n"
			"set grid ytics\n"
			"set key top left\n"
			"set xtics nomirror\n"
			"plot",
			dir, t->factors[f], t->factors[f], t->profile);
		/* only variants with a value: gnuplot refuses an empty series */
		for (v = 0, datcol = 1, first = true; v < t->ncols; v++) {
			if ((int)v == t->uvm)
				continue;
			datcol++;
			for (a = 0; a < t->napps; a++)
				if (t->cells[a][f][v].sim_ns > 0 && base_cell(t, a, f, v)->sim_ns > 0)
					break;
			if (a == t->napps)
				continue;
			fprintf(g, "%s '%s/speedup-%gx.dat' using %zu:xtic(1) title '%s'",
				first ? "" : ",", dir, t->factors[f], datcol, t->cols[v].label);
			first = false;
		}
		fputc('\n', g);
		fclose(g);
		if (first) {
			fprintf(stderr, "ember-agent: nothing to plot at %gx\n", t->factors[f]);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "gnuplot '%s' 2>&1", path);
		fflush(stdout);
		if (system(cmd)) {
			fprintf(stderr, "ember-agent: gnuplot failed on %s\n", path);
			rc = -1;
		} else {
			printf("plot: %s/speedup-%gx.png\n", dir, t->factors[f]);
		}
	}
	return rc;
}

/*
 * Fault-injection campaigns: per kind, how many runs the injection hit
 * during a launch (the device's count) and the outcome of every run
 * (judge_injected in matrix.c); "expected" is what the kind declares.
 */
static const char *const outcomes[] = {
	"recovered", "clean-error", "corrupted", "oops", "hang", "unexpected", "error",
};
#define NOUTCOMES (sizeof(outcomes) / sizeof(outcomes[0]))
#define C_RUNS		NOUTCOMES
#define C_IN_LAUNCH	(NOUTCOMES + 1)
#define C_NOT_FIRED	(NOUTCOMES + 2)
#define C_UNREAD	(NOUTCOMES + 3)

/*
 * Under the campaign table: where each kind did not fire (per policy and
 * factor: not-fired runs of all runs there), every run that is not
 * acceptable with its reason, the commits, and the VM wall time.
 */
static void print_campaign_detail(json_t *all, FILE *out)
{
	char kinds[32][32], cells[32][32], commits[8][32];
	unsigned int nf[32][32] = { { 0 } }, runs[32][32] = { { 0 } };
	unsigned int ncommit[8] = { 0 }, other_commits = 0;
	size_t nkinds = 0, ncells = 0, ncommits = 0, i, k, c;
	double wall = 0;
	bool any = false;
	json_t *r;

	json_array_foreach(all, i, r) {
		const char *kind = json_string_value(json_object_get(r, "inject"));
		const char *status = json_string_value(json_object_get(r, "status"));
		const char *commit = json_string_value(json_object_get(r, "commit"));
		struct column col;
		char cell[64];

		if (!kind || !status)
			continue;
		/* the policy where it is not the variant's own ("uvm/mine-x1.5") */
		snprintf(cell, sizeof(cell), "%s%s%s-x%g",
			 json_string_value(json_object_get(r, "variant")) ?: "?",
			 run_column(r, &col) && !col.own_policy ? "/" : "",
			 run_column(r, &col) && !col.own_policy ? col.policy : "",
			 json_number_value(json_object_get(r, "factor")));
		k = slot(kinds, &nkinds, 32, kind);
		c = slot(cells, &ncells, 32, cell);
		if (k < 32 && c < 32) {
			runs[k][c]++;
			nf[k][c] += !strcmp(status, "not-fired");
		}
		k = slot(commits, &ncommits, 8, commit ?: "?");
		if (k < 8)
			ncommit[k]++;
		else
			other_commits++;	/* past the 8 named: counted, not named */
		wall += json_number_value(json_object_get(r, "wall_s"));
		if (strcmp(status, "recovered") && strcmp(status, "clean-error") &&
		    strcmp(status, "not-fired")) {
			fprintf(out, "%s%-40s %-10s %s\n", any ? "" : "runs to look at:\n",
				json_string_value(json_object_get(r, "id")) ?: "?", status,
				json_string_value(json_object_get(r, "why")) ?: "");
			any = true;
		}
	}
	for (k = 0; k < nkinds; k++) {
		bool first = true;

		for (c = 0; c < ncells; c++) {
			if (!nf[k][c])
				continue;
			if (first)
				fprintf(out, "not fired: %-15s", kinds[k]);
			fprintf(out, "%s %s %u/%u", first ? "" : ",", cells[c],
				nf[k][c], runs[k][c]);
			first = false;
		}
		if (!first)
			fputc('\n', out);
	}
	fprintf(out, "commits:");
	for (k = 0; k < ncommits; k++)
		fprintf(out, " %s (%u runs)", commits[k], ncommit[k]);
	if (other_commits)
		fprintf(out, " and %u runs of other commits", other_commits);
	fprintf(out, "; VM wall time %.0f s\n", wall);
}

static bool print_campaign(json_t *all, FILE *out)
{
	char kinds[32][32], expected[32][32] = { { 0 } };
	unsigned int counts[33][NOUTCOMES + 4] = { { 0 } };
	size_t nkinds = 0, i, k, o;
	json_t *r;

	json_array_foreach(all, i, r) {
		const char *kind = json_string_value(json_object_get(r, "inject"));
		const char *status = json_string_value(json_object_get(r, "status"));
		json_t *hit = json_object_get(r, "injections_in_launch");
		size_t col;

		if (!kind || !status)
			continue;
		k = slot(kinds, &nkinds, 32, kind);
		if (k == 32)
			continue;
		snprintf(expected[k], sizeof(expected[k]), "%s",
			 json_string_value(json_object_get(r, "expected")) ?:
			 em_inject_expected(kind));
		for (o = 0; o < NOUTCOMES && strcmp(status, outcomes[o]); o++)
			;
		col = !json_is_integer(hit) || json_integer_value(hit) < 0 ? C_UNREAD :
		      json_integer_value(hit) > 0 ? C_IN_LAUNCH : C_NOT_FIRED;
		counts[k][C_RUNS]++;
		counts[32][C_RUNS]++;
		counts[k][col]++;
		counts[32][col]++;
		if (o < NOUTCOMES) {
			counts[k][o]++;
			counts[32][o]++;
		}
	}
	if (!nkinds)
		return false;
	fprintf(out, "\nFault-injection campaign: outcome of every run, per kind\n");
	fprintf(out, "%-15s %-17s %4s %9s %9s", "kind", "expected", "runs", "in-launch",
		"not-fired");
	for (o = 0; o < NOUTCOMES; o++)
		fprintf(out, " %*s", (int)strlen(outcomes[o]) > 5 ? (int)strlen(outcomes[o]) : 5,
			outcomes[o]);
	fputc('\n', out);
	for (k = 0; k <= nkinds; k++) {
		unsigned int *c = counts[k == nkinds ? 32 : k];

		fprintf(out, "%-15s %-17s %4u %9u %9u", k == nkinds ? "total" : kinds[k],
			k == nkinds ? "" : expected[k], c[C_RUNS],
			c[C_IN_LAUNCH], c[C_NOT_FIRED]);
		for (o = 0; o < NOUTCOMES; o++)
			fprintf(out, " %*u", (int)strlen(outcomes[o]) > 5 ?
				(int)strlen(outcomes[o]) : 5, c[o]);
		fputc('\n', out);
	}
	fprintf(out, "in-launch: the injection hit a running launch (the device's count); "
		"recovered needs that and verified output\n");
	if (counts[32][C_UNREAD])
		fprintf(out, "%u runs ended before the device's counts were read (neither "
			"in-launch nor not-fired)\n", counts[32][C_UNREAD]);
	print_campaign_detail(all, out);
	return true;
}

/*
 * The moving hot set (workload "movinghot"): throughput of each position
 * of the hot window, one line per variant, like the paper's Figure 7.
 */
static int plot_moving_hot(json_t *all, const char *dir)
{
	char dat[4200], gp[4200], cmd[8600];
	bool any = false;
	size_t i, p;
	json_t *r;
	FILE *d, *g;

	snprintf(dat, sizeof(dat), "%s/movinghot.dat", dir);
	d = fopen(dat, "we");
	if (!d)
		return -1;
	json_array_foreach(all, i, r) {
		json_t *run = json_object_get(r, "run");
		json_t *phases = run ? json_object_get(run, "phase_ns") : NULL;
		struct column col;
		double window = json_number_value(json_object_get(run, "window"));

		if (!json_is_array(phases) || !json_array_size(phases) ||
		    strcmp(json_string_value(json_object_get(r, "status")) ?: "", "ok"))
			continue;
		if (!run_column(r, &col))
			continue;
		fprintf(d, "\"%s%s%s %gx\"\n", json_string_value(json_object_get(r, "variant")),
			col.own_policy ? "" : "/", col.own_policy ? "" : col.policy,
			json_number_value(json_object_get(r, "factor")));
		for (p = 0; p < json_array_size(phases); p++) {
			double ns = (double)json_integer_value(json_array_get(phases, p));

			fprintf(d, "%zu %g\n", p, ns > 0 ? window / ns : 0);
		}
		fprintf(d, "\n\n");
		any = true;
	}
	fclose(d);
	if (!any)
		return 0;
	snprintf(gp, sizeof(gp), "%s/movinghot.gp", dir);
	g = fopen(gp, "we");
	if (!g)
		return -1;
	fprintf(g, "set terminal pngcairo size 900,450 noenhanced\n"
		"set output '%s/movinghot.png'\n"
		"set title 'Moving hot set: throughput per window position (modelled)'\n"
		"set xlabel 'window position (one launch each)'\n"
		"set ylabel 'GB/s (log)'\nset logscale y\nset grid\n"
		"set key outside right\n", dir);
	fprintf(g, "plot for [k=0:*] '%s' index k using 1:2 with linespoints title columnheader(1)\n",
		dat);
	fclose(g);
	snprintf(cmd, sizeof(cmd), "gnuplot '%s' 2>&1", gp);
	fflush(stdout);
	if (system(cmd))
		return -1;
	printf("plot: %s/movinghot.png\n", dir);
	return 0;
}

/* ---- Figure 16: Ember-static against Ember-adaptive over randomness x reuse ---- */

#define GRID_MAX	16

struct grid_cell {
	double ns[2];		/* static, adaptive: modelled setup + kernels; 0: none */
	size_t line[2];		/* the line of results.jsonl holding each, 0: none */
	bool dup[2];		/* another run claimed it too: not shown */
	double moved[2];	/* bytes host to device */
	long long notes, promos;	/* adaptive's counter notifications, promotions */
};

struct grid {
	char gpu[32];		/* the runs' base GPU ("rtx5080") */
	double factor;		/* their footprint factor */
	int randomness[GRID_MAX], reuse[GRID_MAX];
	size_t nrand, nreuse;
	struct grid_cell cells[2][GRID_MAX][GRID_MAX];	/* pass, passes */
	bool any[2];
	/* runs under a policy not their variant's own: not Figure 16's */
	unsigned int other_policy;
};

static const char *const grid_patterns[] = { "pass", "passes" };

static size_t int_slot(int *vals, size_t *n, int v)
{
	size_t i, j;

	for (i = 0; i < *n; i++)
		if (vals[i] == v)
			return i;
	if (*n == GRID_MAX)
		return GRID_MAX;
	for (i = 0; i < *n && vals[i] < v; i++)
		;
	for (j = *n; j > i; j--)
		vals[j] = vals[j - 1];
	vals[i] = v;
	(*n)++;
	return i;
}

static size_t int_index(const int *vals, size_t n, int v)
{
	size_t i;

	for (i = 0; i < n && vals[i] != v; i++)
		;
	return i;
}

/* Empties the cells that two runs claimed: a choice between them would be silent. */
static void grid_drop_duplicates(struct grid *g)
{
	size_t p, r, u;
	int v;

	for (p = 0; p < 2; p++)
		for (r = 0; r < g->nrand; r++)
			for (u = 0; u < g->nreuse; u++)
				for (v = 0; v < 2; v++) {
					struct grid_cell *c = &g->cells[p][r][u];

					if (!c->dup[v])
						continue;
					c->ns[v] = c->moved[v] = 0;
					if (v == 1)
						c->notes = c->promos = 0;
				}
}

/* Collects the hotset grid runs (run.pattern set); false when there are none. */
static bool grid_load(json_t *all, struct grid *g)
{
	bool found = false;
	size_t i, pass;
	json_t *o;

	/* the axes first, so the cells are indexed in sorted order */
	for (pass = 0; pass < 2; pass++)
		json_array_foreach(all, i, o) {
			json_t *run = json_object_get(o, "run");
			const char *pat = json_string_value(json_object_get(run, "pattern"));
			const char *variant = json_string_value(json_object_get(o, "variant"));
			const char *status = json_string_value(json_object_get(o, "status"));
			int rnd = (int)json_integer_value(json_object_get(run, "randomness"));
			int reuse = (int)json_integer_value(json_object_get(run, "reuse"));
			struct column col;
			size_t p, r, u;
			int v;

			if (!pat || !variant)
				continue;
			found = true;
			if (!pass) {
				if (!g->gpu[0])
					base_gpu(json_string_value(json_object_get(o, "profile")) ?: "?",
						 g->gpu, sizeof(g->gpu));
				if (!g->factor)
					g->factor = json_number_value(json_object_get(o, "factor"));
				int_slot(g->randomness, &g->nrand, rnd);
				int_slot(g->reuse, &g->nreuse, reuse);
				continue;
			}
			p = !strcmp(pat, "passes");
			v = !strcmp(variant, "static") ? 0 : !strcmp(variant, "adaptive") ? 1 : -1;
			r = int_index(g->randomness, g->nrand, rnd);
			u = int_index(g->reuse, g->nreuse, reuse);
			if (v < 0 || r >= g->nrand || u >= g->nreuse || !status ||
			    strcmp(status, "ok"))
				continue;
			if (!run_column(o, &col) || !col.own_policy) {
				g->other_policy++;
				continue;
			}
			g->any[p] = true;
			if (g->cells[p][r][u].line[v]) {
				/* two runs, one cell: neither is shown (print_grid_duplicates) */
				g->cells[p][r][u].dup[v] = true;
				continue;
			}
			g->cells[p][r][u].line[v] = i + 1;
			g->cells[p][r][u].ns[v] =
				(double)json_integer_value(json_object_get(run, "sim_ns")) +
				(double)json_integer_value(json_object_get(run, "setup_ns"));
			g->cells[p][r][u].moved[v] =
				(double)json_integer_value(json_object_get(run, "bytes_h2d"));
			if (v == 1) {
				g->cells[p][r][u].notes = json_integer_value(
					json_object_get(run, "notifications"));
				g->cells[p][r][u].promos = json_integer_value(
					json_object_get(run, "promotions"));
			}
		}
	grid_drop_duplicates(g);
	return found;
}

/* A grid run's identity: pattern, randomness, reuse and variant (0 static, 1 adaptive). */
static bool grid_run_at(json_t *o, const char *pattern, int rnd, int reuse, int v)
{
	json_t *run = json_object_get(o, "run");
	const char *pat = json_string_value(json_object_get(run, "pattern"));
	const char *variant = json_string_value(json_object_get(o, "variant"));
	const char *status = json_string_value(json_object_get(o, "status"));
	struct column col;

	return pat && variant && status && !strcmp(status, "ok") && !strcmp(pat, pattern) &&
	       !strcmp(variant, v ? "adaptive" : "static") &&
	       json_integer_value(json_object_get(run, "randomness")) == rnd &&
	       json_integer_value(json_object_get(run, "reuse")) == reuse &&
	       run_column(o, &col) && col.own_policy;
}

/*
 * Every grid cell two or more runs claimed, naming them (see
 * print_duplicates: neither is shown). Returns how many cells.
 */
static unsigned int print_grid_duplicates(const struct grid *g, json_t *all, FILE *out)
{
	unsigned int cells = 0;
	size_t p, r, u, i;
	int v;
	json_t *o;

	for (p = 0; p < 2; p++)
		for (r = 0; r < g->nrand; r++)
			for (u = 0; u < g->nreuse; u++)
				for (v = 0; v < 2; v++) {
					bool first = true;

					if (!g->cells[p][r][u].dup[v])
						continue;
					cells++;
					fprintf(out, "error: one cell, several runs: %s r%d u%d %s:",
						grid_patterns[p], g->randomness[r], g->reuse[u],
						v ? "adaptive" : "static");
					json_array_foreach(all, i, o) {
						const char *id = json_string_value(
							json_object_get(o, "id"));

						if (!grid_run_at(o, grid_patterns[p], g->randomness[r],
								 g->reuse[u], v))
							continue;
						if (id)
							fprintf(out, "%s %s", first ? "" : ",", id);
						else
							fprintf(out, "%s line %zu", first ? "" : ",", i + 1);
						first = false;
					}
					fprintf(out, " (a cell is pattern, randomness, reuse and "
						"variant; these runs differ in none of them, e.g. "
						"two factors or seeds); none of them is shown\n");
				}
	if (g->other_policy)
		fprintf(out, "not in Figure 16: %u runs under a policy other than their "
			"variant's own (the figure compares stock static with adaptive)\n",
			g->other_policy);
	return cells;
}

/* Whether x lies in spec: "any", "a-b" (inclusive) or "a". */
static bool in_spec(const char *spec, double x)
{
	double lo, hi;

	if (!strcmp(spec, "any"))
		return true;
	if (sscanf(spec, "%lf-%lf", &lo, &hi) == 2)
		return x >= lo && x <= hi;
	return sscanf(spec, "%lf", &lo) == 1 && x == lo;
}

/*
 * The paper's row of experiments/paper/fig16.csv for quantity q at a cell (pattern,
 * randomness, reuse): its value field into val, or false where the text
 * gives none. Pass reuse -1 to match any reuse range.
 */
static bool fig16_row(const char *csv, const char *q, const char *pattern, int rnd,
		      int reuse, char *val, size_t len)
{
	char line[256], qq[48], pat[16], r[16], u[16], v[48];
	bool found = false;
	FILE *f = csv ? fopen(csv, "re") : NULL;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (line[0] == '#' ||
		    sscanf(line, "%47[^,],%15[^,],%15[^,],%15[^,],%47[^\n]", qq, pat, r, u,
			   v) != 5 || strcmp(qq, q))
			continue;
		if ((strcmp(pat, "both") && strcmp(pat, pattern)) || !in_spec(r, rnd) ||
		    (reuse >= 0 && !in_spec(u, reuse)))
			continue;
		snprintf(val, len, "%s", v);
		found = true;
	}
	fclose(f);
	return found;
}

/* What the grid's cells add up to, for the summary line. */
struct fig16_tally {
	unsigned int agree[2], given[2], unknown;
	/*
	 * Adaptive over static (static's ns / adaptive's) over every cell at
	 * reuse 32, winners either way: below 1 where static is faster. The
	 * paper's 1.3-4x speaks of all of them, so a range over adaptive's
	 * wins alone would hide the cells that contradict it.
	 */
	double lo32, hi32;
	unsigned int adaptive_faster32, static_faster32, tied32;
	double hi_static;	/* static over adaptive, the most */
};

/*
 * One cell of pattern p: "W ratio [P]", the faster Ember variant W (S
 * static, A adaptive) and by how much, beside the paper's winner P (?
 * where its text gives none); counted into tally.
 */
static void fig16_cell(const struct grid *g, const char *csv, size_t p, size_t r,
		       size_t u, struct fig16_tally *tally, char *cell, size_t len)
{
	const struct grid_cell *c = &g->cells[p][r][u];
	char paper[48], pw = '?', ow;
	double ratio;

	if (fig16_row(csv, "winner", grid_patterns[p], g->randomness[r], g->reuse[u],
		      paper, sizeof(paper)))
		pw = !strcmp(paper, "ember_static") ? 'S' : 'A';
	if (c->ns[0] <= 0 || c->ns[1] <= 0) {
		snprintf(cell, len, "%6s [%c]", "-", pw);
		return;
	}
	ow = c->ns[0] < c->ns[1] ? 'S' : 'A';
	ratio = ow == 'S' ? c->ns[1] / c->ns[0] : c->ns[0] / c->ns[1];
	snprintf(cell, len, "%c%5.2f [%c]", ow, ratio, pw);
	if (pw == '?') {
		tally->unknown++;
	} else {
		tally->given[p]++;
		tally->agree[p] += ow == pw;
	}
	if (g->reuse[u] == 32) {
		double over = c->ns[0] / c->ns[1];
		unsigned int cells32 = tally->adaptive_faster32 + tally->static_faster32 +
				       tally->tied32;

		tally->lo32 = cells32 == 0 || over < tally->lo32 ? over : tally->lo32;
		tally->hi32 = cells32 == 0 || over > tally->hi32 ? over : tally->hi32;
		if (c->ns[0] > c->ns[1])
			tally->adaptive_faster32++;
		else if (c->ns[0] < c->ns[1])
			tally->static_faster32++;
		else
			tally->tied32++;
	}
	if (ow == 'S' && ratio > tally->hi_static)
		tally->hi_static = ratio;
}

/* Per pattern, the randomness x reuse table of fig16_cell()s. */
static void print_fig16_grid(const struct grid *g, const char *csv,
			     struct fig16_tally *tally, FILE *out)
{
	size_t p, r, u;

	for (p = 0; p < 2; p++) {
		if (!g->any[p])
			continue;
		fprintf(out, "\nFigure 16, pattern %s: faster Ember variant and by how much "
			"(S static, A adaptive; paper's winner in brackets, ? not given)\n",
			grid_patterns[p]);
		fprintf(out, "%-10s", "random %");
		for (u = 0; u < g->nreuse; u++)
			fprintf(out, " %12d", g->reuse[u]);
		fprintf(out, "   (reuse: accesses per page)\n");
		for (r = 0; r < g->nrand; r++) {
			fprintf(out, "%-10d", g->randomness[r]);
			for (u = 0; u < g->nreuse; u++) {
				char cell[32];

				fig16_cell(g, csv, p, r, u, tally, cell, sizeof(cell));
				fprintf(out, " %12s", cell);
			}
			fputc('\n', out);
		}
	}
}

/*
 * Per pattern, Ember-adaptive's access-counter notifications and
 * promotions in each cell: what decides whether it ran as mapped.
 */
static void print_fig16_notes(const struct grid *g, FILE *out)
{
	size_t p, r, u;

	for (p = 0; p < 2; p++) {
		if (!g->any[p])
			continue;
		fprintf(out, "\nEmber-adaptive, pattern %s: access-counter notifications / "
			"promotions\n", grid_patterns[p]);
		fprintf(out, "%-10s", "random %");
		for (u = 0; u < g->nreuse; u++)
			fprintf(out, " %12d", g->reuse[u]);
		fputc('\n', out);
		for (r = 0; r < g->nrand; r++) {
			fprintf(out, "%-10d", g->randomness[r]);
			for (u = 0; u < g->nreuse; u++) {
				const struct grid_cell *c = &g->cells[p][r][u];
				char cell[32] = "-";

				if (c->ns[1] > 0)
					snprintf(cell, sizeof(cell), "%lld/%lld", c->notes,
						 c->promos);
				fprintf(out, " %12s", cell);
			}
			fputc('\n', out);
		}
	}
}

/*
 * The paper's figure for quantity q at randomness 0 as a number range
 * ("6.8-24.4", "up to 3.2": lo 0), or false where the CSV has none.
 */
static bool fig16_range(const char *csv, const char *q, const char *pattern, int rnd,
			int reuse, double *lo, double *hi)
{
	char v[48];

	if (!fig16_row(csv, q, pattern, rnd, reuse, v, sizeof(v)))
		return false;
	if (sscanf(v, "%lf-%lf", lo, hi) == 2)
		return true;
	*lo = 0;
	return sscanf(v, "up to %lf", hi) == 1 || sscanf(v, "%lf", hi) == 1;
}

/*
 * The data moved at 0 % randomness, adaptive's in multiples of
 * Ember-static's (which moves its prefix once), per reuse, beside the
 * paper's range of the same ratio.
 */
static void print_fig16_moved(const struct grid *g, const char *csv, FILE *out)
{
	double static_gb = 0, unused;
	size_t p, r, u;

	fig16_range(csv, "moved_gb_static", "pass", 0, -1, &unused, &static_gb);
	fprintf(out, "\nData moved host to device at 0 %% randomness, MiB (adaptive / static; "
		"paper's range over reuse in brackets, as multiples of static's %g GB)\n",
		static_gb);
	r = int_index(g->randomness, g->nrand, 0);
	for (p = 0; p < 2; p++) {
		double plo = 0, phi = 0, olo = 0, ohi = 0;

		if (!g->any[p] || r >= g->nrand)
			continue;
		fprintf(out, "%-7s", grid_patterns[p]);
		for (u = 0; u < g->nreuse; u++) {
			const struct grid_cell *c = &g->cells[p][r][u];
			double x;

			if (c->moved[0] <= 0 || c->ns[1] <= 0)
				continue;
			x = c->moved[1] / c->moved[0];
			fprintf(out, "  u%d %.0f/%.0f=%.2f", g->reuse[u],
				c->moved[1] / (1 << 20), c->moved[0] / (1 << 20), x);
			olo = olo == 0 || x < olo ? x : olo;
			ohi = x > ohi ? x : ohi;
		}
		if (ohi > 0)
			fprintf(out, "  range %.2f-%.2f", olo, ohi);
		else
			fprintf(out, "  range -");
		if (static_gb > 0 && fig16_range(csv, "moved_gb_adaptive", grid_patterns[p], 0,
						 -1, &plo, &phi) && plo > 0)
			fprintf(out, " [%.2f-%.2f]", plo / static_gb, phi / static_gb);
		fputc('\n', out);
	}
}

/* "[1.3-4x]", "[3.2x]": the paper's speedup q over the cells it names. */
static void print_paper_speedup(const char *csv, const char *q, int rnd, int reuse,
				FILE *out)
{
	double lo, hi;

	if (!fig16_range(csv, q, "pass", rnd, reuse, &lo, &hi))
		fprintf(out, " [?]");
	else if (lo > 0)
		fprintf(out, " [%g-%gx]", lo, hi);
	else
		fprintf(out, " [%gx]", hi);
}

static void print_fig16_summary(const struct grid *g, const char *csv,
				const struct fig16_tally *t, FILE *out)
{
	unsigned int cells32 = t->adaptive_faster32 + t->static_faster32 + t->tied32;

	fprintf(out, "\nsummary %s %gx: paper's winner in %u of %u cells "
		"(pass %u of %u, passes %u of %u; %u cells the paper does not give); "
		"adaptive over static at reuse 32: ", g->gpu, g->factor,
		t->agree[0] + t->agree[1], t->given[0] + t->given[1],
		t->agree[0], t->given[0], t->agree[1], t->given[1], t->unknown);
	if (cells32 > 0) {
		fprintf(out, "%.2f-%.2fx over %u cells (adaptive faster in %u, static in %u",
			t->lo32, t->hi32, cells32, t->adaptive_faster32, t->static_faster32);
		if (t->tied32 > 0)
			fprintf(out, ", tied in %u", t->tied32);
		fputc(')', out);
	} else {
		fprintf(out, "no cells");
	}
	print_paper_speedup(csv, "speedup_adaptive_over_static", 0, 32, out);
	fprintf(out, "; static over adaptive at most: ");
	if (t->hi_static > 0)
		fprintf(out, "%.2fx", t->hi_static);
	else
		fprintf(out, "never faster");
	print_paper_speedup(csv, "speedup_static_over_adaptive", 10, 128, out);
	fputc('\n', out);
}

/*
 * Per pattern, a randomness x reuse table of which Ember variant is faster
 * and by how much, beside the paper's winner where its text gives one;
 * Ember-adaptive's counter notifications and promotions; the data moved at 0 % randomness in multiples of Ember-static's; and a
 * summary line counting the cells whose winner is the paper's. The
 * paper's figures all come from csv (experiments/paper/fig16.csv).
 */
static bool print_fig16(json_t *all, const char *csv, FILE *out,
			unsigned int *duplicates)
{
	struct grid *g = calloc(1, sizeof(*g));
	struct fig16_tally tally = { 0 };

	if (!g)
		return false;
	if (!grid_load(all, g)) {
		free(g);
		return false;
	}
	print_fig16_grid(g, csv, &tally, out);
	print_fig16_notes(g, out);
	print_fig16_moved(g, csv, out);
	print_fig16_summary(g, csv, &tally, out);
	*duplicates = print_grid_duplicates(g, all, out);
	free(g);
	return true;
}

/*
 * The report of a results directory onto out: a campaign's table, else
 * Figure 16's grid, else the speedup tables beside the paper's; then the
 * runs that failed. Returns whether it was the speedup tables (the ones
 * that are also drawn).
 */
static bool print_report(const struct table *t, json_t *all, const char *csv,
			 FILE *out, unsigned int *duplicates)
{
	bool tables = false;

	*duplicates = 0;
	if (!print_campaign(all, out) && !print_fig16(all, csv, out, duplicates)) {
		print_tables(t, csv, out);
		print_paper_summary(t, csv, out);
		print_placement_costs(t, csv, out);
		print_claims(t, out);
		*duplicates = print_duplicates(t, all, out);
		tables = true;
	}
	print_errors(all, out);
	return tables;
}

int em_report(const char *dir, const char *paper_csv, bool draw)
{
	struct table *t = calloc(1, sizeof(*t));
	json_t *all = NULL;
	char path[4200];
	unsigned int duplicates;
	bool tables;
	FILE *out;
	int rc = 0;

	if (!t || load(dir, t, &all)) {
		free(t);
		return 1;
	}
	tables = print_report(t, all, paper_csv, stdout, &duplicates);
	/* the same report beside the results */
	snprintf(path, sizeof(path), "%s/table.txt", dir);
	out = fopen(path, "we");
	if (out) {
		print_report(t, all, paper_csv, out, &duplicates);
		fclose(out);
	}
	/* a cell that two runs claimed shows neither: the report is not whole */
	if (duplicates) {
		fprintf(stderr, "ember-agent: %s: %u cells with more than one run (named "
			"above)\n", dir, duplicates);
		rc = -1;
	}
	if (tables && draw) {
		if (plot(t, dir))
			rc = -1;
		if (plot_moving_hot(all, dir))
			rc = -1;
	}
	json_decref(all);
	free(t);
	return rc ? 1 : 0;
}
