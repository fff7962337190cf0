/* SPDX-License-Identifier: MIT */
/*
 * Copy engine: descriptors (struct emgpu_ce_desc) from a ring in sysmem,
 * processed from GET to PUT at the doorbell.
 *
 * Functionally a descriptor completes at the doorbell: its bytes move and
 * its semaphore is written. A push larger than one slice of work
 * (GM_CE_WORK) is the exception: the doorbell's write runs its first
 * slice, the push stays under way at GET (between two pieces of a
 * descriptor if need be), and each gm_run() runs one more slice before any
 * warp, with the semaphore address of its doorbell. Its descriptors
 * complete in order with the same bytes and events, each semaphore and the
 * push's interrupt when they complete, and (the guest writing nothing in
 * between) the same modelled times as in one write.
 *
 * Modelled time: the descriptors of one doorbell (a push) are issued
 * together when the ringing driver thread is done with its preceding
 * work; each then takes the least busy copy
 * engine and the link direction (or VRAM) it needs, as queues. The
 * engine decodes a descriptor (ce_setup_ns) while it still moves the
 * previous one's bytes, as a CE pipelines the methods of a push, so the
 * setup delays a copy only when the engine was idle: a copy starts at
 * max(issue + setup, engine free, link free), costs bytes over the
 * bandwidth, and keeps both busy until it ends, so mapped warp accesses
 * and other copies queue behind it. Copies rung by the FAULT driver thread
 * are waited for as a push: its last completion delays the next replay
 * (and the thread's next push). A driver that copies page by page thus
 * pays the link's time, not 2 us of setup per 4 KiB page. A failed descriptor (bad
 * fields, DMA error, poisoned VRAM, injected error) moves no further bytes,
 * sets CE_STATUS_ERROR, and still releases its semaphore, so the driver
 * never waits forever; it must check CE_STATUS. A copy issued while no
 * launch runs moves the idle device's clock to its completion (see
 * gm_clock()): PTIMER shows a prefetch's cost and the next launch starts
 * after it.
 */
#include "internal.h"

#define CE_BOUNCE	(64u * 1024)

/* A descriptor (struct emgpu_ce_desc) decoded to CPU byte order. */
struct ce_op {
	uint32_t op, flags;
	uint64_t src, dst;
	uint32_t length, payload;
};

static void desc_decode(const struct emgpu_ce_desc *raw, struct ce_op *d)
{
	d->op = emgpu_le32_to_cpu(raw->op);
	d->flags = emgpu_le32_to_cpu(raw->flags);
	d->src = emgpu_le64_to_cpu(raw->src);
	d->dst = emgpu_le64_to_cpu(raw->dst);
	d->length = emgpu_le32_to_cpu(raw->length);
	d->payload = emgpu_le32_to_cpu(raw->payload);
}

static int desc_check(const struct gm_gpu *g, const struct ce_op *d)
{
	unsigned int sa = (d->flags >> EMGPU_CE_SRC_APERTURE_SHIFT) & EMGPU_CE_APERTURE_MASK;
	unsigned int da = (d->flags >> EMGPU_CE_DST_APERTURE_SHIFT) & EMGPU_CE_APERTURE_MASK;
	uint32_t known = (EMGPU_CE_APERTURE_MASK << EMGPU_CE_SRC_APERTURE_SHIFT) |
			 (EMGPU_CE_APERTURE_MASK << EMGPU_CE_DST_APERTURE_SHIFT) |
			 EMGPU_CE_SEMAPHORE | EMGPU_CE_INTERRUPT;

	if (d->flags & ~known)
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	if (d->op == EMGPU_CE_OP_NOP)
		return 0;
	if (d->op > EMGPU_CE_OP_MEMSET || !d->length || (d->length & 3))
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	if ((sa != EMGPU_APERTURE_VIDMEM && sa != EMGPU_APERTURE_SYSMEM) ||
	    (da != EMGPU_APERTURE_VIDMEM && da != EMGPU_APERTURE_SYSMEM))
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	if (d->op == EMGPU_CE_OP_MEMSET && da != EMGPU_APERTURE_VIDMEM)
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	if (da == EMGPU_APERTURE_VIDMEM &&
	    (d->dst + d->length < d->dst || d->dst + d->length > g->prof.vram_bytes))
		return -EMGPU_ERR_VRAM_RANGE;
	if (d->op == EMGPU_CE_OP_COPY && sa == EMGPU_APERTURE_VIDMEM &&
	    (d->src + d->length < d->src || d->src + d->length > g->prof.vram_bytes))
		return -EMGPU_ERR_VRAM_RANGE;
	return 0;
}

