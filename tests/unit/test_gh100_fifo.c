/* SPDX-License-Identifier: MIT */
/*
 * GH100 host class c86f and copy class c8b5 where they differ from GA10x's
 * c56f and c7b5: the words against hand-computed values from clc86f.h and
 * clc8b5.h's fields, then channels driven as nvidia-uvm's Hopper HAL
 * drives them, through MMU VER3 tables at the VAs nvidia-uvm uses on
 * Hopper (its own memory above 64 PB: uvm_hopper.c's uvm_mem_va_base),
 * beside the same words on GA10x, where they mean something else.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "ga10x/ce_c7b5.h"
#include "ga10x/gpfifo.h"
#include "ga10x/host_c56f.h"
#include "ga10x/regs.h"
#include "gh100/ce_c8b5.h"
#include "gh100/host_c86f.h"
#include "gh100/mmu_v3.h"

#define FX_SYS_SIZE	(16ull << 20)
#define FX_GPFIFO(ch)	(0x10000ull + (uint64_t)(ch) * 0x10000)	/* 64 entries */
#define FX_USERD(ch)	(FX_GPFIFO(ch) + 0x1000)
#define FX_NOTIFIER(ch)	(FX_GPFIFO(ch) + 0x2000)
#define FX_PB		0x200000ull	/* the pushbuffer's sysmem, 64 KiB */
#define FX_SEM		0x300000ull
#define FX_SRC		0x310000ull
#define FX_DST		0x320000ull
#define FX_TABLES	0x800000ull	/* VER3 tables, bump-allocated */
#define FX_ENTRIES	64u

/*
 * nvidia-uvm's Hopper VAs: its memory from 64 PB + 384 TB (above the
 * GPFIFO entry's 40 bits and c56f's semaphore and c7b5's copy bits).
 */
#define PB_VA		0x0100018000000000ull	/* 1 << 56 | 384 << 40 */
#define SEM_VA		(PB_VA + 0x100000)
#define SRC_VA		(PB_VA + 0x200000)
#define DST_VA		(PB_VA + 0x210000)

struct fx {
	struct gm_gpu *g;
	uint8_t *sys;
	struct gmt_flat flat;
	unsigned int errors;
	uint32_t last_error;
	uint32_t put[GA10X_CHANNELS];
	uint64_t tables_next;
};

struct push {
	uint32_t w[512];
	unsigned int n;
};

static int fx_dma_read(void *o, uint64_t a, void *b, uint64_t l)
{
	return gmt_flat_dma_read(&((struct fx *)o)->flat, a, b, l);
}

static int fx_dma_write(void *o, uint64_t a, const void *b, uint64_t l)
{
	return gmt_flat_dma_write(&((struct fx *)o)->flat, a, b, l);
}

static void fx_error(void *o, enum emgpu_error code, uint32_t info)
{
	struct fx *f = o;

	(void)info;
	f->errors++;
	f->last_error = code;
}

static struct fx *fx_new(enum gm_personality pers)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct gm_callbacks cb = { .dma_read = fx_dma_read,
				   .dma_write = fx_dma_write, .error = fx_error };
	struct gm_config cfg = { .personality = pers, .seed = 1 };

	if (!f || gm_profile_lookup("h200-256m", &cfg.profile))
		abort();
	f->sys = calloc(1, FX_SYS_SIZE);
	f->flat = (struct gmt_flat){ .mem = f->sys, .size = FX_SYS_SIZE };
	f->tables_next = FX_TABLES + 0x1000;	/* PDE4 at FX_TABLES */
	cb.opaque = f;
	f->g = gm_create(&cfg, &cb);
	if (!f->g || !f->sys)
		abort();
	return f;
}

static void fx_free(struct fx *f)
{
	gm_destroy(f->g);
	free(f->sys);
	free(f);
}

static uint32_t rd32(const struct fx *f, uint64_t a)
{
	uint32_t v;

	memcpy(&v, f->sys + a, 4);	/* the tests run on little-endian hosts */
	return v;
}

static uint64_t rd64(const struct fx *f, uint64_t a)
{
	uint64_t v;

	memcpy(&v, f->sys + a, 8);
	return v;
}

static void wr64(struct fx *f, uint64_t a, uint64_t v)
{
	memcpy(f->sys + a, &v, 8);
}

