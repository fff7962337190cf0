// SPDX-License-Identifier: GPL-2.0
/*
 * emgpu-rm.ko: the host side of the GA10x register block. TSGs and GPFIFO
 * channels (their memory from emgpu_rm_mem.c, their registers
 * GA10X_REG_CHAN_*), the replayable fault buffer and the access-counter
 * buffer (sysmem, GA10X_REG_FAULT_BUF_* and GA10X_REG_AC_*), the fault
 * interrupt's ownership, and the retained channels of user VA spaces.
 * Locking: emgpu_rm.h.
 */
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "emgpu_rm.h"

#define FAULT_BUFFER_HANDLE	0xfa000001u
#define AC_BUFFER_HANDLE	0xac000001u

static u32 aperture(const struct emgpu_rm_alloc *a)
{
	return a->sysmem ? GA10X_BASE_APERTURE_SYSMEM : GA10X_BASE_APERTURE_VIDMEM;
}

static void chan_wr(struct emgpu_rm_gpu *gpu, unsigned int id, u32 reg, u32 val)
{
	emgpu_rm_wr(gpu, GA10X_REG_CHAN(id, reg), val);
}

static void chan_wr_base(struct emgpu_rm_gpu *gpu, unsigned int id, u32 reg_lo,
			 const struct emgpu_rm_alloc *a)
{
	emgpu_rm_wr64(gpu, GA10X_REG_CHAN(id, reg_lo), emgpu_rm_alloc_base(a) | aperture(a));
}

void emgpu_rm_channel_program_pdb(struct uvmGpuChannel_tag *ch)
{
	struct emgpu_rm_gpu *gpu = ch->tsg->vas->device->gpu;

	lockdep_assert_held(&gpu->lock);
	emgpu_rm_wr64(gpu, GA10X_REG_CHAN(ch->id, GA10X_REG_CHAN_PDB_LO),
		      emgpu_rm_vas_pdb(ch->tsg->vas));
}

static struct uvmGpuTsg_tag *tsg_find_locked(struct emgpu_rm_gpu *gpu, const void *handle)
{
	lockdep_assert_held(&gpu->lock);
	return emgpu_rm_find_on(&gpu->tsgs, handle, struct uvmGpuTsg_tag);
}

static struct uvmGpuChannel_tag *channel_find_locked(struct emgpu_rm_gpu *gpu,
						     const void *handle)
{
	lockdep_assert_held(&gpu->lock);
	return emgpu_rm_find_on(&gpu->channels, handle, struct uvmGpuChannel_tag);
}

static struct emgpu_rm_retained *retained_find_locked(struct emgpu_rm_gpu *gpu,
						      const void *handle)
{
	lockdep_assert_held(&gpu->lock);
	return emgpu_rm_find_on(&gpu->retained, handle, struct emgpu_rm_retained);
}

/* ---- TSGs ---- */

NV_STATUS nvUvmInterfaceTsgAllocate(uvmGpuAddressSpaceHandle vaSpace,
				    const UvmGpuTsgAllocParams *allocParams,
				    uvmGpuTsgHandle *tsg)
{
	struct uvmGpuAddressSpace_tag *vas;
	struct uvmGpuTsg_tag *t;
	struct emgpu_rm_gpu *gpu;

	if (!allocParams || !tsg)
		return NV_ERR_INVALID_ARGUMENT;
	/* nvidia-uvm's channels are CE channels; SEC2 ones exist only with
	 * Confidential Computing, GR ones are the user's, never made here */
	if (allocParams->engineType != UVM_GPU_CHANNEL_ENGINE_TYPE_CE)
		return NV_ERR_NOT_SUPPORTED;
	vas = emgpu_rm_vas_get(vaSpace);
	if (!vas)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = vas->device->gpu;
	if (allocParams->engineIndex >= gpu->num_ces) {
		emgpu_rm_vas_put(vas);
		return NV_ERR_INVALID_ARGUMENT;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		emgpu_rm_vas_put(vas);
		return NV_ERR_NO_MEMORY;
	}
	t->vas = vas;
	t->ce = allocParams->engineIndex;
	t->id = gpu->next_tsg++;
	list_add_tail(&t->node, &gpu->tsgs);
	emgpu_rm_vas_put(vas);
	*tsg = t;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceTsgAllocate);

void nvUvmInterfaceTsgDestroy(uvmGpuTsgHandle tsg)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();
	struct uvmGpuTsg_tag *t;

	if (!gpu || !tsg)
		return;
	mutex_lock(&gpu->lock);
	t = tsg_find_locked(gpu, tsg);
	if (t && t->channels) {
		pr_err("emgpu-rm: TSG %u destroyed with %u channels\n", t->id, t->channels);
		t = NULL;
	}
	if (t)
		list_del(&t->node);
	mutex_unlock(&gpu->lock);
	kfree(t);
}
EXPORT_SYMBOL(nvUvmInterfaceTsgDestroy);

