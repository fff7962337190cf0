/* SPDX-License-Identifier: MIT */
/*
 * Booting one test VM: QEMU started directly with an emgpu, the guest image
 * and a kernel command line naming the scenarios to run. The guest's JSON
 * lines arrive on the second serial port, a pair of FIFOs (results.in and
 * results.out in the workdir) so the host can answer the guest; they are
 * kept in <workdir>/results.jsonl. The console goes to
 * <workdir>/console.log, QEMU's own output to <workdir>/qemu.log, and QMP
 * listens on <workdir>/qmp.sock.
 */
#ifndef EMBER_AGENT_VM_H
#define EMBER_AGENT_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <jansson.h>

#include "qmp.h"

/* The emgpu's QOM id: QMP reaches it at /machine/peripheral/<id>. */
#define EM_VM_GPU_ID		"gpu0"
#define EM_VM_GPU_QOM_PATH	"/machine/peripheral/" EM_VM_GPU_ID

/*
 * What a guest may make the host write, at most, per boot: past a cap
 * the VM is stopped at once, the file is cut at its cap and the run ends
 * with status output-limit (judge.c). X(id, file, bytes, what counts)
 */
#define EM_VM_CAPS(X)							\
	X(RESULTS, "results.jsonl", 16ull << 20,			\
	  "every byte the guest sends on the results port (ttyS1); "	\
	  "only whole lines are kept")					\
	X(CONSOLE, "console.log", 64ull << 20,				\
	  "the guest's console (ttyS0)")				\
	X(QEMU_LOG, "qemu.log", 16ull << 20,				\
	  "QEMU's own output (the device's warnings among it)")

enum em_vm_cap {
#define EM_VM_CAP_ID(id, file, bytes, what) EM_VM_CAP_##id,
	EM_VM_CAPS(EM_VM_CAP_ID)
#undef EM_VM_CAP_ID
	EM_VM_NCAPS
};

/* A cap's file and bytes (EM_VM_CAPS). */
const char *em_vm_cap_file(enum em_vm_cap cap);
uint64_t em_vm_cap_bytes(enum em_vm_cap cap);
/* The caps, and the longest result line, as a Markdown table (the docs). */
void em_vm_caps_markdown(FILE *out);

/*
 * The longest line the guest may send on the results port: a longer one
 * is dropped whole, a guest error (a JSON result line is a few kilobytes).
 */
#define EM_VM_LINE_MAX	8191

struct em_vm;

/* Called for each JSON line from the guest while the VM runs. */
typedef void (*em_vm_line_fn)(struct em_vm *vm, json_t *obj, void *arg);

/*
 * What the host does while the guest holds at its end (ember_hold=1: the
 * guest sends {"scenario":"hold","waiting":true} and waits for "go"): ask
 * queues QMP commands on the exchange (em_qmp_queue), answered reads
 * their replies (em_qmp_reply; a failed exchange says why in q->err),
 * then the guest is released. The exchange runs inside the VMs' wait
 * loop without blocking it, and ends by EM_VM_HOLD_QMP_S or the VM's
 * timeout, whichever comes first. One hold per boot: a hold line after
 * the first is a guest error, ignored.
 */
struct em_vm_hold_ops {
	void (*ask)(struct em_vm *vm, struct em_qmp *q, void *arg);
	void (*answered)(struct em_vm *vm, struct em_qmp *q, void *arg);
};
#define EM_VM_HOLD_QMP_S	EM_QMP_REPLY_TIMEOUT_S

