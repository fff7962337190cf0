/* SPDX-License-Identifier: MIT */
/*
 * SMs, warps and the run loop.
 *
 * Timing (every constant from the profile):
 *  - A warp has its own clock w->t. One 128-byte access costs the warp at
 *    least max(access_issue, latency / warp_mlp) of its aperture (a warp
 *    keeps warp_mlp lines in flight), and uses the VRAM queue, or the link
 *    queue of its direction (reads host->device, writes device->host), for
 *    bytes / bandwidth. The queue's busy-until time is shared by every warp
 *    and copy, so bandwidth is shared, not multiplied (see gm_charge()).
 *  - A work item's ALU work (gm_warp_compute(): the card's warp
 *    instructions for it, at warp_issue_ps each) adds to the warp's clock
 *    beside its accesses: a launch takes the later of its warps' issue
 *    time and its queues' busy time, a roofline.
 *  - The run loop advances in epochs of GM_EPOCH_PS: it runs every
 *    runnable warp in slices of GM_SLICE accesses, round-robin, until all
 *    have reached the horizon. The global clock (PTIMER) is the horizon.
 *  - A fault stalls the warp (and its uTLB). The first fault of a batch
 *    starts a window of fault_batch_window_ns; at its end (or when no warp
 *    can run) the batch is handed to the driver, whose FAULT thread is
 *    charged fault_service_ns from that moment; REPLAY resumes the stalled
 *    warps at max(now, FAULT thread busy-until) + replay_ns.
 *  - Work is dispatched in order (gm_next_item()): a warp that finishes a
 *    work item takes the launch's next one, as a GPU hands out thread
 *    blocks when SMs free up, so a sweep's active region stays a narrow
 *    front however long some warps stall.
 *  - A launch starts at the idle device's clock (gm_clock()): after the
 *    copies and driver work issued before it.
 */
#include <stdlib.h>

#include "internal.h"
#include "access.h"

int gm_sm_init(struct gm_gpu *g)
{
	g->max_warps = g->prof.num_sms * g->prof.warps_per_sm;
	g->warps = calloc(g->max_warps, sizeof(*g->warps));
	g->runq = calloc(3 * (size_t)g->max_warps, sizeof(*g->runq));
	if (!g->warps || !g->runq)
		return -1;
	g->ep_a = g->runq + g->max_warps;
	g->ep_b = g->ep_a + g->max_warps;
	return 0;
}

void gm_sm_reset(struct gm_gpu *g)
{
	uint32_t i;

	g->nwarps = 0;
	g->warps_done = 0;
	g->kernel = NULL;
	g->ep_active = 0;
	g->runq_dirty = 1;
	g->poll_mark = ~0ull;
	memset(&g->launch, 0, sizeof(g->launch));
	for (i = 0; i < g->nutlb; i++)
		g->utlb[i].stalled = 0;
	g->utlb_stalls = 0;
}

static uint32_t sm_utlb(const struct gm_gpu *g, uint32_t sm)
{
	uint32_t gpc = sm % g->prof.num_gpcs;
	uint32_t client = (sm / g->prof.num_gpcs) % g->prof.utlbs_per_gpc;

	return gpc * g->prof.utlbs_per_gpc + client;
}

static void launch_fail(struct gm_gpu *g, enum emgpu_error code, uint32_t info)
{
	gm_error(g, code, info);
	g->launch_status = EMGPU_LAUNCH_ERROR;
	g->st.launches_failed++;
	gm_raise(g, EMGPU_INTR_LAUNCH);
}

