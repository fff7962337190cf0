// SPDX-License-Identifier: MIT
/*
 * libember's nvidia-uvm back end (em_backend.h): NVIDIA's nvidia-uvm.ko
 * on emgpu's GA10x personality, with the resource-manager stand-in
 * (guest-kmod/emgpu-rm/, /dev/emgpu-rm, include/uapi/emgpu_rm.h) in nvidia.ko's
 * place. A context is what libcuda makes of a process on a card:
 *
 *   open       /dev/nvidia-uvm, UVM_INITIALIZE; a second fd of it with
 *              UVM_MM_INITIALIZE naming the first (held for the context's
 *              life: nvidia-uvm's GPU VA spaces need the pinned mm); the
 *              GPU's UUID from
 *              EMGPU_RM_GPU_INFO, UVM_REGISTER_GPU; a client and GPU VA
 *              space from the stand-in, UVM_REGISTER_GPU_VASPACE; a
 *              compute channel in it, UVM_REGISTER_CHANNEL
 *   managed    mmap of the UVM fd at the address (libember.c)
 *   advice     UVM_SET/UNSET_PREFERRED_LOCATION, UVM_SET/UNSET_ACCESSED_BY
 *              with the GPU's UUID or NVIDIA's CPU UUID
 *   prefetch   UVM_MIGRATE, synchronous, to the GPU or the CPU
 *   launch     EMGPU_RM_LAUNCH on the channel; synchronous, so a launch's
 *              failure is kept for the next synchronize, as ember.ko
 *              reports one
 *
 * Statistics: what this back end counts itself from the stand-in's
 * answers (launches, failed launches, their modelled time) and, where our
 * series' glue is loaded, its Ember counters
 * (/sys/module/nvidia_uvm/parameters/ember_stats: module-wide since load,
 * reported as the difference since this context's open, since one process
 * runs in the VM); every other counter, and all of the glue's under
 * Debian's module (no such file), is marked not counted (em_backend.h),
 * never made up. The device's own counters are read by the host over QMP
 * as on ember.
 * emMemGetInfo's total is the stand-in's VRAM size; its free is what the
 * stand-in's PMA has free (EMGPU_RM_GPU_INFO), as cuMemGetInfo() reports
 * RM's free FB: nvidia-uvm's unused batch chunks count as used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "em_backend.h"
#include "em_uvm_abi.h"
#include "uapi/emgpu_rm.h"

/*
 * A launch's limit: ember.ko's launch_timeout_ms default, in the guest's
 * wall-clock time here (the stand-in's), where ember.ko counts device
 * time. The stand-in's own default (60 s) ends launches that run long
 * under TCG (gather at 1.5x under NVIDIA's stock policy: more than 60 s
 * of guest time).
 */
#define NVUVM_LAUNCH_TIMEOUT_MS	600000


struct nvuvm {
	int uvm_fd, rm_fd;
	int mm_fd;		/* UVM_MM_INITIALIZE's; -1 where nvidia-uvm needs none */
	enum em_uvm_abi abi;
	struct em_uvm_uuid gpu;
	uint64_t vram_bytes;
	uint32_t h_client, h_va_space, h_channel;
	bool gpu_registered, va_space_registered, channel_registered;
	bool va_space_made, channel_made;
	/* launches: started, the last completed, the first failure since a synchronize */
	uint64_t launch_id;
	uint64_t done_id, done_sim_ns, done_result;
	int pending_err;
	/* what this back end counts (launches and their time) */
	struct ember_stats_counters counted;
	/* the glue's counters at open, and which it has (all 0: none, stock) */
	struct ember_stats_counters glue_base, glue_valid;
};

static const struct em_uvm_uuid cpu_uuid = { EM_UVM_CPU_UUID };

int em_uvm_abi_of_version(const char *version, enum em_uvm_abi *abi)
{
	char *end;
	long major;

	if (!version)
		return -ENOTSUP;
	errno = 0;
	major = strtol(version, &end, 10);
	if (errno || end == version || (*end && *end != '.' && *end != '\n'))
		return -ENOTSUP;
	/*
	 * The branches whose headers abi_check.c compared: 535; 550 and 555
	 * (Debian's), and the public trees' 560.28.03, 565.57.01, 570.86.15,
	 * 575.51.02, 580.65.06 and 580.142 keep 550's layouts; 590.44.01
	 * changed them.
	 */
	if (major >= 535 && major < 550)
		*abi = EM_UVM_ABI_535;
	else if (major >= 550 && major < 590)
		*abi = EM_UVM_ABI_550;
	else
		return -ENOTSUP;
	return 0;
}

