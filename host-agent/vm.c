// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "vm.h"
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Firmware comes from Debian's packages (qemu-system-data, seabios). */
const char *const em_vm_firmware_dirs[EM_VM_FIRMWARE_DIRS] = {
	"/usr/share/qemu", "/usr/share/seabios",
};
#define firmware_dirs em_vm_firmware_dirs

/*
 * Kernel command line: a warning or oops stops the run (and QEMU, via
 * -no-reboot); no address-space randomisation, so managed ranges get the
 * same VAs on every boot and the device's trace hash can repeat;
 * no_timer_check, because under TCG on a loaded host the IO-APIC timer
 * check can miss its ticks and panic at boot ("IO-APIC + timer doesn't
 * work!", seen in an injection campaign); nosoftlockup, because the model
 * runs in QEMU's main loop and on a loaded host keeps the guest's one vCPU
 * away for minutes at the paper's faithful size ("soft lockup - CPU#0
 * stuck for 155s", in ember-run's launch and in the idle task, runs whose
 * output verified), which the console check would call an oops; a real
 * hang still ends at the run's timeout. mitigations=off: the guest is a
 * test machine under TCG, where retpolines and the other speculation
 * mitigations only add guest instructions (pathfinder at h200-512m, 1.5x:
 * 14.8-15.7 CPU seconds instead of 16.2-18.2); the driver's logic and what
 * the device sees are the same. cryptomgr.notests: the kernel's self-tests
 * of its crypto algorithms, a third of a second of every TCG boot here
 * (2.46 s from QEMU's start to its exit with them, 2.10 without), test the
 * cloud kernel, not the driver or the device.
 */
#define GUEST_APPEND "console=ttyS0 panic_on_warn=1 oops=panic panic=-1 norandmaps " \
		     "no_timer_check nosoftlockup mitigations=off cryptomgr.notests"

static const struct {
	const char *file;
	uint64_t bytes;
	const char *what;
} caps[EM_VM_NCAPS] = {
#define EM_VM_CAP_ROW(id, f, b, w) [EM_VM_CAP_##id] = { f, b, w },
	EM_VM_CAPS(EM_VM_CAP_ROW)
#undef EM_VM_CAP_ROW
};

const char *em_vm_cap_file(enum em_vm_cap cap)
{
	return caps[cap].file;
}

uint64_t em_vm_cap_bytes(enum em_vm_cap cap)
{
	return caps[cap].bytes;
}

