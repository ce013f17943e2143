"""The next row prefetched while a row loop writes this one (``ember-prefetch-rows``).

The rewrite changes no value: the programs here (layer norm, softmax, a row's max
taken off, in place too) must give NumPy's answers on rows of every length around the
chunk of 4 lines and the 1-32 KiB bounds, on one row and none, on views whose rows are
not contiguous, and with the row length changing between calls. The structure checks
say where the prefetches are and are not."""

import re

import numpy as np
import pytest
from graph_building import loops_of

import compiler
from compiler.passes import prefetch_rows

# A kernel that fails to compile runs eagerly with a warning: here that is a failure.
pytestmark = pytest.mark.filterwarnings("error:ember:RuntimeWarning")

RNG = np.random.default_rng(43)


def layer_norm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def off_the_max(x):
    return x - x.max(-1, keepdims=True)


def standardize_in_place(x):
    x -= x.mean(-1, keepdims=True)
    x /= np.abs(x).max(-1, keepdims=True) + 1.0
    return x


def _close(got, want):
    tol = 3e-5 if got.dtype == np.float32 else 1e-12
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def _prefetches(loops: str) -> list[str]:
    return re.findall(r"memref\.prefetch [^\n]*", loops)


SHAPES = [  # rows x columns: row bytes around the chunk (64 float32, 32 float64) and the bounds
    ((37, 1024), np.float32),  # 4 KiB rows: one page each
    ((5, 1000), np.float32),  # the last chunk short (1000 = 15 * 64 + 40)
    ((9, 257), np.float64),  # one element past a chunk
    ((7, 256), np.float32),  # exactly 1 KiB
    ((3, 8192), np.float32),  # exactly 32 KiB
    ((1, 1024), np.float32),  # one row: it prefetches itself
    ((0, 1024), np.float32),
]


@pytest.mark.parametrize("shape,dtype", SHAPES, ids=lambda s: str(s))
def test_matches_numpy(shape, dtype, thread_count):
    x = (RNG.standard_normal(shape) * 4).astype(dtype)
    w, b = RNG.standard_normal(shape[1]).astype(dtype), RNG.standard_normal(shape[1]).astype(dtype)
    _close(compiler.compile(layer_norm)(x, w, b), layer_norm(x, w, b))
    _close(compiler.compile(softmax)(x), softmax(x))
    np.testing.assert_array_equal(compiler.compile(off_the_max)(x), off_the_max(x))  # exact: no sum


def test_in_place():
    x = RNG.standard_normal((50, 1024)).astype(np.float32)
    want = standardize_in_place(x.copy())
    got = compiler.compile(standardize_in_place)(x)
    assert got is x
    _close(x, want)


@pytest.mark.parametrize(
    "view",
    [lambda a: a[:, ::2], lambda a: a[::-1], lambda a: a[::3, 5:-7]],
    ids=["every-other-column", "reversed-rows", "inner-block"],
)
def test_views(view):
    x = view(RNG.standard_normal((96, 2048)).astype(np.float32))
    _close(compiler.compile(softmax)(x), softmax(x))
    np.testing.assert_array_equal(compiler.compile(off_the_max)(x), off_the_max(x))


def test_nan_and_infinities_in_rows():
    x = RNG.standard_normal((20, 1024))
    x[2, 100], x[5], x[9, :64], x[11, 1023] = np.nan, np.inf, -np.inf, -0.0
    with np.errstate(invalid="ignore"):
        want = softmax(x)
        got = compiler.compile(softmax)(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    _close(np.nan_to_num(got), np.nan_to_num(want))


def test_row_length_changing_between_calls():
    compiled = compiler.compile(softmax)
    for cols in (1024, 1200, 700, 100, 9000, 1024):
        x = RNG.standard_normal((11, cols)).astype(np.float32)
        _close(compiled(x), softmax(x))


def test_the_writing_pass_prefetches_the_next_row_of_x():
    x = RNG.standard_normal((64, 1024)).astype(np.float32)
    w = b = np.ones(1024, np.float32)
    for loops in (loops_of(layer_norm, x, w, b), loops_of(softmax, x)):
        found = _prefetches(loops)
        assert len(found) == prefetch_rows.LINES and all("read, locality<3>, data" in p for p in found)
        assert "step %c64 {" in loops  # chunks of 4 lines of float32


def test_float64_chunks_are_four_lines_too():
    loops = loops_of(softmax, RNG.standard_normal((64, 512)))
    assert len(_prefetches(loops)) == prefetch_rows.LINES and "step %c32 {" in loops


@pytest.mark.parametrize("cols", [64, 16384], ids=["256-byte-rows", "64-KiB-rows"])
def test_rows_out_of_bounds_are_left_alone(cols):
    assert not _prefetches(loops_of(softmax, RNG.standard_normal((8, cols)).astype(np.float32)))


def test_one_pass_over_each_row_is_left_alone():
    assert not _prefetches(loops_of(lambda x: x * 2.0 + 1.0, RNG.standard_normal((64, 1024))))
