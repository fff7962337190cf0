/* SPDX-License-Identifier: MIT */
/*
 * GA10x GPFIFO channels, host c56f and CE c7b5 methods: the formats'
 * words against hand-computed values from clc56f.h/clc7b5.h's fields,
 * then channels driven through the register interface as nvidia-uvm
 * drives them (pushbuffer and GPFIFO in sysmem, GP_PUT in USERD, the
 * token to the doorbell). Channels run with GA10X_CHAN_CTRL_NO_MMU: GPU
 * VAs are sysmem addresses.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "ga10x/ce_c7b5.h"
#include "ga10x/gpfifo.h"
#include "ga10x/host_c56f.h"
#include "ga10x/mmu_v2.h"
#include "ga10x/regs.h"

#define FX_SYS_SIZE	(16ull << 20)
#define FX_CHAN_AREA(ch) (0x10000ull + (uint64_t)(ch) * 0x10000)
#define FX_GPFIFO(ch)	FX_CHAN_AREA(ch)		/* 64 entries */
#define FX_USERD(ch)	(FX_CHAN_AREA(ch) + 0x1000)
#define FX_NOTIFIER(ch)	(FX_CHAN_AREA(ch) + 0x2000)
#define FX_PB(ch)	(FX_CHAN_AREA(ch) + 0x4000)	/* 48 KiB */
#define FX_PB_SIZE	0xc000u
#define FX_ENTRIES	64u
#define FX_SEM		0x200000ull
#define FX_DATA		0x400000ull

struct fx {
	struct gm_gpu *g;
	uint8_t *sys;
	struct gmt_flat flat;
	unsigned int errors;
	uint32_t last_error, last_info;
	uint32_t put[GA10X_CHANNELS];		/* GP_PUT of each channel */
	uint32_t pb_off[GA10X_CHANNELS];	/* next free pushbuffer byte */
};

/* a push being built */
struct push {
	uint32_t w[2048];
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

	f->errors++;
	f->last_error = code;
	f->last_info = info;
}

/* work_max: gm_config's (0: the default, GM_CE_WORK) */
static struct fx *fx_new_work(uint64_t work_max)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct gm_callbacks cb = { .dma_read = fx_dma_read,
				   .dma_write = fx_dma_write, .error = fx_error };
	struct gm_config cfg = { .personality = GM_PERSONALITY_GA10X, .seed = 1,
				 .work_max = work_max };

	if (!f || gm_profile_lookup("h200-256m", &cfg.profile))
		abort();
	f->sys = calloc(1, FX_SYS_SIZE);
	f->flat = (struct gmt_flat){ .mem = f->sys, .size = FX_SYS_SIZE };
	cb.opaque = f;
	f->g = gm_create(&cfg, &cb);
	if (!f->g || !f->sys)
		abort();
	return f;
}

