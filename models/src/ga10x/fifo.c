/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: GPFIFO channels as nvidia-uvm drives them.
 *
 * The stand-in programs a channel through GA10X_REG_CHAN_* (the GPFIFO
 * ring, USERD, error notifier, page directory, engine) and enables it.
 * nvidia-uvm then writes methods into a pushbuffer, a GPFIFO entry into
 * the ring, GP_PUT into USERD (Nvc56fControl.GPPut, +0x8c), and the
 * channel's work-submission token into GA10X_REG_DOORBELL. The doorbell
 * reads GP_PUT and runs the scheduler: each channel fetches its GPFIFO
 * entries from GP_GET on, writes GP_GET back to USERD (+0x88) per entry,
 * and executes the segments' methods (host.c, ce.c). Work completes
 * functionally at once; its modelled time is the copy engines' (ce.c)
 * plus, per GPFIFO entry, one memory read where the ring lies (the
 * profile's link or VRAM latency): the host fetches each entry before
 * its segment, so a timestamp released by consecutive entries advances
 * as PTIMER does on a card, and the idle device clock moves with it.
 *
 * A semaphore acquire not yet satisfied blocks its channel at that very
 * method (STATUS BLOCKED); the scheduler passes over the channels until a
 * pass makes no progress, so an acquire released by another channel's
 * work (in either order) is retried without recursion, and one released
 * by a CPU store is retried by ga10x_fifo_poll(). A scheduler call is
 * bounded by the model's work_max bytes of work (fifo.h: dwords and the bytes
 * transfers move; a transfer may stop midway); the rest runs at the next
 * poll. Any error
 * puts the channel in RC: it stops, its error notifier gets NVIDIA's
 * NvNotification with status 0xffff (what uvm_channel_get_status()
 * tests), the device error is latched, and GA10X_INTR_CHANNEL_RC rises.
 */
#include "../internal.h"
#include "ga10x.h"
#include "ga10x/ce_c7b5.h"
#include "ga10x/host_c56f.h"
#include "gh100/host_c86f.h"

#define GA10X_FIFO_BLOCK	64	/* pushbuffer dwords read at once */
#define GA10X_ENTRIES_MAX	(1u << 20)
#define PB_END_SEGMENT		2	/* pb_dword(): END_PB_SEGMENT seen */

/* NvNotification (nvgputypes.h), as RM's krcErrorWriteNotifier fills it */
#define NOTIFIER_INFO32		8
#define NOTIFIER_INFO16		12
#define NOTIFIER_STATUS		14
#define NOTIFIER_SIZE		16
#define NOTIFIER_STATUS_RC	0xffffu
/* nverror.h codes in info32 */
#define ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT	31
#define ROBUST_CHANNEL_PBDMA_ERROR		32
/* an engine's own error: CE0-CE2 and CE3-CE5 are two runs of codes */
#define ROBUST_CHANNEL_CE0_ERROR		39
#define ROBUST_CHANNEL_CE3_ERROR		70
/* NV2080_ENGINE_TYPE_COPY0 in info16: COPY(n) is COPY0 + n */
#define NV2080_ENGINE_TYPE_COPY0		0x9

static uint64_t base_addr(uint64_t reg)
{
	return reg & ~(uint64_t)GA10X_BASE_APERTURE_MASK;
}

static unsigned int base_aperture(uint64_t reg)
{
	return (unsigned int)(reg & GA10X_BASE_APERTURE_MASK);
}

int ga10x_chan_ce(const struct ga10x_chan *c)
{
	return c->engine == GA10X_ENGINE_HOST ||
	       c->engine == GA10X_ENGINE_GRAPHICS ? -1 : (int)c->engine;
}

/* A compute channel: SM launches in its context, no GPFIFO work. */
static int chan_graphics(const struct ga10x_chan *c)
{
	return c->engine == GA10X_ENGINE_GRAPHICS;
}

uint64_t ga10x_chan_now(struct gm_gpu *g, struct ga10x_chan *c)
{
	return gm_max(c->time, gm_clock(g));
}

