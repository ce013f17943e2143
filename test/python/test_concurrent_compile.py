"""Concurrent first calls compile once; the recompile limit counts distinct entries;
the limit warning and the recompile log say what to do and what changed."""

from __future__ import annotations

import logging
import threading
import warnings

import numpy as np
import pytest

import compiler

pytestmark = pytest.mark.usefixtures("fresh_compiler")


def _in_threads(work, count=8):
    errors = []
    barrier = threading.Barrier(count)

    def run(k):
        try:
            barrier.wait()
            work(k)
        except Exception as e:  # reported by the test, not lost in a thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_eight_threads_making_the_same_first_call_compile_one_entry(compile_counter):
    @compiler.compile(backend=compile_counter)
    def f(x):
        return np.sin(x) * 2

    x = np.linspace(0, 1, 100)
    results = []
    _in_threads(lambda k: results.append(f(x)))
    assert len(f.entries) == 1 and compile_counter.graphs == 1
    assert all(np.array_equal(r, results[0]) for r in results)  # one kernel's answers
    np.testing.assert_allclose(results[0], np.sin(x) * 2, rtol=4e-16, atol=0)  # inline sin: within an ulp


def test_threads_over_many_signatures_fill_the_limit_with_distinct_entries():
    @compiler.compile(dynamic=False, options={"recompile_limit": 8})  # one entry per size
    def f(x):
        return x * 3 + 1

    sizes = [np.ones(n) for n in range(1, 13)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _in_threads(lambda k: [np.testing.assert_array_equal(f(x), x * 3 + 1) for x in sizes])
    shapes = [e.guards[0].text for e in f.entries]
    assert len(f.entries) == 8 and len(set(shapes)) == 8, shapes


def test_threads_over_many_sizes_share_the_symbolic_entry():
    """Automatic dynamic under threads: the sizes 2..12 end in one symbolic entry."""

    @compiler.compile
    def f(x):
        return x * 3 + 1

    f(np.ones(2))
    sizes = [np.ones(n) for n in range(2, 13)]
    _in_threads(lambda k: [np.testing.assert_array_equal(f(x), x * 3 + 1) for x in sizes])
    assert len(f.entries) == 2, [e.guards[0].text for e in f.entries]


def test_the_limit_warning_says_how_to_raise_it():
    f = compiler.compile(lambda x: x + 1, options={"recompile_limit": 1})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(np.ones(1))
        f(np.ones(2))
    (message,) = [str(w.message) for w in caught if "recompile_limit" in str(w.message)]
    assert "options={'recompile_limit': N}" in message and "dynamic=True" in message


def test_no_limit_warning_for_a_function_that_never_compiled():
    def gen(x):  # a generator: every entry runs in CPython
        yield x

    f = compiler.compile(gen, options={"recompile_limit": 1})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 4):
            assert list(f(np.ones(n)))[0].shape == (n,)
    assert not [w for w in caught if "recompile_limit" in str(w.message)]


def test_the_recompile_log_names_the_new_value(caplog):
    compiler.set_logs("recompiles")
    logging.getLogger("compiler.recompiles").propagate = True
    try:
        f = compiler.compile(lambda x: x + 1)
        f(np.ones(1))
        with caplog.at_level(logging.INFO, logger="compiler.recompiles"):
            f(np.ones((2, 5), np.float32))
    finally:
        compiler.set_logs("")
    message = "\n".join(r.getMessage() for r in caplog.records)
    assert "shape=(1,)" in message and "now ndarray, dtype=float32, shape=(2, 5)" in message, message
