"""``x ** c`` and ``np.power(x, c)`` with a constant scalar exponent: strength-reduced
(multiplications, ``sqrt``) where NumPy's answer allows, and equal to NumPy on the
values where ``powf`` and NumPy's scalar fast paths differ (``-0.0 ** 0.5``,
``-inf ** 0.5``)."""

import warnings

import numpy as np
import pytest

import compiler
from compiler.backends import EagerGraph
from compiler.passes.pass_manager import run_pipeline

EDGES = [-0.0, 0.0, -np.inf, np.inf, np.nan, -1.0, 1.0, 2.5, -3.25, 1e-30, 7e15, 1e200]
EXPONENTS = [0.5, 0.0, 1.0, 2.0, 3.0, 4.0, -1.0, -2.0, -3.0, -4.0, -0.5, 1.5, -1.5, 5.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("exponent", EXPONENTS)
@pytest.mark.parametrize("spelling", ["operator", "ufunc"])
def test_constant_exponents_match_numpy(dtype, exponent, spelling):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.array(EDGES, dtype)
    fn = (lambda x: x**exponent) if spelling == "operator" else (lambda x: np.power(x, exponent))
    with np.errstate(all="ignore"):
        want = fn(x.copy())
        got = compiler.compile(fn, options={"strict": True})(x.copy())
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(want[finite]))  # -0.0 and -inf included
    rtol = {np.float64: 4e-16, np.float32: 2e-7, np.float16: 1e-3}[dtype]
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol)


def _lowered(fn, x) -> str:
    modules = []
    compiler.compile(fn, backend=lambda m, ex: modules.append(m) or EagerGraph(m))(x)
    module = modules[0]
    run_pipeline(module, "builtin.module(ember-to-linalg)")
    return str(module)


@pytest.mark.parametrize("exponent", [2, 3, 4, -1, 0, 0.5, 2.0, 1.5, -1.5, -0.5])
def test_small_constant_powers_need_no_powf(exponent):
    text = _lowered(lambda x: np.power(x, exponent) + x**exponent, np.ones(5, np.float32))
    assert "math.powf" not in text


def test_other_exponents_keep_powf():
    assert "math.powf" in _lowered(lambda x: x**2.5, np.ones(5))
    assert "math.powf" in _lowered(lambda x: x**-3, np.ones(5))  # 1 / x**3 could overflow to 0
    assert "math.sqrt" not in _lowered(lambda x: np.power(x, np.full(5, 0.5)), np.ones(5))  # not NumPy's fast path


def test_an_array_of_halves_is_not_the_scalar_fast_path():
    x = np.array([-0.0, -np.inf, 4.0])
    with np.errstate(all="ignore"):
        want = np.power(x, np.full(3, 0.5))
        got = compiler.compile(lambda x: np.power(x, np.full(3, 0.5)), options={"strict": True})(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