/* The table an entry at e points to, made (4 KiB, zeroed) if missing. */
static uint64_t fx_next_table(struct fx *f, uint64_t e, int small_half)
{
	uint64_t w = rd64(f, e), t;

	if (w)
		return gh100_pde_address(w);
	t = f->tables_next;
	f->tables_next += 0x1000;
	wr64(f, e, small_half ? gh100_dual_pde_small(GH100_PDE_APERTURE_SYS_COH, t) :
				gh100_pde(GH100_PDE_APERTURE_SYS_COH, t));
	return t;
}

/*
 * Maps [va, va + len) to sysmem pa in 4 KiB pages through VER3 tables,
 * PTE PCF pcf.
 */
static void fx_map_pcf(struct fx *f, uint64_t va, uint64_t pa, uint64_t len,
		       unsigned int pcf)
{
	uint64_t off;

	for (off = 0; off < len; off += 4096) {
		uint64_t v = va + off, t = FX_TABLES;

		t = fx_next_table(f, t + (v >> 56 & 1) * 8, 0);
		t = fx_next_table(f, t + (v >> 47 & 511) * 8, 0);
		t = fx_next_table(f, t + (v >> 38 & 511) * 8, 0);
		t = fx_next_table(f, t + (v >> 29 & 511) * 8, 0);
		t = fx_next_table(f, t + (v >> 21 & 255) * 16 + 8, 1);
		wr64(f, t + (v >> 12 & 511) * 8,
		     gh100_pte(GH100_PTE_APERTURE_SYS_COH, pa + off, pcf,
			       GH100_PTE_KIND_GENERIC_MEMORY, 0));
	}
}

/* nvidia-uvm's sysmem PTE: uncached, counted */
static void fx_map(struct fx *f, uint64_t va, uint64_t pa, uint64_t len)
{
	fx_map_pcf(f, va, pa, len, GH100_PTE_PCF_UNCACHED);
}

static void chan_reg_write(struct fx *f, unsigned int ch, uint32_t reg, uint32_t v)
{
	gm_reg_write(f->g, GA10X_REG_CHAN(ch, reg), v);
}

static uint32_t chan_reg_read(struct fx *f, unsigned int ch, uint32_t reg)
{
	return gm_reg_read(f->g, GA10X_REG_CHAN(ch, reg));
}

/* The stand-in's part: a channel on engine; with mmu its PDB is the tables. */
static void chan_setup(struct fx *f, unsigned int ch, uint32_t engine, int mmu)
{
	chan_reg_write(f, ch, GA10X_REG_CHAN_GPFIFO_LO,
		       (uint32_t)FX_GPFIFO(ch) | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, ch, GA10X_REG_CHAN_GPFIFO_HI, 0);
	chan_reg_write(f, ch, GA10X_REG_CHAN_GPFIFO_ENTRIES, FX_ENTRIES);
	chan_reg_write(f, ch, GA10X_REG_CHAN_USERD_LO,
		       (uint32_t)FX_USERD(ch) | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, ch, GA10X_REG_CHAN_NOTIFIER_LO,
		       (uint32_t)FX_NOTIFIER(ch) | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, ch, GA10X_REG_CHAN_PDB_HI, 0);
	chan_reg_write(f, ch, GA10X_REG_CHAN_PDB_LO,
		       (uint32_t)FX_TABLES | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, ch, GA10X_REG_CHAN_ENGINE, engine);
	chan_reg_write(f, ch, GA10X_REG_CHAN_CTRL, GA10X_CHAN_CTRL_ENABLE |
		       (mmu ? 0 : GA10X_CHAN_CTRL_NO_MMU));
}

static void emit(struct push *p, uint32_t w)
{
	if (p->n >= sizeof(p->w) / sizeof(p->w[0]))
		abort();
	p->w[p->n++] = w;
}

static void push_inc(struct push *p, uint32_t subch, uint32_t method,
		     unsigned int n, const uint32_t *data)
{
	unsigned int i;

	emit(p, ga10x_pb_inc(subch, method, n));
	for (i = 0; i < n; i++)
		emit(p, data[i]);
}

static void push1(struct push *p, uint32_t subch, uint32_t method, uint32_t d)
{
	push_inc(p, subch, method, 1, &d);
}

