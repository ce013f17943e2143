"""The CPU runtime: argument binding, output allocation, threads."""

import os
import threading

import numpy as np
import pytest

import runtime.threads as threads
from compiler.backends.llvm_cpu import compile_module
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.shapes import ShapeProgram
from compiler.dialects.types import TensorType


def softmax_kernel():
    b = FunctionBuilder("softmax", [TensorType((None, None), "f32")])
    (x,) = b.args
    t = b.type_of(x)
    m = b.op("max", x, axes=(1,), keepdims=True)
    mb = b.op("broadcast_to", m, result=t, sizes=[b.dim(x, 0), b.dim(x, 1)])
    e = b.op("exp", b.op("sub", x, mb))
    s = b.op("sum", e, axes=(1,), keepdims=True)
    sb = b.op("broadcast_to", s, result=t, sizes=[b.dim(x, 0), b.dim(x, 1)])
    return compile_module(b.finish([b.op("div", e, sb)]))


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_many_threads_call_one_kernel_with_different_inputs(monkeypatch):
    monkeypatch.setattr(threads, "PARALLEL_MIN_BYTES", 4096)  # let big calls fan out too
    kernel = softmax_kernel()
    assert kernel.parallel
    failures = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        for _ in range(20):
            rows, cols = int(rng.integers(0, 300)), int(rng.integers(1, 70))
            x = rng.standard_normal((rows, cols)).astype(np.float32)
            (got,) = kernel(x)
            if not np.allclose(got, softmax_ref(x), rtol=1e-5, atol=1e-6):
                failures.append((seed, rows, cols))

    pool = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert failures == []


