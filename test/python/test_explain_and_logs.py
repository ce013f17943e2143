"""compiler.explain and the EMBER_LOGS channels."""

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import compiler

pytestmark = pytest.mark.usefixtures("fresh_compiler")

REPO = Path(__file__).resolve().parents[2]


def test_explain_a_whole_graph():
    calls = []

    def f(x, y):
        calls.append(1)
        return np.tanh(x) * y + 1

    out = compiler.explain(f)(np.ones(4, np.float32), np.ones(4, np.float32))
    assert (out.graph_count, out.graph_break_count, out.break_reasons) == (1, 0, [])
    assert out.ops_per_graph[0] >= 3  # tanh, mul, add (+ constant/broadcast)
    assert any("L['x']" in g and "float32" in g for g in out.guards)
    assert calls == [1]  # ran once
    assert "trace" in out.compile_times and "Graph count: 1" in str(out)


def test_explain_a_break_names_reason_and_line():
    def f(x):
        y = x + 1
        print("side effect")
        return y

    out = compiler.explain(f)(np.ones(2))
    assert (out.graph_count, out.graph_break_count) == (1, 1)  # x + 1; the rest has no array work
    reason = out.break_reasons[0]
    assert reason.reason == "`print` is a side effect Ember runs in Python"
    assert reason.location.endswith(f"test_explain_and_logs.py:{f.__code__.co_firstlineno + 2}")
    np.testing.assert_array_equal(out.result, np.ones(2) + 1)


def test_graph_code_shows_each_op_with_its_source_line(caplog):
    compiler.set_logs("graph_code")
    logging.getLogger("compiler.graph_code").propagate = True

    @compiler.compile
    def mse(x, y):
        z = (x - y) ** 2
        return z.sum()

    with caplog.at_level(logging.INFO, logger="compiler.graph_code"):
        mse(np.ones(3, np.float32), np.zeros(3, np.float32))
    text = caplog.text
    assert "TRACED GRAPH" in text and "ember.sub" in text and "ember.sum" in text
    assert "z = (x - y) ** 2" in text and "return z.sum()" in text
    assert "<- L['x']" in text


def test_set_logs_rejects_unknown_channels():
    with pytest.raises(ValueError, match="unknown log channel"):
        compiler.set_logs("guardz")


def test_ember_logs_environment_variable_turns_channels_on(tmp_path):
    script = tmp_path / "f.py"
    script.write_text(
        "import numpy as np, compiler\nf = compiler.compile(lambda x: x * 2)\nx = np.ones(3)\nf(x)\nf(np.ones(4))\n"
    )
    env = dict(
        os.environ, EMBER_LOGS="guards,recompiles,perf", PYTHONPATH=str(REPO), EMBER_CACHE_DIR=str(tmp_path / "cache")
    )  # a cold cache: compile times are logged
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "[ember:compiler.guards] GUARDS" in done.stderr
    assert "Recompiling function <lambda>" in done.stderr and "shape=(3,)" in done.stderr
    assert "trace" in done.stderr and "MLIR passes" in done.stderr
