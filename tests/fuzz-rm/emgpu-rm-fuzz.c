// SPDX-License-Identifier: GPL-2.0
/*
 * emgpu-rm-fuzz: random abuse of the resource-manager stand-in's
 * /dev/emgpu-rm (include/uapi/emgpu_rm.h) with NVIDIA's nvidia-uvm on it,
 * from several threads racing on the same descriptors, in the manner of
 * tests/fuzz-ioctl but for the RM's user interface. Seeded: each thread
 * draws its calls from the seed and its index (-s SEED); their
 * interleaving is the scheduler's.
 *
 * The state it drives, shared by the threads (struct fuzz, under its
 * lock): FILES opens of /dev/emgpu-rm, each at a fixed descriptor number
 * (a close swaps /dev/null in with dup3(), so a call racing it meets the
 * old file, /dev/null or the next open, never a descriptor of something
 * else), with their VA spaces and channels; CTXS nvidia-uvm VA spaces
 * (UVM_INITIALIZE, UVM_MM_INITIALIZE, UVM_REGISTER_GPU, a managed range
 * whose first half the CPU fills and checks and whose second half is a
 * scratch area for launches that may not end), each with the RM VA space
 * it registered (UVM_REGISTER_GPU_VASPACE) and the channels it retains
 * (UVM_REGISTER_CHANNEL); ctx 0 lives throughout, so that nvidia-uvm
 * keeps the GPU. Each step is one random operation (ops[] below): every
 * ioctl of /dev/emgpu-rm valid and malformed (bad pointers, read-only
 * pages, unknown, freed and wrong-type handles, another file's handles,
 * the client's own handle, wrapping and oversized launch arguments,
 * unknown kernels, unknown ioctl numbers and sizes), open and close,
 * nvidia-uvm's registrations and unregistrations (also of handles that
 * are not the caller's), STREAM launches on the range checked word for
 * word, launches with a short timeout followed by a close of their file
 * (the channel freed while its launch runs), signals to a thread waiting
 * for such a launch (EINTR, the launch running on), fork (the child's calls on
 * the inherited descriptors, its registration of the parent's handles
 * refused) and unprivileged users in processes of their own (the per-open,
 * per-user and total channel limits, and launches at one same VA whose
 * data no other user's launch may touch).
 *
 * Every call's outcome is judged against the set of errnos its state and
 * arguments allow (docs/rm-standin.md's table), never "any error": a set
 * widens only by what a call that overlapped it in another thread may
 * have done (ENOENT for a handle freed meanwhile, ENOTTY for a file
 * swapped for /dev/null, ...), which the state's busy counts and epochs
 * tell. A malformed call that succeeds counts in accepted_bad, any other
 * outcome outside its set in wrong_errno (the first few named). After
 * every step the RM answers (EMGPU_RM_GPU_INFO on a descriptor of the
 * checker's: the same UUID, VRAM, SMs, a clock that never goes back);
 * the CPU's half of every range reads back as its shadow after each
 * launch on it and at the end; a launch that should end and does not
 * within LAUNCH_TIMEOUT_MS is a hang.
 *
 * At the end everything is closed and emgpu-rm's accounting
 * (debugfs emgpu-rm/<PCI address>/objects) must read as before the
 * first call, then nvidia-uvm and emgpu-rm are unloaded (emgpu-rm warns,
 * and panic_on_warn panics, on any object left) and loaded again, and
 * the RM answers once more. One JSON line goes to the output (also one
 * every 10 s while it runs).
 *
 * usage: emgpu-rm-fuzz [-s SEED] [-j THREADS] [-n STEPS] [-t SECONDS]
 *                      [-c CALLS] [-m MODULE_DIR] [-o FILE] [-d]
 * (it stops at whichever limit comes first; -m: the folder of emgpu-rm.ko
 * and nvidia-uvm.ko to reload from; -d: after every step, with no call in
 * flight, each channel the state has is one of the stand-in's (debugfs
 * channels), for a hunt; tests/fuzz-rm/run-test.sh boots it, `make
 * fuzz-rm`)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uvm-user.h"
#include "gpumodel/splitmix64.h"

#define MAX_THREADS	16
#define FILES		4	/* opens of /dev/emgpu-rm */
#define VAS_SLOTS	4	/* a file's VA spaces: above LIMIT_VAS_PER_OPEN */
#define CH_SLOTS	6	/* a file's channels: above LIMIT_CH_PER_OPEN */
#define CTXS		3	/* nvidia-uvm VA spaces; 0 lives throughout */
#define HELD_MAX	(FILES * CH_SLOTS * 4)
#define FD_BASE		200	/* the files' fixed descriptors */
#define CTX_FD_BASE	(FD_BASE + 32)	/* the ctxs' */
#define CHILD_FD_REPORT	1000	/* a child's ends of its pipes to the parent */
#define CHILD_FD_READY	1001
#define RANGE_BYTES	UVM_VA_BLOCK_BYTES	/* a ctx's managed range */
#define CPU_BYTES	(RANGE_BYTES / 2)	/* its first half: filled and checked */
#define CPU_WORDS	(CPU_BYTES / 4)
#define LAUNCH_MAX_BYTES (64u << 10)	/* a checked launch's span */
#define SAMPLE_WORDS	16
#define TRACE_LEN	4096	/* calls remembered for the first thing wrong */
#define FULL_CHECK_EVERY 512	/* steps of a thread */
/* a launch that must end: under TCG on a loaded host, minutes are not a hang */
#define LAUNCH_TIMEOUT_MS 180000
/* what the run sets the stand-in's limits to: low enough that calls meet them */
#define LIMIT_VAS_PER_OPEN	3
#define LIMIT_CH_PER_OPEN	4
#define LIMIT_CH_PER_USER	10
#define LIMIT_USER_CHANNELS	14
#define RM_PARAMS	"/sys/module/emgpu_rm/parameters/"
/* the stand-in's handles: this + an id below 2^24 (docs/rm-standin.md) */
#define HANDLE_BASE	0xe7000000u
#define OBJECTS_GLOB	"/sys/kernel/debug/emgpu-rm/*/objects"
/* unprivileged users of the group 99-emgpu-rm.rules names, and one outside it */
#define RM_GROUP	990
#define USER_IN_GROUP(i) (1001 + (i))
#define USERS		2
#define USER_OUTSIDE	1009
/* the one VA every user process puts its range at */
#define USER_RANGE_VA	0x7e0000000000ull

/* ---- the errnos a call may end with ---- */

/*
 * The outcomes this program tells apart, one bit each; an errno not
 * listed is OTHER, in no call's set.
 */
#define OUTCOMES(X)							\
	X(0) X(ENOENT) X(EDQUOT) X(ENOSPC) X(EBUSY) X(EINVAL) X(EFAULT)	\
	X(ECANCELED) X(ETIMEDOUT) X(ENOTTY) X(EACCES) X(EIO) X(ENOMEM)	\
	X(EINTR) X(EBADF) X(EPERM) X(ENODEV) X(EOPNOTSUPP) X(ERANGE)

enum outcome {
#define OUTCOME_ENUM(e) OC_##e,
	OUTCOMES(OUTCOME_ENUM)
#undef OUTCOME_ENUM
	OC_OTHER,
};

static enum outcome outcome_of(int err)
{
	switch (err) {
#define OUTCOME_CASE(e) case e: return OC_##e;
	OUTCOMES(OUTCOME_CASE)
#undef OUTCOME_CASE
	default: return OC_OTHER;
	}
}

#define E(e)	(1u << OC_##e)
#define OK	E(0)

/* ---- the state the threads share ---- */

/* A VA space or channel of an open file. */
struct obj {
	uint32_t handle;	/* 0: the slot is empty */
	bool pending;		/* a create in flight holds the slot */
	unsigned int busy;	/* calls in flight that may free it or change its registration */
	uint64_t epoch;		/* bumped when it ends (its handle is gone) */
	unsigned int creating;	/* a VA space's channel creates in flight */
	int vas;		/* a channel's VA space slot */
	int ctx;		/* the ctx that registered (VA space) or retains (channel) it, -1 */
	unsigned int launching;	/* a channel's launches in flight */
	/*
	 * A channel freed (FREE) while its launches were in flight: its
	 * handle. A launch that rang holds the channel, and its charge, until
	 * its ioctl returned (once the device ended it, a FREE no longer
	 * waits for it: EBUSY only while it runs).
	 */
	uint32_t launch_held;
	unsigned int registering;	/* a channel's UVM_REGISTER_CHANNEL in flight */
	uint64_t launches;	/* a channel's launches begun, ever */
	bool stopped;		/* a channel nvidia-uvm stopped: its launches are refused */
	bool stale;		/* a channel whose launch timed out: it may still run */
	uint32_t hw;		/* a channel's hardware channel */
};

struct rmfile {
	int fd;			/* fixed */
	bool open;
	unsigned int busy;	/* its open or close in flight */
	uint64_t epoch;		/* bumped at its open and close */
	uint32_t h_client;
	/* creates and frees in flight on the slot, whatever file they met */
	unsigned int creating_vas, creating_ch, freeing_vas, freeing_ch;
	/* creates and frees begun on the slot, ever: what changed over a call */
	uint64_t vas_ups, vas_downs, ch_ups, ch_downs;
	/*
	 * Calls in flight on the descriptor (and children holding a copy):
	 * a closed file is released, and its channels stop counting, only
	 * once the last of them returned (lingering till then).
	 */
	unsigned int inflight, lingering;
	struct obj vas[VAS_SLOTS], ch[CH_SLOTS];
};

/* A channel its user freed (FREE, close) that a ctx still retains: it counts. */
struct held {
	bool used;
	unsigned int busy;
	int ctx;
	uint32_t h_client, h_channel;
};

/* An nvidia-uvm VA space, as libcuda makes one, and its managed range. */
struct ctx {
	int fd, mmfd;		/* fixed */
	bool open;
	unsigned int busy;	/* its open, close or a (un)registration in flight */
	unsigned int uvm_calls;	/* nvidia-uvm ioctls in flight on it (and children's copies) */
	uint64_t epoch;		/* bumped at every change of its registrations */
	/* the RM VA space it registered: file slot, that file's epoch, handle */
	bool registered;
	int reg_file;
	uint64_t reg_file_epoch;
	uint32_t reg_vas;
	/*
	 * data_lock: the CPU's accesses to the range and the launches
	 * checked on it, one at a time; map_lock: the mapping, which a close
	 * unmaps without waiting for a launch
	 */
	pthread_mutex_t data_lock, map_lock;
	uint32_t *buf;		/* RANGE_BYTES at a 2 MiB boundary, NULL unmapped */
	uint32_t shadow[CPU_WORDS];	/* what the CPU half must read */
};

enum op {
	OP_OPEN, OP_CLOSE, OP_VAS_CREATE, OP_CH_CREATE, OP_FREE, OP_BAD, OP_RAW,
	OP_CTX_OPEN, OP_CTX_CLOSE, OP_REG_VAS, OP_UNREG_VAS, OP_REG_CH, OP_UNREG_CH,
	OP_REG_BAD, OP_LAUNCH, OP_LAUNCH_STALE, OP_LAUNCH_BAD, OP_FILL, OP_CHECK,
	OP_FORK, OP_USERS, OP_USER_RANGE, OP_SIGNAL, OP_COUNT,
};

static const struct {
	const char *name;
	unsigned int weight;
	bool exclusive;		/* runs alone: no other thread's call in flight */
} ops[OP_COUNT] = {
	[OP_OPEN] = { "open", 4 },		[OP_CLOSE] = { "close", 2 },
	[OP_VAS_CREATE] = { "va_space_create", 6 }, [OP_CH_CREATE] = { "channel_create", 8 },
	[OP_FREE] = { "free", 7 },		[OP_BAD] = { "malformed", 12 },
	[OP_RAW] = { "raw_ioctl", 6 },		[OP_CTX_OPEN] = { "uvm_open", 1 },
	[OP_CTX_CLOSE] = { "uvm_close", 1 },	[OP_REG_VAS] = { "register_va_space", 4 },
	[OP_UNREG_VAS] = { "unregister_va_space", 1 }, [OP_REG_CH] = { "register_channel", 5 },
	[OP_UNREG_CH] = { "unregister_channel", 2 }, [OP_REG_BAD] = { "register_bad", 3 },
	[OP_LAUNCH] = { "launch", 6 },		[OP_LAUNCH_STALE] = { "launch_then_close", 1 },
	[OP_LAUNCH_BAD] = { "launch_bad", 4 },	[OP_FILL] = { "cpu_fill", 3 },
	[OP_CHECK] = { "cpu_check", 2 },	[OP_FORK] = { "fork", 1, true },
	[OP_USERS] = { "user_limits", 1, true }, [OP_USER_RANGE] = { "user_range", 1 },
	[OP_SIGNAL] = { "signal", 2 },
};

/* Whose channel a launch that may still run holds. */
enum stale_owner { STALE_OURS, STALE_OTHERS, STALE_OWNERS };

struct fuzz {
	pthread_mutex_t lock;	/* the state below but the atomics */
	/*
	 * A fork and its child's close of what it inherited, or a ctx's
	 * close: a child forked while a ctx closes would hold its nvidia-uvm
	 * files, and their VA space and retained channels, past the close
	 */
	pthread_mutex_t fork_lock;
	pthread_rwlock_t world;	/* ops hold it shared, exclusive ones whole */
	struct rmfile file[FILES];
	struct ctx ctx[CTXS];
	struct held held[HELD_MAX];
	/*
	 * A launch of this process's user (STALE_OURS) or of a user
	 * process's (STALE_OTHERS, once that process exited) timed out or
	 * was interrupted and may still run: launches may meet EBUSY, and its
	 * channel may still count against its user and the total, until a
	 * launch begun after it was recorded (the launch sequence number
	 * then, seq) rang the device. The stand-in holds one at most.
	 */
	struct {
		bool on;
		uint64_t seq;
		uint64_t events;	/* ever: one that began during a call */
	} stale[STALE_OWNERS];
	unsigned int stale_uids;	/* STALE_OTHERS': bit i for USER_IN_GROUP(i) */
	uint64_t launch_seq;
	/*
	 * What else may hold the launch engine: launches of ms in flight
	 * here (they may time out and run on), and the events ever that may
	 * have left one running (a timeout, a user process's launch)
	 */
	unsigned int short_launches;
	uint64_t busy_events;
	unsigned int others_max;	/* channels user processes may hold now */
	uint64_t others_ups;		/* user processes begun, ever */
	/* channels freed while a registration that may retain them was in flight */
	unsigned int maybe_held;
	/* calls begun, ever, that may add a channel of this process's user, or drop one */
	uint64_t user_ups, user_downs;

	struct worker *workers;	/* op_signal's targets */
	unsigned int threads;
	int null_fd, info_fd;
	struct emgpu_rm_gpu_info info0;
	const char *module_dir;
	char objects_path[320];
	char objects0[1024];	/* debugfs objects before the first call */

	/* limits */
	uint64_t max_steps, max_calls;
	double limit_s, start;
	atomic_bool stop;

	/* counts */
	atomic_uint_fast64_t steps, calls, per_op[OP_COUNT], races, launches_ok,
		launches_failed, launches_timed_out, children;
	uint64_t accepted_bad, wrong_errno, mismatches, hangs;
	double op_s[OP_COUNT];
	char problem[400];
	char bad_first[400];
	char wrong_first[800];
	unsigned int wrong_kinds, bad_kinds;
	bool debug_channels;	/* -d */
	/* the last calls, printed to stderr at the first thing wrong */
	char trace[TRACE_LEN][128];
	unsigned int trace_next;
	bool traced;
};

struct worker {
	struct fuzz *f;
	pthread_t thread;
	unsigned int id;
	uint64_t rng;
	uint64_t steps;
	uint64_t ptimer;	/* the last PTIMER this thread read */
	atomic_bool in_launch;	/* in an EMGPU_RM_LAUNCH: op_signal's target */
};

/*
 * SIGUSR1s this thread took (op_signal interrupts a launch with one): a
 * launch that took one may end EINTR. A handler can only count where
 * its thread finds it.
 */
static __thread volatile sig_atomic_t signals_taken;

static void on_signal(int sig)
{
	(void)sig;
	signals_taken++;
}

/* ---- helpers ---- */

static uint64_t rnd(struct worker *w)
{
	return gm_splitmix64(&w->rng);
}

