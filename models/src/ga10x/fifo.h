/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality, GPFIFO channels (fifo.c), host class c56f methods
 * (host.c) and copy-engine class c7b5 methods (ce.c), with GH100's c86f
 * and c8b5 fields where the arch asks (struct ga10x_arch): state, and the
 * calls between those three files.
 */
#ifndef GM_GA10X_FIFO_H
#define GM_GA10X_FIFO_H

#include <stdint.h>

#include "ga10x/gpfifo.h"
#include "ga10x/regs.h"

struct gm_gpu;

/* The copy engine's method state of one channel (clc7b5.h's methods). */
struct ga10x_ce_state {
	uint32_t sem_a, sem_b, sem_payload, sem_payload_upper;
	uint32_t src_phys, dst_phys;
	uint32_t offset_in_upper, offset_in_lower;
	uint32_t offset_out_upper, offset_out_lower;
	uint32_t pitch_in, pitch_out, line_length_in, line_count;
	uint32_t remap_const_a, remap_const_b, remap_components;
	uint32_t scrub_params;		/* c8b5 SET_MEMORY_SCRUB_PARAMETERS */
};

/* The host's method state of one channel (clc56f.h, clc076.h). */
struct ga10x_host_state {
	uint32_t sem_addr_lo, sem_addr_hi, sem_payload_lo, sem_payload_hi;
	uint32_t mem_op_a, mem_op_b, mem_op_c;
	uint32_t cancel_a, cancel_b;	/* c076 FAULT_CANCEL_A/B */
	uint32_t clear_faulted_a;	/* c076 CLEAR_FAULTED_A */
};

/*
 * A LAUNCH_DMA transfer under way (ce.c): the scheduler's work budget ran
 * out inside it, so the channel stays at that method and the transfer
 * goes on from (line, elem) at the next scheduler call. Its time was
 * charged, and its injections checked, when it started.
 */
struct ga10x_ce_xfer {
	int active;
	uint32_t line;		/* the line being moved */
	uint64_t elem;		/* its elements (bytes without remap) moved */
	uint64_t done;		/* the transfer's completion (ps) */
};

struct ga10x_chan {
	/* registers (GA10X_REG_CHAN_*): address | aperture for the bases */
	uint64_t inst, pdb, gpfifo, userd, notifier;
	uint32_t pdb_hi;	/* PDB_HI as written: PDB_LO commits both halves */
	uint32_t entries, engine, ctrl, status;
	/* GPFIFO progress: the next entry, and GP_PUT as last read */
	uint32_t gp_get, gp_put;
	/* c86f: VA bits 56:40 of the segments (SET_PB_SEGMENT_EXTENDED_BASE) */
	uint64_t pb_base;
	/* the pushbuffer segment being fetched: next dword's VA, dwords left */
	uint64_t seg_va;
	uint32_t seg_left;
	/* the method header being executed: next method, its data dwords left */
	uint32_t mth_addr;		/* byte offset */
	uint32_t mth_left;
	uint32_t mth_subch, mth_op;	/* GA10X_PB_SEC_OP_* */
	uint32_t subch_class[GA10X_SUBCHANNELS];	/* SET_OBJECT, 0: none */
	struct ga10x_host_state host;
	struct ga10x_ce_state ce;
	struct ga10x_ce_xfer xfer;
	/* when the channel's latest work completes (ps): its engine runs the
	 * channel's work in order, so a semaphore release after a copy gets
	 * the copy's completion as its timestamp */
	uint64_t time;
	/* when the channel's latest transfer was issued to a copy engine (ps):
	 * a PIPELINED launch's setup overlaps that transfer (ce.c) */
	uint64_t ce_issue;
};

/*
 * The work one scheduler call (a doorbell, a poll) does at most is the
 * model's work_max (gm_config; GM_CE_WORK by default), in bytes moved: a
 * GPFIFO entry or a pushbuffer dword counts GA10X_WORK_DWORD, a
 * copy-engine transfer its destination bytes plus GA10X_WORK_DWORD per line
 * (a line of nothing still costs its translations). What is left runs at
 * the next poll, so no register write does more than this.
 */
