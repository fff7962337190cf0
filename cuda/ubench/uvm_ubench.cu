// SPDX-License-Identifier: MIT
/*
 * uvm-ubench: the undersubscribed UVM microbenchmarks the testbed's profiles
 * are calibrated against (DESIGN.md section 7, "Calibration"), on a real
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
 *   gpu_first_touch managed, untouched, the kernel writes it: pages created
 *                   on the GPU
 *
 * Managed memory stays far below the card's free memory (a card can hang
 * otherwise): at most 1/8 of what cudaMemGetInfo reports free, and at most
 * --bytes (default 2 GiB).
 *
 * usage: uvm-ubench [--bytes N] [--reps N]
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                          \
	do {                                                                 \
		cudaError_t e_ = (call);                                     \
		if (e_ != cudaSuccess) {                                     \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, \
				#call, cudaGetErrorString(e_));              \
			exit(1);                                             \
		}                                                            \
	} while (0)

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

struct ctx {
	int dev;
	int sms;
	size_t bytes;
	unsigned long long *sink;
	cudaEvent_t a, b;
};

static void emit(const char *bench, size_t bytes, double s, const char *extra)
{
	printf("{\"bench\":\"%s\",\"bytes\":%zu,\"seconds\":%.6f,\"gbps\":%.3f%s%s}\n",
	       bench, bytes, s, bytes / s / 1e9, extra ? "," : "", extra ? extra : "");
	fflush(stdout);
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

	CHECK(cudaEventRecord(c.a));
	launch();
	CHECK(cudaEventRecord(c.b));
	CHECK(cudaEventSynchronize(c.b));
	CHECK(cudaGetLastError());
	CHECK(cudaEventElapsedTime(&ms, c.a, c.b));
	return ms / 1e3;
}

static void host_fill(void *p, size_t bytes)
{
	memset(p, 0x5a, bytes);
}

static void *managed(ctx &c, size_t bytes, bool fill)
{
	void *p;

	CHECK(cudaMallocManaged(&p, bytes));
	if (fill)
		host_fill(p, bytes);
	return p;
}

static void map_on_host(ctx &c, void *p, size_t bytes)
{
	cudaMemLocation cpu = { cudaMemLocationTypeHost, 0 };
	cudaMemLocation gpu = { cudaMemLocationTypeDevice, c.dev };

	CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, cpu));
	CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, gpu));
}

static void prefetch_to_gpu(ctx &c, void *p, size_t bytes)
{
	cudaMemLocation gpu = { cudaMemLocationTypeDevice, c.dev };

	CHECK(cudaMemPrefetchAsync(p, bytes, gpu, 0, 0));
}

static void launch_read(ctx &c, void *p, size_t bytes)
{
	read_seq<<<c.sms * 8, 512>>>((const uint4 *)p, bytes / 16, c.sink);
}

int main(int argc, char **argv)
{
	size_t want = 2ull << 30, free_b, total_b;
	int reps = 3, i;
	cudaDeviceProp prop;
	ctx c;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
			want = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--bytes N] [--reps N]\n", argv[0]);
			return 2;
		}
	}
	CHECK(cudaGetDevice(&c.dev));
	CHECK(cudaGetDeviceProperties(&prop, c.dev));
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	c.sms = prop.multiProcessorCount;
	c.bytes = std::min(want, free_b / 8) & ~((2ull << 20) - 1);
	CHECK(cudaMalloc(&c.sink, sizeof(*c.sink)));
	CHECK(cudaEventCreate(&c.a));
	CHECK(cudaEventCreate(&c.b));
	printf("{\"device\":\"%s\",\"sms\":%d,\"memory\":%zu,\"free\":%zu,"
	       "\"bytes\":%zu,\"cc\":\"%d.%d\"}\n", prop.name, c.sms, total_b,
	       free_b, c.bytes, prop.major, prop.minor);

	/* device memory bandwidth */
	{
		void *d;
		std::vector<double> t;

		CHECK(cudaMalloc(&d, c.bytes));
		CHECK(cudaMemset(d, 1, c.bytes));
		for (i = 0; i < reps + 1; i++)	/* first is warm-up */
			t.push_back(timed(c, [&] { launch_read(c, d, c.bytes); }));
		t.erase(t.begin());
		emit("hbm_read", c.bytes, median(t), NULL);
		CHECK(cudaFree(d));
	}
	/* interconnect, pinned copies each way */
	{
		void *d, *h;
		std::vector<double> up, down;

		CHECK(cudaMalloc(&d, c.bytes));
		CHECK(cudaMallocHost(&h, c.bytes));
		host_fill(h, c.bytes);
		for (i = 0; i < reps; i++) {
			up.push_back(timed(c, [&] { CHECK(cudaMemcpy(d, h, c.bytes, cudaMemcpyHostToDevice)); }));
			down.push_back(timed(c, [&] { CHECK(cudaMemcpy(h, d, c.bytes, cudaMemcpyDeviceToHost)); }));
		}
		emit("h2d_copy", c.bytes, median(up), NULL);
		emit("d2h_copy", c.bytes, median(down), NULL);
		CHECK(cudaFree(d));
		CHECK(cudaFreeHost(h));
	}
	/* managed memory: each repetition on a fresh allocation */
	{
		std::vector<double> pf, fs, fr, mr, sh, gf;
		const size_t lines = c.bytes / 128, items = lines / 4;

		for (i = 0; i < reps; i++) {
			void *p = managed(c, c.bytes, true);

			pf.push_back(timed(c, [&] { prefetch_to_gpu(c, p, c.bytes); }));
			CHECK(cudaFree(p));

			p = managed(c, c.bytes, true);
			fs.push_back(timed(c, [&] { launch_read(c, p, c.bytes); }));
			CHECK(cudaFree(p));

			p = managed(c, c.bytes, true);
			fr.push_back(timed(c, [&] {
				read_random<<<c.sms * 8, 512>>>((const unsigned int *)p, lines,
								items, 1 + i, c.sink);
			}));
			CHECK(cudaFree(p));

			p = managed(c, c.bytes, true);
			map_on_host(c, p, c.bytes);
			mr.push_back(timed(c, [&] { launch_read(c, p, c.bytes); }));
			CHECK(cudaFree(p));

			p = managed(c, c.bytes, true);
			map_on_host(c, p, c.bytes);
			sh.push_back(timed(c, [&] {
				prefetch_to_gpu(c, p, c.bytes / 2);
				launch_read(c, p, c.bytes);
			}));
			CHECK(cudaFree(p));

			p = managed(c, c.bytes, false);
			gf.push_back(timed(c, [&] {
				write_seq<<<c.sms * 8, 512>>>((uint4 *)p, c.bytes / 16);
			}));
			CHECK(cudaFree(p));
		}
		emit("prefetch", c.bytes, median(pf), NULL);
		emit("fault_seq", c.bytes, median(fs), NULL);
		{
			char extra[64];

			snprintf(extra, sizeof(extra), "\"lines_read\":%zu", items);
			emit("fault_random", items * 128, median(fr), extra);
		}
		emit("mapped_read", c.bytes, median(mr), NULL);
		emit("static_half", c.bytes, median(sh), NULL);
		emit("gpu_first_touch", c.bytes, median(gf), NULL);
	}
	return 0;
}