int ga10x_chan_resolve(struct gm_gpu *g, const struct ga10x_chan *c,
		       uint64_t va, unsigned int access, unsigned int *aperture,
		       uint64_t *pa, uint64_t *contig)
{
	struct ga10x_xlate x;
	uint64_t size;
	int r;

	if (c->ctrl & GA10X_CHAN_CTRL_NO_MMU) {
		*aperture = base_aperture(c->gpfifo);
		*pa = va;
		*contig = va ? -va : ~0ull;
		return 0;
	}
	r = ga10x_translate(g, c->pdb, va, access, &x);
	if (r == GA10X_XLATE_FAULT)
		return -EMGPU_ERR_BAD_PTE;	/* a fault: RC, as on a CE fault */
	if (r < 0)
		return r - GA10X_ERR_LATCHED;	/* the walk latched it */
	if (x.page_shift < 12 || x.page_shift > 40)
		return -EMGPU_ERR_BAD_PTE;
	size = 1ull << x.page_shift;
	*aperture = x.sparse ? GA10X_APERTURE_SPARSE : x.aperture;
	*pa = x.pa;
	*contig = size - (va & (size - 1));
	return 0;
}

int ga10x_mem_access(struct gm_gpu *g, unsigned int aperture, uint64_t pa,
		     void *buf, uint64_t len, int write)
{
	if (aperture == GA10X_APERTURE_SPARSE) {
		if (!write)
			memset(buf, 0, len);	/* reads 0, writes dropped */
		return 0;
	}
	return write ? gm_mem_write(g, aperture, pa, buf, len) :
		       gm_mem_read(g, aperture, pa, buf, len);
}

static int chan_access(struct gm_gpu *g, const struct ga10x_chan *c,
		       uint64_t va, void *buf, uint64_t len, int write)
{
	uint8_t *p = buf;

	while (len) {
		unsigned int ap;
		uint64_t pa, n;
		int r = ga10x_chan_resolve(g, c, va, write ? EMGPU_ACCESS_WRITE :
					   EMGPU_ACCESS_READ, &ap, &pa, &n);

		if (r)
			return r;
		if (n > len)
			n = len;
		r = ga10x_mem_access(g, ap, pa, p, n, write);
		if (r)
			return r;
		va += n;
		p += n;
		len -= n;
	}
	return 0;
}

int ga10x_chan_read(struct gm_gpu *g, const struct ga10x_chan *c, uint64_t va,
		    void *buf, uint64_t len)
{
	return chan_access(g, c, va, buf, len, 0);
}

int ga10x_chan_write(struct gm_gpu *g, const struct ga10x_chan *c,
		     uint64_t va, const void *buf, uint64_t len)
{
	return chan_access(g, c, va, (void *)buf, len, 1);
}

static unsigned int chan_index(struct gm_gpu *g, const struct ga10x_chan *c)
{
	return (unsigned int)(c - ga10x_state(g)->fifo.chan);
}

static int rc_is_memory(int err)
{
	return err == -EMGPU_ERR_DMA || err == -EMGPU_ERR_VRAM_RANGE ||
	       err == -EMGPU_ERR_BAD_PTE || err == -EMGPU_ERR_POISON;
}

/* Stops the channel on err (a negative enum emgpu_error). */
static void chan_rc(struct gm_gpu *g, struct ga10x_chan *c, int err)
{
	uint8_t n[NOTIFIER_SIZE];
	uint64_t ns = gm_now_ns(g);
	uint32_t info32;
	uint16_t info16 = ga10x_chan_ce(c) >= 0 ?
			  (uint16_t)(NV2080_ENGINE_TYPE_COPY0 + ga10x_chan_ce(c)) : 0;
	unsigned int ap = base_aperture(c->notifier);
	uint64_t addr = base_addr(c->notifier);
	int r;

	c->status = (c->status & ~GA10X_CHAN_STATUS_BLOCKED) | GA10X_CHAN_STATUS_RC;
	c->xfer.active = 0;	/* a transfer under way ends here */
	if (err <= -GA10X_ERR_LATCHED)
		err += GA10X_ERR_LATCHED;	/* the MMU latched the error */
	else
		gm_error(g, (enum emgpu_error)-err,
			 chan_index(g, c) << 16 | (c->gp_get & 0xffff));
	if (rc_is_memory(err))
		info32 = ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT;
	else if (err == -EMGPU_ERR_CE && ga10x_chan_ce(c) >= 0 && ga10x_chan_ce(c) < 6)
		info32 = ga10x_chan_ce(c) < 3 ? ROBUST_CHANNEL_CE0_ERROR + ga10x_chan_ce(c) :
			 ROBUST_CHANNEL_CE3_ERROR + ga10x_chan_ce(c) - 3;
	else
		info32 = ROBUST_CHANNEL_PBDMA_ERROR;
	/* RM's order: timestamp, info32, info16, then status */
	ga10x_put_le(n, ns, 8);
	ga10x_put_le(n + NOTIFIER_INFO32, info32, 4);
	ga10x_put_le(n + NOTIFIER_INFO16, info16, 2);
	ga10x_put_le(n + NOTIFIER_STATUS, NOTIFIER_STATUS_RC, 2);
	r = gm_mem_write(g, ap, addr, n, NOTIFIER_STATUS);
	if (!r)
		r = gm_mem_write(g, ap, addr + NOTIFIER_STATUS,
				 n + NOTIFIER_STATUS, 2);
	if (r)
		gm_error(g, (enum emgpu_error)-r,
			 GA10X_REG_CHAN(chan_index(g, c), GA10X_REG_CHAN_NOTIFIER_LO));
	ga10x_intr_raise(g, GA10X_INTR_CHANNEL_RC);
}

