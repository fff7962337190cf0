/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: the replayable fault buffer, the access-counter
 * buffer and the interrupt leaf, as nvidia-uvm's Ampere HAL drives them
 * (uvm_hal.c's GA100 entries inherit: Pascal's enable and VALID handling,
 * Volta's GET/PUT and entry parsing, Turing's disable and clear).
 *
 * The leaf (GA10X_REG_INTR_*) is Turing+'s: one pending word, write 1 to
 * clear, and set/clear enable masks. A unit pulses its bit when it writes
 * an entry and again whenever the driver writes its GET while GET != PUT:
 * nvidia-uvm clears the bit (pPmcIntr, pHubIntr), then writes GET, so
 * entries that are still unread re-assert it. MSI-X GA10X_MSIX_VECTOR is
 * sent when a bit becomes pending while enabled, or enabled while pending
 * (as gm_raise() does for emgpu's own causes).
 *
 * Fault buffer (hwref gv100 dev_fb.h): a fault that finds the buffer full
 * (PUT + 1 == GET) is dropped and sets OVERFLOW; while OVERFLOW is set
 * every fault is dropped, until the driver writes GET with OVERFLOW's
 * clear bit. A GET beyond the buffer is refused and sets GETPTR_CORRUPTED
 * (cleared the same way). Both show in GET and PUT beside PTR. An injected
 * overflow (fault-overflow) fires only while the ring holds an unread
 * entry: a real one needs a full ring, and nvidia-uvm finds work, and so
 * replays the dropped warps, only in entries (its pending check compares
 * GET with PUT; an empty ring with OVERFLOW set is never serviced).
 *
 * Access-counter buffer: GET and PUT are bare indices; a notification that
 * finds the buffer full is dropped (the counter notifies again later, as
 * counters.c does); FULL says the buffer is full now.
 *
 * Base, size, enable and the counters' configuration are the stand-in's
 * registers, in emgpu's conventions (_HI staged, _LO commits; no moving an
 * enabled buffer); sizes are entries, any number from 2 to 2^20 (PTR's
 * width), as RM sizes its buffers freely.
 */
#include <string.h>

#include "../internal.h"
#include "ga10x.h"
#include "ga10x/access_counter_c365.h"
#include "ga10x/fault_c369.h"

/*
 * ga10x_replay.type and ga10x_ac_clear's fields: the values of clc56f.h's
 * MEM_OP_C TLB_INVALIDATE_REPLAY and MEM_OP_D ACCESS_COUNTER_CLR_TYPE /
 * _TARGETED_TYPE fields (host.c decodes them).
 */
enum {
	REPLAY_NONE = 0,
	REPLAY_START = 1,
	REPLAY_START_ACK_ALL = 2,
	REPLAY_CANCEL_TARGETED = 3,
	REPLAY_CANCEL_GLOBAL = 4,
	REPLAY_CANCEL_VA_GLOBAL = 5,
};
enum {
	AC_CLR_MIMC = 0,
	AC_CLR_MOMC = 1,
	AC_CLR_ALL = 2,
	AC_CLR_TARGETED = 3,
};
enum {
	AC_CLR_TARGETED_MIMC = 0,
	AC_CLR_TARGETED_MOMC = 1,
};

#define RING_MIN_ENTRIES	2

/* ---- interrupt leaf ---- */

/* Sends the MSI-X message for leaf bits that just became pending & enabled. */
static void intr_update(struct gm_gpu *g, uint32_t was_live)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	uint32_t newly = f->intr_pending & f->intr_enable & ~was_live;

	if (!newly)
		return;
	if (gm_inject_check(g, GM_INJ_LOST_IRQ, 0, 0))
		return;
	/*
	 * Not hashed: a bit held for a stop is sent at the stop only if
	 * nvidia-uvm has the leaf enabled then, else when it enables it again
	 * (its top half disables it, its bottom half re-enables), and when
	 * that is depends on the guest's timing, not the device's (two runs
	 * of stream at 0.05x on h200-512m sent 4 and 9 messages more or
	 * fewer at other places)
	 */
	gm_event_unhashed(g, GM_EV_IRQ, GA10X_MSIX_VECTOR, newly, 0);
	if (g->cb.irq)
		g->cb.irq(g->cb.opaque, GA10X_MSIX_VECTOR);
}

