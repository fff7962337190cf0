/* SPDX-License-Identifier: MIT */
/*
 * libgpumodel: the software model of the emgpu (models/include/emgpu_hw.h).
 *
 * One struct gm_gpu holds all state; there are no globals and no threads.
 * The embedder (the QEMU device, or a unit test) provides DMA and interrupt
 * callbacks and drives the model through two interfaces:
 *
 *  - the register interface gm_reg_read()/gm_reg_write(), which implements
 *    every register of emgpu_hw.h exactly as a guest driver sees it;
 *  - gm_run(), which advances the warps of the running launch until the
 *    next event that needs the driver (fault batch, notification batch,
 *    timer tick, launch completion) or until a budget of modelled accesses
 *    is used. Warps run only inside gm_run().
 *
 * A direct C API (gm_launch(), gm_replay(), gm_ce_kick(), ...) does the same
 * as the corresponding register sequences and exists for unit tests.
 *
 * Notes (modelling assumptions):
 *  - Time is a virtual clock in picoseconds (PTIMER shows ns). It advances
 *    only inside gm_run(), by modelled work; see timing.c for the rules.
 *  - Copy-engine descriptors complete functionally at the doorbell (bytes
 *    moved, semaphore written) up to GM_CE_WORK bytes of work; the rest of
 *    a larger push goes on in gm_run(). Their modelled completion time
 *    occupies the copy engines and the link, and delays the next replay
 *    when the FAULT driver thread rang the doorbell.
 *  - In lockstep mode (the default) every stop that needs the driver sets
 *    SYNC_STATUS.WAITING and gm_run() does nothing until SYNC is written.
 */
#ifndef GPUMODEL_GPUMODEL_H
#define GPUMODEL_GPUMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "emgpu_hw.h"
#include "gpumodel/inject_kinds.h"
#include "gpumodel/personality.h"
#include "gpumodel/profile.h"

struct gm_gpu;

/* Callbacks the embedder provides; set by the embedder. */
struct gm_callbacks {
	void *opaque;
	/* Sysmem (guest RAM) access; return 0, or nonzero if any byte failed. */
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, uint64_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
			 uint64_t len);
	/* Raise MSI-X vector `vector` (enum emgpu_intr_vector). May be NULL. */
	void (*irq)(void *opaque, unsigned int vector);
	/* Every event folded into the trace hash (enum gm_event_type), for
	 * the embedder's tracing; arguments as gm_event_name() documents.
	 * May be NULL. */
	void (*event)(void *opaque, unsigned int type, uint64_t a, uint64_t b,
		      uint64_t c);
	/* Every error the model latches in ERROR_STATUS (gm_error()), with
	 * the ERROR_INFO word: the one place an embedder learns of a bad
	 * guest value (QEMU logs it as a guest error). May be NULL. */
	void (*error)(void *opaque, enum emgpu_error code, uint32_t info);
};

/* Events of the trace hash. */
enum gm_event_type {
	GM_EV_FAULT = 1, GM_EV_REPLAY, GM_EV_CANCEL, GM_EV_NOTIFY, GM_EV_COPY,
	GM_EV_LAUNCH, GM_EV_COMPLETE, GM_EV_TLB_INV, GM_EV_ERROR, GM_EV_IRQ,
	GM_EV_TIMER, GM_EV_INJECT, GM_EV_AC_CLEAR, GM_EV_DRIVER, GM_EV_OVERFLOW,
};
const char *gm_event_name(unsigned int type);

/* The personalities (GM_PERSONALITIES, gm_personality_name()): personality.h. */

/*
 * What an embedder presents of a personality besides its registers' and
 * formats' behaviour: its PCI function, BARs, interrupts and whether it
 * needs gm_poll(). One per personality, in its ops table, so the embedder
 * (qemu-device/emgpu.c) has no branch on which one it is.
 */
