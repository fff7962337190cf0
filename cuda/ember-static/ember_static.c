// SPDX-License-Identifier: MIT
/*
 * libember-static.so: Ember-static for unmodified CUDA programs (Ember
 * paper, section 6.2 and Listing 1), as an LD_PRELOAD interposer.
 *
 * Every managed allocation (cudaMallocManaged, cuMemAllocManaged) gets the
 * paper's two advice calls at once — preferred location the host,
 * accessed-by the current GPU — so the whole allocation is mapped from host
 * memory. The third call, the prefetch of the leading prefix to the GPU, is
 * deferred to the next kernel launch: programs fill their buffers on the
 * host after allocating them, and a prefetch before that would be undone by
 * the host's first touch. At that launch, pending allocations get their
 * prefix prefetched in allocation order, each as large as the GPU memory
 * still free (cudaMemGetInfo) minus a reserve allows; the rest stays mapped.
 * The split is then frozen.
 *
 * The program's own hints win (paper, section 4: an application's hints on
 * a range override Ember for that range). A range the program passes to
 * cudaMemAdvise / cuMemAdvise or cudaMemPrefetchAsync / cuMemPrefetchAsync
 * becomes the program's: Ember's two advice calls are undone on it before
 * the program's call goes through, and the deferred prefetch skips it (only
 * the unhinted parts of an allocation, in whole 2 MiB blocks, are
 * prefetched). Launches are caught on both APIs: the runtime's
 * (cudaLaunchKernel and nvcc 13's __cudaLaunchKernel[_ptsz] stubs) and the
 * driver's (cuLaunchKernel[Ex][_ptsz], what CuPy and Triton call).
 *
 * Environment:
 *   EMBER_STATIC_MODE        what is done to each managed allocation, so that
 *                            the testbed's variants (userspace/workload.c's
 *                            apply_variant) run on a card without changing
 *                            the program; the program's own hints win in
 *                            every mode:
 *     static (default)  the above: advice CPU + accessed-by GPU at once, the
 *                       leading prefix that fits prefetched at the next launch
 *     uvm               nothing: every call passes straight through
 *     prefetch          no advice; the whole allocation (its unhinted parts)
 *                       prefetched to the GPU at the next launch, room allowing
 *     mapped            advice CPU + accessed-by GPU at once, no prefetch
 *   EMBER_STATIC_ALIGN_KB    granularity of the deferred prefetch in static
 *                            mode (default 2048: whole 2 MiB blocks, so an
 *                            allocation under 2 MiB stays mapped; 4 prefetches
 *                            whole pages, as the testbed's static does)
 *   EMBER_STATIC_RESERVE_MB  GPU memory left free (default 512)
 *   EMBER_STATIC_GPU_BYTES   cap on all prefetched bytes (default: none),
 *                            to study a smaller card within a large one
 *   EMBER_STATIC_VERBOSE=1   one line per decision on stderr
 *
 * The runtime's entry points are looked up after the interposer
 * (RTLD_NEXT) or, where the program loaded libcudart privately (Python
 * extensions such as CuPy's: dlopen without RTLD_GLOBAL), in that loaded
 * copy (dl_iterate_phdr); the interposer's own runtime calls go the same way.
 *
 * Built against CUDA 13, or CUDA 11.8 for the real-card guest image
 * (images/nvidia), whose runtime and driver name memory locations by device
 * number and have no cuLaunchKernelEx.
 *
 * The program must use the shared CUDA runtime (nvcc -cudart shared) or
 * link libcuda.so: the static runtime, nvcc's default, cannot be
 * interposed. Calls a program makes through cuGetProcAddress or dlsym on a
 * library handle bypass the interposer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "../cuda_mem_location.h"

#define MAX_ALLOCS	1024
#define MAX_HINTS	16
#define BLOCK		(2ull << 20)	/* static's default prefetch granularity */

enum ember_mode {
	MODE_STATIC,		/* the default: mapped, prefix prefetched */
	MODE_UVM,		/* untouched */
	MODE_PREFETCH,		/* whole allocation prefetched, no advice */
	MODE_MAPPED,		/* mapped, never prefetched */
};

struct range {
	uintptr_t lo, hi;
};

