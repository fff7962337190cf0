// SPDX-License-Identifier: MIT
/*
 * ember-vmtest: the guest half of the VM tests. Runs the scenarios named on
 * its command line against /dev/ember and writes what it observes as JSON
 * lines (one object per line, each with "scenario") to the results port.
 * It judges nothing: expectations live in the host harness (tests/vm/), so
 * one place says what is correct.
 *
 * usage: ember-vmtest [-o results-file] [-m module.ko] scenario...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include "uapi/ember.h"

#include "libember.h"
#include "workload.h"
#include "vmtest_scenarios.h"

#define RELOAD_CYCLES 10

static FILE *out;
static const char *results_path;	/* the results port, when not stdout */
static const char *module_path = "/lib/modules/ember.ko";

/* Emits one JSON object: {"scenario": name, <fields>}. */
static void emit(const char *scenario, const char *fmt, ...)
{
	va_list ap;

	fprintf(out, "{\"scenario\":\"%s\"", scenario);
	if (fmt && *fmt) {
		fputc(',', out);
		va_start(ap, fmt);
		vfprintf(out, fmt, ap);
		va_end(ap);
	}
	fputs("}\n", out);
	fflush(out);
}

static int get_info(int fd, uint32_t index, struct ember_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->gpu_index = index;
	return ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, info) ? -errno : 0;
}

static void emit_info(const char *scenario, const struct ember_device_info *i)
{
	emit(scenario,
	     "\"abi_version\":%u,\"hw_id\":%u,\"hw_version\":%u,\"caps\":%u,"
	     "\"profile\":%u,\"num_sms\":%u,\"warps_per_sm\":%u,"
	     "\"num_gpcs\":%u,\"utlbs_per_gpc\":%u,\"num_access_counters\":%u,"
	     "\"num_copy_engines\":%u,\"page_sizes\":%u,\"flags\":%u,"
	     "\"vram_size\":%" PRIu64 ",\"ptimer_ns\":%" PRIu64 ",\"num_gpus\":%u",
	     i->abi_version, i->hw_id, i->hw_version, i->caps, i->profile,
	     i->num_sms, i->warps_per_sm, i->num_gpcs, i->utlbs_per_gpc,
	     i->num_access_counters, i->num_copy_engines, i->page_sizes,
	     i->flags, (uint64_t)i->vram_size, (uint64_t)i->ptimer_ns,
	     i->num_gpus);
}

static int scenario_probe(const char *name)
{
	struct ember_device_info info;
	int fd, ret;

	fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		emit(name, "\"error\":\"open /dev/ember\",\"errno\":%d", errno);
		return -1;
	}
	ret = get_info(fd, 0, &info);
	close(fd);
	if (ret) {
		emit(name, "\"error\":\"GET_DEVICE_INFO\",\"errno\":%d", -ret);
		return -1;
	}
	emit_info(name, &info);
	return 0;
}

static int load_module_params(const char *params)
{
	int fd = open(module_path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int load_module(void)
{
	return load_module_params("");
}

/* Loads a module of /lib/modules with parameters; 0 or -errno. */
static int load_other_module(const char *file, const char *params)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), "/lib/modules/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int unload_module(void)
{
	return syscall(SYS_delete_module, "ember", O_NONBLOCK) ? -errno : 0;
}

/* Reads one "Key:   N kB" line of /proc/meminfo; -1 if absent. */
static long meminfo_kb(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long val = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			val = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			perror("drop_caches");
		close(fd);
	}
}

/*
 * Unloads and reloads ember.ko RELOAD_CYCLES times, checking /dev/ember
 * answers after each load, and reports memory counters around the cycles
 * (after one warm-up cycle, so first-use caches do not count as leaks).
 */
static int scenario_reload(const char *name)
{
	struct ember_device_info info;
	long slab0, free0, slab1, free1;
	int i, ret, fd, ok = 0;

	if ((ret = unload_module()) || (ret = load_module())) {
		emit(name, "\"error\":\"warm-up cycle\",\"errno\":%d", -ret);
		return -1;
	}
	drop_caches();
	slab0 = meminfo_kb("SUnreclaim");
	free0 = meminfo_kb("MemFree");

	for (i = 0; i < RELOAD_CYCLES; i++) {
		if ((ret = unload_module())) {
			emit(name, "\"error\":\"delete_module\",\"cycle\":%d,\"errno\":%d", i, -ret);
			return -1;
		}
		if ((ret = load_module())) {
			emit(name, "\"error\":\"finit_module\",\"cycle\":%d,\"errno\":%d", i, -ret);
			return -1;
		}
		fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
		if (fd >= 0 && !get_info(fd, 0, &info) &&
		    (info.flags & EMBER_GPU_MSIX_OK))
			ok++;
		if (fd >= 0)
			close(fd);
	}

	drop_caches();
	slab1 = meminfo_kb("SUnreclaim");
	free1 = meminfo_kb("MemFree");
	emit(name, "\"cycles\":%d,\"cycles_ok\":%d,\"sunreclaim_growth_kb\":%ld,"
	     "\"memfree_drop_kb\":%ld", RELOAD_CYCLES, ok, slab1 - slab0,
	     free0 - free1);
	return 0;
}

/*
 * One call of a row of vmtest_scenarios.h: the errno it got (0 when it
 * succeeded); the host compares it with the row's.
 */
static void emit_bad(const char *name, const struct vmtest_call *c, int ret)
{
	emit(name, "\"call\":\"%s\",\"errno\":%d", c->call, ret < 0 ? errno : 0);
}

#define BADIOCTL(call)	(&vmtest_badioctl_calls[VMTEST_BADIOCTL_##call])
#define BADINPUT(call)	(&vmtest_badinput_calls[VMTEST_BADINPUT_##call])

static int scenario_badioctl(const char *name)
{
	struct ember_device_info info;
	int fd;

	fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		emit(name, "\"error\":\"open /dev/ember\",\"errno\":%d", errno);
		return -1;
	}
	emit_bad(name, BADIOCTL(unknown_cmd),
		 ioctl(fd, _IOWR(EMBER_IOCTL_MAGIC, 0x7f, struct ember_device_info), &info));
	emit_bad(name, BADIOCTL(wrong_size),
		 ioctl(fd, _IOWR(EMBER_IOCTL_MAGIC, 1, uint64_t), &info));
	emit_bad(name, BADIOCTL(null_pointer),
		 ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, NULL));
	emit_bad(name, BADIOCTL(bad_pointer),
		 ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, (void *)16));
	memset(&info, 0, sizeof(info));
	info.pad = 1;
	emit_bad(name, BADIOCTL(nonzero_pad),
		 ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, &info));
	memset(&info, 0, sizeof(info));
	info.gpu_index = 7;
	emit_bad(name, BADIOCTL(no_such_gpu),
		 ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, &info));
	close(fd);
	return 0;
}

