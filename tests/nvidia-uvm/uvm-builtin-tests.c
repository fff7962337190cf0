// SPDX-License-Identifier: GPL-2.0
/*
 * uvm-builtin-tests: runs NVIDIA's built-in nvidia-uvm tests (the UVM_TEST_*
 * ioctls of uvm_test_ioctl.h, routed when nvidia-uvm is loaded with
 * uvm_enable_builtin_tests=1) in the guest and prints KTAP, one line a test
 * named after its ioctl. Built once per driver branch against that
 * branch's headers (Debian's nvidia-open-kernel-source, at build time).
 *
 * A test passes when the ioctl returns 0 and its rmStatus is NV_OK; any
 * other answer fails it, with both printed. The tests listed are the ones
 * that need no registered GPU: the stand-in (emgpu-rm.ko) registers none
 * yet. Then a managed range made as libcuda makes one (mmap of the UVM fd
 * at offset = address): CPU data read back word for word, and NVIDIA's
 * range, residency and block tests on it. With --ember, the range must
 * have the CPU as its preferred location, as the Ember glue sets it for
 * Ember-adaptive's mapped-by-default ranges; without, none.
 *
 * With --gpu, the emulated GPU is registered first (UVM_REGISTER_GPU with
 * the UUID emgpu-rm.ko publishes in sysfs), then NVIDIA's tests that need
 * one GPU run on it (channels, pushes, copy engine, host methods, page
 * tree, PMM and PMA, TLB invalidates, fault buffer, access counters), with
 * the parameters uvm_test_ioctl.h documents, and the GPU is unregistered.
 *
 * usage: uvm-builtin-tests [--ember] [--gpu] [DEVICE]   (default /dev/nvidia-uvm)
 */
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uvm_linux_ioctl.h"
#include "uvm_test_ioctl.h"

/* What a test's parameters may need: the UVM fd and the registered GPU. */
struct test_ctx {
	int fd;
	NvProcessorUuid gpu;
};

struct uvm_builtin_test {
	const char *name;
	unsigned long cmd;
	size_t size;
	size_t status_offset;
	/* Fills the parameters in; may issue ioctls of its own. 0 or -1. */
	int (*init)(const struct test_ctx *c, void *params);
	/* After NV_OK: checks the (out) fields, or reads a knob back; 0, or -1
	 * with the reason in why. NULL: NV_OK is the verdict. */
	int (*check)(const struct test_ctx *c, void *params, char *why, size_t len);
};

/* Parameters as uvm_test_ioctl.h documents them; seeds fixed. */
static int range_tree_random(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_RANGE_TREE_RANDOM_PARAMS *t = p;

	t->seed = 1;
	t->main_iterations = 100;
	t->high_probability = 75;
	t->add_remove_shrink_group_probability = 20;
	t->shrink_probability = 50;
	t->collision_checks = 100;
	t->iterator_checks = 100;
	t->max_end = ~0ull;
	t->max_ranges = 1000;
	t->max_batch_count = 100;
	t->max_attempts = 100;
	return 0;
}

static int range_allocator_sanity(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_RANGE_ALLOCATOR_SANITY_PARAMS *t = p;

	t->seed = 1;
	t->iters = 1000;
	return 0;
}

/* The test moves ranges among four range groups of the VA space. */
static int range_group_tree(const struct test_ctx *c, void *p)
{
	UVM_TEST_RANGE_GROUP_TREE_PARAMS *t = p;

	for (int i = 0; i < 4; i++) {
		UVM_CREATE_RANGE_GROUP_PARAMS group = { 0 };

		if (ioctl(c->fd, UVM_CREATE_RANGE_GROUP, &group) != 0 || group.rmStatus != NV_OK) {
			printf("# UVM_CREATE_RANGE_GROUP: errno %d, rmStatus 0x%x\n", errno,
			       group.rmStatus);
			return -1;
		}
		t->rangeGroupIds[i] = group.rangeGroupId;
	}
	return 0;
}

static int thread_context_sanity(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_THREAD_CONTEXT_SANITY_PARAMS *t = p;

	t->iterations = 100;
	return 0;
}

static int thread_context_perf(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_THREAD_CONTEXT_PERF_PARAMS *t = p;

	t->iterations = 100;
	t->delay_us = 1;
	return 0;
}

