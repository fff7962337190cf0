/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: copy-engine class c7b5 (include/ga10x/ce_c7b5.h) as
 * nvidia-uvm's Ampere HAL drives it; in GH100 class c8b5
 * (include/gh100/ce_c8b5.h: 57-bit VAs, COPY_TYPE, the fast scrubber).
 *
 * The methods stage a launch's parameters per channel; LAUNCH_DMA runs
 * it: the transfer (pitch layout, one line or LINE_COUNT lines, plain
 * bytes or remapped components: constants for memset), then the
 * semaphore release (one word, two words, or four with the timestamp;
 * with a reduction), then the non-stall interrupt. An end is a GPU VA
 * through the channel's page directory (SRC/DST_TYPE VIRTUAL) or a
 * physical address in the aperture SET_SRC/DST_PHYS_MODE names.
 *
 * The bytes move at once, up to the scheduler call's work budget
 * (the model's work_max, fifo.h): a transfer past it stops between two
 * pieces and goes on at the next call (c->xfer), the channel held at its
 * LAUNCH_DMA, so one register write moves a bounded number of bytes
 * however large LINE_COUNT x LINE_LENGTH_IN is or whatever the pitches;
 * a transfer above GA10X_CE_TRANSFER_MAX bytes is refused (RC). The
 * modelled time is the emgpu copy engine's
 * (../ce.c, gm_ce_charge(): the least busy engine and the link direction
 * or VRAM as queues), issued when the channel's previous work is done (a
 * PIPELINED launch: while its previous transfer still runs), so a later
 * semaphore's timestamp is the copy's completion. VRAM a copy
 * writes is marked ready only then, as the emgpu CE does for warps.
 *
 * The copy injections are the emgpu CE's (gm_ce_inject()), checked once
 * per transfer: ce-error fails it with EMGPU_ERR_CE before a byte moves,
 * which puts the channel in RC (fifo.c, info32 the engine's
 * ROBUST_CHANNEL_CEn_ERROR); ce-stall multiplies its modelled time.
 */
#include "../internal.h"
#include "ga10x.h"
#include "ga10x/ce_c7b5.h"
#include "ga10x/host_c56f.h"
#include "gh100/ce_c8b5.h"

#define CE_BOUNCE	(32u * 1024)	/* two of them on the stack */
#define CE_CHARGE_MAX	0x80000000u	/* bytes per gm_ce_charge() */
#define REMAP_MAX_ELEM	16		/* 4 components of 4 bytes */
/* destination bytes one LAUNCH_DMA may move: beyond any memory the device
 * reaches, and its time charged in at most 512 gm_ce_charge() calls */
#define GA10X_CE_TRANSFER_MAX	(1ull << 40)
/* elements moved between two looks at the work budget */
#define CE_PIECE	(1u << 20)

/* One end of a transfer. */
struct ce_end {
	int phys;
	unsigned int aperture;	/* phys */
	uint64_t addr;		/* VA, or PA with phys */
};

