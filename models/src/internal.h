/* SPDX-License-Identifier: MIT */
/*
 * libgpumodel internals: the state struct and the helpers the units share.
 * Not installed; embedders use gpumodel/gpumodel.h.
 *
 * Conventions: functions return 0 on success, a negative enum emgpu_error
 * for a device error, and (translation only) a positive enum
 * emgpu_fault_type for a fault. Times are picoseconds (gm_time_t).
 */
#ifndef GM_INTERNAL_H
#define GM_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "gpumodel/gpumodel.h"
#include "gpumodel/kernel.h"
#include "personality.h"

typedef uint64_t gm_time_t;		/* picoseconds */
#define GM_PS_PER_NS		1000ull
#define GM_NS(x)		((gm_time_t)(x) * GM_PS_PER_NS)

#define GM_CHUNK_SHIFT		21	/* VRAM backing and poison granule */
#define GM_CHUNK_SIZE		(1ull << GM_CHUNK_SHIFT)
/* the host's cache line, the unit it merges a partial write into */
#define GM_HOST_LINE_SHIFT	6
/* host lines a write request reached recently: slots */
#define GM_HOST_LINE_SLOTS_SHIFT	16
#define GM_HOST_LINES		(1u << GM_HOST_LINE_SLOTS_SHIFT)

/* TLB geometry: direct-mapped, power-of-two sizes. */
#define GM_UTLB_4K		64
#define GM_UTLB_2M		8
#define GM_L2TLB_4K		2048
#define GM_L2TLB_2M		128
#define GM_PDE_CACHE		256	/* 2 MiB regions whose PT base is cached */

#define GM_EPOCH_PS		GM_NS(1000)	/* run-loop horizon step */
#define GM_SLICE		32		/* accesses per warp per pass */

/* TLB entry flags */
#define GM_TLB_SYSMEM		(1u << 0)
#define GM_TLB_RO		(1u << 1)
#define GM_TLB_ACD		(1u << 2)
#define GM_TLB_NOATOMIC		(1u << 3)

/*
 * A TLB tag is (page number + 1) | the TLB generation: gm_mmu_flush_all()
 * moves to the next generation instead of clearing every array, so all
 * older entries miss. Page numbers + 1 of a 48-bit VA stay below bit 40.
 */
#define GM_TLB_GEN_SHIFT	40
#define GM_TLB_GEN_MASK		(~0ull << GM_TLB_GEN_SHIFT)

struct gm_tlb_entry {
	uint64_t tag;		/* (page number (va >> shift) + 1) | generation; 0 = empty */
	uint64_t pa;		/* physical base of the 4K (or 2M) page */
	uint32_t flags;
	uint32_t shift;		/* span: the mapping's page size (12, 16 or 21); 21 for
				 * a page-walk cache entry (its 2 MiB region) */
};

struct gm_utlb {
	struct gm_tlb_entry t4k[GM_UTLB_4K];
	struct gm_tlb_entry t2m[GM_UTLB_2M];
	int stalled;		/* a fault is outstanding: no access until replay */
	uint32_t gpc, client;
};

/* A queue resource: bandwidth is shared because each use extends busy. */
struct gm_queue {
	gm_time_t busy;
};

struct gm_counter {
	uint64_t region;	/* region number (va >> gran shift) */
	uint32_t count;		/* 16-bit saturating */
	uint32_t sub_mask;
	int32_t next;		/* hash chain, -1 = end */
	int32_t newer, older;	/* recency list of used counters, -1 = end */
	uint8_t used;
	uint8_t notified;	/* waiting for a clear */
};

#define GM_AC_HASH_BITS		10
#define GM_AC_HASH		(1u << GM_AC_HASH_BITS)

struct gm_ring {
	uint64_t base;
	uint32_t size;		/* entries */
	uint32_t get, put;
	uint32_t status;	/* EMGPU_RING_OVERFLOW */
	uint32_t ctrl;		/* EMGPU_RING_ENABLE */
	uint32_t base_hi;	/* staged until _LO is written */
};

/*
 * A copy-engine push under way (ce.c): a doorbell's descriptors, run from
 * GET to `end` in slices of at most GM_CE_WORK bytes of work, the first in
 * the doorbell's write, the rest in gm_run(). The descriptor at GET is
 * either not yet read (!started) or started: decoded, checked and its
 * injections drawn, `moved` of its bytes moved.
 */
