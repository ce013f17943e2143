"""benchmarks/call_overhead.py keeps running and its pieces compute the right thing.

Correctness only, a handful of calls, no timing assertions; torch is not needed
(and not run: its first compile takes seconds).
"""

import math

import numpy as np
import pytest

from benchmarks import call_overhead as co


def test_warm_rows_are_right():
    rows = co.warm_ember(calls=20, batches=1)
    timed = {k: r for k, r in rows.items() if not k.startswith("_")}
    assert "ember compile(lambda)(x, y)" in timed and "  guard code alone" in timed
    assert "  entry's binder (guards did the checks)" in timed
    for label, r in timed.items():
        assert r["us"] > 0 and math.isfinite(r["us"]), label
        assert r.get("ok", True), f"{label}: wrong result"
    # one generated function: the entry's guards, then the kernel's builtin called in it
    dispatcher = rows["_dispatcher_source"]
    assert "x.dtype is" in dispatcher and "__ember_K_fast(" in dispatcher and "GRAPH(" not in dispatcher
    assert "def call(" in rows["_binder_source"]


def test_breakdown_pieces_compute_x_plus_y():
    import compiler

    x, y = co.warm_inputs(np)
    f = compiler.compile(lambda x, y: x + y)
    np.testing.assert_array_equal(f(x, y), x + y)
    parts = co.ember_parts(f, x, y)
    fn, args = parts["guards"]
    assert fn(*args) is True
    assert fn(x.astype(np.float64), y) is not True  # the guards do reject other inputs
    fn, args = parts["foreign"]
    parts["_out"][:] = 0
    fn(*args)
    np.testing.assert_array_equal(parts["_out"], x + y)
    fn, args = parts["trusted binder"]
    np.testing.assert_array_equal(fn(*args)[0], x + y)


def test_cold_mse_in_fresh_processes():
    want = co.mse_reference()
    cold, warm = co.cold_pair("ember", "EMBER_CACHE_DIR")
    for r in (cold, warm):
        assert "error" not in r, r
        assert abs(r["result"] - want) <= 1e-4 * abs(want)
        assert r["first_s"] > 0 and r["import_s"] > 0
    assert cold["cache_misses"] >= 1 and cold["cache_disk_hits"] == 0  # really cold
    assert warm["cache_misses"] == 0 and warm["cache_disk_hits"] >= 1  # really from disk


def test_numba_warm_worker():
    pytest.importorskip("numba")
    r = co.worker_warm("numba", calls=20, batches=1)
    assert r["ok"] and r["us"] > 0
