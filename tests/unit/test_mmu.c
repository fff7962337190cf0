/* SPDX-License-Identifier: MIT */
/* Page-table walk for each page size and aperture; TLB hazards. */
#include "tests.h"

static void walk_case(int tables_in_vram, unsigned int shift, unsigned int ap)
{
	struct th *t = th_new("h200-256m", 1, tables_in_vram);
	uint64_t size = 1ull << shift, va = VA_BASE + 3 * (2ull << 20);
	uint64_t pa = ap == EMGPU_APERTURE_VIDMEM ? 16ull << 20 : TH_DATA;
	uint64_t out;
	unsigned int oap;

	th_map(t, va, ap, pa, shift, 0);
	/* first and last byte of the page, and an offset inside */
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va, EMGPU_ACCESS_READ, &oap, &out), 0);
	CU_ASSERT_EQUAL(oap, ap);
	CU_ASSERT_EQUAL(out, pa);
	CU_ASSERT_EQUAL(gm_translate(t->g, 1, va + size - 1, EMGPU_ACCESS_WRITE, &oap, &out), 0);
	CU_ASSERT_EQUAL(out, pa + size - 1);
	CU_ASSERT_EQUAL(gm_translate(t->g, 2, va + size / 2 + 0x123, EMGPU_ACCESS_READ, &oap, &out), 0);
	CU_ASSERT_EQUAL(out, pa + size / 2 + 0x123);
	/* just past the page: unmapped */
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va + size, EMGPU_ACCESS_READ, &oap, &out),
			shift == 21 ? EMGPU_FAULT_PDE : EMGPU_FAULT_PTE);
	th_free(t);
}

static void test_walk_4k_sys(void) { walk_case(0, 12, EMGPU_APERTURE_SYSMEM); }
static void test_walk_4k_vid(void) { walk_case(0, 12, EMGPU_APERTURE_VIDMEM); }
static void test_walk_64k(void) { walk_case(0, 16, EMGPU_APERTURE_VIDMEM); }
static void test_walk_2m(void) { walk_case(0, 21, EMGPU_APERTURE_VIDMEM); }
static void test_walk_vram_tables_4k(void) { walk_case(1, 12, EMGPU_APERTURE_SYSMEM); }
static void test_walk_vram_tables_2m(void) { walk_case(1, 21, EMGPU_APERTURE_SYSMEM); }

/* PDE fault without a table, PTE fault with one, RO and atomic violations */
static void test_walk_faults(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	unsigned int ap;
	uint64_t pa;

	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_READ, &ap, &pa),
			EMGPU_FAULT_PDE);
	th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0, 12,
	       EMGPU_PTE_READ_ONLY | EMGPU_PTE_ATOMIC_DISABLE);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE + 4096, EMGPU_ACCESS_READ, &ap, &pa),
			EMGPU_FAULT_PTE);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_WRITE, &ap, &pa),
			EMGPU_FAULT_RO_VIOLATION);
	th_free(t);
	t = th_new("h200-256m", 1, 0);
	th_map(t, VA_BASE, EMGPU_APERTURE_VIDMEM, 0, 12, EMGPU_PTE_ATOMIC_DISABLE);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_ATOMIC, &ap, &pa),
			EMGPU_FAULT_ATOMIC_VIOLATION);
	/* non-canonical VA */
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, 1ull << 48, EMGPU_ACCESS_READ, &ap, &pa),
			EMGPU_FAULT_PDE);
	th_free(t);
}

