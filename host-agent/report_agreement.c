// SPDX-License-Identifier: MIT
/*
 * ember-agent agreement: one Markdown page of the testbed beside the
 * paper's table (experiments/paper/table4.csv, the column of the results'
 * GPU) and beside the card's measurements (experiments/card-results/
 * h200-apps*.jsonl, card_results.c). Against the paper, per results
 * directory, driver and factor: every cell (app x variant) with its
 * speedup over stock UVM on the testbed and in the paper, and the counts
 * (cells within 25 %, variant pairs in the paper's order as the report
 * counts them, the fastest variant). Against the card, per footprint, the
 * testbed's runs of the card's cells (compare-card's result set, scaled
 * back as card_compare.c does): every cell's ms beside the card's median,
 * their ratio and the speedups over UVM, and the counts (cells within
 * 25 % or within the card's spread, pairs in the card's order with its
 * ties, the order as compare-card counts it, the fastest variant). Then a
 * log-log plot of the testbed's speedups against the paper's beside the
 * page, and a hand-written file of the known causes of disagreement,
 * appended verbatim.
 */
#define _GNU_SOURCE
#include "report.h"
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_inputs.h"
#include "card_compare.h"
#include "card_results.h"

#define TOLERANCE	0.25	/* a cell agrees when |testbed / theirs - 1| <= this */
#define MAX_SERIES	16	/* the plot's series: a driver at a factor */
#define MAX_POINTS	1024

/* The three counts against the paper. */
struct counts {
	unsigned int close, cells;	/* cells within TOLERANCE */
	unsigned int agree, pairs;	/* variant pairs in their order */
	unsigned int picked, apps;	/* apps whose fastest variant is theirs */
};

/* The counts against the card (a footprint's, or all of them). */
struct card_counts {
	unsigned int close, spread, cells;	/* within CARD_TOLERANCE; or the spread */
	unsigned int agree, pairs;		/* variant pairs in the card's order */
	unsigned int same, orders;		/* apps whose order agrees (card_order_agrees) */
	unsigned int picked, apps;		/* apps whose fastest variant is the card's */
};

struct point {
	int series;
	double paper, testbed;	/* speedups over UVM */
};

