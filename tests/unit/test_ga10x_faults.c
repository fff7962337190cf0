/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: C369 fault entries and C365 notifications against
 * words computed by hand from NVIDIA's field definitions (clc369.h,
 * clc365.h), and the fault buffer, access-counter buffer and interrupt
 * leaf through the register interface as nvidia-uvm's Ampere HAL drives
 * them. Faults and notifications are reported through the units' internal
 * calls (no SM path reports them yet).
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "ga10x/access_counter_c365.h"
#include "ga10x/fault_c369.h"
#include "../../models/src/internal.h"
#include "../../models/src/ga10x/ga10x.h"

#define FT_SYS_SIZE	(1u << 20)
#define FT_FB		0x10000u	/* fault buffer in sysmem */
#define FT_AC		0x20000u	/* notification buffer in sysmem */
#define FT_FB_LO	(FT_FB | GA10X_BASE_APERTURE_SYSMEM)
#define FT_AC_LO	(FT_AC | GA10X_BASE_APERTURE_SYSMEM)

struct ft {
	struct gm_gpu *g;
	uint8_t *sys;
	struct gmt_flat flat;
	unsigned int msix;		/* GA10X_MSIX_VECTOR messages */
	unsigned int other_irqs;
	unsigned int errors;
	uint32_t last_error, last_error_info;
	unsigned int ev[GM_EV_OVERFLOW + 1];	/* events by type */
};

static int ft_dma_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
	return gmt_flat_dma_read(&((struct ft *)opaque)->flat, addr, buf, len);
}

static int ft_dma_write(void *opaque, uint64_t addr, const void *buf,
			uint64_t len)
{
	return gmt_flat_dma_write(&((struct ft *)opaque)->flat, addr, buf, len);
}

static void ft_irq(void *opaque, unsigned int vector)
{
	struct ft *t = opaque;

	if (vector == GA10X_MSIX_VECTOR)
		t->msix++;
	else
		t->other_irqs++;
}

static void ft_error(void *opaque, enum emgpu_error code, uint32_t info)
{
	struct ft *t = opaque;

	t->errors++;
	t->last_error = code;
	t->last_error_info = info;
}

static void ft_event(void *opaque, unsigned int type, uint64_t a, uint64_t b,
		     uint64_t c)
{
	struct ft *t = opaque;

	(void)a; (void)b; (void)c;
	if (type <= GM_EV_OVERFLOW)
		t->ev[type]++;
}

static struct ft *ft_new(void)
{
	struct ft *t = calloc(1, sizeof(*t));
	struct gm_callbacks cb = { .dma_read = ft_dma_read,
				   .dma_write = ft_dma_write, .irq = ft_irq,
				   .event = ft_event, .error = ft_error };
	struct gm_config cfg = { .personality = GM_PERSONALITY_GA10X,
				 .seed = 1, .lockstep = 1 };

	if (!t || gm_profile_lookup("h200-256m", &cfg.profile))
		abort();
	t->sys = calloc(1, FT_SYS_SIZE);
	t->flat = (struct gmt_flat){ .mem = t->sys, .size = FT_SYS_SIZE };
	cb.opaque = t;
	t->g = gm_create(&cfg, &cb);
	if (!t->sys || !t->g)
		abort();
	return t;
}

static void ft_free(struct ft *t)
{
	gm_destroy(t->g);
	free(t->sys);
	free(t);
}

static uint32_t rd(struct ft *t, uint32_t off)
{
	return gm_reg_read(t->g, off);
}

static void wr(struct ft *t, uint32_t off, uint32_t v)
{
	gm_reg_write(t->g, off, v);
}

