/* SPDX-License-Identifier: MIT */
/*
 * GA10x personality: SM launches in a graphics channel's context. The
 * channel's VER2 page directory (mmu_v2.h's encoders, tables in sysmem)
 * maps the kernel's buffer; faults are C369 entries in the GA10x fault
 * buffer, replays and cancels go through ga10x_fault_replay() as host.c
 * decodes a MEM_OP, notifications are C365 entries, and lockstep waits
 * for nvidia-uvm's hand-backs (a replay, the notification GET reaching
 * PUT) instead of SYNC. Times are compared with emgpu's own personality
 * running the same launch over the same mapping (harness.c).
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "ga10x/access_counter_c365.h"
#include "ga10x/fault_c369.h"
#include "ga10x/host_c56f.h"
#include "ga10x/mmu_v2.h"
#include "../../models/src/internal.h"
#include "../../models/src/ga10x/ga10x.h"

#define SX_SYS_SIZE	(16u << 20)
#define SX_FB		0x10000u	/* fault buffer, sysmem, 64 entries */
#define SX_AC		0x20000u	/* notification buffer, sysmem, 64 entries */
#define SX_DESC		0x30000u	/* launch descriptor */
#define SX_TABLES	0x100000u	/* PD3 PD2 PD1 PD0 PT4K, 4 KiB apart */
#define SX_SYSDATA	0x400000u	/* sysmem-backed buffer */
#define SX_VRAMDATA	0x1000000ull	/* VRAM-backed buffer */
#define SX_INST		0x00abc000ull	/* the channel's instance block (vidmem) */
#define SX_CHAN		3u
#define SX_VA		0x2000200000ull	/* PD3 0, PD2 128, PD1 1, PD0 1 */
#define SX_PAGES	16u		/* 64 KiB buffer */
/* another user's context on the same slot: its tables, buffer, instance */
#define SX_TABLES_B	0x200000u
#define SX_SYSDATA_B	0x600000u
#define SX_INST_B	0x00abd000ull
#define SX_BYTES	(SX_PAGES * 4096u)

struct sx {
	struct gm_gpu *g;
	uint8_t *sys;
	struct gmt_flat flat;
	unsigned int msix;		/* GA10X_MSIX_VECTOR messages */
	unsigned int launch_irqs;	/* EMGPU_INTR_VEC_LAUNCH */
	unsigned int errors;
	uint32_t last_error, last_error_info;
};

static int sx_dma_read(void *o, uint64_t a, void *b, uint64_t l)
{
	return gmt_flat_dma_read(&((struct sx *)o)->flat, a, b, l);
}

static int sx_dma_write(void *o, uint64_t a, const void *b, uint64_t l)
{
	return gmt_flat_dma_write(&((struct sx *)o)->flat, a, b, l);
}

static void sx_irq(void *o, unsigned int vector)
{
	struct sx *t = o;

	if (vector == GA10X_MSIX_VECTOR)
		t->msix++;
	else if (vector == EMGPU_INTR_VEC_LAUNCH)
		t->launch_irqs++;
}

static void sx_error(void *o, enum emgpu_error code, uint32_t info)
{
	struct sx *t = o;

	t->errors++;
	t->last_error = code;
	t->last_error_info = info;
}

static void wr(struct sx *t, uint32_t off, uint32_t v)
{
	gm_reg_write(t->g, off, v);
}

static uint32_t rd(struct sx *t, uint32_t off)
{
	return gm_reg_read(t->g, off);
}

static void put64(struct sx *t, uint64_t addr, uint64_t v)
{
	memcpy(t->sys + addr, &v, 8);	/* the test host is little-endian */
}

static uint32_t sys32(struct sx *t, uint64_t addr)
{
	uint32_t v;

	memcpy(&v, t->sys + addr, 4);
	return v;
}

/* PD3 -> PD2 -> PD1 -> PD0 -> 4 KiB table for SX_VA's 2 MiB region at base. */
static void sx_tables_at(struct sx *t, uint64_t base)
{
	const uint64_t pd3 = base, pd2 = pd3 + 0x1000, pd1 = pd2 + 0x1000;
	const uint64_t pd0 = pd1 + 0x1000, pt = pd0 + 0x1000;
	const unsigned int sys = GA10X_PDE_APERTURE_SYS_COH;

	put64(t, pd3 + ((SX_VA >> GA10X_PD3_SHIFT) & 3) * 8, ga10x_pde(sys, pd2));
	put64(t, pd2 + ((SX_VA >> GA10X_PD2_SHIFT) & 511) * 8, ga10x_pde(sys, pd1));
	put64(t, pd1 + ((SX_VA >> GA10X_PD1_SHIFT) & 511) * 8, ga10x_pde(sys, pd0));
	put64(t, pd0 + ((SX_VA >> GA10X_PD0_SHIFT) & 255) * 16, 0);
	put64(t, pd0 + ((SX_VA >> GA10X_PD0_SHIFT) & 255) * 16 + 8,
	      ga10x_dual_pde_small(sys, pt));
}

static void sx_tables(struct sx *t)
{
	sx_tables_at(t, SX_TABLES);
}

static uint64_t pte_at(uint64_t va)
{
	return SX_TABLES + 0x4000 + ((va >> 12) & 511) * 8;
}

/*
 * Another user's directory at SX_TABLES_B: SX_VA's pages on its own
 * sysmem buffer, word k = ~k.
 */