static uint64_t below(struct worker *w, uint64_t n)
{
	return n ? rnd(w) % n : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void lock(struct fuzz *f)
{
	pthread_mutex_lock(&f->lock);
}

static void unlock(struct fuzz *f)
{
	pthread_mutex_unlock(&f->lock);
}

static void note_locked(struct fuzz *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One line of the trace. LOCKING: f->lock. */
static void note_locked(struct fuzz *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->trace[f->trace_next++ % TRACE_LEN], sizeof(f->trace[0]), fmt, ap);
	va_end(ap);
}

/* The trace, once: what led to the first thing wrong. LOCKING: f->lock. */
static void dump_trace_locked(struct fuzz *f)
{
	unsigned int i = f->trace_next > TRACE_LEN ? f->trace_next - TRACE_LEN : 0;

	char path[sizeof(f->objects_path)], line[160];
	FILE *in;

	if (f->traced)
		return;
	f->traced = true;
	fprintf(stderr, "emgpu-rm-fuzz: the last %u calls:\n", f->trace_next - i);
	for (; i < f->trace_next; i++)
		fprintf(stderr, "  %s\n", f->trace[i % TRACE_LEN]);
	/* the stand-in's objects and channels now (HW HANDLE REFS RETAINS) */
	for (unsigned int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s", f->objects_path);
		if (k && strrchr(path, '/'))
			strcpy(strrchr(path, '/'), "/channels");
		in = fopen(path, "r");
		fprintf(stderr, "emgpu-rm-fuzz: %s:\n", path);
		while (in && fgets(line, sizeof(line), in))
			fprintf(stderr, "  %s", line);
		if (in)
			fclose(in);
	}
	/* the state this program has */
	for (unsigned int fi = 0; fi < FILES; fi++) {
		const struct rmfile *r = &f->file[fi];

		fprintf(stderr, "  file %u: open %d busy %u client %x inflight %u lingering %u\n",
			fi, r->open, r->busy, r->h_client, r->inflight, r->lingering);
		for (unsigned int j = 0; j < VAS_SLOTS; j++)
			if (r->vas[j].handle)
				fprintf(stderr, "    vas %x ctx %d busy %u\n", r->vas[j].handle,
					r->vas[j].ctx, r->vas[j].busy);
		for (unsigned int j = 0; j < CH_SLOTS; j++)
			if (r->ch[j].handle)
				fprintf(stderr, "    ch %x hw %u vas %d ctx %d busy %u stopped %d stale %d\n",
					r->ch[j].handle, r->ch[j].hw, r->ch[j].vas, r->ch[j].ctx,
					r->ch[j].busy, r->ch[j].stopped, r->ch[j].stale);
			else if (r->ch[j].launch_held)
				fprintf(stderr, "    ch %x freed, %u launches of it in flight\n",
					r->ch[j].launch_held, r->ch[j].launching);
	}
	for (unsigned int j = 0; j < HELD_MAX; j++)
		if (f->held[j].used)
			fprintf(stderr, "  held ctx %d %x/%x busy %u\n", f->held[j].ctx,
				f->held[j].h_client, f->held[j].h_channel, f->held[j].busy);
	for (unsigned int j = 0; j < CTXS; j++)
		fprintf(stderr, "  ctx %u: open %d busy %u registered %d file %d vas %x calls %u\n", j,
			f->ctx[j].open, f->ctx[j].busy, f->ctx[j].registered, f->ctx[j].reg_file,
			f->ctx[j].reg_vas, f->ctx[j].uvm_calls);
	fprintf(stderr, "  stale %d (others' %d) others %u\n", f->stale[STALE_OURS].on,
		f->stale[STALE_OTHERS].on, f->others_max);
	/* what the slots' descriptors are */
	for (int fd = FD_BASE; fd < CTX_FD_BASE + 2 * CTXS; fd++) {
		char link[64], target[96];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = 0;
			fprintf(stderr, "  fd %d: %s\n", fd, target);
		}
	}
	fflush(stderr);
}

static void problem_locked(struct fuzz *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem_locked(struct fuzz *f, const char *fmt, ...)
{
	va_list ap;

	if (f->problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(f->problem, sizeof(f->problem), fmt, ap);
	va_end(ap);
	note_locked(f, "PROBLEM %s", f->problem);
	dump_trace_locked(f);
	atomic_store(&f->stop, true);
}

#define problem(f, ...) do { lock(f); problem_locked(f, __VA_ARGS__); unlock(f); } while (0)

static void append_first(char *buf, size_t len, unsigned int *kinds, const char *what,
			 const char *detail)
{
	size_t used = strlen(buf);

	/* one example of each call, up to 4, so that a run names them all */
	if (*kinds >= 4 || strstr(buf, what))
		return;
	snprintf(buf + used, len - used, "%s%s: %s", used ? "; " : "", what, detail);
	(*kinds)++;
}

static void wrong(struct fuzz *f, bool accepted, const char *what, const char *detail)
{
	lock(f);
	note_locked(f, "WRONG %s: %s", what, detail);
	dump_trace_locked(f);
	if (accepted) {
		f->accepted_bad++;
		append_first(f->bad_first, sizeof(f->bad_first), &f->bad_kinds, what, detail);
	} else {
		f->wrong_errno++;
		append_first(f->wrong_first, sizeof(f->wrong_first), &f->wrong_kinds, what, detail);
	}
	unlock(f);
}

static const char *errname(int err)
{
	return err ? strerror(err) : "success";
}

/*
 * A call ended with err (0 or an errno) and @allowed is its set: in it,
 * or an accepted malformed call (0 outside its set), or a wrong errno.
 * @racy: the set was widened by what another thread's call may have done.
 */
static bool judge_note(struct worker *w, const char *what, int err, uint32_t allowed, bool racy,
		       const char *note)
{
	char detail[160];

	if (racy)
		atomic_fetch_add(&w->f->races, 1);
	lock(w->f);
	note_locked(w->f, "t%u %s: %s %s", w->id, what, errname(err), note ? note : "");
	unlock(w->f);
	if (allowed & (1u << outcome_of(err)))
		return true;
	snprintf(detail, sizeof(detail), "%s (allowed 0x%x%s%s)%s", errname(err), allowed,
		 note ? ", " : "", note ? note : "", racy ? ", racing" : "");
	wrong(w->f, !err, what, detail);
	return false;
}

static bool judge(struct worker *w, const char *what, int err, uint32_t allowed, bool racy)
{
	return judge_note(w, what, err, allowed, racy, NULL);
}

/*
 * An nvidia-uvm call: its errno @err (in @errs when the file was swapped
 * meanwhile) or its rmStatus, @want (or @also when not 0).
 */
static bool judge_uvm(struct worker *w, const char *what, int err, NV_STATUS status,
		      NV_STATUS want, NV_STATUS also, uint32_t errs, bool racy)
{
	char detail[96];

	if (racy)
		atomic_fetch_add(&w->f->races, 1);
	lock(w->f);
	note_locked(w->f, "t%u %s: %s 0x%x", w->id, what, errname(err), status);
	unlock(w->f);
	if (err ? (errs & (1u << outcome_of(err))) != 0 :
		  status == want || (also && status == also))
		return true;
	if (err)
		snprintf(detail, sizeof(detail), "%s%s", strerror(err), racy ? ", racing" : "");
	else
		snprintf(detail, sizeof(detail), "rmStatus 0x%x, expected 0x%x%s", status, want,
			 racy ? ", racing" : "");
	wrong(w->f, !err && status == NV_OK, what, detail);
	return false;
}

static int xioctl(struct fuzz *f, int fd, unsigned long cmd, void *arg)
{
	atomic_fetch_add(&f->calls, 1);
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* A slot's file is released once nothing in flight holds it. LOCKING: f->lock. */
static void file_call_done(struct rmfile *r)
{
	if (!--r->inflight)
		r->lingering = 0;
}

/* An ioctl on r's descriptor, counted in flight: its errno. */
static int rm_ioctl(struct fuzz *f, struct rmfile *r, unsigned long cmd, void *arg)
{
	int err;

	lock(f);
	r->inflight++;
	unlock(f);
	err = xioctl(f, r->fd, cmd, arg);
	lock(f);
	file_call_done(r);
	unlock(f);
	return err;
}

/*
 * EMGPU_RM_LAUNCH number @seq on r's descriptor: its errno; *interrupted
 * whether a signal reached this thread meanwhile (then EINTR is the
 * launch's to give, the launch running on).
 */
static void launch_reached(struct fuzz *f, uint64_t seq);
static void launch_timed_out(struct fuzz *f, struct obj *ch, enum stale_owner owner);

static int launch_ioctl(struct worker *w, struct rmfile *r, struct obj *ch, uint64_t ch_epoch,
			uint64_t seq, void *arg, bool *interrupted)
{
	struct fuzz *f = w->f;
	sigset_t usr1;
	sig_atomic_t taken;
	int err;

	/* until it returned, it may end EINTR and run on: others' launches may be EBUSY */
	lock(f);
	f->short_launches++;
	unlock(f);
	/* SIGUSR1 reaches a worker only here (one pending arrives first) */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	atomic_store(&w->in_launch, true);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	taken = signals_taken;
	err = rm_ioctl(f, r, EMGPU_RM_LAUNCH, arg);
	*interrupted = signals_taken != taken;
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	atomic_store(&w->in_launch, false);
	lock(f);
	/* timed out: it rang the device; interrupted: maybe not yet */
	if (err == ETIMEDOUT)
		launch_reached(f, seq);
	if (err == EINTR || err == ETIMEDOUT)
		launch_timed_out(f, ch->epoch == ch_epoch ? ch : NULL, STALE_OURS);
	f->short_launches--;
	unlock(f);
	return err;
}

/* An nvidia-uvm ioctl on ctx c's descriptor @fd: its errno; *status its rmStatus. */
static int uvm_ioctl(struct fuzz *f, struct ctx *c, int fd, unsigned long cmd, void *p,
		     NV_STATUS *status)
{
	int err;

	lock(f);
	c->uvm_calls++;
	unlock(f);
	*status = NV_ERR_GENERIC;
	err = xioctl(f, fd, cmd, p);
	lock(f);
	c->uvm_calls--;
	unlock(f);
	return err;
}

/* A pointer to nothing the caller may use: none, the kernel's, a hole, one that wraps. */
static void *bad_ptr(struct worker *w)
{
	switch (below(w, 4)) {
	case 0: return NULL;
	case 1: return (void *)0xffff888000000000ull;
	case 2: return (void *)(uintptr_t)0x1000;
	default: return (void *)((uintptr_t)-1 - 7);
	}
}

/* A read-only page holding @len bytes of @src: copy_to_user fails there. */
static void *ro_copy(const void *src, size_t len)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, src, len);
	if (mprotect(p, 4096, PROT_READ)) {
		munmap(p, 4096);
		return NULL;
	}
	return p;
}

/* ---- the state (f->lock held) ---- */

static struct rmfile *pick_file(struct worker *w, bool open)
{
	unsigned int i, start = below(w, FILES);

	for (i = 0; i < FILES; i++) {
		struct rmfile *r = &w->f->file[(start + i) % FILES];

		if (r->open == open && !r->busy)
			return r;
	}
	return NULL;
}

/* A live object of objs, for which @want says yes (NULL: any). */
static struct obj *pick_obj(struct worker *w, struct obj *objs, unsigned int n,
			    bool (*want)(const struct obj *, const void *), const void *arg)
{
	unsigned int i, start = below(w, n);

	for (i = 0; i < n; i++) {
		struct obj *o = &objs[(start + i) % n];

		if (o->handle && !o->pending && (!want || want(o, arg)))
			return o;
	}
	return NULL;
}

/* An empty slot no call in flight still names. */
static struct obj *free_slot(struct obj *objs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct obj *o = &objs[i];

		if (!o->handle && !o->pending && !o->busy && !o->creating && !o->launching)
			return &objs[i];
	}
	return NULL;
}

static unsigned int live(const struct obj *objs, unsigned int n)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++)
		k += !!objs[i].handle;
	return k;
}

/* The object is gone; what calls in flight on it count stays theirs. */
static void clear_obj(struct obj *o)
{
	o->handle = 0;
	o->vas = 0;
	o->ctx = -1;
	o->stopped = false;
	o->stale = false;
	o->hw = 0;
	o->epoch++;
}

static bool file_quiet(const struct rmfile *r, uint64_t epoch)
{
	return !r->busy && r->epoch == epoch && r->open;
}

/*
 * What a call naming r's objects may meet beyond their own rules when r's
 * file was swapped meanwhile: /dev/null (ENOTTY) or the next open, where
 * the handles are not its (ENOENT).
 */
static uint32_t file_race(const struct rmfile *r, uint64_t epoch, bool *racy)
{
	if (file_quiet(r, epoch))
		return 0;
	*racy = true;
	return E(ENOTTY) | E(ENOENT);
}

/* Whether a ctx retains channel @h its user freed (a held entry). LOCKING: f->lock. */
static bool held_entry(const struct fuzz *f, uint32_t h)
{
	for (unsigned int i = 0; i < HELD_MAX; i++)
		if (f->held[i].used && f->held[i].h_channel == h)
			return true;
	return false;
}

/*
 * Bounds on the channels this process's user (root) holds: live handles,
 * those of closed files not yet released, those a ctx retains after their
 * user freed them, those freed under a launch in flight, and those in
 * flight either way; a timed-out launch's aside (stale_since()).
 */
static void user_channels(struct fuzz *f, unsigned int *lo, unsigned int *hi)
{
	unsigned int n = 0, up = 0, down = 0;

	for (unsigned int i = 0; i < FILES; i++) {
		const struct rmfile *r = &f->file[i];

		for (unsigned int j = 0; j < CH_SLOTS; j++) {
			n += !!r->ch[j].handle;
			down += r->ch[j].handle && r->ch[j].busy;
			/* may be held by a launch in flight, unless a ctx's retain counts it */
			if (r->ch[j].launch_held && !held_entry(f, r->ch[j].launch_held)) {
				n++;
				down++;
			}
		}
		n += r->lingering;
		down += r->lingering;
		up += r->creating_ch;
		if (r->busy)	/* a close frees them */
			down += live(r->ch, CH_SLOTS);
	}
	/* held ones go with an unregistration or close of their ctx in flight */
	for (unsigned int i = 0; i < HELD_MAX; i++) {
		n += f->held[i].used;
		down += f->held[i].used && (f->held[i].busy || f->ctx[f->held[i].ctx].busy);
	}
	n += f->maybe_held;
	down += f->maybe_held;
	*lo = n > down ? n - down : 0;
	*hi = n + up;
}

/* What may have held a channel of a launch that may still run, from a mark on. */
struct stale_mark {
	bool on[STALE_OWNERS];
	uint64_t events[STALE_OWNERS];
};

static void stale_mark(const struct fuzz *f, struct stale_mark *m)
{
	for (unsigned int o = 0; o < STALE_OWNERS; o++) {
		m->on[o] = f->stale[o].on;
		m->events[o] = f->stale[o].events;
	}
}

/*
 * Whether a launch of @owner's that may still run held its channel at some
 * time since the mark @m: one then, or one that timed out since.
 * LOCKING: f->lock.
 */
static bool stale_since(const struct fuzz *f, const struct stale_mark *m, enum stale_owner owner)
{
	return m->on[owner] || f->stale[owner].events != m->events[owner];
}

/* Whether the launch engine may be held by another's launch now. LOCKING: f->lock. */
static bool engine_may_be_held(const struct fuzz *f)
{
	return f->stale[STALE_OURS].on || f->stale[STALE_OTHERS].on || f->others_max ||
	       f->short_launches;
}

/* The channel's handle went (FREE, close): one a ctx retains still counts. */
static void channel_gone(struct fuzz *f, struct rmfile *r, struct obj *ch)
{
	/* nvidia-uvm may have retained it already: counted till it says */
	if (ch->ctx < 0 && ch->registering)
		f->maybe_held++;
	if (ch->ctx >= 0) {
		for (unsigned int i = 0; i < HELD_MAX; i++) {
			struct held *h = &f->held[i];

			if (h->used)
				continue;
			*h = (struct held){ .used = true, .ctx = ch->ctx, .h_client = r->h_client,
					    .h_channel = ch->handle };
			break;
		}
	}
	clear_obj(ch);
}

/* The VA space registered with ctx c (live in its file), or NULL. */
static struct obj *ctx_vas(struct fuzz *f, const struct ctx *c, struct rmfile **rp)
{
	struct rmfile *r;

	if (!c->registered || c->reg_file < 0)
		return NULL;
	r = &f->file[c->reg_file];
	if (!r->open || r->epoch != c->reg_file_epoch)
		return NULL;
	for (unsigned int i = 0; i < VAS_SLOTS; i++)
		if (r->vas[i].handle == c->reg_vas) {
			*rp = r;
			return &r->vas[i];
		}
	return NULL;
}

/*
 * nvidia-uvm let go of everything ctx c registered (UNREGISTER_GPU_VASPACE,
 * close): its channels are stopped and released, the VA space's
 * directory unset.
 */
static void ctx_unregistered(struct fuzz *f, struct ctx *c)
{
	int ci = (int)(c - f->ctx);

	for (unsigned int i = 0; i < FILES; i++) {
		struct rmfile *r = &f->file[i];

		for (unsigned int j = 0; j < VAS_SLOTS; j++)
			if (r->vas[j].ctx == ci)
				r->vas[j].ctx = -1;
		for (unsigned int j = 0; j < CH_SLOTS; j++)
			if (r->ch[j].ctx == ci) {
				r->ch[j].ctx = -1;
				r->ch[j].stopped = true;
			}
	}
	for (unsigned int i = 0; i < HELD_MAX; i++)
		if (f->held[i].used && f->held[i].ctx == ci)
			memset(&f->held[i], 0, sizeof(f->held[i]));
	c->registered = false;
	c->epoch++;
}

/* ---- the RM answers ---- */

static void check_info(struct worker *w)
{
	struct fuzz *f = w->f;
	struct emgpu_rm_gpu_info in = { 0 };
	int err = xioctl(f, f->info_fd, EMGPU_RM_GPU_INFO, &in);

	if (err) {
		problem(f, "EMGPU_RM_GPU_INFO: %s", strerror(err));
		return;
	}
	if (memcmp(in.uuid, f->info0.uuid, 16) || in.vram_bytes != f->info0.vram_bytes ||
	    in.num_sms != f->info0.num_sms || in.warps_per_sm != f->info0.warps_per_sm ||
	    in.vram_free_bytes > in.vram_bytes || in.ptimer_ns < w->ptimer)
		problem(f, "EMGPU_RM_GPU_INFO changed: VRAM %llu, free %llu, %u SMs x %u warps, PTIMER %llu after %llu",
			(unsigned long long)in.vram_bytes, (unsigned long long)in.vram_free_bytes,
			in.num_sms, in.warps_per_sm, (unsigned long long)in.ptimer_ns,
			(unsigned long long)w->ptimer);
	w->ptimer = in.ptimer_ns;
}

/* ---- opens and closes of /dev/emgpu-rm ---- */

/* A new open of /dev/emgpu-rm at descriptor fd: its errno. */
static int open_at(struct fuzz *f, int fd)
{
	int tmp, err = 0;

	atomic_fetch_add(&f->calls, 1);
	tmp = open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC);
	if (tmp < 0)
		return errno;
	if (dup3(tmp, fd, O_CLOEXEC) < 0)
		err = errno;
	close(tmp);
	return err;
}

