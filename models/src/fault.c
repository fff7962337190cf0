/* SPDX-License-Identifier: MIT */
/*
 * Replayable fault buffer: entries (C369-like, emgpu_hw.h) written at PUT
 * into a ring in sysmem; REPLAY resumes and CANCEL fails stalled warps.
 *
 * A faulting access stalls its uTLB: the faulting warp and every warp of
 * that uTLB that tries an access afterwards wait for REPLAY_START and then
 * re-execute the access (re-faulting if it is still unmapped). A full or
 * disabled ring drops the fault with OVERFLOW set; the warp stays stalled.
 */
#include "internal.h"
#include "ga10x/ga10x.h"
#include "ga10x/fault_c369.h"
#include "ga10x/host_c56f.h"

int gm_ring_valid(const struct gm_ring *r, uint32_t entry_size)
{
	return r->size && r->size <= EMGPU_RING_MAX_ENTRIES &&
	       !(r->size & (r->size - 1)) && !(r->base & 0xfff) &&
	       r->base + (uint64_t)r->size * entry_size > r->base &&
	       r->get < r->size && r->put < r->size;
}

/* Writes one entry at PUT; 0, 1 if the ring is full/disabled, or -error. */
static int fb_push(struct gm_gpu *g, const struct emgpu_fault_entry *ent)
{
	struct gm_ring *r = &g->fb;
	int rc;

	if (!(r->ctrl & EMGPU_RING_ENABLE) || !gm_ring_valid(r, 32) ||
	    ((r->put + 1) & (r->size - 1)) == r->get)
		return 1;
	rc = gm_dma_write(g, r->base + sizeof(*ent) * (uint64_t)r->put, ent,
			  sizeof(*ent));
	if (rc)
		return rc;
	r->put = (r->put + 1) & (r->size - 1);
	g->st.fault_entries++;
	return 0;
}

/* The faulting warp and its uTLB stall; the first fault opens a batch. */
static void fault_stall(struct gm_gpu *g, struct gm_warp *w)
{
	struct gm_utlb *u = &g->utlb[w->utlb];

	u->stalled = 1;
	g->utlb_stalls = 1;
	w->state = GM_WARP_STALLED;
	if (!g->fault_pending) {
		g->fault_pending = 1;
		g->fault_deadline = w->t + GM_NS(g->prof.fault_batch_window_ns);
	}
}

void gm_fault_report(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		     unsigned int access, unsigned int type)
{
	struct gm_utlb *u = &g->utlb[w->utlb];
	struct emgpu_fault_entry ent;
	uint32_t info;
	int rc;

	g->st.faults++;
	fault_stall(g, w);
	info = (type & EMGPU_FAULT_INFO_TYPE_MASK) | EMGPU_FAULT_INFO_REPLAYABLE |
	       (u->client << EMGPU_FAULT_INFO_CLIENT_SHIFT &
		EMGPU_FAULT_INFO_CLIENT_MASK) |
	       (access << EMGPU_FAULT_INFO_ACCESS_SHIFT &
		EMGPU_FAULT_INFO_ACCESS_MASK) |
	       (u->gpc << EMGPU_FAULT_INFO_GPC_SHIFT & EMGPU_FAULT_INFO_GPC_MASK) |
	       EMGPU_FAULT_INFO_VALID;
	ent.inst = emgpu_cpu_to_le64(g->launch.seq);
	ent.addr = emgpu_cpu_to_le64(va & ~((1ull << EMGPU_PAGE_SHIFT) - 1));
	ent.timestamp = emgpu_cpu_to_le64(w->t / GM_PS_PER_NS);
	ent.engine = emgpu_cpu_to_le32(w->sm & 0x1ff);
	ent.info = emgpu_cpu_to_le32(info);

	rc = gm_inject_check(g, GM_INJ_FAULT_OVERFLOW, va, 1) ? 1 : fb_push(g, &ent);
	if (rc < 0) {
		gm_error(g, -rc, (uint32_t)g->fb.put);
		return;
	}
	if (rc > 0) {
		g->fb.status |= EMGPU_RING_OVERFLOW;
		g->st.fault_overflows++;
		gm_event(g, GM_EV_OVERFLOW, va, info, 0);
	} else {
		gm_event(g, GM_EV_FAULT, va, info, w->t / GM_PS_PER_NS);
		if (gm_inject_check(g, GM_INJ_FAULT_DUP, va, 1) &&
		    fb_push(g, &ent) == 0)
			gm_event(g, GM_EV_FAULT, va, info, ~0ull);
	}
	gm_raise(g, EMGPU_INTR_FAULT);
}

