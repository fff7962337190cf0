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

void gm_fault_stall(struct gm_gpu *g, struct gm_warp *w)
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
	gm_fault_stall(g, w);
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

uint32_t gm_stalled_warps(const struct gm_gpu *g)
{
	uint32_t i, n = 0;

	for (i = 0; i < g->nwarps; i++)
		n += g->warps[i].state == GM_WARP_STALLED;
	return n;
}

uint32_t gm_resume_warps(struct gm_gpu *g, gm_time_t when)
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

	if (mode == EMGPU_REPLAY_CANCEL || mode == EMGPU_REPLAY_START)
		gm_cpu_fault_done(g);
	if (mode == EMGPU_REPLAY_CANCEL) {
		g->st.cancels++;
		gm_event(g, GM_EV_CANCEL, 0, 0, 0);
		n = gm_stalled_warps(g);
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
	n = gm_resume_warps(g, when);
	g->st.replays++;
	gm_event(g, GM_EV_REPLAY, n, when / GM_PS_PER_NS, 0);
}