static int end_init(const struct gm_gpu *g, const struct ga10x_ce_state *s,
		    uint32_t launch, int dst, struct ce_end *e)
{
	uint32_t mode = dst ? s->dst_phys : s->src_phys;
	uint32_t upper = ga10x_state(g)->arch->ce_upper_mask;

	e->phys = !!(launch & (dst ? C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL :
				      C7B5_LAUNCH_DMA_SRC_TYPE_PHYSICAL));
	e->addr = dst ? (uint64_t)(s->offset_out_upper & upper) << 32 |
			s->offset_out_lower :
			(uint64_t)(s->offset_in_upper & upper) << 32 |
			s->offset_in_lower;
	e->aperture = EMGPU_APERTURE_VIDMEM;
	if (!e->phys)
		return 0;
	switch (mode & C7B5_PHYS_MODE_TARGET_MASK) {
	case C7B5_PHYS_MODE_TARGET_LOCAL_FB:
		return 0;
	case C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM:
	case C7B5_PHYS_MODE_TARGET_NONCOHERENT_SYSMEM:
		e->aperture = EMGPU_APERTURE_SYSMEM;
		return 0;
	default:	/* PEERMEM: no peer here */
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
}

/* The aperture and physical address of an end's byte at off. */
static int end_where(struct gm_gpu *g, const struct ga10x_chan *c,
		     const struct ce_end *e, uint64_t off, int write,
		     unsigned int *ap, uint64_t *pa, uint64_t *contig)
{
	if (e->phys) {
		*ap = e->aperture;
		*pa = e->addr + off;
		*contig = ~0ull;
		return 0;
	}
	return ga10x_chan_resolve(g, c, e->addr + off, write ? EMGPU_ACCESS_WRITE :
				  EMGPU_ACCESS_READ, ap, pa, contig);
}

/* Reads or writes [off, off + len) of an end; VRAM written is marked
 * ready at `done`. */
static int end_io(struct gm_gpu *g, const struct ga10x_chan *c,
		  const struct ce_end *e, uint64_t off, uint8_t *buf,
		  uint64_t len, int write, gm_time_t done)
{
	while (len) {
		unsigned int ap;
		uint64_t pa, n;
		int r = end_where(g, c, e, off, write, &ap, &pa, &n);

		if (r)
			return r;
		if (n > len)
			n = len;
		r = ga10x_mem_access(g, ap, pa, buf, n, write);
		if (r)
			return r;
		if (write && ap == EMGPU_APERTURE_VIDMEM)
			gm_ce_mark_ready(g, pa, n, done);
		off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/* The remap of SET_REMAP_COMPONENTS, decoded. */
struct remap {
	unsigned int comp, nsrc, ndst;	/* bytes; counts */
	unsigned int sel[4];		/* C7B5_REMAP_* per dst component */
	int need_src, keep_dst;		/* a SRC_* or NO_WRITE component */
	uint32_t const_a, const_b;
};

static int remap_init(const struct ga10x_ce_state *s, struct remap *m)
{
	uint32_t rc = s->remap_components;
	unsigned int i;

	m->comp = (rc >> C7B5_REMAP_COMPONENT_SIZE_SHIFT &
		   C7B5_REMAP_COMPONENT_SIZE_MASK) + 1;
	m->nsrc = (rc >> C7B5_REMAP_NUM_SRC_COMPONENTS_SHIFT &
		   C7B5_REMAP_NUM_COMPONENTS_MASK) + 1;
	m->ndst = (rc >> C7B5_REMAP_NUM_DST_COMPONENTS_SHIFT &
		   C7B5_REMAP_NUM_COMPONENTS_MASK) + 1;
	m->need_src = m->keep_dst = 0;
	m->const_a = s->remap_const_a;
	m->const_b = s->remap_const_b;
	for (i = 0; i < m->ndst; i++) {
		m->sel[i] = rc >> (4 * i) & C7B5_REMAP_DST_MASK;
		if (m->sel[i] <= C7B5_REMAP_SRC_W) {
			if (m->sel[i] >= m->nsrc)
				return -EMGPU_ERR_BAD_DESCRIPTOR;
			m->need_src = 1;
		} else if (m->sel[i] == C7B5_REMAP_NO_WRITE) {
			m->keep_dst = 1;
		} else if (m->sel[i] > C7B5_REMAP_NO_WRITE) {
			return -EMGPU_ERR_BAD_DESCRIPTOR;
		}
	}
	return 0;
}

/* Builds n dst elements in out from n src elements (or none). */
static void remap_build(const struct remap *m, const uint8_t *src,
			uint8_t *out, uint64_t n)
{
	unsigned int de = m->comp * m->ndst, se = m->comp * m->nsrc, j;
	uint8_t k[4];
	uint64_t i;

	for (i = 0; i < n; i++) {
		for (j = 0; j < m->ndst; j++) {
			uint8_t *o = out + i * de + j * m->comp;

			switch (m->sel[j]) {
			case C7B5_REMAP_CONST_A:
			case C7B5_REMAP_CONST_B:
				ga10x_put_le(k, m->sel[j] == C7B5_REMAP_CONST_A ?
					     m->const_a : m->const_b, 4);
				memcpy(o, k, m->comp);
				break;
			case C7B5_REMAP_NO_WRITE:
				break;	/* out holds dst's own bytes */
			default:
				memcpy(o, src + i * se + m->sel[j] * m->comp,
				       m->comp);
			}
		}
	}
}

/* One line: plain bytes (m NULL) or len remapped elements. */
static int line_move(struct gm_gpu *g, const struct ga10x_chan *c,
		     const struct ce_end *src, uint64_t soff,
		     const struct ce_end *dst, uint64_t doff, uint64_t len,
		     const struct remap *m, gm_time_t done)
{
	static const unsigned int max_elem = REMAP_MAX_ELEM;
	uint8_t in[CE_BOUNCE], out[CE_BOUNCE];
	unsigned int de = m ? m->comp * m->ndst : 1, se = m ? m->comp * m->nsrc : 1;
	uint64_t per = CE_BOUNCE / (m ? max_elem : 1), done_elems = 0;
	int built = 0, r;

	while (done_elems < len) {
		uint64_t n = len - done_elems;

		if (n > per)
			n = per;
		if (!m) {
			r = end_io(g, c, src, soff + done_elems, in, n, 0, done);
			if (!r)
				r = end_io(g, c, dst, doff + done_elems, in, n, 1, done);
			if (r)
				return r;
			done_elems += n;
			continue;
		}
		if (m->need_src) {
			r = end_io(g, c, src, soff + done_elems * se, in, n * se, 0, done);
			if (r)
				return r;
		}
		if (m->keep_dst) {
			r = end_io(g, c, dst, doff + done_elems * de, out, n * de, 0, done);
			if (r)
				return r;
		}
		/* constants alone: the first chunk's pattern serves them all */
		if (m->need_src || m->keep_dst || !built) {
			remap_build(m, in, out, m->need_src || m->keep_dst ? n : per);
			built = 1;
		}
		r = end_io(g, c, dst, doff + done_elems * de, out, n * de, 1, done);
		if (r)
			return r;
		done_elems += n;
	}
	return 0;
}

/*
 * Moves the transfer's lines from c->xfer's cursor on, piece by piece,
 * while the scheduler call has work left; GA10X_MTHD_YIELD when it ran
 * out first, 0 when the transfer is complete, or a negative error.
 */
static int ce_move(struct gm_gpu *g, struct ga10x_chan *c,
		   const struct ce_end *src, const struct ce_end *dst,
		   const struct remap *mp, uint32_t lines, uint64_t len)
{
	const struct ga10x_ce_state *s = &c->ce;
	struct ga10x_fifo *f = &ga10x_state(g)->fifo;
	struct ga10x_ce_xfer *x = &c->xfer;
	unsigned int de = mp ? mp->comp * mp->ndst : 1, se = mp ? mp->comp * mp->nsrc : 1;
	int r;

	while (x->line < lines) {
		uint64_t n = len - x->elem;

		if (!f->work_left)
			return GA10X_MTHD_YIELD;
		if (n > CE_PIECE)
			n = CE_PIECE;
		if (n > f->work_left / de)
			n = f->work_left / de ? f->work_left / de : 1;
		r = line_move(g, c, src, (uint64_t)x->line * s->pitch_in + x->elem * se,
			      dst, (uint64_t)x->line * s->pitch_out + x->elem * de,
			      n, mp, x->done);
		if (r)
			return r;
		ga10x_fifo_work(f, n * de + (x->elem ? 0 : GA10X_WORK_DWORD));
		x->elem += n;
		if (x->elem == len) {
			x->line++;
			x->elem = 0;
		}
	}
	return 0;
}

/*
 * c8b5's fast scrubber (MEMORY_SCRUB_ENABLE, remap off): LINE_LENGTH_IN
 * bytes of physical vidmem a line, filled with the 8-byte pattern
 * REMAP_CONST_A, REMAP_CONST_B; run as that remap of 8-byte elements.
 */
static int scrub_init(const struct ga10x_ce_state *s, uint32_t d,
		      const struct ce_end *dst, struct remap *m)
{
	if ((d & C7B5_LAUNCH_DMA_REMAP_ENABLE) || !dst->phys ||
	    dst->aperture != EMGPU_APERTURE_VIDMEM ||
	    s->line_length_in % C8B5_SCRUB_PATTERN_SIZE)
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	*m = (struct remap){
		.comp = 4, .nsrc = 1, .ndst = 2,
		.sel = { C7B5_REMAP_CONST_A, C7B5_REMAP_CONST_B },
		.const_a = s->remap_const_a, .const_b = s->remap_const_b,
	};
	return 0;
}

static int ce_transfer(struct gm_gpu *g, struct ga10x_chan *c, uint32_t d)
{
	const struct ga10x_ce_state *s = &c->ce;
	struct ce_end src, dst;
	struct remap m;
	const struct remap *mp = NULL;
	uint32_t lines = d & C7B5_LAUNCH_DMA_MULTI_LINE_ENABLE ? s->line_count : 1;
	uint64_t elems = s->line_length_in;	/* a line's, bytes without remap */
	uint64_t dst_line, total, left;
	unsigned int sa = EMGPU_APERTURE_VIDMEM, da;
	uint64_t pa, contig;
	uint32_t op, factor;
	gm_time_t done = ga10x_chan_now(g, c), issue = done;
	gm_time_t setup = GM_NS(g->prof.ce_setup_ns);
	int need_src = 1, r;

	if (!(d & C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH) ||
	    !(d & C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH))
		return -EMGPU_ERR_BAD_DESCRIPTOR;	/* block-linear: not modelled */
	r = end_init(g, s, d, 0, &src);
	if (!r)
		r = end_init(g, s, d, 1, &dst);
	if (!r && (d & C8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE)) {	/* c8b5 only */
		r = scrub_init(s, d, &dst, &m);
		mp = &m;
		need_src = 0;
		elems = s->line_length_in / C8B5_SCRUB_PATTERN_SIZE;
	} else if (!r && (d & C7B5_LAUNCH_DMA_REMAP_ENABLE)) {
		r = remap_init(s, &m);
		mp = &m;
		need_src = m.need_src;
	}
	if (r)
		return r;
	if (c->xfer.active) {	/* under way: on from its cursor */
		r = ce_move(g, c, &src, &dst, mp, lines, elems);
		if (r != GA10X_MTHD_YIELD)
			c->xfer.active = 0;
		return r;
	}
	dst_line = mp ? elems * m.comp * m.ndst : elems;
	if (!dst_line || !lines)
		return 0;
	if (lines > GA10X_CE_TRANSFER_MAX / dst_line)
		return -EMGPU_ERR_BAD_DESCRIPTOR;	/* and no wrap */
	total = dst_line * lines;
	/* where the first bytes are: the queues the copy takes */
	r = end_where(g, c, &dst, 0, 1, &da, &pa, &contig);
	if (!r && need_src)
		r = end_where(g, c, &src, 0, 0, &sa, &pa, &contig);
	if (r)
		return r;
	/* a sparse end costs as VRAM would */
	if (da == GA10X_APERTURE_SPARSE)
		da = EMGPU_APERTURE_VIDMEM;
	if (sa == GA10X_APERTURE_SPARSE)
		sa = EMGPU_APERTURE_VIDMEM;
	/* an injected error fails the launch before a byte moves: RC */
	if (gm_ce_inject(g, dst.addr, total, &factor))
		return -EMGPU_ERR_CE;
	op = need_src ? EMGPU_CE_OP_COPY : EMGPU_CE_OP_MEMSET;
	if (op == EMGPU_CE_OP_MEMSET && da == EMGPU_APERTURE_SYSMEM) {
		op = EMGPU_CE_OP_COPY;	/* built on the GPU, sent over the link */
		sa = EMGPU_APERTURE_VIDMEM;
	}
	/*
	 * A PIPELINED launch (nvidia-uvm's UVM_PUSH_FLAG_CE_NEXT_PIPELINED:
	 * its PTE writes and a block's copies after the first) is decoded
	 * while the engine still moves the channel's previous transfer, as
	 * emgpu's CE decodes the descriptors of a push (../ce.c): its setup
	 * overlaps that transfer, so it is issued up to ce_setup_ns before
	 * the channel's clock, never before that transfer's issue. A
	 * NON_PIPELINED one waits for the channel's work, then decodes.
	 * Either way the bytes move after the previous transfer's.
	 */
	if ((d & C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_MASK) ==
	    C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_PIPELINED)
		issue = gm_max(c->ce_issue, done > setup ? done - setup : 0);
	c->ce_issue = issue;
	gm_cpu_copy(g, op, sa, da);
	for (left = total; left; ) {
		uint32_t n = left > CE_CHARGE_MAX ? CE_CHARGE_MAX : (uint32_t)left;

		done = gm_ce_charge(g, op, sa, da, n, issue, factor);
		c->time = done;
		issue = ga10x_chan_now(g, c);
		left -= n;
	}
	g->st.copies++;
	/* sysmem addresses are the guest's allocator's: the hash keeps vidmem ones */
	gm_event(g, GM_EV_COPY, op | (uint64_t)sa << 8 | (uint64_t)da << 10 |
		 1ull << 12, (da == EMGPU_APERTURE_SYSMEM ? 0 : dst.addr) ^ total,
		 done / GM_PS_PER_NS);
	c->xfer = (struct ga10x_ce_xfer){ .active = 1, .done = done };
	r = ce_move(g, c, &src, &dst, mp, lines, elems);
	if (r != GA10X_MTHD_YIELD)
		c->xfer.active = 0;
	return r;
}

static int ce_semaphore(struct gm_gpu *g, struct ga10x_chan *c, uint32_t d,
			uint32_t type)
{
	const struct ga10x_ce_state *s = &c->ce;
	int wide = !!(d & C7B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE_TWO_WORD);
	unsigned int size = wide ? 8 : 4;
	uint64_t va = (uint64_t)(s->sem_a &
				 ga10x_state(g)->arch->ce_upper_mask) << 32 |
		      s->sem_b;
	uint64_t v = (uint64_t)s->sem_payload_upper << 32 | s->sem_payload;
	uint8_t buf[C7B5_SEM_FOUR_WORD_SIZE];
	int r;

	if (va & (type == C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD ?
		  C7B5_SEM_FOUR_WORD_SIZE - 1 : size - 1))
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	if (d & C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_ENABLE) {
		r = ga10x_chan_read(g, c, va, buf, size);
		if (!r)
			r = ga10x_sem_reduce(d >> C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SHIFT &
					     C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_MASK,
					     !(d & C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SIGN_UNSIGNED),
					     wide, ga10x_get_le(buf, size), v, &v);
		if (r)
			return r;
	}
	ga10x_put_le(buf, wide ? v : (uint32_t)v, 8);
	if (type != C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD)
		return ga10x_chan_write(g, c, va, buf, size);
	ga10x_put_le(buf + C7B5_SEM_TIMESTAMP_OFFSET,
		     ga10x_chan_now(g, c) / GM_PS_PER_NS, 8);
	return ga10x_chan_write(g, c, va, buf, sizeof(buf));
}

/*
 * Whether LAUNCH_DMA d asks what the class does not model: VPR (c7b5's
 * VPRMODE 23:22; c8b5's 22:22), and in c8b5 a SECURE or RESERVED
 * COPY_TYPE (Confidential Computing's encryption) or a scrub without a
 * transfer. NONPROT2NONPROT is a plain copy: no memory is protected here.
 * In c7b5, bit 23 (c8b5's MEMORY_SCRUB_ENABLE) is VPRMODE's.
 */
static int launch_unsupported(const struct gm_gpu *g, uint32_t d, uint32_t xfer)
{
	uint32_t copy_type = d >> C8B5_LAUNCH_DMA_COPY_TYPE_SHIFT &
			     C8B5_LAUNCH_DMA_COPY_TYPE_MASK;

	if (!ga10x_state(g)->arch->ce_scrub)
		return !!(d >> C7B5_LAUNCH_DMA_VPRMODE_SHIFT &
			  C7B5_LAUNCH_DMA_VPRMODE_MASK);
	return (d & C8B5_LAUNCH_DMA_VPRMODE) ||
	       (copy_type != C8B5_LAUNCH_DMA_COPY_TYPE_DEFAULT &&
		copy_type != C8B5_LAUNCH_DMA_COPY_TYPE_NONPROT2NONPROT) ||
	       ((d & C8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE) &&
		xfer == C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NONE);
}

static int ce_launch(struct gm_gpu *g, struct ga10x_chan *c, uint32_t d)
{
	uint32_t xfer = d & C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_MASK;
	uint32_t sem = d >> C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT &
		       C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_MASK;
	uint32_t intr = d >> C7B5_LAUNCH_DMA_INTERRUPT_TYPE_SHIFT &
			C7B5_LAUNCH_DMA_INTERRUPT_TYPE_MASK;
	int r;

	if (xfer > C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED ||
	    sem == C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_CONDITIONAL_INTR ||
	    intr > C7B5_LAUNCH_DMA_INTERRUPT_TYPE_NON_BLOCKING ||
	    launch_unsupported(g, d, xfer))
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	if (xfer != C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NONE) {
		r = ce_transfer(g, c, d);
		if (r)
			return r;	/* an error, or GA10X_MTHD_YIELD */
	}
	if (sem != C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE) {
		r = ce_semaphore(g, c, d, sem);
		if (r)
			return r;
	}
	if (intr != C7B5_LAUNCH_DMA_INTERRUPT_TYPE_NONE)
		ga10x_intr_raise(g, GA10X_INTR_NONSTALL);
	return GA10X_MTHD_DONE;
}

int ga10x_ce_method(struct gm_gpu *g, struct ga10x_chan *c, uint32_t method,
		    uint32_t data)
{
	struct ga10x_ce_state *s = &c->ce;
	uint32_t *reg;

	switch (method) {
	case C7B5_NOP:
	case C7B5_PM_TRIGGER:
	case C7B5_PM_TRIGGER_END:
		return GA10X_MTHD_DONE;
	case C7B5_LAUNCH_DMA:
		return ce_launch(g, c, data);
	case C7B5_SET_SEMAPHORE_A:	reg = &s->sem_a; break;
	case C7B5_SET_SEMAPHORE_B:	reg = &s->sem_b; break;
	case C7B5_SET_SEMAPHORE_PAYLOAD: reg = &s->sem_payload; break;
	case C7B5_SET_SEMAPHORE_PAYLOAD_UPPER: reg = &s->sem_payload_upper; break;
	case C7B5_SET_SRC_PHYS_MODE:	reg = &s->src_phys; break;
	case C7B5_SET_DST_PHYS_MODE:	reg = &s->dst_phys; break;
	case C7B5_OFFSET_IN_UPPER:	reg = &s->offset_in_upper; break;
	case C7B5_OFFSET_IN_LOWER:	reg = &s->offset_in_lower; break;
	case C7B5_OFFSET_OUT_UPPER:	reg = &s->offset_out_upper; break;
	case C7B5_OFFSET_OUT_LOWER:	reg = &s->offset_out_lower; break;
	case C7B5_PITCH_IN:		reg = &s->pitch_in; break;
	case C7B5_PITCH_OUT:		reg = &s->pitch_out; break;
	case C7B5_LINE_LENGTH_IN:	reg = &s->line_length_in; break;
	case C7B5_LINE_COUNT:		reg = &s->line_count; break;
	case C7B5_SET_REMAP_CONST_A:	reg = &s->remap_const_a; break;
	case C7B5_SET_REMAP_CONST_B:	reg = &s->remap_const_b; break;
	case C7B5_SET_REMAP_COMPONENTS:	reg = &s->remap_components; break;
	case C8B5_SET_MEMORY_SCRUB_PARAMETERS:
		if (!ga10x_state(g)->arch->ce_scrub)
			return -EMGPU_ERR_BAD_DESCRIPTOR;
		reg = &s->scrub_params;	/* DISCARDABLE: the pattern is written */
		break;
	default:
		/* block-linear surface parameters: kept by nobody, since a
		 * block-linear launch is refused */
		if (method >= C7B5_SET_DST_BLOCK_SIZE && method <= C7B5_DST_ORIGIN_Y &&
		    !(method & 3))
			return GA10X_MTHD_DONE;
		/* render enables, monitored fences, global counters, pageout
		 * (c7b5), Confidential Computing's methods (c8b5): no HAL
		 * function emits them without CC */
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
	*reg = data;
	return GA10X_MTHD_DONE;
}
