// SPDX-License-Identifier: GPL-2.0
/*
 * uvm-launch-test: what libcuda does to run a kernel on managed memory,
 * against nvidia-uvm and the resource-manager stand-in's /dev/emgpu-rm
 * (include/uapi/emgpu_rm.h), one KTAP line a step:
 *   UVM_INITIALIZE and UVM_MM_INITIALIZE (a second fd pinning the mm), and
 *   UVM_REGISTER_GPU with the UUID EMGPU_RM_GPU_INFO gives;
 *   an RM VA space and a compute channel in it; a launch before nvidia-uvm
 *   has the VA space is EINVAL; UVM_REGISTER_GPU_VASPACE and
 *   UVM_REGISTER_CHANNEL with the stand-in's handles; a managed range (mmap
 *   of the UVM fd at offset = address) the CPU fills; the STREAM kernel on
 *   it (its faults serviced by nvidia-uvm: fault_stats counts them), its
 *   result the sum of the words it read; UVM_TEST_VA_RESIDENCY_INFO; the
 *   CPU reads back every word + passes; a launch outside any range is
 *   cancelled (EFAULT); another open file's handles are ENOENT; the
 *   per-open limits are EDQUOT; everything unregistered and freed.
 * With --ember (nvidia-uvm under Ember-adaptive: managed ranges mapped by
 * default), the launch takes no replayable fault: the GPU reads the host
 * pages remotely and the core promotes them on the access counters'
 * notifications, so they end resident on the GPU too; without, the GPU's
 * faults migrate them there.
 *
 * usage: uvm-launch-test [--ember] [UVM_DEVICE]   (default /dev/nvidia-uvm)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uvm_linux_ioctl.h"
#include "uvm_test_ioctl.h"
#include "uvm-user.h"

#define PLANNED		35
#define VA_BLOCK_BYTES	UVM_VA_BLOCK_BYTES
#define STREAM_BYTES	(512ull << 10)	/* 128 pages of 4K */
#define STREAM_PASSES	2
#define LAUNCH_TIMEOUT_MS 300000	/* TCG, a loaded host */

static unsigned int n, failed, skipped;
/* set when the device refuses launches on channels: what needs one skips */
static const char *no_launches;

static void vverdict(bool ok, const char *name, const char *fmt, va_list ap)
{
	n++;
	printf("%sok %u %s\n", ok ? "" : "not ", n, name);
	if (ok)
		return;
	failed++;
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
}

static void verdict(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vverdict(ok, name, fmt, ap);
	va_end(ap);
}

/* A verdict that needs the device to run launches. */
static void launch_verdict(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (no_launches) {
		n++;
		skipped++;
		printf("ok %u %s # SKIP %s\n", n, name, no_launches);
		return;
	}
	va_start(ap, fmt);
	vverdict(ok, name, fmt, ap);
	va_end(ap);
}

/* A UVM ioctl: 0 and rmStatus NV_OK, or why not in @why. */
static bool uvm(int fd, unsigned long cmd, void *params, const NV_STATUS *status, char *why,
		size_t len)
{
	if (ioctl(fd, cmd, params)) {
		snprintf(why, len, "errno %d (%s)", errno, strerror(errno));
		return false;
	}
	snprintf(why, len, "rmStatus 0x%x", *status);
	return *status == NV_OK;
}

static int launch(int fd, uint32_t h_client, uint32_t h_channel, uint64_t va, uint64_t bytes,
		  struct emgpu_rm_launch *l)
{
	return emgpu_rm_stream(fd, h_client, h_channel, va, bytes, STREAM_PASSES, LAUNCH_TIMEOUT_MS, l);
}

/* "cpu", "gpu" or "other" for a processor UUID nvidia-uvm reports. */
static const char *who(const NvProcessorUuid *u, const uint8_t *gpu)
{
	return !memcmp(u->uuid, uvm_cpu_uuid, 16) ? "cpu" : !memcmp(u->uuid, gpu, 16) ? "gpu" : "other";
}

