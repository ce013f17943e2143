"""Ember against NumPy, NumPy with ``out=``, Numba and torch.compile, side by side.

    python benchmarks/run.py                 # full sizes (a few minutes)
    python benchmarks/run.py --quick         # small sizes, few repeats (< 60 s)
    python benchmarks/run.py --only softmax,mse --threads 1

Every implementation is checked against NumPy before it is timed; one that
disagrees is shown as FAIL and not timed. Times are medians of N calls after
warm-up, N chosen so each measurement takes about ``--target`` seconds. Ratios are
NumPy-eager time / implementation time (higher is faster; 2.0x = twice as fast as
NumPy). Numba and torch columns appear when those packages are installed
(``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
    p.add_argument("--no-numba", action="store_true", help="skip the Numba column")
    p.add_argument("--no-torch", action="store_true", help="skip the torch.compile column")
    p.add_argument("--worker", choices=("numba", "torch"), help=argparse.SUPPRESS)
    return p.parse_args(argv)


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None and ARGS.threads:
    # Before NumPy (OpenBLAS) and torch load, so their pools are sized from the start.
    for var in ("EMBER_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = str(ARGS.threads)

sys.path.insert(0, ROOT)

import shutil  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks.workloads import WORKLOADS, check  # noqa: E402

# ----------------------------------------------------------------------------- timing


def measure(fn, args, target: float, min_repeats: int = 3, max_repeats: int = 2000) -> float:
    """Median seconds of ``fn(*args)`` after warm-up; N repeats fill about ``target`` s."""
    fn(*args)  # warm-up (first-touch allocations, lazy init)
    t0 = time.perf_counter()
    fn(*args)
    once = max(time.perf_counter() - t0, 1e-7)
    repeats = int(min(max(target / once, min_repeats), max_repeats))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


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


# ----------------------------------------------------------------------------- implementations


class Result:
    """One cell: a time, FAIL (wrong answer), ERR (raised) or n/a (not installed)."""

    def __init__(self, seconds=None, status="ok", note=""):
        self.seconds, self.status, self.note = seconds, status, note

    def to_json(self):
        return {"seconds": self.seconds, "status": self.status, "note": self.note}

    @staticmethod
    def from_json(d):
        return Result(d["seconds"], d["status"], d.get("note", ""))


def settle():
    """Let thread pools that spin after a call (OpenBLAS, OpenMP) go idle first."""
    time.sleep(0.2)


def run_one(name, make, reference, workload, inputs, target, notes, unwrap=lambda r: r):
    """Build the implementation, check it against NumPy, then time it."""
    try:
        fn = make()
        got = unwrap(fn(*inputs))
    except Exception as e:  # noqa: BLE001
        msg = str(e).strip().splitlines()
        notes.append(f"{workload.name}/{name}: ERR {type(e).__name__}: {msg[0][:200] if msg else ''}")
        if os.environ.get("EMBER_BENCH_TRACEBACK"):
            traceback.print_exc()
        return Result(status="ERR")
    ok, detail = check(workload, got, reference)
    if not ok:
        notes.append(f"{workload.name}/{name}: FAIL, disagrees with NumPy ({detail}); not timed")
        return Result(status="FAIL", note=detail)
    settle()
    return Result(measure(fn, inputs, target))


def workload_inputs(w, scale):
    """The same inputs in every process: a seed per workload."""
    return w.inputs(np.random.default_rng(WORKLOADS.index(w)), scale)


# Numba and torch each run in a process of their own, one after the other: their
# OpenMP pools spin after each parallel region, and on a small machine a pool spinning
# in the background halves whatever is measured next (Ember, NumPy, the other one).


def worker(kind, names, scale, target, threads) -> int:
    """``--worker numba|torch``: time that column for ``names``; one JSON line per workload."""
    import json

    mod = __import__(kind)
    if threads:
        if kind == "numba":
            mod.set_num_threads(min(threads, mod.config.NUMBA_NUM_THREADS))
        else:
            mod.set_num_threads(threads)
    print(json.dumps({"version": mod.__version__}), flush=True)
    for w in [w for w in WORKLOADS if w.name in names]:
        inputs = workload_inputs(w, scale)
        reference = w.numpy(*inputs)
        notes = []
        if kind == "numba":
            res = run_one("numba", w.numba, reference, w, inputs, target, notes)
        else:
            tin = tuple(mod.from_numpy(a) for a in inputs)
            res = run_one(
                "torch.compile",
                lambda w=w: mod.compile(w.torch),
                reference,
                w,
                tin,
                target,
                notes,
                unwrap=lambda t: t.detach().numpy(),
            )
        print(json.dumps({"workload": w.name, "result": res.to_json(), "notes": notes}), flush=True)
    return 0


def run_worker(kind, names, scale, target, threads, notes):
    """Results of ``worker`` in a child process: ({name: Result}, version) or ({}, None)."""
    import importlib.util
    import json
    import subprocess

    if importlib.util.find_spec(kind) is None:
        return {}, None
    print(f"  {kind} (own process) ...", end="", flush=True)
    cmd = (
        [
            sys.executable,
            os.path.abspath(__file__),
            "--worker",
            kind,
            "--only",
            ",".join(names),
            "--target",
            str(target),
        ]
        + (["--quick"] if scale == "quick" else [])
        + (["--threads", str(threads)] if threads else [])
    )
    proc = subprocess.run(cmd, capture_output=True, text=True)
    results, version = {}, None
    for line in proc.stdout.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if "version" in d:
            version = d["version"]
        elif "workload" in d:
            results[d["workload"]] = Result.from_json(d["result"])
            notes.extend(d["notes"])
    if proc.returncode != 0 or version is None:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1][:200]
        notes.append(f"{kind}: worker process failed (exit {proc.returncode}): {tail}")
        for name in names:
            results.setdefault(name, Result(status="ERR"))
    print(" done", flush=True)
    return results, version


# ----------------------------------------------------------------------------- the in-process columns


def measure_in_process(w, scale, target, notes, compile_ms, kernels) -> tuple[dict, int]:
    """NumPy, NumPy ``out=`` and Ember for one workload, and the bytes it moves. Ember is
    compiled on the first round only (cold: empty caches; warm: memory cleared, loaded
    from the disk cache)."""
    from compiler.backends import compile_graph
    from runtime.cache import ARTIFACTS

    print(f"  {w.name}: numpy, numpy-out, ember ...", end="", flush=True)
    inputs = workload_inputs(w, scale)
    reference = w.numpy(*inputs)
    res = {}
    settle()
    res["numpy"] = Result(measure(w.numpy, inputs, target))
    out_fn = w.numpy_out(*inputs)
    res["numpy-out"] = run_one("numpy-out", lambda: out_fn, reference, w, inputs, target, notes)
    if w.name not in kernels:
        kernels[w.name] = None
        module = w.module(scale)
        try:
            ARTIFACTS.clear_memory()
            t0 = time.perf_counter()
            compile_graph(module, "cpu")
            cold = time.perf_counter() - t0
            ARTIFACTS.clear_memory()
            disk_hits = ARTIFACTS.stats.disk_hits
            t0 = time.perf_counter()
            kernels[w.name] = compile_graph(module, "cpu")
            compile_ms[w.name] = (cold * 1e3, (time.perf_counter() - t0) * 1e3)
            if ARTIFACTS.stats.disk_hits != disk_hits + 1:
                notes.append(f"{w.name}/ember: the warm compile did not load from the disk cache")
        except Exception as e:  # noqa: BLE001
            msg = str(e).strip().splitlines()
            notes.append(f"{w.name}/ember: compile ERR {type(e).__name__}: {msg[0][:200] if msg else ''}")
    kernel = kernels[w.name]
    res["ember"] = (
        run_one("ember", lambda: kernel, reference, w, inputs, target, notes, unwrap=lambda r: r[0])
        if kernel is not None
        else Result(status="ERR")
    )
    print(" done", flush=True)
    return res, w.bytes_moved(inputs, reference)


def merge_best(cells: dict, measured: dict) -> None:
    """Keep each cell's fastest time over rounds; a FAIL or ERR in any round stays."""
    for column, r in measured.items():
        old = cells.get(column)
        if old is None or (old.status == "ok" and (r.status != "ok" or r.seconds < old.seconds)):
            cells[column] = r