/* The stand-in's set-up: an enabled fault buffer of `entries`, leaf enabled. */
static void ft_fault_buffer(struct ft *t, uint32_t entries)
{
	wr(t, GA10X_REG_FAULT_BUF_HI, 0);
	wr(t, GA10X_REG_FAULT_BUF_LO, FT_FB_LO);
	wr(t, GA10X_REG_FAULT_BUF_SIZE, entries);
	wr(t, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
	wr(t, GA10X_REG_INTR_EN_SET, GA10X_INTR_REPLAYABLE_FAULT);
}

static void ft_ac_buffer(struct ft *t, uint32_t entries)
{
	wr(t, GA10X_REG_AC_BUF_HI, 0);
	wr(t, GA10X_REG_AC_BUF_LO, FT_AC_LO);
	wr(t, GA10X_REG_AC_BUF_SIZE, entries);
	wr(t, GA10X_REG_AC_CTRL, EMGPU_RING_ENABLE);
	wr(t, GA10X_REG_INTR_EN_SET, GA10X_INTR_ACCESS_COUNTER);
}

static uint32_t sys_word(struct ft *t, uint64_t entry_base, uint32_t i,
			 unsigned int w)
{
	uint32_t v;

	memcpy(&v, t->sys + entry_base + 32 * i + 4 * w, 4);
	return v;	/* the test host is little-endian, as the words */
}

/* A GPC fault of VEID 3 on T1_3 of GPC 5, at va in the channel at inst. */
static struct ga10x_fault gpc_fault(uint64_t va)
{
	return (struct ga10x_fault){
		.inst = 0x1234567000ull | GA10X_BASE_APERTURE_SYSMEM,
		.va = va,
		.fault_type = C369_FAULT_TYPE_PTE,
		.access_type = C369_ACCESS_VIRT_WRITE,
		.engine_id = C369_MMU_ENG_ID_GRAPHICS + 3,
		.client_type = C369_MMU_CLIENT_TYPE_GPC,
		.gpc = 5,
		.client = C369_CLIENT_GPC_T1(3),
	};
}

/*
 * The words of gpc_fault(0x7fffabcde123) at time 0:
 *  w0: INST_LO 0x34567 << 12 | INST_APERTURE SYS_MEM_COHERENT (2) << 8
 *  w1: INST_HI 0x12; w2: ADDR_LO 0xabcde << 12; w3: ADDR_HI 0x7fff
 *  w6: ENGINE_ID 0x43
 *  w7: FAULT_TYPE 2 | REPLAYABLE_FAULT 1 << 7 | CLIENT 3 << 8 |
 *      ACCESS_TYPE 1 << 16 | GPC_ID 5 << 24 | REPLAYABLE_FAULT_EN 1 << 30 |
 *      VALID 1 << 31
 */
static const uint32_t gpc_fault_words[8] = {
	0x34567200u, 0x00000012u, 0xabcde000u, 0x00007fffu,
	0x00000000u, 0x00000000u, 0x00000043u, 0xc5010382u,
};

/* field by field: the structs have padding that memcmp would compare */
static int c369_same(const struct c369_fault *a, const struct c369_fault *b)
{
	return a->inst == b->inst && a->inst_aperture == b->inst_aperture &&
	       a->addr == b->addr &&
	       a->addr_phys_aperture == b->addr_phys_aperture &&
	       a->timestamp == b->timestamp && a->engine_id == b->engine_id &&
	       a->fault_type == b->fault_type && a->client == b->client &&
	       a->access_type == b->access_type &&
	       a->client_type == b->client_type && a->gpc_id == b->gpc_id &&
	       a->replayable == b->replayable &&
	       a->protected_mode == b->protected_mode &&
	       a->replayable_en == b->replayable_en && a->valid == b->valid;
}

static int c365_same(const struct c365_notify *a, const struct c365_notify *b)
{
	return a->type == b->type && a->addr_type == b->addr_type &&
	       a->bank == b->bank && a->aperture == b->aperture &&
	       a->inst_aperture == b->inst_aperture && a->inst == b->inst &&
	       a->addr == b->addr && a->sub_granularity == b->sub_granularity &&
	       a->notify_tag == b->notify_tag &&
	       a->counter_val == b->counter_val && a->peer_id == b->peer_id &&
	       a->mmu_engine_id == b->mmu_engine_id && a->valid == b->valid;
}

static void test_c369_words(void)
{
	struct c369_fault f = {
		.inst = 0x1234567000ull,
		.inst_aperture = C369_APERTURE_SYS_MEM_COHERENT,
		.addr = 0x7fffabcde000ull,
		.timestamp = 0x1122334455667788ull,
		.engine_id = C369_MMU_ENG_ID_GRAPHICS + 3,
		.fault_type = C369_FAULT_TYPE_PTE,
		.client = C369_CLIENT_GPC_T1(3),
		.access_type = C369_ACCESS_VIRT_WRITE,
		.client_type = C369_MMU_CLIENT_TYPE_GPC,
		.gpc_id = 5,
		.replayable = 1, .replayable_en = 1, .valid = 1,
	}, d;
	struct c369_entry e;
	unsigned int i;

	c369_encode(&f, &e);
	for (i = 0; i < 8; i++)
		if (i != 4 && i != 5)
			CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[i]), gpc_fault_words[i]);
	/* TIMESTAMP_LO is word 4, TIMESTAMP_HI word 5 */
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[4]), 0x55667788u);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[5]), 0x11223344u);
	c369_decode(&e, &d);
	CU_ASSERT(c369_same(&f, &d));

	/* a hub, physical, protected-mode, non-replayable fault with every
	 * field at its widest: ENGINE_ID 8:0, CLIENT 14:8, ACCESS_TYPE 19:16,
	 * MMU_CLIENT_TYPE 20, GPC_ID 28:24, PROTECTED_MODE 29 */
	memset(&f, 0, sizeof(f));
	f.inst = 0xfffffffffffff000ull;
	f.inst_aperture = C369_APERTURE_SYS_MEM_NONCOHERENT;
	f.addr = 0x1000;
	f.addr_phys_aperture = 3;
	f.engine_id = 0x1ff;
	f.fault_type = C369_FAULT_TYPE_ATOMIC_VIOLATION;
	f.client = 0x7f;
	f.access_type = C369_ACCESS_PHYS_PREFETCH;
	f.client_type = C369_MMU_CLIENT_TYPE_HUB;
	f.gpc_id = 0x1f;
	f.protected_mode = 1;
	c369_encode(&f, &e);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[0]), 0xfffff300u);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[1]), 0xffffffffu);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[2]), 0x00001003u);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[3]), 0);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[6]), 0x1ffu);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[7]), 0x3f1b7f0fu);
	c369_decode(&e, &d);
	CU_ASSERT(c369_same(&f, &d));
	/* out-of-field values do not spill into their neighbours */
	f.client = 0xff;
	f.gpc_id = 0x3f;
	c369_encode(&f, &e);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[7]), 0x3f1b7f0fu);
	/* the client ids uvm_hal_ampere_mmu_client_id_to_utlb_id() maps */
	CU_ASSERT_EQUAL(C369_CLIENT_GPC_T1(7), 0x07);
	CU_ASSERT_EQUAL(C369_CLIENT_GPC_T1(8), 0x21);
	CU_ASSERT_EQUAL(C369_CLIENT_GPC_T1(15), 0x28);
	CU_ASSERT_EQUAL(C369_CLIENT_GPC_PE(7), 0x0f);
	CU_ASSERT_EQUAL(C369_CLIENT_GPC_TPCCS(7), 0x30);
}

