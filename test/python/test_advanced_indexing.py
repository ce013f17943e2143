"""NumPy's advanced indexing compiled (``frontend/numpy_indexing.py``, ``ember.gather`` /
``ember.scatter``, ``passes/lower_indexing.py``), differential against NumPy.

Every case runs the function in NumPy on copies of the arguments and compiled on other
copies (a first, tracing call and a cached call) and compares the return value (type,
dtype, shape, values), the exception NumPy raises (type and message), every argument
afterwards, and whether a returned array shares memory with an argument (advanced
indexing makes copies). Cases meant to compile also check that they did, as one graph
without a break; cases meant to break check that the reason says why.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import compiler
from compiler.dialects import interpreter, ops
from compiler.passes import lower_indexing

pytestmark = pytest.mark.usefixtures("fresh_compiler")

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]


# ----------------------------------------------------------------------------- helpers


def _copy(x):
    if isinstance(x, np.ndarray):
        if x.base is not None and isinstance(x.base, np.ndarray):  # keep the layout of a view
            base = x.base.copy()
            offset = x.__array_interface__["data"][0] - x.base.__array_interface__["data"][0]
            flat = base.reshape(-1)[offset // x.itemsize :] if base.size else base
            return np.lib.stride_tricks.as_strided(flat, x.shape, x.strides)
        return x.copy()
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(i) for i in x)
    return x


def _same(got, want, path="result"):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{path}: {got!r} vs {want!r}"
        for k, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{k}]")
        return
    assert type(got) is type(want), f"{path}: type {type(got).__name__} vs NumPy's {type(want).__name__}"
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} vs {want.dtype}"
        assert np.shape(got) == np.shape(want), f"{path}: shape {np.shape(got)} vs {np.shape(want)}"
        if want.dtype.kind == "f":
            tol = 1e-5 if want.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(got, want, err_msg=path)
    else:
        assert got == want or (got != got and want != want), f"{path}: {got!r} vs {want!r}"


def _sharing(result, args) -> list:
    results = result if isinstance(result, tuple) else (result,)
    return [
        [isinstance(r, np.ndarray) and isinstance(a, np.ndarray) and np.shares_memory(r, a) for a in args]
        for r in results
    ]


def _run(fn, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(*args), None
    except Exception as e:  # NumPy's error is part of the answer
        return None, e


def check(fn, *args, compiled=True, dynamic=None, backend="cpu", calls=2):
    """``fn(*args)`` compiled equals NumPy's, arguments included; ``compiled``: one graph,
    no break (a str: a break whose reason contains it)."""
    cfn = compiler.compile(fn, dynamic=dynamic, backend=backend, options={"strict": True})  # no silent eager fallback
    for _ in range(calls):
        np_args, em_args = _copy(args), _copy(args)
        want, want_error = _run(fn, np_args)
        got, got_error = _run(cfn, em_args)
        if want_error is not None:
            assert got_error is not None, f"NumPy raised {want_error!r}, compiled returned {got!r}"
            assert type(got_error) is type(want_error) and str(got_error) == str(want_error)
        else:
            assert got_error is None, f"compiled raised {got_error!r}"
            _same(got, want)
            # views as NumPy's: a gathered result is a copy, a returned argument itself
            assert _sharing(got, em_args) == _sharing(want, np_args), "views differ from NumPy's"
        for k, (g, w) in enumerate(zip(em_args, np_args)):
            if isinstance(w, np.ndarray):
                _same(g, w, f"argument {k}")
    if compiled is not None:
        try:
            explained = compiler.explain(fn)(*_copy(args))
        except Exception as e:
            if want_error is None or type(e) is not type(want_error):
                raise
            return cfn  # the error NumPy raises (checked above)
        if compiled is True:
            assert explained.graph_break_count == 0, explained.break_reasons
            assert explained.graph_count == 1
        else:
            reasons = " ".join(str(r) for r in explained.break_reasons)
            assert explained.graph_break_count >= 1 and compiled in reasons, reasons
    return cfn


def _data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    return (rng.standard_normal(shape) * 10).astype(dtype)


# ----------------------------------------------------------------------------- gather


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_gather_dtypes(dtype, index_dtype):
    def f(x, i):
        return x[i], x[i, 1:]

    x = _data(dtype, (5, 3))
    check(f, x, np.array([[0, -1], [4, 2], [2, 2]], index_dtype))


@pytest.mark.parametrize(
    "index",
    [
        "x[i, j]",
        "x[i, :, j]",
        "x[:, i, j]",
        "x[0, :, i]",
        "x[..., i]",
        "x[i, ...]",
        "x[None, i]",
        "x[i, None, j]",
        "x[1:, i][::-1]",
        "x[::-1, i, ::2]",
        "x[[0, 2]]",
        "x[[[0], [1]], [0, 2, -1]]",
        "x[[True, False, True]]",
        "x[i, ..., j]",
        "x[-1, i, 1:3]",
    ],
)
def test_gather_index_forms(index):
    f = eval(f"lambda x, i, j: {index}")
    x = np.arange(3 * 4 * 5, dtype=np.float64).reshape(3, 4, 5)
    check(f, x, np.array([[2], [-1]]), np.array([0, 3, 1]))


def test_gather_views_and_strides():
    def f(x, i):
        return x[i], x.T[i % 3], x[::2][i % 2]

    base = np.arange(40.0).reshape(8, 5)
    idx = np.array([3, 0, -2, 1, 4, 4])
    check(f, base[::-1, ::2], idx[::-1])
    check(f, base[1::2], idx[::2])


def test_gather_zero_d_and_sizes():
    def f(x, i):
        return x[i]

    check(f, np.arange(5.0), np.array(3))  # a 0-d index: a NumPy scalar, as x[3]
    check(f, np.arange(6).reshape(2, 3), np.array(-1))
    check(f, np.arange(5.0), np.array([], dtype=np.int64))
    check(f, np.zeros((0, 3)), np.array([], dtype=np.int64))
    check(f, np.arange(1.0), np.array([0, 0, -1]))
    check(f, np.arange(4.0).reshape(4, 1), np.array([[1]]))


def test_numpy_integer_scalar_index_is_a_view():
    """``x[np.argmax(y)]`` of a 2-d ``x``: a NumPy integer is basic indexing, a view at
    an offset only the data knows (a gather step of the mutation model): reads, writes
    through it (a scatter) and writes of its base compile; returning it (the entry would
    have to rebuild the view in Python) runs in CPython."""

    def read(x, y):
        return x[np.argmax(y)] * 2, x[np.argmax(y), np.argmin(y)], x[0][np.argmax(y)]

    def write_through(x, y):
        row = x[np.argmax(y)]
        row[0] = 5.0
        return x

    def write_base(x, y):
        row = x[np.argmax(y)]
        x += 1
        return row.sum()

    def returned(x, y):
        return x[np.argmax(y)]

    x, y = np.arange(12.0).reshape(3, 4), np.array([0.0, 5.0, 1.0])
    check(read, x, y)
    check(write_through, x, y)
    check(write_base, x, y)
    check(returned, x, y, compiled="only the data knows")


def test_gather_out_of_bounds_raises_numpys_error():
    def f(x, i):
        y = x[i]
        x[0] = 100.0  # a write after the bad index: NumPy never gets there
        return y

    check(f, np.arange(5.0), np.array([0, 5]))
    check(f, np.arange(5.0), np.array([-6, 1]))
    check(f, np.arange(5.0), np.array([1, 2]))


def test_out_of_bounds_after_a_write_keeps_numpys_state():
    def f(x, i):
        x += 1  # NumPy has done this when x[i] raises
        x[i] = 0.0
        return x

    check(f, np.arange(5.0), np.array([1, 9]))
    check(f, np.arange(5.0), np.array([1, -2]))


def test_failed_check_reruns_with_the_callers_arguments():
    """The entry passes its parameters on unchanged (``*args``, keywords, defaults)."""

    def f(x, *rest, scale=2.0, **kw):
        return x[rest[0]] * scale + kw.get("b", 0)

    cfn = compiler.compile(f)
    x = np.arange(5.0)
    _same(cfn(x, np.array([1, -2]), scale=3.0, b=1), f(x, np.array([1, -2]), scale=3.0, b=1))
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 5"):
        cfn(x, np.array([1, 9]), scale=3.0, b=1)
    with pytest.raises(IndexError, match="index -6 is out of bounds"):
        cfn(x, np.array([-6]))
    assert len(cfn.entries) >= 1 and all(e.graph_module is not None for e in cfn.entries)


def test_static_out_of_bounds_and_bad_indices():
    check(lambda x: x[[0, 7]], np.arange(5.0), compiled=None)
    check(lambda x, i: x[i], np.arange(5.0), np.array([0.5]), compiled=None)
    check(lambda x, i, j: x[i, j], np.ones((3, 3)), np.array([0, 1]), np.array([0, 1, 2]), compiled=None)
    check(lambda x: x[[True, False]], np.arange(3.0), compiled=None)


def test_gather_dynamic():
    def f(x, i, j):
        return x[i] * 2, x[i, j], x[:, j]

    cfn = check(f, np.arange(20.0).reshape(5, 4), np.array([4, -1, 2]), np.array([0, 3, 1]), dynamic=True)
    x, i, j = np.arange(42.0).reshape(7, 6), np.array([6, 0, -7, 2, 2]), np.array([5, -6, 0, 1, 3])
    _same(cfn(x, i, j), f(x, i, j))
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 7"):
        cfn(x, np.array([0, 7, 1, 2, 3]), j)
    assert len(cfn.entries) == 1


# ----------------------------------------------------------------------------- scatter


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_scatter_dtypes(dtype, index_dtype):
    def f(x, i, v):
        x[i] = v
        return x.sum(dtype=np.float64)

    x = _data(dtype, (6,))
    check(f, x, np.array([1, -1, 3, 1], index_dtype), _data(dtype, (4,), seed=1))


def test_scatter_duplicates_last_write_wins():
    def assign(x, i, v):
        x[i] = v

    def add(x, i, v):
        x[i] += v

    i = np.array([2, 0, 2, -4, 2])
    check(assign, np.zeros(4), i, np.arange(5.0) + 1)
    check(add, np.zeros(4), i, np.arange(5.0) + 1)
    check(add, np.arange(12).reshape(3, 4), np.array([0, 0, 1]), np.array([1, 2, 3, 4]))


@pytest.mark.parametrize(
    "statement",
    [
        "x[i] = 7",
        "x[i] = v[0]",
        "x[i, j] = 1.5",
        "x[i, 1:] = -1",
        "x[:, j] = v[:, :1]",
        "x[i, :, ...] *= 2",
        "x[1:][i % 2] = 9",
        "x[::-1][i] = 3",
        "x.T[j, i[0]] = 4",
        "x[[0, 2], [1, 1]] += 10",
        "x[i] = v[: len(i)]",
    ],
)
def test_scatter_forms(statement):
    ns = {}
    exec(f"def f(x, i, j, v):\n    {statement}\n    return x", ns)
    f = ns["f"]
    x = np.arange(12.0).reshape(3, 4)
    check(f, x, np.array([2, -1]), np.array([0, 3]), np.arange(12.0).reshape(3, 4) - 100)


def test_scatter_into_view_of_argument_and_non_contiguous():
    def f(x, i, v):
        y = x[:, 1]
        y[i] = v
        return y.sum()

    base = np.arange(30.0).reshape(5, 6)
    check(f, base[::-1, ::2], np.array([0, 4, -1]), np.array([1.0, 2.0, 3.0]))


def test_scatter_converts_values_as_numpy():
    def f(x, i):
        x[i] = 2.7  # a float into an int array: truncated, as NumPy converts
        return x

    check(f, np.arange(5), np.array([0, 3]))


def test_scatter_zero_d_and_empty():
    def f(x, i, v):
        x[i] = v
        return x

    check(f, np.arange(5.0), np.array(2), 9.0)
    check(f, np.arange(5.0), np.array([], dtype=np.int64), 9.0)
    check(f, np.arange(1.0), np.array([0, -1]), np.array([3.0, 4.0]))


def test_scatter_out_of_bounds_leaves_the_array():
    def f(x, i, v):
        x[i] = v
        return x

    check(f, np.arange(5.0), np.array([1, 5]), np.array([8.0, 9.0]))
    check(f, np.arange(5.0), np.array([1, -6]), 0.0)


def test_scatter_value_shape_mismatch_is_numpys_error():
    def f(x, i, v):
        x[i] = v

    check(f, np.arange(5.0), np.array([1, 2]), np.array([1.0, 2.0, 3.0]), compiled=None)


def test_scatter_dynamic():
    def f(x, i, v):
        x[i] += v
        return x

    cfn = check(f, np.arange(8.0), np.array([1, 1, -1]), np.array([1.0, 2.0, 3.0]), dynamic=True)
    x = np.arange(11.0)
    want = x.copy()
    f(want, np.array([0, 10, 10, 3]), np.array([1.0, 2.0, 3.0, 4.0]))
    cfn(x, np.array([0, 10, 10, 3]), np.array([1.0, 2.0, 3.0, 4.0]))
    _same(x, want)
    assert len(cfn.entries) == 1


# ----------------------------------------------------------------------------- boolean masks


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_reductions(dtype):
    def f(x, m):
        return x[m].sum(), np.sum(x[m]), x[m].max(), x[m].min(), x[m].any(), x[m].all(), np.count_nonzero(x[m])

    def g(x, m):
        return len(x[m]), x[m].size, x[m].mean() if x.dtype != np.bool_ else x[m].sum()

    x = _data(dtype, (4, 5))
    check(f, x, _data(np.bool_, (4, 5), seed=3))
    check(f, x, _data(np.bool_, (4,), seed=4) | np.array([True, False, False, False]))
    check(g, x, _data(np.bool_, (4,), seed=5))
    check(g, x, np.zeros((4, 5), bool))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_masked_reductions_over_selected_rows(dtype):
    def f(x, labels, k):
        rows = x[labels == k]
        return rows.mean(axis=0), rows.sum(axis=0), rows.max(axis=0), rows.any(axis=0), np.sum(rows, axis=(0,))

    x = _data(dtype, (10, 3))
    labels = np.arange(10) % 3
    check(f, x, labels, 1)
    check(f, x, labels, 7)  # no row: max raises NumPy's ValueError
    check(lambda x, m: x[m].mean(axis=1), x, labels > 0, compiled="depends on the data")


def test_masked_max_of_nothing_is_numpys_error():
    def f(x, m):
        return x[m].max()

    check(f, np.arange(5.0), np.zeros(5, bool))
    check(f, np.arange(5.0), np.arange(5) == 2)


def test_masked_arithmetic_then_reduce():
    def f(x, t):
        return ((x[x > t] - t) ** 2).sum(), (2 * x[x < t]).mean(), -x[x > t].min()

    check(f, np.linspace(-3, 3, 13), 0.5)


def test_masked_writes():
    def scalar(x, t):
        x[x > t] = t
        x[x < -t] -= 1
        return x

    def rows(x, m, v):
        x[m] = v
        return x

    def same_mask(x, y, m):
        x[m] = y[m] * 2 + 1
        return x

    def compound(x, m):
        x[m] *= 3
        x[m] += 1

    check(scalar, np.linspace(-4, 4, 17).astype(np.float32), 2.0)
    check(rows, np.arange(12).reshape(3, 4), np.array([True, False, True]), np.array([7, 8, 9, 10]))
    check(rows, np.arange(12).reshape(3, 4), np.array([True, False, True]), 5)
    check(same_mask, np.zeros((3, 4)), np.arange(12.0).reshape(3, 4), np.arange(12).reshape(3, 4) % 3 == 0)
    check(compound, np.arange(6), np.array([1, 0, 1, 1, 0, 0], bool))

    def two_masks(x, y):
        x[x > 0] = -x[x > 0]  # two masks the trace cannot tell equal: checked equal at run time
        x[x < -1] = y[y < -1]
        return x

    x = np.arange(-3.0, 4.0)
    check(two_masks, x, x.copy())
    check(two_masks, x, x[::-1].copy())  # other masks, equal counts: NumPy compacts (in CPython)
    check(two_masks, x, x + 1)  # other counts: NumPy's error
    base = np.arange(20.0).reshape(4, 5)
    check(scalar, base[::-1, 1::2], 9.0)


def test_masked_dynamic():
    def f(x, t):
        x[x > t] = t
        return x[x < 0].sum(), len(x[x == t])

    cfn = check(f, np.linspace(-2, 2, 9), 1.0, dynamic=True)
    x = np.linspace(-5, 5, 23)
    want_x = x.copy()
    _same(cfn(x, 1.5), f(want_x, 1.5))
    _same(x, want_x)


def test_mask_shape_mismatch_is_numpys_error():
    check(lambda x, m: x[m].sum(), np.arange(6.0), np.ones(5, bool), compiled=None)


@pytest.mark.parametrize(
    "body, reason",
    [
        ("return x[m]", "returning"),
        ("return x[m] + x[:3]", "depends on the data"),
        ("return x[m].shape", "depends on the data"),
        ("return x[m].cumsum()", "depends on the data"),
        ("x[m] = x[m][::-1]; return x", ""),
        ("x[m] = np.arange(3.0); return x", "one value per selected element"),
        ("return np.nonzero(x)", "depends on the data"),
        ("return x.nonzero()", "depends on the data"),
        ("return np.where(m)", "data-dependent"),
        ("return np.argwhere(x)", "depends on the data"),
        ("return np.flatnonzero(x)", "depends on the data"),
    ],
)
def test_data_dependent_sizes_break_cleanly(body, reason):
    ns = {"np": np}
    exec(f"def f(x, m):\n    {body}", ns)
    x = np.array([0.0, 1.5, 0.0, 2.5, 3.5])
    m = np.array([False, True, False, True, True])
    cfn = compiler.compile(ns["f"])
    np_x, em_x = x.copy(), x.copy()
    want, want_error = _run(ns["f"], (np_x, m))
    got, got_error = _run(cfn, (em_x, m))
    assert (want_error is None) == (got_error is None)
    if want_error is None:
        _same(got, want)
    _same(em_x, np_x)
    explained = compiler.explain(ns["f"])(x.copy(), m)
    reasons = " ".join(str(r) for r in explained.break_reasons)
    assert explained.graph_break_count >= 1 or explained.graph_count == 0, reasons
    assert reason in reasons, reasons


# ----------------------------------------------------------------------------- take, put, along an axis


def test_take():
    def f(x, i):
        return np.take(x, i), np.take(x, i, axis=1), x.take(i, axis=0, mode="wrap"), np.take(x, i, -1, mode="clip")

    x = np.arange(12.0).reshape(3, 4)
    check(f, x, np.array([[0, -1], [2, 1]]))
    check(f, x, np.array([[0, -1], [2, 7]], np.int32))  # raise: an IndexError, as NumPy
    check(lambda x: (np.take(x, 3), x.take(-1)), x)
    check(lambda x, i: np.take(x, i, axis=0, mode="wrap"), x, np.array([5, -7, 2]), dynamic=True)


def test_unravel_index():
    """Flat indices as one int64 index per dim (NumPy scalars for a scalar index, as
    NumPy's), C and F order, sizes symbolic too; an index out of range is NumPy's
    ValueError (a run-time check), a float one its TypeError."""
    A = np.random.default_rng(0).standard_normal((30, 40))
    check(lambda A: np.unravel_index(np.argmax(A), A.shape), A)
    check(lambda A: np.unravel_index(np.argsort(A.ravel())[:5], A.shape), A)
    check(lambda A: np.unravel_index(np.array([[0, 11], [1199, 7]], np.int32), A.shape, order="F"), A)
    check(lambda A: np.unravel_index(7, (3, 4)), A)
    check(lambda A: np.unravel_index(np.argmin(A), A.shape), A, dynamic=True)
    check(lambda A: np.unravel_index(np.argmax(A) + 1200, A.shape), A)  # ValueError
    check(lambda A: np.unravel_index(np.argmax(A) - 1200, A.shape), A)  # negative: ValueError
    check(lambda A: np.unravel_index(1.0, A.shape), A)  # TypeError
    check(lambda A: np.unravel_index(3, (2, 2), order="K"), A)  # ValueError


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int16, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_bincount_with_minlength(dtype):
    """Counts (int64) and sums of weights (float64, added in order: NumPy's bits) at each
    value below ``minlength``; a longer result (a value at or past it) and a negative
    value (NumPy's ValueError) are CPython's, by the run-time check."""
    rng = np.random.default_rng(1)
    x = (rng.integers(0, 2, 500) if dtype == np.bool_ else rng.integers(0, 40, 500)).astype(dtype)
    w = rng.standard_normal(500).astype(np.float32)
    check(lambda x: np.bincount(x, minlength=40), x)
    check(lambda x, w: (np.bincount(x, w, 40), np.bincount(x, weights=w > 0, minlength=64)), x, w)
    check(lambda x: np.bincount(x[:0], minlength=5), x)
    c = check(lambda x: np.bincount(x, minlength=12), x)  # values up to 39: CPython's longer result
    assert len(c(x)) == (40 if dtype != np.bool_ else 12)
    if dtype != np.bool_ and np.dtype(dtype).kind == "i":
        check(lambda x: np.bincount(x - 1, minlength=50), x)  # a -1: NumPy's ValueError


def test_bincount_errors_and_breaks():
    check(lambda x: np.bincount(x.astype(np.float64), minlength=3), np.arange(4))  # TypeError, as NumPy
    check(lambda x: np.bincount(x.reshape(2, 2), minlength=3), np.arange(4))  # ValueError
    check(lambda x: np.bincount(x) + 1, np.arange(4), compiled="without minlength=")


def test_bincount_symbolic_sizes_compile_once():
    cfn = check(lambda x: np.bincount(x, minlength=8), np.array([1, 7, 7, 0, 3]), dynamic=True)
    for n in (3, 40, 2):  # (a size of 1 or 0 is specialized, as torch.compile's)
        x = np.random.default_rng(n).integers(0, 8, n)
        np.testing.assert_array_equal(cfn(x), np.bincount(x, minlength=8))
    assert len(cfn.entries) == 1


@pytest.mark.parametrize("length", [1, 7, 1024, 1025])
def test_integer_sums_in_interleaved_copies(length):
    """Integer sums into up to 1024 slots go to four copies in turn (the elements past
    the last group of four to the first), added at the end: every count, whatever the
    number of elements left over, equals NumPy's; 1025 slots stay one vector."""
    from graph_building import loops_of

    rng = np.random.default_rng(length)
    counts = compiler.compile(lambda x: np.bincount(x, minlength=length), options={"strict": True})
    for n in (0, 1, 3, 4, 5, 8, 11, 1001):
        x = rng.integers(0, length, n)
        np.testing.assert_array_equal(counts(x), np.bincount(x, minlength=length))
        np.testing.assert_array_equal(counts(np.sort(x)), np.bincount(x, minlength=length))
    a, b = np.zeros(length, np.int8), np.zeros(length, np.int8)
    idx, w = rng.integers(-length, length, 999), rng.integers(-128, 127, 999).astype(np.int8)
    compiler.compile(lambda a, i, w: np.add.at(a, i, w), options={"strict": True})(a, idx, w)
    np.add.at(b, idx, w)
    np.testing.assert_array_equal(a, b)  # int8 sums wrap alike in any order
    loops = loops_of(lambda x: np.bincount(x, minlength=length), rng.integers(0, length, 100))
    assert (f"memref<4x{length}xi64>" in loops) == (length <= 1024)
    # from PARALLEL_COUNTS_MIN elements, in COUNT_PARTS parts on the threads, each with copies
    many = lower_indexing.PARALLEL_COUNTS_MIN + 4 * lower_indexing.COUNT_PARTS + 3
    x = rng.integers(0, length, many)
    np.testing.assert_array_equal(counts(x), np.bincount(x, minlength=length))
    np.testing.assert_array_equal(counts(np.sort(x)), np.bincount(x, minlength=length))
    parts = f"memref<{lower_indexing.COUNT_PARTS}x4x{length}xi64>"
    assert (parts in loops_of(lambda x: np.bincount(x, minlength=length), x)) == (length <= 1024)
    a, b = np.zeros(length, np.int8), np.zeros(length, np.int8)
    idx, w = rng.integers(-length, length, many), rng.integers(-128, 127, many).astype(np.int8)
    compiler.compile(lambda a, i, w: np.add.at(a, i, w), options={"strict": True})(a, idx, w)
    np.add.at(b, idx, w)
    np.testing.assert_array_equal(a, b)


HISTOGRAM_DATA = {
    "float64": np.random.default_rng(3).standard_normal(1000),
    "float32": np.random.default_rng(4).standard_normal(1000).astype(np.float32),
    "float16": np.random.default_rng(5).standard_normal(300).astype(np.float16),
    "int64": np.random.default_rng(6).integers(-50, 50, 1000),
    "int8": np.random.default_rng(7).integers(-128, 128, 500).astype(np.int8),
    "uint8": np.random.default_rng(8).integers(0, 256, 500).astype(np.uint8),
    "on the edges": np.linspace(-1.0, 1.0, 41),
    "one value": np.full(10, 3.0),
    "one integer": np.full(7, -3),
    "wide": np.random.default_rng(9).standard_normal(5000) * 1e300,
    "matrix": np.random.default_rng(10).standard_normal((30, 40)),
    "empty": np.zeros(0),
}


@pytest.mark.parametrize("data", list(HISTOGRAM_DATA))
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"bins": 7}, {"bins": 1}, {"range": (-1, 1)}, {"range": (-1.5, 2.0), "bins": 13}, {"density": True}],
    ids=str,
)
def test_histogram_with_a_number_of_bins(data, kwargs):
    """np.histogram's counts and edges, NumPy's bit for bit (its uniform-bin path step by
    step: the quotient in the dtype its scalars give, the corrections at the edges), from
    the data's minimum and maximum (widened where equal) or a given range, density too."""
    check(lambda x: np.histogram(x, **kwargs), HISTOGRAM_DATA[data])
    check(lambda x: np.histogram(x, 10, (np.float32(-2), np.float32(2))), HISTOGRAM_DATA[data])


