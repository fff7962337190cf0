// SPDX-License-Identifier: MIT
/* The applications measured on a real card (card_results.h). */
#define _GNU_SOURCE
#include "card_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "variants.h"

#define CARD_VARIANT(name, table3)	EM_IF_TABLE3(table3, #name,)
const char *const card_variants[CARD_NVARIANTS] = { EM_PROGRAM_VARIANTS(CARD_VARIANT) };
#undef CARD_VARIANT

int card_variant_index(const char *v)
{
	int i;

	for (i = 0; v && i < CARD_NVARIANTS; i++)
		if (!strcmp(v, card_variants[i]))
			return i;
	return -1;
}

int card_app_index(struct card_set *s, const char *app, int add)
{
	size_t i;

	for (i = 0; i < s->napps; i++)
		if (!strcmp(s->apps[i], app))
			return (int)i;
	if (!add || s->napps == CARD_MAX_APPS)
		return -1;
	snprintf(s->apps[s->napps], sizeof(s->apps[0]), "%s", app);
	return (int)s->napps++;
}

static int foot_slot(struct card_set *s, double bytes, int add)
{
	size_t i;

	for (i = 0; i < s->nfoots; i++)
		if (fabs(s->foots[i] - bytes) <= 0.02 * s->foots[i])
			return (int)i;
	if (!add || s->nfoots == CARD_MAX_FOOTS)
		return -1;
	s->foots[s->nfoots] = bytes;
	return (int)s->nfoots++;
}

int card_foot_index(const struct card_set *s, double bytes)
{
	return foot_slot((struct card_set *)s, bytes, 0);
}

json_t *card_jsonl_next(FILE *f, char **line, size_t *cap)
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
 * The rows of path: pass 0 learns apps, footprints and each app's latest
 * revision; pass 1 keeps the runs of that revision.
 */
static int load_file(const char *path, struct card_set *s, int pass)
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
	while ((o = card_jsonl_next(f, &line, &cap))) {
		json_t *r = json_object_get(o, "rev");
		int rev = r ? (int)json_integer_value(r) : 1;
		struct card_cell *c;

		v = card_variant_index(json_string_value(json_object_get(o, "variant")));
		a = card_app_index(s, json_string_value(json_object_get(o, "app")) ?: "?", !pass);
		fi = foot_slot(s, json_number_value(json_object_get(o, "footprint")), !pass);
		if (v < 0 || a < 0 || fi < 0) {
			json_decref(o);
			continue;
		}
		if (!pass && rev > s->rev[a])
			s->rev[a] = rev;
		c = &s->c[a][fi][v];
		if (pass && rev == s->rev[a] && c->nruns < CARD_MAX_RUNS) {
			c->ok = (c->nruns ? c->ok : 1) &&
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

/* Every cell's median and spread, and the set's median and largest spread. */
static void card_medians(struct card_set *s)
{
	double spreads[CARD_MAX_APPS * CARD_MAX_FOOTS * CARD_NVARIANTS];
	size_t a, fi;
	int v, n = 0;

	s->max_spread = 0;
	for (a = 0; a < s->napps; a++)
		for (fi = 0; fi < s->nfoots; fi++)
			for (v = 0; v < CARD_NVARIANTS; v++) {
				struct card_cell *c = &s->c[a][fi][v];
				int k = c->nruns;

				c->spread = -1;
				if (!k)
					continue;
				c->ms = median(c->runs, (size_t)k);	/* sorted */
				if (k < 2)
					continue;
				c->spread = c->runs[k - 1] / c->runs[0] - 1;
				spreads[n++] = c->spread;
				if (c->spread > s->max_spread)
					s->max_spread = c->spread;
			}
	s->repeated = n;
	s->median_spread = n ? median(spreads, (size_t)n) : 0;
}

int card_set_load(struct card_set *s, char *const *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (load_file(paths[i], s, 0))
			return -1;
	qsort(s->foots, s->nfoots, sizeof(s->foots[0]), by_value);
	for (i = 0; i < n; i++)
		if (load_file(paths[i], s, 1))
			return -1;
	card_medians(s);
	return 0;
}

double card_cell_spread(const struct card_cell *c, double median_spread)
{
	return c->spread < median_spread ? median_spread : c->spread;
}

int card_tied(const struct card_cell *c, int x, int y, double median_spread)
{
	double sx = card_cell_spread(&c[x], median_spread);
	double sy = card_cell_spread(&c[y], median_spread);
	double lo = c[x].ms < c[y].ms ? c[x].ms : c[y].ms;
	double hi = c[x].ms < c[y].ms ? c[y].ms : c[x].ms;

	return hi / lo - 1 <= (sx > sy ? sx : sy);
}
