/* SPDX-License-Identifier: MIT */
/*
 * emgpu hardware interface: the one definition of the emulated GPU's
 * registers, interrupt causes, in-memory entry formats and page-table format.
 * Included by libgpumodel, the QEMU device (qemu-device/) and ember.ko alike;
 * never copy a layout out of this file.
 *
 * Formats follow NVIDIA's public class headers where practical (fault entries
 * like C369, access-counter notifications like C365, PTEs like MMU VER2) so
 * that a driver's parsing mirrors nvidia-uvm's HAL. docs/specs/emgpu.md is
 * the register reference written from this file.
 *
 * Conventions: all registers are 32 bits wide and little-endian; 64-bit
 * values are split into _LO/_HI pairs and the _LO half is written last (it
 * commits the value) or read first (it latches _HI). "Sysmem" addresses are
 * bus (DMA) addresses of guest RAM; "vidmem" addresses are byte offsets into
 * the device's VRAM.
 */
#ifndef EMGPU_HW_H
#define EMGPU_HW_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <asm/byteorder.h>
#else
#include <stdint.h>
#endif

/* ---------------------------------------------------------------------------
 * Byte order: every in-memory structure below (fault and notification
 * entries, copy and launch descriptors, page-table entries) is little-endian,
 * whatever the CPU. Fields have the types emgpu_le32/emgpu_le64 and are read
 * and written only through emgpu_le*_to_cpu() and emgpu_cpu_to_le*().
 *
 * In the kernel these are __le32/__le64 (sparse checks their use). Elsewhere
 * (libgpumodel, QEMU, tests) they are one-member structs, so a plain
 * assignment or arithmetic on a field does not compile: the compiler makes
 * the check sparse makes in the kernel.
 */
#ifdef __KERNEL__
typedef __le32 emgpu_le32;
typedef __le64 emgpu_le64;

static inline uint32_t emgpu_le32_to_cpu(emgpu_le32 v) { return le32_to_cpu(v); }
static inline uint64_t emgpu_le64_to_cpu(emgpu_le64 v) { return le64_to_cpu(v); }
static inline emgpu_le32 emgpu_cpu_to_le32(uint32_t v) { return cpu_to_le32(v); }
static inline emgpu_le64 emgpu_cpu_to_le64(uint64_t v) { return cpu_to_le64(v); }
#else
typedef struct { uint32_t le; } emgpu_le32;
typedef struct { uint64_t le; } emgpu_le64;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define EMGPU_LE32_SWAP(v)		__builtin_bswap32(v)
#define EMGPU_LE64_SWAP(v)		__builtin_bswap64(v)
#else
#define EMGPU_LE32_SWAP(v)		(v)
#define EMGPU_LE64_SWAP(v)		(v)
#endif

static inline uint32_t emgpu_le32_to_cpu(emgpu_le32 v) { return EMGPU_LE32_SWAP(v.le); }
static inline uint64_t emgpu_le64_to_cpu(emgpu_le64 v) { return EMGPU_LE64_SWAP(v.le); }
static inline emgpu_le32 emgpu_cpu_to_le32(uint32_t v)
{
	emgpu_le32 r = { EMGPU_LE32_SWAP(v) };

	return r;
}
static inline emgpu_le64 emgpu_cpu_to_le64(uint64_t v)
{
	emgpu_le64 r = { EMGPU_LE64_SWAP(v) };

	return r;
}
#endif

/* PCI identity: QEMU's experimental vendor id, as hw/misc/edu.c uses. */
#define EMGPU_PCI_VENDOR_ID		0x1234
#define EMGPU_PCI_DEVICE_ID		0xeb01
#define EMGPU_PCI_REVISION		0x01
#define EMGPU_BAR_REGS			0	/* registers, EMGPU_REGS_SIZE */
#define EMGPU_BAR_MSIX			4	/* MSI-X table and PBA */
#define EMGPU_REGS_SIZE			0x4000

#define EMGPU_ID_MAGIC			0x454d4750u	/* "EMGP" */
#define EMGPU_VERSION_MAJOR		0
#define EMGPU_VERSION_MINOR		1
#define EMGPU_VERSION			((EMGPU_VERSION_MAJOR << 16) | EMGPU_VERSION_MINOR)

/* ---------------------------------------------------------------------------
 * Identification and capabilities (read-only)
 */
#define EMGPU_REG_ID			0x0000
#define EMGPU_REG_VERSION		0x0004
#define EMGPU_REG_CAPS			0x0008
#define EMGPU_REG_PROFILE		0x000c	/* enum emgpu_profile_id */
#define EMGPU_REG_VRAM_SIZE_LO		0x0010	/* bytes */
#define EMGPU_REG_VRAM_SIZE_HI		0x0014
#define EMGPU_REG_PTIMER_LO		0x0018	/* virtual clock, ns; LO latches HI */
#define EMGPU_REG_PTIMER_HI		0x001c
#define EMGPU_REG_NUM_SMS		0x0020
#define EMGPU_REG_WARPS_PER_SM		0x0024
#define EMGPU_REG_NUM_GPCS		0x0028
#define EMGPU_REG_UTLBS_PER_GPC		0x002c
#define EMGPU_REG_NUM_ACCESS_COUNTERS	0x0030
#define EMGPU_REG_NUM_COPY_ENGINES	0x0034
#define EMGPU_REG_PAGE_SIZES		0x0038	/* EMGPU_PAGE_SIZE_* bits */
#define EMGPU_REG_TRACE_HASH_LO		0x003c	/* running event hash; LO latches HI */
#define EMGPU_REG_TRACE_HASH_HI		0x0040
#define EMGPU_REG_SCRATCH		0x0044	/* read/write, no effect */
#define EMGPU_REG_FULL_VRAM_SIZE_LO	0x0048	/* bytes of the card it stands for */
#define EMGPU_REG_FULL_VRAM_SIZE_HI	0x004c