void ga10x_intr_raise(struct gm_gpu *g, uint32_t leaf_bits)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	uint32_t live = f->intr_pending & f->intr_enable;

	/* lockstep: what warps raise waits for gm_run()'s stop, as gm_raise() */
	if (g->lockstep && g->in_run) {
		f->intr_held |= leaf_bits & GA10X_INTR_ALL;
		return;
	}
	f->intr_pending |= leaf_bits & GA10X_INTR_ALL;
	intr_update(g, live);
}

static void intr_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	uint32_t live = f->intr_pending & f->intr_enable;

	if (v & ~GA10X_INTR_ALL)
		gm_error(g, EMGPU_ERR_BAD_VALUE, off);
	v &= GA10X_INTR_ALL;
	switch (off) {
	case GA10X_REG_INTR_LEAF:
		f->intr_pending &= ~v;	/* write 1 to clear, every bit */
		return;
	case GA10X_REG_INTR_EN_SET:
		f->intr_enable |= v;
		intr_update(g, live);	/* pending bits fire when enabled */
		return;
	case GA10X_REG_INTR_EN_CLEAR:
		f->intr_enable &= ~v;
		return;
	}
}

/* ---- rings ---- */

static int ring_fits(const struct gm_gpu *g, const struct ga10x_ring *r)
{
	uint64_t bytes = (uint64_t)r->size * C369_ENTRY_SIZE;

	if (r->size < RING_MIN_ENTRIES || r->base + bytes < r->base)
		return 0;
	return r->aperture != GA10X_BASE_APERTURE_VIDMEM ||
	       r->base + bytes <= g->prof.vram_bytes;
}

static int ring_live(const struct gm_gpu *g, const struct ga10x_ring *r)
{
	return (r->ctrl & EMGPU_RING_ENABLE) && ring_fits(g, r);
}

static uint32_t ring_next(const struct ga10x_ring *r, uint32_t i)
{
	return i + 1 == r->size ? 0 : i + 1;
}

static int ring_full(const struct ga10x_ring *r)
{
	return ring_next(r, r->put) == r->get;
}

/* Word 7 of a C369 fault and a C365 notification entry, which holds VALID */
#define ENTRY_W7		28
#define ENTRY_W7_VALID		(1u << 31)	/* C369_W7_VALID, C365_W7_VALID */

/*
 * Writes one 32-byte entry at PUT and advances it: 0, 1 if full, -error.
 * In lockstep while warps run the entry goes to memory with VALID clear
 * and ring_publish() sets it at the hand-off, with PUT: nvidia-uvm's
 * interrupt top half tests the VALID bit at its cached GET before it
 * reads PUT (uvm_parent_gpu_replayable_faults_pending(), and its
 * access-counter twin): an entry valid before its hand-off could make it
 * schedule a bottom half that finds PUT unmoved and replays with nothing
 * serviced ("at least one replay"), resuming warps mid-batch at an
 * instant the guest's timing chose.
 */
static int ring_push(struct gm_gpu *g, struct ga10x_ring *r, const void *ent)
{
	uint8_t buf[C369_ENTRY_SIZE];
	int held = g->lockstep && g->in_run;
	int rc;

	if (!ring_live(g, r) || ring_full(r))
		return 1;
	memcpy(buf, ent, sizeof(buf));
	if (held)
		ga10x_put_le(buf + ENTRY_W7,
			     ga10x_get_le(buf + ENTRY_W7, 4) & ~ENTRY_W7_VALID, 4);
	rc = gm_mem_write(g, r->aperture,
			  r->base + (uint64_t)r->put * C369_ENTRY_SIZE, buf,
			  C369_ENTRY_SIZE);
	if (rc)
		return rc;
	r->put = ring_next(r, r->put);
	if (!held)
		r->pub = r->put;	/* else at the hand-off: ring_publish() */
	return 0;
}