struct gm_personality_desc {
	uint32_t regs_size;		/* BAR0 (EMGPU_BAR_REGS): gm_regs_size() */
	uint16_t pci_device_id;		/* vendor EMGPU_PCI_VENDOR_ID */
	unsigned int msix_vectors;	/* in BAR EMGPU_BAR_MSIX */
	/*
	 * The CPU's window on VRAM: its BAR (0: none) and its size at most;
	 * it spans min(VRAM, vram_bar_max) rounded up to a power of two,
	 * VRAM from offset 0 (gm_vram_read()/gm_vram_write()).
	 */
	unsigned int vram_bar;
	uint64_t vram_bar_max;
	/* channels may block on a store the device does not see: the
	 * embedder calls gm_poll() while it reports some (0: never) */
	int polls;
	/*
	 * The name of a register of the personality's own block, for the
	 * embedder's trace (a CHAN<n>_* name is formatted into buf); NULL for
	 * emgpu_hw.h's registers and for an offset the block does not name
	 * ("?"). NULL itself when the personality has no block of its own.
	 */
	const char *(*reg_name)(uint32_t off, char *buf, size_t len);
};
/* The description of p; NULL for an unknown value. */
const struct gm_personality_desc *gm_personality_desc(enum gm_personality p);

/*
 * How the driver's CPU work is charged to its threads (guest_cost.c,
 * docs/model.md "Driver CPU time"):
 *  ASSUMED   the profile's per-event constants (fault_service_ns, the
 *            DRIVER_ACTION units, DRIVER_TIME, tlb_invalidate_ns, and
 *            under GA10x drv_fault_page_ns per fault entry): the fallback
 *  MEASURED  the guest's instructions retired in each activity's interval
 *            (gm_guest_insns()) times the profile's cpu_insn_ps, the same
 *            rule for every driver and personality; the constants above
 *            are then only counted (cpu_assumed_ns), not charged
 */
#define GM_DRIVER_COSTS(X) \
	X(ASSUMED, assumed) \
	X(MEASURED, measured)

enum gm_driver_cost {
#define GM_DRIVER_COST_ENUM(id, name) GM_DRIVER_COST_##id,
	GM_DRIVER_COSTS(GM_DRIVER_COST_ENUM)
#undef GM_DRIVER_COST_ENUM
};
/* "assumed", "measured"; NULL for an unknown value. */
const char *gm_driver_cost_name(enum gm_driver_cost c);
/* 0 and *out set, or -1 for an unknown name. */
int gm_driver_cost_lookup(const char *name, enum gm_driver_cost *out);

struct gm_config {
	struct gm_profile profile;	/* copied */
	enum gm_personality personality;
	uint64_t seed;			/* PRNG seed; same seed + inputs -> same hash */
	int lockstep;			/* 1: stop and wait for SYNC at driver events */
	/*
	 * Host bytes VRAM's lazy backing may take (a multiple of 2 MiB; 0: no
	 * cap): a write that needs a chunk past it is refused whole with
	 * EMGPU_ERR_VRAM_BACKING, so a guest that touches all of a large
	 * profile's VRAM cannot make the embedder allocate all of it.
	 */
	uint64_t vram_backing_max;
	enum gm_driver_cost driver_cost;
	/*
	 * Bytes of work one register write or gm_run()/gm_poll() step does at
	 * most in a copy-engine push or a GA10x scheduler call (GM_CE_WORK's
	 * rule; 0: GM_CE_WORK). Lower only bounds the host time a write takes
	 * (a fuzzer's); the work is the same, done in more steps.
	 */
	uint64_t work_max;
};

/* Creates a model; NULL on allocation failure or an invalid profile. */
struct gm_gpu *gm_create(const struct gm_config *cfg,
			 const struct gm_callbacks *cb);
void gm_destroy(struct gm_gpu *gpu);
/* Device reset: registers, TLBs, warps, counters, clock, hash; keeps VRAM
 * contents, the profile, the seed and the armed injections with what they
 * already fired (an injection belongs to the experiment, not the device). */
void gm_reset(struct gm_gpu *gpu);

/* ---- register interface (32-bit, offsets from emgpu_hw.h, ga10x/regs.h) ---- */
/* BAR0 size: the personality's regs_size (gm_personality_desc()). */
uint32_t gm_regs_size(const struct gm_gpu *gpu);
uint32_t gm_reg_read(struct gm_gpu *gpu, uint32_t offset);
void gm_reg_write(struct gm_gpu *gpu, uint32_t offset, uint32_t value);

/*
 * Latches a device error (ERROR_STATUS/INFO, error interrupt), as the model
 * does for bad guest values; for the embedder's own checks (bad access size).
 */
