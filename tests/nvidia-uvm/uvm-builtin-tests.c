// SPDX-License-Identifier: GPL-2.0
/*
 * uvm-builtin-tests: runs NVIDIA's built-in nvidia-uvm tests (the UVM_TEST_*
 * ioctls of uvm_test_ioctl.h, routed when nvidia-uvm is loaded with
 * uvm_enable_builtin_tests=1) in the guest and prints KTAP, one line a test
 * named after its ioctl. Built once per driver branch against that
 * branch's headers (Debian's nvidia-open-kernel-source, at build time).
 *
 * A test passes when the ioctl returns 0 and its rmStatus is NV_OK (or
 * the exact status the line names); any other answer fails it, with both
 * printed. First the tests that need no GPU, then a managed range made as
 * libcuda makes one (mmap of the UVM fd at offset = address): CPU data
 * read back word for word, NVIDIA's range, residency, block, perf-module
 * and range-group tests on it, and the cgroup query against the guest
 * kernel. With --ember, the range must have the CPU as its preferred
 * location, as the Ember glue sets it for Ember-adaptive's
 * mapped-by-default ranges; without, none.
 *
 * With --gpu, the emulated GPU is registered first (UVM_REGISTER_GPU with
 * the UUID emgpu-rm.ko publishes in sysfs), then NVIDIA's tests that need
 * one GPU run on it (channels, pushes, copy engine, host methods, page
 * tree, PMM and PMA, TLB invalidates, fault buffer, access counters), with
 * the parameters uvm_test_ioctl.h documents; then those that need a GPU
 * VA space, a registered channel, managed memory on the GPU and a tools
 * session (va_space_section()), and the GPU is unregistered.
 * UVM_TEST_PMM_SANITY runs in full mode (every memory type and free
 * pattern); with --pmm-basic, in basic mode (user memory, one pattern).
 *
 * usage: uvm-builtin-tests [--ember] [--gpu] [--pmm-basic] [DEVICE]
 *        (default /dev/nvidia-uvm)
 */
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "uvm_linux_ioctl.h"
#include "uvm_test_ioctl.h"
#include "uvm-user.h"

/*
 * What a test's parameters may need: the UVM fd (and its device, for
 * more), the registered GPU, whether nvidia-uvm runs Ember-adaptive.
 */
struct test_ctx {
	int fd;
	const char *dev;
	bool ember;
	bool pmm_basic;
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

/*
 * Full mode takes 12 s of the guest under TCG, six times basic's: init
 * asks for basic mode under Debian's module only, whose PMM is NVIDIA's
 * own (the series changes the PMM's eviction path).
 */
static int pmm_sanity(const struct test_ctx *c, void *p)
{
	UVM_TEST_PMM_SANITY_PARAMS *t = p;

	t->mode = c->pmm_basic ? UvmTestPmmSanityModeBasic : UvmTestPmmSanityModeFull;
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

	snprintf(why, len, "CPU chunk size mask 0x%llx has no 4 KiB",
		 (unsigned long long)t->alloc_size_mask);
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
	TEST(PMM_SANITY, pmm_sanity),
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
#define VA_BLOCK_BYTES UVM_VA_BLOCK_BYTES

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

/*
 * Two pieces of the managed range in one range group (1-2 MiB and 5-6 MiB
 * in; the second past the split): NVIDIA's queries count them, and find
 * a piece's bounds and group, and the gap between them.
 */
static void range_group_tests(struct managed *m, uint64_t start)
{
	const uint64_t mib = 1ull << 20;
	UVM_CREATE_RANGE_GROUP_PARAMS group = { 0 };
	UVM_SET_RANGE_GROUP_PARAMS set = { 0 };
	UVM_TEST_RANGE_GROUP_RANGE_COUNT_PARAMS count = { 0 };
	UVM_TEST_RANGE_GROUP_RANGE_INFO_PARAMS in = { 0 }, gap = { 0 };
	char why[200] = "";
	bool ok;

	ok = uvm_test(m, UVM_CREATE_RANGE_GROUP, &group, &group.rmStatus, why, sizeof(why));
	for (unsigned int i = 0; ok && i < 2; i++) {
		set.rangeGroupId = group.rangeGroupId;
		set.requestedBase = start + (1 + 4 * i) * mib;
		set.length = mib;
		ok = uvm_test(m, UVM_SET_RANGE_GROUP, &set, &set.rmStatus, why, sizeof(why));
	}
	if (ok) {
		count.rangeGroupId = group.rangeGroupId;
		ok = uvm_test(m, UVM_TEST_RANGE_GROUP_RANGE_COUNT, &count, &count.rmStatus, why,
			      sizeof(why));
		snprintf(why + strlen(why), sizeof(why) - strlen(why), ", count %llu",
			 (unsigned long long)count.count);
		ok = ok && count.count == 2;
	}
	if (ok) {
		/* a group the VA space does not have */
		count.rangeGroupId = group.rangeGroupId + 1000;
		ok = ioctl(m->fd, UVM_TEST_RANGE_GROUP_RANGE_COUNT, &count) == 0 &&
		     count.rmStatus == NV_ERR_OBJECT_NOT_FOUND;
		snprintf(why, sizeof(why), "unknown group: rmStatus 0x%x, not NV_ERR_OBJECT_NOT_FOUND",
			 count.rmStatus);
	}
	verdict(m, ok, "UVM_TEST_RANGE_GROUP_RANGE_COUNT: the group's two ranges, an unknown group NV_ERR_OBJECT_NOT_FOUND",
		why);

	in.lookup_address = start + mib + 4096;
	gap.lookup_address = start + 3 * mib;
	ok = uvm_test(m, UVM_TEST_RANGE_GROUP_RANGE_INFO, &in, &in.rmStatus, why, sizeof(why)) &&
	     uvm_test(m, UVM_TEST_RANGE_GROUP_RANGE_INFO, &gap, &gap.rmStatus, why, sizeof(why));
	if (ok) {
		ok = in.range_group_present && in.range_group_id == group.rangeGroupId &&
		     in.range_group_range_start == start + mib &&
		     in.range_group_range_end == start + 2 * mib - 1 && !gap.range_group_present &&
		     gap.range_group_id == UVM_RANGE_GROUP_ID_NONE &&
		     gap.range_group_range_start == start + 2 * mib &&
		     gap.range_group_range_end == start + 5 * mib - 1;
		snprintf(why, sizeof(why),
			 "in: present %u, group %llu of %llu, 0x%llx-0x%llx; gap: present %u, 0x%llx-0x%llx",
			 in.range_group_present, (unsigned long long)in.range_group_id,
			 (unsigned long long)group.rangeGroupId,
			 (unsigned long long)(in.range_group_range_start - start),
			 (unsigned long long)(in.range_group_range_end - start),
			 gap.range_group_present, (unsigned long long)(gap.range_group_range_start - start),
			 (unsigned long long)(gap.range_group_range_end - start));
	}
	verdict(m, ok, "UVM_TEST_RANGE_GROUP_RANGE_INFO: a range of the group, its bounds and id; the gap between them",
		why);
}

/*
 * nvidia-uvm charges its allocations to memory cgroups where the kernel
 * exports int_active_memcg (its uvm_linux.h: set_active_memcg() from
 * interrupt context, Linux 5.14 and on with CONFIG_MEMCG); the guest
 * kernel's /proc/kallsyms (CONFIG_KALLSYMS_ALL) lists the export's entry.
 */
static bool cgroup_accounting(int fd, char *why, size_t len)
{
	UVM_TEST_CGROUP_ACCOUNTING_SUPPORTED_PARAMS t = { 0 };
	char line[256];
	bool exported = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !exported && fgets(line, sizeof(line), f))
		exported = strstr(line, " __ksymtab_int_active_memcg\n") != NULL;
	if (f)
		fclose(f);
	if (ioctl(fd, UVM_TEST_CGROUP_ACCOUNTING_SUPPORTED, &t) != 0) {
		snprintf(why, len, "ioctl failed: %s", strerror(errno));
		return false;
	}
	snprintf(why, len, "rmStatus 0x%x, int_active_memcg %sexported (/proc/kallsyms %s)",
		 t.rmStatus, exported ? "" : "not ", f ? "read" : "unreadable");
	return f && t.rmStatus == (exported ? NV_OK : NV_ERR_NOT_SUPPORTED);
}

static void managed_tests(struct managed *m)
{
	UVM_TEST_VA_RANGE_INFO_PARAMS range;
	UVM_TEST_VA_RESIDENCY_INFO_PARAMS res;
	UVM_TEST_VA_BLOCK_INFO_PARAMS block;
	UVM_TEST_VA_RANGE_SPLIT_PARAMS split;
	UVM_TEST_PERF_MODULE_SANITY_PARAMS perf;
	uint64_t start, words = MANAGED_BYTES / sizeof(uint64_t), bad = 0;
	char why[160] = "";
	bool ok;

	m->base = uvm_managed_map(m->fd, MANAGED_BYTES);
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
		const NvU8 *want = m->ember ? uvm_cpu_uuid : none;

		ok = memcmp(range.preferred_location.uuid, want, 16) == 0;
		snprintf(why, sizeof(why), "preferred location is not %s",
			 m->ember ? "the CPU (the Ember glue's mapped-by-default)" : "unset");
	}
	verdict(m, ok, "UVM_TEST_VA_RANGE_INFO: a managed range, its bounds, its preferred location",
		why);

