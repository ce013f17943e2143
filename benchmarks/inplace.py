"""In-place NumPy, as users write it: the plain function given to ``compile()``.

    python benchmarks/inplace.py            # full sizes (~1 minute)
    python benchmarks/inplace.py --quick    # small sizes, few repeats: smoke run, times not for reading
    python benchmarks/inplace.py --no-numba

Three programs that write into arrays, each timed as NumPy eager (the function
itself), Ember (``compiler.compile`` of the same function) and, when installed,
Numba (``@njit`` of the same function: Numba compiles NumPy slicing too). Every
column starts each call from the same inputs (copies made outside the timing),
and every result — the return value and what the program left in its arguments —
is checked against NumPy's before a time is printed:

- ``jacobi``: a 5-point Jacobi stencil on a 2000x2000 float64 grid, 10 time steps,
  slice assignment into a second grid, then the grids swap.
- ``matvec_update``: ``x1 += A @ y1; x2 += A.T @ y2`` on a 4000x4000 float64 matrix.
- ``fill_rows``: a ``np.empty`` buffer filled row by row with slices.

Ember's column says ``cpython`` when the function did not compile (it then runs
in CPython, correctly): ``compiler.explain`` names the reason.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def jacobi(a, b, steps):
    for _ in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def matvec_update(A, x1, x2, y1, y2):
    x1 += A @ y1
    x2 += A.T @ y2


def fill_rows(x):
    out = np.empty((x.shape[0], 2 * x.shape[1]))
    for i in range(x.shape[0]):
        out[i, : x.shape[1]] = x[i] * 2.0
        out[i, x.shape[1] :] = x[i] + 1.0
    return out


def inputs(name: str, quick: bool, rng) -> tuple:
    if name == "jacobi":
        n = 200 if quick else 2000
        return rng.standard_normal((n, n)), rng.standard_normal((n, n)), 10
    if name == "matvec_update":
        n = 400 if quick else 4000
        return tuple(rng.standard_normal(s) for s in [(n, n), n, n, n, n])
    rows, cols = (16, 64) if quick else (64, 4096)
    return (rng.standard_normal((rows, cols)),)


PROGRAMS = {"jacobi": jacobi, "matvec_update": matvec_update, "fill_rows": fill_rows}


def fresh(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def run_once(fn, args: tuple) -> tuple:
    """The result and what the call left in its (copied) array arguments."""
    args = fresh(args)
    return fn(*args), args


def same(got, want) -> bool:
    (g_result, g_args), (w_result, w_args) = got, want
    pairs = [(g_result, w_result)] + list(zip(g_args, w_args))
    return all(
        (g is None and w is None) or np.allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12) for g, w in pairs
    )


def median_ms(fn, args: tuple, calls: int) -> float:
    times = []
    for _ in range(calls):
        copies = fresh(args)
        start = time.perf_counter()
        fn(*copies)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def compiled_columns(quick: bool, numba: bool) -> dict:
    import compiler

    columns = {"ember": lambda f: compiler.compile(f)}
    if numba:
        try:
            from numba import njit

            columns["numba"] = lambda f: njit(cache=False)(f)
        except ImportError:
            pass
    return columns


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (smoke run)")
    p.add_argument("--no-numba", action="store_true", help="skip the Numba column")
    args = p.parse_args(argv)
    import compiler

    rng = np.random.default_rng(0)
    calls = 3 if args.quick else 7
    columns = compiled_columns(args.quick, not args.no_numba)
    header = f"{'program':<15}{'numpy ms':>10}" + "".join(f"{name + ' ms (x)':>22}" for name in columns)
    print(header + "\n" + "-" * len(header))
    failures = 0
    for name, fn in PROGRAMS.items():
        data = inputs(name, args.quick, rng)
        want = run_once(fn, data)
        numpy_ms = median_ms(fn, data, calls)
        cells = []
        for column, make in columns.items():
            try:
                compiled = make(fn)
                got = run_once(compiled, data)  # compiles (and is checked)
            except Exception as e:  # a column that cannot run this program says so
                cells.append(f"{type(e).__name__:>22}")
                continue
            if not same(got, want):
                failures += 1
                cells.append(f"{'WRONG':>22}")
                continue
            ms = median_ms(compiled, data, calls)
            note = ""
            if column == "ember" and compiler.explain(fn)(*fresh(data)).graph_count == 0:
                note = " cpython"
            cells.append(f"{f'{ms:.2f} ({numpy_ms / ms:.2f}x){note}':>22}")
        print(f"{name:<15}{numpy_ms:>10.2f}" + "".join(cells))
    print("x = NumPy time / that time (higher is faster); median of calls on fresh copies of the inputs.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