int gm_launch_from(struct gm_gpu *g, const struct emgpu_launch_desc *desc)
{
	struct gm_launch_params dec, *d = &dec;
	const struct gm_kernel *k;
	uint32_t i, warps, info;
	int r;

	dec.kernel = emgpu_le32_to_cpu(desc->kernel);
	dec.warps = emgpu_le32_to_cpu(desc->warps);
	dec.seed = emgpu_le64_to_cpu(desc->seed);
	for (i = 0; i < EMGPU_LAUNCH_MAX_ARGS; i++)
		dec.args[i] = emgpu_le64_to_cpu(desc->args[i]);

	if (g->hung)
		return -EMGPU_ERR_HANG;
	if (g->launch_status == EMGPU_LAUNCH_RUNNING) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, EMGPU_REG_LAUNCH_DOORBELL);
		return -EMGPU_ERR_BAD_VALUE;
	}
	r = g->pers.ops->launch_bind(g, &info);
	if (r) {
		launch_fail(g, -r, info);
		return r;
	}
	k = gm_kernel_find(d->kernel);
	warps = d->warps ? d->warps : g->max_warps;
	memset(&g->launch, 0, sizeof(g->launch));
	g->launch.d = *d;
	g->launch.warps = warps;
	g->launch.seq = g->launch_seq + 1;
	if (!k || warps > g->max_warps || k->check(&g->launch)) {
		launch_fail(g, EMGPU_ERR_BAD_DESCRIPTOR, d->kernel);
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
	/* the idle device's clock: after the copies issued before the launch */
	g->now = gm_clock(g);
	g->kernel = k;
	g->nwarps = warps;
	g->warps_done = 0;
	g->next_item = warps;	/* items 0 .. warps - 1: the first wave */
	g->ep_active = 0;
	g->runq_dirty = 1;
	for (i = 0; i < g->nutlb; i++)
		g->utlb[i].stalled = 0;
	g->utlb_stalls = 0;
	for (i = 0; i < warps; i++) {
		struct gm_warp *w = &g->warps[i];

		memset(w, 0, sizeof(*w));
		w->id = i;
		w->sm = i % g->prof.num_sms;
		w->utlb = sm_utlb(g, w->sm);
		w->state = GM_WARP_RUNNABLE;
		w->t = g->now + GM_NS(g->prof.launch_ns);
		k->init(&g->launch, w);
	}
	g->fault_pending = 0;
	g->launch_start = g->now;
	g->launch_status = EMGPU_LAUNCH_RUNNING;
	g->st.launches++;
	gm_event(g, GM_EV_LAUNCH, d->kernel, warps, d->seed);
	return 0;
}

uint64_t gm_next_item(struct gm_gpu *g)
{
	return g->next_item++;
}

int gm_launch(struct gm_gpu *g, const struct emgpu_launch_desc *d)
{
	return gm_launch_from(g, d);
}

void gm_launch_finish(struct gm_gpu *g, uint32_t status)
{
	gm_time_t end = g->launch_start;
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < g->nwarps; i++) {
		struct gm_warp *w = &g->warps[i];

		end = gm_max(end, w->state == GM_WARP_DONE ? w->t : g->now);
		sum += w->acc;
		w->state = GM_WARP_IDLE;
	}
	if (status != EMGPU_LAUNCH_DONE)
		end = gm_max(end, g->now);
	g->ep_active = 0;
	g->runq_dirty = 1;
	for (i = 0; i < g->nutlb; i++)
		g->utlb[i].stalled = 0;
	g->utlb_stalls = 0;
	g->fault_pending = 0;
	g->launch_status = status;
	g->launch_seq++;
	g->launch_time = end - g->launch_start;
	g->launch_result = sum;
	if (status != EMGPU_LAUNCH_DONE)
		g->st.launches_failed++;
	gm_event(g, GM_EV_COMPLETE, status, sum, g->launch_time / GM_PS_PER_NS);
	gm_raise(g, EMGPU_INTR_LAUNCH);
}

/* ---- the access path ---- */

static int access_fail(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		       unsigned int access, int r)
{
	if (r > 0) {
		gm_fault_report(g, w, va, access, (unsigned int)r);
		return GM_STEP_STALL;
	}
	return r;
}

static inline int warp_translate(struct gm_gpu *g, struct gm_warp *w,
				 uint64_t va, unsigned int access,
				 const struct gm_tlb_entry **e)
{
	struct gm_utlb *u = &g->utlb[w->utlb];
	int r;

	if (u->stalled) {
		w->state = GM_WARP_STALLED;
		return GM_STEP_STALL;
	}
	r = gm_mmu_lookup(g, u, va, e);
	if (!r && access != EMGPU_ACCESS_READ && ((*e)->flags & GM_TLB_RO))
		r = EMGPU_FAULT_RO_VIOLATION;
	if (r)
		return access_fail(g, w, va, access, r);
	return 0;
}

