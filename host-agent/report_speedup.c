// SPDX-License-Identifier: MIT
/*
 * The speedup tables beside the paper's: per application and
 * oversubscription factor, each column's speedup over stock UVM (modelled
 * time of setup — advice, prefetch — plus kernels, as the paper's runtimes
 * include them), beside the paper's numbers for the same GPU from one of
 * its appendix tables in CSV (experiments/paper/table*.csv); the geometric
 * means; per cell the order of the variants beside the paper's, with a
 * summary line per size; the one-time placement costs; and a Figure
 * 10-style bar chart (log scale) drawn by gnuplot.
 */
#define _GNU_SOURCE
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_inputs.h"
#include "variants.h"

/* A matrix variant's name in the paper's CSVs (userspace/variants.h); NULL: none. */
static const char *variant_paper(const char *ours)
{
#define VARIANT_PAPER(name, program, policy, paper, what)	{ #name, paper },
	static const struct {
		const char *ours, *paper;
	} names[] = { EM_VARIANTS(VARIANT_PAPER) };
#undef VARIANT_PAPER
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].ours, ours))
			return names[i].paper;
	return NULL;
}

enum rep_paper_unit rep_paper_unit_of(const char *csv)
{
	char line[256];
	enum rep_paper_unit u = REP_PAPER_SECONDS;
	FILE *f = csv ? fopen(csv, "re") : NULL;

	if (!f)
		return u;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "size,", 5)) {
			if (strstr(line, ",kernel_seconds"))
				u = REP_PAPER_KERNEL_SECONDS;
			else if (strstr(line, ",tokens_per_s"))
				u = REP_PAPER_TOKENS_PER_S;
			break;
		}
	fclose(f);
	return u;
}

double rep_cell_time(const struct cell *c, enum rep_paper_unit u)
{
	return u == REP_PAPER_SECONDS ? c->sim_ns : c->kernel_ns;
}

void rep_size_label(const struct table *t, size_t f, char *out, size_t len)
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
	if (val > 0 && rep_paper_unit_of(csv) == REP_PAPER_TOKENS_PER_S)
		val = 1 / val;
	return val;
}

const char *rep_app_program(const char *app, char *buf, size_t len)
{
	if (strncmp(app, "trace:", 6))
		return app;
	app += 6;
	snprintf(buf, len, "%.*s", (int)strcspn(app, "-."), app);
	return buf;
}

const char *rep_paper_size(const char *gpu, const char *size)
{
	return !strcmp(gpu, "h200") && !strcmp(size, "1x") ? "1.5x" : size;
}

/*
 * An app the paper splits ("q1.3+q2.1+...") is the sum of its rows, 0
 * unless the paper gives all of them.
 */
double rep_paper_value(const char *csv, const char *gpu, const char *size,
		       const char *app, const char *variant, int *capped)
{
	/* the app's rows: workloads/app_list.h's paper column */
	const char *papp = em_app_paper(rep_app_program(app, (char[64]){ 0 }, 64));
	const char *pvar = variant_paper(variant);
	char one[32];
	double sum = 0, v;
	int c;

	*capped = 0;
	if (!csv || !papp || !pvar)
		return 0;
	size = rep_paper_size(gpu, size);
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
	return rep_paper_value(csv, gpu, size, t->apps[a], rep_variant_order[t->cols[v].variant],
			       capped);
}

