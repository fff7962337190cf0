/* SPDX-License-Identifier: MIT */
/*
 * AutoUVM's executor in the application's process, as the paper's runs in
 * PyTorch: it records a profile during an offline profiling run and, in
 * the online run, prefetches the next kernels' tensors before each launch
 * (the decisions and the file format: policy/ember_autouvm.h).
 *
 * Tensors are what the application's caching allocator hands out
 * (em_autouvm_tensor()); a launch argument pointing at a tensor's start
 * names that tensor, one pointing elsewhere into a managed allocation
 * names the whole allocation.
 */
#ifndef EMBER_LIBEMBER_AUTOUVM_H
#define EMBER_LIBEMBER_AUTOUVM_H

#include <stddef.h>
#include <stdint.h>

#include "ember_autouvm.h"
#include "uapi/ember.h"

#define EM_AU_TENSORS_MAX	512
#define EM_AU_LAUNCHES_MAX	8192

struct em_au_sample {
	struct au_sample s;
	struct au_launch l;
};

struct em_autouvm {
	int recording;			/* 1: profiling run, 0: online */
	int active;			/* 0: no (usable) profile: stock */
	char error[160];		/* why a profile was refused */
	struct au_profile prof;
	void *alloc_ptr[AU_ALLOCS_MAX];
	struct au_tensor tensors[EM_AU_TENSORS_MAX];
	uint32_t ntensors;
	uint64_t seq;			/* launches so far */
	uint64_t link_bytes_per_us;	/* measured when recording */
	struct ember_stats_counters before;
	struct au_plan_state plan;
	uint64_t prefetch_ns;		/* device time of the prefetches issued */
	uint64_t prefetch_bytes;
	struct em_au_sample *samples;	/* recording: one per launch */
};

/*
 * Starts a run of `program` over allocations ptr[0..n) of bytes[0..n):
 * recording (a profiling run, written to path at em_autouvm_end()), or
 * online with the profile in path. A missing, corrupt, other-version or
 * other-program profile is reported in au->error and leaves the run stock.
 * Returns 0 or -ENOMEM.
 */
int em_autouvm_begin(struct em_autouvm *au, const char *program, int recording,
		     const char *path, void *const *ptr, const size_t *bytes,
		     unsigned int n);
/* The caching allocator's hook: [p, p + len) is one tensor. */
void em_autouvm_tensor(struct em_autouvm *au, const void *p, uint64_t len);
/* Around each launch. */
int em_autouvm_before(struct em_autouvm *au, uint32_t kernel,
		      const uint64_t *args, int nargs);
void em_autouvm_after(struct em_autouvm *au, uint64_t sim_ns);
/* Recording: classifies the launches and writes the profile; 0 or -errno. */
int em_autouvm_end(struct em_autouvm *au, const char *path);
void em_autouvm_free(struct em_autouvm *au);

#endif /* EMBER_LIBEMBER_AUTOUVM_H */
