// SPDX-License-Identifier: GPL-2.0
/*
 * VA spaces and managed ranges. Each open of /dev/ember is a VA space (its
 * own address_space, so CPU PTE zaps reach only its mappings, as
 * nvidia-uvm does); each mmap of it is a managed range whose CPU and GPU
 * VAs are equal. Blocks are created on first use and live until the range
 * is unmapped (VMA close), or longer while an evictor holds a reference.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "ember_drv.h"

/* ---- blocks ---- */

static void ember_block_release(struct kref *kref)
{
	struct ember_va_block *block =
		container_of(kref, struct ember_va_block, kref);

	ember_va_space_put(block->vs);
	mutex_destroy(&block->lock);
	kvfree(block);
}

void ember_block_put(struct ember_va_block *block)
{
	kref_put(&block->kref, ember_block_release);
}

/* LOCKING: the policy is fixed while the VA space has ranges */
static struct ember_va_block *ember_block_create(struct ember_va_space *vs,
						 u64 start)
{
	u32 priv_size = vs->policy->block_priv_size;
	struct ember_va_block *block;

	block = kvzalloc(sizeof(*block) + priv_size, GFP_KERNEL_ACCOUNT);
	if (!block)
		return NULL;
	if (priv_size)
		block->policy_priv = block + 1;
	kref_init(&block->kref);
	mutex_init(&block->lock);
	block->vs = vs;
	kref_get(&vs->kref);
	block->start = start;
	if (vs->policy->mapped_by_default) {
		block->preferred = EMBER_LOC_CPU;
		block->accessed_by = true;
	}
	return block;
}

/*
 * The block holding va, created if create is set; NULL if it does not
 * exist or cannot be allocated. LOCKING: the range must stay alive (the
 * caller holds vs->lock, or the mmap_lock of a fault on its VMA).
 */
struct ember_va_block *ember_range_block(struct ember_va_range *range, u64 va,
					 bool create)
{
	unsigned long idx = (va - range->start) >> EMBER_VA_BLOCK_SHIFT;
	struct ember_va_block *block, *old;

	lockdep_assert(lockdep_is_held(&range->vs->lock) ||
		       lockdep_is_held(&range->vs->mm->mmap_lock));
	block = READ_ONCE(range->blocks[idx]);
	if (block || !create)
		return block;
	block = ember_block_create(range->vs, va & ~(EMBER_VA_BLOCK_SIZE - 1));
	if (!block)
		return NULL;
	old = cmpxchg(&range->blocks[idx], NULL, block);
	if (old) {
		ember_block_put(block);
		return old;
	}
	return block;
}

/* ---- ranges ---- */

/* The range holding [addr, addr + length). LOCKING: vs->lock. */
struct ember_va_range *ember_range_find(struct ember_va_space *vs, u64 addr,
					u64 length)
{
	struct ember_va_range *range;

	lockdep_assert_held(&vs->lock);
	list_for_each_entry(range, &vs->ranges, node)
		if (addr >= range->start && addr + length <= range->end)
			return range;
	return NULL;
}

static void ember_range_destroy(struct kref *kref)
{
	struct ember_va_range *range =
		container_of(kref, struct ember_va_range, kref);
	struct ember_va_space *vs = range->vs;
	unsigned long i;

	down_write(&vs->lock);
	list_del(&range->node);
	ember_limits_uncharge_managed(vs, range->end - range->start);
	up_write(&vs->lock);

	for (i = 0; i < range->nblocks; i++) {
		struct ember_va_block *block = range->blocks[i];

		if (!block)
			continue;
		ember_block_destroy(block);
		ember_block_put(block);
	}
	kvfree(range->blocks);
	kfree(range);
	ember_va_space_put(vs);
}

static vm_fault_t ember_vm_fault(struct vm_fault *vmf)
{
	struct ember_va_range *range = vmf->vma->vm_private_data;
	struct ember_va_block *block;

	block = ember_range_block(range, vmf->address, true);
	if (!block)
		return VM_FAULT_OOM;
	return ember_block_cpu_fault(block, vmf);
}

/*
 * A VMA of the range was duplicated: only mremap does that here (fork does
 * not copy, splits are refused), and it removes one of the two again.
 */
static void ember_vm_open(struct vm_area_struct *vma)
{
	struct ember_va_range *range = vma->vm_private_data;

	kref_get(&range->kref);
}

