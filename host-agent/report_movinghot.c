// SPDX-License-Identifier: MIT
/* The moving hot set's plot: throughput per window position (Figure 7). */
#define _GNU_SOURCE
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The moving hot set (workload "movinghot"): throughput of each position
 * of the hot window, one line per variant, like the paper's Figure 7.
 */
int rep_plot_moving_hot(json_t *all, const char *dir)
{
	char dat[4200], gp[4200], cmd[8600];
	bool any = false;
	size_t i, p;
	json_t *r;
	FILE *d, *g;

	snprintf(dat, sizeof(dat), "%s/movinghot.dat", dir);
	d = fopen(dat, "we");
	if (!d)
		return -1;
	json_array_foreach(all, i, r) {
		json_t *run = json_object_get(r, "run");
		json_t *phases = run ? json_object_get(run, "phase_ns") : NULL;
		struct column col;
		double window = json_number_value(json_object_get(run, "window"));

		if (!json_is_array(phases) || !json_array_size(phases) ||
		    strcmp(json_string_value(json_object_get(r, "status")) ?: "", "ok"))
			continue;
		if (!rep_run_column(r, &col))
			continue;
		fprintf(d, "\"%s%s%s %gx\"\n", json_string_value(json_object_get(r, "variant")),
			col.own_policy ? "" : "/", col.own_policy ? "" : col.policy,
			json_number_value(json_object_get(r, "factor")));
		for (p = 0; p < json_array_size(phases); p++) {
			double ns = (double)json_integer_value(json_array_get(phases, p));

			fprintf(d, "%zu %g\n", p, ns > 0 ? window / ns : 0);
		}
		fprintf(d, "\n\n");
		any = true;
	}
	fclose(d);
	if (!any)
		return 0;
	snprintf(gp, sizeof(gp), "%s/movinghot.gp", dir);
	g = fopen(gp, "we");
	if (!g)
		return -1;
	fprintf(g, "set terminal pngcairo size 900,450 noenhanced\n"
		"set output '%s/movinghot.png'\n"
		"set title 'Moving hot set: throughput per window position (modelled)'\n"
		"set xlabel 'window position (one launch each)'\n"
		"set ylabel 'GB/s (log)'\nset logscale y\nset grid\n"
		"set key outside right\n", dir);
	fprintf(g, "plot for [k=0:*] '%s' index k using 1:2 with linespoints title columnheader(1)\n",
		dat);
	fclose(g);
	snprintf(cmd, sizeof(cmd), "gnuplot '%s' 2>&1", gp);
	fflush(stdout);
	if (system(cmd))
		return -1;
	printf("plot: %s/movinghot.png\n", dir);
	return 0;
}
