"""np.searchsorted, np.digitize and np.isin (``numpy_searching.py``) against NumPy:
insertion points by counting in a sorted array, NumPy's sort order (NaN last), the
promoted comparison dtype, unsorted or non-monotonic arrays sent to CPython by the
run-time check, and the breaks for what stays NumPy's."""

import numpy as np
import pytest
from test_advanced_indexing import check

import compiler

RNG = np.random.default_rng(12)
SORTED = {
    "float64": np.sort(RNG.standard_normal(50)),
    "float32": np.sort(RNG.standard_normal(40)).astype(np.float32),
    "int64 with repeats": np.sort(RNG.integers(-20, 20, 30)),
    "uint8": np.sort(RNG.integers(0, 256, 20)).astype(np.uint8),
    "NaN last": np.array([-np.inf, 1.0, 2.0, 2.0, np.inf, np.nan, np.nan]),
    "one": np.array([0.5]),
    "empty": np.zeros(0),
}
VALUES = {
    "float64": RNG.standard_normal((20, 30)),
    "int": RNG.integers(-25, 25, 100),
    "special": np.array([np.nan, np.inf, -np.inf, 2.0, 1.0, -0.0, 0.0]),
    "float32": RNG.standard_normal(64).astype(np.float32),
}


@pytest.mark.parametrize("values", list(VALUES))
@pytest.mark.parametrize("array", list(SORTED))
def test_searchsorted_both_sides(array, values):
    a, v = SORTED[array], VALUES[values]
    check(lambda a, v: (np.searchsorted(a, v), np.searchsorted(a, v, side="right"), a.searchsorted(v[0])), a, v)
    check(lambda a: np.searchsorted(a, 2.5), a)  # a Python float: as NumPy arrays it, float64


def test_searchsorted_unsorted_and_unsupported():
    a = SORTED["float64"]
    check(lambda a, v: np.searchsorted(a[::-1], v), a, VALUES["float64"])  # unsorted: CPython's answer
    check(lambda a, v: np.searchsorted(a, v, sorter=np.arange(len(a))), a, VALUES["float64"], compiled="sorter=")
    check(lambda a, v: np.searchsorted(a, v, side="middle"), a, VALUES["float64"])  # ValueError
    long = np.sort(RNG.standard_normal(1000))
    check(lambda a, v: np.searchsorted(a, v), long, VALUES["float64"], compiled="more than 256")


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize(
    "bins",
    [np.linspace(-2, 2, 9), np.linspace(2, -2, 9), np.array([0.0, 0.0, 1.0]), np.full(4, 0.5), np.array([1.5])],
    ids=["increasing", "decreasing", "repeated", "constant", "one"],
)
def test_digitize(bins, right):
    x = np.concatenate([VALUES["float64"].ravel(), VALUES["special"], bins])
    check(lambda x, b: np.digitize(x, b, right=right), x, bins)
    check(lambda x, b: np.digitize(x[3], b, right), x, bins)  # a NumPy scalar's bin
    check(lambda x, b: np.digitize(x.astype(np.int32), b, right), x[np.isfinite(x)], bins)


def test_digitize_errors():
    x = VALUES["float64"]
    check(lambda x: np.digitize(x, np.array([3.0, 1.0, 2.0])), x)  # ValueError, while tracing
    check(lambda x, b: np.digitize(x, b), x, np.array([3.0, 1.0, 2.0]))  # ValueError, at run time
    check(lambda x, b: np.digitize(x, b), x, np.array([1.0, np.nan, 2.0]))  # NumPy's own order: CPython
    check(lambda x: np.digitize(x + 1j, [0.0, 1.0]), x)  # TypeError


def test_isin():
    x, i = VALUES["float64"], VALUES["int"]
    check(lambda x: np.isin(x, [x[0, 0], 0.5, -1.0]), x, compiled="computed while tracing")
    check(lambda x: np.isin(x, np.array([x[0, 1], 0.5])), x)  # an array of the function's: its elements
    check(lambda i: (np.isin(i, [1, 2, 3.0]), np.isin(i, (7, -3), invert=True), np.isin(i, [])), i)
    check(lambda x: np.isin(x, np.array([np.nan, 0.5])), VALUES["special"])  # NaN is never found
    check(lambda i: np.isin(3, [3]), i)  # a 0-d array, as NumPy's
    check(lambda x: np.isin(x, [1.5], kind="table"), x)  # ValueError
    check(lambda i: np.isin(i, list(range(100))), i, compiled="more than 64")
    check(lambda i: np.isin(i, np.arange(20)), i, compiled="more than 16")


INTERP_X = np.concatenate([RNG.uniform(-4, 4, 300), [np.nan, np.inf, -np.inf, -0.0, 0.0, 3.0, -3.0]])


@pytest.mark.parametrize(
    "points",
    [
        (np.sort(RNG.uniform(-3, 3, 20)), RNG.standard_normal(20)),
        (np.array([0.0, 1.0, 1.0, 2.0, 3.0, 3.0]), np.array([0.0, 1.0, 5.0, np.inf, -np.inf, 2.0])),
        (np.array([-3.0, 3.0]), np.array([1e308, -1e308])),
        (np.array([-1.0, 0.0, 1.0, 2.0]), np.array([np.inf, 1.0, np.inf, np.inf])),  # NaN one way; both, flat
        (np.array([0.5]), np.array([7.0])),
        (np.linspace(-3, 3, 256), np.sin(np.linspace(-3, 3, 256))),
    ],
    ids=["random", "repeated points, infinities", "overflowing slope", "infinite ends", "one point", "256 points"],
)
def test_interp(points):
    """NumPy's C loop step for step, bit for bit: the interval by counting, the line from
    either end where one gives NaN, exact at the points and the last, left/right outside,
    NaN for NaN (one point: fp's, as NumPy's)."""
    xp, fp = points
    x = np.concatenate([INTERP_X, xp])
    check(lambda x, xp, fp: np.interp(x, xp, fp), x, xp, fp)
    check(lambda x, xp, fp: np.interp(x, xp, fp, left=-1.0, right=np.nan), x, xp, fp)
    check(lambda x, xp, fp: np.interp(x[0], xp.astype(np.float32), fp), x, xp, fp)  # a NumPy float64
    got, want = compiler.compile(lambda x, xp, fp: np.interp(x, xp, fp))(x, xp, fp), np.interp(x, xp, fp)
    assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.filterwarnings("ignore:invalid value encountered in remainder")  # NumPy's period= of inf
def test_interp_errors_and_breaks():
    x, xp, fp = INTERP_X, np.sort(RNG.uniform(-3, 3, 20)), RNG.standard_normal(20)
    check(lambda x, xp, fp: np.interp(x, xp[::-1], fp), x, xp, fp)  # decreasing: CPython's answer
    check(lambda x, xp, fp: np.interp(x, xp, fp[:5]), x, xp, fp)  # ValueError
    check(lambda x, xp, fp: np.interp(x, xp[:0], fp[:0]), x, xp, fp)  # ValueError: empty
    check(lambda x, xp, fp: np.interp(x, xp, fp, period=2.0), x, xp, fp, compiled="period=")
    check(lambda x, xp, fp: np.interp(x, xp, fp + 1j), x, xp, fp, compiled="complex")
