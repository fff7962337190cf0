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
 * yet.
 *
 * usage: uvm-builtin-tests [DEVICE]   (default /dev/nvidia-uvm)
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uvm_linux_ioctl.h"
#include "uvm_test_ioctl.h"

struct uvm_builtin_test {
	const char *name;
	unsigned long cmd;
	size_t size;
	size_t status_offset;
	/* Fills the parameters in; may issue ioctls of its own. 0 or -1. */
	int (*init)(int fd, void *params);
};

/* Parameters as uvm_test_ioctl.h documents them; seeds fixed. */
static int range_tree_random(int fd __attribute__((unused)), void *p)
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

static int range_allocator_sanity(int fd __attribute__((unused)), void *p)
{
	UVM_TEST_RANGE_ALLOCATOR_SANITY_PARAMS *t = p;

	t->seed = 1;
	t->iters = 1000;
	return 0;
}

/* The test moves ranges among four range groups of the VA space. */
static int range_group_tree(int fd, void *p)
{
	UVM_TEST_RANGE_GROUP_TREE_PARAMS *t = p;

	for (int i = 0; i < 4; i++) {
		UVM_CREATE_RANGE_GROUP_PARAMS group = { 0 };

		if (ioctl(fd, UVM_CREATE_RANGE_GROUP, &group) != 0 || group.rmStatus != NV_OK) {
			printf("# UVM_CREATE_RANGE_GROUP: errno %d, rmStatus 0x%x\n", errno,
			       group.rmStatus);
			return -1;
		}
		t->rangeGroupIds[i] = group.rangeGroupId;
	}
	return 0;
}

static int thread_context_sanity(int fd __attribute__((unused)), void *p)
{
	UVM_TEST_THREAD_CONTEXT_SANITY_PARAMS *t = p;

	t->iterations = 100;
	return 0;
}

static int thread_context_perf(int fd __attribute__((unused)), void *p)
{
	UVM_TEST_THREAD_CONTEXT_PERF_PARAMS *t = p;

	t->iterations = 100;
	t->delay_us = 1;
	return 0;
}

static int rb_tree_random(int fd __attribute__((unused)), void *p)
{
	UVM_TEST_RB_TREE_RANDOM_PARAMS *t = p;

	t->iterations = 1000;
	t->range_max = 1ull << 20;
	t->node_limit = 100;
	t->seed = 1;
	return 0;
}

#define TEST(id, init) { "UVM_TEST_" #id, UVM_TEST_##id, sizeof(UVM_TEST_##id##_PARAMS), \
			 offsetof(UVM_TEST_##id##_PARAMS, rmStatus), init }

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

/* Large enough for every parameter struct above. */
union params_buf {
	unsigned char bytes[4096];
	NvU64 align;
};

static int run_test(int fd, const struct uvm_builtin_test *t, unsigned int n)
{
	union params_buf buf;
	NV_STATUS status;
	int ret;

	if (t->size > sizeof(buf.bytes)) {
		printf("not ok %u %s\n# parameters of %zu bytes do not fit\n", n, t->name, t->size);
		return 1;
	}
	memset(&buf, 0, sizeof(buf));
	if (t->init && t->init(fd, buf.bytes)) {
		printf("not ok %u %s\n# its parameters could not be set up\n", n, t->name);
		return 1;
	}
	ret = ioctl(fd, t->cmd, buf.bytes);
	memcpy(&status, buf.bytes + t->status_offset, sizeof(status));
	if (ret == 0 && status == NV_OK) {
		printf("ok %u %s\n", n, t->name);
		return 0;
	}
	printf("not ok %u %s\n# ioctl returned %d (errno %d), rmStatus 0x%x\n", n, t->name, ret,
	       ret ? errno : 0, status);
	return 1;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/nvidia-uvm";
	UVM_INITIALIZE_PARAMS init = { 0 };
	unsigned int failed = 0;
	int fd;

	printf("KTAP version 1\n1..%zu\n", NTESTS + 1);
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
	for (unsigned int i = 0; i < NTESTS; i++)
		failed += run_test(fd, &tests[i], i + 2);
	close(fd);
	printf("# %zu passed, %u failed\n", NTESTS + 1 - failed, failed);
	return failed ? 1 : 0;
}