/* A managed allocation Ember advised, and the program's hints inside it. */
struct managed {
	uintptr_t base;
	size_t size;
	int dev;
	int advised;			/* Ember's two advice calls are on it */
	int pending;			/* prefetch not yet decided */
	int all_hinted;			/* more hints than hint[] holds */
	unsigned int nhints;
	struct range hint[MAX_HINTS];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;	/* protects below */
static struct managed allocs[MAX_ALLOCS];
static unsigned int nallocs;
static size_t prefetched_total;

typedef cudaError_t (*advise_fn)(const void *, size_t, enum cudaMemoryAdvise,
				 mem_location);
#if CUDART_VERSION >= 13000
typedef cudaError_t (*prefetch_fn)(const void *, size_t, struct cudaMemLocation,
				   unsigned int, cudaStream_t);
#else
typedef cudaError_t (*prefetch_fn)(const void *, size_t, int, cudaStream_t);
#endif

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

/* EMBER_STATIC_MODE, read once; a value it does not know stops the program. */
static enum ember_mode mode(void)
{
	static const char *const names[] = {
		[MODE_STATIC] = "static", [MODE_UVM] = "uvm",
		[MODE_PREFETCH] = "prefetch", [MODE_MAPPED] = "mapped",
	};
	static int cached = -1;
	const char *v;
	int m;

	if (cached >= 0)
		return (enum ember_mode)cached;
	v = getenv("EMBER_STATIC_MODE");
	if (!v || !*v) {
		cached = MODE_STATIC;
		return MODE_STATIC;
	}
	for (m = 0; m < (int)(sizeof(names) / sizeof(names[0])); m++)
		if (!strcmp(v, names[m])) {
			cached = m;
			return (enum ember_mode)m;
		}
	fprintf(stderr, "ember-static: EMBER_STATIC_MODE=%s: not one of static, uvm, "
		"prefetch, mapped\n", v);
	abort();
}

struct lib_search {
	const char *prefix;	/* "libcudart.so" or "libcuda.so" */
	char path[4096];
};

static int find_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	struct lib_search *s = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, s->prefix, strlen(s->prefix)))
		return 0;
	snprintf(s->path, sizeof(s->path), "%s", info->dlpi_name);
	return 1;
}

/* sym in a loaded library whose name starts with prefix, or NULL. */
static void *loaded_sym(const char *prefix, const char *sym)
{
	struct lib_search s = { prefix, "" };
	void *h, *f;

	if (!dl_iterate_phdr(find_loaded, &s))
		return NULL;
	h = dlopen(s.path, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	f = dlsym(h, sym);
	dlclose(h);	/* NOLOAD took a reference; the library stays loaded */
	return f;
}

static void *real(const char *sym)
{
	void *f = dlsym(RTLD_NEXT, sym);

	if (!f)
		f = loaded_sym(strncmp(sym, "cu", 2) || !strncmp(sym, "cuda", 4) ?
			       "libcudart.so" : "libcuda.so", sym);
	if (!f) {
		fprintf(stderr, "ember-static: %s not found (is the program linked "
			"with the shared CUDA runtime, nvcc -cudart shared?)\n", sym);
		abort();
	}
	return f;
}

static cudaError_t real_get_device(int *dev)
{
	static cudaError_t (*f)(int *);

	if (!f)
		f = (cudaError_t (*)(int *))real("cudaGetDevice");
	return f(dev);
}

static cudaError_t real_mem_get_info(size_t *free_b, size_t *total_b)
{
	static cudaError_t (*f)(size_t *, size_t *);

	if (!f)
		f = (cudaError_t (*)(size_t *, size_t *))real("cudaMemGetInfo");
	return f(free_b, total_b);
}

/* Ember's own calls go to the runtime directly, never through the hooks. */
static cudaError_t real_advise(const void *p, size_t n, enum cudaMemoryAdvise a,
			       mem_location loc)
{
	static advise_fn f;

	if (!f)
		f = (advise_fn)real("cudaMemAdvise");
	return f(p, n, a, loc);
}

static cudaError_t real_prefetch(const void *p, size_t n, mem_location loc,
				 cudaStream_t s)
{
	static prefetch_fn f;

	if (!f)
		f = (prefetch_fn)real("cudaMemPrefetchAsync");
#if CUDART_VERSION >= 13000
	return f(p, n, loc, 0, s);
#else
	return f(p, n, loc, s);
#endif
}

/*
 * Listing 1, lines 3-4: mapped from the host by default (static, mapped);
 * prefetch only records the allocation for the next launch; uvm does nothing.
 */
static void adopt(void *ptr, size_t size)
{
	mem_location cpu = mem_location_host(), gpu;
	enum ember_mode m = mode();
	int advise = m == MODE_STATIC || m == MODE_MAPPED;
	unsigned int i;
	int dev;

	if (m == MODE_UVM || !size || real_get_device(&dev) != cudaSuccess)
		return;
	gpu = mem_location_device(dev);
	if (advise &&
	    (real_advise(ptr, size, cudaMemAdviseSetPreferredLocation, cpu) != cudaSuccess ||
	     real_advise(ptr, size, cudaMemAdviseSetAccessedBy, gpu) != cudaSuccess)) {
		fprintf(stderr, "ember-static: advice on %p failed; left as plain UVM\n", ptr);
		return;
	}
	pthread_mutex_lock(&lock);
	for (i = 0; i < nallocs && allocs[i].base != (uintptr_t)ptr; i++)
		;
	if (i < MAX_ALLOCS) {
		allocs[i] = (struct managed){ (uintptr_t)ptr, size, dev, advise,
					      m != MODE_MAPPED, 0, 0, { { 0, 0 } } };
		if (i == nallocs)
			nallocs++;
	}
	pthread_mutex_unlock(&lock);
	if (verbose())
		fprintf(stderr, "ember-static: %zu bytes at %p %s\n", size, ptr,
			advise ? "mapped from the host" : "to be prefetched at the next launch");
}

static void forget(uintptr_t ptr)
{
	unsigned int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nallocs; i++)
		if (allocs[i].base == ptr) {
			allocs[i] = allocs[--nallocs];
			break;
		}
	pthread_mutex_unlock(&lock);
}