/* How many warps are stalled. */
static uint32_t stalled_warps(const struct gm_gpu *g)
{
	uint32_t i, n = 0;

	for (i = 0; i < g->nwarps; i++)
		n += g->warps[i].state == GM_WARP_STALLED;
	return n;
}

/* Releases every uTLB; the stalled warps run again from `when`. */
static uint32_t resume_warps(struct gm_gpu *g, gm_time_t when)
{
	uint32_t i, n = 0;

	for (i = 0; i < g->nutlb; i++)
		g->utlb[i].stalled = 0;
	g->utlb_stalls = 0;
	for (i = 0; i < g->nwarps; i++) {
		struct gm_warp *w = &g->warps[i];

		if (w->state != GM_WARP_STALLED)
			continue;
		w->state = GM_WARP_RUNNABLE;
		w->t = gm_max(w->t, when);
		g->runq_dirty = 1;
		n++;
	}
	return n;
}

void gm_fault_replay(struct gm_gpu *g, uint32_t mode)
{
	gm_time_t when;
	uint32_t n;

	if (mode == EMGPU_REPLAY_CANCEL) {
		g->st.cancels++;
		gm_event(g, GM_EV_CANCEL, 0, 0, 0);
		n = stalled_warps(g);
		if (n && g->launch_status == EMGPU_LAUNCH_RUNNING)
			gm_launch_finish(g, EMGPU_LAUNCH_CANCELLED);
		return;
	}
	if (mode != EMGPU_REPLAY_START) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, EMGPU_REG_FAULT_REPLAY);
		return;
	}
	/* the batch's service delays the replay: stalled warps resume then */
	when = gm_max(g->now, gm_fault_path_busy(g)) +
	       GM_NS(g->prof.replay_ns);
	n = resume_warps(g, when);
	g->st.replays++;
	gm_event(g, GM_EV_REPLAY, n, when / GM_PS_PER_NS, 0);
}

/* ---- the GA10x personality (src/ga10x/faults.c owns its buffer) ---- */

/* The C369 CLIENT of model uTLB `client` of a GPC (see gm_fault_report_ga10x). */
static unsigned int ga10x_utlb_client(uint32_t client)
{
	return C369_CLIENT_GPC_T1(client % 16);
}

static unsigned int ga10x_access_type(unsigned int access)
{
	switch (access) {
	case EMGPU_ACCESS_WRITE: return C369_ACCESS_VIRT_WRITE;
	case EMGPU_ACCESS_ATOMIC: return C369_ACCESS_VIRT_ATOMIC_STRONG;
	case EMGPU_ACCESS_PREFETCH: return C369_ACCESS_VIRT_PREFETCH;
	default: return C369_ACCESS_VIRT_READ;
	}
}

/*
 * A warp's translation fault in the channel's context: one C369 entry
 * (INST the channel's, ENGINE_ID graphics + VEID 0, the warp's uTLB as
 * GPC_ID and a CLIENT that nvidia-uvm's Ampere HAL maps to a uTLB), the
 * warp and uTLB stall as in emgpu's personality. Model uTLB c of a GPC is
 * client T1_c, which uvm_hal_ampere_mmu_client_id_to_utlb_id() maps to
 * the GPC's LTP uTLB c + 1 (uTLB 0 is RGG's, no SM's); a profile with
 * more than 16 uTLBs a GPC folds them onto 16 (T1_0..T1_15). Returns 0,
 * or 1 when the access is a prefetch PAGE_FAULT_CTRL filters: no fault,
 * the access does nothing.
 */
