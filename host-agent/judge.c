// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "judge.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "gpumodel/inject_kinds.h"
#include "result_record.h"
#include "vm.h"

/*
 * The data a kind may lose: none, except poison under ember.ko, whose
 * chunks held the only copy (ember.ko retires them and their owners'
 * pages fault; the bound is every page of the 2 MiB chunks the spec's
 * range touches, lost_pages_bound()), and a fatal error under nvidia-uvm,
 * after which no page off the CPU can be read (no bound).
 */
enum em_inject_loss {
	EM_LOSS_NONE,
	EM_LOSS_POISONED_CHUNKS,
	EM_LOSS_ANY,
};

/*
 * What a kind must lead to once it fired during a launch, under one
 * driver: the workload recovers (its output verified: "recovered"), fails
 * cleanly with an errno (the data it had read back, then a health check
 * passed: "EIO"), or ends in nvidia-uvm's global fatal error ("fatal:EIO":
 * NVIDIA's documented answer to a channel error: uvm_channel_check_errors()
 * sets it, uvm_global_set_fatal_error() prints EM_NVUVM_FATAL_LINE, after
 * which every VA space's GPU work fails, a CPU fault on a managed range is
 * SIGBUS (uvm_va_space_cpu_fault()) and /dev/nvidia-uvm cannot be opened
 * until the module is reloaded; the run must fail with the errno, show
 * that line, and read no wrong word; the pages still on the GPU are lost).
 */
struct inject_expectation {
	const char *must;	/* NULL: the kind is refused under this driver */
	enum em_inject_loss loss;
	const char *why;	/* the driver's recovery, or why it is refused */
};

/*
 * Default triggers of each injection kind, the spec past "kind=NAME,":
 * deterministic, bounded by a count, and during=launch: a check point
 * outside a running launch (set-up copies, the post-run read-back)
 * neither fires nor draws, so the firing hits the workload wherever the
 * kind's hardware path runs in a launch.
 */
#define EM_INJECT_SPEC_CE_ERROR		"trigger=event:40,count=2,during=launch"
#define EM_INJECT_SPEC_CE_STALL		"trigger=event:40,count=8,factor=100,during=launch"
#define EM_INJECT_SPEC_FAULT_OVERFLOW	"trigger=event:40,count=16,during=launch"
#define EM_INJECT_SPEC_FAULT_DUP	"trigger=prob:0.25,count=64,during=launch"
#define EM_INJECT_SPEC_NOTIFY_DROP	"trigger=prob:0.5,count=32,during=launch"
#define EM_INJECT_SPEC_NOTIFY_DUP	"trigger=prob:0.5,count=32,during=launch"
#define EM_INJECT_SPEC_NOTIFY_CORRUPT	"trigger=prob:0.5,count=32,during=launch"
#define EM_INJECT_SPEC_LOST_IRQ		"trigger=event:60,count=1,during=launch"
#define EM_INJECT_SPEC_POISON		"range=0x0+0x400000,during=launch"
#define EM_INJECT_SPEC_TLB_TIMEOUT	"trigger=event:40,count=1,during=launch"
#define EM_INJECT_SPEC_HANG		"trigger=event:200,count=1,during=launch"

/*
 * ember.ko (its recovery paths, docs/driver.md): all clean errors are EIO.
 * ce-error's default spec fails at most 2 copies, fewer than ember.ko's
 * ce_retries resubmissions: it must recover; a matrix setting
 * ce_retries=0 declares expect.ce-error = EIO. A matrix may declare
 * ETIMEDOUT instead (tests/inject/stall.conf: a wait ember.ko gives up).
 * EM_EXPECT_EMBER_<ID>: must, loss, why.
 */
#define EM_EXPECT_EMBER_CE_ERROR	"recovered", EM_LOSS_NONE,			\
	"resubmitted, up to ce_retries"