def test_histogram_errors_and_breaks():
    """NumPy's errors, found while tracing (a given range) or at run time (the data's own:
    NaN, edges too close to increase: CPython then raises them); what it cannot compile
    runs in CPython, the break naming it."""
    x = np.random.default_rng(1).standard_normal(100)
    check(lambda x: np.histogram(x, range=(2, 1)), x)  # ValueError: max must be larger
    check(lambda x: np.histogram(x, range=(0, np.inf)), x)  # not finite
    check(lambda x: np.histogram(x, bins=0), x)
    check(lambda x: np.histogram(x, range=(1.0, 1.0 + 1e-15), bins=100), x)  # too many bins
    check(lambda x: np.histogram(x), np.array([1.0, np.nan, 2.0]))  # autodetected range not finite
    check(lambda x: np.histogram(x, bins=10), np.array([1.0, np.nextafter(1.0, 2.0)]))  # too many bins
    check(lambda x: np.histogram(x, range=(0, 1)), np.array([0.5, np.nan, 1.0, 1.5, -0.0]))  # NaN not counted
    check(lambda x: np.histogram(x, weights=x), x, compiled="weights=")
    check(lambda x: np.histogram(x, bins=[0.0, 0.5, 2.0]), x, compiled="bins as edges")
    check(lambda x: np.histogram(x, bins="auto"), x, compiled="bins as edges")


