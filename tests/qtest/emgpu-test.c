/*
 * QTest cases for the emgpu device: the registers programmed from the host,
 * with no guest kernel, the way QEMU tests its own devices. Guest RAM is
 * written and read directly (page tables, rings, buffers); the device is
 * reached through libqos PCI accessors on BAR0.
 *
 * Built inside QEMU's tree (scripts/qemu-hook.sh adds it to
 * tests/qtest/meson.build) and run by `make test` with QTEST_QEMU_BINARY.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_ids.h"
#include "hw/pci/pci_regs.h"
#include "qapi/qmp/qdict.h"
#include "qemu/bswap.h"

#include "emgpu_hw.h"
#include "ga10x/access_counter_c365.h"
#include "ga10x/ce_c7b5.h"
#include "ga10x/fault_c369.h"
#include "ga10x/gpfifo.h"
#include "ga10x/host_c56f.h"
#include "ga10x/mmu_v2.h"
#include "ga10x/regs.h"
#include "gh100/mmu_v3.h"
#include "gh100/regs.h"
#include "gpumodel/gpumodel.h"
#include "gpumodel/testlib.h"

#define GPU_SLOT        4
#define GPU_VRAM        (256ull << 20)

/* Guest-physical layout of the test's structures (guest RAM is 256 MiB). */
#define TABLES          0x01000000ull   /* page-table pool, 4 MiB */
#define FAULT_BUF       0x02000000ull
#define AC_BUF          0x02100000ull
#define CE_RING         0x02200000ull
#define SEMAPHORE       0x02300000ull
#define LAUNCH_DESC     0x02400000ull
#define DATA            0x04000000ull   /* 2 MiB aligned */
#define DATA2           0x04800000ull

#define VA              0x0000001000000000ull   /* 64 GiB */
#define RING_ENTRIES    64
#define POLLS           2000

typedef struct Gpu {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar;
    uint64_t bar_size;
    QPCIBar vram;               /* personality=ga10x: BAR2 */
    uint64_t vram_size;
    struct gmt_pt pt;           /* page tables in guest RAM at TABLES */
} Gpu;

static uint32_t rd(Gpu *g, uint32_t reg)
{
    return qpci_io_readl(g->dev, g->bar, reg);
}

static void wr(Gpu *g, uint32_t reg, uint32_t val)
{
    qpci_io_writel(g->dev, g->bar, reg, val);
}

static void wr64(Gpu *g, uint32_t lo, uint32_t hi, uint64_t val)
{
    wr(g, hi, val >> 32);
    wr(g, lo, (uint32_t)val);   /* _LO commits */
}

static uint64_t rd64(Gpu *g, uint32_t lo, uint32_t hi)
{
    uint64_t v = rd(g, lo);     /* _LO latches _HI */

    return v | (uint64_t)rd(g, hi) << 32;
}

static void guest_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
    Gpu *g = opaque;

    qtest_memread(g->qts, addr, buf, len);
}

static void guest_write(void *opaque, uint64_t addr, const void *buf,
                        uint64_t len)
{
    Gpu *g = opaque;

    qtest_memwrite(g->qts, addr, buf, len);
}

/* extra: more -device emgpu options; qemu_extra: more QEMU arguments */
static Gpu *gpu_start_args(const char *extra, const char *qemu_extra)
{
    Gpu *g = g_new0(Gpu, 1);

    /* firmware from Debian's packages, as host-agent/vm.c boots with */
    g->qts = qtest_initf("-M q35 -m 256 -nodefaults "
                         "-L /usr/share/qemu -L /usr/share/seabios %s "
                         "-device emgpu,id=gpu0,addr=%02x.0,"
                         "profile=h200-256m,seed=1%s",
                         qemu_extra ? qemu_extra : "", GPU_SLOT,
                         extra ? extra : "");
    g->bus = qpci_new_pc(g->qts, NULL);
    g->dev = qpci_device_find(g->bus, QPCI_DEVFN(GPU_SLOT, 0));
    g_assert_nonnull(g->dev);
    qpci_device_enable(g->dev);     /* memory decoding and bus mastering */
    g->bar = qpci_iomap(g->dev, EMGPU_BAR_REGS, &g->bar_size);

    g->pt = (struct gmt_pt) {
        .opaque = g, .read = guest_read, .write = guest_write,
        .aperture = EMGPU_APERTURE_SYSMEM,
    };
    gmt_pt_init(&g->pt, TABLES, 4ull << 20);
    wr64(g, EMGPU_REG_PDB_LO, EMGPU_REG_PDB_HI, gmt_pt_pdb(&g->pt));
    return g;
}

static Gpu *gpu_start(const char *extra)
{
    return gpu_start_args(extra, NULL);
}

static void gpu_stop(Gpu *g)
{
    g_free(g->dev);
    qpci_free_pc(g->bus);
    qtest_quit(g->qts);
    g_free(g);
}

/* Maps [va, va + len) to sysmem pa with pages of 1 << shift bytes. */
static void map_sys(Gpu *g, uint64_t va, uint64_t pa, uint64_t len,
                    unsigned shift)
{
    uint64_t off;

    for (off = 0; off < len; off += 1ull << shift) {
        gmt_pt_map(&g->pt, va + off, EMGPU_APERTURE_SYSMEM, pa + off, shift,
                   0);
    }
}

static void fill_words(Gpu *g, uint64_t pa, uint32_t nwords)
{
    g_autofree uint32_t *w = g_new(uint32_t, nwords);
    uint32_t i;

    for (i = 0; i < nwords; i++) {
        w[i] = cpu_to_le32(i * 3);
    }
    qtest_memwrite(g->qts, pa, w, nwords * 4);
}

/* Every word was incremented exactly `passes` times by the stream kernel. */
static void check_streamed(Gpu *g, uint64_t pa, uint32_t nwords,
                           uint32_t passes)
{
    g_autofree uint32_t *w = g_new(uint32_t, nwords);
    uint32_t i;

    qtest_memread(g->qts, pa, w, nwords * 4);
    for (i = 0; i < nwords; i++) {
        g_assert_cmphex(le32_to_cpu(w[i]), ==, i * 3 + passes);
    }
}

static void launch(Gpu *g, uint32_t kernel, uint64_t a0, uint64_t a1,
                   uint64_t a2)
{
    const uint64_t args[] = { a0, a1, a2 };
    struct emgpu_launch_desc d = gmt_launch_desc(kernel, 8, 7, args,
                                                 ARRAY_SIZE(args));

    qtest_memwrite(g->qts, LAUNCH_DESC, &d, sizeof(d));
    wr64(g, EMGPU_REG_LAUNCH_DESC_LO, EMGPU_REG_LAUNCH_DESC_HI, LAUNCH_DESC);
    wr(g, EMGPU_REG_LAUNCH_DOORBELL, 1);
}

/*
 * Lets the device run (each qtest command turns the main loop, where the
 * device's bottom half runs warps) until the launch leaves RUNNING, handing
 * the clock back with SYNC whenever the device waits for the driver.
 */
static uint32_t wait_launch(Gpu *g)
{
    uint32_t status = EMGPU_LAUNCH_RUNNING;
    int i;

    for (i = 0; i < POLLS && status == EMGPU_LAUNCH_RUNNING; i++) {
        if (rd(g, EMGPU_REG_SYNC_STATUS) & EMGPU_SYNC_WAITING) {
            wr(g, EMGPU_REG_SYNC, 1);
        }
        status = rd(g, EMGPU_REG_LAUNCH_STATUS);
    }
    return status;
}

