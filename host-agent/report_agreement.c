// SPDX-License-Identifier: MIT
/*
 * ember-agent agreement: one Markdown page of the testbed beside the
 * paper's table (experiments/paper/table4.csv, the column of the results'
 * GPU) and the card's measurements (experiments/card-results/
 * h200-apps*.jsonl, card_results.c). Per results directory, driver and
 * factor: every cell (app x variant) with its speedup over stock UVM on
 * the testbed, in the paper and on the card; the counts (cells within
 * 25 %, variant pairs in the paper's order as the report counts them,
 * the fastest variant); a log-log plot of the testbed's speedups against
 * the paper's beside the page; then a hand-written file of the known
 * causes of disagreement, appended verbatim.
 */
#define _GNU_SOURCE
#include "report.h"
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card_results.h"
#include "gpumodel/profile.h"

#define TOLERANCE	0.25	/* a cell agrees when |testbed / theirs - 1| <= this */
#define MAX_SERIES	16	/* the plot's series: a driver at a factor */
#define MAX_POINTS	1024

/* The three counts against the paper or the card. */
struct counts {
	unsigned int close, cells;	/* cells within TOLERANCE */
	unsigned int agree, pairs;	/* variant pairs in their order */
	unsigned int picked, apps;	/* apps whose fastest variant is theirs */
};

struct point {
	int series;
	double paper, testbed;	/* speedups over UVM */
};

struct agreement {
	const struct em_agreement_args *args;
	enum rep_paper_unit unit;
	struct card_set *card;		/* NULL: no card files */
	FILE *summary, *body;		/* the page's parts, joined at the end */
	char series[MAX_SERIES][64];	/* "ember 1.5x" */
	int series_driver[MAX_SERIES];	/* the driver's point style */
	size_t nseries;
	char drivers[MAX_SERIES][16];	/* every driver seen, in order */
	size_t ndrivers;
	struct point points[MAX_POINTS];
	size_t npoints;
};

static void counts_add(struct counts *to, const struct counts *c)
{
	to->close += c->close;
	to->cells += c->cells;
	to->agree += c->agree;
	to->pairs += c->pairs;
	to->picked += c->picked;
	to->apps += c->apps;
}

/* "3 of 5"; "-" when nothing was compared */
static const char *n_of(char *buf, size_t len, unsigned int n, unsigned int of)
{
	if (!of)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u of %u", n, of);
	return buf;
}

static void summary_row(struct agreement *ag, const char *set, const char *driver,
			const char *factor, const struct counts *p, const struct counts *c)
{
	char b[6][32];

	fprintf(ag->summary, "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s |\n", set, driver,
		factor, n_of(b[0], 32, p->close, p->cells), n_of(b[1], 32, p->agree, p->pairs),
		n_of(b[2], 32, p->picked, p->apps), n_of(b[3], 32, c->close, c->cells),
		n_of(b[4], 32, c->agree, c->pairs), n_of(b[5], 32, c->picked, c->apps));
}

/*
 * Which of n times are the least: in[i] set for each; 0 when it cannot be
 * told (nothing timed, or the least is a capped time, a lower bound).
 */
static size_t fastest(const double *time, const int *capped, size_t n, bool *in)
{
	double min = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (time[i] > 0 && !capped[i] && (!min || time[i] < min))
			min = time[i];
	for (i = 0; i < n; i++) {
		in[i] = min > 0 && time[i] == min && !capped[i];
		k += in[i];
	}
	/* a capped time below the least uncapped one: the order is unknown */
	for (i = 0; i < n; i++)
		if (capped[i] && time[i] <= min)
			return 0;
	return k;
}

/* Every variant the testbed times fastest is one they time fastest. */
static bool fastest_same(const bool *ours, const bool *theirs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ours[i] && !theirs[i])
			return false;
	return true;
}

