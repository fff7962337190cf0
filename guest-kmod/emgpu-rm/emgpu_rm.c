// SPDX-License-Identifier: GPL-2.0
/*
 * emgpu-rm.ko: a resource-manager stand-in for NVIDIA's nvidia-uvm.
 *
 * nvidia-uvm reaches nvidia.ko (NVIDIA's resource manager, RM) only through
 * the nvUvmInterface* functions of nv_uvm_interface.h. This module exports
 * every one of them, compiled with the header, include paths and defines
 * of the branch's own export unit (guest-kmod/emgpu-rm/build.sh), so that the
 * modversions CRCs nvidia-uvm.ko was linked with match
 * (tests/nvidia-uvm/run-test.sh compares them with nvidia.ko's).
 *
 * It is also the PCI driver of emgpu in its GA10x and GH100 personalities
 * (EMGPU_PCI_VENDOR_ID:GA10X_PCI_DEVICE_ID, GH100_PCI_DEVICE_ID; the
 * device id says which, and the stand-in reports that GPU, an Ampere GA102
 * or a Hopper GH100, and writes that MMU's page tables): it maps BAR0 and BAR2, takes
 * the interrupt leaf's MSI-X vector and gives the GPU a UUID made from its
 * PCI address (sysfs gpu_uuid, gpu_uuid_raw), which RegisterGpu and
 * GetGpuInfo know; any other UUID is NV_ERR_GPU_UUID_NOT_FOUND, as the RM
 * answers for a GPU it does not have. Without such a device nvidia-uvm runs
 * its CPU-only paths as before.
 *
 * This file: module, callbacks, sessions, the PCI device and the GPU-wide
 * queries. emgpu_rm_mem.c: memory, address spaces, PMA; emgpu_rm_fifo.c:
 * TSGs, channels, fault and access-counter buffers. What is left
 * generated in emgpu_rm_unbacked.c (NV_ERR_NOT_SUPPORTED) is reachable only
 * with Confidential Computing, SR-IOV, peers or RM-duplicated memory
 * (docs/rm-standin.md names the gate of each).
 */
#include <linux/debugfs.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "emgpu_rm.h"

/*
 * The one RM instance: nvidia-uvm's interface has no handle for it
 * (RegisterUvmCallbacks takes only the ops), so, as in nvidia.ko, the
 * module keeps its state in one place. One emgpu at a time.
 */
static struct emgpu_rm {
	struct mutex lock;		/* protects everything below */
	struct UvmOpsUvmEvents *uvm_ops; /* nvidia-uvm's callbacks, or NULL */
	unsigned int sessions;		/* open RM sessions */
	struct emgpu_rm_gpu *gpu;	/* the probed device, or NULL */
	struct dentry *debugfs;		/* emgpu-rm/ (set at init, before any probe) */
} emgpu_rm = {
	.lock = __MUTEX_INITIALIZER(emgpu_rm.lock),
};

struct uvmGpuSession_tag {
	unsigned int id;
};

NV_STATUS emgpu_rm_unbacked(const char *function)
{
	pr_warn_once("emgpu-rm: %s is not backed by emgpu: NV_ERR_NOT_SUPPORTED\n",
		     function);
	return NV_ERR_NOT_SUPPORTED;
}

struct UvmOpsUvmEvents *emgpu_rm_uvm_ops(void)
{
	return READ_ONCE(emgpu_rm.uvm_ops);
}

/* The probed GPU, or NULL. Lives until the device goes (see remove). */
struct emgpu_rm_gpu *emgpu_rm_current_gpu(void)
{
	struct emgpu_rm_gpu *gpu;

	mutex_lock(&emgpu_rm.lock);
	gpu = emgpu_rm.gpu;
	mutex_unlock(&emgpu_rm.lock);
	return gpu;
}

/* The probed GPU if its UUID is @uuid. The device outlives every caller:
 * nvidia-uvm holds a reference on this module while it uses the GPU. */
struct emgpu_rm_gpu *emgpu_rm_gpu_by_uuid(const NvProcessorUuid *uuid)
{
	struct emgpu_rm_gpu *gpu;

	mutex_lock(&emgpu_rm.lock);
	gpu = emgpu_rm.gpu;
	if (gpu && memcmp(gpu->uuid.uuid, uuid->uuid, NV_UUID_LEN))
		gpu = NULL;
	mutex_unlock(&emgpu_rm.lock);
	return gpu;
}

/*
 * The MSI-X handler forwards to nvidia-uvm's top half once nvidia-uvm has
 * taken the fault interrupt (OwnPageFaultIntr) or set up access counters,
 * as the RM does; before that the leaf's bits are not enabled anyway.
 * Called with gpu->lock held; when forwarding stops, waits for a running
 * handler.
 */