static void sx_context_b(struct sx *t)
{
	uint32_t k, v;
	unsigned int i;

	sx_tables_at(t, SX_TABLES_B);
	for (i = 0; i < SX_PAGES; i++)
		put64(t, SX_TABLES_B + 0x4000 + (((SX_VA >> 12) + i) & 511) * 8,
		      ga10x_pte(GA10X_PTE_APERTURE_SYS_COH, SX_SYSDATA_B + 4096ull * i,
				GA10X_PTE_VOL, GA10X_PTE_KIND_GENERIC_MEMORY, 0));
	for (k = 0; k < SX_BYTES / 4; k++) {
		v = ~k;
		memcpy(t->sys + SX_SYSDATA_B + 4ull * k, &v, 4);
	}
}

/* How many of the other user's words are no longer ~k + plus. */
static uint32_t sx_b_changed(struct sx *t, uint32_t plus)
{
	uint32_t k, bad = 0;

	for (k = 0; k < SX_BYTES / 4; k++)
		bad += sys32(t, SX_SYSDATA_B + 4ull * k) != ~k + plus;
	return bad;
}

/* Maps buffer page i (4 KiB) to VRAM or sysmem, as nvidia-uvm's PTEs. */
static void sx_map(struct sx *t, unsigned int i, int vram)
{
	uint64_t va = SX_VA + 4096ull * i;

	put64(t, pte_at(va), vram ?
	      ga10x_pte(GA10X_PTE_APERTURE_VIDEO, SX_VRAMDATA + 4096ull * i, 0,
			GA10X_PTE_KIND_GENERIC_MEMORY, 0) :
	      ga10x_pte(GA10X_PTE_APERTURE_SYS_COH, SX_SYSDATA + 4096ull * i,
			GA10X_PTE_VOL, GA10X_PTE_KIND_GENERIC_MEMORY, 0));
}

static void sx_unmap(struct sx *t, unsigned int i)
{
	put64(t, pte_at(SX_VA + 4096ull * i), 0);
}

/* Buffer words: word k = k, in VRAM or sysmem. */
static void sx_fill(struct gm_gpu *g, uint8_t *sys, uint64_t vram_pa)
{
	uint32_t k, v;

	for (k = 0; k < SX_BYTES / 4; k++) {
		v = k;
		if (sys)
			memcpy(sys + 4ull * k, &v, 4);
		else if (gm_vram_write(g, vram_pa + 4ull * k, &v, 4))
			abort();
	}
}

static uint32_t sx_word(struct sx *t, uint32_t k, int vram)
{
	uint32_t v;

	if (!vram)
		return sys32(t, SX_SYSDATA + 4ull * k);
	if (gm_vram_read(t->g, SX_VRAMDATA + 4ull * k, &v, 4))
		abort();
	return v;
}

/* The stream result for words k over `passes`: sum of k + p, p < passes. */
static uint64_t stream_result(unsigned int passes)
{
	uint64_t n = SX_BYTES / 4;

	return passes * (n * (n - 1) / 2) + n * ((uint64_t)passes * (passes - 1) / 2);
}

/* The stand-in's set-up: fault and notification buffers, a graphics channel. */
static struct sx *sx_new(int lockstep)
{
	struct sx *t = calloc(1, sizeof(*t));
	struct gm_callbacks cb = { .dma_read = sx_dma_read,
				   .dma_write = sx_dma_write, .irq = sx_irq,
				   .error = sx_error };
	struct gm_config cfg = { .personality = GM_PERSONALITY_GA10X,
				 .seed = 7, .lockstep = lockstep };

	if (!t || gm_profile_lookup("h200-256m", &cfg.profile))
		abort();
	t->sys = calloc(1, SX_SYS_SIZE);
	t->flat = (struct gmt_flat){ .mem = t->sys, .size = SX_SYS_SIZE };
	cb.opaque = t;
	t->g = gm_create(&cfg, &cb);
	if (!t->sys || !t->g)
		abort();
	wr(t, EMGPU_REG_INTR_ENABLE, EMGPU_INTR_ALL);
	wr(t, GA10X_REG_FAULT_BUF_HI, 0);
	wr(t, GA10X_REG_FAULT_BUF_LO, SX_FB | GA10X_BASE_APERTURE_SYSMEM);
	wr(t, GA10X_REG_FAULT_BUF_SIZE, 64);
	wr(t, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
	wr(t, GA10X_REG_INTR_EN_SET, GA10X_INTR_REPLAYABLE_FAULT |
	   GA10X_INTR_ACCESS_COUNTER);
	sx_tables(t);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_INST_HI), 0);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_INST_LO),
	   (uint32_t)SX_INST | GA10X_BASE_APERTURE_VIDMEM);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_PDB_HI), 0);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_PDB_LO),
	   SX_TABLES | GA10X_BASE_APERTURE_SYSMEM);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_ENGINE), GA10X_ENGINE_GRAPHICS);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_CTRL), GA10X_CHAN_CTRL_ENABLE);
	wr(t, GA10X_REG_LAUNCH_CHANNEL, SX_CHAN);
	return t;
}

static void sx_free(struct sx *t)
{
	gm_destroy(t->g);
	free(t->sys);
	free(t);
}

static void sx_ac_buffer(struct sx *t, uint32_t threshold)
{
	wr(t, GA10X_REG_AC_BUF_HI, 0);
	wr(t, GA10X_REG_AC_BUF_LO, SX_AC | GA10X_BASE_APERTURE_SYSMEM);
	wr(t, GA10X_REG_AC_BUF_SIZE, 64);
	wr(t, GA10X_REG_AC_CONFIG, threshold |
	   C365_GRAN_64K << C365_CONFIG_MIMC_GRAN_SHIFT);
	wr(t, GA10X_REG_AC_CTRL, EMGPU_RING_ENABLE);
}