static void op_open(struct worker *w)
{
	struct fuzz *f = w->f;
	struct emgpu_rm_va_space out = { 0 };
	struct rmfile *r;
	int err;

	lock(f);
	r = pick_file(w, false);
	if (r) {
		r->busy++;
		r->epoch++;
	}
	unlock(f);
	if (!r)
		return;
	err = open_at(f, r->fd);
	lock(f);
	note_locked(f, "t%u open file %d at fd %d", w->id, (int)(r - f->file), r->fd);
	unlock(f);
	judge(w, "open", err, OK, false);
	/* its client handle, as libcuda learns it: with a first VA space */
	if (!err)
		err = xioctl(f, r->fd, EMGPU_RM_VA_SPACE_CREATE, &out);
	{
		char note[64];

		snprintf(note, sizeof(note), "file %d -> %x/%x", (int)(r - f->file), out.h_client,
			 out.h_va_space);
		judge_note(w, "VA_SPACE_CREATE of a new open", err, OK, false, note);
	}
	lock(f);
	for (unsigned int i = 0; i < VAS_SLOTS; i++)
		clear_obj(&r->vas[i]);
	for (unsigned int i = 0; i < CH_SLOTS; i++)
		clear_obj(&r->ch[i]);
	if (!err) {
		r->open = true;
		r->h_client = out.h_client;
		r->vas[0].handle = out.h_va_space;
	}
	r->epoch++;
	r->busy--;
	unlock(f);
	if (err)
		dup3(f->null_fd, r->fd, O_CLOEXEC);
}

/*
 * Swaps /dev/null in for r's file (the caller holds r->busy): the file is
 * released now, or when the calls in flight on it return, and its objects
 * go; a channel a ctx retains lives on.
 */
static void close_file(struct fuzz *f, struct rmfile *r)
{
	unsigned int gone = 0;

	lock(f);
	r->epoch++;
	r->inflight++;	/* the close's own: a release in it ends the lingering */
	f->user_downs++;
	unlock(f);
	atomic_fetch_add(&f->calls, 1);
	if (dup3(f->null_fd, r->fd, O_CLOEXEC) < 0)
		problem(f, "dup3 over an open of " EMGPU_RM_DEVICE ": %s", strerror(errno));
	lock(f);
	note_locked(f, "close file %d (client %x, inflight %u)", (int)(r - f->file), r->h_client,
		    r->inflight);
	/* until the file's release, every channel of it counts, retained or not */
	for (unsigned int i = 0; i < CH_SLOTS; i++)
		if (r->ch[i].handle) {
			gone++;
			channel_gone(f, r, &r->ch[i]);
		}
	for (unsigned int i = 0; i < VAS_SLOTS; i++)
		clear_obj(&r->vas[i]);
	r->lingering += gone;
	file_call_done(r);
	r->open = false;
	r->h_client = 0;
	r->epoch++;
	unlock(f);
}

static void op_close(struct worker *w)
{
	struct fuzz *f = w->f;
	struct rmfile *r;

	lock(f);
	r = pick_file(w, true);
	if (r)
		r->busy++;
	unlock(f);
	if (!r)
		return;
	close_file(f, r);
	lock(f);
	r->busy--;
	unlock(f);
}

/* ---- creates and frees ---- */

/*
 * Bounds on a count over a call: at its start, with what was in flight
 * (lo, hi), widened at its end by what began meanwhile (the counters of
 * increments and decrements begun, ups and downs).
 */
struct span {
	unsigned int lo, hi;
	uint64_t ups, downs;
};

static void span_start(struct span *s, unsigned int n, unsigned int coming, unsigned int going,
		       uint64_t ups, uint64_t downs)
{
	s->lo = n > going ? n - going : 0;
	s->hi = n + coming;
	s->ups = ups;
	s->downs = downs;
}

static void span_end(struct span *s, uint64_t ups, uint64_t downs)
{
	uint64_t down = downs - s->downs;

	s->lo = down >= s->lo ? 0 : s->lo - (unsigned int)down;
	s->hi += (unsigned int)(ups - s->ups);
}

/*
 * The errnos a VA_SPACE_CREATE may get from the open's quota (@span its
 * VA spaces, this create's aside): EDQUOT at the limit, @out (success or
 * the copy-out's EFAULT) below it.
 */
static uint32_t vas_quota(const struct span *s, uint32_t out, bool *racy)
{
	uint32_t allowed = (s->hi >= LIMIT_VAS_PER_OPEN ? E(EDQUOT) : 0) |
			   (s->lo < LIMIT_VAS_PER_OPEN ? out : 0);

	*racy |= (s->hi >= LIMIT_VAS_PER_OPEN) != (s->lo >= LIMIT_VAS_PER_OPEN);
	return allowed;
}

/* A VA_SPACE_CREATE begins on r: its count's bounds in @s. LOCKING: f->lock. */
static void vas_create_begins(struct rmfile *r, struct span *s)
{
	span_start(s, live(r->vas, VAS_SLOTS), r->creating_vas, r->freeing_vas, 0, 0);
	r->creating_vas++;
	r->vas_ups++;
	s->ups = r->vas_ups;
	s->downs = r->vas_downs;
}

static void op_vas_create(struct worker *w)
{
	struct fuzz *f = w->f;
	struct emgpu_rm_va_space out = { 0 };
	bool racy = false, ro = below(w, 8) == 0;
	uint32_t allowed;
	struct rmfile *r;
	struct obj *slot;
	struct span vs;
	uint64_t epoch;
	void *arg = &out;
	char note[96];
	int err;

	lock(f);
	r = pick_file(w, true);
	slot = r ? free_slot(r->vas, VAS_SLOTS) : NULL;
	if (!slot) {
		unlock(f);
		return;
	}
	slot->pending = true;
	epoch = r->epoch;
	vas_create_begins(r, &vs);
	unlock(f);
	/* a read-only page: made, then freed when its handles cannot go out */
	if (ro)
		arg = ro_copy(&out, sizeof(out));
	err = rm_ioctl(f, r, EMGPU_RM_VA_SPACE_CREATE, arg);
	lock(f);
	span_end(&vs, r->vas_ups, r->vas_downs);
	allowed = vas_quota(&vs, ro ? E(EFAULT) : OK, &racy);
	/* a swapped file: the next open, with a quota of its own */
	if (!file_quiet(r, epoch)) {
		allowed |= E(ENOTTY) | OK | E(EDQUOT) | E(EFAULT);
		racy = true;
	}
	unlock(f);
	if (ro)
		munmap(arg, 4096);
	snprintf(note, sizeof(note), "file %d -> %x/%x; open %u..%u", (int)(r - f->file),
		 out.h_client, out.h_va_space, vs.lo, vs.hi);
	judge_note(w, ro ? "VA_SPACE_CREATE, out to a read-only page" : "VA_SPACE_CREATE", err,
		   allowed, racy, note);
	lock(f);
	if (!err && !ro && out.h_client == r->h_client && file_quiet(r, epoch)) {
		slot->handle = out.h_va_space;
		slot->ctx = -1;
	} else if (!err && !ro && r->open && out.h_client == r->h_client) {
		/* the slot's file now, opened meanwhile: given back */
		struct emgpu_rm_free fr = { out.h_client, out.h_va_space };

		unlock(f);
		rm_ioctl(f, r, EMGPU_RM_FREE, &fr);
		lock(f);
	}
	/* counted among those coming until given back */
	slot->pending = false;
	r->creating_vas--;
	unlock(f);
}

static void op_ch_create(struct worker *w)
{
	struct fuzz *f = w->f;
	struct emgpu_rm_channel c = { 0 };
	bool racy = false, ro = below(w, 8) == 0, over_lo, over_hi, total_over_hi;
	unsigned int user_lo, user_hi, others, total_hi;
	uint64_t others_ups;
	struct stale_mark stale;
	struct span open, user;
	struct obj *vas, *slot;
	uint32_t allowed = 0;
	uint64_t epoch, vas_epoch;
	struct rmfile *r;
	void *arg = &c;
	char note[128];
	int err;

	lock(f);
	r = pick_file(w, true);
	vas = r ? pick_obj(w, r->vas, VAS_SLOTS, NULL, NULL) : NULL;
	slot = vas ? free_slot(r->ch, CH_SLOTS) : NULL;
	if (!slot) {
		unlock(f);
		return;
	}
	slot->pending = true;
	vas->creating++;
	epoch = r->epoch;
	vas_epoch = vas->epoch;
	c.h_client = r->h_client;
	c.h_va_space = vas->handle;
	c.h_channel = rnd(w);	/* (out) fields: ignored on the way in */
	c.hw_channel = rnd(w);
	/* this create's own count aside, in the open and the user */
	span_start(&open, live(r->ch, CH_SLOTS), r->creating_ch, r->freeing_ch, 0, 0);
	user_channels(f, &user_lo, &user_hi);
	user.lo = user_lo;
	user.hi = user_hi;
	stale_mark(f, &stale);
	r->creating_ch++;
	r->ch_ups++;
	f->user_ups++;
	open.ups = r->ch_ups;
	open.downs = r->ch_downs;
	user.ups = f->user_ups;
	user.downs = f->user_downs;
	others = f->others_max;
	others_ups = f->others_ups;
	unlock(f);
	/* a read-only page: made, then freed when its handles cannot go out */
	if (ro)
		arg = ro_copy(&c, sizeof(c));
	err = rm_ioctl(f, r, EMGPU_RM_CHANNEL_CREATE, arg);
	lock(f);
	span_end(&open, r->ch_ups, r->ch_downs);
	span_end(&user, f->user_ups, f->user_downs);
	/* user processes begun meanwhile: each may hold its channel */
	others += (unsigned int)(f->others_ups - others_ups);
	/*
	 * A launch that may still run holds its channel, charged to its user
	 * and the total, one at most: ours counts in our quota, anyone's in
	 * the total
	 */
	total_hi = user.hi + others +
		   (stale_since(f, &stale, STALE_OURS) || stale_since(f, &stale, STALE_OTHERS));
	user.hi += stale_since(f, &stale, STALE_OURS);
	/* the stand-in's order: the open's and the user's quotas, then the total */
	over_lo = open.lo >= LIMIT_CH_PER_OPEN || user.lo >= LIMIT_CH_PER_USER;
	over_hi = open.hi >= LIMIT_CH_PER_OPEN || user.hi >= LIMIT_CH_PER_USER;
	total_over_hi = total_hi >= LIMIT_USER_CHANNELS;
	if (over_hi)
		allowed |= E(EDQUOT);
	if (!over_lo) {
		if (total_over_hi)
			allowed |= E(ENOSPC);
		if (user.lo < LIMIT_USER_CHANNELS)
			allowed |= ro ? E(EFAULT) : OK;
	}
	racy = over_lo != over_hi || (user.lo >= LIMIT_USER_CHANNELS) != total_over_hi;
	if (!file_quiet(r, epoch)) {
		allowed |= E(ENOTTY) | E(ENOENT);	/* the handles are not the next open's */
		racy = true;
	}
	/* its VA space freed meanwhile: a FREE that returned, or one in flight */
	if (vas->epoch != vas_epoch || vas->busy) {
		allowed |= E(ENOENT);
		racy = true;
	}
	unlock(f);
	if (ro)
		munmap(arg, 4096);
	snprintf(note, sizeof(note), "file %d vas %x -> ch %x hw %u; open %u..%u, user %u..%u, total ..%u",
		 (int)(r - f->file), c.h_va_space, c.h_channel, c.hw_channel, open.lo, open.hi,
		 user.lo, user.hi, total_hi);
	judge_note(w, ro ? "CHANNEL_CREATE, out to a read-only page" : "CHANNEL_CREATE", err, allowed,
		   racy, note);
	lock(f);
	/* made in a file closed meanwhile: it went with it */
	if (!err && !ro && file_quiet(r, epoch) && vas->epoch == vas_epoch) {
		slot->handle = c.h_channel;
		slot->vas = (int)(vas - r->vas);
		slot->ctx = -1;
		slot->hw = c.hw_channel;
		if (c.hw_channel >= 64)
			problem_locked(f, "CHANNEL_CREATE: hardware channel %u", c.hw_channel);
		/*
		 * a hardware channel is one channel's until it is free again
		 * (one a FREE or close in flight may have freed aside)
		 */
		for (unsigned int i = 0; i < FILES; i++)
			for (unsigned int j = 0; j < CH_SLOTS; j++)
				if (&f->file[i].ch[j] != slot && f->file[i].ch[j].handle &&
				    f->file[i].ch[j].hw == c.hw_channel && !f->file[i].busy &&
				    !f->file[i].ch[j].busy)
					problem_locked(f, "CHANNEL_CREATE: hardware channel %u is channel %x's too",
						       c.hw_channel, f->file[i].ch[j].handle);
	} else if (!err && !ro && r->inflight) {
		/* made in a file closed meanwhile that a call in flight still holds */
		r->lingering++;
	}
	vas->creating--;
	slot->pending = false;
	r->creating_ch--;
	unlock(f);
}

/* FREE of a live VA space or channel of an open file, or of the client itself. */
static void op_free(struct worker *w)
{
	struct fuzz *f = w->f;
	struct emgpu_rm_free fr;
	uint32_t allowed = OK;
	bool racy = false, is_ch = below(w, 2), is_client = below(w, 16) == 0;
	struct rmfile *r;
	struct obj *o = NULL;
	uint64_t epoch, o_epoch = 0, ch_ups = 0, ch_downs = 0, launches = 0;
	const char *what;
	int err;

	lock(f);
	r = pick_file(w, true);
	if (r && !is_client)
		o = is_ch ? pick_obj(w, r->ch, CH_SLOTS, NULL, NULL) :
			    pick_obj(w, r->vas, VAS_SLOTS, NULL, NULL);
	if (!r || (!o && !is_client)) {
		unlock(f);
		return;
	}
	epoch = r->epoch;
	fr.h_client = r->h_client;
	if (is_client) {
		/* the client lives as long as its file */
		fr.handle = r->h_client;
		allowed = E(EINVAL);
		what = "FREE of the client itself";
	} else if (is_ch) {
		/* EBUSY while a launch of it runs (or may, timed out) */
		if (o->launching || o->stale)
			allowed |= E(EBUSY);
		launches = o->launches;
		if (o->busy) {	/* another FREE of it */
			allowed |= E(ENOENT);
			racy = true;
		}
		o->busy++;
		r->freeing_ch++;
		r->ch_downs++;
		f->user_downs++;
		what = "FREE of a channel";
	} else {
		unsigned int idx = (unsigned int)(o - r->vas), children = 0, going = 0;

		for (unsigned int i = 0; i < CH_SLOTS; i++)
			if (r->ch[i].handle && r->ch[i].vas == (int)idx) {
				children++;
				going += r->ch[i].busy > 0;
			}
		/* EBUSY while it has channel handles */
		if (children || o->creating)
			allowed = E(EBUSY);
		if (going == children && (children || o->creating))
			allowed |= OK;
		racy = (allowed & OK) && (allowed & E(EBUSY));
		if (o->busy) {
			allowed |= E(ENOENT);
			racy = true;
		}
		o->busy++;
		r->freeing_vas++;
		r->vas_downs++;
		ch_ups = r->ch_ups;
		ch_downs = r->ch_downs;
		what = "FREE of a VA space";
	}
	if (o) {
		fr.handle = o->handle;
		o_epoch = o->epoch;
	}
	unlock(f);
	err = rm_ioctl(f, r, EMGPU_RM_FREE, &fr);
	lock(f);
	allowed |= file_race(r, epoch, &racy);
	if (o && (o->epoch != o_epoch || o->busy > 1)) {
		allowed |= E(ENOENT) | OK;
		racy = true;
	}
	/* a launch of the channel began meanwhile, or may run on */
	if (is_ch && !is_client && (o->launching || o->stale || o->launches != launches)) {
		if (!(allowed & E(EBUSY)))
			racy = true;
		allowed |= E(EBUSY);
	}
	/* a VA space's channels made or freed meanwhile: it may have had some, or none */
	if (!is_ch && !is_client && (r->ch_ups != ch_ups || r->ch_downs != ch_downs)) {
		allowed |= OK | E(EBUSY);
		racy = true;
	}
	unlock(f);
	{
		char note[48];

		snprintf(note, sizeof(note), "file %d %x/%x", (int)(r - f->file), fr.h_client,
			 fr.handle);
		judge_note(w, what, err, allowed, racy, note);
	}
	if (!o)
		return;
	lock(f);
	o->busy--;
	if (is_ch)
		r->freeing_ch--;
	else
		r->freeing_vas--;
	if (!err && file_quiet(r, epoch) && o->handle == fr.handle) {
		if (is_ch) {
			channel_gone(f, r, o);
			if (o->launching)
				o->launch_held = fr.handle;
		} else {
			/* nvidia-uvm's dup keeps it: the ctx stays registered */
			clear_obj(o);
		}
	}
	unlock(f);
}

/* ---- malformed calls ---- */

/* A handle this file may not use: none, random, another file's, a freed one. */
static uint32_t foreign_handle(struct worker *w, const struct rmfile *r, uint32_t freed)
{
	struct fuzz *f = w->f;
	const struct rmfile *o = &f->file[below(w, FILES)];

	switch (below(w, 5)) {
	case 0: return 0;
	case 1: return HANDLE_BASE + (uint32_t)below(w, 1u << 24);
	case 2: return freed ? freed : ~0u;
	default:
		if (o != r && o->open) {
			for (unsigned int i = 0; i < CH_SLOTS; i++)
				if (o->ch[i].handle && below(w, 2))
					return o->ch[i].handle;
			for (unsigned int i = 0; i < VAS_SLOTS; i++)
				if (o->vas[i].handle)
					return o->vas[i].handle;
			return o->h_client;
		}
		return (uint32_t)rnd(w);
	}
}

