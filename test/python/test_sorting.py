"""np.sort / x.sort() / np.argsort / x.argsort(), np.median, np.percentile and np.quantile
compiled (``frontend/numpy_sorting.py``, lowered by ``passes/lower_sort.py``) and compared
with NumPy.

Each case compiles one whole graph (``fullgraph=True``; a backend failure warns, and
warnings are errors here) whose results must have NumPy's type (scalar or array), dtype,
shape and values, exactly: a sort moves values without arithmetic, and median/percentile
do NumPy's own arithmetic on the same elements (``-0.0`` is told from ``0.0`` by its sign
bit). ``argsort`` is compared with NumPy's stable order, which is what Ember gives for
every kind (NumPy's default kind leaves the order of ties unspecified).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import compiler

pytestmark = pytest.mark.usefixtures("fresh_compiler")

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64]
SHAPES = [(0,), (1,), (2,), (7,), (8,), (3, 5), (4, 1), (0, 3), (2, 3, 4)]


def data(dtype, shape, seed=0):
    """Values with ties; floats with NaN, inf, -inf, -0.0 and 0.0 at a few places."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "i":
        return rng.integers(-4, 5, shape).astype(dtype)
    x = rng.integers(-6, 7, shape).astype(dtype) / 2
    flat = x.reshape(-1)
    for i, value in zip(rng.permutation(x.size)[:6], (np.nan, np.inf, -np.inf, -0.0, 0.0, np.nan)):
        flat[i] = value
    return x


