"""Kernel temporaries of 4 MiB and more are allocated through ``ember_malloc``, which
asks Linux for huge pages as NumPy does (``compiler/backends/llvm_cpu/huge_pages.py``)."""

import numpy as np

import compiler
from compiler.backends.llvm_cpu import lower_to_object
from compiler.backends.llvm_cpu.huge_pages import advise_large_allocations
from compiler.mlir import functions, symbol_name


def test_mallocs_go_through_ember_malloc_on_linux():
    ir = "declare ptr @malloc(i64)\ndefine ptr @f() {\n  %p = tail call ptr @malloc(i64 99)\n  ret ptr %p\n}\n"
    linux = advise_large_allocations(ir, "x86_64-unknown-linux-gnu")
    assert "tail call ptr @ember_malloc(i64 99)" in linux and "declare ptr @malloc(i64)" in linux
    assert "@madvise(ptr %sp, i64 %len, i32 14)" in linux and "icmp uge i64 %n, 4194304" in linux
    assert advise_large_allocations(ir, "x86_64-apple-darwin") == ir


def test_a_large_temporary_is_advised_and_the_result_right():
    def scaled_rows(A, x):
        return np.tanh(A * 2.0) @ x  # the tanh of the matrix is a 4.8 MB temporary

    modules = []
    A = np.random.default_rng(0).standard_normal((600, 1000))
    x = np.ones(1000)
    compiler.compile(scaled_rows, backend=lambda m, ex: modules.append(m) or compiler.backends.EagerGraph(m))(A, x)
    entry = symbol_name(functions(modules[0])[0])
    assert "call ptr @ember_malloc(" in lower_to_object(modules[0], entry, (True, True)).llvm_ir
    np.testing.assert_allclose(compiler.compile(scaled_rows)(A, x), scaled_rows(A, x), rtol=1e-12)