static void enable_fault_buffer(Gpu *g)
{
    wr64(g, EMGPU_REG_FAULT_BUF_LO, EMGPU_REG_FAULT_BUF_HI, FAULT_BUF);
    wr(g, EMGPU_REG_FAULT_BUF_SIZE, RING_ENTRIES);
    wr(g, EMGPU_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
}

static QDict *qom_stats(Gpu *g)
{
    QDict *resp = qtest_qmp(g->qts, "{'execute': 'qom-get', 'arguments': "
                            "{'path': '/machine/peripheral/gpu0', "
                            "'property': 'stats'}}");
    QDict *stats;

    g_assert(qdict_haskey(resp, "return"));
    stats = qdict_get_qdict(resp, "return");
    qobject_ref(stats);
    qobject_unref(resp);
    return stats;
}

static int64_t qom_stat(Gpu *g, const char *name)
{
    QDict *stats = qom_stats(g);
    int64_t v = qdict_get_int(stats, name);

    qobject_unref(stats);
    return v;
}

/* The stats' trace hash (a hex string: JSON readers choke on big u64s). */
static uint64_t qom_trace_hash(Gpu *g)
{
    QDict *resp = qtest_qmp(g->qts, "{'execute': 'qom-get', 'arguments': "
                            "{'path': '/machine/peripheral/gpu0', "
                            "'property': 'stats'}}");
    uint64_t v;

    g_assert(qdict_haskey(resp, "return"));
    v = g_ascii_strtoull(qdict_get_str(qdict_get_qdict(resp, "return"),
                                       "trace_hash"), NULL, 16);
    qobject_unref(resp);
    return v;
}

/* Identification registers and MSI-X, as a driver's probe reads them. */
static void test_probe(void)
{
    Gpu *g = gpu_start(NULL);

    g_assert_cmphex(rd(g, EMGPU_REG_ID), ==, EMGPU_ID_MAGIC);
    g_assert_cmphex(rd(g, EMGPU_REG_VERSION) >> 16, ==, EMGPU_VERSION_MAJOR);
    g_assert_cmpuint(rd(g, EMGPU_REG_PROFILE), ==, EMGPU_PROFILE_H200);
    g_assert_cmpuint(rd64(g, EMGPU_REG_VRAM_SIZE_LO, EMGPU_REG_VRAM_SIZE_HI),
                     ==, GPU_VRAM);
    /*
     * the scaling rule (docs/model.md): h200-256m stands for the
     * paper's 16 GiB card at 1/64, with 256 / 64 access counters
     */
    g_assert_cmpuint(rd64(g, EMGPU_REG_FULL_VRAM_SIZE_LO,
                          EMGPU_REG_FULL_VRAM_SIZE_HI), ==, 16ull << 30);
    g_assert_cmpuint(rd(g, EMGPU_REG_NUM_ACCESS_COUNTERS), ==, 4);
    g_assert_true(rd(g, EMGPU_REG_CAPS) & EMGPU_CAP_REPLAYABLE_FAULTS);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/* The MMU walks tables in guest RAM by DMA, with 4 KiB and 2 MiB pages. */
static void test_walk_4k_and_2m(void)
{
    Gpu *g = gpu_start(NULL);
    const uint32_t words = (2u << 20) / 4;

    map_sys(g, VA, DATA, 64 << 10, EMGPU_PAGE_SHIFT);
    map_sys(g, VA + (2u << 20), DATA2, 2u << 20, EMGPU_HUGE_PAGE_SHIFT);
    fill_words(g, DATA, (64 << 10) / 4);
    fill_words(g, DATA2, words);

    launch(g, EMGPU_KERNEL_STREAM, VA, 64 << 10, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
    check_streamed(g, DATA, (64 << 10) / 4, 1);

    launch(g, EMGPU_KERNEL_STREAM, VA + (2u << 20), 2u << 20, 2);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
    check_streamed(g, DATA2, words, 2);

    g_assert_cmpuint(rd(g, EMGPU_REG_LAUNCH_SEQ), ==, 2);
    g_assert_true(rd(g, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_LAUNCH);
    g_assert_cmpint(qom_stat(g, "faults"), ==, 0);
    g_assert_cmpint(qom_stat(g, "launches"), ==, 2);
    gpu_stop(g);
}

/*
 * A missing page faults: the entry lands in the ring with VALID set, the
 * warps wait, and once the page is mapped a replay lets the kernel finish.
 * Returns the device's trace hash at the end.
 */
static uint64_t run_fault_replay(void)
{
    Gpu *g = gpu_start(NULL);
    struct emgpu_fault_entry e;
    uint32_t info, put = 0;
    uint64_t hash;
    int i;

    enable_fault_buffer(g);
    map_sys(g, VA, DATA, 4096, EMGPU_PAGE_SHIFT);   /* page 1 left unmapped */
    fill_words(g, DATA, 2048);
    launch(g, EMGPU_KERNEL_STREAM, VA, 8192, 1);

    for (i = 0; i < POLLS && !put; i++) {
        put = rd(g, EMGPU_REG_FAULT_BUF_PUT);
    }
    g_assert_cmpuint(put, >, 0);
    g_assert_true(rd(g, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_FAULT);
    qtest_memread(g->qts, FAULT_BUF, &e, sizeof(e));
    info = emgpu_le32_to_cpu(e.info);
    g_assert_true(info & EMGPU_FAULT_INFO_VALID);
    g_assert_cmphex(emgpu_le64_to_cpu(e.addr), ==, VA + 4096);
    g_assert_cmpuint(info & EMGPU_FAULT_INFO_TYPE_MASK, ==, EMGPU_FAULT_PTE);
    g_assert_cmpuint(rd(g, EMGPU_REG_LAUNCH_STATUS), ==, EMGPU_LAUNCH_RUNNING);

    map_sys(g, VA + 4096, DATA + 4096, 4096, EMGPU_PAGE_SHIFT);
    wr(g, EMGPU_REG_FAULT_BUF_GET, put);
    wr(g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_START);
    wr(g, EMGPU_REG_SYNC, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
    check_streamed(g, DATA, 2048, 1);
    g_assert_cmpint(qom_stat(g, "replays"), >=, 1);
    g_assert_cmpint(qom_stat(g, "faults"), >=, 1);

    hash = rd64(g, EMGPU_REG_TRACE_HASH_LO, EMGPU_REG_TRACE_HASH_HI);
    g_assert_cmphex(hash, ==, qom_trace_hash(g));
    gpu_stop(g);
    return hash;
}

static void test_fault_replay(void)
{
    run_fault_replay();
}

/* The same program on a fresh device gives the same trace hash. */
static void test_trace_hash_repeats(void)
{
    g_assert_cmphex(run_fault_replay(), ==, run_fault_replay());
}

/* Cancelling a fault fails the launch; the device stays usable. */
static void test_fault_cancel(void)
{
    Gpu *g = gpu_start(NULL);
    int i;

    enable_fault_buffer(g);
    launch(g, EMGPU_KERNEL_STREAM, VA, 4096, 1);    /* nothing mapped */
    for (i = 0; i < POLLS && !rd(g, EMGPU_REG_FAULT_BUF_PUT); i++) {
    }
    g_assert_cmpuint(rd(g, EMGPU_REG_FAULT_BUF_PUT), >, 0);
    wr(g, EMGPU_REG_FAULT_BUF_GET, rd(g, EMGPU_REG_FAULT_BUF_PUT));
    wr(g, EMGPU_REG_FAULT_REPLAY, EMGPU_REPLAY_CANCEL);
    wr(g, EMGPU_REG_SYNC, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_CANCELLED);
    g_assert_cmpint(qom_stat(g, "cancels"), ==, 1);

    map_sys(g, VA, DATA, 4096, EMGPU_PAGE_SHIFT);
    fill_words(g, DATA, 1024);
    launch(g, EMGPU_KERNEL_STREAM, VA, 4096, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
    check_streamed(g, DATA, 1024, 1);
    gpu_stop(g);
}

/* Accesses to mapped sysmem reach the threshold and write a notification. */
static void test_access_counter_notification(void)
{
    Gpu *g = gpu_start(NULL);
    struct emgpu_notify_entry n;
    const uint32_t threshold = 16;

    wr64(g, EMGPU_REG_AC_BUF_LO, EMGPU_REG_AC_BUF_HI, AC_BUF);
    wr(g, EMGPU_REG_AC_BUF_SIZE, RING_ENTRIES);
    wr(g, EMGPU_REG_AC_CONFIG,
       threshold | EMGPU_AC_GRAN_64K << EMGPU_AC_CONFIG_GRAN_SHIFT);
    wr(g, EMGPU_REG_AC_CTRL, EMGPU_RING_ENABLE);
    map_sys(g, VA, DATA, 64 << 10, EMGPU_PAGE_SHIFT);
    fill_words(g, DATA, (64 << 10) / 4);

    launch(g, EMGPU_KERNEL_STREAM, VA, 64 << 10, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
    g_assert_cmpuint(rd(g, EMGPU_REG_AC_BUF_PUT), >=, 1);
    qtest_memread(g->qts, AC_BUF, &n, sizeof(n));
    g_assert_true(emgpu_le32_to_cpu(n.flags) & EMGPU_NOTIFY_VALID);
    g_assert_cmphex(emgpu_le64_to_cpu(n.addr), ==, VA);
    g_assert_cmpuint(emgpu_le32_to_cpu(n.counter) & EMGPU_NOTIFY_COUNTER_MASK,
                     >=, threshold);
    g_assert_true(rd(g, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_ACCESS_COUNTER);
    g_assert_cmpint(qom_stat(g, "notifications"), >=, 1);
    check_streamed(g, DATA, (64 << 10) / 4, 1);  /* the GPU never stalled */
    gpu_stop(g);
}

static void ce_push(Gpu *g, uint32_t slot, uint32_t op, uint32_t flags,
                    uint64_t src, uint64_t dst, uint32_t len, uint32_t payload)
{
    struct emgpu_ce_desc d = gmt_ce_desc(op, flags, src, dst, len, payload);

    qtest_memwrite(g->qts, CE_RING + slot * sizeof(d), &d, sizeof(d));
}

static void ce_setup(Gpu *g)
{
    wr64(g, EMGPU_REG_CE_RING_LO, EMGPU_REG_CE_RING_HI, CE_RING);
    wr(g, EMGPU_REG_CE_RING_SIZE, RING_ENTRIES);
    wr64(g, EMGPU_REG_CE_SEM_LO, EMGPU_REG_CE_SEM_HI, SEMAPHORE);
}

/* sysmem -> vidmem -> sysmem through the copy engine moves the real bytes. */
static void test_copy_engine_round_trip(void)
{
    Gpu *g = gpu_start(NULL);
    const uint32_t len = 16 << 10;
    g_autofree uint8_t *a = g_malloc(len), *b = g_malloc(len);
    uint32_t i;

    for (i = 0; i < len; i++) {
        a[i] = i * 7 + 1;
    }
    qtest_memwrite(g->qts, DATA, a, len);
    qtest_writel(g->qts, SEMAPHORE, 0);
    ce_setup(g);
    ce_push(g, 0, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
            DATA, 0x100000, len, 0);
    ce_push(g, 1, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_VIDMEM, EMGPU_APERTURE_SYSMEM) |
            EMGPU_CE_SEMAPHORE, 0x100000, DATA2, len, 0x77);
    wr(g, EMGPU_REG_CE_RING_PUT, 2);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);

    g_assert_cmpuint(rd(g, EMGPU_REG_CE_RING_GET), ==, 2);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0x77);
    qtest_memread(g->qts, DATA2, b, len);
    g_assert_cmpmem(a, len, b, len);
    g_assert_cmpint(qom_stat(g, "bytes_h2d"), ==, len);
    g_assert_cmpint(qom_stat(g, "bytes_d2h"), ==, len);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/*
 * A copy-engine push of 65,535 memsets of 128 MiB (8 TiB of work): its
 * doorbell used to run all of it inside the MMIO write, freezing the vCPU,
 * the monitor and QMP for hours. The write returns after one slice
 * (GM_CE_WORK), the device answers at once, the run path goes on with the
 * push (GET moves) with the semaphore not yet released, and reprogramming
 * the ring ends it. A push of a few slices then completes from the run
 * path alone: its bytes, its semaphore and its interrupt, no error.
 */
static void test_copy_engine_push_bounded(void)
{
    const uint32_t entries = EMGPU_RING_MAX_ENTRIES;
    const uint32_t vid = EMGPU_APERTURE_VIDMEM << EMGPU_CE_DST_APERTURE_SHIFT;
    const uint32_t vid2sys = gmt_ce_flags(EMGPU_APERTURE_VIDMEM,
                                          EMGPU_APERTURE_SYSMEM);
    g_autofree struct emgpu_ce_desc *ring =
        g_new(struct emgpu_ce_desc, entries);
    Gpu *g = gpu_start(NULL);
    uint32_t i, get, got[2];

    for (i = 0; i < entries - 1; i++) {
        ring[i] = gmt_ce_desc(EMGPU_CE_OP_MEMSET, i == entries - 2 ?
                              vid | EMGPU_CE_SEMAPHORE : vid, 0x5a5a5a5a, 0,
                              128u << 20, 0x99);
    }
    qtest_bufwrite(g->qts, DATA, ring, entries * sizeof(*ring));
    qtest_writel(g->qts, SEMAPHORE, 0);
    wr64(g, EMGPU_REG_CE_RING_LO, EMGPU_REG_CE_RING_HI, DATA);
    wr(g, EMGPU_REG_CE_RING_SIZE, entries);
    wr64(g, EMGPU_REG_CE_SEM_LO, EMGPU_REG_CE_SEM_HI, SEMAPHORE);
    wr(g, EMGPU_REG_CE_RING_PUT, entries - 1);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);

    g_assert_cmphex(rd(g, EMGPU_REG_ID), ==, EMGPU_ID_MAGIC);
    get = rd(g, EMGPU_REG_CE_RING_GET);
    g_assert_cmpuint(get, <, entries - 1);
    for (i = 0; i < POLLS && rd(g, EMGPU_REG_CE_RING_GET) == get; i++) {
        qtest_clock_step(g->qts, 1000);
    }
    g_assert_cmpuint(rd(g, EMGPU_REG_CE_RING_GET), >, get);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0);
    wr(g, EMGPU_REG_CE_RING_SIZE, RING_ENTRIES);       /* GET = PUT = 0 */
    qtest_clock_step(g->qts, 1000 * 1000);
    g_assert_cmpuint(rd(g, EMGPU_REG_CE_RING_GET), ==, 0);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);

    /* 96 MiB of 0x11, 96 MiB of 0x22, their last words read back */
    wr(g, EMGPU_REG_INTR_STATUS, EMGPU_INTR_ALL);
    ce_setup(g);
    ce_push(g, 0, EMGPU_CE_OP_MEMSET, vid, 0x11111111, 0, 96u << 20, 0);
    ce_push(g, 1, EMGPU_CE_OP_MEMSET, vid, 0x22222222, 96u << 20, 96u << 20,
            0);
    ce_push(g, 2, EMGPU_CE_OP_COPY, vid2sys, (96u << 20) - 4, DATA2, 4, 0);
    ce_push(g, 3, EMGPU_CE_OP_COPY, vid2sys | EMGPU_CE_SEMAPHORE |
            EMGPU_CE_INTERRUPT, (192u << 20) - 4, DATA2 + 4, 4, 0x77);
    wr(g, EMGPU_REG_CE_RING_PUT, 4);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    for (i = 0; i < POLLS && qtest_readl(g->qts, SEMAPHORE) != 0x77; i++) {
        qtest_clock_step(g->qts, 1000);
    }
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0x77);
    g_assert_cmpuint(rd(g, EMGPU_REG_CE_RING_GET), ==, 4);
    qtest_memread(g->qts, DATA2, got, sizeof(got));
    g_assert_cmphex(le32_to_cpu(got[0]), ==, 0x11111111);
    g_assert_cmphex(le32_to_cpu(got[1]), ==, 0x22222222);
    g_assert_true(rd(g, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_COPY);
    g_assert_cmpuint(rd(g, EMGPU_REG_CE_STATUS), ==, 0);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/* Each malformed value reaches the error state; QEMU lives on. */
static void expect_error(Gpu *g, uint32_t err, const char *what)
{
    uint32_t got = rd(g, EMGPU_REG_ERROR_STATUS);

    if (got != err) {
        g_test_message("%s: error %u, expected %u", what, got, err);
    }
    g_assert_cmpuint(got, ==, err);
    g_assert_true(rd(g, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_ERROR);
    wr(g, EMGPU_REG_ERROR_CLEAR, 1);
    wr(g, EMGPU_REG_INTR_STATUS, EMGPU_INTR_ALL);
    g_assert_cmphex(rd(g, EMGPU_REG_ID), ==, EMGPU_ID_MAGIC);
}

static void test_malformed(void)
{
    Gpu *g = gpu_start(NULL);
    uint32_t errors;

    rd(g, 0x3ffc);
    expect_error(g, EMGPU_ERR_BAD_REGISTER, "unknown register read");
    wr(g, 0x3ffc, 1);
    expect_error(g, EMGPU_ERR_BAD_REGISTER, "unknown register write");
    qpci_io_writeb(g->dev, g->bar, EMGPU_REG_SCRATCH, 1);
    expect_error(g, EMGPU_ERR_BAD_REGISTER, "byte-wide access");
    wr(g, EMGPU_REG_FAULT_BUF_PUT, 5);
    expect_error(g, EMGPU_ERR_BAD_REGISTER, "write to read-only PUT");
    wr(g, EMGPU_REG_INTR_ENABLE, 0x80000000);
    expect_error(g, EMGPU_ERR_BAD_VALUE, "unknown interrupt bit");

    wr(g, EMGPU_REG_FAULT_BUF_SIZE, 3);
    expect_error(g, EMGPU_ERR_BAD_RING, "ring size not a power of two");
    wr64(g, EMGPU_REG_FAULT_BUF_LO, EMGPU_REG_FAULT_BUF_HI, FAULT_BUF + 8);
    expect_error(g, EMGPU_ERR_BAD_RING, "misaligned ring base");
    enable_fault_buffer(g);
    wr(g, EMGPU_REG_FAULT_BUF_GET, RING_ENTRIES + 5);
    expect_error(g, EMGPU_ERR_BAD_INDEX, "GET beyond the ring");

    ce_setup(g);
    ce_push(g, 0, EMGPU_CE_OP_COPY, gmt_ce_flags(1, EMGPU_APERTURE_VIDMEM),
            DATA, 0, 4096, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 1);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    expect_error(g, EMGPU_ERR_BAD_DESCRIPTOR, "copy from the peer aperture");
    ce_push(g, 1, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
            DATA, GPU_VRAM - 4096, 8192, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 2);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    expect_error(g, EMGPU_ERR_VRAM_RANGE, "copy past the end of VRAM");
    ce_push(g, 2, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
            1ull << 40, 0, 4096, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 3);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    expect_error(g, EMGPU_ERR_DMA, "copy from outside guest RAM");

    launch(g, 99, 0, 0, 0);
    expect_error(g, EMGPU_ERR_BAD_DESCRIPTOR, "unknown kernel");
    g_assert_cmpuint(rd(g, EMGPU_REG_LAUNCH_STATUS), ==, EMGPU_LAUNCH_ERROR);
    wr64(g, EMGPU_REG_LAUNCH_DESC_LO, EMGPU_REG_LAUNCH_DESC_HI, 1ull << 40);
    wr(g, EMGPU_REG_LAUNCH_DOORBELL, 1);
    expect_error(g, EMGPU_ERR_DMA, "launch descriptor outside guest RAM");

    /* a PDE with reserved bits set fails the walk, and the launch */
    gmt_pt_write(&g->pt, g->pt.root + EMGPU_PTE_SIZE * ((VA >> 39) & 511),
                 gmt_pt_pde(&g->pt, gmt_pt_alloc(&g->pt)) | (1ull << 60));
    launch(g, EMGPU_KERNEL_STREAM, VA, 4096, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_ERROR);
    expect_error(g, EMGPU_ERR_BAD_PTE, "reserved bits in a PDE");

    errors = rd(g, EMGPU_REG_ERROR_COUNT);
    g_assert_cmpuint(errors, >=, 13);
    g_assert_cmpint(qom_stat(g, "errors"), ==, errors);
    gpu_stop(g);
}

/*
 * The stats property lists every counter of the model's GM_STATS list (it
 * once lost 4 of them), with the model's values, and the trace hash.
 */
static void test_stats_complete(void)
{
    static const char *const names[] = {
#define NAME(field) #field,
        GM_STATS(NAME)
#undef NAME
    };
    Gpu *g = gpu_start(NULL);
    QDict *stats;
    size_t i;

    map_sys(g, VA, DATA, 4096, EMGPU_PAGE_SHIFT);
    launch(g, EMGPU_KERNEL_STREAM, VA, 4096, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
    rd(g, 0x3ffc);                              /* one error */

    stats = qom_stats(g);
    g_assert_cmpuint(qdict_size(stats), ==, GM_STATS_COUNT + 1);
    for (i = 0; i < G_N_ELEMENTS(names); i++) {
        if (!qdict_haskey(stats, names[i])) {
            g_test_message("stats lacks %s", names[i]);
        }
        g_assert_true(qdict_haskey(stats, names[i]));
    }
    g_assert_true(qdict_haskey(stats, "trace_hash"));
    g_assert_cmpint(qdict_get_int(stats, "launches"), ==, 1);
    g_assert_cmpint(qdict_get_int(stats, "walks"), >=, 1);
    g_assert_cmpint(qdict_get_int(stats, "tlb_hits"), >=, 1);
    g_assert_cmpint(qdict_get_int(stats, "errors"), ==,
                    rd(g, EMGPU_REG_ERROR_COUNT));
    qobject_unref(stats);
    gpu_stop(g);
}

static unsigned count_lines_with(const char *text, const char *what)
{
    unsigned n = 0;

    for (; (text = strstr(text, what)); text += strlen(what)) {
        n++;
    }
    return n;
}

/*
 * Every error the device latches, whichever part detected it (register
 * decode, access size, ring checks, a descriptor, a DMA), is logged once
 * as a guest error; an injected poison is not the guest's.
 */
static void test_guest_errors_logged(void)
{
    g_autofree char *log = NULL, *text = NULL;
    g_autofree char *args = NULL;
    int fd = g_file_open_tmp("emgpu-log-XXXXXX", &log, NULL);
    uint32_t errors;
    Gpu *g;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    args = g_strdup_printf("-d guest_errors -D %s", log);
    g = gpu_start_args(NULL, args);
    rd(g, 0x3ffc);                                      /* bad-register */
    qpci_io_writeb(g->dev, g->bar, EMGPU_REG_SCRATCH, 1);   /* size */
    wr(g, EMGPU_REG_INTR_ENABLE, 0x80000000);           /* bad-value */
    wr(g, EMGPU_REG_FAULT_BUF_SIZE, 3);                 /* bad-ring */
    ce_setup(g);
    ce_push(g, 0, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
            1ull << 40, 0, 4096, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 1);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);                    /* dma */
    launch(g, 99, 0, 0, 0);                             /* bad-descriptor */
    errors = rd(g, EMGPU_REG_ERROR_COUNT);
    g_assert_cmpuint(errors, ==, 6);
    gpu_stop(g);

    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    g_assert_cmpuint(count_lines_with(text, "emgpu_err_guest: "), ==, errors);
    g_assert_nonnull(strstr(text, "emgpu_err_guest: dma,"));
    g_assert_nonnull(strstr(text, "emgpu_err_guest: bad-descriptor,"));
    g_assert_nonnull(strstr(text, "emgpu_err_guest: bad-register, "
                                  "ERROR_INFO 0x44"));
}

/*
 * DMA to the device's own regions is refused, never re-enters the register
 * handlers: a warp whose PTE points at BAR0 (from the bottom half), a
 * launch descriptor in BAR0 (from the doorbell's MMIO handler) and a copy
 * from the MSI-X table each fail with EMGPU_ERR_DMA, log the refused
 * access, and leave the registers as they were. Unguarded, the stream
 * kernel's loads and stores ran the register handlers in the middle of
 * gm_run().
 */
static void test_dma_to_own_bar(void)
{
    g_autofree char *log = NULL, *text = NULL;
    g_autofree char *args = NULL;
    int fd = g_file_open_tmp("emgpu-log-XXXXXX", &log, NULL);
    QPCIBar msix;
    uint64_t bar;
    Gpu *g;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    args = g_strdup_printf("-d guest_errors -D %s", log);
    g = gpu_start_args(NULL, args);
    bar = g->bar.addr;
    g_assert_false(g->bar.is_io);
    wr(g, EMGPU_REG_SCRATCH, 0x5ca1ab1e);

    /* a warp's load through a PTE whose address is BAR0 */
    map_sys(g, VA, bar, 4096, EMGPU_PAGE_SHIFT);
    launch(g, EMGPU_KERNEL_STREAM, VA, 4096, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_ERROR);
    expect_error(g, EMGPU_ERR_DMA, "warp access to BAR0");
    g_assert_cmphex(rd(g, EMGPU_REG_SCRATCH), ==, 0x5ca1ab1e);

    /* the doorbell's own read of a launch descriptor placed in BAR0 */
    wr64(g, EMGPU_REG_LAUNCH_DESC_LO, EMGPU_REG_LAUNCH_DESC_HI, bar);
    wr(g, EMGPU_REG_LAUNCH_DOORBELL, 1);
    expect_error(g, EMGPU_ERR_DMA, "launch descriptor in BAR0");

    /* a copy-engine read of the MSI-X table (BAR4) */
    msix = qpci_iomap(g->dev, EMGPU_BAR_MSIX, NULL);
    ce_setup(g);
    ce_push(g, 0, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
            msix.addr, 0, 64, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 1);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    expect_error(g, EMGPU_ERR_DMA, "copy from the MSI-X table");

    /* the device is still usable */
    map_sys(g, VA + (2u << 20), DATA, 4096, EMGPU_PAGE_SHIFT);
    fill_words(g, DATA, 1024);
    launch(g, EMGPU_KERNEL_STREAM, VA + (2u << 20), 4096, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
    check_streamed(g, DATA, 1024, 1);
    g_assert_cmphex(rd(g, EMGPU_REG_SCRATCH), ==, 0x5ca1ab1e);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);

    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    g_assert_cmpuint(count_lines_with(text, "emgpu_err_reentrant: read "),
                     >=, 3);
    g_assert_cmpuint(count_lines_with(text, "reaches own region emgpu-regs"),
                     >=, 2);
    g_assert_cmpuint(count_lines_with(text, "reaches own region msix-table"),
                     ==, 1);
    g_assert_cmpuint(count_lines_with(text, "emgpu_err_guest: dma,"), ==, 3);
}

/* qom-set inject: a good spec is armed, a bad one refused with a reason. */
static void test_inject_property(void)
{
    Gpu *g = gpu_start(NULL);
    QDict *resp;

    resp = qtest_qmp(g->qts, "{'execute': 'qom-set', 'arguments': "
                     "{'path': '/machine/peripheral/gpu0', 'property': 'inject', "
                     "'value': 'kind=nonsense'}}");
    g_assert_true(qdict_haskey(resp, "error"));
    g_assert_nonnull(strstr(qdict_get_str(qdict_get_qdict(resp, "error"),
                                          "desc"), "kind=nonsense"));
    qobject_unref(resp);

    resp = qtest_qmp(g->qts, "{'execute': 'qom-set', 'arguments': "
                     "{'path': '/machine/peripheral/gpu0', 'property': 'inject', "
                     "'value': 'kind=ce-error,count=1'}}");
    g_assert_true(qdict_haskey(resp, "return"));
    qobject_unref(resp);

    ce_setup(g);
    ce_push(g, 0, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
            DATA, 0, 4096, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 1);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    g_assert_true(rd(g, EMGPU_REG_CE_STATUS) & EMGPU_CE_STATUS_ERROR);
    g_assert_cmpint(qom_stat(g, "injections_fired"), ==, 1);
    gpu_stop(g);
}

/* ---- personality=ga10x ---- */

/*
 * The GA10x personality with `vram` of VRAM (BAR2 then spans it, rounded up
 * to a power of two; libqos's 512 MiB MMIO window takes BAR0 and a BAR2 of
 * up to 256 MiB, but BIOS and APICs lie in its top 64 MiB), its BAR2 mapped.
 */
static Gpu *pers_start_args(const char *pers, const char *vram,
                            const char *qemu_extra)
{
    g_autofree char *extra = g_strdup_printf(",personality=%s,"
                                             "vram-size=%s", pers, vram);
    Gpu *g = gpu_start_args(extra, qemu_extra);

    g->vram = qpci_iomap(g->dev, GA10X_BAR_VRAM, &g->vram_size);
    return g;
}

static Gpu *ga10x_start_args(const char *vram, const char *qemu_extra)
{
    return pers_start_args("ga10x", vram, qemu_extra);
}

static Gpu *ga10x_start(void)
{
    return ga10x_start_args("64m", NULL);
}

/* The MSI-X table size of the device's capability. */
static unsigned msix_vectors(Gpu *g)
{
    uint8_t cap = qpci_find_capability(g->dev, PCI_CAP_ID_MSIX, 0);

    g_assert_cmpuint(cap, !=, 0);
    return (qpci_config_readw(g->dev, cap + PCI_MSIX_FLAGS) &
            PCI_MSIX_FLAGS_QSIZE) + 1;
}

/* The error latched since the last call, with its ERROR_INFO; then clears. */
static void expect_error_info(Gpu *g, uint32_t err, uint32_t info,
                              const char *what)
{
    g_assert_cmphex(rd(g, EMGPU_REG_ERROR_INFO), ==, info);
    expect_error(g, err, what);
}

/* Identity: PCI ids, BAR sizes and kinds, MSI-X vectors; emgpu's block stays. */
static void test_ga10x_identity(void)
{
    Gpu *g = ga10x_start();
    uint32_t bar2;

    g_assert_cmphex(qpci_config_readw(g->dev, PCI_VENDOR_ID), ==,
                    EMGPU_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(g->dev, PCI_DEVICE_ID), ==,
                    GA10X_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(g->dev, PCI_CLASS_DEVICE), ==,
                    PCI_CLASS_DISPLAY_3D);
    g_assert_cmphex(g->bar_size, ==, GA10X_REGS_SIZE);
    g_assert_cmphex(g->vram_size, ==, 64ull << 20);
    bar2 = qpci_config_readl(g->dev, PCI_BASE_ADDRESS_0 + 4 * GA10X_BAR_VRAM);
    g_assert_cmphex(bar2 & ~PCI_BASE_ADDRESS_MEM_MASK, ==,
                    PCI_BASE_ADDRESS_SPACE_MEMORY |
                    PCI_BASE_ADDRESS_MEM_TYPE_64 |
                    PCI_BASE_ADDRESS_MEM_PREFETCH);
    g_assert_cmpuint(msix_vectors(g), ==, GA10X_MSIX_VECTORS);
    g_assert_cmphex(rd(g, EMGPU_REG_ID), ==, EMGPU_ID_MAGIC);
    g_assert_cmpuint(rd64(g, EMGPU_REG_VRAM_SIZE_LO, EMGPU_REG_VRAM_SIZE_HI),
                     ==, 64ull << 20);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/*
 * The emgpu personality is as it was: its id, a 16 KiB BAR0 (the GA10x
 * block's offsets lie beyond it and never reach the device), 6 vectors and
 * no BAR2.
 */
static void test_emgpu_personality_unchanged(void)
{
    Gpu *g = gpu_start(NULL);
    uint32_t bar2 = PCI_BASE_ADDRESS_0 + 4 * GA10X_BAR_VRAM;

    g_assert_cmphex(qpci_config_readw(g->dev, PCI_DEVICE_ID), ==,
                    EMGPU_PCI_DEVICE_ID);
    g_assert_cmphex(g->bar_size, ==, EMGPU_REGS_SIZE);
    g_assert_cmpuint(msix_vectors(g), ==, EMGPU_MSIX_VECTORS);
    qpci_config_writel(g->dev, bar2, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(g->dev, bar2), ==, 0);

    qtest_readl(g->qts, g->bar.addr + GA10X_REG_PTIMER_TIME_0);
    qtest_writel(g->qts, g->bar.addr + GA10X_REG_DOORBELL, 1);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_COUNT), ==, 0);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/* An unknown personality is refused at realize, naming the valid ones. */
static void test_personality_refused(void)
{
    const char *qemu = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *out = NULL, *err = NULL;
    g_autoptr(GError) gerr = NULL;
    int status;
    const char *argv[] = {
        qemu, "-M", "q35", "-nodefaults", "-display", "none",
        "-L", "/usr/share/qemu", "-L", "/usr/share/seabios",
        "-device", "emgpu,personality=ga100", NULL,
    };

    g_assert_nonnull(qemu);
    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, 0, NULL, NULL,
                               &out, &err, &status, &gerr));
    g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    g_assert_nonnull(strstr(err, "emgpu: unknown personality 'ga100'"));
    g_assert_nonnull(strstr(err, "Personalities: emgpu, ga10x, gh100."));
}

/*
 * SM launches in the GA10x personality run in a graphics channel's context
 * (GA10X_REG_LAUNCH_CHANNEL): VER2 tables in guest RAM at GA10X_TABLES map
 * [va, va + len) to sysmem pa in 4 KiB pages (len up to 2 MiB, one PD0
 * entry), and channel GA10X_SM_CHAN holds their PDB.
 */
#define GA10X_TABLES    0x06000000ull   /* PD3 PD2 PD1 PD0 PT, 4 KiB apart */
#define GA10X_SM_CHAN   5u

static void ga10x_put64(Gpu *g, uint64_t pa, uint64_t v)
{
    uint64_t le = cpu_to_le64(v);

    qtest_memwrite(g->qts, pa, &le, 8);
}

static void ga10x_compute_channel(Gpu *g, uint64_t va, uint64_t pa,
                                  uint64_t len)
{
    const uint64_t pd3 = GA10X_TABLES, pd2 = pd3 + 0x1000, pd1 = pd2 + 0x1000;
    const uint64_t pd0 = pd1 + 0x1000, pt = pd0 + 0x1000;
    const unsigned sys = GA10X_PDE_APERTURE_SYS_COH;
    uint64_t off;

    ga10x_put64(g, pd3 + ((va >> GA10X_PD3_SHIFT) & 3) * 8, ga10x_pde(sys, pd2));
    ga10x_put64(g, pd2 + ((va >> GA10X_PD2_SHIFT) & 511) * 8, ga10x_pde(sys, pd1));
    ga10x_put64(g, pd1 + ((va >> GA10X_PD1_SHIFT) & 511) * 8, ga10x_pde(sys, pd0));
    ga10x_put64(g, pd0 + ((va >> GA10X_PD0_SHIFT) & 255) * 16 + 8,
                ga10x_dual_pde_small(sys, pt));
    for (off = 0; off < len; off += 4096) {
        ga10x_put64(g, pt + (((va + off) >> 12) & 511) * 8,
                    ga10x_pte(GA10X_PTE_APERTURE_SYS_COH, pa + off,
                              GA10X_PTE_VOL, GA10X_PTE_KIND_GENERIC_MEMORY, 0));
    }
    wr(g, GA10X_REG_CHAN(GA10X_SM_CHAN, GA10X_REG_CHAN_PDB_HI), 0);
    wr(g, GA10X_REG_CHAN(GA10X_SM_CHAN, GA10X_REG_CHAN_PDB_LO),
       (uint32_t)pd3 | GA10X_BASE_APERTURE_SYSMEM);
    wr(g, GA10X_REG_CHAN(GA10X_SM_CHAN, GA10X_REG_CHAN_ENGINE),
       GA10X_ENGINE_GRAPHICS);
    wr(g, GA10X_REG_CHAN(GA10X_SM_CHAN, GA10X_REG_CHAN_CTRL),
       GA10X_CHAN_CTRL_ENABLE);
    wr(g, GA10X_REG_LAUNCH_CHANNEL, GA10X_SM_CHAN);
}

static uint64_t ptimer(Gpu *g)
{
    uint32_t hi, lo;

    do {        /* as nvidia-uvm reads it: TIME_1, TIME_0, TIME_1 again */
        hi = rd(g, GA10X_REG_PTIMER_TIME_1);
        lo = rd(g, GA10X_REG_PTIMER_TIME_0);
    } while (rd(g, GA10X_REG_PTIMER_TIME_1) != hi);
    return (uint64_t)hi << 32 | lo;
}

/*
 * PTIMER is the model's clock: it stands still while nothing runs, moves
 * forward with modelled work (a launch through emgpu's own registers, in a
 * graphics channel's context) and equals emgpu's PTIMER at every point.
 */
static void test_ga10x_ptimer(void)
{
    Gpu *g = ga10x_start();
    uint64_t t0, t1, t2;
    int i;

    t0 = ptimer(g);
    g_assert_cmpuint(ptimer(g), ==, t0);
    g_assert_cmpuint(rd64(g, EMGPU_REG_PTIMER_LO, EMGPU_REG_PTIMER_HI), ==,
                     t0);
    ga10x_compute_channel(g, VA, DATA, 64 << 10);
    t1 = t0;
    for (i = 0; i < 3; i++) {
        launch(g, EMGPU_KERNEL_STREAM, VA, 64 << 10, 1);
        g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
        t2 = ptimer(g);
        g_assert_cmpuint(t2, >, t1);
        g_assert_cmpuint(rd64(g, EMGPU_REG_PTIMER_LO, EMGPU_REG_PTIMER_HI),
                         ==, t2);
        t1 = t2;
    }
    g_assert_cmpuint(ptimer(g), ==, t1);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/* A doorbell with a token no channel has latches BAD_VALUE with the token. */
static void test_ga10x_doorbell_unknown_token(void)
{
    Gpu *g = ga10x_start();

    wr(g, GA10X_REG_DOORBELL, 0x5eed);
    expect_error_info(g, EMGPU_ERR_BAD_VALUE, 0x5eed, "unknown token");
    wr(g, GA10X_REG_DOORBELL, 0xffffffff);
    expect_error_info(g, EMGPU_ERR_BAD_VALUE, 0xffffffff, "unknown token");
    gpu_stop(g);
}

/*
 * The poll of blocked channels: a write to the GA10x block arms it, it runs
 * once EMGPU_POLL_NS (100 us) of virtual time later and, with no
 * channel blocked, stops there: further time brings no poll.
 */
static void test_ga10x_poll_timer(void)
{
    g_autofree char *log = NULL, *text = NULL;
    g_autofree char *args = NULL;
    int fd = g_file_open_tmp("emgpu-log-XXXXXX", &log, NULL);
    Gpu *g;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    args = g_strdup_printf("-trace emgpu_poll -D %s", log);
    g = ga10x_start_args("64m", args);
    qtest_clock_step(g->qts, 1000 * 1000);      /* nothing armed yet */
    rd(g, EMGPU_REG_ID);
    wr(g, GA10X_REG_DOORBELL, 0x5eed);
    qtest_clock_step(g->qts, 99 * 1000);
    rd(g, EMGPU_REG_ID);
    qtest_clock_step(g->qts, 1000);             /* 100 us after the write */
    rd(g, EMGPU_REG_ID);
    qtest_clock_step(g->qts, 10 * 1000 * 1000);
    rd(g, EMGPU_REG_ID);
    gpu_stop(g);

    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    g_assert_cmpuint(count_lines_with(text, "emgpu_poll "), ==, 1);
    g_assert_nonnull(strstr(text, "0 channels still blocked"));
}

static void bar2_wr32(Gpu *g, uint64_t off, uint32_t v)
{
    qpci_io_writel(g->dev, g->vram, off, v);
}

static uint32_t bar2_rd32(Gpu *g, uint64_t off)
{
    return qpci_io_readl(g->dev, g->vram, off);
}

/*
 * BAR2 reads and writes VRAM itself: words written at 0, 4 KiB and the
 * last word read back, in every access size and unaligned, and the copy
 * engine copies the same bytes out of VRAM into guest RAM.
 */
static void test_ga10x_bar2(void)
{
    Gpu *g = ga10x_start();
    const uint64_t last = g->vram_size - 4;
    uint32_t out[4];

    bar2_wr32(g, 0, 0x11223344);
    bar2_wr32(g, 4, 0x55667788);
    bar2_wr32(g, 4096, 0xcafef00d);
    bar2_wr32(g, last, 0xdeadbeef);
    g_assert_cmphex(bar2_rd32(g, 0), ==, 0x11223344);
    g_assert_cmphex(bar2_rd32(g, 4096), ==, 0xcafef00d);
    g_assert_cmphex(bar2_rd32(g, last), ==, 0xdeadbeef);
    g_assert_cmphex(qpci_io_readq(g->dev, g->vram, 0), ==,
                    0x5566778811223344ull);
    g_assert_cmphex(qpci_io_readb(g->dev, g->vram, 1), ==, 0x33);
    g_assert_cmphex(qpci_io_readw(g->dev, g->vram, 2), ==, 0x1122);
    g_assert_cmphex(qpci_io_readl(g->dev, g->vram, 2), ==, 0x77881122);
    g_assert_cmphex(qpci_io_readb(g->dev, g->vram, last + 3), ==, 0xde);

    qpci_io_writeq(g->dev, g->vram, 8192, 0x0102030405060708ull);
    qpci_io_writeb(g->dev, g->vram, 8192, 0xa0);
    qpci_io_writew(g->dev, g->vram, 8194, 0xb1b2);
    g_assert_cmphex(qpci_io_readq(g->dev, g->vram, 8192), ==,
                    0x01020304b1b207a0ull);

    /* the model's own VRAM: the copy engine sees the same bytes */
    ce_setup(g);
    ce_push(g, 0, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_VIDMEM, EMGPU_APERTURE_SYSMEM),
            4096, DATA, 4, 0);
    ce_push(g, 1, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_VIDMEM, EMGPU_APERTURE_SYSMEM),
            last, DATA + 4, 4, 0);
    ce_push(g, 2, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_VIDMEM, EMGPU_APERTURE_SYSMEM),
            8192, DATA + 8, 8, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 3);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    g_assert_cmpuint(rd(g, EMGPU_REG_CE_RING_GET), ==, 3);
    qtest_memread(g->qts, DATA, out, sizeof(out));
    g_assert_cmphex(le32_to_cpu(out[0]), ==, 0xcafef00d);
    g_assert_cmphex(le32_to_cpu(out[1]), ==, 0xdeadbeef);
    g_assert_cmphex(le32_to_cpu(out[2]), ==, 0xb1b207a0);
    g_assert_cmphex(le32_to_cpu(out[3]), ==, 0x01020304);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/*
 * With VRAM that is not a power of two, BAR2 rounds up and its tail lies
 * past VRAM: an access there latches VRAM_RANGE with the BAR offset, is
 * logged once as a guest error, and reads 0; the last word of VRAM works.
 */
static void test_ga10x_bar2_past_vram(void)
{
    g_autofree char *log = NULL, *text = NULL;
    g_autofree char *args = NULL;
    int fd = g_file_open_tmp("emgpu-log-XXXXXX", &log, NULL);
    const uint64_t vram = 96ull << 20;
    Gpu *g;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    args = g_strdup_printf("-d guest_errors -D %s", log);
    g = ga10x_start_args("96m", args);
    g_assert_cmphex(g->vram_size, ==, 128ull << 20);

    bar2_wr32(g, vram - 4, 0x600df00d);
    g_assert_cmphex(bar2_rd32(g, vram - 4), ==, 0x600df00d);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    bar2_wr32(g, vram, 0x0badf00d);
    expect_error_info(g, EMGPU_ERR_VRAM_RANGE, vram, "BAR2 write past VRAM");
    g_assert_cmphex(bar2_rd32(g, g->vram_size - 4), ==, 0);
    expect_error_info(g, EMGPU_ERR_VRAM_RANGE, g->vram_size - 4,
                      "BAR2 read past VRAM");
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_COUNT), ==, 2);
    g_assert_cmphex(bar2_rd32(g, vram - 4), ==, 0x600df00d);
    gpu_stop(g);

    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    g_assert_cmpuint(count_lines_with(text, "emgpu_err_guest: vram-range, "),
                     ==, 2);
    g_assert_nonnull(strstr(text, "emgpu_err_guest: vram-range, "
                                  "ERROR_INFO 0x6000000"));
}

/* The integer value of the device's property `name`, read over QOM. */
static uint64_t qom_get_uint(Gpu *g, const char *name)
{
    QDict *resp = qtest_qmp(g->qts, "{'execute': 'qom-get', 'arguments': "
                            "{'path': '/machine/peripheral/gpu0', "
                            "'property': %s}}", name);
    uint64_t v;

    g_assert(qdict_haskey(resp, "return"));
    v = qdict_get_int(resp, "return");
    qobject_unref(resp);
    return v;
}

/*
 * VRAM's lazy backing is capped (vram-backing-max, 8 GiB by default): with
 * 4 MiB, two chunks take writes, a third untouched one is refused with
 * VRAM_BACKING (the BAR offset in ERROR_INFO, logged once as a guest
 * error), reads 0, and the backed chunks keep working.
 */
static void test_ga10x_vram_backing_max(void)
{
    g_autofree char *log = NULL, *text = NULL;
    g_autofree char *args = NULL;
    int fd = g_file_open_tmp("emgpu-log-XXXXXX", &log, NULL);
    Gpu *g;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    /* the default */
    g = ga10x_start();
    g_assert_cmpuint(qom_get_uint(g, "vram-backing-max"), ==, 8ull << 30);
    gpu_stop(g);

    args = g_strdup_printf("-d guest_errors -D %s", log);
    g = ga10x_start_args("64m,vram-backing-max=4M", args);
    bar2_wr32(g, 0, 0x11111111);
    bar2_wr32(g, 40ull << 20, 0x22222222);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    bar2_wr32(g, 20ull << 20, 0x33333333);
    expect_error_info(g, EMGPU_ERR_VRAM_BACKING, 20ull << 20,
                      "write past the backing cap");
    g_assert_cmphex(bar2_rd32(g, 20ull << 20), ==, 0);
    bar2_wr32(g, 4, 0x44444444);
    g_assert_cmphex(bar2_rd32(g, 0), ==, 0x11111111);
    g_assert_cmphex(bar2_rd32(g, 4), ==, 0x44444444);
    g_assert_cmphex(bar2_rd32(g, 40ull << 20), ==, 0x22222222);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);

    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    g_assert_cmpuint(count_lines_with(text, "emgpu_err_guest: vram-backing, "),
                     ==, 1);
}

