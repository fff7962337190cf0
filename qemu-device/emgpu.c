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
 * Execution: warps run only inside gm_run(), called from a bottom half of
 * the main loop, never from a thread of our own. In lockstep mode (the
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
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qom/object.h"
#include "trace.h"

#include "emgpu_hw.h"
#include "gpumodel/gpumodel.h"
#include "gpumodel/profile.h"

#define TYPE_EMGPU "emgpu"
OBJECT_DECLARE_SIMPLE_TYPE(EmgpuState, EMGPU)

/* Modelled accesses one bottom-half run may execute before yielding. */
#define EMGPU_RUN_BUDGET_DEFAULT (1u << 20)

struct EmgpuState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    QEMUBH *run_bh;
    struct gm_gpu *model;

    /* properties */
    char *profile_name;
    uint64_t vram_size;         /* 0: the profile's own size */
    uint64_t seed;
    bool lockstep;
    uint32_t run_budget;

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
 * of emgpu's own (BAR0, the MSI-X table and PBA), as the bus-master address
 * space (and a vIOMMU in it) translates it. Such a DMA is refused: it would
 * re-enter the device while it runs (see the header comment). The caller
 * has rejected wrap-around.
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
 * Every error the model latches. Poison and hang come from armed fault
 * injections, not from the guest: traced, not logged as guest errors.
 */
static void emgpu_error(void *opaque, enum emgpu_error code, uint32_t info)
{
    if (code == EMGPU_ERR_POISON || code == EMGPU_ERR_HANG) {
        trace_emgpu_err_injected(gm_error_name(code), info);
        return;
    }
    EMGPU_GUEST_ERR(emgpu_err_guest, "%s, ERROR_INFO 0x%" PRIx32,
                    gm_error_name(code), info);
}

static void emgpu_irq(void *opaque, unsigned int vector)
{
    PCIDevice *pdev = PCI_DEVICE(opaque);

    if (vector < EMGPU_MSIX_VECTORS && msix_enabled(pdev)) {
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

static void emgpu_run_bh(void *opaque)
{
    EmgpuState *s = opaque;
    enum gm_stop stop = gm_run(s->model, s->run_budget);

    trace_emgpu_run(gm_stop_name(stop), gm_now_ns(s->model));
    switch (stop) {
    case GM_STOP_BUDGET:
        qemu_bh_schedule(s->run_bh);
        break;
    case GM_STOP_FAULT:
    case GM_STOP_NOTIFY:
    case GM_STOP_TIMER:
        /* free-running: the driver services these while warps go on */
        if (!s->lockstep) {
            qemu_bh_schedule(s->run_bh);
        }
        break;
    default:
        /* idle, stalled on replay, done, hung or waiting for SYNC: the
         * next register write schedules us again */
        break;
    }
}

/* ---- BAR0 ---- */

static uint64_t emgpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    EmgpuState *s = opaque;
    uint32_t val;

    if (size != 4 || (addr & 3)) {
        trace_emgpu_err_access_size(addr, size);
        gm_error(s->model, EMGPU_ERR_BAD_REGISTER, addr);
        return 0;
    }
    val = gm_reg_read(s->model, addr);
    trace_emgpu_mmio_read(addr, val);
    return val;
}

static void emgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    EmgpuState *s = opaque;

    if (size != 4 || (addr & 3)) {
        trace_emgpu_err_access_size(addr, size);
        gm_error(s->model, EMGPU_ERR_BAD_REGISTER, addr);
        return;
    }
    trace_emgpu_mmio_write(addr, val);
    gm_reg_write(s->model, addr, val);
    /* doorbells, replays and SYNC let the model run on */
    qemu_bh_schedule(s->run_bh);
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

static bool emgpu_check_params(EmgpuState *s, Error **errp)
{
    const char *name = s->profile_name ? s->profile_name : "h200";

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
    return true;
}

static void emgpu_reset(DeviceState *dev)
{
    EmgpuState *s = EMGPU(dev);

    if (s->model) {
        gm_reset(s->model);
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
    memory_region_init_io(&s->mmio, OBJECT(s), &emgpu_mmio_ops, s,
                          "emgpu-regs", EMGPU_REGS_SIZE);
    pci_register_bar(pdev, EMGPU_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);
    if (msix_init_exclusive_bar(pdev, EMGPU_MSIX_VECTORS, EMGPU_BAR_MSIX,
                                errp)) {
        return;
    }
    for (vec = 0; vec < EMGPU_MSIX_VECTORS; vec++) {
        msix_vector_use(pdev, vec);
    }

    cfg = (struct gm_config) {
        .profile = s->profile,
        .seed = s->seed,
        .lockstep = s->lockstep,
    };
    s->model = gm_create(&cfg, &cb);
    if (!s->model) {
        msix_uninit_exclusive_bar(pdev);
        error_setg(errp, "emgpu: cannot create the GPU model");
        return;
    }
    s->inject_specs = g_ptr_array_new_with_free_func(g_free);
    /* runs engaged in I/O: DMA back into our regions fails (see the top) */
    s->run_bh = qemu_bh_new_guarded(emgpu_run_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);

    trace_emgpu_realize(s->profile.name, s->profile.vram_bytes, s->lockstep);
}

static void emgpu_exit(PCIDevice *pdev)
{
    EmgpuState *s = EMGPU(pdev);

    msix_uninit_exclusive_bar(pdev);
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
    DEFINE_PROP_STRING("profile", EmgpuState, profile_name),
    DEFINE_PROP_SIZE("vram-size", EmgpuState, vram_size, 0),
    DEFINE_PROP_UINT64("seed", EmgpuState, seed, 0),
    DEFINE_PROP_BOOL("lockstep", EmgpuState, lockstep, true),
    DEFINE_PROP_UINT32("run-budget", EmgpuState, run_budget,
                       EMGPU_RUN_BUDGET_DEFAULT),
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
