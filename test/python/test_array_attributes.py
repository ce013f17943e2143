"""Array attributes people read in kernels: ``itemsize``/``nbytes`` compile (symbolic
where the size is); ``item()``/``tolist()`` make Python values out of array data, so they
are graph breaks whose result is still NumPy's."""

import numpy as np
import pytest

import compiler


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 3)])
def test_itemsize_and_nbytes_compile_to_constants(dtype, shape):
    def f(x):
        return x.nbytes + 100 * x.itemsize

    x = np.zeros(shape, dtype)
    out = compiler.explain(f)(x)
    assert out.graph_break_count == 0, out.break_reasons
    assert compiler.compile(f)(x) == f(x)


def test_nbytes_follows_a_symbolic_size_without_recompiling():
    def f(x):
        return x * x.nbytes

    c = compiler.compile(f, dynamic=True)
    for n in (3, 5, 9, 1000):
        x = np.ones(n)
        np.testing.assert_array_equal(c(x), f(x))
    assert len(c.entries) == 1


def test_nbytes_of_a_view_is_its_own():
    def f(x):
        return x[::2].nbytes, x.T.itemsize

    x = np.ones((5, 4), np.float32)
    assert compiler.compile(f)(x) == f(x)


@pytest.mark.parametrize("method", ["item", "tolist"])
def test_item_and_tolist_break_and_return_numpy_values(method):
    def f(x):
        y = (x * 2).sum(axis=0)
        v = getattr(y[:1], method)()
        return v, y + 1

    x = np.arange(6.0).reshape(2, 3)
    out = compiler.explain(f)(x)
    assert out.graph_break_count == 1
    assert method in str(out.break_reasons[0])
    got, want = compiler.compile(f)(x), f(x)
    assert type(got[0]) is type(want[0]) and got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.zeros((3, 4)),
        lambda: np.zeros((3, 4), np.int32)[:, ::2],
        lambda: np.zeros((4, 3)).T,
        lambda: np.zeros((3, 1)),  # a size-1 dim: its stride is exact, guarded
        lambda: np.arange(3.0)[:, None],  # C-contiguous with a 0 stride on the new axis
        lambda: np.zeros(0),
        lambda: np.zeros((5, 6), np.float32)[::-1],
    ],
)
def test_strides_of_a_callers_array(make):
    def f(x):
        return x.strides, x * 2

    x = make()
    out = compiler.explain(f)(x)
    assert out.graph_break_count == 0, out.break_reasons
    c = compiler.compile(f, options={"strict": True})
    got, want = c(x), f(x)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])
    y = np.asfortranarray(np.ones((3, 4))) if x.ndim == 2 else np.ones(7)[::2]  # another layout: retraced
    assert c(y)[0] == f(y)[0]


def test_strides_follow_symbolic_sizes():
    def f(x):
        return x.strides[0] + x

    c = compiler.compile(f, dynamic=True, options={"strict": True})
    for n in (3, 5, 8):
        x = np.ones((n, n + 1))
        np.testing.assert_array_equal(c(x), f(x))
    assert len(c.entries) == 1


def test_strides_of_a_view_or_computed_array_break():
    def f(x):
        return (x * 2).strides, x[::2].strides

    x = np.ones((4, 4))
    out = compiler.explain(f)(x)
    assert out.graph_break_count >= 1 and "strides" in str(out.break_reasons[0])
    assert compiler.compile(f)(x) == f(x)