void gm_error(struct gm_gpu *gpu, enum emgpu_error code, uint32_t info);

/* ---- run loop ---- */
enum gm_stop {
	GM_STOP_IDLE = 0,	/* no launch running: nothing to do */
	GM_STOP_FAULT,		/* a fault batch is in the buffer, warps stalled */
	GM_STOP_STALLED,	/* every warp waits for a replay that is not yet written */
	GM_STOP_NOTIFY,		/* access-counter notifications were written */
	GM_STOP_TIMER,		/* the policy timer ticked */
	GM_STOP_LAUNCH_DONE,	/* the launch completed (DONE, CANCELLED or ERROR) */
	GM_STOP_BUDGET,		/* the access budget is used up */
	GM_STOP_WAIT_SYNC,	/* lockstep: waiting for the driver's SYNC */
	GM_STOP_HANG,		/* injected device hang: nothing runs until reset */
};
/*
 * Runs warps for at most `budget` modelled accesses (0 = no limit). A
 * copy-engine push under way (gm_ce_pending()) goes first: gm_run() runs
 * one more slice of it, and while one is still left returns
 * GM_STOP_BUDGET with no warp run, in lockstep too.
 */
enum gm_stop gm_run(struct gm_gpu *gpu, uint64_t budget);
const char *gm_stop_name(enum gm_stop stop);

/*
 * GA10X: re-examines the GPFIFO channels blocked on a semaphore acquire,
 * which a CPU may release by a plain store the device never sees, and runs
 * on what a scheduler pass left for lack of budget. Returns how many
 * channels are still blocked or left with work: the embedder calls it
 * again later while that is nonzero (qemu-device/emgpu.c: every 100 us of
 * QEMU's virtual clock). A poll that finds nothing released changes
 * nothing, time and trace hash included. 0, doing nothing, in the emgpu
 * personality.
 */
unsigned int gm_poll(struct gm_gpu *gpu);

/*
 * The work one slice of a copy-engine push does at most, in bytes: each
 * descriptor counts GM_CE_WORK_DESC, a copy or memset its destination
 * bytes (in pieces of 64 KiB; a piece is not split). The doorbell's write
 * runs the first slice; what is left, at most EMGPU_RING_MAX_ENTRIES - 1
 * descriptors of 4 GiB, goes on one slice per gm_run(). The default of
 * gm_config's work_max.
 */
#define GM_CE_WORK		(64ull << 20)
#define GM_CE_WORK_DESC		64u

/*
 * 1 while a push is under way, with the descriptor it is in (*get), the
 * CE_RING_PUT it runs to (*end) and the bytes of that descriptor already
 * moved (*moved); 0 otherwise. For the embedder's tracing.
 */
int gm_ce_pending(const struct gm_gpu *gpu, uint32_t *get, uint32_t *end,
		  uint64_t *moved);

/* ---- direct API (tests; each equals a register sequence) ---- */
int gm_launch(struct gm_gpu *gpu, const struct emgpu_launch_desc *desc);
void gm_replay(struct gm_gpu *gpu, uint32_t mode);	/* EMGPU_REPLAY_* */
void gm_sync(struct gm_gpu *gpu);			/* write SYNC */
void gm_tlb_invalidate(struct gm_gpu *gpu, uint32_t mode, uint64_t va,
		       uint64_t size);
void gm_set_pdb(struct gm_gpu *gpu, uint64_t pde);
void gm_driver_charge(struct gm_gpu *gpu, unsigned int thread, uint64_t ns);
/* DRIVER_ACTION JOIN: `thread` waits until `other` is idle. */
void gm_driver_join(struct gm_gpu *gpu, unsigned int thread, unsigned int other);

/*
 * Translates va as the MMU would for `access` (enum emgpu_access_type)
 * through uTLB `utlb`, filling the TLBs. Returns 0 and fills *aperture and *pa, a
 * positive enum emgpu_fault_type for a fault (nothing is written to the
 * fault buffer), or a negative enum emgpu_error.
 */
int gm_translate(struct gm_gpu *gpu, unsigned int utlb, uint64_t va,
		 unsigned int access, unsigned int *aperture, uint64_t *pa);

