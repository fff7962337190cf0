// SPDX-License-Identifier: GPL-2.0
/*
 * emgpu-rm.ko: a resource-manager stand-in for NVIDIA's nvidia-uvm.
 *
 * nvidia-uvm reaches nvidia.ko (NVIDIA's resource manager, RM) only through
 * the nvUvmInterface* functions of nv_uvm_interface.h. This module exports
 * every one of them, compiled with the header, include paths and defines
 * of the branch's own export unit (rm-standin/build.sh), so that the
 * modversions CRCs nvidia-uvm.ko was linked with match
 * (tests/nvidia-uvm/run-test.sh compares them with nvidia.ko's).
 *
 * What is backed so far: the callback registration nvidia-uvm performs at
 * load and the RM session it opens, with a platform that has neither ATS
 * nor Confidential Computing. No GPU is registered yet: RegisterGpu answers
 * NV_ERR_GPU_UUID_NOT_FOUND for every UUID, exactly as the RM does for a UUID
 * it does not know, so nvidia-uvm runs with its CPU-only paths. Every other
 * function is generated from the header (emgpu_rm_unbacked.c) and answers
 * NV_ERR_NOT_SUPPORTED with a warning naming it; none is reachable without
 * a registered GPU (docs/rm-standin.md says which are backed).
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "emgpu_rm.h"

/*
 * The one RM instance: nvidia-uvm's interface has no handle for it
 * (RegisterUvmCallbacks takes only the ops), so, as in nvidia.ko, the
 * module keeps its state in one place.
 */
static struct emgpu_rm {
	struct mutex lock;		/* protects everything below */
	struct UvmOpsUvmEvents *uvm_ops; /* nvidia-uvm's callbacks, or NULL */
	unsigned int sessions;		/* open RM sessions */
} emgpu_rm = {
	.lock = __MUTEX_INITIALIZER(emgpu_rm.lock),
};

struct uvmGpuSession_tag {
	unsigned int id;
};

NV_STATUS emgpu_rm_unbacked(const char *function)
{
	pr_warn_once("emgpu-rm: %s is not backed by emgpu yet: NV_ERR_NOT_SUPPORTED\n",
		     function);
	return NV_ERR_NOT_SUPPORTED;
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
		emgpu_rm.uvm_ops = importedUvmOps;
	mutex_unlock(&emgpu_rm.lock);
	return status;
}
EXPORT_SYMBOL(nvUvmInterfaceRegisterUvmCallbacks);

void nvUvmInterfaceDeRegisterUvmOps(void)
{
	mutex_lock(&emgpu_rm.lock);
	emgpu_rm.uvm_ops = NULL;
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
	if (!gpuUuid || !gpuInfo)
		return NV_ERR_INVALID_ARGUMENT;

	/* No emulated GPU is registered with the stand-in yet. */
	return NV_ERR_GPU_UUID_NOT_FOUND;
}
EXPORT_SYMBOL(nvUvmInterfaceRegisterGpu);

void nvUvmInterfaceUnregisterGpu(const NvProcessorUuid *gpuUuid)
{
	/* Nothing was registered (RegisterGpu refuses every UUID). */
}
EXPORT_SYMBOL(nvUvmInterfaceUnregisterGpu);

static void __exit emgpu_rm_exit(void)
{
	/* nvidia-uvm holds a reference on this module while it is loaded. */
	WARN_ON(emgpu_rm.uvm_ops || emgpu_rm.sessions);
}
module_exit(emgpu_rm_exit);

MODULE_DESCRIPTION("Resource-manager stand-in for nvidia-uvm on the emulated GPU (emgpu)");
MODULE_LICENSE("GPL");
