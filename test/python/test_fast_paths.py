"""sin, cos and tan through ``ember-fast-paths``: a loop whose arguments a scan finds
below 2**20 runs Cody-Waite's reduction (``ember.small_argument``), any other loop the
exact one (float32) or libm (float64). Against NumPy and glibc (``math``), through
``compile()``: both paths, the switch between them per tile, the loops the pass must
leave alone (in-place updates, reductions), and the accuracy of the cheap reduction
where it is hardest (arguments near multiples of pi/2)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from graph_building import optimized_llvm_ir

import compiler
from compiler.passes.expand_trig import SMALL_ARGUMENT

REMAINDERS = {
    "fmod": lambda x, y: np.fmod(x, y),
    "mod": lambda x, y: x % y,
    "floordiv": lambda x, y: x // y,
    "divmod": lambda x, y: divmod(x, y),
}

FUNCTIONS = {"sin": (np.sin, math.sin), "cos": (np.cos, math.cos), "tan": (np.tan, math.tan)}


def _compiled(name: str):
    ufunc = FUNCTIONS[name][0]
    return compiler.compile(lambda x: ufunc(x))


def _ulps_from_glibc(got: np.ndarray, x: np.ndarray, name: str) -> np.ndarray:
    """float64: distance from glibc's result (within an ulp of the exact value) in its ulps."""
    ref = np.frompyfunc(FUNCTIONS[name][1], 1, 1)(x).astype(np.float64)
    return np.abs(got - ref) / np.spacing(np.abs(ref))


def _near_multiples_of_half_pi(dtype, count: int) -> np.ndarray:
    """The floats nearest to k*pi/2 and their neighbours up to 2**20: where the reduction
    cancels most of the argument's digits."""
    k = np.unique(np.geomspace(1, SMALL_ARGUMENT * 2 / math.pi - 1, count).astype(np.int64)).astype(np.float64)
    near = (k * (math.pi / 2)).astype(dtype)
    up, down = np.nextafter(near, dtype(np.inf)), np.nextafter(near, dtype(0))
    return np.concatenate([near, up, down, -near])


def _small_arguments(dtype) -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.concatenate(
        [
            rng.uniform(-10, 10, 40_000),
            rng.uniform(-SMALL_ARGUMENT, SMALL_ARGUMENT, 40_000),
            np.geomspace(1e-30, SMALL_ARGUMENT, 20_000),
            _near_multiples_of_half_pi(np.float64, 20_000),
            [0.0, -0.0, SMALL_ARGUMENT, -SMALL_ARGUMENT, math.pi / 4, np.nan],
        ]
    ).astype(dtype)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float32_small_arguments_are_correctly_rounded(name):
    """The cheap reduction gives float32 results as the exact one: the float64 result
    rounded once (NumPy's float64 loop, rounded, disagrees in the last place at most in
    a handful of halfway cases)."""
    x = _small_arguments(np.float32)
    x = np.concatenate([x, _near_multiples_of_half_pi(np.float32, 20_000)])
    got = _compiled(name)(x)
    want = FUNCTIONS[name][0](x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    ulps = np.abs(got[ok].astype(np.float64) - want[ok]) / np.spacing(np.abs(want[ok])).astype(np.float64)
    assert ulps.max() <= 1.0
    assert np.mean(got[ok] != want[ok]) < 1e-4
    np.testing.assert_array_equal(np.signbit(got[x == 0]), np.signbit(want[x == 0]))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float64_small_arguments_within_an_ulp_of_glibc(name):
    """float64 below 2**20: the rest in double-double, within an ulp of glibc's result
    (0.52 ulp from the exact value measured with mpmath; glibc's own within 1)."""
    x = _small_arguments(np.float64)
    got = _compiled(name)(x)
    finite = ~np.isnan(x)
    ulps = _ulps_from_glibc(got[finite], x[finite], name)
    assert ulps.max() <= 1.0
    assert (ulps > 0).any()  # the cheap path ran: libm's own results would all be glibc's
    assert np.isnan(got[~finite]).all()
    zeros = x == 0
    np.testing.assert_array_equal(got[zeros], FUNCTIONS[name][0](x[zeros]))
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(FUNCTIONS[name][0](x[zeros])))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_large_argument_takes_the_exact_path(name, dtype):
    """One argument of 1e22 (or inf) in a small array: its loop runs the exact reduction,
    whose answer the cheap one would miss; the others' answers stay right (float32: the
    same, both paths correctly rounded; float64: glibc's now, within an ulp)."""
    x = np.linspace(-50, 50, 1001).astype(dtype)
    fn = _compiled(name)
    small = fn(x)
    for big in (1e22, -3e15, np.inf):
        y = x.copy()
        y[500] = big
        got = fn(y)
        if dtype == np.float32:
            np.testing.assert_array_equal(np.delete(got, 500), np.delete(small, 500))
        else:
            assert _ulps_from_glibc(np.delete(got, 500), np.delete(y, 500), name).max() == 0  # libm's own
        want = FUNCTIONS[name][0](np.float64(big)) if np.isfinite(big) else np.nan
        if np.isnan(want):
            assert np.isnan(got[500])
        elif dtype == np.float32:
            assert got[500] == np.float32(FUNCTIONS[name][0](np.float64(np.float32(big))))
        else:
            assert _ulps_from_glibc(got[500:501], y[500:501], name)[0] <= 1.0