/* Hopper's host semaphore_release: SEM_ADDR_HI takes VA bits 56:32 */
static void host_release(struct push *p, uint64_t va, uint32_t payload)
{
	uint32_t d[5] = { (uint32_t)va & C56F_SEM_ADDR_LO_MASK,
			  (uint32_t)(va >> 32), payload, 0,
			  C56F_SEM_EXECUTE_OPERATION_RELEASE };

	push_inc(p, 0, C56F_SEM_ADDR_LO, 5, d);
}

static void gp_put(struct fx *f, unsigned int ch, uint64_t e)
{
	wr64(f, FX_GPFIFO(ch) + f->put[ch] * 8ull, e);
	f->put[ch] = (f->put[ch] + 1) % FX_ENTRIES;
}

/* GP_PUT to USERD, the token to the doorbell */
static void kick(struct fx *f, unsigned int ch)
{
	memcpy(f->sys + FX_USERD(ch) + GA10X_USERD_GP_PUT, &f->put[ch], 4);
	gm_reg_write(f->g, GA10X_REG_DOORBELL,
		     chan_reg_read(f, ch, GA10X_REG_CHAN_TOKEN));
}

/* A push at pb_va (backed by sysmem pb_pa) as one segment entry. */
static void submit_at(struct fx *f, unsigned int ch, const struct push *p,
		      uint64_t pb_va, uint64_t pb_pa)
{
	memcpy(f->sys + pb_pa, p->w, p->n * 4);
	gp_put(f, ch, ga10x_gp_entry(pb_va, p->n * 4, 0));
	kick(f, ch);
}

static uint32_t status(struct fx *f, unsigned int ch)
{
	return chan_reg_read(f, ch, GA10X_REG_CHAN_STATUS);
}

/* ---- formats ---- */

static void test_words(void)
{
	/*
	 * set_gpfifo_pushbuffer_segment_base(PB_VA): OPCODE 7:0 of ENTRY1 =
	 * SET_PB_SEGMENT_EXTENDED_BASE 4, PB_EXTENDED_BASE_OPERAND 24:8 of
	 * ENTRY0 = PB_VA >> 40 = 0x10001: 0x10001 << 8 = 0x1000100.
	 */
	CU_ASSERT_EQUAL(gh100_gp_set_pb_base(PB_VA), 0x0000000401000100ull);
	CU_ASSERT_EQUAL(gh100_gp_pb_base(0x0000000401000100ull), 0x0100010000000000ull);
	/* the top of 57 bits: operand 0x1ffff */
	CU_ASSERT_EQUAL(gh100_gp_set_pb_base((1ull << 57) - 1), 0x0000000401ffff00ull);
	/* the segment entry keeps VA bits 39:0: GET_HI 0x80 */
	CU_ASSERT_EQUAL(ga10x_gp_entry(PB_VA + 0x40, 0x20, 0), 0x0000208000000040ull);
	/* c86f SEM_ADDR_HI 24:0 and CANCEL_MMU_ENGINE_ID 8:0; c56f's 7:0, 6:0 */
	CU_ASSERT_EQUAL(C86F_SEM_ADDR_HI_MASK, (1u << 25) - 1);
	CU_ASSERT_EQUAL((uint32_t)(SEM_VA >> 32) & C86F_SEM_ADDR_HI_MASK, 0x1000180u);
	CU_ASSERT_EQUAL((uint32_t)(SEM_VA >> 32) & C56F_SEM_ADDR_HI_MASK, 0x80u);
	CU_ASSERT_EQUAL(384u & C86F_MEM_OP_A_CANCEL_MMU_ENGINE_ID_MASK, 384u);
	CU_ASSERT_EQUAL(384u & C56F_MEM_OP_A_CANCEL_MMU_ENGINE_ID_MASK, 0u);
	CU_ASSERT_EQUAL(C86F_MEM_OP_D_OPERATION_MMU_OPERATION << C56F_MEM_OP_D_OPERATION_SHIFT |
			C86F_MEM_OP_D_MMU_OPERATION_TYPE_VIDMEM_ACCESS_BIT_DUMP <<
			C86F_MEM_OP_D_MMU_OPERATION_TYPE_SHIFT, 0x58100000u);
	/* c8b5: UPPER 24:0; LAUNCH_DMA COPY_TYPE 21:20, VPRMODE 22, SCRUB 23 */
	CU_ASSERT_EQUAL(C8B5_UPPER_MASK, (1u << 25) - 1);
	CU_ASSERT_EQUAL(C8B5_LAUNCH_DMA_COPY_TYPE_NONPROT2NONPROT <<
			C8B5_LAUNCH_DMA_COPY_TYPE_SHIFT, 0x00200000u);
	CU_ASSERT_EQUAL(C8B5_LAUNCH_DMA_VPRMODE, 0x00400000u);
	CU_ASSERT_EQUAL(C8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE, 0x00800000u);
	/*
	 * Hopper's scrubbing memset_8 LAUNCH_DMA of physical vidmem, the
	 * push's last: PITCH/PITCH, no multi-line, FLUSH SYS, no remap, SCRUB,
	 * DST PHYSICAL, DISABLE_PLC, COPY_TYPE DEFAULT, NON_PIPELINED.
	 */
	CU_ASSERT_EQUAL(C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
			C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH |
			C7B5_LAUNCH_DMA_FLUSH_ENABLE |
			C8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE |
			C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL |
			C7B5_LAUNCH_DMA_DISABLE_PLC |
			C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED, 0x04802186u);
	CU_ASSERT_EQUAL(C8B5_SET_MEMORY_SCRUB_PARAMETERS, 0x6fc);
	CU_ASSERT_EQUAL(HOPPER_DMA_COPY_A_CLASS, 0xc8b5u);
	CU_ASSERT_EQUAL(HOPPER_CHANNEL_GPFIFO_A_CLASS, 0xc86fu);
}