static inline uint64_t entry_pa(const struct gm_tlb_entry *e, uint64_t va)
{
	return e->pa + (va & (e->shift == EMGPU_HUGE_PAGE_SHIFT ?
			      (1ull << EMGPU_HUGE_PAGE_SHIFT) - 1 :
			      (1ull << EMGPU_PAGE_SHIFT) - 1));
}

/* emgpu: accesses through a sysmem PTE without ACD count, while enabled */
static inline int ac_counts(const struct gm_gpu *g, uint32_t flags)
{
	return !(flags & GM_TLB_ACD) && (g->ac.ctrl & EMGPU_RING_ENABLE);
}

int gm_emgpu_warp_load(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		       void *buf, uint32_t len, unsigned int access)
{
	const struct gm_tlb_entry *e;
	uint64_t pa;
	int r;

	r = warp_translate(g, w, va, access, &e);
	if (r)
		return r;
	pa = entry_pa(e, va);
	g->st.accesses += !g->untimed;
	if (e->flags & GM_TLB_SYSMEM) {
		uint32_t flags = e->flags;

		if (gm_dma_read(g, pa, buf, len))
			return -EMGPU_ERR_DMA;
		gm_account_sysmem(g, w, va, pa, len, ac_counts(g, flags), &g->h2d_q,
				  g->h2d_128_ps, &g->req_q, g->link_req_ps);
		return 0;
	}
	r = gm_vram_line_read(g, pa, buf, len);
	if (r)
		return r;
	gm_account_vram(g, w, pa);
	return 0;
}

int gm_emgpu_warp_store(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
			const void *buf, uint32_t len)
{
	const struct gm_tlb_entry *e;
	uint64_t pa;
	int r;

	r = warp_translate(g, w, va, EMGPU_ACCESS_WRITE, &e);
	if (r)
		return r;
	pa = entry_pa(e, va);
	g->st.accesses += !g->untimed;
	if (e->flags & GM_TLB_SYSMEM) {
		uint32_t flags = e->flags;

		if (gm_dma_write(g, pa, buf, len))
			return -EMGPU_ERR_DMA;
		gm_account_sysmem(g, w, va, pa, len, ac_counts(g, flags), &g->d2h_q,
				  g->d2h_128_ps, &g->wreq_q,
				  gm_sysmem_write_req_ps(g, va, len));
		return 0;
	}
	r = gm_vram_line_write(g, pa, buf, len);
	if (r)
		return r;
	gm_account_vram(g, w, pa);
	return 0;
}

int gm_warp_load(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		 void *buf, uint32_t len, unsigned int access)
{
	return g->pers.ops->warp_load(g, w, va, buf, len, access);
}

int gm_warp_store(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
		  const void *buf, uint32_t len)
{
	return g->pers.ops->warp_store(g, w, va, buf, len);
}

int gm_warp_load_untimed(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
			 void *buf, uint32_t len)
{
	int r;

	g->untimed = 1;
	r = gm_warp_load(g, w, va, buf, len, EMGPU_ACCESS_READ);
	g->untimed = 0;
	return r;
}

void gm_warp_compute(struct gm_gpu *g, struct gm_warp *w, uint32_t insts)
{
	w->t += (gm_time_t)insts * g->prof.warp_issue_ps;
}

/* ---- the run loop ---- */

/* Applies poison and hang injections whose trigger has come. */
static void poll_injections(struct gm_gpu *g)
{
	uint64_t a;
	int i;

	for (i = 0; i < g->ninj; i++) {
		struct gm_inject *in = &g->inj[i];

		if (in->kind != GM_INJ_POISON && in->kind != GM_INJ_HANG)
			continue;
		if (!gm_inject_check(g, in->kind, in->range_start, in->range_len))
			continue;
		if (in->kind == GM_INJ_HANG) {
			g->hung = 1;
			gm_error(g, EMGPU_ERR_HANG, 0);
			continue;
		}
		for (a = in->range_start & ~(GM_CHUNK_SIZE - 1);
		     a < in->range_start + in->range_len &&
		     (a >> GM_CHUNK_SHIFT) < g->nchunks; a += GM_CHUNK_SIZE)
			g->chunk_poison[a >> GM_CHUNK_SHIFT] = 1;
	}
	g->poll_mark = g->st.events;
}

