/* SPDX-License-Identifier: MIT */
/*
 * The register interface: every register of emgpu_hw.h.
 *
 * 64-bit values are _LO/_HI pairs: a _HI write is staged and the _LO write
 * commits both; reading _LO latches _HI (PTIMER, TRACE_HASH, LAUNCH_TIME,
 * LAUNCH_RESULT, CE_DONE_TIME). Bad offsets and values latch an error
 * (ERROR_STATUS/INFO, EMGPU_INTR_ERROR) and are otherwise ignored; unknown
 * and write-only offsets read as 0 and latch EMGPU_ERR_BAD_REGISTER.
 * The personality's own registers (its reg_read/reg_write) come first.
 */
#include "internal.h"

static void ring_write_base(struct gm_gpu *g, struct gm_ring *r, uint32_t lo,
			    uint32_t off)
{
	uint64_t base = (uint64_t)r->base_hi << 32 | lo;

	if (r->ctrl & EMGPU_RING_ENABLE) {
		gm_error(g, EMGPU_ERR_BAD_RING, off);	/* no moving a live ring */
		return;
	}
	if (base & 0xfff) {
		gm_error(g, EMGPU_ERR_BAD_RING, off);
		return;
	}
	r->base = base;
}

static void ring_write_size(struct gm_gpu *g, struct gm_ring *r, uint32_t v,
			    uint32_t off)
{
	if (!v || v > EMGPU_RING_MAX_ENTRIES || (v & (v - 1)) ||
	    (r->ctrl & EMGPU_RING_ENABLE)) {
		gm_error(g, EMGPU_ERR_BAD_RING, off);
		return;
	}
	r->size = v;
	r->get = r->put = 0;
}

static void ring_write_index(struct gm_gpu *g, struct gm_ring *r,
			     uint32_t *idx, uint32_t v, uint32_t off)
{
	if (v >= r->size) {
		gm_error(g, EMGPU_ERR_BAD_INDEX, off);
		return;
	}
	*idx = v;
}

static void ring_write_ctrl(struct gm_gpu *g, struct gm_ring *r, uint32_t v,
			    uint32_t off)
{
	if (v & ~EMGPU_RING_ENABLE) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		return;
	}
	if ((v & EMGPU_RING_ENABLE) && !gm_ring_valid(r, 32)) {
		gm_error(g, EMGPU_ERR_BAD_RING, off);
		return;
	}
	r->ctrl = v;
}

void gm_set_pdb(struct gm_gpu *g, uint64_t pde)
{
	g->pdb = pde;
}

void gm_tlb_invalidate(struct gm_gpu *g, uint32_t mode, uint64_t va,
		       uint64_t size)
{
	if (mode == EMGPU_TLB_INV_RANGE && ((va & 0xfff) || !size)) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, EMGPU_REG_TLB_INV_VA_LO);
		return;
	}
	if (mode != EMGPU_TLB_INV_ALL && mode != EMGPU_TLB_INV_RANGE) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, EMGPU_REG_TLB_INV);
		return;
	}
	gm_mmu_invalidate(g, mode, va, size);
}

