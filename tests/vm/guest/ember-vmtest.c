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
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi/ember.h"

#define RELOAD_CYCLES 10

static FILE *out;
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

static int load_module(void)
{
	int fd = open(module_path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
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

/* One bad call: the errno it got (0 when it wrongly succeeded). */
static void emit_bad(const char *name, const char *call, int ret)
{
	emit(name, "\"call\":\"%s\",\"errno\":%d", call, ret < 0 ? errno : 0);
}

static int scenario_badioctl(const char *name)
{
	struct ember_device_info info;
	int fd;

	fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		emit(name, "\"error\":\"open /dev/ember\",\"errno\":%d", errno);
		return -1;
	}
	emit_bad(name, "unknown_cmd",
		 ioctl(fd, _IOWR(EMBER_IOCTL_MAGIC, 0x7f, struct ember_device_info), &info));
	emit_bad(name, "wrong_size",
		 ioctl(fd, _IOWR(EMBER_IOCTL_MAGIC, 1, uint64_t), &info));
	emit_bad(name, "null_pointer",
		 ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, NULL));
	emit_bad(name, "bad_pointer",
		 ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, (void *)16));
	memset(&info, 0, sizeof(info));
	info.pad = 1;
	emit_bad(name, "nonzero_pad",
		 ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, &info));
	memset(&info, 0, sizeof(info));
	info.gpu_index = 7;
	emit_bad(name, "no_such_gpu",
		 ioctl(fd, EMBER_IOCTL_GET_DEVICE_INFO, &info));
	close(fd);
	return 0;
}

static const struct {
	const char *name;
	int (*run)(const char *name);
} scenarios[] = {
	{ "probe", scenario_probe },
	{ "info", scenario_probe },	/* what `make run` shows */
	{ "reload", scenario_reload },
	{ "badioctl", scenario_badioctl },
};

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
			emit(argv[a], "\"error\":\"unknown scenario\"");
			continue;
		}
		scenarios[i].run(argv[a]);
		emit(argv[a], "\"done\":true");
	}
	return 0;
}