void emgpu_rm_update_isr(struct emgpu_rm_gpu *gpu)
{
	bool forward = gpu->fault_owned || gpu->ac_buf;

	lockdep_assert_held(&gpu->lock);
	WRITE_ONCE(gpu->isr_forward, forward);
	if (!forward && gpu->irq >= 0)
		synchronize_irq(gpu->irq);
}

static irqreturn_t emgpu_rm_isr(int irq, void *data)
{
	struct emgpu_rm_gpu *gpu = data;
	struct UvmOpsUvmEvents *ops;

	if (!READ_ONCE(gpu->isr_forward))
		return IRQ_NONE;
	ops = emgpu_rm_uvm_ops();
	if (!ops || !ops->isrTopHalf)
		return IRQ_NONE;
	/* NV_ERR_NO_INTR_PENDING: nothing of nvidia-uvm's was pending */
	return ops->isrTopHalf(&gpu->uuid) == NV_OK ? IRQ_HANDLED : IRQ_NONE;
}

/*
 * A waiter's look at the leaf: nvidia-uvm's top half again, in interrupt
 * context as the MSI-X handler runs it, if a cause it enabled is pending.
 * The RM enters nvidia-uvm's top half on every interrupt of the GPU, so a
 * lost message is found at the next one; against a lockstep device that
 * waits for the lost one's service there is no next one, and the launch
 * wait (the stand-in's, where libcuda would spin on its semaphore) looks
 * instead.
 */
void emgpu_rm_isr_poll(struct emgpu_rm_gpu *gpu)
{
	unsigned long flags;

	if (!READ_ONCE(gpu->isr_forward) ||
	    !(emgpu_rm_rd(gpu, GA10X_REG_INTR_LEAF) & emgpu_rm_rd(gpu, GA10X_REG_INTR_EN)))
		return;
	local_irq_save(flags);
	emgpu_rm_isr(gpu->irq, gpu);
	local_irq_restore(flags);
}

