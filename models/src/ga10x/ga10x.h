/* SPDX-License-Identifier: MIT */
/*
 * libgpumodel's GA10x personality: state and the calls between its units.
 * Not installed.
 *
 * Its ops table (../personality.h) is in regs.c; the shared model reaches
 * it only through that table, and its state only through ga10x_state().
 *
 * Units, one file each, each with its own state struct:
 *  - sm.c: the SMs' side: launches in a channel's context, the warps'
 *    accesses, their faults and notifications, lockstep hand-offs;
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

#include "../internal.h"
#include "ga10x/regs.h"
#include "faults.h"
#include "fifo.h"
#include "mmu.h"

/*
 * SM launches in a channel's context (sm.c; docs/model.md "SM launches in
 * the GA10x personality").
 */
enum ga10x_wait {
	GA10X_WAIT_NONE = 0,
	GA10X_WAIT_REPLAY,	/* a fault batch: until a replay or cancel */
	GA10X_WAIT_AC_GET,	/* notifications: until serviced (faults.c's ac_drained) */
};

struct ga10x_sm {
	uint32_t launch_channel;	/* GA10X_REG_LAUNCH_CHANNEL as written */
	/* the channel the latest launch runs (ran) in; NULL: none yet */
	struct ga10x_chan *chan;
	enum ga10x_wait wait;	/* lockstep: the hand-back SYNC_WAITING waits for */
};

struct ga10x_tlb_entry;

/*
 * What differs between the architectures that run on these units: GA10x
 * (Ampere, regs.c) and GH100 (Hopper, ../gh100/), which keeps GA10x's
 * register block, channels, interrupt leaf and buffers and differs in its
 * page-table format, its MMU engine ids and a few fields of its host and
 * copy classes.
 */
struct ga10x_arch {
	/*
	 * The VA the MMU takes: va_bits wide, or with canonical set, also its
	 * sign extension from bit va_bits - 1 (the upper half); any other
	 * VA faults GA10X_MMU_FAULT_VA_LIMIT before a walk.
	 */
	unsigned int va_bits;
	int canonical;
	/*
	 * Walks the page directory whose base entry is pdb for va (a TLB
	 * miss): 0 with *t's page_shift, vpn, pa, aperture and flags set,
	 * GA10X_XLATE_FAULT with *ft set, or a negative enum emgpu_error
	 * already latched. pdb is checked (ga10x_mmu_root()).
	 */
	int (*walk)(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		    struct ga10x_tlb_entry *t, unsigned int *ft);
	/* NV_PFAULT_MMU_ENG_ID_GRAPHICS: what the SMs' faults and
	 * notifications carry (+ VEID 0) */
	unsigned int mmu_eng_graphics;

	/* host class: c56f (ga10x/host_c56f.h) or c86f (gh100/host_c86f.h) */
	uint32_t sem_addr_hi_mask;	/* SEM_ADDR_HI's OFFSET */
	uint32_t cancel_eng_id_mask;	/* MEM_OP_A's CANCEL_MMU_ENGINE_ID */
	/* GPFIFO control entries SET_PB_SEGMENT_EXTENDED_BASE (c86f) */
	int pb_extended_base;

	/* copy class: c7b5 (ga10x/ce_c7b5.h) or c8b5 (gh100/ce_c8b5.h) */
	uint32_t ce_class;		/* what SET_OBJECT binds on 0-4 */
	uint32_t ce_upper_mask;		/* OFFSET_IN/OUT_UPPER, SEMAPHORE_A */
	/* LAUNCH_DMA's COPY_TYPE and MEMORY_SCRUB_ENABLE, and
	 * SET_MEMORY_SCRUB_PARAMETERS (c8b5) */
	int ce_scrub;
};

/* The personality's state: the GPU's pers.priv, allocated by its init. */
struct gm_ga10x {
	const struct ga10x_arch *arch;	/* kept across resets */
	struct ga10x_mmu mmu;
	struct ga10x_faults faults;
	struct ga10x_fifo fifo;
	struct ga10x_sm sm;
};

static inline struct gm_ga10x *ga10x_state(const struct gm_gpu *g)
{
	return g->pers.priv;
}

/* ---- mmu.c ---- */
struct ga10x_xlate {
	unsigned int aperture;	/* EMGPU_APERTURE_VIDMEM or _SYSMEM */
	uint64_t pa;		/* of va itself (page base + offset) */
	unsigned int page_shift;	/* 12, 16, 21 or 29 */
	unsigned int read_only, atomic_disable, vol, priv;
	/* VER3's ACD: the access does not count (VER2 has no such bit) */
	unsigned int acd;
	/* a sparse PTE: no fault, reads return 0, writes are dropped
	 * (aperture and pa are 0) */
	unsigned int sparse;
	/* with GA10X_XLATE_FAULT: NV_PFAULT_FAULT_TYPE_* (ga10x/mmu_v2.h) */
	unsigned int fault_type;
};
/* ga10x_translate()'s access: enum emgpu_access_type, with this or'ed in
 * for a privileged engine (a PRIVILEGE PTE then does not fault) */