/* ---- channels ---- */

static void channel_free_locked(struct emgpu_rm_gpu *gpu, struct uvmGpuChannel_tag *ch)
{
	struct uvmGpuAddressSpace_tag *vas = ch->tsg->vas;
	struct emgpu_rm_retained *r;

	lockdep_assert_held(&gpu->lock);
	/*
	 * nvidia-uvm sees a channel's RC only in its notifier; the device's
	 * last error says why (overwritten by any later one), for the log
	 */
	if (emgpu_rm_rd(gpu, GA10X_REG_CHAN(ch->id, GA10X_REG_CHAN_STATUS)) & GA10X_CHAN_STATUS_RC)
		dev_info_ratelimited(&gpu->pdev->dev,
				     "channel %u was in RC; last device error %u, info 0x%x, %u since reset\n",
				     ch->id, emgpu_rm_rd(gpu, EMGPU_REG_ERROR_STATUS),
				     emgpu_rm_rd(gpu, EMGPU_REG_ERROR_INFO),
				     emgpu_rm_rd(gpu, EMGPU_REG_ERROR_COUNT));
	/* stop it, then forget it: the device must not touch the memory */
	chan_wr(gpu, ch->id, GA10X_REG_CHAN_CTRL, 0);
	emgpu_rm_wr64(gpu, GA10X_REG_CHAN(ch->id, GA10X_REG_CHAN_GPFIFO_LO), 0);
	emgpu_rm_wr64(gpu, GA10X_REG_CHAN(ch->id, GA10X_REG_CHAN_USERD_LO), 0);
	emgpu_rm_wr64(gpu, GA10X_REG_CHAN(ch->id, GA10X_REG_CHAN_NOTIFIER_LO), 0);
	emgpu_rm_wr64(gpu, GA10X_REG_CHAN(ch->id, GA10X_REG_CHAN_INST_LO), 0);
	emgpu_rm_wr64(gpu, GA10X_REG_CHAN(ch->id, GA10X_REG_CHAN_PDB_LO), 0);
	/* a retain holds a reference: nvidia-uvm routes faults by INST */
	list_for_each_entry(r, &gpu->retained, node)
		WARN_ON(r->channel == ch);
	WARN_ON(gpu->launch_channel == ch);
	emgpu_rm_free_mem(vas, ch->notifier);
	emgpu_rm_free_mem(vas, ch->userd);
	emgpu_rm_free_mem(vas, ch->gpfifo);
	emgpu_rm_free_mem(vas, ch->inst);
	clear_bit(ch->id, gpu->channel_used);
	ch->tsg->channels--;
	if (!list_empty(&ch->node))
		list_del(&ch->node);
	kfree(ch);
}

static bool location_sysmem(NvU32 loc)
{
	return loc != UVM_BUFFER_LOCATION_VID;
}