#define EMGPU_CAP_REPLAYABLE_FAULTS	(1u << 0)
#define EMGPU_CAP_ACCESS_COUNTERS	(1u << 1)
#define EMGPU_CAP_COPY_ENGINE		(1u << 2)
#define EMGPU_CAP_LAUNCH		(1u << 3)
#define EMGPU_CAP_LOCKSTEP		(1u << 4)	/* on: stops for SYNC, see below */
#define EMGPU_CAP_FAULT_INJECTION	(1u << 5)

#define EMGPU_PAGE_SIZE_4K		(1u << 0)
#define EMGPU_PAGE_SIZE_64K		(1u << 1)
#define EMGPU_PAGE_SIZE_2M		(1u << 2)

/*
 * Profiles; names and numbers live in models/src/profile.c. A profile may be
 * scaled to less VRAM (VRAM_SIZE); FULL_VRAM_SIZE is then the card it stands
 * for under the scaling rule (docs/model.md: the paper's card, capped at
 * 16 GiB), and k = FULL_VRAM_SIZE / VRAM_SIZE is what the driver divides its
 * per-card knobs by. With the rule off the two are equal (k = 1).
 */
enum emgpu_profile_id {
	EMGPU_PROFILE_NONE = 0,		/* reserved: catches uninitialised ids */
	EMGPU_PROFILE_RTX5080 = 1,
	EMGPU_PROFILE_A40 = 2,
	EMGPU_PROFILE_H200 = 3,
	EMGPU_PROFILE_GH200 = 4,
	EMGPU_PROFILE_H200X16 = 5,	/* the H200 measured in experiments/card-results/ */
};

/* ---------------------------------------------------------------------------
 * Error state: a bad guest value latches a code here and raises
 * EMGPU_INTR_ERROR; the device ignores the offending access.
 */
#define EMGPU_REG_ERROR_STATUS		0x0080	/* enum emgpu_error */
#define EMGPU_REG_ERROR_INFO		0x0084	/* register offset or address bits */
#define EMGPU_REG_ERROR_COUNT		0x0088	/* errors since reset */
#define EMGPU_REG_ERROR_CLEAR		0x008c	/* write 1: clear status and info */
#define EMGPU_REG_RESET			0x0090	/* write EMGPU_RESET_MAGIC: device reset */

#define EMGPU_RESET_MAGIC		0x52534554u	/* "RSET" */

enum emgpu_error {
	EMGPU_ERR_NONE = 0,
	EMGPU_ERR_BAD_REGISTER = 1,	/* unknown offset or bad access size */
	EMGPU_ERR_BAD_VALUE = 2,	/* value out of range for the register */
	EMGPU_ERR_BAD_RING = 3,		/* ring base/size misaligned or too large */
	EMGPU_ERR_BAD_INDEX = 4,	/* GET/PUT beyond the ring size */
	EMGPU_ERR_DMA = 5,		/* sysmem access outside guest RAM */
	EMGPU_ERR_VRAM_RANGE = 6,	/* vidmem address beyond VRAM */
	EMGPU_ERR_BAD_DESCRIPTOR = 7,	/* copy or launch descriptor malformed */
	EMGPU_ERR_BAD_PTE = 8,		/* reserved bits or bad aperture */
	EMGPU_ERR_POISON = 9,		/* read of a poisoned VRAM chunk */
	EMGPU_ERR_HANG = 10,		/* injected device hang */
	EMGPU_ERR_CE = 11,		/* injected copy-engine error (GA10x: the channel's RC) */
	/* GA10x: a running launch's channel was disabled or got another page
	 * directory; the launch ended (ERROR_INFO: the register written) */
	EMGPU_ERR_CHANNEL = 12,
	/* a write to VRAM not yet backed by host memory would take the
	 * backing past the embedder's cap (or the host had none to give);
	 * nothing of the write happened (ERROR_INFO: address bits) */
	EMGPU_ERR_VRAM_BACKING = 13,
};
#define EMGPU_ERR_LAST			EMGPU_ERR_VRAM_BACKING

/* ---------------------------------------------------------------------------
 * Interrupts: one MSI-X vector per cause (vector number == bit number).
 * STATUS bits are write-1-to-clear; a cause raises its vector only when
 * enabled and only on a 0->1 transition of its status bit.
 */
#define EMGPU_REG_INTR_STATUS		0x0100
#define EMGPU_REG_INTR_ENABLE		0x0104
#define EMGPU_REG_INTR_SET		0x0108	/* write: raise causes (self-test, like e1000's ICS) */

enum emgpu_intr_vector {
	EMGPU_INTR_VEC_FAULT = 0,
	EMGPU_INTR_VEC_ACCESS_COUNTER = 1,
	EMGPU_INTR_VEC_COPY = 2,
	EMGPU_INTR_VEC_LAUNCH = 3,
	EMGPU_INTR_VEC_TIMER = 4,
	EMGPU_INTR_VEC_ERROR = 5,
	EMGPU_MSIX_VECTORS = 6,
};

