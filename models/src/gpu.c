/* SPDX-License-Identifier: MIT */
/*
 * Model lifetime, the event hash, interrupts, errors and getters.
 *
 * The trace hash is FNV-1a 64 over each event's record (type, event number
 * and three type-specific words, little-endian), folded in event order:
 * the same inputs and seed give the same hash, any changed event changes it.
 * Accesses are not events (they are far too many); their effects are
 * (faults, notifications, completions with the kernel's checksum).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

#define FNV_OFFSET	0xcbf29ce484222325ull
#define FNV_PRIME	0x100000001b3ull

/* one little-endian word, byte by byte (unrolled: a fault costs a few events) */
static inline uint64_t fnv_word(uint64_t h, uint64_t w)
{
	h = (h ^ (w & 0xff)) * FNV_PRIME;
	h = (h ^ ((w >> 8) & 0xff)) * FNV_PRIME;
	h = (h ^ ((w >> 16) & 0xff)) * FNV_PRIME;
	h = (h ^ ((w >> 24) & 0xff)) * FNV_PRIME;
	h = (h ^ ((w >> 32) & 0xff)) * FNV_PRIME;
	h = (h ^ ((w >> 40) & 0xff)) * FNV_PRIME;
	h = (h ^ ((w >> 48) & 0xff)) * FNV_PRIME;
	return (h ^ (w >> 56)) * FNV_PRIME;
}

void gm_event(struct gm_gpu *g, enum gm_event_type type, uint64_t a,
	      uint64_t b, uint64_t c)
{
	uint64_t h = g->hash;

	h = fnv_word(h, type);
	h = fnv_word(h, g->st.events);
	h = fnv_word(h, a);
	h = fnv_word(h, b);
	h = fnv_word(h, c);
	g->hash = h;
	g->st.events++;
	if (g->cb.event)
		g->cb.event(g->cb.opaque, type, a, b, c);
}

/*
 * An event for the trace callback alone, outside the hash and the event
 * count: one whose moment the driver's timing decides, not the device's.
 */
void gm_event_unhashed(struct gm_gpu *g, enum gm_event_type type, uint64_t a,
		       uint64_t b, uint64_t c)
{
	if (g->cb.event)
		g->cb.event(g->cb.opaque, type, a, b, c);
}