static struct fx *fx_new(void)
{
	return fx_new_work(0);
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

static void wr32(struct fx *f, uint64_t a, uint32_t v)
{
	memcpy(f->sys + a, &v, 4);
}

static void chan_reg_write(struct fx *f, unsigned int ch, uint32_t reg, uint32_t v)
{
	gm_reg_write(f->g, GA10X_REG_CHAN(ch, reg), v);
}

static uint32_t chan_reg_read(struct fx *f, unsigned int ch, uint32_t reg)
{
	return gm_reg_read(f->g, GA10X_REG_CHAN(ch, reg));
}

/* The stand-in's part: a channel over FX_CHAN_AREA(ch), engine ce or host. */
static void chan_setup(struct fx *f, unsigned int ch, uint32_t engine)
{
	chan_reg_write(f, ch, GA10X_REG_CHAN_GPFIFO_LO,
		       (uint32_t)FX_GPFIFO(ch) | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, ch, GA10X_REG_CHAN_GPFIFO_HI, 0);
	chan_reg_write(f, ch, GA10X_REG_CHAN_GPFIFO_ENTRIES, FX_ENTRIES);
	chan_reg_write(f, ch, GA10X_REG_CHAN_USERD_LO,
		       (uint32_t)FX_USERD(ch) | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, ch, GA10X_REG_CHAN_NOTIFIER_LO,
		       (uint32_t)FX_NOTIFIER(ch) | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, ch, GA10X_REG_CHAN_ENGINE, engine);
	chan_reg_write(f, ch, GA10X_REG_CHAN_CTRL,
		       GA10X_CHAN_CTRL_ENABLE | GA10X_CHAN_CTRL_NO_MMU);
}

static void emit(struct push *p, uint32_t w)
{
	if (p->n >= sizeof(p->w) / sizeof(p->w[0]))
		abort();
	p->w[p->n++] = w;
}

/* NV_PUSH_nU: one incrementing header, n data words */
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

/* Turing's semaphore_release / _acquire, Volta's semaphore_timestamp */
static void host_sem(struct push *p, uint64_t va, uint64_t payload,
		     uint32_t exec)
{
	uint32_t d[5] = { (uint32_t)va & C56F_SEM_ADDR_LO_MASK,
			  (uint32_t)(va >> 32) & C56F_SEM_ADDR_HI_MASK,
			  (uint32_t)payload, (uint32_t)(payload >> 32), exec };

	push_inc(p, 0, C56F_SEM_ADDR_LO, 5, d);
}

static void host_release(struct push *p, uint64_t va, uint32_t payload)
{
	host_sem(p, va, payload, C56F_SEM_EXECUTE_OPERATION_RELEASE);
}

static void host_acquire(struct push *p, uint64_t va, uint32_t payload)
{
	host_sem(p, va, payload, C56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ |
		 C56F_SEM_EXECUTE_ACQUIRE_SWITCH_TSG_EN);
}

/* What nvidia-uvm does at the end of a push: pushbuffer, GPFIFO entry,
 * GP_PUT in USERD, token to the doorbell. */
static void submit_nodoorbell(struct fx *f, unsigned int ch,
			      const struct push *p)
{
	uint64_t va = FX_PB(ch) + f->pb_off[ch], e;
	uint32_t len = p->n * 4;

	if (f->pb_off[ch] + len > FX_PB_SIZE)
		f->pb_off[ch] = 0, va = FX_PB(ch);
	memcpy(f->sys + va, p->w, len);
	f->pb_off[ch] += len;
	e = ga10x_gp_entry(va, len, 0);
	memcpy(f->sys + FX_GPFIFO(ch) + f->put[ch] * 8ull, &e, 8);
	f->put[ch] = (f->put[ch] + 1) % FX_ENTRIES;
	wr32(f, FX_USERD(ch) + GA10X_USERD_GP_PUT, f->put[ch]);
}

static void doorbell(struct fx *f, unsigned int ch)
{
	gm_reg_write(f->g, GA10X_REG_DOORBELL,
		     chan_reg_read(f, ch, GA10X_REG_CHAN_TOKEN));
}

static void submit(struct fx *f, unsigned int ch, const struct push *p)
{
	submit_nodoorbell(f, ch, p);
	doorbell(f, ch);
}

static uint32_t status(struct fx *f, unsigned int ch)
{
	return chan_reg_read(f, ch, GA10X_REG_CHAN_STATUS);
}

/* ---- formats ---- */

static void test_gpfifo_words(void)
{
	uint64_t e = ga10x_gp_entry(0x1234567890ull, 0x40, 0);

	/* GET 31:2 = VA bits 31:2, GET_HI 7:0, LENGTH 30:10 = 0x40 / 4 */
	CU_ASSERT_EQUAL(e, 0x0000401234567890ull);
	CU_ASSERT_EQUAL(ga10x_gp_entry(0x1234567890ull, 0x40, 1),
			0x8000401234567890ull);
	CU_ASSERT_EQUAL(ga10x_gp_va(e), 0x1234567890ull);
	CU_ASSERT_EQUAL(ga10x_gp_length(e), 0x10u);
	/* set_gpfifo_noop: LENGTH 0, OPCODE NOP */
	CU_ASSERT_EQUAL(ga10x_gp_ctrl(GA10X_GP_OPCODE_NOP, 0), 0ull);
	CU_ASSERT_EQUAL(ga10x_gp_ctrl(GA10X_GP_OPCODE_ILLEGAL, 0), 1ull << 32);
	CU_ASSERT_EQUAL(ga10x_gp_entry(0xfc, 0x1fffffull * 4, 0) >> 32,
			0x7ffffc00ull);
	CU_ASSERT_EQUAL(GA10X_USERD_GP_GET, 0x88);
	CU_ASSERT_EQUAL(GA10X_USERD_GP_PUT, 0x8c);
}

static void test_method_headers(void)
{
	/* SEC_OP 31:29, COUNT 28:16, SUBCHANNEL 15:13, ADDRESS 11:0 */
	CU_ASSERT_EQUAL(ga10x_pb_inc(0, C56F_SEM_ADDR_LO, 5), 0x20050017u);
	CU_ASSERT_EQUAL(ga10x_pb_noninc(0, C56F_NOP, 3), 0x60030002u);
	CU_ASSERT_EQUAL(ga10x_pb_inc(C56F_CE_SUBCH, C7B5_LAUNCH_DMA, 1), 0x200180c0u);
	CU_ASSERT_EQUAL(ga10x_pb_oneinc(1, 0x400, 4), 0xa0042100u);
	CU_ASSERT_EQUAL(ga10x_pb_immd(C56F_UVM_SW_SUBCH, C076_NO_OPERATION, 0x1abc),
			0x9abca040u);
	CU_ASSERT_EQUAL(ga10x_pb_end_segment(), 0xe0000000u);
	CU_ASSERT_EQUAL(ga10x_pb_inc(7, 0x3ffc, GA10X_PB_COUNT_MAX), 0x3fffefffu);
}

static void test_method_values(void)
{
	/* Turing release 32-bit; acquire CIRC_GEQ | SWITCH_TSG; Volta timestamp */
	CU_ASSERT_EQUAL(C56F_SEM_EXECUTE_OPERATION_RELEASE, 0x1u);
	CU_ASSERT_EQUAL(C56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ |
			C56F_SEM_EXECUTE_ACQUIRE_SWITCH_TSG_EN, 0x1003u);
	CU_ASSERT_EQUAL(C56F_SEM_EXECUTE_OPERATION_RELEASE |
			C56F_SEM_EXECUTE_RELEASE_TIMESTAMP_EN, 0x02000001u);
	CU_ASSERT_EQUAL(C56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT, 0x01000000u);
	/* Ampere tlb_invalidate_all of a vidmem PDB at 0x12_3456_7000, depth 0,
	 * membar sys: MEM_OP_C PDB ONE | ADDR_LO | GPC ENABLE | REPLAY NONE |
	 * level UP_TO_PDE3 - 0 | VID_MEM | ACK GLOBALLY; MEM_OP_D op 9 | hi */
	CU_ASSERT_EQUAL(0x34567000u |
			C56F_MEM_OP_C_PAGE_TABLE_LEVEL_UP_TO_PDE3 << C56F_MEM_OP_C_PAGE_TABLE_LEVEL_SHIFT |
			C56F_MEM_OP_C_ACK_TYPE_GLOBALLY << C56F_MEM_OP_C_ACK_TYPE_SHIFT,
			0x345672a0u);
	CU_ASSERT_EQUAL(C56F_MEM_OP_D_OPERATION_MMU_TLB_INVALIDATE <<
			C56F_MEM_OP_D_OPERATION_SHIFT | 0x12u, 0x48000012u);
	CU_ASSERT_EQUAL(C56F_MEM_OP_A_INVAL_SCOPE_NON_LINK_TLBS <<
			C56F_MEM_OP_A_INVAL_SCOPE_SHIFT, 0x80u);
	/* Volta access_counter_clear_targeted MOMC, bank 3 */
	CU_ASSERT_EQUAL(C56F_MEM_OP_D_OPERATION_ACCESS_COUNTER_CLR << C56F_MEM_OP_D_OPERATION_SHIFT |
			C56F_MEM_OP_D_AC_CLR_TYPE_TARGETED |
			C56F_MEM_OP_D_AC_CLR_TARGETED_TYPE_MOMC |
			3u << C56F_MEM_OP_D_AC_CLR_TARGETED_BANK_SHIFT, 0xb000001fu);
	/* c076 FAULT_CANCEL_C global */
	CU_ASSERT_EQUAL(C076_FAULT_CANCEL_C_MODE_GLOBAL << C076_FAULT_CANCEL_C_MODE_SHIFT,
			0x40000000u);
	/* Volta CE semaphore_release with FLUSH SYS, c7b5's DISABLE_PLC */
	CU_ASSERT_EQUAL(C7B5_LAUNCH_DMA_FLUSH_ENABLE |
			C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD << C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT |
			C7B5_LAUNCH_DMA_DISABLE_PLC, 0x0400000cu);
	/* memcopy phys -> phys, non-pipelined, pitch/pitch */
	CU_ASSERT_EQUAL(C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
			C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH |
			C7B5_LAUNCH_DMA_SRC_TYPE_PHYSICAL | C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL |
			C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED |
			C7B5_LAUNCH_DMA_DISABLE_PLC, 0x04003182u);
	/* memset_8: DST_X CONST_A, DST_Y CONST_B, COMPONENT_SIZE FOUR, two dst */
	CU_ASSERT_EQUAL(C7B5_REMAP_CONST_A << C7B5_REMAP_DST_X_SHIFT |
			C7B5_REMAP_CONST_B << C7B5_REMAP_DST_Y_SHIFT |
			C7B5_REMAP_COMPONENT_SIZE_FOUR << C7B5_REMAP_COMPONENT_SIZE_SHIFT |
			C7B5_REMAP_NUM_COMPONENTS_TWO << C7B5_REMAP_NUM_DST_COMPONENTS_SHIFT,
			0x01030054u);
	/* reduction INC unsigned enabled */
	CU_ASSERT_EQUAL(C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_INC << C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SHIFT |
			C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SIGN_UNSIGNED |
			C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_ENABLE, 0x000d8000u);
}

/* ---- channels ---- */

static void test_release_32_64(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };

	chan_setup(f, 3, GA10X_ENGINE_HOST);
	CU_ASSERT_EQUAL(status(f, 3), GA10X_CHAN_STATUS_IDLE);
	host_release(&p, FX_SEM, 0xcafef00d);
	host_sem(&p, FX_SEM + 8, 0x1122334455667788ull,
		 C56F_SEM_EXECUTE_OPERATION_RELEASE | C56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT);
	wr32(f, FX_SEM + 4, 0x5a5a5a5a);
	submit(f, 3, &p);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0xcafef00du);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 4), 0x5a5a5a5au);	/* 4 bytes only */
	CU_ASSERT_EQUAL(rd64(f, FX_SEM + 8), 0x1122334455667788ull);
	CU_ASSERT_EQUAL(rd32(f, FX_USERD(3) + GA10X_USERD_GP_GET), 1u);
	CU_ASSERT_EQUAL(status(f, 3), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	fx_free(f);
}

static void test_release_timestamp(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };

	chan_setup(f, 0, GA10X_ENGINE_HOST);
	memset(f->sys + FX_SEM, 0xee, 16);
	host_sem(&p, FX_SEM, 0xdeadbeef, C56F_SEM_EXECUTE_OPERATION_RELEASE |
		 C56F_SEM_EXECUTE_RELEASE_TIMESTAMP_EN);
	submit(f, 0, &p);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0xdeadbeefu);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 4), 0u);
	CU_ASSERT_EQUAL(rd64(f, FX_SEM + 8), gm_now_ns(f->g));
	/* PTIMER reads the same clock */
	CU_ASSERT_EQUAL(gm_reg_read(f->g, GA10X_REG_PTIMER_TIME_0),
			(uint32_t)gm_now_ns(f->g));
	/* a misaligned 16-byte release is refused: RC */
	p.n = 0;
	host_sem(&p, FX_SEM + 4, 1, C56F_SEM_EXECUTE_OPERATION_RELEASE |
		 C56F_SEM_EXECUTE_RELEASE_TIMESTAMP_EN);
	submit(f, 0, &p);
	CU_ASSERT_EQUAL(status(f, 0), GA10X_CHAN_STATUS_RC);	/* its segment is left */
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_DESCRIPTOR);
	fx_free(f);
}