int em_uvm_status_errno(uint32_t s)
{
	switch (s) {
	case EM_NV_OK:
		return 0;
	/* a range that is not one managed allocation: ember.h's EFAULT */
	case EM_NV_ERR_INVALID_ADDRESS:
		return -EFAULT;
	case EM_NV_ERR_INVALID_ARGUMENT:
	case EM_NV_ERR_INVALID_FLAGS:
	case EM_NV_ERR_OUT_OF_RANGE:
	case EM_NV_ERR_INVALID_CHANNEL:
	case EM_NV_ERR_INVALID_OBJECT_HANDLE:
		return -EINVAL;
	case EM_NV_ERR_INVALID_DEVICE:
	case EM_NV_ERR_GPU_UUID_NOT_FOUND:
	case EM_NV_ERR_GPU_IS_LOST:
	case EM_NV_ERR_OBJECT_NOT_FOUND:
		return -ENODEV;
	case EM_NV_ERR_NO_MEMORY:
	case EM_NV_ERR_INSUFFICIENT_RESOURCES:
		return -ENOMEM;
	case EM_NV_ERR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case EM_NV_ERR_IN_USE:
	case EM_NV_ERR_BUSY_RETRY:
	case EM_NV_ERR_UVM_ADDRESS_IN_USE:
		return -EBUSY;
	case EM_NV_ERR_ILLEGAL_ACTION:	/* the fd was not initialised */
		return -EBADFD;
	case EM_NV_ERR_TIMEOUT:
		return -ETIMEDOUT;
	default:			/* INVALID_STATE and anything else */
		return -EIO;
	}
}

int em_rm_launch_errno(int rm_errno, bool *deferred)
{
	*deferred = false;
	switch (rm_errno) {
	case 0:
		return 0;
	/* the launch ran: cancelled by nvidia-uvm, a device error, no answer */
	case EFAULT:
	case EIO:
	case ETIMEDOUT:
		*deferred = true;
		return -rm_errno;
	/* a handle not this file's: the context is gone */
	case ENOENT:
		return -ENODEV;
	default:			/* EINVAL: an unregistered channel, a bad kernel */
		return -rm_errno;
	}
}

/* The counters the glue exports, by struct ember_stats_counters' member name. */
#define NVUVM_GLUE_COUNTERS(X)						\
	X(notifications) X(promotions) X(promoted_bytes) X(promotions_halted)	\
	X(evictions) X(pages_evicted) X(eager_evictions)

static const struct {
	const char *name;
	size_t off;
} glue_counters[] = {
#define GLUE_COUNTER_(m) { #m, offsetof(struct ember_stats_counters, m) },
	NVUVM_GLUE_COUNTERS(GLUE_COUNTER_)
#undef GLUE_COUNTER_
#define GLUE_HOOK_(id, m) { "hook_calls." #m,					\
	offsetof(struct ember_stats_counters, hook_calls) + EMBER_HOOK_##id * sizeof(__u64) },
	EMBER_POLICY_HOOK_LIST(GLUE_HOOK_)
#undef GLUE_HOOK_
};

static __u64 *counter_at(struct ember_stats_counters *c, size_t off)
{
	return (__u64 *)((char *)c + off);
}

int em_nvuvm_stats_parse(const char *text, struct ember_stats_counters *c,
			 struct ember_stats_counters *valid)
{
	const char *line = text, *end, *sp, *v;
	unsigned long long val;
	size_t i, nlen;
	char *vend;

	memset(c, 0, sizeof(*c));
	memset(valid, 0, sizeof(*valid));
	for (; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		sp = memchr(line, ' ', (size_t)(end - line));
		if (!sp || sp == line)
			return -EPROTO;
		nlen = (size_t)(sp - line);
		v = sp + 1;
		/* digits only up to the line's end: no sign, space or suffix */
		if (v == end || strspn(v, "0123456789") != (size_t)(end - v))
			return -EPROTO;
		errno = 0;
		val = strtoull(v, &vend, 10);
		if (errno || vend != end)
			return -EPROTO;
		for (i = 0; i < sizeof(glue_counters) / sizeof(glue_counters[0]); i++)
			if (strlen(glue_counters[i].name) == nlen &&
			    !memcmp(glue_counters[i].name, line, nlen))
				break;
		if (i == sizeof(glue_counters) / sizeof(glue_counters[0]))
			continue;	/* a counter of a newer glue */
		if (*counter_at(valid, glue_counters[i].off))
			return -EPROTO;
		*counter_at(c, glue_counters[i].off) = val;
		*counter_at(valid, glue_counters[i].off) = 1;
	}
	return 0;
}

