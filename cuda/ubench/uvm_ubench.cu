// SPDX-License-Identifier: MIT
/*
 * uvm-ubench: the undersubscribed UVM microbenchmarks the testbed's profiles
 * are calibrated against (docs/architecture.md, "Requirements"), on a real
 * card with stock CUDA. One JSON line per measurement on stdout:
 *
 *   hbm_read        cudaMalloc'd buffer read by every SM: device bandwidth
 *   h2d_copy/d2h_copy  pinned cudaMemcpy: interconnect bandwidth each way
 *   prefetch        managed, host-filled, cudaMemPrefetchAsync to the GPU
 *   fault_seq       managed, host-filled, a kernel reads it sequentially:
 *                   fault-driven migration with the driver's prefetcher
 *   fault_random    the same with 128-byte random reads (little prefetch use)
 *   mapped_read     preferred location CPU + accessed-by GPU: the kernel reads
 *                   host memory in place over the interconnect
 *   static_half     mapped, first half prefetched (Ember-static's split)
 *   fault_latency_gpu_made, fault_granule_gpu_made  the same on blocks
 *                   nobody touched: their pages are made on the GPU
 *   prefetch_advised  prefetch of a buffer advised as Ember-static advises
 *                   at allocation (preferred location host, accessed-by the
 *                   GPU), then host-filled: Ember-static's whole-buffer
 *                   prefetch, beside the plain prefetch row
 *   gpu_first_touch managed, untouched, the kernel writes it: pages created
 *                   on the GPU
 *   fault_seq_gpu_made  fault_seq on those pages after a prefetch to the
 *                   host: host-resident pages the CPU never touched
 *   launch          one thread reads one GPU-resident word: launch + one access
 *   mapped_latency  the same on a mapped (host-preferred, accessed-by) word:
 *                   launch + one access over the interconnect
 *   fault_latency   one thread reads one word of a host-filled block: one
 *                   isolated fault's round trip (launch included)
 *   fault_parallel  one warp per 2 MiB block reads 32 random 128-byte lines,
 *                   one after the other, of a host-filled buffer: as many
 *                   faults in flight as blocks
 *   fault_granule   after an isolated fault at offset 0 of a 2 MiB block, a
 *                   one-word read at each probe offset: resident (no fault)
 *                   or not, which shows the region one fault migrates
 *   prefetch_to_host  GPU-resident managed memory prefetched to the CPU
 *   mapped_reuse_W  mapped as mapped_read, every line read twice, the second
 *                   time W bytes of reads later (W = 4k, 256k, 4m; the order
 *                   of the testbed's hotset kernel with that window and
 *                   reuse 64): whether the card serves the second read from
 *                   its caches (GB/s of the buffer, as mapped_read) or pays
 *                   the link again (half that)
 *   mapped_write_4b mapped, one 4-byte word stored per 128-byte line: the
 *                   rate of small remote writes
 *   mapped_write_fill  mapped, every word of every line stored 4 bytes at a
 *                   time, a thread per line in word order (32 stores a line,
 *                   a warp's lanes on 32 lines): whether stores that fill
 *                   one line are combined before the link (GB/s near a
 *                   line write's) or each is a request (mapped_write_4b's
 *                   rate of stores)
 *   mapped_read_4b  mapped as mapped_read, one 4-byte word per 128-byte line:
 *                   the interconnect's rate of small remote requests
 *   fault_seq at other sizes with --sweep (16 MiB .. 4 GiB, first-touch
 *                   throughput against size)
 *
 * --fidelity runs, instead of the set, what issue 13's misses needed:
 *   mapped_write_4b and mapped_write_fill at 16 MiB .. 1 GiB
 *   mapped_write_run_K  mapped, a warp stores K consecutive words of one
 *                   line (lanes K.. idle), warps on consecutive lines: the
 *                   cost of a write request against its size, each line
 *                   written once
 *   mapped_write_streams  mapped, radix's scatter: the buffer is 16
 *                   streams, a warp's store puts 2 consecutive words into
 *                   each, consecutive warps fill each stream in order (a
 *                   line's 32 words come from 16 warps)
 *   fault_streams_S  fault_seq read as S sequential streams at once (the
 *                   buffer in S parts, warp w on part w % S): colscan reads
 *                   6 columns so
 *   fault_rows_R    gemv's first touch: a warp per row of R bytes, lanes
 *                   128 bytes apart, the apps' grid (16 blocks of 256 an SM)
 *   prefetch_advice_A  a whole prefetch of a host-filled buffer with advice
 *                   A given first: none, accessed_by (the GPU), host
 *                   (preferred location), both (prefetch_advised), or
 *                   both_after_fill: which of Ember-static's advice makes
 *                   its prefetch faster than the plain one
 *
 * --held-out runs, instead of the set, rows no h200x16 constant was fitted
 * on (host-agent/calibrate.c's table; ember-ubench -H runs the same):
 *   fault_seq at 128 and 512 MiB (the fitted sizes are 16 MiB .. 1 GiB by 4)
 *   fault_random_sparse  fault_random with a line per 32 of the buffer
 *                   (fault_random: one per 4): about one line a page
 *   mapped_reuse_64k/1m/16m  mapped_reuse_W at three new windows
 *   prefetch, prefetch_to_host at 64 MiB and 1 GiB (fitted at 256 MiB)
 *   fault_parallel at 64 MiB and 1 GiB: 32 and 512 blocks in flight
 *                   (fitted at 256 MiB, 128)
 *
 * Every line has "buffer": the managed (or device) allocation it ran on
 * (a 2 MiB block for the isolated accesses), which is how make calibrate
 * pairs a card row with the testbed's row.
 *
 * Managed memory stays far below the card's free memory (a card can hang
 * otherwise): at most 1/8 of what cudaMemGetInfo reports free, and at most
 * --bytes (default 2 GiB).
 *
 * usage: uvm-ubench [--bytes N] [--reps N] [--sweep | --fidelity | --held-out]
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "../cuda_check.h"
#include "../cuda_mem_location.h"


/* Grid-stride read of 16-byte words; the sum keeps the loads alive. */
__global__ void read_seq(const uint4 *p, size_t n, unsigned long long *sink)
{
	unsigned int acc = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint4 v = p[i];
		acc += v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x12345678u)
		atomicAdd(sink, 1ull);
}