static int chan_has_work(const struct ga10x_chan *c)
{
	return c->gp_get != c->gp_put || c->seg_left;
}

static int chan_runnable(const struct ga10x_chan *c)
{
	return (c->ctrl & GA10X_CHAN_CTRL_ENABLE) && !chan_graphics(c) &&
	       !(c->status & GA10X_CHAN_STATUS_RC) && chan_has_work(c);
}

/* Sends one method's data word to the unit that owns the method. */
static int chan_method(struct gm_gpu *g, struct ga10x_chan *c, uint32_t subch,
		       uint32_t method, uint32_t data)
{
	if (method < C56F_HOST_METHODS_END)
		return ga10x_host_method(g, c, subch, method, data);
	if (subch >= C56F_SW_SUBCH_FIRST) {
		if (c->subch_class[subch] != GP100_UVM_SW_CLASS)
			return -EMGPU_ERR_BAD_DESCRIPTOR;
		return ga10x_sw_method(g, c, method, data);
	}
	if (ga10x_chan_ce(c) < 0)
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	return ga10x_ce_method(g, c, method, data);
}

/* One pushbuffer dword: a data word of the current header, or a header. */
static int pb_dword(struct gm_gpu *g, struct ga10x_chan *c, uint32_t w)
{
	uint32_t sec = w >> GA10X_PB_SEC_OP_SHIFT & GA10X_PB_SEC_OP_MASK;
	uint32_t subch = w >> GA10X_PB_SUBCH_SHIFT & GA10X_PB_SUBCH_MASK;
	uint32_t method = (w & GA10X_PB_ADDRESS_MASK) << 2;
	uint32_t tert;
	int r;

	if (c->mth_left) {
		r = chan_method(g, c, c->mth_subch, c->mth_addr, w);
		if (r)
			return r;	/* blocked: the same word again later */
		c->mth_left--;
		if (c->mth_op == GA10X_PB_SEC_OP_INC_METHOD) {
			c->mth_addr += 4;
		} else if (c->mth_op == GA10X_PB_SEC_OP_ONE_INC) {
			c->mth_addr += 4;
			c->mth_op = GA10X_PB_SEC_OP_NON_INC_METHOD;
		}
		return GA10X_MTHD_DONE;
	}
	switch (sec) {
	case GA10X_PB_SEC_OP_INC_METHOD:
	case GA10X_PB_SEC_OP_NON_INC_METHOD:
	case GA10X_PB_SEC_OP_ONE_INC:
		c->mth_addr = method;
		c->mth_subch = subch;
		c->mth_op = sec;
		c->mth_left = w >> GA10X_PB_COUNT_SHIFT & GA10X_PB_COUNT_MASK;
		return GA10X_MTHD_DONE;
	case GA10X_PB_SEC_OP_IMMD_DATA_METHOD:
		return chan_method(g, c, subch, method,
				   w >> GA10X_PB_IMMD_SHIFT & GA10X_PB_IMMD_MASK);
	case GA10X_PB_SEC_OP_END_PB_SEGMENT:
		return PB_END_SEGMENT;
	case GA10X_PB_SEC_OP_GRP0_USE_TERT:
		tert = w >> GA10X_PB_TERT_OP_SHIFT & GA10X_PB_TERT_OP_MASK;
		/* DMA_NOP; sub-device masks mean nothing with one GPU */
		if (w == GA10X_PB_DMA_NOP || tert != GA10X_PB_TERT_OP_GRP0_INC_METHOD)
			return GA10X_MTHD_DONE;
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	default:	/* GRP2 (legacy non-incrementing), RESERVED6 */
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
}

/* Fetches the GPFIFO entry at GP_GET; 0, or a negative enum emgpu_error. */
static int chan_fetch(struct gm_gpu *g, struct ga10x_chan *c)
{
	uint8_t raw[GA10X_GP_ENTRY_SIZE], get[4];
	uint64_t e;
	uint32_t op;
	int r;

	r = gm_mem_read(g, base_aperture(c->gpfifo), base_addr(c->gpfifo) +
			(uint64_t)c->gp_get * GA10X_GP_ENTRY_SIZE, raw, sizeof(raw));
	if (r)
		return r;
	e = ga10x_get_le(raw, 8);
	c->time = ga10x_chan_now(g, c) +
		  GM_NS(base_aperture(c->gpfifo) == GA10X_BASE_APERTURE_VIDMEM ?
			g->prof.vram_latency_ns : g->prof.link_latency_ns);
	gm_idle_work(g, c->time);
	c->gp_get = (c->gp_get + 1) & (c->entries - 1);
	ga10x_put_le(get, c->gp_get, 4);
	r = gm_mem_write(g, base_aperture(c->userd),
			 base_addr(c->userd) + GA10X_USERD_GP_GET, get, sizeof(get));
	if (r)
		return r;
	/* SYNC_WAIT, FETCH_CONDITIONAL, LEVEL: the work before is done already */
	if (ga10x_gp_length(e)) {
		/* c86f: VA bits 56:40 from the latest extended base, else 0 */
		c->seg_va = c->pb_base | ga10x_gp_va(e);
		c->seg_left = ga10x_gp_length(e);
		return 0;
	}
	op = (uint32_t)(e >> 32) & GA10X_GP_ENTRY1_OPCODE_MASK;
	if (op == GA10X_GP_OPCODE_NOP || op == GA10X_GP_OPCODE_GP_CRC ||
	    op == GA10X_GP_OPCODE_PB_CRC)
		return 0;
	if (op == C86F_GP_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE &&
	    ga10x_state(g)->arch->pb_extended_base) {
		c->pb_base = gh100_gp_pb_base(e);
		return 0;
	}
	return -EMGPU_ERR_BAD_DESCRIPTOR;	/* ILLEGAL, or no such opcode */
}

/* Runs the channel until it is idle, blocked, in RC or out of budget;
 * returns whether it consumed anything. */
static int chan_run(struct gm_gpu *g, struct ga10x_chan *c)
{
	struct ga10x_fifo *f = &ga10x_state(g)->fifo;
	uint8_t buf[GA10X_FIFO_BLOCK * 4];
	int progressed = 0, r;

	while (f->work_left) {
		uint32_t i, n;

		if (!c->seg_left) {
			if (c->gp_get == c->gp_put)
				break;
			r = chan_fetch(g, c);
			if (r) {
				chan_rc(g, c, r);
				return 1;
			}
			ga10x_fifo_work(f, GA10X_WORK_DWORD);
			progressed = 1;
			continue;
		}
		n = c->seg_left < GA10X_FIFO_BLOCK ? c->seg_left : GA10X_FIFO_BLOCK;
		r = ga10x_chan_read(g, c, c->seg_va, buf, (uint64_t)n * 4);
		if (r) {
			chan_rc(g, c, r);
			return 1;
		}
		for (i = 0; i < n && f->work_left; i++) {
			r = pb_dword(g, c, (uint32_t)ga10x_get_le(buf + 4 * i, 4));
			if (r == GA10X_MTHD_BLOCKED) {
				c->status |= GA10X_CHAN_STATUS_BLOCKED;
				return progressed;
			}
			if (r == GA10X_MTHD_YIELD)
				return 1;	/* out of work, in a transfer */
			if (r < 0) {
				chan_rc(g, c, r);
				return 1;
			}
			c->status &= ~GA10X_CHAN_STATUS_BLOCKED;
			c->seg_va += 4;
			c->seg_left--;
			ga10x_fifo_work(f, GA10X_WORK_DWORD);
			progressed = 1;
			if (r == PB_END_SEGMENT) {
				c->seg_left = 0;
				break;
			}
			if (c->status & GA10X_CHAN_STATUS_RC)
				return 1;	/* a method stopped it (none does yet) */
		}
	}
	return progressed;
}

/* Passes over the channels until a pass makes no progress. */
static void fifo_schedule(struct gm_gpu *g)
{
	struct ga10x_fifo *f = &ga10x_state(g)->fifo;
	int progress;

	if (f->running || g->hung)
		return;
	f->running = 1;
	f->work_left = g->work_max;
	do {
		unsigned int i;

		progress = 0;
		for (i = 0; i < GA10X_CHANNELS && f->work_left; i++)
			if (chan_runnable(&f->chan[i]) &&
			    chan_run(g, &f->chan[i]))
				progress = 1;
	} while (progress && f->work_left);
	f->running = 0;
}

void ga10x_fifo_doorbell(struct gm_gpu *g, uint32_t token)
{
	struct ga10x_chan *c;
	uint8_t put[4];
	uint32_t v;
	int r;

	if (token >= GA10X_CHANNELS ||
	    !(ga10x_state(g)->fifo.chan[token].ctrl & GA10X_CHAN_CTRL_ENABLE)) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, token);
		return;
	}
	c = &ga10x_state(g)->fifo.chan[token];
	if (chan_graphics(c)) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, token);	/* no GPFIFO */
		return;
	}
	if (c->status & GA10X_CHAN_STATUS_RC)
		return;		/* stopped until CLEAR_RC */
	r = gm_mem_read(g, base_aperture(c->userd),
			base_addr(c->userd) + GA10X_USERD_GP_PUT, put, sizeof(put));
	if (r) {
		chan_rc(g, c, r);
		return;
	}
	v = (uint32_t)ga10x_get_le(put, 4);
	if (v >= c->entries) {
		chan_rc(g, c, -EMGPU_ERR_BAD_INDEX);
		return;
	}
	c->gp_put = v;
	fifo_schedule(g);
}