/* Device-memory access; 0 or a negative enum emgpu_error. */
int gm_vram_read(struct gm_gpu *gpu, uint64_t pa, void *buf, uint64_t len);
int gm_vram_write(struct gm_gpu *gpu, uint64_t pa, const void *buf,
		  uint64_t len);

/*
 * The guest's CPU has retired `retired` instructions in all (a count that
 * only grows, e.g. QEMU's icount_get_raw()). The embedder calls it at
 * every guest access to the device and before every gm_run(), gm_poll():
 * the instructions since the previous call are the guest's work in the
 * activity open then (enum gm_cpu_activity: a fault batch handed off and
 * not yet replayed or cancelled; a notification batch not yet handed back;
 * else the driver's own copy from the register write that started it to
 * the guest's next access), or nobody's. Counted always; charged to the
 * activity's driver thread at cpu_insn_ps each under GM_DRIVER_COST_MEASURED.
 * Never called: nothing is counted (an embedder without instruction counts).
 */
void gm_guest_insns(struct gm_gpu *gpu, uint64_t retired);

/* ---- observation ---- */

/*
 * The driver's activities whose guest instructions are counted (and, under
 * GM_DRIVER_COST_MEASURED, charged); Y(X, id, name, what). The thread
 * charged is the batch's (FAULT, NOTIFY), else WORKER. Inside a
 * fault or notification batch an eviction copy (device to host) makes the
 * instructions up to the next copy the batch's eviction work; outside a
 * batch a copy started by a register write makes the instructions up to the
 * guest's next access to the device its prefetch (host to device), eviction
 * or worker (anything else) work.
 */
#define GM_CPU_ACTIVITIES(Y, X)						\
	Y(X, FAULT, fault,					\
	  "a fault batch, from its hand-off to REPLAY or CANCEL")		\
	Y(X, NOTIFY, notify,					\
	  "a notification batch, from its hand-off to its hand-back")	\
	Y(X, EVICT, evict,					\
	  "an eviction: device-to-host copies and what leads to the next copy") \
	Y(X, PREFETCH, prefetch,					\
	  "host-to-device copies the driver starts outside a batch")	\
	Y(X, WORKER, worker,					\
	  "other copies (memsets, PTE writes, device-to-device) outside a batch")

enum gm_cpu_activity {
#define GM_CPU_ACTIVITY_ENUM_(X, id, name, what) GM_CPU_##id,
	GM_CPU_ACTIVITIES(GM_CPU_ACTIVITY_ENUM_, )
#undef GM_CPU_ACTIVITY_ENUM_
	GM_CPU_ACTIVITIES_COUNT,
	GM_CPU_NONE = GM_CPU_ACTIVITIES_COUNT,
};

