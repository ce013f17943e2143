"""int8, int16, uint8, uint16, uint32, uint64 and float16, compiled and compared with NumPy.

Each test compiles a function with ``fullgraph=True`` (a graph break fails the test),
turns Ember's internal-error warnings into failures, and compares with NumPy: the same
type (NumPy scalar or array), dtype and shape, integer and bool values equal, float
values bit for bit (signed zeros and NaN positions included) unless a test says
otherwise, and every argument array left as NumPy leaves it. Most tests run both on
the CPU backend and on ``eager`` (the reference interpreter).

What differs between signed and unsigned integers (division, remainder, comparisons,
right shift, min/max, widening, int <-> float, abs, sign) is tested with values of
the top bit set, where a signed reading would give another answer. float16 follows
NumPy's half loops: computed in float32 and rounded back after every op (bit for bit
for the arithmetic), reductions and matmul summed in float32.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import compiler
from compiler.frontend import promotion

pytestmark = pytest.mark.usefixtures("fresh_compiler")

NEW = [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64, np.float16]
INTS = [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64]
ALL = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ALL += [np.float16, np.float32, np.float64]
BACKENDS = ["cpu", "eager"]
RNG = np.random.default_rng(7)


def edge(dtype) -> np.ndarray:
    """Values that tell signed from unsigned and wrap: extremes, the top bit, zero, one."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([True, False, True, False, False, True, True, False, True])
    if dtype.kind == "f":
        values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 65504.0, -65504.0, 6e-8, -6e-5, 1e-3, 7.0, np.inf, -np.inf]
        return np.array(values + [np.nan, 100.25, -0.1], dtype)
    info = np.iinfo(dtype)
    half = int(info.max) // 2 + 1  # the top bit of an unsigned type, past the middle for signed
    values = [0, 1, 2, 3, 7, 8, 13, int(info.max), int(info.max) - 1, half, half + 3, int(info.min), int(info.min) + 1]
    values += [5, 100, 127, 64, 33]
    return np.array(values, dtype=dtype)


def quiet():
    w = warnings.catch_warnings()
    w.__enter__()
    warnings.simplefilter("error")  # an Ember internal error (a fallback to eager or CPython) fails the test
    warnings.filterwarnings("ignore", category=RuntimeWarning, module="numpy")
    return w


def same(got, want, what, ulps=None, rtol=None, atol=None):
    """Same type, dtype and shape; values equal (floats bit for bit), or within ``ulps``
    units of the last place of ``want``, ``rtol`` and ``atol``."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{what}[{i}]", ulps, rtol, atol)
        return
    assert type(got) is type(want), (what, type(got), type(want))
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype, g.shape, w.shape)
    if w.dtype.kind != "f":
        np.testing.assert_array_equal(g, w, err_msg=str(what), strict=True)
        return
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"NaN positions: {what}")
    if ulps is not None or rtol is not None or atol is not None:
        real = ~np.isnan(w)
        g64, w64 = g[real].astype(np.float64), w[real].astype(np.float64)
        assert (np.isinf(g64) == np.isinf(w64)).all(), what
        finite = ~np.isinf(w64)
        with np.errstate(over="ignore"):  # the spacing of float16's largest value is inf
            ulp = np.spacing(np.abs(w[real][finite])).astype(float)
        allowed = np.abs(w64[finite]) * (rtol or 0) + (ulps or 0) * ulp + (atol or 0)
        assert (np.abs(g64[finite] - w64[finite]) <= allowed).all(), (what, g, w)
        return
    np.testing.assert_array_equal(g, w, err_msg=str(what), strict=True)
    real = ~np.isnan(w)
    np.testing.assert_array_equal(np.signbit(g[real]), np.signbit(w[real]), err_msg=f"signed zeros: {what}")


def check(fn, *args, backend="cpu", ulps=None, rtol=None, atol=None, dynamic=False):
    """``fn(*args)`` compiled into one graph equals NumPy's ``fn(*args)``, arguments included."""
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"):
        want = fn(*theirs)
    compiler.reset()
    c = compiler.compile(fn, fullgraph=True, backend=backend, dynamic=dynamic)
    w = quiet()
    try:
        with np.errstate(all="ignore"):
            got = c(*mine)
    finally:
        w.__exit__(None, None, None)
    assert c.entries and c.entries[0].graph_module is not None and c.entries[0].fallback_reason is None
    what = (getattr(fn, "__name__", "fn"), backend, [f"{a.dtype}{list(a.shape)}" for a in args if hasattr(a, "dtype")])
    same(got, want, what, ulps, rtol, atol)
    for m, t in zip(mine, theirs):
        if isinstance(t, np.ndarray):
            same(m, t, (*what, "argument after the call"))
    return got


