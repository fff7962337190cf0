// SPDX-License-Identifier: MIT
/*
 * A program with its own placement, for libember-static.so: Ember-static
 * must leave the ranges the program hints alone and place the rest, and its
 * deferred prefetch must fire at the first launch whichever API makes it.
 *
 *   A  cudaMallocManaged; the program advises it to stay on the host
 *      (preferred location CPU + accessed-by the GPU)
 *   B  cudaMallocManaged; advised the same, first half prefetched to the
 *      GPU by the program (its own split)
 *   C  cudaMallocManaged; no hints
 *   D  cuMemAllocManaged (driver API); no hints
 *   E  cudaMallocManaged; first half prefetched to the host by the program,
 *      second half no hints
 *
 * All are filled on the host; the first launch (runtime <<<>>> or driver
 * cuLaunchKernel, as asked) sums A; then every buffer's placement is read
 * (cudaMemRangeGetAttribute: last prefetch location, preferred location;
 * -1 host, -2 none or mixed), then B..E are summed through both APIs and
 * every sum checked. Prints one JSON line; exits 0 when every placement is
 * what EXPECT (ember: under the interposer, plain: without) says.
 *
 * usage: test-hints runtime|driver ember|plain [bytes per buffer]
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda.h>
#include <cuda_runtime.h>

#include "../cuda_check.h"
#include "sum_words.cuh"

#define CU_CHECK(call)                                                         \
	do {                                                                   \
		CUresult e_ = (call);                                          \
		if (e_ != CUDA_SUCCESS) {                                      \
			fprintf(stderr, "%s: error %d\n", #call, (int)e_);     \
			return 1;                                              \
		}                                                              \
	} while (0)

enum { A, B, C, D, E, NBUF };

static int attr(void *p, size_t bytes, cudaMemRangeAttribute a)
{
	int v = -3;

	cudaMemRangeGetAttribute(&v, sizeof(v), a, p, bytes);
	return v;
}

static int last(void *p, size_t bytes)
{
	return attr(p, bytes, cudaMemRangeAttributeLastPrefetchLocation);
}

static int pref(void *p, size_t bytes)
{
	return attr(p, bytes, cudaMemRangeAttributePreferredLocation);
}

static int launch(bool driver, cudaFunction_t fn, unsigned int *p, size_t n,
		  unsigned long long *out)
{
	if (driver) {
		void *args[] = { &p, &n, &out };

		CU_CHECK(cuLaunchKernel((CUfunction)fn, 1024, 1, 1, 256, 1, 1, 0, 0,
					args, NULL));
	} else {
		sum_words<<<1024, 256>>>(p, n, out);
		CHECK(cudaGetLastError());
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool driver = argc > 1 && !strcmp(argv[1], "driver");
	bool ember = argc > 2 && !strcmp(argv[2], "ember");
	size_t bytes = argc > 3 ? strtoull(argv[3], NULL, 0) : (256ull << 20);
	size_t n = bytes / 4, half = bytes / 2;
	cudaMemLocation host = { cudaMemLocationTypeHost, 0 };
	cudaMemLocation gpu = { cudaMemLocationTypeDevice, 0 };
	unsigned long long expect[NBUF] = { 0 }, *sum;
	unsigned int *buf[NBUF];
	int sums_ok = 1, ok, got[11], want[11];
	cudaFunction_t fn;
	CUdeviceptr dptr;
	char *h;

	if (argc < 3 || bytes % (4u << 20)) {
		fprintf(stderr, "usage: test-hints runtime|driver ember|plain "
			"[bytes per buffer, a multiple of 4 MiB]\n");
		return 2;
	}
	CHECK(cudaGetDevice(&gpu.id));
	CHECK(cudaMallocManaged(&buf[A], bytes));
	CHECK(cudaMallocManaged(&buf[B], bytes));
	CHECK(cudaMallocManaged(&buf[C], bytes));
	CU_CHECK(cuMemAllocManaged(&dptr, bytes, CU_MEM_ATTACH_GLOBAL));
	buf[D] = (unsigned int *)(uintptr_t)dptr;
	CHECK(cudaMallocManaged(&buf[E], bytes));
	CHECK(cudaMallocManaged(&sum, NBUF * sizeof(*sum)));
	for (int b = A; b <= B; b++) {
		CHECK(cudaMemAdvise(buf[b], bytes, cudaMemAdviseSetPreferredLocation, host));
		CHECK(cudaMemAdvise(buf[b], bytes, cudaMemAdviseSetAccessedBy, gpu));
	}
	for (int b = 0; b < NBUF; b++)
		for (size_t i = 0; i < n; i++) {
			buf[b][i] = (unsigned int)((i + b) * 2654435761u);
			expect[b] += buf[b][i];
		}
	memset(sum, 0, NBUF * sizeof(*sum));
	CHECK(cudaMemPrefetchAsync(buf[B], half, gpu, 0, 0));
	CHECK(cudaMemPrefetchAsync(buf[E], half, host, 0, 0));
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaGetFuncBySymbol(&fn, (const void *)sum_words));

	if (launch(driver, fn, buf[A], n, &sum[A]))
		return 1;
	CHECK(cudaDeviceSynchronize());
	h = (char *)buf[E];
	got[0] = last(buf[A], bytes);
	got[1] = pref(buf[A], bytes);
	got[2] = last(buf[B], half);
	got[3] = last((char *)buf[B] + half, half);
	got[4] = pref(buf[B], bytes);
	got[5] = last(buf[C], bytes);
	got[6] = last(buf[D], bytes);
	got[7] = last(h, half);
	got[8] = pref(h, half);
	got[9] = last(h + half, half);
	got[10] = pref(h + half, half);
	/* A, B as the program left them; C, D, E's second half Ember's */
	int w[11] = { -2, -1, gpu.id, -2, -1, ember ? gpu.id : -2, ember ? gpu.id : -2,
		      -1, -2, ember ? gpu.id : -2, ember ? -1 : -2 };
	memcpy(want, w, sizeof(want));

	for (int b = B; b < NBUF; b++)
		if (launch(b % 2 ? !driver : driver, fn, buf[b], n, &sum[b]))
			return 1;
	CHECK(cudaDeviceSynchronize());
	for (int b = 0; b < NBUF; b++)
		sums_ok &= sum[b] == expect[b];
	ok = sums_ok && !memcmp(got, want, sizeof(got));
	printf("{\"first_launch\":\"%s\",\"expect\":\"%s\",\"bytes\":%zu,"
	       "\"a_last\":%d,\"a_pref\":%d,\"b_lo_last\":%d,\"b_hi_last\":%d,"
	       "\"b_pref\":%d,\"c_last\":%d,\"d_last\":%d,\"e_lo_last\":%d,"
	       "\"e_lo_pref\":%d,\"e_hi_last\":%d,\"e_hi_pref\":%d,"
	       "\"sums_ok\":%d,\"ok\":%d}\n", driver ? "driver" : "runtime",
	       ember ? "ember" : "plain", bytes, got[0], got[1], got[2], got[3],
	       got[4], got[5], got[6], got[7], got[8], got[9], got[10], sums_ok, ok);
	for (int b = 0; b < NBUF; b++)
		if (b != D)
			cudaFree(buf[b]);
	cuMemFree(dptr);
	cudaFree(sum);
	return ok ? 0 : 1;
}