static int by_lo(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/*
 * The parts of [lo, hi) inside m that the program has not hinted, in
 * address order, into gaps (MAX_HINTS + 1 entries); returns how many.
 * Caller holds lock.
 */
static unsigned int unhinted(struct managed *m, uintptr_t lo, uintptr_t hi,
			     struct range *gaps)
{
	uintptr_t at = lo > m->base ? lo : m->base;
	uintptr_t end = hi < m->base + m->size ? hi : m->base + m->size;
	unsigned int i, n = 0;

	if (m->all_hinted)
		return 0;
	qsort(m->hint, m->nhints, sizeof(m->hint[0]), by_lo);
	for (i = 0; i <= m->nhints && at < end; i++) {
		uintptr_t stop = i < m->nhints && m->hint[i].lo < end ? m->hint[i].lo : end;

		if (stop > at)
			gaps[n++] = (struct range){ at, stop };
		if (i < m->nhints && m->hint[i].hi > at)
			at = m->hint[i].hi;
	}
	return n;
}

/*
 * The program hints [p, p + n): each allocation it touches records the
 * range, and Ember's advice is undone there so the program's stands alone.
 */
static void program_hint(const char *call, const void *p, size_t n)
{
	mem_location cpu = mem_location_host(), gpu;
	uintptr_t lo = (uintptr_t)p, hi = lo + n;
	struct range gaps[MAX_HINTS + 1];
	unsigned int i, g, ngaps;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nallocs; i++) {
		struct managed *m = &allocs[i];
		uintptr_t a = lo > m->base ? lo : m->base;
		uintptr_t b = hi < m->base + m->size ? hi : m->base + m->size;

		if (a >= b)
			continue;
		/* Ember's advice goes once, where the program had no hint yet */
		ngaps = m->advised ? unhinted(m, a, b, gaps) : 0;
		gpu = mem_location_device(m->dev);
		for (g = 0; g < ngaps; g++) {
			void *at = (void *)gaps[g].lo;
			size_t len = gaps[g].hi - gaps[g].lo;

			real_advise(at, len, cudaMemAdviseUnsetPreferredLocation, cpu);
			real_advise(at, len, cudaMemAdviseUnsetAccessedBy, gpu);
		}
		if (m->nhints < MAX_HINTS)
			m->hint[m->nhints++] = (struct range){ a, b };
		else
			m->all_hinted = 1;
		if (verbose())
			fprintf(stderr, "ember-static: %s on %#lx..%#lx: the program's, "
				"left alone\n", call, (unsigned long)a, (unsigned long)b);
	}
	pthread_mutex_unlock(&lock);
}

/*
 * Listing 1, line 5: the leading unhinted part of each pending allocation,
 * up to the room left, to the GPU, in blocks of align bytes (static) or
 * exactly (prefetch: align 1). Caller holds lock.
 */
