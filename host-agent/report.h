/* SPDX-License-Identifier: MIT */
#ifndef EMBER_AGENT_REPORT_H
#define EMBER_AGENT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Prints (and writes to <dir>/table.txt) the speedup-over-UVM tables of the
 * matrix in dir, beside the paper's table (paper_csv, may be NULL: one of
 * experiments/paper/table*.csv), each cell's order of the variants against
 * the paper's and a summary line per size, and
 * with draw, renders <dir>/speedup-<factor>x.png with gnuplot. A column is
 * a variant under one policy at one sweep point and seed; a cell that two
 * runs claim shows neither and is named as an error. 0, or 1 (a cell of
 * two runs, a plot that failed, no results).
 */
int em_report(const char *dir, const char *paper_csv, bool draw);

/* ember-agent agreement's inputs (report_agreement.c) */
struct em_agreement_args {
	char *const *dirs;	/* results directories, each a results.jsonl */
	size_t ndirs;
	const char *paper_csv;	/* the paper's table (experiments/paper/table4.csv) */
	char *const *cards;	/* the card's runs (experiments/card-results/h200-apps*.jsonl) */
	size_t ncards;
	const char *card_testbed; /* the testbed's runs of the card's cells (compare-card's) */
	double card_scale;	/* by which they were scaled down (compare-card's SCALE) */
	const char *causes;	/* Markdown appended to the page verbatim, or NULL */
	const char *page;	/* the page written; the plot beside it, .png for its extension */
	const char *plot_href;	/* how the page links the plot (NULL: its file name) */
	const char *title;	/* the page's heading (NULL: "Agreement with the paper and the card") */
	const char *programs_page; /* the paper's programs' page, linked where a set has traces */
	bool draw;
};

/*
 * Writes the agreement page: per results directory, driver and factor,
 * every cell (app x variant) of the testbed beside the paper's, the counts
 * (cells within 25 %, variant pairs in the paper's order, the fastest
 * variant picked); with cards, per footprint every card cell beside the
 * testbed's run of it in card_testbed, scaled back by card_scale, and the
 * counts against the card (card_compare.h); then the causes; with draw,
 * the plot of testbed against paper per cell. Prints the counts (the
 * page's summary tables). 0, or 1 (a directory or file unreadable, cards
 * without card_testbed and card_scale, a cell of two runs, a plot that
 * failed).
 */
int em_agreement(const struct em_agreement_args *args);

#endif /* EMBER_AGENT_REPORT_H */