struct ga10x_chan *ga10x_launch_chan(struct gm_gpu *g)
{
	uint32_t ch = ga10x_state(g)->sm.launch_channel;
	struct ga10x_chan *c;

	if (ch >= GA10X_CHANNELS)
		return NULL;
	c = &ga10x_state(g)->fifo.chan[ch];
	if (!(c->ctrl & GA10X_CHAN_CTRL_ENABLE) || !chan_graphics(c) ||
	    (c->status & GA10X_CHAN_STATUS_RC))
		return NULL;
	return c;
}

unsigned int ga10x_fifo_poll(struct gm_gpu *g)
{
	unsigned int i, blocked = 0;

	fifo_schedule(g);
	/* blocked ones, and any a budget stop left work to: poll again */
	for (i = 0; i < GA10X_CHANNELS; i++)
		blocked += chan_runnable(&ga10x_state(g)->fifo.chan[i]);
	return blocked;
}

/* ---- registers ---- */

static int chan_reg(uint32_t off, unsigned int *ch, uint32_t *reg)
{
	if (off < GA10X_REG_CHAN_BASE ||
	    off >= GA10X_REG_CHAN(GA10X_CHANNELS, 0))
		return -1;
	*ch = (off - GA10X_REG_CHAN_BASE) / GA10X_REG_CHAN_STRIDE;
	*reg = (off - GA10X_REG_CHAN_BASE) % GA10X_REG_CHAN_STRIDE;
	return 0;
}