/* Each warp reads `count` random 128-byte lines (one 4-byte word a thread). */
__global__ void read_random(const unsigned int *p, size_t lines, size_t count,
			    unsigned long long seed, unsigned long long *sink)
{
	size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	size_t warps = (size_t)gridDim.x * blockDim.x / 32;
	unsigned int lane = threadIdx.x % 32, acc = 0;

	for (size_t k = warp; k < count; k += warps) {
		unsigned long long x = seed + k * 0x9e3779b97f4a7c15ull;

		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
		x ^= x >> 31;
		acc += p[(x % lines) * 32 + lane];
	}
	if (acc == 0x12345678u)
		atomicAdd(sink, 1ull);
}

__global__ void write_seq(uint4 *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = make_uint4(i, i, i, i);
}

/* One thread reads one word: an isolated access (a fault if not resident). */
__global__ void touch_word(const unsigned int *p, unsigned long long *sink)
{
	if (*(volatile const unsigned int *)p == 0x12345678u)
		atomicAdd(sink, 1ull);
}

/* One 4-byte word per 128-byte line: a thread per line, a request per word. */
__global__ void read_line_words(const unsigned int *p, size_t lines,
				unsigned long long *sink)
{
	unsigned int acc = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < lines;
	     i += (size_t)gridDim.x * blockDim.x)
		acc += p[i * 32];
	if (acc == 0x12345678u)
		atomicAdd(sink, 1ull);
}

/*
 * hotset's order with window wpages and reuse 64: window after window, each
 * window's lines twice (slot j: page j % wpages, line (j / wpages) % 32),
 * one 128-byte line a warp-slot.
 */
__global__ void read_window(const unsigned int *p, size_t pages, size_t wpages,
			    unsigned long long *sink)
{
	size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	size_t warps = (size_t)gridDim.x * blockDim.x / 32;
	size_t slots = wpages * 64, items = pages / wpages * slots;
	unsigned int lane = threadIdx.x % 32, acc = 0;

	for (size_t n = warp; n < items; n += warps) {
		size_t j = n % slots, page = n / slots * wpages + j % wpages;

		acc += p[(page * 32 + (j / wpages) % 32) * 32 + lane];
	}
	if (acc == 0x12345678u)
		atomicAdd(sink, 1ull);
}

/* One 4-byte store per 128-byte line: a thread per line, a write per word. */
__global__ void write_line_words(unsigned int *p, size_t lines)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < lines;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i * 32] = (unsigned int)i;
}

/*
 * Every word of every line, one 4-byte store at a time (volatile: the
 * compiler may not merge them into vector stores), a thread per line.
 */