/*
 * The glue's counters now: 0 with *valid all 0 where the module has none
 * (Debian's), else the parse's result; a file too long to be read whole
 * is -EPROTO.
 */
static int glue_stats_read(struct em_context *c, struct ember_stats_counters *now,
			   struct ember_stats_counters *valid)
{
	char text[4096];
	long n = c->sys->read_text(EM_NVUVM_STATS_FILE, text, sizeof(text));

	if (n == -ENOENT) {
		memset(now, 0, sizeof(*now));
		memset(valid, 0, sizeof(*valid));
		return 0;
	}
	if (n < 0)
		return (int)n;
	if ((size_t)n >= sizeof(text) - 1)
		return -EPROTO;
	return em_nvuvm_stats_parse(text, now, valid);
}

/* One nvidia-uvm call: the ioctl's error, else its rmStatus's. */
static int uvm_call(struct em_context *c, unsigned long cmd, void *params,
		    const uint32_t *rm_status)
{
	struct nvuvm *u = c->be;
	int ret = c->sys->ioctl(u->uvm_fd, cmd, params);

	return ret ? ret : em_uvm_status_errno(*rm_status);
}

/* UVM_MM_INITIALIZE on the second fd; NV_WARN_NOTHING_TO_DO: it is not needed. */
static int uvm_mm_initialize(struct em_context *c)
{
	struct nvuvm *u = c->be;
	struct em_uvm_mm_initialize p = { .uvm_fd = u->uvm_fd };
	int ret = c->sys->ioctl(u->mm_fd, EM_UVM_MM_INITIALIZE, &p);

	if (ret)
		return ret;
	if (p.rm_status == EM_NV_WARN_NOTHING_TO_DO) {
		c->sys->close(u->mm_fd);
		u->mm_fd = -1;
		return 0;
	}
	return em_uvm_status_errno(p.rm_status);
}

static int rm_call(struct em_context *c, unsigned long cmd, void *arg)
{
	struct nvuvm *u = c->be;

	return c->sys->ioctl(u->rm_fd, cmd, arg);
}

static void rm_free(struct em_context *c, uint32_t handle)
{
	struct nvuvm *u = c->be;
	struct emgpu_rm_free f = { .h_client = u->h_client, .handle = handle };

	rm_call(c, EMGPU_RM_FREE, &f);
}

/* Undoes what nvuvm_open() did, in reverse; the fds last. */
static void nvuvm_teardown(struct em_context *c)
{
	struct nvuvm *u = c->be;

	if (u->channel_registered) {
		struct em_uvm_unregister_channel p = {
			.gpu = u->gpu, .h_client = u->h_client, .h_channel = u->h_channel,
		};

		uvm_call(c, EM_UVM_UNREGISTER_CHANNEL, &p, &p.rm_status);
	}
	if (u->va_space_registered) {
		struct em_uvm_unregister_gpu_vaspace p = { .gpu = u->gpu };

		uvm_call(c, EM_UVM_UNREGISTER_GPU_VASPACE, &p, &p.rm_status);
	}
	if (u->gpu_registered) {
		struct em_uvm_unregister_gpu p = { .gpu = u->gpu };

		uvm_call(c, EM_UVM_UNREGISTER_GPU, &p, &p.rm_status);
	}
	/* nvidia-uvm let go of them above: the stand-in may free them now */
	if (u->channel_made)
		rm_free(c, u->h_channel);
	if (u->va_space_made)
		rm_free(c, u->h_va_space);
	/* the mm fd first: it holds a reference on the VA space's fd */
	if (u->mm_fd >= 0)
		c->sys->close(u->mm_fd);
	if (u->uvm_fd >= 0)
		c->sys->close(u->uvm_fd);
	if (u->rm_fd >= 0)
		c->sys->close(u->rm_fd);
	free(u);
	c->be = NULL;
	c->map_fd = -1;
}

