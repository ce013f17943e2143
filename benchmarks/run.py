"""Ember against NumPy, Numba, JAX and torch.compile, on the NumPy functions users write.

    python benchmarks/run.py                 # full sizes (several minutes)
    python benchmarks/run.py --quick         # small sizes, few repeats (< 60 s)
    python benchmarks/run.py --only softmax,matvec --threads 1 --rounds 3
    python benchmarks/run.py --backend-unit  # Ember column: hand-built graphs (backend unit benchmark)

Every workload is one plain NumPy function. NumPy runs it; Ember runs
``compiler.compile`` of it; JAX ``jax.jit`` of it written with ``jax.numpy`` (CPU,
float64 enabled for float64 workloads); torch ``torch.compile`` of it written with
torch, and torch's fused library ops eagerly where it has some; Numba a ``prange``
kernel or ``njit`` of it. Every implementation is checked against NumPy before it is
timed; one that disagrees is shown as FAIL and not timed. Times are medians of N calls
after warm-up, N chosen so each measurement takes about ``--target`` seconds, spread
over turns the processes take (``measure_side_by_side``); with ``--rounds`` each cell
is the best of that many interleaved rounds. The best anchor is
the fastest of the non-Ember columns; best/ember = its time / Ember's time (>= 1.00x:
Ember is at least as fast). Numba, JAX and torch columns appear when installed
(``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARIES = ("numba", "jax", "torch")  # each timed in a child process of its own


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (smoke test, < 60 s)")
    p.add_argument("--only", default="", help="comma-separated workload names")
    p.add_argument(
        "--threads", type=int, default=None, help="threads for Ember (EMBER_NUM_THREADS), torch, Numba and OpenBLAS"
    )
    p.add_argument("--target", type=float, default=None, help="seconds per measurement (default 0.75, --quick 0.05)")
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure every column this many times, interleaved; report each cell's best",
    )
    p.add_argument(
        "--backend-unit",
        action="store_true",
        help="Ember column: the hand-built graphs of benchmarks/graphs.py through compile_graph, not compile(fn)",
    )
    for lib in LIBRARIES:
        p.add_argument(f"--no-{lib}", action="store_true", help=f"skip the {lib} column")
    p.add_argument("--worker", choices=LIBRARIES, help=argparse.SUPPRESS)
    return p.parse_args(argv)


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None and ARGS.threads:
    # Before NumPy (OpenBLAS) and torch load, so their pools are sized from the start.
    for var in ("EMBER_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = str(ARGS.threads)

sys.path.insert(0, ROOT)

import math  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks import timing  # noqa: E402
from benchmarks.processes import BURSTS, Worker, measure_side_by_side, worker  # noqa: E402
from benchmarks.timing import (  # noqa: E402
    Columns,
    Result,
    as_numpy,
    copy_bandwidth,
    error_note,
    prepare_one,
    threaded_copy_bandwidth,
    workload_inputs,
)
from benchmarks.workloads import WORKLOADS  # noqa: E402

# Columns that can be the best anchor, with their table names.
ANCHORS = {"numpy": "numpy", "numba": "numba", "jax": "jax", "torch": "torch.compile", "torch-ops": "torch ops"}


# ----------------------------------------------------------------------------- NumPy and Ember, in this process


def ember_column(w, scale, backend_unit):
    """(make, unwrap) of Ember: ``compile()`` of the NumPy function; with ``--backend-unit``
    the hand-built graph's kernel, which returns a list of outputs."""
    if backend_unit:
        from compiler.backends import compile_graph

        return (lambda: compile_graph(w.module(scale), "cpu")), (lambda r: r[0])
    import compiler

    return (lambda: compiler.compile(w.numpy)), as_numpy


