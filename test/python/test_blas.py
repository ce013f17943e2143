"""Float matmuls run through the BLAS NumPy links, with loops for what BLAS cannot take."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from blas_oracle import assert_product_close

from compiler.backends.llvm_cpu import compile_module, helper_library, lower_to_object
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from runtime import blas_symbols

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not blas_symbols.available(), reason="this NumPy links no ILP64 OpenBLAS")


def matmul_module(dtype="f32", m=None, k=None, n=None):
    b = FunctionBuilder("mm", [TensorType((m, k), dtype), TensorType((k, n), dtype)])
    a, w = b.args
    return b.finish([b.op("matmul", a, w)])


def test_contiguous_matmul_calls_gemm():
    """The kernel calls the helper, which the helper library defines and which calls gemm."""
    lowered = lower_to_object(matmul_module(), "mm", (True, True))
    assert "call void @ember_matmul_f32(" in lowered.llvm_ir
    assert "declare void @ember_matmul_f32(" in lowered.llvm_ir and "@ember_gemm_f32" not in lowered.llvm_ir
    # its sizes are dynamic: a large product goes to Ember's own kernel, checked at run time
    assert lowered.libraries == ("blas_f32", "gemm_f32")
    assert "call @ember_blas_sgemm(" in helper_library._text("blas_f32")
    entries = helper_library.LIBRARIES["blas_f32"][1]
    assert {"ember_matmul_f32", "ember_gemm_f32", "ember_gemv_f32"} <= entries
    for entry in entries:  # each one the library defines (a public function)
        assert f"func.func @{entry}(" in helper_library._text("blas_f32")


def test_each_helper_library_is_compiled_once_per_process(monkeypatch):
    """Kernels of several graphs link one copy: the library is built on the first load of
    a kernel that needs it (in this process, maybe by an earlier test), then only found."""
    built = []
    real = helper_library._object_code
    monkeypatch.setattr(helper_library, "_object_code", lambda name: built.append(name) or real(name))
    loaded_before = "blas_f64" in helper_library._loaded
    rng = np.random.default_rng(1)
    for m, k, n in ((5, 7, 3), (9, 6, 11)):
        x, w = rng.standard_normal((m, k)), rng.standard_normal((k, n))
        (out,) = compile_module(matmul_module("f64", m, k, n))(x, w)
        np.testing.assert_allclose(out, x @ w, rtol=1e-12)
    assert built == ([] if loaded_before else ["blas_f64"])
    assert "blas_f64" in helper_library._loaded


def test_a_new_process_loads_the_library_with_a_cached_kernel(tmp_path):
    """A disk-cache hit of a kernel links the library it names (from the cache too)."""
    script = textwrap.dedent("""
        import json, numpy as np, compiler
        from runtime.cache import ARTIFACTS
        a, b = np.arange(24.0).reshape(3, 8), np.arange(16.0).reshape(8, 2)
        out = compiler.compile(lambda x, y: x @ y)(a, b)
        print(json.dumps({"stats": vars(ARTIFACTS.stats), "ok": bool(np.array_equal(out, a @ b))}))
    """)
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path), PYTHONPATH=str(REPO))
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0]["ok"] and runs[1]["ok"]
    assert runs[0]["stats"]["misses"] == 2  # the kernel and its library, compiled
    assert runs[1]["stats"]["disk_hits"] == 2 and runs[1]["stats"]["misses"] == 0


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("shape", [(5, 7, 3), (1, 1, 1), (64, 33, 17), (0, 4, 3), (4, 0, 3), (4, 3, 0)])
def test_matches_numpy(dtype, shape):
    m, k, n = shape
    rng = np.random.default_rng(0)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    a = rng.standard_normal((m, k)).astype(np_dtype)
    w = rng.standard_normal((k, n)).astype(np_dtype)
    (got,) = compile_module(matmul_module(dtype))(a, w)
    rtol = 1e-5 if dtype == "f32" else 1e-12
    np.testing.assert_allclose(got, a @ w, rtol=rtol, atol=rtol * max(1, k))


SMALL_SHAPES = [(64, 64, 64), (96, 40, 50), (200, 30, 40), (67, 61, 59), (128, 16, 32), (64, 512, 8)]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_small_products_split_into_row_blocks_do_not_depend_on_threads(dtype):
    """Products BLAS runs on one thread (m*n*k <= 2**18) but worth two run as blocks of
    32 rows on the worker pool, one call each: the same bits on 1, 2 or 3 threads (the
    blocks do not move), NumPy's values up to the rounding of one call (OpenBLAS rounds a
    block as the whole on most configurations, not on all: ``blas_oracle``), for row-
    and column-major and transposed operands."""
    from runtime import threads

    rng = np.random.default_rng(7)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    kernel = compile_module(matmul_module(dtype))
    for m, k, n in SMALL_SHAPES:
        a = rng.standard_normal((m, k)).astype(np_dtype)
        w = rng.standard_normal((k, n)).astype(np_dtype)
        for x, y in ((a, w), (np.asfortranarray(a), w), (a, np.asfortranarray(w))):
            results = []
            for threads_ in (1, 2, 3):
                threads.set_num_threads(threads_)
                try:
                    results.append(kernel(x, y)[0])
                finally:
                    threads.set_num_threads(None)
            assert_product_close(results[0], x @ y)
            for other in results[1:]:
                np.testing.assert_array_equal(other, results[0])


def test_the_row_blocks_run_on_the_worker_pool():
    """The split is a forked loop of the helper library: its glue calls the pool."""
    text = helper_library._text("blas_f64")
    assert "scf.forall" in text and "ember_gemm_rows_f64" in text
    from compiler.backends.llvm_cpu.forks import loop_forks
    from compiler.dialects.ember import new_context
    from compiler.mlir import ir
    from compiler.passes.pass_manager import run_pipeline

    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, helper_library._PIPELINE)
        assert "ember_fork_ember_gemm_rows_f64_0" in str(module)
        assert loop_forks(module)


@pytest.mark.parametrize("view", ["transposed", "every_other_column", "reversed_rows", "broadcast_row"])
def test_views_match_numpy(view):
    """A column-major view (transposed) goes to BLAS with the transpose flag; the views
    BLAS cannot take (non-unit strides both ways, negative or zero strides) run as loops."""
    rng = np.random.default_rng(1)
    base = rng.standard_normal((12, 12)).astype(np.float32)
    a = {
        "transposed": base.T[:6, :5],
        "every_other_column": base[:6, ::2][:, :5],
        "reversed_rows": base[::-1][:6, :5],
        "broadcast_row": np.broadcast_to(base[0, :5], (6, 5)),
    }[view]
    w = rng.standard_normal((5, 4)).astype(np.float32)
    (got,) = compile_module(matmul_module())(a, w)
    np.testing.assert_allclose(got, a @ w, rtol=1e-5, atol=1e-5)


def test_matmul_with_epilogue_keeps_the_epilogue_fused_and_parallel_free():
    b = FunctionBuilder("dense", [TensorType((None, 8), "f32"), TensorType((8, 4), "f32"), TensorType((4,), "f32")])
    x, w, bias = b.args
    y = b.op("matmul", x, w)
    z = b.op("add", y, b.op("broadcast_to", bias, result=b.type_of(y), sizes=[b.dim(x, 0)]))
    kernel = compile_module(b.finish([z]))
    xs = np.arange(24, dtype=np.float32).reshape(3, 8)
    ws = np.ones((8, 4), np.float32)
    bs = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(kernel(xs, ws, bs)[0], xs @ ws + bs, rtol=1e-6)


def test_the_blas_is_chosen_by_setting():
    choose = blas_symbols.choose_provider
    assert choose("", have_mkl=True) == "openblas"  # NumPy's own: one thread pool, NumPy's rounding
    assert choose("OpenBLAS", have_mkl=True) == "openblas"
    assert choose("mkl", have_mkl=True) == "mkl"
    assert choose("mkl", have_mkl=False) == "openblas"  # asked for, not installed
    with pytest.raises(ValueError, match="EMBER_BLAS"):
        choose("atlas", have_mkl=True)


_PRODUCT = """
import numpy as np, compiler
from runtime import blas_symbols
rng = np.random.default_rng(3)
a, b = rng.standard_normal((70, 90)), rng.standard_normal((90, 50))
got, want = compiler.compile(lambda a, b: np.maximum(a @ b, 0.0))(a, b), np.maximum(a @ b, 0.0)
print(blas_symbols.provider(), blas_symbols.cache_tag(), bool((got == want).all()), float(abs(got - want).max()))
"""


@pytest.mark.parametrize("setting", ["openblas", "mkl"])
def test_each_blas_gives_numpys_products(setting, tmp_path):
    """``EMBER_BLAS=openblas``: NumPy's own bits; ``mkl`` (where installed): NumPy's values
    up to rounding; the artifact cache keeps the two apart."""
    env = dict(os.environ, EMBER_BLAS=setting, EMBER_CACHE_DIR=str(tmp_path), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", _PRODUCT], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    provider, tag, same, error = done.stdout.split()
    if setting == "mkl" and provider != "mkl":
        pytest.skip("MKL is not installed here")
    assert provider == setting and tag.startswith(f"{setting}-ilp64")
    assert float(error) < 1e-12
    if setting == "openblas":
        assert same == "True"
