/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ember_policy.h: the policy interface, hardware-neutral.
 *
 * A policy decides placement; the driver core (ember.ko here, nvidia-uvm
 * glue or a CUnit harness elsewhere) carries the decisions out. This header
 * and the policy sources (ember_policy_uvm.c, ember_perf_prefetch.c) use no
 * kernel or device interfaces: plain C99 plus the helpers below, so the
 * same files compile into ember.ko, into userspace unit tests and into
 * nvidia-uvm.
 *
 * The core calls the ops table at these points:
 *   on_fault_block   for each VA block with faults in a fault batch, under
 *                    the block's lock: choose the destination and the pages
 *                    to make resident there (faulted pages plus prefetch);
 *   on_notification  for each access-counter notification (optional);
 *   on_timer_tick    on the device's policy timer (optional);
 *   pick_victim      when device memory is full: which of the least
 *                    recently used root chunks to evict;
 *   on_evict / on_return  after a block left device memory / came back.
 * Time is the device's clock (ns), passed in by the core; never jiffies.
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
#include <stdint.h>
#include <string.h>
#define ember_popcount64(x)	((unsigned int)__builtin_popcountll(x))
#endif

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

/* The policy's view of one VA block with faults. */
struct ember_policy_block {
	uint64_t start;				/* (in) VA of the block */
	uint64_t now_ns;			/* (in) device time */
	uint32_t preferred;			/* (in) enum ember_loc, from advice */
	bool accessed_by_gpu;			/* (in) advice */
	struct ember_page_mask resident_cpu;	/* (in) */
	struct ember_page_mask resident_gpu;	/* (in) */
	struct ember_page_mask faulted;		/* (in) pages faulted in this batch */
	uint32_t chunks_used;			/* (in) device memory in use, root chunks */
	uint32_t chunks_total;			/* (in) usable root chunks */
	uint32_t dest;				/* (out) enum ember_loc: CPU or GPU */
	struct ember_page_mask migrate;		/* (out) pages to make resident at dest */
	void *priv;				/* (in/out) the policy's per-block data */
};

/* A device-memory root chunk, as pick_victim sees it. */
struct ember_policy_chunk {
	uint64_t va;			/* VA block it backs */
	uint64_t last_used_ns;		/* when the block last became resident */
	uint32_t resident_pages;	/* pages of the block in the chunk */
	void *priv;			/* the block's policy data */
};

/* One access-counter notification. */
struct ember_policy_notification {
	uint64_t va;			/* region start */
	uint64_t now_ns;
	uint32_t sub_mask;		/* accessed 1/32 sub-regions */
	uint32_t counter;		/* the counter's value */
};

struct ember_policy_ops {
	const char *name;		/* at most 15 characters */
	void *owner;			/* struct module * in the kernel, or NULL */
	bool wants_access_counters;	/* sysmem PTEs count accesses */
	uint64_t timer_period_ns;	/* 0: no on_timer_tick */
	/* New blocks start with preferred location CPU and accessed-by GPU. */
	bool mapped_by_default;
	/*
	 * The core runs Ember-adaptive's engine (ember_adaptive.h) for this
	 * policy: counter-driven span promotion on notifications, demand on
	 * chunks, the eager reclamation worker on the timer, migration history.
	 */
	bool adaptive;

	/* Per-VA-space state; both optional. init returns 0 or -errno. */
	int (*init)(void **pdata);
	void (*fini)(void *pdata);

	/* Required: fill blk->dest and blk->migrate (a superset of faulted). */
	void (*on_fault_block)(void *pdata, struct ember_policy_block *blk);
	/*
	 * Optional: blk describes the notified VA block (faulted empty);
	 * return true to make blk->migrate resident at blk->dest.
	 */
	bool (*on_notification)(void *pdata,
				const struct ember_policy_notification *n,
				struct ember_policy_block *blk);
	void (*on_timer_tick)(void *pdata, uint64_t now_ns);
	/* Optional: index into lru[0..n) (oldest first); default 0. */
	unsigned int (*pick_victim)(void *pdata,
				    const struct ember_policy_chunk *lru,
				    unsigned int n);
	void (*on_evict)(void *pdata, uint64_t va, void *priv, uint64_t now_ns);
	void (*on_return)(void *pdata, uint64_t va, void *priv, uint64_t now_ns);
};

#ifdef __KERNEL__
/*
 * ember_policy.c, exported: a policy in another module becomes selectable
 * by name (set_policy) once registered; it must stay valid until
 * unregistered (policies/ember_policy_ac.c is an example).
 */
int ember_register_policy(const struct ember_policy_ops *ops);
void ember_unregister_policy(const struct ember_policy_ops *ops);
#endif

/* ember_perf_prefetch.c: nvidia-uvm's tree-based neighbourhood prefetcher. */
#define EMBER_PREFETCH_THRESHOLD_DEFAULT	51	/* percent, 1..100 */

/*
 * Computes the pages to prefetch around the faulted pages of one block.
 * The tree's leaves are 64 KiB big pages (faults are first grown to their
 * big page); a subtree qualifies when (resident | faulted) pages in it are
 * more than threshold percent of it, and each faulted leaf takes its
 * largest qualifying ancestor. out = union of those subtrees.
 */
void ember_prefetch_tbn(const struct ember_page_mask *resident,
			const struct ember_page_mask *faulted,
			unsigned int threshold, struct ember_page_mask *out);

/* ember_policy_uvm.c: the stock-UVM baseline. */
struct ember_uvm_params {
	unsigned int prefetch_enable;		/* 0 or 1 */
	unsigned int prefetch_threshold;	/* 1..100 */
};
extern struct ember_uvm_params ember_uvm_params;
extern const struct ember_policy_ops ember_policy_uvm;

#endif /* EMBER_POLICY_H */
