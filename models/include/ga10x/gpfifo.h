/* SPDX-License-Identifier: MIT */
/*
 * GA10x GPFIFO entries, pushbuffer method headers and the USERD words the
 * host reads: NVIDIA's formats as clc56f.h (AMPERE_CHANNEL_GPFIFO_A)
 * defines them, with our own names. Bit positions and values are NVIDIA's.
 *
 * A GPFIFO entry is 8 bytes, two little-endian words. With LENGTH != 0 it
 * names a pushbuffer segment: GET (dword address bits 31:2) and GET_HI
 * (bits 39:32) give its GPU virtual address, LENGTH its size in dwords.
 * With LENGTH == 0 it is a control entry: ENTRY1 bits 7:0 are then an
 * OPCODE (NOP, ILLEGAL, GP_CRC, PB_CRC) and ENTRY0 its operand. nvidia-uvm
 * writes segments with SYNC_PROCEED and no PRIV (Turing's
 * set_gpfifo_entry, which Ampere inherits), and control NOPs
 * (set_gpfifo_noop) with LENGTH 0.
 *
 * A pushbuffer segment is a stream of dwords: a method header, then its
 * data. SEC_OP (31:29) selects the header's kind:
 *  - INC_METHOD: COUNT data dwords to ADDRESS, ADDRESS + 4, ...
 *  - NON_INC_METHOD: COUNT data dwords all to ADDRESS (nvidia-uvm's NOP
 *    padding: NON_INC NOP, COUNT words of inline data, maybe 0);
 *  - ONE_INC: the first to ADDRESS, the rest to ADDRESS + 4;
 *  - IMMD_DATA_METHOD: no data dword, the 13-bit IMMD_DATA (28:16) is it;
 *  - END_PB_SEGMENT: ends the segment early;
 *  - GRP0_USE_TERT with TERT_OP (17:16) the sub-device mask operations;
 *    the all-zero dword is DMA_NOP.
 * ADDRESS (11:0) is the method's byte offset >> 2, SUBCHANNEL (15:13).
 */
#ifndef GA10X_GPFIFO_H
#define GA10X_GPFIFO_H

#include <stdint.h>

/* ---- USERD (Nvc56fControl): the words the host reads and writes ---- */
#define GA10X_USERD_GP_GET		0x88	/* GPGet: the host writes back */
#define GA10X_USERD_GP_PUT		0x8c	/* GPPut: nvidia-uvm writes */
#define GA10X_USERD_SIZE		0x200	/* sizeof(Nvc56fControl) */

/* ---- GPFIFO entry ---- */
#define GA10X_GP_ENTRY_SIZE		8
/* ENTRY0 */
#define GA10X_GP_ENTRY0_FETCH_CONDITIONAL	(1u << 0)	/* FETCH 0:0 */
#define GA10X_GP_ENTRY0_GET_MASK	0xfffffffcu	/* GET 31:2, as address bits */
/* ENTRY1 */
#define GA10X_GP_ENTRY1_GET_HI_MASK	0xffu		/* GET_HI 7:0: VA bits 39:32 */
#define GA10X_GP_ENTRY1_LEVEL_SUBROUTINE	(1u << 9)	/* LEVEL 9:9 */
#define GA10X_GP_ENTRY1_LENGTH_SHIFT	10		/* LENGTH 30:10, dwords */
#define GA10X_GP_ENTRY1_LENGTH_MASK	0x1fffffu
#define GA10X_GP_ENTRY1_SYNC_WAIT	(1u << 31)	/* SYNC 31:31 */
#define GA10X_GP_ENTRY1_OPCODE_MASK	0xffu		/* OPCODE 7:0, LENGTH == 0 */
#define GA10X_GP_OPCODE_NOP		0x0u
#define GA10X_GP_OPCODE_ILLEGAL		0x1u
#define GA10X_GP_OPCODE_GP_CRC		0x2u
#define GA10X_GP_OPCODE_PB_CRC		0x3u
#define GA10X_GP_VA_BITS		40	/* GET_HI:GET */

/* A segment entry as nvidia-uvm writes it; va and len_bytes 4-aligned. */
static inline uint64_t ga10x_gp_entry(uint64_t va, uint32_t len_bytes,
				      int sync_wait)
{
	uint32_t e0 = (uint32_t)va & GA10X_GP_ENTRY0_GET_MASK;
	uint32_t e1 = ((uint32_t)(va >> 32) & GA10X_GP_ENTRY1_GET_HI_MASK) |
		      ((len_bytes >> 2) & GA10X_GP_ENTRY1_LENGTH_MASK) <<
		      GA10X_GP_ENTRY1_LENGTH_SHIFT |
		      (sync_wait ? GA10X_GP_ENTRY1_SYNC_WAIT : 0);

	return (uint64_t)e1 << 32 | e0;
}