static uint32_t chan_status(const struct ga10x_chan *c)
{
	uint32_t s = c->status & (GA10X_CHAN_STATUS_BLOCKED | GA10X_CHAN_STATUS_RC);

	if (!(s & GA10X_CHAN_STATUS_BLOCKED) && !chan_has_work(c))
		s |= GA10X_CHAN_STATUS_IDLE;
	return s;
}

int ga10x_fifo_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v)
{
	struct ga10x_chan *c;
	unsigned int ch;
	uint32_t reg;

	if (chan_reg(off, &ch, &reg))
		return -1;
	c = &ga10x_state(g)->fifo.chan[ch];
	switch (reg) {
	case GA10X_REG_CHAN_INST_LO:	*v = (uint32_t)c->inst; break;
	case GA10X_REG_CHAN_INST_HI:	*v = (uint32_t)(c->inst >> 32); break;
	case GA10X_REG_CHAN_PDB_LO:	*v = (uint32_t)c->pdb; break;
	case GA10X_REG_CHAN_PDB_HI:	*v = (uint32_t)(c->pdb >> 32); break;
	case GA10X_REG_CHAN_GPFIFO_LO:	*v = (uint32_t)c->gpfifo; break;
	case GA10X_REG_CHAN_GPFIFO_HI:	*v = (uint32_t)(c->gpfifo >> 32); break;
	case GA10X_REG_CHAN_GPFIFO_ENTRIES: *v = c->entries; break;
	case GA10X_REG_CHAN_USERD_LO:	*v = (uint32_t)c->userd; break;
	case GA10X_REG_CHAN_USERD_HI:	*v = (uint32_t)(c->userd >> 32); break;
	case GA10X_REG_CHAN_NOTIFIER_LO: *v = (uint32_t)c->notifier; break;
	case GA10X_REG_CHAN_NOTIFIER_HI: *v = (uint32_t)(c->notifier >> 32); break;
	case GA10X_REG_CHAN_ENGINE:	*v = c->engine; break;
	case GA10X_REG_CHAN_CTRL:	*v = c->ctrl; break;
	case GA10X_REG_CHAN_STATUS:	*v = chan_status(c); break;
	case GA10X_REG_CHAN_TOKEN:	*v = ch; break;
	default:
		return -1;
	}
	return 0;
}

