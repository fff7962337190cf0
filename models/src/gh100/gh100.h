/* SPDX-License-Identifier: MIT */
/*
 * libgpumodel's GH100 (Hopper) personality. Not installed.
 *
 * It runs on the GA10x personality's units (../ga10x/ga10x.h) where
 * Hopper's formats are Ampere's, and brings its own where they are not:
 *  - shared with GA10x: the BAR0 block and its register semantics
 *    (ga10x/regs.h), GPFIFO channels, the interrupt leaf, the replayable
 *    fault buffer's entries (C369 MMU_FAULT_BUFFER: the same layout on
 *    Hopper, which nvidia-uvm parses with the Volta code on both) and the
 *    access-counter buffer's (C365), the TLB, the SMs' side and lockstep;
 *    fault types (dev_fault.h's NV_PFAULT_FAULT_TYPE_* are unchanged);
 *  - its own: the MMU VER3 walk (mmu.c, include/gh100/mmu_v3.h), 57-bit
 *    VAs with the upper half, Hopper's MMU engine ids
 *    (include/gh100/regs.h) in the entries the SMs' faults and
 *    notifications write, and through struct ga10x_arch the fields of
 *    host class c86f (the pushbuffer's extended base, SEM_ADDR_HI's and
 *    CANCEL_MMU_ENGINE_ID's widths) and copy class c8b5 (57-bit upper
 *    words, COPY_TYPE, the fast scrubber) that differ from c56f and
 *    c7b5, which ../ga10x/host.c, fifo.c and ce.c decode.
 * Its ops table is in gh100.c: GA10x's shared ops, its own description
 * and init.
 */
#ifndef GM_GH100_H
#define GM_GH100_H

#include "../ga10x/ga10x.h"

/* MMU VER3's walk (GH100's struct ga10x_arch), mmu.c */
int gh100_mmu_walk_v3(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		      struct ga10x_tlb_entry *t, unsigned int *ft);

#endif /* GM_GH100_H */
