// SPDX-License-Identifier: MIT
/*
 * ember-fuzz-ioctl: random abuse of /dev/ember in the guest, in the manner
 * of syzkaller but seeded and deterministic: the same seed issues the same
 * sequence of calls, so a finding replays with "-s SEED -n STEPS".
 *
 * Each step is one random operation on one of a few VA spaces (opens of
 * /dev/ember): valid and malformed ioctls (every command, bad pointers,
 * nonzero pads, unknown enums, wrapping ranges, unknown command numbers),
 * mmap of managed ranges (valid, and misaligned / offset != address /
 * MAP_PRIVATE), munmap whole or in part, mremap (move, grow, shrink),
 * fork (the child touches the ranges and the inherited fd), CPU reads and
 * writes, launches (stream, hotset, gather; sync and async; out of range),
 * policy switches and writes of ember.ko's writable parameters. The guest
 * runs with panic_on_warn, so a warning or oops ends the run.
 *
 * After every step the driver must still answer (GET_DEVICE_INFO), and the
 * data written through CPU pointers must read back: every allocation has a
 * shadow copy, updated for CPU writes and for the launches that modify data
 * (stream adds its passes to each word, gather writes sums of lines);
 * sampled words are compared after each step, whole allocations every
 * FULL_CHECK_EVERY steps, after refused munmap/mremap, fork and close, and
 * at the end. A malformed call that succeeds is counted as
 * "accepted_bad" with the first one named; one refused with an errno
 * outside its class (refused(): EINVAL for a field out of its rules,
 * EFAULT for memory that is not there, ENOTTY for no such command, ...)
 * as "wrong_errno", the first one named with its errno.
 *
 * At the end everything is unmapped and closed and ember.ko is unloaded and
 * loaded again (a leaked reference fails the unload), then answers once
 * more. One JSON line goes to the output: seed, steps, calls, per-operation
 * counts and wall time (op_s; check_s: the checks after the steps),
 * mismatches, accepted_bad, the first problem and its step.
 *
 * usage: ember-fuzz-ioctl [-s SEED] [-n STEPS] [-t SECONDS] [-c CALLS] [-o FILE]
 * (it stops at whichever limit comes first)
 * (tests/fuzz-ioctl/run-test.sh boots it; `make fuzz-ioctl`)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <uapi/ember.h>

#include "gpumodel/splitmix64.h"

#define BLOCK		EMBER_VA_BLOCK_SIZE
#define MAX_VS		3
#define MAX_ALLOCS	5
#define MAX_BLOCKS	3	/* per allocation */
#define FULL_CHECK_EVERY 1024	/* steps; a sample is checked after each */
#define SAMPLE_WORDS	16
#define REGION_WORDS	8192	/* after munmap, mremap, fork */
#define KO_PATH		"/lib/modules/ember.ko"

struct alloc {
	uint32_t *p;		/* NULL: free slot */
	size_t len;
	uint32_t *shadow;	/* what the CPU must read back */
};

struct vspace {
	int fd;			/* -1: closed */
	bool busy;		/* an async launch may still run */
	struct alloc a[MAX_ALLOCS];
};

enum op {
	OP_OPEN, OP_CLOSE, OP_MMAP, OP_MMAP_BAD, OP_MUNMAP, OP_MUNMAP_PART,
	OP_MREMAP, OP_FORK, OP_CPU_WRITE, OP_CPU_READ, OP_LAUNCH, OP_LAUNCH_BAD,
	OP_SYNC, OP_ADVISE, OP_PREFETCH, OP_INFO, OP_POLICY, OP_RAW_IOCTL,
	OP_PARAM, OP_COUNT,
};

static const struct {
	const char *name;
	unsigned int weight;
} ops[OP_COUNT] = {
	[OP_OPEN] = { "open", 2 },	[OP_CLOSE] = { "close", 1 },
	[OP_MMAP] = { "mmap", 6 },	[OP_MMAP_BAD] = { "mmap_bad", 4 },
	[OP_MUNMAP] = { "munmap", 4 },	[OP_MUNMAP_PART] = { "munmap_part", 2 },
	[OP_MREMAP] = { "mremap", 2 },	[OP_FORK] = { "fork", 1 },
	[OP_CPU_WRITE] = { "cpu_write", 12 }, [OP_CPU_READ] = { "cpu_read", 8 },
	[OP_LAUNCH] = { "launch", 5 },	[OP_LAUNCH_BAD] = { "launch_bad", 6 },
	[OP_SYNC] = { "sync", 4 },	[OP_ADVISE] = { "advise", 10 },
	[OP_PREFETCH] = { "prefetch", 8 }, [OP_INFO] = { "info", 10 },
	[OP_POLICY] = { "policy", 4 },	[OP_RAW_IOCTL] = { "raw_ioctl", 8 },
	[OP_PARAM] = { "param", 3 },
};

struct fuzz {
	uint64_t rng;
	uint64_t step, calls, touches;
	uint64_t per_op[OP_COUNT];
	double op_s[OP_COUNT];	/* wall time in each operation */
	double check_s;		/* in the checks after the steps */
	uint64_t mismatches, accepted_bad, wrong_errno, launches_failed;
	char problem[256];	/* the first one */
	uint64_t problem_step;
	char bad_first[128];
	char wrong_errno_first[400];	/* the first of each kind, up to 4 */
	unsigned int wrong_errno_kinds;
	struct vspace vs[MAX_VS];
};

