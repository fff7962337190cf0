/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: the SMs' side. Launches run in a graphics channel's
 * context; a warp's access translates through its page directory, a fault
 * writes a C369 entry and a counter's notification a C365 entry, and in
 * lockstep the driver's answer is its replay, cancel or GET, not SYNC
 * (docs/model.md "SM launches in the GA10x personality"). What an access
 * costs is the shared model's (../access.h).
 */
#include <string.h>

#include "../internal.h"
#include "../access.h"
#include "ga10x.h"
#include "ga10x/access_counter_c365.h"
#include "ga10x/fault_c369.h"
#include "ga10x/host_c56f.h"

/* ---- launches ---- */

/* The SMs run in the context of the graphics channel LAUNCH_CHANNEL names. */
int ga10x_launch_bind(struct gm_gpu *g, uint32_t *info)
{
	struct ga10x_chan *c = ga10x_launch_chan(g);

	if (!c) {
		*info = GA10X_REG_LAUNCH_CHANNEL;
		return -EMGPU_ERR_BAD_VALUE;
	}
	ga10x_state(g)->sm.chan = c;
	return 0;
}

/*
 * The running launch's channel was disabled or given another page
 * directory (@off: the register written): the launch ends there, with
 * EMGPU_ERR_CHANNEL latched. Its warps must not go on in a context that
 * is no longer theirs: the driver may free the channel and hand its slot,
 * instance block or directory to another user, whose tables a replay
 * would then translate through and whose instance its faults would carry.
 */
void ga10x_sm_chan_changed(struct gm_gpu *g, const struct ga10x_chan *c,
			   uint32_t off)
{
	if (g->launch_status != EMGPU_LAUNCH_RUNNING ||
	    ga10x_state(g)->sm.chan != c)
		return;
	gm_error(g, EMGPU_ERR_CHANNEL, off);
	gm_launch_finish(g, EMGPU_LAUNCH_ERROR);
}

/* ---- faults (faults.c owns the buffer) ---- */

/* The C369 CLIENT of model uTLB `client` of a GPC (see ga10x_warp_fault()). */
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
static int ga10x_warp_fault(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
			    unsigned int access, unsigned int fault_type)
{
	const struct gm_ga10x *nv = ga10x_state(g);
	const struct gm_utlb *u = &g->utlb[w->utlb];
	struct ga10x_fault f = {
		.inst = nv->sm.chan->inst,
		.va = va,
		.fault_type = fault_type,
		.access_type = ga10x_access_type(access),
		.engine_id = nv->arch->mmu_eng_graphics,
		.client_type = C369_MMU_CLIENT_TYPE_GPC,
		.gpc = u->gpc,
		.client = ga10x_utlb_client(u->client),
		.timestamp_ns = w->t / GM_PS_PER_NS,
	};

	if (c369_is_prefetch(f.access_type) &&
	    (nv->faults.page_fault_ctrl & C369_PAGE_FAULT_CTRL_PRF_FILTER_MASK) ==
	    C369_PAGE_FAULT_CTRL_PRF_SEND_NONE)
		return 1;
	gm_fault_stall(g, w);
	ga10x_fault_report(g, &f);	/* counts st.faults */
	return 0;
}