#define EMGPU_INTR_FAULT		(1u << EMGPU_INTR_VEC_FAULT)
#define EMGPU_INTR_ACCESS_COUNTER	(1u << EMGPU_INTR_VEC_ACCESS_COUNTER)
#define EMGPU_INTR_COPY			(1u << EMGPU_INTR_VEC_COPY)
#define EMGPU_INTR_LAUNCH		(1u << EMGPU_INTR_VEC_LAUNCH)
#define EMGPU_INTR_TIMER		(1u << EMGPU_INTR_VEC_TIMER)
#define EMGPU_INTR_ERROR		(1u << EMGPU_INTR_VEC_ERROR)
#define EMGPU_INTR_ALL			((1u << EMGPU_MSIX_VECTORS) - 1)

/* ---------------------------------------------------------------------------
 * MMU: page-directory base and TLB invalidation
 */
#define EMGPU_REG_PDB_LO		0x0200	/* EMGPU_PDE_* encoded root entry */
#define EMGPU_REG_PDB_HI		0x0204
#define EMGPU_REG_TLB_INV_VA_LO		0x0208	/* range start, 4K aligned */
#define EMGPU_REG_TLB_INV_VA_HI		0x020c
#define EMGPU_REG_TLB_INV_SIZE_LO	0x0210	/* range length in bytes */
#define EMGPU_REG_TLB_INV_SIZE_HI	0x0214
#define EMGPU_REG_TLB_INV		0x0218	/* write EMGPU_TLB_INV_* */
#define EMGPU_REG_TLB_INV_STATUS	0x021c	/* EMGPU_TLB_INV_PENDING */

#define EMGPU_TLB_INV_ALL		1u
#define EMGPU_TLB_INV_RANGE		2u
#define EMGPU_TLB_INV_PENDING		(1u << 0)

/* ---------------------------------------------------------------------------
 * Replayable fault buffer: a ring of struct emgpu_fault_entry in sysmem.
 * The device writes at PUT, the driver consumes at GET. A full ring sets
 * OVERFLOW and drops the fault (the warp stays stalled and re-faults on
 * replay), so no fault is lost without the flag.
 */
#define EMGPU_REG_FAULT_BUF_LO		0x0300	/* base, 4K aligned */
#define EMGPU_REG_FAULT_BUF_HI		0x0304
#define EMGPU_REG_FAULT_BUF_SIZE	0x0308	/* entries, power of two */
#define EMGPU_REG_FAULT_BUF_GET		0x030c	/* driver-owned */
#define EMGPU_REG_FAULT_BUF_PUT		0x0310	/* device-owned, read-only */
#define EMGPU_REG_FAULT_BUF_STATUS	0x0314	/* OVERFLOW is write-1-to-clear */
#define EMGPU_REG_FAULT_BUF_CTRL	0x0318	/* EMGPU_RING_ENABLE */
#define EMGPU_REG_FAULT_REPLAY		0x031c	/* write EMGPU_REPLAY_* */

#define EMGPU_RING_ENABLE		(1u << 0)
#define EMGPU_RING_OVERFLOW		(1u << 0)
#define EMGPU_RING_MAX_ENTRIES		(1u << 16)

#define EMGPU_REPLAY_START		1u	/* resume every stalled uTLB */
#define EMGPU_REPLAY_CANCEL		2u	/* fail the launch of every stalled warp */

/* Fault entry, 32 bytes, laid out like NVIDIA's C369 (dwords DW0..DW7). */
struct emgpu_fault_entry {
	emgpu_le64 inst;	/* DW0-1: launch sequence number */
	emgpu_le64 addr;	/* DW2-3: faulting VA, 4K aligned */
	emgpu_le64 timestamp;	/* DW4-5: PTIMER ns */
	emgpu_le32 engine;	/* DW6: ENGINE_ID[8:0], SM index */
	emgpu_le32 info;	/* DW7: see EMGPU_FAULT_INFO_* */
};
_Static_assert(sizeof(struct emgpu_fault_entry) == 32, "C369-sized entry");

/*
 * The source of a fault is its uTLB: GPC_ID names the GPC, CLIENT the uTLB
 * within it (0 .. UTLBS_PER_GPC - 1), so gpc * UTLBS_PER_GPC + client is a
 * device-wide uTLB id (EMGPU_FAULT_UTLB_ID). SM s translates through GPC
 * s % NUM_GPCS, uTLB (s / NUM_GPCS) % UTLBS_PER_GPC: neighbouring SMs of a
 * GPC share a uTLB once there are more SMs than uTLBs, as on hardware.
 * ARIADNE's sharing degree counts the distinct ids faulting on a block.
 */
#define EMGPU_FAULT_INFO_TYPE_MASK	0x0000001fu	/* [4:0] enum emgpu_fault_type */
#define EMGPU_FAULT_INFO_REPLAYABLE	(1u << 7)
#define EMGPU_FAULT_INFO_CLIENT_SHIFT	8		/* [14:8] uTLB within its GPC */
#define EMGPU_FAULT_INFO_CLIENT_MASK	0x00007f00u
#define EMGPU_FAULT_INFO_ACCESS_SHIFT	16		/* [19:16] enum emgpu_access_type */
#define EMGPU_FAULT_INFO_ACCESS_MASK	0x000f0000u
#define EMGPU_FAULT_INFO_GPC_SHIFT	24		/* [28:24] */
#define EMGPU_FAULT_INFO_GPC_MASK	0x1f000000u
#define EMGPU_FAULT_INFO_VALID		(1u << 31)
#define EMGPU_FAULT_UTLB_ID(info, utlbs_per_gpc)				\
	((((info) & EMGPU_FAULT_INFO_GPC_MASK) >> EMGPU_FAULT_INFO_GPC_SHIFT) * \
	 (utlbs_per_gpc) +							\
	 (((info) & EMGPU_FAULT_INFO_CLIENT_MASK) >> EMGPU_FAULT_INFO_CLIENT_SHIFT))

