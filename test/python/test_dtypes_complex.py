"""complex64 and complex128, compiled and compared with NumPy.

Every function goes through ``compile`` and must compile (no silent fallback to
CPython) unless the test says it falls back, and give NumPy's answer, arguments after
the call included. Values cover NaN, +-inf, -0.0 and huge/tiny magnitudes in either
part; layouts cover sizes 0 and 1, 0-d, broadcasting, non-contiguous and reversed views.

Exactness (see ``compiler/passes/complex_semantics.py``):

* bit for bit (signs of zeros and NaN positions included): ``+ - / neg conj real imag``,
  ``reciprocal``, integer ``**`` (NumPy's ``npy_cpow``), comparisons, ``isnan``/``isinf``/
  ``isfinite``, casts, and complex128 ``exp log sqrt sin cos tanh`` (the same C99 libm
  calls NumPy makes);
* within 1 ulp of the magnitude ``|want|``: ``*`` and ``square`` (NumPy's SIMD loop uses
  FMA where the CPU has it, as Ember does; a CPU without it rounds twice) and ``abs``
  (NumPy's scalar loop for negative strides is libm's ``hypot``: <= 1 ulp from its SIMD
  formula, which Ember uses);
* within 4 float32 ulp of ``|want|``: complex64 ``exp log sqrt sin cos tanh`` (computed in
  complex128 and rounded; NumPy calls ``cexpf`` & co.);
* reductions and matmul: rtol 1e-5 (complex64) / 1e-12 (complex128) of the sum of
  magnitudes (NumPy sums pairwise and calls BLAS; the order of additions differs).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from graph_building import captured_graph

import compiler
from compiler.dialects import ember
from compiler.mlir import ir
from compiler.passes.pass_manager import run_pipeline

pytestmark = pytest.mark.usefixtures("fresh_compiler")

CDTYPES = (np.complex64, np.complex128)
REALS = (np.bool_, np.int32, np.int64, np.float32, np.float64)


# ----------------------------------------------------------------------------- helpers


def parts(dtype) -> list[float]:
    big = 1e38 if np.dtype(dtype) == np.complex64 else 1e300
    tiny = 1e-40 if np.dtype(dtype) == np.complex64 else 1e-310  # subnormal
    return [0.0, -0.0, 1.5, -2.25, 0.1, np.inf, -np.inf, np.nan, big, -big, tiny, 3.0]


def edge_values(dtype) -> np.ndarray:
    """Every pair of the parts: (re, im) in all combinations."""
    p = parts(dtype)
    out = np.empty(len(p) ** 2, dtype)
    out.real = np.repeat(p, len(p))
    out.imag = np.tile(p, len(p))
    return out


def random_values(dtype, n=257, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scale = np.exp(rng.uniform(-6, 6, n))
    return (rng.standard_normal(n) * scale + 1j * rng.standard_normal(n) * scale[::-1]).astype(dtype)


def layouts(x: np.ndarray) -> list[np.ndarray]:
    """``x``, empty, one element, 0-d, a 2-d non-contiguous view, reversed."""
    wide = np.repeat(x, 2)[None, :].repeat(2, axis=0)
    return [x, x[:0], x[:1], np.array(x[3]), wide[:, ::2], x[::-1]]


def _eps(dtype) -> float:
    return float(np.finfo(np.asarray(np.zeros((), dtype)).real.dtype).eps)


def assert_same(got, want, ulps: float = 0, what=""):
    """NumPy's answer: type, dtype, shape; values bit for bit (``ulps == 0``) or within
    ``ulps`` ulp of the magnitude, with NaN and inf in the same parts."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for g, w in zip(got, want):
            assert_same(g, w, ulps, what)
        return
    assert type(got) is type(want), (what, type(got), type(want))
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    if want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=str(what), strict=True)
        return
    for part in (np.real, np.imag) if want.dtype.kind == "c" else (lambda a: a,):
        g, w = part(got), part(want)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"NaN positions: {what}")
        np.testing.assert_array_equal(np.isinf(g) * np.sign(g), np.isinf(w) * np.sign(w), err_msg=f"infs: {what}")
        finite = np.isfinite(w)
        if ulps == 0:
            np.testing.assert_array_equal(g[finite], w[finite], err_msg=str(what), strict=True)
            np.testing.assert_array_equal(np.signbit(g[finite]), np.signbit(w[finite]), err_msg=f"zeros: {what}")
        else:
            with np.errstate(over="ignore"):  # the magnitude of the finite parts
                mag = np.hypot(*(np.where(np.isfinite(p(want)), p(want), 0) for p in (np.real, np.imag)))
            bound = ulps * _eps(want.dtype) * np.maximum(mag, np.abs(w))[finite]
            with np.errstate(invalid="ignore", over="ignore"):
                err = np.abs(g[finite].astype(np.float64) - w[finite].astype(np.float64))
            assert np.all(err <= np.maximum(bound, np.finfo(w.dtype).tiny)), (what, err.max(), bound)