static uint32_t sx_launch(struct sx *t, uint32_t warps, unsigned int passes)
{
	uint64_t args[3] = { SX_VA, SX_BYTES, passes };
	struct emgpu_launch_desc d = gmt_launch_desc(EMGPU_KERNEL_STREAM, warps,
						     1, args, 3);

	memcpy(t->sys + SX_DESC, &d, sizeof(d));
	wr(t, EMGPU_REG_LAUNCH_DESC_HI, 0);
	wr(t, EMGPU_REG_LAUNCH_DESC_LO, SX_DESC);
	wr(t, EMGPU_REG_LAUNCH_DOORBELL, 1);
	return rd(t, EMGPU_REG_LAUNCH_STATUS);
}

static void sx_entry(struct sx *t, uint32_t i, struct c369_fault *f)
{
	struct c369_entry e;

	memcpy(&e, t->sys + SX_FB + 32ull * i, sizeof(e));
	c369_decode(&e, f);
}

/* A host MEM_OP replay or cancel, as host.c hands it to the fault unit. */
static void sx_replay(struct sx *t, unsigned int type, unsigned int gpc,
		      unsigned int client, uint64_t inst)
{
	struct ga10x_replay r = { .type = type, .gpc = gpc, .client = client,
				  .inst = inst };

	ga10x_fault_replay(t->g, &r);
}

/* ---- the same launch in emgpu's personality (harness.c) ---- */

struct emgpu_run {
	uint64_t result, time_ns, sim_ns;
	uint32_t status;
};

static struct emgpu_run emgpu_stream(int vram, uint32_t warps,
				     unsigned int passes)
{
	struct th *t = th_new("h200-256m", 7, 0);
	uint64_t args[3] = { SX_VA, SX_BYTES, passes };
	struct emgpu_run out;
	struct gm_stats st;
	unsigned int i;

	for (i = 0; i < SX_PAGES; i++)
		th_map(t, SX_VA + 4096ull * i,
		       vram ? EMGPU_APERTURE_VIDMEM : EMGPU_APERTURE_SYSMEM,
		       (vram ? SX_VRAMDATA : SX_SYSDATA) + 4096ull * i,
		       EMGPU_PAGE_SHIFT, 0);
	sx_fill(t->g, vram ? NULL : t->sys + SX_SYSDATA, SX_VRAMDATA);
	th_launch(t, EMGPU_KERNEL_STREAM, warps, 1, args, 3);
	out.status = th_run_to_end(t, NULL, NULL, NULL);
	out.result = gm_launch_result(t->g);
	out.time_ns = gm_launch_time_ns(t->g);
	gm_get_stats(t->g, &st);
	out.sim_ns = st.sim_ns;
	th_free(t);
	return out;
}

/* Runs until the launch is no longer running; no stop may need the driver. */
static enum gm_stop sx_run_free(struct sx *t)
{
	enum gm_stop s;
	unsigned int guard = 0;

	do {
		s = gm_run(t->g, 0);
	} while (s == GM_STOP_IDLE && rd(t, EMGPU_REG_LAUNCH_STATUS) ==
		 EMGPU_LAUNCH_RUNNING && ++guard < 1000);
	return s;
}

/* ---- tests ---- */

