"""How close a product Ember hands to BLAS must be to NumPy's: NumPy's own bits when
Ember calls the BLAS NumPy links (OpenBLAS), NumPy's values up to rounding when it calls
MKL (``runtime/blas_symbols.py``: Intel CPUs with the ``mkl`` extra)."""

from __future__ import annotations

import numpy as np

from runtime import blas_symbols

RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.complex64): 1e-5}


def assert_product_equal(got, want) -> None:
    if blas_symbols.provider() == "openblas":
        np.testing.assert_array_equal(got, want)
        return
    assert_product_close(got, want)


def assert_product_close(got, want) -> None:
    """NumPy's values up to the rounding of one BLAS call: for products Ember hands to
    BLAS cut into other row blocks than NumPy's (a stack of rows as one call, a small
    product as blocks of 32 rows). OpenBLAS rounds a block as it rounds the whole call on
    most configurations, not on all (float32 and complex ``?gemm`` with
    ``OPENBLAS_CORETYPE=Haswell`` on an AMD Zen CPU)."""
    want = np.asarray(want)
    rtol = RTOL.get(want.dtype, 1e-12)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale)


def assert_reordered_close(got, want, k: int) -> None:
    """A product (or a tuple of them) Ember sums in another order than BLAS (its own
    matrix-vector loops): NumPy's values up to the rounding of ``k``-term sums."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        rtol = 2e-5 if w.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * max(1, k) * (1 + np.abs(w).max(initial=0)))