def numpy_answer(fn, args):
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*copies), copies


def check(fn, *args, ulps: float = 0, compiles: bool = True, backend="cpu"):
    """``fn(*args)`` compiled (fresh) and in NumPy: the same answer and the same arguments
    after the call; ``compiles``: from a graph without breaks (else it must fall back)."""
    want, numpy_args = numpy_answer(fn, args)
    compiler.reset()
    cf = compiler.compile(fn, backend=backend, options={"strict": True})  # no silent eager fallback
    ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cf(*ours)
    name = getattr(fn, "__name__", fn)
    what = (name, [f"{a.dtype}{list(a.shape)}" if hasattr(a, "shape") else repr(a) for a in args])
    compiled = bool(cf.entries) and all(e.graph_module is not None for e in cf.entries)
    if compiles:
        explained = compiler.explain(fn)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert compiled and explained.graph_break_count == 0, (what, explained.break_reasons)
    else:
        explained = compiler.explain(fn)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert explained.graph_break_count > 0 or not compiled, f"{what}: expected a fallback"
    assert_same(got, want, ulps, what)
    for o, n in zip(ours, numpy_args):
        if isinstance(n, np.ndarray):
            assert_same(o, n, 0, (what, "argument after the call"))
    return got


def named(fn, name):
    fn.__name__ = name
    return fn


# ----------------------------------------------------------------------------- arithmetic

EXACT_BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "div": lambda x, y: x / y,
    "np.divide": lambda x, y: np.divide(x, y),
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
}


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", [*EXACT_BINARY, "mul"])
def test_binary_on_every_pair_of_edge_values(name, dtype):
    fn = named(EXACT_BINARY.get(name, lambda x, y: x * y), name)
    x = edge_values(dtype)
    check(fn, x[:, None], x[None, :], ulps=0 if name != "mul" else 1)


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_binary_layouts_and_broadcasting(dtype):
    x = random_values(dtype)
    for a in layouts(x):
        check(named(lambda a, b: (a + b, a - b, a / b, -a), "arith"), a, a[..., ::-1] if a.ndim else a)
        check(named(lambda a, b: a * b, "mul"), a, np.conj(a), ulps=1)
    check(named(lambda a, b: a / b + a * b, "bcast"), x[:6].reshape(2, 3, 1), x[6:10], ulps=2)


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_division_by_huge_tiny_and_zero_is_smiths(dtype):
    big = 1e37 if dtype == np.complex64 else 1e307
    num = np.array([1 + 1j, big + big * 1j, 1e-30 + 2j, 1 + 0j, 0j, np.inf + 1j, 1 + np.nan * 1j], dtype)
    den = np.array([big + big * 1j, big + big * 1j, 3e-30 + 1e-30j, 0j, 0j, 1 + 1j, 0.5 + 0j], dtype)
    check(named(lambda a, b: a / b, "div"), num, den)
    check(named(lambda a, b: a / b, "div"), num[:, None], den[None, :])
    check(named(lambda a: np.reciprocal(a), "reciprocal"), np.concatenate([num, den]))


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_mixed_with_real_arrays_and_scalars(dtype):
    z = random_values(dtype, 12)
    for real in REALS:
        r = (np.arange(12) % 5 - 2).astype(real)
        check(named(lambda a, b: (a + b, b - a, a / (b + 3)), "mixed"), z, r)
        check(named(lambda a, b: a * b, "mixed_mul"), z, r, ulps=1)
    for scalar in (2, -3, 2.5, 1j, 2 - 0.5j, True, np.float32(2), np.float64(1.5), np.complex64(1j), np.int32(3)):
        check(named(lambda a, s=scalar: (a + s, s - a, a / s, s / a), "scalars"), z)
        check(named(lambda a, s=scalar: (a * s, s * a), "scalars_mul"), z, ulps=1)
    # weak Python complex scalars with real arrays: float32 * 1j is complex64 (NEP 50)
    for real in (np.float32, np.float64, np.int32, np.bool_):
        r = np.arange(5).astype(real)
        check(named(lambda a: (a * 1j, a + (2 + 3j), 1j - a), "weak"), r)