def test_histogram_symbolic_sizes_compile_once_and_fuse():
    from graph_building import captured_graph

    cfn = check(lambda x: np.histogram(x, bins=16), np.random.default_rng(0).standard_normal(50), dynamic=True)
    for n in (3, 400, 77):
        x = np.random.default_rng(n).standard_normal(n)
        for got, want in zip(cfn(x), np.histogram(x, bins=16)):
            np.testing.assert_array_equal(got, want)
    assert len(cfn.entries) == 1
    # the edges a value is tested against are computed in its loop, never looked up
    assert "ember.gather" not in captured_graph(lambda x: np.histogram(x, bins=16), x)


def test_add_at_into_an_integer_array_of_changing_size():
    """A 1-d integer target of a symbolic size is added into by the scatter's own loop
    (its interleaved copies need a fixed length): the backend had failed on it."""
    fn = compiler.compile(lambda a, i: np.add.at(a, i, 1), dynamic=True, options={"strict": True})
    for n in (5, 9, 40):
        a, b, idx = np.zeros(n, np.int64), np.zeros(n, np.int64), np.array([0, 1, 1, -1, n - 2])
        fn(a, idx)
        np.add.at(b, idx, 1)
        np.testing.assert_array_equal(a, b)
    assert all(entry.graph_module is not None for entry in fn.entries)  # compiled, not run eagerly


