/* SPDX-License-Identifier: MIT */
/*
 * Experiment matrices: a small config file names applications, variants,
 * oversubscription factors and seeds; every combination is one run, one VM
 * booting ember-run once. matrix.c parses a config and plans its runs;
 * matrix_run.c runs them through the scheduler (sched.h). Runs go in
 * parallel up to the cores available; each finished run leaves
 * <outdir>/runs/<id>/result.json, so an interrupted matrix resumes where
 * it stopped, and a failed or timed-out run keeps its logs while the rest
 * goes on.
 *
 * Config syntax (one "key = value" per line, '#' starts a comment):
 *   name      = paper                      # results go to <results>/<name>
 *   profile   = h200-128m                  # emgpu profile
 *   apps      = pathfinder kmeans ...      # ember-run kernels
 *   variants  = uvm prefetch mapped static adaptive
 *   policies  = uvm mine                   # ember.ko policies, by registered name:
 *               each variant that runs the stock policy (uvm, prefetch,
 *               mapped, static, autouvm) runs once per policy, `ember-run -P NAME`
 *               (ember-run loads /lib/modules/ember_NAME.ko when NAME is not
 *               registered yet); "uvm" is the stock policy itself (no -P).
 *               Variants with a policy of their own (adaptive and ember:
 *               ember, ac, ariadne) run once, under it. A run whose policy is not
 *               its variant's own gains "-PNAME" in its id; every run's
 *               policy is in result.json, results.csv and the report.
 *   driver    = ember nvidia-uvm           # the driver under the workload (default
 *               ember): ember.ko, or NVIDIA's nvidia-uvm in the nvidia-uvm
 *               image (--nvidia-uvm-initrd) on one of emgpu's NVIDIA
 *               personalities (nvuvm_personality),
 *               ember-run under EMBER_DRIVER=nvidia-uvm. There variants uvm,
 *               prefetch, mapped and static are the same call sequences as
 *               on ember, on Debian's nvidia-uvm.ko as shipped
 *               (nvidia-uvm-stock), adaptive our series' nvidia-uvm.ko with
 *               cpu_preferred_blocks_enable=1 (Table 1's defaults); other
 *               variants, policies, modparams, injects and connect are
 *               refused with it. Both words: each run once per driver,
 *               "-Dnvidia-uvm" in its id; every run's driver is in
 *               result.json, results.csv and the report's columns.
 *   nvuvm_branch = 535.261.03              # under nvidia-uvm, the driver branch
 *               the guest loads (a directory of the image's /lib/modules;
 *               default the newest it carries); result.json's "branch"
 *   nvuvm_personality = gh100             # under nvidia-uvm, emgpu's personality:
 *               ga10x (the stand-in reports an Ampere GA102: nvidia-uvm's
 *               Ampere HAL) or gh100 (a Hopper GH100: its Hopper HAL);
 *               default the profile's card's (models/src/profile.c,
 *               nvidia_personality: gh100 for h200, h200x16, gh200 and
 *               rtx5080, ga10x for a40); result.json's "personality"
 *   nvuvm_pma_batch_order = 6             # under nvidia-uvm, its PMA batch:
 *               2^N root chunks (uvm_perf_pma_batch_nonpinned_order; 6, 128
 *               MiB, as packaged); default on a scaled profile 1/k of the
 *               packaged batch, at least one chunk (the scaling rule: 1 on
 *               h200-512m, 0 below), else the module's own
 *   factors   = 0.5 1.5                    # footprint / VRAM
 *   seeds     = 1
 *   memory    = 1024                       # guest RAM, MiB
 *   timeout   = 600                        # per run, seconds
 *   jobs      = 0                          # parallel VMs, 0 = cores
 *   run_args  = -p 2                       # extra ember-run arguments
 *   modparams = perf_eager_eviction_batch_count=1 ...  # ember.ko parameters,
 *               checked as the config is read against the lists that
 *               declare them in ember.ko (modparams.h)
 *   connect   = qemu+ssh://host/system ... # libvirt URIs (default: QEMU directly)
 *   sweep     = -r 0 10 25 50 75 100       # an ember-run option over values;
 *               up to 3 sweep lines, every combination crossed with the
 *               rest (the run's id gains "-r0", its args "-r 0")
 *
 * A fault-injection campaign is a matrix with injections:
 *   injects   = ce-error poison ...          # kinds, each run with one armed
 *   spec.KIND = kind=KIND,trigger=...         # override a kind's default spec
 *               (SPEC;SPEC2 arms SPEC2 beside it; the counts are SPEC's)
 *   expect.KIND = recovered | EIO | ETIMEDOUT # override its expected outcome
 *                                             # (when modparams change it)
 * Each run then starts paused, the injection is armed over QMP, the guest
 * runs, and at its end the host reads how often the injection fired and
 * how often it hit a running launch (the device counts both); the run is
 * classified recovered / clean-error / not-fired / corrupted / oops /
 * hang / unexpected / error (judge_injected in judge.c).
 *
 * Every run booted with QEMU directly holds at its end while the host
 * reads the device's stats over QMP; result.json keeps them as "device"
 * (counters, sim_ns, trace_hash), so two runs can be compared exactly.
 */
