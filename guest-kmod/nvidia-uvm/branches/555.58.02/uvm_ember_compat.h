/*******************************************************************************
    Ember glue: the nvidia-uvm interfaces whose spelling differs between the
    driver branches, as the 555 branch spells them. guest-kmod/nvidia-uvm/glue/uvm_ember.c
    is one file for every branch; each branch's copy of this header maps
    these names onto its own API. SPDX-License-Identifier: GPL-2.0 OR MIT
*******************************************************************************/

#ifndef __UVM_EMBER_COMPAT_H__
#define __UVM_EMBER_COMPAT_H__

// Preferred location on the CPU: 555 takes a NUMA node, none for Ember's
// mapped-by-default ranges.
#define UVM_EMBER_SET_PREFERRED_CPU(va_range, mm, tracker) \
    uvm_va_range_set_preferred_location((va_range), UVM_ID_CPU, NUMA_NO_NODE, (mm), (tracker))

// The service context points at its VA block context.
#define UVM_EMBER_SERVICE_BLOCK_CONTEXT(service_context) ((service_context)->block_context)

// Eviction support is a property of the parent GPU.
#define UVM_EMBER_GPU_SUPPORTS_EVICTION(gpu) uvm_parent_gpu_supports_eviction((gpu)->parent)

#endif // __UVM_EMBER_COMPAT_H__
