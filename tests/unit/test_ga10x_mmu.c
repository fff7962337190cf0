/* SPDX-License-Identifier: MIT */
/*
 * GA10x MMU VER2: entry encodings against words computed by hand from
 * NVIDIA's field definitions (hwref turing/tu102 dev_mmu.h NV_MMU_VER2_*),
 * and the walk and TLB of src/ga10x/mmu.c on a model created with the
 * GA10X personality, tables in vidmem and in sysmem.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "ga10x/mmu_v2.h"
#include "ga10x/regs.h"
#include "../../models/src/ga10x/ga10x.h"

/* ---- fixture: a GA10X model over a flat sysmem buffer ---- */

#define FX_SYS_SIZE	(16ull << 20)
#define FX_TABLES	0x100000ull	/* same offset in either memory */

struct fx {
	struct gm_gpu *g;
	struct gmt_flat flat;
	int vram;		/* tables in vidmem */
	unsigned int tlb_inv_events;
	uint64_t last_inv[3];
	unsigned int errors;
	uint32_t last_error, last_info;
};

static int fx_dma_read(void *o, uint64_t a, void *b, uint64_t l)
{
	return gmt_flat_dma_read(&((struct fx *)o)->flat, a, b, l);
}

static int fx_dma_write(void *o, uint64_t a, const void *b, uint64_t l)
{
	return gmt_flat_dma_write(&((struct fx *)o)->flat, a, b, l);
}

static void fx_event(void *o, unsigned int type, uint64_t a, uint64_t b,
		     uint64_t c)
{
	struct fx *f = o;

	if (type != GM_EV_TLB_INV)
		return;
	f->tlb_inv_events++;
	f->last_inv[0] = a;
	f->last_inv[1] = b;
	f->last_inv[2] = c;
}

static void fx_error(void *o, enum emgpu_error code, uint32_t info)
{
	struct fx *f = o;

	f->errors++;
	f->last_error = code;
	f->last_info = info;
}

static struct fx *fx_new(int vram)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct gm_callbacks cb = { .dma_read = fx_dma_read,
				   .dma_write = fx_dma_write,
				   .event = fx_event, .error = fx_error };
	struct gm_config cfg = { .personality = GM_PERSONALITY_GA10X,
				 .seed = 1, .lockstep = 1 };

	if (!f || gm_profile_lookup("h200-256m", &cfg.profile))
		abort();
	f->flat.mem = calloc(1, FX_SYS_SIZE);
	f->flat.size = FX_SYS_SIZE;
	f->vram = vram;
	cb.opaque = f;
	f->g = gm_create(&cfg, &cb);
	if (!f->flat.mem || !f->g)
		abort();
	return f;
}

static void fx_free(struct fx *f)
{
	gm_destroy(f->g);
	free(f->flat.mem);
	free(f);
}

/* Writes a little-endian word into the tables' memory. */
static void wr64(struct fx *f, uint64_t addr, uint64_t v)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	if (f->vram) {
		if (gm_vram_write(f->g, addr, b, 8))
			abort();
	} else {
		memcpy(f->flat.mem + addr, b, 8);
	}
}

/*
 * One chain for VA_T (indices PD3 1, PD2 5, PD1 7, PD0 9, big 3, 4K 50),
 * every table at FX_TABLES + a fixed offset:
 *   PD3 +0x0000, PD2 +0x1000, PD1 +0x2000, PD0 +0x3000, PT4K +0x4000,
 *   PT64K +0x5100 (256-byte aligned only, as nvidia-uvm allocates them).
 */
#define VA_T		0x8140e1232123ull	/* 1<<47 | 5<<38 | 7<<29 | 9<<21 | 3<<16 | 2<<12 | 0x123 */
#define PD3_AT		(FX_TABLES + 0x0000)
#define PD2_AT		(FX_TABLES + 0x1000)
#define PD1_AT		(FX_TABLES + 0x2000)
#define PD0_AT		(FX_TABLES + 0x3000)
#define PT4K_AT		(FX_TABLES + 0x4000)
#define PT64K_AT	(FX_TABLES + 0x5100)
#define PD3_E(va)	(PD3_AT + (((va) >> 47) & 3) * 8)
#define PD2_E(va)	(PD2_AT + (((va) >> 38) & 511) * 8)
#define PD1_E(va)	(PD1_AT + (((va) >> 29) & 511) * 8)
#define PD0_E(va)	(PD0_AT + (((va) >> 21) & 255) * 16)
#define PT4K_E(va)	(PT4K_AT + (((va) >> 12) & 511) * 8)
#define PT64K_E(va)	(PT64K_AT + (((va) >> 16) & 31) * 8)

