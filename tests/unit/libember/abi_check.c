// SPDX-License-Identifier: MIT
/*
 * userspace/em_uvm_abi.h against one driver branch's own uvm_ioctl.h and
 * uvm_linux_ioctl.h: every struct's size and every field's offset, and
 * every ioctl number, equal. Compiled once per branch against its
 * pristine headers (make -C tests/unit/libember check); the compile is
 * the test, and the program prints what it checked. EM_ABI_550 is set for
 * 550's SET_PREFERRED_LOCATION layout.
 */
#include <stddef.h>
#include <stdio.h>

#include "uvm_linux_ioctl.h"
#include "em_uvm_abi.h"

#define SAME_SIZE(ours, theirs) \
	_Static_assert(sizeof(struct ours) == sizeof(theirs), #ours " size");
#define SAME_AT(ours, f, theirs, g) \
	_Static_assert(offsetof(struct ours, f) == offsetof(theirs, g), #ours "." #f);
#define SAME_CMD(ours, theirs) _Static_assert(ours == theirs, #theirs);

SAME_CMD(EM_UVM_INITIALIZE, UVM_INITIALIZE)
SAME_CMD(EM_UVM_REGISTER_GPU_VASPACE, UVM_REGISTER_GPU_VASPACE)
SAME_CMD(EM_UVM_UNREGISTER_GPU_VASPACE, UVM_UNREGISTER_GPU_VASPACE)
SAME_CMD(EM_UVM_REGISTER_CHANNEL, UVM_REGISTER_CHANNEL)
SAME_CMD(EM_UVM_UNREGISTER_CHANNEL, UVM_UNREGISTER_CHANNEL)
SAME_CMD(EM_UVM_REGISTER_GPU, UVM_REGISTER_GPU)
SAME_CMD(EM_UVM_UNREGISTER_GPU, UVM_UNREGISTER_GPU)
SAME_CMD(EM_UVM_SET_PREFERRED_LOCATION, UVM_SET_PREFERRED_LOCATION)
SAME_CMD(EM_UVM_UNSET_PREFERRED_LOCATION, UVM_UNSET_PREFERRED_LOCATION)
SAME_CMD(EM_UVM_SET_ACCESSED_BY, UVM_SET_ACCESSED_BY)
SAME_CMD(EM_UVM_UNSET_ACCESSED_BY, UVM_UNSET_ACCESSED_BY)
SAME_CMD(EM_UVM_MIGRATE, UVM_MIGRATE)
SAME_CMD(EM_UVM_MM_INITIALIZE, UVM_MM_INITIALIZE)

SAME_CMD(EM_NV_OK, NV_OK)
SAME_CMD(EM_NV_ERR_INVALID_ADDRESS, NV_ERR_INVALID_ADDRESS)
SAME_CMD(EM_NV_ERR_INVALID_ARGUMENT, NV_ERR_INVALID_ARGUMENT)
SAME_CMD(EM_NV_ERR_INVALID_DEVICE, NV_ERR_INVALID_DEVICE)
SAME_CMD(EM_NV_ERR_NO_MEMORY, NV_ERR_NO_MEMORY)
SAME_CMD(EM_NV_ERR_NOT_SUPPORTED, NV_ERR_NOT_SUPPORTED)
SAME_CMD(EM_NV_ERR_UVM_ADDRESS_IN_USE, NV_ERR_UVM_ADDRESS_IN_USE)
SAME_CMD(EM_NV_ERR_ILLEGAL_ACTION, NV_ERR_ILLEGAL_ACTION)
SAME_CMD(EM_NV_ERR_TIMEOUT, NV_ERR_TIMEOUT)
SAME_CMD(EM_NV_ERR_OUT_OF_RANGE, NV_ERR_OUT_OF_RANGE)
SAME_CMD(EM_NV_ERR_GPU_UUID_NOT_FOUND, NV_ERR_GPU_UUID_NOT_FOUND)
SAME_CMD(EM_NV_ERR_INVALID_STATE, NV_ERR_INVALID_STATE)
SAME_CMD(EM_NV_WARN_NOTHING_TO_DO, NV_WARN_NOTHING_TO_DO)

_Static_assert(sizeof(struct em_uvm_uuid) == sizeof(NvProcessorUuid), "uuid");

SAME_SIZE(em_uvm_initialize, UVM_INITIALIZE_PARAMS)
SAME_AT(em_uvm_initialize, flags, UVM_INITIALIZE_PARAMS, flags)
SAME_AT(em_uvm_initialize, rm_status, UVM_INITIALIZE_PARAMS, rmStatus)

SAME_SIZE(em_uvm_mm_initialize, UVM_MM_INITIALIZE_PARAMS)
SAME_AT(em_uvm_mm_initialize, uvm_fd, UVM_MM_INITIALIZE_PARAMS, uvmFd)
SAME_AT(em_uvm_mm_initialize, rm_status, UVM_MM_INITIALIZE_PARAMS, rmStatus)

SAME_SIZE(em_uvm_register_gpu, UVM_REGISTER_GPU_PARAMS)
SAME_AT(em_uvm_register_gpu, gpu, UVM_REGISTER_GPU_PARAMS, gpu_uuid)
SAME_AT(em_uvm_register_gpu, numa_enabled, UVM_REGISTER_GPU_PARAMS, numaEnabled)
SAME_AT(em_uvm_register_gpu, numa_node, UVM_REGISTER_GPU_PARAMS, numaNodeId)
SAME_AT(em_uvm_register_gpu, rm_ctrl_fd, UVM_REGISTER_GPU_PARAMS, rmCtrlFd)
SAME_AT(em_uvm_register_gpu, h_client, UVM_REGISTER_GPU_PARAMS, hClient)
SAME_AT(em_uvm_register_gpu, h_smc_part_ref, UVM_REGISTER_GPU_PARAMS, hSmcPartRef)
SAME_AT(em_uvm_register_gpu, rm_status, UVM_REGISTER_GPU_PARAMS, rmStatus)

SAME_SIZE(em_uvm_unregister_gpu, UVM_UNREGISTER_GPU_PARAMS)
SAME_AT(em_uvm_unregister_gpu, rm_status, UVM_UNREGISTER_GPU_PARAMS, rmStatus)

SAME_SIZE(em_uvm_register_gpu_vaspace, UVM_REGISTER_GPU_VASPACE_PARAMS)
SAME_AT(em_uvm_register_gpu_vaspace, gpu, UVM_REGISTER_GPU_VASPACE_PARAMS, gpuUuid)
SAME_AT(em_uvm_register_gpu_vaspace, rm_ctrl_fd, UVM_REGISTER_GPU_VASPACE_PARAMS, rmCtrlFd)
SAME_AT(em_uvm_register_gpu_vaspace, h_client, UVM_REGISTER_GPU_VASPACE_PARAMS, hClient)
SAME_AT(em_uvm_register_gpu_vaspace, h_va_space, UVM_REGISTER_GPU_VASPACE_PARAMS, hVaSpace)
SAME_AT(em_uvm_register_gpu_vaspace, rm_status, UVM_REGISTER_GPU_VASPACE_PARAMS, rmStatus)

SAME_SIZE(em_uvm_unregister_gpu_vaspace, UVM_UNREGISTER_GPU_VASPACE_PARAMS)
SAME_AT(em_uvm_unregister_gpu_vaspace, rm_status, UVM_UNREGISTER_GPU_VASPACE_PARAMS, rmStatus)

SAME_SIZE(em_uvm_register_channel, UVM_REGISTER_CHANNEL_PARAMS)
SAME_AT(em_uvm_register_channel, rm_ctrl_fd, UVM_REGISTER_CHANNEL_PARAMS, rmCtrlFd)
SAME_AT(em_uvm_register_channel, h_client, UVM_REGISTER_CHANNEL_PARAMS, hClient)
SAME_AT(em_uvm_register_channel, h_channel, UVM_REGISTER_CHANNEL_PARAMS, hChannel)
SAME_AT(em_uvm_register_channel, base, UVM_REGISTER_CHANNEL_PARAMS, base)
SAME_AT(em_uvm_register_channel, length, UVM_REGISTER_CHANNEL_PARAMS, length)
SAME_AT(em_uvm_register_channel, rm_status, UVM_REGISTER_CHANNEL_PARAMS, rmStatus)

SAME_SIZE(em_uvm_unregister_channel, UVM_UNREGISTER_CHANNEL_PARAMS)
SAME_AT(em_uvm_unregister_channel, h_client, UVM_UNREGISTER_CHANNEL_PARAMS, hClient)
SAME_AT(em_uvm_unregister_channel, h_channel, UVM_UNREGISTER_CHANNEL_PARAMS, hChannel)
SAME_AT(em_uvm_unregister_channel, rm_status, UVM_UNREGISTER_CHANNEL_PARAMS, rmStatus)

#ifdef EM_ABI_550
#define PREFERRED em_uvm_set_preferred_location_550
SAME_AT(PREFERRED, cpu_numa_node, UVM_SET_PREFERRED_LOCATION_PARAMS, preferredCpuNumaNode)
#else
#define PREFERRED em_uvm_set_preferred_location_535
#endif
SAME_SIZE(PREFERRED, UVM_SET_PREFERRED_LOCATION_PARAMS)
SAME_AT(PREFERRED, base, UVM_SET_PREFERRED_LOCATION_PARAMS, requestedBase)
SAME_AT(PREFERRED, length, UVM_SET_PREFERRED_LOCATION_PARAMS, length)
SAME_AT(PREFERRED, location, UVM_SET_PREFERRED_LOCATION_PARAMS, preferredLocation)
SAME_AT(PREFERRED, rm_status, UVM_SET_PREFERRED_LOCATION_PARAMS, rmStatus)

SAME_SIZE(em_uvm_unset_preferred_location, UVM_UNSET_PREFERRED_LOCATION_PARAMS)
SAME_AT(em_uvm_unset_preferred_location, rm_status, UVM_UNSET_PREFERRED_LOCATION_PARAMS, rmStatus)

SAME_SIZE(em_uvm_accessed_by, UVM_SET_ACCESSED_BY_PARAMS)
SAME_SIZE(em_uvm_accessed_by, UVM_UNSET_ACCESSED_BY_PARAMS)
SAME_AT(em_uvm_accessed_by, processor, UVM_SET_ACCESSED_BY_PARAMS, accessedByUuid)
SAME_AT(em_uvm_accessed_by, rm_status, UVM_SET_ACCESSED_BY_PARAMS, rmStatus)
SAME_AT(em_uvm_accessed_by, processor, UVM_UNSET_ACCESSED_BY_PARAMS, accessedByUuid)
SAME_AT(em_uvm_accessed_by, rm_status, UVM_UNSET_ACCESSED_BY_PARAMS, rmStatus)

SAME_SIZE(em_uvm_migrate, UVM_MIGRATE_PARAMS)
SAME_AT(em_uvm_migrate, destination, UVM_MIGRATE_PARAMS, destinationUuid)
SAME_AT(em_uvm_migrate, flags, UVM_MIGRATE_PARAMS, flags)
SAME_AT(em_uvm_migrate, semaphore_address, UVM_MIGRATE_PARAMS, semaphoreAddress)
SAME_AT(em_uvm_migrate, semaphore_payload, UVM_MIGRATE_PARAMS, semaphorePayload)
SAME_AT(em_uvm_migrate, cpu_numa_node, UVM_MIGRATE_PARAMS, cpuNumaNode)
SAME_AT(em_uvm_migrate, user_space_start, UVM_MIGRATE_PARAMS, userSpaceStart)
SAME_AT(em_uvm_migrate, user_space_length, UVM_MIGRATE_PARAMS, userSpaceLength)
SAME_AT(em_uvm_migrate, rm_status, UVM_MIGRATE_PARAMS, rmStatus)

int main(void)
{
	printf("ok: em_uvm_abi.h matches this branch's uvm_ioctl.h (%s layout of "
	       "SET_PREFERRED_LOCATION, %zu bytes)\n",
#ifdef EM_ABI_550
	       "550",
#else
	       "535",
#endif
	       sizeof(UVM_SET_PREFERRED_LOCATION_PARAMS));
	return 0;
}
