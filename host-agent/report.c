// SPDX-License-Identifier: MIT
/*
 * ember-agent report: the report a results directory calls for — a
 * fault-injection campaign's table (report_campaign.c), else Figure 16's
 * grid (report_fig16.c), else the speedup tables beside the paper's
 * (report_speedup.c) with the claims of the papers the matrix compares
 * (report_claims.c) — then the runs that failed; the plots (speedup bars,
 * the moving hot set) beside it. What they share is report_common.h.
 */
#define _GNU_SOURCE
#include "report.h"
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every run whose cell reads "error", with the reason em_run_record kept. */
static void print_errors(json_t *all, FILE *out)
{
	size_t i;
	json_t *r;

	json_array_foreach(all, i, r) {
		const char *status = json_string_value(json_object_get(r, "status"));

		if (status && !strcmp(status, "error"))
			fprintf(out, "error: %s: %s\n",
				json_string_value(json_object_get(r, "id")) ?: "?",
				json_string_value(json_object_get(r, "why")) ?:
				"(no reason recorded)");
	}
}

/*
 * The report of a results directory onto out: a campaign's table, else
 * Figure 16's grid, else the speedup tables beside the paper's; then the
 * runs that failed. Returns whether it was the speedup tables (the ones
 * that are also drawn).
 */
static bool print_report(const struct table *t, json_t *all, const char *csv,
			 FILE *out, unsigned int *duplicates)
{
	bool tables = false;

	*duplicates = 0;
	if (!rep_print_campaign(all, out) && !rep_print_fig16(all, csv, out, duplicates)) {
		rep_print_tables(t, csv, out);
		rep_print_paper_summary(t, csv, out);
		rep_print_placement_costs(t, csv, out);
		rep_print_claims(t, out);
		*duplicates = rep_print_duplicates(t, all, out);
		tables = true;
	}
	print_errors(all, out);
	return tables;
}

int em_report(const char *dir, const char *paper_csv, bool draw)
{
	struct table *t = calloc(1, sizeof(*t));
	json_t *all = NULL;
	char path[4200];
	unsigned int duplicates;
	bool tables;
	FILE *out;
	int rc = 0;

	if (!t || rep_table_load(dir, t, &all)) {
		free(t);
		return 1;
	}
	tables = print_report(t, all, paper_csv, stdout, &duplicates);
	/* the same report beside the results */
	snprintf(path, sizeof(path), "%s/table.txt", dir);
	out = fopen(path, "we");
	if (out) {
		print_report(t, all, paper_csv, out, &duplicates);
		fclose(out);
	}
	/* a cell that two runs claimed shows neither: the report is not whole */
	if (duplicates) {
		fprintf(stderr, "ember-agent: %s: %u cells with more than one run (named "
			"above)\n", dir, duplicates);
		rc = -1;
	}
	if (tables && draw) {
		if (rep_plot_speedup(t, dir))
			rc = -1;
		if (rep_plot_moving_hot(all, dir))
			rc = -1;
	}
	json_decref(all);
	free(t);
	return rc ? 1 : 0;
}