static void test_acquire_cpu_release(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };

	chan_setup(f, 1, GA10X_ENGINE_HOST);
	wr32(f, FX_SEM, 3);
	host_acquire(&p, FX_SEM, 5);
	host_release(&p, FX_SEM + 16, 7);
	submit(f, 1, &p);
	CU_ASSERT_EQUAL(status(f, 1), GA10X_CHAN_STATUS_BLOCKED);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 0u);
	wr32(f, FX_SEM, 4);
	CU_ASSERT_EQUAL(gm_poll(f->g), 1u);
	CU_ASSERT_EQUAL(status(f, 1), GA10X_CHAN_STATUS_BLOCKED);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 0u);
	wr32(f, FX_SEM, 5);
	CU_ASSERT_EQUAL(gm_poll(f->g), 0u);
	CU_ASSERT_EQUAL(status(f, 1), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 7u);

	/* circular >=: 2 is past 0xffffffff, 0xfffffffe is not past 1 */
	p.n = 0;
	wr32(f, FX_SEM, 2);
	host_acquire(&p, FX_SEM, 0xffffffffu);
	host_release(&p, FX_SEM + 16, 8);
	host_acquire(&p, FX_SEM + 32, 1);
	host_release(&p, FX_SEM + 16, 9);
	wr32(f, FX_SEM + 32, 0xfffffffeu);
	submit(f, 1, &p);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 8u);
	CU_ASSERT_EQUAL(status(f, 1), GA10X_CHAN_STATUS_BLOCKED);
	wr32(f, FX_SEM + 32, 1);
	CU_ASSERT_EQUAL(gm_poll(f->g), 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 9u);
	CU_ASSERT_EQUAL(status(f, 1), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	fx_free(f);
}

/* waiter acquires what releaser releases; the waiter's doorbell first */
static void cross(unsigned int waiter, unsigned int releaser)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };

	chan_setup(f, waiter, GA10X_ENGINE_HOST);
	chan_setup(f, releaser, GA10X_ENGINE_HOST);
	host_acquire(&p, FX_SEM, 1);
	host_release(&p, FX_SEM + 16, 0x77);
	submit(f, waiter, &p);
	CU_ASSERT_EQUAL(status(f, waiter), GA10X_CHAN_STATUS_BLOCKED);
	p.n = 0;
	host_release(&p, FX_SEM, 1);
	submit(f, releaser, &p);
	CU_ASSERT_EQUAL(status(f, releaser), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(status(f, waiter), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 0x77u);
	/* and both doorbells rung after both pushes are written */
	p.n = 0;
	host_acquire(&p, FX_SEM, 2);
	host_release(&p, FX_SEM + 16, 0x78);
	submit_nodoorbell(f, waiter, &p);
	p.n = 0;
	host_release(&p, FX_SEM, 2);
	submit_nodoorbell(f, releaser, &p);
	doorbell(f, waiter);
	CU_ASSERT_EQUAL(status(f, waiter), GA10X_CHAN_STATUS_BLOCKED);
	doorbell(f, releaser);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 0x78u);
	CU_ASSERT_EQUAL(status(f, waiter), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	fx_free(f);
}

static void test_cross_channel_lower_waits(void)
{
	cross(2, 9);	/* the releaser runs after the waiter in a pass */
}

static void test_cross_channel_higher_waits(void)
{
	cross(9, 2);
}

/* uvm_hal_maxwell_ce_init, then a physical memcopy as Volta's memcopy */
static void ce_init(struct push *p)
{
	push1(p, 0, C56F_SET_OBJECT, AMPERE_DMA_COPY_B_CLASS);
	push1(p, C56F_UVM_SW_SUBCH, C076_SET_OBJECT, GP100_UVM_SW_CLASS);
}

static void ce_offsets(struct push *p, uint64_t in, uint64_t out)
{
	uint32_t d[4] = { (uint32_t)(in >> 32), (uint32_t)in,
			  (uint32_t)(out >> 32), (uint32_t)out };

	push_inc(p, C56F_CE_SUBCH, C7B5_OFFSET_IN_UPPER, 4, d);
}

static void ce_copy_phys(struct push *p, uint32_t src_target, uint64_t src,
			 uint32_t dst_target, uint64_t dst, uint32_t len)
{
	uint32_t modes[2] = { src_target, dst_target };

	push_inc(p, C56F_CE_SUBCH, C7B5_SET_SRC_PHYS_MODE, 2, modes);
	ce_offsets(p, src, dst);
	push1(p, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, len);
	push1(p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_SRC_TYPE_PHYSICAL | C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL |
	      C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED |
	      C7B5_LAUNCH_DMA_DISABLE_PLC);
}

static void ce_release(struct push *p, uint64_t va, uint32_t payload,
		       uint32_t extra)
{
	uint32_t d[3] = { (uint32_t)(va >> 32), (uint32_t)va, payload };

	push_inc(p, C56F_CE_SUBCH, C7B5_SET_SEMAPHORE_A, 3, d);
	push1(p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_FLUSH_ENABLE |
	      C7B5_LAUNCH_DMA_DISABLE_PLC | extra);
}

static void test_memcopy_phys(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	struct gm_stats s0, s1;
	const uint32_t len = 96 * 1024;
	uint32_t i, mismatches = 0;
	uint8_t *v = malloc(len);

	for (i = 0; i < len / 4; i++)
		wr32(f, FX_DATA + 4 * i, i * 0x9e3779b9u + 1);
	chan_setup(f, 4, 1);
	gm_get_stats(f->g, &s0);
	ce_init(&p);
	ce_copy_phys(&p, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM, FX_DATA,
		     C7B5_PHYS_MODE_TARGET_LOCAL_FB, 0x300000, len);
	ce_copy_phys(&p, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 0x300000,
		     C7B5_PHYS_MODE_TARGET_NONCOHERENT_SYSMEM, FX_DATA + 0x100000, len);
	ce_release(&p, FX_SEM, 0x55, C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	submit(f, 4, &p);
	CU_ASSERT_EQUAL(status(f, 4), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0x55u);
	CU_ASSERT_FATAL(v != NULL);
	CU_ASSERT_EQUAL(gm_vram_read(f->g, 0x300000, v, len), 0);
	for (i = 0; i < len / 4; i++) {
		uint32_t want = i * 0x9e3779b9u + 1, a, b;

		memcpy(&a, v + 4 * i, 4);
		b = rd32(f, FX_DATA + 0x100000 + 4 * i);
		mismatches += a != want || b != want;
	}
	CU_ASSERT_EQUAL(mismatches, 0u);
	gm_get_stats(f->g, &s1);
	CU_ASSERT_EQUAL(s1.copies - s0.copies, 2u);
	CU_ASSERT_EQUAL(s1.bytes_h2d - s0.bytes_h2d, len);
	CU_ASSERT_EQUAL(s1.bytes_d2h - s0.bytes_d2h, len);
	/* the copies took modelled time: the idle clock moved past them */
	CU_ASSERT(gm_now_ns(f->g) > 0);
	free(v);
	fx_free(f);
}

static void ce_memset_xfer(struct push *p, uint32_t target, uint64_t dst,
			   uint32_t const_a, uint32_t const_b,
			   uint32_t components, uint32_t elems, uint32_t xfer)
{
	uint32_t d[3] = { const_a, const_b, components };

	push_inc(p, C56F_CE_SUBCH, C7B5_SET_REMAP_CONST_A, 3, d);
	push1(p, C56F_CE_SUBCH, C7B5_SET_DST_PHYS_MODE, target);
	d[0] = (uint32_t)(dst >> 32);
	d[1] = (uint32_t)dst;
	push_inc(p, C56F_CE_SUBCH, C7B5_OFFSET_OUT_UPPER, 2, d);
	push1(p, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, elems);
	push1(p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH | C7B5_LAUNCH_DMA_REMAP_ENABLE |
	      C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL | xfer | C7B5_LAUNCH_DMA_DISABLE_PLC);
}

static void ce_memset(struct push *p, uint32_t target, uint64_t dst,
		      uint32_t const_a, uint32_t const_b, uint32_t components,
		      uint32_t elems)
{
	ce_memset_xfer(p, target, dst, const_a, const_b, components, elems,
		       C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED);
}

/* SET_REMAP_COMPONENTS of memset_8: const A the low word, const B the high */
#define REMAP_MEMSET_8 (C7B5_REMAP_CONST_A << C7B5_REMAP_DST_X_SHIFT |		\
			C7B5_REMAP_CONST_B << C7B5_REMAP_DST_Y_SHIFT |		\
			C7B5_REMAP_COMPONENT_SIZE_FOUR << C7B5_REMAP_COMPONENT_SIZE_SHIFT | \
			C7B5_REMAP_NUM_COMPONENTS_TWO << C7B5_REMAP_NUM_DST_COMPONENTS_SHIFT)

