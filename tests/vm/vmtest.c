// SPDX-License-Identifier: MIT
/*
 * vmtest: the VM test harness behind `make vm-test`. Boots VMs with emgpu
 * (QEMU under TCG unless told otherwise), lets the guest run its scenarios,
 * judges the guest's JSON lines against the expectations below and prints
 * KTAP with a closing "N passed, M failed" line. Exit status 1 on failure.
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

#include "vm.h"

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

/* Paper Table 2 capacities, vendors' SM counts, 256 counters (paper §2.3). */
static const struct expected_gpu expected_gpus[] = {
	{ "h200-256m", 3, 256 * MiB, 132, 256 },
	{ "rtx5080", 1, 16 * GiB, 84, 256 },
};

static const struct {
	const char *call;
	json_int_t errno_expected;
} expected_bad_ioctls[] = {
	{ "unknown_cmd", 25 /* ENOTTY */ },
	{ "wrong_size", 25 /* ENOTTY */ },
	{ "null_pointer", 14 /* EFAULT */ },
	{ "bad_pointer", 14 /* EFAULT */ },
	{ "nonzero_pad", 22 /* EINVAL */ },
	{ "no_such_gpu", 19 /* ENODEV */ },
};

struct boot {
	const char *profile;
	const char *scenarios;
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
} h = { .outdir = "build/vm-test", .timeout_s = 120 };

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

/* Whether the console shows a kernel problem that must fail the run. */
static const char *console_problem(const char *path)
{
	static const char *const bad[] = {
		"Kernel panic", "Oops", "WARNING:", "BUG:", "Call Trace:",
	};
	char line[1024];
	const char *found = NULL;
	size_t i;
	FILE *f = fopen(path, "re");

	if (!f)
		return "no console log";
	while (!found && fgets(line, sizeof(line), f))
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(line, bad[i]))
				found = bad[i];
	fclose(f);
	return found;
}

static void boot_start(struct boot *b)
{
	struct em_vm_config cfg = {
		.qemu = h.qemu, .kernel = h.kernel, .initrd = h.initrd,
		.profile = b->profile, .scenarios = b->scenarios,
		.accel = h.accel, .seed = 1, .timeout_s = h.timeout_s,
		.workdir = b->workdir,
	};

	snprintf(b->workdir, sizeof(b->workdir), "%s/%s", h.outdir, b->profile);
	if (em_vm_start(&b->vm, &cfg))
		b->vm.pid = -1;
}

static void boot_finish(struct boot *b)
{
	if (b->vm.pid < 0) {
		b->outcome.exit_status = -1;
		return;
	}
	em_vm_wait(&b->vm, &b->outcome);
	b->results = em_results_load(b->vm.results_path, &b->bad_lines);
}

/* The VM booted, loaded ember.ko, ran every scenario and powered off cleanly. */
static void test_boot(struct boot *b)
{
	json_t *r = b->results;
	const char *problem = console_problem(b->vm.console_path);
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
	report(ok, "boot %s (%.1f s)", b->profile, b->outcome.wall_s);
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

	for (i = 0; i < sizeof(expected_bad_ioctls) / sizeof(expected_bad_ioctls[0]); i++) {
		const char *call = expected_bad_ioctls[i].call;
		json_t *found = NULL;

		json_array_foreach(b->results, j, obj) {
			const char *c = json_string_value(json_object_get(obj, "call"));

			if (c && !strcmp(c, call))
				found = obj;
		}
		if (!found)
			note("no result for %s", call);
		report(found && expect_int(found, "errno", expected_bad_ioctls[i].errno_expected),
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

static void usage(FILE *f)
{
	fprintf(f, "usage: vmtest --qemu PATH --kernel PATH --initrd PATH "
		   "[--outdir DIR] [--timeout SEC] [--accel tcg|kvm]\n");
}

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
		{ .profile = "h200-256m", .scenarios = "probe,reload,badioctl" },
		{ .profile = "rtx5080", .scenarios = "probe" },
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
	if (em_mkdir_p(h.outdir))
		return 1;

	h.planned = 4 + nboots * 2 + 1 +
		    (int)(sizeof(expected_bad_ioctls) / sizeof(expected_bad_ioctls[0]));
	printf("KTAP version 1\n1..%d\n", h.planned);
	fflush(stdout);

	/* the VMs boot in parallel while the host-only cases run */
	for (i = 0; i < nboots; i++)
		boot_start(&boots[i]);

	test_bad_property("profile=nope", "unknown profile 'nope'");
	test_bad_property("profile=h200,vram-size=3M", "vram-size 3145728 is invalid");
	test_bad_property("profile=h200-3m", "unknown profile 'h200-3m'");
	test_good_property("profile=gh200,vram-size=512M");

	for (i = 0; i < nboots; i++)
		boot_finish(&boots[i]);
	for (i = 0; i < nboots; i++) {
		test_boot(&boots[i]);
		test_probe(&boots[i], &expected_gpus[i]);
	}
	test_reload(&boots[0]);
	test_bad_ioctls(&boots[0]);

	for (i = 0; i < nboots; i++)
		json_decref(boots[i].results);
	if (h.number != h.planned)
		printf("# planned %d tests, ran %d\n", h.planned, h.number);
	printf("%d passed, %d failed\n", h.number - h.failed, h.failed);
	return h.failed || h.number != h.planned;
}