struct gm_ce_push {
	int active;
	uint32_t end;		/* CE_RING_PUT at the doorbell */
	uint64_t sem;		/* CE_SEM at the doorbell */
	uint32_t thread;	/* the ringing driver thread */
	int irq;		/* a descriptor asked for the interrupt */
	int started;
	struct emgpu_ce_desc desc;	/* as read from the ring */
	int moving;		/* it passed its checks: bytes to move */
	int err;		/* it failed: CE_STATUS ERROR */
	uint32_t factor;	/* an injected stall's time multiplier */
	uint64_t moved;
};

struct gm_gpu {
	struct gm_profile prof;
	struct gm_callbacks cb;
	uint64_t seed;
	int lockstep;
	int untimed;	/* within gm_warp_load_untimed(): the access is not charged */
	/* the personality (personality.h): its table, its own state */
	struct {
		const struct gm_personality_ops *ops;
		void *priv;	/* read by the personality's code alone */
	} pers;

	/* derived timing (ps) */
	gm_time_t vram_128_ps, h2d_128_ps, d2h_128_ps;
	gm_time_t vram_lat_ps, link_lat_ps;
	gm_time_t link_req_ps;	/* one sysmem read request (0: accesses are lines) */
	gm_time_t link_wreq_ps;	/* one sysmem write request (0: no request limit) */
	gm_time_t link_whit_ps;	/* one to a host line held (0: as link_wreq_ps) */
	/*
	 * The host lines sysmem writes reached, one per slot (a hash of the
	 * line number picks it, so buffers a power of two apart do not take
	 * the same slots): the line number + 1 of the latest (0: none).
	 * Allocated only with link_whit_ps; cleared by gm_reset().
	 */
	uint64_t *host_lines;

	/* memory */
	uint8_t **vram;		/* lazily allocated 2 MiB chunks */
	uint64_t vram_chunks;	/* of them allocated */
	uint64_t vram_chunks_max;	/* gm_config's vram_backing_max; 0: none */
	uint64_t work_max;	/* a CE slice's or GA10x scheduler call's work */
	uint8_t *chunk_poison;	/* one byte per chunk */
	/* when the last copy engine write into each chunk completes: a warp
	 * reading or writing the chunk earlier waits for it (the bytes are not
	 * there yet, even though the model moved them at the doorbell) */
	gm_time_t *chunk_ready;
	uint64_t nchunks;

	/* clock and queues */
	gm_time_t now;
	/*
	 * Completion of the latest copy or driver work issued while no launch
	 * runs (ce.c, gm_driver_charge()). The device is idle then, so its
	 * clock, as PTIMER and the next launch see it, is the later of now
	 * and this (gm_clock()): a prefetch costs its transfer time, and a
	 * launch starts after the copies issued before it, as a kernel after
	 * cudaMemPrefetchAsync on one stream. Copies issued back to back
	 * still overlap on the engines and link queues as before.
	 */
	gm_time_t idle_done;
	struct gm_queue vram_q, h2d_q, d2h_q;
	struct gm_queue req_q;	/* sysmem read requests: link_req_ps each */
	struct gm_queue wreq_q;	/* sysmem write requests: link_wreq_ps each */
	struct gm_queue *ce_q;	/* num_copy_engines */
	gm_time_t drv_busy[EMGPU_DRV_THREADS];
	uint32_t drv_thread;
	gm_time_t timer_period, timer_next;

	/* MMU */
	uint64_t pdb;
	struct gm_utlb *utlb;
	uint32_t nutlb;
	int utlb_stalls;	/* some uTLB may be stalled (0: none is) */
	struct gm_tlb_entry l2_4k[GM_L2TLB_4K];
	struct gm_tlb_entry l2_2m[GM_L2TLB_2M];
	/* page-walk cache: the PD1 entry (a PT's base) per 2 MiB region, so
	 * a TLB miss reads one PTE; flushed like the TLBs, as on hardware */
	struct gm_tlb_entry pde_cache[GM_PDE_CACHE];
	uint64_t tlb_gen;	/* generation << GM_TLB_GEN_SHIFT */
	uint64_t inv_va, inv_size;
	uint32_t inv_status;

	/* fault buffer */
	struct gm_ring fb;
	int fault_pending;	/* entries written since the last hand-off */
	gm_time_t fault_deadline;

	/* access counters */
	struct gm_ring ac;
	uint32_t ac_config;
	uint32_t ac_clear_tag;
	uint32_t ac_gran_shift;
	struct gm_counter *ctr;
	int32_t ac_hash[GM_AC_HASH];
	int32_t ac_newest, ac_oldest;	/* ends of the recency list, -1 = empty */
	uint32_t ac_used;	/* counters in use */
	int32_t ac_last;	/* the counter found last, or -1 */
	int notify_pending;

