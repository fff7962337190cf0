/* SPDX-License-Identifier: MIT */
#ifndef EMBER_AGENT_CALIBRATE_H
#define EMBER_AGENT_CALIBRATE_H

#include <stdio.h>

#include "vm.h"

/*
 * make calibrate: the card's microbenchmarks (cuda/ubench, JSON lines in
 * card_path) beside the same set run in the testbed by ember-ubench.
 *
 * em_calibrate_run() boots one VM with cfg (its ubench_args set) and
 * leaves the guest's lines in <workdir>/results.jsonl; 0 or 1.
 * em_calibrate_print() pairs every testbed row with the card's rows of the
 * same bench and buffer (the median of several), prints card, model and
 * error per row and a closing "N of M within 25%". Returns the number of
 * rows outside 25%, or -1 when a file cannot be read.
 */
int em_calibrate_run(struct em_vm_config *cfg);
int em_calibrate_print(const char *card_path, const char *model_path,
		       const char *profile, FILE *out);

#endif /* EMBER_AGENT_CALIBRATE_H */
