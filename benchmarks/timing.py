"""How a benchmark cell is measured: implementations built and checked against NumPy,
then timed in bursts of calls whose median is the cell (``benchmarks/run.py``; the
library processes in ``benchmarks/processes.py`` use the same code)."""

from __future__ import annotations

import os
import statistics
import time
import traceback

import numpy as np

from benchmarks.workloads import WORKLOADS, check


def timed_calls(fn, args, target: float, min_repeats: int = 3, max_repeats: int = 2000) -> list[float]:
    """Seconds of each of N calls of ``fn(*args)``, N filling about ``target`` s (one
    untimed call first sizes N)."""
    t0 = time.perf_counter()
    fn(*args)
    once = max(time.perf_counter() - t0, 1e-7)
    repeats = int(min(max(target / once, min_repeats), max_repeats))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return times


def measure(fn, args, target: float, min_repeats: int = 3, max_repeats: int = 2000) -> float:
    """Median seconds of ``fn(*args)`` after warm-up; N repeats fill about ``target`` s."""
    fn(*args)  # warm-up (first-touch allocations, lazy init)
    return statistics.median(timed_calls(fn, args, target, min_repeats, max_repeats))


def copy_bandwidth(nbytes: int, target: float) -> float:
    """Bytes/s of a large ``np.copyto``: 2 x bytes (read + write) over the time."""
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    seconds = measure(lambda: np.copyto(dst, src), (), target, min_repeats=5)
    return 2 * nbytes / seconds


def threaded_copy_bandwidth(nbytes: int, target: float, parts: int) -> float:
    """The same copy split over ``parts`` threads (np.copyto releases the GIL): for context."""
    from concurrent.futures import ThreadPoolExecutor

    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    bounds = np.linspace(0, src.size, parts + 1).astype(int)
    with ThreadPoolExecutor(parts) as pool:

        def copy():
            list(
                pool.map(
                    lambda i: np.copyto(dst[bounds[i] : bounds[i + 1]], src[bounds[i] : bounds[i + 1]]), range(parts)
                )
            )

        seconds = measure(copy, (), target, min_repeats=5)
    return 2 * nbytes / seconds


class Result:
    """One cell: a time, FAIL (wrong answer) or ERR (raised)."""

    def __init__(self, seconds=None, status="ok", note=""):
        self.seconds, self.status, self.note = seconds, status, note

    def to_json(self):
        return {"seconds": self.seconds, "status": self.status, "note": self.note}

    @staticmethod
    def from_json(d):
        return Result(d["seconds"], d["status"], d.get("note", ""))


SETTLE_SECONDS = 0.2  # run.py's --quick shortens it: its times are not for reading


def settle():
    """Let thread pools that spin after a call (OpenBLAS, OpenMP) go idle first."""
    time.sleep(SETTLE_SECONDS)


def as_numpy(result):
    """A result ``check`` can read: torch tensors become arrays, a tuple stays a tuple."""
    if isinstance(result, (tuple, list)):
        return tuple(as_numpy(r) for r in result)
    return result.detach().numpy() if hasattr(result, "detach") else result


def error_note(where: str, e: Exception) -> str:
    """The ``!!`` line for an exception (its traceback printed too with EMBER_BENCH_TRACEBACK=1)."""
    msg = str(e).strip().splitlines()
    if os.environ.get("EMBER_BENCH_TRACEBACK"):
        traceback.print_exc()
    return f"{where}: ERR {type(e).__name__}: {msg[0][:200] if msg else ''}"


def prepare_one(name, make, reference, workload, inputs, notes, unwrap=as_numpy, functional=False):
    """Build the implementation and check what it leaves against NumPy
    (``Workload.outcome``: ``reference``): the function, ready to time, or the cell
    (ERR, FAIL) that says why not."""
    try:
        fn = make()
        got = unwrap(workload.outcome(fn, inputs, functional))
    except Exception as e:  # noqa: BLE001
        notes.append(error_note(f"{workload.name}/{name}", e))
        return Result(status="ERR")
    ok, detail = check(got, reference)
    if not ok:
        notes.append(f"{workload.name}/{name}: FAIL, disagrees with NumPy ({detail}); not timed")
        return Result(status="FAIL", note=detail)
    return fn


class Columns:
    """One workload's implementations in one process, checked, then timed a burst at a
    time (on copies of the arguments they write in place): each cell is the median of
    all its bursts' calls."""

    def __init__(self):
        self.ready, self.cells, self.times = {}, {}, {}

    def add(self, column: str, prepared, args) -> None:
        if isinstance(prepared, Result):
            self.cells[column] = prepared
        else:
            self.ready[column], self.times[column] = (prepared, args), []

    def burst(self, seconds: float) -> None:
        for column, (fn, args) in self.ready.items():
            settle()
            self.times[column] += timed_calls(fn, args, seconds)

    def results(self) -> dict:
        return self.cells | {c: Result(statistics.median(t)) for c, t in self.times.items() if t}


def workload_inputs(w, scale):
    """The same inputs in every process: a seed per workload."""
    return w.inputs(np.random.default_rng(WORKLOADS.index(w)), scale)


def is_float64(inputs) -> bool:
    """A float64 workload: JAX needs ``jax_enable_x64`` for it, or it computes in float32."""
    return any(isinstance(a, np.ndarray) and a.dtype == np.float64 for a in inputs)
