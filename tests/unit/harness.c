/* SPDX-License-Identifier: MIT */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static int dma_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
	struct th *t = opaque;

	return gmt_flat_dma_read(&t->flat, addr, buf, len);
}

static int dma_write(void *opaque, uint64_t addr, const void *buf,
		     uint64_t len)
{
	struct th *t = opaque;

	return gmt_flat_dma_write(&t->flat, addr, buf, len);
}

static void irq(void *opaque, unsigned int vector)
{
	struct th *t = opaque;

	if (vector < EMGPU_MSIX_VECTORS)
		t->irqs[vector]++;
}

static void error_cb(void *opaque, enum emgpu_error code, uint32_t info)
{
	struct th *t = opaque;

	t->errors++;
	t->last_error = code;
	t->last_error_info = info;
}

/* The page tables' memory: sysmem, or VRAM through the model. */
static void vram_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
	struct th *t = opaque;

	if (gm_vram_read(t->g, addr, buf, len))
		abort();
}

static void vram_write(void *opaque, uint64_t addr, const void *buf,
		       uint64_t len)
{
	struct th *t = opaque;

	if (gm_vram_write(t->g, addr, buf, len))
		abort();
}

static void sys_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
	struct th *t = opaque;

	memcpy(buf, t->sys + addr, len);
}

static void sys_write(void *opaque, uint64_t addr, const void *buf,
		      uint64_t len)
{
	struct th *t = opaque;

	memcpy(t->sys + addr, buf, len);
}

struct th *th_new_config(const struct gm_config *config, int tables_in_vram)
{
	struct th *t = calloc(1, sizeof(*t));
	struct gm_callbacks cb = { .dma_read = dma_read, .dma_write = dma_write,
				   .irq = irq, .error = error_cb };
	struct gm_config cfg = *config;
	const struct gm_profile *p = &config->profile;

	t->sys = calloc(1, TH_SYS_SIZE);
	t->flat = (struct gmt_flat){ .mem = t->sys, .size = TH_SYS_SIZE };
	cb.opaque = t;
	t->g = gm_create(&cfg, &cb);
	if (!t->g)
		abort();
	/* tables at the top 4 MiB of VRAM, or the sysmem pool */
	t->pt = (struct gmt_pt){
		.opaque = t,
		.read = tables_in_vram ? vram_read : sys_read,
		.write = tables_in_vram ? vram_write : sys_write,
		.aperture = tables_in_vram ? EMGPU_APERTURE_VIDMEM
					   : EMGPU_APERTURE_SYSMEM,
	};
	gmt_pt_init(&t->pt, tables_in_vram ? p->vram_bytes - (4ull << 20) :
		    TH_TABLES, 4ull << 20);
	gm_set_pdb(t->g, gmt_pt_pdb(&t->pt));
	gm_reg_write(t->g, EMGPU_REG_INTR_ENABLE, EMGPU_INTR_ALL);
	return t;
}

struct th *th_new_profile(const struct gm_profile *p, uint64_t seed,
			  int tables_in_vram)
{
	struct gm_config cfg = { .profile = *p, .seed = seed, .lockstep = 1 };

	return th_new_config(&cfg, tables_in_vram);
}

struct th *th_new(const char *profile, uint64_t seed, int tables_in_vram)
{
	struct gm_profile p;

	if (gm_profile_lookup(profile, &p))
		abort();
	return th_new_profile(&p, seed, tables_in_vram);
}

void th_free(struct th *t)
{
	gm_destroy(t->g);
	free(t->sys);
	free(t);
}

void th_set_raw(struct th *t, uint64_t va, unsigned int shift, uint64_t e)
{
	gmt_pt_set(&t->pt, va, shift, e);
}

void th_map(struct th *t, uint64_t va, unsigned int ap, uint64_t pa,
	    unsigned int shift, uint64_t extra)
{
	gmt_pt_map(&t->pt, va, ap, pa, shift, extra);
}

void th_unmap(struct th *t, uint64_t va, unsigned int shift)
{
	th_set_raw(t, va, shift, 0);
}

void th_enable_faults(struct th *t, uint32_t entries)
{
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_HI, 0);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_LO, TH_FAULT_BUF);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_SIZE, entries);
	gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
}

void th_enable_counters(struct th *t, uint32_t entries, uint32_t threshold,
			uint32_t gran)
{
	gm_reg_write(t->g, EMGPU_REG_AC_BUF_HI, 0);
	gm_reg_write(t->g, EMGPU_REG_AC_BUF_LO, TH_AC_BUF);
	gm_reg_write(t->g, EMGPU_REG_AC_BUF_SIZE, entries);
	gm_reg_write(t->g, EMGPU_REG_AC_CONFIG,
		     threshold | gran << EMGPU_AC_CONFIG_GRAN_SHIFT);
	gm_reg_write(t->g, EMGPU_REG_AC_CTRL, EMGPU_RING_ENABLE);
}