@pytest.mark.parametrize("parts", ["1", "2", "5"])
def test_thread_count_from_the_environment(parts, monkeypatch):
    monkeypatch.setattr(threads, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setenv("EMBER_NUM_THREADS", parts)
    kernel = softmax_kernel()
    x = np.random.default_rng(1).standard_normal((1000, 33)).astype(np.float32)
    np.testing.assert_allclose(kernel(x)[0], softmax_ref(x), rtol=1e-5, atol=1e-6)


def test_thread_count_option_overrides_the_environment(monkeypatch):
    from compiler import config

    monkeypatch.setenv("EMBER_NUM_THREADS", "5")
    assert threads.num_threads() == 5
    monkeypatch.setattr(config, "num_threads", 3)
    assert threads.num_threads() == 3 and threads.configured_threads() == 3
    threads.set_num_threads(2)  # the runtime's own setting is the same one
    assert config.num_threads == 2 and threads.num_threads() == 2
    monkeypatch.setattr(config, "num_threads", None)
    monkeypatch.delenv("EMBER_NUM_THREADS")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert threads.num_threads() == cores


def test_bad_thread_count_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("EMBER_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="EMBER_NUM_THREADS"):
        threads.num_threads()


def test_outputs_are_fresh_arrays_the_caller_owns():
    kernel = softmax_kernel()
    x = np.ones((2, 3), np.float32)
    (a,) = kernel(x)
    (b,) = kernel(x)
    assert a is not b and not np.shares_memory(a, b) and not np.shares_memory(a, x)
    assert a.flags.c_contiguous and a.flags.owndata


def test_arguments_are_checked_against_the_signature():
    kernel = softmax_kernel()
    with pytest.raises(TypeError, match=r"argument 0 must be float32\[\?, \?\], got float64\[2, 2\]"):
        kernel(np.ones((2, 2)))
    with pytest.raises(TypeError, match="takes 1 arrays, got 2"):
        kernel(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="got list"):
        kernel([[1.0]])


def test_zero_d_and_size_zero():
    b = FunctionBuilder("f", [TensorType((), "i64"), TensorType((None,), "i64")])
    s, v = b.args
    total = b.op("add", b.op("sum", v, axes=(0,), keepdims=False), s)
    kernel = compile_module(b.finish([total]))
    (out,) = kernel(np.array(5), np.arange(0))
    assert out.shape == () and out.dtype == np.int64 and int(out) == 5
    (out,) = kernel(np.array(-1), np.arange(10))
    assert int(out) == 44


@pytest.mark.parametrize("fast", [True, False])
def test_both_call_paths_bind_any_view(fast, monkeypatch):
    """The array-reading entry (runtime/entry_glue.py) and the ctypes-descriptor fallback agree."""
    from runtime import abi

    monkeypatch.setattr(abi, "fast_entry_supported", fast)
    b = FunctionBuilder("f", [TensorType((None, 3), "f64"), TensorType((), "f64")])
    x, s = b.args
    y = b.op("mul", x, b.op("broadcast_to", s, result=b.type_of(x), sizes=[b.dim(x, 0)]))
    kernel = compile_module(b.finish([y, b.op("sum", y, axes=(0, 1), keepdims=False)]))
    base = np.arange(60, dtype=np.float64).reshape(10, 6)
    for view in (base[:, :3], base[::-3, ::2], np.broadcast_to(base[0, :3], (4, 3)), base[:0, :3]):
        got, total = kernel(view, np.array(2.0))
        np.testing.assert_array_equal(got, view * 2.0)
        assert total.shape == () and float(total) == float((view * 2.0).sum())


def test_generated_call_path_reads_like_hand_written_code():
    source = softmax_kernel()._checked_call().__ember_source__
    assert source.startswith("def call(a0):")
    assert "if type(a0) is not ndarray or a0.dtype is not IN0 or a0.ndim != 2:" in source
    assert "o0 = EMPTY0(shapes[0])" in source  # outputs.empty_of(OUT0): the dtype decided once


def test_call_paths_are_generated_on_first_use():
    """A warm start compiles only the call path it uses: none at load, the checked one on
    a direct call, the trusted one when an entry asks for it."""
    kernel = softmax_kernel()
    assert kernel._call is None and kernel._call_trusted is None
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    (got,) = kernel(x)
    np.testing.assert_allclose(got, softmax_ref(x), rtol=1e-5)
    assert kernel._call is not None and kernel._call_trusted is None
    (trusted,) = kernel.call_from_guarded_entry(x)
    np.testing.assert_array_equal(trusted, got)
    assert kernel.call_from_guarded_entry is kernel._call_trusted  # made once


def test_static_kernels_take_their_declared_output_shapes():
    """No shape program is built where every shape is static; a dynamic kernel replays
    the type rules, and so computes the shape of each call's output."""
    b = FunctionBuilder("rows", [TensorType((4, 6), "f64")])
    (x,) = b.args
    static = compile_module(b.finish([b.op("sum", x, axes=(1,), keepdims=False)]))
    assert not isinstance(static._shape_program, ShapeProgram)
    (total,) = static(np.ones((4, 6)))
    assert total.shape == (4,) and (total == 6.0).all()
    dynamic = softmax_kernel()
    assert isinstance(dynamic._shape_program, ShapeProgram)
    assert dynamic(np.ones((2, 7), np.float32))[0].shape == (2, 7)


@pytest.mark.parametrize("name", ["pow", "expf", "malloc", "free", "memcpy"])
def test_graphs_named_like_c_library_functions_do_not_capture_them(name):
    """Kernel symbols are prefixed: a graph called ``pow`` must not become the ``pow`` its
    own code calls (that recursed until the stack ran out)."""
    b = FunctionBuilder(name, [TensorType((3,), "f64")] * 2)
    x, y = b.args
    kernel = compile_module(b.finish([b.op("pow", x, y), b.op("exp", x)]))
    got_pow, got_exp = kernel(np.array([2.0, 3.0, 4.0]), np.array([2.0, 2.0, 0.5]))
    np.testing.assert_array_equal(got_pow, [4.0, 9.0, 2.0])
    np.testing.assert_allclose(got_exp, np.exp([2.0, 3.0, 4.0]), rtol=1e-12)
