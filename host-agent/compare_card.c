// SPDX-License-Identifier: MIT
/*
 * compare-card: the applications measured on a real card
 * (experiments/card-results/h200-apps.jsonl, tests/hw/apps.sh) beside the same
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

#include "gpumodel/profile.h"
#include "variants.h"

#define MAX_APPS	16
#define MAX_FOOTS	8
#define NVARIANTS	4
#define TOLERANCE	0.25	/* a cell is close when |model / card - 1| <= this */
#define MAX_RUNS	8	/* card runs of one cell */

/* the paper's four program variants (userspace/variants.h), the card's */
#define CARD_VARIANT(name, table3)	EM_IF_TABLE3(table3, #name,)
static const char *const variants[] = { EM_PROGRAM_VARIANTS(CARD_VARIANT) };
#undef CARD_VARIANT
_Static_assert(sizeof(variants) / sizeof(variants[0]) == NVARIANTS, "NVARIANTS");
/* rows in the paper's order, then gemv and colscan; others after them */
static const char *const app_order[] = {
	"pathfinder", "kmeans", "conv", "bitonic", "radix", "bfs", "gemv", "colscan",
};

struct cell {
	double card_ms, model_ms;	/* 0: missing; card: the runs' median */
	int card_ok, model_ok;		/* verified (card: every run) */
	double runs[MAX_RUNS];		/* the card's runs, ms */
	int nruns;
	double spread;			/* slowest / fastest run - 1; -1: one run */
};

struct compare {
	char apps[MAX_APPS][32];
	int rev[MAX_APPS];		/* the latest kernel revision seen */
	size_t napps;
	double foots[MAX_FOOTS];	/* card footprints, bytes */
	size_t nfoots;
	char profile[64];
	struct cell c[MAX_APPS][MAX_FOOTS][NVARIANTS];
};

static int variant_index(const char *v)
{
	int i;

	for (i = 0; v && i < NVARIANTS; i++)
		if (!strcmp(v, variants[i]))
			return i;
	return -1;
}

static int app_index(struct compare *t, const char *app, int add)
{
	size_t i;

	for (i = 0; i < t->napps; i++)
		if (!strcmp(t->apps[i], app))
			return (int)i;
	if (!add || t->napps == MAX_APPS)
		return -1;
	snprintf(t->apps[t->napps], sizeof(t->apps[0]), "%s", app);
	return (int)t->napps++;
}

/* The card's footprint slot within 2 % of bytes; adds it if asked. */
static int foot_index(struct compare *t, double bytes, int add)
{
	size_t i;

	for (i = 0; i < t->nfoots; i++)
		if (fabs(t->foots[i] - bytes) <= 0.02 * t->foots[i])
			return (int)i;
	if (!add || t->nfoots == MAX_FOOTS)
		return -1;
	t->foots[t->nfoots] = bytes;
	return (int)t->nfoots++;
}

static json_t *next_object(FILE *f, char **line, size_t *cap)
{
	json_t *o;

	while (getline(line, cap, f) > 0) {
		if (**line != '{')
			continue;	/* comments */
		o = json_loads(*line, 0, NULL);
		if (json_is_object(o))
			return o;
		json_decref(o);
	}
	return NULL;
}

/*
 * The card's rows of path: pass 0 learns apps, footprints and each app's
 * latest revision; pass 1 keeps the runs of that revision.
 */