/* The hand-off: the entries written since the last one become valid, PUT moves. */
static int ring_publish(struct gm_gpu *g, struct ga10x_ring *r)
{
	uint8_t w7[4];
	uint64_t at;
	int rc;

	for (; r->pub != r->put; r->pub = ring_next(r, r->pub)) {
		at = r->base + (uint64_t)r->pub * C369_ENTRY_SIZE + ENTRY_W7;
		rc = gm_mem_read(g, r->aperture, at, w7, sizeof(w7));
		if (!rc) {
			ga10x_put_le(w7, ga10x_get_le(w7, 4) | ENTRY_W7_VALID, 4);
			rc = gm_mem_write(g, r->aperture, at, w7, sizeof(w7));
		}
		if (rc)
			return rc;
	}
	return 0;
}

static void ring_write_base(struct gm_gpu *g, struct ga10x_ring *r,
			    uint32_t lo, uint32_t off)
{
	unsigned int ap = lo & GA10X_BASE_APERTURE_MASK;

	if ((r->ctrl & EMGPU_RING_ENABLE) || (lo & 0xffc) ||
	    (ap != GA10X_BASE_APERTURE_VIDMEM && ap != GA10X_BASE_APERTURE_SYSMEM)) {
		gm_error(g, EMGPU_ERR_BAD_RING, off);
		return;
	}
	r->base = (uint64_t)r->base_hi << 32 | (lo & ~0xfffu);
	r->aperture = ap;
}

/* A new size empties the ring; *status (its flags) is cleared with it. */
static void ring_write_size(struct gm_gpu *g, struct ga10x_ring *r,
			    uint32_t v, uint32_t off, uint32_t *status)
{
	if ((r->ctrl & EMGPU_RING_ENABLE) || v < RING_MIN_ENTRIES ||
	    v > C369_BUF_MAX_ENTRIES) {
		gm_error(g, EMGPU_ERR_BAD_RING, off);
		return;
	}
	r->size = v;
	r->get = r->put = r->pub = 0;
	*status = 0;
}

static void ring_write_ctrl(struct gm_gpu *g, struct ga10x_ring *r,
			    uint32_t v, uint32_t off)
{
	if (v & ~EMGPU_RING_ENABLE) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, off);
		return;
	}
	if ((v & EMGPU_RING_ENABLE) && !ring_fits(g, r)) {
		gm_error(g, EMGPU_ERR_BAD_RING, off);
		return;
	}
	r->ctrl = v;
}

/* ---- replayable fault buffer ---- */

static void fb_write_get(struct gm_gpu *g, uint32_t v)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	uint32_t ptr = v & C369_BUF_PTR_MASK;

	if (v & ~(C369_BUF_PTR_MASK | C369_BUF_GETPTR_CORRUPTED |
		  C369_BUF_OVERFLOW))
		gm_error(g, EMGPU_ERR_BAD_VALUE, GA10X_REG_FAULT_BUF_GET);
	/* the clears first: the new PTR may be the corrupted one again */
	f->fb_status &= ~(v & (C369_BUF_GETPTR_CORRUPTED | C369_BUF_OVERFLOW));
	if (ptr >= f->fb.size) {
		f->fb_status |= C369_BUF_GETPTR_CORRUPTED;
		gm_error(g, EMGPU_ERR_BAD_INDEX, GA10X_REG_FAULT_BUF_GET);
		return;
	}
	f->fb.get = ptr;
	if (f->fb.get != f->fb.pub)	/* the pulse re-evaluation */
		ga10x_intr_raise(g, GA10X_INTR_REPLAYABLE_FAULT);
}

static void mark_stalled(struct ga10x_faults *f, unsigned int gpc,
			 unsigned int client)
{
	uint64_t *w = &f->stalled[gpc][client / 64], bit = 1ull << (client % 64);

	if (!(*w & bit)) {
		*w |= bit;
		f->nstalled++;
	}
}

