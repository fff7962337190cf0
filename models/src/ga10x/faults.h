/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality, fault buffer, access-counter buffer and interrupt
 * leaf: state (faults.c).
 */
#ifndef GM_GA10X_FAULTS_H
#define GM_GA10X_FAULTS_H

#include <stdint.h>

/* A ring of 32-byte entries the device writes at PUT and the driver frees by GET. */
struct ga10x_ring {
	uint64_t base;		/* byte address, 4 KiB aligned */
	unsigned int aperture;	/* GA10X_BASE_APERTURE_VIDMEM or _SYSMEM */
	uint32_t base_hi;	/* _HI, staged until _LO is written */
	uint32_t size;		/* entries; 0: not configured */
	uint32_t get, put;	/* entry indices */
	/* PUT as the driver reads it: put, or in lockstep while warps run
	 * the PUT of the last hand-off (ga10x_publish()) */
	uint32_t pub;
	uint32_t ctrl;		/* EMGPU_RING_ENABLE */
};

/* GPCs and GPC-local client ids a fault entry can name (GPC_ID, CLIENT) */
#define GA10X_FAULT_GPCS	32
#define GA10X_FAULT_CLIENTS	128

struct ga10x_faults {
	struct ga10x_ring fb;		/* replayable fault buffer (C369) */
	uint32_t fb_status;		/* C369_BUF_OVERFLOW | _GETPTR_CORRUPTED */
	uint32_t page_fault_ctrl;	/* PAGE_FAULT_CTRL: PRF_FILTER */

	struct ga10x_ring ac;		/* access-counter notifications (C365) */
	uint32_t ac_config;		/* NV_PFB_NISO_ACCESS_COUNTER_CONFIG layout */
	uint32_t ac_info;		/* sticky FULL-register bits: WRITE_NACK */
	/*
	 * Lockstep: the driver took every notification handed to it (GET
	 * reached PUT). nvidia-uvm writes GET as it fetches, before it
	 * services them, so that is not yet the hand-back: the next PUT read
	 * (its fetch loop finding nothing more) or GET written again
	 * unchanged (the clear at its ISR unlock) is.
	 */
	int ac_drained;
	/*
	 * Lockstep: the launch ended with notifications the driver had not
	 * taken. Their service is awaited as a stop's is (ac_drained, then
	 * the hand-back), though no warp waits: the stand-in's launch wait
	 * reads GA10X_AC_CTRL_BUSY until then, so that the program goes on
	 * only once nvidia-uvm has serviced every notification of its launch.
	 */
	int ac_tail;

	uint32_t intr_pending;		/* GA10X_INTR_* */
	uint32_t intr_enable;
	/* lockstep: bits raised while warps run, sent by ga10x_publish() */
	uint32_t intr_held;

	/*
	 * Replay state: a replayable fault stalls the uTLB of its (GPC,
	 * client) pair until a replay; a cancel fails the stalled accesses
	 * it names (the SMs' side: ../fault.c). Bit c of stalled[g][c / 64]
	 * is GPC g's client c (hub clients have no uTLB to stall).
	 */
	uint64_t stalled[GA10X_FAULT_GPCS][GA10X_FAULT_CLIENTS / 64];
	uint32_t nstalled;		/* pairs set in stalled */
	uint32_t faults_since_replay;	/* entries written since the last replay */
	uint32_t last_replay;		/* its MEM_OP_C REPLAY value */
	/* START_ACK_ALL: the replay completes once every replayed access
	 * translated or faulted again (nvidia-uvm waits on it for cancels) */
	int ack_all_pending;
	uint64_t cancels;		/* cancels of any type since reset */
};

#endif /* GM_GA10X_FAULTS_H */
