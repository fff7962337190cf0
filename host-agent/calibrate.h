/* SPDX-License-Identifier: MIT */
#ifndef EMBER_AGENT_CALIBRATE_H
#define EMBER_AGENT_CALIBRATE_H

#include <stdio.h>

#include "vm.h"

/*
 * make calibrate: the card's microbenchmarks (cuda/ubench, JSON lines in
 * the card files) beside the same set run in the testbed by ember-ubench.
 *
 * em_calibrate_run() boots one VM with cfg (its ubench_args set) and
 * leaves the guest's lines in <workdir>/results.jsonl; 0 or 1.
 *
 * em_calibrate_print() takes card_paths, a comma-separated list of files,
 * each one card session; "PATH:N" takes a file's first N lines only (a
 * file whose later lines copy other sessions' rows, counted there).
 * It pairs every testbed row with the card's rows of
 * the same bench and buffer: per session their median, then over the
 * sessions the median and the spread, (max - min) / median. A row is close
 * when |model / card - 1| <= max(spread, 25 %); it prints which of the two
 * it used. Rows print in two groups: those a constant of h200x16 was
 * fitted on (em_calibrate_fitted_on() names the constants), and the
 * held-out rest, each closed by "fitted: N of M within tolerance" and
 * "held-out: K of L within tolerance" (and how many of them are within
 * 25 % alone), then one line with both counts. Returns the number of
 * rows outside their tolerance, or -1 when a file cannot be read.
 */
int em_calibrate_run(struct em_vm_config *cfg);
int em_calibrate_print(const char *card_paths, const char *model_path,
		       const char *profile, FILE *out);

/*
 * What h200x16's constants (models/src/profile.c) were fitted on: the
 * constants (and fitted mechanisms) a row of bench at buffer bytes set,
 * or NULL for a held-out row.
 */
const char *em_calibrate_fitted_on(const char *bench, double buffer);

/* max(spread, 25 %); *by is "spread" or "25%", whichever it was */
double em_calibrate_tolerance(double spread, const char **by);

#endif /* EMBER_AGENT_CALIBRATE_H */
