/* SPDX-License-Identifier: MIT */
/*
 * The result record of one matrix run, as one list: every field of
 * result.json (and so of results.jsonl) and every column of results.csv,
 * in the CSV's order. Both producers expand it (result_record.c):
 * em_result_json() sets each TOP field of result.json from its value, and
 * the CSV writer reads each field back from that result.json, so a field
 * cannot be in one and not the other. Two objects are kept whole in
 * result.json besides: "run" (the guest's result line, every field the
 * workload reports) and "device" (emgpu's stats at the guest's end); the
 * RUN and DEVICE rows are the fields of those that the CSV carries.
 *
 * X(name, from, type, csv_format, value, present, description)
 *   from:    TOP (set by the host from value, where present holds),
 *            RUN (in "run", the guest's), DEVICE (in "device")
 *   type:    STRING, INT or REAL (the JSON type; a CSV cell of it)
 *   value:   an expression over `const struct em_result_src *s`
 *   present: whether the field is in this run's record (empty CSV cell
 *            where not); RUN and DEVICE rows: their object has them
 */
#ifndef EMBER_AGENT_RESULT_FIELDS_H
#define EMBER_AGENT_RESULT_FIELDS_H

#include "gpumodel/gpumodel.h"	/* GM_CPU_ACTIVITIES */

/* The driver's CPU work per activity (models/src/guest_cost.c), DEVICE rows. */
#define EM_RESULT_CPU_ROWS_(X, id, name, what)				\
	X(cpu_insns_##name, DEVICE, INT, "", 0, false,			\
	  "guest instructions retired in " what)			\
	X(cpu_ns_##name, DEVICE, INT, "", 0, false,			\
	  "those instructions' modelled ns (the profile's cpu_insn_ps each)")

