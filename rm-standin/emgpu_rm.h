/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emgpu-rm.ko's internal declarations. nv_uvm_interface.h is the branch's
 * own (from Debian's nvidia-open-kernel-source, at build time), included
 * as nvidia.ko's export unit includes it (through nv-linux.h).
 */
#ifndef EMGPU_RM_H
#define EMGPU_RM_H

#include "nv_uvm_interface.h"

/* Answer of a function not backed yet: warns once, NV_ERR_NOT_SUPPORTED. */
NV_STATUS emgpu_rm_unbacked(const char *function);

#endif /* EMGPU_RM_H */