const char *gm_event_name(unsigned int type)
{
	static const char *const names[] = {
		[GM_EV_FAULT] = "fault", [GM_EV_REPLAY] = "replay",
		[GM_EV_CANCEL] = "cancel", [GM_EV_NOTIFY] = "notify",
		[GM_EV_COPY] = "copy", [GM_EV_LAUNCH] = "launch",
		[GM_EV_COMPLETE] = "complete", [GM_EV_TLB_INV] = "tlb-invalidate",
		[GM_EV_ERROR] = "error", [GM_EV_IRQ] = "irq",
		[GM_EV_TIMER] = "timer", [GM_EV_INJECT] = "inject",
		[GM_EV_AC_CLEAR] = "ac-clear", [GM_EV_DRIVER] = "driver",
		[GM_EV_OVERFLOW] = "overflow",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ?
	       names[type] : "?";
}

void gm_raise(struct gm_gpu *g, uint32_t cause)
{
	uint32_t newly;
	unsigned int v;

	/*
	 * Lockstep: a cause raised while warps run (a fault or notification
	 * written mid-epoch) waits for gm_run()'s stop. Raised at once, its
	 * MSI-X message and GM_EV_IRQ would depend on when the driver last
	 * cleared INTR_STATUS, which between budget slices is wall-clock time.
	 */
	if (g->lockstep && g->in_run) {
		g->intr_held |= cause;
		return;
	}
	newly = cause & ~g->intr_status;
	g->intr_status |= cause;
	newly &= g->intr_enable;
	if (!newly)
		return;
	for (v = 0; v < EMGPU_MSIX_VECTORS; v++) {
		if (!(newly & (1u << v)))
			continue;
		if (gm_inject_check(g, GM_INJ_LOST_IRQ, 0, 0))
			continue;
		gm_event(g, GM_EV_IRQ, v, 0, 0);
		if (g->cb.irq)
			g->cb.irq(g->cb.opaque, v);
	}
}

void gm_error(struct gm_gpu *g, enum emgpu_error code, uint32_t info)
{
	g->error_status = code;
	g->error_info = info;
	g->error_count++;
	g->st.errors++;
	gm_event(g, GM_EV_ERROR, code, info, 0);
	if (g->cb.error)
		g->cb.error(g->cb.opaque, code, info);
	gm_raise(g, EMGPU_INTR_ERROR);
}

const char *gm_error_name(unsigned int code)
{
	static const char *const names[] = {
		[EMGPU_ERR_NONE] = "none",
		[EMGPU_ERR_BAD_REGISTER] = "bad-register",
		[EMGPU_ERR_BAD_VALUE] = "bad-value",
		[EMGPU_ERR_BAD_RING] = "bad-ring",
		[EMGPU_ERR_BAD_INDEX] = "bad-index",
		[EMGPU_ERR_DMA] = "dma",
		[EMGPU_ERR_VRAM_RANGE] = "vram-range",
		[EMGPU_ERR_BAD_DESCRIPTOR] = "bad-descriptor",
		[EMGPU_ERR_BAD_PTE] = "bad-pte",
		[EMGPU_ERR_POISON] = "poison",
		[EMGPU_ERR_HANG] = "hang",
		[EMGPU_ERR_CE] = "ce",
		[EMGPU_ERR_CHANNEL] = "channel",
		[EMGPU_ERR_VRAM_BACKING] = "vram-backing",
	};

	return code < sizeof(names) / sizeof(names[0]) && names[code] ?
	       names[code] : "?";
}

static int profile_ok(const struct gm_profile *p)
{
	return p->vram_bytes >= GM_CHUNK_SIZE && !(p->vram_bytes % GM_CHUNK_SIZE) &&
	       p->num_sms && p->warps_per_sm && p->num_gpcs &&
	       p->num_gpcs <= 32 && p->utlbs_per_gpc &&
	       p->utlbs_per_gpc <= 128 && p->num_access_counters &&
	       p->num_access_counters <= (1u << 20) && p->num_copy_engines &&
	       p->warp_mlp && p->vram_bw_mbps && p->link_h2d_mbps &&
	       p->link_d2h_mbps && p->num_sms <= 512 && p->warps_per_sm <= 64;
}

/* The personalities' tables, by enum gm_personality. */
static const struct gm_personality_ops *const personalities[] = {
#define GM_PERSONALITY_TABLE(id, name) \
	[GM_PERSONALITY_##id] = &gm_##name##_personality,
	GM_PERSONALITIES(GM_PERSONALITY_TABLE)
#undef GM_PERSONALITY_TABLE
};

struct gm_gpu *gm_create(const struct gm_config *cfg,
			 const struct gm_callbacks *cb)
{
	struct gm_gpu *g;

	if (!profile_ok(&cfg->profile) ||
	    gm_profile_check(&cfg->profile, NULL, 0) ||
	    !gm_personality_name(cfg->personality) ||
	    !gm_driver_cost_name(cfg->driver_cost))
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->pers.ops = personalities[cfg->personality];
	g->prof = cfg->profile;
	if (cb)
		g->cb = *cb;
	g->seed = cfg->seed;
	g->lockstep = cfg->lockstep;
	g->vram_chunks_max = cfg->vram_backing_max >> GM_CHUNK_SHIFT;
	g->work_max = cfg->work_max ? cfg->work_max : GM_CE_WORK;
	g->cpu.mode = cfg->driver_cost;
	g->cpu.copy = GM_CPU_NONE;
	g->vram_128_ps = gm_xfer_ps(128, g->prof.vram_bw_mbps);
	g->h2d_128_ps = gm_xfer_ps(128, g->prof.link_h2d_mbps);
	g->d2h_128_ps = gm_xfer_ps(128, g->prof.link_d2h_mbps);
	g->vram_lat_ps = GM_NS(g->prof.vram_latency_ns) / g->prof.warp_mlp;
	g->link_lat_ps = GM_NS(g->prof.link_latency_ns) / g->prof.warp_mlp;
	g->link_req_ps = g->prof.link_request_ps;
	g->link_wreq_ps = g->prof.link_write_request_ps;
	g->link_whit_ps = g->prof.link_write_hit_ps;
	if (g->link_whit_ps) {
		g->host_lines = calloc(GM_HOST_LINES, sizeof(*g->host_lines));
		if (!g->host_lines) {
			free(g);
			return NULL;
		}
	}
	g->ce_q = calloc(g->prof.num_copy_engines, sizeof(*g->ce_q));
	if (!g->ce_q || gm_mem_init(g) || gm_mmu_init(g) || gm_ac_init(g) ||
	    gm_sm_init(g) || g->pers.ops->init(g)) {
		gm_destroy(g);
		return NULL;
	}
	gm_reset(g);
	return g;
}

void gm_destroy(struct gm_gpu *g)
{
	if (!g)
		return;
	g->pers.ops->fini(g);
	gm_mem_fini(g);
	free(g->ce_q);
	free(g->host_lines);
	free(g->utlb);
	free(g->ctr);
	free(g->warps);
	free(g->runq);
	free(g);
}

void gm_reset(struct gm_gpu *g)
{
	g->now = 0;
	g->idle_done = 0;
	g->vram_q.busy = g->h2d_q.busy = g->d2h_q.busy = g->req_q.busy =
		g->wreq_q.busy = 0;
	memset(g->ce_q, 0, g->prof.num_copy_engines * sizeof(*g->ce_q));
	memset(g->drv_busy, 0, sizeof(g->drv_busy));
	memset(g->chunk_ready, 0, g->nchunks * sizeof(*g->chunk_ready));
	if (g->host_lines)
		memset(g->host_lines, 0, GM_HOST_LINES * sizeof(*g->host_lines));
	g->drv_thread = 0;
	g->timer_period = g->timer_next = 0;
	g->pdb = 0;
	gm_mmu_flush_all(g);
	g->inv_va = g->inv_size = 0;
	g->inv_status = 0;
	memset(&g->fb, 0, sizeof(g->fb));
	memset(&g->ac, 0, sizeof(g->ac));
	memset(&g->ce, 0, sizeof(g->ce));
	gm_ce_drop(g);
	g->fault_pending = 0;
	g->notify_pending = 0;
	g->ac_config = EMGPU_AC_CONFIG_DEFAULT;
	gm_ac_set_config(g, g->ac_config);
	gm_ac_reset(g);
	g->ce_sem = 0;
	g->ce_status = 0;
	g->ce_done = 0;
	g->launch_desc = 0;
	g->launch_status = EMGPU_LAUNCH_IDLE;
	g->launch_seq = 0;
	g->launch_start = g->launch_time = 0;
	g->launch_result = 0;
	gm_sm_reset(g);
	g->intr_status = g->intr_enable = 0;
	g->intr_held = 0;
	g->error_status = g->error_info = g->error_count = 0;
	g->sync_status = 0;
	g->hung = 0;
	g->scratch = 0;
	memset(&g->reg_hi, 0, sizeof(g->reg_hi));
	g->hash = FNV_OFFSET;
	g->rng = g->seed;
	memset(&g->st, 0, sizeof(g->st));
	/* the instruction mark stays: the guest's count goes on over a reset */
	memset(g->cpu.ps, 0, sizeof(g->cpu.ps));
	g->cpu.fault_open = g->cpu.notify_open = 0;
	g->cpu.copy = GM_CPU_NONE;
	g->pers.ops->reset(g);
	/*
	 * Injections are the experiment's, not device state: they keep what
	 * they fired (a count=1 hang does not hang the reset device again)
	 * and their random stream.
	 */
}

void gm_get_stats(const struct gm_gpu *g, struct gm_stats *out)
{
	*out = g->st;
	out->sim_ns = gm_clock(g) / GM_PS_PER_NS;
}

uint64_t gm_trace_hash(const struct gm_gpu *g) { return g->hash; }
uint64_t gm_now_ns(const struct gm_gpu *g) { return gm_clock(g) / GM_PS_PER_NS; }
uint64_t gm_now_ps(const struct gm_gpu *g) { return gm_clock(g); }
const struct gm_profile *gm_get_profile(const struct gm_gpu *g) { return &g->prof; }
enum emgpu_error gm_error_status(const struct gm_gpu *g) { return g->error_status; }
uint32_t gm_launch_status(const struct gm_gpu *g) { return g->launch_status; }
uint64_t gm_launch_result(const struct gm_gpu *g) { return g->launch_result; }
uint64_t gm_launch_time_ns(const struct gm_gpu *g) { return g->launch_time / GM_PS_PER_NS; }
uint64_t gm_ce_done_ns(const struct gm_gpu *g) { return g->ce_done / GM_PS_PER_NS; }

uint64_t gm_driver_busy_ns(const struct gm_gpu *g, unsigned int thread)
{
	return thread < EMGPU_DRV_THREADS ? g->drv_busy[thread] / GM_PS_PER_NS : 0;
}

void gm_driver_charge(struct gm_gpu *g, unsigned int thread, uint64_t ns)
{
	thread = gm_drv_thread_ok(thread);
	g->drv_busy[thread] = gm_max(g->drv_busy[thread], g->now) + GM_NS(ns);
	gm_idle_work(g, g->drv_busy[thread]);
	gm_event(g, GM_EV_DRIVER, thread, ns, 0);
}

void gm_driver_join(struct gm_gpu *g, unsigned int thread, unsigned int other)
{
	thread = gm_drv_thread_ok(thread);
	other = gm_drv_thread_ok(other);
	g->drv_busy[thread] = gm_max(g->drv_busy[thread], g->drv_busy[other]);
	gm_event(g, GM_EV_DRIVER, thread | (uint64_t)other << 8 | 1ull << 16,
		 0, 0);
}

const char *gm_stop_name(enum gm_stop s)
{
	static const char *const names[] = {
		"idle", "fault", "stalled", "notify", "timer", "launch-done",
		"budget", "wait-sync", "hang",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const struct gm_personality_desc *gm_personality_desc(enum gm_personality p)
{
	return gm_personality_name(p) ? &personalities[p]->desc : NULL;
}
