"""The benchmarks stay correct: what benchmarks/run.py times computes NumPy's answer.

At tiny sizes: every workload's NumPy function through ``compiler.compile`` (run.py's
Ember column) runs as one graph and matches NumPy; so do JAX and torch's fused library
ops when installed (torch.compile and Numba are not run: their compiles take seconds
each), and the hand-built graphs of ``--backend-unit``. The table's best anchor,
best/ember ratio and summary come from its cells. Also benchmarks/parallel_split.py's
and dynamic_kernel.py's rows. Correctness only, no timing.
"""

import os

import numpy as np
import pytest

from benchmarks import processes, run, timing
from benchmarks.graphs import GRAPHS
from benchmarks.workloads import WORKLOADS, check

WITH_GRAPH = [w for w in WORKLOADS if w.name in GRAPHS]
WITH_TORCH_OPS = [w for w in WORKLOADS if w.torch_ops is not None]


def tiny_inputs(w):
    return w.inputs(np.random.default_rng(0), "tiny")


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_compiled_numpy_function_matches_numpy(workload):
    inputs = tiny_inputs(workload)
    make, unwrap = run.ember_column(workload, "tiny", backend_unit=False)
    ok, detail = check(unwrap(workload.outcome(make(), inputs)), workload.outcome(workload.numpy, inputs))
    assert ok, detail
    assert run.graph_note(workload, workload.fresh(inputs)) is None  # one graph, no break: not CPython's time


@pytest.mark.parametrize("workload", WITH_GRAPH, ids=lambda w: w.name)
def test_backend_unit_graph_matches_numpy(workload):
    inputs = tiny_inputs(workload)
    make, unwrap = run.ember_column(workload, "tiny", backend_unit=True)
    ok, detail = check(unwrap(make()(*inputs)), workload.numpy(*inputs))
    assert ok, detail


def test_backend_unit_graph_rows_are_dynamic():
    """The graphs are shape-polymorphic in the leading dimension, like a user's function."""
    softmax = next(w for w in WORKLOADS if w.name == "softmax")
    make, unwrap = run.ember_column(softmax, "tiny", backend_unit=True)
    kernel = make()
    for rows in (1, 5, 40):
        (x,) = softmax.make_inputs(np.random.default_rng(rows), rows=rows, cols=24)
        ok, detail = check(unwrap(kernel(x)), softmax.numpy(x))
        assert ok, detail


@pytest.fixture
def jax(monkeypatch):
    """jax on the CPU, its float64 setting restored afterwards (processes.jax_columns sets it)."""
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    jax = pytest.importorskip("jax")
    x64 = jax.config.read("jax_enable_x64")
    yield jax
    jax.config.update("jax_enable_x64", x64)


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_jax_column_matches_numpy(workload, jax):
    inputs = tiny_inputs(workload)
    ((make, args),) = processes.jax_columns(jax, workload, inputs).values()
    got = timing.as_numpy(workload.outcome(make(), args, functional=True))
    ok, detail = check(got, workload.outcome(workload.numpy, inputs))
    assert ok, detail


@pytest.mark.parametrize("workload", WITH_TORCH_OPS, ids=lambda w: w.name)
def test_torch_library_ops_match_numpy(workload):
    torch = pytest.importorskip("torch")
    inputs = tiny_inputs(workload)
    make, args = processes.torch_columns(torch, workload, inputs)["torch-ops"]
    ok, detail = check(timing.as_numpy(workload.outcome(make(), args)), workload.outcome(workload.numpy, inputs))
    assert ok, detail


def test_check_rejects_wrong_answers():
    want = (np.ones(3, np.float32), np.zeros(2))
    assert check(want, want)[0]
    assert not check((want[0] + 1e-3, want[1]), want)[0]
    assert not check((want[0].astype(np.float64), want[1]), want)[0]  # another dtype
    assert not check(want[0], want)[0]  # one result of two


def test_outcome_is_what_a_call_leaves_in_its_arguments():
    """An in-place workload is checked on what it writes, and its inputs stay as they were."""
    update = next(w for w in WORKLOADS if w.name == "matvec_update")
    inputs = tiny_inputs(update)
    before = [a.copy() for a in inputs]
    want = update.outcome(update.numpy, inputs)
    assert len(want) == 2  # returns None; writes x1 and x2
    assert all(np.array_equal(a, b) for a, b in zip(inputs, before))
    assert not check(update.outcome(lambda A, x1, x2, y1, y2: None, inputs), want)[0]

    def first_only(A, x1, x2, y1, y2):
        x1 += A @ y1

    assert not check(update.outcome(first_only, inputs), want)[0]
    assert check(update.outcome(update.jax, inputs, functional=True), want)[0]


def test_in_process_columns_measure_two_results(tmp_path, monkeypatch):
    """NumPy and Ember's cells and first-call times for a workload returning a tuple; a
    second round measures the first call cold again, in a cache directory of its own."""
    from runtime.cache import ARTIFACTS

    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path / "outer"))
    bicg = next(w for w in WORKLOADS if w.name == "bicg")
    notes, first_ms = [], {}
    here = run.InProcess("tiny", notes, first_ms, False, str(tmp_path))
    for round_no in (1, 2):
        misses = ARTIFACTS.stats.misses
        cells = processes.measure_side_by_side(bicg, [here], 1e-3, round_no)
        assert ARTIFACTS.stats.misses > misses  # compiled: nothing of round 1 was found
        assert notes == []
        assert cells["numpy"].status == cells["ember"].status == "ok"
        assert all(ms > 0 for ms in first_ms["bicg"])
        cold, compiling, warm, loading = first_ms["bicg"]
        assert compiling < cold and loading < warm
        assert len([d for d in tmp_path.iterdir() if d.name.startswith("bicg-")]) == round_no
    assert os.environ["EMBER_CACHE_DIR"] == str(tmp_path / "outer")
    assert here.moved["bicg"] == 8 * (7 * 9 + 9 + 7 + 9 + 7)  # A, p, r read; r @ A, A @ p written