/* The per-open limits, from another open file: EDQUOT past each. */
static void limits(const char *rm_dev)
{
	struct emgpu_rm_va_space vs[65];
	struct emgpu_rm_channel ch[65];
	struct emgpu_rm_free fr;
	unsigned int max_vs = 0, max_ch = 0, i, made;
	int fd = open(rm_dev, O_RDWR | O_CLOEXEC), err = 0;
	FILE *f;

	f = fopen("/sys/module/emgpu_rm/parameters/max_va_spaces_per_open", "r");
	if (f && fscanf(f, "%u", &max_vs) != 1)
		max_vs = 0;
	if (f)
		fclose(f);
	f = fopen("/sys/module/emgpu_rm/parameters/max_channels_per_open", "r");
	if (f && fscanf(f, "%u", &max_ch) != 1)
		max_ch = 0;
	if (f)
		fclose(f);
	if (fd < 0 || !max_vs || max_vs > 64 || !max_ch || max_ch > 64) {
		verdict(false, "EMGPU_RM_VA_SPACE_CREATE past max_va_spaces_per_open: EDQUOT",
			"open %d, limits %u/%u", fd, max_vs, max_ch);
		verdict(false, "EMGPU_RM_CHANNEL_CREATE past max_channels_per_open: EDQUOT", "-");
		verdict(false, "EMGPU_RM_FREE of a VA space with channels: EBUSY", "-");
		if (fd >= 0)
			close(fd);
		return;
	}
	for (made = 0; made < max_vs && !err; made++)
		err = rm(fd, EMGPU_RM_VA_SPACE_CREATE, &vs[made]);
	if (!err)
		err = rm(fd, EMGPU_RM_VA_SPACE_CREATE, &vs[made]);
	verdict(made == max_vs && err == EDQUOT,
		"EMGPU_RM_VA_SPACE_CREATE past max_va_spaces_per_open: EDQUOT",
		"%u of %u made, then errno %d", made - (err != 0 && made < max_vs), max_vs, err);

	err = 0;
	for (i = 0; i < max_ch && !err; i++) {
		ch[i] = (struct emgpu_rm_channel){ .h_client = vs[0].h_client,
						   .h_va_space = vs[0].h_va_space };
		err = rm(fd, EMGPU_RM_CHANNEL_CREATE, &ch[i]);
	}
	made = err ? i - 1 : i;
	ch[made] = (struct emgpu_rm_channel){ .h_client = vs[0].h_client,
					      .h_va_space = vs[1 % max_vs].h_va_space };
	if (!err)
		err = rm(fd, EMGPU_RM_CHANNEL_CREATE, &ch[made]);
	verdict(made == max_ch && err == EDQUOT,
		"EMGPU_RM_CHANNEL_CREATE past max_channels_per_open: EDQUOT",
		"%u of %u made, then errno %d", made, max_ch, err);

	fr = (struct emgpu_rm_free){ .h_client = vs[0].h_client, .handle = vs[0].h_va_space };
	err = rm(fd, EMGPU_RM_FREE, &fr);
	verdict(err == EBUSY, "EMGPU_RM_FREE of a VA space with channels: EBUSY", "errno %d", err);
	/* the rest goes with the file; closing it frees them all */
	close(fd);
}

