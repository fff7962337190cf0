/*
 * emgpu: an emulated GPU MMU for UVM driver research.
 *
 * A PCI device whose BAR0 exposes the registers of models/include/emgpu_hw.h
 * and whose behaviour (page-table walks, faults, access counters, copy
 * engines, warps, virtual clock) comes from libgpumodel. This file is only
 * the QEMU side: registers, MSI-X, properties and trace events.
 *
 * Time: PTIMER is the model's virtual clock in ns, independent of QEMU's
 * clocks, so runs are deterministic. It advances only by modelled work; a
 * register read is a non-posted PCIe transaction and costs one interconnect
 * latency of the profile, a posted write costs nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qom/object.h"
#include "trace.h"

#include "emgpu_hw.h"
#include "gpumodel/profile.h"

#define TYPE_EMGPU "emgpu"
OBJECT_DECLARE_SIMPLE_TYPE(EmgpuState, EMGPU)

struct EmgpuState {
    PCIDevice parent_obj;

    MemoryRegion mmio;

    /* properties */
    char *profile_name;
    uint64_t vram_size;         /* 0: the profile's own size */
    uint64_t seed;

    struct gm_profile profile;
    uint64_t sim_ns;            /* virtual clock */
    uint32_t ptimer_hi_latch;

    uint32_t intr_status;
    uint32_t intr_enable;
    uint32_t scratch;

    uint32_t error_status;
    uint32_t error_info;
    uint32_t error_count;
};

/* Traces a guest mistake and logs it with LOG_GUEST_ERROR, in one place. */
#define EMGPU_GUEST_ERR(trace, fmt, ...)                                      \
    do {                                                                      \
        (trace_##trace)(__VA_ARGS__);                                         \
        qemu_log_mask(LOG_GUEST_ERROR, #trace ": " fmt "\n", ##__VA_ARGS__);  \
    } while (0)

static void emgpu_update_irq(EmgpuState *s, uint32_t newly_set)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t fire = newly_set & s->intr_enable;
    int vec;

    for (vec = 0; vec < EMGPU_MSIX_VECTORS; vec++) {
        if ((fire & (1u << vec)) && msix_enabled(pdev)) {
            trace_emgpu_irq_raise(vec);
            msix_notify(pdev, vec);
        }
    }
}

static void emgpu_raise(EmgpuState *s, uint32_t cause)
{
    uint32_t newly_set = cause & ~s->intr_status;

    s->intr_status |= cause;
    emgpu_update_irq(s, newly_set);
}

/* Latches a device error: status, info and the error interrupt. */
static void emgpu_set_error(EmgpuState *s, enum emgpu_error err, uint32_t info)
{
    s->error_count++;
    if (s->error_status == EMGPU_ERR_NONE) {
        s->error_status = err;
        s->error_info = info;
    }
    emgpu_raise(s, EMGPU_INTR_ERROR);
}

static uint64_t emgpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    EmgpuState *s = opaque;
    const struct gm_profile *p = &s->profile;
    uint64_t val = 0;

    if (size != 4) {
        EMGPU_GUEST_ERR(emgpu_err_access_size, "addr=0x%" PRIx64 " size=%u",
                        addr, size);
        emgpu_set_error(s, EMGPU_ERR_BAD_REGISTER, addr);
        return 0;
    }

    s->sim_ns += p->link_latency_ns;

    switch (addr) {
    case EMGPU_REG_ID:
        val = EMGPU_ID_MAGIC;
        break;
    case EMGPU_REG_VERSION:
        val = EMGPU_VERSION;
        break;
    case EMGPU_REG_CAPS:
        val = 0;    /* grows as the model's units are wired in */
        break;
    case EMGPU_REG_PROFILE:
        val = p->id;
        break;
    case EMGPU_REG_VRAM_SIZE_LO:
        val = (uint32_t)p->vram_bytes;
        break;
    case EMGPU_REG_VRAM_SIZE_HI:
        val = p->vram_bytes >> 32;
        break;
    case EMGPU_REG_PTIMER_LO:
        val = (uint32_t)s->sim_ns;
        s->ptimer_hi_latch = s->sim_ns >> 32;
        break;
    case EMGPU_REG_PTIMER_HI:
        val = s->ptimer_hi_latch;
        break;
    case EMGPU_REG_NUM_SMS:
        val = p->num_sms;
        break;
    case EMGPU_REG_WARPS_PER_SM:
        val = p->warps_per_sm;
        break;
    case EMGPU_REG_NUM_GPCS:
        val = p->num_gpcs;
        break;
    case EMGPU_REG_UTLBS_PER_GPC:
        val = p->utlbs_per_gpc;
        break;
    case EMGPU_REG_NUM_ACCESS_COUNTERS:
        val = p->num_access_counters;
        break;
    case EMGPU_REG_NUM_COPY_ENGINES:
        val = p->num_copy_engines;
        break;
    case EMGPU_REG_PAGE_SIZES:
        val = EMGPU_PAGE_SIZE_4K | EMGPU_PAGE_SIZE_2M;
        break;
    case EMGPU_REG_SCRATCH:
        val = s->scratch;
        break;
    case EMGPU_REG_ERROR_STATUS:
        val = s->error_status;
        break;
    case EMGPU_REG_ERROR_INFO:
        val = s->error_info;
        break;
    case EMGPU_REG_ERROR_COUNT:
        val = s->error_count;
        break;
    case EMGPU_REG_INTR_STATUS:
        val = s->intr_status;
        break;
    case EMGPU_REG_INTR_ENABLE:
        val = s->intr_enable;
        break;
    default:
        EMGPU_GUEST_ERR(emgpu_err_read_unknown, "addr=0x%" PRIx64, addr);
        emgpu_set_error(s, EMGPU_ERR_BAD_REGISTER, addr);
        break;
    }

    trace_emgpu_mmio_read(addr, val);
    return val;
}