/* ---- helpers ---- */

static uint64_t rnd(struct fuzz *f)
{
	return gm_splitmix64(&f->rng);
}

static uint64_t below(struct fuzz *f, uint64_t n)
{
	return n ? rnd(f) % n : 0;
}

static void problem(struct fuzz *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct fuzz *f, const char *fmt, ...)
{
	va_list ap;

	if (f->problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(f->problem, sizeof(f->problem), fmt, ap);
	va_end(ap);
	f->problem_step = f->step;
}

/* A call that must fail returned 0. */
static void accepted(struct fuzz *f, const char *what)
{
	f->accepted_bad++;
	if (!f->bad_first[0])
		snprintf(f->bad_first, sizeof(f->bad_first), "step %" PRIu64 ": %s",
			 f->step, what);
}

/*
 * The errno classes a malformed call may be refused with: each call names
 * those its malformation can give (a span both misaligned and outside
 * every allocation may be refused for either), never "any error".
 */
#define ERRS_ARG	(1u << 0)	/* EINVAL, EOVERFLOW, ERANGE: a field out of its rules */
#define ERRS_ADDR	(1u << 1)	/* EFAULT: memory the call names is not there */
#define ERRS_CMD	(1u << 2)	/* ENOTTY: no such command */
#define ERRS_NAME	(1u << 3)	/* ENOENT: no such policy */
#define ERRS_DEV	(1u << 4)	/* ENODEV: no such GPU */

static unsigned int errno_class(int err)
{
	switch (err) {
	case EINVAL: case EOVERFLOW: case ERANGE: return ERRS_ARG;
	case EFAULT: return ERRS_ADDR;
	case ENOTTY: return ERRS_CMD;
	case ENOENT: return ERRS_NAME;
	case ENODEV: return ERRS_DEV;
	default: return 0;
	}
}

/*
 * A malformed call returned err (an errno, 0 for success): success is
 * accepted(); an errno outside classes counts in wrong_errno, the first
 * one named. Either way the driver answered something it should not have.
 */
static void refused(struct fuzz *f, const char *what, int err, unsigned int classes)
{
	if (!err) {
		accepted(f, what);
		return;
	}
	if (errno_class(err) & classes)
		return;
	f->wrong_errno++;
	/* one example of each call that got one, so a run names them all */
	if (f->wrong_errno_kinds < 4 && !strstr(f->wrong_errno_first, what)) {
		size_t used = strlen(f->wrong_errno_first);

		snprintf(f->wrong_errno_first + used, sizeof(f->wrong_errno_first) - used,
			 "%sstep %" PRIu64 ": %s: %s", used ? "; " : "", f->step, what,
			 strerror(err));
		f->wrong_errno_kinds++;
	}
}

static int xioctl(struct fuzz *f, int fd, unsigned long cmd, void *arg)
{
	f->calls++;
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static struct vspace *pick_vs(struct fuzz *f, bool open)
{
	unsigned int i, start = below(f, MAX_VS);

	for (i = 0; i < MAX_VS; i++) {
		struct vspace *v = &f->vs[(start + i) % MAX_VS];

		if ((v->fd >= 0) == open)
			return v;
	}
	return NULL;
}

static struct alloc *pick_alloc(struct fuzz *f, struct vspace *v, bool live)
{
	unsigned int i, start = below(f, MAX_ALLOCS);

	for (i = 0; v && i < MAX_ALLOCS; i++) {
		struct alloc *a = &v->a[(start + i) % MAX_ALLOCS];

		if (!!a->p == live)
			return a;
	}
	return NULL;
}

/* Waits for this VA space's launches before the CPU touches its data. */
static void quiesce(struct fuzz *f, struct vspace *v)
{
	struct ember_synchronize s = { 0 };
	int ret;

	if (!v->busy)
		return;
	ret = xioctl(f, v->fd, EMBER_IOCTL_SYNCHRONIZE, &s);
	if (ret && ret != -EFAULT)	/* EFAULT: a bad launch's cancel */
		problem(f, "synchronize: %s", strerror(-ret));
	v->busy = false;
}

/* ---- data checks ---- */

static sigjmp_buf touch_jmp;
static volatile sig_atomic_t touch_armed;	/* inside check_words */

/* A failing read in a check is recorded; a fault anywhere else kills us. */
static void on_touch_fault(int sig)
{
	if (touch_armed) {
		touch_armed = 0;
		siglongjmp(touch_jmp, sig);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void check_words(struct fuzz *f, struct alloc *a, size_t from, size_t n,
			const char *when)
{
	size_t i;
	int sig;

	if ((sig = sigsetjmp(touch_jmp, 1))) {
		problem(f, "%s: signal %d reading %p", when, sig, (void *)a->p);
		f->mismatches++;
		return;
	}
	touch_armed = 1;
	for (i = from; i < from + n; i++) {
		uint32_t got = ((volatile uint32_t *)a->p)[i];

		f->touches++;
		if (got != a->shadow[i]) {
			touch_armed = 0;
			f->mismatches++;
			problem(f, "%s: word %zu of %p is %#x, wrote %#x", when, i,
				(void *)a->p, got, a->shadow[i]);
			return;
		}
	}
	touch_armed = 0;
}

/* Up to REGION_WORDS words of [from, from + n) from a random start. */
static void check_region(struct fuzz *f, struct alloc *a, size_t from, size_t n,
			 const char *when)
{
	size_t skip = n > REGION_WORDS ? below(f, n - REGION_WORDS) : 0;

	check_words(f, a, from + skip, n > REGION_WORDS ? REGION_WORDS : n, when);
}

/* After each step: random words of one allocation read back. */
static void check_sample(struct fuzz *f)
{
	struct vspace *v = &f->vs[below(f, MAX_VS)];
	struct alloc *a = v->fd >= 0 ? pick_alloc(f, v, true) : NULL;
	unsigned int i;

	if (!a)
		return;
	quiesce(f, v);
	for (i = 0; i < SAMPLE_WORDS; i++)
		check_words(f, a, below(f, a->len / 4), 1, "sample after a step");
}

static void check_all(struct fuzz *f, const char *when)
{
	unsigned int i, j;

	for (i = 0; i < MAX_VS; i++)
		for (j = 0; j < MAX_ALLOCS; j++)
			if (f->vs[i].a[j].p) {
				quiesce(f, &f->vs[i]);
				check_words(f, &f->vs[i].a[j], 0, f->vs[i].a[j].len / 4, when);
			}
}

/* ---- operations ---- */

static void free_alloc(struct fuzz *f, struct alloc *a)
{
	f->calls++;
	if (munmap(a->p, a->len))
		problem(f, "munmap of a whole allocation: %s", strerror(errno));
	free(a->shadow);
	memset(a, 0, sizeof(*a));
}

static void op_open(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, false);

	if (!v)
		return;
	f->calls++;
	v->fd = open("/dev/ember", O_RDWR | O_CLOEXEC);
	if (v->fd < 0)
		problem(f, "open /dev/ember: %s", strerror(errno));
}

static void op_close(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	unsigned int i;
	bool orphan = below(f, 2);

	if (!v)
		return;
	quiesce(f, v);
	/* half the time the mappings outlive the fd: data must stay */
	for (i = 0; i < MAX_ALLOCS; i++)
		if (v->a[i].p && !orphan)
			free_alloc(f, &v->a[i]);
	f->calls++;
	close(v->fd);
	v->fd = -1;
	for (i = 0; i < MAX_ALLOCS; i++)
		if (v->a[i].p) {
			check_words(f, &v->a[i], 0, v->a[i].len / 4, "after close");
			free_alloc(f, &v->a[i]);
		}
}

/* A 2 MiB-aligned free VA range of len bytes (reserved, then released). */
static void *aligned_va(size_t len)
{
	uint8_t *r = mmap(NULL, len + BLOCK, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (r == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)r + BLOCK - 1) & ~(uintptr_t)(BLOCK - 1);
	munmap(r, len + BLOCK);
	return (void *)a;
}

static void op_mmap(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, false);
	size_t len = (1 + below(f, MAX_BLOCKS)) * BLOCK, i;
	void *va, *p;

	if (!a || !(va = aligned_va(len)))
		return;
	f->calls++;
	p = mmap(va, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, v->fd,
		 (off_t)(uintptr_t)va);
	if (p == MAP_FAILED) {
		problem(f, "valid mmap of %zu bytes: %s", len, strerror(errno));
		return;
	}
	a->p = p;
	a->len = len;
	a->shadow = malloc(len);
	if (!a->shadow) {
		problem(f, "out of host memory");
		return;
	}
	/* fill a random share of the words; untouched pages read as zeros */
	memset(a->shadow, 0, len);
	for (i = below(f, 4096); i < len / 4; i += 1 + below(f, 8192)) {
		a->shadow[i] = (uint32_t)rnd(f);
		a->p[i] = a->shadow[i];
		f->touches++;
	}
}

static void op_mmap_bad(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	size_t len = 2 * BLOCK;
	uint8_t *va;
	const char *what;
	void *p;
	off_t off;
	int flags = MAP_SHARED | MAP_FIXED;

	if (!v || !(va = aligned_va(len + BLOCK)))
		return;
	off = (off_t)(uintptr_t)va;
	switch (below(f, 5)) {
	case 0: what = "mmap: length not a block multiple"; len = 4096 * (1 + below(f, 511)); break;
	case 1: what = "mmap: offset != address"; off += BLOCK; break;
	case 2: what = "mmap: MAP_PRIVATE"; flags = MAP_PRIVATE | MAP_FIXED; break;
	case 3: what = "mmap: address not block aligned"; va += 4096 * (1 + below(f, 511));
		off = (off_t)(uintptr_t)va; break;
	default: what = "mmap: offset not block aligned"; off += 4096; break;
	}
	f->calls++;
	p = mmap(va, len, PROT_READ | PROT_WRITE, flags, v->fd, off);
	refused(f, what, p == MAP_FAILED ? errno : 0, ERRS_ARG);
	if (p != MAP_FAILED) {
		/* still usable and freeable */
		((volatile uint32_t *)p)[0] = 1;
		munmap(p, len);
	}
}

static void op_munmap(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);

	if (!a)
		return;
	quiesce(f, v);
	free_alloc(f, a);
}

static void op_munmap_part(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);
	size_t off, len;
	int err;

	if (!a)
		return;
	quiesce(f, v);
	off = below(f, a->len / 4096) * 4096;
	len = 4096 * (1 + below(f, (a->len - off) / 4096));
	if (!off && len == a->len)
		len -= 4096;
	if (!len)
		return;
	f->calls++;
	err = munmap((uint8_t *)a->p + off, len) ? errno : 0;
	/* ember.ko's may_split refuses it: EINVAL */
	refused(f, "munmap of part of an allocation", err, ERRS_ARG);
	if (!err) {
		/* the kernel unmapped part of it: forget the allocation */
		munmap(a->p, a->len);
		free(a->shadow);
		memset(a, 0, sizeof(*a));
		return;
	}
	check_region(f, a, off / 4, len / 4, "after a refused partial munmap");
}