#define EM_RESULT_FIELDS(X)						\
	X(commit, TOP, STRING, "", s->commit, true,			\
	  "the testbed's commit that ran it (git rev-parse --short=12)")	\
	X(profile, TOP, STRING, "", s->r->settings->profile, true,	\
	  "emgpu profile (models/src/profile.c)")			\
	X(app, TOP, STRING, "", s->r->app, true,			\
	  "the kernel, ember-run -k")					\
	X(variant, TOP, STRING, "", s->r->variant, true,		\
	  "the variant (userspace/variants.h's list): the program's placement")	\
	X(policy, TOP, STRING, "", s->r->policy, true,		\
	  "the ember.ko policy it ran under (the last -P, else uvm); under " \
	  "nvidia-uvm the variant's (adaptive: ember; the others: uvm, Debian's module)") \
	X(driver, TOP, STRING, "", s->r->driver, true,			\
	  "ember (ember.ko) or nvidia-uvm (NVIDIA's nvidia-uvm through the " \
	  "resource-manager stand-in), matrix key driver")		\
	X(nvuvm_module, TOP, STRING, "", s->r->nvuvm_module ? s->r->nvuvm_module : "", \
	  s->r->nvuvm_module && s->r->nvuvm_module[0],			\
	  "under nvidia-uvm, the module loaded: nvidia-uvm-stock (Debian's, "	\
	  "NVIDIA's source alone) or nvidia-uvm (with Ember's series)")	\
	X(branch, RUN, STRING, "", 0, false,				\
	  "under nvidia-uvm, the driver branch the guest loaded (matrix key " \
	  "nvuvm_branch, else the image's newest)")			\
	X(personality, TOP, STRING, "", s->r->settings->nvuvm_personality, \
	  !strcmp(s->r->driver, EM_DRIVER_NVIDIA_UVM),			\
	  "under nvidia-uvm, emgpu's personality, the GPU nvidia-uvm drove: " \
	  "ga10x (Ampere's HAL) or gh100 (Hopper's); matrix key "	\
	  "nvuvm_personality, else the profile's card's")		\
	X(factor, TOP, REAL, "%g", s->r->factor, true,			\
	  "footprint / VRAM, ember-run -x")				\
	X(seed, TOP, INT, "", (json_int_t)s->r->seed, true,		\
	  "ember-run -s and emgpu's seed")				\
	X(status, TOP, STRING, "", s->status, true,			\
	  "ok, failed, error, timeout; a campaign's: recovered, clean-error, " \
	  "not-fired, corrupted, oops, hang, unexpected; either's: output-limit " \
	  "(the guest wrote past a cap, docs/testing.md)")		\
	X(wall_s, TOP, REAL, "%.2f", s->o->wall_s, true,		\
	  "the VM's wall-clock seconds on this host")			\
	X(cpu_s, TOP, REAL, "%.2f", s->o->cpu_s, true,			\
	  "QEMU's user + system CPU seconds (0: a libvirt domain's, not known)") \
	X(sim_ns, RUN, INT, "", 0, false,				\
	  "modelled kernel time, ns (setup_ns, in run, is the advice and prefetch)") \
	X(faults, RUN, INT, "", 0, false, "GPU faults serviced")	\
	X(fault_batches, RUN, INT, "", 0, false, "fault batches serviced") \
	X(evictions, RUN, INT, "", 0, false, "2 MiB root chunks evicted")	\
	X(bytes_h2d, RUN, INT, "", 0, false, "bytes migrated host to device") \
	X(bytes_d2h, RUN, INT, "", 0, false, "bytes migrated device to host") \
	X(prefetched_bytes, RUN, INT, "", 0, false, "bytes the TBN prefetcher moved beyond the faulted pages") \
	X(notifications, RUN, INT, "", 0, false, "access-counter notifications handled") \
	X(promotions, RUN, INT, "", 0, false, "blocks a policy promoted on notification") \
	X(mismatches, RUN, INT, "", 0, false, "output words that did not verify") \
	X(id, TOP, STRING, "", s->r->id, true,			\
	  "the run's id, its directory under runs/")			\
	X(host, TOP, STRING, "", s->o->host, true,			\
	  "local (QEMU started here) or the libvirt URI")		\
	X(exit_status, TOP, INT, "", s->o->exit_status, true,		\
	  "QEMU's exit status, or -signal (-1: the VM did not start)")	\
	X(modparams, TOP, STRING, "", s->r->settings->modparams, true, \
	  "ember.ko parameters the guest loaded it with, comma-separated") \
	X(run_args, TOP, STRING, "", s->r->settings->run_args, true,	\
	  "the matrix's extra ember-run arguments")			\
	X(ember_run, TOP, STRING, "", s->r->args, true,		\
	  "the guest's whole ember-run command line, comma-separated")	\
	X(sweep, TOP, STRING, "", s->r->sweep, true,			\
	  "this run's sweep options (\"-r 0 -u 32\"), or empty")	\
	X(why, TOP, STRING, "", s->why, s->why[0] != '\0',		\
	  "what made the status other than ok")				\
	X(inject, TOP, STRING, "", s->r->inject_kind, s->r->inject_kind != NULL, \
	  "the injection kind armed (campaigns)")			\
	X(inject_spec, TOP, STRING, "", s->r->inject_spec, s->r->inject_kind != NULL, \
	  "the injection spec armed over QMP")				\
	X(expected, TOP, STRING, "", s->expected, s->r->inject_kind != NULL, \
	  "what the kind must lead to: recovered, EIO, ETIMEDOUT")	\
	X(injections_fired, TOP, INT, "", s->r->injections_fired,	\
	  s->r->inject_kind != NULL, "times the injection fired (-1: unknown)") \
	X(injections_in_launch, TOP, INT, "", s->r->injections_in_launch, \
	  s->r->inject_kind != NULL,					\
	  "of those, firings during a running launch (-1: unknown)")	\
	X(inject_error, TOP, STRING, "", s->r->inject_error,		\
	  s->r->inject_kind != NULL && s->r->inject_error[0] != '\0',	\
	  "why arming the injection failed")				\
	X(trace_hash, DEVICE, STRING, "", 0, false,			\
	  "the device's hash of its event trace: equal runs, equal hashes") \
	X(driver_cost, TOP, STRING, "", s->r->settings->driver_cost, true, \
	  "how the driver's CPU time was charged (matrix key driver_cost): " \
	  "measured (guest instructions) or assumed (the profile's constants)") \
	GM_CPU_ACTIVITIES(EM_RESULT_CPU_ROWS_, X)			\
	X(cpu_insns_other, DEVICE, INT, "", 0, false,			\
	  "guest instructions in no driver activity (the application, the idle kernel)") \
	X(cpu_measured_ns, DEVICE, INT, "", 0, false,			\
	  "the activities' modelled ns, summed (charged under driver_cost measured)") \
	X(cpu_assumed_ns, DEVICE, INT, "", 0, false,			\
	  "what the profile's assumed constants come to on the same run "	\
	  "(charged under driver_cost assumed)")

#endif /* EMBER_AGENT_RESULT_FIELDS_H */
