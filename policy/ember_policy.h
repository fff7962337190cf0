/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ember_policy.h: the policy interface, hardware-neutral.
 *
 * A policy decides placement; a driver core (ember.ko on emgpu, the
 * nvidia-uvm glue on a real card, the CUnit harness in userspace) carries
 * the decisions out. Everything in policy/ is plain C99 plus
 * this header's helpers: no kernel, device or allocator interfaces except
 * ember_policy_zalloc()/ember_policy_free(), which each host provides. The
 * same files are compiled unchanged into every host.
 *
 * The driver calls the ops table at these points (all optional except
 * on_fault_block; time is the device's clock in ns, never wall time):
 *
 *   init / fini         a VA space starts / ends using the policy;
 *   on_launch_begin     a kernel launch of the VA space starts: its kernel id
 *                       and the managed ranges its arguments name; the
 *                       policy may set the access-counter threshold and the
 *                       policy timer's period for the launch;
 *   on_launch_end       the launch completed or failed;
 *   on_fault_block      per VA block with faults in a batch: destination and
 *                       pages to make resident (faulted pages plus prefetch);
 *   on_notification     per access-counter notification: may ask for a span
 *                       of VA to be promoted; the driver then walks the span
 *                       block by block, notified block first, calling
 *                       promote_block for each existing block, and stops
 *                       when promote_block says STOP (the policy's
 *                       watermark);
 *   on_timer_tick       the policy timer fired: the VA space's resident
 *                       root chunks are passed in (aging, bookkeeping);
 *   pick_eager_victims  right after on_timer_tick, same chunks: which to
 *                       evict now, in order (eager reclamation);
 *   pick_victim         device memory is full and a chunk is needed now:
 *                       which candidate to evict (on-demand eviction);
 *   on_arrive           pages of a block became GPU-resident;
 *   on_return           ... and the block had been evicted since it last
 *                       arrived (called just before on_arrive);
 *   on_evict            a block's pages left device memory.
 *
 * Private state: the driver allocates block_priv_size bytes per VA block
 * (zeroed when the block is created, freed with it) and chunk_priv_size
 * bytes per root chunk (zeroed each time the chunk is given to a block),
 * and hands them to the hooks as priv / block_priv / chunk_priv.
 *
 * Concurrency: the fault, notification, promotion and timer hooks and
 * on_launch_end run in the driver's bottom half, one at a time per GPU;
 * on_launch_begin runs in the launching thread before the bottom half
 * services the launch, but may overlap the previous launch's
 * on_launch_end. pick_victim, on_arrive, on_return and on_evict also run
 * in an application thread (its prefetches), concurrently with the bottom
 * half's hooks. The driver holds its chunk allocator's lock (every
 * chunk_priv stable) around those four and around on_notification,
 * on_timer_tick and pick_eager_victims, so these seven never overlap each
 * other, and the block's lock (block_priv stable) around every hook that
 * is given a block view or a residency record (a victim's or a tick's
 * chunk.block_priv is read without it). So hooks only compute: no
 * sleeping, no calls back into the driver. docs/writing-a-policy.md has
 * each hook's context and locks in ember.ko.
 */
#ifndef EMBER_POLICY_H
#define EMBER_POLICY_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/string.h>
#include <linux/types.h>
#define ember_popcount64(x)	hweight64(x)
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#define ember_popcount64(x)	((unsigned int)__builtin_popcountll(x))
#endif

#include "ember_policy_params.h"

#define EMBER_PAGE_SHIFT	12
#define EMBER_BLOCK_SHIFT	21
#define EMBER_BLOCK_PAGES	(1u << (EMBER_BLOCK_SHIFT - EMBER_PAGE_SHIFT))
#define EMBER_BIG_PAGES		16u	/* 4 KiB pages per 64 KiB big page */
#define EMBER_MASK_WORDS	(EMBER_BLOCK_PAGES / 64)

/* One bit per 4 KiB page of a 2 MiB VA block. */
struct ember_page_mask {
	uint64_t w[EMBER_MASK_WORDS];
};

static inline bool ember_mask_test(const struct ember_page_mask *m,
				   unsigned int i)
{
	return (m->w[i / 64] >> (i % 64)) & 1;
}

static inline void ember_mask_set(struct ember_page_mask *m, unsigned int i)
{
	m->w[i / 64] |= 1ull << (i % 64);
}

static inline void ember_mask_zero(struct ember_page_mask *m)
{
	memset(m, 0, sizeof(*m));
}

static inline void ember_mask_fill(struct ember_page_mask *m)
{
	memset(m, 0xff, sizeof(*m));
}

static inline bool ember_mask_empty(const struct ember_page_mask *m)
{
	unsigned int i;

	for (i = 0; i < EMBER_MASK_WORDS; i++)
		if (m->w[i])
			return false;
	return true;
}

static inline unsigned int ember_mask_weight(const struct ember_page_mask *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < EMBER_MASK_WORDS; i++)
		n += ember_popcount64(m->w[i]);
	return n;
}