/*
 * Hand-computed PDEs. NV_MMU_VER2_PDE: IS_PTE 0:0 (0 in a PDE), APERTURE
 * 2:1 (VIDEO_MEMORY 1, SYSTEM_COHERENT 2), VOL 3:3 (nvidia-uvm sets it),
 * ADDRESS_VID 32:8 / ADDRESS_SYS 53:8 holding addr >> 12.
 *   PD2 at 0x101000: 0x101 << 8 = 0x10100; vid 0x2 | 0x8 -> 0x1010a,
 *                                          sys 0x4 | 0x8 -> 0x1010c.
 */
#define PDE_VID(t)	((((t) >> 12) << 8) | 0xa)
#define PDE_SYS(t)	((((t) >> 12) << 8) | 0xc)
static const uint64_t pd3_to_pd2[2] = { 0x1010c, 0x1010a };	/* [vram] */
static const uint64_t pd2_to_pd1[2] = { 0x1020c, 0x1020a };
static const uint64_t pd1_to_pd0[2] = { 0x1030c, 0x1030a };
/*
 * NV_MMU_VER2_DUAL_PDE low word: APERTURE_BIG 2:1, VOL_BIG 3:3,
 * ADDRESS_BIG 53:4 / 32:4 holding addr >> 8 (ADDRESS_BIG_SHIFT 8).
 *   big table at 0x105100: 0x1051 << 4 = 0x10510; vid | 0xa -> 0x1051a.
 * High word (bits 127:64): APERTURE_SMALL 66:65 -> 2:1, VOL_SMALL 67 -> 3,
 * ADDRESS_SMALL 117:72 / 96:72 -> 53:8 / 32:8 holding addr >> 12.
 *   4K table at 0x104000: 0x104 << 8 = 0x10400; vid -> 0x1040a.
 */
static const uint64_t pd0_big[2] = { 0x1051c, 0x1051a };
static const uint64_t pd0_small[2] = { 0x1040c, 0x1040a };

/*
 * Hand-computed PTEs (NV_MMU_VER2_PTE): VALID 0, APERTURE 2:1 (VIDEO 0,
 * PEER 1, SYS_COH 2), VOL 3, PRIVILEGE 5, READ_ONLY 6, ATOMIC_DISABLE 7,
 * ADDRESS 32:8 (vid) / 53:8 (sys) = addr >> 12, KIND 63:56 = GENERIC 0x06.
 */
/* vid 0x2000000 RW+atomic, cached: 1 | 0x2000 << 8 | 6 << 56 */
#define PTE_64K_VID	0x0600000000200001ull
#define PA_64K		0x2000000ull
/* sys 0x900000 RW (atomic disabled), uncached: 1|4|8|0x80 | 0x900 << 8 */
#define PTE_4K_SYS	0x060000000009008dull
#define PA_4K		0x900000ull
/* vid 0x4000000 read-only, cached, atomic disabled: 1|0x40|0x80 | 0x4000 << 8 */
#define PTE_2M_VID_RO	0x06000000004000c1ull
#define PA_2M		0x4000000ull
/* vid 0x20000000 (512 MiB), RW+atomic: 1 | 0x20000 << 8 */
#define PTE_512M_VID	0x0600000002000001ull
#define PA_512M		0x20000000ull

static uint64_t fx_pdb(const struct fx *f)
{
	return PD3_AT | (f->vram ? GA10X_BASE_APERTURE_VIDMEM
				 : GA10X_BASE_APERTURE_SYSMEM);
}

/* PD3 -> PD2 -> PD1 -> PD0 for VA_T's 512 MiB region; PD0 left empty. */
static void fx_chain(struct fx *f)
{
	wr64(f, PD3_E(VA_T), pd3_to_pd2[f->vram]);
	wr64(f, PD2_E(VA_T), pd2_to_pd1[f->vram]);
	wr64(f, PD1_E(VA_T), pd1_to_pd0[f->vram]);
}

static void fx_pd0(struct fx *f, uint64_t va, int big, int small)
{
	wr64(f, PD0_E(va), big ? pd0_big[f->vram] : 0);
	wr64(f, PD0_E(va) + 8, small ? pd0_small[f->vram] : 0);
}

static int xl(struct fx *f, uint64_t va, unsigned int access,
	      struct ga10x_xlate *x)
{
	return ga10x_translate(f->g, fx_pdb(f), va, access, x);
}

/* ---- encoders ---- */