void th_ce_setup(struct th *t)
{
	gm_reg_write(t->g, EMGPU_REG_CE_RING_HI, 0);
	gm_reg_write(t->g, EMGPU_REG_CE_RING_LO, TH_CE_RING);
	gm_reg_write(t->g, EMGPU_REG_CE_RING_SIZE, 64);
	gm_reg_write(t->g, EMGPU_REG_CE_SEM_HI, 0);
	gm_reg_write(t->g, EMGPU_REG_CE_SEM_LO, TH_SEM);
}

void th_ce_push(struct th *t, uint32_t op, uint32_t flags, uint64_t src,
		uint64_t dst, uint32_t len, uint32_t payload)
{
	uint32_t put = gm_reg_read(t->g, EMGPU_REG_CE_RING_PUT);
	struct emgpu_ce_desc d = gmt_ce_desc(op, flags, src, dst, len, payload);

	memcpy(t->sys + TH_CE_RING + 32 * put, &d, sizeof(d));
	gm_reg_write(t->g, EMGPU_REG_CE_RING_PUT, (put + 1) % 64);
	gm_reg_write(t->g, EMGPU_REG_CE_DOORBELL, 1);
}

int th_launch(struct th *t, uint32_t kernel, uint32_t warps, uint64_t seed,
	      const uint64_t *args, int nargs)
{
	struct emgpu_launch_desc d = gmt_launch_desc(kernel, warps, seed, args,
						     (unsigned int)nargs);

	memcpy(t->sys + TH_LAUNCH, &d, sizeof(d));
	gm_reg_write(t->g, EMGPU_REG_LAUNCH_DESC_HI, 0);
	gm_reg_write(t->g, EMGPU_REG_LAUNCH_DESC_LO, TH_LAUNCH);
	gm_reg_write(t->g, EMGPU_REG_LAUNCH_DOORBELL, 1);
	return (int)gm_reg_read(t->g, EMGPU_REG_LAUNCH_STATUS);
}

void th_fault_entry(struct th *t, uint32_t i, struct emgpu_fault_entry *e)
{
	memcpy(e, t->sys + TH_FAULT_BUF + 32 * i, sizeof(*e));
}

void th_notify_entry(struct th *t, uint32_t i, struct emgpu_notify_entry *e)
{
	memcpy(e, t->sys + TH_AC_BUF + 32 * i, sizeof(*e));
}

uint32_t th_run_to_end(struct th *t, th_fault_fn fn, void *ctx,
		       unsigned int *batches)
{
	struct emgpu_fault_entry e;
	enum gm_stop s;
	unsigned int n = 0, guard = 0;

	for (;;) {
		s = gm_run(t->g, 0);
		if (s == GM_STOP_LAUNCH_DONE || s == GM_STOP_IDLE || s == GM_STOP_HANG)
			break;
		if (++guard > 1000000)
			abort();
		if (s == GM_STOP_FAULT || s == GM_STOP_STALLED) {
			uint32_t get = gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_GET);
			uint32_t put = gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_PUT);
			uint32_t size = gm_reg_read(t->g, EMGPU_REG_FAULT_BUF_SIZE);

			n++;
			while (get != put) {
				th_fault_entry(t, get, &e);
				if (fn)
					fn(t, emgpu_le64_to_cpu(e.addr), ctx);
				memset(t->sys + TH_FAULT_BUF + 32 * get, 0, 32);
				get = (get + 1) % size;
			}
			gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_GET, get);
			gm_reg_write(t->g, EMGPU_REG_FAULT_BUF_STATUS, EMGPU_RING_OVERFLOW);
			gm_reg_write(t->g, EMGPU_REG_TLB_INV, EMGPU_TLB_INV_ALL);
			gm_reg_write(t->g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
		}
		if (s == GM_STOP_NOTIFY) {
			/* consume notifications: clear all, move GET to PUT */
			gm_reg_write(t->g, EMGPU_REG_AC_BUF_GET,
				     gm_reg_read(t->g, EMGPU_REG_AC_BUF_PUT));
		}
		gm_reg_write(t->g, EMGPU_REG_SYNC, 1);
	}
	if (batches)
		*batches = n;
	return gm_reg_read(t->g, EMGPU_REG_LAUNCH_STATUS);
}

uint64_t th_u64(const struct th *t, uint64_t addr)
{
	uint64_t v;

	memcpy(&v, t->sys + addr, 8);
	return v;
}

uint32_t th_u32(const struct th *t, uint64_t addr)
{
	uint32_t v;

	memcpy(&v, t->sys + addr, 4);
	return v;
}