static void check_mapped_stream(int vram)
{
	struct sx *t = sx_new(1);
	struct emgpu_run ref = emgpu_stream(vram, 24, 3);
	struct gm_stats st;
	unsigned int i;
	uint32_t k, bad = 0;

	for (i = 0; i < SX_PAGES; i++)
		sx_map(t, i, vram);
	sx_fill(t->g, vram ? NULL : t->sys + SX_SYSDATA, SX_VRAMDATA);
	CU_ASSERT_EQUAL(sx_launch(t, 24, 3), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(3));
	for (k = 0; k < SX_BYTES / 4; k++)
		bad += sx_word(t, k, vram) != k + 3;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(t->errors, 0);
	CU_ASSERT_EQUAL(t->launch_irqs, 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 0);
	gm_get_stats(t->g, &st);
	CU_ASSERT_EQUAL(st.faults, 0);
	CU_ASSERT_EQUAL(st.accesses, 2ull * 3 * SX_BYTES / 128);
	/* emgpu's personality, same mapping: same result, same times */
	CU_ASSERT_EQUAL(ref.status, EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(ref.result, stream_result(3));
	CU_ASSERT_EQUAL(gm_launch_time_ns(t->g), ref.time_ns);
	CU_ASSERT_EQUAL(st.sim_ns, ref.sim_ns);
	CU_ASSERT(ref.time_ns > 0);
	sx_free(t);
}

static void test_stream_vram(void)
{
	check_mapped_stream(1);
}

static void test_stream_sysmem(void)
{
	check_mapped_stream(0);
}

/*
 * One warp, pages 5 and 9 unmapped: one C369 entry per page, each in its
 * own batch; the launch stalls and lockstep stands still until the
 * replay, with PUT and the MSI-X held while warps run.
 */
static void test_fault_replay(void)
{
	struct sx *t = sx_new(1);
	struct c369_fault f;
	enum gm_stop s;
	uint64_t t0, busy0;
	uint32_t k, bad = 0;
	unsigned int i;

	for (i = 0; i < SX_PAGES; i++)
		if (i != 5 && i != 9)
			sx_map(t, i, 1);
	sx_fill(t->g, NULL, SX_VRAMDATA);
	CU_ASSERT_EQUAL(sx_launch(t, 1, 1), EMGPU_LAUNCH_RUNNING);

	/* budget slices: the fault is written but not handed off */
	for (i = 0; i < 100000; i++) {
		s = gm_run(t->g, 16);
		if (s != GM_STOP_BUDGET && s != GM_STOP_IDLE)
			break;
		CU_ASSERT_EQUAL_FATAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 0);
		CU_ASSERT_EQUAL_FATAL(t->msix, 0);
	}
	CU_ASSERT_EQUAL(s, GM_STOP_FAULT);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF), GA10X_INTR_REPLAYABLE_FAULT);
	CU_ASSERT_EQUAL(t->msix, 1);
	sx_entry(t, 0, &f);
	CU_ASSERT_EQUAL(f.valid, 1);
	CU_ASSERT_EQUAL(f.inst, SX_INST);
	CU_ASSERT_EQUAL(f.inst_aperture, C369_APERTURE_VID_MEM);
	CU_ASSERT_EQUAL(f.addr, SX_VA + 5 * 4096);
	CU_ASSERT_EQUAL(f.engine_id, C369_MMU_ENG_ID_GRAPHICS);
	CU_ASSERT_EQUAL(f.client_type, C369_MMU_CLIENT_TYPE_GPC);
	CU_ASSERT_EQUAL(f.gpc_id, 0);
	CU_ASSERT_EQUAL(f.client, C369_CLIENT_GPC_T1(0));
	/* stream reads for its read-modify-write with write permission */
	CU_ASSERT_EQUAL(f.access_type, C369_ACCESS_VIRT_WRITE);
	CU_ASSERT_EQUAL(f.fault_type, C369_FAULT_TYPE_PTE);
	CU_ASSERT_EQUAL(f.replayable, 1);
	CU_ASSERT(f.timestamp > 0 && f.timestamp <= gm_now_ns(t->g));
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_RUNNING);

	/* lockstep: nothing advances until the replay; GET alone is no answer */
	t0 = gm_now_ps(t->g);
	busy0 = gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT);
	CU_ASSERT_EQUAL(busy0, t0 / 1000 + gm_get_profile(t->g)->fault_service_ns);
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_REPLAYABLE_FAULT);
	wr(t, GA10X_REG_FAULT_BUF_GET, 1);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_WAIT_SYNC);
	CU_ASSERT_EQUAL(gm_now_ps(t->g), t0);

	/* the driver maps the page, invalidates, replays (START_ACK_ALL) */
	sx_map(t, 5, 1);
	ga10x_tlb_invalidate(t->g, 0, SX_TABLES | GA10X_BASE_APERTURE_SYSMEM,
			     SX_VA + 5 * 4096, SX_VA + 6 * 4096);
	sx_replay(t, C56F_MEM_OP_C_REPLAY_START_ACK_ALL, 0, 0, 0);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), 0);
	/* one entry serviced: drv_fault_page_ns on the FAULT thread */
	CU_ASSERT_EQUAL(gm_driver_busy_ns(t->g, EMGPU_DRV_THREAD_FAULT),
			busy0 + gm_get_profile(t->g)->drv_fault_page_ns);

	/* page 9: a second batch of exactly one entry */
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 2);
	CU_ASSERT_EQUAL(t->msix, 2);
	sx_entry(t, 1, &f);
	CU_ASSERT_EQUAL(f.addr, SX_VA + 9 * 4096);
	CU_ASSERT_EQUAL(f.inst, SX_INST);
	CU_ASSERT_EQUAL(f.engine_id, C369_MMU_ENG_ID_GRAPHICS);
	CU_ASSERT_EQUAL(f.timestamp * 1000 >= t0, 1);
	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_REPLAYABLE_FAULT);
	wr(t, GA10X_REG_FAULT_BUF_GET, 2);
	sx_map(t, 9, 1);
	sx_replay(t, C56F_MEM_OP_C_REPLAY_START, 0, 0, 0);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(1));
	for (k = 0; k < SX_BYTES / 4; k++)
		bad += sx_word(t, k, 1) != k + 1;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 2);
	CU_ASSERT_EQUAL(t->errors, 0);
	sx_free(t);
}

/*
 * 12 warps on 12 SMs (GPC = SM % 8, uTLB = SM / 8): page 5 unmapped is one
 * entry per uTLB in one batch, each with its own (GPC, CLIENT).
 */
static void test_fault_per_utlb(void)
{
	struct sx *t = sx_new(1);
	struct c369_fault f;
	unsigned int i, seen[8][2] = { { 0 } }, dup = 0, n, held = 0;

	for (i = 0; i < SX_PAGES; i++)
		if (i != 5)
			sx_map(t, i, 1);
	sx_fill(t->g, NULL, SX_VRAMDATA);
	sx_launch(t, 12, 1);
	/*
	 * Budget slices: entries written while other warps run on are not
	 * handed off (PUT, their VALID bits, the leaf and its MSI-X) until
	 * the batch's stop.
	 */
	for (i = 0; i < 100000; i++) {
		struct gm_stats st;
		enum gm_stop s = gm_run(t->g, 1);

		if (s != GM_STOP_BUDGET)
			break;
		gm_get_stats(t->g, &st);
		held += st.fault_entries > 0;
		/* written, VALID clear: nvidia-uvm's top half tests it */
		if (st.fault_entries > 0) {
			sx_entry(t, 0, &f);
			CU_ASSERT_EQUAL_FATAL(f.valid, 0);
			CU_ASSERT_EQUAL_FATAL(f.addr, SX_VA + 5 * 4096);
		}
		CU_ASSERT_EQUAL_FATAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 0);
		CU_ASSERT_EQUAL_FATAL(rd(t, GA10X_REG_INTR_LEAF), 0);
		CU_ASSERT_EQUAL_FATAL(t->msix, 0);
	}
	CU_ASSERT_EQUAL(held, 11);	/* slices ended between a fault and the stop */
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	CU_ASSERT_EQUAL(t->msix, 1);
	n = rd(t, GA10X_REG_FAULT_BUF_PUT);
	CU_ASSERT_EQUAL(n, 12);
	for (i = 0; i < n && i < 64; i++) {
		sx_entry(t, i, &f);
		CU_ASSERT_EQUAL(f.valid, 1);	/* set at the hand-off */
		CU_ASSERT_EQUAL(f.addr, SX_VA + 5 * 4096);
		CU_ASSERT(f.gpc_id < 8 && f.client < 2);
		if (f.gpc_id < 8 && f.client < 2)
			dup += seen[f.gpc_id][f.client]++ != 0;
	}
	CU_ASSERT_EQUAL(dup, 0);
	/* SMs 8..11: GPCs 0..3, second uTLB: CLIENT T1_1 */
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(seen[i][1], i < 4);
	sx_map(t, 5, 1);
	sx_replay(t, C56F_MEM_OP_C_REPLAY_START_ACK_ALL, 0, 0, 0);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(1));
	sx_free(t);
}