#define EM_EXPECT_EMBER_CE_STALL	"recovered", EM_LOSS_NONE, "waited for"
#define EM_EXPECT_EMBER_FAULT_OVERFLOW	"recovered", EM_LOSS_NONE,			\
	"the warps fault again"
#define EM_EXPECT_EMBER_FAULT_DUP	"recovered", EM_LOSS_NONE, "serviced once"
#define EM_EXPECT_EMBER_NOTIFY_DROP	"recovered", EM_LOSS_NONE, "a hint missed"
#define EM_EXPECT_EMBER_NOTIFY_DUP	"recovered", EM_LOSS_NONE, "a hint twice"
#define EM_EXPECT_EMBER_NOTIFY_CORRUPT	"recovered", EM_LOSS_NONE,			\
	"an unknown address skipped"
#define EM_EXPECT_EMBER_LOST_IRQ	"recovered", EM_LOSS_NONE, "the launch wait polls"
#define EM_EXPECT_EMBER_POISON		"EIO", EM_LOSS_POISONED_CHUNKS,			\
	"the only copy was in VRAM: its chunks retired"
#define EM_EXPECT_EMBER_TLB_TIMEOUT	"recovered", EM_LOSS_NONE, "the invalidate retried"
#define EM_EXPECT_EMBER_HANG		"EIO", EM_LOSS_NONE,				\
	"reset under the launch; VRAM survives a reset"

/*
 * NVIDIA's nvidia-uvm on the GA10x personality (docs/fault-injection.md,
 * "Under nvidia-uvm", has the source lines). Its waits have no limit
 * (uvm_spin_loop() only prints), so a kind whose end needs the RM's
 * channel watchdog is refused: the stand-in has none.
 * EM_EXPECT_NVUVM_<ID>: must (NULL: refused), loss, why.
 */
#define EM_EXPECT_NVUVM_CE_ERROR	NULL, EM_LOSS_NONE,				\
	"the copy's channel in RC, which nvidia-uvm checks only in CPU waits: the batch's " \
	"replay waits for the copy on the GPU, so the launch stalls (Debian's module), or a " \
	"CPU fault's migration meets it and the program gets SIGBUS (our series); ending it " \
	"needs the RM's RC recovery, which the stand-in lacks"
#define EM_EXPECT_NVUVM_CE_STALL	"recovered", EM_LOSS_NONE,			\
	"waited for: a push's wait has no limit"
#define EM_EXPECT_NVUVM_FAULT_OVERFLOW	"recovered", EM_LOSS_NONE,			\
	"OVERFLOW cleared; the dropped warps fault again after the replay"
#define EM_EXPECT_NVUVM_FAULT_DUP	"recovered", EM_LOSS_NONE,			\
	"duplicates of a batch serviced once"
#define EM_EXPECT_NVUVM_NOTIFY_DROP	"recovered", EM_LOSS_NONE, "a hint missed"
#define EM_EXPECT_NVUVM_NOTIFY_DUP	"recovered", EM_LOSS_NONE, "a hint twice"
#define EM_EXPECT_NVUVM_NOTIFY_CORRUPT	"recovered", EM_LOSS_NONE,			\
	"an address in no VA block skipped"
#define EM_EXPECT_NVUVM_LOST_IRQ	"recovered", EM_LOSS_NONE,			\
	"the stand-in's launch wait enters nvidia-uvm's top half while its cause is pending, " \
	"as the RM's next interrupt would"
#define EM_EXPECT_NVUVM_POISON		NULL, EM_LOSS_NONE,				\
	"a copy reading it puts its channel in RC: as ce-error"
#define EM_EXPECT_NVUVM_TLB_TIMEOUT	NULL, EM_LOSS_NONE,				\
	"a GA10x invalidate is a host method with no PENDING state to time out; " \
	"a lost one is a stuck channel, which only the RM's watchdog ends"
#define EM_EXPECT_NVUVM_HANG		NULL, EM_LOSS_NONE,				\
	"a hung GPU is ended by the RM's watchdog (RC), which the stand-in lacks; " \
	"nvidia-uvm's own waits have no limit, so the run would hang"

