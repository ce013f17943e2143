"""Float32 division by a loop invariant as a float64 multiplication
(``ember-invariant-division``): NumPy's quotient bit for bit.

The argument for exactness is in the pass's docstring; these tests check it where it
could fail: every significand of the dividend against divisors whose reciprocals round
badly (all-ones significands, 3, 7, 0.1), quotients in the subnormals and past the
largest float, and the special values of both operands. Each runs twice: with the
rewrite (hosts that divide slowly) and without (AMD Zen, where the division stays),
whichever this host is.
"""

from __future__ import annotations

import numpy as np
import pytest
from graph_building import loops_of

import compiler
from compiler.passes import invariant_division

pytestmark = pytest.mark.usefixtures("fresh_compiler")


@pytest.fixture(params=["multiplied", "divided"])
def division(request, monkeypatch):
    """The host's division taken as slow (the rewrite made) or fast (the division kept).
    The disk cache is off, so neither way's object code is found under the other's key."""
    monkeypatch.setattr(invariant_division, "fast_float32_division", lambda: request.param == "divided")
    monkeypatch.setenv("EMBER_CACHE_DIR", "off")
    return request.param


def divide(x, s):
    return x / s


def _every_significand() -> np.ndarray:
    """All 2**23 float32 values in [1, 2)."""
    return (np.arange(1 << 23, dtype=np.uint32) | np.uint32(0x3F800000)).view(np.float32)


def _assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype == np.float32
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    if not same.all():
        k = np.flatnonzero(~same)[:5]
        raise AssertionError(f"{(~same).sum()} quotients differ, e.g. {got[k]} against NumPy's {want[k]}")


DIVISORS = [3.0, 7.0, 0.1, 1.9999999, 1.5, 1.0000001, 3.4e38, 1.2e-38, 1e-40, -2.7]


@pytest.mark.parametrize("divisor", DIVISORS)
def test_every_significand_is_numpys_quotient(divisor, division):
    x = _every_significand().reshape(2, -1)
    s = np.full((2, 1), divisor, np.float32)
    compiled = compiler.compile(divide)
    _assert_same_bits(compiled(x, s), x / s)


@pytest.mark.parametrize("scale", [2.0**-120, 2.0**-140, 2.0**100, 2.0**127])
def test_quotients_in_the_subnormals_and_past_the_largest_float(scale, division):
    """Dividends scaled so that quotients by 3, 7 and 1e5 land in the subnormals, or
    near and past float32's largest value (where the float64 product must still round
    to infinity exactly when the division does)."""
    x = (_every_significand()[::7] * np.float32(scale)).astype(np.float32).reshape(1, -1)
    for divisor in (3.0, 7.0, 1e5, 1e-5, 0.5000001):
        s = np.full((1, 1), divisor, np.float32)
        with np.errstate(all="ignore"):
            want = x / s
        _assert_same_bits(compiler.compile(divide)(x, s), want)


def test_special_values_of_both_operands(division):
    special = np.array(
        [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 3.4e38, 1.17549435e-38, 2.5, -7.0],
        np.float32,
    )
    x = np.tile(special, (special.size, 1))
    s = special.reshape(-1, 1)
    with np.errstate(all="ignore"):
        want = x / s
    _assert_same_bits(compiler.compile(divide)(x, s), want)


def _f32_divisions(text: str) -> list:
    return [line for line in text.splitlines() if "arith.divf" in line and line.rstrip().endswith(": f32")]


def test_a_row_divided_by_its_total_becomes_a_multiply(monkeypatch):
    """softmax's ``e / e.sum(-1, keepdims=True)`` on a host that divides slowly: the loop
    multiplies in float64 and rounds, with no float32 division left; ``x / y`` of two
    arrays keeps its division."""
    monkeypatch.setattr(invariant_division, "fast_float32_division", lambda: False)

    def softmax(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    x = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    text = loops_of(softmax, x)
    assert "arith.truncf" in text and "f64" in text
    assert not _f32_divisions(text)
    assert _f32_divisions(loops_of(divide, x, x + 3))
    np.testing.assert_allclose(compiler.compile(softmax)(x), softmax(x), rtol=1e-6)


def test_a_host_that_divides_quickly_keeps_the_division(monkeypatch):
    """On AMD Zen the division is the faster way (the layer norm's loop 1.35x): nothing is
    rewritten, and the default follows the CPU name LLVM reports."""
    from runtime import target

    for cpu, fast in (("znver4", True), ("znver3", True), ("skylake-avx512", False), ("sapphirerapids", False)):
        monkeypatch.setattr(
            target, "host_target", lambda cpu=cpu: target.HostTarget("x86_64-unknown-linux-gnu", cpu, "")
        )
        assert target.fast_float32_division() is fast, cpu
    monkeypatch.undo()
    monkeypatch.setattr(invariant_division, "fast_float32_division", lambda: True)
    x = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    text = loops_of(lambda x: x / np.sqrt((x * x).sum(-1, keepdims=True)), x)
    assert _f32_divisions(text) and "f64" not in text