static void op_mremap(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);
	void *p, *to;
	const char *what;
	bool called = true;	/* false: no mremap was issued */

	if (!a)
		return;
	quiesce(f, v);
	f->calls++;
	switch (below(f, 3)) {
	case 0:
		what = "mremap: move";
		to = aligned_va(a->len);
		p = to ? mremap(a->p, a->len, a->len, MREMAP_MAYMOVE | MREMAP_FIXED, to) :
			 MAP_FAILED;
		called = to != NULL;
		break;
	case 1:
		what = "mremap: grow";
		p = mremap(a->p, a->len, a->len + BLOCK, MREMAP_MAYMOVE);
		break;
	default:
		what = "mremap: shrink";
		p = a->len > BLOCK ? mremap(a->p, a->len, a->len - BLOCK, 0) : MAP_FAILED;
		called = a->len > BLOCK;
		break;
	}
	/*
	 * A range is one VMA for life: ember.ko's mremap and may_split hooks
	 * refuse a move or shrink (EINVAL); growing is refused by the kernel
	 * for a VM_DONTEXPAND mapping (EFAULT).
	 */
	if (called)
		refused(f, what, p == MAP_FAILED ? errno : 0, ERRS_ARG | ERRS_ADDR);
	if (p != MAP_FAILED) {
		if (p != a->p)	/* moved: check the data arrived, then drop it */
			munmap(p, a->len);
		else
			munmap(a->p, a->len);
		free(a->shadow);
		memset(a, 0, sizeof(*a));
		return;
	}
	check_region(f, a, 0, a->len / 4, "after a refused mremap");
}

