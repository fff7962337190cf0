/* SPDX-License-Identifier: MIT */
/*
 * The testbed's runs of the card's cells (a compare-card matrix's
 * results.jsonl, experiments/matrices/compare-card.conf) beside the card's
 * measurements (card_results.h), cell by cell: app x footprint x variant.
 * Shared by compare-card (compare_card.c) and ember-agent agreement.
 *
 * The testbed runs the card scaled down by SCALE (VRAM and footprints both
 * divided by it, link and device bandwidths unchanged), so its per-byte
 * time is multiplied back by SCALE; launches are a per-launch cost and are
 * not: testbed ms = SCALE x (modelled ms - launches x launch_ns) +
 * launches x launch_ns, with the profile's launch_ns. A run is matched to
 * the card's cell whose footprint is SCALE x factor x VRAM (within 2 %).
 *
 * The testbed's order of the variants agrees with the card's when every
 * pair the card orders (not tied, card_tied()) is in the same order on the
 * testbed; a tie on the card counts either way.
 */
#ifndef EMBER_AGENT_CARD_COMPARE_H
#define EMBER_AGENT_CARD_COMPARE_H

#include <stdio.h>

#include "card_results.h"

#define CARD_TOLERANCE	0.25	/* a cell is close when |testbed / card - 1| <= this */

/* One testbed run of a card cell. */
struct card_run {
	double ms;	/* scaled back; 0: no run */
	int ok;		/* status ok, exit 0, no mismatch */
};

struct card_testbed {
	char profile[64];	/* the runs' profile ("": none matched) */
	struct card_run m[CARD_MAX_APPS][CARD_MAX_FOOTS][CARD_NVARIANTS];
};

/* The card's rows in workloads/app_list.h's order (before loading s). */
void card_set_app_order(struct card_set *s);

/*
 * Reads dir/results.jsonl's runs of card's cells into tb, scaled back by
 * scale (runs of an app, footprint or variant the card lacks, or of an
 * unknown profile, left out). The number of runs kept, or -1 with the
 * reason printed when the file cannot be read.
 */
int card_testbed_load(const char *dir, double scale, struct card_set *card,
		      struct card_testbed *tb);

/* The variants by ms[], fastest first, into order; 0 if a cell is missing. */
int card_rank(const double *ms, int *order);

/* Every pair the card orders is in the same order on the testbed. */
int card_order_agrees(const struct card_cell *c, const struct card_run *m,
		      double median_spread);

/*
 * The pairs of variants both timed that the card orders (not tied), and
 * in *agree those the testbed orders the same way (a pair it times equal
 * does not agree).
 */
unsigned int card_order_pairs(const struct card_cell *c, const struct card_run *m,
			      double median_spread, unsigned int *agree);

/*
 * The order of card_rank() ("static ~ prefetch < mapped < uvm"): with c, a
 * pair the card cannot tell apart joined by "~"; with ms, a pair of equal
 * times by "=".
 */
void card_print_order(FILE *out, const int *order, const struct card_cell *c,
		      const double *ms, double median_spread);

#endif /* EMBER_AGENT_CARD_COMPARE_H */
