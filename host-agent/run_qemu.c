// SPDX-License-Identifier: MIT
/*
 * The QEMU back-end of the scheduler (sched.h): each run one QEMU started
 * here (vm.c), up to the matrix's jobs at once. Every run holds at its
 * end while the host reads the device's stats over QMP (kept in
 * result.json as "device"); an injected run starts paused and runs once
 * its injection is armed over QMP.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "digest.h"
#include "qmp.h"
#include "sched.h"
#include "vm.h"

struct qemu_backend {
	const struct em_paths *p;
	unsigned int jobs;		/* VMs at once */
	/* the running VMs, dense: [0, running) */
	struct em_vm vms[EM_MAX_JOBS];
	struct em_vm *active[EM_MAX_JOBS];
	struct em_vm_outcome outs[EM_MAX_JOBS];
	struct em_run *run_of[EM_MAX_JOBS];
	size_t running;
};

/*
 * Arms the run's injection on its paused VM over QMP, then lets it run. A
 * refused spec is kept in the run (it is then an "error" run).
 */
static void arm_injection(struct em_vm *vm, struct em_run *r)
{
	char err[200], spec[256], *one, *save = NULL;
	struct em_qmp q;
	json_t *ret;

	if (em_qmp_connect(&q, vm->qmp_path, 10000, r->inject_error,
			   sizeof(r->inject_error)))
		return;
	/* "A;B": the run's kind A, then B armed beside it (counts are A's) */
	snprintf(spec, sizeof(spec), "%s", r->inject_spec);
	for (one = strtok_r(spec, ";", &save); one && !r->inject_error[0];
	     one = strtok_r(NULL, ";", &save)) {
		ret = em_qmp_execute(&q, "qom-set", json_pack("{s:s,s:s,s:s}", "path",
				     EM_VM_GPU_QOM_PATH, "property", "inject", "value",
				     one), r->inject_error, sizeof(r->inject_error));
		json_decref(ret);
	}
	/* run even when refused: the run is recorded as an error, logs kept */
	ret = em_qmp_execute(&q, "cont", NULL, err, sizeof(err));
	if (!ret && !r->inject_error[0])
		snprintf(r->inject_error, sizeof(r->inject_error), "cont: %s", err);
	json_decref(ret);
	em_qmp_close(&q);
}

/*
 * At the guest's final hold: the device's stats (kept in result.json) and,
 * for an injected run, how often the injection fired. Asked and answered
 * inside the VMs' wait loop (vm.h's em_vm_hold_ops).
 */
static void ask_device_stats(struct em_vm *vm, struct em_qmp *q, void *arg)
{
	struct em_run *r = arg;

	(void)vm;
	em_qmp_queue(q, "qom-get", json_pack("{s:s,s:s}", "path", EM_VM_GPU_QOM_PATH,
					     "property", "stats"));
	/* a device reset clears the stats, not the armed injection's count */
	if (r->inject_kind)
		em_qmp_queue(q, "qom-get", json_pack("{s:s,s:s}", "path", EM_VM_GPU_QOM_PATH,
						     "property", "inject"));
}

static void take_device_stats(struct em_vm *vm, struct em_qmp *q, void *arg)
{
	struct em_run *r = arg;
	json_t *stats = em_qmp_reply(q, 0, NULL, 0), *inject;

	(void)vm;
	if (json_is_integer(json_object_get(stats, "injections_fired")))
		r->injections_fired = json_integer_value(json_object_get(stats,
								       "injections_fired"));
	json_decref(r->device);
	r->device = json_is_object(stats) ? json_incref(stats) : NULL;
	inject = r->inject_kind ? em_qmp_reply(q, 1, NULL, 0) : NULL;
	if (json_is_string(inject)) {
		const char *f = strstr(json_string_value(inject), " fired=");
		const char *l = strstr(json_string_value(inject), " in_launch=");
		json_int_t n = f ? strtoll(f + 7, NULL, 10) : 0;

		if (n > r->injections_fired)
			r->injections_fired = n;
		/* the device's own count of firings that hit a launch */
		r->injections_in_launch = l ? strtoll(l + 11, NULL, 10) : -1;
	}
}

static const struct em_vm_hold_ops device_stats_at_hold = {
	.ask = ask_device_stats,
	.answered = take_device_stats,
};

static bool qemu_has_room(const struct em_backend *be)
{
	const struct qemu_backend *q = be->state;

	return q->running < q->jobs;
}