static void op_fork(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);
	struct ember_mem_info mi = { 0 };
	int status;
	pid_t pid;

	if (!a)
		return;
	quiesce(f, v);
	f->calls++;
	pid = fork();
	if (pid < 0) {
		problem(f, "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		/* the range is not inherited: touching it faults */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		ioctl(v->fd, EMBER_IOCTL_MEM_GET_INFO, &mi);	/* another mm */
		if (below(f, 2))
			*(volatile uint32_t *)a->p = 0xdead;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		problem(f, "waitpid: %s", strerror(errno));
	check_region(f, a, 0, a->len / 4, "after fork");
}

static void op_cpu_write(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);
	size_t n, i, w;

	if (!a)
		return;
	quiesce(f, v);
	n = 1 + below(f, 64);
	for (i = 0; i < n; i++) {
		w = below(f, a->len / 4);
		a->shadow[w] = (uint32_t)rnd(f);
		a->p[w] = a->shadow[w];
		f->touches++;
	}
}

static void op_cpu_read(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);
	size_t from, n;

	if (!a)
		return;
	quiesce(f, v);
	from = below(f, a->len / 4);
	n = 1 + below(f, a->len / 4 - from);
	if (n > 65536)
		n = 65536;
	check_words(f, a, from, n, "cpu read");
}

/* A launch's effect on the shadow, once it completed. */
static void shadow_stream(struct alloc *a, size_t from, size_t words,
			  uint32_t passes)
{
	size_t i;

	for (i = from; i < from + words; i++)
		a->shadow[i] += passes;
}

/* gather (models/src/kernels/gather.c): dst[k] = sum of the 32 words of line gm_mix64(seed + k) % lines */
static void shadow_gather(struct alloc *src, struct alloc *dst, uint64_t count,
			  uint64_t seed)
{
	uint64_t k, lines = src->len / 128, line;
	uint32_t w, v;

	for (k = 0; k < count; k++) {
		line = gm_mix64(seed + k) % lines;
		for (v = 0, w = 0; w < 32; w++)
			v += src->shadow[line * 32 + w];
		dst->shadow[k] = v;
	}
}