/* A changed PTE is not seen until the range is invalidated. */
static void test_tlb_stale_until_invalidated(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t va = VA_BASE + 0x5000, pa;
	unsigned int ap;

	th_map(t, va, EMGPU_APERTURE_VIDMEM, 0x10000, 12, 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 4, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x10000);
	th_map(t, va, EMGPU_APERTURE_VIDMEM, 0x20000, 12, 0);
	/* stale in this uTLB, and via the shared L2 in another one */
	CU_ASSERT_EQUAL(gm_translate(t->g, 4, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x10000);
	CU_ASSERT_EQUAL(gm_translate(t->g, 7, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x10000);
	/* a range that misses the page leaves it stale */
	gm_tlb_invalidate(t->g, EMGPU_TLB_INV_RANGE, va + 4096, 4096);
	CU_ASSERT_EQUAL(gm_translate(t->g, 4, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x10000);
	/* through the registers, the covering range */
	gm_reg_write(t->g, EMGPU_REG_TLB_INV_VA_HI, (uint32_t)(va >> 32));
	gm_reg_write(t->g, EMGPU_REG_TLB_INV_VA_LO, (uint32_t)va);
	gm_reg_write(t->g, EMGPU_REG_TLB_INV_SIZE_HI, 0);
	gm_reg_write(t->g, EMGPU_REG_TLB_INV_SIZE_LO, 4096);
	gm_reg_write(t->g, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_RANGE);
	CU_ASSERT_EQUAL(gm_reg_read(t->g, EMGPU_REG_TLB_INV_STATUS), 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 4, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x20000);
	/* an unmapped page still translates until invalidated */
	th_unmap(t, va, 12);
	CU_ASSERT_EQUAL(gm_translate(t->g, 4, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	gm_tlb_invalidate(t->g, EMGPU_TLB_INV_ALL, 0, 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 4, va, EMGPU_ACCESS_READ, &ap, &pa),
			EMGPU_FAULT_PTE);
	th_free(t);
}

/*
 * The page-walk cache keeps a 2 MiB region's PT base: a directory entry
 * removed without an invalidate still leads to the old PT (as on
 * hardware), until a range covering the region or a full flush drops it.
 */
static void test_pde_cache_stale_until_invalidated(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t va = VA_BASE + (6ull << 20), pa;
	unsigned int ap;

	th_map(t, va, EMGPU_APERTURE_VIDMEM, 0x10000, 12, 0);
	th_map(t, va + 4096, EMGPU_APERTURE_VIDMEM, 0x30000, 12, 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	th_set_raw(t, va, 21, 0);	/* the PD1 entry goes, no invalidate */
	/* another page of the region misses the TLBs: the cached PT serves it */
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va + 4096, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x30000);
	/* a range in another region keeps it; one touching the region drops it */
	gm_tlb_invalidate(t->g, EMGPU_TLB_INV_RANGE, va + (2ull << 20), 4096);
	CU_ASSERT_EQUAL(gm_translate(t->g, 1, va + 4096, EMGPU_ACCESS_READ, &ap, &pa), 0);
	gm_tlb_invalidate(t->g, EMGPU_TLB_INV_RANGE, va + 8192, 4096);
	CU_ASSERT_EQUAL(gm_translate(t->g, 2, va + 4096, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, 0x30000);	/* the L2 TLB entry was outside the range */
	gm_tlb_invalidate(t->g, EMGPU_TLB_INV_RANGE, va, 4096);
	CU_ASSERT_EQUAL(gm_translate(t->g, 3, va, EMGPU_ACCESS_READ, &ap, &pa),
			EMGPU_FAULT_PDE);
	th_free(t);
}

/*
 * A range inside a 2 MiB region, not touching its first page, drops the
 * region's page-walk cache entry too: it covers the whole region.
 */
static void test_pde_cache_interior_range(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t va = VA_BASE + (6ull << 20), pa;
	unsigned int ap;

	th_map(t, va, EMGPU_APERTURE_VIDMEM, 0x10000, 12, 0);
	th_map(t, va + 0x5000, EMGPU_APERTURE_VIDMEM, 0x30000, 12, 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	th_set_raw(t, va, 21, 0);	/* the PD1 entry goes */
	/* the range holds va + 0x5000 alone, never cached in a TLB */
	gm_tlb_invalidate(t->g, EMGPU_TLB_INV_RANGE, va + 0x5000, 4096);
	CU_ASSERT_EQUAL(gm_translate(t->g, 1, va + 0x5000, EMGPU_ACCESS_READ, &ap, &pa),
			EMGPU_FAULT_PDE);
	/* the same through the end of the region */
	th_free(t);
	t = th_new("h200-256m", 1, 0);
	th_map(t, va, EMGPU_APERTURE_VIDMEM, 0x10000, 12, 0);
	th_map(t, va + 0x1ff000, EMGPU_APERTURE_VIDMEM, 0x30000, 12, 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va, EMGPU_ACCESS_READ, &ap, &pa), 0);
	th_set_raw(t, va, 21, 0);
	gm_tlb_invalidate(t->g, EMGPU_TLB_INV_RANGE, va + 0x1ff000, 4096);
	CU_ASSERT_EQUAL(gm_translate(t->g, 1, va + 0x1ff000, EMGPU_ACCESS_READ, &ap, &pa),
			EMGPU_FAULT_PDE);
	th_free(t);
}

/* A 2 MiB entry is dropped by a range that touches any byte of it. */
static void test_tlb_range_2m(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t va = VA_BASE + (4ull << 20), pa;
	unsigned int ap;

	th_map(t, va, EMGPU_APERTURE_VIDMEM, 2ull << 20, 21, 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va + 0x1000, EMGPU_ACCESS_READ, &ap, &pa), 0);
	th_map(t, va, EMGPU_APERTURE_VIDMEM, 6ull << 20, 21, 0);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va + 0x1000, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, (2ull << 20) + 0x1000);
	gm_tlb_invalidate(t->g, EMGPU_TLB_INV_RANGE, va + 0x1ff000, 4096);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, va + 0x1000, EMGPU_ACCESS_READ, &ap, &pa), 0);
	CU_ASSERT_EQUAL(pa, (6ull << 20) + 0x1000);
	th_free(t);
}

/* Malformed entries: reserved bits, bad aperture, misaligned 2M/64K. */
static void test_walk_bad_pte(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t pa;
	unsigned int ap;

	th_set_raw(t, VA_BASE, 12, EMGPU_PTE_VALID | (1ull << 60));
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_READ, &ap, &pa),
			-EMGPU_ERR_BAD_PTE);
	th_set_raw(t, VA_BASE, 12, EMGPU_PTE_VALID | 1ull << EMGPU_PTE_APERTURE_SHIFT);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE, EMGPU_ACCESS_READ, &ap, &pa),
			-EMGPU_ERR_BAD_PTE);
	th_set_raw(t, VA_BASE + (2ull << 20), 21,
		   EMGPU_PTE_VALID | EMGPU_PDE_IS_PTE | 0x1000);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE + (2ull << 20), EMGPU_ACCESS_READ,
				     &ap, &pa), -EMGPU_ERR_BAD_PTE);
	th_set_raw(t, VA_BASE + 0x1000, 12, EMGPU_PTE_VALID | EMGPU_PTE_BIG);
	CU_ASSERT_EQUAL(gm_translate(t->g, 0, VA_BASE + 0x1000, EMGPU_ACCESS_READ, &ap, &pa),
			-EMGPU_ERR_BAD_PTE);
	th_free(t);
}

void add_mmu_suite(void)
{
	CU_pSuite s = CU_add_suite("mmu", NULL, NULL);

	CU_add_test(s, "walk 4K sysmem page, sysmem tables", test_walk_4k_sys);
	CU_add_test(s, "walk 4K vidmem page, sysmem tables", test_walk_4k_vid);
	CU_add_test(s, "walk 64K page", test_walk_64k);
	CU_add_test(s, "walk 2M page", test_walk_2m);
	CU_add_test(s, "walk 4K, tables in vidmem", test_walk_vram_tables_4k);
	CU_add_test(s, "walk 2M, tables in vidmem", test_walk_vram_tables_2m);
	CU_add_test(s, "walk faults", test_walk_faults);
	CU_add_test(s, "stale TLB entry until invalidated", test_tlb_stale_until_invalidated);
	CU_add_test(s, "range invalidate drops a 2M entry", test_tlb_range_2m);
	CU_add_test(s, "stale page-walk cache until invalidated",
		    test_pde_cache_stale_until_invalidated);
	CU_add_test(s, "range inside a 2M region drops its page-walk cache entry",
		    test_pde_cache_interior_range);
	CU_add_test(s, "malformed PTEs", test_walk_bad_pte);
}