/* dst = a | b */
static inline void ember_mask_or(struct ember_page_mask *dst,
				 const struct ember_page_mask *a,
				 const struct ember_page_mask *b)
{
	unsigned int i;

	for (i = 0; i < EMBER_MASK_WORDS; i++)
		dst->w[i] = a->w[i] | b->w[i];
}

/* dst = a & ~b */
static inline void ember_mask_andnot(struct ember_page_mask *dst,
				     const struct ember_page_mask *a,
				     const struct ember_page_mask *b)
{
	unsigned int i;

	for (i = 0; i < EMBER_MASK_WORDS; i++)
		dst->w[i] = a->w[i] & ~b->w[i];
}

/* Sets pages [first, first + n). */
static inline void ember_mask_set_range(struct ember_page_mask *m,
					unsigned int first, unsigned int n)
{
	while (n--)
		ember_mask_set(m, first++);
}

/* Counts the set pages in [first, first + n). */
static inline unsigned int ember_mask_count_range(const struct ember_page_mask *m,
						  unsigned int first,
						  unsigned int n)
{
	unsigned int c = 0;

	while (n--)
		c += ember_mask_test(m, first++);
	return c;
}

enum ember_loc {
	EMBER_LOC_NONE = 0,	/* unpopulated, or no preference */
	EMBER_LOC_CPU = 1,	/* host memory, mapped by the GPU as sysmem */
	EMBER_LOC_GPU = 2,	/* device memory */
};

/* What a driver tells a policy about the GPU of a VA space (init). */
struct ember_policy_env {
	uint64_t vram_bytes;		/* this GPU's device memory */
	/*
	 * The device memory of the card this GPU stands for: on a scaled
	 * testbed card (emgpu's h200-128m has 128 MiB and stands for an H200)
	 * the unscaled card's, so that a policy can scale its periods and
	 * spans with it; on a real card, vram_bytes.
	 */
	uint64_t full_vram_bytes;
	uint32_t chunks_total;		/* 2 MiB root chunks of device memory */
};

/* The policy's view of one VA block. */
struct ember_policy_block {
	uint64_t start;				/* (in) VA of the block */
	uint64_t now_ns;			/* (in) device time */
	uint64_t range_start, range_end;	/* (in) its managed allocation */
	uint32_t preferred;			/* (in) enum ember_loc, from advice */
	bool accessed_by_gpu;			/* (in) advice */
	bool hinted;				/* (in) the application advised or
						 * prefetched this range itself */
	struct ember_page_mask resident_cpu;	/* (in) */
	struct ember_page_mask resident_gpu;	/* (in) */
	struct ember_page_mask faulted;		/* (in) pages faulted in this batch */
	struct ember_page_mask unmovable;	/* (in) pages the driver cannot
						 * migrate (lost, pinned) */
	/*
	 * (in) state of the root chunk backing the block's GPU pages, or
	 * NULL; given to on_notification only, which the driver calls with
	 * its chunk allocator's lock held.
	 */
	void *chunk_priv;
	uint32_t chunks_used;			/* (in) device memory in use, root chunks */
	uint32_t chunks_total;			/* (in) usable root chunks */
	uint32_t dest;				/* (out) enum ember_loc: CPU or GPU */
	struct ember_page_mask migrate;		/* (out) pages to make resident at dest */
	void *priv;				/* (in) block_priv_size bytes, or NULL */
	/*
	 * (in) on_fault_block: the source uTLB of each fault of the batch on
	 * this block, in fault-buffer order (device-wide ids: GPC x uTLBs
	 * per GPC + the uTLB within it); NULL and 0 elsewhere.
	 */
	const uint16_t *fault_utlb;
	uint32_t nfault_utlb;
};