NV_STATUS nvUvmInterfaceRegisterUvmCallbacks(struct UvmOpsUvmEvents *importedUvmOps)
{
	NV_STATUS status = NV_OK;

	if (!importedUvmOps)
		return NV_ERR_INVALID_ARGUMENT;

	mutex_lock(&emgpu_rm.lock);
	/* One client at a time, as the RM allows. */
	if (emgpu_rm.uvm_ops)
		status = NV_ERR_IN_USE;
	else
		WRITE_ONCE(emgpu_rm.uvm_ops, importedUvmOps);
	mutex_unlock(&emgpu_rm.lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceRegisterUvmCallbacks);

void nvUvmInterfaceDeRegisterUvmOps(void)
{
	mutex_lock(&emgpu_rm.lock);
	WRITE_ONCE(emgpu_rm.uvm_ops, NULL);
	/* no handler may still be inside nvidia-uvm's top half */
	if (emgpu_rm.gpu && emgpu_rm.gpu->irq >= 0)
		synchronize_irq(emgpu_rm.gpu->irq);
	mutex_unlock(&emgpu_rm.lock);
}
EXPORT_SYMBOL(nvUvmInterfaceDeRegisterUvmOps);

NV_STATUS nvUvmInterfaceSessionCreate(uvmGpuSessionHandle *session,
				      UvmPlatformInfo *platformInfo)
{
	struct uvmGpuSession_tag *s;

	if (!session || !platformInfo)
		return NV_ERR_INVALID_ARGUMENT;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NV_ERR_NO_MEMORY;

	/* A plain x86 guest: no ATS, no trusted execution. */
	memset(platformInfo, 0, sizeof(*platformInfo));
	platformInfo->atsSupported = NV_FALSE;
	platformInfo->confComputingEnabled = NV_FALSE;

	mutex_lock(&emgpu_rm.lock);
	s->id = ++emgpu_rm.sessions;
	mutex_unlock(&emgpu_rm.lock);
	*session = s;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceSessionCreate);

NV_STATUS nvUvmInterfaceSessionDestroy(uvmGpuSessionHandle session)
{
	if (!session)
		return NV_ERR_INVALID_ARGUMENT;

	mutex_lock(&emgpu_rm.lock);
	emgpu_rm.sessions--;
	mutex_unlock(&emgpu_rm.lock);
	kfree(session);
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceSessionDestroy);

NV_STATUS nvUvmInterfaceRegisterGpu(const NvProcessorUuid *gpuUuid,
				    UvmGpuPlatformInfo *gpuInfo)
{
	struct emgpu_rm_gpu *gpu;

	if (!gpuUuid || !gpuInfo)
		return NV_ERR_INVALID_ARGUMENT;

	gpu = emgpu_rm_gpu_by_uuid(gpuUuid);
	if (!gpu)
		return NV_ERR_GPU_UUID_NOT_FOUND;

	mutex_lock(&gpu->lock);
	gpu->registered++;
	mutex_unlock(&gpu->lock);
	gpuInfo->pci_dev = gpu->pdev;
	gpuInfo->dma_addressable_start = 0;
	gpuInfo->dma_addressable_limit = dma_get_mask(&gpu->pdev->dev);
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceRegisterGpu);

void nvUvmInterfaceUnregisterGpu(const NvProcessorUuid *gpuUuid)
{
	struct emgpu_rm_gpu *gpu;

	if (!gpuUuid)
		return;
	gpu = emgpu_rm_gpu_by_uuid(gpuUuid);
	if (!gpu)
		return;
	mutex_lock(&gpu->lock);
	if (gpu->registered)
		gpu->registered--;
	mutex_unlock(&gpu->lock);
}
EXPORT_SYMBOL(nvUvmInterfaceUnregisterGpu);

NV_STATUS nvUvmInterfaceGetGpuInfo(const NvProcessorUuid *gpuUuid,
				   const UvmGpuClientInfo *pGpuClientInfo,
				   UvmGpuInfo *pGpuInfo)
{
	struct emgpu_rm_gpu *gpu;
	u32 tpcs;

	if (!gpuUuid || !pGpuInfo)
		return NV_ERR_INVALID_ARGUMENT;
	gpu = emgpu_rm_gpu_by_uuid(gpuUuid);
	if (!gpu)
		return NV_ERR_GPU_UUID_NOT_FOUND;

	memset(pGpuInfo, 0, sizeof(*pGpuInfo));
	snprintf(pGpuInfo->name, sizeof(pGpuInfo->name), "%s", gpu->arch->name);
	pGpuInfo->uuid = gpu->uuid;
	pGpuInfo->gpuArch = gpu->arch->arch;
	pGpuInfo->gpuImplementation = gpu->arch->impl;
	pGpuInfo->hostClass = gpu->arch->host_class;
	pGpuInfo->ceClass = gpu->arch->ce_class;
	pGpuInfo->computeClass = gpu->arch->compute_class;
	pGpuInfo->gpuInTcc = NV_FALSE;
	pGpuInfo->subdeviceCount = 1;		/* gpu_supports_uvm() */
	pGpuInfo->virtMode = UVM_VIRT_MODE_NONE;
	pGpuInfo->isSimulated = NV_FALSE;	/* nvidia-uvm changes paths on simulators */
	/*
	 * two SMs a TPC, as on GA10x and GH100; nvidia-uvm counts 2 * TPCs + 1
	 * uTLBs a GPC on both (uvm_ampere/hopper_get_utlbs_per_gpc), at most
	 * 17 on Ampere and 19 on Hopper (GH100's 9 TPCs a GPC)
	 */
	tpcs = max(1u, gpu->num_sms / 2);
	pGpuInfo->gpcCount = gpu->num_gpcs;
	pGpuInfo->maxGpcCount = gpu->num_gpcs;
	pGpuInfo->tpcCount = tpcs;
	pGpuInfo->maxTpcPerGpcCount = DIV_ROUND_UP(tpcs, gpu->num_gpcs);
	pGpuInfo->smcEnabled = NV_FALSE;
	/* Confidential Computing off: the memset's zero in every branch's
	 * layout (mode UVM_GPU_CONF_COMPUTE_MODE_NONE; from 575 bConfComputingEnabled) */
#ifdef EMGPU_RM_AC_BUFFER_COUNT
	/* from 575 nvidia-uvm takes access counters as supported with a
	 * notification buffer: the one the device has */
	pGpuInfo->accessCntrBufferCount = 1;
#endif
	pGpuInfo->sysmemLink = UVM_LINK_TYPE_PCIE;
	pGpuInfo->sysmemLinkRateMBps = 16000;	/* PCIe 4 x16, what both report on PCIe */
	pGpuInfo->connectedToSwitch = NV_FALSE;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceGetGpuInfo);

NV_STATUS nvUvmInterfaceDeviceCreate(uvmGpuSessionHandle session,
				     const UvmGpuInfo *pGpuInfo,
				     const NvProcessorUuid *gpuUuid,
				     uvmGpuDeviceHandle *device,
				     NvBool bCreateSmcPartition)
{
	struct emgpu_rm_gpu *gpu;
	struct uvmGpuDevice_tag *d;

	if (!session || !gpuUuid || !device)
		return NV_ERR_INVALID_ARGUMENT;
	gpu = emgpu_rm_gpu_by_uuid(gpuUuid);
	if (!gpu)
		return NV_ERR_GPU_UUID_NOT_FOUND;
	/* GetGpuInfo reports smcEnabled false: nvidia-uvm never asks */
	if (bCreateSmcPartition)
		return NV_ERR_INVALID_ARGUMENT;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NV_ERR_NO_MEMORY;
	d->gpu = gpu;
	mutex_lock(&gpu->lock);
	list_add_tail(&d->node, &gpu->devices);
	mutex_unlock(&gpu->lock);
	*device = d;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceDeviceCreate);

void nvUvmInterfaceDeviceDestroy(uvmGpuDeviceHandle device)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);

	if (!d)
		return;
	mutex_lock(&d->gpu->lock);
	list_del(&d->node);
	mutex_unlock(&d->gpu->lock);
	kfree(d);
}
EXPORT_SYMBOL(nvUvmInterfaceDeviceDestroy);