def first_result_ms(make, inputs, notes, name, cache: str) -> tuple[float, float | None, float, float | None]:
    """Build + first call, ms: cold (empty caches: the artifact cache is the empty
    directory ``cache``), the part of it spent compiling (tracing and building every
    graph, as the compiler timed it: the rest is the first run, whose fresh outputs pay
    their first-touch page faults as NumPy's do), then warm (in-memory artifacts cleared,
    loaded from ``cache``: a new process's first call) and the part of that spent tracing
    and loading (the cache hit itself)."""
    from runtime.cache import ARTIFACTS

    outer = os.environ.get("EMBER_CACHE_DIR")
    os.environ["EMBER_CACHE_DIR"] = cache
    try:
        return _first_result_ms(make, inputs, notes, name)
    finally:
        if outer is None:
            del os.environ["EMBER_CACHE_DIR"]
        else:
            os.environ["EMBER_CACHE_DIR"] = outer
        ARTIFACTS.clear_memory()


def _first_result_ms(make, inputs, notes, name) -> tuple[float, float | None, float, float | None]:
    from runtime.cache import ARTIFACTS

    ARTIFACTS.clear_memory()
    t0 = time.perf_counter()
    compiled = make()
    compiled(*inputs)
    cold = time.perf_counter() - t0
    building = _building_ms(compiled)
    ARTIFACTS.clear_memory()
    disk_hits = ARTIFACTS.stats.disk_hits
    t0 = time.perf_counter()
    loaded = make()
    loaded(*inputs)
    warm = time.perf_counter() - t0
    if ARTIFACTS.stats.disk_hits == disk_hits:
        notes.append(f"{name}/ember: the warm first call did not load from the disk cache")
    return cold * 1e3, building, warm * 1e3, _building_ms(loaded)


def _building_ms(compiled) -> float | None:
    """What the compiler timed of getting ``compiled``'s graphs (trace and build, or trace
    and load), ms; None for --backend-unit's compiled graph, which is not timed apart."""
    entries = getattr(compiled, "entries", None)
    return sum(e.compile_times.get("total", 0.0) for e in entries) * 1e3 if entries else None


def graph_note(w, inputs) -> str | None:
    """What to say when ``compile()`` did not run the function as one graph: then part of
    Ember's time (or all of it) is CPython's."""
    import compiler

    out = compiler.explain(w.numpy)(*inputs)
    if out.graph_count == 1 and out.graph_break_count == 0:
        return None
    reasons = "; ".join(r.reason for r in out.break_reasons)[:300]
    return f"{w.name}/ember: {out.graph_count} graph(s), {out.graph_break_count} break(s): {reasons}"


class InProcess:
    """NumPy and Ember, in this process: the counterpart of a ``Worker``. ``prepare``
    also measures Ember's time to first result, in every round, each time cold (an
    empty cache directory under ``cache``, a new ``compile()``), the best round's kept
    (``merge_first``) like every other cell: one first call is a single sample, and
    this machine's speed varies by up to twice between phases of a minute."""

    label = "numpy, ember"

    def __init__(self, scale, notes, first_ms, backend_unit, cache):
        self.scale, self.notes, self.first_ms = scale, notes, first_ms
        self.backend_unit, self.cache = backend_unit, cache
        self.columns, self.moved = Columns(), {}

    def prepare(self, w) -> None:
        inputs = workload_inputs(w, self.scale)
        reference = w.outcome(w.numpy, inputs)
        self.columns = Columns()
        self.columns.add("numpy", w.numpy, w.fresh(inputs))
        make, unwrap = ember_column(w, self.scale, self.backend_unit)
        self._first_call(w, make, inputs)
        prepared = prepare_one("ember", make, reference, w, inputs, self.notes, unwrap=unwrap)
        self.columns.add("ember", prepared, w.fresh(inputs))
        self.moved[w.name] = w.bytes_moved(inputs, reference)

    def _first_call(self, w, make, inputs) -> None:
        first_round = w.name not in self.first_ms
        if first_round:
            self.first_ms[w.name] = None
        if not first_round and self.first_ms[w.name] is None:
            return  # it failed before
        try:
            fresh_cache = tempfile.mkdtemp(prefix=f"{w.name}-", dir=self.cache)
            measured = first_result_ms(make, w.fresh(inputs), self.notes, w.name, fresh_cache)
            self.first_ms[w.name] = merge_first(self.first_ms[w.name], measured)
            if first_round and not self.backend_unit and (note := graph_note(w, w.fresh(inputs))):
                self.notes.append(note)
        except Exception as e:  # noqa: BLE001 (prepare_one says ERR too)
            self.first_ms[w.name] = None
            self.notes.append(error_note(f"{w.name}/ember first call", e))

    def burst(self, seconds: float) -> None:
        self.columns.burst(seconds)

    def finish(self) -> dict:
        results, self.columns = self.columns.results(), Columns()
        return results