static void test_encode(void)
{
	/* the fixture's words, from the encoders */
	CU_ASSERT_EQUAL(ga10x_pde(GA10X_PDE_APERTURE_VIDEO, PD2_AT), pd3_to_pd2[1]);
	CU_ASSERT_EQUAL(ga10x_pde(GA10X_PDE_APERTURE_SYS_COH, PD2_AT), pd3_to_pd2[0]);
	CU_ASSERT_EQUAL(PDE_VID(PD2_AT), pd3_to_pd2[1]);
	CU_ASSERT_EQUAL(PDE_SYS(PD0_AT), pd1_to_pd0[0]);
	CU_ASSERT_EQUAL(ga10x_pde(GA10X_PDE_APERTURE_INVALID, PD2_AT), 0);
	CU_ASSERT_EQUAL(ga10x_dual_pde_big(GA10X_PDE_APERTURE_VIDEO, PT64K_AT), pd0_big[1]);
	CU_ASSERT_EQUAL(ga10x_dual_pde_big(GA10X_PDE_APERTURE_SYS_COH, PT64K_AT), pd0_big[0]);
	CU_ASSERT_EQUAL(ga10x_dual_pde_small(GA10X_PDE_APERTURE_VIDEO, PT4K_AT), pd0_small[1]);
	CU_ASSERT_EQUAL(ga10x_dual_pde_small(GA10X_PDE_APERTURE_SYS_COH, PT4K_AT), pd0_small[0]);
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_VIDEO, PA_64K, 0,
				  GA10X_PTE_KIND_GENERIC_MEMORY, 0), PTE_64K_VID);
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_SYS_COH, PA_4K,
				  GA10X_PTE_VOL | GA10X_PTE_ATOMIC_DISABLE,
				  GA10X_PTE_KIND_GENERIC_MEMORY, 0), PTE_4K_SYS);
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_VIDEO, PA_2M,
				  GA10X_PTE_READ_ONLY | GA10X_PTE_ATOMIC_DISABLE,
				  GA10X_PTE_KIND_GENERIC_MEMORY, 0), PTE_2M_VID_RO);
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_VIDEO, PA_512M, 0,
				  GA10X_PTE_KIND_GENERIC_MEMORY, 0), PTE_512M_VID);

	/*
	 * Vectors nvidia-uvm's own entry tests expect (uvm_page_tree_test.c;
	 * Pascal/Volta HALs, kind PITCH 0):
	 *  sys 0x399999999999000 RW+atomic uncached: 0x399999999999 << 8 |
	 *    1 | 4 | 8 = 0x3999999999990d;
	 *  sys, read-only cached: | 0x40 | 0x80, no VOL = 0x399999999999c5;
	 *  vid 0x1bbbbbb000 read-only cached: 0x1bbbbbb << 8 | 0xc1;
	 *  peer 0 0x5bbbbbbbb000 (47-bit): addr >> 12 = 0x5bbbbbbbb, low 25
	 *    bits 0x1bbbbbb at 32:8, the rest 0x2dd in COMPTAGLINE 55:36:
	 *    0x2dd << 36 | 0x1bbbbbb00 | 0xc3 = 0x2dd1bbbbbbc3.
	 *  PDE sys 0x399999999999000 = 0x3999999999990c; dual big half sys
	 *  0x399999999999900 (>> 8 at 53:4) = 0x3999999999999c; big vid
	 *  0x1bbbbbbb00 = 0x1bbbbbbba.
	 */
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_SYS_COH, 0x399999999999000ull,
				  GA10X_PTE_VOL, GA10X_PTE_KIND_PITCH, 0),
			0x3999999999990dull);
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_SYS_COH, 0x399999999999000ull,
				  GA10X_PTE_READ_ONLY | GA10X_PTE_ATOMIC_DISABLE,
				  GA10X_PTE_KIND_PITCH, 0), 0x399999999999c5ull);
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_VIDEO, 0x1bbbbbb000ull,
				  GA10X_PTE_READ_ONLY | GA10X_PTE_ATOMIC_DISABLE,
				  GA10X_PTE_KIND_PITCH, 0), 0x1bbbbbbc1ull);
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_PEER, 0x5bbbbbbbb000ull,
				  GA10X_PTE_READ_ONLY | GA10X_PTE_ATOMIC_DISABLE,
				  GA10X_PTE_KIND_PITCH, 0), 0x2dd1bbbbbbc3ull);
	CU_ASSERT_EQUAL(ga10x_pde(GA10X_PDE_APERTURE_SYS_COH, 0x399999999999000ull),
			0x3999999999990cull);
	CU_ASSERT_EQUAL(ga10x_dual_pde_big(GA10X_PDE_APERTURE_SYS_COH,
					   0x399999999999900ull), 0x3999999999999cull);
	CU_ASSERT_EQUAL(ga10x_dual_pde_big(GA10X_PDE_APERTURE_VIDEO, 0x1bbbbbbb00ull),
			0x1bbbbbbbaull);
	/* peer 1: ADDRESS_VID_PEER 35:33 = 1 -> 1 << 33 */
	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_PEER, 0x1000ull, 0,
				  GA10X_PTE_KIND_PITCH, 1), 0x200000103ull);
	/* special patterns: uvm's make_sparse_pte 0x8, unmapped big 0x20 */
	CU_ASSERT_EQUAL(GA10X_PTE_SPARSE, 0x8);
	CU_ASSERT_EQUAL(GA10X_PTE_UNMAPPED_BIG, 0x20);

	/* decoders invert the encoders, including the 47-bit split */
	CU_ASSERT_EQUAL(ga10x_pte_address(0x2dd1bbbbbbc3ull), 0x5bbbbbbbb000ull);
	CU_ASSERT_EQUAL(ga10x_pte_address(PTE_4K_SYS), PA_4K);
	CU_ASSERT_EQUAL(ga10x_pte_aperture(PTE_4K_SYS), GA10X_PTE_APERTURE_SYS_COH);
	CU_ASSERT_EQUAL(ga10x_pde_address(pd0_small[1]), PT4K_AT);
	CU_ASSERT_EQUAL(ga10x_dual_pde_big_address(pd0_big[0]), PT64K_AT);
	CU_ASSERT_EQUAL(ga10x_pde_address(0x3999999999990cull), 0x399999999999000ull);
}

