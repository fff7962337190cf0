/* SPDX-License-Identifier: MIT */
/*
 * GH100 host: class c86f (HOPPER_CHANNEL_GPFIFO_A) where it differs from
 * c56f (ga10x/host_c56f.h, ga10x/gpfifo.h, which hold everything else:
 * method offsets, MEM_OP, semaphore execute, GPFIFO entries and USERD are
 * the same). Our names; bit positions and values are NVIDIA's (clc86f.h,
 * the same in the 535 and 550 trees).
 *
 * What changed, and why nvidia-uvm's Hopper HAL needs it: Hopper's host
 * VAs are 57 bits (uvm_hopper.c: max_host_va 1 << 57), and nvidia-uvm
 * places its own memory above 64 PB (uvm_mem_va_base), so
 *  - a GPFIFO entry still carries a pushbuffer's low 40 bits; a control
 *    entry SET_PB_SEGMENT_EXTENDED_BASE sets the channel's VA bits 56:40
 *    for the entries after it (nvidia-uvm writes one when it initialises
 *    each channel, uvm_channel.c's channel_init);
 *  - SEM_ADDR_HI keeps VA bits 56:32 (25 bits, was 8);
 *  - MEM_OP_A's CANCEL_MMU_ENGINE_ID is 9 bits (was 7): Hopper's graphics
 *    engine ids start at 384.
 * c86f also adds MEM_OP_D's MMU_OPERATION (a vidmem access-bit dump),
 * which nvidia-uvm does not emit.
 */
#ifndef GH100_HOST_C86F_H
#define GH100_HOST_C86F_H

#include <stdint.h>

#include "ga10x/gpfifo.h"

#define HOPPER_CHANNEL_GPFIFO_A_CLASS	0xc86fu

/* ---- GPFIFO control entry: the pushbuffer segments' upper VA bits ---- */
#define C86F_GP_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE 0x4u
#define C86F_GP_ENTRY0_PB_EXTENDED_BASE_SHIFT	8	/* 24:8 */
#define C86F_GP_ENTRY0_PB_EXTENDED_BASE_MASK	0x1ffffu
#define C86F_PB_EXTENDED_BASE_VA_SHIFT		40	/* the operand is VA >> 40 */
#define C86F_HOST_VA_BITS			57

/* ---- methods' fields that widened ---- */
#define C86F_SEM_ADDR_HI_MASK		0x1ffffffu	/* OFFSET 24:0: VA bits 56:32 */
#define C86F_MEM_OP_A_CANCEL_MMU_ENGINE_ID_MASK 0x1ffu	/* 8:0 */

/* ---- MEM_OP_D: the operation c86f adds ---- */
#define C86F_MEM_OP_D_OPERATION_MMU_OPERATION	0x0bu
#define C86F_MEM_OP_D_MMU_OPERATION_TYPE_SHIFT	20	/* 23:20 */
#define C86F_MEM_OP_D_MMU_OPERATION_TYPE_MASK	0xfu
#define C86F_MEM_OP_D_MMU_OPERATION_TYPE_VIDMEM_ACCESS_BIT_DUMP 0x1u

/*
 * The control entry nvidia-uvm writes before a channel's first segment
 * (set_gpfifo_pushbuffer_segment_base): VA bits 56:40 of its pushbuffer.
 */
static inline uint64_t gh100_gp_set_pb_base(uint64_t pb_va)
{
	return ga10x_gp_ctrl(C86F_GP_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE,
			     (uint32_t)(pb_va >> C86F_PB_EXTENDED_BASE_VA_SHIFT &
					C86F_GP_ENTRY0_PB_EXTENDED_BASE_MASK) <<
			     C86F_GP_ENTRY0_PB_EXTENDED_BASE_SHIFT);
}

/* The VA bits 56:40 a SET_PB_SEGMENT_EXTENDED_BASE entry e sets. */
static inline uint64_t gh100_gp_pb_base(uint64_t e)
{
	return (uint64_t)((uint32_t)e >> C86F_GP_ENTRY0_PB_EXTENDED_BASE_SHIFT &
			  C86F_GP_ENTRY0_PB_EXTENDED_BASE_MASK) <<
	       C86F_PB_EXTENDED_BASE_VA_SHIFT;
}

#endif /* GH100_HOST_C86F_H */
