"""Loops that carry Python numbers (``ember-scalar-carries``, ``ember-stack-scalars``):
``s += x[i] * y[i]`` traced as a loop keeps its running value in a register, not in
heap buffers handed from one iteration to the next, and gives NumPy's answer for every
type of number it carries."""

from __future__ import annotations

import numpy as np
import pytest
from graph_building import optimized_llvm_ir
from test_loop_capture import _assert_same

import compiler

SMALL = {"max_graph_ops": 100}  # every loop below unrolls past it: traced as a loop


def dot_loop(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


def signed_sum(x):
    s = -0.0
    for i in range(x.shape[0]):
        s = s + x[i]
    return s


def product_loop(x):
    p = np.float32(1.0)
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def count_positive(x):
    c = 0
    for i in range(x.shape[0]):
        c = c + (x[i] > 0)
    return c


def running_max(x):
    m = -np.inf
    for i in range(x.shape[0]):
        m = np.maximum(m, x[i])
    return m


def any_below(x, bound):
    seen = False  # a Python bool, carried as the bool array the body makes of it
    for i in range(x.shape[0]):
        seen = seen | (x[i] < bound)
    return seen


def all_above(x, bound):
    seen = True
    for i in range(x.shape[0]):
        seen = seen & (x[i] > bound)
    return seen


def two_carries(x):
    s, s2 = 0.0, 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
        s2 = s2 + x[i] * x[i]
    return s, s2, x + s


def _cases():
    rng = np.random.default_rng(11)
    with_nan = rng.standard_normal(90)
    with_nan[[7, 50]] = np.nan
    return [
        (dot_loop, (rng.standard_normal(300), rng.standard_normal(300))),
        (dot_loop, (np.full(120, -0.0), np.ones(120))),  # -0.0 * 1 summed from 0.0: +0.0
        (signed_sum, (np.full(120, -0.0),)),  # summed from -0.0: -0.0
        (dot_loop, (rng.standard_normal(800)[::-3], rng.standard_normal(267))),  # a reversed strided view
        (dot_loop, (np.array([1.0, np.inf] * 60), np.ones(120))),
        (product_loop, (rng.uniform(0.9, 1.1, 150).astype(np.float32),)),
        (count_positive, (rng.standard_normal(200),)),
        (count_positive, (rng.integers(-3, 3, 200, dtype=np.int32),)),
        (running_max, (with_nan,)),  # NaN propagates as np.maximum's does
        (running_max, (rng.standard_normal(130).astype(np.float32),)),
        (any_below, (rng.standard_normal(140), -1.0)),
        (any_below, (rng.standard_normal(140), -9.0)),
        (all_above, (rng.standard_normal(140), -9.0)),
        (all_above, (rng.standard_normal(140), -1.0)),
        (two_carries, (rng.standard_normal(110),)),
    ]


@pytest.mark.parametrize("case", range(len(_cases())))
def test_a_loop_carrying_numbers_gives_numpys_answer(fresh_compiler, case):
    fn, args = _cases()[case]
    want = fn(*args)
    compiled = compiler.compile(fn, options={**SMALL, "strict": True})
    _assert_same(compiled(*args), want)
    out = compiler.explain(compiled)(*args)
    assert (out.graph_count, out.graph_break_count) == (1, 0), out.break_reasons


def _kernel(llvm_ir: str) -> str:
    start = llvm_ir.index("define void @ember_kernel_")
    return llvm_ir[start : llvm_ir.index("\n}\n", start)]


def test_the_running_sum_is_a_register_not_a_buffer(fresh_compiler):
    """No allocation at all is left in the kernel, and the sum is a phi of the loop:
    before, each iteration allocated the next iteration's 0-d buffer and stored and
    loaded the sum through memory."""
    x = np.ones(5000)
    kernel = _kernel(optimized_llvm_ir(dot_loop, x, x))
    assert "scf.for" not in kernel and "phi double" in kernel
    assert "@ember_temp_alloc" not in kernel and "@malloc" not in kernel
    assert "store double" not in kernel.split("phi double")[1].split("br i1")[0]  # not in the loop's body


def test_a_function_keeps_at_most_max_frame_bytes_of_buffers_on_its_stack():
    """A graph of many small values (an unrolled loop's) keeps the rest on the heap:
    the kernel may run on a worker thread's stack."""
    from compiler.dialects import ember
    from compiler.mlir import ir
    from compiler.passes.pass_manager import run_pipeline
    from compiler.passes.stack_scalars import MAX_FRAME_BYTES

    count = MAX_FRAME_BYTES // 64 + 10
    body = "\n".join(
        f"  %b{k} = memref.alloc() {{alignment = 64 : i64}} : memref<8xf64>\n"
        f"  memref.store %x, %b{k}[%c0] : memref<8xf64>\n"
        f"  memref.dealloc %b{k} : memref<8xf64>"
        for k in range(count)
    )
    text = f"func.func @f(%x: f64) {{\n  %c0 = arith.constant 0 : index\n{body}\n  return\n}}"
    with ember.new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, "builtin.module(ember-stack-scalars)")
        out = str(module)
    assert out.count("memref.alloca()") == MAX_FRAME_BYTES // 64
    assert out.count("memref.alloc()") == 10 and out.count("memref.dealloc") == 10