def pairs_of(dtype, n=40, nonzero=False):
    """Two random arrays over the whole range of ``dtype``, edge values first."""
    dtype = np.dtype(dtype)
    x, y = edge(dtype), np.roll(edge(dtype), 5)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        more = RNG.integers(int(info.min), int(info.max), size=(2, n), dtype=dtype, endpoint=True)
        x, y = np.concatenate([x, more[0]]), np.concatenate([y, more[1]])
    elif dtype.kind == "f":
        more = (RNG.standard_normal((2, n)) * 20).astype(dtype)
        x, y = np.concatenate([x, more[0]]), np.concatenate([y, more[1]])
    if nonzero:
        y = np.where(y == 0, np.ones((), dtype), y)
    return x, y


# ----------------------------------------------------------------------------- integers


def arith(x, y):
    return x + y, x - y, x * y, x // y, x % y, np.maximum(x, y), np.minimum(x, y), -x, np.abs(x), np.sign(x)


def compare(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


def bitwise(x, y):
    return x & y, x | y, x ^ y, ~x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", INTS, ids=lambda t: np.dtype(t).name)
def test_integer_arithmetic_wraps_and_divides_as_numpy(dtype, backend):
    x, y = pairs_of(dtype)
    check(arith, x, y, backend=backend)  # y holds zeros: x // 0 == x % 0 == 0, as NumPy


@pytest.mark.parametrize("dtype", INTS, ids=lambda t: np.dtype(t).name)
def test_integer_comparisons_bitwise_and_true_division(dtype):
    x, y = pairs_of(dtype)
    check(compare, x, y)
    check(bitwise, x, y)
    check(lambda a, b: a / b, x, y)  # float64 loop (inf and NaN for a zero divisor)


def test_unsigned_reads_the_top_bit_as_a_value():
    """Where signed arithmetic would answer otherwise (values >= 2**(bits - 1))."""
    x = np.array([200, 255, 128, 3, 0], np.uint8)
    y = np.array([3, 2, 7, 250, 255], np.uint8)
    got = check(lambda a, b: (a // b, a % b, a < b, np.maximum(a, b), a >> 1, a.astype(np.int32)), x, y)
    assert got[0].tolist() == [66, 127, 18, 0, 0] and got[3].tolist() == [200, 255, 128, 250, 255]
    big = np.array([2**64 - 1, 2**63, 2**63 + 5, 7], np.uint64)
    check(lambda a: (a // np.uint64(3), a.astype(np.float64), a.astype(np.float32), a > np.uint64(2**63)), big)


@pytest.mark.parametrize("dtype", INTS, ids=lambda t: np.dtype(t).name)
def test_shifts_of_every_count(dtype):
    bits = np.dtype(dtype).itemsize * 8
    x = np.resize(edge(dtype), bits + 4)
    counts = np.arange(bits + 4).astype(dtype)  # counts past the width: 0, or the sign for signed >>
    check(lambda a, n: (a << n, a >> n), x, counts)
    check(lambda a: (a << 3, a >> 3, a >> (bits - 1)), x)


@pytest.mark.parametrize("dtype", INTS, ids=lambda t: np.dtype(t).name)
def test_power_wraps(dtype):
    x = edge(dtype)
    check(lambda a: (a**2, a**3, np.power(a, 5)), x)
    if np.dtype(dtype).kind == "u":  # an unsigned exponent array is never negative: it compiles
        e = np.resize(np.array([0, 1, 2, 3, 7, 8, 63, 64, np.iinfo(dtype).max], dtype), x.size)
        check(lambda a, b: a**b, x, e)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.uint32, np.uint64])
def test_reciprocal_sign_and_invert_of_narrow_integers(dtype):
    x = edge(dtype)
    check(lambda a: (np.reciprocal(a), np.sign(a), np.invert(a), np.abs(a), np.negative(a)), x)


# ----------------------------------------------------------------------------- float16


def f16_arith(x, y):
    return x + y, x - y, x * y, x / y, -x, np.abs(x), np.maximum(x, y), np.minimum(x, y), x * x + y


@pytest.mark.parametrize("backend", BACKENDS)
def test_float16_arithmetic_is_numpys_bit_for_bit(backend):
    x, y = pairs_of(np.float16)
    check(f16_arith, x, y, backend=backend)  # NaN, +-inf, -0.0, overflow to inf, subnormals
    check(compare, x, y, backend=backend)
    check(lambda a, b: (a // b, a % b, np.floor(a), np.square(a)), x, y, backend=backend)


@pytest.mark.parametrize(
    "fn",
    [np.exp, np.sqrt, np.tanh, np.log, np.sin, np.cos, np.arctan, np.expm1, np.log1p, np.exp2, np.cbrt, np.rint],
    ids=lambda f: f.__name__,
)
def test_float16_math_within_one_half_ulp_step(fn):
    """NumPy's half loops compute in float32 and round: Ember's float32 functions are
    within a few float32 ulp of NumPy's, so the rounded half agrees but for rare ties."""
    x = np.concatenate([edge(np.float16), np.linspace(-6, 6, 101).astype(np.float16)])
    got = check(lambda a: fn(a), x, ulps=1)
    with np.errstate(all="ignore"):
        want = fn(x)
    assert np.mean(got[~np.isnan(want)] == want[~np.isnan(want)]) > 0.95  # mostly bit for bit


def test_float16_from_float64_is_correctly_rounded():
    """Not through float32 (double rounding): 1 + 2**-11 + 2**-40 is just above the tie
    between 1 and the next half, so it rounds up; via float32 it would be the tie, down."""
    tricky = [1 + 2**-11 + 2**-40, 1 + 2**-11, 1 + 3 * 2**-11 - 2**-45, 65519.99, 65520.0, 2**-25, 2**-25 + 2**-60]
    tricky += [2**-24 * 1.5, -(2**-26), 1e-300, -1e300, 5.960464477539063e-08, 0.1, -0.0]
    x = np.array(tricky + list(RNG.standard_normal(200) * 100), np.float64)
    got = check(lambda a: a.astype(np.float16), x)
    assert got[0] == np.float16(1 + 2**-10) and got[0] != np.float16(np.float32(x[0]))
    check(lambda a: (np.float16(a), a.astype(np.float16) * np.float16(2)), x)


def test_float16_reductions_and_matmul_sum_in_float32():
    x = (RNG.standard_normal((6, 50)) * 3).astype(np.float16)
    check(lambda a: (a.max(), a.min(axis=1), np.argmax(a), np.argmin(a, axis=0)), x)
    # NumPy sums half in float32 within one inner loop (a whole contiguous row here) and
    # rounds to half at the end: equal but for the summation order
    check(lambda a: (a.sum(axis=1), a.mean(axis=1), a.sum(), a.mean()), x, ulps=2)
    check(lambda a: np.prod(a[:, :4], axis=1), x, ulps=2)
    m = (RNG.standard_normal((5, 7)) * 2).astype(np.float16)
    check(lambda a, b: (a @ b, a[0] @ b, np.dot(a[0], a[1])), m, m.T.copy(), ulps=2)


def test_float16_cumsum_and_statistics():
    x = (RNG.standard_normal((4, 9))).astype(np.float16)
    # another summation order (a log-step scan, rounded to half after every add as NumPy's
    # accumulate is): within a few ulp of the partial sums (up to ~4 here, ulp 2**-8)
    check(lambda a: np.cumsum(a, axis=1), x, atol=4 * 2.0**-8)
    check(lambda a: (np.var(a, axis=1), np.std(a)), x, rtol=2e-3)


# ----------------------------------------------------------------------------- casts


def _castable(x: np.ndarray, dst) -> np.ndarray:
    """The elements of ``x`` whose cast to ``dst`` C defines. A float whose truncation is
    out of an integer type's range (and NaN, inf) has no defined integer value: C leaves
    it undefined and NumPy's answer is whatever the CPU gives, so those are left out."""
    dst = np.dtype(dst)
    if x.dtype.kind != "f" or dst.kind not in "iu":
        return x
    info = np.iinfo(dst)
    with np.errstate(invalid="ignore"):
        t = np.trunc(x.astype(np.float64))
        ok = np.isfinite(t) & (t >= float(info.min)) & (t <= float(info.max))
    if dst.itemsize == 8:
        ok &= np.abs(t) < 2.0**63 if dst.kind == "i" else t < 2.0**64
    return x[ok]


@pytest.mark.parametrize("src", ALL, ids=lambda t: np.dtype(t).name)
def test_casts_to_every_dtype(src):
    base = edge(src)
    if np.dtype(src).kind == "f":
        base = np.concatenate([base, np.array([127.9, -128.9, 255.5, 32767.5, -0.9, 0.99, 3e4], src)])
        base = base[np.isfinite(base.astype(np.float64)) | np.isnan(base)]
    inputs = [_castable(base, d) for d in ALL]

    def casts(*arrays):
        out = []
        for a, d in zip(arrays, ALL):
            out.append(a.astype(d))
        return tuple(out)

    check(casts, *inputs)

    def scalar_types(a):  # np.uint8(x) of a 0-d array: NumPy scalars
        out = []
        for d in ALL:
            out.append(d(a))
        return tuple(out)

    check(scalar_types, inputs[0][:1].reshape(()))


def test_widening_follows_the_source_signedness():
    x = np.array([-1, -128, 127, 0], np.int8)
    u = np.array([255, 128, 127, 0], np.uint8)
    got = check(lambda a, b: (a.astype(np.uint32), b.astype(np.int64), a.astype(np.uint64), b.astype(np.int8)), x, u)
    assert got[0].tolist() == [2**32 - 1, 2**32 - 128, 127, 0] and got[1].tolist() == [255, 128, 127, 0]


# ----------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("dtype", NEW[:-1], ids=lambda t: np.dtype(t).name)
def test_integer_reductions_take_numpys_dtypes(dtype):
    x = pairs_of(dtype, 30)[0].reshape(4, -1)

    def reductions(a):
        return a.sum(), a.sum(axis=0), a.prod(axis=1), a.max(axis=1), a.min(), np.argmax(a, axis=1)

    got = check(reductions, x)
    assert got[0].dtype == (np.uint64 if np.dtype(dtype).kind == "u" else np.int64) and got[3].dtype == dtype
    # float64 sums in another order (64-bit values are not exact in float64)
    assert check(lambda a: (a.mean(), a.mean(axis=1)), x, rtol=1e-15)[0].dtype == np.float64
    check(lambda a: (np.cumsum(a, axis=1), np.cumprod(a[:, :5], axis=1), np.argmin(a), np.ptp(a, axis=0)), x)
    check(lambda a: (a.sum(dtype=dtype), np.var(a), a.any(axis=0), np.count_nonzero(a)), x, rtol=1e-12)


# ----------------------------------------------------------------------------- promotion


def test_mixed_dtypes_promote_as_numpy():
    i8, u8 = edge(np.int8), edge(np.uint8)
    u32, i32 = edge(np.uint32)[:16], edge(np.int32)[:16]
    u64, i64 = edge(np.uint64)[:16], edge(np.int64)[:16]
    h, f = edge(np.float16), edge(np.float32)[: edge(np.float16).size]
    got = check(lambda a, b: (a + b, a * b, a < b, a // np.where(b == 0, 1, b)), i8[:17], u8[:17])
    assert got[0].dtype == np.int16
    assert check(lambda a, b: a - b, u32, i32).dtype == np.int64
    assert check(lambda a, b: a + b, u64, i64).dtype == np.float64
    assert check(lambda a, b: a * b, u8[:17], h[:17]).dtype == np.float16
    assert check(lambda a, b: a + b, i8[:17], h[:17]).dtype == np.float16
    assert check(lambda a, b: a + b, edge(np.int16)[:17], h[:17]).dtype == np.float32
    assert check(lambda a, b: a * b, h, f).dtype == np.float32
    assert check(lambda a: a + np.float32(1.5), h).dtype == np.float32  # a NumPy scalar is strong


def test_weak_python_scalars():
    u8, h = edge(np.uint8), edge(np.float16)
    got = check(lambda a: (a + 3, a * 2, a - 1, a < 200, a // 7, a == 255), u8)
    assert got[0].dtype == np.uint8
    assert check(lambda a: a * 2.5, u8).dtype == np.float64
    assert check(lambda a: (a * 2.0 + 1, a / 3), h)[0].dtype == np.float16
    assert check(lambda a: a + 1000, edge(np.int16)).dtype == np.int16
    assert check(lambda a: a + np.int64(3), edge(np.int8)).dtype == np.int64


@pytest.mark.parametrize("value", [300, -1, 2**70])
def test_weak_int_out_of_range_raises_numpys_overflow_error(value):
    """NEP 50: ``uint8_array + 300`` raises OverflowError in NumPy 2; the compiled function
    does not compile that call but raises the same error."""
    x = np.arange(4, dtype=np.uint8)
    with pytest.raises(OverflowError):
        np.add(x, value)
    compiler.reset()
    c = compiler.compile(lambda a: a + value)
    with pytest.raises(OverflowError):
        c(x)


# ----------------------------------------------------------------------------- layouts, writes, creation


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64, np.float16], ids=lambda t: np.dtype(t).name)
def test_layouts_broadcasting_and_empty_arrays(dtype):
    x = pairs_of(dtype, 30)[0][:24].reshape(4, 6)
    col = x[:, :1].copy()
    fn = lambda a, b: (a * b - a, np.maximum(a, b))  # noqa: E731
    check(fn, x, col)  # (4, 6) with (4, 1)
    check(fn, x[:, ::2], x[::-1, 1::2])  # strided and reversed views
    check(fn, x[:0], col[:0])  # size 0
    check(fn, x[:1, :1], col[:1])  # size 1
    check(fn, np.array(x[1, 2]), np.array(x[2, 3]))  # 0-d
    check(lambda a: (a.T + a.T[0], a[::-1].sum(axis=0)), x, ulps=2 if dtype == np.float16 else None)


def test_in_place_updates_wrap():
    x = np.array([250, 5, 128, 0], np.uint8)
    y = np.array([10, 250, 128, 255], np.uint8)

    def inplace(a, b):
        a += b
        b[1:] -= a[:-1]
        return a * 2

    check(inplace, x, y)
    h = edge(np.float16)

    def halve(a):
        a *= np.float16(0.5)
        a[::3] = 7

    check(halve, h)


def test_creation_with_new_dtypes():
    def make(a):
        return (
            np.zeros(5, dtype=np.uint8),
            np.ones((2, 3), np.int8),
            np.full(3, 200, np.uint8),
            np.full(3, -7, dtype=np.int16),
            np.arange(6, dtype=np.uint16),
            np.array([1, 2, 300], dtype=np.uint32),
            np.zeros_like(a, dtype=np.float16),
            np.full_like(a, 65000, dtype=np.uint16),
            np.array([0.1, 1e5], dtype=np.float16),
            a.astype(np.uint8) + np.uint8(200),
            np.float16(0.1) * a.astype(np.float16),
        )

    check(make, np.arange(4, dtype=np.int64))


def test_integer_matmul_wraps_and_never_takes_blas():
    a = RNG.integers(0, 256, (6, 5), dtype=np.uint8)
    b = RNG.integers(0, 256, (5, 4), dtype=np.uint8)
    check(lambda x, y: (x @ y, x.astype(np.int8) @ y.astype(np.int8), np.dot(x[0], y[:, 1])), a, b)
    check(lambda x, y: x.astype(np.uint64) @ y.astype(np.uint64), a, b)


def test_one_compile_serves_many_sizes():
    c = compiler.compile(lambda a, b: a // b + (a >> 2), dynamic=True)
    for n in (5, 17, 64):
        x = RNG.integers(0, 2**16, n, dtype=np.uint16)
        y = RNG.integers(1, 2**16, n, dtype=np.uint16)
        np.testing.assert_array_equal(c(x, y), x // y + (x >> 2), strict=True)
    assert len(c.entries) <= 2


# ----------------------------------------------------------------------------- what is left to NumPy


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(3).astype("datetime64[s]"),
        lambda: np.array([1, "a", None], dtype=object),
        lambda: np.array(["ab", "c"]),
        lambda: np.ones(3, np.longdouble),
    ],
    ids=["datetime64", "object", "str", "longdouble"],
)
def test_unsupported_dtypes_fall_back_cleanly(make):
    x = make()
    fn = lambda a: a[::-1]  # noqa: E731
    w = quiet()
    try:
        report = compiler.explain(fn)(x)
        got = compiler.compile(fn)(x)
    finally:
        w.__exit__(None, None, None)
    np.testing.assert_array_equal(got, fn(x))
    assert report.graph_count == 0 and any("dtype" in str(r.reason) for r in report.break_reasons)


def test_unsupported_dtype_argument_of_a_call_is_a_clean_fallback():
    fn = lambda a: a.astype(np.longdouble) * 2  # noqa: E731
    x = np.arange(4, dtype=np.uint8)
    w = quiet()
    try:
        report = compiler.explain(fn)(x)
        got = compiler.compile(fn)(x)
    finally:
        w.__exit__(None, None, None)
    np.testing.assert_array_equal(got, fn(x), strict=True)
    assert any("longdouble" in str(r.reason) or "float128" in str(r.reason) for r in report.break_reasons)


def test_the_new_dtypes_are_supported():
    assert {np.dtype(t) for t in ALL} <= set(promotion.SUPPORTED)


@pytest.mark.usefixtures("two_threads")
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint32, np.float16], ids=lambda t: np.dtype(t).name)
def test_large_arrays_take_the_parallel_paths(dtype):
    """Reductions to one value split across threads: each part starts from the
    combiner's identity (unsigned max: 0, unsigned min: all ones)."""
    x = pairs_of(dtype, 300_000)[0]
    check(lambda a: (a.max(), a.min(), a * 3), x)
    if np.dtype(dtype).kind != "f":
        check(lambda a: (a.sum(), (a >> 1).max()), x)


def test_half_constants_in_llvm_ir_are_written_as_bits():
    """llvmlite's older LLVM parser reads half constants only as ``0xH`` bits."""
    from compiler.backends.llvm_cpu.float_syntax import legacy_float_syntax

    line = "@c = private constant [3 x half] [half 9.997550e-02, half +inf, half f0x3C00], align 64"
    assert (
        legacy_float_syntax(line)
        == "@c = private constant [3 x half] [half 0xH2E66, half 0xH7C00, half 0xH3C00], align 64"
    )
    assert legacy_float_syntax("%1 = fcmp olt half %0, -inf") == "%1 = fcmp olt half %0, 0xHFC00"
    assert legacy_float_syntax("%2 = fadd float %1, -inf").endswith("0xFFF0000000000000")


def test_unsigned_index_arrays_zero_extend():
    """An index of uint8 >= 128 is a large index, not a negative one (crc32's table lookup)."""
    table = np.arange(300, dtype=np.uint32) * np.uint32(2654435761)
    idx = np.array([200, 3, 130, 0, 255, 7], np.uint8)
    check(lambda t, i: (t[i], t[i.astype(np.uint16)], t[(i ^ np.uint8(0x55)) & 0xFF]), table, idx)
