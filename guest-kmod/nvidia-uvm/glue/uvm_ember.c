/*******************************************************************************
    Ember glue for nvidia-uvm: see uvm_ember.h for what it does and its lock
    order. SPDX-License-Identifier: GPL-2.0 OR MIT

    The core (ember_policy_ember.c and the files it uses) is hardware-neutral
    and identical to the one ember.ko runs on the Ember testbed's emulated
    GPU; this file is its host in nvidia-uvm: Table 1's module parameters,
    the core's allocator, the views the hooks see and the carrying out of
    what they decide.
*******************************************************************************/

#include "uvm_ember.h"
#include "uvm_api.h"
#include "uvm_global.h"
#include "uvm_gpu.h"
#include "uvm_hal.h"
#include "uvm_hal_types.h"
#include "uvm_kvmalloc.h"
#include "uvm_linux.h"
#include "uvm_pmm_gpu.h"
#include "uvm_va_block.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"
#include "uvm_ember_compat.h"

#include "ember_policy_ember.h"
#include "ember.h"      // include/uapi/ember.h: the counters' names

// ---- Table 1: the same names, defaults and ranges as ember.ko ----

// Names, defaults, ranges and descriptions: ember_adaptive_params.h's
// Table 1 list (the experiments outside the paper are ember.ko's only).
#define UVM_EMBER_PARAM(name, def, min, max, desc)                   \
    module_param_named(name, ember_params.name, uint, S_IRUGO);     \
    MODULE_PARM_DESC(name, EMBER_PARAM_DESC(name, def, min, max, desc));
EMBER_TABLE1_PARAMS(UVM_EMBER_PARAM)
#undef UVM_EMBER_PARAM

static const struct ember_policy_ops *g_uvm_ember_ops = &ember_policy_ember;

// Which clock Ember runs on. 0: the CPU's, its eager reclamation a delayed
// work every perf_eager_eviction_interval_ms. 1: the GPU's (PTIMER, as
// host_hal->get_time() reads it), the reclamation run where nvidia-uvm
// has serviced a fault or notification batch, before it hands the batch
// back, once that clock passed the next interval. A GPU's clock moves only
// with its work, so against a lockstep device (emgpu) every decision then
// falls at the same device instant on every run; on a card, reclamation
// waits for the next batch after each interval.
static bool g_uvm_ember_gpu_clock;
module_param_named(ember_gpu_clock, g_uvm_ember_gpu_clock, bool, S_IRUGO);
MODULE_PARM_DESC(ember_gpu_clock,
                 "1: Ember's clock is the GPU's and its eager reclamation runs after serviced batches "
                 "(deterministic against a lockstep emulated GPU); 0 (default): the CPU's clock and a worker");

// ember_gpu_clock=1: the Ember blocks whose evicted pages wait to be mapped
// back (uvm_ember_defer_eviction_mappings()), in eviction order, each with
// the reference uvm_va_block_evict_chunks() took for its work item. Module
// state as UVM's global queue is: a block's work item is one, whichever GPU
// evicted it.
static struct
{
    spinlock_t lock;
    struct list_head blocks;
} g_uvm_ember_deferred = {
    .lock = __SPIN_LOCK_UNLOCKED(g_uvm_ember_deferred.lock),
    .blocks = LIST_HEAD_INIT(g_uvm_ember_deferred.blocks),
};

// An emulated GPU smaller than the card it stands for (emgpu's profiles):
// its VRAM and the card's, in bytes. With both set, Table 1's periods,
// promotion span and reclamation batch shrink by card / GPU, ember.ko's
// scaling rule (ember_adaptive_scale(), docs/model.md), so that Ember on
// nvidia-uvm runs with ember.ko's values on the same profile. Unset on a
// card: Table 1 as it is.
static unsigned long g_uvm_ember_vram_bytes, g_uvm_ember_full_vram_bytes;
module_param_named(ember_vram_bytes, g_uvm_ember_vram_bytes, ulong, S_IRUGO);
MODULE_PARM_DESC(ember_vram_bytes, "The emulated GPU's VRAM, for the scaling rule (0: none)");
module_param_named(ember_full_vram_bytes, g_uvm_ember_full_vram_bytes, ulong, S_IRUGO);
MODULE_PARM_DESC(ember_full_vram_bytes, "The VRAM of the card it stands for, for the scaling rule (0: none)");

// ---- counters: /sys/module/nvidia_uvm/parameters/ember_stats ----

// What the glue counts, module-wide since load, each where it happens:
// the members of ember.ko's struct ember_stats_counters that have a place
// in nvidia-uvm, then hook_calls.<hook> for every hook of uapi's
// EMBER_POLICY_HOOK_LIST. Only Ember spaces and GPUs count: with
// cpu_preferred_blocks_enable=0 every value stays 0.
#define UVM_EMBER_STATS(X)                                                    \
    X(notifications)        /* notifications of Ember spaces serviced */     \
    X(promotions)           /* blocks a promotion moved pages of */           \
    X(promoted_bytes)       /* bytes those promotions made GPU-resident */    \
    X(promotions_halted)    /* spans the core stopped (high watermark) */     \
    X(evictions)            /* root chunks evicted, on demand and eager */    \
    X(pages_evicted)        /* pages evictions moved off the GPU */           \
    X(eager_evictions)      /* root chunks the eager worker evicted */

enum {
#define UVM_EMBER_STAT_ID(name) UVM_EMBER_STAT_##name,
    UVM_EMBER_STATS(UVM_EMBER_STAT_ID)
#undef UVM_EMBER_STAT_ID
    UVM_EMBER_STAT_HOOK_CALLS,      // hook_calls[enum ember_policy_hook] follow
    UVM_EMBER_STAT_COUNT = UVM_EMBER_STAT_HOOK_CALLS + EMBER_POLICY_HOOKS
};

