/*
 * emgpu: an emulated GPU MMU for UVM driver research.
 *
 * A PCI device whose BAR0 exposes the registers of models/include/emgpu_hw.h.
 * All behaviour (page-table walks, TLBs, faults, access counters, copy
 * engines, warps, the virtual clock, fault injection) is libgpumodel's; this
 * file is only the QEMU side: BAR and MSI-X, DMA into guest RAM through
 * QEMU's PCI DMA API (so a vIOMMU applies), QOM properties for stats and
 * fault injection, and trace events.
 *
 * Execution: warps run only inside gm_run(), called from the main loop,
 * never from a thread of our own: from a bottom half after a register
 * write, and a run cut short goes on from a QEMU_CLOCK_REALTIME timer that
 * lets the vCPUs take the big lock first (EMGPU_RUN_YIELD_NS); with
 * driver-cost=measured in the register write that lets it run on, or from
 * a QEMU_CLOCK_VIRTUAL timer (see "Instruction counts" below). In lockstep mode (the
 * default) the model stops at every event that needs the driver (fault
 * batch, notification batch, timer tick, launch completion) and waits for
 * the driver's SYNC, so the same guest program and seed give the same trace
 * hash. With lockstep=off the model keeps running past those events and
 * the driver races it; the big QEMU lock orders MMIO against the bottom
 * half. Either way a bottom half runs at most run-budget modelled accesses
 * before it yields to the main loop.
 *
 * Re-entrancy: the model's DMA goes through the bus-master address space,
 * where emgpu's own BARs are mapped too, so a PTE, a ring base or a launch
 * descriptor pointing at BAR0 would reach the register handlers in the
 * middle of gm_run() or of gm_reg_write(). Guarded twice, the way QEMU
 * guards its own devices (CVE-2023-3019's fixes, in Debian's 7.2 and in
 * QEMU from 8.0):
 *  - the device's MemReentrancyGuard (DeviceState.mem_reentrancy_guard) is
 *    engaged by the memory core while an MMIO handler runs and by the
 *    bottom half (qemu_bh_new_guarded); any access to a region of ours that
 *    finds it engaged fails with MEMTX_ACCESS_ERROR;
 *  - each DMA of the model's is first translated, and one that would land
 *    in a region of ours is refused before it starts, with its own trace
 *    event and guest-error line (emgpu_dma_to_self()).
 * Either way the DMA fails and the model latches EMGPU_ERR_DMA, as for any
 * DMA outside guest RAM; nothing recurses.
 *
 * Personalities (property personality): "emgpu" is the device above, for
 * ember.ko; "ga10x" adds the BAR0 block of models/include/ga10x/regs.h
 * (BAR0 grows to gm_regs_size()), a seventh MSI-X vector for its interrupt
 * leaf, a VRAM window in BAR2 and PCI device id GA10X_PCI_DEVICE_ID, for
 * NVIDIA's nvidia-uvm through the resource-manager stand-in (guest-kmod/emgpu-rm/).
 * What differs between personalities here (PCI device id, BAR0's size and
 * names, the VRAM BAR, the vectors, the poll) is the model's
 * gm_personality_desc(): this file has no branch on which one it is.
 * Its doorbell runs GPFIFO channels inside gm_reg_write(), in the MMIO
 * handler, as emgpu's copy-engine doorbell does; channels blocked on a
 * semaphore acquire that a CPU releases by a plain store are re-examined
 * by a poll (emgpu_poll_bh()). Both run engaged in the same guard. Either
 * doorbell does a bounded amount of work in the write: the rest of a
 * GPFIFO goes on at the polls, the rest of a copy-engine push (GM_CE_WORK)
 * in the model's runs (gm_run() runs one more slice of it, stopping with
 * GM_STOP_BUDGET while some is left, so emgpu_run_bh() runs again).
 *
 * Instruction counts (driver-cost=measured, docs/model.md "Driver CPU
 * time"): the model charges the driver's CPU work as the guest's retired
 * instructions (icount_get_raw()) between the device's own events, so it
 * needs -icount with a fixed shift. The device reports the count at every
 * guest access (an MMIO access ends its translation block under icount, so
 * the count is exact there) and before every model run. The model runs in
 * the register write that lets it run on, and what its budget cuts short,
 * and the GA10x polls, go on QEMU_CLOCK_VIRTUAL timers due at once: under
 * icount the vCPU stops at that instruction and runs them
 * (icount_handle_deadline()). So an interrupt the model raises reaches the
 * guest at the same instruction on every boot, whatever the host's speed;
 * a bottom half would run whenever the main loop got to it. The timers run
 * engaged in the same re-entrancy guard as the bottom halves.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "qemu/timer.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qom/object.h"
#include "sysemu/cpu-timers.h"
#include "sysemu/qtest.h"
#include "trace.h"

#include "emgpu_hw.h"
#include "gpumodel/gpumodel.h"
#include "gpumodel/profile.h"

#define TYPE_EMGPU "emgpu"
OBJECT_DECLARE_SIMPLE_TYPE(EmgpuState, EMGPU)

/* Modelled accesses one bottom-half run may execute before yielding. */
#define EMGPU_RUN_BUDGET_DEFAULT (1u << 20)