def merge_first(best: tuple | None, measured: tuple) -> tuple:
    """The first-call times of two rounds: the faster cold call with its compile time,
    and the faster warm call with its load time."""
    if best is None:
        return measured
    cold = min(best[:2], measured[:2], key=lambda pair: pair[0])
    warm = min(best[2:], measured[2:], key=lambda pair: pair[0])
    return cold + warm


def merge_best(cells: dict, measured: dict) -> None:
    """Keep each cell's fastest time over rounds; a FAIL or ERR in any round stays."""
    for column, r in measured.items():
        old = cells.get(column)
        if old is None or (old.status == "ok" and (r.status != "ok" or r.seconds < old.seconds)):
            cells[column] = r


# ----------------------------------------------------------------------------- table

HEADERS = [
    "workload",
    "what",
    "numpy ms",
    "ember ms (x)",
    "numba ms",
    "jax ms",
    "torch.compile ms",
    "torch ops ms",
    "best anchor ms",
    "best/ember",
    "ember GB/s",
    "1st call cold ms",
    "of which compile",
    "warm ms",
    "of which load",
]


def fmt_ms(r: Result | None) -> str:
    if r is None:
        return "n/a"
    if r.status != "ok":
        return r.status
    ms = r.seconds * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.1f}"


def fmt_ratio(r: Result | None, base: Result) -> str:
    if r is None or r.status != "ok" or base.status != "ok":
        return fmt_ms(r)
    return f"{fmt_ms(r)} ({base.seconds / r.seconds:.2f}x)"


def best_anchor(cells: dict) -> tuple[str, Result] | None:
    """The fastest non-Ember column that ran and agreed with NumPy: (column, result)."""
    ok = [(c, cells[c]) for c in ANCHORS if c in cells and cells[c].status == "ok"]
    return min(ok, key=lambda cr: cr[1].seconds, default=None)


def best_over_ember(cells: dict) -> float | None:
    """Best anchor's time / Ember's (>= 1: Ember at least as fast); None without both."""
    best, ember = best_anchor(cells), cells.get("ember")
    if best is None or ember is None or ember.status != "ok":
        return None
    return best[1].seconds / ember.seconds


def table_row(w, cells: dict, gbs: float | None, first_ms: tuple | None) -> list[str]:
    best, ratio = best_anchor(cells), best_over_ember(cells)
    torch_ops = "-" if w.torch_ops is None and "torch" in cells else fmt_ms(cells.get("torch-ops"))
    return [
        w.name,
        w.description,
        fmt_ms(cells["numpy"]),
        fmt_ratio(cells["ember"], cells["numpy"]),
        fmt_ms(cells.get("numba")),
        fmt_ms(cells.get("jax")),
        fmt_ms(cells.get("torch")),
        torch_ops,
        "n/a" if best is None else f"{ANCHORS[best[0]]} {fmt_ms(best[1])}",
        "n/a" if ratio is None else f"{ratio:.2f}x",
        "-" if gbs is None else f"{gbs / 1e9:.1f}",
        "-" if first_ms is None else f"{first_ms[0]:.0f}",
        "-" if first_ms is None or first_ms[1] is None else f"{first_ms[1]:.0f}",
        "-" if first_ms is None else f"{first_ms[2]:.1f}",
        "-" if first_ms is None or first_ms[3] is None else f"{first_ms[3]:.1f}",
    ]


def summary_line(results: dict) -> str:
    """Geometric mean of best/ember and how many workloads Ember wins, over those with both."""
    ratios = [r for r in map(best_over_ember, results.values()) if r is not None]
    if not ratios:
        return "best/ember: no workload has both an Ember time and an anchor time"
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    wins = sum(r >= 1.0 for r in ratios)
    return (
        f"best/ember geometric mean over {len(ratios)} workloads: {geomean:.2f}x; "
        f"Ember >= best anchor on {wins} of {len(ratios)}"
    )


