// SPDX-License-Identifier: MIT
/*
 * libember's back ends without a device (userspace/em_backend.h): the
 * driver's choice (emSetDriver, $EMBER_DRIVER), and the nvidia-uvm back
 * end against a fake of the system calls that records every ioctl and
 * answers as nvidia-uvm and the stand-in would: the order of the calls
 * that make a context and undo it, each call's parameters byte for byte
 * (both branches' SET_PREFERRED_LOCATION layouts), NV_STATUS and the
 * stand-in's launch errnos as libember's, launch/synchronize semantics,
 * the counters it counts and the ones it marks not counted, the glue's
 * ember_stats file parsed strictly and reported since open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "em_backend.h"
#include "em_uvm_abi.h"
#include "libember.h"
#include "libember_tests.h"
#include "uapi/emgpu_rm.h"

#define UVM_FD	7
#define RM_FD	8
#define MM_FD	9	/* the second open of /dev/nvidia-uvm: UVM_MM_INITIALIZE's */
#define MAX_CALLS 32

struct call {
	int fd;
	unsigned long cmd;
	unsigned char arg[128];
};

/* The fake's script and what it saw. */
struct fake {
	const char *version;		/* /sys/module/nvidia_uvm/version */
	const char *stats;		/* the glue's ember_stats; NULL: none (stock) */
	unsigned long fail_cmd;		/* answered with fail_status (uvm) or -fail_errno (rm) */
	uint32_t fail_status;
	int fail_errno;
	int launch_errno;		/* EMGPU_RM_LAUNCH's answer */
	uint64_t ptimer_ns;		/* EMGPU_RM_GPU_INFO's clock */
	uint64_t vram_free;		/* EMGPU_RM_GPU_INFO's free VRAM */
	struct call calls[MAX_CALLS];
	unsigned int ncalls;
	unsigned int uvm_opens;
	int closed[4];
	unsigned int nclosed;
};

static struct fake fk;