static void op_launch(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true), *d;
	struct ember_launch l = { 0 };
	size_t from, blocks;
	uint32_t passes = 1 + below(f, 3);
	bool sync = below(f, 2);
	int ret;

	if (!a)
		return;
	quiesce(f, v);
	l.seed = rnd(f);
	l.warps = below(f, 3) ? 0 : 1 + below(f, 64);
	l.flags = sync ? EMBER_LAUNCH_SYNC : 0;
	from = below(f, a->len / BLOCK) * BLOCK;
	blocks = 1 + below(f, (a->len - from) / BLOCK);
	d = pick_alloc(f, v, true);
	switch (below(f, 3)) {
	case 0:
		l.kernel = EMBER_KERNEL_STREAM;
		l.args[0] = (uintptr_t)a->p + from;
		l.args[1] = blocks * BLOCK;
		l.args[2] = passes;
		break;
	case 1:
		l.kernel = EMBER_KERNEL_HOTSET;
		l.args[0] = (uintptr_t)a->p + from;
		l.args[1] = blocks * BLOCK;
		l.args[2] = 0;
		l.args[3] = below(f, 101);
		l.args[4] = 1 + below(f, 4);
		l.args[5] = 1;
		break;
	default:
		if (d == a)
			return;
		l.kernel = EMBER_KERNEL_GATHER;
		l.args[0] = (uintptr_t)a->p;
		l.args[1] = a->len;
		l.args[2] = (uintptr_t)d->p;
		l.args[3] = (1 + below(f, d->len / 4 / 32)) * 32;
		break;
	}
	ret = xioctl(f, v->fd, EMBER_IOCTL_LAUNCH, &l);
	if (ret) {
		f->launches_failed++;
		problem(f, "valid launch of kernel %u: %s", l.kernel, strerror(-ret));
		return;
	}
	/* its effect, visible once synchronized (every CPU touch quiesces) */
	if (l.kernel == EMBER_KERNEL_STREAM)
		shadow_stream(a, from / 4, blocks * BLOCK / 4, passes);
	else if (l.kernel == EMBER_KERNEL_GATHER)
		shadow_gather(a, d, l.args[3], l.seed);
	if (!sync) {
		v->busy = true;
		if (below(f, 2))	/* sometimes later: OP_SYNC or a quiesce */
			return;
		quiesce(f, v);
	}
}

/* An address no allocation of any VA space holds. */
static uint64_t wild_addr(struct fuzz *f)
{
	static const uint64_t wild[] = {
		0, 4096, 0x7fffffffe000ull, 0xffff800000000000ull, ~0ull - 4095,
		1ull << 47, 0x10000000000ull,
	};

	return wild[below(f, sizeof(wild) / sizeof(wild[0]))];
}

static void op_launch_bad(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);
	struct ember_launch l = { .kernel = EMBER_KERNEL_STREAM, .flags = EMBER_LAUNCH_SYNC };
	const char *what;
	unsigned int classes = ERRS_ARG;	/* a field out of its rules: EINVAL */
	int ret;

	if (!v)
		return;
	quiesce(f, v);
	l.args[0] = a ? (uintptr_t)a->p : wild_addr(f);
	l.args[1] = a ? a->len : BLOCK;
	l.args[2] = 1;
	switch (below(f, 7)) {
	case 0: what = "launch: kernel 0"; l.kernel = 0; break;
	/* past EMBER_KERNEL_MAX: below it a number is a kernel the device may run */
	case 1: what = "launch: unknown kernel"; l.kernel = EMBER_KERNEL_MAX + 1 + below(f, 1000);
		break;
	case 2: what = "launch: unknown flags"; l.flags |= 1u << (1 + below(f, 31)); break;
	case 3: what = "launch: nonzero pad"; l.pad = 1 + below(f, 100); break;
	case 4: what = "launch: bad pointer"; f->calls++;
		/*
		 * EFAULT, or EINVAL where the wild address happens to be mapped
		 * (0x7fffffffe000 can be the stack) and its bytes are read as
		 * a launch with fields out of their rules
		 */
		refused(f, "launch: bad pointer",
			ioctl(v->fd, EMBER_IOCTL_LAUNCH, (void *)wild_addr(f)) ? errno : 0,
			ERRS_ADDR | ERRS_ARG);
		return;
	case 5: /* outside every allocation */
		what = "launch: buffer outside every allocation";
		l.args[0] = wild_addr(f);
		l.args[1] = BLOCK * (1 + below(f, 4));
		l.args[2] = 1;
		/*
		 * within the device's VA bits it faults and is cancelled
		 * (EFAULT); past them (the kernel half) the device refuses the
		 * descriptor (EINVAL)
		 */
		classes = ERRS_ADDR | ERRS_ARG;
		break;
	default: /* wrapping length: nothing may be touched */
		what = "launch: wrapping buffer";
		l.args[0] = wild_addr(f) | 0xfff00000ull;
		l.args[1] = ~0ull - below(f, 1 << 20);
		/* refused as a bad span or cancelled at its first access */
		classes = ERRS_ARG | ERRS_ADDR;
		break;
	}
	ret = xioctl(f, v->fd, EMBER_IOCTL_LAUNCH, &l);
	refused(f, what, -ret, classes);
}

static void op_sync(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct ember_synchronize s = { 0 };
	int ret;

	if (!v)
		return;
	if (below(f, 4) == 0) {
		s.flags = 1 + below(f, 15);
		refused(f, "synchronize: unknown flags",
			-xioctl(f, v->fd, EMBER_IOCTL_SYNCHRONIZE, &s), ERRS_ARG);
		return;
	}
	s.timeout_ms = below(f, 2) ? 0 : 60000;
	ret = xioctl(f, v->fd, EMBER_IOCTL_SYNCHRONIZE, &s);
	if (ret && ret != -EFAULT)
		problem(f, "synchronize: %s", strerror(-ret));
	v->busy = false;
}