static void set_lo(uint64_t *r, uint32_t v)
{
	*r = (*r & ~0xffffffffull) | v;
}

static void set_hi(uint64_t *r, uint32_t v)
{
	*r = (*r & 0xffffffffull) | (uint64_t)v << 32;
}

static int aperture_ok(uint32_t lo)
{
	unsigned int ap = lo & GA10X_BASE_APERTURE_MASK;

	return ap == GA10X_BASE_APERTURE_VIDMEM || ap == GA10X_BASE_APERTURE_SYSMEM;
}

static void chan_enable(struct ga10x_chan *c, uint32_t ctrl)
{
	uint64_t inst = c->inst, pdb = c->pdb, gpfifo = c->gpfifo;
	uint64_t userd = c->userd, notifier = c->notifier;
	uint32_t entries = c->entries, engine = c->engine, pdb_hi = c->pdb_hi;

	/* a fresh channel: GP_GET 0, no method state, nothing bound */
	memset(c, 0, sizeof(*c));
	c->pdb_hi = pdb_hi;
	c->inst = inst;
	c->pdb = pdb;
	c->gpfifo = gpfifo;
	c->userd = userd;
	c->notifier = notifier;
	c->entries = entries;
	c->engine = engine;
	c->ctrl = ctrl;
}

static void chan_ctrl(struct gm_gpu *g, struct ga10x_chan *c, uint32_t off,
		      uint32_t v)
{
	uint32_t known = GA10X_CHAN_CTRL_ENABLE | GA10X_CHAN_CTRL_CLEAR_RC |
			 GA10X_CHAN_CTRL_NO_MMU;
	uint32_t ctrl = v & (GA10X_CHAN_CTRL_ENABLE | GA10X_CHAN_CTRL_NO_MMU);

	/*
	 * A graphics channel needs its INST and PDB only (the SMs translate
	 * through it: no NO_MMU); its GPFIFO, USERD and notifier may be
	 * absent.
	 */
	int bad = chan_graphics(c) ?
		  (!aperture_ok((uint32_t)c->inst) || !aperture_ok((uint32_t)c->pdb) ||
		   (v & GA10X_CHAN_CTRL_NO_MMU)) :
		  (c->entries < 2 || !aperture_ok((uint32_t)c->gpfifo) ||
		   !aperture_ok((uint32_t)c->userd) ||
		   !aperture_ok((uint32_t)c->notifier));

	if ((v & ~known) || ((v & GA10X_CHAN_CTRL_ENABLE) && bad)) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		return;
	}
	if ((ctrl & GA10X_CHAN_CTRL_ENABLE) && !(c->ctrl & GA10X_CHAN_CTRL_ENABLE))
		chan_enable(c, ctrl);
	else
		c->ctrl = ctrl;
	if (!(ctrl & GA10X_CHAN_CTRL_ENABLE))
		ga10x_sm_chan_changed(g, c, off);	/* a launch on it ends */
	if ((v & GA10X_CHAN_CTRL_CLEAR_RC) && (c->status & GA10X_CHAN_STATUS_RC)) {
		/* resume after the entry that failed: drop the rest of it */
		c->status = 0;
		c->seg_left = 0;
		c->mth_left = 0;
	}
	if (!(ctrl & GA10X_CHAN_CTRL_ENABLE))
		c->status &= ~GA10X_CHAN_STATUS_BLOCKED;
}