__global__ void write_line_fill(unsigned int *p, size_t lines)
{
	volatile unsigned int *v = p;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < lines;
	     i += (size_t)gridDim.x * blockDim.x)
		for (int k = 0; k < 32; k++)
			v[i * 32 + k] = (unsigned int)(i + k);
}

/* K consecutive words of one line a warp store (lanes K.. idle), a line per warp. */
__global__ void write_warp_run(unsigned int *p, size_t lines, unsigned int k)
{
	size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	size_t warps = (size_t)gridDim.x * blockDim.x / 32;
	unsigned int lane = threadIdx.x % 32;

	if (lane >= k)
		return;
	for (size_t l = warp; l < lines; l += warps)
		p[l * 32 + lane] = (unsigned int)l;
}

/*
 * radix's scatter: 16 streams of words (the buffer's 16 parts); store r of
 * the grid puts lanes 2s and 2s + 1 at words 2r and 2r + 1 of stream s.
 */
__global__ void write_streams(unsigned int *p, size_t words)
{
	size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	size_t warps = (size_t)gridDim.x * blockDim.x / 32;
	size_t per = words / 16;
	unsigned int lane = threadIdx.x % 32;

	for (size_t r = warp; 2 * r + 1 < per; r += warps)
		p[(lane / 2) * per + 2 * r + lane % 2] = (unsigned int)r;
}

/* S sequential streams read at once: warp w reads lines of part w % S. */
__global__ void read_streams(const unsigned int *p, size_t lines, unsigned int s,
			     unsigned long long *sink)
{
	size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	size_t warps = (size_t)gridDim.x * blockDim.x / 32;
	size_t per = lines / s, part = warp % s;
	unsigned int lane = threadIdx.x % 32, acc = 0;

	if (warp >= warps / s * s)	/* the remainder would read lines twice */
		return;
	for (size_t l = warp / s; l < per; l += warps / s)
		acc += p[(part * per + l) * 32 + lane];
	if (acc == 0x12345678u)
		atomicAdd(sink, 1ull);
}

/* gemv's reads (gv_token): a warp per row, lane words 128 bytes apart. */
__global__ void read_rows(const unsigned int *p, size_t rows, size_t row_words,
			  unsigned long long *sink)
{
	size_t warps = (size_t)gridDim.x * blockDim.x / 32;
	unsigned int lane = threadIdx.x % 32, acc = 0;

	for (size_t row = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	     row < rows; row += warps)
		for (size_t c = lane; c < row_words; c += 32)
			acc += p[row * row_words + c];
	if (acc == 0x12345678u)
		atomicAdd(sink, 1ull);
}

struct ctx {
	int dev;
	int sms;
	size_t bytes;
	unsigned long long *sink;
	cudaEvent_t a, b;
};

/* bytes: what the rate is of; buffer: the allocation the bench ran on */
static void emit_on(const char *bench, size_t buffer, size_t bytes, double s,
		    const char *extra)
{
	printf("{\"bench\":\"%s\",\"buffer\":%zu,\"bytes\":%zu,\"seconds\":%.7f,"
	       "\"gbps\":%.3f%s%s}\n", bench, buffer, bytes, s, bytes / s / 1e9,
	       extra ? "," : "", extra ? extra : "");
	fflush(stdout);
}



static void emit(const ctx &c, const char *bench, size_t bytes, double s,
		 const char *extra)
{
	emit_on(bench, c.bytes, bytes, s, extra);
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* Times `launch` between two events on the default stream. */
template <typename F> static double timed(ctx &c, F launch)
{
	float ms;

	CHECK_EXIT(cudaEventRecord(c.a));
	launch();
	CHECK_EXIT(cudaEventRecord(c.b));
	CHECK_EXIT(cudaEventSynchronize(c.b));
	CHECK_EXIT(cudaGetLastError());
	CHECK_EXIT(cudaEventElapsedTime(&ms, c.a, c.b));
	return ms / 1e3;
}

static void host_fill(void *p, size_t bytes)
{
	memset(p, 0x5a, bytes);
}

static void *managed(ctx &c, size_t bytes, bool fill)
{
	void *p;

	CHECK_EXIT(cudaMallocManaged(&p, bytes));
	if (fill)
		host_fill(p, bytes);
	return p;
}

static void map_on_host(ctx &c, void *p, size_t bytes)
{
	mem_location cpu = mem_location_host();
	mem_location gpu = mem_location_device(c.dev);

	CHECK_EXIT(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, cpu));
	CHECK_EXIT(cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, gpu));
}

static void prefetch_to_gpu(ctx &c, void *p, size_t bytes)
{
	mem_location gpu = mem_location_device(c.dev);

	CHECK_EXIT(mem_prefetch(p, bytes, gpu, 0));
}