struct em_vm_config {
	const char *qemu;		/* qemu-system-x86_64 with emgpu */
	const char *kernel;		/* guest bzImage */
	const char *initrd;		/* guest initramfs */
	const char *workdir;		/* created if missing */
	const char *profile;		/* emgpu profile, e.g. "h200-256m" */
	const char *device_opts;	/* extra ",key=value" for -device emgpu */
	const char *scenarios;		/* comma-separated, for the guest's init */
	const char *run_args;		/* ember-run arguments, comma-separated */
	const char *ubench_args;	/* ember-ubench arguments, comma-separated */
	const char *modparams;		/* ember.ko parameters, comma-separated */
	const char *fuzz_args;		/* ember-fuzz-ioctl arguments, comma-separated */
	const char *accel;		/* "tcg" (default) or "kvm" */
	/*
	 * emgpu's driver-cost: "measured" adds QEMU's instruction counter
	 * (EM_VM_ICOUNT_ARGS, TCG only); NULL or "assumed": the profile's
	 * constants, no counter
	 */
	const char *driver_cost;
	uint64_t seed;
	unsigned int memory_mib;	/* guest RAM, default 512 */
	unsigned int timeout_s;		/* wall-clock limit, default 120 */
	bool paused;			/* start with -S: QMP "cont" runs it */
	bool hold_at_end;		/* the guest waits for the host before poweroff */
	/*
	 * ember_end=host: once the guest has said its last line on both ports
	 * (EM_VM_END_LINE last on the console), it waits for the host to end
	 * it (it powers off by itself after EM_VM_END_WAIT_S)
	 */
	bool host_ends;
	const char *vfio;		/* a real card passed through, "DDDD:BB:SS.F" */
	const char *append;		/* more kernel command line words, or NULL */
	/*
	 * The verification digest of run_args (digest.h) for the guest's
	 * ember_verify=; em_vm_start computes it where NULL
	 */
	const char *verify_digest;
	em_vm_line_fn on_line;		/* may be NULL */
	void *on_line_arg;
	const struct em_vm_hold_ops *hold;	/* with hold_at_end; may be NULL */
	void *hold_arg;
};

/* The console's last line from a guest booted with host_ends. */
#define EM_VM_END_LINE		"ember: end of boot"
#define EM_VM_END_WAIT_S	120

/* Where the guest's one hold is (em_vm_hold_ops). */
enum em_vm_hold_state {
	EM_VM_HOLD_NONE,	/* not held yet */
	EM_VM_HOLD_ASKING,	/* the QMP exchange runs */
	EM_VM_HOLD_DONE,	/* answered, the guest released */
};

struct em_vm {
	struct em_vm_config cfg;
	pid_t pid;
	double started;			/* monotonic seconds */
	char console_path[4096];
	char results_path[4096];
	char qemu_log_path[4096];
	char qmp_path[4096];
	/* a short directory holding the QMP socket when <workdir>/qmp.sock is
	 * too long for a socket address (108 bytes); "" otherwise */
	char qmp_dir[64];
	int out_fd;			/* results.out, read side */
	int in_fd;			/* results.in, our write side */
	FILE *results;			/* results.jsonl */
	char line[EM_VM_LINE_MAX + 1];	/* partial line from the guest */
	size_t line_len;
	bool line_too_long;		/* dropping a line up to its end */
	uint64_t results_bytes;		/* sent on the results port so far */
	int cap_hit;			/* enum em_vm_cap, or -1 */
	bool exited;
	enum em_vm_hold_state hold;
	struct em_qmp hold_qmp;		/* while EM_VM_HOLD_ASKING */
	/* lines from the guest that broke the protocol (a second hold, a line
	 * longer than EM_VM_LINE_MAX), ignored */
	unsigned int guest_errors;
};

struct em_vm_outcome {
	bool timed_out;
	int exit_status;		/* QEMU's, or -signal */
	double wall_s;
	double cpu_s;			/* QEMU's user + system CPU seconds */
	unsigned int guest_errors;	/* em_vm's */
	int cap_hit;			/* the cap that stopped it (enum em_vm_cap), or -1 */
};

/* Firmware directories QEMU needs (-L), from Debian's packages. */
#define EM_VM_FIRMWARE_DIRS 2
extern const char *const em_vm_firmware_dirs[EM_VM_FIRMWARE_DIRS];

