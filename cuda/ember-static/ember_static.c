// SPDX-License-Identifier: MIT
/*
 * libember-static.so: Ember-static for unmodified CUDA programs (Ember
 * paper, section 6.2 and Listing 1), as an LD_PRELOAD interposer.
 *
 * Every cudaMallocManaged() gets the paper's two advice calls at once —
 * preferred location the host, accessed-by the current GPU — so the whole
 * allocation is mapped from host memory. The third call, the prefetch of
 * the leading prefix to the GPU, is deferred to the next kernel launch:
 * programs fill their buffers on the host after allocating them, and a
 * prefetch before that would be undone by the host's first touch. At that
 * launch, pending allocations get their prefix prefetched in allocation
 * order, each as large as the GPU memory still free (cudaMemGetInfo) minus
 * a reserve allows; the rest stays mapped. The split is then frozen.
 *
 * Environment:
 *   EMBER_STATIC_RESERVE_MB  GPU memory left free (default 512)
 *   EMBER_STATIC_GPU_BYTES   cap on all prefetched bytes (default: none),
 *                            to study a smaller card within a large one
 *   EMBER_STATIC_VERBOSE=1   one line per decision on stderr
 *
 * The program must use the shared CUDA runtime (nvcc -cudart shared): the
 * static one, nvcc's default, cannot be interposed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define MAX_PENDING 1024

struct pending {
	void *ptr;
	size_t size;
	int dev;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;	/* protects below */
static struct pending pending[MAX_PENDING];
static unsigned int npending;
static size_t prefetched_total;

static size_t env_size(const char *name, size_t def, size_t unit)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) * unit : def;
}

static int verbose(void)
{
	const char *v = getenv("EMBER_STATIC_VERBOSE");

	return v && *v == '1';
}

static void *real(const char *sym)
{
	void *f = dlsym(RTLD_NEXT, sym);

	if (!f) {
		fprintf(stderr, "ember-static: %s not found (is the program linked "
			"with the shared CUDA runtime, nvcc -cudart shared?)\n", sym);
		abort();
	}
	return f;
}

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	static cudaError_t (*next)(void **, size_t, unsigned int);
	struct cudaMemLocation cpu = { cudaMemLocationTypeHost, 0 };
	struct cudaMemLocation gpu = { cudaMemLocationTypeDevice, 0 };
	cudaError_t err;
	int dev;

	if (!next)
		next = real("cudaMallocManaged");
	err = next(ptr, size, flags);
	if (err != cudaSuccess || !size || cudaGetDevice(&dev) != cudaSuccess)
		return err;
	gpu.id = dev;
	/* Listing 1, lines 3-4: mapped from the host by default */
	if (cudaMemAdvise(*ptr, size, cudaMemAdviseSetPreferredLocation, cpu) != cudaSuccess ||
	    cudaMemAdvise(*ptr, size, cudaMemAdviseSetAccessedBy, gpu) != cudaSuccess) {
		fprintf(stderr, "ember-static: advice on %p failed; left as plain UVM\n", *ptr);
		return cudaSuccess;
	}
	pthread_mutex_lock(&lock);
	if (npending < MAX_PENDING)
		pending[npending++] = (struct pending){ *ptr, size, dev };
	pthread_mutex_unlock(&lock);
	if (verbose())
		fprintf(stderr, "ember-static: %zu bytes at %p mapped from the host\n",
			size, *ptr);
	return cudaSuccess;
}

/* Listing 1, line 5: the leading prefix of each allocation to the GPU. */
static void flush_prefetches(cudaStream_t stream)
{
	size_t reserve = env_size("EMBER_STATIC_RESERVE_MB", 512ull << 20, 1ull << 20);
	size_t cap = env_size("EMBER_STATIC_GPU_BYTES", (size_t)-1, 1);
	size_t free_b, total_b, room, hot;
	unsigned int i;

	pthread_mutex_lock(&lock);
	if (!npending || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
		pthread_mutex_unlock(&lock);
		return;
	}
	room = free_b > reserve ? free_b - reserve : 0;
	for (i = 0; i < npending; i++) {
		struct cudaMemLocation gpu = { cudaMemLocationTypeDevice, pending[i].dev };

		hot = pending[i].size < room ? pending[i].size : room;
		if (prefetched_total + hot > cap)
			hot = cap > prefetched_total ? cap - prefetched_total : 0;
		hot &= ~((size_t)(2u << 20) - 1);	/* whole 2 MiB VA blocks */
		if (hot && cudaMemPrefetchAsync(pending[i].ptr, hot, gpu, 0, stream) == cudaSuccess) {
			room -= hot;
			prefetched_total += hot;
		}
		if (verbose())
			fprintf(stderr, "ember-static: %p: %zu of %zu bytes prefetched to GPU %d\n",
				pending[i].ptr, hot, pending[i].size, pending[i].dev);
	}
	npending = 0;
	pthread_mutex_unlock(&lock);
}

/*
 * Kernel launches: the C API, and the entry points nvcc's <<<>>> stubs call
 * since CUDA 13 (__cudaLaunchKernel, and _ptsz with per-thread default
 * streams). Each flushes the pending prefetches onto the launch's stream,
 * so they complete before the kernel runs.
 */
#define EMBER_STATIC_LAUNCH(name)						\
cudaError_t name(const void *kernel, dim3 grid, dim3 block, void **args,	\
		 size_t shmem, cudaStream_t stream);				\
cudaError_t name(const void *kernel, dim3 grid, dim3 block, void **args,	\
		 size_t shmem, cudaStream_t stream)				\
{										\
	static cudaError_t (*next)(const void *, dim3, dim3, void **, size_t,	\
				   cudaStream_t);				\
										\
	if (!next)								\
		next = real(#name);						\
	flush_prefetches(stream);						\
	return next(kernel, grid, block, args, shmem, stream);			\
}

EMBER_STATIC_LAUNCH(cudaLaunchKernel)
EMBER_STATIC_LAUNCH(__cudaLaunchKernel)
EMBER_STATIC_LAUNCH(__cudaLaunchKernel_ptsz)
