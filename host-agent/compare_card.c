// SPDX-License-Identifier: MIT
/*
 * compare-card: the applications measured on a real card
 * (experiments/card-results/h200-apps.jsonl, tests/hw/apps.sh; read by
 * card_results.c) beside the same
 * applications, variants and footprints in the testbed (a matrix's
 * results.jsonl, experiments/matrices/compare-card.conf), per app x variant
 * x footprint: the card's ms, the model's ms and their ratio, each
 * variant's speedup over UVM on both, and the order of the variants; then
 * the closing counts.
 *
 * The card's rows come from one or more files (repeats): a cell's card ms
 * is the median of its runs of the app's latest kernel revision ("rev",
 * cuda/apps/ember_apps.cu; rows without one are rev 1). Two variants
 * are tied on the card when their medians differ by no more than the
 * larger run-to-run spread (slowest run / fastest - 1) of their two cells,
 * and never less than the median spread of all repeated cells (two runs
 * of a cell understate its spread; a cell run once has only that). The
 * model's order agrees with the card's when every pair the card orders
 * (not tied) is in the same order in the model; a tie on the card counts
 * either way. Printed beside it: the strict count (the orders of the
 * medians identical) and the spread itself.
 *
 * The testbed runs the card scaled down by SCALE (VRAM and footprints both
 * divided by it, link and device bandwidths unchanged), so its per-byte
 * time is multiplied back by SCALE; launches are a per-launch cost and are
 * not: model ms = SCALE x (modelled ms - launches x launch_ns) + launches x
 * launch_ns, with the profile's launch_ns. A testbed cell is matched to the
 * card's row whose footprint is SCALE x factor x VRAM (within 2 %).
 *
 * usage: compare-card RESULTS_DIR SCALE CARD_JSONL...
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "card_results.h"
#include "gpumodel/profile.h"

#define NVARIANTS	CARD_NVARIANTS
#define TOLERANCE	0.25	/* a cell is close when |model / card - 1| <= this */

static const char *const *const variants = card_variants;
/* rows in the paper's order, then gemv and colscan; others after them */
static const char *const app_order[] = {
	"pathfinder", "kmeans", "conv", "bitonic", "radix", "bfs", "gemv", "colscan",
};

struct model_cell {
	double ms;	/* 0: missing */
	int ok;		/* verified */
};

struct compare {
	struct card_set card;
	char profile[64];
	struct model_cell m[CARD_MAX_APPS][CARD_MAX_FOOTS][NVARIANTS];
};

/* Whether the card cannot tell variants x and y of cells c apart. */
static int card_tied(const struct card_cell *c, int x, int y, double median_spread)
{
	double sx = c[x].spread < median_spread ? median_spread : c[x].spread;
	double sy = c[y].spread < median_spread ? median_spread : c[y].spread;
	double lo = c[x].ms < c[y].ms ? c[x].ms : c[y].ms;
	double hi = c[x].ms < c[y].ms ? c[y].ms : c[x].ms;

	return hi / lo - 1 <= (sx > sy ? sx : sy);
}

/* Every pair the card orders is in the same order in the model. */
static int order_agrees(const struct card_cell *c, const struct model_cell *m,
			double median_spread)
{
	int x, y;

	for (x = 0; x < NVARIANTS; x++)
		for (y = 0; y < NVARIANTS; y++)
			if (c[x].ms < c[y].ms &&
			    !card_tied(c, x, y, median_spread) &&
			    !(m[x].ms < m[y].ms))
				return 0;
	return 1;
}

