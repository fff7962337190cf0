/* SPDX-License-Identifier: MIT */
/*
 * libgpumodel's GA10x personality: state and the calls between its units.
 * Not installed.
 *
 * Units, one file each, each with its own state struct:
 *  - mmu.c: MMU VER2 page-table walk and TLB (include/ga10x/mmu_v2.h);
 *  - faults.c: replayable fault buffer (clc369.h's entries), access-counter
 *    buffer (clc365.h's entries) and the interrupt leaf;
 *  - fifo.c, host.c, ce.c: GPFIFO channels, host class c56f methods and
 *    copy-engine class c7b5 methods;
 *  - regs.c: the BAR0 block of include/ga10x/regs.h, dispatched to the units.
 * Every unit reaches memory through gm_mem_read()/gm_mem_write() and time
 * through the shared clock, so timing, statistics, the trace hash and fault
 * injection are the same model's in both personalities.
 */
#ifndef GM_GA10X_H
#define GM_GA10X_H

#include <stdint.h>

#include "ga10x/regs.h"
#include "faults.h"
#include "fifo.h"
#include "mmu.h"

struct gm_gpu;

/* The personality's state, allocated by gm_create() for GA10X only. */
struct gm_ga10x {
	struct ga10x_mmu mmu;
	struct ga10x_faults faults;
	struct ga10x_fifo fifo;
};

int ga10x_init(struct gm_gpu *g);
void ga10x_fini(struct gm_gpu *g);
void ga10x_reset(struct gm_gpu *g);
uint32_t ga10x_reg_read(struct gm_gpu *g, uint32_t off);
void ga10x_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v);

/* ---- mmu.c ---- */
struct ga10x_xlate {
	unsigned int aperture;	/* EMGPU_APERTURE_VIDMEM or _SYSMEM */
	uint64_t pa;
	unsigned int page_shift;	/* 12, 16, 21 or 29 */
	unsigned int read_only, atomic_disable, vol, priv;
};
/*
 * Translates va through the page directory whose base entry is pdb (as in
 * GA10X_REG_CHAN_PDB: address | aperture). Returns 0, a positive fault
 * type of hwref ampere dev_fault.h (NV_PFAULT_FAULT_TYPE_*), or a negative
 * enum emgpu_error (a walk that could not read memory).
 */
int ga10x_translate(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		    unsigned int access, struct ga10x_xlate *out);

/* ---- faults.c ---- */
void ga10x_intr_raise(struct gm_gpu *g, uint32_t leaf_bits);

/* ---- fifo.c ---- */
void ga10x_fifo_doorbell(struct gm_gpu *g, uint32_t token);
/* Re-examines channels blocked on a semaphore acquire (the embedder calls
 * this periodically: the CPU may release a semaphore by a plain store). */
void ga10x_fifo_poll(struct gm_gpu *g);

/*
 * Per-unit register handlers (regs.c tries each): 0 when the offset is the
 * unit's, -1 when it is not.
 */
int ga10x_mmu_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v);
int ga10x_mmu_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v);
int ga10x_faults_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v);
int ga10x_faults_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v);
int ga10x_fifo_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v);
int ga10x_fifo_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v);

#endif /* GM_GA10X_H */