/* Cancels fail the launch only when they name its stalled accesses. */
static void test_cancel(void)
{
	struct sx *t = sx_new(1);
	struct c369_fault f;
	uint64_t inst = SX_INST | GA10X_BASE_APERTURE_VIDMEM;
	unsigned int i;

	for (i = 0; i < SX_PAGES; i++)
		if (i != 2)
			sx_map(t, i, 1);
	sx_launch(t, 1, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	sx_entry(t, 0, &f);
	/* another instance, another uTLB: not this launch's */
	sx_replay(t, C56F_MEM_OP_C_REPLAY_CANCEL_TARGETED, f.gpc_id, f.client,
		  inst + 0x1000);
	sx_replay(t, C56F_MEM_OP_C_REPLAY_CANCEL_TARGETED, f.gpc_id + 1,
		  f.client, inst);
	sx_replay(t, C56F_MEM_OP_C_REPLAY_CANCEL_GLOBAL, 0, 0,
		  SX_INST | GA10X_BASE_APERTURE_SYSMEM);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_RUNNING);
	/* each cancel is a hand-back: the device runs on (stalled) */
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), 0);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_STALLED);
	CU_ASSERT_EQUAL(t->launch_irqs, 0);
	sx_replay(t, C56F_MEM_OP_C_REPLAY_CANCEL_TARGETED, f.gpc_id, f.client,
		  inst);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_CANCELLED);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_SEQ), 1);
	CU_ASSERT_EQUAL(t->launch_irqs, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
	/* a later replay resumes nothing; a new launch runs */
	sx_replay(t, C56F_MEM_OP_C_REPLAY_START, 0, 0, 0);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_CANCELLED);
	sx_map(t, 2, 1);
	CU_ASSERT_EQUAL(sx_launch(t, 4, 1), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_DONE);

	/*
	 * a VA-global cancel names the channel's page directory and the
	 * faults' MMU engine (graphics, VEID 0), as nvidia-uvm's
	 * cancel_faults_va passes the fault entry's: another engine's (a
	 * copy engine's, another VEID's) cancels nothing
	 */
	sx_unmap(t, 7);
	ga10x_tlb_invalidate(t->g, 1, 0, 0, ~0ull);
	sx_launch(t, 1, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	{
		struct ga10x_replay r = {
			.type = C56F_MEM_OP_C_REPLAY_CANCEL_VA_GLOBAL,
			.va = SX_VA + 7 * 4096,
			.pdb = SX_TABLES | GA10X_BASE_APERTURE_SYSMEM,
			.mmu_engine_id = C369_MMU_ENG_ID_CE0,
		};

		ga10x_fault_replay(t->g, &r);
		CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_RUNNING);
		r.mmu_engine_id = C369_MMU_ENG_ID_GRAPHICS + 1;
		ga10x_fault_replay(t->g, &r);
		CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_RUNNING);
		r.mmu_engine_id = C369_MMU_ENG_ID_GRAPHICS;
		ga10x_fault_replay(t->g, &r);
	}
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_CANCELLED);
	sx_free(t);
}

/* STREAM over sysmem-mapped pages to its first notification stop. */
static void notify_stop(struct sx *t)
{
	unsigned int i;

	for (i = 0; i < SX_PAGES; i++)
		sx_map(t, i, 0);
	sx_fill(t->g, t->sys + SX_SYSDATA, 0);
	sx_ac_buffer(t, 100);
	sx_launch(t, 4, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_NOTIFY);
}