void em_vm_caps_markdown(FILE *out)
{
	size_t i;

	fprintf(out, "| file | at most | what counts |\n|---|---|---|\n");
	for (i = 0; i < EM_VM_NCAPS; i++)
		fprintf(out, "| `%s` | %" PRIu64 " MiB | %s |\n", caps[i].file,
			caps[i].bytes >> 20, caps[i].what);
	fprintf(out, "| a result line | %u bytes | a longer line is dropped whole and "
		"counted in `guest.errors` |\n", EM_VM_LINE_MAX);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Under TCG the guest's TSC is the host's, and its calibration against the
 * emulated PIT and HPET at boot takes whatever the host's scheduler gives
 * the vCPU: on a loaded host the kernel once took a PIT value 7.4 times
 * too low ("PIT calibration deviates from HPET: 311607 2298481"), ran on
 * that tsc-early clock until the refined TSC replaced it, and the jump of
 * 8170 jiffies was an RCU stall with a call trace at boot (vm-test in a
 * cold make test). The HPET counts QEMU's virtual clock whatever the
 * calibration says, so timekeeping stays on it (the run's results do not
 * use the guest's clock; pathfinder at 1.5x on h200-256m took 6.5 s
 * either way). Under KVM the guest keeps kvm-clock.
 */
/*
 * Under the instruction counter (driver-cost=measured) the guest's clocks
 * all count instructions (1 GHz at shift=0), so nothing needs calibrating
 * against another and the TSC is the cheapest to read. Calibration loops
 * are skipped because they spin on the clock: the local APIC timer's
 * (nolapic_timer: ticks come from the HPET, as they may on one CPU) and
 * the delay loop's (lpj: the TSC's ticks per jiffy at HZ=250) would cost
 * hundreds of millions of instructions at boot, each PAUSE of them a trip
 * out of QEMU's execution loop.
 */
#define EM_VM_ICOUNT_APPEND " clocksource=tsc tsc=reliable nolapic_timer lpj=4000000"

static const char *tcg_append(const struct em_vm_config *cfg)
{
	if (cfg->accel && strcmp(cfg->accel, "tcg"))
		return "";
	return em_vm_counts_insns(cfg) ? EM_VM_ICOUNT_APPEND : " clocksource=hpet";
}

void em_vm_cmdline(const struct em_vm_config *cfg, char *buf, size_t len)
{
	const char *digest = cfg->verify_digest;
	char computed[96];

	/*
	 * The host's digest of the run's outputs, computed natively here
	 * (seconds) so that the guest need not run the reference under TCG
	 * (minutes). Not for another personality's run (its caller decides).
	 */
	if (!digest && cfg->run_args && !cfg->device_opts &&
	    !em_run_digest(cfg->profile, cfg->run_args, computed, sizeof(computed)))
		digest = computed;
	snprintf(buf, len, "%s%s ember_scenarios=%s ember_run=%s%s%s%s%s%s%s%s%s%s%s%s%s", GUEST_APPEND,
		 tcg_append(cfg),
		 cfg->scenarios ? cfg->scenarios : "",
		 cfg->run_args ? cfg->run_args : "",
		 digest ? " ember_verify=" : "",
		 digest ? digest : "",
		 cfg->ubench_args ? " ember_ubench=" : "",
		 cfg->ubench_args ? cfg->ubench_args : "",
		 cfg->hold_at_end ? " ember_hold=1" : "",
		 cfg->host_ends ? " ember_end=host" : "",
		 cfg->modparams ? " ember_modparams=" : "",
		 cfg->modparams ? cfg->modparams : "",
		 cfg->fuzz_args ? " ember_fuzz=" : "",
		 cfg->fuzz_args ? cfg->fuzz_args : "",
		 cfg->append ? " " : "", cfg->append ? cfg->append : "");
}

void em_vm_device(const struct em_vm_config *cfg, char *buf, size_t len)
{
	snprintf(buf, len, "emgpu,id=" EM_VM_GPU_ID ",profile=%s,seed=%" PRIu64 "%s%s%s",
		 cfg->profile, cfg->seed, cfg->device_opts ? cfg->device_opts : "",
		 cfg->driver_cost ? ",driver-cost=" : "",
		 cfg->driver_cost ? cfg->driver_cost : "");
}

static int path_in(char *dst, size_t len, const char *dir, const char *name)
{
	int n = snprintf(dst, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int em_vm_check_device(const char *qemu, const char *device_opts,
		       unsigned int timeout_s, char *msg, size_t len)
{
	char cmd[8192];
	size_t n = 0;
	int status;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "timeout %u '%s' -M q35 -accel tcg -nodefaults -no-user-config "
		 "-display none -S -L '%s' -L '%s' -device 'emgpu,%s' 2>&1 </dev/null",
		 timeout_s, qemu, firmware_dirs[0], firmware_dirs[1], device_opts);
	msg[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n + 1 < len && fgets(msg + n, len - n, p))
		n = strlen(msg);
	status = pclose(p);
	if (!WIFEXITED(status))
		return -1;
	/* timeout(1) stopping a QEMU that came up means the device was accepted */
	return WEXITSTATUS(status) == 124 ? 0 : WEXITSTATUS(status);
}

int em_mkdir_p(const char *path)
{
	char buf[4096];
	size_t i, len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST) {
			fprintf(stderr, "ember-agent: mkdir %s: %s\n", buf, strerror(errno));
			return -errno;
		}
		buf[i] = path[i];
	}
	return 0;
}

static void close_fifos(struct em_vm *vm)
{
	if (vm->out_fd >= 0)
		close(vm->out_fd);
	if (vm->in_fd >= 0)
		close(vm->in_fd);
	vm->out_fd = vm->in_fd = -1;
}

/*
 * QEMU's "pipe:" chardev opens <base>.out write-only and <base>.in
 * read-only, each blocking until the other side exists; we open ours
 * first, without blocking (the read side of .out, and .in read-write).
 */
