/* SPDX-License-Identifier: MIT */
/*
 * The applications measured on a real card (experiments/card-results/
 * h200-apps*.jsonl, written by tests/hw/apps.sh): a cell per app,
 * footprint and program variant, its runs, their median and spread. Read
 * by compare-card (compare_card.c) and ember-agent agreement.
 *
 * The rows come from one or more files (repeats): a cell's ms is the
 * median of its runs of the app's latest kernel revision ("rev",
 * cuda/apps/ember_apps.cu; rows without one are rev 1). A row of an app,
 * footprint or variant outside the limits below is left out.
 *
 * Two variants are tied on the card when their medians differ by no more
 * than the larger run-to-run spread (slowest run / fastest - 1) of their
 * two cells, and never less than the median spread of all repeated cells
 * (two runs of a cell understate its spread; a cell run once has only
 * that).
 */
#ifndef EMBER_AGENT_CARD_RESULTS_H
#define EMBER_AGENT_CARD_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#define CARD_MAX_APPS		16
#define CARD_MAX_FOOTS		8
#define CARD_NVARIANTS		4
#define CARD_MAX_RUNS		8	/* runs of one cell */

/* the card's variants: the paper's four program variants (userspace/variants.h) */
extern const char *const card_variants[CARD_NVARIANTS];

struct card_cell {
	double ms;			/* the runs' median; 0: no run */
	int ok;				/* every run verified */
	double runs[CARD_MAX_RUNS];	/* ms, sorted once the set is loaded */
	int nruns;
	double spread;			/* slowest / fastest run - 1; -1: one run */
};

struct card_set {
	char apps[CARD_MAX_APPS][32];
	int rev[CARD_MAX_APPS];		/* the latest kernel revision seen */
	size_t napps;
	double foots[CARD_MAX_FOOTS];	/* footprints in bytes, ascending */
	size_t nfoots;
	struct card_cell c[CARD_MAX_APPS][CARD_MAX_FOOTS][CARD_NVARIANTS];
	/* the median spread of the cells run more than once (0 if none),
	 * their number and the largest spread */
	double median_spread, max_spread;
	int repeated;
};

/* v's index in card_variants, or -1 (also for NULL). */
int card_variant_index(const char *v);
/* app's index in s; with add, added when new (-1 when full). */
int card_app_index(struct card_set *s, const char *app, int add);
/* The footprint within 2 % of bytes, or -1. */
int card_foot_index(const struct card_set *s, double bytes);

/* The next object of a JSON-lines file, skipping comment lines; NULL at the end. */
json_t *card_jsonl_next(FILE *f, char **line, size_t *cap);

/*
 * Reads the rows of paths[0..n) into s (apps already in s keep their
 * place, new ones follow in the order they come); 0, or -1 with the
 * reason printed when a file cannot be read.
 */
int card_set_load(struct card_set *s, char *const *paths, size_t n);

/* A cell's spread as ties take it: its own, at least the set's median. */
double card_cell_spread(const struct card_cell *c, double median_spread);
/* Whether the card cannot tell variants x and y of cells c (one app and footprint) apart. */
int card_tied(const struct card_cell *c, int x, int y, double median_spread);

#endif /* EMBER_AGENT_CARD_RESULTS_H */