enum emgpu_fault_type {			/* NVIDIA dev_fault.h codes */
	EMGPU_FAULT_PDE = 1,
	EMGPU_FAULT_PTE = 2,
	EMGPU_FAULT_RO_VIOLATION = 6,
	EMGPU_FAULT_ATOMIC_VIOLATION = 0xf,
};

enum emgpu_access_type {
	EMGPU_ACCESS_READ = 0,
	EMGPU_ACCESS_WRITE = 1,
	EMGPU_ACCESS_ATOMIC = 2,
	EMGPU_ACCESS_PREFETCH = 3,
};

/* ---------------------------------------------------------------------------
 * Access counters: a ring of struct emgpu_notify_entry in sysmem. Counters
 * count GPU accesses through sysmem PTEs without EMGPU_PTE_ACD, per region
 * of the configured granularity; at THRESHOLD a notification is written and
 * the counter stops notifying (16-bit, saturating) until it is cleared.
 */
#define EMGPU_REG_AC_BUF_LO		0x0400
#define EMGPU_REG_AC_BUF_HI		0x0404
#define EMGPU_REG_AC_BUF_SIZE		0x0408	/* entries, power of two */
#define EMGPU_REG_AC_BUF_GET		0x040c
#define EMGPU_REG_AC_BUF_PUT		0x0410	/* read-only */
#define EMGPU_REG_AC_BUF_STATUS		0x0414	/* OVERFLOW, write-1-to-clear */
#define EMGPU_REG_AC_CTRL		0x0418	/* EMGPU_RING_ENABLE */
#define EMGPU_REG_AC_CONFIG		0x041c	/* threshold and granularity */
#define EMGPU_REG_AC_CLEAR_TAG		0x0420	/* counter tag for TARGETED */
#define EMGPU_REG_AC_CLEAR		0x0424	/* write EMGPU_AC_CLEAR_* */

#define EMGPU_AC_CONFIG_THRESHOLD_MASK	0x0000ffffu	/* [15:0], 0 is invalid */
#define EMGPU_AC_CONFIG_GRAN_SHIFT	16		/* [17:16] */
#define EMGPU_AC_CONFIG_GRAN_MASK	0x00030000u
#define EMGPU_AC_GRAN_64K		0u
#define EMGPU_AC_GRAN_2M		1u
#define EMGPU_AC_GRAN_16M		2u
/* AC_CONFIG after reset: threshold 256, one counter per 2 MiB */
#define EMGPU_AC_CONFIG_DEFAULT		(256u | EMGPU_AC_GRAN_2M << EMGPU_AC_CONFIG_GRAN_SHIFT)
#define EMGPU_AC_CLEAR_ALL		1u
#define EMGPU_AC_CLEAR_TARGETED		2u

/* Notification entry, 32 bytes, laid out like NVIDIA's C365. */
struct emgpu_notify_entry {
	emgpu_le32 info;	/* DW0: TYPE[0] (0 = MIMC, 1 = MOMC), APERTURE[9:8] */
	emgpu_le32 reserved;	/* DW1 */
	emgpu_le64 addr;	/* DW2-3: region VA, aligned to the granularity */
	emgpu_le32 sub_mask;	/* DW4: accessed 1/32 sub-regions */
	emgpu_le32 tag;		/* DW5: NOTIFY_TAG[19:0], counter index */
	emgpu_le32 counter;	/* DW6: COUNTER_VAL[15:0] */
	emgpu_le32 flags;	/* DW7: VALID[31] */
};
_Static_assert(sizeof(struct emgpu_notify_entry) == 32, "C365-sized entry");

#define EMGPU_NOTIFY_TAG_MASK		0x000fffffu
#define EMGPU_NOTIFY_COUNTER_MASK	0x0000ffffu
#define EMGPU_NOTIFY_VALID		(1u << 31)

/* ---------------------------------------------------------------------------
 * Copy engine: a ring of struct emgpu_ce_desc in sysmem. The driver writes
 * descriptors, advances PUT and rings the doorbell; the device advances GET
 * as it completes them, writes each requested semaphore payload and raises
 * EMGPU_INTR_COPY for descriptors with EMGPU_CE_INTERRUPT.
 */
#define EMGPU_REG_CE_RING_LO		0x0500
#define EMGPU_REG_CE_RING_HI		0x0504
#define EMGPU_REG_CE_RING_SIZE		0x0508	/* entries, power of two */
#define EMGPU_REG_CE_RING_GET		0x050c	/* read-only */
#define EMGPU_REG_CE_RING_PUT		0x0510
#define EMGPU_REG_CE_DOORBELL		0x0514
#define EMGPU_REG_CE_SEM_LO		0x0518	/* 4-byte semaphore in sysmem */
#define EMGPU_REG_CE_SEM_HI		0x051c
#define EMGPU_REG_CE_STATUS		0x0520	/* EMGPU_CE_STATUS_* */
#define EMGPU_REG_CE_DONE_TIME_LO	0x0524	/* sim ns the last descriptor completes */
#define EMGPU_REG_CE_DONE_TIME_HI	0x0528