static void op_bad(struct worker *w)
{
	struct fuzz *f = w->f;
	union {
		struct emgpu_rm_gpu_info info;
		struct emgpu_rm_va_space vs;
		struct emgpu_rm_channel c;
		struct emgpu_rm_free fr;
		struct emgpu_rm_launch l;
	} a;
	unsigned long cmd;
	uint32_t allowed, h;
	const char *what;
	struct rmfile *r;
	struct obj *o = NULL;
	struct span vs;
	struct ctx *ctx = NULL;
	uint64_t epoch, o_epoch = 0, busy_events = 0, ctx_epoch = 0;
	unsigned int kind = (unsigned int)below(w, 12);
	void *arg = &a, *ro = NULL;
	bool racy = false, creating = false;
	int err;

	memset(&a, 0, sizeof(a));
	lock(f);
	r = pick_file(w, true);
	if (!r) {
		unlock(f);
		return;
	}
	epoch = r->epoch;
	h = (uint32_t)rnd(w);
	switch (kind) {
	case 0:
		cmd = EMGPU_RM_GPU_INFO;
		arg = bad_ptr(w);
		allowed = E(EFAULT);
		what = "GPU_INFO to a bad pointer";
		break;
	case 1:
		cmd = EMGPU_RM_GPU_INFO;
		arg = ro = ro_copy(&a, sizeof(a));
		allowed = E(EFAULT);
		what = "GPU_INFO to a read-only page";
		break;
	case 2:
		/* made, then freed again: its handles cannot go out */
		cmd = EMGPU_RM_VA_SPACE_CREATE;
		arg = bad_ptr(w);
		allowed = 0;	/* at the end, from the quota */
		vas_create_begins(r, &vs);
		creating = true;
		what = "VA_SPACE_CREATE to a bad pointer";
		break;
	case 3:
		cmd = EMGPU_RM_CHANNEL_CREATE;
		arg = bad_ptr(w);
		allowed = E(EFAULT);
		what = "CHANNEL_CREATE from a bad pointer";
		break;
	case 4:
		cmd = EMGPU_RM_CHANNEL_CREATE;
		o = pick_obj(w, r->vas, VAS_SLOTS, NULL, NULL);
		a.c.h_client = r->h_client;
		a.c.h_va_space = foreign_handle(w, r, 0);
		if (o && below(w, 2)) {	/* its own VA space named with another client */
			a.c.h_client = foreign_handle(w, r, 0);
			a.c.h_va_space = o->handle;
		}
		allowed = E(ENOENT);
		what = "CHANNEL_CREATE in a VA space not the file's";
		break;
	case 5:
		cmd = EMGPU_RM_FREE;
		arg = bad_ptr(w);
		allowed = E(EFAULT);
		what = "FREE from a bad pointer";
		break;
	case 6:
		cmd = EMGPU_RM_FREE;
		a.fr.h_client = r->h_client;
		a.fr.handle = foreign_handle(w, r, 0);
		o = pick_obj(w, r->ch, CH_SLOTS, NULL, NULL);
		if (o && below(w, 2)) {
			a.fr.h_client = foreign_handle(w, r, 0);
			a.fr.handle = o->handle;
		}
		allowed = E(ENOENT);
		if (a.fr.h_client == r->h_client && a.fr.handle == r->h_client)
			allowed = E(EINVAL);
		what = "FREE of a handle not the file's";
		break;
	case 7:
		cmd = EMGPU_RM_LAUNCH;
		arg = bad_ptr(w);
		allowed = E(EFAULT);
		what = "LAUNCH from a bad pointer";
		break;
	case 8:
		/* kernel 0 is refused before the channel is looked at */
		cmd = EMGPU_RM_LAUNCH;
		a.l.h_client = r->h_client;
		a.l.h_channel = below(w, 2) ? foreign_handle(w, r, 0) : h;
		allowed = E(EINVAL);
		what = "LAUNCH of kernel 0";
		break;
	case 9:
		cmd = EMGPU_RM_LAUNCH;
		a.l.h_client = r->h_client;
		a.l.h_channel = foreign_handle(w, r, 0);
		o = pick_obj(w, r->ch, CH_SLOTS, NULL, NULL);
		if (o && below(w, 2)) {
			a.l.h_client = foreign_handle(w, r, 0);
			a.l.h_channel = o->handle;
		}
		a.l.kernel = EMBER_KERNEL_STREAM;
		a.l.args[0] = 0x200000;
		a.l.args[1] = 4096;
		allowed = E(ENOENT);
		what = "LAUNCH on a channel not the file's";
		break;
	case 10: {
		/* the (out) fields and timeout do not matter: unknown kernels fail in any case */
		static const uint32_t kernels[] = { EMBER_KERNEL_MAX, 16, 200, 0x7fff, ~0u };

		cmd = EMGPU_RM_LAUNCH;
		o = pick_obj(w, r->ch, CH_SLOTS, NULL, NULL);
		if (!o) {
			unlock(f);
			return;
		}
		a.l.h_client = r->h_client;
		a.l.h_channel = o->handle;
		a.l.kernel = kernels[below(w, 5)];
		a.l.status = (uint32_t)rnd(w);
		a.l.result = rnd(w);
		a.l.timeout_ms = (uint32_t)below(w, 100);
		/*
		 * no directory yet: EINVAL; the device refuses the kernel: EINVAL;
		 * a channel nvidia-uvm stopped: ECANCELED; a launch that timed
		 * out may still run: EBUSY
		 */
		allowed = E(EINVAL);
		if (o->stopped)
			allowed |= E(ECANCELED);
		if (engine_may_be_held(f))
			allowed |= E(EBUSY);
		if (o->busy) {
			allowed |= E(ENOENT) | E(ECANCELED);
			racy = true;
		}
		o_epoch = o->epoch;
		busy_events = f->busy_events;
		/* the ctx that retains it may stop it */
		ctx = o->ctx >= 0 ? &f->ctx[o->ctx] : NULL;
		if (ctx && ctx->busy)
			allowed |= E(ECANCELED);
		ctx_epoch = ctx ? ctx->epoch : 0;
		what = "LAUNCH of a kernel the device does not have";
		break;
	}
	default:
		cmd = EMGPU_RM_FREE;
		a.fr.h_client = foreign_handle(w, r, 0);
		a.fr.handle = a.fr.h_client;
		allowed = E(ENOENT);
		what = "FREE of another client";
		if (a.fr.h_client == r->h_client)
			allowed = E(EINVAL);
		break;
	}
	unlock(f);
	err = rm_ioctl(f, r, cmd, arg);
	lock(f);
	note_locked(f, "t%u file %d: %s with %x %x", w->id, (int)(r - f->file), what,
		    kind >= 8 && kind <= 10 ? a.l.h_client : 0, kind >= 8 && kind <= 10 ? a.l.h_channel : 0);
	allowed |= file_race(r, epoch, &racy);
	if (o && kind == 10 && (o->epoch != o_epoch || o->busy)) {
		/* freed or stopped meanwhile, or its launch timed out */
		allowed |= E(ENOENT) | E(ECANCELED) | E(EBUSY);
		racy = true;
	}
	if (kind == 10 && ctx && (ctx->busy || ctx->epoch != ctx_epoch)) {
		allowed |= E(ECANCELED);
		racy = true;
	}
	if (kind == 10 && (engine_may_be_held(f) || f->busy_events != busy_events))
		allowed |= E(EBUSY);
	if (creating) {
		span_end(&vs, r->vas_ups, r->vas_downs);
		allowed |= vas_quota(&vs, E(EFAULT), &racy);
		r->creating_vas--;
		/* the next open's quota */
		if (!file_quiet(r, epoch))
			allowed |= E(EDQUOT) | E(EFAULT);
	}
	unlock(f);
	if (ro)
		munmap(ro, 4096);
	judge(w, what, err, allowed, racy);
}

/* Whether cmd is one of /dev/emgpu-rm's commands, size and direction included. */
static bool known_command(unsigned long cmd)
{
	return cmd == EMGPU_RM_GPU_INFO || cmd == EMGPU_RM_VA_SPACE_CREATE ||
	       cmd == EMGPU_RM_CHANNEL_CREATE || cmd == EMGPU_RM_FREE || cmd == EMGPU_RM_LAUNCH;
}

static void op_raw(struct worker *w)
{
	struct fuzz *f = w->f;
	uint8_t buf[512];
	unsigned long cmd;
	struct rmfile *r;
	uint32_t allowed;
	uint64_t epoch;
	bool racy = false;
	void *arg = buf;
	int err;

	for (size_t i = 0; i < sizeof(buf); i += 8) {
		uint64_t x = rnd(w);

		memcpy(buf + i, &x, 8);
	}
	switch (below(w, 5)) {
	case 0:	/* a number no command has */
		cmd = _IOC(below(w, 4), EMGPU_RM_IOCTL_MAGIC, 5 + below(w, 251), below(w, 512));
		break;
	case 1:	/* a command's number with another size or direction */
		cmd = _IOC(below(w, 4), EMGPU_RM_IOCTL_MAGIC, below(w, 5), below(w, 512));
		break;
	case 2:	/* another driver's magic */
		cmd = _IOC(below(w, 4), below(w, 256), below(w, 256), below(w, 512));
		break;
	default: /* a command with random bytes: handles no file has (VA spaces aside: they count) */
		cmd = (unsigned long[]){ EMGPU_RM_GPU_INFO, EMGPU_RM_CHANNEL_CREATE, EMGPU_RM_FREE,
					 EMGPU_RM_LAUNCH }[below(w, 4)];
		break;
	}
	if (cmd == EMGPU_RM_VA_SPACE_CREATE)
		return;
	if (!known_command(cmd) && below(w, 4) == 0)
		arg = bad_ptr(w);	/* the number is refused before any copy */
	if (cmd == EMGPU_RM_GPU_INFO)
		allowed = OK;
	else if (cmd == EMGPU_RM_LAUNCH && !((struct emgpu_rm_launch *)buf)->kernel)
		allowed = E(EINVAL);
	else if (known_command(cmd))
		allowed = E(ENOENT);
	else
		allowed = E(ENOTTY);
	lock(f);
	r = pick_file(w, true);
	epoch = r ? r->epoch : 0;
	/* a random client handle that is this file's: FREE of it is EINVAL, ... */
	if (r && known_command(cmd) && cmd != EMGPU_RM_GPU_INFO &&
	    ((const uint32_t *)buf)[0] == r->h_client) {
		unlock(f);
		return;
	}
	unlock(f);
	if (!r)
		return;
	err = rm_ioctl(f, r, cmd, arg);
	lock(f);
	allowed |= file_race(r, epoch, &racy);
	unlock(f);
	judge(w, known_command(cmd) ? "a command with random bytes" : "an unknown ioctl number", err,
	      allowed, racy);
}

/* ---- nvidia-uvm VA spaces ---- */

static struct ctx *pick_ctx(struct worker *w, bool open, int registered)
{
	unsigned int i, start = below(w, CTXS);

	for (i = 0; i < CTXS; i++) {
		struct ctx *c = &w->f->ctx[(start + i) % CTXS];

		if (c->open == open && !c->busy &&
		    (registered < 0 || c->registered == (registered > 0)))
			return c;
	}
	return NULL;
}

static uint32_t range_word(uint64_t seed, uint64_t i)
{
	return (uint32_t)gm_mix64(seed + i);
}

/*
 * Opens ctx c as libcuda does (busy held): INITIALIZE, MM_INITIALIZE on a
 * second descriptor, REGISTER_GPU, a managed range the CPU fills.
 */
static void ctx_open(struct worker *w, struct ctx *c)
{
	struct fuzz *f = w->f;
	UVM_INITIALIZE_PARAMS init = { 0 };
	UVM_MM_INITIALIZE_PARAMS mm = { 0 };
	UVM_REGISTER_GPU_PARAMS reg = { 0 };
	NV_STATUS status;
	uint64_t seed = rnd(w);
	uint32_t *buf;
	int tmp, err;

	atomic_fetch_add(&f->calls, 2);
	tmp = open("/dev/nvidia-uvm", O_RDWR | O_CLOEXEC);
	if (tmp < 0 || dup3(tmp, c->fd, O_CLOEXEC) < 0) {
		problem(f, "open /dev/nvidia-uvm: %s", strerror(errno));
		return;
	}
	close(tmp);
	tmp = open("/dev/nvidia-uvm", O_RDWR | O_CLOEXEC);
	if (tmp < 0 || dup3(tmp, c->mmfd, O_CLOEXEC) < 0) {
		problem(f, "open /dev/nvidia-uvm: %s", strerror(errno));
		return;
	}
	close(tmp);
	err = uvm_ioctl(f, c, c->fd, UVM_INITIALIZE, &init, &status);
	judge_uvm(w, "UVM_INITIALIZE", err, init.rmStatus, NV_OK, 0, 0, false);
	mm.uvmFd = c->fd;
	err = uvm_ioctl(f, c, c->mmfd, UVM_MM_INITIALIZE, &mm, &status);
	judge_uvm(w, "UVM_MM_INITIALIZE", err, mm.rmStatus, NV_OK, NV_WARN_NOTHING_TO_DO, 0, false);
	memcpy(reg.gpu_uuid.uuid, f->info0.uuid, 16);
	reg.rmCtrlFd = -1;
	err = uvm_ioctl(f, c, c->fd, UVM_REGISTER_GPU, &reg, &status);
	judge_uvm(w, "UVM_REGISTER_GPU", err, reg.rmStatus, NV_OK, 0, 0, false);
	atomic_fetch_add(&f->calls, 1);
	buf = uvm_managed_map(c->fd, RANGE_BYTES);
	if (buf == MAP_FAILED) {
		problem(f, "managed range: %s", strerror(errno));
		return;
	}
	pthread_mutex_lock(&c->data_lock);
	pthread_mutex_lock(&c->map_lock);
	for (uint64_t i = 0; i < CPU_WORDS; i++)
		buf[i] = c->shadow[i] = range_word(seed, i);
	c->buf = buf;
	pthread_mutex_unlock(&c->map_lock);
	pthread_mutex_unlock(&c->data_lock);
	lock(f);
	c->open = true;
	c->registered = false;
	c->epoch++;
	unlock(f);
}

/*
 * Closes ctx c (busy held): once no nvidia-uvm call holds its files, the
 * range goes (a launch on it meanwhile is cancelled) and the files with
 * it: nvidia-uvm destroys the VA space, stopping and releasing what it
 * registered.
 */
static void ctx_close(struct fuzz *f, struct ctx *c)
{
	double t0 = now_s();

	for (;;) {
		bool idle;

		lock(f);
		idle = !c->uvm_calls;
		c->epoch++;
		f->user_downs++;	/* its retained channels go */
		unlock(f);
		if (idle)
			break;
		if (now_s() - t0 > 600) {
			problem(f, "nvidia-uvm calls on a VA space still in flight after 600 s");
			return;
		}
		usleep(1000);
	}
	pthread_mutex_lock(&f->fork_lock);
	pthread_mutex_lock(&c->map_lock);
	if (c->buf)
		munmap(c->buf, RANGE_BYTES);
	c->buf = NULL;
	pthread_mutex_unlock(&c->map_lock);
	atomic_fetch_add(&f->calls, 2);
	if (dup3(f->null_fd, c->fd, O_CLOEXEC) < 0 || dup3(f->null_fd, c->mmfd, O_CLOEXEC) < 0)
		problem(f, "dup3 over /dev/nvidia-uvm: %s", strerror(errno));
	pthread_mutex_unlock(&f->fork_lock);
	lock(f);
	note_locked(f, "close ctx %d", (int)(c - f->ctx));
	ctx_unregistered(f, c);
	c->open = false;
	unlock(f);
}

static void op_ctx_open(struct worker *w)
{
	struct fuzz *f = w->f;
	struct ctx *c;

	lock(f);
	c = pick_ctx(w, false, -1);
	if (c)
		c->busy++;
	unlock(f);
	if (!c)
		return;
	ctx_open(w, c);
	lock(f);
	c->busy--;
	unlock(f);
}

static void op_ctx_close(struct worker *w)
{
	struct fuzz *f = w->f;
	struct ctx *c;

	lock(f);
	c = pick_ctx(w, true, -1);
	if (c == &f->ctx[0])	/* keeps the GPU registered with nvidia-uvm */
		c = NULL;
	if (c)
		c->busy++;
	unlock(f);
	if (!c)
		return;
	ctx_close(f, c);
	lock(f);
	c->busy--;
	unlock(f);
}

static bool vas_unregistered(const struct obj *o, const void *unused)
{
	(void)unused;
	return o->ctx < 0 && !o->busy;
}

/* UVM_REGISTER_GPU_VASPACE of a VA space of an open file with a ctx that has none. */
static void op_reg_vas(struct worker *w)
{
	struct fuzz *f = w->f;
	UVM_REGISTER_GPU_VASPACE_PARAMS p = { 0 };
	NV_STATUS status;
	struct rmfile *r;
	struct ctx *c;
	struct obj *o = NULL;
	uint64_t epoch, o_epoch;
	bool racy = false;
	int err;

	lock(f);
	c = pick_ctx(w, true, 0);
	r = c ? pick_file(w, true) : NULL;
	o = r ? pick_obj(w, r->vas, VAS_SLOTS, vas_unregistered, NULL) : NULL;
	if (!o) {
		unlock(f);
		return;
	}
	c->busy++;
	o->busy++;
	epoch = r->epoch;
	o_epoch = o->epoch;
	memcpy(p.gpuUuid.uuid, f->info0.uuid, 16);
	p.rmCtrlFd = r->fd;
	p.hClient = r->h_client;
	p.hVaSpace = o->handle;
	unlock(f);
	err = uvm_ioctl(f, c, c->fd, UVM_REGISTER_GPU_VASPACE, &p, &status);
	lock(f);
	/* freed meanwhile (its file's close, a FREE): no such handle */
	racy = !file_quiet(r, epoch) || o->epoch != o_epoch || o->busy > 1;
	unlock(f);
	judge_uvm(w, "UVM_REGISTER_GPU_VASPACE", err, p.rmStatus, NV_OK,
		  racy ? NV_ERR_INVALID_OBJECT_HANDLE : 0, 0, racy);
	lock(f);
	if (!err && p.rmStatus == NV_OK) {
		note_locked(f, "ctx %d registered file %d vas %x", (int)(c - f->ctx),
			    (int)(r - f->file), p.hVaSpace);
		c->registered = true;
		c->reg_file = (int)(r - f->file);
		c->reg_file_epoch = epoch;
		c->reg_vas = p.hVaSpace;
		c->epoch++;
		if (o->epoch == o_epoch)
			o->ctx = (int)(c - f->ctx);
	}
	o->busy--;
	c->busy--;
	unlock(f);
}

