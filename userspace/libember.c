// SPDX-License-Identifier: MIT
/*
 * libember: see libember.h. The calls are the same on every driver; each
 * goes through the context's back end (em_backend.h): /dev/ember, or
 * NVIDIA's /dev/nvidia-uvm. A managed allocation is, on both, a
 * MAP_SHARED mmap of the back end's file at a 2 MiB-aligned address with
 * the file offset equal to the address (ember.h; nvidia-uvm's rule too):
 * this file reserves an aligned VA range first and maps the file over it
 * with MAP_FIXED.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libember.h"
#include "em_backend.h"

#define EM_MAX_ALLOCS 64

/*
 * The process-wide context, as CUDA's runtime has one: libember's calls
 * take no handle, so its state lives here (the one global of libember).
 * driver is the back end the next emInit() opens; ctx.ops is set while
 * one is open.
 */
static struct em_lib {
	const struct em_backend_ops *driver;	/* NULL: $EMBER_DRIVER, else ember */
	struct em_context ctx;
	struct {
		void *ptr;
		size_t size;
	} allocs[EM_MAX_ALLOCS];
	struct ember_synchronize last;
} em_lib = { .ctx = { .map_fd = -1 } };

const struct em_backend_ops *em_backend_find(const char *name)
{
	if (!name)
		return NULL;
	if (!strcmp(name, em_ember_ops.name))
		return &em_ember_ops;
	if (!strcmp(name, em_nvuvm_ops.name))
		return &em_nvuvm_ops;
	return NULL;
}

/* The back end emInit() opens: the chosen one, else $EMBER_DRIVER's, else ember. */
static const struct em_backend_ops *em_driver_wanted(void)
{
	const char *env;

	if (em_lib.driver)
		return em_lib.driver;
	env = getenv("EMBER_DRIVER");
	return env && *env ? em_backend_find(env) : &em_ember_ops;
}

int emSetDriver(const char *name)
{
	const struct em_backend_ops *ops = em_backend_find(name);

	if (!ops)
		return -EINVAL;
	if (em_lib.ctx.ops && em_lib.ctx.ops != ops)
		return -EBUSY;
	em_lib.driver = ops;
	return 0;
}

const char *emDriverName(void)
{
	const struct em_backend_ops *ops = em_lib.ctx.ops ?: em_driver_wanted();

	return ops ? ops->name : NULL;
}

int emInit(void)
{
	const struct em_backend_ops *ops;
	int ret;

	if (em_lib.ctx.ops)
		return 0;
	ops = em_driver_wanted();
	if (!ops)
		return -EINVAL;		/* $EMBER_DRIVER names no back end */
	em_lib.ctx.sys = em_sys_default();
	em_lib.ctx.map_fd = -1;
	em_lib.ctx.be = NULL;
	ret = ops->open(&em_lib.ctx);
	if (ret)
		return ret;
	em_lib.ctx.ops = ops;
	return 0;
}

int emFd(void)
{
	return emInit() ? -1 : em_lib.ctx.map_fd;
}

void emReset(void)
{
	int i;

	for (i = 0; i < EM_MAX_ALLOCS; i++)
		if (em_lib.allocs[i].ptr)
			emFree(em_lib.allocs[i].ptr);
	if (em_lib.ctx.ops)
		em_lib.ctx.ops->close(&em_lib.ctx);
	em_lib.ctx.ops = NULL;
	em_lib.ctx.map_fd = -1;
	em_lib.ctx.be = NULL;
}

/* The open context, opened on first use; NULL with *ret set when it cannot be. */
static struct em_context *em_ctx(int *ret)
{
	*ret = emInit();
	return *ret ? NULL : &em_lib.ctx;
}

size_t emAllocSize(size_t size)
{
	return (size + EMBER_VA_BLOCK_SIZE - 1) & ~(size_t)(EMBER_VA_BLOCK_SIZE - 1);
}