/* A random range: valid inside an allocation, or malformed. */
static bool some_range(struct fuzz *f, struct alloc *a, __u64 *addr,
		       __u64 *len)
{
	switch (a ? below(f, 8) : 7) {
	case 0: *addr = (uintptr_t)a->p + 1; *len = 4096; return false;
	case 1: *addr = (uintptr_t)a->p; *len = 0; return false;
	case 2: *addr = (uintptr_t)a->p; *len = ~0ull & ~4095ull; return false;
	case 3: *addr = (uintptr_t)a->p; *len = a->len + BLOCK; return false;
	case 7: *addr = wild_addr(f); *len = BLOCK; return false;
	default:
		*addr = (uintptr_t)a->p + below(f, a->len / 4096) * 4096;
		*len = 4096 * (1 + below(f, ((uintptr_t)a->p + a->len - *addr) / 4096));
		return true;
	}
}

static void op_advise(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);
	struct ember_advise ad = { 0 };
	bool valid;
	int ret;

	if (!v)
		return;
	quiesce(f, v);
	valid = some_range(f, a, &ad.addr, &ad.length);
	ad.advice = 1 + below(f, 4);
	ad.processor = ad.advice == EMBER_ADVISE_SET_PREFERRED_LOCATION ?
		       1 + below(f, 2) : ad.advice == EMBER_ADVISE_UNSET_PREFERRED_LOCATION ?
		       EMBER_PROC_NONE : EMBER_PROC_GPU;
	switch (below(f, 6)) {
	case 0: ad.advice = below(f, 2) ? 0 : 5 + below(f, 100); valid = false; break;
	case 1: ad.processor = 3 + below(f, 100); valid = false; break;
	case 2: ad.flags = 1; valid = false; break;
	case 3: ad.pad = 1; valid = false; break;
	}
	ret = xioctl(f, v->fd, EMBER_IOCTL_ADVISE, &ad);
	/* a field or span out of its rules, or a span outside every range */
	if (!valid)
		refused(f, "advise: malformed", -ret, ERRS_ARG | ERRS_ADDR);
	else if (ret)
		problem(f, "valid advise %u/%u: %s", ad.advice, ad.processor, strerror(-ret));
}

static void op_prefetch(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct alloc *a = pick_alloc(f, v, true);
	struct ember_prefetch pf = { 0 };
	bool valid;
	int ret;

	if (!v)
		return;
	quiesce(f, v);
	valid = some_range(f, a, &pf.addr, &pf.length);
	pf.processor = 1 + below(f, 2);
	switch (below(f, 5)) {
	case 0: pf.processor = below(f, 2) ? 0 : 3 + below(f, 100); valid = false; break;
	case 1: pf.flags = 1 + below(f, 7); valid = false; break;
	}
	ret = xioctl(f, v->fd, EMBER_IOCTL_PREFETCH, &pf);
	if (!valid)
		refused(f, "prefetch: malformed", -ret, ERRS_ARG | ERRS_ADDR);
	else if (ret)
		problem(f, "valid prefetch to %u: %s", pf.processor, strerror(-ret));
}

static void op_info(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	union {
		struct ember_device_info di;
		struct ember_mem_info mi;
		struct ember_stats st;
	} u;
	bool bad = below(f, 3) == 0;
	int ret;

	if (!v)
		return;
	memset(&u, 0, sizeof(u));
	switch (below(f, 3)) {
	case 0:
		u.di.gpu_index = bad ? 1 + below(f, 100) : 0;
		ret = xioctl(f, v->fd, EMBER_IOCTL_GET_DEVICE_INFO, &u.di);
		if (bad)	/* the guest has one GPU */
			refused(f, "device info: gpu_index", -ret, ERRS_DEV);
		break;
	case 1:
		u.mi.pad = bad;
		ret = xioctl(f, v->fd, EMBER_IOCTL_MEM_GET_INFO, &u.mi);
		if (bad)
			refused(f, "mem info: pad", -ret, ERRS_ARG);
		break;
	default:
		u.st.scope = bad ? 2 + below(f, 100) : below(f, 2);
		ret = xioctl(f, v->fd, EMBER_IOCTL_GET_STATS, &u.st);
		if (bad)
			refused(f, "stats: scope", -ret, ERRS_ARG);
		break;
	}
}

static void op_policy(struct fuzz *f)
{
	static const char *const names[] = { "uvm", "ember", "ac", "nope", "" };
	struct vspace *v = pick_vs(f, true);
	struct ember_set_policy p;
	size_t i;
	int ret;

	if (!v)
		return;
	memset(&p, 0, sizeof(p));
	if (below(f, 5) == 0) {	/* no NUL */
		for (i = 0; i < sizeof(p.name); i++)
			p.name[i] = 'a' + below(f, 26);
	} else {
		snprintf(p.name, sizeof(p.name), "%s", names[below(f, 5)]);
	}
	quiesce(f, v);
	ret = xioctl(f, v->fd, EMBER_IOCTL_SET_POLICY, &p);
	/* no NUL or empty: EINVAL; a name no policy has: ENOENT */
	if (!memchr(p.name, 0, sizeof(p.name)) ||
	    (strcmp(p.name, "uvm") && strcmp(p.name, "ember") && strcmp(p.name, "ac")))
		refused(f, "set policy: unknown name", -ret, ERRS_ARG | ERRS_NAME);
}

