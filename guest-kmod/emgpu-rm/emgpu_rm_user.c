// SPDX-License-Identifier: GPL-2.0
/*
 * emgpu-rm.ko: /dev/emgpu-rm, the stand-in's user interface
 * (include/uapi/emgpu_rm.h): what libcuda gets from nvidia.ko's RM. Each
 * open file is one RM client; it makes VA spaces (RM address spaces that
 * nvidia-uvm dups at UVM_REGISTER_GPU_VASPACE and sets its page directory
 * on) and compute channels in them (nvidia-uvm retains them at
 * UVM_REGISTER_CHANNEL and routes their faults by instance pointer), and
 * launches the model's kernels on a channel, waiting for each.
 *
 * Every handle is the open file's: another file's, a freed one or one of
 * the wrong type is ENOENT. What one open and one user may make is bounded
 * by module parameters (max_va_spaces_per_open, max_channels_per_open,
 * max_channels_per_user: EDQUOT past them), and so are the compute
 * channels of all users together (max_user_channels) and the device's
 * hardware channels, shared with nvidia-uvm's (ENOSPC past either).
 * docs/rm-standin.md lists every errno. Locking: emgpu_rm.h.
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/cred.h>
#include <linux/uaccess.h>

#include "emgpu_rm.h"
#include "uapi/emgpu_rm.h"

/* ---- limits of one open file, one user and all users ---- */

static int param_set_range(const char *val, const struct kernel_param *kp,
			   unsigned int min, unsigned int max)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < min || v > max)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