def test_the_switch_is_per_tile():
    """A large argument at the end of a long array sends only its own tile down the exact
    path: every element still matches NumPy's float64 result rounded."""
    x = np.random.default_rng(3).uniform(-100, 100, 200_003).astype(np.float32)
    x[-1] = 3e30
    got = compiler.compile(lambda v: np.sin(v) * 2 + np.cos(v * 0.5))(x)
    xd = x.astype(np.float64)
    want = (np.sin(xd).astype(np.float32) * 2) + np.cos(xd * 0.5).astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_reductions_in_place_updates_and_strided_inputs_match_numpy():
    """Loops the pass versions (a reduction's carried sum) and loops it leaves alone (an
    argument read from the buffer the loop writes), on odd layouts."""

    def total(x):
        return np.sin(x).sum(), np.cos(x[::-2]).max()

    def in_place(x, y):
        x[:] = np.tan(x)
        y += np.sin(y * 3.0)
        return x

    rng = np.random.default_rng(4)
    for dtype in (np.float32, np.float64):
        x = rng.uniform(-20, 20, 4097).astype(dtype)
        got_sum, got_max = compiler.compile(total)(x)
        want_sum, want_max = total(x.astype(np.float64))
        np.testing.assert_allclose(got_sum, want_sum, rtol=1e-4 if dtype == np.float32 else 1e-12)
        assert got_max == dtype(want_max) or abs(got_max - want_max) <= 4 * np.spacing(dtype(want_max))
        a, b = x.copy(), x[::3].copy()
        a2, b2 = x.copy(), x[::3].copy()
        compiler.compile(in_place)(a, b)
        in_place(a2, b2)
        np.testing.assert_allclose(a, a2, rtol=2 * np.finfo(dtype).eps)
        np.testing.assert_allclose(b, b2, rtol=4 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).eps)


@pytest.mark.parametrize("shape", [(0,), (1,), (3, 0), (7, 5)])
def test_empty_and_tiny_arrays(shape):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 2.5
    got = compiler.compile(lambda v: np.sin(v) + np.tan(v.T).T)(x)
    np.testing.assert_allclose(got, np.sin(x) + np.tan(x), rtol=1e-15, atol=1e-15)
    assert got.shape == shape


def test_the_optimized_kernel_holds_both_paths_vectorized():
    """The kernel of ``np.sin(x)`` (float64) after LLVM: the scan's compare against 2**20
    and the cheap reduction's loop both on vectors, beside the libm call of the exact
    path."""
    text = optimized_llvm_ir(lambda v: np.sin(v), np.ones(64))
    assert "@llvm.sin." in text  # the exact path: libm, per lane
    assert re.search(r"fcmp ogt <\d+ x double> .*0x4130000000000000", text)
    assert re.search(r"fmul <\d+ x double> .*0x3FF921FB54400000", text)  # k * pi/2's first 33-bit piece