static int nvuvm_register(struct em_context *c)
{
	struct nvuvm *u = c->be;
	struct em_uvm_initialize init = { 0 };
	struct emgpu_rm_gpu_info info = { .vram_bytes = 0 };
	struct em_uvm_register_gpu reg = { .rm_ctrl_fd = -1 };
	struct emgpu_rm_va_space vas = { 0 };
	struct em_uvm_register_gpu_vaspace regvas = { .rm_ctrl_fd = u->rm_fd };
	struct emgpu_rm_channel ch = { 0 };
	/* the RM objects' file, as libcuda passes its nvidia.ko control fd */
	struct em_uvm_register_channel regch = { .rm_ctrl_fd = u->rm_fd };
	char version[64];
	long n;
	int ret;

	n = c->sys->read_text(EM_UVM_VERSION_FILE, version, sizeof(version));
	if (n < 0)
		return (int)n == -ENOENT ? -ENODEV : (int)n;	/* nvidia-uvm not loaded */
	ret = em_uvm_abi_of_version(version, &u->abi);
	if (ret)
		return ret;
	ret = uvm_call(c, EM_UVM_INITIALIZE, &init, &init.rm_status);
	if (ret)
		return ret;
	ret = uvm_mm_initialize(c);
	if (ret)
		return ret;
	ret = rm_call(c, EMGPU_RM_GPU_INFO, &info);
	if (ret)
		return ret;
	memcpy(u->gpu.uuid, info.uuid, sizeof(u->gpu.uuid));
	u->vram_bytes = info.vram_bytes;
	reg.gpu = u->gpu;
	ret = uvm_call(c, EM_UVM_REGISTER_GPU, &reg, &reg.rm_status);
	if (ret)
		return ret;
	u->gpu_registered = true;
	ret = rm_call(c, EMGPU_RM_VA_SPACE_CREATE, &vas);
	if (ret)
		return ret;
	u->h_client = vas.h_client;
	u->h_va_space = vas.h_va_space;
	u->va_space_made = true;
	regvas.gpu = u->gpu;
	regvas.h_client = u->h_client;
	regvas.h_va_space = u->h_va_space;
	ret = uvm_call(c, EM_UVM_REGISTER_GPU_VASPACE, &regvas, &regvas.rm_status);
	if (ret)
		return ret;
	u->va_space_registered = true;
	ch.h_client = u->h_client;
	ch.h_va_space = u->h_va_space;
	ret = rm_call(c, EMGPU_RM_CHANNEL_CREATE, &ch);
	if (ret)
		return ret;
	u->h_channel = ch.h_channel;
	u->channel_made = true;
	/*
	 * The stand-in's channels have no engine context buffers
	 * (RetainChannel's resourceCount is 0), so nvidia-uvm maps nothing
	 * for them and base/length name no range
	 */
	regch.gpu = u->gpu;
	regch.h_client = u->h_client;
	regch.h_channel = u->h_channel;
	ret = uvm_call(c, EM_UVM_REGISTER_CHANNEL, &regch, &regch.rm_status);
	if (ret)
		return ret;
	u->channel_registered = true;
	return 0;
}

static int nvuvm_open(struct em_context *c)
{
	struct nvuvm *u = calloc(1, sizeof(*u));
	int ret;

	if (!u)
		return -ENOMEM;
	u->uvm_fd = u->rm_fd = u->mm_fd = -1;
	c->be = u;
	u->rm_fd = c->sys->open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC);
	if (u->rm_fd < 0) {
		ret = u->rm_fd == -ENOENT ? -ENODEV : u->rm_fd;	/* no stand-in */
		goto fail;
	}
	u->uvm_fd = c->sys->open(EM_UVM_DEVICE, O_RDWR | O_CLOEXEC);
	if (u->uvm_fd < 0) {
		ret = u->uvm_fd == -ENOENT ? -ENODEV : u->uvm_fd;
		goto fail;
	}
	u->mm_fd = c->sys->open(EM_UVM_DEVICE, O_RDWR | O_CLOEXEC);
	if (u->mm_fd < 0) {
		ret = u->mm_fd;
		goto fail;
	}
	ret = nvuvm_register(c);
	if (ret)
		goto fail;
	ret = glue_stats_read(c, &u->glue_base, &u->glue_valid);
	if (ret)
		goto fail;
	c->map_fd = u->uvm_fd;
	return 0;
