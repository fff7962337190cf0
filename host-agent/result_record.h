/* SPDX-License-Identifier: MIT */
/*
 * The two producers of a run's result record, both from result_fields.h:
 * result.json (its host fields) and a results.csv row (read back from
 * result.json).
 */
#ifndef EMBER_AGENT_RESULT_RECORD_H
#define EMBER_AGENT_RESULT_RECORD_H

#include <stdio.h>

#include <jansson.h>

#include "run.h"

/* What a finished run's host fields are made of (result_fields.h's values). */
struct em_result_src {
	const struct em_run *r;
	const struct em_run_outcome *o;
	const char *commit;
	const char *status;	/* the judge's */
	const char *why;	/* "" when nothing to say */
	const char *expected;	/* an injected run's expected outcome, or NULL */
};

/* A new object with every TOP field of the record present for this run. */
json_t *em_result_json(const struct em_result_src *s);

/* results.csv's header line, and the row of one run's result.json. */
void em_result_csv_header(FILE *csv);
void em_result_csv_row(FILE *csv, json_t *result);

/* The list as a Markdown table (name, where, type, meaning), for the docs. */
void em_result_fields_markdown(FILE *out);

#endif /* EMBER_AGENT_RESULT_RECORD_H */