def run(fn, *args, dynamic=False):
    """``fn(*args)`` compiled into one graph (and NumPy's): (got, want, compiled)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an ember backend failure (fallback to eager) fails the test
        warnings.filterwarnings("ignore", category=RuntimeWarning, message="(Mean of empty|invalid value)")
        c = compiler.compile(fn, fullgraph=True, dynamic=dynamic)
        got = c(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert c.entries[0].graph_module is not None and c.entries[0].fallback_reason is None
    return got, want, c


def same(got, want, signs=True):
    """Equal type, dtype, shape and values (NaN equal to NaN; with ``signs``, -0.0 told
    from 0.0: not for median/percentile, where NumPy's unstable partition picks either)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, signs)
        return
    assert type(got) is type(want), (type(got), type(want))
    assert got.dtype == want.dtype and np.shape(got) == np.shape(want), (got.dtype, want.dtype, np.shape(got))
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f" and signs:
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def axes_of(ndim):
    return [None, *range(ndim), -1] if ndim else [None]


# ----------------------------------------------------------------------------- sort, argsort


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sort_and_argsort_match_numpy(dtype, shape):
    x = data(dtype, shape)
    for axis in axes_of(len(shape)):
        got, want, _ = run(lambda a, axis=axis: (np.sort(a, axis=axis), np.argsort(a, axis=axis, kind="stable")), x)
        same(got[1], want[1])
        same(got[0], np.sort(x, axis=axis, kind="stable"))  # NumPy's SIMD quicksort may swap -0.0 and 0.0
        same(got[0], want[0], signs=False)


@pytest.mark.parametrize("kind", [None, "quicksort", "mergesort", "heapsort", "stable"])
def test_every_kind_gives_the_stable_order(kind):
    x = data(np.float64, (5, 9), seed=3)
    got, want, _ = run(lambda a: (np.sort(a, kind=kind), np.argsort(a, axis=0, kind=kind)), x)
    same(got[0], np.sort(x, kind="stable"))
    same(got[1], np.argsort(x, axis=0, kind="stable"))
    got, _, _ = run(lambda a: a.argsort(stable=True), x)
    same(got, np.argsort(x, kind="stable"))


def test_ties_and_signed_zeros_keep_their_order():
    x = np.array([0.0, -0.0, 1.0, -0.0, 0.0, np.nan, -1.0, np.nan, 1.0])
    got, want, _ = run(lambda a: (np.sort(a, kind="stable"), np.argsort(a, kind="stable")), x)
    same(got, want)
    assert list(got[1]) == [6, 0, 1, 3, 4, 2, 8, 5, 7]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_float_argsort_merges_integer_keys(dtype):
    """A float argsort sorts integer keys of the float's width (-0.0 made 0.0, every NaN
    one NaN, a negative's magnitude bits flipped): the merges compare integers, none of
    the two float compares per step, and the positions are NumPy's stable ones with
    -0.0, 0.0, NaNs of both signs, infinities and subnormals among many ties."""
    from graph_building import loops_of

    width = np.dtype(dtype).itemsize * 8
    x = data(dtype, (6, 40), seed=11)
    x[:, ::5] = np.array([0.0, np.nan, -0.0, -np.nan, -np.inf, np.inf, 1e-40, -1e-40], dtype)
    text = loops_of(lambda a: np.argsort(a, axis=1), x)
    assert re.search(rf"arith\.cmpi slt, %\w+, %\w+ : i{width}", text)
    assert not re.search(r"arith\.cmpf ugt", text)
    got, want, _ = run(lambda a: (np.argsort(a, axis=1, kind="stable"), np.argsort(a, axis=0)), x)
    same(got[0], np.argsort(x, axis=1, kind="stable"))
    same(got[1], np.argsort(x, axis=0, kind="stable"))


def test_non_contiguous_and_negative_strides():
    base = data(np.float64, (6, 10), seed=5)
    for x in (base[::-1], base[:, ::-2], base.T, base[1::2, 3:]):
        for axis in (0, 1, None):
            got, want, _ = run(lambda a, axis=axis: (np.sort(a, axis, "stable"), np.argsort(a, axis, "stable")), x)
            same(got, want)


def test_long_rows_and_many_rows():
    rng = np.random.default_rng(7)
    x = rng.normal(size=1000)
    got, want, _ = run(lambda a: (np.sort(a), np.argsort(a)), x)
    same(got, want)
    y = rng.integers(0, 50, (37, 65)).astype(np.int32)
    got, want, _ = run(lambda a: (np.sort(a, axis=0), a.argsort(axis=0, kind="stable")), y)
    same(got, want)


EXTREMES = {  # keys drawn from these: many ties, and the greatest key (the padding of a short group)
    np.bool_: [False, True],
    np.int8: [-128, -1, 0, 126, 127],
    np.uint8: [0, 1, 254, 255],
    np.int64: [np.iinfo(np.int64).min, -3, 0, 5, np.iinfo(np.int64).max],
    np.float32: [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.0],
    np.float64: [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.0, 5e-324],
}


@pytest.mark.parametrize("dtype", list(EXTREMES), ids=lambda d: np.dtype(d).name)
def test_every_length_around_groups_and_merged_runs(dtype):
    """Lines are sorted in groups of 8 in registers (the last group padded with the
    greatest key, which real keys equal here), then merged from both ends of each pair
    of runs: every length from 1 to 40 and around the merges' powers of two, with keys
    that tie and equal the padding, in NumPy's stable order bit for bit (signs of zeros,
    NaN signs), as one line and as rows; one compile for all lengths past 1. Lines of
    32768 elements and more are sorted in 2-4 parts (the last one shorter) on the
    kernel's threads, then merged: ties across parts keep their order too."""
    rng = np.random.default_rng(21)
    values = np.array(EXTREMES[dtype], dtype=dtype)
    c = None
    for n in [*range(1, 41), 63, 64, 65, 127, 129, 255, 257, 1031, 32768, 65543, 100003]:
        line = rng.choice(values, n)
        rows = rng.choice(values, (3, n))
        for x in (line, rows) if n < 10_000 else (line,):  # a long line: sorted in parts, merged
            if c is None:
                got, want, c = run(lambda a: (np.sort(a, kind="stable"), np.argsort(a, kind="stable")), x, dynamic=True)
            else:
                got = c(x)
                want = (np.sort(x, kind="stable"), np.argsort(x, kind="stable"))
            same(got[1], want[1])
            assert got[0].tobytes() == want[0].tobytes(), n  # NaN's sign too: values moved, not computed
    assert len(c.entries) == 4  # a line and rows, each for length 1 (specialized) and for every other


@pytest.mark.parametrize("threads_used", [1, 2])
def test_lines_are_shared_between_threads(threads_used):
    """The lines along the first other dim are an ``scf.forall`` (each with scratch of its
    own), so the kernel's threads sort different lines: many lines, on one thread and on
    two, in every axis of a 3-d array and of a transposed view, give NumPy's stable order."""
    from graph_building import loops_of

    from runtime import threads

    threads.set_num_threads(threads_used)
    try:
        rng = np.random.default_rng(11)
        x = rng.integers(-50, 50, (37, 9, 41)).astype(np.float64)
        x[3, 4, :7] = np.nan
        for a in (x, x.transpose(2, 0, 1)[::-1]):
            for axis in (0, 1, 2):
                got, want, _ = run(lambda v, axis=axis: (np.sort(v, axis), np.argsort(v, axis, kind="stable")), a)
                same(got, want)
        rows = rng.standard_normal((301, 67)).astype(np.float32)
        got, want, _ = run(lambda v: (np.sort(v, axis=1), np.median(v, axis=1)), rows)
        same(got, want)
    finally:
        threads.set_num_threads(None)
    text = loops_of(lambda v: np.sort(v, axis=1), rows)
    assert text.count("scf.forall") == 1 and "ember_fork" not in text  # the kernel's one parallel loop


def test_zero_d():
    x = np.array(2.5)
    got, want, _ = run(lambda a: (np.sort(a, axis=None), np.argsort(a, axis=None)), x)
    same(got, want)
    c = compiler.compile(lambda a: np.sort(a))
    with pytest.raises(np.exceptions.AxisError):
        c(x)


def test_in_place_sort_on_the_callers_array():
    def f(a, kind=None):
        a.sort(kind=kind)
        return a.sum()

    def g(a, kind=None):
        a[::-1].sort(axis=0, kind=kind)  # through a view: each column ends up descending

    for fn in (f, g):
        for dtype in DTYPES:
            x = data(dtype, (4, 6), seed=2)
            want_arg, got_arg = x.copy(), x.copy()
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                c = compiler.compile(fn, fullgraph=True)
                got = c(got_arg)
            want = fn(want_arg, "stable")  # NumPy's default kind may swap -0.0 and 0.0
            assert c.entries[0].fallback_reason is None
            np.testing.assert_array_equal(got_arg, want_arg)
            np.testing.assert_array_equal(np.signbit(got_arg), np.signbit(want_arg))
            if want is None:
                assert got is None
            else:
                np.testing.assert_array_equal(got, want)  # the sum of the sorted argument
            assert not np.array_equal(x, want_arg)  # the call did sort something


def test_in_place_sort_errors_like_numpy():
    c = compiler.compile(lambda a: a.sort(axis=None))
    with pytest.raises(TypeError):
        c(np.arange(3.0))


def test_sort_kind_errors_like_numpy():
    for kwargs in ({"kind": "bogus"}, {"kind": "stable", "stable": True}, {"kind": 3}):
        with pytest.raises(Exception) as want:
            np.sort(np.arange(3.0), **kwargs)
        c = compiler.compile(lambda a, kwargs=kwargs: np.sort(a, **kwargs))
        with pytest.raises(want.type, match=re.escape(str(want.value))):
            c(np.arange(3.0))


def test_dynamic_sizes_compile_once():
    def f(a):
        return np.sort(a, kind="stable"), np.argsort(a, axis=0, kind="stable"), np.median(a, axis=-1)

    c = None
    for n, m in ((5, 4), (9, 7), (16, 3), (2, 33)):
        x = data(np.float64, (n, m), seed=n)
        got, want, c1 = run(f, x, dynamic=True) if c is None else (c(x), f(x), c)
        same(got[:2], want[:2])
        same(got[2], want[2], signs=False)
        c = c1
    assert len(c.entries) == 1


# ----------------------------------------------------------------------------- median


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1,), (2,), (7,), (8,), (3, 4), (5, 2, 3)], ids=str)
def test_median_matches_numpy(dtype, shape):
    x = data(dtype, shape, seed=11)
    axes = axes_of(len(shape)) + ([(0, -1)] if len(shape) > 1 else [])
    for axis in axes:
        for keepdims in (False, True):
            got, want, _ = run(lambda a, axis=axis, k=keepdims: np.median(a, axis=axis, keepdims=k), x)
            same(got, want, signs=False)