# ----------------------------------------------------------------------------- unary math

EXACT_UNARY = {
    "neg": lambda x: -x,
    "conj": lambda x: np.conj(x),
    "conjugate_method": lambda x: x.conjugate(),
    "real": lambda x: x.real * 1,
    "imag": lambda x: x.imag * 1,
    "np.real": lambda x: np.real(x) + 0,
    "np.imag": lambda x: np.imag(x) + 0,
    "isnan": lambda x: np.isnan(x),
    "isinf": lambda x: np.isinf(x),
    "isfinite": lambda x: np.isfinite(x),
    "reciprocal": lambda x: np.reciprocal(x),
    "pos": lambda x: +x,
    "logical_not": lambda x: np.logical_not(x),
    "astype_bool": lambda x: x.astype(bool),
}
LIBM = ("exp", "log", "sqrt", "sin", "cos", "tanh")


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(EXACT_UNARY))
def test_exact_unary(name, dtype):
    fn = named(EXACT_UNARY[name], name)
    for x in layouts(edge_values(dtype)):
        check(fn, x)


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_angle_is_arctan2_of_the_parts(dtype):
    """Ember's ``arctan2`` (numpy_math.py): within 2 ulp of NumPy's for float32."""
    fn = named(lambda x: (np.angle(x), np.angle(x, deg=True)), "angle")
    for x in layouts(edge_values(dtype)):
        check(fn, x, ulps=0 if dtype == np.complex128 else 2)


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_abs_is_the_magnitude_in_the_real_dtype(dtype):
    fn = named(lambda x: (np.abs(x), abs(x), np.absolute(x)), "abs")
    for x in layouts(edge_values(dtype)) + layouts(random_values(dtype)):
        check(fn, x, ulps=1)
    check(fn, edge_values(dtype))  # contiguous: NumPy's SIMD formula, bit for bit


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", LIBM)
def test_libm_functions(name, dtype):
    ufunc = getattr(np, name)
    fn = named(lambda x: ufunc(x), name)
    ulps = 0 if dtype == np.complex128 else 4
    for x in layouts(random_values(dtype)):
        check(fn, x, ulps=ulps)
    moderate = np.array([0j, -0.0 + 0j, 1 + 1j, -2.5 + 0.5j, 0.1 - 3j, 1e-30j, 20 + 1j, -20 - 1j], dtype)
    check(fn, moderate, ulps=ulps)
    if dtype == np.complex128:  # NumPy calls the same C99 functions: special values too
        check(fn, edge_values(dtype))


# ----------------------------------------------------------------------------- power


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_power_fast_paths_and_small_integers(dtype):
    x = np.concatenate([random_values(dtype, 20), np.array([0j, -0.0 + 0j, 1j, np.nan + 0j, np.inf + 1j], dtype)])
    check(named(lambda a: (a**2, np.square(a)), "square"), x, ulps=1)
    check(named(lambda a: a**-1, "pow_minus_one"), x)
    check(named(lambda a: a**0.5, "pow_half"), x, ulps=0 if dtype == np.complex128 else 4)

    def powers(n):  # n a constant of the trace (a closure cell, not an argument)
        return named(lambda a: (a**n, np.power(a, n)), f"pow_{n}")

    for n in (0, 1, 3, 4, 5, 7, 13, 99, -1, -2, -3, -4, -99, 2.0, 3 + 0j, np.int64(6), np.float32(-2)):
        check(powers(n), x)