static void op_unreg_vas(struct worker *w)
{
	struct fuzz *f = w->f;
	UVM_UNREGISTER_GPU_VASPACE_PARAMS p = { 0 };
	NV_STATUS status;
	struct ctx *c;
	int err;

	lock(f);
	c = pick_ctx(w, true, 1);
	if (c) {
		c->busy++;
		c->epoch++;
		f->user_downs++;	/* its retained channels go */
	}
	unlock(f);
	if (!c)
		return;
	memcpy(p.gpuUuid.uuid, f->info0.uuid, 16);
	err = uvm_ioctl(f, c, c->fd, UVM_UNREGISTER_GPU_VASPACE, &p, &status);
	judge_uvm(w, "UVM_UNREGISTER_GPU_VASPACE", err, p.rmStatus, NV_OK, 0, 0, false);
	lock(f);
	if (!err && p.rmStatus == NV_OK)
		ctx_unregistered(f, c);
	c->busy--;
	unlock(f);
}

/*
 * A live channel of r no call in flight changes, in the VA space ctx
 * registered (ctx >= 0), retained or not by a ctx (retained 1, 0; -1 any).
 */
static struct obj *pick_channel(struct worker *w, struct rmfile *r, int ctx, int retained)
{
	unsigned int i, start = below(w, CH_SLOTS);

	for (i = 0; i < CH_SLOTS; i++) {
		struct obj *ch = &r->ch[(start + i) % CH_SLOTS];

		if (!ch->handle || ch->pending || ch->busy)
			continue;
		if (ctx >= 0 && r->vas[ch->vas].ctx != ctx)
			continue;
		if (retained >= 0 && (ch->ctx >= 0) != (retained > 0))
			continue;
		return ch;
	}
	return NULL;
}

/* UVM_REGISTER_CHANNEL of a channel in the VA space a ctx registered. */
static void op_reg_ch(struct worker *w)
{
	struct fuzz *f = w->f;
	UVM_REGISTER_CHANNEL_PARAMS p = { 0 };
	NV_STATUS status;
	struct rmfile *r = NULL;
	struct obj *vas, *ch = NULL;
	struct ctx *c;
	uint64_t epoch, ch_epoch, c_epoch;
	bool racy;
	int err;

	lock(f);
	c = pick_ctx(w, true, 1);
	vas = c ? ctx_vas(f, c, &r) : NULL;
	if (vas && !r->busy)
		ch = pick_channel(w, r, (int)(c - f->ctx), 0);
	if (!ch) {
		unlock(f);
		return;
	}
	c->busy++;
	ch->busy++;
	ch->registering++;
	epoch = r->epoch;
	ch_epoch = ch->epoch;
	c_epoch = c->epoch;
	memcpy(p.gpuUuid.uuid, f->info0.uuid, 16);
	p.rmCtrlFd = r->fd;
	p.hClient = r->h_client;
	p.hChannel = ch->handle;
	unlock(f);
	err = uvm_ioctl(f, c, c->fd, UVM_REGISTER_CHANNEL, &p, &status);
	lock(f);
	note_locked(f, "t%u ctx %d retains file %d ch %x: 0x%x", w->id, (int)(c - f->ctx),
		    (int)(r - f->file), p.hChannel, p.rmStatus);
	racy = !file_quiet(r, epoch) || ch->epoch != ch_epoch || ch->busy > 1 ||
	       c->epoch != c_epoch;
	unlock(f);
	judge_uvm(w, "UVM_REGISTER_CHANNEL", err, p.rmStatus, NV_OK,
		  racy ? NV_ERR_INVALID_OBJECT_HANDLE : 0, 0, racy);
	lock(f);
	ch->registering--;
	if (ch->epoch != ch_epoch)
		f->maybe_held--;	/* now known: held (below) or not retained */
	if (!err && p.rmStatus == NV_OK) {
		if (ch->epoch == ch_epoch && file_quiet(r, epoch)) {
			ch->ctx = (int)(c - f->ctx);
		} else {
			/* its file closed meanwhile: held, as close_file would have made it */
			struct obj tmp = { .handle = p.hChannel, .ctx = (int)(c - f->ctx) };
			struct rmfile fake = { .h_client = p.hClient };

			channel_gone(f, &fake, &tmp);
		}
	}
	ch->busy--;
	c->busy--;
	unlock(f);
}

/* UVM_UNREGISTER_CHANNEL of a retained channel, live or held. */
static void op_unreg_ch(struct worker *w)
{
	struct fuzz *f = w->f;
	UVM_UNREGISTER_CHANNEL_PARAMS p = { 0 };
	NV_STATUS status;
	struct rmfile *r = NULL;
	struct obj *ch = NULL;
	struct held *h = NULL;
	struct ctx *c = NULL;
	int err;

	lock(f);
	if (below(w, 2)) {
		unsigned int start = below(w, HELD_MAX);

		for (unsigned int i = 0; i < HELD_MAX && !h; i++) {
			struct held *x = &f->held[(start + i) % HELD_MAX];

			if (x->used && !x->busy && !f->ctx[x->ctx].busy)
				h = x;
		}
	} else {
		r = pick_file(w, true);
		ch = r ? pick_channel(w, r, -1, 1) : NULL;
	}
	if (h) {
		c = &f->ctx[h->ctx];
		h->busy++;
		p.hClient = h->h_client;
		p.hChannel = h->h_channel;
	} else if (ch && !f->ctx[ch->ctx].busy) {
		c = &f->ctx[ch->ctx];
		ch->busy++;
		p.hClient = r->h_client;
		p.hChannel = ch->handle;
	}
	if (!c) {
		unlock(f);
		return;
	}
	c->busy++;
	c->epoch++;
	f->user_downs++;
	unlock(f);
	memcpy(p.gpuUuid.uuid, f->info0.uuid, 16);
	err = uvm_ioctl(f, c, c->fd, UVM_UNREGISTER_CHANNEL, &p, &status);
	lock(f);
	note_locked(f, "t%u ctx %d releases %x/%x: 0x%x", w->id, (int)(c - f->ctx), p.hClient,
		    p.hChannel, p.rmStatus);
	unlock(f);
	judge_uvm(w, "UVM_UNREGISTER_CHANNEL", err, p.rmStatus, NV_OK, 0, 0, false);
	lock(f);
	if (h) {
		h->busy--;
		if (!err && p.rmStatus == NV_OK)
			memset(h, 0, sizeof(*h));
	} else {
		ch->busy--;
		if (!err && p.rmStatus == NV_OK && ch->handle == p.hChannel) {
			ch->ctx = -1;
			ch->stopped = true;
		}
		/* its file closed meanwhile: the held entry goes instead */
		if (!err && p.rmStatus == NV_OK && ch->handle != p.hChannel)
			for (unsigned int i = 0; i < HELD_MAX; i++)
				if (f->held[i].used && f->held[i].h_channel == p.hChannel)
					memset(&f->held[i], 0, sizeof(f->held[i]));
	}
	c->busy--;
	unlock(f);
}

/*
 * Registrations nvidia-uvm must refuse because of what the stand-in
 * answers: a VA space handle that is none (another object, another
 * file's, freed), another client's, one already registered elsewhere;
 * a channel in a VA space not the ctx's, one already retained there;
 * an unregistration of one never retained.
 */
static void op_reg_bad(struct worker *w)
{
	struct fuzz *f = w->f;
	UVM_REGISTER_GPU_VASPACE_PARAMS rv = { 0 };
	UVM_REGISTER_CHANNEL_PARAMS rc = { 0 };
	UVM_UNREGISTER_CHANNEL_PARAMS uc = { 0 };
	NV_STATUS status, want, *st;
	unsigned int kind = (unsigned int)below(w, 5);
	struct rmfile *r, *rr = NULL;
	struct obj *o = NULL, *vas;
	struct ctx *c, *d = NULL;
	unsigned long cmd;
	const char *what;
	uint64_t epoch, c_epoch, o_epoch = 0;
	void *arg;
	bool racy;
	int err;

	lock(f);
	r = pick_file(w, true);
	c = r ? pick_ctx(w, true, kind <= 1 ? 0 : 1) : NULL;
	if (!c) {
		unlock(f);
		return;
	}
	memcpy(rv.gpuUuid.uuid, f->info0.uuid, 16);
	memcpy(rc.gpuUuid.uuid, f->info0.uuid, 16);
	memcpy(uc.gpuUuid.uuid, f->info0.uuid, 16);
	rv.rmCtrlFd = rc.rmCtrlFd = r->fd;
	rv.hClient = rc.hClient = uc.hClient = r->h_client;
	switch (kind) {
	case 0:	/* no VA space of this file's, or another client's */
		o = pick_obj(w, r->vas, VAS_SLOTS, NULL, NULL);
		rv.hVaSpace = foreign_handle(w, r, 0);
		if (o && below(w, 2)) {
			rv.hClient = foreign_handle(w, r, 0);
			rv.hVaSpace = o->handle;
		}
		o = NULL;
		cmd = UVM_REGISTER_GPU_VASPACE;
		arg = &rv;
		st = &rv.rmStatus;
		want = NV_ERR_INVALID_OBJECT_HANDLE;
		what = "UVM_REGISTER_GPU_VASPACE of a handle not the client's";
		break;
	case 1:	/* a VA space another ctx registered: its directory is set once */
		for (unsigned int i = 0; i < VAS_SLOTS && !o; i++)
			if (r->vas[i].handle && r->vas[i].ctx >= 0 && !r->vas[i].busy &&
			    !f->ctx[r->vas[i].ctx].busy)
				o = &r->vas[i];
		if (!o) {
			unlock(f);
			return;
		}
		d = &f->ctx[o->ctx];	/* kept registered meanwhile */
		d->busy++;
		rv.hVaSpace = o->handle;
		cmd = UVM_REGISTER_GPU_VASPACE;
		arg = &rv;
		st = &rv.rmStatus;
		want = NV_ERR_INVALID_STATE;
		what = "UVM_REGISTER_GPU_VASPACE of a VA space registered elsewhere";
		break;
	case 2:	/* a channel whose VA space is not this ctx's */
		vas = ctx_vas(f, c, &rr);
		for (unsigned int i = 0; i < CH_SLOTS && !o; i++)
			if (r->ch[i].handle && !r->ch[i].busy &&
			    (!vas || rr != r || &r->vas[r->ch[i].vas] != vas))
				o = &r->ch[i];
		if (!o) {
			unlock(f);
			return;
		}
		rc.hChannel = o->handle;
		cmd = UVM_REGISTER_CHANNEL;
		arg = &rc;
		st = &rc.rmStatus;
		want = NV_ERR_INVALID_OBJECT_HANDLE;
		what = "UVM_REGISTER_CHANNEL of a channel in another VA space";
		break;
	case 3:	/* one this ctx retains already */
		o = pick_channel(w, r, (int)(c - f->ctx), 1);
		if (!o || o->ctx != (int)(c - f->ctx)) {
			unlock(f);
			return;
		}
		rc.hChannel = o->handle;
		cmd = UVM_REGISTER_CHANNEL;
		arg = &rc;
		st = &rc.rmStatus;
		want = NV_ERR_INVALID_CHANNEL;
		what = "UVM_REGISTER_CHANNEL of a channel retained already";
		break;
	default: /* unregistration of one this ctx does not retain */
		o = pick_channel(w, r, -1, 0);
		uc.hChannel = o ? o->handle : foreign_handle(w, r, 0);
		cmd = UVM_UNREGISTER_CHANNEL;
		arg = &uc;
		st = &uc.rmStatus;
		want = NV_ERR_INVALID_CHANNEL;
		what = "UVM_UNREGISTER_CHANNEL of a channel not retained";
		break;
	}
	if (o) {
		o->busy++;
		o_epoch = o->epoch;
	}
	c->busy++;
	epoch = r->epoch;
	c_epoch = c->epoch;
	unlock(f);
	err = uvm_ioctl(f, c, c->fd, cmd, arg, &status);
	lock(f);
	/* a FREE of o (op_free does not wait for busy) may have ended meanwhile */
	racy = !file_quiet(r, epoch) || c->epoch != c_epoch ||
	       (o && (o->busy > 1 || o->epoch != o_epoch));
	unlock(f);
	judge_uvm(w, what, err, *st, want, racy ? NV_ERR_INVALID_OBJECT_HANDLE : 0, 0, racy);
	lock(f);
	if (o)
		o->busy--;
	if (d)
		d->busy--;
	c->busy--;
	unlock(f);
}

/* ---- launches ---- */

/* STREAM's result over @n words, @passes times: every word as each pass read it. */
static uint64_t stream_sum(const uint32_t *words, uint64_t n, uint32_t passes)
{
	uint64_t sum = 0;

	for (uint32_t p = 0; p < passes; p++)
		for (uint64_t i = 0; i < n; i++)
			sum += (uint32_t)(words[i] + p);
	return sum;
}

/*
 * A launch begun as number @seq reached the device: the engine was free,
 * so a launch that timed out before it began has ended. LOCKING: f->lock.
 */
static void launch_reached(struct fuzz *f, uint64_t seq)
{
	for (unsigned int o = 0; o < STALE_OWNERS; o++)
		if (f->stale[o].on && seq > f->stale[o].seq)
			f->stale[o].on = false;
	if (!f->stale[STALE_OTHERS].on)
		f->stale_uids = 0;
}

/* A launch on @owner's channel timed out: it may run on. LOCKING: f->lock. */
static void launch_timed_out(struct fuzz *f, struct obj *ch, enum stale_owner owner)
{
	f->stale[owner].on = true;
	f->stale[owner].seq = f->launch_seq;
	f->stale[owner].events++;
	f->busy_events++;
	if (ch)
		ch->stale = true;
	atomic_fetch_add(&f->launches_timed_out, 1);
}

/*
 * Whether a launch's outcome proves that it rang the device (the engine
 * was free then): done, or ended by nvidia-uvm's cancel (EFAULT). Not
 * ECANCELED: a channel stopped before the launch is refused before the
 * device is rung, one stopped under it ends the launch there, and the two
 * look alike.
 */
static bool launch_rang(int err)
{
	return !err || err == EFAULT;
}

/* What a channel's launch may meet from calls that overlapped it. LOCKING: f->lock. */
static uint32_t launch_race(struct fuzz *f, const struct rmfile *r, uint64_t epoch,
			    const struct obj *ch, uint64_t ch_epoch, const struct ctx *c,
			    uint64_t c_epoch, bool busy_before, uint64_t busy_events, bool *racy)
{
	uint32_t allowed = file_race(r, epoch, racy);

	/* a launch that timed out, in this process or a user's: EBUSY */
	if (busy_before || engine_may_be_held(f) || f->busy_events != busy_events)
		allowed |= E(EBUSY);
	/* freed (ENOENT) or stopped by nvidia-uvm, before or under it (ECANCELED) */
	if (ch->epoch != ch_epoch || ch->busy) {
		allowed |= E(ENOENT) | E(ECANCELED);
		*racy = true;
	}
	/*
	 * the ctx unregistered or closed: no directory (EINVAL), its channels
	 * stopped (ECANCELED), the range gone (EFAULT: nvidia-uvm cancels)
	 */
	if (c && c->epoch != c_epoch) {
		allowed |= E(EINVAL) | E(ECANCELED) | E(EFAULT);
		*racy = true;
	}
	return allowed;
}

/* A launch of channel slot @ch returned. LOCKING: f->lock. */
static void launch_done(struct obj *ch)
{
	if (!--ch->launching)
		ch->launch_held = 0;
}

static void count_launch(struct fuzz *f, int err)
{
	if (!err)
		atomic_fetch_add(&f->launches_ok, 1);
	else if (err != ETIMEDOUT)
		atomic_fetch_add(&f->launches_failed, 1);
}

static bool retained_running(const struct obj *o, const void *arg)
{
	return o->ctx == *(const int *)arg && !o->stopped && !o->busy;
}

/*
 * A STREAM launch over part of a ctx's CPU half, on a channel it retains:
 * done, every word + passes, the result the sum of the words read.
 */
static void op_launch(struct worker *w)
{
	struct fuzz *f = w->f;
	struct emgpu_rm_launch l = { 0 };
	struct rmfile *r = NULL;
	struct obj *ch = NULL;
	struct ctx *c;
	uint64_t epoch, ch_epoch, c_epoch, seq, expect = 0, off, words, bad = 0;
	uint32_t allowed, passes = 1 + (uint32_t)below(w, 3);
	bool racy = false, busy_before;
	uint64_t busy_events;
	int ci, err;

	lock(f);
	c = pick_ctx(w, true, 1);
	ci = c ? (int)(c - f->ctx) : -1;
	if (c && ctx_vas(f, c, &r) && !r->busy)
		ch = pick_obj(w, r->ch, CH_SLOTS, retained_running, &ci);
	if (!ch) {
		unlock(f);
		return;
	}
	ch->launching++;
	ch->launches++;
	epoch = r->epoch;
	ch_epoch = ch->epoch;
	c_epoch = c->epoch;
	seq = ++f->launch_seq;
	busy_before = engine_may_be_held(f);
	busy_events = f->busy_events;
	l.h_client = r->h_client;
	l.h_channel = ch->handle;
	unlock(f);

	words = 32 * (1 + below(w, LAUNCH_MAX_BYTES / 128));
	off = 32 * below(w, (CPU_WORDS - words) / 32 + 1);
	pthread_mutex_lock(&c->data_lock);
	pthread_mutex_lock(&c->map_lock);
	if (c->buf) {
		expect = stream_sum(c->shadow + off, words, passes);
		l.args[0] = (uintptr_t)(c->buf + off);
	}
	pthread_mutex_unlock(&c->map_lock);
	if (l.args[0]) {
		l.kernel = EMBER_KERNEL_STREAM;
		l.warps = below(w, 2) ? 0 : 1 + (uint32_t)below(w, f->info0.num_sms *
								   f->info0.warps_per_sm);
		l.seed = rnd(w);
		l.args[1] = words * 4;
		l.args[2] = passes;
		l.timeout_ms = LAUNCH_TIMEOUT_MS;
		err = rm_ioctl(f, r, EMGPU_RM_LAUNCH, &l);
		lock(f);
		allowed = OK | launch_race(f, r, epoch, ch, ch_epoch, c, c_epoch, busy_before, busy_events,
					   &racy);
		if (launch_rang(err))
			launch_reached(f, seq);
		unlock(f);
		count_launch(f, err);
		if (err == ETIMEDOUT) {
			lock(f);
			f->hangs++;
			launch_timed_out(f, NULL, STALE_OURS);
			problem_locked(f, "a launch on a retained channel did not end in %u ms",
				       LAUNCH_TIMEOUT_MS);
			unlock(f);
		} else {
			char note[64];

			snprintf(note, sizeof(note), "file %d ch %x ctx %d", (int)(r - f->file),
				 l.h_channel, ci);
			judge_note(w, "LAUNCH of STREAM on a retained channel", err, allowed, racy, note);
		}
		if (!err && (l.status != EMGPU_LAUNCH_DONE || l.result != expect))
			problem(f, "LAUNCH done: status %u, result %llu, expected %llu", l.status,
				(unsigned long long)l.result, (unsigned long long)expect);
		/* the words: + passes when done, part of it when it ended early */
		pthread_mutex_lock(&c->map_lock);
		for (uint64_t i = off; c->buf && i < off + words; i++) {
			uint32_t got = c->buf[i], d = got - c->shadow[i];

			if (err ? (err == ECANCELED || err == EFAULT ? d > passes : d != 0) :
				  d != passes)
				bad++;
			c->shadow[i] = got;
		}
		pthread_mutex_unlock(&c->map_lock);
		if (bad) {
			lock(f);
			f->mismatches += bad;
			problem_locked(f, "LAUNCH of STREAM (%s, %u passes): %llu of %llu words not as it leaves them",
				       errname(err), passes, (unsigned long long)bad,
				       (unsigned long long)words);
			unlock(f);
		}
	}
	pthread_mutex_unlock(&c->data_lock);
	lock(f);
	launch_done(ch);
	unlock(f);
}