/* A device-memory root chunk, as the victim and timer hooks see it. */
struct ember_policy_chunk {
	uint64_t va;			/* VA block it backs */
	uint64_t last_used_ns;		/* when the block last became resident */
	void *priv;			/* chunk_priv_size bytes, or NULL */
	void *block_priv;		/* its block's, or NULL */
	bool busy;			/* being migrated or evicted: never chosen */
};

/* One access-counter notification. */
struct ember_policy_notification {
	uint64_t va;			/* region start */
	uint64_t now_ns;
	uint64_t range_start, range_end;	/* the managed allocation holding va */
	uint32_t sub_mask;		/* accessed 1/32 sub-regions */
	uint32_t counter;		/* the counter's value */
};

/* A span of VA a notification asks to promote: [start, end), 2 MiB aligned. */
struct ember_policy_span {
	uint64_t start, end;
};

/* promote_block's answer for one block of a span. */
enum ember_promote {
	EMBER_PROMOTE_SKIP = 0,		/* nothing to move here: next block */
	EMBER_PROMOTE_GO,		/* make blk->migrate resident at blk->dest */
	EMBER_PROMOTE_STOP,		/* stop the span here (no room) */
};

#define EMBER_POLICY_LAUNCH_RANGES	8

/* A kernel launch. */
struct ember_policy_launch {
	uint64_t now_ns;		/* (in) */
	uint32_t kernel;		/* (in) enum ember_kernel (uapi ember.h) */
	uint32_t nranges;		/* (in) managed ranges its arguments name */
	struct {
		uint64_t start, end;
	} ranges[EMBER_POLICY_LAUNCH_RANGES];
	int32_t status;			/* (in, end) 0 or -errno */
	uint64_t sim_ns;		/* (in, end) the launch's modelled time */
	/* (out, begin) device set-up for this launch, 0: off */
	uint32_t ac_threshold;		/* accesses per notification */
	uint32_t ac_granularity_shift;	/* log2 bytes a counter covers */
	uint64_t timer_period_ns;	/* period of on_timer_tick */
};

/* The resident root chunks of a VA space, for the timer hooks. */
struct ember_policy_tick {
	uint64_t now_ns;
	struct ember_policy_chunk *chunks;
	uint32_t n;
	uint32_t chunks_used, chunks_total;	/* of the whole GPU */
	uint32_t *victims;		/* (out) indices into chunks, n entries of room */
};

/* Why pages arrived or left, for the residency hooks. */
enum ember_policy_cause {
	EMBER_POLICY_CAUSE_FAULT = 0,	/* GPU fault servicing */
	EMBER_POLICY_CAUSE_PREFETCH,	/* the application's prefetch */
	EMBER_POLICY_CAUSE_PROMOTION,	/* a span promotion (notification) */
	EMBER_POLICY_CAUSE_EVICTION,	/* on-demand eviction */
	EMBER_POLICY_CAUSE_EAGER,	/* eager reclamation */
	EMBER_POLICY_CAUSE_CPU,		/* a CPU access took the pages back */
};

struct ember_policy_residency {
	uint64_t va;			/* the block */
	uint64_t now_ns;
	uint32_t pages;			/* how many moved */
	uint32_t cause;			/* enum ember_policy_cause */
	uint32_t counter;		/* the notification's count, for promotions */
	void *block_priv;
	void *chunk_priv;		/* the chunk they arrived in / left */
};

/* Largest per-chunk private state a policy may declare. */
#define EMBER_POLICY_CHUNK_PRIV_MAX	128

struct ember_policy_ops {
	const char *name;		/* at most 15 characters */
	void *owner;			/* struct module * in the kernel, or NULL */
	bool wants_access_counters;	/* sysmem PTEs count accesses */
	/* New blocks start with preferred location CPU and accessed-by GPU. */
	bool mapped_by_default;
	/*
	 * Fault servicing pipelined (ARIADNE): a block's populate (its root
	 * chunk) is charged to the device's POPULATE timeline, which runs
	 * ahead while the FAULT timeline copies the previous block; each copy
	 * waits only for its own block's populate.
	 */
	bool pipelined_faults;
	uint32_t block_priv_size;	/* bytes per VA block */
	uint32_t chunk_priv_size;	/* bytes per root chunk, <= CHUNK_PRIV_MAX */