/* Each activity's two counters: instructions and modelled ns. */
#define GM_CPU_ACTIVITY_STATS_(X, id, name, what) \
	X(cpu_insns_##name) X(cpu_ns_##name)

/*
 * The device's counters, each a uint64_t: the one list that struct
 * gm_stats, QEMU's "stats" property (qemu-device/emgpu.c) and every other
 * reader expand, so a counter added here appears everywhere.
 */
#define GM_STATS(X)							\
	X(accesses)		/* modelled 128-byte warp accesses */	\
	X(vram_accesses)						\
	X(sysmem_accesses)						\
	X(tlb_hits)		/* uTLB hits */				\
	X(l2_tlb_hits)							\
	X(walks)		/* page-table walks */			\
	X(faults)		/* faulting accesses */			\
	X(fault_entries)	/* entries written to the fault buffer */ \
	X(fault_overflows)	/* faults dropped with OVERFLOW */	\
	X(replays)							\
	X(cancels)							\
	X(notifications)						\
	X(notify_overflows)						\
	X(copies)							\
	X(bytes_h2d)							\
	X(bytes_d2h)							\
	X(bytes_d2d)							\
	X(bytes_h2h)							\
	X(tlb_invalidates)						\
	X(launches)							\
	X(launches_failed)						\
	X(errors)							\
	X(injections_fired)						\
	X(events)		/* events folded into the trace hash */	\
	X(sim_ns)		/* virtual clock */				\
	GM_CPU_ACTIVITIES(GM_CPU_ACTIVITY_STATS_, X)			\
	X(cpu_insns_other)	/* guest instructions in no activity */	\
	X(cpu_measured_ns)	/* the activities' ns, summed */	\
	X(cpu_assumed_ns)	/* what the assumed constants charge */

struct gm_stats {
#define GM_STAT_FIELD(name) uint64_t name;
	GM_STATS(GM_STAT_FIELD)
#undef GM_STAT_FIELD
};

#define GM_STAT_COUNT_ONE(name) + 1
enum { GM_STATS_COUNT = 0 GM_STATS(GM_STAT_COUNT_ONE) };
#undef GM_STAT_COUNT_ONE

void gm_get_stats(const struct gm_gpu *gpu, struct gm_stats *out);
uint64_t gm_trace_hash(const struct gm_gpu *gpu);
uint64_t gm_now_ns(const struct gm_gpu *gpu);
uint64_t gm_now_ps(const struct gm_gpu *gpu);
const struct gm_profile *gm_get_profile(const struct gm_gpu *gpu);
enum emgpu_error gm_error_status(const struct gm_gpu *gpu);
/* "bad-register", "dma", ...; "?" for an unknown code. */
const char *gm_error_name(unsigned int code);
uint32_t gm_launch_status(const struct gm_gpu *gpu);
uint64_t gm_launch_result(const struct gm_gpu *gpu);
uint64_t gm_launch_time_ns(const struct gm_gpu *gpu);
uint64_t gm_ce_done_ns(const struct gm_gpu *gpu);
uint64_t gm_driver_busy_ns(const struct gm_gpu *gpu, unsigned int thread);

/* ---- fault injection (inject.c) ---- */
enum gm_inject_kind {
	GM_INJ_NONE = 0,
#define GM_INJ_ENUM_(id, name, what)	GM_INJ_##id,
	GM_INJECT_KINDS(GM_INJ_ENUM_)
#undef GM_INJ_ENUM_
	GM_INJ_KINDS,
};

enum gm_trigger {
	GM_TRIG_ALWAYS = 0,	/* every check point ("always", the default) */
	GM_TRIG_EVENT,		/* "event:N": first check point once N events happened */
	GM_TRIG_PROB,		/* "prob:P": each check point with probability P (0..1) */
};

struct gm_inject {
	enum gm_inject_kind kind;
	enum gm_trigger trigger;
	uint64_t event;		/* GM_TRIG_EVENT */
	uint32_t prob_ppm;	/* GM_TRIG_PROB, parts per million */
	uint64_t seed;		/* GM_TRIG_PROB stream, mixed with the model seed */
	uint64_t range_start;	/* with range_len != 0: only addresses in range */
	uint64_t range_len;
	uint32_t count;		/* firings left; 0 = unlimited */
	uint32_t factor;	/* ce-stall slowdown, 10..1000 (default 100) */
	int launch_only;	/* during=launch: check points outside a
				 * running launch neither fire nor count */
	/* run-time state */
	uint64_t rng;
	uint64_t fired;
	/*
	 * Firings that hit a running launch: the injection fired while
	 * LAUNCH_STATUS was RUNNING, or (poison, whose firing only marks
	 * chunks) a read of a poisoned chunk failed during a launch.
	 */
	uint64_t fired_in_launch;
};

#define GM_INJECT_MAX	16

/*
 * Parses "kind=K[,trigger=event:N|prob:P|always][,range=ADDR+LEN]
 * [,count=N][,seed=N][,factor=N][,during=launch|any]". Returns 0, or
 * -EINVAL with a message
 * in err (when errlen > 0).
 */
int gm_inject_parse(const char *spec, struct gm_inject *out, char *err,
		    size_t errlen);
/* Parses and arms; returns the slot (>= 0), -EINVAL or -ENOSPC. */
int gm_inject_add(struct gm_gpu *gpu, const char *spec, char *err,
		  size_t errlen);
void gm_inject_clear(struct gm_gpu *gpu);
/* Times slot `slot` fired, 0 for an empty slot. */
uint64_t gm_inject_fired(const struct gm_gpu *gpu, int slot);
/* Of those, the firings that hit a running launch (see fired_in_launch). */
uint64_t gm_inject_fired_in_launch(const struct gm_gpu *gpu, int slot);
const char *gm_inject_kind_name(enum gm_inject_kind kind);

#endif /* GPUMODEL_GPUMODEL_H */