/* "prefetch = static": the variants in[] of labels */
static void print_set(FILE *out, const bool *in, const char *const *labels, size_t n)
{
	bool first = true;
	size_t i;

	for (i = 0; i < n; i++)
		if (in[i]) {
			fprintf(out, "%s%s", first ? "" : " = ", labels[i]);
			first = false;
		}
	if (first)
		fputc('-', out);
}

static int series_of(struct agreement *ag, const char *driver, const char *size)
{
	char name[64];
	size_t i, d;

	snprintf(name, sizeof(name), "%s %s", driver, size);
	for (i = 0; i < ag->nseries; i++)
		if (!strcmp(ag->series[i], name))
			return (int)i;
	for (d = 0; d < ag->ndrivers && strcmp(ag->drivers[d], driver); d++)
		;
	if (ag->nseries == MAX_SERIES || d == MAX_SERIES)
		return -1;
	if (d == ag->ndrivers)
		snprintf(ag->drivers[ag->ndrivers++], sizeof(ag->drivers[0]), "%s", driver);
	snprintf(ag->series[ag->nseries], sizeof(ag->series[0]), "%s", name);
	ag->series_driver[ag->nseries] = (int)d;
	return (int)ag->nseries++;
}

/* One app's cells at one factor, in the paper's columns of the driver. */
struct app_row {
	size_t n;				/* the columns */
	int col[MAX_COLUMNS];
	const char *label[MAX_COLUMNS];		/* the variants' names */
	double ours[MAX_COLUMNS];		/* the testbed's time, 0: none */
	double paper[MAX_COLUMNS];		/* seconds, 0: none */
	int capped[MAX_COLUMNS];
	double card[MAX_COLUMNS];		/* ms, 0: none */
	int card_ok[MAX_COLUMNS];
	int card_variant[MAX_COLUMNS];		/* -1: not a card variant */
	int uvm;				/* the row's stock uvm, or -1 */
};

static void app_row_load(const struct agreement *ag, const struct table *t, size_t a, size_t f,
			 const char *gpu, const char *size, double full_vram, struct app_row *r)
{
	int card_app = -1, foot = -1;
	size_t v;

	if (ag->card && full_vram > 0) {
		card_app = card_app_index(ag->card, t->apps[a], 0);
		foot = card_foot_index(ag->card, t->factors[f] * full_vram);
	}
	memset(r, 0, sizeof(*r));
	r->uvm = -1;
	for (v = 0; v < t->ncols; v++) {
		const char *name = rep_variant_order[t->cols[v].variant];
		size_t i = r->n;
		int cv = card_variant_index(name);

		if (!t->cols[v].paper)
			continue;
		r->col[i] = (int)v;
		r->label[i] = name;
		r->ours[i] = rep_cell_time(&t->cells[a][f][v], ag->unit);
		r->paper[i] = rep_paper_value(ag->args->paper_csv, gpu, size, t->apps[a], name,
					      &r->capped[i]);
		r->card_variant[i] = cv;
		if (cv >= 0 && card_app >= 0 && foot >= 0) {
			r->card[i] = ag->card->c[card_app][foot][cv].ms;
			r->card_ok[i] = ag->card->c[card_app][foot][cv].ok;
		}
		if (t->cols[v].baseline == (int)v)
			r->uvm = (int)i;
		r->n++;
	}
}

/*
 * Column i's speedup over the row's uvm on the testbed over theirs, into
 * *q; false where there is none to compare (uvm itself, a time missing, a
 * capped one: its speedup only a bound).
 */
static bool speedup_ratio(const struct app_row *r, size_t i, const double *theirs,
			  const int *capped, double *q)
{
	size_t u = (size_t)r->uvm;

	if (r->uvm < 0 || i == u || r->ours[u] <= 0 || r->ours[i] <= 0 || theirs[u] <= 0 ||
	    theirs[i] <= 0 || capped[u] || capped[i])
		return false;
	*q = (r->ours[u] / r->ours[i]) / (theirs[u] / theirs[i]);
	return true;
}