void gm_driver_action(struct gm_gpu *g, uint32_t v)
{
	uint32_t code = v & EMGPU_DRV_ACTION_CODE_MASK;
	uint64_t count = v >> EMGPU_DRV_ACTION_COUNT_SHIFT, unit;

	switch (code) {
	case EMGPU_DRV_ACTION_FAULT_PAGE: unit = g->prof.drv_fault_page_ns; break;
	case EMGPU_DRV_ACTION_PTE_UPDATE: unit = g->prof.drv_pte_update_ns; break;
	case EMGPU_DRV_ACTION_CHUNK_ALLOC: unit = g->prof.drv_chunk_alloc_ns; break;
	case EMGPU_DRV_ACTION_CHUNK_EVICT: unit = g->prof.drv_chunk_evict_ns; break;
	case EMGPU_DRV_ACTION_NOTIFY_ENTRY: unit = g->prof.drv_notify_entry_ns; break;
	case EMGPU_DRV_ACTION_FAULT_BLOCK: unit = g->prof.drv_fault_block_ns; break;
	case EMGPU_DRV_ACTION_HOST_PAGE: unit = g->prof.drv_host_page_ns; break;
	case EMGPU_DRV_ACTION_JOIN:
		if (count >= EMGPU_DRV_THREADS) {
			gm_error(g, EMGPU_ERR_BAD_VALUE, EMGPU_REG_DRIVER_ACTION);
			return;
		}
		gm_driver_join(g, g->drv_thread, (unsigned int)count);
		return;
	default:
		gm_error(g, EMGPU_ERR_BAD_VALUE, EMGPU_REG_DRIVER_ACTION);
		return;
	}
	gm_assumed_charge(g, g->drv_thread, unit * count);
}

static uint32_t lo_latch(uint64_t v, uint32_t *hi)
{
	*hi = (uint32_t)(v >> 32);
	return (uint32_t)v;
}

uint32_t gm_regs_size(const struct gm_gpu *g)
{
	return g->pers.ops->desc.regs_size;
}

