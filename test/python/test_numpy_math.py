"""NumPy's elementwise math (compiler/frontend/numpy_math.py), compiled and compared with NumPy.

Two layers. The emitter sweep (the OpInfo harness of ``test_numpy_semantics.py``) traces
every ufunc over every dtype pair, broadcast shapes, Python and NumPy scalars, checks
the result dtype and values with the interpreter and the CPU backend, and expects
NumPy's exception where NumPy raises. The end-to-end tests go through ``compile``:
each function runs over float32/float64/int32/int64/bool, sizes 0 and 1, broadcasting,
non-contiguous and negative-stride views and edge values (NaN, +-inf, -0.0, half-way
cases, integer extremes, shift counts past the width), and must compile (no silent
fallback to CPython) and give NumPy's answer: bit for bit for integer and bool results
and for the exact compositions (signs of zeros included), within a few ulp
(rtol 1e-6 / 1e-12) for the transcendental functions. Where NumPy raises, the compiled
function raises the same exception.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from graph_building import T, build
from test_numpy_semantics import OpInfo, _binary, _unary, arr, check

import compiler
from compiler.backends import compile_graph
from compiler.frontend import numpy_math, promotion
from compiler.frontend.numpy_semantics import TABLE

pytestmark = pytest.mark.usefixtures("fresh_compiler")

TRANSCENDENTAL = {
    np.arcsin,
    np.arccos,
    np.arctan,
    np.sinh,
    np.cosh,
    np.arcsinh,
    np.arccosh,
    np.arctanh,
    np.tan,
    np.log1p,
    np.expm1,
    np.log2,
    np.log10,
    np.exp2,
    np.cbrt,
    np.arctan2,
    np.hypot,
    np.logaddexp,
    np.logaddexp2,
}
UNARY = [
    *sorted(TRANSCENDENTAL - {np.arctan2, np.hypot, np.logaddexp, np.logaddexp2}, key=lambda u: u.__name__),
    np.reciprocal,
    np.sign,
    np.ceil,
    np.trunc,
    np.rint,
    np.isnan,
    np.isinf,
    np.isfinite,
    np.signbit,
    np.deg2rad,
    np.rad2deg,
    np.radians,
    np.degrees,
    np.conjugate,
]
BINARY = [
    np.arctan2,
    np.hypot,
    np.logaddexp,
    np.logaddexp2,
    np.copysign,
    np.fmod,
    np.fmax,
    np.fmin,
    np.logical_and,
    np.logical_or,
    np.logical_xor,
    np.left_shift,
    np.right_shift,
    np.heaviside,
]
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


# ----------------------------------------------------------------------------- the table


def test_every_function_of_the_issue_has_a_rule():
    functions = UNARY + BINARY + [np.divmod, np.round, np.around, np.nan_to_num, np.radians, np.degrees, np.conj]
    names = ["round", "conj", "conjugate", "lshift", "rshift", operator.lshift, operator.rshift]
    assert [f for f in functions + names if f not in TABLE] == []
    assert set(numpy_math.METHODS) <= {k for keys, *_ in numpy_math.ROWS for k in keys if isinstance(k, str)}


# ----------------------------------------------------------------------------- emitter sweep


SWEEP = [_unary(u, u) for u in UNARY] + [_binary(u, u) for u in BINARY + [np.divmod]]
SWEEP += [
    _binary("lshift", operator.lshift, nonneg_rhs=True),
    _binary("rshift", operator.rshift),
    OpInfo(
        "np.round",
        lambda em, x, d: em.call(np.round, x, d),
        np.round,
        lambda: (
            [(arr(t, s), d) for t in DTYPES for s in [(), (3,), (2, 3)] for d in (0, 1, 2, -1, -2, 10)]
            + [(2.5, 0), (np.float32(1.25), 1), (arr(np.float32, (3,)), 1.5)]
        ),
    ),
    OpInfo(
        "x.round",
        lambda em, x, d: em.call("round", x, decimals=d),
        lambda x, d: x.round(decimals=d),
        lambda: [(arr(t, (2, 3)), d) for t in DTYPES[:4] for d in (0, 3, -1)],
    ),
    OpInfo(
        "np.nan_to_num",
        lambda em, x: em.call(np.nan_to_num, x, nan=-1.5, posinf=1e300, neginf=-7),
        lambda x: np.nan_to_num(x, nan=-1.5, posinf=1e300, neginf=-7),
        lambda: (
            [(np.array([np.nan, np.inf, -np.inf, 1.0, -0.0], t),) for t in (np.float32, np.float64)]
            + [(arr(t, (2, 3)),) for t in DTYPES]
        ),
    ),
]


@pytest.mark.parametrize("info", SWEEP, ids=lambda i: i.name)
def test_emitter_sweep(info):
    assert check(info) > 0


# ----------------------------------------------------------------------------- compiled


def edge_values(dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 1.0, -1.0, 1e-8, -3.7]
        special += [0.9999, 100.0, 1e30, -1e-30, 7.25, 15.0, 25.0, -150.0, 0.285]
        return np.array(special, dtype)
    if dtype.kind == "b":
        return np.array([True, False, True, True, False])
    info = np.iinfo(dtype)
    return np.array([0, 1, -1, 2, -2, 7, -7, 31, 32, 33, 63, 64, 65, -64, 100, info.max, info.min], dtype)


def layouts(x: np.ndarray) -> list[np.ndarray]:
    """``x`` as it is, empty, one element, 0-d, a 2-d non-contiguous view and reversed."""
    wide = np.repeat(x, 2)[None, :].repeat(2, axis=0)
    return [x, x[:0], x[:1], np.array(x[3]), wide[:, ::2], x[::-1]]


def numpy_answer(fn, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as e:  # noqa: BLE001 -- NumPy's refusal is the expectation
            return None, e


def assert_numpy_equal(got, want, exact: bool, what):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for g, w in zip(got, want):
            assert_numpy_equal(g, w, exact, what)
        return
    assert type(got) is type(want), (what, type(got), type(want))  # NumPy scalar vs array
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=str(what), strict=True)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"NaN positions: {what}")
    if exact:
        np.testing.assert_array_equal(got, want, err_msg=str(what), strict=True)
        real = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]), err_msg=f"signed zeros: {what}")
    else:
        rtol = 1e-6 if want.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True, err_msg=str(what))


def run_both(fn, *args, exact=True, signed_zeros=True):
    """``fn(*args)`` compiled (a fresh compile per call) and in NumPy: the same answer, or
    the same exception; a compiled answer must come from a graph, not from CPython."""
    want, error = numpy_answer(fn, *args)
    compiler.reset()
    cf = compiler.compile(fn)
    what = (getattr(fn, "__name__", fn), [f"{a.dtype}{list(a.shape)}" if hasattr(a, "shape") else a for a in args])
    if error is not None:
        with pytest.raises(type(error)):
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cf(*args)
        return None
    with np.errstate(all="ignore"):
        got = cf(*args)
    supported = all(np.asarray(w).dtype in promotion.SUPPORTED for w in (want if isinstance(want, tuple) else (want,)))
    if supported:  # else (float16, int8) CPython's answer is the right one
        assert cf.entries and all(e.graph_module is not None for e in cf.entries), f"{what}: fell back to CPython"
    if not signed_zeros and not exact:
        raise AssertionError("signed_zeros=False only makes sense for exact results")
    if not signed_zeros:  # compare values only (NumPy's own loops disagree on the sign of equal zeros)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), strict=True, err_msg=str(what))
        return got
    assert_numpy_equal(got, want, exact, what)
    return got


def _ufunc_caller(u):
    def call(*args):
        return u(*args)

    call.__name__ = u.__name__
    return call


@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_unary_compiled(ufunc, dtype):
    fn = _ufunc_caller(ufunc)
    for x in layouts(edge_values(dtype)):
        run_both(fn, x, exact=ufunc not in TRANSCENDENTAL)


def test_unary_random_values_within_ulps():
    rng = np.random.default_rng(0)
    for ufunc in sorted(TRANSCENDENTAL - {np.arctan2, np.hypot}, key=lambda u: u.__name__):
        for dtype in (np.float32, np.float64):
            x = rng.uniform(-4, 4, 2000).astype(dtype)
            if ufunc is np.arccosh:
                x = np.abs(x) + 1
            elif ufunc in (np.arcsin, np.arccos, np.arctanh):
                x = x / 4
            elif ufunc in (np.log1p, np.expm1):
                x = x * 10.0 ** rng.integers(-12, 0, x.shape)  # tiny |x|, where log(1 + x) fails
            run_both(_ufunc_caller(ufunc), x, exact=False)


def test_logaddexp_random_values_within_ulps():
    """Differences from 1e-12 to 1e3 (the log1p of nearly 1 and of nearly 0), equal
    operands (``x + ln2``), both signs, float32 and float64."""
    rng = np.random.default_rng(1)
    for ufunc in (np.logaddexp, np.logaddexp2):
        for dtype in (np.float32, np.float64):
            x = rng.uniform(-50, 50, 3000)
            y = x + rng.choice([-1.0, 1.0], x.shape) * 10.0 ** rng.uniform(-12, 3, x.shape)
            y[::7] = x[::7]
            got = run_both(_ufunc_caller(ufunc), x.astype(dtype), y.astype(dtype), exact=False)
            assert got.dtype == dtype


BINARY_DTYPE_PAIRS = [(d, d) for d in DTYPES] + [(np.int32, np.float32), (np.float32, np.float64), (np.bool_, np.int64)]


@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtypes", BINARY_DTYPE_PAIRS, ids=lambda p: f"{np.dtype(p[0]).name}-{np.dtype(p[1]).name}")
def test_binary_compiled_on_every_pair_of_edge_values(ufunc, dtypes):
    """``x[:, None]`` against ``y[None, :]``: every pair of edge values (signed zeros of
    arctan2, fmod of negatives, shift counts past the width), by broadcasting."""
    fn = _ufunc_caller(ufunc)
    x, y = edge_values(dtypes[0]), edge_values(dtypes[1])
    exact = ufunc not in TRANSCENDENTAL
    signed_zeros = ufunc not in (np.fmax, np.fmin)  # NumPy's scalar and SIMD loops differ there
    run_both(fn, x[:, None], y[None, :], exact=exact, signed_zeros=signed_zeros)
    run_both(fn, x[::-1], np.resize(y, len(x))[::-1], exact=exact, signed_zeros=signed_zeros)
    run_both(fn, x[:0], y[:1], exact=exact)


@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
def test_binary_with_python_and_numpy_scalars(ufunc):
    x32, xi = edge_values(np.float32), edge_values(np.int32)
    exact = ufunc not in TRANSCENDENTAL
    signed_zeros = ufunc not in (np.fmax, np.fmin)
    for a, b in [(x32, 2), (x32, 0.5), (xi, 3), (xi, 2.5), (3, xi), (xi, np.int64(2)), (x32, np.float64(-0.0))]:
        run_both(lambda a, b, u=ufunc: u(a, b), a, b, exact=exact, signed_zeros=signed_zeros)


def test_arctan2_of_signed_zeros_and_infinities():
    y = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.inf, 0.0])
    x = np.array([0.0, 0.0, -0.0, -0.0, -np.inf, -np.inf, np.inf, -np.inf, 1.0, -1.0])
    got = run_both(lambda y, x: np.arctan2(y, x), y, x, exact=False)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.arctan2(y, x)))
    np.testing.assert_array_equal(got[:4], [0.0, -0.0, np.pi, -np.pi])


def test_fmod_follows_the_dividend_and_integer_zero_divisors_give_zero():
    a = np.array([7, -7, 7, -7, 5, np.iinfo(np.int32).min], np.int32)
    b = np.array([3, 3, -3, -3, 0, -1], np.int32)
    got = run_both(lambda a, b: np.fmod(a, b), a, b)
    np.testing.assert_array_equal(got, [1, -1, 1, -1, 0, 0])
    run_both(lambda a, b: np.fmod(a, b), a.astype(np.float64) / 2, b.astype(np.float64))


def test_rint_and_round_half_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 1e16 + 2], np.float64)
    got = run_both(lambda x: np.rint(x), x)
    np.testing.assert_array_equal(got[:6], [0.0, 2.0, 2.0, -0.0, -2.0, -2.0])
    run_both(lambda x: np.round(x), x.astype(np.float32))
    run_both(lambda x: np.around(x), x)


@pytest.mark.parametrize("decimals", [1, 2, 3, 5, 9, 12, -1, -2, -3, -9])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_round_with_decimals_is_numpys_arithmetic(decimals, dtype):
    rng = np.random.default_rng(abs(decimals))
    if np.dtype(dtype).kind == "f":
        x = np.concatenate([edge_values(dtype), rng.normal(0, 1000, 300).astype(dtype), [0.285, 1.005, 2.675, 0.125]])
    else:
        x = np.concatenate([rng.integers(-(10**6), 10**6, 300), [15, 25, 35, -15, -25, 150, 250, 5, -5]])
        x = x.astype(dtype)
    run_both(lambda x: np.round(x, decimals), x.astype(dtype))
    run_both(lambda x: np.round(x, decimals=decimals), x[::-2])
    run_both(lambda x: x.round(decimals), x.reshape(-1)[:12].reshape(3, 4))


def test_round_forms_and_errors():
    x = np.array([1.25, -2.5, 3.14159], np.float32)
    run_both(lambda x: np.around(x, decimals=2), x)
    run_both(lambda x: x.round(), x)
    run_both(lambda x: x.round(decimals=-1) + 1, x)
    run_both(lambda x: np.round(x[0], 1), x)  # a NumPy scalar result
    run_both(lambda x: np.round(x, 1.5), x)  # TypeError: 'float' object cannot be interpreted as an integer
    run_both(lambda x: np.round(x, "1"), x)  # TypeError


def test_nan_to_num_forms():
    for dtype in (np.float32, np.float64):
        x = np.array([np.nan, np.inf, -np.inf, -0.0, 1.5], dtype)
        run_both(lambda x: np.nan_to_num(x), x)
        run_both(lambda x: np.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0), x)
        run_both(lambda x: np.nan_to_num(x, copy=True, posinf=1e300), x)  # inf in float32, as NumPy's copyto
        run_both(lambda x: np.nan_to_num(x[::-1])[1:], x)
        run_both(lambda x: np.nan_to_num(x[0]), x)  # a NumPy scalar
    for dtype in (np.int32, np.int64, np.bool_):
        run_both(lambda x: np.nan_to_num(x, nan=5.0) * 2, edge_values(dtype))


def test_nan_to_num_refuses_what_numpy_refuses():
    x = np.array([np.nan, 1.0])
    run_both(lambda x: np.nan_to_num(x, nan="a"), x)  # ValueError from NumPy's copyto
    run_both(lambda x: np.nan_to_num(x, nan=1j), x)  # TypeError: complex into float64


def test_divmod_is_floor_divide_and_remainder():
    for dtype in (np.float32, np.float64, np.int32, np.int64):
        x = edge_values(dtype)
        y = np.resize(edge_values(dtype)[::-1], len(x))
        run_both(lambda x, y: np.divmod(x, y), x, y)
        run_both(lambda x: np.divmod(x, 3), x)
        run_both(lambda x: np.divmod(x[1], 4)[0], x)  # NumPy scalars in the tuple

        def unpacked(x, y):
            q, r = np.divmod(x, y)
            return q * y + r

        run_both(unpacked, x[:, None], y[None, :5])


def test_shifts_as_operators_and_their_limits():
    i32 = np.array([1, -1, 5, -5, np.iinfo(np.int32).max, np.iinfo(np.int32).min], np.int32)
    counts = np.array([0, 1, 31, 32, 40, -1], np.int32)
    run_both(lambda a, b: a << b, i32[:, None], counts[None, :])
    run_both(lambda a, b: a >> b, i32[:, None], counts[None, :])
    run_both(lambda a: (a << 3) >> 1, i32.astype(np.int64))
    run_both(lambda a: 1 << a, counts)
    run_both(lambda a: a >> 2.0, i32)  # TypeError: no float shifts
    run_both(lambda a: np.left_shift(a, a), i32.astype(np.float32))  # TypeError


def test_aliases_methods_and_keywords():
    x = edge_values(np.float64)
    run_both(lambda x: np.radians(x) + np.degrees(x), x)
    run_both(lambda x: np.conj(x) + x.conj() + x.conjugate(), x)
    x0 = np.array(2.5)
    assert compiler.compile(lambda x: x.conj())(x0) is x0  # a real array's conj() is itself
    run_both(lambda x: np.heaviside(x, 0.5), x)
    run_both(lambda x, h: np.heaviside(x, h), x, np.float32(0.25))
    run_both(lambda x: np.logical_and(x > 0, x < 10) | np.logical_xor(x, True), x)
    run_both(lambda x: np.fmax(x, np.nan) + np.fmin(np.nan, x), x, signed_zeros=False)


def test_numpys_errors_are_numpys():
    f = np.ones(3, np.float32)
    run_both(lambda x: np.sign(x > 0), f)  # UFuncTypeError: no bool loop for sign
    run_both(lambda x: np.hypot(x, np.ones(4)), f)  # ValueError: shapes do not broadcast
    run_both(lambda x: np.arctan2(x), f)  # TypeError: missing operand
    run_both(lambda x: np.logical_and(x, x, x, x), f)  # TypeError: too many arguments


def test_unsupported_arguments_still_give_numpys_answer():
    """What Ember does not model runs in CPython (so the answer is still NumPy's)."""
    x = np.array([0.5, -1.5, np.nan])
    for fn in (
        lambda x: np.tan(x, dtype=np.float32),
        lambda x: np.round(x, 1, out=np.empty(3)),
        lambda x: np.nan_to_num(x, copy=False),
        lambda x: np.sinh(x > 0),  # float16
    ):
        want, _ = numpy_answer(fn, x.copy())
        got = compiler.compile(fn)(x.copy())
        np.testing.assert_array_equal(got, want, strict=True)


def test_one_compile_serves_many_sizes():
    """After a size changes, the function recompiles once with symbolic sizes and serves the rest."""

    def f(x, y):
        return np.hypot(x, y) + np.round(np.arctan2(y, x), 3) + np.sign(x) * np.fmax(x, y) + (np.signbit(y) << 1)

    cf = compiler.compile(f)
    rng = np.random.default_rng(3)
    for n in (3, 5, 8, 100, 17, 0, 1):
        x, y = rng.normal(0, 2, n), rng.normal(0, 2, (2, n))
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(cf(x, y), f(x, y), rtol=1e-12, atol=0)
        if n == 17:
            assert len(cf.entries) == 2  # static, then symbolic (0 and 1 are specialized)
    assert all(e.graph_module is not None for e in cf.entries)


def test_large_arrays_run_the_parallel_paths():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1e-3, 1e-3, (512, 300))
    run_both(lambda x: np.log1p(x) - np.expm1(x) + np.arctan2(x, x.T[:300, :512].T), x, exact=False)
    run_both(lambda x: np.round(x * 1e3, 2) + np.hypot(x, 2.0), x.astype(np.float32), exact=False)