struct agreement {
	const struct em_agreement_args *args;
	enum rep_paper_unit unit;
	struct card_set *card;		/* NULL: no card files */
	struct card_testbed *tb;	/* the testbed's runs of the card's cells */
	FILE *summary, *body;		/* the page's parts, joined at the end */
	char series[MAX_SERIES][64];	/* "ember 1.5x" */
	int series_driver[MAX_SERIES];	/* the driver's point style */
	size_t nseries;
	char drivers[MAX_SERIES][16];	/* every driver seen, in order */
	size_t ndrivers;
	struct point points[MAX_POINTS];
	size_t npoints;
	bool traces;			/* a set holds replayed traces */
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

/* The driver as the page names it: nvidia-uvm with the personality it ran on. */
static void driver_label(char *buf, size_t len, const struct table *t, const char *driver)
{
	if (!strcmp(driver, EM_DRIVER_NVIDIA_UVM) &&
	    !strcmp(t->nvuvm_personality, REP_NOT_RECORDED))
		snprintf(buf, len, "`%s`, personality not recorded", driver);
	else if (!strcmp(driver, EM_DRIVER_NVIDIA_UVM) && t->nvuvm_personality[0])
		snprintf(buf, len, "`%s` on `%s`", driver, t->nvuvm_personality);
	else
		snprintf(buf, len, "`%s`", driver);
}

static void summary_row(struct agreement *ag, const char *set, const char *driver,
			const char *factor, const struct counts *p)
{
	char b[3][32];

	fprintf(ag->summary, "| %s | %s | %s | %s | %s | %s |\n", set, driver, factor,
		n_of(b[0], 32, p->close, p->cells), n_of(b[1], 32, p->agree, p->pairs),
		n_of(b[2], 32, p->picked, p->apps));
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

/*
 * Which apps a section takes: a result set that holds both replayed traces
 * of the paper's programs (trace:FILE) and built-in apps is counted apart
 * for each, so that their counts stand side by side.
 */
enum app_kind { APPS_ALL, APPS_TRACES, APPS_BUILT_IN };

static const char *const app_kind_label[] = {
	[APPS_ALL] = "", [APPS_TRACES] = ", the paper's programs",
	[APPS_BUILT_IN] = ", built-in apps",
};

static bool is_trace(const char *app)
{
	return !strncmp(app, "trace:", 6);
}

static bool app_of_kind(const char *app, enum app_kind kind)
{
	return kind == APPS_ALL || is_trace(app) == (kind == APPS_TRACES);
}

/*
 * Whether app a has a run at factor f: a trace replays at the one factor
 * its footprint is, so its other factors are not rows of it.
 */
static bool app_ran(const struct table *t, size_t a, size_t f)
{
	size_t v;

	for (v = 0; v < t->ncols; v++)
		if (t->cells[a][f][v].status || t->cells[a][f][v].dup)
			return true;
	return false;
}

/* The built-in app of t that trace app a stands for (its paper row), or -1. */
static int built_in_of(const struct table *t, size_t a)
{
	const char *paper = em_app_paper(rep_app_program(t->apps[a], (char[64]){ 0 }, 64));
	size_t i;

	for (i = 0; paper && i < t->napps; i++)
		if (!is_trace(t->apps[i]) && em_app_paper(t->apps[i]) &&
		    !strcmp(em_app_paper(t->apps[i]), paper))
			return (int)i;
	return -1;
}

/* One app's cells at one factor, in the paper's columns of the driver. */
struct app_row {
	size_t n;				/* the columns */
	int col[MAX_COLUMNS];
	const char *label[MAX_COLUMNS];		/* the variants' names */
	double ours[MAX_COLUMNS];		/* the testbed's time, 0: none */
	double paper[MAX_COLUMNS];		/* seconds, 0: none */
	int capped[MAX_COLUMNS];
	int uvm;				/* the row's stock uvm, or -1 */
};

static void app_row_load(const struct agreement *ag, const struct table *t, size_t a, size_t f,
			 const char *gpu, const char *size, struct app_row *r)
{
	size_t v;

	memset(r, 0, sizeof(*r));
	r->uvm = -1;
	for (v = 0; v < t->ncols; v++) {
		const char *name = rep_variant_order[t->cols[v].variant];
		size_t i = r->n;

		if (!t->cols[v].paper)
			continue;
		r->col[i] = (int)v;
		r->label[i] = name;
		r->ours[i] = rep_cell_time(&t->cells[a][f][v], ag->unit);
		r->paper[i] = rep_paper_value(ag->args->paper_csv, gpu, size, t->apps[a], name,
					      &r->capped[i]);
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
 * The row's counts against theirs (the paper's times), over the columns
 * needed[] marks: the cells within TOLERANCE, the pairs in their order,
 * and the fastest of the columns both timed (ours_fast[], their_fast[];
 * *judged: the testbed timed every column needed and both fastest are
 * known).
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

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* One section: a results directory's driver at one factor, against the paper. */
static void agree_section(struct agreement *ag, const struct table *t, const char *set,
			  const char *driver, size_t f, enum app_kind kind, struct counts *paper_all)
{
	struct counts pc = { 0 };
	char gpu[64], size[16], label[96], series_name[32], b[3][32], shown[64];
	FILE *out = ag->body, *apps;
	char *apps_text = NULL;
	size_t apps_len = 0, a, i;
	bool beside = kind == APPS_TRACES;	/* the built-in app's speedup beside */
	int series;

	rep_base_gpu(t->profile, gpu, sizeof(gpu));
	rep_size_label(t, f, size, sizeof(size));
	snprintf(series_name, sizeof(series_name), "%s%s", size,
		 kind == APPS_TRACES ? " programs" : "");
	series = series_of(ag, driver, series_name);
	apps = open_memstream(&apps_text, &apps_len);
	if (!apps)
		return;

	snprintf(label, sizeof(label), "%s%s", set, app_kind_label[kind]);
	driver_label(shown, sizeof(shown), t, driver);
	fprintf(out, "\n## %s at %s (%s)\n\n", shown, size, label);
	fprintf(out, "Profile `%s`; the paper's `%s` column at %s.\n\n", t->profile, gpu,
		rep_paper_size(gpu, size));
	fprintf(out, "| app | variant | testbed ms | paper s | speedup over uvm: testbed | paper | "
		"testbed / paper |%s\n"
		"|---|---|--:|--:|--:|--:|--:|%s\n",
		beside ? " built-in app: speedup | its / paper |" : "", beside ? "--:|--:|" : "");
	fprintf(apps, "| app | fastest: testbed | paper | the same | pairs in the paper's order |\n"
		"|---|---|---|---|--:|\n");
	for (a = 0; a < t->napps; a++) {
		struct app_row r, rb;
		struct counts ap = { 0 };
		bool po[MAX_COLUMNS], pt[MAX_COLUMNS], pj;
		int paper_cols[MAX_COLUMNS], b_app = beside ? built_in_of(t, a) : -1;

		if (!app_of_kind(t->apps[a], kind) || !app_ran(t, a, f))
			continue;
		app_row_load(ag, t, a, f, gpu, size, &r);
		if (!r.n)
			continue;
		/* the same columns: app_row_load takes the table's paper columns */
		if (b_app >= 0)
			app_row_load(ag, t, (size_t)b_app, f, gpu, size, &rb);
		/* the variants the paper gives */
		for (i = 0; i < r.n; i++)
			paper_cols[i] = r.paper[i] > 0;
		app_row_count(&r, r.paper, r.capped, paper_cols, &ap, po, pt, &pj);
		fprintf(apps, "| %s | ", t->apps[a]);
		print_set(apps, po, r.label, r.n);
		fprintf(apps, " | ");
		print_set(apps, pt, r.label, r.n);
		fprintf(apps, " | %s | %s |\n",
			pj ? (fastest_same(po, pt, r.n) ? "yes" : "no") : "-",
			n_of(b[0], 32, ap.agree, ap.pairs));
		counts_add(&pc, &ap);

		for (i = 0; i < r.n; i++) {
			const struct cell *c = &t->cells[a][f][r.col[i]];
			int u = r.uvm;
			char ours[32], paper[32], s[2][32], q[32];

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
			if (u < 0 || u == (int)i) {
				snprintf(s[0], 32, " ");
				snprintf(s[1], 32, " ");
			} else {
				speedup_cell(s[0], 32, r.ours[u], r.ours[i], 0, 0);
				speedup_cell(s[1], 32, r.paper[u], r.paper[i], r.capped[u],
					     r.capped[i]);
			}
			ratio_cell(q, 32, &r, i, r.paper, r.capped);
			fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |", t->apps[a],
				r.label[i], ours, paper, s[0], s[1], q);
			if (beside) {
				char bs[32] = "-", bq[32] = "-";

				if (b_app >= 0 && (u < 0 || u == (int)i)) {
					snprintf(bs, 32, " ");
					snprintf(bq, 32, " ");
				} else if (b_app >= 0) {
					speedup_cell(bs, 32, rb.ours[u], rb.ours[i], 0, 0);
					ratio_cell(bq, 32, &rb, i, r.paper, r.capped);
				}
				fprintf(out, " %s | %s |", bs, bq);
			}
			fputc('\n', out);
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
	summary_row(ag, label, shown, size, &pc);
	counts_add(paper_all, &pc);
}

/* "1 GiB", "32 MiB": a card footprint */
static void foot_label(char *buf, size_t len, double bytes)
{
	if (bytes >= 1 << 30)
		snprintf(buf, len, "%g GiB", bytes / (1 << 30));
	else
		snprintf(buf, len, "%g MiB", bytes / (1 << 20));
}

static void card_counts_add(struct card_counts *to, const struct card_counts *c)
{
	to->close += c->close;
	to->spread += c->spread;
	to->cells += c->cells;
	to->agree += c->agree;
	to->pairs += c->pairs;
	to->same += c->same;
	to->orders += c->orders;
	to->picked += c->picked;
	to->apps += c->apps;
}

static void card_summary_row(FILE *out, const char *foot, const struct card_counts *c)
{
	char b[5][32];

	fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", foot,
		n_of(b[0], 32, c->close, c->cells), n_of(b[1], 32, c->spread, c->cells),
		n_of(b[2], 32, c->agree, c->pairs), n_of(b[3], 32, c->same, c->orders),
		n_of(b[4], 32, c->picked, c->apps));
}

/* The variants v[0..n) joined by sep, or "-" */
static void print_variants(FILE *out, const int *v, int n, const char *sep)
{
	int i;

	for (i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? sep : "", card_variants[v[i]]);
	if (!n)
		fputc('-', out);
}

/*
 * One app's order at one footprint: the card's and the testbed's, whether
 * they agree, its pairs and the fastest variant, into out; counted in cc.
 */
static void card_app_order(const struct agreement *ag, size_t a, size_t fi, FILE *out,
			   struct card_counts *cc)
{
	const struct card_cell *c = ag->card->c[a][fi];
	const struct card_run *m = ag->tb->m[a][fi];
	double spread = ag->card->median_spread, card_ms[CARD_NVARIANTS], tb_ms[CARD_NVARIANTS];
	int card_order[CARD_NVARIANTS], tb_order[CARD_NVARIANTS];
	int card_fast[CARD_NVARIANTS], tb_fast[CARD_NVARIANTS], ncf = 0, ntf = 0, v, picked;
	unsigned int agree, pairs = card_order_pairs(c, m, spread, &agree);
	char b[32];

	for (v = 0; v < CARD_NVARIANTS; v++) {
		card_ms[v] = c[v].ms;
		tb_ms[v] = m[v].ms;
	}
	cc->pairs += pairs;
	cc->agree += agree;
	fprintf(out, "| %s | ", ag->card->apps[a]);
	if (!card_rank(card_ms, card_order) || !card_rank(tb_ms, tb_order)) {
		fprintf(out, "- | - | - | %s | - | - | - |\n", n_of(b, sizeof(b), agree, pairs));
		return;
	}
	/* fastest: the card's least and what it cannot tell from it; the testbed's least */
	for (v = 0; v < CARD_NVARIANTS; v++) {
		if (card_tied(c, card_order[0], card_order[v], spread))
			card_fast[ncf++] = card_order[v];
		if (tb_ms[tb_order[v]] == tb_ms[tb_order[0]])
			tb_fast[ntf++] = tb_order[v];
	}
	picked = 1;
	for (v = 0; v < ntf; v++)
		picked &= card_tied(c, card_order[0], tb_fast[v], spread);
	cc->orders++;
	cc->same += card_order_agrees(c, m, spread);
	cc->apps++;
	cc->picked += picked;

	card_print_order(out, card_order, c, NULL, spread);
	fprintf(out, " | ");
	card_print_order(out, tb_order, NULL, tb_ms, 0);
	fprintf(out, " | %s | %s | ", card_order_agrees(c, m, spread) ? "yes" : "no",
		n_of(b, sizeof(b), agree, pairs));
	print_variants(out, card_fast, ncf, " ~ ");
	fprintf(out, " | ");
	print_variants(out, tb_fast, ntf, " = ");
	fprintf(out, " | %s |\n", picked ? "yes" : "no");
}

/* One section: the card's cells at one footprint beside the testbed's runs of them. */
static void card_section(struct agreement *ag, size_t fi, FILE *summary, struct card_counts *all)
{
	const struct card_set *k = ag->card;
	struct card_counts cc = { 0 };
	FILE *out = ag->body, *apps;
	char *apps_text = NULL, foot[32], b[5][32];
	size_t apps_len = 0, a;
	int v;

	apps = open_memstream(&apps_text, &apps_len);
	if (!apps)
		return;
	foot_label(foot, sizeof(foot), k->foots[fi]);
	fprintf(out, "\n## The card at %s (%s)\n\n", foot, base_name(ag->args->card_testbed));
	fprintf(out, "| app | variant | card ms | runs | card spread | testbed ms | "
		"testbed / card | speedup over uvm: card | testbed |\n"
		"|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
	fprintf(apps, "| app | order: card | testbed | as the card's | pairs in the card's order "
		"| fastest: card | testbed | the same |\n"
		"|---|---|---|---|--:|---|---|---|\n");
	for (a = 0; a < k->napps; a++) {
		const struct card_cell *c = k->c[a][fi];
		const struct card_run *m = ag->tb->m[a][fi];
		int any = 0;

		for (v = 0; v < CARD_NVARIANTS; v++)
			any |= c[v].ms || m[v].ms;
		if (!any)
			continue;
		for (v = 0; v < CARD_NVARIANTS; v++) {
			char card[32], runs[16], spread[32], tb[32], q[32], s[2][32];

			snprintf(card, sizeof(card), "-");
			snprintf(runs, sizeof(runs), "%d", c[v].nruns);
			snprintf(spread, sizeof(spread), "-");
			snprintf(tb, sizeof(tb), "-");
			snprintf(q, sizeof(q), "-");
			snprintf(s[0], 32, " ");
			snprintf(s[1], 32, " ");
			if (c[v].ms)
				snprintf(card, sizeof(card), "%.2f%s", c[v].ms, c[v].ok ? "" : "!");
			if (c[v].spread >= 0)
				snprintf(spread, sizeof(spread), "%.1f %%", c[v].spread * 100);
			if (m[v].ms)
				snprintf(tb, sizeof(tb), "%.2f%s", m[v].ms, m[v].ok ? "" : "!");
			if (c[v].ms && m[v].ms) {
				double r = m[v].ms / c[v].ms;
				int close = fabs(r - 1) <= CARD_TOLERANCE;
				int in_spread = close ||
					fabs(r - 1) <= card_cell_spread(&c[v], k->median_spread);

				snprintf(q, sizeof(q), "%.2f%s", r,
					 close ? " ✓" : in_spread ? " ✓ (spread)" : "");
				cc.cells++;
				cc.close += close;
				cc.spread += in_spread;
			}
			if (v) {
				speedup_cell(s[0], 32, c[0].ms, c[v].ms, 0, 0);
				speedup_cell(s[1], 32, m[0].ms, m[v].ms, 0, 0);
			}
			fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k->apps[a],
				card_variants[v], card, runs, spread, tb, q, s[0], s[1]);
		}
		card_app_order(ag, a, fi, apps, &cc);
	}
	fclose(apps);
	fprintf(out, "\n%s", apps_text);
	free(apps_text);
	fprintf(out, "\nAgainst the card: %s cells within %.0f %% (%s within it or the card's "
		"spread), %s variant pairs in its order, its order in %s apps, its fastest "
		"variant in %s apps.\n", n_of(b[0], 32, cc.close, cc.cells), CARD_TOLERANCE * 100,
		n_of(b[1], 32, cc.spread, cc.cells), n_of(b[2], 32, cc.agree, cc.pairs),
		n_of(b[3], 32, cc.same, cc.orders), n_of(b[4], 32, cc.picked, cc.apps));
	card_summary_row(summary, foot, &cc);
	card_counts_add(all, &cc);
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

/*
 * Where the drivers differ: every cell run on ember.ko and on nvidia-uvm
 * (the same app, factor, variant and seed), each driver's speedup over
 * its own stock UVM, and for the cells whose two speedups are more than
 * TOLERANCE apart, the device's and the driver's counters of the two
 * variant runs side by side (nvidia-uvm's over ember.ko's), the largest
 * ratio named: what the two drivers did differently in that cell.
 */
#define DIFF_COUNTERS(X)						\
	X("driver CPU", device, cpu_measured_ns)			\
	X("fault entries", device, fault_entries)			\
	X("bytes to the GPU", device, bytes_h2d)			\
	X("bytes to the host", device, bytes_d2h)			\
	X("notifications", device, notifications)			\
	X("evictions", run, evictions)

struct drv_run {
	json_t *o;
	double ms;
};

static double run_ms(json_t *o)
{
	json_t *r = json_object_get(o, "run");

	return (json_number_value(json_object_get(r, "sim_ns")) +
		json_number_value(json_object_get(r, "setup_ns"))) / 1e6;
}

static bool run_ok(json_t *o)
{
	const char *st = json_string_value(json_object_get(o, "status"));

	return st && !strcmp(st, "ok") && run_ms(o) > 0;
}

/* The ok run of driver for the cell of o under variant, or NULL. */
static json_t *run_of(json_t *runs, json_t *o, const char *driver, const char *variant)
{
	static const char *const same[] = { "app", "factor", "seed", "profile" };
	json_t *r;
	size_t i, k;

	json_array_foreach(runs, i, r) {
		const char *d = json_string_value(json_object_get(r, "driver"));
		const char *v = json_string_value(json_object_get(r, "variant"));

		if (!d || !v || strcmp(d, driver) || strcmp(v, variant) || !run_ok(r))
			continue;
		for (k = 0; k < sizeof(same) / sizeof(same[0]); k++)
			if (!json_equal(json_object_get(r, same[k]), json_object_get(o, same[k])))
				break;
		if (k == sizeof(same) / sizeof(same[0]))
			return r;
	}
	return NULL;
}

static double counter(json_t *o, const char *part, const char *name)
{
	return json_number_value(json_object_get(json_object_get(o, part), name));
}

/* How far a counter ratio is from 1 either way; a counter gone is farthest. */
static double departure(double ratio)
{
	return ratio < 0 ? -1 : ratio == 0 ? INFINITY : fabs(log(ratio));
}

static void drivers_section(json_t *runs, FILE *out)
{
	static const char *const names[] = {
#define DIFF_NAME(label, part, field) label,
		DIFF_COUNTERS(DIFF_NAME)
#undef DIFF_NAME
	};
	unsigned int cells = 0, apart = 0;
	json_t *o;
	size_t i;

	fprintf(out, "\n## Where the drivers differ\n\n"
		"Every cell run on both drivers (the same application, factor, variant and "
		"seed): each driver's speedup over its own stock UVM, and their ratio "
		"(nvidia-uvm's over ember.ko's). A cell is **apart** when the ratio is "
		"outside %.0f %%; for those, nvidia-uvm's over ember.ko's: the stock UVM "
		"run's time (`uvm time`) and the variant run's (`time`), which say on "
		"which side of the speedup the drivers part, then the variant runs' "
		"counters (`-`: zero on ember.ko), the counter departing most from 1 in "
		"bold (`driver CPU`: the measured driver time, `cpu_measured_ns`).\n\n"
		"| app | factor | variant | ember.ko | nvidia-uvm | ratio | uvm time | time |",
		TOLERANCE * 100);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fprintf(out, " %s |", names[i]);
	fprintf(out, "\n|---|--:|---|--:|--:|--:|--:|--:|");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fprintf(out, "--:|");
	fputc('\n', out);
	json_array_foreach(runs, i, o) {
		const char *d = json_string_value(json_object_get(o, "driver"));
		const char *v = json_string_value(json_object_get(o, "variant"));
		json_t *n, *ue, *un;
		double se, sn, q, ratios[sizeof(names) / sizeof(names[0])];
		size_t k, big = 0;

		if (!d || !v || strcmp(d, "ember") || !strcmp(v, "uvm") || !run_ok(o))
			continue;
		n = run_of(runs, o, "nvidia-uvm", v);
		ue = run_of(runs, o, "ember", "uvm");
		un = run_of(runs, o, "nvidia-uvm", "uvm");
		if (!n || !ue || !un)
			continue;
		se = run_ms(ue) / run_ms(o);
		sn = run_ms(un) / run_ms(n);
		q = sn / se;
		cells++;
		fprintf(out, "| %s | %gx | %s | %.2f | %.2f | %.2f%s |",
			json_string_value(json_object_get(o, "app")),
			json_number_value(json_object_get(o, "factor")), v, se, sn, q,
			within(q) ? "" : " apart");
		if (within(q)) {
			for (k = 0; k < 2 + sizeof(names) / sizeof(names[0]); k++)
				fprintf(out, " |");
			fputc('\n', out);
			continue;
		}
		apart++;
		fprintf(out, " %.2f | %.2f |", run_ms(un) / run_ms(ue), run_ms(n) / run_ms(o));
		k = 0;
#define DIFF_RATIO(label, part, field)						\
		ratios[k++] = counter(o, #part, #field) > 0 ?				\
			counter(n, #part, #field) / counter(o, #part, #field) : -1;
		DIFF_COUNTERS(DIFF_RATIO)
#undef DIFF_RATIO
		for (k = 1; k < sizeof(names) / sizeof(names[0]); k++)
			if (departure(ratios[k]) > departure(ratios[big]))
				big = k;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			if (ratios[k] < 0)
				fprintf(out, " - |");
			else
				fprintf(out, k == big ? " **%.2f** |" : " %.2f |", ratios[k]);
		}
		fputc('\n', out);
	}
	fprintf(out, "\n%u cells on both drivers, %u of them apart.\n", cells, apart);
}

/* The page's opening: what it is and how each figure is defined. */
static void print_head(const struct agreement *ag, const char *png, FILE *out)
{
	const struct em_agreement_args *args = ag->args;
	size_t i;

	fprintf(out, "# %s\n\n"
		"<!-- generated by ember-agent agreement (host-agent/report_agreement.c); "
		"do not edit -->\n\n"
		"The testbed's results (", args->title ?: "Agreement with the paper and the card");
	for (i = 0; i < args->ndirs; i++)
		fprintf(out, "%s`%s`", i ? ", " : "", args->dirs[i]);
	fprintf(out, ") beside the paper's figures (`%s`)", args->paper_csv);
	if (ag->card) {
		fprintf(out, "; the testbed's runs of the card's cells (`%s`, profile `%s` "
			"scaled 1/%g) beside the card's measurements (", args->card_testbed,
			ag->tb->profile[0] ? ag->tb->profile : "none", args->card_scale);
		for (i = 0; i < args->ncards; i++)
			fprintf(out, "%s`%s`", i ? ", " : "", args->cards[i]);
		fprintf(out, ")");
	}
	fprintf(out, ".\n\n");
	if (ag->traces)
		fprintf(out, "Rows \"the paper's programs\" are the paper's own programs, captured on "
			"a card and replayed (`trace:FILE`: its accesses at the footprint the file "
			"names; the set's traces.tsv names each trace's folder and card, and the "
			"folder's PROVENANCE.md the command that captured it), each beside the "
			"built-in app of "
			"its name in the same set; a factor's label names the paper's column it "
			"compares with (the H200's \"~1.5x\" inputs were 1.0x of its memory: "
			"docs/paper-inputs.md)%s%s%s%s%s.\n\n",
			args->programs_page ? "; their page: [" : "",
			args->programs_page ?: "", args->programs_page ? "](" : "",
			args->programs_page ?: "", args->programs_page ? ")" : "");
	if (!ag->card && args->card_testbed)
		fprintf(out, "No part for the card: its cells' result set, `%s`, was not made "
			"(`make figures FIGURES=compare-card` makes it).\n\n",
			args->card_testbed);
	fprintf(out,
		"Against the paper:\n\n"
		"- A **cell** is one application under one variant at one factor of device "
		"memory on one driver. Its figure is the speedup over stock UVM on the same "
		"driver: UVM's time over the variant's. The testbed's time is the whole "
		"modelled run (setup and kernels) on the scaled card, in ms; the paper's is "
		"its runtime in seconds in the column of the profile's GPU (`>`: the run hit "
		"the paper's cap, so the time is a lower bound).\n"
		"- **`nvidia-uvm` on `P`**: NVIDIA's nvidia-uvm, its runs on emgpu's "
		"personality P (result.json's `personality`): `gh100`, a Hopper GH100, "
		"nvidia-uvm's Hopper HAL (MMU VER3); `ga10x`, an Ampere GA102, its Ampere "
		"HAL; `personality not recorded`: runs from before results named it.\n"
		"- **Within %.0f %%**: |testbed speedup / their speedup - 1| <= %.2f (marked "
		"✓). UVM's own row is not a cell, and a cell whose time or UVM's time the "
		"paper gives only as a bound is not counted.\n"
		"- **Pairs in order**: every pair of variants of an application that the "
		"paper orders (not both capped, not equal) agrees when the testbed orders it "
		"the same way; a pair the testbed times equal does not agree "
		"(`ember-agent report`'s order count).\n"
		"- **Fastest**: the variants of least time; the testbed picks theirs when "
		"every variant it times fastest is one they time fastest. Judged where the "
		"testbed timed every variant they give and their least time is not a bound.\n\n",
		TOLERANCE * 100, TOLERANCE);
	if (ag->card)
		fprintf(out,
			"Against the card (as `compare-card` compares them):\n\n"
			"- A **card cell** is one application under one of the four program "
			"variants (the card ran no Ember-adaptive) at one footprint. The card's "
			"time is the median of its runs of the application's latest kernels, in "
			"ms (`!`: a run not verified), its spread the slowest run over the "
			"fastest, less one (`-`: one run). The testbed ran the footprint and the "
			"card's memory both divided by the scale; its time is scaled back: the "
			"scale x (the modelled ms - launches x launch_ns) + launches x launch_ns "
			"(`!`: a run that failed or did not verify).\n"
			"- **Within %.0f %%**: |testbed ms / card ms - 1| <= %.2f (✓); **or its "
			"spread**: or no more than the cell's spread, taken at least as the "
			"median spread of the card's repeated cells (✓ (spread)).\n"
			"- **Tied on the card** (`~`): two variants whose medians differ by no "
			"more than the larger spread of their two cells, each at least the "
			"median spread.\n"
			"- **Pairs in the card's order**: every pair of variants both timed that "
			"the card orders (not tied) agrees when the testbed orders it the same "
			"way; one the testbed times equal does not. **Its order**: every such "
			"pair of the application at that footprint in the card's order, a tie "
			"either way. **Fastest**: every variant the testbed times fastest is tied "
			"on the card with the card's fastest. Both judged where the card and the "
			"testbed timed all four.\n\n",
			CARD_TOLERANCE * 100, CARD_TOLERANCE);
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
	json_t *runs = json_array();	/* every set's runs, for drivers_section() */
	FILE *out;
	int rc = 0;

	if (!ag || !runs) {
		free(ag);
		json_decref(runs);
		return 1;
	}
	ag->args = args;
	ag->unit = rep_paper_unit_of(args->paper_csv);
	/* the plot beside the page: its name with .png for its extension */
	snprintf(png, sizeof(png), "%.*s.png",
		 (int)(strrchr(base_name(args->page), '.') ? strrchr(args->page, '.') - args->page :
		       (ptrdiff_t)strlen(args->page)), args->page);
	/* the card's part: its rows, and the testbed's runs of them */
	if (args->ncards) {
		ag->card = calloc(1, sizeof(*ag->card));
		ag->tb = calloc(1, sizeof(*ag->tb));
		if (!ag->card || !ag->tb || !args->card_testbed || args->card_scale <= 0) {
			rc = 1;
			goto out;
		}
		card_set_app_order(ag->card);
		if (card_set_load(ag->card, args->cards, args->ncards) ||
		    card_testbed_load(args->card_testbed, args->card_scale, ag->card, ag->tb) < 0) {
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
		"pairs in the paper's order | fastest as the paper's |\n"
		"|---|---|---|--:|--:|--:|\n", TOLERANCE * 100);
	for (d = 0; d < args->ndirs; d++) {
		struct table *t = calloc(1, sizeof(*t));
		char drivers[MAX_COLUMNS][16];
		size_t ndrivers = 0, k, traces;
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
		/* a set of traces and built-in apps: each counted apart */
		for (i = 0, traces = 0; i < t->napps; i++)
			traces += is_trace(t->apps[i]);
		ag->traces |= traces > 0;
		for (k = 0; k < ndrivers; k++) {
			enum app_kind kinds[2] = { APPS_ALL }, *kind;
			size_t nkinds = 1;

			if (traces && traces < t->napps) {
				kinds[0] = APPS_TRACES;
				kinds[1] = APPS_BUILT_IN;
				nkinds = 2;
			}
			rep_paper_driver(t, drivers[k]);
			for (kind = kinds; kind < kinds + nkinds; kind++) {
				struct counts p = { 0 };
				char label[96], shown[64];

				for (f = 0; f < t->nfactors; f++)
					agree_section(ag, t, set, drivers[k], f, *kind, &p);
				snprintf(label, sizeof(label), "%s%s", set, app_kind_label[*kind]);
				driver_label(shown, sizeof(shown), t, drivers[k]);
				if (t->nfactors > 1)
					summary_row(ag, label, shown, "all", &p);
			}
		}
		json_array_extend(runs, all);
		json_decref(all);
		free(t);
	}
	drivers_section(runs, ag->body);
	if (ag->card) {
		struct card_counts all = { 0 };

		fprintf(ag->summary, "\n| footprint on the card | within %.0f %% of the card | "
			"or its spread | pairs in the card's order | its order | fastest as the "
			"card's |\n|---|--:|--:|--:|--:|--:|\n", CARD_TOLERANCE * 100);
		for (f = 0; f < ag->card->nfoots; f++)
			card_section(ag, f, ag->summary, &all);
		if (ag->card->nfoots > 1)
			card_summary_row(ag->summary, "all", &all);
		fprintf(ag->summary, "\nThe card's run-to-run spread: median %.1f %% over %d "
			"repeated cells, largest %.1f %%.\n", ag->card->median_spread * 100,
			ag->card->repeated, ag->card->max_spread * 100);
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
	print_head(ag, png, out);
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
	json_decref(runs);
	free(ag->card);
	free(ag->tb);
	free(ag);
	return rc;
}
