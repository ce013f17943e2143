"""Numba, JAX and torch in processes of their own, and the turns every process's
columns take (``measure_side_by_side``).

Why processes: their thread pools spin after each parallel region, and on a small
machine a pool spinning in the background halves whatever is measured next (Ember,
NumPy, the other libraries). Why turns: this VM's memory bandwidth drifts by up to
half from one minute to the next, so columns measured minutes apart would compare the
drift, not the code. A child is started once (``benchmarks/run.py --worker KIND``)
and kept for the whole run, idle between requests.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

import numpy as np

from benchmarks.timing import Columns, Result, is_float64, prepare_one, workload_inputs

RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py")  # sets the threads before imports

# A process waiting for its next request spins nothing (``settle`` before every turn).
# Each ``*_columns`` gives {column: (make, arguments)} for one workload.


def numba_columns(numba, w, inputs):
    """The hand-written ``prange`` kernel, or ``njit`` of the NumPy function itself."""
    return {"numba": (w.numba or (lambda: numba.njit(w.numpy)), inputs)}


def jax_columns(jax, w, inputs):
    """``jax.jit`` of the jax.numpy version, waiting for the result; float64 for float64 workloads."""
    jax.config.update("jax_enable_x64", is_float64(inputs))
    args = tuple(jax.device_put(a) if isinstance(a, np.ndarray) else a for a in inputs)
    counts = [i for i, a in enumerate(inputs) if isinstance(a, int)]  # loop counts: static, as Ember's guards

    def make():
        jitted = jax.jit(w.jax or w.numpy, static_argnums=counts)
        return lambda *a: jax.block_until_ready(jitted(*a))

    return {"jax": (make, args)}


def torch_columns(torch, w, inputs):
    """``torch.compile`` of the torch version, and torch's fused library ops where there are some."""
    args = tuple(torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in inputs)
    columns = {"torch": (lambda: torch.compile(w.torch or w.numpy), args)}
    if w.torch_ops is not None:
        columns["torch-ops"] = (lambda: w.torch_ops, args)
    return columns


COLUMNS = {"numba": numba_columns, "jax": jax_columns, "torch": torch_columns}


def import_library(kind, threads):
    """``kind``, on the CPU and with ``threads`` threads where it has such a setting."""
    if kind == "jax":
        os.environ["JAX_PLATFORMS"] = "cpu"
    mod = __import__(kind)
    if threads and kind == "numba":
        mod.set_num_threads(min(threads, mod.config.NUMBA_NUM_THREADS))
    elif threads and kind == "torch":
        mod.set_num_threads(threads)
    return mod


def worker(kind, selected, scale, threads) -> int:
    """``--worker KIND``: that library's columns, driven by one JSON line at a time on
    stdin until it closes: ``{"prepare": workload}`` (build and check each column),
    ``{"burst": seconds}`` (time each), ``{"finish": true}`` (its cells); one JSON
    line answers each."""
    try:
        mod = import_library(kind, threads)
    except ImportError as e:  # installed but broken: the columns read n/a, as when absent
        print(json.dumps({"unavailable": f"{type(e).__name__}: {e}"[:200]}), flush=True)
        return 0
    print(json.dumps({"version": mod.__version__}), flush=True)
    by_name = {w.name: w for w in selected}
    columns, notes = Columns(), []
    for line in sys.stdin:
        request = json.loads(line)
        if "prepare" in request:
            w = by_name[request["prepare"]]
            columns, notes = Columns(), []
            inputs = workload_inputs(w, scale)
            reference = w.outcome(w.numpy, inputs)
            for column, (make, args) in COLUMNS[kind](mod, w, inputs).items():
                prepared = prepare_one(column, make, reference, w, args, notes, functional=column == "jax")
                columns.add(column, prepared, w.fresh(args))
            answer = {"prepared": w.name}
        elif "burst" in request:
            columns.burst(request["burst"])
            answer = {"burst": True}
        else:
            answer = {"results": {c: r.to_json() for c, r in columns.results().items()}, "notes": notes}
            columns = Columns()
        print(json.dumps(answer), flush=True)
    return 0