NV_STATUS nvUvmInterfaceChannelAllocate(const uvmGpuTsgHandle tsg,
					const UvmGpuChannelAllocParams *allocParams,
					uvmGpuChannelHandle *channel,
					UvmGpuChannelInfo *channelInfo)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();
	struct uvmGpuAddressSpace_tag *vas;
	struct uvmGpuChannel_tag *ch;
	struct uvmGpuTsg_tag *t;
	NV_STATUS status;
	u32 entries;
	u8 *userd;

	if (!allocParams || !channel || !channelInfo)
		return NV_ERR_INVALID_ARGUMENT;
	entries = allocParams->numGpFifoEntries;
	if (entries < 2 || entries > (1u << 20) || (entries & (entries - 1)) ||
	    allocParams->gpFifoLoc > UVM_BUFFER_LOCATION_VID ||
	    allocParams->gpPutLoc > UVM_BUFFER_LOCATION_VID)
		return NV_ERR_INVALID_ARGUMENT;
	if (!gpu || !tsg)
		return NV_ERR_INVALID_OBJECT_HANDLE;

	mutex_lock(&gpu->lock);
	t = tsg_find_locked(gpu, tsg);
	if (!t) {
		status = NV_ERR_INVALID_OBJECT_HANDLE;
		goto unlock;
	}
	vas = t->vas;
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch) {
		status = NV_ERR_NO_MEMORY;
		goto unlock;
	}
	INIT_LIST_HEAD(&ch->node);
	ch->tsg = t;
	ch->id = find_first_zero_bit(gpu->channel_used, GA10X_CHANNELS);
	if (ch->id >= GA10X_CHANNELS) {
		kfree(ch);
		status = NV_ERR_INSUFFICIENT_RESOURCES;
		goto unlock;
	}
	set_bit(ch->id, gpu->channel_used);
	t->channels++;

	status = emgpu_rm_alloc_mem(vas, 4096, 0, 4096, true, &ch->inst);
	if (status == NV_OK)
		status = emgpu_rm_alloc_mem(vas, (u64)entries * sizeof(NvU64), 0, 4096,
					    location_sysmem(allocParams->gpFifoLoc), &ch->gpfifo);
	if (status == NV_OK)
		status = emgpu_rm_alloc_mem(vas, GA10X_USERD_SIZE, 0, 4096,
					    location_sysmem(allocParams->gpPutLoc), &ch->userd);
	if (status == NV_OK)
		status = emgpu_rm_alloc_mem(vas, sizeof(NvNotification), 0, 4096, true,
					    &ch->notifier);
	if (status != NV_OK) {
		channel_free_locked(gpu, ch);
		goto unlock;
	}

	chan_wr_base(gpu, ch->id, GA10X_REG_CHAN_INST_LO, ch->inst);
	emgpu_rm_channel_program_pdb(ch);
	chan_wr_base(gpu, ch->id, GA10X_REG_CHAN_GPFIFO_LO, ch->gpfifo);
	chan_wr(gpu, ch->id, GA10X_REG_CHAN_GPFIFO_ENTRIES, entries);
	chan_wr_base(gpu, ch->id, GA10X_REG_CHAN_USERD_LO, ch->userd);
	chan_wr_base(gpu, ch->id, GA10X_REG_CHAN_NOTIFIER_LO, ch->notifier);
	chan_wr(gpu, ch->id, GA10X_REG_CHAN_ENGINE, t->ce);
	chan_wr(gpu, ch->id, GA10X_REG_CHAN_CTRL, GA10X_CHAN_CTRL_ENABLE);
	ch->token = emgpu_rm_rd(gpu, GA10X_REG_CHAN(ch->id, GA10X_REG_CHAN_TOKEN));
	list_add_tail(&ch->node, &gpu->channels);

	userd = emgpu_rm_alloc_cpu(gpu, ch->userd);
	memset(channelInfo, 0, sizeof(*channelInfo));
	channelInfo->gpGet = (volatile unsigned *)(userd + GA10X_USERD_GP_GET);
	channelInfo->gpPut = (volatile unsigned *)(userd + GA10X_USERD_GP_PUT);
	channelInfo->gpFifoEntries = emgpu_rm_alloc_cpu(gpu, ch->gpfifo);
	channelInfo->numGpFifoEntries = entries;
	channelInfo->channelClassNum = gpu->arch->host_class;
	channelInfo->errorNotifier = emgpu_rm_alloc_cpu(gpu, ch->notifier);
	channelInfo->hwRunlistId = t->ce;	/* one runlist a CE */
	channelInfo->hwChannelId = ch->id;
	channelInfo->dummyBar1Mapping = NULL;
	channelInfo->workSubmissionOffset = (volatile NvU32 *)(gpu->bar0 + GA10X_REG_DOORBELL);
	channelInfo->workSubmissionToken = ch->token;
	channelInfo->pWorkSubmissionToken = &ch->token;
	channelInfo->gpFifoGpuVa = ch->gpfifo->va;
	channelInfo->gpPutGpuVa = ch->userd->va + GA10X_USERD_GP_PUT;
	channelInfo->gpGetGpuVa = ch->userd->va + GA10X_USERD_GP_GET;
	/* the doorbell has no GPU VA: only Confidential Computing's WLC and
	 * LCIC channels ring doorbells from the GPU */
	channelInfo->workSubmissionOffsetGpuVa = 0;
	*channel = ch;
	status = NV_OK;
unlock:
	mutex_unlock(&gpu->lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceChannelAllocate);

void nvUvmInterfaceChannelDestroy(uvmGpuChannelHandle channel)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();
	struct uvmGpuChannel_tag *ch;

	if (!gpu || !channel)
		return;
	mutex_lock(&gpu->lock);
	ch = channel_find_locked(gpu, channel);
	if (ch && ch->account) {
		/* a compute channel: its references free it, never nvidia-uvm */
		pr_err("emgpu-rm: ChannelDestroy of compute channel %u\n", ch->id);
		ch = NULL;
	}
	if (ch)
		channel_free_locked(gpu, ch);
	mutex_unlock(&gpu->lock);
}
EXPORT_SYMBOL(nvUvmInterfaceChannelDestroy);

/* ---- fault buffers and their interrupt ---- */

static struct emgpu_rm_alloc *sys_buffer_alloc(struct emgpu_rm_gpu *gpu, u64 size)
{
	struct emgpu_rm_alloc *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return NULL;
	a->sysmem = true;
	a->size = size;
	a->cpu = dma_alloc_coherent(&gpu->pdev->dev, size, &a->dma, GFP_KERNEL);
	if (!a->cpu) {
		kfree(a);
		return NULL;
	}
	memset(a->cpu, 0, size);
	return a;
}