/* QEMU with -device `device` exits nonzero, its stderr holding `message`. */
static void expect_start_refused(const char *device, const char *message)
{
    const char *qemu = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *out = NULL, *err = NULL;
    g_autoptr(GError) gerr = NULL;
    int status;
    const char *argv[] = {
        qemu, "-M", "q35", "-nodefaults", "-display", "none",
        "-L", "/usr/share/qemu", "-L", "/usr/share/seabios",
        "-device", device, NULL,
    };

    g_assert_nonnull(qemu);
    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, 0, NULL, NULL,
                               &out, &err, &status, &gerr));
    g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    g_assert_nonnull(strstr(err, message));
}

/* A cap that is not a whole number of 2 MiB chunks is refused at start-up. */
static void test_vram_backing_max_refused(void)
{
    expect_start_refused("emgpu,vram-backing-max=3M",
                         "emgpu: vram-backing-max 3145728 is not a "
                         "multiple of 2 MiB");
}

/*
 * BAR2 is one of the device's own regions: a copy whose sysmem source or
 * destination is BAR2's bus address is refused before a byte moves
 * (EMGPU_ERR_DMA, logged as reaching emgpu-vram), and VRAM is unchanged.
 */
static void test_ga10x_dma_to_bar2(void)
{
    g_autofree char *log = NULL, *text = NULL;
    g_autofree char *args = NULL;
    int fd = g_file_open_tmp("emgpu-log-XXXXXX", &log, NULL);
    Gpu *g;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    args = g_strdup_printf("-d guest_errors -D %s", log);
    g = ga10x_start_args("64m", args);
    g_assert_false(g->vram.is_io);
    bar2_wr32(g, 0, 0x5ca1ab1e);
    bar2_wr32(g, 4096, 0x0dd0beef);

    ce_setup(g);
    ce_push(g, 0, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_SYSMEM, EMGPU_APERTURE_VIDMEM),
            g->vram.addr, 4096, 64, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 1);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    expect_error(g, EMGPU_ERR_DMA, "copy from BAR2");
    ce_push(g, 1, EMGPU_CE_OP_COPY,
            gmt_ce_flags(EMGPU_APERTURE_VIDMEM, EMGPU_APERTURE_SYSMEM),
            4096, g->vram.addr, 64, 0);
    wr(g, EMGPU_REG_CE_RING_PUT, 2);
    wr(g, EMGPU_REG_CE_DOORBELL, 1);
    expect_error(g, EMGPU_ERR_DMA, "copy into BAR2");
    g_assert_cmphex(bar2_rd32(g, 0), ==, 0x5ca1ab1e);
    g_assert_cmphex(bar2_rd32(g, 4096), ==, 0x0dd0beef);
    gpu_stop(g);

    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    g_assert_cmpuint(count_lines_with(text, "reaches own region emgpu-vram"),
                     ==, 2);
    g_assert_cmpuint(count_lines_with(text, "emgpu_err_guest: dma,"), ==, 2);
}

