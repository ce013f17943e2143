"""A corpus of real NumPy programs, as people write them, to measure Ember on.

Each program is a plain NumPy function (the *kernel*: loops over time steps, in-place
updates, ``np.zeros``/``np.empty`` buffers), an ``init(size, rng)`` that makes its
arguments at ``size`` ``"small"`` (CI: tiny, the compile dominates) or ``"bench"``
(timing), and metadata (name, category). The kernels are written from public
descriptions of standard algorithms (PolyBench, NPBench's weather stencils, "12 steps
to Navier-Stokes", textbook signal processing, ML and finance formulas).

``benchmarks/corpus/run.py`` times them against NumPy and Numba and reports what Ember
compiled; ``test/python/test_corpus.py`` checks every result at the small size.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

SIZES = ("small", "bench")


@dataclass(frozen=True)
class Program:
    name: str
    category: str
    kernel: Callable  # the plain NumPy function; given as is to compile() and numba.njit
    init: Callable  # init(size, rng) -> tuple of arguments
    requires: tuple = ()  # optional modules the kernel imports (e.g. scipy)

    def inputs(self, size: str, seed: int = 0) -> tuple:
        if size not in SIZES:
            raise ValueError(f"size must be one of {SIZES}, not {size!r}")
        return tuple(self.init(size, np.random.default_rng(seed)))

    def missing(self) -> list[str]:
        """The required modules that are not installed."""
        return [m for m in self.requires if importlib.util.find_spec(m) is None]


def program(category: str, init: Callable, name: str | None = None, requires: tuple = ()) -> Callable:
    """Decorator of a kernel: registers it in ``REGISTRY`` and returns it unchanged."""

    def register(kernel: Callable) -> Callable:
        key = name or kernel.__name__
        if key in REGISTRY:
            raise ValueError(f"two corpus programs named {key!r}")
        REGISTRY[key] = Program(key, category, kernel, init, tuple(requires))
        return kernel

    return register


REGISTRY: dict[str, Program] = {}


def pick(size: str, small, bench):
    return small if size == "small" else bench


# ----------------------------------------------------------------------------- comparing results


def fresh(args: tuple) -> tuple:
    """Copies of the array arguments (lists/tuples of arrays too), others as they are."""
    return tuple(_copy(a) for a in args)


def _copy(a):
    if isinstance(a, np.ndarray):
        return a.copy()
    if isinstance(a, (list, tuple)):
        return type(a)(_copy(x) for x in a)
    return a


# float32: the contract's 1e-5 relative, with room for reassociated sums over
# thousands of terms; float64: 1e-9. ``atol`` is relative to the largest |value| of
# the expected array, so that values cancelled to ~0 are judged at the array's scale.
TOLERANCES = {4: (1e-4, 1e-5), 8: (1e-9, 1e-11)}  # float itemsize -> (rtol, atol scale)


def _tolerance(dtype: np.dtype) -> tuple[float, float]:
    size = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
    return TOLERANCES.get(size, (1e-3, 1e-3))


def compare(got, want, where: str = "result") -> list[str]:
    """What differs between ``got`` (Ember, Numba) and ``want`` (NumPy): dtypes, shapes,
    types and values; exact for ints and bools, within tolerances for floats."""
    if isinstance(want, np.ndarray):
        if not isinstance(got, np.ndarray):
            return [f"{where}: {type(got).__name__}, NumPy gives ndarray"]
        if got.dtype != want.dtype:
            return [f"{where}: dtype {got.dtype}, NumPy gives {want.dtype}"]
        if got.shape != want.shape:
            return [f"{where}: shape {got.shape}, NumPy gives {want.shape}"]
        return _compare_values(got, want, where)
    if isinstance(want, (tuple, list)):
        if type(got) is not type(want) or len(got) != len(want):
            return [f"{where}: {_describe(got)}, NumPy gives {_describe(want)}"]
        return [m for i, (g, w) in enumerate(zip(got, want)) for m in compare(g, w, f"{where}[{i}]")]
    if want is None:
        return [] if got is None else [f"{where}: {_describe(got)}, NumPy gives None"]
    if isinstance(want, (bool, int, float, complex, np.generic)):
        if type(got) is not type(want):
            return [f"{where}: {_describe(got)}, NumPy gives {_describe(want)}"]
        return _compare_values(np.asarray(got), np.asarray(want), where)
    return [] if got == want else [f"{where}: {got!r}, NumPy gives {want!r}"]


def _describe(x) -> str:
    if isinstance(x, (tuple, list)):
        return f"{type(x).__name__} of {len(x)}"
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return f"{type(x).__name__} {x!r}"
    return type(x).__name__


def _compare_values(got: np.ndarray, want: np.ndarray, where: str) -> list[str]:
    if want.dtype.kind not in "fc":
        if np.array_equal(got, want):
            return []
        bad = np.flatnonzero(got.ravel() != want.ravel())
        i = np.unravel_index(bad[0], want.shape) if want.ndim else ()
        return [f"{where}: {bad.size} of {want.size} elements differ, first at {i}: {got[i]!r} vs NumPy {want[i]!r}"]
    rtol, atol_scale = _tolerance(want.dtype)
    finite = np.abs(want[np.isfinite(want)]) if want.size else want
    scale = float(finite.max()) if finite.size else 0.0
    try:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol_scale * scale, equal_nan=True)
    except AssertionError as e:
        detail = " ".join(line.strip() for line in str(e).splitlines() if "Mismatched" in line or "Max" in line)
        return [f"{where}: values differ ({want.dtype}, rtol {rtol:g}, atol {atol_scale * scale:.3g}): {detail}"]
    return []


def check_call(got: tuple, want: tuple) -> list[str]:
    """``got`` and ``want`` are (return value, arguments after the call)."""
    (g_result, g_args), (w_result, w_args) = got, want
    problems = compare(g_result, w_result, "result")
    for i, (g, w) in enumerate(zip(g_args, w_args)):
        if isinstance(w, (np.ndarray, list, tuple)):
            problems += compare(g, w, f"argument {i}")
    return problems


def run_once(fn, args: tuple) -> tuple:
    """``fn`` on copies of ``args``: (the return value, the arguments after the call)."""
    args = fresh(args)
    return fn(*args), args


def geomean(values) -> float:
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def _load() -> None:
    from benchmarks.corpus import (  # noqa: F401  (each module registers its programs)
        dsp,
        finance,
        geometry,
        image,
        linalg,
        misc,
        ml,
        physics,
        stencils,
    )


CATEGORIES = ("linalg", "stencil", "physics", "signal", "ml", "geometry", "finance", "image", "other")
_load()
PROGRAMS: list[Program] = sorted(REGISTRY.values(), key=lambda p: CATEGORIES.index(p.category))