/*
 * When not counting instructions the model and the vCPUs share QEMU's big
 * lock by the host's clock: a vCPU needs it for every MMIO under TCG (the
 * HPET's too), and a run holds it. A run scheduled again at once keeps the
 * main loop from ever sleeping (it drops the lock and takes it back at
 * once), and a whole budget holds it for a tenth of a second or more: a
 * driver that services faults with a few hundred register accesses then
 * took minutes, and could not stop a launch that ran on (nvidia-vm-test's
 * user A, whose launch must time out). So a run cut short goes on
 * EMGPU_RUN_YIELD_NS later, the main loop polling with the lock dropped,
 * and the budget of one run shrinks (halves, down to
 * EMGPU_RUN_BUDGET_MIN) while a run lasts more than EMGPU_RUN_SLICE_NS
 * and grows back (doubles, up to run-budget) while it lasts less than a
 * quarter of that. Budgets do not change results.
 */
#define EMGPU_RUN_YIELD_NS (50 * SCALE_US)
#define EMGPU_RUN_SLICE_NS (2 * SCALE_MS)
#define EMGPU_RUN_BUDGET_MIN 4096u

/*
 * Host memory VRAM's lazy backing may take (property vram-backing-max):
 * above every scaled profile the experiments use, far below the full
 * profiles' VRAM (h200: 141 GiB), so a guest that writes all of VRAM gets
 * EMGPU_ERR_VRAM_BACKING instead of the host's memory.
 */
#define EMGPU_VRAM_BACKING_MAX_DEFAULT (8 * GiB)

/*
 * Least value of work-max, the copy work (bytes) one register write or
 * poll does at most (gm_config's work_max; default GM_CE_WORK): one 64 KiB
 * piece. The fuzzer lowers it so that a push of large copies into its
 * sparse memory cannot hold one input for minutes; results do not change.
 */
#define EMGPU_WORK_MAX_MIN (64 * KiB)

/*
 * A personality that polls (its gm_personality_desc()'s polls: GA10x):
 * QEMU_CLOCK_VIRTUAL ns between two polls of the channels blocked on
 * a semaphore acquire. A CPU's release is a plain store the device cannot
 * see, so a blocked channel waits at most this long after it (nvidia-uvm's
 * waits time out after seconds); while a channel is blocked it costs 10,000
 * cheap polls a second of guest time, none at all once nothing is blocked.
 * The virtual clock, not the host's, so that the poll instants follow the
 * guest: under -icount they are a function of the guest's instructions,
 * and a paused VM polls nothing.
 */
#define EMGPU_POLL_NS (100 * SCALE_US)
/*
 * The same while counting instructions (driver-cost=measured): a CPU that
 * spins on a semaphore the blocked channel is to release spins until the
 * poll, and those instructions are charged to the driver; a card sees the
 * release about a microsecond after the store, so the device looks as
 * often (1 ns of the virtual clock is one instruction there, so a poll
 * costs no more than the spin it ends).
 */
#define EMGPU_POLL_COUNTING_NS (1 * SCALE_US)

struct EmgpuState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion vram_bar;      /* the personality's VRAM window, if any */
    QEMUBH *run_bh;
    QEMUBH *poll_bh;            /* if it polls: polls blocked channels */
    QEMUTimer *poll_timer;      /* if it polls: schedules poll_bh */
    /* a run cut short goes on from it: on QEMU_CLOCK_VIRTUAL at once
     * while counting, else on QEMU_CLOCK_REALTIME after EMGPU_RUN_YIELD_NS */
    QEMUTimer *run_timer;
    bool counting;              /* driver-cost=measured: report icount */
    struct gm_gpu *model;
    enum gm_personality personality;
    const struct gm_personality_desc *pers;   /* personality's PCI face */

    /* properties */
    char *personality_name;     /* NULL: "emgpu" */
    char *profile_name;
    uint64_t vram_size;         /* 0: the profile's own size */
    uint64_t seed;
    bool lockstep;
    uint32_t run_budget;
    uint32_t slice_budget;      /* not counting: this run's, <= run_budget */
    uint64_t vram_backing_max;  /* 0: no cap */
    uint64_t work_max;          /* gm_config's work_max */
    char *driver_cost_name;     /* NULL: "assumed" */
    uint32_t cpu_insn_ps;       /* 0: the profile's */
    enum gm_driver_cost driver_cost;

    struct gm_profile profile;
    GPtrArray *inject_specs;    /* armed specs, index == model slot */
};

/*
 * Traces a guest mistake and logs it with LOG_GUEST_ERROR, in one place.
 * Every error the model latches in ERROR_STATUS comes through here
 * (emgpu_error()), the device's own checks included: they latch it through
 * gm_error() and only trace their details (emgpu_err_access_size,
 * emgpu_err_dma), so each guest error is logged exactly once. The one
 * detail also logged is a refused DMA to the device itself
 * (emgpu_err_reentrant), whose reason a plain "dma" error would hide.
 */
