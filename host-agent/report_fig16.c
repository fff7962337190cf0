// SPDX-License-Identifier: MIT
/*
 * Figure 16: Ember-static against Ember-adaptive over randomness x reuse
 * (the hotset grid runs of fig16.conf), beside experiments/paper/fig16.csv.
 */
#define _GNU_SOURCE
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
					rep_base_gpu(json_string_value(json_object_get(o, "profile")) ?: "?",
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
			if (!rep_run_column(o, &col) || !col.own_policy) {
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
	       rep_run_column(o, &col) && col.own_policy;
}

/*
 * Every grid cell two or more runs claimed, naming them (see
 * rep_print_duplicates: neither is shown). Returns how many cells.
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
						if (!grid_run_at(o, grid_patterns[p], g->randomness[r],
								 g->reuse[u], v))
							continue;
						rep_print_run_name(out, o, i, &first);
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
bool rep_print_fig16(json_t *all, const char *csv, FILE *out,
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