int main(int argc, char **argv)
{
	const char *uvm_dev = "/dev/nvidia-uvm", *rm_dev = EMGPU_RM_DEVICE;
	UVM_INITIALIZE_PARAMS init = { 0 };
	UVM_MM_INITIALIZE_PARAMS mm_init = { 0 };
	UVM_REGISTER_GPU_PARAMS reg = { 0 };
	UVM_REGISTER_GPU_VASPACE_PARAMS reg_vs = { 0 };
	UVM_REGISTER_CHANNEL_PARAMS reg_ch = { 0 };
	UVM_UNREGISTER_CHANNEL_PARAMS unreg_ch = { 0 };
	UVM_UNREGISTER_GPU_VASPACE_PARAMS unreg_vs = { 0 };
	UVM_UNREGISTER_GPU_PARAMS unreg = { 0 };
	UVM_TEST_VA_RESIDENCY_INFO_PARAMS res;
	struct emgpu_rm_gpu_info info = { 0 };
	struct emgpu_rm_va_space vs = { 0 };
	struct emgpu_rm_channel ch = { 0 };
	struct emgpu_rm_launch l;
	struct emgpu_rm_free fr;
	uint64_t words = STREAM_BYTES / 4, expect = 0, bad = 0;
	long long faults0, faults1;
	bool ember = false, ok;
	uint32_t *buf;
	char why[160];
	int ufd, mmfd, rfd, rfd2, err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ember"))
			ember = true;
		else
			uvm_dev = argv[i];
	}
	printf("KTAP version 1\n1..%u\n", PLANNED);
	/*
	 * As libcuda: the VA space's fd, and a second one whose
	 * UVM_MM_INITIALIZE pins the process's mm for nvidia-uvm (GPU VA
	 * space registration needs it; NV_WARN_NOTHING_TO_DO where not).
	 */
	ufd = open(uvm_dev, O_RDWR | O_CLOEXEC);
	mmfd = open(uvm_dev, O_RDWR | O_CLOEXEC);
	rfd = open(rm_dev, O_RDWR | O_CLOEXEC);
	mm_init.uvmFd = ufd;
	if (ufd < 0 || mmfd < 0 || rfd < 0 || ioctl(ufd, UVM_INITIALIZE, &init) ||
	    init.rmStatus != NV_OK || ioctl(mmfd, UVM_MM_INITIALIZE, &mm_init) ||
	    (mm_init.rmStatus != NV_OK && mm_init.rmStatus != NV_WARN_NOTHING_TO_DO)) {
		printf("not ok 1 UVM_INITIALIZE, UVM_MM_INITIALIZE and open %s\n# %s; rmStatus 0x%x 0x%x\nBail out!\n",
		       rm_dev, strerror(errno), init.rmStatus, mm_init.rmStatus);
		return 1;
	}
	verdict(true, "UVM_INITIALIZE, UVM_MM_INITIALIZE and open " EMGPU_RM_DEVICE, "");

	err = rm(rfd, EMGPU_RM_GPU_INFO, &info);
	verdict(!err && !memcmp(info.uuid, "EMGPU-RM", 8) && info.vram_bytes >= (8ull << 20),
		"EMGPU_RM_GPU_INFO: the stand-in's UUID and VRAM", "errno %d, vram %llu", err,
		(unsigned long long)info.vram_bytes);
	memcpy(reg.gpu_uuid.uuid, info.uuid, 16);
	reg.rmCtrlFd = -1;
	ok = uvm(ufd, UVM_REGISTER_GPU, &reg, &reg.rmStatus, why, sizeof(why));
	verdict(ok, "UVM_REGISTER_GPU with that UUID", "%s", why);
	if (!ok) {
		printf("Bail out!\n");
		return 1;
	}

	err = rm(rfd, EMGPU_RM_VA_SPACE_CREATE, &vs);
	verdict(!err && vs.h_client && vs.h_va_space && vs.h_client != vs.h_va_space,
		"EMGPU_RM_VA_SPACE_CREATE: a client and a VA space handle", "errno %d, 0x%x 0x%x",
		err, vs.h_client, vs.h_va_space);
	ch.h_client = vs.h_client;
	ch.h_va_space = vs.h_va_space;
	err = rm(rfd, EMGPU_RM_CHANNEL_CREATE, &ch);
	verdict(!err && ch.h_channel && ch.hw_channel < 64,
		"EMGPU_RM_CHANNEL_CREATE: a compute channel in it", "errno %d, 0x%x hw %u", err,
		ch.h_channel, ch.hw_channel);

	buf = uvm_managed_map(ufd, VA_BLOCK_BYTES);
	verdict(buf != MAP_FAILED, "managed range: mmap of the UVM fd at offset = address", "%s",
		strerror(errno));
	if (buf == MAP_FAILED) {
		printf("Bail out!\n");
		return 1;
	}
	err = launch(rfd, vs.h_client, ch.h_channel, (uintptr_t)buf, STREAM_BYTES, &l);
	verdict(err == EINVAL, "EMGPU_RM_LAUNCH before nvidia-uvm has the VA space: EINVAL",
		"errno %d", err);

	reg_vs.gpuUuid = reg.gpu_uuid;
	reg_vs.rmCtrlFd = rfd;
	reg_vs.hClient = vs.h_client;
	reg_vs.hVaSpace = vs.h_va_space + 1;	/* not a VA space */
	ok = ioctl(ufd, UVM_REGISTER_GPU_VASPACE, &reg_vs) == 0 &&
	     reg_vs.rmStatus == NV_ERR_INVALID_OBJECT_HANDLE;
	verdict(ok, "UVM_REGISTER_GPU_VASPACE of a handle that is no VA space: NV_ERR_INVALID_OBJECT_HANDLE",
		"errno %d, rmStatus 0x%x", errno, reg_vs.rmStatus);
	reg_vs.hVaSpace = vs.h_va_space;
	ok = uvm(ufd, UVM_REGISTER_GPU_VASPACE, &reg_vs, &reg_vs.rmStatus, why, sizeof(why));
	verdict(ok, "UVM_REGISTER_GPU_VASPACE with the stand-in's client and VA space", "%s", why);

	reg_ch.gpuUuid = reg.gpu_uuid;
	reg_ch.rmCtrlFd = rfd;
	reg_ch.hClient = vs.h_client;
	reg_ch.hChannel = vs.h_va_space;	/* not a channel */
	ok = ioctl(ufd, UVM_REGISTER_CHANNEL, &reg_ch) == 0 &&
	     reg_ch.rmStatus == NV_ERR_INVALID_OBJECT_HANDLE;
	verdict(ok, "UVM_REGISTER_CHANNEL of a handle that is no channel: NV_ERR_INVALID_OBJECT_HANDLE",
		"errno %d, rmStatus 0x%x", errno, reg_ch.rmStatus);
	/* resourceCount 0: nvidia-uvm maps nothing, base and length unused */
	reg_ch.hChannel = ch.h_channel;
	ok = uvm(ufd, UVM_REGISTER_CHANNEL, &reg_ch, &reg_ch.rmStatus, why, sizeof(why));
	verdict(ok, "UVM_REGISTER_CHANNEL: nvidia-uvm retains the compute channel", "%s", why);

	/* the CPU populates every page first */
	for (uint64_t i = 0; i < words; i++) {
		buf[i] = (uint32_t)(i * 7);
		/* pass p reads every word as i * 7 + p */
		expect += STREAM_PASSES * (uint64_t)(uint32_t)(i * 7);
	}
	expect += words * (STREAM_PASSES * (STREAM_PASSES - 1) / 2);

	faults0 = uvm_fault_stat("replayable_faults");
	err = launch(rfd, vs.h_client, ch.h_channel, (uintptr_t)buf, STREAM_BYTES, &l);
	faults1 = uvm_fault_stat("replayable_faults");
	if (err == EOPNOTSUPP)
		no_launches = "the device refuses GA10X_REG_LAUNCH_CHANNEL (no SM launches in the GA10x personality yet)";
	launch_verdict(!err && l.status == EMGPU_LAUNCH_DONE && l.sim_ns > 0,
		"EMGPU_RM_LAUNCH of STREAM on the managed range: done", "errno %d, status %u, sim_ns %llu",
		err, l.status, (unsigned long long)l.sim_ns);
	launch_verdict(!err && l.result == expect, "STREAM's result is the sum of the words it read",
		"result %llu, expected %llu", (unsigned long long)l.result,
		(unsigned long long)expect);
	printf("# replayable faults: %lld before, %lld after; sim_ns %llu\n", faults0, faults1,
	       (unsigned long long)l.sim_ns);
	if (ember)
		/*
		 * mapped by default: no fault a page (unmapped, every page
		 * faults: 160 for these 128 under NVIDIA's defaults); a page
		 * the access counters' promotion moves while the launch runs
		 * may fault (0 or 40 seen on 550, timing of the guest)
		 */
		launch_verdict(faults0 >= 0 && faults1 >= faults0 &&
			       faults1 - faults0 < (long long)(STREAM_BYTES / 4096),
			       "mapped by default (Ember-adaptive): fewer replayable faults than pages",
			       "%lld faults before, %lld after, %llu pages", faults0, faults1,
			       (unsigned long long)(STREAM_BYTES / 4096));
	else
		launch_verdict(faults0 >= 0 && faults1 > faults0,
			"nvidia-uvm serviced the launch's replayable faults (fault_stats)",
			"%lld faults before, %lld after", faults0, faults1);

	memset(&res, 0, sizeof(res));
	res.lookup_address = (uintptr_t)buf + STREAM_BYTES / 2;
	ok = uvm(ufd, UVM_TEST_VA_RESIDENCY_INFO, &res, &res.rmStatus, why, sizeof(why));
	if (ember) {
		/*
		 * mapped by default: the GPU read the host pages remotely, and
		 * the core promoted them on the access counters' notifications
		 * (serviced during the launch: the model waits for their
		 * hand-back)
		 */
		ok = ok && res.resident_on_count == 1 &&
		     !memcmp(res.resident_on[0].uuid, info.uuid, 16) && res.mapped_on_count == 1 &&
		     !memcmp(res.mapped_on[0].uuid, info.uuid, 16);
		launch_verdict(ok, "UVM_TEST_VA_RESIDENCY_INFO: resident on the GPU, promoted on access-counter notifications",
			       "%s; resident on %u (first %s), mapped on %u (%s %s)", why,
			       res.resident_on_count, who(&res.resident_on[0], info.uuid),
			       res.mapped_on_count, who(&res.mapped_on[0], info.uuid),
			       res.mapped_on_count > 1 ? who(&res.mapped_on[1], info.uuid) : "-");
	} else {
		ok = ok && res.resident_on_count == 1 && !memcmp(res.resident_on[0].uuid, info.uuid, 16);
		launch_verdict(ok, "UVM_TEST_VA_RESIDENCY_INFO: resident on the GPU after its faults",
			       "%s; resident on %u (first %s)", why, res.resident_on_count,
			       who(&res.resident_on[0], info.uuid));
	}

	for (uint64_t i = 0; i < words; i++)
		bad += buf[i] != (uint32_t)(i * 7 + STREAM_PASSES);
	launch_verdict(!bad, "the CPU reads back every word + passes", "%llu of %llu words differ",
		(unsigned long long)bad, (unsigned long long)words);

	/* far below any mapping of this static program: no range, no VMA */
	err = launch(rfd, vs.h_client, ch.h_channel, 0x200000, 4096, &l);
	launch_verdict(err == EFAULT && l.status == EMGPU_LAUNCH_CANCELLED,
		"EMGPU_RM_LAUNCH outside any range: nvidia-uvm cancels, EFAULT",
		"errno %d, status %u", err, l.status);
	err = launch(rfd, vs.h_client, ch.h_channel, (uintptr_t)buf, STREAM_BYTES, &l);
	launch_verdict(!err && l.status == EMGPU_LAUNCH_DONE,
		"EMGPU_RM_LAUNCH after a cancelled one: done again", "errno %d, status %u", err,
		l.status);

	memset(&l, 0, sizeof(l));
	l.h_client = vs.h_client;
	l.h_channel = ch.h_channel;
	err = rm(rfd, EMGPU_RM_LAUNCH, &l);
	verdict(err == EINVAL, "EMGPU_RM_LAUNCH of kernel 0: EINVAL", "errno %d", err);
	l.kernel = 0x7fff;
	err = rm(rfd, EMGPU_RM_LAUNCH, &l);
	launch_verdict(err == EINVAL && l.status == EMGPU_LAUNCH_ERROR,
		"EMGPU_RM_LAUNCH of a kernel the device does not have: EINVAL",
		"errno %d, status %u", err, l.status);

	/* another open file: none of the first one's handles are its */
	rfd2 = open(rm_dev, O_RDWR | O_CLOEXEC);
	err = launch(rfd2, vs.h_client, ch.h_channel, (uintptr_t)buf, STREAM_BYTES, &l);
	verdict(rfd2 >= 0 && err == ENOENT, "EMGPU_RM_LAUNCH on another file's channel: ENOENT",
		"fd %d, errno %d", rfd2, err);
	fr = (struct emgpu_rm_free){ .h_client = vs.h_client, .handle = ch.h_channel };
	err = rm(rfd2, EMGPU_RM_FREE, &fr);
	verdict(err == ENOENT, "EMGPU_RM_FREE of another file's channel: ENOENT", "errno %d", err);
	{
		struct emgpu_rm_channel other = { .h_client = vs.h_client,
						  .h_va_space = vs.h_va_space };

		err = rm(rfd2, EMGPU_RM_CHANNEL_CREATE, &other);
		verdict(err == ENOENT, "EMGPU_RM_CHANNEL_CREATE in another file's VA space: ENOENT",
			"errno %d", err);
	}
	err = rm(rfd2, _IO(EMGPU_RM_IOCTL_MAGIC, 99), NULL);
	verdict(err == ENOTTY, "an ioctl /dev/emgpu-rm does not have: ENOTTY", "errno %d", err);
	if (rfd2 >= 0)
		close(rfd2);

	limits(rm_dev);

	/* unregister and free, as a CUDA context's teardown */
	unreg_ch.gpuUuid = reg.gpu_uuid;
	unreg_ch.hClient = vs.h_client;
	unreg_ch.hChannel = ch.h_channel;
	ok = uvm(ufd, UVM_UNREGISTER_CHANNEL, &unreg_ch, &unreg_ch.rmStatus, why, sizeof(why));
	verdict(ok, "UVM_UNREGISTER_CHANNEL", "%s", why);
	fr = (struct emgpu_rm_free){ .h_client = vs.h_client, .handle = ch.h_channel };
	err = rm(rfd, EMGPU_RM_FREE, &fr);
	verdict(!err, "EMGPU_RM_FREE of the channel", "errno %d", err);
	err = launch(rfd, vs.h_client, ch.h_channel, (uintptr_t)buf, STREAM_BYTES, &l);
	verdict(err == ENOENT, "EMGPU_RM_LAUNCH on a freed channel: ENOENT", "errno %d", err);
	/* nvidia-uvm still holds the VA space: it outlives the user's handle */
	fr.handle = vs.h_va_space;
	err = rm(rfd, EMGPU_RM_FREE, &fr);
	verdict(!err, "EMGPU_RM_FREE of the VA space nvidia-uvm still has", "errno %d", err);
	err = rm(rfd, EMGPU_RM_FREE, &fr);
	verdict(err == ENOENT, "EMGPU_RM_FREE of it again: ENOENT", "errno %d", err);
	unreg_vs.gpuUuid = reg.gpu_uuid;
	ok = uvm(ufd, UVM_UNREGISTER_GPU_VASPACE, &unreg_vs, &unreg_vs.rmStatus, why, sizeof(why));
	verdict(ok, "UVM_UNREGISTER_GPU_VASPACE", "%s", why);
	verdict(munmap(buf, VA_BLOCK_BYTES) == 0, "managed range: munmap", "%s", strerror(errno));
	unreg.gpu_uuid = reg.gpu_uuid;
	ok = uvm(ufd, UVM_UNREGISTER_GPU, &unreg, &unreg.rmStatus, why, sizeof(why));
	verdict(ok, "UVM_UNREGISTER_GPU", "%s", why);
	close(rfd);
	close(mmfd);
	close(ufd);
	printf("# %u passed, %u failed, %u skipped, %u not run\n", n - failed - skipped, failed,
	       skipped, PLANNED - n);
	return failed || n != PLANNED;
}
