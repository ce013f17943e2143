"""The CUDA backend: PTX for every op family assembled by ptxas (no GPU needed), the
no-GPU error path, and — where a GPU is visible — the CPU backend's differential
tests run on ``"cuda"``, with NumPy inputs and with ``__cuda_array_interface__`` ones."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from programs import programs, random_inputs
from test_compiled_vs_reference import assert_matches

import compiler
from benchmarks.gpu_bench import layernorm, mse, softmax
from compiler.backends.nvptx import compile_graph_module, lower_to_ptx
from compiler.backends.nvptx.toolkit import ptxas_check, ptxas_path
from compiler.dialects import interpreter
from compiler.errors import EmberError, NoCudaDriver, NoGpuVisible
from runtime.cuda.driver import driver


def _gpu_visible() -> bool:
    try:
        driver()
    except EmberError:
        return False
    return True


GPU = _gpu_visible()
needs_gpu = pytest.mark.skipif(not GPU, reason="no GPU visible")
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="no ptxas (pip install 'ember[cuda]')")


# ---- user-level programs: each op family the corpus uses


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def axpy_in_place(a, x):
    a += 2.5 * x
    return a.sum()


def argmax_rows(x):
    return x.argmax(-1), x.min(0)


def argmax_long(x):
    """A 1-d argmax long enough to search blocks first (a reshape, a row reduction, gathers)."""
    return np.argmax(x), x.argmin()


def linear_relu(a, b, c):
    return np.maximum(a @ b + c, 0)


def stencil(u):
    v = u.copy()
    v[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
    return v


def int_ops(a, b):
    return (a * 3 + b) // 2, (a & b) | (a ^ 5), a > b


def matvec(a, x):
    return a @ x, x @ a.T


def concat_transpose(a, b):
    return np.concatenate([a, b], axis=0).T * 2


F32 = np.float32


def _inputs(rng):
    return {
        softmax: (rng.standard_normal((64, 33), dtype=F32),),
        layernorm: (
            rng.standard_normal((16, 100), dtype=F32),
            rng.standard_normal(100, dtype=F32),
            rng.standard_normal(100, dtype=F32),
        ),
        mse: (rng.standard_normal(10_000, dtype=F32), rng.standard_normal(10_000, dtype=F32)),
        gelu: (rng.standard_normal(1000, dtype=F32),),
        axpy_in_place: (rng.standard_normal(300), rng.standard_normal(300)),
        argmax_rows: (rng.standard_normal((7, 40)),),
        argmax_long: (rng.standard_normal(20_000, dtype=F32),),
        linear_relu: (
            rng.standard_normal((9, 17), dtype=F32),
            rng.standard_normal((17, 5), dtype=F32),
            rng.standard_normal(5, dtype=F32),
        ),
        stencil: (rng.standard_normal(50),),
        int_ops: (rng.integers(-50, 50, 64).astype(np.int32), rng.integers(1, 50, 64).astype(np.int32)),
        matvec: (rng.standard_normal((6, 6)), rng.standard_normal(6)),
        concat_transpose: (rng.standard_normal((3, 4), dtype=F32), rng.standard_normal((2, 4), dtype=F32)),
    }


FAMILIES = list(_inputs(np.random.default_rng(0)))


def _graph_modules(fn, args) -> list:
    modules = []

    def capture(module, example_inputs):
        modules.append(module)
        return compiler.backends.EagerGraph(module)

    compiler.compile(fn, backend=capture)(*[a.copy() for a in args])
    return modules


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("fn", FAMILIES, ids=lambda f: f.__name__)
def test_every_op_family_assembles(fn, arch):
    args = _inputs(np.random.default_rng(0))[fn]
    modules = _graph_modules(fn, args)
    assert modules
    for module in modules:
        entry = compiler.mlir.symbol_name(compiler.mlir.functions(module)[0])
        n = len(compiler.mlir.functions(module)[0].regions[0].blocks[0].arguments)
        ptx, steps = lower_to_ptx(module, entry, (True,) * n, arch)
        assert f".target {arch}" in ptx and ".visible .entry" in ptx
        assert any(step[0] == "launch" for step in steps)
        ptxas_check(ptx, arch)


@needs_ptxas
def test_reductions_use_shuffles_and_shared_memory():
    module = _graph_modules(softmax, _inputs(np.random.default_rng(0))[softmax])[0]
    ptx, steps = lower_to_ptx(module, "softmax", (True,), "sm_90")
    assert "shfl.sync.bfly" in ptx and "bar.sync" in ptx and ".shared" in ptx
    kinds = [step[2] for step in steps if step[0] == "launch"]
    assert "reduce" in kinds and "reduce-finish" in kinds and "elementwise" in kinds


@needs_ptxas
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_functions_assemble(program):
    module = program.build()
    ptx, _ = lower_to_ptx(module, "f", (True,) * len(program.arg_types), "sm_90")
    ptxas_check(ptx, "sm_90")


@pytest.mark.skipif(GPU, reason="a GPU is visible")
def test_without_a_gpu_the_first_call_raises_a_clear_error():
    f = compiler.compile(gelu, backend="cuda")  # decorating needs no GPU
    with pytest.raises((NoCudaDriver, NoGpuVisible)) as error:
        f(np.ones(8, np.float32))
    assert "no CUDA driver found" in str(error.value) or "no GPU visible" in str(error.value)


# ---- on a GPU


def _close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=2e-5 if got.dtype == np.float32 else 1e-11, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)


@needs_gpu
@pytest.mark.parametrize("fn", FAMILIES, ids=lambda f: f.__name__)
def test_programs_on_the_gpu_match_numpy(fn):
    args = _inputs(np.random.default_rng(1))[fn]
    want_args = [a.copy() for a in args]
    want = fn(*want_args)
    got_args = [a.copy() for a in args]
    got = compiler.compile(fn, backend="cuda", options={"strict": True})(*got_args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        _close(g, w)
    for g, w in zip(got_args, want_args):  # what the call left in the caller's arrays
        _close(g, w)


@needs_gpu
def test_dynamic_sizes_on_the_gpu():
    f = compiler.compile(softmax, backend="cuda", options={"strict": True})
    rng = np.random.default_rng(2)
    for rows, cols in [(3, 5), (4, 7), (1, 1), (0, 4), (300, 3000), (2, 100_000)]:
        x = rng.standard_normal((rows, cols), dtype=F32)
        _close(f(x), softmax(x))


@needs_gpu
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2, 7, 1000]))
def test_random_functions_on_the_gpu_match_the_interpreter(program, seed, size):
    rng = np.random.default_rng(seed)
    inputs = random_inputs(rng, program.arg_types, sizes={a: size for a in range(3)})
    module = program.build()
    with np.errstate(all="ignore"):
        try:
            want = interpreter.run(module, *inputs)
        except ValueError:
            return
        got = compile_graph_module(module)(*inputs)
    for g, w in zip(got, want):
        assert_matches(g, w, program, "f32" in str(module))


@needs_gpu
def test_cuda_array_interface_inputs_stay_on_the_device():
    from runtime.cuda.device_array import DeviceArray

    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 33), dtype=F32)
    module = _graph_modules(softmax, (x,))[0]
    kernel = compile_graph_module(module)
    (out,) = kernel(DeviceArray.from_host(x))
    assert isinstance(out, DeviceArray) and "data" in out.__cuda_array_interface__
    _close(out.copy_to_host(), softmax(x))
    try:
        import cupy
    except ImportError:
        return
    (out,) = kernel(cupy.asarray(x))
    _close(cupy.asnumpy(cupy.asarray(out)), softmax(x))