static bool within(double q)
{
	return fabs(q - 1) <= TOLERANCE;
}

/*
 * The row's counts against the paper (theirs = r->paper) or the card
 * (r->card), over the columns needed[] marks: the cells within TOLERANCE,
 * the pairs in their order, and the fastest of the columns both timed
 * (ours_fast[], their_fast[]; *judged: the testbed timed every column
 * needed and both fastest are known).
 */
static void app_row_count(const struct app_row *r, const double *theirs, const int *capped,
			  const int *needed, struct counts *c, bool *ours_fast, bool *their_fast,
			  bool *judged)
{
	static const int no_caps[MAX_COLUMNS];
	double o[MAX_COLUMNS], th[MAX_COLUMNS];
	int cap[MAX_COLUMNS];
	size_t i, n = 0, need = 0, k = 0;
	bool of[MAX_COLUMNS], tf[MAX_COLUMNS];
	unsigned int agree;

	/* the columns both timed, as the report's order lines take them */
	for (i = 0; i < r->n; i++) {
		if (!needed[i])
			continue;
		need++;
		if (r->ours[i] <= 0 || theirs[i] <= 0)
			continue;
		o[n] = r->ours[i];
		th[n] = theirs[i];
		cap[n] = capped[i];
		n++;
	}
	if (n >= 2) {
		c->pairs += rep_order_pairs(o, th, cap, n, &agree);
		c->agree += agree;
	}
	/* fastest: judged where the testbed timed every variant they give */
	*judged = fastest(o, no_caps, n, of) > 0;
	*judged &= fastest(th, cap, n, tf) > 0 && n == need;
	for (i = 0; i < r->n; i++) {
		ours_fast[i] = their_fast[i] = false;
		if (!needed[i] || r->ours[i] <= 0 || theirs[i] <= 0)
			continue;
		ours_fast[i] = of[k];
		their_fast[i] = tf[k];
		k++;
	}
	if (*judged) {
		c->apps++;
		c->picked += fastest_same(ours_fast, their_fast, r->n);
	}
	/* the cells: each variant's speedup over uvm against theirs */
	for (i = 0; i < r->n; i++) {
		double q;

		if (!needed[i] || !speedup_ratio(r, i, theirs, capped, &q))
			continue;
		c->cells++;
		c->close += within(q);
	}
}

/* A speedup cell: "2.49", "<0.41" (a capped time bounds it), or "-" */
static void speedup_cell(char *buf, size_t len, double base, double t, int capped_base,
			 int capped_t)
{
	if (base <= 0 || t <= 0) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%s%.2f",
		 capped_base && !capped_t ? ">" : capped_t && !capped_base ? "<" :
		 capped_base ? "~" : "", base / t);
}

/* testbed / theirs of a variant's speedups, with ✓ within TOLERANCE */
static void ratio_cell(char *buf, size_t len, const struct app_row *r, size_t i,
		       const double *theirs, const int *capped)
{
	double q;

	if (r->uvm < 0 || (int)i == r->uvm)
		snprintf(buf, len, " ");
	else if (!speedup_ratio(r, i, theirs, capped, &q))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f%s", q, within(q) ? " ✓" : "");
}

/* One section: a results directory's driver at one factor. */
static void agree_section(struct agreement *ag, const struct table *t, const char *set,
			  const char *driver, size_t f, struct counts *paper_all,
			  struct counts *card_all)
{
	static const int no_caps[MAX_COLUMNS];
	struct gm_profile prof;
	struct counts pc = { 0 }, cc = { 0 };
	char gpu[64], size[16], b[4][32];
	double full_vram = 0;
	FILE *out = ag->body, *apps;
	char *apps_text = NULL;
	size_t apps_len = 0, a, i;
	int series;