static void prefetch_unhinted(struct managed *m, size_t *room, size_t cap,
			      size_t align, cudaStream_t stream)
{
	mem_location gpu = mem_location_device(m->dev);
	struct range gaps[MAX_HINTS + 1];
	size_t hot = 0, free_of_hints = 0, n;
	unsigned int i, ngaps = unhinted(m, m->base, m->base + m->size, gaps);

	for (i = 0; i < ngaps; i++) {
		uintptr_t a = (gaps[i].lo + align - 1) & ~(align - 1);
		uintptr_t b = gaps[i].hi & ~(align - 1);

		free_of_hints += gaps[i].hi - gaps[i].lo;
		if (b <= a)
			continue;
		n = b - a < *room ? b - a : *room;
		if (prefetched_total + n > cap)
			n = cap > prefetched_total ? cap - prefetched_total : 0;
		n &= ~(align - 1);
		if (n && real_prefetch((void *)a, n, gpu, stream) == cudaSuccess) {
			*room -= n;
			prefetched_total += n;
			hot += n;
		}
	}
	if (verbose())
		fprintf(stderr, "ember-static: %#lx: %zu of %zu bytes prefetched to GPU %d "
			"(%zu hinted by the program)\n", (unsigned long)m->base, hot,
			m->size, m->dev, m->size - free_of_hints);
}

static void flush_prefetches(cudaStream_t stream)
{
	size_t reserve = env_size("EMBER_STATIC_RESERVE_MB", 512ull << 20, 1ull << 20);
	size_t cap = env_size("EMBER_STATIC_GPU_BYTES", (size_t)-1, 1);
	size_t align = mode() == MODE_PREFETCH ? 1 :
		       env_size("EMBER_STATIC_ALIGN_KB", BLOCK, 1024);
	size_t free_b, total_b, room;
	unsigned int i;

	if (!align || (align & (align - 1))) {
		fprintf(stderr, "ember-static: EMBER_STATIC_ALIGN_KB=%s: not a power "
			"of two\n", getenv("EMBER_STATIC_ALIGN_KB"));
		abort();
	}

	pthread_mutex_lock(&lock);
	for (i = 0; i < nallocs && !allocs[i].pending; i++)
		;
	if (i == nallocs || real_mem_get_info(&free_b, &total_b) != cudaSuccess) {
		pthread_mutex_unlock(&lock);
		return;
	}
	room = free_b > reserve ? free_b - reserve : 0;
	for (; i < nallocs; i++)
		if (allocs[i].pending) {
			prefetch_unhinted(&allocs[i], &room, cap, align, stream);
			allocs[i].pending = 0;
		}
	pthread_mutex_unlock(&lock);
}

/* ---- the runtime API ---- */

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	static cudaError_t (*next)(void **, size_t, unsigned int);
	cudaError_t err;

	if (!next)
		next = real("cudaMallocManaged");
	err = next(ptr, size, flags);
	if (err == cudaSuccess)
		adopt(*ptr, size);
	return err;
}

cudaError_t cudaFree(void *ptr)
{
	static cudaError_t (*next)(void *);

	if (!next)
		next = real("cudaFree");
	forget((uintptr_t)ptr);
	return next(ptr);
}

cudaError_t cudaMemAdvise(const void *p, size_t n, enum cudaMemoryAdvise advice,
			  mem_location loc)
{
	program_hint("cudaMemAdvise", p, n);
	return real_advise(p, n, advice, loc);
}