NV_STATUS nvUvmInterfaceQueryCaps(uvmGpuDeviceHandle device, UvmGpuCaps *caps)
{
	if (!caps)
		return NV_ERR_INVALID_ARGUMENT;
	if (!emgpu_rm_device_find(device))
		return NV_ERR_INVALID_OBJECT_HANDLE;
	/* VRAM is not onlined as a NUMA node (no coherent link) */
	memset(caps, 0, sizeof(*caps));
	caps->numaEnabled = NV_FALSE;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceQueryCaps);

NV_STATUS nvUvmInterfaceQueryCopyEnginesCaps(uvmGpuDeviceHandle device,
					     UvmGpuCopyEnginesCaps *caps)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	unsigned int i;

	if (!caps)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	memset(caps, 0, sizeof(*caps));
	/* every CE asynchronous, sysmem- and P2P-capable (uvm_channel.c's
	 * ces_validate wants both flags), one PCE each */
	for (i = 0; i < d->gpu->num_ces && i < UVM_COPY_ENGINE_COUNT_MAX; i++) {
		UvmGpuCopyEngineCaps *ce = &caps->copyEngineCaps[i];

		ce->supported = NV_TRUE;
		ce->grce = NV_FALSE;
		ce->shared = NV_FALSE;
		ce->sysmemRead = NV_TRUE;
		ce->sysmemWrite = NV_TRUE;
		ce->sysmem = NV_TRUE;
		ce->nvlinkP2p = NV_FALSE;
		ce->p2p = NV_TRUE;
		ce->cePceMask = 1u << i;
	}
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceQueryCopyEnginesCaps);

NV_STATUS nvUvmInterfaceGetFbInfo(uvmGpuDeviceHandle device, UvmGpuFbInfo *fbInfo)
{
	struct uvmGpuDevice_tag *d = emgpu_rm_device_find(device);
	struct emgpu_rm_gpu *gpu;

	if (!fbInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!d)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	gpu = d->gpu;
	memset(fbInfo, 0, sizeof(*fbInfo));
	/* nvidia-uvm's VRAM size is heap + reserved: all of it; the PMA
	 * serves what lies above the RM heap */
	fbInfo->heapSize = (gpu->vram_size - gpu->heap_size) >> 10;
	fbInfo->reservedHeapSize = gpu->heap_size >> 10;
	fbInfo->maxAllocatableAddress = gpu->vram_size - 1;
	fbInfo->bZeroFb = NV_FALSE;
#if EMGPU_RM_BRANCH >= 550
	fbInfo->maxVidmemPageSize = UVM_PAGE_SIZE_2M;
#endif
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceGetFbInfo);

NV_STATUS nvUvmInterfaceGetEccInfo(uvmGpuDeviceHandle device, UvmGpuEccInfo *eccInfo)
{
	if (!eccInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!emgpu_rm_device_find(device))
		return NV_ERR_INVALID_OBJECT_HANDLE;
	/* no ECC: nvidia-uvm never polls an ECC notifier */
	memset(eccInfo, 0, sizeof(*eccInfo));
	eccInfo->bEccEnabled = NV_FALSE;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceGetEccInfo);

#ifdef EMGPU_RM_HAS_NVLINK_INFO
/* From 580 nvidia-uvm asks at registration; the emulated GPU has no NVLink */
NV_STATUS nvUvmInterfaceGetNvlinkInfo(uvmGpuDeviceHandle device, UvmGpuNvlinkInfo *nvlinkInfo)
{
	if (!nvlinkInfo)
		return NV_ERR_INVALID_ARGUMENT;
	if (!emgpu_rm_device_find(device))
		return NV_ERR_INVALID_OBJECT_HANDLE;
	memset(nvlinkInfo, 0, sizeof(*nvlinkInfo));
	nvlinkInfo->bNvlinkRecoveryEnabled = NV_FALSE;
	return NV_OK;
}
EXPORT_SYMBOL(nvUvmInterfaceGetNvlinkInfo);
#endif

/* ---- the PCI device ---- */