static void unstall(struct ga10x_faults *f, unsigned int gpc,
		    unsigned int client)
{
	uint64_t *w = &f->stalled[gpc][client / 64], bit = 1ull << (client % 64);

	if (*w & bit) {
		*w &= ~bit;
		f->nstalled--;
	}
}

void ga10x_fault_report(struct gm_gpu *g, const struct ga10x_fault *fault)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	struct c369_fault d = {
		.inst = fault->inst & ~0xfffull,
		.inst_aperture = (uint32_t)(fault->inst & GA10X_BASE_APERTURE_MASK),
		.addr = fault->va & ~0xfffull,
		.timestamp = fault->timestamp_ns ? fault->timestamp_ns : gm_now_ns(g),
		.engine_id = fault->engine_id,
		.fault_type = fault->fault_type,
		.client = fault->client,
		.access_type = fault->access_type,
		.client_type = fault->client_type,
		.gpc_id = fault->gpc,
		.replayable = 1,
		.replayable_en = 1,
		.valid = 1,
	};
	struct c369_entry ent;
	uint32_t info;
	int rc;

	/* a filtered prefetch is dropped before it is a fault: no stall */
	if (c369_is_prefetch(fault->access_type) &&
	    (f->page_fault_ctrl & C369_PAGE_FAULT_CTRL_PRF_FILTER_MASK) ==
	    C369_PAGE_FAULT_CTRL_PRF_SEND_NONE)
		return;
	g->st.faults++;
	if (fault->client_type == C369_MMU_CLIENT_TYPE_GPC &&
	    fault->gpc < GA10X_FAULT_GPCS && fault->client < GA10X_FAULT_CLIENTS)
		mark_stalled(f, fault->gpc, fault->client);
	c369_encode(&d, &ent);
	info = emgpu_le32_to_cpu(ent.w[7]);

	if (f->fb_status & C369_BUF_OVERFLOW)
		rc = 1;		/* nothing is delivered until OVERFLOW is cleared */
	else if (f->fb.put != f->fb.get &&
		 gm_inject_check(g, GM_INJ_FAULT_OVERFLOW, fault->va, 1))
		rc = 1;		/* injected: as if the ring were full */
	else
		rc = ring_push(g, &f->fb, &ent);
	if (rc < 0) {
		gm_error(g, -rc, f->fb.put);
		return;
	}
	if (rc > 0) {
		f->fb_status |= C369_BUF_OVERFLOW;
		g->st.fault_overflows++;
		gm_event(g, GM_EV_OVERFLOW, fault->va, info, 0);
	} else {
		g->st.fault_entries++;
		f->faults_since_replay++;
		gm_event(g, GM_EV_FAULT, fault->va, info, d.timestamp);
		if (gm_inject_check(g, GM_INJ_FAULT_DUP, fault->va, 1) &&
		    ring_push(g, &f->fb, &ent) == 0) {
			g->st.fault_entries++;
			f->faults_since_replay++;
			gm_event(g, GM_EV_FAULT, fault->va, info, ~0ull);
		}
	}
	ga10x_intr_raise(g, GA10X_INTR_REPLAYABLE_FAULT);
}

/*
 * Replays and cancels. A replay releases every stalled uTLB, and the SMs
 * re-execute their accesses (ga10x_sm_replay()); a cancel releases
 * the ones it names, and the launch whose stalled accesses it names fails
 * (ga10x_sm_cancel()).
 */