static void test_c365_words(void)
{
	struct c365_notify n = {
		.type = C365_TYPE_GPU, .addr_type = C365_ADDR_TYPE_GVA,
		.bank = 0xa, .inst_aperture = C365_APERTURE_VID_MEM,
		.inst = 0x100003000ull, .addr = 0x7f0000200000ull,
		.sub_granularity = 0x80000001u, .notify_tag = 0xabcde,
		.counter_val = 0x1234, .mmu_engine_id = C369_MMU_ENG_ID_GRAPHICS,
		.valid = 1,
	}, d;
	/*
	 * w0: TYPE GPU 1 | ADDR_TYPE GVA 0 << 1 | BANK 0xa << 2 |
	 *     INST_LO 0x3 << 12; w1: INST_HI 1; w2, w3: ADDR (bytes);
	 * w4: SUB_GRANULARITY; w5: NOTIFY_TAG 19:0; w6: COUNTER_VAL 15:0;
	 * w7: MMU_ENGINE_ID 64 << 20 | VALID 1 << 31
	 */
	static const uint32_t words[8] = {
		0x00003029u, 0x00000001u, 0x00200000u, 0x00007f00u,
		0x80000001u, 0x000abcdeu, 0x00001234u, 0x84000000u,
	};
	struct c365_entry e;
	unsigned int i;

	c365_encode(&n, &e);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[i]), words[i]);
	c365_decode(&e, &d);
	CU_ASSERT(c365_same(&n, &d));

	/* GPA, MOMC, peer memory: APERTURE 9:8, INST_APERTURE 11:10, PEER_ID 2:0 */
	memset(&n, 0, sizeof(n));
	n.type = C365_TYPE_CPU;
	n.addr_type = C365_ADDR_TYPE_GPA;
	n.aperture = C365_APERTURE_PEER_MEM;
	n.inst_aperture = C365_APERTURE_SYS_MEM_NONCOHERENT;
	n.bank = 0xf;
	n.peer_id = 5;
	n.mmu_engine_id = 0x1ff;
	c365_encode(&n, &e);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[0]), 0x00000d3eu);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[7]), 0x1ff00005u);
	c365_decode(&e, &d);
	CU_ASSERT(c365_same(&n, &d));
	/* NOTIFY_TAG and COUNTER_VAL keep to their widths */
	n.notify_tag = 0xffffffffu;
	n.counter_val = 0x12345;
	c365_encode(&n, &e);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[5]), 0x000fffffu);
	CU_ASSERT_EQUAL(emgpu_le32_to_cpu(e.w[6]), 0x00002345u);
}

static void test_fault_entry(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x7fffabcde123ull);
	unsigned int i;

	ft_fault_buffer(t, 4);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_LO), FT_FB_LO);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_SIZE), 4);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_EN), GA10X_INTR_REPLAYABLE_FAULT);
	ga10x_fault_report(t->g, &f);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(sys_word(t, FT_FB, 0, i), gpc_fault_words[i]);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_GET), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_INFO), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(t->msix, 1);
	/* a second fault while the bit is pending sends no second message */
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 2);
	CU_ASSERT_EQUAL(t->msix, 1);
	CU_ASSERT_EQUAL(t->g->st.faults, 2);
	CU_ASSERT_EQUAL(t->g->st.fault_entries, 2);
	CU_ASSERT_EQUAL(t->ev[GM_EV_FAULT], 2);
	CU_ASSERT_EQUAL(ga10x_state(t->g)->faults.nstalled, 1);	/* one (GPC, client) */
	CU_ASSERT_EQUAL(t->errors, 0);
	CU_ASSERT_EQUAL(t->other_irqs, 0);
	ft_free(t);
}

static void test_fault_wrap_overflow(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);
	unsigned int i;

	ft_fault_buffer(t, 4);
	for (i = 0; i < 3; i++) {
		f.va = 0x100000 + 0x1000 * i;
		ga10x_fault_report(t->g, &f);
	}
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 3);	/* full: 3 of 4 */
	f.va = 0x200000;
	ga10x_fault_report(t->g, &f);				/* dropped */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 3 | C369_BUF_OVERFLOW);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_GET), 0 | C369_BUF_OVERFLOW);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_INFO), C369_BUF_OVERFLOW);
	CU_ASSERT_EQUAL(t->g->st.fault_overflows, 1);
	CU_ASSERT_EQUAL(t->ev[GM_EV_OVERFLOW], 1);

	/* GET alone (nvidia-uvm's first write) frees room but keeps OVERFLOW,
	 * and nothing is delivered while it is set */
	wr(t, GA10X_REG_FAULT_BUF_GET, 3);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_GET), 3 | C369_BUF_OVERFLOW);
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(t->g->st.fault_overflows, 2);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 3 | C369_BUF_OVERFLOW);
	/* the second write, with the clears */
	wr(t, GA10X_REG_FAULT_BUF_GET, 3 | C369_BUF_OVERFLOW |
	   C369_BUF_GETPTR_CORRUPTED);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_GET), 3);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 3);
	/* entry 3, then PUT wraps to 0 and entry 0 is written over */
	f.va = 0x300000;
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 0);
	CU_ASSERT_EQUAL(sys_word(t, FT_FB, 3, 2), 0x00300000u);
	f.va = 0x400000;
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	CU_ASSERT_EQUAL(sys_word(t, FT_FB, 0, 2), 0x00400000u);
	CU_ASSERT_EQUAL(sys_word(t, FT_FB, 0, 7) & C369_W7_VALID, C369_W7_VALID);
	CU_ASSERT_EQUAL(sys_word(t, FT_FB, 1, 2), 0x00101000u);	/* untouched */
	CU_ASSERT_EQUAL(t->g->st.fault_entries, 5);
	CU_ASSERT_EQUAL(t->errors, 0);
	ft_free(t);
}

/* uvm_hal_turing_disable_replayable_faults(): EN_CLEAR, then clear the leaf */
static void uvm_disable(struct ft *t, uint32_t mask)
{
	wr(t, GA10X_REG_INTR_EN_CLEAR, mask);
	wr(t, GA10X_REG_INTR_LEAF, mask);
}