int ga10x_fifo_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	struct ga10x_chan *c;
	unsigned int ch;
	uint32_t reg;

	if (chan_reg(off, &ch, &reg))
		return -1;
	c = &ga10x_state(g)->fifo.chan[ch];
	if (reg == GA10X_REG_CHAN_CTRL) {
		chan_ctrl(g, c, off, v);
		return 0;
	}
	if (reg == GA10X_REG_CHAN_STATUS || reg == GA10X_REG_CHAN_TOKEN ||
	    reg > GA10X_REG_CHAN_TOKEN)
		return -1;	/* read-only or none: BAD_REGISTER */
	/*
	 * The page directory may change under a live channel, as the RM
	 * rewrites a running channel's instance block when nvidia-uvm sets
	 * the page directory of an address space whose channels already ran:
	 * PDB_LO commits both halves at once, so no walk sees half of one,
	 * and the old directory's translations are dropped. A launch running
	 * in the channel ends (sm.c): its warps never translate through
	 * another directory than the one they started in.
	 */
	if (reg == GA10X_REG_CHAN_PDB_HI) {
		c->pdb_hi = v;
		return 0;
	}
	if (reg == GA10X_REG_CHAN_PDB_LO) {
		uint64_t old = c->pdb;

		c->pdb = (uint64_t)c->pdb_hi << 32 | v;
		if ((c->ctrl & GA10X_CHAN_CTRL_ENABLE) && old != c->pdb) {
			ga10x_tlb_invalidate(g, 0, old, 0, ~0ull);
			ga10x_sm_chan_changed(g, c, off);
			/* a transfer under way moved through the old
			 * directory: it ends, as a launch does */
			if (c->xfer.active) {
				gm_error(g, EMGPU_ERR_CHANNEL, off);
				chan_rc(g, c, -(EMGPU_ERR_CHANNEL + GA10X_ERR_LATCHED));
			}
		}
		return 0;
	}
	if (c->ctrl & GA10X_CHAN_CTRL_ENABLE) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, off);	/* disable it first */
		return 0;
	}
	switch (reg) {
	case GA10X_REG_CHAN_INST_LO:	set_lo(&c->inst, v); break;
	case GA10X_REG_CHAN_INST_HI:	set_hi(&c->inst, v); break;
	case GA10X_REG_CHAN_GPFIFO_HI:	set_hi(&c->gpfifo, v); break;
	case GA10X_REG_CHAN_USERD_HI:	set_hi(&c->userd, v); break;
	case GA10X_REG_CHAN_NOTIFIER_HI: set_hi(&c->notifier, v); break;
	case GA10X_REG_CHAN_GPFIFO_LO:
	case GA10X_REG_CHAN_USERD_LO:
	case GA10X_REG_CHAN_NOTIFIER_LO:
		if (!aperture_ok(v) || (reg == GA10X_REG_CHAN_GPFIFO_LO &&
					(v & (GA10X_GP_ENTRY_SIZE - 1) & ~GA10X_BASE_APERTURE_MASK))) {
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
			break;
		}
		set_lo(reg == GA10X_REG_CHAN_GPFIFO_LO ? &c->gpfifo :
		       reg == GA10X_REG_CHAN_USERD_LO ? &c->userd : &c->notifier, v);
		break;
	case GA10X_REG_CHAN_GPFIFO_ENTRIES:
		if (v < 2 || v > GA10X_ENTRIES_MAX || (v & (v - 1))) {
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
			break;
		}
		c->entries = v;
		break;
	case GA10X_REG_CHAN_ENGINE:
		if (v != GA10X_ENGINE_HOST && v != GA10X_ENGINE_GRAPHICS &&
		    v >= g->prof.num_copy_engines) {
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
			break;
		}
		c->engine = v;
		break;
	default:
		return -1;
	}
	return 0;
}