/* ---- host ---- */

/*
 * nvidia-uvm's channel_init on Hopper: the control entry with the
 * pushbuffer's VA bits 56:40, then segments that carry bits 39:0; a
 * semaphore release at a VA above 2^56 (SEM_ADDR_HI's 25 bits).
 */
static void test_pb_extended_base(void)
{
	struct fx *f = fx_new(GM_PERSONALITY_GH100);
	struct push p = { .n = 0 };

	fx_map(f, PB_VA, FX_PB, 0x4000);
	fx_map(f, SEM_VA, FX_SEM, 0x1000);
	chan_setup(f, 2, GA10X_ENGINE_HOST, 1);
	gp_put(f, 2, gh100_gp_set_pb_base(PB_VA));
	host_release(&p, SEM_VA + 8, 0xc86f0001);
	submit_at(f, 2, &p, PB_VA, FX_PB);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 8), 0xc86f0001u);
	CU_ASSERT_EQUAL(rd32(f, FX_USERD(2) + GA10X_USERD_GP_GET), 2u);
	CU_ASSERT_EQUAL(status(f, 2), GA10X_CHAN_STATUS_IDLE);

	/* the base holds for the segments after it */
	p.n = 0;
	host_release(&p, SEM_VA + 16, 0xc86f0002);
	submit_at(f, 2, &p, PB_VA + 0x1000, FX_PB + 0x1000);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 0xc86f0002u);
	CU_ASSERT_EQUAL(f->errors, 0u);

	/*
	 * A fresh channel has base 0: the same segment entry names VA bits
	 * 39:0 alone, unmapped: the fetch faults, the channel enters RC.
	 */
	chan_setup(f, 3, GA10X_ENGINE_HOST, 1);
	p.n = 0;
	host_release(&p, SEM_VA + 24, 0xbad);
	submit_at(f, 3, &p, PB_VA, FX_PB);
	CU_ASSERT(status(f, 3) & GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 24), 0u);
	CU_ASSERT_EQUAL(f->errors, 1u);
	fx_free(f);
}

/* GA10x has no such control entry (c56f's opcodes end at PB_CRC): RC. */
static void test_ga10x_no_extended_base(void)
{
	struct fx *f = fx_new(GM_PERSONALITY_GA10X);

	chan_setup(f, 1, GA10X_ENGINE_HOST, 0);
	gp_put(f, 1, gh100_gp_set_pb_base(PB_VA));
	kick(f, 1);
	CU_ASSERT(status(f, 1) & GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_DESCRIPTOR);
	fx_free(f);
}

/*
 * SEM_ADDR_HI: c56f keeps bits 7:0, c86f 24:0. The same push (a release
 * whose SEM_ADDR_HI has bit 8 set above the sysmem address) writes the
 * semaphore on GA10x and is a DMA beyond guest memory on GH100.
 */