#define GA10X_WORK_DWORD	64u

struct ga10x_fifo {
	struct ga10x_chan chan[GA10X_CHANNELS];
	int running;	/* inside the scheduler: a doorbell only marks work */
	uint64_t work_left;	/* of this scheduler call's work_max */
};

/* Takes n from the scheduler call's work budget (to 0 at most). */
static inline void ga10x_fifo_work(struct ga10x_fifo *f, uint64_t n)
{
	f->work_left -= n < f->work_left ? n : f->work_left;
}

/*
 * Methods dispatched by fifo.c. Each returns GA10X_MTHD_DONE, or
 * GA10X_MTHD_BLOCKED (a semaphore acquire not yet satisfied: the channel
 * retries the same method later), or a negative enum emgpu_error that puts
 * the channel in RC.
 */
#define GA10X_MTHD_DONE		0
#define GA10X_MTHD_BLOCKED	1
/* the work budget ran out inside the method (a LAUNCH_DMA transfer): the
 * same method runs on at the next scheduler call */
#define GA10X_MTHD_YIELD	3
/* any host method (offset < C56F_HOST_METHODS_END) */
int ga10x_host_method(struct gm_gpu *g, struct ga10x_chan *c, uint32_t subch,
		      uint32_t method, uint32_t data);
/* a GP100_UVM_SW method on a software subchannel */
int ga10x_sw_method(struct gm_gpu *g, struct ga10x_chan *c, uint32_t method,
		    uint32_t data);
/* a c7b5 method on a copy-engine channel's subchannel 0-4 */
int ga10x_ce_method(struct gm_gpu *g, struct ga10x_chan *c, uint32_t method,
		    uint32_t data);

/* A semaphore reduction (host.c; c56f's and c7b5's codes are the same):
 * 0 and *out, or -EMGPU_ERR_BAD_DESCRIPTOR for no such integer one. */
int ga10x_sem_reduce(uint32_t op, int is_signed, int wide, uint64_t mem,
		     uint64_t payload, uint64_t *out);

/*
 * Memory as the channel sees it (fifo.c). A GPU VA goes through the
 * channel's page directory (GA10X_REG_CHAN_PDB), or, with
 * GA10X_CHAN_CTRL_NO_MMU, is a physical address in the GPFIFO base's
 * aperture. ga10x_chan_resolve gives the physical address of va and the
 * bytes contiguous from there; the others access whole ranges. 0 or a
 * negative enum emgpu_error (a translation fault is -EMGPU_ERR_BAD_PTE),
 * as -(code + GA10X_ERR_LATCHED) when the MMU latched it already. access
 * is an enum emgpu_access_type. A sparse page resolves to aperture
 * GA10X_APERTURE_SPARSE, which ga10x_mem_access() reads as 0 and ignores
 * writes to.
 */
#define GA10X_ERR_LATCHED	0x100	/* -(code + this): latched already */
#define GA10X_APERTURE_SPARSE	0xffu
int ga10x_mem_access(struct gm_gpu *g, unsigned int aperture, uint64_t pa,
		     void *buf, uint64_t len, int write);
int ga10x_chan_resolve(struct gm_gpu *g, const struct ga10x_chan *c,
		       uint64_t va, unsigned int access, unsigned int *aperture,
		       uint64_t *pa, uint64_t *contig);
int ga10x_chan_read(struct gm_gpu *g, const struct ga10x_chan *c, uint64_t va,
		    void *buf, uint64_t len);
int ga10x_chan_write(struct gm_gpu *g, const struct ga10x_chan *c,
		     uint64_t va, const void *buf, uint64_t len);
/* little-endian bytes of guest memory, whatever the host's order */
static inline void ga10x_put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t ga10x_get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* the channel's CE index, or -1 for a host-only channel */
int ga10x_chan_ce(const struct ga10x_chan *c);
/* when the channel's current work may start (ps) */
uint64_t ga10x_chan_now(struct gm_gpu *g, struct ga10x_chan *c);

#endif /* GM_GA10X_FIFO_H */