static enum gm_stop handoff(struct gm_gpu *g, enum gm_stop why)
{
	if (why == GM_STOP_FAULT) {
		g->fault_pending = 0;
		g->st.cpu_assumed_ns += g->prof.fault_service_ns;
		if (gm_cost_assumed(g))
			g->drv_busy[EMGPU_DRV_THREAD_FAULT] =
				gm_max(g->drv_busy[EMGPU_DRV_THREAD_FAULT], g->now) +
				GM_NS(g->prof.fault_service_ns);
		gm_cpu_handoff(g, why);
	}
	if (g->lockstep && g->pers.ops->stop_waits(g, why)) {
		g->sync_status |= EMGPU_SYNC_WAITING;
		if (why == GM_STOP_NOTIFY)	/* answered by the hand-back */
			gm_cpu_handoff(g, why);
	}
	return why;
}

/*
 * Starts the next epoch: its horizon is one GM_EPOCH_PS past the later of
 * now and the earliest runnable warp, cut at the timer tick and the fault
 * batch deadline. Returns 0, or 1 with *why when no warp can run (the
 * launch is done, or waits for the driver).
 */
static int epoch_begin(struct gm_gpu *g, enum gm_stop *why)
{
	gm_time_t h, min = UINT64_MAX;
	uint32_t i, n = 0;

	if (g->runq_dirty) {
		for (i = 0; i < g->nwarps; i++) {
			const struct gm_warp *w = &g->warps[i];

			if (w->state == GM_WARP_RUNNABLE) {
				g->runq[n++] = i;
				min = w->t < min ? w->t : min;
			}
		}
		g->nrunq = n;
		g->runq_dirty = 0;
	} else {	/* counted by the last epoch (epoch_run) */
		n = g->ep_nrun;
		min = g->ep_min;
	}
	if (!n) {
		if (g->warps_done == g->nwarps) {
			gm_launch_finish(g, EMGPU_LAUNCH_DONE);
			g->now = gm_max(g->now, g->launch_start + g->launch_time);
			*why = GM_STOP_LAUNCH_DONE;
		} else if (g->fault_pending) {
			*why = handoff(g, GM_STOP_FAULT);
		} else {
			*why = GM_STOP_STALLED;
		}
		return 1;
	}
	h = gm_max(g->now, min) + GM_EPOCH_PS;
	if (g->timer_period && g->timer_next < h)
		h = gm_max(g->timer_next, g->now + 1);
	if (g->fault_pending && g->fault_deadline < h)
		h = gm_max(g->fault_deadline, g->now + 1);
	g->ep_active = 1;
	g->ep_h = h;
	g->ep_cur = g->runq;
	g->ep_ncur = g->nrunq;
	g->ep_k = 0;
	g->ep_n = 0;
	g->ep_nxt = g->ep_a;
	g->ep_nnxt = 0;
	g->ep_progressed = 0;
	g->ep_nrun = 0;
	g->ep_min = UINT64_MAX;
	return 0;
}

/*
 * Resuming an epoch after gm_run() returned: rebuilds the pass lists from
 * the warps' states, in case the embedder changed them in between (a
 * replay makes warps runnable): the rest of this pass is every warp at or
 * after the current one that can run, the next pass starts with those
 * before it. This is exactly what a pass over all warps would visit.
 */
