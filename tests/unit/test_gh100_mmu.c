/* SPDX-License-Identifier: MIT */
/*
 * GH100 MMU VER3: entry encodings against words computed by hand from
 * NVIDIA's field definitions (hwref hopper/gh100 dev_mmu.h NV_MMU_VER3_*)
 * and against the words nvidia-uvm's own Hopper entry test expects, then
 * the walk of src/gh100/mmu.c through GA10x's TLB on a model created with
 * the GH100 personality, tables in vidmem and in sysmem: each level's
 * decode, 4 KiB / 64 KiB / 2 MiB / 512 MiB translations, the upper half
 * of the 57-bit VA, invalid and sparse entries at every level and the
 * fault types they give.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "ga10x/mmu_v2.h"
#include "ga10x/regs.h"
#include "gh100/mmu_v3.h"
#include "gh100/regs.h"
#include "../../models/src/ga10x/ga10x.h"

/* ---- fixture: a GH100 model over a flat sysmem buffer ---- */

#define FX_SYS_SIZE	(16ull << 20)
#define FX_TABLES	0x100000ull	/* same offset in either memory */

struct fx {
	struct gm_gpu *g;
	struct gmt_flat flat;
	int vram;		/* tables in vidmem */
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
				   .error = fx_error };
	struct gm_config cfg = { .personality = GM_PERSONALITY_GH100,
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
 * One chain for VA_T (indices PDE4 0, PDE3 0x103, PDE2 5, PDE1 7, PDE0 9,
 * big 3, 4K 0x32), every table at FX_TABLES + a fixed offset:
 *   PDE4 +0x0000, PDE3 +0x1000, PDE2 +0x2000, PDE1 +0x3000,
 *   PDE0 +0x4000, PT4K +0x5000, PT64K +0x6100 (256-byte aligned only, as
 *   nvidia-uvm allocates big tables).
 * VA_U is VA_T in the upper half: bits 63:56 set, PDE4 index 1.
 */
#define VA_T		0x00818140e1232123ull	/* 0x103<<47 | 5<<38 | 7<<29 | 9<<21 | 3<<16 | 2<<12 | 0x123 */
#define VA_U		0xff818140e1232123ull
#define PDE4_AT		(FX_TABLES + 0x0000)
#define PDE3_AT		(FX_TABLES + 0x1000)
#define PDE2_AT		(FX_TABLES + 0x2000)
#define PDE1_AT		(FX_TABLES + 0x3000)
#define PDE0_AT		(FX_TABLES + 0x4000)
#define PT4K_AT		(FX_TABLES + 0x5000)
#define PT64K_AT	(FX_TABLES + 0x6100)
#define PDE4_E(va)	(PDE4_AT + (((va) >> 56) & 1) * 8)
#define PDE3_E(va)	(PDE3_AT + (((va) >> 47) & 511) * 8)
#define PDE2_E(va)	(PDE2_AT + (((va) >> 38) & 511) * 8)
#define PDE1_E(va)	(PDE1_AT + (((va) >> 29) & 511) * 8)
#define PDE0_E(va)	(PDE0_AT + (((va) >> 21) & 255) * 16)
#define PT4K_E(va)	(PT4K_AT + (((va) >> 12) & 511) * 8)
#define PT64K_E(va)	(PT64K_AT + (((va) >> 16) & 31) * 8)

/*
 * Hand-computed PDEs. NV_MMU_VER3_PDE: IS_PTE 0:0 (0), APERTURE 2:1
 * (VIDEO_MEMORY 1, SYSTEM_COHERENT 2), PCF 5:3 (nvidia-uvm's
 * VALID_UNCACHED_ATS_ALLOWED 1 -> 0x8), ADDRESS 51:12 holding the
 * address's own bits 51:12:
 *   PDE3 at 0x101000: vid 0x101000 | 0x2 | 0x8 = 0x10100a,
 *                     sys 0x101000 | 0x4 | 0x8 = 0x10100c.
 */
static const uint64_t pde4_to_pde3[2] = { 0x10100c, 0x10100a };	/* [vram] */
static const uint64_t pde3_to_pde2[2] = { 0x10200c, 0x10200a };
static const uint64_t pde2_to_pde1[2] = { 0x10300c, 0x10300a };
static const uint64_t pde1_to_pde0[2] = { 0x10400c, 0x10400a };
/*
 * NV_MMU_VER3_DUAL_PDE low word: APERTURE_BIG 2:1, PCF_BIG 5:3,
 * ADDRESS_BIG 51:8 holding addr >> 8 (ADDRESS_BIG_SHIFT 8), i.e. the
 * address's bits 51:8 in place: big table 0x106100 -> 0x10610a (vid).
 * High word (bits 127:64): APERTURE_SMALL 66:65 -> 2:1, PCF_SMALL 69:67
 * -> 5:3, ADDRESS_SMALL 115:76 -> 51:12: 4K table 0x105000 -> 0x10500a.
 */
static const uint64_t pde0_big[2] = { 0x10610c, 0x10610a };
static const uint64_t pde0_small[2] = { 0x10500c, 0x10500a };

/*
 * Hand-computed PTEs (NV_MMU_VER3_PTE): VALID 0, APERTURE 2:1 (VIDEO 0,
 * PEER 1, SYS_COH 2), PCF 7:3 (bits: 1 uncached, 2 privileged, 4
 * read-only, 8 no atomics, 0x10 ACD), KIND 11:8 (GENERIC 6 -> 0x600),
 * ADDRESS_VID 39:12 / ADDRESS 51:12 in place.
 */
/* vid 0x2000000, RW + atomic, cached, counted: 1 | 0x600 */
#define PTE_64K_VID	0x0000000002000601ull
#define PA_64K		0x2000000ull
/* sys 0x900000, RW, no atomics, uncached: 1 | 4 | (8|1) << 3 | 0x600 */
#define PTE_4K_SYS	0x000000000090064dull
#define PA_4K		0x900000ull
/* vid 0x4000000, read-only, no atomics, cached: 1 | (4|8) << 3 | 0x600 */
#define PTE_2M_VID_RO	0x0000000004000661ull
#define PA_2M		0x4000000ull
/* vid 0x20000000 (512 MiB), RW + atomic: 1 | 0x600 */
#define PTE_512M_VID	0x0000000020000601ull
#define PA_512M		0x20000000ull

static uint64_t fx_pdb(const struct fx *f)
{
	return PDE4_AT | (f->vram ? GA10X_BASE_APERTURE_VIDMEM
				  : GA10X_BASE_APERTURE_SYSMEM);
}

/* PDE4 -> PDE3 -> PDE2 -> PDE1 -> PDE0 table for VA_T; PDE0 left empty. */
static void fx_chain(struct fx *f)
{
	wr64(f, PDE4_E(VA_T), pde4_to_pde3[f->vram]);
	wr64(f, PDE3_E(VA_T), pde3_to_pde2[f->vram]);
	wr64(f, PDE2_E(VA_T), pde2_to_pde1[f->vram]);
	wr64(f, PDE1_E(VA_T), pde1_to_pde0[f->vram]);
}

static void fx_pde0(struct fx *f, uint64_t va, uint64_t lo, uint64_t hi)
{
	wr64(f, PDE0_E(va), lo);
	wr64(f, PDE0_E(va) + 8, hi);
}

static int xl(struct fx *f, uint64_t va, unsigned int access,
	      struct ga10x_xlate *x)
{
	return ga10x_translate(f->g, fx_pdb(f), va, access, x);
}

/* ---- encoders and decoders ---- */

static void test_encode(void)
{
	/* the fixture's words, from the encoders */
	CU_ASSERT_EQUAL(gh100_pde(GH100_PDE_APERTURE_VIDEO, PDE3_AT), pde4_to_pde3[1]);
	CU_ASSERT_EQUAL(gh100_pde(GH100_PDE_APERTURE_SYS_COH, PDE3_AT), pde4_to_pde3[0]);
	CU_ASSERT_EQUAL(gh100_pde(GH100_PDE_APERTURE_VIDEO, PDE0_AT), pde1_to_pde0[1]);
	CU_ASSERT_EQUAL(gh100_pde(GH100_PDE_APERTURE_INVALID, PDE3_AT), 0);
	CU_ASSERT_EQUAL(gh100_dual_pde_big(GH100_PDE_APERTURE_VIDEO, PT64K_AT), pde0_big[1]);
	CU_ASSERT_EQUAL(gh100_dual_pde_big(GH100_PDE_APERTURE_SYS_COH, PT64K_AT), pde0_big[0]);
	CU_ASSERT_EQUAL(gh100_dual_pde_small(GH100_PDE_APERTURE_VIDEO, PT4K_AT), pde0_small[1]);
	CU_ASSERT_EQUAL(gh100_dual_pde_small(GH100_PDE_APERTURE_SYS_COH, PT4K_AT), pde0_small[0]);
	CU_ASSERT_EQUAL(gh100_dual_pde_small(GH100_PDE_APERTURE_INVALID, PT4K_AT), 0);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_VIDEO, PA_64K, 0,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0), PTE_64K_VID);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_SYS_COH, PA_4K,
				  GH100_PTE_PCF_UNCACHED | GH100_PTE_PCF_NO_ATOMIC,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0), PTE_4K_SYS);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_VIDEO, PA_2M,
				  GH100_PTE_PCF_READ_ONLY | GH100_PTE_PCF_NO_ATOMIC,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0), PTE_2M_VID_RO);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_VIDEO, PA_512M, 0,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0), PTE_512M_VID);

	/*
	 * The words nvidia-uvm's Hopper entry test expects of its HAL
	 * (uvm_page_tree_test.c, ATS off): PDEs of tables at sys
	 * 0x9999999999000 and vid 0xbbbbbbb000, dual halves with the big
	 * tables at sys 0x9999999999900 and vid 0xbbbbbbbb00 (bits 11:8 set
	 * on purpose); PTEs of sys 0x9999999999000 RW + atomic uncached ACD,
	 * cached ACD, cached ACE, RW cached, read-only cached; vid and peer
	 * 1 read-only cached; the sparse, unmapped-big and sked-reflected
	 * patterns.
	 */
	CU_ASSERT_EQUAL(gh100_pde(GH100_PDE_APERTURE_SYS_COH, 0x9999999999000ull),
			0x999999999900cull);
	CU_ASSERT_EQUAL(gh100_pde(GH100_PDE_APERTURE_VIDEO, 0xbbbbbbb000ull),
			0xbbbbbbb00aull);
	CU_ASSERT_EQUAL(gh100_dual_pde_big(GH100_PDE_APERTURE_SYS_COH,
					   0x9999999999900ull), 0x999999999990cull);
	CU_ASSERT_EQUAL(gh100_dual_pde_small(GH100_PDE_APERTURE_VIDEO,
					     0xbbbbbbb000ull), 0xbbbbbbb00aull);
	CU_ASSERT_EQUAL(gh100_dual_pde_big(GH100_PDE_APERTURE_VIDEO,
					   0xbbbbbbbb00ull), 0xbbbbbbbb0aull);
	CU_ASSERT_EQUAL(gh100_dual_pde_small(GH100_PDE_APERTURE_SYS_COH,
					     0x9999999999000ull), 0x999999999900cull);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_SYS_COH, 0x9999999999000ull,
				  GH100_PTE_PCF_UNCACHED | GH100_PTE_PCF_ACD,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0),
			0x999999999968dull);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_SYS_COH, 0x9999999999000ull,
				  GH100_PTE_PCF_ACD,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0),
			0x9999999999685ull);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_SYS_COH, 0x9999999999000ull,
				  0, GH100_PTE_KIND_GENERIC_MEMORY, 0),
			0x9999999999605ull);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_SYS_COH, 0x9999999999000ull,
				  GH100_PTE_PCF_NO_ATOMIC,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0),
			0x9999999999645ull);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_SYS_COH, 0x9999999999000ull,
				  GH100_PTE_PCF_READ_ONLY | GH100_PTE_PCF_NO_ATOMIC,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0),
			0x9999999999665ull);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_VIDEO, 0xbbbbbbb000ull,
				  GH100_PTE_PCF_READ_ONLY | GH100_PTE_PCF_NO_ATOMIC,
				  GH100_PTE_KIND_GENERIC_MEMORY, 0),
			0xbbbbbbb661ull);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_PEER, 0xbbbbbbb000ull,
				  GH100_PTE_PCF_READ_ONLY | GH100_PTE_PCF_NO_ATOMIC,
				  GH100_PTE_KIND_GENERIC_MEMORY, 1),
			0x200000bbbbbbb663ull);
	CU_ASSERT_EQUAL(GH100_PTE_SPARSE, 0x8);
	CU_ASSERT_EQUAL(GH100_PTE_UNMAPPED_BIG, 0x18);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_VIDEO, 0, GH100_PTE_PCF_UNCACHED,
				  GH100_PTE_KIND_SMSKED_MESSAGE, 0), 0xf09);
	/* a vidmem address keeps 39:12 only; sys keeps 51:12 */
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_VIDEO, 0x1ff0000001000ull, 0,
				  0, 0), 0x1001ull);
	CU_ASSERT_EQUAL(gh100_pte(GH100_PTE_APERTURE_SYS_COH, 0xfff0000001000ull, 0,
				  0, 0), 0xfff0000001005ull);

	/* decoders: each field of each level */
	CU_ASSERT_EQUAL(gh100_pde_aperture(0x999999999900cull), GH100_PDE_APERTURE_SYS_COH);
	CU_ASSERT_EQUAL(gh100_pde_pcf(0x999999999900cull), GH100_PDE_PCF_VALID_UNCACHED_ATS);
	CU_ASSERT_EQUAL(gh100_pde_address(0x999999999900cull), 0x9999999999000ull);
	CU_ASSERT_EQUAL(gh100_pde_address(0xbbbbbbb00aull), 0xbbbbbbb000ull);
	CU_ASSERT_EQUAL(gh100_pde_pcf(0x18), GH100_PDE_PCF_VALID_UNCACHED_NO_ATS);
	CU_ASSERT_EQUAL(gh100_dual_pde_big_address(0x999999999990cull), 0x9999999999900ull);
	CU_ASSERT_EQUAL(gh100_dual_pde_big_address(pde0_big[1]), PT64K_AT);
	CU_ASSERT_EQUAL(gh100_pde_address(pde0_small[0]), PT4K_AT);
	CU_ASSERT_EQUAL(gh100_pte_aperture(0x200000bbbbbbb663ull), GH100_PTE_APERTURE_PEER);
	CU_ASSERT_EQUAL(gh100_pte_address(0x200000bbbbbbb663ull), 0xbbbbbbb000ull);
	CU_ASSERT_EQUAL(gh100_pte_pcf(0x999999999968dull),
			GH100_PTE_PCF_UNCACHED | GH100_PTE_PCF_ACD);
	CU_ASSERT_EQUAL(gh100_pte_address(PTE_4K_SYS), PA_4K);
	CU_ASSERT_EQUAL(gh100_pte_address(0xfff0000001601ull), 0x1000ull);	/* vid: 39:12 */
	CU_ASSERT_EQUAL(gh100_pte_pcf(GH100_PTE_UNMAPPED_BIG), GH100_PTE_PCF_NO_VALID_4KB_PAGE);
}