static const uint8_t gpu_uuid[16] = { 0x47, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
static const uint8_t cpu_uuid[16] = EM_UVM_CPU_UUID;

static size_t arg_size(unsigned long cmd)
{
	switch (cmd) {
	case EM_UVM_INITIALIZE: return sizeof(struct em_uvm_initialize);
	case EM_UVM_MM_INITIALIZE: return sizeof(struct em_uvm_mm_initialize);
	case EM_UVM_REGISTER_GPU: return sizeof(struct em_uvm_register_gpu);
	case EM_UVM_UNREGISTER_GPU: return sizeof(struct em_uvm_unregister_gpu);
	case EM_UVM_REGISTER_GPU_VASPACE: return sizeof(struct em_uvm_register_gpu_vaspace);
	case EM_UVM_UNREGISTER_GPU_VASPACE: return sizeof(struct em_uvm_unregister_gpu_vaspace);
	case EM_UVM_REGISTER_CHANNEL: return sizeof(struct em_uvm_register_channel);
	case EM_UVM_UNREGISTER_CHANNEL: return sizeof(struct em_uvm_unregister_channel);
	case EM_UVM_SET_PREFERRED_LOCATION: return 40;	/* both branches' */
	case EM_UVM_UNSET_PREFERRED_LOCATION: return sizeof(struct em_uvm_unset_preferred_location);
	case EM_UVM_SET_ACCESSED_BY:
	case EM_UVM_UNSET_ACCESSED_BY: return sizeof(struct em_uvm_accessed_by);
	case EM_UVM_MIGRATE: return sizeof(struct em_uvm_migrate);
	default: return _IOC_SIZE(cmd);
	}
}

/* Where each uvm call's rmStatus is. */
static uint32_t *rm_status_of(unsigned long cmd, void *arg)
{
	switch (cmd) {
	case EM_UVM_INITIALIZE: return &((struct em_uvm_initialize *)arg)->rm_status;
	case EM_UVM_MM_INITIALIZE: return &((struct em_uvm_mm_initialize *)arg)->rm_status;
	case EM_UVM_REGISTER_GPU: return &((struct em_uvm_register_gpu *)arg)->rm_status;
	case EM_UVM_UNREGISTER_GPU: return &((struct em_uvm_unregister_gpu *)arg)->rm_status;
	case EM_UVM_REGISTER_GPU_VASPACE:
		return &((struct em_uvm_register_gpu_vaspace *)arg)->rm_status;
	case EM_UVM_UNREGISTER_GPU_VASPACE:
		return &((struct em_uvm_unregister_gpu_vaspace *)arg)->rm_status;
	case EM_UVM_REGISTER_CHANNEL: return &((struct em_uvm_register_channel *)arg)->rm_status;
	case EM_UVM_UNREGISTER_CHANNEL:
		return &((struct em_uvm_unregister_channel *)arg)->rm_status;
	case EM_UVM_SET_PREFERRED_LOCATION:	/* the layout of the version in play */
		return !strncmp(fk.version, "535", 3) ?
		       &((struct em_uvm_set_preferred_location_535 *)arg)->rm_status :
		       &((struct em_uvm_set_preferred_location_550 *)arg)->rm_status;
	case EM_UVM_UNSET_PREFERRED_LOCATION:
		return &((struct em_uvm_unset_preferred_location *)arg)->rm_status;
	case EM_UVM_SET_ACCESSED_BY:
	case EM_UVM_UNSET_ACCESSED_BY: return &((struct em_uvm_accessed_by *)arg)->rm_status;
	case EM_UVM_MIGRATE: return &((struct em_uvm_migrate *)arg)->rm_status;
	default: return NULL;
	}
}

static int fake_open(const char *path, int flags)
{
	(void)flags;
	if (!strcmp(path, EM_UVM_DEVICE))
		return fk.uvm_opens++ ? MM_FD : UVM_FD;
	if (!strcmp(path, EMGPU_RM_DEVICE))
		return RM_FD;
	return -ENOENT;
}

static int fake_close(int fd)
{
	if (fk.nclosed < 4)
		fk.closed[fk.nclosed++] = fd;
	return 0;
}

static int fake_ioctl(int fd, unsigned long cmd, void *arg)
{
	struct call *c = &fk.calls[fk.ncalls < MAX_CALLS ? fk.ncalls++ : MAX_CALLS - 1];
	size_t n = arg_size(cmd);

	c->fd = fd;
	c->cmd = cmd;
	memcpy(c->arg, arg, n < sizeof(c->arg) ? n : sizeof(c->arg));
	if (fd == UVM_FD || fd == MM_FD) {
		uint32_t *st = rm_status_of(cmd, arg);

		if (!st)
			return -ENOTTY;
		*st = cmd == fk.fail_cmd ? fk.fail_status : EM_NV_OK;
		return 0;
	}
	if (cmd == fk.fail_cmd)
		return -fk.fail_errno;
	if (cmd == EMGPU_RM_GPU_INFO) {
		struct emgpu_rm_gpu_info *g = arg;

		memcpy(g->uuid, gpu_uuid, 16);
		g->vram_bytes = 64ull << 20;
		g->ptimer_ns = fk.ptimer_ns;
		g->vram_free_bytes = fk.vram_free;
		g->num_sms = 132;	/* an H200's */
		g->warps_per_sm = 4;
	} else if (cmd == EMGPU_RM_VA_SPACE_CREATE) {
		struct emgpu_rm_va_space *v = arg;

		v->h_client = 0xc1;
		v->h_va_space = 0xa5;
	} else if (cmd == EMGPU_RM_CHANNEL_CREATE) {
		struct emgpu_rm_channel *ch = arg;

		ch->h_channel = 0xc4;
		ch->hw_channel = 3;
	} else if (cmd == EMGPU_RM_LAUNCH) {
		struct emgpu_rm_launch *l = arg;

		l->sim_ns = 1000 + l->kernel;
		l->result = l->seed * 3;
		return -fk.launch_errno;
	}
	return 0;
}

static long fake_read_text(const char *path, char *buf, size_t len)
{
	const char *text = !strcmp(path, EM_UVM_VERSION_FILE) ? fk.version :
			   !strcmp(path, EM_NVUVM_STATS_FILE) ? fk.stats : NULL;

	if (!text)
		return -ENOENT;
	snprintf(buf, len, "%s", text);
	return (long)strlen(buf);
}

static const struct em_sys fake_sys = {
	.open = fake_open, .close = fake_close, .ioctl = fake_ioctl,
	.read_text = fake_read_text,
};

static void fake_reset(const char *version)
{
	memset(&fk, 0, sizeof(fk));
	fk.version = version;
}

/* A context opened on the fake with nvidia-uvm version; the calls forgotten. */
static int open_ctx(struct em_context *c, const char *version)
{
	int ret;

	fake_reset(version);
	memset(c, 0, sizeof(*c));
	c->sys = &fake_sys;
	c->map_fd = -1;
	ret = em_nvuvm_ops.open(c);
	fk.ncalls = 0;
	return ret;
}

static void *arg_of(unsigned int i)
{
	return fk.calls[i].arg;
}

/* ---- the driver's choice ---- */

static void test_backend_find(void)
{
	CU_ASSERT_PTR_EQUAL(em_backend_find("ember"), &em_ember_ops);
	CU_ASSERT_PTR_EQUAL(em_backend_find("nvidia-uvm"), &em_nvuvm_ops);
	CU_ASSERT_PTR_NULL(em_backend_find("nvidia"));
	CU_ASSERT_PTR_NULL(em_backend_find(""));
	CU_ASSERT_PTR_NULL(em_backend_find(NULL));
	CU_ASSERT_STRING_EQUAL(em_ember_ops.name, "ember");
	CU_ASSERT_STRING_EQUAL(em_nvuvm_ops.name, "nvidia-uvm");
}

/* Before any emSetDriver: $EMBER_DRIVER, else ember; then the explicit choice wins. */
static void test_driver_choice(void)
{
	unsetenv("EMBER_DRIVER");
	CU_ASSERT_STRING_EQUAL(emDriverName(), "ember");
	setenv("EMBER_DRIVER", "nvidia-uvm", 1);
	CU_ASSERT_STRING_EQUAL(emDriverName(), "nvidia-uvm");
	setenv("EMBER_DRIVER", "cuda", 1);
	CU_ASSERT_PTR_NULL(emDriverName());
	CU_ASSERT_EQUAL(emInit(), -EINVAL);	/* opens nothing */
	CU_ASSERT_EQUAL(emSetDriver("cuda"), -EINVAL);
	CU_ASSERT_EQUAL(emSetDriver("ember"), 0);
	CU_ASSERT_STRING_EQUAL(emDriverName(), "ember");
	CU_ASSERT_EQUAL(emSetDriver("nvidia-uvm"), 0);
	CU_ASSERT_STRING_EQUAL(emDriverName(), "nvidia-uvm");
	unsetenv("EMBER_DRIVER");
}

/* ---- pure mappings ---- */

static void test_abi_of_version(void)
{
	enum em_uvm_abi abi = EM_UVM_ABI_535;

	CU_ASSERT_EQUAL(em_uvm_abi_of_version("550.163.01\n", &abi), 0);
	CU_ASSERT_EQUAL(abi, EM_UVM_ABI_550);
	CU_ASSERT_EQUAL(em_uvm_abi_of_version("535.261.03", &abi), 0);
	CU_ASSERT_EQUAL(abi, EM_UVM_ABI_535);
	CU_ASSERT_EQUAL(em_uvm_abi_of_version("580.142", &abi), 0);
	CU_ASSERT_EQUAL(abi, EM_UVM_ABI_550);
	abi = EM_UVM_ABI_535;
	CU_ASSERT_EQUAL(em_uvm_abi_of_version("590.44.01", &abi), -ENOTSUP);
	CU_ASSERT_EQUAL(em_uvm_abi_of_version("470.1", &abi), -ENOTSUP);
	CU_ASSERT_EQUAL(em_uvm_abi_of_version("550x", &abi), -ENOTSUP);
	CU_ASSERT_EQUAL(em_uvm_abi_of_version("", &abi), -ENOTSUP);
	CU_ASSERT_EQUAL(em_uvm_abi_of_version(NULL, &abi), -ENOTSUP);
	CU_ASSERT_EQUAL(abi, EM_UVM_ABI_535);	/* a refused version leaves it */
}

static void test_status_errno(void)
{
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_OK), 0);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_INVALID_ADDRESS), -EFAULT);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_INVALID_ARGUMENT), -EINVAL);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_OUT_OF_RANGE), -EINVAL);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_INVALID_DEVICE), -ENODEV);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_GPU_UUID_NOT_FOUND), -ENODEV);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_NO_MEMORY), -ENOMEM);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_NOT_SUPPORTED), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_UVM_ADDRESS_IN_USE), -EBUSY);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_ILLEGAL_ACTION), -EBADFD);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_TIMEOUT), -ETIMEDOUT);
	CU_ASSERT_EQUAL(em_uvm_status_errno(EM_NV_ERR_INVALID_STATE), -EIO);
	CU_ASSERT_EQUAL(em_uvm_status_errno(0x12345678), -EIO);
}