/* The guest kernel command line and the -device emgpu option of a config. */
void em_vm_cmdline(const struct em_vm_config *cfg, char *buf, size_t len);
void em_vm_device(const struct em_vm_config *cfg, char *buf, size_t len);

/* QEMU's command line for a VM; fills argv (NULL-terminated) from bufs. */
/*
 * QEMU's options for driver-cost=measured: the instruction counter at a
 * fixed 1 ns per instruction of virtual time, no sleep (an idle guest's
 * clock jumps to its next timer: nothing waits for the host), and the RTC
 * on that clock from a fixed date, so nothing the guest reads depends on
 * the host's time or speed (docs/model.md "Driver CPU time").
 */
#define EM_VM_ICOUNT_ARGS(X) \
	X("-icount") X("shift=0,sleep=off") \
	X("-rtc") X("base=2026-01-01T00:00:00,clock=vm")

/*
 * Whether QEMU gets EM_VM_ICOUNT_ARGS: driver-cost=measured under TCG.
 * Under KVM there is no instruction counter: emgpu then refuses
 * driver-cost=measured at start-up, saying what it needs.
 */
static inline bool em_vm_counts_insns(const struct em_vm_config *cfg)
{
	return cfg->driver_cost && !strcmp(cfg->driver_cost, "measured") &&
	       (!cfg->accel || !strcmp(cfg->accel, "tcg"));
}

struct em_vm_argv {
	const char *argv[64];
	char append[1024], device[512], serial0[4200], serial1[4200];
	char qmp[4200], memory[16], vfio[64];
};
void em_vm_argv(const struct em_vm_config *cfg, const char *workdir,
		struct em_vm_argv *a);

/* mkdir -p; returns 0 or -errno (with a message on stderr). */
int em_mkdir_p(const char *path);

/*
 * Starts QEMU paused (-S) only to realize an emgpu with device_opts, as a
 * configuration check. Returns QEMU's exit status (0: the device was
 * accepted and QEMU was stopped after timeout_s), with its output in msg.
 */
int em_vm_check_device(const char *qemu, const char *device_opts,
		       unsigned int timeout_s, char *msg, size_t len);

/* Starts QEMU; returns 0 or -errno (with a message on stderr). */
int em_vm_start(struct em_vm *vm, const struct em_vm_config *cfg);

/*
 * Waits for every VM to exit, collecting guest lines (and calling each
 * VM's on_line) as they come, killing a VM at its timeout.
 */
void em_vm_wait_all(struct em_vm **vms, struct em_vm_outcome *outs, size_t n);
/*
 * Waits until one of the running VMs exits and returns its index, with its
 * outcome in outs[index]; -1 when none is running. Clear outs[] before the
 * first call.
 */
long em_vm_wait_any(struct em_vm **vms, struct em_vm_outcome *outs, size_t n);
void em_vm_wait(struct em_vm *vm, struct em_vm_outcome *out);

/* Sends text to the guest's results port (the guest reads it raw). */
int em_vm_send(struct em_vm *vm, const char *text);

/*
 * The first sign of a kernel problem on a guest console ("Oops",
 * "WARNING:", "BUG:", "Kernel panic", "Call Trace:"), "no console log"
 * when it cannot be read, or NULL when the console is clean.
 */
const char *em_vm_console_problem(const char *console_path);
/* Whether a line of the console log holds text (false without a log). */
bool em_vm_console_has(const char *console_path, const char *text);

/*
 * Loads the guest's JSON lines as an array of objects. A line that does not
 * parse (a guest that died mid-line, a value jansson cannot hold) is counted
 * in *bad and kept as {"scenario":"unparsed","reason":...,"line":...} (the
 * line's first 512 bytes). Returns NULL only if the file cannot be read.
 */
json_t *em_results_load(const char *path, unsigned int *bad);

/* First result of scenario that has key, or NULL. */
json_t *em_results_find(json_t *results, const char *scenario,
			const char *key);

#endif /* EMBER_AGENT_VM_H */