// Each name is a counter of struct ember_stats_counters.
#define UVM_EMBER_STAT_CHECK(name) \
    static_assert(sizeof(((struct ember_stats_counters *)0)->name) == sizeof(__u64), #name);
UVM_EMBER_STATS(UVM_EMBER_STAT_CHECK)
#undef UVM_EMBER_STAT_CHECK

static const char *const g_uvm_ember_stat_names[UVM_EMBER_STAT_COUNT] = {
#define UVM_EMBER_STAT_NAME(name) [UVM_EMBER_STAT_##name] = #name,
    UVM_EMBER_STATS(UVM_EMBER_STAT_NAME)
#undef UVM_EMBER_STAT_NAME
#define UVM_EMBER_HOOK_NAME(id, member) [UVM_EMBER_STAT_HOOK_CALLS + EMBER_HOOK_##id] = "hook_calls." #member,
    EMBER_POLICY_HOOK_LIST(UVM_EMBER_HOOK_NAME)
#undef UVM_EMBER_HOOK_NAME
};

static atomic64_t g_uvm_ember_stats[UVM_EMBER_STAT_COUNT];

#define ember_stat_add(name, v) atomic64_add((v), &g_uvm_ember_stats[UVM_EMBER_STAT_##name])
#define ember_stat_inc(name) atomic64_inc(&g_uvm_ember_stats[UVM_EMBER_STAT_##name])
#define ember_hook_count(id) atomic64_inc(&g_uvm_ember_stats[UVM_EMBER_STAT_HOOK_CALLS + EMBER_HOOK_##id])

// "NAME VALUE" a line, in the order above (libember's nvidia-uvm back end
// parses it by name).
static int ember_stats_get(char *buffer, const struct kernel_param *kp)
{
    int len = 0;
    size_t i;

    for (i = 0; i < UVM_EMBER_STAT_COUNT; i++)
        len += scnprintf(buffer + len, PAGE_SIZE - len, "%s %llu\n", g_uvm_ember_stat_names[i],
                         (unsigned long long)atomic64_read(&g_uvm_ember_stats[i]));
    return len;
}

static int ember_stats_set(const char *val, const struct kernel_param *kp)
{
    return -EPERM;
}

static const struct kernel_param_ops ember_stats_ops = {
    .set = ember_stats_set,
    .get = ember_stats_get,
};
module_param_cb(ember_stats, &ember_stats_ops, NULL, S_IRUGO);
MODULE_PARM_DESC(ember_stats, "Ember's counters since load, \"NAME VALUE\" a line (read-only)");

NV_STATUS uvm_ember_init(void)
{
    char msg[160];

    // A real card's time is real time: the core's "ms" are ms, unless the
    // GPU stands for a larger card (then ember_adaptive_scale() sets them).
    ember_params.ns_per_ms = NSEC_PER_MSEC;
    if (!g_uvm_ember_vram_bytes != !g_uvm_ember_full_vram_bytes) {
        pr_err("ember_vram_bytes and ember_full_vram_bytes go together\n");
        return NV_ERR_INVALID_ARGUMENT;
    }
    if (g_uvm_ember_vram_bytes) {
        ember_params.ns_per_ms = 0;
        ember_adaptive_scale(&ember_params, g_uvm_ember_vram_bytes, g_uvm_ember_full_vram_bytes);
    }

    if (ember_policy_ember_check(msg, sizeof(msg))) {
        pr_err("Invalid Ember-adaptive parameters: %s\n", msg);
        return NV_ERR_INVALID_ARGUMENT;
    }
    if (ember_policy_ops_check(g_uvm_ember_ops, msg, sizeof(msg))) {
        pr_err("Ember policy %s refused: %s\n", g_uvm_ember_ops->name, msg);
        return NV_ERR_INVALID_STATE;
    }
    if (ember_params.cpu_preferred_blocks_enable && PAGE_SIZE != UVM_PAGE_SIZE_4K) {
        pr_err("cpu_preferred_blocks_enable=1 needs 4K pages (the core's masks are 4K pages)\n");
        return NV_ERR_NOT_SUPPORTED;
    }
    if (ember_params.cpu_preferred_blocks_enable)
        pr_info("Ember-adaptive is the policy of new VA spaces\n");
    return NV_OK;
}

bool uvm_ember_enabled(void)
{
    return ember_params.cpu_preferred_blocks_enable != 0;
}

NvU32 uvm_ember_access_counter_threshold(void)
{
    return ember_params.perf_access_counter_threshold;
}

// The core's allocator (ember_policy.h: provided by each host).
void *ember_policy_zalloc(size_t size)
{
    return uvm_kvmalloc_zero(size);
}

void ember_policy_free(void *p)
{
    uvm_kvfree(p);
}

// ---- state ----

struct uvm_ember_va_space_struct
{
    const struct ember_policy_ops *ops;

    // The core's per-VA-space state, created when the first GPU registers
    // (it is sized for that GPU's memory); NULL before.
    void *pdata;

    // Serialises the core's hooks of this VA space: the replayable fault
    // and access counter bottom halves and the reclamation worker may run
    // at once. Protects pdata's contents.
    spinlock_t lock;
};

// Per VA block, allocated with the block; the core's block_priv follows.
typedef struct
{
    // Pages left a GPU since the block last arrived: its next arrival is a
    // return. Protected by the block lock.
    bool evicted;

    // The GPU and root chunk this block's chunk state was last given to;
    // chunk_index is root chunk index + 1, 0 for none. Block lock.
    uvm_gpu_id_t gpu_id;
    NvU32 chunk_index;

    // The count of the notification whose promotion is moving the block's
    // pages now, 0 otherwise: the chunk's starting demand. Block lock.
    NvU32 promotion_counter;

    // Pages the running promotion made resident on the GPU (counted by the
    // residency hook: a retry may drop the block lock). Block lock.
    NvU32 promoted_pages;

    // ember_gpu_clock=1: on g_uvm_ember_deferred.blocks while the mappings
    // of the block's evicted pages wait for the next serviced batch (empty
    // otherwise), and the block it belongs to. g_uvm_ember_deferred.lock.
    struct list_head deferred_node;
    uvm_va_block_t *deferred_block;

    NvU64 priv[];
} uvm_ember_block_t;

// Per root chunk of a GPU; the core's chunk_priv follows. Valid while the
// root chunk is allocated, unsplit and backs block (checked under
// pmm->list_lock before use, so a freed block is never looked at).
typedef struct
{
    uvm_ember_va_space_t *space;
    uvm_va_block_t *block;
    NvU64 va;
    NvU64 last_used_ns;
    NvU64 priv[];
} uvm_ember_chunk_t;

struct uvm_ember_pmm_struct
{
    uvm_pmm_gpu_t *pmm;

    // Protects chunks[] (headers and the core's chunk state) and the
    // scratch arrays below. Taken after pmm->list_lock.
    spinlock_t lock;

    size_t count;               // root chunks (pmm->root_chunks.count)
    size_t stride;              // bytes per chunks[] entry
    NvU8 *chunks;

    // Scratch for a tick or a victim choice, one entry per root chunk.
    struct ember_policy_chunk *views;
    NvU32 *index;               // views[i] is root chunk index[i]
    NvU32 *victims;

    // Watermarks: UVM's user root chunks allocated from PMA, of total.
    atomic_t used;
    NvU32 total;

    // The eager reclamation worker and, while it evicts, its task (so the
    // residency hook can tell eager from on-demand eviction).
    struct delayed_work reclaim_work;
    struct task_struct *eager_task;

    // ember_gpu_clock=1: the GPU time of the next reclamation pass
    // (uvm_ember_gpu_serviced() moves it with cmpxchg64).
    NvU64 next_pass_ns;
};

static uvm_ember_chunk_t *ember_chunk(uvm_ember_pmm_t *ember, size_t index)
{
    return (uvm_ember_chunk_t *)(ember->chunks + index * ember->stride);
}

// The policy clock of gpu (see ember_gpu_clock).
static NvU64 ember_now_ns(uvm_gpu_t *gpu)
{
    if (g_uvm_ember_gpu_clock)
        return gpu->parent->host_hal->get_time(gpu);
    return NV_GETTIME();
}

static uvm_ember_pmm_t *ember_pmm(uvm_gpu_t *gpu)
{
    return gpu->pmm.ember;
}

// ---- VA spaces ----

NV_STATUS uvm_ember_va_space_create(uvm_va_space_t *va_space)
{
    uvm_ember_va_space_t *space;

    va_space->ember = NULL;
    if (!uvm_ember_enabled())
        return NV_OK;

    space = uvm_kvmalloc_zero(sizeof(*space));
    if (!space)
        return NV_ERR_NO_MEMORY;
    space->ops = g_uvm_ember_ops;
    spin_lock_init(&space->lock);
    va_space->ember = space;

    // The core prefetches: the stock page prefetcher would add pages to its
    // decisions. Ranges the application advises get stock servicing back
    // (uvm_ember_block_is_managed()), the prefetcher included.
    return NV_OK;
}

// Creates the core's state when the first GPU registers.
// LOCKING: the VA space lock in write mode.
NV_STATUS uvm_ember_va_space_gpu_registered(uvm_va_space_t *va_space, uvm_gpu_t *gpu)
{
    uvm_ember_va_space_t *space = va_space->ember;
    struct ember_policy_env env = { 0 };
    uvm_ember_pmm_t *ember = ember_pmm(gpu);

    if (!space || space->pdata || !space->ops->init)
        return NV_OK;

    env.vram_bytes = gpu->mem_info.size;
    env.full_vram_bytes = gpu->mem_info.size;
    env.chunks_total = ember ? ember->total : (NvU32)(gpu->mem_info.size / UVM_CHUNK_SIZE_MAX);
    ember_hook_count(INIT);
    if (space->ops->init(&space->pdata, &env))
        return NV_ERR_NO_MEMORY;
    return NV_OK;
}

void uvm_ember_va_space_destroy(uvm_va_space_t *va_space)
{
    uvm_ember_va_space_t *space = va_space->ember;

    if (!space)
        return;
    // uvm_va_space_destroy() flushes UVM's global queue next, so that no
    // eviction mapping of this space runs after it: held ones go first.
    uvm_ember_schedule_deferred_mappings();
    if (space->pdata && space->ops->fini) {
        ember_hook_count(FINI);
        space->ops->fini(space->pdata);
    }
    uvm_kvfree(space);
    va_space->ember = NULL;
}

bool uvm_ember_va_space_is_ember(uvm_va_space_t *va_space)
{
    return va_space->ember != NULL;
}

NV_STATUS uvm_ember_block_state_alloc(uvm_va_range_t *va_range, void **state)
{
    uvm_ember_va_space_t *space;
    uvm_ember_block_t *block;

    *state = NULL;
    if (!va_range || !va_range->va_space->ember)
        return NV_OK;
    space = va_range->va_space->ember;
    block = uvm_kvmalloc_zero(sizeof(*block) + space->ops->block_priv_size);
    if (!block)
        return NV_ERR_NO_MEMORY;
    INIT_LIST_HEAD(&block->deferred_node);
    *state = block;
    return NV_OK;
}

void uvm_ember_block_state_free(void *state)
{
    uvm_kvfree(state);
}

static bool ember_range_is_managed(uvm_va_range_t *va_range)
{
    return va_range &&
           va_range->type == UVM_VA_RANGE_TYPE_MANAGED &&
           va_range->va_space->ember &&
           va_range->va_space->ember->pdata &&
           !READ_ONCE(va_range->managed.policy.ember_hinted);
}

bool uvm_ember_block_is_managed(uvm_va_block_t *va_block)
{
    return va_block->ember && ember_range_is_managed(va_block->va_range);
}

void uvm_ember_va_range_created(uvm_va_range_t *va_range, struct mm_struct *mm)
{
    uvm_va_space_t *va_space = va_range->va_space;
    uvm_tracker_t tracker = UVM_TRACKER_INIT();
    NV_STATUS status, tracker_status;
    uvm_gpu_t *gpu;

    if (!va_space->ember || va_range->type != UVM_VA_RANGE_TYPE_MANAGED)
        return;

    // Mapped by default: host pages stay on the host and every GPU maps
    // them (with access counting), so they never fault; the core promotes
    // them on the counters' notifications. These are not the
    // application's hints: ember_hinted stays false.
    status = UVM_EMBER_SET_PREFERRED_CPU(va_range, mm, &tracker);
    for_each_va_space_gpu(gpu, va_space) {
        if (status != NV_OK)
            break;
        status = uvm_va_range_set_accessed_by(va_range, gpu->id, mm, &tracker);
    }
    tracker_status = uvm_tracker_wait_deinit(&tracker);
    if (status == NV_OK)
        status = tracker_status;
    if (status != NV_OK)
        UVM_DBG_PRINT_RL("Ember: range [0x%llx, 0x%llx] not mapped by default: %s\n",
                         va_range->node.start, va_range->node.end, nvstatusToString(status));
}

void uvm_ember_mark_hinted(uvm_va_space_t *va_space, NvU64 base, NvU64 length)
{
    uvm_va_range_t *va_range;

    if (!va_space->ember || length == 0)
        return;

    // The advice APIs split ranges at base and base + length; a prefetch
    // does not, and marks the whole allocations it touches. A one-way flag:
    // readers under the VA space lock in read mode see either value.
    uvm_va_space_down_read(va_space);
    uvm_for_each_va_range_in(va_range, va_space, base, base + length - 1) {
        if (va_range->type == UVM_VA_RANGE_TYPE_MANAGED)
            WRITE_ONCE(va_range->managed.policy.ember_hinted, true);
    }
    uvm_va_space_up_read(va_space);
}

// ---- views ----

static void ember_mask_from_uvm(struct ember_page_mask *out, const uvm_page_mask_t *in, size_t pages)
{
    unsigned long page_index;

    ember_mask_zero(out);
    if (!in)
        return;
    for_each_set_bit(page_index, in->bitmap, pages)
        ember_mask_set(out, page_index);
}

static void ember_mask_to_uvm(uvm_page_mask_t *out, const struct ember_page_mask *in, size_t pages)
{
    size_t page_index;

    uvm_page_mask_zero(out);
    for (page_index = 0; page_index < pages; page_index++) {
        if (ember_mask_test(in, page_index))
            uvm_page_mask_set(out, page_index);
    }
}

static const uvm_page_mask_t *ember_gpu_resident(uvm_va_block_t *va_block, uvm_gpu_id_t gpu_id)
{
    uvm_va_block_gpu_state_t *gpu_state = uvm_va_block_gpu_state_get(va_block, gpu_id);

    return gpu_state ? &gpu_state->resident : NULL;
}

static void *ember_block_priv(uvm_va_block_t *va_block)
{
    uvm_ember_block_t *state = va_block->ember;

    return state ? state->priv : NULL;
}

// The core's view of a managed block of an Ember space, for gpu.
// LOCKING: the block lock.
static void ember_block_view(uvm_va_block_t *va_block, uvm_gpu_t *gpu, struct ember_policy_block *view)
{
    uvm_va_range_t *va_range = va_block->va_range;
    const uvm_va_policy_t *policy = uvm_va_range_get_policy(va_range);
    uvm_ember_pmm_t *ember = ember_pmm(gpu);
    size_t pages = uvm_va_block_num_cpu_pages(va_block);

    memset(view, 0, sizeof(*view));
    view->start = va_block->start;
    view->now_ns = ember_now_ns(gpu);
    view->range_start = va_range->node.start;
    view->range_end = va_range->node.end + 1;
    if (UVM_ID_IS_CPU(policy->preferred_location))
        view->preferred = EMBER_LOC_CPU;
    else if (UVM_ID_IS_VALID(policy->preferred_location))
        view->preferred = EMBER_LOC_GPU;
    view->accessed_by_gpu = uvm_processor_mask_test(&policy->accessed_by, gpu->id);
    view->hinted = READ_ONCE(policy->ember_hinted);
    ember_mask_from_uvm(&view->resident_cpu, &va_block->cpu.resident, pages);
    ember_mask_from_uvm(&view->resident_gpu, ember_gpu_resident(va_block, gpu->id), pages);
    if (ember) {
        view->chunks_used = atomic_read(&ember->used);
        view->chunks_total = ember->total;
    }
    view->priv = ember_block_priv(va_block);
}

// ---- faults ----

bool uvm_ember_service_fault_block(uvm_gpu_t *gpu,
                                   uvm_va_block_t *va_block,
                                   uvm_service_block_context_t *service_context)
{
    uvm_ember_va_space_t *space;
    struct ember_policy_block view;
    uvm_processor_id_t id, dest_id;
    uvm_page_mask_t *new_residency;
    uvm_page_index_t page_index;
    size_t pages = uvm_va_block_num_cpu_pages(va_block);
    uvm_page_mask_t faulted_pages, *faulted = &faulted_pages;

    uvm_assert_mutex_locked(&va_block->lock);

    if (!uvm_ember_block_is_managed(va_block) ||
        uvm_processor_mask_empty(&service_context->resident_processors))
        return false;
    space = va_block->va_range->va_space->ember;

    // The pages the stock loop decided to service (permission checks,
    // throttling and duplicates already applied), whatever destination it
    // chose for them.
    uvm_page_mask_zero(faulted);
    for_each_id_in_mask(id, &service_context->resident_processors)
        uvm_page_mask_or(faulted, faulted, &service_context->per_processor_masks[uvm_id_value(id)].new_residency);

    ember_block_view(va_block, gpu, &view);
    ember_mask_from_uvm(&view.faulted, faulted, pages);

    ember_hook_count(FAULT_BLOCK);
    spin_lock(&space->lock);
    space->ops->on_fault_block(space->pdata, &view);
    spin_unlock(&space->lock);

    // The core's migrate mask is a superset of the faulted pages; pages
    // beyond them are its prefetch.
    dest_id = view.dest == EMBER_LOC_GPU ? gpu->id : UVM_ID_CPU;
    new_residency = &service_context->per_processor_masks[uvm_id_value(dest_id)].new_residency;
    ember_mask_to_uvm(new_residency, &view.migrate, pages);
    uvm_page_mask_or(new_residency, new_residency, faulted);
    for_each_va_block_page_in_mask(page_index, new_residency, va_block) {
        if (!uvm_page_mask_test(faulted, page_index))
            service_context->access_type[page_index] = UVM_FAULT_ACCESS_TYPE_PREFETCH;
    }
    uvm_processor_mask_zero(&service_context->resident_processors);
    uvm_processor_mask_set(&service_context->resident_processors, dest_id);
    service_context->read_duplicate_count = 0;
    service_context->region = uvm_va_block_region_from_mask(va_block, new_residency);
    return true;
}

// ---- access counters: the access monitor and span promotion ----

// The core's chunk state for the root chunk backing va_block on gpu, or
// NULL. LOCKING: the block lock and ember->lock.
static void *ember_block_chunk_priv(uvm_ember_pmm_t *ember, uvm_va_block_t *va_block, uvm_gpu_t *gpu)
{
    uvm_ember_block_t *state = va_block->ember;
    uvm_ember_chunk_t *chunk;

    if (!ember || !state || !state->chunk_index || !uvm_id_equal(state->gpu_id, gpu->id))
        return NULL;
    chunk = ember_chunk(ember, state->chunk_index - 1);
    return chunk->block == va_block ? chunk->priv : NULL;
}

// Makes the core's pages of one block resident on gpu and maps them there,
// as the stock access counter servicing does (operation ACCESS_COUNTERS:
// make_resident cause UVM_MAKE_RESIDENT_CAUSE_ACCESS_COUNTER).
// LOCKING: the VA space lock in read mode, the block lock.
static NV_STATUS ember_promote_pages(uvm_gpu_t *gpu,
                                     uvm_va_block_t *va_block,
                                     uvm_va_block_retry_t *va_block_retry,
                                     uvm_service_block_context_t *service_context,
                                     const uvm_page_mask_t *pages)
{
    uvm_page_mask_t *new_residency = &service_context->per_processor_masks[uvm_id_value(gpu->id)].new_residency;
    uvm_page_index_t page_index;

    uvm_processor_mask_zero(&service_context->resident_processors);
    service_context->read_duplicate_count = 0;
    service_context->thrashing_pin_count = 0;

    // Pages that moved meanwhile (a retry dropped the block lock) are left.
    if (!uvm_page_mask_and(new_residency, pages, &va_block->cpu.resident))
        return NV_OK;
    for_each_va_block_page_in_mask(page_index, new_residency, va_block)
        service_context->access_type[page_index] = UVM_FAULT_ACCESS_TYPE_PREFETCH;
    uvm_processor_mask_set(&service_context->resident_processors, gpu->id);
    service_context->region = uvm_va_block_region_from_mask(va_block, new_residency);
    return uvm_va_block_service_locked(gpu->id, va_block, va_block_retry, service_context);
}

// One block of a promotion span. Returns true when the core stops the span.
// LOCKING: the VA space lock in read mode; takes the block lock.
static bool ember_promote_block(uvm_gpu_t *gpu,
                                struct mm_struct *mm,
                                uvm_ember_va_space_t *space,
                                uvm_va_range_t *va_range,
                                NvU64 address,
                                const struct ember_policy_notification *n,
                                uvm_service_block_context_t *service_context)
{
    uvm_va_block_t *va_block = uvm_va_range_block(va_range, uvm_va_range_block_index(va_range, address));
    uvm_page_mask_t request;
    struct ember_policy_block view;
    enum ember_promote verdict;
    uvm_va_block_retry_t va_block_retry;
    NV_STATUS status;

    // A block never touched holds nothing to move.
    if (!va_block)
        return false;

    uvm_mutex_lock(&va_block->lock);
    if (uvm_va_block_is_dead(va_block) || !uvm_ember_block_is_managed(va_block)) {
        uvm_mutex_unlock(&va_block->lock);
        return false;
    }
    ember_block_view(va_block, gpu, &view);

    ember_hook_count(PROMOTE_BLOCK);
    spin_lock(&space->lock);
    verdict = space->ops->promote_block(space->pdata, n, &view);
    spin_unlock(&space->lock);

    if (verdict == EMBER_PROMOTE_GO && view.dest != EMBER_LOC_CPU) {
        uvm_ember_block_t *state = va_block->ember;

        // The request outlives retries: the service context's masks do not.
        ember_mask_to_uvm(&request, &view.migrate, uvm_va_block_num_cpu_pages(va_block));
        service_context->operation = UVM_SERVICE_OPERATION_ACCESS_COUNTERS;
        service_context->num_retries = 0;
        UVM_EMBER_SERVICE_BLOCK_CONTEXT(service_context)->mm = mm;
        state->promotion_counter = n->counter;
        state->promoted_pages = 0;
        status = UVM_VA_BLOCK_RETRY_LOCKED(va_block,
                                           &va_block_retry,
                                           ember_promote_pages(gpu, va_block, &va_block_retry, service_context, &request));
        state->promotion_counter = 0;
        if (state->promoted_pages) {
            ember_stat_inc(promotions);
            ember_stat_add(promoted_bytes, (NvU64)state->promoted_pages * PAGE_SIZE);
        }
        // A failed promotion leaves the pages on the host, mapped; the
        // next notification asks again.
        if (status != NV_OK)
            UVM_DBG_PRINT_RL("Ember promotion of 0x%llx failed: %s\n", va_block->start, nvstatusToString(status));
    }
    uvm_mutex_unlock(&va_block->lock);
    return verdict == EMBER_PROMOTE_STOP;
}

NV_STATUS uvm_ember_service_notification(uvm_gpu_va_space_t *gpu_va_space,
                                         struct mm_struct *mm,
                                         const uvm_access_counter_buffer_entry_t *entry,
                                         uvm_service_block_context_t *service_context)
{
    uvm_va_space_t *va_space = gpu_va_space->va_space;
    uvm_gpu_t *gpu = gpu_va_space->gpu;
    uvm_ember_va_space_t *space = va_space->ember;
    uvm_ember_pmm_t *ember = ember_pmm(gpu);
    NvU64 address = entry->address.address;
    NvU64 block_va = UVM_VA_BLOCK_ALIGN_DOWN(address);
    struct ember_policy_notification n = { 0 };
    struct ember_policy_span span = { 0 };
    struct ember_policy_block view, *blk = NULL;
    uvm_va_range_t *va_range;
    uvm_va_block_t *va_block;
    bool promote, halted;
    NvU64 va;

    uvm_assert_rwsem_locked(&va_space->lock);

    if (space)
        ember_stat_inc(notifications);

    // MIMC: this GPU's accesses to memory outside it, i.e. to the host
    // pages mapped by default.
    if (!space || !space->ops->on_notification || entry->counter_type != UVM_ACCESS_COUNTER_TYPE_MIMC)
        return NV_OK;
    va_range = uvm_va_range_find(va_space, address);
    if (!ember_range_is_managed(va_range))
        return NV_OK;

    n.va = address;
    n.now_ns = ember_now_ns(gpu);
    n.range_start = va_range->node.start;
    n.range_end = va_range->node.end + 1;
    n.sub_mask = entry->sub_granularity;
    n.counter = entry->counter_value;

    // Ask the core with a view of the notified block (none if it holds no
    // pages yet); its chunk state is stable under ember->lock.
    va_block = uvm_va_range_block(va_range, uvm_va_range_block_index(va_range, address));
    if (va_block) {
        uvm_mutex_lock(&va_block->lock);
        if (!uvm_va_block_is_dead(va_block) && va_block->ember) {
            ember_block_view(va_block, gpu, &view);
            blk = &view;
        }
    }
    if (ember)
        spin_lock(&ember->lock);
    if (blk)
        view.chunk_priv = ember_block_chunk_priv(ember, va_block, gpu);
    ember_hook_count(NOTIFICATION);
    spin_lock(&space->lock);
    promote = space->ops->on_notification(space->pdata, &n, blk, &span);
    spin_unlock(&space->lock);
    if (ember)
        spin_unlock(&ember->lock);
    if (va_block)
        uvm_mutex_unlock(&va_block->lock);
    if (!promote || !space->ops->promote_block)
        return NV_OK;

    // The span, block by block, the notified block first, until the core
    // says stop (its high watermark).
    span.start = max(UVM_VA_BLOCK_ALIGN_DOWN(span.start), va_range->node.start);
    span.end = min(UVM_VA_BLOCK_ALIGN_UP(span.end), va_range->node.end + 1);
    va = max(block_va, va_range->node.start);
    halted = va >= span.start && va < span.end &&
             ember_promote_block(gpu, mm, space, va_range, va, &n, service_context);
    for (va = span.start; !halted && va < span.end; va = UVM_VA_BLOCK_ALIGN_DOWN(va) + UVM_VA_BLOCK_SIZE) {
        if (UVM_VA_BLOCK_ALIGN_DOWN(va) != block_va)
            halted = ember_promote_block(gpu, mm, space, va_range, va, &n, service_context);
    }
    if (halted)
        ember_stat_inc(promotions_halted);
    return NV_OK;
}

// ---- arrival and eviction history ----

void uvm_ember_residency_snapshot(uvm_va_block_t *va_block, NvU32 *gpu_pages)
{
    uvm_gpu_id_t gpu_id;

    if (!va_block->ember)
        return;
    for_each_gpu_id(gpu_id) {
        const uvm_page_mask_t *resident = ember_gpu_resident(va_block, gpu_id);

        gpu_pages[uvm_id_gpu_index(gpu_id)] = resident ? uvm_page_mask_weight(resident) : 0;
    }
}

static enum ember_policy_cause ember_cause(uvm_make_resident_cause_t cause, uvm_ember_pmm_t *ember)
{
    switch (cause) {
        case UVM_MAKE_RESIDENT_CAUSE_REPLAYABLE_FAULT:
        case UVM_MAKE_RESIDENT_CAUSE_NON_REPLAYABLE_FAULT:
            return EMBER_POLICY_CAUSE_FAULT;
        case UVM_MAKE_RESIDENT_CAUSE_ACCESS_COUNTER:
            return EMBER_POLICY_CAUSE_PROMOTION;
        case UVM_MAKE_RESIDENT_CAUSE_EVICTION:
            return ember && READ_ONCE(ember->eager_task) == current ? EMBER_POLICY_CAUSE_EAGER :
                                                                      EMBER_POLICY_CAUSE_EVICTION;
        case UVM_MAKE_RESIDENT_CAUSE_API_TOOLS:
        case UVM_MAKE_RESIDENT_CAUSE_API_MIGRATE:
        case UVM_MAKE_RESIDENT_CAUSE_API_SET_RANGE_GROUP:
        case UVM_MAKE_RESIDENT_CAUSE_API_HINT:
            return EMBER_POLICY_CAUSE_PREFETCH;
        default:
            return EMBER_POLICY_CAUSE_CPU;
    }
}

// Gives the root chunk backing the block's first page on gpu to the block:
// its header is (re)set, and its core state zeroed when it changes hands.
// Returns the core's chunk state, or NULL. LOCKING: the block lock, ember->lock.
static void *ember_chunk_take(uvm_ember_pmm_t *ember,
                              uvm_ember_va_space_t *space,
                              uvm_va_block_t *va_block,
                              uvm_gpu_t *gpu,
                              const uvm_page_mask_t *resident,
                              NvU64 now_ns)
{
    uvm_ember_block_t *state = va_block->ember;
    uvm_page_index_t first = find_first_bit(resident->bitmap, uvm_va_block_num_cpu_pages(va_block));
    uvm_gpu_chunk_t *gpu_chunk = uvm_va_block_lookup_gpu_chunk(va_block, gpu, uvm_va_block_cpu_page_address(va_block, first));
    uvm_ember_chunk_t *chunk;
    size_t index;

    if (!gpu_chunk)
        return NULL;
    index = gpu_chunk->address / UVM_CHUNK_SIZE_MAX;
    if (index >= ember->count)
        return NULL;
    chunk = ember_chunk(ember, index);
    if (chunk->block != va_block) {
        memset(chunk, 0, ember->stride);
        chunk->space = space;
        chunk->block = va_block;
        chunk->va = va_block->start;
    }
    chunk->last_used_ns = now_ns;
    state->gpu_id = gpu->id;
    state->chunk_index = index + 1;
    return chunk->priv;
}

// The registered GPU gpu_id, or NULL (it is being unregistered). Runs on the
// eviction path too, which holds no VA space lock: a plain read.
static uvm_gpu_t *ember_space_gpu(uvm_va_space_t *va_space, uvm_gpu_id_t gpu_id)
{
    if (!uvm_processor_mask_test(&va_space->registered_gpus, gpu_id))
        return NULL;
    return va_space->registered_gpus_table[uvm_id_gpu_index(gpu_id)];
}

void uvm_ember_residency_changed(uvm_va_block_t *va_block,
                                 uvm_va_block_context_t *va_block_context,
                                 const NvU32 *gpu_pages)
{
    uvm_ember_block_t *state = va_block->ember;
    uvm_va_space_t *va_space;
    uvm_ember_va_space_t *space;
    uvm_gpu_id_t gpu_id;
    NvU64 now_ns;

    if (!state || !va_block->va_range)
        return;
    va_space = va_block->va_range->va_space;
    space = va_space->ember;
    if (!space || !space->pdata)
        return;

    for_each_gpu_id(gpu_id) {
        const uvm_page_mask_t *resident = ember_gpu_resident(va_block, gpu_id);
        NvU32 before = gpu_pages[uvm_id_gpu_index(gpu_id)];
        NvU32 after = resident ? uvm_page_mask_weight(resident) : 0;
        uvm_gpu_t *gpu = ember_space_gpu(va_space, gpu_id);
        uvm_ember_pmm_t *ember;
        struct ember_policy_residency r = { 0 };

        if (before == after || !gpu)
            continue;
        now_ns = ember_now_ns(gpu);
        ember = ember_pmm(gpu);
        r.va = va_block->start;
        r.now_ns = now_ns;
        r.cause = ember_cause(va_block_context->make_resident.cause, ember);
        r.counter = state->promotion_counter;
        r.block_priv = state->priv;

        if (ember)
            spin_lock(&ember->lock);
        if (after > before) {
            r.pages = after - before;
            if (ember)
                r.chunk_priv = ember_chunk_take(ember, space, va_block, gpu, resident, now_ns);
            if (r.cause == EMBER_POLICY_CAUSE_PROMOTION)
                state->promoted_pages += r.pages;
            spin_lock(&space->lock);
            if (state->evicted && space->ops->on_return) {
                ember_hook_count(RETURN);
                space->ops->on_return(space->pdata, &r);
            }
            if (space->ops->on_arrive) {
                ember_hook_count(ARRIVE);
                space->ops->on_arrive(space->pdata, &r);
            }
            spin_unlock(&space->lock);
            state->evicted = false;
        }
        else {
            r.pages = before - after;
            r.chunk_priv = ember_block_chunk_priv(ember, va_block, gpu);
            if (r.cause == EMBER_POLICY_CAUSE_EVICTION || r.cause == EMBER_POLICY_CAUSE_EAGER)
                ember_stat_add(pages_evicted, r.pages);
            spin_lock(&space->lock);
            if (space->ops->on_evict) {
                ember_hook_count(EVICT);
                space->ops->on_evict(space->pdata, &r);
            }
            spin_unlock(&space->lock);
            state->evicted = true;
        }
        if (ember)
            spin_unlock(&ember->lock);
    }
}

// ---- the PMM: usage, victims, eager reclamation ----

void uvm_ember_pmm_root_chunk_allocated(uvm_pmm_gpu_t *pmm)
{
    if (pmm->ember)
        atomic_inc(&pmm->ember->used);
}

void uvm_ember_pmm_root_chunk_freed(uvm_pmm_gpu_t *pmm)
{
    if (pmm->ember)
        atomic_dec(&pmm->ember->used);
}

void uvm_ember_pmm_root_chunk_evicted(uvm_pmm_gpu_t *pmm)
{
    uvm_ember_pmm_t *ember = pmm->ember;

    uvm_assert_mutex_locked(&pmm->lock);
    if (!ember)
        return;
    ember_stat_inc(evictions);
    if (READ_ONCE(ember->eager_task) == current)
        ember_stat_inc(eager_evictions);
}

// Whether root chunk index still backs the block its header names (the
// root chunk allocated unsplit to it): only then are the header's block
// and space alive. LOCKING: pmm->list_lock.
static bool ember_chunk_valid(uvm_pmm_gpu_t *pmm, uvm_ember_chunk_t *chunk, size_t index)
{
    uvm_gpu_chunk_t *root = &pmm->root_chunks.array[index].chunk;

    return chunk->block &&
           root->state == UVM_PMM_GPU_CHUNK_STATE_ALLOCATED &&
           root->va_block == chunk->block;
}

static void ember_view(uvm_ember_pmm_t *ember, uvm_ember_chunk_t *chunk, size_t index, NvU32 n, bool busy)
{
    uvm_ember_block_t *state = chunk->block->ember;

    ember->views[n] = (struct ember_policy_chunk) {
        .va = chunk->va,
        .last_used_ns = chunk->last_used_ns,
        .priv = chunk->priv,
        .block_priv = state ? state->priv : NULL,
        .busy = busy,
    };
    ember->index[n] = index;
}

uvm_gpu_chunk_t *uvm_ember_pmm_pick_victim(uvm_pmm_gpu_t *pmm)
{
    uvm_ember_pmm_t *ember = pmm->ember;
    uvm_ember_va_space_t *space = NULL;
    uvm_gpu_root_chunk_t *root;
    uvm_gpu_chunk_t *chunk, *victim = NULL;
    NvU32 n = 0, pick;

    uvm_assert_spinlock_locked(&pmm->list_lock);
    if (!ember)
        return NULL;

    // The candidates: the used root chunks backing blocks of the VA space
    // of the least recently used one, oldest first (the stock choice is
    // that head; its space's policy may pick another of its own).
    spin_lock(&ember->lock);
    list_for_each_entry(chunk, &pmm->root_chunks.va_block_used, list) {
        size_t index = chunk->address / UVM_CHUNK_SIZE_MAX;
        uvm_ember_chunk_t *header = ember_chunk(ember, index);

        if (chunk->in_eviction || !ember_chunk_valid(pmm, header, index))
            continue;
        if (!space)
            space = header->space;
        if (header->space != space || !space->pdata)
            continue;
        ember_view(ember, header, index, n++, false);
    }
    if (n && space->ops->pick_victim) {
        ember_hook_count(PICK_VICTIM);
        spin_lock(&space->lock);
        pick = space->ops->pick_victim(space->pdata, ember->views, n,
                                        ember_now_ns(uvm_pmm_to_gpu(pmm)));
        spin_unlock(&space->lock);
        root = &pmm->root_chunks.array[ember->index[pick < n ? pick : 0]];
        victim = &root->chunk;
    }
    spin_unlock(&ember->lock);
    return victim;
}

// A root chunk the worker evicts, and the block it backed when chosen.
typedef struct
{
    NvU32 index;
    uvm_va_block_t *block;
} uvm_ember_victim_t;

// One reclamation pass for the VA space of the chunks whose header names
// space: the core ages them (on_timer_tick) and picks victims. Fills
// victims[] with root chunk indices and returns how many.
// LOCKING: pmm->list_lock, ember->lock.
static NvU32 ember_reclaim_space(uvm_pmm_gpu_t *pmm,
                                 uvm_ember_va_space_t *space,
                                 uvm_ember_victim_t *victims,
                                 NvU64 now_ns)
{
    uvm_ember_pmm_t *ember = pmm->ember;
    struct ember_policy_tick t = { 0 };
    NvU32 n = 0, k = 0, i;
    size_t index;

    for (index = 0; index < ember->count; index++) {
        uvm_ember_chunk_t *header = ember_chunk(ember, index);

        if (header->space != space || !ember_chunk_valid(pmm, header, index))
            continue;
        ember_view(ember, header, index, n++, pmm->root_chunks.array[index].chunk.in_eviction);
    }
    t.now_ns = now_ns;
    t.chunks = ember->views;
    t.n = n;
    t.chunks_used = atomic_read(&ember->used);
    t.chunks_total = ember->total;
    t.victims = ember->victims;

    ember_hook_count(TIMER_TICK);
    spin_lock(&space->lock);
    space->ops->on_timer_tick(space->pdata, &t);
    if (space->ops->pick_eager_victims) {
        ember_hook_count(PICK_EAGER_VICTIMS);
        k = min(space->ops->pick_eager_victims(space->pdata, &t), n);
    }
    spin_unlock(&space->lock);

    for (i = 0; i < k; i++) {
        victims[i].index = ember->index[ember->victims[i] < n ? ember->victims[i] : 0];
        victims[i].block = ember_chunk(ember, victims[i].index)->block;
    }
    return k;
}

#define UVM_EMBER_MAX_SPACES_PER_PASS 16

// One eager reclamation pass over the GPU's root chunks, a tick of each VA
// space's core. Called by the worker every perf_eager_eviction_interval_ms
// of CPU time, or with ember_gpu_clock=1 by uvm_ember_gpu_serviced().
// It never takes a VA space lock: the chunks' headers are checked under
// pmm->list_lock, and eviction goes through the PMM's own path (block
// locks only). The GPU outlives it: uvm_ember_pmm_deinit() cancels the
// worker first, and nvidia-uvm's remove_gpu() disables or flushes the
// bottom halves (the service paths) before deinit_gpu() frees the PMM.
static void ember_reclaim_pass(uvm_ember_pmm_t *ember)
{
    uvm_pmm_gpu_t *pmm = ember->pmm;
    uvm_ember_va_space_t *done[UVM_EMBER_MAX_SPACES_PER_PASS];
    uvm_ember_victim_t *victims;
    NvU32 k = 0, nspaces = 0, i;
    NvU64 now_ns = ember_now_ns(uvm_pmm_to_gpu(pmm));
    size_t index;

    victims = uvm_kvmalloc(ember->count * sizeof(*victims));
    if (!victims)
        return;

    uvm_spin_lock(&pmm->list_lock);
    spin_lock(&ember->lock);
    for (index = 0; index < ember->count && nspaces < ARRAY_SIZE(done); index++) {
        uvm_ember_chunk_t *header = ember_chunk(ember, index);
        uvm_ember_va_space_t *space = header->space;

        if (!ember_chunk_valid(pmm, header, index) || !space->pdata || !space->ops->on_timer_tick)
            continue;
        for (i = 0; i < nspaces && done[i] != space; i++)
            ;
        if (i < nspaces)
            continue;
        done[nspaces++] = space;
        k += ember_reclaim_space(pmm, space, victims + k, now_ns);
    }
    spin_unlock(&ember->lock);
    uvm_spin_unlock(&pmm->list_lock);

    WRITE_ONCE(ember->eager_task, current);
    for (i = 0; i < k; i++)
        (void)uvm_pmm_gpu_evict_root_chunk_index(pmm, victims[i].index, victims[i].block);
    WRITE_ONCE(ember->eager_task, NULL);
    uvm_kvfree(victims);
}

// Table 1's reclamation interval in the core's time unit (scaled or not).
static NvU64 ember_interval_ns(void)
{
    return ember_adaptive_ms_ns(&ember_params, ember_params.perf_eager_eviction_interval_ms);
}

// The worker's period: that interval in jiffies, at least one.
static unsigned long ember_reclaim_delay(void)
{
    return max(nsecs_to_jiffies(ember_interval_ns()), 1ul);
}

static void ember_reclaim_work(struct work_struct *work)
{
    uvm_ember_pmm_t *ember = container_of(to_delayed_work(work), uvm_ember_pmm_t, reclaim_work);

    UVM_ENTRY_VOID(ember_reclaim_pass(ember));
    queue_delayed_work(system_long_wq, &ember->reclaim_work,
                       ember_reclaim_delay());
}

// The eager reclamation pass, if the GPU's clock passed the next interval.
static void ember_reclaim_when_due(uvm_gpu_t *gpu)
{
    uvm_ember_pmm_t *ember = ember_pmm(gpu);
    NvU64 now_ns, next_ns;

    if (!ember || !ember_params.perf_eager_eviction_enable)
        return;
    now_ns = ember_now_ns(gpu);
    next_ns = READ_ONCE(ember->next_pass_ns);
    if (now_ns < next_ns)
        return;
    // The next pass one interval on, counted from this one (a long quiet
    // spell gives one pass, not a burst); of the fault and the notification
    // service, whichever moves it runs the pass.
    if (cmpxchg64(&ember->next_pass_ns, next_ns, now_ns + ember_interval_ns()) != next_ns)
        return;
    ember_reclaim_pass(ember);
}

bool uvm_ember_defer_eviction_mappings(uvm_va_block_t *va_block)
{
    uvm_ember_block_t *state = va_block->ember;
    bool waiting;

    uvm_assert_mutex_locked(&va_block->lock);
    if (!g_uvm_ember_gpu_clock || !state)
        return false;

    spin_lock(&g_uvm_ember_deferred.lock);
    waiting = !list_empty(&state->deferred_node);
    if (!waiting) {
        state->deferred_block = va_block;
        list_add_tail(&state->deferred_node, &g_uvm_ember_deferred.blocks);
    }
    spin_unlock(&g_uvm_ember_deferred.lock);

    // One work item, one reference: a block already waiting keeps its own,
    // and its work item, run later, maps this eviction's pages too.
    if (waiting)
        uvm_va_block_release_no_destroy(va_block);
    return true;
}

void uvm_ember_schedule_deferred_mappings(void)
{
    uvm_ember_block_t *state;
    uvm_va_block_t *va_block;

    for (;;) {
        // Off the list before it is scheduled: an eviction that still finds
        // it waiting leaves its pages to this work item, which runs after.
        spin_lock(&g_uvm_ember_deferred.lock);
        state = list_first_entry_or_null(&g_uvm_ember_deferred.blocks, uvm_ember_block_t, deferred_node);
        if (state)
            list_del_init(&state->deferred_node);
        spin_unlock(&g_uvm_ember_deferred.lock);
        if (!state)
            return;

        va_block = state->deferred_block;
        if (!nv_kthread_q_schedule_q_item(&g_uvm_global.global_q, &va_block->eviction_mappings_q_item))
            uvm_va_block_release(va_block);
    }
}

void uvm_ember_gpu_serviced(uvm_gpu_t *gpu)
{
    if (!g_uvm_ember_gpu_clock)
        return;
    ember_reclaim_when_due(gpu);
    // An eviction (this pass's, or one that made room for the batch) maps
    // the evicted pages back for their accessed-by processors in a work
    // item on UVM's global queue (block_add_eviction_mappings()). Run when
    // that thread is scheduled, it would land after the hand-back on one
    // run and before it on another, or between two promotions of the batch
    // (their copies then go to the copy engines in another order). The
    // glue held those work items back (uvm_ember_defer_eviction_mappings());
    // they go now, in eviction order, and are waited for, as
    // UVM_TEST_FLUSH_DEFERRED_WORK does, so that every mapping falls at the
    // end of the batch. No lock is held that the work items take (see the
    // header).
    uvm_ember_schedule_deferred_mappings();
    nv_kthread_q_flush(&g_uvm_global.global_q);
}

NV_STATUS uvm_ember_pmm_init(uvm_pmm_gpu_t *pmm)
{
    uvm_gpu_t *gpu = uvm_pmm_to_gpu(pmm);
    const struct ember_policy_ops *ops = g_uvm_ember_ops;
    uvm_ember_pmm_t *ember;

    pmm->ember = NULL;
    if (!uvm_ember_enabled() || !UVM_EMBER_GPU_SUPPORTS_EVICTION(gpu))
        return NV_OK;

    ember = uvm_kvmalloc_zero(sizeof(*ember));
    if (!ember)
        return NV_ERR_NO_MEMORY;
    ember->pmm = pmm;
    spin_lock_init(&ember->lock);
    ember->count = pmm->root_chunks.count;
    ember->stride = sizeof(uvm_ember_chunk_t) + ALIGN(ops->chunk_priv_size, sizeof(NvU64));
    ember->total = gpu->mem_info.size ? gpu->mem_info.size / UVM_CHUNK_SIZE_MAX : ember->count;
    ember->chunks = uvm_kvmalloc_zero(ember->count * ember->stride);
    ember->views = uvm_kvmalloc_zero(ember->count * sizeof(*ember->views));
    ember->index = uvm_kvmalloc_zero(ember->count * sizeof(*ember->index));
    ember->victims = uvm_kvmalloc_zero(ember->count * sizeof(*ember->victims));
    atomic_set(&ember->used, 0);
    INIT_DELAYED_WORK(&ember->reclaim_work, ember_reclaim_work);
    pmm->ember = ember;
    if (!ember->chunks || !ember->views || !ember->index || !ember->victims) {
        uvm_ember_pmm_deinit(pmm);
        return NV_ERR_NO_MEMORY;
    }
    ember->next_pass_ns = ember_interval_ns();
    if (ember_params.perf_eager_eviction_enable && !g_uvm_ember_gpu_clock)
        queue_delayed_work(system_long_wq, &ember->reclaim_work,
                           ember_reclaim_delay());
    return NV_OK;
}

void uvm_ember_pmm_deinit(uvm_pmm_gpu_t *pmm)
{
    uvm_ember_pmm_t *ember = pmm->ember;

    if (!ember)
        return;
    cancel_delayed_work_sync(&ember->reclaim_work);
    uvm_kvfree(ember->victims);
    uvm_kvfree(ember->index);
    uvm_kvfree(ember->views);
    uvm_kvfree(ember->chunks);
    uvm_kvfree(ember);
    pmm->ember = NULL;
}