static void test_launch_errno(void)
{
	bool d = true;

	CU_ASSERT_EQUAL(em_rm_launch_errno(0, &d), 0);
	CU_ASSERT_FALSE(d);
	CU_ASSERT_EQUAL(em_rm_launch_errno(EFAULT, &d), -EFAULT);
	CU_ASSERT_TRUE(d);
	CU_ASSERT_EQUAL(em_rm_launch_errno(EIO, &d), -EIO);
	CU_ASSERT_TRUE(d);
	CU_ASSERT_EQUAL(em_rm_launch_errno(ETIMEDOUT, &d), -ETIMEDOUT);
	CU_ASSERT_TRUE(d);
	CU_ASSERT_EQUAL(em_rm_launch_errno(ENOENT, &d), -ENODEV);
	CU_ASSERT_FALSE(d);
	CU_ASSERT_EQUAL(em_rm_launch_errno(EINVAL, &d), -EINVAL);
	CU_ASSERT_FALSE(d);
}

/* ---- a context's making and undoing ---- */

static void test_open_sequence(void)
{
	struct em_context c;
	struct em_uvm_mm_initialize *mm;
	struct em_uvm_register_gpu *rg;
	struct em_uvm_register_gpu_vaspace *rv;
	struct emgpu_rm_channel *ch;
	struct em_uvm_register_channel *rc;
	static const unsigned long want[] = {
		EM_UVM_INITIALIZE, EM_UVM_MM_INITIALIZE, EMGPU_RM_GPU_INFO, EM_UVM_REGISTER_GPU,
		EMGPU_RM_VA_SPACE_CREATE, EM_UVM_REGISTER_GPU_VASPACE,
		EMGPU_RM_CHANNEL_CREATE, EM_UVM_REGISTER_CHANNEL,
	};
	static const int want_fd[] = {
		UVM_FD, MM_FD, RM_FD, UVM_FD, RM_FD, UVM_FD, RM_FD, UVM_FD,
	};
	unsigned int i;

	fake_reset("550.163.01");
	memset(&c, 0, sizeof(c));
	c.sys = &fake_sys;
	c.map_fd = -1;
	CU_ASSERT_EQUAL_FATAL(em_nvuvm_ops.open(&c), 0);
	CU_ASSERT_EQUAL(c.map_fd, UVM_FD);
	CU_ASSERT_EQUAL_FATAL(fk.ncalls, 8);
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(fk.calls[i].cmd, want[i]);
		CU_ASSERT_EQUAL(fk.calls[i].fd, want_fd[i]);
	}
	/* the second fd names the VA space's, and stays open */
	mm = arg_of(1);
	CU_ASSERT_EQUAL(mm->uvm_fd, UVM_FD);
	CU_ASSERT_EQUAL(fk.nclosed, 0);
	rg = arg_of(3);
	CU_ASSERT_EQUAL(memcmp(rg->gpu.uuid, gpu_uuid, 16), 0);
	CU_ASSERT_EQUAL(rg->rm_ctrl_fd, -1);
	CU_ASSERT_EQUAL(rg->h_client, 0);
	rv = arg_of(5);
	CU_ASSERT_EQUAL(memcmp(rv->gpu.uuid, gpu_uuid, 16), 0);
	CU_ASSERT_EQUAL(rv->h_client, 0xc1);
	CU_ASSERT_EQUAL(rv->h_va_space, 0xa5);
	CU_ASSERT_EQUAL(rv->rm_ctrl_fd, RM_FD);
	ch = arg_of(6);
	CU_ASSERT_EQUAL(ch->h_client, 0xc1);
	CU_ASSERT_EQUAL(ch->h_va_space, 0xa5);
	rc = arg_of(7);
	CU_ASSERT_EQUAL(rc->h_client, 0xc1);
	CU_ASSERT_EQUAL(rc->h_channel, 0xc4);
	CU_ASSERT_EQUAL(rc->rm_ctrl_fd, RM_FD);
	CU_ASSERT_EQUAL(rc->base, 0);
	CU_ASSERT_EQUAL(rc->length, 0);
	/* undone in reverse, the RM objects after nvidia-uvm let go of them */
	fk.ncalls = 0;
	em_nvuvm_ops.close(&c);
	CU_ASSERT_EQUAL_FATAL(fk.ncalls, 5);
	CU_ASSERT_EQUAL(fk.calls[0].cmd, EM_UVM_UNREGISTER_CHANNEL);
	CU_ASSERT_EQUAL(fk.calls[1].cmd, EM_UVM_UNREGISTER_GPU_VASPACE);
	CU_ASSERT_EQUAL(fk.calls[2].cmd, EM_UVM_UNREGISTER_GPU);
	CU_ASSERT_EQUAL(fk.calls[3].cmd, EMGPU_RM_FREE);
	CU_ASSERT_EQUAL(((struct emgpu_rm_free *)arg_of(3))->handle, 0xc4);
	CU_ASSERT_EQUAL(fk.calls[4].cmd, EMGPU_RM_FREE);
	CU_ASSERT_EQUAL(((struct emgpu_rm_free *)arg_of(4))->handle, 0xa5);
	CU_ASSERT_EQUAL(((struct emgpu_rm_free *)arg_of(4))->h_client, 0xc1);
	/* the mm fd before the VA space's fd it holds */
	CU_ASSERT_EQUAL_FATAL(fk.nclosed, 3);
	CU_ASSERT_EQUAL(fk.closed[0], MM_FD);
	CU_ASSERT_EQUAL(fk.closed[1], UVM_FD);
	CU_ASSERT_EQUAL(fk.closed[2], RM_FD);
	CU_ASSERT_EQUAL(c.map_fd, -1);
	CU_ASSERT_PTR_NULL(c.be);
}

