"""What a graph break costs: the same 20 elementwise float32 ops, without a break, with a
``print`` in the middle, and with a branch on array data in the middle.

    python benchmarks/graph_breaks.py            # 4M float32, about 40 s (torch.compile adds its compiles)
    python benchmarks/graph_breaks.py --quick    # 64K elements, one round: smoke run, times not for reading
    python benchmarks/graph_breaks.py --no-numba --no-torch

Three plain NumPy functions on x of 4*1024*1024 float32 (``--size``):

- ``no_break``: 20 ops (10 in the head computing ``y``, 10 in the tail) -- the reference;
- ``print_break``: the same, with ``print("halfway")`` between head and tail: Ember
  compiles the head and the tail as two graphs, CPython runs the ``print``;
- ``branch_break``: the same head, then ``if y.sum() > 0:`` choosing between the same
  tail and another 10-op tail: the head's graph also computes the sum, CPython takes
  the branch, the taken tail is a second graph (the data make the sum positive, so
  every contender runs the same tail).

Each is timed as NumPy eager (the function itself), Ember (``compiler.compile`` of the
same function), Numba (``@njit`` of the same function, single-threaded: no
``parallel=True``) when installed, and ``torch.compile`` of the same function written
in torch (``torch.from_numpy`` input, CPU, default mode; TorchDynamo breaks its graph
at the same places) when installed. Every result is checked against NumPy's first.
What the functions print goes to ``os.devnull`` while any contender is timed. Times
are the median of calls after a warm-up call, N calls per measurement (about
``--target`` seconds); with ``--rounds`` every cell is measured that many times,
interleaved, and shows its best round. Ember's ``graphs`` column is
``compiler.explain``'s graph and break counts for one call.

The summary line is the cost of the break itself: Ember with the break over Ember
without it (the target is within 1.2x). A break makes the head's ``y`` a graph
output written to memory and read back by the tail (and, for the branch, the head also
sums it), where the fused function reads ``x`` once and writes the result once.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


# ----------------------------------------------------------------------------- the functions


def no_break(x):
    y = x * 1.5 + 0.5
    y = np.tanh(y) * 0.9 - x * 0.25
    y = np.sqrt(np.abs(y) + 0.1) * 2.0
    z = y * y - 1.0
    z = np.maximum(z, -0.5)
    z = z / (1.0 + x * x)
    z = np.exp(-z)
    return z * 0.3 + y


def print_break(x):
    y = x * 1.5 + 0.5
    y = np.tanh(y) * 0.9 - x * 0.25
    y = np.sqrt(np.abs(y) + 0.1) * 2.0
    print("halfway")
    z = y * y - 1.0
    z = np.maximum(z, -0.5)
    z = z / (1.0 + x * x)
    z = np.exp(-z)
    return z * 0.3 + y


def branch_break(x):
    y = x * 1.5 + 0.5
    y = np.tanh(y) * 0.9 - x * 0.25
    y = np.sqrt(np.abs(y) + 0.1) * 2.0
    if y.sum() > 0:
        z = y * y - 1.0
        z = np.maximum(z, -0.5)
        z = z / (1.0 + x * x)
        z = np.exp(-z)
        return z * 0.3 + y
    z = y * y + 1.0
    z = np.minimum(z, 4.0)
    z = z / (1.0 + x * x)
    z = np.exp(-z)
    return z * 0.7 - y


FUNCTIONS = {"no_break": no_break, "print_break": print_break, "branch_break": branch_break}


def torch_functions(torch) -> dict:
    """The same three functions written in torch."""

    def t_no_break(x):
        y = x * 1.5 + 0.5
        y = torch.tanh(y) * 0.9 - x * 0.25
        y = torch.sqrt(torch.abs(y) + 0.1) * 2.0
        z = y * y - 1.0
        z = torch.clamp(z, min=-0.5)
        z = z / (1.0 + x * x)
        z = torch.exp(-z)
        return z * 0.3 + y

    def t_print_break(x):
        y = x * 1.5 + 0.5
        y = torch.tanh(y) * 0.9 - x * 0.25
        y = torch.sqrt(torch.abs(y) + 0.1) * 2.0
        print("halfway")
        z = y * y - 1.0
        z = torch.clamp(z, min=-0.5)
        z = z / (1.0 + x * x)
        z = torch.exp(-z)
        return z * 0.3 + y

    def t_branch_break(x):
        y = x * 1.5 + 0.5
        y = torch.tanh(y) * 0.9 - x * 0.25
        y = torch.sqrt(torch.abs(y) + 0.1) * 2.0
        if y.sum() > 0:
            z = y * y - 1.0
            z = torch.clamp(z, min=-0.5)
            z = z / (1.0 + x * x)
            z = torch.exp(-z)
            return z * 0.3 + y
        z = y * y + 1.0
        z = torch.clamp(z, max=4.0)
        z = z / (1.0 + x * x)
        z = torch.exp(-z)
        return z * 0.7 - y

    return {"no_break": t_no_break, "print_break": t_print_break, "branch_break": t_branch_break}


# ----------------------------------------------------------------------------- measuring


@contextlib.contextmanager
def quiet():
    """The functions' prints go to os.devnull (every contender alike)."""
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        yield


def median_ms(fn, x, target: float) -> tuple[float, float]:
    """(median, fastest) of N calls (N so the measurement takes about ``target`` seconds), after a warm-up call."""
    with quiet():
        fn(x)
        start = time.perf_counter()
        fn(x)
        once = time.perf_counter() - start
        calls = max(5, min(200, int(target / max(once, 1e-6))))
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            fn(x)
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3, min(times) * 1e3


def agrees(got, want) -> bool:
    return got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5)