void ga10x_fault_replay(struct gm_gpu *g, const struct ga10x_replay *r)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	uint32_t n = f->nstalled, entries = f->faults_since_replay;
	unsigned int i, c;

	switch (r->type) {
	case REPLAY_START:
	case REPLAY_START_ACK_ALL:
		memset(f->stalled, 0, sizeof(f->stalled));
		f->nstalled = 0;
		f->faults_since_replay = 0;
		f->last_replay = r->type;
		f->ack_all_pending = r->type == REPLAY_START_ACK_ALL && n;
		g->st.replays++;
		gm_event(g, GM_EV_REPLAY, n, r->type, 0);
		ga10x_sm_replay(g, entries);
		return;
	case REPLAY_CANCEL_TARGETED:
		if (r->gpc >= GA10X_FAULT_GPCS || r->client >= GA10X_FAULT_CLIENTS) {
			gm_error(g, EMGPU_ERR_BAD_VALUE, r->gpc << 8 | r->client);
			return;
		}
		unstall(f, r->gpc, r->client);
		break;
	case REPLAY_CANCEL_VA_GLOBAL:
		/* the SMs' accesses are the graphics engine's, VEID 0: a
		 * cancel naming another engine names none of them */
		if (r->mmu_engine_id != ga10x_state(g)->arch->mmu_eng_graphics)
			break;
		/* fall through */
	case REPLAY_CANCEL_GLOBAL:
		/*
		 * Every stalled uTLB of the instance (global) or with an
		 * access to the VA (VA-global): the model's one launch holds
		 * every stalled uTLB, so all are released.
		 */
		for (i = 0; i < GA10X_FAULT_GPCS; i++)
			for (c = 0; c < GA10X_FAULT_CLIENTS; c++)
				unstall(f, i, c);
		break;
	default:
		gm_error(g, EMGPU_ERR_BAD_VALUE, r->type);
		return;
	}
	f->cancels++;
	g->st.cancels++;
	gm_event(g, GM_EV_CANCEL, r->type,
		 r->type == REPLAY_CANCEL_VA_GLOBAL ? r->va : r->inst,
		 (uint64_t)(n - f->nstalled) << 32 | r->gpc << 8 | r->client);
	ga10x_sm_cancel(g, r);
}

/* ---- access-counter buffer ---- */

/*
 * Lockstep: notifications handed to the driver and not yet serviced,
 * those of a notification stop or those the launch ended with.
 */
static int ac_awaited(const struct gm_gpu *g)
{
	const struct gm_ga10x *nv = ga10x_state(g);

	return nv->sm.wait == GA10X_WAIT_AC_GET || nv->faults.ac_tail;
}

/* Lockstep: nvidia-uvm has serviced the notifications handed to it. */
static void ac_hand_back(struct gm_gpu *g)
{
	struct gm_ga10x *nv = ga10x_state(g);

	nv->faults.ac_drained = 0;
	nv->faults.ac_tail = 0;
	if (nv->sm.wait == GA10X_WAIT_AC_GET)
		gm_sm_hand_back(g);
}

static void ac_write_get(struct gm_gpu *g, uint32_t v)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	int rewrite;

	if (v >= f->ac.size) {
		gm_error(g, EMGPU_ERR_BAD_INDEX, GA10X_REG_AC_BUF_GET);
		return;
	}
	rewrite = v == f->ac.get;
	f->ac.get = v;
	if (f->ac.get != f->ac.pub)
		ga10x_intr_raise(g, GA10X_INTR_ACCESS_COUNTER);
	/* lockstep: every notification handed off is fetched; serviced once
	 * GET is written again as it is (or at the next PUT read) */
	if (ac_awaited(g) && f->ac.get == f->ac.pub) {
		if (f->ac_drained && rewrite)
			ac_hand_back(g);
		else
			f->ac_drained = 1;
	}
}

static uint32_t ac_full_reg(const struct ga10x_faults *f)
{
	uint32_t v = C365_INFO_PUSHED | f->ac_info;	/* written entries are in memory */

	if (f->ac.size >= RING_MIN_ENTRIES && ring_full(&f->ac))
		v |= C365_INFO_FULL;
	return v;
}

/* Threshold and MIMC granularity are the counters' own (reset: 256, 2 MiB). */
static uint32_t ac_config_reg(const struct gm_gpu *g)
{
	const uint32_t own = C365_CONFIG_THRESHOLD_MASK | C365_CONFIG_MIMC_GRAN_MASK;

	return (ga10x_state(g)->faults.ac_config & ~own) | (g->ac_config & own);
}

/*
 * CONFIG also drives the model's counters (counters.c): threshold and the
 * MIMC granularity, which it supports up to 16 MiB.
 */