/* Notifications: C365 MIMC entries; lockstep waits for GET to reach PUT. */
static void test_notify(void)
{
	struct sx *t = sx_new(1);
	struct c365_notify n;
	struct c365_entry e;
	uint64_t t0;

	notify_stop(t);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_INTR_LEAF) & GA10X_INTR_ACCESS_COUNTER,
			GA10X_INTR_ACCESS_COUNTER);
	CU_ASSERT_EQUAL(t->msix, 1);
	memcpy(&e, t->sys + SX_AC, sizeof(e));
	c365_decode(&e, &n);
	CU_ASSERT_EQUAL(n.valid, 1);
	CU_ASSERT_EQUAL(n.type, C365_TYPE_GPU);
	CU_ASSERT_EQUAL(n.addr_type, C365_ADDR_TYPE_GVA);
	CU_ASSERT_EQUAL(n.addr, SX_VA);		/* the 64 KiB region's GVA */
	CU_ASSERT_EQUAL(n.inst, SX_INST);
	CU_ASSERT_EQUAL(n.inst_aperture, C365_APERTURE_VID_MEM);
	CU_ASSERT_EQUAL(n.mmu_engine_id, C369_MMU_ENG_ID_GRAPHICS);
	CU_ASSERT_EQUAL(n.notify_tag, 0);	/* counter 0 */
	CU_ASSERT_EQUAL(n.counter_val, 100);
	CU_ASSERT_EQUAL(n.bank, 0);
	CU_ASSERT(n.sub_granularity != 0);

	t0 = gm_now_ps(t->g);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_WAIT_SYNC);
	CU_ASSERT_EQUAL(gm_now_ps(t->g), t0);
	/* a replay is no answer to notifications */
	sx_replay(t, C56F_MEM_OP_C_REPLAY_START, 0, 0, 0);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	/* nvidia-uvm writes GET as it fetches, before servicing: no answer
	 * yet; its next fetch's PUT read, finding nothing new, is */
	wr(t, GA10X_REG_AC_BUF_GET, 1);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_WAIT_SYNC);
	CU_ASSERT_EQUAL(gm_now_ps(t->g), t0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), 0);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(1));
	/* 512 sysmem accesses to one region: one notification, no clear */
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);
	CU_ASSERT_EQUAL(t->errors, 0);
	sx_free(t);
}

/*
 * A notification written while warps run is handed off at its stop: until
 * then PUT stays and its entry's VALID bit is clear, so that nvidia-uvm's
 * top half (which tests VALID at its cached GET before reading PUT) sees
 * nothing early.
 */
static void test_notify_held(void)
{
	struct sx *t = sx_new(1);
	struct c365_notify n;
	struct c365_entry e;
	unsigned int i, held = 0;
	enum gm_stop s = GM_STOP_BUDGET;

	for (i = 0; i < SX_PAGES; i++)
		sx_map(t, i, 0);
	sx_fill(t->g, t->sys + SX_SYSDATA, 0);
	sx_ac_buffer(t, 100);
	sx_launch(t, 4, 1);
	for (i = 0; i < 100000 && s == GM_STOP_BUDGET; i++) {
		struct gm_stats st;

		s = gm_run(t->g, 1);
		if (s != GM_STOP_BUDGET)
			break;
		gm_get_stats(t->g, &st);
		if (!st.notifications)
			continue;
		held++;
		memcpy(&e, t->sys + SX_AC, sizeof(e));
		c365_decode(&e, &n);
		CU_ASSERT_EQUAL_FATAL(n.valid, 0);
		CU_ASSERT_EQUAL_FATAL(n.addr, SX_VA);
		CU_ASSERT_EQUAL_FATAL(rd(t, GA10X_REG_AC_BUF_PUT), 0);
	}
	CU_ASSERT(held > 0);	/* a slice ended between the notification and its stop */
	CU_ASSERT_EQUAL(s, GM_STOP_NOTIFY);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);
	memcpy(&e, t->sys + SX_AC, sizeof(e));
	c365_decode(&e, &n);
	CU_ASSERT_EQUAL(n.valid, 1);
	CU_ASSERT_EQUAL(n.addr, SX_VA);
	CU_ASSERT_EQUAL(n.counter_val, 100);
	CU_ASSERT_EQUAL(t->errors, 0);
	sx_free(t);
}

/*
 * The other end of nvidia-uvm's notification service: GET written again
 * as it is (the clear at its ISR unlock) hands back too; a GET short of
 * PUT, or a PUT read before GET reached it, does not.
 */
static void test_notify_rewrite(void)
{
	struct sx *t = sx_new(1);

	notify_stop(t);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_AC_BUF_PUT), 1);	/* the top half's */
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	wr(t, GA10X_REG_AC_BUF_GET, 0);			/* nothing taken */
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	wr(t, GA10X_REG_AC_BUF_GET, 1);			/* the fetch */
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), EMGPU_SYNC_WAITING);
	wr(t, GA10X_REG_AC_BUF_GET, 1);			/* the ISR unlock */
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), 0);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(1));
	CU_ASSERT_EQUAL(t->errors, 0);
	sx_free(t);
}

/* The whole faulting run, serviced as nvidia-uvm would; its trace hash. */
static uint64_t faulting_run(unsigned int hole, uint64_t *time_ns)
{
	struct sx *t = sx_new(1);
	unsigned int i, guard = 0;
	enum gm_stop s;
	uint64_t h;

	for (i = 0; i < SX_PAGES; i++)
		if (i != hole && i != hole + 3)
			sx_map(t, i, 1);
	sx_fill(t->g, NULL, SX_VRAMDATA);
	sx_launch(t, 8, 2);
	while ((s = gm_run(t->g, 1000)) != GM_STOP_LAUNCH_DONE && ++guard < 100000) {
		if (s == GM_STOP_FAULT) {
			uint32_t put = rd(t, GA10X_REG_FAULT_BUF_PUT);

			wr(t, GA10X_REG_FAULT_BUF_GET, put);
			sx_map(t, hole, 1);
			sx_map(t, hole + 3, 1);
			ga10x_tlb_invalidate(t->g, 1, 0, 0, ~0ull);
			sx_replay(t, C56F_MEM_OP_C_REPLAY_START_ACK_ALL, 0, 0, 0);
		}
	}
	CU_ASSERT_EQUAL(s, GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(2));
	*time_ns = gm_launch_time_ns(t->g);
	h = gm_trace_hash(t->g);
	sx_free(t);
	return h;
}