	/* Per-VA-space state. init returns 0 or -errno. */
	int (*init)(void **pdata, const struct ember_policy_env *env);
	void (*fini)(void *pdata);

	void (*on_launch_begin)(void *pdata, struct ember_policy_launch *l);
	void (*on_launch_end)(void *pdata, const struct ember_policy_launch *l);

	/* Required: fill blk->dest and blk->migrate (a superset of faulted). */
	void (*on_fault_block)(void *pdata, struct ember_policy_block *blk);
	/*
	 * blk is the notified block, or NULL when it holds no pages yet.
	 * Return true and fill span to have it promoted (promote_block is
	 * then required).
	 */
	bool (*on_notification)(void *pdata,
				const struct ember_policy_notification *n,
				const struct ember_policy_block *blk,
				struct ember_policy_span *span);
	enum ember_promote (*promote_block)(void *pdata,
					    const struct ember_policy_notification *n,
					    struct ember_policy_block *blk);

	void (*on_timer_tick)(void *pdata, struct ember_policy_tick *t);
	/* Returns k: t->victims[0..k) are evicted in that order. */
	uint32_t (*pick_eager_victims)(void *pdata, struct ember_policy_tick *t);
	/* Index into cand[0..n) (least recently made resident first); default 0. */
	uint32_t (*pick_victim)(void *pdata, const struct ember_policy_chunk *cand,
				uint32_t n, uint64_t now_ns);

	void (*on_arrive)(void *pdata, const struct ember_policy_residency *r);
	void (*on_return)(void *pdata, const struct ember_policy_residency *r);
	void (*on_evict)(void *pdata, const struct ember_policy_residency *r);
};

/*
 * Checks an ops table before it is registered: a name of 1..15 characters,
 * on_fault_block present, promote_block present with on_notification,
 * pick_eager_victims only with on_timer_tick, chunk state within
 * EMBER_POLICY_CHUNK_PRIV_MAX. Returns 0, or -1 with a reason in msg.
 */
int ember_policy_ops_check(const struct ember_policy_ops *ops, char *msg,
			   size_t len);

/* Zeroed memory for a policy's own state; provided by each host. */
void *ember_policy_zalloc(size_t size);
void ember_policy_free(void *p);

#ifdef __KERNEL__
/*
 * ember_policy.c, exported: a policy in another module becomes selectable
 * by name (set_policy) once registered; it must stay valid until
 * unregistered (guest-kmod/ember/modules/ember_ac_module.c is an example).
 */
int ember_register_policy(const struct ember_policy_ops *ops);
void ember_unregister_policy(const struct ember_policy_ops *ops);
#endif

/* ember_perf_prefetch.c: nvidia-uvm's tree-based neighbourhood prefetcher. */

/*
 * Computes the pages to prefetch around the faulted pages of one block.
 * The tree's leaves are 64 KiB big pages (faults are first grown to their
 * big page); a subtree qualifies when (resident | faulted) pages in it are
 * more than threshold percent of it, and each faulted leaf takes its
 * largest qualifying ancestor. out = union of those subtrees. nvidia-uvm's
 * threshold: EMBER_PREFETCH_THRESHOLD_DEFAULT (ember_policy_params.h).
 */
void ember_prefetch_tbn(const struct ember_page_mask *resident,
			const struct ember_page_mask *faulted,
			unsigned int threshold, struct ember_page_mask *out);

/* ember_policy_uvm.c: the stock-UVM baseline (EMBER_UVM_PARAMS). */
struct ember_uvm_params {
	EMBER_UVM_PARAMS(EMBER_PARAM_FIELD)
};
extern struct ember_uvm_params ember_uvm_params;
extern const struct ember_policy_ops ember_policy_uvm;

/*
 * ember_policy_ac.c: access-counter migration with a static threshold
 * (EMBER_AC_PARAMS).
 */
struct ember_ac_params {
	EMBER_AC_PARAMS(EMBER_PARAM_FIELD)
};
extern struct ember_ac_params ember_ac_params;
extern const struct ember_policy_ops ember_policy_ac;

#endif /* EMBER_POLICY_H */