static void sem_addr_hi(enum gm_personality pers, int lands)
{
	struct fx *f = fx_new(pers);
	struct push p = { .n = 0 };

	chan_setup(f, 0, GA10X_ENGINE_HOST, 0);	/* GPU VAs are sysmem PAs */
	host_release(&p, (1ull << 40) | FX_SEM, 0x5e3a);
	submit_at(f, 0, &p, FX_PB, FX_PB);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), lands ? 0x5e3au : 0u);
	CU_ASSERT_EQUAL(!!(status(f, 0) & GA10X_CHAN_STATUS_RC), !lands);
	CU_ASSERT_EQUAL(f->errors, lands ? 0u : 1u);
	fx_free(f);
}

static void test_sem_addr_hi(void)
{
	sem_addr_hi(GM_PERSONALITY_GA10X, 1);
	sem_addr_hi(GM_PERSONALITY_GH100, 0);
}

/* ---- copy engine ---- */

static void ce_offsets(struct push *p, uint64_t in, uint64_t out)
{
	uint32_t d[4] = { (uint32_t)(in >> 32), (uint32_t)in,
			  (uint32_t)(out >> 32), (uint32_t)out };

	push_inc(p, C56F_CE_SUBCH, C7B5_OFFSET_IN_UPPER, 4, d);
}

/*
 * Hopper's CE init (SET_OBJECT HOPPER_DMA_COPY_A), a virtual memcopy
 * between VAs above 2^56 (OFFSET_IN/OUT_UPPER's 25 bits) and a semaphore
 * release there (SET_SEMAPHORE_A's 25 bits).
 */
static void test_c8b5_virtual_copy(void)
{
	struct fx *f = fx_new(GM_PERSONALITY_GH100);
	struct push p = { .n = 0 };
	uint32_t d[3] = { (uint32_t)(SEM_VA >> 32), (uint32_t)SEM_VA + 32, 0xc8b5 };
	unsigned int i;

	fx_map(f, PB_VA, FX_PB, 0x4000);
	fx_map(f, SEM_VA, FX_SEM, 0x1000);
	fx_map(f, SRC_VA, FX_SRC, 0x2000);
	fx_map(f, DST_VA, FX_DST, 0x2000);
	for (i = 0; i < 0x2000; i++)
		f->sys[FX_SRC + i] = (uint8_t)(i * 7 + 3);
	chan_setup(f, 4, 0, 1);
	gp_put(f, 4, gh100_gp_set_pb_base(PB_VA));
	push1(&p, 0, C56F_SET_OBJECT, HOPPER_DMA_COPY_A_CLASS);
	push1(&p, C56F_UVM_SW_SUBCH, C076_SET_OBJECT, GP100_UVM_SW_CLASS);
	ce_offsets(&p, SRC_VA, DST_VA);
	push1(&p, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, 0x2000);
	push1(&p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED |
	      C7B5_LAUNCH_DMA_DISABLE_PLC);
	push_inc(&p, C56F_CE_SUBCH, C7B5_SET_SEMAPHORE_A, 3, d);
	push1(&p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_FLUSH_ENABLE |
	      C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
	      C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT | C7B5_LAUNCH_DMA_DISABLE_PLC);
	submit_at(f, 4, &p, PB_VA, FX_PB);
	CU_ASSERT_EQUAL(status(f, 4), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(memcmp(f->sys + FX_SRC, f->sys + FX_DST, 0x2000), 0);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 32), 0xc8b5u);
	CU_ASSERT_EQUAL(f->errors, 0u);

	/* a c7b5 SET_OBJECT on a GH100 copy channel is refused */
	chan_setup(f, 5, 0, 1);
	gp_put(f, 5, gh100_gp_set_pb_base(PB_VA));
	p.n = 0;
	push1(&p, 0, C56F_SET_OBJECT, AMPERE_DMA_COPY_B_CLASS);
	submit_at(f, 5, &p, PB_VA + 0x1000, FX_PB + 0x1000);
	CU_ASSERT(status(f, 5) & GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_DESCRIPTOR);
	fx_free(f);
}

/* The scrubbing memset of physical vidmem (NO_MMU: a physical push). */
static void scrub_push(struct push *p, uint64_t dst, uint32_t target,
		       uint32_t len, uint32_t extra)
{
	uint32_t k[2] = { 0x11223344, 0x55667788 };

	push_inc(p, C56F_CE_SUBCH, C7B5_SET_REMAP_CONST_A, 2, k);
	push1(p, C56F_CE_SUBCH, C8B5_SET_MEMORY_SCRUB_PARAMETERS, 0);
	push1(p, C56F_CE_SUBCH, C7B5_SET_DST_PHYS_MODE, target);
	ce_offsets(p, 0, dst);
	push1(p, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, len);
	push1(p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_FLUSH_ENABLE | C8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE |
	      C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL | C7B5_LAUNCH_DMA_DISABLE_PLC |
	      C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED | extra);
}

