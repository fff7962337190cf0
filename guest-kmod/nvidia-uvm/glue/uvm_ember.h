/*******************************************************************************
    Ember glue: runs the Ember testbed's `ember` policy (Ember-adaptive, the
    hardware-neutral core in ember_policy*.c / ember_adaptive.c, copied in
    unchanged) inside nvidia-uvm. SPDX-License-Identifier: GPL-2.0 OR MIT

    The stock policy stays the default: with cpu_preferred_blocks_enable=0
    (Table 1's master switch) no VA space is an Ember space and none of the
    hooks below changes anything. With it set, every new VA space is an
    Ember space:
      - managed allocations are mapped by default (preferred location CPU,
        accessed-by every registered GPU);
      - the core decides each faulted block (destination and pages), and the
        stock page prefetcher is off for those blocks (the core prefetches);
      - access-counter notifications go to the core, also on 4K-page
        systems, and are always cleared; the span the core asks for is
        promoted block by block through uvm_va_block_service_locked(), until
        the core says stop (its high watermark);
      - evicted pages stay mapped (uvm_va_space_map_remote_on_eviction());
      - pages arriving on / leaving a GPU are reported to the core
        (arrival/eviction history, per-block and per-root-chunk state);
      - the core picks the on-demand eviction victim among the GPU's used
        root chunks, and a per-GPU worker reclaims eagerly every
        perf_eager_eviction_interval_ms without the VA space lock;
      - the watermarks count UVM's own user root chunks allocated from PMA.
    A range the application advised (cudaMemAdvise) or prefetched
    (cudaMemPrefetchAsync) is left to the stock policy from then on.
    What the glue did is counted module-wide since load, read-only in
    /sys/module/nvidia_uvm/parameters/ember_stats ("NAME VALUE" lines, the
    names of ember.ko's struct ember_stats_counters); all 0 with the switch
    off.

    Lock order (see uvm_lock.h for UVM's own): va_block lock, then
    pmm->list_lock, then uvm_ember_pmm_t::lock, then
    uvm_ember_va_space_t::lock. The last two are spinlocks: the core's hooks
    only compute. The list of held eviction mappings has a spinlock of its
    own, taken under the va_block lock and nothing else.
*******************************************************************************/

#ifndef __UVM_EMBER_H__
#define __UVM_EMBER_H__

#include "uvm_forward_decl.h"
#include "uvm_processors.h"
#include "uvm_va_block_types.h"

typedef struct uvm_ember_va_space_struct uvm_ember_va_space_t;
typedef struct uvm_ember_pmm_struct uvm_ember_pmm_t;
struct uvm_access_counter_buffer_entry_struct;
struct uvm_pmm_gpu_struct;     // uvm_pmm_gpu_t, which has no forward declaration

// Checks Table 1's module parameters; a bad set fails the module load.
// Called from uvm_global_init().
NV_STATUS uvm_ember_init(void);

// Whether new VA spaces are Ember spaces (cpu_preferred_blocks_enable=1).
bool uvm_ember_enabled(void);

// VA space lifetime: create picks the policy, destroy runs after every
// range (hence every block) of the VA space is gone.
NV_STATUS uvm_ember_va_space_create(uvm_va_space_t *va_space);
void uvm_ember_va_space_destroy(uvm_va_space_t *va_space);

// A GPU registers with the VA space: the core's state is created for the
// first one. LOCKING: the VA space lock in write mode.
NV_STATUS uvm_ember_va_space_gpu_registered(uvm_va_space_t *va_space, uvm_gpu_t *gpu);

// Whether va_space is an Ember space (its evicted pages stay mapped).
bool uvm_ember_va_space_is_ember(uvm_va_space_t *va_space);

// The access counter threshold of Ember spaces (Table 1).
NvU32 uvm_ember_access_counter_threshold(void);

// Per VA block state (the core's block_priv): allocated before the block
// is, freed with it. *state stays NULL outside Ember spaces.
NV_STATUS uvm_ember_block_state_alloc(uvm_va_range_t *va_range, void **state);
void uvm_ember_block_state_free(void *state);

// Whether the core decides for this block: an Ember space, a managed
// block, a range the application has not advised or prefetched.
bool uvm_ember_block_is_managed(uvm_va_block_t *va_block);

