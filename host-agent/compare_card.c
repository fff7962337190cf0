// SPDX-License-Identifier: MIT
/*
 * compare-card: the applications measured on a real card
 * (experiments/card-results/h200-apps.jsonl, tests/hw/apps.sh; read by
 * card_results.c) beside the same applications, variants and footprints in
 * the testbed (a matrix's results.jsonl, experiments/matrices/
 * compare-card.conf; read and scaled back by card_compare.c), per app x
 * variant x footprint: the card's ms, the model's ms and their ratio, each
 * variant's speedup over UVM on both, and the order of the variants; then
 * the closing counts.
 *
 * The card's rows come from one or more files (repeats): a cell's card ms
 * is the median of its runs of the app's latest kernel revision. Two
 * variants tied on the card (card_results.h) count either way in the
 * order (card_compare.h); printed beside it: the strict count (the orders
 * of the medians identical) and the spread itself.
 *
 * usage: compare-card RESULTS_DIR SCALE CARD_JSONL...
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card_compare.h"
#include "card_results.h"

#define NVARIANTS	CARD_NVARIANTS

static const char *const *const variants = card_variants;

struct compare {
	struct card_set card;
	struct card_testbed tb;
};

/* ms, "!" when its run was not verified; "-" when there is none */
static void print_ms(double ms, int ok)
{
	if (ms)
		printf("%10.2f%s", ms, ok ? " " : "!");
	else
		printf("%10s ", "-");
}

int main(int argc, char **argv)
{
	static struct compare t;
	int a, fi, v, card_order[NVARIANTS], model_order[NVARIANTS];
	int cells = 0, close = 0, orders = 0, same = 0, strict = 0, apps_same = 0;
	int napps = 0, i;
	double scale, spread;

	if (argc < 4 || (scale = strtod(argv[2], NULL)) <= 0) {
		fprintf(stderr, "usage: compare-card RESULTS_DIR SCALE CARD_JSONL...\n");
		return 2;
	}
	card_set_app_order(&t.card);
	if (card_set_load(&t.card, argv + 3, (size_t)(argc - 3)))
		return 1;
	spread = t.card.median_spread;
	if (card_testbed_load(argv[1], scale, &t.card, &t.tb) < 0)
		return 1;

	printf("Applications on the card (");
	for (i = 3; i < argc; i++)
		printf("%s%s", i > 3 ? ", " : "", argv[i]);
	printf(") and in the testbed (%s, scaled 1/%g)\n"
	       "card ms: the median of the runs (n) of the app's latest kernels; "
	       "model ms = %g x (modelled ms - launches x launch_ns) + launches x launch_ns;"
	       " ratio = model / card\n", t.tb.profile, scale, scale);
	printf("%-11s %4s %-9s %10s  n %10s %6s   %s\n", "app", "GiB", "variant", "card ms",
	       "model ms", "ratio", "speedup over uvm: card [model]");
	for (a = 0; a < (int)t.card.napps; a++) {
		int app_same = 1, any = 0;

		for (fi = 0; fi < (int)t.card.nfoots; fi++)
			for (v = 0; v < NVARIANTS; v++)
				any |= t.card.c[a][fi][v].ms || t.tb.m[a][fi][v].ms;
		if (!any)
			continue;

		for (fi = 0; fi < (int)t.card.nfoots; fi++) {
			const struct card_cell *c = t.card.c[a][fi];
			const struct card_run *m = t.tb.m[a][fi];
			double card_ms[NVARIANTS], model_ms[NVARIANTS];

			for (v = 0; v < NVARIANTS; v++) {
				double ratio = c[v].ms && m[v].ms ? m[v].ms / c[v].ms : 0;

				card_ms[v] = c[v].ms;
				model_ms[v] = m[v].ms;
				printf("%-11s %4g %-9s ", t.card.apps[a], t.card.foots[fi] / (1 << 30),
				       variants[v]);
				print_ms(c[v].ms, c[v].ok);
				printf("%2d", c[v].nruns);
				print_ms(m[v].ms, m[v].ok);
				if (!ratio) {
					printf(" %6s\n", "-");
					continue;
				}
				printf(" %6.2f", ratio);
				if (c[0].ms && m[0].ms)
					printf("   %6.2f [%6.2f]", c[0].ms / c[v].ms,
					       m[0].ms / m[v].ms);
				putchar('\n');
				cells++;
				close += fabs(ratio - 1) <= CARD_TOLERANCE;
			}
			if (card_rank(card_ms, card_order) && card_rank(model_ms, model_order)) {
				int eq = !memcmp(card_order, model_order, sizeof(card_order));
				int agrees = card_order_agrees(c, m, spread);

				printf("%-11s %4g order: card ", t.card.apps[a],
				       t.card.foots[fi] / (1 << 30));
				card_print_order(stdout, card_order, c, NULL, spread);
				printf("; model %s", eq ? "the same" : "");
				if (!eq) {
					card_print_order(stdout, model_order, NULL, NULL, 0);
					printf(" (%s)", agrees ? "agrees" : "differs");
				}
				putchar('\n');
				orders++;
				same += agrees;
				strict += eq;
				app_same &= agrees;
			} else {
				app_same = 0;
			}
		}
		apps_same += app_same;
		napps++;
	}
	printf("card run-to-run spread (slowest / fastest run - 1): median %.1f%% over %d "
	       "repeated cells, largest %.1f%%; ~ = tied on the card (within the larger "
	       "spread of the two cells, at least the median)\n", spread * 100, t.card.repeated,
	       t.card.max_spread * 100);
	printf("%d of %d cells within %.0f%% of the card; variant order as on the card in "
	       "%d of %d app x footprint (ties either way; %d with the medians' order "
	       "exactly), at every footprint for %d of %d apps (! = not verified)\n",
	       close, cells, CARD_TOLERANCE * 100, same, orders, strict, apps_same, napps);
	return 0;
}
