"""The kernel's buffers reach LLVM as ``noalias`` pointers (``backends/llvm_cpu/noalias.py``).

MLIR's conversion to LLVM drops a memref argument's attributes, so the promise
``ember-bufferize`` makes (outputs fresh, a written input overlapping no other input)
has to be put back on each buffer's aligned pointer; without it LLVM guards every
vectorized loop with a run-time overlap check and keeps a scalar copy of it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from graph_building import captured_graph, optimized_llvm_ir

import compiler
import compiler.backends.llvm_cpu as llvm_cpu
from compiler.backends.llvm_cpu import lower_to_object
from compiler.dialects import ember
from compiler.mlir import ir, symbol_name

pytestmark = pytest.mark.usefixtures("fresh_compiler")


def scaled_sum(x, y):
    return x * 2.0 + y


def in_place(a, b):
    a *= 0.5
    a += b
    return a.sum()


def _kernel_parameters(fn, *args) -> list[str]:
    with ember.new_context():
        module = ir.Module.parse(captured_graph(fn, *args))
        entry = symbol_name(module.body.operations[0])
        text = lower_to_object(module, entry, (True,) * len(args)).llvm_ir
    define = next(line for line in text.splitlines() if line.startswith(f"define void @ember_kernel_{entry}("))
    return re.findall(r"(ptr(?: noalias)?|i64) %\d+", define)


def test_each_buffers_aligned_pointer_is_noalias():
    """Each buffer is (allocated pointer, aligned pointer, offset, size, stride): the
    aligned pointer, through which the kernel reads and writes, is marked."""
    params = _kernel_parameters(scaled_sum, np.ones(100), np.ones(100))
    buffers = [params[k : k + 5] for k in range(0, 15, 5)]  # x, y, the output
    assert buffers == [["ptr", "ptr noalias", "i64", "i64", "i64"]] * 3, params


def _overlap_checked(llvm_ir: str) -> bool:
    """Whether the vectorizer checks that arrays do not overlap, before the vector loop
    (pointer differences, ``diff.check``, or bounds, ``vector.memcheck``)."""
    return "%diff.check" in llvm_ir or "vector.memcheck" in llvm_ir


def test_the_vectorized_loop_has_no_overlap_check(monkeypatch):
    """LLVM's loop vectorizer checks at run time that the arrays do not overlap
    unless it knows they cannot."""
    assert not _overlap_checked(optimized_llvm_ir(scaled_sum, np.ones(1000), np.ones(1000)))
    monkeypatch.setattr(llvm_cpu, "mark_aligned_pointers", lambda *args: None)
    assert _overlap_checked(optimized_llvm_ir(scaled_sum, np.ones(1000), np.ones(1000)))


@pytest.mark.parametrize(
    "make_a, make_b",
    [
        (lambda: np.linspace(-1, 1, 50_000), lambda: np.linspace(2, 3, 50_000)),
        (lambda: np.arange(100_000.0)[::-2], lambda: np.ones(50_000)),  # negative strides
        (lambda: np.ones((300, 200)).T, lambda: np.arange(60_000.0).reshape(200, 300)),
    ],
)
def test_a_written_input_and_the_inputs_read_keep_numpys_answer(make_a, make_b):
    """The promise holds for an input written in place (guarded to overlap no other
    input): NumPy's answer, and the caller's array, as NumPy leaves it."""
    want_a, got_a, b = make_a(), make_a(), make_b()
    want = in_place(want_a, b)
    got = compiler.compile(in_place)(got_a, b)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(got_a, want_a)


def test_the_same_array_passed_twice_only_read():
    """Two inputs only read may be one array (``noalias`` allows that); a written one
    overlapping another input runs in CPython."""
    x = np.linspace(0, 1, 10_000)
    np.testing.assert_array_equal(compiler.compile(scaled_sum)(x, x), scaled_sum(x, x))
    a, want_a = np.linspace(0, 1, 10_000), np.linspace(0, 1, 10_000)
    got = compiler.compile(in_place)(a, a[::-1])
    want = in_place(want_a, want_a[::-1])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(a, want_a)