static int load_card(const char *path, struct compare *t, int pass)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	json_t *o;
	int a, fi, v;

	if (!f) {
		perror(path);
		return -1;
	}
	while ((o = next_object(f, &line, &cap))) {
		json_t *r = json_object_get(o, "rev");
		int rev = r ? (int)json_integer_value(r) : 1;
		struct cell *c;

		v = variant_index(json_string_value(json_object_get(o, "variant")));
		a = app_index(t, json_string_value(json_object_get(o, "app")) ?: "?", !pass);
		fi = foot_index(t, json_number_value(json_object_get(o, "footprint")), !pass);
		if (v < 0 || a < 0 || fi < 0) {
			json_decref(o);
			continue;
		}
		if (!pass && rev > t->rev[a])
			t->rev[a] = rev;
		c = &t->c[a][fi][v];
		if (pass && rev == t->rev[a] && c->nruns < MAX_RUNS) {
			c->card_ok = (c->nruns ? c->card_ok : 1) &&
				     json_integer_value(json_object_get(o, "verified")) == 1;
			c->runs[c->nruns++] = json_number_value(json_object_get(o, "ms"));
		}
		json_decref(o);
	}
	free(line);
	fclose(f);
	return 0;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* The median of v's n values (n > 0); sorts v. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Every cell's median and spread; returns the median spread of the cells
 * run more than once (0 if none), their number in *repeated and the
 * largest spread in *max.
 */
static double card_medians(struct compare *t, int *repeated, double *max)
{
	static double spreads[MAX_APPS * MAX_FOOTS * NVARIANTS];
	int a, fi, v, n = 0;

	*max = 0;
	for (a = 0; a < (int)t->napps; a++)
		for (fi = 0; fi < (int)t->nfoots; fi++)
			for (v = 0; v < NVARIANTS; v++) {
				struct cell *c = &t->c[a][fi][v];
				int k = c->nruns;

				c->spread = -1;
				if (!k)
					continue;
				c->card_ms = median(c->runs, (size_t)k);	/* sorted */
				if (k < 2)
					continue;
				c->spread = c->runs[k - 1] / c->runs[0] - 1;
				spreads[n++] = c->spread;
				if (c->spread > *max)
					*max = c->spread;
			}
	*repeated = n;
	if (!n)
		return 0;
	return median(spreads, (size_t)n);
}

/* Whether the card cannot tell variants x and y of cells c apart. */
static int card_tied(const struct cell *c, int x, int y, double median_spread)
{
	double sx = c[x].spread < median_spread ? median_spread : c[x].spread;
	double sy = c[y].spread < median_spread ? median_spread : c[y].spread;
	double lo = c[x].card_ms < c[y].card_ms ? c[x].card_ms : c[y].card_ms;
	double hi = c[x].card_ms < c[y].card_ms ? c[y].card_ms : c[x].card_ms;

	return hi / lo - 1 <= (sx > sy ? sx : sy);
}

/* Every pair the card orders is in the same order in the model. */
static int order_agrees(const struct cell *c, double median_spread)
{
	int x, y;

	for (x = 0; x < NVARIANTS; x++)
		for (y = 0; y < NVARIANTS; y++)
			if (c[x].card_ms < c[y].card_ms &&
			    !card_tied(c, x, y, median_spread) &&
			    !(c[x].model_ms < c[y].model_ms))
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
	while ((o = next_object(f, &line, &cap))) {
		const char *profile = json_string_value(json_object_get(o, "profile"));
		const char *status = json_string_value(json_object_get(o, "status"));
		double vram, launches, ns;

		run = json_object_get(o, "run");
		v = variant_index(json_string_value(json_object_get(o, "variant")));
		a = app_index(t, json_string_value(json_object_get(o, "app")) ?: "?", 0);
		vram = (double)json_integer_value(json_object_get(run, "vram"));
		fi = foot_index(t, scale * json_number_value(json_object_get(o, "factor")) *
				   vram, 0);
		if (v < 0 || a < 0 || fi < 0 || !profile || gm_profile_lookup(profile, &prof)) {
			json_decref(o);
			continue;
		}
		snprintf(t->profile, sizeof(t->profile), "%s", profile);
		launches = (double)json_integer_value(json_object_get(run, "launches"));
		ns = (double)json_integer_value(json_object_get(run, "sim_ns")) +
		     (double)json_integer_value(json_object_get(run, "setup_ns"));
		ns = scale * (ns - launches * prof.launch_ns) + launches * prof.launch_ns;
		t->c[a][fi][v].model_ms = ns / 1e6;
		t->c[a][fi][v].model_ok = status && !strcmp(status, "ok") &&
					  json_integer_value(json_object_get(run, "ret")) == 0 &&
					  json_integer_value(json_object_get(run, "mismatches")) == 0;
		n++;
		json_decref(o);
	}
	free(line);
	fclose(f);
	return n;
}