/*
 * A GPFIFO channel as the stand-in sets it up and nvidia-uvm pushes to it,
 * all in guest RAM at CHAN_AREA: GPFIFO ring, USERD, error notifier and a
 * pushbuffer. GA10X_CHAN_CTRL_NO_MMU: its GPU VAs are guest-physical.
 */
#define CHAN            3
#define CHAN_AREA       0x05000000ull
#define CHAN_GPFIFO     CHAN_AREA
#define CHAN_USERD      (CHAN_AREA + 0x1000)
#define CHAN_NOTIFIER   (CHAN_AREA + 0x2000)
#define CHAN_PB         (CHAN_AREA + 0x4000)
#define CHAN_ENTRIES    16

static void chan_wr(Gpu *g, uint32_t reg, uint32_t v)
{
    wr(g, GA10X_REG_CHAN(CHAN, reg), v);
}

static uint32_t chan_rd(Gpu *g, uint32_t reg)
{
    return rd(g, GA10X_REG_CHAN(CHAN, reg));
}

static void chan_setup(Gpu *g)
{
    chan_wr(g, GA10X_REG_CHAN_GPFIFO_HI, 0);
    chan_wr(g, GA10X_REG_CHAN_GPFIFO_LO,
            (uint32_t)CHAN_GPFIFO | GA10X_BASE_APERTURE_SYSMEM);
    chan_wr(g, GA10X_REG_CHAN_GPFIFO_ENTRIES, CHAN_ENTRIES);
    chan_wr(g, GA10X_REG_CHAN_USERD_HI, 0);
    chan_wr(g, GA10X_REG_CHAN_USERD_LO,
            (uint32_t)CHAN_USERD | GA10X_BASE_APERTURE_SYSMEM);
    chan_wr(g, GA10X_REG_CHAN_NOTIFIER_HI, 0);
    chan_wr(g, GA10X_REG_CHAN_NOTIFIER_LO,
            (uint32_t)CHAN_NOTIFIER | GA10X_BASE_APERTURE_SYSMEM);
    chan_wr(g, GA10X_REG_CHAN_ENGINE, GA10X_ENGINE_HOST);
    chan_wr(g, GA10X_REG_CHAN_CTRL,
            GA10X_CHAN_CTRL_ENABLE | GA10X_CHAN_CTRL_NO_MMU);
    g_assert_cmpuint(chan_rd(g, GA10X_REG_CHAN_STATUS), ==,
                     GA10X_CHAN_STATUS_IDLE);
}