static void test_memset_remap(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	/* SET_REMAP_COMPONENTS as memset_4, memset_8 and memset_1 push it */
	const uint32_t four = C7B5_REMAP_CONST_B << C7B5_REMAP_DST_X_SHIFT |
			      C7B5_REMAP_COMPONENT_SIZE_FOUR << C7B5_REMAP_COMPONENT_SIZE_SHIFT |
			      C7B5_REMAP_NUM_COMPONENTS_ONE << C7B5_REMAP_NUM_DST_COMPONENTS_SHIFT;
	const uint32_t eight = REMAP_MEMSET_8;
	const uint32_t one = C7B5_REMAP_CONST_B << C7B5_REMAP_DST_X_SHIFT |
			     C7B5_REMAP_COMPONENT_SIZE_ONE << C7B5_REMAP_COMPONENT_SIZE_SHIFT;
	uint32_t i, bad4 = 0, bad8 = 0, bad1 = 0, w[2];
	uint8_t *v = malloc(80000);

	CU_ASSERT_FATAL(v != NULL);
	chan_setup(f, 0, 0);
	ce_init(&p);
	/* memset_4 of 70000 bytes of vidmem at 0x200000 */
	CU_ASSERT_EQUAL(four, 0x00030005u);
	CU_ASSERT_EQUAL(eight, 0x01030054u);
	CU_ASSERT_EQUAL(one, 0x00000005u);
	ce_memset(&p, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 0x200000, 0, 0xdeadbeef,
		  four, 70000 / 4);
	/* memset_8 of 40000 bytes of sysmem */
	ce_memset(&p, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM, FX_DATA, 0x11112222,
		  0x33334444, eight, 5000);
	/* memset_1 of 999 bytes: COMPONENT_SIZE ONE, const B 0x5a */
	ce_memset(&p, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM, FX_DATA + 0x20001, 0,
		  0x5a, one, 999);
	submit(f, 0, &p);
	CU_ASSERT_EQUAL(status(f, 0), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(gm_vram_read(f->g, 0x200000, v, 70004), 0);
	for (i = 0; i < 70000 / 4; i++) {
		memcpy(w, v + 4 * i, 4);
		bad4 += w[0] != 0xdeadbeefu;
	}
	memcpy(w, v + 70000, 4);
	CU_ASSERT_EQUAL(w[0], 0u);	/* nothing past the end */
	CU_ASSERT_EQUAL(bad4, 0u);
	for (i = 0; i < 5000; i++)
		bad8 += rd64(f, FX_DATA + 8 * i) != 0x3333444411112222ull;
	CU_ASSERT_EQUAL(bad8, 0u);
	CU_ASSERT_EQUAL(rd64(f, FX_DATA + 40000), 0ull);
	for (i = 0; i < 999; i++)
		bad1 += f->sys[FX_DATA + 0x20001 + i] != 0x5a;
	CU_ASSERT_EQUAL(bad1, 0u);
	CU_ASSERT_EQUAL(f->sys[FX_DATA + 0x20000], 0);
	CU_ASSERT_EQUAL(f->sys[FX_DATA + 0x20001 + 999], 0);
	free(v);
	fx_free(f);
}

/*
 * `ptes` PTE writes of 8 bytes to VRAM in one push between two timestamped
 * releases, as uvm_pte_batch_flush_ptes_memset() pushes them: the first
 * NON_PIPELINED, the rest PIPELINED when `pipelined`. Returns the modelled
 * ns between the releases; *bad counts PTEs not as written.
 */
static uint64_t pte_writes_ns(unsigned int ptes, int pipelined,
			      unsigned int *bad)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	uint64_t t;
	unsigned int i;
	uint8_t pte[8];

	chan_setup(f, 0, 0);
	ce_init(&p);
	ce_release(&p, FX_SEM, 1, C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	for (i = 0; i < ptes; i++)
		ce_memset_xfer(&p, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 0x400000 + 8 * i,
			       0x1000 * i | 1, 0x80, REMAP_MEMSET_8, 1,
			       pipelined && i ? C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_PIPELINED :
			       C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED);
	ce_release(&p, FX_SEM + 16, 2, C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	submit(f, 0, &p);
	CU_ASSERT_EQUAL(status(f, 0), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 2u);
	*bad = 0;
	for (i = 0; i < ptes; i++) {
		uint64_t want = 0x80ull << 32 | (0x1000 * i | 1), got;

		CU_ASSERT_EQUAL(gm_vram_read(f->g, 0x400000 + 8 * i, pte, 8), 0);
		memcpy(&got, pte, 8);
		*bad += got != want;
	}
	t = rd64(f, FX_SEM + 24) - rd64(f, FX_SEM + 8);
	fx_free(f);
	return t;
}

/*
 * PIPELINED launches decode while the previous transfer runs: 16 PTE
 * writes cost one copy-engine setup and their bytes, not 16 setups; the
 * same writes NON_PIPELINED pay each setup, exactly 15 more.
 */
static void test_ce_pipelined_setup(void)
{
	struct gm_profile prof;
	unsigned int bad_p, bad_np;
	uint64_t p = pte_writes_ns(16, 1, &bad_p);
	uint64_t np = pte_writes_ns(16, 0, &bad_np);
	uint64_t setup;

	CU_ASSERT_FATAL(gm_profile_lookup("h200-256m", &prof) == 0);	/* fx_new()'s */
	setup = prof.ce_setup_ns;
	CU_ASSERT_EQUAL(bad_p, 0u);
	CU_ASSERT_EQUAL(bad_np, 0u);
	CU_ASSERT(p >= setup);
	CU_ASSERT(p < 2 * setup);
	CU_ASSERT_EQUAL(np - p, 15 * setup);
}

static void test_ce_four_word_and_reduction(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	unsigned int i;

	chan_setup(f, 5, 0);
	ce_init(&p);
	memset(f->sys + FX_SEM, 0xee, 16);
	ce_release(&p, FX_SEM, 0xdeadbeef,
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	/* semaphore_reduction_inc, payload 10, 10 times from 0 */
	for (i = 0; i < 10; i++)
		ce_release(&p, FX_SEM + 32, 10,
			   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
			   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT |
			   C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_INC <<
			   C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SHIFT |
			   C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SIGN_UNSIGNED |
			   C7B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_ENABLE);
	submit(f, 5, &p);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0xdeadbeefu);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 4), 0u);
	CU_ASSERT_EQUAL(rd64(f, FX_SEM + 8), gm_now_ns(f->g));
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 32), 10u);
	fx_free(f);
}

/*
 * uvm_push_test's test_timestamp: ten pushes, each one GPFIFO entry with a
 * timestamped release, each waited for: every timestamp later than the
 * one before, by the sysmem ring's fetch (the profile's link latency).
 */
static void test_timestamps_increase(void)
{
	struct fx *f = fx_new();
	uint64_t last = 0, ts, fetch = gm_get_profile(f->g)->link_latency_ns;
	unsigned int i;

	chan_setup(f, 0, GA10X_ENGINE_HOST);
	for (i = 0; i < 10; i++) {
		struct push p = { .n = 0 };

		host_sem(&p, FX_SEM + 16 * i, i, C56F_SEM_EXECUTE_OPERATION_RELEASE |
			 C56F_SEM_EXECUTE_RELEASE_TIMESTAMP_EN);
		submit(f, 0, &p);
		ts = rd64(f, FX_SEM + 16 * i + 8);
		CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16 * i), i);
		CU_ASSERT(ts > last);
		if (i)
			CU_ASSERT_EQUAL(ts - last, fetch);
		CU_ASSERT_EQUAL(ts, gm_now_ns(f->g));
		last = ts;
	}
	CU_ASSERT_EQUAL(f->errors, 0u);
	fx_free(f);
}

/*
 * Channel 0 copies 1 MiB sysmem to VRAM between two four-word releases:
 * FX_SEM (payload 1) before it, FX_SEM + 16 (payload 2) after it, each
 * with its timestamp at +8.
 */