static void emgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    EmgpuState *s = opaque;
    uint32_t newly_set;

    if (size != 4) {
        EMGPU_GUEST_ERR(emgpu_err_access_size, "addr=0x%" PRIx64 " size=%u",
                        addr, size);
        emgpu_set_error(s, EMGPU_ERR_BAD_REGISTER, addr);
        return;
    }

    trace_emgpu_mmio_write(addr, val);

    switch (addr) {
    case EMGPU_REG_SCRATCH:
        s->scratch = val;
        break;
    case EMGPU_REG_ERROR_CLEAR:
        if (val & 1) {
            s->error_status = EMGPU_ERR_NONE;
            s->error_info = 0;
        }
        break;
    case EMGPU_REG_INTR_STATUS:
        s->intr_status &= ~(val & EMGPU_INTR_ALL);
        break;
    case EMGPU_REG_INTR_SET:
        emgpu_raise(s, val & EMGPU_INTR_ALL);
        break;
    case EMGPU_REG_INTR_ENABLE:
        if (val & ~EMGPU_INTR_ALL) {
            EMGPU_GUEST_ERR(emgpu_err_bad_value, "reg=0x%" PRIx64
                            " val=0x%" PRIx64, addr, val);
            emgpu_set_error(s, EMGPU_ERR_BAD_VALUE, addr);
            break;
        }
        /* causes pending when first enabled fire now, as on hardware */
        newly_set = s->intr_status & val & ~s->intr_enable;
        s->intr_enable = val;
        emgpu_update_irq(s, newly_set);
        break;
    default:
        EMGPU_GUEST_ERR(emgpu_err_write_unknown, "addr=0x%" PRIx64
                        " val=0x%" PRIx64, addr, val);
        emgpu_set_error(s, EMGPU_ERR_BAD_REGISTER, addr);
        break;
    }
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

static bool emgpu_check_params(EmgpuState *s, Error **errp)
{
    const char *name = s->profile_name ? s->profile_name : "h200";

    if (gm_profile_lookup(name, &s->profile)) {
        error_setg(errp, "emgpu: unknown profile '%s'", name);
        error_append_hint(errp, "Profiles: rtx5080, a40, h200, gh200, "
                          "optionally scaled as <name>-<N>m or <name>-<N>g "
                          "(e.g. h200-256m).\n");
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
    return true;
}

static void emgpu_reset(DeviceState *dev)
{
    EmgpuState *s = EMGPU(dev);

    s->sim_ns = 0;
    s->ptimer_hi_latch = 0;
    s->intr_status = 0;
    s->intr_enable = 0;
    s->scratch = 0;
    s->error_status = EMGPU_ERR_NONE;
    s->error_info = 0;
    s->error_count = 0;
}

static void emgpu_realize(PCIDevice *pdev, Error **errp)
{
    EmgpuState *s = EMGPU(pdev);
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

    trace_emgpu_realize(s->profile.name, s->profile.vram_bytes);
}

static void emgpu_exit(PCIDevice *pdev)
{
    msix_uninit_exclusive_bar(pdev);
}

static Property emgpu_properties[] = {
    DEFINE_PROP_STRING("profile", EmgpuState, profile_name),
    DEFINE_PROP_SIZE("vram-size", EmgpuState, vram_size, 0),
    DEFINE_PROP_UINT64("seed", EmgpuState, seed, 0),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription emgpu_vmstate = {
    .name = TYPE_EMGPU,
    .unmigratable = 1,  /* the model's state is not serialised (yet) */
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
