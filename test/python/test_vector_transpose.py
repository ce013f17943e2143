"""Transposes moving the innermost axis, copied as register blocks
(``ember-vector-transpose``): NumPy's values bit for bit (NaN payloads, signed zeros)
for every permutation of 2-4 axes, sizes around the block side (0, 1, V - 1, V, V + 1,
2V + 3), float32/64 and int32/64, sliced, strided and reversed inputs, bool and
float16 (left to the loops), the matmul operand of a convolution; and the compiled
kernel is the block one."""

import itertools

import numpy as np
import pytest
from graph_building import optimized_llvm_ir
from hypothesis import given, settings
from hypothesis import strategies as st

import compiler
from benchmarks.corpus.ml import conv2d

RNG = np.random.default_rng(41)
SIZES = [0, 1, 7, 8, 9, 15, 16, 17, 35]


def _values(shape, dtype):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, size=shape, dtype=dtype, endpoint=True)
    if dtype == np.float16:
        return RNG.integers(0, 1 << 16, size=shape, dtype=np.uint16).view(np.float16)  # every bit pattern
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    x = RNG.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    if flat.size >= 4:
        payload = np.array([0x7FC12345 if dtype == np.float32 else 0x7FF8_0000_DEAD_BEEF], dtype=f"u{x.itemsize}")
        flat[:4] = [payload.view(dtype)[0], -0.0, np.inf, -np.inf]
    return x


def _assert_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous
    assert got.tobytes() == want.tobytes()  # bit for bit: NaN payloads, -0.0


def copy_transposed(x, perm):
    return np.ascontiguousarray(x.transpose(perm))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16, np.int16, np.uint8])
@pytest.mark.parametrize("rows,cols", [(r, c) for r in SIZES for c in SIZES if (r * 7 + c) % 3 == 0 or r == c])
def test_matrix_transpose_is_numpy_bit_for_bit(dtype, rows, cols):
    x = _values((rows, cols), dtype)
    fn = compiler.compile(lambda a: a.T.copy())
    _assert_bits(fn(x), x.T.copy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "perm", [p for n in (3, 4) for p in itertools.permutations(range(n)) if p[-1] != n - 1], ids=str
)
def test_every_permutation_moving_the_innermost_axis(dtype, perm):
    shape = (3, 17, 5, 9)[: len(perm)]
    x = _values(shape, dtype)
    fn = compiler.compile(lambda a: copy_transposed(a, perm))
    _assert_bits(fn(x), copy_transposed(x, perm))


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x[1:-1, 2:],  # a window: rows of unit stride, at an offset
        lambda x: x[::2, 1:],  # every other row
        lambda x: x[::-1],  # reversed rows (unit stride inside each)
        lambda x: x[:, ::-1],  # reversed columns: strided rows, left to the loops
        lambda x: x[:, ::3],  # strided columns
    ],
    ids=["window", "every_other_row", "reversed_rows", "reversed_columns", "strided_columns"],
)
def test_views_of_the_input(view):
    x = _values((37, 41), np.float32)
    fn = compiler.compile(lambda a: np.ascontiguousarray(view(a).T))
    _assert_bits(fn(x), np.ascontiguousarray(view(x).T))


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64])
def test_other_element_types_stay_numpy_exact(dtype):
    x = _values((19, 21), np.bool_) if dtype == np.bool_ else (RNG.standard_normal((19, 21)) * 50).astype(dtype)
    fn = compiler.compile(lambda a: a.T.copy())
    _assert_bits(fn(x), x.T.copy())


@pytest.mark.parametrize("shape", [(2, 16, 12, 21), (1, 3, 5, 5), (3, 17, 20, 18)])
def test_convolution_windows(shape):
    """The corpus's convolution: nine windows transposed to channels-last, each the
    operand of a product accumulated into the output."""
    x = RNG.standard_normal(shape).astype(np.float32)
    weights = RNG.standard_normal((8, shape[1], 3, 3)).astype(np.float32)
    bias = RNG.standard_normal(8).astype(np.float32)
    got, want = compiler.compile(conv2d)(x, weights, bias), conv2d(x, weights, bias)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 20), min_size=2, max_size=4),
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.uint8, np.float16]),
)
def test_random_transposes(shape, data, dtype):
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    x = _values(tuple(shape), dtype)
    fn = compiler.compile(lambda a: copy_transposed(a, perm))
    _assert_bits(fn(x), copy_transposed(x, perm))


def test_kernel_is_the_block_one():
    """Two-input shuffles, V log2 V a block (at least 8 x 3, AVX2's float32 blocks):
    the register blocks, not one scalar load per element; a copy keeping the innermost
    axis has none."""
    for shape in [(64, 48), (60, 45)]:
        llvm_ir = optimized_llvm_ir(lambda a: a.T.copy(), np.ones(shape, np.float32))
        assert llvm_ir.count("shufflevector") >= 24
    plain = optimized_llvm_ir(lambda a: a[1:].copy(), np.ones((64, 48), np.float32))
    assert "shufflevector" not in plain


def transpose_in_place(a):
    a[:] = a.T
    return a


def shifted_in_place(a):
    a[1:, :-1] = a[:-1, 1:].T


@pytest.mark.parametrize("fn", [transpose_in_place, shifted_in_place], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 16, 37])
def test_written_into_its_own_input(fn, n):
    """The output overlaps the input: NumPy reads the whole input first, and so does Ember."""
    x = _values((n, n), np.float32)
    want, got = x.copy(), x.copy()
    want_result, got_result = fn(want), compiler.compile(fn)(got)
    _assert_bits(got, want)
    if want_result is not None:
        assert got_result is got
