"""Differential: random Ember functions through lower-to-llvm and the CPU runtime
equal the NumPy reference interpreter — bit for bit on integers and booleans, within
SPEC tolerance on floats, NaN and inf where the reference has them — on dynamic
sizes (0 and 1 included) and on non-contiguous, reversed and broadcast inputs."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from programs import programs, random_inputs

from compiler.backends.llvm_cpu import compile_module
from compiler.dialects import interpreter

TOLERANCE = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def assert_matches(got: np.ndarray, want: np.ndarray, program, computed_in_f32: bool = False):
    assert got.dtype == want.dtype and got.shape == want.shape, program
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=repr(program))
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=repr(program))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    # A float64 result cast from float32 work (``exp`` in f32, then ``cast`` to f64) is
    # float32-accurate, as NumPy's own would be: the tolerance is the least precise type's.
    rtol = TOLERANCE[np.dtype(np.float32)] if computed_in_f32 else TOLERANCE[got.dtype]
    # Reductions may add in another order: allow the error of that, relative to the
    # magnitude of what was summed, not of the (possibly cancelled) result.
    scale = max(1.0, float(np.max(np.abs(want[finite]), initial=0.0)))
    np.testing.assert_allclose(
        got[finite], want[finite], rtol=100 * rtol, atol=100 * rtol * scale, err_msg=repr(program)
    )


def run_both(program, inputs):
    module = program.build()
    try:
        want = interpreter.run(module, *inputs)
    except ValueError:  # NumPy itself refuses (max of nothing): no answer to compare with
        reject()
    got = compile_module(module)(*inputs)
    assert len(got) == len(want)
    computed_in_f32 = "f32" in str(module)
    for g, w in zip(got, want):
        assert_matches(g, w, program, computed_in_f32)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2, 7]))
def test_random_functions_match_the_interpreter(program, seed, size):
    rng = np.random.default_rng(seed)
    inputs = random_inputs(rng, program.arg_types, sizes={a: size for a in range(3)})
    with np.errstate(all="ignore"):
        run_both(program, inputs)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(dynamic=False), st.integers(0, 2**32 - 1), st.sampled_from(["reversed", "strided", "broadcast"]))
def test_non_contiguous_inputs(program, seed, layout):
    rng = np.random.default_rng(seed)
    inputs = [_relayout(a, layout) for a in random_inputs(rng, program.arg_types)]
    with np.errstate(all="ignore"):
        run_both(program, inputs)


def _relayout(a: np.ndarray, layout: str) -> np.ndarray:
    if a.ndim == 0:
        return a
    if layout == "reversed":
        return np.ascontiguousarray(a[(slice(None, None, -1),) * a.ndim])[(slice(None, None, -1),) * a.ndim]
    if layout == "strided":
        big = np.repeat(a, 2, axis=-1)
        return big[..., ::2]
    first = a[:1]  # a broadcast view: zero stride along axis 0
    return np.broadcast_to(first, a.shape) if a.shape[0] else a


@pytest.mark.parametrize("n", [0, 1, 5, 100_003])
def test_parallel_kernel_runs_every_tile_once(n, monkeypatch):
    """A kernel split into parts (threads) computes each element exactly once."""
    import runtime.threads as threads
    from compiler.dialects.builder import FunctionBuilder
    from compiler.dialects.types import TensorType

    monkeypatch.setattr(threads, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setenv("EMBER_NUM_THREADS", "3")
    b = FunctionBuilder("axpy", [TensorType((None,), "f64")] * 2)
    x, y = b.args
    kernel = compile_module(b.finish([b.op("add", b.op("mul", x, x), y)]))
    assert kernel.parallel
    a, c = np.arange(n, dtype=np.float64), np.ones(n)
    (out,) = kernel(a, c)
    np.testing.assert_array_equal(out, a * a + c)