#define EMGPU_RM_RANGE_PARAM(name, min, max, desc)				\
	static int set_##name(const char *val, const struct kernel_param *kp)	\
	{									\
		return param_set_range(val, kp, min, max);			\
	}									\
	static const struct kernel_param_ops ops_##name = {			\
		.set = set_##name,						\
		.get = param_get_uint,						\
	};									\
	module_param_cb(name, &ops_##name, &name, 0644);			\
	MODULE_PARM_DESC(name, desc)

static unsigned int max_va_spaces_per_open = 8;
EMGPU_RM_RANGE_PARAM(max_va_spaces_per_open, 1, 64,
		     "VA spaces one open of /dev/emgpu-rm may hold; past it EMGPU_RM_VA_SPACE_CREATE fails with EDQUOT (1..64, default 8)");

static unsigned int max_channels_per_open = 8;
EMGPU_RM_RANGE_PARAM(max_channels_per_open, 1, GA10X_CHANNELS,
		     "Compute channels one open of /dev/emgpu-rm may hold; past it EMGPU_RM_CHANNEL_CREATE fails with EDQUOT (1..64, default 8)");

/*
 * A channel counts against its user and the total from its creation until
 * its hardware channel is free again: after the user freed it, while a
 * launch may still run in it or nvidia-uvm still retains it.
 */
static unsigned int max_channels_per_user = 16;
EMGPU_RM_RANGE_PARAM(max_channels_per_user, 1, GA10X_CHANNELS,
		     "Compute channels one user (effective uid of the opener) of /dev/emgpu-rm may hold over all its opens; past it EMGPU_RM_CHANNEL_CREATE fails with EDQUOT (1..64, default 16)");

static unsigned int max_user_channels = 32;
EMGPU_RM_RANGE_PARAM(max_user_channels, 1, GA10X_CHANNELS,
		     "Compute channels all users of /dev/emgpu-rm may hold together, the rest of the 64 hardware channels left to nvidia-uvm; past it EMGPU_RM_CHANNEL_CREATE fails with ENOSPC (1..64, default 32)");

#define EMGPU_RM_LAUNCH_TIMEOUT_MS	60000	/* timeout_ms 0 */
#define EMGPU_RM_LAUNCH_POLL_MS		10	/* a lost interrupt, the launch's or nvidia-uvm's, costs this */

/* One open file: an RM client. */
struct emgpu_rm_client {
	struct emgpu_rm_object obj;	/* EMGPU_RM_OBJ_CLIENT, client = itself */
	struct emgpu_rm_gpu *gpu;	/* holds a reference */
	struct pid *owner;		/* the opener's thread group */
	struct emgpu_rm_account *account;	/* the opener's effective uid's */
	struct list_head node;		/* in gpu->clients */
	unsigned int va_spaces, channels;
};

/* ---- handles ---- */

struct emgpu_rm_object *emgpu_rm_object_find(struct emgpu_rm_gpu *gpu, u32 handle,
					     enum emgpu_rm_object_type type)
{
	struct emgpu_rm_object *obj;

	lockdep_assert_held(&gpu->lock);
	if (handle < EMGPU_RM_HANDLE_BASE || handle - EMGPU_RM_HANDLE_BASE >= EMGPU_RM_HANDLE_IDS)
		return NULL;
	obj = idr_find(&gpu->handles, handle - EMGPU_RM_HANDLE_BASE);
	return obj && obj->type == type ? obj : NULL;
}

/*
 * Whether the caller may use @client's handles: the RM accepts a client's
 * handles from the process that made it; nvidia-uvm calls DupAddressSpace
 * and RetainChannel in the registering process's ioctl.
 */
bool emgpu_rm_client_is_callers(const struct emgpu_rm_client *client)
{
	return client && client->owner == task_tgid(current);
}

static int handle_alloc(struct emgpu_rm_gpu *gpu, struct emgpu_rm_object *obj,
			enum emgpu_rm_object_type type, struct emgpu_rm_client *client)
{
	int id;

	lockdep_assert_held(&gpu->lock);
	id = idr_alloc_cyclic(&gpu->handles, obj, 1, EMGPU_RM_HANDLE_IDS, GFP_KERNEL);
	if (id < 0)
		return id;
	obj->handle = EMGPU_RM_HANDLE_BASE + id;
	obj->type = type;
	obj->client = client;
	return 0;
}

static void handle_free(struct emgpu_rm_gpu *gpu, struct emgpu_rm_object *obj)
{
	lockdep_assert_held(&gpu->lock);
	idr_remove(&gpu->handles, obj->handle - EMGPU_RM_HANDLE_BASE);
	obj->client = NULL;
}

/* @client's object @handle of @type, named with its client handle. */
static struct emgpu_rm_object *user_find(struct emgpu_rm_client *client, u32 h_client,
					 u32 handle, enum emgpu_rm_object_type type)
{
	struct emgpu_rm_object *obj;

	if (h_client != client->obj.handle)
		return NULL;
	obj = emgpu_rm_object_find(client->gpu, handle, type);
	return obj && obj->client == client ? obj : NULL;
}

static struct uvmGpuAddressSpace_tag *user_vas(struct emgpu_rm_client *client, u32 h_client,
					       u32 h_va_space)
{
	struct emgpu_rm_object *obj = user_find(client, h_client, h_va_space,
						EMGPU_RM_OBJ_VA_SPACE);

	return obj ? container_of(obj, struct uvmGpuAddressSpace_tag, user) : NULL;
}

static struct uvmGpuChannel_tag *user_channel(struct emgpu_rm_client *client, u32 h_client,
					      u32 h_channel)
{
	struct emgpu_rm_object *obj = user_find(client, h_client, h_channel,
						EMGPU_RM_OBJ_CHANNEL);

	return obj ? container_of(obj, struct uvmGpuChannel_tag, user) : NULL;
}

/* ---- users ---- */

/*
 * @uid's account, made of *@spare (then NULL) if it has none yet, with a
 * reference. LOCKING: gpu->lock.
 */
static struct emgpu_rm_account *account_get(struct emgpu_rm_gpu *gpu, kuid_t uid,
					    struct emgpu_rm_account **spare)
{
	struct emgpu_rm_account *a;

	lockdep_assert_held(&gpu->lock);
	list_for_each_entry(a, &gpu->accounts, node)
		if (uid_eq(a->uid, uid))
			goto found;
	a = *spare;
	*spare = NULL;
	a->uid = uid;
	list_add_tail(&a->node, &gpu->accounts);
found:
	a->refs++;
	return a;
}

static void account_put(struct emgpu_rm_gpu *gpu, struct emgpu_rm_account *a)
{
	lockdep_assert_held(&gpu->lock);
	if (--a->refs)
		return;
	WARN_ON(a->channels);
	list_del(&a->node);
	kfree(a);
}

/* A compute channel's hardware channel is free: its user's charge goes. */
void emgpu_rm_account_uncharge(struct emgpu_rm_gpu *gpu, struct emgpu_rm_account *account)
{
	lockdep_assert_held(&gpu->lock);
	account->channels--;
	account_put(gpu, account);
}

/* ---- objects ---- */

/*
 * Whether a launch may still run: the device's LAUNCH_STATUS, nothing
 * once the device is gone. A launch that ended gives its channel's
 * reference back (the channel is freed there if nothing else holds it).
 * LOCKING: gpu->lock.
 */
static bool launch_running(struct emgpu_rm_gpu *gpu)
{
	lockdep_assert_held(&gpu->lock);
	if (!gpu->removed && emgpu_rm_rd(gpu, EMGPU_REG_LAUNCH_STATUS) == EMGPU_LAUNCH_RUNNING)
		return true;
	if (gpu->launch_channel) {
		emgpu_rm_channel_put(gpu->launch_channel);
		gpu->launch_channel = NULL;
	}
	return false;
}

/*
 * The user's handle of @ch goes (FREE, release, remove): the channel is
 * stopped, which ends a launch running in it, and lives on only while
 * that launch (on a device that still reports it running) or nvidia-uvm's
 * retains hold it; until then its hardware channel is not handed out
 * again.
 */
static void channel_free(struct emgpu_rm_client *client, struct uvmGpuChannel_tag *ch)
{
	struct emgpu_rm_gpu *gpu = client->gpu;

	lockdep_assert_held(&gpu->lock);
	handle_free(gpu, &ch->user);
	client->channels--;
	emgpu_rm_compute_channel_stop(ch);
	if (launch_running(gpu) && gpu->launch_channel == ch)
		dev_warn(&gpu->pdev->dev,
			 "channel %u freed while its launch still runs: held until it ends\n",
			 ch->id);
	emgpu_rm_channel_put(ch);
}

/* The user's reference; nvidia-uvm's dups keep it until their destroy. */
static void va_space_free(struct emgpu_rm_client *client, struct uvmGpuAddressSpace_tag *vas)
{
	lockdep_assert_held(&client->gpu->lock);
	handle_free(client->gpu, &vas->user);
	client->va_spaces--;
	emgpu_rm_user_vas_free_if_unused(vas);
}

/* Whether @client still has a channel handle in @vas. */
static bool vas_has_channels(struct emgpu_rm_client *client, struct uvmGpuAddressSpace_tag *vas)
{
	struct emgpu_rm_object *obj;
	int id;

	lockdep_assert_held(&client->gpu->lock);
	idr_for_each_entry(&client->gpu->handles, obj, id)
		if (obj->client == client && obj->type == EMGPU_RM_OBJ_CHANNEL &&
		    container_of(obj, struct uvmGpuChannel_tag, user)->tsg->vas == vas)
			return true;
	return false;
}

/* Every object of @client, channels first. LOCKING: gpu->lock. */
static void client_free_objects(struct emgpu_rm_client *client)
{
	struct emgpu_rm_gpu *gpu = client->gpu;
	struct emgpu_rm_object *obj;
	int id;

	lockdep_assert_held(&gpu->lock);
	idr_for_each_entry(&gpu->handles, obj, id)
		if (obj->client == client && obj->type == EMGPU_RM_OBJ_CHANNEL)
			channel_free(client, container_of(obj, struct uvmGpuChannel_tag, user));
	idr_for_each_entry(&gpu->handles, obj, id)
		if (obj->client == client && obj->type == EMGPU_RM_OBJ_VA_SPACE)
			va_space_free(client, container_of(obj, struct uvmGpuAddressSpace_tag,
							   user));
	if (client->obj.client)
		handle_free(gpu, &client->obj);
	list_del_init(&client->node);
}

/* ---- ioctls ---- */

static long ioctl_gpu_info(struct emgpu_rm_client *client, void __user *arg)
{
	struct emgpu_rm_gpu *gpu = client->gpu;
	struct emgpu_rm_gpu_info info = { 0 };

	u32 hi, lo;

	lockdep_assert_held(&gpu->lock);
	memcpy(info.uuid, gpu->uuid.uuid, sizeof(info.uuid));
	info.vram_bytes = gpu->vram_size;
	/* what a launch's warps run on: a replay sizes its launches by it */
	info.num_sms = gpu->num_sms;
	info.warps_per_sm = gpu->warps_per_sm;
	/*
	 * The device clock, for user space that times its own calls (a
	 * prefetch): BAR0 cannot be mapped from user space while this driver
	 * holds it (IO_STRICT_DEVMEM). NVIDIA's order: TIME_1, TIME_0, TIME_1
	 * again until it held.
	 */
	do {
		hi = emgpu_rm_rd(gpu, GA10X_REG_PTIMER_TIME_1);
		lo = emgpu_rm_rd(gpu, GA10X_REG_PTIMER_TIME_0);
	} while (emgpu_rm_rd(gpu, GA10X_REG_PTIMER_TIME_1) != hi);
	info.ptimer_ns = (u64)hi << 32 | lo;
	/*
	 * What libcuda's cuMemGetInfo() reports on a card: the FB RM has not
	 * handed out, here the PMA's free frames (nvidia-uvm's chunks, and
	 * the RM heap below the PMA, are not free).
	 */
	spin_lock(&gpu->pma.lock);
	info.vram_free_bytes = (u64)gpu->pma.stats.numFreePages64k * EMGPU_PMA_FRAME;
	spin_unlock(&gpu->pma.lock);
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long ioctl_va_space_create(struct emgpu_rm_client *client, void __user *arg)
{
	struct emgpu_rm_gpu *gpu = client->gpu;
	struct emgpu_rm_va_space out = { 0 };
	struct uvmGpuAddressSpace_tag *vas;
	NV_STATUS status;
	int ret;

	lockdep_assert_held(&gpu->lock);
	if (client->va_spaces >= READ_ONCE(max_va_spaces_per_open))
		return -EDQUOT;
	status = emgpu_rm_vas_create(&gpu->user_device, 0, gpu->arch->rm_va_end, &vas, NULL);
	if (status != NV_OK)
		return -ENOMEM;
	ret = handle_alloc(gpu, &vas->user, EMGPU_RM_OBJ_VA_SPACE, client);
	if (ret) {
		emgpu_rm_vas_free_locked(vas);
		return ret;
	}
	client->va_spaces++;
	out.h_client = client->obj.handle;
	out.h_va_space = vas->user.handle;
	if (copy_to_user(arg, &out, sizeof(out))) {
		va_space_free(client, vas);
		return -EFAULT;
	}
	return 0;
}

static long ioctl_channel_create(struct emgpu_rm_client *client, void __user *arg)
{
	struct emgpu_rm_gpu *gpu = client->gpu;
	struct uvmGpuAddressSpace_tag *vas;
	struct uvmGpuChannel_tag *ch;
	struct emgpu_rm_channel c;
	int ret;

	lockdep_assert_held(&gpu->lock);
	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	vas = user_vas(client, c.h_client, c.h_va_space);
	if (!vas)
		return -ENOENT;
	if (client->channels >= READ_ONCE(max_channels_per_open) ||
	    client->account->channels >= READ_ONCE(max_channels_per_user))
		return -EDQUOT;
	launch_running(gpu);	/* a launch that ended gives its channel back */
	if (gpu->user_channels >= READ_ONCE(max_user_channels))
		return -ENOSPC;
	ret = emgpu_rm_compute_channel_create(vas, client->account, &ch);
	if (ret)
		return ret;
	ret = handle_alloc(gpu, &ch->user, EMGPU_RM_OBJ_CHANNEL, client);
	if (ret) {
		emgpu_rm_channel_put(ch);
		return ret;
	}
	client->channels++;
	c.h_channel = ch->user.handle;
	c.hw_channel = ch->id;
	if (copy_to_user(arg, &c, sizeof(c))) {
		channel_free(client, ch);
		return -EFAULT;
	}
	return 0;
}

static long ioctl_free(struct emgpu_rm_client *client, void __user *arg)
{
	struct emgpu_rm_gpu *gpu = client->gpu;
	struct uvmGpuAddressSpace_tag *vas;
	struct uvmGpuChannel_tag *ch;
	struct emgpu_rm_free f;

	lockdep_assert_held(&gpu->lock);
	if (copy_from_user(&f, arg, sizeof(f)))
		return -EFAULT;
	ch = user_channel(client, f.h_client, f.handle);
	if (ch) {
		if (launch_running(gpu) && gpu->launch_channel == ch)
			return -EBUSY;
		channel_free(client, ch);
		return 0;
	}
	vas = user_vas(client, f.h_client, f.handle);
	if (vas) {
		if (vas_has_channels(client, vas))
			return -EBUSY;
		va_space_free(client, vas);
		return 0;
	}
	/* the client itself lives as long as the file */
	if (f.h_client == client->obj.handle && f.handle == client->obj.handle)
		return -EINVAL;
	return -ENOENT;
}

/*
 * Whether the launch just rung is over (or the device went), its status in
 * @status. A doorbell the device refused leaves the previous launch's
 * status: over too; launch_errno() tells them apart by LAUNCH_SEQ.
 */
static bool launch_over(struct emgpu_rm_gpu *gpu, u32 *status)
{
	if (READ_ONCE(gpu->removed))
		return true;
	*status = emgpu_rm_rd(gpu, EMGPU_REG_LAUNCH_STATUS);
	return *status != EMGPU_LAUNCH_RUNNING;
}

/* The errno of a launch that ended with @status; device state logged. */
static int launch_errno(struct emgpu_rm_gpu *gpu, u32 status, u32 seq, u32 errors)
{
	bool ran = emgpu_rm_rd(gpu, EMGPU_REG_LAUNCH_SEQ) != seq;
	bool new_error = emgpu_rm_rd(gpu, EMGPU_REG_ERROR_COUNT) != errors;
	u32 error = emgpu_rm_rd(gpu, EMGPU_REG_ERROR_STATUS);

	if (ran && status == EMGPU_LAUNCH_DONE)
		return 0;
	if (ran && status == EMGPU_LAUNCH_CANCELLED)
		return -EFAULT;	/* nvidia-uvm cancelled a fault it could not service */
	/* its channel was stopped or given another directory under it */
	if (ran && status == EMGPU_LAUNCH_ERROR && new_error && error == EMGPU_ERR_CHANNEL)
		return -ECANCELED;
	/* a descriptor the device refused: the caller's kernel or arguments */
	if (status == EMGPU_LAUNCH_ERROR && new_error && error == EMGPU_ERR_BAD_DESCRIPTOR)
		return -EINVAL;
	dev_err_ratelimited(&gpu->pdev->dev,
			    "launch %s: status %u, device error %u (info 0x%x)%s\n",
			    ran ? "failed" : "refused", status, error,
			    emgpu_rm_rd(gpu, EMGPU_REG_ERROR_INFO), new_error ? "" : ", no new error");
	return -EIO;
}

/*
 * Whether nvidia-uvm holds every notification the device published (AC
 * GET at PUT), or none can come (the buffer off, the device gone).
 */
static bool notifications_serviced(struct emgpu_rm_gpu *gpu)
{
	u32 ctrl;

	if (READ_ONCE(gpu->removed))
		return true;
	/* not PUT: the device takes a PUT read after GET reached it for
	 * nvidia-uvm's fetch loop finding nothing new, its hand-back */
	ctrl = emgpu_rm_rd(gpu, GA10X_REG_AC_CTRL);
	return !(ctrl & EMGPU_RING_ENABLE) || !(ctrl & GA10X_AC_CTRL_BUSY);
}

/*
 * Runs a kernel on a compute channel and waits for it. The device has one
 * launch engine: launch_lock is held across the launch and its wait,
 * gpu->lock only to set it up and to read its outcome, so that nvidia-uvm
 * services the launch's faults meanwhile. The launch holds a reference on
 * its channel while it may run (gpu->launch_channel), the ioctl one of its
 * own across the wait. A launch that times out or is interrupted may
 * still run: it keeps its channel's hardware channel until the device
 * says it ended, and further launches get EBUSY till then.
 */
static long ioctl_launch(struct emgpu_rm_client *client, void __user *arg)
{
	struct emgpu_rm_gpu *gpu = client->gpu;
	struct emgpu_launch_desc *desc = gpu->launch_desc;
	struct uvmGpuChannel_tag *ch;
	struct emgpu_rm_launch l;
	u32 seq, errors, status = EMGPU_LAUNCH_IDLE;
	unsigned long deadline;
	long ret, left;
	unsigned int i;

	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	if (!l.kernel)
		return -EINVAL;
	if (mutex_lock_interruptible(&gpu->launch_lock))
		return -EINTR;
	mutex_lock(&gpu->lock);
	if (gpu->removed) {
		ret = -ENODEV;
		goto unlock;
	}
	ch = user_channel(client, l.h_client, l.h_channel);
	if (!ch) {
		ret = -ENOENT;
		goto unlock;
	}
	/* no page directory: nvidia-uvm has not registered its VA space */
	if (!ch->tsg->vas->external_pdb) {
		ret = -EINVAL;
		goto unlock;
	}
	/* nvidia-uvm stopped it (its unregistration): it runs nothing more */
	if (ch->stopped) {
		ret = -ECANCELED;
		goto unlock;
	}
	if (launch_running(gpu)) {
		ret = -EBUSY;	/* an earlier launch that timed out still runs */
		goto unlock;
	}

	memset(desc, 0, sizeof(*desc));
	desc->kernel = emgpu_cpu_to_le32(l.kernel);
	desc->warps = emgpu_cpu_to_le32(l.warps);
	desc->seed = emgpu_cpu_to_le64(l.seed);
	for (i = 0; i < EMGPU_LAUNCH_MAX_ARGS; i++)
		desc->args[i] = emgpu_cpu_to_le64(l.args[i]);
	errors = emgpu_rm_rd(gpu, EMGPU_REG_ERROR_COUNT);
	emgpu_rm_wr(gpu, GA10X_REG_LAUNCH_CHANNEL, ch->id);
	if (emgpu_rm_rd(gpu, EMGPU_REG_ERROR_COUNT) != errors) {
		/* a device without launches on channels (BAD_REGISTER) */
		ret = emgpu_rm_rd(gpu, EMGPU_REG_ERROR_INFO) == GA10X_REG_LAUNCH_CHANNEL ?
		      -EOPNOTSUPP : -EIO;
		dev_err_ratelimited(&gpu->pdev->dev,
				    "GA10X_REG_LAUNCH_CHANNEL %u refused: device error %u\n",
				    ch->id, emgpu_rm_rd(gpu, EMGPU_REG_ERROR_STATUS));
		goto unlock;
	}
	seq = emgpu_rm_rd(gpu, EMGPU_REG_LAUNCH_SEQ);
	wmb();	/* the descriptor before the doorbell */
	emgpu_rm_wr64(gpu, EMGPU_REG_LAUNCH_DESC_LO, gpu->launch_desc_dma);
	emgpu_rm_wr(gpu, EMGPU_REG_LAUNCH_DOORBELL, 1);
	emgpu_rm_channel_get(ch);	/* the launch's */
	gpu->launch_channel = ch;
	emgpu_rm_channel_get(ch);	/* ours: ch stays valid across the wait */
	mutex_unlock(&gpu->lock);

	deadline = jiffies + msecs_to_jiffies(l.timeout_ms ?: EMGPU_RM_LAUNCH_TIMEOUT_MS);
	ret = 0;
	while (!launch_over(gpu, &status)) {
		if (time_after_eq(jiffies, deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		left = wait_event_interruptible_timeout(gpu->launch_wq, launch_over(gpu, &status),
							msecs_to_jiffies(EMGPU_RM_LAUNCH_POLL_MS));
		if (left < 0) {
			ret = -EINTR;
			break;
		}
		if (!left)
			emgpu_rm_isr_poll(gpu);	/* a lost nvidia-uvm interrupt */
	}
	/*
	 * The notifications the device published as the launch ended are
	 * serviced by nvidia-uvm before it returns, as those of the launch's
	 * stops are before its warps go on: no warp waits for them, but the
	 * program's next step (its CPU's accesses, the next launch) must not
	 * race their promotions. The device tells their hand-back, inferred as
	 * a stop's (GET at PUT, then the next PUT read), in AC_CTRL's BUSY.
	 */
	while (!ret && !notifications_serviced(gpu)) {
		if (time_after_eq(jiffies, deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		schedule_timeout_interruptible(1);
		if (signal_pending(current))
			ret = -EINTR;
	}

	mutex_lock(&gpu->lock);
	if (gpu->removed) {
		ret = -ENODEV;
		goto put;
	}
	if (ret) {
		dev_warn_ratelimited(&gpu->pdev->dev, "launch on channel %u %s; it may still run\n",
				     ch->id, ret == -ETIMEDOUT ? "timed out" : "interrupted");
		goto put;
	}
	launch_running(gpu);	/* over: gives the launch's reference back */
	ret = launch_errno(gpu, status, seq, errors);
	l.status = status;
	l.sim_ns = emgpu_rm_rd(gpu, EMGPU_REG_LAUNCH_TIME_LO);	/* LO latches HI */
	l.sim_ns |= (u64)emgpu_rm_rd(gpu, EMGPU_REG_LAUNCH_TIME_HI) << 32;
	l.result = emgpu_rm_rd(gpu, EMGPU_REG_LAUNCH_RESULT_LO);
	l.result |= (u64)emgpu_rm_rd(gpu, EMGPU_REG_LAUNCH_RESULT_HI) << 32;
	emgpu_rm_channel_put(ch);
	mutex_unlock(&gpu->lock);
	mutex_unlock(&gpu->launch_lock);
	/* the outcome also when the launch failed: status says how */
	if (copy_to_user(arg, &l, sizeof(l)))
		return -EFAULT;
	return ret;

put:
	emgpu_rm_channel_put(ch);
unlock:
	mutex_unlock(&gpu->lock);
	mutex_unlock(&gpu->launch_lock);
	return ret;
}

static long emgpu_rm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct emgpu_rm_client *client = file->private_data;
	struct emgpu_rm_gpu *gpu = client->gpu;
	void __user *uarg = (void __user *)arg;
	long ret;

	switch (cmd) {
	case EMGPU_RM_LAUNCH:
		/* takes its locks itself: it waits */
		return ioctl_launch(client, uarg);
	case EMGPU_RM_GPU_INFO:
	case EMGPU_RM_VA_SPACE_CREATE:
	case EMGPU_RM_CHANNEL_CREATE:
	case EMGPU_RM_FREE:
		break;
	default:
		return -ENOTTY;
	}
	mutex_lock(&gpu->lock);
	if (gpu->removed) {
		mutex_unlock(&gpu->lock);
		return -ENODEV;
	}
	switch (cmd) {
	case EMGPU_RM_GPU_INFO:
		ret = ioctl_gpu_info(client, uarg);
		break;
	case EMGPU_RM_VA_SPACE_CREATE:
		ret = ioctl_va_space_create(client, uarg);
		break;
	case EMGPU_RM_CHANNEL_CREATE:
		ret = ioctl_channel_create(client, uarg);
		break;
	default:
		ret = ioctl_free(client, uarg);
		break;
	}
	mutex_unlock(&gpu->lock);
	return ret;
}

static int emgpu_rm_open(struct inode *inode, struct file *file)
{
	struct emgpu_rm_gpu *gpu = container_of(file->private_data, struct emgpu_rm_gpu, misc);
	struct emgpu_rm_account *spare;
	struct emgpu_rm_client *client;
	int ret;

	client = kzalloc(sizeof(*client), GFP_KERNEL);
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);	/* if the user has none yet */
	if (!client || !spare) {
		kfree(client);
		kfree(spare);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&client->node);
	client->gpu = gpu;
	mutex_lock(&gpu->lock);
	ret = gpu->removed ? -ENODEV :
	      handle_alloc(gpu, &client->obj, EMGPU_RM_OBJ_CLIENT, client);
	if (!ret) {
		client->account = account_get(gpu, file->f_cred->euid, &spare);
		list_add_tail(&client->node, &gpu->clients);
		kref_get(&gpu->kref);
	}
	mutex_unlock(&gpu->lock);
	kfree(spare);
	if (ret) {
		kfree(client);
		return ret;
	}
	client->owner = get_pid(task_tgid(current));
	file->private_data = client;
	return 0;
}

static int emgpu_rm_release(struct inode *inode, struct file *file)
{
	struct emgpu_rm_client *client = file->private_data;
	struct emgpu_rm_gpu *gpu = client->gpu;

	mutex_lock(&gpu->lock);
	if (!gpu->removed)
		client_free_objects(client);
	account_put(gpu, client->account);
	mutex_unlock(&gpu->lock);
	put_pid(client->owner);
	kfree(client);
	emgpu_rm_gpu_put(gpu);
	return 0;
}

static const struct file_operations emgpu_rm_fops = {
	.owner = THIS_MODULE,
	.open = emgpu_rm_open,
	.release = emgpu_rm_release,
	.unlocked_ioctl = emgpu_rm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* ---- the device's side ---- */

static irqreturn_t emgpu_rm_launch_isr(int irq, void *data)
{
	struct emgpu_rm_gpu *gpu = data;

	if (!(emgpu_rm_rd(gpu, EMGPU_REG_INTR_STATUS) & EMGPU_INTR_LAUNCH))
		return IRQ_NONE;
	/* write-1-to-clear: the next completion raises the vector again */
	emgpu_rm_wr(gpu, EMGPU_REG_INTR_STATUS, EMGPU_INTR_LAUNCH);
	wake_up_all(&gpu->launch_wq);
	return IRQ_HANDLED;
}

/*
 * /dev/emgpu-rm for the GPU probe found: the launch descriptor, the launch
 * completion vector (EMGPU_INTR_VEC_LAUNCH, emgpu's own) and the node,
 * 0660 root:root; guest-kmod/emgpu-rm/99-emgpu-rm.rules gives it a group.
 */
int emgpu_rm_user_probe(struct emgpu_rm_gpu *gpu)
{
	int ret;

	gpu->launch_desc = dma_alloc_coherent(&gpu->pdev->dev, sizeof(struct emgpu_launch_desc),
					      &gpu->launch_desc_dma, GFP_KERNEL);
	if (!gpu->launch_desc)
		return -ENOMEM;
	gpu->launch_irq = pci_irq_vector(gpu->pdev, EMGPU_INTR_VEC_LAUNCH);
	ret = request_irq(gpu->launch_irq, emgpu_rm_launch_isr, 0, "emgpu-rm-launch", gpu);
	if (ret) {
		gpu->launch_irq = -1;
		goto err_desc;
	}
	emgpu_rm_wr(gpu, EMGPU_REG_INTR_STATUS, EMGPU_INTR_LAUNCH);
	emgpu_rm_wr(gpu, EMGPU_REG_INTR_ENABLE,
		    emgpu_rm_rd(gpu, EMGPU_REG_INTR_ENABLE) | EMGPU_INTR_LAUNCH);

	gpu->misc.minor = MISC_DYNAMIC_MINOR;
	gpu->misc.name = "emgpu-rm";
	gpu->misc.fops = &emgpu_rm_fops;
	gpu->misc.mode = 0660;
	gpu->misc.parent = &gpu->pdev->dev;
	ret = misc_register(&gpu->misc);
	if (ret)
		goto err_irq;
	gpu->misc_registered = true;
	return 0;

err_irq:
	emgpu_rm_wr(gpu, EMGPU_REG_INTR_ENABLE,
		    emgpu_rm_rd(gpu, EMGPU_REG_INTR_ENABLE) & ~EMGPU_INTR_LAUNCH);
	free_irq(gpu->launch_irq, gpu);
	gpu->launch_irq = -1;
err_desc:
	dma_free_coherent(&gpu->pdev->dev, sizeof(struct emgpu_launch_desc), gpu->launch_desc,
			  gpu->launch_desc_dma);
	gpu->launch_desc = NULL;
	return ret;
}

/*
 * The device goes: no new opens (misc_deregister waits for running ones),
 * a waiting launch gives up (ENODEV), then every open file's objects are
 * freed; the files stay until closed, every ioctl ENODEV.
 */
void emgpu_rm_user_remove(struct emgpu_rm_gpu *gpu)
{
	struct emgpu_rm_client *client, *next;

	if (gpu->misc_registered)
		misc_deregister(&gpu->misc);
	gpu->misc_registered = false;
	mutex_lock(&gpu->lock);
	WRITE_ONCE(gpu->removed, true);
	mutex_unlock(&gpu->lock);
	wake_up_all(&gpu->launch_wq);
	mutex_lock(&gpu->launch_lock);	/* the waiter has left */
	mutex_lock(&gpu->lock);
	list_for_each_entry_safe(client, next, &gpu->clients, node)
		client_free_objects(client);
	launch_running(gpu);	/* removed: no launch runs any more */
	mutex_unlock(&gpu->lock);
	mutex_unlock(&gpu->launch_lock);

	emgpu_rm_wr(gpu, EMGPU_REG_INTR_ENABLE,
		    emgpu_rm_rd(gpu, EMGPU_REG_INTR_ENABLE) & ~EMGPU_INTR_LAUNCH);
	if (gpu->launch_irq >= 0)
		free_irq(gpu->launch_irq, gpu);
	gpu->launch_irq = -1;
	if (gpu->launch_desc)
		dma_free_coherent(&gpu->pdev->dev, sizeof(struct emgpu_launch_desc),
				  gpu->launch_desc, gpu->launch_desc_dma);
	gpu->launch_desc = NULL;
}