/*
 * Waits for one line from the host on the results port, so the host can act
 * (QMP queries, fault injection) at a known point while the guest runs.
 */
static int scenario_hold(const char *name)
{
	char line[256];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (!results_path) {
		emit(name, "\"error\":\"no results port to read from\"");
		return -1;
	}
	fd = open(results_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		emit(name, "\"error\":\"open results port\",\"errno\":%d", errno);
		return -1;
	}
	emit(name, "\"waiting\":true");
	while (len < sizeof(line) - 1 && (n = read(fd, line + len, 1)) == 1 &&
	       line[len] != '\n')
		len++;
	line[len] = '\0';
	close(fd);
	emit(name, "\"released\":true,\"bytes\":%zu", len);
	return 0;
}

/* ---- managed memory (issue 5) ---- */

#define MANAGED_BYTES (8u << 20)

/*
 * CPU-side integrity: fresh managed pages read as zero, a pattern written
 * through the CPU pointer reads back, every page is created on first touch
 * (one CPU fault per page), and the VA is reusable after emFree.
 */
static int scenario_managed_cpu(const char *name)
{
	struct ember_stats_counters st;
	uint64_t zero_bad = 0, bad = 0, i, n = MANAGED_BYTES / 4;
	uint32_t *p;
	int ret;

	ret = emMallocManaged((void **)&p, MANAGED_BYTES);
	if (ret) {
		emit(name, "\"error\":\"emMallocManaged\",\"errno\":%d", -ret);
		return -1;
	}
	for (i = 0; i < n; i++)
		zero_bad += p[i] != 0;
	for (i = 0; i < n; i++)
		p[i] = (uint32_t)(i * 2654435761u);
	for (i = 0; i < n; i++)
		bad += p[i] != (uint32_t)(i * 2654435761u);
	emGetStats(&st, 0);
	ret = emFree(p);
	emit(name, "\"bytes\":%u,\"zero_mismatches\":%" PRIu64 ",\"mismatches\":%"
	     PRIu64 ",\"cpu_faults\":%llu,\"pages_cpu_populated\":%llu,"
	     "\"free_ret\":%d", MANAGED_BYTES, zero_bad, bad,
	     (unsigned long long)st.cpu_faults,
	     (unsigned long long)st.pages_cpu_populated, ret);
	/* the same VA again, in a fresh range: zero, not the old data */
	ret = emMallocManaged((void **)&p, MANAGED_BYTES);
	zero_bad = 0;
	for (i = 0; !ret && i < n; i += 1024)
		zero_bad += p[i] != 0;
	emit(name, "\"realloc_ret\":%d,\"realloc_zero_mismatches\":%" PRIu64,
	     ret, zero_bad);
	emReset();
	return 0;
}