/* UVM_MM_INITIALIZE: where nvidia-uvm needs no mm fd it goes at once; a refusal fails the open. */
static void test_open_mm_fd(void)
{
	struct em_context c;

	memset(&c, 0, sizeof(c));
	fake_reset("535.261.03");
	fk.fail_cmd = EM_UVM_MM_INITIALIZE;
	fk.fail_status = EM_NV_WARN_NOTHING_TO_DO;
	c.sys = &fake_sys;
	c.map_fd = -1;
	CU_ASSERT_EQUAL_FATAL(em_nvuvm_ops.open(&c), 0);
	CU_ASSERT_EQUAL(fk.ncalls, 8);
	CU_ASSERT_EQUAL_FATAL(fk.nclosed, 1);
	CU_ASSERT_EQUAL(fk.closed[0], MM_FD);
	em_nvuvm_ops.close(&c);
	CU_ASSERT_EQUAL_FATAL(fk.nclosed, 3);
	CU_ASSERT_EQUAL(fk.closed[1], UVM_FD);
	CU_ASSERT_EQUAL(fk.closed[2], RM_FD);

	/* another process's VA space fd, or a second time: refused, nothing registered */
	fake_reset("550.163.01");
	fk.fail_cmd = EM_UVM_MM_INITIALIZE;
	fk.fail_status = EM_NV_ERR_IN_USE;
	CU_ASSERT_EQUAL(em_nvuvm_ops.open(&c), -EBUSY);
	CU_ASSERT_EQUAL(fk.ncalls, 2);
	CU_ASSERT_EQUAL(fk.nclosed, 3);
	CU_ASSERT_PTR_NULL(c.be);
}

/* A failed step undoes exactly the steps before it. */
static void test_open_fails(void)
{
	struct em_context c;

	memset(&c, 0, sizeof(c));
	fake_reset("550.163.01");
	fk.fail_cmd = EM_UVM_REGISTER_GPU_VASPACE;
	fk.fail_status = EM_NV_ERR_INVALID_DEVICE;
	c.sys = &fake_sys;
	c.map_fd = -1;
	CU_ASSERT_EQUAL(em_nvuvm_ops.open(&c), -ENODEV);
	CU_ASSERT_EQUAL_FATAL(fk.ncalls, 8);
	CU_ASSERT_EQUAL(fk.calls[6].cmd, EM_UVM_UNREGISTER_GPU);
	CU_ASSERT_EQUAL(fk.calls[7].cmd, EMGPU_RM_FREE);
	CU_ASSERT_EQUAL(((struct emgpu_rm_free *)arg_of(7))->handle, 0xa5);
	CU_ASSERT_EQUAL(fk.nclosed, 3);
	CU_ASSERT_PTR_NULL(c.be);
	CU_ASSERT_EQUAL(c.map_fd, -1);

	/* the stand-in refuses the channel: errno as it gave it */
	fake_reset("535.261.03");
	fk.fail_cmd = EMGPU_RM_CHANNEL_CREATE;
	fk.fail_errno = ENOSPC;
	CU_ASSERT_EQUAL(em_nvuvm_ops.open(&c), -ENOSPC);
	CU_ASSERT_EQUAL(fk.calls[fk.ncalls - 3].cmd, EM_UVM_UNREGISTER_GPU_VASPACE);

	/* nvidia-uvm not loaded: no version file */
	fake_reset(NULL);
	CU_ASSERT_EQUAL(em_nvuvm_ops.open(&c), -ENODEV);
	CU_ASSERT_EQUAL(fk.ncalls, 0);
	/* a branch not checked: refused before any call */
	fake_reset("590.44.01");
	CU_ASSERT_EQUAL(em_nvuvm_ops.open(&c), -ENOTSUP);
	CU_ASSERT_EQUAL(fk.ncalls, 0);
	CU_ASSERT_EQUAL(fk.nclosed, 3);
}

/* ---- advice and prefetch ---- */

