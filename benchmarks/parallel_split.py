"""When does splitting a kernel across threads pay? One part against all of them.

    python benchmarks/parallel_split.py           # a few seconds
    python benchmarks/parallel_split.py --quick   # few calls: smoke run, times not for reading

For ``tanh(x * x)`` on float32 vectors of growing size, the compiled kernel's
launcher (``ember_launch_*``, runtime/entry_glue.py) is called with a preallocated output,
once with ``parts=1`` (no hand-off: the calling thread runs everything) and once with
``parts=N`` (the native worker pool, runtime/threads.py), N from ``EMBER_NUM_THREADS``
or the cores. The ratio column is one part's time over N parts' time; where it
crosses 1 is where ``runtime.threads.PARALLEL_MIN_BYTES`` belongs. A 1-element call
shows the hand-off's own cost. Medians of batches, ``time.perf_counter``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

SIZES = [1, 1 << 10, 1 << 14, 1 << 15, 3 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22]


def launcher():
    """The compiled ``tanh(x * x)``: (its launcher, the kernel)."""
    from compiler.backends.llvm_cpu import compile_module
    from compiler.dialects.builder import FunctionBuilder
    from compiler.dialects.types import TensorType

    b = FunctionBuilder("tanh_square", [TensorType((None,), "f32")])
    (x,) = b.args
    kernel = compile_module(b.finish([b.op("tanh", b.op("mul", x, x))]))
    variant, launch = kernel.variant((True,))
    assert variant.parallel, "tanh(x*x) should compile to a parallel kernel"
    return launch, kernel


def median_us(fn, calls: int, batches: int) -> float:
    fn()
    times = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times) * 1e6


def measure(sizes, parts: int, quick: bool) -> list[dict]:
    launch, kernel = launcher()
    rows = []
    for n in sizes:
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        out = np.empty_like(x)
        calls = 3 if quick else max(5, min(20_000, int(2e7 // max(n, 1))))
        batches = 1 if quick else 7
        one = median_us(lambda: launch(x, out, 1), calls, batches)
        ok = np.allclose(out, np.tanh(x * x), rtol=1e-6, atol=1e-7)
        split = median_us(lambda: launch(x, out, parts), calls, batches)
        ok = ok and np.allclose(out, np.tanh(x * x), rtol=1e-6, atol=1e-7)
        rows.append({"n": n, "bytes": 2 * x.nbytes, "one": one, "split": split, "ok": ok})
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="few calls: smoke run, times not for reading")
    args = p.parse_args(argv)
    from runtime import threads

    parts = threads.num_threads()
    rows = measure(SIZES, parts, args.quick)
    print(
        f"tanh(x*x), float32, preallocated output; {parts} parts vs 1 "
        f"(PARALLEL_MIN_BYTES = {threads.PARALLEL_MIN_BYTES // 1024} KiB; load {os.getloadavg()[0]:.2f})"
    )
    print(f"{'elements':>10} {'KiB in+out':>11} {'1 part us':>10} {f'{parts} parts us':>11} {'1/N ratio':>9}")
    for r in rows:
        flag = "" if r["ok"] else "  WRONG RESULT"
        print(
            f"{r['n']:>10} {r['bytes'] / 1024:>11.1f} {r['one']:>10.2f} {r['split']:>11.2f} "
            f"{r['one'] / r['split']:>9.2f}{flag}"
        )
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