static void sys_buffer_free(struct emgpu_rm_gpu *gpu, struct emgpu_rm_alloc *a)
{
	if (!a)
		return;
	dma_free_coherent(&gpu->pdev->dev, a->size, a->cpu, a->dma);
	kfree(a);
}

NV_STATUS nvUvmInterfaceInitFaultInfo(uvmGpuDeviceHandle device, UvmGpuFaultInfo *pFaultInfo)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	const u32 size = EMGPU_RM_FAULT_ENTRIES * EMGPU_RM_FAULT_ENTRY_SIZE;
	struct emgpu_rm_gpu *gpu;
	NV_STATUS status = NV_OK;
	void __iomem *r;

	if (!pFaultInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	r = gpu->bar0;
	mutex_lock(&gpu->lock);
	if (gpu->fault_buf) {
		status = NV_ERR_STATE_IN_USE;
		goto unlock;
	}
	gpu->fault_buf = sys_buffer_alloc(gpu, size);
	gpu->nonreplayable_shadow = kzalloc(size, GFP_KERNEL);
	if (!gpu->fault_buf || !gpu->nonreplayable_shadow) {
		sys_buffer_free(gpu, gpu->fault_buf);
		kfree(gpu->nonreplayable_shadow);
		gpu->fault_buf = NULL;
		gpu->nonreplayable_shadow = NULL;
		status = NV_ERR_NO_MEMORY;
		goto unlock;
	}
	emgpu_rm_wr64(gpu, GA10X_REG_FAULT_BUF_LO, gpu->fault_buf->dma | GA10X_BASE_APERTURE_SYSMEM);
	emgpu_rm_wr(gpu, GA10X_REG_FAULT_BUF_SIZE, EMGPU_RM_FAULT_ENTRIES);
	emgpu_rm_wr(gpu, GA10X_REG_FAULT_BUF_CTRL, EMGPU_RING_ENABLE);

	memset(pFaultInfo, 0, sizeof(*pFaultInfo));
	pFaultInfo->replayable.pFaultBufferGet = (volatile NvU32 *)(r + GA10X_REG_FAULT_BUF_GET);
	pFaultInfo->replayable.pFaultBufferPut = (volatile NvU32 *)(r + GA10X_REG_FAULT_BUF_PUT);
	pFaultInfo->replayable.pFaultBufferInfo = (volatile NvU32 *)(r + GA10X_REG_FAULT_BUF_INFO);
	pFaultInfo->replayable.pPmcIntr = (volatile NvU32 *)(r + GA10X_REG_INTR_LEAF);
	pFaultInfo->replayable.pPmcIntrEnSet = (volatile NvU32 *)(r + GA10X_REG_INTR_EN_SET);
	pFaultInfo->replayable.pPmcIntrEnClear = (volatile NvU32 *)(r + GA10X_REG_INTR_EN_CLEAR);
	pFaultInfo->replayable.pPrefetchCtrl = (volatile NvU32 *)(r + GA10X_REG_PAGE_FAULT_CTRL);
	pFaultInfo->replayable.replayableFaultMask = GA10X_INTR_REPLAYABLE_FAULT;
	pFaultInfo->replayable.bufferAddress = gpu->fault_buf->cpu;
	pFaultInfo->replayable.bufferSize = size;
#if EMGPU_RM_BRANCH < 550
	/* no GSP owns it (that is Confidential Computing's arrangement) */
	pFaultInfo->replayable.bUvmOwnsHwFaultBuffer = NV_TRUE;
#endif
	/* non-replayable faults: the RM's shadow copy, never filled (emgpu
	 * raises only replayable faults) */
	pFaultInfo->nonReplayable.shadowBufferAddress = gpu->nonreplayable_shadow;
	pFaultInfo->nonReplayable.bufferSize = size;
	pFaultInfo->faultBufferHandle = FAULT_BUFFER_HANDLE;
unlock:
	mutex_unlock(&gpu->lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceInitFaultInfo);

NV_STATUS nvUvmInterfaceDestroyFaultInfo(uvmGpuDeviceHandle device, UvmGpuFaultInfo *pFaultInfo)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	struct emgpu_rm_gpu *gpu;

	if (!pFaultInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	mutex_lock(&gpu->lock);
	if (gpu->fault_buf && pFaultInfo->faultBufferHandle == FAULT_BUFFER_HANDLE) {
		emgpu_rm_wr(gpu, GA10X_REG_FAULT_BUF_CTRL, 0);
		emgpu_rm_wr64(gpu, GA10X_REG_FAULT_BUF_LO, 0);
		sys_buffer_free(gpu, gpu->fault_buf);
		kfree(gpu->nonreplayable_shadow);
		gpu->fault_buf = NULL;
		gpu->nonreplayable_shadow = NULL;
		pFaultInfo->faultBufferHandle = 0;
	}
	mutex_unlock(&gpu->lock);
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceDestroyFaultInfo);

NV_STATUS nvUvmInterfaceOwnPageFaultIntr(uvmGpuDeviceHandle device, NvBool bOwnInterrupts)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	struct emgpu_rm_gpu *gpu;

	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	mutex_lock(&gpu->lock);
	gpu->fault_owned = bOwnInterrupts;
	if (!bOwnInterrupts)	/* back to the RM, which leaves them off */
		emgpu_rm_wr(gpu, GA10X_REG_INTR_EN_CLEAR,
			    GA10X_INTR_REPLAYABLE_FAULT | GA10X_INTR_NONREPLAYABLE_FAULT);
	emgpu_rm_update_isr(gpu);
	mutex_unlock(&gpu->lock);
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceOwnPageFaultIntr);

