# A small PyTorch forward pass (an MLP and a convolution) with every
# tensor in managed memory, through torch's pluggable allocator.
import sys
import time

import torch

allocator = torch.cuda.memory.CUDAPluggableAllocator(
    sys.argv[1], "ember_managed_malloc", "ember_managed_free")
torch.cuda.memory.change_current_allocator(allocator)
torch.manual_seed(1)
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Flatten(), torch.nn.Linear(16 * 32 * 32, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 10)).cuda().eval()
x = torch.randn(32, 3, 32, 32, device="cuda")
start = time.perf_counter()
with torch.no_grad():
    y = model(x)
torch.cuda.synchronize()
print(f"torch_forward: y_sum={float(y.sum()):.6g} time_s={time.perf_counter() - start:.4f} torch={torch.__version__}")