static void test_advise_550(void)
{
	struct em_context c;
	struct em_uvm_set_preferred_location_550 *p;
	struct em_uvm_accessed_by *by;
	struct em_uvm_unset_preferred_location *u;

	CU_ASSERT_EQUAL_FATAL(open_ctx(&c, "550.163.01"), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0x400000,
					    EMBER_ADVISE_SET_PREFERRED_LOCATION,
					    EMBER_PROC_CPU), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0x1000,
					    EMBER_ADVISE_SET_PREFERRED_LOCATION,
					    EMBER_PROC_GPU), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0x1000,
					    EMBER_ADVISE_SET_ACCESSED_BY, EMBER_PROC_GPU), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0x1000,
					    EMBER_ADVISE_UNSET_ACCESSED_BY, EMBER_PROC_CPU), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x600000, 0x2000,
					    EMBER_ADVISE_UNSET_PREFERRED_LOCATION,
					    EMBER_PROC_NONE), 0);
	CU_ASSERT_EQUAL_FATAL(fk.ncalls, 5);
	p = arg_of(0);
	CU_ASSERT_EQUAL(fk.calls[0].cmd, EM_UVM_SET_PREFERRED_LOCATION);
	CU_ASSERT_EQUAL(p->base, 0x200000);
	CU_ASSERT_EQUAL(p->length, 0x400000);
	CU_ASSERT_EQUAL(memcmp(p->location.uuid, cpu_uuid, 16), 0);
	CU_ASSERT_EQUAL(p->cpu_numa_node, -1);
	CU_ASSERT_EQUAL(memcmp(((struct em_uvm_set_preferred_location_550 *)arg_of(1))->
			       location.uuid, gpu_uuid, 16), 0);
	by = arg_of(2);
	CU_ASSERT_EQUAL(fk.calls[2].cmd, EM_UVM_SET_ACCESSED_BY);
	CU_ASSERT_EQUAL(memcmp(by->processor.uuid, gpu_uuid, 16), 0);
	by = arg_of(3);
	CU_ASSERT_EQUAL(fk.calls[3].cmd, EM_UVM_UNSET_ACCESSED_BY);
	CU_ASSERT_EQUAL(memcmp(by->processor.uuid, cpu_uuid, 16), 0);
	u = arg_of(4);
	CU_ASSERT_EQUAL(fk.calls[4].cmd, EM_UVM_UNSET_PREFERRED_LOCATION);
	CU_ASSERT_EQUAL(u->base, 0x600000);
	CU_ASSERT_EQUAL(u->length, 0x2000);
	/* refused before any call: no processor, a processor for unset, zero length */
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0x1000,
					    EMBER_ADVISE_SET_ACCESSED_BY, EMBER_PROC_NONE), -EINVAL);
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0x1000,
					    EMBER_ADVISE_UNSET_PREFERRED_LOCATION,
					    EMBER_PROC_GPU), -EINVAL);
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0, EMBER_ADVISE_SET_ACCESSED_BY,
					    EMBER_PROC_GPU), -EINVAL);
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0x1000, 9, EMBER_PROC_GPU), -EINVAL);
	CU_ASSERT_EQUAL(fk.ncalls, 5);
	/* nvidia-uvm's answer: an address outside every managed range */
	fk.fail_cmd = EM_UVM_SET_ACCESSED_BY;
	fk.fail_status = EM_NV_ERR_INVALID_ADDRESS;
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x1000, 0x1000, EMBER_ADVISE_SET_ACCESSED_BY,
					    EMBER_PROC_GPU), -EFAULT);
	em_nvuvm_ops.close(&c);
}

/* 535's layout: rmStatus where 550 has the NUMA node. */
static void test_advise_535(void)
{
	struct em_context c;
	struct em_uvm_set_preferred_location_535 *p;
	uint32_t word;

	CU_ASSERT_EQUAL_FATAL(open_ctx(&c, "535.261.03"), 0);
	fk.fail_cmd = EM_UVM_SET_PREFERRED_LOCATION;
	fk.fail_status = EM_NV_ERR_INVALID_DEVICE;	/* read where 535 writes it */
	CU_ASSERT_EQUAL(em_nvuvm_ops.advise(&c, 0x200000, 0x200000,
					    EMBER_ADVISE_SET_PREFERRED_LOCATION,
					    EMBER_PROC_GPU), -ENODEV);
	p = arg_of(0);
	CU_ASSERT_EQUAL(memcmp(p->location.uuid, gpu_uuid, 16), 0);
	memcpy(&word, fk.calls[0].arg + 32, 4);
	CU_ASSERT_EQUAL(word, 0);	/* rmStatus in, not a NUMA node of -1 */
	memcpy(&word, fk.calls[0].arg + 36, 4);
	CU_ASSERT_EQUAL(word, 0);
	em_nvuvm_ops.close(&c);
}

static void test_prefetch(void)
{
	struct em_context c;
	struct em_uvm_migrate *mg;

	CU_ASSERT_EQUAL_FATAL(open_ctx(&c, "550.163.01"), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.prefetch(&c, 0x400000, 0x600000, EMBER_PROC_GPU), 0);
	mg = arg_of(0);
	CU_ASSERT_EQUAL(fk.calls[0].cmd, EM_UVM_MIGRATE);
	CU_ASSERT_EQUAL(mg->base, 0x400000);
	CU_ASSERT_EQUAL(mg->length, 0x600000);
	CU_ASSERT_EQUAL(memcmp(mg->destination.uuid, gpu_uuid, 16), 0);
	CU_ASSERT_EQUAL(mg->flags, 0);
	CU_ASSERT_EQUAL(mg->semaphore_address, 0);
	CU_ASSERT_EQUAL(mg->cpu_numa_node, -1);
	CU_ASSERT_EQUAL(em_nvuvm_ops.prefetch(&c, 0x400000, 0x200000, EMBER_PROC_CPU), 0);
	CU_ASSERT_EQUAL(memcmp(((struct em_uvm_migrate *)arg_of(1))->destination.uuid,
			       cpu_uuid, 16), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.prefetch(&c, 0x400000, 0x1000, EMBER_PROC_NONE), -EINVAL);
	fk.fail_cmd = EM_UVM_MIGRATE;
	fk.fail_status = EM_NV_ERR_NO_MEMORY;
	CU_ASSERT_EQUAL(em_nvuvm_ops.prefetch(&c, 0x400000, 0x1000, EMBER_PROC_GPU), -ENOMEM);
	em_nvuvm_ops.close(&c);
}