# ----------------------------------------------------------------------------- lowering


def test_log1p_and_expm1_keep_every_digit_for_tiny_arguments():
    """convert-math-to-llvm alone would give log(1 + x) and exp(x) - 1 (0 for 1e-20)."""
    for dtype in ("f32", "f64"):
        module = build([T((6,), dtype)], lambda b, x: [b.op("log1p", x), b.op("expm1", x)])
        x = np.array([1e-20, -1e-12, 1e-7, 3e-5, -0.3, 1e30], np.float32 if dtype == "f32" else np.float64)
        log1p, expm1 = compile_graph(module, "cpu")(x)
        with np.errstate(all="ignore"):
            rtol = 1e-6 if dtype == "f32" else 1e-14
            np.testing.assert_allclose(log1p, np.log1p(x), rtol=rtol)
            np.testing.assert_allclose(expm1, np.expm1(x), rtol=rtol)


def test_div_is_correctly_rounded():
    """x / 100 is a division, never x * 0.01 (NumPy's true_divide; np.round's steps)."""

    def body(b, x):
        hundred = b.op("broadcast_to", b.constant(np.float64(100)), result=T((None,), "f64"), sizes=[b.dim(x, 0)])
        return b.op("div", x, hundred)

    x = np.random.default_rng(2).integers(-(10**6), 10**6, 20000).astype(np.float64)
    (got,) = compile_graph(build([T((None,), "f64")], body), "cpu")(x)
    np.testing.assert_array_equal(got, x / 100.0)