/* ---- walks ---- */

static void walk_sizes(int vram)
{
	struct fx *f = fx_new(vram);
	struct ga10x_xlate x;
	uint64_t va2m = VA_T + (1ull << 21);	/* PDE0 index 10 */
	uint64_t va512m = VA_T + (1ull << 29);	/* PDE1 index 8 */

	fx_chain(f);
	/* 4K: only the small half of PDE0[9] */
	fx_pde0(f, VA_T, 0, pde0_small[vram]);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_SYSMEM);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	CU_ASSERT_EQUAL(x.page_shift, 12);
	CU_ASSERT_EQUAL(x.vol, 1);
	CU_ASSERT_EQUAL(x.atomic_disable, 1);
	CU_ASSERT_EQUAL(x.read_only, 0);
	CU_ASSERT_EQUAL(x.priv, 0);
	CU_ASSERT_EQUAL(x.acd, 0);
	CU_ASSERT_EQUAL(x.sparse, 0);
	/* the next 4K page has an all-zero PTE: INVALID */
	CU_ASSERT_EQUAL(xl(f, VA_T + 0x1000, EMGPU_ACCESS_READ, &x),
			GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PTE);

	/* 64K: the big half of the same entry, its PTE wins over the 4K one */
	fx_pde0(f, VA_T, pde0_big[vram], pde0_small[vram]);
	wr64(f, PT64K_E(VA_T), PTE_64K_VID);
	CU_ASSERT_EQUAL(xl(f, VA_T + 0x4000, EMGPU_ACCESS_ATOMIC, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_VIDMEM);
	CU_ASSERT_EQUAL(x.pa, PA_64K + ((VA_T + 0x4000) & 0xffff));
	CU_ASSERT_EQUAL(x.page_shift, 16);
	CU_ASSERT_EQUAL(x.vol, 0);

	/* 2M: a PTE in the low word of PDE0[10] */
	fx_pde0(f, va2m, PTE_2M_VID_RO, 0);
	CU_ASSERT_EQUAL(xl(f, (va2m | 0x1fffff), EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_VIDMEM);
	CU_ASSERT_EQUAL(x.pa, PA_2M + 0x1fffff);
	CU_ASSERT_EQUAL(x.page_shift, 21);
	CU_ASSERT_EQUAL(x.read_only, 1);
	CU_ASSERT_EQUAL(xl(f, va2m, EMGPU_ACCESS_WRITE, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_RO);

	/* 512M: a PTE in PDE1[8] */
	wr64(f, PDE1_E(va512m), PTE_512M_VID);
	CU_ASSERT_EQUAL(xl(f, va512m, EMGPU_ACCESS_ATOMIC, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_512M + (va512m & ((1ull << 29) - 1)));
	CU_ASSERT_EQUAL(x.page_shift, 29);
	CU_ASSERT_EQUAL(x.aperture, EMGPU_APERTURE_VIDMEM);
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

static void test_walk_sizes_vram(void) { walk_sizes(1); }
static void test_walk_sizes_sys(void) { walk_sizes(0); }

/*
 * The 57-bit VA: the upper half (bits 63:57 copies of bit 56) walks PDE4
 * entry 1, as does a VA below 2^57 with bit 56 set; anything else is
 * beyond the VA and faults VA_LIMIT without a walk.
 */
static void test_upper_half(void)
{
	struct fx *f = fx_new(1);
	struct ga10x_xlate x;
	uint64_t walks;
	struct gm_stats st;

	fx_chain(f);
	fx_pde0(f, VA_T, 0, pde0_small[1]);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	/* PDE4[1] still empty */
	CU_ASSERT_EQUAL(xl(f, VA_U, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
	/* PDE4[1] -> the same PDE3 table: the same page */
	wr64(f, PDE4_E(VA_U), pde4_to_pde3[1]);
	CU_ASSERT_EQUAL(PDE4_E(VA_U), PDE4_AT + 8);
	CU_ASSERT_EQUAL(xl(f, VA_U, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	CU_ASSERT_EQUAL(xl(f, VA_U & ((1ull << 57) - 1), EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);

	gm_get_stats(f->g, &st);
	walks = st.walks;
	/* not canonical: one upper bit missing, or bit 56 clear under them */
	CU_ASSERT_EQUAL(xl(f, VA_U & ~(1ull << 60), EMGPU_ACCESS_READ, &x),
			GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_VA_LIMIT);
	CU_ASSERT_EQUAL(xl(f, VA_T | (1ull << 57), EMGPU_ACCESS_READ, &x),
			GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_VA_LIMIT);
	CU_ASSERT_EQUAL(xl(f, VA_T | (0x7full << 57), EMGPU_ACCESS_READ, &x),
			GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_VA_LIMIT);
	gm_get_stats(f->g, &st);
	CU_ASSERT_EQUAL(st.walks, walks);
	/* VA_T (bit 55 set) is past GA10x's 49 bits: Hopper walks it */
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT(VA_T >> GA10X_MMU_VA_BITS);
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

/* The big PTE's states over a valid 4K PTE of the same dual PDE0 entry. */
static void big_states(int vram)
{
	struct fx *f = fx_new(vram);
	struct ga10x_xlate x;
	uint64_t pdb = fx_pdb(f);

	fx_chain(f);
	fx_pde0(f, VA_T, pde0_big[vram], pde0_small[vram]);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);

	/* INVALID (all zero): the 4K table decides */
	wr64(f, PT64K_E(VA_T), 0);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.page_shift, 12);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	/* INVALID with address bits: still only PCF decides */
	wr64(f, PT64K_E(VA_T), 0x12345600ull);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.page_shift, 12);

	/* NO_VALID_4KB_PAGE (nvidia-uvm's unmapped 64K, 0x18): fault, 4K unread */
	wr64(f, PT64K_E(VA_T), GH100_PTE_UNMAPPED_BIG);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PTE);

	/* MAPPING_NOWHERE: a fault too, no fall-through */
	wr64(f, PT64K_E(VA_T), (uint64_t)GH100_PTE_PCF_MAPPING_NOWHERE << 3);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PTE);

	/* SPARSE (0x8): no fault, a sparse 64K page over the valid 4K PTE */
	wr64(f, PT64K_E(VA_T), GH100_PTE_SPARSE);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);
	CU_ASSERT_EQUAL(x.page_shift, 16);
	CU_ASSERT_EQUAL(x.pa, 0);

	/* valid: wins */
	wr64(f, PT64K_E(VA_T), PTE_64K_VID);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.page_shift, 16);
	CU_ASSERT_EQUAL(x.sparse, 0);
	CU_ASSERT_EQUAL(x.pa, PA_64K + (VA_T & 0xffff));
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

static void test_big_states_vram(void) { big_states(1); }
static void test_big_states_sys(void) { big_states(0); }

/*
 * Invalid and sparse at every level. A PDE with APERTURE INVALID faults
 * PDE unless its PCF's sparse bit (0x8) is set: then its range is sparse.
 */
static void test_invalid_and_sparse(void)
{
	struct fx *f = fx_new(1);
	struct ga10x_xlate x;
	uint64_t pdb = fx_pdb(f);
	const uint64_t entries[4] = {
		PDE4_E(VA_T), PDE3_E(VA_T), PDE2_E(VA_T), PDE1_E(VA_T),
	};
	const uint64_t *valid[4] = {
		pde4_to_pde3, pde3_to_pde2, pde2_to_pde1, pde1_to_pde0,
	};
	unsigned int i;

	for (i = 0; i < 4; i++) {
		fx_chain(f);
		fx_pde0(f, VA_T, 0, pde0_small[1]);
		wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
		ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
		CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);

		/* missing (0), and invalid with the ATS bit (0x10) */
		wr64(f, entries[i], 0);
		ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
		CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
		CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
		wr64(f, entries[i], 0x10);
		CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
		CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
		/* sparse, ATS allowed (0x8) or not (0x18): reads 0, no fault */
		wr64(f, entries[i], 0x8);
		CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), 0);
		CU_ASSERT_EQUAL(x.sparse, 1);
		CU_ASSERT_EQUAL(x.page_shift, 29);
		wr64(f, entries[i], 0x18);
		ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
		CU_ASSERT_EQUAL(xl(f, VA_T + (1ull << 12), EMGPU_ACCESS_READ, &x), 0);
		CU_ASSERT_EQUAL(x.sparse, 1);
		wr64(f, entries[i], valid[i][1]);
		ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	}

	/* PDE0: all zero (an unmapped 2M, nvidia-uvm's 0): PDE fault */
	fx_pde0(f, VA_T, 0, 0);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);
	/* nvidia-uvm's sparse 2M PTE (0x8 in the low word): a sparse 2M */
	fx_pde0(f, VA_T, GH100_PTE_SPARSE, 0);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);
	CU_ASSERT_EQUAL(x.page_shift, 21);
	/* the small half sparse, no big table: each 4K page sparse */
	fx_pde0(f, VA_T, 0, 0x8);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);
	CU_ASSERT_EQUAL(x.page_shift, 12);
	/* ... and under a big table whose PTE is INVALID */
	fx_pde0(f, VA_T, pde0_big[1], 0x8);
	wr64(f, PT64K_E(VA_T), 0);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);
	/* a big table, INVALID big PTE, no 4K table: PDE fault */
	fx_pde0(f, VA_T, pde0_big[1], 0);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PDE);

	/* 4K PTE: SPARSE -> sparse; MAPPING_NOWHERE, NO_VALID_4KB -> PTE fault */
	fx_pde0(f, VA_T, 0, pde0_small[1]);
	wr64(f, PT4K_E(VA_T), GH100_PTE_SPARSE);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);
	CU_ASSERT_EQUAL(x.page_shift, 12);
	wr64(f, PT4K_E(VA_T), (uint64_t)GH100_PTE_PCF_MAPPING_NOWHERE << 3);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PTE);
	wr64(f, PT4K_E(VA_T), GH100_PTE_UNMAPPED_BIG);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PTE);

	/* nvidia-uvm's sparse 512M PTE (0x8 in PDE1): sparse */
	wr64(f, PDE1_E(VA_T), GH100_PTE_SPARSE);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.sparse, 1);
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