#define EMGPU_GUEST_ERR(trace, fmt, ...)                                      \
    do {                                                                      \
        (trace_##trace)(__VA_ARGS__);                                         \
        qemu_log_mask(LOG_GUEST_ERROR, #trace ": " fmt "\n", ##__VA_ARGS__);  \
    } while (0)

/* ---- model callbacks ---- */

/*
 * Whether any part of the DMA [addr, addr + len) lands in a memory region
 * of emgpu's own (BAR0, a personality's VRAM BAR, the MSI-X table and PBA), as the
 * bus-master address space (and a vIOMMU in it) translates it. Such a DMA
 * is refused: it would re-enter the device while it runs (see the header
 * comment). The caller has rejected wrap-around.
 */
static bool emgpu_dma_to_self(EmgpuState *s, const char *dir, uint64_t addr,
                              uint64_t len, bool is_write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    uint64_t at = addr, left = len;
    MemoryRegion *mr;
    hwaddr xlat, l;

    RCU_READ_LOCK_GUARD();
    while (left) {
        l = left;
        mr = address_space_translate(as, at, &xlat, &l, is_write,
                                     MEMTXATTRS_UNSPECIFIED);
        if (memory_region_owner(mr) == OBJECT(s)) {
            EMGPU_GUEST_ERR(emgpu_err_reentrant, "%s addr 0x%" PRIx64
                            " len %" PRIu64 " reaches own region %s at 0x%"
                            PRIx64 ": refused", dir, addr, len,
                            memory_region_name(mr), at);
            return true;
        }
        if (!l || l > left) {
            break;
        }
        at += l;
        left -= l;
    }
    return false;
}

/* A failed DMA: the model latches EMGPU_ERR_DMA (logged there). */
static int emgpu_dma_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
    EmgpuState *s = opaque;
    MemTxResult r;

    if (emgpu_dma_to_self(s, "read", addr, len, false)) {
        return 1;
    }
    r = pci_dma_read(PCI_DEVICE(s), addr, buf, len);

    if (r != MEMTX_OK) {
        trace_emgpu_err_dma("read", addr, len);
    }
    return r != MEMTX_OK;
}

static int emgpu_dma_write(void *opaque, uint64_t addr, const void *buf,
                           uint64_t len)
{
    EmgpuState *s = opaque;
    MemTxResult r;

    if (emgpu_dma_to_self(s, "write", addr, len, true)) {
        return 1;
    }
    r = pci_dma_write(PCI_DEVICE(s), addr, buf, len);

    if (r != MEMTX_OK) {
        trace_emgpu_err_dma("write", addr, len);
    }
    return r != MEMTX_OK;
}

/*
 * Every error the model latches. Poison, hang and a GA10x copy-engine
 * error come from armed fault injections, not from the guest: traced, not
 * logged as guest errors.
 */
static void emgpu_error(void *opaque, enum emgpu_error code, uint32_t info)
{
    EmgpuState *s = opaque;

    if (code == EMGPU_ERR_POISON || code == EMGPU_ERR_HANG || code == EMGPU_ERR_CE) {
        trace_emgpu_err_injected(gm_error_name(code), info);
        return;
    }
    if (code == EMGPU_ERR_VRAM_BACKING) {
        /* the host's limit, not only the guest's mistake: say which knob */
        warn_report_once("emgpu: VRAM backing refused past vram-backing-max="
                         "%" PRIu64 " MiB (or the host had no memory); "
                         "writes to untouched VRAM fail with "
                         "EMGPU_ERR_VRAM_BACKING", s->vram_backing_max / MiB);
    }
    EMGPU_GUEST_ERR(emgpu_err_guest, "%s, ERROR_INFO 0x%" PRIx32,
                    gm_error_name(code), info);
}

static void emgpu_irq(void *opaque, unsigned int vector)
{
    PCIDevice *pdev = PCI_DEVICE(opaque);

    if (vector < EMGPU(opaque)->pers->msix_vectors && msix_enabled(pdev)) {
        trace_emgpu_irq_raise(vector);
        msix_notify(pdev, vector);
    }
}

/* Errors are traced by emgpu_error(), in the error section. */
static void emgpu_event(void *opaque, unsigned int type, uint64_t a,
                        uint64_t b, uint64_t c)
{
    if (type != GM_EV_ERROR) {
        trace_emgpu_event(gm_event_name(type), a, b, c);
    }
}

/* ---- execution ---- */

/* driver-cost=measured: the guest's instructions up to here, to the model */
static void emgpu_count_insns(EmgpuState *s)
{
    if (s->counting) {
        gm_guest_insns(s->model, icount_get_raw());
    }
}

/*
 * A run cut short goes on from the run timer: while counting at this
 * instruction of the guest, else once the main loop has dropped the big
 * lock a while, so that the vCPUs get it between two budgets. Under qtest
 * (the qtests, generic-fuzz) no vCPU waits for it: a bottom half at once,
 * which their flushes of the main loop run.
 */
static void emgpu_run_again(EmgpuState *s)
{
    if (s->counting) {
        timer_mod(s->run_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    } else if (qtest_enabled()) {
        qemu_bh_schedule(s->run_bh);
    } else {
        timer_mod(s->run_timer, qemu_clock_get_ns(QEMU_CLOCK_REALTIME) +
                  EMGPU_RUN_YIELD_NS);
    }
}

static void emgpu_run_bh(void *opaque);

/*
 * After a register write or a poll: the model runs on. While counting it
 * runs here, at this instruction of the guest, already in the re-entrancy
 * guard (an MMIO handler's or the timer's); a kick of the vCPU and a wake-up
 * of the main loop for every write would cost more than the run.
 */
static void emgpu_run_schedule(EmgpuState *s)
{
    if (s->counting) {
        emgpu_run_bh(s);
    } else {
        qemu_bh_schedule(s->run_bh);
    }
}

static void emgpu_run_bh(void *opaque)
{
    EmgpuState *s = opaque;
    enum gm_stop stop;
    uint32_t ce_get, ce_put;
    uint64_t ce_moved;

    emgpu_count_insns(s);
    if (gm_ce_pending(s->model, &ce_get, &ce_put, &ce_moved)) {
        trace_emgpu_ce_push_continued(ce_get, ce_moved, ce_put);
    }
    if (s->counting || qtest_enabled()) {
        stop = gm_run(s->model, s->run_budget);
    } else {
        int64_t t0 = qemu_clock_get_ns(QEMU_CLOCK_REALTIME), took;

        stop = gm_run(s->model, s->slice_budget);
        took = qemu_clock_get_ns(QEMU_CLOCK_REALTIME) - t0;
        if (took > EMGPU_RUN_SLICE_NS && s->slice_budget > EMGPU_RUN_BUDGET_MIN) {
            s->slice_budget = MAX(s->slice_budget / 2, EMGPU_RUN_BUDGET_MIN);
        } else if (took < EMGPU_RUN_SLICE_NS / 4 && s->slice_budget < s->run_budget) {
            s->slice_budget = MIN((uint64_t)s->slice_budget * 2, s->run_budget);
        }
    }

    trace_emgpu_run(gm_stop_name(stop), gm_now_ns(s->model));
    switch (stop) {
    case GM_STOP_BUDGET:
        emgpu_run_again(s);
        break;
    case GM_STOP_FAULT:
    case GM_STOP_NOTIFY:
    case GM_STOP_TIMER:
        /* free-running: the driver services these while warps go on;
         * in lockstep too when the stop waits for no hand-back (GA10x:
         * a timer tick, nothing to read; docs/model.md) */
        if (!s->lockstep ||
            !(gm_reg_read(s->model, EMGPU_REG_SYNC_STATUS) &
              EMGPU_SYNC_WAITING)) {
            emgpu_run_again(s);
        }
        break;
    default:
        /* idle, stalled on replay, done, hung or waiting for SYNC: the
         * next register write schedules us again */
        break;
    }
}

/*
 * A personality that polls (GA10x): a channel blocked on a semaphore
 * acquire waits for a store the device does not see (a CPU's release), so
 * the poll timer re-examines the blocked channels every EMGPU_POLL_NS while
 * the model reports some (gm_poll() counts too the channels a scheduler
 * pass left work to). Any write to the personality's own block arms it (a doorbell or a channel's control
 * may leave a channel blocked); each poll re-arms it while channels stay
 * blocked, and it stops at the first poll that finds none. The timer only
 * schedules this bottom half, which runs engaged in the device's
 * re-entrancy guard as emgpu_run_bh() does: a semaphore the poll reads by
 * DMA cannot re-enter our regions. A poll that releases nothing changes no
 * model state (gm_poll()), so the number of polls, which depends on the
 * virtual clock, never reaches the trace hash; what a release changes is
 * ordered by the guest's store, as any register write's effect is.
 */
static void emgpu_poll_arm(EmgpuState *s)
{
    if (!timer_pending(s->poll_timer)) {
        timer_mod(s->poll_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (s->counting ? EMGPU_POLL_COUNTING_NS : EMGPU_POLL_NS));
    }
}

/*
 * A timer callback run as a guarded bottom half is (aio_bh_call()): a DMA
 * of the model's back into our regions finds the guard engaged and fails.
 */
static void emgpu_guarded(EmgpuState *s, void (*fn)(void *opaque))
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool was = guard->engaged_in_io;

    guard->engaged_in_io = true;
    fn(s);
    guard->engaged_in_io = was;
}

static void emgpu_run_timer(void *opaque)
{
    emgpu_guarded(opaque, emgpu_run_bh);
}

static void emgpu_poll_bh(void *opaque);

static void emgpu_poll_timer(void *opaque)
{
    EmgpuState *s = opaque;

    if (s->counting) {
        emgpu_guarded(s, emgpu_poll_bh);
    } else {
        qemu_bh_schedule(s->poll_bh);
    }
}

static void emgpu_poll_bh(void *opaque)
{
    EmgpuState *s = opaque;
    unsigned int blocked;

    emgpu_count_insns(s);
    blocked = gm_poll(s->model);

    trace_emgpu_poll(blocked, gm_now_ns(s->model));
    if (blocked) {
        emgpu_poll_arm(s);
    }
    /* what a release let the channels do may let the model run on */
    emgpu_run_schedule(s);
}

/* ---- BAR0 ---- */

/*
 * The name of a register of the personality's own block (its desc's
 * reg_name), or NULL for emgpu_hw.h's registers, traced as emgpu_mmio_*.
 */
static const char *emgpu_own_reg_name(EmgpuState *s, hwaddr addr,
                                      char *buf, size_t len)
{
    return s->pers->reg_name ? s->pers->reg_name(addr, buf, len) : NULL;
}

static uint64_t emgpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    EmgpuState *s = opaque;
    const char *own;
    char buf[32];
    uint32_t val;

    if (size != 4 || (addr & 3)) {
        trace_emgpu_err_access_size(addr, size);
        gm_error(s->model, EMGPU_ERR_BAD_REGISTER, addr);
        return 0;
    }
    emgpu_count_insns(s);
    val = gm_reg_read(s->model, addr);
    own = emgpu_own_reg_name(s, addr, buf, sizeof(buf));
    if (own) {
        trace_emgpu_pers_mmio_read(addr, own, val);
    } else {
        trace_emgpu_mmio_read(addr, val);
    }
    return val;
}