@pytest.mark.parametrize("a", [0.0, -0.0])
@pytest.mark.parametrize("b", [0.0, -0.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arctan2_of_zeros_known_while_tracing(a, b, dtype):
    """Both operands constants (folded by MLIR, whose math.atan2 folder gives NaN for two
    zeros): C's answer, +-0 or +-pi by the signs."""

    def f(x):
        return np.arctan2(dtype(a), dtype(b)) + x * 0, np.angle(dtype(b))

    x = np.zeros(2, dtype)
    got, want = compiler.compile(f, options={"strict": True})(x), f(x)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))
        np.testing.assert_array_equal(g, w)


def _exactly_numpys(fn, *args, breaks=0):
    got, want = compiler.compile(fn, options={"strict": breaks == 0})(*args), fn(*args)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True)
    assert compiler.explain(fn)(*args).graph_break_count == breaks


@pytest.mark.filterwarnings("ignore:invalid value encountered in multiply")  # NumPy's 0 * inf
def test_polyval_takes_numpys_steps():
    """Horner's steps from zeros of x's dtype (so inf gives NaN), each coefficient a NumPy
    scalar of p's dtype: NumPy's values and dtypes, bit for bit."""
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.standard_normal(100), [np.inf, -np.inf, np.nan, -0.0]])
    _exactly_numpys(lambda x: np.polyval([1.0, -2.0, 3.0], x), x)
    _exactly_numpys(lambda x: np.polyval([1, -2, 3], x), rng.integers(-5, 5, 50))  # int64 steps
    _exactly_numpys(lambda x: np.polyval([1.5, 2], x), x.astype(np.float32))  # float64 coefficients
    _exactly_numpys(lambda x: np.polyval(np.array([1.0, 2.0], np.float32), x), x.astype(np.float32))
    _exactly_numpys(lambda x: np.polyval(x[:3], x), x)  # coefficients of the function's own
    _exactly_numpys(lambda x: np.polyval([], x), x)  # zeros
    assert type(compiler.compile(lambda x: np.polyval([2.0, 1.0], x[0]))(x)) is np.float64
    _exactly_numpys(lambda x: np.polyval(np.poly1d([1.0, 2.0]), x), x, breaks=2)


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # NumPy's own, on inf and NaN
def test_isclose_fix_sinc():
    """np.isclose as NumPy 2 computes it (y made inexact, infinities equal by ==, NaNs
    with equal_nan), np.fix (ceil, then floor where x >= 0: -0.0 and NaN kept) bit for bit,
    np.sinc (1 at 0) within float rounding of NumPy's sin."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.standard_normal(50), [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300]])
    y = x + rng.standard_normal(x.size) * 1e-6
    ints = rng.integers(-5, 5, 20)
    for fn, args in [
        (lambda x, y: (np.isclose(x, y), np.isclose(x, y, equal_nan=True), np.isclose(x, np.inf)), (x, y)),
        (lambda x, y: (np.isclose(x.astype(np.float32), 1.0), np.isclose(x[0], y[0])), (x, y)),
        (lambda i: np.isclose(i, 2), (ints,)),
        (lambda x: (np.fix(x), np.fix(x.astype(np.float32) * 3)), (x,)),
        (lambda i: np.fix(i), (ints,)),
    ]:
        got, want = compiler.compile(fn, options={"strict": True})(*args), fn(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
            assert np.array_equal(g, w, equal_nan=True) and np.array_equal(np.signbit(g), np.signbit(w))
    for data in (x, x.astype(np.float32), ints):
        got, want = compiler.compile(lambda v: np.sinc(v), options={"strict": True})(data), np.sinc(data)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=4e-7 if want.dtype == np.float32 else 1e-15, equal_nan=True)