	/* copy engine */
	struct gm_ring ce;
	uint64_t ce_sem;
	uint32_t ce_status;
	gm_time_t ce_done;
	gm_time_t ce_issue;	/* the doorbell's descriptors are issued then */
	gm_time_t ce_batch_end;	/* the latest completion among them */
	struct gm_ce_push ce_push;

	/* launch and warps */
	uint64_t launch_desc;
	uint32_t launch_status;
	uint32_t launch_seq;
	gm_time_t launch_start, launch_time;
	uint64_t launch_result;
	struct gm_launch launch;
	const struct gm_kernel *kernel;
	struct gm_warp *warps;
	uint32_t nwarps, max_warps;
	uint32_t warps_done;
	uint64_t next_item;	/* in-order dispatch cursor (gm_next_item()) */

	/*
	 * The epoch in progress (sm.c). A budget stop leaves it here and the
	 * next gm_run() resumes at the very step it would have run next, so
	 * how the embedder slices gm_run() calls changes nothing modelled.
	 */
	int ep_active;		/* an epoch is in progress */
	gm_time_t ep_h;		/* its horizon */
	uint32_t *ep_cur;	/* warps the current pass visits, index order */
	uint32_t ep_ncur, ep_k;	/* their number; the one being visited */
	uint32_t ep_n;		/* steps of warp ep_cur[ep_k]'s slice done */
	uint32_t *ep_nxt;	/* warps still able to run in the next pass */
	uint32_t ep_nnxt;
	int ep_progressed;	/* the current pass ran some warp */
	/*
	 * Warp lists (each max_warps long): runq holds every RUNNABLE warp
	 * in index order (rebuilt when runq_dirty: a warp became runnable),
	 * the first pass visits it, and later passes only the warps the
	 * previous pass left below the horizon (ep_a, ep_b). The first pass
	 * keeps in runq the warps still runnable after it (a later pass may
	 * stop some: the next first pass drops them), and every runnable
	 * warp's last visit in the epoch counts it in ep_nrun and its time
	 * in ep_min, so the next epoch starts without a scan.
	 */
	uint32_t *runq, *ep_a, *ep_b;
	uint32_t nrunq;
	int runq_dirty;
	uint32_t ep_nrun;	/* runnable warps after this epoch, so far */
	gm_time_t ep_min;	/* the earliest time among them */
	uint64_t poll_mark;	/* st.events after the last entry poll; ~0 = poll */

	/* interrupts, errors, lockstep */
	uint32_t intr_status, intr_enable;
	uint32_t intr_held;	/* lockstep: raised inside gm_run(), sent at its stop */
	int in_run;		/* inside gm_run() */
	uint32_t error_status, error_info, error_count;
	uint32_t sync_status;
	int hung;
	uint32_t scratch;

	/*
	 * The _HI halves of emgpu_hw.h's 64-bit registers (regs.c), staged
	 * by a _HI write until the _LO write commits both, or latched by a
	 * _LO read. In one struct so that gm_reset() clears every one; the
	 * rings' halves are their gm_ring's base_hi, cleared with the ring.
	 */
	struct {
		uint32_t pdb, tlb_inv_va, tlb_inv_size, ce_sem, launch_desc;
		uint32_t timer_period;
		uint32_t clock;		/* PTIMER, CE_DONE_TIME, LAUNCH_TIME */
		uint32_t launch_result, trace_hash;
	} reg_hi;

	/* determinism */
	uint64_t hash;
	uint64_t rng;

	/* injection */
	struct gm_inject inj[GM_INJECT_MAX];
	int ninj;

	struct gm_stats st;

	/* the driver's CPU cost (guest_cost.c) */
	struct {
		enum gm_driver_cost mode;
		int counting;		/* gm_guest_insns() called once */
		uint64_t mark;		/* the retired count at the last call */
		int fault_open;		/* a fault batch handed off, not replayed */
		int notify_open;	/* notifications handed off, not back */
		enum gm_cpu_activity copy; /* what the last copy started makes
					    * the instructions that follow */
		gm_time_t ps[GM_CPU_ACTIVITIES_COUNT];
	} cpu;
};

/* gpu.c */
void gm_event(struct gm_gpu *g, enum gm_event_type type, uint64_t a,
	      uint64_t b, uint64_t c);
void gm_event_unhashed(struct gm_gpu *g, enum gm_event_type type, uint64_t a,
		       uint64_t b, uint64_t c);
void gm_raise(struct gm_gpu *g, uint32_t cause);

/* mem.c */
int gm_mem_write(struct gm_gpu *g, unsigned int aperture, uint64_t pa,
		 const void *buf, uint64_t len);