static void ember_vm_close(struct vm_area_struct *vma)
{
	struct ember_va_range *range = vma->vm_private_data;

	kref_put(&range->kref, ember_range_destroy);
}

/* A range is one VMA for life: no splitting, no moving. */
static int ember_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int ember_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct ember_vm_ops = {
	.open = ember_vm_open,
	.fault = ember_vm_fault,
	.close = ember_vm_close,
	.may_split = ember_vm_may_split,
	.mremap = ember_vm_mremap,
};

int ember_va_space_mmap(struct ember_va_space *vs, struct vm_area_struct *vma)
{
	u64 start = vma->vm_start, end = vma->vm_end;
	struct ember_va_range *range;
	int ret;

	if (current->mm != vs->mm)
		return -EPERM;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (!IS_ALIGNED(start, EMBER_VA_BLOCK_SIZE) ||
	    !IS_ALIGNED(end, EMBER_VA_BLOCK_SIZE) ||
	    vma->vm_pgoff != start >> PAGE_SHIFT)
		return -EINVAL;

	range = kzalloc(sizeof(*range), GFP_KERNEL_ACCOUNT);
	if (!range)
		return -ENOMEM;
	kref_init(&range->kref);
	range->vs = vs;
	range->start = start;
	range->end = end;
	range->nblocks = (end - start) >> EMBER_VA_BLOCK_SHIFT;
	range->blocks = kvcalloc(range->nblocks, sizeof(*range->blocks),
				 GFP_KERNEL_ACCOUNT);
	if (!range->blocks) {
		kfree(range);
		return -ENOMEM;
	}
	down_write(&vs->lock);
	ret = ember_limits_charge_managed(vs, end - start);
	up_write(&vs->lock);
	if (ret) {
		kvfree(range->blocks);
		kfree(range);
		return ret;
	}

	vma->vm_flags |= VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTCOPY | VM_DONTDUMP;
	vma->vm_ops = &ember_vm_ops;
	vma->vm_private_data = range;

	kref_get(&vs->kref);
	down_write(&vs->lock);
	list_add_tail(&range->node, &vs->ranges);
	up_write(&vs->lock);
	return 0;
}

/* ---- VA spaces ---- */

struct ember_va_space *ember_va_space_create(struct file *file)
{
	struct ember_va_space *vs = kzalloc(sizeof(*vs), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!vs)
		return ERR_PTR(-ENOMEM);
	kref_init(&vs->kref);
	vs->gpu = ember_gpu_get_default();
	vs->mm = current->mm;
	/* host pages are allocated in the bottom half too: charged here */
	vs->memcg = get_mem_cgroup_from_mm(current->mm);
	atomic_set(&vs->launches_outstanding, 0);
	address_space_init_once(&vs->mapping);
	vs->mapping.host = file_inode(file);
	vs->mapping.a_ops = &empty_aops;
	init_rwsem(&vs->lock);
	INIT_LIST_HEAD(&vs->ranges);
	mutex_init(&vs->pt_lock);
	init_waitqueue_head(&vs->launch_wq);

	vs->policy = ember_policy_get_default();
	if (!vs->policy) {
		ret = -ENOENT;
		goto err_free;
	}
	ret = ember_policy_space_init(vs, vs->policy, &vs->policy_data);
	if (ret)
		goto err_policy;
	if (vs->gpu) {
		ret = ember_mmu_init(vs);
		if (ret)
			goto err_policy_fini;
	}
	file->f_mapping = &vs->mapping;
	return vs;

err_policy_fini:
	ember_policy_space_fini(vs, vs->policy, vs->policy_data);
err_policy:
	ember_policy_put(vs->policy);
err_free:
	mem_cgroup_put(vs->memcg);
	kfree(vs);
	return ERR_PTR(ret);
}

static void ember_va_space_release(struct kref *kref)
{
	struct ember_va_space *vs =
		container_of(kref, struct ember_va_space, kref);

	ember_mmu_fini(vs);
	ember_policy_space_fini(vs, vs->policy, vs->policy_data);
	ember_policy_put(vs->policy);
	mutex_destroy(&vs->pt_lock);
	mem_cgroup_put(vs->memcg);
	kfree(vs);
}

void ember_va_space_put(struct ember_va_space *vs)
{
	kref_put(&vs->kref, ember_va_space_release);
}