static int open_fifos(struct em_vm *vm, const char *base)
{
	char in[4200], out[4200];

	snprintf(in, sizeof(in), "%s.in", base);
	snprintf(out, sizeof(out), "%s.out", base);
	unlink(in);
	unlink(out);
	if (mkfifo(in, 0600) || mkfifo(out, 0600)) {
		fprintf(stderr, "ember-agent: mkfifo %s: %s\n", base, strerror(errno));
		return -1;
	}
	vm->out_fd = open(out, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	vm->in_fd = open(in, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (vm->out_fd < 0 || vm->in_fd < 0) {
		fprintf(stderr, "ember-agent: open %s: %s\n", base, strerror(errno));
		close_fifos(vm);
		return -1;
	}
	return 0;
}

int em_vm_send(struct em_vm *vm, const char *text)
{
	size_t len = strlen(text);

	return write(vm->in_fd, text, len) == (ssize_t)len ? 0 : -EIO;
}

/* The guest's hold answered (or its exchange failed): the guest goes on. */
static void hold_end(struct em_vm *vm)
{
	vm->cfg.hold->answered(vm, &vm->hold_qmp, vm->cfg.hold_arg);
	em_qmp_close(&vm->hold_qmp);
	vm->hold = EM_VM_HOLD_DONE;
	em_vm_send(vm, "go\n");
}

/*
 * The guest holds: the QMP exchange starts, to be driven by the wait loop
 * (em_vm_wait_any) and to end by its deadline or the VM's timeout. Once
 * per boot; a hold after the first is a guest error.
 */
static void hold_start(struct em_vm *vm)
{
	double now = now_s(), timeout = vm->started + vm->cfg.timeout_s;

	if (vm->hold != EM_VM_HOLD_NONE) {
		vm->guest_errors++;
		return;
	}
	vm->hold = EM_VM_HOLD_ASKING;
	em_qmp_open(&vm->hold_qmp, vm->qmp_path, now + EM_VM_HOLD_QMP_S < timeout ?
		    now + EM_VM_HOLD_QMP_S : timeout);
	vm->cfg.hold->ask(vm, &vm->hold_qmp, vm->cfg.hold_arg);
	if (em_qmp_step(&vm->hold_qmp, now))
		hold_end(vm);
}

static bool is_hold(json_t *obj)
{
	const char *scenario = json_string_value(json_object_get(obj, "scenario"));

	return scenario && !strcmp(scenario, "hold") && json_object_get(obj, "waiting");
}

/* Keeps complete lines from the guest and hands each to on_line. */
static void take_line(struct em_vm *vm, const char *line)
{
	json_t *obj;

	fprintf(vm->results, "%s\n", line);
	fflush(vm->results);
	if (!vm->cfg.on_line && !vm->cfg.hold)
		return;
	obj = json_loads(line, 0, NULL);
	if (json_is_object(obj) && vm->cfg.on_line)
		vm->cfg.on_line(vm, obj, vm->cfg.on_line_arg);
	if (json_is_object(obj) && vm->cfg.hold && is_hold(obj))
		hold_start(vm);
	json_decref(obj);
}

/* A cap is passed: the VM stops now (the first cap hit is the one kept). */
static void cap_hit(struct em_vm *vm, enum em_vm_cap cap)
{
	if (vm->cap_hit >= 0)
		return;
	vm->cap_hit = (int)cap;
	if (!vm->exited)
		kill(vm->pid, SIGKILL);
}

/*
 * The files QEMU writes (the console, its own output) against their caps;
 * once QEMU is gone, one past its cap is cut there.
 */
static void check_file_caps(struct em_vm *vm)
{
	static const enum em_vm_cap files[] = { EM_VM_CAP_CONSOLE, EM_VM_CAP_QEMU_LOG };
	const char *paths[] = { vm->console_path, vm->qemu_log_path };
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (stat(paths[i], &st) || (uint64_t)st.st_size <= caps[files[i]].bytes)
			continue;
		cap_hit(vm, files[i]);
		if (vm->exited && truncate(paths[i], (off_t)caps[files[i]].bytes))
			fprintf(stderr, "ember-agent: cannot cut %s: %s\n", paths[i],
				strerror(errno));
	}
}

/*
 * The guest's bytes on the results port, up to the cap on them, into
 * lines; a line longer than EM_VM_LINE_MAX is dropped to its end.
 */
static void drain(struct em_vm *vm)
{
	const uint64_t cap = caps[EM_VM_CAP_RESULTS].bytes;
	char buf[4096];
	ssize_t n, i;

	while ((n = read(vm->out_fd, buf, sizeof(buf))) > 0) {
		if (vm->cap_hit >= 0)
			continue;	/* stopped: what is left is not kept */
		if (vm->results_bytes + (uint64_t)n > cap) {
			n = (ssize_t)(cap - vm->results_bytes);
			cap_hit(vm, EM_VM_CAP_RESULTS);
		}
		vm->results_bytes += (uint64_t)n;
		for (i = 0; i < n; i++) {
			char c = buf[i];

			if (c == '\r')
				continue;
			if (c == '\n') {
				vm->line[vm->line_len] = '\0';
				if (vm->line_len && !vm->line_too_long)
					take_line(vm, vm->line);
				vm->line_len = 0;
				vm->line_too_long = false;
				continue;
			}
			if (vm->line_too_long)
				continue;
			if (vm->line_len == EM_VM_LINE_MAX) {
				vm->line_too_long = true;
				vm->guest_errors++;
				continue;
			}
			vm->line[vm->line_len++] = c;
		}
	}
}

void em_vm_argv(const struct em_vm_config *cfg, const char *workdir,
		struct em_vm_argv *a)
{
	int argc = 0;
	size_t i;

	em_vm_cmdline(cfg, a->append, sizeof(a->append));
	em_vm_device(cfg, a->device, sizeof(a->device));
	snprintf(a->serial0, sizeof(a->serial0), "file:%s/console.log", workdir);
	snprintf(a->serial1, sizeof(a->serial1), "pipe:%s/results", workdir);
	snprintf(a->qmp, sizeof(a->qmp), "unix:%s/qmp.sock,server=on,wait=off", workdir);
	snprintf(a->memory, sizeof(a->memory), "%u", cfg->memory_mib ? cfg->memory_mib : 512);

	a->argv[argc++] = cfg->qemu;
	a->argv[argc++] = "-M";
	a->argv[argc++] = "q35";
	a->argv[argc++] = "-accel";
	a->argv[argc++] = cfg->accel ? cfg->accel : "tcg";
	a->argv[argc++] = "-m";
	a->argv[argc++] = a->memory;
	a->argv[argc++] = "-smp";
	a->argv[argc++] = "1";
	a->argv[argc++] = "-nodefaults";
	a->argv[argc++] = "-no-user-config";
	a->argv[argc++] = "-display";
	a->argv[argc++] = "none";
	a->argv[argc++] = "-no-reboot";
	for (i = 0; i < EM_VM_FIRMWARE_DIRS; i++) {
		a->argv[argc++] = "-L";
		a->argv[argc++] = em_vm_firmware_dirs[i];
	}
	a->argv[argc++] = "-kernel";
	a->argv[argc++] = cfg->kernel;
	a->argv[argc++] = "-initrd";
	a->argv[argc++] = cfg->initrd;
	a->argv[argc++] = "-append";
	a->argv[argc++] = a->append;
	a->argv[argc++] = "-serial";
	a->argv[argc++] = a->serial0;
	a->argv[argc++] = "-serial";
	a->argv[argc++] = a->serial1;
	a->argv[argc++] = "-qmp";
	a->argv[argc++] = a->qmp;
	a->argv[argc++] = "-device";
	a->argv[argc++] = a->device;
	if (em_vm_counts_insns(cfg)) {
#define EM_VM_ARGV_(arg) a->argv[argc++] = arg;
		EM_VM_ICOUNT_ARGS(EM_VM_ARGV_)
#undef EM_VM_ARGV_
	}
	if (cfg->vfio) {
		/* a real card beside the emgpu; needs KVM and an IOMMU */
		snprintf(a->vfio, sizeof(a->vfio), "vfio-pci,host=%s", cfg->vfio);
		a->argv[argc++] = "-device";
		a->argv[argc++] = a->vfio;
	}
	if (cfg->paused)
		a->argv[argc++] = "-S";
	a->argv[argc] = NULL;
}

int em_vm_start(struct em_vm *vm, const struct em_vm_config *cfg)
{
	struct em_vm_argv av;
	char fifo[4096];
	int fd;

	memset(vm, 0, sizeof(*vm));
	vm->cfg = *cfg;
	if (!vm->cfg.accel)
		vm->cfg.accel = "tcg";
	if (!vm->cfg.memory_mib)
		vm->cfg.memory_mib = 512;
	if (!vm->cfg.timeout_s)
		vm->cfg.timeout_s = 120;

	if (em_mkdir_p(cfg->workdir))
		return -EIO;
	if (path_in(vm->console_path, sizeof(vm->console_path), cfg->workdir, "console.log") ||
	    path_in(vm->results_path, sizeof(vm->results_path), cfg->workdir, "results.jsonl") ||
	    path_in(vm->qemu_log_path, sizeof(vm->qemu_log_path), cfg->workdir, "qemu.log") ||
	    path_in(vm->qmp_path, sizeof(vm->qmp_path), cfg->workdir, "qmp.sock") ||
	    path_in(fifo, sizeof(fifo), cfg->workdir, "results"))
		return -ENAMETOOLONG;
	/* results of an earlier boot must never be read as this one's */
	unlink(vm->results_path);
	unlink(vm->console_path);
	unlink(vm->qmp_path);
	if (strlen(vm->qmp_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		/* a deep workdir: the socket in a short private directory */
		snprintf(vm->qmp_dir, sizeof(vm->qmp_dir), "/tmp/ember-qmp.XXXXXX");
		if (!mkdtemp(vm->qmp_dir))
			return -errno;
		snprintf(vm->qmp_path, sizeof(vm->qmp_path), "%s/qmp.sock", vm->qmp_dir);
	}
	vm->out_fd = vm->in_fd = -1;
	vm->cap_hit = -1;
	if (open_fifos(vm, fifo))
		return -EIO;
	vm->results = fopen(vm->results_path, "we");
	if (!vm->results) {
		fprintf(stderr, "ember-agent: %s: %s\n", vm->results_path, strerror(errno));
		close_fifos(vm);
		return -EIO;
	}

	/* the host's digest of the outputs (em_vm_cmdline) counts in the run's wall time */
	vm->started = now_s();
	em_vm_argv(&vm->cfg, cfg->workdir, &av);
	snprintf(av.qmp, sizeof(av.qmp), "unix:%s,server=on,wait=off", vm->qmp_path);

	fd = open(vm->qemu_log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "ember-agent: %s: %s\n", vm->qemu_log_path, strerror(errno));
		return -errno;
	}
	vm->pid = fork();
	if (vm->pid < 0) {
		close(fd);
		close_fifos(vm);
		return -errno;
	}
	if (vm->pid == 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execv(cfg->qemu, (char *const *)av.argv);
		fprintf(stderr, "exec %s: %s\n", cfg->qemu, strerror(errno));
		_exit(127);
	}
	close(fd);
	return 0;
}

static void reap(struct em_vm *vm, struct em_vm_outcome *out, int status,
		 const struct rusage *ru)
{
	bool timed_out = out->timed_out;

	memset(out, 0, sizeof(*out));
	out->timed_out = timed_out;
	vm->exited = true;
	out->wall_s = now_s() - vm->started;
	out->cpu_s = ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
		     ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
	if (WIFEXITED(status))
		out->exit_status = WEXITSTATUS(status);
	else
		out->exit_status = -WTERMSIG(status);
	drain(vm);
	/* a last line without newline, unless the guest was stopped mid-flood */
	if (vm->line_len && !vm->line_too_long && vm->cap_hit < 0) {
		vm->line[vm->line_len] = '\0';
		take_line(vm, vm->line);
	}
	vm->line_len = 0;
	check_file_caps(vm);
	out->guest_errors = vm->guest_errors;
	out->cap_hit = vm->cap_hit;
	if (vm->hold == EM_VM_HOLD_ASKING) {	/* QEMU went away mid-exchange */
		em_qmp_step(&vm->hold_qmp, now_s());
		vm->cfg.hold->answered(vm, &vm->hold_qmp, vm->cfg.hold_arg);
		em_qmp_close(&vm->hold_qmp);
		vm->hold = EM_VM_HOLD_DONE;
	}
	fclose(vm->results);
	vm->results = NULL;
	close_fifos(vm);
	if (vm->qmp_dir[0]) {
		unlink(vm->qmp_path);
		rmdir(vm->qmp_dir);
		vm->qmp_dir[0] = '\0';
	}
}

/*
 * Nothing here blocks: every VM's output is drained, its hold exchange
 * advanced and its watchdog checked on every pass (20 ms at most apart).
 */
long em_vm_wait_any(struct em_vm **vms, struct em_vm_outcome *outs, size_t n)
{
	struct pollfd pfd[128];
	struct rusage ru;
	size_t i, np, running;
	int status;
	pid_t r;

	for (;;) {
		for (i = np = running = 0; i < n && np + 2 <= 128; i++) {
			struct em_vm *vm = vms[i];

			if (vm->exited || vm->pid <= 0)
				continue;
			running++;
			pfd[np++] = (struct pollfd){ .fd = vm->out_fd, .events = POLLIN };
			if (vm->hold == EM_VM_HOLD_ASKING && em_qmp_events(&vm->hold_qmp))
				pfd[np++] = (struct pollfd){ .fd = vm->hold_qmp.fd,
							     .events = em_qmp_events(&vm->hold_qmp) };
		}
		if (!running)
			return -1;
		poll(pfd, np, 20);
		for (i = 0; i < n; i++) {
			struct em_vm *vm = vms[i];

			if (vm->exited || vm->pid <= 0)
				continue;
			drain(vm);
			check_file_caps(vm);
			if (vm->hold == EM_VM_HOLD_ASKING && em_qmp_step(&vm->hold_qmp, now_s()))
				hold_end(vm);
			/* QEMU's own CPU time: its threads, reaped with it */
			r = wait4(vm->pid, &status, WNOHANG, &ru);
			if (r == vm->pid) {
				reap(vm, &outs[i], status, &ru);
				return (long)i;
			}
			if (now_s() >= vm->started + vm->cfg.timeout_s &&
			    !outs[i].timed_out) {
				outs[i].timed_out = true;
				kill(vm->pid, SIGKILL);
			}
		}
	}
}

void em_vm_wait_all(struct em_vm **vms, struct em_vm_outcome *outs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		memset(&outs[i], 0, sizeof(outs[i]));
	while (em_vm_wait_any(vms, outs, n) >= 0)
		;
}

void em_vm_wait(struct em_vm *vm, struct em_vm_outcome *out)
{
	em_vm_wait_all(&vm, out, 1);
}

const char *em_vm_console_problem(const char *console_path)
{
	static const char *const marks[] = {
		"Kernel panic", "Oops", "WARNING:", "BUG:", "Call Trace:",
	};
	const char *found = NULL;
	char line[1024];
	size_t i;
	FILE *f = fopen(console_path, "re");

	if (!f)
		return "no console log";
	while (!found && fgets(line, sizeof(line), f))
		for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
			if (strstr(line, marks[i]))
				found = marks[i];
	fclose(f);
	return found;
}

bool em_vm_console_has(const char *console_path, const char *text)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(console_path, "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	fclose(f);
	return found;
}

json_t *em_results_load(const char *path, unsigned int *bad)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	json_t *all, *obj;
	json_error_t err;

	*bad = 0;
	if (!f)
		return NULL;
	all = json_array();
	while ((len = getline(&line, &cap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		obj = json_loads(line, 0, &err);
		if (json_is_object(obj)) {
			json_array_append_new(all, obj);
			continue;
		}
		/* keep why and what, so a run is never a bare "error" */
		if (obj)
			snprintf(err.text, sizeof(err.text), "not a JSON object");
		json_decref(obj);
		(*bad)++;
		obj = json_pack("{s:s,s:s,s:s#}", "scenario", "unparsed", "reason", err.text,
				"line", line, (int)(len > 512 ? 512 : len));
		if (!obj)	/* not UTF-8, or cut inside a character */
			obj = json_pack("{s:s,s:s,s:s}", "scenario", "unparsed",
					"reason", err.text, "line", "(not valid UTF-8)");
		json_array_append_new(all, obj);
	}
	free(line);
	fclose(f);
	return all;
}

json_t *em_results_find(json_t *results, const char *scenario, const char *key)
{
	size_t i;
	json_t *obj;

	json_array_foreach(results, i, obj) {
		const char *s = json_string_value(json_object_get(obj, "scenario"));

		if (s && !strcmp(s, scenario) && json_object_get(obj, key))
			return obj;
	}
	return NULL;
}