/* Free VRAM is what the stand-in's PMA has free, asked each time, never a tally of prefetches. */
static void test_mem_info(void)
{
	struct em_context c;
	struct ember_mem_info m = { 0 };

	CU_ASSERT_EQUAL_FATAL(open_ctx(&c, "550.163.01"), 0);
	fk.vram_free = 40ull << 20;
	CU_ASSERT_EQUAL(em_nvuvm_ops.mem_info(&c, &m), 0);
	CU_ASSERT_EQUAL(fk.calls[0].cmd, EMGPU_RM_GPU_INFO);
	CU_ASSERT_EQUAL(m.total, 64ull << 20);
	CU_ASSERT_EQUAL(m.free, 40ull << 20);
	CU_ASSERT_EQUAL(em_nvuvm_ops.prefetch(&c, 0x400000, 0x600000, EMBER_PROC_GPU), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.mem_info(&c, &m), 0);
	CU_ASSERT_EQUAL(m.free, 40ull << 20);
	fk.vram_free = 0;
	CU_ASSERT_EQUAL(em_nvuvm_ops.mem_info(&c, &m), 0);
	CU_ASSERT_EQUAL(m.free, 0);
	CU_ASSERT_EQUAL(m.total, 64ull << 20);
	m.gpu_index = 1;
	CU_ASSERT_EQUAL(em_nvuvm_ops.mem_info(&c, &m), -EINVAL);
	m.gpu_index = 0;
	fk.fail_cmd = EMGPU_RM_GPU_INFO;
	fk.fail_errno = ENODEV;
	CU_ASSERT_EQUAL(em_nvuvm_ops.mem_info(&c, &m), -ENODEV);
	em_nvuvm_ops.close(&c);
}

/* ---- launches ---- */

static void test_launch(void)
{
	struct em_context c;
	struct ember_launch l = { .kernel = EMBER_KERNEL_STREAM, .warps = 4, .seed = 5,
				  .args = { 0x200000, 0x400000, 2 } };
	struct ember_synchronize s = { 0 };
	struct emgpu_rm_launch *rl;
	struct ember_stats st = { 0 };
	struct ember_stats_counters valid;

	CU_ASSERT_EQUAL_FATAL(open_ctx(&c, "550.163.01"), 0);
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), 0);
	CU_ASSERT_EQUAL(l.launch_id, 1);
	rl = arg_of(0);
	CU_ASSERT_EQUAL(fk.calls[0].cmd, EMGPU_RM_LAUNCH);
	CU_ASSERT_EQUAL(fk.calls[0].fd, RM_FD);
	CU_ASSERT_EQUAL(rl->h_client, 0xc1);
	CU_ASSERT_EQUAL(rl->h_channel, 0xc4);
	CU_ASSERT_EQUAL(rl->kernel, EMBER_KERNEL_STREAM);
	CU_ASSERT_EQUAL(rl->warps, 4);
	CU_ASSERT_EQUAL(rl->seed, 5);
	CU_ASSERT_EQUAL(rl->args[0], 0x200000);
	CU_ASSERT_EQUAL(rl->args[1], 0x400000);
	CU_ASSERT_EQUAL(rl->args[2], 2);
	CU_ASSERT_EQUAL(rl->timeout_ms, 600000);	/* ember.ko's launch_timeout_ms */
	CU_ASSERT_EQUAL(em_nvuvm_ops.synchronize(&c, &s), 0);
	CU_ASSERT_EQUAL(s.launch_id, 1);
	CU_ASSERT_EQUAL(s.sim_ns, 1001);
	CU_ASSERT_EQUAL(s.result, 15);

	/* a launch nvidia-uvm cancelled: the launch call succeeds, synchronize says EFAULT once */
	fk.launch_errno = EFAULT;
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), 0);
	CU_ASSERT_EQUAL(l.launch_id, 2);
	fk.launch_errno = 0;
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), 0);	/* the first failure is kept */
	CU_ASSERT_EQUAL(em_nvuvm_ops.synchronize(&c, &s), -EFAULT);
	CU_ASSERT_EQUAL(s.launch_id, 3);
	CU_ASSERT_EQUAL(em_nvuvm_ops.synchronize(&c, &s), 0);

	/* EMBER_LAUNCH_SYNC: the outcome at once, not again at synchronize */
	fk.launch_errno = EIO;
	l.flags = EMBER_LAUNCH_SYNC;
	l.sim_ns = l.result = 0;
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), -EIO);
	CU_ASSERT_EQUAL(l.sim_ns, 1001);
	CU_ASSERT_EQUAL(l.result, 15);
	CU_ASSERT_EQUAL(em_nvuvm_ops.synchronize(&c, &s), 0);

	/* refused: by the stand-in (no launch counted) or before it */
	fk.launch_errno = ENOENT;
	l.flags = 0;
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), -ENODEV);
	fk.launch_errno = EINVAL;
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), -EINVAL);
	fk.ncalls = 0;
	l.flags = 1u << 5;
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), -EINVAL);
	l.flags = 0;
	l.pad = 1;
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), -EINVAL);
	l.pad = 0;
	l.kernel = 0;
	CU_ASSERT_EQUAL(em_nvuvm_ops.launch(&c, &l), -EINVAL);
	CU_ASSERT_EQUAL(fk.ncalls, 0);
	s.flags = 1;
	CU_ASSERT_EQUAL(em_nvuvm_ops.synchronize(&c, &s), -EINVAL);

	/* counted: 4 launches ran (2 failed), their modelled time; the rest not counted */
	memset(&valid, 0xff, sizeof(valid));
	CU_ASSERT_EQUAL(em_nvuvm_ops.stats(&c, &st, &valid), 0);
	CU_ASSERT_EQUAL(st.c.launches, 4);
	CU_ASSERT_EQUAL(st.c.launches_failed, 2);
	CU_ASSERT_EQUAL(st.c.launch_sim_ns, 4 * 1001);
	CU_ASSERT_EQUAL(st.c.last_launch_sim_ns, 1001);
	CU_ASSERT_EQUAL(st.c.faults, 0);
	CU_ASSERT_EQUAL(valid.launches, 1);
	CU_ASSERT_EQUAL(valid.launches_failed, 1);
	CU_ASSERT_EQUAL(valid.launch_sim_ns, 1);
	CU_ASSERT_EQUAL(valid.last_launch_sim_ns, 1);
	CU_ASSERT_EQUAL(valid.faults, 0);
	CU_ASSERT_EQUAL(valid.bytes_h2d, 0);
	CU_ASSERT_EQUAL(valid.prefetch_ioctl_bytes, 0);
	CU_ASSERT_EQUAL(valid.hook_calls[0], 0);
	st.scope = 2;
	CU_ASSERT_EQUAL(em_nvuvm_ops.stats(&c, &st, NULL), -EINVAL);
	CU_ASSERT_EQUAL(em_nvuvm_ops.set_policy(&c, "ember"), -EOPNOTSUPP);
	em_nvuvm_ops.close(&c);
}