/* PCF's permission bits, and the faults nvidia-uvm expects of them. */
static void test_permissions(void)
{
	struct fx *f = fx_new(0);
	struct ga10x_xlate x;
	uint64_t pdb = fx_pdb(f);
	/* nvidia-uvm's poisoned PTE: vid 0x2bad000000, PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD */
	const uint64_t poisoned = 0x2bad0006f9ull;

	fx_chain(f);
	fx_pde0(f, VA_T, 0, pde0_small[0]);

	/* read-only: writes and atomics fault RO, reads do not */
	wr64(f, PT4K_E(VA_T), gh100_pte(GH100_PTE_APERTURE_SYS_COH, PA_4K,
					GH100_PTE_PCF_READ_ONLY, 6, 0));
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.read_only, 1);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_RO);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_ATOMIC, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_RO);

	/* no atomics: atomics fault ATOMIC, writes do not */
	wr64(f, PT4K_E(VA_T), gh100_pte(GH100_PTE_APERTURE_SYS_COH, PA_4K,
					GH100_PTE_PCF_NO_ATOMIC, 6, 0));
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_WRITE, &x), 0);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_ATOMIC, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_ATOMIC);

	/* privileged: faults PRIV unless the engine is privileged */
	wr64(f, PT4K_E(VA_T), gh100_pte(GH100_PTE_APERTURE_SYS_COH, PA_4K,
					GH100_PTE_PCF_PRIVILEGE, 6, 0));
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PRIV);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ | GA10X_ACCESS_PRIVILEGED,
			   &x), 0);

	/* the poisoned PTE faults an SM's access as PRIV */
	wr64(f, PT4K_E(VA_T), poisoned);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), GA10X_XLATE_FAULT);
	CU_ASSERT_EQUAL(x.fault_type, GA10X_MMU_FAULT_PRIV);
	CU_ASSERT_EQUAL(x.acd, 1);
	CU_ASSERT_EQUAL(x.vol, 1);
	CU_ASSERT_EQUAL(x.pa, 0x2bad000000ull + 0x123);

	/* ACD and uncached are reported, cached and ACE are not */
	wr64(f, PT4K_E(VA_T), 0x999999999968dull & ~0xfff0000000000ull);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_ATOMIC, &x), 0);
	CU_ASSERT_EQUAL(x.acd, 1);
	CU_ASSERT_EQUAL(x.vol, 1);
	CU_ASSERT_EQUAL(x.pa, 0x9999999000ull + 0x123);
	wr64(f, PT4K_E(VA_T), 0x9999999605ull);
	ga10x_tlb_invalidate(f->g, 0, pdb, 0, ~0ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_ATOMIC, &x), 0);
	CU_ASSERT_EQUAL(x.acd, 0);
	CU_ASSERT_EQUAL(x.vol, 0);
	CU_ASSERT_EQUAL(f->errors, 0);
	fx_free(f);
}