/* One host SEM_ADDR_LO..SEM_EXECUTE push (5 data words) at w. */
static unsigned push_sem(uint32_t *w, uint64_t va, uint32_t payload,
                         uint32_t execute)
{
    w[0] = cpu_to_le32(ga10x_pb_inc(0, C56F_SEM_ADDR_LO, 5));
    w[1] = cpu_to_le32((uint32_t)va & C56F_SEM_ADDR_LO_MASK);
    w[2] = cpu_to_le32((uint32_t)(va >> 32) & C56F_SEM_ADDR_HI_MASK);
    w[3] = cpu_to_le32(payload);
    w[4] = 0;
    w[5] = cpu_to_le32(execute);
    return 6;
}

/*
 * Submits nwords of pushbuffer as GPFIFO entry `put`: the segment, the
 * entry, GP_PUT in USERD, then the channel's token to the doorbell.
 */
static void chan_submit(Gpu *g, uint32_t put, const uint32_t *w,
                        unsigned nwords)
{
    uint64_t pb = CHAN_PB + put * 0x100ull;
    uint64_t e = cpu_to_le64(ga10x_gp_entry(pb, nwords * 4, 0));

    g_assert_cmpuint(nwords * 4, <=, 0x100);
    qtest_memwrite(g->qts, pb, w, nwords * 4);
    qtest_memwrite(g->qts, CHAN_GPFIFO + put * 8ull, &e, sizeof(e));
    qtest_writel(g->qts, CHAN_USERD + GA10X_USERD_GP_PUT, put + 1);
    wr(g, GA10X_REG_DOORBELL, chan_rd(g, GA10X_REG_CHAN_TOKEN));
}