static void submit_timed_copy(struct fx *f)
{
	struct push p = { .n = 0 };

	chan_setup(f, 0, 0);
	ce_init(&p);
	ce_release(&p, FX_SEM, 1, C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	ce_copy_phys(&p, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM, FX_DATA,
		     C7B5_PHYS_MODE_TARGET_LOCAL_FB, 0, 1u << 20);
	ce_release(&p, FX_SEM + 16, 2, C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	submit(f, 0, &p);
}

static void test_timestamp_after_copy(void)
{
	struct fx *f = fx_new();
	uint64_t t0;

	submit_timed_copy(f);
	t0 = rd64(f, FX_SEM + 8);
	CU_ASSERT_EQUAL(f->errors, 0u);
	/* 1 MiB over the link takes microseconds; the release after it sees
	 * its completion, which is where the idle device's clock is now */
	CU_ASSERT(rd64(f, FX_SEM + 24) > t0 + 1000);
	CU_ASSERT_EQUAL(rd64(f, FX_SEM + 24), gm_now_ns(f->g));
	fx_free(f);
}

static void test_nops_accepted(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	uint64_t e;

	chan_setup(f, 6, 0);
	ce_init(&p);
	emit(&p, ga10x_pb_noninc(0, C56F_NOP, 3));	/* inline data */
	emit(&p, 0xffffffffu);
	emit(&p, ga10x_pb_inc(0, C56F_SEM_EXECUTE, 1));	/* looks like a method */
	emit(&p, 0x12345678u);
	emit(&p, ga10x_pb_noninc(0, C56F_NOP, 0));
	push1(&p, 0, C56F_WFI, 0);
	emit(&p, GA10X_PB_DMA_NOP);
	emit(&p, ga10x_pb_immd(0, C56F_WFI, 1));
	emit(&p, ga10x_pb_immd(C56F_UVM_SW_SUBCH, C076_NO_OPERATION, 0));
	push1(&p, C56F_CE_SUBCH, C7B5_NOP, 0);
	push1(&p, 0, C56F_MEM_OP_A, 0);		/* Pascal membar_sys */
	push1(&p, 0, C56F_MEM_OP_B, 0);
	push1(&p, 0, C56F_MEM_OP_C, C56F_MEM_OP_C_MEMBAR_TYPE_SYS_MEMBAR);
	push1(&p, 0, C56F_MEM_OP_D, C56F_MEM_OP_D_OPERATION_MEMBAR <<
	      C56F_MEM_OP_D_OPERATION_SHIFT);
	host_release(&p, FX_SEM, 0x42);
	emit(&p, ga10x_pb_end_segment());
	emit(&p, ga10x_pb_immd(0, C56F_ILLEGAL, 0));	/* past the end: unread */
	submit_nodoorbell(f, 6, &p);
	/* a control NOP entry, then a push */
	e = ga10x_gp_ctrl(GA10X_GP_OPCODE_NOP, 0);
	memcpy(f->sys + FX_GPFIFO(6) + f->put[6] * 8ull, &e, 8);
	f->put[6]++;
	p.n = 0;
	host_release(&p, FX_SEM + 4, 0x43);
	submit(f, 6, &p);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0x42u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 4), 0x43u);
	CU_ASSERT_EQUAL(rd32(f, FX_USERD(6) + GA10X_USERD_GP_GET), 3u);
	CU_ASSERT_EQUAL(status(f, 6), GA10X_CHAN_STATUS_IDLE);
	fx_free(f);
}

static void test_bad_method_rc(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };

	chan_setup(f, 7, 0);
	host_release(&p, FX_SEM, 1);
	push1(&p, 0, C56F_ILLEGAL, 0);
	host_release(&p, FX_SEM + 4, 2);	/* never runs */
	submit(f, 7, &p);
	p.n = 0;
	host_release(&p, FX_SEM + 8, 3);	/* the next entry neither */
	submit(f, 7, &p);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 1u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 4), 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 8), 0u);
	CU_ASSERT_EQUAL(status(f, 7) & GA10X_CHAN_STATUS_RC, GA10X_CHAN_STATUS_RC);
	/* NvNotification: timestamp, info32 PBDMA_ERROR, info16 COPY0, status */
	CU_ASSERT_EQUAL(rd64(f, FX_NOTIFIER(7)), gm_now_ns(f->g));
	CU_ASSERT_EQUAL(rd32(f, FX_NOTIFIER(7) + 8), 32u);
	CU_ASSERT_EQUAL(rd32(f, FX_NOTIFIER(7) + 12), 0xffff0009u);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_DESCRIPTOR);
	CU_ASSERT_EQUAL(f->last_info, 7u << 16 | 1u);
	CU_ASSERT_EQUAL(rd32(f, FX_USERD(7) + GA10X_USERD_GP_GET), 1u);
	/* CLEAR_RC resumes after the failed entry */
	chan_reg_write(f, 7, GA10X_REG_CHAN_CTRL, GA10X_CHAN_CTRL_ENABLE |
		       GA10X_CHAN_CTRL_NO_MMU | GA10X_CHAN_CTRL_CLEAR_RC);
	doorbell(f, 7);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 4), 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 8), 3u);
	CU_ASSERT_EQUAL(status(f, 7), GA10X_CHAN_STATUS_IDLE);
	fx_free(f);
}

static void test_ce_access_rc(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	struct push q = { .n = 0 };

	chan_setup(f, 2, 0);
	ce_init(&p);
	/* source beyond guest RAM: the DMA fails, an MMU-fault RC */
	ce_copy_phys(&p, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM, FX_SYS_SIZE,
		     C7B5_PHYS_MODE_TARGET_LOCAL_FB, 0, 4096);
	ce_release(&p, FX_SEM, 1, C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	submit(f, 2, &p);
	CU_ASSERT_EQUAL(status(f, 2) & GA10X_CHAN_STATUS_RC, GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_NOTIFIER(2) + 8), 31u);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_DMA);
	/* vidmem beyond VRAM (uvm_channel_test's proxy case) */
	chan_setup(f, 3, 0);
	ce_init(&q);
	ce_memset(&q, C7B5_PHYS_MODE_TARGET_LOCAL_FB, 1ull << 40, 0, 0,
		  C7B5_REMAP_CONST_B | C7B5_REMAP_COMPONENT_SIZE_FOUR <<
		  C7B5_REMAP_COMPONENT_SIZE_SHIFT, 2);
	submit(f, 3, &q);
	CU_ASSERT_EQUAL(status(f, 3) & GA10X_CHAN_STATUS_RC, GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(rd32(f, FX_NOTIFIER(3) + 8), 31u);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_VRAM_RANGE);
	/* CE methods on a host-only channel */
	p.n = 0;
	chan_setup(f, 4, GA10X_ENGINE_HOST);
	push1(&p, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, 4);
	submit(f, 4, &p);
	CU_ASSERT_EQUAL(status(f, 4) & GA10X_CHAN_STATUS_RC, GA10X_CHAN_STATUS_RC);
	fx_free(f);
}

static uint64_t copies(struct fx *f)
{
	struct gm_stats st;

	gm_get_stats(f->g, &st);
	return st.copies;
}

/*
 * ce-error on a GA10x copy: the transfer fails before a byte moves, the
 * channel goes to RC with CE0's ROBUST_CHANNEL_CE0_ERROR (39) in its
 * notifier and EMGPU_ERR_CE latched, the release after it never runs;
 * CLEAR_RC resumes and the next copy (count=1 spent) moves its bytes.
 */