fail:
	nvuvm_teardown(c);
	return ret;
}

static void nvuvm_close(struct em_context *c)
{
	if (c->be)
		nvuvm_teardown(c);
}

/* A processor's UUID for advice and migrations; NULL for none. */
static const struct em_uvm_uuid *processor_uuid(const struct nvuvm *u, uint32_t processor)
{
	return processor == EMBER_PROC_CPU ? &cpu_uuid :
	       processor == EMBER_PROC_GPU ? &u->gpu : NULL;
}

static int set_preferred(struct em_context *c, uint64_t addr, uint64_t len,
			 const struct em_uvm_uuid *where)
{
	struct nvuvm *u = c->be;

	if (u->abi == EM_UVM_ABI_535) {
		struct em_uvm_set_preferred_location_535 p = {
			.base = addr, .length = len, .location = *where,
		};

		return uvm_call(c, EM_UVM_SET_PREFERRED_LOCATION, &p, &p.rm_status);
	} else {
		struct em_uvm_set_preferred_location_550 p = {
			.base = addr, .length = len, .location = *where, .cpu_numa_node = -1,
		};

		return uvm_call(c, EM_UVM_SET_PREFERRED_LOCATION, &p, &p.rm_status);
	}
}

static int nvuvm_advise(struct em_context *c, uint64_t addr, uint64_t len,
			uint32_t advice, uint32_t processor)
{
	const struct em_uvm_uuid *who = processor_uuid(c->be, processor);
	struct em_uvm_unset_preferred_location unset = { .base = addr, .length = len };
	struct em_uvm_accessed_by by = { .base = addr, .length = len };

	if (!len)
		return -EINVAL;
	switch (advice) {
	case EMBER_ADVISE_SET_PREFERRED_LOCATION:
		return who ? set_preferred(c, addr, len, who) : -EINVAL;
	case EMBER_ADVISE_UNSET_PREFERRED_LOCATION:
		if (processor != EMBER_PROC_NONE)
			return -EINVAL;
		return uvm_call(c, EM_UVM_UNSET_PREFERRED_LOCATION, &unset, &unset.rm_status);
	case EMBER_ADVISE_SET_ACCESSED_BY:
	case EMBER_ADVISE_UNSET_ACCESSED_BY:
		if (!who)
			return -EINVAL;
		by.processor = *who;
		return uvm_call(c, advice == EMBER_ADVISE_SET_ACCESSED_BY ?
				EM_UVM_SET_ACCESSED_BY : EM_UVM_UNSET_ACCESSED_BY,
				&by, &by.rm_status);
	default:
		return -EINVAL;
	}
}

static int nvuvm_prefetch(struct em_context *c, uint64_t addr, uint64_t len,
			  uint32_t processor)
{
	struct nvuvm *u = c->be;
	const struct em_uvm_uuid *to = processor_uuid(u, processor);
	struct em_uvm_migrate m = { .base = addr, .length = len, .cpu_numa_node = -1 };

	if (!to || !len)
		return -EINVAL;
	m.destination = *to;
	return uvm_call(c, EM_UVM_MIGRATE, &m, &m.rm_status);
}

static int nvuvm_launch(struct em_context *c, struct ember_launch *l)
{
	struct nvuvm *u = c->be;
	struct emgpu_rm_launch rl = {
		.h_client = u->h_client, .h_channel = u->h_channel,
		.kernel = l->kernel, .warps = l->warps, .seed = l->seed,
		.timeout_ms = NVUVM_LAUNCH_TIMEOUT_MS,
	};
	bool deferred;
	int ret;

	_Static_assert(EMBER_LAUNCH_MAX_ARGS == EMGPU_RM_LAUNCH_MAX_ARGS, "launch args");
	if (!l->kernel || l->kernel > EMBER_KERNEL_MAX || (l->flags & ~EMBER_LAUNCH_FLAGS) ||
	    l->pad)
		return -EINVAL;
	memcpy(rl.args, l->args, sizeof(rl.args));
	ret = em_rm_launch_errno(-rm_call(c, EMGPU_RM_LAUNCH, &rl), &deferred);
	if (ret && !deferred)
		return ret;
	l->launch_id = ++u->launch_id;
	u->counted.launches++;
	u->counted.launch_sim_ns += rl.sim_ns;
	u->counted.last_launch_sim_ns = rl.sim_ns;
	u->done_id = l->launch_id;
	u->done_sim_ns = rl.sim_ns;
	u->done_result = rl.result;
	if (ret)
		u->counted.launches_failed++;
	if (l->flags & EMBER_LAUNCH_SYNC) {
		/* this launch's outcome is reported here, not again */
		l->sim_ns = rl.sim_ns;
		l->result = rl.result;
		return ret;
	}
	if (ret && !u->pending_err)
		u->pending_err = ret;
	return 0;
}

