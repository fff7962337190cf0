/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: host methods of class c56f and the software class
 * c076 (include/ga10x/host_c56f.h), as nvidia-uvm's Ampere HAL emits them;
 * in GH100 those of c86f, which widens SEM_ADDR_HI and MEM_OP_A's
 * CANCEL_MMU_ENGINE_ID (struct ga10x_arch; include/gh100/host_c86f.h).
 *
 * Semaphores: SEM_EXECUTE takes the address and payload the SEM_* methods
 * staged. A release writes the payload (4 or 8 bytes), with
 * RELEASE_TIMESTAMP 16 bytes: payload, zero upper word for a 32-bit
 * payload, then the ns at which the channel's work so far completes. An
 * acquire compares memory with the payload; not yet satisfied, the channel
 * blocks on this method and the scheduler retries it. Every write before
 * is already complete, so WFI and MEMBAR order nothing here. MEM_OP_D
 * executes the MEM_OP_A-C staged before it: TLB invalidates go to the MMU
 * unit, replays and cancels and access-counter clears to the fault unit.
 */
#include "../internal.h"
#include "ga10x.h"
#include "ga10x/ce_c7b5.h"
#include "ga10x/host_c56f.h"

/* A MEM_OP_C/D PDB (or instance pointer) as GA10X_REG_CHAN_PDB holds one. */
static uint64_t mem_op_pdb(uint32_t c, uint32_t d)
{
	unsigned int ap = c >> C56F_MEM_OP_C_PDB_APERTURE_SHIFT &
			  C56F_MEM_OP_C_PDB_APERTURE_MASK;

	/* one sysmem in this model: non-coherent is the same memory */
	if (ap == C56F_MEM_OP_C_PDB_APERTURE_SYS_MEM_NONCOHERENT)
		ap = C56F_MEM_OP_C_PDB_APERTURE_SYS_MEM_COHERENT;
	return (uint64_t)(d & C56F_MEM_OP_D_PDB_ADDR_HI_MASK) << 32 |
	       (c & (C56F_MEM_OP_C_PDB_ADDR_LO_MASK << C56F_MEM_OP_C_PDB_ADDR_LO_SHIFT)) |
	       ap;
}

static uint64_t mem_op_va(uint32_t a, uint32_t b)
{
	return (uint64_t)b << 32 |
	       (a & (C56F_MEM_OP_A_TARGET_ADDR_LO_MASK << C56F_MEM_OP_A_TARGET_ADDR_LO_SHIFT));
}

