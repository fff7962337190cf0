/* SPDX-License-Identifier: MIT */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static int dma_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
	struct th *t = opaque;

	if (t->dma_fail || addr >= TH_SYS_SIZE || len > TH_SYS_SIZE - addr)
		return -1;
	memcpy(buf, t->sys + addr, len);
	return 0;
}

static int dma_write(void *opaque, uint64_t addr, const void *buf,
		     uint64_t len)
{
	struct th *t = opaque;

	if (t->dma_fail || addr >= TH_SYS_SIZE || len > TH_SYS_SIZE - addr)
		return -1;
	memcpy(t->sys + addr, buf, len);
	return 0;
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

static uint64_t table_alloc(struct th *t)
{
	uint64_t a = t->next_table;
	uint8_t zero[4096] = { 0 };

	t->next_table += 4096;
	if (t->tables_in_vram)
		gm_vram_write(t->g, a, zero, sizeof(zero));
	else
		memset(t->sys + a, 0, 4096);
	return a;
}

static uint64_t rd(struct th *t, uint64_t a)
{
	uint64_t v = 0;

	if (t->tables_in_vram)
		gm_vram_read(t->g, a, &v, 8);
	else
		memcpy(&v, t->sys + a, 8);
	return v;
}

static void wr(struct th *t, uint64_t a, uint64_t v)
{
	if (t->tables_in_vram)
		gm_vram_write(t->g, a, &v, 8);
	else
		memcpy(t->sys + a, &v, 8);
}

struct th *th_new_profile(const struct gm_profile *p, uint64_t seed,
			  int tables_in_vram)
{
	struct th *t = calloc(1, sizeof(*t));
	struct gm_callbacks cb = { .dma_read = dma_read, .dma_write = dma_write,
				   .irq = irq, .error = error_cb };
	struct gm_config cfg = { .profile = *p, .seed = seed, .lockstep = 1 };

	t->sys = calloc(1, TH_SYS_SIZE);
	cb.opaque = t;
	t->g = gm_create(&cfg, &cb);
	if (!t->g)
		abort();
	t->tables_in_vram = tables_in_vram;
	t->root_ap = tables_in_vram ? EMGPU_APERTURE_VIDMEM : EMGPU_APERTURE_SYSMEM;
	/* tables at the top 4 MiB of VRAM, or the sysmem pool */
	t->next_table = tables_in_vram ? p->vram_bytes - (4ull << 20) : TH_TABLES;
	t->root = table_alloc(t);
	gm_set_pdb(t->g, t->root | EMGPU_PTE_VALID |
		   (uint64_t)t->root_ap << EMGPU_PTE_APERTURE_SHIFT);
	gm_reg_write(t->g, EMGPU_REG_INTR_ENABLE, EMGPU_INTR_ALL);
	return t;
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

static uint64_t pde_of(struct th *t, uint64_t table)
{
	return table | EMGPU_PTE_VALID |
	       (uint64_t)t->root_ap << EMGPU_PTE_APERTURE_SHIFT;
}

/* Returns the address of the entry for va at PD1 (shift 21) or PT. */
static uint64_t slot(struct th *t, uint64_t va, unsigned int shift)
{
	uint64_t table = t->root, e, a;
	int level;

	for (level = 0; level < 3; level++) {
		a = table + 8 * ((va >> (39 - 9 * level)) & 511);
		if (level == 2 && shift == 21)
			return a;
		e = rd(t, a);
		if (!(e & EMGPU_PTE_VALID)) {
			e = pde_of(t, table_alloc(t));
			wr(t, a, e);
		}
		table = e & EMGPU_PTE_ADDR_MASK;
	}
	return table + 8 * ((va >> 12) & 511);
}

void th_set_raw(struct th *t, uint64_t va, unsigned int shift, uint64_t e)
{
	wr(t, slot(t, va, shift), e);
}

void th_map(struct th *t, uint64_t va, unsigned int ap, uint64_t pa,
	    unsigned int shift, uint64_t extra)
{
	uint64_t e = pa | EMGPU_PTE_VALID |
		     (uint64_t)ap << EMGPU_PTE_APERTURE_SHIFT | extra;

	if (shift == 21)
		e |= EMGPU_PDE_IS_PTE;
	if (shift == 16)
		e |= EMGPU_PTE_BIG;
	th_set_raw(t, va, shift, e);
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
	struct emgpu_ce_desc d = {
		.op = emgpu_cpu_to_le32(op), .flags = emgpu_cpu_to_le32(flags),
		.src = emgpu_cpu_to_le64(src), .dst = emgpu_cpu_to_le64(dst),
		.length = emgpu_cpu_to_le32(len),
		.payload = emgpu_cpu_to_le32(payload),
	};

	memcpy(t->sys + TH_CE_RING + 32 * put, &d, sizeof(d));
	gm_reg_write(t->g, EMGPU_REG_CE_RING_PUT, (put + 1) % 64);
	gm_reg_write(t->g, EMGPU_REG_CE_DOORBELL, 1);
}

int th_launch(struct th *t, uint32_t kernel, uint32_t warps, uint64_t seed,
	      const uint64_t *args, int nargs)
{
	struct emgpu_launch_desc d;
	int i;

	memset(&d, 0, sizeof(d));
	d.kernel = emgpu_cpu_to_le32(kernel);
	d.warps = emgpu_cpu_to_le32(warps);
	d.seed = emgpu_cpu_to_le64(seed);
	for (i = 0; i < nargs; i++)
		d.args[i] = emgpu_cpu_to_le64(args[i]);
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
