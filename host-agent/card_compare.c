// SPDX-License-Identifier: MIT
/* The testbed's runs of the card's cells beside the card's (card_compare.h). */
#define _GNU_SOURCE
#include "card_compare.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "app_list.h"
#include "gpumodel/profile.h"

void card_set_app_order(struct card_set *s)
{
	/* the card's apps in workloads/app_list.h's order (the paper's, then gemv, colscan) */
#define CARD_APP(name, kernel, paper, inputs, card)	EM_APP_IF_CARD(card, #name,)
	static const char *const app_order[] = { EM_APPS(CARD_APP) };
#undef CARD_APP
	size_t a;

	for (a = 0; a < sizeof(app_order) / sizeof(app_order[0]); a++)
		card_app_index(s, app_order[a], 1);
}

int card_testbed_load(const char *dir, double scale, struct card_set *card,
		      struct card_testbed *tb)
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
		a = card_app_index(card, json_string_value(json_object_get(o, "app")) ?: "?", 0);
		vram = (double)json_integer_value(json_object_get(run, "vram"));
		fi = card_foot_index(card,
				     scale * json_number_value(json_object_get(o, "factor")) * vram);
		if (v < 0 || a < 0 || fi < 0 || !profile || gm_profile_lookup(profile, &prof)) {
			json_decref(o);
			continue;
		}
		snprintf(tb->profile, sizeof(tb->profile), "%s", profile);
		launches = (double)json_integer_value(json_object_get(run, "launches"));
		ns = (double)json_integer_value(json_object_get(run, "sim_ns")) +
		     (double)json_integer_value(json_object_get(run, "setup_ns"));
		ns = scale * (ns - launches * prof.launch_ns) + launches * prof.launch_ns;
		tb->m[a][fi][v].ms = ns / 1e6;
		tb->m[a][fi][v].ok = status && !strcmp(status, "ok") &&
				     json_integer_value(json_object_get(run, "ret")) == 0 &&
				     json_integer_value(json_object_get(run, "mismatches")) == 0;
		n++;
		json_decref(o);
	}
	free(line);
	fclose(f);
	return n;
}

int card_rank(const double *ms, int *order)
{
	int i, j, k;

	for (i = 0; i < CARD_NVARIANTS; i++) {
		if (!ms[i])
			return 0;
		order[i] = i;
	}
	for (i = 1; i < CARD_NVARIANTS; i++)	/* insertion sort: four entries */
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

int card_order_agrees(const struct card_cell *c, const struct card_run *m,
		      double median_spread)
{
	int x, y;

	for (x = 0; x < CARD_NVARIANTS; x++)
		for (y = 0; y < CARD_NVARIANTS; y++)
			if (c[x].ms < c[y].ms &&
			    !card_tied(c, x, y, median_spread) &&
			    !(m[x].ms < m[y].ms))
				return 0;
	return 1;
}

unsigned int card_order_pairs(const struct card_cell *c, const struct card_run *m,
			      double median_spread, unsigned int *agree)
{
	unsigned int pairs = 0;
	int x, y;

	*agree = 0;
	for (x = 0; x < CARD_NVARIANTS; x++)
		for (y = 0; y < CARD_NVARIANTS; y++)
			if (c[x].ms && c[y].ms && m[x].ms && m[y].ms && c[x].ms < c[y].ms &&
			    !card_tied(c, x, y, median_spread)) {
				pairs++;
				*agree += m[x].ms < m[y].ms;
			}
	return pairs;
}

void card_print_order(FILE *out, const int *order, const struct card_cell *c,
		      const double *ms, double median_spread)
{
	int i;

	for (i = 0; i < CARD_NVARIANTS; i++)
		fprintf(out, "%s%s", !i ? "" :
			c && card_tied(c, order[i - 1], order[i], median_spread) ? " ~ " :
			ms && ms[order[i - 1]] == ms[order[i]] ? " = " : " < ",
			card_variants[order[i]]);
}