/* From nvidia-uvm's top half too: no lock, no sleep. */
NV_STATUS nvUvmInterfaceHasPendingNonReplayableFaults(UvmGpuFaultInfo *pFaultInfo,
						      NvBool *hasPendingFaults)
{
	if (!pFaultInfo || !hasPendingFaults)
		return NV_ERR_INVALID_ARGUMENT;
	*hasPendingFaults = NV_FALSE;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceHasPendingNonReplayableFaults);

NV_STATUS nvUvmInterfaceGetNonReplayableFaults(UvmGpuFaultInfo *pFaultInfo,
					       void *pFaultBuffer, NvU32 *numFaults)
{
	if (!pFaultInfo || !pFaultBuffer || !numFaults)
		return NV_ERR_INVALID_ARGUMENT;
	*numFaults = 0;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceGetNonReplayableFaults);

/* ---- access counters ---- */

NV_STATUS nvUvmInterfaceInitAccessCntrInfo(uvmGpuDeviceHandle device,
					   UvmGpuAccessCntrInfo *pAccessCntrInfo,
					   NvU32 accessCntrIndex)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	const u32 size = EMGPU_RM_AC_ENTRIES * EMGPU_RM_AC_ENTRY_SIZE;
	struct emgpu_rm_gpu *gpu;
	NV_STATUS status = NV_OK;
	void __iomem *r;

	if (!pAccessCntrInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (accessCntrIndex != 0)	/* one notification buffer */
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	r = gpu->bar0;
	mutex_lock(&gpu->lock);
	if (gpu->ac_buf) {
		status = NV_ERR_STATE_IN_USE;
		goto unlock;
	}
	gpu->ac_buf = sys_buffer_alloc(gpu, size);
	if (!gpu->ac_buf) {
		status = NV_ERR_NO_MEMORY;
		goto unlock;
	}
	emgpu_rm_wr64(gpu, GA10X_REG_AC_BUF_LO, gpu->ac_buf->dma | GA10X_BASE_APERTURE_SYSMEM);
	emgpu_rm_wr(gpu, GA10X_REG_AC_BUF_SIZE, EMGPU_RM_AC_ENTRIES);

	memset(pAccessCntrInfo, 0, sizeof(*pAccessCntrInfo));
	pAccessCntrInfo->pAccessCntrBufferGet = (volatile NvU32 *)(r + GA10X_REG_AC_BUF_GET);
	pAccessCntrInfo->pAccessCntrBufferPut = (volatile NvU32 *)(r + GA10X_REG_AC_BUF_PUT);
	pAccessCntrInfo->pAccessCntrBufferFull = (volatile NvU32 *)(r + GA10X_REG_AC_BUF_FULL);
	pAccessCntrInfo->pHubIntr = (volatile NvU32 *)(r + GA10X_REG_INTR_LEAF);
	pAccessCntrInfo->pHubIntrEnSet = (volatile NvU32 *)(r + GA10X_REG_INTR_EN_SET);
	pAccessCntrInfo->pHubIntrEnClear = (volatile NvU32 *)(r + GA10X_REG_INTR_EN_CLEAR);
	pAccessCntrInfo->accessCounterMask = GA10X_INTR_ACCESS_COUNTER;
	pAccessCntrInfo->bufferAddress = gpu->ac_buf->cpu;
	pAccessCntrInfo->bufferSize = size;
	pAccessCntrInfo->accessCntrBufferHandle = AC_BUFFER_HANDLE;
	emgpu_rm_update_isr(gpu);
unlock:
	mutex_unlock(&gpu->lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceInitAccessCntrInfo);

NV_STATUS nvUvmInterfaceDestroyAccessCntrInfo(uvmGpuDeviceHandle device,
					      UvmGpuAccessCntrInfo *pAccessCntrInfo)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	struct emgpu_rm_gpu *gpu;

	if (!pAccessCntrInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	mutex_lock(&gpu->lock);
	if (gpu->ac_buf && pAccessCntrInfo->accessCntrBufferHandle == AC_BUFFER_HANDLE) {
		emgpu_rm_wr(gpu, GA10X_REG_AC_CTRL, 0);
		emgpu_rm_wr64(gpu, GA10X_REG_AC_BUF_LO, 0);
		sys_buffer_free(gpu, gpu->ac_buf);
		gpu->ac_buf = NULL;
		pAccessCntrInfo->accessCntrBufferHandle = 0;
		emgpu_rm_update_isr(gpu);
	}
	mutex_unlock(&gpu->lock);
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceDestroyAccessCntrInfo);

static bool ac_value_ok(NvU32 v)
{
	return v >= 1 && v <= 4;	/* the UVM_ACCESS_COUNTER_* enums */
}

NV_STATUS nvUvmInterfaceEnableAccessCntr(uvmGpuDeviceHandle device,
					 UvmGpuAccessCntrInfo *pAccessCntrInfo,
					 EMGPU_RM_AC_CONFIG_CONST UvmGpuAccessCntrConfig *pAccessCntrConfig)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	EMGPU_RM_AC_CONFIG_CONST UvmGpuAccessCntrConfig *c = pAccessCntrConfig;
	struct emgpu_rm_gpu *gpu;
	NV_STATUS status = NV_OK;
	u32 mimc_gran, momc_gran, mimc_limit, momc_limit;

	if (!pAccessCntrInfo || !c)
		return NV_ERR_INVALID_ARGUMENT;
	/* the hardware's values are the UVM_ACCESS_COUNTER_* enums less one */
#ifdef EMGPU_RM_AC_MIMC_MOMC
	if (!ac_value_ok(c->mimcGranularity) || !ac_value_ok(c->momcGranularity) ||
	    !ac_value_ok(c->mimcUseLimit) || !ac_value_ok(c->momcUseLimit))
		return NV_ERR_INVALID_ARGUMENT;
	mimc_gran = c->mimcGranularity - 1;
	momc_gran = c->momcGranularity - 1;
	mimc_limit = c->mimcUseLimit - 1;
	momc_limit = c->momcUseLimit - 1;
#else
	/*
	 * From 575 one granularity, the MIMC's: the RM programs the MOMC
	 * counters at 64K with no use, the MIMC's at full use
	 * (nv_gpu_ops.c: UVM no longer uses MOMC)
	 */
	if (!ac_value_ok(c->granularity))
		return NV_ERR_INVALID_ARGUMENT;
	mimc_gran = c->granularity - 1;
	momc_gran = C365_GRAN_64K;
	mimc_limit = C365_USE_LIMIT_FULL;
	momc_limit = C365_USE_LIMIT_NONE;
#endif
	if (!c->threshold || c->threshold > 0xffff)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	mutex_lock(&gpu->lock);
	if (!gpu->ac_buf || pAccessCntrInfo->accessCntrBufferHandle != AC_BUFFER_HANDLE) {
		status = NV_ERR_INVALID_STATE;
		goto unlock;
	}
	/* NV_PFB_NISO_ACCESS_COUNTER_CONFIG, as the RM programs it */
	emgpu_rm_wr(gpu, GA10X_REG_AC_CONFIG,
		    (c->threshold & C365_CONFIG_THRESHOLD_MASK) |
		    (mimc_gran << C365_CONFIG_MIMC_GRAN_SHIFT) |
		    (momc_gran << C365_CONFIG_MOMC_GRAN_SHIFT) |
		    (mimc_limit << C365_CONFIG_MIMC_USE_LIMIT_SHIFT) |
		    (momc_limit << C365_CONFIG_MOMC_USE_LIMIT_SHIFT));
	emgpu_rm_wr(gpu, GA10X_REG_AC_CTRL, EMGPU_RING_ENABLE);
unlock:
	mutex_unlock(&gpu->lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceEnableAccessCntr);

NV_STATUS nvUvmInterfaceDisableAccessCntr(uvmGpuDeviceHandle device,
					  UvmGpuAccessCntrInfo *pAccessCntrInfo)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	struct emgpu_rm_gpu *gpu;

	if (!pAccessCntrInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	mutex_lock(&gpu->lock);
	emgpu_rm_wr(gpu, GA10X_REG_AC_CTRL, 0);
	mutex_unlock(&gpu->lock);
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceDisableAccessCntr);

/* ---- compute channels (EMGPU_RM_CHANNEL_CREATE) ---- */

/*
 * A compute channel in the user VA space @vas, charged to @account: a free
 * hardware channel, a TSG of its own (on no list: nvidia-uvm never sees
 * it), a 4K sysmem instance block (the INST its faults carry) and the VA
 * space's page directory, on GA10X_ENGINE_GRAPHICS: no GPFIFO, USERD or
 * notifier, work comes by GA10X_REG_LAUNCH_CHANNEL. One reference, the
 * caller's (the user's handle). 0, -ENOSPC with every hardware channel
 * taken, -ENOMEM.
 */
int emgpu_rm_compute_channel_create(struct uvmGpuAddressSpace_tag *vas,
				    struct emgpu_rm_account *account,
				    struct uvmGpuChannel_tag **out)
{
	struct emgpu_rm_gpu *gpu = vas->device->gpu;
	struct uvmGpuChannel_tag *ch;
	struct uvmGpuTsg_tag *t;

	lockdep_assert_held(&gpu->lock);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!t || !ch) {
		kfree(t);
		kfree(ch);
		return -ENOMEM;
	}
	ch->id = find_first_zero_bit(gpu->channel_used, GA10X_CHANNELS);
	if (ch->id >= GA10X_CHANNELS) {
		kfree(t);
		kfree(ch);
		return -ENOSPC;
	}
	INIT_LIST_HEAD(&t->node);
	t->vas = vas;
	t->id = gpu->next_tsg++;
	/* the graphics runlist follows the copy engines' (one each) */
	t->ce = gpu->num_ces;
	t->channels = 1;
	INIT_LIST_HEAD(&ch->node);
	ch->tsg = t;
	set_bit(ch->id, gpu->channel_used);
	if (emgpu_rm_alloc_mem(vas, 4096, 0, 4096, true, &ch->inst) != NV_OK) {
		channel_free_locked(gpu, ch);
		kfree(t);
		return -ENOMEM;
	}
	chan_wr_base(gpu, ch->id, GA10X_REG_CHAN_INST_LO, ch->inst);
	emgpu_rm_channel_program_pdb(ch);
	chan_wr(gpu, ch->id, GA10X_REG_CHAN_ENGINE, GA10X_ENGINE_GRAPHICS);
	chan_wr(gpu, ch->id, GA10X_REG_CHAN_CTRL, GA10X_CHAN_CTRL_ENABLE);
	list_add_tail(&ch->node, &gpu->channels);
	kref_init(&ch->ref);
	ch->account = account;
	account->refs++;
	account->channels++;
	gpu->user_channels++;
	vas->user_channels++;
	*out = ch;
	return 0;
}