/* The variants by ms, fastest first, into order; 0 if a cell is missing. */
static int rank(const struct cell *c, int model, int *order)
{
	int i, j, k;

	for (i = 0; i < NVARIANTS; i++) {
		if (!(model ? c[i].model_ms : c[i].card_ms))
			return 0;
		order[i] = i;
	}
	for (i = 1; i < NVARIANTS; i++)	/* insertion sort: four entries */
		for (j = i; j > 0; j--) {
			double x = model ? c[order[j]].model_ms : c[order[j]].card_ms;
			double y = model ? c[order[j - 1]].model_ms : c[order[j - 1]].card_ms;

			if (x >= y)
				break;
			k = order[j];
			order[j] = order[j - 1];
			order[j - 1] = k;
		}
	return 1;
}

/* The order; with c, a pair the card cannot tell apart joined by "~". */
static void print_order(const int *order, const struct cell *c, double median_spread)
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
	int napps = 0, repeated, i;
	double scale, spread, max_spread;

	if (argc < 4 || (scale = strtod(argv[2], NULL)) <= 0) {
		fprintf(stderr, "usage: compare-card RESULTS_DIR SCALE CARD_JSONL...\n");
		return 2;
	}
	for (a = 0; a < (int)(sizeof(app_order) / sizeof(app_order[0])); a++)
		app_index(&t, app_order[a], 1);
	for (i = 3; i < argc; i++)
		if (load_card(argv[i], &t, 0))
			return 1;
	qsort(t.foots, t.nfoots, sizeof(t.foots[0]), by_value);
	for (i = 3; i < argc; i++)
		if (load_card(argv[i], &t, 1))
			return 1;
	spread = card_medians(&t, &repeated, &max_spread);
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
	for (a = 0; a < (int)t.napps; a++) {
		int app_same = 1, any = 0;

		for (fi = 0; fi < (int)t.nfoots; fi++)
			for (v = 0; v < NVARIANTS; v++)
				any |= t.c[a][fi][v].card_ms || t.c[a][fi][v].model_ms;
		if (!any)
			continue;

		for (fi = 0; fi < (int)t.nfoots; fi++) {
			struct cell *c = t.c[a][fi];

			for (v = 0; v < NVARIANTS; v++) {
				double ratio = c[v].card_ms && c[v].model_ms ?
					       c[v].model_ms / c[v].card_ms : 0;

				printf("%-11s %4g %-9s ", t.apps[a], t.foots[fi] / (1 << 30),
				       variants[v]);
				print_ms(c[v].card_ms, c[v].card_ok);
				printf("%2d", c[v].nruns);
				print_ms(c[v].model_ms, c[v].model_ok);
				if (!ratio) {
					printf(" %6s\n", "-");
					continue;
				}
				printf(" %6.2f", ratio);
				if (c[0].card_ms && c[0].model_ms)
					printf("   %6.2f [%6.2f]", c[0].card_ms / c[v].card_ms,
					       c[0].model_ms / c[v].model_ms);
				putchar('\n');
				cells++;
				close += fabs(ratio - 1) <= TOLERANCE;
			}
			if (rank(c, 0, card_order) && rank(c, 1, model_order)) {
				int eq = !memcmp(card_order, model_order, sizeof(card_order));
				int agrees = order_agrees(c, spread);

				printf("%-11s %4g order: card ", t.apps[a], t.foots[fi] / (1 << 30));
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
	       "spread of the two cells, at least the median)\n", spread * 100, repeated, max_spread * 100);
	printf("%d of %d cells within %.0f%% of the card; variant order as on the card in "
	       "%d of %d app x footprint (ties either way; %d with the medians' order "
	       "exactly), at every footprint for %d of %d apps (! = not verified)\n",
	       close, cells, TOLERANCE * 100, same, orders, strict, apps_same, napps);
	return 0;
}