/* One incrementing method header and its data words at w. */
static unsigned push_words(uint32_t *w, uint32_t subch, uint32_t method,
                           unsigned n, const uint32_t *data)
{
    unsigned i;

    w[0] = cpu_to_le32(ga10x_pb_inc(subch, method, n));
    for (i = 0; i < n; i++) {
        w[1 + i] = cpu_to_le32(data[i]);
    }
    return n + 1;
}

/*
 * Submits on channel 0 (copy engine 0, no MMU) one LAUNCH_DMA of `lines`
 * lines of `length` bytes from guest RAM at DATA to VRAM at 0x100000,
 * `pitch` apart on both sides, releasing 0x77 at SEMAPHORE (cleared first).
 */
static void ga10x_ce_lines(Gpu *g, uint32_t length, uint32_t lines,
                           uint32_t pitch)
{
    const uint32_t obj = AMPERE_DMA_COPY_B_CLASS;
    const uint32_t modes[2] = { C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM,
                                C7B5_PHYS_MODE_TARGET_LOCAL_FB };
    const uint32_t offsets[4] = { 0, (uint32_t)DATA, 0, 0x100000 };
    const uint32_t pitches[2] = { pitch, pitch };
    const uint32_t sem[3] = { 0, (uint32_t)SEMAPHORE, 0x77 };
    const uint32_t launch = C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
        C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH |
        C7B5_LAUNCH_DMA_MULTI_LINE_ENABLE |
        C7B5_LAUNCH_DMA_SRC_TYPE_PHYSICAL | C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL |
        C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED |
        C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
        C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT | C7B5_LAUNCH_DMA_DISABLE_PLC;
    uint32_t w[40];
    unsigned n = 0;

    qtest_writel(g->qts, SEMAPHORE, 0);
    chan_setup(g);
    chan_wr(g, GA10X_REG_CHAN_CTRL, 0);
    chan_wr(g, GA10X_REG_CHAN_ENGINE, 0);       /* copy engine 0 */
    chan_wr(g, GA10X_REG_CHAN_CTRL,
            GA10X_CHAN_CTRL_ENABLE | GA10X_CHAN_CTRL_NO_MMU);
    n += push_words(w + n, 0, C56F_SET_OBJECT, 1, &obj);
    n += push_words(w + n, C56F_CE_SUBCH, C7B5_SET_SRC_PHYS_MODE, 2, modes);
    n += push_words(w + n, C56F_CE_SUBCH, C7B5_OFFSET_IN_UPPER, 4, offsets);
    n += push_words(w + n, C56F_CE_SUBCH, C7B5_PITCH_IN, 2, pitches);
    n += push_words(w + n, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, 1, &length);
    n += push_words(w + n, C56F_CE_SUBCH, C7B5_LINE_COUNT, 1, &lines);
    n += push_words(w + n, C56F_CE_SUBCH, C7B5_SET_SEMAPHORE_A, 3, sem);
    n += push_words(w + n, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, 1, &launch);
    chan_submit(g, 0, w, n);
}

/*
 * A LAUNCH_DMA of 2^32 - 1 one-byte lines at pitch 0 (a copy engine
 * channel, physical ends): one doorbell used to run all 4 G lines inside
 * the MMIO write, freezing the vCPU, the monitor and QMP for minutes.
 * The write returns after a bounded slice, the device answers at once,
 * the channel stays busy at its LAUNCH_DMA with the semaphore not yet
 * released, a poll does one more slice, and disabling the channel ends it.
 */
static void test_ga10x_ce_transfer_bounded(void)
{
    Gpu *g = ga10x_start();

    ga10x_ce_lines(g, 1, 0xffffffffu, 0);
    g_assert_cmphex(rd(g, EMGPU_REG_ID), ==, EMGPU_ID_MAGIC);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    g_assert_cmpuint(chan_rd(g, GA10X_REG_CHAN_STATUS), !=,
                     GA10X_CHAN_STATUS_IDLE);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0);
    qtest_clock_step(g->qts, 100 * 1000);    /* a poll: one more slice */
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0);
    chan_wr(g, GA10X_REG_CHAN_CTRL, 0);
    qtest_clock_step(g->qts, 1000 * 1000);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/*
 * work-max: 64 MiB by default; below one 64 KiB piece is refused at
 * start-up. At 64 KiB, a GA10x copy of 4 lines of 64 KiB from guest RAM
 * to VRAM is not done by its doorbell (the semaphore still 0); the polls
 * move the rest, one 64 KiB piece each, and the semaphore is released
 * with every line in VRAM word for word.
 */
static void test_ga10x_work_max(void)
{
    const uint32_t line = 64 * 1024;
    g_autofree uint32_t *src = g_new(uint32_t, line);
    unsigned i, polls = 0;
    Gpu *g = ga10x_start();

    g_assert_cmpuint(qom_get_uint(g, "work-max"), ==, 64ull << 20);
    gpu_stop(g);
    expect_start_refused("emgpu,work-max=65535",
                         "emgpu: work-max 65535 is below 64 KiB");

    g = ga10x_start_args("64m,work-max=64K", NULL);
    for (i = 0; i < line; i++) {        /* 4 lines of 64 KiB */
        src[i] = cpu_to_le32(0x5a000000u + i);
    }
    qtest_memwrite(g->qts, DATA, src, 4 * line);
    ga10x_ce_lines(g, line, 4, line);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0);
    while (qtest_readl(g->qts, SEMAPHORE) != 0x77 && polls < 16) {
        qtest_clock_step(g->qts, 100 * 1000);   /* a poll */
        polls++;
    }
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0x77);
    g_assert_cmpuint(polls, >=, 3);
    g_assert_cmpuint(polls, <=, 4);
    for (i = 0; i < line; i++) {
        g_assert_cmphex(bar2_rd32(g, 0x100000 + 4ull * i), ==,
                        0x5a000000u + i);
    }
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/*
 * A channel's semaphore release through a GPFIFO in guest RAM: the
 * doorbell runs it there and then (GP_GET written back, payload in guest
 * RAM, channel idle), with no clock step.
 */
static void test_ga10x_channel_release(void)
{
    Gpu *g = ga10x_start();
    uint32_t w[16];
    unsigned n;

    qtest_writel(g->qts, SEMAPHORE, 0);
    qtest_writel(g->qts, SEMAPHORE + 16, 0);
    chan_setup(g);
    n = push_sem(w, SEMAPHORE, 0x77, C56F_SEM_EXECUTE_OPERATION_RELEASE);
    n += push_sem(w + n, SEMAPHORE + 16, 0x88,
                  C56F_SEM_EXECUTE_OPERATION_RELEASE);
    chan_submit(g, 0, w, n);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE), ==, 0x77);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE + 16), ==, 0x88);
    g_assert_cmpuint(qtest_readl(g->qts, CHAN_USERD + GA10X_USERD_GP_GET),
                     ==, 1);
    g_assert_cmpuint(chan_rd(g, GA10X_REG_CHAN_STATUS), ==,
                     GA10X_CHAN_STATUS_IDLE);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/*
 * An acquire of a semaphore the CPU releases by a plain store: the channel
 * blocks at the doorbell, still waits 99 us of virtual time after it, and
 * the poll 100 us after the doorbell finds the store and runs the rest of
 * the push (its release); then the polls stop.
 */