/* Malformed entries latch EMGPU_ERR_BAD_PTE (the page in ERROR_INFO). */
static void test_malformed(void)
{
	struct fx *f = fx_new(1);
	struct ga10x_xlate x;
	uint64_t pdb = fx_pdb(f);

	fx_chain(f);
	fx_pde0(f, VA_T, 0, pde0_small[1]);
	/* a PTE at PDE3 */
	wr64(f, PDE3_E(VA_T), PTE_512M_VID);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), -EMGPU_ERR_BAD_PTE);
	CU_ASSERT_EQUAL(f->last_error, EMGPU_ERR_BAD_PTE);
	CU_ASSERT_EQUAL(f->last_info, (uint32_t)(VA_T >> 12));
	fx_chain(f);
	/* a peer aperture */
	wr64(f, PT4K_E(VA_T), 0x200000bbbbbbb663ull);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), -EMGPU_ERR_BAD_PTE);
	/* a 2M page not 2M-aligned: the bits below 2M are ignored */
	fx_pde0(f, VA_T, PTE_2M_VID_RO + 0x1000, 0);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_2M + (VA_T & 0x1fffff));
	ga10x_tlb_invalidate(f->g, 0, fx_pdb(f), 0, ~0ull);
	/* a misaligned page directory base */
	CU_ASSERT_EQUAL(ga10x_translate(f->g, pdb + 0x800, VA_T,
					EMGPU_ACCESS_READ, &x),
			-EMGPU_ERR_BAD_VALUE);
	CU_ASSERT_EQUAL(f->errors, 3);
	fx_free(f);
}