#define GA10X_ACCESS_TYPE_MASK		0xffu
#define GA10X_ACCESS_PRIVILEGED		(1u << 8)
/* ga10x_translate()'s positive return: out->fault_type says which fault
 * (NVIDIA's PDE fault type is 0, so the type cannot be the return value) */
#define GA10X_XLATE_FAULT		1
/*
 * Translates va through the page directory whose base entry is pdb (as in
 * GA10X_REG_CHAN_PDB: address | GA10X_BASE_APERTURE_*), through the TLB.
 * Returns 0 with *out filled, GA10X_XLATE_FAULT with out->fault_type set
 * (nothing is written to any fault buffer), or a negative enum emgpu_error
 * (a walk that could not read memory, a malformed pdb or entry), which it
 * has latched with gm_error() already.
 */
int ga10x_translate(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		    unsigned int access, struct ga10x_xlate *out);

/*
 * Drops cached translations of [va, end) (end exclusive; 0, ~0 for all) in
 * the page directory pdb, or in every one with all_pdbs: what a host
 * MEM_OP TLB invalidate asks, decoded by host.c, and the RM's
 * GA10X_REG_MMU_INVALIDATE (all VAs), mmu.c.
 */
void ga10x_tlb_invalidate(struct gm_gpu *g, int all_pdbs, uint64_t pdb,
			  uint64_t va, uint64_t end);

/*
 * For an architecture's walk (struct ga10x_arch): the first table of pdb
 * (*ap an EMGPU_APERTURE_*, *table its address), or BAD_VALUE latched for
 * a misaligned pdb or a reserved aperture; n little-endian words at pa
 * (a read failure latched); a malformed entry for va (BAD_PTE latched).
 */
int ga10x_mmu_root(struct gm_gpu *g, uint64_t pdb, unsigned int *ap,
		   uint64_t *table);
int ga10x_mmu_read(struct gm_gpu *g, unsigned int ap, uint64_t pa,
		   uint64_t *w, unsigned int n);
int ga10x_mmu_bad_pte(struct gm_gpu *g, uint64_t va);
/* MMU VER2's walk (GA10x's struct ga10x_arch) */
int ga10x_mmu_walk_v2(struct gm_gpu *g, uint64_t pdb, uint64_t va,
		      struct ga10x_tlb_entry *t, unsigned int *ft);

/* ---- faults.c ---- */
/* Sets leaf bits pending and raises GA10X_MSIX_VECTOR if one is enabled. */
void ga10x_intr_raise(struct gm_gpu *g, uint32_t leaf_bits);

/*
 * A replay or cancel, as the MEM_OP TLB invalidate that carries it names it
 * (host.c decodes; values are clc56f.h's MEM_OP_C/D field values).
 */
struct ga10x_replay {
	unsigned int type;	/* MEM_OP_C_TLB_INVALIDATE_REPLAY_* */
	unsigned int gpc, client;	/* cancel targeted */
	uint64_t inst;		/* cancel targeted: instance pointer | aperture */
	uint64_t va;		/* cancel VA-global */
	unsigned int access_type;	/* cancel VA-global: MEM_OP_C ACCESS_TYPE */
	uint64_t pdb;		/* cancel VA-global: its PDB | aperture */
	unsigned int mmu_engine_id;	/* cancel VA-global: MEM_OP_A's */
};
void ga10x_fault_replay(struct gm_gpu *g, const struct ga10x_replay *r);

/* An access-counter clear (MEM_OP_D ACCESS_COUNTER_CLR_*). */
struct ga10x_ac_clear {
	unsigned int type;	/* _ALL, _TARGETED */
	unsigned int targeted_type;	/* _MIMC, _MOMC */
	uint32_t tag;		/* MEM_OP_C ACCESS_COUNTER_CLR_TARGETED_NOTIFY_TAG */
	unsigned int bank;
};
void ga10x_ac_clear(struct gm_gpu *g, const struct ga10x_ac_clear *c);

/*
 * A replayable fault, reported by the unit whose access faulted (values of
 * include/ga10x/fault_c369.h). Written as one C369 entry at PUT with the
 * PTIMER time; stalls the (gpc, client) uTLB until a replay. Prefetch
 * faults are dropped while PAGE_FAULT_CTRL filters them.
 */
struct ga10x_fault {
	uint64_t inst;		/* instance block | aperture, as GA10X_REG_CHAN_INST */
	uint64_t va;		/* faulting address (the entry keeps its 4 KiB page) */
	unsigned int fault_type;	/* C369_FAULT_TYPE_* */
	unsigned int access_type;	/* C369_ACCESS_* */
	unsigned int engine_id;	/* C369_MMU_ENG_ID_GRAPHICS + VEID, ... */
	unsigned int client_type;	/* C369_MMU_CLIENT_TYPE_GPC or _HUB */
	unsigned int gpc, client;	/* GPC_ID < 32, CLIENT < 128 */
	uint64_t timestamp_ns;	/* TIMESTAMP; 0: PTIMER now */
};
void ga10x_fault_report(struct gm_gpu *g, const struct ga10x_fault *f);