/* The device clock and the SMs from the stand-in (EMGPU_RM_GPU_INFO), read
 * at each call: a trace replay sizes its launches by the SMs. */
static void test_device_info(void)
{
	struct em_context c;
	struct ember_device_info info;

	CU_ASSERT_EQUAL_FATAL(open_ctx(&c, "550.163.01"), 0);
	fk.ptimer_ns = 0x1289abcdefull;
	memset(&info, 0, sizeof(info));
	CU_ASSERT_EQUAL(em_nvuvm_ops.device_info(&c, &info), 0);
	CU_ASSERT_EQUAL(fk.ncalls, 1);
	CU_ASSERT_EQUAL(fk.calls[0].cmd, EMGPU_RM_GPU_INFO);
	CU_ASSERT_EQUAL(fk.calls[0].fd, RM_FD);
	CU_ASSERT_EQUAL(info.ptimer_ns, 0x1289abcdefull);
	CU_ASSERT_EQUAL(info.vram_size, 64ull << 20);
	CU_ASSERT_EQUAL(info.num_gpus, 1);
	CU_ASSERT_EQUAL(info.abi_version, EMBER_ABI_VERSION);
	CU_ASSERT_EQUAL(info.num_sms, 132);
	CU_ASSERT_EQUAL(info.warps_per_sm, 4);
	fk.ptimer_ns += 5000;
	CU_ASSERT_EQUAL(em_nvuvm_ops.device_info(&c, &info), 0);
	CU_ASSERT_EQUAL(info.ptimer_ns, 0x1289abcdefull + 5000);
	/* the stand-in gone: its errno */
	fk.fail_cmd = EMGPU_RM_GPU_INFO;
	fk.fail_errno = ENODEV;
	CU_ASSERT_EQUAL(em_nvuvm_ops.device_info(&c, &info), -ENODEV);
	em_nvuvm_ops.close(&c);
}

/* ---- the glue's counters (ember_stats) ---- */

