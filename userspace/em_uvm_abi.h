/* SPDX-License-Identifier: MIT */
/*
 * The part of nvidia-uvm's user ABI that libember's nvidia-uvm back end
 * calls (em_nvuvm.c), written here from the layouts of NVIDIA's
 * uvm_ioctl.h and uvm_linux_ioctl.h of the 535.261.03 and 550.163.01
 * branches (Debian's nvidia-open-kernel-source), so that libember builds
 * without NVIDIA's sources. tests/unit/libember/abi_check.c checks every
 * struct's size and every field's offset here against each branch's own
 * headers, where the cache holds them.
 *
 * nvidia-uvm's ioctl numbers are plain indices (no _IOC encoding: the
 * driver copies its own sizeof of each parameter block), and every call
 * answers in rmStatus (an NV_STATUS) besides the ioctl's return. Of these
 * layouts one differs between the branches: 550's SET_PREFERRED_LOCATION
 * has a CPU NUMA node before rmStatus, where 535's has rmStatus. Both are
 * 40 bytes, so a call in the wrong layout is not refused: 550 would read
 * 535's rmStatus slot as the NUMA node and write its status into the
 * padding. The back end picks the layout by the module's version.
 */
#ifndef EMBER_UVM_ABI_H
#define EMBER_UVM_ABI_H

#include <stdint.h>

#define EM_UVM_DEVICE			"/dev/nvidia-uvm"
#define EM_UVM_VERSION_FILE		"/sys/module/nvidia_uvm/version"

#define EM_UVM_INITIALIZE		0x30000001ul
#define EM_UVM_REGISTER_GPU_VASPACE	25ul
#define EM_UVM_UNREGISTER_GPU_VASPACE	26ul
#define EM_UVM_REGISTER_CHANNEL		27ul
#define EM_UVM_UNREGISTER_CHANNEL	28ul
#define EM_UVM_REGISTER_GPU		37ul
#define EM_UVM_UNREGISTER_GPU		38ul
#define EM_UVM_SET_PREFERRED_LOCATION	42ul
#define EM_UVM_UNSET_PREFERRED_LOCATION	43ul
#define EM_UVM_SET_ACCESSED_BY		46ul
#define EM_UVM_UNSET_ACCESSED_BY	47ul
#define EM_UVM_MIGRATE			51ul
#define EM_UVM_MM_INITIALIZE		75ul

/* NV_STATUS values nvidia-uvm answers these calls with (nvstatuscodes.h). */
#define EM_NV_OK				0x00000000u
#define EM_NV_ERR_BUSY_RETRY			0x00000003u
#define EM_NV_ERR_GPU_IS_LOST			0x0000000Fu
#define EM_NV_ERR_GPU_UUID_NOT_FOUND		0x00000012u
#define EM_NV_ERR_ILLEGAL_ACTION		0x00000016u
#define EM_NV_ERR_IN_USE			0x00000017u
#define EM_NV_ERR_INSUFFICIENT_RESOURCES	0x0000001Au
#define EM_NV_ERR_INVALID_ADDRESS		0x0000001Eu
#define EM_NV_ERR_INVALID_ARGUMENT		0x0000001Fu
#define EM_NV_ERR_INVALID_CHANNEL		0x00000021u
#define EM_NV_ERR_INVALID_DEVICE		0x00000026u
#define EM_NV_ERR_INVALID_FLAGS			0x00000029u
#define EM_NV_ERR_INVALID_OBJECT_HANDLE		0x00000033u
#define EM_NV_ERR_INVALID_STATE			0x00000040u
#define EM_NV_ERR_NO_MEMORY			0x00000051u
#define EM_NV_ERR_NOT_SUPPORTED			0x00000056u
#define EM_NV_ERR_OBJECT_NOT_FOUND		0x00000057u
#define EM_NV_ERR_OUT_OF_RANGE			0x0000005Bu
#define EM_NV_ERR_TIMEOUT			0x00000065u
#define EM_NV_ERR_UVM_ADDRESS_IN_USE		0x00000068u
#define EM_NV_WARN_NOTHING_TO_DO		0x00010006u

/* NVIDIA's UUID of the CPU as a processor (nvCpuUuid.c's value). */
#define EM_UVM_CPU_UUID { 0xa6, 0x5e, 0x0f, 0x4e, 0xd7, 0xd4, 0x7b, 0xa2, \
			  0x50, 0x47, 0x41, 0x2c, 0x14, 0x2a, 0x77, 0x73 }

struct em_uvm_uuid {
	uint8_t uuid[16];
};

struct em_uvm_initialize {
	uint64_t flags;
	uint32_t rm_status;
};

/*
 * On a second fd of /dev/nvidia-uvm, naming the first: pins the process's
 * mm for nvidia-uvm, which GPU VA space registration needs
 * (NV_ERR_PAGE_TABLE_NOT_AVAIL without); the context dies when that fd
 * closes. NV_WARN_NOTHING_TO_DO where nvidia-uvm needs no mm fd.
 */
struct em_uvm_mm_initialize {
	int32_t uvm_fd;
	uint32_t rm_status;
};

struct em_uvm_register_gpu {
	struct em_uvm_uuid gpu;
	uint8_t numa_enabled;		/* (out) */
	int32_t numa_node;		/* (out) */
	int32_t rm_ctrl_fd;
	uint32_t h_client;
	uint32_t h_smc_part_ref;
	uint32_t rm_status;
};

struct em_uvm_unregister_gpu {
	struct em_uvm_uuid gpu;
	uint32_t rm_status;
};

struct em_uvm_register_gpu_vaspace {
	struct em_uvm_uuid gpu;
	int32_t rm_ctrl_fd;
	uint32_t h_client;
	uint32_t h_va_space;
	uint32_t rm_status;
};

struct em_uvm_unregister_gpu_vaspace {
	struct em_uvm_uuid gpu;
	uint32_t rm_status;
};

struct em_uvm_register_channel {
	struct em_uvm_uuid gpu;
	int32_t rm_ctrl_fd;
	uint32_t h_client;
	uint32_t h_channel;
	uint64_t base;			/* the channel's resources' VA range */
	uint64_t length;
	uint32_t rm_status;
};

struct em_uvm_unregister_channel {
	struct em_uvm_uuid gpu;
	uint32_t h_client;
	uint32_t h_channel;
	uint32_t rm_status;
};

struct em_uvm_set_preferred_location_535 {
	uint64_t base;
	uint64_t length;
	struct em_uvm_uuid location;
	uint32_t rm_status;
};

struct em_uvm_set_preferred_location_550 {
	uint64_t base;
	uint64_t length;
	struct em_uvm_uuid location;
	int32_t cpu_numa_node;		/* -1: any node */
	uint32_t rm_status;
};

struct em_uvm_unset_preferred_location {
	uint64_t base;
	uint64_t length;
	uint32_t rm_status;
};

/* SET_ACCESSED_BY and UNSET_ACCESSED_BY */
struct em_uvm_accessed_by {
	uint64_t base;
	uint64_t length;
	struct em_uvm_uuid processor;
	uint32_t rm_status;
};

struct em_uvm_migrate {
	uint64_t base;
	uint64_t length;
	struct em_uvm_uuid destination;
	uint32_t flags;			/* 0: synchronous */
	uint64_t semaphore_address;
	uint32_t semaphore_payload;
	int32_t cpu_numa_node;		/* -1: any node (535: an NvU32, same bits) */
	uint64_t user_space_start;	/* (out) pageable memory only */
	uint64_t user_space_length;	/* (out) */
	uint32_t rm_status;
};

#endif /* EMBER_UVM_ABI_H */
