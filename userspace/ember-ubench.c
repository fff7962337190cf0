// SPDX-License-Identifier: MIT
/*
 * ember-ubench: cuda/ubench/uvm_ubench.cu's microbenchmarks in the testbed,
 * through libember, printing JSON lines with the same keys ("bench",
 * "buffer", "bytes", "seconds", "gbps" and each bench's extras), so make
 * calibrate can pair every row with the card's. Times are modelled: a
 * launch's modelled duration (as the card's events time a kernel), and for
 * a prefetch the device clock across the call.
 *
 * The card's kernels are matched by the model's built-in ones:
 *   sequential read   hotset, whole buffer as its window, reuse 32: every
 *                     line of every page read once, read-only
 *   first touch       stream (sequential read-modify-write, line order)
 *   random lines      gather (its 4-byte-per-line output prefetched first)
 *   one word          hotset over one 4 KiB page, one warp: one access
 *   lines read twice  hotset with the row's window and reuse 64
 *   a word a line stored  hotset storing 4 bytes a line (args[6], [7])
 * mapped_read_4b reads one 4-byte word of every line (hotset's args[6]), as
 * the card's row does.
 *
 * -H adds uvm-ubench --held-out's rows, which no h200x16 constant was
 * fitted on (host-agent/calibrate.c's table): fault_seq at 128 and 512 MiB,
 * fault_random_sparse (a random line per 32 of the buffer), mapped_reuse
 * at 64 KiB, 1 MiB and 16 MiB windows, and prefetch, prefetch_to_host and
 * fault_parallel at 64 MiB and 1 GiB.
 *
 * usage: ember-ubench [-b BYTES] [-r REPS] [-S SIZE]... [-H]
 *   -b the buffer of the bandwidth benches (default 64 MiB), -r repetitions
 *   of the isolated-access benches (default 3), -S an extra fault_seq size
 *   (a size sweep; up to 8), -H the held-out rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libember.h"

#define BLOCK		((size_t)2 << 20)
#define NPROBES		9
#define MAX_ISOLATED	64

struct ub {
	size_t bytes;		/* the bandwidth benches' buffer */
	int reps;
};

static const size_t probes[NPROBES] = {
	4096, 16384, 61440, 65536, 131072, 262144, 524288, 1048576,
	BLOCK - 4096,
};

static void die(const char *what, int ret)
{
	printf("{\"bench\":\"error\",\"call\":\"%s\",\"ret\":%d}\n", what, ret);
	exit(1);
}

static void check(const char *what, int ret)
{
	if (ret)
		die(what, ret);
}

/*
 * One line; after the card's keys, what the driver did since the previous
 * line (faults, batches, pages migrated each way and created on the GPU),
 * which explains a row that misses.
 */
static void emit_on(const char *bench, size_t buffer, size_t bytes,
		    uint64_t ns, const char *extra)
{
	static struct ember_stats_counters last;
	struct ember_stats_counters c;
	double s = ns / 1e9;

	if (emGetStats(&c, 0))
		memset(&c, 0, sizeof(c));
	printf("{\"bench\":\"%s\",\"buffer\":%zu,\"bytes\":%zu,\"seconds\":%.7f,"
	       "\"gbps\":%.3f%s%s,\"faults\":%llu,\"faults_duplicate\":%llu,\"batches\":%llu,\"pages_h2d\":%llu,"
	       "\"pages_d2h\":%llu,\"pages_gpu_populated\":%llu}\n", bench, buffer,
	       bytes, s, s > 0 ? bytes / s / 1e9 : 0.0, extra ? "," : "",
	       extra ? extra : "", (unsigned long long)(c.faults - last.faults),
	       (unsigned long long)(c.faults_duplicate - last.faults_duplicate),
	       (unsigned long long)(c.fault_batches - last.fault_batches),
	       (unsigned long long)(c.pages_h2d - last.pages_h2d),
	       (unsigned long long)(c.pages_d2h - last.pages_d2h),
	       (unsigned long long)(c.pages_gpu_populated - last.pages_gpu_populated));
	fflush(stdout);
	last = c;
}

static uint64_t ptimer(void)
{
	struct ember_device_info info;

	check("device_info", emGetDeviceInfo(&info));
	return info.ptimer_ns;
}

