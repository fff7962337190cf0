/* SPDX-License-Identifier: MIT */
/*
 * Experiment matrices: a small config file names applications, variants,
 * oversubscription factors and seeds; every combination is one run, one VM
 * booting ember-run once. Runs go in parallel up to the cores available;
 * each finished run leaves <outdir>/runs/<id>/result.json, so an
 * interrupted matrix resumes where it stopped, and a failed or timed-out
 * run keeps its logs while the rest goes on.
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
 *               image (--nvidia-uvm-initrd) with emgpu's GA10x personality,
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
 *   factors   = 0.5 1.5                    # footprint / VRAM
 *   seeds     = 1
 *   memory    = 1024                       # guest RAM, MiB
 *   timeout   = 600                        # per run, seconds
 *   jobs      = 0                          # parallel VMs, 0 = cores
 *   run_args  = -p 2                       # extra ember-run arguments
 *   modparams = perf_eager_eviction_batch_count=1 ...  # ember.ko parameters,
 *               checked against the booted ember.ko's before any VM starts
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
 * hang / unexpected / error (judge_injected in matrix.c).
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
#include <stdio.h>

#include <jansson.h>

#define EM_MAX_LIST	16
#define EM_MAX_SWEEPS	3
/* parallel VMs of one matrix at most (key jobs) */
#define EM_MAX_JOBS	32
/* a policy name as ember.ko registers it: at most 15 characters */
#define EM_POLICY_NAME_MAX	16
/* the drivers of key `driver` */
#define EM_DRIVER_EMBER		"ember"
#define EM_DRIVER_NVIDIA_UVM	"nvidia-uvm"
#define EM_MAX_DRIVERS		2

struct em_matrix {
	char name[64];
	char profile[64];
	char apps[EM_MAX_LIST][32];
	unsigned int napps;
	char variants[EM_MAX_LIST][32];
	unsigned int nvariants;
	char policies[EM_MAX_LIST][EM_POLICY_NAME_MAX];	/* none: each variant's own */
	unsigned int npolicies;
	char drivers[EM_MAX_DRIVERS][16];	/* none: ember */
	unsigned int ndrivers;
	char nvuvm_branch[32];			/* "": the image's newest */
	double factors[EM_MAX_LIST];
	unsigned int nfactors;
	uint64_t seeds[EM_MAX_LIST];
	unsigned int nseeds;
	unsigned int memory_mib;
	unsigned int timeout_s;
	unsigned int jobs;
	char run_args[256];
	char modparams[512];	/* comma-separated, for the guest's insmod */
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
};

/* Where the built pieces are (the Makefile passes them). */
struct em_paths {
	const char *qemu, *kernel, *initrd;
	const char *initrd_nvidia_uvm;	/* the nvidia-uvm image, for driver nvidia-uvm */
	const char *results;	/* parent of <name>/ */
	const char *accel;
};

/* One combination of the matrix. */
struct em_run {
	const struct em_matrix *m;	/* the matrix it is a run of */
	char id[160];
	const char *app, *variant;
	char policy[EM_POLICY_NAME_MAX];	/* the policy ember.ko runs it under */
	const char *driver;	/* EM_DRIVER_EMBER or EM_DRIVER_NVIDIA_UVM */
	/* nvidia-uvm's parameters for this run (the guest's nvuvm_modparams=,
	 * comma-separated), or "" */
	char nvuvm_modparams[192];
	/* the nvidia-uvm module it loads (the guest's nvuvm_module=), or "" */
	const char *nvuvm_module;
	double factor;
	uint64_t seed;
	char dir[4096];		/* logs and result.json */
	char args[512];		/* ember-run arguments, comma-separated */
	char sweep[96];		/* this run's sweep options ("-r 0 -u 32"), or "" */
	const char *inject_kind;	/* NULL: no injection */
	const char *inject_spec;
	/* filled while it runs */
	json_int_t injections_fired;	/* -1: unknown */
	json_int_t injections_in_launch;	/* of those, hitting a launch */
	char inject_error[256];
	json_t *device;		/* emgpu's stats at the guest's end, or NULL */
};

/*
 * Parses a config file. Returns 0, or -1 after printing
 * "<file>:<line>: <problem>" to stderr.
 */
int em_matrix_load(const char *path, struct em_matrix *m);