/*
 * The user freed the channel (its handle is gone) or nvidia-uvm stopped
 * it: the device fetches nothing more from it and ends a launch running
 * in it. Nothing enables it again: the launches still asked of it are
 * refused before the device is rung (ECANCELED). What nvidia-uvm
 * retained stays valid (disabled) until it releases it.
 */
void emgpu_rm_compute_channel_stop(struct uvmGpuChannel_tag *ch)
{
	lockdep_assert_held(&ch->tsg->vas->device->gpu->lock);
	chan_wr(ch->tsg->vas->device->gpu, ch->id, GA10X_REG_CHAN_CTRL, 0);
	ch->stopped = true;
}

void emgpu_rm_channel_get(struct uvmGpuChannel_tag *ch)
{
	lockdep_assert_held(&ch->tsg->vas->device->gpu->lock);
	kref_get(&ch->ref);
}

/*
 * The last reference: no launch may run in the channel and nvidia-uvm no
 * longer routes faults by its instance block, so the hardware channel,
 * the instance block and the user's charge go; so does its VA space if
 * the user freed it and nvidia-uvm destroyed every dup of it.
 */
static void compute_channel_release(struct kref *ref)
{
	struct uvmGpuChannel_tag *ch = container_of(ref, struct uvmGpuChannel_tag, ref);
	struct uvmGpuTsg_tag *t = ch->tsg;
	struct uvmGpuAddressSpace_tag *vas = t->vas;
	struct emgpu_rm_gpu *gpu = vas->device->gpu;
	struct emgpu_rm_account *account = ch->account;

	lockdep_assert_held(&gpu->lock);
	channel_free_locked(gpu, ch);
	kfree(t);
	gpu->user_channels--;
	emgpu_rm_account_uncharge(gpu, account);
	vas->user_channels--;
	emgpu_rm_user_vas_free_if_unused(vas);
}