static void ac_write_config(struct gm_gpu *g, uint32_t v)
{
	uint32_t gran = (v & C365_CONFIG_MIMC_GRAN_MASK) >>
			C365_CONFIG_MIMC_GRAN_SHIFT;

	if ((v & ~C365_CONFIG_VALID_MASK) || !(v & C365_CONFIG_THRESHOLD_MASK) ||
	    gran == C365_GRAN_16G) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, GA10X_REG_AC_CONFIG);
		return;
	}
	ga10x_state(g)->faults.ac_config = v;
	gm_ac_set_config(g, (v & C365_CONFIG_THRESHOLD_MASK) |
			 gran << EMGPU_AC_CONFIG_GRAN_SHIFT);
}

int ga10x_ac_notify(struct gm_gpu *g, const struct ga10x_ac_entry *n)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	struct c365_notify d = {
		.type = n->type,
		.addr_type = n->addr_type,
		.bank = n->bank,
		.aperture = n->aperture,
		.inst_aperture = (uint32_t)(n->inst & GA10X_BASE_APERTURE_MASK),
		.inst = n->inst & ~0xfffull,
		.addr = n->addr,
		.sub_granularity = n->sub_granularity,
		.notify_tag = n->tag,
		.counter_val = n->counter,
		.mmu_engine_id = n->mmu_engine_id,
		.valid = 1,
	};
	struct c365_entry ent;
	int rc;

	if (gm_inject_check(g, GM_INJ_NOTIFY_DROP, n->addr, 1))
		return 0;
	if (gm_inject_check(g, GM_INJ_NOTIFY_CORRUPT, n->addr, 1)) {
		d.addr ^= 0x5a5a5000ull | 1;	/* as counters.c garbles them */
		d.notify_tag = C365_W5_NOTIFY_TAG_MASK;
	}
	c365_encode(&d, &ent);
	rc = ring_push(g, &f->ac, &ent);
	if (rc < 0) {
		f->ac_info |= C365_INFO_WRITE_NACK;
		gm_error(g, -rc, f->ac.put);
		return rc;
	}
	if (rc > 0) {
		g->st.notify_overflows++;
		gm_event(g, GM_EV_OVERFLOW, d.addr, d.notify_tag, 1);
		return 1;
	}
	g->st.notifications++;
	gm_event(g, GM_EV_NOTIFY, d.addr, d.notify_tag, d.counter_val);
	if (gm_inject_check(g, GM_INJ_NOTIFY_DUP, n->addr, 1) &&
	    ring_push(g, &f->ac, &ent) == 0) {
		g->st.notifications++;
		gm_event(g, GM_EV_NOTIFY, d.addr, d.notify_tag, ~0ull);
	}
	ga10x_intr_raise(g, GA10X_INTR_ACCESS_COUNTER);
	return 0;
}

/*
 * Clears, as MEM_OP_D ACCESS_COUNTER_CLR names them. The model's counters
 * (counters.c) count this GPU's accesses to sysmem, MIMC in NVIDIA's terms,
 * and a notification's tag is its counter's index: MIMC and ALL clear them
 * all, a targeted MIMC clear the tagged one; there are no MOMC counters.
 * Every clear is one GM_EV_AC_CLEAR event (gm_ac_clear() logs the
 * targeted one it performs).
 */
void ga10x_ac_clear(struct gm_gpu *g, const struct ga10x_ac_clear *c)
{
	switch (c->type) {
	case AC_CLR_ALL:
	case AC_CLR_MIMC:
		gm_ac_reset(g);
		break;
	case AC_CLR_MOMC:
		break;
	case AC_CLR_TARGETED:
		if (c->targeted_type > AC_CLR_TARGETED_MOMC) {
			gm_error(g, EMGPU_ERR_BAD_VALUE, c->targeted_type);
			return;
		}
		/* a tag no counter holds (a stale or garbled one) clears nothing */
		if (c->targeted_type == AC_CLR_TARGETED_MIMC &&
		    c->tag < g->prof.num_access_counters && g->ctr[c->tag].used) {
			gm_ac_clear(g, EMGPU_AC_CLEAR_TARGETED, c->tag);
			return;
		}
		break;
	default:
		gm_error(g, EMGPU_ERR_BAD_VALUE, c->type);
		return;
	}
	gm_event(g, GM_EV_AC_CLEAR, c->type | c->targeted_type << 4 | c->bank << 8,
		 c->tag, 1);
}