def test_add_at_accumulates_repeated_indices():
    """``np.add.at``: each index's value added in turn (repeats accumulate, negatives count
    from the end), into the argument itself, a view of it, rows or single elements."""
    rng = np.random.default_rng(2)
    idx, g = rng.integers(-10, 10, 60), rng.standard_normal(60)

    def grads(a, idx, g):
        np.add.at(a, idx, g)
        np.add.at(a, idx[:5], 1.0)
        return a.sum()

    check(grads, np.zeros(10), idx, g)
    check(grads, np.zeros(12)[1:11], idx, g)  # a view: written through
    rows, cols = rng.integers(0, 4, 30), rng.integers(-5, 5, 30)

    def histogram_2d(grid, rows, cols):
        np.add.at(grid, (rows, cols), 1)
        np.add.at(grid, rows, np.arange(5.0))  # whole rows, the values broadcast
        return grid

    check(histogram_2d, np.zeros((4, 5)), rows, cols)
    check(lambda a, i: np.add.at(a, i, 100), np.zeros(4, np.int8), np.array([1, 1, 3]))  # wraps, as NumPy
    check(lambda a, i, g: np.add.at(a, i, g), np.zeros(3, np.float32), np.array([0, 0, 2]), np.ones(3, np.float32))
    check(lambda a, i: np.add.at(a, i, 1.0), np.zeros(5), np.array([0, 7]))  # NumPy's IndexError


