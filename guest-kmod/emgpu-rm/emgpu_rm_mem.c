// SPDX-License-Identifier: GPL-2.0
/*
 * emgpu-rm.ko: memory. The RM heap (VRAM below min(32 MiB, BAR2, VRAM/4),
 * in 4K pages), the RM's GPU address spaces with their page tables in the
 * personality's format (MMU VER2 or VER3; in sysmem, written by the CPU;
 * the RM's VAs are mapped with 4K PTEs), RM allocations in sysmem (DMA-coherent) and vidmem (CPU-mapped
 * through BAR2), and the PMA nvidia-uvm takes its own VRAM from (64K
 * frames above the heap). Locking: emgpu_rm.h.
 */
#include <linux/bitmap.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "emgpu_rm.h"

#define RM_PAGE		4096ull

/* ---- the page-table formats (emgpu_rm.h) ---- */

static u64 ver2_pde(u64 table)
{
	return ga10x_pde(GA10X_PDE_APERTURE_SYS_COH, table);
}

static u64 ver2_pde0_small(u64 table)
{
	return ga10x_dual_pde_small(GA10X_PDE_APERTURE_SYS_COH, table);
}

/* cached, kind PITCH: what nvidia-uvm's Ampere HAL writes for its own */
static u64 ver2_pte(bool sysmem, u64 phys)
{
	return ga10x_pte(sysmem ? GA10X_PTE_APERTURE_SYS_COH : GA10X_PTE_APERTURE_VIDEO,
			 phys, 0, 0, 0);
}

/* dev_mmu.h VER2 (hwref turing/tu102), 49-bit VA: PD3, PD2, PD1, PD0, PT */
const struct emgpu_rm_mmu_format emgpu_rm_mmu_ver2 = {
	.levels = 5,
	.pd0 = 3,
	.shift = { GA10X_PD3_SHIFT, GA10X_PD2_SHIFT, GA10X_PD1_SHIFT, GA10X_PD0_SHIFT,
		   GA10X_PT_4K_SHIFT },
	.entries = { GA10X_PD3_ENTRIES, GA10X_PD2_ENTRIES, GA10X_PD1_ENTRIES,
		     GA10X_PD0_ENTRIES, GA10X_PT_4K_ENTRIES },
	.pde = ver2_pde,
	.pde0_small = ver2_pde0_small,
	.pte = ver2_pte,
};

static u64 ver3_pde(u64 table)
{
	return gh100_pde(GH100_PDE_APERTURE_SYS_COH, table);
}

static u64 ver3_pde0_small(u64 table)
{
	return gh100_dual_pde_small(GH100_PDE_APERTURE_SYS_COH, table);
}

/* PCF 0 (read-write, atomics, cached, counted), kind GENERIC_MEMORY: what
 * nvidia-uvm's Hopper HAL writes for its own (make_pte_hopper) */
static u64 ver3_pte(bool sysmem, u64 phys)
{
	return gh100_pte(sysmem ? GH100_PTE_APERTURE_SYS_COH : GH100_PTE_APERTURE_VIDEO,
			 phys, 0, GH100_PTE_KIND_GENERIC_MEMORY, 0);
}

/* dev_mmu.h VER3 (hwref hopper/gh100), 57-bit VA: PDE4, PDE3, PDE2, PDE1, PDE0, PT */
const struct emgpu_rm_mmu_format emgpu_rm_mmu_ver3 = {
	.levels = 6,
	.pd0 = 4,
	.shift = { GH100_PDE4_SHIFT, GH100_PDE3_SHIFT, GH100_PDE2_SHIFT, GH100_PDE1_SHIFT,
		   GH100_PDE0_SHIFT, GH100_PT_4K_SHIFT },
	.entries = { GH100_PDE4_ENTRIES, GH100_PDE3_ENTRIES, GH100_PDE2_ENTRIES,
		     GH100_PDE1_ENTRIES, GH100_PDE0_ENTRIES, GH100_PT_4K_ENTRIES },
	.pde = ver3_pde,
	.pde0_small = ver3_pde0_small,
	.pte = ver3_pte,
};

static const struct emgpu_rm_mmu_format *mmu_of(const struct emgpu_rm_gpu *gpu)
{
	return gpu->arch->mmu;
}

/* ---- handles: every pointer nvidia-uvm passes is looked up, never trusted ---- */

struct uvmGpuDevice_tag *emgpu_rm_device_find(const void *handle)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();
	struct uvmGpuDevice_tag *d, *found = NULL;

	if (!gpu || !handle)
		return NULL;
	mutex_lock(&gpu->lock);
	list_for_each_entry(d, &gpu->devices, node) {
		if (d == handle) {
			found = d;
			break;
		}
	}
	mutex_unlock(&gpu->lock);
	return found;
}

struct uvmGpuAddressSpace_tag *emgpu_rm_vas_find_locked(struct emgpu_rm_gpu *gpu,
							const void *handle)
{
	lockdep_assert_held(&gpu->lock);
	return emgpu_rm_find_on(&gpu->address_spaces, handle, struct uvmGpuAddressSpace_tag);
}

struct uvmGpuAddressSpace_tag *emgpu_rm_vas_get(const void *handle)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();
	struct uvmGpuAddressSpace_tag *vas;

	if (!gpu || !handle)
		return NULL;
	mutex_lock(&gpu->lock);
	vas = emgpu_rm_vas_find_locked(gpu, handle);
	if (!vas)
		mutex_unlock(&gpu->lock);
	return vas;
}

/* ---- page tables ---- */