void emgpu_rm_channel_put(struct uvmGpuChannel_tag *ch)
{
	lockdep_assert_held(&ch->tsg->vas->device->gpu->lock);
	kref_put(&ch->ref, compute_channel_release);
}

/* ---- user channels (UVM_REGISTER_CHANNEL) ---- */

/*
 * hClient and hChannel are a compute channel's handles of
 * /dev/emgpu-rm, in the user VA space @vaSpace (nvidia-uvm's dup of it),
 * from the process that made the client. What nvidia-uvm learns: the
 * instance block (sysmem) its faults are routed by, a graphics channel
 * in a TSG of one subcontext, VEID 0, no resources to map.
 */
NV_STATUS nvUvmInterfaceRetainChannel(uvmGpuAddressSpaceHandle vaSpace, NvHandle hClient,
				      NvHandle hChannel, void **retainedChannel,
				      UvmGpuChannelInstanceInfo *channelInstanceInfo)
{
	UvmGpuChannelInstanceInfo *info = channelInstanceInfo;
	struct emgpu_rm_object *client, *obj;
	struct uvmGpuAddressSpace_tag *vas;
	struct uvmGpuChannel_tag *ch;
	struct emgpu_rm_retained *r;
	struct emgpu_rm_gpu *gpu;

	if (!retainedChannel || !info)
		return NV_ERR_INVALID_ARGUMENT;
	vas = emgpu_rm_vas_get(vaSpace);
	if (!vas)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = vas->device->gpu;
	client = emgpu_rm_object_find(gpu, hClient, EMGPU_RM_OBJ_CLIENT);
	obj = emgpu_rm_object_find(gpu, hChannel, EMGPU_RM_OBJ_CHANNEL);
	ch = obj ? container_of(obj, struct uvmGpuChannel_tag, user) : NULL;
	if (!client || !ch || obj->client != client->client || ch->tsg->vas != vas ||
	    !emgpu_rm_client_is_callers(client->client)) {
		emgpu_rm_vas_put(vas);
		return NV_ERR_INVALID_OBJECT_HANDLE;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		emgpu_rm_vas_put(vas);
		return NV_ERR_NO_MEMORY;
	}
	r->channel = ch;
	emgpu_rm_channel_get(ch);
	list_add_tail(&r->node, &gpu->retained);

	memset(info, 0, sizeof(*info));
	info->base = emgpu_rm_alloc_base(ch->inst);
	info->sysmem = NV_TRUE;
	info->runlistId = ch->tsg->ce;
	info->chId = ch->id;
	/* not in a subcontext: faults carry VEID 0 and name this VA space */
	info->bInSubctx = NV_FALSE;
	info->subctxId = 0;
	info->bTsgChannel = NV_TRUE;
	info->tsgId = ch->tsg->id;
	info->tsgMaxSubctxCount = 1;
	info->resourceCount = 0;	/* no context buffers to map */
	info->channelEngineType = UVM_GPU_CHANNEL_ENGINE_TYPE_GR;
	info->clearFaultedToken = ch->id;
	emgpu_rm_vas_put(vas);
	*retainedChannel = r;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceRetainChannel);