/* uvm_hal_turing_clear_replayable_faults() with Volta's two GET writes */
static void uvm_clear(struct ft *t, uint32_t get)
{
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_REPLAYABLE_FAULT);
	wr(t, GA10X_REG_FAULT_BUF_GET, get);
	wr(t, GA10X_REG_FAULT_BUF_GET, get | C369_BUF_GETPTR_CORRUPTED |
	   C369_BUF_OVERFLOW);
}

static void test_fault_get_reraises(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);

	ft_fault_buffer(t, 8);
	ga10x_fault_report(t->g, &f);
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(t->msix, 1);
	/* top half: disable; bottom half takes one entry, re-enables, clears */
	uvm_disable(t, GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_EN), 0);
	wr(t, GA10X_REG_INTR_EN_SET, GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(t->msix, 1);		/* nothing pending when enabled */
	uvm_clear(t, 1);			/* one entry left: pulses again */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(t->msix, 2);
	/* the last entry taken: GET == PUT, no pulse, no message */
	uvm_clear(t, 2);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), 0);
	CU_ASSERT_EQUAL(t->msix, 2);
	CU_ASSERT_EQUAL(t->errors, 0);
	ft_free(t);
}

/*
 * The trace hash is the device's: an interrupt message nvidia-uvm's
 * enabling of the leaf decides (sent again when it re-enables a pending
 * leaf) and a sysmem PDB's address (its allocator's) are not in it; the
 * callback still sees the message, and a vidmem PDB is hashed.
 */
static void test_hash_leaves_driver_timing(void)
{
	struct ft *a = ft_new(), *b = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);

	ft_fault_buffer(a, 8);
	ft_fault_buffer(b, 8);
	ga10x_fault_report(a->g, &f);
	ga10x_fault_report(b->g, &f);
	/* b's driver takes one entry with the leaf disabled: a second message */
	uvm_disable(b, GA10X_INTR_REPLAYABLE_FAULT);
	uvm_clear(b, 0);
	wr(b, GA10X_REG_INTR_EN_SET, GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(a->msix, 1);
	CU_ASSERT_EQUAL(b->msix, 2);
	CU_ASSERT_EQUAL(b->ev[GM_EV_IRQ], 2);
	CU_ASSERT_EQUAL(gm_trace_hash(a->g), gm_trace_hash(b->g));
	ga10x_tlb_invalidate(a->g, 0, 0x1250d000 | GA10X_BASE_APERTURE_SYSMEM, 0, ~0ull);
	ga10x_tlb_invalidate(b->g, 0, 0x1f506000 | GA10X_BASE_APERTURE_SYSMEM, 0, ~0ull);
	CU_ASSERT_EQUAL(gm_trace_hash(a->g), gm_trace_hash(b->g));
	ga10x_tlb_invalidate(a->g, 0, 0x200000, 0, ~0ull);
	ga10x_tlb_invalidate(b->g, 0, 0x400000, 0, ~0ull);
	CU_ASSERT_NOT_EQUAL(gm_trace_hash(a->g), gm_trace_hash(b->g));
	ft_free(a);
	ft_free(b);
}

static void test_intr_masks(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);

	ft_fault_buffer(t, 8);
	wr(t, GA10X_REG_INTR_EN_CLEAR, GA10X_INTR_ALL);
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(t->msix, 0);		/* pending, masked */
	wr(t, GA10X_REG_INTR_EN_SET, GA10X_INTR_ACCESS_COUNTER);
	CU_ASSERT_EQUAL(t->msix, 0);		/* another bit enabled */
	wr(t, GA10X_REG_INTR_EN_SET, GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(t->msix, 1);		/* pending when enabled: fires */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_EN),
			GA10X_INTR_REPLAYABLE_FAULT | GA10X_INTR_ACCESS_COUNTER);
	wr(t, GA10X_REG_INTR_EN_SET, GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(t->msix, 1);		/* already enabled */

	/* NONSTALL and CHANNEL_RC: raised by the host and fifo units, write 1
	 * to clear like every leaf bit */
	ga10x_intr_raise(t->g, GA10X_INTR_NONSTALL | GA10X_INTR_CHANNEL_RC);
	CU_ASSERT_EQUAL(t->msix, 1);		/* not enabled */
	wr(t, GA10X_REG_INTR_EN_SET, GA10X_INTR_NONSTALL);
	CU_ASSERT_EQUAL(t->msix, 2);
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_NONSTALL);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF),
			GA10X_INTR_REPLAYABLE_FAULT | GA10X_INTR_CHANNEL_RC);
	ga10x_intr_raise(t->g, GA10X_INTR_NONSTALL);
	CU_ASSERT_EQUAL(t->msix, 3);		/* cleared, so newly pending */
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_ALL);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), 0);
	CU_ASSERT_EQUAL(t->errors, 0);

	/* bits outside the leaf, write-only and read-only registers */
	wr(t, GA10X_REG_INTR_EN_SET, 1u << 5);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_INTR_EN_SET);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_EN),
			GA10X_INTR_REPLAYABLE_FAULT | GA10X_INTR_ACCESS_COUNTER |
			GA10X_INTR_NONSTALL);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_EN_CLEAR), 0);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_REGISTER);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_INTR_EN_CLEAR);
	wr(t, GA10X_REG_INTR_EN, 0);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_INTR_EN);
	CU_ASSERT_EQUAL(t->errors, 3);
	ft_free(t);
}