static void epoch_rescan(struct gm_gpu *g)
{
	uint32_t cur = g->ep_k < g->ep_ncur ? g->ep_cur[g->ep_k] : g->nwarps;
	uint32_t i, nc = 0, nn = 0;

	for (i = 0; i < g->nwarps; i++) {
		const struct gm_warp *w = &g->warps[i];
		int can = w->state == GM_WARP_RUNNABLE && w->t < g->ep_h;

		if (i < cur && can)
			g->ep_b[nn++] = i;
		else if (i >= cur && (can || (i == cur && g->ep_n)))
			g->ep_a[nc++] = i;
	}
	g->ep_cur = g->ep_a;
	g->ep_ncur = nc;
	g->ep_k = 0;
	g->ep_nxt = g->ep_b;
	g->ep_nnxt = nn;
	g->runq_dirty = 1;	/* runq and the counts: rebuilt next epoch */
}

enum { EP_DONE, EP_BUDGET, EP_FAILED };

/* A warp runnable at the end of its last visit in the epoch. */
static inline void count_runnable(struct gm_gpu *g, const struct gm_warp *w)
{
	g->ep_nrun++;
	if (w->t < g->ep_min)
		g->ep_min = w->t;
}

/*
 * Runs the epoch in progress: passes over the warps, each runnable warp
 * below the horizon taking a slice of up to GM_SLICE steps, until a pass
 * runs none. The position (pass, warp, step within the slice) lives in
 * the gm_gpu, so a budget stop (checked before every step) resumes at the
 * step that would have come next: slicing is invisible to the model.
 */
static int epoch_run(struct gm_gpu *g, uint64_t budget, uint64_t start_acc)
{
	const struct gm_kernel *k = g->kernel;
	int (*const accesses_first)(const struct gm_launch *,
				    const struct gm_warp *) = k->accesses_first;
	const gm_time_t h = g->ep_h;
	/* the position, in registers across step() calls; stored on exit */
	uint32_t pos = g->ep_k, n = g->ep_n, kept = 0;
	int r;

	for (;;) {
		/* the first pass keeps runq's still runnable warps in it */
		const int first = g->ep_cur == g->runq;

		for (; pos < g->ep_ncur; pos++, n = 0) {
			uint32_t wi = g->ep_cur[pos];
			struct gm_warp *w = &g->warps[wi];

			if (!n && (w->state != GM_WARP_RUNNABLE || w->t >= h)) {
				if (w->state == GM_WARP_RUNNABLE) {
					if (first)
						g->runq[kept++] = wi;
					count_runnable(g, w);
				}
				continue;
			}
			for (;;) {
				if (budget && g->st.accesses - start_acc >= budget) {
					g->ep_k = pos;
					g->ep_n = n;
					return EP_BUDGET;
				}
				if (g->utlb_stalls && accesses_first &&
				    g->utlb[w->utlb].stalled &&
				    accesses_first(&g->launch, w)) {
					/* what the step's first access would do */
					w->state = GM_WARP_STALLED;
					break;
				}
				r = k->step(g, &g->launch, w);
				if (r == GM_STEP_MORE) {
					if (++n < GM_SLICE && w->t < h)
						continue;
					break;
				}
				if (r == GM_STEP_DONE) {
					w->state = GM_WARP_DONE;
					g->warps_done++;
					break;
				}
				if (r == GM_STEP_STALL)
					break;
				gm_error(g, -r, w->id);
				gm_launch_finish(g, EMGPU_LAUNCH_ERROR);
				return EP_FAILED;
			}
			g->ep_progressed = 1;
			if (w->state != GM_WARP_RUNNABLE)
				continue;
			if (first)
				g->runq[kept++] = wi;
			if (w->t < h)
				g->ep_nxt[g->ep_nnxt++] = wi;
			else
				count_runnable(g, w);
		}
		if (first)
			g->nrunq = kept;
		if (!g->ep_progressed) {
			g->ep_k = pos;
			g->ep_n = 0;
			return EP_DONE;
		}
		g->ep_cur = g->ep_nxt;
		g->ep_ncur = g->ep_nnxt;
		g->ep_nxt = g->ep_cur == g->ep_a ? g->ep_b : g->ep_a;
		g->ep_nnxt = 0;
		g->ep_progressed = 0;
		pos = 0;
	}
}

