# A small CuPy program on a managed memory pool: CuPy's own kernels
# (elementwise, reduction, cuBLAS matmul), none written here.
import sys
import time

import cupy as cp

cp.cuda.set_allocator(cp.cuda.MemoryPool(cp.cuda.malloc_managed).malloc)
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