#define EMGPU_CE_STATUS_BUSY		(1u << 0)	/* a push is under way */
#define EMGPU_CE_STATUS_ERROR		(1u << 1)	/* last descriptor failed */

enum emgpu_aperture {			/* NVIDIA's VER2 aperture codes */
	EMGPU_APERTURE_VIDMEM = 0,
	EMGPU_APERTURE_SYSMEM = 2,
};

enum emgpu_ce_op {
	EMGPU_CE_OP_NOP = 0,
	EMGPU_CE_OP_COPY = 1,		/* src -> dst, length bytes */
	EMGPU_CE_OP_MEMSET = 2,		/* vidmem dst filled with the 32-bit src */
};

struct emgpu_ce_desc {
	emgpu_le32 op;		/* enum emgpu_ce_op */
	emgpu_le32 flags;	/* EMGPU_CE_* */
	emgpu_le64 src;		/* address, or memset pattern */
	emgpu_le64 dst;
	emgpu_le32 length;	/* bytes, multiple of 4 */
	emgpu_le32 payload;	/* semaphore value written on completion */
};
_Static_assert(sizeof(struct emgpu_ce_desc) == 32, "32-byte descriptor");

#define EMGPU_CE_SRC_APERTURE_SHIFT	0	/* [1:0] enum emgpu_aperture */
#define EMGPU_CE_DST_APERTURE_SHIFT	2	/* [3:2] */
#define EMGPU_CE_APERTURE_MASK		3u
#define EMGPU_CE_SEMAPHORE		(1u << 8)
#define EMGPU_CE_INTERRUPT		(1u << 9)

/* ---------------------------------------------------------------------------
 * Kernel launch: the driver points LAUNCH_DESC at a struct
 * emgpu_launch_desc in sysmem and rings the doorbell; completion raises
 * EMGPU_INTR_LAUNCH with the outcome in LAUNCH_STATUS.
 */
#define EMGPU_REG_LAUNCH_DESC_LO	0x0600
#define EMGPU_REG_LAUNCH_DESC_HI	0x0604
#define EMGPU_REG_LAUNCH_DOORBELL	0x0608
#define EMGPU_REG_LAUNCH_STATUS		0x060c	/* enum emgpu_launch_status */
#define EMGPU_REG_LAUNCH_SEQ		0x0610	/* launches completed */
#define EMGPU_REG_LAUNCH_TIME_LO	0x0614	/* sim ns of the last launch */
#define EMGPU_REG_LAUNCH_TIME_HI	0x0618
#define EMGPU_REG_LAUNCH_RESULT_LO	0x061c	/* kernel checksum of the last launch */
#define EMGPU_REG_LAUNCH_RESULT_HI	0x0620

enum emgpu_launch_status {
	EMGPU_LAUNCH_IDLE = 0,
	EMGPU_LAUNCH_RUNNING = 1,
	EMGPU_LAUNCH_DONE = 2,
	EMGPU_LAUNCH_CANCELLED = 3,	/* a fault was cancelled */
	EMGPU_LAUNCH_ERROR = 4,		/* bad descriptor or device error */
};

#define EMGPU_LAUNCH_MAX_ARGS		8

struct emgpu_launch_desc {
	emgpu_le32 kernel;	/* enum emgpu_kernel_id */
	emgpu_le32 warps;	/* warps to run, 0 = one per SM slot */
	emgpu_le64 seed;	/* for kernels with random access patterns */
	emgpu_le64 args[EMGPU_LAUNCH_MAX_ARGS];	/* GPU VAs and sizes, per kernel */
};
_Static_assert(sizeof(struct emgpu_launch_desc) == 80, "launch descriptor");