	memset(&res, 0, sizeof(res));
	res.lookup_address = start + MANAGED_BYTES / 2;
	ok = uvm_test(m, UVM_TEST_VA_RESIDENCY_INFO, &res, &res.rmStatus, why, sizeof(why));
	if (ok && (res.resident_on_count != 1 || memcmp(res.resident_on[0].uuid, uvm_cpu_uuid, 16))) {
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

	/* the test's fake faults need two existing blocks; one is refused */
	memset(&perf, 0, sizeof(perf));
	perf.range_address = start;
	perf.range_size = VA_BLOCK_BYTES;
	ok = ioctl(m->fd, UVM_TEST_PERF_MODULE_SANITY, &perf) == 0 &&
	     perf.rmStatus == NV_ERR_INVALID_ARGUMENT;
	snprintf(why, sizeof(why), "one block: rmStatus 0x%x, not NV_ERR_INVALID_ARGUMENT",
		 perf.rmStatus);
	if (ok) {
		memset(&perf, 0, sizeof(perf));
		perf.range_address = start;
		perf.range_size = 2 * VA_BLOCK_BYTES;
		ok = uvm_test(m, UVM_TEST_PERF_MODULE_SANITY, &perf, &perf.rmStatus, why,
			      sizeof(why));
	}
	verdict(m, ok, "UVM_TEST_PERF_MODULE_SANITY: two blocks the CPU populated, one refused",
		why);

	range_group_tests(m, start);
	verdict(m, cgroup_accounting(m->fd, why, sizeof(why)),
		"UVM_TEST_CGROUP_ACCOUNTING_SUPPORTED: as the guest kernel exports int_active_memcg",
		why);

	bad = 0;
	for (uint64_t i = 0; i < words; i++)
		bad += m->base[i] != start + i * 0x9e3779b97f4a7c15ull;
	snprintf(why, sizeof(why), "%llu words differ after the split", (unsigned long long)bad);
	verdict(m, bad == 0, "managed range: the data survives the split", why);
	verdict(m, munmap(m->base, MANAGED_BYTES) == 0, "managed range: munmap", strerror(errno));
}

/* KTAP lines of managed_tests(), for the plan. */
#define MANAGED_TESTS 12

/*
 * The GPU VA space section: NVIDIA's tests that need the process's GPU VA
 * space, made as libcuda makes it (uvm-user.h): an RM VA space and compute
 * channel of /dev/emgpu-rm, the mm pinned (UVM_MM_INITIALIZE on a second
 * fd), UVM_REGISTER_GPU_VASPACE and UVM_REGISTER_CHANNEL; managed ranges
 * migrated to the GPU, their mappings changed and a chunk evicted; the
 * access counters reconfigured; a tools session's event queue and
 * counters; a STREAM launch's faults and replays; teardown. One KTAP line
 * each, in vas_names[]'s order.
 */
enum vas_test {
	VAS_SETUP, VAS_RANGES, VAS_INJECT, VAS_CHANNEL, VAS_CHECK_CHANNEL, VAS_MIGRATE,
	VAS_REVERSE_MAP, VAS_SYSMEM, VAS_PTE, VAS_TLB, VAS_EVICT, VAS_AC_RECONFIGURE,
	VAS_AC_RESET, VAS_AC_IGNORE, VAS_TOOLS_INJECT, VAS_TOOLS_COUNTER, VAS_LAUNCH,
	VAS_TOOLS_REPLAY, VAS_DRAIN, VAS_FLUSH, VAS_STOPS_IMMEDIATE, VAS_DESTROY_DELAY,
	VAS_TEARDOWN, VAS_TESTS
};

static const char *const vas_names[VAS_TESTS] = {
	[VAS_SETUP] = "GPU VA space: an RM VA space and two compute channels of /dev/emgpu-rm, the mm pinned (UVM_MM_INITIALIZE)",
	[VAS_RANGES] = "GPU VA space: managed ranges the CPU fills (two 2 MiB blocks; one block split in four ranges)",
	[VAS_INJECT] = "UVM_TEST_VA_RANGE_INJECT_ADD_GPU_VA_SPACE_ERROR: UVM_REGISTER_GPU_VASPACE fails with NV_ERR_NO_MEMORY, a retry succeeds",
	[VAS_CHANNEL] = "GPU VA space: UVM_REGISTER_CHANNEL of a compute channel",
	[VAS_CHECK_CHANNEL] = "UVM_TEST_CHECK_CHANNEL_VA_SPACE: the registered channel is this VA space's, the unregistered one NV_ERR_INVALID_CHANNEL",
	[VAS_MIGRATE] = "GPU VA space: UVM_MIGRATE to the GPU, every block resident on and mapped by it alone",
	[VAS_REVERSE_MAP] = "UVM_TEST_PMM_REVERSE_MAP: a GPU block's 2 MiB chunk, four ranges' blocks in one root chunk",
	[VAS_SYSMEM] = "UVM_TEST_PMM_SYSMEM",
	[VAS_PTE] = "UVM_TEST_CHANGE_PTE_MAPPING: the GPU's mapping read-only (VA_RESIDENCY_INFO), an upgrade NV_ERR_INVALID_OPERATION, then none",
	[VAS_TLB] = "UVM_TEST_INVALIDATE_TLB: targeted and all, a bad membar NV_ERR_INVALID_PARAMETER",
	[VAS_EVICT] = "UVM_TEST_EVICT_CHUNK: a GPU block's 2 MiB chunk evicted, the block resident on the CPU, every word intact",
	[VAS_AC_RECONFIGURE] = "UVM_TEST_RECONFIGURE_ACCESS_COUNTERS: threshold 0 NV_ERR_INVALID_ARGUMENT, another VA space then NV_ERR_INVALID_STATE",
	[VAS_AC_RESET] = "UVM_TEST_RESET_ACCESS_COUNTERS: all and targeted, a bad mode NV_ERR_INVALID_ARGUMENT",
	[VAS_AC_IGNORE] = "UVM_TEST_SET_IGNORE_ACCESS_COUNTERS: on and off, a GPU not registered NV_ERR_INVALID_DEVICE",
	[VAS_TOOLS_INJECT] = "UVM_TEST_INJECT_TOOLS_EVENT: three events read back word for word from a tools event queue",
	[VAS_TOOLS_COUNTER] = "UVM_TEST_INCREMENT_TOOLS_COUNTER: the GPU's tools counter reads amount x count, the CPU's increments not",
	[VAS_LAUNCH] = "GPU VA space: EMGPU_RM_LAUNCH of STREAM on the evicted block: done, its result the sum of the words read",
	[VAS_TOOLS_REPLAY] = "UVM_TEST_TOOLS_FLUSH_REPLAY_EVENTS: one GpuFaultReplay event a replay of fault_stats",
	[VAS_DRAIN] = "UVM_TEST_DRAIN_REPLAYABLE_FAULTS: none pending after the launch, a GPU not registered NV_ERR_INVALID_DEVICE",
	[VAS_FLUSH] = "UVM_TEST_FAULT_BUFFER_FLUSH: 16 flushes",
	[VAS_STOPS_IMMEDIATE] = "UVM_TEST_MAKE_CHANNEL_STOPS_IMMEDIATE, then UVM_UNREGISTER_CHANNEL",
	[VAS_DESTROY_DELAY] = "UVM_TEST_DESTROY_GPU_VA_SPACE_DELAY: UVM_UNREGISTER_GPU_VASPACE takes the 100 ms set, at least",
	[VAS_TEARDOWN] = "GPU VA space: ranges unmapped, channels and RM VA space freed",
};

/*
 * The tools event queue's V2 layout (the one with every processor), as
 * each branch asks for it: 580 through ioctls of their own (..._V2), 555
 * and 550 by a version field (550 with a control block of its own, named
 * by UVM_MAX_PROCESSORS_V2; 555 names V1 instead), 535 has one layout.
 */
#if defined(UVM_TOOLS_INIT_EVENT_TRACKER_V2)
typedef UvmEventEntry_V2 tools_entry_t;
typedef UvmToolsEventControlData tools_ctrl_t;
typedef UVM_TEST_INJECT_TOOLS_EVENT_V2_PARAMS tools_inject_t;
#define TOOLS_TRACKER_IOCTL UVM_TOOLS_INIT_EVENT_TRACKER_V2
#define TOOLS_INJECT_IOCTL UVM_TEST_INJECT_TOOLS_EVENT_V2
#define TOOLS_VERSION(p) ((void)(p))
#define INJECT_ENTRY(p) (&(p)->entry_v2)
#elif defined(UVM_MAX_PROCESSORS_V1) || defined(UVM_MAX_PROCESSORS_V2)
typedef UvmEventEntry_V2 tools_entry_t;
#ifdef UVM_MAX_PROCESSORS_V2
typedef UvmToolsEventControlData_V2 tools_ctrl_t;
#else
typedef UvmToolsEventControlData tools_ctrl_t;
#endif
typedef UVM_TEST_INJECT_TOOLS_EVENT_PARAMS tools_inject_t;
#define TOOLS_TRACKER_IOCTL UVM_TOOLS_INIT_EVENT_TRACKER
#define TOOLS_INJECT_IOCTL UVM_TEST_INJECT_TOOLS_EVENT
#define TOOLS_VERSION(p) ((p)->requestedVersion = UvmToolsEventQueueVersion_V2)
#define INJECT_ENTRY(p) ((p)->version = UvmToolsEventQueueVersion_V2, &(p)->entry_v2)
#else
typedef UvmEventEntry tools_entry_t;
typedef UvmToolsEventControlData tools_ctrl_t;
typedef UVM_TEST_INJECT_TOOLS_EVENT_PARAMS tools_inject_t;
#define TOOLS_TRACKER_IOCTL UVM_TOOLS_INIT_EVENT_TRACKER
#define TOOLS_INJECT_IOCTL UVM_TEST_INJECT_TOOLS_EVENT
#define TOOLS_VERSION(p) ((void)(p))
#define INJECT_ENTRY(p) (&(p)->entry)
#endif

#define R1_BYTES (2 * VA_BLOCK_BYTES)
#define R2_PIECE (VA_BLOCK_BYTES / 4)
#define TOOLS_QUEUE_ENTRIES 1024
#define LAUNCH_BYTES (512ull << 10)
#define DESTROY_DELAY_US 100000

struct vas {
	const struct test_ctx *c;
	struct managed *m;		/* KTAP numbering */
	unsigned int next;		/* the vas_test due */
	const char *broken;		/* a step the rest needs failed */
	int rm_fd, mm_fd, tools_fd, counters_fd;
	struct emgpu_rm_va_space vs;
	struct emgpu_rm_channel ch, ch2;
	bool vas_registered, ch_registered;
	uint64_t *r1;			/* two 2 MiB blocks */
	uint64_t *r2;			/* one block, split in four ranges */
	tools_entry_t *queue;
	tools_ctrl_t *ctrl;
	NvU64 *counters;
	long long replays0;
};

static void vas_verdict(struct vas *v, enum vas_test t, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void vas_verdict(struct vas *v, enum vas_test t, bool ok, const char *fmt, ...)
{
	char why[300];
	va_list ap;

	if (t != v->next) {
		snprintf(why, sizeof(why), "runner bug: test %u run as %u", t, v->next);
		ok = false;
	} else {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	v->next++;
	verdict(v->m, ok, vas_names[t], why);
}

/* A step is run unless one it needs failed; then it fails naming that. */
static bool vas_can_run(struct vas *v, enum vas_test t)
{
	if (!v->broken)
		return true;
	vas_verdict(v, t, false, "not run: %s failed", v->broken);
	return false;
}

/* The ioctl answers exactly @want. */
static bool vas_uvm_is(int fd, unsigned long cmd, void *params, const NV_STATUS *status,
		       NV_STATUS want, const char *what, char *why, size_t len)
{
	if (ioctl(fd, cmd, params)) {
		snprintf(why, len, "%s: errno %d (%s)", what, errno, strerror(errno));
		return false;
	}
	snprintf(why, len, "%s: rmStatus 0x%x, want 0x%x", what, *status, want);
	return *status == want;
}

static uint64_t pattern(const uint64_t *p)
{
	return (uintptr_t)p * 0x9e3779b97f4a7c15ull;
}

/* Who a block is resident on and mapped by (VA_RESIDENCY_INFO at va). */
static bool residency(struct vas *v, uint64_t va, UVM_TEST_VA_RESIDENCY_INFO_PARAMS *res,
		      char *why, size_t len)
{
	memset(res, 0, sizeof(*res));
	res->lookup_address = va;
	return uvm(v->c->fd, UVM_TEST_VA_RESIDENCY_INFO, res, &res->rmStatus, why, len);
}

/* The GPU's mapping type of a residency answer, or -1 where it maps none. */
static int gpu_mapping(const struct vas *v, const UVM_TEST_VA_RESIDENCY_INFO_PARAMS *res)
{
	for (unsigned int i = 0; i < res->mapped_on_count; i++)
		if (!memcmp(res->mapped_on[i].uuid, v->c->gpu.uuid, 16))
			return (int)res->mapping_type[i];
	return -1;
}

static void vas_setup(struct vas *v)
{
	UVM_MM_INITIALIZE_PARAMS mm_init = { 0 };
	int err = 0;

	v->rm_fd = open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC);
	v->mm_fd = open(v->c->dev, O_RDWR | O_CLOEXEC);
	mm_init.uvmFd = v->c->fd;
	if (v->rm_fd < 0 || v->mm_fd < 0) {
		err = errno;
	} else if (ioctl(v->mm_fd, UVM_MM_INITIALIZE, &mm_init) ||
		   (mm_init.rmStatus != NV_OK && mm_init.rmStatus != NV_WARN_NOTHING_TO_DO)) {
		err = -1;
	} else {
		err = rm(v->rm_fd, EMGPU_RM_VA_SPACE_CREATE, &v->vs);
		v->ch = (struct emgpu_rm_channel){ .h_client = v->vs.h_client,
						   .h_va_space = v->vs.h_va_space };
		v->ch2 = v->ch;
		if (!err)
			err = rm(v->rm_fd, EMGPU_RM_CHANNEL_CREATE, &v->ch);
		if (!err)
			err = rm(v->rm_fd, EMGPU_RM_CHANNEL_CREATE, &v->ch2);
	}
	if (err)
		v->broken = "the setup";
	vas_verdict(v, VAS_SETUP, !err, "fds %d %d, errno %d (-1: UVM_MM_INITIALIZE rmStatus 0x%x)",
		    v->rm_fd, v->mm_fd, err, mm_init.rmStatus);
}

static void vas_ranges(struct vas *v)
{
	UVM_TEST_VA_RANGE_SPLIT_PARAMS split;
	char why[160] = "";
	bool ok;

	if (!vas_can_run(v, VAS_RANGES))
		return;
	v->r1 = uvm_managed_map(v->c->fd, R1_BYTES);
	v->r2 = uvm_managed_map(v->c->fd, VA_BLOCK_BYTES);
	ok = v->r1 != MAP_FAILED && v->r2 != MAP_FAILED;
	snprintf(why, sizeof(why), "mmap: %s", strerror(errno));
	/* four 512 KiB ranges in one 2 MiB block: a block each */
	for (unsigned int i = 1; ok && i < 4; i++) {
		memset(&split, 0, sizeof(split));
		split.split_address = (uintptr_t)v->r2 + i * R2_PIECE - 1;
		ok = uvm(v->c->fd, UVM_TEST_VA_RANGE_SPLIT, &split, &split.rmStatus, why,
			     sizeof(why));
	}
	if (ok) {
		for (uint64_t i = 0; i < R1_BYTES / 8; i++)
			v->r1[i] = pattern(&v->r1[i]);
		for (uint64_t i = 0; i < VA_BLOCK_BYTES / 8; i++)
			v->r2[i] = pattern(&v->r2[i]);
	} else {
		v->r1 = v->r1 == MAP_FAILED ? NULL : v->r1;
		v->r2 = v->r2 == MAP_FAILED ? NULL : v->r2;
		v->broken = "mapping the managed ranges";
	}
	vas_verdict(v, VAS_RANGES, ok, "%s", why);
}

/*
 * Armed on a range, the next GPU VA space's addition to it fails with
 * NV_ERR_NO_MEMORY (uvm_va_range_add_gpu_va_space), so does the
 * registration; the flag is then clear and a retry registers it.
 */
static void vas_inject(struct vas *v)
{
	UVM_TEST_VA_RANGE_INJECT_ADD_GPU_VA_SPACE_ERROR_PARAMS inj = { 0 };
	UVM_REGISTER_GPU_VASPACE_PARAMS reg = { 0 };
	char why[200];
	bool ok;

	if (!vas_can_run(v, VAS_INJECT))
		return;
	inj.lookup_address = (uintptr_t)v->r1;
	reg.gpuUuid = v->c->gpu;
	reg.rmCtrlFd = v->rm_fd;
	reg.hClient = v->vs.h_client;
	reg.hVaSpace = v->vs.h_va_space;
	ok = uvm(v->c->fd, UVM_TEST_VA_RANGE_INJECT_ADD_GPU_VA_SPACE_ERROR, &inj, &inj.rmStatus,
		     why, sizeof(why)) &&
	     vas_uvm_is(v->c->fd, UVM_REGISTER_GPU_VASPACE, &reg, &reg.rmStatus, NV_ERR_NO_MEMORY,
			"armed", why, sizeof(why));
	if (ok) {
		reg.rmStatus = 0;
		ok = uvm(v->c->fd, UVM_REGISTER_GPU_VASPACE, &reg, &reg.rmStatus, why,
			     sizeof(why));
		v->vas_registered = ok;
	}
	if (!ok)
		v->broken = "UVM_REGISTER_GPU_VASPACE";
	vas_verdict(v, VAS_INJECT, ok, "%s", why);
}

static void vas_channel(struct vas *v)
{
	UVM_REGISTER_CHANNEL_PARAMS reg = { 0 };
	char why[160];
	bool ok;

	if (!vas_can_run(v, VAS_CHANNEL))
		return;
	/* resourceCount 0: base and length unused (docs/rm-standin.md) */
	reg.gpuUuid = v->c->gpu;
	reg.rmCtrlFd = v->rm_fd;
	reg.hClient = v->vs.h_client;
	reg.hChannel = v->ch.h_channel;
	ok = uvm(v->c->fd, UVM_REGISTER_CHANNEL, &reg, &reg.rmStatus, why, sizeof(why));
	v->ch_registered = ok;
	if (!ok)
		v->broken = "UVM_REGISTER_CHANNEL";
	vas_verdict(v, VAS_CHANNEL, ok, "%s", why);
}

/*
 * A fault entry made from the channel's instance block (VEID 0) names this
 * VA space only for a channel nvidia-uvm registered.
 */
static void vas_check_channel(struct vas *v)
{
	UVM_TEST_CHECK_CHANNEL_VA_SPACE_PARAMS t = { 0 };
	char why[160];
	bool ok;

	if (!vas_can_run(v, VAS_CHECK_CHANNEL))
		return;
	t.gpu_uuid = v->c->gpu;
	t.rm_ctrl_fd = v->rm_fd;
	t.client = v->vs.h_client;
	t.channel = v->ch.h_channel;
	t.va_space_fd = v->c->fd;
	ok = vas_uvm_is(v->c->fd, UVM_TEST_CHECK_CHANNEL_VA_SPACE, &t, &t.rmStatus, NV_OK,
			"registered", why, sizeof(why));
	t.channel = v->ch2.h_channel;
	ok = ok && vas_uvm_is(v->c->fd, UVM_TEST_CHECK_CHANNEL_VA_SPACE, &t, &t.rmStatus,
			      NV_ERR_INVALID_CHANNEL, "unregistered", why, sizeof(why));
	vas_verdict(v, VAS_CHECK_CHANNEL, ok, "%s", why);
}

static bool migrate(struct vas *v, const void *p, uint64_t bytes, char *why, size_t len)
{
	UVM_MIGRATE_PARAMS mig = { 0 };

	mig.base = (uintptr_t)p;
	mig.length = bytes;
	mig.destinationUuid = v->c->gpu;
	return uvm(v->c->fd, UVM_MIGRATE, &mig, &mig.rmStatus, why, len);
}

static void vas_migrate(struct vas *v)
{
	UVM_TEST_VA_RESIDENCY_INFO_PARAMS res;
	uint64_t at[6];
	char why[200] = "";
	bool ok;

	if (!vas_can_run(v, VAS_MIGRATE))
		return;
	/* the four ranges in order: their chunks follow in one root chunk */
	ok = migrate(v, v->r1, R1_BYTES, why, sizeof(why));
	for (unsigned int i = 0; ok && i < 4; i++)
		ok = migrate(v, (uint8_t *)v->r2 + i * R2_PIECE, R2_PIECE, why, sizeof(why));
	at[0] = (uintptr_t)v->r1;
	at[1] = (uintptr_t)v->r1 + VA_BLOCK_BYTES;
	for (unsigned int i = 0; i < 4; i++)
		at[2 + i] = (uintptr_t)v->r2 + i * R2_PIECE;
	for (unsigned int i = 0; ok && i < 6; i++) {
		ok = residency(v, at[i], &res, why, sizeof(why));
		if (ok && (res.resident_on_count != 1 ||
			   memcmp(res.resident_on[0].uuid, v->c->gpu.uuid, 16) ||
			   res.mapped_on_count != 1 || gpu_mapping(v, &res) < 0)) {
			snprintf(why, sizeof(why), "block %u: resident on %u (GPU first: %d), mapped on %u (GPU: %d)",
				 i, res.resident_on_count,
				 !memcmp(res.resident_on[0].uuid, v->c->gpu.uuid, 16),
				 res.mapped_on_count, gpu_mapping(v, &res) >= 0);
			ok = false;
		}
	}
	if (!ok)
		v->broken = "UVM_MIGRATE";
	vas_verdict(v, VAS_MIGRATE, ok, "%s", why);
}

static void vas_reverse_map(struct vas *v)
{
	UVM_TEST_PMM_REVERSE_MAP_PARAMS t = { 0 };
	char why[160];

	if (!vas_can_run(v, VAS_REVERSE_MAP))
		return;
	t.gpu_uuid = v->c->gpu;
	t.range_address1 = (uintptr_t)v->r1;
	t.range_address2 = (uintptr_t)v->r2;
	t.range_size2 = VA_BLOCK_BYTES;
	vas_verdict(v, VAS_REVERSE_MAP,
		    uvm(v->c->fd, UVM_TEST_PMM_REVERSE_MAP, &t, &t.rmStatus, why, sizeof(why)),
		    "%s", why);
}

/*
 * The reverse map of sysmem pages the GPU maps, over a 2 MiB block and
 * the four ranges' blocks. 535 runs it on any GPU with access counters;
 * 550 only on one whose counters notify physical addresses (Volta),
 * answering NV_ERR_INVALID_DEVICE on Ampere (uvm_ampere.c:
 * access_counters_can_use_physical_addresses false), as on a card.
 */
static void vas_sysmem(struct vas *v)
{
#ifndef UVM_TEST_PMM_SYSMEM
	/* gone from nvidia-uvm by 580, with the sysmem reverse map it tested */
	if (v->next == VAS_SYSMEM) {
		v->next++;
		v->m->n++;
		printf("ok %u %s # SKIP this branch's nvidia-uvm has no UVM_TEST_PMM_SYSMEM\n", v->m->n,
		       vas_names[VAS_SYSMEM]);
	}
#else
	UVM_TEST_PMM_SYSMEM_PARAMS t = { 0 };
#if defined(UVM_MAX_PROCESSORS_V2) || defined(UVM_MAX_PROCESSORS_V1)
	const NV_STATUS want = NV_ERR_INVALID_DEVICE;	/* 550 and 555 */
#else
	const NV_STATUS want = NV_OK;
#endif
	char why[160];

	if (!vas_can_run(v, VAS_SYSMEM))
		return;
	t.range_address1 = (uintptr_t)v->r1;
	t.range_address2 = (uintptr_t)v->r2;
	vas_verdict(v, VAS_SYSMEM,
		    vas_uvm_is(v->c->fd, UVM_TEST_PMM_SYSMEM, &t, &t.rmStatus, want, "sysmem", why,
			       sizeof(why)),
		    "%s", why);
#endif
}

/*
 * Under Ember-adaptive on the CPU's clock the glue's eager worker takes a
 * chunk that stayed idle for perf_eager_eviction_stale_intervals of its
 * passes (five jiffies here, at the scaled interval): a guest the host kept
 * waiting that long between UVM_MIGRATE and a check found the block on the
 * CPU (twice in make test beside other VMs, 2026-12-05). So each check
 * that needs r1's blocks on the GPU migrates them there first and, when it
 * fails while the glue's eager_evictions counter moved, runs again, up to
 * R1_ATTEMPTS times; a failure with the counter still is the verdict.
 */
#define R1_ATTEMPTS 3
#define EMBER_STATS "/sys/module/nvidia_uvm/parameters/ember_stats"

/* The glue's eager_evictions; 0 where the module has no glue. */
static unsigned long long eager_evictions(void)
{
	unsigned long long n = 0, value;
	char name[64];
	FILE *f = fopen(EMBER_STATS, "r");

	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", name, &value) == 2)
		if (!strcmp(name, "eager_evictions"))
			n = value;
	fclose(f);
	return n;
}

/*
 * Runs check on r1 (back on the GPU first), again while the eager worker
 * moved during a failed attempt. Returns its verdict; *attempts says how
 * many it took.
 */
static bool with_r1_on_gpu(struct vas *v, bool (*check)(struct vas *, char *, size_t),
			   char *why, size_t len, unsigned int *attempts)
{
	unsigned long long eager;
	bool ok;

	for (*attempts = 1;; ++*attempts) {
		eager = eager_evictions();
		ok = migrate(v, v->r1, R1_BYTES, why, len) && check(v, why, len);
		if (ok || *attempts == R1_ATTEMPTS || eager_evictions() == eager)
			return ok;
	}
}

/* The verdict of a check with_r1_on_gpu() ran, and a note if it repeated. */
static void r1_verdict(struct vas *v, enum vas_test t, bool ok, const char *why,
		       unsigned int attempts)
{
	vas_verdict(v, t, ok, "%s (attempt %u)", why, attempts);
	if (ok && attempts > 1)
		printf("# passed at attempt %u of %u: the glue's eager worker evicted during the one before\n",
		       attempts, R1_ATTEMPTS);
}

/* The GPU's mapping of one page of the first block, read back each time. */
static bool pte_check(struct vas *v, char *why, size_t len)
{
	UVM_TEST_CHANGE_PTE_MAPPING_PARAMS t = { 0 };
	UVM_TEST_VA_RESIDENCY_INFO_PARAMS res;
	int before = -1, ro = -1, none = -1;
	bool ok;

	t.uuid = v->c->gpu;
	t.va = (uintptr_t)v->r1 + (64u << 10);
	ok = residency(v, t.va, &res, why, len);
	before = gpu_mapping(v, &res);
	t.mapping = UVM_TEST_PTE_MAPPING_READ_ONLY;
	ok = ok && uvm(v->c->fd, UVM_TEST_CHANGE_PTE_MAPPING, &t, &t.rmStatus, why, len) &&
	     residency(v, t.va, &res, why, len);
	ro = gpu_mapping(v, &res);
	t.mapping = UVM_TEST_PTE_MAPPING_READ_WRITE;
	ok = ok && vas_uvm_is(v->c->fd, UVM_TEST_CHANGE_PTE_MAPPING, &t, &t.rmStatus,
			      NV_ERR_INVALID_OPERATION, "upgrade", why, len);
	t.mapping = UVM_TEST_PTE_MAPPING_INVALID;
	ok = ok && uvm(v->c->fd, UVM_TEST_CHANGE_PTE_MAPPING, &t, &t.rmStatus, why, len) &&
	     residency(v, t.va, &res, why, len);
	none = gpu_mapping(v, &res);
	if (ok) {
		ok = before == UVM_TEST_PTE_MAPPING_READ_WRITE_ATOMIC &&
		     ro == UVM_TEST_PTE_MAPPING_READ_ONLY && none == -1 &&
		     res.resident_on_count == 1 && !memcmp(res.resident_on[0].uuid, v->c->gpu.uuid, 16);
		snprintf(why, len, "GPU mapping %d, then %d, then %d (-1 none); resident on %u",
			 before, ro, none, res.resident_on_count);
	}
	return ok;
}

static void vas_pte(struct vas *v)
{
	char why[200] = "";
	unsigned int attempts;
	bool ok;

	if (!vas_can_run(v, VAS_PTE))
		return;
	ok = with_r1_on_gpu(v, pte_check, why, sizeof(why), &attempts);
	r1_verdict(v, VAS_PTE, ok, why, attempts);
}

static void vas_tlb(struct vas *v)
{
	UVM_TEST_INVALIDATE_TLB_PARAMS t = { 0 };
	char why[160];
	bool ok;

	if (!vas_can_run(v, VAS_TLB))
		return;
	t.gpu_uuid = v->c->gpu;
	t.va = (uintptr_t)v->r1;
	t.target_va_mode = UvmTargetVaModeTargeted;
	t.page_table_level = UvmInvalidatePageTableLevelPte;
	t.membar = UvmInvalidateTlbMemBarSys;
	ok = uvm(v->c->fd, UVM_TEST_INVALIDATE_TLB, &t, &t.rmStatus, why, sizeof(why));
	t.target_va_mode = UvmTargetVaModeAll;
	t.page_table_level = UvmInvalidatePageTableLevelAll;
	t.membar = UvmInvalidateTlbMemBarNone;
	ok = ok && uvm(v->c->fd, UVM_TEST_INVALIDATE_TLB, &t, &t.rmStatus, why, sizeof(why));
	t.membar = UvmInvalidateTlbMemBarLocal + 1;
	ok = ok && vas_uvm_is(v->c->fd, UVM_TEST_INVALIDATE_TLB, &t, &t.rmStatus,
			      NV_ERR_INVALID_PARAMETER, "bad membar", why, sizeof(why));
	vas_verdict(v, VAS_TLB, ok, "%s", why);
}

static bool evict_check(struct vas *v, char *why, size_t len)
{
	UVM_TEST_EVICT_CHUNK_PARAMS t = { 0 };
	UVM_TEST_VA_RESIDENCY_INFO_PARAMS res;
	uint64_t *block = v->r1 + VA_BLOCK_BYTES / 8, bad = 0;
	bool ok;

	t.gpu_uuid = v->c->gpu;
	t.eviction_mode = UvmTestEvictModeVirtual;
	t.address = (uintptr_t)block;
	ok = uvm(v->c->fd, UVM_TEST_EVICT_CHUNK, &t, &t.rmStatus, why, len);
	if (ok && (!t.chunk_was_evicted || t.chunk_size_backing_virtual != VA_BLOCK_BYTES)) {
		snprintf(why, len, "evicted %u, chunk of %llu bytes", t.chunk_was_evicted,
			 (unsigned long long)t.chunk_size_backing_virtual);
		ok = false;
	}
	ok = ok && residency(v, t.address, &res, why, len);
	if (ok && (res.resident_on_count != 1 || memcmp(res.resident_on[0].uuid, uvm_cpu_uuid, 16))) {
		snprintf(why, len, "resident on %u, not the CPU alone", res.resident_on_count);
		ok = false;
	}
	if (ok) {
		for (uint64_t i = 0; i < VA_BLOCK_BYTES / 8; i++)
			bad += block[i] != pattern(&block[i]);
		snprintf(why, len, "%llu words differ", (unsigned long long)bad);
		ok = !bad;
	}
	return ok;
}

static void vas_evict(struct vas *v)
{
	char why[200] = "";
	unsigned int attempts;
	bool ok;

	if (!vas_can_run(v, VAS_EVICT))
		return;
	ok = with_r1_on_gpu(v, evict_check, why, sizeof(why), &attempts);
	r1_verdict(v, VAS_EVICT, ok, why, attempts);
}

/* A second VA space with the GPU registered: 0 and its fd, or -1. */
static int other_va_space(const struct test_ctx *c)
{
	UVM_INITIALIZE_PARAMS init = { 0 };
	UVM_REGISTER_GPU_PARAMS reg = { 0 };
	int fd = open(c->dev, O_RDWR | O_CLOEXEC);

	reg.gpu_uuid = c->gpu;
	reg.rmCtrlFd = -1;
	if (fd < 0)
		return -1;
	if (ioctl(fd, UVM_INITIALIZE, &init) || init.rmStatus != NV_OK ||
	    ioctl(fd, UVM_REGISTER_GPU, &reg) || reg.rmStatus != NV_OK) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * MIMC and MOMC at 2 MiB granularity, threshold 256; the configuration
 * then belongs to this VA space, and another VA space's is refused
 * (reconfiguration_owner).
 */
static void vas_ac_reconfigure(struct vas *v)
{
	UVM_TEST_RECONFIGURE_ACCESS_COUNTERS_PARAMS t = { 0 };
	char why[160];
	bool ok;
	int other;

	if (!vas_can_run(v, VAS_AC_RECONFIGURE))
		return;
	t.gpu_uuid = v->c->gpu;
#ifdef UVM_TEST_AC_MIMC
	t.mimc_granularity = UVM_ACCESS_COUNTER_GRANULARITY_2M;
	t.momc_granularity = UVM_ACCESS_COUNTER_GRANULARITY_2M;
	t.mimc_use_limit = UVM_ACCESS_COUNTER_USE_LIMIT_FULL;
	t.momc_use_limit = UVM_ACCESS_COUNTER_USE_LIMIT_FULL;
	t.enable_mimc_migrations = NV_TRUE;
#else
	/* from 575 one kind of counter: no MIMC/MOMC halves, no use limit */
	t.granularity = UVM_ACCESS_COUNTER_GRANULARITY_2M;
	t.enable_migrations = NV_TRUE;
#endif
	ok = vas_uvm_is(v->c->fd, UVM_TEST_RECONFIGURE_ACCESS_COUNTERS, &t, &t.rmStatus,
			NV_ERR_INVALID_ARGUMENT, "threshold 0", why, sizeof(why));
	t.threshold = 256;
	ok = ok && uvm(v->c->fd, UVM_TEST_RECONFIGURE_ACCESS_COUNTERS, &t, &t.rmStatus, why,
			   sizeof(why));
	if (ok) {
		other = other_va_space(v->c);
		snprintf(why, sizeof(why), "no second VA space with the GPU");
		ok = other >= 0 &&
		     vas_uvm_is(other, UVM_TEST_RECONFIGURE_ACCESS_COUNTERS, &t, &t.rmStatus,
				NV_ERR_INVALID_STATE, "another VA space", why, sizeof(why));
		if (other >= 0)
			close(other);
	}
	vas_verdict(v, VAS_AC_RECONFIGURE, ok, "%s", why);
}

static void vas_ac_reset(struct vas *v)
{
	UVM_TEST_RESET_ACCESS_COUNTERS_PARAMS t = { 0 };
	char why[160];
	bool ok;

	if (!vas_can_run(v, VAS_AC_RESET))
		return;
	t.gpu_uuid = v->c->gpu;
	t.mode = UVM_TEST_ACCESS_COUNTER_RESET_MODE_ALL;
	ok = uvm(v->c->fd, UVM_TEST_RESET_ACCESS_COUNTERS, &t, &t.rmStatus, why, sizeof(why));
	t.mode = UVM_TEST_ACCESS_COUNTER_RESET_MODE_TARGETED;
#ifdef UVM_TEST_AC_MIMC
	t.counter_type = UVM_TEST_ACCESS_COUNTER_TYPE_MIMC;
#endif
	ok = ok && uvm(v->c->fd, UVM_TEST_RESET_ACCESS_COUNTERS, &t, &t.rmStatus, why,
			   sizeof(why));
	t.mode = UVM_TEST_ACCESS_COUNTER_RESET_MODE_MAX;
	ok = ok && vas_uvm_is(v->c->fd, UVM_TEST_RESET_ACCESS_COUNTERS, &t, &t.rmStatus,
			      NV_ERR_INVALID_ARGUMENT, "bad mode", why, sizeof(why));
	vas_verdict(v, VAS_AC_RESET, ok, "%s", why);
}

static void vas_ac_ignore(struct vas *v)
{
	UVM_TEST_SET_IGNORE_ACCESS_COUNTERS_PARAMS t = { 0 };
	char why[160];
	bool ok;

	if (!vas_can_run(v, VAS_AC_IGNORE))
		return;
	t.gpu_uuid = v->c->gpu;
	t.ignore = NV_TRUE;
	ok = uvm(v->c->fd, UVM_TEST_SET_IGNORE_ACCESS_COUNTERS, &t, &t.rmStatus, why,
		     sizeof(why));
	t.ignore = NV_FALSE;
	ok = ok && uvm(v->c->fd, UVM_TEST_SET_IGNORE_ACCESS_COUNTERS, &t, &t.rmStatus, why,
			   sizeof(why));
	t.gpu_uuid.uuid[15] ^= 0xff;
	ok = ok && vas_uvm_is(v->c->fd, UVM_TEST_SET_IGNORE_ACCESS_COUNTERS, &t, &t.rmStatus,
			      NV_ERR_INVALID_DEVICE, "another UUID", why, sizeof(why));
	vas_verdict(v, VAS_AC_IGNORE, ok, "%s", why);
}

/* A tools fd's event tracker: a queue of @entries, or counters (0). */
static bool tools_tracker(struct vas *v, int *fd, void *queue, uint32_t entries, void *control,
			  const NvProcessorUuid *processor, char *why, size_t len)
{
	UVM_TOOLS_INIT_EVENT_TRACKER_PARAMS t = { 0 };

	*fd = open("/dev/nvidia-uvm-tools", O_RDWR | O_CLOEXEC);
	if (*fd < 0) {
		snprintf(why, len, "open /dev/nvidia-uvm-tools: %s", strerror(errno));
		return false;
	}
	t.queueBuffer = (uintptr_t)queue;
	t.queueBufferSize = entries;
	t.controlBuffer = (uintptr_t)control;
	t.processor = *processor;
	t.uvmFd = v->c->fd;
	TOOLS_VERSION(&t);
	return uvm(*fd, TOOLS_TRACKER_IOCTL, &t, &t.rmStatus, why, len);
}

/* Page-aligned, zeroed memory the tools trackers pin. */
static void *tools_buffer(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * A queue subscribed to ThrottlingStart (what the test injects) and
 * GpuFaultReplay (the launch's replays, below); the test records three
 * entries into every queue of this VA space that has their type.
 */
static void vas_tools_inject(struct vas *v)
{
	UVM_TOOLS_EVENT_QUEUE_ENABLE_EVENTS_PARAMS en = { 0 };
	tools_inject_t t;
	tools_entry_t *e;
	char why[200] = "";
	NvU32 put = 0;
	bool ok;

	if (!vas_can_run(v, VAS_TOOLS_INJECT))
		return;
	v->queue = tools_buffer(TOOLS_QUEUE_ENTRIES * sizeof(*v->queue));
	v->ctrl = tools_buffer(sizeof(*v->ctrl));
	snprintf(why, sizeof(why), "mmap: %s", strerror(errno));
	ok = v->queue && v->ctrl &&
	     tools_tracker(v, &v->tools_fd, v->queue, TOOLS_QUEUE_ENTRIES, v->ctrl, &v->c->gpu, why,
			   sizeof(why));
	en.eventTypeFlags = (1ull << UvmEventTypeThrottlingStart) | (1ull << UvmEventTypeGpuFaultReplay);
	ok = ok && uvm(v->tools_fd, UVM_TOOLS_EVENT_QUEUE_ENABLE_EVENTS, &en, &en.rmStatus, why,
			   sizeof(why));
	memset(&t, 0, sizeof(t));
	e = INJECT_ENTRY(&t);
	e->eventData.throttlingStart.eventType = UvmEventTypeThrottlingStart;
	e->eventData.throttlingStart.processorIndex = 1;
	e->eventData.throttlingStart.address = (uintptr_t)v->r1;
	e->eventData.throttlingStart.timeStamp = 0x0123456789abcdefull;
	t.count = 3;
	ok = ok && uvm(v->c->fd, TOOLS_INJECT_IOCTL, &t, &t.rmStatus, why, sizeof(why));
	if (ok) {
		put = __atomic_load_n(&v->ctrl->put_behind, __ATOMIC_ACQUIRE);
		ok = put == 3 && v->ctrl->get_behind == 0;
		snprintf(why, sizeof(why), "put %u, get %u", put, v->ctrl->get_behind);
		for (NvU32 i = 0; ok && i < put; i++) {
			ok = !memcmp(&v->queue[i], e, sizeof(*e));
			snprintf(why, sizeof(why), "entry %u differs: type %u, address 0x%llx", i,
				 v->queue[i].eventData.eventType,
				 (unsigned long long)v->queue[i].eventData.throttlingStart.address);
		}
		/* consumed */
		v->ctrl->get_ahead = put;
		__atomic_store_n(&v->ctrl->get_behind, put, __ATOMIC_RELEASE);
	}
	if (!ok && !v->ctrl)
		v->broken = "the tools event queue";
	vas_verdict(v, VAS_TOOLS_INJECT, ok, "%s", why);
}

/* Counters of the GPU alone: an increment for the CPU is not theirs. */
static void vas_tools_counter(struct vas *v)
{
	UVM_TOOLS_ENABLE_COUNTERS_PARAMS en = { 0 };
	UVM_TEST_INCREMENT_TOOLS_COUNTER_PARAMS t = { 0 };
	char why[200] = "";
	bool ok;

	if (!vas_can_run(v, VAS_TOOLS_COUNTER))
		return;
	v->counters = tools_buffer(UVM_TOTAL_COUNTERS * sizeof(NvU64));
	snprintf(why, sizeof(why), "mmap: %s", strerror(errno));
	ok = v->counters && tools_tracker(v, &v->counters_fd, NULL, 0, v->counters, &v->c->gpu,
					  why, sizeof(why));
	en.counterTypeFlags = 1ull << UvmCounterNameBytesXferHtD;
	ok = ok && uvm(v->counters_fd, UVM_TOOLS_ENABLE_COUNTERS, &en, &en.rmStatus, why,
			   sizeof(why));
	t.counter = UvmCounterNameBytesXferHtD;
	t.amount = 4096;
	t.processor = v->c->gpu;
	t.count = 3;
	ok = ok && uvm(v->c->fd, UVM_TEST_INCREMENT_TOOLS_COUNTER, &t, &t.rmStatus, why,
			   sizeof(why));
	memcpy(t.processor.uuid, uvm_cpu_uuid, 16);
	t.count = 1;
	ok = ok && uvm(v->c->fd, UVM_TEST_INCREMENT_TOOLS_COUNTER, &t, &t.rmStatus, why,
			   sizeof(why));
	if (ok) {
		ok = v->counters[UvmCounterNameBytesXferHtD] == 3 * 4096;
		snprintf(why, sizeof(why), "counter %llu, want %u",
			 (unsigned long long)v->counters[UvmCounterNameBytesXferHtD], 3 * 4096);
	}
	vas_verdict(v, VAS_TOOLS_COUNTER, ok, "%s", why);
}

/*
 * STREAM over the start of the evicted block: NVIDIA's defaults fault
 * its pages back to the GPU (replays); Ember-adaptive keeps evicted
 * pages mapped, so it may take none.
 */
static void vas_launch(struct vas *v)
{
	uint32_t *w = (uint32_t *)(v->r1 + VA_BLOCK_BYTES / 8);
	const uint64_t words = LAUNCH_BYTES / 4, passes = 2;
	struct emgpu_rm_launch l;
	uint64_t expect = 0;
	int err;

	if (!vas_can_run(v, VAS_LAUNCH))
		return;
	for (uint64_t i = 0; i < words; i++) {
		w[i] = (uint32_t)i;
		expect += passes * i;
	}
	expect += words * (passes * (passes - 1) / 2);
	v->replays0 = uvm_fault_stat("start");
	err = emgpu_rm_stream(v->rm_fd, v->vs.h_client, v->ch.h_channel, (uintptr_t)w, LAUNCH_BYTES,
			      passes, 300000, &l);
	if (err || l.status != EMGPU_LAUNCH_DONE)
		v->broken = "the launch";
	vas_verdict(v, VAS_LAUNCH, !err && l.status == EMGPU_LAUNCH_DONE && l.result == expect,
		    "errno %d, status %u, result %llu, expected %llu", err, l.status,
		    (unsigned long long)l.result, (unsigned long long)expect);
}

/*
 * nvidia-uvm queues a GpuFaultReplay event when a replay push completes;
 * the test flushes them into the queue: as many as fault_stats counts
 * replays (START, with a batch: all of a launch's), some under NVIDIA's
 * defaults.
 */
static void vas_tools_replay(struct vas *v)
{
	UVM_TEST_TOOLS_FLUSH_REPLAY_EVENTS_PARAMS t = { 0 };
	long long replays;
	NvU32 get, put, events = 0, other = 0;
	char why[200];
	bool ok;

	if (!vas_can_run(v, VAS_TOOLS_REPLAY))
		return;
	t.gpuUuid = v->c->gpu;
	ok = uvm(v->c->fd, UVM_TEST_TOOLS_FLUSH_REPLAY_EVENTS, &t, &t.rmStatus, why, sizeof(why));
	replays = uvm_fault_stat("start") - v->replays0;
	if (ok) {
		get = v->ctrl->get_behind;
		put = __atomic_load_n(&v->ctrl->put_behind, __ATOMIC_ACQUIRE);
		for (NvU32 i = get; i != put; i = (i + 1) % TOOLS_QUEUE_ENTRIES) {
			if (v->queue[i].eventData.eventType == UvmEventTypeGpuFaultReplay)
				events++;
			else
				other++;
		}
		ok = v->replays0 >= 0 && events == replays && !other && (v->m->ember || replays > 0);
		snprintf(why, sizeof(why), "%u replay events (%u others), %lld replays, %llu dropped",
			 events, other, replays,
			 (unsigned long long)v->ctrl->dropped[UvmEventTypeGpuFaultReplay]);
	}
	vas_verdict(v, VAS_TOOLS_REPLAY, ok, "%s", why);
}

static void vas_drain(struct vas *v)
{
	UVM_TEST_DRAIN_REPLAYABLE_FAULTS_PARAMS t = { 0 };
	char why[160];
	bool ok;

	if (!vas_can_run(v, VAS_DRAIN))
		return;
	t.gpu_uuid = v->c->gpu;
	t.timeout_ns = 1000000000ull;
	ok = uvm(v->c->fd, UVM_TEST_DRAIN_REPLAYABLE_FAULTS, &t, &t.rmStatus, why, sizeof(why));
	t.gpu_uuid.uuid[15] ^= 0xff;
	ok = ok && vas_uvm_is(v->c->fd, UVM_TEST_DRAIN_REPLAYABLE_FAULTS, &t, &t.rmStatus,
			      NV_ERR_INVALID_DEVICE, "another UUID", why, sizeof(why));
	vas_verdict(v, VAS_DRAIN, ok, "%s", why);
}

static void vas_flush(struct vas *v)
{
	UVM_TEST_FAULT_BUFFER_FLUSH_PARAMS t = { 0 };
	char why[160];

	if (!vas_can_run(v, VAS_FLUSH))
		return;
	t.iterations = 16;
	vas_verdict(v, VAS_FLUSH,
		    uvm(v->c->fd, UVM_TEST_FAULT_BUFFER_FLUSH, &t, &t.rmStatus, why, sizeof(why)),
		    "%s", why);
}

static void vas_stops_immediate(struct vas *v)
{
	UVM_TEST_MAKE_CHANNEL_STOPS_IMMEDIATE_PARAMS t = { 0 };
	UVM_UNREGISTER_CHANNEL_PARAMS un = { 0 };
	char why[160];
	bool ok;

	if (!vas_can_run(v, VAS_STOPS_IMMEDIATE))
		return;
	un.gpuUuid = v->c->gpu;
	un.hClient = v->vs.h_client;
	un.hChannel = v->ch.h_channel;
	ok = uvm(v->c->fd, UVM_TEST_MAKE_CHANNEL_STOPS_IMMEDIATE, &t, &t.rmStatus, why,
		     sizeof(why)) &&
	     uvm(v->c->fd, UVM_UNREGISTER_CHANNEL, &un, &un.rmStatus, why, sizeof(why));
	v->ch_registered = !ok;
	vas_verdict(v, VAS_STOPS_IMMEDIATE, ok, "%s", why);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* uvm_gpu_va_space_destroy() waits delay_us (udelay) before its teardown. */
static void vas_destroy_delay(struct vas *v)
{
	UVM_TEST_DESTROY_GPU_VA_SPACE_DELAY_PARAMS t = { 0 };
	UVM_UNREGISTER_GPU_VASPACE_PARAMS un = { 0 };
	double t0, ms = 0;
	char why[160];
	bool ok;

	if (!vas_can_run(v, VAS_DESTROY_DELAY))
		return;
	t.delay_us = DESTROY_DELAY_US;
	un.gpuUuid = v->c->gpu;
	ok = uvm(v->c->fd, UVM_TEST_DESTROY_GPU_VA_SPACE_DELAY, &t, &t.rmStatus, why,
		     sizeof(why));
	t0 = now_ms();
	ok = ok && uvm(v->c->fd, UVM_UNREGISTER_GPU_VASPACE, &un, &un.rmStatus, why, sizeof(why));
	ms = now_ms() - t0;
	v->vas_registered = !ok;
	if (ok) {
		ok = ms >= DESTROY_DELAY_US / 1000;
		snprintf(why, sizeof(why), "UVM_UNREGISTER_GPU_VASPACE took %.1f ms", ms);
	}
	vas_verdict(v, VAS_DESTROY_DELAY, ok, "%s", why);
}

/* Whatever the steps left, undone; the line judges what this section made. */
static void vas_teardown(struct vas *v)
{
	UVM_UNREGISTER_CHANNEL_PARAMS unch = { 0 };
	UVM_UNREGISTER_GPU_VASPACE_PARAMS unvs = { 0 };
	struct emgpu_rm_free fr = { .h_client = v->vs.h_client };
	int err = 0;

	unch.gpuUuid = unvs.gpuUuid = v->c->gpu;
	unch.hClient = v->vs.h_client;
	unch.hChannel = v->ch.h_channel;
	if (v->ch_registered && (ioctl(v->c->fd, UVM_UNREGISTER_CHANNEL, &unch) || unch.rmStatus))
		err = -1;
	if (v->vas_registered &&
	    (ioctl(v->c->fd, UVM_UNREGISTER_GPU_VASPACE, &unvs) || unvs.rmStatus))
		err = -1;
	if (v->r1 && munmap(v->r1, R1_BYTES))
		err = errno;
	if (v->r2 && munmap(v->r2, VA_BLOCK_BYTES))
		err = errno;
	if (v->tools_fd > 0)
		close(v->tools_fd);
	if (v->counters_fd > 0)
		close(v->counters_fd);
	if (v->queue)
		munmap(v->queue, TOOLS_QUEUE_ENTRIES * sizeof(*v->queue));
	if (v->ctrl)
		munmap(v->ctrl, sizeof(*v->ctrl));
	if (v->counters)
		munmap(v->counters, UVM_TOTAL_COUNTERS * sizeof(NvU64));
	if (v->rm_fd >= 0 && v->vs.h_client) {
		/* channels first: a VA space with channels is EBUSY */
		uint32_t handles[] = { v->ch.h_channel, v->ch2.h_channel, v->vs.h_va_space };

		for (unsigned int i = 0; i < 3; i++) {
			fr.handle = handles[i];
			if (fr.handle && !err)
				err = rm(v->rm_fd, EMGPU_RM_FREE, &fr);
		}
	}
	if (v->rm_fd >= 0)
		close(v->rm_fd);
	if (v->mm_fd >= 0)
		close(v->mm_fd);
	vas_verdict(v, VAS_TEARDOWN, !err, "errno %d (-1: an unregistration)", err);
}

static void va_space_section(const struct test_ctx *c, struct managed *m)
{
	struct vas v = { .c = c, .m = m, .rm_fd = -1, .mm_fd = -1 };

	vas_setup(&v);
	vas_ranges(&v);
	vas_inject(&v);
	vas_channel(&v);
	vas_check_channel(&v);
	vas_migrate(&v);
	vas_reverse_map(&v);
	vas_sysmem(&v);
	vas_pte(&v);
	vas_tlb(&v);
	vas_evict(&v);
	vas_ac_reconfigure(&v);
	vas_ac_reset(&v);
	vas_ac_ignore(&v);
	vas_tools_inject(&v);
	vas_tools_counter(&v);
	vas_launch(&v);
	vas_tools_replay(&v);
	vas_drain(&v);
	vas_flush(&v);
	vas_stops_immediate(&v);
	vas_destroy_delay(&v);
	vas_teardown(&v);
}

/*
 * Registers the emulated GPU, runs gpu_tests[] on it from KTAP number
 * first, then the GPU VA space section, and unregisters it:
 * NGPU_TESTS + VAS_TESTS + 2 lines. Returns the failures.
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
		for (unsigned int i = 0; i <= NGPU_TESTS + VAS_TESTS; i++)
			printf("ok %u %s # SKIP no GPU\n", n + 1 + i,
			       i < NGPU_TESTS ? gpu_tests[i].name :
			       i < NGPU_TESTS + VAS_TESTS ? vas_names[i - NGPU_TESTS] :
			       "UVM_UNREGISTER_GPU");
		return 1;
	}
	printf("ok %u UVM_REGISTER_GPU\n", n++);
	for (unsigned int i = 0; i < NGPU_TESTS; i++)
		failed += run_test(c, &gpu_tests[i], n++);
	{
		struct managed v = { .fd = c->fd, .ember = c->ember, .n = n - 1 };

		va_space_section(c, &v);
		failed += v.failed;
		n = v.n + 1;
	}
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
	bool ember = false, gpu = false, pmm_basic = false;
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
		else if (!strcmp(argv[i], "--pmm-basic"))
			pmm_basic = true;
		else
			dev = argv[i];
	}
	m.ember = ember;
	planned = NTESTS + 1 + MANAGED_TESTS + (gpu ? NGPU_TESTS + VAS_TESTS + 2 : 0);
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
	c.dev = dev;
	c.ember = ember;
	c.pmm_basic = pmm_basic;
	for (unsigned int i = 0; i < NTESTS; i++)
		failed += run_test(&c, &tests[i], i + 2);
	m.fd = fd;
	m.n = NTESTS + 1;
	managed_tests(&m);
	failed += m.failed;
	if (gpu && m.n == NTESTS + 1 + MANAGED_TESTS) {
		failed += gpu_section(&c, m.n + 1);
		m.n += NGPU_TESTS + VAS_TESTS + 2;
	}
	close(fd);
	/* A test that did not run (after a failed mmap) is neither. */
	printf("# %u passed, %u failed, %u not run\n", m.n - failed, failed, planned - m.n);
	return failed || m.n != planned;
}
