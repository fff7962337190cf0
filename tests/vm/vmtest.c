// SPDX-License-Identifier: MIT
/*
 * vmtest: the VM test harness behind `make vm-test`. Boots VMs with emgpu
 * (QEMU under TCG unless told otherwise), lets the guest run its scenarios,
 * judges the guest's JSON lines against the expectations below and prints
 * KTAP with a closing "N passed, M failed, 0 skipped" line. Exit status 1 on failure.
 *
 * The expected values are written here independently of the model's profile
 * table, so a wrong number anywhere on the path (profile, device, driver,
 * ioctl) fails a test.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qmp.h"
#include "vm.h"
#include "vmtest_scenarios.h"	/* scenarios, calls and errnos, the guest's too */

#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* ember.ko reload: bound on growth over 10 cycles (after one warm-up). */
#define RELOAD_CYCLES			10
#define RELOAD_MAX_SUNRECLAIM_KB	64
#define RELOAD_MAX_MEMFREE_DROP_KB	512

struct expected_gpu {
	const char *profile;
	json_int_t profile_id;		/* enum emgpu_profile_id */
	json_int_t vram_size;
	json_int_t num_sms;
	json_int_t num_access_counters;
};

/*
 * Paper Table 2 capacities, vendors' SM counts, 256 counters (paper §2.3),
 * divided by k on a scaled card (docs/model.md: 256 MiB is the paper's
 * 16 GiB card at 1/64).
 */
static const struct expected_gpu expected_gpus[] = {
	{ "h200-256m", 3, 256 * MiB, 132, 4 },
	{ "rtx5080", 1, 16 * GiB, 84, 256 },
};

/* What the host saw over QMP while the guest held (scenario "hold"). */
struct qmp_check {
	bool ran;
	char connect_err[256];
	json_t *stats;			/* qom-get stats */
	char bad_spec_err[512];		/* qom-set inject with a bad spec */
	bool good_spec_ok;
	char *inject_listing;		/* qom-get inject afterwards */
};

struct boot {
	const char *name;		/* its directory under the outdir */
	const char *profile;
	const char *scenarios;
	const char *device_opts;	/* extra ",key=value" for the emgpu */
	bool qmp_checks;		/* at "hold": also try inject specs */
	struct qmp_check qmp;
	struct em_vm vm;
	struct em_vm_outcome outcome;
	json_t *results;
	unsigned int bad_lines;
	char workdir[4096];
};

static struct {
	const char *qemu, *kernel, *initrd, *outdir, *accel;
	unsigned int timeout_s;
	int planned, number, failed;
} h = { .outdir = "build/vm-test", .timeout_s = 480 };

/* Diagnostics for the test being judged, printed under its result line. */
static char diag[8192];
static size_t diag_len;