def test_power_beyond_small_integers_falls_back_to_numpy():
    x = random_values(np.complex128, 8)
    check(named(lambda a: a**2.5, "pow_2.5"), x, compiles=False)
    check(named(lambda a: a ** (1 + 1j), "pow_complex"), x, compiles=False)
    check(named(lambda a: np.power(a, 100), "pow_100"), x, compiles=False)
    check(named(lambda a, b: a**b, "pow_array"), x, x[::-1], compiles=False)
    # a float argument NumPy's power reads as a value is specialized: 3.0 is a small integer
    check(named(lambda a, b: a**b, "pow_float_argument"), x, 3.0)
    check(named(lambda a, b: a**b, "pow_float_argument_2.5"), x, 2.5, compiles=False)


# ----------------------------------------------------------------------------- casts


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_casts_to_and_between_complex(dtype):
    for real in REALS:
        r = (np.arange(7) - 3).astype(real)
        check(named(lambda a: a.astype(dtype), "astype"), r)
        check(named(lambda a: np.asarray(a, dtype=dtype) + 0, "asarray"), r)
    edges = np.array([np.nan, np.inf, -0.0, 1e-300, 1e300, 0.1], np.float64)
    check(named(lambda a: a.astype(dtype), "astype_edges"), edges)
    other = np.complex128 if dtype == np.complex64 else np.complex64
    check(named(lambda a: a.astype(other), "complex_to_complex"), edge_values(dtype))
    check(named(lambda a: (a.astype(bool), a.astype(dtype)), "bool_and_same"), edge_values(dtype))


def test_complex_to_real_cast_falls_back_with_numpys_warning():
    z = random_values(np.complex128, 5)

    def to_float(a):
        return a.astype(np.float64) * 2

    cf = compiler.compile(to_float)
    with pytest.warns(np.exceptions.ComplexWarning):
        got = cf(z)
    np.testing.assert_array_equal(got, z.real * 2)
    with pytest.warns(np.exceptions.ComplexWarning):  # on every call, as NumPy
        cf(z)
    with pytest.warns(np.exceptions.ComplexWarning):
        assert compiler.explain(to_float)(z).graph_break_count > 0

    def into_float(a, out):
        out[:] = a
        return out

    out = np.zeros(5)
    with pytest.warns(np.exceptions.ComplexWarning):
        compiler.compile(into_float)(z, out)
    np.testing.assert_array_equal(out, z.real)


# ----------------------------------------------------------------------------- parts and views


def test_real_and_imag_views_of_complex_arrays_are_not_copies():
    z = random_values(np.complex128, 6)

    def real_view(a):
        return a.real

    def imag_view(a):
        return np.imag(a)

    for fn in (real_view, imag_view):
        got = compiler.compile(fn)(z)
        assert np.shares_memory(got, z), fn.__name__  # NumPy's view, not a silent copy
        np.testing.assert_array_equal(got, fn(z))

    def write_real(a):
        a.real[1:3] = 5.0
        return a.sum()

    check(write_real, z.copy(), ulps=2, compiles=False)


def test_real_and_imag_of_real_arrays():
    x = np.arange(5.0)

    def real_is_itself(a):
        return a.real

    assert compiler.compile(real_is_itself)(x) is x
    for dtype in REALS:
        r = np.arange(5).astype(dtype)
        check(named(lambda a: (a.real + 0, a.imag + 0, np.imag(a) * 1, np.angle(a)), "real_parts"), r)
    check(named(lambda a: (a.real.real * 2, a.imag.imag + 1), "nested"), random_values(np.complex64, 7))