static void test_fault_getptr_corrupted(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);

	ft_fault_buffer(t, 4);
	ga10x_fault_report(t->g, &f);
	wr(t, GA10X_REG_FAULT_BUF_GET, 4);		/* beyond the buffer */
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_INDEX);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_FAULT_BUF_GET);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_GET), 0 | C369_BUF_GETPTR_CORRUPTED);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1 | C369_BUF_GETPTR_CORRUPTED);
	/* faults still arrive against the GET that stands */
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 2 | C369_BUF_GETPTR_CORRUPTED);
	/* PTR alone does not clear it, the clear bit does */
	wr(t, GA10X_REG_FAULT_BUF_GET, 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_GET), 1 | C369_BUF_GETPTR_CORRUPTED);
	wr(t, GA10X_REG_FAULT_BUF_GET, 1 | C369_BUF_GETPTR_CORRUPTED);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_GET), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 2);
	/* bits outside PTR and the two clears */
	wr(t, GA10X_REG_FAULT_BUF_GET, 1u << 20 | 1);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(t->errors, 2);
	/* PUT and INFO are read-only */
	wr(t, GA10X_REG_FAULT_BUF_PUT, 0);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_REGISTER);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_FAULT_BUF_PUT);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 2);
	ft_free(t);
}

static void test_prefetch_filter(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);

	ft_fault_buffer(t, 8);
	f.access_type = C369_ACCESS_VIRT_PREFETCH;
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_PAGE_FAULT_CTRL), C369_PAGE_FAULT_CTRL_PRF_SEND_ALL);
	/* nvidia-uvm's disable: read, PRF_FILTER = SEND_NONE, write */
	wr(t, GA10X_REG_PAGE_FAULT_CTRL, rd(t, GA10X_REG_PAGE_FAULT_CTRL) |
	   C369_PAGE_FAULT_CTRL_PRF_SEND_NONE);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_PAGE_FAULT_CTRL), 3);
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 0);
	CU_ASSERT_EQUAL(t->g->st.faults, 0);
	CU_ASSERT_EQUAL(ga10x_state(t->g)->faults.nstalled, 0);
	f.access_type = C369_ACCESS_VIRT_READ;		/* others still report */
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	/* enable: SEND_ALL */
	wr(t, GA10X_REG_PAGE_FAULT_CTRL, (rd(t, GA10X_REG_PAGE_FAULT_CTRL) &
	   ~C369_PAGE_FAULT_CTRL_PRF_FILTER_MASK) | C369_PAGE_FAULT_CTRL_PRF_SEND_ALL);
	f.access_type = C369_ACCESS_PHYS_PREFETCH;
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 2);
	CU_ASSERT_EQUAL(sys_word(t, FT_FB, 1, 7) & C369_W7_ACCESS_TYPE_MASK,
			0xbu << 16);
	CU_ASSERT_EQUAL(t->errors, 0);
	wr(t, GA10X_REG_PAGE_FAULT_CTRL, 1);		/* no such filter value */
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_PAGE_FAULT_CTRL), 0);
	ft_free(t);
}

static void test_replay_cancel(void)
{
	struct ft *t = ft_new();
	struct ga10x_faults *s = &ga10x_state(t->g)->faults;
	struct ga10x_fault f = gpc_fault(0x100000);
	struct ga10x_replay r = { .type = 1 };	/* MEM_OP_C REPLAY_START */

	ft_fault_buffer(t, 8);
	ga10x_fault_report(t->g, &f);
	f.gpc = 2;
	f.client = C369_CLIENT_GPC_PE(1);
	ga10x_fault_report(t->g, &f);
	f.client_type = C369_MMU_CLIENT_TYPE_HUB;	/* no uTLB to stall */
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(s->nstalled, 2);
	CU_ASSERT_EQUAL(s->faults_since_replay, 3);
	ga10x_fault_replay(t->g, &r);
	CU_ASSERT_EQUAL(s->nstalled, 0);
	CU_ASSERT_EQUAL(s->faults_since_replay, 0);
	CU_ASSERT_EQUAL(s->ack_all_pending, 0);
	CU_ASSERT_EQUAL(t->g->st.replays, 1);
	CU_ASSERT_EQUAL(t->ev[GM_EV_REPLAY], 1);

	/* a targeted cancel (3) releases its pair; START_ACK_ALL (2) the rest
	 * and waits for the replayed accesses */
	f.client_type = C369_MMU_CLIENT_TYPE_GPC;
	ga10x_fault_report(t->g, &f);
	f.gpc = 5;
	f.client = C369_CLIENT_GPC_T1(3);
	ga10x_fault_report(t->g, &f);
	r = (struct ga10x_replay){ .type = 3, .gpc = 2,
				   .client = C369_CLIENT_GPC_PE(1) };
	ga10x_fault_replay(t->g, &r);
	CU_ASSERT_EQUAL(s->nstalled, 1);
	CU_ASSERT_EQUAL(t->g->st.cancels, 1);
	CU_ASSERT_EQUAL(t->ev[GM_EV_CANCEL], 1);
	r = (struct ga10x_replay){ .type = 2 };
	ga10x_fault_replay(t->g, &r);
	CU_ASSERT_EQUAL(s->nstalled, 0);
	CU_ASSERT_EQUAL(s->last_replay, 2);
	CU_ASSERT_EQUAL(s->ack_all_pending, 1);
	CU_ASSERT_EQUAL(t->g->st.replays, 2);
	/* global (4) and VA-global (5) cancels release every stalled pair;
	 * a VA-global one naming another MMU engine than the SMs' none */
	ga10x_fault_report(t->g, &f);
	r = (struct ga10x_replay){ .type = 5, .va = 0x100000,
				   .mmu_engine_id = C369_MMU_ENG_ID_HOST0 };
	ga10x_fault_replay(t->g, &r);
	CU_ASSERT_EQUAL(s->nstalled, 1);
	r.mmu_engine_id = C369_MMU_ENG_ID_GRAPHICS;
	ga10x_fault_replay(t->g, &r);
	CU_ASSERT_EQUAL(s->nstalled, 0);
	r.type = 4;
	ga10x_fault_replay(t->g, &r);
	CU_ASSERT_EQUAL(t->g->st.cancels, 4);
	CU_ASSERT_EQUAL(t->errors, 0);
	/* NONE (a plain invalidate) and unknown values are not replays */
	r.type = 0;
	ga10x_fault_replay(t->g, &r);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	r = (struct ga10x_replay){ .type = 3, .gpc = 32 };
	ga10x_fault_replay(t->g, &r);
	CU_ASSERT_EQUAL(t->errors, 2);
	CU_ASSERT_EQUAL(t->g->st.cancels, 4);
	ft_free(t);
}

