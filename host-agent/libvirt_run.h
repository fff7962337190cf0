/* SPDX-License-Identifier: MIT */
/*
 * Running a matrix through libvirt's C API instead of starting QEMU
 * directly: one transient domain per run, spread over one or more
 * connection URIs (local or remote), with the guest's serial ports read
 * through libvirt console streams, so results come back from remote hosts
 * too. The QEMU binary, kernel and initramfs paths must exist on every host
 * (same layout, e.g. a shared or identical checkout).
 */
#ifndef EMBER_AGENT_LIBVIRT_RUN_H
#define EMBER_AGENT_LIBVIRT_RUN_H

#include <signal.h>
#include <stddef.h>

#include "matrix.h"
#include "vm.h"

/*
 * The libvirt domain XML of a VM config (with a <hostdev> for cfg->vfio);
 * malloc'd, or NULL.
 */
char *em_libvirt_domain_xml(const struct em_vm_config *cfg, const char *name);

/*
 * Runs the runs not yet finished (done of n are); returns how many did not
 * succeed, or -1 if interrupted or a URI is unreachable (a clear message
 * names it).
 */
int em_libvirt_run_matrix(const struct em_matrix *m, const struct em_paths *p,
			  struct em_run *runs, size_t n, const char *commit,
			  size_t done, volatile sig_atomic_t *interrupted);

#endif /* EMBER_AGENT_LIBVIRT_RUN_H */