/*
 * Checks modparams against the parameters of the ember.ko in the guest's
 * initramfs (modinfo): an unknown name or an out-of-range value is named
 * on stderr. Returns 0 or -1. em_matrix_run calls it before any VM boots.
 */
int em_matrix_check_modparams(const struct em_matrix *m, const char *initrd);

/*
 * Runs every combination not finished yet; returns the number that failed,
 * -1 when interrupted, -2 when the matrix is refused before any VM boots.
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

/* Prints every run of the matrix, "<id> <ember-run arguments>", one a line. */
int em_matrix_list(const struct em_matrix *m, const struct em_paths *p);

/* The variants the paper compares, and the ember-run arguments of each. */
const char *em_variant_args(const char *variant);

/*
 * A variant under driver nvidia-uvm: its ember-run arguments (the program
 * variant alone: nvidia-uvm's policy is chosen at load) and nvidia-uvm's
 * parameters ("" for the master switch off); false for a variant that has
 * no meaning there (ac, ariadne, autouvm, ember, an unknown name).
 */
bool em_nvuvm_variant(const char *variant, const char **args, const char **modparams);
/* The nvidia-uvm module a variant loads: "nvidia-uvm-stock" (Debian's) or
 * "nvidia-uvm" (our series); NULL for a variant nvidia-uvm does not run. */
const char *em_nvuvm_module(const char *variant);
/* The variants as a Markdown table (ember-agent variants; docs/experiments.md). */
void em_variants_markdown(FILE *out);

/*
 * The policy a variant runs under: the name its arguments give -P, or
 * "uvm", the stock policy ember.ko starts a VA space with, for a variant
 * without one (modparams can make `ember` that default: a matrix doing so
 * says it in its modparams, recorded beside the policy). Writes "" for an
 * unknown variant.
 */
void em_variant_policy(const char *variant, char *policy, size_t len);

/*
 * The policy ember-run arguments select ("-v uvm -P ember -r 0": ember):
 * the last -P's name, as ember-run's getopt keeps it, or "uvm" without one.
 * The words may be apart by spaces or commas (the guest's ember_run=).
 */
void em_args_policy(const char *args, char *policy, size_t len);

/*
 * What a kind must lead to once it hit a launch under driver (NULL:
 * ember): "recovered", "EIO", "fatal:EIO" (nvidia-uvm's global fatal
 * error), ...; "?" for an unknown or refused kind.
 */
const char *em_inject_expected(const char *driver, const char *kind);
/* The same for a run of matrix m (its expect.KIND, or the kind's own). */
const char *em_run_expected(const struct em_matrix *m, const char *driver, const char *kind);
/* Why driver refuses an injection kind, or NULL where it runs. */
const char *em_inject_refused(const char *driver, const char *kind);
/* One driver's expectations as a Markdown table (ember-agent inject-expect). */
void em_inject_expect_markdown(const char *driver, FILE *out);
/* The kernel line of nvidia-uvm's global fatal error (uvm_global.c). */
#define EM_NVUVM_FATAL_LINE	"Encountered a global fatal error"

/* The default injection spec of a kind (DESIGN.md section 3), or NULL. */
const char *em_inject_default_spec(const char *kind);

/* Outcome of one run however it ran (QEMU directly or through libvirt). */
struct em_run_outcome {
	bool timed_out;
	int exit_status;
	double wall_s;
	const char *host;	/* "local" or the libvirt URI */
	/* the host went away before the run ended: not a result, rerun it */
	bool host_lost;
};

/*
 * Records a finished run: judges the guest's results file and writes
 * <dir>/result.json. Returns the status ("ok", "failed", "error",
 * "timeout"), a static string.
 */
const char *em_run_record(const struct em_matrix *m, const struct em_run *r,
			  const char *commit, const char *results_path,
			  const struct em_run_outcome *o);

/*
 * ok, recovered, clean-error, fatal-error and not-fired are acceptable; anything else
 * counts as failed (inject-test also fails a not-fired run).
 */
bool em_status_acceptable(const char *status);

/* Prints the progress line after a run finished (last may be NULL). */
void em_run_progress(size_t done, size_t total, size_t running,
		     const struct em_run *last, const char *status, double wall);

#endif /* EMBER_AGENT_MATRIX_H */
