/* SPDX-License-Identifier: MIT */
/*
 * gm_personality_desc(): what the embedder presents of each personality
 * (PCI id, BAR0's size and names, the VRAM BAR, the vectors, the poll),
 * so the QEMU device needs no branch on which one it is.
 */
#include <string.h>

#include "tests.h"
#include "ga10x/regs.h"

static void test_desc_emgpu(void)
{
	const struct gm_personality_desc *d =
		gm_personality_desc(GM_PERSONALITY_EMGPU);

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->regs_size, EMGPU_REGS_SIZE);
	CU_ASSERT_EQUAL(d->pci_device_id, EMGPU_PCI_DEVICE_ID);
	CU_ASSERT_EQUAL(d->msix_vectors, EMGPU_MSIX_VECTORS);
	CU_ASSERT_EQUAL(d->vram_bar, 0);
	CU_ASSERT_EQUAL(d->polls, 0);
	CU_ASSERT_PTR_NULL(d->reg_name);
}

static void test_desc_ga10x(void)
{
	const struct gm_personality_desc *d =
		gm_personality_desc(GM_PERSONALITY_GA10X);
	char buf[32];

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->regs_size, GA10X_REGS_SIZE);
	CU_ASSERT_EQUAL(d->pci_device_id, GA10X_PCI_DEVICE_ID);
	CU_ASSERT_EQUAL(d->msix_vectors, GA10X_MSIX_VECTORS);
	CU_ASSERT_EQUAL(d->vram_bar, GA10X_BAR_VRAM);
	CU_ASSERT_EQUAL(d->vram_bar_max, GA10X_BAR2_SIZE_MAX);
	CU_ASSERT_EQUAL(d->polls, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->reg_name);
	/* emgpu_hw.h's registers are not the block's */
	CU_ASSERT_PTR_NULL(d->reg_name(EMGPU_REG_ID, buf, sizeof(buf)));
	CU_ASSERT_PTR_NULL(d->reg_name(GA10X_REG_BASE - 4, buf, sizeof(buf)));
	CU_ASSERT_PTR_NULL(d->reg_name(GA10X_REGS_SIZE, buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(d->reg_name(GA10X_REG_DOORBELL, buf,
					   sizeof(buf)), "DOORBELL");
	CU_ASSERT_STRING_EQUAL(d->reg_name(GA10X_REG_MMU_INVALIDATE, buf,
					   sizeof(buf)), "MMU_INVALIDATE");
	CU_ASSERT_STRING_EQUAL(d->reg_name(GA10X_REG_CHAN(5,
					   GA10X_REG_CHAN_GPFIFO_HI), buf,
					   sizeof(buf)), "CHAN5_GPFIFO_HI");
	/* a channel block's unused word, and an offset nothing names */
	CU_ASSERT_STRING_EQUAL(d->reg_name(GA10X_REG_CHAN(63, 0x3c), buf,
					   sizeof(buf)), "CHAN63_?");
	CU_ASSERT_STRING_EQUAL(d->reg_name(0xf000, buf, sizeof(buf)), "?");
}

/* every listed personality has a description, its table's BAR0 size */
static void test_desc_every(void)
{
	const struct gm_personality_desc *d;
	struct gm_config cfg = { .seed = 1 };
	struct gm_gpu *g;
	unsigned int i;

	CU_ASSERT_FATAL(gm_profile_lookup("h200-256m", &cfg.profile) == 0);
	for (i = 0; gm_personality_name(i); i++) {
		d = gm_personality_desc(i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT(d->msix_vectors >= EMGPU_MSIX_VECTORS);
		CU_ASSERT(d->vram_bar != EMGPU_BAR_REGS || !d->vram_bar);
		CU_ASSERT(d->vram_bar != EMGPU_BAR_MSIX);
		cfg.personality = i;
		g = gm_create(&cfg, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		CU_ASSERT_EQUAL(gm_regs_size(g), d->regs_size);
		gm_destroy(g);
	}
	CU_ASSERT(i >= 2);
	CU_ASSERT_PTR_NULL(gm_personality_desc(i));
}

/*
 * Each profile names its card's NVIDIA personality, the one a matrix's
 * nvidia-uvm runs get by default: one that emgpu-rm.ko binds (never
 * emgpu's own, which only ember.ko drives), the Hopper GH100 for the
 * H200s, Ampere's GA10x for the A40; a scaled profile keeps its card's.
 */
static void test_profile_nvidia_personality(void)
{
	static const struct {
		const char *profile;
		enum gm_personality personality;
	} cards[] = {
		{ "a40", GM_PERSONALITY_GA10X },
		{ "a40-512m", GM_PERSONALITY_GA10X },
		{ "h200", GM_PERSONALITY_GH100 },
		{ "h200-512m", GM_PERSONALITY_GH100 },
		{ "h200-64m-norule", GM_PERSONALITY_GH100 },
		{ "h200x16-2g", GM_PERSONALITY_GH100 },
		{ "gh200-512m", GM_PERSONALITY_GH100 },
	};
	const struct gm_profile *p;
	struct gm_profile s;
	enum gm_personality found;
	size_t i;

	for (i = 0; (p = gm_profile_at(i)); i++) {
		CU_ASSERT_PTR_NOT_NULL(gm_personality_name(p->nvidia_personality));
		CU_ASSERT_NOT_EQUAL(p->nvidia_personality, GM_PERSONALITY_EMGPU);
	}
	for (i = 0; i < sizeof(cards) / sizeof(cards[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(gm_profile_lookup(cards[i].profile, &s), 0);
		CU_ASSERT_EQUAL(s.nvidia_personality, cards[i].personality);
	}
	/* the names round-trip, an unknown one is refused */
	CU_ASSERT_EQUAL(gm_personality_lookup("gh100", &found), 0);
	CU_ASSERT_EQUAL(found, GM_PERSONALITY_GH100);
	CU_ASSERT_EQUAL(gm_personality_lookup("gh10", &found), -1);
	CU_ASSERT_PTR_NULL(gm_personality_name(GM_PERSONALITY_COUNT));
}

void add_personality_suite(void)
{
	CU_pSuite s = CU_add_suite("personality", NULL, NULL);

	CU_add_test(s, "emgpu's description", test_desc_emgpu);
	CU_add_test(s, "GA10x's description and register names", test_desc_ga10x);
	CU_add_test(s, "every personality described, BAR0 as created",
		    test_desc_every);
	CU_add_test(s, "every profile names its card's NVIDIA personality",
		    test_profile_nvidia_personality);
}