def test_columns_are_medians_of_all_their_bursts(monkeypatch):
    """Each cell: the median of its calls over every burst; FAIL and ERR cells as they were."""
    columns = timing.Columns()
    columns.add("fast", lambda: None, ())
    columns.add("broken", timing.Result(status="FAIL"), ())
    bursts = iter([[1.0, 2.0, 9.0], [3.0, 4.0]])
    monkeypatch.setattr(timing, "timed_calls", lambda fn, args, seconds: next(bursts))
    monkeypatch.setattr(timing, "settle", lambda: None)
    columns.burst(0.1)
    columns.burst(0.1)
    cells = columns.results()
    assert cells["fast"].seconds == 3.0 and cells["broken"].status == "FAIL"


def test_library_worker_answers_each_workload_until_closed():
    """A child process kept for the run: it prepares the workloads it is sent, one at a
    time and in any order, times them in bursts; one that dies mid-run leaves ERR cells
    and a note, not a hang."""
    pytest.importorskip("jax")
    notes = []
    worker = processes.Worker.start("jax", ["mse", "softmax"], "quick", 1, notes)
    assert worker.alive and worker.version
    by_name = {w.name: w for w in WORKLOADS}
    for name in ("softmax", "mse", "softmax"):
        worker.prepare(by_name[name])
        worker.burst(1e-3)
        worker.burst(1e-3)
        cells = worker.finish()
        assert cells["jax"].status == "ok" and cells["jax"].seconds > 0
    assert notes == []
    worker.prepare(by_name["chain"])  # not among its workloads: the child fails
    worker.burst(1e-3)
    assert worker.finish()["jax"].status == "ERR"
    assert not worker.alive and "worker process failed at chain" in notes[0]
    worker.prepare(by_name["mse"])
    assert worker.finish()["jax"].status == "ERR"
    worker.close()
    assert worker.proc.returncode is not None


def test_columns_take_turns_first():
    assert [processes.rotated(["a", "b", "c"], r) for r in range(4)] == [
        ["a", "b", "c"],
        ["b", "c", "a"],
        ["c", "a", "b"],
        ["a", "b", "c"],
    ]


def test_first_call_times_keep_each_best_round():
    """The faster cold call with its own compile time, the faster warm call with its load."""
    assert run.merge_first(None, (5.0, 4.0, 2.0, 1.0)) == (5.0, 4.0, 2.0, 1.0)
    assert run.merge_first((5.0, 4.0, 2.0, 1.0), (6.0, 3.0, 1.5, 1.2)) == (5.0, 4.0, 1.5, 1.2)


def cells(**ms):
    return {c: timing.Result(t * 1e-3) if isinstance(t, float) else timing.Result(status=t) for c, t in ms.items()}


def test_best_anchor_and_summary():
    a = cells(numpy=4.0, ember=1.0, numba=2.0, jax="FAIL", torch=3.0)
    b = cells(numpy=1.0, ember=4.0, **{"torch-ops": 0.5})
    c = cells(numpy=1.0, ember="ERR")
    assert run.best_anchor(a) == ("numba", a["numba"])  # FAIL and Ember are not anchors
    assert run.best_over_ember(a) == pytest.approx(2.0)
    assert run.best_over_ember(b) == pytest.approx(0.125)
    assert run.best_over_ember(c) is None
    line = run.summary_line({"a": a, "b": b, "c": c})
    assert "over 2 workloads: 0.50x" in line and "on 1 of 2" in line


def test_table_has_the_columns():
    chain = next(w for w in WORKLOADS if w.name == "chain")  # no torch library op
    for name in ("numpy ms", "ember ms (x)", "numba ms", "jax ms", "torch.compile ms", "best anchor ms", "best/ember"):
        assert name in run.HEADERS
    row = dict(
        zip(
            run.HEADERS,
            run.table_row(
                chain, cells(numpy=4.0, ember=1.0, numba=2.0, jax="FAIL", torch=3.0), 2e9, (100.0, 60.0, 5.0, 3.0)
            ),
        )
    )
    assert len(row) == len(run.HEADERS)
    assert (row["1st call cold ms"], row["of which compile"]) == ("100", "60")
    assert (row["warm ms"], row["of which load"]) == ("5.0", "3.0")
    assert row["ember ms (x)"] == "1.00 (4.00x)"
    assert (row["jax ms"], row["torch ops ms"]) == ("FAIL", "-")
    assert (row["best anchor ms"], row["best/ember"]) == ("numba 2.00", "2.00x")
    assert row["ember GB/s"] == "2.0"


def test_parallel_split_rows_are_right():
    """benchmarks/parallel_split.py: both call forms compute tanh(x*x) (no timing checked)."""
    import math

    from benchmarks import parallel_split

    rows = parallel_split.measure([1, 1000, 70_000], parts=3, quick=True)
    assert [r["n"] for r in rows] == [1, 1000, 70_000]
    assert all(r["ok"] and math.isfinite(r["one"]) and r["split"] > 0 for r in rows)


def test_dynamic_kernel_rows_are_right():
    """benchmarks/dynamic_kernel.py: static and dynamic kernels agree with NumPy (no timing checked)."""
    import math

    from benchmarks import dynamic_kernel

    rows = dynamic_kernel.measure(quick=True)
    assert [r["name"] for r in rows] == ["rowsum", "softmax", "matmul", "inner_scale"]
    assert all(r["ok"] and math.isfinite(r["static"]) and r["dynamic"] > 0 for r in rows)