/*
 * Built-in kernels; arguments are documented at each kernel's source
 * (models/src/kernels/<name>.c). Buffers are 128-byte aligned, sizes are
 * multiples of 128 bytes unless stated; every warp works on 128-byte lines.
 *  STREAM: args[0] buf VA, [1] bytes, [2] passes (0 = 1). Each pass adds 1
 *          to every 32-bit word (read-modify-write); line i goes to warp
 *          i % warps. Result: sum of all words read.
 *  GATHER: args[0] src VA, [1] src bytes, [2] dst VA, [3] count (multiple
 *          of 32). Item k reads src line (splitmix64(seed + k) % lines) and
 *          stores the sum of its 32 words at dst + 4 k. Result: sum of items.
 *  HOTSET: args[0] buf VA, [1] bytes, [2] window bytes (multiple of 4 KiB,
 *          0 = bytes), [3] random percent 0..100, [4] reuse (accesses per
 *          page, 0 = 1), [5] passes (0 = 1). A window slides over the
 *          buffer; each access goes to a random page of the buffer with the
 *          random percentage, else to the window's current page, which
 *          advances after `reuse` accesses (Ember paper, Figures 11 and 16).
 *          Read-only. Result: sum of the first word of every line read.
 *
 * The application kernels (the Ember paper's section 7.3 workloads, plus
 * proxies for LLM decode and SSB queries). Multi-phase algorithms run one
 * phase per launch: the launch's completion is the barrier between phases,
 * and the driver (guest) launches the kernel once per phase with the
 * phase in the arguments. Every kernel writes its results to memory;
 * 32-bit words are little-endian.
 *  PATHFINDER: args[0] wall VA (rows x cols u32, row-major), [1] rows,
 *          [2] cols (multiple of 32), [3] row r (1 <= r < rows), [4] prev
 *          VA, [5] next VA (cols u32 each). One DP row: next[c] =
 *          wall[r][c] + min(prev[c-1], prev[c], prev[c+1]) (missing
 *          neighbours ignored). Row 1 reads prev = wall row 0. Line i goes
 *          to warp i % warps. Result: sum of next[].
 *  KMEANS: args[0] points VA (n points x 4 u32 coordinates, 16 bytes
 *          each), [1] n (multiple of 32), [2] centroids VA (one line: 4
 *          centroids x 4 u32 at words 0..15, counts at words 16..19),
 *          [3] membership VA (n u32), [4] accum VA (two lines: 16 u64
 *          coordinate sums, then 4 u64 counts; zero before the first
 *          iteration), [5] mode. Mode 0 (assign) reads every point, writes
 *          its nearest centroid (squared distance, ties to the lower index)
 *          to membership and adds per-warp sums into accum with an atomic
 *          read-modify-write per line; result: sum of the distances.
 *          Mode 1 (update, warp 0) sets each centroid to sum / count
 *          (unchanged when empty), writes the counts, zeroes accum;
 *          result: sum of the new coordinates. One iteration = mode 0
 *          then mode 1.
 *  CONV:   args[0] in VA (channels x height x width u32, planar), [1]
 *          height, [2] width (multiple of 32), [3] channels (1..3), [4]
 *          weights VA (one line: channels x 3 x 3 int32, row-major), [5]
 *          out VA (height x width u32). out[y][x] = max(0, sum over c, dy,
 *          dx of w[c][dy][dx] * in[c][y+dy-1][x+dx-1]), zero padding. Output
 *          line o goes to warp o % warps. Result: sum of out[].
 *  BITONIC: args[0] buf VA (u32 keys), [1] bytes (lines = bytes / 128),
 *          [2] segment lines S (power of two dividing lines; G = lines / S
 *          interleaved segments: segment g is lines g, g + G, g + 2G, ...),
 *          [3] k, [4] j: one pass of the bitonic network over every
 *          segment's 32 S elements. j >= 32 (power of two < k): compare-
 *          exchange of lines j / 32 apart (the strided pass). j == 0: every
 *          stage of block size k with stride < 32, inside each line; k ==
 *          32 does blocks 2..32 (sorts each line). Ascending where element
 *          index & k == 0. Passes for k = 32, then for k = 64 .. 32 S: j =
 *          k / 2 .. 32, then 0, sort each segment ascending. Result: sum of
 *          the keys.
 *  RADIX:  args[0] src VA, [1] n keys (u32, multiple of 32), [2] dst VA,
 *          [3] hist VA (chunks x 16 u32, 64 bytes each), [4] shift (digit =
 *          key >> shift & 15), [5] mode, [6] chunks C (chunk c = key lines
 *          [c L / C, (c + 1) L / C), to warp c % warps). One LSD pass of 4
 *          bits = three launches: mode 0 counts each chunk's digits into
 *          hist; mode 1 (warp 0) turns hist into each chunk's first output
 *          index per digit; mode 2 scatters src to dst (stable), a store per
 *          run of equal digits in a line. Result: mode 0/1 0, mode 2 sum of
 *          key x (1 + index) over dst.
 *  BFS:    args[0] row_ptr VA ((vertices + 1) u64), [1] vertices (multiple
 *          of 32), [2] col VA (edges u64), [3] edges, [4] level VA
 *          (vertices u32, 0xffffffff = unvisited), [5] cur. One level of a
 *          top-down BFS: every vertex whose level is cur sets each
 *          unvisited neighbour to cur + 1. Level line i to warp i % warps.
 *          Result: the number of vertices at level cur (0: BFS is done).
 *  GEMV:   args[0] W VA (rows x cols int8, row-major), [1] rows (multiple
 *          of 4), [2] cols (multiple of 128), [3] x VA (cols int8), [4] y VA
 *          (rows bytes), [5] shift, [6] rows per work item R (4, 8, 16,
 *          32; 0 = 4). One decode token: y[r] = (u8)(sum of W[r][c] x[c]
 *          (int32, as u32) >> shift). Rows go to warps in groups of R (R =
 *          32: Polybench's thread per row, ARIADNE's sparse GEMV). Every
 *          launch re-reads all weights. Result: sum of the int32 dot
 *          products (as u32).
 *  COLSCAN: args[0] table VA (columns of rows u32 each, column c at table
 *          + c rows 4), [1] rows (multiple of 512), [2] columns (1..16),
 *          [3] out VA (rows / 32 u64), [4] query: filter columns f1 [7:0],
 *          f2 [15:8], f3 [23:16], aggregate columns a [31:24], b [39:32]
 *          (0xff: no filter; b 0xff: factor 1), [5..7] the filters'
 *          inclusive ranges, lo [31:0] hi [63:32]. For each line of 32 rows
 *          writes sum of a * b (u64) over rows passing every filter; a
 *          column is read only while some row of the line still passes.
 *          Result: the sum over all rows.
 *
 * ARIADNE's workloads (sparse, dense and mixed sharing degrees): ATAX is
 * GEMV with R = 32 then GEMVT; BFS and GEMV above.
 *  GEMVT:  args[0] A VA (rows x cols int8), [1] rows (multiple of 128),
 *          [2] cols (multiple of 32), [3] t VA (rows int8), [4] y VA (cols
 *          int32). y[c] = sum of A[r][c] t[r] (int32); one item per 32
 *          columns walks every row. Result: sum of y (as u32).
 *  GEMM:   args[0] A VA (m x k int8), [1] m, [2] k (multiple of 128), [3] B
 *          VA (k x n int8), [4] n (multiple of 32), [5] C VA (m x n
 *          int32), [6] p0, [7] tile (0: all of k). C = A B (int32), or
 *          with a tile C += A[:, p0 .. p0 + tile) B[p0 .. p0 + tile, :]
 *          (multiples of 128); one item per 32-column strip of a row of
 *          C. Result: sum of the C lines stored (as u32).
 *  NW:     args[0] H VA (n + 1 rows of n + 32 int32, cell (i, j) at word
 *          i (n + 32) + 31 + j), [1] n (multiple of 32), [2] ref VA (n x n
 *          int32), [3] gap, [4] tile diagonal d (0 .. 2 n / 32 - 2). One
 *          anti-diagonal of 32 x 32 tiles of Needleman-Wunsch: H[i][j] =
 *          max(H[i-1][j-1] + ref[i-1][j-1], H[i-1][j] - gap, H[i][j-1] -
 *          gap); the guest fills row and column 0. Result: sum of the
 *          cells computed (each as u32).
 *  TRACE:  args[0] table VA (args[1] entries of {u64 first record, u64
 *          count}, one per captured warp), [1] warps, [2] records VA (u32
 *          records below), [3] records, [4] base VA, [5] span bytes, [6]
 *          compute per access in 1/256 warp instructions. Each item is one
 *          captured warp's accesses in order. Result: the sum of the words
 *          of every line read (each as u32).
 */
