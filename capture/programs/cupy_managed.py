# A small CuPy program on a managed memory pool: CuPy's own kernels
# (elementwise, reduction, cuBLAS matmul), none written here.
#
# EMBER_VARIANT (default uvm) applies the testbed's variants the way a CuPy
# user would, in the allocator given to cupy.cuda.set_allocator, through
# cupy.cuda.runtime: cuda/ember-static's LD_PRELOAD interposer does not
# reach CuPy's allocations (CuPy calls the runtime through handles of its
# own); the CPU's preferred location goes through the driver on CUDA 13
# (advise_cpu_preferred). Per pool allocation (a cudaMallocManaged), as
# the interposer's EMBER_STATIC_MODE with EMBER_STATIC_ALIGN_KB=4:
#   uvm       nothing
#   prefetch  the whole allocation prefetched to the GPU
#   mapped    preferred location CPU + accessed-by GPU
#   static    mapped, then its whole 4 KiB pages prefetched to the GPU as far
#             as free memory less 512 MiB allows
# The prefetch is issued at the allocation, on the current stream, not at
# the next launch as the interposer does: this program first touches its
# data on the GPU, so no host write comes between to undo it.
import ctypes
import os
import sys
import time

import cupy as cp

rt = cp.cuda.runtime
PAGE = 4096
RESERVE = 512 << 20
# driver_types.h's values, where this CuPy does not name them
SET_PREFERRED = getattr(rt, "cudaMemAdviseSetPreferredLocation", 3)
SET_ACCESSED_BY = getattr(rt, "cudaMemAdviseSetAccessedBy", 5)
CPU = getattr(rt, "cudaCpuDeviceId", -1)


class MemLocation(ctypes.Structure):
    """CUmemLocation: type 1 device, 2 host"""
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


def advise_cpu_preferred(ptr, size):
    """Preferred location the CPU. CUDA 13's cudaMemAdvise takes a location
    where 12's took a device number, and CuPy 14's runtime.memAdvise refuses
    cudaCpuDeviceId there (cudaErrorInvalidValue, on the H200): on 13 the
    driver's cuMemAdvise_v2 is given the host location instead."""
    if rt.runtimeGetVersion() < 13000:
        rt.memAdvise(ptr, size, SET_PREFERRED, CPU)
        return
    advise = ctypes.CDLL("libcuda.so.1").cuMemAdvise_v2
    advise.argtypes = [ctypes.c_uint64, ctypes.c_size_t, ctypes.c_int, MemLocation]
    status = advise(ptr, size, SET_PREFERRED, MemLocation(2, 0))
    if status:
        raise RuntimeError(f"cuMemAdvise_v2 (preferred location host): CUresult {status}")


variant = os.environ.get("EMBER_VARIANT", "uvm")
if variant not in ("uvm", "prefetch", "mapped", "static"):
    sys.exit(f"cupy_managed: EMBER_VARIANT={variant}: not one of uvm, prefetch, mapped, static")
device = cp.cuda.Device().id
decisions = {}


def variant_malloc(size):
    mem = cp.cuda.malloc_managed(size)
    stream = cp.cuda.get_current_stream().ptr
    at, n = mem.ptr, 0
    if variant in ("mapped", "static"):
        advise_cpu_preferred(mem.ptr, size)
        rt.memAdvise(mem.ptr, size, SET_ACCESSED_BY, device)
    if variant == "prefetch":
        n = size
    elif variant == "static":
        at = mem.ptr + -mem.ptr % PAGE
        n = max(0, (mem.ptr + size - at) // PAGE * PAGE)
        n = min(n, max(0, (rt.memGetInfo()[0] - RESERVE) // PAGE * PAGE))
    if n:
        rt.memPrefetchAsync(at, n, device, stream)
    key = (variant in ("mapped", "static"), n == size, n > 0)
    decisions[key] = decisions.get(key, 0) + 1
    return mem


cp.cuda.set_allocator(cp.cuda.MemoryPool(variant_malloc).malloc)
n = 1 << 20
start = time.perf_counter()
a = cp.arange(n, dtype=cp.float32)
b = cp.sin(a) * 2.0 + 1.0
c = cp.cumsum(b)
m = cp.random.default_rng(1).standard_normal((512, 512), dtype=cp.float32)
p = m @ m
total = float(c[-1]) + float(p.sum())
cp.cuda.Device().synchronize()
print(f"cupy_managed: total={total:.6g} time_s={time.perf_counter() - start:.4f} cupy={cp.__version__}")
for (advised, whole, some), count in sorted(decisions.items()):
    print(f"cupy_managed: variant={variant} allocations={count} "
          f"advised={int(advised)} prefetched={'all' if whole else 'part' if some else 'none'}",
          file=sys.stderr)
