"""Bool arrays read and written as bytes (``ember-byte-bools``): the loops over them
vectorize, and every answer is NumPy's, on odd shapes, views and non-canonical bytes."""

import numpy as np
import pytest
from graph_building import optimized_llvm_ir

import compiler

RNG = np.random.default_rng(11)


def life_step(board):
    b = board.astype(np.int32)
    n = b[:-2, :-2] + b[:-2, 1:-1] + b[:-2, 2:] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, :-2] + b[2:, 1:-1] + b[2:, 2:]
    alive = board[1:-1, 1:-1]
    board[1:-1, 1:-1] = (n == 3) | (alive & (n == 2))


FUNCTIONS = {
    "astype_int32": lambda m, x: m.astype(np.int32),
    "astype_float64": lambda m, x: m.astype(np.float64),
    "not_and_or": lambda m, x: ~m & (x > 0) | (x < -1),
    "where": lambda m, x: np.where(m, x, -x),
    "sum_rows": lambda m, x: m.sum(axis=-1),
    "any_all": lambda m, x: (m.any(), m.all()),
    "compare_stored": lambda m, x: (x > 0.5, x == x),
    "count_true": lambda m, x: np.count_nonzero(m),
}

SHAPES = [(0, 5), (1, 1), (37, 53), (256, 300)]


def _inputs(shape):
    x = RNG.standard_normal(shape)
    if x.size:
        x[tuple(s // 2 for s in shape)] = np.nan
    return RNG.random(shape) < 0.4, x


def _assert_same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bool_functions_match_numpy(name, shape):
    fn = FUNCTIONS[name]
    m, x = _inputs(shape)
    _assert_same(compiler.compile(fn)(m, x), fn(m, x))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bool_views_match_numpy(name):
    """Non-contiguous and reversed views of the bool array (strided byte loads)."""
    fn = FUNCTIONS[name]
    m, x = _inputs((64, 90))
    for view in (lambda a: a[::2, ::3], lambda a: a[::-1, ::-1], lambda a: a.T):
        _assert_same(compiler.compile(fn)(view(m), view(x)), fn(view(m), view(x)))


def test_zero_dimensional_bool():
    fn = FUNCTIONS["not_and_or"]
    m, x = np.array(True), np.array(-2.0)
    _assert_same(compiler.compile(fn)(m, x), fn(m, x))


def test_bytes_other_than_0_and_1_are_true():
    """A bool array viewing other bytes (``np.frombuffer(...).view(bool)``): NumPy reads
    a nonzero byte as True, and so does Ember (a byte compared with 0)."""
    m = np.frombuffer(bytes([0, 1, 2, 255, 128, 0, 7, 1] * 8), dtype=np.bool_).reshape(8, 8)
    x = np.ones((8, 8))
    for name in ("astype_int32", "astype_float64", "not_and_or", "where", "sum_rows", "count_true"):
        fn = FUNCTIONS[name]
        _assert_same(compiler.compile(fn)(m, x), fn(m, x))


@pytest.mark.parametrize("size", [3, 4, 67, 300])
def test_game_of_life_steps_in_place(size):
    """A bool board updated in place, step after step: what the call leaves in it."""
    board = RNG.random((size, size)) < 0.3
    got, want = board.copy(), board.copy()
    compiled = compiler.compile(life_step)
    for _ in range(4):
        assert compiled(got) is None
        life_step(want)
        np.testing.assert_array_equal(got, want)


def test_bool_loops_vectorize():
    """The optimized kernel loads bools as vectors of bytes, and no single i1 load is
    left (LLVM's vectorizer takes no i1 memory access: the loop ran one element at a
    time, 10x NumPy's time for ``astype``)."""
    text = optimized_llvm_ir(lambda m: m.astype(np.int32), RNG.random((64, 256)) < 0.5)
    assert "load i1" not in text
    assert "x i8>" in text