static int nvuvm_synchronize(struct em_context *c, struct ember_synchronize *s)
{
	struct nvuvm *u = c->be;
	int ret = u->pending_err;

	if (s->flags)
		return -EINVAL;
	/* every launch completed in nvuvm_launch(): nothing to wait for */
	s->launch_id = u->done_id;
	s->sim_ns = u->done_sim_ns;
	s->result = u->done_result;
	u->pending_err = 0;
	return ret;
}

/* As libcuda's cuMemGetInfo(): the VRAM size, and what RM has free now. */
static int nvuvm_mem_info(struct em_context *c, struct ember_mem_info *m)
{
	struct nvuvm *u = c->be;
	struct emgpu_rm_gpu_info g = { .vram_bytes = 0 };
	int ret;

	if (m->gpu_index || m->pad)
		return -EINVAL;
	ret = rm_call(c, EMGPU_RM_GPU_INFO, &g);
	if (ret)
		return ret;
	m->total = u->vram_bytes;
	m->free = g.vram_free_bytes;
	return 0;
}

static int nvuvm_stats(struct em_context *c, struct ember_stats *s,
		       struct ember_stats_counters *valid)
{
	struct nvuvm *u = c->be;
	struct ember_stats_counters now, now_valid;
	size_t i, off;
	int ret;

	/* one VA space per process: its counters are the global ones too */
	if (s->scope > EMBER_STATS_GLOBAL || s->pad)
		return -EINVAL;
	ret = glue_stats_read(c, &now, &now_valid);
	if (ret)
		return ret;
	s->c = u->counted;
	for (i = 0; i < sizeof(glue_counters) / sizeof(glue_counters[0]); i++) {
		off = glue_counters[i].off;
		if (!*counter_at(&u->glue_valid, off))
			continue;
		/* counted since load: one the module stopped giving, or that went back, is broken */
		if (!*counter_at(&now_valid, off) || *counter_at(&now, off) < *counter_at(&u->glue_base, off))
			return -EPROTO;
		*counter_at(&s->c, off) = *counter_at(&now, off) - *counter_at(&u->glue_base, off);
	}
	if (valid) {
		*valid = u->glue_valid;
		valid->launches = valid->launches_failed = 1;
		valid->launch_sim_ns = valid->last_launch_sim_ns = 1;
	}
	return 0;
}

/* nvidia-uvm's policy is chosen at load (Ember's master switch), not per VA space. */
static int nvuvm_set_policy(struct em_context *c, const char *name)
{
	(void)c;
	(void)name;
	return -EOPNOTSUPP;
}

/* What the stand-in tells: the VRAM size, the SMs and their warps, and the
 * device clock (its PTIMER). */
static int nvuvm_device_info(struct em_context *c, struct ember_device_info *info)
{
	struct nvuvm *u = c->be;
	struct emgpu_rm_gpu_info g = { .vram_bytes = 0 };
	int ret = rm_call(c, EMGPU_RM_GPU_INFO, &g);

	if (ret)
		return ret;
	info->abi_version = EMBER_ABI_VERSION;
	info->vram_size = u->vram_bytes;
	info->num_gpus = 1;
	info->ptimer_ns = g.ptimer_ns;
	info->num_sms = g.num_sms;
	info->warps_per_sm = g.warps_per_sm;
	return 0;
}

const struct em_backend_ops em_nvuvm_ops = {
	.name = "nvidia-uvm",
	.open = nvuvm_open,
	.close = nvuvm_close,
	.advise = nvuvm_advise,
	.prefetch = nvuvm_prefetch,
	.launch = nvuvm_launch,
	.synchronize = nvuvm_synchronize,
	.mem_info = nvuvm_mem_info,
	.stats = nvuvm_stats,
	.set_policy = nvuvm_set_policy,
	.device_info = nvuvm_device_info,
};
