"""Large kernel outputs come from the runtime's cache of large blocks and go back to it
when the caller's last array over them dies (``runtime/outputs.py``): a kernel called
in a loop reuses one mapped block instead of a fresh mmap per call."""

import gc

import numpy as np
import pytest

import compiler
from runtime import outputs, temporaries

pytestmark = pytest.mark.skipif(not temporaries.routed(), reason="outputs are cached on Linux only")

N = outputs.MIN_BYTES // 4 + 1000  # float32 elements: just above the size that goes to the cache


def _affine(x, y):
    return x * 1.5 + y


def test_a_large_output_comes_from_the_cache_and_is_reused():
    compiler.reset()
    f = compiler.compile(_affine)
    x, y = np.arange(N, dtype=np.float32), np.ones(N, np.float32)
    first = f(x, y)
    assert isinstance(first.base, outputs.Block) and first.flags.writeable and first.flags.c_contiguous
    np.testing.assert_array_equal(first, _affine(x, y))
    address = first.ctypes.data
    del first
    gc.collect()
    assert temporaries.cached_bytes() >= N * 4  # back in the cache
    second = f(x, y)
    assert second.ctypes.data == address  # the same block, already mapped
    np.testing.assert_array_equal(second, _affine(x, y))


def test_a_view_keeps_its_block_and_reset_gives_blocks_back():
    compiler.reset()
    f = compiler.compile(_affine)
    x, y = np.arange(N, dtype=np.float32), np.full(N, -2.0, np.float32)
    out = f(x, y)
    view = out[::2]
    del out
    gc.collect()
    again = f(x + 1, y)  # the view's block is still in use: another block
    assert not np.shares_memory(again, view)
    np.testing.assert_array_equal(view, _affine(x, y)[::2])
    np.testing.assert_array_equal(again, _affine(x + 1, y))
    del view, again
    gc.collect()
    assert temporaries.cached_bytes() >= 2 * N * 4
    compiler.reset()
    assert temporaries.cached_bytes() == 0


def test_small_outputs_are_plain_numpy_arrays():
    f = compiler.compile(_affine)
    x = np.ones(outputs.MIN_BYTES // 4 - 1, np.float32)
    out = f(x, x)
    assert out.base is None and out.flags.owndata
    np.testing.assert_array_equal(out, 2.5 * x)


def test_empty_matches_numpy_empty():
    for shape, dtype in [((N,), np.float32), ((3, N // 3), np.int64), ((2, 0), np.float64), ((), np.bool_)]:
        a = outputs.empty(shape, dtype)
        assert a.shape == shape and a.dtype == np.dtype(dtype) and a.flags.c_contiguous and a.flags.writeable
        a[...] = 1
        assert (a == 1).all()


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.complex128])
def test_an_allocator_of_one_dtype_takes_the_cache_from_the_same_size(dtype):
    """``empty_of``: what a kernel with run-time output sizes allocates with; the same
    arrays as ``empty``, one item below the cache's size a plain array, at it a block."""
    allocate = outputs.empty_of(dtype)
    least = -(-outputs.MIN_BYTES // np.dtype(dtype).itemsize)
    for shape in [(least - 1,), (least,), (2, 0), ()]:
        a = allocate(shape)
        assert a.shape == shape and a.dtype == np.dtype(dtype) and a.flags.c_contiguous and a.flags.writeable
        assert isinstance(a.base, outputs.Block) == (shape == (least,))
        assert isinstance(a.base, outputs.Block) == isinstance(outputs.empty(shape, dtype).base, outputs.Block)


def test_a_dynamic_kernel_output_comes_from_the_cache_by_its_size():
    f = compiler.compile(_affine, dynamic=True)
    small, large = np.ones(1000, np.float32), np.ones(N, np.float32)
    assert f(small, small).base is None
    out = f(large, large)
    assert isinstance(out.base, outputs.Block)
    np.testing.assert_array_equal(out, np.full(N, 2.5, np.float32))


def test_a_static_binder_chooses_the_allocator_once():
    """Sizes known when the binder is generated: a small output is a bare ``np.empty``
    (no size check on the warm path), a large one comes from the cache."""
    from types import SimpleNamespace

    from runtime.binder import call_source

    f32 = SimpleNamespace(dtype=np.dtype(np.float32))
    signature = SimpleNamespace(inputs=(f32,), outputs=(f32, f32), allocated=(0, 1), inout=(None, None))
    source = call_source(signature, trusted_shapes=[(8,), (N,)])
    assert "o0 = bare_empty((8,), OUT0)" in source
    assert f"o1 = empty(({N},), OUT1)" in source