enum emgpu_kernel_id {
	EMGPU_KERNEL_NONE = 0,
	EMGPU_KERNEL_STREAM = 1,	/* args: buf VA, bytes, passes */
	EMGPU_KERNEL_GATHER = 2,	/* args: src VA, src bytes, dst VA, count */
	EMGPU_KERNEL_HOTSET = 3,	/* args: buf VA, bytes, window, random %, reuse, passes */
	EMGPU_KERNEL_PATHFINDER = 4,	/* args: wall VA, rows, cols, row, prev VA, next VA */
	EMGPU_KERNEL_KMEANS = 5,	/* args: points VA, n, centroids VA, membership VA, accum VA, mode */
	EMGPU_KERNEL_CONV = 6,		/* args: in VA, height, width, channels, weights VA, out VA */
	EMGPU_KERNEL_BITONIC = 7,	/* args: buf VA, bytes, segment lines, k, j */
	EMGPU_KERNEL_RADIX = 8,		/* args: src VA, n, dst VA, hist VA, shift, mode, chunks */
	EMGPU_KERNEL_BFS = 9,		/* args: row_ptr VA, vertices, col VA, edges, level VA, cur */
	EMGPU_KERNEL_GEMV = 10,		/* args: W VA, rows, cols, x VA, y VA, shift, rows per item */
	EMGPU_KERNEL_COLSCAN = 11,	/* args: table VA, rows, columns, out VA, query, 3 ranges */
	EMGPU_KERNEL_GEMVT = 12,	/* args: A VA, rows, cols, t VA, y VA */
	EMGPU_KERNEL_GEMM = 13,		/* args: A VA, m, k, B VA, n, C VA, p0, tile */
	EMGPU_KERNEL_NW = 14,		/* args: H VA, n, ref VA, gap, diagonal */
	EMGPU_KERNEL_TRACE = 15,	/* args: table VA, warps, records VA, records, base VA, span, compute */
};

/*
 * TRACE (models/src/kernels/trace.c; docs/trace-replay.md): a captured
 * launch's per-warp streams. A record is a u32, (line index from the base
 * VA << 2) | these flags; a write stores emgpu_trace_word() at every word
 * of its line, so the guest knows what each line holds.
 */
#define EMGPU_TRACE_REC_READ		0x1u
#define EMGPU_TRACE_REC_WRITE		0x2u
#define EMGPU_TRACE_REC_SHIFT		2

static inline uint32_t emgpu_trace_word(uint64_t seed, uint64_t va)
{
	return (uint32_t)(va >> 2) * 2654435761u ^ (uint32_t)(va >> 34) ^
	       (uint32_t)(seed * 40503u) ^ 0x9e3779b9u;
}

/* ---------------------------------------------------------------------------
 * Policy timer and lockstep hand-off
 */
#define EMGPU_REG_TIMER_PERIOD_LO	0x0700	/* sim ns between EMGPU_INTR_TIMER; 0 = off */
#define EMGPU_REG_TIMER_PERIOD_HI	0x0704
#define EMGPU_REG_SYNC			0x0800	/* write: driver hands the clock back */
#define EMGPU_REG_SYNC_STATUS		0x0804	/* EMGPU_SYNC_WAITING */
#define EMGPU_REG_DRIVER_TIME		0x0808	/* write: sim ns the driver's work cost */
#define EMGPU_REG_DRIVER_THREAD		0x080c	/* enum emgpu_driver_thread charged next */
#define EMGPU_REG_DRIVER_ACTION		0x0810	/* write: action[7:0] | count[31:8] */

#define EMGPU_SYNC_WAITING		(1u << 0)

/*
 * Lockstep (CAPS.LOCKSTEP set; the default): at every event that needs the
 * driver (fault batch, notifications, timer tick) the device sets
 * SYNC_STATUS.WAITING and stands still until SYNC. The interrupts of events
 * that happen while warps run are raised at that stop, not before. Between
 * stops the fault and notification rings may already hold entries of the
 * work under way: a driver that wants the same trace for the same program
 * services them only while WAITING is set or no launch runs.
 */