/* Takes n from a slice's work (to 0 at most). */
static void work_take(uint64_t *left, uint64_t n)
{
	*left -= n < *left ? n : *left;
}

/*
 * Moves the descriptor's bytes from `*moved` on, a piece of CE_BOUNCE at a
 * time, while the slice has work left. Returns 0 (all moved), 1 (out of
 * work: *moved is where the next slice goes on) or a negative enum
 * emgpu_error (a piece failed).
 */
static int desc_move(struct gm_gpu *g, const struct ce_op *d,
		     unsigned int sa, unsigned int da, uint64_t *moved,
		     uint64_t *left)
{
	uint8_t buf[CE_BOUNCE];
	uint32_t i;
	int r;

	if (d->op == EMGPU_CE_OP_MEMSET) {
		emgpu_le32 pattern = emgpu_cpu_to_le32((uint32_t)d->src);

		for (i = 0; i < CE_BOUNCE; i += 4)
			memcpy(buf + i, &pattern, 4);
	}
	while (*moved < d->length) {
		uint64_t n = d->length - *moved;

		if (!*left)
			return 1;
		if (n > CE_BOUNCE)
			n = CE_BOUNCE;
		if (d->op == EMGPU_CE_OP_COPY) {
			r = gm_mem_read(g, sa, d->src + *moved, buf, n);
			if (r)
				return r;
		}
		r = gm_mem_write(g, da, d->dst + *moved, buf, n);
		if (r)
			return r;
		*moved += n;
		work_take(left, n);
	}
	return 0;
}

/* Charges the queues for one descriptor; returns its completion time. */
static gm_time_t desc_time(struct gm_gpu *g, const struct ce_op *d,
			   unsigned int sa, unsigned int da, uint32_t factor)
{
	uint32_t i, best = 0;
	gm_time_t start, cost = 0, issue;
	struct gm_queue *q1 = NULL, *q2 = NULL;
	uint64_t len = d->length;

	if (d->op == EMGPU_CE_OP_MEMSET) {
		cost = gm_xfer_ps(len, g->prof.vram_bw_mbps);
		q1 = &g->vram_q;
		g->st.bytes_d2d += len;
	} else if (d->op == EMGPU_CE_OP_COPY) {
		if (sa == EMGPU_APERTURE_SYSMEM && da == EMGPU_APERTURE_VIDMEM) {
			cost = gm_xfer_ps(len, g->prof.link_h2d_mbps);
			q1 = &g->h2d_q;
			g->st.bytes_h2d += len;
		} else if (sa == EMGPU_APERTURE_VIDMEM && da == EMGPU_APERTURE_SYSMEM) {
			cost = gm_xfer_ps(len, g->prof.link_d2h_mbps);
			q1 = &g->d2h_q;
			g->st.bytes_d2h += len;
		} else if (sa == EMGPU_APERTURE_VIDMEM) {
			cost = gm_xfer_ps(2 * len, g->prof.vram_bw_mbps);
			q1 = &g->vram_q;
			g->st.bytes_d2d += len;
		} else {
			cost = gm_max(gm_xfer_ps(len, g->prof.link_h2d_mbps),
				      gm_xfer_ps(len, g->prof.link_d2h_mbps));
			q1 = &g->h2d_q;
			q2 = &g->d2h_q;
			g->st.bytes_h2h += len;
		}
	}
	cost *= factor;
	for (i = 1; i < g->prof.num_copy_engines; i++)
		if (g->ce_q[i].busy < g->ce_q[best].busy)
			best = i;
	issue = g->ce_issue;
	start = gm_max(issue + GM_NS(g->prof.ce_setup_ns), g->ce_q[best].busy);
	if (q1)
		start = gm_max(start, q1->busy);
	if (q2)
		start = gm_max(start, q2->busy);
	start += cost;
	if (q1)
		q1->busy = start;
	if (q2)
		q2->busy = start;
	g->ce_q[best].busy = start;
	g->ce_batch_end = gm_max(g->ce_batch_end, start);
	gm_idle_work(g, start);
	return start;
}