static int pt_alloc(struct emgpu_rm_gpu *gpu, struct emgpu_rm_pt *pt, unsigned int level)
{
	pt->cpu = dma_alloc_coherent(&gpu->pdev->dev, RM_PAGE, &pt->dma, GFP_KERNEL);
	if (!pt->cpu)
		return -ENOMEM;
	memset(pt->cpu, 0, RM_PAGE);
	pt->child = NULL;
	if (level == mmu_of(gpu)->levels - 1)
		return 0;
	pt->child = kcalloc(mmu_of(gpu)->entries[level], sizeof(*pt->child), GFP_KERNEL);
	if (!pt->child) {
		dma_free_coherent(&gpu->pdev->dev, RM_PAGE, pt->cpu, pt->dma);
		pt->cpu = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void pt_free(struct emgpu_rm_gpu *gpu, struct emgpu_rm_pt *pt, unsigned int level)
{
	unsigned int i;

	if (!pt->cpu)
		return;
	if (pt->child) {
		for (i = 0; i < mmu_of(gpu)->entries[level]; i++) {
			if (!pt->child[i])
				continue;
			pt_free(gpu, pt->child[i], level + 1);
			kfree(pt->child[i]);
		}
		kfree(pt->child);
	}
	dma_free_coherent(&gpu->pdev->dev, RM_PAGE, pt->cpu, pt->dma);
	pt->cpu = NULL;
}

static unsigned int pt_index(const struct emgpu_rm_mmu_format *mmu, u64 va, unsigned int level)
{
	return (va >> mmu->shift[level]) & (mmu->entries[level] - 1);
}

/* The child table of @pt at @idx, made (and pointed at) when @create. */
static struct emgpu_rm_pt *pt_child(struct emgpu_rm_gpu *gpu, struct emgpu_rm_pt *pt,
				    unsigned int level, unsigned int idx, bool create)
{
	struct emgpu_rm_pt *c = pt->child[idx];

	if (c || !create)
		return c;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	if (pt_alloc(gpu, c, level + 1)) {
		kfree(c);
		return NULL;
	}
	pt->child[idx] = c;
	if (level == mmu_of(gpu)->pd0) {
		/* dual PDE: big half invalid (aperture 0), small half the 4K table */
		pt->cpu[2 * idx] = 0;
		pt->cpu[2 * idx + 1] = mmu_of(gpu)->pde0_small(c->dma);
	} else {
		pt->cpu[idx] = mmu_of(gpu)->pde(c->dma);
	}
	return c;
}

/* The 4K PTE slot of @va, its tables made when @create. */
static u64 *pt_slot(struct emgpu_rm_gpu *gpu, struct uvmGpuAddressSpace_tag *vas, u64 va,
		    bool create)
{
	const struct emgpu_rm_mmu_format *mmu = mmu_of(gpu);
	struct emgpu_rm_pt *pt = &vas->root;
	unsigned int level;

	for (level = 0; level < mmu->levels - 1; level++) {
		pt = pt_child(gpu, pt, level, pt_index(mmu, va, level), create);
		if (!pt)
			return NULL;
	}
	return &pt->cpu[pt_index(mmu, va, level)];
}

/* ---- the RM heap ---- */

static NV_STATUS heap_alloc(struct emgpu_rm_gpu *gpu, u64 size, u64 align, u64 *offset)
{
	unsigned long nbits = gpu->heap_size / RM_PAGE, npages = size / RM_PAGE;
	unsigned long start;

	lockdep_assert_held(&gpu->lock);
	start = bitmap_find_next_zero_area(gpu->heap_map, nbits, 0, npages,
					   max(align / RM_PAGE, 1ull) - 1);
	if (start >= nbits)
		return NV_ERR_NO_MEMORY;
	bitmap_set(gpu->heap_map, start, npages);
	*offset = (u64)start * RM_PAGE;
	return NV_OK;
}

static void heap_free(struct emgpu_rm_gpu *gpu, u64 offset, u64 size)
{
	lockdep_assert_held(&gpu->lock);
	bitmap_clear(gpu->heap_map, offset / RM_PAGE, size / RM_PAGE);
}

/* The RM heap's pages in use. LOCKING: gpu->lock. */
unsigned long emgpu_rm_heap_pages_used(struct emgpu_rm_gpu *gpu)
{
	lockdep_assert_held(&gpu->lock);
	return gpu->heap_map ? bitmap_weight(gpu->heap_map, gpu->heap_size / RM_PAGE) : 0;
}

/* ---- RM allocations ---- */

/*
 * Above this, sysmem is not one dma_alloc_coherent() block (the page
 * allocator's largest order is 4 MiB) but pages under consecutive RM VAs:
 * the GPU reaches RM allocations by VA, only the small ones the device
 * registers take (GPFIFO, USERD, notifiers, buffers) need one base.
 */
#define EMGPU_RM_CONTIG_MAX	SZ_2M

/* The physical base of a contiguous allocation (its first page otherwise). */
u64 emgpu_rm_alloc_base(const struct emgpu_rm_alloc *a)
{
	WARN_ON_ONCE(a->pages);
	return a->sysmem ? (a->pages ? a->dmas[0] : a->dma) : a->vid_offset;
}

/* The GPU physical address of byte off of a. */
static u64 alloc_phys(const struct emgpu_rm_alloc *a, u64 off)
{
	if (a->pages)
		return a->dmas[off >> PAGE_SHIFT] + (off & ~PAGE_MASK);
	return (a->sysmem ? a->dma : a->vid_offset) + off;
}

static void free_pages_of(struct emgpu_rm_gpu *gpu, struct emgpu_rm_alloc *a,
			  unsigned long n)
{
	while (n--) {
		dma_unmap_page(&gpu->pdev->dev, a->dmas[n], PAGE_SIZE, DMA_BIDIRECTIONAL);
		__free_page(a->pages[n]);
	}
	kvfree(a->pages);
	kvfree(a->dmas);
	a->pages = NULL;
	a->dmas = NULL;
}

/* a->size bytes of zeroed sysmem pages, DMA-mapped, vmap()ed: 0 or -ENOMEM */
static int alloc_pages_of(struct emgpu_rm_gpu *gpu, struct emgpu_rm_alloc *a)
{
	unsigned long n = a->size >> PAGE_SHIFT, i;

	a->pages = kvcalloc(n, sizeof(*a->pages), GFP_KERNEL);
	a->dmas = kvcalloc(n, sizeof(*a->dmas), GFP_KERNEL);
	if (!a->pages || !a->dmas) {
		free_pages_of(gpu, a, 0);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		a->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!a->pages[i])
			break;
		a->dmas[i] = dma_map_page(&gpu->pdev->dev, a->pages[i], 0, PAGE_SIZE,
					  DMA_BIDIRECTIONAL);
		if (dma_mapping_error(&gpu->pdev->dev, a->dmas[i])) {
			__free_page(a->pages[i]);
			break;
		}
	}
	if (i == n)
		a->cpu = vmap(a->pages, n, VM_MAP, PAGE_KERNEL);
	if (i < n || !a->cpu) {
		free_pages_of(gpu, a, i);
		return -ENOMEM;
	}
	return 0;
}

void *emgpu_rm_alloc_cpu(struct emgpu_rm_gpu *gpu, struct emgpu_rm_alloc *a)
{
	/* the heap lies inside BAR2 */
	return a->sysmem ? a->cpu : (void __force *)(gpu->bar2 + a->vid_offset);
}

static void unmap_alloc(struct emgpu_rm_gpu *gpu, struct uvmGpuAddressSpace_tag *vas,
			struct emgpu_rm_alloc *a, u64 mapped)
{
	u64 off;
	u64 *slot;

	for (off = 0; off < mapped; off += RM_PAGE) {
		slot = pt_slot(gpu, vas, a->va + off, false);
		if (slot)
			WRITE_ONCE(*slot, 0);
	}
	wmb();
}

static void free_backing(struct emgpu_rm_gpu *gpu, struct emgpu_rm_alloc *a)
{
	if (a->pages) {
		vunmap(a->cpu);
		free_pages_of(gpu, a, a->size >> PAGE_SHIFT);
	} else if (a->sysmem)
		dma_free_coherent(&gpu->pdev->dev, a->size, a->cpu, a->dma);
	else
		heap_free(gpu, a->vid_offset, a->size);
}

/*
 * @size bytes of sysmem or of the RM heap, zeroed, mapped at a fresh RM VA
 * of @vas. RM VAs are never reused (bump allocation over 1 TiB), so a stale
 * TLB entry of a freed one can never translate a new allocation.
 */
NV_STATUS emgpu_rm_alloc_mem(struct uvmGpuAddressSpace_tag *vas, u64 size, u64 va_align,
			     u64 phys_align, bool sysmem, struct emgpu_rm_alloc **out)
{
	struct emgpu_rm_gpu *gpu = vas->device->gpu;
	struct emgpu_rm_alloc *a;
	NV_STATUS status;
	u64 off, va, phys;
	u64 *slot;

	lockdep_assert_held(&gpu->lock);
	if (!size || size > gpu->vram_size + (1ull << 32))
		return NV_ERR_INVALID_ARGUMENT;
	if ((va_align & (va_align - 1)) || (phys_align & (phys_align - 1)))
		return NV_ERR_INVALID_ARGUMENT;
	size = ALIGN(size, RM_PAGE);
	va_align = max(va_align, RM_PAGE);
	phys_align = max(phys_align, RM_PAGE);
	va = ALIGN(vas->va_next, va_align);
	if (va < vas->va_next || va + size > vas->va_end)
		return NV_ERR_NO_MEMORY;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return NV_ERR_NO_MEMORY;
	a->size = size;
	a->sysmem = sysmem;
	a->va = va;
	if (sysmem && size > EMGPU_RM_CONTIG_MAX) {
		/*
		 * pages: only an alignment of one page is possible. A bigger
		 * one (580 asks 2M pages for the pushbuffer) is memory the
		 * stand-in does not have, as the RM answers when no
		 * contiguous chunk is left: nvidia-uvm then asks again with
		 * the default page size.
		 */
		if (phys_align > PAGE_SIZE || alloc_pages_of(gpu, a)) {
			kfree(a);
			return NV_ERR_NO_MEMORY;
		}
	} else if (sysmem) {
		/* naturally aligned to its order, which covers phys_align
		 * up to the size; larger alignments are not asked for */
		if (phys_align > roundup_pow_of_two(size)) {
			kfree(a);
			return NV_ERR_INVALID_ARGUMENT;
		}
		a->cpu = dma_alloc_coherent(&gpu->pdev->dev, size, &a->dma, GFP_KERNEL);
		if (!a->cpu) {
			kfree(a);
			return NV_ERR_NO_MEMORY;
		}
		memset(a->cpu, 0, size);
	} else {
		status = heap_alloc(gpu, size, phys_align, &a->vid_offset);
		if (status != NV_OK) {
			kfree(a);
			return status;
		}
		memset_io(gpu->bar2 + a->vid_offset, 0, size);
	}

	for (off = 0; off < size; off += RM_PAGE) {
		slot = pt_slot(gpu, vas, va + off, true);
		if (!slot) {
			unmap_alloc(gpu, vas, a, off);
			free_backing(gpu, a);
			kfree(a);
			return NV_ERR_NO_MEMORY;
		}
		phys = alloc_phys(a, off);
		WRITE_ONCE(*slot, mmu_of(gpu)->pte(sysmem, phys));
	}
	wmb();
	vas->va_next = va + size;
	list_add_tail(&a->node, &vas->allocs);
	*out = a;
	return NV_OK;
}

void emgpu_rm_free_mem(struct uvmGpuAddressSpace_tag *vas, struct emgpu_rm_alloc *a)
{
	struct emgpu_rm_gpu *gpu = vas->device->gpu;

	lockdep_assert_held(&gpu->lock);
	if (!a)
		return;
	unmap_alloc(gpu, vas, a, a->size);
	free_backing(gpu, a);
	list_del(&a->node);
	kfree(a);
}

static struct emgpu_rm_alloc *alloc_at(struct uvmGpuAddressSpace_tag *vas, u64 va, u64 len)
{
	struct emgpu_rm_alloc *a;

	list_for_each_entry(a, &vas->allocs, node)
		if (va >= a->va && va - a->va < a->size && len <= a->size - (va - a->va))
			return a;
	return NULL;
}

/* ---- address spaces ---- */

u64 emgpu_rm_vas_pdb(const struct uvmGpuAddressSpace_tag *vas)
{
	if (vas->external_pdb)
		return vas->pdb | (vas->pdb_vidmem ? GA10X_BASE_APERTURE_VIDMEM :
						     GA10X_BASE_APERTURE_SYSMEM);
	return vas->root.dma | GA10X_BASE_APERTURE_SYSMEM;
}

static void vas_info(struct emgpu_rm_gpu *gpu, UvmGpuAddressSpaceInfo *info)
{
	memset(info, 0, sizeof(*info));
	info->bigPageSize = EMGPU_RM_BIG_PAGE_SIZE;
	info->atsEnabled = NV_FALSE;
	info->time0Offset = (volatile NvU32 *)(gpu->bar0 + GA10X_REG_PTIMER_TIME_0);
	info->time1Offset = (volatile NvU32 *)(gpu->bar0 + GA10X_REG_PTIMER_TIME_1);
	info->maxSubctxCount = EMGPU_RM_MAX_SUBCTX;
	info->smcEnabled = NV_FALSE;
}

/* A fresh RM address space on @d's GPU, listed. LOCKING: gpu->lock. */
NV_STATUS emgpu_rm_vas_create(struct uvmGpuDevice_tag *d, u64 va_base, u64 va_size,
			      struct uvmGpuAddressSpace_tag **out, UvmGpuAddressSpaceInfo *info)
{
	struct emgpu_rm_gpu *gpu = d->gpu;
	struct uvmGpuAddressSpace_tag *vas;
	u64 start = max(va_base, EMGPU_RM_VA_START);
	u64 end = min(va_base + va_size, gpu->arch->rm_va_end);

	lockdep_assert_held(&gpu->lock);
	if (va_base + va_size < va_base || start >= end)
		return NV_ERR_INVALID_ARGUMENT;
	/* the RM's range must stay inside root entry 0 (nvidia-uvm's rm range:
	 * 128 TB on Ampere, 64 PB on Hopper) */
	if (end > (1ull << mmu_of(gpu)->shift[0]))
		return NV_ERR_INVALID_ARGUMENT;

	vas = kzalloc(sizeof(*vas), GFP_KERNEL);
	if (!vas)
		return NV_ERR_NO_MEMORY;
	vas->device = d;
	vas->va_next = start;
	vas->va_end = end;
	INIT_LIST_HEAD(&vas->allocs);
	if (pt_alloc(gpu, &vas->root, 0)) {
		kfree(vas);
		return NV_ERR_NO_MEMORY;
	}
	/* root entry 0's table exists from the start, so the entry SetPageDirectory
	 * copies into nvidia-uvm's root stays valid for every later map */
	if (!pt_child(gpu, &vas->root, 0, 0, true)) {
		pt_free(gpu, &vas->root, 0);
		kfree(vas);
		return NV_ERR_NO_MEMORY;
	}
	if (info)
		vas_info(gpu, info);
	list_add_tail(&vas->node, &gpu->address_spaces);
	*out = vas;
	return NV_OK;
}

/*
 * Drops the device's cached translations of the page directory @pdb
 * (address | aperture), every VA of it, as the RM does when it revokes or
 * frees a directory: its next owner is often the same page again (the
 * next nvidia-uvm load's root, from the same PMA order), with the RM VAs
 * a fresh address space hands out again, and must not translate through
 * the old tables. LOCKING: gpu->lock.
 */
static void tlb_invalidate_locked(struct emgpu_rm_gpu *gpu, u64 pdb)
{
	lockdep_assert_held(&gpu->lock);
	emgpu_rm_wr64(gpu, GA10X_REG_MMU_INVALIDATE_PDB_LO, pdb);
	emgpu_rm_wr(gpu, GA10X_REG_MMU_INVALIDATE,
		    GA10X_MMU_INVALIDATE_ALL_VA | GA10X_MMU_INVALIDATE_TRIGGER);
}

/* Frees @vas, its allocations and tables: no TSG or channel may use it. */
void emgpu_rm_vas_free_locked(struct uvmGpuAddressSpace_tag *vas)
{
	struct emgpu_rm_gpu *gpu = vas->device->gpu;
	struct emgpu_rm_alloc *a, *next;

	lockdep_assert_held(&gpu->lock);
	list_for_each_entry_safe(a, next, &vas->allocs, node)
		emgpu_rm_free_mem(vas, a);
	list_del(&vas->node);
	/* nvidia-uvm's directory if it never unset it, and the RM's own */
	if (vas->external_pdb)
		tlb_invalidate_locked(gpu, emgpu_rm_vas_pdb(vas));
	tlb_invalidate_locked(gpu, vas->root.dma | GA10X_BASE_APERTURE_SYSMEM);
	pt_free(gpu, &vas->root, 0);
	kfree(vas);
}

/*
 * A user VA space lives while the user's handle, a dup of nvidia-uvm's or
 * a compute channel in it (its instance block is the VA space's
 * allocation) does; the last of them frees it. LOCKING: gpu->lock.
 */
void emgpu_rm_user_vas_free_if_unused(struct uvmGpuAddressSpace_tag *vas)
{
	lockdep_assert_held(&vas->device->gpu->lock);
	if (!vas->user.client && !vas->dups && !vas->user_channels)
		emgpu_rm_vas_free_locked(vas);
}

#if EMGPU_RM_BRANCH >= 550
NV_STATUS nvUvmInterfaceAddressSpaceCreate(uvmGpuDeviceHandle device,
					   unsigned long long vaBase,
					   unsigned long long vaSize,
					   NvBool enableAts,
					   uvmGpuAddressSpaceHandle *vaSpace,
					   UvmGpuAddressSpaceInfo *vaSpaceInfo)
#else
NV_STATUS nvUvmInterfaceAddressSpaceCreate(uvmGpuDeviceHandle device,
					   unsigned long long vaBase,
					   unsigned long long vaSize,
					   uvmGpuAddressSpaceHandle *vaSpace,
					   UvmGpuAddressSpaceInfo *vaSpaceInfo)
#endif
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	NV_STATUS status;

	if (!vaSpace || !vaSpaceInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
#if EMGPU_RM_BRANCH >= 550
	/* SessionCreate reports no ATS: nvidia-uvm has no PASID to ask with */
	if (enableAts)
		return NV_ERR_NOT_SUPPORTED;
#endif
	mutex_lock(&d->gpu->lock);
	status = emgpu_rm_vas_create(d, vaBase, vaSize, vaSpace, vaSpaceInfo);
	mutex_unlock(&d->gpu->lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceAddressSpaceCreate);

/*
 * A user's VA space (UVM_REGISTER_GPU_VASPACE): the very object the user
 * made with EMGPU_RM_VA_SPACE_CREATE, found by its client and VA space
 * handles, so that the page directory nvidia-uvm sets on it reaches that
 * VA space's compute channels. As the RM, the stand-in accepts a client's
 * handles only from the process that made the client (nvidia-uvm calls in
 * the registering process's ioctl). Each dup is one reference; the
 * matching AddressSpaceDestroy drops it.
 */
NV_STATUS nvUvmInterfaceDupAddressSpace(uvmGpuDeviceHandle device,
					NvHandle hUserClient,
					NvHandle hUserVASpace,
					uvmGpuAddressSpaceHandle *vaSpace,
					UvmGpuAddressSpaceInfo *vaSpaceInfo)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	struct emgpu_rm_object *client, *obj;
	struct uvmGpuAddressSpace_tag *vas;
	struct emgpu_rm_gpu *gpu;
	NV_STATUS status = NV_OK;

	if (!vaSpace || !vaSpaceInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	mutex_lock(&gpu->lock);
	client = emgpu_rm_object_find(gpu, hUserClient, EMGPU_RM_OBJ_CLIENT);
	obj = emgpu_rm_object_find(gpu, hUserVASpace, EMGPU_RM_OBJ_VA_SPACE);
	if (!client || !obj || obj->client != client->client ||
	    !emgpu_rm_client_is_callers(client->client)) {
		status = NV_ERR_INVALID_OBJECT_HANDLE;
		goto unlock;
	}
	vas = container_of(obj, struct uvmGpuAddressSpace_tag, user);
	vas->dups++;
	vas_info(gpu, vaSpaceInfo);
	*vaSpace = vas;
unlock:
	mutex_unlock(&gpu->lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceDupAddressSpace);

void nvUvmInterfaceAddressSpaceDestroy(uvmGpuAddressSpaceHandle vaSpace)
{
	struct uvmGpuAddressSpace_tag *vas = emgpu_rm_vas_get(vaSpace);
	struct emgpu_rm_gpu *gpu;
	struct uvmGpuTsg_tag *tsg;

	if (!vas)
		return;
	gpu = vas->device->gpu;
	if (vas->user.handle) {
		/* a user's: one dup less; freed with the last once the user
		 * freed it too */
		if (!vas->dups)
			pr_err("emgpu-rm: AddressSpaceDestroy of user VA space 0x%x never duped\n",
			       vas->user.handle);
		else if (!--vas->dups)
			emgpu_rm_user_vas_free_if_unused(vas);
		mutex_unlock(&gpu->lock);
		return;
	}
	list_for_each_entry(tsg, &gpu->tsgs, node) {
		if (tsg->vas == vas) {
			/* the RM refuses while children live; so do we */
			pr_err("emgpu-rm: address space destroyed with TSG %u alive\n", tsg->id);
			emgpu_rm_vas_put(vas);
			return;
		}
	}
	emgpu_rm_vas_free_locked(vas);
	mutex_unlock(&gpu->lock);
}
EXPORT_SYMBOL(nvUvmInterfaceAddressSpaceDestroy);

/* Writes the RM's root entry 0 into nvidia-uvm's root at @pdb. */
static NV_STATUS write_root_entry(struct uvmGpuAddressSpace_tag *vas, u64 pdb, bool vidmem)
{
	struct emgpu_rm_gpu *gpu = vas->device->gpu;
	u64 entry = vas->root.cpu[0];
	void *map;

	if (vidmem) {
		if (pdb + sizeof(entry) > gpu->bar2_size)
			return NV_ERR_INVALID_ADDRESS;	/* outside the CPU's window */
		writeq(entry, gpu->bar2 + pdb);
		(void)readq(gpu->bar2 + pdb);	/* posted write lands first */
		return NV_OK;
	}
	map = memremap(dma_to_phys(&gpu->pdev->dev, pdb), sizeof(entry), MEMREMAP_WB);
	if (!map)
		return NV_ERR_INVALID_ADDRESS;
	WRITE_ONCE(*(u64 *)map, entry);
	wmb();
	memunmap(map);
	return NV_OK;
}

static void reprogram_channels(struct uvmGpuAddressSpace_tag *vas)
{
	struct emgpu_rm_gpu *gpu = vas->device->gpu;
	struct uvmGpuChannel_tag *ch;

	lockdep_assert_held(&gpu->lock);
	list_for_each_entry(ch, &gpu->channels, node)
		if (ch->tsg->vas == vas)
			emgpu_rm_channel_program_pdb(ch);
}

#ifdef EMGPU_RM_PD_DMA_ADDRESS
/*
 * From 580 a directory in system memory comes as a CPU physical address:
 * the RM maps it for the device, hands the mapping back (dmaAddress) and
 * unmaps it when the directory is unset. Before, nvidia-uvm passed its
 * own DMA address.
 */
static NV_STATUS map_pdb(struct uvmGpuAddressSpace_tag *vas, u64 phys, u64 *dma_out)
{
	struct device *dev = &vas->device->gpu->pdev->dev;
	dma_addr_t dma;

	if (!dma_out)
		return NV_ERR_INVALID_ARGUMENT;
	dma = dma_map_page(dev, pfn_to_page(PHYS_PFN(phys)), 0, RM_PAGE, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, dma))
		return NV_ERR_NO_MEMORY;
	*dma_out = dma;
	return NV_OK;
}

static void unmap_pdb(struct uvmGpuAddressSpace_tag *vas)
{
	if (!vas->pdb_mapped)
		return;
	dma_unmap_page(&vas->device->gpu->pdev->dev, vas->pdb, RM_PAGE, DMA_BIDIRECTIONAL);
	vas->pdb_mapped = false;
}

NV_STATUS nvUvmInterfaceSetPageDirectory(uvmGpuAddressSpaceHandle vaSpace,
					 NvU64 physAddress, unsigned numEntries,
					 NvBool bVidMemAperture, NvU32 pasid,
					 NvU64 *dmaAddress)
#else
static void unmap_pdb(struct uvmGpuAddressSpace_tag *vas)
{
}

NV_STATUS nvUvmInterfaceSetPageDirectory(uvmGpuAddressSpaceHandle vaSpace,
					 NvU64 physAddress, unsigned numEntries,
					 NvBool bVidMemAperture, NvU32 pasid)
#endif
{
	struct uvmGpuAddressSpace_tag *vas = emgpu_rm_vas_get(vaSpace);
	bool mapped = false;
	NV_STATUS status;

	if (!vas)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	/* a root of the personality's format (VER2: 4 PD3 entries; VER3: 2
	 * PDE4 entries), 4K-aligned */
	if (numEntries != mmu_of(vas->device->gpu)->entries[0] ||
	    (physAddress & (RM_PAGE - 1))) {
		status = NV_ERR_INVALID_ARGUMENT;
		goto out;
	}
	/*
	 * A user VA space (EMGPU_RM_VA_SPACE_CREATE): root entry 0 is
	 * nvidia-uvm's own there (managed ranges lie at CPU addresses, below
	 * 128 TB), and nothing the GPU reaches by VA is the RM's (a compute
	 * channel's instance block is physical), so no RM entry goes in. Set
	 * once, as the RM allows: a second registration of it fails.
	 */
	if (vas->user.handle && vas->external_pdb) {
		status = NV_ERR_INVALID_STATE;
		goto out;
	}
#ifdef EMGPU_RM_PD_DMA_ADDRESS
	if (!bVidMemAperture) {
		status = map_pdb(vas, physAddress, dmaAddress);
		if (status != NV_OK)
			goto out;
		physAddress = *dmaAddress;	/* the device's address from here on */
		mapped = true;
	}
#endif
	if (!vas->user.handle) {
		status = write_root_entry(vas, physAddress, bVidMemAperture);
		if (status != NV_OK) {
			if (mapped)
				dma_unmap_page(&vas->device->gpu->pdev->dev, physAddress, RM_PAGE,
					       DMA_BIDIRECTIONAL);
			goto out;
		}
	}
	unmap_pdb(vas);		/* a directory moved again: the old one's mapping */
	vas->external_pdb = true;
	vas->pdb = physAddress;
	vas->pdb_vidmem = bVidMemAperture;
	vas->pdb_mapped = mapped;
	reprogram_channels(vas);
	status = NV_OK;
out:
	emgpu_rm_vas_put(vas);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceSetPageDirectory);

NV_STATUS nvUvmInterfaceUnsetPageDirectory(uvmGpuAddressSpaceHandle vaSpace)
{
	struct uvmGpuAddressSpace_tag *vas = emgpu_rm_vas_get(vaSpace);

	if (!vas)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	if (vas->external_pdb) {
		u64 revoked = emgpu_rm_vas_pdb(vas);

		vas->external_pdb = false;
		reprogram_channels(vas);
		/* the directory is nvidia-uvm's again, to free or reuse */
		tlb_invalidate_locked(vas->device->gpu, revoked);
		unmap_pdb(vas);
	}
	emgpu_rm_vas_put(vas);
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceUnsetPageDirectory);

static NV_STATUS memory_alloc(uvmGpuAddressSpaceHandle vaSpace, NvLength length,
			      UvmGpuPointer *gpuPointer, UvmGpuAllocInfo *allocInfo, bool sysmem)
{
	struct uvmGpuAddressSpace_tag *vas;
	struct emgpu_rm_alloc *a;
	NV_STATUS status;
	u64 page = 0, align = 0;

	if (!gpuPointer || !length)
		return NV_ERR_INVALID_ARGUMENT;
	if (allocInfo) {
		page = allocInfo->pageSize;
		align = allocInfo->alignment;
		/* Confidential Computing's protected vidmem does not exist here */
		if (!sysmem && !allocInfo->bUnprotected)
			return NV_ERR_INVALID_ARGUMENT;
	}
	if (page != 0 && page != RM_PAGE && page != UVM_PAGE_SIZE_64K && page != UVM_PAGE_SIZE_2M)
		return NV_ERR_INVALID_ARGUMENT;
	vas = emgpu_rm_vas_get(vaSpace);
	if (!vas)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	status = emgpu_rm_alloc_mem(vas, length, max(align, page), page, sysmem, &a);
	if (status == NV_OK) {
		*gpuPointer = a->va;
		if (allocInfo) {
			/* nvidia-uvm reads none of it; the first page's */
			allocInfo->gpuPhysOffset = alloc_phys(a, 0);
			allocInfo->pageSize = page ? page : RM_PAGE;
		}
	}
	emgpu_rm_vas_put(vas);
	return status;
}

NV_STATUS nvUvmInterfaceMemoryAllocFB(uvmGpuAddressSpaceHandle vaSpace, NvLength length,
				      UvmGpuPointer *gpuPointer, UvmGpuAllocInfo *allocInfo)
{
	return memory_alloc(vaSpace, length, gpuPointer, allocInfo, false);
}
EXPORT_SYMBOL(nvUvmInterfaceMemoryAllocFB);

NV_STATUS nvUvmInterfaceMemoryAllocSys(uvmGpuAddressSpaceHandle vaSpace, NvLength length,
				       UvmGpuPointer *gpuPointer, UvmGpuAllocInfo *allocInfo)
{
	return memory_alloc(vaSpace, length, gpuPointer, allocInfo, true);
}
EXPORT_SYMBOL(nvUvmInterfaceMemoryAllocSys);

void nvUvmInterfaceMemoryFree(uvmGpuAddressSpaceHandle vaSpace, UvmGpuPointer gpuPointer)
{
	struct uvmGpuAddressSpace_tag *vas = emgpu_rm_vas_get(vaSpace);
	struct emgpu_rm_alloc *a;

	if (!vas)
		return;
	a = alloc_at(vas, gpuPointer, 1);
	if (a && a->va == gpuPointer)
		emgpu_rm_free_mem(vas, a);
	else
		pr_err("emgpu-rm: MemoryFree of unknown GPU VA 0x%llx\n", gpuPointer);
	emgpu_rm_vas_put(vas);
}
EXPORT_SYMBOL(nvUvmInterfaceMemoryFree);

NV_STATUS nvUvmInterfaceMemoryCpuMap(uvmGpuAddressSpaceHandle vaSpace, UvmGpuPointer gpuPointer,
				     NvLength length, void **cpuPtr, NvU64 pageSize)
{
	struct uvmGpuAddressSpace_tag *vas;
	struct emgpu_rm_alloc *a;

	if (!cpuPtr || !length)
		return NV_ERR_INVALID_ARGUMENT;
	vas = emgpu_rm_vas_get(vaSpace);
	if (!vas)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	a = alloc_at(vas, gpuPointer, length);
	if (a)
		*cpuPtr = (u8 *)emgpu_rm_alloc_cpu(vas->device->gpu, a) + (gpuPointer - a->va);
	emgpu_rm_vas_put(vas);
	return a ? NV_OK : NV_ERR_INVALID_ARGUMENT;
}
EXPORT_SYMBOL(nvUvmInterfaceMemoryCpuMap);

void nvUvmInterfaceMemoryCpuUnMap(uvmGpuAddressSpaceHandle vaSpace, void *cpuPtr)
{
	/* CPU mappings are the allocation's own (kernel VA or BAR2): nothing
	 * to undo until MemoryFree */
}
EXPORT_SYMBOL(nvUvmInterfaceMemoryCpuUnMap);

/* ---- PMA ---- */

static struct emgpu_rm_gpu *pma_gpu(void *pPma)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();

	return gpu && pPma == &gpu->pma ? gpu : NULL;
}

static void frame_set(struct emgpu_rm_pma *pma, unsigned long f, u8 state)
{
	unsigned long chunk = f / EMGPU_PMA_FRAMES_PER_2M;
	bool was_free = pma->state[f] == EMGPU_PMA_FREE, now_free = state == EMGPU_PMA_FREE;

	lockdep_assert_held(&pma->lock);
	pma->state[f] = state;
	if (was_free == now_free)
		return;
	if (now_free) {
		pma->stats.numFreePages64k++;
		if (++pma->free_in_2m[chunk] == EMGPU_PMA_FRAMES_PER_2M)
			pma->stats.numFreePages2m++;
	} else {
		pma->stats.numFreePages64k--;
		if (pma->free_in_2m[chunk]-- == EMGPU_PMA_FRAMES_PER_2M)
			pma->stats.numFreePages2m--;
	}
}

static bool run_free(struct emgpu_rm_pma *pma, unsigned long f, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (pma->state[f + i] != EMGPU_PMA_FREE)
			return false;
	return true;
}

/* First free aligned run of @n frames in [lo, hi), lowest address first. */
static long find_run(struct emgpu_rm_pma *pma, unsigned long lo, unsigned long hi,
		     unsigned long n, unsigned long align)
{
	unsigned long f;

	for (f = ALIGN(lo, align); f + n <= hi && f >= lo; f += align)
		if (run_free(pma, f, n))
			return f;
	return -1;
}

/* @addr..+@size is whole frames of the PMA: the first frame, or -1 */
static long pma_frames(struct emgpu_rm_pma *pma, u64 addr, u64 size)
{
	if (addr < pma->base || addr >= pma->end || size > pma->end - addr ||
	    (addr & (EMGPU_PMA_FRAME - 1)))
		return -1;
	return (addr - pma->base) / EMGPU_PMA_FRAME;
}

NV_STATUS nvUvmInterfaceGetPmaObject(uvmGpuDeviceHandle device, void **pPma,
				     const UvmPmaStatistics **pPmaPubStats)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);

	if (!pPma || !pPmaPubStats)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	*pPma = &d->gpu->pma;
	*pPmaPubStats = &d->gpu->pma.stats;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceGetPmaObject);