/* Sysmem through the embedder (inline: every mapped access and walk). */
static inline int gm_dma_read(struct gm_gpu *g, uint64_t addr, void *buf,
			      uint64_t len)
{
	if (addr + len < addr || !g->cb.dma_read ||
	    g->cb.dma_read(g->cb.opaque, addr, buf, len))
		return -EMGPU_ERR_DMA;
	return 0;
}

static inline int gm_dma_write(struct gm_gpu *g, uint64_t addr,
			       const void *buf, uint64_t len)
{
	if (addr + len < addr || !g->cb.dma_write ||
	    g->cb.dma_write(g->cb.opaque, addr, buf, len))
		return -EMGPU_ERR_DMA;
	return 0;
}

static inline int gm_mem_read(struct gm_gpu *g, unsigned int aperture,
			      uint64_t pa, void *buf, uint64_t len)
{
	if (aperture == EMGPU_APERTURE_SYSMEM)
		return gm_dma_read(g, pa, buf, len);
	if (aperture == EMGPU_APERTURE_VIDMEM)
		return gm_vram_read(g, pa, buf, len);
	return -EMGPU_ERR_BAD_VALUE;
}
int gm_mem_init(struct gm_gpu *g);
void gm_mem_fini(struct gm_gpu *g);

/* mmu.c */
int gm_mmu_init(struct gm_gpu *g);
void gm_mmu_flush_all(struct gm_gpu *g);
void gm_mmu_invalidate(struct gm_gpu *g, uint32_t mode, uint64_t va,
		       uint64_t size);
int gm_mmu_walk(struct gm_gpu *g, uint64_t va, struct gm_tlb_entry *out);
int gm_mmu_miss(struct gm_gpu *g, struct gm_utlb *u, uint64_t va,
		const struct gm_tlb_entry **out);

/* The hot path: uTLB hit, else gm_mmu_miss(). */
static inline int gm_mmu_lookup(struct gm_gpu *g, struct gm_utlb *u,
				uint64_t va, const struct gm_tlb_entry **out)
{
	uint64_t vpn = va >> EMGPU_PAGE_SHIFT, hpn = va >> EMGPU_HUGE_PAGE_SHIFT;
	const struct gm_tlb_entry *e = &u->t4k[vpn & (GM_UTLB_4K - 1)];

	if (va >> EMGPU_VA_BITS)	/* never cached: walks, and faults */
		return gm_mmu_miss(g, u, va, out);
	if (e->tag == ((vpn + 1) | g->tlb_gen)) {
		g->st.tlb_hits++;
		*out = e;
		return 0;
	}
	e = &u->t2m[hpn & (GM_UTLB_2M - 1)];
	if (e->tag == ((hpn + 1) | g->tlb_gen)) {
		g->st.tlb_hits++;
		*out = e;
		return 0;
	}
	return gm_mmu_miss(g, u, va, out);
}

/* fault.c */
void gm_fault_report(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		     unsigned int access, unsigned int type);
void gm_fault_replay(struct gm_gpu *g, uint32_t mode);
/* The faulting warp and its uTLB stall; the first fault opens a batch. */
void gm_fault_stall(struct gm_gpu *g, struct gm_warp *w);
/* How many warps are stalled. */
uint32_t gm_stalled_warps(const struct gm_gpu *g);
/* Releases every uTLB; the stalled warps run again from `when`. */
uint32_t gm_resume_warps(struct gm_gpu *g, gm_time_t when);

/* counters.c */
int gm_ac_init(struct gm_gpu *g);
void gm_ac_reset(struct gm_gpu *g);
void gm_ac_count(struct gm_gpu *g, uint64_t va);
void gm_ac_clear(struct gm_gpu *g, uint32_t mode, uint32_t tag);
void gm_ac_set_config(struct gm_gpu *g, uint32_t config);
/* emgpu's notification: one entry of emgpu_hw.h into its ring */
void gm_emgpu_ac_notify(struct gm_gpu *g, int32_t idx);

/* ce.c */
void gm_ce_doorbell(struct gm_gpu *g);
/* Runs one more slice of the push under way; returns whether one still is. */
int gm_ce_continue(struct gm_gpu *g);
/* Drops the push under way: no more bytes, semaphore or interrupt. */
void gm_ce_drop(struct gm_gpu *g);
gm_time_t gm_ce_charge(struct gm_gpu *g, uint32_t op, unsigned int sa,
		       unsigned int da, uint32_t len, gm_time_t issue,
		       uint32_t factor);
int gm_ce_inject(struct gm_gpu *g, uint64_t dst, uint64_t len, uint32_t *factor);
/* VRAM [dst, dst + len) holds a copy's bytes from `done` on */
void gm_ce_mark_ready(struct gm_gpu *g, uint64_t dst, uint64_t len,
		      gm_time_t done);