/*
 * A long launch over a ctx's scratch half on any channel of its VA space
 * (retained or not: unretained, its faults cannot be serviced) with a
 * timeout of a few ms, then its file closed: the channel freed while the
 * launch still runs, its hardware channel held until the launch ended.
 */
static void op_launch_stale(struct worker *w)
{
	struct fuzz *f = w->f;
	struct emgpu_rm_launch l = { 0 };
	struct rmfile *r = NULL;
	struct obj *ch = NULL;
	struct ctx *c;
	uint64_t epoch, ch_epoch, c_epoch, seq;
	uint32_t allowed;
	bool racy = false, busy_before, close_it = false, intr = false;
	uint64_t busy_events;
	int err;

	lock(f);
	c = pick_ctx(w, true, 1);
	if (c && ctx_vas(f, c, &r) && !r->busy)
		ch = pick_channel(w, r, (int)(c - f->ctx), -1);
	if (!ch) {
		unlock(f);
		return;
	}
	ch->launching++;
	ch->launches++;
	epoch = r->epoch;
	ch_epoch = ch->epoch;
	c_epoch = c->epoch;
	seq = ++f->launch_seq;
	busy_before = engine_may_be_held(f);
	busy_events = f->busy_events;
	allowed = OK | E(ETIMEDOUT);
	if (ch->stopped)
		allowed = E(ECANCELED);
	l.h_client = r->h_client;
	l.h_channel = ch->handle;
	unlock(f);
	pthread_mutex_lock(&c->map_lock);
	if (c->buf)
		l.args[0] = (uintptr_t)c->buf + CPU_BYTES;
	pthread_mutex_unlock(&c->map_lock);
	if (l.args[0]) {
		l.kernel = EMBER_KERNEL_STREAM;
		l.args[1] = (RANGE_BYTES - CPU_BYTES) >> below(w, 4);
		l.args[2] = 8 + (uint32_t)below(w, 57);
		l.timeout_ms = 1 + (uint32_t)below(w, 20);
		err = launch_ioctl(w, r, ch, ch_epoch, seq, &l, &intr);
		lock(f);
		allowed |= launch_race(f, r, epoch, ch, ch_epoch, c, c_epoch, busy_before, busy_events,
					   &racy);
		if (intr)
			allowed |= E(EINTR);	/* it runs on, as one timed out */
		if (launch_rang(err))
			launch_reached(f, seq);
		/* its file goes now, unless another call is closing or opening it */
		close_it = r->open && !r->busy && r->epoch == epoch;
		if (close_it)
			r->busy++;
		unlock(f);
		count_launch(f, err);
		{
			char note[64];

			snprintf(note, sizeof(note), "file %d ch %x ctx %d", (int)(r - f->file),
				 l.h_channel, (int)(c - f->ctx));
			judge_note(w, "LAUNCH with a timeout of ms", err, allowed, racy, note);
		}
		if (close_it) {
			close_file(f, r);
			lock(f);
			r->busy--;
			unlock(f);
		}
	}
	lock(f);
	launch_done(ch);
	unlock(f);
}

/*
 * Launches the device or nvidia-uvm must refuse: arguments that wrap,
 * are unaligned, empty or too large, more warps than the device has
 * (EINVAL: the device's BAD_DESCRIPTOR); a VA no range holds (EFAULT:
 * nvidia-uvm cancels); a launch whose outcome cannot be copied out (a
 * read-only page: EFAULT, after it ran over the scratch half).
 */
static void op_launch_bad(struct worker *w)
{
	struct fuzz *f = w->f;
	struct emgpu_rm_launch l = { 0 };
	struct rmfile *r = NULL;
	struct obj *ch = NULL;
	struct ctx *c;
	unsigned int kind = (unsigned int)below(w, 8);
	uint64_t epoch, ch_epoch, c_epoch, seq, max_warps;
	uint32_t allowed;
	const char *what;
	bool racy = false, busy_before;
	uint64_t busy_events;
	void *arg = &l;
	int ci, err;

	lock(f);
	c = pick_ctx(w, true, 1);
	ci = c ? (int)(c - f->ctx) : -1;
	/* a fault of an unretained channel cannot be serviced: retained ones for those */
	if (c && ctx_vas(f, c, &r) && !r->busy)
		ch = pick_obj(w, r->ch, CH_SLOTS, retained_running, &ci);
	if (!ch) {
		unlock(f);
		return;
	}
	ch->launching++;
	ch->launches++;
	epoch = r->epoch;
	ch_epoch = ch->epoch;
	c_epoch = c->epoch;
	seq = ++f->launch_seq;
	busy_before = engine_may_be_held(f);
	busy_events = f->busy_events;
	l.h_client = r->h_client;
	l.h_channel = ch->handle;
	unlock(f);
	max_warps = (uint64_t)f->info0.num_sms * f->info0.warps_per_sm;
	l.kernel = EMBER_KERNEL_STREAM;
	l.args[0] = 0x200000;
	l.args[1] = 4096;
	l.args[2] = 1;
	l.timeout_ms = LAUNCH_TIMEOUT_MS;
	allowed = E(EINVAL);
	switch (kind) {
	case 0: l.args[0] = ~0ull - 4095; l.args[1] = 8192; what = "LAUNCH over a span that wraps"; break;
	case 1: l.args[0] = 0x200000 + 4 * (1 + below(w, 31)); what = "LAUNCH at an unaligned VA"; break;
	case 2: l.args[1] = 0; what = "LAUNCH over 0 bytes"; break;
	case 3: l.args[1] = 1ull << (48 + below(w, 16)); what = "LAUNCH over more than the VA space"; break;
	case 4: l.args[2] = 1000001 + below(w, 1u << 30); what = "LAUNCH of too many passes"; break;
	case 5: l.warps = (uint32_t)(max_warps + 1 + below(w, 1u << 20)); what = "LAUNCH of more warps than the device has"; break;
	case 6:
		l.args[1] = 128 * (1 + below(w, 32));
		allowed = E(EFAULT);
		what = "LAUNCH at a VA no range holds";
		break;
	default:
		pthread_mutex_lock(&c->map_lock);
		l.args[0] = c->buf ? (uintptr_t)c->buf + CPU_BYTES : 0;
		pthread_mutex_unlock(&c->map_lock);
		l.args[1] = 128 * (1 + below(w, 64));
		arg = l.args[0] ? ro_copy(&l, sizeof(l)) : NULL;
		allowed = E(EFAULT);
		what = "LAUNCH whose outcome goes to a read-only page";
		break;
	}
	if (arg) {
		bool intr;

		err = launch_ioctl(w, r, ch, ch_epoch, seq, arg, &intr);
		lock(f);
		allowed |= launch_race(f, r, epoch, ch, ch_epoch, c, c_epoch, busy_before, busy_events,
					   &racy);
		if (intr)
			allowed |= E(EINTR);	/* it runs on, as one timed out */
		/*
		 * the device's refusal of the descriptor, unless nvidia-uvm let
		 * the VA space go meanwhile (no directory: refused before)
		 */
		if (launch_rang(err) || (err == EINVAL && kind < 6 && c->epoch == c_epoch))
			launch_reached(f, seq);
		unlock(f);
		count_launch(f, err);
		if (err == ETIMEDOUT) {
			lock(f);
			f->hangs++;
			launch_timed_out(f, NULL, STALE_OURS);
			problem_locked(f, "%s did not end in %u ms", what, LAUNCH_TIMEOUT_MS);
			unlock(f);
		} else {
			judge(w, what, err, allowed, racy);
		}
		if (arg != &l)
			munmap(arg, 4096);
	}
	lock(f);
	launch_done(ch);
	unlock(f);
}

/*
 * A signal to another worker in a launch that may be interrupted
 * (op_launch_stale's, op_launch_bad's): its wait ends EINTR, the launch
 * running on as one that timed out.
 */
static void op_signal(struct worker *w)
{
	struct fuzz *f = w->f;
	unsigned int start = (unsigned int)below(w, f->threads);

	for (unsigned int i = 0; i < f->threads; i++) {
		struct worker *t = &f->workers[(start + i) % f->threads];

		if (t != w && atomic_load(&t->in_launch)) {
			pthread_kill(t->thread, SIGUSR1);
			return;
		}
	}
}

/* ---- the CPU's half of the ranges ---- */

static struct ctx *lock_range(struct worker *w)
{
	struct fuzz *f = w->f;
	struct ctx *c;

	lock(f);
	c = pick_ctx(w, true, -1);
	unlock(f);
	if (!c)
		return NULL;
	pthread_mutex_lock(&c->data_lock);
	pthread_mutex_lock(&c->map_lock);
	if (c->buf)
		return c;
	pthread_mutex_unlock(&c->map_lock);
	pthread_mutex_unlock(&c->data_lock);
	return NULL;
}

static void unlock_range(struct ctx *c)
{
	pthread_mutex_unlock(&c->map_lock);
	pthread_mutex_unlock(&c->data_lock);
}

static void op_fill(struct worker *w)
{
	struct ctx *c = lock_range(w);
	uint64_t n, off, seed = rnd(w);

	if (!c)
		return;
	n = 1 + below(w, 4096);
	off = below(w, CPU_WORDS - n + 1);
	for (uint64_t i = off; i < off + n; i++)
		c->buf[i] = c->shadow[i] = range_word(seed, i);
	unlock_range(c);
}

/* Whether [off, off + n) of ctx c's CPU half reads as its shadow (locked). */
static bool check_words(struct fuzz *f, struct ctx *c, uint64_t off, uint64_t n, const char *when)
{
	for (uint64_t i = off; i < off + n; i++)
		if (c->buf[i] != c->shadow[i]) {
			lock(f);
			f->mismatches++;
			problem_locked(f, "%s: word %llu of VA space %d reads 0x%x, shadow 0x%x", when,
				       (unsigned long long)i, (int)(c - f->ctx), c->buf[i],
				       c->shadow[i]);
			unlock(f);
			return false;
		}
	return true;
}

static void op_check(struct worker *w)
{
	struct ctx *c = lock_range(w);

	if (!c)
		return;
	if (w->steps % FULL_CHECK_EVERY == 0) {
		check_words(w->f, c, 0, CPU_WORDS, "a whole range");
	} else {
		for (unsigned int i = 0; i < SAMPLE_WORDS; i++)
			if (!check_words(w->f, c, below(w, CPU_WORDS), 1, "a sample"))
				break;
	}
	unlock_range(c);
}

/* ---- other processes: a forked child, unprivileged users ---- */

/* What a child process did, step by step, for its parent to judge. */
#define CHILD_STEPS	40

struct child_step {
	const char *what;	/* a literal: the same address in the parent */
	int err;
	NV_STATUS status;
	int want_err;
	NV_STATUS want_status;	/* when err is 0 */
};

struct child_report {
	unsigned int n;
	struct child_step s[CHILD_STEPS];
	int launch_err;		/* user_range: its launch's errno, -1 none */
	uint64_t mismatches;
	char why[160];
};

static void child_step(struct child_report *rep, const char *what, int err, NV_STATUS status,
		       int want_err, NV_STATUS want_status)
{
	if (rep->n < CHILD_STEPS)
		rep->s[rep->n++] = (struct child_step){ what, err, status, want_err, want_status };
}

static int child_uvm(struct child_report *rep, const char *what, int fd, unsigned long cmd,
		     void *p, const NV_STATUS *status, NV_STATUS want, NV_STATUS also)
{
	int err = ioctl(fd, cmd, p) ? errno : 0;

	child_step(rep, what, err, *status, 0, err || *status != also || !also ? want : also);
	return err || (*status != want && (!also || *status != also));
}

/* Judges a child's steps; the calls count as this process's. */
static void judge_child(struct worker *w, const struct child_report *rep, bool died)
{
	atomic_fetch_add(&w->f->calls, rep->n);
	atomic_fetch_add(&w->f->children, 1);
	if (died)
		problem(w->f, "a child process died: %s", rep->why[0] ? rep->why : "no report");
	for (unsigned int i = 0; i < rep->n; i++) {
		const struct child_step *s = &rep->s[i];

		if (s->want_err || s->err)
			judge(w, s->what, s->err, 1u << outcome_of(s->want_err), false);
		else
			judge_uvm(w, s->what, 0, s->status, s->want_status, 0, 0, false);
	}
}

/* In a child: becomes @uid in the emgpu-rm group only (@in_group) or in none. */
static int become(uid_t uid, bool in_group)
{
	gid_t g = RM_GROUP;

	return setgroups(in_group, &g) || setgid(in_group ? RM_GROUP : uid) || setuid(uid) ?
	       errno : 0;
}

/*
 * Forks; the child closes the descriptors of the slots from @keep_fds on
 * (FD_BASE: all, CTX_FD_BASE: the ctxs'), tells its parent that it did
 * (the return: then it holds none of them), runs fn(f, arg, rep) and
 * reports (child_finish()). The child's pid, or -1 with rep->why.
 */