#if CUDART_VERSION >= 13000
#define EMBER_STATIC_PREFETCH(name)						\
cudaError_t name(const void *p, size_t n, struct cudaMemLocation loc,		\
		 unsigned int flags, cudaStream_t stream)			\
{										\
	static prefetch_fn next;						\
										\
	if (!next)								\
		next = (prefetch_fn)real(#name);				\
	program_hint(#name, p, n);						\
	return next(p, n, loc, flags, stream);					\
}
#else
#define EMBER_STATIC_PREFETCH(name)						\
cudaError_t name(const void *p, size_t n, int dev, cudaStream_t stream)	\
{										\
	static prefetch_fn next;						\
										\
	if (!next)								\
		next = (prefetch_fn)real(#name);				\
	program_hint(#name, p, n);						\
	return next(p, n, dev, stream);						\
}
#endif

EMBER_STATIC_PREFETCH(cudaMemPrefetchAsync)
EMBER_STATIC_PREFETCH(cudaMemPrefetchAsync_ptsz)

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

/* ---- the driver API (cuda.h maps the plain names to these versions) ---- */

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
	static CUresult (*next)(CUdeviceptr *, size_t, unsigned int);
	CUresult err;

	if (!next)
		next = real("cuMemAllocManaged");
	err = next(dptr, size, flags);
	if (err == CUDA_SUCCESS)
		adopt((void *)(uintptr_t)*dptr, size);
	return err;
}

CUresult cuMemFree_v2(CUdeviceptr ptr)
{
	static CUresult (*next)(CUdeviceptr);

	if (!next)
		next = real("cuMemFree_v2");
	forget((uintptr_t)ptr);
	return next(ptr);
}

#if CUDA_VERSION >= 13000
CUresult cuMemAdvise_v2(CUdeviceptr p, size_t n, CUmem_advise advice, CUmemLocation loc)
{
	static CUresult (*next)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);

	if (!next)
		next = real("cuMemAdvise_v2");
	program_hint("cuMemAdvise", (void *)(uintptr_t)p, n);
	return next(p, n, advice, loc);
}

#define EMBER_STATIC_CU_PREFETCH(name)						\
CUresult name(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned int flags,	\
	      CUstream stream)							\
{										\
	static CUresult (*next)(CUdeviceptr, size_t, CUmemLocation,		\
				unsigned int, CUstream);			\
										\
	if (!next)								\
		next = real(#name);						\
	program_hint(#name, (void *)(uintptr_t)p, n);				\
	return next(p, n, loc, flags, stream);					\
}

EMBER_STATIC_CU_PREFETCH(cuMemPrefetchAsync_v2)
EMBER_STATIC_CU_PREFETCH(cuMemPrefetchAsync_v2_ptsz)
#else
/* CUDA 11.8: a device number, no flags */
CUresult cuMemAdvise(CUdeviceptr p, size_t n, CUmem_advise advice, CUdevice dev)
{
	static CUresult (*next)(CUdeviceptr, size_t, CUmem_advise, CUdevice);

	if (!next)
		next = real("cuMemAdvise");
	program_hint("cuMemAdvise", (void *)(uintptr_t)p, n);
	return next(p, n, advice, dev);
}

#define EMBER_STATIC_CU_PREFETCH(name)						\
CUresult name(CUdeviceptr p, size_t n, CUdevice dev, CUstream stream)		\
{										\
	static CUresult (*next)(CUdeviceptr, size_t, CUdevice, CUstream);	\
										\
	if (!next)								\
		next = real(#name);						\
	program_hint(#name, (void *)(uintptr_t)p, n);				\
	return next(p, n, dev, stream);						\
}

EMBER_STATIC_CU_PREFETCH(cuMemPrefetchAsync)
EMBER_STATIC_CU_PREFETCH(cuMemPrefetchAsync_ptsz)
#endif

/* runtime and driver stream handles are the same objects */
#define EMBER_STATIC_CU_LAUNCH(name)						\
CUresult name(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,	\
	      unsigned int bx, unsigned int by, unsigned int bz,		\
	      unsigned int shmem, CUstream stream, void **params, void **extra)	\
{										\
	static CUresult (*next)(CUfunction, unsigned int, unsigned int,		\
				unsigned int, unsigned int, unsigned int,	\
				unsigned int, unsigned int, CUstream, void **,	\
				void **);					\
										\
	if (!next)								\
		next = real(#name);						\
	flush_prefetches((cudaStream_t)stream);					\
	return next(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra);	\
}

EMBER_STATIC_CU_LAUNCH(cuLaunchKernel)
EMBER_STATIC_CU_LAUNCH(cuLaunchKernel_ptsz)

#if CUDA_VERSION >= 12000	/* cuLaunchKernelEx is CUDA 12's */
#define EMBER_STATIC_CU_LAUNCH_EX(name)						\
CUresult name(const CUlaunchConfig *config, CUfunction f, void **params,	\
	      void **extra)							\
{										\
	static CUresult (*next)(const CUlaunchConfig *, CUfunction, void **,	\
				void **);					\
										\
	if (!next)								\
		next = real(#name);						\
	flush_prefetches((cudaStream_t)config->hStream);			\
	return next(config, f, params, extra);					\
}

EMBER_STATIC_CU_LAUNCH_EX(cuLaunchKernelEx)
EMBER_STATIC_CU_LAUNCH_EX(cuLaunchKernelEx_ptsz)
#endif