static struct ga10x_ac_entry mimc_note(uint64_t addr, uint32_t tag)
{
	return (struct ga10x_ac_entry){
		.type = C365_TYPE_GPU, .addr_type = C365_ADDR_TYPE_GVA,
		.addr = addr, .inst = 0x100003000ull | GA10X_BASE_APERTURE_VIDMEM,
		.mmu_engine_id = C369_MMU_ENG_ID_GRAPHICS,
		.sub_granularity = 0x80000001u, .counter = 0x1234, .tag = tag,
		.bank = 0xa,
	};
}

static void test_ac_buffer(void)
{
	struct ft *t = ft_new();
	struct ga10x_ac_entry n = mimc_note(0x7f0000200000ull, 0xabcde);
	static const uint32_t words[8] = {	/* test_c365_words' first */
		0x00003029u, 0x00000001u, 0x00200000u, 0x00007f00u,
		0x80000001u, 0x000abcdeu, 0x00001234u, 0x84000000u,
	};
	unsigned int i;

	ft_ac_buffer(t, 4);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_FULL), C365_INFO_PUSHED);
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(sys_word(t, FT_AC, 0, i), words[i]);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), GA10X_INTR_ACCESS_COUNTER);
	CU_ASSERT_EQUAL(t->msix, 1);
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 3);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_FULL), C365_INFO_FULL | C365_INFO_PUSHED);
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 1);	/* no room */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 3);
	CU_ASSERT_EQUAL(t->g->st.notifications, 3);
	CU_ASSERT_EQUAL(t->g->st.notify_overflows, 1);
	/* uvm_hal_turing_clear_access_counter_notifications(): leaf, then GET */
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_ACCESS_COUNTER);
	wr(t, GA10X_REG_AC_BUF_GET, 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_GET), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_FULL), C365_INFO_PUSHED);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), GA10X_INTR_ACCESS_COUNTER);
	CU_ASSERT_EQUAL(t->msix, 2);
	/* all read: nothing re-raises; then entries 3 and 0 (wrapped) */
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_ACCESS_COUNTER);
	wr(t, GA10X_REG_AC_BUF_GET, 3);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), 0);
	CU_ASSERT_EQUAL(t->msix, 2);
	n.addr = 0x400000;
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(t->msix, 3);
	n.addr = 0x600000;
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);
	CU_ASSERT_EQUAL(sys_word(t, FT_AC, 3, 2), 0x400000u);
	CU_ASSERT_EQUAL(sys_word(t, FT_AC, 0, 2), 0x600000u);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_FULL), C365_INFO_PUSHED);
	n.addr = 0x800000;
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_FULL), C365_INFO_FULL | C365_INFO_PUSHED);
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_ACCESS_COUNTER);
	wr(t, GA10X_REG_AC_BUF_GET, 2);			/* all read */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), 0);
	CU_ASSERT_EQUAL(t->msix, 3);
	CU_ASSERT_EQUAL(t->errors, 0);
	wr(t, GA10X_REG_AC_BUF_GET, 4);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_INDEX);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_GET), 2);
	wr(t, GA10X_REG_AC_BUF_FULL, 0);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_REGISTER);
	/* a disabled buffer takes nothing */
	wr(t, GA10X_REG_AC_CTRL, 0);
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 2);
	/* a DMA that fails latches the error and WRITE_NACK */
	wr(t, GA10X_REG_AC_CTRL, EMGPU_RING_ENABLE);
	t->flat.fail = 1;
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), -EMGPU_ERR_DMA);
	t->flat.fail = 0;
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_DMA);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_FULL),
			C365_INFO_WRITE_NACK | C365_INFO_PUSHED);
	ft_free(t);
}

static void test_ac_config(void)
{
	struct ft *t = ft_new();
	uint32_t v = 64 | C365_GRAN_16M << C365_CONFIG_MIMC_GRAN_SHIFT |
		     C365_GRAN_64K << C365_CONFIG_MOMC_GRAN_SHIFT |
		     C365_USE_LIMIT_FULL << C365_CONFIG_MIMC_USE_LIMIT_SHIFT |
		     C365_USE_LIMIT_HALF << C365_CONFIG_MOMC_USE_LIMIT_SHIFT;

	/* reset: the counters' threshold 256 and 2 MiB regions */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CONFIG), 0x00010100u);
	wr(t, GA10X_REG_AC_CONFIG, v);
	CU_ASSERT_EQUAL(v, 0xb0020040u);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CONFIG), v);
	CU_ASSERT_EQUAL(t->g->ac_gran_shift, 24);
	CU_ASSERT_EQUAL(t->g->ac_config & EMGPU_AC_CONFIG_THRESHOLD_MASK, 64);
	CU_ASSERT_EQUAL(t->errors, 0);
	wr(t, GA10X_REG_AC_CONFIG, 64 | C365_GRAN_16G << C365_CONFIG_MIMC_GRAN_SHIFT);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	wr(t, GA10X_REG_AC_CONFIG, C365_GRAN_2M << C365_CONFIG_MIMC_GRAN_SHIFT);
	wr(t, GA10X_REG_AC_CONFIG, 64 | 1u << 20);	/* reserved bits */
	CU_ASSERT_EQUAL(t->errors, 3);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CONFIG), v);
	ft_free(t);
}