/* ---- lockstep hand-offs ---- */

/*
 * gm_run()'s stop hands these rings to the driver: their PUT moves to the
 * entries written, and their held leaf bits are sent. A stop for a fault
 * batch publishes the fault buffer only, one for notifications the
 * notification buffer only: entries of the other kind wait for their own
 * stop, so a driver cannot answer a batch (a replay) before the device
 * has handed it off, and then wait for nothing.
 */
void ga10x_publish(struct gm_gpu *g, uint32_t what)
{
	const struct ga10x_sm *sm = &ga10x_state(g)->sm;
	struct ga10x_faults *f = &ga10x_state(g)->faults;
	uint32_t send = f->intr_held & ~(GA10X_INTR_REPLAYABLE_FAULT |
					 GA10X_INTR_ACCESS_COUNTER);
	int rc;

	if (what & GA10X_PUBLISH_FAULTS) {
		rc = ring_publish(g, &f->fb);
		if (rc < 0)
			gm_error(g, -rc, f->fb.pub);
		send |= f->intr_held & GA10X_INTR_REPLAYABLE_FAULT;
	}
	if (what & GA10X_PUBLISH_NOTIFY) {
		rc = ring_publish(g, &f->ac);
		if (rc < 0)
			gm_error(g, -rc, f->ac.pub);
		send |= f->intr_held & GA10X_INTR_ACCESS_COUNTER;
		/* the launch's end: what it leaves unread is awaited too */
		if (g->launch_status != EMGPU_LAUNCH_RUNNING && f->ac.get != f->ac.pub) {
			f->ac_tail = 1;
			f->ac_drained = 0;
		}
	}
	f->intr_held &= ~send;
	if (send)
		ga10x_intr_raise(g, send);
	/* a hand-off the driver cannot answer is no wait: nothing to read
	 * (notifications dropped on a full ring), or no fault buffer */
	if (sm->wait == GA10X_WAIT_AC_GET && (what & GA10X_PUBLISH_NOTIFY) &&
	    f->ac.get == f->ac.pub)
		ac_hand_back(g);
	if (sm->wait == GA10X_WAIT_REPLAY && (what & GA10X_PUBLISH_FAULTS) &&
	    !ring_live(g, &f->fb))
		gm_sm_hand_back(g);
}

int ga10x_ac_counting(const struct gm_gpu *g)
{
	return !!(ga10x_state(g)->faults.ac.ctrl & EMGPU_RING_ENABLE);
}

/* ---- registers ---- */