static int load_model(const char *dir, struct compare *t, double scale)
{
	struct gm_profile prof;
	char path[4096], *line = NULL;
	size_t cap = 0;
	FILE *f;
	json_t *o, *run;
	int a, fi, v, n = 0;

	snprintf(path, sizeof(path), "%s/results.jsonl", dir);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	while ((o = card_jsonl_next(f, &line, &cap))) {
		const char *profile = json_string_value(json_object_get(o, "profile"));
		const char *status = json_string_value(json_object_get(o, "status"));
		double vram, launches, ns;

		run = json_object_get(o, "run");
		v = card_variant_index(json_string_value(json_object_get(o, "variant")));
		a = card_app_index(&t->card, json_string_value(json_object_get(o, "app")) ?: "?", 0);
		vram = (double)json_integer_value(json_object_get(run, "vram"));
		fi = card_foot_index(&t->card,
				     scale * json_number_value(json_object_get(o, "factor")) * vram);
		if (v < 0 || a < 0 || fi < 0 || !profile || gm_profile_lookup(profile, &prof)) {
			json_decref(o);
			continue;
		}
		snprintf(t->profile, sizeof(t->profile), "%s", profile);
		launches = (double)json_integer_value(json_object_get(run, "launches"));
		ns = (double)json_integer_value(json_object_get(run, "sim_ns")) +
		     (double)json_integer_value(json_object_get(run, "setup_ns"));
		ns = scale * (ns - launches * prof.launch_ns) + launches * prof.launch_ns;
		t->m[a][fi][v].ms = ns / 1e6;
		t->m[a][fi][v].ok = status && !strcmp(status, "ok") &&
				    json_integer_value(json_object_get(run, "ret")) == 0 &&
				    json_integer_value(json_object_get(run, "mismatches")) == 0;
		n++;
		json_decref(o);
	}
	free(line);
	fclose(f);
	return n;
}

/* The variants by ms[], fastest first, into order; 0 if a cell is missing. */
static int rank(const double *ms, int *order)
{
	int i, j, k;

	for (i = 0; i < NVARIANTS; i++) {
		if (!ms[i])
			return 0;
		order[i] = i;
	}
	for (i = 1; i < NVARIANTS; i++)	/* insertion sort: four entries */
		for (j = i; j > 0; j--) {
			double x = ms[order[j]];
			double y = ms[order[j - 1]];

			if (x >= y)
				break;
			k = order[j];
			order[j] = order[j - 1];
			order[j - 1] = k;
		}
	return 1;
}

/* The order; with c, a pair the card cannot tell apart joined by "~". */
static void print_order(const int *order, const struct card_cell *c, double median_spread)
{
	int i;

	for (i = 0; i < NVARIANTS; i++)
		printf("%s%s", !i ? "" : c && card_tied(c, order[i - 1], order[i],
							 median_spread) ? " ~ " : " < ",
		       variants[order[i]]);
}

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
	for (a = 0; a < (int)(sizeof(app_order) / sizeof(app_order[0])); a++)
		card_app_index(&t.card, app_order[a], 1);
	if (card_set_load(&t.card, argv + 3, (size_t)(argc - 3)))
		return 1;
	spread = t.card.median_spread;
	if (load_model(argv[1], &t, scale) < 0)
		return 1;

	printf("Applications on the card (");
	for (i = 3; i < argc; i++)
		printf("%s%s", i > 3 ? ", " : "", argv[i]);
	printf(") and in the testbed (%s, scaled 1/%g)\n"
	       "card ms: the median of the runs (n) of the app's latest kernels; "
	       "model ms = %g x (modelled ms - launches x launch_ns) + launches x launch_ns;"
	       " ratio = model / card\n", t.profile, scale, scale);
	printf("%-11s %4s %-9s %10s  n %10s %6s   %s\n", "app", "GiB", "variant", "card ms",
	       "model ms", "ratio", "speedup over uvm: card [model]");
	for (a = 0; a < (int)t.card.napps; a++) {
		int app_same = 1, any = 0;

		for (fi = 0; fi < (int)t.card.nfoots; fi++)
			for (v = 0; v < NVARIANTS; v++)
				any |= t.card.c[a][fi][v].ms || t.m[a][fi][v].ms;
		if (!any)
			continue;

		for (fi = 0; fi < (int)t.card.nfoots; fi++) {
			const struct card_cell *c = t.card.c[a][fi];
			const struct model_cell *m = t.m[a][fi];
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
				close += fabs(ratio - 1) <= TOLERANCE;
			}
			if (rank(card_ms, card_order) && rank(model_ms, model_order)) {
				int eq = !memcmp(card_order, model_order, sizeof(card_order));
				int agrees = order_agrees(c, m, spread);

				printf("%-11s %4g order: card ", t.card.apps[a],
				       t.card.foots[fi] / (1 << 30));
				print_order(card_order, c, spread);
				printf("; model %s", eq ? "the same" : "");
				if (!eq) {
					print_order(model_order, NULL, 0);
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
	       close, cells, TOLERANCE * 100, same, orders, strict, apps_same, napps);
	return 0;
}