static void launch_read(ctx &c, void *p, size_t bytes)
{
	read_seq<<<c.sms * 8, 512>>>((const uint4 *)p, bytes / 16, c.sink);
}

static void prefetch_to_cpu(ctx &c, void *p, size_t bytes)
{
	mem_location cpu = mem_location_host();

	CHECK_EXIT(mem_prefetch(p, bytes, cpu, 0));
}

static double touch(ctx &c, const void *p)
{
	return timed(c, [&] { touch_word<<<1, 1>>>((const unsigned int *)p, c.sink); });
}

#define BLOCK (2ull << 20)

/*
 * Isolated accesses, each in a 2 MiB block no access has touched before:
 * launch (resident word), fault_latency (host-resident word), and
 * fault_granule: offset 0 faulted first, then one word at each probe
 * offset read alone; a read as fast as a resident one did not fault, so
 * the first fault migrated the region up to there. Without fill, the
 * same on blocks nobody touched (their pages made on the GPU at the
 * fault): fault_latency_gpu_made and fault_granule_gpu_made.
 */
static void isolated(ctx &c, int reps, bool fill)
{
	static const size_t probes[] = { 4096, 16384, 61440, 65536, 131072,
					 262144, 524288, 1048576, BLOCK - 4096 };
	const int nprobe = sizeof(probes) / sizeof(probes[0]);
	const int nfault = 3 * reps + 8, blocks = nfault + nprobe * reps;
	std::vector<double> launch, fault, remote, probe[nprobe];
	char *p = (char *)managed(c, blocks * BLOCK, fill);
	char extra[256];
	double limit;
	int i, k, b = 0;

	prefetch_to_gpu(c, p, BLOCK);
	CHECK_EXIT(cudaDeviceSynchronize());
	for (i = 0; i < nfault + 1; i++)	/* the first is a warm-up */
		launch.push_back(touch(c, p + (i % 8) * 4096));
	launch.erase(launch.begin());
	for (b = 1; b < nfault; b++)
		fault.push_back(touch(c, p + b * BLOCK));
	for (k = 0; k < nprobe; k++)
		for (i = 0; i < reps; i++, b++) {
			touch(c, p + b * BLOCK);
			probe[k].push_back(touch(c, p + b * BLOCK + probes[k]));
		}
	CHECK_EXIT(cudaFree(p));
	if (fill) {
		p = (char *)managed(c, BLOCK, true);
		map_on_host(c, p, BLOCK);
		for (i = 0; i < nfault; i++)
			remote.push_back(touch(c, p + i * 4096));
		CHECK_EXIT(cudaFree(p));
		emit_on("launch", BLOCK, 4, median(launch), NULL);
		emit_on("mapped_latency", BLOCK, 4, median(remote), NULL);
	}
	emit_on(fill ? "fault_latency" : "fault_latency_gpu_made", BLOCK, 4,
		median(fault), NULL);
	limit = (median(launch) + median(fault)) / 2;
	for (k = 0; k < nprobe; k++) {
		snprintf(extra, sizeof(extra), "\"offset\":%zu,\"resident\":%d",
			 probes[k], median(probe[k]) < limit);
		emit_on(fill ? "fault_granule" : "fault_granule_gpu_made", BLOCK, 4,
			median(probe[k]), extra);
	}
}

/*
 * One warp per 2 MiB block, each reading 32 random lines one after the
 * other: as many faults in flight as blocks (the model's gather gives each
 * warp 32 items the same way).
 */
static void fault_parallel(ctx &c, int reps)
{
	const size_t lines = c.bytes / 128, warps = c.bytes / BLOCK, items = 32 * warps;
	std::vector<double> t;
	char extra[64];
	int i;

	for (i = 0; i < reps; i++) {
		void *p = managed(c, c.bytes, true);

		t.push_back(timed(c, [&] {
			read_random<<<(warps + 15) / 16, 512>>>((const unsigned int *)p,
								lines, items, 7 + i, c.sink);
		}));
		CHECK_EXIT(cudaFree(p));
	}
	snprintf(extra, sizeof(extra), "\"lines_read\":%zu,\"warps\":%zu", items, warps);
	emit(c, "fault_parallel", items * 128, median(t), extra);
}

struct reuse_window {
	const char *name;
	size_t window;
};