static void test_determinism(void)
{
	uint64_t a_ns, b_ns, c_ns;
	uint64_t a = faulting_run(4, &a_ns), b = faulting_run(4, &b_ns);
	uint64_t c = faulting_run(6, &c_ns);

	CU_ASSERT_EQUAL(a, b);
	CU_ASSERT_EQUAL(a_ns, b_ns);
	CU_ASSERT_NOT_EQUAL(a, c);	/* the hash sees which page faulted */
}

/* Without lockstep nothing waits and nothing is held. */
static void test_no_lockstep(void)
{
	struct sx *t = sx_new(0);
	unsigned int i;

	for (i = 0; i < SX_PAGES; i++)
		if (i != 1)
			sx_map(t, i, 1);
	sx_fill(t->g, NULL, SX_VRAMDATA);
	sx_launch(t, 1, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_SYNC_STATUS), 0);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	CU_ASSERT_EQUAL(t->msix, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_STALLED);
	sx_map(t, 1, 1);
	sx_replay(t, C56F_MEM_OP_C_REPLAY_START, 0, 0, 0);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(1));
	sx_free(t);
}

/* The launch channel: absent, disabled, wrong engine, out of range. */
static void test_launch_channel_checks(void)
{
	struct sx *t = sx_new(1);
	unsigned int i, errs;

	for (i = 0; i < SX_PAGES; i++)
		sx_map(t, i, 1);
	sx_fill(t->g, NULL, SX_VRAMDATA);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_LAUNCH_CHANNEL), SX_CHAN);

	/* an out-of-range channel number is refused, the old one kept */
	errs = t->errors;
	wr(t, GA10X_REG_LAUNCH_CHANNEL, GA10X_CHANNELS);
	CU_ASSERT_EQUAL(t->errors, errs + 1);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_LAUNCH_CHANNEL), SX_CHAN);

	/* a channel never enabled */
	wr(t, GA10X_REG_LAUNCH_CHANNEL, 9);
	CU_ASSERT_EQUAL(sx_launch(t, 4, 1), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_LAUNCH_CHANNEL);
	CU_ASSERT_EQUAL(t->launch_irqs, 1);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);

	/* a host channel (enabled, GPFIFO and all): wrong engine */
	wr(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_GPFIFO_LO), 0x40000 | GA10X_BASE_APERTURE_SYSMEM);
	wr(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_GPFIFO_ENTRIES), 16);
	wr(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_USERD_LO), 0x41000 | GA10X_BASE_APERTURE_SYSMEM);
	wr(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_NOTIFIER_LO), 0x42000 | GA10X_BASE_APERTURE_SYSMEM);
	wr(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_ENGINE), GA10X_ENGINE_HOST);
	wr(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_CTRL), GA10X_CHAN_CTRL_ENABLE);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_CTRL)),
			GA10X_CHAN_CTRL_ENABLE);
	errs = t->errors;
	CU_ASSERT_EQUAL(sx_launch(t, 4, 1), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(t->errors, errs + 1);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_LAUNCH_CHANNEL);

	/* a graphics channel takes no doorbell, and no NO_MMU */
	errs = t->errors;
	wr(t, GA10X_REG_DOORBELL, SX_CHAN);
	CU_ASSERT_EQUAL(t->errors, errs + 1);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(t->last_error_info, SX_CHAN);
	wr(t, GA10X_REG_CHAN(10, GA10X_REG_CHAN_ENGINE), GA10X_ENGINE_GRAPHICS);
	wr(t, GA10X_REG_CHAN(10, GA10X_REG_CHAN_CTRL),
	   GA10X_CHAN_CTRL_ENABLE | GA10X_CHAN_CTRL_NO_MMU);
	CU_ASSERT_EQUAL(t->errors, errs + 2);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_CHAN(10, GA10X_REG_CHAN_CTRL)), 0);

	/* the graphics channel, disabled: refused; enabled again: runs */
	wr(t, GA10X_REG_LAUNCH_CHANNEL, SX_CHAN);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_CTRL), 0);
	CU_ASSERT_EQUAL(sx_launch(t, 4, 1), EMGPU_LAUNCH_ERROR);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_CTRL), GA10X_CHAN_CTRL_ENABLE);
	CU_ASSERT_EQUAL(sx_launch(t, 4, 1), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(1));
	sx_free(t);
}

/*
 * One warp stalled on page 5's fault; lockstep waits for the replay. The
 * entry is user A's (SX_INST).
 */
static struct sx *sx_stalled(void)
{
	struct sx *t = sx_new(1);
	unsigned int i;

	for (i = 0; i < SX_PAGES; i++)
		if (i != 5)
			sx_map(t, i, 1);
	sx_fill(t->g, NULL, SX_VRAMDATA);
	sx_context_b(t);
	CU_ASSERT_EQUAL(sx_launch(t, 1, 1), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_FAULT);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	return t;
}

/* nvidia-uvm's answer to the batch: GET past it, then a replay. */
static void sx_service(struct sx *t)
{
	unsigned int i;

	wr(t, GA10X_REG_INTR_LEAF, GA10X_INTR_REPLAYABLE_FAULT);
	wr(t, GA10X_REG_FAULT_BUF_GET, rd(t, GA10X_REG_FAULT_BUF_PUT));
	sx_map(t, 5, 1);
	sx_replay(t, C56F_MEM_OP_C_REPLAY_START_ACK_ALL, 0, 0, 0);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(gm_run(t->g, 0), GM_STOP_IDLE);
}