uint32_t gm_reg_read(struct gm_gpu *g, uint32_t off)
{
	const struct gm_profile *p = &g->prof;
	uint32_t v;

	if (!g->pers.ops->reg_read(g, off, &v))
		return v;

	switch (off) {
	case EMGPU_REG_ID: return EMGPU_ID_MAGIC;
	case EMGPU_REG_VERSION: return EMGPU_VERSION;
	case EMGPU_REG_CAPS:
		return EMGPU_CAP_REPLAYABLE_FAULTS | EMGPU_CAP_ACCESS_COUNTERS |
		       EMGPU_CAP_COPY_ENGINE | EMGPU_CAP_LAUNCH |
		       (g->lockstep ? EMGPU_CAP_LOCKSTEP : 0) |
		       EMGPU_CAP_FAULT_INJECTION;
	case EMGPU_REG_PROFILE: return p->id;
	case EMGPU_REG_VRAM_SIZE_LO: return (uint32_t)p->vram_bytes;
	case EMGPU_REG_VRAM_SIZE_HI: return (uint32_t)(p->vram_bytes >> 32);
	case EMGPU_REG_PTIMER_LO: return lo_latch(gm_clock(g) / GM_PS_PER_NS, &g->reg_hi.clock);
	case EMGPU_REG_PTIMER_HI: return g->reg_hi.clock;
	case EMGPU_REG_NUM_SMS: return p->num_sms;
	case EMGPU_REG_WARPS_PER_SM: return p->warps_per_sm;
	case EMGPU_REG_NUM_GPCS: return p->num_gpcs;
	case EMGPU_REG_UTLBS_PER_GPC: return p->utlbs_per_gpc;
	case EMGPU_REG_NUM_ACCESS_COUNTERS: return p->num_access_counters;
	case EMGPU_REG_NUM_COPY_ENGINES: return p->num_copy_engines;
	case EMGPU_REG_PAGE_SIZES:
		return EMGPU_PAGE_SIZE_4K | EMGPU_PAGE_SIZE_64K | EMGPU_PAGE_SIZE_2M;
	case EMGPU_REG_TRACE_HASH_LO: return lo_latch(g->hash, &g->reg_hi.trace_hash);
	case EMGPU_REG_TRACE_HASH_HI: return g->reg_hi.trace_hash;
	case EMGPU_REG_SCRATCH: return g->scratch;
	case EMGPU_REG_FULL_VRAM_SIZE_LO: return (uint32_t)gm_profile_full_vram(p);
	case EMGPU_REG_FULL_VRAM_SIZE_HI: return (uint32_t)(gm_profile_full_vram(p) >> 32);

	case EMGPU_REG_ERROR_STATUS: return g->error_status;
	case EMGPU_REG_ERROR_INFO: return g->error_info;
	case EMGPU_REG_ERROR_COUNT: return g->error_count;

	case EMGPU_REG_INTR_STATUS: return g->intr_status;
	case EMGPU_REG_INTR_ENABLE: return g->intr_enable;

	case EMGPU_REG_PDB_LO: return (uint32_t)g->pdb;
	case EMGPU_REG_PDB_HI: return (uint32_t)(g->pdb >> 32);
	case EMGPU_REG_TLB_INV_VA_LO: return (uint32_t)g->inv_va;
	case EMGPU_REG_TLB_INV_VA_HI: return (uint32_t)(g->inv_va >> 32);
	case EMGPU_REG_TLB_INV_SIZE_LO: return (uint32_t)g->inv_size;
	case EMGPU_REG_TLB_INV_SIZE_HI: return (uint32_t)(g->inv_size >> 32);
	case EMGPU_REG_TLB_INV_STATUS: return g->inv_status;

	case EMGPU_REG_FAULT_BUF_LO: return (uint32_t)g->fb.base;
	case EMGPU_REG_FAULT_BUF_HI: return (uint32_t)(g->fb.base >> 32);
	case EMGPU_REG_FAULT_BUF_SIZE: return g->fb.size;
	case EMGPU_REG_FAULT_BUF_GET: return g->fb.get;
	case EMGPU_REG_FAULT_BUF_PUT: return g->fb.put;
	case EMGPU_REG_FAULT_BUF_STATUS: return g->fb.status;
	case EMGPU_REG_FAULT_BUF_CTRL: return g->fb.ctrl;

	case EMGPU_REG_AC_BUF_LO: return (uint32_t)g->ac.base;
	case EMGPU_REG_AC_BUF_HI: return (uint32_t)(g->ac.base >> 32);
	case EMGPU_REG_AC_BUF_SIZE: return g->ac.size;
	case EMGPU_REG_AC_BUF_GET: return g->ac.get;
	case EMGPU_REG_AC_BUF_PUT: return g->ac.put;
	case EMGPU_REG_AC_BUF_STATUS: return g->ac.status;
	case EMGPU_REG_AC_CTRL: return g->ac.ctrl;
	case EMGPU_REG_AC_CONFIG: return g->ac_config;
	case EMGPU_REG_AC_CLEAR_TAG: return g->ac_clear_tag;

	case EMGPU_REG_CE_RING_LO: return (uint32_t)g->ce.base;
	case EMGPU_REG_CE_RING_HI: return (uint32_t)(g->ce.base >> 32);
	case EMGPU_REG_CE_RING_SIZE: return g->ce.size;
	case EMGPU_REG_CE_RING_GET: return g->ce.get;
	case EMGPU_REG_CE_RING_PUT: return g->ce.put;
	case EMGPU_REG_CE_SEM_LO: return (uint32_t)g->ce_sem;
	case EMGPU_REG_CE_SEM_HI: return (uint32_t)(g->ce_sem >> 32);
	case EMGPU_REG_CE_STATUS:
		return g->ce_status | (g->ce_push.active ? EMGPU_CE_STATUS_BUSY : 0);
	case EMGPU_REG_CE_DONE_TIME_LO:
		return lo_latch(g->ce_done / GM_PS_PER_NS, &g->reg_hi.clock);
	case EMGPU_REG_CE_DONE_TIME_HI: return g->reg_hi.clock;

	case EMGPU_REG_LAUNCH_DESC_LO: return (uint32_t)g->launch_desc;
	case EMGPU_REG_LAUNCH_DESC_HI: return (uint32_t)(g->launch_desc >> 32);
	case EMGPU_REG_LAUNCH_STATUS: return g->launch_status;
	case EMGPU_REG_LAUNCH_SEQ: return g->launch_seq;
	case EMGPU_REG_LAUNCH_TIME_LO:
		return lo_latch(g->launch_time / GM_PS_PER_NS, &g->reg_hi.clock);
	case EMGPU_REG_LAUNCH_TIME_HI: return g->reg_hi.clock;
	case EMGPU_REG_LAUNCH_RESULT_LO: return lo_latch(g->launch_result, &g->reg_hi.launch_result);
	case EMGPU_REG_LAUNCH_RESULT_HI: return g->reg_hi.launch_result;

	case EMGPU_REG_TIMER_PERIOD_LO: return (uint32_t)(g->timer_period / GM_PS_PER_NS);
	case EMGPU_REG_TIMER_PERIOD_HI: return (uint32_t)(g->timer_period / GM_PS_PER_NS >> 32);
	case EMGPU_REG_SYNC_STATUS: return g->sync_status;
	case EMGPU_REG_DRIVER_THREAD: return g->drv_thread;
	default:
		/* unknown and write-only registers read as 0 and flag the bug */
		gm_error(g, EMGPU_ERR_BAD_REGISTER, off);
		return 0;
	}
}