static pid_t child_start(struct fuzz *f,
			 void (*fn)(struct fuzz *, const void *, struct child_report *),
			 const void *arg, struct child_report *rep, unsigned int keep_fds,
			 int *report_fd)
{
	int p[2], rd[2];
	pid_t pid;
	char c = 0;

	memset(rep, 0, sizeof(*rep));
	rep->launch_err = -1;
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(rep->why, sizeof(rep->why), "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(rd, O_CLOEXEC)) {
		snprintf(rep->why, sizeof(rep->why), "pipe: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (!pid) {
		/*
		 * The parent's descriptors are not this process's to use:
		 * the slots' from keep_fds on, and every low one but the
		 * pipes (another thread's open in flight, not yet in its
		 * slot, would live on here, its file with it)
		 */
		if (dup2(p[1], CHILD_FD_REPORT) < 0 || dup2(rd[1], CHILD_FD_READY) < 0)
			_exit(2);
		close_range(3, FD_BASE - 1, 0);
		close_range(keep_fds, CHILD_FD_REPORT - 1, 0);
		close_range(CHILD_FD_READY + 1, ~0u, 0);
		if (write(CHILD_FD_READY, &c, 1) != 1)
			_exit(2);
		fn(f, arg, rep);
		if (write(CHILD_FD_REPORT, rep, sizeof(*rep)) != sizeof(*rep))
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	close(rd[1]);
	if (pid < 0 || read(rd[0], &c, 1) != 1) {
		snprintf(rep->why, sizeof(rep->why), "fork: %s", pid < 0 ? strerror(errno) : "died");
		if (pid > 0)
			waitpid(pid, NULL, 0);
		close(p[0]);
		close(rd[0]);
		return -1;
	}
	close(rd[0]);
	*report_fd = p[0];
	return pid;
}

/* The child's report and exit: 0, or -1 if it gave none. */
static int child_finish(pid_t pid, int report_fd, struct child_report *rep)
{
	int ret = 0;

	if (pid < 0)
		return -1;
	if (read(report_fd, rep, sizeof(*rep)) != sizeof(*rep)) {
		snprintf(rep->why, sizeof(rep->why), "child %d gave no report", (int)pid);
		ret = -1;
	}
	close(report_fd);
	waitpid(pid, NULL, 0);
	return ret;
}

static int run_child(struct fuzz *f, void (*fn)(struct fuzz *, const void *, struct child_report *),
		     const void *arg, struct child_report *rep, unsigned int keep_fds)
{
	int fd = -1;
	pid_t pid = child_start(f, fn, arg, rep, keep_fds, &fd);

	return child_finish(pid, fd, rep);
}

/* A child's own nvidia-uvm VA space, as ctx_open makes one: 0 on success. */
static int child_uvm_open(struct fuzz *f, struct child_report *rep, int *ufd, int *mmfd)
{
	UVM_INITIALIZE_PARAMS init = { 0 };
	UVM_MM_INITIALIZE_PARAMS mm = { 0 };
	UVM_REGISTER_GPU_PARAMS reg = { 0 };

	*ufd = open("/dev/nvidia-uvm", O_RDWR | O_CLOEXEC);
	*mmfd = open("/dev/nvidia-uvm", O_RDWR | O_CLOEXEC);
	child_step(rep, "open /dev/nvidia-uvm (a child)", *ufd < 0 || *mmfd < 0 ? errno : 0, 0, 0, 0);
	if (*ufd < 0 || *mmfd < 0)
		return -1;
	mm.uvmFd = *ufd;
	memcpy(reg.gpu_uuid.uuid, f->info0.uuid, 16);
	reg.rmCtrlFd = -1;
	return child_uvm(rep, "UVM_INITIALIZE (a child)", *ufd, UVM_INITIALIZE, &init,
			 &init.rmStatus, NV_OK, 0) ||
	       child_uvm(rep, "UVM_MM_INITIALIZE (a child)", *mmfd, UVM_MM_INITIALIZE, &mm,
			 &mm.rmStatus, NV_OK, NV_WARN_NOTHING_TO_DO) ||
	       child_uvm(rep, "UVM_REGISTER_GPU (a child)", *ufd, UVM_REGISTER_GPU, &reg,
			 &reg.rmStatus, NV_OK, 0);
}

/* What the forked child may name: the parent's open files at the fork. */
struct fork_view {
	int fd[FILES];
	bool open[FILES];
	uint32_t h_client, h_vas, h_channel;	/* one of the parent's, 0 none */
	int fd_of_vas;
};

/*
 * The child of a fork, with the parent's /dev/emgpu-rm files (its
 * nvidia-uvm ones closed): they answer (/dev/null refuses), and its own
 * nvidia-uvm VA space cannot register the parent's VA space or channel
 * through them (the RM takes a client's handles only from the process
 * that made it).
 */
static void fork_child(struct fuzz *f, const void *arg, struct child_report *rep)
{
	const struct fork_view *v = arg;
	UVM_REGISTER_GPU_VASPACE_PARAMS rv = { 0 };
	UVM_REGISTER_CHANNEL_PARAMS rc = { 0 };
	struct emgpu_rm_va_space own = { 0 };
	int ufd, mmfd, rfd, err;

	for (unsigned int i = 0; i < FILES; i++) {
		struct emgpu_rm_gpu_info in;

		err = ioctl(v->fd[i], EMGPU_RM_GPU_INFO, &in) ? errno : 0;
		child_step(rep, "GPU_INFO on an inherited descriptor", err, 0,
			   v->open[i] ? 0 : ENOTTY, 0);
	}
	if (child_uvm_open(f, rep, &ufd, &mmfd))
		return;
	memcpy(rv.gpuUuid.uuid, f->info0.uuid, 16);
	memcpy(rc.gpuUuid.uuid, f->info0.uuid, 16);
	if (v->h_vas) {
		rv.rmCtrlFd = v->fd_of_vas;
		rv.hClient = v->h_client;
		rv.hVaSpace = v->h_vas;
		child_uvm(rep, "UVM_REGISTER_GPU_VASPACE of the parent's VA space", ufd,
			  UVM_REGISTER_GPU_VASPACE, &rv, &rv.rmStatus, NV_ERR_INVALID_OBJECT_HANDLE, 0);
	}
	rfd = open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC);
	err = rfd < 0 ? errno : ioctl(rfd, EMGPU_RM_VA_SPACE_CREATE, &own) ? errno : 0;
	child_step(rep, "VA_SPACE_CREATE (a child)", err, 0, 0, 0);
	if (err)
		return;
	rv.rmCtrlFd = rfd;
	rv.hClient = own.h_client;
	rv.hVaSpace = own.h_va_space;
	if (child_uvm(rep, "UVM_REGISTER_GPU_VASPACE (a child)", ufd, UVM_REGISTER_GPU_VASPACE, &rv,
		      &rv.rmStatus, NV_OK, 0) || !v->h_channel)
		return;
	rc.rmCtrlFd = v->fd_of_vas;
	rc.hClient = v->h_client;
	rc.hChannel = v->h_channel;
	child_uvm(rep, "UVM_REGISTER_CHANNEL of the parent's channel", ufd, UVM_REGISTER_CHANNEL, &rc,
		  &rc.rmStatus, NV_ERR_INVALID_OBJECT_HANDLE, 0);
}

static void op_fork(struct worker *w)
{
	struct fuzz *f = w->f;
	struct fork_view v = { .fd_of_vas = -1 };
	struct child_report rep;
	int died;

	/* exclusive: nothing in flight, the state is what the kernel has */
	for (unsigned int i = 0; i < FILES; i++) {
		struct rmfile *r = &f->file[i];

		/* the child checks the descriptors it inherits: kept from close_range */
		v.fd[i] = r->fd;
		v.open[i] = r->open;
		if (!r->open || v.h_vas)
			continue;
		for (unsigned int j = 0; j < VAS_SLOTS; j++)
			if (r->vas[j].handle) {
				v.h_client = r->h_client;
				v.h_vas = r->vas[j].handle;
				v.fd_of_vas = r->fd;
				break;
			}
		for (unsigned int j = 0; j < CH_SLOTS && v.h_vas; j++)
			if (r->ch[j].handle)
				v.h_channel = r->ch[j].handle;
	}
	died = run_child(f, fork_child, &v, &rep, CTX_FD_BASE);
	judge_child(w, &rep, died);
}

/* What a user process of OP_USERS makes: per file, each CHANNEL_CREATE's errno. */
#define USER_FILES	3

struct limits_view {
	uid_t uid;
	uint32_t parent_client, parent_handle;
};

/*
 * An unprivileged user: three opens, a VA space each, channels in each
 * until refused; then a parent's handle, freed through its own file.
 */
static void limits_child(struct fuzz *f, const void *arg, struct child_report *rep)
{
	const struct limits_view *v = arg;
	struct emgpu_rm_va_space vs[USER_FILES] = { { 0 } };
	int fd[USER_FILES], err;

	(void)f;
	err = become(v->uid, true);
	child_step(rep, "setuid to a user of the emgpu-rm group", err, 0, 0, 0);
	if (err)
		return;
	for (unsigned int i = 0; i < USER_FILES; i++) {
		fd[i] = open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC);
		err = fd[i] < 0 ? errno : ioctl(fd[i], EMGPU_RM_VA_SPACE_CREATE, &vs[i]) ? errno : 0;
		child_step(rep, "open and VA_SPACE_CREATE as a user", err, 0, 0, 0);
		if (err)
			return;
	}
	for (unsigned int i = 0; i < USER_FILES; i++)
		for (unsigned int k = 0; k <= LIMIT_CH_PER_OPEN; k++) {
			struct emgpu_rm_channel c = { vs[i].h_client, vs[i].h_va_space, 0, 0 };

			err = ioctl(fd[i], EMGPU_RM_CHANNEL_CREATE, &c) ? errno : 0;
			/* want_err: the parent's, from its count (judge_limits) */
			child_step(rep, "CHANNEL_CREATE as a user", err, i, -1, 0);
			if (err)
				break;
		}
	{
		struct emgpu_rm_free fr = { v->parent_client, v->parent_handle };

		err = ioctl(fd[0], EMGPU_RM_FREE, &fr) ? errno : 0;
		child_step(rep, "FREE of another user's handle", err, 0, ENOENT, 0);
		fr.h_client = vs[0].h_client;
		err = ioctl(fd[0], EMGPU_RM_FREE, &fr) ? errno : 0;
		child_step(rep, "FREE of another user's handle with its own client", err, 0, ENOENT, 0);
	}
}

/* A user outside the group: /dev/emgpu-rm is not its to open. */
static void outsider_child(struct fuzz *f, const void *arg, struct child_report *rep)
{
	int err, fd;

	(void)f;
	(void)arg;
	err = become(USER_OUTSIDE, false);
	child_step(rep, "setuid to a user outside the group", err, 0, 0, 0);
	if (err)
		return;
	fd = open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC);
	child_step(rep, "open of " EMGPU_RM_DEVICE " outside its group", fd < 0 ? errno : 0, 0,
		   EACCES, 0);
}

/*
 * The creates of a limits child against what its counts allow: the open's
 * and the user's quota (EDQUOT; its user's may hold one more, @mine: a
 * launch of a user process of the same uid that may still run), then the
 * total with this process's user's channels (lo..hi, a launch's that may
 * still run among them) (ENOSPC).
 */
static void judge_limits(struct child_report *rep, unsigned int lo, unsigned int hi, bool mine)
{
	unsigned int per_file[USER_FILES] = { 0 }, user = 0;

	for (unsigned int i = 0; i < rep->n; i++) {
		struct child_step *s = &rep->s[i];
		unsigned int file = s->status;

		if (s->want_err != -1)
			continue;
		if (per_file[file] >= LIMIT_CH_PER_OPEN || user >= LIMIT_CH_PER_USER)
			s->want_err = EDQUOT;
		else if (user + mine >= LIMIT_CH_PER_USER && s->err == EDQUOT)
			s->want_err = EDQUOT;	/* between the bounds: what it got is right */
		else if (lo + user >= LIMIT_USER_CHANNELS)
			s->want_err = ENOSPC;
		else if (hi + user < LIMIT_USER_CHANNELS || !s->err)
			s->want_err = 0;
		else
			s->want_err = ENOSPC;	/* between the bounds: what it got is right */
		s->status = 0;
		if (!s->err) {
			per_file[file]++;
			user++;
		}
	}
}

/* A limit parameter refuses a value out of its range or not a number. */
static void bad_param(struct worker *w)
{
	static const char *const names[] = { "max_va_spaces_per_open", "max_channels_per_open",
					     "max_channels_per_user", "max_user_channels" };
	static const char *const junk[] = { "0", "65", "-1", "abc", "", "99999999999", "0x" };
	char path[128];
	const char *val = junk[below(w, 7)];
	int fd, err;

	snprintf(path, sizeof(path), RM_PARAMS "%s", names[below(w, 4)]);
	atomic_fetch_add(&w->f->calls, 1);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		problem(w->f, "open %s: %s", path, strerror(errno));
		return;
	}
	err = write(fd, val, strlen(val)) < 0 ? errno : 0;
	close(fd);
	/*
	 * out of 1..64 or not a number: EINVAL, too big for an unsigned int:
	 * ERANGE; nothing written, nothing set
	 */
	judge(w, "a limit parameter out of its range", err,
	      !val[0] ? OK : !strcmp(val, "99999999999") ? E(ERANGE) : E(EINVAL), false);
}

static void op_users(struct worker *w)
{
	struct fuzz *f = w->f;
	struct limits_view v = { .uid = USER_IN_GROUP(below(w, USERS)) };
	struct child_report rep;
	unsigned int lo, hi;
	int died;

	/* exclusive: nothing in flight; a timed-out launch's channel may still count */
	for (unsigned int i = 0; i < FILES && !v.parent_handle; i++)
		if (f->file[i].open && f->file[i].vas[0].handle) {
			v.parent_client = f->file[i].h_client;
			v.parent_handle = f->file[i].vas[0].handle;
		}
	if (!v.parent_handle)
		v.parent_handle = HANDLE_BASE + 1;
	bad_param(w);
	user_channels(f, &lo, &hi);
	/* exclusive: only the child's own creates may end a launch that may still run */
	hi += f->stale[STALE_OURS].on || f->stale[STALE_OTHERS].on;
	died = run_child(f, limits_child, &v, &rep, FD_BASE);
	judge_limits(&rep, lo, hi, (f->stale_uids >> (v.uid - USER_IN_GROUP(0))) & 1);
	judge_child(w, &rep, died);
	died = run_child(f, outsider_child, NULL, &rep, FD_BASE);
	judge_child(w, &rep, died);
}

struct range_view {
	uid_t uid;
	uint64_t seed;
	bool stale;		/* a launch of ms over the scratch half, then its file closed */
	uint32_t passes, words, sleep_us;
};

/*
 * An unprivileged user as libcuda would be, its range at USER_RANGE_VA,
 * the same VA as every other user's: a STREAM launch checked word for
 * word, or a launch over the scratch half timed out, its file closed
 * under it, and the CPU half left alone a while: no other user's launch
 * (one such, on the hardware channel this one may get) touches it.
 */
static void range_child(struct fuzz *f, const void *arg, struct child_report *rep)
{
	const struct range_view *v = arg;
	UVM_REGISTER_GPU_VASPACE_PARAMS rv = { 0 };
	UVM_REGISTER_CHANNEL_PARAMS rc = { 0 };
	struct emgpu_rm_va_space vs = { 0 };
	struct emgpu_rm_channel ch = { 0 };
	struct emgpu_rm_launch l = { 0 };
	uint64_t expect;
	uint32_t *buf;
	int ufd, mmfd, rfd, err;
	double t0;

	err = become(v->uid, true);
	child_step(rep, "setuid to a user of the emgpu-rm group", err, 0, 0, 0);
	if (err || child_uvm_open(f, rep, &ufd, &mmfd))
		return;
	rfd = open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC);
	err = rfd < 0 ? errno : ioctl(rfd, EMGPU_RM_VA_SPACE_CREATE, &vs) ? errno : 0;
	child_step(rep, "open and VA_SPACE_CREATE (a user)", err, 0, 0, 0);
	if (err)
		return;
	ch.h_client = vs.h_client;
	ch.h_va_space = vs.h_va_space;
	err = ioctl(rfd, EMGPU_RM_CHANNEL_CREATE, &ch) ? errno : 0;
	/* want_err: the parent's, from its counts (judge_user_create) */
	child_step(rep, "CHANNEL_CREATE (a user)", err, 0, -1, 0);
	if (err)
		return;
	memcpy(rv.gpuUuid.uuid, f->info0.uuid, 16);
	memcpy(rc.gpuUuid.uuid, f->info0.uuid, 16);
	rv.rmCtrlFd = rc.rmCtrlFd = rfd;
	rv.hClient = rc.hClient = vs.h_client;
	rv.hVaSpace = vs.h_va_space;
	rc.hChannel = ch.h_channel;
	if (child_uvm(rep, "UVM_REGISTER_GPU_VASPACE (a user)", ufd, UVM_REGISTER_GPU_VASPACE, &rv,
		      &rv.rmStatus, NV_OK, 0) ||
	    child_uvm(rep, "UVM_REGISTER_CHANNEL (a user)", ufd, UVM_REGISTER_CHANNEL, &rc,
		      &rc.rmStatus, NV_OK, 0))
		return;
	buf = mmap((void *)(uintptr_t)USER_RANGE_VA, RANGE_BYTES, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_FIXED_NOREPLACE, ufd, (off_t)USER_RANGE_VA);
	child_step(rep, "managed range at the users' VA", buf == MAP_FAILED ? errno : 0, 0, 0, 0);
	if (buf == MAP_FAILED)
		return;
	for (uint64_t i = 0; i < CPU_WORDS; i++)
		buf[i] = range_word(v->seed, i);
	l.h_client = vs.h_client;
	l.h_channel = ch.h_channel;
	l.kernel = EMBER_KERNEL_STREAM;
	l.args[0] = (uintptr_t)buf + (v->stale ? CPU_BYTES : 0);
	l.args[1] = v->stale ? RANGE_BYTES - CPU_BYTES : v->words * 4ull;
	l.args[2] = v->stale ? 64 : v->passes;
	l.timeout_ms = v->stale ? 1 + v->sleep_us % 5 : LAUNCH_TIMEOUT_MS;
	/* another user's launch that timed out may still run: EBUSY till it ends */
	for (t0 = now_s();;) {
		err = ioctl(rfd, EMGPU_RM_LAUNCH, &l) ? errno : 0;
		if (err != EBUSY || now_s() - t0 > LAUNCH_TIMEOUT_MS / 1000)
			break;
		usleep(5000);
	}
	rep->launch_err = err;
	if (v->stale) {
		close(rfd);
		usleep(v->sleep_us);
		for (uint64_t i = 0; i < CPU_WORDS; i++)
			rep->mismatches += buf[i] != range_word(v->seed, i);
		return;
	}
	expect = 0;
	for (uint32_t p = 0; p < v->passes; p++)
		for (uint64_t i = 0; i < v->words; i++)
			expect += (uint32_t)(range_word(v->seed, i) + p);
	if (!err && (l.status != EMGPU_LAUNCH_DONE || l.result != expect))
		snprintf(rep->why, sizeof(rep->why), "launch done: status %u, result %llu, expected %llu",
			 l.status, (unsigned long long)l.result, (unsigned long long)expect);
	for (uint64_t i = 0; i < CPU_WORDS; i++)
		rep->mismatches += buf[i] != range_word(v->seed, i) +
					     (!err && i < v->words ? v->passes : 0);
}

/*
 * A user process's CHANNEL_CREATE against its user's quota (EDQUOT: at
 * most @same channels of its uid besides) and the total (ENOSPC: with
 * @lo..@hi others, this process's user's channels, the other user
 * processes' and a launch's that may still run).
 */
static void judge_user_create(struct child_report *rep, unsigned int lo, unsigned int hi,
			      unsigned int same)
{
	for (unsigned int i = 0; i < rep->n; i++) {
		struct child_step *s = &rep->s[i];
		uint32_t allowed = 0;

		if (s->want_err != -1)
			continue;
		if (same >= LIMIT_CH_PER_USER)
			allowed |= E(EDQUOT);
		if (hi >= LIMIT_USER_CHANNELS)
			allowed |= E(ENOSPC);
		if (lo < LIMIT_USER_CHANNELS)
			allowed |= OK;
		/* between the bounds: what it got is right */
		s->want_err = (allowed & (1u << outcome_of(s->err))) ? s->err :
			      (allowed & OK) ? 0 : ENOSPC;
	}
}