/*
 * The UUID: "EMGPU-RM" in bytes 0-7, the PCI domain (big-endian) in 8-9,
 * bus in 10, devfn in 11, vendor and device id (big-endian) in 12-15. Same
 * slot, same UUID, every boot.
 */
static void emgpu_rm_make_uuid(struct emgpu_rm_gpu *gpu)
{
	static const u8 prefix[8] = "EMGPU-RM";
	struct pci_dev *pdev = gpu->pdev;
	u8 *u = gpu->uuid.uuid;
	u16 domain = pci_domain_nr(pdev->bus);

	memcpy(u, prefix, sizeof(prefix));
	u[8] = domain >> 8;
	u[9] = domain & 0xff;
	u[10] = pdev->bus->number;
	u[11] = pdev->devfn;
	u[12] = pdev->vendor >> 8;
	u[13] = pdev->vendor & 0xff;
	u[14] = pdev->device >> 8;
	u[15] = pdev->device & 0xff;
	/* NVIDIA's text form (nvidia-smi -L, uvm's format_uuid_to_buffer) */
	snprintf(gpu->uuid_text, sizeof(gpu->uuid_text),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
		 u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

static ssize_t gpu_uuid_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emgpu_rm_gpu *gpu = pci_get_drvdata(to_pci_dev(dev));

	return sysfs_emit(buf, "%s\n", gpu->uuid_text);
}
static DEVICE_ATTR_RO(gpu_uuid);

static ssize_t gpu_uuid_raw_read(struct file *file, struct kobject *kobj,
				 struct bin_attribute *attr, char *buf,
				 loff_t off, size_t count)
{
	struct emgpu_rm_gpu *gpu = pci_get_drvdata(to_pci_dev(kobj_to_dev(kobj)));

	return memory_read_from_buffer(buf, count, &off, gpu->uuid.uuid, NV_UUID_LEN);
}
static BIN_ATTR_RO(gpu_uuid_raw, NV_UUID_LEN);

static struct attribute *emgpu_rm_attrs[] = {
	&dev_attr_gpu_uuid.attr,
	NULL,
};

static struct bin_attribute *emgpu_rm_bin_attrs[] = {
	&bin_attr_gpu_uuid_raw,
	NULL,
};

static const struct attribute_group emgpu_rm_group = {
	.attrs = emgpu_rm_attrs,
	.bin_attrs = emgpu_rm_bin_attrs,
};

/* ---- what the GPU's state holds: debugfs emgpu-rm/<PCI address>/objects ---- */

static unsigned long user_va_spaces(struct emgpu_rm_gpu *gpu)
{
	struct uvmGpuAddressSpace_tag *vas;
	unsigned long n = 0;

	lockdep_assert_held(&gpu->lock);
	list_for_each_entry(vas, &gpu->address_spaces, node)
		n += !!vas->user.handle;
	return n;
}

static unsigned long user_handles(struct emgpu_rm_gpu *gpu)
{
	struct emgpu_rm_object *obj;
	unsigned long n = 0;
	int id;

	lockdep_assert_held(&gpu->lock);
	idr_for_each_entry(&gpu->handles, obj, id)
		n++;
	return n;
}

static unsigned long pma_frames_used(struct emgpu_rm_gpu *gpu)
{
	unsigned long used;

	spin_lock(&gpu->pma.lock);
	used = gpu->pma.frames - gpu->pma.stats.numFreePages64k;
	spin_unlock(&gpu->pma.lock);
	return used;
}

/*
 * Every kind of object the GPU's state holds: its name, its count now
 * (under gpu->lock) and whether a GPU removed must hold none (an open
 * file's account lives until the file closes). A test that closed all it
 * opened finds every count as before it began (tests/fuzz-rm); remove
 * warns of any left.
 */
#define EMGPU_RM_OBJECT_COUNTS(X)							\
	X(registered,		gpu->registered,				true)	\
	X(devices,		list_count_nodes(&gpu->devices),		true)	\
	X(address_spaces,	list_count_nodes(&gpu->address_spaces),		true)	\
	X(user_va_spaces,	user_va_spaces(gpu),				true)	\
	X(tsgs,			list_count_nodes(&gpu->tsgs),			true)	\
	X(channels,		list_count_nodes(&gpu->channels),		true)	\
	X(hw_channels,		bitmap_weight(gpu->channel_used, GA10X_CHANNELS), true)	\
	X(user_channels,	gpu->user_channels,				true)	\
	X(retained,		list_count_nodes(&gpu->retained),		true)	\
	X(launch_channel,	!!gpu->launch_channel,				true)	\
	X(heap_pages,		emgpu_rm_heap_pages_used(gpu),			true)	\
	X(pma_frames,		pma_frames_used(gpu),				true)	\
	X(fault_buffer,		!!gpu->fault_buf,				true)	\
	X(ac_buffer,		!!gpu->ac_buf,					true)	\
	X(handles,		user_handles(gpu),				true)	\
	X(clients,		list_count_nodes(&gpu->clients),		true)	\
	X(accounts,		list_count_nodes(&gpu->accounts),		false)

static int objects_show(struct seq_file *m, void *unused)
{
	struct emgpu_rm_gpu *gpu = m->private;

	mutex_lock(&gpu->lock);
#define EMGPU_RM_OBJECT_SHOW(name, count, none_at_remove) \
	seq_printf(m, "%s %lu\n", #name, (unsigned long)(count));
	EMGPU_RM_OBJECT_COUNTS(EMGPU_RM_OBJECT_SHOW)
#undef EMGPU_RM_OBJECT_SHOW
	mutex_unlock(&gpu->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(objects);

/*
 * debugfs emgpu-rm/<PCI address>/channels: every channel, nvidia-uvm's
 * and the users', "HW HANDLE REFS RETAINS" a line (handle 0 and no
 * references for nvidia-uvm's own), the launch's marked.
 */
static int channels_show(struct seq_file *m, void *unused)
{
	struct emgpu_rm_gpu *gpu = m->private;
	struct uvmGpuChannel_tag *ch;
	struct emgpu_rm_retained *r;

	mutex_lock(&gpu->lock);
	{
		struct emgpu_rm_account *a;

		list_for_each_entry(a, &gpu->accounts, node)
			seq_printf(m, "uid %u: %u channels, %u refs\n",
				   from_kuid(&init_user_ns, a->uid), a->channels, a->refs);
	}
	list_for_each_entry(ch, &gpu->channels, node) {
		unsigned int retains = 0;

		list_for_each_entry(r, &gpu->retained, node)
			retains += r->channel == ch;
		seq_printf(m, "%u 0x%x %u %u%s\n", ch->id, ch->user.handle,
			   ch->account ? kref_read(&ch->ref) : 0, retains,
			   gpu->launch_channel == ch ? " launch" : "");
	}
	mutex_unlock(&gpu->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(channels);

/* The device went and nvidia-uvm with it: what is still held leaked. */
static void objects_left_warn(struct emgpu_rm_gpu *gpu)
{
	bool left = false;

	mutex_lock(&gpu->lock);
#define EMGPU_RM_OBJECT_LEFT(name, count, none_at_remove)			\
	if ((none_at_remove) && (count)) {					\
		dev_err(&gpu->pdev->dev, "removed with %lu " #name " left\n",	\
			(unsigned long)(count));				\
		left = true;							\
	}
	EMGPU_RM_OBJECT_COUNTS(EMGPU_RM_OBJECT_LEFT)
#undef EMGPU_RM_OBJECT_LEFT
	mutex_unlock(&gpu->lock);
	WARN_ON(left);
}

static void emgpu_rm_gpu_release(struct kref *kref)
{
	struct emgpu_rm_gpu *gpu = container_of(kref, struct emgpu_rm_gpu, kref);

	idr_destroy(&gpu->handles);
	kfree(gpu);
}

/*
 * Drops a reference: probe holds one until remove, each open file of
 * /dev/emgpu-rm one until release (after remove it sees gpu->removed).
 */
void emgpu_rm_gpu_put(struct emgpu_rm_gpu *gpu)
{
	kref_put(&gpu->kref, emgpu_rm_gpu_release);
}

static int emgpu_rm_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct emgpu_rm_gpu *gpu;
	int ret;

	gpu = kzalloc(sizeof(*gpu), GFP_KERNEL);
	if (!gpu)
		return -ENOMEM;
	gpu->arch = (const struct emgpu_rm_arch *)id->driver_data;
	kref_init(&gpu->kref);
	idr_init(&gpu->handles);
	INIT_LIST_HEAD(&gpu->clients);
	INIT_LIST_HEAD(&gpu->accounts);
	mutex_init(&gpu->launch_lock);
	init_waitqueue_head(&gpu->launch_wq);
	gpu->launch_irq = -1;
	gpu->user_device.gpu = gpu;
	INIT_LIST_HEAD(&gpu->user_device.node);
	gpu->pdev = pdev;
	gpu->irq = -1;
	mutex_init(&gpu->lock);
	INIT_LIST_HEAD(&gpu->devices);
	INIT_LIST_HEAD(&gpu->address_spaces);
	INIT_LIST_HEAD(&gpu->tsgs);
	INIT_LIST_HEAD(&gpu->channels);
	INIT_LIST_HEAD(&gpu->retained);
	spin_lock_init(&gpu->pma.lock);

	ret = pcim_enable_device(pdev);
	if (ret)
		goto err_put;
	if (pci_resource_len(pdev, 0) < GA10X_REGS_SIZE ||
	    !(pci_resource_flags(pdev, GA10X_BAR_VRAM) & IORESOURCE_MEM)) {
		dev_err(&pdev->dev, "BAR0 or BAR2 is not the GA10x register block's\n");
		ret = -ENODEV;
		goto err_put;
	}
	ret = pcim_iomap_regions(pdev, BIT(0) | BIT(GA10X_BAR_VRAM), "emgpu-rm");
	if (ret)
		goto err_put;
	gpu->bar0 = pcim_iomap_table(pdev)[0];
	gpu->bar2 = pcim_iomap_table(pdev)[GA10X_BAR_VRAM];
	/*
	 * A clean device, as the RM initialises the GPU at load: nothing a
	 * previous driver left (a launch, a fault or notification round
	 * waiting for a hand-back from an nvidia-uvm since unloaded) may
	 * hold this one's work. Before bus mastering: no DMA in flight.
	 */
	emgpu_rm_wr(gpu, EMGPU_REG_RESET, EMGPU_RESET_MAGIC);
	pci_set_master(pdev);
	/* Ampere addresses 47 bits of system memory */
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(47));
	if (ret)
		goto err_put;

	gpu->vram_size = ((u64)emgpu_rm_rd(gpu, EMGPU_REG_VRAM_SIZE_HI) << 32) |
			 emgpu_rm_rd(gpu, EMGPU_REG_VRAM_SIZE_LO);
	gpu->bar2_size = min_t(u64, pci_resource_len(pdev, GA10X_BAR_VRAM), gpu->vram_size);
	gpu->num_gpcs = emgpu_rm_rd(gpu, EMGPU_REG_NUM_GPCS);
	gpu->num_sms = emgpu_rm_rd(gpu, EMGPU_REG_NUM_SMS);
	gpu->warps_per_sm = emgpu_rm_rd(gpu, EMGPU_REG_WARPS_PER_SM);
	gpu->num_ces = emgpu_rm_rd(gpu, EMGPU_REG_NUM_COPY_ENGINES);
	if (gpu->vram_size < (8ull << 20) || !gpu->num_gpcs || !gpu->num_ces) {
		dev_err(&pdev->dev, "implausible device: VRAM %llu, %u GPCs, %u CEs\n",
			gpu->vram_size, gpu->num_gpcs, gpu->num_ces);
		ret = -ENODEV;
		goto err_put;
	}
	emgpu_rm_make_uuid(gpu);

	ret = emgpu_rm_mem_init(gpu);
	if (ret)
		goto err_put;

	ret = pci_alloc_irq_vectors(pdev, GA10X_MSIX_VECTORS, GA10X_MSIX_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0)
		goto err_mem;
	gpu->irq = pci_irq_vector(pdev, GA10X_MSIX_VECTOR);
	ret = request_irq(gpu->irq, emgpu_rm_isr, 0, "emgpu-rm", gpu);
	if (ret) {
		gpu->irq = -1;
		goto err_vectors;
	}
	pci_set_drvdata(pdev, gpu);
	ret = sysfs_create_group(&pdev->dev.kobj, &emgpu_rm_group);
	if (ret)
		goto err_irq;

	mutex_lock(&emgpu_rm.lock);
	if (emgpu_rm.gpu)
		ret = -EBUSY;	/* one emgpu at a time */
	else
		emgpu_rm.gpu = gpu;
	mutex_unlock(&emgpu_rm.lock);
	if (ret)
		goto err_group;
	ret = emgpu_rm_user_probe(gpu);
	if (ret) {
		mutex_lock(&emgpu_rm.lock);
		emgpu_rm.gpu = NULL;
		mutex_unlock(&emgpu_rm.lock);
		goto err_group;
	}

	gpu->debugfs = debugfs_create_dir(pci_name(pdev), emgpu_rm.debugfs);
	debugfs_create_file("objects", 0444, gpu->debugfs, gpu, &objects_fops);
	debugfs_create_file("channels", 0444, gpu->debugfs, gpu, &channels_fops);

	dev_info(&pdev->dev, "%s: %s, %llu MiB VRAM (%llu MiB RM heap), BAR2 %llu MiB, %u GPCs, %u SMs, %u CEs\n",
		 gpu->uuid_text, gpu->arch->name, gpu->vram_size >> 20, gpu->heap_size >> 20,
		 gpu->bar2_size >> 20, gpu->num_gpcs, gpu->num_sms, gpu->num_ces);
	return 0;

err_group:
	sysfs_remove_group(&pdev->dev.kobj, &emgpu_rm_group);
err_irq:
	free_irq(gpu->irq, gpu);
err_vectors:
	pci_free_irq_vectors(pdev);
err_mem:
	emgpu_rm_mem_fini(gpu);
err_put:
	emgpu_rm_gpu_put(gpu);
	return ret;
}

static void emgpu_rm_remove(struct pci_dev *pdev)
{
	struct emgpu_rm_gpu *gpu = pci_get_drvdata(pdev);

	debugfs_remove_recursive(gpu->debugfs);
	/* no new opens; open files' objects freed, their ioctls ENODEV */
	emgpu_rm_user_remove(gpu);
	/* nvidia-uvm holds this module while it uses the GPU: by now every
	 * object it made is gone */
	mutex_lock(&emgpu_rm.lock);
	emgpu_rm.gpu = NULL;
	mutex_unlock(&emgpu_rm.lock);
	objects_left_warn(gpu);
	sysfs_remove_group(&pdev->dev.kobj, &emgpu_rm_group);
	free_irq(gpu->irq, gpu);
	pci_free_irq_vectors(pdev);
	emgpu_rm_mem_fini(gpu);
	emgpu_rm_gpu_put(gpu);
}

/*
 * The GPUs the stand-in reports, one a personality of emgpu. Both run on
 * the GA10x register block; nvidia-uvm's HAL follows gpuArch and the
 * classes (uvm_hal.c). What Hopper's HAL asks of the RM beyond Ampere's:
 * its classes, and page tables in VER3 (a root of 2 PDE4 entries in
 * SetPageDirectory, the RM's range one whole PDE4 entry, 64 PB); its big
 * page size (64K), subcontexts (64) and fault and access-counter buffers
 * are Ampere's.
 */
static const struct emgpu_rm_arch emgpu_rm_ga10x = {
	/* GA100 selects the Ampere HAL; GA102 (not GA100/GA000) leaves
	 * map_remap_larger_page_promotion off */
	.name = "emgpu GA10x",
	.arch = EMGPU_RM_ARCH_GA100,
	.impl = EMGPU_RM_IMPL_GA102,
	.host_class = EMGPU_RM_CLASS_AMPERE_CHANNEL_GPFIFO_A,
	.ce_class = EMGPU_RM_CLASS_AMPERE_DMA_COPY_B,
	.compute_class = EMGPU_RM_CLASS_AMPERE_COMPUTE_B,
	.mmu = &emgpu_rm_mmu_ver2,
	.rm_va_end = 1ull << 40,
};

static const struct emgpu_rm_arch emgpu_rm_gh100 = {
	.name = "emgpu GH100",
	.arch = EMGPU_RM_ARCH_GH100,
	.impl = EMGPU_RM_IMPL_GH100,
	.host_class = EMGPU_RM_CLASS_HOPPER_CHANNEL_GPFIFO_A,
	.ce_class = EMGPU_RM_CLASS_HOPPER_DMA_COPY_A,
	.compute_class = EMGPU_RM_CLASS_HOPPER_COMPUTE_A,
	.mmu = &emgpu_rm_mmu_ver3,
	.rm_va_end = 1ull << GH100_PDE4_SHIFT,
};

static const struct pci_device_id emgpu_rm_ids[] = {
	{ PCI_DEVICE(EMGPU_PCI_VENDOR_ID, GA10X_PCI_DEVICE_ID),
	  .driver_data = (kernel_ulong_t)&emgpu_rm_ga10x },
	{ PCI_DEVICE(EMGPU_PCI_VENDOR_ID, GH100_PCI_DEVICE_ID),
	  .driver_data = (kernel_ulong_t)&emgpu_rm_gh100 },
	{ }
};
MODULE_DEVICE_TABLE(pci, emgpu_rm_ids);

static struct pci_driver emgpu_rm_driver = {
	.name = "emgpu-rm",
	.id_table = emgpu_rm_ids,
	.probe = emgpu_rm_probe,
	.remove = emgpu_rm_remove,
};

static int __init emgpu_rm_init(void)
{
	int ret;

	emgpu_rm.debugfs = debugfs_create_dir("emgpu-rm", NULL);
	ret = pci_register_driver(&emgpu_rm_driver);
	if (ret)
		debugfs_remove_recursive(emgpu_rm.debugfs);
	return ret;
}
module_init(emgpu_rm_init);

static void __exit emgpu_rm_exit(void)
{
	pci_unregister_driver(&emgpu_rm_driver);
	debugfs_remove_recursive(emgpu_rm.debugfs);
	/* nvidia-uvm holds a reference on this module while it is loaded. */
	WARN_ON(emgpu_rm.uvm_ops || emgpu_rm.sessions);
}
module_exit(emgpu_rm_exit);

MODULE_DESCRIPTION("Resource-manager stand-in for nvidia-uvm on the emulated GPU (emgpu)");
MODULE_LICENSE("GPL");
