"""One function, 50 batch sizes: what compiling costs when sizes change.

    python benchmarks/dynamic_batch.py           # B from 1 to 4096, 50 sizes
    python benchmarks/dynamic_batch.py --quick   # smaller: a smoke run, times not for reading

An MLP layer and a softmax on ``(B, 512)`` float32, the plain NumPy function given
to ``compile()``, called once with each of 50 batch sizes (shuffled, so growth is not
monotonic), then once more with each (warm). Printed side by side, in one run:

- NumPy eager;
- Ember, default policy (static first, automatic dynamic after a size changes):
  total time of the cold pass, number of compiles, warm per-call time;
- Ember with ``dynamic=False`` on the warm pass over a few sizes only (a static
  kernel per size): per-call time of the static kernels, which the symbolic one
  is compared against;
- ``torch.compile(dynamic=None)`` of the same function written in torch, when torch is
  installed (its compiles counted by ``torch._dynamo`` counters).

Ratios are NumPy time / that time (higher is faster). Results are checked against
NumPy before any time is printed.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def mlp_softmax(x, w, b):
    h = np.maximum(x @ w + b, 0.0)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _inputs(batch: int, width: int, rng):
    x = rng.standard_normal((batch, width), dtype=np.float32)
    w = (rng.standard_normal((width, width), dtype=np.float32) / np.sqrt(width)).astype(np.float32)
    b = rng.standard_normal(width, dtype=np.float32)
    return x, w, b


def _timed(fn, args, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None) -> None:
    os.environ["EMBER_CACHE_DIR"] = "off"  # every compile is a real one, not a load from the artifact cache
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    import compiler

    width = 128 if args.quick else 512
    top = 512 if args.quick else 4096
    sizes = sorted({1, 2, 3, top} | {int(round(top ** (i / 49))) for i in range(50)})
    while len(sizes) < 50:
        sizes.append(sizes[-1] - 1)
    sizes = sorted(set(sizes))[:50]
    random.Random(0).shuffle(sizes)
    rng = np.random.default_rng(0)
    _, w, b = _inputs(1, width, rng)
    data = {n: rng.standard_normal((n, width), dtype=np.float32) for n in sizes}
    repeat = 3 if args.quick else 10

    ember = compiler.compile(mlp_softmax)
    start = time.perf_counter()
    results = [ember(data[n], w, b) for n in sizes]
    ember_cold = time.perf_counter() - start
    for n, got in zip(sizes, results):
        np.testing.assert_allclose(got, mlp_softmax(data[n], w, b), rtol=2e-4, atol=1e-6)
    ember_compiles = sum(e.graph_module is not None for e in ember.entries)
    start = time.perf_counter()
    for n in sizes:
        mlp_softmax(data[n], w, b)
    numpy_pass = time.perf_counter() - start

    print(f"mlp+softmax on (B, {width}) float32, {len(sizes)} batch sizes from {min(sizes)} to {max(sizes)}")
    print(
        f"  cold pass (first call of every size): NumPy {numpy_pass * 1e3:8.1f} ms   Ember {ember_cold * 1e3:8.1f} ms"
    )
    print(f"  Ember compiles: {ember_compiles} entries ({len(ember.entries)} in all)")

    static = compiler.compile(mlp_softmax, dynamic=False, options={"recompile_limit": 64})
    print(f"  {'B':>6} {'NumPy':>10} {'Ember dyn':>10} {'ratio':>6} {'static':>10} {'dyn/stat':>8} {'torch':>10}")
    torch_fn = _torch_version()
    for n in sorted(sizes)[:: max(1, len(sizes) // 8)] + [max(sizes)]:
        x = data[n]
        t_np = _timed(mlp_softmax, (x, w, b), repeat)
        t_dyn = _timed(ember, (x, w, b), repeat)
        static(x, w, b)
        t_static = _timed(static, (x, w, b), repeat)
        t_torch = _timed(torch_fn, _torch_args(x, w, b), repeat) if torch_fn else None
        torch_text = f"{t_torch * 1e6:8.1f}us" if t_torch else "       -"
        print(
            f"  {n:>6} {t_np * 1e6:8.1f}us {t_dyn * 1e6:8.1f}us {t_np / t_dyn:5.2f}x "
            f"{t_static * 1e6:8.1f}us {t_dyn / t_static:7.2f}x {torch_text}"
        )
    if torch_fn is not None:
        _torch_cold(torch_fn, sizes, data, w, b)


def _torch_version():
    try:
        import torch
    except ImportError:
        return None

    def mlp_softmax_torch(x, w, b):
        h = torch.clamp(x @ w + b, min=0.0)
        e = torch.exp(h - h.max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)

    return torch.compile(mlp_softmax_torch, dynamic=None)


def _torch_args(x, w, b):
    import torch

    return torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)


def _torch_cold(fn, sizes, data, w, b) -> None:
    import torch._dynamo

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    start = time.perf_counter()
    for n in sizes:
        fn(*_torch_args(data[n], w, b))
    cold = time.perf_counter() - start
    frames = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    print(f"  torch.compile(dynamic=None) cold pass {cold * 1e3:.1f} ms, {frames} graphs")


if __name__ == "__main__":
    main()
