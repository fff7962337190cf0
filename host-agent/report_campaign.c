// SPDX-License-Identifier: MIT
/* The fault-injection campaign table: every run's outcome, per kind. */
#define _GNU_SOURCE
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"

/*
 * Fault-injection campaigns: per kind, how many runs the injection hit
 * during a launch (the device's count) and the outcome of every run
 * (judge_injected in judge.c); "expected" is what the kind declares.
 */
static const char *const outcomes[] = {
	"recovered", "clean-error", "fatal-error", "corrupted", "oops", "hang", "unexpected",
	"error",
};
#define NOUTCOMES (sizeof(outcomes) / sizeof(outcomes[0]))
#define C_FATAL		2	/* outcomes[2], fatal-error */
#define C_RUNS		NOUTCOMES
#define C_IN_LAUNCH	(NOUTCOMES + 1)
#define C_NOT_FIRED	(NOUTCOMES + 2)
#define C_UNREAD	(NOUTCOMES + 3)

/*
 * Under the campaign table: where each kind did not fire (per policy and
 * factor: not-fired runs of all runs there), every run that is not
 * acceptable with its reason, the commits, and the VM wall time.
 */
static void print_campaign_detail(json_t *all, FILE *out)
{
	char kinds[32][32], cells[32][32], commits[8][32];
	unsigned int nf[32][32] = { { 0 } }, runs[32][32] = { { 0 } };
	unsigned int ncommit[8] = { 0 }, other_commits = 0;
	size_t nkinds = 0, ncells = 0, ncommits = 0, i, k, c;
	double wall = 0;
	bool any = false;
	json_t *r;

	json_array_foreach(all, i, r) {
		const char *kind = json_string_value(json_object_get(r, "inject"));
		const char *status = json_string_value(json_object_get(r, "status"));
		const char *commit = json_string_value(json_object_get(r, "commit"));
		struct column col;
		char cell[64];

		if (!kind || !status)
			continue;
		/* the policy where it is not the variant's own ("uvm/mine-x1.5") */
		snprintf(cell, sizeof(cell), "%s%s%s-x%g",
			 json_string_value(json_object_get(r, "variant")) ?: "?",
			 rep_run_column(r, &col) && !col.own_policy ? "/" : "",
			 rep_run_column(r, &col) && !col.own_policy ? col.policy : "",
			 json_number_value(json_object_get(r, "factor")));
		k = REP_SLOT(kinds, &nkinds, 32, kind);
		c = REP_SLOT(cells, &ncells, 32, cell);
		if (k < 32 && c < 32) {
			runs[k][c]++;
			nf[k][c] += !strcmp(status, "not-fired");
		}
		k = REP_SLOT(commits, &ncommits, 8, commit ?: "?");
		if (k < 8)
			ncommit[k]++;
		else
			other_commits++;	/* past the 8 named: counted, not named */
		wall += json_number_value(json_object_get(r, "wall_s"));
		if (strcmp(status, "recovered") && strcmp(status, "clean-error") &&
		    strcmp(status, "fatal-error") && strcmp(status, "not-fired")) {
			fprintf(out, "%s%-40s %-10s %s\n", any ? "" : "runs to look at:\n",
				json_string_value(json_object_get(r, "id")) ?: "?", status,
				json_string_value(json_object_get(r, "why")) ?: "");
			any = true;
		}
	}
	for (k = 0; k < nkinds; k++) {
		bool first = true;

		for (c = 0; c < ncells; c++) {
			if (!nf[k][c])
				continue;
			if (first)
				fprintf(out, "not fired: %-15s", kinds[k]);
			fprintf(out, "%s %s %u/%u", first ? "" : ",", cells[c],
				nf[k][c], runs[k][c]);
			first = false;
		}
		if (!first)
			fputc('\n', out);
	}
	fprintf(out, "commits:");
	for (k = 0; k < ncommits; k++)
		fprintf(out, " %s (%u runs)", commits[k], ncommit[k]);
	if (other_commits)
		fprintf(out, " and %u runs of other commits", other_commits);
	fprintf(out, "; VM wall time %.0f s\n", wall);
}

