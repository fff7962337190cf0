/* SPDX-License-Identifier: MIT */
/*
 * libember's back ends, private to libember: the driver a process's
 * managed memory, advice, prefetches and launches go to. Every public call
 * of libember.h goes through one ops table, chosen once per context (at
 * emInit(): emSetDriver()'s choice, else $EMBER_DRIVER, else "ember"):
 *
 *   ember       /dev/ember (ember.ko, emgpu's own personality): each call
 *               is one ioctl of include/uapi/ember.h (em_ember.c)
 *   nvidia-uvm  NVIDIA's /dev/nvidia-uvm on the GA10x personality, its GPU,
 *               VA space and channel made through the stand-in's
 *               /dev/emgpu-rm as libcuda makes them through nvidia.ko
 *               (em_nvuvm.c)
 *
 * Both make a managed allocation the same way: a MAP_SHARED mmap of the
 * back end's map_fd at a 2 MiB-aligned address with the file offset equal
 * to the address (libember.c reserves the hole). Every op returns 0 or a
 * negative errno, with ember.h's meanings.
 */
#ifndef EMBER_BACKEND_H
#define EMBER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/ember.h"

struct em_backend_ops;

/*
 * The system calls a back end makes, so that the unit tests
 * (tests/unit/libember) can answer them; em_sys_default() is the real ones.
 * read_text reads a whole small file NUL-terminated (the bytes read, or a
 * -errno).
 */
struct em_sys {
	int (*open)(const char *path, int flags);
	int (*close)(int fd);
	int (*ioctl)(int fd, unsigned long cmd, void *arg);
	long (*read_text)(const char *path, char *buf, size_t len);
	void *ctx;		/* the tests' state */
};
const struct em_sys *em_sys_default(void);

/* One context: a process's handle on one driver (libember.c owns it). */
struct em_context {
	const struct em_backend_ops *ops;
	const struct em_sys *sys;
	int map_fd;		/* mmap'd for managed memory; -1 when closed */
	void *be;		/* the back end's own state */
};

struct em_backend_ops {
	const char *name;	/* EMBER_DRIVER's value */
	/* Opens the driver: map_fd and be set, or a -errno with nothing held. */
	int (*open)(struct em_context *c);
	void (*close)(struct em_context *c);
	/*
	 * Advice and prefetch on [addr, addr + len), page aligned; processor
	 * is enum ember_processor (NONE for an unset preferred location).
	 */
	int (*advise)(struct em_context *c, uint64_t addr, uint64_t len,
		      uint32_t advice, uint32_t processor);
	int (*prefetch)(struct em_context *c, uint64_t addr, uint64_t len,
			uint32_t processor);
	int (*launch)(struct em_context *c, struct ember_launch *l);
	int (*synchronize)(struct em_context *c, struct ember_synchronize *s);
	int (*mem_info)(struct em_context *c, struct ember_mem_info *m);
	/*
	 * The counters; valid (may be NULL) gets 1 in every counter the
	 * driver really counts and 0 in the others, which are 0 in *s and
	 * mean nothing (em_wl_json prints them as null).
	 */
	int (*stats)(struct em_context *c, struct ember_stats *s,
		     struct ember_stats_counters *valid);
	int (*set_policy)(struct em_context *c, const char *name);
	int (*device_info)(struct em_context *c, struct ember_device_info *info);
};

extern const struct em_backend_ops em_ember_ops, em_nvuvm_ops;

/* The back end of that name (EMBER_DRIVER's values), or NULL. */
const struct em_backend_ops *em_backend_find(const char *name);

/* ---- the nvidia-uvm back end's pure parts (em_nvuvm.c), for the tests ---- */

/* nvidia-uvm's ioctl layouts that differ between the driver branches. */
enum em_uvm_abi {
	EM_UVM_ABI_535,		/* 535.x: SET_PREFERRED_LOCATION without a NUMA node */
	EM_UVM_ABI_550,		/* 550.x: with preferredCpuNumaNode */
};

/*
 * The branch's layout from nvidia-uvm's module version
 * (/sys/module/nvidia_uvm/version, "550.163.01"): 0, or -ENOTSUP for a
 * version this back end was not checked against (below 535, or 560 and
 * later) or one that does not parse.
 */
int em_uvm_abi_of_version(const char *version, enum em_uvm_abi *abi);
/* An NV_STATUS of nvidia-uvm as libember's errno (negative; 0 for NV_OK). */
int em_uvm_status_errno(uint32_t nv_status);
/*
 * An EMGPU_RM_LAUNCH failure (its positive errno) as libember's: where it
 * lands (*deferred: the launch ran and failed, reported by the next
 * synchronize as with ember.ko; else the launch was refused) and which
 * errno.
 */
int em_rm_launch_errno(int rm_errno, bool *deferred);

/* The glue's counters: one "NAME VALUE" line each (em_nvuvm.c). */
#define EM_NVUVM_STATS_FILE	"/sys/module/nvidia_uvm/parameters/ember_stats"
/*
 * Parses that file's text into *c, setting 1 in *valid for each counter
 * it names (both zeroed first). NAME is a member of struct
 * ember_stats_counters the glue counts (hook_calls.<hook> for a hook of
 * EMBER_POLICY_HOOK_LIST), VALUE a decimal u64; a name this back end does
 * not know is skipped. 0, or -EPROTO for a line that is not NAME VALUE, a
 * value that is no whole u64, or a known name given twice.
 */
int em_nvuvm_stats_parse(const char *text, struct ember_stats_counters *c,
			 struct ember_stats_counters *valid);

#endif /* EMBER_BACKEND_H */