/* Reserves an aligned VA window of len bytes (not mapped to /dev/ember). */
static void *reserve_aligned(size_t len)
{
	uintptr_t b;
	void *r = mmap(NULL, len + EMBER_VA_BLOCK_SIZE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (r == MAP_FAILED)
		return NULL;
	b = ((uintptr_t)r + EMBER_VA_BLOCK_SIZE - 1) & ~(EMBER_VA_BLOCK_SIZE - 1);
	return (void *)b;
}

static int try_mmap(int fd, void *at, size_t len, int flags, off_t off)
{
	void *p = mmap(at, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, off);

	if (p == MAP_FAILED)
		return -1;
	munmap(p, len);
	errno = 0;
	return 0;
}

static int adv(int fd, uint64_t addr, uint64_t len, uint32_t advice,
	       uint32_t proc, uint32_t flags, uint32_t pad)
{
	struct ember_advise a = {
		.addr = addr, .length = len, .advice = advice,
		.processor = proc, .flags = flags, .pad = pad,
	};

	return ioctl(fd, EMBER_IOCTL_ADVISE, &a);
}

static int pref(int fd, uint64_t addr, uint64_t len, uint32_t proc,
		uint32_t flags)
{
	struct ember_prefetch p = {
		.addr = addr, .length = len, .processor = proc, .flags = flags,
	};

	return ioctl(fd, EMBER_IOCTL_PREFETCH, &p);
}

static int lnch(int fd, uint32_t kernel, uint32_t flags, uint32_t pad)
{
	struct ember_launch l = { .kernel = kernel, .flags = flags, .pad = pad };

	return ioctl(fd, EMBER_IOCTL_LAUNCH, &l);
}

static int policy(int fd, const char *name, size_t len)
{
	struct ember_set_policy p;

	memset(&p, 0, sizeof(p));
	memcpy(p.name, name, len);
	return ioctl(fd, EMBER_IOCTL_SET_POLICY, &p);
}

/* Every managed-memory ioctl and mmap with bad arguments: the errno each gets. */
static int scenario_managed_badinput(const char *name)
{
	const size_t B = EMBER_VA_BLOCK_SIZE;
	struct ember_synchronize sy;
	struct ember_mem_info mi;
	struct ember_stats st;
	uint64_t a, outside;
	char *win;
	int fd;

	fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
	win = reserve_aligned(8 * B);
	if (fd < 0 || !win) {
		emit(name, "\"error\":\"setup\",\"errno\":%d", errno);
		return -1;
	}
	/* set_policy works before any mapping exists */
	emit_bad(name, BADINPUT(policy_uvm_before_mmap), policy(fd, "uvm", 3));
	emit_bad(name, BADINPUT(policy_unknown), policy(fd, "nosuch", 6));
	emit_bad(name, BADINPUT(policy_empty), policy(fd, "", 0));
	emit_bad(name, BADINPUT(policy_unterminated), policy(fd, "0123456789abcdef", 16));

	emit_bad(name, BADINPUT(mmap_private),
		 try_mmap(fd, win, 2 * B, MAP_PRIVATE, (off_t)(uintptr_t)win));
	emit_bad(name, BADINPUT(mmap_unaligned_length),
		 try_mmap(fd, win, B / 2, MAP_SHARED, (off_t)(uintptr_t)win));
	emit_bad(name, BADINPUT(mmap_unaligned_address),
		 try_mmap(fd, win + 4096, 2 * B, MAP_SHARED,
			  (off_t)(uintptr_t)(win + 4096)));
	emit_bad(name, BADINPUT(mmap_offset_not_address),
		 try_mmap(fd, win, 2 * B, MAP_SHARED, 0));

	if (mmap(win, 4 * B, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 (off_t)(uintptr_t)win) == MAP_FAILED) {
		emit(name, "\"error\":\"mmap\",\"errno\":%d", errno);
		return -1;
	}
	a = (uintptr_t)win;
	outside = a + 6 * B;
	emit_bad(name, BADINPUT(munmap_partial), munmap(win, B));
	emit_bad(name, BADINPUT(mremap_move),
		 mremap(win, 4 * B, 4 * B, MREMAP_MAYMOVE | MREMAP_FIXED,
			win + 8 * B) == MAP_FAILED ? -1 : 0);
	emit_bad(name, BADINPUT(policy_after_mmap), policy(fd, "uvm", 3));

	emit_bad(name, BADINPUT(advise_ok), adv(fd, a, B, EMBER_ADVISE_SET_PREFERRED_LOCATION,
					EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_zero_length), adv(fd, a, 0, 1, EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_unaligned_addr), adv(fd, a + 1, 4096, 1, EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_unaligned_length), adv(fd, a, 100, 1, EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_overflow), adv(fd, a, -4096ull, 1, EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_unknown_advice), adv(fd, a, 4096, 9, EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_zero_advice), adv(fd, a, 4096, 0, EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_bad_processor), adv(fd, a, 4096, 1, 7, 0, 0));
	emit_bad(name, BADINPUT(advise_accessed_by_cpu), adv(fd, a, 4096, 3, EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_flags), adv(fd, a, 4096, 1, EMBER_PROC_CPU, 1, 0));
	emit_bad(name, BADINPUT(advise_pad), adv(fd, a, 4096, 1, EMBER_PROC_CPU, 0, 1));
	emit_bad(name, BADINPUT(advise_outside), adv(fd, outside, 4096, 1, EMBER_PROC_CPU, 0, 0));
	emit_bad(name, BADINPUT(advise_straddles_end), adv(fd, a + 3 * B, 2 * B, 1, EMBER_PROC_CPU, 0, 0));

	emit_bad(name, BADINPUT(prefetch_cpu_ok), pref(fd, a, B, EMBER_PROC_CPU, 0));
	emit_bad(name, BADINPUT(prefetch_zero_length), pref(fd, a, 0, EMBER_PROC_CPU, 0));
	emit_bad(name, BADINPUT(prefetch_unaligned), pref(fd, a + 8, 4096, EMBER_PROC_CPU, 0));
	emit_bad(name, BADINPUT(prefetch_overflow), pref(fd, a, -4096ull, EMBER_PROC_CPU, 0));
	emit_bad(name, BADINPUT(prefetch_no_processor), pref(fd, a, 4096, EMBER_PROC_NONE, 0));
	emit_bad(name, BADINPUT(prefetch_flags), pref(fd, a, 4096, EMBER_PROC_CPU, 2));
	emit_bad(name, BADINPUT(prefetch_outside), pref(fd, outside, 4096, EMBER_PROC_CPU, 0));

	emit_bad(name, BADINPUT(launch_no_kernel), lnch(fd, 0, 0, 0));
	emit_bad(name, BADINPUT(launch_kernel_too_big), lnch(fd, 256, 0, 0));
	emit_bad(name, BADINPUT(launch_flags), lnch(fd, EMBER_KERNEL_STREAM, 0x80, 0));
	emit_bad(name, BADINPUT(launch_pad), lnch(fd, EMBER_KERNEL_STREAM, 0, 1));
	memset(&sy, 0, sizeof(sy));
	sy.flags = 1;
	emit_bad(name, BADINPUT(synchronize_flags), ioctl(fd, EMBER_IOCTL_SYNCHRONIZE, &sy));

	memset(&mi, 0, sizeof(mi));
	emit_bad(name, BADINPUT(mem_get_info_ok), ioctl(fd, EMBER_IOCTL_MEM_GET_INFO, &mi));
	mi.gpu_index = 1;
	emit_bad(name, BADINPUT(mem_get_info_gpu_index), ioctl(fd, EMBER_IOCTL_MEM_GET_INFO, &mi));
	memset(&mi, 0, sizeof(mi));
	mi.pad = 1;
	emit_bad(name, BADINPUT(mem_get_info_pad), ioctl(fd, EMBER_IOCTL_MEM_GET_INFO, &mi));
	memset(&st, 0, sizeof(st));
	st.scope = 2;
	emit_bad(name, BADINPUT(stats_scope), ioctl(fd, EMBER_IOCTL_GET_STATS, &st));
	memset(&st, 0, sizeof(st));
	st.pad = 1;
	emit_bad(name, BADINPUT(stats_pad), ioctl(fd, EMBER_IOCTL_GET_STATS, &st));
	emit_bad(name, BADINPUT(stats_null), ioctl(fd, EMBER_IOCTL_GET_STATS, NULL));

	munmap(win, 4 * B);
	close(fd);
	return 0;
}

/*
 * A workload scenario: "<kernel>-<variant>-<factor>x[-w<warps>][-p<passes>]",
 * e.g. stream-uvm-1.5x or gather-static-0.5x-w64.
 */
static int scenario_workload(const char *name)
{
	struct em_wl_config cfg = { .seed = 1 };
	struct em_wl_result res;
	char kernel[16], variant[16];
	const char *opt;

	for (opt = strstr(name, "x-"); opt; opt = strchr(opt + 1, '-')) {
		if (opt[1] == 'w')
			cfg.warps = strtoul(opt + 2, NULL, 10);
		else if (opt[1] == 'p')
			cfg.passes = strtoul(opt + 2, NULL, 10);
	}
	if (sscanf(name, "%15[a-z]-%15[a-z]-%lfx", kernel, variant, &cfg.factor) != 3) {
		emit(name, "\"error\":\"bad workload name\"");
		return -1;
	}
	cfg.kernel = kernel;
	cfg.variant = variant;
	em_wl_run(&cfg, &res);
	fprintf(out, "{\"scenario\":\"%s\",", name);
	em_wl_json(out, &cfg, &res);
	fputs("}\n", out);
	fflush(out);
	emReset();
	return 0;
}

/* Runs STREAM (+passes) on n bytes at p; 0 or -errno. */
static int gpu_stream(void *p, size_t n, uint32_t passes)
{
	struct ember_launch l = { .kernel = EMBER_KERNEL_STREAM };
	int ret;

	l.args[0] = (uintptr_t)p;
	l.args[1] = n;
	l.args[2] = passes;
	ret = emLaunch(&l);
	return ret ? ret : emDeviceSynchronize();
}

/*
 * A launch touching memory outside every allocation fails with EFAULT;
 * the next launch on a real allocation works and computes correctly.
 */
static int scenario_invalid_access(const char *name)
{
	const size_t n = 4u << 20;
	uint64_t bad = 0, i;
	uint32_t *p;
	void *anon;
	int r1, r2 = -1, r3 = -1;

	anon = reserve_aligned(n);
	r1 = emMallocManaged((void **)&p, n);
	if (!r1) {
		for (i = 0; i < n / 4; i++)
			p[i] = (uint32_t)i;
		r1 = gpu_stream(anon, n, 1);
		r2 = gpu_stream(p, n, 1);
		r3 = gpu_stream(p, n, 1);
		for (i = 0; i < n / 4; i++)
			bad += p[i] != (uint32_t)i + 2;
	}
	emit(name, "\"first_errno\":%d,\"second_ret\":%d,\"third_ret\":%d,"
	     "\"mismatches\":%" PRIu64, -r1, r2, r3, bad);
	emReset();
	return 0;
}

/*
 * CPU and GPU take turns on one buffer in several orders: CPU writes,
 * GPU adds, CPU reads some pages and writes others, GPU adds again, CPU
 * checks every word; then the same with the buffer advised to the host.
 */
static int scenario_interleave(const char *name)
{
	const size_t n = 6u << 20, words = n / 4;
	uint64_t bad = 0, i;
	uint32_t *p, expect;
	int ret, round;

	ret = emMallocManaged((void **)&p, n);
	for (round = 0; !ret && round < 2; round++) {
		if (round == 1)
			ret = emMemAdvise(p, n, emMemAdviseSetAccessedBy, 0);
		for (i = 0; !ret && i < words; i++)
			p[i] = (uint32_t)i;
		ret = ret ?: gpu_stream(p, n, 1);
		/* read odd 64 KiB groups, rewrite even pages */
		for (i = 0; !ret && i < words; i += 1024) {
			if ((i / 16384) & 1)
				bad += p[i] != (uint32_t)i + 1;
			else if (!((i / 1024) & 1))
				p[i] += 100;
		}
		ret = ret ?: gpu_stream(p, n / 2, 2);
		ret = ret ?: emMemPrefetchAsync(p, n / 4, 0);
		ret = ret ?: emMemPrefetchAsync(p + words / 8, n / 4, emCpuDeviceId);
		ret = ret ?: gpu_stream(p, n, 1);
		for (i = 0; !ret && i < words; i++) {
			expect = (uint32_t)i + 2 + (i < words / 2 ? 2 : 0);
			if (!((i / 16384) & 1) && !((i / 1024) & 1) && !(i % 1024))
				expect += 100;
			bad += p[i] != expect;
		}
	}
	emit(name, "\"ret\":%d,\"mismatches\":%" PRIu64, ret, bad);
	emReset();
	return 0;
}

/*
 * CPU and GPU at once: while a kernel streams over buffer A (asynchronous
 * launch), the CPU fills and checks buffer B, whose pages a previous
 * kernel left on the GPU; then A is checked. CPU faults, GPU faults and
 * copies run concurrently on different blocks.
 */
static int scenario_concurrent(const char *name)
{
	const size_t n = 16u << 20, words = n / 4;
	struct ember_launch l = { .kernel = EMBER_KERNEL_STREAM };
	uint64_t bad_a = 0, bad_b = 0, i;
	uint32_t *a, *b;
	int ret;

	ret = emMallocManaged((void **)&a, n);
	ret = ret ?: emMallocManaged((void **)&b, n);
	for (i = 0; !ret && i < words; i++) {
		a[i] = (uint32_t)i;
		b[i] = 0;
	}
	ret = ret ?: gpu_stream(b, n, 1);	/* B now on the GPU */
	l.args[0] = (uintptr_t)a;
	l.args[1] = n;
	l.args[2] = 3;
	ret = ret ?: emLaunch(&l);
	for (i = 0; !ret && i < words; i++)
		bad_b += b[i] != 1;
	for (i = 0; !ret && i < words; i++)
		b[i] = (uint32_t)(i ^ 0x5a5a5a5a);
	for (i = 0; !ret && i < words; i++)
		bad_b += b[i] != (uint32_t)(i ^ 0x5a5a5a5a);
	ret = ret ?: emDeviceSynchronize();
	for (i = 0; !ret && i < words; i++)
		bad_a += a[i] != (uint32_t)i + 3;
	emit(name, "\"ret\":%d,\"mismatches_a\":%" PRIu64 ",\"mismatches_b\":%"
	     PRIu64, ret, bad_a, bad_b);
	emReset();
	return 0;
}

/*
 * Eviction under oversubscription: a 1.5x VRAM stream must evict root
 * chunks on demand, and VRAM is all free again once the memory is freed.
 */
static int scenario_eviction(const char *name)
{
	struct em_wl_config cfg = {
		.kernel = "stream", .variant = "uvm", .factor = 1.5, .seed = 3,
		.passes = 2,
	};
	struct em_wl_result res;
	size_t free_b = 0, total = 0;

	em_wl_run(&cfg, &res);
	emMemGetInfo(&free_b, &total);
	fprintf(out, "{\"scenario\":\"%s\",", name);
	em_wl_json(out, &cfg, &res);
	fprintf(out, ",\"free_after\":%zu,\"total\":%zu}\n", free_b, total);
	fflush(out);
	emReset();
	return 0;
}

/* One GPU workload, then an unload and reload of ember.ko; 0 or -errno. */
static int use_and_reload(struct em_wl_result *res)
{
	struct em_wl_config cfg = {
		.kernel = "gather", .variant = "uvm", .factor = 0.5, .seed = 5,
	};
	int ret;

	em_wl_run(&cfg, res);
	emReset();
	ret = unload_module();
	return ret ? ret : load_module();
}

/*
 * After GPU use, the module unloads and reloads, and no memory is lost:
 * memory counters around a second use-and-reload cycle (the first one
 * warms up first-use caches, as in the reload scenario).
 */
static int scenario_unload_after_use(const char *name)
{
	struct em_wl_result res;
	long slab0, free0, slab1, free1;
	int r1, r2;

	r1 = use_and_reload(&res);
	drop_caches();
	slab0 = meminfo_kb("SUnreclaim");
	free0 = meminfo_kb("MemFree");
	r2 = use_and_reload(&res);
	drop_caches();
	slab1 = meminfo_kb("SUnreclaim");
	free1 = meminfo_kb("MemFree");
	emit(name, "\"warmup_ret\":%d,\"reload_ret\":%d,\"run_ret\":%d,"
	     "\"mismatches\":%" PRIu64 ",\"sunreclaim_growth_kb\":%ld,"
	     "\"memfree_drop_kb\":%ld", r1, r2, res.ret, res.mismatches,
	     slab1 - slab0, free0 - free1);
	return 0;
}

/*
 * A policy from another module: ember_ac.ko registers "ac" with
 * ember_register_policy(); a VA space selects it, mapped memory is promoted
 * by access counters; the module unloads once no VA space uses it.
 */
static int scenario_external_policy(const char *name)
{
	struct em_wl_config cfg = {
		.kernel = "gather", .variant = "mapped", .factor = 0.5, .seed = 3,
	};
	struct em_wl_result res;
	int fd, load_ret, ret, unload_ret;

	memset(&res, 0, sizeof(res));
	fd = open("/lib/modules/ember_ac.ko", O_RDONLY | O_CLOEXEC);
	load_ret = fd < 0 ? -errno : syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	ret = load_ret ? load_ret : emSetPolicy("ac");
	if (!ret)
		em_wl_run(&cfg, &res);
	emReset();
	unload_ret = syscall(SYS_delete_module, "ember_ac", O_NONBLOCK) ? -errno : 0;
	fprintf(out, "{\"scenario\":\"%s\",\"load_ret\":%d,\"set_policy_ret\":%d,"
		"\"unload_ret\":%d,", name, load_ret, ret, unload_ret);
	em_wl_json(out, &cfg, &res);
	fprintf(out, "}\n");
	fflush(out);
	return 0;
}

/*
 * ARIADNE from its own module: unknown (ENOENT) until loaded; a parameter
 * out of range refuses the load (EINVAL); then gemvrow (a thread per row,
 * sparse sharing degree) at 1.3x runs under it, every output word
 * verified, and the module unloads once no VA space uses it.
 */
static int scenario_ariadne(const char *name)
{
	struct em_wl_config cfg = {
		.kernel = "gemvrow", .variant = "uvm", .factor = 1.3, .seed = 5,
	};
	struct em_wl_result res;
	int fd, unknown_ret, bad_ret, load_ret, ret, unload_ret;

	memset(&res, 0, sizeof(res));
	unknown_ret = emSetPolicy("ariadne");
	emReset();
	fd = open("/lib/modules/ember_ariadne.ko", O_RDONLY | O_CLOEXEC);
	bad_ret = fd < 0 ? -errno : syscall(SYS_finit_module, fd, "history=0", 0) ? -errno : 0;
	load_ret = fd < 0 ? -errno : syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	ret = load_ret ? load_ret : emSetPolicy("ariadne");
	if (!ret)
		em_wl_run(&cfg, &res);
	emReset();
	unload_ret = syscall(SYS_delete_module, "ember_ariadne", O_NONBLOCK) ? -errno : 0;
	fprintf(out, "{\"scenario\":\"%s\",\"unknown_ret\":%d,\"bad_param_ret\":%d,"
		"\"load_ret\":%d,\"set_policy_ret\":%d,\"unload_ret\":%d,", name,
		unknown_ret, bad_ret, load_ret, ret, unload_ret);
	em_wl_json(out, &cfg, &res);
	fprintf(out, "}\n");
	fflush(out);
	return 0;
}

/*
 * AutoUVM: a profiling run records the decode step's profile, the online
 * run applies it (every launch matched, data verified); a corrupt copy of
 * the file and the profile given to another program are each reported and
 * ignored (no prefetch), the data still verified.
 */
static int scenario_autouvm(const char *name)
{
	static const char path[] = "/tmp/vmtest-autouvm.profile";
	static const char bad_path[] = "/tmp/vmtest-autouvm-corrupt.profile";
	struct em_wl_config cfg = {
		.kernel = "decode", .variant = "autouvm", .factor = 1.4, .seed = 9,
		.passes = 2, .autouvm_profile = path,
	};
	struct em_wl_result res, bad, other;
	char buf[65536];
	size_t n = 0;
	FILE *f;

	memset(&res, 0, sizeof(res));
	memset(&bad, 0, sizeof(bad));
	memset(&other, 0, sizeof(other));
	mkdir("/tmp", 01777);
	unlink(path);
	em_wl_run(&cfg, &res);
	emReset();
	/* one digit of a tensor offset changed: the checksum no longer holds */
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	{
		char *t = strstr(buf, "\nlaunch ");
		char *colon = t ? strchr(t, ':') : NULL;

		if (colon && colon[1] >= '0' && colon[1] <= '9')
			colon[1] = colon[1] == '9' ? '8' : colon[1] + 1;
	}
	f = fopen(bad_path, "w");
	if (f) {
		fwrite(buf, 1, n, f);
		fclose(f);
	}
	cfg.autouvm_profile = bad_path;
	cfg.factor = 0.5;
	em_wl_run(&cfg, &bad);
	emReset();
	/* decode's profile given to gemvrow */
	cfg.kernel = "gemvrow";
	cfg.autouvm_profile = path;
	em_wl_run(&cfg, &other);
	emReset();
	fprintf(out, "{\"scenario\":\"%s\",\"profiled\":%d,\"matched\":%" PRIu64
		",\"unmatched\":%" PRIu64 ",\"prefetch_bytes\":%" PRIu64
		",\"corrupt_refused\":%d,\"corrupt_prefetch_bytes\":%" PRIu64
		",\"corrupt_ret\":%d,\"corrupt_result_ok\":%d,\"corrupt_mismatches\":%" PRIu64
		",\"other_refused\":%d,\"other_prefetch_bytes\":%" PRIu64
		",\"other_ret\":%d,\"other_result_ok\":%d,\"other_mismatches\":%" PRIu64 ",",
		name, res.autouvm_profiled, res.autouvm_matched, res.autouvm_unmatched,
		res.autouvm_prefetch_bytes,
		strstr(bad.autouvm_error, "checksum mismatch") != NULL,
		bad.autouvm_prefetch_bytes, bad.ret, bad.result_ok, bad.mismatches,
		strstr(other.autouvm_error, "not gemvrow") != NULL,
		other.autouvm_prefetch_bytes, other.ret, other.result_ok, other.mismatches);
	cfg.kernel = "decode";
	cfg.factor = 1.4;
	em_wl_json(out, &cfg, &res);
	fprintf(out, "}\n");
	fflush(out);
	return 0;
}

/* Ember-adaptive (the ember policy) on gather at 1.5x: counters promote. */
static int scenario_adaptive(const char *name)
{
	struct em_wl_config cfg = {
		.kernel = "gather", .variant = "uvm", .factor = 1.5, .seed = 7,
	};
	struct em_wl_result res;
	int ret = emSetPolicy("ember");

	memset(&res, 0, sizeof(res));
	if (!ret)
		em_wl_run(&cfg, &res);
	fprintf(out, "{\"scenario\":\"%s\",\"set_policy_ret\":%d,", name, ret);
	em_wl_json(out, &cfg, &res);
	fprintf(out, "}\n");
	fflush(out);
	emReset();
	return 0;
}

/*
 * Table 1's parameters at load: a low watermark above the high one is
 * refused (EINVAL); cpu_preferred_blocks_enable=1 makes ember the default
 * policy of new VA spaces (a plain run promotes); then the default load.
 */
static int scenario_adaptive_params(const char *name)
{
	struct em_wl_config cfg = {
		.kernel = "gather", .variant = "uvm", .factor = 1.5, .seed = 7,
	};
	struct em_wl_result res;
	int unload_ret, bad_ret, good_ret = -1, reload_ret;

	memset(&res, 0, sizeof(res));
	emReset();
	unload_ret = unload_module();
	bad_ret = load_module_params("perf_eager_eviction_low_watermark=95");
	if (!bad_ret)
		unload_module();
	if (!unload_ret || unload_ret == -ENOENT)
		good_ret = load_module_params("cpu_preferred_blocks_enable=1");
	if (!good_ret) {
		em_wl_run(&cfg, &res);
		emReset();
		unload_module();
	}
	reload_ret = load_module();
	emit(name, "\"unload_ret\":%d,\"bad_watermark_errno\":%d,"
	     "\"default_ember_ret\":%d,\"run_ret\":%d,\"mismatches\":%" PRIu64
	     ",\"promotions\":%llu,\"faults\":%llu,\"reload_ret\":%d",
	     unload_ret, -bad_ret, good_ret, res.ret, res.mismatches,
	     (unsigned long long)res.stats.promotions,
	     (unsigned long long)res.stats.faults, reload_ret);
	return 0;
}

/*
 * Every hook of the ops table is called: ember_hooktest.ko implements all
 * of them; a stream at 1.5x under it (faults, host-mapped blocks whose
 * notifications promote, VRAM fills, victims go, evicted blocks come back,
 * the timer reclaims) runs with verified data, and the global hook_calls counters
 * (taken after the VA space closed, so fini counts) show each was called.
 * Malformed tables are refused at registration with EINVAL.
 */
static int scenario_policy_hooks(const char *name)
{
	static const char *const bad[] = { "nofault", "longname", "dupname" };
	struct em_wl_config cfg = {
		.kernel = "stream", .variant = "uvm", .factor = 1.5, .seed = 11,
		.passes = 2,
	};
	struct ember_stats_counters before, after;
	struct em_wl_result res;
	int bad_errno[3], load_ret, ret, unload_ret;
	char params[32];
	unsigned int i;

	memset(&res, 0, sizeof(res));
	for (i = 0; i < 3; i++) {
		snprintf(params, sizeof(params), "mode=%s", bad[i]);
		bad_errno[i] = -load_other_module("ember_hooktest.ko", params);
	}
	load_ret = load_other_module("ember_hooktest.ko", "");
	emGetStats(&before, 1);
	ret = load_ret ? load_ret : emSetPolicy("hooktest");
	if (!ret)
		em_wl_run(&cfg, &res);
	emReset();
	emGetStats(&after, 1);
	emReset();
	unload_ret = syscall(SYS_delete_module, "ember_hooktest", O_NONBLOCK) ? -errno : 0;
	fprintf(out, "{\"scenario\":\"%s\",\"nofault_errno\":%d,\"longname_errno\":%d,"
		"\"dupname_errno\":%d,\"load_ret\":%d,\"set_policy_ret\":%d,"
		"\"unload_ret\":%d,", name, bad_errno[0], bad_errno[1], bad_errno[2],
		load_ret, ret, unload_ret);
	for (i = 0; i < EMBER_POLICY_HOOKS; i++)
		fprintf(out, "\"%s\":%llu,", vmtest_hook_keys[i],
			(unsigned long long)(after.hook_calls[i] - before.hook_calls[i]));
	em_wl_json(out, &cfg, &res);
	fprintf(out, "}\n");
	fflush(out);
	return 0;
}

/*
 * Table 1's switches do what their names say, on gather at 1.5x under
 * ember: cpu_preferred_block_promotion_enable=0 promotes nothing;
 * perf_eager_eviction_enable=0 never ticks nor reclaims eagerly. Each
 * run's data is verified; the default load comes back afterwards.
 */
static int run_with_params(const char *params, struct em_wl_result *res)
{
	struct em_wl_config cfg = {
		.kernel = "gather", .variant = "uvm", .factor = 1.5, .seed = 7,
	};
	int ret;

	memset(res, 0, sizeof(*res));
	emReset();
	ret = unload_module();
	if (ret && ret != -ENOENT)
		return ret;
	ret = load_module_params(params);
	if (ret)
		return ret;
	ret = emSetPolicy("ember");
	if (!ret)
		ret = em_wl_run(&cfg, res);
	emReset();
	return ret;
}

/* Writes a module parameter through sysfs: 0 or -errno. */
static int write_param(const char *param, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/module/ember/parameters/%s", param);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int scenario_table1_switches(const char *name)
{
	struct em_wl_result nopromo, noeager;
	int r1, r2, reload_ret, sysfs_bad, sysfs_good, sysfs_ro;

	r1 = run_with_params("cpu_preferred_block_promotion_enable=0", &nopromo);
	r2 = run_with_params("perf_eager_eviction_enable=0", &noeager);
	emReset();
	unload_module();
	reload_ret = load_module();
	/* writable parameters are checked on write; Table 1's are read-only */
	sysfs_bad = write_param("hang_timeout_ms", "0");
	sysfs_good = write_param("hang_timeout_ms", "10000");
	sysfs_ro = write_param("perf_eager_eviction_interval_ms", "1");
	emit(name, "\"sysfs_bad_errno\":%d,\"sysfs_good_ret\":%d,"
	     "\"sysfs_readonly_errno\":%d,\"nopromo_ret\":%d,\"nopromo_mismatches\":%" PRIu64
	     ",\"nopromo_promotions\":%llu,\"nopromo_notifications\":%llu,"
	     "\"noeager_ret\":%d,\"noeager_mismatches\":%" PRIu64
	     ",\"noeager_timer_ticks\":%llu,\"noeager_eager_evictions\":%llu,"
	     "\"noeager_promotions\":%llu,\"reload_ret\":%d",
	     -sysfs_bad, sysfs_good, -sysfs_ro, r1, nopromo.mismatches,
	     (unsigned long long)nopromo.stats.promotions,
	     (unsigned long long)nopromo.stats.notifications,
	     r2, noeager.mismatches,
	     (unsigned long long)noeager.stats.timer_ticks,
	     (unsigned long long)noeager.stats.eager_evictions,
	     (unsigned long long)noeager.stats.promotions, reload_ret);
	return 0;
}

/* ---- limits of an opener on a shared machine (issue 31) ---- */

#define LIMITS_GID	900	/* group "ember": what guest-kmod/ember/99-ember.rules names */
#define LIMITS_UID	1000	/* an unprivileged member of it */
#define LIMITS_NOBODY	65534	/* an unprivileged user outside it */

/* Maps len managed bytes on fd at a fresh aligned address: NULL, errno set. */
static uint32_t *map_on(int fd, size_t len)
{
	void *win = reserve_aligned(len), *p;

	if (!win)
		return NULL;
	p = mmap(win, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 (off_t)(uintptr_t)win);
	if (p == MAP_FAILED) {
		munmap(win, len);	/* give the reservation back */
		return NULL;
	}
	return p;
}

/* 0 or the errno of an mmap of len bytes on fd (unmapped again). */
static int map_errno(int fd, size_t len)
{
	uint32_t *p = map_on(fd, len);

	if (!p)
		return errno;
	munmap(p, len);
	return 0;
}

/* An async STREAM launch over [p, p + n) on fd: 0 or errno. */
static int launch_on(int fd, void *p, size_t n, uint32_t passes)
{
	struct ember_launch l = { .kernel = EMBER_KERNEL_STREAM };

	l.args[0] = (uintptr_t)p;
	l.args[1] = n;
	l.args[2] = passes;
	return ioctl(fd, EMBER_IOCTL_LAUNCH, &l) ? errno : 0;
}

/* SYNCHRONIZE on fd: 0 or errno; *sim_ns the last launch's device time. */
static int sync_on(int fd, uint64_t *sim_ns)
{
	struct ember_synchronize sy;

	memset(&sy, 0, sizeof(sy));
	if (ioctl(fd, EMBER_IOCTL_SYNCHRONIZE, &sy))
		return errno;
	if (sim_ns)
		*sim_ns = sy.sim_ns;
	return 0;
}

/* Words of [p, p + n) that are not `want`. */
static uint64_t count_not(const uint32_t *p, size_t n, uint32_t want)
{
	uint64_t bad = 0, i;

	for (i = 0; i < n / 4; i++)
		bad += p[i] != want;
	return bad;
}

/*
 * Another process's run: a child (optionally an unprivileged user: uid,
 * and group `gid` as its one supplementary group, or none when 0) opens
 * /dev/ember itself, streams 4 MiB once and checks every word. Its exit
 * status: 0, the errno of its first failing call, or 200 on bad data.
 */
static int other_run(uid_t uid, gid_t gid)
{
	const size_t n = 4u << 20;
	pid_t pid;
	int status, fd, ret;
	uint32_t *p;

	fflush(out);
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		if (uid && (setgroups(gid ? 1 : 0, &gid) || setgid(uid) ||
			    setuid(uid)))
			_exit(errno);
		fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(errno);
		p = map_on(fd, n);
		if (!p)
			_exit(errno);
		ret = launch_on(fd, p, n, 1);
		ret = ret ?: sync_on(fd, NULL);
		if (!ret && count_not(p, n, 1))
			ret = 200;
		_exit(ret);
	}
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 201;
}

/*
 * An unprivileged member of group "ember": it can run, cannot raise a
 * limit through sysfs, and is held to the per-open limit (4 MiB here).
 * Emits its own line.
 */
static void member_checks(const char *name)
{
	gid_t gid = LIMITS_GID;
	int status, fd, sysfs = 0, over = 0, pfd[2];
	pid_t pid;

	fflush(out);
	if (pipe(pfd))
		return;
	pid = fork();
	if (!pid) {
		int r[2] = { -1, -1 };

		close(pfd[0]);
		if (!setgroups(1, &gid) && !setgid(LIMITS_UID) &&
		    !setuid(LIMITS_UID)) {
			r[0] = -write_param("max_managed_mb_per_open", "65536");
			fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
			r[1] = fd < 0 ? -errno : map_errno(fd, 8u << 20);
		}
		if (write(pfd[1], r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (pid > 0) {
		int r[2] = { -1, -1 };

		if (read(pfd[0], r, sizeof(r)) == sizeof(r)) {
			sysfs = r[0];
			over = r[1];
		}
		waitpid(pid, &status, 0);
	}
	close(pfd[0]);
	emit(name, "\"member_sysfs_errno\":%d,\"member_over_limit_errno\":%d,"
	     "\"member_run_ret\":%d", sysfs, over, other_run(LIMITS_UID, LIMITS_GID));
}

/*
 * Each limit of ember_limits.c exceeded, with its exact errno, and each
 * time another process's run verified beside it; the device node's
 * permissions as a shared machine sets them (group "ember", 0660), tried
 * as unprivileged users. Every limit is put back at the end.
 */
static int scenario_limits(const char *name)
{
	const size_t M = 1u << 20;
	int fd1, fd2, e_per_open, e_per_open_after, e_global, e_global_fit;
	int e_launch, e_launch_global, r_first, r_second, other_managed;
	int other_launch, bad_mb, bad_launches, bad_hold, foreign_mmap;
	int e_hold, other_hold, nobody_open, r_base, status;
	uint64_t base_ns = 0, bad_first = 0, hold_ms = 0;
	uint32_t *a, *b, *c;
	char val[32];
	pid_t pid;
	struct stat st;

	/* the setters refuse values out of range */
	bad_mb = -write_param("max_managed_mb_per_open", "1");
	bad_launches = -write_param("max_launches_per_open", "0");
	bad_hold = -write_param("launch_hold_ms", "0");

	fd1 = open("/dev/ember", O_RDWR | O_CLOEXEC);
	fd2 = open("/dev/ember", O_RDWR | O_CLOEXEC);
	if (fd1 < 0 || fd2 < 0 || fstat(fd1, &st)) {
		emit(name, "\"error\":\"open\",\"errno\":%d", errno);
		return -1;
	}

	/* per open: 4 MiB; another open (another process) is not charged */
	write_param("max_managed_mb_per_open", "4");
	a = map_on(fd1, 4 * M);
	e_per_open = map_errno(fd1, 2 * M);
	other_managed = other_run(0, 0);
	if (a)
		munmap(a, 4 * M);
	e_per_open_after = map_errno(fd1, 4 * M);	/* the charge went back */
	write_param("max_managed_mb_per_open", "65536");

	/* all opens: 6 MiB */
	write_param("max_managed_mb", "6");
	a = map_on(fd1, 4 * M);
	e_global = map_errno(fd2, 4 * M);
	e_global_fit = map_errno(fd2, 2 * M);
	if (a)
		munmap(a, 4 * M);
	write_param("max_managed_mb", "262144");

	/* outstanding launches: one per open, then one in all */
	a = map_on(fd1, 8 * M);
	b = map_on(fd2, 8 * M);
	write_param("max_launches_per_open", "1");
	r_first = a ? launch_on(fd1, a, 8 * M, 3) : errno;
	e_launch = a ? launch_on(fd1, a, 8 * M, 3) : -1;
	r_first = r_first ?: sync_on(fd1, NULL);
	bad_first = a ? count_not(a, 8 * M, 3) : 1;
	write_param("max_launches_per_open", "64");
	write_param("max_launches", "1");
	r_second = a ? launch_on(fd1, a, 8 * M, 1) : errno;
	e_launch_global = b ? launch_on(fd2, b, 8 * M, 1) : -1;
	r_second = r_second ?: sync_on(fd1, NULL);
	write_param("max_launches", "1024");
	other_launch = other_run(0, 0);

	/*
	 * holding the GPU: a first-touch launch over 32 MiB (every fault
	 * batch a visit of the driver's bottom half, which checks the hold)
	 * takes base_ns of device time; with launch_hold_ms at a quarter of
	 * that, the same launch on fresh memory is ended, ETIME
	 */
	c = map_on(fd2, 32 * M);
	r_base = c ? launch_on(fd2, c, 32 * M, 1) : errno;
	r_base = r_base ?: sync_on(fd2, &base_ns);
	if (c)
		munmap(c, 32 * M);
	hold_ms = base_ns / 4000000 ?: 1;	/* ~3 ms here: 1 */
	snprintf(val, sizeof(val), "%" PRIu64, hold_ms);
	write_param("launch_hold_ms", val);
	c = map_on(fd2, 32 * M);
	e_hold = c ? launch_on(fd2, c, 32 * M, 1) : errno;
	e_hold = e_hold ?: sync_on(fd2, NULL);
	if (c)
		munmap(c, 32 * M);
	write_param("launch_hold_ms", "3600000");
	other_hold = other_run(0, 0);

	/* another process's VA space through an inherited fd: refused */
	fflush(out);
	pid = fork();
	if (!pid)
		_exit(map_errno(fd1, 2 * M));
	foreign_mmap = pid > 0 && waitpid(pid, &status, 0) == pid &&
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1;

	if (a)
		munmap(a, 8 * M);
	if (b)
		munmap(b, 8 * M);
	close(fd1);
	close(fd2);

	/* the node: 0660, group "ember" (the udev rule's work, done here) */
	chown("/dev/ember", 0, LIMITS_GID);
	nobody_open = other_run(LIMITS_NOBODY, 0);
	emit(name, "\"bad_mb_errno\":%d,\"bad_launches_errno\":%d,"
	     "\"bad_hold_errno\":%d,\"per_open_errno\":%d,"
	     "\"per_open_other_ret\":%d,\"per_open_after_unmap_ret\":%d,"
	     "\"global_errno\":%d,\"global_fit_ret\":%d,"
	     "\"launch_per_open_errno\":%d,\"launch_first_ret\":%d,"
	     "\"mismatches_first\":%" PRIu64 ",\"launch_global_errno\":%d,"
	     "\"launch_second_ret\":%d,\"launch_other_ret\":%d,"
	     "\"hold_base_ret\":%d,\"hold_base_ns\":%" PRIu64 ",\"hold_ms\":%" PRIu64
	     ",\"hold_errno\":%d,\"hold_other_ret\":%d,\"foreign_mmap_errno\":%d,"
	     "\"node_mode\":%o,\"nobody_open_errno\":%d",
	     bad_mb, bad_launches, bad_hold, e_per_open, other_managed,
	     e_per_open_after, e_global, e_global_fit, e_launch, r_first,
	     bad_first, e_launch_global, r_second, other_launch, r_base, base_ns,
	     hold_ms, e_hold, other_hold, foreign_mmap, st.st_mode & 0777,
	     nobody_open);
	write_param("max_managed_mb_per_open", "4");
	member_checks(name);
	write_param("max_managed_mb_per_open", "65536");
	chown("/dev/ember", 0, 0);
	return 0;
}

#define SCENARIO_ROW(name, fn)	{ #name, scenario_##fn },
static const struct {
	const char *name;
	int (*run)(const char *name);
} scenarios[] = {
	VMTEST_SCENARIOS(SCENARIO_ROW)
};
#undef SCENARIO_ROW

int main(int argc, char **argv)
{
	const char *path = NULL;
	size_t i;
	int opt, a;

	while ((opt = getopt(argc, argv, "o:m:")) != -1) {
		switch (opt) {
		case 'o':
			path = optarg;
			break;
		case 'm':
			module_path = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-o results] [-m module.ko] scenario...\n", argv[0]);
			return 2;
		}
	}
	results_path = path;
	out = path ? fopen(path, "we") : stdout;
	if (!out) {
		perror(path);
		return 1;
	}

	for (a = optind; a < argc; a++) {
		for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
			if (!strcmp(argv[a], scenarios[i].name))
				break;
		if (i == sizeof(scenarios) / sizeof(scenarios[0])) {
			if (strchr(argv[a], '-'))	/* <kernel>-<variant>-<f>x */
				scenario_workload(argv[a]);
			else
				emit(argv[a], "\"error\":\"unknown scenario\"");
			emit(argv[a], "\"done\":true");
			continue;
		}
		scenarios[i].run(argv[a]);
		emit(argv[a], "\"done\":true");
	}
	return 0;
}
