/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ember.ko internals. Names follow nvidia-uvm where they fit: a VA space per
 * open file, managed ranges made of 2 MiB VA blocks, a physical memory
 * manager (pmm) of 2 MiB root chunks, fault batches, make_resident.
 *
 * Data model. A VA block covers one naturally aligned 2 MiB of a managed
 * range. Each of its 512 pages is unpopulated, resident on the CPU (a page
 * the driver allocated, inserted into the user VMA on CPU faults) or
 * resident on the GPU (at the same offset in the block's one VRAM root
 * chunk); never both. The GPU maps a page from VRAM when it is GPU-resident,
 * or from host memory (sysmem aperture) when the policy or accessed-by
 * advice says so. The CPU maps only CPU-resident pages.
 *
 * Locking order (outermost first; never two locks of one row at once):
 *   1. mm->mmap_lock           (the kernel's; held around CPU faults, mmap,
 *                               munmap)
 *   2. gpu->launch_lock        launch bookkeeping of a GPU
 *   3. va_space->lock (rwsem)  the range list of a VA space and its policy
 *   4. va_block->lock          the state of one VA block; never two blocks
 *                              at once: eviction takes the victim's lock only
 *                              while holding no other block lock
 *   5. i_mmap_rwsem            (the kernel's, inside unmap_mapping_range)
 *   6. gpu->pmm.lock           free and LRU chunk lists
 *   7. va_space->pt_lock       the GPU page-table tree of a VA space
 *   8. gpu->hw_lock            copy-engine ring, TLB-invalidate, PDB and
 *                              driver-time registers
 *   9. gpu->irq_lock (spin)    interrupt bookkeeping, taken in hard IRQ
 *  ember_gpus_lock and ember_policies_lock are leaves taken alone.
 */
#ifndef EMBER_DRV_H
#define EMBER_DRV_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "emgpu_hw.h"
#include "ember_params.h"
#include "ember_policy.h"
#include "uapi/ember.h"

#define EMBER_NAME "ember"

#define EMBER_CHUNK_SIZE	(1ull << EMBER_BLOCK_SHIFT)
#define EMBER_CE_RING_ENTRIES	1024
#define EMBER_VICTIM_WINDOW	16	/* LRU candidates shown to pick_victim */

/* ---- module parameters (ember_main.c) ---- */
/*
 * A uint parameter whose setter refuses values outside [min, max] with
 * EINVAL and a message (ember_param_set_range()), at load and on every
 * write through sysfs.
 */
int ember_param_set_range(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max);

#define EMBER_RANGE_PARAM(name, var, min, max, perm, desc)		\
	static int ember_set_##name(const char *val,			\
				    const struct kernel_param *kp)	\
	{								\
		return ember_param_set_range(val, kp, min, max);	\
	}								\
	static const struct kernel_param_ops ember_param_ops_##name = {	\
		.set = ember_set_##name,				\
		.get = param_get_uint,					\
	};								\
	module_param_cb(name, &ember_param_ops_##name, &var, perm);	\
	MODULE_PARM_DESC(name, desc)

/* A uint parameter of ember_params.h's lists: its variable and its parameter. */
#define EMBER_PARAM_DEFINE(name, var, def, min, max, perm, desc)	\
	unsigned int var = def;						\
	EMBER_RANGE_PARAM(name, var, min, max, perm,			\
			  EMBER_PARAM_DESC(name, def, min, max, desc));
#define EMBER_PARAM_EXTERN(name, var, def, min, max, perm, desc)	\
	extern unsigned int var;
EMBER_DRIVER_PARAMS(EMBER_PARAM_EXTERN)

/* ---- limits of an opener (ember_limits.c) ---- */
EMBER_LIMIT_PARAMS(EMBER_PARAM_EXTERN)

/* ---- statistics: struct ember_stats_counters, as atomics ---- */
#define EMBER_NR_STATS	(sizeof(struct ember_stats_counters) / sizeof(__u64))
#define EMBER_STAT(field) \
	(offsetof(struct ember_stats_counters, field) / sizeof(__u64))

struct ember_stat_set {
	atomic64_t v[EMBER_NR_STATS];
};

extern struct ember_stat_set ember_global_stats;

/* ---- device memory: 2 MiB root chunks ---- */
struct ember_va_block;

struct ember_chunk {
	u64 addr;			/* vidmem offset; immutable */
	/* the fields below are protected by pmm.lock */
	struct list_head node;		/* in pmm.free or pmm.used */
	struct ember_va_block *block;	/* owner; also changed under its lock */
	u64 last_used_ns;		/* when the owner last became resident */
	bool evicting;			/* an evictor holds a ref on the owner */
	bool retired;			/* poisoned: never handed out again */
	/* the owner's policy's chunk state (chunk_priv_size), zeroed on alloc */
	u64 policy_priv[EMBER_POLICY_CHUNK_PRIV_MAX / sizeof(u64)];
};

struct ember_pmm {
	struct mutex lock;		/* protects the lists and chunk fields */
	struct ember_chunk *chunks;	/* immutable array */
	u32 nchunks;
	struct list_head free;
	struct list_head used;		/* LRU: head made resident least recently */
	u32 nfree;
	u32 nretired;			/* poisoned chunks taken out of service */
	/* scratch for the policy's victim and timer hooks, nchunks each */
	struct ember_policy_chunk *views;
	struct ember_chunk **cands;
	u32 *victims;
};

/* ---- a GPU ---- */
struct ember_dma {
	void *cpu;
	dma_addr_t dma;
	size_t size;
};

struct ember_va_space;

struct ember_gpu {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct list_head node;		/* in ember_gpus, under ember_gpus_lock */

	/* read once at probe, immutable afterwards */
	u32 hw_version;
	u32 caps;
	u32 profile;
	u64 vram_size;
	u64 full_vram_size;		/* the card a scaled profile stands for */
	u32 flags;			/* EMBER_GPU_* */
	bool ready;			/* rings set up: launches, copies, faults */

	spinlock_t irq_lock;		/* protects the fields below */
	u64 irq_count[EMGPU_MSIX_VECTORS];
	u32 irq_pending;		/* causes seen, not yet serviced */
	u32 error_status;		/* last device error seen */
	u32 error_info;
	bool selftest_pending;
	struct completion selftest_done;

	struct ember_pmm pmm;

	struct mutex hw_lock;		/* protects the fields below and the
					 * CE/TLB/PDB/DRIVER_* registers */
	struct ember_dma ce_ring;
	struct ember_dma ce_sem;	/* u32 semaphore */
	u32 ce_put;
	u32 ce_seq;
	u32 hw_thread;			/* DRIVER_THREAD last written */
	u64 pdb;			/* PDB last written */
	u64 timer_period_ns;		/* TIMER_PERIOD last written */

	/* fault buffer: owned by the bottom half (one at a time, ordered wq) */
	struct ember_dma fault_buf;
	u32 fault_get;
	struct emgpu_fault_entry *batch;	/* ember_fault_batch_count entries */

	/* access-counter ring: owned by the bottom half too */
	struct ember_dma ac_buf;
	u32 ac_get;

	struct workqueue_struct *wq;	/* ordered: the interrupt bottom half */
	struct work_struct isr_work;
	bool reset_pending;		/* the watchdog saw a hang (READ/WRITE_ONCE) */
	bool isr_running;		/* isr_work is servicing (READ/WRITE_ONCE) */

	struct mutex launch_lock;	/* protects the fields below */
	struct ember_dma launch_desc;
	struct ember_va_space *launch_vs;	/* holds a ref while running */
	bool launch_busy;
	u64 launch_start_ns;		/* device clock at its doorbell */
	bool launch_overdue;		/* held past launch_hold_ms: being ended */
	wait_queue_head_t launch_wq;	/* launch_busy cleared */
};

static inline u32 ember_rd(struct ember_gpu *gpu, u32 reg)
{
	return readl(gpu->regs + reg);
}

static inline void ember_wr(struct ember_gpu *gpu, u32 reg, u32 val)
{
	writel(val, gpu->regs + reg);
}

/* Reads a LO/HI pair; reading LO latches HI on the device. */
static inline u64 ember_rd64(struct ember_gpu *gpu, u32 reg_lo, u32 reg_hi)
{
	u64 lo = ember_rd(gpu, reg_lo);

	return lo | (u64)ember_rd(gpu, reg_hi) << 32;
}

/* Writes a LO/HI pair; the LO write commits. */
static inline void ember_wr64(struct ember_gpu *gpu, u32 reg_lo, u32 reg_hi,
			      u64 val)
{
	ember_wr(gpu, reg_hi, upper_32_bits(val));
	ember_wr(gpu, reg_lo, lower_32_bits(val));
}

/* ---- GPU page tables (VER2-like, emgpu_hw.h) ---- */
struct ember_pt {
	emgpu_pte_t *cpu;		/* 512 entries, coherent sysmem */
	dma_addr_t dma;
	struct ember_pt **child;	/* directories only */
};

/* ---- VA space, ranges, blocks ---- */
struct ember_va_range;

struct ember_va_block {
	struct kref kref;		/* the range's, an evictor's */
	struct ember_va_space *vs;	/* immutable; the block holds a ref */
	u64 start;			/* immutable */

	struct mutex lock;		/* protects everything below */
	bool dead;			/* its range is gone */
	bool evicted;			/* evicted since its pages last arrived */
	u8 preferred;			/* enum ember_loc */
	bool accessed_by;		/* the GPU maps host-resident pages */
	DECLARE_BITMAP(cpu_resident, EMBER_BLOCK_PAGES);
	DECLARE_BITMAP(gpu_resident, EMBER_BLOCK_PAGES);
	DECLARE_BITMAP(cpu_mapped, EMBER_BLOCK_PAGES);	/* may have a CPU PTE */
	DECLARE_BITMAP(gpu_mapped, EMBER_BLOCK_PAGES);	/* valid GPU PTE */
	DECLARE_BITMAP(lost, EMBER_BLOCK_PAGES);	/* were in poisoned VRAM */
	struct page *pages[EMBER_BLOCK_PAGES];	/* CPU-resident pages */
	dma_addr_t dma[EMBER_BLOCK_PAGES];	/* their bus addresses */
	struct ember_chunk *chunk;	/* VRAM of GPU-resident pages */
	struct ember_pt *pt;		/* leaf page table, once created */
	void *policy_priv;		/* block_priv_size bytes after the block;
					 * fixed while the VA space has ranges */
};

struct ember_va_range {
	struct kref kref;		/* one per VMA (a failed mremap copies it) */
	struct list_head node;		/* in vs->ranges, under vs->lock */
	struct ember_va_space *vs;
	u64 start, end;			/* immutable */
	bool hinted;			/* advised or prefetched by the application
					 * (READ/WRITE_ONCE) */
	unsigned long nblocks;
	struct ember_va_block **blocks;	/* created on demand (cmpxchg) */
};

struct ember_va_space {
	struct kref kref;		/* the file's, blocks', a running launch's */
	struct ember_gpu *gpu;		/* immutable; NULL without a GPU */
	struct mm_struct *mm;		/* the opener's; compared, not referenced */
	struct address_space mapping;	/* the file's f_mapping: CPU PTE zaps */

	struct rw_semaphore lock;	/* protects ranges, managed_bytes and
					 * the policy */
	struct list_head ranges;
	u64 managed_bytes;		/* sizes of the ranges (ember_limits.c) */
	atomic_t launches_outstanding;	/* submitted or waiting, not completed */
	struct mem_cgroup *memcg;	/* the opener's: charged for host pages */
	const struct ember_policy_ops *policy;
	void *policy_data;

	struct mutex pt_lock;		/* protects the page-table tree */
	struct ember_pt *pt_root;

	/* launches, protected by gpu->launch_lock */
	u64 launches_submitted;
	u64 launches_completed;
	int launch_error;		/* first error since the last synchronize */
	u64 last_sim_ns;
	u64 last_result;
	wait_queue_head_t launch_wq;	/* launches_completed advanced */

	struct ember_stat_set stats;
};

/* What a migration is for: picks the driver timeline it is charged to. */
enum ember_cause {
	EMBER_CAUSE_FAULT,		/* GPU fault servicing: critical path */
	EMBER_CAUSE_CPU_FAULT,
	EMBER_CAUSE_PREFETCH,		/* EMBER_IOCTL_PREFETCH */
	EMBER_CAUSE_EVICTION,		/* reclamation off the critical path */
	EMBER_CAUSE_NOTIFY,		/* access-counter promotion */
};

static inline void ember_stat_add(struct ember_va_space *vs, unsigned int idx,
				  u64 n)
{
	if (vs)
		atomic64_add(n, &vs->stats.v[idx]);
	atomic64_add(n, &ember_global_stats.v[idx]);
}

#define ember_stat_inc(vs, field) ember_stat_add(vs, EMBER_STAT(field), 1)

/*
 * Counts one call of a policy hook (enum ember_policy_hook, uapi), so tests
 * can see which hooks the driver called.
 */
static inline void ember_hook_count(struct ember_va_space *vs,
				    enum ember_policy_hook hook)
{
	ember_stat_add(vs, EMBER_STAT(hook_calls) + hook, 1);
}

/* ember_gpu.c: probe, interrupts, rings, hardware helpers */
int ember_gpu_driver_register(void);
void ember_gpu_driver_unregister(void);
void ember_gpu_fill_info(struct ember_gpu *gpu, struct ember_device_info *info);
struct ember_gpu *ember_gpu_get_default(void);
u64 ember_gpu_now_ns(struct ember_gpu *gpu);
u32 ember_cause_thread(enum ember_cause cause);
void ember_hw_charge(struct ember_gpu *gpu, u32 thread, u32 action, u32 count);
void ember_hw_join(struct ember_gpu *gpu, u32 thread, u32 other);

/* copy engine: one batch of descriptors, submitted and waited for */
struct ember_ce_batch {
	struct ember_gpu *gpu;
	struct ember_va_space *vs;	/* counts its retries; may be NULL */
	u32 thread;
	u32 first;			/* ring index of the first unflushed descriptor */
	u32 count;			/* descriptors queued since the last kick */
	int error;			/* -EHWPOISON: a VRAM source was poisoned */
	bool quiet;			/* no message on error (probing) */
};
void ember_ce_begin(struct ember_ce_batch *b, struct ember_gpu *gpu, u32 thread);
void ember_ce_copy(struct ember_ce_batch *b, u32 dst_ap, u64 dst, u32 src_ap,
		   u64 src, u32 len);
void ember_ce_memset(struct ember_ce_batch *b, u64 dst, u32 len);
int ember_ce_end(struct ember_ce_batch *b);
int ember_vram_probe(struct ember_gpu *gpu, u64 addr);
int ember_tlb_invalidate(struct ember_gpu *gpu, u32 thread, u64 va, u64 size);
void ember_gpu_set_pdb(struct ember_gpu *gpu, u64 pde);
void ember_gpu_set_timer(struct ember_gpu *gpu, u64 period_ns);
void ember_gpu_kick(struct ember_gpu *gpu);

/* ember_pmm.c */
int ember_pmm_init(struct ember_gpu *gpu);
void ember_pmm_fini(struct ember_gpu *gpu);
struct ember_chunk *ember_pmm_alloc(struct ember_gpu *gpu,
				    struct ember_va_space *vs,
				    struct ember_va_block *block,
				    enum ember_cause cause);
void ember_pmm_free(struct ember_gpu *gpu, struct ember_chunk *chunk);
void ember_pmm_mark_used(struct ember_gpu *gpu, struct ember_chunk *chunk);
u64 ember_pmm_free_bytes(struct ember_gpu *gpu);
u64 ember_pmm_total_bytes(struct ember_gpu *gpu);
void ember_pmm_retire(struct ember_gpu *gpu, struct ember_chunk *chunk);
void ember_pmm_scrub(struct ember_gpu *gpu);
void ember_pmm_timer_tick(struct ember_gpu *gpu, struct ember_va_space *vs);

/* ember_mmu.c */
int ember_mmu_init(struct ember_va_space *vs);
void ember_mmu_fini(struct ember_va_space *vs);
struct ember_pt *ember_mmu_get_leaf(struct ember_va_space *vs, u64 va);
u64 ember_mmu_root_pde(struct ember_va_space *vs);
u64 ember_pte_vidmem(u64 addr);
u64 ember_pte_sysmem(u64 addr, bool count_accesses);

/* ember_va_space.c */
struct ember_va_space *ember_va_space_create(struct file *file);
void ember_va_space_put(struct ember_va_space *vs);
int ember_va_space_mmap(struct ember_va_space *vs, struct vm_area_struct *vma);
struct ember_va_range *ember_range_find(struct ember_va_space *vs, u64 addr,
					u64 length);
struct ember_va_block *ember_range_block(struct ember_va_range *range, u64 va,
					 bool create);
void ember_block_put(struct ember_va_block *block);

/* ember_va_block.c (LOCKING: callers hold block->lock unless stated) */
int ember_block_make_resident_gpu(struct ember_va_block *block,
				  const unsigned long *mask,
				  enum ember_cause cause, u32 counter, u64 *bytes);
int ember_block_make_resident_cpu(struct ember_va_block *block,
				  const unsigned long *mask,
				  enum ember_cause cause, u64 *bytes);
int ember_block_evict(struct ember_va_block *block, enum ember_cause cause,
		      bool eager);
int ember_block_map_remote(struct ember_va_block *block,
			   const unsigned long *mask, enum ember_cause cause);
int ember_block_ensure_chunk(struct ember_va_block *block,
			     enum ember_cause cause);
void ember_block_destroy(struct ember_va_block *block);
void ember_block_lose_chunk(struct ember_va_block *block);
vm_fault_t ember_block_cpu_fault(struct ember_va_block *block,
				 struct vm_fault *vmf);
void ember_block_policy_view(struct ember_va_range *range,
			     struct ember_va_block *block,
			     struct ember_policy_block *view);
int ember_block_apply(struct ember_va_block *block,
		      struct ember_policy_block *view, enum ember_cause cause,
		      u32 counter);

/* ember_fault.c: the replayable-fault bottom half */
void ember_fault_service(struct ember_gpu *gpu);

/* ember_notify.c: the access-counter bottom half */
int ember_notify_setup(struct ember_gpu *gpu);
void ember_notify_program(struct ember_gpu *gpu);
void ember_notify_teardown(struct ember_gpu *gpu);
void ember_notify_service(struct ember_gpu *gpu);

/* ember_limits.c */
int ember_limits_charge_managed(struct ember_va_space *vs, u64 bytes);
void ember_limits_uncharge_managed(struct ember_va_space *vs, u64 bytes);
int ember_limits_launch_get(struct ember_va_space *vs);
void ember_limits_launch_put(struct ember_va_space *vs);
bool ember_limits_launch_overdue(struct ember_gpu *gpu, u64 start_ns);

/* ember_ioctl.c */
long ember_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* ember_launch.c: the launch lifecycle and its watchdog */
int ember_launch_submit(struct ember_va_space *vs, struct ember_launch *l);
int ember_launch_sync(struct ember_va_space *vs, struct ember_synchronize *s,
		      u32 timeout_ms);
void ember_launch_poll(struct ember_gpu *gpu);
void ember_launch_end_policy(struct ember_gpu *gpu, struct ember_va_space *vs,
			     int status, u64 sim_ns);
void ember_launch_release_vs(struct ember_va_space *vs);

/* ember_policy.c: the registry, the built-in policies' parameters */
const struct ember_policy_ops *ember_policy_get(const char *name);
const struct ember_policy_ops *ember_policy_get_default(void);
void ember_policy_put(const struct ember_policy_ops *ops);
int ember_policy_space_init(struct ember_va_space *vs,
			    const struct ember_policy_ops *ops, void **pdata);
void ember_policy_space_fini(struct ember_va_space *vs,
			     const struct ember_policy_ops *ops, void *pdata);
int ember_policy_init(void);
void ember_policy_exit(void);

/* ember_main.c: the GPU list, LOCKING: ember_gpus_lock */
extern struct mutex ember_gpus_lock;
extern struct list_head ember_gpus;

#endif /* EMBER_DRV_H */
