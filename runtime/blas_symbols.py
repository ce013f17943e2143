"""The BLAS that NumPy links, found and handed to Ember's kernels.

Ember's float matmuls call ``?gemm``, ``?gemv``, ``?syrk`` and ``?dot``, its complex ones ``?gemm`` (``compiler/passes/blas_library.py``
emits the calls) rather than generated loops: tiling and packing for the cache hierarchy is a
library's life work, and NumPy ships one. NumPy 2 wheels bundle OpenBLAS as
``numpy.libs/libscipy_openblas64_-*.so``, with ILP64 CBLAS entry points named
``scipy_cblas_dgemm64_``, ``scipy_cblas_dgemv64_`` and so on. We load that library and
register those addresses with the JIT under Ember's own names (``ember_blas_dgemm``,
``ember_blas_dgemv``, ...), so object code links to them like to any process symbol.

The same library exports LAPACKE; Ember's linear algebra (``compiler/passes/lower_lapack.py``)
calls its ``_work`` entry points (``scipy_LAPACKE_dgesv_work64_``, ``..._zgesv_work64_`` ...) as
``ember_lapack_dgesv``, ``ember_lapack_zgesv`` and so on, in column-major layout: those go straight to the Fortran routines NumPy's
``umath_linalg`` calls, with no NaN check of the input (the plain ``LAPACKE_*`` functions
refuse a NaN, where NumPy lets LAPACK compute with it). ``lapack_available()`` says
whether all of them were found.

With ``EMBER_BLAS=mkl`` and MKL installed (the ``mkl`` extra: ``pip install
'ember[mkl]'``, which puts ``libmkl_rt`` and Intel's OpenMP runtime in the environment's
``lib``), the ``ember_blas_*`` products are MKL's ILP64 CBLAS (``cblas_sgemm_64`` ...)
instead; LAPACK stays NumPy's. On an Intel CPU MKL's products are faster: measured on a
2-core AVX-512 Xeon, each library in its own process (ms, 2 threads), sgemm 1024^3
5.67 -> 5.22, the MLP's 256x2048x512 1.63 -> 1.38, dgemv 4000x5000 3.6 -> 3.0 (and
transposed 3.5 -> 3.0), ``A.T @ A`` 1000x800 7.4 -> 6.7. It is not the default because a
program that also calls OpenBLAS (``np.linalg``, NumPy's own products between compiled
calls) runs two thread pools that spin against each other: ridge regression (``X.T @ X``,
then ``np.linalg.cholesky`` and two solves) took 42-48 ms with MKL's products against
28 ms with OpenBLAS's (NumPy: 19 ms), ``KMP_BLOCKTIME=0`` or not. MKL also takes a
generic path on AMD CPUs (gemv 1.6-2x slower on Zen 4). OpenBLAS gives NumPy's own
rounding; MKL's products differ from NumPy's in the last bits.

When no such library is found (another NumPy build) ``available()`` is false, the
pass emits no calls, and matmuls run as generated loops: slower, still correct. This
lives in the runtime because loading object code needs the symbols registered; the
compiler asks it whether to emit the calls and keys its cache by ``cache_tag()``.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
import sys

from runtime import jit_symbols

# Ember's symbol -> the CBLAS entry points to look for, ILP64 first.
SYMBOLS = {
    "ember_blas_sgemm": ("scipy_cblas_sgemm64_", "cblas_sgemm64_"),
    "ember_blas_dgemm": ("scipy_cblas_dgemm64_", "cblas_dgemm64_"),
    "ember_blas_sgemv": ("scipy_cblas_sgemv64_", "cblas_sgemv64_"),
    "ember_blas_dgemv": ("scipy_cblas_dgemv64_", "cblas_dgemv64_"),
    "ember_blas_ssyrk": ("scipy_cblas_ssyrk64_", "cblas_ssyrk64_"),
    "ember_blas_dsyrk": ("scipy_cblas_dsyrk64_", "cblas_dsyrk64_"),
    "ember_blas_cgemm": ("scipy_cblas_cgemm64_", "cblas_cgemm64_"),
    "ember_blas_zgemm": ("scipy_cblas_zgemm64_", "cblas_zgemm64_"),
    "ember_blas_sdot": ("scipy_cblas_sdot64_", "cblas_sdot64_"),
    "ember_blas_ddot": ("scipy_cblas_ddot64_", "cblas_ddot64_"),
}


# Ember's symbol -> the LAPACKE ``_work`` entry points (ILP64), one per routine and precision.
# The complex routines are the hermitian/unitary ones (heevd, ungqr) where the real are
# symmetric/orthogonal.
LAPACK_ROUTINES = {
    "d": ("getrf", "gesv", "potrf", "syevd", "gesdd", "geqrf", "orgqr", "gelsd"),
    "z": ("getrf", "gesv", "potrf", "heevd", "gesdd", "geqrf", "ungqr", "gelsd"),
}
LAPACK_SYMBOLS = {
    f"ember_lapack_{p}{r}": (f"scipy_LAPACKE_{p}{r}_work64_", f"LAPACKE_{p}{r}_work64_")
    for p, routines in LAPACK_ROUTINES.items()
    for r in routines
}


_kept: list = []  # MKL, once loaded: the JIT holds its addresses


def _mkl_files() -> tuple[str, str] | None:
    """(libmkl_rt, libiomp5) in the environment's ``lib`` (where the ``mkl`` wheel puts them)."""
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):
        found = sorted(glob.glob(os.path.join(prefix, "lib", "libmkl_rt.so*")))
        openmp = os.path.join(prefix, "lib", "libiomp5.so")
        if found and os.path.exists(openmp):
            return found[0], openmp
    return None