static void test_ac_clear(void)
{
	struct ft *t = ft_new();
	struct gm_gpu *g = t->g;
	struct ga10x_ac_clear c = { .type = 3, .targeted_type = 0, .tag = 1 };

	/* two counters in use (index = tag), below the threshold */
	gm_ac_count(g, 0x000000);
	gm_ac_count(g, 0x200000);
	CU_ASSERT_EQUAL(g->ac_used, 2);
	CU_ASSERT(g->ctr[1].used);
	ga10x_ac_clear(g, &c);				/* targeted MIMC, tag 1 */
	CU_ASSERT_EQUAL(g->ac_used, 1);
	CU_ASSERT(!g->ctr[1].used);
	CU_ASSERT_EQUAL(t->ev[GM_EV_AC_CLEAR], 1);
	ga10x_ac_clear(g, &c);				/* no counter holds it now */
	c.tag = 0xfffff;				/* a garbled tag */
	ga10x_ac_clear(g, &c);
	c = (struct ga10x_ac_clear){ .type = 3, .targeted_type = 1, .tag = 0 };
	ga10x_ac_clear(g, &c);				/* MOMC: none here */
	CU_ASSERT_EQUAL(g->ac_used, 1);
	c = (struct ga10x_ac_clear){ .type = 1 };	/* MOMC */
	ga10x_ac_clear(g, &c);
	CU_ASSERT_EQUAL(g->ac_used, 1);
	c.type = 0;					/* MIMC */
	ga10x_ac_clear(g, &c);
	CU_ASSERT_EQUAL(g->ac_used, 0);
	gm_ac_count(g, 0x400000);
	c.type = 2;					/* ALL */
	ga10x_ac_clear(g, &c);
	CU_ASSERT_EQUAL(g->ac_used, 0);
	CU_ASSERT_EQUAL(t->ev[GM_EV_AC_CLEAR], 7);
	CU_ASSERT_EQUAL(t->errors, 0);
	c.type = 4;
	ga10x_ac_clear(g, &c);
	c = (struct ga10x_ac_clear){ .type = 3, .targeted_type = 2 };
	ga10x_ac_clear(g, &c);
	CU_ASSERT_EQUAL(t->errors, 2);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(t->ev[GM_EV_AC_CLEAR], 7);
	ft_free(t);
}

static void test_ring_config_errors(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);

	wr(t, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);	/* no size */
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_RING);
	wr(t, GA10X_REG_FAULT_BUF_LO, FT_FB | 0x800 | 2);	/* misaligned */
	wr(t, GA10X_REG_FAULT_BUF_LO, FT_FB | 1);		/* aperture 1 */
	wr(t, GA10X_REG_FAULT_BUF_SIZE, 1);
	wr(t, GA10X_REG_FAULT_BUF_SIZE, C369_BUF_MAX_ENTRIES + 1);
	CU_ASSERT_EQUAL(t->errors, 5);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_LO), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_SIZE), 0);
	/* a fault with no buffer is dropped with OVERFLOW */
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(t->g->st.fault_overflows, 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_INFO), C369_BUF_OVERFLOW);
	/* a new size empties the buffer and clears its status */
	wr(t, GA10X_REG_FAULT_BUF_HI, 0);
	wr(t, GA10X_REG_FAULT_BUF_LO, FT_FB_LO);
	wr(t, GA10X_REG_FAULT_BUF_SIZE, 3);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_INFO), 0);
	wr(t, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
	CU_ASSERT_EQUAL(t->errors, 5);
	/* no moving or resizing a live buffer; no unknown CTRL bits */
	wr(t, GA10X_REG_FAULT_BUF_LO, FT_AC_LO);
	wr(t, GA10X_REG_FAULT_BUF_SIZE, 8);
	wr(t, GA10X_REG_FAULT_BUF_CTRL, 3);
	CU_ASSERT_EQUAL(t->errors, 8);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_LO), FT_FB_LO);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_SIZE), 3);
	/* a non-power-of-two size wraps at its end */
	ga10x_fault_report(t->g, &f);
	ga10x_fault_report(t->g, &f);
	wr(t, GA10X_REG_FAULT_BUF_GET, 2);
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 0);
	/* a vidmem buffer must lie in VRAM */
	wr(t, GA10X_REG_AC_BUF_HI, 1);
	wr(t, GA10X_REG_AC_BUF_LO, GA10X_BASE_APERTURE_VIDMEM);
	wr(t, GA10X_REG_AC_BUF_SIZE, 16);
	wr(t, GA10X_REG_AC_CTRL, EMGPU_RING_ENABLE);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_RING);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_AC_CTRL);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CTRL), 0);
	ft_free(t);
}

static void test_vidmem_buffer(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x7fffabcde123ull);
	uint32_t w[8];
	unsigned int i;

	wr(t, GA10X_REG_FAULT_BUF_HI, 0);
	wr(t, GA10X_REG_FAULT_BUF_LO, 0x200000 | GA10X_BASE_APERTURE_VIDMEM);
	wr(t, GA10X_REG_FAULT_BUF_SIZE, 16);
	wr(t, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(gm_vram_read(t->g, 0x200000, w, sizeof(w)), 0);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(w[i], gpc_fault_words[i]);
	CU_ASSERT_EQUAL(t->errors, 0);
	ft_free(t);
}

static int inject(struct ft *t, const char *spec)
{
	char err[96];

	return gm_inject_add(t->g, spec, err, sizeof(err));
}