int ga10x_faults_reg_read(struct gm_gpu *g, uint32_t off, uint32_t *v)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;

	switch (off) {
	case GA10X_REG_INTR_LEAF: *v = f->intr_pending; return 0;
	case GA10X_REG_INTR_EN: *v = f->intr_enable; return 0;

	case GA10X_REG_FAULT_BUF_LO: *v = (uint32_t)f->fb.base | f->fb.aperture; return 0;
	case GA10X_REG_FAULT_BUF_HI: *v = (uint32_t)(f->fb.base >> 32); return 0;
	case GA10X_REG_FAULT_BUF_SIZE: *v = f->fb.size; return 0;
	case GA10X_REG_FAULT_BUF_GET: *v = f->fb.get | f->fb_status; return 0;
	case GA10X_REG_FAULT_BUF_PUT: *v = f->fb.pub | f->fb_status; return 0;
	/* nvidia-uvm never reads INFO (deprecated: Volta+ report overflow in
	 * GET and PUT); the stand-in may, and sees the same status bits */
	case GA10X_REG_FAULT_BUF_INFO: *v = f->fb_status; return 0;
	case GA10X_REG_PAGE_FAULT_CTRL: *v = f->page_fault_ctrl; return 0;
	case GA10X_REG_FAULT_BUF_CTRL: *v = f->fb.ctrl; return 0;

	case GA10X_REG_AC_BUF_LO: *v = (uint32_t)f->ac.base | f->ac.aperture; return 0;
	case GA10X_REG_AC_BUF_HI: *v = (uint32_t)(f->ac.base >> 32); return 0;
	case GA10X_REG_AC_BUF_SIZE: *v = f->ac.size; return 0;
	case GA10X_REG_AC_BUF_GET: *v = f->ac.get; return 0;
	case GA10X_REG_AC_BUF_PUT:
		/* lockstep: a fetch that finds nothing new ends the service */
		if (ac_awaited(g) && f->ac_drained && f->ac.get == f->ac.pub)
			ac_hand_back(g);
		*v = f->ac.pub;
		return 0;
	case GA10X_REG_AC_BUF_FULL: *v = ac_full_reg(f); return 0;
	case GA10X_REG_AC_CONFIG: *v = ac_config_reg(g); return 0;
	case GA10X_REG_AC_CTRL: *v = f->ac.ctrl | (f->ac_tail ? GA10X_AC_CTRL_BUSY : 0); return 0;

	/* write-only: read as 0 and flag the bug, as emgpu's own */
	case GA10X_REG_INTR_EN_SET:
	case GA10X_REG_INTR_EN_CLEAR:
		*v = 0;
		gm_error(g, EMGPU_ERR_BAD_REGISTER, off);
		return 0;
	}
	return -1;
}

int ga10x_faults_reg_write(struct gm_gpu *g, uint32_t off, uint32_t v)
{
	struct ga10x_faults *f = &ga10x_state(g)->faults;

	switch (off) {
	case GA10X_REG_INTR_LEAF:
	case GA10X_REG_INTR_EN_SET:
	case GA10X_REG_INTR_EN_CLEAR:
		intr_write(g, off, v);
		return 0;

	case GA10X_REG_FAULT_BUF_HI: f->fb.base_hi = v; return 0;
	case GA10X_REG_FAULT_BUF_LO: ring_write_base(g, &f->fb, v, off); return 0;
	case GA10X_REG_FAULT_BUF_SIZE:
		ring_write_size(g, &f->fb, v, off, &f->fb_status);
		return 0;
	case GA10X_REG_FAULT_BUF_GET: fb_write_get(g, v); return 0;
	case GA10X_REG_PAGE_FAULT_CTRL:
		if ((v & ~C369_PAGE_FAULT_CTRL_PRF_FILTER_MASK) ||
		    (v != C369_PAGE_FAULT_CTRL_PRF_SEND_ALL &&
		     v != C369_PAGE_FAULT_CTRL_PRF_SEND_NONE)) {
			gm_error(g, EMGPU_ERR_BAD_VALUE, off);
			return 0;
		}
		f->page_fault_ctrl = v;
		return 0;
	case GA10X_REG_FAULT_BUF_CTRL: ring_write_ctrl(g, &f->fb, v, off); return 0;

	case GA10X_REG_AC_BUF_HI: f->ac.base_hi = v; return 0;
	case GA10X_REG_AC_BUF_LO: ring_write_base(g, &f->ac, v, off); return 0;
	case GA10X_REG_AC_BUF_SIZE:
		ring_write_size(g, &f->ac, v, off, &f->ac_info);
		return 0;
	case GA10X_REG_AC_BUF_GET: ac_write_get(g, v); return 0;
	case GA10X_REG_AC_CONFIG: ac_write_config(g, v); return 0;
	case GA10X_REG_AC_CTRL: ring_write_ctrl(g, &f->ac, v, off); return 0;

	/* read-only */
	case GA10X_REG_INTR_EN:
	case GA10X_REG_FAULT_BUF_PUT:
	case GA10X_REG_FAULT_BUF_INFO:
	case GA10X_REG_AC_BUF_PUT:
	case GA10X_REG_AC_BUF_FULL:
		gm_error(g, EMGPU_ERR_BAD_REGISTER, off);
		return 0;
	}
	return -1;
}