/*
 * The driver disables the channel of a stalled launch, frees it, and the
 * slot goes to another user (its instance block, its directory, enabled):
 * the launch ended at the disable with EMGPU_ERR_CHANNEL, the replay of
 * its fault runs nothing, no fault carries the new instance, and the new
 * owner's buffer keeps every word; its own launch then runs in its context.
 */
static void test_channel_freed_under_launch(void)
{
	struct sx *t = sx_stalled();
	unsigned int errs = t->errors;

	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_CTRL), 0);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(t->errors, errs + 1);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_CHANNEL);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_CTRL));
	CU_ASSERT_EQUAL(t->launch_irqs, 1);

	/* the slot, the other user's now */
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_INST_LO),
	   (uint32_t)SX_INST_B | GA10X_BASE_APERTURE_VIDMEM);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_PDB_LO),
	   SX_TABLES_B | GA10X_BASE_APERTURE_SYSMEM);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_CTRL), GA10X_CHAN_CTRL_ENABLE);
	sx_service(t);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	CU_ASSERT_EQUAL(sx_b_changed(t, 0), 0);
	CU_ASSERT_EQUAL(t->errors, errs + 1);

	CU_ASSERT_EQUAL(sx_launch(t, 4, 1), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(sx_b_changed(t, 1), 0);
	sx_free(t);
}

/*
 * A live channel's page directory rewritten with the same value changes
 * nothing; another directory ends the launch running in it
 * (EMGPU_ERR_CHANNEL, PDB_LO), whose replay then touches nothing of it.
 */
static void test_channel_pdb_changed_under_launch(void)
{
	struct sx *t = sx_stalled();
	unsigned int errs = t->errors;

	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_PDB_HI), 0);
	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_PDB_LO),
	   SX_TABLES | GA10X_BASE_APERTURE_SYSMEM);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(t->errors, errs);

	wr(t, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_PDB_LO),
	   SX_TABLES_B | GA10X_BASE_APERTURE_SYSMEM);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(t->errors, errs + 1);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_CHANNEL);
	CU_ASSERT_EQUAL(t->last_error_info, GA10X_REG_CHAN(SX_CHAN, GA10X_REG_CHAN_PDB_LO));
	sx_service(t);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 1);
	CU_ASSERT_EQUAL(sx_b_changed(t, 0), 0);
	/* a channel not running the launch: rewriting it ends nothing */
	CU_ASSERT_EQUAL(sx_launch(t, 4, 1), EMGPU_LAUNCH_RUNNING);
	wr(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_CTRL), 0);
	wr(t, GA10X_REG_CHAN(9, GA10X_REG_CHAN_PDB_LO), SX_TABLES | GA10X_BASE_APERTURE_SYSMEM);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(sx_b_changed(t, 1), 0);
	CU_ASSERT_EQUAL(t->errors, errs + 1);
	sx_free(t);
}

/* A sparse page reads 0 and drops writes; no fault. */
static void test_sparse(void)
{
	struct sx *t = sx_new(1);
	uint32_t k, bad = 0;
	unsigned int i;

	for (i = 0; i < SX_PAGES; i++)
		sx_map(t, i, 1);
	put64(t, pte_at(SX_VA), GA10X_PTE_SPARSE);
	sx_fill(t->g, NULL, SX_VRAMDATA);
	sx_launch(t, 4, 1);
	CU_ASSERT_EQUAL(sx_run_free(t), GM_STOP_LAUNCH_DONE);
	CU_ASSERT_EQUAL(rd(t, EMGPU_REG_LAUNCH_STATUS), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(rd(t, GA10X_REG_FAULT_BUF_PUT), 0);
	/* page 0 read as zeros: the result lacks its words 0..1023 */
	CU_ASSERT_EQUAL(gm_launch_result(t->g), stream_result(1) - 1023ull * 1024 / 2);
	for (k = 0; k < 1024; k++)
		bad += sx_word(t, k, 1) != k;	/* its VRAM untouched */
	for (; k < SX_BYTES / 4; k++)
		bad += sx_word(t, k, 1) != k + 1;
	CU_ASSERT_EQUAL(bad, 0);
	sx_free(t);
}

void add_ga10x_sm_suite(void)
{
	CU_pSuite s = CU_add_suite("ga10x SM launches", NULL, NULL);

	CU_add_test(s, "stream over VRAM: result, data, emgpu's times", test_stream_vram);
	CU_add_test(s, "stream over sysmem: result, data, emgpu's times", test_stream_sysmem);
	CU_add_test(s, "C369 entry per faulting page; lockstep until replay", test_fault_replay);
	CU_add_test(s, "one C369 entry per uTLB, GPC and CLIENT", test_fault_per_utlb);
	CU_add_test(s, "cancels fail the launch they name", test_cancel);
	CU_add_test(s, "C365 notifications; lockstep until serviced (PUT read after GET reached it)",
		    test_notify);
	CU_add_test(s, "C365 notification written while warps run: VALID and PUT held until its stop",
		    test_notify_held);
	CU_add_test(s, "C365 notifications; GET written again unchanged hands back",
		    test_notify_rewrite);
	CU_add_test(s, "same trace hash twice", test_determinism);
	CU_add_test(s, "no lockstep: no wait", test_no_lockstep);
	CU_add_test(s, "launch channel checks", test_launch_channel_checks);
	CU_add_test(s, "a stalled launch's channel disabled, freed, reused: the launch ended, the new owner's words kept",
		    test_channel_freed_under_launch);
	CU_add_test(s, "a running launch's channel given another page directory: the launch ends",
		    test_channel_pdb_changed_under_launch);
	CU_add_test(s, "sparse page: zeros, writes dropped", test_sparse);
}