	rep_base_gpu(t->profile, gpu, sizeof(gpu));
	rep_size_label(t, f, size, sizeof(size));
	if (!gm_profile_lookup(t->profile, &prof))
		full_vram = (double)gm_profile_full_vram(&prof);
	series = series_of(ag, driver, size);
	apps = open_memstream(&apps_text, &apps_len);
	if (!apps)
		return;

	fprintf(out, "\n## `%s` at %s (%s)\n\n", driver, size, set);
	fprintf(out, "Profile `%s`; the paper's `%s` column", t->profile, gpu);
	if (ag->card && full_vram > 0)
		fprintf(out, "; the card's rows at %g GiB", full_vram * t->factors[f] / (1 << 30));
	fprintf(out, ".\n\n");
	fprintf(out, "| app | variant | testbed ms | paper s | card ms | speedup over uvm: "
		"testbed | paper | card | testbed / paper | testbed / card |\n"
		"|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
	fprintf(apps, "| app | fastest: testbed | paper | the same | of the card's variants: "
		"testbed | card | the same | pairs in the paper's order | in the card's order |\n"
		"|---|---|---|---|---|---|---|--:|--:|\n");
	for (a = 0; a < t->napps; a++) {
		struct app_row r;
		struct counts ap = { 0 }, ac = { 0 };
		bool po[MAX_COLUMNS], pt[MAX_COLUMNS], co[MAX_COLUMNS], ct[MAX_COLUMNS], pj, cj;
		int paper_cols[MAX_COLUMNS], card_cols[MAX_COLUMNS];

		app_row_load(ag, t, a, f, gpu, size, full_vram, &r);
		if (!r.n)
			continue;
		/* against the paper the variants it gives, against the card its four */
		for (i = 0; i < r.n; i++) {
			paper_cols[i] = r.paper[i] > 0;
			card_cols[i] = r.card_variant[i] >= 0;
		}
		app_row_count(&r, r.paper, r.capped, paper_cols, &ap, po, pt, &pj);
		app_row_count(&r, r.card, no_caps, card_cols, &ac, co, ct, &cj);
		fprintf(apps, "| %s | ", t->apps[a]);
		print_set(apps, po, r.label, r.n);
		fprintf(apps, " | ");
		print_set(apps, pt, r.label, r.n);
		fprintf(apps, " | %s | ", pj ? (fastest_same(po, pt, r.n) ? "yes" : "no") : "-");
		print_set(apps, co, r.label, r.n);
		fprintf(apps, " | ");
		print_set(apps, ct, r.label, r.n);
		fprintf(apps, " | %s | %s | %s |\n",
			cj ? (fastest_same(co, ct, r.n) ? "yes" : "no") : "-",
			n_of(b[0], 32, ap.agree, ap.pairs), n_of(b[1], 32, ac.agree, ac.pairs));
		counts_add(&pc, &ap);
		counts_add(&cc, &ac);

		for (i = 0; i < r.n; i++) {
			const struct cell *c = &t->cells[a][f][r.col[i]];
			int u = r.uvm;
			char ours[32], paper[32], card[32], s[3][32], q[2][32];

			if (r.ours[i] > 0)
				snprintf(ours, sizeof(ours), "%.3f", r.ours[i] / 1e6);
			else
				snprintf(ours, sizeof(ours), "%s", rep_cell_word(c));
			/* three figures, as the paper prints them */
			if (r.paper[i] > 0)
				snprintf(paper, sizeof(paper), "%s%.*f", r.capped[i] ? ">" : "",
					 r.paper[i] < 10 ? 2 : r.paper[i] < 100 ? 1 : 0, r.paper[i]);
			else
				snprintf(paper, sizeof(paper), "-");
			if (r.card[i] > 0)
				snprintf(card, sizeof(card), "%.2f%s", r.card[i],
					 r.card_ok[i] ? "" : "!");
			else
				snprintf(card, sizeof(card), "-");
			if (u < 0 || u == (int)i) {
				snprintf(s[0], 32, " ");
				snprintf(s[1], 32, " ");
				snprintf(s[2], 32, " ");
			} else {
				speedup_cell(s[0], 32, r.ours[u], r.ours[i], 0, 0);
				speedup_cell(s[1], 32, r.paper[u], r.paper[i], r.capped[u],
					     r.capped[i]);
				speedup_cell(s[2], 32, r.card[u], r.card[i], 0, 0);
			}
			ratio_cell(q[0], 32, &r, i, r.paper, r.capped);
			ratio_cell(q[1], 32, &r, i, r.card, no_caps);
			fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				t->apps[a], r.label[i], ours, paper, card, s[0], s[1], s[2], q[0],
				q[1]);
			/* the plot: the cells counted against the paper */
			if (series >= 0 && ag->npoints < MAX_POINTS &&
			    speedup_ratio(&r, i, r.paper, r.capped, &(double){ 0 }))
				ag->points[ag->npoints++] = (struct point){
					series, r.paper[u] / r.paper[i], r.ours[u] / r.ours[i]
				};
		}
	}
	fclose(apps);
	fprintf(out, "\n%s", apps_text);
	free(apps_text);
	fprintf(out, "\nAgainst the paper: %s cells within %.0f %%, %s variant pairs in its "
		"order, its fastest variant in %s apps.\n", n_of(b[0], 32, pc.close, pc.cells),
		TOLERANCE * 100, n_of(b[1], 32, pc.agree, pc.pairs),
		n_of(b[2], 32, pc.picked, pc.apps));
	if (cc.cells || cc.pairs || cc.apps)
		fprintf(out, "Against the card: %s cells within %.0f %%, %s variant pairs in its "
			"order, its fastest variant in %s apps.\n",
			n_of(b[0], 32, cc.close, cc.cells), TOLERANCE * 100,
			n_of(b[1], 32, cc.agree, cc.pairs), n_of(b[2], 32, cc.picked, cc.apps));
	else
		fprintf(out, "Against the card: nothing to compare (no card row of these "
			"applications at this footprint).\n");
	summary_row(ag, set, driver, size, &pc, &cc);
	counts_add(paper_all, &pc);
	counts_add(card_all, &cc);
}