static void test_ce_error_injected(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	char err[96];
	uint8_t v[4096];
	unsigned int i, nonzero = 0;
	int slot;

	for (i = 0; i < sizeof(v) / 4; i++)
		wr32(f, FX_DATA + 4 * i, 0xc0de0000u + i);
	chan_setup(f, 2, 0);
	slot = gm_inject_add(f->g, "kind=ce-error", err, sizeof(err));
	CU_ASSERT_FATAL(slot >= 0);
	ce_init(&p);
	ce_copy_phys(&p, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM, FX_DATA,
		     C7B5_PHYS_MODE_TARGET_LOCAL_FB, 0x300000, sizeof(v));
	ce_release(&p, FX_SEM, 1, C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	submit(f, 2, &p);
	CU_ASSERT_EQUAL(gm_inject_fired(f->g, slot), 1u);
	CU_ASSERT_EQUAL(status(f, 2) & GA10X_CHAN_STATUS_RC, GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_NOTIFIER(2) + 8), 39u);
	CU_ASSERT_EQUAL(rd32(f, FX_NOTIFIER(2) + 12), 0xffff0009u);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_CE);
	CU_ASSERT_EQUAL(copies(f), 0u);
	CU_ASSERT_EQUAL(gm_vram_read(f->g, 0x300000, v, sizeof(v)), 0);
	for (i = 0; i < sizeof(v); i++)
		nonzero += v[i] != 0;
	CU_ASSERT_EQUAL(nonzero, 0u);
	/* CLEAR_RC skips the failed entry; the copy again, with the count spent */
	chan_reg_write(f, 2, GA10X_REG_CHAN_CTRL, GA10X_CHAN_CTRL_ENABLE |
		       GA10X_CHAN_CTRL_NO_MMU | GA10X_CHAN_CTRL_CLEAR_RC);
	p.n = 0;
	ce_copy_phys(&p, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM, FX_DATA,
		     C7B5_PHYS_MODE_TARGET_LOCAL_FB, 0x300000, sizeof(v));
	ce_release(&p, FX_SEM, 2, C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	submit(f, 2, &p);
	CU_ASSERT_EQUAL(status(f, 2), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 2u);
	CU_ASSERT_EQUAL(gm_inject_fired(f->g, slot), 1u);
	CU_ASSERT_EQUAL(copies(f), 1u);
	CU_ASSERT_EQUAL(gm_vram_read(f->g, 0x300000, v, sizeof(v)), 0);
	for (i = 0, nonzero = 0; i < sizeof(v) / 4; i++) {
		uint32_t w;

		memcpy(&w, v + 4 * i, 4);
		nonzero += w != 0xc0de0000u + i;
	}
	CU_ASSERT_EQUAL(nonzero, 0u);
	/* during=launch: a copy outside a launch neither fires nor fails */
	slot = gm_inject_add(f->g, "kind=ce-error,during=launch", err, sizeof(err));
	CU_ASSERT_FATAL(slot >= 0);
	submit(f, 2, &p);
	CU_ASSERT_EQUAL(gm_inject_fired(f->g, slot), 0u);
	CU_ASSERT_EQUAL(status(f, 2), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(copies(f), 2u);
	fx_free(f);
}

/* A copy's modelled time from the four-word releases around it, in ns. */
static uint64_t timed_copy(const char *spec, uint64_t *fired)
{
	struct fx *f = fx_new();
	char err[96];
	int slot = spec ? gm_inject_add(f->g, spec, err, sizeof(err)) : -1;
	uint64_t d;

	if (spec && slot < 0)
		abort();
	submit_timed_copy(f);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 16), 2u);
	d = rd64(f, FX_SEM + 24) - rd64(f, FX_SEM + 8);
	*fired = spec ? gm_inject_fired(f->g, slot) : 0;
	fx_free(f);
	return d;
}

/*
 * ce-stall on a GA10x copy: the bytes move, the transfer's time past the
 * engine's set-up is factor times as long (each timestamp is rounded to a
 * ns, so 10 x the plain one is exact to 10 ns).
 */
static void test_ce_stall_injected(void)
{
	struct fx *f = fx_new();
	uint64_t setup = gm_get_profile(f->g)->ce_setup_ns, fired, plain, stalled;
	int64_t diff;

	fx_free(f);
	plain = timed_copy(NULL, &fired);
	stalled = timed_copy("kind=ce-stall,factor=10", &fired);
	CU_ASSERT_EQUAL(fired, 1u);
	CU_ASSERT(plain > setup + 1000);	/* 1 MiB over the link */
	diff = (int64_t)(stalled - setup) - 10 * (int64_t)(plain - setup);
	CU_ASSERT(diff >= -10 && diff <= 10);
}

static void test_bad_token_and_regs(void)
{
	struct fx *f = fx_new();

	gm_reg_write(f->g, GA10X_REG_DOORBELL, GA10X_CHANNELS);
	CU_ASSERT_EQUAL(f->errors, 1u);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(f->last_info, (uint32_t)GA10X_CHANNELS);
	gm_reg_write(f->g, GA10X_REG_DOORBELL, 5);	/* not enabled */
	CU_ASSERT_EQUAL(f->errors, 2u);
	CU_ASSERT_EQUAL(f->last_info, 5u);
	chan_setup(f, 5, 0);
	CU_ASSERT_EQUAL(f->errors, 2u);
	CU_ASSERT_EQUAL(chan_reg_read(f, 5, GA10X_REG_CHAN_TOKEN), 5u);
	CU_ASSERT_EQUAL(chan_reg_read(f, 5, GA10X_REG_CHAN_GPFIFO_LO),
			(uint32_t)FX_GPFIFO(5) | GA10X_BASE_APERTURE_SYSMEM);
	/* GP_PUT past the ring: RC */
	wr32(f, FX_USERD(5) + GA10X_USERD_GP_PUT, FX_ENTRIES);
	doorbell(f, 5);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_INDEX);
	CU_ASSERT_EQUAL(status(f, 5) & GA10X_CHAN_STATUS_RC, GA10X_CHAN_STATUS_RC);
	/* registers of an enabled channel are fixed; entries a power of two */
	chan_reg_write(f, 5, GA10X_REG_CHAN_GPFIFO_ENTRIES, 128);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(chan_reg_read(f, 5, GA10X_REG_CHAN_GPFIFO_ENTRIES), FX_ENTRIES);
	chan_reg_write(f, 6, GA10X_REG_CHAN_GPFIFO_ENTRIES, 48);
	CU_ASSERT_EQUAL(f->last_info, GA10X_REG_CHAN(6, GA10X_REG_CHAN_GPFIFO_ENTRIES));
	chan_reg_write(f, 6, GA10X_REG_CHAN_USERD_LO, 0x1000 | 1);	/* aperture 1 */
	CU_ASSERT_EQUAL(f->last_info, GA10X_REG_CHAN(6, GA10X_REG_CHAN_USERD_LO));
	f->errors = 0;
	chan_reg_write(f, 6, GA10X_REG_CHAN_STATUS, 0);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_REGISTER);
	CU_ASSERT_EQUAL(f->errors, 1u);
	fx_free(f);
}

/* ---- through the page directory, and the interrupt leaf ---- */

#define FX_TABLES	0x800000ull	/* PD3, PD2, PD1, PD0, 4K table */
#define FX_VA		0x100000000ull	/* PD1 index 8, PD0 0, PT 0 */

/* maps va to sysmem pa in the tables at t (PD3, PD2, PD1, PD0, PT a page apart) */
static void map4k_at(struct fx *f, uint64_t t, uint64_t va, uint64_t pa)
{
	uint64_t e;

	e = ga10x_pde(GA10X_PDE_APERTURE_SYS_COH, t + 0x1000);
	memcpy(f->sys + t + ((va >> 47) & 3) * 8, &e, 8);
	e = ga10x_pde(GA10X_PDE_APERTURE_SYS_COH, t + 0x2000);
	memcpy(f->sys + t + 0x1000 + ((va >> 38) & 511) * 8, &e, 8);
	e = ga10x_pde(GA10X_PDE_APERTURE_SYS_COH, t + 0x3000);
	memcpy(f->sys + t + 0x2000 + ((va >> 29) & 511) * 8, &e, 8);
	e = ga10x_dual_pde_small(GA10X_PDE_APERTURE_SYS_COH, t + 0x4000);
	memcpy(f->sys + t + 0x3000 + ((va >> 21) & 255) * 16 + 8, &e, 8);
	e = ga10x_pte(GA10X_PTE_APERTURE_SYS_COH, pa, 0, 0, 0);
	memcpy(f->sys + t + 0x4000 + ((va >> 12) & 511) * 8, &e, 8);
}

static void map4k(struct fx *f, uint64_t va, uint64_t pa)
{
	map4k_at(f, FX_TABLES, va, pa);
}

/* A channel as the stand-in makes it: PDB set, no NO_MMU. */
static void chan_setup_virtual(struct fx *f, unsigned int ch)
{
	chan_setup(f, ch, 0);
	chan_reg_write(f, ch, GA10X_REG_CHAN_CTRL, 0);
	chan_reg_write(f, ch, GA10X_REG_CHAN_PDB_LO,
		       (uint32_t)FX_TABLES | GA10X_BASE_APERTURE_SYSMEM);
	chan_reg_write(f, ch, GA10X_REG_CHAN_CTRL, GA10X_CHAN_CTRL_ENABLE);
}