/* Whether cmd is one of /dev/ember's commands, size and direction included. */
static bool known_command(unsigned long cmd)
{
	static const unsigned long known[] = {
		EMBER_IOCTL_GET_DEVICE_INFO, EMBER_IOCTL_ADVISE, EMBER_IOCTL_PREFETCH,
		EMBER_IOCTL_LAUNCH, EMBER_IOCTL_SYNCHRONIZE, EMBER_IOCTL_MEM_GET_INFO,
		EMBER_IOCTL_GET_STATS, EMBER_IOCTL_SET_POLICY,
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (cmd == known[i])
			return true;
	return false;
}

static void op_raw_ioctl(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	uint8_t buf[512];
	unsigned long cmd;
	void *arg;
	size_t i;
	int ret;

	if (!v)
		return;
	quiesce(f, v);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = rnd(f);
	switch (below(f, 4)) {
	case 0:	/* an unknown command number */
		cmd = _IOC(below(f, 4), EMBER_IOCTL_MAGIC, 9 + below(f, 247), below(f, 512));
		break;
	case 1:	/* a right number with the wrong size or direction */
		cmd = _IOC(below(f, 4), EMBER_IOCTL_MAGIC, 1 + below(f, 8), below(f, 512));
		break;
	default: /* a real command with random bytes (launch excluded: random VAs) */
		cmd = (unsigned long[]){ EMBER_IOCTL_GET_DEVICE_INFO, EMBER_IOCTL_ADVISE,
					 EMBER_IOCTL_PREFETCH, EMBER_IOCTL_MEM_GET_INFO,
					 EMBER_IOCTL_GET_STATS, EMBER_IOCTL_SET_POLICY,
					 EMBER_IOCTL_SYNCHRONIZE }[below(f, 7)];
		break;
	}
	if (cmd == EMBER_IOCTL_LAUNCH)
		return;
	arg = below(f, 4) ? (void *)buf : (void *)wild_addr(f);
	ret = xioctl(f, v->fd, cmd, arg);
	/* a number no command has (the first two draws): ENOTTY before any copy */
	if (!known_command(cmd))
		refused(f, "raw ioctl: unknown command", -ret, ERRS_CMD);
	v->busy = v->busy && cmd != EMBER_IOCTL_SYNCHRONIZE;
}

static void op_param(struct fuzz *f)
{
	/* the writable ones, within ranges a loaded TCG guest survives */
	static const struct {
		const char *name;
		unsigned int lo, hi;
	} params[] = {
		{ "launch_timeout_ms", 60000, 600000 },
		{ "hw_timeout_ms", 2000, 20000 },
		{ "hang_timeout_ms", 10000, 60000 },
	};
	static const char *const junk[] = { "abc", "-1", "", "99999999999999999999", "0x", " 5" };
	char path[128], val[32];
	unsigned int i = below(f, 3);
	bool bad = below(f, 3) == 0;
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "/sys/module/ember/parameters/%s", params[i].name);
	if (bad)
		snprintf(val, sizeof(val), "%s", junk[below(f, 6)]);
	else
		snprintf(val, sizeof(val), "%" PRIu64, params[i].lo +
			 below(f, params[i].hi - params[i].lo + 1));
	f->calls++;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		problem(f, "open %s: %s", path, strerror(errno));
		return;
	}
	n = write(fd, val, strlen(val));
	err = n < 0 ? errno : 0;
	close(fd);
	if (!bad && n != (ssize_t)strlen(val))
		problem(f, "write %s=%s: %s", params[i].name, val, strerror(err));
	else if (bad && val[0] && val[0] != ' ')	/* not a number: EINVAL; too big: ERANGE */
		refused(f, "module parameter: junk value", err, ERRS_ARG);
}

static void (*const op_fns[OP_COUNT])(struct fuzz *) = {
	[OP_OPEN] = op_open, [OP_CLOSE] = op_close, [OP_MMAP] = op_mmap,
	[OP_MMAP_BAD] = op_mmap_bad, [OP_MUNMAP] = op_munmap,
	[OP_MUNMAP_PART] = op_munmap_part, [OP_MREMAP] = op_mremap,
	[OP_FORK] = op_fork, [OP_CPU_WRITE] = op_cpu_write,
	[OP_CPU_READ] = op_cpu_read, [OP_LAUNCH] = op_launch,
	[OP_LAUNCH_BAD] = op_launch_bad, [OP_SYNC] = op_sync,
	[OP_ADVISE] = op_advise, [OP_PREFETCH] = op_prefetch, [OP_INFO] = op_info,
	[OP_POLICY] = op_policy, [OP_RAW_IOCTL] = op_raw_ioctl, [OP_PARAM] = op_param,
};