NV_STATUS nvUvmInterfaceBindChannelResources(void *retainedChannel,
					     UvmGpuChannelResourceBindParams *channelResourceBindParams)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();
	struct emgpu_rm_retained *r;

	if (!gpu || !retainedChannel)
		return NV_ERR_INVALID_ARGUMENT;
	mutex_lock(&gpu->lock);
	r = retained_find_locked(gpu, retainedChannel);
	mutex_unlock(&gpu->lock);
	/* resourceCount is 0: nothing to bind */
	return r ? NV_OK : NV_ERR_INVALID_OBJECT_HANDLE;
}
EXPORT_SYMBOL(nvUvmInterfaceBindChannelResources);

void nvUvmInterfaceReleaseChannel(void *retainedChannel)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();
	struct emgpu_rm_retained *r;

	if (!gpu || !retainedChannel)
		return;
	mutex_lock(&gpu->lock);
	r = retained_find_locked(gpu, retainedChannel);
	if (r) {
		list_del(&r->node);
		/* the user may have freed it: then its hardware channel goes */
		emgpu_rm_channel_put(r->channel);
	}
	mutex_unlock(&gpu->lock);
	kfree(r);
}
EXPORT_SYMBOL(nvUvmInterfaceReleaseChannel);

void nvUvmInterfaceStopChannel(void *retainedChannel, NvBool bImmediate)
{
	struct emgpu_rm_gpu *gpu = emgpu_rm_current_gpu();
	struct emgpu_rm_retained *r;

	if (!gpu || !retainedChannel)
		return;
	mutex_lock(&gpu->lock);
	r = retained_find_locked(gpu, retainedChannel);
	/* disabled: the device fetches nothing more from it, and ends a
	 * launch running in it */
	if (r)
		emgpu_rm_compute_channel_stop(r->channel);
	mutex_unlock(&gpu->lock);
}
EXPORT_SYMBOL(nvUvmInterfaceStopChannel);