/* Mapped lines read twice, the second time a window later (hotset's order). */
static void mapped_reuse_at(ctx &c, int reps, const reuse_window *w, size_t nw)
{
	size_t pages = c.bytes / 4096, k;
	int i;

	for (k = 0; k < nw; k++) {
		std::vector<double> t;

		for (i = 0; i < reps; i++) {
			void *p = managed(c, c.bytes, true);

			map_on_host(c, p, c.bytes);
			t.push_back(timed(c, [&] {
				read_window<<<c.sms * 8, 512>>>((const unsigned int *)p,
								pages, w[k].window / 4096,
								c.sink);
			}));
			CHECK_EXIT(cudaFree(p));
		}
		emit(c, w[k].name, c.bytes, median(t), NULL);
	}
}

static void mapped_reuse(ctx &c, int reps)
{
	static const reuse_window w[] = {
		{ "mapped_reuse_4k", 4096 },
		{ "mapped_reuse_256k", 256 << 10 },
		{ "mapped_reuse_4m", 4 << 20 },
	};

	mapped_reuse_at(c, reps, w, sizeof(w) / sizeof(w[0]));
}

static void host_side(ctx &c, int reps)
{
	const size_t lines = c.bytes / 128;
	std::vector<double> ph, m4, w4, wf;
	char extra[64];
	int i;

	for (i = 0; i < reps; i++) {
		void *p = managed(c, c.bytes, true);

		prefetch_to_gpu(c, p, c.bytes);
		CHECK_EXIT(cudaDeviceSynchronize());
		ph.push_back(timed(c, [&] { prefetch_to_cpu(c, p, c.bytes); }));
		CHECK_EXIT(cudaFree(p));

		p = managed(c, c.bytes, true);
		map_on_host(c, p, c.bytes);
		m4.push_back(timed(c, [&] {
			read_line_words<<<c.sms * 8, 512>>>((const unsigned int *)p,
							   lines, c.sink);
		}));
		w4.push_back(timed(c, [&] {
			write_line_words<<<c.sms * 8, 512>>>((unsigned int *)p, lines);
		}));
		wf.push_back(timed(c, [&] {
			write_line_fill<<<c.sms * 8, 512>>>((unsigned int *)p, lines);
		}));
		CHECK_EXIT(cudaFree(p));
	}
	emit(c, "prefetch_to_host", c.bytes, median(ph), NULL);
	mapped_reuse(c, reps);
	snprintf(extra, sizeof(extra), "\"requests_per_s\":%.0f",
		 lines / median(m4));
	emit(c, "mapped_read_4b", lines * 4, median(m4), extra);
	snprintf(extra, sizeof(extra), "\"requests_per_s\":%.0f",
		 lines / median(w4));
	emit(c, "mapped_write_4b", lines * 4, median(w4), extra);
	snprintf(extra, sizeof(extra), "\"requests_per_s\":%.0f",
		 lines * 32 / median(wf));
	emit(c, "mapped_write_fill", lines * 128, median(wf), extra);
}

/* A run on a fresh host-filled managed buffer (mapped: advised to stay there). */
template <typename F> static double on_fresh(ctx &c, size_t bytes, bool mapped, F k)
{
	void *p = managed(c, bytes, true);
	double s;

	if (mapped)
		map_on_host(c, p, bytes);
	s = timed(c, [&] { k(p); });
	CHECK_EXIT(cudaFree(p));
	return s;
}

static void emit_rate(const char *bench, size_t buffer, size_t bytes,
		      double stores, double s)
{
	char extra[64];

	snprintf(extra, sizeof(extra), "\"requests_per_s\":%.0f", stores / s);
	emit_on(bench, buffer, bytes, s, extra);
}

