"""Kernels are generated without LLVM's loop strength reduction, helper libraries with
it (``backends/llvm_cpu/codegen.py``): the pass was the costliest of a kernel's compile
and its kernels run as fast without it. The switch is a process-wide LLVM option, set
around each code generation and put back after."""

from __future__ import annotations

import numpy as np
import pytest
from graph_building import captured_graph

from benchmarks.inplace import jacobi
from compiler.backends.llvm_cpu import codegen, helper_library, lower_to_object
from compiler.dialects import ember
from compiler.mlir import ir, symbol_name

pytestmark = pytest.mark.usefixtures("fresh_compiler")


def _stencil_llvm_ir() -> str:
    rng = np.random.default_rng(0)
    args = (rng.random((300, 300)), rng.random((300, 300)), 10)
    with ember.new_context():
        module = ir.Module.parse(captured_graph(jacobi, *args))
        entry = symbol_name(module.body.operations[0])
        return lower_to_object(module, entry, (True, True)).llvm_ir


def test_kernels_skip_strength_reduction_and_the_switch_is_put_back():
    text = _stencil_llvm_ir()
    with_it = codegen.emit_assembly(codegen.optimize(text), strength_reduction=True)
    kernel = codegen.emit_assembly(codegen.optimize(text))  # a kernel's default
    again = codegen.emit_assembly(codegen.optimize(text), strength_reduction=True)
    assert kernel != with_it  # the stencil's loops come out otherwise without it
    assert again == with_it  # and the option is as it was after a kernel's generation
    assert codegen.emit_object(codegen.optimize(text)) == codegen.emit_object(codegen.optimize(text))


def test_helper_libraries_keep_strength_reduction(monkeypatch):
    asked = []

    def spy(module, opt_level=3, strength_reduction=False):
        asked.append(strength_reduction)
        return b""

    monkeypatch.setattr(helper_library, "emit_object", spy)
    helper_library._compile("matvec_f64")
    assert asked == [True]


def test_kernels_without_it_compute_numpys_answer(fresh_compiler):
    import compiler

    rng = np.random.default_rng(1)
    for shape, steps in (((300, 300), 10), ((301, 17), 7), ((5, 5), 3)):
        a, b = rng.random(shape), rng.random(shape)
        got_a, got_b, want_a, want_b = a.copy(), b.copy(), a.copy(), b.copy()
        got = compiler.compile(jacobi)(got_a, got_b, steps)
        want = jacobi(want_a, want_b, steps)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_a, want_a)
        np.testing.assert_array_equal(got_b, want_b)