def test_add_at_in_a_wider_type_runs_in_cpython():
    """NumPy adds a Python float to float32 elements in float64 and rounds back; the
    scatter-add would add in float32: that call is CPython's, named by the break."""
    check(lambda a, i: np.add.at(a, i, 0.1), np.zeros(3, np.float32), np.array([0, 0, 2]), compiled="wider type")


def test_take_along_axis_and_put_along_axis():
    def take(x, i):
        return np.take_along_axis(x, i, axis=1), np.take_along_axis(x, i[:1], axis=1)

    def top(x):
        order = np.argsort(-x, axis=0)
        return np.take_along_axis(x, order, axis=0)

    def put(x, i, v):
        np.put_along_axis(x, i, v, axis=1)
        return x

    x = np.arange(12.0).reshape(3, 4) * np.array([1, -1, 1, -1])
    check(take, x, np.array([[0, 3], [1, 1], [-1, 2]]))
    check(take, x, np.array([[0, 4], [1, 1], [-1, 2]]))
    check(top, x, compiled="argsort" if "argsort" not in ops.OPS else True)
    check(put, x, np.array([[0], [3], [1]]), np.array([[9.0]]))
    check(put, x, np.array([[0, 0], [3, -1], [1, 2]]), np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    check(put, x, np.array([[0], [4], [1]]), 9.0)


def test_put():
    def f(x, i, v):
        np.put(x, i, v)
        return x

    def modes(x, i):
        np.put(x, i, -1, mode="wrap")
        x.put(i + 1, -2, mode="clip")
        return x

    x = np.arange(12).reshape(3, 4)
    check(f, x, np.array([0, 5, -1, 5]), np.array([10, 20, 30, 40]))
    check(f, x.T, np.array([0, 5, -1]), 7)
    check(f, x, np.array([0, 12]), 7)
    check(modes, x, np.array([13, -14, 3]))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (3, 3, 3), (1, 1)])