def test_median_and_percentile_partition_instead_of_sorting():
    """``np.median``/``np.percentile`` read a few positions of each sorted line: the graph
    partitions at those (and at the last, where a NaN would be) as NumPy does, ``O(n)`` a
    position, instead of sorting. Lines that are hard for a selection: equal values,
    sorted, reversed, organ pipes, NaN in every line, and long ones."""
    from graph_building import captured_graph

    x = np.random.default_rng(2).standard_normal((6, 40))
    for fn in (lambda a: np.median(a, axis=1), lambda a: np.percentile(a, [5, 95], axis=1)):
        graph = captured_graph(fn, x)
        assert '"ember.partition"' in graph and '"ember.sort"' not in graph, graph
    # more than PARTITION_MAX_POSITIONS positions (three percentiles: seven): one sort is faster
    graph = captured_graph(lambda a: np.percentile(a, [5, 50, 95], axis=1), x)
    assert '"ember.sort"' in graph and '"ember.partition"' not in graph, graph
    n = 1001
    ramp = np.arange(n, dtype=np.float64)
    lines = np.stack(
        [
            np.full(n, 2.5),
            ramp,
            ramp[::-1],
            np.concatenate([ramp[: n // 2], ramp[n // 2 :: -1]])[:n],
            np.where(ramp % 7 == 0, np.nan, ramp),
            np.random.default_rng(3).integers(0, 3, n).astype(np.float64),
        ]
    )
    for a in (lines, lines[:, :-1], lines.T.copy()):
        axis = 0 if a.shape[0] > 6 else 1
        got, want, _ = run(
            lambda v, axis=axis: (np.median(v, axis=axis), np.quantile(v, [0.0, 0.37, 1.0], axis=axis)), a
        )
        same(got, want, signs=False)


def _awkward_lines(n: int) -> dict:
    """Orders a selection's pivot choice can meet badly: sorted either way, up then down
    (organ pipe), a sawtooth, few distinct values, all equal, the extreme in the middle."""
    rng = np.random.default_rng(n)
    up = np.arange(n, dtype=np.float64)
    middle_low = rng.standard_normal(n)
    middle_low[n // 2] = -1e9
    return {
        "sorted": up,
        "reversed": up[::-1].copy(),
        "organ_pipe": np.concatenate([up[: n // 2], up[n // 2 :][::-1]]),
        "sawtooth": up % 97,
        "few_values": rng.integers(0, 4, n).astype(np.float64),
        "all_equal": np.full(n, 2.5),
        "middle_low": middle_low,
        "nan_tail": np.concatenate([rng.standard_normal(max(n - 3, 0)), [np.nan, 1.0, np.nan]]),
    }


@pytest.mark.parametrize("n", [2, 3, 7, 64, 200_001])
def test_median_and_percentiles_of_awkward_orders(n):
    """Each round of the selection shrinks the range (the pivot's equals are never empty),
    and its median-of-three pivot halves sorted and organ-pipe lines: NumPy's values
    for every order, quickly enough at 200k elements that a quadratic round would not
    finish within the test's time."""
    fn = lambda v: (np.median(v), np.percentile(v, [0, 13, 50, 99.5, 100]))  # noqa: E731
    compiled = compiler.compile(fn)
    for name, line in _awkward_lines(n).items():
        for got, want in zip(compiled(line), fn(line)):
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_median_nan_slices_and_empty():
    x = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 1.0, 2.0, 3.0], [np.nan] * 4])
    got, want, _ = run(lambda a: (np.median(a, axis=1), np.median(a), np.median(a.T, axis=0)), x)
    same(got, want, signs=False)
    got, want, _ = run(lambda a: np.median(a), np.zeros(0))
    same(got, want, signs=False)
    got, want, _ = run(lambda a: np.median(a), np.array(3, dtype=np.int32))
    same(got, want, signs=False)


def test_median_dynamic_parity_chosen_at_run_time():
    f = lambda a: np.median(a, axis=0)  # noqa: E731
    c = compiler.compile(f, fullgraph=True, dynamic=True)
    for n in (4, 5, 10, 11):
        for dtype in (np.float32, np.int64, np.bool_):
            x = data(dtype, (n, 3), seed=n)
            same(c(x), f(x), signs=False)


# ----------------------------------------------------------------------------- percentile, quantile


METHODS = [
    "linear",
    "lower",
    "higher",
    "midpoint",
    "nearest",
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_percentile_and_quantile_match_numpy(dtype):
    x = data(dtype, (5, 6), seed=21)
    cases = [
        lambda a: np.percentile(a, 50),
        lambda a: np.percentile(a, 37.5, axis=0),
        lambda a: np.percentile(a, [0, 10, 99.9, 100], axis=1),
        lambda a: np.percentile(a, (25, 75), axis=(0, 1), keepdims=True),
        lambda a: np.quantile(a, 0.3, axis=-1, keepdims=True),
        lambda a: np.quantile(a, [0.5], axis=0),
        lambda a: np.quantile(a, 1),
        lambda a: np.quantile(a, (0.1, 0.9), axis=1),
    ]
    for case in cases:
        got, want, _ = run(case, x)
        same(got, want, signs=False)


@pytest.mark.parametrize("method", METHODS)
def test_percentile_methods(method):
    for n in (1, 2, 5, 10):
        x = data(np.float64, (n, 3), seed=n)
        got, want, _ = run(lambda a: np.percentile(a, [0, 3, 33, 50, 66.6, 100], axis=0, method=method), x)
        same(got, want, signs=False)
        got, want, _ = run(lambda a: np.quantile(a.astype(np.float32), 0.4, axis=0, method=method), x)
        same(got, want, signs=False)


def test_percentile_errors_like_numpy():
    x = np.arange(6.0)
    for fn in (
        lambda a: np.percentile(a, 101),
        lambda a: np.quantile(a, [0.5, -0.1]),
        lambda a: np.percentile(a, 5, method="bogus"),
        lambda a: np.percentile(a > 2, 50),  # boolean subtract
        lambda a: np.percentile(a, 50, axis=2),
    ):
        with pytest.raises(Exception) as want:
            fn(x)
        c = compiler.compile(fn)
        with pytest.raises(want.type, match=re.escape(str(want.value))):
            c(x)


def test_percentile_symbolic_size_is_specialized_not_wrong():
    f = lambda a: np.percentile(a, [20, 80], axis=0)  # noqa: E731
    c = compiler.compile(f, dynamic=True)
    for n in (5, 8, 5):
        x = data(np.float64, (n, 2), seed=n)
        same(c(x), f(x), signs=False)


def test_quantiles_at_a_linspace_of_the_function():
    """``q`` made in the function by ``np.linspace`` of numbers is a constant of the graph
    (NumPy's own values, computed while tracing), which the quantile reads: no break."""
    x = np.random.default_rng(5).standard_normal(1000)

    def deciles(x):
        return np.quantile(x, np.linspace(0.0, 1.0, 11))[1:-1], np.percentile(x, np.linspace(10, 90, 3))

    compiled = compiler.compile(deciles, options={"strict": True})
    for got, want in zip(compiled(x), deciles(x), strict=True):
        np.testing.assert_array_equal(got, want)
    assert compiler.explain(deciles)(x).graph_break_count == 0