/* The driver answers: a device-info ioctl on a fresh or open VA space. */
static bool driver_answers(struct fuzz *f)
{
	struct vspace *v = pick_vs(f, true);
	struct ember_device_info di = { 0 };
	int fd = v ? v->fd : open("/dev/ember", O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return false;
	ret = xioctl(f, fd, EMBER_IOCTL_GET_DEVICE_INFO, &di);
	if (!v)
		close(fd);
	return !ret && di.abi_version == EMBER_ABI_VERSION;
}

/* Unloads and reloads ember.ko: a leaked reference fails the unload. */
static int reload_module(struct fuzz *f)
{
	int fd;

	f->calls++;
	if (syscall(SYS_delete_module, "ember", O_NONBLOCK)) {
		problem(f, "rmmod ember: %s", strerror(errno));
		return -1;
	}
	fd = open(KO_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
		problem(f, "insmod ember: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(FILE *out, struct fuzz *f, uint64_t seed, double wall, bool final,
		   int reloaded)
{
	unsigned int i;

	fprintf(out, "{\"scenario\":\"fuzz-ioctl\",\"seed\":%" PRIu64 ",\"final\":%s,"
		"\"steps\":%" PRIu64 ",\"calls\":%" PRIu64 ",\"touches\":%" PRIu64 ","
		"\"wall_s\":%.1f,\"mismatches\":%" PRIu64 ",\"accepted_bad\":%" PRIu64 ","
		"\"wrong_errno\":%" PRIu64 ",\"launches_failed\":%" PRIu64 ",\"reloaded\":%d,"
		"\"ops\":{",
		seed, final ? "true" : "false", f->step, f->calls, f->touches, wall,
		f->mismatches, f->accepted_bad, f->wrong_errno, f->launches_failed, reloaded);
	for (i = 0; i < OP_COUNT; i++)
		fprintf(out, "%s\"%s\":%" PRIu64, i ? "," : "", ops[i].name, f->per_op[i]);
	fprintf(out, "},\"op_s\":{");
	for (i = 0; i < OP_COUNT; i++)
		fprintf(out, "%s\"%s\":%.2f", i ? "," : "", ops[i].name, f->op_s[i]);
	fprintf(out, "},\"check_s\":%.2f,\"problem\":\"%s\",\"problem_step\":%" PRIu64
		",\"first_accepted_bad\":\"%s\",\"first_wrong_errno\":\"%s\"}\n", f->check_s,
		f->problem, f->problem_step, f->bad_first, f->wrong_errno_first);
	fflush(out);
}

int main(int argc, char **argv)
{
	static struct fuzz fz;
	struct fuzz *f = &fz;
	struct sigaction sa = { .sa_handler = on_touch_fault };
	uint64_t seed = 1, steps = 0, max_calls = 0, total_weight = 0, w;
	double limit = 0, start, last, t0, t1;
	FILE *out = stdout;
	unsigned int i;
	int opt, reloaded = 0;

	while ((opt = getopt(argc, argv, "s:n:t:c:o:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': steps = strtoull(optarg, NULL, 0); break;
		case 't': limit = strtod(optarg, NULL); break;
		case 'c': max_calls = strtoull(optarg, NULL, 0); break;
		case 'o':
			out = fopen(optarg, "w");
			if (!out) {
				perror(optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: ember-fuzz-ioctl [-s SEED] [-n STEPS] "
				"[-t SECONDS] [-c CALLS] [-o FILE]\n");
			return 2;
		}
	}
	if (!steps && !limit && !max_calls)
		steps = 10000;
	f->rng = seed;
	for (i = 0; i < MAX_VS; i++)
		f->vs[i].fd = -1;
	for (i = 0; i < OP_COUNT; i++)
		total_weight += ops[i].weight;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	start = last = now_s();

	while (!f->problem[0] && (!steps || f->step < steps) &&
	       (!max_calls || f->calls < max_calls) &&
	       (!limit || now_s() - start < limit)) {
		w = below(f, total_weight);
		for (i = 0; w >= ops[i].weight; i++)
			w -= ops[i].weight;
		f->per_op[i]++;
		t0 = now_s();
		op_fns[i](f);
		t1 = now_s();
		f->op_s[i] += t1 - t0;
		f->step++;
		if (!driver_answers(f))
			problem(f, "the driver stopped answering after %s", ops[i].name);
		check_sample(f);
		if (f->step % FULL_CHECK_EVERY == 0)
			check_all(f, "periodic check");
		f->check_s += now_s() - t1;
		if (now_s() - last >= 10) {
			report(out, f, seed, now_s() - start, false, 0);
			last = now_s();
		}
	}
	check_all(f, "final check");
	for (i = 0; i < MAX_VS; i++) {
		unsigned int j;

		if (f->vs[i].fd < 0)
			continue;
		quiesce(f, &f->vs[i]);
		for (j = 0; j < MAX_ALLOCS; j++)
			if (f->vs[i].a[j].p)
				free_alloc(f, &f->vs[i].a[j]);
		close(f->vs[i].fd);
		f->vs[i].fd = -1;
	}
	if (!f->problem[0]) {
		reloaded = !reload_module(f);
		if (reloaded && !driver_answers(f))
			problem(f, "the driver does not answer after reload");
	}
	report(out, f, seed, now_s() - start, true, reloaded);
	return f->problem[0] || f->mismatches ? 1 : 0;
}