/*
 * Driver timelines: DRIVER_TIME, DRIVER_ACTION, TLB invalidations and copy
 * engine doorbells are charged to the selected thread. Work on the FAULT
 * and POPULATE threads (and copies they start, which they wait for) delays
 * the next REPLAY; work on the other threads delays no warp.
 *
 * POPULATE lets a driver pipeline fault servicing as ARIADNE does: it
 * charges a block's populate (chunk allocation, page-table preparation:
 * EMGPU_DRV_ACTION_CHUNK_ALLOC, PTE_UPDATE) to POPULATE while the FAULT
 * thread copies the previous block, and makes FAULT wait for a populate
 * with EMGPU_DRV_ACTION_JOIN before copying into it. A driver that uses
 * FAULT alone runs populate and copy back to back.
 */
enum emgpu_driver_thread {
	EMGPU_DRV_THREAD_FAULT = 0,	/* fault servicing: on the critical path */
	EMGPU_DRV_THREAD_NOTIFY = 1,	/* access-counter servicing */
	EMGPU_DRV_THREAD_WORKER = 2,	/* background worker (reclamation) */
	EMGPU_DRV_THREAD_POPULATE = 3,	/* fault-path helper: on the critical path */
	EMGPU_DRV_THREADS = 4,
};

/* Driver actions; each costs the profile's time for it, times count. */
enum emgpu_driver_action {
	EMGPU_DRV_ACTION_NONE = 0,
	EMGPU_DRV_ACTION_FAULT_PAGE = 1,	/* one faulted page serviced */
	EMGPU_DRV_ACTION_PTE_UPDATE = 2,	/* one PTE written */
	EMGPU_DRV_ACTION_CHUNK_ALLOC = 3,	/* one 2 MiB chunk allocated */
	EMGPU_DRV_ACTION_CHUNK_EVICT = 4,	/* one 2 MiB chunk evicted (bookkeeping) */
	EMGPU_DRV_ACTION_NOTIFY_ENTRY = 5,	/* one notification serviced */
	EMGPU_DRV_ACTION_JOIN = 6,		/* no cost: the selected thread
						 * waits until thread `count` is
						 * idle (enum emgpu_driver_thread) */
	EMGPU_DRV_ACTION_FAULT_BLOCK = 7,	/* one VA block of a fault batch
						 * migrated from host memory */
	EMGPU_DRV_ACTION_HOST_PAGE = 8,		/* one host page a migration to
						 * the host allocates and maps */
	EMGPU_DRV_ACTIONS = 9,
};
#define EMGPU_DRV_ACTION_CODE_MASK	0x000000ffu
#define EMGPU_DRV_ACTION_COUNT_SHIFT	8

/* ---------------------------------------------------------------------------
 * Page tables: NVIDIA MMU VER2-like radix tree over a 48-bit VA, walked by
 * the device from vidmem or sysmem. Four levels of 512 8-byte entries:
 *   PD3 VA[47:39] -> PD2 VA[38:30] -> PD1 VA[29:21] -> PT VA[20:12]
 * A PD1 entry with EMGPU_PDE_IS_PTE maps a 2 MiB page directly.
 */
#define EMGPU_VA_BITS			48
#define EMGPU_PT_LEVELS			4
#define EMGPU_PT_ENTRIES		512
#define EMGPU_PAGE_SHIFT		12
#define EMGPU_BIG_PAGE_SHIFT		16
#define EMGPU_HUGE_PAGE_SHIFT		21

#define EMGPU_PTE_VALID			(1ull << 0)
#define EMGPU_PTE_APERTURE_SHIFT	1	/* [2:1] enum emgpu_aperture */
#define EMGPU_PTE_APERTURE_MASK		(3ull << 1)
#define EMGPU_PTE_ACD			(1ull << 5)	/* access counting disabled */
#define EMGPU_PTE_READ_ONLY		(1ull << 6)
#define EMGPU_PTE_ATOMIC_DISABLE	(1ull << 7)
#define EMGPU_PDE_IS_PTE		(1ull << 8)	/* PD1 only: 2 MiB leaf */
#define EMGPU_PTE_BIG			(1ull << 9)	/* PT only: 64 KiB page, see below */
#define EMGPU_PTE_ADDR_MASK		0x000ffffffffff000ull	/* [51:12] */
#define EMGPU_PTE_RESERVED_MASK		0xfff0000000000c18ull

/*
 * A 64 KiB page is one PT entry with EMGPU_PTE_BIG at the first 4K index of
 * a naturally aligned group of 16; the other 15 entries must be invalid.
 */

/* One entry of any level (PDB, PDE or PTE) as it lies in memory. */
typedef emgpu_le64 emgpu_pte_t;
#define EMGPU_PTE_SIZE			8

/*
 * A valid entry pointing at addr in `aperture` (enum emgpu_aperture), with
 * extra EMGPU_PTE_* / EMGPU_PDE_IS_PTE bits: a PDE (addr = the next table)
 * or a leaf (addr = the page). In CPU order; store it with
 * emgpu_cpu_to_le64().
 */
static inline uint64_t emgpu_pte_encode(unsigned int aperture, uint64_t addr,
					uint64_t extra)
{
	return EMGPU_PTE_VALID |
	       ((uint64_t)aperture << EMGPU_PTE_APERTURE_SHIFT &
		EMGPU_PTE_APERTURE_MASK) |
	       (addr & EMGPU_PTE_ADDR_MASK) | extra;
}

#endif /* EMGPU_HW_H */