void rep_print_tables(const struct table *t, const char *paper_csv, FILE *out)
{
	char gpu[64];
	size_t a, f, v;
	bool bases = false;

	enum rep_paper_unit unit = rep_paper_unit_of(paper_csv);

	rep_base_gpu(t->profile, gpu, sizeof(gpu));
	for (v = 0; v < t->ncols; v++)
		bases |= t->cols[v].baseline >= 0 && t->cols[v].baseline != t->uvm;
	for (f = 0; f < t->nfactors; f++) {
		double logsum[MAX_COLUMNS] = { 0 }, plogsum[MAX_COLUMNS] = { 0 };
		unsigned int cnt[MAX_COLUMNS] = { 0 }, pcnt[MAX_COLUMNS] = { 0 };
		char size[16];

		bool paper = false;
		int capped;

		rep_size_label(t, f, size, sizeof(size));
		/* brackets only where the paper has the cell (Table 4's apps) */
		for (a = 0; a < t->napps && !paper; a++)
			paper = rep_paper_value(paper_csv, gpu, size, t->apps[a], "uvm",
						&capped) > 0;
		fprintf(out, "\nSpeedup over UVM at %s (profile %s", size, t->profile);
		/* which HAL nvidia-uvm took: emgpu's personality */
		if (!strcmp(t->nvuvm_personality, REP_NOT_RECORDED))
			fprintf(out, "; nvidia-uvm's personality not recorded");
		else if (t->nvuvm_personality[0])
			fprintf(out, "; nvidia-uvm on %s", t->nvuvm_personality);
		if (paper)
			fprintf(out, "; paper's %s in brackets", gpu);
		fprintf(out, ")\n");
		/* several stock uvm columns (sweep points, seeds): each its own base */
		if (bases)
			fprintf(out, "(each column over stock uvm on its own driver, at its own sweep point and seed)\n");
		fprintf(out, "%-12s", "app");
		for (v = 0; v < t->ncols; v++)
			if ((int)v != t->uvm)
				fprintf(out, " %18s", t->cols[v].label);
		fprintf(out, " %14s\n", "uvm ms");
		for (a = 0; a < t->napps; a++) {
			static const struct cell none;
			const struct cell *uvm = t->uvm >= 0 ? &t->cells[a][f][t->uvm] : &none;
			double tu = rep_cell_time(uvm, unit);

			fprintf(out, "%-12s", t->apps[a]);
			for (v = 0; v < t->ncols; v++) {
				const struct cell *c = &t->cells[a][f][v];
				double base = rep_cell_time(rep_base_cell(t, a, f, v), unit);
				int capped_u = 0, capped_v;
				/* the paper's uvm beside the paper's columns only */
				double pv = paper_column(t, paper_csv, gpu, size, a, v, &capped_v);
				double pu = pv > 0 ? rep_paper_value(paper_csv, gpu, size,
								     t->apps[a], "uvm",
								     &capped_u) : 0;
				char ours[24] = "-", theirs[24] = "";

				if ((int)v == t->uvm)
					continue;
				if (rep_cell_time(c, unit) > 0 && base > 0) {
					double s = base / rep_cell_time(c, unit);

					snprintf(ours, sizeof(ours), "%.2f", s);
					logsum[v] += log(s);
					cnt[v]++;
				} else if (c->status) {
					snprintf(ours, sizeof(ours), "%s", rep_cell_word(c));
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
				fprintf(out, " %14s\n", uvm->status ? rep_cell_word(uvm) : "-");
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
	enum rep_paper_unit unit = rep_paper_unit_of(csv);
	char size[16];
	size_t v;

	rep_size_label(t, f, size, sizeof(size));
	pc->n = 0;
	for (v = 0; v < t->ncols; v++) {
		double ours = rep_cell_time(&t->cells[a][f][v], unit), theirs;
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
 * A pair the paper cannot order, both capped or equal, is not counted; one
 * the testbed times equal does not agree.
 */
unsigned int rep_order_pairs(const double *ours, const double *theirs, const int *capped,
			     size_t n, unsigned int *agree)
{
	unsigned int pairs = 0;
	size_t i, j;

	*agree = 0;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double p = theirs[i] - theirs[j];
			double o = ours[i] - ours[j];

			if ((capped[i] && capped[j]) || p == 0)
				continue;
			pairs++;
			/* a tie on the testbed orders nothing: not the paper's order */
			*agree += o != 0 && (p < 0) == (o < 0);
		}
	return pairs;
}

/*
 * Per table and size: each cell's order of the variants, the testbed's
 * beside the paper's, with how many pairs agree (rep_order_pairs); the
 * cells whose every counted pair agrees; and per variant the geometric
 * mean over the apps of testbed speedup over UVM / paper speedup over UVM
 * (cells with a capped paper time left out: their speedup is a bound).
 * Only the paper's columns count (their variant's own policy, at the
 * first sweep point and seed).
 */
void rep_print_paper_summary(const struct table *t, const char *csv, FILE *out)
{
	char gpu[64], size[16];
	size_t a, f, i;

	if (!csv)
		return;
	rep_base_gpu(t->profile, gpu, sizeof(gpu));
	for (f = 0; f < t->nfactors; f++) {
		double logsum[MAX_COLUMNS] = { 0 };
		unsigned int cnt[MAX_COLUMNS] = { 0 }, cells = 0, ordered = 0;
		unsigned int agree_all = 0, pairs_all = 0;

		rep_size_label(t, f, size, sizeof(size));
		fprintf(out, "\nOrder of the variants at %s, fastest first (testbed %s | paper's %s)\n",
			size, t->profile, gpu);
		for (a = 0; a < t->napps; a++) {
			struct paper_cell pc;
			unsigned int agree, pairs;
			size_t u = MAX_COLUMNS;

			paper_cell_load(t, csv, gpu, a, f, &pc);
			if (pc.n < 2)
				continue;
			pairs = rep_order_pairs(pc.ours, pc.theirs, pc.capped, pc.n, &agree);
			for (i = 0; i < pc.n; i++)
				if (pc.v[i] == t->uvm)
					u = i;
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

/*
 * One-time placement costs, where the paper's CSV gives them (Table 10:
 * rows <variant>_cost): each variant's setup (advise + prefetch, modelled)
 * beside the paper's cost of the same calls.
 */
void rep_print_placement_costs(const struct table *t, const char *csv, FILE *out)
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
	rep_base_gpu(t->profile, gpu, sizeof(gpu));
	for (f = 0; f < t->nfactors; f++) {
		rep_size_label(t, f, size, sizeof(size));
		for (a = 0; a < t->napps; a++)
			for (i = 0; i < sizeof(costs) / sizeof(costs[0]); i++) {
				int capped;
				const struct cell *c = rep_cell_at(t, a, f,
							       rep_paper_col(t, costs[i].variant));
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

/* Figure 10-style clustered bars of speedup over UVM, log scale, one PNG per factor. */
int rep_plot_speedup(const struct table *t, const char *dir)
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
				const struct cell *uvm = rep_base_cell(t, a, f, v);

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
				if (t->cells[a][f][v].sim_ns > 0 && rep_base_cell(t, a, f, v)->sim_ns > 0)
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