def test_fill_diagonal(shape):
    def f(a):
        np.fill_diagonal(a, 7.5)
        return a

    def values(a, v):
        b = a.copy()
        np.fill_diagonal(b, v)
        return b

    check(f, np.zeros(shape))
    check(f, np.zeros(shape, np.int32))
    check(values, np.zeros(shape), np.arange(min(shape), dtype=np.float64) + 1)


def test_fill_diagonal_dynamic():
    def f(a):
        np.fill_diagonal(a, -1)
        return a.sum()

    cfn = check(f, np.ones((4, 6)), dynamic=True)
    a = np.ones((7, 3))
    want = a.copy()
    _same(
        cfn(
            a,
        ),
        f(want),
    )
    _same(a, want)


# ----------------------------------------------------------------------------- backends and the ops


def test_eager_backend_agrees():
    def f(x, i, m):
        y = x[i]
        x[i[::-1]] = -1.0
        x[m] = 5.0
        return y, x[m].sum()

    check(f, np.arange(6.0), np.array([0, -1, 3]), np.arange(6) % 2 == 0, backend="eager", compiled=None)


def test_interpreter_gather_scatter_rules():
    x = np.arange(24).reshape(2, 3, 4)
    i0, i2 = np.array([[0, 1], [1, -2]]), np.array([[3, 0], [-1, 1]])
    indices = np.stack([i0, i2], -1).astype(np.int64)
    got = interpreter.IMPLS["gather"](x, indices, {"axes": (0, 2), "at": 0}, None)
    np.testing.assert_array_equal(got, x[i0, :, i2])
    want = x.copy()
    want[i0, :, i2] = -got
    np.testing.assert_array_equal(interpreter.IMPLS["scatter"](x, indices, -got, {"axes": (0, 2), "at": 0}, None), want)
    updates = np.array([1, 2, 3])
    dup = interpreter.IMPLS["scatter"](
        np.zeros(4, np.int64), np.array([[1], [1], [-3]]), updates, {"axes": (0,), "at": 0}, None
    )
    np.testing.assert_array_equal(dup, [0, 3, 0, 0])
    with pytest.raises(ops.TypeRuleError, match="i64"):
        ops.infer("gather", [ops.TensorType((3,), "f32"), ops.TensorType((2, 1), "i32")], {"axes": (0,), "at": 0})
    with pytest.raises(ops.TypeRuleError, match="indexed shape"):
        ops.infer(
            "scatter",
            [ops.TensorType((3,), "f32"), ops.TensorType((2, 1), "i64"), ops.TensorType((3,), "f32")],
            {"axes": (0,), "at": 0},
        )