int emMallocManaged(void **ptr, size_t size)
{
	size_t len = emAllocSize(size), slack = EMBER_VA_BLOCK_SIZE;
	uintptr_t base, aligned;
	struct em_context *c;
	void *res, *p;
	int i, ret;

	if (!ptr || !size || len < size)
		return -EINVAL;
	c = em_ctx(&ret);
	if (!c)
		return ret;
	for (i = 0; i < EM_MAX_ALLOCS && em_lib.allocs[i].ptr; i++)
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
		 MAP_SHARED | MAP_FIXED, c->map_fd, (off_t)aligned);
	if (p == MAP_FAILED) {
		ret = -errno;
		munmap((void *)aligned, len);
		return ret;
	}
	em_lib.allocs[i].ptr = p;
	em_lib.allocs[i].size = len;
	*ptr = p;
	return 0;
}

int emFree(void *ptr)
{
	int i;

	for (i = 0; i < EM_MAX_ALLOCS; i++) {
		if (em_lib.allocs[i].ptr != ptr || !ptr)
			continue;
		if (munmap(ptr, em_lib.allocs[i].size))
			return -errno;
		em_lib.allocs[i].ptr = NULL;
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
static void em_span(const void *ptr, size_t count, uint64_t *addr, uint64_t *len)
{
	uint64_t a = (uintptr_t)ptr, end = a + count;
	long pg = sysconf(_SC_PAGESIZE);

	*addr = a & ~(uint64_t)(pg - 1);
	*len = ((end + pg - 1) & ~(uint64_t)(pg - 1)) - *addr;
}

int emMemAdvise(const void *ptr, size_t count, enum emMemoryAdvise advice,
		int device)
{
	struct em_context *c = NULL;
	uint64_t addr, len;
	int ret;

	c = em_ctx(&ret);
	if (!c)
		return ret;
	em_span(ptr, count, &addr, &len);
	return c->ops->advise(c, addr, len, advice,
			      advice == emMemAdviseUnsetPreferredLocation ?
			      EMBER_PROC_NONE : em_processor(device));
}

int emMemPrefetchAsync(const void *ptr, size_t count, int device)
{
	struct em_context *c;
	uint64_t addr, len;
	int ret;

	c = em_ctx(&ret);
	if (!c)
		return ret;
	em_span(ptr, count, &addr, &len);
	return c->ops->prefetch(c, addr, len, em_processor(device));
}

int emLaunch(struct ember_launch *l)
{
	struct em_context *c;
	int ret;

	c = em_ctx(&ret);
	return c ? c->ops->launch(c, l) : ret;
}

int emDeviceSynchronize(void)
{
	struct em_context *c;
	int ret;

	memset(&em_lib.last, 0, sizeof(em_lib.last));
	c = em_ctx(&ret);
	return c ? c->ops->synchronize(c, &em_lib.last) : ret;
}

int emLastLaunch(uint64_t *sim_ns, uint64_t *result)
{
	if (sim_ns)
		*sim_ns = em_lib.last.sim_ns;
	if (result)
		*result = em_lib.last.result;
	return 0;
}

int emMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	struct ember_mem_info m = { 0 };
	struct em_context *c;
	int ret;

	c = em_ctx(&ret);
	if (!c)
		return ret;
	ret = c->ops->mem_info(c, &m);
	if (ret)
		return ret;
	if (free_bytes)
		*free_bytes = m.free;
	if (total_bytes)
		*total_bytes = m.total;
	return 0;
}

int emGetStatsCounted(struct ember_stats_counters *s,
		      struct ember_stats_counters *counted, int global)
{
	struct ember_stats st = {
		.scope = global ? EMBER_STATS_GLOBAL : EMBER_STATS_VA_SPACE,
	};
	struct em_context *c;
	int ret;

	c = em_ctx(&ret);
	if (!c)
		return ret;
	ret = c->ops->stats(c, &st, counted);
	if (!ret && s)
		*s = st.c;
	return ret;
}

int emGetStats(struct ember_stats_counters *s, int global)
{
	return emGetStatsCounted(s, NULL, global);
}

int emSetPolicy(const char *name)
{
	struct em_context *c;
	int ret;

	if (!name || strlen(name) >= EMBER_POLICY_NAME_LEN)
		return -EINVAL;
	c = em_ctx(&ret);
	return c ? c->ops->set_policy(c, name) : ret;
}

int emGetDeviceInfo(struct ember_device_info *info)
{
	struct em_context *c;
	int ret;

	memset(info, 0, sizeof(*info));
	c = em_ctx(&ret);
	return c ? c->ops->device_info(c, info) : ret;
}
