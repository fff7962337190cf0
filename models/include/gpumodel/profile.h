/* SPDX-License-Identifier: MIT */
/*
 * GPU profiles: the numbers that make an emgpu behave like one real card.
 * Base profiles come from the Ember paper's Table 2 and the vendors' data
 * sheets; scaled profiles shrink VRAM for fast runs while keeping the ratios
 * that decide policy behaviour (see gm_profile_scale()).
 */
#ifndef GPUMODEL_PROFILE_H
#define GPUMODEL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "emgpu_hw.h"
#include "gpumodel/personality.h"

struct gm_profile {
	const char *name;
	enum emgpu_profile_id id;
	uint64_t vram_bytes;
	/* derived by gm_profile_scale(): the VRAM of the card this one stands
	 * for under the scaling rule (the paper's card, or vram_bytes itself
	 * when the rule is off), and that card's access counters; 0 in an
	 * unscaled profile, which is its own card (read them through
	 * gm_profile_full_vram() and gm_profile_full_counters()) */
	uint64_t full_vram_bytes;
	uint32_t full_access_counters;
	/* set by the user ("-norule"): scaling shrinks VRAM and nothing else */
	uint32_t scaling_rule_off;
	uint64_t vram_bw_mbps;		/* device-memory bandwidth, MB/s */
	uint64_t link_h2d_mbps;		/* interconnect host->device, MB/s */
	uint64_t link_d2h_mbps;		/* interconnect device->host, MB/s */
	uint32_t link_latency_ns;	/* one mapped access over the link */
	uint32_t fault_service_ns;	/* fault-buffer round trip, per batch */
	uint32_t num_sms;
	uint32_t warps_per_sm;		/* modelled warps, not hardware slots */
	uint32_t num_gpcs;
	uint32_t utlbs_per_gpc;
	uint32_t num_access_counters;
	uint32_t num_copy_engines;
	/*
	 * The personality NVIDIA's nvidia-uvm meets on this card unless told
	 * otherwise (a matrix's nvuvm_personality): the nearest to the HAL
	 * nvidia-uvm takes on the real card. Never GM_PERSONALITY_EMGPU,
	 * which only ember.ko drives.
	 */
	enum gm_personality nvidia_personality;

	/*
	 * Timing model (models/src/timing.c applies these; see the comments in
	 * profile.c for every number's source). Times in ns unless _ps.
	 */
	uint32_t access_issue_ps;	/* SM cost of one 128-byte warp access */
	uint32_t warp_mlp;		/* 128-byte requests a warp keeps in flight */
	uint32_t vram_latency_ns;	/* one device-memory access, unloaded */
	uint32_t fault_batch_window_ns;	/* first fault -> driver hand-off (IRQ + wake-up) */
	uint32_t replay_ns;		/* REPLAY write -> stalled warps re-issue */
	uint32_t tlb_invalidate_ns;	/* one TLB_INV, charged to the driver thread */
	uint32_t ce_setup_ns;		/* per copy descriptor, before bytes move */
	uint32_t launch_ns;		/* launch doorbell -> first warp issues */
	uint32_t drv_fault_page_ns;	/* DRIVER_ACTION FAULT_PAGE */
	uint32_t drv_pte_update_ns;	/* DRIVER_ACTION PTE_UPDATE */
	uint32_t drv_chunk_alloc_ns;	/* DRIVER_ACTION CHUNK_ALLOC */
	uint32_t drv_chunk_evict_ns;	/* DRIVER_ACTION CHUNK_EVICT */
	uint32_t drv_notify_entry_ns;	/* DRIVER_ACTION NOTIFY_ENTRY */
	uint32_t drv_fault_block_ns;	/* DRIVER_ACTION FAULT_BLOCK */
	uint32_t drv_host_page_ns;	/* DRIVER_ACTION HOST_PAGE */
	uint32_t link_request_ps;	/* sysmem read requests: one per this
					 * (0: every access costs a 128 B line) */
	uint32_t link_write_request_ps;	/* sysmem write requests: one per this */
	uint32_t link_write_hit_ps;	/* one to a 64-byte host line written
					 * recently or written whole (0: as
					 * any other) */
	uint32_t warp_issue_ps;		/* one warp instruction of a kernel's ALU
					 * work (gm_warp_compute); 0: free */
	uint32_t cpu_insn_ps;		/* one guest instruction of the driver,
					 * on the card's host CPU (charged under
					 * GM_DRIVER_COST_MEASURED) */
};

/* The range a profile's cpu_insn_ps must lie in (ps, inclusive). */
#define GM_CPU_INSN_PS_MIN	10u
#define GM_CPU_INSN_PS_MAX	100000u

/*
 * Checks the constants a user may set (today cpu_insn_ps): returns 0, or
 * -ERANGE with "NAME VALUE out of range [MIN, MAX] UNIT" in err.
 */
int gm_profile_check(const struct gm_profile *p, char *err, size_t errlen);

/* The base profiles, in a fixed order; NULL past the end. */
const struct gm_profile *gm_profile_at(size_t index);

/*
 * The paper's cards: it caps every card's memory at 16 GiB, so a scaled
 * profile stands for its base card at this size (docs/model.md).
 */
#define GM_PAPER_CARD_BYTES	(16ull << 30)

/*
 * Finds a profile by name: a base name ("h200") or a scaled one
 * ("h200-512m": the paper's 16 GiB H200 at 1/32, the scaling rule applied;
 * "h200-512m-norule": only VRAM shrinks). Returns 0 and fills *out, or
 * -EINVAL for an unknown name or a bad size suffix.
 */
int gm_profile_lookup(const char *name, struct gm_profile *out);

/*
 * Scales a profile to vram_bytes (a multiple of 2 MiB, at least 64 MiB)
 * by the scaling rule (docs/model.md): the card stands for the paper's
 * card (the base capped at GM_PAPER_CARD_BYTES) at 1/k, and the access
 * counters are divided by k; bandwidths, latencies, per-operation costs
 * and SM/warp counts are kept, so the device-memory to interconnect gap
 * and the cost of one fault or one 2 MiB copy stay the real card's.
 * base->scaling_rule_off keeps the counters too. Returns 0 or -EINVAL.
 */
int gm_profile_scale(const struct gm_profile *base, uint64_t vram_bytes,
		     struct gm_profile *out);

/* The VRAM of the card this profile stands for (FULL_VRAM_SIZE). */
static inline uint64_t gm_profile_full_vram(const struct gm_profile *p)
{
	return p->full_vram_bytes ? p->full_vram_bytes : p->vram_bytes;
}

/* That card's number of access counters. */
static inline uint32_t gm_profile_full_counters(const struct gm_profile *p)
{
	return p->full_access_counters ? p->full_access_counters :
	       p->num_access_counters;
}

#endif /* GPUMODEL_PROFILE_H */
