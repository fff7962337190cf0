/* SPDX-License-Identifier: MIT */
/*
 * Test harness for libgpumodel: a model over a plain sysmem buffer, with
 * helpers that build page tables, rings and descriptors the way a driver
 * would. Sysmem bus addresses are offsets into th->sys.
 */
#ifndef GM_TEST_HARNESS_H
#define GM_TEST_HARNESS_H

#include <stdint.h>

#include "gpumodel/gpumodel.h"
#include "gpumodel/testlib.h"

#define TH_SYS_SIZE	(64ull << 20)
/* fixed sysmem layout */
#define TH_FAULT_BUF	0x1000ull	/* 64 entries */
#define TH_AC_BUF	0x2000ull	/* 64 entries */
#define TH_CE_RING	0x3000ull	/* 64 descriptors */
#define TH_SEM		0x4000ull
#define TH_LAUNCH	0x5000ull
#define TH_TABLES	0x100000ull	/* page-table pool, 4 MiB */
#define TH_DATA		0x800000ull	/* free for data */

struct th {
	struct gm_gpu *g;
	uint8_t *sys;			/* == flat.mem */
	struct gmt_flat flat;		/* flat.fail: make every DMA fail */
	struct gmt_pt pt;		/* in sysmem or at the top of VRAM */
	unsigned int irqs[EMGPU_MSIX_VECTORS];
	unsigned int errors;		/* error callbacks */
	uint32_t last_error, last_error_info;	/* the latest one's arguments */
};

/* profile: a name for gm_profile_lookup; seed; tables in vram or sysmem */
struct th *th_new(const char *profile, uint64_t seed, int tables_in_vram);
struct th *th_new_profile(const struct gm_profile *p, uint64_t seed,
			  int tables_in_vram);
/* any configuration (lockstep and the rest as given) */
struct th *th_new_config(const struct gm_config *cfg, int tables_in_vram);
void th_free(struct th *t);

/* maps va -> (ap, pa) with a page of 1 << shift (12, 16 or 21) */
void th_map(struct th *t, uint64_t va, unsigned int ap, uint64_t pa,
	    unsigned int shift, uint64_t extra_flags);
void th_unmap(struct th *t, uint64_t va, unsigned int shift);
/* writes a raw entry at the PT/PD1 slot for va */
void th_set_raw(struct th *t, uint64_t va, unsigned int shift, uint64_t e);

void th_enable_faults(struct th *t, uint32_t entries);
void th_enable_counters(struct th *t, uint32_t entries, uint32_t threshold,
			uint32_t gran);
void th_ce_setup(struct th *t);
void th_ce_push(struct th *t, uint32_t op, uint32_t flags, uint64_t src,
		uint64_t dst, uint32_t len, uint32_t payload);
int th_launch(struct th *t, uint32_t kernel, uint32_t warps, uint64_t seed,
	      const uint64_t *args, int nargs);

/* reads fault entry i of the ring */
void th_fault_entry(struct th *t, uint32_t i, struct emgpu_fault_entry *e);
void th_notify_entry(struct th *t, uint32_t i, struct emgpu_notify_entry *e);

/*
 * Runs the launch to completion as a simple driver: every fault entry is
 * serviced by mapping its 4K page to sysmem data at the same offset
 * (identity va -> TH_DATA + va - base) through map_cb, replay, SYNC.
 * Returns the final launch status.
 */
typedef void (*th_fault_fn)(struct th *t, uint64_t va, void *ctx);
uint32_t th_run_to_end(struct th *t, th_fault_fn fn, void *ctx,
		       unsigned int *batches);

uint64_t th_u64(const struct th *t, uint64_t addr);
uint32_t th_u32(const struct th *t, uint64_t addr);

#endif