static void note(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (diag_len >= sizeof(diag) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(diag + diag_len, sizeof(diag) - diag_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		diag_len += (size_t)n < sizeof(diag) - diag_len ? (size_t)n : sizeof(diag) - diag_len - 1;
	if (diag_len < sizeof(diag) - 1 && diag_len && diag[diag_len - 1] != '\n')
		diag[diag_len++] = '\n', diag[diag_len] = '\0';
}

static void report(bool ok, const char *fmt, ...)
{
	va_list ap;
	char *line, *save = NULL;

	printf("%s %d ", ok ? "ok" : "not ok", ++h.number);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	for (line = strtok_r(diag, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("    # %s\n", line);
	diag[0] = '\0';
	diag_len = 0;
	if (!ok)
		h.failed++;
	fflush(stdout);
}

static bool expect_int(json_t *obj, const char *key, json_int_t want)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;

	if (!json_is_integer(v)) {
		note("%s: missing", key);
		return false;
	}
	if (json_integer_value(v) != want) {
		note("%s is %" JSON_INTEGER_FORMAT ", expected %" JSON_INTEGER_FORMAT,
		     key, json_integer_value(v), want);
		return false;
	}
	return true;
}

/* Appends the last lines of a log to the diagnostics. */
static void note_tail(const char *path, int lines)
{
	char cmd[4200];
	char buf[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "tail -n %d '%s' 2>/dev/null", lines, path);
	p = popen(cmd, "r");
	if (!p)
		return;
	note("--- %s", path);
	while (fgets(buf, sizeof(buf), p))
		note("%s", buf);
	pclose(p);
}

#define GOOD_INJECT_SPEC "kind=ce-stall,factor=10,count=1"

/*
 * While the guest holds: read stats and arm injections over QMP, as a user
 * does during an experiment, then release the guest.
 */
static void on_guest_line(struct em_vm *vm, json_t *obj, void *arg)
{
	struct boot *b = arg;
	struct qmp_check *c = &b->qmp;
	const char *scenario = json_string_value(json_object_get(obj, "scenario"));
	char err[512] = "";
	struct em_qmp q;
	json_t *r;

	if (!scenario || strcmp(scenario, "hold") || !json_object_get(obj, "waiting"))
		return;
	c->ran = true;
	if (em_qmp_connect(&q, vm->qmp_path, 5000, c->connect_err, sizeof(c->connect_err))) {
		em_vm_send(vm, "go\n");
		return;
	}
	c->stats = em_qmp_execute(&q, "qom-get", json_pack("{s:s,s:s}", "path",
				  EM_VM_GPU_QOM_PATH, "property", "stats"), err, sizeof(err));
	if (!b->qmp_checks) {
		em_qmp_close(&q);
		em_vm_send(vm, "go\n");
		return;
	}
	r = em_qmp_execute(&q, "qom-set", json_pack("{s:s,s:s,s:s}", "path",
			   EM_VM_GPU_QOM_PATH, "property", "inject", "value",
			   "kind=ce-stall,trigger=sometimes"),
			   c->bad_spec_err, sizeof(c->bad_spec_err));
	json_decref(r);
	r = em_qmp_execute(&q, "qom-set", json_pack("{s:s,s:s,s:s}", "path",
			   EM_VM_GPU_QOM_PATH, "property", "inject", "value",
			   GOOD_INJECT_SPEC), err, sizeof(err));
	c->good_spec_ok = r != NULL;
	json_decref(r);
	r = em_qmp_execute(&q, "qom-get", json_pack("{s:s,s:s}", "path",
			   EM_VM_GPU_QOM_PATH, "property", "inject"), err, sizeof(err));
	if (json_is_string(r))
		c->inject_listing = strdup(json_string_value(r));
	json_decref(r);
	em_qmp_close(&q);
	em_vm_send(vm, "go\n");
}

static void boot_start(struct boot *b)
{
	struct em_vm_config cfg = {
		.qemu = h.qemu, .kernel = h.kernel, .initrd = h.initrd,
		.profile = b->profile, .scenarios = b->scenarios,
		.accel = h.accel, .seed = 1, .timeout_s = h.timeout_s,
		.workdir = b->workdir, .on_line = on_guest_line, .on_line_arg = b,
		.device_opts = b->device_opts,
	};

	snprintf(b->workdir, sizeof(b->workdir), "%s/%s", h.outdir, b->name);
	if (em_vm_start(&b->vm, &cfg))
		b->vm.pid = -1;
}

/* Waits for all the boots together, so none blocks on unread output. */
static void boots_finish(struct boot *boots, size_t n)
{
	struct em_vm *vms[16];
	struct em_vm_outcome outs[16];
	size_t i, nv = 0;

	for (i = 0; i < n; i++)
		if (boots[i].vm.pid > 0)
			vms[nv++] = &boots[i].vm;
	em_vm_wait_all(vms, outs, nv);
	for (i = nv = 0; i < n; i++) {
		if (boots[i].vm.pid <= 0) {
			boots[i].outcome.exit_status = -1;
			continue;
		}
		boots[i].outcome = outs[nv++];
		boots[i].results = em_results_load(boots[i].vm.results_path,
						   &boots[i].bad_lines);
	}
}

/* QMP answers stats and inject while the guest runs; bad specs are refused. */
static void test_qmp(struct boot *b)
{
	struct qmp_check *c = &b->qmp;
	bool ok = c->ran && !c->connect_err[0];
	json_t *hash = c->stats ? json_object_get(c->stats, "trace_hash") : NULL;

	if (!c->ran)
		note("the guest never held for the host");
	if (c->connect_err[0])
		note("%s", c->connect_err);
	if (ok && (!json_is_object(c->stats) || !json_is_string(hash) ||
		   !json_is_integer(json_object_get(c->stats, "sim_ns")))) {
		note("qom-get stats: no trace_hash/sim_ns object");
		ok = false;
	}
	if (ok && !strstr(c->bad_spec_err, "sometimes")) {
		note("bad inject spec not refused with a reason: '%s'", c->bad_spec_err);
		ok = false;
	}
	if (ok && (!c->good_spec_ok || !c->inject_listing ||
		   !strstr(c->inject_listing, GOOD_INJECT_SPEC))) {
		note("good inject spec not armed (listing '%s')",
		     c->inject_listing ? c->inject_listing : "");
		ok = false;
	}
	if (ok)
		note("bad spec refused: %s", c->bad_spec_err);
	report(ok && expect_int(em_results_find(b->results, "hold", "released"),
				"bytes", 2), "qmp stats and inject while %s runs", b->profile);
	free(c->inject_listing);
}

/* The VM booted, loaded ember.ko, ran every scenario and powered off cleanly. */
static void test_boot(struct boot *b)
{
	json_t *r = b->results;
	const char *problem = em_vm_console_problem(b->vm.console_path);
	bool ok = true;

	if (b->outcome.timed_out) {
		note("timed out after %u s", h.timeout_s);
		ok = false;
	} else if (b->outcome.exit_status) {
		note("QEMU exit status %d", b->outcome.exit_status);
		ok = false;
	}
	if (!r || !expect_int(em_results_find(r, "boot", "insmod"), "insmod", 0))
		ok = false;
	if (!r || !em_results_find(r, "boot", "end")) {
		note("the guest did not reach the end of its scenarios");
		ok = false;
	}
	if (b->bad_lines) {
		note("%u malformed result lines", b->bad_lines);
		ok = false;
	}
	if (problem) {
		note("console: %s", problem);
		ok = false;
	}
	if (!ok) {
		note_tail(b->vm.qemu_log_path, 5);
		note_tail(b->vm.console_path, 15);
	}
	report(ok, "boot %s, %s (%.1f s)", b->name, b->profile, b->outcome.wall_s);
}

/* Device info through /dev/ember matches the profile the VM was given. */
static void test_probe(struct boot *b, const struct expected_gpu *e)
{
	json_t *info = b->results ? em_results_find(b->results, "probe", "vram_size") : NULL;
	json_t *flags;
	bool ok = info != NULL;

	if (!info)
		note("no device info from the guest");
	ok &= expect_int(info, "abi_version", 1);
	ok &= expect_int(info, "hw_id", 0x454d4750);		/* "EMGP" */
	ok &= expect_int(info, "num_gpus", 1);
	ok &= expect_int(info, "profile", e->profile_id);
	ok &= expect_int(info, "vram_size", e->vram_size);
	ok &= expect_int(info, "num_sms", e->num_sms);
	ok &= expect_int(info, "num_access_counters", e->num_access_counters);
	flags = info ? json_object_get(info, "flags") : NULL;
	if (info && !(json_integer_value(flags) & 1)) {
		note("MSI-X self-test did not pass (flags %" JSON_INTEGER_FORMAT ")",
		     json_integer_value(flags));
		ok = false;
	}
	report(ok, "probe %s", b->profile);
}

/* ember.ko unloads and reloads 10 times, working each time, leaking nothing. */
static void test_reload(struct boot *b)
{
	json_t *r = b->results ? em_results_find(b->results, "reload", "cycles") : NULL;
	json_t *v;
	bool ok = r != NULL;

	if (!r) {
		json_t *err = b->results ? em_results_find(b->results, "reload", "error") : NULL;

		note("no reload result%s%s", err ? ": " : "",
		     err ? json_string_value(json_object_get(err, "error")) : "");
	}
	ok &= expect_int(r, "cycles_ok", RELOAD_CYCLES);
	if (r) {
		v = json_object_get(r, "sunreclaim_growth_kb");
		note("SUnreclaim growth %" JSON_INTEGER_FORMAT " kB (bound %d), MemFree drop %"
		     JSON_INTEGER_FORMAT " kB (bound %d)", json_integer_value(v),
		     RELOAD_MAX_SUNRECLAIM_KB,
		     json_integer_value(json_object_get(r, "memfree_drop_kb")),
		     RELOAD_MAX_MEMFREE_DROP_KB);
		if (!json_is_integer(v) || json_integer_value(v) > RELOAD_MAX_SUNRECLAIM_KB)
			ok = false;
		v = json_object_get(r, "memfree_drop_kb");
		if (!json_is_integer(v) || json_integer_value(v) > RELOAD_MAX_MEMFREE_DROP_KB)
			ok = false;
	}
	report(ok, "reload %s x%d without leaks", b->profile, RELOAD_CYCLES);
}

/* Each bad ioctl gets exactly its errno, and the driver stays healthy. */
static void test_bad_ioctls(struct boot *b)
{
	size_t i, j;
	json_t *obj;

	for (i = 0; i < VMTEST_NBADIOCTL; i++) {
		const char *call = vmtest_badioctl_calls[i].call;
		json_t *found = NULL;

		json_array_foreach(b->results, j, obj) {
			const char *c = json_string_value(json_object_get(obj, "call"));

			if (c && !strcmp(c, call))
				found = obj;
		}
		if (!found)
			note("no result for %s", call);
		report(found && expect_int(found, "errno", vmtest_badioctl_calls[i].errno_expected),
		       "badioctl %s", call);
	}
}

/* QEMU refuses a bad device configuration with a message naming it. */
static void test_bad_property(const char *opts, const char *message)
{
	char out[4096];
	int status = em_vm_check_device(h.qemu, opts, 20, out, sizeof(out));

	if (status == 0)
		note("QEMU accepted %s", opts);
	if (!strstr(out, message))
		note("expected \"%s\" in: %s", message, out);
	report(status > 0 && strstr(out, message), "emgpu refuses %s", opts);
}

/* ...and accepts a good one, so the refusals above are about the values. */
static void test_good_property(const char *opts)
{
	char out[4096];
	int status = em_vm_check_device(h.qemu, opts, 3, out, sizeof(out));

	if (status)
		note("QEMU exit %d: %s", status, out);
	report(status == 0, "emgpu accepts %s", opts);
}

/* ---- the UVM driver: managed memory, migrations, bad input ---- */

/*
 * Whether every scenario of a boot's comma-separated list is one the guest
 * has (vmtest_scenarios.h), or a workload ("<kernel>-<variant>-<f>x...").
 */
static bool scenarios_known(const char *boot, const char *scenarios)
{
#define SCENARIO_NAME(name, fn)	#name,
	static const char *const known[] = { VMTEST_SCENARIOS(SCENARIO_NAME) };
#undef SCENARIO_NAME
	char list[4096], *save = NULL, *s;
	bool ok = true;
	size_t i;

	snprintf(list, sizeof(list), "%s", scenarios);
	for (s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(known) / sizeof(known[0]) && strcmp(s, known[i]); i++)
			;
		if (i == sizeof(known) / sizeof(known[0]) && !strchr(s, '-')) {
			fprintf(stderr, "vmtest: boot %s: the guest has no scenario '%s' "
				"(vmtest_scenarios.h)\n", boot, s);
			ok = false;
		}
	}
	return ok;
}

static json_t *find_scenario(struct boot *b, const char *scenario, const char *key)
{
	return b->results ? em_results_find(b->results, scenario, key) : NULL;
}

static void test_managed_badinput(struct boot *b)
{
	size_t i, j, n = VMTEST_NBADINPUT;
	bool ok = true;
	json_t *obj;

	for (i = 0; i < n; i++) {
		json_t *found = NULL;

		json_array_foreach(b->results, j, obj) {
			const char *sc = json_string_value(json_object_get(obj, "scenario"));
			const char *call = json_string_value(json_object_get(obj, "call"));

			if (sc && call && !strcmp(sc, "managed_badinput") &&
			    !strcmp(call, vmtest_badinput_calls[i].call))
				found = obj;
		}
		if (!found) {
			note("%s: no result", vmtest_badinput_calls[i].call);
			ok = false;
		} else if (json_integer_value(json_object_get(found, "errno")) !=
			   vmtest_badinput_calls[i].errno_expected) {
			note("%s: errno %" JSON_INTEGER_FORMAT ", expected %" JSON_INTEGER_FORMAT,
			     vmtest_badinput_calls[i].call,
			     json_integer_value(json_object_get(found, "errno")),
			     vmtest_badinput_calls[i].errno_expected);
			ok = false;
		}
	}
	report(ok, "managed_badinput: %zu bad calls, exact errnos", n);
}

/*
 * The expectations of the driver scenarios, one row each: the result line
 * of `scenario` holding `anchor`, and the checks on its fields. A field
 * check compares with a number (EQ, GT, LT) or with another field of the
 * same line (SAME); MISMATCHES_ZERO checks every field named mismatches*.
 */
enum check_op { EQ, GT, LT, SAME };

struct field_check {
	const char *key;
	enum check_op op;
	json_int_t value;
	const char *other;		/* SAME: the field it must equal */
};

#define MAX_FIELD_CHECKS	16

struct scenario_expect {
	const char *scenario;
	const char *anchor;
	const char *what;
	bool mismatches_zero;		/* every mismatches* field is 0 */
	struct field_check f[MAX_FIELD_CHECKS];
};

#define HOOK_CALLED(id, member)	{ "hook_" #member, GT, 0, NULL },
_Static_assert(EMBER_POLICY_HOOKS <= MAX_FIELD_CHECKS, "policy_hooks: one row per hook");

static const struct scenario_expect driver_expects[] = {
	{ "managed_cpu", "cpu_faults",
	  "managed_cpu: first touch, one fault a page, data and zeroing", true,
	  { { "cpu_faults", EQ, 2048, NULL }, { "pages_cpu_populated", EQ, 2048, NULL },
	    { "free_ret", EQ, 0, NULL } } },
	{ "managed_cpu", "realloc_ret", "managed_cpu: a freed range comes back zeroed",
	  true, { { "realloc_ret", EQ, 0, NULL } } },
	{ "invalid_access", "first_errno", "invalid_access: EFAULT, then healthy", true,
	  { { "first_errno", EQ, EFAULT, NULL }, { "second_ret", EQ, 0, NULL }, { "third_ret", EQ, 0, NULL } } },
	{ "interleave", "ret", "interleave: CPU and GPU take turns, data intact", true,
	  { { "ret", EQ, 0, NULL } } },
	{ "concurrent", "ret", "concurrent: CPU faults during a kernel, data intact", true,
	  { { "ret", EQ, 0, NULL } } },
	{ "eviction", "free_after", "eviction: 1.5x evicts, data intact, VRAM freed", true,
	  { { "ret", EQ, 0, NULL }, { "result_ok", EQ, 1, NULL }, { "evictions", GT, 0, NULL },
	    { "free_after", SAME, 0, "total" } } },
	{ "unload_after_use", "reload_ret", "unload_after_use: unload frees everything", true,
	  { { "warmup_ret", EQ, 0, NULL }, { "reload_ret", EQ, 0, NULL }, { "run_ret", EQ, 0, NULL },
	    { "sunreclaim_growth_kb", LT, 512, NULL }, { "memfree_drop_kb", LT, 4096, NULL } } },
	/* ac from its own module: counters promote mapped memory, no fault */
	{ "external_policy", "load_ret", "external_policy: a policy module registers, runs, unloads",
	  true, { { "load_ret", EQ, 0, NULL }, { "set_policy_ret", EQ, 0, NULL }, { "ret", EQ, 0, NULL },
		  { "result_ok", EQ, 1, NULL }, { "faults", EQ, 0, NULL }, { "unload_ret", EQ, 0, NULL },
		  { "promotions", GT, 0, NULL } } },
	/* ember per VA space: mapped by default (never faulted), counters promote */
	{ "adaptive", "mismatches", "adaptive: ember policy, mapped by default, counters promote",
	  true, { { "set_policy_ret", EQ, 0, NULL }, { "ret", EQ, 0, NULL }, { "result_ok", EQ, 1, NULL },
		  { "cancels", EQ, 0, NULL }, { "faults", EQ, 0, NULL }, { "promotions", GT, 0, NULL } } },
	{ "adaptive_params", "reload_ret", "adaptive_params: bad watermarks refused, master switch",
	  true, { { "unload_ret", EQ, 0, NULL }, { "bad_watermark_errno", EQ, EINVAL, NULL },
		  { "default_ember_ret", EQ, 0, NULL }, { "run_ret", EQ, 0, NULL }, { "faults", EQ, 0, NULL },
		  { "reload_ret", EQ, 0, NULL }, { "promotions", GT, 0, NULL } } },
	/* every hook called (its count "hook_<ops member>"), bad tables refused */
	{ "policy_hooks", "load_ret", "policy_hooks: a module implementing every hook sees each called",
	  true, { { "nofault_errno", EQ, EINVAL, NULL }, { "longname_errno", EQ, EINVAL, NULL },
		  { "dupname_errno", EQ, EINVAL, NULL }, { "load_ret", EQ, 0, NULL },
		  { "set_policy_ret", EQ, 0, NULL }, { "ret", EQ, 0, NULL }, { "result_ok", EQ, 1, NULL },
		  { "unload_ret", EQ, 0, NULL } } },
	{ "policy_hooks", "hook_init", "policy_hooks: each hook of the ops table called",
	  false, { EMBER_POLICY_HOOK_LIST(HOOK_CALLED) } },
	/* Table 1's switches do what their names say */
	{ "table1_switches", "reload_ret",
	  "table1_switches: no promotion, no eager reclamation, parameters checked on write",
	  true, { { "nopromo_ret", EQ, 0, NULL }, { "nopromo_promotions", EQ, 0, NULL },
		  { "nopromo_notifications", GT, 0, NULL }, { "noeager_ret", EQ, 0, NULL },
		  { "noeager_timer_ticks", EQ, 0, NULL }, { "noeager_eager_evictions", EQ, 0, NULL },
		  { "noeager_promotions", GT, 0, NULL }, { "reload_ret", EQ, 0, NULL },
		  { "sysfs_bad_errno", EQ, EINVAL, NULL }, { "sysfs_good_ret", EQ, 0, NULL },
		  { "sysfs_readonly_errno", EQ, EACCES, NULL } } },
	/* ember_limits.c: each limit's errno (docs/specs/uapi.md), others unharmed */
	{ "limits", "per_open_errno",
	  "limits: managed bytes ENOMEM, outstanding launches EAGAIN, setters checked, others' runs verified",
	  true, { { "bad_mb_errno", EQ, EINVAL, NULL }, { "bad_launches_errno", EQ, EINVAL, NULL },
		  { "bad_hold_errno", EQ, EINVAL, NULL }, { "per_open_errno", EQ, ENOMEM, NULL },
		  { "per_open_other_ret", EQ, 0, NULL }, { "per_open_after_unmap_ret", EQ, 0, NULL },
		  { "global_errno", EQ, ENOMEM, NULL }, { "global_fit_ret", EQ, 0, NULL },
		  { "launch_per_open_errno", EQ, EAGAIN, NULL }, { "launch_first_ret", EQ, 0, NULL },
		  { "launch_global_errno", EQ, EAGAIN, NULL }, { "launch_second_ret", EQ, 0, NULL },
		  { "launch_other_ret", EQ, 0, NULL } } },
	{ "limits", "hold_errno",
	  "limits: a launch past launch_hold_ms ends with ETIME, the next run verified; node 0660, no foreign mmap",
	  true, { { "hold_base_ret", EQ, 0, NULL }, { "hold_base_ns", GT, 0, NULL },
		  { "hold_errno", EQ, ETIME, NULL }, { "hold_other_ret", EQ, 0, NULL },
		  { "foreign_mmap_errno", EQ, EPERM, NULL }, { "node_mode", EQ, 660, NULL },
		  { "nobody_open_errno", EQ, EACCES, NULL } } },
	{ "limits", "member_run_ret",
	  "limits: an unprivileged member of group ember runs, cannot raise a limit, is held to it",
	  true, { { "member_sysfs_errno", EQ, EACCES, NULL }, { "member_over_limit_errno", EQ, ENOMEM, NULL },
		  { "member_run_ret", EQ, 0, NULL } } },
};

#define NDRIVER_EXPECTS (sizeof(driver_expects) / sizeof(driver_expects[0]))

/* The policies of other papers (boot "policies"). */
static const struct scenario_expect policy_expects[] = {
	/* ARIADNE from its module: refused parameter, selected, verified, unloaded */
	{ "ariadne", "load_ret", "ariadne: a policy module refuses a bad parameter, runs, unloads",
	  true, { { "unknown_ret", EQ, -ENOENT, NULL }, { "bad_param_ret", EQ, -EINVAL, NULL },
		  { "load_ret", EQ, 0, NULL }, { "set_policy_ret", EQ, 0, NULL }, { "ret", EQ, 0, NULL },
		  { "result_ok", EQ, 1, NULL }, { "faults", GT, 0, NULL }, { "evictions", GT, 0, NULL },
		  { "unload_ret", EQ, 0, NULL } } },
	/* AutoUVM: recorded, applied to every launch; bad profiles ignored */
	{ "autouvm", "matched", "autouvm: profile recorded and applied, data verified",
	  true, { { "profiled", EQ, 1, NULL }, { "unmatched", EQ, 0, NULL }, { "matched", GT, 0, NULL },
		  { "prefetch_bytes", GT, 0, NULL }, { "ret", EQ, 0, NULL }, { "result_ok", EQ, 1, NULL },
		  { "faults", EQ, 0, NULL } } },
	{ "autouvm", "corrupt_refused",
	  "autouvm: a corrupt profile and another program's are refused, never applied",
	  true, { { "corrupt_refused", EQ, 1, NULL }, { "corrupt_prefetch_bytes", EQ, 0, NULL },
		  { "corrupt_ret", EQ, 0, NULL }, { "corrupt_result_ok", EQ, 1, NULL },
		  { "other_refused", EQ, 1, NULL }, { "other_prefetch_bytes", EQ, 0, NULL },
		  { "other_ret", EQ, 0, NULL }, { "other_result_ok", EQ, 1, NULL } } },
};

#define NPOLICY_EXPECTS (sizeof(policy_expects) / sizeof(policy_expects[0]))

static bool check_field(json_t *r, const struct field_check *c)
{
	json_t *v = json_object_get(r, c->key);
	json_int_t got = json_integer_value(v), want = c->value;
	bool ok;

	if (!json_is_integer(v)) {
		note("%s: missing", c->key);
		return false;
	}
	switch (c->op) {
	case EQ:
		ok = got == want;
		break;
	case GT:
		ok = got > want;
		break;
	case LT:
		ok = got < want;
		break;
	default:
		want = json_integer_value(json_object_get(r, c->other));
		ok = got == want;
		break;
	}
	if (!ok)
		note("%s = %" JSON_INTEGER_FORMAT ", expected %s %" JSON_INTEGER_FORMAT,
		     c->key, got, c->op == GT ? ">" : c->op == LT ? "<" : "=", want);
	return ok;
}

static void test_expect(struct boot *b, const struct scenario_expect *e)
{
	json_t *r = find_scenario(b, e->scenario, e->anchor);
	const char *key;
	json_t *v;
	bool ok = r != NULL;
	size_t i;

	if (!r)
		note("no %s result with %s", e->scenario, e->anchor);
	for (i = 0; r && i < MAX_FIELD_CHECKS && e->f[i].key; i++)
		ok &= check_field(r, &e->f[i]);
	if (r && e->mismatches_zero)
		json_object_foreach(r, key, v)
			if (!strncmp(key, "mismatches", 10) ||
			    strstr(key, "_mismatches"))
				ok &= expect_int(r, key, 0);
	if (r && !strcmp(e->scenario, "adaptive"))
		note("sim %.3f ms, %" JSON_INTEGER_FORMAT " notifications, %"
		     JSON_INTEGER_FORMAT " promotions, %" JSON_INTEGER_FORMAT
		     " eager evictions",
		     json_integer_value(json_object_get(r, "sim_ns")) / 1e6,
		     json_integer_value(json_object_get(r, "notifications")),
		     json_integer_value(json_object_get(r, "promotions")),
		     json_integer_value(json_object_get(r, "eager_evictions")));
	report(ok, "%s", e->what);
}

/*
 * A workload cell "<kernel>-<variant>-<f>x": correct data through the CPU
 * pointers after the kernel, and the variant's signature: mapped and static
 * never fault; uvm evicts at 1.5x and never at 0.5x.
 */
static void test_workload(struct boot *b, const char *cell)
{
	json_t *r = find_scenario(b, cell, "mismatches");
	const char *variant = r ? json_string_value(json_object_get(r, "variant")) : NULL;
	const char *kernel = r ? json_string_value(json_object_get(r, "kernel")) : NULL;
	double factor = r ? json_number_value(json_object_get(r, "factor")) : 0;
	bool ok = r && variant && kernel;

	if (!ok)
		note("no result for %s", cell);
	ok &= expect_int(r, "ret", 0);
	ok &= expect_int(r, "mismatches", 0);
	ok &= expect_int(r, "cancels", 0);
	ok &= expect_int(r, "result_ok", 1);
	if (r && json_integer_value(json_object_get(r, "words_checked")) <= 0) {
		note("nothing verified");
		ok = false;
	}
	if (variant && (!strcmp(variant, "mapped") || !strcmp(variant, "static")))
		ok &= expect_int(r, "faults", 0);
	if (variant && !strcmp(variant, "uvm") && factor > 1.0 &&
	    json_integer_value(json_object_get(r, "evictions")) <= 0) {
		note("uvm at %gx did not evict", factor);
		ok = false;
	}
	if (variant && factor < 1.0)
		ok &= expect_int(r, "evictions", 0);
	if (r)
		note("sim %.3f ms, %" JSON_INTEGER_FORMAT " faults, %" JSON_INTEGER_FORMAT
		     " evictions", json_integer_value(json_object_get(r, "sim_ns")) / 1e6,
		     json_integer_value(json_object_get(r, "faults")),
		     json_integer_value(json_object_get(r, "evictions")));
	report(ok, "workload %s (%s)", cell, b->name);
}

/* Every cell a boot ran, in its order. */
static void test_workloads(struct boot *b)
{
	char *list = strdup(b->scenarios), *save = NULL, *cell;

	if (!list)
		abort();
	for (cell = strtok_r(list, ",", &save); cell; cell = strtok_r(NULL, ",", &save))
		test_workload(b, cell);
	free(list);
}

/*
 * Same program and seed, two boots (the second with a small run budget):
 * identical trace hash and results.
 */
static void test_determinism(struct boot *a, struct boot *b)
{
	json_t *ha = a->qmp.stats ? json_object_get(a->qmp.stats, "trace_hash") : NULL;
	json_t *hb = b->qmp.stats ? json_object_get(b->qmp.stats, "trace_hash") : NULL;
	const char *sa = json_string_value(ha), *sb = json_string_value(hb);
	char *ra = a->results ? json_dumps(a->results, JSON_SORT_KEYS) : NULL;
	char *rb = b->results ? json_dumps(b->results, JSON_SORT_KEYS) : NULL;
	bool ok = sa && sb && !strcmp(sa, sb) && ra && rb && !strcmp(ra, rb);

	note("trace hashes %s and %s", sa ? sa : "?", sb ? sb : "?");
	if (ra && rb && strcmp(ra, rb))
		note("the guests' results differ");
	report(ok, "determinism: same seed, any run budget, same trace hash and results");
	free(ra);
	free(rb);
}

static size_t count_words(const char *list)
{
	size_t n = 1;

	for (; *list; list++)
		n += *list == ',';
	return n;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vmtest --qemu PATH --kernel PATH --initrd PATH "
		   "[--outdir DIR] [--timeout SEC] [--accel tcg|kvm]\n");
}

/*
 * The workload matrix every `make vm-test` checks (uvm policy + variants),
 * in two VMs side by side: gather at 1.5x under uvm and under prefetch take
 * most of its time (27 and 25 s of the whole matrix's 55 s, each alone in a
 * VM here), so one goes to each, and neither VM ends long after the other.
 */
#define WORKLOADS_A \
	"stream-uvm-0.5x,stream-prefetch-0.5x,stream-mapped-0.5x,stream-static-0.5x," \
	"stream-uvm-1.5x,stream-prefetch-1.5x,stream-mapped-1.5x,stream-static-1.5x," \
	"gather-uvm-1.5x"
#define WORKLOADS_B \
	"gather-uvm-0.5x,gather-prefetch-0.5x,gather-mapped-0.5x,gather-static-0.5x," \
	"gather-prefetch-1.5x,gather-mapped-1.5x,gather-static-1.5x"
/* Run with lockstep=off: the driver races the device. */
#define RACING "gather-uvm-0.5x,stream-uvm-1.5x"
/* Run twice on fresh VMs; "hold" lets the host read the trace hash. */
#define REPEATED "gather-uvm-1.5x,hotset-mapped-1.5x,adaptive,hold"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qemu", required_argument, NULL, 'q' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "outdir", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 't' },
		{ "accel", required_argument, NULL, 'a' },
		{ 0 }
	};
	struct boot boots[] = {
		{ .name = "probe", .profile = "h200-256m",
		  .scenarios = "probe,hold,reload,badioctl", .qmp_checks = true },
		{ .name = "probe-rtx5080", .profile = "rtx5080", .scenarios = "probe" },
		/* -norule: the full card's 256 counters (at 1/256 the scaling
		 * rule leaves one, too few for the adaptive scenarios) */
		{ .name = "uvm-driver", .profile = "h200-64m-norule",
		  .scenarios = "managed_cpu,managed_badinput,invalid_access,interleave,"
			       "concurrent,eviction,unload_after_use,adaptive,"
			       "adaptive_params,external_policy,policy_hooks,"
			       "table1_switches,limits" },
		{ .name = "workloads-a", .profile = "h200-64m", .scenarios = WORKLOADS_A },
		{ .name = "workloads-b", .profile = "h200-64m", .scenarios = WORKLOADS_B },
		{ .name = "determinism-1", .profile = "h200-64m", .scenarios = REPEATED },
		/* the device yields to the guest every 64 accesses: a driver
		 * that serviced what it saw between two slices would change
		 * the trace (the lockstep contract, emgpu_hw.h) */
		{ .name = "determinism-2", .profile = "h200-64m", .scenarios = REPEATED,
		  .device_opts = ",run-budget=64" },
		/* lockstep=off: device and driver race; data must stay intact */
		{ .name = "free-running", .profile = "h200-64m", .scenarios = RACING,
		  .device_opts = ",lockstep=off" },
		/* ARIADNE's module and AutoUVM's executor, on the full card's counters */
		{ .name = "policies", .profile = "h200-64m-norule",
		  .scenarios = "ariadne,autouvm" },
	};
	const size_t nboots = sizeof(boots) / sizeof(boots[0]);
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q': h.qemu = optarg; break;
		case 'k': h.kernel = optarg; break;
		case 'i': h.initrd = optarg; break;
		case 'o': h.outdir = optarg; break;
		case 't': h.timeout_s = strtoul(optarg, NULL, 0); break;
		case 'a': h.accel = optarg; break;
		default: usage(stderr); return 2;
		}
	}
	if (!h.qemu || !h.kernel || !h.initrd) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < nboots; i++)
		if (!scenarios_known(boots[i].name, boots[i].scenarios))
			return 2;
	if (em_mkdir_p(h.outdir))
		return 1;

	h.planned = 4 + (int)nboots + 2 + 1 + 1 +
		    (int)VMTEST_NBADIOCTL +
		    1 + (int)NDRIVER_EXPECTS + (int)count_words(WORKLOADS_A) +
		    (int)count_words(WORKLOADS_B) + 1 +
		    (int)count_words(RACING) + (int)NPOLICY_EXPECTS;
	printf("KTAP version 1\n1..%d\n", h.planned);
	fflush(stdout);

	/* the VMs boot in parallel while the host-only cases run */
	for (i = 0; i < nboots; i++)
		boot_start(&boots[i]);

	test_bad_property("profile=nope", "unknown profile 'nope'");
	test_bad_property("profile=h200,vram-size=3M", "vram-size 3145728 is invalid");
	test_bad_property("profile=h200-3m", "unknown profile 'h200-3m'");
	test_good_property("profile=gh200,vram-size=512M");

	boots_finish(boots, nboots);
	for (i = 0; i < nboots; i++)
		test_boot(&boots[i]);
	test_probe(&boots[0], &expected_gpus[0]);
	test_probe(&boots[1], &expected_gpus[1]);
	test_qmp(&boots[0]);
	test_reload(&boots[0]);
	test_bad_ioctls(&boots[0]);

	test_managed_badinput(&boots[2]);
	for (i = 0; i < NDRIVER_EXPECTS; i++)
		test_expect(&boots[2], &driver_expects[i]);
	test_workloads(&boots[3]);
	test_workloads(&boots[4]);
	test_determinism(&boots[5], &boots[6]);
	test_workloads(&boots[7]);
	for (i = 0; i < NPOLICY_EXPECTS; i++)
		test_expect(&boots[8], &policy_expects[i]);

	for (i = 0; i < nboots; i++) {
		json_decref(boots[i].results);
		json_decref(boots[i].qmp.stats);
	}
	if (h.number != h.planned)
		printf("# planned %d tests, ran %d\n", h.planned, h.number);
	printf("%d passed, %d failed, 0 skipped\n", h.number - h.failed, h.failed); /* it skips none */
	return h.failed || h.number != h.planned;
}
