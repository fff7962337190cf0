/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * AutoUVM (Lin et al., arXiv 2609.06172; the summary in the project's
 * papers folder), hardware-neutral: a profile-guided, tensor-level
 * prefetcher. An offline profiling run records, per launch in program
 * order, the tensors (sub-ranges of managed allocations) the kernel's
 * arguments name and whether the kernel was interconnect-, memory- or
 * compute-bound; the online run, before each launch, prefetches the next
 * launches' tensors (the imminent launch's all, later ones' only for
 * interconnect-bound launches), tensors reused within the look-ahead last
 * so that LRU eviction keeps them, and adapts the look-ahead: shorter
 * after evictions, longer while free memory is ample. A launch the profile
 * does not match (another kernel, or a tensor outside the allocations the
 * profile recorded) gets no prefetch: the stock behaviour.
 *
 * The profiling run moves each launch's tensors in before the launch, so
 * that a launch's time is its time with its data resident; a launch is
 * interconnect-bound when streaming its tensors over the link would take
 * half that time or more.
 *
 * The executor runs in the application's process, as the paper's PyTorch
 * extension does (libember: userspace/autouvm.c); this file is
 * the decisions and the profile format, plain C that also builds into the
 * CUnit policy suite.
 *
 * Profile file (text, one record a line, versioned, checksummed):
 *   ember-autouvm-profile 1
 *   program NAME ALLOCS SIZE0 SIZE1 ...
 *   launch KERNEL CLASS NTENSORS ALLOC:OFFSET:LENGTH ...   (CLASS i, m or c)
 *   end NLAUNCHES FNV1A64-OF-EVERYTHING-BEFORE-THIS-LINE (16 hex digits)
 */
#ifndef EMBER_AUTOUVM_H
#define EMBER_AUTOUVM_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#define AU_PROFILE_VERSION	1
#define AU_ALLOCS_MAX		8
#define AU_TENSORS_MAX		8	/* per launch */
#define AU_PROGRAM_MAX		32
#define AU_LOOKAHEAD_MAX	16

enum au_class {
	AU_INTERCONNECT = 'i',	/* migration time dominated the launch */
	AU_MEMORY = 'm',	/* ran near the best bandwidth of the program */
	AU_COMPUTE = 'c',
};

struct au_tensor {
	uint32_t alloc;		/* index into the program's allocations */
	uint64_t off, len;
};

struct au_launch {
	uint32_t kernel;
	uint32_t cls;		/* enum au_class */
	uint32_t ntensors;
	struct au_tensor t[AU_TENSORS_MAX];
};

struct au_profile {
	char program[AU_PROGRAM_MAX];
	uint32_t nallocs;
	uint64_t alloc_bytes[AU_ALLOCS_MAX];
	uint32_t nlaunches, cap;	/* launches[0..cap) allocated by the host */
	struct au_launch *launches;
};

/* Writes the profile as text; returns its length, or -1 if len is too small. */
long au_profile_write(const struct au_profile *p, char *buf, size_t len);
/*
 * Parses text into p (p->launches must hold p->cap entries). Returns 0, or
 * -1 with the reason in err: another version, a bad checksum (corrupt or
 * truncated file), a malformed line, more launches than cap.
 */
int au_profile_parse(const char *text, size_t len, struct au_profile *p,
		     char *err, size_t errlen);
/* 0 if the profile is this program's (name and allocation sizes), else -1 and why. */
int au_profile_match(const struct au_profile *p, const char *program,
		     uint32_t nallocs, const uint64_t *alloc_bytes, char *err,
		     size_t errlen);

/* A launch as the profiling run measured it. */
struct au_sample {
	uint64_t sim_ns;	/* the launch's modelled time */
	uint64_t bytes_h2d;	/* migrated to the GPU during it */
	uint64_t tensor_bytes;	/* bytes its tensors span */
};
/*
 * The time the launch takes with its data in device memory: the fastest
 * launch of samples[0..n) with the same kernel and tensor bytes, less the
 * link time of what it migrated (at least 1 us).
 */
uint64_t au_resident_ns(const struct au_sample *samples, const uint32_t *kernels,
			uint32_t n, uint32_t i, uint64_t link_bytes_per_us);
/*
 * Roofline-style class: interconnect-bound when streaming its tensors over
 * the link takes at least half its resident time (it reads data faster
 * than the link delivers it), memory-bound when its resident throughput is
 * at least half the program's best (best_bytes_per_us), else compute-bound.
 */
uint32_t au_classify(uint64_t tensor_bytes, uint64_t resident_ns,
		     uint64_t link_bytes_per_us, uint64_t best_bytes_per_us);

/* The online executor's decisions. */
struct au_plan_state {
	uint32_t lookahead;		/* launches ahead, 1 .. AU_LOOKAHEAD_MAX */
	uint64_t done_upto;		/* prefetch issued for launches < this */
	uint64_t matched, unmatched;	/* statistics */
};

struct au_prefetch {
	uint32_t alloc;
	uint64_t off, len;
};

void au_plan_init(struct au_plan_state *s);
/*
 * Before launch `seq` (program order) with `kernel`: whether the profile
 * matches it (same kernel, tensors inside allocations of the recorded
 * sizes: the caller checked those with au_profile_match). Updates the
 * look-ahead from evictions since the previous launch and free memory,
 * then fills out[0..max) with the prefetches to issue, in order; returns
 * how many (0 for an unmatched launch: the stock behaviour).
 */
uint32_t au_plan(struct au_plan_state *s, const struct au_profile *p,
		 uint64_t seq, uint32_t kernel, uint64_t evictions,
		 uint64_t free_bytes, uint64_t total_bytes,
		 struct au_prefetch *out, uint32_t max);

#endif /* EMBER_AUTOUVM_H */