/* The plot: testbed against paper per cell, log-log, the diagonal and the band. */
static int agree_plot(const struct agreement *ag, const char *png)
{
	/* a point style per driver: circle, square, triangle, diamond */
	static const int styles[] = { 7, 5, 9, 13 };
	double lo = 0, hi = 0;
	size_t i, s;
	FILE *g;

	if (strchr(png, '\'')) {
		fprintf(stderr, "ember-agent: agreement: a quote in %s\n", png);
		return -1;
	}
	for (i = 0; i < ag->npoints; i++) {
		const struct point *p = &ag->points[i];
		double l = fmin(p->paper, p->testbed), h = fmax(p->paper, p->testbed);

		lo = !i || l < lo ? l : lo;
		hi = !i || h > hi ? h : hi;
	}
	if (!ag->npoints) {
		lo = 0.1;
		hi = 10;
	}
	lo /= 1.5;
	hi *= 1.5;
	fflush(stdout);
	g = popen("gnuplot", "w");
	if (!g)
		return -1;
	for (s = 0; s < ag->nseries; s++) {
		fprintf(g, "$s%zu << EOD\n", s);
		for (i = 0; i < ag->npoints; i++)
			if (ag->points[i].series == (int)s)
				fprintf(g, "%.6g %.6g\n", ag->points[i].paper, ag->points[i].testbed);
		fprintf(g, "EOD\n");
	}
	fprintf(g,
		"set terminal pngcairo size 800,800 noenhanced\n"
		"set output '%s'\n"
		"set title 'Speedup over UVM per cell: testbed against the paper'\n"
		"set logscale xy\n"
		"set xrange [%g:%g]\n"
		"set yrange [%g:%g]\n"
		"set size square\n"
		"set xlabel \"the paper's speedup over UVM (log)\"\n"
		"set ylabel \"the testbed's speedup over UVM (log)\"\n"
		"set grid\n"
		"set key top left\n"
		"set samples 200\n"
		"plot '+' using 1:($1 * %g):($1 * %g) with filledcurves "
		"fillcolor rgb '#dddddd' title 'within %.0f %%', "
		"x with lines lc rgb 'black' title 'testbed = paper'",
		png, lo, hi, lo, hi, 1 - TOLERANCE, 1 + TOLERANCE, TOLERANCE * 100);
	for (s = 0; s < ag->nseries; s++) {
		int style = styles[ag->series_driver[s] % (int)(sizeof(styles) / sizeof(styles[0]))];

		fprintf(g, ", $s%zu using 1:2 with points pt %d ps 1.5 lc %zu title '%s'", s,
			style, s + 1, ag->series[s]);
	}
	fputc('\n', g);
	if (pclose(g)) {
		fprintf(stderr, "ember-agent: gnuplot failed on %s\n", png);
		return -1;
	}
	return 0;
}

