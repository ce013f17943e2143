"""Ember's CUDA backend against the device's copy bandwidth, torch.compile on CUDA and CuPy.

    python benchmarks/gpu_bench.py            # 64M float32 streaming workloads and a matmul
    python benchmarks/gpu_bench.py --quick    # small sizes (a smoke test)

Each workload is a plain NumPy function. Ember traces it with ``compile(fn,
backend="cuda")`` on NumPy inputs, and the graph it captured is then timed on
device-resident inputs (``__cuda_array_interface__``, no host copies), as
torch.compile's and CuPy's are timed on CUDA tensors/arrays. Every result is checked
against NumPy first. Times are the median of CUDA-synchronized calls; GB/s counts
each input read once and each output written once, against ``cuMemcpyDtoD``'s
bandwidth measured in the same run (bytes read + written).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import compiler
from runtime.cuda.device_array import DeviceArray
from runtime.cuda.driver import driver


def elementwise_chain(x, y):
    return np.maximum(x * 1.5 + y, 0.0) - 0.5 * y


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * (x * x * x))))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layernorm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


def mse(x, y):
    return ((x - y) ** 2).mean()


def matmul(a, b):
    return a @ b


def workloads(n: int, rows: int, m: int):
    rng = np.random.default_rng(0)
    f32 = np.float32
    cols = n // rows
    return [
        ("elementwise", elementwise_chain, (rng.standard_normal(n, dtype=f32), rng.standard_normal(n, dtype=f32))),
        ("gelu", gelu, (rng.standard_normal(n, dtype=f32),)),
        ("softmax", softmax, (rng.standard_normal((rows, cols), dtype=f32),)),
        (
            "layernorm",
            layernorm,
            (
                rng.standard_normal((rows, cols), dtype=f32),
                rng.standard_normal(cols, dtype=f32),
                rng.standard_normal(cols, dtype=f32),
            ),
        ),
        ("mse", mse, (rng.standard_normal(n, dtype=f32), rng.standard_normal(n, dtype=f32))),
        ("matmul", matmul, (rng.standard_normal((m, m), dtype=f32), rng.standard_normal((m, m), dtype=f32))),
    ]


def timed(call, sync, repeats: int) -> float:
    call()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def copy_bandwidth(nbytes: int, repeats: int) -> float:
    """Bytes read + written per second by a device-to-device copy."""
    src, dst = DeviceArray.empty(nbytes, np.uint8), DeviceArray.empty(nbytes, np.uint8)
    device = driver()
    seconds = timed(lambda: device.copy_dtod(dst.ptr, src.ptr, nbytes), device.synchronize, repeats)
    return 2 * nbytes / seconds


def ember_kernel(fn, args):
    """The GPU kernel Ember compiled for ``fn`` (traced on the NumPy inputs)."""
    kernels = []

    def capture(module, example_inputs):
        from compiler.backends.nvptx import compile_graph_module

        kernels.append(compile_graph_module(module))
        return kernels[-1]

    compiled = compiler.compile(fn, backend=capture, options={"strict": True})
    compiled(*[a.copy() for a in args])
    if len(kernels) != 1:
        raise RuntimeError(f"{fn.__name__}: {len(kernels)} graphs")
    return kernels[0]


def _check(got, want, name):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    if not np.allclose(got, want, rtol=1e-3, atol=1e-3 * scale):
        raise AssertionError(f"{name}: wrong result (max error {np.abs(got - want).max()})")


def anchors(fn, args):
    """(name, call, sync) of torch.compile on CUDA and CuPy, where installed."""
    found = []
    try:
        import torch

        tensors = [torch.as_tensor(a, device="cuda") for a in args]
        torch_fn = {
            "elementwise_chain": lambda x, y: torch.clamp_min(x * 1.5 + y, 0.0) - 0.5 * y,
            "gelu": lambda x: 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * (x * x * x)))),
            "softmax": lambda x: torch.softmax(x, -1),
            "layernorm": lambda x, w, b: torch.nn.functional.layer_norm(x, x.shape[-1:], w, b, 1e-5),
            "mse": lambda x, y: ((x - y) ** 2).mean(),
            "matmul": lambda a, b: a @ b,
        }[fn.__name__]
        compiled = torch.compile(torch_fn)
        _check(compiled(*tensors).cpu().numpy(), fn(*args), "torch.compile")
        found.append(("torch.compile", lambda: compiled(*tensors), torch.cuda.synchronize))
    except Exception as e:  # not installed, no CUDA build, or a compile failure: no column
        print(f"  (torch.compile: {type(e).__name__}: {str(e)[:80]})")
    try:
        import cupy

        arrays = [cupy.asarray(a) for a in args]
        np_fn = fn.__globals__["np"]

        def run_cupy():
            fn.__globals__["np"] = cupy
            try:
                return fn(*arrays)
            finally:
                fn.__globals__["np"] = np_fn

        _check(cupy.asnumpy(run_cupy()), fn(*args), "cupy")
        found.append(("CuPy", run_cupy, cupy.cuda.runtime.deviceSynchronize))
    except Exception as e:
        print(f"  (CuPy: {type(e).__name__}: {str(e)[:80]})")
    return found


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    n, rows, m, repeats = (1 << 20, 1024, 256, 5) if args.quick else (64 << 20, 65536, 2048, 20)
    device = driver()
    bandwidth = copy_bandwidth(4 * n, repeats)
    print(f"{device.name} ({device.sm}, {device.multiprocessors} SMs): copy bandwidth {bandwidth / 1e9:.0f} GB/s")
    print(f"{'workload':<12} {'ember ms':>9} {'GB/s':>7} {'% copy':>7}   anchors (ms, ember speed-up)")
    for name, fn, host_args in workloads(n, rows, m):
        kernel = ember_kernel(fn, host_args)
        device_args = [DeviceArray.from_host(a) for a in host_args]
        outputs = kernel(*device_args)
        _check(outputs[0].copy_to_host(), fn(*host_args), name)
        seconds = timed(lambda: kernel(*device_args), device.synchronize, repeats)
        moved = sum(a.nbytes for a in host_args) + sum(o.nbytes for o in outputs)
        rate = moved / seconds
        line = f"{name:<12} {seconds * 1e3:9.3f} {rate / 1e9:7.0f} {100 * rate / bandwidth:6.0f}%  "
        if name == "matmul":
            line = f"{name:<12} {seconds * 1e3:9.3f} {2 * m**3 / seconds / 1e12:6.1f}TF {'':>7}  "
        for anchor, call, sync in anchors(fn, host_args):
            t = timed(call, sync, repeats)
            line += f" {anchor} {t * 1e3:.3f} ({t / seconds:.2f}x)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