# ----------------------------------------------------------------------------- table


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


def print_table(rows, headers):
    widths = [max(len(str(row[i])) for row in [headers] + rows) for i in range(len(headers))]
    line = "  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(headers, widths)))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))))


# ----------------------------------------------------------------------------- main


def main(args) -> int:
    scale = "quick" if args.quick else "full"
    target = args.target if args.target is not None else (0.05 if args.quick else 0.75)
    selected = WORKLOADS
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in {w.name for w in WORKLOADS}]
        if unknown:
            print(f"unknown workload(s) {unknown}; choose from {[w.name for w in WORKLOADS]}", file=sys.stderr)
            return 2
        selected = [w for w in WORKLOADS if w.name in names]
    names = [w.name for w in selected]
    if args.worker:
        return worker(args.worker, names, scale, target, args.threads)

    # A private, empty artifact cache: compile times below are really cold, and the
    # user's own cache is neither read nor filled.
    cache = tempfile.mkdtemp(prefix="ember-bench-cache-")
    os.environ["EMBER_CACHE_DIR"] = cache

    from compiler.backends import compile_graph
    from runtime import threads

    blas = [v for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if v in os.environ]
    if blas:
        settings = " ".join(f"{v}={os.environ[v]}" for v in blas)
        print(
            f"note: {settings} set in the environment; it can slow a current NumPy's OpenBLAS (matmul). "
            f"To measure without it, unset both for this command:\n"
            f"      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python {' '.join(sys.argv)}"
        )
    else:
        print("note: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are not set")
    load_before = os.getloadavg()[0]
    print(
        f"scale={scale}  target={target:g} s per measurement  load average {load_before:.2f}  "
        f"workloads: {', '.join(names)}",
        flush=True,
    )

    copy_mib = 32 if args.quick else 256
    bandwidth = copy_bandwidth(copy_mib << 20, max(target, 0.2))

    # One throwaway compile so the first workload's cold time does not include the
    # process-wide start-up (MLIR context, LLVM target initialisation).
    # (A graph none of the workloads has, so their cold compiles stay cold.)
    from compiler.dialects.builder import FunctionBuilder
    from compiler.dialects.types import TensorType

    b = FunctionBuilder("bench_warmup", [TensorType((None,), "f64")])
    compile_graph(b.finish([b.op("neg", b.args[0])]), "cpu")

    results, notes, compile_ms, kernels, versions, moved = {}, [], {}, {}, {}, {}
    for round_no in range(max(1, args.rounds)):
        if args.rounds > 1:
            print(f" round {round_no + 1} of {args.rounds}", flush=True)
        for w in selected:
            measured, moved[w.name] = measure_in_process(w, scale, target, notes, compile_ms, kernels)
            merge_best(results.setdefault(w.name, {}), measured)
        for kind, skip in (("numba", args.no_numba), ("torch", args.no_torch)):
            if skip:
                continue
            column, versions[kind] = run_worker(kind, names, scale, target, args.threads, notes)
            for name, r in column.items():
                merge_best(results[name], {kind: r})
    gbs = {
        w.name: moved[w.name] / results[w.name]["ember"].seconds
        for w in selected
        if w.streaming and results[w.name]["ember"].status == "ok"
    }

    rows = []
    for w in selected:
        res, base = results[w.name], results[w.name]["numpy"]
        rate = gbs.get(w.name)
        cold_warm = compile_ms.get(w.name)
        rows.append(
            [
                w.name,
                fmt_ms(base),
                fmt_ratio(res["numpy-out"], base),
                fmt_ratio(res["ember"], base),
                fmt_ratio(res.get("numba"), base),
                fmt_ratio(res.get("torch"), base),
                "-" if rate is None else f"{rate / 1e9:.1f}",
                "-" if rate is None else f"{100 * rate / bandwidth:.0f}%",
                "-" if cold_warm is None else f"{cold_warm[0]:.0f}",
                "-" if cold_warm is None else f"{cold_warm[1]:.1f}",
            ]
        )

    print()
    print_table(
        rows,
        [
            "workload",
            "numpy ms",
            "numpy-out ms (x)",
            "ember ms (x)",
            "numba ms (x)",
            "torch.compile ms (x)",
            "ember GB/s",
            "% copy",
            "compile cold ms",
            "warm ms",
        ],
    )
    print()
    try:
        import llvmlite
        import llvmlite.binding as llvm

        cpu, llvm_version = llvm.get_host_cpu_name(), llvmlite.__version__
    except Exception:  # noqa: BLE001
        cpu, llvm_version = "?", "?"
    libs = [f"numpy {np.__version__}", f"llvmlite {llvm_version}"]
    for kind in ("numba", "torch"):
        if kind in versions:
            libs.append(f"{kind} {versions[kind]}" if versions[kind] else f"{kind} not installed")
        else:
            libs.append(f"{kind} skipped")
    load_after = os.getloadavg()[0]
    n_threads = threads.num_threads()
    mt = ""
    if n_threads > 1:
        mt = (
            f" ({threaded_copy_bandwidth(copy_mib << 20, max(target, 0.2), n_threads) / 1e9:.1f} GB/s "
            f"split over {n_threads} threads, for context)"
        )
    print(
        f"copy bandwidth (np.copyto {copy_mib} MiB, 2 x bytes / time): {bandwidth / 1e9:.1f} GB/s{mt} | "
        f"cpu {cpu} | threads {n_threads} "
        f"(of {os.cpu_count()} cores) | " + ", ".join(libs)
    )
    rounds = f"; the best of {args.rounds} rounds' medians" if args.rounds > 1 else ""
    print(
        f"x = NumPy-eager time / that time (higher is faster); median of N calls after warm-up{rounds}. "
        "GB/s = (inputs read + outputs written) / Ember time; % copy = GB/s over the copy bandwidth. "
        "compile: cold = empty caches; warm = memory cache cleared, loaded from the disk cache. "
        "Numba and torch ran in processes of their own."
    )
    if max(load_before, load_after) > 0.7 * (os.cpu_count() or 1):
        print(
            f"!! load average was {load_before:.2f} before and {load_after:.2f} after the run on "
            f"{os.cpu_count()} cores: other processes competed for the CPUs, so times are noisy "
            f"(multi-threaded ones most)"
        )
    for n in notes:
        print("!!", n)
    shutil.rmtree(cache, ignore_errors=True)
    return 1 if any(("FAIL" in n or "ERR" in n or "failed" in n) for n in notes) else 0


if __name__ == "__main__":
    sys.exit(main(ARGS))