/* issue 13's measurements (--fidelity); sizes stay under limit. */
static void fidelity(ctx &c, size_t limit, int reps)
{
	static const unsigned int runs[] = { 1, 2, 4, 8, 16, 32 };
	static const unsigned int streams[] = { 1, 2, 6, 16 };
	const int grid = c.sms * 8, apps_grid = c.sms * 16;
	size_t bytes, lines;
	char name[64];
	int i;

	for (bytes = 16ull << 20; bytes <= (1ull << 30) && bytes <= limit; bytes *= 4) {
		std::vector<double> w4, wf, ws, wr[6];

		lines = bytes / 128;
		for (i = 0; i < reps; i++) {
			w4.push_back(on_fresh(c, bytes, true, [&](void *p) {
				write_line_words<<<grid, 512>>>((unsigned int *)p, lines);
			}));
			wf.push_back(on_fresh(c, bytes, true, [&](void *p) {
				write_line_fill<<<grid, 512>>>((unsigned int *)p, lines);
			}));
			ws.push_back(on_fresh(c, bytes, true, [&](void *p) {
				write_streams<<<grid, 512>>>((unsigned int *)p, bytes / 4);
			}));
			for (size_t k = 0; k < 6; k++)
				wr[k].push_back(on_fresh(c, bytes, true, [&](void *p) {
					write_warp_run<<<grid, 512>>>((unsigned int *)p,
								      lines, runs[k]);
				}));
		}
		emit_rate("mapped_write_4b", bytes, lines * 4, lines, median(w4));
		emit_rate("mapped_write_fill", bytes, bytes, lines * 32, median(wf));
		emit_rate("mapped_write_streams", bytes, bytes, bytes / 4, median(ws));
		for (size_t k = 0; k < 6; k++) {
			snprintf(name, sizeof(name), "mapped_write_run_%u", runs[k]);
			emit_rate(name, bytes, lines * 4 * runs[k],
				  (double)lines * runs[k], median(wr[k]));
		}
	}
	for (bytes = 1ull << 30; bytes <= (4ull << 30) && bytes <= limit; bytes *= 4)
		for (size_t k = 0; k < sizeof(streams) / sizeof(streams[0]); k++) {
			std::vector<double> t;

			lines = bytes / 128;
			for (i = 0; i < reps; i++)
				t.push_back(on_fresh(c, bytes, false, [&](void *p) {
					read_streams<<<grid, 512>>>((const unsigned int *)p,
								    lines, streams[k], c.sink);
				}));
			snprintf(name, sizeof(name), "fault_streams_%u", streams[k]);
			emit_on(name, bytes, bytes, median(t), NULL);
		}
	/* advice before the fill (or after it), then a whole prefetch */
	for (bytes = 1ull << 30; bytes <= (1ull << 30) && bytes <= limit; bytes *= 2) {
		static const char *advice[] = { "none", "accessed_by", "host", "both",
						"both_after_fill" };

		for (size_t k = 0; k < 5; k++) {
			std::vector<double> t;

			for (i = 0; i < reps; i++) {
				mem_location cpu = mem_location_host();
				mem_location gpu = mem_location_device(c.dev);
				void *p = managed(c, bytes, false);

				if (k == 1 || k == 3)
					CHECK_EXIT(cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, gpu));
				if (k == 2 || k == 3)
					CHECK_EXIT(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, cpu));
				host_fill(p, bytes);
				if (k == 4)
					map_on_host(c, p, bytes);
				t.push_back(timed(c, [&] { prefetch_to_gpu(c, p, bytes); }));
				CHECK_EXIT(cudaFree(p));
			}
			snprintf(name, sizeof(name), "prefetch_advice_%s", advice[k]);
			emit_on(name, bytes, bytes, median(t), NULL);
		}
	}
	/* gemv's rows at its three footprints, and each row length at 1 and 4 GiB */
	{
		static const size_t rowlen[] = { 32768, 46464, 65536 };

		for (bytes = 1ull << 30; bytes <= (4ull << 30) && bytes <= limit; bytes *= 2)
			for (size_t k = 0; k < 3; k++) {
				std::vector<double> t;
				size_t rows = bytes / rowlen[k];

				if (bytes == (2ull << 30) && k != 1)
					continue;
				for (i = 0; i < reps; i++)
					t.push_back(on_fresh(c, bytes, false, [&](void *p) {
						read_rows<<<apps_grid, 256>>>(
							(const unsigned int *)p, rows,
							rowlen[k] / 4, c.sink);
					}));
				snprintf(name, sizeof(name), "fault_rows_%zu", rowlen[k]);
				emit_on(name, bytes, rows * rowlen[k], median(t), NULL);
			}
	}
}

/* fault_seq on a fresh host-filled buffer of bytes. */
static void fault_seq_at(ctx &c, size_t bytes, int reps)
{
	std::vector<double> t;
	int i;

	for (i = 0; i < reps; i++) {
		void *p = managed(c, bytes, true);

		t.push_back(timed(c, [&] { launch_read(c, p, bytes); }));
		CHECK_EXIT(cudaFree(p));
	}
	emit_on("fault_seq", bytes, bytes, median(t), NULL);
}

/*
 * --held-out: rows no h200x16 constant was fitted on, each as the set runs
 * it (a fresh host-filled buffer a repetition); sizes stay under limit.
 */