/* Ends the epoch: the clock moves to its horizon; a stop or GM_STOP_IDLE. */
static enum gm_stop epoch_end(struct gm_gpu *g)
{
	g->ep_active = 0;
	g->now = g->ep_h;
	poll_injections(g);
	if (g->hung)
		return GM_STOP_HANG;
	if (g->launch_status != EMGPU_LAUNCH_RUNNING)
		return GM_STOP_LAUNCH_DONE;	/* an error failed it */
	if (g->timer_period && g->now >= g->timer_next) {
		g->timer_next += g->timer_period;
		if (g->timer_next <= g->now)
			g->timer_next = g->now + g->timer_period;
		gm_event(g, GM_EV_TIMER, g->now / GM_PS_PER_NS, 0, 0);
		gm_raise(g, EMGPU_INTR_TIMER);
		return handoff(g, GM_STOP_TIMER);
	}
	if (g->notify_pending) {
		g->notify_pending = 0;
		return handoff(g, GM_STOP_NOTIFY);
	}
	if (g->fault_pending && g->now >= g->fault_deadline)
		return handoff(g, GM_STOP_FAULT);
	return GM_STOP_IDLE;
}

/*
 * The budget only decides where gm_run() returns, never what runs: the
 * epoch, its pass and slice positions survive a budget stop, and the
 * injection check point at entry is taken only between epochs, outside a
 * lockstep wait, and when an event happened since the last check point,
 * so neither the budget nor the number of calls changes anything modelled.
 */
static enum gm_stop run_warps(struct gm_gpu *g, uint64_t budget)
{
	uint64_t start_acc = g->st.accesses;
	enum gm_stop why;
	int r;

	if (!g->hung && !g->ep_active && g->poll_mark != g->st.events &&
	    !(g->lockstep && (g->sync_status & EMGPU_SYNC_WAITING)))
		poll_injections(g);
	if (g->hung)
		return GM_STOP_HANG;
	if (g->lockstep && (g->sync_status & EMGPU_SYNC_WAITING))
		return GM_STOP_WAIT_SYNC;
	if (g->launch_status != EMGPU_LAUNCH_RUNNING)
		return GM_STOP_IDLE;
	if (g->ep_active)
		epoch_rescan(g);
	for (;;) {
		if (!g->ep_active && epoch_begin(g, &why))
			return why;
		r = epoch_run(g, budget, start_acc);
		if (r == EP_BUDGET)
			return GM_STOP_BUDGET;
		if (r == EP_FAILED)
			return GM_STOP_LAUNCH_DONE;
		why = epoch_end(g);
		if (why != GM_STOP_IDLE)
			return why;
	}
}

/*
 * In lockstep the interrupts raised while warps run are held until gm_run()
 * stops for something other than its budget (gm_raise()), so that the
 * driver hears of a fault or notification only at the hand-off, whatever
 * it did between two budget slices.
 */
enum gm_stop gm_run(struct gm_gpu *g, uint64_t budget)
{
	enum gm_stop why;
	uint32_t held;

	/* the rest of a copy-engine push first, as its doorbell ran it */
	if (gm_ce_continue(g))
		return GM_STOP_BUDGET;
	g->in_run = 1;
	why = run_warps(g, budget);
	g->in_run = 0;
	if (why != GM_STOP_BUDGET && g->intr_held) {
		held = g->intr_held;
		g->intr_held = 0;
		gm_raise(g, held);
	}
	if (g->lockstep && why != GM_STOP_BUDGET && why != GM_STOP_WAIT_SYNC)
		g->pers.ops->stop_publish(g, why);
	return why;
}

unsigned int gm_poll(struct gm_gpu *g)
{
	return g->pers.ops->poll(g);
}

void gm_sync(struct gm_gpu *g)
{
	gm_cpu_notify_done(g);
	g->sync_status &= ~EMGPU_SYNC_WAITING;
	g->pers.ops->sync(g);
}

void gm_sm_hand_back(struct gm_gpu *g)
{
	gm_sync(g);
}

void gm_replay(struct gm_gpu *g, uint32_t mode)
{
	gm_fault_replay(g, mode);
}
