/* SPDX-License-Identifier: MIT */
/*
 * The verification digest of an application run (app_inputs.h): what a
 * correct run of ember-run ARGS on a profile leaves in its outputs,
 * computed natively on the host before the VM boots and passed to the
 * guest (ember_verify= on its command line, ember-run -V), where checking
 * it costs a fraction of the CPU reference under TCG.
 */
#ifndef EMBER_AGENT_DIGEST_H
#define EMBER_AGENT_DIGEST_H

#include <stddef.h>

/*
 * run_args: ember-run's arguments, separated by commas or spaces. Writes
 * the digest's text into buf and returns 0; -ENOENT where the run has
 * none (not an application with one, an unknown profile, -V given),
 * -E2BIG where its buffers would take over a quarter of the host's memory,
 * or the host's -errno (then the guest's reference verifies, as without).
 */
int em_run_digest(const char *profile, const char *run_args, char *buf, size_t len);

#endif /* EMBER_AGENT_DIGEST_H */
