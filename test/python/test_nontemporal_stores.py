"""Streaming stores (``ember-nontemporal-stores``): with every output streamed
(``EMBER_STREAMING_STORES=0``), compiled functions give NumPy's values for sizes around
the vector width, misaligned and strided views, several outputs, casts, row and column
broadcasts, in-place updates and special values; the kernel really streams, and not
with the pass off or for a costly body."""

import numpy as np
import pytest
from graph_building import loops_of

import compiler

RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def stream_everything(monkeypatch):
    monkeypatch.setenv("EMBER_STREAMING_STORES", "0")


FUNCTIONS = {
    "affine": lambda x, y: x * 1.5 + y,
    "leaky": lambda x, y: np.where(x > 0, x, 0.1 * x),
    "divide": lambda x, y: x / (y + 3.0),
    "magnitude": lambda x, y: np.sqrt(x * x + y * y),
    "two_outputs": lambda x, y: (x + y, x - y),
    "to_float64": lambda x, y: x.astype(np.float64) * 2.0 + y,
    "compare": lambda x, y: x > y,  # a bool output: not streamed
}


def _inputs(n, dtype, kind):
    x = RNG.standard_normal(n + 3).astype(dtype)
    y = RNG.standard_normal(n + 3).astype(dtype)
    if n >= 4 and np.issubdtype(dtype, np.floating):
        x[:4] = [np.nan, np.inf, -np.inf, -0.0]
        y[1] = -0.0
    if kind == "contiguous":
        return x[:n], y[:n]
    if kind == "misaligned":  # every start modulo the vector: 1 and 3 elements in
        return x[1 : n + 1], y[3 : n + 3]
    return x[n - 1 :: -1] if n else x[:0], y[:n]  # reversed: the strided variant


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 33, 1000, 4099])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["contiguous", "misaligned", "reversed"])
def test_matches_numpy(name, n, dtype, kind):
    fn = FUNCTIONS[name]
    x, y = _inputs(n, dtype, kind)
    got, want = compiler.compile(fn)(x, y), fn(x, y)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integers_match_numpy(dtype):
    x = RNG.integers(-100, 100, 5003).astype(dtype)
    fn = lambda a, b: a * 3 - b  # noqa: E731
    np.testing.assert_array_equal(compiler.compile(fn)(x[1:], x[:-1]), fn(x[1:], x[:-1]))


def test_row_and_column_broadcasts_match_numpy():
    x = RNG.standard_normal((37, 301)).astype(np.float32)
    w, s = RNG.standard_normal(301).astype(np.float32), RNG.standard_normal((37, 1)).astype(np.float32)
    fn = lambda a, b, c: a * b + c  # noqa: E731
    np.testing.assert_array_equal(compiler.compile(fn)(x, w, s), fn(x, w, s))


def test_in_place_update_matches_numpy():
    def update(a, b):
        a += b * 2.0
        return a

    a, b = RNG.standard_normal(1001), RNG.standard_normal(1001)
    want = update(a.copy(), b)
    got = compiler.compile(update)(a, b)
    assert got is a
    np.testing.assert_array_equal(a, want)


def test_the_kernel_streams_only_when_asked_and_only_cheap_bodies(monkeypatch):
    x = np.ones(4096, np.float32)
    assert "nontemporal = true" in loops_of(FUNCTIONS["affine"], x, x)
    assert "nontemporal" not in loops_of(lambda a, b: np.tanh(a) + b, x, x)  # compute-bound
    monkeypatch.setenv("EMBER_STREAMING_STORES", "off")
    assert "nontemporal" not in loops_of(FUNCTIONS["affine"], x, x)
    monkeypatch.setenv("EMBER_STREAMING_STORES", "1M")  # 16 KiB outputs: below the threshold
    assert "nontemporal" not in loops_of(FUNCTIONS["affine"], x, x)


def test_a_bad_setting_is_a_clear_error(monkeypatch):
    from compiler.passes.nontemporal_stores import streaming_min_bytes

    monkeypatch.setenv("EMBER_STREAMING_STORES", "lots")
    with pytest.raises(ValueError, match="EMBER_STREAMING_STORES"):
        streaming_min_bytes()