static void *alloc(size_t bytes, int fill)
{
	void *p;

	check("malloc_managed", emMallocManaged(&p, bytes));
	if (fill)
		memset(p, 0x5a, bytes);
	return p;
}

static void release(void *p)
{
	check("free", emFree(p));
}

static void map_on_host(void *p, size_t bytes)
{
	check("advise_preferred",
	      emMemAdvise(p, bytes, emMemAdviseSetPreferredLocation, emCpuDeviceId));
	check("advise_accessed_by",
	      emMemAdvise(p, bytes, emMemAdviseSetAccessedBy, 0));
}

/* Device time of a prefetch: the clock moves to the copies' completion. */
static uint64_t prefetch(void *p, size_t bytes, int device)
{
	uint64_t t0 = ptimer();

	check("prefetch", emMemPrefetchAsync(p, bytes, device));
	check("synchronize", emDeviceSynchronize());
	return ptimer() - t0;
}

/* Runs one launch to its end; its modelled duration in ns. */
static uint64_t run(struct ember_launch *l)
{
	uint64_t ns, result;

	check("launch", emLaunch(l));
	check("synchronize", emDeviceSynchronize());
	check("last_launch", emLastLaunch(&ns, &result));
	return ns;
}

/* hotset over [p, p + bytes): reuse 32 reads every line once. */
/* reads each line of p reuse / 32 times, `word` bytes of it (0: all 128) */
static uint64_t read_lines(void *p, size_t bytes, uint32_t reuse, uint32_t warps,
			   uint32_t word)
{
	struct ember_launch l = { .kernel = EMBER_KERNEL_HOTSET, .warps = warps,
				  .seed = 1 };

	l.args[0] = (uintptr_t)p;
	l.args[1] = bytes;
	l.args[4] = reuse;
	l.args[5] = 1;
	l.args[6] = word;
	return run(&l);
}

/* each line of p twice, the second time `window` bytes of reads later */
static uint64_t read_window(void *p, size_t bytes, size_t window)
{
	struct ember_launch l = { .kernel = EMBER_KERNEL_HOTSET, .seed = 1 };

	l.args[0] = (uintptr_t)p;
	l.args[1] = bytes;
	l.args[2] = window;
	l.args[4] = 64;
	l.args[5] = 1;
	return run(&l);
}

/* stores one 4-byte word of every line */
static uint64_t write_words(void *p, size_t bytes)
{
	struct ember_launch l = { .kernel = EMBER_KERNEL_HOTSET, .seed = 1 };

	l.args[0] = (uintptr_t)p;
	l.args[1] = bytes;
	l.args[4] = 32;
	l.args[5] = 1;
	l.args[6] = 4;
	l.args[7] = 1;
	return run(&l);
}

static uint64_t touch(void *p)
{
	return read_lines(p, 4096, 1, 1, 0);
}

static uint64_t first_touch(void *p, size_t bytes)
{
	struct ember_launch l = { .kernel = EMBER_KERNEL_STREAM, .seed = 1 };

	l.args[0] = (uintptr_t)p;
	l.args[1] = bytes;
	l.args[2] = 1;
	return run(&l);
}

