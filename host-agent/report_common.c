// SPDX-License-Identifier: MIT
/* What every report of ember-agent report shares (report_common.h). */
#define _GNU_SOURCE
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "variants.h"

/* The report's columns, in userspace/variants.h's order. */
#define VARIANT_NAME(name, program, policy, paper, what)	#name,
const char *const rep_variant_order[] = { EM_VARIANTS(VARIANT_NAME) };
#undef VARIANT_NAME
const size_t rep_nvariants = sizeof(rep_variant_order) / sizeof(rep_variant_order[0]);

int rep_index_of_variant(const char *v)
{
	size_t i;

	for (i = 0; i < rep_nvariants; i++)
		if (!strcmp(v, rep_variant_order[i]))
			return (int)i;
	return -1;
}

size_t rep_slot(char *names, size_t width, size_t *n, size_t max, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(names + i * width, name))
			return i;
	if (*n == max)
		return max;
	snprintf(names + *n * width, width, "%s", name);
	return (*n)++;
}

/*
 * The column of run o, without its label, baseline or paper flag; false
 * when o is not a run of a known variant. The policy is the one recorded
 * ("policy"), else the one its ember-run arguments select (results from
 * before the field, e.g. a sweep of -P), else the variant's own; a -P in
 * the sweep is the policy, not a sweep point. The driver is the recorded
 * one, ember for results from before the field.
 */
bool rep_run_column(json_t *o, struct column *c)
{
	const char *variant = json_string_value(json_object_get(o, "variant"));
	const char *policy = json_string_value(json_object_get(o, "policy"));
	const char *args = json_string_value(json_object_get(o, "ember_run"));
	const char *sweep = json_string_value(json_object_get(o, "sweep")) ?: "";
	const char *driver = json_string_value(json_object_get(o, "driver"));
	char own[EM_POLICY_NAME_MAX], word[96];
	size_t n = 0;

	memset(c, 0, sizeof(*c));
	if (!variant || (c->variant = rep_index_of_variant(variant)) < 0)
		return false;
	em_variant_policy(variant, own, sizeof(own));
	if (policy)
		snprintf(c->policy, sizeof(c->policy), "%s", policy);
	else if (args)
		em_args_policy(args, c->policy, sizeof(c->policy));
	else
		snprintf(c->policy, sizeof(c->policy), "%s", own);
	c->own_policy = !strcmp(c->policy, own);
	snprintf(c->driver, sizeof(c->driver), "%s", driver ?: EM_DRIVER_EMBER);
	/* the sweep's options but -P, word pairs "-r 0" */
	while (*sweep) {
		size_t len;

		sweep += strspn(sweep, " ");
		len = strcspn(sweep, " ");
		len += strspn(sweep + len, " ");
		len += strcspn(sweep + len, " ");
		if (len && strncmp(sweep, "-P ", 3)) {
			snprintf(word, sizeof(word), "%.*s", (int)len, sweep);
			n += (size_t)snprintf(c->sweep + n, sizeof(c->sweep) - n, "%s%s",
					      n ? " " : "", word);
			if (n >= sizeof(c->sweep))
				break;
		}
		sweep += len;
	}
	c->seed = json_integer_value(json_object_get(o, "seed"));
	return true;
}

bool rep_same_column(const struct column *a, const struct column *b)
{
	return a->variant == b->variant && !strcmp(a->policy, b->policy) &&
	       !strcmp(a->driver, b->driver) && !strcmp(a->sweep, b->sweep) &&
	       a->seed == b->seed;
}

/* The profile's base GPU name ("h200-128m" -> "h200"). */
void rep_base_gpu(const char *profile, char *out, size_t len)
{
	snprintf(out, len, "%s", profile);
	out[strcspn(out, "-")] = '\0';
}

void rep_print_run_name(FILE *out, json_t *o, size_t i, bool *first)
{
	const char *id = json_string_value(json_object_get(o, "id"));

	if (id)
		fprintf(out, "%s %s", *first ? "" : ",", id);
	else
		fprintf(out, "%s line %zu", *first ? "" : ",", i + 1);
	*first = false;
}