/* A control entry (LENGTH 0): set_gpfifo_noop is ga10x_gp_ctrl(NOP, 0). */
static inline uint64_t ga10x_gp_ctrl(uint32_t opcode, uint32_t operand)
{
	return (uint64_t)(opcode & GA10X_GP_ENTRY1_OPCODE_MASK) << 32 | operand;
}

static inline uint32_t ga10x_gp_length(uint64_t e)	/* dwords */
{
	return (uint32_t)(e >> 32 >> GA10X_GP_ENTRY1_LENGTH_SHIFT) &
	       GA10X_GP_ENTRY1_LENGTH_MASK;
}

static inline uint64_t ga10x_gp_va(uint64_t e)
{
	return ((e >> 32) & GA10X_GP_ENTRY1_GET_HI_MASK) << 32 |
	       (e & GA10X_GP_ENTRY0_GET_MASK);
}

/* ---- pushbuffer method headers ---- */
#define GA10X_PB_ADDRESS_MASK		0xfffu		/* 11:0: method byte offset >> 2 */
#define GA10X_PB_SUBCH_SHIFT		13		/* 15:13 */
#define GA10X_PB_SUBCH_MASK		0x7u
#define GA10X_PB_TERT_OP_SHIFT		16		/* 17:16, SEC_OP GRP0/GRP2 */
#define GA10X_PB_TERT_OP_MASK		0x3u
#define GA10X_PB_COUNT_SHIFT		16		/* 28:16 */
#define GA10X_PB_COUNT_MASK		0x1fffu
#define GA10X_PB_IMMD_SHIFT		16		/* 28:16, IMMD_DATA_METHOD */
#define GA10X_PB_IMMD_MASK		0x1fffu
#define GA10X_PB_SEC_OP_SHIFT		29		/* 31:29 */
#define GA10X_PB_SEC_OP_MASK		0x7u
#define GA10X_PB_SEC_OP_GRP0_USE_TERT	0u
#define GA10X_PB_SEC_OP_INC_METHOD	1u
#define GA10X_PB_SEC_OP_GRP2_USE_TERT	2u
#define GA10X_PB_SEC_OP_NON_INC_METHOD	3u
#define GA10X_PB_SEC_OP_IMMD_DATA_METHOD 4u
#define GA10X_PB_SEC_OP_ONE_INC		5u
#define GA10X_PB_SEC_OP_RESERVED6	6u
#define GA10X_PB_SEC_OP_END_PB_SEGMENT	7u
/* TERT_OP with SEC_OP GRP0_USE_TERT */
#define GA10X_PB_TERT_OP_GRP0_INC_METHOD	0u	/* the legacy format: refused */
#define GA10X_PB_TERT_OP_SET_SUB_DEV_MASK	1u
#define GA10X_PB_TERT_OP_STORE_SUB_DEV_MASK	2u
#define GA10X_PB_TERT_OP_USE_SUB_DEV_MASK	3u
#define GA10X_PB_DMA_NOP		0x00000000u
#define GA10X_PB_COUNT_MAX		GA10X_PB_COUNT_MASK	/* UVM_METHOD_COUNT_MAX */
#define GA10X_SUBCHANNELS		8	/* NVC56F_NUMBER_OF_SUBCHANNELS */

static inline uint32_t ga10x_pb_header(uint32_t sec_op, uint32_t subch,
				       uint32_t method, uint32_t count)
{
	return (sec_op & GA10X_PB_SEC_OP_MASK) << GA10X_PB_SEC_OP_SHIFT |
	       (count & GA10X_PB_COUNT_MASK) << GA10X_PB_COUNT_SHIFT |
	       (subch & GA10X_PB_SUBCH_MASK) << GA10X_PB_SUBCH_SHIFT |
	       ((method >> 2) & GA10X_PB_ADDRESS_MASK);
}

/* UVM_METHOD_INC / UVM_METHOD_NONINC: method is the byte offset */
static inline uint32_t ga10x_pb_inc(uint32_t subch, uint32_t method,
				    uint32_t count)
{
	return ga10x_pb_header(GA10X_PB_SEC_OP_INC_METHOD, subch, method, count);
}

static inline uint32_t ga10x_pb_noninc(uint32_t subch, uint32_t method,
				       uint32_t count)
{
	return ga10x_pb_header(GA10X_PB_SEC_OP_NON_INC_METHOD, subch, method,
			       count);
}

static inline uint32_t ga10x_pb_oneinc(uint32_t subch, uint32_t method,
				       uint32_t count)
{
	return ga10x_pb_header(GA10X_PB_SEC_OP_ONE_INC, subch, method, count);
}

static inline uint32_t ga10x_pb_immd(uint32_t subch, uint32_t method,
				     uint32_t data)
{
	return ga10x_pb_header(GA10X_PB_SEC_OP_IMMD_DATA_METHOD, subch, method,
			       data);
}

static inline uint32_t ga10x_pb_end_segment(void)
{
	return GA10X_PB_SEC_OP_END_PB_SEGMENT << GA10X_PB_SEC_OP_SHIFT;
}

#endif /* GA10X_GPFIFO_H */