#ifndef EMBER_AGENT_MATRIX_H
#define EMBER_AGENT_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run.h"

#define EM_MAX_LIST	16
#define EM_MAX_SWEEPS	3
#define EM_MAX_DRIVERS	2

struct em_matrix {
	char name[64];
	/* profile, memory, timeout, run_args, modparams, nvuvm_branch: every run's */
	struct em_run_settings settings;
	char apps[EM_MAX_LIST][64];	/* "trace:FILE" names a trace of /traces */
	unsigned int napps;
	char variants[EM_MAX_LIST][32];
	unsigned int nvariants;
	char policies[EM_MAX_LIST][EM_POLICY_NAME_MAX];	/* none: each variant's own */
	unsigned int npolicies;
	char drivers[EM_MAX_DRIVERS][16];	/* none: ember */
	unsigned int ndrivers;
	double factors[EM_MAX_LIST];
	unsigned int nfactors;
	uint64_t seeds[EM_MAX_LIST];
	unsigned int nseeds;
	unsigned int jobs;
	char connect[EM_MAX_LIST][256];
	unsigned int nconnect;
	char injects[EM_MAX_LIST][32];		/* kinds */
	char inject_specs[EM_MAX_LIST][256];	/* spec of each kind */
	char inject_expects[EM_MAX_LIST][32];	/* "": the kind's own */
	unsigned int ninjects;
	/* sweep lines: an ember-run option and its values, crossed with the rest */
	struct em_sweep {
		char flag;			/* the option's letter */
		char values[EM_MAX_LIST][16];
		unsigned int nvalues;
	} sweeps[EM_MAX_SWEEPS];
	unsigned int nsweeps;
	/*
	 * trace:FILE apps as checked on the host when the matrix was loaded
	 * (every stream: the one check of them, docs/trace-replay.md): each
	 * app's trace's CRC-32 (0: not a trace), and run_args -T's timing
	 * trace, its name in the image's /traces ("": none) and CRC-32; and
	 * each trace app's replay's guest memory besides the image, at the
	 * largest factor (em_replay_memory()'s allocations, launch and maps).
	 */
	uint32_t trace_crc[EM_MAX_LIST];
	uint64_t trace_run_bytes[EM_MAX_LIST];
	char timing[64];
	uint32_t timing_crc;
};

/*
 * Parses a config file. Returns 0, or -1 after printing
 * "<file>:<line>: <problem>" to stderr.
 */
int em_matrix_load(const char *path, struct em_matrix *m);

/*
 * The images the matrix's drivers boot (p->initrd, p->initrd_nvidia_uvm)
 * carry each trace:FILE app's trace, and -T's, as /traces/NAME with the
 * bytes checked on the host. Returns 0, or -1 after printing which image
 * lacks which file, or carries another.
 */
int em_matrix_check_images(const struct em_matrix *m, const struct em_paths *p);

/*
 * Every combination of the matrix, in plan order (injection kinds
 * innermost), each with its id, folder under p->results and ember-run
 * arguments (space-separated); *n of them, malloc'd; NULL when out of
 * memory.
 */
struct em_run *em_matrix_plan(const struct em_matrix *m, const struct em_paths *p, size_t *n);

/* Whether the matrix runs anything under driver nvidia-uvm. */
bool em_matrix_has_nvuvm(const struct em_matrix *m);

/* Prints every run of the matrix, "<id> <ember-run arguments>", one a line. */
int em_matrix_list(const struct em_matrix *m, const struct em_paths *p);

/*
 * matrix_run.c: runs every combination not finished yet; returns the
 * number that failed, -1 when interrupted, -2 when the matrix is refused
 * before any VM boots.
 */
int em_matrix_run(const struct em_matrix *m, const struct em_paths *p);

/*
 * Runs several matrices as one pool: their runs in one queue, in order, on
 * one back end (the first matrix's jobs; every matrix must name the same
 * connect hosts, and each its own name), so no VM slot idles between
 * matrices; each matrix keeps its own results folder and summary. Returns
 * as em_matrix_run, over all the runs.
 */
int em_matrices_run(const struct em_matrix *ms, size_t nm, const struct em_paths *p);

#endif /* EMBER_AGENT_MATRIX_H */