/* The chunks a copy writes hold its bytes only from its completion on. */
static void mark_ready(struct gm_gpu *g, uint64_t dst, uint64_t len,
		       gm_time_t done)
{
	uint64_t c, last = (dst + len - 1) >> GM_CHUNK_SHIFT;

	for (c = dst >> GM_CHUNK_SHIFT; c <= last && c < g->nchunks; c++)
		if (g->chunk_ready[c] < done)
			g->chunk_ready[c] = done;
}

/*
 * The copy injections at one transfer to [dst, dst + len), for every
 * personality's copy engine: 1 if an injected error fails it (no byte
 * moves), else 0 with *factor the time multiplier of an injected stall
 * (1 without one). The error is checked first, so one transfer draws
 * from a stall's stream only when it goes ahead.
 */
int gm_ce_inject(struct gm_gpu *g, uint64_t dst, uint64_t len, uint32_t *factor)
{
	if (gm_inject_check(g, GM_INJ_CE_ERROR, dst, len))
		return 1;
	*factor = gm_inject_check(g, GM_INJ_CE_STALL, dst, len);
	if (!*factor)
		*factor = 1;
	return 0;
}

static unsigned int desc_src_aperture(const struct ce_op *d)
{
	return (d->flags >> EMGPU_CE_SRC_APERTURE_SHIFT) & EMGPU_CE_APERTURE_MASK;
}

static unsigned int desc_dst_aperture(const struct ce_op *d)
{
	return (d->flags >> EMGPU_CE_DST_APERTURE_SHIFT) & EMGPU_CE_APERTURE_MASK;
}

/* The descriptor at GET begins: its checks, then its injections. */
static void desc_start(struct gm_gpu *g, struct gm_ce_push *p,
		       const struct ce_op *d)
{
	int r = desc_check(g, d);

	p->started = 1;
	p->moving = p->err = 0;
	p->factor = 1;
	p->moved = 0;
	if (r) {
		gm_error(g, -r, g->ce.get);
		p->err = 1;
	} else if (d->op != EMGPU_CE_OP_NOP &&
		   gm_ce_inject(g, d->dst, d->length, &p->factor)) {
		p->err = 1;
	} else if (d->op != EMGPU_CE_OP_NOP) {
		p->moving = 1;
	}
}

/* Its bytes are moved (or a piece failed): its time, event, semaphore. */
static void desc_finish(struct gm_gpu *g, struct gm_ce_push *p,
			const struct ce_op *d)
{
	unsigned int sa = desc_src_aperture(d), da = desc_dst_aperture(d);
	emgpu_le32 sem;
	int r;

	if (p->moving) {
		gm_cpu_copy(g, d->op, sa, da);
		g->ce_done = desc_time(g, d, sa, da, p->factor);
		if (da == EMGPU_APERTURE_VIDMEM)
			mark_ready(g, d->dst, d->length, g->ce_done);
		g->st.copies++;
	}
	if (p->err)
		g->ce_status |= EMGPU_CE_STATUS_ERROR;
	/*
	 * Sysmem addresses are the guest kernel's page-allocator choices, which
	 * differ from boot to boot; the trace hash keeps only vidmem ones.
	 */
	gm_event(g, GM_EV_COPY, d->op | (uint64_t)d->flags << 8 | (uint64_t)p->err << 40,
		 (da == EMGPU_APERTURE_SYSMEM ? 0 : d->dst) ^
		 ((sa == EMGPU_APERTURE_SYSMEM && d->op == EMGPU_CE_OP_COPY ? 0 : d->src) << 1) ^
		 d->length, g->ce_done / GM_PS_PER_NS);
	if (d->flags & EMGPU_CE_SEMAPHORE) {
		sem = emgpu_cpu_to_le32(d->payload);
		r = gm_dma_write(g, p->sem, &sem, sizeof(sem));
		if (r) {
			gm_error(g, -r, EMGPU_REG_CE_SEM_LO);
			g->ce_status |= EMGPU_CE_STATUS_ERROR;
		}
	}
	if (d->flags & EMGPU_CE_INTERRUPT)
		p->irq = 1;
	p->started = 0;
}

/* The push's last descriptor ran: its thread waits, its interrupt rises. */
static void push_end(struct gm_gpu *g, struct gm_ce_push *p)
{
	p->active = 0;
	if (gm_drv_thread_critical(p->thread))	/* the push is waited for */
		g->drv_busy[p->thread] = gm_max(g->drv_busy[p->thread],
						g->ce_batch_end);
	if (p->irq)
		gm_raise(g, EMGPU_INTR_COPY);
}

