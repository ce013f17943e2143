"""``ember-fuse`` step 0: a shared elementwise result is recomputed by each reader
(up to ``MAX_READERS``), and the compiled results do not change."""

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