# ----------------------------------------------------------------------------- random programs

_TEMPLATES = [
    "a[[{i}, {j}, {i}]] = {v}",
    "a[[{i}, {j}]] += b[{r}, :2]",
    "b[[{r}, {s}], 1:] *= 2",
    "b[:, [{k}, {m}]] = c[:4, None]",
    "c[c > {t}] = {t}",
    "b[b < {t}] += 1",
    "a[a > b[0, 0]] = a.sum()",
    "w = b[[{r}, {s}]]",
    "w += a[:5]",
    "a[1:][[0, -1]] = {v}",
    "np.put(c, [{i}, -1], 9)",
    "np.fill_diagonal(b, {v})",
    "b.T[[{k}], [{r}]] = 5",
    "b[::-1][[{r}]] = a[:5]",
    "a = a + 1",
    "c[[{i}, {j}]] -= c[[{j}, {i}]]",
    "b[{r}][b[{r}] > 0] = -b[{r}][b[{r}] > 0]",
]


def _random_program(rng) -> str:
    lines = ["w = b[[0]]"]
    for _ in range(rng.integers(2, 6)):
        template = _TEMPLATES[rng.integers(len(_TEMPLATES))]
        lines.append(
            template.format(
                i=rng.integers(-6, 6),
                j=rng.integers(-6, 6) if rng.random() > 0.05 else 6,  # now and then out of bounds
                r=rng.integers(-4, 4),
                s=rng.integers(-4, 4),
                k=rng.integers(-5, 5),
                m=rng.integers(-5, 5),
                t=rng.integers(-3, 3),
                v=rng.integers(-9, 9),
            )
        )
    body = "\n".join(f"    {line}" for line in lines)
    return f"def prog(a, b, c, i):\n{body}\n    return a.sum() + b.sum() + c.sum(), w, a[i], b[:, i[:2]]\n"


@pytest.mark.parametrize("seed", range(24))
def test_random_index_writes(seed):
    rng = np.random.default_rng(seed)
    source = _random_program(rng)
    ns = {"np": np}
    exec(source, ns)
    a = rng.integers(-5, 5, 6).astype(np.float64)
    b = rng.integers(-5, 5, (4, 5)).astype(np.float64)
    c = rng.integers(-5, 5, 6)
    if seed % 3 == 0:  # non-contiguous, negative-stride arguments
        b = np.ascontiguousarray(np.pad(b, ((0, 0), (0, 5))))[:, ::2][:, :5][::-1].copy()[::-1]
        a = np.concatenate([a, a])[::-2]
    i = rng.integers(-4, 4, 3)
    try:
        check(ns["prog"], a, b, c, i, compiled=None, dynamic=seed % 2 == 0 or None)
    except AssertionError as e:
        raise AssertionError(f"seed {seed}:\n{source}\n{e}") from None