static void emgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    EmgpuState *s = opaque;
    const char *own;
    char buf[32];

    if (size != 4 || (addr & 3)) {
        trace_emgpu_err_access_size(addr, size);
        gm_error(s->model, EMGPU_ERR_BAD_REGISTER, addr);
        return;
    }
    emgpu_count_insns(s);
    own = emgpu_own_reg_name(s, addr, buf, sizeof(buf));
    if (own) {
        trace_emgpu_pers_mmio_write(addr, own, val);
        /* a doorbell runs its channel here, in gm_reg_write(), as the
         * copy engine's does; what it leaves blocked waits for the poll */
        gm_reg_write(s->model, addr, val);
        if (s->poll_timer) {
            emgpu_poll_arm(s);
        }
    } else {
        trace_emgpu_mmio_write(addr, val);
        gm_reg_write(s->model, addr, val);
    }
    /* doorbells, replays and SYNC let the model run on */
    emgpu_run_schedule(s);
}

static const MemoryRegionOps emgpu_mmio_ops = {
    .read = emgpu_mmio_read,
    .write = emgpu_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* accept any size so that a bad one reaches the error state */
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

/* ---- the personality's VRAM BAR (GA10x: BAR2), the CPU's window on VRAM ---- */

/*
 * BAR2 maps VRAM from offset 0; its size is a power of two, so with a VRAM
 * size that is not one its tail lies past VRAM. Any size of 1 to 8 bytes
 * at any alignment reads or writes those bytes of VRAM (an access never
 * crosses the end of the BAR: the memory core splits it there). An access
 * past VRAM, or a read of a poisoned chunk, latches its error
 * (EMGPU_ERR_VRAM_RANGE with the BAR offset in ERROR_INFO, or
 * EMGPU_ERR_POISON) and is ignored; reads return 0.
 */
static void emgpu_vram_bar_error(EmgpuState *s, const char *dir, hwaddr addr,
                                 unsigned size, int err)
{
    trace_emgpu_err_vram_bar(dir, addr, size, gm_error_name(-err));
    gm_error(s->model, -err, (uint32_t)addr);
}

static uint64_t emgpu_vram_bar_read(void *opaque, hwaddr addr, unsigned size)
{
    EmgpuState *s = opaque;
    uint8_t buf[8];
    uint64_t val;
    int err;

    emgpu_count_insns(s);
    err = gm_vram_read(s->model, addr, buf, size);
    if (err) {
        emgpu_vram_bar_error(s, "read", addr, size, err);
        return 0;
    }
    val = ldn_le_p(buf, size);
    trace_emgpu_vram_bar_read(addr, size, val);
    return val;
}

static void emgpu_vram_bar_write(void *opaque, hwaddr addr, uint64_t val,
                                 unsigned size)
{
    EmgpuState *s = opaque;
    uint8_t buf[8];
    int err;

    trace_emgpu_vram_bar_write(addr, size, val);
    emgpu_count_insns(s);
    stn_le_p(buf, size, val);
    err = gm_vram_write(s->model, addr, buf, size);
    if (err) {
        emgpu_vram_bar_error(s, "write", addr, size, err);
    }
}

static const MemoryRegionOps emgpu_vram_bar_ops = {
    .read = emgpu_vram_bar_read,
    .write = emgpu_vram_bar_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/* The VRAM BAR's size: VRAM, at most vram_bar_max, rounded up to a power of 2. */
static uint64_t emgpu_vram_bar_size(const EmgpuState *s)
{
    return pow2ceil(MIN(s->profile.vram_bytes, s->pers->vram_bar_max));
}

/* ---- QOM: stats and fault injection ---- */

/* Every counter of struct gm_stats, from the model's one list. */
#define EMGPU_STAT(field) { #field, offsetof(struct gm_stats, field) },

static const struct {
    const char *name;
    size_t offset;
} emgpu_stat_fields[] = {
    GM_STATS(EMGPU_STAT)
};

#undef EMGPU_STAT

/* qom-get emgpu stats: one JSON object of counters and the trace hash. */
static void emgpu_get_stats(Object *obj, Visitor *v, const char *name,
                            void *opaque, Error **errp)
{
    EmgpuState *s = EMGPU(obj);
    struct gm_stats st;
    uint64_t val;
    size_t i;
    bool ok;

    if (!s->model) {
        error_setg(errp, "emgpu: device not realized");
        return;
    }
    gm_get_stats(s->model, &st);
    if (!visit_start_struct(v, name, NULL, 0, errp)) {
        return;
    }
    ok = true;
    for (i = 0; ok && i < ARRAY_SIZE(emgpu_stat_fields); i++) {
        memcpy(&val, (char *)&st + emgpu_stat_fields[i].offset, sizeof(val));
        ok = visit_type_uint64(v, emgpu_stat_fields[i].name, &val, errp);
    }
    if (ok) {
        /* a string: 64-bit hashes overflow many JSON readers' integers */
        g_autofree char *hash = g_strdup_printf("%016" PRIx64,
                                                gm_trace_hash(s->model));

        ok = visit_type_str(v, "trace_hash", &hash, errp);
    }
    if (ok) {
        visit_check_struct(v, errp);
    }
    visit_end_struct(v, NULL);
}

/*
 * qom-get emgpu inject: the armed specs, how often each fired and how
 * often it hit a running launch.
 */
static char *emgpu_get_inject(Object *obj, Error **errp)
{
    EmgpuState *s = EMGPU(obj);
    GString *out = g_string_new("");
    guint i;

    for (i = 0; s->inject_specs && i < s->inject_specs->len; i++) {
        g_string_append_printf(out, "%s%s fired=%" PRIu64
                               " in_launch=%" PRIu64, i ? "; " : "",
                               (char *)g_ptr_array_index(s->inject_specs, i),
                               gm_inject_fired(s->model, i),
                               gm_inject_fired_in_launch(s->model, i));
    }
    return g_string_free(out, false);
}

/*
 * qom-set emgpu inject "<spec>" arms one injection (syntax in
 * gpumodel/gpumodel.h, e.g. "kind=ce-error,trigger=event:100,count=1");
 * "clear" disarms all. A bad spec is refused with the parser's message.
 */
static void emgpu_set_inject(Object *obj, const char *value, Error **errp)
{
    EmgpuState *s = EMGPU(obj);
    char why[256] = "";
    int slot;

    if (!s->model) {
        error_setg(errp, "emgpu: device not realized");
        return;
    }
    if (!strcmp(value, "clear")) {
        gm_inject_clear(s->model);
        g_ptr_array_set_size(s->inject_specs, 0);
        trace_emgpu_inject("clear", 0);
        return;
    }
    slot = gm_inject_add(s->model, value, why, sizeof(why));
    if (slot < 0) {
        error_setg(errp, "emgpu: bad inject spec '%s': %s", value,
                   slot == -ENOSPC ? "all injection slots are armed" : why);
        return;
    }
    g_ptr_array_set_size(s->inject_specs, slot);
    g_ptr_array_add(s->inject_specs, g_strdup(value));
    trace_emgpu_inject(value, slot);
}

/* ---- lifecycle ---- */

/* The model's base profiles (gm_profile_at()), and how to scale one. */
static void emgpu_profile_hint(Error **errp)
{
    g_autoptr(GString) names = g_string_new(NULL);
    const struct gm_profile *p;
    size_t i;

    for (i = 0; (p = gm_profile_at(i)); i++) {
        g_string_append_printf(names, "%s, ", p->name);
    }
    error_append_hint(errp, "Profiles: %soptionally scaled as <name>-<N>m or "
                      "<name>-<N>g (e.g. h200-256m).\n", names->str);
}

/* The personalities gm_personality_name() knows. */
static void emgpu_personality_hint(Error **errp)
{
    g_autoptr(GString) names = g_string_new(NULL);
    const char *name;
    unsigned int i;

    for (i = 0; (name = gm_personality_name(i)); i++) {
        g_string_append_printf(names, "%s%s", i ? ", " : "", name);
    }
    error_append_hint(errp, "Personalities: %s.\n", names->str);
}

/*
 * driver-cost: "assumed" (the default) charges the profile's constants;
 * "measured" the guest's instructions, so it needs QEMU's instruction
 * counter at a fixed shift (-icount shift=N,sleep=off; "auto" would tie
 * the virtual clock, and so the interrupts' instants, to the host's
 * speed). cpu-insn-ps replaces the profile's cost of one instruction.
 */
static bool emgpu_check_cost(EmgpuState *s, Error **errp)
{
    const char *name = s->driver_cost_name ? s->driver_cost_name : "assumed";
    char err[128];

    if (gm_driver_cost_lookup(name, &s->driver_cost)) {
        error_setg(errp, "emgpu: unknown driver-cost '%s'", name);
        error_append_hint(errp, "Valid values: assumed, measured.\n");
        return false;
    }
    if (s->driver_cost == GM_DRIVER_COST_MEASURED && icount_enabled() != 1) {
        error_setg(errp, "emgpu: driver-cost=measured needs QEMU's "
                   "instruction counter at a fixed shift");
        error_append_hint(errp, "Start QEMU with -icount shift=0,sleep=off "
                          "(TCG only).\n");
        return false;
    }
    if (s->cpu_insn_ps) {
        s->profile.cpu_insn_ps = s->cpu_insn_ps;
    }
    if (gm_profile_check(&s->profile, err, sizeof(err))) {
        error_setg(errp, "emgpu: %s (property cpu-insn-ps)", err);
        return false;
    }
    return true;
}

static bool emgpu_check_params(EmgpuState *s, Error **errp)
{
    const char *name = s->profile_name ? s->profile_name : "h200";
    const char *pers = s->personality_name ? s->personality_name : "emgpu";

    if (gm_personality_lookup(pers, &s->personality)) {
        error_setg(errp, "emgpu: unknown personality '%s'", pers);
        emgpu_personality_hint(errp);
        return false;
    }

    if (gm_profile_lookup(name, &s->profile)) {
        error_setg(errp, "emgpu: unknown profile '%s'", name);
        emgpu_profile_hint(errp);
        return false;
    }
    if (s->vram_size &&
        gm_profile_scale(&s->profile, s->vram_size, &s->profile)) {
        error_setg(errp, "emgpu: vram-size %" PRIu64 " is invalid for "
                   "profile '%s'", s->vram_size, name);
        error_append_hint(errp, "It must be a multiple of 2 MiB, at least "
                          "64 MiB and at most the profile's %" PRIu64
                          " MiB.\n", s->profile.vram_bytes / MiB);
        return false;
    }
    if (!s->run_budget) {
        error_setg(errp, "emgpu: run-budget must be at least 1");
        return false;
    }
    s->slice_budget = s->run_budget;
    if (s->work_max < EMGPU_WORK_MAX_MIN) {
        error_setg(errp, "emgpu: work-max %" PRIu64 " is below %u KiB",
                   s->work_max, EMGPU_WORK_MAX_MIN / KiB);
        error_append_hint(errp, "A copy moves in 64 KiB pieces; one "
                          "register write or poll does at most work-max "
                          "bytes of copy work.\n");
        return false;
    }
    if (s->vram_backing_max % (2 * MiB)) {
        error_setg(errp, "emgpu: vram-backing-max %" PRIu64 " is not a "
                   "multiple of 2 MiB", s->vram_backing_max);
        error_append_hint(errp, "VRAM is backed in 2 MiB chunks; 0 means "
                          "no cap.\n");
        return false;
    }
    if (!emgpu_check_cost(s, errp)) {
        return false;
    }
    return true;
}

static void emgpu_reset(DeviceState *dev)
{
    EmgpuState *s = EMGPU(dev);

    if (s->model) {
        gm_reset(s->model);
    }
    if (s->poll_timer) {
        timer_del(s->poll_timer);
    }
    if (s->run_timer) {
        timer_del(s->run_timer);
    }
}

static void emgpu_realize(PCIDevice *pdev, Error **errp)
{
    EmgpuState *s = EMGPU(pdev);
    struct gm_config cfg;
    struct gm_callbacks cb = {
        .opaque = s,
        .dma_read = emgpu_dma_read,
        .dma_write = emgpu_dma_write,
        .irq = emgpu_irq,
        .event = emgpu_event,
        .error = emgpu_error,
    };
    int vec;

    if (!emgpu_check_params(s, errp)) {
        return;
    }
    cfg = (struct gm_config) {
        .profile = s->profile,
        .personality = s->personality,
        .seed = s->seed,
        .lockstep = s->lockstep,
        .vram_backing_max = s->vram_backing_max,
        .work_max = s->work_max,
        .driver_cost = s->driver_cost,
    };
    s->model = gm_create(&cfg, &cb);
    if (!s->model) {
        error_setg(errp, "emgpu: cannot create the GPU model");
        return;
    }
    s->pers = gm_personality_desc(s->personality);
    pci_config_set_device_id(pdev->config, s->pers->pci_device_id);

    /* BAR0: the personality's regs_size */
    memory_region_init_io(&s->mmio, OBJECT(s), &emgpu_mmio_ops, s,
                          "emgpu-regs", gm_regs_size(s->model));
    pci_register_bar(pdev, EMGPU_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);
    if (s->pers->vram_bar) {
        memory_region_init_io(&s->vram_bar, OBJECT(s), &emgpu_vram_bar_ops,
                              s, "emgpu-vram", emgpu_vram_bar_size(s));
        pci_register_bar(pdev, s->pers->vram_bar,
                         PCI_BASE_ADDRESS_SPACE_MEMORY |
                         PCI_BASE_ADDRESS_MEM_TYPE_64 |
                         PCI_BASE_ADDRESS_MEM_PREFETCH, &s->vram_bar);
    }
    if (msix_init_exclusive_bar(pdev, s->pers->msix_vectors, EMGPU_BAR_MSIX,
                                errp)) {
        gm_destroy(s->model);
        s->model = NULL;
        return;
    }
    for (vec = 0; vec < s->pers->msix_vectors; vec++) {
        msix_vector_use(pdev, vec);
    }

    s->inject_specs = g_ptr_array_new_with_free_func(g_free);
    /* runs engaged in I/O: DMA back into our regions fails (see the top) */
    s->run_bh = qemu_bh_new_guarded(emgpu_run_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);
    s->counting = s->driver_cost == GM_DRIVER_COST_MEASURED;
    s->run_timer = timer_new_ns(s->counting ? QEMU_CLOCK_VIRTUAL : QEMU_CLOCK_REALTIME,
                                emgpu_run_timer, s);
    if (s->pers->polls) {
        s->poll_bh = qemu_bh_new_guarded(emgpu_poll_bh, s,
                                         &DEVICE(s)->mem_reentrancy_guard);
        s->poll_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, emgpu_poll_timer, s);
    }
    trace_emgpu_pers_realize(gm_personality_name(s->personality),
                             gm_regs_size(s->model),
                             s->pers->vram_bar ? emgpu_vram_bar_size(s) : 0,
                             s->pers->msix_vectors);

    trace_emgpu_realize(s->profile.name, s->profile.vram_bytes, s->lockstep);
}

static void emgpu_exit(PCIDevice *pdev)
{
    EmgpuState *s = EMGPU(pdev);

    msix_uninit_exclusive_bar(pdev);
    if (s->poll_timer) {
        timer_free(s->poll_timer);
        s->poll_timer = NULL;
    }
    if (s->run_timer) {
        timer_free(s->run_timer);
        s->run_timer = NULL;
    }
    if (s->poll_bh) {
        qemu_bh_delete(s->poll_bh);
        s->poll_bh = NULL;
    }
    if (s->run_bh) {
        qemu_bh_delete(s->run_bh);
        s->run_bh = NULL;
    }
    if (s->inject_specs) {
        g_ptr_array_free(s->inject_specs, true);
        s->inject_specs = NULL;
    }
    gm_destroy(s->model);
    s->model = NULL;
}

static Property emgpu_properties[] = {
    DEFINE_PROP_STRING("personality", EmgpuState, personality_name),
    DEFINE_PROP_STRING("profile", EmgpuState, profile_name),
    DEFINE_PROP_SIZE("vram-size", EmgpuState, vram_size, 0),
    DEFINE_PROP_UINT64("seed", EmgpuState, seed, 0),
    DEFINE_PROP_BOOL("lockstep", EmgpuState, lockstep, true),
    DEFINE_PROP_UINT32("run-budget", EmgpuState, run_budget,
                       EMGPU_RUN_BUDGET_DEFAULT),
    DEFINE_PROP_SIZE("vram-backing-max", EmgpuState, vram_backing_max,
                     EMGPU_VRAM_BACKING_MAX_DEFAULT),
    DEFINE_PROP_SIZE("work-max", EmgpuState, work_max, GM_CE_WORK),
    DEFINE_PROP_STRING("driver-cost", EmgpuState, driver_cost_name),
    DEFINE_PROP_UINT32("cpu-insn-ps", EmgpuState, cpu_insn_ps, 0),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription emgpu_vmstate = {
    .name = TYPE_EMGPU,
    .unmigratable = 1,  /* the model's state is not serialised */
};

static void emgpu_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = emgpu_realize;
    k->exit = emgpu_exit;
    k->vendor_id = EMGPU_PCI_VENDOR_ID;
    k->device_id = EMGPU_PCI_DEVICE_ID;
    k->revision = EMGPU_PCI_REVISION;
    k->class_id = PCI_CLASS_DISPLAY_3D;
    dc->desc = "Emulated GPU MMU for UVM research (emgpu)";
    dc->reset = emgpu_reset;
    dc->vmsd = &emgpu_vmstate;
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
    device_class_set_props(dc, emgpu_properties);

    object_class_property_add(klass, "stats", "EmgpuStats", emgpu_get_stats,
                              NULL, NULL, NULL);
    object_class_property_set_description(klass, "stats",
        "Device counters, simulated time and trace hash (read-only)");
    object_class_property_add_str(klass, "inject", emgpu_get_inject,
                                  emgpu_set_inject);
    object_class_property_set_description(klass, "inject",
        "Arm a fault injection, e.g. 'kind=ce-error,trigger=event:100,"
        "count=1'; 'clear' disarms all");
}

static const TypeInfo emgpu_info = {
    .name = TYPE_EMGPU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(EmgpuState),
    .class_init = emgpu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void emgpu_register_types(void)
{
    type_register_static(&emgpu_info);
}

type_init(emgpu_register_types)