/* fatal-error (nvidia-uvm's global fatal error) is a column only where a run had it */
static bool shown(const unsigned int *total, size_t o)
{
	return strcmp(outcomes[o], "fatal-error") || total[o];
}

bool rep_print_campaign(json_t *all, FILE *out)
{
	char kinds[32][32], expected[32][32] = { { 0 } };
	unsigned int counts[33][NOUTCOMES + 4] = { { 0 } };
	unsigned long long lost[33] = { 0 };	/* pages, summed over the runs */
	size_t nkinds = 0, i, k, o;
	json_t *r;

	json_array_foreach(all, i, r) {
		const char *kind = json_string_value(json_object_get(r, "inject"));
		const char *status = json_string_value(json_object_get(r, "status"));
		json_t *hit = json_object_get(r, "injections_in_launch");
		json_int_t lost_pages = json_integer_value(
			json_object_get(json_object_get(r, "run"), "lost_pages"));
		size_t col;

		if (!kind || !status)
			continue;
		k = REP_SLOT(kinds, &nkinds, 32, kind);
		if (k == 32)
			continue;
		snprintf(expected[k], sizeof(expected[k]), "%s",
			 json_string_value(json_object_get(r, "expected")) ?:
			 em_inject_expected(json_string_value(json_object_get(r, "driver")),
					    kind));
		for (o = 0; o < NOUTCOMES && strcmp(status, outcomes[o]); o++)
			;
		col = !json_is_integer(hit) || json_integer_value(hit) < 0 ? C_UNREAD :
		      json_integer_value(hit) > 0 ? C_IN_LAUNCH : C_NOT_FIRED;
		counts[k][C_RUNS]++;
		counts[32][C_RUNS]++;
		lost[k] += lost_pages > 0 ? (unsigned long long)lost_pages : 0;
		lost[32] += lost_pages > 0 ? (unsigned long long)lost_pages : 0;
		counts[k][col]++;
		counts[32][col]++;
		if (o < NOUTCOMES) {
			counts[k][o]++;
			counts[32][o]++;
		}
	}
	if (!nkinds)
		return false;
	fprintf(out, "\nFault-injection campaign: outcome of every run, per kind\n");
	fprintf(out, "%-15s %-17s %4s %9s %9s", "kind", "expected", "runs", "in-launch",
		"not-fired");
	for (o = 0; o < NOUTCOMES; o++)
		if (shown(counts[32], o))
			fprintf(out, " %*s", (int)strlen(outcomes[o]) > 5 ?
				(int)strlen(outcomes[o]) : 5, outcomes[o]);
	fprintf(out, " %10s\n", "lost-pages");
	for (k = 0; k <= nkinds; k++) {
		unsigned int *c = counts[k == nkinds ? 32 : k];

		fprintf(out, "%-15s %-17s %4u %9u %9u", k == nkinds ? "total" : kinds[k],
			k == nkinds ? "" : expected[k], c[C_RUNS],
			c[C_IN_LAUNCH], c[C_NOT_FIRED]);
		for (o = 0; o < NOUTCOMES; o++)
			if (shown(counts[32], o))
				fprintf(out, " %*u", (int)strlen(outcomes[o]) > 5 ?
					(int)strlen(outcomes[o]) : 5, c[o]);
		fprintf(out, " %10llu\n", lost[k == nkinds ? 32 : k]);
	}
	fprintf(out, "in-launch: the injection hit a running launch (the device's count); "
		"recovered needs that and verified output (ce-error: and a copy-engine "
		"retry); lost-pages: 4 KiB pages that fault when read back, a run losing "
		"more than its kind may (none, poison: its chunks) is corrupted\n");
	if (counts[32][C_FATAL])
		fprintf(out, "fatal-error: nvidia-uvm's global fatal error, its kernel line "
			"seen, the run failed with the kind's errno and no word read wrong "
			"(pages still on the GPU are lost)\n");
	if (counts[32][C_UNREAD])
		fprintf(out, "%u runs ended before the device's counts were read (neither "
			"in-launch nor not-fired)\n", counts[32][C_UNREAD]);
	print_campaign_detail(all, out);
	return true;
}