int gm_fault_report_ga10x(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
			  unsigned int access, unsigned int fault_type)
{
	const struct gm_utlb *u = &g->utlb[w->utlb];
	struct ga10x_fault f = {
		.inst = g->nv->sm.chan->inst,
		.va = va,
		.fault_type = fault_type,
		.access_type = ga10x_access_type(access),
		.engine_id = C369_MMU_ENG_ID_GRAPHICS,
		.client_type = C369_MMU_CLIENT_TYPE_GPC,
		.gpc = u->gpc,
		.client = ga10x_utlb_client(u->client),
		.timestamp_ns = w->t / GM_PS_PER_NS,
	};

	if (c369_is_prefetch(f.access_type) &&
	    (g->nv->faults.page_fault_ctrl & C369_PAGE_FAULT_CTRL_PRF_FILTER_MASK) ==
	    C369_PAGE_FAULT_CTRL_PRF_SEND_NONE)
		return 1;
	fault_stall(g, w);
	ga10x_fault_report(g, &f);	/* counts st.faults */
	return 0;
}

/* Lockstep: the replay or cancel hands the batch back. */
static void ga10x_batch_back(struct gm_gpu *g)
{
	if (g->nv->sm.wait == GA10X_WAIT_REPLAY)
		gm_sm_hand_back(g);
}

/*
 * A replay under nvidia-uvm, which cannot charge its CPU time as ember.ko
 * does (DRIVER_TIME): the batch's fixed cost (fault_service_ns) was charged
 * to the FAULT thread at the hand-off, as in emgpu's personality; here each
 * fault entry of the batch adds drv_fault_page_ns. The stalled warps
 * resume replay_ns after the later of that and the copy engines' last
 * completion (nvidia-uvm replays once its batch's copies are done; they
 * ran on the channels' copy engines, not on a driver thread).
 */
void gm_fault_resume_ga10x(struct gm_gpu *g, uint32_t entries)
{
	gm_time_t when, ce = 0;
	uint32_t i, n;

	ga10x_batch_back(g);
	if (g->launch_status != EMGPU_LAUNCH_RUNNING)
		return;
	if (entries)
		gm_driver_charge(g, EMGPU_DRV_THREAD_FAULT,
				 (uint64_t)entries * g->prof.drv_fault_page_ns);
	for (i = 0; i < g->prof.num_copy_engines; i++)
		ce = gm_max(ce, g->ce_q[i].busy);
	when = gm_max(gm_max(g->now, gm_fault_path_busy(g)), ce) +
	       GM_NS(g->prof.replay_ns);
	n = resume_warps(g, when);
	gm_event(g, GM_EV_REPLAY, n, when / GM_PS_PER_NS, entries);
}

static int same_base(uint64_t a, uint64_t b)
{
	return (a & ~0xfffull) == (b & ~0xfffull) &&
	       (a & GA10X_BASE_APERTURE_MASK) == (b & GA10X_BASE_APERTURE_MASK);
}

/*
 * A cancel fails the running launch, as emgpu's CANCEL does, when it names
 * stalled accesses of it: a targeted cancel a stalled uTLB of the launch's
 * (GPC, client) with the channel's INST, a global one the channel's INST,
 * a VA-global one the channel's PDB (the model keeps no faulting VA per
 * warp: any stalled access of the launch's address space is cancelled;
 * nvidia-uvm cancels only fatal faults, which end the CUDA context).
 */
void gm_fault_cancel_ga10x(struct gm_gpu *g, const struct ga10x_replay *r)
{
	const struct ga10x_chan *c = g->nv->sm.chan;
	int named = 0;
	uint32_t i;

	ga10x_batch_back(g);
	if (g->launch_status != EMGPU_LAUNCH_RUNNING || !c || !stalled_warps(g))
		return;
	switch (r->type) {
	case C56F_MEM_OP_C_REPLAY_CANCEL_TARGETED:
		if (!same_base(r->inst, c->inst))
			break;
		for (i = 0; i < g->nutlb; i++)
			if (g->utlb[i].stalled && g->utlb[i].gpc == r->gpc &&
			    ga10x_utlb_client(g->utlb[i].client) == r->client)
				named = 1;
		break;
	case C56F_MEM_OP_C_REPLAY_CANCEL_GLOBAL:
		named = same_base(r->inst, c->inst);
		break;
	case C56F_MEM_OP_C_REPLAY_CANCEL_VA_GLOBAL:
		named = same_base(r->pdb, c->pdb);
		break;
	}
	if (named)
		gm_launch_finish(g, EMGPU_LAUNCH_CANCELLED);
}