// uvm_mmap(): a new managed allocation in an Ember space is mapped by
// default. LOCKING: the VA space lock in write mode.
// A failure (logged) leaves the range to fault-driven servicing.
void uvm_ember_va_range_created(uvm_va_range_t *va_range, struct mm_struct *mm);

// The application advised or prefetched [base, base + length): Ember
// leaves those ranges alone from now on. LOCKING: none held.
void uvm_ember_mark_hinted(uvm_va_space_t *va_space, NvU64 base, NvU64 length);

// Fault servicing of one block (service_fault_batch_block_locked()), after
// the stock per-page residency selection: the core rewrites the
// destination and the pages of service_context. Returns false when the
// block is not the core's (nothing changed).
// LOCKING: the VA space lock in read mode, the block lock.
bool uvm_ember_service_fault_block(uvm_gpu_t *gpu,
                                   uvm_va_block_t *va_block,
                                   uvm_service_block_context_t *service_context);

// One virtual access-counter notification of an Ember VA space on gpu:
// hands it to the core and carries out the span promotion it asks for.
// The caller clears the counter whatever this returns.
// LOCKING: the VA space lock in read mode; takes block locks.
NV_STATUS uvm_ember_service_notification(uvm_gpu_va_space_t *gpu_va_space,
                                         struct mm_struct *mm,
                                         const struct uvm_access_counter_buffer_entry_struct *entry,
                                         uvm_service_block_context_t *service_context);

// Residency bookkeeping around uvm_va_block_make_resident_finish():
// snapshot counts each GPU's resident pages before, changed reports the
// arrivals and departures to the core. LOCKING: the block lock.
void uvm_ember_residency_snapshot(uvm_va_block_t *va_block, NvU32 *gpu_pages);
void uvm_ember_residency_changed(uvm_va_block_t *va_block,
                                 uvm_va_block_context_t *va_block_context,
                                 const NvU32 *gpu_pages);

// nvidia-uvm has serviced a replayable fault batch or a notification batch
// of gpu and is about to hand it back (replay, next fetch): with
// ember_gpu_clock=1, the eager reclamation pass runs here once the GPU's
// clock passed the next interval, and the mappings of evicted pages (work
// items on UVM's global queue, held by the glue) are scheduled and waited
// for. LOCKING: the batch's ISR
// service lock; no VA space, block or mm lock (the deferred work takes
// them).
void uvm_ember_gpu_serviced(uvm_gpu_t *gpu);

// uvm_va_block_evict_chunks(), after it took a reference on va_block for
// the work item that maps the evicted pages back: with ember_gpu_clock=1
// the glue holds an Ember block's work item (and the reference) until the
// next serviced batch, so that the mappings land at a point the GPU
// reached, not where the queue's thread happened to run. Returns false,
// taking nothing, when the caller should schedule it now.
// LOCKING: the block lock.
bool uvm_ember_defer_eviction_mappings(uvm_va_block_t *va_block);

// Schedules the held work items on UVM's global queue, in eviction order.
// Called before every flush of that queue that must see them: a serviced
// batch, a VA space's destruction, UVM_TEST_FLUSH_DEFERRED_WORK.
// LOCKING: no block lock (a dropped reference may free the block).
void uvm_ember_schedule_deferred_mappings(void);

// Per-GPU state in the PMM: root chunk state, usage, the eager
// reclamation worker.
NV_STATUS uvm_ember_pmm_init(struct uvm_pmm_gpu_struct *pmm);
void uvm_ember_pmm_deinit(struct uvm_pmm_gpu_struct *pmm);

// A user root chunk was allocated from / freed to PMA (the watermarks' usage).
void uvm_ember_pmm_root_chunk_allocated(struct uvm_pmm_gpu_struct *pmm);
void uvm_ember_pmm_root_chunk_freed(struct uvm_pmm_gpu_struct *pmm);

// evict_root_chunk(): every page of a user root chunk has left it (on
// demand, or the eager worker's). Counted only. LOCKING: pmm->lock.
void uvm_ember_pmm_root_chunk_evicted(struct uvm_pmm_gpu_struct *pmm);

// pick_root_chunk_to_evict(), when only used root chunks are left: the
// core's victim among the GPU's root chunks that back one Ember block, or
// NULL to keep the stock choice (the head of va_block_used).
// LOCKING: pmm->list_lock.
uvm_gpu_chunk_t *uvm_ember_pmm_pick_victim(struct uvm_pmm_gpu_struct *pmm);

#endif // __UVM_EMBER_H__