/* A CE channel that ran p: its status. */
static uint32_t run_ce(struct fx *f, unsigned int ch, const struct push *p)
{
	chan_setup(f, ch, 0, 0);
	submit_at(f, ch, p, FX_PB + ch * 0x1000ull, FX_PB + ch * 0x1000ull);
	return status(f, ch);
}

static void test_c8b5_scrub(void)
{
	struct fx *f = fx_new(GM_PERSONALITY_GH100);
	struct push p = { .n = 0 };
	uint8_t v[8200];
	unsigned int i;
	uint64_t w;

	memset(v, 0xee, sizeof(v));
	CU_ASSERT_FATAL(gm_vram_write(f->g, 0x100000 - 8, v, sizeof(v)) == 0);
	scrub_push(&p, 0x100000, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 8192, 0);
	CU_ASSERT_EQUAL(run_ce(f, 0, &p), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_FATAL(gm_vram_read(f->g, 0x100000 - 8, v, sizeof(v)) == 0);
	for (i = 8; i < 8 + 8192; i += 8) {
		memcpy(&w, v + i, 8);
		if (w != 0x5566778811223344ull)
			break;
	}
	CU_ASSERT_EQUAL(i, 8 + 8192);		/* every word the pattern */
	CU_ASSERT_EQUAL(v[0], 0xee);		/* nothing before */
	CU_ASSERT_EQUAL(v[7], 0xee);
	memcpy(&w, v + 8 + 8192 - 8, 8);
	CU_ASSERT_EQUAL(w, 0x5566778811223344ull);

	/* refused: to sysmem, with remap, a length not of whole patterns */
	p.n = 0;
	scrub_push(&p, FX_DST, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM, 4096, 0);
	CU_ASSERT(run_ce(f, 1, &p) & GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(rd64(f, FX_DST), 0ull);
	p.n = 0;
	scrub_push(&p, 0x200000, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 4096,
		   C7B5_LAUNCH_DMA_REMAP_ENABLE);
	CU_ASSERT(run_ce(f, 2, &p) & GA10X_CHAN_STATUS_RC);
	p.n = 0;
	scrub_push(&p, 0x200000, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 4092, 0);
	CU_ASSERT(run_ce(f, 3, &p) & GA10X_CHAN_STATUS_RC);
	/* Confidential Computing's COPY_TYPE SECURE and VPR: refused */
	p.n = 0;
	scrub_push(&p, 0x200000, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 4096,
		   C8B5_LAUNCH_DMA_COPY_TYPE_SECURE << C8B5_LAUNCH_DMA_COPY_TYPE_SHIFT);
	CU_ASSERT(run_ce(f, 4, &p) & GA10X_CHAN_STATUS_RC);
	p.n = 0;
	scrub_push(&p, 0x200000, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 4096,
		   C8B5_LAUNCH_DMA_VPRMODE);
	CU_ASSERT(run_ce(f, 5, &p) & GA10X_CHAN_STATUS_RC);
	p.n = 0;
	push1(&p, C56F_CE_SUBCH, C8B5_SET_SECURE_COPY_MODE, 0);
	CU_ASSERT(run_ce(f, 6, &p) & GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(f->errors, 6u);
	/* NONPROT2NONPROT is a plain scrub here: nothing is protected */
	p.n = 0;
	scrub_push(&p, 0x200000, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 4096,
		   C8B5_LAUNCH_DMA_COPY_TYPE_NONPROT2NONPROT <<
		   C8B5_LAUNCH_DMA_COPY_TYPE_SHIFT);
	CU_ASSERT_EQUAL(run_ce(f, 7, &p), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 6u);
	fx_free(f);
}

/* On GA10x (c7b5) the scrub bit is VPRMODE's and the method does not exist. */
static void test_c7b5_no_scrub(void)
{
	struct fx *f = fx_new(GM_PERSONALITY_GA10X);
	struct push p = { .n = 0 };

	push1(&p, C56F_CE_SUBCH, C8B5_SET_MEMORY_SCRUB_PARAMETERS, 0);
	CU_ASSERT(run_ce(f, 0, &p) & GA10X_CHAN_STATUS_RC);
	p.n = 0;
	push1(&p, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, 4096);
	push1(&p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH | C8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE |
	      C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL |
	      C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED);
	CU_ASSERT(run_ce(f, 1, &p) & GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(f->errors, 2u);
	fx_free(f);
}

/*
 * Hopper's cancel_faults_va: a warp faults (its C369 entry carries the
 * graphics engine id 384, beyond c56f's 7-bit CANCEL_MMU_ENGINE_ID), then
 * a host channel's MEM_OP VA-global cancel naming that engine, the
 * faulting page and the launch's page directory cancels the launch. With
 * the engine id cut to c56f's 7 bits (0) the same cancel names nothing.
 */
#define FX_FAULTS	0x380000ull
#define FX_LAUNCH	0x390000ull
#define LAUNCH_VA	0x10000000ull	/* a kernel's buffer: below 2^48 */

/* STREAM over [LAUNCH_VA, + 8 KiB) in graphics channel 10's context. */
static void sm_launch(struct fx *f)
{
	const uint64_t args[3] = { LAUNCH_VA, 0x2000, 1 };
	struct emgpu_launch_desc d = gmt_launch_desc(EMGPU_KERNEL_STREAM, 8, 7,
						     args, 3);

	chan_reg_write(f, 10, GA10X_REG_CHAN_INST_LO,
		       0x3a0000 | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, 10, GA10X_REG_CHAN_PDB_LO,
		       (uint32_t)FX_TABLES | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, 10, GA10X_REG_CHAN_ENGINE, GA10X_ENGINE_GRAPHICS);
	chan_reg_write(f, 10, GA10X_REG_CHAN_CTRL, GA10X_CHAN_CTRL_ENABLE);
	gm_reg_write(f->g, GA10X_REG_LAUNCH_CHANNEL, 10);
	memcpy(f->sys + FX_LAUNCH, &d, sizeof(d));
	gm_reg_write(f->g, EMGPU_REG_LAUNCH_DESC_LO, (uint32_t)FX_LAUNCH);
	gm_reg_write(f->g, EMGPU_REG_LAUNCH_DESC_HI, 0);
	gm_reg_write(f->g, EMGPU_REG_LAUNCH_DOORBELL, 1);
}

static uint32_t cancel_va(uint32_t engine_id)
{
	struct fx *f = fx_new(GM_PERSONALITY_GH100);
	struct push p = { .n = 0 };
	const uint64_t fault_va = LAUNCH_VA + 0x1000;
	uint32_t m[4], put;

	fx_map(f, PB_VA, FX_PB, 0x4000);
	fx_map(f, LAUNCH_VA, FX_SRC, 0x1000);	/* the second page missing */
	gm_reg_write(f->g, GA10X_REG_FAULT_BUF_HI, 0);
	gm_reg_write(f->g, GA10X_REG_FAULT_BUF_LO,
		     (uint32_t)FX_FAULTS | GA10X_BASE_APERTURE_SYSMEM);
	gm_reg_write(f->g, GA10X_REG_FAULT_BUF_SIZE, 64);
	gm_reg_write(f->g, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
	sm_launch(f);
	CU_ASSERT_EQUAL(gm_run(f->g, 0), GM_STOP_FAULT);
	put = gm_reg_read(f->g, GA10X_REG_FAULT_BUF_PUT);
	CU_ASSERT(put >= 1);
	/* C369 word 6: ENGINE_ID 8:0 */
	CU_ASSERT_EQUAL(rd32(f, FX_FAULTS + 24) & 0x1ff, 384u);

	chan_setup(f, 11, GA10X_ENGINE_HOST, 1);
	gp_put(f, 11, gh100_gp_set_pb_base(PB_VA));
	m[0] = (engine_id & C86F_MEM_OP_A_CANCEL_MMU_ENGINE_ID_MASK) |
	       (uint32_t)fault_va;	/* TARGET_ADDR_LO: VA bits 31:12 */
	m[1] = (uint32_t)(fault_va >> 32);
	m[2] = (uint32_t)FX_TABLES |	/* PDB ONE, ADDR_LO, GPC ENABLE */
	       C56F_MEM_OP_C_REPLAY_CANCEL_VA_GLOBAL << C56F_MEM_OP_C_REPLAY_SHIFT |
	       C56F_MEM_OP_C_ACCESS_TYPE_VIRT_ALL << C56F_MEM_OP_C_ACCESS_TYPE_SHIFT |
	       C56F_MEM_OP_C_PDB_APERTURE_SYS_MEM_COHERENT << C56F_MEM_OP_C_PDB_APERTURE_SHIFT;
	m[3] = C56F_MEM_OP_D_OPERATION_MMU_TLB_INVALIDATE_TARGETED <<
	       C56F_MEM_OP_D_OPERATION_SHIFT;
	push_inc(&p, 0, C56F_MEM_OP_A, 4, m);
	submit_at(f, 11, &p, PB_VA, FX_PB);
	CU_ASSERT_EQUAL(status(f, 11), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	put = gm_reg_read(f->g, EMGPU_REG_LAUNCH_STATUS);
	fx_free(f);
	return put;
}

static void test_cancel_va_engine_384(void)
{
	CU_ASSERT_EQUAL(cancel_va(384), EMGPU_LAUNCH_CANCELLED);
	CU_ASSERT_EQUAL(cancel_va(384 & C56F_MEM_OP_A_CANCEL_MMU_ENGINE_ID_MASK),
			EMGPU_LAUNCH_RUNNING);
}

/*
 * Access counters and VER3's ACD: with a threshold of 1 a counted sysmem
 * access notifies at once (a C365 entry whose MMU_ENGINE_ID is Hopper's
 * graphics 384); through PTEs with ACD (nvidia-uvm's
 * ACCESS_COUNTERS_DISABLED mappings) the same launch counts nothing.
 */
#define FX_AC		0x3b0000ull

static enum gm_stop counted_launch(unsigned int pcf, uint32_t *put,
				   uint32_t *engine_id)
{
	struct fx *f = fx_new(GM_PERSONALITY_GH100);
	enum gm_stop stop;

	fx_map_pcf(f, LAUNCH_VA, FX_SRC, 0x2000, pcf);
	gm_reg_write(f->g, GA10X_REG_AC_BUF_HI, 0);
	gm_reg_write(f->g, GA10X_REG_AC_BUF_LO,
		     (uint32_t)FX_AC | GA10X_BASE_APERTURE_SYSMEM);
	gm_reg_write(f->g, GA10X_REG_AC_BUF_SIZE, 64);
	gm_reg_write(f->g, GA10X_REG_AC_CONFIG, 1);	/* threshold 1, 64K */
	gm_reg_write(f->g, GA10X_REG_AC_CTRL, EMGPU_RING_ENABLE);
	sm_launch(f);
	stop = gm_run(f->g, 0);
	*put = gm_reg_read(f->g, GA10X_REG_AC_BUF_PUT);
	/* C365 word 7: MMU_ENGINE_ID 28:20 */
	*engine_id = rd32(f, FX_AC + 28) >> 20 & 0x1ff;
	CU_ASSERT_EQUAL(f->errors, 0u);
	fx_free(f);
	return stop;
}

static void test_acd_not_counted(void)
{
	uint32_t put, engine_id;

	CU_ASSERT_EQUAL(counted_launch(GH100_PTE_PCF_UNCACHED, &put, &engine_id),
			GM_STOP_NOTIFY);
	CU_ASSERT_EQUAL(put, 1u);
	CU_ASSERT_EQUAL(engine_id, 384u);
	CU_ASSERT_EQUAL(counted_launch(GH100_PTE_PCF_UNCACHED | GH100_PTE_PCF_ACD,
				       &put, &engine_id), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(put, 0u);
}

void add_gh100_fifo_suite(void)
{
	CU_pSuite s = CU_add_suite("gh100_fifo", NULL, NULL);

	CU_add_test(s, "c86f and c8b5 words", test_words);
	CU_add_test(s, "c86f pushbuffer extended base", test_pb_extended_base);
	CU_add_test(s, "c56f has no extended base", test_ga10x_no_extended_base);
	CU_add_test(s, "SEM_ADDR_HI width per class", test_sem_addr_hi);
	CU_add_test(s, "c8b5 virtual copy above 2^56", test_c8b5_virtual_copy);
	CU_add_test(s, "c8b5 fast scrubber", test_c8b5_scrub);
	CU_add_test(s, "c7b5 has no scrubber", test_c7b5_no_scrub);
	CU_add_test(s, "c86f VA-global cancel of engine 384",
		    test_cancel_va_engine_384);
	CU_add_test(s, "VER3 ACD: not counted", test_acd_not_counted);
}