static int qemu_start(struct em_backend *be, struct em_run *r, const char **host)
{
	struct qemu_backend *q = be->state;
	const struct em_run_settings *set = r->settings;	/* of a pool: its own matrix's */
	const struct em_paths *p = q->p;
	struct em_vm *vm = &q->vms[q->running];
	struct em_vm_config cfg = {
		.qemu = p->qemu, .kernel = p->kernel, .initrd = p->initrd,
		.workdir = r->dir, .profile = set->profile, .accel = p->accel,
		.seed = r->seed, .memory_mib = set->memory_mib,
		.driver_cost = set->driver_cost,
		.timeout_s = set->timeout_s, .run_args = r->args,
		.modparams = set->modparams[0] ? set->modparams : NULL,
		.paused = r->inject_kind != NULL,
		.hold_at_end = true,
		.hold = &device_stats_at_hold, .hold_arg = r,
	};
	char append[512], digest[96], device_opts[32];

	/*
	 * nvidia-uvm: its image (whose init runs ember-run under
	 * EMBER_DRIVER=nvidia-uvm) on the matrix's personality (its
	 * nvuvm_personality, else its profile's card's), nvidia-uvm of
	 * the matrix's branch loaded with the variant's parameters. The
	 * stand-in reports the profile's VRAM as ember.ko does, so the run's
	 * footprint and the host's digest of its outputs are ember's.
	 */
	if (!strcmp(r->driver, EM_DRIVER_NVIDIA_UVM)) {
		cfg.initrd = p->initrd_nvidia_uvm;
		snprintf(device_opts, sizeof(device_opts), ",personality=%s",
			 set->nvuvm_personality);
		cfg.device_opts = device_opts;
		cfg.modparams = NULL;
		snprintf(append, sizeof(append), "nvuvm_module=%s%s%s%s%s",
			 r->nvuvm_module && r->nvuvm_module[0] ? r->nvuvm_module : "nvidia-uvm",
			 r->nvuvm_modparams[0] ? " nvuvm_modparams=" : "", r->nvuvm_modparams,
			 set->nvuvm_branch[0] ? " nvuvm_branch=" : "", set->nvuvm_branch);
		cfg.append = append;
		if (!em_run_digest(set->profile, r->args, digest, sizeof(digest)))
			cfg.verify_digest = digest;
	}
	*host = "local";
	if (em_vm_start(vm, &cfg)) {
		fprintf(stderr, "ember-agent: %s: cannot start QEMU\n", r->id);
		return -1;
	}
	if (r->inject_kind)
		arm_injection(vm, r);
	memset(&q->outs[q->running], 0, sizeof(q->outs[q->running]));
	q->active[q->running] = vm;
	q->run_of[q->running] = r;
	q->running++;
	return 0;
}

/* QEMU dies with the signal too (one process group): no need to poll it. */
static struct em_run *qemu_wait(struct em_backend *be, volatile sig_atomic_t *interrupted,
				struct em_run_outcome *o, const char **results_path)
{
	struct qemu_backend *q = be->state;
	long k = em_vm_wait_any(q->active, q->outs, q->running);

	(void)interrupted;
	if (k < 0)
		return NULL;
	*o = (struct em_run_outcome){
		.timed_out = q->outs[k].timed_out,
		.exit_status = q->outs[k].exit_status,
		.wall_s = q->outs[k].wall_s, .cpu_s = q->outs[k].cpu_s,
		.host = "local",
		.guest_errors = q->outs[k].guest_errors,
		.cap_file = q->outs[k].cap_hit >= 0 ? em_vm_cap_file(q->outs[k].cap_hit) : NULL,
		.cap_bytes = q->outs[k].cap_hit >= 0 ? em_vm_cap_bytes(q->outs[k].cap_hit) : 0,
	};
	*results_path = q->vms[k].results_path;
	return q->run_of[k];
}

/* Keeps the running set dense: the last slot moves into the freed one. */
static void qemu_release(struct em_backend *be, struct em_run *r)
{
	struct qemu_backend *q = be->state;
	size_t k;

	for (k = 0; k < q->running && q->run_of[k] != r; k++)
		;
	if (k == q->running)
		return;
	q->running--;
	if (k != q->running) {
		q->vms[k] = q->vms[q->running];
		q->outs[k] = q->outs[q->running];
		q->run_of[k] = q->run_of[q->running];
	}
}

static void qemu_stop_all(struct em_backend *be)
{
	struct qemu_backend *q = be->state;
	size_t i;

	for (i = 0; i < q->running; i++)
		kill(q->vms[i].pid, SIGKILL);
}

static void qemu_close(struct em_backend *be)
{
	free(be->state);
	be->state = NULL;
}

static const struct em_backend_ops qemu_ops = {
	.has_room = qemu_has_room,
	.start = qemu_start,
	.wait = qemu_wait,
	.release = qemu_release,
	.stop_all = qemu_stop_all,
	.close = qemu_close,
	.record_start_failure = false,
};

int em_qemu_backend_open(struct em_backend *be, unsigned int jobs, const struct em_paths *p)
{
	struct qemu_backend *q = calloc(1, sizeof(*q));

	if (!q) {
		fprintf(stderr, "ember-agent: out of memory\n");
		return -1;
	}
	q->p = p;
	q->jobs = jobs < EM_MAX_JOBS ? jobs : EM_MAX_JOBS;
	be->ops = &qemu_ops;
	be->state = q;
	return 0;
}
