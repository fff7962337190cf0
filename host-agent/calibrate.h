/* SPDX-License-Identifier: MIT */
#ifndef EMBER_AGENT_CALIBRATE_H
#define EMBER_AGENT_CALIBRATE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "vm.h"

/*
 * make calibrate: the card's microbenchmarks (cuda/ubench, JSON lines in
 * the card files) beside the same set run in the testbed by ember-ubench.
 *
 * em_calibrate_run() boots one VM with cfg (its ubench_args set) and
 * leaves the guest's lines in <workdir>/results.jsonl, the device's stats
 * at the guest's end in *device (NULL if none came); 0 or 1.
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
 * 25 % alone), then one line with both counts. measured: the runs charged
 * the driver's instructions (driver_cost measured), which replace every
 * drv_* constant (em_calibrate_fitted_on()). Returns the number of rows
 * outside their tolerance, or -1 when a file cannot be read.
 */
int em_calibrate_run(struct em_vm_config *cfg, json_t **device);
int em_calibrate_print(const char *card_paths, const char *model_path,
		       const char *profile, bool measured, FILE *out);

/*
 * cpu_insn_ps, the time of one guest instruction of the driver, fitted:
 * model_paths are two runs under the measured rule at ps[0] and ps[1]. A
 * row's time (a rate's inverse) is taken as t0 + slope * ps through the
 * two; the fit minimises the squared relative error against the card over
 * the fault-path rows (em_calibrate_fitted_on() names cpu_insn_ps), clamped
 * to the profile's range, rounded to *fitted_ps. Prints the fitted rows and
 * the held-out rows whose time moves with the constant, apart, each at the
 * fit beside the card, with their counts. 0, or -1 (a file unread, no row
 * that moves).
 */
int em_calibrate_fit_cpu(const char *card_paths, const char *const model_paths[2],
			 const unsigned int ps[2], FILE *out, unsigned int *fitted_ps);

/*
 * What the driver's fault service cost in a run (its device stats, the
 * measured rule): instructions and the microseconds charged for them
 * (cpu_ns_fault) per fault batch (a batch ends at REPLAY or CANCEL) and
 * per fault entry, beside the card's fault_latency row.
 */
int em_calibrate_driver_cost(const char *card_paths, json_t *device, FILE *out);

/*
 * What h200x16's constants (models/src/profile.c) were fitted on: the
 * constants (and fitted mechanisms) a row of bench at buffer bytes set,
 * or NULL for a held-out row; measured: under the measured driver-cost
 * rule (cpu_insn_ps where drv_* constants were).
 */
const char *em_calibrate_fitted_on(const char *bench, double buffer, bool measured);

/* max(spread, 25 %); *by is "spread" or "25%", whichever it was */
double em_calibrate_tolerance(double spread, const char **by);

#endif /* EMBER_AGENT_CALIBRATE_H */