def test_complex_scalars_from_reductions_and_arguments():
    z = random_values(np.complex128, 9)
    check(named(lambda a: (a.sum().real, a[2].imag, a[3], a.sum() * 1j), "scalars"), z, ulps=64)
    check(named(lambda a, c: a * c + c, "complex_argument"), z, 2 - 1j, ulps=1)
    check(named(lambda a, c: a * c, "numpy_complex_argument"), z, np.complex64(1 + 2j), ulps=1)
    check(named(lambda a: a * np.complex128(2 + 1j) + complex(1, 2), "constructed"), z, ulps=1)


# ----------------------------------------------------------------------------- reductions, matmul


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_reductions(dtype):
    z = random_values(dtype, 24) / 8
    rel = 1e-5 if dtype == np.complex64 else 1e-12

    def close(got, want, scale):
        assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=0, atol=rel * scale)

    for fn in (
        lambda a: a.sum(),
        lambda a: np.sum(a.reshape(4, 6), axis=0),
        lambda a: a.reshape(4, 6).sum(axis=1, keepdims=True),
        lambda a: a.mean(),
        lambda a: np.mean(a.reshape(2, 3, 4), axis=(0, 2)),
        lambda a: a[:6].prod(),
        lambda a: np.prod(a.reshape(4, 6)[:, :3], axis=1),
        lambda a: a[::-2].sum(),
    ):
        compiler.reset()
        cf = compiler.compile(fn, fullgraph=True)
        close(cf(z), fn(z), np.abs(z).sum() * 4)
    empty = z[:0]
    check(named(lambda a: (a.sum(), a.prod()), "empty"), empty)
    check(named(lambda a: a.mean(), "empty_mean"), empty)
    check(named(lambda a: (a.any(), a.all(), np.count_nonzero(a)), "truth"), edge_values(dtype))


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_matmul_and_dot(dtype):
    rng = np.random.default_rng(3)

    def c(*shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    rel = 1e-5 if dtype == np.complex64 else 1e-12
    cases = [
        (c(3, 4), c(4, 2)),
        (c(4), c(4)),
        (c(3, 4), c(4)),
        (c(4), c(4, 2)),
        (c(2, 3, 4), c(2, 4, 5)),
        (c(3, 4).T, c(3, 2)),
        (c(3, 4), rng.standard_normal((4, 2))),
        (c(0, 4), c(4, 2)),
    ]
    for a, b in cases:
        for fn in (lambda a, b: a @ b, lambda a, b: np.matmul(a, b), lambda a, b: np.dot(a, b)):
            if fn is not None and a.ndim == 3 and fn.__code__.co_names == ("np", "dot"):
                continue
            compiler.reset()
            cf = compiler.compile(fn, fullgraph=True)
            got, want = cf(a, b), fn(a, b)
            assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
            scale = (np.abs(a).max(initial=0) * np.abs(b).max(initial=0)) * a.shape[-1]
            np.testing.assert_allclose(got, want, rtol=0, atol=rel * max(scale, 1))


@pytest.mark.filterwarnings("error:ember:RuntimeWarning")  # a backend failure must fail, not run eagerly
@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_transposed_matrices_are_read_in_place(dtype):
    """``s @ W.T`` (a DFT's matrix product), ``W.T @ W`` and both at once: BLAS's
    transpose flag reads the transposed operand, no transposed copy is made first."""
    rng = np.random.default_rng(5)
    W = (rng.standard_normal((7, 5)) + 1j * rng.standard_normal((7, 5))).astype(dtype)
    s = rng.standard_normal((3, 5)).astype(np.float32 if dtype == np.complex64 else np.float64)
    rel = 1e-5 if dtype == np.complex64 else 1e-12
    for fn, args in (
        (lambda s, W: s @ W.T, (s, W)),
        (lambda s, W: W.T @ W, (s, W)),
        (lambda s, W: W.T @ (s @ W.T).T, (s, W)),
        (lambda s, W: s @ W[::-1].T, (s, W)),
    ):
        compiler.reset()
        got, want = compiler.compile(fn, fullgraph=True)(*args), fn(*args)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=0, atol=rel * 30)
    with ember.new_context():
        module = ir.Module.parse(captured_graph(lambda s, W: s @ W.T, s, W))
        run_pipeline(module, "builtin.module(ember-to-linalg)")
        text = str(module)
    assert "linalg.transpose" not in text and "linalg.matmul indexing_maps" in text, text


