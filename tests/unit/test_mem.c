/* SPDX-License-Identifier: MIT */
/* VRAM's lazy backing under the embedder's cap (gm_config's vram_backing_max). */
#include <stdlib.h>

#include "tests.h"

#define CHUNK (2ull << 20)

struct mem_fx {
	struct gm_gpu *g;
	enum emgpu_error last_error;
	uint32_t last_info;
	unsigned int errors;
};

static void mem_error(void *o, enum emgpu_error code, uint32_t info)
{
	struct mem_fx *f = o;

	f->errors++;
	f->last_error = code;
	f->last_info = info;
}

static void mem_fx_init(struct mem_fx *f, uint64_t backing_max)
{
	struct gm_config cfg = { .personality = GM_PERSONALITY_EMGPU, .seed = 1,
				 .vram_backing_max = backing_max };
	struct gm_callbacks cb = { .error = mem_error, .opaque = f };

	*f = (struct mem_fx){ 0 };
	CU_ASSERT_FATAL(gm_profile_lookup("h200-256m", &cfg.profile) == 0);
	f->g = gm_create(&cfg, &cb);
	CU_ASSERT_FATAL(f->g != NULL);
}

/* Two chunks of backing: the third untouched chunk's write is refused whole. */
static void test_backing_cap(void)
{
	struct mem_fx f;
	uint8_t buf[256], out[256];
	size_t i;

	mem_fx_init(&f, 2 * CHUNK);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i + 1);
	CU_ASSERT_EQUAL(gm_vram_write(f.g, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(gm_vram_write(f.g, 9 * CHUNK, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(gm_vram_write(f.g, 5 * CHUNK, buf, sizeof(buf)),
			-EMGPU_ERR_VRAM_BACKING);
	/* backed chunks still take writes; untouched ones still read as 0 */
	CU_ASSERT_EQUAL(gm_vram_write(f.g, CHUNK - 128, buf, 128), 0);
	CU_ASSERT_EQUAL(gm_vram_read(f.g, 5 * CHUNK, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(out[0], 0);
	CU_ASSERT_EQUAL(out[255], 0);
	/* a write across a backed chunk's end into an unbacked one: refused
	 * before any byte moves */
	CU_ASSERT_EQUAL(gm_vram_write(f.g, CHUNK - 128, buf + 128, 256),
			-EMGPU_ERR_VRAM_BACKING);
	CU_ASSERT_EQUAL(gm_vram_read(f.g, CHUNK - 128, out, 128), 0);
	CU_ASSERT_EQUAL(memcmp(out, buf, 128), 0);
	/* a reset keeps VRAM and its backing */
	gm_reset(f.g);
	CU_ASSERT_EQUAL(gm_vram_write(f.g, 5 * CHUNK, buf, sizeof(buf)),
			-EMGPU_ERR_VRAM_BACKING);
	CU_ASSERT_EQUAL(gm_vram_read(f.g, 9 * CHUNK, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(memcmp(out, buf, sizeof(out)), 0);
	gm_destroy(f.g);

	/* 0: no cap */
	mem_fx_init(&f, 0);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(gm_vram_write(f.g, i * CHUNK, buf, 1), 0);
	gm_destroy(f.g);
}

/* A copy-engine copy into unbacked VRAM past the cap: the copy's error,
 * latched with its own code, nothing written. */
static void test_backing_cap_ce(void)
{
	struct gm_config cfg = { .seed = 1, .lockstep = 1,
				 .vram_backing_max = CHUNK };
	struct th *t;
	uint8_t out[64];

	CU_ASSERT_FATAL(gm_profile_lookup("h200-256m", &cfg.profile) == 0);
	t = th_new_config(&cfg, 0);

	CU_ASSERT_EQUAL(gm_vram_write(t->g, 0, "x", 1), 0);
	memset(t->sys + TH_DATA, 0x5a, 4096);
	th_ce_setup(t);
	th_ce_push(t, EMGPU_CE_OP_COPY,
		   gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
		   TH_DATA, 4 * CHUNK, 4096, 0);
	CU_ASSERT_EQUAL(gm_error_status(t->g), EMGPU_ERR_VRAM_BACKING);
	CU_ASSERT_EQUAL(t->last_error, EMGPU_ERR_VRAM_BACKING);
	CU_ASSERT_EQUAL(gm_vram_read(t->g, 4 * CHUNK, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(out[0], 0);
	th_free(t);
}

void add_mem_suite(void)
{
	CU_pSuite s = CU_add_suite("memory", NULL, NULL);

	CU_add_test(s, "VRAM backing cap", test_backing_cap);
	CU_add_test(s, "VRAM backing cap: copy engine", test_backing_cap_ce);
}