static void op_user_range(struct worker *w)
{
	struct fuzz *f = w->f;
	struct range_view v = {
		.uid = USER_IN_GROUP(below(w, USERS)), .seed = rnd(w), .stale = below(w, 2),
		.passes = 1 + (uint32_t)below(w, 2), .words = 32 * (1 + (uint32_t)below(w, 256)),
		.sleep_us = (uint32_t)below(w, 100000),
	};
	struct child_report rep;
	struct stale_mark stale;
	struct span user;
	uint32_t allowed;
	uint64_t seq, others_ups;
	unsigned int others;
	bool stale_ours, stale_others;
	int died, fd = -1;
	pid_t pid;

	/* the child holds copies of every descriptor until it closed them */
	lock(f);
	seq = ++f->launch_seq;	/* the child's launch begins after */
	/* what its CHANNEL_CREATE meets: counted over its whole life */
	user_channels(f, &user.lo, &user.hi);
	user.ups = f->user_ups;
	user.downs = f->user_downs;
	stale_mark(f, &stale);
	others = f->others_max;
	others_ups = ++f->others_ups;
	f->others_max++;
	f->busy_events++;
	for (unsigned int i = 0; i < FILES; i++)
		f->file[i].inflight++;
	for (unsigned int i = 0; i < CTXS; i++)
		f->ctx[i].uvm_calls++;
	unlock(f);
	pthread_mutex_lock(&f->fork_lock);
	pid = child_start(f, range_child, &v, &rep, FD_BASE, &fd);
	pthread_mutex_unlock(&f->fork_lock);
	lock(f);
	for (unsigned int i = 0; i < FILES; i++)
		file_call_done(&f->file[i]);
	for (unsigned int i = 0; i < CTXS; i++)
		f->ctx[i].uvm_calls--;
	unlock(f);
	died = child_finish(pid, fd, &rep);
	lock(f);
	f->others_max--;
	span_end(&user, f->user_ups, f->user_downs);
	others += (unsigned int)(f->others_ups - others_ups);	/* begun since */
	stale_ours = stale_since(f, &stale, STALE_OURS);
	stale_others = stale_since(f, &stale, STALE_OTHERS);
	judge_user_create(&rep, user.lo, user.hi + others + (stale_ours || stale_others),
			  others + stale_others);
	/* done, cancelled by nvidia-uvm or timed out, it rang the device */
	if (!rep.launch_err || rep.launch_err == EFAULT || rep.launch_err == ETIMEDOUT)
		launch_reached(f, seq);
	/* its channel, freed at the close, may count until the launch ends */
	if (rep.launch_err == ETIMEDOUT) {
		launch_timed_out(f, NULL, STALE_OTHERS);
		f->stale_uids |= 1u << (v.uid - USER_IN_GROUP(0));
	}
	unlock(f);
	judge_child(w, &rep, died);
	if (rep.launch_err >= 0) {
		allowed = v.stale ? E(ETIMEDOUT) | OK : OK;
		/* a launch of this process's, timed out, ran on past its retries */
		allowed |= E(EBUSY);
		atomic_fetch_add(&f->calls, 1);
		count_launch(f, rep.launch_err);
		judge(w, v.stale ? "LAUNCH of ms by a user" : "LAUNCH by a user", rep.launch_err,
		      allowed, false);
	}
	if (rep.mismatches || rep.why[0]) {
		lock(f);
		f->mismatches += rep.mismatches;
		problem_locked(f, "a user's range at the users' VA: %llu words not as it left them%s%s",
			       (unsigned long long)rep.mismatches, rep.why[0] ? "; " : "", rep.why);
		unlock(f);
	}
}

/* ---- the run ---- */

static void (*const op_fns[OP_COUNT])(struct worker *) = {
	[OP_OPEN] = op_open, [OP_CLOSE] = op_close, [OP_VAS_CREATE] = op_vas_create,
	[OP_CH_CREATE] = op_ch_create, [OP_FREE] = op_free, [OP_BAD] = op_bad,
	[OP_RAW] = op_raw, [OP_CTX_OPEN] = op_ctx_open, [OP_CTX_CLOSE] = op_ctx_close,
	[OP_REG_VAS] = op_reg_vas, [OP_UNREG_VAS] = op_unreg_vas, [OP_REG_CH] = op_reg_ch,
	[OP_UNREG_CH] = op_unreg_ch, [OP_REG_BAD] = op_reg_bad, [OP_LAUNCH] = op_launch,
	[OP_LAUNCH_STALE] = op_launch_stale, [OP_LAUNCH_BAD] = op_launch_bad,
	[OP_FILL] = op_fill, [OP_CHECK] = op_check, [OP_FORK] = op_fork,
	[OP_USERS] = op_users, [OP_USER_RANGE] = op_user_range, [OP_SIGNAL] = op_signal,
};

static bool done(struct fuzz *f)
{
	return atomic_load(&f->stop) ||
	       (f->max_calls && atomic_load(&f->calls) >= f->max_calls) ||
	       (f->max_steps && atomic_load(&f->steps) >= f->max_steps) ||
	       (f->limit_s && now_s() - f->start >= f->limit_s);
}

/*
 * -d (one thread): every channel handle the state has is one of the
 * stand-in's channels (debugfs channels) after every step.
 */
static void check_channels(struct fuzz *f)
{
	char path[sizeof(f->objects_path)], line[160], all[8192] = "";
	FILE *in;

	snprintf(path, sizeof(path), "%s", f->objects_path);
	if (strrchr(path, '/'))
		strcpy(strrchr(path, '/'), "/channels");
	in = fopen(path, "r");
	while (in && fgets(line, sizeof(line), in))
		strncat(all, line, sizeof(all) - strlen(all) - 1);
	if (in)
		fclose(in);
	lock(f);
	for (unsigned int i = 0; i < FILES; i++)
		for (unsigned int j = 0; j < CH_SLOTS; j++) {
			char want[32];

			if (!f->file[i].ch[j].handle)
				continue;
			snprintf(want, sizeof(want), "%u 0x%x ", f->file[i].ch[j].hw,
				 f->file[i].ch[j].handle);
			if (!strstr(all, want))
				problem_locked(f, "channel %x (hw %u) of file %u is not the stand-in's",
					       f->file[i].ch[j].handle, f->file[i].ch[j].hw, i);
		}
	note_locked(f, "-- checked");
	unlock(f);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct fuzz *f = w->f;
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < OP_COUNT; i++)
		total += ops[i].weight;
	{
		sigset_t usr1;

		/* taken only inside the launches that may be interrupted */
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	}
	while (!done(f)) {
		uint64_t x = below(w, total);
		double t0;

		for (i = 0; x >= ops[i].weight; i++)
			x -= ops[i].weight;
		if (ops[i].exclusive)
			pthread_rwlock_wrlock(&f->world);
		else
			pthread_rwlock_rdlock(&f->world);
		t0 = now_s();
		op_fns[i](w);
		pthread_rwlock_unlock(&f->world);
		lock(f);
		f->op_s[i] += now_s() - t0;
		unlock(f);
		atomic_fetch_add(&f->per_op[i], 1);
		atomic_fetch_add(&f->steps, 1);
		w->steps++;
		/* the RM answers after every step */
		check_info(w);
		if (f->debug_channels) {
			/* no call in flight: the state is the stand-in's */
			pthread_rwlock_wrlock(&f->world);
			check_channels(f);
			pthread_rwlock_unlock(&f->world);
		}
	}
	return NULL;
}

/* The stand-in's accounting: debugfs emgpu-rm/<PCI address>/objects, whole. */
static int read_objects(struct fuzz *f, char *buf, size_t len)
{
	FILE *in = fopen(f->objects_path, "r");
	size_t n;

	if (!in)
		return errno;
	n = fread(buf, 1, len - 1, in);
	buf[n] = 0;
	fclose(in);
	return 0;
}

static void find_objects(struct fuzz *f)
{
	const char *dir = "/sys/kernel/debug/emgpu-rm";
	struct dirent *e;
	DIR *d;

	/* debugfs, where the image's init did not mount it */
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			snprintf(f->objects_path, sizeof(f->objects_path), "%s/%.64s/objects", dir,
				 e->d_name);
	if (d)
		closedir(d);
}

/* Writes a module parameter of emgpu-rm: 0 or an errno. */
static int set_param(const char *name, unsigned int v)
{
	char path[128], val[16];
	int fd, err = 0;

	snprintf(path, sizeof(path), RM_PARAMS "%s", name);
	snprintf(val, sizeof(val), "%u", v);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* Unloads nvidia-uvm and emgpu-rm and loads them again: 0, or a problem. */
static int reload_modules(struct fuzz *f)
{
	static const char *const names[] = { "nvidia_uvm", "emgpu_rm" };
	static const char *const files[] = { "emgpu-rm.ko", "nvidia-uvm.ko" };
	char path[512];

	for (unsigned int i = 0; i < 2; i++) {
		atomic_fetch_add(&f->calls, 1);
		if (syscall(SYS_delete_module, names[i], O_NONBLOCK)) {
			problem(f, "rmmod %s: %s", names[i], strerror(errno));
			return -1;
		}
	}
	for (unsigned int i = 0; i < 2; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s", f->module_dir, files[i]);
		atomic_fetch_add(&f->calls, 1);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
			problem(f, "insmod %s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* @s as a JSON string's contents: quotes and backslashes escaped, controls dropped. */
static void json_str(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if ((unsigned char)*s >= ' ')
			fputc(*s, out);
	}
}

static void report(FILE *out, struct fuzz *f, unsigned int threads, uint64_t seed, bool final,
		   int objects_back, int reloaded)
{
	unsigned int i;

	lock(f);
	fprintf(out, "{\"scenario\":\"fuzz-rm\",\"seed\":%" PRIu64 ",\"threads\":%u,\"final\":%s,"
		"\"steps\":%" PRIu64 ",\"calls\":%" PRIu64 ",\"wall_s\":%.1f,"
		"\"accepted_bad\":%" PRIu64 ",\"wrong_errno\":%" PRIu64 ",\"mismatches\":%" PRIu64
		",\"hangs\":%" PRIu64 ",\"races\":%" PRIu64 ",\"children\":%" PRIu64
		",\"launches_ok\":%" PRIu64 ",\"launches_failed\":%" PRIu64
		",\"launches_timed_out\":%" PRIu64 ",\"objects_back\":%d,\"reloaded\":%d,\"ops\":{",
		seed, threads, final ? "true" : "false", (uint64_t)atomic_load(&f->steps),
		(uint64_t)atomic_load(&f->calls), now_s() - f->start, f->accepted_bad,
		f->wrong_errno, f->mismatches, f->hangs, (uint64_t)atomic_load(&f->races),
		(uint64_t)atomic_load(&f->children), (uint64_t)atomic_load(&f->launches_ok),
		(uint64_t)atomic_load(&f->launches_failed),
		(uint64_t)atomic_load(&f->launches_timed_out), objects_back, reloaded);
	for (i = 0; i < OP_COUNT; i++)
		fprintf(out, "%s\"%s\":%" PRIu64, i ? "," : "", ops[i].name,
			(uint64_t)atomic_load(&f->per_op[i]));
	fprintf(out, "},\"op_s\":{");
	for (i = 0; i < OP_COUNT; i++)
		fprintf(out, "%s\"%s\":%.1f", i ? "," : "", ops[i].name, f->op_s[i]);
	fprintf(out, "},\"problem\":\"");
	json_str(out, f->problem);
	fprintf(out, "\",\"first_accepted_bad\":\"");
	json_str(out, f->bad_first);
	fprintf(out, "\",\"first_wrong_errno\":\"");
	json_str(out, f->wrong_first);
	fprintf(out, "\"}\n");
	fflush(out);
	unlock(f);
}

/* Everything closed: the ctxs, then the files; a timed-out launch ends with its channel. */
static void close_all(struct fuzz *f)
{
	for (unsigned int i = 0; i < CTXS; i++)
		if (f->ctx[i].open)
			ctx_close(f, &f->ctx[i]);
	for (unsigned int i = 0; i < FILES; i++)
		if (f->file[i].open)
			close_file(f, &f->file[i]);
}

/* The accounting as before the first call, within seconds (nvidia-uvm lets go late). */
static int objects_back(struct fuzz *f)
{
	char now[sizeof(f->objects0)];
	double t0 = now_s();

	do {
		if (read_objects(f, now, sizeof(now)))
			return 0;
		if (!strcmp(now, f->objects0))
			return 1;
		usleep(100000);
	} while (now_s() - t0 < 30);
	for (char *p = now; *p; p++)
		if (*p == '\n')
			*p = ' ';
	problem(f, "emgpu-rm's objects after everything closed: %s", now);
	return 0;
}

int main(int argc, char **argv)
{
	static struct fuzz fz;
	static struct worker workers[MAX_THREADS];
	struct fuzz *f = &fz;
	struct worker *w0 = &workers[0];
	unsigned int threads = 4, i;
	uint64_t seed = 1;
	FILE *out = stdout;
	double last;
	int opt, back = 0, reloaded = 0;

	f->module_dir = NULL;
	while ((opt = getopt(argc, argv, "s:j:n:t:c:m:o:d")) != -1) {
		switch (opt) {
		case 'd': f->debug_channels = true; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'j': threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'n': f->max_steps = strtoull(optarg, NULL, 0); break;
		case 't': f->limit_s = strtod(optarg, NULL); break;
		case 'c': f->max_calls = strtoull(optarg, NULL, 0); break;
		case 'm': f->module_dir = optarg; break;
		case 'o':
			out = fopen(optarg, "w");
			if (!out) {
				perror(optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: emgpu-rm-fuzz [-s SEED] [-j THREADS] [-n STEPS] "
				"[-t SECONDS] [-c CALLS] [-m MODULE_DIR] [-o FILE]\n");
			return 2;
		}
	}
	if (!threads || threads > MAX_THREADS) {
		fprintf(stderr, "emgpu-rm-fuzz: 1 to %u threads\n", MAX_THREADS);
		return 2;
	}
	if (!f->max_steps && !f->limit_s && !f->max_calls)
		f->max_steps = 10000;
	{
		/* SA_RESTART: a pipe's read or waitpid goes on; a launch's wait still ends EINTR */
		struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
		sigset_t usr1;

		sigaction(SIGUSR1, &sa, NULL);
		/* blocked in the threads that are not workers, and inherited so */
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	}
	f->workers = workers;
	f->threads = threads;
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->fork_lock, NULL);
	{
		pthread_rwlockattr_t attr;

		/* an exclusive op waits for the ops in flight, not for every later one */
		pthread_rwlockattr_init(&attr);
		pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&f->world, &attr);
	}
	for (i = 0; i < threads; i++) {
		workers[i].f = f;
		workers[i].id = i;
		/* each thread's calls from the seed and its index */
		workers[i].rng = gm_mix64(seed) + i * GM_SPLITMIX64_GAMMA * 0x10001;
	}

	/* the accounting before anything is open */
	find_objects(f);
	if (read_objects(f, f->objects0, sizeof(f->objects0))) {
		problem(f, "no debugfs emgpu-rm/*/objects: %s", strerror(errno));
		goto end;
	}
	if (set_param("max_va_spaces_per_open", LIMIT_VAS_PER_OPEN) ||
	    set_param("max_channels_per_open", LIMIT_CH_PER_OPEN) ||
	    set_param("max_channels_per_user", LIMIT_CH_PER_USER) ||
	    set_param("max_user_channels", LIMIT_USER_CHANNELS)) {
		problem(f, "emgpu-rm's limits: %s", strerror(errno));
		goto end;
	}
	/* the nodes as a system leaves them (99-emgpu-rm.rules, nvidia-modprobe) */
	if (chown(EMGPU_RM_DEVICE, 0, RM_GROUP) || chmod(EMGPU_RM_DEVICE, 0660) ||
	    chmod("/dev/nvidia-uvm", 0666)) {
		problem(f, "device nodes: %s", strerror(errno));
		goto end;
	}
	f->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	f->info_fd = open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC);
	if (f->null_fd < 0 || f->info_fd < 0 || ioctl(f->info_fd, EMGPU_RM_GPU_INFO, &f->info0)) {
		problem(f, "open " EMGPU_RM_DEVICE ", GPU_INFO: %s", strerror(errno));
		goto end;
	}
	for (i = 0; i < FILES; i++) {
		f->file[i].fd = FD_BASE + i;
		dup3(f->null_fd, f->file[i].fd, O_CLOEXEC);
		for (unsigned int j = 0; j < VAS_SLOTS; j++)
			f->file[i].vas[j].ctx = -1;
		for (unsigned int j = 0; j < CH_SLOTS; j++)
			f->file[i].ch[j].ctx = -1;
	}
	for (i = 0; i < CTXS; i++) {
		f->ctx[i].fd = CTX_FD_BASE + 2 * i;
		f->ctx[i].mmfd = CTX_FD_BASE + 2 * i + 1;
		dup3(f->null_fd, f->ctx[i].fd, O_CLOEXEC);
		dup3(f->null_fd, f->ctx[i].mmfd, O_CLOEXEC);
		pthread_mutex_init(&f->ctx[i].data_lock, NULL);
		pthread_mutex_init(&f->ctx[i].map_lock, NULL);
	}
	f->start = now_s();
	/* ctx 0 keeps the GPU registered with nvidia-uvm throughout */
	ctx_open(w0, &f->ctx[0]);

	for (i = 0; i < threads; i++)
		pthread_create(&workers[i].thread, NULL, worker, &workers[i]);
	for (last = now_s(); !done(f); usleep(100000))
		if (now_s() - last >= 10) {
			report(out, f, threads, seed, false, 0, 0);
			last = now_s();
		}
	for (i = 0; i < threads; i++)
		pthread_join(workers[i].thread, NULL);

	/* every range read back, everything closed, the accounting as before */
	for (i = 0; i < CTXS; i++) {
		struct ctx *c = &f->ctx[i];

		pthread_mutex_lock(&c->map_lock);
		if (c->buf)
			check_words(f, c, 0, CPU_WORDS, "the final check");
		pthread_mutex_unlock(&c->map_lock);
	}
	close_all(f);
	close(f->info_fd);
	back = objects_back(f);
	if (back && f->module_dir && !f->problem[0]) {
		int fd;

		reloaded = !reload_modules(f);
		fd = reloaded ? open(EMGPU_RM_DEVICE, O_RDWR | O_CLOEXEC) : -1;
		if (reloaded && (fd < 0 || ioctl(fd, EMGPU_RM_GPU_INFO, &f->info0)))
			problem(f, "the stand-in does not answer after its reload: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
end:
	report(out, f, threads, seed, true, back, reloaded);
	return f->problem[0] || f->mismatches || f->wrong_errno || f->accepted_bad ? 1 : 0;
}
