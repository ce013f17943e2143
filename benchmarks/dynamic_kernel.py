"""What do ``?`` sizes cost? One graph compiled for dynamic sizes and for static ones.

    python benchmarks/dynamic_kernel.py            # full sizes, ~30 s
    python benchmarks/dynamic_kernel.py --quick    # small sizes, few calls: smoke run, times not for reading

Each workload is one Ember graph built twice by the same function: once with every
size of its argument types ``?`` (what a kernel traced with symbolic sizes gets: sizes
read from the arrays, loop bounds unknown to LLVM, output shapes from the runtime's
shape program) and once with the sizes static. Both are compiled by the CPU backend,
checked against NumPy, then called on the same inputs through the ordinary checked
call path (``Kernel.__call__``): the median per-call time of batches,
``time.perf_counter``, and the ratio dynamic / static (above 1: the dynamic kernel
is slower). NumPy's time for the same computation is printed for scale.

- ``rowsum``: ``(tanh(x * 1.5) * x).sum(axis=1)``, x (4096, 512) float32.
- ``softmax``: softmax of each row of (4096, 1024) float32 (a fused reduction chain).
- ``matmul``: (512, 512) @ (512, 512) float32 (BLAS sgemm).
- ``inner_scale``: ``x[1:n-1] * n`` for ``n = len(x)``, 4M float32: the size ops
  (``size_arith``, ``from_index``) sizing a slice and scaling by the length.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from compiler.backends.llvm_cpu import compile_module  # noqa: E402
from compiler.dialects.builder import FunctionBuilder  # noqa: E402
from compiler.dialects.types import TensorType  # noqa: E402

F32 = np.float32


def _like(b: FunctionBuilder, value, like):
    """``value`` broadcast to ``like``'s type (its ``?`` sizes read from ``like``)."""
    t = b.type_of(like)
    return b.op("broadcast_to", value, result=t, sizes=b.dynamic_sizes(like, t))


def rowsum_graph(b: FunctionBuilder, x):
    y = b.op("mul", b.op("tanh", b.op("mul", x, _like(b, b.constant(F32(1.5)), x))), x)
    return b.op("sum", y, axes=(1,), keepdims=False)


def softmax_graph(b: FunctionBuilder, x):
    m = _like(b, b.op("max", x, axes=(1,), keepdims=True), x)
    e = b.op("exp", b.op("sub", x, m))
    return b.op("div", e, _like(b, b.op("sum", e, axes=(1,), keepdims=True), x))


def matmul_graph(b: FunctionBuilder, a, c):
    return b.op("matmul", a, c)


def inner_scale_graph(b: FunctionBuilder, x):
    (size,) = b.type_of(x).shape
    n = b.dim(x, 0)
    if size is None:
        inner = TensorType((None,), "f32")
        sizes = [b.size_arith("sub", n, b.size_constant(2))]
    else:
        inner, sizes = TensorType((size - 2,), "f32"), []
    middle = b.op("slice", x, result=inner, sizes=sizes, starts=(1,), steps=(1,))
    scale = b.op("cast", b.from_index(n), result=TensorType((), "f32"))
    return b.op("mul", middle, _like(b, scale, middle))


@dataclass
class Workload:
    name: str
    shapes: Callable  # quick -> list of argument shapes
    graph: Callable  # (builder, *args) -> result value
    numpy: Callable  # (*inputs) -> the reference


WORKLOADS = [
    Workload(
        "rowsum", lambda q: [(256, 64) if q else (4096, 512)], rowsum_graph, lambda x: (np.tanh(x * 1.5) * x).sum(1)
    ),
    Workload(
        "softmax",
        lambda q: [(256, 128) if q else (4096, 1024)],
        softmax_graph,
        lambda x: np.exp(x - x.max(1, keepdims=True)) / np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True),
    ),
    Workload("matmul", lambda q: [(64, 64), (64, 64)] if q else [(512, 512), (512, 512)], matmul_graph, np.matmul),
    Workload(
        "inner_scale",
        lambda q: [(1000,) if q else (1 << 22,)],
        inner_scale_graph,
        lambda x: x[1:-1] * F32(x.shape[0]),
    ),
]


def compiled(w: Workload, shapes, dynamic: bool):
    types = [TensorType(tuple(None for _ in s) if dynamic else tuple(s), "f32") for s in shapes]
    b = FunctionBuilder(w.name, types)
    return compile_module(b.finish([w.graph(b, *b.args)]))


def median_ms(fn, inputs, target_s: float, batches: int) -> float:
    fn(*inputs)  # warm: code variant, shape memo
    start = time.perf_counter()
    fn(*inputs)
    once = max(time.perf_counter() - start, 1e-7)
    calls = max(1, int(target_s / batches / once))
    times = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*inputs)
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times) * 1e3


def measure(quick: bool, rounds: int = 1) -> list[dict]:
    """Per workload: the shape, whether both kernels agree with NumPy (``ok``), and the
    NumPy, static and dynamic times in ms, each the best of ``rounds`` interleaved rounds."""
    rng = np.random.default_rng(0)
    target, batches = (0.02, 3) if quick else (0.3, 7)
    rows = []
    for w in WORKLOADS:
        shapes = w.shapes(quick)
        inputs = [rng.standard_normal(s, dtype=F32) for s in shapes]
        want = w.numpy(*inputs)
        row = {"name": w.name, "shape": " @ ".join("x".join(map(str, s)) for s in shapes), "ok": True}
        runs = {"numpy": w.numpy}
        for kind in ("static", "dynamic"):
            kernel = runs[kind] = compiled(w, shapes, kind == "dynamic")
            (got,) = kernel(*inputs)
            row["ok"] = row["ok"] and got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-4, atol=1e-4))
        for _ in range(rounds):  # interleaved, so that a busy stretch of the machine hits all three alike
            for kind, fn in runs.items():
                row[kind] = min(row.get(kind, float("inf")), median_ms(fn, inputs, target, batches))
        rows.append(row)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes, few calls: smoke run, times not for reading")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; each cell is its best (default 3)")
    args = p.parse_args(argv)
    from runtime import threads

    rows = measure(args.quick, 1 if args.quick else args.rounds)
    print(f"Ember CPU kernels, float32, {threads.num_threads()} threads; load average {os.getloadavg()[0]:.2f}")
    header = f"{'workload':<13}{'shape':>22}{'numpy ms':>11}{'static ms':>12}{'dynamic ms':>12}{'dyn/static':>12}"
    print(header + "\n" + "-" * len(header))
    failures = 0
    for r in rows:
        mark = "" if r["ok"] else "  WRONG RESULT"
        failures += not r["ok"]
        ratio = r["dynamic"] / r["static"]
        print(
            f"{r['name']:<13}{r['shape']:>22}{r['numpy']:>11.3f}{r['static']:>12.3f}{r['dynamic']:>12.3f}"
            f"{ratio:>11.2f}x{mark}"
        )
    print(
        "median per call (checked call path, outputs allocated), best of the rounds; "
        "dyn/static above 1: dynamic is slower."
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
