"""compile_graph: every backend behind one call shape."""

import numpy as np
import pytest

from compiler.backends import compile_graph
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType


def gelu_module():
    b = FunctionBuilder("gelu", [TensorType((None,), "f32")])
    (x,) = b.args
    half = b.op("broadcast_to", b.constant(np.float32(0.5)), result=b.type_of(x), sizes=[b.dim(x, 0)])
    one = b.op("broadcast_to", b.constant(np.float32(1.0)), result=b.type_of(x), sizes=[b.dim(x, 0)])
    return b.finish([b.op("mul", b.op("mul", half, x), b.op("add", one, b.op("tanh", x)))])


@pytest.mark.parametrize("backend", ["cpu", "eager"])
def test_backends_agree_with_numpy(backend):
    x = np.linspace(-4, 4, 101, dtype=np.float32)
    (got,) = compile_graph(gelu_module(), backend)(x)
    np.testing.assert_allclose(got, 0.5 * x * (1 + np.tanh(x)), rtol=1e-5, atol=1e-7)
    assert got.dtype == np.float32


def test_a_callable_backend_receives_the_ember_module():
    seen = {}

    def backend(module, example_inputs):
        seen["text"] = str(module)
        seen["inputs"] = example_inputs
        return lambda *arrays: ("custom",)

    example = (np.ones(3, np.float32),)
    fn = compile_graph(gelu_module(), backend, example_inputs=example)
    assert fn(*example) == ("custom",)
    assert '"ember.tanh"' in seen["text"] and seen["inputs"] is example


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        compile_graph(gelu_module(), "tpu")


def test_kernels_vectorize_at_full_width_unless_they_call_libm(monkeypatch):
    """On an AVX-512 host a kernel of arithmetic (inline exp included) gets 512-bit
    vectors; one whose loops call libm per element (pow, sin, fmod) keeps LLVM's choice."""
    from compiler.backends import llvm_cpu
    from compiler.mlir import ir

    monkeypatch.setattr(llvm_cpu, "has_512_bit_vectors", lambda: True)
    arithmetic = "llvm.func @k(%x: f32) -> f32 {\n %y = llvm.fmul %x, %x : f32\n llvm.return %y : f32\n}"
    helpers = "llvm.func @ember_blas_sgemm(f32) -> f32\n" + arithmetic
    power = "llvm.func @k(%x: f32) -> f32 {\n %y = llvm.intr.pow(%x, %x) : (f32, f32) -> f32\n llvm.return %y : f32\n}"
    remainder = "llvm.func @k(%x: f32) -> f32 {\n %y = llvm.frem %x, %x : f32\n llvm.return %y : f32\n}"
    libm = "llvm.func @sinf(f32) -> f32\n" + arithmetic
    with ir.Context():
        wide = [llvm_cpu.full_width(ir.Module.parse(text)) for text in (arithmetic, helpers, power, remainder, libm)]
        assert wide == [True, True, False, False, False]
        monkeypatch.setattr(llvm_cpu, "has_512_bit_vectors", lambda: False)
        assert not llvm_cpu.full_width(ir.Module.parse(arithmetic))