static void test_virtual_pushbuffer(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	uint64_t e;
	unsigned int i;

	chan_setup_virtual(f, 8);
	/* pushbuffer at FX_VA (4 pages), semaphores at FX_VA + 0x10000 */
	for (i = 0; i < 4; i++)
		map4k(f, FX_VA + i * 0x1000ull, FX_PB(8) + i * 0x1000ull);
	map4k(f, FX_VA + 0x10000, FX_SEM);
	ce_init(&p);
	host_release(&p, FX_VA + 0x10000, 0xabcd);
	ce_release(&p, FX_VA + 0x10004, 0xef01,
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
		   C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	/* the segment crosses a page: NOPs up to past 0x1000 bytes */
	emit(&p, ga10x_pb_noninc(0, C56F_NOP, 1100));
	p.n += 1100;
	host_release(&p, FX_VA + 0x10008, 0x2345);
	memcpy(f->sys + FX_PB(8), p.w, p.n * 4);
	e = ga10x_gp_entry(FX_VA, p.n * 4, 0);
	memcpy(f->sys + FX_GPFIFO(8), &e, 8);
	wr32(f, FX_USERD(8) + GA10X_USERD_GP_PUT, 1);
	doorbell(f, 8);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(status(f, 8), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0xabcdu);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 4), 0xef01u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 8), 0x2345u);

	/* uvm_channel_test's fatal push: memset_v_4 at 0xffffffff, unmapped */
	p.n = 0;
	push1(&p, C56F_CE_SUBCH, C7B5_SET_REMAP_CONST_B, 0);
	push1(&p, C56F_CE_SUBCH, C7B5_SET_REMAP_COMPONENTS, 0x00030005u);
	ce_offsets(&p, 0, 0xffffffffull);
	push1(&p, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, 1);
	push1(&p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH | C7B5_LAUNCH_DMA_REMAP_ENABLE |
	      C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED | C7B5_LAUNCH_DMA_DISABLE_PLC);
	host_release(&p, FX_VA + 0x10000, 0x9999);	/* the tracking release */
	memcpy(f->sys + FX_PB(8) + 0x2000, p.w, p.n * 4);
	e = ga10x_gp_entry(FX_VA + 0x2000, p.n * 4, 0);
	memcpy(f->sys + FX_GPFIFO(8) + 8, &e, 8);
	wr32(f, FX_USERD(8) + GA10X_USERD_GP_PUT, 2);
	gm_reg_write(f->g, GA10X_REG_INTR_EN_SET, GA10X_INTR_CHANNEL_RC);
	doorbell(f, 8);
	CU_ASSERT_EQUAL(status(f, 8) & GA10X_CHAN_STATUS_RC, GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0xabcdu);	/* not completed */
	CU_ASSERT_EQUAL(rd32(f, FX_NOTIFIER(8) + 8), 31u);
	CU_ASSERT_EQUAL(rd32(f, FX_NOTIFIER(8) + 12) >> 16, 0xffffu);
	CU_ASSERT_EQUAL(gm_reg_read(f->g, GA10X_REG_INTR_LEAF) & GA10X_INTR_CHANNEL_RC,
			GA10X_INTR_CHANNEL_RC);
	fx_free(f);
}

/*
 * The stand-in sets a new page directory under a running channel (nvidia-uvm
 * pushes before SetPageDirectory): accepted while enabled, committed by
 * PDB_LO, and the next push translates through the new tables.
 */
static void test_pdb_change_live(void)
{
	const uint64_t tables_b = FX_TABLES + 0x10000;
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	uint64_t e;

	chan_setup_virtual(f, 9);
	map4k(f, FX_VA, FX_PB(9));
	map4k(f, FX_VA + 0x10000, FX_SEM);
	map4k_at(f, tables_b, FX_VA, FX_PB(9));
	map4k_at(f, tables_b, FX_VA + 0x10000, FX_SEM + 0x1000);
	host_release(&p, FX_VA + 0x10000, 0x1111);
	memcpy(f->sys + FX_PB(9), p.w, p.n * 4);
	e = ga10x_gp_entry(FX_VA, p.n * 4, 0);
	memcpy(f->sys + FX_GPFIFO(9), &e, 8);
	memcpy(f->sys + FX_GPFIFO(9) + 8, &e, 8);
	wr32(f, FX_USERD(9) + GA10X_USERD_GP_PUT, 1);
	doorbell(f, 9);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0x1111u);

	chan_reg_write(f, 9, GA10X_REG_CHAN_PDB_HI, 0);
	chan_reg_write(f, 9, GA10X_REG_CHAN_PDB_LO,
		       (uint32_t)tables_b | GA10X_BASE_APERTURE_SYSMEM);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(chan_reg_read(f, 9, GA10X_REG_CHAN_PDB_LO),
			(uint32_t)tables_b | GA10X_BASE_APERTURE_SYSMEM);
	p.n = 0;
	host_release(&p, FX_VA + 0x10000, 0x2222);
	memcpy(f->sys + FX_PB(9), p.w, p.n * 4);
	wr32(f, FX_USERD(9) + GA10X_USERD_GP_PUT, 2);
	doorbell(f, 9);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0x1111u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM + 0x1000), 0x2222u);
	CU_ASSERT_EQUAL(status(f, 9), GA10X_CHAN_STATUS_IDLE);
	fx_free(f);
}

static void test_nonstall_interrupt(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };

	chan_setup(f, 0, GA10X_ENGINE_HOST);
	gm_reg_write(f->g, GA10X_REG_INTR_EN_SET, GA10X_INTR_NONSTALL);
	CU_ASSERT_EQUAL(gm_reg_read(f->g, GA10X_REG_INTR_LEAF) & GA10X_INTR_NONSTALL, 0u);
	push1(&p, 0, C56F_NON_STALL_INTERRUPT, 0);	/* uvm_hal_maxwell_host_interrupt */
	submit(f, 0, &p);
	CU_ASSERT_EQUAL(gm_reg_read(f->g, GA10X_REG_INTR_LEAF) & GA10X_INTR_NONSTALL,
			GA10X_INTR_NONSTALL);
	CU_ASSERT_EQUAL(f->errors, 0u);
	fx_free(f);
}

/*
 * A multi-line LAUNCH_DMA, physical ends: LINE_COUNT lines of len elements
 * (16-byte constant elements with remap, else bytes from src), pitches as
 * given, then a one-word semaphore release of payload at FX_SEM.
 */
static void ce_lines(struct push *p, uint64_t src, uint64_t dst, uint32_t len,
		     uint32_t lines, uint32_t pitch_in, uint32_t pitch_out,
		     int remap, uint32_t payload)
{
	const uint32_t sixteen = C7B5_REMAP_CONST_A << C7B5_REMAP_DST_X_SHIFT |
		C7B5_REMAP_CONST_B << C7B5_REMAP_DST_Y_SHIFT |
		C7B5_REMAP_CONST_A << C7B5_REMAP_DST_Z_SHIFT |
		C7B5_REMAP_CONST_B << C7B5_REMAP_DST_W_SHIFT |
		C7B5_REMAP_COMPONENT_SIZE_FOUR << C7B5_REMAP_COMPONENT_SIZE_SHIFT |
		3u << C7B5_REMAP_NUM_DST_COMPONENTS_SHIFT;	/* four */
	uint32_t d[3] = { 0x11111111, 0x22222222, sixteen };
	uint32_t modes[2] = { C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM,
			      C7B5_PHYS_MODE_TARGET_LOCAL_FB };
	uint32_t sem[3] = { (uint32_t)(FX_SEM >> 32), (uint32_t)FX_SEM, payload };

	push_inc(p, C56F_CE_SUBCH, C7B5_SET_REMAP_CONST_A, 3, d);
	push_inc(p, C56F_CE_SUBCH, C7B5_SET_SRC_PHYS_MODE, 2, modes);
	ce_offsets(p, src, dst);
	d[0] = pitch_in;
	d[1] = pitch_out;
	push_inc(p, C56F_CE_SUBCH, C7B5_PITCH_IN, 2, d);
	push1(p, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, len);
	push1(p, C56F_CE_SUBCH, C7B5_LINE_COUNT, lines);
	push_inc(p, C56F_CE_SUBCH, C7B5_SET_SEMAPHORE_A, 3, sem);
	push1(p, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH | C7B5_LAUNCH_DMA_MULTI_LINE_ENABLE |
	      (remap ? C7B5_LAUNCH_DMA_REMAP_ENABLE : 0) |
	      C7B5_LAUNCH_DMA_SRC_TYPE_PHYSICAL | C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL |
	      C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED |
	      C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
	      C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT | C7B5_LAUNCH_DMA_DISABLE_PLC);
}