static void test_stats_parse(void)
{
	struct ember_stats_counters c, v;

	CU_ASSERT_EQUAL(em_nvuvm_stats_parse("notifications 12\npromotions 3\n"
					     "promoted_bytes 6291456\npromotions_halted 0\n"
					     "evictions 7\npages_evicted 3584\neager_evictions 2\n"
					     "hook_calls.init 1\nhook_calls.on_notification 12\n"
					     "hook_calls.on_evict 7\n", &c, &v), 0);
	CU_ASSERT_EQUAL(c.notifications, 12);
	CU_ASSERT_EQUAL(c.promotions, 3);
	CU_ASSERT_EQUAL(c.promoted_bytes, 6291456);
	CU_ASSERT_EQUAL(c.promotions_halted, 0);
	CU_ASSERT_EQUAL(c.evictions, 7);
	CU_ASSERT_EQUAL(c.pages_evicted, 3584);
	CU_ASSERT_EQUAL(c.eager_evictions, 2);
	CU_ASSERT_EQUAL(c.hook_calls[EMBER_HOOK_INIT], 1);
	CU_ASSERT_EQUAL(c.hook_calls[EMBER_HOOK_NOTIFICATION], 12);
	CU_ASSERT_EQUAL(c.hook_calls[EMBER_HOOK_EVICT], 7);
	CU_ASSERT_EQUAL(c.hook_calls[EMBER_HOOK_FINI], 0);
	/* named: valid, a 0 too; not named: not */
	CU_ASSERT_EQUAL(v.promotions_halted, 1);
	CU_ASSERT_EQUAL(v.hook_calls[EMBER_HOOK_INIT], 1);
	CU_ASSERT_EQUAL(v.hook_calls[EMBER_HOOK_EVICT], 1);
	CU_ASSERT_EQUAL(v.hook_calls[EMBER_HOOK_FINI], 0);
	CU_ASSERT_EQUAL(v.faults, 0);
	CU_ASSERT_EQUAL(v.launches, 0);
	/* the largest u64, no final newline, and names it does not know skipped */
	CU_ASSERT_EQUAL(em_nvuvm_stats_parse("future_counter 5\nhook_calls.on_other 1\n"
					     "faults 9\nevictions 18446744073709551615", &c, &v), 0);
	CU_ASSERT_EQUAL(c.evictions, UINT64_MAX);
	CU_ASSERT_EQUAL(v.evictions, 1);
	CU_ASSERT_EQUAL(c.faults, 0);	/* the device's, not the glue's */
	CU_ASSERT_EQUAL(v.faults, 0);
	CU_ASSERT_EQUAL(v.notifications, 0);
	CU_ASSERT_EQUAL(em_nvuvm_stats_parse("", &c, &v), 0);
	CU_ASSERT_EQUAL(v.evictions, 0);
	/* malformed: each line alone */
	static const char *const bad[] = {
		"evictions\n", "evictions \n", " evictions 1\n", "evictions  1\n",
		"evictions 1 \n", "evictions -1\n", "evictions +1\n", "evictions 0x10\n",
		"evictions 1k\n", "evictions 18446744073709551616\n", "\n", "evictions 1\n\n",
		"evictions 1\nevictions 2\n", "future 1 2\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(em_nvuvm_stats_parse(bad[i], &c, &v), -EPROTO);
}

/* The difference since open, marked valid; the stock module's absent file: not counted. */
static void test_stats_glue(void)
{
	struct em_context c;
	struct ember_stats st = { 0 };
	struct ember_stats_counters valid;

	fake_reset("550.163.01");
	fk.stats = "notifications 100\nevictions 4\nhook_calls.on_notification 100\n";
	memset(&c, 0, sizeof(c));
	c.sys = &fake_sys;
	CU_ASSERT_EQUAL_FATAL(em_nvuvm_ops.open(&c), 0);
	fk.stats = "notifications 130\nevictions 4\nhook_calls.on_notification 130\n"
		   "promotions 9\n";
	CU_ASSERT_EQUAL(em_nvuvm_ops.stats(&c, &st, &valid), 0);
	CU_ASSERT_EQUAL(st.c.notifications, 30);
	CU_ASSERT_EQUAL(st.c.evictions, 0);
	CU_ASSERT_EQUAL(st.c.hook_calls[EMBER_HOOK_NOTIFICATION], 30);
	CU_ASSERT_EQUAL(valid.notifications, 1);
	CU_ASSERT_EQUAL(valid.evictions, 1);
	CU_ASSERT_EQUAL(valid.hook_calls[EMBER_HOOK_NOTIFICATION], 1);
	CU_ASSERT_EQUAL(valid.launches, 1);
	/* not there at open: no base to count from */
	CU_ASSERT_EQUAL(st.c.promotions, 0);
	CU_ASSERT_EQUAL(valid.promotions, 0);
	CU_ASSERT_EQUAL(valid.pages_evicted, 0);
	CU_ASSERT_EQUAL(valid.faults, 0);
	/* a counter that went back, or went away, or a malformed file: EPROTO */
	fk.stats = "notifications 99\nevictions 4\nhook_calls.on_notification 130\n";
	CU_ASSERT_EQUAL(em_nvuvm_ops.stats(&c, &st, &valid), -EPROTO);
	fk.stats = "notifications 130\nhook_calls.on_notification 130\n";
	CU_ASSERT_EQUAL(em_nvuvm_ops.stats(&c, &st, &valid), -EPROTO);
	fk.stats = "notifications 130\nevictions x\n";
	CU_ASSERT_EQUAL(em_nvuvm_ops.stats(&c, &st, &valid), -EPROTO);
	em_nvuvm_ops.close(&c);

	/* Debian's module: no file, none of the glue's counters */
	CU_ASSERT_EQUAL_FATAL(open_ctx(&c, "535.261.03"), 0);
	memset(&valid, 0xff, sizeof(valid));
	CU_ASSERT_EQUAL(em_nvuvm_ops.stats(&c, &st, &valid), 0);
	CU_ASSERT_EQUAL(valid.notifications, 0);
	CU_ASSERT_EQUAL(valid.evictions, 0);
	CU_ASSERT_EQUAL(valid.hook_calls[EMBER_HOOK_NOTIFICATION], 0);
	CU_ASSERT_EQUAL(valid.launches, 1);
	em_nvuvm_ops.close(&c);

	/* malformed at open: the context is not made */
	fake_reset("550.163.01");
	fk.stats = "notifications\n";
	CU_ASSERT_EQUAL(em_nvuvm_ops.open(&c), -EPROTO);
	CU_ASSERT_PTR_NULL(c.be);
}

int main(void)
{
	static const struct {
		const char *name;
		CU_TestFunc fn;
	} tests[] = {
		{ "backend_find", test_backend_find },
		{ "driver_choice", test_driver_choice },
		{ "abi_of_version", test_abi_of_version },
		{ "status_errno", test_status_errno },
		{ "launch_errno", test_launch_errno },
		{ "nvuvm_open_sequence", test_open_sequence },
		{ "nvuvm_open_mm_fd", test_open_mm_fd },
		{ "nvuvm_open_fails", test_open_fails },
		{ "nvuvm_advise_550", test_advise_550 },
		{ "nvuvm_advise_535", test_advise_535 },
		{ "nvuvm_prefetch", test_prefetch },
		{ "nvuvm_mem_info", test_mem_info },
		{ "nvuvm_launch", test_launch },
		{ "nvuvm_device_info", test_device_info },
		{ "nvuvm_stats_parse", test_stats_parse },
		{ "nvuvm_stats_glue", test_stats_glue },
	};
	CU_pSuite s;
	unsigned int failed, i;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("libember", NULL, NULL);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		CU_add_test(s, tests[i].name, tests[i].fn);
	add_runner_suite();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