/* Lockstep: the replay or cancel hands the batch back. */
static void batch_back(struct gm_gpu *g)
{
	if (ga10x_state(g)->sm.wait == GA10X_WAIT_REPLAY)
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
void ga10x_sm_replay(struct gm_gpu *g, uint32_t entries)
{
	gm_time_t when, ce = 0;
	uint32_t i, n;

	gm_cpu_fault_done(g);
	batch_back(g);
	if (g->launch_status != EMGPU_LAUNCH_RUNNING)
		return;
	if (entries)
		gm_assumed_charge(g, EMGPU_DRV_THREAD_FAULT,
				  (uint64_t)entries * g->prof.drv_fault_page_ns);
	for (i = 0; i < g->prof.num_copy_engines; i++)
		ce = gm_max(ce, g->ce_q[i].busy);
	when = gm_max(gm_max(g->now, gm_fault_path_busy(g)), ce) +
	       GM_NS(g->prof.replay_ns);
	n = gm_resume_warps(g, when);
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
void ga10x_sm_cancel(struct gm_gpu *g, const struct ga10x_replay *r)
{
	const struct ga10x_chan *c = ga10x_state(g)->sm.chan;
	int named = 0;
	uint32_t i;

	gm_cpu_fault_done(g);
	batch_back(g);
	if (g->launch_status != EMGPU_LAUNCH_RUNNING || !c ||
	    !gm_stalled_warps(g))
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
		/* the launch's accesses: its directory, graphics VEID 0 */
		named = same_base(r->pdb, c->pdb) &&
			r->mmu_engine_id == ga10x_state(g)->arch->mmu_eng_graphics;
		break;
	}
	if (named)
		gm_launch_finish(g, EMGPU_LAUNCH_CANCELLED);
}

/* ---- accesses ---- */

/*
 * An access translates through the launch channel's page directory
 * (ga10x_translate(), its TLB; no walk time, as emgpu's walks cost none),
 * then costs what the same access costs in emgpu's personality: VRAM and
 * sysmem through the same queues. A sparse page reads 0 and drops writes
 * at the issue cost. Every sysmem access counts while the notification
 * buffer is enabled, but one through a VER3 PTE with ACD (VER2 PTEs have
 * no such bit). A translation fault
 * writes a C369 entry and stalls the warp's uTLB (ga10x_warp_fault()).
 */
static int warp_access(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		       void *buf, uint32_t len, unsigned int access, int write)
{
	const struct ga10x_chan *c = ga10x_state(g)->sm.chan;
	struct ga10x_xlate x;
	int counts, r;

	if (g->utlb[w->utlb].stalled) {
		w->state = GM_WARP_STALLED;
		return GM_STEP_STALL;
	}
	r = ga10x_translate(g, c->pdb, va, access, &x);
	if (r == GA10X_XLATE_FAULT) {
		if (!ga10x_warp_fault(g, w, va, access, x.fault_type))
			return GM_STEP_STALL;
		x.sparse = 1;	/* a filtered prefetch does nothing */
	} else if (r) {
		return r;
	}
	g->st.accesses += !g->untimed;
	if (x.sparse) {
		if (!write)
			memset(buf, 0, len);
		w->t += g->untimed ? 0 : g->prof.access_issue_ps;
		return 0;
	}
	if (x.aperture == EMGPU_APERTURE_SYSMEM) {
		if (write ? gm_dma_write(g, x.pa, buf, len) :
			    gm_dma_read(g, x.pa, buf, len))
			return -EMGPU_ERR_DMA;
		counts = ga10x_ac_counting(g) && !x.acd;
		if (write)
			gm_account_sysmem(g, w, va, x.pa, len, counts,
					  &g->d2h_q, g->d2h_128_ps, &g->wreq_q,
					  gm_sysmem_write_req_ps(g, va, len));
		else
			gm_account_sysmem(g, w, va, x.pa, len, counts,
					  &g->h2d_q, g->h2d_128_ps, &g->req_q,
					  g->link_req_ps);
		return 0;
	}
	r = write ? gm_vram_line_write(g, x.pa, buf, len) :
		    gm_vram_line_read(g, x.pa, buf, len);
	if (r)
		return r;
	gm_account_vram(g, w, x.pa);
	return 0;
}

int ga10x_warp_load(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		    void *buf, uint32_t len, unsigned int access)
{
	return warp_access(g, w, va, buf, len, access, 0);
}

int ga10x_warp_store(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		     const void *buf, uint32_t len)
{
	return warp_access(g, w, va, (void *)buf, len, EMGPU_ACCESS_WRITE, 1);
}

/* ---- access counters ---- */

/*
 * A counter reached its threshold (../counters.c): a C365 MIMC
 * notification of the region's GVA in the launch channel's context (INST,
 * graphics engine id + VEID 0), tag = the counter's index (what a targeted
 * clear names, faults.c), bank 0. The notification unit applies the
 * injections and raises the leaf bit; the stop that hands it to the driver
 * is the same as emgpu's.
 */
void ga10x_counter_notify(struct gm_gpu *g, int32_t idx)
{
	struct gm_counter *c = &g->ctr[idx];
	const struct ga10x_ac_entry n = {
		.type = C365_TYPE_GPU,
		.addr_type = C365_ADDR_TYPE_GVA,
		.addr = c->region << g->ac_gran_shift,
		.inst = ga10x_state(g)->sm.chan->inst,
		.mmu_engine_id = ga10x_state(g)->arch->mmu_eng_graphics,
		.sub_granularity = c->sub_mask,
		.counter = c->count & C365_W6_COUNTER_VAL_MASK,
		.tag = (uint32_t)idx,
	};

	c->notified = 1;
	if (ga10x_ac_notify(g, &n) > 0)
		c->notified = 0;	/* not lost: notifies again on its next access */
	g->notify_pending = 1;
}

/* ---- lockstep ---- */

/*
 * nvidia-uvm never writes SYNC: its answer to a fault batch is the replay
 * or cancel, to notifications the GET that drains them (faults.c), each
 * handing the device back. No driver answers a timer tick: no wait.
 */
int ga10x_stop_waits(struct gm_gpu *g, enum gm_stop why)
{
	if (why == GM_STOP_TIMER)
		return 0;
	ga10x_state(g)->sm.wait = why == GM_STOP_FAULT ? GA10X_WAIT_REPLAY
						       : GA10X_WAIT_AC_GET;
	return 1;
}

/*
 * Which rings a stop hands to the driver. A fault batch's stop the fault
 * buffer, a notification stop the notification buffer; a stop with no
 * launch running (it ended) both. Any other stop (a timer
 * tick, a budget) neither: the driver could answer a batch not yet
 * handed off, and the hand-off would then wait for nothing.
 */
static uint32_t stop_publishes(const struct gm_gpu *g, enum gm_stop why)
{
	if (g->launch_status != EMGPU_LAUNCH_RUNNING)
		return GA10X_PUBLISH_FAULTS | GA10X_PUBLISH_NOTIFY;
	if (why == GM_STOP_FAULT)
		return GA10X_PUBLISH_FAULTS;
	if (why == GM_STOP_NOTIFY)
		return GA10X_PUBLISH_NOTIFY;
	return 0;
}

void ga10x_stop_publish(struct gm_gpu *g, enum gm_stop why)
{
	ga10x_publish(g, stop_publishes(g, why));
}

void ga10x_sync(struct gm_gpu *g)
{
	ga10x_state(g)->sm.wait = GA10X_WAIT_NONE;
}
