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

#include "vm.h"

/*
 * The libvirt domain XML of a VM config (with a <hostdev> for cfg->vfio);
 * malloc'd, or NULL.
 */
char *em_libvirt_domain_xml(const struct em_vm_config *cfg, const char *name);

/* The scheduler's libvirt back-end is em_libvirt_backend_open (sched.h). */

#endif /* EMBER_AGENT_LIBVIRT_RUN_H */