/* sm.c */
int gm_sm_init(struct gm_gpu *g);
void gm_sm_reset(struct gm_gpu *g);
int gm_launch_from(struct gm_gpu *g, const struct emgpu_launch_desc *d);
void gm_launch_finish(struct gm_gpu *g, uint32_t status);
/* Lockstep: the driver handed the device back (as a SYNC write does). */
void gm_sm_hand_back(struct gm_gpu *g);
/* emgpu's accesses: its page tables (mmu.c), faults into fault.c's ring */
int gm_emgpu_warp_load(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		       void *buf, uint32_t len, unsigned int access);
int gm_emgpu_warp_store(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
			const void *buf, uint32_t len);

/* ring.c-style helpers in regs.c */
int gm_ring_valid(const struct gm_ring *r, uint32_t entry_size);
void gm_driver_action(struct gm_gpu *g, uint32_t value);

/* inject.c: returns the matching armed slot's kind-specific factor (>= 1)
 * when an injection of `kind` fires at this check point, else 0. */
uint32_t gm_inject_check(struct gm_gpu *g, enum gm_inject_kind kind,
			 uint64_t addr, uint64_t len);
/* inject.c: a read of poisoned VRAM at pa failed; counts it against the
 * poison slot covering pa when a launch is running. */
void gm_inject_poison_hit(struct gm_gpu *g, uint64_t pa);

/* timing: bytes over a bandwidth in MB/s, in ps */
static inline gm_time_t gm_xfer_ps(uint64_t bytes, uint64_t mbps)
{
	return mbps ? (gm_time_t)((bytes * 1000000ull + mbps - 1) / mbps) : 0;
}

static inline gm_time_t gm_max(gm_time_t a, gm_time_t b)
{
	return a > b ? a : b;
}

/* The index of `name` in names[0..n) (a designated-initializer list of
 * the model's X-macro names), or -1. */
static inline int gm_name_index(const char *const *names, size_t n,
				const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(name, names[i]))
			return (int)i;
	return -1;
}

/* ---- the driver's CPU cost (guest_cost.c) ---- */
/* Whether the profile's assumed constants are charged (else only counted). */
static inline int gm_cost_assumed(const struct gm_gpu *g)
{
	return g->cpu.mode == GM_DRIVER_COST_ASSUMED;
}
/* An assumed charge of ns on `thread`: charged, or only counted. */
void gm_assumed_charge(struct gm_gpu *g, unsigned int thread, uint64_t ns);
/* A fault batch (GM_STOP_FAULT) or notifications (GM_STOP_NOTIFY) handed off. */
void gm_cpu_handoff(struct gm_gpu *g, enum gm_stop why);
/* REPLAY or CANCEL: the fault batch is answered. */
void gm_cpu_fault_done(struct gm_gpu *g);
/* The lockstep hand-back (SYNC): the notifications are answered. */
void gm_cpu_notify_done(struct gm_gpu *g);
/* A copy the driver started, by its apertures (enum emgpu_aperture). */
void gm_cpu_copy(struct gm_gpu *g, uint32_t op, unsigned int src_aperture,
		 unsigned int dst_aperture);

/* The device clock: now, or while no launch runs, the end of idle work. */
static inline gm_time_t gm_clock(const struct gm_gpu *g)
{
	return g->launch_status == EMGPU_LAUNCH_RUNNING ? g->now :
	       gm_max(g->now, g->idle_done);
}

/* Work issued while no launch runs, done at `end`, moves the idle clock. */
static inline void gm_idle_work(struct gm_gpu *g, gm_time_t end)
{
	if (g->launch_status != EMGPU_LAUNCH_RUNNING)
		g->idle_done = gm_max(g->idle_done, end);
}

static inline uint32_t gm_drv_thread_ok(uint32_t t)
{
	return t < EMGPU_DRV_THREADS ? t : EMGPU_DRV_THREAD_FAULT;
}

/* Work on these threads delays the fault batch's replay. */
static inline int gm_drv_thread_critical(uint32_t t)
{
	return t == EMGPU_DRV_THREAD_FAULT || t == EMGPU_DRV_THREAD_POPULATE;
}

/* The fault path's busy-until: the later of its two threads. */
static inline gm_time_t gm_fault_path_busy(const struct gm_gpu *g)
{
	return gm_max(g->drv_busy[EMGPU_DRV_THREAD_FAULT],
		      g->drv_busy[EMGPU_DRV_THREAD_POPULATE]);
}

#endif /* GM_INTERNAL_H */
