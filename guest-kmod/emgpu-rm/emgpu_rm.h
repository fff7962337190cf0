/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emgpu-rm.ko's internal declarations. nv_uvm_interface.h is the branch's
 * own (from Debian's nvidia-open-kernel-source, at build time), included
 * as nvidia.ko's export unit includes it (through nv-linux.h).
 *
 * Locking (docs/rm-standin.md):
 *  - emgpu_rm.lock (mutex, emgpu_rm.c): the callbacks, sessions and the one
 *    probed GPU pointer.
 *  - gpu->lock (mutex): every object of that GPU (devices, address spaces
 *    and their allocations and page tables, TSGs, channels, retained
 *    channels, fault and access-counter buffers), the compute channels'
 *    references and the users' accounts, and the channel registers.
 *    Taken after emgpu_rm.lock, never before.
 *  - gpu->launch_lock (mutex, emgpu_rm_user.c): the device's one launch
 *    engine, held across a user launch and its wait. Taken before
 *    gpu->lock, never while holding it.
 *  - gpu->pma.lock (spinlock): the PMA's frame states and statistics; a
 *    leaf lock (nvidia-uvm calls PMA with its own locks held).
 *  - The MSI-X handler takes no lock: it reads gpu->isr_forward and the
 *    callbacks with READ_ONCE; whoever clears them calls synchronize_irq().
 */
#ifndef EMGPU_RM_H
#define EMGPU_RM_H

#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "nv_uvm_interface.h"

#include "emgpu_hw.h"
#include "ga10x/regs.h"
#include "ga10x/access_counter_c365.h"
#include "ga10x/mmu_v2.h"
#include "gh100/mmu_v3.h"
#include "gh100/regs.h"

/* Answer of a function not backed: warns once, NV_ERR_NOT_SUPPORTED. */
NV_STATUS emgpu_rm_unbacked(const char *function);

/* ---- what the stand-in reports (values are NVIDIA's) ---- */
/* NV2080_CTRL_MC_ARCH_INFO_* (ctrl2080mc.h) and the classes of each */
#define EMGPU_RM_ARCH_GA100		0x170
#define EMGPU_RM_IMPL_GA102		0x2
#define EMGPU_RM_ARCH_GH100		0x180
#define EMGPU_RM_IMPL_GH100		0x0
#define EMGPU_RM_CLASS_AMPERE_CHANNEL_GPFIFO_A	0xc56f
#define EMGPU_RM_CLASS_AMPERE_DMA_COPY_B	0xc7b5
#define EMGPU_RM_CLASS_AMPERE_COMPUTE_B		0xc7c0
#define EMGPU_RM_CLASS_HOPPER_CHANNEL_GPFIFO_A	0xc86f
#define EMGPU_RM_CLASS_HOPPER_DMA_COPY_A	0xc8b5
#define EMGPU_RM_CLASS_HOPPER_COMPUTE_A		0xcbc0
/* the only big page size nvidia-uvm's Ampere and Hopper MMU HALs take */
#define EMGPU_RM_BIG_PAGE_SIZE		(64u << 10)
#define EMGPU_RM_MAX_SUBCTX		64	/* VEIDs of a TSG, both */
#define EMGPU_RM_FAULT_ENTRY_SIZE	32	/* NVC369_BUF_SIZE */
#define EMGPU_RM_AC_ENTRY_SIZE		32	/* NVC365_NOTIFY_BUF_SIZE */
#define EMGPU_RM_FAULT_ENTRIES		1024
#define EMGPU_RM_AC_ENTRIES		1024
/* VRAM below this (and below BAR2's end) is the RM's own heap */
#define EMGPU_RM_HEAP_MAX		(32ull << 20)
/* the RM's GPU VAs start here and end at the arch's rm_va_end */
#define EMGPU_RM_VA_START		(4ull << 30)
/* the user's RM handles (/dev/emgpu-rm): BASE + a cyclic id below IDS */
#define EMGPU_RM_HANDLE_BASE		0xe7000000u
#define EMGPU_RM_HANDLE_IDS		(1u << 24)

/*
 * The page-table format of the RM's own address spaces (written by the
 * CPU in sysmem, 4K PTEs only), as the personality's MMU walks them:
 * MMU VER2 on GA10x, VER3 on GH100 (the encoders are the model's,
 * ga10x/mmu_v2.h and gh100/mmu_v3.h). Level 0 is the root nvidia-uvm's
 * SetPageDirectory hands over; level @pd0 holds dual PDEs, whose small
 * half points at the last level, the 4K table.
 */
#define EMGPU_RM_MMU_LEVELS_MAX		6

struct emgpu_rm_mmu_format {
	unsigned int levels;
	unsigned int pd0;
	unsigned int shift[EMGPU_RM_MMU_LEVELS_MAX];	/* lowest VA bit indexed */
	unsigned int entries[EMGPU_RM_MMU_LEVELS_MAX];
	u64 (*pde)(u64 table);		/* a sysmem table */
	u64 (*pde0_small)(u64 table);	/* PD0's high word: a sysmem 4K table */
	u64 (*pte)(bool sysmem, u64 phys);
};

extern const struct emgpu_rm_mmu_format emgpu_rm_mmu_ver2, emgpu_rm_mmu_ver3;

/*
 * What nvidia-uvm is told of one personality of emgpu (GetGpuInfo,
 * ChannelAllocate) and the RM's page-table format in it. Probe picks one
 * by the PCI device id the device's personality has (emgpu_rm_ids), so the
 * stand-in can never report one architecture while the device walks
 * another's tables.
 */
struct emgpu_rm_arch {
	const char *name;		/* UvmGpuInfo.name */
	u32 arch, impl;			/* selects nvidia-uvm's HAL (uvm_hal.c) */
	u32 host_class, ce_class, compute_class;
	const struct emgpu_rm_mmu_format *mmu;
	/*
	 * The end of the RM's GPU VAs: inside nvidia-uvm's rm range and below
	 * its max_channel_va (the VAs host and copy engine reach): 1 TB on
	 * Ampere; on Hopper the whole rm range (64 PB), as nvidia-uvm asks
	 * for RM memory aligned to 1 TB there (a pushbuffer in an upper
	 * segment, CHANNEL_SANITY's pushbuffer extension base test)
	 */
	u64 rm_va_end;
};

/*
 * The objects behind nvidia-uvm's handles. genksyms must not see them:
 * nvidia.ko's export unit knows these structs only by name, and a visible
 * definition would enter every CRC of a function taking a handle.
 */
#ifndef __GENKSYMS__
struct emgpu_rm_pt {
	u64 *cpu;			/* one 4K page, DMA-coherent */
	dma_addr_t dma;
	struct emgpu_rm_pt **child;	/* one per entry, or NULL for a PT */
};

/* One RM allocation: backing memory and its RM VA. */
struct emgpu_rm_alloc {
	struct list_head node;		/* in vas->allocs */
	u64 va;
	u64 size;			/* page-aligned */
	bool sysmem;
	void *cpu;			/* sysmem: kernel VA */
	dma_addr_t dma;			/* sysmem: GPU physical (contiguous ones) */
	/*
	 * sysmem larger than EMGPU_RM_CONTIG_MAX (the 16 MiB pushbuffer): one
	 * page each, mapped at consecutive RM VAs and vmap()ed for the CPU;
	 * NULL for a contiguous allocation
	 */
	struct page **pages;
	dma_addr_t *dmas;
	u64 vid_offset;			/* vidmem: offset in VRAM */
};

struct emgpu_rm_gpu;
struct emgpu_rm_client;

/*
 * What an RM handle of /dev/emgpu-rm names (gpu->handles): the client of
 * one open file, or one of its VA spaces or channels. client is the file's
 * client (itself for a client), NULL once the user freed the object while
 * nvidia-uvm still holds it (a VA space nvidia-uvm duped).
 */
enum emgpu_rm_object_type {
	EMGPU_RM_OBJ_CLIENT = 1,
	EMGPU_RM_OBJ_VA_SPACE,
	EMGPU_RM_OBJ_CHANNEL,
};

struct emgpu_rm_object {
	u32 handle;			/* 0: not a user object */
	enum emgpu_rm_object_type type;
	struct emgpu_rm_client *client;
};

struct uvmGpuDevice_tag {
	struct list_head node;		/* in gpu->devices */
	struct emgpu_rm_gpu *gpu;
};

struct uvmGpuAddressSpace_tag {
	struct list_head node;		/* in gpu->address_spaces */
	struct uvmGpuDevice_tag *device;
	struct emgpu_rm_pt root;	/* the RM's root directory */
	u64 va_next, va_end;		/* bump allocator of RM VAs */
	struct list_head allocs;
	/* nvidia-uvm's page directory once SetPageDirectory moved us there */
	bool external_pdb;
	u64 pdb;
	bool pdb_vidmem;
	/* the stand-in's own DMA mapping of a sysmem pdb (EMGPU_RM_PD_DMA_ADDRESS) */
	bool pdb_mapped;
	/*
	 * A user VA space (EMGPU_RM_VA_SPACE_CREATE): its handle, and the
	 * DupAddressSpace references nvidia-uvm holds on it; it lives until
	 * the user freed it and nvidia-uvm destroyed every dup.
	 */
	struct emgpu_rm_object user;
	unsigned int dups;
	unsigned int user_channels;	/* compute channels in it */
};

struct uvmGpuTsg_tag {
	struct list_head node;		/* in gpu->tsgs */
	struct uvmGpuAddressSpace_tag *vas;
	unsigned int id;
	unsigned int ce;
	unsigned int channels;
};

/*
 * The channels charged to one user (the opener's effective uid) of
 * /dev/emgpu-rm, for max_channels_per_user: each compute channel until
 * its hardware channel is free again (emgpu_rm_user.c).
 */
struct emgpu_rm_account {
	struct list_head node;		/* in gpu->accounts */
	kuid_t uid;
	unsigned int refs;		/* its open files and channels */
	unsigned int channels;
};

struct uvmGpuChannel_tag {
	struct list_head node;		/* in gpu->channels */
	struct uvmGpuTsg_tag *tsg;
	unsigned int id;		/* hwChannelId, register block */
	struct emgpu_rm_alloc *inst, *gpfifo, *userd, *notifier;
	u32 token;
	/*
	 * A compute channel (EMGPU_RM_CHANNEL_CREATE): its handle (its TSG is
	 * its own, on no list), the user it is charged to, and its references
	 * (gpu->lock): the handle's, one per RetainChannel, one while a
	 * launch may still run in it (gpu->launch_channel), one a launch
	 * ioctl holds across its wait. Its hardware channel and instance
	 * block are freed with the last (emgpu_rm_fifo.c).
	 */
	struct emgpu_rm_object user;
	struct emgpu_rm_account *account;
	struct kref ref;
	/* a compute channel stopped (StopChannel, its handle freed): for good */
	bool stopped;
};

/* One RetainChannel: holds a reference on the channel until released. */
struct emgpu_rm_retained {
	struct list_head node;		/* in gpu->retained */
	struct uvmGpuChannel_tag *channel;
};

/* PMA over VRAM above the RM heap, in 64K frames. */
enum { EMGPU_PMA_FREE, EMGPU_PMA_ALLOCATED, EMGPU_PMA_PINNED };
#define EMGPU_PMA_FRAME			(64ull << 10)
#define EMGPU_PMA_FRAMES_PER_2M		32

struct emgpu_rm_pma {
	spinlock_t lock;		/* protects everything below */
	u64 base, end;			/* VRAM offsets, 2M-aligned */
	unsigned long frames;
	u8 *state;			/* EMGPU_PMA_* per frame */
	u8 *free_in_2m;			/* free frames per 2M chunk */
	UvmPmaStatistics stats;
	uvmPmaEvictPagesCallback evict_pages;
	uvmPmaEvictRangeCallback evict_range;
	void *evict_data;
};

struct emgpu_rm_gpu {
	struct pci_dev *pdev;
	const struct emgpu_rm_arch *arch;	/* by the PCI device id */
	void __iomem *bar0;
	void __iomem *bar2;
	u64 bar2_size;
	u64 vram_size;
	u32 num_gpcs, num_sms, warps_per_sm, num_ces;
	NvProcessorUuid uuid;
	char uuid_text[48];		/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
	int irq;

	struct mutex lock;		/* see the top of this file */
	unsigned int registered;	/* RegisterGpu references */
	struct list_head devices, address_spaces, tsgs, channels, retained;
	unsigned long channel_used[BITS_TO_LONGS(GA10X_CHANNELS)];
	unsigned int next_tsg;
	/* RM heap: 4K pages of VRAM [0, heap_size) */
	u64 heap_size;
	unsigned long *heap_map;
	struct emgpu_rm_pma pma;
	struct emgpu_rm_alloc *fault_buf, *ac_buf;
	void *nonreplayable_shadow;
	bool fault_owned;		/* OwnPageFaultIntr(true) */
	bool isr_forward;		/* the MSI-X handler calls isrTopHalf */

	/* ---- /dev/emgpu-rm (emgpu_rm_user.c) ---- */
	struct kref kref;		/* probe's, and one per open file */
	bool removed;			/* the PCI device went: every ioctl ENODEV */
	struct miscdevice misc;
	bool misc_registered;
	struct idr handles;		/* handle - EMGPU_RM_HANDLE_BASE -> object */
	struct list_head clients;
	struct list_head accounts;	/* struct emgpu_rm_account */
	/* compute channels whose hardware channel is not free yet */
	unsigned int user_channels;
	/* the device user VA spaces hang off (not in devices: nvidia-uvm's) */
	struct uvmGpuDevice_tag user_device;
	struct mutex launch_lock;	/* see the top of this file */
	wait_queue_head_t launch_wq;	/* EMGPU_INTR_VEC_LAUNCH wakes it */
	int launch_irq;
	void *launch_desc;		/* struct emgpu_launch_desc, DMA-coherent */
	dma_addr_t launch_desc_dma;
	/* the channel of the latest launch while it may still run, with a
	 * reference (gpu->lock): one that timed out or was interrupted keeps
	 * its channel's hardware channel until the device says it ended */
	struct uvmGpuChannel_tag *launch_channel;
	struct dentry *debugfs;		/* emgpu-rm/<PCI address>/ (emgpu_rm.c) */
};

#endif /* __GENKSYMS__ */

/* emgpu_rm.c */
struct UvmOpsUvmEvents *emgpu_rm_uvm_ops(void);
struct emgpu_rm_gpu *emgpu_rm_current_gpu(void);
struct emgpu_rm_gpu *emgpu_rm_gpu_by_uuid(const NvProcessorUuid *uuid);
void emgpu_rm_update_isr(struct emgpu_rm_gpu *gpu);
void emgpu_rm_isr_poll(struct emgpu_rm_gpu *gpu);

static inline u32 emgpu_rm_rd(struct emgpu_rm_gpu *gpu, u32 reg)
{
	return readl(gpu->bar0 + reg);
}

static inline void emgpu_rm_wr(struct emgpu_rm_gpu *gpu, u32 reg, u32 val)
{
	writel(val, gpu->bar0 + reg);
}

/*
 * The entry of @head (a list of @type linked by its member node) that is
 * @handle, or NULL: a handle nvidia-uvm or user space passes is only
 * dereferenced once it is found on its list.
 */
#define emgpu_rm_find_on(head, handle, type)				\
({									\
	type *__e, *__found = NULL;					\
	list_for_each_entry(__e, head, node)				\
		if ((const void *)__e == (handle)) {			\
			__found = __e;					\
			break;						\
		}							\
	__found;							\
})

static inline void emgpu_rm_wr64(struct emgpu_rm_gpu *gpu, u32 reg_lo, u64 val)
{
	emgpu_rm_wr(gpu, reg_lo + 4, upper_32_bits(val));
	emgpu_rm_wr(gpu, reg_lo, lower_32_bits(val));
}

void emgpu_rm_gpu_put(struct emgpu_rm_gpu *gpu);

/* emgpu_rm_mem.c: heap, RM VA spaces and page tables, allocations, PMA */
int emgpu_rm_mem_init(struct emgpu_rm_gpu *gpu);
void emgpu_rm_mem_fini(struct emgpu_rm_gpu *gpu);
struct uvmGpuDevice_tag *emgpu_rm_device_find(const void *handle);
struct uvmGpuAddressSpace_tag *emgpu_rm_vas_find_locked(struct emgpu_rm_gpu *gpu,
							const void *handle);
/* the address space @handle with its GPU's lock held, or NULL (no lock) */
struct uvmGpuAddressSpace_tag *emgpu_rm_vas_get(const void *handle);
static inline void emgpu_rm_vas_put(struct uvmGpuAddressSpace_tag *vas)
{
	mutex_unlock(&vas->device->gpu->lock);
}
NV_STATUS emgpu_rm_alloc_mem(struct uvmGpuAddressSpace_tag *vas, u64 size, u64 va_align,
			     u64 phys_align, bool sysmem, struct emgpu_rm_alloc **out);
void emgpu_rm_free_mem(struct uvmGpuAddressSpace_tag *vas, struct emgpu_rm_alloc *a);
void *emgpu_rm_alloc_cpu(struct emgpu_rm_gpu *gpu, struct emgpu_rm_alloc *a);
u64 emgpu_rm_alloc_base(const struct emgpu_rm_alloc *a);
u64 emgpu_rm_vas_pdb(const struct uvmGpuAddressSpace_tag *vas);
NV_STATUS emgpu_rm_vas_create(struct uvmGpuDevice_tag *d, u64 va_base, u64 va_size,
			      struct uvmGpuAddressSpace_tag **out, UvmGpuAddressSpaceInfo *info);
void emgpu_rm_vas_free_locked(struct uvmGpuAddressSpace_tag *vas);
void emgpu_rm_user_vas_free_if_unused(struct uvmGpuAddressSpace_tag *vas);
unsigned long emgpu_rm_heap_pages_used(struct emgpu_rm_gpu *gpu);

/* emgpu_rm_fifo.c: TSGs, channels, fault and access-counter buffers */
void emgpu_rm_channel_program_pdb(struct uvmGpuChannel_tag *ch);
int emgpu_rm_compute_channel_create(struct uvmGpuAddressSpace_tag *vas,
				    struct emgpu_rm_account *account,
				    struct uvmGpuChannel_tag **out);
void emgpu_rm_compute_channel_stop(struct uvmGpuChannel_tag *ch);
void emgpu_rm_channel_get(struct uvmGpuChannel_tag *ch);
void emgpu_rm_channel_put(struct uvmGpuChannel_tag *ch);

/* emgpu_rm_user.c: /dev/emgpu-rm */
int emgpu_rm_user_probe(struct emgpu_rm_gpu *gpu);
void emgpu_rm_user_remove(struct emgpu_rm_gpu *gpu);
struct emgpu_rm_object *emgpu_rm_object_find(struct emgpu_rm_gpu *gpu, u32 handle,
					     enum emgpu_rm_object_type type);
bool emgpu_rm_client_is_callers(const struct emgpu_rm_client *client);
void emgpu_rm_account_uncharge(struct emgpu_rm_gpu *gpu, struct emgpu_rm_account *account);

#endif /* EMGPU_RM_H */
