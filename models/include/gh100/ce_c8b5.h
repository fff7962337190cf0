/* SPDX-License-Identifier: MIT */
/*
 * GH100 copy engine: class c8b5 (HOPPER_DMA_COPY_A) where it differs from
 * c7b5 (ga10x/ce_c7b5.h holds everything else: method offsets, remap,
 * semaphores, LAUNCH_DMA's other fields). Our names; bit positions and
 * values are NVIDIA's (clc8b5.h, the same in the 535 and 550 trees).
 *
 * What changed:
 *  - the upper address words (OFFSET_IN/OUT_UPPER, SET_SEMAPHORE_A) keep
 *    VA bits 56:32 (25 bits, were 17);
 *  - LAUNCH_DMA: COPY_TYPE 21:20 (DEFAULT; SECURE and NONPROT2NONPROT are
 *    Confidential Computing's), VPRMODE shrank to 22:22, and
 *    MEMORY_SCRUB_ENABLE 23:23 runs the fast scrubber: with REMAP_ENABLE
 *    clear it fills LINE_LENGTH_IN bytes of physical vidmem with the 8-byte
 *    pattern SET_REMAP_CONST_A (low word) and _B (high word), which is how
 *    nvidia-uvm's Hopper memset of 4 KiB-aligned physical vidmem writes
 *    (uvm_hopper_ce.c: memset_1/4/8 turn into an 8-byte pattern), after
 *    SET_MEMORY_SCRUB_PARAMETERS;
 *  - new methods: SET_MEMORY_SCRUB_PARAMETERS, and Confidential
 *    Computing's SET_SECURE_COPY_MODE, decrypt IVs and auth-tag and IV
 *    addresses (0x500-0x53c);
 *  - gone: SET_GLOBAL_COUNTER_* and SET_PAGEOUT_START_* (0x280-0x28c).
 */
#ifndef GH100_CE_C8B5_H
#define GH100_CE_C8B5_H

#define HOPPER_DMA_COPY_A_CLASS		0xc8b5u

/* OFFSET_IN/OUT_UPPER and SET_SEMAPHORE_A: UPPER 24:0, VA bits 56:32 */
#define C8B5_UPPER_MASK			0x1ffffffu

/* ---- LAUNCH_DMA fields c8b5 adds or moves ---- */
#define C8B5_LAUNCH_DMA_COPY_TYPE_SHIFT		20	/* 21:20 */
#define C8B5_LAUNCH_DMA_COPY_TYPE_MASK		0x3u
#define C8B5_LAUNCH_DMA_COPY_TYPE_DEFAULT	0u	/* also PROT2PROT */
#define C8B5_LAUNCH_DMA_COPY_TYPE_SECURE	1u
#define C8B5_LAUNCH_DMA_COPY_TYPE_NONPROT2NONPROT 2u
#define C8B5_LAUNCH_DMA_VPRMODE			(1u << 22)	/* 22:22, 0: VPR_NONE */
#define C8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE	(1u << 23)	/* 23:23 */

/* ---- methods c8b5 adds ---- */
#define C8B5_SET_SECURE_COPY_MODE		0x500
#define C8B5_SET_ENCRYPT_IV_ADDR_LOWER		0x53c	/* the last CC method */
#define C8B5_SET_MEMORY_SCRUB_PARAMETERS	0x6fc
#define C8B5_MEMORY_SCRUB_DISCARDABLE		(1u << 0)	/* 0:0 */

/* the scrubber's pattern: CONST_A then CONST_B, 8 bytes */
#define C8B5_SCRUB_PATTERN_SIZE			8

#endif /* GH100_CE_C8B5_H */
