"""Elementwise ops over short rows (``ember-collapse-rows``): the same values as NumPy
for contiguous arrays (one flat loop) and for every view (two loops, untouched), for
images with a channel axis too, and the flat loop is what the contiguous variant
compiles."""

import numpy as np
import pytest
from graph_building import loops_of

import compiler

RNG = np.random.default_rng(7)

FUNCTIONS = {
    "exp": lambda x, y: np.exp(x),
    "affine": lambda x, y: x * 1.5 + y,
    "tanh_mix": lambda x, y: np.tanh(x) - y * y,
    "row_broadcast": lambda x, y: x - x.max(axis=-1, keepdims=True),  # stays two loops
}


def views(shape, dtype):
    """Contiguous arrays and views of the same shape: reversed, strided, transposed."""
    big = RNG.standard_normal((shape[0], 2 * shape[1])).astype(dtype)
    yield "contiguous", RNG.standard_normal(shape).astype(dtype)
    yield "reversed rows", RNG.standard_normal(shape).astype(dtype)[::-1]
    yield "strided columns", big[:, ::2]
    yield "transposed", np.ascontiguousarray(RNG.standard_normal(shape[::-1]).astype(dtype)).T


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("rows", [0, 1, 7, 300])
@pytest.mark.parametrize("row", [2, 3, 10, 32, 33])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_numpy(name, rows, row, dtype):
    fn = FUNCTIONS[name]
    compiled = compiler.compile(fn)
    for _, x in views((rows, row), dtype):
        y = RNG.standard_normal((rows, row)).astype(dtype)
        y[:, 0] = -0.0
        if x.size:
            x[0, ...] = [np.nan, np.inf, -np.inf, -0.0][:row] + [1.0] * max(0, row - 4)
        want, got = fn(x, y), compiled(x, y)
        assert got.dtype == want.dtype and got.shape == want.shape
        tol = 2e-6 if dtype == np.float32 else 1e-14  # tanh within 2 ulp; x - y*y cancels
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_a_stack_of_points_matches_numpy():
    pts = RNG.standard_normal((4, 500, 3))
    fn = lambda p: np.sqrt(np.exp(p) + 1.0)  # noqa: E731
    np.testing.assert_allclose(compiler.compile(fn)(pts), fn(pts), rtol=1e-14)


def test_the_contiguous_variant_runs_one_flat_loop():
    """Contiguous (N, 10): one loop over the collapsed buffers; a strided variant keeps
    its loop of 10 per row."""
    x = RNG.standard_normal((64, 10))
    fn = lambda a: np.exp(a)  # noqa: E731
    flat, strided = loops_of(fn, x), loops_of(fn, x, contiguous=False)
    assert flat.count("memref.collapse_shape") == 2 and "scf.for" in flat
    assert "memref.collapse_shape" not in strided and "to %c10 step" in strided


def gamma_curve(img, gamma):
    """The corpus's contrast stretch: an 8-bit RGB image through a run-time power."""
    x = img.astype(np.float32)
    y = ((x - x.min()) / (x.max() - x.min())) ** gamma
    return (y * 255.0 + 0.5).astype(np.uint8)


@pytest.mark.parametrize("shape", [(1, 1, 3), (7, 5, 3), (60, 33, 3), (9, 4, 2), (5, 6, 40)])
def test_images_with_channels_match_numpy(shape):
    """(h, w, c) arrays: the (w, c) loops of a contiguous image are one loop of w * c;
    views (rows reversed, a channel slice, axes swapped) keep their loops."""
    img = RNG.integers(30, 200, shape, dtype=np.uint8)
    img.flat[0], img.flat[-1] = 30, 199  # max > min: no NaN to cast to uint8 (undefined in C)
    compiled = compiler.compile(gamma_curve)
    for x in (img, img[::-1], img[:, :, ::-1], img.transpose(1, 0, 2)):
        np.testing.assert_array_equal(compiled(x, 0.8), gamma_curve(x, 0.8))
    f = RNG.standard_normal(shape)
    f[0, 0, 0] = np.nan
    np.testing.assert_allclose(compiler.compile(lambda a: np.exp(a))(f), np.exp(f), rtol=1e-14)


def test_an_image_runs_one_loop_per_row():
    """Contiguous (h, w, 3): the loops over w and the 3 channels become one over the
    row's w * 3 elements (the last two dims collapsed); the strided variant keeps them."""
    x = RNG.standard_normal((16, 40, 3))
    fn = lambda a: np.exp(a) * 2.0  # noqa: E731
    flat, strided = loops_of(fn, x), loops_of(fn, x, contiguous=False)
    assert "[[0], [1, 2]]" in flat and "to %c120 step" in flat and "to %c3 step" not in flat
    assert "memref.collapse_shape" not in strided and "to %c3 step" in strided