def print_table(rows, headers, left=2):
    """Columns right-aligned, except the first ``left`` (names)."""
    widths = [max(len(str(row[i])) for row in [headers] + rows) for i in range(len(headers))]

    def line(cells):
        return "  ".join(
            str(c).ljust(w) if i < left else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        )

    print(line(headers))
    print("-" * len(line(headers)))
    for row in rows:
        print(line(row))


# ----------------------------------------------------------------------------- main


def select(args):
    """The workloads ``--only`` and ``--backend-unit`` leave, or None for an unknown name."""
    selected = WORKLOADS
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in {w.name for w in WORKLOADS}]
        if unknown:
            print(f"unknown workload(s) {unknown}; choose from {[w.name for w in WORKLOADS]}", file=sys.stderr)
            return None
        selected = [w for w in WORKLOADS if w.name in names]
    if args.backend_unit:
        from benchmarks.graphs import GRAPHS

        selected = [w for w in selected if w.name in GRAPHS]
    return selected


def print_header(scale, target, names, backend_unit) -> float:
    """The settings that move the numbers; returns the load average before the run."""
    blas = [f"{v}={os.environ.get(v, '(unset)')}" for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")]
    print(f"environment: {'  '.join(blas)}", end="")
    if any(v in os.environ for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")):
        print(
            " -- can slow a current NumPy's OpenBLAS (matmul, matvec); to measure without them:\n"
            f"      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python {' '.join(sys.argv)}",
            end="",
        )
    print()
    if backend_unit:
        print("--backend-unit: Ember's column times hand-built graphs through compile_graph, not compile(fn)")
    load = os.getloadavg()[0]
    print(
        f"scale={scale}  target={target:g} s per measurement  load average {load:.2f}  workloads: {', '.join(names)}",
        flush=True,
    )
    return load


def print_footer(args, target, copy_mib, bandwidth, versions, load_before) -> None:
    from runtime import blas_symbols, threads

    try:
        import llvmlite
        import llvmlite.binding as llvm

        cpu, llvm_version = llvm.get_host_cpu_name(), llvmlite.__version__
    except Exception:  # noqa: BLE001
        cpu, llvm_version = "?", "?"
    libs = [f"numpy {np.__version__}", f"llvmlite {llvm_version}"]
    for kind in LIBRARIES:
        if kind in versions:
            libs.append(f"{kind} {versions[kind]}" if versions[kind] else f"{kind} not installed")
        else:
            libs.append(f"{kind} skipped")
    n_threads = threads.num_threads()
    mt = ""
    if n_threads > 1:
        split = threaded_copy_bandwidth(copy_mib << 20, max(target, 0.2), n_threads)
        mt = f" ({split / 1e9:.1f} GB/s split over {n_threads} threads, for context)"
    print(
        f"copy bandwidth (np.copyto {copy_mib} MiB, 2 x bytes / time): {bandwidth / 1e9:.1f} GB/s{mt} | "
        f"cpu {cpu} | threads {n_threads} (of {os.cpu_count()} cores) | Ember's BLAS {blas_symbols.provider()} | "
        + ", ".join(libs)
    )
    rounds = f"; the best of {args.rounds} rounds' medians" if args.rounds > 1 else ""
    print(
        f"ms: median of N calls after warm-up, in {BURSTS} turns taken with the other processes{rounds}. "
        "x = NumPy time / Ember time. best anchor: the fastest of "
        "numpy, numba, jax, torch.compile and torch ops; best/ember = its time / Ember's (>= 1.00x: Ember is at "
        "least as fast). n/a: not installed or skipped; torch ops '-': no fused library op. GB/s = (array inputs "
        "read + outputs written) / Ember time. 1st call: compile() (--backend-unit: compile_graph) through the "
        "first result; cold = empty caches, of which compile = tracing and building the graphs (the rest is the "
        "first run); "
        "warm = memory cache cleared, loaded from the disk cache, of which load = tracing and loading (the rest is "
        "the first run)"
        + (
            f"; each the best of {args.rounds} rounds, every round cold in an empty cache directory"
            if args.rounds > 1
            else ""
        )
        + ". Numba, JAX and torch ran in processes of their own, kept for the run; a workload's columns in all "
        "processes were timed in turns, the first moving by one each turn and round."
    )
    load_after = os.getloadavg()[0]
    if max(load_before, load_after) > 0.7 * (os.cpu_count() or 1):
        print(
            f"!! load average was {load_before:.2f} before and {load_after:.2f} after the run on "
            f"{os.cpu_count()} cores: other processes competed for the CPUs, so times are noisy "
            f"(multi-threaded ones most)"
        )


def main(args) -> int:
    scale = "quick" if args.quick else "full"
    target = args.target if args.target is not None else (0.05 if args.quick else 0.75)
    selected = select(args)
    if selected is None:
        return 2
    names = [w.name for w in selected]
    if args.quick:
        timing.SETTLE_SECONDS = 0.05  # it settles before every cell; its times are not for reading
    if args.worker:
        return worker(args.worker, selected, scale, args.threads)

    # A private, empty artifact cache: first-call times below are really cold, and the
    # user's own cache is neither read nor filled.
    cache = tempfile.mkdtemp(prefix="ember-bench-cache-")
    os.environ["EMBER_CACHE_DIR"] = cache
    import compiler

    load_before = print_header(scale, target, names, args.backend_unit)
    copy_mib = 32 if args.quick else 256
    bandwidth = copy_bandwidth(copy_mib << 20, max(target, 0.2))

    # One throwaway compile so the first workload's cold time does not include the
    # process-wide start-up (MLIR context, LLVM target initialisation), of a function
    # none of the workloads has, so their cold compiles stay cold. Then a product of
    # each float type, a matrix-vector product and a chain of two, and a float32 product
    # large enough for Ember's own kernel, which compile the BLAS, matrix-vector and
    # product helper libraries: runtime code compiled once per machine (then loaded
    # from the cache), like the worker pool; its time is printed here, not charged to the
    # first matmul workload.
    compiler.compile(lambda x: -x)(np.ones(3))
    start = time.perf_counter()
    for dtype in (np.float32, np.float64):
        m = np.ones((16, 16), dtype)
        compiler.compile(lambda a, b: a @ b)(m, m)
        compiler.compile(lambda a, x: a @ x)(m, m[0])
        compiler.compile(lambda a, x: (a @ x) @ a)(m, m[0])  # both products of one matrix
    big = np.ones((64, 128), np.float32)
    compiler.compile(lambda a, b: a @ b)(big, big.T.copy())  # Ember's own float32 product kernel
    print(
        "helper libraries (BLAS, matrix-vector, matrix-vector pairs, float32 products; float32, float64) compiled once: "
        f"{(time.perf_counter() - start) * 1e3:.0f} ms"
    )

    results, notes, first_ms = {}, [], {}
    workers = [
        Worker.start(kind, names, scale, args.threads, notes) for kind in LIBRARIES if not getattr(args, f"no_{kind}")
    ]
    versions = {w.kind: w.version for w in workers if w is not None}
    workers = [w for w in workers if w is not None and w.alive]
    here = InProcess(scale, notes, first_ms, args.backend_unit, cache)
    try:
        for round_no in range(max(1, args.rounds)):
            if args.rounds > 1:
                print(f" round {round_no + 1} of {args.rounds}", flush=True)
            for w in selected:
                print(f"  {w.name}: {', '.join(g.label for g in [here, *workers])}", end="", flush=True)
                merge_best(results.setdefault(w.name, {}), measure_side_by_side(w, [here, *workers], target, round_no))
                print(" done", flush=True)
    finally:
        for child in workers:
            child.close()
    moved = here.moved

    rows = []
    for w in selected:
        ember = results[w.name]["ember"]
        gbs = moved[w.name] / ember.seconds if w.streaming and ember.status == "ok" else None
        rows.append(table_row(w, results[w.name], gbs, first_ms.get(w.name)))
    headers = HEADERS if not args.backend_unit else [h.replace("ember ms", "ember graph ms") for h in HEADERS]
    print()
    print_table(rows, headers)
    print(summary_line(results))
    print()
    print_footer(args, target, copy_mib, bandwidth, versions, load_before)
    for n in notes:
        print("!!", n)
    shutil.rmtree(cache, ignore_errors=True)
    failed = any(r.status != "ok" for cells in results.values() for r in cells.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(ARGS))