/* ---- walks ---- */

static void walk_sizes(int vram)
{
	struct fx *f = fx_new(vram);
	struct ga10x_xlate x;
	uint64_t va2m = VA_T + (1ull << 21);	/* PD0 index 10 */
	uint64_t va512m = VA_T + (1ull << 29);	/* PD1 index 8 */

	fx_chain(f);
	/* 4K: only the small half of PD0[9] */
	fx_pd0(f, VA_T, 0, 1);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_SYSMEM);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	CU_ASSERT_EQUAL(x.page_shift, 12);
	CU_ASSERT_EQUAL(x.vol, 1);
	CU_ASSERT_EQUAL(x.atomic_disable, 1);
	CU_ASSERT_EQUAL(x.read_only, 0);
	/* the next 4K page has no PTE */
	CU_ASSERT_EQUAL(xl(f, VA_T + 0x1000, EMGPU_ACCESS_READ, &x),
			GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PTE);

	/* 2M: a PTE in the low word of PD0[10] */
	wr64(f, PD0_E(va2m), PTE_2M_VID_RO);
	wr64(f, PD0_E(va2m) + 8, 0);
	CU_ASSERT_EQUAL(xl(f, va2m + 0x1fffff - (va2m & 0x1fffff), EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_VIDMEM);
	CU_ASSERT_EQUAL(x.pa, PA_2M + 0x1fffff);
	CU_ASSERT_EQUAL(x.page_shift, 21);
	CU_ASSERT_EQUAL(xl(f, va2m, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_2M + (va2m & 0x1fffff));
	CU_ASSERT_EQUAL(x.read_only, 1);

	/* 512M: a PTE in PD1[8] */
	wr64(f, PD1_E(va512m), PTE_512M_VID);
	CU_ASSERT_EQUAL(xl(f, va512m, EMGPU_ACCESS_ATOMIC, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_512M + (va512m & ((1ull << 29) - 1)));
	CU_ASSERT_EQUAL(x.page_shift, 29);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_VIDMEM);
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

static void test_walk_sizes_vram(void) { walk_sizes(1); }
static void test_walk_sizes_sys(void) { walk_sizes(0); }

/* 64K through the big table; which half wins; the three big-PTE states */
static void big_states(int vram)
{
	struct fx *f = fx_new(vram);
	struct ga10x_xlate x;
	uint64_t pdb = fx_pdb(f);

	fx_chain(f);
	fx_pd0(f, VA_T, 1, 1);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);

	/* valid big PTE: wins over the valid 4K PTE */
	wr64(f, PT64K_E(VA_T), PTE_64K_VID);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_ATOMIC, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_VIDMEM);
	CU_ASSERT_EQUAL(x.pa, PA_64K + (VA_T & 0xffff));
	CU_ASSERT_EQUAL(x.page_shift, 16);
	CU_ASSERT_EQUAL(x.vol, 0);

	/* invalid, all zero: the 4K table is walked */
	wr64(f, PT64K_E(VA_T), 0);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_SYSMEM);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	CU_ASSERT_EQUAL(x.page_shift, 12);
	/* ... and a 4K page of the same 64K without a PTE faults PTE */
	CU_ASSERT_EQUAL(xl(f, VA_T + 0x1000, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PTE);

	/* unmapped (PRIVILEGE): faults though the 4K PTE is valid */
	wr64(f, PT64K_E(VA_T), GA10X_PTE_UNMAPPED_BIG);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PTE);

	/* sparse (VOL): no fault for any access, no address */
	wr64(f, PT64K_E(VA_T), GA10X_PTE_SPARSE);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);
	CU_ASSERT_EQUAL(x.page_shift, 16);
	CU_ASSERT_EQUAL(x.pa, 0);
	CU_ASSERT_EQUAL(xl(f, VA_T + 0x4000, EMGPU_ACCESS_ATOMIC, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);
	/* VOL | PRIVILEGE: VOL decides (sparse) */
	wr64(f, PT64K_E(VA_T), GA10X_PTE_SPARSE | GA10X_PTE_UNMAPPED_BIG);
	ga10x_tlb_invalidate(f->g, 1, 0, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);

	/* big table only: an invalid big PTE has no 4K table to fall to */
	fx_pd0(f, VA_T, 1, 0);
	wr64(f, PT64K_E(VA_T), 0);
	ga10x_tlb_invalidate(f->g, 1, 0, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
	wr64(f, PT64K_E(VA_T), PTE_64K_VID);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_64K + (VA_T & 0xffff));
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

static void test_big_states_vram(void) { big_states(1); }
static void test_big_states_sys(void) { big_states(0); }

/* read-only, atomic disable, privilege; fault types of missing tables */
static void test_permissions_and_faults(void)
{
	struct fx *f = fx_new(1);
	struct ga10x_xlate x;
	uint64_t va2m = VA_T + (1ull << 21), pdb = fx_pdb(f);
	/*
	 * nvidia-uvm's poisoned PTE: vid 0x1bad000000 read-only, uncached,
	 * then PRIVILEGE: 0x1bad000 << 8 | 1 | 8 | 0x40 | 0x80 | 0x20 | 6 << 56
	 */
	const uint64_t poisoned = 0x06000001bad000e9ull;

	CU_ASSERT_EQUAL(ga10x_pte(GA10X_PTE_APERTURE_VIDEO, 0x1bad000000ull,
				  GA10X_PTE_VOL | GA10X_PTE_READ_ONLY |
				  GA10X_PTE_ATOMIC_DISABLE | GA10X_PTE_PRIVILEGE,
				  GA10X_PTE_KIND_GENERIC_MEMORY, 0), poisoned);

	/* nothing at PD3: PDE fault (type 0, hence GA10X_XLATE_FAULT) */
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
	fx_chain(f);
	/* PD0 entry both halves invalid: PDE */
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
	/* another PD1 index: PDE */
	CU_ASSERT_EQUAL(xl(f, VA_T + (1ull << 29), EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
	/* beyond 49 bits */
	CU_ASSERT_EQUAL(xl(f, 1ull << 49, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_VA_LIMIT);

	/* read-only 2M: read ok, write and atomic RO violations */
	wr64(f, PD0_E(va2m), PTE_2M_VID_RO);
	CU_ASSERT_EQUAL(xl(f, va2m, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(xl(f, va2m, EMGPU_ACCESS_PREFETCH, &x), 0);
	CU_ASSERT_EQUAL(xl(f, va2m, EMGPU_ACCESS_WRITE, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_RO);
	CU_ASSERT_EQUAL(x.fault_type, 6);	/* NV_PFAULT_FAULT_TYPE_RO_VIOLATION */
	CU_ASSERT_EQUAL(xl(f, va2m, EMGPU_ACCESS_ATOMIC, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_RO);

	/* atomic disabled, writable 4K: write ok, atomic violation */
	fx_pd0(f, VA_T, 0, 1);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), 0);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_ATOMIC, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_ATOMIC);
	CU_ASSERT_EQUAL(x.fault_type, 0xf);	/* ..._ATOMIC_VIOLATION */

	/* the poisoned PTE: a privilege violation, unless privileged */
	wr64(f, PT4K_E(VA_T), poisoned);
	ga10x_tlb_invalidate(f->g, 0, pdb, VA_T & ~0xfffull, (VA_T & ~0xfffull) + 0x1000);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PRIV);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ | GA10X_ACCESS_PRIVILEGED, &x), 0);
	CU_ASSERT_EQUAL(x.pa, 0x1bad000000ull + 0x123);
	CU_ASSERT_EQUAL(x.priv, 1);
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

/* ---- TLB ---- */

static void test_tlb(void)
{
	struct fx *f = fx_new(1);
	struct ga10x_xlate x;
	struct gm_stats s0, s1;
	uint64_t pdb = fx_pdb(f), page = VA_T & ~0xfffull;
	const uint64_t pte_new = ga10x_pte(GA10X_PTE_APERTURE_SYS_COH, 0xa00000,
					   GA10X_PTE_VOL, GA10X_PTE_KIND_GENERIC_MEMORY, 0);

	fx_chain(f);
	fx_pd0(f, VA_T, 0, 1);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	gm_get_stats(f->g, &s0);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(xl(f, VA_T + 8, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x12b);
	gm_get_stats(f->g, &s1);
	CU_ASSERT_EQUAL(s1.walks - s0.walks, 1);
	CU_ASSERT_EQUAL(s1.tlb_hits - s0.tlb_hits, 1);

	/* the TLB is per pdb: an empty directory elsewhere still faults */
	CU_ASSERT_EQUAL(ga10x_translate(f->g, (FX_TABLES + 0x6000) |
					GA10X_BASE_APERTURE_VIDMEM, VA_T,
					EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
	/* ... and so do 512 more: some share VA_T's TLB slot (256 slots) */
	{
		unsigned int i, faults = 0;

		for (i = 0; i < 512; i++)
			faults += ga10x_translate(f->g, (0x1000000ull + i * 0x1000ull) |
						  GA10X_BASE_APERTURE_VIDMEM, VA_T,
						  EMGPU_ACCESS_READ, &x) == GA10X_XLATE_FAULT;
		CU_ASSERT_EQUAL(faults, 512);
	}
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);

	/* the PTE changes without an invalidate: the old translation stays */
	wr64(f, PT4K_E(VA_T), pte_new);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	/* invalidates of another pdb, and of a range around it, keep it */
	ga10x_tlb_invalidate(f->g, 0, pdb + 0x1000, 0, ~0ull);
	CU_ASSERT_EQUAL(f->tlb_inv_events, 1);
	CU_ASSERT_EQUAL(f->last_inv[0], pdb + 0x1000);
	ga10x_tlb_invalidate(f->g, 0, pdb, page + 0x1000, page + 0x100000);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, page);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	/* the same address in sysmem is another pdb too */
	ga10x_tlb_invalidate(f->g, 0, PD3_AT | GA10X_BASE_APERTURE_SYSMEM, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	/* an invalidate covering its last byte drops it */
	ga10x_tlb_invalidate(f->g, 0, pdb, page + 0xfff, page + 0x1000);
	CU_ASSERT_EQUAL(f->tlb_inv_events, 5);
	CU_ASSERT_EQUAL(f->last_inv[0], pdb);
	CU_ASSERT_EQUAL(f->last_inv[1], page + 0xfff);
	CU_ASSERT_EQUAL(f->last_inv[2], page + 0x1000);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, 0xa00000 + 0x123);

	/* all pdbs: drops it whatever pdb is named */
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	ga10x_tlb_invalidate(f->g, 1, 0x12345000, 0, ~0ull);
	CU_ASSERT_EQUAL(f->last_inv[0], ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);

	/* a fault is not cached: mapping the page needs no invalidate */
	CU_ASSERT_EQUAL(xl(f, VA_T + 0x1000, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	wr64(f, PT4K_E(VA_T + 0x1000), pte_new);
	CU_ASSERT_EQUAL(xl(f, VA_T + 0x1000, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, 0xa00000 + 0x123);

	/* a 2M entry is cached as one: a change inside keeps it until invalidated */
	{
		uint64_t va2m = VA_T + (1ull << 21), base = va2m & ~0x1fffffull;

		wr64(f, PD0_E(va2m), PTE_2M_VID_RO);
		CU_ASSERT_EQUAL(xl(f, base + 0x1000, EMGPU_ACCESS_READ, &x), 0);
		wr64(f, PD0_E(va2m), 0);
		CU_ASSERT_EQUAL(xl(f, base + 0x1ff000, EMGPU_ACCESS_READ, &x), 0);
		CU_ASSERT_EQUAL(x.pa, PA_2M + 0x1ff000);
		/* a 4K range inside the 2M page drops the whole entry */
		ga10x_tlb_invalidate(f->g, 0, pdb, base + 0x5000, base + 0x6000);
		CU_ASSERT_EQUAL(xl(f, base + 0x1ff000, EMGPU_ACCESS_READ, &x),
				GA10X_XLATE_FAULT);
		CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
	}
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

/*
 * The RM's invalidate register: a directory's every VA, or every
 * directory's with ALL_PDB; nothing without TRIGGER; BAD_VALUE and no
 * invalidate for unknown bits, no ALL_VA, a reserved aperture
 */
static void inv_reg(struct fx *f, uint64_t pdb, uint32_t v)
{
	gm_reg_write(f->g, GA10X_REG_MMU_INVALIDATE_PDB_HI, (uint32_t)(pdb >> 32));
	gm_reg_write(f->g, GA10X_REG_MMU_INVALIDATE_PDB_LO, (uint32_t)pdb);
	gm_reg_write(f->g, GA10X_REG_MMU_INVALIDATE, v);
}

static void test_tlb_invalidate_reg(void)
{
	const uint32_t go = GA10X_MMU_INVALIDATE_TRIGGER | GA10X_MMU_INVALIDATE_ALL_VA;
	const uint64_t other = (FX_TABLES + 0x6000) | GA10X_BASE_APERTURE_VIDMEM;
	struct fx *f = fx_new(1);
	struct ga10x_xlate x;
	uint64_t pdb = fx_pdb(f);

	fx_chain(f);
	fx_pd0(f, VA_T, 0, 1);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	wr64(f, PT4K_E(VA_T), PTE_64K_VID);	/* a 4K PTE to vid 0x2000000 */
	/* the registers read back; INVALIDATE reads 0 */
	gm_reg_write(f->g, GA10X_REG_MMU_INVALIDATE_PDB_HI, 0x12);
	gm_reg_write(f->g, GA10X_REG_MMU_INVALIDATE_PDB_LO, 0x345002);
	CU_ASSERT_EQUAL(gm_reg_read(f->g, GA10X_REG_MMU_INVALIDATE_PDB_HI), 0x12);
	CU_ASSERT_EQUAL(gm_reg_read(f->g, GA10X_REG_MMU_INVALIDATE_PDB_LO), 0x345002);
	CU_ASSERT_EQUAL(gm_reg_read(f->g, GA10X_REG_MMU_INVALIDATE), 0);

	/* no TRIGGER, another directory: the old translation stays */
	inv_reg(f, pdb, GA10X_MMU_INVALIDATE_ALL_VA);
	inv_reg(f, other, go);
	CU_ASSERT_EQUAL(f->tlb_inv_events, 1);
	CU_ASSERT_EQUAL(f->last_inv[0], other);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	/* malformed: BAD_VALUE, nothing dropped */
	inv_reg(f, pdb, go | (1u << 2));
	inv_reg(f, pdb, GA10X_MMU_INVALIDATE_TRIGGER);
	inv_reg(f, PD3_AT | 1, go);
	CU_ASSERT_EQUAL(f->errors, 3);
	CU_ASSERT_EQUAL(gm_error_status(f->g), EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(f->last_info, GA10X_REG_MMU_INVALIDATE);
	CU_ASSERT_EQUAL(f->tlb_inv_events, 1);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	/* this directory: every VA of it */
	inv_reg(f, pdb, go);
	CU_ASSERT_EQUAL(f->tlb_inv_events, 2);
	CU_ASSERT_EQUAL(f->last_inv[0], pdb);
	CU_ASSERT_EQUAL(f->last_inv[1], 0);
	CU_ASSERT_EQUAL(f->last_inv[2], ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_VIDMEM);
	CU_ASSERT_EQUAL(x.pa, PA_64K + 0x123);
	/* ALL_PDB: whatever directory PDB_LO/HI name, a reserved one too */
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	inv_reg(f, PD3_AT | 1, go | GA10X_MMU_INVALIDATE_ALL_PDB);
	CU_ASSERT_EQUAL(f->last_inv[0], ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	CU_ASSERT_EQUAL(f->errors, 3);
	fx_free(f);
}

/* a device reset empties the TLB (VRAM, and so the tables, stay) */
static void test_tlb_reset(void)
{
	struct fx *f = fx_new(1);
	struct ga10x_xlate x;

	fx_chain(f);
	fx_pd0(f, VA_T, 0, 1);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	wr64(f, PT4K_E(VA_T), PTE_64K_VID);	/* a 4K PTE to vid 0x2000000 */
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	gm_reset(f->g);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_VIDMEM);
	CU_ASSERT_EQUAL(x.pa, PA_64K + 0x123);
	CU_ASSERT_EQUAL(x.page_shift, 12);
	fx_free(f);
}

/* ---- malformed values: exact errors, latched ---- */

static void test_errors(void)
{
	struct fx *f = fx_new(0);
	struct ga10x_xlate x;

	fx_chain(f);
	fx_pd0(f, VA_T, 0, 1);
	/* a pdb of a reserved aperture (1: not VIDMEM 0 or SYSMEM 2) */
	CU_ASSERT_EQUAL(ga10x_translate(f->g, PD3_AT | 1, VA_T, EMGPU_ACCESS_READ, &x),
			-EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(f->errors, 1);
	CU_ASSERT_EQUAL(gm_error_status(f->g), EMGPU_ERR_BAD_VALUE);
	/* a pdb with bits 11:2 set */
	CU_ASSERT_EQUAL(ga10x_translate(f->g, PD3_AT | 0x800 | 2, VA_T, EMGPU_ACCESS_READ, &x),
			-EMGPU_ERR_BAD_VALUE);
	/* an access type beyond PREFETCH */
	CU_ASSERT_EQUAL(xl(f, VA_T, 4, &x), -EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(f->errors, 3);

	/* a PEER PTE: no peers here */
	wr64(f, PT4K_E(VA_T), ga10x_pte(GA10X_PTE_APERTURE_PEER, 0x1000, 0,
					GA10X_PTE_KIND_GENERIC_MEMORY, 0));
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), -EMGPU_ERR_BAD_PTE);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_PTE);
	/* a 2M PTE whose address is not 2M aligned: the bits below 2M are
	 * ignored, the offset comes from the VA (no error) */
	wr64(f, PD0_E(VA_T), ga10x_pte(GA10X_PTE_APERTURE_VIDEO, 0x4001000, 0,
				       GA10X_PTE_KIND_GENERIC_MEMORY, 0));
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, 0x4000000ull + (VA_T & 0x1fffff));
	ga10x_tlb_invalidate(f->g, 0, fx_pdb(f), 0, ~0ull);
	/* so are a 512M PTE's below 512M (nvidia-uvm 580's huge-page test) */
	wr64(f, PD1_E(VA_T), PTE_512M_VID | (0x1234ull << 8));
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_512M + (VA_T & ((1ull << 29) - 1)));
	ga10x_tlb_invalidate(f->g, 0, fx_pdb(f), 0, ~0ull);
	wr64(f, PD1_E(VA_T), pd1_to_pd0[f->vram]);
	/* a PTE at PD3 (IS_PTE set): only PD1 and PD0 hold PTEs */
	wr64(f, PD3_E(VA_T), PTE_512M_VID);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), -EMGPU_ERR_BAD_PTE);
	CU_ASSERT_EQUAL(f->errors, 5);

	/* a PD2 in sysmem beyond guest RAM: DMA error */
	wr64(f, PD3_E(VA_T), ga10x_pde(GA10X_PDE_APERTURE_SYS_COH, 1ull << 40));
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), -EMGPU_ERR_DMA);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_DMA);
	/* a PD2 in vidmem beyond VRAM (256 MiB): VRAM range error */
	wr64(f, PD3_E(VA_T), ga10x_pde(GA10X_PDE_APERTURE_VIDEO, 1ull << 30));
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), -EMGPU_ERR_VRAM_RANGE);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_VRAM_RANGE);
	/* non-coherent sysmem PDE reads sysmem too */
	wr64(f, PD3_E(VA_T), ga10x_pde(GA10X_PDE_APERTURE_SYS_NONCOH, PD2_AT));
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	wr64(f, PD0_E(VA_T), 0);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	CU_ASSERT_EQUAL(f->errors, 7);
	fx_free(f);
}

void add_ga10x_mmu_suite(void)
{
	CU_pSuite s = CU_add_suite("ga10x_mmu", NULL, NULL);

	CU_add_test(s, "encode", test_encode);
	CU_add_test(s, "walk_sizes_vram", test_walk_sizes_vram);
	CU_add_test(s, "walk_sizes_sys", test_walk_sizes_sys);
	CU_add_test(s, "big_states_vram", test_big_states_vram);
	CU_add_test(s, "big_states_sys", test_big_states_sys);
	CU_add_test(s, "permissions_and_faults", test_permissions_and_faults);
	CU_add_test(s, "tlb", test_tlb);
	CU_add_test(s, "tlb_invalidate_reg", test_tlb_invalidate_reg);
	CU_add_test(s, "tlb_reset", test_tlb_reset);
	CU_add_test(s, "errors", test_errors);
}