static void test_ga10x_channel_acquire_poll(void)
{
    g_autofree char *log = NULL, *text = NULL;
    g_autofree char *args = NULL;
    int fd = g_file_open_tmp("emgpu-log-XXXXXX", &log, NULL);
    uint32_t w[16];
    unsigned n;
    Gpu *g;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    args = g_strdup_printf("-trace emgpu_poll -D %s", log);
    g = ga10x_start_args("64m", args);
    qtest_writel(g->qts, SEMAPHORE, 3);
    qtest_writel(g->qts, SEMAPHORE + 16, 0);
    chan_setup(g);
    n = push_sem(w, SEMAPHORE, 5, C56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ |
                 C56F_SEM_EXECUTE_ACQUIRE_SWITCH_TSG_EN);
    n += push_sem(w + n, SEMAPHORE + 16, 0x99,
                  C56F_SEM_EXECUTE_OPERATION_RELEASE);
    chan_submit(g, 0, w, n);
    g_assert_cmpuint(chan_rd(g, GA10X_REG_CHAN_STATUS), ==,
                     GA10X_CHAN_STATUS_BLOCKED);

    qtest_writel(g->qts, SEMAPHORE, 5);         /* the CPU's release */
    qtest_clock_step(g->qts, 99 * 1000);
    g_assert_cmpuint(chan_rd(g, GA10X_REG_CHAN_STATUS), ==,
                     GA10X_CHAN_STATUS_BLOCKED);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE + 16), ==, 0);
    qtest_clock_step(g->qts, 1000);
    g_assert_cmpuint(chan_rd(g, GA10X_REG_CHAN_STATUS), ==,
                     GA10X_CHAN_STATUS_IDLE);
    g_assert_cmphex(qtest_readl(g->qts, SEMAPHORE + 16), ==, 0x99);
    g_assert_cmpuint(qtest_readl(g->qts, CHAN_USERD + GA10X_USERD_GP_GET),
                     ==, 1);
    qtest_clock_step(g->qts, 10 * 1000 * 1000);
    rd(g, EMGPU_REG_ID);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);

    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    g_assert_cmpuint(count_lines_with(text, "emgpu_poll "), ==, 1);
    g_assert_nonnull(strstr(text, "0 channels still blocked"));
}

#define MSI_ADDR        0x02500000ull   /* guest RAM: vector 6's messages */
#define MSI_DATA        0xe6

/* Points MSI-X entry `vec` at guest RAM MSI_ADDR and unmasks it. */
static void msix_to_ram(Gpu *g, unsigned vec)
{
    uint64_t e;

    qpci_msix_enable(g->dev);
    e = g->dev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;
    qpci_io_writel(g->dev, g->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_LOWER_ADDR, (uint32_t)MSI_ADDR);
    qpci_io_writel(g->dev, g->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_UPPER_ADDR, 0);
    qpci_io_writel(g->dev, g->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_DATA, MSI_DATA);
    qpci_io_writel(g->dev, g->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    qtest_writel(g->qts, MSI_ADDR, 0);
}

/* A host push of NON_STALL_INTERRUPT, as GPFIFO entry `put`. */
static void chan_nonstall(Gpu *g, uint32_t put)
{
    uint32_t w[2] = {
        cpu_to_le32(ga10x_pb_inc(0, C56F_NON_STALL_INTERRUPT, 1)), 0,
    };

    chan_submit(g, put, w, 2);
}

/*
 * The interrupt leaf: EN_SET and EN_CLEAR read back in INTR_EN, the
 * write-only and read-only ones refused; a NON_STALL_INTERRUPT method sets
 * its leaf bit, which sends MSI-X vector 6 (GA10X_MSIX_VECTOR) once
 * enabled, whether it became pending while enabled or enabled while
 * pending; writing the bit to INTR_LEAF clears it.
 */
static void test_ga10x_intr_leaf(void)
{
    Gpu *g = ga10x_start();

    g_assert_cmphex(rd(g, GA10X_REG_INTR_EN), ==, 0);
    wr(g, GA10X_REG_INTR_EN_SET, GA10X_INTR_NONSTALL | GA10X_INTR_CHANNEL_RC);
    g_assert_cmphex(rd(g, GA10X_REG_INTR_EN), ==,
                    GA10X_INTR_NONSTALL | GA10X_INTR_CHANNEL_RC);
    wr(g, GA10X_REG_INTR_EN_SET, GA10X_INTR_REPLAYABLE_FAULT);
    g_assert_cmphex(rd(g, GA10X_REG_INTR_EN), ==, GA10X_INTR_NONSTALL |
                    GA10X_INTR_CHANNEL_RC | GA10X_INTR_REPLAYABLE_FAULT);
    wr(g, GA10X_REG_INTR_EN_CLEAR,
       GA10X_INTR_CHANNEL_RC | GA10X_INTR_REPLAYABLE_FAULT);
    g_assert_cmphex(rd(g, GA10X_REG_INTR_EN), ==, GA10X_INTR_NONSTALL);
    wr(g, GA10X_REG_INTR_EN_CLEAR, GA10X_INTR_ALL);
    g_assert_cmphex(rd(g, GA10X_REG_INTR_EN), ==, 0);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);

    rd(g, GA10X_REG_INTR_EN_SET);
    expect_error_info(g, EMGPU_ERR_BAD_REGISTER, GA10X_REG_INTR_EN_SET,
                      "read of write-only EN_SET");
    wr(g, GA10X_REG_INTR_EN, 1);
    expect_error_info(g, EMGPU_ERR_BAD_REGISTER, GA10X_REG_INTR_EN,
                      "write to read-only INTR_EN");
    wr(g, GA10X_REG_INTR_EN_SET, 1u << 31);
    expect_error_info(g, EMGPU_ERR_BAD_VALUE, GA10X_REG_INTR_EN_SET,
                      "unknown leaf bit");
    g_assert_cmphex(rd(g, GA10X_REG_INTR_EN), ==, 0);

    msix_to_ram(g, GA10X_MSIX_VECTOR);
    chan_setup(g);
    chan_nonstall(g, 0);                        /* pending, not enabled */
    g_assert_cmphex(rd(g, GA10X_REG_INTR_LEAF), ==, GA10X_INTR_NONSTALL);
    g_assert_cmphex(qtest_readl(g->qts, MSI_ADDR), ==, 0);
    wr(g, GA10X_REG_INTR_EN_SET, GA10X_INTR_NONSTALL);
    g_assert_cmphex(qtest_readl(g->qts, MSI_ADDR), ==, MSI_DATA);

    wr(g, GA10X_REG_INTR_LEAF, GA10X_INTR_NONSTALL);
    g_assert_cmphex(rd(g, GA10X_REG_INTR_LEAF), ==, 0);
    qtest_writel(g->qts, MSI_ADDR, 0);
    chan_nonstall(g, 1);                        /* pending while enabled */
    g_assert_cmphex(rd(g, GA10X_REG_INTR_LEAF), ==, GA10X_INTR_NONSTALL);
    g_assert_cmphex(qtest_readl(g->qts, MSI_ADDR), ==, MSI_DATA);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/*
 * The replayable fault buffer's registers as nvidia-uvm and the stand-in
 * use them (no SM path reports faults yet): base, size and enable read
 * back; GET and PUT start at 0; PUT and INFO are read-only; a GET beyond
 * the buffer is refused and shows GETPTR_CORRUPTED in GET and PUT until a
 * GET write clears it; PAGE_FAULT_CTRL takes SEND_ALL or SEND_NONE only.
 */
static void test_ga10x_fault_buffer(void)
{
    Gpu *g = ga10x_start();
    const uint32_t lo = (uint32_t)FAULT_BUF | GA10X_BASE_APERTURE_SYSMEM;

    wr(g, GA10X_REG_FAULT_BUF_HI, 0);
    wr(g, GA10X_REG_FAULT_BUF_LO, lo);
    wr(g, GA10X_REG_FAULT_BUF_SIZE, RING_ENTRIES);
    wr(g, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_LO), ==, lo);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_HI), ==, 0);
    g_assert_cmpuint(rd(g, GA10X_REG_FAULT_BUF_SIZE), ==, RING_ENTRIES);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_CTRL), ==, EMGPU_RING_ENABLE);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_GET), ==, 0);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_PUT), ==, 0);
    wr(g, GA10X_REG_FAULT_BUF_GET, 0);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);

    wr(g, GA10X_REG_FAULT_BUF_PUT, 1);
    expect_error_info(g, EMGPU_ERR_BAD_REGISTER, GA10X_REG_FAULT_BUF_PUT,
                      "write to read-only PUT");
    wr(g, GA10X_REG_FAULT_BUF_GET, RING_ENTRIES);
    expect_error_info(g, EMGPU_ERR_BAD_INDEX, GA10X_REG_FAULT_BUF_GET,
                      "GET beyond the buffer");
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_GET), ==,
                    C369_BUF_GETPTR_CORRUPTED);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_PUT), ==,
                    C369_BUF_GETPTR_CORRUPTED);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_INFO), ==,
                    C369_BUF_GETPTR_CORRUPTED);
    wr(g, GA10X_REG_FAULT_BUF_GET, C369_BUF_GETPTR_CORRUPTED);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_GET), ==, 0);
    g_assert_cmphex(rd(g, GA10X_REG_FAULT_BUF_PUT), ==, 0);

    g_assert_cmphex(rd(g, GA10X_REG_PAGE_FAULT_CTRL), ==,
                    C369_PAGE_FAULT_CTRL_PRF_SEND_ALL);
    wr(g, GA10X_REG_PAGE_FAULT_CTRL, C369_PAGE_FAULT_CTRL_PRF_SEND_NONE);
    g_assert_cmphex(rd(g, GA10X_REG_PAGE_FAULT_CTRL), ==,
                    C369_PAGE_FAULT_CTRL_PRF_SEND_NONE);
    wr(g, GA10X_REG_PAGE_FAULT_CTRL, 1);
    expect_error_info(g, EMGPU_ERR_BAD_VALUE, GA10X_REG_PAGE_FAULT_CTRL,
                      "unknown prefetch filter");
    g_assert_cmphex(rd(g, GA10X_REG_PAGE_FAULT_CTRL), ==,
                    C369_PAGE_FAULT_CTRL_PRF_SEND_NONE);
    gpu_stop(g);
}

/*
 * The access-counter buffer's registers: GET and PUT start at 0, FULL
 * reads PUSHED (its reset value) without FULL, PUT and FULL are
 * read-only, a GET beyond the buffer is refused and leaves GET as it was.
 */