static int rb_tree_random(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_RB_TREE_RANDOM_PARAMS *t = p;

	t->iterations = 1000;
	t->range_max = 1ull << 20;
	t->node_limit = 100;
	t->seed = 1;
	return 0;
}

#define TEST(id, init) { "UVM_TEST_" #id, UVM_TEST_##id, sizeof(UVM_TEST_##id##_PARAMS), \
			 offsetof(UVM_TEST_##id##_PARAMS, rmStatus), init, NULL }
#define TEST_CHECKED(id, init, check) { "UVM_TEST_" #id, UVM_TEST_##id,		\
			 sizeof(UVM_TEST_##id##_PARAMS),				\
			 offsetof(UVM_TEST_##id##_PARAMS, rmStatus), init, check }

static const struct uvm_builtin_test tests[] = {
	TEST(RNG_SANITY, NULL),
	TEST(RANGE_TREE_DIRECTED, NULL),
	TEST(RANGE_TREE_RANDOM, range_tree_random),
	TEST(RANGE_ALLOCATOR_SANITY, range_allocator_sanity),
	TEST(LOCK_SANITY, NULL),
	TEST(PERF_UTILS_SANITY, NULL),
	TEST(KVMALLOC, NULL),
	TEST(PERF_EVENTS_SANITY, NULL),
	TEST(NV_KTHREAD_Q, NULL),
	TEST(RANGE_GROUP_TREE, range_group_tree),
	TEST(THREAD_CONTEXT_SANITY, thread_context_sanity),
	TEST(THREAD_CONTEXT_PERF, thread_context_perf),
	TEST(RB_TREE_DIRECTED, NULL),
	TEST(RB_TREE_RANDOM, rb_tree_random),
	TEST(GET_USER_SPACE_END_ADDRESS, NULL),
	TEST(CPU_CHUNK_API, NULL),
};

#define NTESTS (sizeof(tests) / sizeof(tests[0]))

/*
 * Tests on the registered GPU. Most take the GPU by UUID; the rest run on
 * every GPU registered in the VA space, here the one.
 */
#define GPU_UUID_INIT(id, fn)						\
static int fn(const struct test_ctx *c, void *p)			\
{									\
	UVM_TEST_##id##_PARAMS *t = p;					\
									\
	t->gpu_uuid = c->gpu;						\
	return 0;							\
}
GPU_UUID_INIT(GET_GPU_REF_COUNT, gpu_ref_count)
GPU_UUID_INIT(GET_GPU_TIME, gpu_time)
GPU_UUID_INIT(PMA_GET_BATCH_SIZE, pma_batch_size)
GPU_UUID_INIT(PMM_QUERY_PMA_STATS, pma_stats)
GPU_UUID_INIT(ACCESS_COUNTERS_ENABLED_BY_DEFAULT, ac_enabled_by_default)
GPU_UUID_INIT(PMM_RELEASE_FREE_ROOT_CHUNKS, release_free_root_chunks)
GPU_UUID_INIT(PMM_ALLOC_FREE_ROOT, pmm_alloc_free_root)

static int channel_stress_noop(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_CHANNEL_STRESS_PARAMS *t = p;

	t->mode = UVM_TEST_CHANNEL_STRESS_MODE_NOOP_PUSH;
	t->iterations = 1000;
	t->seed = 1;
	return 0;
}

static int channel_stress_update(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_CHANNEL_STRESS_PARAMS *t = p;

	t->mode = UVM_TEST_CHANNEL_STRESS_MODE_UPDATE_CHANNELS;
	t->iterations = 100;
	t->seed = 1;
	return 0;
}

static int channel_stress_stream(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_CHANNEL_STRESS_PARAMS *t = p;

	t->mode = UVM_TEST_CHANNEL_STRESS_MODE_STREAM;
	t->iterations = 50;
	t->num_streams = 8;
	t->seed = 1;
	return 0;
}

static int pmm_sanity_full(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_PMM_SANITY_PARAMS *t = p;

	t->mode = UvmTestPmmSanityModeFull;
	return 0;
}

/* Every 2 MiB chunk the PMM can get, then all freed: none may leak. */
static int pmm_check_leak(const struct test_ctx *c, void *p)
{
	UVM_TEST_PMM_CHECK_LEAK_PARAMS *t = p;

	t->gpu_uuid = c->gpu;
	t->chunk_size = 2ull << 20;
	t->alloc_limit = -1;
	return 0;
}

/* 16 discontiguous 64 KiB pages anywhere in the PMA, freed at once. */
static int pma_alloc_free(const struct test_ctx *c, void *p)
{
	UVM_TEST_PMA_ALLOC_FREE_PARAMS *t = p;

	t->gpu_uuid = c->gpu;
	t->page_size = 64u << 10;
	t->num_pages = 16;
	return 0;
}

static int pmm_async_alloc(const struct test_ctx *c, void *p)
{
	UVM_TEST_PMM_ASYNC_ALLOC_PARAMS *t = p;

	t->gpu_uuid = c->gpu;
	t->num_chunks = 8;
	t->num_work_iterations = 4;
	return 0;
}


/*
 * Knobs and queries: each sets a value through its ioctl and reads it back
 * through its pair (or checks what a query returns against what this GPU
 * and kernel are), and restores the default.
 */
static int knob(const struct test_ctx *c, unsigned long cmd, void *p, NV_STATUS *st,
		const char *name, char *why, size_t len)
{
	if (ioctl(c->fd, cmd, p) != 0 || *st != NV_OK) {
		snprintf(why, len, "%s: errno %d, rmStatus 0x%x", name, errno, *st);
		return -1;
	}
	return 0;
}

GPU_UUID_INIT(PMM_QUERY, pmm_query)

/* the user chunk sizes of the GPU's PMM: 4K, 64K and 2M pages of Ampere */
static int pmm_query_sizes(const struct test_ctx *c __attribute__((unused)), void *p,
			   char *why, size_t len)
{
	UVM_TEST_PMM_QUERY_PARAMS *t = p;
	const NvU64 want = (4ull << 10) | (64ull << 10) | (2ull << 20);

	snprintf(why, len, "user chunk sizes 0x%llx, want at least 0x%llx",
		 (unsigned long long)t->value, (unsigned long long)want);
	return (t->value & want) == want ? 0 : -1;
}

static int nonzero_addr(const struct test_ctx *c __attribute__((unused)), void *p,
			char *why, size_t len)
{
	UVM_TEST_GET_KERNEL_VIRTUAL_ADDRESS_PARAMS *t = p;

	snprintf(why, len, "address 0x%llx", (unsigned long long)t->addr);
	return t->addr ? 0 : -1;
}

static int cpu_chunk_sizes(const struct test_ctx *c __attribute__((unused)), void *p,
			   char *why, size_t len)
{
	UVM_TEST_GET_CPU_CHUNK_ALLOC_SIZES_PARAMS *t = p;

	snprintf(why, len, "CPU chunk size mask 0x%x has no 4 KiB", t->alloc_size_mask);
	return t->alloc_size_mask & 4096 ? 0 : -1;
}

static int deferred_accessed_by(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_FLUSH_DEFERRED_WORK_PARAMS *t = p;

	t->work_type = UvmTestDeferredWorkTypeAcessedByMappings;
	return 0;
}

static int dummy_thread_contexts(const struct test_ctx *c __attribute__((unused)), void *p)
{
	UVM_TEST_VA_SPACE_ADD_DUMMY_THREAD_CONTEXTS_PARAMS *t = p;

	t->num_dummy_thread_contexts = 8;
	return 0;
}

/* added ones go away again */
static int remove_dummy_thread_contexts(const struct test_ctx *c, void *p __attribute__((unused)),
					char *why, size_t len)
{
	UVM_TEST_VA_SPACE_REMOVE_DUMMY_THREAD_CONTEXTS_PARAMS r = { 0 };

	return knob(c, UVM_TEST_VA_SPACE_REMOVE_DUMMY_THREAD_CONTEXTS, &r, &r.rmStatus,
		    "UVM_TEST_VA_SPACE_REMOVE_DUMMY_THREAD_CONTEXTS", why, len);
}

/* thrashing mitigation: disable with a pin time, read back, enable again */
static int thrashing_policy(const struct test_ctx *c, void *p, char *why, size_t len)
{
	UVM_TEST_GET_PAGE_THRASHING_POLICY_PARAMS *def = p, got = { 0 };
	UVM_TEST_SET_PAGE_THRASHING_POLICY_PARAMS set = { 0 };

	set.policy = UVM_TEST_PAGE_THRASHING_POLICY_DISABLE;
	set.pin_ns = def->pin_ns;
	if (knob(c, UVM_TEST_SET_PAGE_THRASHING_POLICY, &set, &set.rmStatus,
		 "UVM_TEST_SET_PAGE_THRASHING_POLICY disable", why, len) ||
	    knob(c, UVM_TEST_GET_PAGE_THRASHING_POLICY, &got, &got.rmStatus,
		 "UVM_TEST_GET_PAGE_THRASHING_POLICY", why, len))
		return -1;
	if (def->policy != UVM_TEST_PAGE_THRASHING_POLICY_ENABLE ||
	    got.policy != UVM_TEST_PAGE_THRASHING_POLICY_DISABLE) {
		snprintf(why, len, "policy %u by default, %u after disabling", def->policy,
			 got.policy);
		return -1;
	}
	set.policy = UVM_TEST_PAGE_THRASHING_POLICY_ENABLE;
	return knob(c, UVM_TEST_SET_PAGE_THRASHING_POLICY, &set, &set.rmStatus,
		    "UVM_TEST_SET_PAGE_THRASHING_POLICY enable", why, len);
}

/* the prefetch-fault re-enable lapse: set one more, read back, restore */
static int reenable_lapse(const struct test_ctx *c, void *p, char *why, size_t len)
{
	UVM_TEST_GET_PREFETCH_FAULTS_REENABLE_LAPSE_PARAMS *def = p, got = { 0 };
	UVM_TEST_SET_PREFETCH_FAULTS_REENABLE_LAPSE_PARAMS set = { 0 };

	set.reenable_lapse = def->reenable_lapse + 1;
	if (knob(c, UVM_TEST_SET_PREFETCH_FAULTS_REENABLE_LAPSE, &set, &set.rmStatus,
		 "UVM_TEST_SET_PREFETCH_FAULTS_REENABLE_LAPSE", why, len) ||
	    knob(c, UVM_TEST_GET_PREFETCH_FAULTS_REENABLE_LAPSE, &got, &got.rmStatus,
		 "UVM_TEST_GET_PREFETCH_FAULTS_REENABLE_LAPSE", why, len))
		return -1;
	if (got.reenable_lapse != set.reenable_lapse) {
		snprintf(why, len, "lapse %u read back after setting %u", got.reenable_lapse,
			 set.reenable_lapse);
		return -1;
	}
	set.reenable_lapse = def->reenable_lapse;
	return knob(c, UVM_TEST_SET_PREFETCH_FAULTS_REENABLE_LAPSE, &set, &set.rmStatus,
		    "UVM_TEST_SET_PREFETCH_FAULTS_REENABLE_LAPSE restore", why, len);
}

/* the GPU's prefetch-fault filter (its PAGE_FAULT_CTRL): all, then none */
static int prefetch_filter_all(const struct test_ctx *c, void *p)
{
	UVM_TEST_SET_PREFETCH_FILTERING_PARAMS *t = p;

	t->gpu_uuid = c->gpu;
	t->filtering_mode = UVM_TEST_PREFETCH_FILTERING_MODE_FILTER_ALL;
	return 0;
}

static int prefetch_filter_none(const struct test_ctx *c, void *p __attribute__((unused)),
				char *why, size_t len)
{
	UVM_TEST_SET_PREFETCH_FILTERING_PARAMS t = { 0 };

	t.gpu_uuid = c->gpu;
	t.filtering_mode = UVM_TEST_PREFETCH_FILTERING_MODE_FILTER_NONE;
	return knob(c, UVM_TEST_SET_PREFETCH_FILTERING, &t, &t.rmStatus,
		    "UVM_TEST_SET_PREFETCH_FILTERING none", why, len);
}

/*
 * No ATS and no HMM for this VA space: pageable memory is not the GPU's,
 * only the VA space's tie to its process (the fault handler's CPU mappings)
 */
static int pageable_access_mmu_notifier(const struct test_ctx *c __attribute__((unused)),
					void *p, char *why, size_t len)
{
	UVM_TEST_GET_PAGEABLE_MEM_ACCESS_TYPE_PARAMS *t = p;

	snprintf(why, len, "pageable memory access type %u, want MMU_NOTIFIER (%u)", t->type,
		 UVM_TEST_PAGEABLE_MEM_ACCESS_TYPE_MMU_NOTIFIER);
	return t->type == UVM_TEST_PAGEABLE_MEM_ACCESS_TYPE_MMU_NOTIFIER ? 0 : -1;
}

static const struct uvm_builtin_test gpu_tests[] = {
	TEST(GET_GPU_REF_COUNT, gpu_ref_count),
	TEST(GET_GPU_TIME, gpu_time),
	TEST(PMA_GET_BATCH_SIZE, pma_batch_size),
	TEST(PMM_QUERY_PMA_STATS, pma_stats),
	TEST(RM_MEM_SANITY, NULL),
	TEST(GPU_SEMAPHORE_SANITY, NULL),
	TEST(HOST_SANITY, NULL),
	TEST(CE_SANITY, NULL),
	TEST(PUSH_SANITY, NULL),
	TEST(TRACKER_SANITY, NULL),
	TEST(CHANNEL_SANITY, NULL),
	{ "UVM_TEST_CHANNEL_STRESS noop pushes", UVM_TEST_CHANNEL_STRESS,
	  sizeof(UVM_TEST_CHANNEL_STRESS_PARAMS),
	  offsetof(UVM_TEST_CHANNEL_STRESS_PARAMS, rmStatus), channel_stress_noop, NULL },
	{ "UVM_TEST_CHANNEL_STRESS channel updates", UVM_TEST_CHANNEL_STRESS,
	  sizeof(UVM_TEST_CHANNEL_STRESS_PARAMS),
	  offsetof(UVM_TEST_CHANNEL_STRESS_PARAMS, rmStatus), channel_stress_update, NULL },
	{ "UVM_TEST_CHANNEL_STRESS streams", UVM_TEST_CHANNEL_STRESS,
	  sizeof(UVM_TEST_CHANNEL_STRESS_PARAMS),
	  offsetof(UVM_TEST_CHANNEL_STRESS_PARAMS, rmStatus), channel_stress_stream, NULL },
	TEST(PAGE_TREE, NULL),
	TEST(MEM_SANITY, NULL),
	TEST(PMM_SANITY, pmm_sanity_full),
	TEST(PMM_CHECK_LEAK, pmm_check_leak),
	TEST(PMA_ALLOC_FREE, pma_alloc_free),
	TEST(PMM_ALLOC_FREE_ROOT, pmm_alloc_free_root),
	TEST(PMM_ASYNC_ALLOC, pmm_async_alloc),
	TEST(PMM_RELEASE_FREE_ROOT_CHUNKS, release_free_root_chunks),
	TEST(VA_BLOCK, NULL),
	TEST(ACCESS_COUNTERS_ENABLED_BY_DEFAULT, ac_enabled_by_default),
	TEST_CHECKED(PMM_QUERY, pmm_query, pmm_query_sizes),
	TEST_CHECKED(GET_KERNEL_VIRTUAL_ADDRESS, NULL, nonzero_addr),
	TEST_CHECKED(GET_CPU_CHUNK_ALLOC_SIZES, NULL, cpu_chunk_sizes),
	TEST(FLUSH_DEFERRED_WORK, deferred_accessed_by),
	TEST_CHECKED(VA_SPACE_ADD_DUMMY_THREAD_CONTEXTS, dummy_thread_contexts,
		     remove_dummy_thread_contexts),
	TEST_CHECKED(GET_PAGE_THRASHING_POLICY, NULL, thrashing_policy),
	TEST_CHECKED(GET_PREFETCH_FAULTS_REENABLE_LAPSE, NULL, reenable_lapse),
	TEST_CHECKED(SET_PREFETCH_FILTERING, prefetch_filter_all, prefetch_filter_none),
	TEST_CHECKED(GET_PAGEABLE_MEM_ACCESS_TYPE, NULL, pageable_access_mmu_notifier),
};

#define NGPU_TESTS (sizeof(gpu_tests) / sizeof(gpu_tests[0]))

/*
 * The UUID emgpu-rm.ko gives the emulated GPU: the raw 16 bytes beside its
 * text form in the PCI device's sysfs directory. 0, or -1 with a reason.
 */
static int emgpu_uuid(NvProcessorUuid *out, char *why, size_t len)
{
	glob_t g;
	FILE *f;
	size_t n;

	if (glob("/sys/bus/pci/drivers/emgpu-rm/*/gpu_uuid_raw", 0, NULL, &g) != 0) {
		snprintf(why, len, "no emgpu-rm device in sysfs");
		return -1;
	}
	f = fopen(g.gl_pathv[0], "rb");
	n = f ? fread(out->uuid, 1, sizeof(out->uuid), f) : 0;
	if (f)
		fclose(f);
	snprintf(why, len, "%s: %zu of %zu bytes", g.gl_pathv[0], n, sizeof(out->uuid));
	globfree(&g);
	return n == sizeof(out->uuid) ? 0 : -1;
}

/* Large enough for every parameter struct above. */
union params_buf {
	unsigned char bytes[4096];
	NvU64 align;
};

static int run_test(const struct test_ctx *c, const struct uvm_builtin_test *t, unsigned int n)
{
	union params_buf buf;
	NV_STATUS status;
	int ret;

	if (t->size > sizeof(buf.bytes)) {
		printf("not ok %u %s\n# parameters of %zu bytes do not fit\n", n, t->name, t->size);
		return 1;
	}
	memset(&buf, 0, sizeof(buf));
	if (t->init && t->init(c, buf.bytes)) {
		printf("not ok %u %s\n# its parameters could not be set up\n", n, t->name);
		return 1;
	}
	ret = ioctl(c->fd, t->cmd, buf.bytes);
	memcpy(&status, buf.bytes + t->status_offset, sizeof(status));
	if (ret == 0 && status == NV_OK) {
		char why[200] = "";

		if (t->check && t->check(c, buf.bytes, why, sizeof(why))) {
			printf("not ok %u %s\n# %s\n", n, t->name, why);
			return 1;
		}
		printf("ok %u %s\n", n, t->name);
		return 0;
	}
	printf("not ok %u %s\n# ioctl returned %d (errno %d), rmStatus 0x%x\n", n, t->name, ret,
	       ret ? errno : 0, status);
	return 1;
}

/* Four 2 MiB VA blocks. */
#define MANAGED_BYTES (8ull << 20)
#define VA_BLOCK_BYTES (2ull << 20)

/* NVIDIA's UUID for the CPU (nvCpuUuid.c), as UVM reports locations. */
static const NvU8 cpu_uuid[16] = { 0xa6, 0x5e, 0x0f, 0x4e, 0xd7, 0xd4, 0x7b, 0xa2,
				   0x50, 0x47, 0x41, 0x2c, 0x14, 0x2a, 0x77, 0x73 };

struct managed {
	int fd;
	bool ember;		/* the glue is expected to prefer the CPU */
	uint64_t *base;
	unsigned int n;		/* KTAP test number */
	unsigned int failed;
};

static void verdict(struct managed *m, bool ok, const char *name, const char *why)
{
	m->n++;
	if (ok) {
		printf("ok %u %s\n", m->n, name);
		return;
	}
	m->failed++;
	printf("not ok %u %s\n# %s\n", m->n, name, why);
}

/* The params buffer is zeroed; the ioctl's own status is checked too. */
static bool uvm_test(struct managed *m, unsigned long cmd, void *params, NV_STATUS *status,
		     char *why, size_t len)
{
	if (ioctl(m->fd, cmd, params) != 0) {
		snprintf(why, len, "ioctl failed: %s", strerror(errno));
		return false;
	}
	if (*status != NV_OK) {
		snprintf(why, len, "rmStatus 0x%x", *status);
		return false;
	}
	return true;
}

/* 2 MiB-aligned free addresses: reserve, then place the range inside. */
static void *managed_map(int fd)
{
	uint8_t *hole = mmap(NULL, MANAGED_BYTES + VA_BLOCK_BYTES, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at;

	if (hole == MAP_FAILED)
		return MAP_FAILED;
	at = ((uintptr_t)hole + VA_BLOCK_BYTES - 1) & ~(uintptr_t)(VA_BLOCK_BYTES - 1);
	/* UVM's rule: the offset is the address itself, and MAP_SHARED. */
	return mmap((void *)at, MANAGED_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		    fd, (off_t)at);
}

static void managed_tests(struct managed *m)
{
	UVM_TEST_VA_RANGE_INFO_PARAMS range;
	UVM_TEST_VA_RESIDENCY_INFO_PARAMS res;
	UVM_TEST_VA_BLOCK_INFO_PARAMS block;
	UVM_TEST_VA_RANGE_SPLIT_PARAMS split;
	uint64_t start, words = MANAGED_BYTES / sizeof(uint64_t), bad = 0;
	char why[160] = "";
	bool ok;

	m->base = managed_map(m->fd);
	verdict(m, m->base != MAP_FAILED, "managed range: mmap of the UVM fd at offset = address",
		strerror(errno));
	if (m->base == MAP_FAILED)
		return;
	start = (uintptr_t)m->base;

	/* CPU first touch: nvidia-uvm populates each page on the CPU. */
	for (uint64_t i = 0; i < words; i++)
		m->base[i] = start + i * 0x9e3779b97f4a7c15ull;
	for (uint64_t i = 0; i < words; i++)
		bad += m->base[i] != start + i * 0x9e3779b97f4a7c15ull;
	snprintf(why, sizeof(why), "%llu of %llu words differ", (unsigned long long)bad,
		 (unsigned long long)words);
	verdict(m, bad == 0, "managed range: every word the CPU wrote reads back", why);

	memset(&range, 0, sizeof(range));
	range.lookup_address = start;
	ok = uvm_test(m, UVM_TEST_VA_RANGE_INFO, &range, &range.rmStatus, why, sizeof(why));
	if (ok && (range.type != UVM_TEST_VA_RANGE_TYPE_MANAGED || range.va_range_start != start ||
		   range.va_range_end != start + MANAGED_BYTES - 1)) {
		snprintf(why, sizeof(why), "type %u, 0x%llx-0x%llx", range.type,
			 (unsigned long long)range.va_range_start,
			 (unsigned long long)range.va_range_end);
		ok = false;
	}
	if (ok) {
		static const NvU8 none[16];
		const NvU8 *want = m->ember ? cpu_uuid : none;

		ok = memcmp(range.preferred_location.uuid, want, 16) == 0;
		snprintf(why, sizeof(why), "preferred location is not %s",
			 m->ember ? "the CPU (the Ember glue's mapped-by-default)" : "unset");
	}
	verdict(m, ok, "UVM_TEST_VA_RANGE_INFO: a managed range, its bounds, its preferred location",
		why);

	memset(&res, 0, sizeof(res));
	res.lookup_address = start + MANAGED_BYTES / 2;
	ok = uvm_test(m, UVM_TEST_VA_RESIDENCY_INFO, &res, &res.rmStatus, why, sizeof(why));
	if (ok && (res.resident_on_count != 1 || memcmp(res.resident_on[0].uuid, cpu_uuid, 16))) {
		snprintf(why, sizeof(why), "resident on %u processors, not the CPU alone",
			 res.resident_on_count);
		ok = false;
	}
	verdict(m, ok, "UVM_TEST_VA_RESIDENCY_INFO: resident on the CPU alone", why);

	memset(&block, 0, sizeof(block));
	block.lookup_address = start + VA_BLOCK_BYTES + 4096;
	ok = uvm_test(m, UVM_TEST_VA_BLOCK_INFO, &block, &block.rmStatus, why, sizeof(why));
	if (ok && (block.va_block_start != start + VA_BLOCK_BYTES ||
		   block.va_block_end != start + 2 * VA_BLOCK_BYTES - 1)) {
		snprintf(why, sizeof(why), "block 0x%llx-0x%llx",
			 (unsigned long long)block.va_block_start,
			 (unsigned long long)block.va_block_end);
		ok = false;
	}
	verdict(m, ok, "UVM_TEST_VA_BLOCK_INFO: the 2 MiB block around an address", why);

	memset(&split, 0, sizeof(split));
	split.split_address = start + 2 * VA_BLOCK_BYTES - 1;
	ok = uvm_test(m, UVM_TEST_VA_RANGE_SPLIT, &split, &split.rmStatus, why, sizeof(why));
	if (ok) {
		memset(&range, 0, sizeof(range));
		range.lookup_address = start;
		ok = uvm_test(m, UVM_TEST_VA_RANGE_INFO, &range, &range.rmStatus, why, sizeof(why));
		if (ok && range.va_range_end != split.split_address) {
			snprintf(why, sizeof(why), "the range ends at 0x%llx after the split",
				 (unsigned long long)range.va_range_end);
			ok = false;
		}
	}
	verdict(m, ok, "UVM_TEST_VA_RANGE_SPLIT: the range ends at the split", why);

	bad = 0;
	for (uint64_t i = 0; i < words; i++)
		bad += m->base[i] != start + i * 0x9e3779b97f4a7c15ull;
	snprintf(why, sizeof(why), "%llu words differ after the split", (unsigned long long)bad);
	verdict(m, bad == 0, "managed range: the data survives the split", why);
	verdict(m, munmap(m->base, MANAGED_BYTES) == 0, "managed range: munmap", strerror(errno));
}

/* KTAP lines of managed_tests(), for the plan. */
#define MANAGED_TESTS 8

/*
 * Registers the emulated GPU, runs gpu_tests[] on it from KTAP number
 * first, and unregisters it: NGPU_TESTS + 2 lines. Returns the failures.
 */
static unsigned int gpu_section(struct test_ctx *c, unsigned int first)
{
	UVM_REGISTER_GPU_PARAMS reg = { 0 };
	UVM_UNREGISTER_GPU_PARAMS unreg = { 0 };
	unsigned int failed = 0, n = first;
	char why[160];

	if (emgpu_uuid(&c->gpu, why, sizeof(why)) ||
	    (reg.gpu_uuid = c->gpu, reg.rmCtrlFd = -1,
	     ioctl(c->fd, UVM_REGISTER_GPU, &reg) != 0) || reg.rmStatus != NV_OK) {
		printf("not ok %u UVM_REGISTER_GPU\n# %s; errno %d, rmStatus 0x%x\n", n, why,
		       errno, reg.rmStatus);
		/* nothing else can run on a GPU that is not there */
		for (unsigned int i = 0; i <= NGPU_TESTS; i++)
			printf("ok %u %s # SKIP no GPU\n", n + 1 + i,
			       i < NGPU_TESTS ? gpu_tests[i].name : "UVM_UNREGISTER_GPU");
		return 1;
	}
	printf("ok %u UVM_REGISTER_GPU\n", n++);
	for (unsigned int i = 0; i < NGPU_TESTS; i++)
		failed += run_test(c, &gpu_tests[i], n++);
	unreg.gpu_uuid = c->gpu;
	if (ioctl(c->fd, UVM_UNREGISTER_GPU, &unreg) != 0 || unreg.rmStatus != NV_OK) {
		printf("not ok %u UVM_UNREGISTER_GPU\n# errno %d, rmStatus 0x%x\n", n, errno,
		       unreg.rmStatus);
		failed++;
	} else {
		printf("ok %u UVM_UNREGISTER_GPU\n", n);
	}
	return failed;
}

int main(int argc, char **argv)
{
	bool ember = false, gpu = false;
	const char *dev = "/dev/nvidia-uvm";
	UVM_INITIALIZE_PARAMS init = { 0 };
	struct managed m = { 0 };
	struct test_ctx c = { 0 };
	unsigned int failed = 0, planned;
	int fd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ember"))
			ember = true;
		else if (!strcmp(argv[i], "--gpu"))
			gpu = true;
		else
			dev = argv[i];
	}
	m.ember = ember;
	planned = NTESTS + 1 + MANAGED_TESTS + (gpu ? NGPU_TESTS + 2 : 0);
	printf("KTAP version 1\n1..%u\n", planned);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("not ok 1 UVM_INITIALIZE\n# open %s: %s\nBail out!\n", dev, strerror(errno));
		return 1;
	}
	if (ioctl(fd, UVM_INITIALIZE, &init) != 0 || init.rmStatus != NV_OK) {
		printf("not ok 1 UVM_INITIALIZE\n# errno %d, rmStatus 0x%x\nBail out!\n", errno,
		       init.rmStatus);
		return 1;
	}
	printf("ok 1 UVM_INITIALIZE\n");
	c.fd = fd;
	for (unsigned int i = 0; i < NTESTS; i++)
		failed += run_test(&c, &tests[i], i + 2);
	m.fd = fd;
	m.n = NTESTS + 1;
	managed_tests(&m);
	failed += m.failed;
	if (gpu && m.n == NTESTS + 1 + MANAGED_TESTS) {
		failed += gpu_section(&c, m.n + 1);
		m.n += NGPU_TESTS + 2;
	}
	close(fd);
	/* A test that did not run (after a failed mmap) is neither. */
	printf("# %u passed, %u failed, %u not run\n", m.n - failed, failed, planned - m.n);
	return failed || m.n != planned;
}