static int mem_op_tlb(struct gm_gpu *g, const struct ga10x_host_state *h,
		      uint32_t d, int targeted)
{
	uint32_t replay = h->mem_op_c >> C56F_MEM_OP_C_REPLAY_SHIFT &
			  C56F_MEM_OP_C_REPLAY_MASK;
	struct ga10x_replay r = { .type = replay };
	uint64_t va = 0, end = ~0ull;

	switch (replay) {
	case C56F_MEM_OP_C_REPLAY_NONE:
		if (targeted) {
			unsigned int shift = 12 + (h->mem_op_a &
					  C56F_MEM_OP_A_INVALIDATION_SIZE_MASK);

			va = mem_op_va(h->mem_op_a, h->mem_op_b);
			if (shift < 64) {
				/* the aligned block of 4K << size holding va */
				va &= ~((1ull << shift) - 1);
				end = va + (1ull << shift);
				if (end < va)
					end = ~0ull;
			} else {
				va = 0;
			}
		}
		ga10x_tlb_invalidate(g, !!(h->mem_op_c & C56F_MEM_OP_C_PDB_ALL),
				     mem_op_pdb(h->mem_op_c, d), va, end);
		return GA10X_MTHD_DONE;
	case C56F_MEM_OP_C_REPLAY_START:
	case C56F_MEM_OP_C_REPLAY_START_ACK_ALL:
		break;
	case C56F_MEM_OP_C_REPLAY_CANCEL_TARGETED:
		r.gpc = h->mem_op_a >> C56F_MEM_OP_A_CANCEL_GPC_ID_SHIFT &
			C56F_MEM_OP_A_CANCEL_GPC_ID_MASK;
		r.client = h->mem_op_a & C56F_MEM_OP_A_CANCEL_CLIENT_UNIT_ID_MASK;
		r.inst = mem_op_pdb(h->mem_op_c, d);
		break;
	case C56F_MEM_OP_C_REPLAY_CANCEL_GLOBAL:
		r.inst = mem_op_pdb(h->mem_op_c, d);
		break;
	case C56F_MEM_OP_C_REPLAY_CANCEL_VA_GLOBAL:
		r.va = mem_op_va(h->mem_op_a, h->mem_op_b);
		r.access_type = h->mem_op_c >> C56F_MEM_OP_C_ACCESS_TYPE_SHIFT &
				C56F_MEM_OP_C_ACCESS_TYPE_MASK;
		r.pdb = mem_op_pdb(h->mem_op_c, d);
		r.mmu_engine_id = h->mem_op_a &
				  ga10x_state(g)->arch->cancel_eng_id_mask;
		break;
	default:
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
	ga10x_fault_replay(g, &r);
	return GA10X_MTHD_DONE;
}

static int mem_op_d(struct gm_gpu *g, struct ga10x_chan *c, uint32_t d)
{
	const struct ga10x_host_state *h = &c->host;
	struct ga10x_ac_clear ac;

	switch (d >> C56F_MEM_OP_D_OPERATION_SHIFT & C56F_MEM_OP_D_OPERATION_MASK) {
	case C56F_MEM_OP_D_OPERATION_MEMBAR:
	case C56F_MEM_OP_D_OPERATION_L2_PEERMEM_INVALIDATE:
	case C56F_MEM_OP_D_OPERATION_L2_SYSMEM_INVALIDATE:
	case C56F_MEM_OP_D_OPERATION_L2_CLEAN_COMPTAGS:
	case C56F_MEM_OP_D_OPERATION_L2_FLUSH_DIRTY:
	case C56F_MEM_OP_D_OPERATION_L2_WAIT_FOR_SYS_PENDING_READS:
		return GA10X_MTHD_DONE;	/* no cache holds anything back */
	case C56F_MEM_OP_D_OPERATION_MMU_TLB_INVALIDATE:
		return mem_op_tlb(g, h, d, 0);
	case C56F_MEM_OP_D_OPERATION_MMU_TLB_INVALIDATE_TARGETED:
		return mem_op_tlb(g, h, d, 1);
	case C56F_MEM_OP_D_OPERATION_ACCESS_COUNTER_CLR:
		ac.type = d & C56F_MEM_OP_D_AC_CLR_TYPE_MASK;
		ac.targeted_type = !!(d & C56F_MEM_OP_D_AC_CLR_TARGETED_TYPE_MOMC);
		ac.bank = d >> C56F_MEM_OP_D_AC_CLR_TARGETED_BANK_SHIFT &
			  C56F_MEM_OP_D_AC_CLR_TARGETED_BANK_MASK;
		ac.tag = h->mem_op_c & C56F_MEM_OP_C_AC_CLR_TARGETED_NOTIFY_TAG_MASK;
		ga10x_ac_clear(g, &ac);
		return GA10X_MTHD_DONE;
	default:
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
}

static int acquire_met(uint32_t op, uint64_t mem, uint64_t payload, int wide)
{
	uint64_t mask = wide ? ~0ull : 0xffffffffull;

	mem &= mask;
	payload &= mask;
	switch (op) {
	case C56F_SEM_EXECUTE_OPERATION_ACQUIRE:
		return mem == payload;
	case C56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ:
		return mem >= payload;
	case C56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ:
		/* mem is at or past payload, modulo wrap-around */
		return wide ? (int64_t)(mem - payload) >= 0 :
			      (int32_t)(uint32_t)(mem - payload) >= 0;
	case C56F_SEM_EXECUTE_OPERATION_ACQ_AND:
		return (mem & payload) != 0;
	default:	/* ACQ_NOR */
		return (~(mem | payload) & mask) != 0;
	}
}

/* A reduction of class c56f or c7b5 (their codes are the same). */
int ga10x_sem_reduce(uint32_t op, int is_signed, int wide, uint64_t mem,
		     uint64_t payload, uint64_t *out)
{
	uint64_t mask = wide ? ~0ull : 0xffffffffull;
	int64_t sm = wide ? (int64_t)mem : (int32_t)(uint32_t)mem;
	int64_t sp = wide ? (int64_t)payload : (int32_t)(uint32_t)payload;
	uint64_t v;

	mem &= mask;
	payload &= mask;
	switch (op) {
	case C56F_SEM_EXECUTE_REDUCTION_IMIN:
		v = is_signed ? (uint64_t)(sm < sp ? sm : sp) :
				(mem < payload ? mem : payload);
		break;
	case C56F_SEM_EXECUTE_REDUCTION_IMAX:
		v = is_signed ? (uint64_t)(sm > sp ? sm : sp) :
				(mem > payload ? mem : payload);
		break;
	case C56F_SEM_EXECUTE_REDUCTION_IXOR:	v = mem ^ payload; break;
	case C56F_SEM_EXECUTE_REDUCTION_IAND:	v = mem & payload; break;
	case C56F_SEM_EXECUTE_REDUCTION_IOR:	v = mem | payload; break;
	case C56F_SEM_EXECUTE_REDUCTION_IADD:	v = mem + payload; break;
	case C56F_SEM_EXECUTE_REDUCTION_INC:	/* wraps to 0 past payload */
		v = mem >= payload ? 0 : mem + 1;
		break;
	case C56F_SEM_EXECUTE_REDUCTION_DEC:	/* wraps to payload at 0 */
		v = (mem == 0 || mem > payload) ? payload : mem - 1;
		break;
	default:
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
	*out = v & mask;
	return 0;
}

static int sem_execute(struct gm_gpu *g, struct ga10x_chan *c, uint32_t d)
{
	const struct ga10x_host_state *h = &c->host;
	uint32_t op = d & C56F_SEM_EXECUTE_OPERATION_MASK;
	int wide = !!(d & C56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT);
	unsigned int size = wide ? 8 : 4;
	uint64_t va = (uint64_t)(h->sem_addr_hi &
				 ga10x_state(g)->arch->sem_addr_hi_mask) << 32 |
		      (h->sem_addr_lo & C56F_SEM_ADDR_LO_MASK);
	uint64_t payload = (uint64_t)h->sem_payload_hi << 32 | h->sem_payload_lo;
	uint8_t buf[C56F_SEM_TIMESTAMP_SIZE];
	uint64_t mem, v;
	int r;

	if (va & (size - 1))
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	if (op == C56F_SEM_EXECUTE_OPERATION_RELEASE) {
		ga10x_put_le(buf, payload, 8);
		if (!(d & C56F_SEM_EXECUTE_RELEASE_TIMESTAMP_EN))
			return ga10x_chan_write(g, c, va, buf, size);
		if (va & (C56F_SEM_TIMESTAMP_SIZE - 1))
			return -EMGPU_ERR_BAD_DESCRIPTOR;
		if (!wide)
			ga10x_put_le(buf + 4, 0, 4);
		ga10x_put_le(buf + C56F_SEM_TIMESTAMP_OFFSET,
			     ga10x_chan_now(g, c) / GM_PS_PER_NS, 8);
		return ga10x_chan_write(g, c, va, buf, sizeof(buf));
	}
	if (op > C56F_SEM_EXECUTE_OPERATION_REDUCTION)
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	r = ga10x_chan_read(g, c, va, buf, size);
	if (r)
		return r;
	mem = ga10x_get_le(buf, size);
	if (op != C56F_SEM_EXECUTE_OPERATION_REDUCTION)
		return acquire_met(op, mem, payload, wide) ? GA10X_MTHD_DONE :
							     GA10X_MTHD_BLOCKED;
	r = ga10x_sem_reduce(d >> C56F_SEM_EXECUTE_REDUCTION_SHIFT &
			     C56F_SEM_EXECUTE_REDUCTION_MASK,
			     !(d & C56F_SEM_EXECUTE_REDUCTION_FORMAT_UNSIGNED),
			     wide, mem, payload, &v);
	if (r)
		return r;
	ga10x_put_le(buf, v, 8);
	return ga10x_chan_write(g, c, va, buf, size);
}

static int set_object(struct gm_gpu *g, struct ga10x_chan *c, uint32_t subch,
		      uint32_t d)
{
	uint32_t cls = d & C56F_SET_OBJECT_NVCLASS_MASK;

	/* subchannels 0-4 hold the channel's engine, 5-7 software objects */
	if (subch >= C56F_SW_SUBCH_FIRST ? cls != GP100_UVM_SW_CLASS :
	    (ga10x_chan_ce(c) < 0 || cls != ga10x_state(g)->arch->ce_class))
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	c->subch_class[subch] = cls;
	return GA10X_MTHD_DONE;
}

int ga10x_host_method(struct gm_gpu *g, struct ga10x_chan *c, uint32_t subch,
		      uint32_t method, uint32_t data)
{
	struct ga10x_host_state *h = &c->host;

	switch (method) {
	case C56F_SET_OBJECT:
		return set_object(g, c, subch, data);
	case C56F_NOP:
	case C56F_WFI:
	case C56F_FB_FLUSH:
	case C56F_SET_REFERENCE:
	case C56F_YIELD:
		return GA10X_MTHD_DONE;
	case C56F_CLEAR_FAULTED:	/* no channel keeps a faulted state */
		return GA10X_MTHD_DONE;
	case C56F_NON_STALL_INTERRUPT:
		ga10x_intr_raise(g, GA10X_INTR_NONSTALL);
		return GA10X_MTHD_DONE;
	case C56F_MEM_OP_A:
		h->mem_op_a = data;
		return GA10X_MTHD_DONE;
	case C56F_MEM_OP_B:
		h->mem_op_b = data;
		return GA10X_MTHD_DONE;
	case C56F_MEM_OP_C:
		h->mem_op_c = data;
		return GA10X_MTHD_DONE;
	case C56F_MEM_OP_D:
		return mem_op_d(g, c, data);
	case C56F_SEM_ADDR_LO:
		h->sem_addr_lo = data;
		return GA10X_MTHD_DONE;
	case C56F_SEM_ADDR_HI:
		h->sem_addr_hi = data;
		return GA10X_MTHD_DONE;
	case C56F_SEM_PAYLOAD_LO:
		h->sem_payload_lo = data;
		return GA10X_MTHD_DONE;
	case C56F_SEM_PAYLOAD_HI:
		h->sem_payload_hi = data;
		return GA10X_MTHD_DONE;
	case C56F_SEM_EXECUTE:
		return sem_execute(g, c, data);
	default:
		/* ILLEGAL, the legacy SEMAPHOREA-D (no Ampere HAL emits them),
		 * QUADRO_VERIFY, and offsets the class does not have */
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
}

int ga10x_sw_method(struct gm_gpu *g, struct ga10x_chan *c, uint32_t method,
		    uint32_t data)
{
	struct ga10x_host_state *h = &c->host;
	struct ga10x_replay r = { 0 };
	uint32_t mode;

	switch (method) {
	case C076_NO_OPERATION:
		return GA10X_MTHD_DONE;
	case C076_FAULT_CANCEL_A:
		h->cancel_a = data;
		return GA10X_MTHD_DONE;
	case C076_FAULT_CANCEL_B:
		h->cancel_b = data;
		return GA10X_MTHD_DONE;
	case C076_FAULT_CANCEL_C:
		mode = data >> C076_FAULT_CANCEL_C_MODE_SHIFT &
		       C076_FAULT_CANCEL_C_MODE_MASK;
		r.inst = (uint64_t)h->cancel_b << 32 |
			 (h->cancel_a & C076_INST_LOW_MASK) |
			 (h->cancel_a & C076_INST_APERTURE_MASK);
		if (mode == C076_FAULT_CANCEL_C_MODE_GLOBAL) {
			r.type = C56F_MEM_OP_C_REPLAY_CANCEL_GLOBAL;
		} else if (mode == C076_FAULT_CANCEL_C_MODE_TARGETED) {
			r.type = C56F_MEM_OP_C_REPLAY_CANCEL_TARGETED;
			r.gpc = data >> C076_FAULT_CANCEL_C_GPC_ID_SHIFT &
				C076_FAULT_CANCEL_C_GPC_ID_MASK;
			r.client = data & C076_FAULT_CANCEL_C_CLIENT_ID_MASK;
		} else {
			return -EMGPU_ERR_BAD_DESCRIPTOR;
		}
		ga10x_fault_replay(g, &r);
		return GA10X_MTHD_DONE;
	case C076_CLEAR_FAULTED_A:
		h->clear_faulted_a = data;
		return GA10X_MTHD_DONE;
	case C076_CLEAR_FAULTED_B:
		/* clears a channel's faulted bit after a non-replayable fault;
		 * channels here never keep one (a fault is an RC) */
		return GA10X_MTHD_DONE;
	default:
		return -EMGPU_ERR_BAD_DESCRIPTOR;
	}
}
