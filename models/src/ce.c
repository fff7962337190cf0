/* SPDX-License-Identifier: MIT */
/*
 * Copy engine: descriptors (struct emgpu_ce_desc) from a ring in sysmem,
 * processed from GET to PUT at the doorbell.
 *
 * Functionally a descriptor completes at the doorbell: its bytes move and
 * its semaphore is written. Its modelled time is: the descriptors of one
 * doorbell (a push) are issued together when the ringing driver thread is
 * done with its preceding work; each then takes the least busy copy
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

static int desc_move(struct gm_gpu *g, const struct ce_op *d,
		     unsigned int sa, unsigned int da)
{
	uint8_t buf[CE_BOUNCE];
	uint64_t done = 0;
	uint32_t i;
	int r;

	if (d->op == EMGPU_CE_OP_MEMSET) {
		emgpu_le32 pattern = emgpu_cpu_to_le32((uint32_t)d->src);

		for (i = 0; i < CE_BOUNCE; i += 4)
			memcpy(buf + i, &pattern, 4);
	}
	while (done < d->length) {
		uint64_t n = d->length - done;

		if (n > CE_BOUNCE)
			n = CE_BOUNCE;
		if (d->op == EMGPU_CE_OP_COPY) {
			r = gm_mem_read(g, sa, d->src + done, buf, n);
			if (r)
				return r;
		}
		r = gm_mem_write(g, da, d->dst + done, buf, n);
		if (r)
			return r;
		done += n;
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

static int desc_exec(struct gm_gpu *g, const struct ce_op *d,
		     int *irq)
{
	unsigned int sa = (d->flags >> EMGPU_CE_SRC_APERTURE_SHIFT) & EMGPU_CE_APERTURE_MASK;
	unsigned int da = (d->flags >> EMGPU_CE_DST_APERTURE_SHIFT) & EMGPU_CE_APERTURE_MASK;
	uint32_t factor = 1;
	emgpu_le32 sem;
	int r = desc_check(g, d), err = 0;

	if (r) {
		gm_error(g, -r, g->ce.get);
		err = 1;
	} else if (d->op != EMGPU_CE_OP_NOP && gm_ce_inject(g, d->dst, d->length, &factor)) {
		err = 1;
	} else if (d->op != EMGPU_CE_OP_NOP) {
		r = desc_move(g, d, sa, da);
		if (r) {
			gm_error(g, -r, g->ce.get);
			err = 1;
		}
		gm_cpu_copy(g, d->op, sa, da);
		g->ce_done = desc_time(g, d, sa, da, factor);
		if (da == EMGPU_APERTURE_VIDMEM)
			mark_ready(g, d->dst, d->length, g->ce_done);
		g->st.copies++;
	}
	if (err)
		g->ce_status |= EMGPU_CE_STATUS_ERROR;
	/*
	 * Sysmem addresses are the guest kernel's page-allocator choices, which
	 * differ from boot to boot; the trace hash keeps only vidmem ones.
	 */
	gm_event(g, GM_EV_COPY, d->op | (uint64_t)d->flags << 8 | (uint64_t)err << 40,
		 (da == EMGPU_APERTURE_SYSMEM ? 0 : d->dst) ^
		 ((sa == EMGPU_APERTURE_SYSMEM && d->op == EMGPU_CE_OP_COPY ? 0 : d->src) << 1) ^
		 d->length, g->ce_done / GM_PS_PER_NS);
	if (d->flags & EMGPU_CE_SEMAPHORE) {
		sem = emgpu_cpu_to_le32(d->payload);
		r = gm_dma_write(g, g->ce_sem, &sem, sizeof(sem));
		if (r) {
			gm_error(g, -r, EMGPU_REG_CE_SEM_LO);
			g->ce_status |= EMGPU_CE_STATUS_ERROR;
			err = 1;
		}
	}
	if (d->flags & EMGPU_CE_INTERRUPT)
		*irq = 1;
	return err;
}

void gm_ce_doorbell(struct gm_gpu *g)
{
	struct emgpu_ce_desc raw;
	struct ce_op d;
	uint32_t th;
	int irq = 0, r;

	if (g->hung)
		return;
	if (!gm_ring_valid(&g->ce, sizeof(raw))) {
		gm_error(g, EMGPU_ERR_BAD_RING, EMGPU_REG_CE_DOORBELL);
		return;
	}
	g->ce_status &= ~EMGPU_CE_STATUS_ERROR;
	th = gm_drv_thread_ok(g->drv_thread);
	g->ce_issue = gm_max(g->now, g->drv_busy[th]);
	g->ce_batch_end = 0;
	while (g->ce.get != g->ce.put) {
		r = gm_dma_read(g, g->ce.base + sizeof(raw) * (uint64_t)g->ce.get,
				&raw, sizeof(raw));
		if (r) {
			gm_error(g, -r, g->ce.get);
			g->ce_status |= EMGPU_CE_STATUS_ERROR;
			break;
		}
		desc_decode(&raw, &d);
		desc_exec(g, &d, &irq);
		g->ce.get = (g->ce.get + 1) & (g->ce.size - 1);
	}
	if (gm_drv_thread_critical(th))	/* the push is waited for */
		g->drv_busy[th] = gm_max(g->drv_busy[th], g->ce_batch_end);
	if (irq)
		gm_raise(g, EMGPU_INTR_COPY);
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