/* gather: count random lines of src (count a multiple of 32). */
static uint64_t random_lines(void *src, size_t bytes, uint64_t count,
			     uint64_t seed)
{
	struct ember_launch l = { .kernel = EMBER_KERNEL_GATHER, .seed = seed };
	void *dst = alloc(count * 4, 1);
	uint64_t ns;

	prefetch(dst, count * 4, 0);
	l.args[0] = (uintptr_t)src;
	l.args[1] = bytes;
	l.args[2] = (uintptr_t)dst;
	l.args[3] = count;
	ns = run(&l);
	release(dst);
	return ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* The card's bandwidth set at one buffer size. */
static void bandwidth(const struct ub *u)
{
	size_t b = u->bytes, lines = b / 128, items = (lines / 4) & ~31ull;
	char extra[64];
	uint64_t ns, pf;
	void *p;

	p = alloc(b, 1);
	prefetch(p, b, 0);
	emit_on("hbm_read", b, b, read_lines(p, b, 32, 0, 0), NULL);
	release(p);

	p = alloc(b, 1);
	emit_on("prefetch", b, b, prefetch(p, b, 0), NULL);
	emit_on("prefetch_to_host", b, b, prefetch(p, b, emCpuDeviceId), NULL);
	release(p);

	/* Ember-static's advice before the fill, then the whole prefetch */
	p = alloc(b, 0);
	map_on_host(p, b);
	memset(p, 0x5a, b);
	emit_on("prefetch_advised", b, b, prefetch(p, b, 0), NULL);
	release(p);

	p = alloc(b, 1);
	emit_on("fault_seq", b, b, first_touch(p, b), NULL);
	release(p);

	p = alloc(b, 1);
	snprintf(extra, sizeof(extra), "\"lines_read\":%zu", items);
	emit_on("fault_random", b, items * 128, random_lines(p, b, items, 1), extra);
	release(p);

	p = alloc(b, 1);
	map_on_host(p, b);
	emit_on("mapped_read", b, b, read_lines(p, b, 32, 0, 0), NULL);
	ns = read_lines(p, b, 32, 0, 4);
	snprintf(extra, sizeof(extra), "\"requests_per_s\":%.0f", lines / (ns / 1e9));
	emit_on("mapped_read_4b", b, lines * 4, ns, extra);
	ns = write_words(p, b);
	snprintf(extra, sizeof(extra), "\"requests_per_s\":%.0f", lines / (ns / 1e9));
	emit_on("mapped_write_4b", b, lines * 4, ns, extra);
	emit_on("mapped_reuse_4k", b, b, read_window(p, b, 4096), NULL);
	emit_on("mapped_reuse_256k", b, b, read_window(p, b, 256 << 10), NULL);
	emit_on("mapped_reuse_4m", b, b, read_window(p, b, 4 << 20), NULL);
	release(p);

	p = alloc(b, 1);
	map_on_host(p, b);
	pf = prefetch(p, b / 2, 0);
	emit_on("static_half", b, b, pf + read_lines(p, b, 32, 0, 0), NULL);
	release(p);

	p = alloc(b, 0);
	emit_on("gpu_first_touch", b, b, first_touch(p, b), NULL);
	prefetch(p, b, emCpuDeviceId);	/* host-resident, never CPU-touched */
	emit_on("fault_seq_gpu_made", b, b, first_touch(p, b), NULL);
	release(p);

	items = 32 * (b / BLOCK);	/* one warp per block, 32 lines each */
	p = alloc(b, 1);
	snprintf(extra, sizeof(extra), "\"lines_read\":%zu,\"warps\":%zu",
		 (size_t)items, b / BLOCK);
	emit_on("fault_parallel", b, items * 128, random_lines(p, b, items, 7), extra);
	release(p);
}

static void fault_seq_at(size_t bytes)
{
	void *p = alloc(bytes, 1);

	emit_on("fault_seq", bytes, bytes, first_touch(p, bytes), NULL);
	release(p);
}

/* fault_parallel at bytes: one warp per 2 MiB block, 32 random lines each */
static void fault_parallel_at(size_t bytes)
{
	size_t items = 32 * (bytes / BLOCK);
	char extra[64];
	void *p = alloc(bytes, 1);

	snprintf(extra, sizeof(extra), "\"lines_read\":%zu,\"warps\":%zu", items,
		 bytes / BLOCK);
	emit_on("fault_parallel", bytes, items * 128, random_lines(p, bytes, items, 7),
		extra);
	release(p);
}

/* uvm-ubench --held-out's rows, with its sizes (the card's buffer: u->bytes). */
static void held_out(const struct ub *u)
{
	static const size_t seq_sizes[] = { 128ull << 20, 512ull << 20 };
	static const size_t other_sizes[] = { 64ull << 20, 1ull << 30 };
	static const struct { const char *name; size_t window; } w[] = {
		{ "mapped_reuse_64k", 64 << 10 },
		{ "mapped_reuse_1m", 1 << 20 },
		{ "mapped_reuse_16m", 16 << 20 },
	};
	size_t b = u->bytes, items = b / 128 / 32, k;
	char extra[64];
	void *p;

	for (k = 0; k < 2; k++)
		fault_seq_at(seq_sizes[k]);
	p = alloc(b, 1);
	snprintf(extra, sizeof(extra), "\"lines_read\":%zu", items);
	emit_on("fault_random_sparse", b, items * 128, random_lines(p, b, items, 1),
		extra);
	release(p);
	p = alloc(b, 1);
	map_on_host(p, b);
	for (k = 0; k < 3; k++)
		emit_on(w[k].name, b, b, read_window(p, b, w[k].window), NULL);
	release(p);
	for (k = 0; k < 2; k++) {
		size_t s = other_sizes[k];

		p = alloc(s, 1);
		emit_on("prefetch", s, s, prefetch(p, s, 0), NULL);
		emit_on("prefetch_to_host", s, s, prefetch(p, s, emCpuDeviceId), NULL);
		release(p);
		fault_parallel_at(s);
	}
}

/*
 * Isolated accesses as on the card: launch (a resident word), mapped
 * latency, one fault's round trip, and the probes of what one fault
 * migrated (each probe in a block only its offset-0 fault touched).
 */
static void isolated(const struct ub *u)
{
	uint64_t launch[MAX_ISOLATED], fault[MAX_ISOLATED], remote[MAX_ISOLATED];
	uint64_t probe[NPROBES][MAX_ISOLATED], limit;
	int n = 3 * u->reps + 8, i, k, b = 0;
	char extra[96], *p;

	if (n > MAX_ISOLATED || u->reps > MAX_ISOLATED)
		die("reps", -EINVAL);
	p = alloc((size_t)(n + NPROBES * u->reps) * BLOCK, 1);
	prefetch(p, BLOCK, 0);
	touch(p);	/* warm-up, as on the card */
	for (i = 0; i < n; i++)
		launch[i] = touch(p + (i % 8) * 4096);
	for (b = 1; b < n; b++)
		fault[b - 1] = touch(p + b * BLOCK);
	for (k = 0; k < NPROBES; k++)
		for (i = 0; i < u->reps; i++, b++) {
			touch(p + b * BLOCK);
			probe[k][i] = touch(p + b * BLOCK + probes[k]);
		}
	release(p);
	p = alloc(BLOCK, 1);
	map_on_host(p, BLOCK);
	for (i = 0; i < n; i++)
		remote[i] = touch(p + i * 4096);
	release(p);

	emit_on("launch", BLOCK, 4, median(launch, n), NULL);
	emit_on("mapped_latency", BLOCK, 4, median(remote, n), NULL);
	emit_on("fault_latency", BLOCK, 4, median(fault, n - 1), NULL);
	limit = (median(launch, n) + median(fault, n - 1)) / 2;
	for (k = 0; k < NPROBES; k++) {
		uint64_t m = median(probe[k], u->reps);

		snprintf(extra, sizeof(extra), "\"offset\":%zu,\"resident\":%d",
			 probes[k], m < limit);
		emit_on("fault_granule", BLOCK, 4, m, extra);
	}
}

static size_t parse_size(const char *s)
{
	char *end;
	size_t n = strtoull(s, &end, 0);

	if (*end == 'm' || *end == 'M')
		n <<= 20;
	else if (*end == 'g' || *end == 'G')
		n <<= 30;
	return n;
}

int main(int argc, char **argv)
{
	struct ub u = { .bytes = 64ull << 20, .reps = 3 };
	int do_held_out = 0;
	struct ember_device_info info;
	const char *sweep[8];
	int nsweep = 0, i;
	size_t total;
	int opt;

	while ((opt = getopt(argc, argv, "b:r:S:H")) != -1) {
		switch (opt) {
		case 'b': u.bytes = parse_size(optarg); break;
		case 'r': u.reps = atoi(optarg); break;
		case 'H': do_held_out = 1; break;
		case 'S':
			if (nsweep == 8)
				die("sweep sizes", -E2BIG);
			sweep[nsweep++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: ember-ubench [-b BYTES] [-r REPS] "
				"[-S SIZE]... [-H]\n");
			return 2;
		}
	}
	if (!u.bytes || u.bytes % BLOCK || u.reps < 1)
		die("arguments", -EINVAL);
	check("device_info", emGetDeviceInfo(&info));
	check("mem_get_info", emMemGetInfo(NULL, &total));
	printf("{\"device\":\"emgpu\",\"sms\":%u,\"memory\":%zu,\"bytes\":%zu}\n",
	       info.num_sms, total, u.bytes);
	bandwidth(&u);
	isolated(&u);
	for (i = 0; i < nsweep; i++) {
		size_t b = parse_size(sweep[i]);

		if (!b || b % BLOCK)
			die("sweep size", -EINVAL);
		fault_seq_at(b);
	}
	if (do_held_out)
		held_out(&u);
	emReset();
	return 0;
}