static void test_ga10x_access_counter_buffer(void)
{
    Gpu *g = ga10x_start();
    const uint32_t lo = (uint32_t)AC_BUF | GA10X_BASE_APERTURE_SYSMEM;

    wr(g, GA10X_REG_AC_BUF_HI, 0);
    wr(g, GA10X_REG_AC_BUF_LO, lo);
    wr(g, GA10X_REG_AC_BUF_SIZE, RING_ENTRIES);
    wr(g, GA10X_REG_AC_CTRL, EMGPU_RING_ENABLE);
    g_assert_cmphex(rd(g, GA10X_REG_AC_BUF_LO), ==, lo);
    g_assert_cmpuint(rd(g, GA10X_REG_AC_BUF_SIZE), ==, RING_ENTRIES);
    g_assert_cmphex(rd(g, GA10X_REG_AC_CTRL), ==, EMGPU_RING_ENABLE);
    g_assert_cmphex(rd(g, GA10X_REG_AC_BUF_GET), ==, 0);
    g_assert_cmphex(rd(g, GA10X_REG_AC_BUF_PUT), ==, 0);
    g_assert_cmphex(rd(g, GA10X_REG_AC_BUF_FULL), ==, C365_INFO_PUSHED);
    wr(g, GA10X_REG_AC_BUF_GET, 0);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);

    wr(g, GA10X_REG_AC_BUF_PUT, 1);
    expect_error_info(g, EMGPU_ERR_BAD_REGISTER, GA10X_REG_AC_BUF_PUT,
                      "write to read-only PUT");
    wr(g, GA10X_REG_AC_BUF_FULL, 0);
    expect_error_info(g, EMGPU_ERR_BAD_REGISTER, GA10X_REG_AC_BUF_FULL,
                      "write to read-only FULL");
    wr(g, GA10X_REG_AC_BUF_GET, RING_ENTRIES + 3);
    expect_error_info(g, EMGPU_ERR_BAD_INDEX, GA10X_REG_AC_BUF_GET,
                      "GET beyond the buffer");
    g_assert_cmphex(rd(g, GA10X_REG_AC_BUF_GET), ==, 0);
    g_assert_cmphex(rd(g, GA10X_REG_AC_BUF_FULL), ==, C365_INFO_PUSHED);
    gpu_stop(g);
}

/* ---- personality=gh100 ---- */

/*
 * GH100 keeps GA10x's PCI face but its device id: BAR0 with the GA10x
 * block, BAR2 on VRAM, seven vectors.
 */
static void test_gh100_identity(void)
{
    Gpu *g = pers_start_args("gh100", "64m", NULL);
    uint32_t bar2;

    g_assert_cmphex(qpci_config_readw(g->dev, PCI_VENDOR_ID), ==,
                    EMGPU_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(g->dev, PCI_DEVICE_ID), ==,
                    GH100_PCI_DEVICE_ID);
    g_assert_cmphex(g->bar_size, ==, GA10X_REGS_SIZE);
    g_assert_cmphex(g->vram_size, ==, 64ull << 20);
    bar2 = qpci_config_readl(g->dev, PCI_BASE_ADDRESS_0 + 4 * GA10X_BAR_VRAM);
    g_assert_cmphex(bar2 & ~PCI_BASE_ADDRESS_MEM_MASK, ==,
                    PCI_BASE_ADDRESS_SPACE_MEMORY |
                    PCI_BASE_ADDRESS_MEM_TYPE_64 |
                    PCI_BASE_ADDRESS_MEM_PREFETCH);
    g_assert_cmpuint(msix_vectors(g), ==, GA10X_MSIX_VECTORS);
    g_assert_cmphex(rd(g, EMGPU_REG_ID), ==, EMGPU_ID_MAGIC);
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

/*
 * A graphics channel whose PDB is MMU VER3 tables in guest RAM at
 * GA10X_TABLES (PDE4 PDE3 PDE2 PDE1 PDE0 PT, 4 KiB apart) mapping
 * [va, va + len) to sysmem pa in 4 KiB pages (one PDE0 entry).
 */
static void gh100_compute_channel(Gpu *g, uint64_t va, uint64_t pa,
                                  uint64_t len)
{
    const uint64_t pde4 = GA10X_TABLES, pde3 = pde4 + 0x1000;
    const uint64_t pde2 = pde3 + 0x1000, pde1 = pde2 + 0x1000;
    const uint64_t pde0 = pde1 + 0x1000, pt = pde0 + 0x1000;
    const unsigned sys = GH100_PDE_APERTURE_SYS_COH;
    uint64_t off;

    ga10x_put64(g, pde4 + ((va >> GH100_PDE4_SHIFT) & 1) * 8,
                gh100_pde(sys, pde3));
    ga10x_put64(g, pde3 + ((va >> GH100_PDE3_SHIFT) & 511) * 8,
                gh100_pde(sys, pde2));
    ga10x_put64(g, pde2 + ((va >> GH100_PDE2_SHIFT) & 511) * 8,
                gh100_pde(sys, pde1));
    ga10x_put64(g, pde1 + ((va >> GH100_PDE1_SHIFT) & 511) * 8,
                gh100_pde(sys, pde0));
    ga10x_put64(g, pde0 + ((va >> GH100_PDE0_SHIFT) & 255) * 16 + 8,
                gh100_dual_pde_small(sys, pt));
    for (off = 0; off < len; off += 4096) {
        ga10x_put64(g, pt + (((va + off) >> 12) & 511) * 8,
                    gh100_pte(GH100_PTE_APERTURE_SYS_COH, pa + off,
                              GH100_PTE_PCF_UNCACHED,
                              GH100_PTE_KIND_GENERIC_MEMORY, 0));
    }
    wr(g, GA10X_REG_CHAN(GA10X_SM_CHAN, GA10X_REG_CHAN_PDB_HI), 0);
    wr(g, GA10X_REG_CHAN(GA10X_SM_CHAN, GA10X_REG_CHAN_PDB_LO),
       (uint32_t)pde4 | GA10X_BASE_APERTURE_SYSMEM);
    wr(g, GA10X_REG_CHAN(GA10X_SM_CHAN, GA10X_REG_CHAN_ENGINE),
       GA10X_ENGINE_GRAPHICS);
    wr(g, GA10X_REG_CHAN(GA10X_SM_CHAN, GA10X_REG_CHAN_CTRL),
       GA10X_CHAN_CTRL_ENABLE);
    wr(g, GA10X_REG_LAUNCH_CHANNEL, GA10X_SM_CHAN);
}

/*
 * SM launches through VER3 tables (PDE3 index 1: a launch's buffers lie
 * below EMGPU_VA_BITS, the kernels' limit): a mapped range completes; one
 * page further faults, and its C369 entry carries Hopper's graphics
 * engine id (NV_PFAULT_MMU_ENG_ID_GRAPHICS 384), the PTE fault type and
 * the page.
 */
static void test_gh100_launch_ver3(void)
{
    const uint64_t va = (1ull << 47) | VA;
    Gpu *g = pers_start_args("gh100", "64m", NULL);
    struct c369_entry e;
    struct c369_fault f;
    uint32_t put = 0;
    int i;

    wr(g, GA10X_REG_FAULT_BUF_HI, 0);
    wr(g, GA10X_REG_FAULT_BUF_LO, (uint32_t)FAULT_BUF |
       GA10X_BASE_APERTURE_SYSMEM);
    wr(g, GA10X_REG_FAULT_BUF_SIZE, RING_ENTRIES);
    wr(g, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);
    gh100_compute_channel(g, va, DATA, 64 << 10);
    launch(g, EMGPU_KERNEL_STREAM, va, 64 << 10, 1);
    g_assert_cmpuint(wait_launch(g), ==, EMGPU_LAUNCH_DONE);
    g_assert_cmpuint(rd(g, GA10X_REG_FAULT_BUF_PUT), ==, 0);

    launch(g, EMGPU_KERNEL_STREAM, va, (64 << 10) + 4096, 1);
    for (i = 0; i < POLLS && !put; i++) {
        put = rd(g, GA10X_REG_FAULT_BUF_PUT) & C369_BUF_PTR_MASK;
    }
    g_assert_cmpuint(put, >=, 1);     /* the warps that reached the page */
    qtest_memread(g->qts, FAULT_BUF, &e, sizeof(e));
    c369_decode(&e, &f);
    g_assert_true(f.valid);
    g_assert_cmpuint(f.engine_id, ==, GH100_MMU_ENG_ID_GRAPHICS);
    g_assert_cmpuint(f.fault_type, ==, GA10X_MMU_FAULT_PTE);
    g_assert_cmphex(f.addr, ==, va + (64 << 10));
    g_assert_cmpuint(rd(g, EMGPU_REG_ERROR_STATUS), ==, EMGPU_ERR_NONE);
    gpu_stop(g);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/emgpu/probe", test_probe);
    qtest_add_func("/emgpu/walk-4k-2m", test_walk_4k_and_2m);
    qtest_add_func("/emgpu/fault-replay", test_fault_replay);
    qtest_add_func("/emgpu/fault-cancel", test_fault_cancel);
    qtest_add_func("/emgpu/access-counter", test_access_counter_notification);
    qtest_add_func("/emgpu/copy-engine", test_copy_engine_round_trip);
    qtest_add_func("/emgpu/copy-engine-push-bounded",
                   test_copy_engine_push_bounded);
    qtest_add_func("/emgpu/trace-hash-repeats", test_trace_hash_repeats);
    qtest_add_func("/emgpu/malformed", test_malformed);
    qtest_add_func("/emgpu/inject", test_inject_property);
    qtest_add_func("/emgpu/stats-complete", test_stats_complete);
    qtest_add_func("/emgpu/guest-errors-logged", test_guest_errors_logged);
    qtest_add_func("/emgpu/dma-to-own-bar", test_dma_to_own_bar);
    qtest_add_func("/emgpu/personality-refused", test_personality_refused);
    qtest_add_func("/emgpu/emgpu-personality-unchanged",
                   test_emgpu_personality_unchanged);
    qtest_add_func("/emgpu/ga10x/identity", test_ga10x_identity);
    qtest_add_func("/emgpu/gh100/identity", test_gh100_identity);
    qtest_add_func("/emgpu/gh100/launch-ver3", test_gh100_launch_ver3);
    qtest_add_func("/emgpu/ga10x/ptimer", test_ga10x_ptimer);
    qtest_add_func("/emgpu/ga10x/doorbell-unknown-token",
                   test_ga10x_doorbell_unknown_token);
    qtest_add_func("/emgpu/ga10x/poll-timer", test_ga10x_poll_timer);
    qtest_add_func("/emgpu/ga10x/bar2", test_ga10x_bar2);
    qtest_add_func("/emgpu/ga10x/bar2-past-vram", test_ga10x_bar2_past_vram);
    qtest_add_func("/emgpu/ga10x/dma-to-bar2", test_ga10x_dma_to_bar2);
    qtest_add_func("/emgpu/ga10x/vram-backing-max",
                   test_ga10x_vram_backing_max);
    qtest_add_func("/emgpu/vram-backing-max-refused",
                   test_vram_backing_max_refused);
    qtest_add_func("/emgpu/ga10x/work-max", test_ga10x_work_max);
    qtest_add_func("/emgpu/ga10x/ce-transfer-bounded",
                   test_ga10x_ce_transfer_bounded);
    qtest_add_func("/emgpu/ga10x/channel-release",
                   test_ga10x_channel_release);
    qtest_add_func("/emgpu/ga10x/channel-acquire-poll",
                   test_ga10x_channel_acquire_poll);
    qtest_add_func("/emgpu/ga10x/intr-leaf", test_ga10x_intr_leaf);
    qtest_add_func("/emgpu/ga10x/fault-buffer", test_ga10x_fault_buffer);
    qtest_add_func("/emgpu/ga10x/access-counter-buffer",
                   test_ga10x_access_counter_buffer);

    return g_test_run();
}