static void held_out(ctx &c, size_t limit, int reps)
{
	static const size_t seq_sizes[] = { 128ull << 20, 512ull << 20 };
	static const size_t other_sizes[] = { 64ull << 20, 1ull << 30 };
	static const reuse_window w[] = {
		{ "mapped_reuse_64k", 64 << 10 },
		{ "mapped_reuse_1m", 1 << 20 },
		{ "mapped_reuse_16m", 16 << 20 },
	};
	const size_t keep = c.bytes, lines = c.bytes / 128, items = lines / 32;
	std::vector<double> fr;
	char extra[64];
	size_t k;
	int i;

	for (k = 0; k < 2; k++)
		if (seq_sizes[k] <= limit)
			fault_seq_at(c, seq_sizes[k], reps);
	for (i = 0; i < reps; i++) {
		void *p = managed(c, c.bytes, true);

		fr.push_back(timed(c, [&] {
			read_random<<<c.sms * 8, 512>>>((const unsigned int *)p, lines,
							items, 1 + i, c.sink);
		}));
		CHECK_EXIT(cudaFree(p));
	}
	snprintf(extra, sizeof(extra), "\"lines_read\":%zu", items);
	emit(c, "fault_random_sparse", items * 128, median(fr), extra);
	mapped_reuse_at(c, reps, w, sizeof(w) / sizeof(w[0]));
	for (k = 0; k < 2; k++) {
		std::vector<double> pf, ph;
		size_t bytes = other_sizes[k];

		if (bytes > limit)
			continue;
		for (i = 0; i < reps; i++) {
			void *p = managed(c, bytes, true);

			pf.push_back(timed(c, [&] { prefetch_to_gpu(c, p, bytes); }));
			CHECK_EXIT(cudaDeviceSynchronize());
			ph.push_back(timed(c, [&] { prefetch_to_cpu(c, p, bytes); }));
			CHECK_EXIT(cudaFree(p));
		}
		emit_on("prefetch", bytes, bytes, median(pf), NULL);
		emit_on("prefetch_to_host", bytes, bytes, median(ph), NULL);
		c.bytes = bytes;
		fault_parallel(c, reps);
		c.bytes = keep;
	}
}

/* First-touch throughput against size (fault_seq at the other sizes). */
static void sweep(ctx &c, size_t limit, int reps)
{
	size_t bytes, keep = c.bytes;
	int i;

	for (bytes = 16ull << 20; bytes <= (4ull << 30) && bytes <= limit; bytes *= 4) {
		std::vector<double> t;

		if (bytes == keep)
			continue;
		c.bytes = bytes;
		for (i = 0; i < reps; i++) {
			void *p = managed(c, bytes, true);

			t.push_back(timed(c, [&] { launch_read(c, p, bytes); }));
			CHECK_EXIT(cudaFree(p));
		}
		emit(c, "fault_seq", bytes, median(t), NULL);
	}
	c.bytes = keep;
}