/*
 * LINE_COUNT x LINE_LENGTH_IN x 16 past what 64 bits hold (or past
 * GA10X_CE_TRANSFER_MAX): refused before a byte moves, the channel in RC
 * with BAD_DESCRIPTOR. Before, the total wrapped and the doorbell looped
 * over 2^64 lines' worth of pitch-0 writes.
 */
static void test_ce_transfer_too_large(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };

	chan_setup(f, 4, 1);
	ce_init(&p);
	ce_lines(&p, 0, 0x300000, 0xffffffffu, 0xffffffffu, 0, 0, 1, 0x77);
	submit(f, 4, &p);
	CU_ASSERT_EQUAL(status(f, 4) & GA10X_CHAN_STATUS_RC, GA10X_CHAN_STATUS_RC);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_DESCRIPTOR);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0u);
	CU_ASSERT_EQUAL(gm_poll(f->g), 0u);
	fx_free(f);
}

/*
 * A transfer larger than one scheduler call's work (GM_CE_WORK, the default): the
 * doorbell moves part of it and returns, the channel held at its
 * LAUNCH_DMA; polls move the rest, then the semaphore is released.
 * 1024 lines of 8192 16-byte elements, all onto the same 128 KiB (pitch
 * 0): 128 MiB of work.
 */
static void test_ce_transfer_continues(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };
	unsigned int polls = 0;
	uint32_t v;

	chan_setup(f, 4, 1);
	ce_init(&p);
	ce_lines(&p, 0, 0x300000, 8192, 1024, 0, 0, 1, 0x77);
	submit(f, 4, &p);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0u);	/* not done yet */
	CU_ASSERT_EQUAL(status(f, 4) & GA10X_CHAN_STATUS_RC, 0u);
	CU_ASSERT_EQUAL(gm_vram_read(f->g, 0x300000 + 131068, &v, 4), 0);
	CU_ASSERT_EQUAL(v, 0x22222222u);	/* the first lines are there */
	while (gm_poll(f->g) && polls < 16)
		polls++;
	CU_ASSERT_EQUAL(polls, 1u);	/* the second 64 MiB, then nothing */
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0x77u);
	CU_ASSERT_EQUAL(status(f, 4), GA10X_CHAN_STATUS_IDLE);
	CU_ASSERT_EQUAL(f->errors, 0u);
	fx_free(f);
}

/*
 * The same 128 MiB transfer at work_max 1 MiB (a fuzzer's bound): each
 * scheduler call moves at most 1 MiB plus one 64 KiB piece, so the
 * doorbell and 127 polls move it, with the same bytes and semaphore, and
 * the modelled completion time equals the default's.
 */
static void test_ce_transfer_work_max(void)
{
	struct fx *f[2] = { fx_new(), fx_new_work(1u << 20) };
	unsigned int polls[2] = { 0, 0 };
	uint64_t now[2];
	uint32_t v;
	int i;

	for (i = 0; i < 2; i++) {
		struct push p = { .n = 0 };

		chan_setup(f[i], 4, 1);
		ce_init(&p);
		ce_lines(&p, 0, 0x300000, 8192, 1024, 0, 0, 1, 0x77);
		submit(f[i], 4, &p);
		while (gm_poll(f[i]->g) && polls[i] < 1024)
			polls[i]++;
		CU_ASSERT_EQUAL(rd32(f[i], FX_SEM), 0x77u);
		CU_ASSERT_EQUAL(status(f[i], 4), GA10X_CHAN_STATUS_IDLE);
		CU_ASSERT_EQUAL(f[i]->errors, 0u);
		CU_ASSERT_EQUAL(gm_vram_read(f[i]->g, 0x300000 + 131068, &v, 4), 0);
		CU_ASSERT_EQUAL(v, 0x22222222u);
		now[i] = gm_now_ns(f[i]->g);
	}
	CU_ASSERT_EQUAL(polls[0], 1u);
	CU_ASSERT_EQUAL(polls[1], 127u);
	CU_ASSERT_EQUAL(now[0], now[1]);
	fx_free(f[0]);
	fx_free(f[1]);
}

/*
 * 2^32 - 1 lines of one byte, pitch 0: 4 GiB of copies of one byte, each
 * line also costing its translations. One doorbell does a bounded part
 * (before, all 4 G lines in the register write) and so does each poll.
 */
static void test_ce_pitch0_lines_bounded(void)
{
	struct fx *f = fx_new();
	struct push p = { .n = 0 };

	chan_setup(f, 4, 1);
	ce_init(&p);
	ce_lines(&p, FX_DATA, 0x300000, 1, 0xffffffffu, 0, 0, 0, 0x77);
	submit(f, 4, &p);
	CU_ASSERT_EQUAL(f->errors, 0u);
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0u);
	CU_ASSERT_NOT_EQUAL(gm_poll(f->g), 0u);	/* one more bounded slice */
	CU_ASSERT_EQUAL(rd32(f, FX_SEM), 0u);
	/* the driver gives up: disabling the channel drops the transfer */
	chan_reg_write(f, 4, GA10X_REG_CHAN_CTRL, 0);
	CU_ASSERT_EQUAL(gm_poll(f->g), 0u);
	fx_free(f);
}

void add_ga10x_fifo_suite(void)
{
	CU_pSuite s = CU_add_suite("ga10x_fifo", NULL, NULL);

	CU_add_test(s, "GPFIFO entry words", test_gpfifo_words);
	CU_add_test(s, "LAUNCH_DMA past 64 bits: RC", test_ce_transfer_too_large);
	CU_add_test(s, "LAUNCH_DMA past a call's work goes on at the poll",
		    test_ce_transfer_continues);
	CU_add_test(s, "LAUNCH_DMA at a lower work_max: same bytes and time",
		    test_ce_transfer_work_max);
	CU_add_test(s, "4 G pitch-0 lines: bounded per call",
		    test_ce_pitch0_lines_bounded);
	CU_add_test(s, "method header words", test_method_headers);
	CU_add_test(s, "c56f and c7b5 field values", test_method_values);
	CU_add_test(s, "host release 32/64-bit, GP_GET", test_release_32_64);
	CU_add_test(s, "host release with timestamp", test_release_timestamp);
	CU_add_test(s, "timestamps of consecutive entries increase by the fetch",
		    test_timestamps_increase);
	CU_add_test(s, "acquire blocks until the CPU releases", test_acquire_cpu_release);
	CU_add_test(s, "cross-channel acquire, lower waits", test_cross_channel_lower_waits);
	CU_add_test(s, "cross-channel acquire, higher waits", test_cross_channel_higher_waits);
	CU_add_test(s, "CE memcopy sys->vid->sys physical", test_memcopy_phys);
	CU_add_test(s, "CE memset by remap const 1/4/8", test_memset_remap);
	CU_add_test(s, "CE PIPELINED launch: setup under the previous transfer",
		    test_ce_pipelined_setup);
	CU_add_test(s, "CE four-word semaphore, reduction inc", test_ce_four_word_and_reduction);
	CU_add_test(s, "CE timestamp after a copy", test_timestamp_after_copy);
	CU_add_test(s, "NOP, WFI, immediate, control entries", test_nops_accepted);
	CU_add_test(s, "bad method: RC and notifier", test_bad_method_rc);
	CU_add_test(s, "CE access error: RC", test_ce_access_rc);
	CU_add_test(s, "injected ce-error: RC, no byte moved", test_ce_error_injected);
	CU_add_test(s, "injected ce-stall: factor x the copy's time", test_ce_stall_injected);
	CU_add_test(s, "bad token and registers", test_bad_token_and_regs);
	CU_add_test(s, "pushbuffer and semaphores through the PDB; CE fault RC",
		    test_virtual_pushbuffer);
	CU_add_test(s, "NON_STALL_INTERRUPT sets the leaf bit", test_nonstall_interrupt);
	CU_add_test(s, "a new page directory under a running channel", test_pdb_change_live);
}