/* The file at path onto out, verbatim. */
static int append_file(const char *path, FILE *out)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f) {
		perror(path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	fclose(f);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The page's opening: what it is and how each figure is defined. */
static void print_head(const struct em_agreement_args *args, const char *png, FILE *out)
{
	size_t i;

	fprintf(out, "# Agreement with the paper and the card\n\n"
		"<!-- generated by ember-agent agreement (host-agent/report_agreement.c); "
		"do not edit -->\n\n"
		"The testbed's results (");
	for (i = 0; i < args->ndirs; i++)
		fprintf(out, "%s`%s`", i ? ", " : "", args->dirs[i]);
	fprintf(out, ") beside the paper's figures (`%s`) and the card's measurements (",
		args->paper_csv);
	for (i = 0; i < args->ncards; i++)
		fprintf(out, "%s`%s`", i ? ", " : "", args->cards[i]);
	fprintf(out, "%s).\n\n", args->ncards ? "" : "none");
	fprintf(out,
		"- A **cell** is one application under one variant at one factor of device "
		"memory on one driver. Its figure is the speedup over stock UVM on the same "
		"driver: UVM's time over the variant's. The testbed's time is the whole "
		"modelled run (setup and kernels) on the scaled card, in ms; the paper's is "
		"its runtime in seconds in the column of the profile's GPU (`>`: the run hit "
		"the paper's cap, so the time is a lower bound); the card's is the median of "
		"its runs in ms (`!`: a run not verified).\n"
		"- **Within %.0f %%**: |testbed speedup / their speedup - 1| <= %.2f (marked "
		"✓). UVM's own row is not a cell, and a cell whose time or UVM's time the "
		"paper gives only as a bound is not counted.\n"
		"- **Pairs in order**: every pair of variants of an application that the "
		"paper orders (not both capped, not equal) agrees when the testbed orders it "
		"the same way; a pair the testbed times equal does not agree "
		"(`ember-agent report`'s order count).\n"
		"- **Fastest**: the variants of least time; the testbed picks theirs when "
		"every variant it times fastest is one they time fastest. Judged where the "
		"testbed timed every variant they give and their least time is not a bound.\n"
		"- **The card**: its row of the same application and variant at the "
		"footprint of the factor on the card the profile stands for (the factor "
		"times that card's memory, within 2 %%). The card ran the four program "
		"variants, not Ember-adaptive, so those counts are over them. Its "
		"run-to-run spread is not used here (`make compare-card` uses it).\n\n",
		TOLERANCE * 100, TOLERANCE);
	fprintf(out, "![The testbed's speedups over UVM against the paper's, per cell, log-log: "
		"the diagonal and the %.0f %% band](%s)\n\n", TOLERANCE * 100,
		args->plot_href ?: base_name(png));
}

int em_agreement(const struct em_agreement_args *args)
{
	struct agreement *ag = calloc(1, sizeof(*ag));
	char *summary_text = NULL, *body_text = NULL, png[4200];
	size_t summary_len = 0, body_len = 0, d, i, f;
	unsigned int duplicates = 0;
	FILE *out;
	int rc = 0;

	if (!ag)
		return 1;
	ag->args = args;
	ag->unit = rep_paper_unit_of(args->paper_csv);
	/* the plot beside the page: its name with .png for its extension */
	snprintf(png, sizeof(png), "%.*s.png",
		 (int)(strrchr(base_name(args->page), '.') ? strrchr(args->page, '.') - args->page :
		       (ptrdiff_t)strlen(args->page)), args->page);
	if (args->ncards) {
		ag->card = calloc(1, sizeof(*ag->card));
		if (!ag->card || card_set_load(ag->card, args->cards, args->ncards)) {
			rc = 1;
			goto out;
		}
	}
	ag->summary = open_memstream(&summary_text, &summary_len);
	ag->body = open_memstream(&body_text, &body_len);
	if (!ag->summary || !ag->body) {
		rc = 1;
		goto out;
	}
	fprintf(ag->summary, "| result set | driver | factor | within %.0f %% of the paper | "
		"pairs in the paper's order | fastest as the paper's | within %.0f %% of the "
		"card | pairs in the card's order | fastest as the card's |\n"
		"|---|---|---|--:|--:|--:|--:|--:|--:|\n", TOLERANCE * 100, TOLERANCE * 100);
	for (d = 0; d < args->ndirs; d++) {
		struct table *t = calloc(1, sizeof(*t));
		char drivers[MAX_COLUMNS][16];
		size_t ndrivers = 0, k;
		const char *set = base_name(args->dirs[d]);
		json_t *all = NULL;

		/* a page without one of its result sets would read as whole: none */
		if (!t || rep_table_load(args->dirs[d], t, &all)) {
			free(t);
			rc = 1;
			goto out;
		}
		duplicates += rep_print_duplicates(t, all, stderr);
		/* the drivers in the order their columns come */
		for (i = 0; i < t->ncols; i++) {
			for (k = 0; k < ndrivers && strcmp(drivers[k], t->cols[i].driver); k++)
				;
			if (k == ndrivers)
				snprintf(drivers[ndrivers++], sizeof(drivers[0]), "%s",
					 t->cols[i].driver);
		}
		for (k = 0; k < ndrivers; k++) {
			struct counts p = { 0 }, c = { 0 };

			rep_paper_driver(t, drivers[k]);
			for (f = 0; f < t->nfactors; f++)
				agree_section(ag, t, set, drivers[k], f, &p, &c);
			if (t->nfactors > 1)
				summary_row(ag, set, drivers[k], "all", &p, &c);
		}
		json_decref(all);
		free(t);
	}
	fclose(ag->summary);
	fclose(ag->body);
	ag->summary = ag->body = NULL;

	out = fopen(args->page, "we");
	if (!out) {
		perror(args->page);
		rc = 1;
		goto out;
	}
	print_head(args, png, out);
	fputs(summary_text, out);
	/* the counts are what a caller prints as the report */
	fputs(summary_text, stdout);
	fputs(body_text, out);
	if (args->causes) {
		fputc('\n', out);
		if (append_file(args->causes, out))
			rc = 1;
	}
	if (fclose(out))
		rc = 1;
	if (args->draw) {
		if (agree_plot(ag, png))
			rc = 1;
		else
			printf("plot: %s\n", png);
	}
	if (duplicates) {
		fprintf(stderr, "ember-agent: agreement: %u cells with more than one run (named "
			"above)\n", duplicates);
		rc = 1;
	}
out:
	if (ag->summary)
		fclose(ag->summary);
	if (ag->body)
		fclose(ag->body);
	free(summary_text);
	free(body_text);
	free(ag->card);
	free(ag);
	return rc;
}