static void test_injection(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);
	struct ga10x_ac_entry n = mimc_note(0x200000, 7);
	int slot;

	ft_fault_buffer(t, 8);
	ft_ac_buffer(t, 8);
	/*
	 * fault-overflow: dropped with OVERFLOW as if the buffer were full,
	 * so only once the ring holds an entry: the first fault is written
	 */
	slot = inject(t, "kind=fault-overflow");
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1 | C369_BUF_OVERFLOW);
	CU_ASSERT_EQUAL(t->g->st.fault_overflows, 1);
	CU_ASSERT_EQUAL(t->g->st.fault_entries, 1);
	wr(t, GA10X_REG_FAULT_BUF_GET, 1 | C369_BUF_OVERFLOW);
	/* fault-dup: the same entry twice */
	slot = inject(t, "kind=fault-dup");
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 3);
	CU_ASSERT_EQUAL(memcmp(t->sys + FT_FB + 32, t->sys + FT_FB + 64, 32), 0);
	CU_ASSERT_EQUAL(t->g->st.fault_entries, 3);
	/* notify-drop: not written, the caller is told it was */
	slot = inject(t, "kind=notify-drop");
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 0);
	CU_ASSERT_EQUAL(t->g->st.notifications, 0);
	/* notify-dup */
	slot = inject(t, "kind=notify-dup");
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 2);
	CU_ASSERT_EQUAL(memcmp(t->sys + FT_AC, t->sys + FT_AC + 32, 32), 0);
	CU_ASSERT_EQUAL(t->g->st.notifications, 2);
	/* notify-corrupt: address and tag garbled as counters.c garbles them */
	slot = inject(t, "kind=notify-corrupt");
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 1);
	CU_ASSERT_EQUAL(sys_word(t, FT_AC, 2, 2), 0x200000u ^ 0x5a5a5001u);
	CU_ASSERT_EQUAL(sys_word(t, FT_AC, 2, 5), 0xfffffu);
	CU_ASSERT_EQUAL(sys_word(t, FT_AC, 2, 7) & C365_W7_VALID, C365_W7_VALID);
	/* lost-irq: the leaf bit is set, the message is not sent */
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_ALL);
	slot = inject(t, "kind=lost-irq");
	t->msix = 0;
	ga10x_fault_report(t->g, &f);
	CU_ASSERT_EQUAL(gm_inject_fired(t->g, slot), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(t->msix, 0);
	CU_ASSERT_EQUAL(t->errors, 0);
	ft_free(t);
}

/*
 * Lockstep: notifications a launch leaves unread (published at its end,
 * gm_run() with no launch running) keep AC_CTRL BUSY until nvidia-uvm has
 * serviced them as a stop's: GET at PUT (the fetch), then the next PUT
 * read; the top half's PUT read before the fetch is no answer.
 */
static void test_notify_tail(void)
{
	struct ft *t = ft_new();
	struct ga10x_ac_entry n = mimc_note(0x200000, 7);

	ft_ac_buffer(t, 8);
	CU_ASSERT_EQUAL(ga10x_ac_notify(t->g, &n), 0);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);	/* publishes */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CTRL), EMGPU_RING_ENABLE | GA10X_AC_CTRL_BUSY);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);	/* the top half's */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CTRL), EMGPU_RING_ENABLE | GA10X_AC_CTRL_BUSY);
	wr(t, GA10X_REG_AC_BUF_GET, 1);				/* the fetch */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CTRL), EMGPU_RING_ENABLE | GA10X_AC_CTRL_BUSY);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);	/* the next fetch */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CTRL), EMGPU_RING_ENABLE);
	/* nothing unread: nothing awaited */
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_CTRL), EMGPU_RING_ENABLE);
	CU_ASSERT_EQUAL(t->errors, 0);
	ft_free(t);
}

static void test_reset(void)
{
	struct ft *t = ft_new();
	struct ga10x_fault f = gpc_fault(0x100000);

	ft_fault_buffer(t, 8);
	ga10x_fault_report(t->g, &f);
	gm_reset(t->g);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_SIZE), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_EN), 0);
	CU_ASSERT_EQUAL(ga10x_state(t->g)->faults.nstalled, 0);
	ft_free(t);
}

void add_ga10x_faults_suite(void)
{
	CU_pSuite s = CU_add_suite("ga10x_faults", NULL, NULL);

	CU_add_test(s, "C369 entry words", test_c369_words);
	CU_add_test(s, "C365 entry words", test_c365_words);
	CU_add_test(s, "fault entry through the buffer", test_fault_entry);
	CU_add_test(s, "fault buffer wraparound and OVERFLOW", test_fault_wrap_overflow);
	CU_add_test(s, "GET write re-raises while entries remain", test_fault_get_reraises);
	CU_add_test(s, "leaf EN_SET/EN_CLEAR and write-1-to-clear", test_intr_masks);
	CU_add_test(s, "GETPTR_CORRUPTED", test_fault_getptr_corrupted);
	CU_add_test(s, "PAGE_FAULT_CTRL prefetch filter", test_prefetch_filter);
	CU_add_test(s, "replay and cancel state", test_replay_cancel);
	CU_add_test(s, "access-counter buffer, FULL", test_ac_buffer);
	CU_add_test(s, "access-counter CONFIG", test_ac_config);
	CU_add_test(s, "access-counter clears", test_ac_clear);
	CU_add_test(s, "buffer configuration errors", test_ring_config_errors);
	CU_add_test(s, "fault buffer in vidmem", test_vidmem_buffer);
	CU_add_test(s, "injected kinds", test_injection);
	CU_add_test(s, "notifications a launch leaves unread: AC_CTRL BUSY until serviced",
		    test_notify_tail);
	CU_add_test(s, "reset", test_reset);
	CU_add_test(s, "trace hash without the driver's timing", test_hash_leaves_driver_timing);
}