def choose_provider(setting: str, have_mkl: bool) -> str:
    """``"mkl"`` or ``"openblas"``: MKL only when ``EMBER_BLAS=mkl`` asks for it and it is installed."""
    setting = setting.strip().lower()
    if setting not in ("", "openblas", "mkl"):
        raise ValueError(f"EMBER_BLAS must be openblas or mkl, got {setting!r}")
    return "mkl" if setting == "mkl" and have_mkl else "openblas"


@functools.cache
def provider() -> str:
    """The products' library, decided without loading it (loading MKL takes ~80 ms, paid
    only by the first kernel that calls a product)."""
    setting = os.environ.get("EMBER_BLAS", "")
    return choose_provider(setting, setting.strip().lower() == "mkl" and _mkl_files() is not None)


@functools.cache
def _mkl_products() -> dict[str, int]:
    """``ember_blas_*`` -> MKL's ILP64 CBLAS (``cblas_sgemm_64`` ...), after the OpenMP
    runtime its threading layer needs; empty if it cannot be loaded."""
    files = _mkl_files()
    if files is None:
        return {}
    try:
        ctypes.CDLL(files[1], mode=ctypes.RTLD_GLOBAL)
        mkl = ctypes.CDLL(files[0], mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return {}
    theirs = {ours: getattr(mkl, "cblas_" + ours.removeprefix("ember_blas_") + "_64", None) for ours in SYMBOLS}
    if any(fn is None for fn in theirs.values()):
        return {}
    _kept.append(mkl)
    return {ours: ctypes.cast(fn, ctypes.c_void_p).value for ours, fn in theirs.items()}


def _candidates() -> list[str]:
    import numpy

    root = os.path.dirname(os.path.dirname(numpy.__file__))
    return sorted(glob.glob(os.path.join(root, "numpy.libs", "*openblas*64*.so*")))


@functools.cache
def _addresses() -> dict[str, int]:
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        found = {}
        for ours, theirs in SYMBOLS.items():
            for name in theirs:
                fn = getattr(lib, name, None)
                if fn is not None:
                    found[ours] = ctypes.cast(fn, ctypes.c_void_p).value
                    break
        if len(found) == len(SYMBOLS):
            for ours, theirs in LAPACK_SYMBOLS.items():
                fn = next((f for f in (getattr(lib, name, None) for name in theirs) if f is not None), None)
                if fn is not None:
                    found[ours] = ctypes.cast(fn, ctypes.c_void_p).value
            found["_library"] = lib  # keep it loaded
            return found
    return {}


def available() -> bool:
    return bool(_addresses())


def lapack_available() -> bool:
    """Whether every ``ember_lapack_*`` routine was found (with the BLAS)."""
    found = _addresses()
    return all(name in found for name in LAPACK_SYMBOLS)


def cache_tag() -> str:
    if not available():
        return "no-blas"
    blas = f"{provider()}-ilp64"
    return f"{blas}+lapack-dz" if lapack_available() else blas


@functools.cache
def register_symbols() -> None:
    """Make ``ember_blas_*`` and ``ember_lapack_*`` resolvable by the JIT (a no-op without a
    BLAS): NumPy's OpenBLAS, until ``register_products`` puts MKL's products in place."""
    for name, address in _addresses().items():
        if not name.startswith("_"):
            jit_symbols.add_symbol(name, address)


@functools.cache
def register_products() -> None:
    """Before the first library that calls ``ember_blas_*`` is linked: the chosen
    library's products (MKL loaded now, where it is the choice)."""
    register_symbols()
    if available() and provider() == "mkl":
        for name, address in _mkl_products().items():
            jit_symbols.add_symbol(name, address)