/*
 * Kept, never called: RM allocations come from the RM heap, not from the
 * PMA, and every PMA allocation nvidia-uvm makes for itself passes
 * UVM_PMA_ALLOCATE_DONT_EVICT; one that does not and finds the PMA full
 * fails with NV_ERR_NO_MEMORY instead of evicting.
 */
NV_STATUS nvUvmInterfacePmaRegisterEvictionCallbacks(void *pPma,
						     uvmPmaEvictPagesCallback evictPages,
						     uvmPmaEvictRangeCallback evictRange,
						     void *callbackData)
{
	struct emgpu_rm_gpu *gpu = pma_gpu(pPma);
	NV_STATUS status = NV_OK;

	if (!gpu)
		return NV_ERR_INVALID_ARGUMENT;
	if (!evictPages || !evictRange)
		return NV_ERR_INVALID_ARGUMENT;
	spin_lock(&gpu->pma.lock);
	if (gpu->pma.evict_pages) {
		status = NV_ERR_INVALID_STATE;
	} else {
		gpu->pma.evict_pages = evictPages;
		gpu->pma.evict_range = evictRange;
		gpu->pma.evict_data = callbackData;
	}
	spin_unlock(&gpu->pma.lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfacePmaRegisterEvictionCallbacks);

void nvUvmInterfacePmaUnregisterEvictionCallbacks(void *pPma)
{
	struct emgpu_rm_gpu *gpu = pma_gpu(pPma);

	if (!gpu)
		return;
	spin_lock(&gpu->pma.lock);
	gpu->pma.evict_pages = NULL;
	gpu->pma.evict_range = NULL;
	gpu->pma.evict_data = NULL;
	spin_unlock(&gpu->pma.lock);
}
EXPORT_SYMBOL(nvUvmInterfacePmaUnregisterEvictionCallbacks);

NV_STATUS nvUvmInterfacePmaAllocPages(void *pPma, NvLength pageCount, NvU64 pageSize,
				      UvmPmaAllocationOptions *pPmaAllocOptions, NvU64 *pPages)
{
	struct emgpu_rm_gpu *gpu = pma_gpu(pPma);
	struct emgpu_rm_pma *pma;
	unsigned long lo, hi, per_page, align, i, j;
	u32 flags;
	u8 state;
	long f;

	if (!gpu || !pPmaAllocOptions || !pPages || !pageCount)
		return NV_ERR_INVALID_ARGUMENT;
	if (pageSize < EMGPU_PMA_FRAME || (pageSize & (pageSize - 1)))
		return NV_ERR_INVALID_ARGUMENT;
	pma = &gpu->pma;
	flags = pPmaAllocOptions->flags;
	if (flags & UVM_PMA_ALLOCATE_PROTECTED_REGION)
		return NV_ERR_INVALID_ARGUMENT;	/* no Confidential Computing */
	per_page = pageSize / EMGPU_PMA_FRAME;
	/*
	 * nvidia-uvm asks for a batch of 1 << uvm_perf_pma_batch_nonpinned_order
	 * root chunks (128 MiB by default) with ALLOW_PARTIAL: more than a small
	 * card has is a partial allocation, not a failure.
	 */
	if (pageCount > pma->frames / per_page &&
	    (!(flags & UVM_PMA_ALLOCATE_ALLOW_PARTIAL) || (flags & UVM_PMA_ALLOCATE_CONTIGUOUS)))
		return NV_ERR_NO_MEMORY;
	align = per_page;
	if (flags & UVM_PMA_ALLOCATE_FORCE_ALIGNMENT) {
		u64 a = pPmaAllocOptions->alignment;

		if (!a || (a & (a - 1)))
			return NV_ERR_INVALID_ARGUMENT;
		align = max_t(unsigned long, align, a / EMGPU_PMA_FRAME);
	}
	lo = 0;
	hi = pma->frames;
	if (flags & UVM_PMA_ALLOCATE_SPECIFY_ADDRESS_RANGE) {
		u64 b = max(pPmaAllocOptions->physBegin, pma->base);
		u64 e = min(pPmaAllocOptions->physEnd, pma->end - 1);

		if (b > e)
			return NV_ERR_NO_MEMORY;
		lo = DIV_ROUND_UP(b - pma->base, EMGPU_PMA_FRAME);
		hi = (e + 1 - pma->base) / EMGPU_PMA_FRAME;
	}
	state = (flags & UVM_PMA_ALLOCATE_PINNED) ? EMGPU_PMA_PINNED : EMGPU_PMA_ALLOCATED;
	pPmaAllocOptions->resultFlags = 0;	/* not scrubbed: nvidia-uvm zeroes */

	spin_lock(&pma->lock);
	if (flags & UVM_PMA_ALLOCATE_CONTIGUOUS) {
		f = find_run(pma, lo, hi, per_page * pageCount, align);
		if (f < 0)
			goto no_memory;
		for (j = 0; j < per_page * pageCount; j++)
			frame_set(pma, f + j, state);
		for (i = 0; i < pageCount; i++)
			pPages[i] = pma->base + (f + i * per_page) * EMGPU_PMA_FRAME;
		i = pageCount;
	} else {
		for (i = 0; i < pageCount; i++) {
			f = find_run(pma, lo, hi, per_page, align);
			if (f < 0)
				break;
			for (j = 0; j < per_page; j++)
				frame_set(pma, f + j, state);
			pPages[i] = pma->base + f * EMGPU_PMA_FRAME;
		}
		if (i < pageCount && !(i && (flags & UVM_PMA_ALLOCATE_ALLOW_PARTIAL))) {
			/* all or nothing */
			while (i--) {
				f = (pPages[i] - pma->base) / EMGPU_PMA_FRAME;
				for (j = 0; j < per_page; j++)
					frame_set(pma, f + j, EMGPU_PMA_FREE);
			}
			goto no_memory;
		}
	}
	spin_unlock(&pma->lock);
	if (flags & UVM_PMA_ALLOCATE_ALLOW_PARTIAL)
		pPmaAllocOptions->numPagesAllocated = i;
	return NV_OK;

no_memory:
	spin_unlock(&pma->lock);
	return NV_ERR_NO_MEMORY;
}
EXPORT_SYMBOL(nvUvmInterfacePmaAllocPages);

/* Sets every frame of the pages to @to; all must be in use first. */
static NV_STATUS pma_set_pages(void *pPma, NvU64 *pPages, NvLength pageCount, NvU64 pageSize,
			       u8 to)
{
	struct emgpu_rm_gpu *gpu = pma_gpu(pPma);
	struct emgpu_rm_pma *pma;
	unsigned long i, j, per_page;
	long f;

	if (!gpu || !pPages || !pageCount)
		return NV_ERR_INVALID_ARGUMENT;
	if (pageSize < EMGPU_PMA_FRAME || (pageSize & (pageSize - 1)))
		return NV_ERR_INVALID_ARGUMENT;
	pma = &gpu->pma;
	per_page = pageSize / EMGPU_PMA_FRAME;
	spin_lock(&pma->lock);
	for (i = 0; i < pageCount; i++) {
		f = pma_frames(pma, pPages[i], pageSize);
		if (f < 0)
			goto invalid;
		for (j = 0; j < per_page; j++)
			if (pma->state[f + j] == EMGPU_PMA_FREE)
				goto invalid;
	}
	for (i = 0; i < pageCount; i++) {
		f = pma_frames(pma, pPages[i], pageSize);
		for (j = 0; j < per_page; j++)
			frame_set(pma, f + j, to);
	}
	spin_unlock(&pma->lock);
	return NV_OK;

invalid:
	spin_unlock(&pma->lock);
	return NV_ERR_INVALID_ARGUMENT;
}

NV_STATUS nvUvmInterfacePmaPinPages(void *pPma, NvU64 *pPages, NvLength pageCount,
				    NvU64 pageSize, NvU32 flags)
{
	return pma_set_pages(pPma, pPages, pageCount, pageSize, EMGPU_PMA_PINNED);
}
EXPORT_SYMBOL(nvUvmInterfacePmaPinPages);

#if EMGPU_RM_BRANCH < 550
NV_STATUS nvUvmInterfacePmaUnpinPages(void *pPma, NvU64 *pPages, NvLength pageCount,
				      NvU64 pageSize)
{
	return pma_set_pages(pPma, pPages, pageCount, pageSize, EMGPU_PMA_ALLOCATED);
}
EXPORT_SYMBOL(nvUvmInterfacePmaUnpinPages);
#endif

void nvUvmInterfacePmaFreePages(void *pPma, NvU64 *pPages, NvLength pageCount,
				NvU64 pageSize, NvU32 flags)
{
	struct emgpu_rm_gpu *gpu = pma_gpu(pPma);
	struct emgpu_rm_pma *pma;
	unsigned long i, j, per_page, pages = pageCount;
	long f;

	if (!gpu || !pPages || !pageCount || pageSize < EMGPU_PMA_FRAME ||
	    (pageSize & (pageSize - 1)))
		return;
	pma = &gpu->pma;
	per_page = pageSize / EMGPU_PMA_FRAME;
	/* contiguous: pPages[0] is the start of pageCount pages */
	if (flags & UVM_PMA_ALLOCATE_CONTIGUOUS) {
		per_page *= pageCount;
		pageSize *= pageCount;
		pages = 1;
	}
	spin_lock(&pma->lock);
	for (i = 0; i < pages; i++) {
		f = pma_frames(pma, pPages[i], pageSize);
		if (f < 0) {
			pr_err_ratelimited("emgpu-rm: PmaFreePages of 0x%llx: not the PMA's\n",
					   pPages[i]);
			continue;
		}
		for (j = 0; j < per_page; j++)
			frame_set(pma, f + j, EMGPU_PMA_FREE);
	}
	spin_unlock(&pma->lock);
}
EXPORT_SYMBOL(nvUvmInterfacePmaFreePages);

/* ---- set-up ---- */

int emgpu_rm_mem_init(struct emgpu_rm_gpu *gpu)
{
	struct emgpu_rm_pma *pma = &gpu->pma;
	unsigned long chunks, i;

	gpu->heap_size = min3(EMGPU_RM_HEAP_MAX, gpu->bar2_size, gpu->vram_size / 4);
	gpu->heap_size = round_down(gpu->heap_size, UVM_PAGE_SIZE_2M);
	if (!gpu->heap_size)
		return -ENODEV;
	gpu->heap_map = bitmap_zalloc(gpu->heap_size / RM_PAGE, GFP_KERNEL);
	if (!gpu->heap_map)
		return -ENOMEM;

	pma->base = gpu->heap_size;
	pma->end = round_down(gpu->vram_size, UVM_PAGE_SIZE_2M);
	pma->frames = (pma->end - pma->base) / EMGPU_PMA_FRAME;
	chunks = pma->frames / EMGPU_PMA_FRAMES_PER_2M;
	pma->state = vzalloc(pma->frames);
	pma->free_in_2m = vmalloc(chunks);
	if (!pma->state || !pma->free_in_2m) {
		emgpu_rm_mem_fini(gpu);
		return -ENOMEM;
	}
	for (i = 0; i < chunks; i++)
		pma->free_in_2m[i] = EMGPU_PMA_FRAMES_PER_2M;
	pma->stats.numPages2m = chunks;
	pma->stats.numFreePages64k = pma->frames;
	pma->stats.numFreePages2m = chunks;
	return 0;
}

void emgpu_rm_mem_fini(struct emgpu_rm_gpu *gpu)
{
	vfree(gpu->pma.free_in_2m);
	vfree(gpu->pma.state);
	gpu->pma.free_in_2m = NULL;
	gpu->pma.state = NULL;
	bitmap_free(gpu->heap_map);
	gpu->heap_map = NULL;
}
