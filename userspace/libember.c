// SPDX-License-Identifier: MIT
/*
 * libember: see libember.h. A managed allocation is a MAP_SHARED mmap of
 * /dev/ember at a 2 MiB-aligned address with the file offset equal to the
 * address (ember.h); this file reserves an aligned VA range first and maps
 * /dev/ember over it with MAP_FIXED.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libember.h"

#define EM_MAX_ALLOCS 64

static int em_fd = -1;
static struct {
	void *ptr;
	size_t size;
} em_allocs[EM_MAX_ALLOCS];
static struct ember_synchronize em_last;

int emInit(void)
{
	if (em_fd >= 0)
		return 0;
	em_fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
	return em_fd < 0 ? -errno : 0;
}

int emFd(void)
{
	return emInit() ? -1 : em_fd;
}

void emReset(void)
{
	int i;

	for (i = 0; i < EM_MAX_ALLOCS; i++)
		if (em_allocs[i].ptr)
			emFree(em_allocs[i].ptr);
	if (em_fd >= 0)
		close(em_fd);
	em_fd = -1;
}

static int em_ioctl(unsigned long cmd, void *arg)
{
	int ret = emInit();

	if (ret)
		return ret;
	return ioctl(em_fd, cmd, arg) ? -errno : 0;
}

size_t emAllocSize(size_t size)
{
	return (size + EMBER_VA_BLOCK_SIZE - 1) & ~(size_t)(EMBER_VA_BLOCK_SIZE - 1);
}

int emMallocManaged(void **ptr, size_t size)
{
	size_t len = emAllocSize(size), slack = EMBER_VA_BLOCK_SIZE;
	uintptr_t base, aligned;
	void *res, *p;
	int i, ret;

	if (!ptr || !size || len < size)
		return -EINVAL;
	ret = emInit();
	if (ret)
		return ret;
	for (i = 0; i < EM_MAX_ALLOCS && em_allocs[i].ptr; i++)
		;
	if (i == EM_MAX_ALLOCS)
		return -ENOMEM;
	res = mmap(NULL, len + slack, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return -errno;
	base = (uintptr_t)res;
	aligned = (base + slack - 1) & ~(uintptr_t)(slack - 1);
	if (aligned > base)
		munmap(res, aligned - base);
	if (base + slack > aligned)
		munmap((void *)(aligned + len), base + slack - aligned);
	p = mmap((void *)aligned, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, em_fd, (off_t)aligned);
	if (p == MAP_FAILED) {
		ret = -errno;
		munmap((void *)aligned, len);
		return ret;
	}
	em_allocs[i].ptr = p;
	em_allocs[i].size = len;
	*ptr = p;
	return 0;
}

int emFree(void *ptr)
{
	int i;

	for (i = 0; i < EM_MAX_ALLOCS; i++) {
		if (em_allocs[i].ptr != ptr || !ptr)
			continue;
		if (munmap(ptr, em_allocs[i].size))
			return -errno;
		em_allocs[i].ptr = NULL;
		return 0;
	}
	return -EINVAL;
}

static uint32_t em_processor(int device)
{
	return device == emCpuDeviceId ? EMBER_PROC_CPU :
	       device == 0 ? EMBER_PROC_GPU : EMBER_PROC_NONE;
}

/* Page-rounded span covering [ptr, ptr + count). */
static void em_span(const void *ptr, size_t count, __u64 *addr, __u64 *len)
{
	__u64 a = (uintptr_t)ptr, end = a + count;
	long pg = sysconf(_SC_PAGESIZE);

	*addr = a & ~(__u64)(pg - 1);
	*len = ((end + pg - 1) & ~(__u64)(pg - 1)) - *addr;
}

int emMemAdvise(const void *ptr, size_t count, enum emMemoryAdvise advice,
		int device)
{
	struct ember_advise a = { .advice = advice };

	em_span(ptr, count, &a.addr, &a.length);
	if (advice != emMemAdviseUnsetPreferredLocation)
		a.processor = em_processor(device);
	return em_ioctl(EMBER_IOCTL_ADVISE, &a);
}

int emMemPrefetchAsync(const void *ptr, size_t count, int device)
{
	struct ember_prefetch p = { .processor = em_processor(device) };

	em_span(ptr, count, &p.addr, &p.length);
	return em_ioctl(EMBER_IOCTL_PREFETCH, &p);
}

int emLaunch(struct ember_launch *l)
{
	return em_ioctl(EMBER_IOCTL_LAUNCH, l);
}

int emDeviceSynchronize(void)
{
	memset(&em_last, 0, sizeof(em_last));
	return em_ioctl(EMBER_IOCTL_SYNCHRONIZE, &em_last);
}

int emLastLaunch(uint64_t *sim_ns, uint64_t *result)
{
	if (sim_ns)
		*sim_ns = em_last.sim_ns;
	if (result)
		*result = em_last.result;
	return 0;
}

int emMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	struct ember_mem_info m = { 0 };
	int ret = em_ioctl(EMBER_IOCTL_MEM_GET_INFO, &m);

	if (ret)
		return ret;
	if (free_bytes)
		*free_bytes = m.free;
	if (total_bytes)
		*total_bytes = m.total;
	return 0;
}

int emGetStats(struct ember_stats_counters *c, int global)
{
	struct ember_stats s = {
		.scope = global ? EMBER_STATS_GLOBAL : EMBER_STATS_VA_SPACE,
	};
	int ret = em_ioctl(EMBER_IOCTL_GET_STATS, &s);

	if (!ret)
		*c = s.c;
	return ret;
}

int emSetPolicy(const char *name)
{
	struct ember_set_policy p = { { 0 } };

	if (strlen(name) >= sizeof(p.name))
		return -EINVAL;
	strcpy(p.name, name);
	return em_ioctl(EMBER_IOCTL_SET_POLICY, &p);
}

int emGetDeviceInfo(struct ember_device_info *info)
{
	memset(info, 0, sizeof(*info));
	return em_ioctl(EMBER_IOCTL_GET_DEVICE_INFO, info);
}
