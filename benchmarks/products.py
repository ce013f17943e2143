"""Float32 matrix products alone: Ember's own kernel against NumPy's OpenBLAS and
torch's MKL, each library in a process of its own (their thread pools spin after each
call, so timing two in one process measures the spinning), on one thread and on two.

    python benchmarks/products.py                 # the three shapes below
    python benchmarks/products.py --shapes 512x512x512,64x4096x64

Ember runs ``compiler.compile(lambda a, b: a @ b)``, NumPy ``np.matmul(a, b, out=c)``
(``OPENBLAS_NUM_THREADS`` set before NumPy loads), torch ``torch.mm(a, b, out=c)``.
Times are medians of about 0.5 s of calls (``benchmarks/timing.py``'s ``measure``), the
best of 5 rounds, in ms.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

SHAPES = "1024x1024x1024,256x512x2048,256x2048x512"  # m x k x n: the benchmark's matmul and MLP layers
LIBRARIES = ("ember", "numpy", "torch")


def _time(fn, args, rounds: int = 5) -> float:
    """ms: the best of ``rounds`` of ``timing.measure``'s medians (about 0.5 s each)."""
    from benchmarks.timing import measure

    return min(measure(fn, args, target=0.5) for _ in range(rounds)) * 1e3


def _product(library: str, a, b):
    """The product function of ``library`` and its arguments."""
    import numpy as np

    if library == "ember":
        import compiler

        return compiler.compile(lambda x, y: x @ y), (a, b)
    if library == "numpy":
        out = np.empty((a.shape[0], b.shape[1]), np.float32)
        return (lambda x, y: np.matmul(x, y, out=out)), (a, b)
    import torch

    out = torch.empty(a.shape[0], b.shape[1])
    return (lambda x, y: torch.mm(x, y, out=out)), (torch.from_numpy(a), torch.from_numpy(b))


def _child(library: str, threads: int, shapes: str) -> None:
    """Time ``library`` on ``shapes`` (this process's only library); print one line."""
    import numpy as np

    if library == "torch":
        import torch

        torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    cells = []
    for shape in shapes.split(","):
        m, k, n = (int(s) for s in shape.split("x"))
        a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
        fn, args = _product(library, a, b)
        cells.append(f"{_time(fn, args):8.3f}")
    print(" ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default=SHAPES, help="comma-separated m x k x n")
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "THREADS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[0], int(args.child[1]), args.shapes)
        return
    print(f"{'threads':8} {'library':8} " + " ".join(f"{s:>20}" for s in args.shapes.split(",")))
    for threads in (1, 2):
        for library in LIBRARIES:
            env = dict(os.environ, EMBER_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
            env["OMP_NUM_THREADS"] = str(threads)
            command = [sys.executable, __file__, "--shapes", args.shapes, "--child", library, str(threads)]
            run = subprocess.run(command, env=env, capture_output=True, text=True)
            line = run.stdout.strip().splitlines()[-1] if run.returncode == 0 and run.stdout.strip() else "n/a"
            cells = line.split() if line != "n/a" else ["n/a"] * len(args.shapes.split(","))
            print(f"{threads:<8} {library:8} " + " ".join(f"{c:>20}" for c in cells), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main()