static uint64_t commit64(uint32_t hi, uint32_t lo)
{
	return (uint64_t)hi << 32 | lo;
}

void gm_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	if (!g->pers.ops->reg_write(g, off, v))
		return;
	switch (off) {
	case EMGPU_REG_SCRATCH: g->scratch = v; return;
	case EMGPU_REG_ERROR_CLEAR:
		if (v & 1)
			g->error_status = g->error_info = 0;
		return;
	case EMGPU_REG_RESET:
		if (v == EMGPU_RESET_MAGIC)
			gm_reset(g);
		else
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		return;
	case EMGPU_REG_INTR_STATUS: g->intr_status &= ~v; return;
	case EMGPU_REG_INTR_SET: gm_raise(g, v & EMGPU_INTR_ALL); return;
	case EMGPU_REG_INTR_ENABLE: {
		/* causes already pending when enabled fire now, as on hardware */
		uint32_t fire = g->intr_status & v & ~g->intr_enable;

		if (v & ~EMGPU_INTR_ALL)
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		g->intr_enable = v & EMGPU_INTR_ALL;
		g->intr_status &= ~fire;
		gm_raise(g, fire & EMGPU_INTR_ALL);
		return;
	}

	case EMGPU_REG_PDB_HI: g->reg_hi.pdb = v; return;
	case EMGPU_REG_PDB_LO: gm_set_pdb(g, commit64(g->reg_hi.pdb, v)); return;
	case EMGPU_REG_TLB_INV_VA_HI: g->reg_hi.tlb_inv_va = v; return;
	case EMGPU_REG_TLB_INV_VA_LO: g->inv_va = commit64(g->reg_hi.tlb_inv_va, v); return;
	case EMGPU_REG_TLB_INV_SIZE_HI: g->reg_hi.tlb_inv_size = v; return;
	case EMGPU_REG_TLB_INV_SIZE_LO: g->inv_size = commit64(g->reg_hi.tlb_inv_size, v); return;
	case EMGPU_REG_TLB_INV: gm_tlb_invalidate(g, v, g->inv_va, g->inv_size); return;

	case EMGPU_REG_FAULT_BUF_HI: g->fb.base_hi = v; return;
	case EMGPU_REG_FAULT_BUF_LO: ring_write_base(g, &g->fb, v, off); return;
	case EMGPU_REG_FAULT_BUF_SIZE: ring_write_size(g, &g->fb, v, off); return;
	case EMGPU_REG_FAULT_BUF_GET: ring_write_index(g, &g->fb, &g->fb.get, v, off); return;
	case EMGPU_REG_FAULT_BUF_STATUS: g->fb.status &= ~(v & EMGPU_RING_OVERFLOW); return;
	case EMGPU_REG_FAULT_BUF_CTRL: ring_write_ctrl(g, &g->fb, v, off); return;
	case EMGPU_REG_FAULT_REPLAY: gm_fault_replay(g, v); return;

	case EMGPU_REG_AC_BUF_HI: g->ac.base_hi = v; return;
	case EMGPU_REG_AC_BUF_LO: ring_write_base(g, &g->ac, v, off); return;
	case EMGPU_REG_AC_BUF_SIZE: ring_write_size(g, &g->ac, v, off); return;
	case EMGPU_REG_AC_BUF_GET: ring_write_index(g, &g->ac, &g->ac.get, v, off); return;
	case EMGPU_REG_AC_BUF_STATUS: g->ac.status &= ~(v & EMGPU_RING_OVERFLOW); return;
	case EMGPU_REG_AC_CTRL: ring_write_ctrl(g, &g->ac, v, off); return;
	case EMGPU_REG_AC_CONFIG: gm_ac_set_config(g, v); return;
	case EMGPU_REG_AC_CLEAR_TAG: g->ac_clear_tag = v; return;
	case EMGPU_REG_AC_CLEAR: gm_ac_clear(g, v, g->ac_clear_tag); return;

	case EMGPU_REG_CE_RING_HI: g->ce.base_hi = v; return;
	case EMGPU_REG_CE_RING_LO:
		if (v & 0xfff) {
			gm_error(g, EMGPU_ERR_BAD_RING, off);
			return;
		}
		/* a push under way ends: its descriptors were in the old ring */
		gm_ce_drop(g);
		g->ce.base = commit64(g->ce.base_hi, v);
		return;
	case EMGPU_REG_CE_RING_SIZE:
		if (!v || v > EMGPU_RING_MAX_ENTRIES || (v & (v - 1))) {
			gm_error(g, EMGPU_ERR_BAD_RING, off);
			return;
		}
		gm_ce_drop(g);
		g->ce.size = v;
		g->ce.get = g->ce.put = 0;
		return;
	case EMGPU_REG_CE_RING_PUT: ring_write_index(g, &g->ce, &g->ce.put, v, off); return;
	case EMGPU_REG_CE_DOORBELL: gm_ce_doorbell(g); return;
	case EMGPU_REG_CE_SEM_HI: g->reg_hi.ce_sem = v; return;
	case EMGPU_REG_CE_SEM_LO:
		if (v & 3)
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		else
			g->ce_sem = commit64(g->reg_hi.ce_sem, v);
		return;
	case EMGPU_REG_CE_STATUS: g->ce_status &= ~(v & EMGPU_CE_STATUS_ERROR); return;

	case EMGPU_REG_LAUNCH_DESC_HI: g->reg_hi.launch_desc = v; return;
	case EMGPU_REG_LAUNCH_DESC_LO: g->launch_desc = commit64(g->reg_hi.launch_desc, v); return;
	case EMGPU_REG_LAUNCH_DOORBELL: {
		struct emgpu_launch_desc d;

		if (gm_dma_read(g, g->launch_desc, &d, sizeof(d))) {
			gm_error(g, EMGPU_ERR_DMA, off);
			return;
		}
		gm_launch_from(g, &d);
		return;
	}

	case EMGPU_REG_TIMER_PERIOD_HI: g->reg_hi.timer_period = v; return;
	case EMGPU_REG_TIMER_PERIOD_LO:
		g->timer_period = GM_NS(commit64(g->reg_hi.timer_period, v));
		g->timer_next = g->timer_period ? gm_clock(g) + g->timer_period : 0;
		return;
	case EMGPU_REG_SYNC: gm_sync(g); return;
	case EMGPU_REG_DRIVER_TIME: gm_assumed_charge(g, g->drv_thread, v); return;
	case EMGPU_REG_DRIVER_THREAD:
		if (v >= EMGPU_DRV_THREADS)
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		else
			g->drv_thread = v;
		return;
	case EMGPU_REG_DRIVER_ACTION: gm_driver_action(g, v); return;
	default:
		gm_error(g, EMGPU_ERR_BAD_REGISTER, off);
		return;
	}
}