/*
 * One slice: descriptors from GET towards the push's end until the work
 * (gm_config's work_max, GM_CE_WORK by default) is spent, stopping
 * between two pieces of a descriptor if need be.
 * Returns whether the push is still under way.
 */
static int push_run(struct gm_gpu *g)
{
	struct gm_ce_push *p = &g->ce_push;
	uint64_t left = g->work_max;
	struct ce_op d;
	int r;

	while (g->ce.get != p->end) {
		if (!left)
			return 1;
		if (!p->started) {
			r = gm_dma_read(g, g->ce.base + sizeof(p->desc) * (uint64_t)g->ce.get,
					&p->desc, sizeof(p->desc));
			if (r) {
				gm_error(g, -r, g->ce.get);
				g->ce_status |= EMGPU_CE_STATUS_ERROR;
				break;
			}
			desc_decode(&p->desc, &d);
			desc_start(g, p, &d);
			work_take(&left, GM_CE_WORK_DESC);
		} else {
			desc_decode(&p->desc, &d);
		}
		if (p->moving) {
			r = desc_move(g, &d, desc_src_aperture(&d),
				      desc_dst_aperture(&d), &p->moved, &left);
			if (r > 0)
				return 1;
			if (r) {
				gm_error(g, -r, g->ce.get);
				p->err = 1;
			}
		}
		desc_finish(g, p, &d);
		g->ce.get = (g->ce.get + 1) & (g->ce.size - 1);
	}
	push_end(g, p);
	return 0;
}

/*
 * A doorbell starts a push to the current PUT, issued now (or when the
 * ringing thread is done with its preceding work). Rung while one is under
 * way, it moves that push's end to the current PUT: the descriptors it
 * adds run as part of it (its issue time, thread and semaphore address).
 */
void gm_ce_doorbell(struct gm_gpu *g)
{
	struct gm_ce_push *p = &g->ce_push;
	uint32_t th;

	if (g->hung)
		return;
	if (!gm_ring_valid(&g->ce, sizeof(p->desc))) {
		gm_error(g, EMGPU_ERR_BAD_RING, EMGPU_REG_CE_DOORBELL);
		return;
	}
	if (p->active) {
		p->end = g->ce.put;
		return;
	}
	g->ce_status &= ~EMGPU_CE_STATUS_ERROR;
	th = gm_drv_thread_ok(g->drv_thread);
	g->ce_issue = gm_max(g->now, g->drv_busy[th]);
	g->ce_batch_end = 0;
	*p = (struct gm_ce_push){
		.active = 1, .end = g->ce.put, .sem = g->ce_sem, .thread = th,
	};
	push_run(g);
}

int gm_ce_continue(struct gm_gpu *g)
{
	if (!g->ce_push.active || g->hung)
		return 0;
	return push_run(g);
}

void gm_ce_drop(struct gm_gpu *g)
{
	g->ce_push.active = 0;
}

int gm_ce_pending(const struct gm_gpu *g, uint32_t *get, uint32_t *end,
		  uint64_t *moved)
{
	const struct gm_ce_push *p = &g->ce_push;

	if (!p->active)
		return 0;
	*get = g->ce.get;
	*end = p->end;
	*moved = p->started ? p->moved : 0;
	return 1;
}

/*
 * The same queues and statistics for another personality's copy engine
 * (ga10x/ce.c): a transfer of `len` bytes (op EMGPU_CE_OP_COPY or
 * _MEMSET) issued at `issue`, taking `factor` times its time (a stall,
 * gm_ce_inject()); returns its completion.
 */
gm_time_t gm_ce_charge(struct gm_gpu *g, uint32_t op, unsigned int sa,
		       unsigned int da, uint32_t len, gm_time_t issue,
		       uint32_t factor)
{
	struct ce_op d = { .op = op, .length = len };
	gm_time_t saved = g->ce_issue, done;

	g->ce_issue = issue;
	done = desc_time(g, &d, sa, da, factor ? factor : 1);
	g->ce_issue = saved;
	g->ce_done = done;
	return done;
}

void gm_ce_mark_ready(struct gm_gpu *g, uint64_t dst, uint64_t len,
		      gm_time_t done)
{
	if (len)
		mark_ready(g, dst, len, done);
}