class Worker:
    """A library's child process (``worker``), started once and kept for the whole run,
    idle between requests, so that a workload's columns in every process can be timed
    in turns (``measure_side_by_side``)."""

    def __init__(self, kind, names, scale, threads, notes):
        import subprocess

        self.kind, self.notes, self.version, self.workload = kind, notes, None, None
        cmd = [sys.executable, RUN_SCRIPT, "--worker", kind, "--only", ",".join(names)]
        cmd += ["--quick"] if scale == "quick" else []
        cmd += ["--threads", str(threads)] if threads else []
        # stderr to a file: a pipe nobody reads fills up with a library's warnings and blocks the child
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        first = self._answer()
        if first is None or "unavailable" in first:
            why = first["unavailable"] if first else self._failure()
            notes.append(f"{kind} does not import ({why}): its columns read n/a")
            self.close()
        else:
            self.version = first["version"]

    @staticmethod
    def start(kind, names, scale, threads, notes) -> Worker | None:
        """The worker for ``kind``, or None when it is not installed."""
        import importlib.util

        if importlib.util.find_spec(kind) is None:
            return None
        print(f"  starting {kind} (own process) ...", end="", flush=True)
        worker = Worker(kind, names, scale, threads, notes)
        print(" ready" if worker.alive else " does not import", flush=True)
        return worker

    @property
    def label(self) -> str:
        return self.kind

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and self.version is not None

    def prepare(self, w) -> None:
        self.workload = w.name
        self._request({"prepare": w.name})

    def burst(self, seconds: float) -> None:
        self._request({"burst": seconds})

    def finish(self) -> dict:
        """{column: Result} of the prepared workload; ERR cells when the process died."""
        answer = self._request({"finish": True})
        if answer is not None:
            self.notes.extend(answer["notes"])
            return {c: Result.from_json(r) for c, r in answer["results"].items()}
        return {self.kind: Result(status="ERR")} if self.version is not None else {}

    def _request(self, request: dict) -> dict | None:
        """The child's answer, or None when it is dead (the first time: a note, and closed)."""
        if not self.alive:
            return None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        answer = self._answer()
        if answer is None:
            self.notes.append(f"{self.kind}: worker process failed at {self.workload}: {self._failure()}")
            self.close()
        return answer

    def _answer(self) -> dict | None:
        """The next JSON line the child prints (a library may print other lines), None at its end."""
        for line in self.proc.stdout:
            try:
                return json.loads(line)
            except ValueError:
                continue
        return None

    def _failure(self) -> str:
        self.proc.wait()
        self.stderr.seek(0)
        tail = (self.stderr.read().strip().splitlines() or ["?"])[-1][:200]
        return f"exit {self.proc.returncode}: {tail}"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()
        self.stderr.close()


BURSTS = 3  # turns per round: every column timed in each, the processes taking turns


def measure_side_by_side(w, groups: list, target: float, round_no: int) -> dict:
    """One round of workload ``w``: every group (this process's columns, each
    library's process) prepares it, then they take ``BURSTS`` turns timing for
    ``target / BURSTS`` s each, the first one moving every turn and round, so every
    column meets the same stretch of this VM's memory bandwidth, which drifts by up to
    half from one minute to the next (columns measured minutes apart compared the
    drift, not the code)."""
    for group in groups:
        group.prepare(w)
    for turn in range(BURSTS):
        for group in rotated(groups, round_no + turn):
            group.burst(target / BURSTS)
    measured = {}
    for group in groups:
        measured |= group.finish()
    return measured


def rotated(columns: list, round_no: int) -> list:
    """The columns in turn, the first one moving by one each round: no column is always
    measured right after a given other one (whose cache and page state it inherits)."""
    k = round_no % len(columns)
    return columns[k:] + columns[:k]