/*
 * An access-counter notification (values of include/ga10x/
 * access_counter_c365.h), written as one C365 entry at PUT. Returns 0 when
 * written (or dropped by injection), 1 when the buffer is disabled or full
 * (the counter may notify again), or a negative enum emgpu_error.
 */
struct ga10x_ac_entry {
	unsigned int type;	/* C365_TYPE_GPU (MIMC) or _CPU (MOMC) */
	unsigned int addr_type;	/* C365_ADDR_TYPE_GVA (all nvidia-uvm takes on GA10x) */
	uint64_t addr;		/* byte address of the counted region */
	unsigned int aperture;	/* GPA only: C365_APERTURE_* */
	uint64_t inst;		/* GVA: instance block | aperture, as GA10X_REG_CHAN_INST */
	unsigned int mmu_engine_id;	/* GVA: C369_MMU_ENG_ID_GRAPHICS + VEID */
	uint32_t sub_granularity;
	uint32_t counter;	/* COUNTER_VAL, 16 bits */
	uint32_t tag;		/* NOTIFY_TAG, 20 bits: what a targeted clear names */
	unsigned int bank;	/* BANK, 4 bits */
};
int ga10x_ac_notify(struct gm_gpu *g, const struct ga10x_ac_entry *n);

/*
 * Lockstep (faults.c): while gm_run() runs warps, fault entries and
 * notifications are written but not yet published (PUT as the driver reads
 * it stays behind) and their leaf bits are held; gm_run()'s stop publishes
 * the rings it hands to the driver (GA10X_PUBLISH_*) and sends their bits.
 */
#define GA10X_PUBLISH_FAULTS	(1u << 0)
#define GA10X_PUBLISH_NOTIFY	(1u << 1)
void ga10x_publish(struct gm_gpu *g, uint32_t what);
/* whether the SMs' accesses count (the notification buffer is enabled) */
int ga10x_ac_counting(const struct gm_gpu *g);

/*
 * ---- sm.c: the SMs' side, and the ops table's hooks for it ----
 * A replay (START, START_ACK_ALL) resumes the stalled warps; entries is
 * the number of fault entries written since the previous replay (the
 * batch the driver serviced: its CPU cost). A cancel fails the running
 * launch if it names stalled accesses of it. Both hand the batch back.
 */
void ga10x_sm_replay(struct gm_gpu *g, uint32_t entries);
void ga10x_sm_cancel(struct gm_gpu *g, const struct ga10x_replay *r);
int ga10x_launch_bind(struct gm_gpu *g, uint32_t *info);
/* fifo.c: channel c was disabled or its PDB changed by the write at off */
void ga10x_sm_chan_changed(struct gm_gpu *g, const struct ga10x_chan *c,
			   uint32_t off);
int ga10x_warp_load(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		    void *buf, uint32_t len, unsigned int access);
int ga10x_warp_store(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		     const void *buf, uint32_t len);
void ga10x_counter_notify(struct gm_gpu *g, int32_t idx);
int ga10x_stop_waits(struct gm_gpu *g, enum gm_stop why);
void ga10x_stop_publish(struct gm_gpu *g, enum gm_stop why);
void ga10x_sync(struct gm_gpu *g);

/* ---- regs.c ---- */
/* the block's register names (gm_personality_desc()'s reg_name) */
const char *ga10x_reg_name(uint32_t off, char *buf, size_t len);
/*
 * The ops an architecture on these units shares (its table lists
 * GA10X_SHARED_OPS, then its desc and init); its init calls
 * ga10x_init_arch() with its struct ga10x_arch.
 */
int ga10x_init_arch(struct gm_gpu *g, const struct ga10x_arch *arch);
void ga10x_reset(struct gm_gpu *g);
void ga10x_fini(struct gm_gpu *g);
int ga10x_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v);
int ga10x_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v);
#define GA10X_SHARED_OPS \
	.reset = ga10x_reset, \
	.fini = ga10x_fini, \
	.reg_read = ga10x_reg_read, \
	.reg_write = ga10x_reg_write, \
	.poll = ga10x_fifo_poll, \
	.launch_bind = ga10x_launch_bind, \
	.warp_load = ga10x_warp_load, \
	.warp_store = ga10x_warp_store, \
	.ac_notify = ga10x_counter_notify, \
	.stop_waits = ga10x_stop_waits, \
	.stop_publish = ga10x_stop_publish, \
	.sync = ga10x_sync

/* ---- fifo.c ---- */
void ga10x_fifo_doorbell(struct gm_gpu *g, uint32_t token);
/*
 * The channel GA10X_REG_LAUNCH_CHANNEL names if a launch may run in it (an
 * enabled graphics channel, not in RC), else NULL.
 */
struct ga10x_chan *ga10x_launch_chan(struct gm_gpu *g);
/*
 * Re-examines channels blocked on a semaphore acquire (the embedder calls
 * this periodically through gm_poll(): the CPU may release a semaphore by a
 * plain store). Returns how many channels are still blocked; the embedder
 * stops polling at 0. A poll that finds nothing released must charge no
 * time and fold no event: how often it runs depends on the embedder's
 * clock, not on the guest's program.
 */
unsigned int ga10x_fifo_poll(struct gm_gpu *g);

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
