"""Fusion decisions, checked on the IR and against the reference interpreter:
``ember-fuse`` recomputes a shared elementwise result in each reader (up to
``MAX_READERS``); ``ember-tile`` merges sibling tile loops, so a function with several
results still runs as one parallel loop."""

import numpy as np
import pytest

from compiler.backends.llvm_cpu import compile_module
from compiler.dialects import interpreter
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from compiler.mlir import ir
from compiler.passes import fusion
from compiler.passes.registry import run_pipeline


def shared_difference(readers: int) -> ir.Module:
    """``d = x - y`` read by ``readers`` ops ``d * x + c_k``, each returned."""
    b = FunctionBuilder("shared", [TensorType((None,), "f32")] * 2)
    x, y = b.args
    d = b.op("sub", x, y)
    outs = []
    for k in range(readers):
        c = b.op("broadcast_to", b.constant(np.float32(k)), result=b.type_of(x), sizes=b.dynamic_sizes(x, b.type_of(x)))
        outs.append(b.op("add", b.op("mul", d, x), c))
    return b.finish(outs)


def count(module: ir.Module, text: str) -> int:
    return str(module).count(text)


@pytest.mark.parametrize("readers", [1, 2, fusion.MAX_READERS, fusion.MAX_READERS + 1])
def test_shared_elementwise_is_recomputed_per_reader_up_to_the_limit(readers):
    module = shared_difference(readers)
    with module.context:
        fused = ir.Module.parse(str(module))
    run_pipeline(fused, "builtin.module(ember-to-linalg,ember-fuse)")
    subtractions = count(fused, "arith.subf")
    if readers <= fusion.MAX_READERS:
        assert subtractions == readers and count(fused, "linalg.generic") == readers  # one fused loop each
    else:
        assert subtractions == 1  # stays one op that stores d, read by every reader

    rng = np.random.default_rng(readers)
    x, y = (rng.standard_normal(1000).astype(np.float32) for _ in range(2))
    x[:3] = [np.nan, np.inf, -0.0]
    want = interpreter.run(module, x, y)
    got = compile_module(module)(x, y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("n", [0, 1, 5, 100_003])
def test_several_results_run_as_one_parallel_loop(n, monkeypatch):
    import runtime.threads as threads

    monkeypatch.setattr(threads, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setenv("EMBER_NUM_THREADS", "3")
    b = FunctionBuilder("three", [TensorType((None,), "f32")])
    (x,) = b.args
    t = b.op("tanh", x)
    module = b.finish([b.op("mul", x, x), b.op("add", t, x), t])
    kernel = compile_module(module)
    assert kernel.parallel  # one loop after sibling fusion (three before)
    a = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    if n:
        a[0] = np.nan
    for got, want in zip(kernel(a), interpreter.run(module, a)):
        np.testing.assert_allclose(got, want, rtol=2e-7, atol=0, equal_nan=True)