# ----------------------------------------------------------------------------- creation, writes


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_creation(dtype):
    x = random_values(dtype, 6)
    check(
        named(
            lambda a: (
                np.zeros(3, dtype),
                np.ones((2, 2), dtype=dtype),
                np.full(4, 1 - 2j, dtype),
                np.full(2, 3j),
                np.array([1j, 2, 3.5], dtype=dtype),
                np.zeros_like(a),
                np.ones_like(a.real, dtype=dtype),
                np.full_like(a, 2 + 1j),
                np.empty(3, dtype).shape,
                np.array([1 + 1j, 2]) * a[:2],
            ),
            "creation",
        ),
        x,
        ulps=1,
    )


def test_writes_into_complex_arrays():
    def update(a, b):
        a += 1j
        a[1:3] = b[:2] * 2
        a[::-2] -= b[::2]
        return a

    check(update, random_values(np.complex128, 6), random_values(np.complex128, 6, seed=1), ulps=1)

    def update_from_real(a, r):
        a[:] = r  # real into complex: exact
        a *= 1j
        return a

    check(update_from_real, random_values(np.complex64, 5), np.arange(5.0, dtype=np.float32), ulps=1)


def test_unsupported_functions_fall_back_with_numpys_answer():
    z = random_values(np.complex128, 8)
    check(named(lambda a: np.maximum(a, a[::-1]), "maximum"), z, compiles=False)
    check(named(lambda a: np.round(a, 1), "round"), z, compiles=False)
    check(named(lambda a: np.sign(a), "sign"), z, compiles=False)
    check(named(lambda a: a.max(), "max"), z, compiles=False)
    check(named(lambda a: np.var(a), "var"), z, compiles=False, ulps=64)
    check(named(lambda a: np.tan(a), "tan"), z, compiles=False)


# ----------------------------------------------------------------------------- other paths


def test_symbolic_sizes():
    def f(a, b):
        return np.abs(a * b + 1j) + (a / b).real

    cf = compiler.compile(f, dynamic=True)
    for n in (3, 7, 12):
        a, b = random_values(np.complex64, n), random_values(np.complex64, n, seed=2)
        got, want = cf(a, b), f(a, b)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(np.float32).eps)
    assert len(cf.entries) == 1


def test_eager_backend_interprets_complex_ops():
    x = edge_values(np.complex128)
    fn = named(lambda a: (a + 1j, a / a[::-1], np.conj(a), a.real + 0, np.abs(a), a**3, a**-1, a == a), "eager")
    check(fn, x, ulps=1, backend="eager")


def test_large_arrays_run_the_parallel_paths():
    z = random_values(np.complex128, 300_000)
    check(named(lambda a: (a * 2j + a, np.abs(a)), "big"), z, ulps=1)
    compiler.reset()
    got = compiler.compile(lambda a: a.sum())(z)
    np.testing.assert_allclose(got, z.sum(), rtol=0, atol=1e-12 * np.abs(z).sum())


def test_a_libm_call_on_constants_folded_into_its_consumer():
    """``exp`` of a constant (the select of a constant False) fused into its reader: the
    producer left writing nothing still holds its ``cexp`` call, which canonicalization
    keeps; ember-bufferize erases it (convert-linalg-to-loops cannot lower it)."""
    x = np.array(0.251, np.float32)
    for fn in (
        lambda x: np.exp(np.where(False, x * 1j, -1.5)) + 0,
        lambda x: (np.exp(np.where(-1.5 > 0, x * 1j, -1.5)), np.exp(0.5 + x))[1],
    ):
        got = compiler.compile(fn, options={"strict": True})(x)  # a backend failure raises
        assert_same(got, fn(x), 1)