int main(int argc, char **argv)
{
	size_t want = 2ull << 30, free_b, total_b;
	int reps = 3, i, do_sweep = 0, do_fidelity = 0, do_held_out = 0;
	cudaDeviceProp prop;
	ctx c;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
			want = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sweep"))
			do_sweep = 1;
		else if (!strcmp(argv[i], "--fidelity"))
			do_fidelity = 1;
		else if (!strcmp(argv[i], "--held-out"))
			do_held_out = 1;
		else {
			fprintf(stderr, "usage: %s [--bytes N] [--reps N] [--sweep] [--fidelity] [--held-out]\n", argv[0]);
			return 2;
		}
	}
	CHECK_EXIT(cudaGetDevice(&c.dev));
	CHECK_EXIT(cudaGetDeviceProperties(&prop, c.dev));
	CHECK_EXIT(cudaMemGetInfo(&free_b, &total_b));
	c.sms = prop.multiProcessorCount;
	c.bytes = std::min(want, free_b / 8) & ~((2ull << 20) - 1);
	CHECK_EXIT(cudaMalloc(&c.sink, sizeof(*c.sink)));
	CHECK_EXIT(cudaEventCreate(&c.a));
	CHECK_EXIT(cudaEventCreate(&c.b));
	printf("{\"device\":\"%s\",\"sms\":%d,\"memory\":%zu,\"free\":%zu,"
	       "\"bytes\":%zu,\"cc\":\"%d.%d\"}\n", prop.name, c.sms, total_b,
	       free_b, c.bytes, prop.major, prop.minor);
	if (do_fidelity) {
		fidelity(c, c.bytes, reps);
		return 0;
	}
	if (do_held_out) {
		held_out(c, std::min(free_b / 8, (size_t)4 << 30), reps);
		return 0;
	}

	/* device memory bandwidth */
	{
		void *d;
		std::vector<double> t;

		CHECK_EXIT(cudaMalloc(&d, c.bytes));
		CHECK_EXIT(cudaMemset(d, 1, c.bytes));
		for (i = 0; i < reps + 1; i++)	/* first is warm-up */
			t.push_back(timed(c, [&] { launch_read(c, d, c.bytes); }));
		t.erase(t.begin());
		emit(c, "hbm_read", c.bytes, median(t), NULL);
		CHECK_EXIT(cudaFree(d));
	}
	/* interconnect, pinned copies each way */
	{
		void *d, *h;
		std::vector<double> up, down;

		CHECK_EXIT(cudaMalloc(&d, c.bytes));
		CHECK_EXIT(cudaMallocHost(&h, c.bytes));
		host_fill(h, c.bytes);
		for (i = 0; i < reps; i++) {
			up.push_back(timed(c, [&] { CHECK_EXIT(cudaMemcpy(d, h, c.bytes, cudaMemcpyHostToDevice)); }));
			down.push_back(timed(c, [&] { CHECK_EXIT(cudaMemcpy(h, d, c.bytes, cudaMemcpyDeviceToHost)); }));
		}
		emit(c, "h2d_copy", c.bytes, median(up), NULL);
		emit(c, "d2h_copy", c.bytes, median(down), NULL);
		CHECK_EXIT(cudaFree(d));
		CHECK_EXIT(cudaFreeHost(h));
	}
	/* managed memory: each repetition on a fresh allocation */
	{
		std::vector<double> pf, pa, fs, fr, mr, sh, gf, fu;
		const size_t lines = c.bytes / 128, items = lines / 4;

		for (i = 0; i < reps; i++) {
			void *p = managed(c, c.bytes, true);

			pf.push_back(timed(c, [&] { prefetch_to_gpu(c, p, c.bytes); }));
			CHECK_EXIT(cudaFree(p));

			p = managed(c, c.bytes, false);
			map_on_host(c, p, c.bytes);
			host_fill(p, c.bytes);
			pa.push_back(timed(c, [&] { prefetch_to_gpu(c, p, c.bytes); }));
			CHECK_EXIT(cudaFree(p));

			p = managed(c, c.bytes, true);
			fs.push_back(timed(c, [&] { launch_read(c, p, c.bytes); }));
			CHECK_EXIT(cudaFree(p));

			p = managed(c, c.bytes, true);
			fr.push_back(timed(c, [&] {
				read_random<<<c.sms * 8, 512>>>((const unsigned int *)p, lines,
								items, 1 + i, c.sink);
			}));
			CHECK_EXIT(cudaFree(p));

			p = managed(c, c.bytes, true);
			map_on_host(c, p, c.bytes);
			mr.push_back(timed(c, [&] { launch_read(c, p, c.bytes); }));
			CHECK_EXIT(cudaFree(p));

			p = managed(c, c.bytes, true);
			map_on_host(c, p, c.bytes);
			sh.push_back(timed(c, [&] {
				prefetch_to_gpu(c, p, c.bytes / 2);
				launch_read(c, p, c.bytes);
			}));
			CHECK_EXIT(cudaFree(p));

			p = managed(c, c.bytes, false);
			gf.push_back(timed(c, [&] {
				write_seq<<<c.sms * 8, 512>>>((uint4 *)p, c.bytes / 16);
			}));
			/* host-resident now, never touched by the CPU */
			prefetch_to_cpu(c, p, c.bytes);
			CHECK_EXIT(cudaDeviceSynchronize());
			fu.push_back(timed(c, [&] { launch_read(c, p, c.bytes); }));
			CHECK_EXIT(cudaFree(p));
		}
		emit(c, "prefetch", c.bytes, median(pf), NULL);
		emit(c, "prefetch_advised", c.bytes, median(pa), NULL);
		emit(c, "fault_seq", c.bytes, median(fs), NULL);
		{
			char extra[64];

			snprintf(extra, sizeof(extra), "\"lines_read\":%zu", items);
			emit(c, "fault_random", items * 128, median(fr), extra);
		}
		emit(c, "mapped_read", c.bytes, median(mr), NULL);
		emit(c, "static_half", c.bytes, median(sh), NULL);
		emit(c, "gpu_first_touch", c.bytes, median(gf), NULL);
		emit(c, "fault_seq_gpu_made", c.bytes, median(fu), NULL);
	}
	isolated(c, reps, true);
	isolated(c, reps, false);
	fault_parallel(c, reps);
	host_side(c, reps);
	if (do_sweep)
		sweep(c, std::min(free_b / 8, (size_t)4 << 30), reps);
	return 0;
}