/* The personality itself: its name, description and state across reset. */
static void test_personality(void)
{
	enum gm_personality p;
	const struct gm_personality_desc *d;
	struct fx *f = fx_new(1);
	struct ga10x_xlate x;

	CU_ASSERT_EQUAL(gm_personality_lookup("gh100", &p), 0);
	CU_ASSERT_EQUAL(p, GM_PERSONALITY_GH100);
	CU_ASSERT_STRING_EQUAL(gm_personality_name(GM_PERSONALITY_GH100), "gh100");
	d = gm_personality_desc(GM_PERSONALITY_GH100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->pci_device_id, GH100_PCI_DEVICE_ID);
	CU_ASSERT_EQUAL(d->regs_size, GA10X_REGS_SIZE);
	CU_ASSERT_EQUAL(d->msix_vectors, GA10X_MSIX_VECTORS);
	CU_ASSERT_EQUAL(d->vram_bar, GA10X_BAR_VRAM);
	CU_ASSERT_EQUAL(d->polls, 1);
	CU_ASSERT_EQUAL(gm_regs_size(f->g), GA10X_REGS_SIZE);
	CU_ASSERT_EQUAL(ga10x_state(f->g)->arch->mmu_eng_graphics,
			GH100_MMU_ENG_ID_GRAPHICS);

	/* a reset keeps the architecture: still a VER3 walk after it */
	fx_chain(f);
	fx_pde0(f, VA_T, 0, pde0_small[1]);
	wr64(f, PT4K_E(VA_T), PTE_4K_SYS);
	gm_reset(f->g);
	CU_ASSERT_EQUAL(xl(f, VA_T, EMGPU_ACCESS_READ, &x), 0);
	CU_ASSERT_EQUAL(x.pa, PA_4K + 0x123);
	fx_free(f);
}

void add_gh100_mmu_suite(void)
{
	CU_pSuite s = CU_add_suite("gh100_mmu", NULL, NULL);

	CU_add_test(s, "encode", test_encode);
	CU_add_test(s, "walk_sizes_vram", test_walk_sizes_vram);
	CU_add_test(s, "walk_sizes_sys", test_walk_sizes_sys);
	CU_add_test(s, "upper_half", test_upper_half);
	CU_add_test(s, "big_states_vram", test_big_states_vram);
	CU_add_test(s, "big_states_sys", test_big_states_sys);
	CU_add_test(s, "invalid_and_sparse", test_invalid_and_sparse);
	CU_add_test(s, "permissions", test_permissions);
	CU_add_test(s, "malformed", test_malformed);
	CU_add_test(s, "personality", test_personality);
}