def contenders(names: list[str], numba: bool, torch_on: bool, notes: list[str]) -> dict:
    """{column: {workload: callable taking the NumPy input}}; the callables are built
    (Numba and torch compile lazily, on the first call)."""
    import compiler

    columns = {
        "numpy": dict(FUNCTIONS),
        "ember": {name: compiler.compile(fn) for name, fn in FUNCTIONS.items()},
    }
    if numba:
        try:
            from numba import njit

            columns["numba"] = {name: njit(cache=False)(fn) for name, fn in FUNCTIONS.items()}
        except ImportError:
            notes.append("numba: not installed (pip install -e '.[bench]'): no Numba column")
    if torch_on:
        try:
            import torch
        except ImportError:
            notes.append("torch: not installed (pip install -e '.[bench]'): no torch.compile column")
        else:
            compiled = {name: torch.compile(fn) for name, fn in torch_functions(torch).items()}
            columns["torch.compile"] = {
                name: (lambda x, fn=fn: fn(torch.from_numpy(x)).numpy()) for name, fn in compiled.items()
            }
    return columns


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="64K elements, one round (smoke run)")
    p.add_argument("--size", type=int, default=None, help="elements (default 4*1024*1024)")
    p.add_argument("--target", type=float, default=None, help="seconds per measurement (default 0.25)")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds, best shown (default 5)")
    p.add_argument("--no-numba", action="store_true", help="skip the Numba column")
    p.add_argument("--no-torch", action="store_true", help="skip the torch.compile column")
    args = p.parse_args(argv)
    import compiler

    size = args.size or (64 * 1024 if args.quick else 4 * 1024 * 1024)
    target = args.target or (0.05 if args.quick else 0.25)
    rounds = args.rounds or (1 if args.quick else 5)
    x = np.random.default_rng(0).standard_normal(size).astype(np.float32)
    notes: list[str] = []
    columns = contenders(list(FUNCTIONS), not args.no_numba, not args.no_torch, notes)
    print(
        f"graph breaks: 20 elementwise float32 ops on {size:,} elements ({x.nbytes / 2**20:.0f} MiB), "
        f"median of calls, best of {rounds} round(s); load average {os.getloadavg()[0]:.2f}"
    )

    wants, graphs, failed = {}, {}, set()
    for name, fn in FUNCTIONS.items():
        with quiet():
            wants[name] = fn(x)
            out = compiler.explain(fn)(x)
        graphs[name] = f"{out.graph_count}/{out.graph_break_count}"
    compile_s: dict = {}
    for column, fns in columns.items():  # first calls: compile, check
        for name, fn in fns.items():
            start = time.perf_counter()
            try:
                with quiet():
                    got = fn(x)
            except Exception as e:  # a contender that cannot run a function says so
                notes.append(f"{column} {name}: {type(e).__name__}: {e}"[:200])
                failed.add((column, name))
                continue
            compile_s[column, name] = time.perf_counter() - start
            got = np.asarray(got)
            if got.dtype != wants[name].dtype and name == "no_break":
                notes.append(f"{column}: computes in {got.dtype} (NumPy: {wants[name].dtype})")
            if not agrees(got, wants[name]):
                notes.append(f"!! {column} {name}: result differs from NumPy's")
                failed.add((column, name))

    best, fastest = {}, {}
    for _ in range(rounds):  # a column's three functions back to back: the same allocator state
        for column, fns in columns.items():
            for name in FUNCTIONS:
                if (column, name) not in failed:
                    ms, fast = median_ms(fns[name], x, target)
                    best[column, name] = min(ms, best.get((column, name), float("inf")))
                    fastest[column, name] = min(fast, fastest.get((column, name), float("inf")))

    header = f"{'function':<14}{'graphs/breaks':>14}{'numpy ms':>10}" + "".join(
        f"{column + ' ms (x)':>22}" for column in columns if column != "numpy"
    )
    print(header + "\n" + "-" * len(header))
    for name in FUNCTIONS:
        numpy_ms = best.get(("numpy", name))
        cells = []
        for column in columns:
            if column == "numpy":
                continue
            ms = best.get((column, name))
            cells.append(f"{'FAIL' if ms is None else f'{ms:.2f} ({numpy_ms / ms:.2f}x)':>22}")
        print(f"{name:<14}{graphs[name]:>14}{numpy_ms:>10.2f}" + "".join(cells))
    print("x = NumPy time / that time (higher is faster); graphs/breaks: Ember's, from compiler.explain.")
    reference = best.get(("ember", "no_break"))
    for name in ("print_break", "branch_break"):
        ms = best.get(("ember", name))
        if reference and ms:
            verdict = "within" if ms / reference <= 1.2 else "OVER"
            fast = fastest["ember", name] / fastest["ember", "no_break"]
            print(
                f"ember {name} / ember no_break: {ms / reference:.2f}x "
                f"({ms:.2f} ms / {reference:.2f} ms; target 1.2x: {verdict}); fastest calls: {fast:.2f}x"
            )
    for column in columns:
        if column != "ember" and (column, "no_break") in best and ("ember", "no_break") in best:
            for name in ("print_break", "branch_break"):
                if (column, name) in best:
                    ratio = best[column, name] / best[column, "no_break"]
                    print(f"{column} {name} / {column} no_break: {ratio:.2f}x")
    first = ", ".join(
        f"{column} {name} {compile_s[column, name]:.2f} s"
        for column in columns
        if column != "numpy"
        for name in FUNCTIONS
        if (column, name) in compile_s
    )
    print(f"first calls (compile included): {first}")
    if "numba" in columns:
        print("numba: @njit of the same function, single-threaded (no parallel=True).")
    for note in notes:
        print(note)
    return 1 if any(note.startswith("!!") for note in notes) else 0


if __name__ == "__main__":
    sys.exit(main())