/*
 * A row per kind of the model's list, in its order: a kind without its
 * EM_INJECT_SPEC_<ID>, EM_EXPECT_EMBER_<ID> and EM_EXPECT_NVUVM_<ID>
 * above stops the build here, the compiler naming the missing macro.
 */
#define EM_INJECT_ROW_(id, name, what)						\
	{ name, "kind=" name "," EM_INJECT_SPEC_##id,				\
	  { EM_EXPECT_EMBER_##id }, { EM_EXPECT_NVUVM_##id } },
static const struct {
	const char *kind;
	const char *default_spec;
	struct inject_expectation ember, nvuvm;
} inject_kinds[] = {
	GM_INJECT_KINDS(EM_INJECT_ROW_)
};
#undef EM_INJECT_ROW_

#define EM_INJECT_NKINDS	(sizeof(inject_kinds) / sizeof(inject_kinds[0]))

static bool is_nvuvm(const char *driver)
{
	return driver && !strcmp(driver, EM_DRIVER_NVIDIA_UVM);
}

static const struct inject_expectation *expect_find(const char *driver, const char *kind)
{
	size_t i;

	for (i = 0; i < EM_INJECT_NKINDS; i++)
		if (!strcmp(kind, inject_kinds[i].kind))
			return is_nvuvm(driver) ? &inject_kinds[i].nvuvm : &inject_kinds[i].ember;
	return NULL;
}

const char *em_inject_default_spec(const char *kind)
{
	size_t i;

	for (i = 0; i < EM_INJECT_NKINDS; i++)
		if (!strcmp(kind, inject_kinds[i].kind))
			return inject_kinds[i].default_spec;
	return NULL;
}

const char *em_inject_expected(const char *driver, const char *kind)
{
	const struct inject_expectation *e = expect_find(driver, kind);

	return e && e->must ? e->must : "?";
}

const char *em_inject_refused(const char *driver, const char *kind)
{
	const struct inject_expectation *e = expect_find(driver, kind);

	return e && !e->must ? e->why : NULL;
}

void em_inject_expect_markdown(const char *driver, FILE *out)
{
	size_t i;

	fputs("| kind | must lead to | may lose | why |\n|---|---|---|---|\n", out);
	for (i = 0; i < EM_INJECT_NKINDS; i++) {
		const struct inject_expectation *e = is_nvuvm(driver) ? &inject_kinds[i].nvuvm :
							 &inject_kinds[i].ember;

		fprintf(out, "| `%s` | %s | %s | %s |\n", inject_kinds[i].kind,
			e->must ? e->must : "refused",
			e->loss == EM_LOSS_ANY ? "any page off the CPU" :
			e->loss == EM_LOSS_POISONED_CHUNKS ? "its chunks' pages" : "nothing",
			e->why);
	}
}

/* The page lost_pages counts in (read_back() in userspace/workload.c). */
#define EM_LOST_PAGE_BYTES	4096ull
/* The unit in which ember.ko probes and retires poisoned VRAM. */
#define EM_VRAM_CHUNK_BYTES	(2ull << 20)

/*
 * The most pages (EM_LOST_PAGE_BYTES) a run armed with spec ("SPEC" or
 * "SPEC;SPEC2...") may lose: the sum over its specs of what each kind
 * declares (its row's loss). A poison spec's range (required by
 * the model) rounds out to whole chunks; an unparsable one allows
 * nothing, so the run fails and the spec is looked at.
 */
static unsigned long long lost_pages_bound(const char *driver, const char *spec)
{
	unsigned long long bound = 0;
	const char *one = spec ?: "";

	while (*one) {
		const char *end = strchr(one, ';') ?: one + strlen(one);
		char part[256], kind[32] = "", *range;
		unsigned long long addr, bytes;
		const struct inject_expectation *e;

		snprintf(part, sizeof(part), "%.*s", (int)(end - one), one);
		one = *end ? end + 1 : end;
		if (sscanf(part, "kind=%31[^,]", kind) != 1 || !(e = expect_find(driver, kind)))
			continue;
		if (e->loss == EM_LOSS_ANY)
			return ULLONG_MAX;
		if (e->loss != EM_LOSS_POISONED_CHUNKS)
			continue;
		range = strstr(part, "range=");
		if (!range)
			continue;
		addr = strtoull(range + strlen("range="), &range, 0);
		if (*range != '+')
			continue;
		bytes = strtoull(range + 1, NULL, 0);
		if (bytes == 0)
			continue;
		bound += ((addr + bytes - 1) / EM_VRAM_CHUNK_BYTES - addr / EM_VRAM_CHUNK_BYTES +
			  1) * (EM_VRAM_CHUNK_BYTES / EM_LOST_PAGE_BYTES);
	}
	return bound;
}

/* The errno a clean or fatal error must show under expected ("EIO",
 * "recovered|EIO", "fatal:EIO", ...), or 0. */
static int expected_errno(const char *expected)
{
	const char *e = strrchr(expected, '|') ?: strrchr(expected, ':');

	e = e ? e + 1 : expected;
	return !strcmp(e, "EIO") ? EIO : !strcmp(e, "ETIMEDOUT") ? ETIMEDOUT : 0;
}

bool em_inject_expectation_valid(const char *expected)
{
	return !strcmp(expected, "recovered") || expected_errno(expected);
}

bool em_status_acceptable(const char *status)
{
	return !strcmp(status, "ok") || !strcmp(status, "recovered") ||
	       !strcmp(status, "clean-error") || !strcmp(status, "fatal-error") ||
	       !strcmp(status, "not-fired");
}

/*
 * What every run is checked for first, injected or not: a cap on what the
 * guest writes on the host (vm.h's EM_VM_CAPS), the watchdog, the
 * console (oops, BUG, WARNING, panic: with panic=-1 -no-reboot a panic
 * still exits QEMU with 0) and QEMU's exit status. Returns the status, or
 * NULL when none of them tripped; why says what was seen.
 */
static const char *judge_vm(const struct em_run *r, const struct em_run_outcome *o,
			    const char *hang, char *why, size_t len)
{
	char path[4200];
	const char *problem;

	if (o->cap_file) {
		snprintf(why, len, "the guest wrote past %s's cap of %" PRIu64 " bytes: the VM "
			 "was stopped", o->cap_file, o->cap_bytes);
		return "output-limit";
	}
	if (o->timed_out) {
		snprintf(why, len, "watchdog: still running at the timeout");
		return hang;
	}
	snprintf(path, sizeof(path), "%s/console.log", r->dir);
	problem = em_vm_console_problem(path);
	if (problem) {
		snprintf(why, len, "console: %s", problem);
		return strcmp(problem, "no console log") ? "oops" : "error";
	}
	if (o->exit_status) {
		snprintf(why, len, "QEMU exit status %d", o->exit_status);
		return "error";
	}
	return NULL;
}

static json_int_t run_int(json_t *run, const char *key)
{
	return json_integer_value(json_object_get(run, key));
}

/* A run without injection: ok, or failed (run error or wrong data). */
static const char *judge(json_t *run, const struct em_run *r,
			 const struct em_run_outcome *o, char *why, size_t len)
{
	const char *vm = judge_vm(r, o, "timeout", why, len);

	if (vm)
		return vm;
	if (!run) {
		snprintf(why, len, "no result line from the guest");
		return "error";
	}
	if (run_int(run, "ret") || run_int(run, "mismatches") ||
	    run_int(run, "result_ok") == 0 || run_int(run, "lost_pages")) {
		snprintf(why, len, "ret %" JSON_INTEGER_FORMAT ", %" JSON_INTEGER_FORMAT
			 " mismatches, %" JSON_INTEGER_FORMAT " pages lost",
			 run_int(run, "ret"), run_int(run, "mismatches"),
			 run_int(run, "lost_pages"));
		return "failed";
	}
	return "ok";
}

/*
 * An injected run's outcome: hang, oops, error (the VM or the arming
 * failed), corrupted (wrong data anywhere: the output, the pages read back
 * after a failure, the health check; or more pages lost than its kinds
 * may lose, lost_pages_bound()), not-fired (the injection never hit
 * a launch, and the run was correct), recovered (it hit a launch and the
 * output verified; for ce-error, with ce_retries > 0), clean-error (it
 * hit a launch and the run failed with the kind's errno, its data read
 * back intact and the health check passed), or unexpected (anything
 * else: a wrong errno, an outcome the kind does not declare, data not
 * read back, a failed health check).
 */
/* What an injected run must lead to: its matrix's word, else its driver's. */
static const char *run_expected(const struct em_run *r)
{
	return r->inject_expected ?: em_inject_expected(r->driver, r->inject_kind);
}

static const char *judge_injected(json_t *run, const struct em_run *r,
				  const struct em_run_outcome *o, char *why, size_t len)
{
	const char *vm = judge_vm(r, o, "hang", why, len);
	const char *expected = run_expected(r);
	bool may_recover = strstr(expected, "recovered") != NULL;
	bool fatal = !strncmp(expected, "fatal:", 6);
	int err = expected_errno(expected);
	/* after a fatal error no page off the CPU can be read, declared or not */
	unsigned long long lost_bound = fatal ? ULLONG_MAX :
					lost_pages_bound(r->driver, r->inject_spec);
	const char *failed;
	json_int_t ret, lost;

	if (vm)
		return vm;
	if (r->inject_error[0] || !run) {
		snprintf(why, len, "%s", r->inject_error[0] ? r->inject_error :
			 "no result line from the guest");
		return "error";
	}
	ret = run_int(run, "ret");
	lost = run_int(run, "lost_pages");
	failed = json_string_value(json_object_get(run, "failed")) ?: "";
	if (run_int(run, "mismatches") || run_int(run, "health_mismatches") ||
	    (!ret && run_int(run, "result_ok") == 0)) {
		snprintf(why, len, "%" JSON_INTEGER_FORMAT " wrong words, %"
			 JSON_INTEGER_FORMAT " in the health check",
			 run_int(run, "mismatches"), run_int(run, "health_mismatches"));
		return "corrupted";
	}
	/* a lost page faults rather than reading wrong, but its data is gone */
	if (lost < 0 || (unsigned long long)lost > lost_bound) {
		snprintf(why, len, "%" JSON_INTEGER_FORMAT " pages lost, more than the "
			 "%llu its injection may lose (%s)", lost, lost < 0 ? 0 : lost_bound,
			 lost_bound ? "its poisoned chunks" : "it promises no loss");
		return "corrupted";
	}
	if (r->injections_in_launch <= 0) {
		if (!ret)
			return "not-fired";
		snprintf(why, len, "ret %" JSON_INTEGER_FORMAT " (%s) without the "
			 "injection hitting a launch", ret, failed);
		return "unexpected";
	}
	if (!ret) {
		/*
		 * A failed copy moves no bytes: a run that got past one did so
		 * only by ember.ko resubmitting it. Correct output without a
		 * retry means the failure went unseen (or the copy was not
		 * needed), which is not the recovery this kind tests.
		 */
		if (may_recover && !strcmp(r->inject_kind, "ce-error") &&
		    run_int(run, "ce_retries") <= 0) {
			snprintf(why, len, "correct output, but ce_retries %" JSON_INTEGER_FORMAT
				 ": the failed copy was never resubmitted",
				 run_int(run, "ce_retries"));
			return "unexpected";
		}
		if (may_recover)
			return "recovered";
		snprintf(why, len, "recovered, where %s must fail the launch (%s)",
			 r->inject_kind, expected);
		return "unexpected";
	}
	if (!err || ret != -err) {
		snprintf(why, len, "ret %" JSON_INTEGER_FORMAT " (%s), expected %s", ret,
			 failed, expected);
		return "unexpected";
	}
	if (fatal) {
		char path[4200];

		/* NVIDIA's own line, not just any failure with that errno */
		snprintf(path, sizeof(path), "%s/console.log", r->dir);
		if (!em_vm_console_has(path, EM_NVUVM_FATAL_LINE)) {
			snprintf(why, len, "ret %" JSON_INTEGER_FORMAT " (%s) without "
				 "nvidia-uvm's '" EM_NVUVM_FATAL_LINE "'", ret, failed);
			return "unexpected";
		}
		return "fatal-error";
	}
	if (!run_int(run, "words_checked")) {
		snprintf(why, len, "ret %" JSON_INTEGER_FORMAT " (%s): the data at the "
			 "error was not read back", ret, failed);
		return "unexpected";
	}
	if (run_int(run, "health_ret") || !run_int(run, "health_words")) {
		snprintf(why, len, "health check after the error: ret %" JSON_INTEGER_FORMAT,
			 run_int(run, "health_ret"));
		return "unexpected";
	}
	return "clean-error";
}

/*
 * A guest line that is there but does not parse (kept by em_results_load):
 * why says jansson's reason and shows the line, instead of "no result line".
 */
static void unparsed_reason(json_t *all, char *why, size_t len)
{
	json_t *bad = all ? em_results_find(all, "unparsed", "reason") : NULL;

	if (bad)
		snprintf(why, len, "result line does not parse (%s): %s",
			 json_string_value(json_object_get(bad, "reason")),
			 json_string_value(json_object_get(bad, "line")));
}

const char *em_run_record(const struct em_run *r, const char *commit,
			  const char *results_path, const struct em_run_outcome *o)
{
	char path[4200], tmp[4300];
	unsigned int bad;
	json_t *all = em_results_load(results_path, &bad);
	json_t *run = all ? em_results_find(all, "run", "kernel") : NULL;
	char why[800] = "";
	const char *status = r->inject_kind ?
			     judge_injected(run, r, o, why, sizeof(why)) :
			     judge(run, r, o, why, sizeof(why));
	struct em_result_src src = {
		.r = r, .o = o, .commit = commit, .status = status, .why = why,
		.expected = r->inject_kind ? run_expected(r) : NULL,
	};
	json_t *obj;

	if (!run && !strcmp(status, "error"))
		unparsed_reason(all, why, sizeof(why));
	/* the host's fields (result_fields.h), then the guest's and device's objects */
	obj = em_result_json(&src);
	if (run)
		json_object_set(obj, "run", run);
	if (r->device)
		json_object_set(obj, "device", r->device);
	if (o->guest_errors)
		json_object_set_new(obj, "guest", json_pack("{s:I}", "errors",
							     (json_int_t)o->guest_errors));
	/* result.json appears atomically: its presence marks the run done */
	snprintf(path, sizeof(path), "%s/result.json", r->dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!json_dump_file(obj, tmp, JSON_COMPACT | JSON_SORT_KEYS))
		rename(tmp, path);
	json_decref(obj);
	json_decref(all);
	return status;
}

void em_run_progress(size_t done, size_t total, size_t running,
		     const struct em_run *last, const char *status, double wall)
{
	bool tty = isatty(STDERR_FILENO);

	fprintf(stderr, "%s[%zu/%zu] %zu running%s%s%s%s", tty ? "\r\033[K" : "",
		done, total, running, last ? " | " : "", last ? last->id : "",
		last ? " " : "", last ? status : "");
	if (last)
		fprintf(stderr, " (%.1f s)", wall);
	if (!tty || done == total)
		fputc('\n', stderr);
	fflush(stderr);
}