def _same_floats(got, want) -> np.ndarray:
    """Where two results agree bit for bit but for NaN payloads (the sign of zeros too)."""
    got, want = np.asarray(got), np.asarray(want)
    return ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))


def _assert_numpys(fn, compiled, x, y):
    with np.errstate(all="ignore"):  # NumPy's warnings (x % 0), Ember's the same
        want = fn(x, y)
        got = compiled(x, y)
    for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
        bad = ~_same_floats(g, w)
        assert not bad.any(), list(zip(x[bad][:4], y[bad][:4], g[bad][:4], w[bad][:4]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", REMAINDERS)
def test_remainders_in_range_are_numpys_bit_for_bit(name, dtype):
    """Every quotient below 2**mantissa: the fast path only. Dividends that are exact
    multiples of the divisor and one ulp either side (where the rounded quotient is one
    too many), negative ones, random ones; the same bits as NumPy (fmod's result is
    exact, and so is the fused one)."""
    rng = np.random.default_rng(6)
    mantissa = np.finfo(dtype).nmant
    y = (rng.standard_normal(20_000) * 10.0 ** rng.integers(-5, 5, 20_000)).astype(dtype)
    multiple = (rng.integers(1, 2 ** min(mantissa, 40), y.size).astype(dtype) * y).astype(dtype)
    random = (rng.uniform(0, 2.0**mantissa, y.size) * np.abs(y)).astype(dtype)
    x = np.concatenate([multiple, np.nextafter(multiple, dtype(0)), np.nextafter(multiple, dtype(np.inf)), -random])
    y = np.tile(y, 4)
    keep = np.abs(x) <= dtype(2.0**mantissa) * np.abs(y)
    assert keep.mean() > 0.99
    _assert_numpys(REMAINDERS[name], compiler.compile(REMAINDERS[name]), x[keep], y[keep])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", REMAINDERS)
def test_remainders_of_special_values_and_huge_quotients(name, dtype):
    """Every pair of signed zeros, infinities, NaN, the extremes and small integers (the
    out-of-range ones: libm's fmod), and quotients beyond 2**mantissa: NumPy's bits."""
    info = np.finfo(dtype)
    values = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            1,
            -1,
            3,
            2.5,
            -7.25,
            info.tiny,
            -info.smallest_subnormal,
            info.max,
            2.0**60,
        ],
        dtype,
    )
    x, y = (a.ravel() for a in np.meshgrid(values, values))
    _assert_numpys(REMAINDERS[name], compiler.compile(REMAINDERS[name]), x, y)
    rng = np.random.default_rng(8)
    y = rng.uniform(0.1, 10, 2000).astype(dtype)
    x = (rng.uniform(2.0 ** (info.nmant + 1), 2.0 ** (info.nmant + 6), y.size) * y).astype(dtype)
    x[:1000] = rng.uniform(-100, 100, 1000)  # in range, beside them in the loop
    _assert_numpys(REMAINDERS[name], compiler.compile(REMAINDERS[name]), x, y)


def test_the_remainder_kernel_holds_both_paths_vectorized():
    """``x % y`` (float64) after LLVM: the scan's ``|x| > 2**52 |y|`` and the fused
    multiply-adds on vectors, libm's fmod (``frem``) kept for the other loop."""
    text = optimized_llvm_ir(lambda x, y: x % y, np.ones(64), np.ones(64))
    assert re.search(r"fmul <\d+ x double> .*0x4330000000000000", text)
    assert re.search(r"@llvm.fma.v\d+f64", text)
    assert re.search(r"frem <\d+ x double>|@fmod\(", text)


def test_every_op_the_scan_checks_has_a_cheap_lowering():
    """The pass marks the ops of ``FAST_RANGES``; ``ember-expand-math`` lowers the marked
    ops of ``SMALL_ARGUMENT_EXPANSIONS``: one without the other would mark an op nothing
    makes cheap, or leave a cheap lowering no loop reaches."""
    from compiler.passes.expand_math import SMALL_ARGUMENT_EXPANSIONS
    from compiler.passes.fast_paths import FAST_RANGES

    assert set(FAST_RANGES) == set(SMALL_ARGUMENT_EXPANSIONS)
